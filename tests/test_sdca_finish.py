"""The exact finish of SDCA with shrinking (``finish=True``): the engine's optimum, the same
bits for the same seed, weights of zero, and the epochs it saves."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

from sdca_pegasos.solvers import SDCAClassifier
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.exact.engine import solve_exact
from sdca_pegasos.solvers.sdca import finish as finish_module
from sdca_pegasos.solvers.sklearn_checks import expected_failed_checks
from tests.conftest import gaussian_problem

TOL = 1e-10


def fit(X, y, finish=True, **params):
    params = {"lmbd": 1.0 / X.shape[0], "tol": TOL, "max_epochs": 100_000, **params}
    return SDCAClassifier(shrinking=True, finish=finish, random_state=0, **params).fit(X, y)


def near_duplicates(n=600, d=8, seed=3):
    """Groups of ten near-copies of a row, labels of a noisy rule: many free coordinates
    coupled the way blood PCA-40's are (the finish's case)."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n // 10, d))
    X = np.repeat(base, 10, axis=0) + 1e-3 * rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("bias", [0.0, 1.0])
@pytest.mark.parametrize(
    ("loss", "gamma"), [("hinge", 1.0), ("smooth_hinge", 0.5), ("squared_hinge", 1.0)]
)
def test_finish_reaches_the_exact_engines_optimum(loss, gamma, bias, sparse, monkeypatch):
    """Both certify; λ-strong convexity then bounds ‖w − w*‖ ≤ √(2 gap / λ) for each. The
    finish must have run (else this tests plain shrinking): its limit is raised to every
    active set here (the smoothed losses keep more samples free than 64)."""
    monkeypatch.setattr(finish_module, "LIMIT", 600)
    X, y = near_duplicates()
    lmbd = 1.0 / X.shape[0]
    ours = fit(sp.csr_matrix(X) if sparse else X, y, loss=loss, gamma=gamma, bias_multiplier=bias)
    assert ours.converged_ and ours.duality_gap_ <= TOL
    assert ours.n_finishes_ > 0
    ref = solve_exact(X, y, lmbd, loss=loss, gamma=gamma if loss == "smooth_hinge" else None,
                      bias=bias, tol=1e-13)  # fmt: skip
    w = objectives.full_weights(ours.coef_, ours.intercept_[0], bias)
    radius = np.sqrt(2 * TOL / lmbd) + np.sqrt(2 * ref.primal * 1e-13 / lmbd)
    assert np.linalg.norm(w - ref.w) <= radius
    # the pair returned is the finish's or a later sweep's: w is w(α), its certificate exact
    loss_obj = ours.loss_function
    cert = objectives.certificate(X, y, w, ours.dual_coef_, lmbd, loss_obj, bias)
    assert cert["dual"] <= ref.primal + 1e-12 and ref.dual <= cert["primal"] + 1e-12


@pytest.mark.parametrize("sgd_init", [False, True])
@pytest.mark.parametrize("sampling", ["permutation", "iid", "cyclic"])
def test_finish_under_every_sampling_reaches_the_optimum(sampling, sgd_init):
    """The finish sits in front of every shrunk epoch whatever orders its passes (a fresh
    permutation, i.i.d. draws that forget gradients, the cyclic order) and after an SGD
    first epoch: the fit certifies the exact engine's optimum and the finish ran."""
    X, y = near_duplicates(seed=4)
    lmbd = 1.0 / X.shape[0]
    ours = fit(X, y, sampling=sampling, sgd_init=sgd_init, bias_multiplier=0.0)
    assert ours.converged_ and ours.duality_gap_ <= TOL and ours.n_finishes_ > 0
    ref = solve_exact(X, y, lmbd, tol=1e-13)
    assert np.linalg.norm(ours.coef_.ravel() - ref.w[:-1]) <= np.sqrt(2 * TOL / lmbd) + 1e-6


def test_finish_with_weights_of_zero_and_class_weight():
    """Samples of weight 0 are outside the engine's QP: their α stays 0, and the optimum is
    the weighted problem's."""
    X, y = near_duplicates(seed=5)
    rng = np.random.default_rng(0)
    weights = rng.uniform(0.5, 2.0, X.shape[0])
    weights[::7] = 0.0
    lmbd = 1.0 / X.shape[0]
    ours = SDCAClassifier(lmbd, shrinking=True, finish=True, tol=TOL, max_epochs=100_000,
                          random_state=0, class_weight={-1: 2.0, 1: 1.0})  # fmt: skip
    ours.fit(X, y, sample_weight=weights)
    assert ours.converged_ and ours.n_finishes_ > 0
    assert np.all(ours.dual_coef_[::7] == 0.0)
    c = weights * np.where(y < 0, 2.0, 1.0)
    ref = solve_exact(X, y, lmbd, bias=1.0, sample_weight=c, tol=1e-13)
    w = objectives.full_weights(ours.coef_, ours.intercept_[0], 1.0)
    assert np.linalg.norm(w - ref.w) <= np.sqrt(2 * TOL / lmbd) + 1e-6


