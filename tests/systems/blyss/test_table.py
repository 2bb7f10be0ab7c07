"""BLYSS characters at the table: a wound sequence by Table 2-03, fatigue, hunger and thirst over time,
experience awarded and spent. Expected values are the book's (BLYSS 3.5 Basic Rules: Derived Attributes,
Wounds / Unconsciousness / Dying, Fatigue / Hunger / Thirst, Experience), worked out by hand here.

Yama Wolfclaw (examples/blyss/warrior.yaml): Agility 4 + 2 extra Dodges = 6 Dodges; Stamina 4 = 4 Flesh
Wounds; Stamina x 6 + 10 extra = 34 Health. Light Wounds at 12 Health lost (a third of 34, rounded up),
Moderate at 23 (two thirds, rounded up), Heavy below 10 Health.
"""

from __future__ import annotations

from living.livekit import build_live, example

STRENGTH_TEST = {"type": "test", "name": "Strength + Armed Combat", "ranks": [4, 3], "td": 6}


def _vitals(t, ch) -> dict:
    return t.condition(ch)["condition"]["vitals"]


def test_a_wound_sequence_by_table_2_03(client) -> None:
    t = build_live(client, "blyss", example("blyss", "warrior"), example("blyss", "rogue"))
    yama = t.a
    v = _vitals(t, yama)
    assert (v["dodges"], v["flesh_wounds"], v["health"]) == (6, 4, 34)
    steps = [
        # (damage, dodges, flesh wounds, health, Wound Level, rank penalty, die modifier)
        (6, 0, 4, 34, "Healthy", 0, 0),  # Dodges first; no Flesh Wound taken yet
        (1, 0, 3, 34, "Flesh Wounds", 0, -1),  # "-1 to all rolls"
        (14, 0, 0, 23, "Flesh Wounds", 0, -1),  # 11 Health lost: not yet a third
        (1, 0, 0, 22, "Light Wounds", 1, 0),  # 12 lost: "-1 rank to all Tests"
        (11, 0, 0, 11, "Moderate Wounds", 2, 0),  # 23 lost: "-2 ranks"
        (2, 0, 0, 9, "Heavy Wounds", 3, 0),  # "below 10 Health": "-3 ranks"
    ]
    for dmg, d, f, h, level, ranks, die in steps:
        t.act(yama, {"action": "damage", "amount": dmg, "source": "a rockslide"})
        cond = t.condition(yama)
        v = cond["condition"]["vitals"]
        assert (v["dodges"], v["flesh_wounds"], v["health"]) == (d, f, h)
        assert cond["summary"] == level
        felt = t.preview(STRENGTH_TEST, yama)["check"]
        assert (felt["penalty_ranks"], felt["die_modifier"]) == (ranks, die), level
    # "If a character is reduced to 0 Health, they are automatically knocked unconscious."
    t.act(yama, {"action": "damage", "amount": 9})
    v = _vitals(t, yama)
    assert v["health"] == 0 and v["unconscious"] and not v["dying"]
    assert t.condition(yama)["summary"] == "Unconscious"
    # "If a character's health is taken below 0 ... they are considered to be dying."
    t.act(yama, {"action": "damage", "amount": 1})
    assert _vitals(t, yama)["dying"] and t.condition(yama)["summary"] == "Dying"
    # the dying check rolls dice: in a scene, on its stream; without one the table says where to send it
    r = t.act(yama, {"action": "dying_check"}, expect=422)
    assert "scene" in r["detail"]
    t.act_in_scene(yama, {"action": "dying_check"})
    v = _vitals(t, yama)
    assert v["stabilised"] or v["dying_checks"] == 1  # "Stamina check against a set TD of 6"
    told = [p for p in t.posts() if p["kind"] == "table"]
    assert told and told[0]["rolls"] and "Yama Wolfclaw" in told[0]["text"]
    # healing is the SM's: the book gives no rate, so the table asks for the reason
    t.act(yama, {"action": "heal", "health": 10}, expect=422)
    t.act(yama, {"action": "heal", "health": 10, "wake": True}, reason="a week in the temple's care")
    v = _vitals(t, yama)
    assert v["health"] == 9 and not v["unconscious"] and not v["dying"]
    # a player cannot heal himself by the API; the history names every change and why
    t.act(yama, {"action": "heal", "health": 1}, who=t.p1, expect=403, reason="I feel better")
    history = t.condition(yama)["history"]
    assert [h["why"]["kind"] for h in history][-2:] == ["dying_check", "heal"]
    assert history[-1]["why"]["reason"] == "a week in the temple's care"
    t.close_and_export()


