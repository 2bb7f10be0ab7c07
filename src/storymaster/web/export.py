"""Exports of a scene or a campaign: the story as one narrative, and the full log with rolls.

JSON carries the hash-chained log as the reader may see it, so
``storymaster verify`` can check it offline; Markdown and HTML are for reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from jinja2 import Environment, select_autoescape

from ..play.campaign import CampaignState
from ..play.log import Entry
from ..play.rebuild import characters_from_log, narrative, scene_from_log
from ..play.scene import IC, SceneState
from ..play.verify import EXPORT_FORMAT, EXPORT_VERSION
from ..play.views import Reader, entry_view
from ..present.markup import plain_text, render_post
from .signing import Signer

__all__ = ["export_html", "export_json", "export_markdown", "hidden_posts", "narrative", "scene_doc"]


def hidden_posts(s: SceneState, reader: Reader) -> frozenset[int]:
    """Deleted posts whose text this reader no longer reads (everyone but the GM)."""
    if reader.is_gm:
        return frozenset()
    out: set[int] = set()
    for seq, p in s.posts.items():
        if p.deleted_at is not None:
            out.add(seq)
            out.update(p.secrets)  # the deleted post's readers-only blocks, in every version
            for h in p.history:
                out.update(h.get("secrets", ()))
    return frozenset(out)


def _signed(view: dict[str, Any], signer: Signer, log: str) -> dict[str, Any]:
    view["sig"] = signer.sign_place(log, view["seq"], view["hash"])
    return view


def scene_doc(s: SceneState, c: CampaignState, reader: Reader, log: Sequence[Entry], signer: Signer) -> dict[str, Any]:
    """A scene as the reader may see it: its log (each entry signed), and the story rebuilt from that log."""
    hidden = hidden_posts(s, reader)
    views = [
        _signed(entry_view(e, reader, s.seed, hidden), signer, f"s:{s.id}") for e in log if e.seq <= s.head_seq
    ]  # the log as the state saw it
    return {"id": s.id, **scene_from_log(views), "log": views}


def export_json(
    c: CampaignState,
    reader: Reader,
    now: datetime,
    scenes: Sequence[dict[str, Any]],
    signer: Signer,
    campaign_log: Sequence[Entry] | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": now.isoformat(),
        "reader": {"user": reader.user, "role": reader.role},
        "system": c.system,
        "campaign": None,
        "scenes": list(scenes),
    }
    if campaign_log is not None:
        doc["campaign"] = {
            "id": c.id,
            "name": c.name,
            "system": c.system,
            "house_rules": c.house_rules,
            "log": [_signed(entry_view(e, reader, None), signer, f"c:{c.id}") for e in campaign_log],
        }
        doc["campaign"]["characters"] = characters_from_log(doc["campaign"]["log"])
    return signer.sign_export(doc)


def _roll_line(r: dict[str, Any]) -> str:
    label = f"{r['label']}: " if r.get("label") else ""
    if r.get("hidden"):
        return f"{label}(a {r['visibility']} roll, hidden from you)"
    if r["type"] == "check":
        o = r["outcome"]
        return f"{label}{o['check']}: {o['result']} ({o['explanation']})"
    if r["type"] == "dice":
        return f"{label}{r['records'][0]['detail']}"
    return f"{label}" + "; ".join(rec["detail"] for rec in r["records"])


def _who(p: dict[str, Any], names: dict[int, str]) -> str:
    author = names.get(p["author"], f"user {p['author']}")
    if p.get("kind") == IC and p.get("character_name"):
        return f"{p['character_name']} ({author})"
    return author


def speaker(p: dict[str, Any], names: dict[int, str]) -> str:
    """Who speaks an in-character post in the story: the character, or the GM narrating."""
    if p.get("character_name"):
        return str(p["character_name"])
    return f"The narrator ({names.get(p['author'], 'the GM')})"


def story(s: dict[str, Any]) -> list[dict[str, Any]]:
    """The scene's in-character posts as the story reads them (the narrative's posts, each with its speaker)."""
    return [p for p in s["posts"] if p.get("kind") == IC and not p["deleted"] and str(p.get("text", "")).strip()]


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~&])")


def md_inline(text: Any) -> str:
    """Text for one line of Markdown: line breaks flattened, every character Markdown or HTML reads escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def md_fenced(text: str) -> list[str]:
    """A block of players' text as a fenced block: a fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", text.rstrip("\n"), fence]


def export_markdown(title: str, scenes: Sequence[dict[str, Any]], c: CampaignState) -> str:
    names = {m.user: m.name for m in c.members.values()}
    lines = [f"# {md_inline(title)}", "", f"*{md_inline(c.name)}*, played with {c.system}.", ""]
    for s in scenes:
        lines += [f"## {md_inline(s['title'])}", "", "### The story", ""]
        for p in story(s):
            lines += [
                f"**{md_inline(speaker(p, names))}:**",
                "",
                *md_fenced(plain_text(p["text"], rolls=p["rolls"])),
                "",
            ]
        lines += ["### The full log", ""]
        for p in s["posts"]:
            extra = " (deleted)" if p["deleted"] else ""
            to = f" to {', '.join(names.get(u, str(u)) for u in p.get('to', []))}" if p.get("to") else ""
            kind = str(p.get("kind") or "post").upper()
            lines.append(f"**#{p['id']} {kind}{md_inline(to)}, {md_inline(_who(p, names))}, {p['at']}{extra}**")
            lines.append("")
            if "text" in p:
                lines += [*md_fenced(plain_text(p["text"], rolls=p["rolls"])), ""]
            for r in p["rolls"]:
                n = f" {r['inline']} (inline)" if isinstance(r.get("inline"), int) else ""
                lines.append(f"- roll{n}: {md_inline(_roll_line(r))}")
            if p["rolls"]:
                lines.append("")
        commit = f"seed SHA-256 `{s['seed_sha256']}`" + (
            f", seed `{s['seed']}`" if s["seed"] else ", seed not yet revealed"
        )
        lines += [f"*Dice: stream `{s['stream']}`, {commit}.*", ""]
    return "\n".join(lines)


_ENV = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
_PAGE = _ENV.from_string(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>body{font-family:Georgia,serif;max-width:42em;margin:2em auto;padding:0 1em;line-height:1.5}
.post{border-top:1px solid #ccc;padding:.5em 0}.meta{font-family:sans-serif;font-size:.85em;color:#555}
.roll{font-family:monospace;font-size:.9em}.story p{margin:.2em 0}.speaker{font-weight:bold}
.ooc,.readers-only{color:#444;font-family:sans-serif;font-size:.9em}aside{border-left:3px solid #999;padding-left:.6em}
blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:.8em}</style></head>
<body><h1>{{ title }}</h1><p><em>{{ campaign.name }}</em>, played with {{ campaign.system }}.</p>
{% for s in scenes %}<section><h2>{{ s.title }}</h2>
<h3>The story</h3><div class="story">{% for p in story(s) %}<div class="said"><p class="speaker">{{ speaker(p) }}</p>
{{ render(p, s) }}</div>{% endfor %}</div>
<h3>The full log</h3>
{% for p in s.posts %}<div class="post" id="post-{{ s.id }}-{{ p.id }}">
{#- -#}
<div class="meta">#{{ p.id }} {{ (p.kind or 'post')|upper }} · {{ who(p) }} · <time>{{ p.at }}</time>
{%- if p.deleted %} · deleted{% endif %}</div>
{% if p.text is defined %}{{ render(p, s) }}{% endif %}
{% for r in p.rolls %}<div class="roll"
{%- if r.inline is defined %} id="roll-{{ s.id }}-{{ p.id }}-{{ r.inline }}"{% endif %}>{{ roll_line(r) }}</div>
{%- endfor %}</div>{% endfor %}
<p class="meta">Dice: stream {{ s.stream }}, seed SHA-256 {{ s.seed_sha256 }}
{%- if s.seed %}, seed {{ s.seed }}{% else %}, seed not yet revealed{% endif %}.</p>
</section>{% endfor %}</body></html>
"""
)


def export_html(title: str, scenes: Sequence[dict[str, Any]], c: CampaignState) -> str:
    names = {m.user: m.name for m in c.members.values()}

    def render(p: dict[str, Any], s: dict[str, Any]) -> Any:
        html = render_post(
            p["text"], rolls=p["rolls"], post=p["id"], character=p.get("character") if p.get("kind") == IC else None
        )
        # the export holds several scenes: roll anchors carry the scene too
        return type(html)(
            str(html)
            .replace('href="#roll-', f'href="#roll-{s["id"]}-')
            .replace('href="#post-', f'href="#post-{s["id"]}-')
        )

    return _PAGE.render(
        title=title,
        scenes=scenes,
        campaign=c,
        who=lambda p: _who(p, names),
        roll_line=_roll_line,
        story=story,
        speaker=lambda p: speaker(p, names),
        render=render,
    )
