"""A BLYSS character's condition at the table (BLYSS 3.5, Rules for Living; Armour Rating).

Dodges, Flesh Wounds and Health (with unconsciousness, dying and death), each armour's lives,
and fatigue, hunger and thirst: the hours since sleep, food and drink and the rank penalties they
have cost. The Wound Level's penalty (Table 2-03) and the deprivation penalties are applied to
every check the character makes at the table; fights start from the Vitals and armour lives (and
take the deprivation ranks into every pool the fighter rolls, ruling B-L6) and hand them back after
each round.

Between scenes: ``time`` (hours pass awake or asleep, eating and drinking or not: Fatigue, Hunger,
Thirst), ``damage`` (a hazard: a blow through Dodges, Flesh Wounds and Health), ``heal`` (the book
gives no healing rate: the SM says what comes back, with a reason), ``repair`` (armour with a life
left can be repaired), ``dying_check`` (a turn of dying: the Stamina check).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, model_validator

from ...dice import DiceRng
from ...errors import RulesInputError
from ...rules.condition import ConditionBase, Penalty, needs_dice
from ...rules.models import Check, Model
from ...rules.protocol import Event
from ...rules.sheet import SheetSection, section, value
from .advancement import Advancement, AwardExperience
from .character import Character, max_dodges, max_flesh_wounds, max_health
from .checks import Pool
from .living import (
    Vitals,
    apply_damage,
    collapses,
    deprivation_penalty,
    deprivation_pool_ranks,
    deprivation_recovery,
    deprived_rank,
    dying_check,
    starvation_check,
    wound_level,
    wound_penalty,
)
from .options import BlyssHouseRules
from .tracker import condition as vitals_word

__all__ = ["BlyssCondition", "BlyssConditionRules", "deprivation_ranks"]


class BlyssCondition(Model):
    """How a BLYSS character is now."""

    vitals: Vitals
    armour_lives: tuple[int, ...] = Field((), description="lives left of each armour piece, in the sheet's order")
    hours_awake: float = Field(0, ge=0, description="hours since the character last slept")
    hours_unfed: float = Field(0, ge=0, description="hours since the character last ate a healthy amount")
    hours_dry: float = Field(0, ge=0, description="hours since the character last drank a healthy amount")
    fatigue: int = Field(0, ge=0, description="ranks lost to Fatigue")
    hunger: int = Field(0, ge=0, description="ranks lost to Hunger")
    thirst: int = Field(0, ge=0, description="ranks lost to Thirst")

    @model_validator(mode="after")
    def _in_range(self) -> BlyssCondition:
        v = self.vitals
        for name in ("dodges", "flesh_wounds"):
            if not 0 <= getattr(v, name) <= getattr(v, f"max_{name}"):
                raise ValueError(f"vitals.{name} is 0 to {getattr(v, f'max_{name}')}, not {getattr(v, name)}")
        if v.health > v.max_health:
            raise ValueError(f"vitals.health is at most {v.max_health}")
        if any(not 0 <= n <= 3 for n in self.armour_lives):
            raise ValueError("armour has 0 to 3 lives")
        return self


class Time(BaseModel):
    """Hours pass (the SM advances time): awake or asleep, eating and drinking a healthy amount or not."""

    action: Literal["time"] = "time"
    hours: float = Field(gt=0, le=24 * 365)
    asleep: bool = False
    eating: bool = True
    drinking: bool = True


class Damage(BaseModel):
    """A hazard's damage: through Dodges, then Flesh Wounds, then Health (Derived Attributes)."""

    action: Literal["damage"] = "damage"
    amount: int = Field(ge=0, le=1000)
    source: str = Field("a hazard", max_length=200)
    blunt: bool = False


class Heal(BaseModel):
    """What the SM says comes back (the book gives no healing rate), up to each maximum."""

    action: Literal["heal"] = "heal"
    dodges: int = Field(0, ge=0, le=1000)
    flesh_wounds: int = Field(0, ge=0, le=1000)
    health: int = Field(0, ge=0, le=1000)
    wake: bool = Field(False, description="the character comes round (no longer unconscious)")


class Repair(BaseModel):
    """Armour with one or more lives left is repaired (Armour Rating); destroyed armour is not."""

    action: Literal["repair"] = "repair"
    armour: str = Field(min_length=1)
    lives: int = Field(1, ge=1, le=3)


class StarvationCheck(BaseModel):
    """A character unconscious from hunger or thirst: the Stamina Test at TD 10 every Stamina x 4 hours (Thirst)."""

    action: Literal["starvation_check"] = "starvation_check"