def test_fatigue_hunger_and_thirst_when_the_sm_advances_time(client) -> None:
    t = build_live(client, "blyss", example("blyss", "warrior"), example("blyss", "rogue"))
    yama = t.a  # Stamina 4: the Threshold is 4 x 8 = 32 hours
    t.act(yama, {"action": "time", "hours": 32})
    assert t.condition(yama)["penalties"] == []
    t.act(yama, {"action": "time", "hours": 1})  # one hour past the Threshold awake: -1 rank
    c = t.condition(yama)["condition"]
    assert (c["fatigue"], c["hunger"], c["thirst"]) == (1, 0, 0)
    # "all of their attributes and traits ... temporarily decrease by one rank": both statistics of the pool
    felt = t.preview({"type": "test", "ranks": [4, 3], "td": 6}, yama)
    assert felt["check"]["penalty_ranks"] == 2
    # without food or drink for 56 hours: hunger after 24 hours past the Threshold, thirst every 2 hours
    t.act(yama, {"action": "time", "hours": 56, "asleep": True, "eating": False, "drinking": False})
    c = t.condition(yama)["condition"]
    assert (c["fatigue"], c["hunger"], c["thirst"]) == (0, 1, 12)  # 56 h asleep recovers the fatigue
    penalties = t.condition(yama)["penalties"]
    assert [(p["label"], p["amount"]) for p in penalties] == [("Unconscious", 0), ("Hunger", -1), ("Thirst", -12)]
    # Mental Fortitude 3 - 13 reaches 0: "the character can no longer stay awake and falls unconscious"
    assert _vitals(t, yama)["unconscious"]
    # drinking: one rank back per four hours
    t.act(yama, {"action": "time", "hours": 8, "eating": False})
    assert t.condition(yama)["condition"]["thirst"] == 10


def test_experience_is_awarded_by_the_sm_and_spent_by_the_player(client) -> None:
    t = build_live(client, "blyss", example("blyss", "warrior"), example("blyss", "rogue"))
    yama = t.a
    award = {"kind": "award", "challenges": 1, "roleplaying": 2, "learned": True}
    t.advance(yama, award, who=t.p1, expect=403)  # the SM awards CP
    t.advance(yama, {**award, "roleplaying": 4}, expect=422)  # "an extra 1-3 CP for good roleplaying"
    out = t.advance(yama, award)
    assert out["sheet"]["cp_earned"] == 7  # "Always award 3 CP" + 1 + 2 + 1
    # "you don't have to fully buy a rank, just note how many CP you have spent towards it"
    t.advance(yama, {"kind": "spend", "target": "Strength", "cp": 7}, who=t.p1)
    assert t.sheet(yama)["attributes"]["strength"] == 4
    # "24 CP for 'Good' (d12)", the rank above Strength 4 (Above Average): 7 + 16 is not enough, + 1 is
    t.advance(yama, {"kind": "spend", "target": "Strength", "cp": 16}, who=t.p1)
    assert t.sheet(yama)["attributes"]["strength"] == 4
    t.advance(yama, {"kind": "spend", "target": "Strength", "cp": 1}, who=t.p1)
    assert t.sheet(yama)["attributes"]["strength"] == 5
    # more than is left to spend is refused; another player may not spend Yama's CP
    t.advance(yama, {"kind": "spend", "target": "Agility", "cp": 500}, who=t.p1, expect=422)
    t.advance(yama, {"kind": "spend", "target": "Agility", "cp": 1}, who=t.p2, expect=403)
    history = t.condition(yama)["history"]
    assert [h["why"]["kind"] for h in history] == ["advance"] * 4


