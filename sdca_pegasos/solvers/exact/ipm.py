r"""Interior point and crossover of the exact engine (:mod:`sdca_pegasos.solvers.exact.engine`).

:func:`ipm_iterates` is Mehrotra's predictor-corrector method on the box QP, its linear algebra in
either representation of :mod:`sdca_pegasos.solvers.exact.qp` (so its iteration count does not
depend on the conditioning of H); :func:`crossover` turns one of its iterates into the vertex of
its face by a primal-dual active-set finish; :func:`implied_rel_gap` estimates an iterate's gap
from its gradient, O(n), before a certificate is paid for."""

from __future__ import annotations

import numpy as np

from sdca_pegasos.solvers.exact.cd import newton_step
from sdca_pegasos.solvers.exact.qp import Gram


def ipm_iterates(rep, max_iter=100):
    r"""Mehrotra's predictor-corrector interior-point method on the box QP; yields
    ``(a, z, s, mu, g)`` before each iteration (g = Ha - 1, the gradient at a).

    KKT system of :math:`\min \tfrac12 a^\top H a - 1^\top a`, :math:`0 \le a \le u`:
    :math:`Ha - 1 - z + s = 0`, :math:`a_i z_i = \mu`, :math:`(u_i - a_i) s_i = \mu` with
    :math:`z, s > 0` and :math:`\mu \to 0`; where :math:`u_i = \infty` (squared hinge) there
    is no upper bound and :math:`s_i = 0`. Each iteration solves with
    :math:`H + \mathrm{diag}(z/a + s/(u - a))` twice through one factorisation
    (``rep.barrier_solver``: dense Cholesky of n × n in Gram form, a (d + 1) × (d + 1) one
    through Woodbury's identity in primal form), so the iteration count does not depend on
    the conditioning of H. Start: a = u/2 (a = c where u = ∞) with z, s making the first
    point dual feasible; steps stop 0.5 % short of the boundary.
    """
    u = rep.upper
    bounded = np.isfinite(u)
    c = rep.qp.weights if rep.qp.weights is not None else np.ones(u.shape[0])
    a = np.where(bounded, 0.5 * np.where(bounded, u, 0.0), c)
    g = rep.hess_dot(a) - 1.0
    z = np.maximum(g, 0.0) + 1.0
    s = np.where(bounded, np.maximum(-g, 0.0) + 1.0, 0.0)
    m = u.shape[0] + int(bounded.sum())
    for _ in range(max_iter):
        t = np.where(bounded, u - a, 1.0)  # s = 0 where unbounded: every s/t term is 0
        mu = float(a @ z + t @ s) / m
        yield a, z, s, mu, g
        rd = g - z + s
        solve = rep.barrier_solver(z / a + s / t)
        if solve is None:
            return
        da, dz, ds = _ipm_direction(solve, a, t, z, s, rd, -a * z, -t * s)  # predictor
        step = _ipm_longest(a, t, z, s, da, dz, ds, bounded)
        mu_aff = ((a + step * da) @ (z + step * dz) + (t - step * da) @ (s + step * ds)) / m
        sigma = (mu_aff / mu) ** 3
        rs = np.where(bounded, sigma * mu - t * s + da * ds, 0.0)
        da, dz, ds = _ipm_direction(solve, a, t, z, s, rd, sigma * mu - a * z - da * dz, rs)
        step = 0.995 * _ipm_longest(a, t, z, s, da, dz, ds, bounded)  # corrector
        if step < 1e-10:
            return  # stalled (rounding): the crossover so far is the answer
        a = a + step * da
        z = z + step * dz
        s = s + step * ds
        if not (np.all(a > 0.0) and np.all(np.where(bounded, u - a, 1.0) > 0.0)):
            return  # a bound reached to rounding: no barrier left to follow
        g = rep.hess_dot(a) - 1.0


def _ipm_direction(solve, a, t, z, s, rd, rz, rs):
    """Newton direction (da, dz, ds) for the complementarity targets rz = a∘z, rs = t∘s."""
    da = solve(rz / a - rs / t - rd)
    return da, (rz - z * da) / a, (rs + s * da) / t