class DyingCheck(BaseModel):
    """A turn of dying outside a fight: the Stamina check at TD 6 (Dying)."""

    action: Literal["dying_check"] = "dying_check"


def deprivation_ranks(cond: BlyssCondition) -> int:
    """The ranks Fatigue, Hunger and Thirst take from every Attribute and Trait, together."""
    return cond.fatigue + cond.hunger + cond.thirst


def _vitals_for(c: Character) -> Vitals:
    return Vitals.fresh(max_dodges(c), max_flesh_wounds(c), max_health(c))


def _pools(check: Check) -> list[tuple[str, Pool]]:
    """The pools of ``check`` that are the character's own: the test itself, a contest's first side, the
    assisted character of a Combined Test."""
    if isinstance(check, Pool):
        return [("", check)]
    for name in ("a", "assisted"):
        p = getattr(check, name, None)
        if isinstance(p, Pool):
            return [(name, p)]
    return []


class BlyssConditionRules(ConditionBase):
    model = BlyssCondition
    actions: ClassVar[Mapping[str, type[BaseModel]]] = {
        "time": Time,
        "damage": Damage,
        "heal": Heal,
        "repair": Repair,
        "dying_check": DyingCheck,
        "starvation_check": StarvationCheck,
    }
    player_actions = frozenset()
    reason_required = frozenset({"heal"})
    advancement = Advancement
    gm_advancement = (AwardExperience,)

    def initial(self, character: Character, hr: Any) -> BlyssCondition:
        return BlyssCondition(vitals=_vitals_for(character), armour_lives=tuple(a.lives for a in character.armour))

    def refit(self, character: Character, condition: BaseModel, hr: Any) -> BlyssCondition:
        """New maxima (Dodges, Flesh Wounds, Health bought with experience) raise the current values by as
        much; armour added to or taken off the sheet starts at its sheet lives or is dropped."""
        cond = BlyssCondition.model_validate(condition)
        fresh = _vitals_for(character)
        v = cond.vitals
        upd = {}
        for name in ("dodges", "flesh_wounds", "health"):
            top, old = getattr(fresh, f"max_{name}"), getattr(v, f"max_{name}")
            if top != old:
                upd[name] = getattr(v, name) + top - old
                upd[f"max_{name}"] = top
        lives = list(cond.armour_lives[: len(character.armour)])
        lives += [a.lives for a in character.armour[len(lives) :]]
        if not upd and tuple(lives) == cond.armour_lives:
            return cond
        return cond.model_copy(update={"vitals": v.model_copy(update=upd), "armour_lives": tuple(lives)})

    def summary(self, character: Character, condition: BaseModel, hr: Any) -> str:
        cond = BlyssCondition.model_validate(condition)
        word = vitals_word(cond.vitals)
        dep = [f"{k} -{getattr(cond, k)}" for k in ("fatigue", "hunger", "thirst") if getattr(cond, k)]
        return word + (f" ({', '.join(dep)})" if dep else "")

    def sections(self, character: Character, condition: BaseModel, hr: Any) -> list[SheetSection]:
        cond = BlyssCondition.model_validate(condition)
        v = cond.vitals
        res = [
            value("Dodges", v.dodges, key="dodges", maximum=v.max_dodges),
            value("Flesh Wounds", v.flesh_wounds, key="flesh_wounds", maximum=v.max_flesh_wounds),
            value("Health", v.health, key="health", maximum=v.max_health),
        ]
        res += [
            value(f"Armour: {a.name}", lives, key=f"armour_{i}", maximum=3, note="lives")
            for i, (a, lives) in enumerate(zip(character.armour, cond.armour_lives, strict=False))
        ]
        level = wound_level(v)
        cond_values = [
            value("Condition", vitals_word(v), key="condition"),
            value("Wound Level", level, key="wound_level"),
            value("Fatigue", cond.fatigue, key="fatigue", note=f"{cond.hours_awake:g} h awake"),
            value("Hunger", cond.hunger, key="hunger", note=f"{cond.hours_unfed:g} h since food"),
            value("Thirst", cond.thirst, key="thirst", note=f"{cond.hours_dry:g} h since drink"),
        ]
        if v.dying:
            cond_values.append(value("Dying checks made", v.dying_checks, key="dying_checks"))
        return [
            section("resources", "Dodges, Flesh Wounds, Health", "resources", res),
            section("condition", "Condition", "condition", cond_values),
        ]

    def penalties(self, character: Character, condition: BaseModel, hr: BlyssHouseRules) -> list[Penalty]:
        cond = BlyssCondition.model_validate(condition)
        out: list[Penalty] = []
        level = wound_level(cond.vitals)
        if level == "Incapacitated":
            out.append(Penalty(vitals_word(cond.vitals), "the character is helpless (Table 2-03)", 0))
        else:
            ranks, die = wound_penalty(level, hr)
            if ranks:
                out.append(Penalty(level, f"-{ranks} rank{'s' if ranks > 1 else ''} to all Tests", -ranks))
            if die:
                out.append(Penalty(level, f"{die} to all rolls (each die's value)", die))
        for kind in ("fatigue", "hunger", "thirst"):
            n = getattr(cond, kind)
            if n:
                out.append(
                    Penalty(kind.capitalize(), f"-{n} rank{'s' if n > 1 else ''} to every Attribute and Trait", -n)
                )
        return out

    def adjust_check(self, character: Character, condition: BaseModel, check: Check, hr: BlyssHouseRules) -> Check:
        """The Wound Level's penalty once per Test (ranks, or -1 to each die at Flesh Wounds); deprivation's
        ranks from every statistic in the pool (ruling B-L2: each Attribute and Trait rolled loses them)."""
        cond = BlyssCondition.model_validate(condition)
        level = wound_level(cond.vitals)
        ranks, die = (0, 0) if level == "Incapacitated" else wound_penalty(level, hr)
        dep = deprivation_ranks(cond)
        for name, pool in _pools(check):
            extra = ranks + deprivation_pool_ranks(dep, len(pool.ranks), hr)
            new = pool.model_copy(
                update={"penalty_ranks": pool.penalty_ranks + extra, "die_modifier": pool.die_modifier + die}
            )
            check = new if not name else check.model_copy(update={name: new})  # type: ignore[assignment]
        return check

    def into_fight(self, state: BaseModel, fighter: str, condition: BaseModel, hr: Any) -> BaseModel:
        cond = BlyssCondition.model_validate(condition)
        fighters = []
        for f in state.fighters:  # type: ignore[attr-defined]
            if f.id == fighter:
                f = f.model_copy(
                    update={
                        "vitals": cond.vitals,
                        "armour_lives": cond.armour_lives,
                        "deprivation": deprivation_ranks(cond),
                    }
                )
            fighters.append(f)
        return state.model_copy(update={"fighters": tuple(fighters)})

    def out_of_fight(
        self, state: BaseModel, fighter: str, character: Character, condition: BaseModel, hr: Any
    ) -> BaseModel:
        cond = BlyssCondition.model_validate(condition)
        f = next((f for f in state.fighters if f.id == fighter), None)  # type: ignore[attr-defined]
        if f is None:
            return cond
        return cond.model_copy(update={"vitals": f.vitals, "armour_lives": tuple(f.armour_lives)})

    def act(
        self, character: Character, condition: BaseModel, request: BaseModel, rng: DiceRng | None, hr: BlyssHouseRules
    ) -> tuple[BaseModel, list[Event]]:
        cond = BlyssCondition.model_validate(condition)
        who = character.name
        if isinstance(request, Time):
            return _time(character, cond, request)
        if isinstance(request, Damage):
            v, took = apply_damage(cond.vitals, request.amount, spill=hr.damage_spills_over)
            parts = [f"{n} {k.replace('_', ' ')}" for k, n in took.items() if n]
            text = f"{who} takes {request.amount} damage from {request.source}" + (
                f" ({', '.join(parts)})" if parts else ""
            )
            return cond.model_copy(update={"vitals": v}), [Event("damage", text + f": {vitals_word(v)}.", data=took)]
        if isinstance(request, Heal):
            v = cond.vitals
            upd: dict[str, Any] = {
                "dodges": min(v.max_dodges, v.dodges + request.dodges),
                "flesh_wounds": min(v.max_flesh_wounds, v.flesh_wounds + request.flesh_wounds),
                "health": min(v.max_health, v.health + request.health),
            }
            if v.dead:
                raise RulesInputError(f"{who} is dead: healing does not bring the dead back")
            if upd["health"] > 0 and (request.wake or v.stabilised or v.dying):
                upd.update(unconscious=not request.wake and v.unconscious, dying=False)
            if request.wake:
                upd["unconscious"] = False
            nv = v.model_copy(update=upd)
            return cond.model_copy(update={"vitals": nv}), [
                Event(
                    "heal", f"{who} recovers: Dodges {nv.dodges}, Flesh Wounds {nv.flesh_wounds}, Health {nv.health}."
                )
            ]
        if isinstance(request, Repair):
            names = [a.name.lower() for a in character.armour]
            if request.armour.lower() not in names:
                raise RulesInputError(
                    f"{who} wears no {request.armour!r}",
                    where="armour",
                    hint="armour: " + ", ".join(a.name for a in character.armour),
                )
            i = names.index(request.armour.lower())
            lives = list(cond.armour_lives)
            if lives[i] == 0:
                raise RulesInputError(
                    f"{character.armour[i].name} is destroyed: 'irreparably destroyed' at 0 lives (Armour Rating)"
                )
            lives[i] = min(3, lives[i] + request.lives)
            return cond.model_copy(update={"armour_lives": tuple(lives)}), [
                Event("repair", f"{who}'s {character.armour[i].name} is repaired to {lives[i]}/3 lives.")
            ]
        if isinstance(request, DyingCheck):
            if not cond.vitals.dying:
                raise RulesInputError(f"{who} is not dying")
            stamina = deprived_rank(character.attributes.stamina, deprivation_ranks(cond), hr, in_a_test=True)
            v, text, rec = dying_check(cond.vitals, stamina, needs_dice(rng, "a dying check"), hr)
            return cond.model_copy(update={"vitals": v}), [
                Event("dying", f"{who} {text}.", rolls=(rec,) if rec else ())
            ]
        if isinstance(request, StarvationCheck):
            if not (cond.vitals.unconscious and (cond.hunger or cond.thirst)):
                raise RulesInputError(f"{who} is not unconscious from hunger or thirst")
            rank = deprived_rank(character.attributes.stamina, deprivation_ranks(cond), hr, in_a_test=True)
            v, text, rec = starvation_check(cond.vitals, rank, needs_dice(rng, "a starvation check"), hr)
            return cond.model_copy(update={"vitals": v}), [
                Event("starvation", f"{who} {text}.", rolls=(rec,) if rec else ())
            ]
        return super().act(character, cond, request, rng, hr)


