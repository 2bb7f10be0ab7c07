"""Offline verification of an exported log (``storymaster verify EXPORT.json``): it accepts only what the log proves.

For every log in the export:

1. each entry links to the one before and its hash is right; a log begun on salted
   commitments (version 2, see :mod:`.chain`) salts every body and roll;
2. each body and roll shown matches the commitment the chain holds;
3. the scene's revealed seed matches the hash published when it opened, and
   nothing follows the closing entry;
4. every shown roll draws from exactly the scene's stream, inside the stretch of
   the stream it claims, and replays from the seed once revealed; no two rolls
   share a stretch (no hidden re-rolls);
5. (version 2 exports) every entry carries the server's Ed25519 signature of its
   place in the log, so a chain rewritten with recomputed hashes fails at its first
   changed entry; the title, posts (text, rolls and totals), narrative, campaign
   name and house rules are rebuilt from the log (:mod:`.rebuild`) and must be
   exactly what the export says; the whole export is signed.

Version 1 exports (written before salting and signing) are still checked the old
way, and the report says so: their chain only, nothing outside it, and no
signature, so a rewritten chain cannot be told from a real one. Anything that is
not the shape an export has is refused with where it went wrong, never a crash.
The web verification page and the CLI both call :func:`verify_export`.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..dice import RollRecord, verify
from ..errors import StorymasterError, VerificationError
from .anchor import anchor_message, check_signature, export_message, key_id
from .chain import GENESIS, body_digest, canonical_json, entry_hash, is_salt, roll_core, roll_digest, sha256_hex
from .rebuild import campaign_from_log, characters_from_log, scene_from_log
from .rolling import scene_stream

__all__ = ["EXPORT_FORMAT", "EXPORT_VERSION", "MAX_DEPTH", "verify_export", "verify_log", "verify_text"]

EXPORT_FORMAT = "storymaster-table-export"
#: the export version written now (1: unsigned, log only)
EXPORT_VERSION = 2
#: a log longer than this is refused (a real scene has thousands at most)
MAX_ENTRIES = 1_000_000
#: an export nests about eight deep; anything past this is refused before it is read
MAX_DEPTH = 64
_HEX64 = re.compile(r"[0-9a-f]{64}")
_ENTRY_KEYS = {
    "seq",
    "kind",
    "at",
    "actor",
    "audience",
    "body",
    "body_sha256",
    "rolls",
    "prev",
    "hash",
    "salt",
    "commit",
}
_SIGNED_ENTRY_KEYS = _ENTRY_KEYS | {"sig"}
_SCENE_KEYS = {"id", "title", "mode", "stream", "seed_sha256", "seed", "opened_at", "closed_at", "narrative", "posts"}
_CAMPAIGN_KEYS = {"id", "name", "system", "house_rules"}
_DOC_KEYS = {"format", "version", "exported_at", "reader", "system", "campaign", "scenes", "key", "signature"}


def _bad(where: str, message: str, hint: str | None = None) -> VerificationError:
    return VerificationError(f"{where}: {message}", hint=hint)


class _Malformed(Exception):
    """Something in an entry is not the shape an export has."""


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise _Malformed(what)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_hash(v: Any) -> bool:
    return isinstance(v, str) and _HEX64.fullmatch(v) is not None


def _roll_core(r: Any, version: int) -> dict[str, Any]:
    _need(isinstance(r, Mapping), "a roll is not an object")
    _need(r.get("visibility") in ("public", "gm", "blind", "self"), "a roll has no known visibility")
    _need(r.get("by") is None or _is_int(r.get("by")), "a roll's roller is not a user id")
    _need(isinstance(r.get("label", ""), str), "a roll's label is not text")
    if r.get("hidden"):
        _need(_is_hash(r.get("sha256")), "a hidden roll's digest is not a SHA-256")
        return roll_core(r, r["sha256"], version)
    if version >= 2:
        _need(is_salt(r.get("salt")), "a roll has no salt (every roll of a salted log has one)")
    return roll_core(r, roll_digest(r), version)


def _core(e: Mapping[str, Any], version: int) -> dict[str, Any]:
    salt = e.get("salt", "")
    if "body" in e:
        _need(isinstance(e["body"], Mapping), "its body is not an object")
        if version >= 2:
            _need(is_salt(salt), "its body has no salt (every entry of a salted log has one)")
        body_sha = body_digest(e["body"], salt if version >= 2 else "")
    else:
        _need(_is_hash(e.get("body_sha256")), "has neither a body nor its digest")
        body_sha = e["body_sha256"]
    rolls = e.get("rolls") or []
    _need(isinstance(rolls, list), "its rolls are not a list")
    _need(isinstance(e.get("kind"), str) and isinstance(e.get("at"), str), "has no kind or time")
    _need(e.get("actor") is None or _is_int(e.get("actor")), "its actor is not a user id")
    out = {
        "seq": e["seq"],
        "kind": e["kind"],
        "at": e["at"],
        "actor": e.get("actor"),
        "audience": e.get("audience"),
        "body_sha256": body_sha,
        "rolls": [_roll_core(r, version) for r in rolls],
    }
    if version >= 2:
        out["commit"] = version
    return out


def _check_rolls(
    e: Mapping[str, Any], where: str, stream: str | None, seed: str | None, spans: list[tuple[int, int, str]]
) -> tuple[int, int]:
    shown = hidden = 0
    for r in e.get("rolls") or []:
        if r.get("hidden"):
            hidden += 1
            continue
        shown += 1
        counter, records = r.get("counter"), r.get("records")
        _need(
            isinstance(counter, list) and len(counter) == 2 and all(_is_int(x) for x in counter),
            "a roll's counter is not [start, end]",
        )
        start, end = counter
        _need(0 <= start <= end, "a roll's stretch of the stream runs backwards")
        _need(isinstance(records, list), "a roll's records are not a list")
        spans.append((start, end, where))
        for rec in records:
            _need(isinstance(rec, Mapping), "a roll's record is not an object")
            if stream is None:
                raise _bad(where, "a roll comes before the scene opened (no stream to draw from)")
            if rec.get("stream") != stream:
                raise _bad(
                    where,
                    f"a roll is on stream {rec.get('stream')!r}, not exactly the scene's {stream!r}",
                    "every die of a scene comes from the scene's own stream",
                )
            c, d = rec.get("counter"), rec.get("draws")
            _need(_is_int(c) and _is_int(d) and d >= 0, "a record's counter or draws is not a whole number")
            if not start <= c <= c + d <= end:
                raise _bad(where, "a roll's record lies outside the stretch of the stream the roll claims")
            if seed is not None:
                try:
                    record = RollRecord.from_json({**rec, "seed": seed})
                    verify(record)
                except VerificationError as exc:
                    raise _bad(where, exc.message, exc.hint) from None
                except StorymasterError as exc:
                    raise _bad(where, f"a roll's record is malformed ({exc.message})") from None
    return shown, hidden


def verify_log(
    entries: Any,
    *,
    name: str,
    scene_id: int | None = None,
    key: str | None = None,
    log_id: str | None = None,
) -> dict[str, Any]:
    """Check one log; raises :class:`VerificationError` naming the first bad entry.

    With ``key`` (a base64 Ed25519 public key) and ``log_id`` (``c:<id>``/``s:<id>``), every
    entry must carry the key's signature of its place in that log (``sig``).
    """
    if not isinstance(entries, list):
        raise _bad(name, "its log is not a list of entries")
    if len(entries) > MAX_ENTRIES:
        raise _bad(name, f"its log has more than {MAX_ENTRIES} entries")
    prev = GENESIS
    version = 1
    commitment = stream = seed = None
    closed_at: int | None = None
    spans: list[tuple[int, int, str]] = []
    shown = hidden = redacted = salted = 0
    for i, e in enumerate(entries):
        seq = e.get("seq") if isinstance(e, Mapping) else None
        where = f"{name}, entry {seq if _is_int(seq) else i + 1}"
        try:
            _need(isinstance(e, Mapping), "is not an object")
            if seq != i + 1:
                raise _bad(where, f"is out of order (expected entry {i + 1})")
            _need(_is_hash(e.get("prev")) and _is_hash(e.get("hash")), "its prev or hash is not a SHA-256")
            if e["prev"] != prev:
                raise _bad(
                    where,
                    "does not link to the entry before it (its prev hash differs)",
                    "an entry was removed, inserted or changed",
                )
            if closed_at is not None:
                raise _bad(where, f"comes after the scene closed (entry {closed_at}); a closed scene's log ends there")
            if key is not None and not check_signature(
                key, anchor_message(log_id or name, seq, e["hash"]), e.get("sig")
            ):
                raise _bad(
                    where,
                    "is not the entry the server signed at this place in the log",
                    "the chain was rewritten from here (or the export was signed by another server)",
                )
            if e.get("redacted"):
                _need(
                    set(e) <= {"seq", "prev", "hash", "redacted", "sig"}, "a redacted entry shows more than its links"
                )
                if i == 0:
                    raise _bad(where, "the first entry of a log is never private")
                redacted += 1
                prev = e["hash"]
                continue
            _need(set(e) <= _SIGNED_ENTRY_KEYS, f"has unknown parts ({', '.join(sorted(set(e) - _SIGNED_ENTRY_KEYS))})")
            commit = e.get("commit", 1)
            _need(_is_int(commit) and commit in (1, 2), "has an unknown commitment version")
            if i == 0:
                version = commit
            elif version == 2 and commit != 2:
                raise _bad(where, "is unsalted in a log that salts every commitment", "it was forged or downgraded")
            if commit == 2:
                salted += 1
            if entry_hash(prev, _core(e, commit)) != e["hash"]:
                raise _bad(where, "its hash does not match its content", "the entry was changed after it was written")
            prev = e["hash"]
            body = e.get("body")
            if (
                isinstance(body, Mapping)
                and e["kind"] == "scene.opened"
                and ("stream" in body or "seed_sha256" in body)
            ):
                commitment, stream = body.get("seed_sha256"), body.get("stream")
                if scene_id is not None and stream != scene_stream(scene_id):
                    raise _bad(where, f"the scene's stream is {stream!r}, not {scene_stream(scene_id)!r}")
            if isinstance(body, Mapping) and e["kind"] == "scene.closed" and "seed" in body:
                seed = body.get("seed")
                if commitment is None or not isinstance(seed, str) or sha256_hex(seed) != commitment:
                    raise _bad(
                        where,
                        "the revealed seed does not match the hash published when the scene opened"
                        + (" (it published none)" if commitment is None else ""),
                    )
                closed_at = seq
            s, h = _check_rolls(e, where, stream, None, spans)
            shown, hidden = shown + s, hidden + h
        except _Malformed as exc:
            raise _bad(where, f"is malformed: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise _bad(where, f"is malformed ({type(exc).__name__}: {exc})") from None
    if seed is not None:  # replay every shown roll from the revealed seed
        for i, e in enumerate(entries):
            if not e.get("redacted"):
                try:
                    _check_rolls(e, f"{name}, entry {i + 1}", stream, seed, [])
                except _Malformed as exc:  # pragma: no cover - the first pass saw the same shapes
                    raise _bad(f"{name}, entry {i + 1}", f"is malformed: {exc}") from None
    spans.sort()
    for (_, e1, w1), (s2, _, w2) in itertools.pairwise(spans):
        if s2 < e1:
            raise _bad(w2, f"its roll reuses dice from the stream already used by {w1} (a re-roll)")
        if s2 > e1 and not hidden and not redacted:
            raise _bad(w2, f"dice {e1}..{s2} of the stream were drawn but no roll shows them")
    if spans and spans[0][0] != 0 and not hidden and not redacted:
        raise _bad(spans[0][2], "the first roll does not start at the beginning of the stream")
    return {
        "log": name,
        "entries": len(entries),
        "head": prev,
        "commit": version,
        "unsalted_entries": len(entries) - redacted - salted,
        "signed": key is not None,
        "redacted_entries": redacted,
        "rolls_replayed": shown if seed is not None else 0,
        "rolls_shown": shown,
        "rolls_hidden": hidden,
        "seed_revealed": seed is not None,
        "commitment": commitment,
    }


def _same(where: str, what: str, claimed: Any, rebuilt: Any) -> None:
    if canonical_json(claimed) != canonical_json(rebuilt):
        raise _bad(where, f"its {what} is not what the log says", "it was edited outside the log")


def _check_posts(where: str, claimed: Any, rebuilt: list[dict[str, Any]]) -> None:
    if not isinstance(claimed, list):
        raise _bad(where, "its posts are not a list")
    by_id = {p["id"]: p for p in rebuilt}
    for p in claimed:
        pid = p.get("id") if isinstance(p, Mapping) else None
        if pid not in by_id:
            raise _bad(where, f"shows a post {pid!r} that is not in the log")
        real = by_id[pid]
        for key in sorted(set(p) | set(real)):
            if canonical_json(p.get(key)) != canonical_json(real.get(key)):
                raise _bad(
                    f"{where}, post {pid} (entry {pid})",
                    f"its {key} is not what the log says",
                    "the post was edited outside the log",
                )
    shown = [p["id"] for p in claimed]  # each one a post of the log (checked above)
    if shown != [p["id"] for p in rebuilt]:  # every post of the log, each once, in the log's order
        missing = sorted(set(by_id) - set(shown))
        if missing:
            raise _bad(where, f"leaves out post(s) {missing} that the log shows")
        twice = sorted(pid for pid, times in Counter(shown).items() if times > 1)  # linear: exports can be long
        if twice:
            raise _bad(where, f"shows post(s) {twice} more than once")
        raise _bad(where, "shows its posts out of the log's order")


def _unsigned_export(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A version 1 export: the logs' chains only (what version 1 checked), said plainly in the report."""
    reports = []
    campaign = doc.get("campaign")
    if campaign is not None:
        if not isinstance(campaign, Mapping):
            raise VerificationError("the export's campaign is not an object")
        reports.append(verify_log(campaign.get("log"), name=f"campaign {campaign.get('id')}"))
    scenes = doc.get("scenes") or []
    if not isinstance(scenes, list):
        raise VerificationError("the export's scenes are not a list")
    for s in scenes:
        if not isinstance(s, Mapping):
            raise VerificationError("a scene of the export is not an object")
        sid = s.get("id") if _is_int(s.get("id")) else None
        reports.append(verify_log(s.get("log"), name=f"scene {s.get('id')}", scene_id=sid))
    if not reports:
        raise VerificationError("the export holds no logs")
    for r in reports:  # every log, the campaign's too (a campaign export may hold no scene)
        if r["entries"] - r["redacted_entries"] - r["unsalted_entries"]:
            raise VerificationError(
                f"{r['log']}: salted logs come only in signed (version 2) exports",
                hint="this export was downgraded: its signatures were taken out",
            )
    return {
        "ok": True,
        "version": 1,
        "signed": False,
        "key": None,
        "warning": "a version 1 export: only each log's chain was checked; its posts, narrative and title are "
        "not covered, its commitments are unsalted and nothing is signed, so a rewritten chain would pass",
        "logs": reports,
    }


