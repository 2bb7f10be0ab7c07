"""B.U.M. rolls: one d6 plus stat, skill and items, against a difficulty or another roll.

Each rule is a small function of the die faces (so the book's worked rolls are
tests); ``odds_*`` give the exact chances before anything is rolled and
``resolve_*`` roll them with an audited generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

from pydantic import Field, model_validator

from ...dice import DiceRng, RollRecord, roll
from ...errors import CheckError
from ...rules import Check, Outcome, OutcomeOdds
from .options import BumHouseRules

__all__ = [
    "FACES",
    "FixedCheck",
    "OpposedCheck",
    "RecheckCheck",
    "SneakAttackCheck",
    "fixed_succeeds",
    "odds_fixed",
    "odds_opposed",
    "odds_recheck",
    "odds_sneak",
    "opposed_winner",
    "range_penalty",
    "resolve_fixed",
    "resolve_opposed",
    "resolve_recheck",
    "resolve_sneak",
    "tie_goes_to",
]

FACES = range(1, 7)
#: a safety stop for re-rolled ties; the chance of reaching it is below 10**-300
MAX_TIE_REROLLS = 400

Parts = tuple[tuple[str, int], ...]


def _parts_text(parts: Sequence[tuple[str, int]], bonus: int) -> str:
    if not parts:
        return f"{bonus:+d}"
    return " ".join(f"{v:+d} {k}" for k, v in parts)


def _check_parts(parts: Parts, bonus: int, what: str) -> None:
    if parts and sum(v for _, v in parts) != bonus:
        raise ValueError(f"the {what} parts add up to {sum(v for _, v in parts)}, not {bonus}")


class FixedCheck(Check):
    """Part Two, Fixed Difficulty Rolls: d6 + bonus must meet or beat the DC."""

    kind: Literal["fixed"] = "fixed"
    bonus: int = Field(ge=-50, le=50, description="stat + skill + items + modifiers")
    dc: int = Field(ge=1, le=100, description="the difficulty the GM sets (standard 6)")
    parts: Parts = Field((), description="what makes up the bonus, e.g. (('DEX', 3), ('Stealth', 2))")
    label: str = ""

    @model_validator(mode="after")
    def _parts_sum(self) -> FixedCheck:
        _check_parts(self.parts, self.bonus, "bonus")
        return self

    def describe(self) -> str:
        return self.label or f"d6{self.bonus:+d} vs DC {self.dc}"


class RecheckCheck(Check):
    """Part Two, Failed Rolls and Re-checks: a failed roll may get a second roll (usually harder) to recover."""

    kind: Literal["recheck"] = "recheck"
    bonus: int = Field(ge=-50, le=50)
    dc: int = Field(ge=1, le=100)
    recheck_dc: int = Field(ge=1, le=100, description="the difficulty of the recovery roll")
    recheck_bonus: int | None = Field(
        None, ge=-50, le=50, description="bonus for the recovery roll (default: the same)"
    )
    parts: Parts = ()
    label: str = ""

    @model_validator(mode="after")
    def _parts_sum(self) -> RecheckCheck:
        _check_parts(self.parts, self.bonus, "bonus")
        return self

    @property
    def second_bonus(self) -> int:
        return self.bonus if self.recheck_bonus is None else self.recheck_bonus

    def describe(self) -> str:
        return (
            self.label
            or f"d6{self.bonus:+d} vs DC {self.dc}, re-check d6{self.second_bonus:+d} vs DC {self.recheck_dc}"
        )


Role = Literal["attacker", "defender"]


class OpposedCheck(Check):
    """Part Two, Opposed Rolls: both roll d6 + bonus; the higher total wins; ties roll again."""

    kind: Literal["opposed"] = "opposed"
    bonus: int = Field(ge=-50, le=50)
    vs: int = Field(ge=-50, le=50, description="the opponent's bonus")
    parts: Parts = ()
    vs_parts: Parts = ()
    role: Role = Field(
        "attacker", description="the roller's side in the tie rule: he acts (attacker) or resists (defender)"
    )
    is_player: bool = Field(True, description="the roller is a player character (for the 'players' tie rule)")
    opponent_is_player: bool = False
    label: str = ""

    @model_validator(mode="after")
    def _parts_sum(self) -> OpposedCheck:
        _check_parts(self.parts, self.bonus, "bonus")
        _check_parts(self.vs_parts, self.vs, "opponent's bonus")
        return self

    def describe(self) -> str:
        return self.label or f"d6{self.bonus:+d} vs d6{self.vs:+d}"


class SneakAttackCheck(Check):
    """Part Five, Sneak Attacks: melee needs no roll; a ranged sneak shot rolls against the GM's DC."""

    kind: Literal["sneak"] = "sneak"
    melee: bool = False
    bonus: int = Field(0, ge=-50, le=50, description="the ranged attack total")
    dc: int = Field(6, ge=1, le=100, description="GM's difficulty from range and armour (no DEX or shield)")
    range_turns: int = Field(1, ge=0, le=100)
    rifle: bool = False
    thrown: bool = False
    headshot: bool = Field(False, description="aim for the head: -4, and a hit kills or incapacitates")
    parts: Parts = ()
    label: str = ""

    @model_validator(mode="after")
    def _parts_sum(self) -> SneakAttackCheck:
        _check_parts(self.parts, self.bonus, "bonus")
        return self

    def describe(self) -> str:
        if self.melee:
            return self.label or "melee sneak attack"
        return self.label or f"sneak shot d6{self.bonus:+d} vs DC {self.dc}" + (" (head)" if self.headshot else "")


