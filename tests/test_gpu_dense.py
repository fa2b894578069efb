"""The dense Newton engine on the GPU (``NewtonSVMClassifier(device="cuda")``), run in Numba's
CUDA simulator (``tests/__init__.py`` sets ``NUMBA_ENABLE_CUDASIM=1`` unless the environment
says otherwise: ``NUMBA_ENABLE_CUDASIM=0 pytest tests/test_gpu_dense.py`` runs it on a GPU).

Against the NumPy twin of the same algorithm (:class:`sdca_pegasos.solvers.gpu.newton.
NewtonEngine`: the pass's gradient and Hessian, then every iterate with the same line search),
against the CPU certificate, and against ``ExactSVMClassifier``'s certified optimum. The
simulator runs one Python thread per GPU thread: the problems are tiny.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos import solvers
from sdca_pegasos.solvers import ExactSVMClassifier
from sdca_pegasos.solvers.core import losses, objectives
from sdca_pegasos.solvers.driver.problem import Problem
from sdca_pegasos.solvers.gpu import newton_steps
from sdca_pegasos.solvers.gpu.newton import NewtonSVMClassifier
from sdca_pegasos.solvers.gpu.newton_steps import NewtonEngine, line_search, newton_direction

# the simulator's fixtures of the GPU suite (fast barriers, one shared array per block, no
# low-occupancy warnings on a GPU): autouse, so importing them applies them here too
from .test_gpu import (  # noqa: F401
    _fast_barriers,
    _one_shared_array_per_block,
    _small_grids_are_meant,
)

pytestmark = pytest.mark.skipif(not solvers.gpu.available(), reason="no GPU and no simulator")

SMOOTH = [("squared_hinge", 1.0), ("smooth_hinge", 0.5)]


def _problem(n=200, d=5, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(dtype)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) + 0.3 > 0, 1.0, -1.0)
    return X, y


def _engines(X, y, lmbd, loss, bias, weights=None):
    from sdca_pegasos.solvers.gpu.data import to_device
    from sdca_pegasos.solvers.gpu.newton_device import GPUNewtonEngine

    problem = Problem(X, y, lmbd, bias, weights, 1.0, 10)
    device = GPUNewtonEngine(problem, to_device(X), loss=loss)
    twin = NewtonEngine(problem, loss=loss)
    device.setup()
    twin.setup()
    return device, twin


def _rel(a, b):
    return float(np.max(np.abs(np.asarray(a) - b)) / np.max(np.abs(b)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("loss_name", "gamma"), SMOOTH)
def test_the_pass_gives_the_twins_gradient_and_hessian(loss_name, gamma, dtype):
    """One pass on the device: g and the generalised Hessian H equal the NumPy twin's to
    1e-12 relative (float32 X read as is, accumulated in float64), weights and intercept in,
    at a point where some margins are in each piece of the loss."""
    X, y = _problem(40, 3, seed=1, dtype=dtype)
    rng = np.random.default_rng(2)
    weights = rng.uniform(0.5, 1.5, 40)
    weights[3] = 0.0
    loss = losses.make_loss(loss_name, gamma)
    device, twin = _engines(X, y, 0.05, loss, 1.0, weights)
    w = 0.8 * rng.standard_normal(4)
    g, H = device.gradient_hessian(w)
    g_twin, H_twin, z_twin = twin.gradient_hessian(w)
    zs = y * z_twin
    assert np.any(zs >= 1.0) and np.any((zs < 1.0) & (zs > 1.0 - 0.5))  # flat and curved
    assert _rel(g, g_twin) <= 1e-12
    assert _rel(H, H_twin) <= 1e-12
    assert np.array_equal(H, H.T)
    assert _rel(device.z.copy_to_host(), z_twin) <= 1e-12


@pytest.mark.parametrize(("loss_name", "gamma"), SMOOTH)
def test_every_newton_iterate_equals_the_twins(loss_name, gamma):
    """The device's steps (direction, line search, update) equal the twin's, iterate by
    iterate and step size by step size, to 1e-10; P never increases; the certificate of a pair
    on demand (``check=False``, scratch arrays) is the check's to the bit."""
    X, y = _problem(60, 4, seed=3)
    loss = losses.make_loss(loss_name, gamma)
    device, twin = _engines(X, y, 1e-4, loss, 1.0)
    primal = np.inf
    for k in range(1, 6):
        before = twin.w.copy()
        device.step(k)
        twin.step(k)
        assert _rel(device.w, twin.w) <= 1e-10, k
        if np.linalg.norm(twin.w - before) > 1e-6 * np.linalg.norm(twin.w):
            # (once converged, s is rounding and so is the t along it: only w is compared)
            assert abs(device.steps[-1] - twin.steps[-1]) <= 1e-10 * max(1.0, twin.steps[-1])
        checked = device.certify(*device.current(), check=True)
        assert device.certify(*device.current(), check=False) == checked  # scratch: same bits
        p = objectives.primal(X, y, device.w, 1e-4, loss, 1.0)
        assert checked.dual <= p <= checked.primal
        assert p <= primal * (1 + 1e-14)
        primal = p


