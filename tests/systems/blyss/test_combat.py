"""Combat: the state machine, actions, weapons and armour."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from storymaster.dice import DiceRng
from storymaster.errors import CombatError
from storymaster.rules import CombatEngine, load_model
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.character import Armour, Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.combat import (
    BlyssCombat,
    FightState,
    _current_ar,
    attack_pool,
    called_shot_td,
    weapon_switch_rounds,
)
from storymaster.systems.blyss.options import BlyssHouseRules

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "blyss"


class _CodeBuiltEngine(BlyssCombat):
    """The engine, for stat blocks built in code to exercise one rule: the SM allows characters that the
    creation rules would refuse (a fight refuses illegal characters otherwise; see test_combat.py)."""

    def start(self, sides, *, house_rules=None, options=None):  # type: ignore[override]
        return super().start(sides, house_rules=house_rules, options={"allow_illegal": True, **dict(options or {})})


ENGINE = _CodeBuiltEngine()


def load(name: str) -> Character:
    return load_model(EXAMPLES / f"{name}.yaml", Character)


def fight(a, b, seed="s", **options):
    hr = options.pop("house_rules", None)
    state = ENGINE.start(
        [a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]], house_rules=hr, options=options
    )
    rng = DiceRng(seed)
    events = []
    while not ENGINE.is_over(state):
        state, ev = ENGINE.step(state, rng)
        events += ev
    return state, events


def fighter(name, *, agility=3, wits=3, strength=3, weapons=(), armour=(), traits=(), stamina=3):
    return Character(
        name=name,
        attributes=Attributes(agility=agility, wits=wits, strength=strength, stamina=stamina),
        weapons=tuple(weapons),
        armour=tuple(armour),
        traits=tuple(traits),
    )


SWORD = Weapon(name="Sword", damage="d8", skill="Armed Combat")


def test_engine_satisfies_protocol() -> None:
    assert isinstance(ENGINE, CombatEngine)


def test_called_shot_tds_from_the_book() -> None:
    assert called_shot_td(None, aimed=False) == 8
    assert [called_shot_td(x, aimed=True) for x in ("limb", "head", "eye")] == [10, 12, 14]
    assert [called_shot_td(x, aimed=False) for x in ("limb", "head", "eye")] == [12, 14, 16]
    assert called_shot_td("head", aimed=True, size_doublings=1) == 10  # twice human size: one Challenge Level easier


def test_armour_lives_reduce_rating_by_thirds() -> None:
    a = Armour(name="Plate", armour_rating=6)
    assert [_current_ar(a, lives) for lives in (3, 2, 1)] == [6, 4, 2]
    assert [_current_ar(Armour(name="Hide", armour_rating=4), lives) for lives in (3, 2, 1)] == [4, 3, 2]


def test_equipment_use() -> None:
    assert weapon_switch_rounds(drop_current=False) == 2  # sheathe the sword, draw the dagger
    assert weapon_switch_rounds(drop_current=True) == 1


def test_start_validation() -> None:
    with pytest.raises(CombatError):
        ENGINE.start([[load("warrior")]])
    with pytest.raises(CombatError):
        ENGINE.start([[load("warrior")], [load("rogue")]], options={"tactic": ["berserk", "attack"]})
    with pytest.raises(CombatError):
        ENGINE.start([[load("warrior")], [load("rogue")]], options={"distance": -5})


def test_state_is_frozen_and_json_round_trips() -> None:
    state = ENGINE.start([[load("warrior")], [load("rogue")]])
    state2, _ = ENGINE.step(state, DiceRng(1))
    again = FightState.model_validate_json(state2.model_dump_json())
    assert again == state2
    assert state.round == 0 and state2.round == 1  # the old state is untouched
    with pytest.raises(ValidationError):
        state.round = 5  # type: ignore[misc]


def test_same_seed_same_fight() -> None:
    _, e1 = fight(load("warrior"), load("rogue"), seed=11)
    _, e2 = fight(load("warrior"), load("rogue"), seed=11)
    assert [e.text for e in e1] == [e.text for e in e2]
    assert e1[0].kind == "initiative"


@given(st.integers(0, 10_000), st.sampled_from(["attack", "defensive", "aim", "disarm"]))
@settings(max_examples=15)
def test_fights_end_with_a_fallen_side(seed, tactic) -> None:
    state, events = fight(load("warrior"), load("expert"), seed=seed, tactic=["attack", tactic])
    w = ENGINE.winner(state)
    assert events[-1].kind == "end"
    if w is not None:
        assert all(not f.active for f in state.fighters if f.side != w)
        assert any(f.active for f in state.fighters if f.side == w)
    else:
        assert state.round == state.house_rules.max_rounds or not any(f.active for f in state.fighters)


def test_declaration_slowest_first_and_faster_defender_defends() -> None:
    slow = fighter("Slow", agility=2, wits=1, strength=5, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3)])
    fast = fighter("Fast", agility=6, wits=6, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3)], stamina=5)
    seen_defence = seen_counter = False
    for seed in range(8):
        _, events = fight(slow, fast, seed=seed, tactic={"Fast": "defensive"})
        declares = [e for e in events if e.kind == "declare" and e.round == 1]
        if [e.actor for e in declares] == ["Slow", "Fast"]:
            assert declares[1].data["action"] == "defend"
        text = " ".join(e.text for e in events)
        seen_defence |= "defends" in text
        seen_counter |= "counterattack TD -2" in text
    assert seen_defence and seen_counter


def test_action_round_follows_the_declaration_order() -> None:
    """The Action Round: results are established 'in the same order where possible' as the Declaration Round,
    which starts with the lowest Initiative. So the slower fighter's attack resolves first by default; the house
    rule action_order: initiative puts the fastest first."""
    slow = fighter("Slow", agility=1, wits=1, strength=5, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3)])
    fast = fighter("Fast", agility=6, wits=6, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3)], stamina=5)
    for rule, first in (("declaration", "Slow"), ("initiative", "Fast")):
        hr = BlyssHouseRules(action_order=rule)
        state = ENGINE.start([[slow], [fast]], house_rules=hr)
        state, events = ENGINE.step(state, DiceRng(3))
        fastest_first = list(state.order)
        declared = [e.actor for e in events if e.kind == "declare"]
        attacks = [e.actor for e in events if e.kind == "attack"]
        assert declared == fastest_first[::-1]  # Declaration Round: slowest first, whatever the rule
        assert attacks[0] == first, (rule, fastest_first, attacks)
        assert ENGINE.initiative_order(state)[0] == first  # the tracker shows the acting order


def test_aiming_adds_ranks_next_round() -> None:
    archer = fighter(
        "Archer",
        agility=4,
        weapons=[Weapon(name="Bow", damage="d6", ranged=True, range_increment=60, skill="Ranged Combat")],
        traits=[Trait(name="Ranged Combat", rank=3)],
    )
    _, events = fight(archer, fighter("Target", stamina=5), seed=3, tactic=["aim", "attack"], distance=30)
    aims = [e for e in events if e.kind == "aim" and e.actor == "Archer" and e.data.get("successes")]
    assert aims
    r = aims[0].round
    nxt = [e for e in events if e.kind == "attack" and e.actor == "Archer" and e.round == r + 1]
    assert nxt and "aim +" in nxt[0].text


def test_range_increments_and_movement() -> None:
    archer = fighter(
        "Archer", weapons=[Weapon(name="Sling", damage="d4", ranged=True, range_increment=30, skill="Ranged Combat")]
    )
    state = ENGINE.start([[archer], [fighter("Brawler")]], options={"distance": 100})
    pool, notes = attack_pool(state.fighters[0], state)
    assert pool.penalty_ranks == 2 + 3  # unskilled (-2) and 100 ft is three increments past Short Range
    assert "range -3" in notes
    state2, events = ENGINE.step(state, DiceRng(2))
    assert any(e.kind == "move" for e in events)
    assert state2.distance == 70  # the Brawler moves 30 ft


def test_unskilled_weapon_penalty_and_modifiers() -> None:
    c = fighter(
        "Novice",
        weapons=[Weapon(name="Sabre", damage="d6", attack_modifier=1, skill="Armed Combat")],
        armour=[Armour(name="Mail", armour_rating=4, action_modifier=-1, skill="Armour")],
    )
    state = ENGINE.start([[c], [fighter("X")]])
    pool, _notes = attack_pool(state.fighters[0], state)
    assert pool.ranks == (3,)
    assert pool.bonus_ranks == 1
    assert pool.penalty_ranks == 2 + 2  # no skill: -2; armour -1 doubled without the Armour skill


def test_fists_are_not_a_weapon_without_skill() -> None:
    """Weapons: the -2 is for 'a weapon they have no skill with'; a fighter without Unarmed Combat punching
    is using no weapon, so the attack pool is Melee Attack alone, with no penalty."""
    brawler = fighter("Brawler")  # no weapons, no Unarmed Combat
    state = ENGINE.start([[brawler], [fighter("X")]])
    pool, notes = attack_pool(state.fighters[0], state)
    assert pool.ranks == (3,) and pool.penalty_ranks == 0 and not notes
    # a real weapon without its skill still takes the -2
    armed = fighter("Novice", weapons=[Weapon(name="Club", damage="d6", skill="Armed Combat")])
    pool, _ = attack_pool(ENGINE.start([[armed], [fighter("X")]]).fighters[0], state)
    assert pool.penalty_ranks == 2


def test_disarming() -> None:
    d = fighter(
        "Duellist",
        agility=6,
        wits=6,
        strength=5,
        weapons=[SWORD],
        traits=[Trait(name="Armed Combat", rank=5)],
        stamina=5,
    )
    v = fighter("Victim", agility=2, strength=1, weapons=[SWORD])
    texts = []
    for seed in range(6):
        _, events = fight(d, v, seed=seed, tactic=["disarm", "attack"])
        texts += [e.kind for e in events]
    assert "disarm" in texts and "disarmed" in texts and "recover" in texts


def test_armour_soaks_and_takes_lives() -> None:
    knight = fighter("Knight", stamina=5, armour=[Armour(name="Plate", armour_rating=8, cover=("T", "A", "L"))])
    brute = fighter("Brute", strength=5, agility=5, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=4)])
    kinds = []
    lives_lost = False
    for seed in range(25):
        state, events = fight(brute, knight, seed=seed)
        kinds += [(e.kind, e.data.get("soaked"), e.data.get("armour_damaged")) for e in events if e.kind == "armour"]
        lives_lost |= any(f.armour_lives and f.armour_lives[0] < 3 for f in state.fighters)
    assert ("armour", True, None) in kinds
    assert lives_lost


def test_called_shot_bypasses_uncovered_armour() -> None:
    knight = fighter("Knight", stamina=5, armour=[Armour(name="Breastplate", armour_rating=10, cover=("T",))])
    brute = fighter("Brute", strength=5, agility=6, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=6)])
    _, events = fight(brute, knight, seed=1, called_shot={"Brute": "head"})
    attacks = [e for e in events if e.kind == "attack" and e.actor == "Brute"]
    assert attacks and all(e.data["td"] == 14 for e in attacks)  # an unaimed Called Shot at the head
    assert not any(e.kind == "armour" for e in events)


def test_dying_checks_in_a_group_fight() -> None:
    a = [
        fighter(
            "A1",
            strength=6,
            agility=6,
            weapons=[Weapon(name="Axe", damage="2d8")],
            traits=[Trait(name="Armed Combat", rank=5)],
        ),
        fighter(
            "A2",
            strength=6,
            agility=6,
            weapons=[Weapon(name="Axe", damage="2d8")],
            traits=[Trait(name="Armed Combat", rank=5)],
        ),
    ]
    b = [fighter("B1", stamina=2), fighter("B2", stamina=6, agility=6)]
    kinds = set()
    for seed in range(6):
        _, events = fight(a, b, seed=seed)
        kinds |= {e.kind for e in events}
    assert "dying" in kinds or "death" in kinds


def test_max_rounds_stand_off() -> None:
    state, _ = fight(
        fighter("P1", agility=4, strength=4),
        fighter("P2", agility=4, strength=4, stamina=8),
        seed=0,
        house_rules=BlyssHouseRules(max_rounds=2, minimum_damage=0),
    )
    assert state.over and (ENGINE.winner(state) is None or state.round <= 2)


def test_a_fight_nobody_can_win_is_reported_not_run() -> None:
    """Melee Attack (1 + 1) / 2 = 1 is a d4: it can never meet the Attack TD of 8 (Attacking), so two such
    fighters could only stand off at the round cap. The engine says so at the start."""
    weak = fighter("P1", agility=1, strength=1)
    with pytest.raises(CombatError, match="neither side can ever hit") as err:
        ENGINE.start([[weak], [fighter("P2", agility=1, strength=1)]])
    assert "P1: best die 4 against TD 8" in str(err.value)
    # one side able to hit is a fight (a d8 meets TD 8 on an 8)
    ENGINE.start([[weak], [fighter("P3", agility=5, strength=5)]])
    # an aiming fighter may reach the TD with aim ranks: not refused
    ENGINE.start([[weak], [fighter("P4", agility=1, strength=1)]], options={"tactic": {"P4": "aim"}})


def test_slower_defensive_target_gives_up_its_action_to_defend() -> None:
    fast = fighter("Fast", agility=6, wits=6, strength=4, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3)])
    slow = fighter("Slow", agility=1, wits=1, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3)], stamina=6)
    found = False
    for seed in range(6):
        # the fast attacker must act before the slow target: fastest first (action_order: initiative)
        hr = BlyssHouseRules(action_order="initiative")
        _, events = fight(fast, slow, seed=seed, tactic={"Slow": "defensive"}, house_rules=hr)
        for e in events:
            if "Slow gives up their declared attack to defend" in e.text:
                found = True
                later = [x for x in events if x.round == e.round and x.kind == "attack" and x.actor == "Slow"]
                assert later == []  # having defended, Slow does not also attack that round
    assert found


def test_heavy_blows_ruin_armour_faster() -> None:
    knight = fighter("Knight", stamina=6, armour=[Armour(name="Mail", armour_rating=1, cover=("T",))])
    brute = fighter(
        "Brute",
        strength=6,
        agility=6,
        weapons=[Weapon(name="Maul", damage="10")],
        traits=[Trait(name="Armed Combat", rank=5)],
    )
    _state, events = fight(
        brute, knight, seed=2, armour_choice={"Knight": "armour"}, house_rules=BlyssHouseRules(armour_heavy_blow=5)
    )
    damaged = [e for e in events if e.data.get("armour_damaged")]
    assert damaged and "1/3 lives left" in damaged[0].text  # 13 damage: two lives at once


def test_starting_weapon_depends_on_distance() -> None:
    w = load("warrior")  # Broadsword, then Shortbow
    assert ENGINE.start([[w], [load("rogue")]]).fighters[0].wielded().name == "Broadsword"
    far = ENGINE.start([[w], [load("rogue")]], options={"distance": 120})
    assert far.fighters[0].wielded().name == "Shortbow"
    assert far.fighters[1].wielded().name == "Sling"


def test_illegal_characters_are_refused_unless_the_sm_allows() -> None:
    """A fight (and so a forecast, which starts from one) takes only characters the creation rules allow."""
    illegal = load("illegal")
    with pytest.raises(CombatError, match="is not a legal BLYSS character"):
        SYSTEM.combat.start([[illegal], [load("rogue")]])
    state = SYSTEM.combat.start([[illegal], [load("rogue")]], options={"allow_illegal": True})
    assert len(state.fighters) == 2
    SYSTEM.combat.start([[load("warrior")], [load("rogue")]])  # the book's examples are legal


def test_armour_tie_does_not_soak_unless_the_option_says_so() -> None:
    """Ruling 9: the armour must *beat* the best attack die ("beat the value of all the attack dice"); a tie
    gets through by default and soaks only with ``armour_ties_soak``. Read from the fight's own log lines,
    over enough fights that ties occur (AR 4 rolls 1d8 against a Sword Test's d8s)."""
    import re

    from storymaster.systems.blyss.character import armour_soaks

    line = re.compile(r"rolls (\d+) against (\d+)(,| and) ")
    knight = fighter("Knight", stamina=6, armour=[Armour(name="Mail", armour_rating=4, cover=("T", "A", "L"))])
    brute = fighter("Brute", strength=4, agility=5, weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=4)])
    for ties_soak in (False, True):
        seen: dict[str, int] = {"tie": 0, "above": 0, "below": 0}
        for seed in range(12):
            _, events = fight(brute, knight, seed=seed, house_rules=BlyssHouseRules(armour_ties_soak=ties_soak))
            for e in events:
                for armour, attack, how in line.findall(e.text):
                    armour, attack, soaked = int(armour), int(attack), how == " and"
                    kind = "tie" if armour == attack else "above" if armour > attack else "below"
                    seen[kind] += 1
                    expected = armour > attack or (ties_soak and armour == attack)  # the book's rule, by hand
                    assert soaked == expected, (ties_soak, e.text)
                    assert armour_soaks(armour, attack, ties_soak) == expected
        assert min(seen.values()) > 0, seen  # every case of the rule was exercised