def _check_depth(doc: Any) -> None:
    """Refuse documents nested deeper than :data:`MAX_DEPTH` (walked without recursion)."""
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise VerificationError(
                f"the export is nested more than {MAX_DEPTH} levels deep", hint="a real export nests about eight"
            )
        if isinstance(value, Mapping):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def verify_text(text: str, *, key: str | None = None, source: str = "the export") -> dict[str, Any]:
    """Parse an export's JSON text and check it: bad JSON, however odd, is a :class:`VerificationError`."""
    import json

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise VerificationError(f"{source}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except (RecursionError, ValueError) as exc:
        raise VerificationError(f"{source}: not valid JSON ({type(exc).__name__})") from None
    return verify_export(doc, key=key)


def verify_export(doc: Any, *, key: str | None = None) -> dict[str, Any]:
    """Check every log in an export and everything the export says about them.

    ``key``: the server's public key (base64) the export must be signed with; without it the
    export's own key is used and reported, to be compared with the one the server publishes.
    Returns a report, or raises :class:`VerificationError` naming the first bad entry.
    """
    if not isinstance(doc, Mapping) or doc.get("format") != EXPORT_FORMAT:
        raise VerificationError("not a Storymaster table export", hint="download it from /api/scenes/{id}/export.json")
    _check_depth(doc)
    version = doc.get("version", 1)
    if not _is_int(version):  # true and 1.0 equal 1 in Python: a version is a whole number, nothing else
        raise VerificationError(f"unknown export version {version!r}", hint=f"versions: 1, {EXPORT_VERSION}")
    if version == 1:
        if key is not None:
            raise VerificationError(
                "a version 1 export is not signed, so it cannot be checked against the server's key",
                hint="export it again from the table, or run storymaster verify without --key for the old checks",
            )
        return _unsigned_export(doc)
    if version != EXPORT_VERSION:
        raise VerificationError(f"unknown export version {version!r}", hint=f"versions: 1, {EXPORT_VERSION}")
    unknown = set(doc) - _DOC_KEYS
    if unknown:
        raise VerificationError(f"the export has parts no export has: {', '.join(sorted(map(str, unknown)))}")
    doc_key = doc.get("key")
    public = doc_key.get("public") if isinstance(doc_key, Mapping) else None
    if not isinstance(public, str):
        raise VerificationError("the export carries no public key", hint="a version 2 export is signed by the server")
    if key is not None and public != key:
        raise VerificationError(
            f"the export is signed by key {key_id(public)}, not by this server's key {key_id(key)}",
            hint="it was made by another server, or re-signed after a change",
        )
    reports = []
    campaign = doc.get("campaign")
    if campaign is not None:
        if not isinstance(campaign, Mapping) or set(campaign) - {"characters"} != _CAMPAIGN_KEYS | {"log"}:
            raise VerificationError("the export's campaign is not the shape an export has")
        where = f"campaign {campaign.get('id')}"
        if not _is_int(campaign.get("id")):
            raise VerificationError(f"{where}: its id is not a whole number")
        reports.append(verify_log(campaign["log"], name=where, key=public, log_id=f"c:{campaign['id']}"))
        try:
            rebuilt = campaign_from_log(campaign["log"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise _bad(where, f"a body in its log is malformed ({type(exc).__name__}: {exc})") from None
        for k in ("name", "system", "house_rules"):
            _same(where, k, campaign[k], rebuilt[k])
        if "characters" in campaign:  # each character's condition as the log's changes left it
            try:
                characters = characters_from_log(campaign["log"])
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise _bad(where, f"a character in its log is malformed ({type(exc).__name__}: {exc})") from None
            _same(where, "characters (their condition)", campaign["characters"], characters)
        _same("the export", "system", doc.get("system"), rebuilt["system"])
    scenes = doc.get("scenes")
    if not isinstance(scenes, list):
        raise VerificationError("the export's scenes are not a list")
    for s in scenes:
        if not isinstance(s, Mapping) or set(s) != _SCENE_KEYS | {"log"}:
            raise VerificationError("a scene of the export is not the shape an export has")
        where = f"scene {s.get('id')}"
        if not _is_int(s.get("id")):
            raise VerificationError(f"{where}: its id is not a whole number")
        reports.append(verify_log(s["log"], name=where, scene_id=s["id"], key=public, log_id=f"s:{s['id']}"))
        try:
            rebuilt = scene_from_log(s["log"])
        except StorymasterError as exc:
            raise _bad(where, exc.message) from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise _bad(where, f"a body in its log is malformed ({type(exc).__name__}: {exc})") from None
        for k in ("title", "mode", "stream", "seed_sha256", "seed", "opened_at", "closed_at"):
            _same(where, k, s[k], rebuilt[k])
        _check_posts(where, s["posts"], rebuilt["posts"])
        _same(where, "narrative", s["narrative"], rebuilt["narrative"])
    if not reports:
        raise VerificationError("the export holds no logs")
    if not check_signature(public, export_message(doc), doc.get("signature")):
        raise VerificationError(
            "the export's signature does not match it: its reader, time, system or layout were changed",
            hint="every log checked out; something outside them was edited",
        )
    return {"ok": True, "version": version, "signed": True, "key": key_id(public), "logs": reports}