def test_the_line_search_finds_the_minimiser_of_a_piecewise_quadratic(monkeypatch):
    """On f(t) = λ/2‖w + ts‖² + (1/n)Σ φ(z_i + tδ_i) (squared hinge) the line search returns
    the t where f' = 0, and a t where f' < 0 when its evaluations run out."""
    loss = losses.make_loss("squared_hinge")
    rng = np.random.default_rng(4)
    n = 50
    z, delta = rng.standard_normal(n), rng.standard_normal(n)
    lmbd, ws, ss = 0.1, -5.0, 2.0
    gs = lmbd * ws - np.sum(loss.dual_targets(z) * delta) / n
    assert gs < 0

    def slope(t):
        u = z + t * delta
        return np.sum(loss.dual_targets(u) * delta), np.sum(loss.second_derivatives(u) * delta**2)

    t, evals = line_search(slope, gs, ws, ss, lmbd, n)
    assert evals >= 1 and t > 0
    assert abs(lmbd * (ws + t * ss) - slope(t)[0] / n) <= 1e-12 * -gs
    assert line_search(slope, 0.0, ws, ss, lmbd, n) == (0.0, 0)  # no descent: no step
    for evals in (1, 2, 3):  # out of evaluations: a t where f' < 0 (P lower than at 0), or 0
        monkeypatch.setattr(newton_steps, "LINE_SEARCH_EVALS", evals)
        t_short, _ = line_search(slope, gs, ws, ss, lmbd, n)
        assert 0 <= t_short <= t
        assert t_short == 0 or lmbd * (ws + t_short * ss) - slope(t_short)[0] / n < 1e-12 * -gs


def test_the_direction_solves_the_newton_system():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((6, 6))
    H, g = A @ A.T + 0.1 * np.eye(6), rng.standard_normal(6)
    np.testing.assert_allclose(H @ newton_direction(g, H), -g, rtol=0, atol=1e-12)


@pytest.mark.parametrize("lmbd", ["1/n", 1e-6])
@pytest.mark.parametrize("bias", [0.0, 1.0])
@pytest.mark.parametrize(("loss_name", "gamma"), SMOOTH)
def test_the_fit_certifies_the_exact_optimum(loss_name, gamma, bias, lmbd):
    """A tall problem (200 × 5): a handful of Newton steps certify a relative gap ≤ 1e-10 on
    the device, and P is ExactSVMClassifier's certified optimum to 1e-9 (relative)."""
    X, y = _problem()
    lmbd = 1.0 / X.shape[0] if lmbd == "1/n" else lmbd
    kw = dict(loss=loss_name, gamma=gamma, bias_multiplier=bias)
    est = NewtonSVMClassifier(lmbd, tol=1e-10, device="cuda", **kw).fit(X, y)
    exact = ExactSVMClassifier(lmbd, tol=1e-11, **kw).fit(X, y)
    assert est.converged_ and est.n_epochs_ <= 12
    assert est.rel_gap_ <= 1e-10 and est.duality_gap_ <= 1e-10 * abs(est.primal_)
    assert exact.dual_ <= est.primal_ and est.dual_ <= exact.primal_  # both certified bounds
    assert abs(est.primal_ - exact.primal_) <= 1e-9 * abs(exact.primal_)
    # the returned pair is (w, its implied dual), and the CPU's certificate agrees
    w = objectives.full_weights(est.coef_[0], est.intercept_[0], bias)
    loss = losses.make_loss(loss_name, gamma)
    alpha = objectives.implied_dual(X, y, w, loss, bias)
    np.testing.assert_allclose(est.dual_coef_, alpha, rtol=1e-12, atol=1e-12)
    cpu = objectives.certificate(X, y, w, est.dual_coef_, lmbd, loss, bias)
    assert cpu["dual"] <= est.primal_ and est.dual_ <= cpu["primal"]
    assert abs(cpu["primal"] - est.primal_) <= 1e-12 * abs(cpu["primal"])