def test_armour_soak_twins_agree_with_the_scalar_rule_on_every_input() -> None:
    """The simulation's array form and the exact chain's chance say the same as :func:`armour_soaks`:
    every pair of faces 0..20, and every pool of up to three dice (d4..d12) by enumeration."""
    import itertools
    from fractions import Fraction

    import numpy as np

    from storymaster.systems.blyss.character import armour_soak_chance, armour_soaks, armour_soaks_v

    a, b = np.meshgrid(np.arange(0, 21), np.arange(0, 21))
    for ties in (False, True):
        got = armour_soaks_v(a, b, ties)
        assert all(
            bool(got[i, j]) == armour_soaks(int(a[i, j]), int(b[i, j]), ties) for i in range(21) for j in range(21)
        )
    pools = [(4,), (8,), (12,), (6, 4), (8, 8), (10, 6, 4)]
    for dice, against, ties in itertools.product(pools, range(14), (False, True)):
        faces = list(itertools.product(*(range(1, s + 1) for s in dice)))
        exact = Fraction(sum(armour_soaks(max(f), against, ties) for f in faces), len(faces))
        assert armour_soak_chance(dice, against, ties) == pytest.approx(float(exact), abs=1e-12), (dice, against)


# ---------------------------------------------------------------- from the mutation survivors (issue 14)
def test_a_specialised_weapon_skill_adds_a_rank() -> None:
    """Specialisation: 'treated as having an additional rank' when the specialist topic comes into play: Armed
    Combat 3 [Sword] wielding a Sword is rank 4 (a d10) with Melee Attack 3 (a d8)."""
    from storymaster.systems.blyss.checks import pool_dice

    c = fighter("Fencer", weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3, specialisations=("Sword",))])
    state = ENGINE.start([[c], [fighter("X")]])
    pool, notes = attack_pool(state.fighters[0], state)
    assert pool.ranks == (3, 4) and pool_dice(pool) == (8, 10)
    assert notes == ["specialised in Sword +1 rank"]
    other = fighter("Axeman", weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3, specialisations=("Axe",))])
    pool, notes = attack_pool(ENGINE.start([[other], [fighter("X")]]).fighters[0], state)
    assert pool.ranks == (3, 3) and notes == []


