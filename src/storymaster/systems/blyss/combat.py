"""Combat as a pure state machine over rounds (BLYSS 3.5, Combat Mechanics).

Each ``step`` plays one round: Initiative (first round, or every round by house rule), dying
checks, the Declaration Round (slowest first, so faster characters can react) and the Action
Round (in the Declaration Round's order: slowest first; house rule ``action_order``). Choices are
automatic, steered by each fighter's ``tactic``:

- ``attack``: attack the weakest standing enemy every round;
- ``defensive``: Defend (armed) or Evade (unarmed) against an attack declared by a slower enemy,
  otherwise attack; a successful Defence gives a Counterattack at TD -2;
- ``aim``: Aim one round (Dexterity + Intelligence, TD 8), then attack with the bonus;
- ``disarm``: try to Disarm an armed enemy, otherwise attack.

The state is a frozen pydantic model, JSON-serialisable, so fights can be saved and replayed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from ...dice import DiceRng
from ...errors import CombatError
from ...forecast.chance import Rolled
from ...rules.models import Model
from ...rules.protocol import CombatantStatus, Event
from .character import (
    Armour,
    Character,
    Weapon,
    damaged_armour_rating,
    defence,
    initiative,
    max_dodges,
    max_flesh_wounds,
    max_health,
    melee_attack,
    ranged_attack,
    validate_character,
)
from .checks import Pool, pool_dice
from .living import Vitals, deprivation_pool_ranks, deprived_rank, wound_level, wound_penalty
from .options import BlyssHouseRules
from .round import Roster, from_state, play_round, to_state
from .tables import table
from .tracker import fight_order, fight_tracker

__all__ = [
    "BlyssCombat",
    "FightState",
    "Fighter",
    "action_round_order",
    "aim_pool",
    "attribute",
    "best_attack_face",
    "called_shot_td",
    "initiative_pool",
]

Tactic = Literal["attack", "defensive", "aim", "disarm"]
_T = TypeVar("_T")
CalledShot = Literal["limb", "head", "eye"]
UNARMED = Weapon(name="Unarmed", damage="d4", skill="Unarmed Combat", blunt=True)
MELEE_REACH_FT = 5
_LOCATION = {None: "T", "limb": "A", "head": "H", "eye": "F"}


class Action(Model):
    kind: Literal["attack", "disarm", "defend", "evade", "aim", "move", "recover", "none"]
    target: str | None = None


class Fighter(Model):
    """One combatant: the character, what is left of them, and their fight-only state."""

    id: str
    side: int
    character: Character
    vitals: Vitals
    tactic: Tactic = "attack"
    called_shot: CalledShot | None = None
    armour_choice: Literal["auto", "body", "armour"] = "auto"
    weapon: int | None = Field(None, description="index of the wielded weapon; None fights unarmed")
    weapon_dropped: bool = False
    armour_lives: tuple[int, ...] = ()
    deprivation: int = Field(
        0,
        ge=0,
        description="ranks lost to Fatigue, Hunger and Thirst together (the table's condition brings them in); "
        "every pool the fighter rolls loses them by living.deprivation_pool_ranks",
    )
    aim_bonus: int = 0
    aim_called: bool = False
    aimed_this_round: int = 0
    counter_ready: bool = False
    last_blow_blunt: bool = False
    declared: Action | None = None
    acted: bool = False

    @property
    def active(self) -> bool:
        return self.vitals.active

    def wielded(self) -> Weapon:
        if self.weapon is None or self.weapon_dropped:
            return UNARMED
        return self.character.weapons[self.weapon]


class FightState(Model):
    """A fight between sides, between rounds."""

    round: int = 0
    fighters: tuple[Fighter, ...]
    order: tuple[str, ...] = ()
    distance: int = Field(0, ge=0, description="feet between the sides")
    house_rules: BlyssHouseRules = BlyssHouseRules()
    over: bool = False
    winner: int | None = None

    def get(self, fid: str) -> Fighter:
        return next(f for f in self.fighters if f.id == fid)


def called_shot_td(location: CalledShot | None, *, aimed: bool, size_doublings: int = 0) -> int:
    """The TD of an attack (Attacking: TD 8) or Called Shot (Aiming: limb 10 / head 12 / eye 14 when aimed;
    12 / 14 / 16 without aiming); every doubling of the target's size above human lowers it by 2."""
    w = table("wounds")
    base = w["attack_td"] if location is None else w["called_shot_td"]["aimed" if aimed else "unaimed"][location]
    return max(0, base - 2 * size_doublings)


