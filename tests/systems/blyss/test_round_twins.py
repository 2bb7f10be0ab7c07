"""The simulation's array twins of the round's named rules (issue 14), each against its scalar rule on every
input of a small domain."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from storymaster.errors import OddsError
from storymaster.systems.blyss.character import Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.checks import InitiativeRoll, contest_winner, initiative_order
from storymaster.systems.blyss.combat import MELEE_REACH_FT, BlyssCombat
from storymaster.systems.blyss.dicepool import Judgement, counts_of, die_succeeds_v, judge, judge_kind_v, successes_v
from storymaster.systems.blyss.living import (
    DYING_RESULTS,
    blow_flags,
    blow_flags_v,
    dying_result,
    dying_result_v,
    spill_damage,
    spill_damage_v,
)
from storymaster.systems.blyss.round import (
    Roster,
    _declare,
    _pick_target,
    aim_td,
    armour_lives_after,
    armour_takes_blow,
    attack_td,
    covering_piece,
    defence_of,
    exact_damage,
    screw_up_weapon,
    to_state,
)
from storymaster.systems.blyss.vectorised import (
    ACTIONS,
    CALLED_SHOTS,
    END_STATES,
    DamageSampler,
    armour_lives_after_v,
    armour_takes_blow_v,
    contest_winner_v,
    covering_piece_v,
    declare_v,
    defence_of_v,
    end_code,
    end_codes_v,
    initiative_order_v,
    pick_target_v,
    screw_up_weapon_v,
    td_tables,
    vitals_left_v,
)


def test_spill_damage_twin_on_every_small_input() -> None:
    rows = list(itertools.product(range(-1, 5), range(-1, 5), range(12), (True, False)))
    for spill in (True, False):
        sel = [r for r in rows if r[3] is spill]
        d, f, dmg = (np.array(x) for x in list(zip(*sel, strict=True))[:3])
        got = np.stack(spill_damage_v(d, f, dmg, spill), axis=1)
        for (dd, ff, gg, _), row in zip(sel, got, strict=True):
            assert tuple(row) == spill_damage(dd, ff, 18, gg, spill), (dd, ff, gg, spill)


def test_blow_flags_twin_on_every_small_input() -> None:
    rows = list(
        itertools.product(range(-3, 3), range(3), *([(False, True)] * 4), range(3))
    )  # health, took, unconscious, dying, stabilised, dead, dying checks
    cols = [np.array(x) for x in zip(*rows, strict=True)]
    got = blow_flags_v(*cols)
    for i, row in enumerate(rows):
        assert tuple(g[i] for g in got) == blow_flags(*row), row


# ---------------------------------------------------------------- the round's rules (fc-blyss)
class _CodeBuiltEngine(BlyssCombat):
    def start(self, sides, *, house_rules=None, options=None):  # type: ignore[override]
        return super().start(sides, house_rules=house_rules, options={"allow_illegal": True, **dict(options or {})})


ENG = _CodeBuiltEngine()
KINDS = ("failure", "success", "screw-up", "critical screw-up")  # judge_kind_v's codes, in order


def _col(values: list) -> np.ndarray:
    return np.array(values)


def test_successes_twin_on_every_roll_of_small_pools() -> None:
    """judge's successes (and kind) on every face of every pool of one or two d4/d6/d8 and of d4+d6+d8 and 3d8, at
    every TD and die modifier that matters."""
    pools = [d for n in (1, 2) for d in itertools.product((4, 6, 8), repeat=n)] + [(4, 6, 8), (8, 8, 8)]
    for dice in pools:
        faces = np.array(list(itertools.product(*(range(1, s + 1) for s in dice))))
        padded = np.concatenate([faces, np.zeros((len(faces), 1), dtype=np.int64)], axis=1)  # a 0: no die
        for td, dm in itertools.product(range(10), (-1, 0, 1)):
            got = successes_v(padded, td, dm)
            hits = die_succeeds_v(padded, td, dm).sum(axis=1)
            kind = judge_kind_v(np.full(len(faces), len(dice)), (faces == 1).sum(axis=1), hits)
            for row, g, k in zip(faces, got, kind, strict=True):
                j = judge(counts_of(tuple(row), dice, td, die_modifier=dm))
                assert g == j.successes, (dice, tuple(row), td, dm)
                assert KINDS[k] == ("success" if j.kind == "critical success" else j.kind)


def test_dying_result_twin_on_every_small_input() -> None:
    rows = list(itertools.product(range(-2, 4), (False, True), ("never", "blunt", "always"), (False, True)))
    for rule in ("never", "blunt", "always"):
        sel = [r for r in rows if r[2] == rule]
        got = dying_result_v(_col([r[0] for r in sel]), _col([r[1] for r in sel]), rule, _col([r[3] for r in sel]))
        for r, g in zip(sel, got, strict=True):
            assert DYING_RESULTS[g] == dying_result(*r), r


def test_end_code_twin_and_the_words_on_every_input() -> None:
    rows = list(itertools.product(*([(False, True)] * 6), range(6)))
    got = end_codes_v(*(_col(list(c)) for c in zip(*rows, strict=True)))
    for r, g in zip(rows, got, strict=True):
        assert g == end_code(*r), r
    # the words: down first (dead over coma over dying over unconscious), then unhurt, then the Wound Level
    assert END_STATES[end_code(True, True, True, True, True, True, 0)] == "dead"
    assert END_STATES[end_code(False, False, False, True, True, False, 5)] == "stabilised"
    assert END_STATES[end_code(False, False, False, False, False, False, 3)] == "Moderate Wounds"
    assert END_STATES[end_code(False, False, False, False, False, True, 0)] == "unhurt"


def test_contest_winner_twin_on_every_small_input() -> None:
    rows = list(itertools.product(range(5), range(5)))
    got = contest_winner_v(_col([a for a, _ in rows]), _col([b for _, b in rows]))
    for (a, b), g in zip(rows, got, strict=True):
        ja, jb = (Judgement("success" if x else "failure", x, 0, 0, 0) for x in (a, b))
        assert (None if g < 0 else g) == contest_winner(ja, jb), (a, b)


def test_screw_up_weapon_twin_on_every_input() -> None:
    rows = list(itertools.product(range(4), (None, 0, 2), (False, True), ("drop_weapon", "none")))
    for rule in ("drop_weapon", "none"):
        sel = [r for r in rows if r[3] == rule]
        in_hand = _col([w is not None and not d for _, w, d, _ in sel])
        drop, lose = screw_up_weapon_v(_col([r[0] for r in sel]), in_hand, rule)
        for (k, w, d, _), dr, lo in zip(sel, drop, lose, strict=True):
            weapon, dropped = screw_up_weapon(KINDS[k], w, d, rule)
            assert (weapon, dropped) == ((None, False) if lo else (w, True) if dr else (w, d)), (k, w, d, rule)


def test_armour_twins_on_every_small_input() -> None:
    covers = [c for n in range(4) for c in itertools.combinations("TAHF", n)]
    for pieces in itertools.product(covers, repeat=2):
        rows = list(itertools.product(range(4), range(4), "TAHF"))
        cov = np.array([[loc in c for c in pieces] for _, _, loc in rows])
        has, piece = covering_piece_v(cov, np.array([(a, b) for a, b, _ in rows]))
        for (a, b, loc), h, p in zip(rows, has, piece, strict=True):
            assert (p if h else None) == covering_piece(pieces, (a, b), loc), (pieces, a, b, loc)
    rows2 = list(itertools.product(range(3), range(-1, 8), range(5)))
    got = armour_takes_blow_v(*(_col(list(c)) for c in zip(*rows2, strict=True)))
    for (c, dmg, dodges), g in zip(rows2, got, strict=True):
        assert g == armour_takes_blow(("auto", "body", "armour")[c], dmg, dodges)
    for heavy in (None, 0, 4):
        rows3 = list(itertools.product(range(4), range(-1, 8)))
        got = armour_lives_after_v(_col([x for x, _ in rows3]), _col([d for _, d in rows3]), heavy)
        for (lives, dmg), g in zip(rows3, got, strict=True):
            assert g == armour_lives_after(lives, dmg, heavy), (lives, dmg, heavy)


def test_initiative_order_twin_on_every_small_input() -> None:
    """checks.initiative_order (the sort roll_initiative makes) against its twin, three fighters, every key."""
    keys = list(itertools.product(range(2), range(0, 9, 4), range(2)))
    rows = list(itertools.product(keys, repeat=3))
    cols = [np.array([[r[k][i] for k in range(3)] for r in rows]) for i in range(3)]
    for roll_off in (False, True):
        tb = np.array(
            [[(7 * n + 13 * k) % 5 * 1000 - k if roll_off else -k for k in range(3)] for n in range(len(rows))]
        )
        got = initiative_order_v(*cols, tb)
        for n, (r, g) in enumerate(zip(rows, got, strict=True)):
            rolls = [InitiativeRoll(str(k), *r[k], int(tb[n, k]), None) for k in range(3)]
            assert [int(x.name) for x in initiative_order(rolls)] == list(g), (r, roll_off)


def test_the_round_s_tds_are_the_book_s() -> None:
    """Attacking: TD 8; Aiming: called shots 12 / 14 / 16 unaimed, 10 / 12 / 14 aimed; an Aim Test at TD 8 or the
    aimed called shot's; Defending: a counterattack at TD -2. The simulation's tables are these."""
    att, aim = td_tables()
    assert [attack_td(c, False, False) for c in CALLED_SHOTS] == [8, 12, 14, 16] == list(att[:, 0, 0])
    assert [attack_td(c, True, False) for c in CALLED_SHOTS] == [8, 10, 12, 14] == list(att[:, 1, 0])
    assert [attack_td(c, True, True) for c in CALLED_SHOTS] == [6, 8, 10, 12] == list(att[:, 1, 1])
    assert [aim_td(c) for c in CALLED_SHOTS] == [8, 10, 12, 14] == list(aim)


class _AllFaces:
    """A stand-in generator whose ``integers`` hands out every combination of faces, once each (one draw only)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def integers(self, lo: int, hi: int, size: tuple[int, int]) -> np.ndarray:
        n, count = size
        combos = np.array(list(itertools.product(range(lo, hi), repeat=count)))
        assert len(combos) == n
        return combos


