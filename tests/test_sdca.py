"""SDCA: agreement with liblinear, duality certificates, NumPy twin, determinism, bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from sdca_pegasos import solvers
from sdca_pegasos.solvers import SDCAClassifier
from sdca_pegasos.solvers.core import objectives, passes
from sdca_pegasos.solvers.core.losses import HINGE
from sdca_pegasos.solvers.core.rows import kernel_rows
from sdca_pegasos.solvers.sdca import kernels as sdca_kernels
from sdca_pegasos.solvers.sdca import shrinking as sdca_shrinking
from sdca_pegasos.solvers.sklearn_checks import expected_failed_checks
from tests.conftest import gaussian_problem, real_problem
from tests.reference import augment, dual_reference, primal_reference, sdca_reference

SAMPLINGS = ["permutation", "iid", "cyclic"]


def liblinear(X, y, lmbd):
    """scikit-learn's liblinear, hinge loss, no intercept, at C = 1/(λn)."""
    svc = LinearSVC(
        loss="hinge",
        dual=True,
        fit_intercept=False,
        C=objectives.lmbd_to_C(lmbd, X.shape[0]),
        tol=1e-12,
        max_iter=1_000_000,
        random_state=0,  # liblinear shuffles: whether it stalls depends on this seed
    )
    # liblinear's stopping test never reaches tol=1e-12 on these problems: every reference
    # fit runs to max_iter and says so (agreement, or the stall, is what we test below)
    with pytest.warns(ConvergenceWarning, match="Liblinear failed to converge"):
        return svc.fit(X, y).coef_.ravel()


def certified_fit(X, y, lmbd, **params):
    """SDCA to a gap of 1e-10 on liblinear's problem without an intercept."""
    est = SDCAClassifier(
        lmbd=lmbd,
        shrinking=False,
        tol=1e-10,
        tol_gap="absolute",
        max_epochs=200_000,
        bias_multiplier=0.0,
        random_state=0,
        **params,
    )
    est.fit(X, y)
    assert est.converged_ and est.duality_gap_ <= 1e-10
    return est


# ------------------------------------------------------------------ the λ <-> C helper
def test_lmbd_C_mapping_is_the_liblinear_scaling():
    X, y = gaussian_problem(n=40, d=3)
    n, lmbd = X.shape[0], 0.037
    C = objectives.lmbd_to_C(lmbd, n)
    assert objectives.C_to_lmbd(C, n) == pytest.approx(lmbd, rel=1e-15)
    w = np.random.default_rng(1).standard_normal(3)
    # liblinear's objective ½‖w‖² + C Σ hinge equals P(w) / λ for every w
    liblinear_objective = 0.5 * w @ w + C * np.maximum(0, 1 - y * (X @ w)).sum()
    assert liblinear_objective == pytest.approx(objectives.primal(X, y, w, lmbd) / lmbd, rel=1e-13)
    for bad in [(0.0, n), (lmbd, 0)]:
        with pytest.raises(ValueError, match="lmbd > 0"):
            objectives.lmbd_to_C(*bad)


# ------------------------------------------------------------------ 1. agreement with liblinear
# (dataset, λ) pairs where liblinear (max_iter=10⁶ at tol=1e-12) reaches the optimum ...
AGREE = [
    ("cancer", 1e-1),
    ("cancer", 1e-3),
    ("cancer", "1/n"),
    ("digits38", 1e-1),
    ("iris", 1e-2),
    ("iris", 1e-3),
]
# ... and where it stalls above the optimum (scikit-learn issue 22283)
STALL = [("digits38", 1e-2), ("digits38", 1e-3)]


def _lmbd(X, lmbd):
    return 1.0 / X.shape[0] if lmbd == "1/n" else lmbd


@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize(("name", "lmbd"), AGREE)
def test_agrees_with_liblinear(name, lmbd, sampling):
    X, y = real_problem(name)
    lmbd = _lmbd(X, lmbd)
    ours = certified_fit(X, y, lmbd, sampling=sampling)
    ref = liblinear(X, y, lmbd)
    p_ours = objectives.primal(X, y, ours.coef_.ravel(), lmbd)
    p_ref = objectives.primal(X, y, ref, lmbd)
    assert p_ours == pytest.approx(p_ref, rel=1e-6)
    assert_allclose(ours.coef_.ravel(), ref, atol=1e-5)


@pytest.mark.parametrize(("name", "lmbd"), STALL)
def test_certified_where_liblinear_stalls(name, lmbd):
    """liblinear stops above the optimum here; our gap certifies that our objective is lower.

    D(α) <= P* <= P(w_ours) <= D(α) + 1e-10, so any P(w_liblinear) above P(w_ours) + 1e-10 is
    provably suboptimal. No tolerance is loosened: the claim is exactly the certificate.
    """
    X, y = real_problem(name)
    ours = certified_fit(X, y, lmbd)
    p_ours, d_ours, gap = objectives.duality_gap(X, y, ours.coef_.ravel(), ours.dual_coef_, lmbd)
    p_ref = objectives.primal(X, y, liblinear(X, y, lmbd), lmbd)
    assert gap <= 1e-10
    assert d_ours <= p_ref  # weak duality, whatever liblinear returns
    assert p_ours <= p_ref + 1e-10  # ours is the lower objective, certified