# ---------------------------------------------------------------- helpers on fighters
def _replace(state: FightState, *fighters: Fighter) -> FightState:
    by = {f.id: f for f in fighters}
    return state.model_copy(update={"fighters": tuple(by.get(f.id, f) for f in state.fighters)})


def _penalties(f: Fighter, hr: BlyssHouseRules) -> tuple[int, int]:
    """Wound Level penalty (ranks, die modifier)."""
    return wound_penalty(wound_level(f.vitals), hr)


def _deprived(f: Fighter, pool: Pool, hr: BlyssHouseRules, notes: list[str] | None = None) -> Pool:
    """``pool`` less the fighter's Fatigue, Hunger and Thirst (ruling B-L6: every pool a fighter rolls, by the
    same rule as a check at the table, :func:`deprivation_pool_ranks`)."""
    extra = deprivation_pool_ranks(f.deprivation, len(pool.ranks), hr)
    if not extra:
        return pool
    if notes is not None:
        notes.append(f"fatigue, hunger, thirst -{extra} rank(s)")
    return pool.model_copy(update={"penalty_ranks": pool.penalty_ranks + extra})


def attribute(f: Fighter, name: str, hr: BlyssHouseRules, *, in_a_test: bool) -> int:
    """The fighter's Attribute ``name`` now, with Fatigue, Hunger and Thirst (:func:`living.deprived_rank`):
    Stamina in a dying check (a Test), Strength for the damage bonus and Agility for Movement (not Tests)."""
    return deprived_rank(getattr(f.character.attributes, name), f.deprivation, hr, in_a_test=in_a_test)


def aim_pool(f: Fighter, hr: BlyssHouseRules) -> Pool:
    """Aiming: Dexterity + Intelligence, less the Wound Level and deprivation."""
    a = f.character.attributes
    wr, dm = _penalties(f, hr)
    return _deprived(f, Pool(name=f.id, ranks=(a.dexterity, a.intelligence), penalty_ranks=wr, die_modifier=dm), hr)


def initiative_pool(f: Fighter, hr: BlyssHouseRules) -> Pool:
    """Initiative: the derived Initiative, less the Wound Level and deprivation."""
    wr, dm = _penalties(f, hr)
    return _deprived(
        f, Pool(name=f.id, ranks=(initiative(f.character.attributes),), penalty_ranks=wr, die_modifier=dm), hr
    )


def _armour_penalty(f: Fighter) -> int:
    """Armour's Action Modifier on physical actions, doubled without skill (Armour: Action Modifier)."""
    total = 0
    for a, lives in zip(f.character.armour, f.armour_lives, strict=True):
        if lives <= 0:
            continue
        unskilled = a.skill is not None and f.character.trait(a.skill) is None
        total += -a.action_modifier * (2 if unskilled else 1)
    return total


def _skill_rank(c: Character, name: str | None) -> int | None:
    if not name:
        return None
    t = c.trait(name)
    if t is None or t.negative or t.rank <= 0:
        return None
    return t.rank


def _default_skill(w: Weapon) -> str:
    return w.skill or ("Ranged Combat" if w.ranged else "Armed Combat")