def _time(c: Character, cond: BlyssCondition, t: Time) -> tuple[BlyssCondition, list[Event]]:
    """Fatigue, Hunger and Thirst over ``t.hours`` (BLYSS 3.5, Fatigue, Hunger, and Thirst).

    A rank is lost per hour awake past the Threshold (Stamina x 8), per 24 hours without food, per 2
    hours without drink; one comes back per 2 hours' sleep, per day of healthy eating, per 4 hours of
    healthy drinking. Ruling B-L1: sleeping, eating or drinking restarts that clock (the Threshold is
    counted afresh); the stay-awake checks past the Threshold are the SM's to call for (a check at the
    table); a character brought to Stamina or Mental Fortitude 0 by the penalties falls unconscious."""
    st = c.attributes.stamina
    upd: dict[str, Any] = {}
    texts = []
    for kind, clock, eased in (
        ("fatigue", "hours_awake", t.asleep),
        ("hunger", "hours_unfed", t.eating),
        ("thirst", "hours_dry", t.drinking),
    ):
        pen = getattr(cond, kind)
        if eased:
            new = deprivation_recovery(kind, pen, t.hours)  # type: ignore[arg-type]
            upd[clock] = 0.0
        else:
            hours = getattr(cond, clock)
            before, after = deprivation_penalty(kind, hours, st), deprivation_penalty(kind, hours + t.hours, st)  # type: ignore[arg-type]
            new = pen + after - before
            upd[clock] = hours + t.hours
        upd[kind] = new
        if new != pen:
            texts.append(f"{kind} {pen} → {new}")
    new_cond = cond.model_copy(update=upd)
    total = deprivation_ranks(new_cond)
    events = [
        Event(
            "time",
            f"{t.hours:g} hours pass for {c.name}"
            + (" asleep" if t.asleep else "")
            + (f": {'; '.join(texts)}." if texts else "."),
        )
    ]
    if total and collapses(st, c.attributes.mental_fortitude, total) and not new_cond.vitals.unconscious:
        new_cond = new_cond.model_copy(update={"vitals": new_cond.vitals.model_copy(update={"unconscious": True})})
        events.append(Event("collapse", f"{c.name} can no longer stay awake and falls unconscious."))
    return new_cond, events


CONDITION = BlyssConditionRules()
