"""One round of a B.U.M. fight, stated once (issue 14): the engine plays it with the dice, the exact chain lists it.

* Level 1: each player-side fighter rolls his best attack total against the GM's DC.
* Level 2: opposed rolls; the loser of a roll loses the fight (or a wound: ``loser_fate``).
* Level 3: opposed rolls; the loser of each roll loses a hit point; 0 HP is out.
* Level 4: turns in order; each attack is rolled against the target's defence
  (melee or ranged); a hit deals the weapon's wounds (1, the musket 2).

:func:`next_state` is the round: a plain function of the fight's :class:`Setup` (what a round never changes), its
:data:`RoundState` (a hashable tuple: what it does change) and a :class:`~storymaster.forecast.chance.Chance`.
Everything random is an event drawn from the chance: an opposed roll to its end (:class:`Opposed`), a roll
against a difficulty (:class:`Fixed`) or a rolled turn order (:class:`RolledOrder`). The engine
(:func:`play_round`) draws them with the fight's dice generator, in the order it always rolled them, and writes
the log; the forecast's exact chain enumerates the same function with every outcome and its chance.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import product
from typing import Any, Literal, NamedTuple

from ...dice import DiceRng, RollRecord
from ...forecast.chance import Chance, Rolled
from ...rules import Event
from .character import (
    BumCharacter,
    Readiness,
    Slot,
    Stat,
    WeaponProfile,
    attack_parts,
    defence_parts,
    hit_points,
    profile,
)
from .checks import Role, d6, fixed_succeeds, p_fixed, p_opposed_final, range_penalty, roll_opposed, tie_goes_to
from .fighters import (
    UNARMED,
    Fighter,
    FightState,
    gm_order,
    melee_slot,
    missile_of,
    reload_actions,
    set_down,
    simple_bonus,
)
from .options import BumHouseRules

__all__ = [
    "Card",
    "Fixed",
    "Opposed",
    "Roll",
    "RolledOrder",
    "RoundState",
    "Setup",
    "TurnOrder",
    "advance",
    "after_shot",
    "card",
    "delayed",
    "exchange",
    "level_after_switch",
    "level_event",
    "next_state",
    "p_ok",
    "pick_target",
    "play_round",
    "reload_step",
    "sides_left",
    "strikes_first",
    "tied_groups",
    "uses_missile",
]

#: what a round changes: (round, level, turn order or None before it is settled, distance, then per fighter:
#: hit points, weapon in hand, missile readiness, reload steps done, ammunition (None: not counted), stun)
RoundState = tuple[
    int,
    int,
    tuple[int, ...] | None,
    int,
    tuple[int, ...],
    tuple[Slot | None, ...],
    tuple[Readiness, ...],
    tuple[int, ...],
    tuple[int | None, ...],
    tuple[int, ...],
]


# --------------------------------------------------------------------------- the cards


class Card:
    """What a round reads from one character card, worked out once per card (cards are frozen)."""

    __slots__ = ("_att", "_def", "_hand", "bonus", "character", "max_hp", "melee", "missile", "player")

    def __init__(self, c: BumCharacter, hr: BumHouseRules) -> None:
        probe = Fighter(name=c.name, side=0, character=c, hp=0)
        self.character = c
        self.player = not c.npc
        self.max_hp = hit_points(c)
        self.bonus = simple_bonus(c, hr)  # levels 1-3
        self.melee: Slot | None = melee_slot(probe)
        self.missile: WeaponProfile | None = missile_of(probe)
        self._att: dict[Slot, tuple[list[tuple[str, int]], int]] = {}
        self._def: dict[tuple[bool, Slot | None, bool], tuple[list[tuple[str, int]], int]] = {}
        self._hand: dict[Slot | None, WeaponProfile] = {}

    def in_hand(self, wielding: Slot | None) -> WeaponProfile:
        """The weapon in hand (before his first turn: his melee weapon; see :func:`.fighters.in_hand`)."""
        w = self._hand.get(wielding)
        if w is None:
            slot = wielding or self.melee
            w = self._hand[wielding] = (profile(self.character, slot) if slot else None) or UNARMED
        return w

    def attack(self, slot: Slot) -> tuple[list[tuple[str, int]], int]:
        """The attack parts with the weapon in ``slot`` and their total (do not change the list)."""
        a = self._att.get(slot)
        if a is None:
            parts = attack_parts(self.character, slot)
            a = self._att[slot] = (parts, sum(v for _, v in parts))
        return a

    def defence(self, ranged: bool, wielding: Slot | None, armour: bool = True) -> tuple[list[tuple[str, int]], int]:
        """The defence parts against a ranged or melee attack, with the weapon in hand, and their total."""
        key = (ranged, wielding, armour)
        d = self._def.get(key)
        if d is None:
            parts = defence_parts(self.character, ranged=ranged, weapon=self.in_hand(wielding), armour=armour)
            d = self._def[key] = (parts, sum(v for _, v in parts))
        return d


_CARDS: dict[tuple[int, str], Card] = {}


def card(c: BumCharacter, hr: BumHouseRules) -> Card:
    """The :class:`Card` of a character (cached by identity: cards are frozen)."""
    key = (id(c), hr.simple_combat_bonuses)
    hit = _CARDS.get(key)
    if hit is not None and hit.character is c:
        return hit
    if len(_CARDS) > 4096:
        _CARDS.clear()
    made = _CARDS[key] = Card(c, hr)
    return made


@dataclass(frozen=True)
class Setup:
    """What no round of a fight changes: the fighters' cards, sides, tactics and targets, and the fight's options."""

    names: tuple[str, ...]
    sides: tuple[int, ...]
    cards: tuple[Card, ...]
    tactics: tuple[str, ...]
    targets: tuple[int, ...]  # index of his chosen target, -1 for none
    surprised: tuple[bool, ...]
    hr: BumHouseRules
    dc: int
    sneak_dc: int
    sneak_headshot: bool
    initiator: int
    initiative: str
    delay: tuple[tuple[int, int], ...]
    switch: tuple[tuple[int, int], ...]
    gm: tuple[int, ...]  # the GM's turn order (from the state this setup was made from)
    max_rounds: int
    # the level 1-3 events of each fighter (and pair): made once, drawn every round
    _fixed: dict[int, Fixed] = field(default_factory=dict, compare=False, repr=False)
    _pairs: dict[tuple[int, int], Opposed] = field(default_factory=dict, compare=False, repr=False)
    _attacks: dict[tuple[int, int, int, int], Opposed] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, s: FightState) -> Setup:
        names = tuple(f.name for f in s.fighters)
        index = {n: i for i, n in enumerate(names)}
        return cls(
            names=names,
            sides=tuple(f.side for f in s.fighters),
            cards=tuple(card(f.character, s.house_rules) for f in s.fighters),
            tactics=tuple(f.tactic for f in s.fighters),
            targets=tuple(index.get(f.target, -1) if f.target else -1 for f in s.fighters),
            surprised=tuple(n in s.surprised for n in names),
            hr=s.house_rules,
            dc=s.dc,
            sneak_dc=s.sneak_dc,
            sneak_headshot=s.sneak_headshot,
            initiator=s.initiator,
            initiative=s.initiative,
            delay=tuple((index[w], index[a]) for w, a in s.delay),
            switch=s.switch,
            gm=tuple(index[n] for n in gm_order(s)) if s.round == 0 and s.initiative == "gm" else (),
            max_rounds=s.max_rounds,
        )

    def fight_roll(self, i: int) -> Fixed:
        """Level 1: fighter ``i``'s roll of his simple bonus against the GM's DC."""
        event = self._fixed.get(i)
        if event is None:
            event = self._fixed[i] = Fixed(self.cards[i].bonus, self.dc, f"{self.names[i]} fight roll")
        return event

    def exchange(self, i: int, t: int) -> Opposed:
        """Levels 2-3: the opposed roll fighter ``i`` starts against ``t`` (ruling 1: at these levels the side that
        did not start the fight counts as the defender for the tie rule)."""
        event = self._pairs.get((i, t))
        if event is None:
            labels = (f"{self.names[i]} fight roll", f"{self.names[t]} fight roll")
            event = exchange(self.hr, self.sides[i] == self.initiator, self.cards[i], self.cards[t], labels)
            self._pairs[i, t] = event
        return event

    def attack(self, i: int, t: int, attack: int, defence: int) -> Opposed:
        """Level 4: ``i``'s attack total against ``t``'s defence total, an opposed roll (made once, drawn often)."""
        key = (i, t, attack, defence)
        event = self._attacks.get(key)
        if event is None:
            labels = (f"{self.names[i]} attack", f"{self.names[t]} defence")
            event = self._attacks[key] = Opposed(attack, defence, self.attack_tie(i, t), labels)
        return event

    def attack_tie(self, i: int, t: int) -> Literal["actor", "opponent"] | None:
        """Level 4: who wins a tie when ``i`` attacks ``t`` (the house rule; None: rolled again)."""
        return tie_goes_to(self.hr, "attacker", self.cards[i].player, self.cards[t].player)

    def state(self, s: FightState) -> RoundState:
        """The part of a fight state a round changes."""
        index = {n: i for i, n in enumerate(self.names)}
        order = tuple(index[n] for n in s.order) if s.order else (None if s.round == 0 else ())
        fs = s.fighters
        return (
            s.round,
            s.level,
            order,
            s.distance,
            tuple(f.hp for f in fs),
            tuple(f.wielding for f in fs),
            tuple(f.readiness for f in fs),
            tuple(f.reload_progress for f in fs),
            tuple(f.ammo for f in fs),
            tuple(f.stunned for f in fs),
        )


# --------------------------------------------------------------------------- the events


class Roll(NamedTuple):
    """An event's outcome: ``ok`` (the roll made its difficulty, or the roller won) and, when rolled for real,
    the dice and the totals of each pair rolled (for the log)."""

    ok: bool
    rolls: Sequence[RollRecord] = ()
    totals: Sequence[tuple[int, int]] = ()


_WON, _LOST = Roll(True), Roll(False)


@cache
def _two_way(p: float) -> tuple[tuple[float, Roll], ...]:
    return tuple((q, r) for q, r in ((p, _WON), (1.0 - p, _LOST)) if q > 0.0)


@cache
def _opposed_pmf(diff: int, tie_to: str | None) -> tuple[tuple[float, Roll], ...]:
    return _two_way(float(p_opposed_final(diff, 0, tie_to)))  # type: ignore[arg-type]


@cache
def _fixed_pmf(bonus: int, dc: int) -> tuple[tuple[float, Roll], ...]:
    return _two_way(float(p_fixed(bonus, dc)))


def exchange(
    hr: BumHouseRules, initiating: bool, a: Card, b: Card, labels: tuple[str, str] = ("roller", "opponent")
) -> Opposed:
    """Levels 2-3: the opposed roll of ``a``'s simple bonus against ``b``'s; ``initiating``: ``a`` is on the side
    that started the fight (ruling 1: at these levels the other side counts as the defender for the tie rule)."""
    role: Role = "attacker" if initiating else "defender"
    return Opposed(a.bonus, b.bonus, tie_goes_to(hr, role, a.player, b.player), labels)


def p_ok(event: Opposed | Fixed) -> float:
    """The chance an opposed or fixed roll comes out ok (from the event's own outcomes)."""
    return sum(p for p, r in event.outcomes() if r.ok)


class Opposed:
    """Part Two, Opposed Rolls: d6 + ``bonus`` against d6 + ``vs``, ties rolled again (or settled by the house
    rule's ``tie_to``); ok: the roller wins. Only the difference of the totals matters to the chance."""

    __slots__ = ("bonus", "labels", "pmf", "tie_to", "vs")

    def __init__(
        self, bonus: int, vs: int, tie_to: str | None, labels: tuple[str, str] = ("roller", "opponent")
    ) -> None:
        self.bonus, self.vs, self.tie_to, self.labels = bonus, vs, tie_to, labels
        self.pmf = _opposed_pmf(max(-6, min(6, bonus - vs)), tie_to)

    def __repr__(self) -> str:
        return f"Opposed({self.bonus}, {self.vs}, {self.tie_to!r}, {self.labels!r})"

    def sample(self, rng: DiceRng) -> Roll:
        won, recs, totals = roll_opposed(self.bonus, self.vs, rng, self.tie_to, self.labels)  # type: ignore[arg-type]
        return Roll(won, recs, totals)

    def outcomes(self) -> Sequence[tuple[float, Roll]]:
        return self.pmf


@dataclass(frozen=True, slots=True)
class Fixed:
    """Part Two, Fixed Difficulty Rolls: d6 + ``bonus`` meets or beats ``dc``."""

    bonus: int
    dc: int
    label: str

    def sample(self, rng: DiceRng) -> Roll:
        rec = d6(rng, self.label)
        return Roll(fixed_succeeds(rec.total, self.bonus, self.dc), (rec,))

    def outcomes(self) -> Sequence[tuple[float, Roll]]:
        return _fixed_pmf(self.bonus, self.dc)


class TurnOrder(NamedTuple):
    """A rolled turn order (fighter indices, first first) and, when rolled for real, each one's totals and dice."""

    order: tuple[int, ...]
    scores: Sequence[tuple[int, ...]] = ()
    rolls: Sequence[RollRecord] = ()


def tied_groups(scores: Sequence[Any]) -> list[list[int]]:
    """Part Five, Turn Sequence by a roll: the fighters (indices) highest score first, those with equal scores
    together (as listed); a group of more than one rolls again among themselves."""
    ranked = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)  # stable: equal ones as listed
    groups: list[list[int]] = []
    for i in ranked:
        if groups and scores[groups[-1][0]] == scores[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


@cache
def _rolled_orders(stats: tuple[int, ...]) -> tuple[tuple[float, TurnOrder], ...]:
    """Every turn order a roll of d6 + stat can give (each tied group rolling again until settled), with its
    exact chance: one roll's faces counted, the groups it leaves tied recursed into, the all-tied roll (which is
    simply rolled again) divided out."""
    k = len(stats)
    if k == 1:
        return ((1.0, TurnOrder((0,))),)
    out: dict[tuple[int, ...], float] = defaultdict(float)
    all_tied = 0
    each = 1.0 / 6**k
    for faces in product(range(1, 7), repeat=k):
        groups = tied_groups([f + s for f, s in zip(faces, stats, strict=True)])
        if len(groups) == 1:
            all_tied += 1
            continue
        partial: dict[tuple[int, ...], float] = {(): each}
        for g in groups:
            sub = _rolled_orders(tuple(stats[i] for i in g)) if len(g) > 1 else ((1.0, TurnOrder((0,))),)
            partial = {pre + tuple(g[i] for i in o.order): p * q for pre, p in partial.items() for q, o in sub}
        for o, p in partial.items():
            out[o] += p
    scale = 1.0 / (1.0 - all_tied * each)
    return tuple(sorted(((p * scale, TurnOrder(o)) for o, p in out.items()), reverse=True))


@dataclass(frozen=True, slots=True)
class RolledOrder:
    """Part Five, Turn Sequence by a roll: each fighter rolls d6 + his stat (``stats``), highest first; those tied
    roll again among themselves until every place is settled (ruling 16)."""

    stats: tuple[int, ...]
    names: tuple[str, ...]

    def sample(self, rng: DiceRng) -> TurnOrder:
        n = len(self.stats)
        scores: list[tuple[int, ...]] = [()] * n
        rolls: list[RollRecord] = []
        groups = [list(range(n))]
        for _ in range(50):
            tied = [g for g in groups if len(g) > 1]
            if not tied:
                break
            for g in tied:
                for i in g:
                    rec = d6(rng, f"initiative {self.names[i]}")
                    rolls.append(rec)
                    scores[i] = (*scores[i], rec.total + self.stats[i])
            groups = tied_groups(scores)
        order = tuple(i for g in groups for i in g)
        return TurnOrder(order, tuple(scores), rolls)

    def outcomes(self) -> Sequence[tuple[float, TurnOrder]]:
        return _rolled_orders(self.stats)


# --------------------------------------------------------------------------- the named rules


def sides_left(fighters: Any) -> set[int]:
    """The sides that still have someone standing."""
    return {f.side for f in fighters if f.standing}


def level_after_switch(switch: Iterable[tuple[int, int]], rounds_played: int, level: int) -> int:
    """Part Five, 'switch between these methods': the level of the next round (a switch takes effect as its round
    starts)."""
    for rnd, lvl in switch:
        if rnd == rounds_played + 1:
            level = lvl
    return level


def pick_target(
    i: int, order: Iterable[int], sides: Sequence[int], hp: Sequence[int], target: int, rolled: Sequence[bool] | None
) -> int:
    """Whom fighter ``i`` attacks (ruling 20): his chosen ``target`` while that foe stands, else (levels 2-3, with
    ``rolled``) the first foe in turn order who has not rolled yet, else the first foe standing in turn order;
    -1 when no foe stands."""
    side = sides[i]
    foes = [j for j in order if sides[j] != side and hp[j] > 0]
    if not foes:
        return -1
    if target in foes:
        return target
    if rolled is not None:
        for j in foes:
            if not rolled[j]:
                return j
    return foes[0]


def delayed(order: tuple[int, ...], delay: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    """Turn Sequence: a fighter who chose to wait acts right after the one he named (ruling 17), in turn."""
    out = list(order)
    for who, after in delay:
        if who != after:
            out.remove(who)
            out.insert(out.index(after) + 1, who)
    return tuple(out)


def advance(distance: int, tactic: str, hr: BumHouseRules) -> tuple[int, bool]:
    """Part Five, Movement, for a fighter who fights hand to hand: the distance after his move and whether he can
    still strike this turn. One turn closes 1 (reaching 0 he strikes); with the double-move option he runs 2
    instead when 2 or more apart, and does not strike; with the 'hold' tactic he stays put."""
    if distance <= 0:
        return 0, True
    if tactic == "hold":
        return distance, False
    if hr.double_move and distance >= 2:
        return max(0, distance - 2), False
    return distance - 1, distance == 1


def strikes_first(
    hr: BumHouseRules, weapon: WeaponProfile, acted: bool, hp: int, stunned: int, surprised: bool, distance: int
) -> bool:
    """Appendix A footnote ** (option ``longspear_first_strike``): a fighter with a longspear in hand who is attacked
    in melee reach strikes first, if he has not yet made this round's attack, stands, is not stunned and not caught
    unaware."""
    return (
        hr.longspear_first_strike
        and weapon.longspear
        and not acted
        and hp > 0
        and not stunned
        and not surprised
        and distance == 0
    )


def level_event(rounds_played: int, old: int, new: int) -> Event:
    """The log line of a level switch before the next round."""
    return Event("level", f"The GM switches to combat level {new}.", rounds_played + 1, data={"from": old, "to": new})


def after_shot(missile: WeaponProfile, ammo_left: int | None) -> Readiness:
    """Appendix A, Reloading: a bow or crossbow must be loaded again; a firearm is empty unless another loaded
    gun is at hand ('a character carrying multiple pistols can fire one each round'); thrown weapons stay ready."""
    if missile.reload in (None, "thrown"):
        return "ready"
    if missile.reload == "muzzleloader":
        return "ready" if ammo_left else "empty"
    return "unready"


def reload_step(kind: str | None, readiness: Readiness, progress: int, hr: BumHouseRules) -> tuple[Readiness, int]:
    """Appendix A, Reloading: one action of reloading; the readiness and reload steps after it (0 when ready)."""
    need = reload_actions(kind, hr)
    progress += 1
    if kind == "crossbow" and readiness == "cocked":
        progress = need
    if progress >= need:
        return "ready", 0
    return ("cocked" if kind == "crossbow" and progress == need - 1 else readiness), progress


def uses_missile(
    missile: WeaponProfile | None,
    tactic: str,
    readiness: Readiness,
    ammo: int | None,
    distance: int,
    first_round: bool,
    hr: BumHouseRules,
) -> bool:
    """Whether a fighter's turn goes to his missile weapon (a shot, or a reload) rather than to melee.

    Appendix A: only so many missiles (a loaded gun needs no spare ammunition); a muzzle-loader 'generally cannot
    be reloaded in combat', so on 'auto' he fights on instead. Part Five: out of throwing range he closes in; once
    the melee is joined only handguns still work, but in a fight that starts in melee reach a ready missile weapon
    gets its opening shot (Turn Sequence: the crossbow goes before the spear and the axe)."""
    if missile is None or tactic == "melee":
        return False
    ready = readiness == "ready"
    has_ammo = ammo is None or ammo > 0 or missile.reload == "muzzleloader"
    if not (has_ammo and (distance > 0 or (ready and (missile.melee_usable or (first_round and ready))))):
        return False
    if tactic == "auto" and not ready and reload_actions(missile.reload, hr) > reload_actions("crossbow", hr):
        return False
    return range_penalty(distance, rifle=missile.rifle, thrown=missile.reload == "thrown", hr=hr) is not None


# --------------------------------------------------------------------------- one round


class _Work:
    """The working copy of one round: per fighter lists, the distance, the chance and (narrating) the log."""

    __slots__ = (
        "acted",
        "ammo",
        "chance",
        "dist",
        "events",
        "first",
        "hp",
        "level",
        "narrate",
        "order",
        "ready",
        "rnd",
        "rp",
        "s",
        "stun",
        "wield",
    )

    def __init__(self, s: Setup, x: RoundState, chance: Chance, events: list[Event] | None) -> None:
        rnd, level, order, dist, hp, wield, ready, rp, ammo, stun = x
        self.s = s
        self.rnd, self.level, self.dist, self.chance = rnd, level, dist, chance
        self.order: tuple[int, ...] = order or ()
        self.first = rnd == 0
        self.hp, self.wield, self.ready = list(hp), list(wield), list(ready)
        self.rp, self.ammo, self.stun = list(rp), list(ammo), list(stun)
        self.acted = [False] * len(hp)
        self.narrate = chance.narrate
        self.events: list[Event] = events if events is not None else []

    def state(self) -> RoundState:
        return (
            self.rnd + 1,
            self.level,
            self.order,
            self.dist,
            tuple(self.hp),
            tuple(self.wield),
            tuple(self.ready),
            tuple(self.rp),
            tuple(self.ammo),
            tuple(self.stun),
        )

    def emit(self, kind: str, text: str, actor: str = "", rolls: Sequence[RollRecord] = (), **data: Any) -> None:
        self.events.append(Event(kind, text, self.rnd + 1, actor, data, tuple(rolls)))

    def sides_left(self) -> int:
        sides = self.s.sides
        return len({sides[i] for i, h in enumerate(self.hp) if h > 0})

    def pick(self, i: int, rolled: Sequence[bool] | None = None) -> int:
        """The target: his chosen one while he stands, else (levels 2-3) the first foe in turn order who has not
        rolled yet, else the first foe standing in turn order (ruling 20); -1 when no foe stands."""
        return pick_target(i, self.order or range(len(self.hp)), self.s.sides, self.hp, self.s.targets[i], rolled)

    def wound(self, t: int, n: int, cause: str) -> None:
        self.hp[t] = hp = max(0, self.hp[t] - n)
        if hp == 0 and self.narrate:
            self.emit(
                "down",
                f"{self.s.names[t]} is down at 0 HP: too hurt to fight, run or cast, but alive; he can crawl, "
                "bandage himself and speak (Part Five, Wounds/Injury).",
                self.s.names[t],
                cause=cause,
            )

    def fate(self, loser: int, why: str) -> None:
        """Levels 1-2: the loser is beaten (or, by house rule, takes a wound)."""
        self.wound(loser, 1 if self.s.hr.loser_fate == "wound" else self.hp[loser], why)

    def surprised(self, t: int) -> bool:
        return self.first and self.s.surprised[t]


def _initiative(w: _Work) -> None:
    """Part Five, Turn Sequence: GM order (initiator first, longer reach first in melee) or a DEX/INT roll."""
    s = w.s
    if s.initiative == "gm":
        w.order = s.gm
        if w.narrate:
            order = [s.names[i] for i in s.gm]
            w.emit(
                "initiative", "Turn order (GM, initiator first, longer reach first): " + ", ".join(order), order=order
            )
        return
    stat: Stat = "DEX" if s.initiative == "dex" else "INT"
    rolled = w.chance.draw(RolledOrder(tuple(c.character.stats.get(stat) for c in s.cards), s.names))
    w.order = rolled.order
    if w.narrate:
        order = [s.names[i] for i in rolled.order]
        shown = ", ".join(f"{s.names[i]} ({'/'.join(map(str, rolled.scores[i]))})" for i in rolled.order)
        w.emit("initiative", f"Turn order by {stat} roll, highest first: {shown}", rolls=rolled.rolls, order=order)


def _apply_delays(w: _Work) -> None:
    """Turn Sequence: on his first turn a character may choose to act after a named character; the order then stays."""
    w.order = delayed(w.order, w.s.delay)
    for who, after in w.s.delay if w.narrate else ():
        if who != after:
            names = w.s.names
            w.emit("delay", f"{names[who]} chooses to wait and acts after {names[after]} from now on.", names[who])


# --------------------------------------------------------------------------- level 4 turns


def _apart(w: _Work) -> str:
    """Part Five, Movement: distance in turns (and in grid squares at the house rule's move per turn)."""
    return f"{w.dist} turn(s) apart (about {w.dist * w.s.hr.grid_move} squares)"


def _sneak_attack(w: _Work, i: int, t: int, slot: Slot, penalty: int, ranged: bool) -> None:
    """Part Five, Sneak Attacks: on an unaware foe a melee attack needs no roll and incapacitates; a ranged one
    rolls against the GM's difficulty (no DEX or shield) and deals its normal wounds."""
    s, hr = w.s, w.s.hr
    a = s.cards[i]
    prof = a.in_hand(slot)
    att, tgt = s.names[i], s.names[t]
    if not ranged and hr.sneak_melee_kills:
        if w.narrate:
            w.emit(
                "sneak",
                f"{att} falls on the unaware {tgt} with {prof.name}: no roll needed.",
                att,
                target=tgt,
                hit=True,
            )
        w.wound(t, w.hp[t], f"sneak attack by {att}")
        return
    head = ranged and s.sneak_headshot
    a_parts, a_tot = a.attack(slot)
    bonus = a_tot + penalty - (hr.headshot_penalty if head else 0)
    roll = w.chance.draw(Fixed(bonus, s.sneak_dc, f"{att} sneak attack"))
    hit = roll.ok
    dealt = w.hp[t] if head else prof.wounds
    if w.narrate:
        parts = (
            a_parts
            + ([("range", penalty)] if penalty else [])
            + ([("aimed at the head", -hr.headshot_penalty)] if head else [])
        )
        die = roll.rolls[0].total
        outcome = (
            ("Hit in the head: he is killed or incapacitated." if head else f"Hit: {prof.wounds} wound(s).")
            if hit
            else "Miss."
        )
        w.emit(
            "sneak",
            f"{att} attacks the unaware {tgt} with {prof.name}: {die}{bonus:+d}={die + bonus} "
            f"against DC {s.sneak_dc}. {outcome}",
            att,
            roll.rolls,
            target=tgt,
            hit=hit,
            attack_parts=parts,
            dc=s.sneak_dc,
            headshot=head,
        )
    if hit:
        w.wound(t, dealt, f"sneak attack by {att}")


def _attack(w: _Work, i: int, t: int, slot: Slot, *, penalty: int = 0, ranged: bool = False) -> None:
    """One attack roll against one defence roll (Part Five, Level 4); a hit deals the weapon's wounds."""
    if w.surprised(t):
        _sneak_attack(w, i, t, slot, penalty, ranged)
        return
    s, hr = w.s, w.s.hr
    a, d = s.cards[i], s.cards[t]
    prof = a.in_hand(slot)
    a_parts, a_tot = a.attack(slot)
    a_tot += penalty
    shielded = not (ranged and prof.modern and hr.modern_guns_ignore_armour)
    d_parts, d_tot = d.defence(ranged, w.wield[t], shielded)
    att, tgt = s.names[i], s.names[t]
    roll = w.chance.draw(s.attack(i, t, a_tot, d_tot))
    hit = roll.ok
    if w.narrate:
        recs, totals = roll.rolls, roll.totals
        dice = [
            f"{recs[2 * k].total}+{a_tot}={ta} vs {recs[2 * k + 1].total}+{d_tot}={tb}"
            for k, (ta, tb) in enumerate(totals)
        ]
        kind = "ranged" if ranged else "melee"
        text = f"{att} attacks {tgt} with {prof.name} ({kind}): " + "; tie, again: ".join(dice)
        if hit:
            left = max(0, w.hp[t] - prof.wounds)
            text += f". Hit: {tgt} takes {prof.wounds} wound{'s' if prof.wounds > 1 else ''} ({left} HP left)."
        else:
            text += f". {tgt} defends."
        w.emit(
            "attack",
            text,
            att,
            recs,
            target=tgt,
            weapon=prof.name,
            ranged=ranged,
            attack=a_tot,
            defence=d_tot,
            attack_parts=[*a_parts, ("range", penalty)] if penalty else list(a_parts),
            defence_parts=list(d_parts),
            hit=hit,
            totals=totals,
        )
    if hit:
        w.wound(t, prof.wounds, f"{prof.name} of {att}")


def _attack_unarmed(w: _Work, i: int, t: int) -> None:
    """No weapon on the card: STR and bare hands (attack +0)."""
    s = w.s
    att, tgt = s.names[i], s.names[t]
    if w.surprised(t) and s.hr.sneak_melee_kills:
        if w.narrate:
            w.emit(
                "sneak", f"{att} falls on the unaware {tgt} with bare hands: no roll needed.", att, target=tgt, hit=True
            )
        w.wound(t, w.hp[t], f"sneak attack by {att}")
        return
    a, d = s.cards[i], s.cards[t]
    a_tot = a.character.stats.STR
    _, d_tot = d.defence(False, w.wield[t])
    roll = w.chance.draw(Opposed(a_tot, d_tot, s.attack_tie(i, t)))
    hit = roll.ok
    if w.narrate:
        totals = roll.totals
        w.emit(
            "attack",
            f"{att} punches at {tgt}: {totals[-1][0]} vs {totals[-1][1]}. " + ("Hit." if hit else f"{tgt} defends."),
            att,
            roll.rolls,
            target=tgt,
            weapon="bare hands",
            hit=hit,
            attack=a_tot,
            defence=d_tot,
            totals=totals,
        )
    if hit:
        w.wound(t, 1, f"fists of {att}")


def _longspear_first(w: _Work, i: int, t: int) -> None:
    """Appendix A footnote **: a longspear wielder who is attacked strikes first, using his attack for the turn."""
    s = w.s
    d = s.cards[t]
    if not strikes_first(s.hr, d.in_hand(w.wield[t]), w.acted[t], w.hp[t], w.stun[t], w.surprised(t), w.dist):
        return
    slot = w.wield[t] or d.melee
    assert slot is not None  # he holds a longspear
    if w.narrate:
        w.emit(
            "longspear", f"{s.names[t]}'s longspear keeps {s.names[i]} at bay: {s.names[t]} strikes first.", s.names[t]
        )
    w.acted[t] = True
    w.wield[t] = slot
    _attack(w, t, i, slot)


def _reload(w: _Work, i: int, missile: WeaponProfile) -> None:
    """Appendix A, Reloading: one action per step (brace, draw, fit for a crossbow)."""
    ready, progress = reload_step(missile.reload, w.ready[i], w.rp[i], w.s.hr)
    w.acted[i] = True
    name = w.s.names[i]
    if ready == "ready":
        if missile.reload == "muzzleloader" and w.ammo[i] is not None:
            w.ammo[i] = 1
        w.ready[i], w.rp[i] = ready, 0
        if w.narrate:
            w.emit("reload", f"{name} readies his {missile.name}: it can fire next turn.", name, weapon=missile.name)
        return
    w.ready[i], w.rp[i] = ready, progress
    if w.narrate:
        need = reload_actions(missile.reload, w.s.hr)
        w.emit(
            "reload", f"{name} works at reloading his {missile.name} ({progress}/{need}).", name, weapon=missile.name
        )


def _take_turn(w: _Work, i: int) -> None:
    s = w.s
    name = s.names[i]
    if w.hp[i] <= 0 or w.acted[i]:  # acted already: a longspear's early strike used this turn's attack
        return
    if w.surprised(i):
        if w.narrate:
            w.emit("surprised", f"{name} has not noticed anything yet and does nothing this round.", name)
        return
    if w.stun[i]:
        w.stun[i] -= 1
        w.acted[i] = True
        if w.narrate:
            w.emit("stunned", f"{name} is stunned and loses his turn ({w.stun[i]} more).", name)
        return
    t = w.pick(i)
    if t < 0:
        return
    me, hr = s.cards[i], s.hr
    missile = me.missile
    if missile is not None and uses_missile(missile, s.tactics[i], w.ready[i], w.ammo[i], w.dist, w.first, hr):
        w.wield[i] = "ranged"
        if w.ready[i] == "ready":
            pen = range_penalty(w.dist, rifle=missile.rifle, thrown=missile.reload == "thrown", hr=hr) or 0
            _attack(w, i, t, "ranged", penalty=pen, ranged=True)
            ammo = w.ammo[i]
            left = None if ammo is None else max(0, ammo - 1)
            w.ready[i], w.rp[i], w.acted[i], w.ammo[i] = after_shot(missile, left), 0, True, left
            return
        _reload(w, i, missile)
        return
    # melee: close the distance (unless holding ground), then strike
    before = w.dist
    w.dist, strike = advance(before, s.tactics[i], hr)
    if w.narrate and before > 0:
        if w.dist == before:
            w.emit("hold", f"{name} holds his ground.", name)
        elif before - w.dist == 2 and hr.double_move:
            w.emit(
                "move", f"{name} runs flat out toward {s.names[t]} (double move); {_apart(w)}.", name, distance=w.dist
            )
        else:
            w.emit("move", f"{name} moves toward {s.names[t]}; {_apart(w)}.", name, distance=w.dist)
    if not strike:
        w.acted[i] = True
        return
    slot = me.melee
    if w.wield[i] != slot:
        if w.wield[i] == "ranged":
            w.ready[i] = set_down(missile.reload if missile else None, w.ready[i])
        w.wield[i] = slot
    _longspear_first(w, i, t)
    if w.hp[i] <= 0:
        return
    w.acted[i] = True
    if slot is None:
        _attack_unarmed(w, i, t)
    else:
        _attack(w, i, t, slot)


def _round_level4(w: _Work) -> None:
    for i in w.order:
        if w.sides_left() < 2:
            break
        _take_turn(w, i)


# --------------------------------------------------------------------------- levels 1-3


def _round_level1(w: _Work) -> None:
    """Level 1: each player-side fighter rolls his best total against the GM's DC to win (or lose)."""
    s = w.s
    for i in w.order:
        if s.sides[i] != 0 or w.hp[i] <= 0:
            continue
        t = w.pick(i)
        if t < 0:
            break
        name = s.names[i]
        bonus = s.cards[i].bonus
        roll = w.chance.draw(s.fight_roll(i))
        ok = roll.ok
        if w.narrate:
            die, tgt = roll.rolls[0].total, s.names[t]
            w.emit(
                "fight-roll",
                f"{name} rolls {die}+{bonus}={die + bonus} against DC {s.dc}: "
                + (f"wins against {tgt}." if ok else f"loses to {tgt}."),
                name,
                roll.rolls,
                target=tgt,
                success=ok,
                dc=s.dc,
                bonus=bonus,
            )
        w.acted[i] = True
        w.fate(t if ok else i, "level 1 fight roll")


def _round_opposed(w: _Work) -> None:
    """Levels 2-3: pairs roll against each other; each fighter initiates at most one roll a round."""
    s, hr = w.s, w.s.hr
    rolled = [False] * len(w.hp)
    for i in w.order:
        if w.hp[i] <= 0 or rolled[i]:
            continue
        t = w.pick(i, rolled)
        if t < 0:
            break
        name, tgt = s.names[i], s.names[t]
        event = s.exchange(i, t)
        roll = w.chance.draw(event)
        a, b = event.bonus, event.vs
        loser = t if roll.ok else i
        if w.narrate:
            winner = i if roll.ok else t
            shown = "; tie, again: ".join(f"{ta} vs {tb}" for ta, tb in roll.totals)
            cost = "loses the fight" if w.level == 2 and hr.loser_fate == "defeated" else "loses a hit point"
            w.emit(
                "exchange",
                f"{name} ({a:+d}) against {tgt} ({b:+d}): {shown}. {s.names[winner]} wins the roll; "
                f"{s.names[loser]} {cost}.",
                name,
                roll.rolls,
                target=tgt,
                winner=s.names[winner],
                totals=roll.totals,
            )
        rolled[i] = rolled[t] = True
        w.acted[i] = True
        if w.level == 2:
            w.fate(loser, "level 2 fight roll")
        else:
            w.wound(loser, 1, "level 3 exchange")


_LEVELS = {1: _round_level1, 2: _round_opposed, 3: _round_opposed, 4: _round_level4}


def _play(s: Setup, x: RoundState, chance: Chance, events: list[Event] | None = None) -> _Work:
    """The round: the level switch due now, the turn order (round 1: rolled or the GM's, then delays), then the
    level's turns or rolls."""
    w = _Work(s, x, chance, events)
    level = level_after_switch(s.switch, w.rnd, w.level)
    if level != w.level:
        if w.narrate:
            w.events.append(level_event(w.rnd, w.level, level))
        w.level = level
    if w.first:
        if x[2] is None:
            _initiative(w)
        _apply_delays(w)
    _LEVELS[w.level](w)
    return w


def next_state(s: Setup, x: RoundState, chance: Chance) -> RoundState:
    """One round from ``x``: what it changes (the exact chain runs this over every branch of ``chance``)."""
    return _play(s, x, chance).state()


def play_round(state: FightState, rng: DiceRng, events: list[Event]) -> tuple[FightState, list[Event]]:
    """The engine's round: :func:`next_state`'s round with the fight's dice, the log written; the new state."""
    s = Setup.of(state)
    w = _play(s, s.state(state), Rolled(rng), events)
    rnd, level, _, dist, hp, wield, ready, rp, ammo, stun = w.state()
    fighters = tuple(
        f.model_copy(
            update={
                "hp": hp[i],
                "wielding": wield[i],
                "readiness": ready[i],
                "reload_progress": rp[i],
                "ammo": ammo[i],
                "stunned": stun[i],
                "acted": w.acted[i],
            }
        )
        for i, f in enumerate(state.fighters)
    )
    update = {
        "fighters": fighters,
        "round": rnd,
        "distance": dist,
        "level": level,
        "order": tuple(s.names[i] for i in w.order),
    }
    return state.model_copy(update=update), w.events
