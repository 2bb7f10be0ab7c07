import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import expressions

from storymaster.dice import DiceRng, Limits, RollRecord, parse, replay, roll, roll_pool, verify
from storymaster.errors import DiceLimitError, DiceSyntaxError, StorymasterError, VerificationError


def test_record_shape_and_total(rng: DiceRng) -> None:
    r = roll("2d6+3", rng)
    assert r.expression == "2d6+3"
    assert len(r.dice) == 2 and all(d.sides == 6 and 1 <= d.face <= 6 for d in r.dice)
    assert r.total == sum(r.faces) + 3
    assert r.seed == rng.seed and r.stream == rng.stream
    assert r.counter == 0 and r.draws == 2 and rng.counter == 2
    assert r.detail == f"2d6[{r.dice[0].face}, {r.dice[1].face}] + 3 = {r.total}"


def test_consecutive_rolls_continue_the_stream(rng: DiceRng) -> None:
    a = roll("d20", rng)
    b = roll("d20", rng)
    assert b.counter == a.counter + a.draws
    assert replay(b) == b


def test_same_seed_same_roll() -> None:
    assert roll("10d10", seed=99) == roll("10d10", seed=99)
    assert roll("10d10", seed=99) != roll("10d10", seed=100)


def test_unseeded_rolls_record_their_fresh_seed() -> None:
    r = roll("3d6")
    assert len(r.seed) == 32
    verify(r)


def test_json_round_trip_and_contract() -> None:
    r = roll("4d6kh3+1", seed=5, label="strength")
    data = json.loads(r.dumps())
    assert {"expression", "total", "dice", "seed", "detail"} <= data.keys()
    assert all({"sides", "face", "kept"} <= d.keys() for d in data["dice"])
    assert RollRecord.from_json(data) == r


def test_keep_highest_keeps_the_highest() -> None:
    for s in range(200):
        r = roll("4d6kh3", seed=s)
        kept = sorted(d.face for d in r.dice if d.kept)
        dropped = [d.face for d in r.dice if not d.kept]
        assert len(kept) == 3 and len(dropped) == 1
        assert dropped[0] <= kept[0]
        assert r.total == sum(kept)


def test_keep_lowest_and_drop() -> None:
    for s in range(100):
        r = roll("2d20kl1", seed=s)
        assert r.total == min(d.face for d in r.dice)
        r = roll("4d6dh1", seed=s)
        assert r.total == sum(sorted(d.face for d in r.dice)[:3])


def test_explosions_chain_and_stop_at_depth() -> None:
    seen_chain = False
    for s in range(400):
        r = roll("2d2!(3)", seed=s)
        chains = Counter()
        first = 0
        for d in r.dice:
            if not d.exploded:
                first += 1
            chains[first] += 1
        assert first == 2
        assert all(1 <= n <= 4 for n in chains.values())
        seen_chain |= max(chains.values()) == 4
        # every die but a chain's last showed the top face
        assert r.total == sum(d.face for d in r.dice)
    assert seen_chain


def test_exploding_chain_counts_as_one_die_for_keep() -> None:
    for s in range(300):
        r = roll("3d4!kh1", seed=s)
        chains: list[list[int]] = []
        for d in r.dice:
            if d.exploded:
                chains[-1].append(d.face)
            else:
                chains.append([d.face])
        assert r.total == max(sum(c) for c in chains)


def test_fudge_dice(rng: DiceRng) -> None:
    r = roll("4dF", rng)
    assert all(d.sides == "F" and d.face in (-1, 0, 1) for d in r.dice)
    assert r.total == sum(d.face for d in r.dice)
    with pytest.raises(DiceSyntaxError, match="cannot explode"):
        roll("4dF!", rng)


def test_pool_keeps_dice_apart(rng: DiceRng) -> None:
    r = roll_pool((12, 4, 10), rng, label="Agility+Dodge")
    assert [d.sides for d in r.dice] == [12, 4, 10]
    assert [d.term for d in r.dice] == [0, 1, 2]
    assert r.label == "Agility+Dodge"
    with pytest.raises(DiceSyntaxError):
        roll_pool((), rng)


def test_tampered_record_fails_verification() -> None:
    r = roll("3d6", seed=1)
    forged = r._replace(total=r.total + 1)
    with pytest.raises(VerificationError, match="does not replay"):
        verify(forged)
    with pytest.raises(VerificationError):
        verify(r._replace(dice=tuple(reversed(r.dice))) if len(set(r.faces)) > 1 else r._replace(seed="other"))


def test_unknown_derivation_version() -> None:
    with pytest.raises(VerificationError, match="v2"):
        replay(roll("d6", seed=1)._replace(rng_version=2))


def test_malformed_record_json() -> None:
    with pytest.raises(VerificationError, match="not a roll record"):
        RollRecord.from_json({"total": 3})


def test_worst_case_dice_limit() -> None:
    with pytest.raises(DiceLimitError, match="could throw up to"):
        roll("1000d6!", seed=1)
    roll("1000d6", seed=1)
    with pytest.raises(DiceLimitError):
        roll("10d6", seed=1, limits=Limits(max_rolled=5))


def test_rng_and_seed_together_is_a_mistake(rng: DiceRng) -> None:
    with pytest.raises(TypeError):
        roll("d6", rng, seed=1)


@settings(max_examples=150)
@given(expressions(max_leaves=4), st.integers(0, 10**6))
def test_every_expression_rolls_or_raises_a_handled_error(text: str, seed: int) -> None:
    try:
        r = roll(text, seed=seed)
    except StorymasterError:
        return
    assert replay(r) == r
    assert r.detail.endswith(f"= {r.total}")
    node = parse(text)
    assert r.expression == str(node)