def test_a_weapon_attack_modifier_of_minus_one() -> None:
    """Weapons: Attack Modifier, 'any positive/negative modifier ... applied to the combined Attack Die Pool': -1 is
    one rank of penalty (with the skill, so no unskilled -2)."""
    club = Weapon(name="Club", damage="d6", attack_modifier=-1, skill="Armed Combat")
    c = fighter("Basher", weapons=[club], traits=[Trait(name="Armed Combat", rank=2)])
    state = ENGINE.start([[c], [fighter("X")]])
    pool, notes = attack_pool(state.fighters[0], state)
    assert (pool.penalty_ranks, pool.bonus_ranks) == (1, 0) and notes == ["Club -1"]


def test_armour_hampers_a_defence_and_a_destroyed_armour_does_not() -> None:
    """Armour: its Action Modifier applies to physical actions, doubled without the armour's skill: a Defence in
    Mail (-1, no Armour skill) loses 2 ranks; armour with no lives left (destroyed) hampers nothing."""
    from storymaster.systems.blyss.combat import defence_pool

    mail = Armour(name="Mail", armour_rating=4, action_modifier=-1, skill="Armour")
    c = fighter("Guard", weapons=[SWORD], armour=[mail], traits=[Trait(name="Armed Combat", rank=2)])
    state = ENGINE.start([[c], [fighter("X")]])
    f = state.fighters[0]
    assert defence_pool(f, state, "defend").penalty_ranks == 2
    assert defence_pool(f, state, "evade").penalty_ranks == 2
    for lives in (0, -1):  # destroyed (a hand-edited state may say -1)
        broken = f.model_copy(update={"armour_lives": (lives,)})
        assert defence_pool(broken, state, "defend").penalty_ranks == 0
        assert attack_pool(broken, state)[0].penalty_ranks == 0
    worn = f.model_copy(update={"armour_lives": (1,)})  # damaged, one life left: still worn
    assert defence_pool(worn, state, "defend").penalty_ranks == 2


