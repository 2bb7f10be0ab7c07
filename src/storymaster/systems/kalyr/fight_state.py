"""The state of a Kalyr fight and the pieces both kinds of contest share: fighters, tactics,
rolling, wounding (Kalyr RPG ch. 3: Damage; Fudge Points)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from pydantic import Field, model_validator

from ...dice import DiceRng
from ...forecast.chance import Chance, Rolled, branches
from ...rules.models import Model
from ...rules.protocol import Event
from .abilities import ability_level, wound_modifier
from .character import Character, weapon_reach
from .damage import WoundReport
from .data_files import table
from .options import KalyrHouseRules
from .wounds import DEFEATED, DESTROYED, Severity, Track, TrackName, Wound, open_box_in

__all__ = [
    "COMBAT",
    "MAX_ROUNDS",
    "Bout",
    "Contest",
    "Exchange",
    "Exchanging",
    "FightState",
    "Fighter",
    "Fighting",
    "Played",
    "Tactics",
    "best_ability",
    "fighting_ability",
    "fudge_limit",
    "fudge_to_spend",
    "is_critical",
    "is_out",
    "make_fighter",
    "over_text",
    "reach_rank",
    "wound_penalty_at",
]

COMBAT = table("combat")
MAX_ROUNDS = 200


class Tactics(Model):
    """How a fighter fights; every automatic choice comes from here."""

    ability: str | None = Field(
        None,
        description="the ability to fight with (default: chosen by the text: Brawling or Melee Weapons in a "
        "physical fight, a psionic power in a mental one, the best social ability in a social one)",
    )
    approach: int = Field(0, ge=-2, le=2, description="aggressive +1/+2, cautious -1/-2 (Damage)")
    stance: Literal["normal", "all_out_offence", "all_out_defence"] = "normal"
    aim: Literal["none", "good", "great"] = Field(
        "none", description="aim at a small body part: needs Good or Great (detailed only)"
    )
    withdraw_at: Severity | None = Field(
        None, description="admit defeat once this wound level is reached (detailed only)"
    )
    fudge_reduce_at: Literal["never", "defeated", "destroyed"] = Field(
        "destroyed", description="spend Fudge points to reduce a wound that would leave you at this level or worse"
    )


class Fighter(Model):
    character: Character
    tactics: Tactics = Tactics()
    ability: str
    level: int
    withdrawn: bool = False

    @property
    def name(self) -> str:
        return self.character.name


class FightState(Model):
    """A fight in progress: frozen and JSON-serialisable."""

    mode: Literal["simple", "detailed"] = "simple"
    track: TrackName = "physical"
    ranged: bool = False
    on_tie: Literal["reroll", "draw"] = "reroll"
    stakes: Severity | None = Field(
        None, description="a fixed wound the loser takes instead of margin damage (simple contests)"
    )
    round: int = 0
    sides: tuple[tuple[Fighter, ...], ...]
    house_rules: KalyrHouseRules = KalyrHouseRules()
    over: bool = False
    winner: int | None = None
    last_loser: int | None = None
    reach_penalty: int | None = Field(None, description="side index carrying the reach -1 this round")
    inside_reach: bool = False
    scope_penalty: tuple[int, int] = (0, 0)
    max_rounds: int = Field(MAX_ROUNDS, ge=1)

    @model_validator(mode="after")
    def _every_side_can_fight_until_it_is_over(self) -> FightState:
        """A fight not over has someone able to fight on each side: a saved state edited by hand (a side all
        withdrawn or Defeated, ``over`` false) is refused here, saying where, instead of failing mid-round."""
        if not self.over:
            for i, side in enumerate(self.sides):
                if all(is_out(f, self.track) for f in side):
                    raise ValueError(
                        f"side {i + 1} is already Defeated or withdrawn on the {self.track} track and cannot fight, "
                        "but the fight is not marked over"
                    )
        return self


def best_ability(character: Character, track: TrackName) -> str:
    """The character's best ability on a track ("(none)" without one)."""
    on_track = [a for a in character.abilities if a.track == track]
    if not on_track:
        return "(none)"
    return max(on_track, key=lambda a: a.level).name


def _named_like(name: str, words: Sequence[str]) -> bool:
    n = name.strip().casefold()
    return any(n == w.casefold() or n.startswith(w.casefold() + " ") for w in words)


