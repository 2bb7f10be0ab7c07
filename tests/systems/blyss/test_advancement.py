"""Experience, spending CP after creation, negative Traits later, Deterioration."""

from __future__ import annotations

import pytest

from storymaster.dice import DiceRng
from storymaster.errors import AdvancementError
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.advancement import (
    AcquireNegative,
    AwardExperience,
    Deteriorate,
    SpendCP,
    experience_award,
)
from storymaster.systems.blyss.character import Character, Trait, cp_left, validate_character


def test_award_amounts() -> None:
    assert experience_award(AwardExperience()) == 3  # always 3 CP
    assert experience_award(AwardExperience(challenges=2, roleplaying=3, learned=True)) == 3 + 2 + 3 + 1


def test_award_then_spend_with_partial_rank(rng: DiceRng) -> None:
    c = Character(name="Ralan", traits=(Trait(name="Sneak", rank=3),))
    start_left = cp_left(c)
    c, _ev = SYSTEM.advance(c, AwardExperience(challenges=1, roleplaying=2, learned=True), rng)
    assert c.cp_earned == 7 and cp_left(c) == start_left + 7
    c, _ev = SYSTEM.advance(c, SpendCP(target="Sneak", cp=5), rng)
    sneak = c.trait("Sneak")
    assert (sneak.rank, sneak.progress) == (3, 5)  # 8 CP buy Above average; 5 noted towards it
    c, _ = SYSTEM.advance(c, AwardExperience(), rng)
    c, _ = SYSTEM.advance(c, SpendCP(target="Sneak", cp=3), rng)
    assert (c.trait("Sneak").rank, c.trait("Sneak").progress) == (4, 0)
    assert validate_character(c) == []


def test_spend_on_attribute_new_trait_and_extras(rng: DiceRng) -> None:
    c = Character(name="x", cp_earned=100)
    c, _ = SYSTEM.advance(c, SpendCP(target="Strength", cp=16), rng)
    assert c.attributes.strength == 4
    c, _ = SYSTEM.advance(c, SpendCP(target="Wits", cp=10), rng)
    assert c.attributes.wits == 3 and c.attribute_progress["Wits"] == 10
    c, _ = SYSTEM.advance(c, SpendCP(target="Riding", cp=8, new_trait="skill"), rng)
    assert c.trait("Riding").rank == 2
    c, _ = SYSTEM.advance(c, SpendCP(target="Dodges", cp=8), rng)
    assert c.extra_dodges == 2
    with pytest.raises(AdvancementError):
        SYSTEM.advance(c, SpendCP(target="Health", cp=3), rng)  # 2 CP each
    with pytest.raises(AdvancementError):
        SYSTEM.advance(c, SpendCP(target="Melee Attack", cp=4, new_trait="skill"), rng)
    with pytest.raises(AdvancementError, match="CP to spend"):
        SYSTEM.advance(c, SpendCP(target="Strength", cp=500), rng)
    assert validate_character(c) == []


def test_negative_trait_after_creation_grants_nothing(rng: DiceRng) -> None:
    c = Character(name="x")
    before = cp_left(c)
    c, _ev = SYSTEM.advance(c, AcquireNegative(name="Limp", trait_kind="natural", rank=2), rng)
    assert cp_left(c) == before and c.trait("Limp").negative


def test_deterioration(rng: DiceRng) -> None:
    c = Character(
        name="x", traits=(Trait(name="Sailing", rank=4), Trait(name="Extra Arm", kind="natural", single_advantage=True))
    )
    c, _ = SYSTEM.advance(c, Deteriorate(target="Sailing"), rng)
    assert (c.trait("Sailing").rank, c.trait("Sailing").progress) == (3, 6)  # 20 - 2 = 18 CP: rank 3 with 6 towards 4
    c, _ = SYSTEM.advance(c, Deteriorate(target="Sailing", increments=4), rng)
    assert (c.trait("Sailing").rank, c.trait("Sailing").progress) == (2, 2)  # 18 - 8 = 10
    assert validate_character(c) == []
    with pytest.raises(AdvancementError):
        SYSTEM.advance(c, Deteriorate(target="Extra Arm"), rng)  # single advantages do not deteriorate


def test_advance_accepts_plain_dicts(rng: DiceRng) -> None:
    c, _ev = SYSTEM.advance(Character(name="x"), {"kind": "award", "roleplaying": 1}, rng)  # type: ignore[arg-type]
    assert c.cp_earned == 4
