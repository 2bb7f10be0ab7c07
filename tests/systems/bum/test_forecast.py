"""The B.U.M. forecast pinned by hand: small fights whose odds are worked out here from the dice."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest

from storymaster.errors import OddsError
from storymaster.forecast import Forecaster
from storymaster.systems.bum import SYSTEM, BumCharacter, BumHouseRules
from storymaster.systems.bum.character import attack_total, defence_parts
from storymaster.systems.bum.checks import p_fixed, p_opposed_final
from storymaster.systems.bum.combat import attack_odds, exchange_odds
from storymaster.systems.bum.forecast import duel_chain, exact_scope, round_transitions, win_probability

engine = SYSTEM.combat


def hp(state, *values):
    fighters = tuple(f.model_copy(update={"hp": v}) for f, v in zip(state.fighters, values, strict=True))
    return state.model_copy(update={"fighters": fighters})


def test_system_is_a_forecaster():
    assert isinstance(SYSTEM, Forecaster)


def test_level3_one_hp_each_is_one_exchange(card):
    s = hp(engine.start([[card("player2")], [card("thief")]], options={"level": 3}), 1, 1)
    # Part Four: at levels 1-3 every bonus is added. Player 2 rolls d6+8 (DEX 3, Crossbow 2, heavy crossbow +2,
    # leather +1), the thief d6+5 (DEX 2, knife 1, dagger +1, leather +1): ties re-rolled
    w = sum(1 for x in range(1, 7) for y in range(1, 7) if x + 8 > y + 5)
    t = sum(1 for x in range(1, 7) for y in range(1, 7) if x + 8 == y + 5)
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(w / (36 - t), abs=1e-12) and f.rounds == {1: pytest.approx(1.0)}
    p = w / (36 - t)
    assert f.combatants[1].end_states == {"down (0 HP)": pytest.approx(p), "1 HP left": pytest.approx(1 - p)}


@pytest.mark.parametrize("hps", [(3, 2), (2, 3), (1, 3), (3, 3)])
def test_level3_duel_by_counting_paths(card, hps):
    """Level 3: the winner of each exchange takes a hit point; count the paths to every end (brute force)."""
    p1, thief = card("player1"), card("thief")
    s = hp(engine.start([[p1], [thief]], options={"level": 3}), *hps)
    p = exchange_odds(p1, thief)

    @cache
    def ends(a: int, b: int) -> dict[tuple[int, int, int], Fraction]:  # (hp a, hp b, rounds) -> chance
        if a == 0 or b == 0:
            return {(a, b, 0): Fraction(1)}
        out: dict[tuple[int, int, int], Fraction] = {}
        for q, nxt in ((p, (a, b - 1)), (1 - p, (a - 1, b))):
            for (x, y, r), v in ends(*nxt).items():
                out[(x, y, r + 1)] = out.get((x, y, r + 1), Fraction(0)) + q * v
        return out

    truth = ends(*hps)
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(float(sum(v for (x, y, r), v in truth.items() if y == 0)), abs=1e-12)
    assert f.p_win[0] == pytest.approx(float(win_probability(s)), abs=1e-12)
    for r in range(1, sum(hps)):
        then = float(sum(v for (x, y, k), v in truth.items() if k == r))
        assert f.rounds.get(r, 0.0) == pytest.approx(then, abs=1e-12)
    left = {x: float(sum(v for (a, y, r), v in truth.items() if a == x)) for x in range(hps[0] + 1)}
    for x, v in left.items():
        label = "down (0 HP)" if x == 0 else "unhurt" if x == 3 else f"{x} HP left"
        assert f.combatants[0].end_states.get(label, 0.0) == pytest.approx(v, abs=1e-12)
    assert f.error < 1e-12 and f.p_draw == 0


def test_level4_duel_matches_the_rational_reference(card):
    v, p1 = card("victor-mordox"), card("player1")
    s = engine.start([[v], [p1]], options={"tactics": {"Victor Mordox": "melee"}, "max_rounds": 10_000})
    chain = duel_chain(s)
    assert chain.p_hit == (attack_odds(7, 6), attack_odds(7, 6))
    trans = round_transitions(chain, (3, 3))
    assert sum(trans.values()) == 1 and len(trans) == 4
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(float(win_probability(s)), abs=1e-11)
    assert sum(f.rounds.values()) == pytest.approx(1, abs=1e-11) and f.error < 1e-11


def test_level4_one_hp_each_by_hand(card):
    """1 HP each, Victor first: he wins at once (p), or after both miss the round starts again."""
    v, p1 = card("victor-mordox"), card("player1")
    s = hp(engine.start([[v], [p1]], options={"tactics": {"Victor Mordox": "melee"}, "max_rounds": 10_000}), 1, 1)
    p = float(attack_odds(7, 6))
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(p / (1 - (1 - p) ** 2), abs=1e-11)
    assert f.rounds[1] == pytest.approx(1 - (1 - p) ** 2, abs=1e-12)
    assert f.rounds[2] == pytest.approx((1 - p) ** 2 * (1 - (1 - p) ** 2), abs=1e-12)


def test_stand_off_at_the_round_cap_by_hand(card):
    """Two thieves (2 HP, 1 wound a hit), two rounds: A wins on two hits; B on two hits if A has not won first."""
    t = card("thief")
    s = engine.start([[t], [t]], options={"max_rounds": 2})
    att = attack_total(t, "primary")
    dfn = sum(v for _, v in defence_parts(t))
    p = float(p_opposed_final(att, dfn, None))
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(p * p, abs=1e-12)
    assert f.p_win[1] == pytest.approx((1 - p * p) * p * p, abs=1e-12)
    assert f.p_draw == pytest.approx(1 - p * p - (1 - p * p) * p * p, abs=1e-12)
    assert f.rounds == {2: pytest.approx(1.0)} and "stand-off" in f.draw_meaning
    one = SYSTEM.forecast(engine.start([[t], [t]], options={"max_rounds": 1}), method="exact")
    assert one.p_draw == pytest.approx(1.0)


def test_levels_1_and_2_by_hand(card):
    p1, thief = card("player1"), card("thief")
    f1 = SYSTEM.forecast(engine.start([[p1], [thief]], options={"level": 1, "dc": 14}), method="exact")
    # Player 1's one roll adds sword 7 (STR 3, Sword 2, +2), maille +2 and small shield +2 (Part Four): d6 >= 3
    assert f1.p_win[0] == pytest.approx(4 / 6, abs=1e-12) and f1.rounds == {1: pytest.approx(1.0)}
    f2 = SYSTEM.forecast(engine.start([[p1], [thief]], options={"level": 2}), method="exact")
    assert f2.p_win[0] == pytest.approx(float(exchange_odds(p1, thief)), abs=1e-12)
    # by house rule the loser of a level-2 roll only takes a wound: a level-3 fight
    hr = BumHouseRules(loser_fate="wound")
    f3 = SYSTEM.forecast(engine.start([[p1], [thief]], house_rules=hr, options={"level": 2}), method="exact")
    level3 = win_probability(engine.start([[p1], [thief]], options={"level": 3}))
    assert f3.p_win[0] == pytest.approx(float(level3), abs=1e-12)


def test_melee_sneak_attack_ends_it(card):
    v, thief = card("victor-mordox"), card("thief")
    s = engine.start([[v], [thief]], options={"surprised": ["Thief"], "tactics": {"0": "melee"}})
    f = SYSTEM.forecast(s)
    assert f.method == "exact" and f.p_win == (1.0, 0.0) and f.rounds == {1: 1.0}


def test_rolled_initiative_between_two(card):
    """DEX initiative: whoever rolls higher goes first; 1 HP each: the first to hit wins."""
    v, p1 = card("victor-mordox"), card("player1")
    opts = {"initiative": "dex", "tactics": {"0": "melee"}, "max_rounds": 10_000}
    s = hp(engine.start([[v], [p1]], options=opts), 1, 1)
    first = float(p_opposed_final(3, 2, None))  # Victor DEX 3 against DEX 2, ties rolled again
    p = float(attack_odds(7, 6))
    win_first = p / (1 - (1 - p) ** 2)
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(first * win_first + (1 - first) * (1 - win_first), abs=1e-11)


def test_exact_scope_says_why(card):
    v, p1, t = card("victor-mordox"), card("player1"), card("thief")
    exact_scope(engine.start([[v], [p1, t]], options={"initiative": "dex", "distance": 3}))  # missiles, moves: fine
    with pytest.raises(OddsError, match="rolled"):  # six fighters' rolled orders are too many to list
        exact_scope(engine.start([[v, t, t], [p1, t, t]], options={"initiative": "dex"}))
    with pytest.raises(OddsError, match="combinations"):
        exact_scope(engine.start([[v, p1, t, t, v], [p1, t, v, v, p1]]))
    with pytest.raises(OddsError, match="auto, exact or simulate"):
        SYSTEM.forecast(engine.start([[v], [p1]]), method="guess")
    assert SYSTEM.forecast(engine.start([[v], [p1]]), method="simulate", samples=1000).method == "simulated"


def test_opening_bow_shot_by_hand(card):
    """An archer opens with his nocked longbow (a ready missile is the longest reach: he goes first), sets it
    down and fights with his club from round 2; 1 HP each, so the first hit wins."""
    from storymaster.systems.bum.character import profile

    archer = BumCharacter(
        name="Archer",
        npc=True,
        stats={"STR": 2, "DEX": 4, "INT": 1, "SOC": 1},
        weapons={"ranged": {"name": "Longbow"}, "primary": {"name": "Quarterstaff"}},
    )
    t = card("thief")
    s = hp(engine.start([[archer], [t]], options={"max_rounds": 10_000}), 1, 1)
    shot = float(attack_odds(attack_total(archer, "ranged"), sum(x for _, x in defence_parts(t, ranged=True))))
    staff = float(attack_odds(attack_total(archer, "primary"), sum(x for _, x in defence_parts(t))))
    stab_1 = float(
        attack_odds(
            attack_total(t, "primary"),  # round 1: the archer still holds his bow
            sum(x for _, x in defence_parts(archer, weapon=profile(archer, "ranged"))),
        )
    )
    stab = float(attack_odds(attack_total(t, "primary"), sum(x for _, x in defence_parts(archer))))
    assert shot != staff and stab_1 != stab  # the staff parries
    later = staff / (1 - (1 - staff) * (1 - stab))
    p_archer = shot + (1 - shot) * (1 - stab_1) * later
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(p_archer, abs=1e-11)
    assert f.rounds[1] == pytest.approx(shot + (1 - shot) * stab_1, abs=1e-12)


def test_forecast_from_a_finished_or_mid_fight_state(card, scripted):
    from storymaster.dice import DiceRng

    v, t = card("victor-mordox"), card("thief")
    s = engine.start([[v], [t]], options={"tactics": {"0": "melee"}})
    mid, _ = engine.step(s, DiceRng("mid"))
    f = SYSTEM.forecast(mid)
    assert f.method == "exact" and sum(f.p_win) == pytest.approx(1)
    end, _ = engine.run(s, DiceRng("end"))
    done = SYSTEM.forecast(end)
    assert done.p_win[engine.winner(end)] == 1.0 and done.rounds == {0: 1.0}


def test_simulation_is_reproducible_and_reports_progress(card):
    v, t = card("victor-mordox"), card("thief")
    s = engine.start([[v], [t, t]], options={"distance": 3})
    seen: list[int] = []
    a = SYSTEM.forecast(s, method="simulate", samples=60_000, seed=7, progress=lambda done, total: seen.append(done))
    b = SYSTEM.forecast(s, method="simulate", samples=60_000, seed=7)
    assert a.p_win == b.p_win and a.method == "simulated" and seen[-1] == 60_000
    assert all(lo <= p <= hi for p, (lo, hi) in zip(a.p_win, a.intervals, strict=True))


def test_brute_force_level1_team(card):
    """Level 1, two players against one thief, DC 11: every path of the fight's rolls enumerated by hand."""
    p1, p2, thief = card("player1"), card("player2"), card("thief")
    s = engine.start([[p1, p2], [thief]], options={"level": 1, "dc": 14})
    # Part Four, every bonus added: Player 1 sword 7 + maille 2 + shield 2 = 11; Player 2 crossbow 3+2+2 + leather 1 = 8
    a, b = float(p_fixed(11, 14)), float(p_fixed(8, 14))
    assert (a, b) == (4 / 6, 1 / 6)
    # round 1: P1 rolls (a win ends it); if he loses he is out and P2 rolls; if P2 loses too, the thief wins
    p_a = a + (1 - a) * b
    f = SYSTEM.forecast(s, method="exact")
    assert f.p_win[0] == pytest.approx(p_a, abs=1e-12)
    assert f.rounds[1] == pytest.approx(a + (1 - a) * b + (1 - a) * (1 - b), abs=1e-12)