def _ipm_longest(a, t, z, s, da, dz, ds, bounded) -> float:
    """Longest step in [0, 1] that keeps a, z and, where bounded, t = u - a and s
    nonnegative."""
    step = 1.0
    for v, dv in ((a, da), (t[bounded], -da[bounded]), (z, dz), (s[bounded], ds[bounded])):
        neg = dv < 0.0
        if neg.any():
            step = min(step, float(np.min(-v[neg] / dv[neg])))
    return step


def crossover(rep, a, z, s, rounds: int = 30, exact_refinements: int = 2):
    """From an interior point to the vertex of its face: a primal-dual active-set finish.

    A variable is put at 0 when its barrier curvature z/a exceeds its curvature H_ii (and z > s),
    at u likewise with s/(u - a); the rest is free. In primal form (H_FF of rank ≤ d + 1 for the
    hinge, singular when |F| > d + 1 as with skin's duplicates) a few projected Newton steps
    (:func:`newton_step`) finish the face. In Gram form, on a partition, the free variables solve
    H_FF a_F = 1 - H_FB a_B (one factorisation, a Newton step and one refinement). Free variables
    that leave the box are put at the bound, bounded ones whose gradient pulls inward are freed
    (Hintermüller, Ito & Kunisch 2003), until the partition stands. The last ``exact_refinements``
    refinements use :meth:`sdca_pegasos.solvers.exact.qp.Representation.exact_gradient`
    (compensated, through X): the Gram products Q a carry ~1e-9 of cancellation error on raw crops,
    which alone would cost 1e-10 of relative gap. Returns a point of the box."""
    u = rep.upper
    hd = rep.hessian_diag()
    with np.errstate(divide="ignore", invalid="ignore"):
        at0 = (z > s) & (z > hd * a)
        at1 = np.isfinite(u) & (s > z) & (s > hd * (u - a))
    a = np.where(at0, 0.0, np.where(at1, u, a))
    rep.refresh(a)
    if not isinstance(rep, Gram):
        # primal form: H_FF has rank ≤ d + 1 (hinge), often below |F| (duplicates): the
        # projected Newton step with its minimum-norm direction and line search finishes
        for _ in range(5):
            decrease = newton_step(rep, a)
            rep.refresh(a)
            if decrease == 0.0:
                break
        return a
    solve, factored = None, None
    for _ in range(rounds):
        free = np.flatnonzero(~(at0 | at1))
        if free.size == 0:
            break
        (solve, _), factored = rep.free_solver(free), free
        for _ in range(2):
            step = -solve(rep.gradient(a)[free])
            a[free] += step
            rep.apply(free, step)
        g = rep.gradient(a)
        low, high = a[free] < 0.0, a[free] > u[free]
        enter0 = at0 & (g < -1e-12)
        enter1 = at1 & (g > 1e-12)
        if not (low.any() or high.any() or enter0.any() or enter1.any()):
            break
        at0[free[low]] = True
        at1[free[high]] = True
        at0 &= ~enter0
        at1 &= ~enter1
        a = np.clip(a, 0.0, u)
        rep.refresh(a)
    free = np.flatnonzero(~(at0 | at1))
    if free.size:
        if factored is None or not np.array_equal(free, factored):
            solve, _ = rep.free_solver(free)
        for _ in range(exact_refinements):
            a[free] -= solve(rep.exact_gradient(a)[free])
    a = np.clip(a, 0.0, u)
    rep.refresh(a)
    return a


def implied_rel_gap(rep, a: np.ndarray, g: np.ndarray) -> float:
    """(P - D)/|P| at a from its gradient g = Qa + κa/c - 1 alone, O(n): the margins are Qa.

    An estimate (Qa carries the representation's rounding); the certificate decides.
    """
    qp = rep.qp
    qa = g + 1.0 - rep.curv * a
    aqa = float(a @ qa)
    primal = 0.5 * aqa + float(qp.loss.values(qa, qp.weights).sum())
    dual = float(qp.loss.dual_terms(a, qp.weights).sum()) - 0.5 * aqa
    return (primal - dual) / abs(primal) if primal != 0.0 else np.inf
