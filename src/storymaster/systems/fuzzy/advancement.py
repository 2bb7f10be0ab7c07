"""Experience: awards and what they buy ("Experience").

Raising a good Ability by one costs 3 x its new level; lowering a Disability
by one costs 3 x its old level; a new voluntary Disability gives what buying a
good Ability to that level would cost; Unluck and Luck move like a bad and a
good Ability (Unluck at least 1, Luck 1 to 5). The GM may veto any change.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...dice import DiceRng
from ...errors import AdvancementError
from ...rules import Event, Model
from .character import REQUIRED, Ability, Disability, FuzzyCharacter, _norm, karma, karma_total
from .options import FuzzyHouseRules

__all__ = [
    "AdvanceRequest",
    "Award",
    "BuyLuck",
    "BuyOffUnluck",
    "LowerDisability",
    "NewAbility",
    "NewDisability",
    "RaiseAbility",
    "RaiseDisability",
    "RaiseUnluck",
    "ReduceLuck",
    "advance",
    "buy_cost",
    "lower_disability_cost",
    "new_disability_award",
    "raise_cost",
]

#: "costs 3 times its new level"
COST_FACTOR = 3


def raise_cost(new_level: int) -> int:
    """Raising a good Ability by one costs 3 times its new level ("Experience")."""
    return COST_FACTOR * new_level


def buy_cost(level: int, start: int = 0) -> int:
    """Experience to buy or improve a good Ability from ``start`` to ``level``, one step at a time."""
    return sum(raise_cost(k) for k in range(start + 1, level + 1))


def lower_disability_cost(old_level: int) -> int:
    """Lowering a Disability by one costs 3 times its old level ("Experience")."""
    return COST_FACTOR * old_level


def new_disability_award(level: int) -> int:
    """A new voluntary Disability gives what buying a good Ability to the same level would cost ("Experience")."""
    return buy_cost(level)


class _Request(Model):
    gm_approved: bool | None = Field(
        None, description="The GM's say: false is a veto ('The GM may veto character changes')."
    )


class Award(_Request):
    action: Literal["award"] = "award"
    points: int = Field(ge=0, le=1000)
    reason: str = ""


class RaiseAbility(_Request):
    action: Literal["raise-ability"] = "raise-ability"
    ability: str
    power: str | None = Field(None, description="For a big magic power: the new big thing the extra die buys.")


class NewAbility(_Request):
    action: Literal["new-ability"] = "new-ability"
    name: str = Field(min_length=1, max_length=80)
    rating: int = Field(1, ge=1, le=100)
    description: str = ""
    big_magic: bool = False
    powers: tuple[str, ...] = ()


class LowerDisability(_Request):
    action: Literal["lower-disability"] = "lower-disability"
    disability: str


class NewDisability(_Request):
    action: Literal["new-disability"] = "new-disability"
    name: str = Field(min_length=1, max_length=80)
    rating: int = Field(1, ge=1, le=100)
    voluntary: bool = Field(True, description="No (unticked) for one gained by the misfortunes of play (no points).")
    hinders: str | None = None
    description: str = ""


class RaiseDisability(_Request):
    action: Literal["raise-disability"] = "raise-disability"
    disability: str
    voluntary: bool = True


class BuyLuck(_Request):
    action: Literal["buy-luck"] = "buy-luck"


class ReduceLuck(_Request):
    action: Literal["reduce-luck"] = "reduce-luck"


class RaiseUnluck(_Request):
    action: Literal["raise-unluck"] = "raise-unluck"


class BuyOffUnluck(_Request):
    action: Literal["buy-off-unluck"] = "buy-off-unluck"


AdvanceRequest = Annotated[
    Award
    | RaiseAbility
    | NewAbility
    | LowerDisability
    | NewDisability
    | RaiseDisability
    | BuyLuck
    | ReduceLuck
    | RaiseUnluck
    | BuyOffUnluck,
    Field(discriminator="action"),
]


def _veto(request: _Request, house: FuzzyHouseRules) -> None:
    """'The GM may veto character changes that he feels would disrupt the game.'"""
    if request.gm_approved is False:
        raise AdvancementError("the GM vetoed this change", hint="the GM may veto changes that would disrupt the game")
    if house.gm_approval_required and request.gm_approved is not True and not isinstance(request, Award):
        raise AdvancementError(
            "this campaign needs the GM's approval for every change", hint="ask the GM, then pass gm_approved: true"
        )


def _pay(c: FuzzyCharacter, cost: int, what: str) -> FuzzyCharacter:
    have = c.experience.unspent
    if cost > have:
        raise AdvancementError(
            f"{what} costs {cost} experience points; {c.name} has {have}", hint="earn more experience first"
        )
    return c.model_copy(update={"experience": c.experience.model_copy(update={"unspent": have - cost})})


def luck_reduction_gain(old_luck: int, house: FuzzyHouseRules) -> int:
    """Points for giving up a Luck die: none by the book (Experience lists no refund for lowering a
    good Ability); 3 x the old level with the house rule ``luck_reduction_refund`` (ruling 12)."""
    return raise_cost(old_luck) if house.luck_reduction_refund else 0


def _gain(c: FuzzyCharacter, points: int) -> FuzzyCharacter:
    e = c.experience
    return c.model_copy(
        update={"experience": e.model_copy(update={"unspent": e.unspent + points, "awarded": e.awarded + points})}
    )


def _with_karma_change(before: FuzzyCharacter, after: FuzzyCharacter, house: FuzzyHouseRules) -> FuzzyCharacter:
    """Keep experience's changes to the dice out of the baseline comparison (ruling, see house rules)."""
    delta = karma_total(after, house) - karma_total(before, house)
    e = after.experience
    return after.model_copy(
        update={"experience": e.model_copy(update={"karma_dice_changed": e.karma_dice_changed + delta})}
    )


