"""Rolls inside posts: dice expressions and system checks, rolled on the scene's committed stream.

Every roll in a scene draws from ``DiceRng(seed, stream=f"scene:{id}", counter)``
where the counter carries on from the previous roll, so the whole scene is one
replayable stream. A stored roll keeps its records *without the seed* (the
seed is secret until the scene closes); views add the rendered detail back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..dice import DiceRng, RollRecord, roll
from ..errors import InputFileError, StorymasterError
from ..odds import distribution
from ..odds.chart import svg_bar_chart
from ..rules import Check, RuleSystem, validate_data
from .errors import Invalid

__all__ = [
    "MAX_ROLLS_PER_POST",
    "VISIBILITIES",
    "inline_odds",
    "parse_check",
    "preview",
    "roll_requests",
    "scene_stream",
    "shown_record",
]

VISIBILITIES = ("public", "gm", "blind", "self")
MAX_ROLLS_PER_POST = 20
MAX_LABEL = 200


class SystemFailed(Invalid):
    """A rule system raised something other than a Storymaster error on input it had accepted."""

    code = "system-failed"


def call_system(system: RuleSystem, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call into a rule system; its own errors pass through, anything else becomes a clear 422."""
    try:
        return fn(*args, **kwargs)
    except StorymasterError:
        raise
    except Exception as exc:
        raise SystemFailed(
            f"the {system.name} rules could not {what} ({type(exc).__name__}: {exc})",
            hint="this is probably a bug in the rule system; the request itself was well-formed",
        ) from exc


def scene_stream(scene_id: int) -> str:
    return f"scene:{scene_id}"


def parse_check(system: RuleSystem, data: Any) -> tuple[str, Check]:
    """``{"type": <one of system.check_types>, ...fields}`` as the system's check model."""
    if not isinstance(data, Mapping):
        raise Invalid("a check is an object with a 'type' and the check's fields")
    fields = dict(data)
    name = fields.pop("type", None)
    if name not in system.check_types:
        known = ", ".join(sorted(system.check_types)) or "none"
        raise Invalid(f"{system.name} has no check type {name!r}", hint=f"check types: {known}")
    try:
        return name, validate_data(fields, system.check_types[name], source=f"check {name}")
    except InputFileError as exc:
        raise Invalid(exc.message) from None


#: a check's character's condition applied to it: (character id, check) -> (the check, its penalties as JSON)
Penalise = Callable[[int, Check], tuple[Check, list[dict[str, Any]]]]


def _penalised(req: Mapping[str, Any], check: Check, penalise: Penalise | None) -> tuple[Check, dict[str, Any]]:
    """A check made for a character (``"character": id``) with that character's condition penalties."""
    who = req.get("character")
    if who is None:
        return check, {}
    if not isinstance(who, int) or isinstance(who, bool):
        raise Invalid("a roll's 'character' is a character id")
    if penalise is None:
        return check, {"character": who, "penalties": []}
    adjusted, penalties = penalise(who, check)
    return adjusted, {"character": who, "penalties": penalties}


def _request_fields(req: Any) -> tuple[str, str]:
    if not isinstance(req, Mapping):
        raise Invalid("each roll is an object: {'dice': '2d6+1'} or {'check': {'type': ...}}")
    label = req.get("label", "")
    visibility = req.get("visibility", "public")
    if not isinstance(label, str) or len(label) > MAX_LABEL:
        raise Invalid(f"a roll's label is text of at most {MAX_LABEL} characters")
    if visibility not in VISIBILITIES:
        raise Invalid(f"no roll visibility {visibility!r}", hint=f"visibilities: {', '.join(VISIBILITIES)}")
    if ("dice" in req) == ("check" in req):
        raise Invalid("a roll has exactly one of 'dice' (an expression) or 'check' (a system check)")
    return label, visibility


def stored_record(rec: RollRecord) -> dict[str, Any]:
    data = rec.to_json()
    del data["seed"], data["detail"]
    return data


def shown_record(data: Mapping[str, Any], seed: str | None) -> dict[str, Any]:
    """A stored record for a reader: with its rendered detail, and the seed once revealed."""
    rec = RollRecord.from_json({**data, "seed": seed or ""})
    out = dict(data)
    out["detail"] = rec.detail
    if seed is not None:
        out["seed"] = seed
    return out


