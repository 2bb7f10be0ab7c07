"""The combat rules over numpy arrays, for the simulation: each the twin of its scalar namesake in ``combat``.

The simulation (:mod:`storymaster.systems.fuzzy.forecast`) plays many fights at once and states no rule
of its own. Where a rule's inputs are few and fixed for a fight (a fighter's dice by worst wound and
opponents, a Defence Total by worst wound, a test's chance, what a blow does), its twin is a table filled
by calling the scalar rule on every input (:class:`FightTables`); where they are open (Advantage Points),
the twin is numpy code, tested against the scalar rule on every input of a small domain
(tests/systems/fuzzy/test_vectorised.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .combat import (
    Fighter,
    FightState,
    Manoeuvre,
    Wound,
    blow_outcome,
    body_test,
    can_harm,
    exchange_dice,
    level_multiple,
    pairings,
    tenacity_test,
)
from .options import FuzzyHouseRules
from .rolls import total_distribution
from .tables import wound_levels

__all__ = [
    "LEVELS",
    "STATUSES",
    "FightTables",
    "TotalSampler",
    "carry_over_v",
    "harm_level_v",
    "harm_spend_v",
    "next_manoeuvre_v",
    "with_worst",
]

STATUSES = ("fighting", "incapacitated", "unconscious", "dead", "escaped")
LEVELS = tuple(row["name"] for row in wound_levels())  # superficial, moderate, serious, mortal, killed


def carry_over_v(gained: np.ndarray, theirs: np.ndarray, house: FuzzyHouseRules) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~storymaster.systems.fuzzy.combat.carry_over` over arrays."""
    if house.advantage_on_loss == "offset":
        cancel = np.minimum(theirs, gained)
        return gained - cancel, theirs - cancel
    if house.advantage_on_loss == "lose":
        return gained, np.zeros_like(theirs)
    return gained, theirs


