"""Turn-based threads: players answer the GM's post, the GM answers once all have posted or the deadline passes."""

from __future__ import annotations

from web.apikit import Table


def test_a_turn_based_round_with_a_deadline(table: Table, clock) -> None:
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2], turn_seconds=3600, on_deadline="skip")
    t.post(t.p1, scene=sid, expect=409, kind="ic", character=t.c1, text="Arn draws.")  # wait for the GM's post
    t.post(t.gm, scene=sid, kind="ic", text="Wolves burst from the trees!")
    turn = t.get(t.p1, f"/api/scenes/{sid}")["turn"]
    assert turn["round"] == 1 and turn["owed"] == [t.c1, t.c2] and turn["deadline"]
    assert [x["scene"] for x in t.get(t.p1, "/api/me/turns")] == [sid]

    t.post(
        t.p1,
        scene=sid,
        kind="ic",
        character=t.c1,
        text="Arn draws his sword.",
        rolls=[{"check": {"type": "skill", "skill": 2}}],
    )
    t.post(t.p1, scene=sid, expect=409, kind="ic", character=t.c1, text="Arn swings again.")  # one post a round
    t.post(t.p1, scene=sid, kind="ooc", text="(OOC posts are always fine)")
    t.post(t.p1, scene=sid, expect=403, kind="ic", character=t.c2, text="Bel runs.")  # not his character
    assert t.get(t.gm, f"/api/scenes/{sid}")["turn"]["owed"] == [t.c2]
    assert t.get(t.p1, "/api/me/turns") == []

    r = t.client.post(f"/api/scenes/{sid}/posts", json={"kind": "ic", "text": "The wolves circle."}, headers=t.gm.h)
    assert r.status_code == 409 and "Bel" in r.json()["detail"]  # still waiting for Bel

    clock.advance(hours=2)  # the deadline passes: Bel is skipped, the round moves on
    t.post(t.p2, scene=sid, expect=409, kind="ic", character=t.c2, text="Bel, late, runs.")
    t.post(t.gm, scene=sid, kind="ic", text="The wolves circle.")
    scene = t.get(t.gm, f"/api/scenes/{sid}")
    assert scene["turn"]["round"] == 2 and scene["turn"]["owed"] == [t.c1, t.c2]
    log = t.get(t.gm, f"/api/scenes/{sid}/log")["log"]
    skipped = [e for e in log if e["kind"] == "turn.skipped"]
    assert skipped and skipped[0]["body"]["characters"] == [t.c2]


def test_the_gm_acts_for_the_tardy(table: Table, clock) -> None:
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2], turn_seconds=600, on_deadline="gm_acts")
    t.post(t.gm, scene=sid, kind="ic", text="The bridge sways.")
    t.post(t.p2, scene=sid, kind="ic", character=t.c2, text="Bel grabs the rope.")
    clock.advance(minutes=11)
    r = t.client.post(f"/api/scenes/{sid}/posts", json={"kind": "ic", "text": "The rope snaps."}, headers=t.gm.h)
    assert r.status_code == 409 and "Arn" in r.json()["detail"]
    acted = t.post(t.gm, scene=sid, kind="ic", character=t.c1, text="Arn freezes, staring at the drop.")
    assert acted["character_name"] == "Arn" and acted["author"] == t.gm.id
    t.post(t.gm, scene=sid, kind="ic", text="The rope snaps.")
    assert t.get(t.p1, f"/api/scenes/{sid}")["turn"]["round"] == 2
    # the GM may also move on early, skipping whoever has not posted
    t.post(t.gm, scene=sid, kind="ic", text="Silence.", force=True)
    assert t.get(t.p1, f"/api/scenes/{sid}")["turn"]["round"] == 3


def test_a_fight_gives_initiative_and_rolls_on_the_scene_stream(table: Table, cli, tmp_path) -> None:
    t = table
    sid = t.open_scene(mode="turn", cast=[t.c1, t.c2, t.npc])
    r = t.client.post(
        f"/api/scenes/{sid}/combat",
        json={"sides": [[t.c1, t.c2], [t.npc]], "options": {"reverse": True}},
        headers=t.gm.h,
    )
    assert r.status_code == 201, r.text
    scene = r.json()
    # Tally orders by name, reversed here: The Innkeeper, Bel, Arn
    assert scene["combat"]["order"] == [t.npc, t.c2, t.c1] and scene["turn"]["order"] == [t.npc, t.c2, t.c1]
    rounds = 0
    while not t.get(t.gm, f"/api/scenes/{sid}")["combat"]["over"] and rounds < 20:
        r = t.client.post(f"/api/scenes/{sid}/combat/step", headers=t.gm.h)
        assert r.status_code == 200, r.text
        rounds += 1
    fight = t.get(t.p1, f"/api/scenes/{sid}")["combat"]
    assert fight["over"] and fight["winner"] in (0, 1) and fight["events"]
    t.client.post(f"/api/scenes/{sid}/close", headers=t.gm.h)
    path = tmp_path / "fight.json"
    path.write_text(t.client.get(f"/api/scenes/{sid}/export.json", headers=t.p2.h).text)
    result = cli("verify", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert f'"rolls_replayed": {rounds}' in result.stdout
