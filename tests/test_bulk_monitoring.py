"""Monitoring in bulk (sdca_pegasos/experiments/bulk.py): the rows a bulk Recorder writes are the
per-epoch Recorder's, bit for bit where the arithmetic is the same (epochs, timings, every error
count, a stop rule's rows) and within the documented rounding bound where the matrix product sums
in another order (primal, smoothed primal, dual, gap, output primal), for every solver the
experiments run, on dense (float32 and float64) and CSR data."""

from __future__ import annotations

import math
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from sdca_pegasos import data, solvers
from sdca_pegasos.experiments import bulk, spec, stopping
from sdca_pegasos.experiments.metrics import METRIC_COLUMNS, Recorder
from sdca_pegasos.experiments.runner import TIMING_COLUMNS
from sdca_pegasos.solvers.core.losses import make_loss
from sdca_pegasos.solvers.core.monitoring import EpochMetrics

ROOT = Path(__file__).resolve().parents[1]

#: Columns whose bulk value may differ from the per-epoch one, within Recorder.bounds.
BOUNDED = ("primal", "primal_smooth", "dual", "gap", "primal_output")
#: Every other column: the same arithmetic, bit for bit.
EXACT = tuple(c for c in METRIC_COLUMNS if c not in BOUNDED)
#: The bound, relative to the objective, on these problems: small enough to mean something.
MEANINGFUL = 1e-9


def _split(X, y, n_train):
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def dense_dataset(dtype=np.float64, n=160, d=40, seed=0) -> data.Dataset:
    """Noisy linear labels, two zero rows, a test split of a third."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    X[[3, 50]] = 0.0
    Xtr, ytr, Xte, yte = _split(np.ascontiguousarray(X.astype(dtype)), y, 2 * n // 3)
    return data.Dataset(Xtr, ytr.astype(np.int64), Xte, yte.astype(np.int64))


def csr_dataset(n=180, d=300, density=0.04, seed=1) -> data.Dataset:
    """A random canonical CSR problem with an empty row, a test split of a third."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed, dtype=np.float64)
    X.data = rng.standard_normal(X.nnz) * 3.0
    X = sp.csr_matrix(X.toarray() * (np.arange(n) != 7)[:, None])  # row 7 empty, canonical
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    m = 2 * n // 3
    return data.Dataset(X[:m], y[:m].astype(np.int64), X[m:], y[m:].astype(np.int64))


DATASETS = {
    "dense64": lambda: dense_dataset(np.float64),
    "dense32": lambda: dense_dataset(np.float32, seed=2),
    "csr": csr_dataset,
}

#: The experiments' solvers and settings (sdca_pegasos/experiments/catalogue.py): SDCA with its
#: samplings, SGD initialisation and outputs, ASDCA (smoothed hinge, θ), Pegasos single and
#: mini-batch, projected or not, plain and averaged.
SOLVERS = {
    "sdca-iid": ("SDCAClassifier", {"sampling": "iid"}),
    "sdca-perm-avg": ("SDCAClassifier", {"sampling": "permutation", "average": True}),
    "sdca-cyclic-random": ("SDCAClassifier", {"sampling": "cyclic", "average": "random"}),
    "sdca-sgd-init": ("SDCAClassifier", {"sampling": "permutation", "sgd_init": True}),
    "sdca-smooth": ("SDCAClassifier", {"loss": "smooth_hinge", "gamma": 1.0}),
    "asdca": ("ASDCAClassifier", {"batch_size": 8, "gamma": 1.0, "theta": 0.15}),
    "asdca-paper-avg": ("ASDCAClassifier", {"batch_size": 8, "gamma": 1.0, "average": True}),
    "pegasos": ("PegasosClassifier", {"batch_size": 1, "sampling": "iid"}),
    "pegasos-avg-proj": (
        "PegasosClassifier",
        {"batch_size": 1, "sampling": "iid", "average": True, "projection": True},
    ),
    "pegasos-batch-avg": ("PegasosClassifier", {"batch_size": 8, "average": True}),
    "pegasos-k100-perm": ("PegasosClassifier", {"batch_size": 100, "sampling": "permutation"}),
}


def estimator(name: str, lmbd: float, epochs: int, bias: float = 0.0):
    cls, params = SOLVERS[name]
    est = getattr(solvers, cls)(
        lmbd=lmbd, max_epochs=epochs, random_state=3, bias_multiplier=bias, **params
    )
    fixed = {k: v for k, v in {"tol": 0, "shrinking": False, "finish": False}.items()}
    return est.set_params(**{k: v for k, v in fixed.items() if k in est.get_params()})


def recorders(ds, est, lmbd, bias, **bulk_options):
    args = (ds, lmbd, est.loss_function, bias, est.has_dual)
    return Recorder(*args, bulk=False), Recorder(*args, **bulk_options)


def fit_both(ds, est, lmbd, bias=0.0, **bulk_options):
    """One fit, both recorders on its callback: the per-epoch reference and the bulk one."""
    ref, blk = recorders(ds, est, lmbd, bias, **bulk_options)
    for r in (ref, blk):
        r.initial(ds.X_train.shape[1])

    def callback(info):
        ref(info)
        blk(info)

    est.set_params(callback=callback).fit(ds.X_train, ds.y_train)
    return ref, blk


