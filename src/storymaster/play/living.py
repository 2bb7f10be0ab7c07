"""Characters live at the table: their condition and resources, changed by fights, hazards, rest and
the GM, and their advancement, each change an entry on the campaign's log.

The campaign's log holds, per character, ``character.condition`` entries (the whole new
condition, what changed, who changed it and why) and ``character.updated`` entries for
advancement (the new sheet and the events of the system's ``advance``). The condition's
rules are the system's :class:`~storymaster.rules.condition.ConditionRules`; this module only
decides who may do what and writes the drafts. Pure: dice only from the scene's stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ..dice import DiceRng
from ..errors import InputFileError, StorymasterError
from ..rules import RuleSystem, validate_data
from ..rules.condition import Penalty, changes, condition_of
from .campaign import GM, PLAYER, CampaignState, Character, character_name
from .errors import Conflict, Forbidden, Invalid
from .log import Draft
from .rolling import call_system, scene_stream, stored_record

__all__ = [
    "adjust_condition",
    "advance_character",
    "character_act",
    "condition_drafts",
    "condition_view",
    "current",
    "everyone_acts",
    "living_sheet",
    "penalised_check",
    "penaliser",
    "scene_end_drafts",
]

#: why a condition changed when the table closed a scene
SCENE_END_REASON = "end of scene"

MAX_REASON = 500


def rules_of(system: RuleSystem) -> Any:
    rules = condition_of(system)
    if rules is None:
        raise Invalid(f"{system.name} keeps no condition at the table")
    return rules


def _hr(c: CampaignState, system: RuleSystem) -> Any:
    return system.house_rules_model.model_validate(c.house_rules)


def _model(system: RuleSystem, ch: Character) -> BaseModel:
    try:
        return validate_data(dict(ch.sheet), system.character_model, source=ch.name)
    except InputFileError as exc:
        raise Invalid(exc.message) from None


def current(c: CampaignState, system: RuleSystem, char_id: int) -> tuple[Any, BaseModel, Any, BaseModel]:
    """(the rules, the character model, the house rules, its condition now) for a campaign's character.

    A character with no condition entry yet is as the builder made it (``initial``); a stored one
    is refitted to the sheet as it is now (advancement can raise maxima)."""
    rules = rules_of(system)
    ch = c.character(char_id)
    model = _model(system, ch)
    hr = _hr(c, system)
    stored = c.conditions.get(char_id)
    if stored is None:
        cond = call_system(system, "give the starting condition", rules.initial, model, hr)
    else:
        cond = call_system(system, "read the condition", rules.model.model_validate, stored)
        cond = call_system(system, "fit the condition to the sheet", rules.refit, model, cond, hr)
    return rules, model, hr, cond


def _only_gm_sets(rules: Any, request: Any) -> None:
    """A player's request may not carry what only the GM says: approval, veto, a waived cost."""
    gm_set = sorted(set(request) & set(getattr(rules, "gm_fields", ()))) if isinstance(request, Mapping) else []
    if any(request[k] not in (None, False) for k in gm_set):
        raise Forbidden(f"only the GM sets {', '.join(gm_set)} (the GM's approval, veto or waiver)")


def _reason(reason: Any) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise Invalid("a change by hand gives its reason ('reason': text)")
    if len(reason) > MAX_REASON:
        raise Invalid(f"a reason is at most {MAX_REASON} characters")
    return reason.strip()


def _change_text(name: str, diff: Mapping[str, list[Any]]) -> str:
    parts = [f"{k.replace('_', ' ')} {a} → {b}" for k, (a, b) in diff.items()]
    return f"{name}: " + ("; ".join(parts) if parts else "no change")


def condition_drafts(
    c: CampaignState,
    system: RuleSystem,
    char_id: int,
    actor: int | None,
    before: BaseModel,
    after: BaseModel,
    why: Mapping[str, Any],
    text: str = "",
) -> list[Draft]:
    """The ``character.condition`` entry for a change (none when nothing changed)."""
    old, new = before.model_dump(mode="json"), after.model_dump(mode="json")
    diff = changes(old, new)
    if not diff:
        return []
    ch = c.character(char_id)
    rules = rules_of(system)
    model = _model(system, ch)
    hr = _hr(c, system)
    summary = call_system(system, "name the condition", rules.summary, model, after, hr)
    body = {
        "character": char_id,
        "name": ch.name,
        "condition": new,
        "summary": summary,
        "changes": diff,
        "why": dict(why),
        "text": text or _change_text(ch.name, diff),
    }
    return [Draft("character.condition", actor, body)]


