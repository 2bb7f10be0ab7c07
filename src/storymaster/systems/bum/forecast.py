"""Exact forecasts of level-3 and level-4 duels as Markov chains over hit points.

The engine (:mod:`.combat`) plays a round; this module writes the same round as
a transition between hit-point pairs with exact probabilities, and solves the
chain. It covers a duel in melee reach (one fighter a side, no missile to be
fired, no longspear option, no pending level switch, nobody stunned); anything else
raises :class:`~storymaster.errors.OddsError` (simulate it with the engine).
The engine's round cap is ignored: the forecast is for a fight fought out.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from ...errors import OddsError
from .character import WeaponProfile, attack_total, defence_parts, profile
from .fighters import UNARMED, FightState, Fighter, attack_odds, exchange_odds, gm_order, melee_slot, missile_of

__all__ = ["DuelChain", "duel_chain", "round_transitions", "win_probability"]


@dataclass(frozen=True)
class DuelChain:
    """A duel reduced to what the chain needs: the level, who acts first, hit chances and wounds per hit."""

    level: int
    first: int  # 0 or 1: the fighter who acts first each round (level 4)
    p_hit: tuple[Fraction, Fraction]  # level 4: each fighter's chance to hit; level 3: (p0 wins, p1 wins) per exchange
    wounds: tuple[int, int]


def _melee_profile(f: Fighter, first_round: bool) -> tuple[int, int, WeaponProfile]:
    """(attack total, wounds per hit, weapon in hand) of a fighter who fights hand to hand."""
    m = missile_of(f)
    if m is not None and f.readiness == "ready" and f.tactic != "melee" and (m.melee_usable or first_round):
        raise OddsError(
            f"{f.name} would shoot his {m.name} first: forecast from the state after that, or give him the 'melee' tactic"
        )
    slot = melee_slot(f)
    if slot is None:
        return f.character.stats.STR, 1, UNARMED
    p = profile(f.character, slot)
    assert p is not None
    return attack_total(f.character, slot), p.wounds, p


def duel_chain(state: FightState) -> DuelChain:
    """The chain's parameters for a duel state (see the module docstring for what is covered)."""
    if len(state.fighters) != 2 or {f.side for f in state.fighters} != {0, 1}:
        raise OddsError("the exact forecast covers duels: one fighter on each of two sides")
    if state.level not in (3, 4):
        raise OddsError("the exact forecast covers combat levels 3 and 4")
    if any(rnd > state.round for rnd, _ in state.switch):
        raise OddsError("a level switch is still to come: forecast each stretch separately")
    if state.round == 0 and state.surprised:
        raise OddsError("a sneak attack opens this fight: forecast from the state after round 1")
    if state.distance != 0 or state.house_rules.longspear_first_strike or any(f.stunned for f in state.fighters):
        raise OddsError("the exact forecast covers a duel in melee reach, nobody stunned, no longspear option")
    a, b = sorted(state.fighters, key=lambda f: f.side)
    hr = state.house_rules
    if state.level == 3:
        first = 0 if (state.order[0] if state.order else gm_order(state)[0]) == a.name else 1
        initiator_is_a = state.initiator == 0
        p = exchange_odds(a.character, b.character, hr, a_initiates=initiator_is_a)
        return DuelChain(3, first, (p, 1 - p), (1, 1))
    if not state.order and state.initiative != "gm":
        raise OddsError("the turn order is rolled in round 1: forecast from the state after the first round")
    order = list(state.order) or gm_order(state)
    first = 0 if order[0] == a.name else 1
    first_round = state.round == 0
    (att_a, w_a, hand_a), (att_b, w_b, hand_b) = _melee_profile(a, first_round), _melee_profile(b, first_round)
    def_b = sum(v for _, v in defence_parts(b.character, weapon=hand_b))
    def_a = sum(v for _, v in defence_parts(a.character, weapon=hand_a))
    pa = attack_odds(att_a, def_b, hr, attacker_is_player=not a.character.npc, defender_is_player=not b.character.npc)
    pb = attack_odds(att_b, def_a, hr, attacker_is_player=not b.character.npc, defender_is_player=not a.character.npc)
    return DuelChain(4, first, (pa, pb), (w_a, w_b))


def round_transitions(chain: DuelChain, hp: tuple[int, int]) -> dict[tuple[int, int], Fraction]:
    """One round from hit points ``hp``: each next (hp0, hp1) with its exact probability.

    Level 3: one exchange (ties already re-rolled), the loser loses 1 HP.
    Level 4: the first fighter attacks; if the other still stands he attacks back.
    """
    a, b = hp
    out: dict[tuple[int, int], Fraction] = {}

    def add(k: tuple[int, int], p: Fraction) -> None:
        if p:
            out[k] = out.get(k, Fraction(0)) + p

    if chain.level == 3:
        add((a, b - 1), chain.p_hit[0])
        add((a - 1, b), chain.p_hit[1])
        return out
    i, j = chain.first, 1 - chain.first
    p_i, p_j = chain.p_hit[i], chain.p_hit[j]
    hp_l = [a, b]

    def hit(target: int, by: int, cur: list[int]) -> list[int]:
        nxt = list(cur)
        nxt[target] = max(0, nxt[target] - chain.wounds[by])
        return nxt

    after_i_hit = hit(j, i, hp_l)
    if after_i_hit[j] == 0:
        add(tuple(after_i_hit), p_i)  # type: ignore[arg-type]
    else:
        add(tuple(hit(i, j, after_i_hit)), p_i * p_j)  # type: ignore[arg-type]
        add(tuple(after_i_hit), p_i * (1 - p_j))  # type: ignore[arg-type]
    add(tuple(hit(i, j, hp_l)), (1 - p_i) * p_j)  # type: ignore[arg-type]
    add((a, b), (1 - p_i) * (1 - p_j))
    return out


def win_probability(state: FightState) -> Fraction:
    """Exact chance that side 0 wins the duel from this state, fought to the end."""
    chain = duel_chain(state)
    a, b = sorted(state.fighters, key=lambda f: f.side)

    @lru_cache(maxsize=None)
    def p(hp0: int, hp1: int) -> Fraction:
        if hp1 == 0:
            return Fraction(1)
        if hp0 == 0:
            return Fraction(0)
        trans = round_transitions(chain, (hp0, hp1))
        stay = trans.pop((hp0, hp1), Fraction(0))
        if stay == 1:
            raise OddsError("neither fighter can ever hit the other: the duel never ends")
        return sum((q * p(*k) for k, q in trans.items()), Fraction(0)) / (1 - stay)

    return p(a.hp, b.hp)