def fighting_ability(character: Character, track: TrackName, *, ranged: bool = False) -> str:
    """The ability a fighter uses when none is named, chosen by the text (ruling K29).

    Deciding What Ability to Use: "A fight might need Brawling or Melee Weapons (Nirvork) ... and
    psionic battles will require psionic powers". A physical contest uses the best of the
    character's Brawling / Melee Weapons / Melee Combat (a missile contest: the best missile-weapon
    skill); without one, Brawling, rolled at Poor (Terrible under an incompetence). A mental
    contest uses the best psionic ability, else the best mental one; a social contest the best
    social ability.
    """
    if track == "physical":
        words = COMBAT["fighting_abilities"]["ranged" if ranged else "melee"]
        fit = [a for a in character.abilities if a.track == "physical" and _named_like(a.name, words)]
        if fit:
            return max(fit, key=lambda a: a.level).name
        return str(words[0] if ranged else "Brawling")
    if track == "mental":
        psionic = [a for a in character.abilities if a.track == "mental" and a.kind == "psionic"]
        if psionic:
            return max(psionic, key=lambda a: a.level).name
    return best_ability(character, track)


def make_fighter(character: Character, tactics: Tactics, track: TrackName, *, ranged: bool = False) -> Fighter:
    """A fighter with the ability it will roll (Deciding What Ability to Use: none listed is Poor)."""
    name = tactics.ability or fighting_ability(character, track, ranged=ranged)
    level, _ = ability_level(character, name)
    return Fighter(character=character, tactics=tactics, ability=name, level=level)


def is_out(f: Fighter, track: TrackName) -> bool:
    """Defeated (or worse) on the track, or withdrawn: out of the contest (Detailed Contests)."""
    return f.withdrawn or f.character.damage.track(track).status >= DEFEATED


def fudge_limit(f: Fighter) -> int | None:
    """The lowest box a wound may land in before the fighter spends Fudge points on it (None: never)."""
    return {"never": None, "defeated": DEFEATED, "destroyed": DESTROYED}[f.tactics.fudge_reduce_at]


def fudge_to_spend(used: tuple[int, ...], fudge: int, severity: int, limit: int | None) -> int:
    """Fudge points spent on a wound, one level each, while it would land in the ``limit`` box or
    higher (Fudge Points: reduce a wound; ruling K29). ``used``: the boxes marked, Scratch to Destroyed."""
    reduce = 0
    if limit is None:
        return 0
    while reduce < fudge and severity - reduce > 0:
        box = open_box_in(used, severity - reduce)
        if box is None or box < limit:
            break
        reduce += 1
    return reduce


def wound_penalty_at(f: Fighter, status: int, state: FightState) -> tuple[int, str]:
    """The wound penalty (and why) the fighter would have at ``status`` on the contest's track, the
    other tracks as they are (Modifiers; Effects of Damage; ruling K5); 0 when Defeated or worse."""
    if status >= DEFEATED:
        return 0, ""
    c = f.character
    if c.damage.track(state.track).status != status:  # the same penalty as any track at that status
        track = Track(wounds=(Wound(severity=status, box=status),)) if status else Track()
        c = c.model_copy(update={"damage": c.damage.with_track(state.track, track)})
    return wound_modifier(c, state.track, state.house_rules)


def over_text(winner: int | None, sides: Sequence[Sequence[Fighter]]) -> str:
    if winner is None:
        return "The contest ends without a winner."
    names = " and ".join(f.name for f in sides[winner])
    return f"{names} win{'s' if len(sides[winner]) == 1 else ''} the contest."


def reach_rank(f: Fighter) -> int:
    return list(COMBAT["reach_order"]).index(weapon_reach(f.character))


def is_critical(hr: KalyrHouseRules, dice_total: int | None, margin: int) -> bool:
    if hr.critical_rule == "dice_plus_4":
        return dice_total == 4
    return margin >= 3


# ---- the fight as the round reads it (issue 14) ------------------------------------------------------


class Fighting(NamedTuple):
    """A fighter's part of a fight in progress: the boxes marked on the contest's track (how many of
    each level, Scratch to Destroyed), Fudge points left, and whether they withdrew."""

    used: tuple[int, ...]
    fudge: int
    withdrawn: bool = False

    @property
    def status(self) -> int:
        """The highest box marked (0 unhurt)."""
        for box in range(DESTROYED, 0, -1):
            if self.used[box - 1]:
                return box
        return 0

    @property
    def out(self) -> bool:
        """Defeated (or worse) on the track, or withdrawn (as :func:`is_out`)."""
        return self.withdrawn or self.status >= DEFEATED


class Bout(NamedTuple):
    """What changes in a fight from round to round: the state the round function reads and returns
    (hashable, so the exact chain can merge equal states). ``played`` counts the rounds only when the
    contest counts them (the engine does; the exact chain does not, it caps the rounds itself)."""

    fighters: tuple[Fighting, ...]
    first: bool = True
    reach: int | None = None
    inside: bool = False
    scope: tuple[int, int] = (0, 0)
    over: bool = False
    winner: int | None = None
    played: int = 0


