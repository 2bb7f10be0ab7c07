"""Philsys checks: the two named rules and the words of a resolved check, with staged d20s.

Expected values are worked out by hand from the book (Basic Tests of Skill: "equal to or greater than the
difficulty" succeeds; Resolving Melee Attacks: "In the case of a tie, the defender wins"; Resolving Magical
Attacks: the spell must exceed the resistance). Added for surviving mutants of checks.py (issue 14).
"""

from __future__ import annotations

from storymaster.dice import DiceRng
from storymaster.systems.philsys.checks import (
    D20Check,
    MagicAttack,
    MeleeAttack,
    OpposedCheck,
    check_succeeds,
    opposed_wins,
    resolve_check,
)
from storymaster.systems.philsys.options import PhilsysHouseRules

HR = PhilsysHouseRules()


class ScriptedRng(DiceRng):
    """Deals the given d20 faces in order."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self._faces = list(faces)

    def die(self, sides: int) -> int:
        assert sides == 20
        return self._faces.pop(0)


def test_the_named_rules_at_their_edges() -> None:
    assert check_succeeds(15, 15) and check_succeeds(16, 15) and not check_succeeds(14, 15)
    assert opposed_wins(11, 10) and not opposed_wins(10, 10) and not opposed_wins(9, 10)


def _text(check, *faces: int) -> str:
    return resolve_check(check, ScriptedRng(*faces), HR).explanation


def test_a_skill_test_says_which_way_it_went() -> None:
    check = D20Check(modifier=3, td=12)
    assert _text(check, 9) == "The d20 showed 9; with the modifier +3 that makes 12 against TD 12. " + (
        "Equal to or above the TD: success."
    )
    assert _text(check, 8) == "The d20 showed 8; with the modifier +3 that makes 11 against TD 12. Short by 1: failure."


def test_an_opposed_roll_names_each_side_and_gives_ties_to_the_defender() -> None:
    check = OpposedCheck(modifier=2, vs=4)
    assert _text(check, 10, 8) == (
        "The actor rolled 10+2 = 12; the opponent rolled 8+4 = 12. A tie goes to the defender: failure."
    )
    assert _text(check, 5, 8) == "The actor rolled 5+2 = 7; the opponent rolled 8+4 = 12. Lower by 5: failure."
    assert _text(check, 11, 8) == "The actor rolled 11+2 = 13; the opponent rolled 8+4 = 12. Higher by 1: success."
    rolls = resolve_check(check, ScriptedRng(11, 8), HR).rolls
    assert [(r.label, r.total) for r in rolls] == [("the actor d20", 11), ("the opponent d20", 8)]
    no_roll = OpposedCheck(modifier=2, vs=4, defender_rolls=False)
    assert _text(no_roll, 3) == (
        "The actor rolled 3+2 = 5; the opponent has no roll left this round and stands on 4. Higher by 1: success."
    )


def test_a_tied_blow_misses_and_a_tied_spell_is_resisted() -> None:
    melee = MeleeAttack(at=5, pa=7)
    assert _text(melee, 12, 10) == (
        "The attacker rolled 12+5 = 17; the defender rolled 10+7 = 17. A tie goes to the defender: a miss."
    )
    assert _text(melee, 2, 10) == "The attacker rolled 2+5 = 7; the defender rolled 10+7 = 17. Lower by 10: a miss."
    spell = MagicAttack(attack=15, resist=22)
    assert _text(spell, 10, 3) == "The caster rolled 10+15 = 25; the target rolled 3+22 = 25. A tie is resisted."
    assert _text(spell, 4, 3) == (
        "The caster rolled 4+15 = 19; the target rolled 3+22 = 25. Lower by 6: the spell is resisted."
    )


def test_stat_and_skill_totals_and_descriptions() -> None:
    """Basic Tests of Skill: a stat check is Stat*3 (+ modifiers); a skill check the three bases plus the rank
    (none given: 0)."""
    from storymaster.systems.philsys.checks import SkillCheck, StatCheck

    assert StatCheck(stat=2, modifier=3, td=10).total_modifier() == 9
    assert SkillCheck(bases=(1, 2, 3), td=5).total_modifier() == 6
    assert OpposedCheck(modifier=2, vs=4, defender_rolls=False).describe() == "d20+2 vs no roll+4 (defender wins ties)"
    assert MeleeAttack(at=5, pa=7, parry=False).describe() == "melee AT 5 vs PA 7 (no parry roll)"
    assert MeleeAttack(at=5, pa=7).describe() == "melee AT 5 vs PA 7"


def test_blows_in_words() -> None:
    """A hit by its margin; with the house rule, an unparried blow lands whatever the margin; a defender winning
    by 15 or more makes a critical failure (Combat walkthrough)."""
    assert _text(MeleeAttack(at=5, pa=7), 15, 10) == (
        "The attacker rolled 15+5 = 20; the defender rolled 10+7 = 17. Higher by 3: a hit."
    )
    unparried = PhilsysHouseRules(unparried_attacks_hit_automatically=True)
    out = resolve_check(MeleeAttack(at=5, pa=7, parry=False), ScriptedRng(1), unparried)
    assert out.explanation == (
        "The attacker rolled 1+5 = 6; the defender has no roll left this round and stands on 7."
        " No parry roll left: the blow lands."
    )
    assert _text(MeleeAttack(at=0, pa=7), 1, 9) == (
        "The attacker rolled 1+0 = 1; the defender rolled 9+7 = 16. The defender won by 15 (15 or more):"
        " a critical failure."
    )
    assert resolve_check(D20Check(modifier=0, td=1), ScriptedRng(5)).result == "success"  # house rules default