def same(a, b) -> bool:
    """Equal bit for bit (NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b and math.copysign(1, a) == math.copysign(1, b)


def assert_bulk_rows_are_the_epochs(ref: Recorder, blk: Recorder) -> None:
    """Every row: the exact columns bit for bit, the others within their bound, which is
    itself small (MEANINGFUL) and 0 only where the values are the same."""
    assert len(ref.rows) == len(blk.rows)
    for r, b, bound in zip(ref.rows, blk.rows, blk.bounds, strict=True):
        for c in EXACT:
            assert same(r[c], b[c]), (r["epoch"], c, r[c], b[c])
        for c in BOUNDED:
            if math.isnan(r[c]):
                assert math.isnan(b[c]), (r["epoch"], c)
                continue
            assert abs(r[c] - b[c]) <= bound[c], (r["epoch"], c, r[c], b[c], bound[c])
            assert bound[c] <= MEANINGFUL * max(1.0, abs(r[c])), (r["epoch"], c, bound[c])


# ------------------------------------------------------------------ every solver, dense and CSR
@pytest.mark.parametrize("data_name", sorted(DATASETS))
@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_bulk_rows_are_the_per_epoch_rows(solver, data_name):
    ds = DATASETS[data_name]()
    lmbd = 1.0 / ds.X_train.shape[0]
    est = estimator(solver, lmbd, epochs=6)
    ref, blk = fit_both(ds, est, lmbd)
    assert [r["epoch"] for r in blk.rows] == list(range(7))
    assert_bulk_rows_are_the_epochs(ref, blk)
    if SOLVERS[solver][1].get("average"):  # the output iterate was evaluated on its own
        assert any(r["primal_output"] != r["primal"] for r in blk.rows[2:])


@pytest.mark.parametrize("data_name", ["dense32", "csr"])
def test_a_bias_and_chunks_of_one_epoch_change_nothing_but_rounding(data_name):
    """With a bias feature, and evaluated one recorded epoch at a time (a chunk of one byte),
    the rows are still the per-epoch ones within the bound, and their exact columns are those of
    one chunk."""
    ds = DATASETS[data_name]()
    lmbd = 1e-2
    ref, blk = fit_both(ds, estimator("sdca-perm-avg", lmbd, 5, bias=1.0), lmbd, bias=1.0)
    ref_one, one = fit_both(
        ds, estimator("sdca-perm-avg", lmbd, 5, bias=1.0), lmbd, bias=1.0, chunk_bytes=1
    )
    assert_bulk_rows_are_the_epochs(ref, blk)
    assert_bulk_rows_are_the_epochs(ref_one, one)
    for a, b in zip(blk.rows, one.rows, strict=True):  # another fit: the same but for timings
        assert all(same(a[c], b[c]) for c in EXACT if c not in TIMING_COLUMNS)


def test_the_chunks_bound_the_stored_iterates():
    """A recorder never holds more than chunk_bytes of stored iterates past a record."""
    ds = dense_dataset()
    lmbd = 1e-2
    est = estimator("pegasos-batch-avg", lmbd, 12)
    per_epoch = 2 * 8 * (ds.X_train.shape[1] + 1)  # w and the average
    ref, blk = recorders(ds, est, lmbd, 0.0, chunk_bytes=3 * per_epoch)
    held = []

    def callback(info):
        ref(info)
        blk(info)
        held.append(blk._stored_bytes)

    for r in (ref, blk):
        r.initial(ds.X_train.shape[1])
    est.set_params(callback=callback).fit(ds.X_train, ds.y_train)
    assert max(held) < 3 * per_epoch
    assert_bulk_rows_are_the_epochs(ref, blk)


# ------------------------------------------------------------------ the planted off-by-one
def shifted(recorder: Recorder) -> Recorder:
    """Plant a bug in ``recorder``: each epoch stores the previous recorded epoch's w."""
    original = recorder._row
    previous = []

    def row(epoch, samples, n_active, cpu, wall, w, dual_coef, w_out, live=False):
        previous.append(np.array(w))
        stored = previous[-2] if len(previous) > 1 else previous[-1]
        return original(epoch, samples, n_active, cpu, wall, stored, dual_coef, w_out, live)

    recorder._row = types.MethodType(lambda self, *a, **k: row(*a, **k), recorder)
    return recorder


@pytest.mark.parametrize("data_name", ["dense64", "csr"])
def test_an_iterate_stored_under_the_next_epoch_fails_the_comparison(data_name):
    """The comparison above catches an off-by-one in the stored iterates."""
    ds = DATASETS[data_name]()
    lmbd = 1.0 / ds.X_train.shape[0]
    est = estimator("sdca-iid", lmbd, 6)
    ref, blk = recorders(ds, est, lmbd, 0.0)
    shifted(blk)
    for r in (ref, blk):
        r.initial(ds.X_train.shape[1])
    est.set_params(callback=lambda info: ref(info) or blk(info)).fit(ds.X_train, ds.y_train)
    with pytest.raises(AssertionError):
        assert_bulk_rows_are_the_epochs(ref, blk)


