"""Combat: opposed rolls each round, Advantage Points, Defence Totals, wounds and Tenacity tests.

"Combat Rules for Those Who Really Need 'Em", as a pure state machine:
``start`` builds a frozen :class:`FightState`; ``step`` plays one round and
returns the next state and the events; nothing else changes anything.

A round: every fighter still up is engaged with an opponent (several fighters
share out the smaller side's members in turn). Each engagement is one
contested roll; the winner gains Advantage Points equal to the margin. At the
end of the round each winner may spend points: on harm (against the loser's
Defence Total), on a manoeuvre (2, or 4 for hard things), or keep them.

The round is one function, :func:`play_round`, written over a
:class:`~storymaster.forecast.Chance`: ``step`` runs it with the fight's dice,
the exact forecast runs it once per branch of its two events (the contested
roll's margin, a test's pass or fail).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from ...dice import DiceRng
from ...errors import CombatError
from ...forecast.chance import Chance, Rolled
from ...rules import CombatantStatus, Event, Model
from .character import FuzzyCharacter, dice_for, find_ability
from .options import FuzzyHouseRules
from .rolls import AbilityTest, Contest, Contested, effective_dice, total_distribution
from .tables import combat_table, wound_levels

__all__ = [
    "CombatTactics",
    "Exchange",
    "FightState",
    "Fighter",
    "FuzzyCombat",
    "Manoeuvre",
    "Played",
    "Pool",
    "RoundPlan",
    "Wound",
    "blow_outcome",
    "body_test",
    "can_harm",
    "carry_over",
    "defence_total",
    "exchange_margins",
    "harm_level",
    "harm_spend",
    "killing_points",
    "level_multiple",
    "next_manoeuvre",
    "opponents_penalty",
    "pairings",
    "plan_round",
    "play_round",
    "roll_exchanges",
    "spend_points",
    "tenacity_test",
    "with_tactics",
    "wound_penalty",
]

Stance = Literal["normal", "offensive", "defensive", "all-out attack", "all-out defence"]
HarmLevel = Literal["moderate", "serious", "mortal", "killed"]
Status = Literal["fighting", "incapacitated", "unconscious", "dead", "escaped"]


class Manoeuvre(Model):
    """Something bought with Advantage Points: 2 for most things, 4 for hard things (the GM sets the price)."""

    name: str = Field(min_length=1, max_length=80)
    cost: int = Field(2, ge=1, le=100)
    roll_bonus: int = Field(0, ge=-10, le=10, description="What the GM rules it is worth to later rolls in this fight.")
    ends_fight: bool = Field(False, description="The fighter gets away (through that door, say) and leaves the fight.")


class CombatTactics(Model):
    """A side's automatic choices."""

    stance: Stance = Field("normal", description="Fight normally, offensively, defensively, or all-out.")
    harm_at: HarmLevel = Field(
        "moderate", description="Spend Advantage Points on harm once they reach this wound level."
    )
    intent: Literal["lethal", "non-lethal"] = Field("lethal", description="Hitting to kill, or to incapacitate.")
    appropriateness: int = Field(0, ge=0, le=2, description="GM's +1/+2 when this side's Ability is more appropriate.")
    manoeuvres: tuple[Manoeuvre, ...] = Field(
        (), description="Bought in order when points allow and harm is not yet due."
    )
    crowd: Literal["auto", "one", "multiple", "huge crowd"] = Field(
        "auto", description="Opponent count for die penalties; 'auto' counts this round's engagements."
    )


class Wound(Model):
    level: Literal["moderate", "serious", "mortal"]
    by: str
    round: int
    lethal: bool = True


class Fighter(Model):
    """A combatant's figures for the fight, taken from the character file."""

    key: str
    name: str
    side: int
    ability: str
    dice: int
    defence_ability: str
    defence_base: int
    tenacity: int
    body: int
    weapon: str
    weapon_lethality: str
    armour: str
    encumbrance: str
    hindrance: int = 0
    tactics: CombatTactics = CombatTactics()
    wounds: tuple[Wound, ...] = ()
    status: Status = "fighting"
    dying: bool = False
    knocked_out: bool = False
    roll_bonus: int = 0
    bought: tuple[str, ...] = ()

    @property
    def up(self) -> bool:
        return self.status == "fighting"


class Pool(Model):
    """Advantage Points ``holder`` has against ``against``, carried over between rounds."""

    holder: str
    against: str
    points: int = Field(ge=0)


