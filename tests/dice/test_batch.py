import numpy as np
import pytest

from storymaster.dice import roll_batch
from storymaster.errors import DiceLimitError
from storymaster.odds import distribution


@pytest.mark.parametrize(
    "expr", ["3d6", "4d6kh3", "2d20kl1", "d6!(3)", "4dF", "1d20+5", "16+2d4", "(d4+1)*2", "-d6", "3d4!kh2"]
)
def test_batch_agrees_with_exact_distribution(expr: str) -> None:
    n = 200_000
    sample = roll_batch(expr, n, seed=11)
    dist = distribution(expr)
    assert sample.shape == (n,) and sample.dtype == np.int64
    assert set(np.unique(sample)) <= set(dist.outcomes)
    values, counts = np.unique(sample, return_counts=True)
    observed = dict(zip(values.tolist(), counts.tolist(), strict=True))
    for outcome, p in dist.pmf().items():
        p = float(p)
        sigma = (p * (1 - p) / n) ** 0.5
        assert abs(observed.get(outcome, 0) / n - p) <= 5 * sigma + 1e-4, outcome


def test_batch_is_reproducible() -> None:
    assert np.array_equal(roll_batch("3d6", 1000, seed=3), roll_batch("3d6", 1000, seed=3))


def test_batch_chunks_large_requests() -> None:
    sample = roll_batch("1000d6", 5000, seed=1)
    assert sample.shape == (5000,)
    assert 3300 < sample.mean() < 3700


def test_batch_limits() -> None:
    with pytest.raises(DiceLimitError):
        roll_batch("d6", -1)
    with pytest.raises(DiceLimitError):
        roll_batch("d6", 10**9)
    assert roll_batch("d6", 0).shape == (0,)
