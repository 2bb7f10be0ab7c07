"""Exact forecasts of tiny duels against an independent chain in Fractions, written here from the book.

The duels: one die a side (``one_die_second_die_for_criticals`` off, so a roll is one plain d6), Body 1, a
normal weapon, no armour: a Defence Total of 1 (the book: Ability plus modifiers, "No Defense total can be
less than 1", so injury cannot lower it). A round is won by the margin of d6 - d6 (a tie is a stand-off):
each margin g in 1..5 has chance (6 - g)/36 for either side. Advantage Points spent on harm are compared
with the Defence Total: 1x moderate, 2x serious, 3x mortal, 4x killed. The Tenacity test (one die, never
fewer) against target T passes with chance (7 - T)/6; a failed one after a moderate or serious wound leaves
the fighter incapacitated, after a mortal one unconscious; a lethal mortal wound leaves him dying
(``mortal_wound_deaths``). The chains below are solved by elimination in Fractions: nothing is taken from
the program.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction

import pytest

from storymaster.errors import OddsError
from storymaster.systems.fuzzy import SYSTEM
from storymaster.systems.fuzzy.character import CombatProfile, FuzzyCharacter, RequiredAbilities
from storymaster.systems.fuzzy.combat import FightState
from storymaster.systems.fuzzy.forecast import exact_forecast, simulate_forecast
from storymaster.systems.fuzzy.options import FuzzyHouseRules

ENGINE = SYSTEM.combat
F = Fraction
#: one exchange of d6 against d6: (winner 0 or 1, margin) -> chance; a tie is a stand-off
MARGINS = {(side, g): F(6 - g, 36) for side in (0, 1) for g in range(1, 6)}
TIE = F(6, 36)
UP = ("unhurt", "moderate wound", "serious wound", "mortal wound")


def one_die(name: str, tenacity: int = 1, **combat) -> FuzzyCharacter:
    profile = {"weapon": "sword", "weapon_lethality": "normal", **combat}
    return FuzzyCharacter(
        name=name, required=RequiredAbilities(body=1, tenacity=tenacity), combat=CombatProfile(**profile)
    )


def duel(house: FuzzyHouseRules, tactics=None, a: FuzzyCharacter | None = None, b=None) -> FightState:
    return ENGINE.start(
        [[a or one_die("A")], [b or one_die("B")]],
        house_rules=house,
        options={"tactics": tactics or [{}, {}], "tactics_by_name": {}},
    )


def house(**kw) -> FuzzyHouseRules:
    return FuzzyHouseRules(one_die_second_die_for_criticals=False, **kw)


Step = Callable[[Hashable], list[tuple[Fraction, Hashable]]]


def solve(start: Hashable, step: Step) -> dict[Hashable, Fraction]:
    """The chance of each end (a state ``("end", ...)``) of the chain from ``start``, by Gauss-Jordan elimination
    in Fractions over every state reachable from it."""
    order, seen, todo = [], {start}, [start]
    while todo:
        s = todo.pop()
        order.append(s)
        for _, t in step(s):
            if t[0] != "end" and t not in seen:
                seen.add(t)
                todo.append(t)
    index = {s: i for i, s in enumerate(order)}
    ends = sorted({t for s in order for _, t in step(s) if t[0] == "end"}, key=repr)
    col = {t: len(order) + j for j, t in enumerate(ends)}
    n = len(order)
    # (I - Q) x = R, one right-hand column per end
    rows = []
    for s in order:
        row = [F(0)] * (n + len(ends))
        row[index[s]] += 1
        for p, t in step(s):
            if t[0] == "end":
                row[col[t]] += p
            else:
                row[index[t]] -= p
        rows.append(row)
    for i in range(n):
        piv = next(r for r in range(i, n) if rows[r][i] != 0)
        rows[i], rows[piv] = rows[piv], rows[i]
        inv = 1 / rows[i][i]
        rows[i] = [v * inv for v in rows[i]]
        for r in range(n):
            if r != i and rows[r][i] != 0:
                k = rows[r][i]
                rows[r] = [v - k * w for v, w in zip(rows[r], rows[i], strict=True)]
    return {t: rows[index[start]][col[t]] for t in ends}


def rounds_until_end(start: Hashable, step: Step, n: int) -> list[Fraction]:
    """The chance the chain ends in round 1, 2, ..., n (forward, round by round)."""
    live, out = {start: F(1)}, []
    for _ in range(n):
        nxt: dict[Hashable, Fraction] = {}
        ended = F(0)
        for s, p in live.items():
            for q, t in step(s):
                if t[0] == "end":
                    ended += p * q
                else:
                    nxt[t] = nxt.get(t, F(0)) + p * q
        out.append(ended)
        live = nxt
    return out


def check(f, ends: dict[Hashable, Fraction], names=("A", "B")) -> None:
    """The forecast against the chain's ends ``("end", winner, label of A, label of B)``."""
    p_win = [sum((p for t, p in ends.items() if t[1] == s), F(0)) for s in (0, 1)]
    assert f.p_win[0] == pytest.approx(float(p_win[0]), abs=1e-12)
    assert f.p_win[1] == pytest.approx(float(p_win[1]), abs=1e-12)
    for i, name in enumerate(names):
        want: dict[str, Fraction] = {}
        for t, p in ends.items():
            want[t[2 + i]] = want.get(t[2 + i], F(0)) + p
        got = dict(next(c for c in f.combatants if c.name == name).end_states)
        assert set(got) == {k for k, v in want.items() if v > 0}, (name, got, want)
        for k, v in want.items():
            assert got.get(k, 0.0) == pytest.approx(float(v), abs=1e-12), (name, k)


# -- a wound for every round won (harm at 'moderate': every point is spent at once) -----------------------


