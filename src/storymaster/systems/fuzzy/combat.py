"""Combat: opposed rolls each round, Advantage Points, Defence Totals, wounds and Tenacity tests.

"Combat Rules for Those Who Really Need 'Em", as a pure state machine:
``start`` builds a frozen :class:`FightState`; ``step`` plays one round and
returns the next state and the events; nothing else changes anything.

A round: every fighter still up is engaged with an opponent (several fighters
share out the smaller side's members in turn). Each engagement is one
contested roll; the winner gains Advantage Points equal to the margin. At the
end of the round each winner may spend points: on harm (against the loser's
Defence Total), on a manoeuvre (2, or 4 for hard things), or keep them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, Field

from ...dice import DiceRng
from ...errors import CombatError
from ...rules import CombatantStatus, Event, Model
from .character import FuzzyCharacter, dice_for, find_ability
from .options import FuzzyHouseRules
from .rolls import effective_dice, roll_ability, total_distribution
from .tables import combat_table, wound_levels

__all__ = [
    "CombatTactics",
    "FightState",
    "Fighter",
    "FuzzyCombat",
    "Manoeuvre",
    "Pool",
    "Wound",
    "defence_total",
    "exchange_margins",
    "harm_level",
    "opponents_penalty",
    "with_tactics",
    "wound_penalty",
]

Stance = Literal["normal", "offensive", "defensive", "all-out attack", "all-out defence"]
HarmLevel = Literal["moderate", "serious", "mortal", "killed"]
Status = Literal["fighting", "incapacitated", "unconscious", "dead", "escaped"]

LEVEL_MULTIPLE = {"superficial": 0, "moderate": 1, "serious": 2, "mortal": 3, "killed": 4}


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


def wound_penalty(wounds: Sequence[Wound]) -> int:
    """Dice lost to injury: the worst wound only ("Injury penalties are not cumulative")."""
    by_level = {row["name"]: int(row["dice_penalty"]) for row in wound_levels()}
    return max((by_level[w.level] for w in wounds), default=0)


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
    table = combat_table("opponents")
    if crowd != "auto":
        return int(table[crowd] or 0)
    if engaged >= house.huge_crowd:
        return int(table["huge crowd"] or 0)
    if engaged >= 2:
        return int(table["multiple"] or 0)
    return 0


def roll_modifiers(f: Fighter) -> list[tuple[str, int]]:
    """The roll modifiers: encumbrance (-1/-2), appropriateness (+1/+2), what manoeuvres bought."""
    mods = []
    enc = int(combat_table("encumbrance")[f.encumbrance] or 0)
    if enc:
        mods.append((f"{f.encumbrance} encumbrance", enc))
    if f.tactics.appropriateness:
        mods.append(("more appropriate Ability", f.tactics.appropriateness))
    if f.roll_bonus:
        mods.append(("manoeuvres", f.roll_bonus))
    return mods


def defence_total(defender: Fighter, attacker: Fighter) -> tuple[int, list[tuple[str, int]]]:
    """The defender's Defence Total against this attacker, with every modifier listed; never below 1.

    "Some common Defense totals modifiers": the attacker's weapon, armour,
    non-lethal intent (+2, +4 with a deadly or unsuitable weapon), minus the
    injury penalty, the defender's stance; "No Defense total can be less than 1."
    """
    mods: list[tuple[str, int]] = [(f"{defender.defence_ability} {defender.defence_base}", defender.defence_base)]
    weapon = combat_table("weapon")[attacker.weapon_lethality]
    if weapon:
        mods.append((f"attacker's {attacker.weapon} is {attacker.weapon_lethality}", int(weapon)))
    armour = int(combat_table("armour")[defender.armour] or 0)
    if armour:
        mods.append((f"{defender.armour}", armour))
    if attacker.tactics.intent == "non-lethal":
        unsuitable = attacker.weapon_lethality in ("especially damaging", "really deadly")
        key = "non-lethal with an unsuitable weapon" if unsuitable else "non-lethal"
        mods.append((key, int(combat_table("intent")[key] or 0)))
    pen = wound_penalty(defender.wounds)
    if pen:
        mods.append(("injury", -pen))
    stance = int(combat_table("stance")[defender.tactics.stance] or 0)
    if stance:
        mods.append((f"fighting {defender.tactics.stance}", stance))
    raw = sum(v for _, v in mods)
    return max(1, raw), mods


def _fmt_mods(mods: list[tuple[str, int]]) -> str:
    return ", ".join(f"{label} {v:+d}" if i else f"{label}" for i, (label, v) in enumerate(mods))


def exchange_dice(f: Fighter, engaged: int, house: FuzzyHouseRules) -> tuple[int, int]:
    """(dice rolled, flat modifier) for a fighter's roll this round: every die penalty and roll modifier applied."""
    crowd = opponents_penalty(engaged, house, f.tactics.crowd)
    dice = effective_dice(f.dice, wound_penalty(f.wounds) + crowd + f.hindrance)
    return dice, sum(v for _, v in roll_modifiers(f))


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