class Played(NamedTuple):
    """One round played: the next state, and for the engine the log (empty unless narrated), the
    wounds to mark on the characters ((fighter, severity, Fudge points spent), in order) and the loser."""

    bout: Bout
    events: list[Event]
    marks: list[tuple[int, int, int]]
    loser: int | None = None


@dataclass(frozen=True, slots=True)
class Exchange:
    """What the roll of a round decided, as the rest of the round reads it: the winner (None: nobody)
    and the wounds it deals, in order, as (fighter, severity). ``said`` carries the engine's log of the
    roll and each wound's reason and points; it is not compared (the chain merges equal exchanges)."""

    winner: int | None
    wounds: tuple[tuple[int, int], ...]
    said: tuple[Any, ...] = field(default=(), compare=False)


class Exchanging:
    """The roll of a round as one coarse event (:mod:`storymaster.forecast.chance`): the engine plays
    ``play`` with the real dice; the chain gets every distinct :class:`Exchange` of the same function
    with its probability, enumerated once for each ``key`` (what the roll depends on) and cached."""

    __slots__ = ("cache", "key", "play")

    def __init__(self, play: Callable[[Chance], Exchange], key: Hashable, cache: dict[Any, Any]) -> None:
        self.play, self.key, self.cache = play, key, cache

    def sample(self, rng: DiceRng) -> Exchange:
        """The roll with the fight's dice (and its log)."""
        return self.play(Rolled(rng))

    def outcomes(self) -> list[tuple[float, Exchange]]:
        """Every distinct exchange with its probability."""
        got = self.cache.get(self.key)
        if got is None:
            got = self.cache[self.key] = branches(self.play)
        return got  # type: ignore[no-any-return]


@dataclass(eq=False)
class Contest:
    """Everything that stays the same through a fight, read once from its state: fighters in side
    order, their levels, approaches, Fudge and withdrawal tactics, wound penalties by status, the
    damage each adds against each other one; for a detailed contest the standing modifiers."""

    state: FightState
    fighters: tuple[Fighter, ...]
    side: tuple[int, ...]
    members: tuple[tuple[int, ...], tuple[int, ...]]
    level: tuple[int, ...]
    approach: tuple[int, ...]
    flimit: tuple[int | None, ...]
    withdraw: tuple[int | None, ...]
    dconst: tuple[tuple[int, ...], ...]  # what i adds to the margin against j (foes only)
    count: bool = True
    detailed: Any = None
    memo: dict[Any, Any] = field(default_factory=dict)
    wounds: dict[tuple[Fighting, int, int | None], tuple[Fighting, int, int, int | None]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.fighters)

    def penalty(self, j: int, status: int) -> tuple[int, str]:
        """Fighter j's wound penalty at a status on the contest's track, and why (0 when Defeated or worse)."""
        key = ("penalty", j, status)
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = wound_penalty_at(self.fighters[j], status, self.state)
        return got  # type: ignore[no-any-return]


def contest_wound(
    c: Contest,
    fs: list[Fighting],
    j: int,
    severity: int,
    marks: list[tuple[int, int, int]],
    log: list[Event] | None,
    rnd: int,
    why: str,
    points: int | None = None,
) -> None:
    """Mark a wound of ``severity`` on fighter j (as :func:`wound_fighter_by_severity`): Fudge points
    first (:func:`fudge_to_spend`), then the box (:func:`.wounds.open_box_in`); logged when ``log``."""
    key = (fs[j], severity, c.flimit[j])
    done = c.wounds.get(key)
    if done is None:
        f = fs[j]
        reduce = fudge_to_spend(f.used, f.fudge, severity, c.flimit[j])
        left = max(severity - reduce, 0)
        box = open_box_in(f.used, left) if left > 0 else None
        used = f.used if box is None else tuple(u + (b == box) for b, u in enumerate(f.used, 1))
        done = c.wounds[key] = (Fighting(used, f.fudge - reduce, f.withdrawn), reduce, left, box)
    fs[j], reduce, left, box = done
    marks.append((j, severity, reduce))
    if log is not None:
        name = c.fighters[j].name
        wound = None if box is None else Wound(severity=left, box=box)
        rep = WoundReport(c.state.track, left, wound, reduce, box == DESTROYED)
        text = rep.text(name)
        if points is not None:
            text = f"{why}: {points} point(s). " + text
        data = {"points": points, "severity": rep.severity, "box": rep.box, "fudge_spent": rep.reduced}
        log.append(Event("wound", text, rnd, name, {**data, "key_due": rep.key_due}))
