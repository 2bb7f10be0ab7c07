"""A character's condition and resources between rolls: what a table keeps beside the sheet.

The sheet says who a character is; the *condition* says how they are now, in the
system's own terms (BLYSS Dodges / Flesh Wounds / Health and deprivation, Philsys HP /
MP / TP and bleeding, B.U.M. wounds and readiness, Kalyr's damage tracks and Fudge
points, Loose and Fuzzy's wounds, Luck and Unluck). A system that has one sets
``condition`` to a :class:`ConditionRules` (build it on :class:`ConditionBase`):

- ``model``: the pydantic model of the condition (JSON on the table's log);
- ``initial(character, hr)``: the condition of a character fresh from the builder;
- ``refit(character, condition, hr)``: the same condition after the sheet changed (new maxima);
- ``summary(character, condition, hr)``: the book's word for it ("Light Wounds", "Hurt");
- ``sections(character, condition, hr)``: the sheet's condition and resources sections;
- ``penalties(character, condition, hr)``: what the condition takes off the character's checks;
- ``adjust_check(character, condition, check, hr)``: a check with those penalties applied;
- ``set_values(character, condition, values, hr)``: the GM's adjustment of any value;
- ``into_fight(state, fighter, condition, hr)`` / ``out_of_fight(state, fighter, character, condition, hr)``:
  a fight starts from the characters' condition and hands it back after each round;
- ``actions``: the between-scenes requests it knows ("rest", "heal", "time", "end_scene" ...),
  each a pydantic model; ``act(character, condition, request, rng, hr)`` applies one;
- ``scene_end`` (optional): the request the table applies to a scene's cast when the scene closes.

Everything is pure: dice only from the ``rng`` passed in (None where a rule needs none; a
rule that needs dice and gets None raises :class:`~storymaster.errors.RulesInputError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel, ValidationError

from ..dice import DiceRng
from ..errors import RulesInputError
from .files import validation_problems
from .models import Check
from .protocol import Event
from .sheet import SheetSection, section, value

__all__ = ["ConditionBase", "ConditionRules", "Penalty", "changes", "condition_of", "needs_dice"]


@dataclass(frozen=True, slots=True)
class Penalty:
    """One thing the condition does to a check: ``label`` the book's name ("Light Wounds"),
    ``effect`` what it does in the system's words ("-1 rank to every pool"), ``amount`` the
    headline number (negative for a penalty; 0 where it is not one number)."""

    label: str
    effect: str
    amount: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "effect": self.effect, "amount": self.amount}

    def __str__(self) -> str:
        return f"{self.label}: {self.effect}"


@runtime_checkable
class ConditionRules(Protocol):
    """How a system keeps a character's condition and resources (see the module's docstring)."""

    model: type[BaseModel]
    actions: Mapping[str, type[BaseModel]]

    def initial(self, character: Any, hr: Any) -> BaseModel: ...

    def refit(self, character: Any, condition: BaseModel, hr: Any) -> BaseModel: ...

    def summary(self, character: Any, condition: BaseModel, hr: Any) -> str: ...

    def sections(self, character: Any, condition: BaseModel, hr: Any) -> list[SheetSection]: ...

    def penalties(self, character: Any, condition: BaseModel, hr: Any) -> list[Penalty]: ...

    def adjust_check(self, character: Any, condition: BaseModel, check: Check, hr: Any) -> Check: ...

    def set_values(self, character: Any, condition: BaseModel, values: Mapping[str, Any], hr: Any) -> BaseModel: ...

    def into_fight(self, state: BaseModel, fighter: str, condition: BaseModel, hr: Any) -> BaseModel: ...

    def out_of_fight(
        self, state: BaseModel, fighter: str, character: Any, condition: BaseModel, hr: Any
    ) -> BaseModel: ...

    def act(
        self, character: Any, condition: BaseModel, request: BaseModel, rng: DiceRng | None, hr: Any
    ) -> tuple[BaseModel, list[Event]]: ...


def needs_dice(rng: DiceRng | None, what: str) -> DiceRng:
    """The rng, or a clear refusal where a rule rolls dice and none were given (a campaign, not a scene)."""
    if rng is None:
        raise RulesInputError(
            f"{what} rolls dice, and dice are rolled in a scene",
            hint="send it to the scene: POST /api/scenes/{id}/characters/{character}/actions",
        )
    return rng


def _merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in top.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


class ConditionBase:
    """Defaults for a :class:`ConditionRules`: a system overrides what its book says."""

    model: ClassVar[type[BaseModel]]
    actions: ClassVar[Mapping[str, type[BaseModel]]] = {}
    #: actions a character's owner may ask for (the rest are the GM's: rest, healing, time)
    player_actions: ClassVar[frozenset[str]] = frozenset()
    #: actions the book leaves to the GM's judgement: the table asks the GM for a reason
    reason_required: ClassVar[frozenset[str]] = frozenset()
    #: the system's advancement requests (a type or an annotated union for a pydantic TypeAdapter)
    advancement: ClassVar[Any] = None
    #: the advancement requests only the GM makes (experience awards)
    gm_advancement: ClassVar[tuple[type, ...]] = ()
    #: the request the table applies to each of a scene's cast when the scene closes (the book's end-of-scene
    #: rule, e.g. Kalyr's Scratches clearing), or None where the book has none
    scene_end: ClassVar[Mapping[str, Any] | None] = None
    #: request fields only the GM may set: the GM's approval or veto, waiving the experience needed
    gm_fields: ClassVar[frozenset[str]] = frozenset({"gm_approved", "vetoed", "ignore_xp"})

    def advance_request(self, data: Any) -> BaseModel:
        """An advancement request from JSON, as the system's own model (RulesInputError naming the field)."""
        from pydantic import TypeAdapter

        if self.advancement is None:
            raise RulesInputError("this system has no advancement requests here")
        try:
            request: BaseModel = TypeAdapter(self.advancement).validate_python(data)
            return request
        except ValidationError as exc:
            problems = validation_problems(exc, prefix="request")
            raise RulesInputError(
                "the advancement request: " + "; ".join(str(p) for p in problems), problems=problems, where="request"
            ) from None

    def merge(self, character: Any, condition: BaseModel) -> Any:
        """The character with its condition written in, for rules that work on the sheet (default: as is)."""
        return character

    def split(self, sheet: Any, merged: Any, condition: BaseModel, hr: Any) -> tuple[Any, BaseModel]:
        """The reverse of :meth:`merge` after a rule ran on ``merged``: (the new sheet, keeping ``sheet``'s own
        condition fields, and the new condition). By default the sheet is ``merged`` and the condition as it was."""
        return merged, condition

    def initial(self, character: Any, hr: Any) -> BaseModel:
        return self.model()

    def refit(self, character: Any, condition: BaseModel, hr: Any) -> BaseModel:
        return condition

    def coerce(self, data: Any, *, where: str = "condition") -> BaseModel:
        """The condition model from JSON (a clear :class:`RulesInputError` naming the field if wrong)."""
        if isinstance(data, self.model):
            return data
        try:
            return self.model.model_validate(data)
        except ValidationError as exc:
            problems = validation_problems(exc, prefix=where)
            raise RulesInputError(
                f"{where}: " + "; ".join(str(p) for p in problems), where=where, problems=problems
            ) from None

    def summary(self, character: Any, condition: BaseModel, hr: Any) -> str:
        return ""

    def sections(self, character: Any, condition: BaseModel, hr: Any) -> list[SheetSection]:
        vals = [
            value(name.replace("_", " ").capitalize(), v, key=name)
            for name, v in condition.model_dump(mode="json").items()
            if isinstance(v, (str, int, float, bool)) or v is None
        ]
        return [section("condition", "Condition", "condition", vals)]

    def penalties(self, character: Any, condition: BaseModel, hr: Any) -> list[Penalty]:
        return []

    def adjust_check(self, character: Any, condition: BaseModel, check: Check, hr: Any) -> Check:
        return check

    def set_values(self, character: Any, condition: BaseModel, values: Mapping[str, Any], hr: Any) -> BaseModel:
        """The GM's adjustment: ``values`` over the condition (nested mappings merge key by key), checked."""
        if not isinstance(values, Mapping) or not values:
            raise RulesInputError("an adjustment names the values to set: {field: new value}", where="values")
        unknown = sorted(set(values) - set(type(condition).model_fields))
        if unknown:
            raise RulesInputError(
                f"the condition has no {', '.join(map(repr, unknown))}",
                where=f"values.{unknown[0]}",
                hint="fields: " + ", ".join(type(condition).model_fields),
            )
        data = _merge(condition.model_dump(mode="json"), values)
        return self.coerce(data, where="values")

    def into_fight(self, state: BaseModel, fighter: str, condition: BaseModel, hr: Any) -> BaseModel:
        return state

    def out_of_fight(self, state: BaseModel, fighter: str, character: Any, condition: BaseModel, hr: Any) -> BaseModel:
        return condition

    def request(self, data: Any) -> BaseModel:
        """A between-scenes request from JSON: ``{"action": <one of actions>, ...}``."""
        if not isinstance(data, Mapping):
            raise RulesInputError("a request is an object with an 'action'", where="action")
        name = data.get("action")
        model = self.actions.get(str(name))
        if model is None:
            raise RulesInputError(
                f"no action {name!r} here", where="action", hint="actions: " + (", ".join(self.actions) or "none")
            )
        fields = {k: v for k, v in data.items() if k != "action"}
        if "action" in model.model_fields:
            fields["action"] = name
        try:
            return model.model_validate(fields)
        except ValidationError as exc:
            problems = validation_problems(exc)
            raise RulesInputError(
                f"the {name} request: " + "; ".join(str(p) for p in problems), problems=problems
            ) from None

    def act(
        self, character: Any, condition: BaseModel, request: BaseModel, rng: DiceRng | None, hr: Any
    ) -> tuple[BaseModel, list[Event]]:
        raise RulesInputError(f"no between-scenes rule for {type(request).__name__}")

    def act_full(
        self, character: Any, condition: BaseModel, request: BaseModel, rng: DiceRng | None, hr: Any
    ) -> tuple[Any, BaseModel, list[Event]]:
        """:meth:`act` for rules that also change the sheet (a spent Fudge point earns experience):
        (the character, the condition, the events). By default the sheet stays as it is."""
        new, events = self.act(character, condition, request, rng, hr)
        return character, new, events


def condition_of(system: Any) -> ConditionRules | None:
    """The system's condition rules, or None for a system without them."""
    rules = getattr(system, "condition", None)
    return rules if isinstance(rules, ConditionRules) else None


def changes(before: Mapping[str, Any], after: Mapping[str, Any], prefix: str = "") -> dict[str, list[Any]]:
    """What changed between two conditions as JSON, flattened: ``{"vitals.health": [12, 9]}``."""
    out: dict[str, list[Any]] = {}
    for k in list(before) + [k for k in after if k not in before]:
        a, b = before.get(k), after.get(k)
        if a == b:
            continue
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out.update(changes(a, b, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = [a, b]
    return out
