"""Part Six, Advancement: skill points per session, spent on skills or saved for stats (4 points each)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...errors import AdvancementError
from ...rules import Event, Model
from .character import BumCharacter, Skill, Stat, find_skill
from .options import BumHouseRules

__all__ = ["AdvanceRequest", "AwardPoints", "BuySkill", "BuyStat", "advance"]


class AwardPoints(Model):
    """End of a session: the GM awards skill points (Part Six: 'One to two ... is a good reward')."""

    kind: Literal["award"] = "award"
    points: int = Field(ge=0, le=100)
    used_skills: tuple[str, ...] = Field((), description="skills used this session (for 'A is for Axe')")


class BuySkill(Model):
    """Put saved skill points into a skill (a new one needs its governing stat)."""

    kind: Literal["skill"] = "skill"
    skill: str = Field(min_length=1, max_length=80)
    points: int = Field(1, ge=1, le=20)
    stat: Stat | None = Field(None, description="governing stat, for a new skill")
    teacher: bool = Field(False, description="a teacher or tutor helped ('A is for Axe')")


class BuyStat(Model):
    """Raise a stat by 1 for 4 skill points, once per stat per game, within the body's limits."""

    kind: Literal["stat"] = "stat"
    stat: Stat


AdvanceRequest = Annotated[AwardPoints | BuySkill | BuyStat, Field(discriminator="kind")]


def award(c: BumCharacter, req: AwardPoints) -> tuple[BumCharacter, list[Event]]:
    """Part Six: points can go straight into skills or be saved; they are banked here until spent."""
    new = c.model_copy(
        update={
            "skill_points_earned": c.skill_points_earned + req.points,
            "banked_skill_points": c.banked_skill_points + req.points,
            "session_skills_used": tuple(req.used_skills),
        }
    )
    return new, [
        Event(
            "award",
            f"{c.name} earns {req.points} skill point(s); {new.banked_skill_points} to spend.",
            data={"points": req.points},
        ),
    ]


def buy_skill(c: BumCharacter, req: BuySkill, hr: BumHouseRules) -> tuple[BumCharacter, list[Event]]:
    """Part Six; the cap at the governing stat (Part Three) and 'A is for Axe' (optional) apply."""
    if req.points > c.banked_skill_points:
        raise AdvancementError(
            f"{c.name} has {c.banked_skill_points} skill point(s) saved; {req.skill} needs {req.points}",
            hint="award points first (storymaster bum award)",
        )
    existing = find_skill(c, req.skill)
    if hr.a_is_for_axe and not req.teacher:
        used = {s.casefold() for s in c.session_skills_used}
        if req.skill.casefold() not in used:
            raise AdvancementError(
                f"'A is for Axe': {req.skill} was not used last session",
                hint="spend the points on a skill that was used, or find a teacher (--teacher)",
            )
    if existing is None:
        if req.stat is None:
            raise AdvancementError(f"{req.skill} is a new skill: say which stat governs it", hint="e.g. --stat DEX")
        skill = Skill(name=req.skill, stat=req.stat, points=req.points)
        skills = (*c.skills, skill)
    else:
        if req.stat is not None and req.stat != existing.stat:
            raise AdvancementError(f"{existing.name} is governed by {existing.stat}, not {req.stat}")
        skill = existing.model_copy(update={"points": existing.points + req.points})
        skills = tuple(skill if s is existing else s for s in c.skills)
    cap = c.stats.get(skill.stat)
    if hr.skill_cap_at_stat and skill.points > cap:
        raise AdvancementError(
            f"{skill.name} would be {skill.points}, above its governing {skill.stat} of {cap}",
            hint="raise the stat first, or switch off the house rule skill_cap_at_stat",
        )
    new = c.model_copy(update={"skills": skills, "banked_skill_points": c.banked_skill_points - req.points})
    return new, [
        Event(
            "skill",
            f"{c.name} raises {skill.name} to {skill.points}.",
            data={"skill": skill.name, "points": skill.points},
        ),
    ]


def buy_stat(c: BumCharacter, req: BuyStat, hr: BumHouseRules) -> tuple[BumCharacter, list[Event]]:
    """Part Six: a stat point costs 4 skill points; each stat rises by 1 at most in a game; the body sets a limit."""
    if c.banked_skill_points < hr.stat_cost:
        raise AdvancementError(
            f"a stat point costs {hr.stat_cost} skill points; {c.name} has {c.banked_skill_points} saved",
            hint="save up skill points from more sessions",
        )
    if c.raised_stats.count(req.stat) >= hr.stat_raises_per_game:
        raise AdvancementError(
            f"{c.name} has already raised {req.stat} in this game", hint="each stat can rise by 1 per game (Part Six)"
        )
    value = c.stats.get(req.stat) + 1
    if value > hr.stat_max:
        raise AdvancementError(
            f"{req.stat} {value} is beyond the body's limit of {hr.stat_max}", hint="house rule stat_max"
        )
    stats = c.stats.model_copy(update={req.stat: value})
    new = c.model_copy(
        update={
            "stats": stats,
            "raised_stats": (*c.raised_stats, req.stat),
            "banked_skill_points": c.banked_skill_points - hr.stat_cost,
        }
    )
    extra = " (and one more wound he can take)" if req.stat == "STR" else ""
    return new, [
        Event(
            "stat",
            f"{c.name} raises {req.stat} to {value} for {hr.stat_cost} skill points{extra}.",
            data={"stat": req.stat, "value": value},
        ),
    ]


def advance(
    c: BumCharacter, req: AwardPoints | BuySkill | BuyStat, hr: BumHouseRules | None = None
) -> tuple[BumCharacter, list[Event]]:
    hr = hr or BumHouseRules()
    if isinstance(req, AwardPoints):
        return award(c, req)
    if isinstance(req, BuySkill):
        return buy_skill(c, req, hr)
    if isinstance(req, BuyStat):
        return buy_stat(c, req, hr)
    raise AdvancementError(f"unknown advancement {type(req).__name__}", hint="award, skill or stat")