@pytest.mark.parametrize(
    "level, fate, ties",
    [(3, "defeated", "reroll"), (3, "defeated", "defender"), (2, "defeated", "players"), (2, "wound", "attacker")],
)
@pytest.mark.parametrize("hps", [(1, 1), (3, 2), (2, 4), (4, 4)])
@pytest.mark.parametrize("bonuses", ["all", "attack"])  # 'all': Player 1 (11) always beats the thief (5)
def test_duel_closed_form_is_the_chain(card, level, fate, ties, hps, bonuses):
    """Level 2-3 duels are answered in closed form; the Markov chain gives the same numbers."""
    from storymaster.systems.bum.forecast import _exact

    hr = BumHouseRules(loser_fate=fate, opposed_ties=ties, simple_combat_bonuses=bonuses)
    s = hp(
        engine.start([[card("thief")], [card("player1")]], house_rules=hr, options={"level": level, "initiator": 1}),
        *hps,
    )
    quick, chain = _exact(s), _exact(s, closed_form=False)
    assert "closed form" in quick.notes[-1] and "Markov chain" in chain.notes[-1]
    assert quick.p_win == pytest.approx(chain.p_win, abs=1e-12) and quick.p_draw == chain.p_draw == 0
    assert dict(quick.rounds) == pytest.approx(dict(chain.rounds), abs=1e-12)
    for a, b in zip(quick.combatants, chain.combatants, strict=True):
        assert a.name == b.name and dict(a.end_states) == pytest.approx(dict(b.end_states), abs=1e-12)
    # a round cap that can cut the duel short sends it to the chain, which counts the stand-off
    capped = s.model_copy(update={"max_rounds": 1})
    if level == 3 and sum(hps) > 2:
        assert "Markov chain" in SYSTEM.forecast(capped, method="exact").notes[-1]