def test_the_device_fit_equals_the_cpu_fit_weighted():
    """device='cuda' and device='cpu' (the twin) give the same model, sample and class weights
    in; a callback sees each step's certified bounds."""
    X, y = _problem(60, 3, seed=6, dtype=np.float32)
    weights = np.random.default_rng(7).uniform(0.5, 2.0, 60)
    seen = []

    def callback(info):
        seen.append((info.gap, info.primal, info.dual))

    kw = dict(loss="squared_hinge", class_weight={-1.0: 2.0}, max_iter=20)
    gpu = NewtonSVMClassifier(1e-3, device="cuda", callback=callback, **kw)
    gpu.fit(X, y, sample_weight=weights)
    cpu = NewtonSVMClassifier(1e-3, device="cpu", **kw).fit(X, y, sample_weight=weights)
    assert gpu.n_epochs_ == cpu.n_epochs_ and gpu.converged_ and cpu.converged_
    np.testing.assert_allclose(gpu.coef_, cpu.coef_, rtol=1e-10)
    np.testing.assert_allclose(gpu.step_sizes_[:2], cpu.step_sizes_[:2], rtol=1e-10)
    assert len(seen) == gpu.n_epochs_
    for gap, primal, dual in seen:
        assert gap == primal - dual and gap >= 0
    assert seen[-1][0] <= 1e-10 * seen[-1][1]


def test_another_solvers_point_is_certified_through_its_implied_dual():
    """certify_point: a w (here a perturbed optimum) gets the device's bounds of P(w) and of
    D(α(w)); the interval contains the CPU certificate's of the same pair."""
    from sdca_pegasos.solvers.gpu.data import to_device
    from sdca_pegasos.solvers.gpu.newton_device import GPUNewtonEngine

    X, y = _problem(50, 3, seed=8)
    loss = losses.make_loss("smooth_hinge", 1.0)
    problem = Problem(X, y, 0.02, 1.0, None, 1.0, 1)
    engine = GPUNewtonEngine(problem, to_device(X), loss=loss)
    engine.setup()
    w = np.array([0.3, -0.2, 0.5, 0.1])
    dev = engine.certify_point(w)
    alpha = objectives.implied_dual(X, y, w, loss, 1.0)
    cpu = objectives.certificate(X, y, w, alpha, 0.02, loss, 1.0)
    assert dev["dual"] <= cpu["dual"] + 1e-13 and cpu["primal"] <= dev["primal"] + 1e-13
    assert abs(dev["primal"] - cpu["primal"]) <= 1e-12 * abs(cpu["primal"])
    assert abs(dev["dual"] - cpu["dual"]) <= 1e-12 * abs(cpu["primal"])


def test_bad_input_is_refused_with_the_alternative():
    X, y = _problem(20, 3)
    with pytest.raises(ValueError, match=r"smooth loss.*SDCAClassifier\(device='cuda'\)"):
        NewtonSVMClassifier(loss="hinge", device="cuda").fit(X, y)
    with pytest.raises(TypeError, match=r"dense X only.*SDCAClassifier\(device='cuda'\)"):
        NewtonSVMClassifier(device="cuda").fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="gamma"):  # the sklearn way: _parameter_constraints
        NewtonSVMClassifier(loss="smooth_hinge", gamma=0.0).fit(X, y)
    with pytest.raises(ValueError, match="device"):
        NewtonSVMClassifier(device="gpu").fit(X, y)
    with pytest.raises(ValueError, match="tol"):
        NewtonSVMClassifier(tol=0.0).fit(X, y)


def test_a_fit_that_runs_out_of_steps_warns_naming_max_iter():
    X, y = _problem(40, 3)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        est = NewtonSVMClassifier(1e-6, loss="smooth_hinge", max_iter=1, device="cpu").fit(X, y)
    assert not est.converged_ and est.dual_ <= est.primal_


def test_one_vs_rest_on_the_cpu():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((90, 4))
    y = np.repeat([0, 1, 2], 30)
    X[y == 1] += 1.5
    X[y == 2] -= 1.5
    est = NewtonSVMClassifier(device="cpu").fit(X, y)
    assert est.coef_.shape == (3, 4) and np.all(est.converged_)
    assert np.all(est.rel_gap_ <= 1e-10)
    assert est.score(X, y) > 0.8