def test_a_fighter_with_no_attack_dice_is_reported_with_best_die_0() -> None:
    """Melee Attack (1 + 1) / 2 = 1 less the unskilled weapon's 2 ranks is rank 0: no dice at all, so the best die
    is 0 (Table 2-01: d0)."""
    club = Weapon(name="Club", damage="d6", skill="Armed Combat")
    weak = fighter("P1", agility=1, strength=1, weapons=[club])
    with pytest.raises(CombatError, match="P1: best die 0 against TD 8"):
        ENGINE.start([[weak], [fighter("P2", agility=1, strength=1)]])


def test_a_tactic_list_shorter_than_the_sides() -> None:
    """Options given as a list name each side's tactic in order; sides past the list keep the default (attack)."""
    state = ENGINE.start([[load("warrior")], [load("rogue")], [load("expert")]], options={"tactic": ["aim"]})
    assert [f.tactic for f in state.fighters] == ["aim", "attack", "attack"]


def test_melee_needs_5_ft_or_less() -> None:
    """Ruling (docs/rulings/blyss.md, Movement in combat): melee needs 5 ft or less; farther, a melee fighter
    moves."""
    skill = [Trait(name="Armed Combat", rank=3)]
    for distance, action in ((5, "attack"), (6, "move")):
        sides = [[fighter("A", weapons=[SWORD], traits=skill)], [fighter("B", weapons=[SWORD], traits=skill)]]
        state = ENGINE.start(sides, options={"distance": distance})
        state, events = ENGINE.step(state, DiceRng(0))
        assert {e.data["action"] for e in events if e.kind == "declare" and e.round == 1} == {action}, distance


