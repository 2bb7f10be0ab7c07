"""A B.U.M. character's condition at the table (Part Five, Wounds/Injury; Appendix A, loading weapons).

The wounds marked on the card (each with its cause and, once the GM says, its healing time),
0 hit points (incapacitated, not dead), death only where the GM rules it, being stunned, and the
missile weapon's readiness and ammunition. B.U.M. gives wounds no penalty to rolls: a character
at 0 hit points is out of the fight and does nothing strenuous.

Between scenes: ``wound`` (a hazard: "the GM could just give him a wound as normal"), ``fall``
(one wound per full 10 feet, Falling), ``tend`` (the GM sets how long a wound takes to heal, with
a reason: the book leaves it to him), ``rest`` (days pass: wounds heal independently, least
severe first), ``reload`` (the missile weapon made ready, ammunition restocked).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from ...dice import DiceRng
from ...errors import RulesInputError
from ...rules.condition import ConditionBase, Penalty
from ...rules.models import Model
from ...rules.protocol import Event
from ...rules.sheet import SheetSection, section, value
from .advancement import AdvanceRequest, AwardPoints
from .character import BumCharacter, Readiness, Wound, hit_points
from .hazards import falling_wounds
from .options import BumHouseRules
from .wounds import heal

__all__ = ["CONDITION", "BumCondition", "BumConditionRules"]


class BumCondition(Model):
    wounds: tuple[Wound, ...] = ()
    dead: bool = Field(False, description="0 hit points does not kill: only the GM's ruling does")
    stunned: int = Field(0, ge=0, description="rounds left stunned")
    readiness: Readiness = "ready"
    ammo: int | None = Field(None, ge=0)
    reload_progress: int = Field(0, ge=0)


class TakeWound(BaseModel):
    action: Literal["wound"] = "wound"
    wounds: int = Field(1, ge=1, le=100)
    cause: str = Field("", max_length=120)
    heal_days: int | None = Field(None, ge=0, le=10_000)


class Fall(BaseModel):
    action: Literal["fall"] = "fall"
    feet: int = Field(ge=0, le=100_000)


class Tend(BaseModel):
    """The GM says how long a wound takes to heal (Wounds/Injury: 'The GM must decide')."""

    action: Literal["tend"] = "tend"
    wound: int | None = Field(
        None, ge=0, description="which wound (0 = the first marked); left empty: every untended one"
    )
    heal_days: int = Field(ge=0, le=10_000)


class Rest(BaseModel):
    action: Literal["rest"] = "rest"
    days: int = Field(ge=1, le=10_000)


class Reload(BaseModel):
    action: Literal["reload"] = "reload"
    ammo: int | None = Field(None, ge=0, le=10_000, description="missiles (or loaded guns) after restocking")


def hp_left(c: BumCharacter, cond: BumCondition) -> int:
    """Hit points: STR less the wounds marked, never below 0 (Wounds/Injury)."""
    return max(0, hit_points(c) - len(cond.wounds))


class BumConditionRules(ConditionBase):
    model = BumCondition
    actions: ClassVar[Mapping[str, type[BaseModel]]] = {
        "wound": TakeWound,
        "fall": Fall,
        "tend": Tend,
        "rest": Rest,
        "reload": Reload,
    }
    player_actions = frozenset({"reload"})
    reason_required = frozenset({"tend"})
    advancement = AdvanceRequest
    gm_advancement = (AwardPoints,)

    def initial(self, character: BumCharacter, hr: Any) -> BumCondition:
        ranged = character.weapons.ranged
        return BumCondition(
            wounds=character.wounds,
            readiness=ranged.readiness if ranged else "ready",
            ammo=ranged.ammo if ranged else None,
        )

    def merge(self, character: BumCharacter, condition: BaseModel) -> BumCharacter:
        cond = BumCondition.model_validate(condition)
        upd: dict[str, Any] = {"wounds": cond.wounds}
        ranged = character.weapons.ranged
        if ranged is not None:
            r = ranged.model_copy(update={"readiness": cond.readiness, "ammo": cond.ammo})
            upd["weapons"] = character.weapons.model_copy(update={"ranged": r})
        return character.model_copy(update=upd)

    def split(
        self, sheet: BumCharacter, character: BumCharacter, condition: BaseModel, hr: Any
    ) -> tuple[BumCharacter, BaseModel]:
        cond = BumCondition.model_validate(condition)
        ranged = character.weapons.ranged
        new = cond.model_copy(
            update={
                "wounds": character.wounds,
                "readiness": ranged.readiness if ranged else cond.readiness,
                "ammo": ranged.ammo if ranged else cond.ammo,
            }
        )
        return character.model_copy(update={"wounds": sheet.wounds, "weapons": sheet.weapons}), new

    def summary(self, character: BumCharacter, condition: BaseModel, hr: Any) -> str:
        cond = BumCondition.model_validate(condition)
        hp = hp_left(character, cond)
        if cond.dead:
            return "dead"
        word = "incapacitated (0 hit points)" if hp == 0 else f"{hp} of {hit_points(character)} hit points"
        return word + (f", stunned {cond.stunned} rounds" if cond.stunned else "")

    def sections(self, character: BumCharacter, condition: BaseModel, hr: Any) -> list[SheetSection]:
        cond = BumCondition.model_validate(condition)
        res = [value("Hit points", hp_left(character, cond), key="hp", maximum=hit_points(character))]
        if character.weapons.ranged is not None:
            res.append(value("Missile weapon", cond.readiness, key="readiness"))
            if cond.ammo is not None:
                res.append(value("Ammunition", cond.ammo, key="ammo"))
        rows = [(w.cause or "wound", "untended" if w.heal_days is None else f"{w.heal_days} days") for w in cond.wounds]
        return [
            section("resources", "Hit points and weapons", "resources", res),
            section("condition", "Condition", "condition", [value("Condition", self.summary(character, cond, hr))]),
            section("wounds", "Wounds", "list", columns=("Wound", "Heals in"), rows=rows),
        ]

    def penalties(self, character: BumCharacter, condition: BaseModel, hr: Any) -> list[Penalty]:
        """None to rolls (B.U.M. gives wounds no penalty); at 0 hit points the character is out of the fight."""
        cond = BumCondition.model_validate(condition)
        if cond.dead:
            return [Penalty("dead", "does nothing", 0)]
        if hp_left(character, cond) == 0:
            return [Penalty("0 hit points", "too wounded to fight, run, cast or do anything strenuous", 0)]
        if cond.stunned:
            return [Penalty("stunned", f"{cond.stunned} rounds", 0)]
        return []

    def into_fight(self, state: BaseModel, fighter: str, condition: BaseModel, hr: Any) -> BaseModel:
        cond = BumCondition.model_validate(condition)
        fs = []
        for f in state.fighters:  # type: ignore[attr-defined]
            if f.name == fighter:
                f = f.model_copy(
                    update={
                        "hp": hp_left(f.character, cond),
                        "readiness": cond.readiness,
                        "ammo": cond.ammo,
                        "reload_progress": cond.reload_progress,
                        "stunned": cond.stunned,
                        "wielding": f.wielding if cond.readiness == "ready" else None,
                    }
                )
            fs.append(f)
        return state.model_copy(update={"fighters": tuple(fs)})

    def out_of_fight(
        self, state: BaseModel, fighter: str, character: BumCharacter, condition: BaseModel, hr: Any
    ) -> BaseModel:
        cond = BumCondition.model_validate(condition)
        f = next((f for f in state.fighters if f.name == fighter), None)  # type: ignore[attr-defined]
        if f is None:
            return cond
        taken = max(0, hp_left(character, cond) - f.hp)
        wounds = cond.wounds + tuple(Wound(cause=f"fight, round {state.round}") for _ in range(taken))  # type: ignore[attr-defined]
        return cond.model_copy(
            update={
                "wounds": wounds,
                "readiness": f.readiness,
                "ammo": f.ammo,
                "reload_progress": f.reload_progress,
                "stunned": f.stunned,
            }
        )

    def act(
        self, character: BumCharacter, condition: BaseModel, request: BaseModel, rng: DiceRng | None, hr: BumHouseRules
    ) -> tuple[BaseModel, list[Event]]:
        cond = BumCondition.model_validate(condition)
        who = character.name
        if isinstance(request, (TakeWound, Fall)):
            if isinstance(request, Fall):
                n, cause = falling_wounds(request.feet, hr), f"a fall of {request.feet} feet"
                days = None
            else:
                n, cause, days = request.wounds, request.cause, request.heal_days
            new = cond.model_copy(
                update={"wounds": cond.wounds + tuple(Wound(cause=cause, heal_days=days) for _ in range(n))}
            )
            return new, [
                Event(
                    "wound",
                    f"{who} takes {n} wound{'s' if n != 1 else ''} ({cause or 'a hazard'}): "
                    f"{self.summary(character, new, hr)}.",
                    data={"wounds": n},
                )
            ]
        if isinstance(request, Tend):
            if not cond.wounds:
                raise RulesInputError(f"{who} has no wounds to tend")
            if request.wound is not None and request.wound >= len(cond.wounds):
                raise RulesInputError(f"{who} has {len(cond.wounds)} wound(s): no wound {request.wound}", where="wound")
            wounds = tuple(
                w.model_copy(update={"heal_days": request.heal_days})
                if (i == request.wound or (request.wound is None and w.heal_days is None))
                else w
                for i, w in enumerate(cond.wounds)
            )
            return cond.model_copy(update={"wounds": wounds}), [
                Event("tend", f"{who}'s wounds are tended: they heal in {request.heal_days} days.")
            ]
        if isinstance(request, Rest):
            healed = heal(self.merge(character, cond), request.days)
            new = cond.model_copy(update={"wounds": healed.wounds, "stunned": 0})
            gone = len(cond.wounds) - len(new.wounds)
            return new, [
                Event(
                    "rest",
                    f"{request.days} days pass for {who}: {gone} wound(s) heal; {self.summary(character, new, hr)}.",
                )
            ]
        if isinstance(request, Reload):
            if character.weapons.ranged is None:
                raise RulesInputError(f"{who} carries no missile weapon")
            new = cond.model_copy(
                update={
                    "readiness": "ready",
                    "reload_progress": 0,
                    "ammo": cond.ammo if request.ammo is None else request.ammo,
                }
            )
            return new, [Event("reload", f"{who} makes ready the {character.weapons.ranged.name}.")]
        return super().act(character, cond, request, rng, hr)


CONDITION = BumConditionRules()
