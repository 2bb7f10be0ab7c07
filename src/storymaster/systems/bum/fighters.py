"""The state of a B.U.M. fight: fighters and what little changes for them, and the chances of one exchange.

Kept small for forecasts and storage: per fighter only hit points, the weapon in
hand, the readiness of his missile weapon, stun and a per-round flag change; the
sides' distance (in turns), the level and the round number are shared.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

from pydantic import Field

from ...errors import CombatError
from ...rules import Model
from .character import (
    SLOTS,
    BumCharacter,
    Readiness,
    Slot,
    WeaponProfile,
    armour_bonus,
    attack_parts,
    profile,
    shield_bonus,
)
from .checks import p_opposed_final, tie_goes_to
from .options import BumHouseRules

__all__ = [
    "UNARMED",
    "FightState",
    "Fighter",
    "Level",
    "Tactic",
    "after_setting_down",
    "attack_odds",
    "exchange_odds",
    "gm_order",
    "in_hand",
    "is_player",
    "melee_slot",
    "missile_of",
    "reach_rank",
    "reload_actions",
    "set_down",
    "simple_bonus",
    "simple_parts",
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
    ammo: int | None = None  # missiles (or loaded guns) left; None: not counted
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


def simple_parts(c: BumCharacter, hr: BumHouseRules | None = None) -> list[tuple[str, int]]:
    """What the one roll of combat levels 1-3 adds, piece by piece.

    Part Four, Weapons and Armor: "In the simple combat rules, just add all these bonuses to
    the stat and skill and roll against the difficulty to win. In the more advanced rules,
    attack and defense bonuses will be applied separately." So by default: the best weapon's
    attack parts (stat, skill, weapon, armour and shield attack modifiers) plus that weapon's
    defence bonus, the armour's and the shield's defence bonuses (bare STR without a weapon).
    House rule ``simple_combat_bonuses='attack'``: the best attack total alone.
    """
    hr = hr or BumHouseRules()
    with_defence = hr.simple_combat_bonuses == "all"
    best: list[tuple[str, int]] | None = None
    for slot in SLOTS:
        if c.weapons.get(slot) is None:
            continue
        parts = attack_parts(c, slot)
        if with_defence:
            p = profile(c, slot)
            if p is not None and p.parry:
                parts.append((f"{p.name} defence", p.parry))
        if best is None or sum(v for _, v in parts) > sum(v for _, v in best):
            best = parts
    if best is None:
        best = [("STR", c.stats.STR)]
        a_att, _ = armour_bonus(c)
        s_att, _ = shield_bonus(c)
        if a_att and c.armour is not None:
            best.append((c.armour.name, a_att))
        if s_att and c.shield is not None:
            best.append((c.shield.name, s_att))
    if with_defence:
        _, a_def = armour_bonus(c)
        _, s_def = shield_bonus(c)
        if c.armour is not None and a_def:
            best.append((f"{c.armour.name} defence", a_def))
        if c.shield is not None and s_def:
            best.append((f"{c.shield.name} defence", s_def))
    return best


def simple_bonus(c: BumCharacter, hr: BumHouseRules | None = None) -> int:
    """Levels 1-3: the sum of :func:`simple_parts`."""
    return sum(v for _, v in simple_parts(c, hr))


def exchange_odds(
    a: BumCharacter, b: BumCharacter, hr: BumHouseRules | None = None, *, a_initiates: bool = True
) -> Fraction:
    """Level 2/3: chance that ``a`` wins one opposed exchange (ties settled by the house rule)."""
    hr = hr or BumHouseRules()
    tie_to = tie_goes_to(hr, "attacker" if a_initiates else "defender", not a.npc, not b.npc)
    return p_opposed_final(simple_bonus(a, hr), simple_bonus(b, hr), tie_to)


def attack_odds(
    attack: int,
    defence: int,
    hr: BumHouseRules | None = None,
    *,
    attacker_is_player: bool = True,
    defender_is_player: bool = False,
) -> Fraction:
    """Level 4: chance one attack hits (d6 + attack total against d6 + defence total)."""
    hr = hr or BumHouseRules()
    return p_opposed_final(attack, defence, tie_goes_to(hr, "attacker", attacker_is_player, defender_is_player))


# --------------------------------------------------------------------------- helpers


def missile_of(f: Fighter) -> WeaponProfile | None:
    return profile(f.character, "ranged")


def melee_slot(f: Fighter) -> Slot | None:
    for slot in ("primary", "backup"):
        p = profile(f.character, slot)  # type: ignore[arg-type]
        if p is not None and not p.ranged:
            return slot  # type: ignore[return-value]
    for slot in ("primary", "backup"):
        p = profile(f.character, slot)  # type: ignore[arg-type]
        if p is not None and p.melee_usable:
            return slot  # type: ignore[return-value]
    return None


def in_hand(f: Fighter) -> WeaponProfile:
    """The weapon in hand (before his first turn: his melee weapon, whose parry counts in melee defence)."""
    slot = f.wielding or melee_slot(f)
    if slot is None:
        return UNARMED
    return profile(f.character, slot) or UNARMED


def reload_actions(kind: str | None, hr: BumHouseRules) -> int:
    """Appendix A, Reloading: a bow takes 1 action, a crossbow 3, a muzzle-loader 10-15 rounds."""
    return {"bow": 1, "crossbow": 3, "muzzleloader": hr.muzzleloader_reload_actions}.get(kind or "", 0)


def after_setting_down(f: Fighter) -> Readiness:
    """Appendix A, Partially Loaded Weapons: a bow cannot be put down nocked; a crossbow keeps only its cocked
    string.
    """
    return set_down((missile_of(f) or UNARMED).reload, f.readiness)


def set_down(kind: str | None, readiness: Readiness) -> Readiness:
    """Appendix A, Partially Loaded Weapons: the readiness of a missile weapon of reload ``kind`` put down (or
    dropped): a nocked arrow is lost, a crossbow keeps only its cocked string."""
    if readiness == "ready" and kind == "bow":
        return "unready"
    if readiness == "ready" and kind == "crossbow":
        return "cocked"
    return readiness


def reach_rank(f: Fighter, distance: int) -> int:
    """Turn Sequence: longer weapons act first when a fight starts in melee reach (ranged 3, long 2, spear 1)."""
    m = missile_of(f)
    if m is not None and f.readiness == "ready":
        return 3
    slot = melee_slot(f)
    p = profile(f.character, slot) if slot else None
    return p.reach if p else 0


def is_player(f: Fighter) -> bool:
    """A player character (for the 'players' tie rule): not a GM character."""
    return not f.character.npc


def gm_order(s: FightState) -> list[str]:
    """Turn Sequence, GM's way: longer weapons first when the fight starts in melee reach, then the initiator's side."""
    names = [x.name for x in s.fighters]

    def key(f: Fighter) -> tuple[int, int, int]:
        reach = -reach_rank(f, s.distance) if s.distance == 0 else 0
        return (reach, 0 if f.side == s.initiator else 1, names.index(f.name))

    return [f.name for f in sorted(s.fighters, key=key)]
