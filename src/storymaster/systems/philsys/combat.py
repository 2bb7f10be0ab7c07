"""The Philsys fight engine: a pure state machine over rounds.

``start`` rolls nothing; the first ``step`` rolls initiative (once, at the beginning of combat),
then every ``step`` plays one round: each conscious fighter, in initiative order, takes a turn
with automatic choices (tactics per fighter or side). Randomness only from the ``DiceRng`` passed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ...dice import DiceRng, RollRecord, roll
from ...errors import CombatError
from ...odds import distribution
from ...rules.models import Model
from ...rules.protocol import CombatantStatus, Event
from . import damage as dmg
from .character import Ability, Character, at_pa, hp_max, initiative_bonus, mp_max, tp_max, weapon_skill
from .checks import MeleeAttack, check_odds, magic_result, melee_result
from .options import PhilsysHouseRules
from .tracker import fight_order, fight_tracker

__all__ = ["FightOptions", "FightState", "Fighter", "PhilsysCombat", "heal_threshold", "roll_initiative"]

Tactic = Literal["auto", "melee", "missile", "magic"]


class FightOptions(Model):
    """Automatic choices: tactics and attack type per fighter name (or 'side0', 'side1', ...), range, aim."""

    tactics: dict[str, Tactic] = Field(default_factory=dict)
    attack: dict[str, str] = Field(
        default_factory=dict, description="thrust/slash/chop, light/medium/heavy, punch/kick"
    )
    aim: dict[str, Literal["limb", "abdomen", "torso", "head"]] = Field(default_factory=dict)
    distance: Literal["medium", "long"] = "medium"


class Fighter(Model):
    """One combatant's running state."""

    name: str
    side: int
    character: Character
    hp: int
    mp: int
    tp: int
    initiative: int = 0
    init_mod: int = 0
    parried: bool = False
    lose_turn: bool = False
    unconscious: bool = False
    dead: bool = False
    wake_in: int | None = None
    heavy_wound: bool = False
    disabled_limbs: int = 0
    shield_broken: bool = False

    @property
    def active(self) -> bool:
        return not (self.unconscious or self.dead)


class FightState(Model):
    fighters: tuple[Fighter, ...]
    order: tuple[int, ...] = ()
    round: int = 0
    house_rules: PhilsysHouseRules = PhilsysHouseRules()
    options: FightOptions = FightOptions()
    over: bool = False
    winner: int | None = None


# --- initiative -------------------------------------------------------------------------


def roll_initiative(
    bonuses: Sequence[int], rng: DiceRng, hr: PhilsysHouseRules, names: Sequence[str] | None = None
) -> tuple[list[int], list[int], list[RollRecord]]:
    """Turn Sequence: bonus + 2d6, highest first; ties go to the higher modifier, then re-roll between the tied.

    Returns (totals, order, rolls). Under ``initiative_ties: reroll`` every tie is re-rolled regardless of modifier.
    """
    names = list(names or [f"#{i}" for i in range(len(bonuses))])
    rolls: list[RollRecord] = []
    totals = []
    for n, b in zip(names, bonuses, strict=True):
        r = roll("2d6", rng, label=f"initiative {n}")
        rolls.append(r)
        totals.append(r.total + b)
    use_mod = hr.initiative_ties == "modifier_then_reroll"
    keys: list[list[int]] = [[t, b if use_mod else 0] for t, b in zip(totals, bonuses, strict=True)]
    # re-roll among fighters whose keys tie, until every key is distinct
    for _ in range(50):
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, k in enumerate(keys):
            groups.setdefault(tuple(k), []).append(i)
        tied = [g for g in groups.values() if len(g) > 1]
        if not tied:
            break
        for g in tied:
            for i in g:
                r = roll("2d6", rng, label=f"initiative tie re-roll {names[i]}")
                rolls.append(r)
                keys[i].append(r.total)
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    return totals, order, rolls


# --- helpers ----------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _mean(expression: str) -> float:
    return float(distribution(expression).mean)


@lru_cache(maxsize=4096)
def _hit_odds(at: int, pa: int, parry: bool, hr: PhilsysHouseRules) -> tuple[float, float]:
    o = check_odds(MeleeAttack(at=at, pa=pa, parry=parry), hr)
    return float(o.probability("hit")), float(o.probability("critical hit"))


