"""Character advancement (Kalyr RPG ch. 3, Character Advancement) and the other changes to a sheet
between contests: Fudge points, wounds, healing, scene and session ends. Each is a request; the
:func:`advance` dispatcher returns the new character and the events that explain it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...errors import AdvancementError, CheckError
from ...rules.models import Model
from ...rules.protocol import Event
from .character import Ability, Character, Connection, Key, Lifepath, find_ability
from .damage import end_scene, heal, rest, take_wound
from .data_files import table
from .fudge import FudgeUse, convert_at_session_end, gain_for_key, spend
from .ladder import MEDIOCRE, SUPERB, Level, level_name, parse_level
from .options import KalyrHouseRules
from .wounds import Severity, TrackName

__all__ = [
    "AddKey",
    "AdvanceRequest",
    "Buy",
    "EndScene",
    "EndSession",
    "GainFudge",
    "Heal",
    "Purchase",
    "Rest",
    "SpendFudge",
    "TakeWound",
    "advance",
    "purchase_cost",
]

_DATA = table("advancement")


class Purchase(Model):
    """One thing bought with experience: raise (or gain) an ability or connection one level, or a new Key."""

    target: Literal["ability", "connection", "key"] = "ability"
    name: str = Field(min_length=1)
    kind: Literal["mundane", "psionic"] = "mundane"
    track: TrackName = "physical"
    power: str | None = None
    key_kind: str = ""


class Buy(Model):
    """Spend experience at the end of a scene (one level per ability per scene)."""

    action: Literal["buy"] = "buy"
    purchases: tuple[Purchase, ...] = Field(min_length=1)
    lifepath_name: str = "Experience"


class SpendFudge(Model):
    action: Literal["spend_fudge"] = "spend_fudge"
    use: FudgeUse
    vetoed: bool = False


class GainFudge(Model):
    action: Literal["gain_fudge"] = "gain_fudge"
    key: str


class EndScene(Model):
    action: Literal["end_scene"] = "end_scene"


class EndSession(Model):
    action: Literal["end_session"] = "end_session"
    convert: int = Field(0, ge=0, description="unspent Fudge points spent for experience; the rest carry over")


class AddKey(Model):
    """Take the new Key owed for being Destroyed (free; the player picks one tied to the conflict)."""

    action: Literal["add_key"] = "add_key"
    key: Key


class TakeWound(Model):
    action: Literal["wound"] = "wound"
    track: TrackName = "physical"
    severity: Severity
    fudge_reduce: int = Field(0, ge=0)


class Heal(Model):
    action: Literal["heal"] = "heal"
    track: TrackName = "physical"
    result: Level
    method: Literal["medical", "psionic"] = "medical"


class Rest(Model):
    action: Literal["rest"] = "rest"
    weeks: int = Field(1, ge=0)


AdvanceRequest = Annotated[
    Buy | SpendFudge | GainFudge | EndScene | EndSession | AddKey | TakeWound | Heal | Rest,
    Field(discriminator="action"),
]


def purchase_cost(character: Character, p: Purchase) -> tuple[int, int | None, int]:
    """(cost, level before or None for new, level after) from the cost table (Character Advancement)."""
    if p.target == "key":
        return int(_DATA["new_key_cost"]), None, 0
    rows = _DATA["purchases"]
    if p.target == "ability":
        have = find_ability(character, p.name)
        kind = have.kind if have else p.kind
        current = have.level if have else None
    else:
        have_c = next((c for c in character.connections if c.organisation.lower() == p.name.lower()), None)
        kind = "connection"
        current = have_c.level if have_c else None
    if current is None:
        row = next(
            r for r in rows if r["from"] is None and r["kind"] == (kind if p.target == "ability" else "connection")
        )
        return int(row["cost"]), None, parse_level(row["to"])
    if current >= SUPERB:
        raise AdvancementError(f"{p.name} is already Superb, the top of the ladder")
    if current < MEDIOCRE:
        if kind == "psionic":
            row = next(r for r in rows if r["kind"] == "psionic" and r["from"] == level_name(current))
            return int(row["cost"]), current, parse_level(row["to"])
        # a mundane ability below Mediocre is raised to Mediocre like gaining it (ruling K18)
        return int(next(r for r in rows if r["id"] == "new_mundane")["cost"]), current, MEDIOCRE
    row = next(r for r in rows if r["kind"] == "any" and r["from"] == level_name(current))
    return int(row["cost"]), current, parse_level(row["to"])


def _buy(character: Character, req: Buy, hr: KalyrHouseRules) -> tuple[Character, list[Event]]:
    if not hr.advancement:
        raise AdvancementError("character advancement is switched off in the house rules")
    events: list[Event] = []
    seen = {n.lower() for n in character.raised_this_scene}
    abilities = list(character.abilities)
    connections = list(character.connections)
    keys = list(character.keys)
    total = 0
    levels = 0
    raised = list(character.raised_this_scene)
    current = character
    for p in req.purchases:
        cost, before, after = purchase_cost(current, p)
        if p.target != "key":
            tag = f"{p.target}:{p.name.lower()}"
            if tag in seen:
                raise AdvancementError(
                    f"{p.name} was already raised this scene",
                    hint="one level per ability per scene; raise it again after another scene",
                )
            seen.add(tag)
            raised.append(tag)
            levels += 1
        if p.target == "ability":
            if (
                before is None
                and p.kind == "psionic"
                and (p.power is None or p.power.lower() not in {x.lower() for x in character.powers})
            ):
                raise AdvancementError(
                    f"a new psionic ability needs its power, which {character.name} does not have: {p.power!r}"
                )
            have = find_ability(current, p.name)
            if have is None:
                abilities.append(
                    Ability(
                        name=p.name,
                        level=after,
                        kind=p.kind,
                        track=p.track if p.kind == "mundane" else "mental",
                        power=p.power,
                    )
                )
            else:
                abilities = [a.model_copy(update={"level": after}) if a is have else a for a in abilities]
        elif p.target == "connection":
            idx = next((i for i, c in enumerate(connections) if c.organisation.lower() == p.name.lower()), None)
            if idx is None:
                connections.append(Connection(organisation=p.name, level=after))
            else:
                connections[idx] = connections[idx].model_copy(update={"level": after})
        else:
            if p.name.lower() in {k.name.lower() for k in keys}:
                raise AdvancementError(f"{character.name} already has the Key {p.name!r}")
            keys.append(Key(name=p.name, kind=p.key_kind))
        total += cost
        what = (
            f"new Key {p.name}"
            if p.target == "key"
            else (
                f"{p.name} {level_name(before)} -> {level_name(after)}"
                if before is not None
                else f"new {p.target} {p.name} at {level_name(after)}"
            )
        )
        events.append(
            Event(
                "purchase",
                f"{what}: {cost} XP",
                actor=character.name,
                data={"cost": cost, "target": p.target, "name": p.name},
            )
        )
        current = current.model_copy(
            update={"abilities": tuple(abilities), "connections": tuple(connections), "keys": tuple(keys)}
        )
    if total > character.experience:
        raise AdvancementError(f"these purchases cost {total} XP; {character.name} has {character.experience}")
    gained = character.levels_gained + levels
    lifepaths = list(character.lifepaths)
    per = int(_DATA["levels_per_lifepath"])
    while gained >= per:
        gained -= per
        lifepaths.append(Lifepath(name=req.lifepath_name, kind="experience"))
        events.append(
            Event(
                "lifepath",
                f"{per} levels gained: new Lifepath (Experience) {req.lifepath_name!r}",
                actor=character.name,
            )
        )
    new = current.model_copy(
        update={
            "experience": character.experience - total,
            "levels_gained": gained,
            "lifepaths": tuple(lifepaths),
            "raised_this_scene": tuple(raised),
        }
    )
    return new, events


def advance(
    character: Character, request: Model, house_rules: KalyrHouseRules | None = None
) -> tuple[Character, list[Event]]:
    """Apply one request to the character; return the new character and what happened."""
    hr = house_rules or KalyrHouseRules()
    who = character.name
    try:
        if isinstance(request, Buy):
            return _buy(character, request, hr)
        if isinstance(request, SpendFudge):
            new = spend(character, request.use, vetoed=request.vetoed, advancement=hr.advancement)
            text = (
                f"{who}: the GM vetoes the story change; no Fudge point spent"
                if request.vetoed
                else (f"{who} spends a Fudge point ({request.use}); {new.fudge_points} left, {new.experience} XP")
            )
            return new, [Event("fudge", text, actor=who, data={"use": request.use})]
        if isinstance(request, GainFudge):
            new = gain_for_key(character, request.key)
            return new, [
                Event(
                    "fudge", f"{who}'s Key {request.key} came into play: +1 Fudge point ({new.fudge_points})", actor=who
                )
            ]
        if isinstance(request, EndScene):
            new = end_scene(character)
            return new, [Event("scene", f"end of scene: {who}'s Scratches clear", actor=who)]
        if isinstance(request, EndSession):
            new = convert_at_session_end(character, request.convert, advancement=hr.advancement)
            return new, [
                Event(
                    "session",
                    f"end of session: {request.convert} Fudge point(s) spent for XP, {new.fudge_points} carried over",
                    actor=who,
                )
            ]
        if isinstance(request, AddKey):
            if character.keys_due < 1:
                raise AdvancementError(f"{who} is owed no Key", hint="buy a Key for 6 XP instead")
            if request.key.name.lower() in {k.name.lower() for k in character.keys}:
                raise AdvancementError(f"{who} already has the Key {request.key.name!r}")
            new = character.model_copy(
                update={"keys": (*character.keys, request.key), "keys_due": character.keys_due - 1}
            )
            return new, [Event("key", f"{who} gains the Key {request.key.name} after being Destroyed", actor=who)]
        if isinstance(request, TakeWound):
            new, rep = take_wound(
                character,
                request.track,
                request.severity,
                fudge_reduce=request.fudge_reduce,
                advancement=hr.advancement,
            )
            return new, [
                Event(
                    "wound",
                    rep.text(who),
                    actor=who,
                    data={"track": request.track, "severity": rep.severity, "box": rep.box},
                )
            ]
        if isinstance(request, Heal):
            new, levels, time, unit = heal(character, request.track, request.result, method=request.method)
            text = (
                f"a {level_name(request.result)} {request.method} healing heals {who}'s {request.track} "
                f"wounds {levels} level(s)"
            )
            text += f", taking effect after {time} {unit if time != 1 else unit[:-1]}" if levels and time else ""
            return new, [Event("heal", text, actor=who, data={"levels": levels, "time": time, "unit": unit})]
        if isinstance(request, Rest):
            new = rest(character, request.weeks)
            return new, [
                Event(
                    "rest",
                    f"{who} rests {request.weeks} week(s): every wound heals {request.weeks} level(s)",
                    actor=who,
                )
            ]
    except CheckError as exc:
        raise AdvancementError(exc.message, hint=exc.hint) from None
    raise AdvancementError(f"kalyr has no advancement {type(request).__name__}")
