"""The server's Ed25519 key: it signs each log entry's place and every export (see :mod:`storymaster.play.anchor`).

One key per table, kept in the database (so every worker signs with the same key) and made
on first start. Its public half is served at ``/.well-known/storymaster-key`` and printed by
``storymaster serve``, for readers to compare with the key an export names.
"""

from __future__ import annotations

import base64
from functools import lru_cache
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ..play.anchor import anchor_message, export_message, key_id

__all__ = ["Signer", "load_signer"]


class Signer:
    def __init__(self, private_raw: bytes) -> None:
        self._key = Ed25519PrivateKey.from_private_bytes(private_raw)
        raw = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.public = base64.b64encode(raw).decode()
        self.key_id = key_id(self.public)
        self.sign_place = lru_cache(maxsize=200_000)(self._sign_place)

    def sign(self, message: bytes) -> str:
        return base64.b64encode(self._key.sign(message)).decode()

    def _sign_place(self, log: str, seq: int, hash_: str) -> str:
        return self.sign(anchor_message(log, seq, hash_))

    def anchor(self, log: str, seq: int, hash_: str | None) -> dict[str, Any] | None:
        """A log's head with the server's signature (what pages, feeds and mails show)."""
        if not hash_:
            return None
        return {
            "log": log,
            "seq": seq,
            "hash": hash_,
            "key": self.key_id,
            "signature": self.sign_place(log, seq, hash_),
        }

    def sign_export(self, doc: dict[str, Any]) -> dict[str, Any]:
        doc["key"] = {"alg": "ed25519", "public": self.public, "id": self.key_id}
        doc["signature"] = self.sign(export_message(doc))
        return doc

    def published(self) -> dict[str, str]:
        return {"alg": "ed25519", "public": self.public, "id": self.key_id}


def load_signer(store: Any) -> Signer:
    return Signer(store.server_key(lambda: Ed25519PrivateKey.generate().private_bytes_raw()))