def adjust_condition(
    c: CampaignState, actor: int, char_id: int, *, system: RuleSystem, values: Any, reason: Any
) -> list[Draft]:
    """The GM sets any value of a character's condition, with a reason."""
    if c.role_of(actor) != GM:
        raise Forbidden("only the GM adjusts a character's condition by hand")
    why = _reason(reason)
    ch = c.character(char_id)
    if ch.retired:
        raise Conflict(f"{ch.name} is retired")
    rules, model, hr, cond = current(c, system, char_id)
    new = call_system(system, "adjust the condition", rules.set_values, model, cond, values, hr)
    drafts = condition_drafts(
        c, system, char_id, actor, cond, new, {"kind": "gm", "reason": why}, text=f"GM adjustment ({why})"
    )
    if not drafts:
        raise Invalid("that changes nothing")
    return drafts


def character_act(
    c: CampaignState,
    actor: int,
    char_id: int,
    *,
    system: RuleSystem,
    request: Any,
    reason: str = "",
    rng: DiceRng | None = None,
    scene: int | None = None,
) -> tuple[list[Draft], list[Draft]]:
    """A between-scenes rule (rest, healing, time passing, a hazard, a spent point, the end of a scene).

    Returns (scene drafts, campaign drafts): with ``rng`` (in a scene) the rolls go on a scene
    entry, ``character.acted``; the condition always goes on the campaign's log."""
    role = c.role_of(actor)
    ch = c.character(char_id)
    rules, model, hr, cond = current(c, system, char_id)
    req = call_system(system, "read the request", rules.request, request)
    name = str(request.get("action")) if isinstance(request, Mapping) else type(req).__name__
    if role != GM and not (role == PLAYER and ch.owner == actor and name in getattr(rules, "player_actions", ())):
        raise Forbidden(
            f"only the GM asks for {name!r}"
            + (" (a player may: " + ", ".join(sorted(rules.player_actions)) + ")" if rules.player_actions else "")
        )
    if role != GM:
        _only_gm_sets(rules, request)
    if ch.retired:
        raise Conflict(f"{ch.name} is retired")
    if name in getattr(rules, "reason_required", ()) and not (reason or "").strip():
        raise Invalid(f"the book leaves {name!r} to the GM: say why ('reason': text), it goes on the log")
    start = rng.counter if rng is not None else 0
    act_full = getattr(rules, "act_full", None)
    if act_full is not None:
        new_model, new, events = call_system(system, f"apply {name}", act_full, model, cond, req, rng, hr)
    else:
        new_model = model
        new, events = call_system(system, f"apply {name}", rules.act, model, cond, req, rng, hr)
    text = " ".join(e.text for e in events) or name
    why: dict[str, Any] = {"kind": name}
    if reason:
        why["reason"] = _reason(reason)
    if scene is not None:
        why["scene"] = scene
    campaign: list[Draft] = []
    sheet = new_model.model_dump(mode="json")
    if sheet != dict(ch.sheet):
        campaign.append(
            Draft(
                "character.updated",
                actor,
                {
                    "character": char_id,
                    "name": character_name(new_model, ch.name),
                    "sheet": sheet,
                    "why": why,
                    "events": [e.text for e in events],
                },
            )
        )
    told = text if text.startswith(ch.name) else f"{ch.name}: {text}"
    campaign += condition_drafts(c, system, char_id, actor, cond, new, why, text=told)
    scene_drafts: list[Draft] = []
    records = [stored_record(r) for e in events for r in e.rolls]
    if scene is not None and rng is not None:
        roll = {
            "type": "living",
            "visibility": "public",
            "by": actor,
            "label": f"{ch.name}: {name}",
            "counter": [start, rng.counter],
            "records": records,
        }
        body = {
            "character": char_id,
            "character_name": ch.name,
            "action": name,
            "text": told,
            "events": [{k: v for k, v in e.to_json().items() if k != "rolls"} for e in events],
        }
        scene_drafts.append(Draft("character.acted", actor, body, rolls=(roll,) if rng.counter > start else ()))
    elif records:  # pragma: no cover - a rule rolled without an rng: a system bug
        raise Invalid("a rule rolled dice outside a scene")
    return scene_drafts, campaign


