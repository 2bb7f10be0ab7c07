"""Character Advancement: XP, level-ups (stat raises, HP/MP/TP gains, skill raises), reproducible from a seed."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...dice import DiceRng, roll
from ...errors import AdvancementError
from ...rules.models import Model
from ...rules.protocol import Event
from .character import Character, Skill, Stats, base_sum, validate
from .options import PhilsysHouseRules
from .tables import tables

__all__ = [
    "LevelUp",
    "XpAward",
    "award_xp",
    "level_up",
    "primary_threshold",
    "secondary_threshold",
    "skill_raise_target",
    "skill_raises_allowed",
    "xp_to_next",
]

StatName = Literal["COU", "WIS", "INT", "CHA", "AGI", "DEX", "STR", "STA", "MAG"]


class XpAward(Model):
    """The GM awards experience points."""

    kind: Literal["xp"] = "xp"
    amount: int = Field(ge=0, le=1_000_000)


class LevelUp(Model):
    """A level-up: the two stats to try to raise, then skill raise attempts in order (new skills at rank 1)."""

    kind: Literal["level"] = "level"
    primary: StatName
    secondary: StatName
    skills: list[str] = Field(default_factory=list, description="Skill names, one entry per raise attempt, in order.")
    new_skills: list[Skill] = Field(
        default_factory=list, description="Skills to learn; list their names in 'skills' too."
    )
    weapon_ranks_to: dict[str, Literal["at", "pa"]] = Field(
        default_factory=dict, description="Where a weapon skill's new ranks go (default: the lower of AT and PA)."
    )
    ignore_xp: bool = Field(False, description="Level up without paying XP (the GM grants a level).")


def xp_to_next(level: int) -> int:
    """XP needed to go from ``level`` to ``level + 1`` (the table's figure under the next level)."""
    table = tables()["xp_to_reach"]
    if level + 1 not in table:
        raise AdvancementError(f"the XP table ends at level 20; there is no level {level + 1}")
    return int(table[level + 1])


def award_xp(c: Character, amount: int) -> tuple[Character, list[Event]]:
    """Add XP; say how far the next level is."""
    new = c.model_copy(update={"xp": c.xp + amount})
    text = f"{c.name} gains {amount} XP ({new.xp} now)."
    if c.level < 20:
        need = xp_to_next(c.level)
        text += f" Level {c.level + 1} needs {need}" + (": ready to level up." if new.xp >= need else ".")
    return new, [Event("xp", text, data={"xp": new.xp, "amount": amount})]


def primary_threshold(stat: int) -> int:
    """The primary stat rises on d100 <= 100 - stat*5 (stat +4: 80 or less)."""
    return 100 - 5 * stat


def secondary_threshold(stat: int) -> int:
    """The secondary stat rises on d100 <= 50 - stat*5 (stat +4: 30 or less)."""
    return 50 - 5 * stat


def skill_raises_allowed(wis: int) -> int:
    """Skill raise attempts per level: WIS + 3, at least 2."""
    return max(2, wis + 3)


def skill_raise_target(current_rank: int, step: int, bases: int, hr: PhilsysHouseRules) -> int | None:
    """The d6 needed to raise a skill, or None when automatic.

    Automatic when the new rank is below the sum of the base attributes. Otherwise, by the worked example
    (6 -> 7 with bases +1/+1/+1 needs '3 or greater'): d6 >= current - bases; by the text: d6 > new - bases.
    A target above 6 cannot be reached.
    """
    new_rank = current_rank + step
    if new_rank < bases:
        return None
    if hr.skill_raise_roll == "example":
        return max(1, current_rank - bases)
    return max(1, new_rank - bases + 1)


def hp_gain_expr(c: Character) -> str:
    """Each level: STA + 1d6 max HP."""
    return f"1d6{c.stats.STA:+d}" if c.stats.STA else "1d6"


def mp_gain_expr(c: Character) -> str:
    """Each level: (MAG + INT)/2 + 1d4 max MP (the half rounded down)."""
    k = (c.stats.MAG + c.stats.INT) // 2
    return f"1d4{k:+d}" if k else "1d4"


def tp_gain_expr() -> str:
    """Each level: 3 + 1d3 max TP."""
    return "1d3+3"


def level_up(
    c: Character, req: LevelUp, rng: DiceRng, hr: PhilsysHouseRules | None = None
) -> tuple[Character, list[Event]]:
    """Apply one level-up; every roll is recorded in the events."""
    hr = hr or PhilsysHouseRules()
    if req.primary == req.secondary:
        raise AdvancementError("the primary and secondary stats must differ", hint="choose two different stats")
    if c.level >= 20:
        raise AdvancementError("level 20 is the top of the XP table")
    need = xp_to_next(c.level)
    if not req.ignore_xp and c.xp < need:
        raise AdvancementError(
            f"{c.name} has {c.xp} XP; level {c.level + 1} needs {need}", hint="award XP first, or pass ignore_xp"
        )
    t = tables()["stats"]
    events: list[Event] = []
    lvl = c.level + 1
    stats = c.stats.model_dump()
    raises = 0
    # 1. stat raises
    for which, stat, threshold in (
        ("primary", req.primary, primary_threshold(stats[req.primary])),
        ("secondary", req.secondary, secondary_threshold(stats[req.secondary])),
    ):
        if stats[stat] >= t[stat]["max"]:
            raise AdvancementError(f"{stat} is already at its maximum {t[stat]['max']:+d}", hint="choose another stat")
        r = roll("1d100", rng, label=f"{which} stat {stat}")
        ok = r.total <= threshold
        if ok:
            stats[stat] += 1
            raises += 1
        events.append(
            Event(
                "stat-raise",
                f"{which.capitalize()} stat {stat}: d100 = {r.total}, needs {threshold} or less: "
                + (f"raised to {stats[stat]:+d}." if ok else "no change."),
                0,
                c.name,
                {"stat": stat, "roll": r.total, "threshold": threshold, "raised": ok},
                (r,),
            )
        )
    c = c.model_copy(update={"stats": Stats(**stats), "stat_raises": c.stat_raises + raises})
    # 2. HP, MP, TP (after the stat raises)
    gains = {}
    for key, e in (("hp", hp_gain_expr(c)), ("mp", mp_gain_expr(c)), ("tp", tp_gain_expr())):
        r = roll(e, rng, label=f"{key.upper()} gain")
        gains[key] = max(0, r.total)
        text = f"Max {key.upper()} +{gains[key]} ({e} = {r.total})."
        events.append(Event("gain", text, 0, c.name, {key: gains[key]}, (r,)))
    c = c.model_copy(
        update={
            "hp_gained": c.hp_gained + gains["hp"],
            "mp_gained": c.mp_gained + gains["mp"],
            "tp_gained": c.tp_gained + gains["tp"],
        }
    )
    # 3. skills
    allowed = skill_raises_allowed(c.stats.WIS)
    if len(req.skills) > allowed:
        raise AdvancementError(f"{len(req.skills)} skill raise attempts asked; WIS+3 (at least 2) allows {allowed}")
    skills = {s.name.lower(): s for s in c.skills}
    order = [s.name for s in c.skills]
    new_names = {s.name.lower(): s for s in req.new_skills}
    for ns in req.new_skills:
        if ns.name.lower() in skills:
            raise AdvancementError(f"{ns.name!r} is already known; raise it instead of learning it")
        if ns.name.lower() not in [n.lower() for n in req.skills]:
            raise AdvancementError(f"new skill {ns.name!r} is not among the raise attempts", hint="list it in 'skills'")
        for stat, need_ in ns.requires.items():
            if c.stats.get(stat) < need_:
                raise AdvancementError(f"{ns.name} needs {stat} {need_:+d}")
    gained: dict[str, int] = {}
    for name in req.skills:
        key = name.lower()
        learning = key not in skills
        if learning and key not in new_names:
            raise AdvancementError(f"no skill called {name!r}", hint="describe new skills under new_skills")
        sk = skills.get(key) or new_names[key].model_copy(update={"rank": 0})
        step = 2 if sk.half_cost and not learning else 1
        if gained.get(key, 0) + step > 2:
            raise AdvancementError(f"{sk.name} would rise more than 2 ranks this level")
        bases = base_sum(c, sk)
        target = skill_raise_target(sk.rank, step, bases, hr)
        if target is None:
            ok, rolls, how = True, (), f"new rank {sk.rank + step} is below the base sum {bases}: automatic"
        else:
            r = roll("1d6", rng, label=f"skill raise {sk.name}")
            ok = r.total >= target
            rolls = (r,)
            how = f"d6 = {r.total}, needs {target} or more"
        if ok:
            gained[key] = gained.get(key, 0) + step
            upd: dict[str, object] = {"rank": sk.rank + step}
            if sk.category in ("melee", "unarmed", "missile") and sk.at_ranks is not None:
                at_r = sk.at_ranks
                pa_r = sk.rank - at_r
                where = req.weapon_ranks_to.get(sk.name) or ("at" if at_r < pa_r else "pa")
                if where == "at":
                    upd["at_ranks"] = at_r + step
            sk = sk.model_copy(update=upd)
            skills[key] = sk
            if learning:
                order.append(sk.name)
        verb = "learn" if learning else "raise"
        text = f"{verb.capitalize()} {sk.label}: {how}: " + (f"rank {sk.rank}." if ok else "no change.")
        data = {"skill": sk.name, "success": ok, "rank": sk.rank, "target": target}
        events.append(Event("skill-raise", text, 0, c.name, data, rolls))
    c = c.model_copy(
        update={
            "skills": [skills[n.lower()] for n in order],
            "level": lvl,
            "xp": (c.xp - need if hr.xp_surplus_carries else 0) if not req.ignore_xp else c.xp,
        }
    )
    events.insert(0, Event("level", f"{c.name} reaches level {lvl}.", 0, c.name, {"level": lvl}))
    problems = [p for p in validate(c, hr) if p.where.startswith("stats")]
    if problems:
        raise AdvancementError("the level-up breaks the rules: " + "; ".join(map(str, problems)))
    return c, events
