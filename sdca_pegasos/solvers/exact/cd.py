r"""Coordinate descent and Newton finishes of the exact engine
(:mod:`sdca_pegasos.solvers.exact.engine`).

The kernels sweep the box QP :math:`\min_a f(a)` of :mod:`sdca_pegasos.solvers.exact.engine` one
coordinate at a time (dual coordinate descent with shrinking, Hsieh et al., ICML 2008; liblinear):
in the primal representation (:func:`cd_sweep_primal`, one source for dense and CSR rows through
the row-access layer of :mod:`sdca_pegasos.solvers.core.rows`) or the Gram representation
(:func:`cd_sweep_gram`). :func:`newton_step` is the projected Newton step on the free set
(Bertsekas 1982) that finishes a stage once the sweeps have found the partition; the
representations (:mod:`sdca_pegasos.solvers.exact.qp`) give it the gradient and the Newton
direction."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.core.rows import (
    FASTMATH,
    ROW_AHEAD,
    CSRRows,
    prefetch,
    prefetch_row,
    row_axpy,
    row_dot,
    weight_of,
)


def _prefetch_row_start(rows, i):
    """Ask the CPU for where CSR row ``i`` starts (``indptr[i]``), so that a later
    :func:`sdca_pegasos.solvers.core.rows.prefetch_row` of it does not wait; nothing for dense
    rows."""


@overload(_prefetch_row_start, inline="always")
def _prefetch_row_start_impl(rows, i):
    if getattr(rows, "instance_class", None) is CSRRows:
        return lambda rows, i: prefetch(rows.indptr, i)
    return lambda rows, i: None


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _cd_step(loss, ai, g, h, c, pg_hi, pg_lo, hi, lo):
    """One shrinking coordinate step on a_i (gradient g, curvature h, weight c): returns ``(keep,
    hi, lo, new a_i)`` by liblinear's rule (:func:`sdca_pegasos.solvers.core.losses.stays_active`)
    and the exact coordinate minimum (:func:`sdca_pegasos.solvers.core.losses.coordinate_step`),
    with the sweep's running max ``hi`` and min ``lo`` of the projected gradient updated when a_i
    is kept; a dropped or stationary variable keeps a_i."""
    if not losses.stays_active(loss, ai, g, pg_hi, pg_lo, c):
        return False, hi, lo, ai
    pg = losses.projected_gradient(loss, ai, g, c)
    hi, lo = max(hi, pg), min(lo, pg)
    if pg == 0.0:
        return True, hi, lo, ai
    return True, hi, lo, losses.coordinate_step(loss, ai, g, h, c)


@njit(cache=True, fastmath=FASTMATH)
def cd_sweep_primal(rows, w, a, order, inv_lmbd_n, loss, pg_hi, pg_lo, keep):
    """One shrinking CD sweep over ``order`` in the primal representation, in place.

    One source, two specialisations (the row-access layer of
    :mod:`sdca_pegasos.solvers.core.rows`): a step costs O(d) on dense rows, O(nnz of the row) on
    CSR rows. The rows come in a random order, so the row ``ROW_AHEAD`` samples ahead (and its a_i)
    is requested while the current one is computed.

    Parameters
    ----------
    rows : solvers._kernels.DenseRows or solvers._kernels.CSRRows
        X (n, d) float32/float64, y ±1, ‖x̃_i‖², sample weights (or None), B.
    w : (d + 1,) float64, w̃(a) ; a : (n,) float64 in the box [0, c_i U]
    order : (m,) int64, the active samples in sweep order
    inv_lmbd_n : 1/(λn) ; loss : solvers.losses.Loss
    pg_hi, pg_lo : the previous sweep's max / min projected gradient (shrinking thresholds)
    keep : (m,) bool, out: False for the samples shrunk in this sweep

    Returns
    -------
    (max, min) projected gradient over the samples kept.
    """
    y, bias = rows.y, rows.bias
    d = w.shape[0] - 1
    m = order.shape[0]
    hi = -np.inf
    lo = np.inf
    for j in range(m):
        if j + ROW_AHEAD < m:
            r = order[j + ROW_AHEAD]
            prefetch_row(rows, r)
            prefetch(a, r)
            if j + 2 * ROW_AHEAD < m:
                _prefetch_row_start(rows, order[j + 2 * ROW_AHEAD])
        i = order[j]
        s = row_dot(rows, i, w, bias * w[d])  # x̃_i · w̃
        ai = a[i]
        c = weight_of(rows.weights, i)
        g = losses.gradient(loss, y[i] * s, ai, c)
        h = losses.curvature(loss, rows.sq_norms[i] * inv_lmbd_n, c)
        keep[j], hi, lo, new = _cd_step(loss, ai, g, h, c, pg_hi, pg_lo, hi, lo)
        delta = new - ai  # 0 for a sample shrunk away
        if delta != 0.0:
            a[i] = new
            c = delta * y[i] * inv_lmbd_n
            row_axpy(rows, i, c, w)
            w[d] += c * bias
    return hi, lo


@njit(cache=True, fastmath=FASTMATH)
def cd_sweep_gram(Q, a, qa, order, loss, weights, pg_hi, pg_lo, keep):
    """One shrinking CD sweep over ``order`` in the Gram representation, in place.

    Q : (n, n) float64, y_i y_j x̃_i·x̃_j/(λn) ; a : (n,) float64 ; qa : (n,) float64, Q a
    (kept exact up to rounding for every sample, shrunk or not) ; weights : (n,) or None.
    Other arguments and the return value as :func:`cd_sweep_primal`.
    """
    n = Q.shape[0]
    hi = -np.inf
    lo = np.inf
    for j in range(order.shape[0]):
        i = order[j]
        ai = a[i]
        c = weight_of(weights, i)
        g = losses.gradient(loss, qa[i], ai, c)
        h = losses.curvature(loss, Q[i, i], c)
        keep[j], hi, lo, new = _cd_step(loss, ai, g, h, c, pg_hi, pg_lo, hi, lo)
        delta = new - ai  # 0 for a sample shrunk away
        if delta != 0.0:
            a[i] = new
            qi = Q[i]
            for k in range(n):
                qa[k] += delta * qi[k]
    return hi, lo


def projected_gradient(g: np.ndarray, a: np.ndarray, u: np.ndarray) -> np.ndarray:
    """KKT residual of the box QP: the gradient with its outward part at the bounds removed."""
    return np.where(a <= 0.0, np.minimum(g, 0.0), np.where(a >= u, np.maximum(g, 0.0), g))


def newton_step(rep, a) -> float:
    """One projected Newton step (Bertsekas 1982) on ``a``, in place.

    Variables at a bound whose gradient pushes them outward stay fixed; on the others
    (free, or at a bound but pulled inward) the step solves H_FF Δ = -G_F. The trial point
    is the projection of a + tΔ onto the box, t = 1, 1/2, 1/4, ..., accepted at the first
    exact decrease f(a + s) - f(a) = G_Fᵀs + ½ sᵀH_FF s < 0. Returns the decrease (0.0 when
    no step lowers f: the partition is then left to the sweeps).
    """
    u = rep.upper
    g_all = rep.gradient(a)
    fixed = ((a <= 0.0) & (g_all >= 0.0)) | ((a >= u) & (g_all <= 0.0))
    free = np.flatnonzero(~fixed)
    if free.size == 0:
        return 0.0
    g = g_all[free]
    delta, H = rep.newton(free, g)
    if not np.any(delta):
        return 0.0
    a_f, u_f = a[free], u[free]
    t = 1.0
    for _ in range(30):
        new = np.clip(a_f + t * delta, 0.0, u_f)
        s = new - a_f
        decrease = float(g @ s + 0.5 * s @ H(s))
        if decrease < 0.0:
            a[free] = new
            rep.apply(free, s)
            return decrease
        t *= 0.5
    return 0.0


def newton_stage(rep, a, budget_left) -> tuple[int, bool]:
    """Projected Newton steps on ``a`` (in place, ``rep`` refreshed after each) while they
    lower f, at most 20, until one lowers it by less than 1e-12 of the first (rounding
    level) or ``budget_left()`` is False.

    Returns ``(steps, cut)``: ``cut`` is whether the KKT residual (the largest projected
    gradient) fell at least tenfold. A stage that does not cut it has the partition still
    far from right (as on near-duplicate raw crops at small λ, where each step costs a
    large factorisation): the callers then leave the time to the sweeps.
    """
    kkt = np.abs(projected_gradient(rep.gradient(a), a, rep.upper)).max()
    first = 0.0
    steps = 0
    for _ in range(20):
        if not budget_left():
            break
        decrease = newton_step(rep, a)
        if decrease == 0.0:
            break
        steps += 1
        rep.refresh(a)
        first = min(first, decrease)
        if decrease > 1e-12 * first:
            break
    residual = np.abs(projected_gradient(rep.gradient(a), a, rep.upper)).max()
    return steps, not residual > 0.1 * kkt
