"""The fused per-epoch pass (solvers.monitoring.EpochMetrics) against the separate functions
of solvers.objectives, bit for bit: the reports' columns must not move by one rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import make_loss
from sdca_pegasos.solvers.core.monitoring import EpochMetrics

LOSSES = {
    "hinge": make_loss("hinge"),
    "smooth": make_loss("smooth_hinge", 0.5),
    "squared": make_loss("squared_hinge"),
}


def bits(value: float) -> bytes:
    """The float64 bit pattern (a NaN of either kind reads as one pattern)."""
    value = float(value)
    return b"nan" if math.isnan(value) else np.float64(value).tobytes()


def problem(layout: str, weighted: bool, loss, seed: int = 3):
    """Train/test splits with odd sizes (vector loops' remainders), a few zero rows, and a
    feasible dual point with coordinates at 0 (negative labels: -0.0), inside and at the box."""
    rng = np.random.default_rng(seed)
    n, n_test, d = 203, 71, 37
    X = rng.standard_normal((n + n_test, d))
    X[rng.random(X.shape) < (0.7 if layout.startswith("csr") else 0.0)] = 0.0
    X[[5, 80]] = 0.0
    y = np.where(X @ rng.standard_normal(d) + rng.standard_normal(n + n_test) > 0, 1.0, -1.0)
    dtype = np.float32 if layout.endswith("32") else np.float64
    X = X.astype(dtype)
    if layout.startswith("csr"):
        X = sp.csr_matrix(X)
    c = rng.uniform(0.0, 2.0, n) if weighted else None
    if weighted:
        c[[1, 7, 8]] = 0.0
    upper = loss.box(c, n)  # c_i U (0 where c_i = 0; inf for the squared hinge)
    a = np.where(np.isfinite(upper), upper, 3.0) * rng.uniform(0.0, 1.0, n)
    a[rng.random(n) < 0.3] = 0.0
    bound = (rng.random(n) < 0.2) & np.isfinite(upper)
    a[bound] = upper[bound]
    w = rng.standard_normal(d + 1) * 0.3
    w_out = w + rng.standard_normal(d + 1) * 0.05
    return X[:n], y[:n], X[n:], y[n:], c, y[:n] * a, w, w_out


@pytest.mark.parametrize("layout", ["dense64", "dense32", "csr64", "csr32"])
@pytest.mark.parametrize("loss_name", list(LOSSES))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_fused_pass_equals_separate_functions_bit_for_bit(layout, loss_name, weighted, bias):
    loss = LOSSES[loss_name]
    X, y, X_test, y_test, c, alpha, w, w_out = problem(layout, weighted, loss)
    if bias == 0.0:
        w[-1] = w_out[-1] = 0.0
    lmbd = 0.01
    fused = EpochMetrics(X, y, lmbd, loss, bias, c, X_test, y_test)
    for current, dual_coef, output in [
        (w, alpha, w_out),  # an averaged output
        (w, alpha, w),  # the output is the iterate
        (w, None, w_out.copy()),  # a primal solver
        (np.zeros_like(w), np.zeros_like(alpha), np.zeros_like(w)),  # epoch 0: a = -0.0 too
    ]:
        got = fused(current, dual_coef, output)
        want = objectives.monitor(X, y, current, lmbd, loss, bias, dual_coef, c)
        assert {k: bits(got[k]) for k in want} == {k: bits(v) for k, v in want.items()}
        assert bits(got["test_error"]) == bits(
            objectives.error_rate(X_test, y_test, current, bias)
        )
        out = objectives.monitor(X, y, output, lmbd, loss, bias, sample_weight=c)
        assert bits(got["primal_output"]) == bits(out["primal"])
        assert bits(got["error_output"]) == bits(out["error"])
        test_out = objectives.error_rate(X_test, y_test, output, bias)
        assert bits(got["test_error_output"]) == bits(test_out)
        if dual_coef is not None:  # and the dual is the standalone function's, too
            assert bits(got["dual"]) == bits(objectives.dual(X, y, dual_coef, lmbd, loss, bias, c))


def test_fused_pass_numbers_are_the_definitions():
    """Not only equal to the other implementation: P, D and the errors by their formulas."""
    X, y, X_test, y_test, c, alpha, w, w_out = problem("dense64", True, LOSSES["smooth"])
    loss, lmbd, bias = LOSSES["smooth"], 0.05, 1.0
    got = EpochMetrics(X, y, lmbd, loss, bias, c, X_test, y_test)(w, alpha, w_out)
    z = y * (X @ w[:-1] + bias * w[-1])
    assert got["primal"] == pytest.approx(0.5 * lmbd * w @ w + np.mean(c * np.maximum(0, 1 - z)))
    assert got["primal_smooth"] == pytest.approx(0.5 * lmbd * w @ w + np.mean(loss.values(z, c)))
    a = alpha * y
    w_alpha = (alpha @ np.c_[X, np.full(len(y), bias)]) / (lmbd * len(y))
    dual_terms = np.where(c > 0, a - 0.5 * loss.kappa * a**2 / np.where(c > 0, c, 1), 0.0)
    assert got["dual"] == pytest.approx(np.mean(dual_terms) - 0.5 * lmbd * w_alpha @ w_alpha)
    assert got["dual"] <= got["primal_smooth"]  # weak duality of the smoothed problem
    assert got["error"] == np.mean(np.where(X @ w[:-1] + bias * w[-1] > 0, 1, -1) != y)
    scores = X_test @ w_out[:-1] + bias * w_out[-1]
    assert got["test_error_output"] == np.mean(np.where(scores > 0, 1, -1) != y_test)


def test_fused_pass_refuses_an_infeasible_dual_point_as_dual_does():
    X, y, _, _, _, alpha, w, _ = problem("dense64", False, LOSSES["hinge"])
    bad = alpha.copy()
    bad[4] = 1.5 * y[4]  # a = 1.5 > U = 1
    with pytest.raises(ValueError, match="dual point is infeasible") as fused_err:
        EpochMetrics(X, y, 0.1)(w, bad)
    with pytest.raises(ValueError, match="dual point is infeasible") as separate_err:
        objectives.dual(X, y, bad, 0.1)
    assert str(fused_err.value) == str(separate_err.value)


def test_fused_pass_without_test_split_and_bad_splits():
    X, y, X_test, y_test, *_ = problem("dense64", False, LOSSES["hinge"])
    got = EpochMetrics(X, y, 0.1)(np.zeros(X.shape[1] + 1))
    assert math.isnan(got["test_error"]) and math.isnan(got["test_error_output"])
    assert got["error"] == np.mean(y > 0)  # a zero score predicts the negative class
    with pytest.raises(ValueError, match="X_test has 36 features; the training split has 37"):
        EpochMetrics(X, y, 0.1, X_test=X_test[:, 1:], y_test=y_test)
    with pytest.raises(ValueError, match="X_test was given without y_test"):
        EpochMetrics(X, y, 0.1, X_test=X_test)
