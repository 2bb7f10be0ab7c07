"""A post's text as HTML (and as plain text for mails): the one renderer of the page, the preview, exports and mails.

CommonMark through markdown-it-py with raw HTML off (a ``<b>`` typed in a post shows
as text), then the output sanitised by nh3 (ammonia) to a short list of tags, every link
``rel="nofollow noopener"`` and no images (a remote image would tell its host who reads).
Indented code blocks are off: writers indent their paragraphs.

On top, the play-by-post forum conventions (each also as a block, the tag alone on its
lines):

* ``[ooc]...[/ooc]``: an out-of-character aside inside an in-character post;
* ``[quote=#12]...[/quote]`` (or ``[quote=Name]``, ``[quote]``) and Markdown's ``>``:
  quoting another post, with a link to it;
* ``[private=Ann]...[/private]``: a readers-only block. The server has already cut its
  text out for everyone else (:mod:`storymaster.play.text`); here a filled block is shown
  as a passage for its readers, an empty one as a note that there is one;
* dialogue in an in-character post (``"..."`` or ``“...”``) in the speaking character's
  colour (one of :data:`DIALOGUE_COLOURS`, by the character's id);
* ``[[#n]]``, the n-th inline roll: its total inline, every die on hover (``title``) and
  one tap away (a link to the roll's ``<details>`` under the post).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from html import escape
from typing import Any

from markupsafe import Markup

from ..play.text import ROLL_MARK, code_ranges, normalize

__all__ = ["DIALOGUE_COLOURS", "plain_text", "quote_text", "render_post", "roll_anchor"]

#: how many dialogue colours the stylesheet has (``say-0`` ... ``say-7``)
DIALOGUE_COLOURS = 8

_PUA = re.compile("[\ue000-\ue0ff]")
_PH = re.compile("\ue000([A-Za-z])(\\d*)\ue001")
_TAG = re.compile(
    r"\[(ooc|/ooc|/quote|/private)\]|\[quote(?:=([^\]\n]{1,100}))?\]|\[private=([^\]\n]{1,300})\](\[/private\])?",
    re.IGNORECASE,
)
_TAGS = {
    "p",
    "br",
    "b",
    "em",
    "strong",
    "a",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "hr",
    "del",
    "span",
    "aside",
}
_TAGS |= {"h4", "h5", "h6"}
_ATTRS = {
    "a": {"href", "title", "class"},
    "span": {"class", "title"},
    "aside": {"class"},
    "blockquote": {"class"},
    "p": {"class"},
    "code": {"class"},
    "ol": {"start"},
}

_md: Any = None


def _markdown() -> Any:
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"html": False})
        md.disable(["code", "image"])
        md.core.ruler.push("storymaster_headings", _shift_headings)
        md.core.ruler.push("storymaster_dialogue", _dialogue)
        _md = md
    return _md


def _shift_headings(state: Any) -> None:
    """A post's headings sit under the page's: # becomes h4, deeper ones h5 and h6."""
    for tok in state.tokens:
        if tok.type in ("heading_open", "heading_close"):
            tok.tag = f"h{min(6, int(tok.tag[1]) + 3)}"


_QUOTE = re.compile('(["“”])')


def _dialogue(state: Any) -> None:
    """Wrap quoted speech of an in-character post in the speaker's colour (``env['say']`` is the class)."""
    css = state.env.get("say")
    if not css:
        return
    from markdown_it.token import Token

    for tok in state.tokens:
        if tok.type != "inline" or not tok.children:
            continue
        out, open_ = [], False
        for child in tok.children:
            if child.type != "text" or not _QUOTE.search(child.content):
                out.append(child)
                continue
            for part in _QUOTE.split(child.content):
                if not part:
                    continue
                if part in '"“”' and len(part) == 1:
                    closing = part == "”" or (part == '"' and open_)
                    if not closing and not open_:
                        out.append(_html(Token, f'<span class="say {css}">'))
                        out.append(_text(Token, part))
                        open_ = True
                    elif closing and open_:
                        out.append(_text(Token, part))
                        out.append(_html(Token, "</span>"))
                        open_ = False
                    else:
                        out.append(_text(Token, part))
                else:
                    out.append(_text(Token, part))
        if open_:
            out.append(_html(Token, "</span>"))
        tok.children = out


def _html(token_cls: Any, html: str) -> Any:
    t = token_cls("html_inline", "", 0)
    t.content = html
    return t


def _text(token_cls: Any, text: str) -> Any:
    t = token_cls("text", "", 0)
    t.content = text
    return t


def roll_anchor(post: int | None, n: int) -> str:
    """The id of the n-th inline roll's details under post ``post``."""
    return f"roll-{post}-{n}"


