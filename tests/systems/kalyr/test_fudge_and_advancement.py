"""Fudge points and character advancement (Kalyr RPG ch. 3: Fudge Points; Character Advancement)."""

from __future__ import annotations

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import AdvancementError, CheckError
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.advancement import (
    AddKey,
    Buy,
    EndScene,
    EndSession,
    GainFudge,
    Heal,
    Purchase,
    Rest,
    SpendFudge,
    TakeWound,
    purchase_cost,
)
from storymaster.systems.kalyr.character import Character, Key, find_ability
from storymaster.systems.kalyr.checks import AbilityRoll, OpposedCheck, UnopposedCheck, retro_shift
from storymaster.systems.kalyr.fudge import allowance, convert_at_session_end, gain_for_key, spend
from storymaster.systems.kalyr.ladder import parse_level
from storymaster.systems.kalyr.options import KalyrHouseRules

L = parse_level
RNG = DiceRng("adv")


def adv(c, req, hr=None):
    return SYSTEM.advance(c, req, RNG, hr)


def test_starting_point_and_npc_allowances():
    assert Character(name="PC").fudge_points == 1
    assert allowance("pc") == 1 and allowance("major_villain") == 1
    assert allowance("henchman") == 1 and allowance("henchman", henchman_points=2) == 2
    assert allowance("cannon_fodder") == 0
    with pytest.raises(CheckError):
        allowance("henchman", henchman_points=3)


def test_gain_when_a_key_comes_into_play(example):
    k = example("kylar")
    k2 = gain_for_key(k, "loyal to his clan")
    assert k2.fudge_points == 2
    with pytest.raises(CheckError):
        gain_for_key(k, "Greed")
    new, events = adv(k, GainFudge(key="Loyal to his clan"))
    assert new.fudge_points == 2 and "Fudge point" in events[0].text


def test_spending_earns_experience_and_needs_a_point():
    c = Character(name="X")
    c2 = spend(c, "retro")
    assert (c2.fudge_points, c2.experience) == (0, 1)
    with pytest.raises(CheckError):
        spend(c2, "automatic")
    assert spend(c, "story", vetoed=True) == c  # the GM's veto: nothing spent
    with pytest.raises(CheckError):
        spend(c, "retro", vetoed=True)
    assert spend(c, "retro", advancement=False).experience == 0


def test_retro_shift_can_turn_a_failure_into_success():
    check = UnopposedCheck(actor=AbilityRoll(ability="Good"), difficulty="Great")
    rng = DiceRng(0)
    for seed in range(200):
        out = SYSTEM.resolve(check, DiceRng(seed))
        if out.result == "Good":
            break
    assert out.success is False
    shifted = retro_shift(check, out, [1])
    assert shifted.success is True and shifted.result == "Great"
    assert shifted.rolls == out.rolls
    with pytest.raises(CheckError):
        retro_shift(check, out, [2])
    assert retro_shift(check, out, [2], KalyrHouseRules(max_retro_shifts_per_roll=2)).result == "Superb"
    _ = rng


def test_retro_shift_on_the_opponent_roll():
    check = OpposedCheck(actor=AbilityRoll(ability="Fair"), opponent=AbilityRoll(ability="Fair"))
    for seed in range(200):
        out = SYSTEM.resolve(check, DiceRng(seed))
        if out.result == "tie":
            break
    assert retro_shift(check, out, [0, -1]).result == "win"


def test_automatic_plus_two_rolls_no_dice():
    out = SYSTEM.resolve(
        UnopposedCheck(actor=AbilityRoll(ability="Fair", automatic=True), difficulty="Great"), DiceRng(1)
    )
    assert out.rolls == () and out.result == "Great" and out.success


def test_session_end_carry_over_or_convert():
    c = Character(name="X", fudge_points=3)
    c2 = convert_at_session_end(c, 2)
    assert (c2.fudge_points, c2.experience) == (1, 2)
    with pytest.raises(CheckError):
        convert_at_session_end(c, 4)
    new, _ = adv(c, EndSession(convert=0))
    assert new.fudge_points == 3


@pytest.mark.parametrize(
    "kind,level,cost",
    [
        ("mundane", None, 3),
        ("psionic", None, 3),
        ("psionic", "Terrible", 3),
        ("psionic", "Poor", 3),
        ("mundane", "Mediocre", 3),
        ("mundane", "Fair", 6),
        ("mundane", "Good", 12),
        ("mundane", "Great", 24),
    ],
)
def test_cost_table(kind, level, cost):
    abilities = (
        []
        if level is None
        else [{"name": "Skill", "level": level, "kind": kind, "power": "Telepathy" if kind == "psionic" else None}]
    )
    c = Character(name="X", abilities=abilities, powers=["Telepathy"])
    got, before, after = purchase_cost(c, Purchase(name="Skill", kind=kind, power="Telepathy"))
    assert got == cost
    assert after == (before + 1 if before is not None else L("Mediocre") if kind == "mundane" else L("Terrible"))


