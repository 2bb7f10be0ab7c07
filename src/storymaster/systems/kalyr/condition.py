"""A Kalyr character's condition at the table (Kalyr RPG ch. 3: Damage; Effects of Damage; Getting rid of
damage; Fudge Points).

The three damage tracks (physical, mental, social), the Fudge points in hand and the Keys owed
for being Destroyed. The wound modifier of an ability's track (Hurt -1, Very Hurt -2, Defeated on
another track -1 more; Defeated on its own track: it cannot be used) is applied to every check the
character makes at the table. The rules are the system's own (``advance``'s requests), run on the
sheet with the condition written in: ``wound``, ``heal`` (a healing skill's result), ``rest``
(weeks), ``end_scene`` (Scratches clear), ``spend_fudge`` and ``gain_fudge`` (a Key in play),
``end_session`` (unspent Fudge points for experience).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from ...dice import DiceRng
from ...errors import AdvancementError, CheckError
from ...rules.condition import ConditionBase, Penalty
from ...rules.models import Check, Model
from ...rules.protocol import Event
from ...rules.sheet import SheetSection, section, value
from .abilities import wound_modifier
from .advancement import AddKey, Buy, EndScene, EndSession, GainFudge, Heal, Rest, SpendFudge, TakeWound, advance
from .character import Character, DamageTracks, find_ability
from .damage import contest_damage, take_damage
from .options import KalyrHouseRules
from .wounds import TRACKS, TrackName, severity_name

__all__ = ["CONDITION", "KalyrCondition", "KalyrConditionRules"]

_FIELDS = ("damage", "fudge_points", "keys_due")


class ContestDamage(BaseModel):
    """Damage from a contest's figures (Damage): the margin against the character, the opponent's weapon and
    gifts, less the character's own armour and gifts, plus both approaches; 1 is a Scratch, 2 Hurt ..."""

    action: Literal["damage"] = "damage"
    track: TrackName = "physical"
    margin: int = Field(0, ge=-20, le=20, description="the margin of success against the character")
    weapon: int = Field(0, ge=0, le=20, description="the opponent's weapon damage bonus")
    gift: int = Field(0, ge=0, le=20, description="the opponent's damage gifts")
    armour: int = Field(0, ge=0, le=20, description="the character's armour bonus")
    reduction: int = Field(0, ge=0, le=20, description="the character's gifts that subtract damage")
    approach: int = Field(0, ge=-4, le=4, description="both parties' approaches added (aggressive +, cautious -)")
    fudge_reduce: int = Field(0, ge=0, le=5, description="Fudge points spent to reduce the wound, a level each")


class KalyrCondition(Model):
    damage: DamageTracks = DamageTracks()
    fudge_points: int = Field(1, ge=0)
    keys_due: int = Field(0, ge=0)


def _track_of(character: Character, check: Check) -> str | None:
    actor = getattr(check, "actor", None)
    if actor is None:
        side = getattr(check, "side", None)
        actor = side[0] if side else None
    name = str(getattr(actor, "name", "") or "")
    ability = name.split(": ", 1)[1] if ": " in name else name
    found = find_ability(character, ability) if ability else None
    return found.track if found is not None else None