def engagements(state: FightState) -> list[tuple[str, str]]:
    """Who fights whom this round: the larger side's fighters share out the smaller side's in turn."""
    up = [[f for f in state.fighters if f.side == s and f.up] for s in (0, 1)]
    if not up[0] or not up[1]:
        return []
    small, large = (up[0], up[1]) if len(up[0]) <= len(up[1]) else (up[1], up[0])
    pairs = []
    for i, f in enumerate(large):
        g = small[i % len(small)]
        a, b = (f, g) if f.side == 0 else (g, f)
        pairs.append((a.key, b.key))
    return pairs


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
        house = state.house_rules
        rnd = state.round + 1
        fighters = {f.key: f for f in state.fighters}
        pools = {(p.holder, p.against): p.points for p in state.pools}
        events: list[Event] = []
        pairs = engagements(state)
        count = dict.fromkeys(fighters, 0)
        for a, b in pairs:
            count[a] += 1
            count[b] += 1
        winners: list[tuple[str, str]] = []
        for a_key, b_key in pairs:
            a, b = fighters[a_key], fighters[b_key]
            scores = []
            rolls = []
            texts = []
            for f in (a, b):
                crowd = opponents_penalty(count[f.key], house, f.tactics.crowd)
                pen = wound_penalty(f.wounds)
                dice, flat = exchange_dice(f, count[f.key], house)
                r = roll_ability(dice, rng, house, label=f"{f.key} ({f.ability})")
                rolls += r.records
                mods = roll_modifiers(f)
                score = r.total + flat
                scores.append(score)
                why = []
                if pen:
                    why.append(f"-{pen} injury")
                if crowd:
                    why.append(f"-{crowd} for {count[f.key]} opponents")
                if f.hindrance:
                    why.append(f"-{f.hindrance} hindered")
                floor = ", never below 1" if f.dice - pen - crowd - f.hindrance < 1 else ""
                dtext = f"{f.ability} {dice}d6" + (f" ({f.dice} {' '.join(why)}{floor})" if why else "")
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
            margin = scores[0] - scores[1]
            line = f"{texts[0]}  vs  {texts[1]}: "
            data: dict[str, Any] = {"a": a_key, "b": b_key, "scores": scores, "margin": margin}
            if margin == 0:
                line += "a stand-off, no Advantage Points."
                events.append(Event("exchange", line, rnd, "", data, tuple(rolls)))
                continue
            win, lose = (a_key, b_key) if margin > 0 else (b_key, a_key)
            gained = abs(margin)
            theirs = pools.get((lose, win), 0)
            if theirs and house.advantage_on_loss == "offset":
                cancel = min(theirs, gained)
                pools[(lose, win)] = theirs - cancel
                gained -= cancel
                line += f"{win} wins by {abs(margin)}; {cancel} cancel {lose}'s points, "
            elif theirs and house.advantage_on_loss == "lose":
                pools[(lose, win)] = 0
                line += f"{win} wins by {abs(margin)}; {lose} loses {theirs} carried points, "
            else:
                line += f"{win} wins by {abs(margin)}, "
            pools[(win, lose)] = pools.get((win, lose), 0) + gained
            line += f"now {pools[(win, lose)]} Advantage Points against {lose}."
            data.update(winner=win, advantage=pools[(win, lose)])
            events.append(Event("exchange", line, rnd, win, data, tuple(rolls)))
            winners.append((win, lose))
        # end of round: the winners spend
        for win, lose in winners:
            if not fighters[win].up or not fighters[lose].up:
                continue
            ev = self._spend(fighters, pools, win, lose, rnd, rng, house)
            events += ev
        state2 = state.model_copy(
            update={
                "round": rnd,
                "fighters": tuple(fighters[f.key] for f in state.fighters),
                "pools": tuple(Pool(holder=h, against=a, points=p) for (h, a), p in sorted(pools.items()) if p > 0),
            }
        )
        state2, end = self._check_end(state2)
        return state2, events + end

    def _spend(
        self,
        fighters: dict[str, Fighter],
        pools: dict[tuple[str, str], int],
        win: str,
        lose: str,
        rnd: int,
        rng: DiceRng,
        house: FuzzyHouseRules,
    ) -> list[Event]:
        attacker, defender = fighters[win], fighters[lose]
        points = pools.get((win, lose), 0)
        t = attacker.tactics
        events: list[Event] = []
        can_harm = t.stance != "all-out defence" and combat_table("weapon")[attacker.weapon_lethality] is not None
        dtotal, mods = defence_total(defender, attacker)
        spend = 0
        if can_harm and t.stance == "all-out attack":
            spend = points  # "must spend all their Advantage points to hurt their opponents"
        elif can_harm:
            m = min(4, points // dtotal)
            if m >= 1 and m >= LEVEL_MULTIPLE[t.harm_at]:
                spend = m * dtotal
        if spend:
            pools[(win, lose)] = points - spend
            level = harm_level(spend, dtotal)
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
            events += self._harm(fighters, win, lose, level, rnd, rng, house)
            return events
        for man in t.manoeuvres:
            if man.name in attacker.bought or man.cost > points:
                continue
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
            events.append(Event("manoeuvre", text + ".", rnd, win, {"manoeuvre": man.name, "cost": man.cost}))
            return events
        if points:
            why = (
                "all-out defence cannot hurt"
                if t.stance == "all-out defence"
                else (
                    f"{attacker.weapon} cannot hurt anyone"
                    if not can_harm
                    else f"waiting for {LEVEL_MULTIPLE[t.harm_at]}x Defence Total {dtotal}"
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
        return events

    def _harm(
        self,
        fighters: dict[str, Fighter],
        win: str,
        lose: str,
        level: str,
        rnd: int,
        rng: DiceRng,
        house: FuzzyHouseRules,
    ) -> list[Event]:
        attacker, defender = fighters[win], fighters[lose]
        lethal = attacker.tactics.intent == "lethal"
        events: list[Event] = []
        if level == "superficial":
            events.append(
                Event(
                    "harm",
                    f"{lose} is not hurt, or only superficially - but knows {win} can hit.",
                    rnd,
                    win,
                    {"level": level},
                )
            )
            return events
        if not lethal and house.nonlethal_body_test is not None:
            r = roll_ability(
                effective_dice(attacker.body, wound_penalty(attacker.wounds)), rng, house, label=f"{win} Body test"
            )
            ok = r.total >= house.nonlethal_body_test
            events.append(
                Event(
                    "body-test",
                    f"{win} makes a Body test to hold back: {r.total} vs {house.nonlethal_body_test}: "
                    f"{'controlled' if ok else 'fumbled - the blow does no harm'}.",
                    rnd,
                    win,
                    {"total": r.total},
                    r.records,
                )
            )
            if not ok:
                return events
        if level == "killed":
            if lethal and house.killing_blow_leaves_dying:
                fighters[lose] = defender.model_copy(update={"status": "unconscious", "dying": True})
                events.append(
                    Event(
                        "wound",
                        f"{lose} falls, bleeding to death (no Tenacity test; the GM is feeling nice).",
                        rnd,
                        win,
                        {"level": level},
                    )
                )
            elif lethal:
                fighters[lose] = defender.model_copy(update={"status": "dead"})
                events.append(Event("wound", f"{lose} is killed (no Tenacity test).", rnd, win, {"level": level}))
            else:
                fighters[lose] = defender.model_copy(update={"status": "unconscious", "knocked_out": True})
                events.append(
                    Event(
                        "wound",
                        f"{lose} is knocked out (non-lethal) and will recover in a few hours.",
                        rnd,
                        win,
                        {"level": level},
                    )
                )
            return events
        wounds = (*defender.wounds, Wound(level=level, by=win, round=rnd, lethal=lethal))  # type: ignore[arg-type]
        pen = wound_penalty(wounds)
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
        dice = effective_dice(defender.tenacity, pen)
        r = roll_ability(dice, rng, house, label=f"{lose} Tenacity")
        ok = r.total >= house.tenacity_target
        update: dict[str, Any] = {"wounds": wounds}
        fail_to = next(row["on_failed_test"] for row in wound_levels() if row["name"] == level)
        if not ok:
            update["status"] = fail_to
        if level == "mortal" and lethal and house.mortal_wound_deaths:
            update["dying"] = True
        fighters[lose] = defender.model_copy(update=update)
        text = (
            f"{lose} tests Tenacity ({defender.tenacity} dice -{pen} for wounds = {dice}) vs {house.tenacity_target}: "
            f"{r.describe()} = {r.total}: {'stays up' if ok else 'falls ' + fail_to}."
        )
        if update.get("dying"):
            text += f" {lose} will die within minutes without skilled medical attention."
        events.append(Event("tenacity", text, rnd, lose, {"total": r.total, "passed": ok, "dice": dice}, r.records))
        return events

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
