"""The combat view carries a FightTracker engine's own order and its tracker rows (for the GM's tracker page)."""

from __future__ import annotations

from play.tally import TrackedTallyCombat
from web.apikit import Table

OLD_KEYS = {"sides", "options", "state", "order", "round", "over", "winner", "events"}


def test_a_fight_trackers_order_and_rows_come_through(table: Table, tally, monkeypatch) -> None:
    monkeypatch.setattr(tally, "combat", TrackedTallyCombat())
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2, t.npc])
    r = t.client.post(
        f"/api/scenes/{sid}/combat",
        json={"sides": [[t.c1, t.c2], [t.npc]], "options": {"reverse": True}},
        headers=t.gm.h,
    )
    assert r.status_code == 201, r.text
    fight = r.json()["combat"]
    assert fight.keys() >= OLD_KEYS
    # the state's field says The Innkeeper, Bel, Arn (reversed); the engine's own order wins
    assert fight["order"] == [t.c1, t.c2, t.npc] and r.json()["turn"]["order"] == [t.c1, t.c2, t.npc]
    rows = {row["character"]: row for row in fight["tracker"]}
    assert set(rows) == {t.c1, t.c2, t.npc}
    assert rows[t.c1] == {
        "name": "Arn",
        "side": 0,
        "position": 0,
        "acting": True,
        "condition": "6 hp",
        "details": {"hp": "6/6"},
        "out": False,
        "character": t.c1,
    }
    for _ in range(20):
        r = t.client.post(f"/api/scenes/{sid}/combat/step", headers=t.gm.h)
        assert r.status_code == 200, r.text
        fight = t.get(t.p1, f"/api/scenes/{sid}")["combat"]
        engine_rows = {row["name"]: row for row in fight["tracker"]}
        assert [
            engine_rows[n]["character"] for n in sorted(engine_rows, key=lambda n: engine_rows[n]["position"])
        ] == fight["order"]
        if fight["over"]:
            break
    assert fight["over"] and any(row["out"] and row["condition"] == "down" for row in fight["tracker"])
    assert not any(row["acting"] for row in fight["tracker"])


def test_engines_without_a_tracker_keep_the_old_view(table: Table) -> None:
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2, t.npc])
    r = t.client.post(
        f"/api/scenes/{sid}/combat",
        json={"sides": [[t.c1, t.c2], [t.npc]], "options": {"reverse": True}},
        headers=t.gm.h,
    )
    fight = r.json()["combat"]
    assert fight.keys() >= OLD_KEYS and fight["order"] == [t.npc, t.c2, t.c1] and fight["tracker"] == []
