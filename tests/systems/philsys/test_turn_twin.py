"""The simulation's turn over arrays (:mod:`storymaster.systems.philsys.twins`) is the round's turn
(:func:`.round.play_turn`, :func:`.round.choose`): on every input of a small domain, the same choice, and
with the same dice the same fight afterwards (issue 14: the turn's sequence stated once, its twin tested)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from storymaster.systems.philsys import SYSTEM
from storymaster.systems.philsys.character import Character
from storymaster.systems.philsys.combat import setup
from storymaster.systems.philsys.options import PhilsysHouseRules
from storymaster.systems.philsys.round import (
    CAST,
    HEAL,
    MELEE,
    SHOOT,
    Body,
    Die,
    Opposed,
    Roll,
    choose,
    decided,
    play_turn,
)
from storymaster.systems.philsys.twins import Fights, choose_v

CASTER = {
    "name": "Caster",
    "stats": {"COU": 2, "INT": 3, "AGI": 2, "DEX": 2, "STR": 1, "STA": 1, "MAG": 4},
    "skills": [{"name": "Ranged (Bows)", "category": "missile", "rank": 3}],
    "equipment": {"missile": {"name": "Bow", "accuracy": 9, "damage": "2d6+2", "skill": "Ranged (Bows)"}},
    "abilities": [
        {"name": "Bolt", "cost": {"mp": 4}, "effect": {"kind": "attack", "damage": "6+1d8"}},
        {"name": "Bash", "cost": {"tp": 2, "hp": 3}, "effect": {"kind": "attack", "damage": "8+1d6", "magical": False}},
        {"name": "Mend", "cost": {"mp": 2}, "effect": {"kind": "heal", "damage": "4+1d6"}},
    ],
}
KNIGHT = {
    "name": "Knight",
    "stats": {"COU": 3, "AGI": 3, "STR": 3, "STA": 2},
    "skills": [{"name": "Melee Weapon (Swords)", "category": "melee", "rank": 4, "at_ranks": 2}],
    "equipment": {
        "weapon": {"name": "Sword", "damage": [8, 11, 14], "skill": "Melee Weapon (Swords)"},
        "armor": {"name": "Mail", "ac": 8},
        "shield": {"name": "Buckler", "ac": 6, "pa": 2, "at": -1},
    },
}


def _setup(sides, hr, **options):
    chars = [[Character.model_validate(d) for d in side] for side in sides]
    return setup(SYSTEM.combat.start(chars, house_rules=hr, options=options))


def _fights(su, rows: list[tuple[Body, ...]], dice) -> Fights:
    """Fights with one row per tuple of bodies."""
    f = Fights(su, rows[0], len(rows), dice)
    for k in range(len(rows[0])):
        bs = [r[k] for r in rows]
        f.HP[:, k], f.MP[:, k], f.TP[:, k] = [b.hp for b in bs], [b.mp for b in bs], [b.tp for b in bs]
        f.LOSE[:, k], f.UNC[:, k], f.DEAD[:, k] = (
            [b.lose_turn for b in bs],
            [b.unconscious for b in bs],
            [b.dead for b in bs],
        )
        f.WAKE[:, k] = [-1 if b.wake_in is None else b.wake_in for b in bs]
        f.HEAVY[:, k], f.PARRIED[:, k] = [b.heavy_wound for b in bs], [b.parried for b in bs]
        f.SB[:, k] = [b.shield_broken and su.specs[k].shield is not None for b in bs]
    return f


@pytest.mark.parametrize("tactic", ["auto", "magic", "missile", "melee"])
def test_choose_twin_in_a_two_against_two(tactic: str) -> None:
    """Heal the most hurt ally at a quarter of max HP (the dead are not healed), else attack the standing
    enemy with the fewest HP (the first on ties) with the first affordable spell or tech (an HP cost needs
    more HP than it takes), else shoot, else melee: the twin picks the same on every combination."""
    su = _setup([[CASTER, KNIGHT], [KNIGHT, KNIGHT]], PhilsysHouseRules(), tactics={"Caster": tactic})
    top0, top1 = su.specs[0].top, su.specs[1].top
    rows = []
    for hp0, mp0, tp0, hp1, dead1, hp2, down2, hp3 in itertools.product(
        (1, 3, 4, top0 // 4, top0),
        (0, 2, 4),
        (0, 2),
        (-3, top1 // 4, top1 // 4 + 1),
        (False, True),
        (5, 9),
        (False, True),
        (5, 9),
    ):
        rows.append(
            (
                Body(hp0, mp0, tp0),
                Body(hp1, 0, 0, dead=dead1, unconscious=dead1),
                Body(hp2, 0, 0, unconscious=down2),
                Body(hp3, 0, 0),
            )
        )
    what, q, target = choose_v(_fights(su, rows, None), 0, np.arange(len(rows)))
    s = su.specs[0]
    seen = set()
    for n, bodies in enumerate(rows):
        w, j, a = choose(su, bodies, 0)
        ability = {HEAL: s.heals, CAST: s.spells}.get(w, (None,))[q[n]]
        assert (w, j, a) == (what[n], target[n], ability), bodies
        seen.add(w)
    want = {"auto": {HEAL, CAST, SHOOT}, "magic": {HEAL, CAST, MELEE}, "missile": {SHOOT}, "melee": {MELEE}}
    assert seen == want[tactic]  # the domain reaches every choice the tactic allows


class _Faces:
    """A dice generator that hands out given faces (for the d20s of an opposed roll)."""

    seed, stream, counter = "twin", "", 0

    def __init__(self, faces: list[int]):
        self.faces = faces

    def die(self, sides: int) -> int:
        self.counter += 1
        return self.faces.pop(0)


class _SameDice:
    """Each fight's faces, by what they are for: the scalar turn's chance (``draw``) and the twin's dice."""

    narrate = False

    def __init__(self, table: dict[str, np.ndarray]):
        self.table, self.row = table, 0

    def draw(self, event):
        t, r = self.table, self.row
        if isinstance(event, Opposed):  # the engine's own roll: attacker's d20, then the defender's
            return event.sample(_Faces([int(t["attack"][r]), int(t["defence"][r])]))
        assert isinstance(event, Roll)
        if event.label.startswith("head shot"):
            return Die(int(t["head"][r]))
        if event.label.startswith("limb"):
            return Die(6)  # the simulation does not track disabled limbs (they change nothing in a fight)
        return Die(int(t["amount"][r]))

    def d(self, sides: int, rows: np.ndarray, what: str) -> np.ndarray:
        return self.table[what][rows]

    def roll(self, expression: str, rows: np.ndarray, what: str) -> np.ndarray:
        return self.table["amount"][rows]