def test_finish_gives_the_same_bits_for_the_same_seed():
    X, y = near_duplicates()
    a, b = fit(X, y), fit(X, y)
    assert a.n_finishes_ > 0
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert a.n_epochs_ == b.n_epochs_


def test_finish_saves_epochs_on_near_duplicates():
    """Epoch counts, not times (deterministic): the finish solves the coupled free
    coordinates at once where coordinate ascent moves them one at a time."""
    X, y = near_duplicates()
    with_finish, without = fit(X, y), fit(X, y, finish=False)
    assert with_finish.converged_ and without.converged_
    assert with_finish.n_epochs_ < 0.5 * without.n_epochs_


def _kkt_residual(G, b, a, u):
    """The box QP's projected gradient (0 for a variable whose box is [0, 0])."""
    g = G @ a + b
    pg = np.where(a <= 0.0, np.minimum(g, 0.0), np.where(a >= u, np.maximum(g, 0.0), g))
    return np.abs(np.where(u > 0.0, pg, 0.0))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rank", [3, 12])
def test_box_qp_meets_the_kkt_conditions_on_degenerate_faces(rank, seed):
    """G = MᵀM of rank 3 (more free variables than the rank: rays in the null space) or
    full rank 12, with a few zero boxes: the returned point is feasible and its projected
    gradient vanishes (for a convex QP, the optimality certificate), and no random
    feasible point is lower."""
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((rank, 12))
    G, b = M.T @ M, rng.standard_normal(12)
    u = rng.uniform(0.5, 2.0, 12)
    u[:2] = 0.0
    a0 = rng.uniform(0.0, 1.0, 12) * u
    a, iterations, converged = finish_module.box_qp(G, b, a0, u)
    assert converged and iterations > 0
    assert np.all((a >= 0.0) & (a <= u))
    assert _kkt_residual(G, b, a, u).max() <= 1e-9
    f = 0.5 * a @ G @ a + b @ a
    for _ in range(200):
        z = rng.uniform(0.0, 1.0, 12) * u
        assert f <= 0.5 * z @ G @ z + b @ z + 1e-12


def test_each_finish_solves_its_block_and_comes_once_a_phase(monkeypatch):
    """Planted around the finish: every block it solves has at most LIMIT samples, its
    solution meets the block QP's KKT conditions, and no two finishes come without a full
    pass between them (once per shrinking phase)."""
    calls = []
    real_box_qp = finish_module.box_qp
    real_call = finish_module.BlockFinish.__call__

    def box_qp(G, b, a, u, **kw):
        out = real_box_qp(G, b, a, u, **kw)
        calls.append(("solve", G.shape[0], _kkt_residual(G, b, out[0], u).max()))
        return out

    def call(self, state):
        if int(state.active.size[0]) == self.problem.n_samples:
            calls.append(("full",))
        return real_call(self, state)

    monkeypatch.setattr(finish_module, "box_qp", box_qp)
    monkeypatch.setattr(finish_module.BlockFinish, "__call__", call)
    X, y = near_duplicates()
    est = fit(X, y)
    solves = [c for c in calls if c[0] == "solve"]
    assert len(solves) == est.n_finishes_ >= 1
    assert all(0 < m <= finish_module.LIMIT and kkt <= 1e-9 for _, m, kkt in solves)
    kinds = [c[0] for c in calls]
    assert all(not (x == y == "solve") for x, y in itertools.pairwise(kinds))


def test_one_vs_rest_counts_finishes_per_class():
    rng = np.random.default_rng(8)
    X = np.repeat(rng.standard_normal((40, 4)), 6, axis=0) + 1e-3 * rng.standard_normal((240, 4))
    y = np.argmax(X @ rng.standard_normal((4, 3)), axis=1)
    est = fit(X, y)
    assert est.n_finishes_.shape == (3,) and np.all(est.converged_)
    assert np.all(est.n_finishes_ > 0)


def test_finish_without_shrinking_is_refused():
    X, y = gaussian_problem()
    with pytest.raises(ValueError, match="finish=True needs shrinking=True"):
        SDCAClassifier(shrinking=False, finish=True).fit(X, y)


@parametrize_with_checks(
    [SDCAClassifier(shrinking=True, finish=True, tol=0, max_epochs=50, random_state=0)],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
