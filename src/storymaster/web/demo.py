"""``storymaster serve --demo``: a demo campaign per installed system, with a GM, a player and an open scene."""

from __future__ import annotations

import logging
from datetime import datetime

from argon2 import PasswordHasher

from ..dice import new_seed
from ..play import campaign as ccmd
from ..play import scene as scmd
from ..rules import all_systems
from ..store import Store
from .deps import now_text

__all__ = ["DEMO_USERS", "seed_demo"]

log = logging.getLogger("storymaster.web.demo")

#: demo accounts (name, password): for trying the table on your own machine only
DEMO_USERS = (("gm", "demo-gm-password"), ("player", "demo-player-password"))


def seed_demo(store: Store, now: datetime, hasher: PasswordHasher | None = None) -> list[str]:
    """Create the demo users (once) and one campaign per installed system not yet seeded; returns the systems seeded."""
    ph = hasher or PasswordHasher()
    at = now_text(now)
    ids = {}
    for name, password in DEMO_USERS:
        row = store.user_by_name(name)
        ids[name] = row.id if row else store.create_user(name=name, email=None, password_hash=ph.hash(password), at=at)
    have = {c["system"] for c in store.campaigns_of(ids["gm"])}
    seeded = []
    for system in all_systems().values():
        if system.name in have:
            continue
        try:
            drafts = ccmd.create_campaign(ids["gm"], "gm", name=f"Demo: {system.title}", system=system, house_rules={})
            cid = store.create_campaign(name=f"Demo: {system.title}", system=system.name, drafts=drafts, at=at).campaign
            store.campaign_append(
                cid, lambda c: ccmd.add_member(c, ids["gm"], user=ids["player"], name="player", role="player"), at
            )
            seed = new_seed()
            sid, _ = store.open_scene(
                cid,
                seed,
                lambda c, sid, seed=seed: scmd.open_scene(
                    c, ids["gm"], scene_id=sid, title="The Tavern at the Crossroads", seed=seed
                ),
                at,
            )
            text = "Rain drums on the shutters of the Crossroads tavern as the strangers come in out of the dark."
            store.scene_append(
                sid,
                lambda c, s, seed, text=text, system=system: scmd.write_post(
                    c,
                    s,
                    ids["gm"],
                    kind="ic",
                    text=text,
                    now=now,
                    seed=seed,
                    system=system,
                    rolls=[{"dice": "2d6", "label": "how crowded the tavern is"}],
                ),
                at,
            )
            seeded.append(system.name)
        except Exception as exc:  # a system that fails to seed is skipped, not fatal
            log.warning("demo campaign for %s skipped: %s", system.name, exc)
    return seeded
