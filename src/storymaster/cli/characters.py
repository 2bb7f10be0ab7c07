"""Character files on the command line: one way to load them (validated like ``sheet``) and one way
to write a changed character that never loses work.

* :func:`load_character` refuses a character that ``sheet`` would refuse, with every reason,
  unless the GM says ``--allow-illegal`` (an odd NPC).
* :func:`write_character` prints the changed character by default; ``-o FILE`` writes a new file;
  ``--in-place`` rewrites the input, keeping the user's comments and layout (a ruamel.yaml
  round-trip) and a backup beside it (``FILE.bak``). It always says what it wrote.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from ..errors import CharacterError, InputFileError
from ..rules import HouseRules, load_model
from .output import console, err_console

__all__ = ["load_character", "write_character", "written_message"]


def load_character(
    system: Any, path: Path, house_rules: HouseRules | None = None, *, allow_illegal: bool = False
) -> Any:
    """The character in ``path``, refused (exit 2, every reason) when it breaks the creation rules."""
    character = load_model(path, system.character_model)
    problems = system.validate_character(character, house_rules)
    if problems and not allow_illegal:
        raise CharacterError(
            problems,
            name=getattr(character, "name", "") or str(path),
            hint=f"fix {path} (see 'storymaster {system.name} sheet {path}'), "
            "or add --allow-illegal to use it anyway (a GM's odd NPC)",
        )
    return character


def _merge(old: Any, full: Any, sparse: Any) -> Any:
    """``full`` written into ``old`` (a ruamel round-trip tree) so its comments and order survive.

    Keys the file has are updated to their new value; keys it lacks are added only when they
    differ from the default (they are in ``sparse``); keys the model no longer has are dropped.
    """
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(old, CommentedMap) and isinstance(full, dict):
        sparse = sparse if isinstance(sparse, dict) else {}
        for key in [k for k in old if k not in full]:
            del old[key]
        for key, value in full.items():
            if key in old:
                old[key] = _merge(old[key], value, sparse.get(key))
            elif key in sparse:
                old[key] = sparse[key]
        return old
    if isinstance(old, CommentedSeq) and isinstance(full, list):
        sparse = sparse if isinstance(sparse, list) and len(sparse) == len(full) else full
        for i, value in enumerate(full):
            if i < len(old):
                old[i] = _merge(old[i], value, sparse[i])
            else:
                old.append(sparse[i])
        del old[len(full) :]
        return old
    return old if old == full and type(old) is type(full) else full


def _round_trip(source: Path, character: BaseModel, document: dict[str, Any]) -> str | None:
    """The source file's text with the new character written into it, or None when that cannot be done."""
    from ruamel.yaml import YAML

    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    try:
        tree = rt.load(source.read_text(encoding="utf-8"))
    except Exception:  # the file was read once already; anything odd here means: write it plainly
        return None
    full = character.model_dump(mode="json")
    merged = _merge(tree, full, document)
    buffer = io.StringIO()
    rt.dump(merged, buffer)
    text = buffer.getvalue()
    try:  # never keep comments at the price of a different character
        again = type(character).model_validate(yaml.safe_load(text))
    except Exception:
        return None
    return text if again == character else None


def _plain(document: dict[str, Any], path: Path | None) -> str:
    if path is not None and path.suffix.lower() == ".json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)


def write_character(
    character: BaseModel,
    *,
    source: Path | None,
    out: Path | None,
    in_place: bool,
    document: dict[str, Any] | None = None,
    as_json: bool = False,
) -> dict[str, str | None]:
    """Write (or print) a changed character; returns what was done, for ``--json`` and the message.

    ``document`` is the character as the system writes it (defaults left out); by default the
    model's own dump without defaults.
    """
    if document is None:
        document = character.model_dump(mode="json", exclude_defaults=True)
    if in_place and out is not None:
        raise InputFileError("give either -o/--out FILE or --in-place, not both")
    if in_place and source is None:
        raise InputFileError("--in-place rewrites the character file the command read; this command read none")
    target = source if in_place else out
    if target is None:
        done: dict[str, str | None] = {"written": None, "backup": None}
        if not as_json:
            console.print(_plain(document, None), end="", markup=False, highlight=False, soft_wrap=True)
            err_console.print(written_message(done), markup=False, highlight=False, soft_wrap=True)
        return done
    same = source is not None and target.exists() and target.resolve() == source.resolve()
    text = None
    if same and target.suffix.lower() != ".json":
        text = _round_trip(target, character, document)
    if text is None:
        text = _plain(document, target)
    backup = None
    try:
        if same or target.exists():
            backup = target.with_name(target.name + ".bak")
            shutil.copyfile(target, backup)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputFileError(f"{target}: cannot be written ({exc.strerror or exc})") from None
    done = {"written": str(target), "backup": str(backup) if backup else None}
    (err_console if as_json else console).print(written_message(done), markup=False, highlight=False, soft_wrap=True)
    return done


def written_message(done: dict[str, Any]) -> str:
    if not done.get("written"):
        return "not saved: the changed character is printed above (-o FILE or --in-place saves it)"
    backup = f" (the previous version is in {done['backup']})" if done.get("backup") else ""
    return f"wrote {done['written']}{backup}"
