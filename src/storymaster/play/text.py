"""A post's text as the table reads it: line endings, inline rolls, and readers-only blocks.

Pure text handling, no markup library: what the server must understand of a post
*before* it is stored. Rendering to HTML is :mod:`storymaster.present.markup`.

* :func:`normalize` - every line ending becomes ``\\n`` where text enters the domain,
  so a browser's ``\\r\\n`` keeps its paragraphs.
* Inline rolls (:func:`find_inline_rolls`): ``[[2d6+3]]`` anywhere, ``/r 2d6+3`` (or
  ``/roll``) alone on its line, ``[roll]2d6+3[/roll]`` anywhere; each may carry a label
  after the dice (``[[1d20+5 Stealth]]``, ``[roll=Stealth]1d20+5[/roll]``) and a
  visibility after a bar (``[[1d20+5 Stealth | gm]]``). Notation inside a code span or a
  fenced code block is text, not a roll. Once rolled, each is stored as the marker
  ``[[#n]]`` (the n-th inline roll of the post), which edits keep and never re-roll.
* Readers-only blocks (:func:`split_secrets`): ``[private=Ann, Kestrel]...[/private]``.
  Their text is cut out of the post before it is stored and goes in its own log entry
  whose audience is the named readers and the author, so it is enforced exactly like a
  private post. They are recognised everywhere, code included: over-hiding is safe,
  leaking is not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import Invalid

__all__ = [
    "ROLL_MARK",
    "InlineRoll",
    "SecretBlock",
    "code_ranges",
    "fill_secrets",
    "find_inline_rolls",
    "find_secrets",
    "mark_rolls",
    "normalize",
    "roll_marks",
    "split_secrets",
]

#: how an inline roll is stored once rolled: ``[[#n]]``, the n-th inline roll of the post
ROLL_MARK = re.compile(r"\[\[#(\d{1,3})\]\]")
MAX_INLINE_ROLLS = 20
#: the dice of an inline roll are at most this many words (``2d6 + 1d4 + 3`` is five)
MAX_DICE_WORDS = 16
VISIBILITIES = ("public", "gm", "blind", "self")

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_DOUBLE = re.compile(r"\[\[(?!#\d{1,3}\]\])(.*?)\]\]")
_BBCODE = re.compile(r"\[roll(?:=([^\]\n]{0,200}))?\](.*?)\[/roll\]", re.IGNORECASE)
_SLASH = re.compile(r"^[ \t]*/r(?:oll)?[ \t]+(\S[^\n]*?)[ \t]*$", re.MULTILINE | re.IGNORECASE)
_SECRET = re.compile(r"\[private=([^\]\n]{0,300})\](.*?)\[/private\]", re.IGNORECASE | re.DOTALL)
_SECRET_OPEN = re.compile(r"\[private=", re.IGNORECASE)


def normalize(text: str) -> str:
    """Every line ending (``\\r\\n``, ``\\r``, U+2028, U+2029) as ``\\n``: paragraphs survive from every client."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n\n")


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Where the text is code (fenced blocks, then code spans outside them), as [start, end) offsets."""
    ranges: list[tuple[int, int]] = []
    pos, fence, fence_start = 0, "", 0
    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end() :].strip():
                ranges.append((fence_start, pos + len(line)))
                fence = ""
        elif m and not (m.group(1)[0] == "`" and "`" in line[m.end() :]):
            fence, fence_start = m.group(1), pos
        pos += len(line)
    if fence:  # an unclosed fence runs to the end (CommonMark)
        ranges.append((fence_start, len(text)))
    spans = []
    for m in _CODE_SPAN.finditer(text):
        if not any(a <= m.start() < b for a, b in ranges):
            spans.append((m.start(), m.end()))
    return sorted(ranges + spans)


def _inside(ranges: Sequence[tuple[int, int]], start: int) -> bool:
    return any(a <= start < b for a, b in ranges)


@dataclass(frozen=True, slots=True)
class InlineRoll:
    """One inline roll found in a post: where it is, the dice, its label and who sees the result."""

    n: int  # 1-based, in the order of the text
    start: int
    end: int
    line: int  # 1-based line of the text
    source: str  # exactly as written
    dice: str
    label: str
    visibility: str

    def request(self) -> dict[str, object]:
        """The roll request :func:`~storymaster.play.rolling.roll_requests` takes."""
        return {"dice": self.dice, "label": self.label, "visibility": self.visibility, "inline": self.n}


def _split_spec(spec: str, label: str, where: str) -> tuple[str, str, str]:
    """``2d6+3 Sneak attack | gm`` -> (dice, label, visibility); the longest leading run of words that is dice."""
    from ..dice import parse
    from ..errors import DiceError

    spec, bar, vis = spec.partition("|")
    visibility = vis.strip().lower() if bar else "public"
    if visibility not in VISIBILITIES:
        raise Invalid(
            f"{where}: no roll visibility {vis.strip()!r}",
            hint="after the bar: public, gm (the GM and you), blind (the GM only) or self (only you)",
        )
    words = spec.split()
    if not words:
        raise Invalid(f"{where}: no dice to roll", hint="write the dice, such as [[2d6+3]]")
    first_error: DiceError | None = None
    for k in range(min(len(words), MAX_DICE_WORDS), 0, -1):  # dice are a few words; the rest is the label
        try:
            parse(" ".join(words[:k]))
        except DiceError as exc:
            if first_error is None:
                first_error = exc
            continue
        extra = " ".join(words[k:])
        return " ".join(words[:k]), (label or extra).strip()[:200], visibility
    assert first_error is not None
    detail = first_error.message if hasattr(first_error, "message") else str(first_error)
    raise Invalid(f"{where}: {detail}", hint=first_error.hint or "dice are written NdX+M, e.g. 2d6+3")


def find_inline_rolls(text: str) -> list[InlineRoll]:
    """Every inline roll of ``text`` (normalised) in the order it is written; code is not rolled.

    Raises :class:`Invalid` naming the roll (its number, line and text) when its dice do not parse.
    """
    code = code_ranges(text)
    found: list[tuple[int, int, str, str]] = []  # start, end, spec, label
    for m in _DOUBLE.finditer(text):
        found.append((m.start(), m.end(), m.group(1), ""))
    for m in _BBCODE.finditer(text):
        found.append((m.start(), m.end(), m.group(2), (m.group(1) or "").strip()))
    for m in _SLASH.finditer(text):
        found.append((m.start(), m.end(), m.group(1), ""))
    found.sort()
    out: list[InlineRoll] = []
    last_end = -1
    for start, end, spec, label in found:
        if _inside(code, start) or start < last_end:
            continue
        last_end = end
        n = len(out) + 1
        line = text.count("\n", 0, start) + 1
        source = text[start:end]
        shown = source.strip() if len(source.strip()) <= 60 else source.strip()[:57] + "..."
        where = f"inline roll {n} ({shown!r}, line {line})"
        if n > MAX_INLINE_ROLLS:
            raise Invalid(f"{where}: at most {MAX_INLINE_ROLLS} inline rolls in one post")
        dice, lab, vis = _split_spec(spec, label, where)
        out.append(InlineRoll(n, start, end, line, source, dice, lab, vis))
    return out


def mark_rolls(text: str, rolls: Sequence[InlineRoll]) -> str:
    """The text with each inline roll replaced by its marker ``[[#n]]`` (what is stored)."""
    for r in sorted(rolls, key=lambda r: r.start, reverse=True):
        text = text[: r.start] + f"[[#{r.n}]]" + text[r.end :]
    return text


def roll_marks(text: str) -> list[int]:
    """The roll numbers the stored text's markers name, in order."""
    return [int(m.group(1)) for m in ROLL_MARK.finditer(text)]


@dataclass(frozen=True, slots=True)
class SecretBlock:
    """A readers-only block: the readers as written, its text, and where it stands in the post."""

    readers: tuple[str, ...]
    text: str
    start: int
    end: int


def find_secrets(text: str) -> list[SecretBlock]:
    """Every ``[private=...]...[/private]`` block; an unclosed or nested one is refused (it would leak)."""
    blocks = []
    pos = 0
    for m in _SECRET.finditer(text):
        if _SECRET_OPEN.search(text, pos, m.start()):
            raise Invalid("a readers-only block is not closed", hint="end it with [/private] (blocks cannot be nested)")
        inner = m.group(2)
        if _SECRET_OPEN.search(inner):
            raise Invalid("readers-only blocks cannot be nested", hint="close the first with [/private]")
        readers = tuple(r.strip() for r in m.group(1).split(",") if r.strip())
        if not readers:
            raise Invalid("a readers-only block names its readers: [private=Ann, Kestrel]")
        if not inner.strip():
            raise Invalid(f"the readers-only block for {', '.join(readers)} is empty")
        blocks.append(SecretBlock(readers, inner, m.start(), m.end()))
        pos = m.end()
    if _SECRET_OPEN.search(text, pos):
        raise Invalid("a readers-only block is not closed", hint="end it with [/private] (blocks cannot be nested)")
    return blocks


def split_secrets(text: str) -> tuple[str, list[SecretBlock]]:
    """The text everyone reading the post gets (each block emptied: ``[private=Ann][/private]``), and the blocks."""
    blocks = find_secrets(text)
    out, pos = [], 0
    for b in blocks:
        out.append(text[pos : b.start])
        out.append(f"[private={', '.join(b.readers)}][/private]")
        pos = b.end
    out.append(text[pos:])
    return "".join(out), blocks


def fill_secrets(public: str, texts: Sequence[str | None]) -> str:
    """The emptied blocks of ``public`` filled, in order, with the texts this reader may read (None: stays empty)."""
    it = iter(texts)

    def fill(m: re.Match[str]) -> str:
        t = next(it, None)
        return m.group(0) if t is None else f"[private={m.group(1)}]{t}[/private]"

    return _SECRET.sub(fill, public)
