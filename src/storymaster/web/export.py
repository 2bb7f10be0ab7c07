"""Exports of a scene or a campaign: the story as one narrative, and the full log with rolls.

JSON carries the hash-chained log as the reader may see it, so
``storymaster verify`` can check it offline; Markdown and HTML are for reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from jinja2 import Environment, select_autoescape

from ..play.campaign import CampaignState
from ..play.log import Entry
from ..play.scene import IC, SceneState
from ..play.verify import EXPORT_FORMAT
from ..play.views import Reader, entry_view, post_view

__all__ = ["export_html", "export_json", "export_markdown", "hidden_posts"]


def hidden_posts(s: SceneState, reader: Reader) -> frozenset[int]:
    """Deleted posts whose text this reader no longer reads (everyone but the GM)."""
    if reader.is_gm:
        return frozenset()
    return frozenset(seq for seq, p in s.posts.items() if p.deleted_at is not None)


def _posts(s: SceneState, reader: Reader) -> list[dict[str, Any]]:
    return [v for seq in sorted(s.posts) if (v := post_view(s.posts[seq], reader, s)) is not None]


def narrative(posts: Sequence[dict[str, Any]]) -> list[str]:
    """The in-character posts, in order: the thread read as one flowing story."""
    return [p["text"] for p in posts if p["kind"] == IC and not p["deleted"] and p.get("text", "").strip()]


def scene_doc(s: SceneState, c: CampaignState, reader: Reader, log: Sequence[Entry]) -> dict[str, Any]:
    posts = _posts(s, reader)
    hidden = hidden_posts(s, reader)
    return {
        "id": s.id,
        "title": s.title,
        "mode": s.mode,
        "stream": s.stream,
        "seed_sha256": s.seed_sha256,
        "seed": s.seed,
        "opened_at": s.opened_at,
        "closed_at": s.closed_at,
        "narrative": narrative(posts),
        "posts": posts,
        "log": [
            entry_view(e, reader, s.seed, hidden) for e in log if e.seq <= s.head_seq
        ],  # the log as the state saw it
    }


def export_json(
    c: CampaignState,
    reader: Reader,
    now: datetime,
    scenes: Sequence[dict[str, Any]],
    campaign_log: Sequence[Entry] | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": 1,
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
            "log": [entry_view(e, reader, None) for e in campaign_log],
        }
    return doc


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
    if p["kind"] == IC and p.get("character_name"):
        return f"{p['character_name']} ({author})"
    return author


def export_markdown(title: str, scenes: Sequence[dict[str, Any]], c: CampaignState) -> str:
    names = {m.user: m.name for m in c.members.values()}
    lines = [f"# {title}", "", f"*{c.name}*, played with {c.system}.", ""]
    for s in scenes:
        lines += [f"## {s['title']}", "", "### The story", ""]
        for para in s["narrative"]:
            lines += [para.strip(), ""]
        lines += ["### The full log", ""]
        for p in s["posts"]:
            extra = " (deleted)" if p["deleted"] else ""
            to = f" to {', '.join(names.get(u, str(u)) for u in p.get('to', []))}" if p.get("to") else ""
            lines.append(f"**#{p['id']} {p['kind'].upper()}{to}, {_who(p, names)}, {p['at']}{extra}**")
            lines.append("")
            if "text" in p:
                lines += [p["text"].strip(), ""]
            for r in p["rolls"]:
                lines.append(f"- roll: {_roll_line(r)}")
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
.roll{font-family:monospace;font-size:.9em}.story p{text-indent:1.5em;margin:.2em 0}</style></head>
<body><h1>{{ title }}</h1><p><em>{{ campaign.name }}</em>, played with {{ campaign.system }}.</p>
{% for s in scenes %}<section><h2>{{ s.title }}</h2>
<h3>The story</h3><div class="story">{% for para in s.narrative %}<p>{{ para }}</p>{% endfor %}</div>
<h3>The full log</h3>
{% for p in s.posts %}<div class="post" id="post-{{ s.id }}-{{ p.id }}">
{#- -#}
<div class="meta">#{{ p.id }} {{ p.kind|upper }} · {{ who(p) }} · <time>{{ p.at }}</time>
{%- if p.deleted %} · deleted{% endif %}</div>
{% if p.text is defined %}<p>{{ p.text }}</p>{% endif %}
{% for r in p.rolls %}<div class="roll">{{ roll_line(r) }}</div>{% endfor %}</div>{% endfor %}
<p class="meta">Dice: stream {{ s.stream }}, seed SHA-256 {{ s.seed_sha256 }}
{%- if s.seed %}, seed {{ s.seed }}{% else %}, seed not yet revealed{% endif %}.</p>
</section>{% endfor %}</body></html>
"""
)


def export_html(title: str, scenes: Sequence[dict[str, Any]], c: CampaignState) -> str:
    names = {m.user: m.name for m in c.members.values()}
    return _PAGE.render(title=title, scenes=scenes, campaign=c, who=lambda p: _who(p, names), roll_line=_roll_line)
