"""The BLYSS forecast's two kernels (issue 14: tests that catch a changed rule), fast: the numpy simulation's round
and whole fights, and the exact chain, each against a reference that does not use the forecast module.

The reference is the engine's own round (:func:`~storymaster.systems.blyss.round.play_round`) with every branch of
its dice enumerated by :func:`~storymaster.forecast.chance.branches` (a brute force over the round's events, each
event's outcomes exact), iterated round by round for whole fights: an exact distribution of every fighter's state.
The simulation is compared with it at fixed seeds within 5 standard errors of its sample (never flaky: the seeds are
fixed, and a correct simulation sits ~1 standard error off); the exact chain to 1e-12. Small hand-worked figures
(one-blow duels, chain sizes, words) are worked out in the comments.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from blyss_helpers import ENG, ch

from storymaster.errors import OddsError
from storymaster.forecast.chance import branches
from storymaster.systems.blyss import SYSTEM
from storymaster.systems.blyss import forecast as fc_module
from storymaster.systems.blyss.character import Armour, Attributes, Character, Trait, Weapon
from storymaster.systems.blyss.combat import FightState
from storymaster.systems.blyss.forecast import _Roster, _Sim, chain_size, end_state, exact_applies, simulate_batch
from storymaster.systems.blyss.living import WOUND_LEVELS, wound_level_code
from storymaster.systems.blyss.options import BlyssHouseRules
from storymaster.systems.blyss.round import Mover, Roster, RoundState, play_round, to_state

#: the round's actions, in the simulation's codes (written out here: a code moved in the module is a changed rule)
ACTION_WORDS = ("none", "recover", "move", "defend", "evade", "aim", "disarm", "attack")


def with_fighter(st: FightState, k: int, vitals: dict | None = None, **changes: object) -> FightState:
    fs = list(st.fighters)
    f = fs[k]
    if vitals:
        changes["vitals"] = f.vitals.model_copy(update=vitals)
    fs[k] = f.model_copy(update=changes)
    return st.model_copy(update={"fighters": tuple(fs)})


SWORD = Weapon(name="Sword", damage="d8", skill="Armed Combat")
CLUB = Weapon(name="Club", damage="d6", skill="Armed Combat", blunt=True, knockout_rank=2)
BOW = Weapon(name="Bow", damage="d6", ranged=True, range_increment=20, skill="Ranged Combat")
MAIL = Armour(name="Mail", action_modifier=-1, cover=("T", "A"), armour_rating=4)
LEATHER = Armour(name="Leather", cover=("T",), armour_rating=2)
HELM = Armour(name="Helm", cover=("H",), armour_rating=3, lives=2)
KNIGHT = ch("Knight", SWORD, armour=(MAIL,), strength=4, agility=3, stamina=2)
BRUTE = ch("Brute", CLUB, armour=(LEATHER,), strength=4, stamina=2, skill=2)


# ---------------------------------------------------------------- the reference: the engine's round, enumerated
def _had_weapon(st: FightState) -> list[bool]:
    return [f.weapon is not None for f in st.fighters]


def _row(s: RoundState, had: list[bool], armour: list[int]) -> tuple[int, ...]:
    """A round state as one row of integers, laid out as :func:`_sim_rows` lays out the simulation's arrays."""
    row: list[int] = []
    for m, h, n_arm in zip(s.fighters, had, armour, strict=True):
        d = m.declared
        row += [m.dodges, m.flesh_wounds, m.health, m.unconscious, m.dying, m.stabilised, m.dead, m.coma]
        row += [m.dying_checks, *m.armour_lives[:n_arm], h and m.weapon is None, m.weapon_dropped]
        row += [m.aim_bonus, m.aim_called, m.counter_ready]
        row += [-1, -1] if d is None else [ACTION_WORDS.index(d[0]), -1 if d[1] is None else d[1]]
    return (*(int(x) for x in row), s.distance, *s.order)


def engine_round(st: FightState) -> dict[tuple[int, ...], float]:
    """Every state the engine's next round can leave, with its exact chance."""
    had, armour = _had_weapon(st), [len(f.armour_lives) for f in st.fighters]
    out: dict[tuple[int, ...], float] = {}
    for p, s in branches(lambda c: play_round(to_state(st), Roster(st), c)[0]):
        key = _row(s, had, armour)
        out[key] = out.get(key, 0.0) + p
    return out


def _sim_rows(st: FightState, S: dict[str, np.ndarray]) -> np.ndarray:
    cols = []
    for k, f in enumerate(st.fighters):
        cols += [S[x][:, k] for x in ("d", "f", "h", "unc", "dying", "stab", "dead", "coma", "dchecks")]
        cols += [S["lives"][:, k, p] for p in range(len(f.armour_lives))]
        cols += [S["lost"][:, k], S["dropped"][:, k] & ~S["lost"][:, k]]  # a lost weapon is dropped for good
        cols += [S["aimb"][:, k], S["aimc"][:, k], S["counter"][:, k], S["decl"][:, k], S["dtgt"][:, k]]
    cols += [S["dist"], *S["order"].T]
    return np.stack([np.asarray(c, dtype=np.int64) for c in cols], axis=1)


def sim_round(st: FightState, n: int, seed: int) -> dict[tuple[int, ...], float]:
    """The simulation's next round of ``n`` copies of the fight: each state's share."""
    sim = _Sim(_Roster(st))
    S = sim._start(n)
    sim._round(S, st.round + 1, np.random.default_rng(seed))
    rows, counts = np.unique(_sim_rows(st, S), axis=0, return_counts=True)
    return {tuple(int(x) for x in r): c / n for r, c in zip(rows, counts, strict=True)}


def within(p: float, q: float, n: int) -> bool:
    """A sampled share q of n against the exact p: within 5 standard errors (plus one fight)."""
    return abs(p - q) <= 5 * math.sqrt(p * (1 - p) / n) + 1 / n


def assert_like(exact: dict, sampled: dict, n: int) -> None:
    extra = [k for k in sampled if k not in exact]
    assert not extra, ("states the rules never reach", extra[:3])
    for k, p in exact.items():
        assert within(p, sampled.get(k, 0.0), n), (k, p, sampled.get(k, 0.0))


HOUSE = BlyssHouseRules(
    reroll_initiative_each_round=True,
    armour_contest_against="damage_roll",
    damage_spills_over=False,
    coma_instead_of_death="blunt",
    flesh_wound_penalty="rank",
    armour_ties_soak=True,
    armour_heavy_blow=3,
    initiative_final_tie="sm_order",
    action_order="initiative",
    max_rounds=30,
)


