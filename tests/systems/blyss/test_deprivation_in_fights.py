"""Fatigue, Hunger and Thirst inside a fight (issue 19; ruling B-L6): a tired, starving fighter rolls smaller
pools in the engine, the exact chain and the simulation, by the same rule as a check at the table (B-L2).

BLYSS 3.5, Fatigue: "all of their attributes and traits with the exception of Health, Flesh Wounds and Mana
... temporarily decrease by one rank". House rule ``deprivation_penalty``: ``per_statistic`` (every statistic
rolled loses the ranks, shared out like other rank penalties, highest ranked first) or ``per_test`` (the Test
loses them once). Expected pools and odds are worked out by hand or by an independent brute force here.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import yaml
from living.livekit import build_live, example

from storymaster.dice import DiceRng
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss.character import Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.checks import pool_dice
from storymaster.systems.blyss.combat import BlyssCombat, FightState, attack_pool, defence_pool
from storymaster.systems.blyss.condition import CONDITION
from storymaster.systems.blyss.options import BlyssHouseRules

MODES = ("per_statistic", "per_test")


class _Engine(BlyssCombat):
    """Stat blocks built in code to exercise one rule (the SM allows them)."""

    def start(self, sides, *, house_rules=None, options=None):  # type: ignore[override]
        return super().start(sides, house_rules=house_rules, options={"allow_illegal": True, **dict(options or {})})


ENG = _Engine()


def ch(name: str, weapon: Weapon | None = None, *, skill: int = 3, **attrs: int) -> Character:
    traits = (Trait(name="Armed Combat", rank=skill), Trait(name="Unarmed Combat", rank=2))
    return Character(name=name, attributes=Attributes(**attrs), traits=traits, weapons=(weapon,) if weapon else ())


def deprived(state: FightState, who: str, hr: BlyssHouseRules, **ranks: int) -> FightState:
    """The fight as the table starts it for a character whose condition has lost these ranks."""
    f = state.get(who)
    cond = CONDITION.initial(f.character, hr).model_copy(update=ranks)
    return CONDITION.into_fight(state, who, cond, hr)


# ---------------------------------------------------------------- an independent statement of the pool sizes
DIE_OF_RANK = {1: 4, 2: 6, 3: 8, 4: 10, 5: 12}  # Table 2-01 (rank 0: no die)


def brute_dice(ranks: tuple[int, ...], penalty: int) -> list[int]:
    """Take the penalty one rank at a time from the currently highest statistic (Table 2-03 note: 'shared
    between dice, highest ranked first'), then each statistic's die."""
    left = list(ranks)
    for _ in range(penalty):
        i = max(range(len(left)), key=lambda j: left[j])
        if left[i] == 0:
            break
        left[i] -= 1
    return sorted(DIE_OF_RANK[r] for r in left if r)


def test_pool_sizes_match_a_brute_force_for_both_house_rules() -> None:
    """Every attack, defence and Strength (disarm) pool of small fighters, at 0 to 3 ranks of deprivation under
    both settings, against the brute force: per statistic, a pool of n statistics loses n x the ranks."""
    foe = ch("Foe", Weapon(name="Club", damage="d6", skill="Armed Combat"))
    seen = 0
    for mode, (s, a, w, sk), dep in itertools.product(
        MODES, itertools.product((2, 4, 5), (1, 3, 5), (2, 4), (1, 3)), range(4)
    ):
        hr = BlyssHouseRules(deprivation_penalty=mode)
        me = ch("Me", Weapon(name="Sword", damage="d8", skill="Armed Combat"), skill=sk, strength=s, agility=a, wits=w)
        st = ENG.start([[me], [foe]], house_rules=hr)
        st = deprived(st, "Me", hr, fatigue=dep)
        f = st.get("Me")
        for pool, ranks in (
            (attack_pool(f, st)[0], ((s + a) // 2, sk)),  # Melee Attack + Armed Combat
            (defence_pool(f, st, "defend"), ((a + w) // 2, sk)),  # Defence + the weapon's skill
            (defence_pool(f, st, "strength"), (s,)),  # Strength against a disarm
        ):
            per = len(ranks) if mode == "per_statistic" else 1
            expect = brute_dice(ranks, dep * per)
            assert sorted(pool_dice(pool, hr)) == expect, (mode, s, a, w, sk, dep, ranks)
            seen += 1
    assert seen == 2 * 3 * 3 * 2 * 2 * 4 * 3


# ---------------------------------------------------------------- the engine's log
def test_a_fatigued_and_hungry_fighter_rolls_smaller_pools_in_the_engines_log() -> None:
    """Yama Wolfclaw (examples/blyss/warrior.yaml): Melee Attack (4 + 4) / 2 = 4 and Armed Combat 3, Chainmail
    -1 (an Action Modifier): rested, (4, 3) less 1 rank = (3, 3), d8 + d8. Fatigue 1 and Hunger 1 (2 ranks):
    per statistic, 2 x 2 = 4 ranks more, (4, 3) less 5 = (1, 1), d4 + d4; per Test, 2 more, (4, 3) less 3 =
    (2, 2), d6 + d6. Initiative (4 + 4) / 2 = 4, one statistic: rank 2 under either setting."""
    ex = Path(__file__).resolve().parents[3] / "examples" / "blyss"
    yama = Character.model_validate(yaml.safe_load((ex / "warrior.yaml").read_text()))
    ralan = Character.model_validate(yaml.safe_load((ex / "rogue.yaml").read_text()))
    eng = BlyssCombat()
    expect = {None: ([8, 8], 4), "per_statistic": ([4, 4], 2), "per_test": ([6, 6], 2)}
    for mode, (dice, init_rank) in expect.items():
        hr = BlyssHouseRules(deprivation_penalty=mode or "per_statistic")
        st = eng.start([[yama], [ralan]], house_rules=hr)
        if mode:
            st = deprived(st, yama.name, hr, fatigue=1, hunger=1)
        st, events = eng.step(st, DiceRng(f"tired-{mode}"))
        attack = next(e for e in events if e.kind == "attack" and e.actor == yama.name)
        assert attack.data["dice"] == dice, mode
        assert f"pool {'+'.join(f'd{d}' for d in dice)} vs TD 8" in attack.text
        assert ("fatigue, hunger, thirst" in attack.text) == bool(mode)
        init = next(e for e in events if e.kind == "initiative")
        shown = re.search(re.escape(yama.name) + r": [^()]*\(value \d+, Initiative rank (\d+)\)", init.text)
        assert shown is not None and int(shown.group(1)) == init_rank, init.text
        row = next(r for r in eng.tracker(st) if r.name == yama.name)
        word = {"per_statistic": "-2 rank(s) per statistic rolled", "per_test": "-2 rank(s) per Test"}
        assert row.details.get("fatigue, hunger, thirst") == word.get(mode or "")


# ---------------------------------------------------------------- the exact chain and the simulation
AXE = Weapon(name="Axe", damage="30", skill="Armed Combat")
ANN = ch("Ann", AXE, strength=4, agility=4)
BO = ch("Bo", Weapon(name="Club", damage="30", skill="Armed Combat"), skill=2)


def race(pa: float, pb: float, ahead: float, rounds: int = 100) -> tuple[float, float, float]:
    """A one-blow duel (see test_forecast.test_one_blow_duel_worked_by_hand): Ann acts first when she loses
    Initiative (the Declaration Round's order, slowest first)."""
    first = 1 - ahead
    q = (1 - pa) * (1 - pb)
    r = (1 - q**rounds) / (1 - q)
    p_ann = first * pa * r + (1 - first) * (1 - pb) * pa * r
    p_bo = first * (1 - pa) * pb * r + (1 - first) * pb * r
    return p_ann, p_bo, q**rounds


def test_a_fatigued_duellist_wins_less_by_hand_under_both_house_rules() -> None:
    """Ann: Melee Attack 4 (d10) + Armed Combat 3 (d8) at TD 8 hits with 27/80 rested; Initiative 3 (d8) against
    Bo's d8 at TD 6 puts her ahead with 18/64 + 0.505 x 28/64. Bo hits with d8 + d6: 5/48.

    Fatigue 1, per statistic: 2 ranks off (4, 3): (3, 2) = d8 + d6, a hit only on the d8's 8 with the d6 not
    a 1: 5/48. Per Test: 1 rank off: (3, 3) = d8 + d8, an 8 on either with the other not a 1: 13/64.
    Initiative, one statistic, loses 1 rank either way: d6 (rank 2) against Bo's d8 (rank 3). Ann is ahead
    only on her 6 (one success, value 6) against Bo's 1-5: 1/6 x 5/8 = 5/48; on equal successes and values
    the higher Initiative rank, Bo's, goes ahead."""
    pb = 5 / 48
    cases = {
        None: (27 / 80, 18 / 64 + 0.505 * 28 / 64),
        "per_statistic": (5 / 48, 5 / 48),
        "per_test": (13 / 64, 5 / 48),
    }
    got = {}
    for mode, (pa, ahead) in cases.items():
        # the race by hand reads a Screw-Up as a plain failure (house rule; Screw-Ups in a fight: test_screw_ups.py)
        hr = BlyssHouseRules(deprivation_penalty=mode or "per_statistic", combat_screw_up="none")
        st = ENG.start([[ANN], [BO]], house_rules=hr)
        if mode:
            st = deprived(st, "Ann", hr, fatigue=1)
        fc = SYSTEM.forecast(st, method="exact")
        p_ann, p_bo, draw = race(pa, pb, ahead)
        assert fc.p_win[0] == pytest.approx(p_ann, abs=1e-11), mode
        assert fc.p_win[1] == pytest.approx(p_bo, abs=1e-11), mode
        assert fc.p_draw == pytest.approx(draw, abs=1e-11), mode
        got[mode] = fc.p_win[0]
    # the book's direction: deprivation costs the fighter; a penalty once per Test costs less than per statistic
    assert got["per_statistic"] < got["per_test"] < got[None]


def test_the_simulation_feels_the_deprivation_too() -> None:
    hr = BlyssHouseRules(combat_screw_up="none")  # the race by hand: a Screw-Up is a plain failure
    st = deprived(ENG.start([[ANN], [BO]], house_rules=hr), "Ann", hr, fatigue=1)
    n = 20_000
    sim = SYSTEM.forecast(st, method="simulate", samples=n, seed=11)
    p_ann, p_bo, _ = race(5 / 48, 5 / 48, 5 / 48)
    se = (p_ann * (1 - p_ann) / n) ** 0.5
    assert abs(sim.p_win[0] - p_ann) < 4 * se + 1e-3
    assert abs(sim.p_win[1] - p_bo) < 4 * (p_bo * (1 - p_bo) / n) ** 0.5 + 1e-3
    rested = race(27 / 80, 5 / 48, 18 / 64 + 0.505 * 28 / 64)[0]
    assert sim.p_win[0] < rested - 10 * se


# ---------------------------------------------------------------- at the table
@pytest.mark.parametrize(
    ("mode", "dice"),
    [
        # Yama after 33 hours awake (Stamina 4: Threshold 32 hours): Fatigue 1. (4, 3) less Chainmail's 1 rank:
        # per statistic 2 more, (2, 2) = d6 + d6; per Test 1 more, (2, 3) = d6 + d8. Rested it is d8 + d8.
        ("per_statistic", [6, 6]),
        ("per_test", [6, 8]),
    ],
)
def test_a_scene_fight_from_a_tired_campaign_character_applies_it(client, mode: str, dice: list[int]) -> None:
    t = build_live(
        client,
        "blyss",
        example("blyss", "warrior"),
        example("blyss", "rogue"),
        house_rules={"deprivation_penalty": mode},
    )
    t.act(t.a, {"action": "time", "hours": 33})
    assert t.condition(t.a)["condition"]["fatigue"] == 1
    combat = t.fight([[t.a], [t.b]])
    yama = next(r for r in combat["tracker"] if r["character"] == t.a)
    per = "statistic rolled" if mode == "per_statistic" else "Test"
    assert yama["details"]["fatigue, hunger, thirst"] == f"-1 rank(s) per {per}"
    ralan = next(r for r in combat["tracker"] if r["character"] == t.b)
    assert "fatigue, hunger, thirst" not in ralan["details"]
    for _ in range(5):
        combat = t.step()
        mine = [e for e in combat["events"] if e["kind"] == "attack" and e["actor"] == yama["name"]]
        if mine:
            break
    assert mine, "Yama never attacked"
    assert sorted(mine[0]["data"]["dice"]) == dice
    assert "fatigue, hunger, thirst -" in combat["story"]


# ---------------------------------------------------------------- outside the pools: Strength, Agility, Stamina
MACE = Weapon(name="Mace", damage="d6", skill="Armed Combat")


def _events_until(state: FightState, kind: str, actor: str, seeds: int = 40) -> list:
    """The first round's events, over seeds, until one of ``kind`` by ``actor`` shows."""
    for i in range(seeds):
        _, events = ENG.step(state, DiceRng(f"deprived-{kind}-{i}"))
        found = [e for e in events if e.kind == kind and e.actor == actor]
        if found:
            return found
    raise AssertionError(f"no {kind} by {actor} in {seeds} first rounds")


@pytest.mark.parametrize(("mode", "bonus"), [(None, 2), ("per_statistic", 1), ("per_test", 2)])
def test_strengths_damage_bonus_falls_only_where_the_statistics_do(mode: str | None, bonus: int) -> None:
    """Strength 5: +2 damage (Strength: +1 per rank above Average). Fatigue 1: "all of their attributes ...
    decrease by one rank" makes it Strength 4, +1; by the house rule per_test the Test bears the ranks and
    Strength stays 5."""
    hr = BlyssHouseRules(deprivation_penalty=mode or "per_statistic")
    ann = ch("Ann", MACE, strength=5, agility=4, dexterity=4)
    st = ENG.start([[ann], [ch("Bo", MACE)]], house_rules=hr)
    if mode:
        st = deprived(st, "Ann", hr, fatigue=1)
    blows = [e for e in _events_until(st, "damage", "Ann") if "Mace deals" in e.text]
    assert blows and f"{bonus:+d} Strength = " in blows[0].text


@pytest.mark.parametrize(("mode", "feet"), [(None, 33), ("per_statistic", 30), ("per_test", 33)])
def test_movement_falls_only_where_the_statistics_do(mode: str | None, feet: int) -> None:
    """Movement: 30 ft at Average Agility (3), +3 ft a rank above. Agility 4 is 33 ft; Fatigue 1 per statistic
    makes it Agility 3, 30 ft; per Test it stays 33 ft."""
    hr = BlyssHouseRules(deprivation_penalty=mode or "per_statistic")
    st = ENG.start([[ch("Ann", MACE, agility=4)], [ch("Bo", MACE)]], house_rules=hr, options={"distance": 90})
    if mode:
        st = deprived(st, "Ann", hr, fatigue=1)
    moves = _events_until(st, "move", "Ann")
    assert f"moves {feet} ft" in moves[0].text


@pytest.mark.parametrize(("mode", "rank"), [(None, 3), ("per_statistic", 2), ("per_test", 2)])
def test_a_dying_fighters_stamina_check_feels_it(mode: str | None, rank: int) -> None:
    """Dying: a Stamina check each turn. Stamina 3, Fatigue 1: the check is a Test of one statistic, so it is
    rolled at rank 2 under either house rule."""
    hr = BlyssHouseRules(deprivation_penalty=mode or "per_statistic")
    st = ENG.start([[ch("Ann", MACE, stamina=3)], [ch("Bo", MACE)]], house_rules=hr)
    cond = CONDITION.initial(st.get("Ann").character, hr)
    down = cond.vitals.model_copy(
        update={"dodges": 0, "flesh_wounds": 0, "health": -1, "unconscious": True, "dying": True}
    )
    cond = cond.model_copy(update={"vitals": down, "fatigue": 1 if mode else 0})
    st = CONDITION.into_fight(st, "Ann", cond, hr)
    _, events = ENG.step(st, DiceRng("dying"))
    check = next(e for e in events if e.kind in ("dying", "death") and e.actor == "Ann")
    assert f"(Stamina rank {rank})" in check.text


def test_the_simulation_and_the_chain_agree_where_strength_matters() -> None:
    """Ann (Strength 5, a d6 mace) at Fatigue 1: her damage bonus falls from +2 to +1 as her pools shrink. The
    simulation reads Strength through the same rule as the round the chain enumerates; with the bonus kept
    at +2 Ann's chance moves by about 0.05, some 14 standard errors of these 20,000 fights."""
    hr = BlyssHouseRules()
    ann = ch("Ann", MACE, strength=5, agility=4, stamina=2)
    bo = ch("Bo", Weapon(name="Club", damage="d6", skill="Armed Combat"), stamina=2)
    st = deprived(ENG.start([[ann], [bo]], house_rules=hr), "Ann", hr, fatigue=1)
    exact = SYSTEM.forecast(st, method="exact")
    n = 20_000
    sim = SYSTEM.forecast(st, method="simulate", samples=n, seed=3)
    for p, q in zip(exact.p_win, sim.p_win, strict=True):
        assert abs(p - q) < 4 * (p * (1 - p) / n) ** 0.5 + 1e-3


def test_a_dying_check_at_the_table_feels_it(client) -> None:
    """Yama (Stamina 4) dying after 33 hours awake (Fatigue 1): the Stamina check is at rank 3."""
    t = build_live(client, "blyss", example("blyss", "warrior"), example("blyss", "rogue"))
    t.act(t.a, {"action": "time", "hours": 33})
    t.act(t.a, {"action": "damage", "amount": 6 + 4 + 35})  # through Dodges 6, Flesh Wounds 4, Health 34 to -1
    assert t.condition(t.a)["condition"]["vitals"]["dying"]
    t.act_in_scene(t.a, {"action": "dying_check"})
    told = [p for p in t.posts() if p["kind"] == "table"]
    assert told and "(Stamina rank 3)" in told[-1]["text"]
