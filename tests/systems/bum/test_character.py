"""Characters: the stat examples, Victor Mordox's card (Appendix B), Appendix A, and every creation rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storymaster.errors import CharacterError
from storymaster.systems.bum import BumCharacter, BumHouseRules
from storymaster.systems.bum.character import (
    WeaponEntry,
    attack_parts,
    attack_total,
    current_hp,
    hit_points,
    melee_defence,
    profile,
    ranged_defence,
    require_valid,
    validate,
    weapon_profile,
)
from storymaster.systems.bum.equipment import all_gear, find_gear


def make(stats=(2, 3, 3, 2), skills=(), **kw) -> BumCharacter:
    s = dict(zip(("STR", "DEX", "INT", "SOC"), stats, strict=True))
    sk = [{"name": n, "stat": st_, "points": p} for n, st_, p in skills]
    return BumCharacter.model_validate({"name": "T", "stats": s, "skills": sk, **kw})


TEN = (("A", "DEX", 2), ("B", "DEX", 2), ("C", "INT", 2), ("D", "INT", 2), ("E", "DEX", 2))


# -- Victor Mordox (Appendix B) ---------------------------------------------------------


def test_victor_mordox_card_totals(card):
    v = card("victor-mordox")
    assert validate(v) == []
    assert [attack_total(v, s) for s in ("primary", "ranged", "backup")] == [7, 7, 5]
    assert melee_defence(v) == 6
    assert ranged_defence(v) == 6
    assert hit_points(v) == 3 == current_hp(v)


def test_victor_mordox_attack_parts(card):
    v = card("victor-mordox")
    assert attack_parts(v, "primary") == [("STR", 3), ("Axe/Mace", 2), ("Battle Axe", 2)]
    assert attack_parts(v, "ranged") == [("DEX", 3), ("Crossbow", 2), ("Heavy Crossbow", 2)]
    # the card's Dagger skill is governed by DEX, so the dagger attacks with DEX (Part Three)
    assert attack_parts(v, "backup") == [("DEX", 3), ("Dagger", 1), ("Dagger", 1)]


def test_example_of_play_cards(card):
    p1, p2, thief = card("player1"), card("player2"), card("thief")
    for c in (p1, p2, thief):
        assert validate(c) == []
    # Player 1: sword 3+2+2 = 7; DEX 2 + shield 2 + maille 2 = 6 and 3 wounds
    assert attack_total(p1, "primary") == 7 and melee_defence(p1) == 6 and hit_points(p1) == 3
    # Player 2: crossbow 3+2+2 = 7, dagger (DEX) 3+2+1 = 6
    assert attack_total(p2, "ranged") == 7 and attack_total(p2, "backup") == 6
    # the thief: dagger with DEX 2 + skill 1 + 1 = 4; defence DEX 2 + leather 1 = 3
    assert attack_total(thief, "primary") == 4 and melee_defence(thief) == 3


# -- stats (Part Three) -------------------------------------------------------------------


@pytest.mark.parametrize(
    "stats", [(4, 2, 2, 2), (3, 3, 2, 2), (2, 2, 3, 3)], ids=["A-strong", "B-physical", "C-crafty"]
)
def test_stat_selection_examples_are_legal(stats):
    assert (
        validate(
            make(stats, (*TEN[:0], ("A", "INT", 2), ("B", "INT", 2), ("C", "SOC", 2), ("D", "SOC", 2), ("E", "STR", 2)))
        )
        == []
    )


def test_stats_must_total_ten_and_stay_in_1_to_4_all_problems_listed():
    c = make((5, 0, 3, 3), (("A", "INT", 2), ("B", "INT", 2), ("C", "SOC", 2), ("D", "SOC", 2), ("E", "INT", 2)))
    problems = validate(c)
    wheres = [p.where for p in problems]
    assert "stats.STR" in wheres and "stats.DEX" in wheres and "stats" in wheres
    assert any("above the maximum of 4" in p.message for p in problems)
    assert any("below the minimum of 1" in p.message for p in problems)
    assert any("11" in p.message for p in problems if p.where == "stats")
    with pytest.raises(CharacterError) as exc:
        require_valid(c)
    assert len(exc.value.problems) == len(problems) >= 3


def test_gm_may_allow_higher_stats():
    c = make((5, 2, 2, 1), (("A", "STR", 5), ("B", "DEX", 2), ("C", "INT", 2), ("D", "SOC", 1)))
    assert any(p.where == "stats.STR" for p in validate(c))
    assert validate(c, BumHouseRules(stat_max=5)) == []


# -- skills -------------------------------------------------------------------------------


def test_ten_skill_points_exactly():
    assert validate(make(skills=TEN)) == []
    over = validate(make(skills=(*TEN, ("F", "INT", 1))))
    assert any("only 10 are available" in p.message for p in over)
    under = validate(make(skills=TEN[:4]))
    assert any("2 skill point(s) are not assigned" in p.message for p in under)
    assert validate(make(skills=TEN[:4], banked_skill_points=2)) == []


def test_regular_guy_game_five_points():
    hr = BumHouseRules(skill_points=5)
    assert validate(make(skills=(("A", "DEX", 3), ("B", "INT", 2))), hr) == []


def test_skill_cap_at_governing_stat_is_on_by_default_and_optional():
    c = make((2, 3, 3, 2), (("Physics", "INT", 3), ("Lying", "SOC", 3), ("X", "DEX", 3), ("Y", "DEX", 1)))
    problems = validate(c)
    assert [p.where for p in problems] == ["skills[1] Lying"]
    assert "governing stat SOC 2" in problems[0].message
    assert validate(c, BumHouseRules(skill_cap_at_stat=False)) == []


def test_duplicate_skill_is_a_file_error():
    with pytest.raises(ValueError):
        make(skills=(("A", "DEX", 1), ("a", "INT", 1)))


def test_items_add_and_improvised_items_subtract():
    c = make(
        skills=TEN,
        items=[{"name": "Bobby pin", "bonus": -2, "applies_to": "Lockpicking"}, {"name": "Compass", "bonus": 1}],
    )
    assert [i.bonus for i in c.items] == [-2, 1]


# -- Appendix A ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,attack,defence",
    [
        ("dagger", 1, 0),
        ("nunchaku", 1, 0),
        ("sword", 2, 0),
        ("warhammer", 2, 0),
        ("spear", 1, 1),
        ("rapier", 1, 1),
        ("hooksword", 1, 1),
        ("longsword", 2, 1),
        ("katana", 2, 1),
        ("longspear", 2, 1),
        ("quarterstaff", 1, 2),
        ("two-handed battleaxe", 4, 0),
        ("greatsword", 3, 1),
        ("halberd", 3, 1),
        ("buckler", 0, 1),
        ("small shield", 0, 2),
        ("tower shield", -1, 3),
        ("thrown knife", -1, None),
        ("javelin", 0, 0),
        ("shortbow", 0, 0),
        ("longbow", 1, 0),
        ("small crossbow", 1, 0),
        ("smoothbore pistol", 1, 0),
        ("large crossbow", 2, 0),
        ("musket", 2, 0),
        ("leather", 0, 1),
        ("brigandine", 0, 2),
        ("light plate", 0, 3),
        ("jousting armor", -1, 4),
    ],
)
def test_appendix_a_table(name, attack, defence):
    g = find_gear(name)
    assert g is not None and (g.attack, g.defence) == (attack, defence)


def test_appendix_a_rows_are_all_loaded():
    assert len(all_gear()) == 8 + 3 + 8 + 4


def test_leather_armour_is_plus_one_defence_not_attack():
    """Rules question 5: the Example of Play's '(1 ATK)' for leather is a slip; the table's +1 DEF wins."""
    g = find_gear("leather armor", "armour")
    assert (g.attack, g.defence) == (0, 1)


def test_longsword_one_or_two_hands():
    two = weapon_profile(WeaponEntry(name="Katana"))
    one = weapon_profile(WeaponEntry(name="Katana"), with_shield=True)
    forced = weapon_profile(WeaponEntry(name="Bastard sword", grip="one"))
    assert (two.attack, two.defence, two.hands) == (2, 1, 2)
    assert (one.attack, one.defence, one.hands) == (2, 0, 1)
    assert (forced.attack, forced.defence) == (2, 0)


def test_two_handed_weapon_and_shield_is_a_problem():
    c = make(skills=TEN, weapons={"primary": {"name": "Greatsword"}}, shield={"name": "Buckler"})
    assert any("no hand for the shield" in p.message for p in validate(c))
    c2 = make(skills=TEN, weapons={"primary": {"name": "Longsword", "grip": "two"}}, shield={"name": "Buckler"})
    assert any("no hand for the shield" in p.message for p in validate(c2))


def test_musket_deals_two_wounds_others_one():
    assert weapon_profile(WeaponEntry(name="Musket")).wounds == 2
    assert weapon_profile(WeaponEntry(name="Longbow")).wounds == 1
    assert weapon_profile(WeaponEntry(name="Greatsword")).wounds == 1


def test_ranged_defence_drops_the_weapon_defence_bonus():
    c = make(skills=TEN, weapons={"primary": {"name": "Quarterstaff"}}, armour={"name": "Maille"})
    assert melee_defence(c) == 3 + 2 + 2
    assert ranged_defence(c) == 3 + 2


def test_shield_attack_penalty_applies_to_melee_not_ranged():
    c = make(
        skills=TEN,
        weapons={"primary": {"name": "Sword"}, "ranged": {"name": "Javelin"}},
        shield={"name": "Tower shield"},
    )
    assert attack_total(c, "primary") == 2 + 2 - 1
    assert attack_total(c, "ranged") == 3 + 0


def test_jousting_armour_attack_penalty_applies_to_all_attacks():
    c = make(
        skills=TEN,
        weapons={"primary": {"name": "Sword"}, "ranged": {"name": "Longbow"}},
        armour={"name": "Jousting armor"},
    )
    assert attack_total(c, "primary") == 2 + 2 - 1
    assert attack_total(c, "ranged") == 3 + 1 - 1


def test_home_made_weapon_and_unknown_weapon():
    ok = make(skills=TEN, weapons={"primary": {"name": "Laser sword", "attack": 2, "defence": 1}})
    assert validate(ok) == [] and attack_total(ok, "primary") == 4 and melee_defence(ok) == 3 + 1
    bad = make(skills=TEN, weapons={"primary": {"name": "Laser sword"}, "ranged": {"name": "Sword"}})
    msgs = [p.message for p in validate(bad)]
    assert any("not an Appendix A weapon" in m for m in msgs) and any("not a ranged weapon" in m for m in msgs)


def test_weapon_skill_must_be_on_the_card():
    c = make(skills=TEN, weapons={"primary": {"name": "Sword", "skill": "Swordplay"}})
    assert any("Swordplay" in p.message for p in validate(c))


def test_readiness_only_for_missile_weapons():
    c = make(
        skills=TEN,
        weapons={
            "primary": {"name": "Sword", "readiness": "unready"},
            "ranged": {"name": "Longbow", "readiness": "cocked"},
        },
    )
    msgs = [p.message for p in validate(c)]
    assert any("only applies to bows" in m for m in msgs) and any("only a crossbow" in m for m in msgs)


def test_wounds_reduce_hp_not_below_zero():
    c = make(skills=TEN, wounds=[{"cause": "sword"}] * 3)
    assert hit_points(c) == 2 and current_hp(c) == 0


def test_npc_not_held_to_budgets(card):
    thief = card("thief")
    assert thief.stats.total() == 7 and validate(thief) == []
    bear = BumCharacter.model_validate({"name": "Bear", "npc": True, "stats": {"STR": 6, "DEX": 2, "INT": 1, "SOC": 0}})
    assert validate(bear) == [] and hit_points(bear) == 6
    assert validate(bear.model_copy(update={"npc": False}))  # a player character could not be one


@given(st.lists(st.integers(1, 4), min_size=4, max_size=4))
def test_any_legal_stat_spread_validates(values):
    c = make(tuple(values), (("A", "STR", 0),), banked_skill_points=10)
    problems = validate(c)
    assert (sum(values) == 10) == (problems == [])


def test_profile_for_empty_slot_is_none(card):
    assert profile(card("player1"), "ranged") is None


def test_illustrative_levels():
    from storymaster.systems.bum.levels import skill_label, stat_label

    assert stat_label("STR", 4) == "Weightlifter/Mighty" and stat_label("INT", 2) == "Average"
    assert stat_label("SOC", 6) == "beyond the human scale"
    assert [skill_label(p) for p in (1, 2, 3, 4)] == [
        "Familiar",
        "Proficient/well trained",
        "Expert/specialist",
        "Master",
    ]


def test_card_view_has_labels(card):
    from storymaster.systems.bum import SYSTEM

    sheet = SYSTEM.sheet(card("victor-mordox"))
    strength = sheet.section("stats").values[0]
    assert (strength.label, strength.value, strength.note) == ("STR", 3, "Works out/big")
    assert sheet.section("skills").rows[0][3] == "Proficient/well trained"


# -- issue 14: the book read again ---------------------------------------------------------


def test_stats_only_character_is_the_most_basic_form():
    """Part Three: "with your stats chosen you can play the game in the most basic form"; Part Eight step 4."""
    assert validate(make()) == []
    # once the skills step is begun, the budget holds again, and the message says how to save the rest
    under = validate(make(skills=TEN[:1]))
    assert [p.where for p in under] == ["skills"]
    assert "8 skill point(s) are not assigned" in under[0].message and "banked_skill_points: 8" in under[0].message
    # the stats are still held to the ten points
    assert any("exactly 10" in p.message for p in validate(make((3, 3, 3, 3))))


def test_weapon_attacks_with_its_skills_governing_stat(card):
    """Part Three: "The governing stat is the one that adds to the total roll for a given skill attempt".

    The Example of Play's Player 2 stabs with his dagger: "He adds his DEX of 3, skill of 2, and weapon
    bonus of 1" (rolled 4, total 10). His Dagger skill is a DEX skill; without the card's `stat: DEX`
    the attack still adds DEX 3 (STR 2 would make it 9).
    """
    p2 = card("player2")
    plain = p2.model_copy(
        update={"weapons": p2.weapons.model_copy(update={"backup": WeaponEntry(name="Dagger", skill="Dagger")})}
    )
    assert 4 + attack_total(plain, "backup") == 10
    assert attack_parts(plain, "backup")[0] == ("DEX", 3)
    # no skill on the card: STR for melee (Part Three, STR), DEX for missiles
    bare = make((3, 1, 3, 3), weapons={"primary": {"name": "Dagger"}, "ranged": {"name": "Shortbow"}})
    assert attack_parts(bare, "primary")[0] == ("STR", 3) and attack_parts(bare, "ranged")[0] == ("DEX", 1)
    # a skill the card does not have gives no stat either (and is a problem)
    ghost = make((3, 1, 3, 3), weapons={"primary": {"name": "Dagger", "skill": "Knives"}})
    assert attack_parts(ghost, "primary")[0] == ("STR", 3)


def test_card_warns_when_weapon_stat_and_skill_stat_differ():
    from storymaster.systems.bum import SYSTEM
    from storymaster.systems.bum.character import stat_conflicts

    c = make(
        (3, 1, 3, 3),
        (("Sword", "STR", 3), *TEN[2:4], ("G", "SOC", 3)),
        weapons={"primary": {"name": "Sword", "skill": "Sword", "stat": "DEX"}},
    )
    [w] = stat_conflicts(c)
    assert w.where == "weapons.primary Sword" and "DEX" in w.message and "STR" in w.message
    assert attack_parts(c, "primary")[0] == ("DEX", 1)  # the card's choice is what is rolled
    assert validate(c) == []  # a warning, not a problem: the GM may allow it
    assert SYSTEM.sheet(c).section("weapons").note == f"warning: {w}"  # on the card, beside the weapons
    same = make((3, 1, 3, 3), weapons={"primary": {"name": "Sword", "skill": "Sword", "stat": "STR"}})
    assert stat_conflicts(same) == []


def test_png_card_shows_every_item_and_its_bonus(card):
    """Appendix B: "list other relevant items and their bonuses"; the HTML and the PNG show the same."""
    from storymaster.present import card_html, card_png
    from storymaster.systems.bum import SYSTEM

    p1 = card("player1")
    many = p1.model_copy(
        update={
            "items": (
                *p1.items,
                *(
                    type(p1.items[0])(name=f"Item {k} with a long name", bonus=k - 2, applies_to="Tracking", quantity=k)
                    for k in range(1, 5)
                ),
            )
        }
    )
    sheet = SYSTEM.sheet(many)
    shown = sheet.section("items").rows
    assert shown[0] == ("Suture kit", "+1", "Medicine", 1)  # Part Eight: "item bonus of 1 from the suture kit"
    assert shown[1:] == (
        ("Item 1 with a long name", "-1", "Tracking", 1),
        ("Item 2 with a long name", "", "Tracking", 2),
        ("Item 3 with a long name", "+1", "Tracking", 3),
        ("Item 4 with a long name", "+2", "Tracking", 4),
    )
    html = card_html(sheet)
    assert all(f"<td>{name}</td><td>{bonus}</td>" in html for name, bonus, _, _ in shown)
    # the image grows with the rows, so the last item is inside it (PNG height: bytes 20-24 of the header):
    # 4 more rows of 0.19 inch at 120 dpi
    tall, short = card_png(sheet), card_png(SYSTEM.sheet(p1))
    assert int.from_bytes(tall[20:24], "big") - int.from_bytes(short[20:24], "big") == pytest.approx(
        4 * 0.19 * 120, abs=2
    )
