"""Anchors: the server's Ed25519 signature on a log's entries and on a whole export.

The server keeps one Ed25519 key; its public half is served at
``/.well-known/storymaster-key`` and printed by ``storymaster serve``. It signs

* each log entry's place, ``anchor_message(log, seq, hash)`` (``log`` is ``c:<campaign>``
  or ``s:<scene>``): the head of every scene is shown with its signature on the scene
  page, in the Atom feed and in mails, and every entry of an export carries one, so a
  chain rewritten with recomputed hashes fails at its first changed entry;
* a whole export, ``export_message(doc)``: the reader, the time and everything else in it.

Checking needs only the public key (``cryptography``), no server.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from typing import Any

from .chain import canonical_json

__all__ = ["ANCHOR", "anchor_message", "check_signature", "export_message", "key_id"]

ANCHOR = "storymaster-anchor/1"
EXPORT = "storymaster-export/2"


def anchor_message(log: str, seq: int, hash_: str) -> bytes:
    return canonical_json({"anchor": ANCHOR, "log": log, "seq": seq, "hash": hash_}).encode()


def export_message(doc: Mapping[str, Any]) -> bytes:
    """What an export's signature covers: the whole document but the signature itself."""
    return canonical_json({"signed": EXPORT, "doc": {k: v for k, v in doc.items() if k != "signature"}}).encode()


def _b64(text: Any) -> bytes | None:
    if not isinstance(text, str) or len(text) > 200:
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def key_id(public_b64: str) -> str:
    """A short fingerprint of a public key: the first 16 hex digits of SHA-256 of its raw bytes."""
    raw = _b64(public_b64) or b""
    return hashlib.sha256(raw).hexdigest()[:16]


def check_signature(public_b64: Any, message: bytes, signature_b64: Any) -> bool:
    """True when ``signature_b64`` is the key's Ed25519 signature of ``message``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    raw, sig = _b64(public_b64), _b64(signature_b64)
    if raw is None or sig is None or len(raw) != 32 or len(sig) != 64:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(sig, message)
    except (InvalidSignature, ValueError):
        return False
    return True
