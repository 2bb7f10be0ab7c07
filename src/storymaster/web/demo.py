"""``storymaster serve --demo``: a demo campaign per installed system, worth exploring.

For every system with demo data (``web/data/demo/<system>.yaml``) the demo seeds, through the
same domain commands the API runs (so it stays valid as the table changes):

- a campaign with the GM and two players (the accounts in :data:`DEMO_USERS`);
- legal characters made by the system's creation rules, one of them at a limit of those rules;
- a closed scene (the prologue) whose seed is revealed, so its export verifies;
- an open turn-based scene in the middle of round 1: the GM's narration opening the round,
  one player's in-character post with a rules check, hidden rolls, an out-of-character post
  and a private post, the other player still to act; and a fight in progress (started, and
  one round played when that round does not end it) that the GM can step and forecast.

A system without demo data gets the campaign, the players and the scenes, without characters.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

from argon2 import PasswordHasher

from .. import safe_yaml
from ..dice import new_seed
from ..play import campaign as ccmd
from ..play import combat as fcmd
from ..play import living
from ..play import scene as scmd
from ..play.campaign import CampaignState
from ..play.log import Draft
from ..play.scene import SceneState
from ..rules import RuleSystem, all_systems
from ..store import Store
from .deps import now_text

__all__ = ["DEMO_USERS", "demo_data", "seed_demo"]

log = logging.getLogger("storymaster.web.demo")

#: demo accounts (name, password, what they are): for trying the table on your own machine only
DEMO_USERS = (
    ("gm", "demo-gm-password", "the GM of every demo campaign"),
    ("player", "demo-player-password", "a player (the first character)"),
    ("player2", "demo-player2-password", "a player (the second character)"),
)


def demo_data(system: str) -> dict[str, Any] | None:
    """The system's demo data (scene title, characters with owners, the fight), or None when it has none."""
    try:
        text = resources.files("storymaster.web").joinpath(f"data/demo/{system}.yaml").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None
    data = safe_yaml.load(text)
    return data if isinstance(data, dict) else None


class _Clock:
    """Times for the seeded entries: an evening's play, a few minutes apart, ending now."""

    def __init__(self, now: datetime, steps: int) -> None:
        self.at = now - timedelta(minutes=7 * steps)

    def __call__(self) -> tuple[datetime, str]:
        self.at += timedelta(minutes=7)
        return self.at, now_text(self.at)


def _rules_check(system: RuleSystem, character: Any, house_rules: Any) -> dict[str, Any] | None:
    """A roll request for one of the character's checks that has a difficulty, made with the kind's example."""
    try:
        for entry in system.checks_for(character, house_rules):
            kind = system.check_kind(entry.check)
            if kind.difficulty is None:
                continue
            check = system.make_check(entry, dict(kind.example))
            system.odds(check, house_rules)  # a check the table can show odds for
            return {"check": {"type": kind.name, **check.model_dump(mode="json")}, "label": entry.label}
    except Exception as exc:  # a system whose catalogue cannot make one: the post rolls dice instead
        log.info("demo: no rules check for %s (%s)", system.name, exc)
    return None


def seed_demo(store: Store, now: datetime, hasher: PasswordHasher | None = None) -> list[str]:
    """Create the demo users (once) and one campaign per installed system not yet seeded; returns the systems seeded."""
    ph = hasher or PasswordHasher()
    ids: dict[str, int] = {}
    for name, password, _ in DEMO_USERS:
        row = store.user_by_name(name)
        ids[name] = (
            row.id
            if row
            else store.create_user(name=name, email=None, password_hash=ph.hash(password), at=now_text(now))
        )
    have = {c["system"] for c in store.campaigns_of(ids["gm"])}
    seeded = []
    for system in all_systems().values():
        if system.name in have:
            continue
        try:
            _seed_system(store, system, ids, now)
            seeded.append(system.name)
        except Exception as exc:  # a system that fails to seed is skipped, not fatal
            log.warning("demo campaign for %s skipped: %s", system.name, exc)
    return seeded