def wound_chain(target: int, mortal_deaths: bool = True, leaves_dying: bool = False) -> Step:
    """States (worst wound, dying) per fighter; each round won by g wounds the loser at level min(g, 4)."""
    p_pass = F(max(0, min(6, 7 - target)), 6)

    def label(worst: int, dying: bool, status: str) -> str:
        base = UP[worst] if status == "fighting" else status
        return base + (", dying" if dying else "")

    def step(s):
        out = [(TIE, s)]
        for (win, g), p in MARGINS.items():
            lose = 1 - win
            (wl, dl) = s[lose]
            if g >= 4:
                down = "unconscious, dying" if leaves_dying else "dead"
                labels = [label(*s[win], "fighting"), down]
                a, b = (labels[0], labels[1]) if win == 0 else (labels[1], labels[0])
                out.append((p, ("end", win, a, b)))
                continue
            worst = max(wl, g)
            dying = dl or (g == 3 and mortal_deaths)
            after = list(s)
            after[lose] = (worst, dying)
            out.append((p * p_pass, tuple(after)))
            fallen = "incapacitated" if g < 3 else "unconscious"
            labels = [label(*s[win], "fighting"), label(worst, dying, fallen)]
            a, b = (labels[0], labels[1]) if win == 0 else (labels[1], labels[0])
            if p_pass < 1:
                out.append((p * (1 - p_pass), ("end", win, a, b)))
        return out

    return step


START = ((0, False), (0, False))


@pytest.mark.parametrize(
    "target,deaths,leaves_dying",
    [(7, True, False), (4, True, False), (2, True, True), (3, False, False), (1, True, False)],
)
def test_one_die_duel_wounds_every_round_won(target, deaths, leaves_dying):
    h = house(tenacity_target=target, mortal_wound_deaths=deaths, killing_blow_leaves_dying=leaves_dying)
    step = wound_chain(target, deaths, leaves_dying)
    f = exact_forecast(duel(h))
    assert f.method == "exact" and f.error < 1e-12 and f.notes == ()
    ends = solve(START, step)
    assert sum(ends.values()) == 1
    check(f, ends)
    assert f.p_draw == pytest.approx(0.0, abs=1e-12)
    for r, p in enumerate(rounds_until_end(START, step, 6), start=1):
        assert f.rounds.get(r, 0.0) == pytest.approx(float(p), abs=1e-12), r


def test_the_same_duel_by_simulation_within_its_sampling_error():
    """Simulated against the same chain: each figure within 4 standard errors of n = 20,000 fights."""
    target = 4
    h = house(tenacity_target=target)
    ends = solve(START, wound_chain(target))
    n = 20_000
    s = simulate_forecast(duel(h), samples=n, seed=1)
    assert s.method == "simulated" and s.samples == n

    def near(got: float, p: Fraction) -> bool:
        return abs(got - float(p)) <= 4 * (float(p * (1 - p)) / n) ** 0.5 + 1e-12

    p_a = sum((p for t, p in ends.items() if t[1] == 0), F(0))
    assert near(s.p_win[0], p_a) and near(s.p_win[1], 1 - p_a) and s.p_draw == 0
    for i, name in enumerate("AB"):
        want: dict[str, Fraction] = {}
        for t, p in ends.items():
            want[t[2 + i]] = want.get(t[2 + i], F(0)) + p
        got = dict(next(c for c in s.combatants if c.name == name).end_states)
        assert set(got) <= set(want)
        for k, v in want.items():
            assert near(got.get(k, 0.0), v), (name, k, got.get(k), float(v))
    decided = rounds_until_end(START, wound_chain(target), 3)
    for r in (1, 2, 3):
        assert near(s.rounds.get(r, 0.0), decided[r - 1]), r


# -- Advantage Points carried: harm only at 'killed' (4 points against a Defence Total of 1) ----------------


def race_chain(ruling: str, need=(4, 4)) -> Step:
    """States (A's points against B, B's against A); who first holds need[x] points spends them and wins.
    The ruling on the loser's points: keep, lose (gone), offset (the margin cancels them first)."""

    def step(s):
        out = [(TIE, s)]
        for (win, g), p in MARGINS.items():
            pts = list(s)
            theirs = pts[1 - win]
            if ruling == "lose":
                pts[1 - win] = 0
                gained = g
            elif ruling == "offset":
                cancel = min(theirs, g)
                pts[1 - win] = theirs - cancel
                gained = g - cancel
            else:
                gained = g
            pts[win] += gained
            if pts[win] >= need[win]:
                out.append((p, ("end", win)))
            else:
                out.append((p, tuple(pts)))
        return out

    return step


def test_a_non_lethal_duel_knocks_out():
    """Both hold back (book: +2 to the Defence Total, so 3 with a normal weapon) and harm only at 'killed'
    (12 points): each fight is a race to 12 points, ended by a knock-out ('merely knocked out')."""
    state = duel(house(), [{"intent": "non-lethal", "harm_at": "killed"}] * 2)
    f = exact_forecast(state)
    step = race_chain("keep", need=(12, 12))
    ends = solve((0, 0), step)
    assert ends[("end", 0)] == F(1, 2)
    assert f.p_win[0] == pytest.approx(0.5, abs=1e-12)
    for c in f.combatants:
        assert dict(c.end_states) == {
            "unhurt": pytest.approx(0.5, abs=1e-12),
            "knocked out": pytest.approx(0.5, abs=1e-12),
        }
    for r, p in enumerate(rounds_until_end((0, 0), step, 6), start=1):
        assert f.rounds.get(r, 0.0) == pytest.approx(float(p), abs=1e-12), r


@pytest.mark.parametrize("ruling", ["keep", "lose", "offset"])
def test_points_carried_to_a_killing_blow(ruling):
    h = house(advantage_on_loss=ruling)
    f = exact_forecast(duel(h, [{"harm_at": "killed"}, {"harm_at": "killed"}]))
    ends = solve((0, 0), race_chain(ruling))
    assert ends[("end", 0)] == ends[("end", 1)] == F(1, 2)  # the same fighter twice: a check of the chain
    assert f.p_win[0] == pytest.approx(0.5, abs=1e-12)
    for c in f.combatants:
        assert dict(c.end_states) == {"unhurt": pytest.approx(0.5, abs=1e-12), "dead": pytest.approx(0.5, abs=1e-12)}
    for r, p in enumerate(rounds_until_end((0, 0), race_chain(ruling), 8), start=1):
        assert f.rounds.get(r, 0.0) == pytest.approx(float(p), abs=1e-12), (ruling, r)