def _first_round() -> FightState:
    """Knight (sword d8, mail on torso and arms) against Brute (a blunt club that can knock out, leather): the first
    round rolls Initiative (a d100 roll-off on a tie), both attack; armour against the best attack die."""
    return ENG.start([[KNIGHT], [BRUTE]])


def _house_rules() -> FightState:
    """Mid-fight (round 2, Knight already at Flesh Wounds with no Dodges left) under nine house rules, Knight
    defensive (defends against Brute, or switches to a Defence), Brute's armour taking every blow, Knight's never."""
    st = ENG.start(
        [[KNIGHT], [BRUTE]],
        house_rules=HOUSE,
        options={"tactic": ["defensive", "attack"], "armour_choice": {"Knight": "body", "Brute": "armour"}},
    )
    st = st.model_copy(update={"round": 2, "order": ("Brute", "Knight")})
    return with_fighter(st, 0, {"dodges": 0, "flesh_wounds": 1})


def _tactics() -> FightState:
    """Two against two at close quarters: a defensive knight (Defend, weapon in hand), an aimer with a called shot
    at the head (helmeted target), a disarmer, and a defensive fighter with no weapon (Evade)."""
    aimer = ch("Aimer", SWORD, dexterity=4, intelligence=4, stamina=2)
    fists = ch("Fists", None, agility=4, stamina=2)
    helmed = ch("Helmed", CLUB, armour=(HELM,), strength=3, stamina=2, skill=2)
    st = ENG.start(
        [[KNIGHT, aimer], [helmed, fists]],
        options={
            "tactic": {"Knight": "defensive", "Aimer": "aim", "Helmed": "disarm", "Fists": "defensive"},
            "called_shot": {"Aimer": "head"},
        },
    )
    return st.model_copy(update={"round": 1, "order": ("Aimer", "Fists", "Knight", "Helmed")})


def _apart() -> FightState:
    """40 ft apart: an archer with a counterattack and an aimed limb shot pending, a swordsman whose sword is on the
    ground (recovered), against a brute who must close in (moves his Movement)."""
    archer = ch("Archer", BOW, agility=4, dexterity=4, stamina=2)
    runner = ch("Runner", SWORD, agility=4, stamina=2)
    st = ENG.start([[archer, runner], [BRUTE]], options={"distance": 40, "called_shot": {"Archer": "limb"}})
    st = st.model_copy(update={"round": 1, "order": ("Runner", "Brute", "Archer")})
    st = with_fighter(st, 0, counter_ready=True, aim_bonus=1, aim_called=True)
    return with_fighter(st, 1, weapon_dropped=True)


MAUL = Weapon(name="Maul", damage="30", skill="Armed Combat", blunt=True)


def _dying(coma: str) -> FightState:
    """Cy is dying (a blunt blow, one failed check behind him) while Ann and Bo fight on with Mauls; Di lies
    stabilised. ``coma``: the house rule coma_instead_of_death."""
    hr = BlyssHouseRules(coma_instead_of_death=coma)
    ann, cy, di = (ch(n, MAUL, stamina=3) for n in ("Ann", "Cy", "Di"))
    st = ENG.start([[ann, cy, di], [ch("Bo", MAUL, stamina=2)]], house_rules=hr)
    st = st.model_copy(update={"round": 3, "order": ("Ann", "Cy", "Di", "Bo")})
    st = with_fighter(
        st, 1, {"health": -2, "unconscious": True, "dying": True, "dying_checks": 1}, last_blow_blunt=True
    )
    return with_fighter(st, 2, {"health": -1, "unconscious": True, "stabilised": True})


def _screw_ups() -> FightState:
    """Clumsy fighters (small pools screw up often) under the default rule: weapons dropped and lost; Ann's pool one
    die (an unskilled weapon) against Bo's two, minimum damage 0 and a weapon that can do less than nothing."""
    weak = Weapon(name="Stick", damage="d4-3", skill="Polearms")  # unskilled: one die against Bo's two
    hr = BlyssHouseRules(minimum_damage=0)
    # the first round: Initiative decides who acts first, so each action's batch mixes Ann's pool and Bo's
    return ENG.start([[ch("Ann", weak, skill=1, strength=4, agility=6)], [ch("Bo", SWORD, skill=1)]], house_rules=hr)


def _retarget() -> FightState:
    """Two against two with one-blow weapons, both of side B after Ann (the weakest, first listed): when Bo drops her
    before Di acts, Di turns on Cy (the round's target picked again)."""
    cy, di = ANN.model_copy(update={"name": "Cy"}), BO.model_copy(update={"name": "Di"})
    st = ENG.start([[ANN, cy], [BO, di]], house_rules=BlyssHouseRules(combat_screw_up="none"))
    st = with_fighter(st, 0, {"dodges": 0})  # Ann the weakest: both Bo and Di declare on her
    return st.model_copy(update={"round": 1, "order": ("Ann", "Cy", "Di", "Bo")})


def _high_defence() -> FightState:
    """A defensive fighter with a high Defence rank: the attack, judged against it, often has no success left, and a
    Defence with no success either draws (to the defender, who earns no counterattack)."""
    guard = ch("Guard", SWORD, skill=6, agility=6, strength=3, stamina=2)
    st = ENG.start(
        [[guard], [ch("Raider", SWORD, skill=5, agility=5, stamina=2)]], options={"tactic": ["defensive", "attack"]}
    )
    return st.model_copy(update={"round": 1, "order": ("Guard", "Raider")})


def _unsaid_aim() -> FightState:
    """A saved state with an aim bonus whose called shot was not aimed (aim_called False): the limb shot is judged at
    its unaimed TD."""
    archer = ch("Archer", BOW, agility=4, dexterity=4, stamina=2)
    st = ENG.start([[archer], [BRUTE]], options={"distance": 20, "called_shot": {"Archer": "limb"}})
    st = st.model_copy(update={"round": 1, "order": ("Brute", "Archer")})
    return with_fighter(st, 0, aim_bonus=2, aim_called=False)


def _two_pieces() -> FightState:
    """A fighter in two pieces of armour (leather, then mail whose Action Modifier hampers): each piece's lives
    kept apart, the hampering piece the second one."""
    plated = ch("Plated", SWORD, armour=(LEATHER, MAIL), strength=3, agility=4, stamina=2)
    st = ENG.start([[plated], [BRUTE]])
    return st.model_copy(update={"round": 1, "order": ("Brute", "Plated")})


