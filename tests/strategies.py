"""Hypothesis strategies that follow the dice grammar."""

from __future__ import annotations

from hypothesis import strategies as st


def dice_terms(max_count: int = 4, max_sides: int = 8, explode: bool = True) -> st.SearchStrategy[str]:
    @st.composite
    def term(draw: st.DrawFn) -> str:
        fudge = draw(st.booleans()) if max_sides >= 3 else False
        count = draw(st.integers(0, max_count))
        text = f"{count}d" if count != 1 or draw(st.booleans()) else "d"
        if fudge:
            text += draw(st.sampled_from(["F", "f"]))
        else:
            sides = draw(st.integers(1, max_sides))
            text += str(sides)
            if explode and sides > 1 and draw(st.integers(0, 4)) == 0:
                text += f"!({draw(st.integers(1, 2))})"
        if count and draw(st.integers(0, 3)) == 0:
            kind = draw(st.sampled_from(["kh", "kl", "dh", "dl", "k"]))
            text += f"{kind}{draw(st.integers(0, count))}"
        return text

    return term()


def expressions(max_leaves: int = 3, **kw) -> st.SearchStrategy[str]:
    leaf = st.one_of(dice_terms(**kw), st.integers(0, 20).map(str))
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", " + ", " - "]), inner).map(lambda t: "".join(t)),
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"-{e}"),
        ),
        max_leaves=max_leaves,
    )


_OPS = ["", ">=", "<=", ">", "<", "="]


def _cmp_text(draw: st.DrawFn, lo: int, hi: int, bare: bool = True) -> str:
    op = draw(st.sampled_from(_OPS if bare else _OPS[1:]))
    return f"{op}{draw(st.integers(lo, hi))}"


def language_terms(max_count: int = 3, max_sides: int = 4, small: bool = True) -> st.SearchStrategy[str]:
    """One dice term with any of the language's modifiers (may be refused by the parser: filter with parse)."""

    @st.composite
    def term(draw: st.DrawFn) -> str:
        count = draw(st.integers(0 if not small else 1, max_count))
        sides = draw(st.integers(2, max_sides))
        text = f"{count}d{sides}"
        if draw(st.integers(0, 2)) == 0:
            text += draw(st.sampled_from(["ro", "r", "rr"]))
            if text.endswith("r") and not text.endswith("ro") and draw(st.booleans()):
                text += f"({draw(st.integers(1, 2))})"
            text += _cmp_text(draw, 1, sides)
        if draw(st.integers(0, 3)) == 0:
            text += f"mi{draw(st.integers(1, sides))}"
        if draw(st.integers(0, 3)) == 0:
            text += f"ma{draw(st.integers(1, sides))}"
        if draw(st.integers(0, 2)) == 0:
            text += draw(st.sampled_from(["!", "!!", "!p"]))
            if draw(st.booleans()):
                text += _cmp_text(draw, 1, sides)
            text += f"({draw(st.integers(1, 2))})"
        k = draw(st.integers(0, 5))
        if k == 0:
            text += f"{draw(st.sampled_from(['kh', 'kl', 'dh', 'dl']))}{draw(st.integers(0, count))}"
        elif k == 1:
            text += f"{draw(st.sampled_from(['k', 'd']))}{_cmp_text(draw, 0, sides + 2, bare=False)}"
        if draw(st.integers(0, 2)) == 0:
            text += "cs" + _cmp_text(draw, 0, sides + 1)
            if draw(st.booleans()):
                text += "f" + _cmp_text(draw, 0, sides)
        return text

    return term()


def language_expressions(max_leaves: int = 3, **kw) -> st.SearchStrategy[str]:
    """Expressions over the whole grammar: arithmetic, division, rounding, comparisons, sets, labels."""
    leaf = st.one_of(language_terms(**kw), st.integers(0, 6).map(str), dice_terms(2, 4, explode=False))
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", " + "]), inner).map(lambda t: "".join(t)),
            st.tuples(inner, st.integers(1, 3)).map(lambda t: f"({t[0]})/{t[1]}"),
            st.tuples(st.sampled_from(["floor", "ceil", "round"]), inner, st.integers(1, 3)).map(
                lambda t: f"{t[0]}(({t[1]})/{t[2]})"
            ),
            st.tuples(inner, st.sampled_from([">=", "<", "=="]), inner).map(lambda t: f"({t[0]}){t[1]}({t[2]})"),
            st.tuples(inner, inner, st.sampled_from(["", "kh1", "kl1", ">=3", "k>2"])).map(
                lambda t: f"{{{t[0]}, {t[1]}}}{t[2]}"
            ),
            inner.map(lambda e: f"({e})[label]"),
            inner.map(lambda e: f"-({e})"),
        ),
        max_leaves=max_leaves,
    )
