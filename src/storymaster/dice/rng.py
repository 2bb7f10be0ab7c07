"""The auditable dice generator.

Replay must not rest on ``random`` or numpy streams staying the same across
versions (neither promises it), so the derivation is defined here, versioned,
and checkable with the Python standard library alone (``hashlib``):

**Derivation v1.** A seed (text), a stream name (text) and a counter (an
integer from 0) give a 64-bit word:

    key     = SHA-256(UTF-8(seed))                                   (32 bytes)
    block b = BLAKE2b-512(key = key, data = UTF-8(stream) + b"\\x00" + ASCII(decimal b))
    word c  = bytes 8*(c mod 8) .. 8*(c mod 8)+8 of block (c div 8), big-endian

A die of ``sides`` faces takes the word at the current counter and moves the
counter on by one. If ``word < 2**64 - (2**64 mod sides)`` the face is
``word mod sides + 1``; otherwise the word is rejected and the next one is
tried (rejection sampling: every face exactly equally likely, no modulo bias).
A Fudge die is a 3-sided draw mapped to -1, 0, +1.

Each roll record keeps the seed, the stream, the counter it started at and how
many words it used, so anyone can replay it. :func:`derive_face` is the
reference implementation, written to be read.
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["RNG_VERSION", "DiceRng", "derive_face", "new_seed"]

RNG_VERSION = 1
_TWO64 = 1 << 64
_WORDS = 8  # 64-bit words per BLAKE2b-512 block


def new_seed() -> str:
    """A fresh, unpredictable seed (128 bits, hex)."""
    return secrets.token_hex(16)


def _key(seed: str) -> bytes:
    return hashlib.sha256(seed.encode("utf-8")).digest()


def _word(key: bytes, stream: str, counter: int) -> int:
    block = hashlib.blake2b(stream.encode("utf-8") + b"\x00" + str(counter // _WORDS).encode("ascii"), key=key).digest()
    i = 8 * (counter % _WORDS)
    return int.from_bytes(block[i : i + 8], "big")


def derive_face(seed: str, stream: str, counter: int, sides: int) -> tuple[int, int]:
    """One die by derivation v1, the plain way: returns ``(face, next_counter)``."""
    key = _key(seed)
    limit = _TWO64 - (_TWO64 % sides)
    while True:
        word = _word(key, stream, counter)
        counter += 1
        if word < limit:
            return word % sides + 1, counter


class DiceRng:
    """A seeded, replayable source of die faces (derivation v1).

    ``DiceRng(seed, stream, counter)`` continues exactly where a record says a
    roll began. The generator is the one mutable thing in the dice engine: it
    moves its counter forward as it draws.
    """

    __slots__ = ("_block_no", "_key", "_prefix", "_words", "counter", "seed", "stream")

    version = RNG_VERSION

    def __init__(self, seed: str | int | None = None, stream: str = "", counter: int = 0) -> None:
        if seed is None:
            seed = new_seed()
        if isinstance(seed, bool) or not isinstance(seed, (str, int)):
            raise TypeError(f"a seed is text or an integer, not {type(seed).__name__}")
        if not isinstance(counter, int) or counter < 0:
            raise ValueError("the counter is a whole number from 0")
        self.seed = str(seed)
        self.stream = stream
        self.counter = counter
        self._key = _key(self.seed)
        self._prefix = stream.encode("utf-8") + b"\x00"
        self._block_no = -1
        self._words: tuple[int, ...] = ()

    def __repr__(self) -> str:
        return f"DiceRng(seed={self.seed!r}, stream={self.stream!r}, counter={self.counter})"

    def _fill(self, block_no: int) -> tuple[int, ...]:
        digest = hashlib.blake2b(self._prefix + str(block_no).encode("ascii"), key=self._key).digest()
        words = tuple(int.from_bytes(digest[i : i + 8], "big") for i in range(0, 64, 8))
        self._block_no, self._words = block_no, words
        return words

    def die(self, sides: int) -> int:
        """A face from 1 to ``sides``, each exactly equally likely."""
        if sides < 1:
            raise ValueError("a die needs at least one side")
        limit = _TWO64 - (_TWO64 % sides)
        while True:
            c = self.counter
            b = c >> 3
            words = self._words if b == self._block_no else self._fill(b)
            word = words[c & 7]
            self.counter = c + 1
            if word < limit:
                return word % sides + 1

    def fudge(self) -> int:
        """A Fudge die: -1, 0 or +1."""
        return self.die(3) - 2

    def fork(self, stream: str) -> DiceRng:
        """An independent generator on the same seed, for a named sub-stream."""
        return DiceRng(self.seed, f"{self.stream}/{stream}" if self.stream else stream, 0)
