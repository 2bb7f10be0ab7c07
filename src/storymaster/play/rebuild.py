"""An export's story, rebuilt from its log: what the exporter writes and what ``verify`` demands.

The exporter writes a scene's title, dice commitment, posts and narrative with
these functions from the log entries it exports (as the reader sees them), and
the verifier calls them again on the log it was handed and refuses any
difference: nothing in an export stands outside the log. A post whose body the
reader may not read (a deleted post, for everyone but the GM) shows only what
its entry's header proves: when, by whom, its rolls, and that it was deleted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .errors import Invalid
from .rolling import shown_record
from .text import fill_secrets

__all__ = ["campaign_from_log", "characters_from_log", "narrative", "posts_from_log", "scene_from_log"]

IC = "ic"


def narrative(posts: Sequence[Mapping[str, Any]]) -> list[str]:
    """The in-character posts and the fights' rounds, in order: the thread read as one flowing story."""
    return [
        p["text"]
        for p in posts
        if p.get("kind") in (IC, "fight") and not p["deleted"] and str(p.get("text", "")).strip()
    ]


def _roll(r: Mapping[str, Any], seed: str | None) -> dict[str, Any]:
    if r.get("hidden"):
        return dict(r)
    out = {k: v for k, v in r.items() if k != "records"}
    out["records"] = [shown_record(rec, seed) for rec in r["records"]]
    return out


def posts_from_log(log: Sequence[Mapping[str, Any]], seed: str | None) -> list[dict[str, Any]]:
    """Every post the log shows, oldest first, with its edits, deletion and rolls."""
    posts: dict[int, dict[str, Any]] = {}
    secrets: dict[int, Mapping[str, Any]] = {}  # readers-only blocks this reader reads, by entry

    def filled(text: str, keys: Any) -> str:
        return fill_secrets(text, [secrets[k]["text"] if k in secrets else None for k in keys or ()])

    def block_rolls(keys: Any) -> list[dict[str, Any]]:
        return [_roll(r, seed) for k in keys or () for r in (secrets[k]["rolls"] if k in secrets else ())]

    for e in log:
        if e.get("redacted"):
            continue
        kind, body = e["kind"], e.get("body")
        if kind == "post.secret":
            secrets[e["seq"]] = {"text": body["text"] if body is not None else None, "rolls": e.get("rolls") or ()}
            continue
        if kind == "post.created":
            p: dict[str, Any] = {"id": e["seq"], "at": e["at"], "author": e["actor"], "deleted": False}
            if body is not None:
                p.update(
                    kind=body["kind"],
                    character=body.get("character"),
                    character_name=body.get("character_name", ""),
                    text=filled(body["text"], body.get("secrets")),
                    edited=False,
                    history=[],
                )
                if body.get("to"):
                    p["to"] = list(body["to"])
            rolls = [_roll(r, seed) for r in e.get("rolls") or ()]
            extra = block_rolls(body.get("secrets") if body is not None else ())
            if extra:
                rolls = sorted([*rolls, *extra], key=lambda r: r.get("counter", [0])[0])
            p["rolls"] = rolls
            posts[e["seq"]] = p
        elif kind in ("combat.stepped", "character.acted") and body is not None:
            text = body.get("story") if kind == "combat.stepped" else body.get("text")
            if not text or e["actor"] is None:
                continue  # a fight round written before rounds were told as story
            posts[e["seq"]] = {
                "id": e["seq"],
                "at": e["at"],
                "author": e["actor"],
                "deleted": False,
                "kind": "fight" if kind == "combat.stepped" else "table",
                "character": body.get("character"),
                "character_name": body.get("character_name", ""),
                "text": text,
                "edited": False,
                "history": [],
                "rolls": [_roll(r, seed) for r in e.get("rolls") or ()],
            }
        elif kind in ("post.edited", "post.deleted") and body is not None:
            target = posts.get(body["post"])
            if target is None:
                raise Invalid(f"entry {e['seq']} changes post {body['post']}, which the log does not show")
            if kind == "post.deleted":
                target.update(deleted=True, deleted_at=e["at"], deleted_by=e["actor"])
            elif "text" in target:
                last = target["history"][-1]["edited_at"] if target["history"] else target["at"]
                target["history"].append({"at": last, "text": target["text"], "edited_at": e["at"]})
                target["text"], target["edited"] = filled(body["text"], body.get("secrets")), True
                extra = block_rolls(body.get("secrets"))
                if extra:
                    target["rolls"] = sorted([*target["rolls"], *extra], key=lambda r: r.get("counter", [0])[0])
    return [posts[k] for k in sorted(posts)]


def scene_from_log(log: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A scene's title, mode, dice commitment, times, posts and narrative, from its log alone."""
    out: dict[str, Any] = {
        "title": "",
        "mode": "free",
        "stream": "",
        "seed_sha256": "",
        "seed": None,
        "opened_at": "",
        "closed_at": None,
    }
    for e in log:
        if e.get("redacted"):
            continue
        kind, body = e["kind"], e.get("body") or {}
        if kind == "scene.opened":
            out.update(
                title=body["title"],
                mode=body["mode"],
                stream=body["stream"],
                seed_sha256=body["seed_sha256"],
                opened_at=e["at"],
            )
        elif kind == "scene.updated":
            out.update({k: body[k] for k in ("title", "mode") if k in body})
        elif kind == "scene.closed":
            out.update(seed=body["seed"], closed_at=e["at"])
    posts = posts_from_log(log, out["seed"])
    return {**out, "narrative": narrative(posts), "posts": posts}


def campaign_from_log(log: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A campaign's name, system and house rules, from its log alone."""
    out: dict[str, Any] = {"name": "", "system": "", "house_rules": {}}
    for e in log:
        if e.get("redacted"):
            continue
        body = e.get("body") or {}
        if e["kind"] == "campaign.created":
            out.update(name=body["name"], system=body["system"], house_rules=dict(body.get("house_rules") or {}))
        elif e["kind"] == "campaign.house_rules":
            out["house_rules"] = dict(body["house_rules"])
    return out


def characters_from_log(log: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each character's name, sheet version and condition now (with the book's word for it and how
    many changes made it), from the campaign's log alone: what an export says the characters are."""
    out: dict[str, dict[str, Any]] = {}
    for e in log:
        if e.get("redacted"):
            continue
        kind, body = e["kind"], e.get("body") or {}
        if kind == "character.created":
            out[str(e["seq"])] = {"name": body["name"], "version": 1, "condition": None, "summary": "", "changes": 0}
        elif kind == "character.updated" and str(body["character"]) in out:
            ch = out[str(body["character"])]
            ch.update(name=body["name"], version=ch["version"] + 1)
        elif kind == "character.condition" and str(body["character"]) in out:
            ch = out[str(body["character"])]
            ch.update(condition=body["condition"], summary=body.get("summary", ""), changes=ch["changes"] + 1)
    return out