def attack_pool(f: Fighter, state: FightState, *, disarm: bool = False) -> tuple[Pool, list[str]]:
    """The attacker's pool (Attacking; Weapons: Attack Modifier, Range Increment; Armour: Action Modifier;
    Wound Levels). Returns the pool and the reasons for each change."""
    hr = state.house_rules
    c, w = f.character, f.wielded()
    notes: list[str] = []
    base = ranged_attack(c.attributes) if w.ranged else melee_attack(c.attributes)
    base += f.aim_bonus  # Aiming: each success adds a point (ruling: a rank) to the Attack attribute
    if f.aim_bonus:
        notes.append(f"aim +{f.aim_bonus} rank(s)")
    ranks = [base]
    skill = _skill_rank(c, _default_skill(w))
    penalty = 0
    if skill is not None:
        t = c.trait(_default_skill(w))
        if t is not None and t.specialisations and t.specialisations[0].lower() == w.name.lower():
            skill += 1  # Specialisation: an additional rank when the specialist topic comes into play
            notes.append(f"specialised in {w.name} +1 rank")
        ranks.append(skill)
    elif w is not UNARMED:
        # Weapons: Attack Modifier - 'a weapon they have no skill with'; fists are no weapon (issue 14)
        penalty += table("wounds")["unskilled_weapon_penalty"]
        notes.append(f"no {_default_skill(w)} skill -2 ranks")
    bonus = 0
    if w.attack_modifier > 0:
        bonus += w.attack_modifier
        notes.append(f"{w.name} +{w.attack_modifier}")
    elif w.attack_modifier < 0:
        penalty -= w.attack_modifier
        notes.append(f"{w.name} {w.attack_modifier}")
    if w.ranged and w.range_increment and state.distance > w.range_increment:
        steps = math.ceil(state.distance / w.range_increment) - 1
        penalty += steps
        notes.append(f"range -{steps}")
    arm = _armour_penalty(f)
    if arm:
        penalty += arm
        notes.append(f"armour -{arm}")
    wr, dm = _penalties(f, hr)
    if wr or dm:
        penalty += wr
        notes.append(f"{wound_level(f.vitals)}" + (f" -{wr} rank(s)" if wr else f" {dm} per die"))
    pool = Pool(name=f.id, ranks=tuple(ranks), penalty_ranks=penalty, bonus_ranks=bonus, die_modifier=dm)
    return _deprived(f, pool, hr, notes), notes


def defence_pool(f: Fighter, state: FightState, kind: str) -> Pool:
    """Defending: Defence + the weapon's skill; Evading: Agility + a trait for it (Defending; Evading).
    Disarm resistance: Strength (Disarming)."""
    hr = state.house_rules
    c = f.character
    if kind == "defend":
        ranks = [defence(c.attributes)]
        skill = _skill_rank(c, _default_skill(f.wielded()))
        if skill is not None:
            ranks.append(skill)
    elif kind == "evade":
        ranks = [c.attributes.agility]
        for name in ("Evasion", "Evade", "Dodge", "Acrobatics"):
            r = _skill_rank(c, name)
            if r is not None:
                ranks.append(r)
                break
    else:
        ranks = [c.attributes.strength]
    wr, dm = _penalties(f, hr)
    penalty = wr + (_armour_penalty(f) if kind != "strength" else 0)
    return _deprived(f, Pool(name=f.id, ranks=tuple(ranks), penalty_ranks=penalty, die_modifier=dm), hr)


def action_round_order(initiative_order: Sequence[_T], hr: BlyssHouseRules) -> list[_T]:
    """The Action Round's order from the Initiative order (fastest first). The Action Round: results are
    established 'in the same order where possible' as the Declaration Round, which starts with the character
    lowest in the Initiative Order: slowest first. House rule ``action_order: initiative`` is fastest first."""
    return list(reversed(initiative_order)) if hr.action_order == "declaration" else list(initiative_order)


def best_attack_face(f: Fighter, state: FightState) -> tuple[int, int]:
    """(the highest value one of the fighter's attack dice can show against the TD, that TD), unhurt, at the
    fight's start. A fighter who aims, or counterattacks after defending, may do better: they count as able to
    hit. Used to find a fight in which nobody can ever hit (Character Tests: a die must equal or beat the TD)."""
    pool, _ = attack_pool(f, state)
    dice = pool_dice(pool, state.house_rules)
    td = called_shot_td(f.called_shot, aimed=False)
    if f.tactic in ("aim", "defensive"):
        return (10**6, td)
    best = max(dice, default=0)
    return (best + pool.die_modifier if best >= 2 else 0, td)


def _current_ar(a: Armour, lives: int) -> int:
    """Armour Rating after damage: a third of the original (rounded down) lost per life (Armour Rating)."""
    return damaged_armour_rating(a.armour_rating, lives)


def _starting_weapon(c: Character, distance: int) -> int | None:
    """The weapon in hand at the start: a ranged one if the foe is out of reach and one is carried,
    otherwise the first melee weapon (or the first weapon); None fights unarmed."""
    if not c.weapons:
        return None
    ranged = [i for i, w in enumerate(c.weapons) if w.ranged]
    melee = [i for i, w in enumerate(c.weapons) if not w.ranged]
    if distance > MELEE_REACH_FT and ranged:
        return ranged[0]
    return melee[0] if melee else 0


