"""A fight attached to a scene: the system's combat engine, its state kept as JSON on the log.

``start`` is deterministic (no dice), so the state's class is recovered by
starting again from the same sides; every ``step`` draws from the scene's
committed stream like any roll, so fights verify and replay like posts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ..dice import DiceRng
from ..errors import InputFileError
from ..rules import FightTracker, RuleSystem, validate_data
from .campaign import GM, CampaignState
from .errors import Conflict, Forbidden, Invalid
from .log import ALL, Draft
from .rolling import call_system, scene_stream, stored_record
from .scene import SceneState

__all__ = ["fight_story", "initiative_order", "start_combat", "step_combat", "tracker_rows"]

_ORDER_FIELDS = ("initiative_order", "turn_order", "initiative", "order")


def _models(c: CampaignState, system: RuleSystem, sides: Sequence[Sequence[int]]) -> list[list[BaseModel]]:
    out = []
    for side in sides:
        team = []
        for ch in side:
            character = c.character(ch)
            try:
                team.append(validate_data(dict(character.sheet), system.character_model, source=character.name))
            except InputFileError as exc:
                raise Invalid(exc.message) from None
        out.append(team)
    return out


def _character_ids(engine_names: Sequence[str], flat: Sequence[int], names: Mapping[int, str]) -> dict[str, int]:
    """Each engine name's character id: the same name first, else a name the engine suffixed
    to tell namesakes apart ("Guard #2", "Goblin (2)"); each character is used once."""
    out: dict[str, int] = {}
    free = list(flat)

    def fits(n: str, ch: int, exact: bool) -> bool:
        own = names.get(ch)
        return own is not None and (own == n or (not exact and n.startswith(own)))

    for exact in (True, False):
        for n in engine_names:
            if n in out:
                continue
            ch = next((ch for ch in free if fits(n, ch, exact)), None)
            if ch is not None:
                out[n] = ch
                free.remove(ch)
    return out


def _probed_order(state: BaseModel, flat: Sequence[int], names: Mapping[int, str]) -> list[int]:
    """The old guess, for engines that are not a FightTracker: an order field by a likely name."""
    for attr in _ORDER_FIELDS:
        value = getattr(state, attr, None)
        if callable(value):
            try:
                value = value()
            except TypeError:
                continue
        if not isinstance(value, (list, tuple)) or not value:
            continue
        order: list[int] = []
        for item in value:
            name = item if isinstance(item, str) else getattr(item, "name", None)
            if isinstance(item, int) and not isinstance(item, bool) and 0 <= item < len(flat):
                order.append(flat[item])
            elif name is not None:
                order += [ch for ch in flat if names.get(ch) == name and ch not in order][:1]
        if order:
            return order
    return []


def initiative_order(
    state: BaseModel, sides: Sequence[Sequence[int]], names: Mapping[int, str], engine: Any = None
) -> list[int]:
    """Character ids in acting order: the engine's own when it is a FightTracker, else guessed from
    the state (by name or index). Only those the engine orders: empty where the system has no
    acting order (both sides roll at once), so nobody is shown as "acting next" by mistake; a
    turn-based scene's posting order adds the rest of the cast after it (SceneState.turn_order)."""
    flat = [ch for side in sides for ch in side]
    if isinstance(engine, FightTracker):
        by_name = engine.initiative_order(state)
        ids = _character_ids([r.name for r in engine.tracker(state)] + list(by_name), flat, names)
        order = list(dict.fromkeys(ids[n] for n in by_name if n in ids))
    else:
        order = _probed_order(state, flat, names)
    return order


def tracker_rows(
    state: BaseModel, sides: Sequence[Sequence[int]], names: Mapping[int, str], engine: Any
) -> list[dict[str, Any]]:
    """The engine's tracker rows as JSON, each with its ``character`` id (None if unmatched); empty
    for engines that are not a FightTracker."""
    if not isinstance(engine, FightTracker):
        return []
    rows = engine.tracker(state)
    ids = _character_ids([r.name for r in rows], [ch for side in sides for ch in side], names)
    return [{**row.to_json(), "character": ids.get(row.name)} for row in rows]


def _fight_view(
    system: RuleSystem, state: BaseModel, sides: Sequence[Sequence[int]], names: Mapping[int, str]
) -> dict[str, Any]:
    engine = system.combat
    return {
        "order": call_system(system, "give the acting order", initiative_order, state, sides, names, engine),
        "tracker": call_system(system, "track the fight", tracker_rows, state, sides, names, engine),
    }


def _rules(c: CampaignState, system: RuleSystem) -> Any:
    return system.house_rules_model.model_validate(c.house_rules)


def _fighters(system: RuleSystem, state: BaseModel, sides: Sequence[Sequence[int]], c: CampaignState) -> dict[str, int]:
    """Each engine combatant's character id (engines that are FightTrackers name their combatants)."""
    engine = system.combat
    if not isinstance(engine, FightTracker):
        return {}
    rows = call_system(system, "track the fight", engine.tracker, state)
    names = {ch: c.characters[ch].name for side in sides for ch in side}
    return _character_ids([r.name for r in rows], [ch for side in sides for ch in side], names)