def test_damage_sampler_on_every_face_against_the_exact_damage() -> None:
    """DamageSampler (the armour contest against the damage roll: total and highest face) on every face of 3d4+2
    and -(2d6) * 2 + 1, counted, is round.exact_damage's distribution."""
    for expr, n in (("3d4+2", 64), ("-(2d6)*2+1", 36)):
        total, best = DamageSampler(expr, want_best=True).roll(n, _AllFaces())  # type: ignore[arg-type]
        got: dict[tuple[int, int], float] = {}
        for t, b in zip(total, best, strict=True):
            got[(int(t), int(b))] = got.get((int(t), int(b)), 0.0) + 1 / n
        want = {(t, b): p for t, b, p in exact_damage(expr)}
        assert got.keys() == want.keys() and all(abs(got[k] - want[k]) < 1e-12 for k in want), expr
    assert DamageSampler("7", want_best=True).roll(3, _AllFaces())[1].tolist() == [7, 7, 7]  # type: ignore[arg-type]
    with pytest.raises(OddsError, match="not simulated"):
        DamageSampler("d6!", want_best=True)


def _declare_states():
    """Every small situation a declaration can meet: fighter 0 against two foes, each foe up or down, with 0 or 1
    Dodges, declared nothing / an attack / a disarm on fighter 0, weapon in hand or dropped; fighter 0's weapon in
    hand, dropped or lost, counterattack pending or not, aim or not, in reach or 10 ft away."""
    foes = list(itertools.product((False, True), (0, 1), (None, ("attack", 0), ("disarm", 0)), (False, True)))
    for b, c in itertools.product(foes, repeat=2):
        for weapon, counter, aim, dist in itertools.product(
            ("hand", "dropped", "lost"), *([(False, True)] * 2), (0, 10)
        ):
            yield (weapon, counter, aim, dist), (b, c)