def test_smoothed_hinge_agrees_with_lbfgs():
    """The smoothed primal is differentiable: an independent quasi-Newton solve must agree."""
    X, y = real_problem("cancer")
    lmbd, gamma = 1e-2, 0.5
    # λ-strong convexity: ‖w - w*‖² <= 2 gap / λ. Coefficients to 1e-5 need gap <= 5e-13,
    # which the (linearly convergent) smoothed dual reaches cheaply.
    ours = SDCAClassifier(
        lmbd=lmbd,
        loss="smooth_hinge",
        gamma=gamma,
        shrinking=False,
        tol=1e-13,
        tol_gap="absolute",
        max_epochs=100_000,
        random_state=0,
        bias_multiplier=0.0,
    ).fit(X, y)
    assert ours.converged_ and np.sqrt(2 * ours.duality_gap_ / lmbd) < 1e-5

    def fun(w):
        z = y * (X @ w)
        u = 1 - z
        loss = np.where(u <= 0, 0, np.where(u >= gamma, u - gamma / 2, u * u / (2 * gamma)))
        dloss = np.where(u <= 0, 0, np.where(u >= gamma, -1.0, -u / gamma))
        return 0.5 * lmbd * w @ w + loss.mean(), lmbd * w + X.T @ (dloss * y) / len(y)

    ref = minimize(
        fun,
        np.zeros(X.shape[1]),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10_000},
    ).x
    p_ours = objectives.primal(X, y, ours.coef_.ravel(), lmbd, gamma)
    assert p_ours == pytest.approx(fun(ref)[0], rel=1e-8)
    assert_allclose(ours.coef_.ravel(), ref, atol=1e-5)


# ------------------------------------------------------------------ 2. certificates
@pytest.mark.parametrize("sgd_init", [False, True])
@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize(("loss", "gamma"), [("hinge", 0.0), ("smooth_hinge", 0.5)])
def test_weak_duality_and_monotone_dual(small, loss, gamma, sampling, sgd_init):
    X, y = small
    lmbd = 0.02
    trace = []

    def callback(info):
        trace.append(
            (
                primal_reference(X, y, info.w, lmbd, gamma),
                dual_reference(X, y, info.dual_coef, lmbd, gamma),
            )
        )

    SDCAClassifier(
        lmbd=lmbd,
        loss=loss,
        gamma=gamma,
        sampling=sampling,
        sgd_init=sgd_init,
        shrinking=False,
        max_epochs=30,
        tol=0,
        random_state=3,
        callback=callback,
        bias_multiplier=0.0,
    ).fit(X, y)
    P, D = np.array(trace).T
    assert len(P) == 30
    assert np.all(P >= D - 1e-14), "weak duality"
    if not sgd_init:
        assert D[0] >= 0.0  # D(0) = 0 and each SDCA step maximises D along a coordinate
    assert np.all(np.diff(D) >= -1e-14), "SDCA never decreases the dual"
    assert P[-1] - D[-1] < 0.1 * (P[0] - D[0]), "the gap closes"