def _destroyed_mail() -> FightState:
    """Knight's mail has no lives left: it no longer hampers him (Action Modifier) nor covers him."""
    st = ENG.start([[KNIGHT], [BRUTE]])
    return with_fighter(st.model_copy(update={"round": 1, "order": ("Brute", "Knight")}), 0, armour_lives=(0,))


def _disarm_the_unarmed() -> FightState:
    """A disarmer whose target (Ann, the weakest, listed first) has her weapon on the ground attacks instead (nothing
    in hand to disarm), while Cy beside her holds his; Cy aims with no called shot (his aim is not a called one)."""
    cy = ANN.model_copy(update={"name": "Cy"})
    dis = BO.model_copy(update={"name": "Dis"})
    st = ENG.start([[ANN, cy], [dis]], options={"tactic": {"Cy": "aim", "Dis": "disarm"}})
    st = with_fighter(st, 0, {"dodges": 0}, weapon_dropped=True)
    return st.model_copy(update={"round": 1, "order": ("Ann", "Cy", "Dis")})


def _guard_beside_a_friend() -> FightState:
    """A defensive knight whose friend (Cy, the weakest) is the one attacked: nobody declared on the knight, so he
    attacks rather than defends (The Declaration Round: a Defence is against an attack on oneself)."""
    cy = ANN.model_copy(update={"name": "Cy"})
    st = ENG.start([[KNIGHT, cy], [BO]], options={"tactic": {"Knight": "defensive"}})
    st = with_fighter(st, 1, {"dodges": 0, "flesh_wounds": 0, "health": 3})  # Cy far the weakest: Bo's target
    return st.model_copy(update={"round": 1, "order": ("Knight", "Cy", "Bo")})


def _thin_armour() -> FightState:
    """Armour Rating 1 (a d4) against the damage roll (house rule): the sword's d8 often shows less than the d4, so
    even the thinnest piece soaks blows."""
    padded = ch("Padded", CLUB, armour=(Armour(name="Padding", cover=("T", "A"), armour_rating=1),), stamina=2)
    st = ENG.start([[KNIGHT], [padded]], house_rules=BlyssHouseRules(armour_contest_against="damage_roll"))
    return st.model_copy(update={"round": 1, "order": ("Padded", "Knight")})


def _called_aim() -> FightState:
    """An aimer with a called shot at a limb whose Aim Test can succeed (d12s at TD 10): an aim that gains ranks is
    carried to the next round as a called one."""
    aimer = ch("Aimer", SWORD, dexterity=6, intelligence=6, stamina=2)
    st = ENG.start([[aimer], [BRUTE]], options={"tactic": ["aim", "attack"], "called_shot": {"Aimer": "limb"}})
    return st.model_copy(update={"round": 1, "order": ("Aimer", "Brute")})