class FightState(Model):
    """The whole fight between rounds: frozen and JSON-serialisable."""

    round: int = 0
    fighters: tuple[Fighter, ...]
    pools: tuple[Pool, ...] = ()
    house_rules: FuzzyHouseRules = FuzzyHouseRules()
    over: bool = False
    winner: int | None = None
    reason: str = ""

    def fighter(self, key: str) -> Fighter:
        for f in self.fighters:
            if f.key == key:
                return f
        raise CombatError(f"no fighter {key!r} in this fight")


# -- rules as functions ---------------------------------------------------------------------------


@cache
def _table(name: str) -> Mapping[str, int | None]:
    """One combat table, read once (the engine asks for the same few entries every round)."""
    return combat_table(name)


@cache
def _level_penalties() -> Mapping[str, int]:
    return {row["name"]: int(row["dice_penalty"]) for row in wound_levels()}


@cache
def level_multiple(level: str) -> int:
    """The multiple of the Defence Total a wound level takes (the wound table: moderate 1x ... killed 4x)."""
    return int(next(row["multiple"] for row in wound_levels() if row["name"] == level))


@cache
def _failed_test(level: str) -> str:
    """What a failed Tenacity test after a wound of this level does (the wound table's ``on_failed_test``)."""
    return str(next(row["on_failed_test"] for row in wound_levels() if row["name"] == level))


def wound_penalty(wounds: Sequence[Wound]) -> int:
    """Dice lost to injury: the worst wound only ("Injury penalties are not cumulative")."""
    if not wounds:
        return 0
    by_level = _level_penalties()
    return max(by_level[w.level] for w in wounds)


@lru_cache(maxsize=4096)  # bounded: a long-running server forecasts many fights
def harm_level(points: int, defence: int) -> str:
    """What spending ``points`` against a Defence Total does: superficial, moderate (1x), serious (2x), mortal (3x),
    killed (4x).
    """
    if defence < 1:
        raise CombatError("a Defence Total is at least 1")
    level = "superficial"
    for row in wound_levels():
        if points >= row["multiple"] * defence:
            level = row["name"]
    return level


def opponents_penalty(engaged: int, house: FuzzyHouseRules, crowd: str = "auto") -> int:
    """Dice lost to fighting several people: 1 for multiple, 2 for a huge crowd (ruling: ``huge_crowd`` or more)."""
    table = _table("opponents")
    if crowd != "auto":
        return int(table[crowd] or 0)
    if engaged >= house.huge_crowd:
        return int(table["huge crowd"] or 0)
    if engaged >= 2:
        return int(table["multiple"] or 0)
    return 0


def roll_modifiers(f: Fighter) -> list[tuple[str, int]]:
    """The roll modifiers: encumbrance (-1/-2), appropriateness (+1/+2), what manoeuvres bought."""
    return list(_roll_modifiers(f.encumbrance, f.tactics.appropriateness, f.roll_bonus))


@lru_cache(maxsize=4096)  # bounded: a long-running server forecasts many fights
def _roll_modifiers(encumbrance: str, appropriateness: int, roll_bonus: int) -> tuple[tuple[str, int], ...]:
    mods = []
    enc = int(_table("encumbrance")[encumbrance] or 0)
    if enc:
        mods.append((f"{encumbrance} encumbrance", enc))
    if appropriateness:
        mods.append(("more appropriate Ability", appropriateness))
    if roll_bonus:
        mods.append(("manoeuvres", roll_bonus))
    return tuple(mods)


def defence_total(defender: Fighter, attacker: Fighter) -> tuple[int, list[tuple[str, int]]]:
    """The defender's Defence Total against this attacker, with every modifier listed; never below 1.

    "Some common Defense totals modifiers": the attacker's weapon, armour,
    non-lethal intent (+2, +4 with a deadly or unsuitable weapon), minus the
    injury penalty, the defender's stance; "No Defense total can be less than 1."
    """
    total, mods = _defence_total(
        defender.defence_ability,
        defender.defence_base,
        attacker.weapon,
        attacker.weapon_lethality,
        defender.armour,
        attacker.tactics.intent,
        wound_penalty(defender.wounds),
        defender.tactics.stance,
    )
    return total, list(mods)