@pytest.mark.parametrize("ruling", ["keep", "lose", "offset"])
def test_a_mid_fight_state_with_points_held(ruling):
    """From a state two rounds in, A holding 3 points against B and B 1 against A (B waits for 'killed', A
    for 'killed' too): the chain from (3, 1)."""
    h = house(advantage_on_loss=ruling)
    state = duel(h, [{"harm_at": "killed"}, {"harm_at": "killed"}])
    from storymaster.systems.fuzzy.combat import Pool

    a, b = (f.key for f in state.fighters)
    state = state.model_copy(
        update={"round": 2, "pools": (Pool(holder=a, against=b, points=3), Pool(holder=b, against=a, points=1))}
    )
    f = exact_forecast(state)
    ends = solve((3, 1), race_chain(ruling))
    assert f.p_win[0] == pytest.approx(float(ends[("end", 0)]), abs=1e-12)
    assert f.p_win[1] == pytest.approx(float(ends[("end", 1)]), abs=1e-12)
    assert f.notes == ("rounds are counted from round 2, where this forecast starts",)
    for r, p in enumerate(rounds_until_end((3, 1), race_chain(ruling), 5), start=1):
        assert f.rounds.get(r, 0.0) == pytest.approx(float(p), abs=1e-12)


def test_a_fighter_who_cannot_hurt_races_for_the_door():
    """B's weapon is harmless: he buys his way out (a manoeuvre of 3 that ends the fight) while A needs 4 for a
    killing blow. B holds his points until he can pay (book: points carry over to the next round)."""
    for ruling in ("keep", "lose"):
        h = house(advantage_on_loss=ruling)
        state = duel(
            h,
            [{"harm_at": "killed"}, {"manoeuvres": [{"name": "out of the door", "cost": 3, "ends_fight": True}]}],
            b=one_die("B", weapon_lethality="harmless"),
        )
        f = exact_forecast(state)
        ends = solve((0, 0), race_chain(ruling, need=(4, 3)))
        assert f.p_win[0] == pytest.approx(1.0, abs=1e-12)  # B is gone, A alone is up: side A "wins"
        b_end = dict(next(c for c in f.combatants if c.name == "B").end_states)
        assert b_end == {
            "dead": pytest.approx(float(ends[("end", 0)]), abs=1e-12),
            "escaped": pytest.approx(float(ends[("end", 1)]), abs=1e-12),
        }
        assert dict(next(c for c in f.combatants if c.name == "A").end_states) == {"unhurt": pytest.approx(1.0)}


def test_a_fighter_who_cannot_hurt_keeps_no_points_he_cannot_use():
    """B cannot hurt and has nothing to buy: A wins every fight; under 'lose' A's points are wiped whenever B
    wins a round, so A needs 4 points in a row of wins: the chain (A's points) alone."""
    h = house(advantage_on_loss="lose")
    state = duel(h, [{"harm_at": "killed"}, {}], b=one_die("B", weapon_lethality="harmless"))
    f = exact_forecast(state)
    assert f.p_win == (pytest.approx(1.0, abs=1e-12), 0.0) and f.error < 1e-12
    for r, p in enumerate(rounds_until_end((0, 0), race_chain("lose", need=(4, 10**9)), 6), start=1):
        assert f.rounds.get(r, 0.0) == pytest.approx(float(p), abs=1e-12)


# -- the round cap ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("cap", [11, 12, 16])
def test_the_round_cap_of_a_duel_decided_by_the_first_win(cap):
    """Tenacity target 7 with one die: every wound drops the fighter, so the first round won ends the fight;
    a fight still going after ``cap`` rounds has had ``cap`` ties: (1/6) ** cap.

    Above 1e-9 that stand-off is a draw with its ends (both unhurt); from 1e-12 to 1e-9 it is left out of
    the ends, counted a draw and noted; below 1e-12 it is the unresolved error."""
    f = exact_forecast(duel(house(tenacity_target=7, max_rounds=cap)))
    left = F(1, 6) ** cap
    assert f.p_win[0] == pytest.approx(float((1 - left) / 2), abs=1e-15)
    assert f.p_win[1] == pytest.approx(float((1 - left) / 2), abs=1e-15)
    for r in range(1, cap):
        assert f.rounds[r] == pytest.approx(float(F(1, 6) ** (r - 1) * F(5, 6)), rel=1e-12)
    if cap == 11:
        assert f.p_draw == pytest.approx(float(left), rel=1e-9) and f.error < 1e-12
        assert f.rounds[cap] == pytest.approx(float(left + F(1, 6) ** (cap - 1) * F(5, 6)), rel=1e-9)
        for c in f.combatants:
            assert c.end_states["unhurt"] == pytest.approx(float((1 - left) / 2 + left), rel=1e-12)
        assert f.notes == ()
    elif cap == 12:
        assert f.p_draw == pytest.approx(float(left), rel=1e-9)
        assert f.error == pytest.approx(float(left), rel=1e-9)
        assert f.rounds[cap] == pytest.approx(float(left + F(1, 6) ** (cap - 1) * F(5, 6)), rel=1e-9)
        for c in f.combatants:  # the stand-off's ends are left out
            assert sum(c.end_states.values()) == pytest.approx(1 - float(left), abs=1e-15)
            assert c.end_states["unhurt"] == pytest.approx(float((1 - left) / 2), rel=1e-12)
        assert f.notes == ("a stand-off at the 12-round cap (4.6e-10) is left out of the ends",)
    else:
        assert f.p_draw == 0.0 and f.error == pytest.approx(float(left), rel=1e-6) and f.notes == ()
        assert f.rounds[cap] == pytest.approx(float(F(1, 6) ** (cap - 1) * F(5, 6)), rel=1e-9)


