"""The hash chain under every log: canonical JSON, salted commitments and SHA-256 links.

An entry's *core* is its header plus a commitment to its body and to each of its
rolls, never the body or rolls themselves. So a reader who may not see a
private body or a blind roll still checks the whole chain, and a reader who
may see them checks them against the commitments::

    hash(entry) = SHA-256( prev_hash_hex + canonical_json(core(entry)) )

Commitment versions (an entry says which it uses; a log that starts on version 2
stays on it):

* **1** (logs begun before salting): ``body_sha256 = SHA-256(canonical_json(body))``
  and a roll's ``sha256 = SHA-256(canonical_json(roll))``. Every field of a
  hidden roll but its dice can be guessed, so its digest can be brute-forced.
* **2**: every entry has a random ``salt`` (128 bits, hex) and
  ``body_sha256 = SHA-256(salt + canonical_json(body))``; every roll carries its
  own random ``salt`` inside the roll, so ``sha256 = SHA-256(canonical_json(roll))``
  commits to it, and the roll's ``label`` joins its visibility and roller in the
  core. A salt is published only with what it hides (the body, or the roll once
  its result is shown), so a digest tells nothing until then.

``canonical_json`` is ``json.dumps`` with sorted keys, no spaces, UTF-8 text,
no NaN: checkable with any language's standard library.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "COMMIT_VERSION",
    "GENESIS",
    "SALT_HEX",
    "body_digest",
    "canonical_json",
    "core",
    "entry_hash",
    "is_salt",
    "roll_core",
    "roll_digest",
    "sha256_hex",
]

#: the ``prev`` of the first entry of every log
GENESIS = "0" * 64
#: the commitment version new entries are written with
COMMIT_VERSION = 2
#: hex digits in a salt (128 bits)
SALT_HEX = 32
_SALT = re.compile(r"[0-9a-f]{32,128}")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_salt(value: Any) -> bool:
    """A salt as version 2 writes it: at least 128 bits as lowercase hex."""
    return isinstance(value, str) and _SALT.fullmatch(value) is not None


def body_digest(body: Any, salt: str = "") -> str:
    """The commitment to a body: salted (version 2) when ``salt`` is given."""
    return sha256_hex(salt + canonical_json(body))


def roll_digest(roll: Mapping[str, Any]) -> str:
    """The commitment to a roll: its canonical JSON, with its own salt inside from version 2 on."""
    return sha256_hex(canonical_json(roll))


def roll_core(roll: Mapping[str, Any], digest: str, version: int) -> dict[str, Any]:
    """What the entry's hash covers of one roll."""
    out = {"visibility": roll["visibility"], "by": roll["by"], "sha256": digest}
    if version >= 2:
        out["label"] = roll.get("label", "")
    return out


def core(
    *,
    seq: int,
    kind: str,
    at: str,
    actor: int | None,
    audience: Any,
    body: Mapping[str, Any],
    rolls: Sequence[Mapping[str, Any]],
    salt: str = "",
) -> dict[str, Any]:
    """What the hash covers: the header, the body's commitment and each roll's visibility, roller (label) and digest."""
    version = 2 if salt else 1
    out = {
        "seq": seq,
        "kind": kind,
        "at": at,
        "actor": actor,
        "audience": audience,
        "body_sha256": body_digest(body, salt),
        "rolls": [roll_core(r, roll_digest(r), version) for r in rolls],
    }
    if version >= 2:
        out["commit"] = version
    return out


def entry_hash(prev: str, core_: Mapping[str, Any]) -> str:
    return sha256_hex(prev + canonical_json(core_))