@lru_cache(maxsize=4096)  # bounded: a long-running server forecasts many fights
def _defence_total(
    ability: str, base: int, weapon_name: str, lethality: str, armour_name: str, intent: str, pen: int, stance_name: str
) -> tuple[int, tuple[tuple[str, int], ...]]:
    mods: list[tuple[str, int]] = [(f"{ability} {base}", base)]
    weapon = _table("weapon")[lethality]
    if weapon:
        mods.append((f"attacker's {weapon_name} is {lethality}", int(weapon)))
    armour = int(_table("armour")[armour_name] or 0)
    if armour:
        mods.append((f"{armour_name}", armour))
    if intent == "non-lethal":
        unsuitable = lethality in ("especially damaging", "really deadly")
        key = "non-lethal with an unsuitable weapon" if unsuitable else "non-lethal"
        mods.append((key, int(_table("intent")[key] or 0)))
    if pen:
        mods.append(("injury", -pen))
    stance = int(_table("stance")[stance_name] or 0)
    if stance:
        mods.append((f"fighting {stance_name}", stance))
    raw = sum(v for _, v in mods)
    return max(1, raw), tuple(mods)


def _fmt_mods(mods: list[tuple[str, int]]) -> str:
    return ", ".join(f"{label} {v:+d}" if i else f"{label}" for i, (label, v) in enumerate(mods))


def exchange_dice(f: Fighter, engaged: int, house: FuzzyHouseRules) -> tuple[int, int]:
    """(dice rolled, flat modifier) for a fighter's roll this round: every die penalty and roll modifier applied."""
    crowd = opponents_penalty(engaged, house, f.tactics.crowd)
    dice = effective_dice(f.dice, wound_penalty(f.wounds) + crowd + f.hindrance)
    return dice, sum(v for _, v in _roll_modifiers(f.encumbrance, f.tactics.appropriateness, f.roll_bonus))


def exchange_margins(
    state: FightState, a_key: str, b_key: str, engaged: tuple[int, int] = (1, 1)
) -> dict[int, Fraction]:
    """Exact distribution of ``a``'s score minus ``b``'s in one exchange (criticals' bonus dice included).

    A positive margin is ``a``'s Advantage Points gained, a negative one ``b``'s; 0 is a stand-off.
    The building block for whole-fight forecasts.
    """
    house = state.house_rules
    dists = []
    for key, n in ((a_key, engaged[0]), (b_key, engaged[1])):
        dice, mod = exchange_dice(state.fighter(key), n, house)
        dists.append({t + mod: p for t, p in total_distribution(dice, house).items()})
    out: dict[int, Fraction] = {}
    for x, px in dists[0].items():
        for y, py in dists[1].items():
            out[x - y] = out.get(x - y, Fraction(0)) + px * py
    return out


def with_tactics(state: FightState, key: str, tactics: CombatTactics | Mapping[str, Any]) -> FightState:
    """The same fight with one fighter's tactics changed from the next round on (a player's choice)."""
    if state.over:
        raise CombatError("the fight is over")
    new = tactics if isinstance(tactics, CombatTactics) else CombatTactics.model_validate(tactics)
    fighter = state.fighter(key)
    return state.model_copy(
        update={
            "fighters": tuple(
                f.model_copy(update={"tactics": new}) if f.key == fighter.key else f for f in state.fighters
            )
        }
    )


# -- one round, written once: the engine rolls it, the exact chain enumerates it ------------------


@dataclass
class Played:
    """What one round did: every fighter and Advantage Point pool after it, and the log (when narrated)."""

    fighters: dict[str, Fighter]
    pools: dict[tuple[str, str], int]
    events: list[Event]


def can_harm(attacker: Fighter) -> bool:
    """Whether the attacker's points can buy harm: not in all-out defence, and not with a harmless weapon."""
    return attacker.tactics.stance != "all-out defence" and _table("weapon")[attacker.weapon_lethality] is not None


def carry_over(gained: int, theirs: int, house: FuzzyHouseRules) -> tuple[int, int]:
    """The ``advantage_on_loss`` ruling when the loser held ``theirs`` points against the winner.

    Returns (points the winner adds, points the loser keeps): 'keep' takes nothing away, 'offset'
    cancels the loser's points with the margin first, 'lose' wipes them.
    """
    if house.advantage_on_loss == "offset":
        cancel = min(theirs, gained)
        return gained - cancel, theirs - cancel
    if house.advantage_on_loss == "lose":
        return gained, 0
    return gained, theirs