def _state(f: Fights, n: int, k: int, has_shield: bool) -> tuple:
    return (
        int(f.HP[n, k]),
        int(f.MP[n, k]),
        int(f.TP[n, k]),
        bool(f.LOSE[n, k]),
        bool(f.UNC[n, k]),
        bool(f.DEAD[n, k]),
        int(f.WAKE[n, k]),
        bool(f.HEAVY[n, k]),
        bool(f.SB[n, k]) and has_shield,
        bool(f.PARRIED[n, k]),
    )


def _body_state(b: Body, has_shield: bool) -> tuple:
    wake = -1 if b.wake_in is None else b.wake_in
    return (
        b.hp,
        b.mp,
        b.tp,
        b.lose_turn,
        b.unconscious,
        b.dead,
        wake,
        b.heavy_wound,
        b.shield_broken and has_shield,
        b.parried,
    )


HOUSE = [
    PhilsysHouseRules(),
    PhilsysHouseRules(
        heavy_wound_penalty=4,
        shield_breaks=True,
        near_miss_half_damage=True,
        unparried_attacks_hit_automatically=True,
        critical_margin=8,
        critical_health_missile=True,
        critical_health_threshold=12,
        death_threshold=-4,
    ),
]


def _compare(su, rows: list[tuple[Body, ...]], faces: list[tuple[int, ...]], acting: tuple[int, ...]) -> set:
    """Every row of bodies with every row of faces: fighter k's turn, scalar and twin, for k in ``acting``.
    Returns the (fighter, choice) the scalar turns made (so a test can see its domain reaches them)."""
    pairs = list(itertools.product(rows, faces))
    bodies_of = [b for b, _ in pairs]
    cols = zip(*(fc for _, fc in pairs), strict=True)
    table = {w: np.asarray(c) for w, c in zip(("attack", "defence", "amount", "head"), cols, strict=True)}
    shields = [s.shield is not None for s in su.specs]
    seen = set()
    for k in acting:
        dice = _SameDice(table)
        f = _fights(su, bodies_of, dice)
        f.play_turn(k, np.arange(len(pairs)))
        for n, bodies in enumerate(bodies_of):
            dice.row = n
            after = play_turn(su, bodies, k, dice)
            if bodies[k].active and not bodies[k].lose_turn and not decided(bodies, su.specs):
                seen.add((k, choose(su, bodies, k)[0]))
            for x in range(len(bodies)):
                assert _state(f, n, x, shields[x]) == _body_state(after[x], shields[x]), (k, x, bodies, pairs[n][1])
    return seen