def test_reported_gap_is_an_independent_recomputation(small):
    X, y = small
    lmbd = 0.05
    seen = []

    def callback(info):
        ref = primal_reference(X, y, info.w, lmbd) - dual_reference(X, y, info.dual_coef, lmbd)
        seen.append((info.gap, info.bounds()[2], ref))  # the schedule's, every epoch's, ours

    est = SDCAClassifier(
        lmbd=lmbd,
        shrinking=False,
        tol=1e-9,
        tol_gap="absolute",
        max_epochs=10_000,
        random_state=0,
        callback=callback,
        bias_multiplier=0.0,
    ).fit(X, y)
    checked = np.array([(g, r) for g, _, r in seen if g is not None])
    every = np.array([(b, r) for _, b, r in seen])
    assert_allclose(checked[:, 0], checked[:, 1], rtol=1e-9, atol=1e-15)
    assert_allclose(every[:, 0], every[:, 1], rtol=1e-9, atol=1e-15)
    assert len(checked) < len(every) / 2  # the schedule, not a gap after every epoch
    assert est.duality_gap_ == seen[-1][0] <= 1e-9
    assert np.all(every[:-1, 0] > 1e-9), "stops at the first epoch below tol"
    assert est.duality_gap(X, y) == pytest.approx(est.duality_gap_, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(("loss", "gamma"), [("hinge", 0.0), ("smooth_hinge", 1.0)])
def test_gap_goes_to_zero(small, loss, gamma):
    X, y = small
    est = SDCAClassifier(
        lmbd=0.01,
        loss=loss,
        gamma=gamma,
        shrinking=False,
        tol=1e-10,
        tol_gap="absolute",
        max_epochs=50_000,
        random_state=0,
        bias_multiplier=0.0,
    ).fit(X, y)
    assert est.converged_
    p = primal_reference(X, y, np.append(est.coef_.ravel(), 0), 0.01, gamma)
    d = dual_reference(X, y, est.dual_coef_, 0.01, gamma)
    assert 0 <= p - d < 1e-8


@pytest.mark.parametrize(
    ("loss", "gamma", "a_zero"), [("hinge", 0, 1.0), ("smooth_hinge", 2.0, 0.5)]
)
def test_zero_rows_take_their_exact_dual_optimum(loss, gamma, a_zero):
    """A zero row has no quadratic term: its coordinate optimum is a = min(1, 1/γ) (hinge: 1)."""
    X, y = gaussian_problem(zero_rows=(3, 17))
    with np.errstate(all="raise"):
        est = SDCAClassifier(
            lmbd=0.05,
            loss=loss,
            gamma=gamma,
            shrinking=False,
            tol=1e-10,
            tol_gap="absolute",
            max_epochs=50_000,
            random_state=0,
            bias_multiplier=0.0,
        ).fit(X, y)
    assert est.converged_ and np.all(np.isfinite(est.coef_))
    assert_allclose(y[[3, 17]] * est.dual_coef_[[3, 17]], a_zero, rtol=0, atol=0)


def test_tol_zero_computes_no_gap(small, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a duality gap was computed with tol=0")

    monkeypatch.setattr(objectives, "duality_gap", forbidden)
    monkeypatch.setattr(objectives, "dual", forbidden)
    X, y = small
    for tol in (0, None):
        est = SDCAClassifier(lmbd=0.05, tol=tol, max_epochs=5, random_state=0).fit(X, y)
        assert est.n_epochs_ == 5 and np.isnan(est.duality_gap_)


def test_averaged_output_is_a_consistent_primal_dual_pair(small):
    """w is linear in α, so the mean of the w iterates must equal w(mean of the α iterates)."""
    X, y = small
    lmbd = 0.05
    est = SDCAClassifier(
        lmbd=lmbd, average=True, max_epochs=6, tol=1e-12, random_state=0, bias_multiplier=0.0
    )
    # tol > 0 certifies the returned pair; 6 epochs never reach 1e-12 and the fit says so
    with pytest.warns(ConvergenceWarning, match=r"\(last iterate; returned pair ") as record:
        est.fit(X, y)
    assert f"returned pair {est.duality_gap_:.3g})" in str(record[0].message)
    assert_allclose(
        est.coef_.ravel(),
        objectives.dual_weights(X, est.dual_coef_, lmbd)[:-1],
        rtol=0,
        atol=1e-12,
    )
    p = primal_reference(X, y, np.append(est.coef_.ravel(), 0), lmbd)
    assert est.duality_gap_ == pytest.approx(
        p - dual_reference(X, y, est.dual_coef_, lmbd), rel=1e-9
    )


# ------------------------------------------------------------------ 3. the NumPy twin
@pytest.mark.parametrize("bias", [0.0, 1.5])
@pytest.mark.parametrize("average", [False, True, "random"])
@pytest.mark.parametrize("sgd_init", [False, True])
@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize(("loss", "gamma"), [("hinge", 0.0), ("smooth_hinge", 0.7)])
def test_kernel_equals_numpy_twin(
    small, record_fit, loss, gamma, sampling, sgd_init, average, bias
):
    X, y = small
    lmbd = 0.03
    record = record_fit(SDCAClassifier)
    est = SDCAClassifier(
        lmbd=lmbd,
        loss=loss,
        gamma=gamma,
        sampling=sampling,
        sgd_init=sgd_init,
        average=average,
        avg_start=70,
        shrinking=False,
        max_epochs=3,
        tol=0,
        bias_multiplier=bias,
        random_state=11,
    ).fit(X, y)
    state = record.state
    assert len(record.indices) == 3
    w_ref, a_ref, w_last, a_last = sdca_reference(
        X,
        y,
        lmbd,
        record.indices,
        gamma=gamma,
        bias=bias,
        sgd_init=sgd_init,
        average=average,
        t0=state.params.t0,
        snap=state.params.snap,
    )
    assert_allclose(est.coef_.ravel(), w_ref[:-1], rtol=0, atol=1e-10)
    assert_allclose(est.intercept_[0], bias * w_ref[-1], rtol=0, atol=1e-10)
    assert_allclose(est.dual_coef_, a_ref, rtol=0, atol=1e-10)
    assert_allclose(state.sweep.w, w_last, rtol=0, atol=1e-10)
    assert_allclose(state.sweep.dual_coef, a_last, rtol=0, atol=1e-10)


@pytest.mark.parametrize("bias", [0.0, 1.5])
@pytest.mark.parametrize("average", [False, True, "random"])
@pytest.mark.parametrize(("dtype", "d"), [(np.float64, 700), (np.float32, 1100)])
def test_wide_rows_equal_numpy_twin(record_fit, dtype, d, average, bias):
    """Rows long enough for the fused sweep (w's update in the next block's pass)."""
    X, y = gaussian_problem(n=30, d=d, seed=2, dtype=dtype)
    assert (4 * X.itemsize + 8) * d > sdca_kernels._FUSE_MIN_BYTES
    lmbd = 0.05
    record = record_fit(SDCAClassifier)
    est = SDCAClassifier(
        lmbd=lmbd,
        loss="smooth_hinge",
        gamma=0.3,
        sampling="iid",  # repeated samples inside and across blocks
        average=average,
        avg_start=37,
        shrinking=False,
        max_epochs=3,
        tol=0,
        bias_multiplier=bias,
        random_state=4,
    ).fit(X, y)
    state = record.state
    w_ref, a_ref, w_last, a_last = sdca_reference(
        X.astype(np.float64), y, lmbd, record.indices, gamma=0.3, bias=bias,
        average=average, t0=state.params.t0, snap=state.params.snap,
    )  # fmt: skip
    assert_allclose(est.coef_.ravel(), w_ref[:-1], rtol=0, atol=1e-10)
    assert_allclose(est.dual_coef_, a_ref, rtol=0, atol=1e-10)
    assert_allclose(state.sweep.w, w_last, rtol=0, atol=1e-10)
    assert_allclose(state.sweep.dual_coef, a_last, rtol=0, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fused_and_two_pass_sweeps_make_the_same_steps(dtype):
    """The two block schedules are the same algorithm: same iterates to rounding (the only
    difference is whether w's update and the next block's scores share a pass)."""
    X, y = gaussian_problem(n=41, d=50, seed=5, dtype=dtype)  # 41: a tail of one sample
    n, d = X.shape
    sq = objectives.row_sq_norms(X, 1.5)
    indices = np.random.default_rng(0).integers(0, n, size=3 * n)  # repeats included
    out = []
    rows = kernel_rows(X, y.astype(np.float64), sq, None, 1.5)
    params = sdca_kernels.Params(0.02, 0.02 * n, HINGE, 1, 10, -1)
    for fused in (None, True):  # two-pass, fused
        w, alpha, grad, pg = np.zeros(d + 1), np.zeros(n), np.full(n, np.nan), np.empty(2)
        acc_w, acc_a = np.zeros(d + 1), np.zeros(n)
        sweep = sdca_kernels.Sweep(w, alpha, acc_w, acc_a, grad, pg)
        sdca_kernels._sweep_dense(rows, sweep, params, indices, 0, fused)
        out.append((w, alpha, grad, pg, acc_w, acc_a))
    for a, b in zip(*out, strict=True):
        assert_allclose(a, b, rtol=1e-12, atol=1e-13)
    with pytest.raises(ValueError, match=r"None \(two-pass\) or True"):  # False would be fused
        sdca_kernels._sweep_dense(rows, sweep, params, indices, 0, False)


def test_float32_data_gives_the_float64_iterates(small, record_fit):
    """float32 X is read as is (no copy) with float64 state: same iterates as the twin on the
    float32 values."""
    X, y = small
    X32 = X.astype(np.float32)
    record = record_fit(SDCAClassifier)
    est = SDCAClassifier(
        lmbd=0.03, shrinking=False, max_epochs=3, tol=0, random_state=2, bias_multiplier=0.0
    ).fit(X32, y)
    w_ref, a_ref, _, _ = sdca_reference(X32.astype(np.float64), y, 0.03, record.indices)
    assert est.coef_.dtype == np.float64
    assert_allclose(est.coef_.ravel(), w_ref[:-1], rtol=0, atol=1e-10)
    assert_allclose(est.dual_coef_, a_ref, rtol=0, atol=1e-10)


# ------------------------------------------------------------------ 4. determinism
@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize("average", [False, True, "random"])
def test_same_seed_same_bits(small, sampling, average):
    X, y = small

    def fit(seed):
        return SDCAClassifier(
            lmbd=0.03,
            sampling=sampling,
            average=average,
            shrinking=False,
            max_epochs=4,
            tol=0,
            random_state=seed,
        ).fit(X, y)

    a, b, c = fit(5), fit(5), fit(6)
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert not np.array_equal(a.coef_, c.coef_)


# Weighted fits with κ > 0 (their steps divide by c_i) in a fresh process: dense (both block
# sweeps, every output mode, shrinking) and CSR. Prints each fit's bits, then how many of
# the epoch kernels' signatures the fits call (sdca_epochs, shrinking_epochs: the epochs of a
# call, each calling sdca_epoch or shrunk_epoch inside) were compiled and how many loaded from
# the cache.
_FIT_IN_A_FRESH_PROCESS = textwrap.dedent(
    """
    import numpy as np
    import scipy.sparse as sp
    from sdca_pegasos.solvers import SDCAClassifier
    from sdca_pegasos.solvers.sdca.kernels import sdca_epochs
    from sdca_pegasos.solvers.sdca.shrinking import shrinking_epochs
    rng = np.random.default_rng(7)
    X = rng.standard_normal((240, 13))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(240) > 0, 1.0, -1.0)
    weights = np.random.default_rng(11).uniform(0.2, 2.0, 240)
    wide = np.random.default_rng(8).standard_normal((240, 900))  # the fused sweep
    fits = {
        "smooth": (X, {"loss": "smooth_hinge"}),
        "squared": (X, {"loss": "squared_hinge"}),
        "average": (X, {"loss": "smooth_hinge", "average": True}),
        "random": (X, {"loss": "smooth_hinge", "average": "random"}),
        "wide": (wide, {"loss": "smooth_hinge"}),
        "shrinking": (X, {"loss": "smooth_hinge", "shrinking": True, "finish": False}),
        "csr": (sp.csr_matrix(np.where(np.abs(X) < 0.7, 0.0, X)), {"loss": "smooth_hinge"}),
    }
    for name, (data, params) in fits.items():
        est = SDCAClassifier(lmbd=0.01, gamma=0.5, max_epochs=6, tol=0, random_state=3,
                             **{"shrinking": False, **params}).fit(data, y, sample_weight=weights)
        bits = np.concatenate([est.coef_.ravel(), est.intercept_, est.dual_coef_])
        print(name, bits.tobytes().hex())
    stats = [kernel.stats for kernel in (sdca_epochs, shrinking_epochs)]
    misses = sum(sum(s.cache_misses.values()) for s in stats)
    print("compiled", misses, "loaded", sum(sum(s.cache_hits.values()) for s in stats))
    """
)


@pytest.mark.slow
def test_same_bits_whether_compiled_or_cached(tmp_path):
    """Fits in a process that compiles the kernels and in one that loads them from Numba's
    cache give the same bits. Numba runs the copy of a called kernel that was loaded
    first, its own or the one linked into its caller, and these were optimised separately:
    under fast-math they rounded the weighted smoothed hinge's step differently (the last
    bit of α, from the first epoch on), until the steps were compiled without it."""
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(repo)}
    runs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-W", "error", "-c", _FIT_IN_A_FRESH_PROCESS],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(proc.stdout.splitlines())
    compiled, cached = runs
    signatures = 3  # sdca_epochs: dense, CSR; shrinking_epochs: dense
    assert compiled[-1] == f"compiled {signatures} loaded 0", compiled[-1]
    assert cached[-1] == f"compiled 0 loaded {signatures}", cached[-1]
    for line_compiled, line_cached in zip(compiled[:-1], cached[:-1], strict=True):
        name, bits = line_compiled.split()
        assert line_cached.split()[0] == name
        assert_array_equal(
            np.frombuffer(bytes.fromhex(line_cached.split()[1])),
            np.frombuffer(bytes.fromhex(bits)),
            err_msg=f"{name}: loaded from the cache vs compiled",
        )


def test_golden_index_sequence_for_seed_0(record_fit):
    """Pinned: an upgrade that changes NumPy's random stream must fail loudly here."""
    X, y = gaussian_problem(n=10, d=2)
    expected = {
        "permutation": [[4, 6, 2, 7, 3, 5, 9, 0, 8, 1], [2, 9, 3, 6, 0, 4, 8, 7, 5, 1]],
        "iid": [[8, 6, 5, 2, 3, 0, 0, 0, 1, 8], [6, 9, 5, 6, 9, 7, 6, 5, 5, 9]],
        "cyclic": [[4, 6, 2, 7, 3, 5, 9, 0, 8, 1], [4, 6, 2, 7, 3, 5, 9, 0, 8, 1]],
    }
    for sampling, indices in expected.items():
        record = record_fit(SDCAClassifier)
        SDCAClassifier(
            sampling=sampling, shrinking=False, max_epochs=2, tol=0, random_state=0
        ).fit(X, y)
        assert [list(i) for i in record.indices] == indices, sampling


# ------------------------------------------------------------------ 5. bad and odd input
@pytest.mark.parametrize(
    ("X", "y", "match"),
    [
        ([[np.nan, 1.0], [1.0, 2.0]], [0, 1], "NaN"),
        ([[np.inf, 1.0], [1.0, 2.0]], [0, 1], "infinity"),
        ([[1.0, 1.0], [1.0, 2.0]], [1, 1], "only one class"),
        (np.empty((0, 2)), [], "0 sample"),
        ([[1.0, 2.0], [3.0, 4.0]], [0, 1, 1], "inconsistent numbers of samples"),
        ([[1.0], [2.0]], [0.5, 1.5], "Unknown label type"),
    ],
)
def test_bad_data_raises_a_clear_error(X, y, match):
    with pytest.raises(ValueError, match=match):
        SDCAClassifier().fit(np.asarray(X, dtype=float) if len(X) else X, y)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"lmbd": 0.0}, "'lmbd' parameter"),
        ({"lmbd": -1.0}, "'lmbd' parameter"),
        ({"lmbd": np.nan}, "'lmbd' parameter"),
        ({"gamma": -0.1}, "'gamma' parameter"),
        ({"sampling": "shuffle"}, "'sampling' parameter"),
        ({"loss": "log"}, "'loss' parameter"),
        ({"max_epochs": 0}, "'max_epochs' parameter"),
        ({"tol": -1e-3}, "'tol' parameter"),
        ({"average": "median"}, "'average' parameter"),
        ({"bias_multiplier": -1.0}, "'bias_multiplier' parameter"),
    ],
)
def test_bad_parameters_raise_a_clear_error(small, params, match):
    with pytest.raises(ValueError, match=match):
        SDCAClassifier(**params).fit(*small)


