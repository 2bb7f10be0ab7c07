"""Golden tests: every worked example of Kalyr RPG ch. 3, through the real code paths."""

from __future__ import annotations

from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.abilities import build_roll
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.checks import (
    AbilityRoll,
    OpenCheck,
    OpposedCheck,
    UnopposedCheck,
    judge,
    outnumbering_penalties,
)
from storymaster.systems.kalyr.damage import heal, simple_contest_damage, take_damage, take_wound
from storymaster.systems.kalyr.ladder import parse_level
from storymaster.systems.kalyr.wounds import (
    DEFEATED,
    DESTROYED,
    HURT,
    SCRATCH,
    VERY_HURT,
    Track,
    healing_time,
    mark_wound,
)

L = parse_level


def test_ability_check_example_good_plus_plus_minus_blank_is_great(seed_for):
    """Ability Checks: Good with [+][+][-][ ] gives Great."""
    check = OpenCheck(actor=AbilityRoll(ability="Good"))
    out = SYSTEM.resolve(check, seed_for("[+][+][-][ ]"))
    assert out.result == "Great"
    assert "[+][+][-][ ]" in out.explanation


def test_marlith_first_aid_fair_result_keeps_him_alive_only_just(seed_for):
    """Some Examples, Marlith: First Aid Fair, Good stabilises, Fair just keeps him alive; rolls [ ][+][-][ ]."""
    check = UnopposedCheck(actor=AbilityRoll(ability="Fair"), difficulty="Good", partial="Fair")
    out = SYSTEM.resolve(check, seed_for("[ ][+][-][ ]"))
    assert out.result == "Fair"
    assert out.success is False
    assert out.details["grade"] == "partial success"


def test_luanu_two_needed_abilities_with_workshop_bonus(seed_for, example):
    """Luanu: Mechanic and Electronics both Fair, +1 workshop = Good; Great needed in both;
    rolls [ ][ ][+][+] (Superb) and [+][+][-][ ] (Great); the worse (Great) still succeeds."""
    luanu = example("luanu")
    actor, _notes = build_roll(luanu, "Mechanic", second="Electronics", combine="worst", equipment="fine")
    assert actor.levels() == (L("Good"), L("Good"))
    check = UnopposedCheck(actor=actor, difficulty="Great", partial="Good")
    out = SYSTEM.resolve(check, seed_for("[ ][ ][+][+]", "[+][+][-][ ]"))
    assert "Superb" in out.explanation and "Great" in out.explanation
    assert out.result == "Great"
    assert out.success is True
    assert out.details["grade"] == "success"


def test_kylar_and_the_mace(seed_for, example):
    """Kylar Great with Narvork, using a mace at -2 = Fair; Kluranyr Great but Hurt = Good.
    Kylar rolls [+][ ][ ][-] (Fair), Kluranyr [+][+][ ][ ] (Superb): Kylar loses."""
    kylar, kluranyr = example("kylar"), example("kluranyr")
    mine, _notes = build_roll(kylar, "Melee Combat (Mace)", similar="Melee Combat (Narvork)", similar_penalty=-2)
    theirs, their_notes = build_roll(kluranyr, "Melee Combat (Narvork)")
    assert mine.effective == L("Fair")
    assert theirs.effective == L("Good")
    assert any("Hurt" in n for n in their_notes)
    out = SYSTEM.resolve(OpposedCheck(actor=mine, opponent=theirs), seed_for("[+][ ][ ][-]", "[+][+][ ][ ]"))
    assert out.details["result"] == "Fair" and out.details["opponent_result"] == "Superb"
    assert out.result == "lose" and out.margin == -3


def test_jorlak_two_relevant_abilities_takes_the_better(seed_for):
    """Jorlak: Ancient History Good rolls [-][ ][+][-] = Fair; Research Good rolls [-][ ][+][ ] = Good; keeps Good."""
    check = OpenCheck(actor=AbilityRoll(ability="Good", second="Good", combine="best"))
    out = SYSTEM.resolve(check, seed_for("[-][ ][+][-]", "[-][ ][+][ ]"))
    assert out.result == "Good"
    assert len(out.rolls) == 2
    assert out.success is None


def test_kolath_questions_the_guildsman():
    """Kolath: Insight Fair vs Fast Talk Good, Intimidation Fair vs Willpower Fair. Kolath rolls Good (Insight)
    and Fair (Intimidation); the guildsman Fair (Fast Talk) and Good (Willpower): he sees the lie, but the man
    does not crack."""
    insight = OpposedCheck(actor=AbilityRoll(ability="Fair"), opponent=AbilityRoll(ability="Good"))
    intimidation = OpposedCheck(actor=AbilityRoll(ability="Fair"), opponent=AbilityRoll(ability="Fair"))
    assert judge(insight, [L("Good"), L("Fair")])[0] == "win"
    assert judge(intimidation, [L("Fair"), L("Good")])[0] == "lose"