def everyone_acts(
    c: CampaignState,
    actor: int,
    *,
    system: RuleSystem,
    request: Any,
    characters: Sequence[int] | None = None,
    reason: str = "",
) -> list[Draft]:
    """The GM applies one between-scenes rule to many characters at once: time passes for the whole
    party (BLYSS fatigue, hunger, thirst), a scene ends for its cast (Kalyr's Scratches clear).
    ``characters`` None: every character of the campaign not retired. A character the rule leaves
    as it was writes nothing; one it refuses (a rule that does not apply to them) refuses the lot."""
    if c.role_of(actor) != GM:
        raise Forbidden("only the GM applies a rule to several characters at once")
    ids = [ch.id for ch in c.characters.values() if not ch.retired] if characters is None else list(characters)
    if not ids:
        raise Invalid("no characters to apply it to")
    if len(set(ids)) != len(ids):
        raise Invalid("a character is named twice")
    out: list[Draft] = []
    for ch in ids:
        _, drafts = character_act(c, actor, ch, system=system, request=request, reason=reason)
        out += drafts
    return out


def scene_end_drafts(
    c: CampaignState, actor: int, *, system: RuleSystem, scene: int, cast: Sequence[int]
) -> list[Draft]:
    """The system's end-of-scene rule (``scene_end``) applied to each of the scene's cast as the scene closes
    (Kalyr: Scratches clear), each change logged with the reason "end of scene"; nothing for a system whose
    book has no such rule, nor for a retired character or one the rule leaves as it was."""
    rules = condition_of(system)
    request = getattr(rules, "scene_end", None) if rules is not None else None
    if not request:
        return []
    out: list[Draft] = []
    for ch in cast:
        if ch not in c.characters or c.character(ch).retired:
            continue
        _, drafts = character_act(
            c, actor, ch, system=system, request=dict(request), reason=SCENE_END_REASON, scene=scene
        )
        out += drafts
    return out


def living_sheet(c: CampaignState, system: RuleSystem, char_id: int) -> Any:
    """The character's structured sheet as the table sees it now: the sheet's own sections, with its
    condition and resources sections replaced by the condition's (what a sheet page renders)."""
    from dataclasses import replace as dc_replace

    rules, model, hr, cond = current(c, system, char_id)
    sheet = system.sheet(model, hr)
    living = list(call_system(system, "lay out the condition", rules.sections, model, cond, hr))
    mine = {s.key for s in living}
    kept = [s for s in sheet.sections if s.kind not in ("condition", "resources") and s.key not in mine]
    return dc_replace(sheet, sections=tuple(kept + living))


def fight_condition_drafts(
    c: CampaignState,
    system: RuleSystem,
    state: BaseModel,
    fighters: Mapping[str, int],
    actor: int,
    *,
    scene: int,
    round_: int,
) -> list[Draft]:
    """After a round: each combatant's condition read back from the fight, one entry per change."""
    rules = condition_of(system)
    if rules is None:
        return []
    out: list[Draft] = []
    for fid, char_id in fighters.items():
        _, model, hr, cond = current(c, system, char_id)
        new = call_system(system, "read the fight's damage", rules.out_of_fight, state, fid, model, cond, hr)
        diff = changes(cond.model_dump(mode="json"), new.model_dump(mode="json"))
        if not diff:
            continue
        out += condition_drafts(
            c,
            system,
            char_id,
            actor,
            cond,
            new,
            {"kind": "fight", "scene": scene, "round": round_},
            text=f"{c.characters[char_id].name} after round {round_}: "
            + call_system(system, "name the condition", rules.summary, model, new, hr),
        )
    return out


def into_fight(c: CampaignState, system: RuleSystem, state: BaseModel, fighters: Mapping[str, int]) -> BaseModel:
    """A fresh fight state with each combatant's current condition (fights start where the characters are)."""
    rules = condition_of(system)
    if rules is None:
        return state
    for fid, char_id in fighters.items():
        _, _, hr, cond = current(c, system, char_id)
        state = call_system(system, "bring the condition into the fight", rules.into_fight, state, fid, cond, hr)
    return state


def penalised_check(c: CampaignState, system: RuleSystem, char_id: int, check: Any) -> tuple[Any, list[Penalty]]:
    """The check with the character's condition penalties applied, and those penalties."""
    rules = condition_of(system)
    if rules is None:
        return check, []
    _, model, hr, cond = current(c, system, char_id)
    penalties = call_system(system, "name the penalties", rules.penalties, model, cond, hr)
    adjusted = call_system(system, "apply the penalties", rules.adjust_check, model, cond, check, hr)
    return adjusted, list(penalties)


def penaliser(c: CampaignState, system: RuleSystem, actor: int | None = None) -> Any:
    """The ``penalise`` a roll request uses: a check made for a character feels their condition. With
    ``actor``, only the character's owner or the GM rolls for them."""

    def penalise(char_id: int, check: Any) -> tuple[Any, list[dict[str, Any]]]:
        ch = c.character(char_id)
        if actor is not None and ch.owner != actor and c.role_of(actor) != GM:
            raise Forbidden(f"{ch.name} is not your character")
        adjusted, penalties = penalised_check(c, system, char_id, check)
        return adjusted, [p.to_json() for p in penalties]

    return penalise