def test_legitimate_odd_inputs_give_the_same_model(small):
    """int X, Fortran order, strided views, string labels, read-only: same answer as float64."""
    X, y = small
    Xi = np.round(X * 4)
    params = dict(lmbd=0.05, max_epochs=5, tol=0, random_state=0)
    ref = SDCAClassifier(**params).fit(Xi, y).coef_
    big = np.zeros((2 * X.shape[0], 2 * X.shape[1]))
    big[::2, ::2] = Xi
    ro = Xi.copy()
    ro.setflags(write=False)
    labels = np.where(y > 0, "spam", "ham")  # classes_ = [ham, spam]: spam is +1
    for variant, yy in [
        (Xi.astype(np.int64), y),
        (np.asfortranarray(Xi), y),
        (big[::2, ::2], y),
        (ro, y),
        (Xi, labels),
    ]:
        est = SDCAClassifier(**params).fit(variant, yy)
        assert_array_equal(est.coef_, ref)
    assert list(est.classes_) == ["ham", "spam"]
    assert set(est.predict(Xi)) <= {"ham", "spam"}


def test_float32_input_is_accepted_and_not_upcast_in_memory(small):
    X, y = small
    est = SDCAClassifier(lmbd=0.05, tol=1e-8, max_epochs=10_000, random_state=0)
    est.fit(X.astype(np.float32), y)
    assert est.converged_
    ref = SDCAClassifier(lmbd=0.05, tol=1e-8, max_epochs=10_000, random_state=0).fit(X, y)
    assert_allclose(est.coef_, ref.coef_, atol=1e-3)  # float32 rounding of X moves the optimum