def roll_requests(
    requests: Sequence[Any],
    *,
    by: int,
    seed: str,
    scene_id: int,
    counter: int,
    system: RuleSystem,
    house_rules: Mapping[str, Any],
    penalise: Penalise | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Roll every request in order on the scene's stream; returns the roll items and the next counter.

    A check request naming a ``character`` is made with that character's condition penalties
    (``penalise``), and its item says which penalties were applied."""
    if not isinstance(requests, Sequence) or isinstance(requests, (str, bytes)):
        raise Invalid("'rolls' is a list")
    if len(requests) > MAX_ROLLS_PER_POST:
        raise Invalid(f"at most {MAX_ROLLS_PER_POST} rolls in one post")
    rules = system.house_rules_model.model_validate(house_rules)
    # each request: label, visibility, and a dice expression or a (check type, check)
    parsed: list[tuple[str, str, str | tuple[str, Check], int | None, dict[str, Any]]] = []
    for req in requests:  # check every request before rolling any
        label, visibility = _request_fields(req)
        inline = req.get("inline")  # the n-th inline roll of the post's text (set by the table, not the API)
        if "dice" in req:
            if not isinstance(req["dice"], str):
                raise Invalid("'dice' is a dice expression such as '2d6+3'")
            parsed.append((label, visibility, req["dice"], inline, {}))
        else:
            name, check = parse_check(system, req["check"])
            check, extra = _penalised(req, check, penalise)
            parsed.append((label, visibility, (name, check), inline, extra))
    items = []
    rng = DiceRng(seed, scene_stream(scene_id), counter)
    for label, visibility, what, inline, extra in parsed:
        start = rng.counter
        item: dict[str, Any]
        if isinstance(what, str):
            try:
                rec = roll(what, rng, label=label)
            except StorymasterError as exc:
                if inline is None:
                    raise
                raise Invalid(f"inline roll {inline} ({what}): {exc.message}", hint=exc.hint) from None
            item = {"type": "dice", "expression": rec.expression, "total": rec.total, "records": [stored_record(rec)]}
        else:
            name, check = what
            outcome = call_system(system, f"resolve the {name} check", system.resolve, check, rng, rules)
            out = outcome.to_json()
            out.pop("rolls")
            item = {
                "type": "check",
                "check": {"type": name, **check.model_dump(mode="json")},
                "outcome": out,
                "records": [stored_record(r) for r in outcome.rolls],
                **extra,
            }
        item.update({"visibility": visibility, "by": by, "label": label, "counter": [start, rng.counter]})
        if inline is not None:
            item["inline"] = inline
        items.append(item)
    return items, rng.counter


def preview(
    request: Any, *, system: RuleSystem, house_rules: Mapping[str, Any], penalise: Penalise | None = None
) -> dict[str, Any]:
    """The exact odds of a roll request and an SVG chart of them, without rolling (a check naming a
    ``character`` with that character's condition penalties, listed in ``penalties``)."""
    label, _ = _request_fields(request)
    if "dice" in request:
        if not isinstance(request["dice"], str):
            raise Invalid("'dice' is a dice expression such as '2d6+3'")
        dist = distribution(request["dice"])
        bars = [(str(o), float(p)) for o, p in dist.pmf().items()]
        return {
            "type": "dice",
            "label": label,
            "odds": dist.to_json(),
            "chart_svg": svg_bar_chart(bars, title=dist.expression),
        }
    name, check = parse_check(system, request["check"])
    check, extra = _penalised(request, check, penalise)
    odds = call_system(
        system,
        f"give odds for the {name} check",
        system.odds,
        check,
        system.house_rules_model.model_validate(house_rules),
    )
    bars = [(k, float(v)) for k, v in odds.probabilities.items()]
    chart = svg_bar_chart(bars, title=odds.check, highlight=set(odds.success_outcomes))
    return {
        "type": "check",
        "label": label,
        "check": {"type": name, **check.model_dump(mode="json")},
        "odds": odds.to_json(),
        "chart_svg": chart,
        **extra,
    }


def inline_odds(text: str) -> list[dict[str, Any]]:
    """The exact odds of each inline roll in a draft's text (nothing rolled); bad notation raises at its roll."""
    from .text import find_inline_rolls, normalize

    out = []
    for r in find_inline_rolls(normalize(text)):
        try:
            dist = distribution(r.dice)
        except StorymasterError as exc:
            raise Invalid(f"inline roll {r.n} ({r.dice!r}, line {r.line}): {exc.message}", hint=exc.hint) from None
        bars = [(str(o), float(p)) for o, p in dist.pmf().items()]
        out.append(
            {
                "n": r.n,
                "line": r.line,
                "source": r.source,
                "dice": r.dice,
                "label": r.label,
                "visibility": r.visibility,
                "odds": dist.to_json(),
                "chart_svg": svg_bar_chart(bars, title=dist.expression),
            }
        )
    return out
