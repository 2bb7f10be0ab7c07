"""Wrong input to the living-character API is refused clearly (what and where), never a 5xx, in every system."""

from __future__ import annotations

import pytest
from living.livekit import build_live, example

PAIRS = {
    "blyss": ("warrior", "rogue", {"type": "test", "ranks": [4], "td": 6}, {"vitals": {"dodges": -1}}),
    "philsys": ("aya", "guard", {"type": "melee", "at": 10, "pa": 10}, {"mp": -5}),
    "bum": ("player1", "thief", {"type": "fixed", "bonus": 5, "dc": 7}, {"stunned": -1}),
    "kalyr": ("kylar", "bandit", {"type": "open", "actor": {"ability": "Fair"}}, {"fudge_points": -1}),
    "fuzzy": ("sven", "rincewind", {"type": "ability", "dice": 3, "target": 7}, {"status": "asleep"}),
}


@pytest.mark.parametrize("system", list(PAIRS))
def test_wrong_input_is_a_clear_4xx(client, system: str) -> None:
    a, b, check, bad_value = PAIRS[system]
    t = build_live(client, system, example(system, a), example(system, b))
    base = f"/api/campaigns/{t.campaign}/characters/{t.a}"
    r = t.call("POST", base + "/condition", t.gm, 422, values={"no_such_thing": 1}, reason="testing")
    assert "no_such_thing" in r["detail"] and r.get("where", "").startswith("values")
    r = t.call("POST", base + "/condition", t.gm, 422, values=bad_value, reason="testing")
    assert "values" in (r.get("where") or r["detail"])
    t.call("POST", base + "/condition", t.gm, 422, values={}, reason="testing")
    t.call("POST", base + "/condition", t.gm, 422, values={"no_such_thing": 1}, reason="")
    t.call("POST", base + "/condition", t.p1, 403, values={"no_such_thing": 1}, reason="I say so")
    r = t.call("POST", base + "/actions", t.gm, 422, request={"action": "teleport"})
    assert "teleport" in r["detail"] and "actions:" in (r.get("hint") or "")
    t.call("POST", base + "/actions", t.gm, 422, request={"no": "action"})
    t.call("POST", base + "/actions", t.gm, 422, request=[1, 2])
    t.call("POST", base + "/advance", t.gm, 422, request={"kind": "nope", "action": "nope"})
    t.call("POST", base + "/advance", t.gm, 422, request="award")
    t.call("GET", f"/api/campaigns/{t.campaign}/characters/999/condition", t.gm, 404)
    t.call("POST", f"/api/campaigns/{t.campaign}/actions", t.gm, 404, request={"action": "x"}, characters=[999])
    # a roll for a character that is not yours, or not a character at all
    post = {"kind": "ooc", "text": "x", "rolls": [{"check": check, "character": t.b}]}
    t.call("POST", f"/api/scenes/{t.scene}/posts", t.p1, 403, **post)
    t.call(
        "POST", f"/api/scenes/{t.scene}/posts", t.p1, 422, **{**post, "rolls": [{"check": check, "character": "me"}]}
    )
    t.call("POST", f"/api/scenes/{t.scene}/preview", t.p1, 404, check=check, character=999)
    # nothing of the above reached the log
    assert t.condition(t.a)["history"] == []
