"""Experience and Deterioration (BLYSS 3.5, Rules for Living: Experience; Deterioration)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...errors import AdvancementError
from ...rules.models import Model
from ...rules.protocol import Event
from .character import ATTRIBUTES, Character, Trait, cp_left, trait_cp
from .costs import cp_to_rank, cumulative_cost
from .options import BlyssHouseRules
from .tables import table

__all__ = ["Advancement", "AwardExperience", "Deteriorate", "SpendCP", "advance", "experience_award"]


class AwardExperience(Model):
    """The SM's award at the end of a Chapter or session (Experience)."""

    kind: Literal["award"] = "award"
    challenges: int = Field(0, ge=0, le=20, description="very challenging experiences (+1 CP each)")
    roleplaying: int = Field(0, ge=0, le=3, description="good roleplaying (+1 to 3 CP)")
    learned: bool = Field(False, description="the player explained something the character learned (+1 CP)")


class SpendCP(Model):
    """Spend earned CP on an Attribute, a Trait (new or existing) or extra Dodges/Flesh Wounds/Health.

    Partial purchases are fine: the CP are noted towards the next rank (Experience)."""

    kind: Literal["spend"] = "spend"
    target: str = Field(
        ..., min_length=1, description="an Attribute, a Trait's name, or Dodges / Flesh Wounds / Health"
    )
    cp: int = Field(..., ge=1, le=1000)
    new_trait: Literal["skill", "talent", "natural"] | None = Field(None, description="kind, when buying a new Trait")


class AcquireNegative(Model):
    """A negative Trait picked up after creation: it grants no CP (Traits)."""

    kind: Literal["negative"] = "negative"
    name: str = Field(..., min_length=1)
    trait_kind: Literal["skill", "talent", "natural"] = "skill"
    rank: int = Field(1, ge=1, le=10)


class Deteriorate(Model):
    """A Trait left unused loses 2 CP per increment of time (Deterioration, at the SM's option)."""

    kind: Literal["deteriorate"] = "deteriorate"
    target: str = Field(..., min_length=1)
    increments: int = Field(1, ge=1, le=100)


Advancement = Annotated[AwardExperience | SpendCP | AcquireNegative | Deteriorate, Field(discriminator="kind")]


def experience_award(a: AwardExperience) -> int:
    """3 CP always, +1 per very challenging experience, +1-3 for good roleplaying, +1 for something learned
    (Experience).
    """
    return 3 + a.challenges + a.roleplaying + (1 if a.learned else 0)


_EXTRAS = {
    "dodges": ("extra_dodges", "dodges"),
    "flesh wounds": ("extra_flesh_wounds", "flesh_wounds"),
    "health": ("extra_health", "health"),
}


def _spend(c: Character, req: SpendCP, hr: BlyssHouseRules) -> tuple[Character, str]:
    left = cp_left(c, hr)
    if req.cp > left:
        raise AdvancementError(f"{c.name} has {left} CP to spend, not {req.cp}", hint="award Experience first")
    name = req.target.strip()
    low = name.lower()
    if low in _EXTRAS:
        field, key = _EXTRAS[low]
        each = int(table("costs")["extras"][key]["cost"])
        if req.cp % each:
            raise AdvancementError(f"extra {name} cost {each} CP each; spend a multiple of {each}")
        n = req.cp // each
        return c.model_copy(update={field: getattr(c, field) + n}), f"buys {n} extra {name} for {req.cp} CP"
    for book, field in ATTRIBUTES.items():
        if low == book.lower():
            total = cumulative_cost("attribute", c.attributes.of(book)) + c.attribute_progress.get(book, 0) + req.cp
            rank, progress = cp_to_rank("attribute", total)
            attrs = c.attributes.model_copy(update={field: rank})
            prog = dict(c.attribute_progress)
            if progress:
                prog[book] = progress
            else:
                prog.pop(book, None)
            return c.model_copy(
                update={"attributes": attrs, "attribute_progress": prog}
            ), f"puts {req.cp} CP into {book}: rank {rank}" + (f", {progress} CP towards the next" if progress else "")
    t = c.trait(name)
    traits = list(c.traits)
    if t is None:
        if req.new_trait is None:
            raise AdvancementError(
                f"{c.name} has no Trait or Attribute called {name!r}",
                hint="to buy a new Trait, say which kind it is (skill, talent or natural)",
            )
        if low in {"melee attack", "ranged attack", "defence", "defense", "initiative", "movement"}:
            raise AdvancementError(f"{name} is a Derived Attribute and cannot be bought")
        t = Trait(name=name, kind=req.new_trait, rank=0)
        traits.append(t)
    if t.negative:
        raise AdvancementError(f"{t.name} is a negative Trait; CP are not spent on it")
    if t.single_advantage:
        raise AdvancementError(f"{t.name} is a single-advantage Natural and cannot be improved (Natural Traits)")
    base = cumulative_cost(t.kind, t.rank) + t.progress + req.cp
    rank, progress = cp_to_rank(t.kind, base)
    new = t.model_copy(update={"rank": rank, "progress": progress})
    traits = [new if x.name == t.name else x for x in traits]
    return c.model_copy(update={"traits": tuple(traits)}), f"puts {req.cp} CP into {t.name}: rank {rank}" + (
        f", {progress} CP towards the next" if progress else ""
    )