def test_a_fight_at_its_cap_still_plays_one_round():
    """``max_rounds - round`` is 0 (or less): the forecast still plays the one round the engine would."""
    base = duel(house(tenacity_target=7, max_rounds=5))
    for rnd in (4, 5, 9):
        f = exact_forecast(base.model_copy(update={"round": rnd}))
        assert f.p_win[0] == pytest.approx(5 / 12, abs=1e-12) and f.p_draw == pytest.approx(1 / 6, abs=1e-12)
        assert dict(f.rounds) == {1: pytest.approx(1.0)}


# -- refusals and the choice of method ------------------------------------------------------------------


def test_offset_refused_whichever_side_cannot_hurt():
    h = house(advantage_on_loss="offset")
    for harmless in ("A", "B"):
        a = one_die("A", weapon_lethality="harmless" if harmless == "A" else "normal")
        b = one_die("B", weapon_lethality="harmless" if harmless == "B" else "normal")
        state = duel(h, a=a, b=b)
        with pytest.raises(OddsError, match="piles up Advantage Points without limit"):
            exact_forecast(state)
        assert SYSTEM.forecast(state, samples=300).method == "simulated"
    # all-out defence cannot hurt either (book: "may not spend Advantage points to hurt")
    with pytest.raises(OddsError, match="without limit"):
        exact_forecast(duel(h, [{}, {"stance": "all-out defence"}]))


def test_the_nonlethal_body_test_refused_whichever_side_holds_back():
    h = house(nonlethal_body_test=5)
    for tactics in ([{"intent": "non-lethal"}, {}], [{}, {"intent": "non-lethal"}]):
        with pytest.raises(OddsError, match="Body test"):
            exact_forecast(duel(h, tactics))
    # both lethal: the Body test never comes up, the duel is exact
    assert exact_forecast(duel(h)).method == "exact"
    # non-lethal without the Body-test ruling is exact too
    assert exact_forecast(duel(house(), [{"intent": "non-lethal"}, {}])).method == "exact"


def test_several_a_side_refused_with_the_hint():
    state = ENGINE.start([[one_die("A"), one_die("C")], [one_die("B")]], house_rules=house())
    with pytest.raises(OddsError, match="exactly one fighter still up on each side") as e:
        exact_forecast(state)
    assert "--method simulate" in (e.value.hint or "")


def test_the_method_chosen():
    d = duel(house(tenacity_target=7))
    assert SYSTEM.forecast(d).method == "exact"
    assert SYSTEM.forecast(d, method="exact").method == "exact"
    s = SYSTEM.forecast(d, method="simulate", samples=600, seed=4)
    assert s.method == "simulated" and s.samples == 600 and s.seed == 4
    assert SYSTEM.forecast(d, method="auto").p_win == exact_forecast(d).p_win
    team = ENGINE.start([[one_die("A"), one_die("C")], [one_die("B")]], house_rules=house())
    t = SYSTEM.forecast(team, samples=700, seed=2)
    assert t.method == "simulated" and t.samples == 700 and t.seed == 2
    with pytest.raises(OddsError, match="exact"):
        SYSTEM.forecast(team, method="exact")
    with pytest.raises(OddsError, match="auto, exact or simulate, not 'sim'"):
        SYSTEM.forecast(d, method="sim")
    with pytest.raises(OddsError, match="needs a fuzzy fight state, not dict"):
        SYSTEM.forecast({"fighters": []})


# -- the words: end labels, tactics, a fight already over -------------------------------------------------


def _labels_by_hand() -> dict[tuple[str, int, bool, bool], str]:
    """(status, worst wound, dying, knocked out) -> the forecast's words, written out here."""
    out = {}
    for status in ("fighting", "incapacitated", "unconscious", "dead", "escaped"):
        for worst in range(4):
            for dying in (False, True):
                for ko in (False, True):
                    if status == "dead":
                        text = "dead"
                    elif status == "fighting":
                        text = UP[worst]
                    elif status == "unconscious" and ko:
                        text = "knocked out"
                    else:
                        text = status
                    if dying and status != "dead":
                        text += ", dying"
                    out[(status, worst, dying, ko)] = text
    return out


def test_every_end_label():
    from storymaster.systems.fuzzy.forecast import _CODE, STATE_NAMES, end_label, end_states
    from storymaster.systems.fuzzy.vectorised import STATUSES, with_worst

    by_hand = _labels_by_hand()
    assert set(STATE_NAMES) == set(by_hand.values()) and len(STATE_NAMES) == 17
    base = duel(house())
    f0 = base.fighters[0]
    for (status, worst, dying, ko), text in by_hand.items():
        f = with_worst(f0, worst).model_copy(update={"status": status, "dying": dying, "knocked_out": ko})
        assert end_label(f) == text
        assert STATE_NAMES[_CODE[STATUSES.index(status), worst, int(dying), int(ko)]] == text
    # the worst wound counts, not the last or the first
    from storymaster.systems.fuzzy.combat import Wound

    wounds = tuple(Wound(level=lv, by="B", round=r) for r, lv in enumerate(("moderate", "mortal", "serious"), 1))
    assert end_label(f0.model_copy(update={"wounds": wounds})) == "mortal wound"
    state = base.model_copy(update={"fighters": (f0.model_copy(update={"status": "escaped"}), base.fighters[1])})
    assert end_states(state) == {f0.key: "escaped", base.fighters[1].key: "unhurt"}