def harm_spend(points: int, dtotal: int, attacker: Fighter) -> int:
    """The Advantage Points the winner spends on harm this round (0: none).

    All of them in an all-out attack ("must spend all their Advantage points to hurt their opponents");
    otherwise the largest multiple of the Defence Total affordable, up to a killing blow, once it reaches
    the side's ``harm_at`` level. Nothing from a fighter who cannot hurt.
    """
    if not can_harm(attacker):
        return 0
    if attacker.tactics.stance == "all-out attack":
        return points
    m = min(level_multiple("killed"), points // dtotal)
    return m * dtotal if m >= 1 and m >= level_multiple(attacker.tactics.harm_at) else 0


def next_manoeuvre(attacker: Fighter, points: int) -> Manoeuvre | None:
    """The manoeuvre bought when no harm is spent: the first of the side's list not yet bought and affordable."""
    for man in attacker.tactics.manoeuvres:
        if man.name not in attacker.bought and man.cost <= points:
            return man
    return None


def tenacity_test(defender: Fighter, wounds: Sequence[Wound], house: FuzzyHouseRules) -> AbilityTest:
    """The Tenacity test after a new wound: Tenacity less the (new) injury penalty, against ``tenacity_target``."""
    dice = effective_dice(defender.tenacity, wound_penalty(wounds))
    return AbilityTest(dice, house.tenacity_target, house, f"{defender.key} Tenacity")


def body_test(attacker: Fighter, house: FuzzyHouseRules) -> AbilityTest:
    """The Body test to hold back a non-lethal blow ("Sicko GMs may ask you to make a Body test")."""
    if house.nonlethal_body_test is None:
        raise CombatError("no Body test under these house rules")
    dice = effective_dice(attacker.body, wound_penalty(attacker.wounds))
    return AbilityTest(dice, house.nonlethal_body_test, house, f"{attacker.key} Body test")


def blow_outcome(level: str, lethal: bool, passed: bool, house: FuzzyHouseRules) -> dict[str, Any]:
    """What a blow of ``level`` does to the defender besides the wound itself (``passed``: his Tenacity test).

    A killing blow (no test): dead, or down and dying if the GM is feeling nice, or knocked out when
    non-lethal. A wound: a failed test drops him (the wound table's ``on_failed_test``); a lethal mortal
    wound leaves him dying (``mortal_wound_deaths``).
    """
    if level == "killed":
        if lethal and house.killing_blow_leaves_dying:
            return {"status": "unconscious", "dying": True}
        if lethal:
            return {"status": "dead"}
        return {"status": "unconscious", "knocked_out": True}
    update: dict[str, Any] = {}
    if not passed:
        update["status"] = _failed_test(level)
    if level == "mortal" and lethal and house.mortal_wound_deaths:
        update["dying"] = True
    return update


def killing_points(attacker: Fighter, defender: Fighter, house: FuzzyHouseRules) -> int | None:
    """The Advantage Points that buy a killing blow (4x the Defence Total): past them, nothing more happens.

    None when the attacker cannot hurt, or may hold the blow back (the non-lethal Body test).
    """
    if not can_harm(attacker) or (attacker.tactics.intent != "lethal" and house.nonlethal_body_test is not None):
        return None
    return level_multiple("killed") * defence_total(defender, attacker)[0]


@dataclass(frozen=True)
class Exchange:
    """One engagement this round, before a die is rolled: who, with what dice and flat modifiers."""

    a: Fighter
    b: Fighter
    dice: tuple[int, int]
    flat: tuple[int, int]
    labels: tuple[str, str]
    killing: tuple[int | None, int | None]  # :func:`killing_points` of a against b, and of b against a


@dataclass(frozen=True)
class RoundPlan:
    """Everything about a round that needs no dice: the engagements and each side's roll."""

    state: FightState
    exchanges: tuple[Exchange, ...]
    count: Mapping[str, int]  # engagements per fighter (several opponents cost dice)


def plan_round(state: FightState) -> RoundPlan:
    """Who fights whom this round and with what: :func:`engagements`, :func:`exchange_dice`."""
    house = state.house_rules
    fighters = {f.key: f for f in state.fighters}
    pairs = engagements(state)
    count = dict.fromkeys(fighters, 0)
    for a, b in pairs:
        count[a] += 1
        count[b] += 1
    exchanges = []
    for a_key, b_key in pairs:
        a, b = fighters[a_key], fighters[b_key]
        (da, fa), (db, fb) = exchange_dice(a, count[a_key], house), exchange_dice(b, count[b_key], house)
        exchanges.append(
            Exchange(
                a,
                b,
                (da, db),
                (fa, fb),
                (f"{a_key} ({a.ability})", f"{b_key} ({b.ability})"),
                (killing_points(a, b, house), killing_points(b, a, house)),
            )
        )
    return RoundPlan(state, tuple(exchanges), count)


def play_round(state: FightState, chance: Chance) -> Played:
    """One round of the fight: every engagement's contested roll, then each winner spends (see the module).

    The engine plays it with the fight's dice (:class:`storymaster.forecast.Rolled`); the exact forecast
    enumerates it (:func:`storymaster.forecast.branches`). The log is written only when ``chance.narrate``.
    """
    fighters = {f.key: f for f in state.fighters}
    pools = {(p.holder, p.against): p.points for p in state.pools}
    events: list[Event] = []
    winners = roll_exchanges(plan_round(state), pools, chance, events)
    spend_points(fighters, pools, winners, state.round + 1, chance, state.house_rules, events)
    return Played(fighters, pools, events)


def roll_exchanges(
    plan: RoundPlan, pools: dict[tuple[str, str], int], chance: Chance, events: list[Event]
) -> list[tuple[str, str]]:
    """The contested rolls, in order: each winner gains the margin in Advantage Points (the ``advantage_on_loss``
    ruling first takes the loser's). Returns the (winner, loser) pairs; ``pools`` is updated.
    """
    narrate = chance.narrate
    house = plan.state.house_rules
    rnd = plan.state.round + 1
    winners: list[tuple[str, str]] = []
    for ex in plan.exchanges:
        a_key, b_key = ex.a.key, ex.b.key
        ka, kb = ex.killing
        # a margin past the killing blow (and the loser's points an offset cancels) changes nothing more
        decisive = (
            None if ka is None else ka + pools.get((b_key, a_key), 0) + 1,
            None if kb is None else kb + pools.get((a_key, b_key), 0) + 1,
        )
        result = chance.draw(Contest(ex.dice, ex.flat, house, ex.labels, decisive))
        margin = result.margin
        if margin == 0:
            if narrate:
                line = "a stand-off, no Advantage Points."
                events.append(_exchange_event(result, ex, plan.count, house, rnd, line, ""))
            continue
        win, lose = (a_key, b_key) if margin > 0 else (b_key, a_key)
        gained = abs(margin)
        theirs = pools.get((lose, win), 0)
        line = ""
        if theirs:
            gained, left = carry_over(gained, theirs, house)
            pools[(lose, win)] = left
            if house.advantage_on_loss == "offset":
                line = f"; {theirs - left} cancel {lose}'s points"
            elif house.advantage_on_loss == "lose":
                line = f"; {lose} loses {theirs} carried points"
        pools[(win, lose)] = pools.get((win, lose), 0) + gained
        if narrate:
            line = f"{win} wins by {abs(margin)}{line}, now {pools[(win, lose)]} Advantage Points against {lose}."
            events.append(
                _exchange_event(result, ex, plan.count, house, rnd, line, win, winner=win, advantage=pools[(win, lose)])
            )
        winners.append((win, lose))
    return winners


def spend_points(
    fighters: dict[str, Fighter],
    pools: dict[tuple[str, str], int],
    winners: Sequence[tuple[str, str]],
    rnd: int,
    chance: Chance,
    house: FuzzyHouseRules,
    events: list[Event],
) -> None:
    """The end of the round: each winner still facing a loser still up spends (``fighters``, ``pools`` updated)."""
    for win, lose in winners:
        if not fighters[win].up or not fighters[lose].up:
            continue
        _spend(fighters, pools, win, lose, rnd, chance, house, events)


def _exchange_event(
    result: Contested,
    ex: Exchange,
    count: Mapping[str, int],
    house: FuzzyHouseRules,
    rnd: int,
    outcome: str,
    actor: str,
    **more: Any,
) -> Event:
    """The log of one exchange: both sides' dice, what cost dice, the modifiers, the scores, criticals."""
    assert result.rolls is not None  # a narrated round rolled real dice
    texts = []
    scores = []
    for f, r, n in zip((ex.a, ex.b), result.rolls, ex.dice, strict=True):
        crowd = opponents_penalty(count[f.key], house, f.tactics.crowd)
        pen = wound_penalty(f.wounds)
        mods = roll_modifiers(f)
        score = r.total + sum(v for _, v in mods)
        why = []
        if pen:
            why.append(f"-{pen} injury")
        if crowd:
            why.append(f"-{crowd} for {count[f.key]} opponents")
        if f.hindrance:
            why.append(f"-{f.hindrance} hindered")
        floor = ", never below 1" if f.dice - pen - crowd - f.hindrance < 1 else ""
        dtext = f"{f.ability} {n}d6" + (f" ({f.dice} {' '.join(why)}{floor})" if why else "")
        mtext = "".join(f" {v:+d} {label}" for label, v in mods)
        crit = (
            " CRITICAL SUCCESS"
            if r.critical == "success"
            else " critical failure (something bad happens)"
            if r.critical == "failure"
            else ""
        )
        shown = f"{r.total}{mtext} = {score}" if mods else f"{score}"
        texts.append(f"{f.key} [{dtext}] {shown}{crit}")
        scores.append(score)
    data: dict[str, Any] = {"a": ex.a.key, "b": ex.b.key, "scores": scores, "margin": result.margin, **more}
    rolls = tuple(rec for r in result.rolls for rec in r.records)
    return Event("exchange", f"{texts[0]}  vs  {texts[1]}: {outcome}", rnd, actor, data, rolls)


def _spend(
    fighters: dict[str, Fighter],
    pools: dict[tuple[str, str], int],
    win: str,
    lose: str,
    rnd: int,
    chance: Chance,
    house: FuzzyHouseRules,
    events: list[Event],
) -> None:
    """The winner spends at the end of the round: harm once it is due, else a manoeuvre, else keeps the points."""
    attacker, defender = fighters[win], fighters[lose]
    points = pools.get((win, lose), 0)
    t = attacker.tactics
    harms = can_harm(attacker)
    dtotal, mods = defence_total(defender, attacker)
    spend = harm_spend(points, dtotal, attacker)
    if spend:
        pools[(win, lose)] = points - spend
        level = harm_level(spend, dtotal)
        if chance.narrate:
            events.append(
                Event(
                    "spend",
                    f"{win} spends {spend} Advantage Points to hurt {lose} (Defence Total {dtotal}: {_fmt_mods(mods)}"
                    f"{', floor of 1' if sum(v for _, v in mods) < 1 else ''}): {level}.",
                    rnd,
                    win,
                    {"points": spend, "defence": dtotal, "modifiers": mods, "level": level},
                )
            )
        _harm(fighters, win, lose, level, rnd, chance, house, events)
        return
    man = next_manoeuvre(attacker, points)
    if man is not None:
        pools[(win, lose)] = points - man.cost
        upd: dict[str, Any] = {
            "bought": (*attacker.bought, man.name),
            "roll_bonus": attacker.roll_bonus + man.roll_bonus,
        }
        text = f"{win} spends {man.cost} Advantage Points on a manoeuvre: {man.name}"
        if man.roll_bonus:
            text += f" ({man.roll_bonus:+d} to later rolls)"
        if man.ends_fight:
            upd["status"] = "escaped"
            text += f"; {win} gets away"
        fighters[win] = attacker.model_copy(update=upd)
        if chance.narrate:
            events.append(Event("manoeuvre", text + ".", rnd, win, {"manoeuvre": man.name, "cost": man.cost}))
        return
    if points and chance.narrate:
        why = (
            "all-out defence cannot hurt"
            if t.stance == "all-out defence"
            else (
                f"{attacker.weapon} cannot hurt anyone"
                if not harms
                else f"waiting for {level_multiple(t.harm_at)}x Defence Total {dtotal}"
            )
        )
        events.append(
            Event(
                "carry",
                f"{win} keeps {points} Advantage Points against {lose} ({why}).",
                rnd,
                win,
                {"points": points},
            )
        )


def _harm(
    fighters: dict[str, Fighter],
    win: str,
    lose: str,
    level: str,
    rnd: int,
    chance: Chance,
    house: FuzzyHouseRules,
    events: list[Event],
) -> None:
    """A blow of ``level``: the optional Body test to hold back, then the wound and its Tenacity test."""
    attacker, defender = fighters[win], fighters[lose]
    lethal = attacker.tactics.intent == "lethal"
    narrate = chance.narrate
    if level == "superficial":
        if narrate:
            events.append(
                Event(
                    "harm",
                    f"{lose} is not hurt, or only superficially - but knows {win} can hit.",
                    rnd,
                    win,
                    {"level": level},
                )
            )
        return
    if not lethal and house.nonlethal_body_test is not None:
        body = chance.draw(body_test(attacker, house))
        if narrate:
            assert body.roll is not None
            events.append(
                Event(
                    "body-test",
                    f"{win} makes a Body test to hold back: {body.roll.total} vs {house.nonlethal_body_test}: "
                    f"{'controlled' if body.passed else 'fumbled - the blow does no harm'}.",
                    rnd,
                    win,
                    {"total": body.roll.total},
                    body.roll.records,
                )
            )
        if not body.passed:
            return
    if level == "killed":
        fighters[lose] = defender.model_copy(update=blow_outcome(level, lethal, False, house))
        if narrate:
            if lethal and house.killing_blow_leaves_dying:
                text = f"{lose} falls, bleeding to death (no Tenacity test; the GM is feeling nice)."
            elif lethal:
                text = f"{lose} is killed (no Tenacity test)."
            else:
                text = f"{lose} is knocked out (non-lethal) and will recover in a few hours."
            events.append(Event("wound", text, rnd, win, {"level": level}))
        return
    wounds = (*defender.wounds, Wound(level=level, by=win, round=rnd, lethal=lethal))  # type: ignore[arg-type]
    pen = wound_penalty(wounds)
    if narrate:
        kind = "" if lethal else " (non-lethal: stunned or bruised, recovers in hours)"
        events.append(
            Event(
                "wound",
                f"{lose} is {level}ly wounded{kind}: now -{pen} dice to all actions.",
                rnd,
                win,
                {"level": level, "penalty": pen},
            )
        )
    tenacity = tenacity_test(defender, wounds, house)
    dice = tenacity.dice
    test = chance.draw(tenacity)
    update: dict[str, Any] = {"wounds": wounds, **blow_outcome(level, lethal, test.passed, house)}
    fail_to = _failed_test(level)
    fighters[lose] = defender.model_copy(update=update)
    if narrate:
        assert test.roll is not None
        r = test.roll
        text = (
            f"{lose} tests Tenacity ({defender.tenacity} dice -{pen} for wounds = {dice}) vs {house.tenacity_target}: "
            f"{r.describe()} = {r.total}: {'stays up' if test.passed else 'falls ' + fail_to}."
        )
        if update.get("dying"):
            text += f" {lose} will die within minutes without skilled medical attention."
        events.append(
            Event("tenacity", text, rnd, lose, {"total": r.total, "passed": test.passed, "dice": dice}, r.records)
        )


# -- the engine ------------------------------------------------------------------------------------


def _fighter(character: FuzzyCharacter, side: int, key: str, tactics: CombatTactics, house: FuzzyHouseRules) -> Fighter:
    cp = character.combat
    ability, dice = find_ability(character, cp.ability, house)
    hindrance = dice_for(character, cp.ability, hindered=True, house=house)[1] if cp.hindered else 0
    d_name, d_base = find_ability(character, cp.defence_ability or cp.ability, house)
    if dice < 1:
        raise CombatError(f"{character.name} fights with {ability} {dice}; it needs at least 1 die")
    return Fighter(
        key=key,
        name=character.name,
        side=side,
        ability=ability,
        dice=dice,
        defence_ability=d_name,
        defence_base=d_base,
        tenacity=character.required.tenacity,
        body=character.required.body,
        weapon=cp.weapon,
        weapon_lethality=cp.weapon_lethality,
        armour=cp.armour,
        encumbrance=cp.encumbrance,
        hindrance=hindrance,
        tactics=tactics,
    )


def _tactics_for(options: Mapping[str, Any], side: int, name: str) -> CombatTactics:
    by_name = options.get("tactics_by_name") or {}
    if name in by_name:
        return CombatTactics.model_validate(by_name[name])
    tactics = options.get("tactics") or {}
    if isinstance(tactics, Sequence) and not isinstance(tactics, str):
        raw = tactics[side] if side < len(tactics) else None
    else:
        raw = tactics.get(side, tactics.get(str(side)))
    if raw is None:
        return CombatTactics()
    return raw if isinstance(raw, CombatTactics) else CombatTactics.model_validate(raw)


def pairings(state: FightState) -> list[tuple[Fighter, Fighter]]:
    """Who fights whom this round, as (a fighter of the larger side, his opponent), in the larger side's order:
    the larger side's fighters share out the smaller side's in turn (side 1 counts as the larger when equal).
    """
    up = [[f for f in state.fighters if f.side == s and f.up] for s in (0, 1)]
    if not up[0] or not up[1]:
        return []
    small, large = (up[0], up[1]) if len(up[0]) <= len(up[1]) else (up[1], up[0])
    return [(f, small[i % len(small)]) for i, f in enumerate(large)]


def engagements(state: FightState) -> list[tuple[str, str]]:
    """Who fights whom this round (:func:`pairings`), each pair side 0 first."""
    return [(f.key, g.key) if f.side == 0 else (g.key, f.key) for f, g in pairings(state)]


class FuzzyCombat:
    """The Advantage Point combat engine (satisfies :class:`storymaster.rules.CombatEngine`)."""

    def start(
        self,
        sides: Sequence[Sequence[BaseModel]],
        *,
        house_rules: FuzzyHouseRules | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> FightState:
        house = house_rules or FuzzyHouseRules()
        options = dict(options or {})
        if len(sides) != 2:
            raise CombatError(f"a fight has two sides, not {len(sides)}")
        fighters = []
        seen: dict[str, int] = {}
        for s, team in enumerate(sides):
            if not team:
                raise CombatError(f"side {s + 1} has nobody in it")
            for c in team:
                if not isinstance(c, FuzzyCharacter):
                    raise CombatError(f"a fuzzy fight takes fuzzy characters, not {type(c).__name__}")
                seen[c.name] = seen.get(c.name, 0) + 1
                key = c.name if seen[c.name] == 1 else f"{c.name} #{seen[c.name]}"
                fighters.append(_fighter(c, s, key, _tactics_for(options, s, c.name), house))
        return FightState(fighters=tuple(fighters), house_rules=house)

    def is_over(self, state: FightState) -> bool:
        return state.over

    def winner(self, state: FightState) -> int | None:
        return state.winner

    # -- the GM's tracker (rules.FightTracker) ------------------------------------------------------
    def initiative_order(self, state: BaseModel) -> list[str]:
        """Always empty: every engaged pair rolls together, so there is no acting order."""
        if not isinstance(state, FightState):
            raise CombatError("not a fuzzy fight state")
        from .tracker import fight_order  # the tracker reads this module's rules: imported late, no cycle

        return fight_order(state)

    def tracker(self, state: BaseModel) -> list[CombatantStatus]:
        """Each fighter's worst wound, Advantage Points held, and whether they are still up."""
        if not isinstance(state, FightState):
            raise CombatError("not a fuzzy fight state")
        from .tracker import fight_tracker

        return fight_tracker(state)

    # -- one round ---------------------------------------------------------------------------------
    def step(self, state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
        if state.over:
            raise CombatError("the fight is over", hint="start a new fight")
        played = play_round(state, Rolled(rng))
        state2 = state.model_copy(
            update={
                "round": state.round + 1,
                "fighters": tuple(played.fighters[f.key] for f in state.fighters),
                "pools": tuple(
                    Pool(holder=h, against=a, points=p) for (h, a), p in sorted(played.pools.items()) if p > 0
                ),
            }
        )
        state2, end = self._check_end(state2)
        return state2, played.events + end

    def _check_end(self, state: FightState) -> tuple[FightState, list[Event]]:
        up = [any(f.up for f in state.fighters if f.side == s) for s in (0, 1)]
        names = [", ".join(f.key for f in state.fighters if f.side == s) for s in (0, 1)]
        if up[0] and up[1]:
            if state.round >= state.house_rules.max_rounds:
                st = state.model_copy(
                    update={"over": True, "winner": None, "reason": f"stand-off after {state.round} rounds"}
                )
                return st, [Event("end", st.reason, state.round)]
            return state, []
        if not up[0] and not up[1]:
            st = state.model_copy(update={"over": True, "winner": None, "reason": "nobody is left standing"})
        else:
            w = 0 if up[0] else 1
            st = state.model_copy(
                update={"over": True, "winner": w, "reason": f"{names[w]} won: nobody on the other side can fight"}
            )
        return st, [Event("end", st.reason, state.round, "", {"winner": st.winner})]

    def run(self, state: FightState, rng: DiceRng) -> tuple[FightState, list[Event]]:
        """Play rounds until the fight is over (the house rules' ``max_rounds`` bounds it)."""
        events: list[Event] = []
        while not state.over:
            state, ev = self.step(state, rng)
            events += ev
        return state, events
