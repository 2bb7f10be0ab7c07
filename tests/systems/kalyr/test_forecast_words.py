"""What a Kalyr forecast says around its numbers (issue 14, mutation survivors of systems/kalyr/forecast.py):
the tactics, the kind of contest, what a draw is, how fighters end, and its refusals. The numbers of tiny
fights are counted by hand from the 4dF table (1, 4, 10, 16, 19, 16, 10, 4, 1 of 81)."""

from __future__ import annotations

import pytest

from storymaster.errors import OddsError
from storymaster.systems.kalyr import SYSTEM
from storymaster.systems.kalyr.character import Character
from storymaster.systems.kalyr.forecast import (
    END_STATES,
    EXACT_MAX_ROLLERS,
    draw_meaning,
    end_state,
    exact_forecast,
    forecast,
    tactics_text,
)

E = SYSTEM.combat
COUNTS = (1, 4, 10, 16, 19, 16, 10, 4, 1)


def fighter(name, level="Fair", **kw):
    return Character(name=name, abilities=[{"name": "Melee", "level": level}], **kw)


def test_tactics_in_words():
    s = E.start(
        [[fighter("A", "Good")], [fighter("B")]],
        options={
            "mode": "detailed",
            "tactics": [
                {"approach": 2, "stance": "all_out_offence", "aim": "great", "withdraw_at": "Very Hurt"},
                {"approach": -1, "stance": "all_out_defence", "fudge_reduce_at": "never"},
            ],
        },
    )
    a, b = s.sides[0][0], s.sides[1][0]
    assert tactics_text(a, s) == "Melee Good, aggressive +2, all-out offence, aims for Great, withdraws at Very Hurt"
    assert tactics_text(b, s) == "Melee Fair, cautious -1, all-out defence, no Fudge points on wounds"
    simple = E.start([[fighter("A")], [fighter("B")]], options={"tactics": [{"fudge_reduce_at": "defeated"}, {}]})
    assert tactics_text(simple.sides[0][0], simple) == "Melee Fair, Fudge points keep wounds out of Defeated"
    assert tactics_text(simple.sides[1][0], simple) == "Melee Fair"  # the defaults go unsaid
    f = exact_forecast(s)
    assert f.tactics == {"A": tactics_text(a, s), "B": tactics_text(b, s)}


def test_a_group_names_each_fighter_and_numbers_the_same_names():
    s = E.start([[fighter("Guard"), fighter("Guard", "Good")], [fighter("Kylar", "Great")]], options={"on_tie": "draw"})
    f = exact_forecast(s)
    assert f.sides == (("Guard", "Guard #2"), ("Kylar",))
    assert [c.name for c in f.combatants] == ["Guard", "Guard #2", "Kylar"]
    assert [c.side for c in f.combatants] == [0, 0, 1]
    assert f.tactics["A"] == "Guard: Melee Fair; Guard #2: Melee Good"
    assert f.tactics["B"] == "Melee Great"


def test_the_kind_of_contest_in_the_notes():
    duel = exact_forecast(E.start([[fighter("A")], [fighter("B")]], options={"on_tie": "draw"}))
    assert duel.notes[1] == "simple contest, a tie is a draw on the physical track"
    assert duel.notes[0].startswith("exact: an absorbing Markov chain over ")
    assert any("Destroyed box" in n for n in duel.notes)  # the default Fudge tactic
    group = E.start([[fighter("A"), fighter("B")], [fighter("C")]], options={"stakes": "Hurt"})
    f = exact_forecast(group)
    assert f.notes[1] == "simple contest (group), stakes Hurt, ties re-rolled on the physical track"
    never = {"fudge_reduce_at": "never"}
    d = E.start(
        [[fighter("A")], [fighter("B")]], options={"mode": "detailed", "ranged": True, "tactics": [never, never]}
    )
    f = exact_forecast(d)
    assert f.notes[1] == "detailed contest (one-on-one rounds, damage halved) on the physical track, missile combat"
    assert not any("Destroyed box" in n for n in f.notes)
    assert not any("forecast from round" in n for n in f.notes)


def test_what_a_draw_is():
    assert draw_meaning(E.start([[fighter("A")], [fighter("B")]], options={"on_tie": "draw"})).startswith(
        "honourable draw"
    )
    capped = E.start([[fighter("A")], [fighter("B")]], options={"max_rounds": 9})
    assert draw_meaning(capped) == "draw (no result after the 9-round cap)"
    detailed = E.start([[fighter("A")], [fighter("B")]], options={"mode": "detailed", "on_tie": "draw"})
    assert draw_meaning(detailed) == f"draw (no result after the {detailed.max_rounds}-round cap)"


def test_end_states_in_the_books_words():
    assert END_STATES == (
        "unhurt",
        "Scratch",
        "Hurt",
        "Very Hurt",
        "Defeated",
        "Destroyed",
        "withdrew at Scratch",
        "withdrew at Hurt",
        "withdrew at Very Hurt",
        "withdrew at Defeated",
        "withdrew at Destroyed",
    )
    hurt = fighter("H", damage={"physical": {"wounds": [{"severity": "Hurt", "box": "Hurt"}]}})
    s = E.start([[hurt], [fighter("B")]])
    f = s.sides[0][0]
    assert end_state(f, "physical") == "Hurt"
    assert end_state(f, "mental") == "unhurt"
    assert end_state(f.model_copy(update={"withdrawn": True}), "physical") == "withdrew at Hurt"
    assert end_state(s.sides[1][0].model_copy(update={"withdrawn": True}), "physical") == "unhurt"