@pytest.mark.parametrize("tactic", ["attack", "defensive", "aim", "disarm"])
@pytest.mark.parametrize("ranged", [False, True])
def test_declare_and_pick_target_twins_on_every_small_state(tactic: str, ranged: bool) -> None:
    w = Weapon(name="Bow" if ranged else "Axe", damage="d6", ranged=ranged, skill="Armed Combat")
    sheet = Character(name="A", attributes=Attributes(), traits=(Trait(name="Armed Combat", rank=4),), weapons=(w,))
    foe = Character(name="B", attributes=Attributes(), traits=(Trait(name="Armed Combat", rank=4),), weapons=(w,))
    fs = ENG.start([[sheet], [foe, foe]], options={"tactic": [tactic, "attack"]})
    R = Roster(fs)
    base = to_state(fs)
    states, want = [], []
    for (weapon, counter, aim, dist), foes in _declare_states():
        me = base.fighters[0]._replace(
            weapon=None if weapon == "lost" else 0,
            weapon_dropped=weapon == "dropped",
            counter_ready=counter,
            aim_bonus=int(aim),
        )
        movers = [me]
        for k, (up, dodges, decl, dropped) in enumerate(foes, start=1):
            movers.append(
                base.fighters[k]._replace(unconscious=not up, dodges=dodges, declared=decl, weapon_dropped=dropped)
            )
        st = base._replace(fighters=tuple(movers), distance=dist)
        states.append(st)
        want.append(_declare(st, R, 0))
    n = len(states)
    me = np.zeros(n, dtype=np.int64)
    active = np.array([[m.active for m in st.fighters] for st in states])
    total = np.array([[m.total for m in st.fighters] for st in states])
    d, f, h = (
        np.array([[getattr(m, x) for m in st.fighters] for st in states]) for x in ("dodges", "flesh_wounds", "health")
    )
    assert (vitals_left_v(d, f, h) == total).all()
    enemy_of = np.array([[R.side[j] != R.side[k] for j in range(3)] for k in range(3)])
    target = pick_target_v(enemy_of[me] & active, total)
    assert [None if t < 0 else int(t) for t in target] == [_pick_target(st, R, 0) for st in states]
    code = {None: -1, **{a: i for i, a in enumerate(ACTIONS)}}
    in_hand = np.array([[m.weapon is not None and not m.weapon_dropped for m in st.fighters] for st in states])
    kind, tgt = declare_v(
        me,
        target,
        enemy_of,
        active,
        np.array([[code[None if m.declared is None else m.declared[0]] for m in st.fighters] for st in states]),
        np.array([[-1 if m.declared is None else m.declared[1] for m in st.fighters] for st in states]),
        np.array([st.fighters[0].weapon_dropped for st in states]),
        in_hand[:, 0],
        in_hand[:, 0] & ranged,
        np.array([st.distance > MELEE_REACH_FT for st in states]),
        np.full(n, ("attack", "defensive", "aim", "disarm").index(tactic)),
        np.array([st.fighters[0].counter_ready for st in states]),
        np.array([st.fighters[0].aim_bonus for st in states]),
        in_hand[np.arange(n), np.maximum(target, 0)],
    )
    got = [(ACTIONS[k], None if t < 0 else int(t)) for k, t in zip(kind, tgt, strict=True)]
    assert got == want