def test_tactics_in_words():
    from storymaster.systems.fuzzy.combat import CombatTactics
    from storymaster.systems.fuzzy.forecast import describe_tactics

    assert describe_tactics(CombatTactics()) == "normal stance, harm at moderate, lethal"
    t = CombatTactics(
        stance="all-out defence",
        harm_at="mortal",
        intent="non-lethal",
        appropriateness=2,
        crowd="huge crowd",
        manoeuvres=[{"name": "feint", "cost": 2}, {"name": "leg it", "cost": 3, "ends_fight": True}],
    )
    assert describe_tactics(t) == (
        "all-out defence stance, harm at mortal, non-lethal, +2 more appropriate, counts opponents as huge crowd, "
        "manoeuvres feint (2), leg it (3)"
    )
    assert describe_tactics(CombatTactics(stance="offensive", crowd="one")) == (
        "offensive stance, harm at moderate, lethal, counts opponents as one"
    )


def test_a_sides_tactics_once_when_all_alike_else_per_fighter():
    state = ENGINE.start(
        [[one_die("A"), one_die("C")], [one_die("B")]],
        house_rules=house(),
        options={"tactics": [{}, {}], "tactics_by_name": {"C": {"stance": "defensive"}}},
    )
    f = simulate_forecast(state, samples=200, seed=1)
    keys = [x.key for x in state.fighters]
    assert f.tactics == {
        "A": f"{keys[0]}: normal stance, harm at moderate, lethal; "
        f"{keys[1]}: defensive stance, harm at moderate, lethal",
        "B": "normal stance, harm at moderate, lethal",
    }
    assert f.sides == ((keys[0], keys[1]), (keys[2],))
    d = exact_forecast(duel(house(), [{"stance": "offensive"}, {}]))
    assert d.tactics == {
        "A": "offensive stance, harm at moderate, lethal",
        "B": "normal stance, harm at moderate, lethal",
    }


@pytest.mark.parametrize("winner", [0, 1, None])
def test_a_fight_already_over(winner):
    base = duel(house())
    a, b = base.fighters
    down = {"status": "dead"}
    fighters = (
        a.model_copy(update=down if winner == 1 else {}),
        b.model_copy(update=down if winner == 0 else {}),
    )
    state = base.model_copy(
        update={"fighters": fighters, "over": True, "winner": winner, "round": 3, "reason": "it is over"}
    )
    for f in (exact_forecast(state), simulate_forecast(state, samples=100), SYSTEM.forecast(state)):
        assert f.method == "exact" and f.error == 0.0
        assert f.p_win == tuple(1.0 if winner == s else 0.0 for s in (0, 1))
        assert f.p_draw == (1.0 if winner is None else 0.0)
        assert dict(f.rounds) == {0: 1.0}
        assert f.notes == ("the fight is already over: it is over",)
        assert f.sides == ((a.key,), (b.key,))
        ends = {c.name: dict(c.end_states) for c in f.combatants}
        assert ends == {
            "A": {"dead" if winner == 1 else "unhurt": 1.0},
            "B": {"dead" if winner == 0 else "unhurt": 1.0},
        }
        assert [c.side for c in f.combatants] == [0, 1]
        assert f.draw_meaning == "draw (all down at once, or a stand-off at the round cap)"


# -- the simulation against the same chains, within its sampling error --------------------------------------


def near(got: float, p: Fraction | float, n: int) -> bool:
    """Within 4 standard errors of a sample of n fights (p exact): |got - p| <= 4 sqrt(p (1 - p) / n)."""
    p = float(p)
    return abs(got - p) <= 4 * (p * (1 - p) / n) ** 0.5 + 1e-12


def sim_check(s, ends: dict[Hashable, Fraction], n: int, names=("A", "B")) -> None:
    p_a = sum((p for t, p in ends.items() if t[1] == 0), F(0))
    p_b = sum((p for t, p in ends.items() if t[1] == 1), F(0))
    assert near(s.p_win[0], p_a, n) and near(s.p_win[1], p_b, n), (s.p_win, float(p_a), float(p_b))
    for i, name in enumerate(names):
        want: dict[str, Fraction] = {}
        for t, p in ends.items():
            if len(t) > 2 + i:
                want[t[2 + i]] = want.get(t[2 + i], F(0)) + p
        if not want:
            continue
        got = dict(next(c for c in s.combatants if c.name == name).end_states)
        assert set(got) <= {k for k, v in want.items() if v > 0}, (name, got)
        for k, v in want.items():
            assert near(got.get(k, 0.0), v, n), (name, k, got.get(k), float(v))


@pytest.mark.parametrize("target,deaths,leaves_dying", [(2, True, True), (3, False, False)])
def test_simulated_wounds_every_round_won(target, deaths, leaves_dying):
    h = house(tenacity_target=target, mortal_wound_deaths=deaths, killing_blow_leaves_dying=leaves_dying)
    step = wound_chain(target, deaths, leaves_dying)
    n = 20_000
    s = simulate_forecast(duel(h), samples=n, seed=2)
    sim_check(s, solve(START, step), n)
    for r, p in enumerate(rounds_until_end(START, step, 3), start=1):
        assert near(s.rounds.get(r, 0.0), p, n), r


@pytest.mark.parametrize("ruling", ["keep", "lose", "offset"])
def test_simulated_points_carried_from_a_mid_fight_state(ruling):
    state = duel(house(advantage_on_loss=ruling, max_rounds=40), [{"harm_at": "killed"}, {"harm_at": "killed"}])
    from storymaster.systems.fuzzy.combat import Pool

    a, b = (f.key for f in state.fighters)
    state = state.model_copy(
        update={"round": 2, "pools": (Pool(holder=a, against=b, points=3), Pool(holder=b, against=a, points=1))}
    )
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=3)
    step = race_chain(ruling)
    ends = solve((3, 1), step)
    assert near(s.p_win[0], ends[("end", 0)], n) and near(s.p_win[1], ends[("end", 1)], n)
    for r, p in enumerate(rounds_until_end((3, 1), step, 4), start=1):
        assert near(s.rounds.get(r, 0.0), p, n), (ruling, r)
    assert s.notes[0] == "rounds are counted from round 2, where this forecast starts"