# ------------------------------------------------------------------ a stop rule's rows
@pytest.mark.parametrize("data_name", ["dense32", "csr"])
def test_a_stop_rules_rows_are_the_per_epoch_rows_bit_for_bit(data_name):
    """A run with a stop rule computes each row's gap at its epoch, as before (the rule reads
    it): it stops at the same epoch, and every column of every row is the per-epoch one."""
    ds = DATASETS[data_name]()
    lmbd = 1e-2
    est = solvers.SDCAClassifier(
        lmbd, shrinking=True, finish=False, max_epochs=500, tol=0, random_state=0,
        bias_multiplier=0.0,
    )  # fmt: skip
    ref, blk = recorders(ds, est, lmbd, 0.0)
    rules = [stopping.StopRule(r, 1e-6, None, 500, rows_per_doubling=4) for r in (ref, blk)]
    for r in (ref, blk):
        r.initial(ds.X_train.shape[1])

    def callback(info):
        stop = [rule(info) for rule in rules]
        assert stop[0] == stop[1]
        return stop[0]

    est.set_params(callback=callback).fit(ds.X_train, ds.y_train)
    assert rules[1].reason == "rel_gap"
    metrics = list(METRIC_COLUMNS)
    pd.testing.assert_frame_equal(
        pd.DataFrame(blk.rows)[metrics], pd.DataFrame(ref.rows)[metrics], check_exact=True
    )


# ------------------------------------------------------------------ the bound itself
@pytest.mark.parametrize("sparse", [False, True])
def test_error_counts_are_exact_where_margins_sit_at_zero(sparse):
    """Rows made orthogonal to an iterate have margins of rounding size (or exactly 0, which
    counts as wrong for y = +1 only): their signs can differ between the two summation
    orders, so the bulk pass recomputes them as the per-epoch pass does. The counts are equal
    to EpochMetrics', and such margins do occur below their bound."""
    rng = np.random.default_rng(5)
    n, d = 400, 60
    X = rng.standard_normal((n, d))
    w = np.append(rng.standard_normal(d), 0.0)
    half = np.arange(n) % 2 == 0
    X[half] -= np.outer(X[half] @ w[:d] / (w[:d] @ w[:d]), w[:d])  # margins ≈ 0
    X[::10] = 0.0  # margins exactly 0
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    if sparse:
        X = sp.csr_matrix(X)
    W = np.array([w, 2.0 * w, w + 1e-3 * rng.standard_normal(d + 1), np.zeros(d + 1)])
    bm = bulk.BulkMetrics(X, y, 0.1, make_loss("hinge"), 0.0, X, y)
    em = EpochMetrics(X, y, 0.1, 0.0, 0.0, X_test=X, y_test=y)
    train, wrong = bm.train(W), bm.test_errors(W)
    for j, wj in enumerate(W):
        m = em(wj)
        assert train["errors"][j] / n == m["error"]
        assert wrong[j] / n == m["test_error"]
        assert abs(train["primal"][j] - m["primal"]) <= train["primal_bound"][j]
    z = y * (X @ w[:d])
    delta = 2 * bulk.gamma(d + 1) * np.sqrt(np.asarray(X.multiply(X).sum(1)).ravel() if sparse
                                            else (X * X).sum(1)) * np.linalg.norm(w)  # fmt: skip
    assert (np.abs(z[half]) <= delta[half]).sum() > n // 8  # the recomputation is exercised


def test_the_bound_is_the_documented_one():
    """gamma and the margin bound as the module docstring states them."""
    assert bulk.gamma(1) == 2.0**-53 / (1 - 2.0**-53)
    assert bulk.gamma(10**6) == pytest.approx(10**6 * 2.0**-53, rel=1e-9)
    for text in ("2\\gamma_m \\|\\tilde x_i\\|\\,\\|\\tilde w\\|", "Monitoring in bulk"):
        assert text in bulk.__doc__ or text in (ROOT / "docs" / "measurements.md").read_text()


def test_the_bulk_module_is_fingerprinted():
    """Reports are keyed by the code that makes them: bulk.py determines report values."""
    root = ROOT
    files = {p.relative_to(root).as_posix() for g in spec._ROWS_DEPEND_ON for p in root.glob(g)}
    assert "sdca_pegasos/experiments/bulk.py" in files
    assert "sdca_pegasos/experiments/metrics.py" in files


def test_a_dataset_without_a_test_split_has_nan_test_errors_both_ways():
    """skin has no test split: its test columns are NaN per epoch and in bulk alike."""
    full = dense_dataset()
    ds = data.Dataset(full.X_train, full.y_train, None, None)
    lmbd = 1e-2
    ref, blk = fit_both(ds, estimator("pegasos-batch-avg", lmbd, 4), lmbd)
    assert_bulk_rows_are_the_epochs(ref, blk)
    for r in blk.rows:
        assert math.isnan(r["test_error"]) and math.isnan(r["test_error_output"])