def test_defence_of_twin_on_every_small_input() -> None:
    base = to_state(ENG.start([[_sheet()], [_sheet()]])).fighters[0]
    decls = (None, *((a, 1) for a in ACTIONS))
    rows = list(itertools.product(decls, *([(False, True)] * 4), (None, 0), (False, True)))
    movers = [
        base._replace(declared=dc, acted=acted, unconscious=not up, counter_ready=counter, weapon=w, weapon_dropped=dr)
        for dc, acted, up, counter, _, w, dr in rows
    ]
    code = {None: -1, **{a: i for i, a in enumerate(ACTIONS)}}
    kind, switch = defence_of_v(
        _col([code[None if m.declared is None else m.declared[0]] for m in movers]),
        _col([m.acted for m in movers]),
        _col([m.active for m in movers]),
        _col([m.counter_ready for m in movers]),
        _col([r[4] for r in rows]),
        _col([m.weapon is not None and not m.weapon_dropped for m in movers]),
    )
    for m, r, k, s in zip(movers, rows, kind, switch, strict=True):
        assert ((None if k < 0 else ACTIONS[k]), bool(s)) == defence_of(m, r[4]), r


def _sheet() -> Character:
    return Character(
        name="A",
        attributes=Attributes(),
        traits=(Trait(name="Armed Combat", rank=4),),
        weapons=(Weapon(name="Axe", damage="d6"),),
    )
