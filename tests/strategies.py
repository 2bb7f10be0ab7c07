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