def test_karela_and_elisar_sneak_past_the_sentry(example):
    """Karela: Stealth Good +1 (cloak, soft shoes) = Great; Elisar Fair -1 (creaking armour) = Mediocre;
    the sentry's Perception is Fair. Elisar makes the joint attempt far riskier."""
    karela = example("karela")
    elisar = Character(
        name="Elisar", abilities=[{"name": "Stealth", "level": "Fair"}], armour={"name": "lightweight armour"}
    )
    k, _ = build_roll(karela, "Stealth", equipment="fine")
    e, _ = build_roll(elisar, "Stealth", equipment="poor")
    assert k.effective == L("Great") and e.effective == L("Mediocre")
    sentry = AbilityRoll(ability="Fair")
    p_k = SYSTEM.odds(OpposedCheck(actor=k, opponent=sentry)).extra["p_win"]
    p_e = SYSTEM.odds(OpposedCheck(actor=e, opponent=sentry)).extra["p_win"]
    assert p_k > 2 * p_e


def test_kylar_against_the_bandit_very_hurt_and_destroyed(example):
    """Example of Damage: both roll Great; bandit mace +3, aggressive +2, minus Kylar's armour 2 = 3 (Very Hurt);
    Kylar's Narvork +3, Extra Damage +1, the bandit's aggression +2, minus armour 1 = 5 (Destroyed)."""
    kylar, bandit = example("kylar"), example("bandit")
    to_kylar, to_bandit = simple_contest_damage(kylar, L("Great"), bandit, L("Great"), a_approach=0, b_approach=2)
    assert (to_kylar, to_bandit) == (3, 5)
    kylar2, rep = take_damage(kylar, "physical", to_kylar)
    assert rep.severity == VERY_HURT and kylar2.damage.physical.penalty == -2
    bandit2, rep = take_damage(bandit, "physical", to_bandit)
    assert rep.severity == DESTROYED and rep.key_due
    assert bandit2.keys_due == 1


def test_wound_track_overflow_examples():
    """Damage: a Very Hurt (-2); then a Hurt (still -2, not cumulative); then another Hurt goes to Defeated
    with 'H' recorded; for healing he has two Hurts and one Very Hurt."""
    t, _ = mark_wound(Track(), VERY_HURT)
    assert t.penalty == -2
    t, _ = mark_wound(t, HURT)
    assert t.penalty == -2
    t, w = mark_wound(t, HURT)
    assert w is not None and w.box == DEFEATED and w.severity == HURT
    assert t.status == DEFEATED and t.penalty is None
    assert sorted(x.severity for x in t.wounds) == [HURT, HURT, VERY_HURT]


def test_two_very_hurts_are_defeated():
    t, _ = mark_wound(Track(), VERY_HURT)
    t, _ = mark_wound(t, VERY_HURT)
    assert t.status == DEFEATED


def test_fourth_scratch_makes_hurt():
    t = Track()
    for _ in range(3):
        t, _ = mark_wound(t, SCRATCH)
    assert t.status == SCRATCH and t.penalty == 0
    t, w = mark_wound(t, SCRATCH)
    assert w is not None and w.box == HURT and t.penalty == -1


def test_healing_example_two_hurts_and_a_very_hurt_healed_good():
    """Getting rid of damage: two Hurt and one Very Hurt, healed with a Good roll: the Hurts heal and the
    Very Hurt becomes a Hurt (-1); the Very Hurt sets the time, two days."""
    c = Character(name="Patient")
    for s in (HURT, HURT, VERY_HURT):
        c, _ = take_wound(c, "physical", s)
    assert c.damage.physical.status == DEFEATED
    healed, levels, time, unit = heal(c, "physical", L("Good"))
    assert levels == 1 and (time, unit) == (2, "days")
    assert [w.severity for w in healed.damage.physical.wounds] == [HURT]
    assert healed.damage.physical.penalty == -1
    assert healing_time(c.damage.physical, 1) == 2


def test_seven_against_three_outnumbering():
    """Simple Group Contests: seven against three, the best of the three takes -2, the other two -1."""
    assert outnumbering_penalties([L("Fair"), L("Great"), L("Good")], 7) == [-1, -2, -1]
    assert outnumbering_penalties([0], 2) == [-1]
    assert outnumbering_penalties([0], 3) == [-2]
