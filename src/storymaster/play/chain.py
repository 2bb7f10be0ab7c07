"""The hash chain under every log: canonical JSON and SHA-256 links.

An entry's *core* is its header plus the SHA-256 of its body and of each of its
rolls, never the body or rolls themselves. So a reader who may not see a
private body or a blind roll still checks the whole chain, and a reader who
may see them checks them against the digests::

    hash(entry) = SHA-256( prev_hash_hex + canonical_json(core(entry)) )

``canonical_json`` is ``json.dumps`` with sorted keys, no spaces, UTF-8 text,
no NaN: checkable with any language's standard library.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["GENESIS", "canonical_json", "core", "entry_hash", "sha256_hex"]

#: the ``prev`` of the first entry of every log
GENESIS = "0" * 64


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def roll_digest(roll: Mapping[str, Any]) -> str:
    return sha256_hex(canonical_json(roll))


def core(
    *,
    seq: int,
    kind: str,
    at: str,
    actor: int | None,
    audience: Any,
    body: Mapping[str, Any],
    rolls: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """What the hash covers: the header, the body's digest and each roll's visibility, roller and digest."""
    return {
        "seq": seq,
        "kind": kind,
        "at": at,
        "actor": actor,
        "audience": audience,
        "body_sha256": sha256_hex(canonical_json(body)),
        "rolls": [{"visibility": r["visibility"], "by": r["by"], "sha256": roll_digest(r)} for r in rolls],
    }


def entry_hash(prev: str, core_: Mapping[str, Any]) -> str:
    return sha256_hex(prev + canonical_json(core_))
