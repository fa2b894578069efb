"""Index streams: shapes, distinctness inside a batch, uniformity, and no pathological cases."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from sdca_pegasos.solvers import PegasosClassifier, SDCAClassifier
from sdca_pegasos.solvers.core.sampling import (
    DEPRECATED_SAMPLINGS,
    SAMPLINGS,
    distinct_batches,
    epoch_indices,
    resolve_sampling,
    splitmix64,
    uniform_below,
)

from .conftest import gaussian_problem
from .reference import (
    distinct_batches_reference,
    splitmix64_reference,
    uniform_below_reference,
)

ROOT = Path(__file__).resolve().parents[1]


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


@pytest.mark.parametrize(
    ("n", "k"),
    [(100, 2), (100, 8), (100, 10), (103, 10), (400, 20), (1000, 31), (5000, 70), (7, 2),
     (60, 60), (168, 100), (196045, 2)],
)  # fmt: skip
def test_batches_are_the_numpy_references_bit_for_bit(n, k):
    """The compiled repeat check (sampling.rows_with_repeats: pair by pair up to 16 entries,
    sorted beyond) redraws the same rows in the same order as sorting the block in NumPy: the
    same stream, epoch after epoch, in the pairwise, the sorted and the direct regime, with
    and without a short last batch; (400, 20) and (5000, 70) sit at k² ≥ n, where many rows
    are redrawn."""
    ours, theirs = np.random.default_rng(7), np.random.default_rng(7)
    for _ in range(3):
        assert np.array_equal(
            distinct_batches(ours, n, k), distinct_batches_reference(theirs, n, k)
        )


def test_rows_with_repeats_finds_every_repeated_row_and_no_other():
    """Against a set's count, on blocks short (pairwise) and long (sorted), repeats anywhere
    in a row (first and last entries included)."""
    from sdca_pegasos.solvers.core.sampling import PAIRWISE_ROWS, rows_with_repeats

    rng = np.random.default_rng(3)
    for size in (2, 3, PAIRWISE_ROWS, PAIRWISE_ROWS + 1, 40):
        block = rng.integers(0, 3 * size, size=(500, size))
        block[0, 0] = block[0, -1] = 10**6  # first and last
        want = [r for r in range(500) if len(set(block[r])) < size]
        assert 0 in want and rows_with_repeats(block).tolist() == want


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
    assert sorted(epoch_indices(rng, 10, "permutation", None)) == list(range(10))
    order = np.arange(10)[::-1].copy()
    assert epoch_indices(rng, 10, "cyclic", order) is order
    with pytest.raises(ValueError, match="unknown sampling"):
        epoch_indices(rng, 10, "shuffle", None)


# ------------------------------------------------------------------ the passes' generator
def test_splitmix64_gives_the_published_stream():
    """Pinned: the first outputs of SplitMix64 from state 0 (Vigna's reference code gives
    0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f); a change to the generator
    changes every shrinking run and must fail here first."""
    state, outputs = np.uint64(0), []
    for _ in range(3):
        state, z = splitmix64(np.uint64(state))
        outputs.append(int(z))
    assert outputs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    ref, twin = 0, []
    for _ in range(3):
        ref, z = splitmix64_reference(ref)
        twin.append(z)
    assert twin == outputs and ref == int(state)


@pytest.mark.parametrize("bound", [1, 2, 3, 10, 1000, 2**31 + 1, 3 * 2**30, 2**32 - 1])
def test_uniform_below_equals_its_python_twin(bound):
    """The compiled draw and its Python-integer twin: the same values and states, rejections
    included (a bound near 2**32 rejects up to half the words)."""
    state = ref = 12345
    for _ in range(200):
        state, j = uniform_below(np.uint64(state), bound)
        ref, j_ref = uniform_below_reference(ref, bound)
        assert (int(state), j) == (ref, j_ref) and 0 <= j < bound


def test_uniform_below_is_uniform():
    """Chi-square over 60,000 draws below 6 and below 7 (p-value > 1e-4)."""
    from scipy.stats import chisquare

    for bound in (6, 7):
        state, counts = np.uint64(99), np.zeros(bound)
        for _ in range(60_000):
            state, j = uniform_below(np.uint64(state), bound)
            counts[j] += 1
        assert chisquare(counts).pvalue > 1e-4


# ------------------------------------------------------------------ one vocabulary
# (old spelling, estimator, new spelling, other parameters)
DEPRECATED = [
    ("perm", SDCAClassifier, "permutation", {"tol": 0}),
    ("random", SDCAClassifier, "iid", {"tol": 0}),
    ("random", SDCAClassifier, "iid", {"tol": 0, "shrinking": True}),
    ("perm", SDCAClassifier, "permutation", {"tol": 0, "sgd_init": True, "average": True}),
    ("epoch", PegasosClassifier, "permutation", {"batch_size": 7, "average": "weighted"}),
    ("epoch", PegasosClassifier, "permutation", {"batch_size": 1, "projection": True}),
]


@pytest.mark.parametrize(("old", "cls", "new", "params"), DEPRECATED)
def test_old_spelling_warns_and_gives_the_same_bits(old, cls, new, params, record_fit):
    X, y = gaussian_problem(n=60, d=5, seed=3)
    record = record_fit(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new spelling warns about nothing
        fitted_new = cls(lmbd=0.05, sampling=new, max_epochs=4, random_state=7, **params)
        fitted_new.fit(X, y)
    indices_new = [i.copy() for i in record.indices]
    message = rf"\(sampling='{old}'\) is deprecated.*use sampling='{new}'"
    with pytest.warns(FutureWarning, match=message) as w:
        fitted_old = cls(lmbd=0.05, sampling=old, max_epochs=4, random_state=7, **params)
        fitted_old.fit(X, y)
    assert len(w) == 1 and w[0].filename == __file__  # once per fit, at the caller's line
    assert fitted_old.sampling == old  # get_params gives back what the user set
    for a, b in zip(record.indices, indices_new, strict=True):
        np.testing.assert_array_equal(a, b)
    assert np.array_equal(fitted_old.coef_, fitted_new.coef_)
    assert np.array_equal(fitted_old.intercept_, fitted_new.intercept_)
    if fitted_new.dual_coef_ is not None:
        assert np.array_equal(fitted_old.dual_coef_, fitted_new.dual_coef_)


def test_resolve_sampling_maps_only_each_solvers_own_old_spellings():
    assert resolve_sampling("SDCAClassifier", "perm") == "permutation"
    assert resolve_sampling("SDCAClassifier", "random") == "iid"
    assert resolve_sampling("PegasosClassifier", "epoch") == "permutation"
    # never a spelling of that solver: left alone, so validation rejects it
    assert resolve_sampling("PegasosClassifier", "perm") == "perm"
    assert resolve_sampling("SDCAClassifier", "epoch") == "epoch"
    for old, new in DEPRECATED_SAMPLINGS["SDCAClassifier"].items():
        assert new in SAMPLINGS and old not in SAMPLINGS
    with pytest.raises(ValueError, match="'sampling' parameter"):
        PegasosClassifier(sampling="perm").fit(*gaussian_problem(n=10, d=2))


def test_the_project_speaks_the_new_vocabulary_only():
    """The catalogue, ``compare`` and the benchmarks' configurations use no old spelling."""
    from sdca_pegasos.experiments.catalogue import CATALOGUE, MAIN_VARIANTS

    old = {s for spellings in DEPRECATED_SAMPLINGS.values() for s in spellings}
    configs = [c for e in CATALOGUE.values() for c in e.configs]
    configs += list(MAIN_VARIANTS.values())
    samplings = {c.params["sampling"] for c in configs if "sampling" in c.params}
    assert samplings == {"iid", "permutation", "cyclic"}
    assert not samplings & old
    for path in ("experiments", "figures", "benchmarks", "compare"):
        for source in (ROOT / path).glob("*.py"):
            text = source.read_text(encoding="utf-8")
            for spelling in old:
                assert f'"sampling": "{spelling}"' not in text, source
                assert f'sampling="{spelling}"' not in text, source