def _penalty(f: Fighter, hr: PhilsysHouseRules) -> int:
    return dmg.wound_penalty(f.hp, hr, f.heavy_wound)


def _at_pa(f: Fighter, hr: PhilsysHouseRules) -> tuple[int, int]:
    at, pa = at_pa(f.character, hr)
    sh = f.character.equipment.shield
    if f.shield_broken and sh is not None:
        at, pa = at - sh.at, pa - sh.pa
    p = _penalty(f, hr)
    return at - p, pa - p


def melee_options(c: Character, hr: PhilsysHouseRules) -> list[tuple[str, str]]:
    """Each attack the character can make in melee, with its damage notation."""
    w = c.equipment.weapon
    sk = weapon_skill(c)
    rank = sk.rank if sk else 0
    s = c.stats.STR
    if w is None:
        base = c.equipment.unarmed_base_damage
        if hr.melee_damage == "light_medium_heavy":
            return [(a, dmg.lmh_damage_expr(base, rank, s, a)) for a in ("light", "medium", "heavy")]
        return [(a, dmg.unarmed_damage_expr(s, rank, a, base)) for a in ("punch", "kick")]
    if hr.melee_damage == "light_medium_heavy":
        return [
            (a, dmg.lmh_damage_expr(w.damage[i], rank, s, a, w.two_handed))
            for i, a in enumerate(("light", "medium", "heavy"))
        ]
    return [(a, dmg.tsc_damage_expr(w.damage, a, s)) for a in ("thrust", "slash", "chop")]


def _check_options(fighters: Sequence[Fighter], opts: FightOptions, hr: PhilsysHouseRules) -> None:
    """Refuse a fight option that would be ignored: a name that is no fighter (nor 'side0', 'side1', ...),
    or a melee attack type that a fighter it applies to cannot make."""
    names = {f.name for f in fighters} | {f"side{f.side}" for f in fighters}
    known = ", ".join(sorted(names))
    for what, table in (("tactics", opts.tactics), ("attack", opts.attack), ("aim", opts.aim)):
        for key in table:
            if key not in names:
                raise CombatError(f"fight option {what}: {key!r} is not in this fight", hint=f"use one of {known}")
    for f in fighters:
        forced = _pick(opts.attack, f)
        if forced is None:
            continue
        choices = [a for a, _ in melee_options(f.character, hr)]
        if forced not in choices:
            raise CombatError(
                f"fight option attack: {f.name} cannot make a {forced!r} attack",
                hint="choose one of " + ", ".join(choices),
            )


def _pick(options: Mapping[str, Any], f: Fighter) -> Any:
    return options.get(f.name, options.get(f"side{f.side}"))