def _find_disability(c: FuzzyCharacter, name: str) -> int:
    for i, d in enumerate(c.disabilities):
        if _norm(d.name) == _norm(name):
            return i
    raise AdvancementError(
        f"{c.name} has no Disability called {name!r}",
        hint=f"Disabilities: {', '.join(d.name for d in c.disabilities) or 'none'}",
    )


def advance(
    character: FuzzyCharacter, request: Model, rng: DiceRng | None = None, house: FuzzyHouseRules | None = None
) -> tuple[FuzzyCharacter, list[Event]]:
    """Apply one experience award or purchase; return the new character and what happened."""
    house = house or FuzzyHouseRules()
    _veto(request, house)  # type: ignore[arg-type]
    c = character
    if isinstance(request, Award):
        new = _gain(c, request.points)
        why = f" ({request.reason})" if request.reason else ""
        return new, [
            Event(
                "award",
                f"{c.name} is awarded {request.points} experience points{why}.",
                data={"points": request.points},
            )
        ]
    if isinstance(request, RaiseAbility):
        key = _norm(request.ability)
        if key in REQUIRED:
            old = getattr(c.required, key)
            cost = raise_cost(old + 1)
            new = _pay(c, cost, f"raising {key.capitalize()} to {old + 1}")
            new = new.model_copy(update={"required": c.required.model_copy(update={key: old + 1})})
            text = f"{c.name} raises {key.capitalize()} from {old} to {old + 1} for {cost} points (3 x {old + 1})."
        else:
            idx = next((i for i, a in enumerate(c.abilities) if _norm(a.name) == key), None)
            if idx is None:
                if key in ("luck", "unluck"):
                    raise AdvancementError(
                        f"{request.ability} is not raised like an Ability", hint="use buy-luck or raise-unluck"
                    )
                raise AdvancementError(
                    f"{c.name} has no Ability called {request.ability!r}", hint="use new-ability to buy one"
                )
            a = c.abilities[idx]
            cost = raise_cost(a.rating + 1)
            powers = a.powers
            if a.big_magic:
                if not request.power:
                    raise AdvancementError(
                        f"{a.name} is a big magic power: each new die buys one big thing",
                        hint="name the new power (--power)",
                    )
                powers = (*powers, request.power)
            new = _pay(c, cost, f"raising {a.name} to {a.rating + 1}")
            abilities = list(c.abilities)
            abilities[idx] = a.model_copy(update={"rating": a.rating + 1, "powers": powers})
            new = new.model_copy(update={"abilities": tuple(abilities)})
            text = f"{c.name} raises {a.name} from {a.rating} to {a.rating + 1} for {cost} points (3 x {a.rating + 1})."
        return _with_karma_change(c, new, house), [Event("raise", text, data={"cost": cost})]
    if isinstance(request, NewAbility):
        names = (
            set(REQUIRED)
            | {_norm(a.name) for a in c.abilities}
            | {_norm(d.name) for d in c.disabilities}
            | {"luck", "unluck"}
        )
        if _norm(request.name) in names:
            raise AdvancementError(f"{c.name} already has {request.name!r}", hint="raise it instead")
        if request.big_magic and len(request.powers) != request.rating:
            raise AdvancementError(
                f"a big magic power of {request.rating} names {request.rating} powers, not {len(request.powers)}"
            )
        cost = buy_cost(request.rating)
        new = _pay(c, cost, f"a new Ability {request.name} {request.rating}")
        ability = Ability(
            name=request.name,
            rating=request.rating,
            description=request.description,
            big_magic=request.big_magic,
            powers=request.powers,
        )
        new = new.model_copy(update={"abilities": (*c.abilities, ability)})
        return _with_karma_change(c, new, house), [
            Event(
                "new-ability",
                f"{c.name} learns {request.name} {request.rating} for {cost} points.",
                data={"cost": cost},
            )
        ]
    if isinstance(request, LowerDisability):
        i = _find_disability(c, request.disability)
        d = c.disabilities[i]
        cost = lower_disability_cost(d.rating)
        new = _pay(c, cost, f"lowering {d.name} from {d.rating}")
        dis = list(c.disabilities)
        if d.rating - 1 <= 0:
            del dis[i]
            text = f"{c.name} sheds {d.name} entirely for {cost} points (3 x {d.rating})."
        else:
            dis[i] = d.model_copy(update={"rating": d.rating - 1})
            text = f"{c.name} lowers {d.name} from {d.rating} to {d.rating - 1} for {cost} points (3 x {d.rating})."
        new = new.model_copy(update={"disabilities": tuple(dis)})
        return _with_karma_change(c, new, house), [Event("lower-disability", text, data={"cost": cost})]
    if isinstance(request, NewDisability):
        names = (
            set(REQUIRED)
            | {_norm(a.name) for a in c.abilities}
            | {_norm(d.name) for d in c.disabilities}
            | {"luck", "unluck"}
        )
        if _norm(request.name) in names:
            raise AdvancementError(
                f"{c.name} already has {request.name!r}", hint="use raise-disability for a worse one"
            )
        gain = new_disability_award(request.rating) if request.voluntary else 0
        d = Disability(
            name=request.name,
            rating=request.rating,
            hinders=request.hinders,
            description=request.description,
            from_misfortune=not request.voluntary,
        )
        new = c.model_copy(update={"disabilities": (*c.disabilities, d)})
        new = _gain(new, gain) if gain else new
        why = "voluntary" if request.voluntary else "from the misfortunes of play, so no points"
        return _with_karma_change(c, new, house), [
            Event(
                "new-disability", f"{c.name} takes {d.name} {d.rating} ({why}): +{gain} points.", data={"points": gain}
            )
        ]
    if isinstance(request, RaiseDisability):
        i = _find_disability(c, request.disability)
        d = c.disabilities[i]
        gain = raise_cost(d.rating + 1) if request.voluntary else 0
        dis = list(c.disabilities)
        dis[i] = d.model_copy(update={"rating": d.rating + 1})
        new = c.model_copy(update={"disabilities": tuple(dis)})
        new = _gain(new, gain) if gain else new
        return _with_karma_change(c, new, house), [
            Event(
                "raise-disability",
                f"{c.name}'s {d.name} worsens to {d.rating + 1}: +{gain} points.",
                data={"points": gain},
            )
        ]
    k = karma(c, house)
    e = c.experience
    if isinstance(request, BuyLuck):
        if k.luck >= house.luck_cap:
            raise AdvancementError(
                f"{c.name} already has {k.luck} Luck, the most allowed", hint=f"Luck goes up to {house.luck_cap}"
            )
        cost = raise_cost(k.luck + 1)
        new = _pay(c, cost, f"Luck {k.luck + 1}")
        new = new.model_copy(
            update={"experience": new.experience.model_copy(update={"luck_bought": e.luck_bought + 1})}
        )
        return new, [
            Event("buy-luck", f"{c.name} buys Luck {k.luck} -> {k.luck + 1} for {cost} points.", data={"cost": cost})
        ]
    if isinstance(request, ReduceLuck):
        if k.luck <= 1:
            raise AdvancementError(f"{c.name} has {k.luck} Luck; it cannot be reduced below 1")
        gain = luck_reduction_gain(k.luck, house)
        new = _gain(c, gain)
        new = new.model_copy(
            update={"experience": new.experience.model_copy(update={"luck_bought": e.luck_bought - 1})}
        )
        return new, [
            Event(
                "reduce-luck",
                f"{c.name} gives up a Luck die ({k.luck} -> {k.luck - 1}): +{gain} points"
                + ("." if house.luck_reduction_refund else " (no refund: house rule luck_reduction_refund is off)."),
                data={"points": gain},
            )
        ]
    if isinstance(request, RaiseUnluck):
        gain = raise_cost(k.unluck + 1)
        new = _gain(c, gain)
        new = new.model_copy(
            update={"experience": new.experience.model_copy(update={"unluck_changed": e.unluck_changed + 1})}
        )
        return new, [
            Event(
                "raise-unluck",
                f"{c.name} takes on more Unluck ({k.unluck} -> {k.unluck + 1}): +{gain} points.",
                data={"points": gain},
            )
        ]
    if isinstance(request, BuyOffUnluck):
        if k.unluck <= 1:
            raise AdvancementError(f"{c.name} has {k.unluck} Unluck; it can be bought off only down to 1")
        cost = lower_disability_cost(k.unluck)
        new = _pay(c, cost, f"buying off Unluck {k.unluck}")
        new = new.model_copy(
            update={"experience": new.experience.model_copy(update={"unluck_changed": e.unluck_changed - 1})}
        )
        return new, [
            Event(
                "buy-off-unluck",
                f"{c.name} buys off a die of Unluck ({k.unluck} -> {k.unluck - 1}) for {cost} points.",
                data={"cost": cost},
            )
        ]
    raise AdvancementError(f"the fuzzy system does not know the advancement {type(request).__name__}")
