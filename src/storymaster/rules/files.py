"""Reading character and fight files (YAML or JSON) into typed models, with clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from .. import safe_yaml
from ..errors import InputFileError, Problem

__all__ = ["load_document", "load_model", "validation_message", "validation_problems"]

M = TypeVar("M", bound=BaseModel)

MAX_FILE_BYTES = 1_000_000


def load_document(path: str | Path) -> Any:
    """Parse a YAML or JSON file (JSON is YAML's subset); errors name the file and the line."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise InputFileError(f"{p}: the file is larger than {MAX_FILE_BYTES} bytes")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFileError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{p}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise InputFileError(f"{p}: is not UTF-8 text") from None
    except OSError as exc:
        raise InputFileError(f"{p}: cannot be read ({exc.strerror})") from None
    return parse_document(text, source=str(p), json_only=p.suffix.lower() == ".json")


def parse_document(text: str, *, source: str = "<input>", json_only: bool = False) -> Any:
    """Parse YAML (or, with ``json_only``, JSON) text; errors name ``source`` and the line."""
    if json_only:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputFileError(f"{source}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    try:
        return safe_yaml.load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise InputFileError(f"{source}{where}: not valid YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise InputFileError(f"{source}: not valid YAML: {exc}") from None


def validation_message(exc: ValidationError, source: str = "") -> str:
    """Pydantic's errors as one line each: ``field.path: message``."""
    lines = []
    for err in exc.errors():
        loc = ".".join(str(part) for part in err["loc"]) or "(top level)"
        lines.append(f"  - {loc}: {err['msg']}")
    head = f"{source}: " if source else ""
    return f"{head}{len(lines)} problem(s) in the file:\n" + "\n".join(lines)


def validation_problems(exc: ValidationError, *, prefix: str = "") -> list[Problem]:
    """Pydantic's errors as :class:`Problem` s, ``where`` the dotted field path (under ``prefix``)."""
    out = []
    for err in exc.errors():
        loc = ".".join(str(part) for part in err["loc"])
        where = ".".join(x for x in (prefix, loc) if x)
        out.append(Problem(where, str(err["msg"])))
    return out


def load_model(path: str | Path, model: type[M]) -> M:
    """Load a file into ``model``; shape errors become one :class:`InputFileError` listing each field."""
    data = load_document(path)
    return validate_data(data, model, source=str(path))


def validate_data(data: Any, model: type[M], *, source: str = "<input>") -> M:
    """``data`` as ``model``; a wrong shape raises :class:`InputFileError` naming every field."""
    if not isinstance(data, dict):
        raise InputFileError(f"{source}: expected a mapping of fields at the top level, found {type(data).__name__}")
    try:
        # context 'document': the data is a file or sheet someone wrote (models may ask more of it than of code)
        return model.model_validate(data, context={"document": source})
    except ValidationError as exc:
        raise InputFileError(
            validation_message(exc, source),
            hint="see the JSON Schema: storymaster <system> schema",
            problems=validation_problems(exc),
        ) from None