# --------------------------------------------------------------------------- rules on faces


def fixed_succeeds(die: int, bonus: int, dc: int) -> bool:
    """Part Two, Fixed Difficulty Rolls: the total 'must meet or exceed this difficulty'."""
    return die + bonus >= dc


def opposed_winner(die_a: int, bonus_a: int, die_b: int, bonus_b: int) -> Literal["a", "b", "tie"]:
    """Part Two, Opposed Rolls: a character 'succeeds if his total *exceeds*' the other's; equal is a tie."""
    ta, tb = die_a + bonus_a, die_b + bonus_b
    return "a" if ta > tb else "b" if tb > ta else "tie"


def tie_goes_to(
    hr: BumHouseRules, role: Role, is_player: bool, opponent_is_player: bool
) -> Literal["actor", "opponent"] | None:
    """Who wins a tie under the house rule (None: roll again, the book's way; Part Two, Opposed Rolls)."""
    rule = hr.opposed_ties
    if rule == "defender":
        return "actor" if role == "defender" else "opponent"
    if rule == "attacker":
        return "actor" if role == "attacker" else "opponent"
    if rule == "players" and is_player != opponent_is_player:
        return "actor" if is_player else "opponent"
    return None


def range_penalty(
    turns: int, *, rifle: bool = False, thrown: bool = False, hr: BumHouseRules | None = None
) -> int | None:
    """Part Five, Ranged attacking: -1 per turn of distance beyond the first (rifles at half rate).

    Returns the (non-positive) modifier, or None when a thrown weapon cannot reach.
    """
    hr = hr or BumHouseRules()
    if turns < 0:
        raise CheckError(f"a distance of {turns} turns is not possible", hint="distance is 0 (in reach) or more turns")
    if thrown and turns > hr.thrown_max_turns:
        return None
    steps = max(0, turns - 1)
    if rifle:
        steps //= hr.rifle_range_divisor
    return -steps


def needed_face(bonus: int, dc: int) -> int:
    """The lowest face that succeeds (7 if none can, 1 if any will)."""
    return min(7, max(1, dc - bonus))


# --------------------------------------------------------------------------- exact odds


def p_fixed(bonus: int, dc: int) -> Fraction:
    return Fraction(sum(1 for f in FACES if fixed_succeeds(f, bonus, dc)), 6)


def p_opposed_first(bonus: int, vs: int) -> tuple[Fraction, Fraction, Fraction]:
    """(win, tie, lose) of one pair of rolls, by counting the 36 face pairs."""
    w = t = 0
    for a in FACES:
        for b in FACES:
            r = opposed_winner(a, bonus, b, vs)
            w += r == "a"
            t += r == "tie"
    return Fraction(w, 36), Fraction(t, 36), Fraction(36 - w - t, 36)


def p_opposed_final(bonus: int, vs: int, tie_to: Literal["actor", "opponent"] | None) -> Fraction:
    """Chance the roller wins in the end. Re-rolled ties: win/(1 - tie), the sum of win*tie^k over k."""
    w, t, _ = p_opposed_first(bonus, vs)
    if tie_to == "actor":
        return w + t
    if tie_to == "opponent":
        return w
    return w / (1 - t)


def odds_fixed(check: FixedCheck) -> OutcomeOdds:
    p = p_fixed(check.bonus, check.dc)
    need = needed_face(check.bonus, check.dc)
    return OutcomeOdds(
        "bum",
        check.describe(),
        {"success": p, "failure": 1 - p},
        frozenset({"success"}),
        note=f"needs a {need} or better on the d6" if need <= 6 else "no roll of the d6 can reach it",
    )