def _roll_detail(r: Mapping[str, Any]) -> str:
    return "; ".join(str(rec.get("detail", "")) for rec in r.get("records", ()))


def _roll_html(n: int, rolls: Mapping[int, Mapping[str, Any]], post: int | None) -> str:
    r = rolls.get(n)
    if r is None:
        return '<span class="iroll hidden" title="a roll hidden from you">(a hidden roll)</span>'
    label = f'<span class="roll-label">{escape(r["label"])}</span> ' if r.get("label") else ""
    if r.get("draft"):
        dice = escape(r["draft"])
        return f'<span class="iroll draft" title="rolled when you post">{label}<code>{dice}</code> <b>?</b></span>'
    if r.get("hidden"):
        vis = escape(r["visibility"])
        return f'<span class="iroll hidden" title="a {vis} roll, hidden from you">{label}(hidden)</span>'
    title = escape(_roll_detail(r))
    expr = escape(str(r.get("expression", "")))
    return (
        f'<a class="iroll" href="#{roll_anchor(post, n)}" title="{title}">{label}<code>{expr}</code> '
        f"<strong>{escape(str(r.get('total')))}</strong></a>"
    )


def _placeholders(text: str, cites: list[str], readers: list[str]) -> str:
    """Tags and roll markers outside code as private-use placeholders (text's own such characters are dropped)."""
    text = _PUA.sub("", text)
    code = code_ranges(text)
    out, pos = [], 0
    marks = sorted(
        [(m.start(), m.end(), m) for m in ROLL_MARK.finditer(text)]
        + [(m.start(), m.end(), m) for m in _TAG.finditer(text)],
        key=lambda x: x[0],
    )
    for start, end, m in marks:
        if start < pos or any(a <= start < b for a, b in code):
            continue
        out.append(text[pos:start])
        pos = end
        if m.re is ROLL_MARK:
            out.append(f"\ue000R{m.group(1)}\ue001")
            continue
        tag = (m.group(1) or "").lower()
        if tag == "ooc":
            kind = "O"
        elif tag == "/ooc":
            kind = "o"
        elif tag == "/quote":
            kind = "q"
        elif tag == "/private":
            kind = "p"
        elif m.group(0)[1:6].lower() == "quote":
            cites.append((m.group(2) or "").strip())
            kind = f"Q{len(cites) - 1}"
        else:
            readers.append(m.group(3).strip())
            kind = f"H{len(readers) - 1}" if m.group(4) else f"P{len(readers) - 1}"
        out.append(f"\ue000{kind}\ue001")
    out.append(text[pos:])
    joined = "".join(out)
    # a tag alone on its line stands as a block of its own
    return re.sub("^[ \t]*(\ue000[OoQqPp]\\d*\ue001)[ \t]*$", "\n\\1\n", joined, flags=re.MULTILINE)


def _cite(raw: str, quotes: Mapping[int, str]) -> str:
    m = re.fullmatch(r"#?(\d{1,9})", raw)
    if m:
        n = int(m.group(1))
        who = quotes.get(n)
        name = f"{escape(who)}, " if who else ""
        return f'<p class="cite">{name}<a href="#post-{n}">post #{n}</a>:</p>'
    if raw:
        return f'<p class="cite">{escape(raw)} wrote:</p>'
    return ""


_CITED = re.compile(r"\[quote=#?(\d{1,9})\]", re.IGNORECASE)


def render_post(
    text: str,
    *,
    rolls: Sequence[Mapping[str, Any]] = (),
    post: int | None = None,
    character: int | None = None,
    quotes: Mapping[int, str] | None = None,
    draft: bool = False,
) -> Markup:
    """Safe HTML for a post's text as this reader sees it (readers-only blocks already filled or emptied).

    ``rolls`` are the post's roll views (those with ``inline`` show at their markers); ``character``
    (in-character posts) colours the dialogue; ``quotes`` names the posts a ``[quote=#n]`` may cite.
    ``draft``: a preview before posting, each inline roll shown as its dice, "rolled when you post".

    Rendering a 1 KB post takes about 2 ms, so the result is kept (an LRU of 1,024) by everything it
    depends on: the text, the inline rolls as this reader sees them, and the names of the posts it quotes.
    """
    inline = tuple(
        sorted(json.dumps(r, sort_keys=True, default=str) for r in rolls if isinstance(r.get("inline"), int))
    )
    cited: tuple[tuple[int, str], ...] = ()
    if quotes:
        cited = tuple(sorted({(n, quotes[n]) for n in map(int, _CITED.findall(text)) if n in quotes}))
    return _cached(text, inline, post, character, cited, draft)