def test_simulated_race_for_the_door():
    h = house(advantage_on_loss="keep")
    state = duel(
        h,
        [{"harm_at": "killed"}, {"manoeuvres": [{"name": "out of the door", "cost": 3, "ends_fight": True}]}],
        b=one_die("B", weapon_lethality="harmless"),
    )
    ends = solve((0, 0), race_chain("keep", need=(4, 3)))
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=4)
    assert s.p_win[0] == 1.0 and s.p_draw == 0.0
    b_end = dict(next(c for c in s.combatants if c.name == "B").end_states)
    assert set(b_end) == {"dead", "escaped"}
    assert near(b_end["escaped"], ends[("end", 1)], n) and near(b_end["dead"], ends[("end", 0)], n)


def test_simulated_round_cap():
    """The first round won ends the fight (Tenacity 7 on one die); a cap of 3 rounds, from round 1: 2 rounds
    left, so a stand-off (1/6)^2 and the rest decided in round 1 (5/6) or 2 (5/36)."""
    state = duel(house(tenacity_target=7, max_rounds=3)).model_copy(update={"round": 1})
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=5)
    assert near(s.p_draw, F(1, 36), n)
    assert near(s.p_win[0], F(35, 72), n) and near(s.p_win[1], F(35, 72), n)
    assert set(s.rounds) == {1, 2} and near(s.rounds[1], F(5, 6), n)
    assert near(s.rounds[2], F(1, 6), n)  # decided in round 2 (5/36) or stopped there (1/36)
    for c in s.combatants:
        assert near(c.end_states["unhurt"], F(35, 72) + F(1, 36), n)


@pytest.mark.parametrize("mirror", [False, True])
def test_simulated_two_against_one(mirror):
    """A and C (side A) against B, one die each (B's 'multiple' opponents cost a die, but never below one),
    Tenacity 7: every exchange won drops the loser. Each round A's exchange with B, then C's; the winners
    spend in that order, and a fighter already down is not hurt again.

    By hand, per round (A's exchange, C's): B wins both (15/36)^2: side B wins; B wins one and the other is a
    tie: a 1-v-1 duel left (1/2 each); both ties (1/36): again; else side A wins. So side B wins with
    ((15/36)^2 + 2 (15/36)(6/36)/2) / (35/36) = 1/4. A is down when B wins A's exchange (15/36), or after
    (tie, B wins C's) in the duel left (1/2): 13/28; C when B wins both, after (B, tie) half the time, or after
    (tie, B): 2/7. The fight ends in round 1 unless both tie or one ties and B wins the other: 1 - 1/6.
    A loser's wound is min(margin, 4) given a win: incapacitated 9/15, unconscious and dying 3/15, dead 3/15.
    Mirrored (B on side A, the pair on side B), the same by symmetry: the larger side's fighters in order.
    """
    pair, lone = [one_die("A"), one_die("C")], [one_die("B")]
    state = ENGINE.start([lone, pair] if mirror else [pair, lone], house_rules=house(tenacity_target=7))
    n = 30_000
    s = simulate_forecast(state, samples=n, seed=6)
    b_side = 0 if mirror else 1
    assert near(s.p_win[b_side], F(1, 4), n) and near(s.p_win[1 - b_side], F(3, 4), n) and s.p_draw == 0.0
    assert near(s.rounds[1], F(5, 6), n)
    split = {"incapacitated": F(9, 15), "unconscious, dying": F(3, 15), "dead": F(3, 15)}
    for name, down in (("A", F(13, 28)), ("C", F(2, 7)), ("B", F(3, 4))):
        got = dict(next(c for c in s.combatants if c.name == name).end_states)
        assert set(got) <= {"unhurt", *split}
        assert near(got.get("unhurt", 0.0), 1 - down, n), (name, got)
        for k, v in split.items():
            assert near(got.get(k, 0.0), down * v, n), (name, k, got)


def test_simulated_nonlethal_body_test():
    """A holds back (non-lethal: B's Defence Total 1 + 2, less 2 for B's all-out attack = 1) under the Body
    test of 4 (one die passes 1/2); B attacks all-out (A's Defence Total 1). Tenacity 7: a blow that lands drops
    the loser. Per decided round: B wins (15/36) and A drops; A wins (15/36) and half the time the blow lands
    (a fumbled one does no harm; the points are spent). Side A wins 1/3. B, non-lethally hurt: incapacitated
    (margin 1-2), unconscious (3, not dying: non-lethal), knocked out (4+)."""
    state = duel(
        house(tenacity_target=7, nonlethal_body_test=4),
        [{"intent": "non-lethal"}, {"stance": "all-out attack"}],
    )
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=7)
    assert near(s.p_win[0], F(1, 3), n) and near(s.p_win[1], F(2, 3), n)
    b = dict(next(c for c in s.combatants if c.name == "B").end_states)
    a = dict(next(c for c in s.combatants if c.name == "A").end_states)
    for k, v in {"incapacitated": F(9, 15), "unconscious": F(3, 15), "knocked out": F(3, 15)}.items():
        assert near(b.get(k, 0.0), F(1, 3) * v, n), (k, b)
    for k, v in {"incapacitated": F(9, 15), "unconscious, dying": F(3, 15), "dead": F(3, 15)}.items():
        assert near(a.get(k, 0.0), F(2, 3) * v, n), (k, a)
    assert near(a["unhurt"], F(1, 3), n) and near(b["unhurt"], F(2, 3), n)


