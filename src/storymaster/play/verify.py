"""Offline verification of an exported log (``storymaster verify EXPORT.json``).

Checks, for every log in the export: each entry links to the one before and
its hash is right; each body and roll shown matches the digest the chain
committed to; the scene's revealed seed matches the hash published when it
opened; every shown roll replays from that seed on the scene's stream; and no
two rolls share a stretch of the stream (no hidden re-rolls). Standard library
and the dice engine only: no server, no database, no rule system needed.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from ..dice import RollRecord, verify
from ..errors import VerificationError
from .chain import GENESIS, canonical_json, entry_hash, roll_digest, sha256_hex

__all__ = ["EXPORT_FORMAT", "verify_export", "verify_log"]

EXPORT_FORMAT = "storymaster-table-export"


def _bad(where: str, message: str, hint: str | None = None) -> VerificationError:
    return VerificationError(f"{where}: {message}", hint=hint)


def _core(e: Mapping[str, Any], where: str) -> dict[str, Any]:
    if "body" in e:
        body_sha = sha256_hex(canonical_json(e["body"]))
    elif "body_sha256" in e:
        body_sha = e["body_sha256"]
    else:
        raise _bad(where, "has neither a body nor its digest")
    rolls = []
    for r in e.get("rolls") or []:
        if r.get("hidden"):
            rolls.append({"visibility": r["visibility"], "by": r["by"], "sha256": r["sha256"]})
        else:
            rolls.append({"visibility": r["visibility"], "by": r["by"], "sha256": roll_digest(r)})
    return {
        "seq": e["seq"],
        "kind": e["kind"],
        "at": e["at"],
        "actor": e["actor"],
        "audience": e["audience"],
        "body_sha256": body_sha,
        "rolls": rolls,
    }


def verify_log(entries: list[Mapping[str, Any]], *, name: str, scene_id: int | None = None) -> dict[str, Any]:
    """Check one log; raises :class:`VerificationError` naming the first bad entry."""
    prev = GENESIS
    commitment = stream = seed = None
    rolls: list[tuple[int, int, str]] = []
    shown = hidden = redacted = 0
    for i, e in enumerate(entries):
        where = f"{name}, entry {e.get('seq', '?') if isinstance(e, Mapping) else '?'}"
        try:
            if e["seq"] != i + 1:
                raise _bad(where, f"is out of order (expected entry {i + 1})")
            if e["prev"] != prev:
                raise _bad(
                    where,
                    "does not link to the entry before it (its prev hash differs)",
                    "an entry was removed, inserted or changed",
                )
            if e.get("redacted"):
                redacted += 1
                prev = e["hash"]
                continue
            if entry_hash(prev, _core(e, where)) != e["hash"]:
                raise _bad(where, "its hash does not match its content", "the entry was changed after it was written")
            prev = e["hash"]
            body = e.get("body") or {}
            if e["kind"] == "scene.opened" and "seed_sha256" in body:
                commitment, stream = body["seed_sha256"], body["stream"]
            if e["kind"] == "scene.closed" and "seed" in body:
                seed = body["seed"]
                if commitment is None or sha256_hex(seed) != commitment:
                    raise _bad(where, "the revealed seed does not match the hash published when the scene opened")
            for r in e.get("rolls") or []:
                if r.get("hidden"):
                    hidden += 1
                    continue
                shown += 1
                start, end = r["counter"]
                rolls.append((start, end, where))
                for rec in r["records"]:
                    if stream is not None and not str(rec["stream"]).startswith(stream):
                        raise _bad(where, f"a roll is on stream {rec['stream']!r}, not the scene's {stream!r}")
                    if seed is not None or rec.get("seed"):
                        record = RollRecord.from_json({**rec, "seed": seed if seed is not None else rec["seed"]})
                        try:
                            verify(record)
                        except VerificationError as exc:
                            raise _bad(where, exc.message, exc.hint) from None
                        if (
                            rec["stream"] == stream
                            and not start <= record.counter <= record.counter + record.draws <= end
                        ):
                            raise _bad(where, "a roll's record lies outside the stretch of the stream the roll claims")
        except (KeyError, TypeError, ValueError) as exc:
            raise _bad(where, f"is malformed ({type(exc).__name__}: {exc})") from None
    rolls.sort()
    for (_, e1, w1), (s2, _, w2) in itertools.pairwise(rolls):
        if s2 < e1:
            raise _bad(w2, f"its roll reuses dice from the stream already used by {w1} (a re-roll)")
        if s2 > e1 and not hidden and not redacted:
            raise _bad(w2, f"dice {e1}..{s2} of the stream were drawn but no roll shows them")
    if rolls and rolls[0][0] != 0 and not hidden and not redacted:
        raise _bad(rolls[0][2], "the first roll does not start at the beginning of the stream")
    return {
        "log": name,
        "entries": len(entries),
        "head": prev,
        "redacted_entries": redacted,
        "rolls_replayed": shown if seed is not None else 0,
        "rolls_shown": shown,
        "rolls_hidden": hidden,
        "seed_revealed": seed is not None,
        "commitment": commitment,
    }


def verify_export(doc: Any) -> dict[str, Any]:
    """Check every log in an export; returns a report, or raises naming the first bad entry."""
    if not isinstance(doc, Mapping) or doc.get("format") != EXPORT_FORMAT:
        raise VerificationError("not a Storymaster table export", hint="download it from /api/scenes/{id}/export.json")
    reports = []
    if doc.get("campaign") is not None:
        c = doc["campaign"]
        reports.append(verify_log(list(c.get("log") or []), name=f"campaign {c.get('id')}"))
    for s in doc.get("scenes") or []:
        reports.append(verify_log(list(s.get("log") or []), name=f"scene {s.get('id')}", scene_id=s.get("id")))
    if not reports:
        raise VerificationError("the export holds no logs")
    return {"ok": True, "logs": reports}