def odds_recheck(check: RecheckCheck) -> OutcomeOdds:
    """Success at once, recovered by the re-check, or failure: p1, (1 - p1) * p2, (1 - p1) * (1 - p2)."""
    p1 = p_fixed(check.bonus, check.dc)
    p2 = p_fixed(check.second_bonus, check.recheck_dc)
    probs = {"success": p1, "recovered": (1 - p1) * p2, "failure": (1 - p1) * (1 - p2)}
    return OutcomeOdds(
        "bum",
        check.describe(),
        probs,
        frozenset({"success", "recovered"}),
        extra={"p_first_roll": p1, "p_recheck": p2},
        note="the re-check is only rolled after a failure",
    )


def odds_opposed(check: OpposedCheck, hr: BumHouseRules | None = None) -> OutcomeOdds:
    hr = hr or BumHouseRules()
    tie_to = tie_goes_to(hr, check.role, check.is_player, check.opponent_is_player)
    win, tie, lose = p_opposed_first(check.bonus, check.vs)
    p = p_opposed_final(check.bonus, check.vs, tie_to)
    extra = {"p_win_first_roll": win, "p_tie_each_roll": tie, "p_lose_first_roll": lose}
    if tie_to is None:
        mean = 1 / (1 - tie)
        note = f"ties are rolled again; the chances include the re-rolls (on average {mean} = {float(mean):.3g} rolls)"
    else:
        note = (
            f"ties go to the {'roller' if tie_to == 'actor' else 'opponent'} (house rule "
            f"opposed_ties={hr.opposed_ties})"
        )
    return OutcomeOdds("bum", check.describe(), {"win": p, "lose": 1 - p}, frozenset({"win"}), extra=extra, note=note)


def sneak_bonus(check: SneakAttackCheck, hr: BumHouseRules) -> int | None:
    pen = range_penalty(check.range_turns, rifle=check.rifle, thrown=check.thrown, hr=hr)
    if pen is None:
        return None
    return check.bonus + pen - (hr.headshot_penalty if check.headshot else 0)


def odds_sneak(check: SneakAttackCheck, hr: BumHouseRules | None = None) -> OutcomeOdds:
    hr = hr or BumHouseRules()
    if check.melee:
        if not hr.sneak_melee_kills:
            raise CheckError(
                "melee sneak attacks are switched off by the house rules",
                hint="roll an ordinary opposed attack instead",
            )
        return OutcomeOdds(
            "bum",
            check.describe(),
            {"hit": Fraction(1), "miss": Fraction(0)},
            frozenset({"hit"}),
            note="a melee sneak attack needs no roll",
        )
    b = sneak_bonus(check, hr)
    p = Fraction(0) if b is None else p_fixed(b, check.dc)
    note = "out of throwing range" if b is None else f"total bonus {b:+d} after range and aim"
    return OutcomeOdds("bum", check.describe(), {"hit": p, "miss": 1 - p}, frozenset({"hit"}), note=note)


# --------------------------------------------------------------------------- resolving


def d6(rng: DiceRng, label: str) -> RollRecord:
    return roll("1d6", rng, label=label)


def resolve_fixed(check: FixedCheck, rng: DiceRng) -> Outcome:
    rec = d6(rng, check.label or "roll")
    die = rec.total
    total = die + check.bonus
    ok = fixed_succeeds(die, check.bonus, check.dc)
    need = needed_face(check.bonus, check.dc)
    why = (
        f"You rolled {die} on the d6 and added {_parts_text(check.parts, check.bonus)} for a total of {total}, "
        f"{'meeting or beating' if ok else 'short of'} the difficulty of {check.dc}: "
        f"{'success' if ok else 'failure'}."
    )
    if need <= 6:
        why += f" (Any roll of {need} or more would have done it.)"
    return Outcome(
        "bum",
        check.describe(),
        "success" if ok else "failure",
        ok,
        why,
        (rec,),
        total - check.dc,
        {"die": die, "total": total, "dc": check.dc, "bonus": check.bonus},
    )


def resolve_recheck(check: RecheckCheck, rng: DiceRng) -> Outcome:
    first = resolve_fixed(FixedCheck(bonus=check.bonus, dc=check.dc, parts=check.parts, label="first roll"), rng)
    if first.success:
        return Outcome(
            "bum", check.describe(), "success", True, first.explanation, first.rolls, first.margin, dict(first.details)
        )
    second = resolve_fixed(FixedCheck(bonus=check.second_bonus, dc=check.recheck_dc, label="re-check"), rng)
    text = f"{first.explanation} The GM allows a re-check at DC {check.recheck_dc}: {second.explanation}"
    result = "recovered" if second.success else "failure"
    return Outcome(
        "bum",
        check.describe(),
        result,
        second.success,
        text,
        (*first.rolls, *second.rolls),
        second.margin,
        {"first": dict(first.details), "recheck": dict(second.details)},
    )