def test_a_fight_starts_at_0_ft_unless_told() -> None:
    assert ENGINE.start([[fighter("A")], [fighter("B")]]).distance == 0


def test_a_ranged_weapon_with_no_stated_skill_uses_ranged_combat() -> None:
    """Suggested Traits name Armed, Ranged and Unarmed Combat: a bow with no skill of its own is Ranged Combat, a
    blade Armed Combat; with the matching skill there is no unskilled -2."""
    bow = Weapon(name="Bow", damage="d6", ranged=True, range_increment=60)
    blade = Weapon(name="Blade", damage="d6")
    archer = fighter("Archer", weapons=[bow], traits=[Trait(name="Ranged Combat", rank=2)])
    state = ENGINE.start([[archer], [fighter("X")]], options={"distance": 30})
    pool, _ = attack_pool(state.fighters[0], state)
    assert pool.ranks == (3, 2) and pool.penalty_ranks == 0  # Ranged Attack (3 + 3) / 2 = 3, Ranged Combat 2
    swords = fighter("Blader", weapons=[blade], traits=[Trait(name="Armed Combat", rank=2)])
    state = ENGINE.start([[swords], [fighter("X")]])
    pool, _ = attack_pool(state.fighters[0], state)
    assert pool.ranks == (3, 2) and pool.penalty_ranks == 0


