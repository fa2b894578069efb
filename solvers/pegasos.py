r"""Pegasos: primal estimated sub-gradient solver for the linear SVM (Shalev-Shwartz et al. 2011).

Minimises the hinge primal :math:`P(\tilde w)` of :mod:`solvers.objectives` by stochastic
sub-gradient steps (seeds/001 algorithms 3–4, seeds/002). Iteration :math:`t = 1, 2, \dots`
(counted across epochs) takes a batch :math:`A_t` of :math:`|A_t| \le k` samples and, with every
margin taken at the current iterate :math:`\tilde w^{(t-1)}`,

.. math::

    A_t^+ = \{i \in A_t : y_i \tilde x_i^\top \tilde w^{(t-1)} < 1\}, \qquad
    \tilde w^{(t)} = (1 - \eta_t\lambda)\,\tilde w^{(t-1)}
        + \frac{\eta_t}{|A_t|}\sum_{i \in A_t^+} y_i \tilde x_i,

from :math:`\tilde w^{(0)} = 0`, with :math:`\eta_t = 1/(\lambda t)` (Pegasos) or
:math:`\eta_t = 2/(\lambda(t+1))` (Lacoste-Julien, Schmidt & Bach 2012, seeds/002). The step
divides by the actual batch size, so the last, smaller batch of an epoch takes the mean
sub-gradient of its samples. With ``projection`` the iterate is then scaled onto the ball
:math:`\|\tilde w\| \le 1/\sqrt\lambda`, which holds the optimum; :math:`\tilde w` includes the
bias weight :math:`w_b` (the ball is that of the full vector, as the regulariser is).

Bias (seeds/003, VLFeat): with ``bias_multiplier`` :math:`B > 0` every sample gets a constant
feature :math:`B`, :math:`\tilde x_i = (x_i, B)`, and the intercept is :math:`B w_b`.

Output: the last iterate :math:`\tilde w^{(T)}`; the uniform average of
:math:`\tilde w^{(t)}, T_0 \le t \le T`; or the weighted average
:math:`\sum_{t \ge T_0} t\,\tilde w^{(t)} / \sum_{t \ge T_0} t`, which for :math:`T_0 = 1` is
:math:`\frac{2}{T(T+1)}\sum_{t=1}^T t\,\tilde w^{(t)}`. Here :math:`\tilde w^{(t)}` is the
iterate *after* :math:`t` iterations, so the final iterate gets the largest weight
:math:`T`. (Lacoste-Julien et al. weight the point at which step :math:`t` evaluates its
sub-gradient, :math:`\tilde w^{(t-1)}`, by :math:`t`. Their proof bounds the expected
weighted sum of suboptimalities of :math:`T+1` steps by :math:`(T+1)G^2/\lambda`, with
:math:`G = 2R` bounding the sub-gradients; ours drops the first point and lowers every other
weight by one, so, suboptimalities being non-negative, our average is within
:math:`2G^2/(\lambda T) = 8R^2/(\lambda T)` in expectation, against their
:math:`8R^2/(\lambda(T+1))`.)

Efficient implementation
------------------------
*Scaled iterate.* The shrink :math:`(1 - \eta_t\lambda)` would cost :math:`O(d)` per
iteration. The kernels keep :math:`\tilde w = s\,v` with a scalar :math:`s`: the shrink is
:math:`s \leftarrow (1 - \eta_t\lambda)s`, a sample :math:`i \in A_t^+` adds
:math:`\eta_t y_i/(|A_t| s)\,\tilde x_i` to :math:`v`, and the projection is
:math:`s \leftarrow 1/(\sqrt\lambda\|v\|)` when :math:`\lambda s^2\|v\|^2 > 1`. At
:math:`t = 1` the factor is 0: the kernel sets :math:`v \leftarrow 0, s \leftarrow 1` (one
:math:`O(d)` reset). :math:`s` decays like :math:`1/t` (Pegasos step) or :math:`2/t^2`
(weighted step), and with ``projection`` at small :math:`\lambda` by orders of magnitude per
iteration: while the step :math:`\eta_t\|\tilde x\| \approx \|\tilde x\|/(\lambda t)` is far
outside the ball (:math:`t \ll \|\tilde x\|/\sqrt\lambda`), each projection divides :math:`s`
by about :math:`\|\tilde x\|/(\sqrt\lambda\,t)`. When :math:`s` drops below ``_S_MIN`` = 1e-2,
:math:`v \leftarrow s v, s \leftarrow 1` (and the running sum below is folded into :math:`U`).
The test follows every iteration: a block of four (below) that leaves :math:`s` under the
threshold is undone (its scalars only: :math:`v` is not yet touched) and replayed one sample
at a time. So :math:`s \ge` ``_S_MIN`` before every iteration, :math:`\|v\| = \|\tilde
w\|/s` stays within two orders of magnitude (and one step) of the iterate it represents,
nothing overflows or underflows whatever the run length, and the running :math:`\|v\|^2`
below, whose increments are relative to :math:`\|v\|^2`, is recomputed exactly at least that
often. It costs one or two :math:`O(d)` passes each time :math:`s` decays a hundredfold:
:math:`\log_{100} T` of them with the Pegasos step, :math:`\log_{10} T` with the weighted
one, and, while projections shrink :math:`s` that fast, at most one per iteration, which
then moves a sample anyway (:math:`O(d)`).

*Squared norm for the projection.* With one sample, :math:`\|v + c\tilde x\|^2 = \|v\|^2 +
2c\,\tilde x^\top v + c^2\|\tilde x\|^2` uses the margin's dot product and the squared row
norms precomputed in ``_setup`` (timed). With :math:`k > 1`, :math:`\|v\|^2` is recomputed
once per batch (:math:`O(d/k)` per sample). It is recomputed exactly at every
renormalisation, which stops the drift of the running value.

*Lazy averaging.* The weighted sum of iterates is kept as :math:`S = U + \sigma v`
(:math:`U` a vector, :math:`\sigma` a scalar). Adding the current iterate with weight
:math:`\rho` is :math:`\sigma \mathrel{+}= \rho s`; a change :math:`v \mathrel{+}= \delta`
is compensated by :math:`U \mathrel{-}= \sigma\delta` (one more axpy with the same rows); the
:math:`t = 1` reset first does :math:`U \mathrel{+}= \sigma v`; a renormalisation first folds
:math:`U \leftarrow U + \sigma v, \sigma \leftarrow 0`. Averaging therefore costs
:math:`O(d)` per *moved* sample, not per iteration, and nothing before :math:`T_0` (where
:math:`\sigma = U = 0`). Between two renormalisations :math:`U` and :math:`\sigma v` both
grow like :math:`\sum_\tau \rho_\tau (s_\tau / s_t)\|\tilde w\|` and cancel in part, which
costs a factor :math:`\max_\tau s_\tau/s_t \le 1/` ``_S_MIN`` of relative precision (about
1e-14; the twin tests compare to 1e-10). Without the fold that ratio is unbounded: with
projection at :math:`\lambda = 1/n` on a standardised 1000×10 problem :math:`s` falls by
~1e42 in the first hundred iterations, and an average that included them (``"weighted"``, or
``avg_start`` 0) came out with a primal objective of ~1e42 (issue 12). A threshold of 1e-6
(the earlier one) with the fold still loses ~1e-10 at :math:`\lambda = 10^{-6}`.

*Memory streams.* With :math:`k = 1` consecutive iterations are taken four at a time: one
pass over the four rows computes :math:`\tilde x_b^\top v` and the pairwise products
:math:`\tilde x_b^\top\tilde x_c`; the four iterations then run one after the other on
scalars, each score corrected by the earlier updates of the block
(:math:`\tilde x_b^\top v_{\text{after}\,c} = \tilde x_b^\top v + \sum_{c<b} c_c\,\tilde x_b^\top
\tilde x_c`; shrinks and projections only change :math:`s`), and :math:`v` gets one combined
update. This is the same sequential algorithm (equal up to rounding) with four memory
streams in flight instead of one, as in :func:`solvers.sdca._sdca_epoch`. With
:math:`k > 1` the batch's margins are independent dot products with the same :math:`v`,
computed four rows per pass, and the rows of :math:`A_t^+` are added four per pass.

*Sparse input.* For a CSR matrix the driver calls ``_pegasos_single_epoch_csr`` /
``_pegasos_batch_epoch_csr`` on ``(data, indices, indptr)``: the same iterations, one sample at
a time (no blocks of four: rows share few columns, so there is no memory stream to overlap),
each touching only the row's stored entries, so a step costs :math:`O(\mathrm{nnz}(x_i))` with
the scaled iterate and the lazy average above; the :math:`O(d)` passes are the :math:`t = 1`
reset and the renormalisations. With :math:`k > 1` and ``projection``, :math:`\|v\|^2` is
updated row by row as in the single-sample case (:math:`\|v + c\tilde x\|^2 = \|v\|^2 +
2c\,\tilde x^\top v + c^2\|\tilde x\|^2`, each row's dot product and norm taken in the pass
that adds it) instead of recomputed per batch. Same index arrays, same iterates as the dense
kernels up to rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral
from typing import NamedTuple

import numpy as np
from numba import njit
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from . import objectives
from ._base import BaseLinearSVM, Problem, canonical
from ._device import DEVICE_CONSTRAINT, DeviceMixin
from ._kernels import FASTMATH, _csr_dot, gram4, weight_of
from ._sampling import DEPRECATED_SAMPLINGS, distinct_batches, resolve_sampling

# Output modes shared by the kernels.
_LAST, _UNIFORM, _WEIGHTED = 0, 1, 2

#: Renormalise w = s·v (v ← s·v, s ← 1, U ← U + σv, σ ← 0) when s falls below this: it
#: bounds the precision lost by the lazy average to a factor 1/_S_MIN (module docstring).
_S_MIN = 1e-2

#: Pegasos' orders, in the vocabulary of every solver (:mod:`solvers._sampling`).
SAMPLINGS = ("iid", "permutation")


class Iterate(NamedTuple):
    """What a Pegasos epoch updates in place (the kernels' state, one argument).

    Attributes
    ----------
    v : ndarray of shape (n_features + 1,), float64
        The unscaled iterate (w̃ = s·v).
    acc : ndarray of shape (n_features + 1,), float64
        The average's U (unused without averaging; full length all the same, so that a NaN
        σ from a non-finite input can never write past its end).
    scal : ndarray of shape (3,), float64
        ``[s, ‖v‖², σ]``.
    score_buf, coef_buf : ndarray of shape (batch_size,), float64
    row_buf : ndarray of shape (batch_size,), int64
        Scratch space of the mini-batch kernels.
    """

    v: np.ndarray
    acc: np.ndarray
    scal: np.ndarray
    score_buf: np.ndarray
    coef_buf: np.ndarray
    row_buf: np.ndarray


class Params(NamedTuple):
    """The scalars of a Pegasos fit, as the kernels take them.

    Attributes
    ----------
    lmbd : float
    weighted : bool
        Step 2/(λ(t+1)) instead of 1/(λt).
    projection : bool
    mode : int
        0 last iterate, 1 uniform average, 2 weighted (ρ_t = t).
    t0 : int
        T_0, the first averaged iterate.
    s_min : float
        Renormalisation threshold of s.
    batch_size : int
        k.
    """

    lmbd: float
    weighted: bool
    projection: bool
    mode: int
    t0: int
    s_min: float
    batch_size: int


@njit(cache=True, fastmath=FASTMATH)
def _step(t, weighted, lmbd):
    """Shrink factor 1 − η_t λ and step η_t of iteration t ≥ 1 (factor 0 at t = 1)."""
    if weighted:
        return (t - 1.0) / (t + 1.0), 2.0 / (lmbd * (t + 1.0))
    return (t - 1.0) / t, 1.0 / (lmbd * t)


@njit(cache=True, fastmath=FASTMATH)
def _rho(t, mode, t0):
    """Weight of the iterate after t iterations in the running sum (0 before t0)."""
    if mode == 0 or t < t0:
        return 0.0
    return 1.0 if mode == 1 else float(t)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _one_sample(margin, p, yi, ci, qi, t, s, vn2, sigma, params):
    """Scalar part of single-sample iteration t.

    ``margin`` = y_i x̃_iᵀw before the step; ``p`` = x̃_iᵀv for the v the update is added to;
    ``ci`` the sample's weight; ``qi`` = ‖x̃_i‖². Returns ``(c, u, s, vn2, sigma)``: the
    caller must add ``c x̃_i`` to v and ``u x̃_i`` to the average's U.
    """
    lmbd, projection = params.lmbd, params.projection
    f, eta = _step(t, params.weighted, lmbd)
    if t > 1:  # at t = 1 the caller has reset v (factor 0) and s = 1
        s = s * f
    c = 0.0
    if margin < 1.0:
        c = eta * yi * ci / s
        if projection:
            vn2 += 2.0 * c * p + c * c * qi
    u = -sigma * c
    if projection and lmbd * s * s * vn2 > 1.0:
        s = 1.0 / math.sqrt(lmbd * vn2)
    sigma += _rho(t, params.mode, params.t0) * s
    return c, u, s, vn2, sigma


@njit(cache=True, fastmath=FASTMATH)
def _renormalise(v, acc, s, sigma, projection):
    """Fold the running sum into U (U ← U + σv, σ ← 0), then v ← s v, s ← 1.

    Returns ``(s, ‖v‖², σ)`` = ``(1, ‖v‖², 0)`` with ‖v‖² exact (0 without projection).
    ``acc`` is only touched when σ ≠ 0.
    """
    vn2 = 0.0
    for k in range(v.shape[0]):
        if sigma != 0.0:
            acc[k] += sigma * v[k]
        v[k] *= s
        vn2 += v[k] * v[k]
    return 1.0, vn2 if projection else 0.0, 0.0


@njit(cache=True, fastmath=FASTMATH)
def _reset(v, acc, sigma):
    """t = 1: discard the starting iterate (factor 0) keeping S = U + σv; v ← 0.

    ``acc`` is only touched when σ ≠ 0.
    """
    if sigma != 0.0:
        for k in range(v.shape[0]):
            acc[k] += sigma * v[k]
    for k in range(v.shape[0]):
        v[k] = 0.0


@njit(cache=True, fastmath=FASTMATH)
def _pegasos_single_epoch(rows, it, params, indices, t_start):
    """One epoch of single-sample Pegasos over ``indices``, in place (w = s·v).

    Iterations are taken four at a time (see the module docstring); iteration 1 of a fit
    and the epoch's tail run one at a time.

    Parameters
    ----------
    rows : solvers._kernels.DenseRows
        X (n, d) float32/float64, y, ‖x̃_i‖² (read only with projection; may be empty),
        sample weights (or None), B.
    it : Iterate
        Updated in place.
    params : Params
    indices : (m,) int64, one sample per iteration, in order
    t_start : int, iterations done before this epoch
    """
    X, y, sq_norms, bias = rows.X, rows.y, rows.sq_norms, rows.bias
    v, acc, scal = it.v, it.acc, it.scal
    projection, s_min = params.projection, params.s_min
    d = X.shape[1]
    m = indices.shape[0]
    b2 = bias * bias
    s, vn2, sigma = scal[0], scal[1], scal[2]
    single = 0  # iterations to run one at a time (an undone block)
    j = 0
    while j < m:
        t = t_start + j + 1
        if t > 1 and m - j >= 4 and single == 0:
            s_in, vn2_in, sigma_in = s, vn2, sigma
            i0, i1, i2, i3 = indices[j], indices[j + 1], indices[j + 2], indices[j + 3]
            r0, r1, r2, r3 = X[i0], X[i1], X[i2], X[i3]
            g0, g1, g2, g3, h10, h20, h21, h30, h31, h32 = gram4(r0, r1, r2, r3, v)
            vb = bias * v[d]
            q0 = q1 = q2 = q3 = 0.0
            if projection:
                q0, q1, q2, q3 = sq_norms[i0], sq_norms[i1], sq_norms[i2], sq_norms[i3]
            y0, y1, y2, y3 = y[i0], y[i1], y[i2], y[i3]
            w0, w1 = weight_of(rows.weights, i0), weight_of(rows.weights, i1)
            w2, w3 = weight_of(rows.weights, i2), weight_of(rows.weights, i3)

            p = g0 + vb
            c0, u0, s, vn2, sigma = _one_sample(
                y0 * s * p, p, y0, w0, q0, t, s, vn2, sigma, params
            )
            p = g1 + vb + c0 * (h10 + b2)
            c1, u1, s, vn2, sigma = _one_sample(
                y1 * s * p, p, y1, w1, q1, t + 1, s, vn2, sigma, params
            )
            p = g2 + vb + c0 * (h20 + b2) + c1 * (h21 + b2)
            c2, u2, s, vn2, sigma = _one_sample(
                y2 * s * p, p, y2, w2, q2, t + 2, s, vn2, sigma, params
            )
            p = g3 + vb + c0 * (h30 + b2) + c1 * (h31 + b2) + c2 * (h32 + b2)
            c3, u3, s, vn2, sigma = _one_sample(
                y3 * s * p, p, y3, w3, q3, t + 3, s, vn2, sigma, params
            )
            if s < s_min:  # s crossed the threshold inside the block: undo (scalars only),
                s, vn2, sigma = s_in, vn2_in, sigma_in  # then one at a time, checking s
                single = 4
                continue

            if c0 != 0.0 or c1 != 0.0 or c2 != 0.0 or c3 != 0.0:
                for k in range(d):
                    v[k] += c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
                v[d] += (c0 + c1 + c2 + c3) * bias
                if u0 != 0.0 or u1 != 0.0 or u2 != 0.0 or u3 != 0.0:
                    for k in range(d):
                        acc[k] += u0 * r0[k] + u1 * r1[k] + u2 * r2[k] + u3 * r3[k]
                    acc[d] += (u0 + u1 + u2 + u3) * bias
            j += 4
        else:  # one sample: the first iteration of a fit, the epoch's tail, an undone block
            single = max(single - 1, 0)
            i = indices[j]
            xi = X[i]
            p = bias * v[d]
            for k in range(d):
                p += xi[k] * v[k]
            margin = y[i] * s * p
            if t == 1:  # factor 0: w^(1) does not depend on w^(0)
                _reset(v, acc, sigma)
                s, vn2, p = 1.0, 0.0, 0.0
            qi = sq_norms[i] if projection else 0.0
            c, u, s, vn2, sigma = _one_sample(
                margin, p, y[i], weight_of(rows.weights, i), qi, t, s, vn2, sigma, params
            )
            if c != 0.0:
                for k in range(d):
                    v[k] += c * xi[k]
                v[d] += c * bias
                if u != 0.0:
                    for k in range(d):
                        acc[k] += u * xi[k]
                    acc[d] += u * bias
            j += 1
        if s < s_min:
            s, vn2, sigma = _renormalise(v, acc, s, sigma, projection)
    scal[0], scal[1], scal[2] = s, vn2, sigma


@njit(cache=True, fastmath=FASTMATH)
def _batch_scores(X, v, bias, indices, start, size, out):
    """out[b] = x̃_iᵀv for i = indices[start + b], b < size, four rows per pass."""
    d = X.shape[1]
    vb = bias * v[d]
    b = 0
    while b + 4 <= size:
        r0, r1 = X[indices[start + b]], X[indices[start + b + 1]]
        r2, r3 = X[indices[start + b + 2]], X[indices[start + b + 3]]
        g0 = g1 = g2 = g3 = 0.0
        for k in range(d):
            vk = v[k]
            g0 += r0[k] * vk
            g1 += r1[k] * vk
            g2 += r2[k] * vk
            g3 += r3[k] * vk
        out[b], out[b + 1], out[b + 2], out[b + 3] = g0 + vb, g1 + vb, g2 + vb, g3 + vb
        b += 4
    while b < size:
        xi = X[indices[start + b]]
        g = 0.0
        for k in range(d):
            g += xi[k] * v[k]
        out[b] = g + vb
        b += 1


@njit(cache=True, fastmath=FASTMATH)
def _add_rows(X, v, acc, sigma, bias, rows, coef, count):
    """v += Σ_b coef[b] x̃_{rows[b]} and, when σ ≠ 0, U −= σ · (the same), four rows per pass."""
    d = X.shape[1]
    total = 0.0
    b = 0
    while b < count:
        if count - b >= 4:
            r0, r1, r2, r3 = X[rows[b]], X[rows[b + 1]], X[rows[b + 2]], X[rows[b + 3]]
            c0, c1, c2, c3 = coef[b], coef[b + 1], coef[b + 2], coef[b + 3]
            if sigma != 0.0:
                for k in range(d):
                    dk = c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
                    v[k] += dk
                    acc[k] -= sigma * dk
            else:
                for k in range(d):
                    v[k] += c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
            total += c0 + c1 + c2 + c3
            b += 4
        else:
            xi = X[rows[b]]
            c = coef[b]
            if sigma != 0.0:
                for k in range(d):
                    dk = c * xi[k]
                    v[k] += dk
                    acc[k] -= sigma * dk
            else:
                for k in range(d):
                    v[k] += c * xi[k]
            total += c
            b += 1
    v[d] += total * bias
    if sigma != 0.0:
        acc[d] -= sigma * total * bias


@njit(cache=True, fastmath=FASTMATH)
def _pegasos_batch_epoch(rows, it, params, indices, t_start):
    """One epoch of mini-batch Pegasos over ``indices``, in place (w = s·v).

    ``indices`` is read as consecutive batches of ``params.batch_size`` (the last one
    smaller when the batch size does not divide its length). Arguments as in
    :func:`_pegasos_single_epoch`.
    """
    X, y, bias = rows.X, rows.y, rows.bias
    v, acc, scal = it.v, it.acc, it.scal
    lmbd, projection, s_min = params.lmbd, params.projection, params.s_min
    m = indices.shape[0]
    s, vn2, sigma = scal[0], scal[1], scal[2]
    t = t_start
    j = 0
    while j < m:
        size = min(params.batch_size, m - j)
        t += 1
        _batch_scores(X, v, bias, indices, j, size, it.score_buf)  # all at w^(t-1)
        f, eta = _step(t, params.weighted, lmbd)
        s_before = s
        if t == 1:  # factor 0: w^(1) does not depend on w^(0)
            _reset(v, acc, sigma)
            s, f = 1.0, 1.0
        s *= f
        scale = eta / (size * s)
        count = 0
        for b in range(size):
            i = indices[j + b]
            if y[i] * s_before * it.score_buf[b] < 1.0:
                it.row_buf[count] = i
                it.coef_buf[count] = scale * y[i] * weight_of(rows.weights, i)
                count += 1
        _add_rows(X, v, acc, sigma, bias, it.row_buf, it.coef_buf, count)
        if projection:
            vn2 = 0.0
            for k in range(v.shape[0]):
                vn2 += v[k] * v[k]
            if lmbd * s * s * vn2 > 1.0:
                s = 1.0 / math.sqrt(lmbd * vn2)
        sigma += _rho(t, params.mode, params.t0) * s
        if s < s_min:
            s, vn2, sigma = _renormalise(v, acc, s, sigma, projection)
        j += size
    scal[0], scal[1], scal[2] = s, vn2, sigma


@njit(cache=True, fastmath=FASTMATH)
def _row_axpy(data, cols, lo, hi, c, v):
    """v[cols[p]] += c data[p] over lo <= p < hi."""
    for p in range(lo, hi):
        v[cols[p]] += c * np.float64(data[p])


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _row_dot(rows, i, v):
    """x_iᵀv[:d] of CSR row i (:func:`solvers._kernels._csr_dot`)."""
    return _csr_dot(
        rows.data, rows.cols, np.uint64(rows.indptr[i]), np.uint64(rows.indptr[i + 1]), v
    )


@njit(cache=True, fastmath=FASTMATH)
def _pegasos_single_epoch_csr(rows, it, params, indices, t_start):
    """CSR twin of :func:`_pegasos_single_epoch`: one sample at a time, O(nnz) per step.

    ``rows`` is a :class:`solvers._kernels.CSRRows`. Other arguments as in
    :func:`_pegasos_single_epoch`.
    """
    data, cols, indptr, y, bias = rows.data, rows.cols, rows.indptr, rows.y, rows.bias
    v, acc, scal = it.v, it.acc, it.scal
    projection, s_min = params.projection, params.s_min
    d = v.shape[0] - 1
    m = indices.shape[0]
    s, vn2, sigma = scal[0], scal[1], scal[2]
    for j in range(m):
        t = t_start + j + 1
        i = indices[j]
        lo, hi = indptr[i], indptr[i + 1]
        p = bias * v[d] + _row_dot(rows, i, v)
        margin = y[i] * s * p
        if t == 1:  # factor 0: w^(1) does not depend on w^(0)
            _reset(v, acc, sigma)
            s, vn2, p = 1.0, 0.0, 0.0
        qi = rows.sq_norms[i] if projection else 0.0
        c, u, s, vn2, sigma = _one_sample(
            margin, p, y[i], weight_of(rows.weights, i), qi, t, s, vn2, sigma, params
        )
        if c != 0.0:
            _row_axpy(data, cols, lo, hi, c, v)
            v[d] += c * bias
            if u != 0.0:
                _row_axpy(data, cols, lo, hi, u, acc)
                acc[d] += u * bias
        if s < s_min:
            s, vn2, sigma = _renormalise(v, acc, s, sigma, projection)
    scal[0], scal[1], scal[2] = s, vn2, sigma


@njit(cache=True, fastmath=FASTMATH)
def _pegasos_batch_epoch_csr(rows, it, params, indices, t_start):
    """CSR twin of :func:`_pegasos_batch_epoch`, O(nnz) per sample (‖v‖² kept row by row).

    Arguments as in :func:`_pegasos_single_epoch_csr`.
    """
    data, cols, indptr, y, bias = rows.data, rows.cols, rows.indptr, rows.y, rows.bias
    v, acc, scal = it.v, it.acc, it.scal
    lmbd, projection, s_min = params.lmbd, params.projection, params.s_min
    d = v.shape[0] - 1
    m = indices.shape[0]
    b2 = bias * bias
    s, vn2, sigma = scal[0], scal[1], scal[2]
    t = t_start
    j = 0
    while j < m:
        size = min(params.batch_size, m - j)
        t += 1
        vb = bias * v[d]
        for b in range(size):  # all at w^(t-1)
            it.score_buf[b] = _row_dot(rows, indices[j + b], v) + vb
        f, eta = _step(t, params.weighted, lmbd)
        s_before = s
        if t == 1:  # factor 0: w^(1) does not depend on w^(0)
            _reset(v, acc, sigma)
            s, f, vn2 = 1.0, 1.0, 0.0
        s *= f
        scale = eta / (size * s)
        for b in range(size):
            i = indices[j + b]
            if y[i] * s_before * it.score_buf[b] < 1.0:
                lo, hi = indptr[i], indptr[i + 1]
                c = scale * y[i] * weight_of(rows.weights, i)
                if projection:  # ‖v + c x̃‖² = ‖v‖² + 2c x̃ᵀv + c²‖x̃‖², before the add
                    g = bias * v[d]
                    q = b2
                    for p in range(lo, hi):
                        x = np.float64(data[p])
                        g += x * v[cols[p]]
                        q += x * x
                    vn2 += 2.0 * c * g + c * c * q
                _row_axpy(data, cols, lo, hi, c, v)
                v[d] += c * bias
                if sigma != 0.0:
                    _row_axpy(data, cols, lo, hi, -sigma * c, acc)
                    acc[d] -= sigma * c * bias
        if projection and lmbd * s * s * vn2 > 1.0:
            s = 1.0 / math.sqrt(lmbd * vn2)
        sigma += _rho(t, params.mode, params.t0) * s
        if s < s_min:
            s, vn2, sigma = _renormalise(v, acc, s, sigma, projection)
        j += size
    scal[0], scal[1], scal[2] = s, vn2, sigma


@dataclass
class _State:
    problem: Problem
    rows: object  # DenseRows / CSRRows (sq_norms filled by the timed set-up, or empty)
    it: Iterate
    params: Params
    w: np.ndarray  # materialised s·v (outside the timer)
    iters_per_epoch: int
    t: int = 0  # iterations done (a warm start's included)


class PegasosClassifier(DeviceMixin, BaseLinearSVM):
    r"""Linear SVM by Pegasos, stochastic sub-gradient descent on the primal (mini-batch).

    Minimises the hinge primal
    :math:`P(\tilde w) = \frac{\lambda}{2}\|\tilde w\|^2 + \frac1n\sum_i\max(0, 1 - y_i
    \tilde x_i^\top\tilde w)` with step :math:`\eta_t = 1/(\lambda t)` (Shalev-Shwartz,
    Singer, Srebro & Cotter 2011; seeds/001 algorithms 3–4) or, with
    ``average="weighted"``, :math:`2/(\lambda(t+1))` (Lacoste-Julien et al. 2012). See
    :mod:`solvers.pegasos` for the update and its implementation. An epoch is always
    ``n_samples`` samples, i.e. :math:`\lceil n/k\rceil` iterations, whatever ``batch_size``.

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        Regularisation :math:`\lambda > 0`. ``"auto"`` (the default): :math:`\lambda = 1/n`,
        n the number of rows of X, resolved at ``fit`` (``lmbd_``): ``LinearSVC``'s default
        ``C = 1`` (with sample weights n still counts the rows: each weight multiplies its
        sample's loss, as in ``LinearSVC(C=1)``). ``partial_fit`` needs a number: it sees
        one chunk at a time, not the n of the whole stream.
    batch_size : int, default=1
        :math:`k`; 1 is basic Pegasos. Must not exceed ``n_samples``.
    sampling : {"iid", "permutation"}, default="iid"
        ``iid``: every batch is a uniform subset of :math:`k` distinct samples, independent
        of the others (seeds/001; :math:`k = 1`: i.i.d. draws). ``permutation``: each epoch
        is a random partition of the samples into batches of :math:`k` (a fresh permutation
        cut into consecutive batches), the last one smaller when :math:`k \nmid n`
        (seeds/000 algorithm 3). The vocabulary of every solver (:mod:`solvers._sampling`);
        the old spelling ``"epoch"`` still works for one release, with a ``FutureWarning``,
        and gives the same results.
    projection : bool, default=False
        Project the full iterate (bias weight included) onto :math:`\|\tilde w\| \le
        1/\sqrt\lambda` after each step.
    average : {False, True, "weighted"}, default=False
        Output: the last iterate; the uniform mean of the iterates :math:`\tilde w^{(t)}`,
        :math:`T_0 \le t \le T`; or the weighted mean with weight :math:`t` (and step
        :math:`2/(\lambda(t+1))`), :math:`\tilde w^{(t)}` being the iterate after :math:`t`
        iterations, so that the final iterate weighs most.
    avg_start : int or None, default=None
        :math:`T_0`, in iterations (batches), clipped to the total :math:`T`. None: half of
        all iterations, :math:`T/2`, for ``average=True``, and 1 (every iterate, the
        Lacoste-Julien average :math:`\frac{2}{T(T+1)}\sum_t t\,\tilde w^{(t)}`) for
        ``"weighted"``.
    max_epochs : int, default=100
        Pegasos has no stopping certificate: every fit runs all epochs.
    bias_multiplier : float, default=1.0
        :math:`B \ge 0`: learn an intercept :math:`B w_b` through a constant feature of value
        :math:`B`, regularised like the other weights (VLFeat, seeds/003; the default 1.0 is
        ``LinearSVC``'s ``intercept_scaling=1``). 0: no intercept (the studies' setting).
    random_state : int, numpy Generator or None, default=None
    class_weight : dict, "balanced" or None, default=None
        As in :class:`solvers.SDCAClassifier`: the sampled sample's step is multiplied by
        its weight, which makes each step an unbiased sub-gradient of the weighted objective.
    warm_start : bool, default=False
        Start the next ``fit`` from this fit's output ``coef_`` *and* its step counter
        ``t_`` (the first Pegasos step, at t = 1, would otherwise discard the start).
    callback : callable or None, default=None
        ``callback(info)`` with an :class:`solvers.EpochInfo` after every epoch, outside the
        timer; ``info.w`` is the current iterate, ``info.output_w()`` the current output.
        Returning ``True`` stops the fit.
    device : {"cpu", "cuda"}, default="cpu"
        ``"cuda"``: the iterations run on the GPU (:mod:`solvers.gpu.pegasos`), each batch's
        margins and sub-gradient in parallel; the same steps, projection and averages, and
        the same index arrays from ``random_state``. Pays for large ``batch_size`` only (a
        batch is a few kernel launches). Needs numba-cuda and a GPU; X is copied once per
        fit. CSR batches are summed with atomics (not bit-deterministic).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    dual_coef_ : None
        Pegasos keeps no dual point.
    duality_gap_ : float or ndarray of shape (n_classes,)
        Always NaN.
    classes_ : ndarray of shape (n_classes,)
    lmbd_ : float
        The :math:`\lambda` of the fit (``1/n_samples`` when ``lmbd="auto"``).
    n_epochs_ : int or ndarray of shape (n_classes,)
        Epochs run (always ``max_epochs``; 1 per ``partial_fit``); ``n_iter_`` the largest.
    t_ : int or ndarray of shape (n_classes,)
        Iterations made since the first fit of a warm-started or ``partial_fit`` sequence:
        the next iteration's step is :math:`1/(\lambda (t_ + 1))`.
    converged_ : bool or ndarray of shape (n_classes,)
        Always False (no stopping test).
    epoch_times_, epoch_wall_times_ : ndarray of shape (n_epochs_,), or a list of them
        CPU (``time.process_time``) and wall seconds of each epoch's update loop.
    setup_time_ : float or ndarray of shape (n_classes,)
        CPU seconds of the squared row norms (only with ``projection`` and ``batch_size=1``).
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in BaseLinearSVM._parameter_constraints.items() if k != "tol"},
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "sampling": [
            StrOptions(
                set(SAMPLINGS) | set(DEPRECATED_SAMPLINGS["PegasosClassifier"]),
                deprecated=set(DEPRECATED_SAMPLINGS["PegasosClassifier"]),
            )
        ],
        "projection": ["boolean"],
        "average": ["boolean", StrOptions({"weighted"})],
        "avg_start": [Interval(Integral, 0, None, closed="left"), None],
        **DEVICE_CONSTRAINT,
    }

    _has_dual = False
    _supports_sparse = True
    _gpu_driver = "pegasos"

    def __init__(
        self,
        lmbd="auto",
        *,
        batch_size=1,
        sampling="iid",
        projection=False,
        average=False,
        avg_start=None,
        max_epochs=100,
        bias_multiplier=1.0,
        random_state=None,
        class_weight=None,
        warm_start=False,
        callback=None,
        device="cpu",
    ):
        self.lmbd = lmbd
        self.batch_size = batch_size
        self.sampling = sampling
        self.projection = projection
        self.average = average
        self.avg_start = avg_start
        self.max_epochs = max_epochs
        self.bias_multiplier = bias_multiplier
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.callback = callback
        self.device = device

    def _mode(self) -> int:
        if self.average == "weighted":
            return _WEIGHTED
        return _UNIFORM if self.average else _LAST

    def _kernel_key(self) -> tuple:
        return (self.batch_size == 1, self.device)

    def _warm_up_overrides(self) -> dict:
        # any k > 1 calls the batch kernel; 3 also exercises a smaller last batch of 8
        return {"avg_start": None, "batch_size": min(self.batch_size, 3)}

    def _check_params(self) -> None:
        resolve_sampling("PegasosClassifier", self.sampling, warn=True)

    def _check_problem(self, problem: Problem) -> None:
        if self.batch_size > problem.n_samples:
            raise ValueError(f"batch_size={self.batch_size} exceeds n_samples={problem.n_samples}")

    def _iteration_counts(self, problem: Problem) -> tuple[int, int]:
        """(iterations before this fit, the first averaged iteration T_0), both counted
        since the first fit of a warm-started sequence (``avg_start``'s meaning)."""
        iters = -(-problem.n_samples // int(self.batch_size))
        total = problem.epochs * iters
        if self.avg_start is not None:
            t0 = min(int(self.avg_start), total)
        else:
            t0 = 1 if self._mode() == _WEIGHTED else total // 2
        start = 0 if problem.init is None else problem.init.iterations
        return start, start + t0

    def _init_state(self, problem: Problem, rng: np.random.Generator) -> _State:
        n, d = problem.n_samples, problem.n_features
        k = int(self.batch_size)
        mode = self._mode()
        iters = -(-n // k)
        start, t0_abs = self._iteration_counts(problem)
        it = Iterate(
            v=np.zeros(d + 1) if problem.init is None else problem.init.w.copy(),
            acc=np.zeros(d + 1),  # full length even unused: see Iterate
            scal=np.array([1.0, 0.0, 0.0]),
            score_buf=np.empty(k),
            coef_buf=np.empty(k),
            row_buf=np.empty(k, dtype=np.int64),
        )
        it.scal[1] = it.v @ it.v
        params = Params(
            problem.lmbd, mode == _WEIGHTED, bool(self.projection), mode, t0_abs, _S_MIN, k
        )
        rows = problem.rows(np.empty(n if (self.projection and k == 1) else 0))
        return _State(problem, rows, it, params, np.zeros(d + 1), iters, start)

    def _setup(self, state: _State) -> None:
        if state.rows.sq_norms.shape[0]:
            p = state.problem
            objectives.row_sq_norms(p.X, p.bias, out=state.rows.sq_norms)

    def _epoch_indices(self, state: _State, rng: np.random.Generator, epoch: int) -> np.ndarray:
        return self._epoch_indices_for(rng, state.problem.n_samples)

    def _epoch_indices_for(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """One epoch's sample order (the batches are its consecutive runs of k)."""
        if resolve_sampling("PegasosClassifier", self.sampling) == "permutation":
            return rng.permutation(n)
        return distinct_batches(rng, n, int(self.batch_size))

    def _run_epoch(self, state: _State, indices: np.ndarray, epoch: int) -> None:
        sparse, single = state.problem.sparse, self.batch_size == 1
        if single:
            kernel = _pegasos_single_epoch_csr if sparse else _pegasos_single_epoch
        else:
            kernel = _pegasos_batch_epoch_csr if sparse else _pegasos_batch_epoch
        kernel(state.rows, state.it, state.params, indices, state.t)
        state.t += state.iters_per_epoch

    def _current(self, state: _State) -> tuple[np.ndarray, None]:
        np.multiply(state.it.v, state.it.scal[0], out=state.w)
        return state.w, None

    def _iterations(self, state: _State) -> int:
        return state.t

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        r"""One pass over the given rows, from the current iterate, as ``SGDClassifier``.

        The step counter t carries across calls (the step :math:`1/(\lambda t)` goes on
        decreasing), so a stream of calls over successive chunks is one Pegasos run.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class the stream will hold: required on the first call (a chunk may miss
            some), and if given later, the same.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of this chunk's samples.

        Returns
        -------
        self
        """
        first = not hasattr(self, "coef_")
        if self.average is not False:
            raise ValueError(
                f"partial_fit keeps the last iterate: average={self.average!r} is defined "
                "over the iterations of one fit. Use average=False, or fit."
            )
        if self.class_weight == "balanced":
            raise ValueError(
                "class_weight='balanced' needs every label at once: pass a dict of class "
                "weights to partial_fit, or use fit."
            )
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        if isinstance(self.lmbd, str):
            raise ValueError(
                f"partial_fit needs a number for lmbd, not {self.lmbd!r}: 'auto' is 1/n of the "
                "whole training set, and partial_fit sees one chunk at a time. Pass lmbd, e.g. "
                "1 / (the number of samples in the stream)."
            )
        X, y = validate_data(
            self,
            X,
            y,
            reset=first,
            dtype=[np.float64, np.float32],
            order="C",
            accept_sparse="csr",
        )
        if classes is not None:
            classes = np.unique(classes)
            if classes.shape[0] < 2:
                raise ValueError(f"classes needs at least two classes, got {classes.tolist()}")
            if not first and not np.array_equal(classes, self.classes_):
                raise ValueError(
                    f"classes={classes.tolist()} differs from the first call's "
                    f"{self.classes_.tolist()}."
                )
            self.classes_ = classes
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(
                f"y has labels {unknown.tolist()} outside classes {self.classes_.tolist()}."
            )
        targets = [np.where(y == positive, 1.0, -1.0) for positive in self._positive_classes()]
        inits = None if first else self._fitted_inits(X, self.classes_)
        weights = self._sample_weights(X, y, sample_weight)
        self._fit_targets(canonical(X), y, targets, weights, 1, inits)
        return self

    def _output(self, state: _State) -> tuple[np.ndarray, None]:
        T, t0, mode = state.t, state.params.t0, state.params.mode
        if mode == _LAST or t0 > T:
            return self._current(state)
        if mode == _UNIFORM:
            weight = T - t0 + 1.0
        else:  # Σ_{t = max(t0, 1)}^{T} t
            lo = max(t0, 1)
            weight = (T * (T + 1.0) - (lo - 1.0) * lo) / 2.0
        return (state.it.acc + state.it.scal[2] * state.it.v) / weight, None
