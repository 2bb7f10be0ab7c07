import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import expressions

from storymaster.dice import DEFAULT_LIMITS, BinOp, Const, Dice, Limits, Neg, parse, parse_pool
from storymaster.errors import DiceLimitError, DiceSyntaxError, StorymasterError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("2d6+3", "2d6+3"),
        ("d20", "1d20"),
        ("D20 + 5", "1d20+5"),
        ("4d6kh3", "4d6kh3"),
        ("4d6k3", "4d6kh3"),
        ("4d6dl1", "4d6kh3"),
        ("4d6dh1", "4d6kl3"),
        ("2d20kl1", "2d20kl1"),
        ("d6!", "1d6!"),
        ("3d6!(3)kh2", "3d6!(3)kh2"),
        ("4dF", "4dF"),
        ("4df", "4dF"),
        ("d%", "1d100"),
        ("(1d4+2)*3", "(1d4+2)*3"),
        ("-d6", "-1d6"),
        ("16+2d4", "16+2d4"),
        ("d12+d4", "1d12+1d4"),
        ("0d6", "0d6"),
        ("1-(2-3)", "1-(2-3)"),
        ("-(0*0)", "-(0*0)"),
        ("-(d6+1)", "-(1d6+1)"),
    ],
)
def test_canonical_form(text: str, canonical: str) -> None:
    assert str(parse(text)) == canonical
    assert parse(canonical) == parse(text)


def test_tree_shapes() -> None:
    assert parse("2d6+3") == BinOp("+", Dice(2, 6), Const(3))
    assert parse("1+2*3") == BinOp("+", Const(1), BinOp("*", Const(2), Const(3)))
    assert parse("1-2-3") == BinOp("-", BinOp("-", Const(1), Const(2)), Const(3))
    assert parse("--2") == Neg(Neg(Const(2)))
    assert parse("d6!") == Dice(1, 6, DEFAULT_LIMITS.explode_depth)
    assert parse("4dF") == Dice(4, "F")


@pytest.mark.parametrize(
    ("text", "position", "words"),
    [
        ("2d", 2, "number of sides"),
        ("3d6+", 4, "found the end"),
        ("abc", 0, "expected a number"),
        ("((1)", 4, "missing ')'"),
        ("1 2", 2, "unexpected '2'"),
        ("2d6)", 3, "unexpected ')'"),
        ("", 0, "empty"),
        ("d6!>=1", 0, "matches every face"),
        ("d6r<7", 2, "matches every face"),
        ("4d6f1", 0, "give a success target first"),
        ("4d6kh2kl1", 6, "one keep or drop"),
        ("4d6r1r2", 5, "one reroll rule"),
        ("1d6mi7", 3, "no face 7"),
        ("2d6!cs>=5kh1", 0, "keep/drop with success counting"),
        ("6d6cf", 3, "'cf' is not supported"),
        ("4d6sa", 3, "'sa' is not supported"),
        ("1d20ra1", 4, "'ra' is not supported"),
        ("1d6/(1d2-1)", 3, "can be 0"),
        ("1d20+1 >= 5 >= 2", 12, "do not chain"),
        ("abs(3)", 0, "abs() is not supported"),
        ("{1d6, 2", 7, "missing '}'"),
        ("3d6[fire", 3, "never closed"),
        ("4d6kh5", 3, "cannot keep 5 of 4"),
        ("2d0", 2, "at least one side"),
        ("d1!", 2, "never stop"),
        ("d6!(0)", 2, "at least 1"),
        ("3d6 // 2", 4, "'//' is not an operator"),
        ("2d6d3", 3, "cannot drop 3 of 2"),
    ],
)
def test_syntax_errors_point_at_the_fault(text: str, position: int, words: str) -> None:
    with pytest.raises(DiceSyntaxError) as info:
        parse(text)
    err = info.value
    assert err.position == position
    assert words in err.message
    caret_line = err.caret().splitlines()[1]
    assert caret_line.index("^") == position + 2
    assert f"position {position + 1}" in str(err)


@pytest.mark.parametrize(
    "text",
    [
        "999999999d999999999",
        "1001d6",
        "d1000001",
        "d6!(101)",
        "9" * 11,
        "(" * 40 + "1" + ")" * 40,
        "-" * 40 + "1",
        "1+" * 300 + "1",
    ],
)
def test_limits_are_enforced(text: str) -> None:
    with pytest.raises(DiceLimitError):
        parse(text)


def test_limits_are_configurable() -> None:
    small = Limits(max_dice=3)
    parse("3d6", small)
    with pytest.raises(DiceLimitError, match="more than the limit of 3"):
        parse("4d6", small)


def test_explode_depth_from_limits() -> None:
    assert parse("d6!", Limits(explode_depth=4)) == Dice(1, 6, 4)
    assert str(parse("d6!", Limits(explode_depth=4))) == "1d6!(4)"


def test_pool_parsing() -> None:
    assert parse_pool("d12+d4,d10") == (12, 4, 10)
    assert parse_pool("2d8, d6") == (8, 8, 6)
    for bad in ("d6+3", "d6!", "4dF", "", "d12-d4"):
        with pytest.raises(DiceSyntaxError, match="die pool"):
            parse_pool(bad)


def test_not_text_is_a_clear_error() -> None:
    with pytest.raises(DiceSyntaxError, match="must be text"):
        parse(12)  # type: ignore[arg-type]


@given(expressions(max_leaves=4))
def test_canonical_round_trip(text: str) -> None:
    try:
        node = parse(text)
    except DiceLimitError:
        return
    assert parse(str(node)) == node


@given(st.text(max_size=40))
def test_fuzz_random_text_only_raises_our_errors(text: str) -> None:
    with contextlib.suppress(StorymasterError):
        parse(text)


@given(st.text(alphabet="0123456789dDfFkhlK!%()+-* ", max_size=30))
def test_fuzz_dice_alphabet_only_raises_our_errors(text: str) -> None:
    from storymaster.dice import roll
    from storymaster.odds import distribution

    try:
        roll(text, seed=1)
        distribution(text)
    except StorymasterError:
        pass


@pytest.mark.parametrize(("text", "position"), [("d12+dx", 5), ("d12, d6!", 5), ("d8,,d6", 3)])
def test_pool_errors_point_into_the_whole_pool(text: str, position: int) -> None:
    with pytest.raises(DiceSyntaxError) as info:
        parse_pool(text)
    assert info.value.expression == text and info.value.position == position
