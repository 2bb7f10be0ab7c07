"""Kalyr characters at the table: the bandit fight of the Example of Damage, Fudge points and experience.

Expected values are the book's (Kalyr RPG ch. 3: Damage, Example of Damage, Effects of Damage,
Getting rid of damage, Fudge Points, Character Advancement)."""

from __future__ import annotations

from living.livekit import build_live, example


def _track(cond: dict, track: str = "physical") -> list[str]:
    return [w["box"] for w in cond["condition"]["damage"][track]["wounds"]]


def test_the_bandit_fight_of_the_example_of_damage(client) -> None:
    t = build_live(client, "kalyr", example("kalyr", "kylar"), example("kalyr", "bandit"))
    kylar, bandit = t.a, t.b
    # "Both combatants end up rolling results of Great ... the margin of success is zero."
    # Kylar: "+3 for the mace and another +2 for the aggressive attack ... subtracting 2 for Kylar's armour: +3"
    t.act(kylar, {"action": "damage", "margin": 0, "weapon": 3, "armour": 2, "approach": 2})
    # the bandit: "+3 for the sword, +1 for that extra damage gift, +2 ... manic attack ... armour takes one away"
    t.act(bandit, {"action": "damage", "margin": 0, "weapon": 3, "gift": 1, "armour": 1, "approach": 2})
    k, b = t.condition(kylar), t.condition(bandit)
    assert k["summary"] == "Very Hurt (physical)"  # "which leaves Kylar Very Hurt"
    assert b["summary"] == "Destroyed (physical)"  # "this leaves him as Destroyed"
    assert b["condition"]["keys_due"] == 1  # Destroyed: "they gain a new Key"
    # Effects of Damage: "one who is Very Hurt is at -2 in a conflict of the same type"
    assert [p["amount"] for p in k["penalties"]] == [-2]
    check = {"type": "unopposed", "actor": {"ability": "Great", "name": "Kylar: Melee Combat (Narvork)"}}
    preview = t.preview(check, kylar)
    assert preview["check"]["actor"]["modifier"] == -2 and preview["penalties"][0]["amount"] == -2
    # a mental ability is not touched by physical wounds
    mental = t.preview({"type": "unopposed", "actor": {"ability": "Good", "name": "Kylar: Tactics"}}, kylar)
    assert mental["check"]["actor"].get("modifier", 0) == 0
    # the history says who did what and why
    assert [h["why"]["kind"] for h in k["history"]] == ["damage"]
    # a Scratch "goes away at the end of a scene"; the Very Hurt stays
    t.act(kylar, {"action": "damage", "margin": 1})
    assert sorted(_track(t.condition(kylar))) == ["Scratch", "Very Hurt"]
    t.act(kylar, {"action": "end_scene"})
    assert _track(t.condition(kylar)) == ["Very Hurt"]
    # "A Good result on a medical ... healing skill heals all damage one level (... Very Hurt to Hurt)"
    t.act(kylar, {"action": "heal", "track": "physical", "result": "Good"})
    k = t.condition(kylar)
    assert _track(k) == ["Hurt"] and k["summary"] == "Hurt (physical)" and k["penalties"][0]["amount"] == -1
    # "all damage heals on their own at one wound level per week of rest"
    t.act(kylar, {"action": "rest", "weeks": 1})
    assert t.condition(kylar)["summary"] == "unhurt" and t.condition(kylar)["penalties"] == []
    doc = t.close_and_export()
    assert doc["campaign"]["characters"][str(bandit)]["summary"] == "Destroyed (physical)"


def test_fudge_points_earn_experience_and_buy_by_the_cost_table(client) -> None:
    t = build_live(client, "kalyr", example("kalyr", "kylar"), example("kalyr", "bandit"))
    kylar = t.a
    assert t.condition(kylar)["condition"]["fudge_points"] == 1  # "characters gain one Fudge Point"
    # the player spends it ("Every time a player spends a Fudge Point, they gain an Experience Point")
    t.act(kylar, {"action": "spend_fudge", "use": "automatic"}, who=t.p1)
    assert t.condition(kylar)["condition"]["fudge_points"] == 0
    assert t.sheet(kylar)["experience"] == 1
    # none left: refused
    r = t.act(kylar, {"action": "spend_fudge", "use": "automatic"}, who=t.p1, expect=422)
    assert "Fudge" in r["detail"] or "fudge" in r["detail"]
    # another player may not spend Kylar's points; gaining one for a Key is the GM's call
    t.act(kylar, {"action": "spend_fudge", "use": "automatic"}, who=t.p2, expect=403)
    t.act(kylar, {"action": "gain_fudge", "key": "Loyal to his clan"}, who=t.p1, expect=403)
    t.act(kylar, {"action": "gain_fudge", "key": "Loyal to his clan"})
    assert t.condition(kylar)["condition"]["fudge_points"] == 1
    # Brawling Fair -> Good costs more than the 1 XP he has: refused where the book refuses
    r = t.advance(kylar, {"action": "buy", "purchases": [{"name": "Brawling"}]}, who=t.p1, expect=422)
    assert "XP" in r["detail"] or "experience" in r["detail"]
    # the GM's veto is the GM's: a player cannot set it
    t.act(kylar, {"action": "spend_fudge", "use": "story", "vetoed": True}, who=t.p1, expect=403)


def test_the_end_of_a_scene_clears_the_casts_scratches(client) -> None:
    t = build_live(client, "kalyr", example("kalyr", "kylar"), example("kalyr", "bandit"))
    for ch in (t.a, t.b):
        t.act(ch, {"action": "damage", "margin": 1})  # 1 point: a Scratch
    t.act(t.a, {"action": "damage", "margin": 2})  # 2 points: Hurt
    t.call("POST", f"/api/campaigns/{t.campaign}/actions", t.gm, request={"action": "end_scene"}, characters=[t.a, t.b])
    # "Scratches go away at the end of a scene"
    assert _track(t.condition(t.a)) == ["Hurt"] and _track(t.condition(t.b)) == []


def test_closing_a_scene_clears_its_casts_scratches(client) -> None:
    """ "Scratches go away at the end of a scene" (Getting rid of damage): closing the scene at the table applies
    it to the scene's cast, each change on the log with the reason "end of scene"; a character who is not in
    the scene keeps theirs, and a wound worse than a Scratch stays."""
    t = build_live(client, "kalyr", example("kalyr", "kylar"), example("kalyr", "bandit"))
    for ch in (t.a, t.b):
        t.act(ch, {"action": "damage", "margin": 1})  # 1 point: a Scratch
    t.act(t.a, {"action": "damage", "margin": 2})  # 2 points: Hurt
    r = t.call("POST", f"/api/campaigns/{t.campaign}/scenes", t.gm, 201, title="Kylar alone", cast=[t.a])
    alone = r["id"]
    t.call("POST", f"/api/scenes/{alone}/close", t.gm)
    assert _track(t.condition(t.a)) == ["Hurt"]
    assert _track(t.condition(t.b)) == ["Scratch"]  # not in that scene
    last = t.condition(t.a)["history"][-1]
    assert last["why"] == {"kind": "end_scene", "reason": "end of scene", "scene": alone}
    # closing the first scene (both in its cast) clears the bandit's; the export verifies
    t.close_and_export()
    assert _track(t.condition(t.b)) == []
    assert t.condition(t.b)["history"][-1]["why"]["reason"] == "end of scene"
    # the GM's action stays: a Scratch taken later is cleared by it
    t.act(t.a, {"action": "damage", "margin": 1})
    t.act(t.a, {"action": "end_scene"})
    assert _track(t.condition(t.a)) == ["Hurt"]