def test_a_wounded_attackers_pool_says_its_wound_level() -> None:
    """Table 2-03: Flesh Wounds is -1 to all rolls (each die); Light Wounds (a third of Health lost, rounded up:
    6 of 18) is -1 rank."""
    c = fighter("Hurt", weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=2)])
    state = ENGINE.start([[c], [fighter("X")]])
    f = state.fighters[0]
    flesh = f.model_copy(update={"vitals": f.vitals.model_copy(update={"dodges": 0, "flesh_wounds": 2})})
    pool, notes = attack_pool(flesh, state)
    assert (pool.die_modifier, pool.penalty_ranks) == (-1, 0) and notes == ["Flesh Wounds -1 per die"]
    light = f.model_copy(update={"vitals": f.vitals.model_copy(update={"dodges": 0, "flesh_wounds": 0, "health": 12})})
    pool, notes = attack_pool(light, state)
    assert (pool.die_modifier, pool.penalty_ranks) == (0, 1) and notes == ["Light Wounds -1 rank(s)"]


def test_an_unaimed_called_shot_counts_against_the_unaimed_td() -> None:
    """A fight nobody can win is told with each fighter's TD: a Called Shot at the head without aiming is TD 14."""
    with pytest.raises(CombatError, match="P1: best die 4 against TD 14"):
        ENGINE.start(
            [[fighter("P1", agility=1, strength=1)], [fighter("P2", agility=1, strength=1)]],
            options={"called_shot": {"P1": "head"}},
        )


