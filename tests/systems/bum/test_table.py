"""B.U.M. characters at the table: the Example of Play (Part Eight) through the table's API, and skill
points awarded and spent (Part Six). Expected values are the book's.

Player 1 (examples/bum/player1.yaml): STR 3 ("one wound out of his total of 3"), INT 2, Medicine 2 and a
suture kit (+1); the thief (examples/bum/thief.yaml) falls after two wounds.
"""

from __future__ import annotations

from fractions import Fraction

from living.livekit import build_live, example


def _hp(t, ch) -> str:
    return t.condition(ch)["summary"]


def _success(preview) -> Fraction:
    return Fraction(preview["odds"]["exact"]["p_success"])


def test_the_example_of_play(client) -> None:
    t = build_live(client, "bum", example("bum", "player1"), example("bum", "thief"))
    p1, thief = t.a, t.b
    assert _hp(t, p1) == "3 of 3 hit points" and _hp(t, thief) == "2 of 2 hit points"
    # "Player 1 ... attack ... successful. GM: Your sword strikes the thief ... He takes a wound."
    t.act(thief, {"action": "wound", "cause": "sword to the thigh"})
    # "the thief manages to stab you ... Take a wound." / "Player 1 marks one wound out of his total of 3"
    t.act(p1, {"action": "wound", "cause": "dagger through the maille"})
    assert _hp(t, p1) == "2 of 3 hit points"
    # "You stab the thief ... His wounds are too much for him, and he collapses." / "He is still alive."
    t.act(thief, {"action": "wound", "cause": "dagger between the ribs"})
    c = t.condition(thief)
    assert c["summary"] == "incapacitated (0 hit points)" and not c["condition"]["dead"]
    assert c["penalties"][0]["label"] == "0 hit points"
    # "I stab the thief again ... He gurgles a bit and dies": 0 hit points does not kill, the GM's ruling does
    t.adjust(thief, {"dead": True}, reason="Player 1 puts him out of his misery")
    assert _hp(t, thief) == "dead"
    # "roll your Medicine skill against a DC 7": INT 2 + Medicine 2 + suture kit 1; his wound costs nothing
    medicine = {"type": "fixed", "bonus": 5, "dc": 7, "label": "stitch the wound"}
    felt = t.preview(medicine, p1)
    assert felt["check"]["bonus"] == 5 and felt["penalties"] == []
    assert _success(felt) == Fraction(5, 6)  # a d6 of 2 or more; the book's roll of 3 makes 8
    post = t.roll(medicine, p1, t.p1)
    assert post["rolls"][0]["check"]["bonus"] == 5
    # "your wound will heal much faster now" / "effectively healed ... in only a few more days": the GM says 3
    t.act(p1, {"action": "tend", "heal_days": 3}, expect=422)  # the book leaves it to the GM: a reason
    t.act(p1, {"action": "tend", "heal_days": 3}, reason="cleanly sutured: a few more days")
    t.act(p1, {"action": "rest", "days": 1})  # "You spend the night and wake well rested"
    assert _hp(t, p1) == "2 of 3 hit points"
    t.act(p1, {"action": "rest", "days": 2})
    assert _hp(t, p1) == "3 of 3 hit points"
    history = [h["why"]["kind"] for h in t.condition(p1)["history"]]
    assert history == ["wound", "tend", "rest", "rest"]
    doc = t.close_and_export()
    assert doc["campaign"]["characters"][str(thief)]["condition"]["dead"] is True


def test_a_fall_is_one_wound_per_full_ten_feet(client) -> None:
    t = build_live(client, "bum", example("bum", "player1"), example("bum", "thief"))
    t.act(t.a, {"action": "fall", "feet": 9}, expect=409)  # "less than 10 feet ... no damage": nothing changes
    assert t.condition(t.a)["history"] == [] and _hp(t, t.a) == "3 of 3 hit points"
    t.act(t.a, {"action": "fall", "feet": 25})  # "over 20 feet, 2 damage"
    assert _hp(t, t.a) == "1 of 3 hit points"


def test_skill_points_are_awarded_by_the_gm_and_spent_by_the_book(client) -> None:
    t = build_live(client, "bum", example("bum", "player1"), example("bum", "thief"))
    p1 = t.a
    t.advance(p1, {"kind": "award", "points": 2}, who=t.p1, expect=403)  # the GM's to give
    t.advance(p1, {"kind": "award", "points": 2})  # "One to two skill points is a good reward"
    # "Players cannot have a skill total higher than that skill's governing stat": Medicine 2 under INT 2
    t.advance(p1, {"kind": "skill", "skill": "Medicine", "points": 1}, who=t.p1, expect=422)
    out = t.advance(p1, {"kind": "skill", "skill": "Sword", "points": 1}, who=t.p1)
    assert next(s["points"] for s in out["sheet"]["skills"] if s["name"] == "Sword") == 3
    t.advance(p1, {"kind": "award", "points": 2})
    t.advance(p1, {"kind": "stat", "stat": "INT"}, who=t.p1, expect=422)  # "Stat points cost 4": 3 saved
    t.advance(p1, {"kind": "award", "points": 1})
    out = t.advance(p1, {"kind": "stat", "stat": "INT"}, who=t.p1)
    assert out["sheet"]["stats"]["INT"] == 3 and out["sheet"]["banked_skill_points"] == 0
    t.advance(p1, {"kind": "award", "points": 4})
    # "Each character can only increase each of his stats by 1 in the course of a game"
    t.advance(p1, {"kind": "stat", "stat": "INT"}, who=t.p1, expect=422)
    t.advance(p1, {"kind": "skill", "skill": "Medicine", "points": 1}, who=t.p1)  # now under INT 3
    t.advance(p1, {"kind": "skill", "skill": "Sword", "points": 1}, who=t.p2, expect=403)  # not p2's


def test_a_fight_spends_the_bolts_and_leaves_the_crossbow_to_reload(client) -> None:
    t = build_live(client, "bum", example("bum", "player2"), example("bum", "thief"))
    p2 = t.a
    # the crossbow starts loaded with three bolts in the quiver (the GM's word for this scene)
    t.adjust(p2, {"readiness": "ready", "ammo": 3}, reason="loaded before the cave")
    fight = t.fight([[p2], [t.b]], {"distance": 3, "tactics": {"0": "ranged"}})
    assert fight["round"] == 0
    t.step()
    c = t.condition(p2)["condition"]
    assert c["ammo"] == 2  # one bolt shot
    assert c["readiness"] != "ready"  # a crossbow is made ready again after a shot (Appendix A)
    assert t.condition(p2)["history"][-1]["why"] == {"kind": "fight", "scene": t.scene, "round": 1}
    t.call("DELETE", f"/api/scenes/{t.scene}/combat", t.gm)
    t.act(p2, {"action": "reload"}, who=t.p1)
    c = t.condition(p2)["condition"]
    assert c["readiness"] == "ready" and c["ammo"] == 2