def _deteriorate(c: Character, req: Deteriorate, hr: BlyssHouseRules) -> tuple[Character, str]:
    """Lose 2 CP from the Trait per increment; below the rank's minimum the rank drops (Deterioration).
    The CP are gone from the sheet (and from the budget): only new Experience buys them back."""
    t = c.trait(req.target)
    if t is None:
        raise AdvancementError(f"{c.name} has no Trait called {req.target!r} (Deterioration applies to Traits)")
    if t.single_advantage:
        raise AdvancementError(f"{t.name} is a single-advantage Natural, not subject to Deterioration (Natural Traits)")
    if t.negative:
        raise AdvancementError(f"{t.name} is a negative Trait; Deterioration wears away abilities, not flaws")
    loss = 2 * req.increments
    held = cumulative_cost(t.kind, t.rank) + t.progress
    after = max(0, held - loss)
    rank, progress = cp_to_rank(t.kind, after)
    new = t.model_copy(update={"rank": rank, "progress": progress})
    lost = held - after
    c2 = c.model_copy(
        update={"traits": tuple(new if x.name == t.name else x for x in c.traits), "cp_budget": c.cp_budget - lost}
    )
    return c2, f"{t.name} deteriorates by {lost} CP: rank {t.rank} -> {rank}" + (
        f" ({progress} CP into the next)" if progress else ""
    )


def advance(c: Character, req: object, hr: BlyssHouseRules | None = None) -> tuple[Character, list[Event]]:
    """Apply an award, a purchase, a later negative Trait or a Deterioration; return the new sheet and what happened."""
    hr = hr or BlyssHouseRules()
    if isinstance(req, AwardExperience):
        n = experience_award(req)
        new = c.model_copy(update={"cp_earned": c.cp_earned + n})
        return new, [
            Event(
                "experience",
                f"{c.name} earns {n} CP (3 + {req.challenges} challenge + {req.roleplaying} "
                f"roleplaying + {int(req.learned)} learned); {cp_left(new, hr)} CP to spend.",
                actor=c.name,
                data={"cp": n, "cp_left": cp_left(new, hr)},
            )
        ]
    if isinstance(req, SpendCP):
        new, text = _spend(c, req, hr)
        return new, [
            Event(
                "spend",
                f"{c.name} {text}; {cp_left(new, hr)} CP left.",
                actor=c.name,
                data={"target": req.target, "cp": req.cp, "cp_left": cp_left(new, hr)},
            )
        ]
    if isinstance(req, AcquireNegative):
        if c.trait(req.name):
            raise AdvancementError(f"{c.name} already has a Trait called {req.name!r}")
        t = Trait(name=req.name, kind=req.trait_kind, rank=req.rank, negative=True, acquired_after_creation=True)
        assert trait_cp(t, hr) == 0
        new = c.model_copy(update={"traits": (*c.traits, t)})
        return new, [
            Event(
                "negative",
                f"{c.name} acquires the negative Trait {req.name} (rank {req.rank}); it grants no CP after creation.",
                actor=c.name,
            )
        ]
    if isinstance(req, Deteriorate):
        new, text = _deteriorate(c, req, hr)
        return new, [Event("deteriorate", f"{c.name}: {text}.", actor=c.name)]
    raise AdvancementError(f"unknown advancement {type(req).__name__}")
