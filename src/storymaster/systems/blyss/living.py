"""Rules for Living: damage through Dodges, Flesh Wounds and Health; Wound Levels; unconsciousness,
knockouts, dying and death; fatigue, hunger and thirst.

BLYSS 3.5, Derived Attributes (Dodges, Flesh Wounds, Health) and Rules for Living.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from ...dice import DiceRng, RollRecord
from ...rules.models import Model
from .checks import roll_against
from .options import BlyssHouseRules
from .scale import pool_for_rank
from .tables import table

__all__ = [
    "DYING_RESULTS",
    "WOUND_LEVELS",
    "Vitals",
    "apply_damage",
    "blow_flags",
    "blow_flags_v",
    "can_act",
    "deprivation_penalty",
    "deprivation_pool_ranks",
    "deprivation_recovery",
    "deprived_rank",
    "dying_check",
    "dying_result",
    "dying_result_v",
    "health_thirds",
    "knockout_check",
    "spill_damage",
    "spill_damage_v",
    "starvation_check",
    "stay_awake_check",
    "threshold_hours",
    "vitals_left",
    "wound_level",
    "wound_level_code",
    "wound_level_codes",
    "wound_penalty",
]


#: the Wound Levels of Table 2-03 in order of severity, and "Incapacitated" (the codes of :func:`wound_level_codes`)
WOUND_LEVELS = ("Healthy", "Flesh Wounds", "Light Wounds", "Moderate Wounds", "Heavy Wounds", "Incapacitated")


class Vitals(Model):
    """What is left of a character's Dodges, Flesh Wounds and Health, and their state."""

    dodges: int
    flesh_wounds: int
    health: int
    max_dodges: int
    max_flesh_wounds: int
    max_health: int
    unconscious: bool = False
    dying: bool = False
    stabilised: bool = False
    dead: bool = False
    coma: bool = False
    dying_checks: int = Field(0, ge=0, description="Stamina checks made while dying (the cumulative penalty)")

    @classmethod
    def fresh(cls, dodges: int, flesh_wounds: int, health: int) -> Vitals:
        return cls(
            dodges=dodges,
            flesh_wounds=flesh_wounds,
            health=health,
            max_dodges=dodges,
            max_flesh_wounds=flesh_wounds,
            max_health=health,
        )

    @property
    def active(self) -> bool:
        """Can act: not unconscious, dying, dead or in a coma."""
        return can_act(self.unconscious, self.dying, self.dead, self.coma)

    @property
    def total(self) -> int:
        return vitals_left(self.dodges, self.flesh_wounds, self.health)


def can_act(unconscious: bool, dying: bool, dead: bool, coma: bool, /) -> bool:
    """Who can act: nobody unconscious, dying, dead or in a coma. The one statement for the Vitals and the
    round's compact state."""
    return not (unconscious or dying or dead or coma)


def vitals_left(dodges: int, flesh_wounds: int, health: int, /) -> int:
    """What a blow must still get through: Dodges, Flesh Wounds and the Health above 0."""
    return dodges + flesh_wounds + max(health, 0)


def spill_damage(d: int, f: int, h: int, damage: int, spill: bool = True, /) -> tuple[int, int, int]:
    """What one blow takes from Dodges, Flesh Wounds and Health, in that order (Derived Attributes: Dodges,
    Flesh Wounds, Health). Ruling: the blow runs on from one to the next (house rule ``damage_spills_over``);
    without it, it stops at the track it started in. Returns (taken from Dodges, from Flesh Wounds, from
    Health). Plain integers, so the engine's round (through :func:`apply_damage`) and the forecast share it;
    :func:`spill_damage_v` is its array twin."""
    left = max(0, damage)
    took_d = took_f = 0
    if left and d > 0:
        took_d = min(left, d)
        left = left - took_d if spill else 0
    if left and f > 0:
        took_f = min(left, f)
        left = left - took_f if spill else 0
    return took_d, took_f, left