def test_deprivation_can_cost_the_test_once_by_house_rule(client) -> None:
    t = build_live(
        client,
        "blyss",
        example("blyss", "warrior"),
        example("blyss", "rogue"),
        house_rules={"deprivation_penalty": "per_test"},
    )
    t.act(t.a, {"action": "time", "hours": 33})  # one hour past the Threshold
    felt = t.preview({"type": "test", "ranks": [4, 3], "td": 6}, t.a)
    assert felt["check"]["penalty_ranks"] == 1


def test_the_sm_advances_time_for_everyone_and_the_sheet_shows_it(client) -> None:
    t = build_live(client, "blyss", example("blyss", "warrior"), example("blyss", "rogue"))
    changed = t.call(
        "POST", f"/api/campaigns/{t.campaign}/actions", t.gm, request={"action": "time", "hours": 40, "eating": False}
    )
    assert {c["character"] for c in changed} == {t.a, t.b}
    # Yama (Stamina 4, Threshold 32 hours): 8 hours past it awake
    assert t.condition(t.a)["condition"]["fatigue"] == 8
    t.call("POST", f"/api/campaigns/{t.campaign}/actions", t.p1, 403, request={"action": "time", "hours": 1})
    t.act(t.a, {"action": "damage", "amount": 7})
    sheet = t.call("GET", f"/api/campaigns/{t.campaign}/characters/{t.a}/sheet", t.p2)
    res = next(s for s in sheet["sections"] if s["kind"] == "resources")
    got = {v["key"]: (v["value"], v.get("maximum")) for v in res["values"]}
    assert got["dodges"] == (0, 6) and got["flesh_wounds"] == (3, 4) and got["health"] == (34, 34)


def test_armour_with_a_life_left_is_repaired_and_ruined_armour_is_not(client) -> None:
    t = build_live(client, "blyss", example("blyss", "warrior"), example("blyss", "rogue"))
    t.adjust(t.a, {"armour_lives": [1]}, reason="the chainmail took the blows")
    t.act(t.a, {"action": "repair", "armour": "Chainmail"})
    assert t.condition(t.a)["condition"]["armour_lives"] == [2]
    t.adjust(t.a, {"armour_lives": [0]}, reason="ruined by acid")
    # "once it is reduced 0 'lives' it is irreparably destroyed"
    r = t.act(t.a, {"action": "repair", "armour": "Chainmail"}, expect=422)
    assert "destroyed" in r["detail"]
    t.act(t.a, {"action": "repair", "armour": "Plate"}, expect=422)


def test_a_character_out_from_thirst_makes_starvation_checks_in_a_scene(client) -> None:
    t = build_live(client, "blyss", example("blyss", "warrior"), example("blyss", "rogue"))
    yama = t.a
    t.act(yama, {"action": "starvation_check"}, expect=422)  # not unconscious from hunger or thirst
    t.act(yama, {"action": "time", "hours": 40, "drinking": False})  # 8 hours past the Threshold: Thirst 4
    assert _vitals(t, yama)["unconscious"]  # Stamina 4 - 4 reaches 0
    r = t.act(yama, {"action": "starvation_check"}, expect=422)
    assert "scene" in r["detail"]
    t.act_in_scene(yama, {"action": "starvation_check"})
    # "a Stamina Test ... at a TD of 10. If they fail, the character loses a Wound's worth of Health"
    # (ruling: a third of maximum Health, rounded up: 12 of 34)
    assert _vitals(t, yama)["health"] in (34, 34 - 12)
    told = [p for p in t.posts() if p["kind"] == "table"][-1]
    assert told["text"].startswith("Yama Wolfclaw ") and told["text"].count("Yama Wolfclaw") == 1
