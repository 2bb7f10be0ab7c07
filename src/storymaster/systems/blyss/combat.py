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

from ...dice import DiceRng, RollRecord, roll
from ...errors import CombatError
from ...rules import side_label
from ...rules.models import Model
from ...rules.protocol import CombatantStatus, Event
from .character import (
    Armour,
    Character,
    Weapon,
    armour_soaks,
    damaged_armour_rating,
    defence,
    initiative,
    max_dodges,
    max_flesh_wounds,
    max_health,
    melee_attack,
    movement_feet,
    ranged_attack,
    strength_damage_bonus,
    validate_character,
)
from .checks import Pool, contest_winner, pool_dice, roll_against, roll_initiative
from .dicepool import counts_of, judge
from .living import (
    Vitals,
    apply_damage,
    deprivation_pool_ranks,
    dying_check,
    knockout_check,
    wound_level,
    wound_penalty,
)
from .options import BlyssHouseRules
from .scale import pool_for_rank
from .tables import table
from .tracker import fight_order, fight_tracker

__all__ = [
    "BlyssCombat",
    "FightState",
    "Fighter",
    "action_round_order",
    "aim_pool",
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
        hr = state.house_rules
        rnd = state.round + 1
        st = state.model_copy(update={"round": rnd})
        ev: list[Event] = []
        st = _replace(st, *(f.model_copy(update={"acted": False, "declared": None}) for f in st.fighters))
        # Dying: a Stamina check each turn after falling below 0 (Dying)
        for f in st.fighters:
            if f.vitals.dying:
                v, text, rec = dying_check(f.vitals, f.character.attributes.stamina, rng, hr, blunt=f.last_blow_blunt)
                st = _replace(st, f.model_copy(update={"vitals": v}))
                kind = "death" if v.dead else "dying"
                ev.append(
                    Event(
                        kind,
                        f"{f.id} {text}.",
                        rnd,
                        f.id,
                        {"stabilised": v.stabilised, "dead": v.dead},
                        (rec,) if rec else (),
                    )
                )
        # Initiative (Initiative: first round; re-rolled at SM's discretion)
        if rnd == 1 or hr.reroll_initiative_each_round:
            st, e = _initiative(st, rng, rnd)
            ev += e
        active = [fid for fid in st.order if st.get(fid).active]
        # Declaration Round: slowest first (The Declaration Round)
        for fid in reversed(active):
            f = st.get(fid)
            act = _declare(st, f)
            st = _replace(st, f.model_copy(update={"declared": act}))
            tgt = f" on {act.target}" if act.target else ""
            ev.append(
                Event(
                    "declare", f"{fid} declares: {act.kind}{tgt}.", rnd, fid, {"action": act.kind, "target": act.target}
                )
            )
        # Action Round: 'in the same order where possible' as the Declaration Round (house rule action_order)
        for fid in action_round_order(active, hr):
            f = st.get(fid)
            if not f.active or f.acted or f.declared is None:
                continue
            st, e = _act(st, f, rng, rnd)
            ev += e
        # End of Round: aims carry to the next round only
        ups = []
        for f in st.fighters:
            ups.append(
                f.model_copy(
                    update={
                        "aim_bonus": f.aimed_this_round,
                        "aimed_this_round": 0,
                        "aim_called": f.aim_called if f.aimed_this_round else False,
                    }
                )
            )
        st = _replace(st, *ups)
        standing = {f.side for f in st.fighters if f.active}
        if len(standing) <= 1:
            win = standing.pop() if standing else None
            st = st.model_copy(update={"over": True, "winner": win})
            names = [f.id for f in st.fighters if f.side == win]
            text = (
                f"The fight is over: side {side_label(win)} ({', '.join(names)}) wins."
                if win is not None
                else "The fight is over: nobody is left standing."
            )
            ev.append(Event("end", text, rnd, data={"winner": win}))
        elif rnd >= hr.max_rounds:
            st = st.model_copy(update={"over": True, "winner": None})
            ev.append(Event("end", f"No winner after {rnd} rounds: a stand-off.", rnd, data={"winner": None}))
        return st, ev


def _initiative(st: FightState, rng: DiceRng, rnd: int) -> tuple[FightState, list[Event]]:
    hr = st.house_rules
    entries = []
    for f in st.fighters:
        entries.append((f.id, initiative_pool(f, hr)))
    ordered, text = roll_initiative(entries, rng, hr)
    order = tuple(r.name for r in ordered)
    recs = tuple(r.record for r in ordered if r.record) + tuple(r.rolloff for r in ordered if r.rolloff)
    return st.model_copy(update={"order": order}), [
        Event("initiative", f"Initiative: {' > '.join(order)} ({text}).", rnd, data={"order": list(order)}, rolls=recs)
    ]


def _enemies(st: FightState, f: Fighter) -> list[Fighter]:
    return [e for e in st.fighters if e.side != f.side and e.active]


def _pick_target(st: FightState, f: Fighter) -> Fighter | None:
    foes = _enemies(st, f)
    return min(foes, key=lambda e: (e.vitals.total, st.fighters.index(e)), default=None)


def _declare(st: FightState, f: Fighter) -> Action:
    """Automatic choice of action, knowing what slower characters declared (The Declaration Round)."""
    target = _pick_target(st, f)
    if target is None:
        return Action(kind="none")
    if f.weapon_dropped:
        return Action(kind="recover")
    w = f.wielded()
    if not w.ranged and st.distance > MELEE_REACH_FT:
        return Action(kind="move")
    if f.tactic == "defensive" and not f.counter_ready:
        for other in _enemies(st, f):
            d = other.declared
            if d is not None and d.kind in ("attack", "disarm") and d.target == f.id:
                return Action(
                    kind="defend" if f.weapon is not None and not f.weapon_dropped else "evade", target=other.id
                )
    if f.tactic == "aim" and f.aim_bonus == 0:
        return Action(kind="aim", target=target.id)
    if f.tactic == "disarm" and target.weapon is not None and not target.weapon_dropped:
        return Action(kind="disarm", target=target.id)
    return Action(kind="attack", target=target.id)


def _act(st: FightState, f: Fighter, rng: DiceRng, rnd: int) -> tuple[FightState, list[Event]]:
    act = f.declared
    assert act is not None
    if act.kind in ("defend", "evade", "none"):
        return st, []  # defences wait for the attack; 'none' does nothing
    f = f.model_copy(update={"acted": True})
    st = _replace(st, f)
    if act.kind == "recover":
        st = _replace(st, f.model_copy(update={"weapon_dropped": False}))
        return st, [
            Event(
                "recover",
                f"{f.id} recovers their "
                f"{f.character.weapons[f.weapon].name if f.weapon is not None else 'weapon'} (Equipment Use: a "
                "round to ready it).",
                rnd,
                f.id,
            )
        ]
    if act.kind == "move":
        feet = movement_feet(f.character.attributes.agility)
        new = max(0, st.distance - feet)
        st = st.model_copy(update={"distance": new})
        return st, [
            Event("move", f"{f.id} moves {feet} ft; the sides are now {new} ft apart.", rnd, f.id, {"distance": new})
        ]
    target = st.get(act.target) if act.target else None
    if target is None or not target.active:
        target = _pick_target(st, f)
        if target is None:
            return st, []
    if act.kind == "aim":
        return _aim(st, f, target, rng, rnd)
    return _attack(st, f, target, rng, rnd, disarm=act.kind == "disarm")


def _aim(st: FightState, f: Fighter, target: Fighter, rng: DiceRng, rnd: int) -> tuple[FightState, list[Event]]:
    """Aiming: Dexterity + Intelligence at TD 8 (a Called Shot's TD when aiming at a location); each success
    is a rank on next round's Attack; being hit this round spoils it."""
    hr = st.house_rules
    pool = aim_pool(f, hr)
    dm = pool.die_modifier
    td = table("wounds")["aim_td"] if f.called_shot is None else called_shot_td(f.called_shot, aimed=True)
    rp = roll_against(pool_dice(pool, hr), td, rng, hr, die_modifier=dm, label=f"{f.id} aim")
    succ = rp.judgement.successes if rp else 0
    st = _replace(st, f.model_copy(update={"aimed_this_round": succ, "aim_called": f.called_shot is not None}))
    text = f"{f.id} takes aim at {target.id}: {succ} success(es) on Dexterity + Intelligence vs TD {td}"
    return st, [
        Event(
            "aim",
            text + (f" (+{succ} rank(s) next round)." if succ else " - nothing gained."),
            rnd,
            f.id,
            {"successes": succ, "td": td},
            (rp.record,) if rp else (),
        )
    ]


def _attack(
    st: FightState, att: Fighter, tgt: Fighter, rng: DiceRng, rnd: int, *, disarm: bool
) -> tuple[FightState, list[Event]]:
    hr = st.house_rules
    ev: list[Event] = []
    w = att.wielded()
    pool, notes = attack_pool(att, st, disarm=disarm)
    location = att.called_shot if not disarm else None
    aimed = att.aim_called and att.aim_bonus > 0
    td = called_shot_td(location, aimed=aimed)
    if att.counter_ready:
        td = max(0, td - table("wounds")["counterattack_td_reduction"])
        notes.append("counterattack TD -2")
    dice = pool_dice(pool, hr)
    verb = "tries to disarm" if disarm else "attacks"
    where = f" ({location})" if location else ""
    rp = roll_against(
        dice, td, rng, hr, die_modifier=pool.die_modifier, label=f"{att.id} {'disarm' if disarm else 'attack'}"
    )
    att = att.model_copy(update={"counter_ready": False, "aim_bonus": 0})
    st = _replace(st, att)
    recs: list[RollRecord] = [rp.record] if rp else []
    j = rp.judgement if rp else judge(counts_of((), (), td))
    line = f"{att.id} {verb} {tgt.id}{where} with {w.name}: pool {'+'.join(f'd{s}' for s in dice) or 'd0'} vs TD {td}"
    if notes:
        line += f" ({'; '.join(notes)})"
    line += f" -> {j.key}."
    hit = j.succeeded
    # Defences (Defending, Evading, Disarming): a Contest; the attacker must also beat the Attack TD
    defences: list[str] = []
    line_switch = ""
    if tgt.declared is not None and tgt.declared.kind in ("defend", "evade") and not tgt.acted:
        defences.append(tgt.declared.kind)
    elif (
        tgt.tactic == "defensive"
        and not tgt.acted
        and tgt.active
        and tgt.declared is not None
        and not tgt.counter_ready
    ):
        # Attacking: the target may take a Defensive Action 'if they have not yet acted in the combat round'
        kind = "defend" if tgt.weapon is not None and not tgt.weapon_dropped else "evade"
        defences.append(kind)
        line_switch = f" {tgt.id} gives up their declared {tgt.declared.kind} to {kind}."
        tgt = tgt.model_copy(update={"acted": True})
    if disarm:
        defences.insert(0, "strength")
    defended_ok = False
    line += line_switch
    for kind in defences:
        if not hit:
            break
        dpool = defence_pool(tgt, st, kind)
        d_td = pool.rank_total(hr)
        a_td = dpool.rank_total(hr)
        drp = roll_against(
            pool_dice(dpool, hr), d_td, rng, hr, die_modifier=dpool.die_modifier, label=f"{tgt.id} {kind}"
        )
        dj = drp.judgement if drp else judge(counts_of((), (), d_td))
        aj = (
            judge(
                counts_of(
                    rp.record.faces,
                    rp.dice,
                    a_td,
                    die_modifier=pool.die_modifier,
                    strict=hr.critical_needs_strict_beat,
                    literal_ones=hr.literal_ones,
                )
            )
            if rp
            else dj
        )
        if drp:
            recs.append(drp.record)
        w_ = contest_winner(aj, dj)
        if w_ is None and hr.defence_draw == "reroll":
            for _ in range(20):
                rp2 = roll_against(
                    dice, a_td, rng, hr, die_modifier=pool.die_modifier, label=f"{att.id} contest re-roll"
                )
                drp2 = roll_against(
                    pool_dice(dpool, hr),
                    d_td,
                    rng,
                    hr,
                    die_modifier=dpool.die_modifier,
                    label=f"{tgt.id} contest re-roll",
                )
                recs += [r.record for r in (rp2, drp2) if r]
                aj = rp2.judgement if rp2 else aj
                dj = drp2.judgement if drp2 else dj
                w_ = contest_winner(aj, dj)
                if w_ is not None:
                    break
        label = {"defend": "defends", "evade": "evades", "strength": "resists with Strength"}[kind]
        if w_ == 0:
            line += f" {tgt.id} {label} ({dj.key} vs TD {d_td}) but is bested ({aj.successes} to {dj.successes})."
        else:
            hit = False
            line += (
                f" {tgt.id} {label} successfully ({dj.key} vs TD {d_td} against {aj.successes} attack "
                f"success(es) vs TD {a_td})."
            )
            if kind == "defend" and dj.succeeded:
                defended_ok = True
        if kind in ("defend", "evade"):
            tgt = tgt.model_copy(update={"acted": True})
    if defended_ok:
        tgt = tgt.model_copy(update={"counter_ready": True})
        line += f" {tgt.id} may counterattack at TD -2."
    st = _replace(st, tgt)
    ev.append(
        Event(
            "disarm" if disarm else "attack",
            line,
            rnd,
            att.id,
            {"target": tgt.id, "hit": hit, "td": td, "outcome": j.key, "dice": list(dice)},
            tuple(recs),
        )
    )
    if not hit:
        return st, ev
    if disarm:
        tgt = tgt.model_copy(update={"weapon_dropped": True})
        st = _replace(st, tgt)
        ev.append(Event("disarmed", f"{tgt.id} is disarmed and must spend a round recovering the weapon.", rnd, tgt.id))
        return st, ev
    # a hit spoils an Aim (Aiming: 'automatically fails if the character is interrupted')
    if tgt.aimed_this_round:
        tgt = tgt.model_copy(update={"aimed_this_round": 0})
        ev.append(Event("aim", f"{tgt.id}'s aim is spoilt by the hit.", rnd, tgt.id))
    st, e = _land_blow(st, att, tgt, w, rp, location, rng, rnd)
    return st, ev + e


def _land_blow(
    st: FightState, att: Fighter, tgt: Fighter, w: Weapon, rp: Any, location: str | None, rng: DiceRng, rnd: int
) -> tuple[FightState, list[Event]]:
    """Damage, Armour Rating contest, armour's lives, knockout chance (Weapons: Damage; Armour)."""
    hr = st.house_rules
    ev: list[Event] = []
    dmg_rec = roll(w.damage, rng, label=f"{att.id} damage")
    strength_applies = (not w.ranged) if w.strength_applies is None else w.strength_applies
    bonus = strength_damage_bonus(att.character.attributes.strength) if strength_applies else 0
    damage = max(hr.minimum_damage, dmg_rec.total + bonus)
    recs = [dmg_rec]
    text = f"{w.name} deals {dmg_rec.total}" + (f" {bonus:+d} Strength" if bonus else "") + f" = {damage} damage"
    loc = _LOCATION[location]
    piece = next(
        (
            i
            for i, (a, lives) in enumerate(zip(tgt.character.armour, tgt.armour_lives, strict=True))
            if lives > 0 and loc in a.cover
        ),
        None,
    )
    to_body = True
    if piece is not None:
        a = tgt.character.armour[piece]
        lives = tgt.armour_lives[piece]
        ar = _current_ar(a, lives)
        arec = None
        if ar > 0:
            arec = roll(" + ".join(f"1d{s}" for s in pool_for_rank(ar)), rng, label=f"{tgt.id} armour")
            recs.append(arec)
            against = (
                rp.record.faces if hr.armour_contest_against == "attack_dice" else dmg_rec.faces or (dmg_rec.total,)
            )
            best_attack = max(against) + (rp.counts and 0)
            best_armour = max(arec.faces)
            soaked = armour_soaks(best_armour, best_attack, hr.armour_ties_soak)
        else:
            soaked = False
        if soaked:
            text += f"; {a.name} (AR {ar}) rolls {best_armour} against {best_attack} and soaks it all."
            ev.append(
                Event("armour", f"{tgt.id}: {text}", rnd, tgt.id, {"soaked": True, "damage": damage}, tuple(recs))
            )
            return st, ev
        choice = tgt.armour_choice
        if choice == "auto":
            choice = "armour" if damage > tgt.vitals.dodges else "body"
        if arec is not None:
            text += f"; {a.name} (AR {ar}) rolls {best_armour} against {best_attack}, not enough to soak"
        if choice == "armour":
            new_lives = list(tgt.armour_lives)
            heavy = hr.armour_heavy_blow is not None and damage >= hr.armour_heavy_blow
            new_lives[piece] = max(0, new_lives[piece] - (2 if heavy else 1))
            tgt = tgt.model_copy(update={"armour_lives": tuple(new_lives)})
            state_word = "destroyed" if new_lives[piece] == 0 else f"damaged ({new_lives[piece]}/3 lives left)"
            text += f"; the armour takes the blow and is {state_word}."
            to_body = False
            ev.append(
                Event(
                    "armour", f"{tgt.id}: {text}", rnd, tgt.id, {"soaked": False, "armour_damaged": True}, tuple(recs)
                )
            )
    if to_body:
        before = wound_level(tgt.vitals)
        v, took = apply_damage(tgt.vitals, damage, spill=hr.damage_spills_over)
        tgt = tgt.model_copy(update={"vitals": v, "last_blow_blunt": w.blunt})
        parts = [f"{n} {k.replace('_', ' ')}" for k, n in took.items() if n]
        text += f"{'; it hits' if piece is not None else ' to'} {tgt.id} ({', '.join(parts) or 'nothing'})."
        after = wound_level(v)
        if v.dying:
            text += f" {tgt.id} falls below 0 Health and is dying."
        elif v.unconscious:
            text += f" {tgt.id} drops to 0 Health and is knocked unconscious."
        elif after != before:
            text += f" {tgt.id} is now at {after}."
        ev.append(
            Event(
                "damage",
                text,
                rnd,
                att.id,
                {"target": tgt.id, "damage": damage, **took, "wound_level": after},
                tuple(recs),
            )
        )
    if w.knockout_rank and tgt.active:
        ko, krec = knockout_check(w.knockout_rank, rng, hr, label=f"{att.id} knockout")
        if ko:
            tgt = tgt.model_copy(update={"vitals": tgt.vitals.model_copy(update={"unconscious": True})})
        ev.append(
            Event(
                "knockout",
                f"Knockout chance ({w.knockout_rank}) vs TD 6: {tgt.id} {'is knocked out' if ko else 'stays up'}.",
                rnd,
                att.id,
                {"knocked_out": ko},
                (krec,) if krec else (),
            )
        )
    return _replace(st, tgt), ev


def weapon_switch_rounds(*, drop_current: bool) -> int:
    """Rounds to change weapons (Equipment Use): a round to put one away and a round to ready the next;
    dropping the old one is a free action, so only readying takes a round."""
    return 1 if drop_current else 2
