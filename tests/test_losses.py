"""Each loss of solvers.losses against its definition: value, conjugate, derivative, the dual
coordinate step and the shrinking test, in the kernels' @njit form and the NumPy twins."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from numpy.testing import assert_allclose
from scipy.optimize import minimize_scalar

from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.core.losses import LOSSES, Loss, make_loss

ALL = {
    "hinge": make_loss("hinge"),
    "smooth_hinge(0.3)": make_loss("smooth_hinge", 0.3),
    "smooth_hinge(2)": make_loss("smooth_hinge", 2.0),
    "squared_hinge": make_loss("squared_hinge"),
}
Z = np.concatenate([np.linspace(-3.0, 3.0, 241), [1.0, 0.7, 1.0 - 1e-12, -2.0]])


def written_out(name: str, z: np.ndarray) -> np.ndarray:
    """Each loss as its own textbook formula (not the family's)."""
    u = 1.0 - z
    if name == "hinge":
        return np.maximum(0.0, u)
    if name == "squared_hinge":
        return np.maximum(0.0, u) ** 2
    gamma = 0.3 if "0.3" in name else 2.0
    return np.where(u <= 0, 0.0, np.where(u >= gamma, u - gamma / 2, u * u / (2 * gamma)))


@njit(cache=True)
def _njit_values(loss, z, a, c):
    """The kernels' functions, elementwise (for comparison with the NumPy twins)."""
    out = np.empty((5, z.shape[0]))
    for i in range(z.shape[0]):
        out[0, i] = losses.value(loss, z[i])
        out[1, i] = losses.dual_term(loss, a[i], c[i])
        out[2, i] = losses.dual_target(loss, z[i])
        out[3, i] = losses.upper_bound(loss, c[i])
        out[4, i] = losses.curvature(loss, 0.0, c[i])  # the conjugate's part of h alone
    return out


@pytest.mark.parametrize("name", list(ALL))
def test_value_is_the_textbook_loss(name):
    loss = ALL[name]
    assert_allclose(loss.values(Z), written_out(name, Z), rtol=1e-15, atol=1e-15)
    c = np.random.default_rng(0).uniform(0.0, 3.0, Z.shape[0])
    assert_allclose(loss.values(Z, c), c * written_out(name, Z), rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("name", list(ALL))
def test_njit_functions_equal_numpy_twins(name):
    loss = ALL[name]
    rng = np.random.default_rng(1)
    c = np.where(rng.random(Z.shape[0]) < 0.2, 0.0, rng.uniform(0.1, 3.0, Z.shape[0]))
    c[::7] = 1.0
    top = np.where(c > 0, c * min(loss.upper, 5.0), 0.0)
    a = rng.random(Z.shape[0]) * top
    value, term, target, upper, curv = _njit_values(loss, Z, a, c)
    assert_allclose(value, loss.values(Z), rtol=0, atol=0)
    assert_allclose(term, loss.dual_terms(a, c), rtol=1e-15, atol=1e-15)
    assert_allclose(target, loss.dual_targets(Z), rtol=1e-15, atol=0)
    assert_allclose(upper, loss.box(c), rtol=0, atol=0)
    assert_allclose(curv, loss.dual_curvatures(c), rtol=0, atol=0)
    assert_allclose(loss.dual_curvatures(None, 3), [loss.kappa] * 3, rtol=0, atol=0)


def test_hinge_is_the_hinge_loss_value():
    """losses.hinge (every training pass's hinge sum) is HINGE's value, bit for bit."""
    got = np.array([losses.hinge(z) for z in Z])
    assert_allclose(got, losses.HINGE.values(Z), rtol=0, atol=0)
    assert_allclose(got, written_out("hinge", Z), rtol=0, atol=0)


@pytest.mark.parametrize("name", list(ALL))
def test_project_clips_to_the_box(name):
    loss = ALL[name]
    rng = np.random.default_rng(2)
    a = rng.uniform(-2.0, 8.0, 50)
    c = np.where(rng.random(50) < 0.2, 0.0, rng.uniform(0.1, 3.0, 50))
    assert_allclose(loss.project(a), np.clip(a, 0.0, loss.upper), rtol=0, atol=0)
    assert_allclose(loss.project(a, c), np.clip(a, 0.0, loss.box(c)), rtol=0, atol=0)


@pytest.mark.parametrize("name", list(ALL))
@pytest.mark.parametrize("c", [1.0, 0.4, 2.5])
def test_dual_term_is_the_conjugate(name, c):
    """a - κa²/(2c) = inf_z (a z + c φ(z)) = -(cφ)*(-a) on the box [0, cU] (Fenchel)."""
    loss = ALL[name]
    top = c * min(loss.upper, 3.0)
    for a in np.linspace(0.0, top, 7):
        res = minimize_scalar(
            lambda z, a=a: a * z + c * written_out(name, np.array([z]))[0],
            bounds=(-20.0, 20.0),
            method="bounded",
            options={"xatol": 1e-12},
        )
        assert loss.dual_terms(np.array([a]), np.array([c]))[0] == pytest.approx(res.fun, abs=1e-7)


@pytest.mark.parametrize("name", ["smooth_hinge(0.3)", "smooth_hinge(2)", "squared_hinge"])
def test_dual_target_is_minus_the_derivative(name):
    loss = ALL[name]
    h = 1e-6
    z = Z[np.abs(Z - 1.0) > 1e-3]  # away from the kink of the smoothed hinge's ends
    numeric = -(written_out(name, z + h) - written_out(name, z - h)) / (2 * h)
    assert_allclose(loss.dual_targets(z), numeric, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["smooth_hinge(0.3)", "smooth_hinge(2)", "squared_hinge"])
def test_second_derivative_is_the_derivative_of_the_slope(name):
    """φ'' as the central difference of the textbook φ, away from its kinks (z = 1, and
    z = 1 - γ for the smoothed hinge), where the difference would straddle two pieces; at a
    kink itself, the one-sided value 0 on the side that is not curved."""
    loss = ALL[name]
    h = 1e-4
    kinks = np.array([1.0, 1.0 - loss.kappa * loss.upper])
    z = Z[np.min(np.abs(Z[:, None] - kinks[None, :]), axis=1) > 1e-3]
    numeric = written_out(name, z + h) - 2 * written_out(name, z) + written_out(name, z - h)
    assert_allclose(loss.second_derivatives(z), numeric / h**2, rtol=1e-4, atol=1e-4)
    assert loss.second_derivatives(np.array([1.0]))[0] == 0.0
    assert set(np.unique(loss.second_derivatives(Z))) == {0.0, 1.0 / loss.kappa}


def test_the_hinge_has_no_second_derivative():
    with pytest.raises(ValueError, match=r"no second derivative.*smooth_hinge or squared_hinge"):
        ALL["hinge"].second_derivatives(Z)


@njit(cache=True)
def _step(loss, a, g, h, c):
    return losses.coordinate_step(loss, a, g, h, c)


@pytest.mark.parametrize("name", list(ALL))
def test_coordinate_step_is_the_exact_minimiser_over_the_box(name):
    """argmin over [0, cU] of g (b - a) + h/2 (b - a)², brute force on a fine grid."""
    loss = ALL[name]
    rng = np.random.default_rng(3)
    for _ in range(200):
        c = rng.choice([0.0, 1.0, rng.uniform(0.1, 3.0)])
        top = c * min(loss.upper, 10.0)
        a = rng.uniform(0.0, top) if top > 0 else 0.0
        g, q = rng.normal(scale=2.0), rng.choice([0.0, rng.uniform(0.01, 5.0)])
        h = q + (loss.kappa / c if c > 0 else 0.0)  # the curvature a kernel passes
        b = _step(loss, a, g, h, c)
        if c == 0.0:
            assert b == 0.0
            continue
        assert 0.0 <= b <= c * loss.upper
        grid = np.linspace(0.0, top, 20001)
        f = g * (grid - a) + 0.5 * h * (grid - a) ** 2
        best = grid[np.argmin(f)]
        f_b = g * (b - a) + 0.5 * h * (b - a) ** 2
        assert f_b <= f.min() + 1e-9, (name, a, g, h, c, b, best)


@njit(cache=True)
def _shrink(loss, a, g, hi, lo, c):
    return losses.stays_active(loss, a, g, hi, lo, c), losses.projected_gradient(loss, a, g, c)


@pytest.mark.parametrize("name", list(ALL))
def test_shrinking_test_and_projected_gradient(name):
    loss = ALL[name]
    # inside the box: always stays, the projected gradient is the gradient
    assert _shrink(loss, 0.5, 7.0, 1.0, -1.0, 1.0) == (True, 7.0)
    # at 0 pushed out beyond the previous pass's largest PG: leaves; pulled in: stays
    assert _shrink(loss, 0.0, 2.0, 1.0, -1.0, 1.0) == (False, 0.0)
    assert _shrink(loss, 0.0, -0.5, 1.0, -1.0, 1.0) == (True, -0.5)
    assert _shrink(loss, 0.0, np.nan, 1.0, -1.0, 1.0)[0]  # unknown gradient: stays
    if math.isinf(loss.upper):  # no upper bound: a large a is inside
        assert _shrink(loss, 1e6, -3.0, 1.0, -1.0, 1.0) == (True, -3.0)
    else:
        assert _shrink(loss, 2.0, -3.0, 1.0, -1.0, 2.0) == (False, 0.0)  # at cU = 2
        assert _shrink(loss, 2.0, 0.4, 1.0, -1.0, 2.0) == (True, 0.4)
    # a weight of 0 fixes a = 0: never active, no KKT residual
    assert _shrink(loss, 0.0, -5.0, 1.0, -1.0, 0.0) == (False, 0.0)


def test_make_loss_spellings():
    assert make_loss("hinge") == make_loss(0.0) == Loss(0.0, 1.0)
    assert make_loss(0.5) == make_loss("smooth_hinge", 0.5) == Loss(0.5, 1.0)
    assert make_loss("squared_hinge") == Loss(0.5, math.inf)
    assert {LOSSES[name]().name for name in LOSSES} == set(LOSSES)
    with pytest.raises(ValueError, match="unknown loss 'logistic'"):
        make_loss("logistic")
    with pytest.raises(ValueError, match="gamma must be >= 0"):
        make_loss(-1.0)