def test_first_blood_by_hand_with_its_end_states():
    """Stakes Hurt, Fair against Fair, ties a draw: one roll. A wins when A's 4dF beats B's: (1 - P(tie)) / 2,
    P(tie) = sum of squared counts / 81^2 = 1107/6561; the loser ends Hurt, the winner unhurt."""
    s = E.start([[fighter("A")], [fighter("B")]], options={"stakes": "Hurt", "on_tie": "draw"})
    tie = sum(n * n for n in COUNTS) / 81**2
    assert tie == pytest.approx(1107 / 6561)
    f = exact_forecast(s)
    assert f.p_win == pytest.approx(((1 - tie) / 2, (1 - tie) / 2), abs=1e-12)
    assert f.p_draw == pytest.approx(tie, abs=1e-12)
    ends = {c.name: dict(c.end_states) for c in f.combatants}
    assert ends["A"] == pytest.approx({"unhurt": (1 + tie) / 2, "Hurt": (1 - tie) / 2}, abs=1e-12)
    assert f.rounds == pytest.approx({1: 1.0})
    assert f.error == pytest.approx(0, abs=1e-12) and f.method == "exact"


def test_a_round_cap_of_one_makes_ties_draws():
    """Ties re-rolled, but a cap of one round: the tie mass is a draw at round 1."""
    s = E.start([[fighter("A")], [fighter("B")]], options={"stakes": "Hurt", "max_rounds": 1})
    tie = sum(n * n for n in COUNTS) / 81**2
    f = exact_forecast(s)
    assert f.p_draw == pytest.approx(tie, abs=1e-12)
    assert f.rounds == pytest.approx({1: 1.0})
    assert any("still going at the 1-round cap: draws" in n for n in f.notes)


def test_refusals():
    s = E.start([[fighter("A")], [fighter("B")]])
    with pytest.raises(OddsError, match="not a Kalyr fight state: Character"):
        exact_forecast(fighter("X"))  # type: ignore[arg-type]
    with pytest.raises(OddsError, match="not a Kalyr fight state: Character"):
        forecast(fighter("X"))  # type: ignore[arg-type]
    with pytest.raises(OddsError, match="two sides"):
        exact_forecast(s.model_copy(update={"sides": (s.sides[0], ())}))
    with pytest.raises(OddsError, match="two sides"):
        exact_forecast(s.model_copy(update={"sides": s.sides + s.sides[:1]}))
    two = (s.sides[0] + s.sides[0], s.sides[1])
    with pytest.raises(OddsError, match="one-on-one"):
        exact_forecast(s.model_copy(update={"mode": "detailed", "sides": two}))
    four = E.start([[fighter("A"), fighter("B")], [fighter("C"), fighter("D")]])
    assert EXACT_MAX_ROLLERS == 3
    with pytest.raises(OddsError, match="4 fighters roll each round"):
        forecast(four, method="exact")
    auto = forecast(four, samples=2000, seed=1)
    assert auto.method == "simulated" and auto.notes[0].startswith("too big to solve exactly (4 fighters roll")
    three = E.start([[fighter("A"), fighter("B")], [fighter("C")]], options={"on_tie": "draw"})
    assert forecast(three).method == "exact"


def test_a_tie_that_leaves_one_side_defeated_ends_the_contest():
    """Using Simple Contests for Fights / Damage: A (Fair, polearm +4, Long) against B (Fair, bare hands, Close,
    no Fudge points). A's bonus: arms (4 - 0) // 2 = 2, much longer reach +1: A rolls at +3. B's damage is
    A's result - B's + 4, so a tie (or an A win) puts B in Defeated: B has nobody left and loses (the tie is
    not rolled again). B wins only by rolling 4 or more above A's dice: P = sum of count products / 6561."""
    a = fighter("A", weapon={"name": "polearm"})
    b = fighter("B", fudge_points=0)
    s = E.start([[a], [b]], options={"on_tie": "reroll"})
    b_wins = sum(COUNTS[x] * COUNTS[y] for x in range(9) for y in range(9) if y - x >= 4) / 81**2
    ex = exact_forecast(s)
    assert ex.p_win == pytest.approx((1 - b_wins, b_wins), abs=1e-12)
    assert ex.p_draw == pytest.approx(0, abs=1e-12)
    n = 20_000
    sim = forecast(s, method="simulate", samples=n, seed=3)
    sd = (b_wins * (1 - b_wins) / n) ** 0.5
    assert abs(sim.p_win[1] - b_wins) < 5 * sd and sim.p_draw == 0


def test_withdrawals_are_reported_as_withdrawals_by_both_methods():
    """Detailed Contests: a party may admit defeat and withdraw; B withdraws at the first wound (Scratch). The
    simulation (numpy round) and the exact chain (the engine's round enumerated) are independent methods: B's
    end as "withdrew at ..." must carry the same mass in both, and B never ends Scratched without withdrawing."""
    s = E.start(
        [[fighter("A", "Good")], [fighter("B")]],
        options={"mode": "detailed", "tactics": [{}, {"withdraw_at": "Scratch"}]},
    )
    ex = {c.name: dict(c.end_states) for c in exact_forecast(s).combatants}["B"]
    n = 20_000
    sim = {c.name: dict(c.end_states) for c in forecast(s, method="simulate", samples=n, seed=5).combatants}["B"]
    p = sum(v for k, v in ex.items() if k.startswith("withdrew"))
    q = sum(v for k, v in sim.items() if k.startswith("withdrew"))
    assert 0.1 < p < 0.99
    assert abs(q - p) < 5 * (p * (1 - p) / n) ** 0.5
    assert ex.get("Scratch", 0) == pytest.approx(0, abs=1e-12) and sim.get("Scratch", 0) == 0