class KalyrConditionRules(ConditionBase):
    model = KalyrCondition
    actions: ClassVar[Mapping[str, type[BaseModel]]] = {
        "damage": ContestDamage,
        "wound": TakeWound,
        "heal": Heal,
        "rest": Rest,
        "end_scene": EndScene,
        "spend_fudge": SpendFudge,
        "gain_fudge": GainFudge,
        "end_session": EndSession,
    }
    player_actions = frozenset({"spend_fudge"})
    #: "Scratches go away at the end of a scene" (Getting rid of damage): closing a scene clears them
    scene_end: ClassVar[Mapping[str, Any]] = MappingProxyType({"action": "end_scene"})
    advancement = Buy | AddKey
    gm_advancement = ()

    def initial(self, character: Character, hr: Any) -> KalyrCondition:
        return KalyrCondition.model_validate({k: getattr(character, k) for k in _FIELDS})

    def merge(self, character: Character, condition: BaseModel) -> Character:
        cond = KalyrCondition.model_validate(condition)
        return character.model_copy(update={k: getattr(cond, k) for k in _FIELDS})

    def split(self, sheet: Character, merged: Character, condition: BaseModel, hr: Any) -> tuple[Character, BaseModel]:
        return merged.model_copy(update={k: getattr(sheet, k) for k in _FIELDS}), self.initial(merged, hr)

    def summary(self, character: Character, condition: BaseModel, hr: Any) -> str:
        cond = KalyrCondition.model_validate(condition)
        hurt = [f"{severity_name(cond.damage.track(t).status)} ({t})" for t in TRACKS if cond.damage.track(t).status]
        return ", ".join(hurt) if hurt else "unhurt"

    def sections(self, character: Character, condition: BaseModel, hr: Any) -> list[SheetSection]:
        cond = KalyrCondition.model_validate(condition)
        rows = []
        for t in TRACKS:
            tr = cond.damage.track(t)
            rows.append(
                (
                    t,
                    severity_name(tr.status) if tr.status else "unhurt",
                    ", ".join(severity_name(w.box) for w in tr.wounds),
                )
            )
        return [
            section(
                "resources",
                "Fudge points",
                "resources",
                [
                    value("Fudge points", cond.fudge_points, key="fudge_points"),
                    value("Keys owed", cond.keys_due, key="keys_due"),
                ],
            ),
            section("condition", "Damage tracks", "condition", columns=("Track", "Level", "Wounds"), rows=rows),
        ]

    def penalties(self, character: Character, condition: BaseModel, hr: KalyrHouseRules) -> list[Penalty]:
        merged = self.merge(character, condition)
        out = []
        for t in TRACKS:
            try:
                mod, why = wound_modifier(merged, t, hr)  # type: ignore[arg-type]
            except CheckError:
                out.append(Penalty(f"Defeated ({t})", f"{t} abilities cannot be used at all", 0))
                continue
            if mod:
                out.append(Penalty(f"{t} track", f"{mod:+d} to {t} abilities ({why})", mod))
        return out

    def adjust_check(self, character: Character, condition: BaseModel, check: Check, hr: KalyrHouseRules) -> Check:
        """The wound modifier of the rolled ability's track (named in the check as the table's entries name it),
        less any the sheet itself already carried (ruling K-L1)."""
        track = _track_of(character, check)
        if track is None:
            return check
        merged = self.merge(character, condition)
        try:
            now, _ = wound_modifier(merged, track, hr)  # type: ignore[arg-type]
        except CheckError as exc:
            raise CheckError(exc.message, hint=exc.hint) from None
        try:
            had, _ = wound_modifier(character, track, hr)  # type: ignore[arg-type]
        except CheckError:
            had = 0
        delta = now - had
        if not delta:
            return check
        field = "actor" if getattr(check, "actor", None) is not None else "side"
        if field == "actor":
            actor = check.actor  # type: ignore[attr-defined]
            return check.model_copy(update={"actor": actor.model_copy(update={"modifier": actor.modifier + delta})})
        side = list(check.side)  # type: ignore[attr-defined]
        side[0] = side[0].model_copy(update={"modifier": side[0].modifier + delta})
        return check.model_copy(update={"side": tuple(side)})

    def into_fight(self, state: BaseModel, fighter: str, condition: BaseModel, hr: Any) -> BaseModel:
        sides = []
        for side in state.sides:  # type: ignore[attr-defined]
            new = []
            for f in side:
                if f.name == fighter:
                    f = f.model_copy(update={"character": self.merge(f.character, condition)})
                new.append(f)
            sides.append(tuple(new))
        return state.model_copy(update={"sides": tuple(sides)})

    def out_of_fight(
        self, state: BaseModel, fighter: str, character: Character, condition: BaseModel, hr: Any
    ) -> BaseModel:
        for side in state.sides:  # type: ignore[attr-defined]
            for f in side:
                if f.name == fighter:
                    return self.initial(f.character, hr)
        return condition

    def act_full(
        self, character: Character, condition: BaseModel, request: BaseModel, rng: DiceRng | None, hr: KalyrHouseRules
    ) -> tuple[Character, BaseModel, list[Event]]:
        merged = self.merge(character, condition)
        if isinstance(request, ContestDamage):
            points = contest_damage(
                request.margin,
                weapon=request.weapon,
                gift=request.gift,
                armour=request.armour,
                reduction=request.reduction,
                approach=request.approach,
            )
            try:
                new, rep = take_damage(
                    merged, request.track, points, fudge_reduce=request.fudge_reduce, advancement=hr.advancement
                )
            except CheckError as exc:
                raise AdvancementError(exc.message, hint=exc.hint) from None
            sheet, cond = self.split(character, new, condition, hr)
            return sheet, cond, [Event("wound", f"{points} point(s) of damage: " + rep.text(character.name))]
        new, events = advance(merged, request, hr)  # type: ignore[arg-type]
        sheet, cond = self.split(character, new, condition, hr)
        return sheet, cond, list(events)

    def act(
        self, character: Character, condition: BaseModel, request: BaseModel, rng: DiceRng | None, hr: Any
    ) -> tuple[BaseModel, list[Event]]:
        _, cond, events = self.act_full(character, condition, request, rng, hr)
        return cond, events


CONDITION = KalyrConditionRules()
