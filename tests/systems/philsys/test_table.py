"""Philsys characters at the table: the walkthrough's Aya against the guard (Combat: Attack/Resolution and
magic), critical health, unconsciousness, and experience and level-ups. Expected values are the book's.

Aya du Mythril (examples/philsys/aya.yaml): STA +1, MAG 5, INT 3, WIS 3, robes AC 6. HP "55 + (Stamina
* 5)" = 60; MP "(Magical Aptitude * 10) + (Intuition * 5) + (Wisdom * 5)" = 80.
"""

from __future__ import annotations

from living.livekit import build_live, example


def _c(t, ch) -> dict:
    return t.condition(ch)["condition"]


def test_the_walkthrough_aya_and_the_guard(client) -> None:
    t = build_live(client, "philsys", example("philsys", "aya"), example("philsys", "guard"))
    aya = t.a
    assert (_c(t, aya)["hp"], _c(t, aya)["mp"]) == (60, 80)
    # "hits Aya for 21 damage. Aya is wearing robes with an AC of 6, so the damage is reduced by 2 to 19."
    t.act(aya, {"action": "damage", "amount": 21, "source": "the guard's slash"})
    assert _c(t, aya)["hp"] == 60 - 19
    # "Flare Arrow costs 14 MP, which is deducted before the spell takes effect" (resisted or not)
    t.act(aya, {"action": "spend", "mp": 14, "what": "Flare Arrow"}, who=t.p1)
    assert _c(t, aya)["mp"] == 80 - 14
    # "If a character has no MP when casting a spell, the cost is deducted from HP instead."
    t.adjust(aya, {"mp": 5}, reason="she spent her mana on the way")
    t.act(aya, {"action": "spend", "mp": 14, "what": "Flare Arrow"}, who=t.p1)
    assert (_c(t, aya)["mp"], _c(t, aya)["hp"]) == (0, 41 - 9)
    # critical health: "roughly 10-15 HP or less ... -3/-3 ... to their AT/PA, and ... an equal penalty
    # to all spellcasting rolls" (the campaign's book default: 15 HP and -3)
    t.act(aya, {"action": "damage", "amount": 17, "armour": False})
    assert _c(t, aya)["hp"] == 15
    melee = t.preview({"type": "melee", "at": 10, "pa": 16}, aya)
    assert melee["check"]["at"] == 7 and melee["penalties"][0]["label"] == "Critical health"
    spell = t.preview({"type": "magic", "attack": 15, "resist": 16}, aya)
    assert spell["check"]["attack"] == 12  # the walkthrough's 15 less 3
    # "When a character reaches 0 HP or less ... they fall unconscious."
    t.act(aya, {"action": "damage", "amount": 20, "armour": False})
    assert _c(t, aya)["unconscious"] and t.condition(aya)["summary"] == "unconscious"
    t.act(aya, {"action": "spend", "mp": 1}, who=t.p1, expect=422)  # an unconscious mage casts nothing
    # "healed to a positive HP value and wait a number of rounds equal to 10-STA": the GM says how much
    t.act(aya, {"action": "heal", "hp": 30}, expect=422)
    t.act(aya, {"action": "heal", "hp": 30}, reason="the guild's healer")
    c = _c(t, aya)
    assert c["hp"] == 25 and c["unconscious"] and c["wake_in"] == 10 - 1
    t.act(aya, {"action": "wake"})  # "or until combat ends"
    assert not _c(t, aya)["unconscious"] and t.condition(aya)["penalties"] == []
    t.close_and_export()


def test_experience_is_the_gms_and_a_level_up_rolls_in_a_scene(client) -> None:
    t = build_live(client, "philsys", example("philsys", "aya"), example("philsys", "guard"))
    aya = t.a
    t.act(aya, {"action": "damage", "amount": 10, "armour": False})  # 50 of 60 HP going in
    t.advance(aya, {"kind": "xp", "amount": 999}, who=t.p1, expect=403)  # "the GM will award XP"
    t.advance(aya, {"kind": "xp", "amount": 999})
    level = {"kind": "level", "primary": "MAG", "secondary": "INT", "skills": ["Fire Magic"]}
    # level 2 needs 1000 XP: refused at 999, and only the GM may waive it
    t.call("POST", f"/api/scenes/{t.scene}/characters/{aya}/advance", t.p1, 422, request=level)
    t.call("POST", f"/api/scenes/{t.scene}/characters/{aya}/advance", t.p1, 403, request={**level, "ignore_xp": True})
    t.advance(aya, {"kind": "xp", "amount": 1})
    # the level-up rolls d100s and dice for HP/MP/TP: not outside a scene
    t.advance(aya, level, who=t.p1, expect=422)
    out = t.call("POST", f"/api/scenes/{t.scene}/characters/{aya}/advance", t.p1, request=level)
    sheet = out["sheet"]
    assert sheet["level"] == 2 and sheet["xp"] == 0  # "The XP count resets after the level is gained"
    hp = next(v for v in out["condition"]["sections"][0]["values"] if v["key"] == "hp")
    assert 60 + 1 + 1 <= hp["maximum"] <= 60 + 1 + 6  # "STA+1d6 additional max hit points"
    assert hp["value"] == hp["maximum"] - 10  # the new points are there to use; the wound stays
    told = [p for p in t.posts() if p["kind"] == "table"]
    assert told and told[0]["rolls"]  # the level's dice are in the scene, on its stream
    t.close_and_export()


def test_critical_health_leaves_missile_attacks_alone_unless_the_house_rule_says(client) -> None:
    for house, expected in (({}, 14), ({"critical_health_missile": True}, 11)):
        t = build_live(client, "philsys", example("philsys", "aya"), example("philsys", "guard"), house_rules=house)
        t.act(t.a, {"action": "damage", "amount": 50, "armour": False})  # 10 HP: critical health
        shot = t.preview({"type": "missile", "attack": 14, "defence": 8}, t.a)
        assert shot["check"]["attack"] == expected