def spill_damage_v(
    d: np.ndarray, f: np.ndarray, damage: np.ndarray, spill: bool = True, /
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`spill_damage` on arrays (the simulation's twin, tested against it on every small input)."""
    left = np.maximum(0, damage)
    took_d = np.where((left > 0) & (d > 0), np.minimum(left, np.maximum(d, 0)), 0)
    left = np.where(took_d > 0, left - took_d if spill else 0, left)
    took_f = np.where((left > 0) & (f > 0), np.minimum(left, np.maximum(f, 0)), 0)
    left = np.where(took_f > 0, left - took_f if spill else 0, left)
    return took_d, took_f, left


def apply_damage(v: Vitals, damage: int, *, spill: bool = True) -> tuple[Vitals, dict[str, int]]:
    """Deal damage to Dodges first, then Flesh Wounds, then Health (:func:`spill_damage`). Health 0 knocks
    the character out; below 0 they are dying (Unconsciousness; Dying)."""
    took_d, took_f, took_h = spill_damage(v.dodges, v.flesh_wounds, v.health, damage, spill)
    took = {"dodges": took_d, "flesh_wounds": took_f, "health": took_h}
    h = v.health - took_h
    unc, dying, stab, checks = blow_flags(h, took_h, v.unconscious, v.dying, v.stabilised, v.dead, v.dying_checks)
    update: dict[str, object] = {
        "dodges": v.dodges - took_d,
        "flesh_wounds": v.flesh_wounds - took_f,
        "health": h,
        "unconscious": unc,
        "dying": dying,
        "stabilised": stab,
        "dying_checks": checks,
    }
    return v.model_copy(update=update), took


def blow_flags(
    health: int, took_health: int, unconscious: bool, dying: bool, stabilised: bool, dead: bool, dying_checks: int, /
) -> tuple[bool, bool, bool, int]:
    """(unconscious, dying, stabilised, dying checks) after a blow that took ``took_health`` Health and left
    ``health``: Health 0 knocks the character out; below 0 they are dying (Unconsciousness; Dying); a
    stabilised character hurt below 0 again is dying once more, their checks counted afresh."""
    if health <= 0 and took_health:
        unconscious = True
        if health < 0 and not dying and not stabilised and not dead:
            dying = True
        if health < 0 and stabilised:
            dying, stabilised, dying_checks = True, False, 0
    return unconscious, dying, stabilised, dying_checks


WoundLevel = Literal["Healthy", "Flesh Wounds", "Light Wounds", "Moderate Wounds", "Heavy Wounds", "Incapacitated"]


def health_thirds(max_health: Any, thirds: Any, /) -> Any:
    """``thirds`` thirds of maximum Health, rounded up (Table 2-03: Light Wounds at a third lost, Moderate at two
    thirds; Hunger/Thirst: "a Wound's worth of Health"). Integer arithmetic, so the same function serves ints
    and numpy arrays (the forecast's exact chain and simulation)."""
    return -(-(thirds * max_health) // 3)


def blow_flags_v(
    health: np.ndarray,
    took_health: np.ndarray,
    unconscious: np.ndarray,
    dying: np.ndarray,
    stabilised: np.ndarray,
    dead: np.ndarray,
    dying_checks: np.ndarray,
    /,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`blow_flags` on arrays (the simulation's twin, tested against it on every small input)."""
    hit = (health <= 0) & (took_health > 0)
    below = hit & (health < 0)
    again = below & stabilised
    return (
        unconscious | hit,
        dying | (below & ~dying & ~stabilised & ~dead) | again,
        stabilised & ~again,
        np.where(again, 0, dying_checks),
    )


def wound_level_code(d: int, fw: int, h: int, max_fw: int, max_h: int, active: bool = True, /) -> int:
    """:func:`wound_level` on plain values, as a code into :data:`WOUND_LEVELS` (0 Healthy .. 4 Heavy Wounds,
    5 Incapacitated): the form the engine's round and the exact chain use."""
    if not active:
        return 5
    lost = max_h - h
    if lost >= 1:
        if h < table("wounds")["heavy_wounds_below_health"]:
            return 4
        if lost >= health_thirds(max_h, 2):
            return 3
        if lost >= health_thirds(max_h, 1):
            return 2
    return 1 if d == 0 and fw < max_fw else 0


def wound_level(v: Vitals) -> WoundLevel:
    """The character's Wound Level (Table 2-03); the most severe that applies, not cumulative.

    Rulings: Light and Moderate need at least 1 Health lost and a third / two thirds of maximum
    Health (rounded up) gone; Heavy Wounds need Health lost and below 10 (so for a low-Stamina
    character Heavy can come straight after Flesh Wounds, as the table says).
    """
    code = wound_level_code(v.dodges, v.flesh_wounds, v.health, v.max_flesh_wounds, v.max_health, v.active)
    return WOUND_LEVELS[code]  # type: ignore[return-value]


def wound_level_codes(
    d: np.ndarray, fw: np.ndarray, h: np.ndarray, maxf: Any, maxh: Any, active: np.ndarray
) -> np.ndarray:
    """:func:`wound_level` on arrays, as codes into :data:`WOUND_LEVELS` (0 Healthy .. 4 Heavy Wounds,
    5 Incapacitated): the forecast's twin, tested against it on every input of a small domain."""
    heavy_below = table("wounds")["heavy_wounds_below_health"]
    lost = maxh - h
    hurt = lost >= 1
    out = np.where((d == 0) & (fw < maxf), 1, 0)
    light = hurt & (lost >= health_thirds(maxh, 1))
    moderate = hurt & (lost >= health_thirds(maxh, 2))
    out = np.where(light, 2, out)
    out = np.where(moderate, 3, out)
    out = np.where(hurt & (h < heavy_below), 4, out)
    return np.where(active, out, 5)


def wound_penalty(level: str, hr: BlyssHouseRules | None = None) -> tuple[int, int]:
    """(rank penalty, die modifier) for a Wound Level (Table 2-03). Flesh Wounds' '-1 to all rolls' is
    -1 to each die's value by default, or -1 rank by house rule ``flesh_wound_penalty``."""
    hr = hr or BlyssHouseRules()
    row = next(r for r in table("wounds")["wound_levels"] if r["level"] == level)
    if row["die_penalty"] and hr.flesh_wound_penalty == "rank":
        return row["die_penalty"], 0
    return row["rank_penalty"], -row["die_penalty"]


def knockout_check(
    rank: int, rng: DiceRng, hr: BlyssHouseRules | None = None, *, label: str = "knockout"
) -> tuple[bool, RollRecord | None]:
    """A knockout chance (typically Average, d8) rolled against TD 6; a success knocks the target out
    whatever their Health (Unconsciousness)."""
    hr = hr or BlyssHouseRules()
    rp = roll_against(pool_for_rank(rank), table("wounds")["knockout_td"], rng, hr, label=label)
    return (rp is not None and rp.judgement.succeeded), (rp.record if rp else None)


def dying_result(rank: int, passed: bool, coma_rule: str, blunt: bool, /) -> str:
    """One dying check's result (Dying; Death): with the cumulative penalty at Stamina rank ``rank``,
    "dead" or "coma" (house rule ``coma_instead_of_death``) when the rank is 0 or less (no roll), else
    "stabilised" when the Test ``passed``, "failed" otherwise."""
    if rank <= 0:
        return "coma" if coma_rule == "always" or (blunt and coma_rule == "blunt") else "dead"
    return "stabilised" if passed else "failed"


#: :func:`dying_result`'s results, by :func:`dying_result_v`'s codes
DYING_RESULTS = ("failed", "stabilised", "dead", "coma")


def dying_result_v(rank: np.ndarray, passed: np.ndarray, coma_rule: str, blunt: np.ndarray, /) -> np.ndarray:
    """:func:`dying_result` on arrays, as codes into :data:`DYING_RESULTS` (the simulation's twin)."""
    coma = (coma_rule == "always") | ((coma_rule == "blunt") & blunt)
    return np.where(rank <= 0, np.where(coma, 3, 2), np.where(passed, 1, 0))


def dying_check(
    v: Vitals, stamina: int, rng: DiceRng, hr: BlyssHouseRules | None = None, *, blunt: bool = False
) -> tuple[Vitals, str, RollRecord | None]:
    """One turn of dying (Dying; Death): a Stamina Test at TD 6 with a cumulative -1 rank per check
    already failed. Success stabilises. If the penalty has brought Stamina to rank 0 first, the character
    dies (or falls into a coma, if the SM so rules: house rule ``coma_instead_of_death``)."""
    hr = hr or BlyssHouseRules()
    if not v.dying:
        return v, "not dying", None
    rank = stamina - v.dying_checks
    rp = (
        None
        if rank <= 0
        else roll_against(pool_for_rank(rank), table("wounds")["dying_td"], rng, hr, label="dying check")
    )
    result = dying_result(rank, rp is not None and rp.judgement.succeeded, hr.coma_instead_of_death, blunt)
    if result == "coma":
        return v.model_copy(update={"dying": False, "coma": True}), "falls into a coma", None
    if result == "dead":
        return v.model_copy(update={"dying": False, "dead": True}), "dies", None
    if result == "stabilised":
        return (
            v.model_copy(update={"dying": False, "stabilised": True}),
            f"stabilises (Stamina rank {rank})",
            rp.record if rp else None,
        )
    return (
        v.model_copy(update={"dying_checks": v.dying_checks + 1}),
        f"fails to stabilise (Stamina rank {rank})",
        rp.record if rp else None,
    )


# ---------------------------------------------------------------- fatigue, hunger, thirst
Deprivation = Literal["fatigue", "hunger", "thirst"]


def threshold_hours(stamina: int, /) -> int:
    """Hours a character lasts before fatigue, hunger or thirst bite: Stamina x 8 (Fatigue)."""
    return stamina * table("wounds")["deprivation"]["threshold_hours_per_stamina"]


def deprivation_penalty(kind: Deprivation, hours: float, stamina: int, /) -> int:
    """Ranks lost from every Attribute and Trait (not Health, Flesh Wounds or Mana) after ``hours``
    without sleep, food or drink: one per hour past the Threshold (fatigue), per 24 hours (hunger),
    per 2 hours (thirst) (Fatigue; Hunger; Thirst)."""
    every = table("wounds")["deprivation"][kind]["penalty_every_hours"]
    past = hours - threshold_hours(stamina)
    return max(0, int(past // every))


def deprivation_pool_ranks(ranks: int, statistics: int, hr: BlyssHouseRules | None = None, /) -> int:
    """The rank penalty Fatigue, Hunger and Thirst together (``ranks``) put on one Test whose pool combines
    ``statistics`` statistics (ruling B-L2; Fatigue: "all of their attributes and traits ... temporarily
    decrease by one rank"): every statistic rolled loses the ranks (house rule ``deprivation_penalty``
    ``per_statistic``, the default), or the Test loses them once, like a Wound Level (``per_test``).
    The one statement of the rule: checks at the table and every pool a fighter rolls use it."""
    hr = hr or BlyssHouseRules()
    if ranks <= 0:
        return 0
    per = max(1, statistics) if hr.deprivation_penalty == "per_statistic" else 1
    return ranks * per


def deprived_rank(rank: int, ranks: int, hr: BlyssHouseRules | None = None, /, *, in_a_test: bool) -> int:
    """A statistic's rank as Fatigue, Hunger and Thirst (``ranks`` together) leave it (ruling B-L6): in a Test of
    that one statistic (a dying or starvation Stamina check) it loses them under either house rule
    (:func:`deprivation_pool_ranks` of one statistic); read outside a Test (Strength's damage bonus,
    Agility's Movement) it loses them only where the statistics themselves decrease (``per_statistic``, the
    book's "all of their attributes ... decrease"), not where the Test bears them (``per_test``). Never
    below 0."""
    hr = hr or BlyssHouseRules()
    if in_a_test:
        return max(0, rank - deprivation_pool_ranks(ranks, 1, hr))
    return max(0, rank - ranks) if hr.deprivation_penalty == "per_statistic" else rank


def deprivation_recovery(kind: Deprivation, penalty: int, hours: float, /) -> int:
    """The penalty left after ``hours`` of sleep / eating well / drinking well: one rank back per 2 hours'
    sleep, per day of food, per 4 hours of drink (Fatigue; Hunger; Thirst)."""
    per = table("wounds")["deprivation"][kind]["recover_hours_per_rank"]
    return max(0, penalty - int(hours // per))


def stay_awake_checks(hours_awake: float, stamina: int, /) -> int:
    """How many Mental Fortitude checks to stay awake are due: one per half hour past the Threshold (Fatigue)."""
    every = table("wounds")["deprivation"]["fatigue"]["check_every_hours"]
    past = hours_awake - threshold_hours(stamina)
    return max(0, int(past // every))


def stay_awake_check(
    mental_fortitude: int, penalty: int, rng: DiceRng, hr: BlyssHouseRules | None = None
) -> tuple[bool, RollRecord | None]:
    """A Mental Fortitude check to stay awake past the Threshold, at the house rule's TD (ruling: 6), with the
    deprivation penalty taken off the rank (Fatigue). Returns whether the character stays awake."""
    hr = hr or BlyssHouseRules()
    rank = max(0, mental_fortitude - penalty)
    rp = roll_against(pool_for_rank(rank), hr.stay_awake_td, rng, hr, label="stay awake")
    return (rp is not None and rp.judgement.succeeded), (rp.record if rp else None)


def collapses(stamina: int, mental_fortitude: int, penalty: int, /) -> bool:
    """Stamina or Mental Fortitude brought to rank 0 by the penalties: the character falls unconscious (Fatigue)."""
    return stamina - penalty <= 0 or mental_fortitude - penalty <= 0


def starvation_interval(stamina: int, /) -> int:
    """Hours between Stamina Tests for a character unconscious from hunger or thirst: Stamina x 4 (Thirst)."""
    return stamina * table("wounds")["deprivation"]["starvation_check_hours_per_stamina"]


def starvation_check(
    v: Vitals, stamina_rank: int, rng: DiceRng, hr: BlyssHouseRules | None = None
) -> tuple[Vitals, str, RollRecord | None]:
    """A Stamina Test at TD 10; failure costs 'a Wound's worth of Health' (ruling: a third of maximum Health,
    rounded up; house rule ``starvation_loss``), down to 0 Health, after which the Dying rules take over (Thirst)."""
    hr = hr or BlyssHouseRules()
    rp = roll_against(
        pool_for_rank(max(0, stamina_rank)),
        table("wounds")["deprivation"]["starvation_td"],
        rng,
        hr,
        label="starvation check",
    )
    if rp is not None and rp.judgement.succeeded:
        return v, "holds on", rp.record
    loss = health_thirds(v.max_health, 1) if hr.starvation_loss == "third" else 1
    new_h = max(0, v.health - loss)
    update: dict[str, object] = {"health": new_h, "unconscious": True}
    if new_h == 0:
        update["dying"] = True  # 'at which point the guidelines for Dying ... should be followed'
    text = f"loses {v.health - new_h} Health" + (" and is now dying" if new_h == 0 else "")
    return v.model_copy(update=update), text, rp.record if rp else None
