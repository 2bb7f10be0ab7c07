"""Nothing secret leaks before its time: not the seed, not a blind or GM-only result, in any response."""

from __future__ import annotations

import json

from sqlalchemy import select
from web.apikit import Table

from storymaster.store import tables

ROLL_RESULT_KEYS = {"total", "records", "outcome", "counter", "expression", "check"}


def _seed(app, sid: int) -> str:
    with app.state.store.engine.connect() as conn:
        return conn.execute(select(tables.scenes.c.seed).where(tables.scenes.c.id == sid)).scalar_one()


def _every_get(t: Table, who) -> list[str]:
    paths = [
        f"/api/scenes/{t.scene}",
        f"/api/scenes/{t.scene}/posts",
        f"/api/scenes/{t.scene}/log",
        f"/api/scenes/{t.scene}/export.json",
        f"/api/scenes/{t.scene}/export.md",
        f"/api/scenes/{t.scene}/export.html",
        f"/api/scenes/{t.scene}/feed.atom",
        f"/api/campaigns/{t.campaign}",
        f"/api/campaigns/{t.campaign}/export.json",
        f"/api/campaigns/{t.campaign}/scenes",
        f"/api/scenes/{t.scene}/events?after=0&max_seconds=0.05",
        "/api/me/digest",
        "/api/me/turns",
    ]
    return [t.client.get(p, headers=who.h).text for p in paths]


def _hidden_rolls(doc) -> list[dict]:
    found = []
    if isinstance(doc, dict):
        if doc.get("hidden") is True:
            found.append(doc)
        for v in doc.values():
            found += _hidden_rolls(v)
    elif isinstance(doc, list):
        for v in doc:
            found += _hidden_rolls(v)
    return found


def test_seed_and_secret_results_never_leak_before_the_reveal(app, table: Table) -> None:
    t = table
    seed = _seed(app, t.scene)
    t.post(
        t.p1,
        kind="ic",
        character=t.c1,
        text="Arn listens at the door.",
        rolls=[
            {"dice": "3d6", "visibility": "blind", "label": "listen"},
            {"check": {"type": "skill", "skill": 1}, "visibility": "gm", "label": "sneak"},
            {"dice": "d20", "visibility": "self", "label": "my own"},
            {"dice": "d4", "label": "open"},
        ],
    )
    t.post(t.gm, kind="note", text="The door is trapped.", rolls=[{"dice": "d100", "label": "trap"}])
    posts_p1 = t.get(t.p1, f"/api/scenes/{t.scene}/posts")
    mine = posts_p1[-1]["rolls"]
    assert [("hidden" in r) for r in mine] == [True, False, False, False]  # blind: not even the roller
    posts_p2 = t.get(t.p2, f"/api/scenes/{t.scene}/posts")
    assert [("hidden" in r) for r in posts_p2[-1]["rolls"]] == [True, True, True, False]
    posts_gm = t.get(t.gm, f"/api/scenes/{t.scene}/posts")
    assert [("hidden" in r) for r in posts_gm[-2]["rolls"]] == [False, False, True, False]  # self: the roller only
    assert "The door is trapped." not in json.dumps(posts_p2) and posts_gm[-1]["text"] == "The door is trapped."

    for who in (t.gm, t.p1, t.p2, t.obs):
        for text in _every_get(t, who):
            assert seed not in text
            for hidden in _hidden_rolls(json.loads(text)) if text.startswith(("{", "[")) else []:
                assert not ROLL_RESULT_KEYS & hidden.keys(), hidden
    for who in (t.p2, t.obs):
        for text in _every_get(t, who):
            assert "The door is trapped." not in text

    closed = t.client.post(f"/api/scenes/{t.scene}/close", headers=t.gm.h).json()
    assert closed["seed"] == seed
    after = t.get(t.p2, f"/api/scenes/{t.scene}/posts")
    assert not any("hidden" in r for p in after for r in p["rolls"])  # revealed with the seed
    assert "The door is trapped." not in json.dumps(after)  # notes stay the GM's


def test_posting_cannot_choose_the_dice(table: Table) -> None:
    t = table
    r = t.client.post(
        f"/api/scenes/{t.scene}/posts",
        json={"kind": "ooc", "text": "x", "rolls": [{"dice": "d6", "seed": "mine"}]},
        headers=t.p1.h,
    )
    assert r.status_code == 422