def _fresh(c: CampaignState, system: RuleSystem, sides: Sequence[Sequence[int]], options: Mapping[str, Any]) -> Any:
    """The fight as the engine starts it, then with each combatant's current condition (fights start
    where the characters are: yesterday's wounds still hurt)."""
    from .living import into_fight

    state = call_system(
        system,
        "start the fight",
        system.combat.start,
        _models(c, system, sides),
        house_rules=_rules(c, system),
        options=dict(options),
    )
    return into_fight(c, system, state, _fighters(system, state, sides, c))


def fight_story(round_: int, events: Sequence[Any], tracker: Sequence[Mapping[str, Any]]) -> str:
    """A round as a readable entry: what each did, with the dice, and where everyone stands after it."""
    lines = [f"Round {round_}:"]
    for ev in events:
        text = str(ev.text).strip()
        if text:
            lines.append(f"- {text}")
    standing = [f"{r['name']}: {r['condition']}" for r in tracker if r.get("condition")]
    if standing:
        lines.append("After the round: " + "; ".join(standing) + ".")
    return "\n".join(lines)


def start_combat(
    c: CampaignState,
    s: SceneState,
    actor: int,
    *,
    system: RuleSystem,
    sides: Sequence[Sequence[int]],
    options: Mapping[str, Any],
) -> list[Draft]:
    if c.role_of(actor) != GM:
        raise Forbidden("only the GM starts a fight")
    if s.closed:
        raise Conflict("the scene is closed")
    if s.combat is not None:
        raise Conflict("a fight is already on in this scene")
    if len({ch for side in sides for ch in side}) != sum(len(side) for side in sides) or any(
        not side for side in sides
    ):
        raise Invalid("each side names at least one character, and no character fights on two sides")
    if any(c.character(ch).retired for side in sides for ch in side):
        raise Conflict("a retired character does not fight")
    state = _fresh(c, system, sides, options)
    names = {ch: c.characters[ch].name for side in sides for ch in side}
    body = {
        "sides": [list(side) for side in sides],
        "options": dict(options),
        "state": state.model_dump(mode="json"),
        **_fight_view(system, state, sides, names),
        "round": 0,
        "over": bool(system.combat.is_over(state)),
        "winner": system.combat.winner(state),
        "events": [],
    }
    return [Draft("combat.started", actor, body)]


def step_combat(
    c: CampaignState, s: SceneState, actor: int, *, system: RuleSystem, seed: str
) -> tuple[list[Draft], list[Draft]]:
    """The next round: (the scene's ``combat.stepped`` entry, with the round's story and dice; the
    campaign's ``character.condition`` entries for every combatant the round changed)."""
    if c.role_of(actor) != GM:
        raise Forbidden("only the GM moves the fight on")
    if s.closed:
        raise Conflict("the scene is closed")
    if s.combat is None:
        raise Conflict("no fight is on in this scene", hint="start one: POST /api/scenes/{id}/combat")
    if s.combat.get("over"):
        raise Conflict("the fight is over")
    sides = s.combat["sides"]
    fresh = _fresh(c, system, sides, s.combat["options"])
    state = type(fresh).model_validate(s.combat["state"])
    rng = DiceRng(seed, scene_stream(s.id), s.next_counter)
    start = rng.counter
    new_state, events = call_system(system, "play the round", system.combat.step, state, rng)
    names = {ch: c.characters[ch].name for side in sides for ch in side}
    records = [stored_record(r) for ev in events for r in ev.rolls]
    body = {
        **{k: s.combat[k] for k in ("sides", "options")},
        "state": new_state.model_dump(mode="json"),
        **_fight_view(system, new_state, sides, names),
        "round": int(s.combat.get("round", 0)) + 1,
        "over": bool(system.combat.is_over(new_state)),
        "winner": system.combat.winner(new_state),
        "events": [{k: v for k, v in ev.to_json().items() if k != "rolls"} for ev in events],
    }
    body["story"] = fight_story(body["round"], events, body["tracker"])
    roll = {
        "type": "combat",
        "visibility": "public",
        "by": actor,
        "label": f"fight round {body['round']}",
        "counter": [start, rng.counter],
        "records": records,
    }
    from .living import fight_condition_drafts

    scene = [Draft("combat.stepped", actor, body, ALL, rolls=(roll,) if rng.counter > start or records else ())]
    fighters = _fighters(system, new_state, sides, c)
    campaign = fight_condition_drafts(c, system, new_state, fighters, actor, scene=s.id, round_=body["round"])
    return scene, campaign


def end_combat(c: CampaignState, s: SceneState, actor: int) -> list[Draft]:
    if c.role_of(actor) != GM:
        raise Forbidden("only the GM ends a fight")
    if s.combat is None:
        raise Conflict("no fight is on in this scene")
    return [Draft("combat.ended", actor, {})]
