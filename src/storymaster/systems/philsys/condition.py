"""A Philsys character's condition at the table (Philsys, Derived Substats; Taking Damage, Wounds, and Dying).

HP, MP and TP left (the sheet's ``current`` where it gives them, else full), unconsciousness and
death, a heavy wound, disabled limbs, a broken shield, and the rounds until an unconscious
character wakes. Critical health status (and a heavy wound) takes its penalty off AT/PA and every
spellcasting roll the character makes at the table; bleeding (the optional rule, a house rule)
runs in fights.

Between scenes: ``damage`` (a blow from outside a fight, through the armour's AC/3), ``spend``
(an ability's cost: MP, then HP for MP short; TP never short), ``heal`` (healing spells and rest:
the book gives amounts only through its spells, so the GM says what comes back, with a reason),
``wake`` (an unconscious character healed to positive HP comes round when combat ends).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from ...dice import DiceRng
from ...errors import CombatError, RulesInputError
from ...rules.condition import ConditionBase, Penalty
from ...rules.models import Check, Model
from ...rules.protocol import Event
from ...rules.sheet import SheetSection, section, value
from . import damage as dmg
from .advancement import LevelUp, XpAward
from .character import Character, Cost, hp_max, mp_max, tp_max
from .checks import MagicAttack, MeleeAttack, MissileAttack
from .options import PhilsysHouseRules

__all__ = ["CONDITION", "PhilsysCondition", "PhilsysConditionRules"]


class PhilsysCondition(Model):
    hp: int
    mp: int = Field(ge=0)
    tp: int = Field(ge=0)
    unconscious: bool = False
    dead: bool = False
    heavy_wound: bool = False
    disabled_limbs: int = Field(0, ge=0, le=4)
    shield_broken: bool = False
    wake_in: int | None = Field(None, ge=0)
    maxima: tuple[int, int, int] | None = Field(None, description="HP/MP/TP maxima when last fitted to the sheet")


class Damage(BaseModel):
    action: Literal["damage"] = "damage"
    amount: int = Field(ge=0, le=10_000)
    armour: bool = Field(True, description="the armour stops AC/3 of physical damage")
    magical: bool = False
    source: str = Field("a hazard", max_length=200)


class Spend(BaseModel):
    action: Literal["spend"] = "spend"
    mp: int = Field(0, ge=0, le=10_000)
    tp: int = Field(0, ge=0, le=10_000)
    hp: int = Field(0, ge=0, le=10_000)
    what: str = Field("", max_length=200, description="the ability or spell paid for")


class Heal(BaseModel):
    action: Literal["heal"] = "heal"
    hp: int = Field(0, ge=0, le=10_000)
    mp: int = Field(0, ge=0, le=10_000)
    tp: int = Field(0, ge=0, le=10_000)
    wakes: bool = Field(False, description="the healing wakes the character at once (some spells do)")


class Wake(BaseModel):
    action: Literal["wake"] = "wake"


def _maxima(c: Character) -> tuple[int, int, int]:
    return hp_max(c), mp_max(c), tp_max(c)


def _states(c: PhilsysCondition, hp: int, hr: PhilsysHouseRules) -> dict[str, Any]:
    """HP now decides unconsciousness and death (Taking Damage: 0 or less, and the death threshold)."""
    upd: dict[str, Any] = {"hp": hp}
    if dmg.is_dead(hp, hr):
        upd.update(dead=True, unconscious=True)
    elif dmg.is_unconscious(hp):
        upd.update(unconscious=True)
    return upd


class PhilsysConditionRules(ConditionBase):
    model = PhilsysCondition
    actions: ClassVar[Mapping[str, type[BaseModel]]] = {"damage": Damage, "spend": Spend, "heal": Heal, "wake": Wake}
    player_actions = frozenset({"spend"})
    reason_required = frozenset({"heal"})
    advancement = XpAward | LevelUp
    gm_advancement = (XpAward,)

    def initial(self, character: Character, hr: PhilsysHouseRules) -> PhilsysCondition:
        top_hp, top_mp, top_tp = _maxima(character)
        cur = character.current
        hp = top_hp if cur.hp is None else cur.hp
        cond = PhilsysCondition(
            hp=hp,
            mp=top_mp if cur.mp is None else cur.mp,
            tp=top_tp if cur.tp is None else cur.tp,
            maxima=(top_hp, top_mp, top_tp),
        )
        return cond.model_copy(update=_states(cond, hp, hr))

    def refit(self, character: Character, condition: BaseModel, hr: Any) -> PhilsysCondition:
        """A level's new HP, MP and TP (Character Advancement) are there to use: the current values rise by
        as much as the maxima did."""
        c = PhilsysCondition.model_validate(condition)
        now = _maxima(character)
        if c.maxima is None or c.maxima == now:
            return c if c.maxima is not None else c.model_copy(update={"maxima": now})
        hp, mp, tp = (cur + new - old for cur, new, old in zip((c.hp, c.mp, c.tp), now, c.maxima, strict=True))
        return c.model_copy(update={"hp": hp, "mp": max(0, mp), "tp": max(0, tp), "maxima": now})

    def summary(self, character: Character, condition: BaseModel, hr: PhilsysHouseRules) -> str:
        c = PhilsysCondition.model_validate(condition)
        if c.dead:
            return "dead"
        if c.unconscious:
            return "unconscious" + (" (bleeding)" if hr.bleeding and c.hp < 0 else "")
        if 0 < c.hp <= hr.critical_health_threshold:
            return f"critical health ({c.hp} HP)"
        return f"{c.hp} HP" + (", heavy wound" if c.heavy_wound else "")

    def sections(self, character: Character, condition: BaseModel, hr: PhilsysHouseRules) -> list[SheetSection]:
        c = PhilsysCondition.model_validate(condition)
        top_hp, top_mp, top_tp = _maxima(character)
        return [
            section(
                "resources",
                "HP, MP, TP",
                "resources",
                [
                    value("HP", c.hp, key="hp", maximum=top_hp),
                    value("MP", c.mp, key="mp", maximum=top_mp),
                    value("TP", c.tp, key="tp", maximum=top_tp),
                ],
            ),
            section(
                "condition",
                "Condition",
                "condition",
                [
                    value("Condition", self.summary(character, c, hr), key="condition"),
                    value("Critical health", 0 < c.hp <= hr.critical_health_threshold, key="critical_health"),
                    value("Bleeding", bool(hr.bleeding and c.hp < 0 and not c.dead), key="bleeding"),
                    value("Heavy wound", c.heavy_wound, key="heavy_wound"),
                    value("Disabled limbs", c.disabled_limbs, key="disabled_limbs"),
                    value("Shield broken", c.shield_broken, key="shield_broken"),
                ],
            ),
        ]

    def penalties(self, character: Character, condition: BaseModel, hr: PhilsysHouseRules) -> list[Penalty]:
        c = PhilsysCondition.model_validate(condition)
        out = []
        if 0 < c.hp <= hr.critical_health_threshold and hr.critical_health_penalty:
            p = hr.critical_health_penalty
            out.append(Penalty("Critical health", f"-{p}/-{p} to AT/PA and -{p} to spellcasting", -p))
        if c.heavy_wound and hr.heavy_wound_penalty:
            p = hr.heavy_wound_penalty
            out.append(Penalty("Heavy wound", f"-{p}/-{p} to AT/PA and -{p} to spellcasting", -p))
        if c.unconscious or c.dead:
            out.append(Penalty("dead" if c.dead else "unconscious", "cannot act", 0))
        return out

    def adjust_check(self, character: Character, condition: BaseModel, check: Check, hr: PhilsysHouseRules) -> Check:
        """Critical health and a heavy wound: off the attacker's AT (melee) and the spell's roll (magic); the
        book names AT/PA and spellcasting only, so other checks are as they were (ruling P-L1)."""
        c = PhilsysCondition.model_validate(condition)
        pen = dmg.wound_penalty(c.hp, hr, c.heavy_wound)
        if isinstance(check, MissileAttack):
            shot = dmg.missile_wound_penalty(c.hp, hr, c.heavy_wound)
            return check.model_copy(update={"attack": check.attack - shot}) if shot else check
        if not pen:
            return check
        if isinstance(check, MeleeAttack):
            return check.model_copy(update={"at": check.at - pen})
        if isinstance(check, MagicAttack):
            return check.model_copy(update={"attack": check.attack - pen})
        return check

    def into_fight(self, state: BaseModel, fighter: str, condition: BaseModel, hr: Any) -> BaseModel:
        c = PhilsysCondition.model_validate(condition)
        fs = []
        for f in state.fighters:  # type: ignore[attr-defined]
            if f.name == fighter:
                f = f.model_copy(update=c.model_dump(exclude={"maxima"}))
            fs.append(f)
        return state.model_copy(update={"fighters": tuple(fs)})

    def out_of_fight(
        self, state: BaseModel, fighter: str, character: Character, condition: BaseModel, hr: Any
    ) -> BaseModel:
        f = next((f for f in state.fighters if f.name == fighter), None)  # type: ignore[attr-defined]
        if f is None:
            return condition
        fields = {k: getattr(f, k) for k in PhilsysCondition.model_fields if k != "maxima"}
        return PhilsysCondition.model_validate({**fields, "maxima": PhilsysCondition.model_validate(condition).maxima})

    def act(
        self, character: Character, condition: BaseModel, request: BaseModel, rng: DiceRng | None, hr: PhilsysHouseRules
    ) -> tuple[BaseModel, list[Event]]:
        c = PhilsysCondition.model_validate(condition)
        who = character.name
        top_hp, top_mp, top_tp = _maxima(character)
        if isinstance(request, Damage):
            armour = character.equipment.armor
            stopped = dmg.armor_stops(armour, magical=request.magical) if request.armour else 0
            taken = dmg.reduce_damage(request.amount, stopped)
            upd = _states(c, c.hp - taken, hr)
            if hr.heavy_wound_penalty and dmg.is_heavy_wound(taken, character):
                upd["heavy_wound"] = True
            new = c.model_copy(update=upd)
            text = f"{who} takes {request.amount} damage from {request.source}"
            text += f", reduced by {stopped} to {taken}" if stopped else ""
            return new, [Event("damage", f"{text}: {self.summary(character, new, hr)}.", data={"taken": taken})]
        if isinstance(request, Spend):
            if c.dead or c.unconscious:
                raise RulesInputError(f"{who} is {'dead' if c.dead else 'unconscious'} and spends nothing")
            try:
                hp, mp, tp = dmg.pay_cost(c.hp, c.mp, c.tp, Cost(mp=request.mp, tp=request.tp, hp=request.hp))
            except CombatError as exc:
                raise RulesInputError(exc.message, hint=exc.hint) from None
            new = c.model_copy(update={**_states(c, hp, hr), "mp": mp, "tp": tp})
            what = f" for {request.what}" if request.what else ""
            return new, [Event("spend", f"{who} spends{what}: HP {c.hp} → {hp}, MP {c.mp} → {mp}, TP {c.tp} → {tp}.")]
        if isinstance(request, Heal):
            if c.dead:
                raise RulesInputError(f"{who} is dead: only a revival brings them back (within 48 hours)")
            hp = min(top_hp, c.hp + request.hp)
            healed: dict[str, Any] = {
                "hp": hp,
                "mp": min(top_mp, c.mp + request.mp),
                "tp": min(top_tp, c.tp + request.tp),
            }
            if c.unconscious and hp > 0:
                if request.wakes:
                    healed.update(unconscious=False, wake_in=None)
                else:
                    healed["wake_in"] = dmg.wake_delay(character.stats.STA)
            if hp > hr.critical_health_threshold:
                healed["heavy_wound"] = False
            new = c.model_copy(update=healed)
            return new, [Event("heal", f"{who} is healed: {self.summary(character, new, hr)}.")]
        if isinstance(request, Wake):
            if not c.unconscious or c.dead or c.hp <= 0:
                raise RulesInputError(
                    f"{who} cannot come round: an unconscious character is first healed to positive HP"
                )
            new = c.model_copy(update={"unconscious": False, "wake_in": None})
            return new, [Event("wake", f"{who} regains consciousness.")]
        return super().act(character, c, request, rng, hr)


CONDITION = PhilsysConditionRules()
