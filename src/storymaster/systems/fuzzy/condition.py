"""A Loose and Fuzzy character's condition at the table (Combat Rules: wound levels; Karma: Luck and Unluck).

The wounds taken (moderate, serious, mortal; lethal or not), whether the character is up,
incapacitated, unconscious or dead, dying from a mortal wound, knocked out. The worst wound's die
penalty ("Injury penalties are not cumulative") comes off every roll the character makes at the
table, down to one die; Luck and Unluck (the sheet's) are shown beside them.

Between scenes: ``wound`` (harm from outside a fight: the level, and the Tenacity test of 7 with
the wound penalty, rolled in a scene or its result given by the GM), ``tend`` ("skilled medical
attention" stops a mortal wound's dying), ``recover`` (non-lethal harm: "will recover in a few
hours"), ``heal`` (the book gives no healing time for real wounds: the GM removes one, with a
reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from ...dice import DiceRng
from ...errors import RulesInputError
from ...rules.condition import ConditionBase, Penalty, needs_dice
from ...rules.models import Check, Model
from ...rules.protocol import Event
from ...rules.sheet import SheetSection, section, value
from .advancement import AdvanceRequest, Award
from .character import FuzzyCharacter, karma
from .checks import AbilityCheck, ContestCheck
from .combat import Status, Wound, wound_penalty
from .options import FuzzyHouseRules
from .rolls import effective_dice, roll_ability
from .tables import wound_levels

__all__ = ["CONDITION", "FuzzyCondition", "FuzzyConditionRules"]


class FuzzyCondition(Model):
    wounds: tuple[Wound, ...] = ()
    status: Status = "fighting"
    dying: bool = False
    knocked_out: bool = False


class TakeWound(BaseModel):
    action: Literal["wound"] = "wound"
    level: Literal["moderate", "serious", "mortal", "killed"]
    lethal: bool = True
    by: str = Field("a hazard", max_length=200)
    tenacity: bool | None = Field(
        None, description="the Tenacity test's result if the GM gives it; left empty: rolled (in a scene)"
    )


class Tend(BaseModel):
    action: Literal["tend"] = "tend"


class Recover(BaseModel):
    action: Literal["recover"] = "recover"


class Heal(BaseModel):
    action: Literal["heal"] = "heal"
    wound: int = Field(0, ge=0, description="which wound (0 = the first taken)")


def _word(c: FuzzyCondition) -> str:
    if c.status == "dead":
        return "dead"
    if c.status == "unconscious":
        base = "unconscious, dying" if c.dying else "knocked out" if c.knocked_out else "unconscious"
        return base
    worst = max((w.level for w in c.wounds), key=lambda lv: ["moderate", "serious", "mortal"].index(lv), default=None)
    base = c.status if c.status in ("incapacitated", "escaped") else (f"{worst}ly wounded" if worst else "unhurt")
    return base + (", dying" if c.dying else "")


class FuzzyConditionRules(ConditionBase):
    model = FuzzyCondition
    actions: ClassVar[Mapping[str, type[BaseModel]]] = {
        "wound": TakeWound,
        "tend": Tend,
        "recover": Recover,
        "heal": Heal,
    }
    reason_required = frozenset({"heal"})
    advancement = AdvanceRequest
    gm_advancement = (Award,)

    def initial(self, character: FuzzyCharacter, hr: Any) -> FuzzyCondition:
        return FuzzyCondition()

    def summary(self, character: FuzzyCharacter, condition: BaseModel, hr: Any) -> str:
        return _word(FuzzyCondition.model_validate(condition))

    def sections(self, character: FuzzyCharacter, condition: BaseModel, hr: FuzzyHouseRules) -> list[SheetSection]:
        c = FuzzyCondition.model_validate(condition)
        k = karma(character, hr)
        rows = [(w.level, w.by, "lethal" if w.lethal else "non-lethal") for w in c.wounds]
        return [
            section(
                "resources",
                "Luck and Unluck",
                "resources",
                [value("Luck", k.luck, key="luck"), value("Unluck", k.unluck, key="unluck")],
            ),
            section(
                "condition",
                "Condition",
                "condition",
                [
                    value("Condition", _word(c), key="condition"),
                    value("Wound penalty", -wound_penalty(c.wounds), key="wound_penalty", note="dice"),
                ],
            ),
            section("wounds", "Wounds", "list", columns=("Level", "By", "Kind"), rows=rows),
        ]

    def penalties(self, character: FuzzyCharacter, condition: BaseModel, hr: Any) -> list[Penalty]:
        c = FuzzyCondition.model_validate(condition)
        pen = wound_penalty(c.wounds)
        out = []
        if pen:
            worst = next(w.level for w in c.wounds if _pen_of(w.level) == pen)
            out.append(Penalty(f"{worst}ly wounded", f"-{pen} dice to all actions (down to one)", -pen))
        if c.status != "fighting":
            out.append(Penalty(_word(c), "out of action", 0))
        return out

    def adjust_check(self, character: FuzzyCharacter, condition: BaseModel, check: Check, hr: Any) -> Check:
        """The worst wound's dice off the character's roll, never below one die (Combat Rules)."""
        pen = wound_penalty(FuzzyCondition.model_validate(condition).wounds)
        if not pen:
            return check
        if isinstance(check, AbilityCheck):
            return check.model_copy(update={"dice": effective_dice(check.dice, pen)})
        if isinstance(check, ContestCheck):
            return check.model_copy(
                update={"first": check.first.model_copy(update={"dice": effective_dice(check.first.dice, pen)})}
            )
        return check

    def into_fight(self, state: BaseModel, fighter: str, condition: BaseModel, hr: Any) -> BaseModel:
        c = FuzzyCondition.model_validate(condition)
        fs = []
        for f in state.fighters:  # type: ignore[attr-defined]
            if f.key == fighter:
                f = f.model_copy(update=c.model_dump())
                f = f.model_copy(update={"wounds": c.wounds})
            fs.append(f)
        return state.model_copy(update={"fighters": tuple(fs)})

    def out_of_fight(
        self, state: BaseModel, fighter: str, character: FuzzyCharacter, condition: BaseModel, hr: Any
    ) -> BaseModel:
        f = next((f for f in state.fighters if f.key == fighter), None)  # type: ignore[attr-defined]
        if f is None:
            return condition
        return FuzzyCondition.model_validate(
            {
                "wounds": f.wounds,
                "status": "fighting" if f.status == "escaped" else f.status,
                "dying": f.dying,
                "knocked_out": f.knocked_out,
            }
        )

    def act(
        self,
        character: FuzzyCharacter,
        condition: BaseModel,
        request: BaseModel,
        rng: DiceRng | None,
        hr: FuzzyHouseRules,
    ) -> tuple[BaseModel, list[Event]]:
        c = FuzzyCondition.model_validate(condition)
        who = character.name
        if isinstance(request, TakeWound):
            return _wound(character, c, request, rng, hr)
        if isinstance(request, Tend):
            if not c.dying:
                raise RulesInputError(f"{who} is not dying: bandaging is only for the story")
            return c.model_copy(update={"dying": False}), [
                Event("tend", f"{who} receives skilled medical attention and will not die of the wound.")
            ]
        if isinstance(request, Recover):
            wounds = tuple(w for w in c.wounds if w.lethal)
            status = c.status
            if c.knocked_out or (
                status in ("incapacitated", "unconscious") and not c.dying and not _pen_of_worst(wounds)
            ):
                status = "fighting"
            new = c.model_copy(update={"wounds": wounds, "knocked_out": False, "status": status})
            return new, [Event("recover", f"Hours pass: {who} recovers from the non-lethal harm ({_word(new)}).")]
        if isinstance(request, Heal):
            if request.wound >= len(c.wounds):
                raise RulesInputError(f"{who} has {len(c.wounds)} wound(s): no wound {request.wound}", where="wound")
            wounds = c.wounds[: request.wound] + c.wounds[request.wound + 1 :]
            new = c.model_copy(update={"wounds": wounds})
            return new, [Event("heal", f"{who}'s {c.wounds[request.wound].level} wound heals ({_word(new)}).")]
        return super().act(character, c, request, rng, hr)


def _pen_of(level: str) -> int:
    return next(int(r["dice_penalty"]) for r in wound_levels() if r["name"] == level)


def _pen_of_worst(wounds: tuple[Wound, ...]) -> int:
    return wound_penalty(wounds)


def _wound(
    character: FuzzyCharacter, c: FuzzyCondition, req: TakeWound, rng: DiceRng | None, hr: FuzzyHouseRules
) -> tuple[FuzzyCondition, list[Event]]:
    """A wound of ``req.level`` (Combat Rules): its penalty at once, then a Tenacity test of 7 with the wound
    penalties; failed, the character falls (incapacitated, or unconscious for a mortal wound). Killed: dead
    without a test (non-lethal: knocked out)."""
    who = character.name
    if req.level == "killed":
        if not req.lethal:
            return c.model_copy(update={"status": "unconscious", "knocked_out": True}), [
                Event("wound", f"{who} is knocked out (non-lethal) and will recover in a few hours.")
            ]
        return c.model_copy(update={"status": "dead"}), [Event("wound", f"{who} is killed (no Tenacity test).")]
    wounds = (*c.wounds, Wound(level=req.level, by=req.by, round=0, lethal=req.lethal))
    pen = wound_penalty(wounds)
    dice = effective_dice(character.required.tenacity, pen)
    events = [Event("wound", f"{who} is {req.level}ly wounded by {req.by}: now -{pen} dice to all actions.")]
    if req.tenacity is None:
        r = roll_ability(dice, needs_dice(rng, "a Tenacity test"), hr, label=f"{who} Tenacity")
        ok = r.total >= hr.tenacity_target
        events.append(
            Event(
                "tenacity",
                f"{who} tests Tenacity ({dice} dice) vs {hr.tenacity_target}: {r.describe()} = {r.total}.",
                data={"total": r.total, "passed": ok},
                rolls=tuple(r.records),
            )
        )
    else:
        ok = req.tenacity
        events.append(
            Event("tenacity", f"{who}'s Tenacity test ({dice} dice): {'passed' if ok else 'failed'} (the GM's word).")
        )
    upd: dict[str, Any] = {"wounds": wounds}
    if not ok and c.status == "fighting":
        upd["status"] = next(r["on_failed_test"] for r in wound_levels() if r["name"] == req.level)
    if req.level == "mortal" and req.lethal and hr.mortal_wound_deaths:
        upd["dying"] = True
    new = c.model_copy(update=upd)
    events.append(Event("condition", f"{who}: {_word(new)}."))
    return new, events


CONDITION = FuzzyConditionRules()