# ------------------------------------------------------------------ timing contract
def test_callback_time_is_not_in_epoch_times(small):
    def busy(info):
        end = time.process_time() + 0.05
        while time.process_time() < end:
            pass

    est = SDCAClassifier(lmbd=0.05, max_epochs=4, tol=0, random_state=0, callback=busy)
    est.fit(*small)
    assert est.epoch_times_.shape == (4,)
    assert np.all(est.epoch_times_ >= 0) and est.epoch_times_.sum() < 0.05


@pytest.mark.parametrize(("tol", "max_epochs"), [(0.0, 4), (1e-6, 10_000)])
def test_setup_and_epoch_durations_lie_within_the_fits_own(small, tol, max_epochs):
    """``setup_time_``, ``setup_wall_time_``, ``epoch_times_`` and ``epoch_wall_times_`` are
    durations of disjoint parts of one fit: non-negative, and together at most the CPU and
    wall time the whole fit took, measured around it (the mutation survivors _base.py:659
    and :674 computed them as ``now / start`` or ``now + start``, about 1 or twice the
    clock's reading). The fit before warms the compiled kernels, so the measured one takes
    milliseconds."""
    est = SDCAClassifier(lmbd=0.05, max_epochs=max_epochs, tol=tol, random_state=0)
    est.fit(*small)
    cpu, wall = time.process_time(), time.perf_counter()
    est.fit(*small)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert cpu < 0.5 and wall < 0.5, "a warm fit of 60 samples takes milliseconds"
    for setup, epochs, total in [
        (est.setup_time_, est.epoch_times_, cpu),
        (est.setup_wall_time_, est.epoch_wall_times_, wall),
    ]:
        assert epochs.shape == (est.n_epochs_,) and est.n_epochs_ >= 1
        assert setup >= 0.0 and np.all(epochs >= 0.0)
        assert setup + epochs.sum() <= total