class PhilsysCombat:
    """The fight engine (satisfies ``storymaster.rules.CombatEngine``)."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: PhilsysHouseRules | None = None,
        options: Mapping[str, Any] | FightOptions | None = None,
    ) -> FightState:
        hr = house_rules or PhilsysHouseRules()
        if not isinstance(hr, PhilsysHouseRules):
            raise CombatError("philsys fights need PhilsysHouseRules")
        try:
            opts = options if isinstance(options, FightOptions) else FightOptions.model_validate(dict(options or {}))
        except ValidationError as exc:
            raise CombatError(
                _explain(exc, "fight options"),
                hint="tactics: auto|melee|missile|magic; aim: limb|abdomen|torso|head; distance: medium|long",
            ) from None
        if len(sides) < 2 or any(len(s) == 0 for s in sides):
            raise CombatError("a fight needs at least two sides with at least one character each")
        fighters = []
        seen: dict[str, int] = {}
        for side_no, side in enumerate(sides):
            for c in side:
                if not isinstance(c, Character):
                    raise CombatError(f"not a philsys character: {type(c).__name__}")
                name = c.name
                seen[name] = seen.get(name, 0) + 1
                if seen[name] > 1:
                    name = f"{name} #{seen[name]}"
                cur = c.current
                hp = hp_max(c) if cur.hp is None else cur.hp
                fighters.append(
                    Fighter(
                        name=name,
                        side=side_no,
                        character=c,
                        hp=hp,
                        mp=mp_max(c) if cur.mp is None else cur.mp,
                        tp=tp_max(c) if cur.tp is None else cur.tp,
                        unconscious=dmg.is_unconscious(hp),
                        dead=dmg.is_dead(hp, hr),
                    )
                )
        _check_options(fighters, opts, hr)
        state = FightState(fighters=tuple(fighters), house_rules=hr, options=opts)
        return _settle(state)

    def is_over(self, state: FightState) -> bool:
        return state.over

    def winner(self, state: FightState) -> int | None:
        return state.winner

    # --- the GM's tracker (rules.FightTracker) ---
    def initiative_order(self, state: BaseModel) -> list[str]:
        """Fighter names in the Turn Sequence, highest initiative first; empty before round 1."""
        if not isinstance(state, FightState):
            raise CombatError("not a philsys fight state")
        return fight_order(state)

    def tracker(self, state: BaseModel) -> list[CombatantStatus]:
        """Each fighter's turn, HP/MP/TP and condition (critical health, unconscious, dead)."""
        if not isinstance(state, FightState):
            raise CombatError("not a philsys fight state")
        return fight_tracker(state)

    def step(self, state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
        if state.over:
            raise CombatError("the fight is over", hint="start a new fight")
        hr = state.house_rules
        fs = list(state.fighters)
        events: list[Event] = []
        rnd = state.round + 1
        order = list(state.order)
        if not order:
            bonuses = [initiative_bonus(f.character, hr) for f in fs]
            totals, order, rolls = roll_initiative(bonuses, rng, hr, [f.name for f in fs])
            for i, f in enumerate(fs):
                fs[i] = f.model_copy(update={"initiative": totals[i], "init_mod": bonuses[i]})
            text = "Initiative: " + ", ".join(f"{fs[i].name} {totals[i]} ({bonuses[i]}+2d6)" for i in order)
            data = {"order": [fs[i].name for i in order], "totals": totals}
            events.append(Event("initiative", text, rnd, data=data, rolls=rolls))
        fs = [f.model_copy(update={"parried": False}) for f in fs]
        for turn, i in enumerate(order):
            f = fs[i]
            if not f.active:
                continue
            if f.lose_turn:
                fs[i] = f.model_copy(update={"lose_turn": False})
                text = f"{f.name} spends the turn recovering from a critical failure."
                events.append(Event("recover", text, rnd, f.name))
                continue
            if _decided(fs):
                break
            events += _take_turn(fs, i, rnd, turn, state.options, hr, rng)
        events += _end_of_round(fs, rnd, hr)
        new = state.model_copy(update={"fighters": tuple(fs), "order": tuple(order), "round": rnd})
        new = _settle(new)
        if new.over:
            who = (
                "nobody"
                if new.winner is None
                else "side "
                + str(new.winner)
                + " ("
                + ", ".join(f.name for f in new.fighters if f.side == new.winner and f.active)
                + ")"
            )
            text = f"The fight is over after {rnd} round(s); winner: {who}."
            events.append(Event("end", text, rnd, data={"winner": new.winner}))
        return new, events


def _active_sides(fs: Sequence[Fighter]) -> set[int]:
    return {f.side for f in fs if f.active}


def _decided(fs: Sequence[Fighter]) -> bool:
    return len(_active_sides(fs)) <= 1


def _settle(state: FightState) -> FightState:
    sides = _active_sides(state.fighters)
    if len(sides) <= 1:
        return state.model_copy(update={"over": True, "winner": next(iter(sides)) if sides else None})
    if state.round >= state.house_rules.max_rounds:
        return state.model_copy(update={"over": True, "winner": None})
    return state


def _take_turn(
    fs: list[Fighter], i: int, rnd: int, turn: int, opts: FightOptions, hr: PhilsysHouseRules, rng: DiceRng
) -> list[Event]:
    f = fs[i]
    c = f.character
    tactic = _pick(opts.tactics, f) or "auto"
    heal = _heal_choice(fs, i)
    if heal is not None and tactic in ("auto", "magic"):
        return _heal(fs, i, heal[0], heal[1], rnd, hr, rng)
    enemies = [j for j, g in enumerate(fs) if g.side != f.side and g.active]
    target = min(enemies, key=lambda j: (fs[j].hp, j))
    if tactic in ("auto", "magic"):
        spell = _spell_choice(f, fs[target])
        if spell is not None:
            return _cast(fs, i, target, spell, rnd, hr, rng)
    if tactic in ("auto", "missile") and c.equipment.missile is not None:
        return _shoot(fs, i, target, rnd, opts, hr, rng)
    return _melee(fs, i, target, rnd, opts, hr, rng)


def _affordable(f: Fighter, a: Ability) -> bool:
    return f.mp >= a.cost.mp and f.tp >= a.cost.tp and f.hp > a.cost.hp


def _spell_choice(f: Fighter, target: Fighter) -> Ability | None:
    best, best_val = None, 0.0
    for a in f.character.abilities:
        if a.effect is None or a.effect.kind != "attack" or not _affordable(f, a):
            continue
        if a.is_spell and f.character.stats.MAG == 0:
            continue
        val = _mean(dmg.ability_damage_expr(f.character, a))
        if val > best_val:
            best, best_val = a, val
    return best


def heal_threshold(top: int) -> int:
    """The engine's tactic (not a book rule): an ally at a quarter of maximum HP or less (rounded down) is healed."""
    return top // 4


def _heal_choice(fs: Sequence[Fighter], i: int) -> tuple[int, Ability] | None:
    f = fs[i]
    heals = [a for a in f.character.abilities if a.effect is not None and a.effect.kind == "heal" and _affordable(f, a)]
    if not heals:
        return None
    hurt = [
        j for j, g in enumerate(fs) if g.side == f.side and not g.dead and g.hp <= heal_threshold(hp_max(g.character))
    ]
    if not hurt:
        return None
    j = min(hurt, key=lambda j: fs[j].hp)
    return j, max(heals, key=lambda a: _mean(dmg.ability_damage_expr(f.character, a)))


def _heal(fs: list[Fighter], i: int, j: int, a: Ability, rnd: int, hr: PhilsysHouseRules, rng: DiceRng) -> list[Event]:
    f = fs[i]
    hp, mp, tp = dmg.pay_cost(f.hp, f.mp, f.tp, a.cost)
    fs[i] = f.model_copy(update={"hp": hp, "mp": mp, "tp": tp})
    r = roll(dmg.ability_damage_expr(f.character, a), rng, label=f"{a.name} healing")
    g = fs[j]
    new_hp = min(hp_max(g.character), g.hp + max(0, r.total))
    upd: dict[str, Any] = {"hp": new_hp}
    extra = ""
    if g.unconscious and new_hp > 0 and g.wake_in is None:
        upd["wake_in"] = dmg.wake_delay(g.character.stats.STA)
        extra = f" {g.name} will come round in {upd['wake_in']} round(s)."
    fs[j] = g.model_copy(update=upd)
    text = f"{f.name} casts {a.name} on {g.name} (no roll for a willing target): +{r.total} HP, now {new_hp}.{extra}"
    return [Event("heal", text, rnd, f.name, {"target": g.name, "healed": r.total, "cost": a.cost.model_dump()}, (r,))]


def _choose_attack(f: Fighter, target: Fighter, opts: FightOptions, hr: PhilsysHouseRules) -> tuple[str, str]:
    choices = melee_options(f.character, hr)
    forced = _pick(opts.attack, f)
    if forced:
        for a, e in choices:
            if a == forced:
                return a, e
        hint = "choose one of " + ", ".join(a for a, _ in choices)
        raise CombatError(f"{f.name} cannot make a {forced!r} attack", hint=hint)
    at, _ = _at_pa(f, hr)
    _, pa = _at_pa(target, hr)
    armor = target.character.equipment.armor
    return best_attack(choices, at, pa, not target.parried, dmg.armor_stops(armor), hr)


def best_attack(
    choices: Sequence[tuple[str, str]], at: int, pa: int, parry: bool, red: int, hr: PhilsysHouseRules
) -> tuple[str, str]:
    """The automatic melee choice: the attack with the best expected damage after armour (first on ties).

    Shared by the engine and the forecast, so both choose alike.
    """
    best, best_val = choices[0], -1.0
    for a, e in choices:
        p_hit, p_crit = _hit_odds(at + dmg.attack_penalty(a), pa, parry, hr)
        mean = _mean(e)
        val = p_hit * max(0.0, mean - red) + p_crit * max(0.0, 2 * mean - red)
        if val > best_val:
            best, best_val = (a, e), val
    return best


def _damage_target(fs: list[Fighter], j: int, amount: int, rnd: int, hr: PhilsysHouseRules) -> list[str]:
    """Take HP; note unconsciousness, death and heavy wounds. Returns sentences for the log."""
    g = fs[j]
    hp = g.hp - amount
    upd: dict[str, Any] = {"hp": hp}
    notes = []
    if hr.heavy_wound_penalty and dmg.is_heavy_wound(amount, g.character):
        upd["heavy_wound"] = True
    if dmg.is_dead(hp, hr):
        upd.update(dead=True, unconscious=True)
        notes.append(f"{g.name} is dead.")
    elif dmg.is_unconscious(hp) and not g.unconscious:
        upd.update(unconscious=True, wake_in=None)
        notes.append(f"{g.name} falls unconscious.")
    elif 0 < hp <= hr.critical_health_threshold and g.hp > hr.critical_health_threshold:
        notes.append(f"{g.name} is at critical health (-{hr.critical_health_penalty}/-{hr.critical_health_penalty}).")
    fs[j] = g.model_copy(update=upd)
    return notes


def _melee(
    fs: list[Fighter], i: int, j: int, rnd: int, opts: FightOptions, hr: PhilsysHouseRules, rng: DiceRng
) -> list[Event]:
    f, g = fs[i], fs[j]
    attack, expression = _choose_attack(f, g, opts, hr)
    at, _ = _at_pa(f, hr)
    _, pa = _at_pa(g, hr)
    at += dmg.attack_penalty(attack)
    ra = roll("1d20", rng, label=f"{f.name} attack d20")
    rolls = [ra]
    a_total = ra.total + at
    parry = not g.parried
    if parry:
        rp = roll("1d20", rng, label=f"{g.name} parry d20")
        rolls.append(rp)
        d_total = rp.total + pa
        d_text = f"{g.name} parries {rp.total}+{pa} = {d_total}"
        fs[j] = g.model_copy(update={"parried": True})
    else:
        d_total = pa
        d_text = f"{g.name} has used this round's parry roll and stands on PA {pa}"
    margin = a_total - d_total
    result = melee_result(margin, parry, hr)
    weapon = f.character.equipment.weapon.name if f.character.equipment.weapon else "bare hands"
    text = f"{f.name} attacks {g.name} ({attack}, {weapon}): {ra.total}{at:+d} = {a_total}; {d_text}."
    data: dict[str, Any] = {
        "target": g.name,
        "attack": attack,
        "result": result,
        "margin": margin,
        "attack_total": a_total,
        "defence_total": d_total,
    }
    if result in ("hit", "critical hit"):
        rd = roll(expression, rng, label=f"{f.name} damage {expression}")
        rolls.append(rd)
        raw = max(0, rd.total)
        if result == "critical hit":
            raw = dmg.critical_damage(raw)
        armor = fs[j].character.equipment.armor
        ac = armor.ac if armor else 0
        taken = dmg.apply_armor(raw, ac)
        text += f" {'Critical hit' if result == 'critical hit' else 'Hit'}: {expression} rolls {rd.total}"
        text += " doubled to " + str(raw) if result == "critical hit" else ""
        text += f", armour stops {raw - taken}, {g.name} takes {taken}."
        notes = _damage_target(fs, j, taken, rnd, hr)
        shield = g.character.equipment.shield
        if shield is not None and not g.shield_broken and dmg.shield_overwhelmed(raw, shield.ac):
            if hr.shield_breaks:
                fs[j] = fs[j].model_copy(update={"shield_broken": True})
                notes.append(f"The blow exceeds {shield.name}'s AC {shield.ac}: the shield breaks.")
            else:
                notes.append(f"The blow exceeds {shield.name}'s AC {shield.ac}: the shield is dented.")
        text += (" " + " ".join(notes)) if notes else ""
        data.update(raw_damage=raw, damage=taken, hp=fs[j].hp)
    elif result == "critical failure":
        text += " Critical failure!"
        if hr.critical_failure_effect == "lose_next_turn":
            fs[i] = fs[i].model_copy(update={"lose_turn": True})
            text += f" {f.name} loses the next turn."
    else:
        text += " Miss." if margin < 0 else " A tie goes to the defender: miss."
    return [Event("melee", text, rnd, f.name, data, tuple(rolls))]


def _shoot(
    fs: list[Fighter], i: int, j: int, rnd: int, opts: FightOptions, hr: PhilsysHouseRules, rng: DiceRng
) -> list[Event]:
    f, g = fs[i], fs[j]
    w = f.character.equipment.missile
    assert w is not None
    aim = _pick(opts.aim, f) or "abdomen"
    if aim in ("limb", "head") and not g.character.has_limbs:
        aim = "abdomen"
    sk = f.character.skill(w.skill) if w.skill else None
    atk = dmg.missile_attack_modifier(w, sk.rank if sk else 0, aim) - _penalty(f, hr)
    dfn = dmg.missile_defence_modifier(g.character, opts.distance, hr)
    ra = roll("1d20", rng, label=f"{f.name} missile d20")
    rd = roll("1d20", rng, label=f"{g.name} missile defence d20")
    rolls = [ra, rd]
    a_total, d_total = ra.total + atk, rd.total + dfn
    text = (
        f"{f.name} shoots {g.name} ({w.name}, aiming at the {aim}): "
        f"{ra.total}{atk:+d} = {a_total} vs {rd.total}{dfn:+d} = {d_total}."
    )
    data: dict[str, Any] = {"target": g.name, "aim": aim, "attack_total": a_total, "defence_total": d_total}
    if a_total <= d_total:
        data["result"] = "miss"
        return [Event("missile", text + " Miss.", rnd, f.name, data, tuple(rolls))]
    data["result"] = "hit"
    expression = dmg.missile_damage_expr(w, f.character.stats.STR)
    notes: list[str] = []
    if aim == "head" and g.character.head_shot_kills:
        rk = roll("1d6", rng, label=f"head shot d6 on {g.name}")
        rolls.append(rk)
        if dmg.head_shot_kills_on(rk.total):
            fs[j] = g.model_copy(update={"dead": True, "unconscious": True})
            text += f" Head shot! The d6 shows {rk.total} (anything but 6 kills): {g.name} is killed."
            data["killed"] = True
            return [Event("missile", text, rnd, f.name, data, tuple(rolls))]
        text += f" Head shot, the d6 shows 6: {g.name} survives."
    expression = dmg.location_damage_expr(expression, aim)
    r = roll(expression, rng, label=f"{f.name} missile damage {expression}")
    rolls.append(r)
    armor = g.character.equipment.armor
    ac = armor.ac if armor else 0
    taken = dmg.apply_armor(max(0, r.total), ac)
    text += f" Hit: {expression} rolls {r.total}, armour stops {max(0, r.total) - taken}, {g.name} takes {taken}."
    if aim == "limb":
        rl = roll("1d6", rng, label=f"limb d6 on {g.name}")
        rolls.append(rl)
        if dmg.limb_disabled_on(rl.total):
            fs[j] = fs[j].model_copy(update={"disabled_limbs": fs[j].disabled_limbs + 1})
            notes.append(f"The limb d6 shows {rl.total}: the limb is disabled.")
        else:
            notes.append(f"The limb d6 shows {rl.total}: the limb still works.")
    notes += _damage_target(fs, j, taken, rnd, hr)
    text += (" " + " ".join(notes)) if notes else ""
    data.update(damage=taken, hp=fs[j].hp)
    return [Event("missile", text, rnd, f.name, data, tuple(rolls))]


def _cast(fs: list[Fighter], i: int, j: int, a: Ability, rnd: int, hr: PhilsysHouseRules, rng: DiceRng) -> list[Event]:
    f, g = fs[i], fs[j]
    hp, mp, tp = dmg.pay_cost(f.hp, f.mp, f.tp, a.cost)
    fs[i] = f.model_copy(update={"hp": hp, "mp": mp, "tp": tp})
    sk = f.character.skill(a.skill) if a.skill else None
    magical = a.effect is not None and a.effect.magical
    cost_text = ", ".join(f"{v} {k.upper()}" for k, v in a.cost.model_dump().items() if v)
    rolls: list[RollRecord] = []
    data: dict[str, Any] = {"target": g.name, "ability": a.name, "cost": a.cost.model_dump()}
    if magical:
        atk = dmg.spell_attack_modifier(f.character, sk, _penalty(f, hr))
        res = dmg.magic_resist_modifier(g.character)
        ra = roll("1d20", rng, label=f"{f.name} spell d20")
        rr = roll("1d20", rng, label=f"{g.name} resist d20")
        rolls += [ra, rr]
        a_total, r_total = ra.total + atk, rr.total + res
        result = magic_result(a_total - r_total, hr)
        text = (
            f"{f.name} casts {a.name} at {g.name} ({cost_text} paid): "
            f"{ra.total}{atk:+d} = {a_total} vs resistance {rr.total}+{res} = {r_total}."
        )
        data.update(attack_total=a_total, resist_total=r_total, result=result)
    else:
        # a tech: resolved like a melee blow against the parry
        at, _ = _at_pa(f, hr)
        _, pa = _at_pa(g, hr)
        ra = roll("1d20", rng, label=f"{f.name} tech d20")
        rolls.append(ra)
        if not g.parried:
            rp = roll("1d20", rng, label=f"{g.name} parry d20")
            rolls.append(rp)
            d_total = rp.total + pa
            fs[j] = g.model_copy(update={"parried": True})
        else:
            d_total = pa
        a_total = ra.total + at
        result = "hit" if a_total > d_total else "resisted"
        text = f"{f.name} uses {a.name} on {g.name} ({cost_text} paid): {ra.total}{at:+d} = {a_total} vs {d_total}."
        data.update(attack_total=a_total, defence_total=d_total, result=result)
    if result == "resisted":
        return [Event("ability", text + " No effect.", rnd, f.name, data, tuple(rolls))]
    expression = dmg.ability_damage_expr(f.character, a)
    r = roll(expression, rng, label=f"{a.name} damage {expression}")
    rolls.append(r)
    amount = max(0, r.total)
    if result == "half damage":
        amount = dmg.half_damage(amount)
    armor = fs[j].character.equipment.armor
    if armor is not None and (not magical or armor.reduces_magic):
        amount = dmg.apply_armor(amount, armor.ac)
    verdict = "Half damage" if result == "half damage" else "It hits"
    text += f" {verdict}: {expression} rolls {r.total}, {g.name} takes {amount}."
    notes = _damage_target(fs, j, amount, rnd, hr)
    text += (" " + " ".join(notes)) if notes else ""
    data.update(damage=amount, hp=fs[j].hp)
    return [Event("ability", text, rnd, f.name, data, tuple(rolls))]


def _end_of_round(fs: list[Fighter], rnd: int, hr: PhilsysHouseRules) -> list[Event]:
    events = []
    for k, f in enumerate(fs):
        if f.dead:
            continue
        if hr.bleeding and f.hp < 0:
            hp = dmg.bleed(f.hp, hr)
            upd: dict[str, Any] = {"hp": hp}
            text = f"{f.name} bleeds: {f.hp} -> {hp} HP."
            if dmg.is_dead(hp, hr):
                upd["dead"] = True
                text += f" {f.name} dies."
            fs[k] = f.model_copy(update=upd)
            events.append(Event("bleeding", text, rnd, f.name, {"hp": hp}))
            continue
        if f.unconscious and f.hp > 0 and f.wake_in is not None:
            left = f.wake_in - 1
            if left <= 0:
                fs[k] = f.model_copy(update={"unconscious": False, "wake_in": None})
                events.append(Event("wake", f"{f.name} regains consciousness.", rnd, f.name))
            else:
                fs[k] = f.model_copy(update={"wake_in": left})
    return events


def _explain(exc: ValidationError, what: str) -> str:
    """A pydantic error as one line per bad value."""
    parts = [f"{'.'.join(str(x) for x in e['loc']) or what}: {e['msg']}" for e in exc.errors()]
    return f"bad {what}: " + "; ".join(parts)