def roll_opposed(
    bonus: int,
    vs: int,
    rng: DiceRng,
    tie_to: Literal["actor", "opponent"] | None,
    labels: tuple[str, str] = ("roller", "opponent"),
) -> tuple[bool, list[RollRecord], list[tuple[int, int]]]:
    """Roll both sides until someone wins (or the tie rule decides): (roller won, records, totals per pair)."""
    records: list[RollRecord] = []
    totals: list[tuple[int, int]] = []
    for _ in range(MAX_TIE_REROLLS):
        a = d6(rng, labels[0])
        b = d6(rng, labels[1])
        records += [a, b]
        totals.append((a.total + bonus, b.total + vs))
        r = opposed_winner(a.total, bonus, b.total, vs)
        if r != "tie":
            return r == "a", records, totals
        if tie_to is not None:
            return tie_to == "actor", records, totals
    raise CheckError(f"{MAX_TIE_REROLLS} ties in a row: the dice generator is broken")  # pragma: no cover


def resolve_opposed(check: OpposedCheck, rng: DiceRng, hr: BumHouseRules | None = None) -> Outcome:
    hr = hr or BumHouseRules()
    tie_to = tie_goes_to(hr, check.role, check.is_player, check.opponent_is_player)
    won, records, totals = roll_opposed(check.bonus, check.vs, rng, tie_to)
    lines = []
    for i, (ta, tb) in enumerate(totals):
        da, db = records[2 * i].total, records[2 * i + 1].total
        lines.append(
            f"you rolled {da} ({_parts_text(check.parts, check.bonus)}) = {ta} against {db} "
            f"({_parts_text(check.vs_parts, check.vs)}) = {tb}",
        )
    text = "; ".join(lines)
    last_a, last_b = totals[-1]
    if last_a == last_b:
        text += f". A tie, which the house rule gives to the {'roller' if won else 'opponent'}"
    elif len(totals) > 1:
        text += f". {len(totals) - 1} tie(s) were rolled again"
    text = text[0].upper() + text[1:] + f". You {'win' if won else 'lose'}: the higher total wins."
    return Outcome(
        "bum",
        check.describe(),
        "win" if won else "lose",
        won,
        text,
        tuple(records),
        last_a - last_b,
        {
            "totals": [list(t) for t in totals],
            "rolls_made": len(totals),
            "parts": check.parts,
            "vs_parts": check.vs_parts,
        },
    )


def resolve_sneak(check: SneakAttackCheck, rng: DiceRng, hr: BumHouseRules | None = None) -> Outcome:
    hr = hr or BumHouseRules()
    if check.melee:
        odds_sneak(check, hr)  # raises if switched off
        return Outcome(
            "bum",
            check.describe(),
            "hit",
            True,
            "A melee attack on a foe who never saw you coming needs no roll: he is killed or incapacitated at once.",
            details={"incapacitates": True},
        )
    b = sneak_bonus(check, hr)
    if b is None:
        return Outcome(
            "bum", check.describe(), "miss", False, f"A thrown weapon cannot reach {check.range_turns} turns away."
        )
    rec = d6(rng, check.label or "sneak shot")
    total = rec.total + b
    ok = fixed_succeeds(rec.total, b, check.dc)
    mods = []
    pen = range_penalty(check.range_turns, rifle=check.rifle, thrown=check.thrown, hr=hr) or 0
    if pen:
        mods.append(f"{pen} for range")
    if check.headshot:
        mods.append(f"-{hr.headshot_penalty} for the head")
    text = (
        f"You rolled {rec.total} and added {_parts_text(check.parts, check.bonus)}"
        + (f" ({', '.join(mods)})" if mods else "")
        + f" for {total} against DC {check.dc} (no DEX or shield for an unaware target): {'hit' if ok else 'miss'}."
    )
    if ok and check.headshot:
        text += " A shot to the head kills or incapacitates."
    return Outcome(
        "bum",
        check.describe(),
        "hit" if ok else "miss",
        ok,
        text,
        (rec,),
        total - check.dc,
        {"incapacitates": ok and check.headshot, "wounds": 1 if ok else 0},
    )
