"""Index streams: shapes, distinctness inside a batch, uniformity, and no pathological cases."""

from __future__ import annotations

import numpy as np
import pytest

from solvers._sampling import active_indices, distinct_batches, epoch_indices


@pytest.mark.parametrize(
    ("n", "k"),
    [(100, 1), (100, 8), (100, 10), (100, 11), (60, 60), (168, 100), (7, 3), (1000, 999)],
)
def test_batches_have_distinct_indices_and_cover_one_epoch(n, k):
    idx = distinct_batches(np.random.default_rng(0), n, k)
    assert idx.shape == (n,) and idx.dtype == np.int64
    assert idx.min() >= 0 and idx.max() < n
    if k > 1:
        for start in range(0, n, k):
            batch = idx[start : start + k]
            assert len(np.unique(batch)) == len(batch), "a batch repeats an index"


@pytest.mark.parametrize("k", [4, 40])  # the rejection and the direct regime (n = 200)
def test_batches_are_uniform_over_indices(k):
    """Every index is equally likely: chi-square over 2000 epochs (p-value > 1e-4)."""
    from scipy.stats import chisquare

    rng = np.random.default_rng(1)
    counts = np.bincount(
        np.concatenate([distinct_batches(rng, 200, k) for _ in range(2000)]), minlength=200
    )
    assert chisquare(counts).pvalue > 1e-4


def test_epoch_indices_kinds():
    rng = np.random.default_rng(0)
    assert sorted(epoch_indices(rng, 10, "perm", None)) == list(range(10))
    order = np.arange(10)[::-1].copy()
    assert epoch_indices(rng, 10, "cyclic", order) is order
    with pytest.raises(ValueError, match="unknown sampling"):
        epoch_indices(rng, 10, "shuffle", None)


def test_active_indices_sweep_the_active_samples_only():
    rng = np.random.default_rng(0)
    active = np.array([7, 2, 9, 4])
    perm = active_indices(rng, active, "perm", 3)
    assert perm.shape == (12,) and perm.dtype == np.int64
    for p in range(3):  # each pass a permutation of the active samples
        assert sorted(perm[4 * p : 4 * p + 4]) == [2, 4, 7, 9]
    iid = active_indices(rng, active, "random", 2)
    assert iid.shape == (8,) and set(iid) <= {2, 4, 7, 9}
    assert list(active_indices(rng, active, "cyclic", 2)) == [7, 2, 9, 4, 7, 2, 9, 4]
    with pytest.raises(ValueError, match="unknown sampling"):
        active_indices(rng, active, "shuffle")
