"""One root for every error Storymaster raises on purpose.

Each error says what was wrong, where, and (in ``hint``) what to do about it.
The CLI prints them on one line or a small panel on stderr; a server turns
them into problem-details 4xx responses.

    StorymasterError
    ├── DiceError
    │   ├── DiceSyntaxError      a dice expression that does not parse (position, caret)
    │   └── DiceLimitError       an expression over a safety limit (dice, sides, depth, length)
    ├── OddsError                a question too large to answer exactly
    ├── RulesInputError          wrong input to a rule system: a check, character or house rules (``where``)
    │   ├── InputFileError       a character, fight or house-rules file that is missing or malformed
    │   ├── HouseRulesError      house rules that are not the system's options (unknown option, bad value)
    │   ├── CharacterError *     (also a RulesError)
    │   └── CheckError *         (also a RulesError)
    ├── RulesError               something the rules do not allow
    │   ├── CharacterError       a character that breaks the creation rules (all problems listed)
    │   ├── CheckError           a check that cannot be made as asked
    │   ├── CombatError          an action that is not legal in this fight state
    │   └── AdvancementError     an advancement the rules do not allow
    ├── PluginError              a rule system that is unknown or failed to load
    └── VerificationError        a roll record or log that does not check out
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "AdvancementError",
    "CharacterError",
    "CheckError",
    "CombatError",
    "DiceError",
    "DiceLimitError",
    "DiceSyntaxError",
    "HouseRulesError",
    "InputFileError",
    "OddsError",
    "PluginError",
    "Problem",
    "RulesError",
    "RulesInputError",
    "StorymasterError",
    "VerificationError",
]


class StorymasterError(Exception):
    """The root of every error Storymaster raises on purpose."""

    #: short machine-readable kind, used by the CLI's ``--json`` and the API
    code = "storymaster-error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\nTip: {self.hint}"
        return self.message

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"error": self.code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        return out


class DiceError(StorymasterError):
    code = "dice-error"


class DiceSyntaxError(DiceError):
    """A dice expression that does not parse; knows the position of the fault."""

    code = "dice-syntax"

    def __init__(self, message: str, *, expression: str, position: int, hint: str | None = None) -> None:
        self.expression = expression
        self.position = position
        super().__init__(message, hint=hint)

    def caret(self) -> str:
        """The expression with a caret under the position where it went wrong."""
        shown = self.expression.replace("\n", " ").replace("\t", " ")
        return f"  {shown}\n  {' ' * self.position}^"

    def __str__(self) -> str:
        text = f"{self.message} at position {self.position + 1}\n{self.caret()}"
        if self.hint:
            text += f"\nTip: {self.hint}"
        return text

    def to_json(self) -> dict[str, object]:
        out = super().to_json()
        out["expression"] = self.expression
        out["position"] = self.position
        return out


class DiceLimitError(DiceError):
    """An expression beyond a safety limit; with the expression and position when the parser knows them."""

    code = "dice-limit"

    def __init__(
        self, message: str, *, hint: str | None = None, expression: str | None = None, position: int | None = None
    ) -> None:
        self.expression = expression
        self.position = position
        super().__init__(message, hint=hint)

    def __str__(self) -> str:
        if self.expression is None or self.position is None:
            return super().__str__()
        shown = self.expression.replace("\n", " ").replace("\t", " ")
        text = f"{self.message}\n  {shown}\n  {' ' * self.position}^"
        if self.hint:
            text += f"\nTip: {self.hint}"
        return text

    def to_json(self) -> dict[str, object]:
        out = super().to_json()
        if self.expression is not None and self.position is not None:
            out["expression"] = self.expression
            out["position"] = self.position
        return out


class OddsError(StorymasterError):
    code = "odds-error"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a character (or any rules object): where, what, and the rule."""

    where: str
    message: str
    rule: str = ""

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        return f"{text} ({self.rule})" if self.rule else text


class RulesInputError(StorymasterError):
    """Wrong input to a rule system: a check, a character or house rules it cannot take.

    The one type front ends catch around a system's methods. ``where`` names the field
    (``td``, ``house_rules.golden_dice``, ``attributes.strength``) or the file; ``problems``
    lists every fault found, not just the first.
    """

    code = "rules-input"

    def __init__(
        self, message: str, *, where: str = "", hint: str | None = None, problems: Sequence[Problem] = ()
    ) -> None:
        super().__init__(message, hint=hint)
        self.problems = tuple(problems)
        self.where = where or (self.problems[0].where if self.problems else "")

    def to_json(self) -> dict[str, object]:
        out = super().to_json()
        if self.where:
            out["where"] = self.where
        if self.problems:
            out["problems"] = [{"where": p.where, "message": p.message, "rule": p.rule} for p in self.problems]
        return out


class InputFileError(RulesInputError):
    code = "input-file"


class HouseRulesError(RulesInputError):
    code = "house-rules-invalid"


class RulesError(StorymasterError):
    code = "rules-error"


class CharacterError(RulesError, RulesInputError):
    """A character that breaks the rules; carries every problem found, not just the first."""

    code = "character-invalid"

    def __init__(self, problems: Sequence[Problem], *, name: str = "", hint: str | None = None) -> None:
        self.problems = tuple(problems)
        who = f"{name!r} " if name else ""
        lines = [f"character {who}breaks {len(self.problems)} rule(s):"]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines), hint=hint, problems=problems)


class CheckError(RulesError, RulesInputError):
    code = "check-invalid"


class CombatError(RulesError):
    code = "combat-invalid"


class AdvancementError(RulesError):
    code = "advancement-invalid"


class PluginError(StorymasterError):
    code = "plugin-error"


class VerificationError(StorymasterError):
    code = "verification-failed"