def test_the_starting_weapon_is_the_first_melee_one_when_close() -> None:
    """The weapon in hand at the start: at close range the first melee weapon, else the first weapon."""
    bow = Weapon(name="Bow", damage="d6", ranged=True, range_increment=60)
    sling = Weapon(name="Sling", damage="d4", ranged=True, range_increment=30)
    dagger = Weapon(name="Dagger", damage="d4")
    for weapons, name in (([bow, SWORD], "Sword"), ([SWORD, dagger], "Sword"), ([sling, bow], "Sling")):
        state = ENGINE.start([[fighter("A", weapons=weapons)], [fighter("B")]])
        assert state.fighters[0].wielded().name == name, weapons


def test_a_specialisation_in_another_weapon_adds_nothing() -> None:
    c = fighter("Whipper", weapons=[SWORD], traits=[Trait(name="Armed Combat", rank=3, specialisations=("Whip",))])
    state = ENGINE.start([[c], [fighter("X")]])
    assert attack_pool(state.fighters[0], state)[0].ranks == (3, 3)


def test_a_fighters_attribute_by_keyword() -> None:
    """combat.attribute names its parameters: a fresh fighter's Strength 4 outside a Test is 4."""
    from storymaster.systems.blyss.combat import attribute

    state = ENGINE.start([[fighter("A", strength=4)], [fighter("B")]])
    assert attribute(f=state.fighters[0], name="strength", hr=BlyssHouseRules(), in_a_test=False) == 4


def test_no_attack_dice_is_best_die_0_even_when_hurt() -> None:
    """best_attack_face: a pool with no dice has no face at all (0), whatever the die modifier (Flesh Wounds: -1)."""
    from storymaster.systems.blyss.combat import best_attack_face

    club = Weapon(name="Club", damage="d6", skill="Armed Combat")
    weak = fighter("P1", agility=1, strength=1, weapons=[club])
    state = ENGINE.start([[weak], [fighter("P3", agility=5, strength=5)]])
    f = state.fighters[0]
    hurt = f.model_copy(update={"vitals": f.vitals.model_copy(update={"dodges": 0, "flesh_wounds": 0})})
    assert best_attack_face(hurt, state) == (0, 8)