def harm_spend_v(
    points: np.ndarray, dtotal: np.ndarray, can: np.ndarray, all_out: np.ndarray, harm_at: np.ndarray
) -> np.ndarray:
    """:func:`~storymaster.systems.fuzzy.combat.harm_spend` over arrays: the attacker given by whether he can
    hurt, fights all-out and the multiple his ``harm_at`` level takes (:meth:`FightTables.attackers`)."""
    m = np.minimum(level_multiple("killed"), points // dtotal)
    return np.where(can & all_out, points, np.where(can & (m >= 1) & (m >= harm_at), m * dtotal, 0))


def harm_level_v(points: np.ndarray, dtotal: np.ndarray) -> np.ndarray:
    """:func:`~storymaster.systems.fuzzy.combat.harm_level` over arrays, as the index of the level in ``LEVELS``."""
    level = np.zeros_like(points)
    for i, row in enumerate(wound_levels()):
        level = np.where(points >= row["multiple"] * dtotal, i, level)
    return level


def next_manoeuvre_v(
    manoeuvres: Sequence[Manoeuvre], names: Sequence[str], bought: np.ndarray, points: np.ndarray
) -> np.ndarray:
    """:func:`~storymaster.systems.fuzzy.combat.next_manoeuvre` over arrays: the index in ``manoeuvres`` of the
    first not yet bought (``bought[:, names.index(name)]``) and affordable, or -1."""
    pick = np.full(points.shape, -1, dtype=np.int64)
    for j, man in enumerate(manoeuvres):
        pick = np.where((pick < 0) & ~bought[:, names.index(man.name)] & (points >= man.cost), j, pick)
    return pick


def with_worst(f: Fighter, worst: int, roll_bonus: int | None = None) -> Fighter:
    """``f`` with a worst wound of level ``worst`` (0: none), all the rules read of his wounds."""
    wounds = (Wound(level=LEVELS[worst], by="", round=0),) if worst else ()  # type: ignore[arg-type]
    update: dict[str, object] = {"wounds": wounds}
    if roll_bonus is not None:
        update["roll_bonus"] = roll_bonus
    return f.model_copy(update=update)


class FightTables:
    """The rules of one fight as tables, each filled by its scalar rule on every input it can take.

    ``dice[f, w, n]``: fighter f's dice with a worst wound w and n opponents (``exchange_dice``);
    ``flat[f, rb - rb_low]``: his flat modifier with roll bonus rb; ``defence[d, a, w]``: d's Defence
    Total against a with worst wound w (``defence_total``); ``p_tenacity[f, w]``, ``p_body[f, w]``: the
    chance to pass the test with worst wound w (``tenacity_test``, ``body_test``; 1 when there is none);
    ``blow_status/blow_dying/blow_ko[level, lethal, passed]``: what a blow does (``blow_outcome``, status
    -1 when unchanged); :meth:`pairs`: who fights whom for each set of fighters still up (``pairings``).
    """

    def __init__(self, state: FightState) -> None:
        from .combat import defence_total  # the scalar rule behind the table

        self.state = state
        house = state.house_rules
        fs = state.fighters
        n = len(fs)
        ws = range(len(LEVELS) - 1)  # a standing fighter's worst wound: none .. mortal
        self.dice = np.array(
            [[[exchange_dice(with_worst(f, w), k, house)[0] for k in range(n + 1)] for w in ws] for f in fs]
        )
        bonus = [[m.roll_bonus for m in f.tactics.manoeuvres] for f in fs]
        self.rb_low = min(f.roll_bonus + sum(b for b in bs if b < 0) for f, bs in zip(fs, bonus, strict=True))
        high = max(f.roll_bonus + sum(b for b in bs if b > 0) for f, bs in zip(fs, bonus, strict=True))
        self.flat = np.array(
            [[exchange_dice(with_worst(f, 0, rb), 1, house)[1] for rb in range(self.rb_low, high + 1)] for f in fs]
        )
        self.defence = np.array(
            [[[defence_total(with_worst(d, w), a)[0] for w in ws] for a in fs] for d in fs], dtype=np.int64
        )
        self.p_tenacity = np.array(
            [[_p_pass(tenacity_test(f, with_worst(f, w).wounds, house)) for w in ws] for f in fs]
        )
        self.body = np.array([house.nonlethal_body_test is not None and f.tactics.intent != "lethal" for f in fs])
        self.p_body = np.array(
            [
                [_p_pass(body_test(with_worst(f, w), house)) if b else 1.0 for w in ws]
                for f, b in zip(fs, self.body, strict=True)
            ]
        )
        self.lethal = np.array([f.tactics.intent == "lethal" for f in fs])
        shape = (len(LEVELS), 2, 2)
        self.blow_status = np.full(shape, -1, dtype=np.int64)
        self.blow_dying = np.zeros(shape, dtype=bool)
        self.blow_ko = np.zeros(shape, dtype=bool)
        for lv in range(1, len(LEVELS)):
            for lethal in (0, 1):
                for passed in (0, 1):
                    out = blow_outcome(LEVELS[lv], bool(lethal), bool(passed), house)
                    if "status" in out:
                        self.blow_status[lv, lethal, passed] = STATUSES.index(out["status"])
                    self.blow_dying[lv, lethal, passed] = bool(out.get("dying"))
                    self.blow_ko[lv, lethal, passed] = bool(out.get("knocked_out"))
        self.names = [tuple(dict.fromkeys(m.name for m in f.tactics.manoeuvres)) for f in fs]
        self._pairs: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def after_blow(
        self,
        level: np.ndarray,
        lethal: np.ndarray,
        passed: np.ndarray | bool,
        status: np.ndarray,
        dying: np.ndarray,
        ko: np.ndarray,
        fights: np.ndarray,
        who: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`~storymaster.systems.fuzzy.combat.blow_outcome` applied to fighter ``who`` of each of ``fights``:
        his new status, dying and knocked-out flags."""
        at = (level, lethal.astype(np.int64), np.asarray(passed).astype(np.int64))
        new = self.blow_status[at]
        return (
            np.where(new >= 0, new, status[fights, who]),
            dying[fights, who] | self.blow_dying[at],
            ko[fights, who] | self.blow_ko[at],
        )

    def buy(
        self,
        x: int,
        fights: np.ndarray,
        against: np.ndarray,
        points: np.ndarray,
        pool: np.ndarray,
        bought: np.ndarray,
        roll_bonus: np.ndarray,
        status: np.ndarray,
    ) -> None:
        """Fighter ``x`` buys :func:`next_manoeuvre_v` in each of ``fights`` (the engine's ``_spend`` when no harm is
        spent): the cost from his points ``against``, the name bought, its roll bonus, his escape."""
        mans = self.state.fighters[x].tactics.manoeuvres
        if not mans or fights.size == 0:
            return
        pick = next_manoeuvre_v(mans, self.names[x], bought[fights, x], points)
        for j, man in enumerate(mans):
            bs, bl = fights[pick == j], against[pick == j]
            pool[bs, x, bl] -= man.cost
            bought[bs, x, self.names[x].index(man.name)] = True
            roll_bonus[bs, x] += man.roll_bonus
            if man.ends_fight:
                status[bs, x] = STATUSES.index("escaped")

    def attackers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per fighter, what :func:`harm_spend_v` reads of him: can hurt, fights all-out, his ``harm_at`` multiple."""
        fs = self.state.fighters
        return (
            np.array([can_harm(f) for f in fs]),
            np.array([f.tactics.stance == "all-out attack" for f in fs]),
            np.array([level_multiple(f.tactics.harm_at) for f in fs]),
        )

    def pairs(self, up: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`~storymaster.systems.fuzzy.combat.pairings` for each row of ``up`` (fights by fighters):
        (opponent of each larger-side fighter, -1 for the rest; opponents each fighter faces)."""
        codes = up.astype(np.int64) @ (1 << np.arange(up.shape[1], dtype=np.int64))
        opp = np.empty(up.shape, dtype=np.int64)
        count = np.empty(up.shape, dtype=np.int64)
        for code in np.unique(codes).tolist():
            if code not in self._pairs:
                self._pairs[code] = self._pairing(code)
            m = codes == code
            opp[m], count[m] = self._pairs[code]
        return opp, count

    def _pairing(self, code: int) -> tuple[np.ndarray, np.ndarray]:
        fs = self.state.fighters
        state = self.state.model_copy(
            update={
                "fighters": tuple(
                    f.model_copy(update={"status": "fighting" if code >> i & 1 else "dead"}) for i, f in enumerate(fs)
                )
            }
        )
        index = {f.key: i for i, f in enumerate(fs)}
        opp = np.full(len(fs), -1, dtype=np.int64)
        count = np.zeros(len(fs), dtype=np.int64)
        for f, g in pairings(state):
            opp[index[f.key]] = index[g.key]
            count[index[f.key]] += 1
            count[index[g.key]] += 1
        return opp, count


class TotalSampler:
    """:func:`~storymaster.systems.fuzzy.rolls.roll_ability` over arrays, its total only: drawn from the exact
    distribution of the total (:func:`~storymaster.systems.fuzzy.rolls.total_distribution`) by inverse CDF."""

    def __init__(self, house: FuzzyHouseRules) -> None:
        self.house = house
        self.tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def table(self, d: int) -> tuple[np.ndarray, np.ndarray]:
        if d not in self.tables:
            dist = sorted(total_distribution(d, self.house).items())
            values = np.array([t for t, _ in dist], dtype=np.int64)
            cdf = np.cumsum([float(p) for _, p in dist])
            cdf[-1] = 1.0
            self.tables[d] = (values, cdf)
        return self.tables[d]

    def roll(self, dice: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        u: np.ndarray = np.asarray(gen.random(dice.shape[0]))
        out = np.empty(dice.shape[0], dtype=np.int64)
        for d in np.unique(dice).tolist():
            values, cdf = self.table(int(d))
            m = dice == d
            k = np.searchsorted(cdf, u[m], side="right")
            out[m] = values[np.minimum(k, len(values) - 1)]
        return out


def _p_pass(test: object) -> float:
    return sum(p for p, r in test.outcomes() if r.passed)  # type: ignore[attr-defined]