SCENARIOS = {
    "called aim": _called_aim,
    "thin armour": _thin_armour,
    "guard beside a friend": _guard_beside_a_friend,
    "destroyed mail": _destroyed_mail,
    "disarm the unarmed": _disarm_the_unarmed,
    "retarget": _retarget,
    "high defence": _high_defence,
    "unaimed bonus": _unsaid_aim,
    "two pieces": _two_pieces,
    "first round": _first_round,
    "house rules": _house_rules,
    "tactics": _tactics,
    "apart": _apart,
    "dying, coma never": lambda: _dying("never"),
    "dying, coma blunt": lambda: _dying("blunt"),
    "dying, coma always": lambda: _dying("always"),
    "screw-ups": _screw_ups,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_simulations_round_is_the_engines_round_enumerated(name: str) -> None:
    """One round of the simulation, 20,000 copies of the fight at a fixed seed, against every branch of the
    engine's round: each fighter's Dodges, Flesh Wounds, Health, down flags, dying checks, armour lives, weapon
    lost or on the ground, aim, counterattack and declaration, the distance and the Initiative order."""
    st = SCENARIOS[name]()
    n = 20_000
    exact = engine_round(st)
    assert len(exact) >= 3
    assert_like(exact, sim_round(st, n, seed=11), n)


# ---------------------------------------------------------------- whole fights: the engine's rounds iterated
END_WORDS = ("unhurt", *WOUND_LEVELS[:5], "unconscious", "stabilised", "dying", "coma", "dead")
CAPPED = "standing at the round cap"


def _word(st: FightState, k: int, m: Mover) -> str:
    """How a fighter ends, in the book's words: how they are down (dead, in a coma, dying, unconscious or
    stabilised), else unhurt, else their Wound Level (Table 2-03)."""
    v = st.fighters[k].vitals
    if m.dead or m.coma or m.dying:
        return "dead" if m.dead else "coma" if m.coma else "dying"
    if m.unconscious:
        return "stabilised" if m.stabilised else "unconscious"
    if (m.dodges, m.flesh_wounds, m.health) == (v.max_dodges, v.max_flesh_wounds, v.max_health):
        return "unhurt"
    return WOUND_LEVELS[wound_level_code(m.dodges, m.flesh_wounds, m.health, v.max_flesh_wounds, v.max_health, True)]


def engine_fight(st: FightState, *, cap: bool = True) -> dict[tuple, float]:
    """Every way the fight can end, by iterating the engine's round enumerated: (winner side or -1, rounds
    played, each fighter's end word) -> chance. ``cap`` False: the round does not end the fight at the cap, and a
    fight still going after the cap's round ends there with its fighters 'standing at the round cap' (the exact
    chain's words)."""
    R = Roster(st, cap=cap)
    live = {to_state(st): 1.0}
    out: dict[tuple, float] = {}
    played = 0
    while live:
        played += 1
        nxt: dict[RoundState, float] = {}
        for s, p in live.items():
            for q, s2 in branches(lambda c, s=s: play_round(s, R, c)[0]):
                if s2.over:
                    key = (
                        -1 if s2.winner is None else s2.winner,
                        played,
                        *(_word(st, k, m) for k, m in enumerate(s2.fighters)),
                    )
                    out[key] = out.get(key, 0.0) + p * q
                elif not cap and s2.round >= st.house_rules.max_rounds:
                    key = (-1, played, *([CAPPED] * len(s2.fighters)))
                    out[key] = out.get(key, 0.0) + p * q
                else:
                    nxt[s2] = nxt.get(s2, 0.0) + p * q
        live = nxt
    return out


def marginals(dist: dict[tuple, float], K: int) -> dict[tuple, float]:
    """The winner, the rounds and each fighter's end word, each apart."""
    out: dict[tuple, float] = {}
    for key, p in dist.items():
        for name, v in (("winner", key[0]), ("rounds", key[1]), *((k, key[2 + k]) for k in range(K))):
            out[(name, v)] = out.get((name, v), 0.0) + p
    return out


ANN = ch("Ann", Weapon(name="Axe", damage="30", skill="Armed Combat"), strength=4, agility=4)
BO = ch("Bo", Weapon(name="Club", damage="30", skill="Armed Combat"), skill=2)


def _brute(name: str) -> Character:
    """Melee Attack 2 (d6, never 8) + Armed Combat 4 (d10) with a one-blow Maul; fists a d6 that never hits."""
    return Character(
        name=name,
        attributes=Attributes(strength=2, agility=3),
        traits=(Trait(name="Armed Combat", rank=4),),
        weapons=(Weapon(name="Maul", damage="30", skill="Armed Combat"),),
    )


def _one_blow(rounds: int = 4) -> FightState:
    return ENG.start([[ANN], [BO]], house_rules=BlyssHouseRules(combat_screw_up="none", max_rounds=rounds))


def _mauls(rounds: int = 5) -> FightState:
    """Screw-Ups drop or lose the Mauls (fists never hit: stand-offs)."""
    return ENG.start([[_brute("Ann")], [_brute("Bo")]], house_rules=BlyssHouseRules(max_rounds=rounds))


def _two_on_one() -> FightState:
    """Ann and a second axe (Cy) against Bo, from round 1 with Bo fastest (the reference enumerates Initiative
    between two fighters only)."""
    st = ENG.start([[ANN, ANN.model_copy(update={"name": "Cy"})], [BO]], house_rules=BlyssHouseRules(max_rounds=3))
    return st.model_copy(update={"round": 1, "order": ("Bo", "Ann", "Cy")})


def _dying_fight() -> FightState:
    """The dying scenario of the round test, played out over the cap of 5: the dying fighter's checks hold a fight
    that would otherwise be over."""
    st = _dying("blunt")
    return st.model_copy(update={"house_rules": st.house_rules.model_copy(update={"max_rounds": 5})})


def _not_healed() -> FightState:
    """Ann comes to the fight with her Dodges and Flesh Wounds back but 2 Health still lost (Health heals slowly): she
    is not unhurt even when nobody touches her."""
    st = _one_blow()
    return with_fighter(st, 0, {"health": st.fighters[0].vitals.max_health - 2})


def _flesh_not_healed() -> FightState:
    """Ann's Dodges are back but one Flesh Wound is not: not unhurt either."""
    st = _one_blow()
    return with_fighter(st, 0, {"flesh_wounds": st.fighters[0].vitals.max_flesh_wounds - 1})


FIGHTS = {
    "one blow": _one_blow,
    "not healed": _not_healed,
    "flesh not healed": _flesh_not_healed,
    "mauls": _mauls,
    "two on one": _two_on_one,
    "dying": _dying_fight,
}


@pytest.mark.parametrize("name", list(FIGHTS))
def test_simulated_fights_end_as_the_engines_rounds_iterated(name: str) -> None:
    """Whole simulated fights (winner, rounds, each fighter's end) against the engine's rounds enumerated to the
    end, within 5 standard errors of 20,000 fights."""
    st = FIGHTS[name]()
    n = 20_000
    exact = engine_fight(st)
    batch = simulate_batch(st)(n, np.random.default_rng(7))
    names = batch.state_names
    joint: dict[tuple, float] = {}
    ends = [batch.end_states[f.id] for f in st.fighters]
    for i in range(n):
        key = (int(batch.winner[i]), int(batch.rounds[i]), *(names[int(e[i])] for e in ends))
        joint[key] = joint.get(key, 0.0) + 1 / n
    assert_like(exact, joint, n)
    assert_like(marginals(exact, len(st.fighters)), marginals(joint, len(st.fighters)), n)


def _exact_as_marginals(fc, st: FightState) -> dict[tuple, float]:
    out: dict[tuple, float] = {("winner", -1): fc.p_draw}
    for side, p in enumerate(fc.p_win):
        out[("winner", side)] = p
    for r, p in fc.rounds.items():
        out[("rounds", r)] = p
    for k, f in enumerate(st.fighters):
        c = next(c for c in fc.combatants if c.name == f.id)
        for word, p in c.end_states.items():
            out[(k, word)] = p
    return {k: p for k, p in out.items() if p > 1e-15}


def _swap_sides(st: FightState) -> FightState:
    return st.model_copy(update={"fighters": tuple(f.model_copy(update={"side": 1 - f.side}) for f in st.fighters)})


def _mid_fight(st: FightState) -> FightState:
    """Round 2 of the fight, Bo (listed second) first in the Initiative order."""
    return st.model_copy(update={"round": 2, "order": ("Bo", "Ann")})


CHAINS = {
    "one blow": _one_blow,
    "one blow, a one-round cap": lambda: _one_blow(1),
    "not healed": _not_healed,
    "mauls": _mauls,
    "mauls, sides swapped": lambda: _swap_sides(_mauls()),
    "mauls from round 2": lambda: _mid_fight(_mauls(6)),
    "one blow from round 2, sides swapped": lambda: _swap_sides(_mid_fight(_one_blow(5))),
    "one blow, Initiative every round": lambda: _one_blow(3).model_copy(
        update={"house_rules": BlyssHouseRules(max_rounds=3, combat_screw_up="none", reroll_initiative_each_round=True)}
    ),
    "first round, 3 rounds": lambda: _first_round().model_copy(
        update={"house_rules": BlyssHouseRules(max_rounds=2, combat_screw_up="none")}
    ),
}


@pytest.mark.parametrize("name", list(CHAINS))
def test_the_exact_chain_is_the_engines_rounds_iterated(name: str) -> None:
    """The exact chain's winner, draw, rounds and end words against the engine's rounds enumerated to the end (the
    round cap's fights reported as still standing), to 1e-12."""
    st = CHAINS[name]()
    fc = SYSTEM.forecast(st, method="exact")
    ref = marginals(engine_fight(st, cap=False), len(st.fighters))
    got = _exact_as_marginals(fc, st)
    ref = {k: p for k, p in ref.items() if p > 1e-15}
    assert set(got) == set(ref)
    for k, p in ref.items():
        assert got[k] == pytest.approx(p, abs=1e-12), k
    assert (fc.method == "exact" and fc.error == 0.0) or fc.error < 1e-12
    assert [c.name for c in fc.combatants] == [f.id for f in st.fighters]
    assert [c.side for c in fc.combatants] == [f.side for f in st.fighters]
    assert fc.sides == tuple((f.id,) for f in sorted(st.fighters, key=lambda f: f.side))


# ---------------------------------------------------------------- the chain's size, by hand
def test_chain_size_by_hand() -> None:
    """Per fighter: Dodges + Flesh Wounds + Health (not below 0) + 1, x4 per armour piece, x3 for a weapon in hand
    a Screw-Up may drop or lose; the product, x2 (two beats a round). Knight 2 + 3 + 4 ... read off his sheet."""
    st = _first_round()
    k, b = (f.vitals for f in st.fighters)
    knight = (k.dodges + k.flesh_wounds + k.health + 1) * 4 * 3  # mail; a sword under the default rule
    brute = (b.dodges + b.flesh_wounds + b.health + 1) * 4 * 3  # leather; a club
    assert chain_size(st) == 2 * knight * brute
    # under combat_screw_up 'none' the weapons stay in hand: no x3
    plain = st.model_copy(update={"house_rules": BlyssHouseRules(combat_screw_up="none")})
    assert chain_size(plain) == 2 * (knight // 3) * (brute // 3)
    # a fighter with no weapon (fists are never dropped: no x3), two armour pieces (x16), Health below 0 counts 0
    bare = with_fighter(st, 0, {"dodges": 1, "flesh_wounds": 2, "health": -3}, weapon=None)
    bare = with_fighter(bare, 1, armour_lives=(3, 2))
    bare = bare.model_copy(
        update={
            "fighters": (
                bare.fighters[0],
                bare.fighters[1].model_copy(update={"character": BRUTE.model_copy(update={"armour": (LEATHER, HELM)})}),
            )
        }
    )
    assert chain_size(bare) == 2 * (1 + 2 + 0 + 1) * 4 * ((b.dodges + b.flesh_wounds + b.health + 1) * 16 * 3)


def test_auto_is_exact_up_to_its_budget_and_simulates_past_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """auto builds the chain when its guessed size is at most AUTO_CHAIN_SIZE, else simulates and says why."""
    st = _one_blow(3)
    size = chain_size(st)
    monkeypatch.setattr(fc_module, "AUTO_CHAIN_SIZE", size)
    fc = SYSTEM.forecast(st)
    assert fc.method == "exact" and fc.notes[0].startswith("exact chain over")
    monkeypatch.setattr(fc_module, "AUTO_CHAIN_SIZE", size - 1)
    fc = SYSTEM.forecast(st, samples=300, seed=1)
    assert fc.method == "simulated" and fc.samples == 300
    words = f"simulated: the exact chain is too big for auto (estimated size {size:,}, over {size - 1:,}; "
    assert fc.notes[0].startswith(words)
    assert fc.notes[0].endswith("--method exact runs it)")
    # exact on demand, whatever the budget; simulated on demand, though the chain would fit
    assert SYSTEM.forecast(st, method="exact").method == "exact"
    monkeypatch.setattr(fc_module, "AUTO_CHAIN_SIZE", size)
    assert SYSTEM.forecast(st, method="simulate", samples=300).method == "simulated"


def test_auto_simulates_when_the_chain_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain past the state limit is refused; auto then simulates, and says so."""
    from storymaster.forecast import markov

    monkeypatch.setattr(markov, "MAX_STATES", 2)
    st = _mauls(3).model_copy(update={"round": 1, "order": ("Ann", "Bo")})
    fc = SYSTEM.forecast(st, samples=200, seed=2)
    assert fc.method == "simulated"
    assert fc.notes[0].startswith("simulated, because the exact chain was refused: the fight has more than 2 states")
    assert fc.notes[1] == "rounds are counted from round 1, where the saved fight stands"
    with pytest.raises(OddsError, match="more than 2 states"):
        SYSTEM.forecast(st, method="exact")


# ---------------------------------------------------------------- what the exact chain covers, and the refusals
def test_exact_applies_says_why_not() -> None:
    duel = _one_blow()
    assert exact_applies(duel) is None
    assert exact_applies(duel.model_copy(update={"over": True})) == "the fight is already over"
    trio = ENG.start([[ANN, BO], [BO]])
    assert exact_applies(trio) == "only a duel (one fighter against one) has a small enough chain"
    alone = duel.model_copy(update={"fighters": duel.fighters[:1]})  # a saved state edited down to one fighter
    assert exact_applies(alone) == "only a duel (one fighter against one) has a small enough chain"
    same_side = with_fighter(duel, 1, side=0)
    assert exact_applies(same_side) == "only a duel (one fighter against one) has a small enough chain"
    aimer = with_fighter(duel, 1, tactic="aim")
    assert exact_applies(aimer) == "Bo fights with tactic 'aim'; the chain covers fighters who attack every round"
    for pending in ({"counter_ready": True}, {"aim_bonus": 1}, {"aimed_this_round": 2}):
        assert exact_applies(with_fighter(duel, 0, **pending)) == "Ann has a counterattack or an aim pending"
    assert exact_applies(with_fighter(duel, 1, {"unconscious": True})) == "Bo is already down"
    far = duel.model_copy(update={"distance": 10})
    assert exact_applies(far) == "Ann must first close the distance"
    assert exact_applies(duel.model_copy(update={"distance": 5})) is None  # within melee reach (5 ft)
    bow_ann = with_fighter(far, 0, character=ANN.model_copy(update={"weapons": (BOW,)}))
    assert exact_applies(bow_ann) == "Bo must first close the distance"  # Ann's bow reaches; Bo's club does not
    bows = with_fighter(bow_ann, 1, character=BO.model_copy(update={"weapons": (BOW,)}))
    assert exact_applies(bows) is None
    wild = ENG.start(
        [[ANN], [ch("Bo", Weapon(name="Flail", damage="d6!", skill="Armed Combat"))]],
        house_rules=BlyssHouseRules(armour_contest_against="damage_roll"),
    )
    assert "exploding" in exact_applies(wild)
    assert exact_applies(wild.model_copy(update={"house_rules": BlyssHouseRules()})) is None


def test_damage_the_simulation_cannot_follow_is_refused_before_any_fight() -> None:
    """Exploding damage against the damage roll's best die is refused up front, even when the weapon would never land
    a blow in the fights sampled (its wielder's pool never meets TD 8: a d6 from Melee Attack 2, no skill)."""
    wild = Character(
        name="Wild",
        attributes=Attributes(strength=2, agility=2),
        weapons=(Weapon(name="Flail", damage="d6!", skill="Armed Combat"),),
    )
    st = ENG.start([[wild], [BO, BO.model_copy(update={"name": "Di"})]])
    st = st.model_copy(update={"house_rules": BlyssHouseRules(armour_contest_against="damage_roll")})
    with pytest.raises(OddsError, match="not simulated"):
        simulate_batch(st)
    with pytest.raises(OddsError, match="not simulated"):
        SYSTEM.forecast(st, samples=50)


def test_forecast_refusals() -> None:
    duel = _one_blow()
    with pytest.raises(OddsError, match="needs a BLYSS fight state"):
        SYSTEM.forecast(Attributes())
    with pytest.raises(OddsError, match="already over"):
        SYSTEM.forecast(duel.model_copy(update={"over": True}))
    with pytest.raises(OddsError, match="method is auto, exact or simulate, not 'guess'"):
        SYSTEM.forecast(duel, method="guess")
    for method in ("auto", "exact", "simulate"):
        with pytest.raises(OddsError, match="literal_ones"):
            SYSTEM.forecast(duel.model_copy(update={"house_rules": BlyssHouseRules(literal_ones=True)}), method=method)
    twins = with_fighter(duel, 1, id="Ann")
    with pytest.raises(OddsError, match="share a name"):
        SYSTEM.forecast(twins, samples=100)
    for order in (("Ann", "Ann"), ("Bo", "Bo"), ("Ann",)):
        with pytest.raises(OddsError, match="Initiative order"):
            SYSTEM.forecast(duel.model_copy(update={"round": 1, "order": order}))
    with pytest.raises(OddsError, match="no exact forecast for this fight: only a duel"):
        SYSTEM.forecast(ENG.start([[ANN, BO], [BO]]), method="exact")
    # round 0 with no order yet is fine, and so is an order listing each fighter once in any order
    assert SYSTEM.forecast(duel.model_copy(update={"round": 1, "order": ("Bo", "Ann")})).method == "exact"


def test_simulated_forecast_samples_seed_and_notes() -> None:
    """An explicit sample count runs exactly that many; the same seed gives the same figures; a saved fight's
    round is noted; a fight that is no duel is simulated by auto."""
    team = _two_on_one()
    a = SYSTEM.forecast(team, samples=700, seed=4)
    assert a.method == "simulated" and a.samples == 700 and a.seed == 4
    assert a.notes == ("rounds are counted from round 1, where the saved fight stands",)
    assert a.to_json() == SYSTEM.forecast(team, samples=700, seed=4).to_json()
    assert a.to_json() != SYSTEM.forecast(team, samples=700, seed=5).to_json()
    assert a.sides == (("Ann", "Cy"), ("Bo",)) and a.tactics == {"A": "attack", "B": "attack"}
    assert sum(a.p_win) + a.p_draw == pytest.approx(1.0)
    fresh = ENG.start([[ANN], [BO, BO]])
    assert SYSTEM.forecast(fresh, samples=300).notes == ()
    adaptive = SYSTEM.forecast(_mauls(3).model_copy(update={"round": 0}), method="simulate")
    assert 2_000 <= adaptive.samples <= 100_000  # samples None: adaptive, until the intervals are within 1%


def test_the_exact_forecasts_notes() -> None:
    st = _mid_fight(_one_blow(5))
    fc = SYSTEM.forecast(st, method="exact")
    # the states the chain expands: before Bo's blow (Bo acts first: the slower declares first) and before Ann's;
    # the ends are not expanded
    assert fc.notes[0] == "exact chain over 2 duel states"
    assert fc.notes[1] == "rounds are counted from round 2, where the saved fight stands"
    # the cap: q**3 of the fights still going after rounds 3, 4 and 5 (each round neither falls)
    pa, pb = 27 / 80, 5 / 48
    q = (1 - pa) * (1 - pb)
    assert fc.notes[2] == f"{q**3:.2e} of the fights are still going at the cap of 5 rounds"
    assert fc.p_draw == pytest.approx(q**3, abs=1e-12) and fc.rounds[3] == pytest.approx(q**2, abs=1e-12)
    assert fc.draw_meaning.startswith("draw (nobody left standing, or a stand-off")
    fresh = SYSTEM.forecast(_one_blow(100), method="exact")
    assert len(fresh.notes) == 1 and fresh.error < 1e-12  # q**100: below the tolerance, no cap note


def test_tactic_words_per_side() -> None:
    di, ed = (BO.model_copy(update={"name": n}) for n in ("Di", "Ed"))
    opts = {"tactic": {"Di": "disarm"}, "called_shot": {"Ed": "limb", "Ann": "head"}}
    st = ENG.start([[ANN], [BO, di, ed]], options=opts)
    fc = SYSTEM.forecast(st, samples=100)
    assert dict(fc.tactics) == {
        "A": "attack (called shot: head)",
        "B": "attack, disarm, attack (called shot: limb)",
    }
    same = ENG.start([[ANN], [BO, di]], options={"tactic": ["attack", "defensive"]})
    assert dict(SYSTEM.forecast(same, samples=100).tactics) == {"A": "attack", "B": "defensive"}


def test_end_state_words() -> None:
    st = _first_round()
    f = st.fighters[0]
    v = f.vitals
    assert end_state(f) == "unhurt"
    hurt = with_fighter(st, 0, {"dodges": 0, "flesh_wounds": v.max_flesh_wounds - 1}).fighters[0]
    assert end_state(hurt) == "Flesh Wounds"
    scratched = with_fighter(st, 0, {"dodges": v.max_dodges - 1}).fighters[0]
    assert end_state(scratched) == "Healthy"  # a Dodge gone: hurt, but still Healthy
    # Table 2-03 with 30 Health: a third lost (20 left) is Light Wounds, two thirds (10 left) Moderate, below 10 Heavy
    for health, word in ((20, "Light Wounds"), (10, "Moderate Wounds"), (9, "Heavy Wounds")):
        at = {"max_health": 30, "health": health, "flesh_wounds": 0, "dodges": 0}
        assert end_state(with_fighter(st, 0, at).fighters[0]) == word
    down = {"unconscious": True}
    assert end_state(with_fighter(st, 0, down).fighters[0]) == "unconscious"
    assert end_state(with_fighter(st, 0, {**down, "stabilised": True}).fighters[0]) == "stabilised"
    assert end_state(with_fighter(st, 0, {**down, "dying": True}).fighters[0]) == "dying"
    assert end_state(with_fighter(st, 0, {**down, "coma": True, "dying": True}).fighters[0]) == "coma"
    assert end_state(with_fighter(st, 0, {**down, "dead": True, "coma": True}).fighters[0]) == "dead"


# ---------------------------------------------------------------- vectorised.py's tables and samplers
def test_each_row_calls_the_rule_once_per_distinct_row_dense_and_sparse() -> None:
    """each_row: the rule called once for each distinct row, and every row pointed at its own result, both for a
    small key space (a dense table) and one past 2**20 codes (sorted)."""
    from storymaster.systems.blyss.vectorised import each_row

    rng = np.random.default_rng(3)
    for high in (4, 300):  # 4**3 codes: dense; 300**3 = 27,000,000 > 2**20: the sorted path
        keys = rng.integers(0, high, size=(500, 3))
        keys[0] = (high - 1, 0, high - 1)  # the largest values in some column are met
        calls: list[tuple[int, ...]] = []

        def rule(*row: int, calls: list = calls) -> tuple[int, ...]:
            calls.append(row)
            return row

        results, inv = each_row(keys, rule)
        distinct = {tuple(int(x) for x in r) for r in keys}
        assert sorted(calls) == sorted(distinct) and len(calls) == len(distinct)
        assert [results[i] for i in inv] == [tuple(int(x) for x in r) for r in keys]
        assert all(isinstance(x, int) for row in calls for x in row)
    one = np.array([[5], [0], [5]])
    results, inv = each_row(one, lambda x: x * 10)
    assert [results[i] for i in inv] == [50, 0, 50]


def test_lookup_pools_pads_each_pool_with_no_dice() -> None:
    from storymaster.systems.blyss.vectorised import lookup_pools

    pools = {0: ((8, 6, 4), -1, 7), 1: ((10,), 0, 3), 2: ((), 0, 0)}
    sides, dm, rank = lookup_pools(np.array([[1], [0], [2], [1]]), lambda k: pools[k])
    assert sides.tolist() == [[10, 0, 0], [8, 6, 4], [0, 0, 0], [10, 0, 0]]
    assert dm.tolist() == [0, -1, 0, 0] and rank.tolist() == [3, 7, 0, 3]
    sides, dm, rank = lookup_pools(np.array([[2], [2]]), lambda k: pools[k])  # no dice anywhere: one empty column
    assert sides.tolist() == [[0], [0]] and dm.tolist() == [0, 0] and rank.tolist() == [0, 0]
    sides, dm, rank = lookup_pools(np.zeros((0, 2), dtype=np.int64), lambda *k: pools[0])
    assert sides.shape == (0, 1) and dm.shape == (0,) and rank.shape == (0,)
    assert sides.dtype == dm.dtype == rank.dtype == np.int64


def test_damage_sampler_without_the_best_face() -> None:
    """The plain total (armour against the attack dice): 2d6+1 averages 8 (each d6 3.5), within 5 standard errors of
    20,000 rolls (a 2d6's variance 35/6); the 'best face' is the total then. A set number is that number for every
    fight; exploding dice are simulated; 0d6 is 0 even with the best face wanted."""
    from storymaster.systems.blyss.vectorised import DamageSampler

    n = 20_000
    total, best = DamageSampler("2d6+1", want_best=False).roll(n, np.random.default_rng(1))
    assert total.shape == (n,) and total.min() == 3 and total.max() == 13 and (best == total).all()
    assert abs(total.mean() - 8) < 5 * math.sqrt(35 / 6 / n)
    total, best = DamageSampler("7", want_best=False).roll(4, np.random.default_rng(1))
    assert total.tolist() == [7, 7, 7, 7] and best.tolist() == [7, 7, 7, 7]
    total, _ = DamageSampler("d6!", want_best=False).roll(n, np.random.default_rng(2))
    assert total.max() > 6 and total.min() == 1
    total, best = DamageSampler("0d6+2", want_best=True).roll(3, np.random.default_rng(1))
    assert total.tolist() == [2, 2, 2] and best.tolist() == [2, 2, 2]
    for expr in ("4dF", "d6/2", "4d6k3"):
        with pytest.raises(OddsError, match=r"damage '.*' with the armour contest against the damage roll"):
            DamageSampler(expr, want_best=True)
        DamageSampler(expr, want_best=False)  # simulated when the best face is not wanted


def test_pick_target_with_nobody_standing_and_ties() -> None:
    """The fewest vitals left, the first listed on a tie; -1 where no enemy stands."""
    from storymaster.systems.blyss.vectorised import pick_target_v

    enemy = np.array([[False, False, False], [True, True, True], [False, True, True], [True, False, True]])
    total = np.array([[1, 1, 1], [5, 5, 5], [9, 4, 4], [3, 0, 2]])
    assert pick_target_v(enemy, total).tolist() == [-1, 0, 1, 2]
    huge = np.array([[True, True]])
    assert pick_target_v(huge, np.array([[10**12, 10**12 - 1]])).tolist() == [1]


@pytest.mark.parametrize("rule", ["defender", "reroll"])
def test_a_drawn_defence_goes_to_the_defender_or_is_rolled_again(rule: str) -> None:
    """The simulation's Defend/Evade contest by hand (house rule defence_draw). The attacker's d8 is judged at TD 5
    (faces 5-8: one success, 1/2; the first roll is a success, an 8), the defender's d6 at TD 4 (4-6: one success, 1/2).
    First roll: the attacker wins when the defender fails (1/2), else 1 against 1 is a draw. To the defender: the hit
    stands 1/2 of the time, and the defender's roll succeeded in the other half (the draw, 1 against 1). Rolled
    again: each new roll is a win for either side 1/4, a draw 1/2, so the re-rolls go either way evenly: the hit
    stands 1/2 + 1/2 * 1/2 = 3/4, and the defender's last roll succeeded when they won, 1/4 (20 re-rolls at most:
    a draw left 2**-20)."""
    st = _first_round().model_copy(update={"house_rules": BlyssHouseRules(defence_draw=rule)})
    sim = _Sim(_Roster(st))
    n = 20_000
    col = np.ones(n, dtype=np.int64)
    stands, d_ok = sim._contest(
        np.full((n, 1), 8), np.full((n, 1), 8), 0 * col, np.full((n, 1), 6), 0 * col, 4 * col, 5 * col,
        np.random.default_rng(9),
    )  # fmt: skip
    p_stand, p_ok = (0.75, 0.25) if rule == "reroll" else (0.5, 0.5)
    assert within(p_stand, stands.mean(), n) and within(p_ok, d_ok.mean(), n)
    assert not (stands & d_ok).any() if rule == "reroll" else True  # a re-rolled contest ends with one winner


def test_initiative_order_by_successes_then_value_then_rank_then_the_tie_break() -> None:
    """initiative_order_v against checks.initiative_order (the sort roll_initiative makes), two fighters, every key
    of successes 0-1, value 5-9 and rank 0-3: a higher value must beat a higher rank whatever the two add up to."""
    from storymaster.systems.blyss.checks import InitiativeRoll, initiative_order
    from storymaster.systems.blyss.vectorised import initiative_order_v

    keys = list(itertools.product(range(2), range(5, 10), range(4)))
    rows = list(itertools.product(keys, repeat=2))
    cols = [np.array([[r[k][i] for k in range(2)] for r in rows]) for i in range(3)]
    tb = np.array([[-k for k in range(2)] for _ in rows])
    got = initiative_order_v(*cols, tb)
    for n, (r, g) in enumerate(zip(rows, got, strict=True)):
        rolls = [InitiativeRoll(str(k), *r[k], int(tb[n, k]), None) for k in range(2)]
        assert [int(x.name) for x in initiative_order(rolls)] == list(g), r


def test_damage_sampler_with_a_minus_keeps_the_best_face() -> None:
    """d4-1 against the damage roll: the total is the face less one, the best face the face (every face met)."""
    from storymaster.systems.blyss.vectorised import DamageSampler

    total, best = DamageSampler("d4-1", want_best=True).roll(400, np.random.default_rng(4))
    assert set(best.tolist()) == {1, 2, 3, 4} and (total == best - 1).all() and total.dtype == np.int64
    total, best = DamageSampler("2d4-3", want_best=True).roll(400, np.random.default_rng(4))
    assert total.min() == -1 and total.max() == 5 and (best <= total + 3 - 1).all()


def test_initiative_among_three_is_the_engines_rolled_initiative() -> None:
    """Initiative among three (which nothing enumerates exactly): the simulation's orders against the engine's own
    Initiative roll (round.InitiativeRoll, rolled 3,000 times with the fight's dice; the simulation 20,000 times),
    within 5 standard errors of the two samples together; a wounded fighter (Flesh Wounds, -1 a die) among them."""
    from storymaster.dice import DiceRng
    from storymaster.systems.blyss.round import InitiativeRoll

    cy = ch("Cy", SWORD, wits=4, agility=2, stamina=2)
    st = with_fighter(ENG.start([[KNIGHT, cy], [BRUTE]]), 2, {"dodges": 0})
    n, m = 3_000, 20_000
    R = Roster(st)
    event = InitiativeRoll(R.ids, tuple(R.pool_of("init", k, m)[0] for k, m in enumerate(to_state(st).fighters)), R.hr)
    rng = DiceRng("initiative among three")
    engine_orders: dict[tuple, float] = {}
    for _ in range(n):
        o = event.sample(rng).order
        engine_orders[o] = engine_orders.get(o, 0.0) + 1 / n
    sim = _Sim(_Roster(st))
    S = sim._start(m)
    sim._initiative(S, np.random.default_rng(13))
    sim_orders: dict[tuple, float] = {}
    for row in S["order"].tolist():
        sim_orders[tuple(row)] = sim_orders.get(tuple(row), 0.0) + 1 / m
    assert len(engine_orders) >= 4
    for o in set(engine_orders) | set(sim_orders):
        p, q = engine_orders.get(o, 0.0), sim_orders.get(o, 0.0)
        pm = (p + q) / 2
        assert abs(p - q) <= 5 * math.sqrt(pm * (1 - pm) * (1 / n + 1 / m)) + 2 / n, (o, p, q)


def test_sm_order_leaves_a_last_initiative_tie_in_listing_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """House rule initiative_final_tie='sm_order' (options.py: 'the order most convenient for the SM'; the engine,
    checks.roll_initiative, leaves a last tie in listing order: tie-break -i, the higher first). Two fighters with
    the same sheet (same pool, same Initiative rank) and every die rolled to its top face: same successes, same
    value, same rank in every row, a last tie everywhere, so the first listed (0) goes first in every row."""
    monkeypatch.setattr(fc_module, "_roll", lambda sides, gen: sides.copy())
    a, b = ch("A", SWORD, wits=3, agility=3), ch("B", SWORD, wits=3, agility=3)
    st = ENG.start([[a], [b]])
    st = st.model_copy(update={"house_rules": BlyssHouseRules(initiative_final_tie="sm_order")})
    sim = _Sim(_Roster(st))
    S = sim._start(50)
    sim._initiative(S, np.random.default_rng(3))
    assert S["order"].tolist() == [[0, 1]] * 50


def test_declarations_of_a_defender_an_aimer_and_a_disarmer_in_one_batch() -> None:
    """declare_v with three rows in one call, fighter 0 against fighter 1 (enemies, both up, in melee reach, weapons
    in hand, no aim bonus, no counterattack ready), by round._declare's rule: row 0, tactic 'defensive', and 1 has
    declared an Attack on 0: 0 defends (DEFEND, weapon in hand) against 1; row 1, tactic 'aim', no aim bonus yet:
    0 aims (AIM) at 1; row 2, tactic 'disarm', the target holds a weapon: DISARM 1. The defender's row must not
    change what the others declare."""
    from storymaster.systems.blyss.vectorised import AIM, ATTACK, DEFEND, DISARM, NONE, declare_v

    n = 3
    f, t = np.zeros(n, dtype=bool), np.ones(n, dtype=bool)
    declared = np.array([[NONE, ATTACK], [NONE, NONE], [NONE, NONE]])
    declared_on = np.array([[-1, 0], [-1, -1], [-1, -1]])
    kind, tgt = declare_v(
        np.zeros(n, dtype=np.int64),
        np.ones(n, dtype=np.int64),
        np.array([[False, True], [True, False]]),
        np.ones((n, 2), dtype=bool),
        declared,
        declared_on,
        f,
        t,
        f,
        f,
        np.array([1, 2, 3]),
        f,
        np.zeros(n, dtype=np.int64),
        t,
    )
    assert kind.tolist() == [DEFEND, AIM, DISARM] and tgt.tolist() == [1, 1, 1]
