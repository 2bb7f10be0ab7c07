"""B.U.M. combat (Part Five) as a pure state machine over rounds, at any of the four levels.

* Level 1: each player-side fighter rolls his best attack total against the GM's DC.
* Level 2: opposed rolls; the loser of a roll loses the fight (or a wound: ``loser_fate``).
* Level 3: opposed rolls; the loser of each roll loses a hit point; 0 HP is out.
* Level 4: turns in order; each attack is rolled against the target's defence
  (melee or ranged); a hit deals the weapon's wounds (1, the musket 2).

The level can change between rounds (``switch_level`` or the ``switch``
option); Part Five: 'Feel free to switch between these methods during a big fight'.

The state is small on purpose: per fighter only hit points, the weapon in hand,
the readiness of his missile weapon, stun and a per-round flag change; the
sides' distance (in turns) and the round number are shared. A forecast can read
the per-exchange chances from :func:`exchange_odds` and :func:`attack_odds`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, Field

from ...dice import DiceRng, RollRecord
from ...errors import CombatError
from ...rules import Event, HouseRules, Model
from .character import (
    SLOTS,
    BumCharacter,
    Readiness,
    Slot,
    WeaponProfile,
    attack_parts,
    current_hp,
    defence_parts,
    profile,
)
from .checks import d6, p_opposed_final, range_penalty, roll_opposed, tie_goes_to
from .options import BumHouseRules

__all__ = [
    "BumCombat",
    "FightState",
    "Fighter",
    "apply_hazard",
    "attack_odds",
    "knock_down",
    "exchange_odds",
    "simple_bonus",
    "switch_level",
]

Level = Literal[1, 2, 3, 4]
Tactic = Literal["auto", "melee", "ranged", "hold"]
UNARMED = WeaponProfile(name="bare hands", attack=0, defence=0, ranged=False, hands=1)


class Fighter(Model):
    """One combatant: the card, and the little that changes in a fight."""

    name: str
    side: int
    character: BumCharacter
    hp: int
    wielding: Slot | None = None
    readiness: Readiness = "ready"  # of the missile weapon in the RANGED slot
    reload_progress: int = 0  # actions spent on the current reload
    stunned: int = 0
    acted: bool = False  # has made this round's attack (or roll)
    tactic: Tactic = "auto"
    target: str | None = None

    @property
    def standing(self) -> bool:
        return self.hp > 0


class FightState(Model):
    """A fight between sides, frozen and JSON-serialisable (a play-by-post server stores it)."""

    level: Level = 4
    round: int = 0
    distance: int = Field(0, ge=0, description="turns of movement between the sides; 0 = in melee reach")
    order: tuple[str, ...] = ()
    fighters: tuple[Fighter, ...]
    initiative: Literal["gm", "dex", "int"] = "gm"
    initiator: int = 0
    dc: int = 6
    delay: tuple[tuple[str, str], ...] = ()
    switch: tuple[tuple[int, int], ...] = ()
    max_rounds: int = 100
    surprised: tuple[str, ...] = Field((), description="fighters caught unaware in round 1 (sneak attacks)")
    sneak_dc: int = Field(6, description="the GM's difficulty for ranged sneak attacks")
    sneak_headshot: bool = Field(False, description="ranged sneak attacks aim at the head (-4; a hit incapacitates)")
    house_rules: BumHouseRules = BumHouseRules()
    ended: bool = False

    def fighter(self, name: str) -> Fighter:
        for f in self.fighters:
            if f.name == name:
                return f
        raise CombatError(f"no fighter called {name!r} in this fight")


# --------------------------------------------------------------------------- exact per-exchange odds


def simple_bonus(c: BumCharacter) -> int:
    """Levels 1-3: stat + skill + item bonus of the best weapon on the card (bare STR without one)."""
    totals = [sum(v for _, v in attack_parts(c, s)) for s in SLOTS if c.weapons.get(s) is not None]
    return max(totals, default=c.stats.STR)


def exchange_odds(a: BumCharacter, b: BumCharacter, hr: BumHouseRules | None = None, *, a_initiates: bool = True) -> Fraction:
    """Level 2/3: chance that ``a`` wins one opposed exchange (ties settled by the house rule)."""
    hr = hr or BumHouseRules()
    tie_to = tie_goes_to(hr, "attacker" if a_initiates else "defender", not a.npc, not b.npc)
    return p_opposed_final(simple_bonus(a), simple_bonus(b), tie_to)


def attack_odds(attack: int, defence: int, hr: BumHouseRules | None = None, *, attacker_is_player: bool = True, defender_is_player: bool = False) -> Fraction:
    """Level 4: chance one attack hits (d6 + attack total against d6 + defence total)."""
    hr = hr or BumHouseRules()
    return p_opposed_final(attack, defence, tie_goes_to(hr, "attacker", attacker_is_player, defender_is_player))


# --------------------------------------------------------------------------- helpers


def _missile(f: Fighter) -> WeaponProfile | None:
    return profile(f.character, "ranged")


def _melee_slot(f: Fighter) -> Slot | None:
    for slot in ("primary", "backup"):
        p = profile(f.character, slot)  # type: ignore[arg-type]
        if p is not None and not p.ranged:
            return slot  # type: ignore[return-value]
    for slot in ("primary", "backup"):
        p = profile(f.character, slot)  # type: ignore[arg-type]
        if p is not None and p.melee_usable:
            return slot  # type: ignore[return-value]
    return None


def _in_hand(f: Fighter) -> WeaponProfile:
    """The weapon in hand (before his first turn: his melee weapon, whose parry counts in melee defence)."""
    slot = f.wielding or _melee_slot(f)
    if slot is None:
        return UNARMED
    return profile(f.character, slot) or UNARMED


def reload_actions(kind: str | None, hr: BumHouseRules) -> int:
    """Appendix A, Reloading: a bow takes 1 action, a crossbow 3, a muzzle-loader 10-15 rounds."""
    return {"bow": 1, "crossbow": 3, "muzzleloader": hr.muzzleloader_reload_actions}.get(kind or "", 0)


def _after_setting_down(f: Fighter) -> Readiness:
    """Appendix A, Partially Loaded Weapons: a bow cannot be put down nocked; a crossbow keeps only its cocked string."""
    kind = (_missile(f) or UNARMED).reload
    if f.readiness == "ready" and kind == "bow":
        return "unready"
    if f.readiness == "ready" and kind == "crossbow":
        return "cocked"
    return f.readiness


def _reach(f: Fighter, distance: int) -> int:
    """Turn Sequence: longer weapons act first when a fight starts in melee reach (ranged 3, long 2, spear 1)."""
    m = _missile(f)
    if m is not None and f.readiness == "ready":
        return 3
    slot = _melee_slot(f)
    p = profile(f.character, slot) if slot else None
    return p.reach if p else 0


def _is_player(f: Fighter) -> bool:
    return not f.character.npc


class _Round:
    """The working copy of one step: fighters by name, events, and the dice generator."""

    def __init__(self, state: FightState, rng: DiceRng) -> None:
        self.s = state
        self.rng = rng
        self.f: dict[str, Fighter] = {x.name: x for x in state.fighters}
        self.events: list[Event] = []
        self.distance = state.distance
        self.hr = state.house_rules

    def upd(self, name: str, **changes: Any) -> Fighter:
        self.f[name] = self.f[name].model_copy(update=changes)
        return self.f[name]

    def emit(self, kind: str, text: str, actor: str = "", rolls: Sequence[RollRecord] = (), **data: Any) -> None:
        self.events.append(Event(kind, text, self.s.round + 1, actor, data, tuple(rolls)))

    def enemies(self, f: Fighter) -> list[Fighter]:
        return [self.f[n] for n in self._listing() if self.f[n].side != f.side and self.f[n].standing]

    def _listing(self) -> list[str]:
        return list(self.s.order) or [x.name for x in self.s.fighters]

    def pick_target(self, f: Fighter, prefer: set[str] | None = None) -> Fighter | None:
        foes = self.enemies(f)
        if not foes:
            return None
        if f.target and any(x.name == f.target for x in foes):
            return self.f[f.target]
        if prefer:
            for x in foes:
                if x.name in prefer:
                    return x
        return foes[0]

    def wound(self, victim: Fighter, n: int, cause: str) -> None:
        hp = max(0, victim.hp - n)
        self.upd(victim.name, hp=hp)
        if hp == 0:
            self.emit(
                "down",
                f"{victim.name} is down at 0 HP: too hurt to fight, run or cast, but alive; he can crawl, "
                "bandage himself and speak (Part Five, Wounds/Injury).",
                victim.name,
                cause=cause,
            )

    def fate(self, loser: Fighter, why: str) -> None:
        """Levels 1-2: the loser is beaten (or, by house rule, takes a wound)."""
        if self.hr.loser_fate == "wound":
            self.wound(loser, 1, why)
        else:
            self.wound(loser, loser.hp, why)


# --------------------------------------------------------------------------- turn order


def gm_order(s: FightState) -> list[str]:
    """Turn Sequence, GM's way: longer weapons first when the fight starts in melee reach, then the initiator's side."""
    names = [x.name for x in s.fighters]

    def key(f: Fighter) -> tuple[int, int, int]:
        reach = -_reach(f, s.distance) if s.distance == 0 else 0
        return (reach, 0 if f.side == s.initiator else 1, names.index(f.name))

    return [f.name for f in sorted(s.fighters, key=key)]


def _initiative(r: _Round) -> None:
    """Part Five, Turn Sequence: GM order (initiator first, longer reach first in melee) or a DEX/INT roll."""
    s = r.s
    names = [x.name for x in s.fighters]
    if s.initiative == "gm":
        order = gm_order(s)
        r.emit("initiative", "Turn order (GM, initiator first, longer reach first): " + ", ".join(order), order=order)
    else:
        stat = "DEX" if s.initiative == "dex" else "INT"
        scores: dict[str, tuple[int, ...]] = {n: () for n in names}
        rolls: list[RollRecord] = []
        groups = [names]
        # roll, then re-roll only among those still tied, until every place is settled
        for _ in range(50):
            tied = [g for g in groups if len(g) > 1]
            if not tied:
                break
            for g in tied:
                for n in g:
                    rec = d6(r.rng, f"initiative {n}")
                    rolls.append(rec)
                    scores[n] = scores[n] + (rec.total + r.f[n].character.stats.get(stat),)
            order_now = sorted(names, key=lambda n: tuple(-v for v in scores[n]))
            groups = []
            for n in order_now:
                if groups and scores[groups[-1][0]] == scores[n]:
                    groups[-1].append(n)
                else:
                    groups.append([n])
        order = sorted(names, key=lambda n: (tuple(-v for v in scores[n]), names.index(n)))
        shown = ", ".join(f"{n} ({'/'.join(map(str, scores[n]))})" for n in order)
        r.emit("initiative", f"Turn order by {stat} roll, highest first: {shown}", rolls=rolls, order=order)
    r.s = s.model_copy(update={"order": tuple(order)})


def _apply_delays(r: _Round) -> None:
    """Turn Sequence: on his first turn a character may choose to act after a named character; the order then stays."""
    order = list(r.s.order)
    for who, after in r.s.delay:
        if who != after:
            order.remove(who)
            order.insert(order.index(after) + 1, who)
            r.emit("delay", f"{who} chooses to wait and acts after {after} from now on.", who)
    r.s = r.s.model_copy(update={"order": tuple(order)})


# --------------------------------------------------------------------------- level 4 turns


def _apart(r: _Round) -> str:
    """Part Five, Movement: distance in turns (and in grid squares at the house rule's move per turn)."""
    return f"{r.distance} turn(s) apart (about {r.distance * r.hr.grid_move} squares)"


def _surprised(r: _Round, tgt: Fighter) -> bool:
    return r.s.round == 0 and tgt.name in r.s.surprised


def _sneak_attack(r: _Round, att: Fighter, tgt: Fighter, slot: Slot, penalty: int, ranged: bool) -> None:
    """Part Five, Sneak Attacks: on an unaware foe a melee attack needs no roll and incapacitates; a ranged one
    rolls against the GM's difficulty (no DEX or shield) and deals its normal wounds."""
    prof = profile(att.character, slot) or UNARMED
    if not ranged and r.hr.sneak_melee_kills:
        r.emit("sneak", f"{att.name} falls on the unaware {tgt.name} with {prof.name}: no roll needed.", att.name, target=tgt.name, hit=True)
        r.wound(r.f[tgt.name], r.f[tgt.name].hp, f"sneak attack by {att.name}")
        return
    head = ranged and r.s.sneak_headshot
    parts = attack_parts(att.character, slot) + ([("range", penalty)] if penalty else [])
    if head:
        parts.append(("aimed at the head", -r.hr.headshot_penalty))
    bonus = sum(v for _, v in parts)
    rec = d6(r.rng, f"{att.name} sneak attack")
    hit = rec.total + bonus >= r.s.sneak_dc
    dealt = r.f[tgt.name].hp if head else prof.wounds
    outcome = ("Hit in the head: he is killed or incapacitated." if head else f"Hit: {prof.wounds} wound(s).") if hit else "Miss."
    r.emit(
        "sneak", f"{att.name} attacks the unaware {tgt.name} with {prof.name}: {rec.total}{bonus:+d}={rec.total + bonus} "
        f"against DC {r.s.sneak_dc}. {outcome}",
        att.name, (rec,), target=tgt.name, hit=hit, attack_parts=parts, dc=r.s.sneak_dc, headshot=head,
    )
    if hit:
        r.wound(r.f[tgt.name], dealt, f"sneak attack by {att.name}")


def _attack(r: _Round, att: Fighter, tgt: Fighter, slot: Slot, *, penalty: int = 0, ranged: bool = False) -> None:
    """One attack roll against one defence roll (Part Five, Level 4); a hit deals the weapon's wounds."""
    if _surprised(r, tgt):
        _sneak_attack(r, att, tgt, slot, penalty, ranged)
        return
    prof = profile(att.character, slot) or UNARMED
    a_parts = attack_parts(att.character, slot)
    if penalty:
        a_parts.append(("range", penalty))
    d_parts = defence_parts(tgt.character, ranged=ranged, weapon=_in_hand(tgt))
    a_tot, d_tot = sum(v for _, v in a_parts), sum(v for _, v in d_parts)
    tie_to = tie_goes_to(r.hr, "attacker", _is_player(att), _is_player(tgt))
    hit, recs, totals = roll_opposed(a_tot, d_tot, r.rng, tie_to, (f"{att.name} attack", f"{tgt.name} defence"))
    dice = [f"{recs[2 * i].total}+{a_tot}={ta} vs {recs[2 * i + 1].total}+{d_tot}={tb}" for i, (ta, tb) in enumerate(totals)]
    kind = "ranged" if ranged else "melee"
    text = f"{att.name} attacks {tgt.name} with {prof.name} ({kind}): " + "; tie, again: ".join(dice)
    if hit:
        left = max(0, tgt.hp - prof.wounds)
        text += f". Hit: {tgt.name} takes {prof.wounds} wound{'s' if prof.wounds > 1 else ''} ({left} HP left)."
    else:
        text += f". {tgt.name} defends."
    r.emit(
        "attack", text, att.name, recs, target=tgt.name, weapon=prof.name, ranged=ranged,
        attack=a_tot, defence=d_tot, attack_parts=a_parts, defence_parts=d_parts, hit=hit, totals=totals,
    )
    if hit:
        r.wound(r.f[tgt.name], prof.wounds, f"{prof.name} of {att.name}")


def _longspear_first(r: _Round, att: Fighter, tgt: Fighter) -> None:
    """Appendix A footnote **: a longspear wielder who is attacked strikes first, using his attack for the turn."""
    if not r.hr.longspear_first_strike or tgt.acted or not tgt.standing or tgt.stunned or _surprised(r, tgt):
        return
    prof = _in_hand(tgt)
    slot = tgt.wielding or _melee_slot(tgt)
    if not prof.longspear or r.distance != 0 or slot is None:
        return
    r.emit("longspear", f"{tgt.name}'s longspear keeps {att.name} at bay: {tgt.name} strikes first.", tgt.name)
    r.upd(tgt.name, acted=True, wielding=slot)
    _attack(r, r.f[tgt.name], att, slot)


def _take_turn(r: _Round, name: str) -> None:
    f = r.f[name]
    if not f.standing or f.acted:  # acted already: a longspear's early strike used this turn's attack
        return
    if _surprised(r, f):
        r.emit("surprised", f"{name} has not noticed anything yet and does nothing this round.", name)
        return
    if f.stunned:
        r.upd(name, stunned=f.stunned - 1, acted=True)
        r.emit("stunned", f"{name} is stunned and loses his turn ({f.stunned - 1} more).", name)
        return
    tgt = r.pick_target(f)
    if tgt is None:
        return
    missile = _missile(f)
    ready = f.readiness == "ready"
    # Turn Sequence: in a fight that starts in melee reach a ready missile weapon still gets its opening shot
    # (the crossbow goes before the spear and the axe); once the melee is joined only handguns still work.
    opening = r.s.round == 0 and ready
    use_missile = (
        missile is not None
        and f.tactic != "melee"
        and (r.distance > 0 or (ready and (missile.melee_usable or opening)))
    )
    if use_missile and missile is not None and f.tactic == "auto" and f.readiness != "ready":
        # Appendix A: a muzzle-loader 'generally cannot be reloaded in combat'; on 'auto' he fights on instead
        if reload_actions(missile.reload, r.hr) > reload_actions("crossbow", r.hr):
            use_missile = False
    if use_missile and missile is not None:
        pen = range_penalty(r.distance, rifle=missile.rifle, thrown=missile.reload == "thrown", hr=r.hr)
        if pen is None:
            use_missile = False  # out of throwing range: close in instead
    if use_missile and missile is not None:
        if f.wielding != "ranged":
            f = r.upd(name, wielding="ranged")
        if f.readiness == "ready":
            _attack(r, f, tgt, "ranged", penalty=pen or 0, ranged=True)
            after: Readiness = "ready" if missile.reload in (None, "thrown") else ("empty" if missile.reload == "muzzleloader" else "unready")
            r.upd(name, readiness=after, reload_progress=0, acted=True)
            return
        _reload(r, f, missile)
        return
    # melee: close the distance (unless holding ground), then strike
    if r.distance > 0 and f.tactic == "hold":
        r.upd(name, acted=True)
        r.emit("hold", f"{name} holds his ground.", name)
        return
    if r.distance > 0:
        if r.hr.double_move and r.distance >= 2:
            r.distance = max(0, r.distance - 2)
            r.upd(name, acted=True)
            r.emit("move", f"{name} runs flat out toward {tgt.name} (double move); {_apart(r)}.", name, distance=r.distance)
            return
        r.distance -= 1
        r.emit("move", f"{name} moves toward {tgt.name}; {_apart(r)}.", name, distance=r.distance)
        if r.distance > 0:
            r.upd(name, acted=True)
            return
    slot = _melee_slot(f)
    if f.wielding != slot:
        f = r.upd(name, wielding=slot, readiness=_after_setting_down(f) if f.wielding == "ranged" else f.readiness)
    tgt = r.f[tgt.name]
    _longspear_first(r, f, tgt)
    f = r.f[name]
    if not f.standing:
        return
    r.upd(name, acted=True)
    if slot is None:
        _attack_unarmed(r, f, r.f[tgt.name])
    else:
        _attack(r, f, r.f[tgt.name], slot)


def _attack_unarmed(r: _Round, att: Fighter, tgt: Fighter) -> None:
    """No weapon on the card: STR and bare hands (attack +0)."""
    if _surprised(r, tgt) and r.hr.sneak_melee_kills:
        r.emit("sneak", f"{att.name} falls on the unaware {tgt.name} with bare hands: no roll needed.", att.name, target=tgt.name, hit=True)
        r.wound(r.f[tgt.name], r.f[tgt.name].hp, f"sneak attack by {att.name}")
        return
    a_tot = att.character.stats.STR
    d_parts = defence_parts(tgt.character, weapon=_in_hand(tgt))
    d_tot = sum(v for _, v in d_parts)
    hit, recs, totals = roll_opposed(a_tot, d_tot, r.rng, tie_goes_to(r.hr, "attacker", _is_player(att), _is_player(tgt)))
    r.emit(
        "attack", f"{att.name} punches at {tgt.name}: {totals[-1][0]} vs {totals[-1][1]}. " + ("Hit." if hit else f"{tgt.name} defends."),
        att.name, recs, target=tgt.name, weapon="bare hands", hit=hit, attack=a_tot, defence=d_tot, totals=totals,
    )
    if hit:
        r.wound(r.f[tgt.name], 1, f"fists of {att.name}")


def _reload(r: _Round, f: Fighter, missile: WeaponProfile) -> None:
    """Appendix A, Reloading: one action per step (brace, draw, fit for a crossbow)."""
    need = reload_actions(missile.reload, r.hr)
    progress = f.reload_progress + 1
    if missile.reload == "crossbow" and f.readiness == "cocked":
        progress = need
    if progress >= need:
        r.upd(f.name, readiness="ready", reload_progress=0, acted=True)
        r.emit("reload", f"{f.name} readies his {missile.name}: it can fire next turn.", f.name, weapon=missile.name)
        return
    state: Readiness = "cocked" if missile.reload == "crossbow" and progress == need - 1 else f.readiness
    r.upd(f.name, readiness=state, reload_progress=progress, acted=True)
    r.emit("reload", f"{f.name} works at reloading his {missile.name} ({progress}/{need}).", f.name, weapon=missile.name)


def _round_level4(r: _Round) -> None:
    for name in r.s.order:
        if len(_sides_left(r.f.values())) < 2:
            break
        _take_turn(r, name)


# --------------------------------------------------------------------------- levels 1-3


def _round_level1(r: _Round) -> None:
    """Level 1: each player-side fighter rolls his best total against the GM's DC to win (or lose)."""
    for name in r.s.order:
        f = r.f[name]
        if f.side != 0 or not f.standing:
            continue
        tgt = r.pick_target(f)
        if tgt is None:
            break
        bonus = simple_bonus(f.character)
        rec = d6(r.rng, f"{name} fight roll")
        ok = rec.total + bonus >= r.s.dc
        r.emit(
            "fight-roll",
            f"{name} rolls {rec.total}+{bonus}={rec.total + bonus} against DC {r.s.dc}: "
            + (f"wins against {tgt.name}." if ok else f"loses to {tgt.name}."),
            name, (rec,), target=tgt.name, success=ok, dc=r.s.dc, bonus=bonus,
        )
        r.upd(name, acted=True)
        r.fate(r.f[tgt.name] if ok else r.f[name], "level 1 fight roll")


def _round_opposed(r: _Round) -> None:
    """Levels 2-3: pairs roll against each other; each fighter initiates at most one roll a round."""
    rolled: set[str] = set()
    for name in r.s.order:
        f = r.f[name]
        if not f.standing or name in rolled:
            continue
        tgt = r.pick_target(f, prefer={n for n in r.f if n not in rolled})
        if tgt is None:
            break
        a, b = simple_bonus(f.character), simple_bonus(tgt.character)
        role = "attacker" if f.side == r.s.initiator else "defender"
        tie_to = tie_goes_to(r.hr, role, _is_player(f), _is_player(tgt))
        won, recs, totals = roll_opposed(a, b, r.rng, tie_to, (f"{name} fight roll", f"{tgt.name} fight roll"))
        winner, loser = (f, r.f[tgt.name]) if won else (r.f[tgt.name], f)
        shown = "; tie, again: ".join(f"{ta} vs {tb}" for ta, tb in totals)
        cost = "loses the fight" if r.s.level == 2 and r.hr.loser_fate == "defeated" else "loses a hit point"
        r.emit(
            "exchange", f"{name} ({a:+d}) against {tgt.name} ({b:+d}): {shown}. {winner.name} wins the roll; {loser.name} {cost}.",
            name, recs, target=tgt.name, winner=winner.name, totals=totals,
        )
        rolled |= {name, tgt.name}
        r.upd(name, acted=True)
        if r.s.level == 2:
            r.fate(loser, "level 2 fight roll")
        else:
            r.wound(loser, 1, "level 3 exchange")


# --------------------------------------------------------------------------- the engine


def _sides_left(fighters: Any) -> set[int]:
    return {f.side for f in fighters if f.standing}


def switch_level(state: FightState, level: int) -> tuple[FightState, list[Event]]:
    """Part Five: change the combat level between rounds (e.g. a quicker level for the goons)."""
    if level not in (1, 2, 3, 4):
        raise CombatError(f"there is no combat level {level}", hint="B.U.M. has levels 1, 2, 3 and 4")
    ev = Event("level", f"The GM switches to combat level {level}.", state.round + 1, data={"from": state.level, "to": level})
    return state.model_copy(update={"level": level}), [ev]


def apply_hazard(state: FightState, name: str, *, wounds: int = 0, stun_rounds: int = 0, cause: str = "") -> tuple[FightState, list[Event]]:
    """Part Seven in a fight: wounds from a fall, fire, explosion or acid, or stun from electricity."""
    if wounds < 0 or stun_rounds < 0:
        raise CombatError("wounds and stun rounds cannot be negative")
    f = state.fighter(name)
    hp = max(0, f.hp - wounds)
    new_f = f.model_copy(update={"hp": hp, "stunned": f.stunned + stun_rounds})
    text = f"{name} suffers {cause or 'a hazard'}: {wounds} wound(s), stunned {stun_rounds} round(s); {hp} HP left."
    events = [Event("hazard", text, state.round, name, {"wounds": wounds, "stun": stun_rounds})]
    fighters = tuple(new_f if x.name == name else x for x in state.fighters)
    return state.model_copy(update={"fighters": fighters}), events


def knock_down(state: FightState, name: str, *, bow_too: bool = False) -> tuple[FightState, list[Event]]:
    """Appendix A, Partially Loaded Weapons: knocked over or thrown from a horse, a fitted crossbow bolt falls out
    (the string stays cocked); a nocked arrow is lost only if the GM says so (``bow_too``)."""
    f = state.fighter(name)
    kind = (_missile(f) or UNARMED).reload
    new = f.readiness
    if f.readiness == "ready" and kind == "crossbow":
        new = "cocked"
    elif f.readiness == "ready" and kind == "bow" and bow_too:
        new = "unready"
    text = f"{name} is knocked over" + (f": his {(_missile(f) or UNARMED).name} is no longer ready ({new})." if new != f.readiness else ".")
    fighters = tuple(x.model_copy(update={"readiness": new, "reload_progress": 0}) if x.name == name else x for x in state.fighters)
    return state.model_copy(update={"fighters": fighters}), [Event("knocked-down", text, state.round, name, {"readiness": new})]


class BumCombat:
    """The B.U.M. fight engine (satisfies :class:`storymaster.rules.CombatEngine`)."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: HouseRules | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> FightState:
        """Options: level (1-4, default 4), distance (turns), initiative ('gm'|'dex'|'int'), initiator (side),
        dc (level 1), order (names), delay ({name: after}), switch ({round: level}), tactics ({name: tactic}),
        targets ({name: target}), surprised (names caught unaware in round 1), sneak_dc, sneak_headshot, max_rounds."""
        opts = dict(options or {})
        hr = house_rules if house_rules is not None else BumHouseRules()
        if not isinstance(hr, BumHouseRules):
            raise CombatError("B.U.M. fights take B.U.M. house rules")
        if len([s for s in sides if s]) < 2:
            raise CombatError("a fight needs at least two sides with someone on them")
        level = int(opts.pop("level", 4))
        if level not in (1, 2, 3, 4):
            raise CombatError(f"there is no combat level {level}", hint="B.U.M. has levels 1, 2, 3 and 4")
        tactics: Mapping[str, str] = opts.pop("tactics", {}) or {}
        targets: Mapping[str, str] = opts.pop("targets", {}) or {}
        fighters: list[Fighter] = []
        seen: dict[str, int] = {}
        for side_no, side in enumerate(sides):
            for c in side:
                if not isinstance(c, BumCharacter):
                    raise CombatError(f"side {side_no + 1} has a {type(c).__name__}, not a B.U.M. character")
                seen[c.name] = seen.get(c.name, 0) + 1
                name = c.name if seen[c.name] == 1 else f"{c.name} {seen[c.name]}"
                ranged = c.weapons.ranged
                missile = profile(c, "ranged")
                # a bow or crossbow ready to shoot is in his hands (Appendix A, Partially Loaded Weapons)
                holding = ranged is not None and missile is not None and ranged.readiness == "ready" and missile.reload in ("bow", "crossbow")
                fighters.append(
                    Fighter(
                        name=name, side=side_no, character=c, hp=current_hp(c),
                        wielding="ranged" if holding else None,
                        readiness=ranged.readiness if ranged else "ready",
                        tactic=tactics.get(name, tactics.get(c.name, "auto")),  # type: ignore[arg-type]
                        target=targets.get(name, targets.get(c.name)),
                    )
                )
        names = {f.name for f in fighters}
        distance = int(opts.pop("distance", 0))
        if distance < 0:
            raise CombatError(f"distance {distance} is negative", hint="give the distance in turns: 0 for melee reach")
        order = tuple(opts.pop("order", ()) or ())
        if order and sorted(order) != sorted(names):
            raise CombatError(f"the turn order {list(order)} must name every fighter once: {sorted(names)}")
        delay = tuple((str(k), str(v)) for k, v in (opts.pop("delay", {}) or {}).items())
        for who, after in delay:
            if who not in names or after not in names:
                raise CombatError(f"delay {who!r} after {after!r}: both must be fighters in this fight")
        switch = tuple(sorted((int(k), int(v)) for k, v in (opts.pop("switch", {}) or {}).items()))
        for rnd, lvl in switch:
            if lvl not in (1, 2, 3, 4) or rnd < 1:
                raise CombatError(f"cannot switch to level {lvl} at round {rnd}", hint="rounds count from 1; levels are 1-4")
        initiative = opts.pop("initiative", "gm")
        if initiative not in ("gm", "dex", "int"):
            raise CombatError(f"initiative {initiative!r} is not gm, dex or int")
        initiator = int(opts.pop("initiator", 0))
        dc = int(opts.pop("dc", 6))
        if dc < 1:
            raise CombatError(f"a difficulty of {dc} is not possible", hint="the GM picks a DC from 1 up (standard 6)")
        max_rounds = int(opts.pop("max_rounds", 100))
        surprised = tuple(str(n) for n in (opts.pop("surprised", ()) or ()))
        for n in surprised:
            if n not in names:
                raise CombatError(f"surprised fighter {n!r} is not in this fight")
        sneak_dc = int(opts.pop("sneak_dc", 6))
        opts_headshot = opts.pop("sneak_headshot", False)
        if sneak_dc < 1:
            raise CombatError(f"a sneak-attack difficulty of {sneak_dc} is not possible")
        if opts:
            raise CombatError(f"unknown fight option(s): {', '.join(sorted(opts))}")
        for f in fighters:
            if f.tactic not in ("auto", "melee", "ranged", "hold"):
                raise CombatError(f"{f.name}: tactic {f.tactic!r} is not auto, melee, ranged or hold")
        return FightState(
            level=level, distance=distance, order=order, fighters=tuple(fighters), initiative=initiative,
            initiator=initiator, dc=dc, delay=delay, switch=switch, max_rounds=max_rounds, house_rules=hr,
            surprised=surprised, sneak_dc=sneak_dc, sneak_headshot=bool(opts_headshot),
        )

    def step(self, state: BaseModel, rng: DiceRng) -> tuple[FightState, list[Event]]:
        """Play one round at the current level; return the new state and what happened."""
        if not isinstance(state, FightState):
            raise CombatError("not a B.U.M. fight state")
        if self.is_over(state):
            raise CombatError("the fight is over", hint="start a new fight")
        events: list[Event] = []
        for rnd, lvl in state.switch:
            if rnd == state.round + 1 and lvl != state.level:
                state, evs = switch_level(state, lvl)
                events += evs
        r = _Round(state, rng)
        r.events = events
        for n in r.f:
            r.upd(n, acted=False)
        if state.round == 0:
            if not state.order:
                _initiative(r)
            _apply_delays(r)
        {1: _round_level1, 2: _round_opposed, 3: _round_opposed, 4: _round_level4}[r.s.level](r)
        new = r.s.model_copy(
            update={
                "fighters": tuple(r.f[f.name] for f in state.fighters),
                "round": state.round + 1,
                "distance": r.distance,
            }
        )
        if len(_sides_left(new.fighters)) < 2:
            new = new.model_copy(update={"ended": True})
            w = self.winner(new)
            names = " and ".join(f.name for f in new.fighters if f.side == w and f.standing)
            text = f"{names} (side {w + 1}) win{'s' if ' and ' not in names else ''} the fight." if w is not None else "Nobody is left standing."
            r.events.append(Event("end", text, new.round, data={"winner": w}))
        elif new.round >= new.max_rounds:
            new = new.model_copy(update={"ended": True})
            r.events.append(Event("end", f"After {new.round} rounds the fight is a stand-off.", new.round, data={"winner": None}))
        return new, r.events

    def is_over(self, state: BaseModel) -> bool:
        assert isinstance(state, FightState)
        return state.ended or len(_sides_left(state.fighters)) < 2

    def winner(self, state: BaseModel) -> int | None:
        assert isinstance(state, FightState)
        left = _sides_left(state.fighters)
        if len(left) == 1 and self.is_over(state):
            return next(iter(left))
        return None

    def run(self, state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
        """Step until the fight is over; all the events in order."""
        events: list[Event] = []
        while not self.is_over(state):
            state, evs = self.step(state, rng)
            events += evs
        return state, events