def manoeuvre_chain(bonus: int) -> Step:
    """A waits for 'killed' (4 points) and meanwhile buys 'high ground' (2 points, ``bonus`` to his later rolls);
    B waits for 'killed'. States (A's points, B's points, bought); the margins of d6 + bonus against d6."""

    def margins(b: int) -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        for x in range(1, 7):
            for y in range(1, 7):
                out[x + b - y] = out.get(x + b - y, F(0)) + F(1, 36)
        return out

    def step(s):
        pa, pb, bought = s
        out = []
        for m, p in margins(bonus if bought else 0).items():
            if m == 0:
                out.append((p, s))
            elif m > 0:
                na = pa + m
                if na >= 4:
                    out.append((p, ("end", 0)))
                elif not bought and na >= 2:
                    out.append((p, (na - 2, pb, True)))
                else:
                    out.append((p, (na, pb, bought)))
            else:
                nb = pb - m
                out.append((p, ("end", 1)) if nb >= 4 else (p, (pa, nb, bought)))
        return out

    return step


@pytest.mark.parametrize("bonus", [1, -1])
def test_a_manoeuvre_bought_changes_later_rolls(bonus):
    state = duel(
        house(),
        [
            {"harm_at": "killed", "manoeuvres": [{"name": "high ground", "cost": 2, "roll_bonus": bonus}]},
            {"harm_at": "killed"},
        ],
    )
    step = manoeuvre_chain(bonus)
    ends = solve((0, 0, False), step)
    f = exact_forecast(state)
    assert f.p_win[0] == pytest.approx(float(ends[("end", 0)]), abs=1e-12)
    for r, p in enumerate(rounds_until_end((0, 0, False), step, 5), start=1):
        assert f.rounds.get(r, 0.0) == pytest.approx(float(p), abs=1e-12)
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=8)
    assert near(s.p_win[0], ends[("end", 0)], n), (s.p_win, float(ends[("end", 0)]))
    for r, p in enumerate(rounds_until_end((0, 0, False), step, 4), start=1):
        assert near(s.rounds.get(r, 0.0), p, n), r


# -- from a state mid-fight: wounds, a manoeuvre bought, a fighter already down -------------------------------


def test_from_a_mortally_wounded_fighter():
    """A starts mortally wounded and dying (one die stays one die; his Defence Total 1 - 3 is floored at 1): the
    wound chain from ((mortal, dying), (none, not dying)); his labels keep 'mortal wound, dying'."""
    from storymaster.systems.fuzzy.combat import Wound

    target = 4
    state = duel(house(tenacity_target=target))
    a, b = state.fighters
    a = a.model_copy(update={"wounds": (Wound(level="mortal", by=b.key, round=1),), "dying": True})
    state = state.model_copy(update={"fighters": (a, b), "round": 1})
    step = wound_chain(target)
    begin = ((3, True), (0, False))
    ends = solve(begin, step)
    check(exact_forecast(state), ends)
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=9)
    sim_check(s, ends, n)
    for r, p in enumerate(rounds_until_end(begin, step, 3), start=1):
        assert near(s.rounds.get(r, 0.0), p, n), r


@pytest.mark.parametrize("bonus", [1, -1])
def test_from_a_manoeuvre_already_bought(bonus):
    """A bought 'high ground' before (his roll bonus on him): the manoeuvre chain from (0, 0, bought)."""
    state = duel(
        house(),
        [
            {"harm_at": "killed", "manoeuvres": [{"name": "high ground", "cost": 2, "roll_bonus": bonus}]},
            {"harm_at": "killed"},
        ],
    )
    a, b = state.fighters
    a = a.model_copy(update={"bought": ("high ground",), "roll_bonus": bonus})
    state = state.model_copy(update={"fighters": (a, b), "round": 3})
    step = manoeuvre_chain(bonus)
    ends = solve((0, 0, True), step)
    assert ends[("end", 0)] != F(1, 2)
    f = exact_forecast(state)
    assert f.p_win[0] == pytest.approx(float(ends[("end", 0)]), abs=1e-12)
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=10)
    assert near(s.p_win[0], ends[("end", 0)], n), (s.p_win, float(ends[("end", 0)]))
    for r, p in enumerate(rounds_until_end((0, 0, True), step, 3), start=1):
        assert near(s.rounds.get(r, 0.0), p, n), r


def test_an_all_out_attack_that_only_scratches():
    """A attacks all-out (book: "must spend all their Advantage points"), B wears armour: B's Defence Total 2,
    A's 1 (1 - 2 for his all-out attack, floored at 1). Tenacity 7 drops anyone hurt. A round A wins by 1 is
    spent on a superficial blow (nothing happens); by 2-3 a moderate wound, 4-5 serious: B incapacitated. B
    spends at once (1x his total of 1 per point): A drops as in the wound chain. Per decided round A drops B
    with 10/36, B drops A with 15/36: side A wins 2/5."""
    state = duel(house(tenacity_target=7), [{"stance": "all-out attack"}, {}], b=one_die("B", armour="armour"))
    f = exact_forecast(state)
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=12)
    want_a = {"unhurt": F(2, 5), "incapacitated": F(9, 15) * F(3, 5)}
    want_a |= {"unconscious, dying": F(3, 15) * F(3, 5), "dead": F(3, 15) * F(3, 5)}
    want_b = {"unhurt": F(3, 5), "incapacitated": F(2, 5)}
    assert f.p_win[0] == pytest.approx(0.4, abs=1e-12) and near(s.p_win[0], F(2, 5), n)
    for name, want in (("A", want_a), ("B", want_b)):
        ex = dict(next(c for c in f.combatants if c.name == name).end_states)
        sim = dict(next(c for c in s.combatants if c.name == name).end_states)
        assert set(ex) == set(want) and set(sim) <= set(want)
        for k, v in want.items():
            assert ex[k] == pytest.approx(float(v), abs=1e-12) and near(sim.get(k, 0.0), v, n), (name, k)
    # a round decides with 25/36 each time
    assert f.rounds[1] == pytest.approx(25 / 36, abs=1e-12) and near(s.rounds[1], F(25, 36), n)


