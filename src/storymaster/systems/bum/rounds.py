"""One round of a B.U.M. fight at each level: the per-round transition the engine steps through.

* Level 1: each player-side fighter rolls his best attack total against the GM's DC.
* Level 2: opposed rolls; the loser of a roll loses the fight (or a wound: ``loser_fate``).
* Level 3: opposed rolls; the loser of each roll loses a hit point; 0 HP is out.
* Level 4: turns in order; each attack is rolled against the target's defence
  (melee or ranged); a hit deals the weapon's wounds (1, the musket 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...dice import DiceRng, RollRecord
from ...rules import Event
from .character import Readiness, Slot, WeaponProfile, attack_parts, defence_parts, profile
from .checks import d6, range_penalty, roll_opposed, tie_goes_to
from .fighters import (
    UNARMED,
    Fighter,
    FightState,
    after_setting_down,
    gm_order,
    in_hand,
    is_player,
    melee_slot,
    missile_of,
    reload_actions,
    simple_bonus,
)

__all__ = ["after_shot", "play_round", "sides_left"]


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


def _initiative(r: _Round) -> None:
    """Part Five, Turn Sequence: GM order (initiator first, longer reach first in melee) or a DEX/INT roll."""
    s = r.s
    names = [x.name for x in s.fighters]
    if s.initiative == "gm":
        order = gm_order(s)
        r.emit("initiative", "Turn order (GM, initiator first, longer reach first): " + ", ".join(order), order=order)
    else:
        stat = "DEX" if s.initiative == "dex" else "INT"
        scores: dict[str, tuple[int, ...]] = dict.fromkeys(names, ())
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
        r.emit(
            "sneak",
            f"{att.name} falls on the unaware {tgt.name} with {prof.name}: no roll needed.",
            att.name,
            target=tgt.name,
            hit=True,
        )
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
    outcome = (
        ("Hit in the head: he is killed or incapacitated." if head else f"Hit: {prof.wounds} wound(s).")
        if hit
        else "Miss."
    )
    r.emit(
        "sneak",
        f"{att.name} attacks the unaware {tgt.name} with {prof.name}: {rec.total}{bonus:+d}={rec.total + bonus} "
        f"against DC {r.s.sneak_dc}. {outcome}",
        att.name,
        (rec,),
        target=tgt.name,
        hit=hit,
        attack_parts=parts,
        dc=r.s.sneak_dc,
        headshot=head,
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
    shielded = not (ranged and prof.modern and r.hr.modern_guns_ignore_armour)
    d_parts = defence_parts(tgt.character, ranged=ranged, weapon=in_hand(tgt), armour=shielded)
    a_tot, d_tot = sum(v for _, v in a_parts), sum(v for _, v in d_parts)
    tie_to = tie_goes_to(r.hr, "attacker", is_player(att), is_player(tgt))
    hit, recs, totals = roll_opposed(a_tot, d_tot, r.rng, tie_to, (f"{att.name} attack", f"{tgt.name} defence"))
    dice = [
        f"{recs[2 * i].total}+{a_tot}={ta} vs {recs[2 * i + 1].total}+{d_tot}={tb}" for i, (ta, tb) in enumerate(totals)
    ]
    kind = "ranged" if ranged else "melee"
    text = f"{att.name} attacks {tgt.name} with {prof.name} ({kind}): " + "; tie, again: ".join(dice)
    if hit:
        left = max(0, tgt.hp - prof.wounds)
        text += f". Hit: {tgt.name} takes {prof.wounds} wound{'s' if prof.wounds > 1 else ''} ({left} HP left)."
    else:
        text += f". {tgt.name} defends."
    r.emit(
        "attack",
        text,
        att.name,
        recs,
        target=tgt.name,
        weapon=prof.name,
        ranged=ranged,
        attack=a_tot,
        defence=d_tot,
        attack_parts=a_parts,
        defence_parts=d_parts,
        hit=hit,
        totals=totals,
    )
    if hit:
        r.wound(r.f[tgt.name], prof.wounds, f"{prof.name} of {att.name}")


def _longspear_first(r: _Round, att: Fighter, tgt: Fighter) -> None:
    """Appendix A footnote **: a longspear wielder who is attacked strikes first, using his attack for the turn."""
    if not r.hr.longspear_first_strike or tgt.acted or not tgt.standing or tgt.stunned or _surprised(r, tgt):
        return
    prof = in_hand(tgt)
    slot = tgt.wielding or melee_slot(tgt)
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
    missile = missile_of(f)
    ready = f.readiness == "ready"
    # Turn Sequence: in a fight that starts in melee reach a ready missile weapon still gets its opening shot
    # (the crossbow goes before the spear and the axe); once the melee is joined only handguns still work.
    opening = r.s.round == 0 and ready
    # Appendix A: only so many arrows, bolts, knives or loaded pistols; a loaded gun needs no spare ammunition
    has_ammo = (
        f.ammo is None
        or f.ammo > 0
        or (missile is not None and missile.reload == "muzzleloader")  # 'ammo' counts loaded guns, not powder
    )
    use_missile = (
        missile is not None
        and f.tactic != "melee"
        and has_ammo
        and (r.distance > 0 or (ready and (missile.melee_usable or opening)))
    )
    if use_missile and missile is not None and f.tactic == "auto" and f.readiness != "ready":
        # Appendix A: a muzzle-loader 'generally cannot be reloaded in combat'; on 'auto' he fights on instead
        use_missile = reload_actions(missile.reload, r.hr) <= reload_actions("crossbow", r.hr)
    if use_missile and missile is not None:
        pen = range_penalty(r.distance, rifle=missile.rifle, thrown=missile.reload == "thrown", hr=r.hr)
        if pen is None:
            use_missile = False  # out of throwing range: close in instead
    if use_missile and missile is not None:
        if f.wielding != "ranged":
            f = r.upd(name, wielding="ranged")
        if f.readiness == "ready":
            _attack(r, f, tgt, "ranged", penalty=pen or 0, ranged=True)
            left = None if f.ammo is None else max(0, f.ammo - 1)
            r.upd(name, readiness=after_shot(missile, left), reload_progress=0, acted=True, ammo=left)
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
            r.emit(
                "move", f"{name} runs flat out toward {tgt.name} (double move); {_apart(r)}.", name, distance=r.distance
            )
            return
        r.distance -= 1
        r.emit("move", f"{name} moves toward {tgt.name}; {_apart(r)}.", name, distance=r.distance)
        if r.distance > 0:
            r.upd(name, acted=True)
            return
    slot = melee_slot(f)
    if f.wielding != slot:
        f = r.upd(name, wielding=slot, readiness=after_setting_down(f) if f.wielding == "ranged" else f.readiness)
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
        r.emit(
            "sneak",
            f"{att.name} falls on the unaware {tgt.name} with bare hands: no roll needed.",
            att.name,
            target=tgt.name,
            hit=True,
        )
        r.wound(r.f[tgt.name], r.f[tgt.name].hp, f"sneak attack by {att.name}")
        return
    a_tot = att.character.stats.STR
    d_parts = defence_parts(tgt.character, weapon=in_hand(tgt))
    d_tot = sum(v for _, v in d_parts)
    hit, recs, totals = roll_opposed(a_tot, d_tot, r.rng, tie_goes_to(r.hr, "attacker", is_player(att), is_player(tgt)))
    r.emit(
        "attack",
        f"{att.name} punches at {tgt.name}: {totals[-1][0]} vs {totals[-1][1]}. "
        + ("Hit." if hit else f"{tgt.name} defends."),
        att.name,
        recs,
        target=tgt.name,
        weapon="bare hands",
        hit=hit,
        attack=a_tot,
        defence=d_tot,
        totals=totals,
    )
    if hit:
        r.wound(r.f[tgt.name], 1, f"fists of {att.name}")


def after_shot(missile: WeaponProfile, ammo_left: int | None) -> Readiness:
    """Appendix A, Reloading: a bow or crossbow must be loaded again; a firearm is empty unless another loaded
    gun is at hand ('a character carrying multiple pistols can fire one each round'); thrown weapons stay ready."""
    if missile.reload in (None, "thrown"):
        return "ready"
    if missile.reload == "muzzleloader":
        return "ready" if ammo_left else "empty"
    return "unready"


def _reload(r: _Round, f: Fighter, missile: WeaponProfile) -> None:
    """Appendix A, Reloading: one action per step (brace, draw, fit for a crossbow)."""
    need = reload_actions(missile.reload, r.hr)
    progress = f.reload_progress + 1
    if missile.reload == "crossbow" and f.readiness == "cocked":
        progress = need
    if progress >= need:
        loaded = 1 if missile.reload == "muzzleloader" and f.ammo is not None else f.ammo
        r.upd(f.name, readiness="ready", reload_progress=0, acted=True, ammo=loaded)
        r.emit("reload", f"{f.name} readies his {missile.name}: it can fire next turn.", f.name, weapon=missile.name)
        return
    state: Readiness = "cocked" if missile.reload == "crossbow" and progress == need - 1 else f.readiness
    r.upd(f.name, readiness=state, reload_progress=progress, acted=True)
    r.emit(
        "reload", f"{f.name} works at reloading his {missile.name} ({progress}/{need}).", f.name, weapon=missile.name
    )


def _round_level4(r: _Round) -> None:
    for name in r.s.order:
        if len(sides_left(r.f.values())) < 2:
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
        bonus = simple_bonus(f.character, r.hr)
        rec = d6(r.rng, f"{name} fight roll")
        ok = rec.total + bonus >= r.s.dc
        r.emit(
            "fight-roll",
            f"{name} rolls {rec.total}+{bonus}={rec.total + bonus} against DC {r.s.dc}: "
            + (f"wins against {tgt.name}." if ok else f"loses to {tgt.name}."),
            name,
            (rec,),
            target=tgt.name,
            success=ok,
            dc=r.s.dc,
            bonus=bonus,
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
        a, b = simple_bonus(f.character, r.hr), simple_bonus(tgt.character, r.hr)
        role = "attacker" if f.side == r.s.initiator else "defender"
        tie_to = tie_goes_to(r.hr, role, is_player(f), is_player(tgt))
        won, recs, totals = roll_opposed(a, b, r.rng, tie_to, (f"{name} fight roll", f"{tgt.name} fight roll"))
        winner, loser = (f, r.f[tgt.name]) if won else (r.f[tgt.name], f)
        shown = "; tie, again: ".join(f"{ta} vs {tb}" for ta, tb in totals)
        cost = "loses the fight" if r.s.level == 2 and r.hr.loser_fate == "defeated" else "loses a hit point"
        r.emit(
            "exchange",
            f"{name} ({a:+d}) against {tgt.name} ({b:+d}): {shown}. {winner.name} wins the roll; {loser.name} {cost}.",
            name,
            recs,
            target=tgt.name,
            winner=winner.name,
            totals=totals,
        )
        rolled |= {name, tgt.name}
        r.upd(name, acted=True)
        if r.s.level == 2:
            r.fate(loser, "level 2 fight roll")
        else:
            r.wound(loser, 1, "level 3 exchange")


def sides_left(fighters: Any) -> set[int]:
    """The sides that still have someone standing."""
    return {f.side for f in fighters if f.standing}


def play_round(state: FightState, rng: DiceRng, events: list[Event]) -> tuple[FightState, list[Event]]:
    """Play the next round at the state's level (turn order first, in round 1); the fighters and distance after it."""
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
    return new, r.events