def test_connection_and_key_costs():
    c = Character(name="X", connections=[{"organisation": "Legion", "level": "Good"}])
    assert purchase_cost(c, Purchase(target="connection", name="Temple"))[0] == 3
    assert purchase_cost(c, Purchase(target="connection", name="Legion"))[0] == 12
    assert purchase_cost(c, Purchase(target="key", name="Fear of fire"))[0] == 6


def test_superb_cannot_rise():
    c = Character(name="X", abilities=[{"name": "Skill", "level": "Superb"}])
    with pytest.raises(AdvancementError):
        purchase_cost(c, Purchase(name="Skill"))


def test_buying_two_new_abilities_with_six_points_but_not_one_twice():
    """Character Advancement: with six points, two new Mediocre abilities, but not Poor to Fair in one go."""
    c = Character(name="X", experience=6)
    new, events = adv(c, Buy(purchases=(Purchase(name="Riding"), Purchase(name="Swimming"))))
    assert new.experience == 0 and {a.name for a in new.abilities} == {"Riding", "Swimming"}
    assert find_ability(new, "Riding").level == L("Mediocre")
    assert len(events) == 2
    with pytest.raises(AdvancementError):
        adv(c, Buy(purchases=(Purchase(name="Riding"), Purchase(name="Riding"))))
    # and not again in the same scene, but after the scene ends
    rich = new.model_copy(update={"experience": 3})
    with pytest.raises(AdvancementError):
        adv(rich, Buy(purchases=(Purchase(name="Riding"),)))
    later, _ = adv(rich, EndScene())
    done, _ = adv(later, Buy(purchases=(Purchase(name="Riding"),)))
    assert find_ability(done, "Riding").level == L("Fair")


def test_not_enough_experience():
    with pytest.raises(AdvancementError):
        adv(Character(name="X", experience=2), Buy(purchases=(Purchase(name="Riding"),)))


def test_psionic_needs_the_power():
    c = Character(name="X", experience=3)
    with pytest.raises(AdvancementError):
        adv(c, Buy(purchases=(Purchase(name="Mind Blast", kind="psionic", power="Telepathy"),)))
    c = c.model_copy(update={"powers": ("Telepathy",)})
    new, _ = adv(c, Buy(purchases=(Purchase(name="Mind Blast", kind="psionic", power="Telepathy"),)))
    a = find_ability(new, "Mind Blast")
    assert a.level == L("Terrible") and a.kind == "psionic" and a.track == "mental"


def test_eight_levels_give_a_new_lifepath():
    c = Character(name="X", experience=100, levels_gained=7)
    new, events = adv(c, Buy(purchases=(Purchase(name="Riding"),), lifepath_name="Caravan guard"))
    assert new.levels_gained == 0
    assert new.lifepaths[-1].name == "Caravan guard" and new.lifepaths[-1].kind == "experience"
    assert any(e.kind == "lifepath" for e in events)


def test_keys_bought_do_not_count_as_levels():
    c = Character(name="X", experience=6, levels_gained=7)
    new, _ = adv(c, Buy(purchases=(Purchase(target="key", name="Fear of fire"),)))
    assert new.levels_gained == 7 and new.keys[-1].name == "Fear of fire"


def test_advancement_can_be_switched_off():
    with pytest.raises(AdvancementError):
        adv(
            Character(name="X", experience=9),
            Buy(purchases=(Purchase(name="Riding"),)),
            KalyrHouseRules(advancement=False),
        )


def test_destroyed_key_is_free_and_only_when_owed():
    c = Character(name="X", keys_due=1)
    new, _ = adv(c, AddKey(key=Key(name="Fear of blades", kind="Fear")))
    assert new.keys_due == 0 and new.keys[0].name == "Fear of blades"
    with pytest.raises(AdvancementError):
        adv(new, AddKey(key=Key(name="Revenge")))


def test_wound_heal_rest_requests():
    c = Character(name="X", fudge_points=1)
    c, ev = adv(c, TakeWound(track="physical", severity="Destroyed", fudge_reduce=1))
    assert c.damage.physical.status == 4  # Destroyed reduced to Defeated
    assert c.experience == 1
    c, ev = adv(c, Heal(track="physical", result="Great"))
    assert c.damage.physical.status == 2 and "4 days" in ev[0].text
    c, ev = adv(c, Rest(weeks=1))
    assert c.damage.physical.status == 0


def test_spend_fudge_request():
    c, _ev = adv(Character(name="X"), SpendFudge(use="automatic"))
    assert c.fudge_points == 0 and c.experience == 1
    with pytest.raises(AdvancementError):
        adv(c, SpendFudge(use="retro"))