@pytest.mark.parametrize(
    ("hr", "tactic", "aim"), [(HOUSE[0], "auto", "head"), (HOUSE[1], "magic", None), (HOUSE[1], "missile", "limb")]
)
def test_play_turn_twin_with_the_same_dice(hr: PhilsysHouseRules, tactic: str, aim: str | None) -> None:
    """Both fighters' turns, every combination of the domain's states and faces: the scalar turn and the
    twin leave the same fight (HP, MP, TP, lost turn, unconscious, dead, waking, heavy wound, shield, parry)."""
    options = {"tactics": {"side0": tactic}} | ({"aim": {"side0": aim}} if aim else {})
    su = _setup([[CASTER], [KNIGHT]], hr, **options)
    top0, top1 = su.specs[0].top, su.specs[1].top
    rows = []
    for hp0, mp0, tp0, status, hp1, parried1, broken1 in itertools.product(
        (2, top0 // 4 + 1, top0),  # HP: a heal and an HP cost out of reach, critical health, unhurt
        (0, 2, 6),  # MP: nothing, a heal, a spell
        (0, 2),  # TP
        ("up", "lost turn", "down"),  # standing, a lost turn to sit out, unconscious (waking in 2)
        (3, top1),  # the knight's HP
        (False, True),  # the knight's parry used
        (False, True),  # the knight's shield broken
    ):
        down0 = status == "down"
        a = Body(hp0, mp0, tp0, lose_turn=status == "lost turn", unconscious=down0, wake_in=2 if down0 else None)
        rows.append((a, Body(hp1, 0, 0, parried=parried1, shield_broken=broken1)))
    faces = list(itertools.product((1, 6, 16, 20), (1, 20), (0, 13, 40), (1, 6)))
    want = {"auto": {HEAL, CAST, SHOOT}, "magic": {HEAL, CAST, MELEE}, "missile": {SHOOT}}
    assert _compare(su, rows, faces, (0, 1)) == {(0, w) for w in want[tactic]} | {(1, MELEE)}


@pytest.mark.parametrize("hr", HOUSE, ids=["book", "house"])
def test_play_turn_twin_on_every_pair_of_d20s(hr: PhilsysHouseRules) -> None:
    """Every attack and defence face (every margin: criticals, ties, near misses) for a spell, a tech and
    melee both ways, parried or not."""
    su = _setup([[CASTER], [KNIGHT]], hr, tactics={"side0": "magic"})
    top0, top1 = su.specs[0].top, su.specs[1].top
    rows = [
        (Body(hp0, mp0, tp0), Body(top1, 0, 0, parried=parried))
        for hp0, (mp0, tp0), parried in itertools.product(
            (top0 // 4 + 1, top0), ((6, 0), (0, 2), (0, 0)), (False, True)
        )
    ]
    faces = list(itertools.product(range(1, 21), range(1, 21), (0, 13), (6,)))
    assert _compare(su, rows, faces, (0, 1)) == {(0, CAST), (0, MELEE), (1, MELEE)}


def test_play_turn_twin_heals_an_ally_and_wakes_them() -> None:
    """A heal on an unconscious ally brought above 0 HP sets their waking (10 - STA rounds); on the dead, none."""
    hr = PhilsysHouseRules(death_threshold=-4)
    su = _setup([[CASTER, KNIGHT], [KNIGHT]], hr)
    top1 = su.specs[1].top
    rows = []
    for hp1, down1, wake1, mp0 in itertools.product((-3, 0, 1, top1 // 4), (False, True), (None, 3), (0, 2)):
        ally = Body(hp1, 0, 0, unconscious=down1 or hp1 <= 0, wake_in=wake1)
        rows.append((Body(30, mp0, 0), ally, Body(9, 0, 0)))
    rows.append((Body(30, 2, 0), Body(-5, 0, 0, unconscious=True, dead=True), Body(9, 0, 0)))
    faces = list(itertools.product((1, 20), (1, 20), (0, 2, 5), (6,)))
    assert _compare(su, rows, faces, (0,)) == {(0, HEAL), (0, SHOOT)}