def advance_character(
    c: CampaignState,
    actor: int,
    char_id: int,
    *,
    system: RuleSystem,
    request: Any,
    seed: str | None = None,
    scene: int | None = None,
    counter: int = 0,
) -> tuple[list[Draft], list[Draft]]:
    """Experience awarded (the GM) or spent (the owner, or the GM) through the system's ``advance``.

    The system refuses what its book refuses (AdvancementError); the new sheet goes on the log as
    ``character.updated`` with the request and the events that explain it; a condition the rule
    changed (a Fudge point spent) as ``character.condition``. Returns (scene drafts, campaign drafts):
    advancement that rolls dice is made in a scene (``seed`` and ``scene``)."""
    role = c.role_of(actor)
    ch = c.character(char_id)
    if ch.retired:
        raise Conflict(f"{ch.name} is retired")
    rules, model, hr, cond = current(c, system, char_id)
    req = call_system(system, "read the advancement", rules.advance_request, request)
    gm_only = isinstance(req, tuple(rules.gm_advancement)) if rules.gm_advancement else False
    if role != GM:
        if gm_only:
            raise Forbidden("only the GM awards experience")
        _only_gm_sets(rules, request)
        if not (role == PLAYER and ch.owner == actor):
            raise Forbidden("only the character's owner or the GM spends its experience")
    rng = DiceRng(seed, scene_stream(scene), counter) if seed is not None and scene is not None else DiceRng(0)
    start = rng.counter
    merged = rules.merge(model, cond)
    try:
        new_model, events = system.advance(merged, req, rng, hr)
    except StorymasterError:
        raise
    except Exception as exc:
        raise Invalid(f"the {system.name} rules could not advance the character ({type(exc).__name__}: {exc})") from exc
    if rng.counter > start and scene is None:
        raise Invalid("this advancement rolls dice: make it in a scene (POST /api/scenes/{id}/characters/{ch}/advance)")
    sheet_model, new_cond = rules.split(model, new_model, cond, hr)
    sheet = sheet_model.model_dump(mode="json")
    texts = [e.text for e in events]
    campaign: list[Draft] = []
    if sheet != dict(ch.sheet):
        campaign.append(
            Draft(
                "character.updated",
                actor,
                {
                    "character": char_id,
                    "name": character_name(sheet_model, ch.name),
                    "sheet": sheet,
                    "why": {"kind": "advance", "request": req.model_dump(mode="json")},
                    "events": texts,
                },
            )
        )
    campaign += condition_drafts(
        c, system, char_id, actor, cond, new_cond, {"kind": "advance"}, text=f"{ch.name}: " + " ".join(texts)
    )
    if not campaign:
        raise Invalid("that changes nothing")
    scene_drafts: list[Draft] = []
    records = [stored_record(r) for e in events for r in e.rolls]
    if scene is not None and rng.counter > start:
        roll = {
            "type": "living",
            "visibility": "public",
            "by": actor,
            "label": f"{ch.name}: advancement",
            "counter": [start, rng.counter],
            "records": records,
        }
        body = {"character": char_id, "character_name": ch.name, "action": "advance", "text": " ".join(texts)}
        scene_drafts.append(Draft("character.acted", actor, body, rolls=(roll,)))
    return scene_drafts, campaign


def condition_view(c: CampaignState, system: RuleSystem, char_id: int) -> dict[str, Any]:
    """A character's condition as the table shows it: the values, the book's word, the sheet's sections,
    the penalties on checks, and the history of changes (newest last)."""
    rules, model, hr, cond = current(c, system, char_id)
    return {
        "character": char_id,
        "name": c.character(char_id).name,
        "condition": cond.model_dump(mode="json"),
        "summary": call_system(system, "name the condition", rules.summary, model, cond, hr),
        "penalties": [p.to_json() for p in call_system(system, "name the penalties", rules.penalties, model, cond, hr)],
        "sections": [
            s.to_json() for s in call_system(system, "lay out the condition", rules.sections, model, cond, hr)
        ],
        "actions": sorted(rules.actions),
        "player_actions": sorted(rules.player_actions),
        "history": [dict(h) for h in c.condition_history.get(char_id, [])],
    }


def fighter_ids(engine_names: Sequence[str], sides: Sequence[Sequence[int]], c: CampaignState) -> dict[str, int]:
    from .combat import _character_ids

    flat = [ch for side in sides for ch in side]
    return _character_ids(list(engine_names), flat, {ch: c.characters[ch].name for ch in flat})