@lru_cache(maxsize=1024)
def _cached(
    text: str, inline: tuple[str, ...], post: int | None, character: int | None, cited: tuple, draft: bool
) -> Markup:
    rolls = [json.loads(r) for r in inline]
    return _render(text, rolls=rolls, post=post, character=character, quotes=dict(cited), draft=draft)


def _render(
    text: str,
    *,
    rolls: Sequence[Mapping[str, Any]],
    post: int | None,
    character: int | None,
    quotes: Mapping[int, str],
    draft: bool,
) -> Markup:
    import nh3

    if draft:
        text, rolls = _draft_rolls(normalize(text))

    cites: list[str] = []
    readers: list[str] = []
    source = _placeholders(normalize(text), cites, readers)
    env = {"say": f"say-{character % DIALOGUE_COLOURS}"} if character is not None else {}
    html = _markdown().render(source, env)
    by_n = {int(r["inline"]): r for r in rolls if isinstance(r.get("inline"), int)}

    def block(kind: str, idx: str) -> tuple[str, str]:
        if kind == "O":
            return '<aside class="ooc"><p class="cite">Out of character:</p>', '<span class="ooc">(OOC: '
        if kind == "o":
            return "</aside>", ")</span>"
        if kind == "Q":
            cite = _cite(cites[int(idx)], quotes or {})
            return f'<blockquote class="quote">{cite}', '<span class="quote">“'
        if kind == "q":
            return "</blockquote>", "”</span>"
        if kind == "P":
            who = escape(readers[int(idx)])
            return (
                f'<aside class="readers-only"><p class="cite">For {who} only:</p>',
                f'<span class="readers-only"><span class="cite">(for {who} only)</span> ',
            )
        if kind == "p":
            return "</aside>", "</span>"
        who = escape(readers[int(idx)])  # H: a block this reader does not read
        note = f'<span class="readers-only hidden">(a passage for {who} only)</span>'
        return f"<p>{note}</p>", note

    def as_block(m: re.Match[str]) -> str:
        kind, idx = m.group(1), m.group(2)
        if kind == "R":
            return f"<p>{_roll_html(int(idx), by_n, post)}</p>"
        return block(kind, idx)[0]

    def as_inline(m: re.Match[str]) -> str:
        kind, idx = m.group(1), m.group(2)
        if kind == "R":
            return _roll_html(int(idx), by_n, post)
        return block(kind, idx)[1]

    html = re.sub("<p>\ue000([A-Za-z])(\\d*)\ue001</p>", as_block, html)
    html = _PH.sub(as_inline, html)
    clean = nh3.clean(
        html, tags=_TAGS, attributes=_ATTRS, link_rel="nofollow noopener", url_schemes={"http", "https", "mailto"}
    )
    return Markup(clean)


def _draft_rolls(text: str) -> tuple[str, list[dict[str, Any]]]:
    from ..play.errors import Invalid
    from ..play.text import find_inline_rolls, mark_rolls

    try:
        found = find_inline_rolls(text)
    except Invalid:
        return text, []  # the composer says what is wrong; the preview shows the text as typed
    shown = [
        {"inline": r.n, "label": r.label, "visibility": r.visibility, "hidden": True, "draft": r.dice} for r in found
    ]
    return mark_rolls(text, found), shown


def plain_text(text: str, *, rolls: Sequence[Mapping[str, Any]] = ()) -> str:
    """The text for a plain-text mail or a Markdown export: each roll marker as ``[2d6+3 = 9]``, hidden blocks noted."""
    by_n = {int(r["inline"]): r for r in rolls if isinstance(r.get("inline"), int)}

    def roll(m: re.Match[str]) -> str:
        r = by_n.get(int(m.group(1)))
        if r is None or r.get("hidden"):
            return "[a roll hidden from you]"
        label = f"{r['label']}: " if r.get("label") else ""
        return f"[{label}{r.get('expression', '')} = {r.get('total')}]"

    out = ROLL_MARK.sub(roll, normalize(text))
    return re.sub(
        r"\[private=([^\]\n]{1,300})\]\[/private\]", lambda m: f"[a passage for {m.group(1)} only]", out, flags=re.I
    )


def quote_text(post: int, text: str) -> str:
    """What "Quote" puts in the composer: the post's text (as this reader sees it) in ``[quote=#n]``.

    Its roll markers are dropped (a quote does not carry another post's rolls) and its readers-only
    blocks are left out (a quote would otherwise repeat them to the new post's readers).
    """
    body = ROLL_MARK.sub("", normalize(text))
    body = re.sub(r"\[private=[^\]\n]{1,300}\].*?\[/private\]", "", body, flags=re.IGNORECASE | re.DOTALL)
    body = re.sub(r"\n{3,}", "\n\n", body).strip()
    return f"[quote=#{post}]\n{body}\n[/quote]\n\n"