def test_no_compilation_inside_a_fit_after_warm_up(small):
    """Every kernel signature a fit needs exists before the fit: nothing compiles in a timer."""
    solvers.warm_up()
    kernels = [
        sdca_kernels.sdca_epochs,
        sdca_kernels.sgd_init_epoch,
        passes._row_sq_norms,
        sdca_shrinking.shrinking_epochs,
    ]
    before = [len(k.signatures) for k in kernels]
    X, y = small
    for dtype in (np.float64, np.float32):
        for writeable in (True, False):
            Xd = X.astype(dtype)
            Xd.setflags(write=writeable)
            for params in ({}, {"sgd_init": True}, {"average": True}, {"average": "random"}):
                SDCAClassifier(shrinking=False, max_epochs=2, tol=0, random_state=0, **params).fit(
                    Xd, y
                )
            for sampling in ("permutation", "cyclic", "iid"):  # epochs in one call, too
                SDCAClassifier(max_epochs=3, tol=0, random_state=0, sampling=sampling).fit(Xd, y)
    assert [len(k.signatures) for k in kernels] == before


# ------------------------------------------------------------------ 6. scikit-learn conventions
# tol=0: 50 epochs, no stopping test (sklearn's random data is never solved to a tol in 50)
@parametrize_with_checks(
    [
        SDCAClassifier(shrinking=False, tol=0, max_epochs=50, random_state=0),
        SDCAClassifier(
            shrinking=False,
            loss="squared_hinge",
            class_weight="balanced",
            bias_multiplier=1.0,
            tol=0,
            max_epochs=50,
            random_state=0,
        ),
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", ["SDCAClassifier", "PegasosClassifier"])
def test_a_callback_sees_the_samples_seen_so_far(small, cls):
    """``info.n_samples_seen`` after epoch e of an n-sample fit is e·n, and ``info.epoch``
    counts 1, 2, ...: SDCA counts its own steps, Pegasos takes the driver's count (the
    mutation survivor _base.py:703 gave ``e & n``)."""
    X, y = small
    seen = []
    # Pegasos has no gap, no tol; SDCA's shrinking would sweep fewer than n
    tol = {"tol": 0, "shrinking": False} if cls == "SDCAClassifier" else {}
    est = getattr(solvers, cls)(lmbd=0.05, max_epochs=5, random_state=0, **tol)
    est.set_params(callback=lambda info: seen.append((info.epoch, info.n_samples_seen)))
    est.fit(X, y)
    assert seen == [(e, e * X.shape[0]) for e in range(1, 6)]


def test_class_and_sample_weights_multiply(small):
    """With both, sample i weighs ``sample_weight[i] * class_weight[y_i]``: the same bits as
    passing that product as the sample weights (the mutation survivors _base.py:509 combined
    them with ``&`` or ``|``)."""
    X, y = small
    s = np.random.default_rng(1).uniform(0.5, 2.0, X.shape[0])
    params = dict(lmbd=0.05, max_epochs=5, tol=0, random_state=0)
    both = SDCAClassifier(class_weight={-1: 0.5, 1: 3.0}, **params).fit(X, y, sample_weight=s)
    product = SDCAClassifier(**params).fit(X, y, sample_weight=s * np.where(y > 0, 3.0, 0.5))
    assert_array_equal(both.coef_, product.coef_)
    assert not np.array_equal(both.coef_, SDCAClassifier(**params).fit(X, y, s).coef_)


def test_coef_shape_and_decision_function(small):
    X, y = small
    est = SDCAClassifier(lmbd=0.05, bias_multiplier=2.0, max_epochs=5, tol=0, random_state=0)
    est.fit(X, y)
    assert est.coef_.shape == (1, X.shape[1]) and est.intercept_.shape == (1,)
    assert_allclose(est.decision_function(X), X @ est.coef_.ravel() + est.intercept_[0])
    w = objectives.full_weights(est.coef_, est.intercept_[0], 2.0)
    assert_allclose(augment(X, 2.0) @ w, est.decision_function(X), rtol=1e-12)


def test_a_callback_reads_the_iterate_as_coef_and_intercept(small):
    """EpochInfo.coef and .intercept are the iterate's, with the bias multiplier: after the
    last epoch, the fitted coef_ and intercept_ (no averaging, tol = 0)."""
    last = {}

    def keep(info):
        last.update(coef=info.coef.copy(), intercept=info.intercept, w=info.w.copy())

    est = SDCAClassifier(lmbd=0.05, max_epochs=4, tol=0, bias_multiplier=2.5, callback=keep)
    est.fit(*small)
    assert last["intercept"] == 2.5 * last["w"][-1] != 0.0
    assert last["intercept"] == est.intercept_[0]
    assert np.array_equal(last["coef"], est.coef_[0]) and last["coef"].shape == (
        small[0].shape[1],
    )


def test_a_callback_returning_true_stops_the_fit(small):
    seen = []

    def budget(info):
        seen.append(info.epoch)
        return info.epoch == 3

    est = SDCAClassifier(lmbd=0.05, max_epochs=50, tol=0, random_state=0, callback=budget)
    est.fit(*small)
    assert seen == [1, 2, 3] and est.n_epochs_ == 3 and est.epoch_times_.shape == (3,)


def test_a_callback_returning_a_numpy_true_stops_the_fit(small):
    """A stop on a relative gap computed with NumPy numbers is a NumPy bool: it stops the
    fit as ``True`` does (it did not, while the driver tested ``stop is True``)."""
    answers = []

    def relative(info):
        primal, _, gap = info.bounds()  # every epoch's gap, on demand
        answers.append(np.float64(gap) <= 1e-2 * primal)  # a NumPy bool
        return answers[-1]

    est = SDCAClassifier(
        lmbd=0.05, shrinking=False, max_epochs=200, tol=1e-14, random_state=0, callback=relative
    )
    est.fit(*small)  # no ConvergenceWarning: the caller stopped it
    assert all(isinstance(a, np.bool_) for a in answers)
    assert 1 < est.n_epochs_ == len(answers) < 200 and answers[-1] and not any(answers[:-1])
    assert est.duality_gap_ <= 1e-2 * objectives.primal(
        small[0], np.where(small[1] == est.classes_[1], 1.0, -1.0), est.coef_.ravel(), 0.05
    )


@pytest.mark.parametrize("answer", [1, "stop", np.array([True])])
def test_a_callback_returning_anything_else_is_refused(small, answer):
    est = SDCAClassifier(lmbd=0.05, max_epochs=5, tol=0, callback=lambda info: answer)
    with pytest.raises(TypeError, match=r"return True .* to stop the fit, None or False"):
        est.fit(*small)


def test_monitor_equals_the_separate_functions(small):
    """One pass, every per-epoch number: equal to primal/dual/error_rate (float64 and 32)."""
    X, y = small
    est = SDCAClassifier(
        lmbd=0.05,
        loss="smooth_hinge",
        gamma=0.5,
        bias_multiplier=1.5,
        max_epochs=3,
        tol=0,
        random_state=0,
    ).fit(X, y)
    w = objectives.full_weights(est.coef_, est.intercept_[0], 1.5)
    for Xd in (X, X.astype(np.float32)):
        m = objectives.monitor(Xd, y, w, 0.05, 0.5, 1.5, est.dual_coef_)
        assert m["primal"] == pytest.approx(objectives.primal(Xd, y, w, 0.05, 0, 1.5), rel=1e-13)
        assert m["primal_smooth"] == pytest.approx(
            objectives.primal(Xd, y, w, 0.05, 0.5, 1.5), rel=1e-13
        )
        assert m["dual"] == pytest.approx(
            objectives.dual(Xd, y, est.dual_coef_, 0.05, 0.5, 1.5), rel=1e-13
        )
        assert m["gap"] == pytest.approx(m["primal_smooth"] - m["dual"], rel=1e-12)
        assert m["error"] == objectives.error_rate(Xd, y, w, 1.5)
    hinge_only = objectives.monitor(X, y, w, 0.05)
    assert np.isnan(hinge_only["dual"]) and np.isnan(hinge_only["primal_smooth"])


@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("sweep_name", ["blocks", "one by one"])
def test_each_sweep_equals_the_numpy_steps(storage, sweep_name):
    """Both sweeps of the kernel module, on both storages where they apply, make the exact
    coordinate steps of a NumPy loop. The one-by-one sweep on dense rows is the case in which
    Numba 0.68's IR inlining of the row-access layer gave wrong iterates."""
    if storage == "csr" and sweep_name == "blocks":
        pytest.skip("the blocked sweep reads dense rows only")
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    n, d, lmbd_n = 41, 13, 0.4
    X = rng.standard_normal((n, d))
    y = np.sign(rng.standard_normal(n))
    sq = (X * X).sum(axis=1) + 1.0
    rows = kernel_rows(sp.csr_matrix(X) if storage == "csr" else X, y, sq, None, 1.0)
    order = rng.integers(0, n, 203)
    w, a = np.zeros(d + 1), np.zeros(n)
    sweep = sdca_kernels.Sweep(w, a, np.zeros(1), np.zeros(1), None, np.zeros(2))
    params = sdca_kernels.Params(lmbd_n / n, lmbd_n, HINGE, 0, 0, -1)
    sdca_kernels.KERNEL_SWEEPS[sweep_name](rows, sweep, params, order, 0)
    w_ref, a_ref, Xb = np.zeros(d + 1), np.zeros(n), np.c_[X, np.ones(n)]
    for i in order:
        old = y[i] * a_ref[i]
        new = np.clip(old + (1.0 - y[i] * Xb[i] @ w_ref) / (sq[i] / lmbd_n), 0.0, 1.0)
        a_ref[i] = y[i] * new
        w_ref += y[i] * (new - old) / lmbd_n * Xb[i]
    assert_allclose(a, a_ref, rtol=0, atol=1e-12)
    assert_allclose(w, w_ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_csr_sweep_equals_the_generic_sweep_bit_for_bit(mode, dtype):
    """``sweep_csr`` (the CSR epoch's sweep, its arrays hoisted out of the loop) makes the
    same steps as the generic one-by-one sweep over the row-access layer, to the last bit:
    every output mode (last, averaged from t0, snapshot), sample weights, the shrinking
    gradient, a bias, float32 data and an epoch that starts mid-fit."""
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    n, d, lmbd_n = 60, 30, 0.7
    X = sp.random(n, d, density=0.2, random_state=3, format="csr", dtype=dtype)
    y = np.sign(rng.standard_normal(n))
    weights = rng.uniform(0.5, 2.0, n)
    sq = objectives.row_sq_norms(X, 0.8)
    rows = kernel_rows(X, y, sq, weights, 0.8)
    order = rng.integers(0, n, 300)
    params = sdca_kernels.Params(lmbd_n / n, lmbd_n, HINGE, mode, 150, 200)
    results = []
    for sweep_fn in (sdca_kernels.sweep_csr, sdca_kernels.sweep_samples):
        sweep = sdca_kernels.Sweep(
            np.zeros(d + 1), np.zeros(n), np.zeros(d + 1), np.zeros(n), np.zeros(n), np.zeros(2)
        )
        sweep_fn(rows, sweep, params, order, 100)
        results.append(sweep)
    for got, ref in zip(*results, strict=True):
        np.testing.assert_array_equal(got, ref)
    assert np.any(results[0].dual_coef != 0) and np.any(results[0].acc_w != 0) == (mode != 0)