def _fighter(c: Character, side: int, fid: str, opts: Mapping[str, Any], distance: int = 0) -> Fighter:
    v = Vitals.fresh(max_dodges(c), max_flesh_wounds(c), max_health(c))
    weapon = _starting_weapon(c, distance)
    return Fighter(
        id=fid, side=side, character=c, vitals=v, weapon=weapon, armour_lives=tuple(a.lives for a in c.armour), **opts
    )


def _opts_for(options: Mapping[str, Any], name: str, side: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("tactic", "called_shot", "armour_choice"):
        val = options.get(key)
        if isinstance(val, Mapping):
            val = val.get(name, val.get(str(side)))
        elif isinstance(val, (list, tuple)):
            val = val[side] if side < len(val) else None
        if val is not None:
            out[key] = val
    return out


class BlyssCombat:
    """The BLYSS fight engine (satisfies ``storymaster.rules.CombatEngine``)."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: BlyssHouseRules | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> FightState:
        hr = house_rules or BlyssHouseRules()
        options = dict(options or {})
        if len(sides) < 2 or any(len(s) == 0 for s in sides):
            raise CombatError("a fight needs at least two sides, each with at least one character")
        fighters: list[Fighter] = []
        seen: dict[str, int] = {}
        try:
            distance = int(options.get("distance", 0))
        except (TypeError, ValueError):
            raise CombatError("the distance between the sides is a whole number of feet") from None
        if distance < 0:
            raise CombatError("the distance between the sides is 0 feet or more")
        allow_illegal = bool(options.pop("allow_illegal", False))
        for si, side in enumerate(sides):
            for c in side:
                if not isinstance(c, Character):
                    raise CombatError(f"a BLYSS fight takes BLYSS characters, not {type(c).__name__}")
                problems = [] if allow_illegal else validate_character(c, hr)
                if problems:
                    raise CombatError(
                        f"{c.name} is not a legal BLYSS character: " + "; ".join(str(p) for p in problems),
                        hint="fix the sheet (storymaster blyss sheet shows every problem), or let the SM allow it",
                    )
                n = seen.get(c.name, 0) + 1
                seen[c.name] = n
                fid = c.name if n == 1 else f"{c.name} ({n})"
                try:
                    fighters.append(_fighter(c, si, fid, _opts_for(options, c.name, si), distance))
                except Exception as exc:  # pydantic ValidationError on a bad tactic
                    raise CombatError(
                        f"bad fight option for {c.name}: {exc}",
                        hint="tactic: attack|defensive|aim|disarm; called_shot: limb|head|eye",
                    ) from None
        state = FightState(fighters=tuple(fighters), distance=distance, house_rules=hr)
        reach = {f.id: best_attack_face(f, state) for f in state.fighters}
        if not any(face >= td for face, td in reach.values()):
            shown = "; ".join(f"{fid}: best die {face} against TD {td}" for fid, (face, td) in reach.items())
            raise CombatError(
                f"neither side can ever hit the other, so the fight could only end at the round cap ({shown})",
                hint="an attack succeeds on a die that meets the Attack TD (8); give someone a skill, a weapon or aim",
            )
        return state

    def is_over(self, state: BaseModel) -> bool:
        return bool(state.over)

    def winner(self, state: BaseModel) -> int | None:
        return state.winner

    # ------------------------------------------------------------ the GM's tracker (rules.FightTracker)
    def initiative_order(self, state: BaseModel) -> list[str]:
        """Fighter ids in Initiative order, fastest first; empty before round 1."""
        if not isinstance(state, FightState):
            raise CombatError("not a BLYSS fight state")
        return fight_order(state)

    def tracker(self, state: BaseModel) -> list[CombatantStatus]:
        """Each fighter's place, Wound Level and Dodges / Flesh Wounds / Health left."""
        if not isinstance(state, FightState):
            raise CombatError("not a BLYSS fight state")
        return fight_tracker(state)

    # ------------------------------------------------------------ one round
    def step(self, state: BaseModel, rng: DiceRng) -> tuple[FightState, list[Event]]:
        if not isinstance(state, FightState):
            raise CombatError("not a BLYSS fight state")
        if state.over:
            raise CombatError("the fight is over", hint="start a new fight")
        st, ev = play_round(to_state(state), Roster(state), Rolled(rng))
        return from_state(st, state), ev


def weapon_switch_rounds(*, drop_current: bool) -> int:
    """Rounds to change weapons (Equipment Use): a round to put one away and a round to ready the next;
    dropping the old one is a free action, so only readying takes a round."""
    return 1 if drop_current else 2
