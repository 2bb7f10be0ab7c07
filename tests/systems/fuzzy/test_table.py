"""Loose and Fuzzy characters at the table: a harm sequence by the Combat Rules' wound levels, and
experience awarded and spent (Experience). Expected values are the book's.

Sven (examples/fuzzy/sven.yaml): Body 4, Tenacity 3, Sailor 3, Luck 5 (the karma baseline's).
"""

from __future__ import annotations

from living.livekit import build_live, example

BODY = {"type": "ability", "ability": "Body", "dice": 4, "target": 10}


def _dice(t, ch) -> int:
    return t.preview(BODY, ch)["check"]["dice"]


def test_a_harm_sequence_by_the_wound_levels(client) -> None:
    t = build_live(client, "fuzzy", example("fuzzy", "sven"), example("fuzzy", "rincewind"))
    sven, other = t.a, t.b
    # "Moderately wounded ... They are now at -1 die to all actions ... need to make a Tenacity test of 7"
    t.act(sven, {"action": "wound", "level": "moderate", "by": "a falling spar", "tenacity": True})
    assert _dice(t, sven) == 3 and t.condition(sven)["summary"] == "moderately wounded"
    # "Two moderate wounds do NOT make a serious wound"; "a separate Tenacity test for each new injury"
    t.act(sven, {"action": "wound", "level": "moderate", "by": "a gull", "tenacity": True})
    assert _dice(t, sven) == 3
    # "Injury penalties are not cumulative. Use the worst die penalty": a serious wound, -2 dice
    t.act(sven, {"action": "wound", "level": "serious", "by": "a pirate", "tenacity": True})
    assert _dice(t, sven) == 2 and [p["amount"] for p in t.condition(sven)["penalties"]] == [-2]
    # "Mortally wounded ... -3 dice to all actions (down to a minimum of one)"; rolled in the scene, with the
    # wound penalties ("your wound penalties DO apply to this test"): Tenacity 3 - 3 is still one die
    t.act_in_scene(sven, {"action": "wound", "level": "mortal", "by": "a harpoon"})
    c = t.condition(sven)
    assert c["condition"]["dying"]  # "will expire in matter of minutes unless they receive skilled medical attention"
    told = [p for p in t.posts() if p["kind"] == "table"][-1]
    assert "Tenacity (1 dice)" in told["text"] and told["rolls"]
    if c["condition"]["status"] == "fighting":  # he passed the test: still on his feet, at one die
        assert _dice(t, sven) == 1
    else:
        assert c["condition"]["status"] == "unconscious"  # "Otherwise, they fall down unconscious"
    t.act(sven, {"action": "tend"})
    assert not t.condition(sven)["condition"]["dying"]
    # "At least 4x their Defense total: Killed ... They fall down dead without a Tenacity test."
    t.act(other, {"action": "wound", "level": "killed", "by": "the Luggage"})
    assert t.condition(other)["summary"] == "dead"
    t.close_and_export()


def test_non_lethal_harm_recovers_in_hours(client) -> None:
    t = build_live(client, "fuzzy", example("fuzzy", "sven"), example("fuzzy", "rincewind"))
    sven = t.a
    # "If you weren't hitting them to kill, they are merely stunned or bruised ... will recover in a few hours"
    t.act(sven, {"action": "wound", "level": "serious", "lethal": False, "tenacity": False, "by": "a cosh"})
    c = t.condition(sven)
    assert c["condition"]["status"] == "incapacitated" and _dice(t, sven) == 2
    t.act(sven, {"action": "recover"})
    assert t.condition(sven)["summary"] == "unhurt" and _dice(t, sven) == 4
    # real wounds are not healed by the book's text: the GM removes one, with a reason
    t.act(sven, {"action": "wound", "level": "moderate", "tenacity": True})
    t.act(sven, {"action": "heal", "wound": 0}, expect=422)
    t.act(sven, {"action": "heal", "wound": 0}, reason="a month ashore")
    assert t.condition(sven)["summary"] == "unhurt"


def test_experience_is_awarded_by_the_gm_and_spent_by_the_book(client) -> None:
    t = build_live(client, "fuzzy", example("fuzzy", "sven"), example("fuzzy", "rincewind"))
    sven = t.a
    t.advance(sven, {"action": "award", "points": 3}, who=t.p1, expect=403)  # "the GM may feel like awarding"
    t.advance(sven, {"action": "award", "points": 3})
    # "Raising a good Ability by one costs 3 times its new level": Sailor 3 -> 4 costs 12
    r = t.advance(sven, {"action": "raise-ability", "ability": "Sailor"}, who=t.p1, expect=422)
    assert "12" in r["detail"]
    t.advance(sven, {"action": "award", "points": 9})
    # "The GM may veto character changes": only the GM sets the approval
    t.advance(sven, {"action": "raise-ability", "ability": "Sailor", "gm_approved": True}, who=t.p1, expect=403)
    t.advance(sven, {"action": "raise-ability", "ability": "Sailor", "gm_approved": False}, expect=422)
    out = t.advance(sven, {"action": "raise-ability", "ability": "Sailor"}, who=t.p1)
    assert next(a["rating"] for a in out["sheet"]["abilities"] if a["name"] == "Sailor") == 4
    # "Luck may be purchased ... to a maximum of 5 Luck": Sven has 5
    t.advance(sven, {"action": "award", "points": 20})
    t.advance(sven, {"action": "buy-luck"}, who=t.p1, expect=422)
    luck = next(v for v in t.condition(sven)["sections"][0]["values"] if v["key"] == "luck")
    assert luck["value"] == 5