def _seed_system(store: Store, system: RuleSystem, ids: Mapping[str, int], now: datetime) -> None:
    data = demo_data(system.name) or {}
    clock = _Clock(now, 20)
    gm, p1, p2 = ids["gm"], ids["player"], ids["player2"]
    title = f"Demo: {system.title}"
    _, at = clock()
    drafts = ccmd.create_campaign(
        gm,
        "gm",
        name=title,
        system=system,
        house_rules={},
        description="A demo campaign: characters, a closed scene whose export verifies, and an open scene"
        " mid-round with a fight in progress.",
    )
    cid = store.create_campaign(name=title, system=system.name, drafts=drafts, at=at).campaign
    for user, name in ((p1, "player"), (p2, "player2")):
        _, at = clock()
        store.campaign_append(cid, _member(gm, user, name), at)
    # the characters, each checked by the system's creation rules on the way in
    chars: list[int] = []
    for spec in data.get("characters", []):
        owner = ids[spec["owner"]]
        _, at = clock()
        store.campaign_append(cid, _character(system, owner, spec["sheet"]), at)
        with store.reading_campaign(cid) as c:
            chars.append(max(c.characters))
    with store.reading_campaign(cid) as c:
        models = {ch: system.coerce_character(c.characters[ch].sheet) for ch in chars}
        house_rules = system.coerce_house_rules(c.house_rules)
    pc1 = chars[0] if chars else None
    pc2 = chars[1] if len(chars) > 1 else None

    def post(sid: int, actor: int, when: datetime, at: str, **kw: Any) -> None:
        store.scene_append(
            sid,
            lambda c, s, seed: scmd.write_post(c, s, actor, now=when, seed=seed, system=system, **kw),
            at,
        )

    def scene(title: str, **kw: Any) -> int:
        seed = new_seed()
        _, at = clock()
        sid, _ = store.open_scene(
            cid, seed, lambda c, sid: scmd.open_scene(c, gm, scene_id=sid, title=title, seed=seed, **kw), at
        )
        return sid

    check = _rules_check(system, models[pc1], house_rules) if pc1 is not None else None
    name1 = _name(store, cid, pc1)
    name2 = _name(store, cid, pc2)

    # the prologue: a closed scene, its seed revealed, so every roll in it can be checked
    prologue = scene("Prologue: the Letter")
    when, at = clock()
    post(
        prologue,
        gm,
        when,
        at,
        kind="ic",
        text="A rider in the colours of the old duke brings a sealed letter to the inn, and will not say who sent it.",
        rolls=[{"dice": "1d6", "label": "how tired the rider is"}],
    )
    if pc1 is not None:
        when, at = clock()
        post(
            prologue,
            p1,
            when,
            at,
            kind="ic",
            character=pc1,
            text=f"{name1} turns the letter over, looking for a mark from home.",
            rolls=[check] if check else [{"dice": "2d6", "label": "reading the seal"}],
        )
    _, at = clock()
    store.scene_append(
        prologue, lambda c, s, seed: scmd.close_scene(c, s, gm, seed=seed, system=system), at, touches_campaign=True
    )
    # between the scenes: the table's living rules change a condition and award experience
    for item in data.get("after_prologue", []):
        if item.get("character", -1) >= len(chars):
            continue
        _, at = clock()
        try:
            store.campaign_append(cid, _between_scenes(system, gm, chars[item["character"]], item), at)
        except Exception as exc:  # the rest of the demo stands without it
            log.warning("demo (%s): %s skipped: %s", system.name, item, exc)

    # the open scene: turn-based, in the middle of round 1, with a fight in progress
    cast = [ch for ch in (pc1, pc2) if ch is not None]
    sid = scene(data.get("scene", "The Tavern at the Crossroads"), mode=scmd.TURN if cast else scmd.FREE, cast=cast)
    when, at = clock()
    post(
        sid,
        gm,
        when,
        at,
        kind="ic",
        text=(
            "Rain drums on the shutters as the strangers come in out of the dark. The room is *full* tonight:"
            " [[2d6 how crowded the room is]] tables taken.\n\n"
            'At the back, someone is waiting for you. "You are late," she says.\n\n'
            "[private=player]You know that voice: the duke's courier from the prologue.[/private]\n\n"
            "**Round 1**: what do you do?"
        ),
        rolls=[{"dice": "1d20", "label": "do the watchers by the door notice? (for the GM only)", "visibility": "gm"}],
    )
    if pc1 is not None:
        when, at = clock()
        post(
            sid,
            p1,
            when,
            at,
            kind="ic",
            character=pc1,
            text=f'{name1} keeps to the wall and watches the one waiting at the back. "Not late. Careful."\n\n'
            "[ooc]The check below is for spotting a trap on the way in.[/ooc]",
            rolls=[
                *([check] if check else []),
                {"dice": "1d20", "label": "a hunch, for the GM's eyes", "visibility": "gm"},
            ],
        )
        when, at = clock()
        post(
            sid,
            p1,
            when,
            at,
            kind="private",
            to=[gm],
            text=f"(to the GM) {name1} keeps the duke's letter hidden and tells no one about it.",
        )
    when, at = clock()
    post(
        sid,
        p2,
        when,
        at,
        kind="ooc",
        text=f"Busy day: {name2 + ' acts' if pc2 else 'I post'} tonight. What is the smell in the tavern?",
    )
    fight = data.get("fight")
    if fight and len(chars) >= 2:
        sides = [[chars[i] for i in side] for side in fight["sides"]]
        _, at = clock()
        store.scene_append(
            sid,
            lambda c, s, seed: fcmd.start_combat(
                c, s, gm, system=system, sides=sides, options=dict(fight.get("options") or {})
            ),
            at,
        )
        _, at = clock()
        store.scene_append(sid, _round_unless_it_ends(system, gm), at, touches_campaign=True)