def test_a_fighter_already_down_keeps_his_end_minus_the_stand_off_left_out():
    """A team fight down to one a side, capped so that the stand-off (1/6)^12 is left out of the ends: the fallen
    fighters' certain ends carry the same mass as the duel's (1 - (1/6)^12)."""
    state = ENGINE.start(
        [[one_die("A"), one_die("C")], [one_die("B"), one_die("D")]],
        house_rules=house(tenacity_target=7, max_rounds=12),
    )
    down = {"C": {"status": "incapacitated"}, "D": {"status": "dead"}}
    state = state.model_copy(
        update={"fighters": tuple(f.model_copy(update=down.get(f.name, {})) for f in state.fighters)}
    )
    f = exact_forecast(state)
    left = float(F(1, 6) ** 12)
    ends = {c.name: dict(c.end_states) for c in f.combatants}
    assert ends["C"] == {"incapacitated": pytest.approx(1 - left, abs=1e-15)}
    assert ends["D"] == {"dead": pytest.approx(1 - left, abs=1e-15)}
    assert f.error == pytest.approx(left, rel=1e-9) and f.p_draw == pytest.approx(left, rel=1e-9)


def test_no_chance_above_one():
    """Sums of many small chances: every figure is a probability."""
    for state in (
        duel(house(advantage_on_loss="lose"), [{"harm_at": "killed"}, {}], b=one_die("B", weapon_lethality="harmless")),
        duel(house(tenacity_target=1)),
        duel(house(advantage_on_loss="lose", max_rounds=400), [{"intent": "non-lethal", "harm_at": "killed"}, {}]),
    ):
        f = exact_forecast(state)
        assert all(0.0 <= p <= 1.0 for p in (*f.p_win, f.p_draw, *f.rounds.values()))
        assert all(0.0 <= p <= 1.0 for c in f.combatants for p in c.end_states.values())


def test_the_options_are_keyword_only():
    """The forecasts take the state first and every option by name (a positional option is refused, so a call
    cannot pass a sample count where a tolerance or a method was meant); the state may be named too."""
    d = duel(house(tenacity_target=7))
    with pytest.raises(TypeError, match="positional"):
        exact_forecast(d, 1e-9)  # type: ignore[misc]
    with pytest.raises(TypeError, match="positional"):
        simulate_forecast(d, 100)  # type: ignore[misc]
    from storymaster.systems.fuzzy.forecast import forecast

    with pytest.raises(TypeError, match="positional"):
        forecast(d, "exact")  # type: ignore[misc]
    assert exact_forecast(state=d).method == "exact"
    assert simulate_forecast(state=d, samples=50).samples == 50
    assert forecast(state=d, method="simulate", samples=60).samples == 60


def test_the_documented_simulation_defaults():
    """docs/systems/fuzzy.md: "--samples fights (100,000 by default) at once in numpy, with --seed (0)"."""
    from storymaster.systems.fuzzy.forecast import forecast

    d = duel(house(tenacity_target=7))
    for f in (forecast(d, method="simulate"), simulate_forecast(d)):
        assert f.samples == 100_000 and f.seed == 0
    team = ENGINE.start([[one_die("A"), one_die("C")], [one_die("B")]], house_rules=house(tenacity_target=7))
    f = forecast(team)
    assert f.method == "simulated" and f.samples == 100_000 and f.seed == 0


# -- edges the mutation run of forecast.py found untested (issue 14) -----------------------------------------


@pytest.mark.parametrize("rnd", [5, 9])
def test_a_simulation_at_its_cap_still_plays_one_round(rnd):
    """As the exact chain above: from round 5 (or past it) of a 5-round cap the simulation plays the one round the
    engine would, and every fight ends in it: won by either side 5/12 (the first win drops the loser, Tenacity 7
    on one die), a stand-off 1/6 (a tied d6 against d6), a draw at the cap."""
    state = duel(house(tenacity_target=7, max_rounds=5)).model_copy(update={"round": rnd})
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=11)
    assert dict(s.rounds) == {1: 1.0}
    assert near(s.p_win[0], F(5, 12), n) and near(s.p_win[1], F(5, 12), n) and near(s.p_draw, F(1, 6), n)


def test_a_manoeuvre_never_affordable_changes_nothing():
    """A holds 'high ground' (2 points, +1 to his later rolls) and a 'grand plan' costing 99 he never affords; B
    has no manoeuvre at all. The fight is the manoeuvre chain of +1 above, exactly and by simulation."""
    mans = [{"name": "high ground", "cost": 2, "roll_bonus": 1}, {"name": "grand plan", "cost": 99, "roll_bonus": 3}]
    state = duel(house(), [{"harm_at": "killed", "manoeuvres": mans}, {"harm_at": "killed"}])
    ends = solve((0, 0, False), manoeuvre_chain(1))
    assert exact_forecast(state).p_win[0] == pytest.approx(float(ends[("end", 0)]), abs=1e-12)
    n = 20_000
    s = simulate_forecast(state, samples=n, seed=12)
    assert near(s.p_win[0], ends[("end", 0)], n) and near(s.p_win[1], ends[("end", 1)], n)


@pytest.mark.parametrize("down", [0, 1])
def test_a_side_with_nobody_up_is_no_duel(down):
    """A hand-made state: one side's only fighter is unconscious yet the fight is not marked over. The exact
    forecast covers "exactly one fighter still up on each side" (its docstring): refused, whichever side."""
    state = duel(house(tenacity_target=7))
    fs = list(state.fighters)
    fs[down] = fs[down].model_copy(update={"status": "unconscious"})
    with pytest.raises(OddsError, match="exactly one fighter still up on each side"):
        exact_forecast(state.model_copy(update={"fighters": tuple(fs)}))


def test_the_simulation_divides_by_nothing():
    """numpy's floating-point and integer warnings raised as errors: a duel and a two-against-one fight simulate
    without any (who is still up is worked out every round for every fight)."""
    import numpy as np

    with np.errstate(all="raise"):
        assert simulate_forecast(duel(house()), samples=500, seed=1).samples == 500
        team = ENGINE.start([[one_die("A"), one_die("C")], [one_die("B")]], house_rules=house())
        assert simulate_forecast(team, samples=500, seed=1).samples == 500
