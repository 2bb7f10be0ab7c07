"""The dice derivation v1, checked against an independent re-implementation of its written spec."""

import hashlib
from collections import Counter

import pytest

from storymaster.dice import DiceRng, derive_face, roll


def spec_faces(seed: str, stream: str, sides: int, n: int) -> list[int]:
    """Derivation v1 written straight from the rng module's docstring, sharing no code with it."""
    key = hashlib.sha256(seed.encode()).digest()
    out, counter = [], 0
    while len(out) < n:
        block = hashlib.blake2b(stream.encode() + b"\x00" + str(counter // 8).encode(), key=key).digest()
        word = int.from_bytes(block[8 * (counter % 8) : 8 * (counter % 8) + 8], "big")
        counter += 1
        if word < 2**64 - (2**64 % sides):
            out.append(word % sides + 1)
    return out


@pytest.mark.parametrize(
    ("seed", "stream", "sides"), [("abc", "", 6), ("7", "scene:1", 20), ("ünïcode", "x/y", 3), ("s", "", 1000000)]
)
def test_generator_matches_the_written_spec(seed: str, stream: str, sides: int) -> None:
    rng = DiceRng(seed, stream)
    assert [rng.die(sides) for _ in range(50)] == spec_faces(seed, stream, sides, 50)


def test_reference_function_matches_generator() -> None:
    rng = DiceRng("abc", "s")
    counter = 0
    for _ in range(30):
        face, counter = derive_face("abc", "s", counter, 6)
        assert rng.die(6) == face
        assert rng.counter == counter


def test_golden_vector_pins_derivation_v1() -> None:
    """If this changes, every stored roll stops replaying: bump RNG_VERSION instead."""
    rng = DiceRng("storymaster", "golden")
    assert [rng.die(6) for _ in range(12)] == spec_faces("storymaster", "golden", 6, 12)
    assert roll("3d6", seed=7).faces == tuple(spec_faces("7", "", 6, 3))


def test_integer_and_text_seeds_agree() -> None:
    assert roll("4d6", seed=42) == roll("4d6", seed="42")


def test_faces_are_uniform() -> None:
    rng = DiceRng("uniformity")
    counts = Counter(rng.die(6) for _ in range(60_000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    chi2 = sum((c - 10_000) ** 2 / 10_000 for c in counts.values())
    assert chi2 < 25  # 5 degrees of freedom: p < 0.0002 of exceeding by chance; fixed seed


def test_fudge_faces() -> None:
    rng = DiceRng("f")
    assert {rng.fudge() for _ in range(200)} == {-1, 0, 1}


def test_streams_are_independent() -> None:
    a, b = DiceRng("s", "a"), DiceRng("s", "b")
    assert [a.die(100) for _ in range(20)] != [b.die(100) for _ in range(20)]
    assert [DiceRng("s", "a").die(100) for _ in range(3)] == [DiceRng("s", "a").die(100) for _ in range(3)]


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        DiceRng(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        DiceRng("s", counter=-1)
    with pytest.raises(ValueError):
        DiceRng("s").die(0)


def test_fork_is_a_named_substream() -> None:
    parent = DiceRng("s", "scene")
    child = parent.fork("fight")
    assert child.stream == "scene/fight" and child.counter == 0 and child.seed == "s"