def _member(gm: int, user: int, name: str) -> Callable[[CampaignState], list[Draft]]:
    return lambda c: ccmd.add_member(c, gm, user=user, name=name, role="player")


def _character(system: RuleSystem, owner: int, sheet: Any) -> Callable[[CampaignState], list[Draft]]:
    return lambda c: ccmd.create_character(c, owner, system=system, sheet=sheet, owner=owner)


def _between_scenes(system: RuleSystem, gm: int, char_id: int, item: Mapping[str, Any]) -> Callable[..., list[Draft]]:
    """The GM applies a rule between scenes: a condition change (``request``) or experience (``advance``)."""

    def decide(c: CampaignState) -> list[Draft]:
        if "advance" in item:
            scene_drafts, campaign_drafts = living.advance_character(
                c, gm, char_id, system=system, request=dict(item["advance"])
            )
        else:
            scene_drafts, campaign_drafts = living.character_act(
                c, gm, char_id, system=system, request=dict(item["request"]), reason=str(item.get("reason", ""))
            )
        if scene_drafts:  # pragma: no cover - a rule that rolls belongs in a scene
            raise ValueError("a rule that rolls dice is played in a scene")
        return campaign_drafts

    return decide


def _round_unless_it_ends(
    system: RuleSystem, gm: int
) -> Callable[[CampaignState, SceneState, str], tuple[list[Draft], list[Draft]]]:
    """The fight's first round, unless that round would end it (so the GM finds it still going)."""

    def decide(c: CampaignState, s: SceneState, seed: str) -> tuple[list[Draft], list[Draft]]:
        scene_drafts, campaign_drafts = fcmd.step_combat(c, s, gm, system=system, seed=seed)
        over = any(d.body.get("over") for d in scene_drafts if d.kind == "combat.stepped")
        return ([], []) if over else (scene_drafts, campaign_drafts)

    return decide


def _name(store: Store, cid: int, character: int | None) -> str:
    """A character's name in the campaign ("" for none)."""
    if character is None:
        return ""
    with store.reading_campaign(cid) as c:
        return c.characters[character].name
