r"""The Pegasos epoch kernels (:mod:`sdca_pegasos.solvers.pegasos.estimator` is the estimator and
its driver).

Two kernels, :func:`pegasos_single_epoch` (:math:`k = 1`) and :func:`pegasos_batch_epoch` (:math:`k
> 1`), each written once against the row-access layer of :mod:`sdca_pegasos.solvers.core.rows` and
compiled for dense rows and for CSR rows (practice 14). The update, its sub-gradient
:math:`-\phi'(z)` (:func:`sdca_pegasos.solvers.core.losses.minus_derivative`), the steps,
projection, lazy average and renormalisation below exist once; only the reading of a block of rows
has a dense specialisation (*Memory streams*), chosen at compile time from the type of ``rows``.

Efficient implementation
------------------------
*Scaled iterate.* The shrink :math:`(1 - \eta_t\lambda)` would cost :math:`O(d)` per iteration.
The kernels keep :math:`\tilde w = s\,v` with a scalar :math:`s`: the shrink is :math:`s
\leftarrow (1 - \eta_t\lambda)s`, a sample :math:`i \in A_t` with :math:`a_i = -\phi'(z_i) \ne
0` (the hinge's :math:`A_t^+`) adds :math:`\eta_t a_i c_i y_i/(|A_t| s)\,\tilde x_i` to
:math:`v`, and the projection is :math:`s \leftarrow 1/(\sqrt\lambda\|v\|)` when :math:`\lambda
s^2\|v\|^2 > 1`. At :math:`t = 1` the factor is 0: the kernel sets :math:`v \leftarrow 0, s
\leftarrow 1` (one :math:`O(d)` reset). :math:`s` decays like :math:`1/t` (Pegasos step) or
:math:`2/t^2` (weighted step), and with ``projection`` at small :math:`\lambda` by orders of
magnitude per iteration: while the step :math:`\eta_t\|\tilde x\| \approx \|\tilde x\|/(\lambda
t)` is far outside the ball (:math:`t \ll \|\tilde x\|/\sqrt\lambda`), each projection divides
:math:`s` by about :math:`\|\tilde x\|/(\sqrt\lambda\,t)`. When :math:`s` drops below ``s_min``
(the driver's ``_S_MIN`` = 1e-2), :math:`v \leftarrow s v, s \leftarrow 1` (and the running sum
below is folded into :math:`U`). The test follows every iteration: a block of four (below) that
leaves :math:`s` under the threshold is undone (its scalars only: :math:`v` is not yet touched)
and replayed one sample at a time. So :math:`s \ge` ``s_min`` before every iteration,
:math:`\|v\| = \|\tilde w\|/s` stays within two orders of magnitude (and one step) of the
iterate it represents, nothing overflows or underflows whatever the run length, and the running
:math:`\|v\|^2` below, whose increments are relative to :math:`\|v\|^2`, is recomputed exactly
at least that often. It costs one or two :math:`O(d)` passes each time :math:`s` decays a
hundredfold: :math:`\log_{100} T` of them with the Pegasos step, :math:`\log_{10} T` with the
weighted one, and, while projections shrink :math:`s` that fast, at most one per iteration,
which then moves a sample anyway (:math:`O(d)`).

*Squared norm for the projection.* With one sample, :math:`\|v + c\tilde x\|^2 = \|v\|^2 +
2c\,\tilde x^\top v + c^2\|\tilde x\|^2` uses the margin's dot product and the squared row
norms precomputed by the driver's timed set-up. With :math:`k > 1`, :math:`\|v\|^2` is recomputed
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
costs a factor :math:`\max_\tau s_\tau/s_t \le 1/` ``s_min`` of relative precision (about
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
streams in flight instead of one, as in :func:`sdca_pegasos.solvers.sdca.kernels.sdca_epoch`. With
:math:`k > 1` the batch's margins are independent dot products with the same :math:`v`,
computed four rows per pass, and the rows of :math:`A_t^+` are added four per pass.


*Sparse input.* A CSR row is read one sample at a time (no blocks of four: rows share few
columns, so there is no memory stream to overlap), each step touching only the row's stored
entries, so a step costs :math:`O(\mathrm{nnz}(x_i))` with the scaled iterate and the lazy
average above; the :math:`O(d)` passes are the :math:`t = 1` reset and the
renormalisations. With :math:`k > 1` and ``projection``, :math:`\|v\|^2` is then updated
row by row as in the single-sample case (:math:`\|v + c\tilde x\|^2 = \|v\|^2 +
2c\,\tilde x^\top v + c^2\|\tilde x\|^2`, each row's dot product and norm taken in the pass
that adds it) instead of recomputed per batch (an :math:`O(d)` pass). Same index arrays,
same iterates as the dense kernels up to rounding.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.rows import (
    FASTMATH,
    DenseRows,
    dot4,
    gram4,
    row_axpy,
    row_dot,
    row_entry,
    row_nnz,
    weight_of,
)

#: Output modes (``Params.mode``): the last iterate, the uniform average, the weighted one.
LAST, UNIFORM, WEIGHTED = 0, 1, 2


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
        Scratch space of the mini-batch kernel.
    """

    v: np.ndarray
    acc: np.ndarray
    scal: np.ndarray
    score_buf: np.ndarray
    coef_buf: np.ndarray
    row_buf: np.ndarray


class Params(NamedTuple):
    r"""The scalars of a Pegasos fit, as the kernels take them.

    Attributes
    ----------
    lmbd : float
    weighted : bool
        Step 2/(λ(t+1)) instead of 1/(λt).
    projection : bool
    mode : int
        :data:`LAST`, :data:`UNIFORM` or :data:`WEIGHTED` (ρ_t = t).
    t0 : int
        T_0, the first averaged iterate.
    s_min : float
        Renormalisation threshold of s.
    batch_size : int
        k.
    loss : solvers.losses.Loss
        φ: a sample's step is :math:`-\phi'(z_i)`
        (:func:`sdca_pegasos.solvers.core.losses.minus_derivative`) times :math:`c_i y_i \tilde
        x_i`.
    """

    lmbd: float
    weighted: bool
    projection: bool
    mode: int
    t0: int
    s_min: float
    batch_size: int
    loss: Loss


# ------------------------------------------------------------------ scalar parts
@njit(cache=True, fastmath=FASTMATH)
def _step(t, weighted, lmbd):
    """Shrink factor 1 − η_t λ and step η_t of iteration t ≥ 1 (factor 0 at t = 1)."""
    if weighted:
        return (t - 1.0) / (t + 1.0), 2.0 / (lmbd * (t + 1.0))
    return (t - 1.0) / t, 1.0 / (lmbd * t)


@njit(cache=True, fastmath=FASTMATH)
def _rho(t, mode, t0):
    """Weight of the iterate after t iterations in the running sum (0 before t0)."""
    if mode == LAST or t < t0:
        return 0.0
    return 1.0 if mode == UNIFORM else float(t)


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
    a = losses.minus_derivative(params.loss, margin)  # hinge: 1 if margin < 1 else 0
    if a != 0.0:
        c = eta * yi * ci * a / s
        if projection:
            vn2 += 2.0 * c * p + c * c * qi
    u = -sigma * c
    if projection and lmbd * s * s * vn2 > 1.0:
        s = 1.0 / math.sqrt(lmbd * vn2)
    sigma += _rho(t, params.mode, params.t0) * s
    return c, u, s, vn2, sigma


# ------------------------------------------------------------------ O(d) passes over v
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


# ------------------------------------------------------------------ reading rows
# Three helpers with a dense specialisation that reads four rows per pass (*Memory
# streams*), chosen like the row-access layer's bodies: by the type of ``rows``. Any other
# rows (a CSRRows) get the generic body, one row at a time through the layer.
#: The bodies with loops compile as functions of their own with the kernels' flags (LLVM
#: inlines them), not by Numba's IR inlining, which gave wrong iterates with Numba 0.68 in
#: SDCA's and ASDCA's sweeps (``sdca_pegasos.solvers.core.rows._LAYER_OPTIONS``).
_BODY_OPTIONS = {"fastmath": FASTMATH}


def _is_dense_rows(rows) -> bool:
    """Whether the Numba type ``rows`` is that of a
    :class:`sdca_pegasos.solvers.core.rows.DenseRows`."""
    return getattr(rows, "instance_class", None) is DenseRows


def _four_rows(rows):
    """Whether :func:`_four_samples` runs blocks of four: a compile-time constant."""


@overload(_four_rows, inline="always")
def _four_rows_impl(rows):
    dense = _is_dense_rows(rows)
    return lambda rows: dense


def _four_samples(rows, it, params, indices, j, t, s, vn2, sigma):
    """Iterations t..t+3 on samples ``indices[j:j+4]``, reading their rows once.

    Returns ``(done, s, vn2, sigma)``. ``done`` False: s crossed ``params.s_min`` inside
    the block; the scalars are returned as they came in and v is untouched (the caller
    replays the four one at a time). Dense rows only (:func:`_four_rows`).
    """


@overload(_four_samples, jit_options=_BODY_OPTIONS)
def _four_samples_impl(rows, it, params, indices, j, t, s, vn2, sigma):
    if not _is_dense_rows(rows):
        return lambda rows, it, params, indices, j, t, s, vn2, sigma: (False, s, vn2, sigma)

    def dense(rows, it, params, indices, j, t, s, vn2, sigma):
        X, y, sq_norms, bias = rows.X, rows.y, rows.sq_norms, rows.bias
        v, acc = it.v, it.acc
        d = X.shape[1]
        b2 = bias * bias
        s_in, vn2_in, sigma_in = s, vn2, sigma
        i0, i1, i2, i3 = indices[j], indices[j + 1], indices[j + 2], indices[j + 3]
        r0, r1, r2, r3 = X[i0], X[i1], X[i2], X[i3]
        g0, g1, g2, g3, h10, h20, h21, h30, h31, h32 = gram4(r0, r1, r2, r3, v)
        vb = bias * v[d]
        q0 = q1 = q2 = q3 = 0.0
        if params.projection:
            q0, q1, q2, q3 = sq_norms[i0], sq_norms[i1], sq_norms[i2], sq_norms[i3]
        y0, y1, y2, y3 = y[i0], y[i1], y[i2], y[i3]
        w0, w1 = weight_of(rows.weights, i0), weight_of(rows.weights, i1)
        w2, w3 = weight_of(rows.weights, i2), weight_of(rows.weights, i3)

        p = g0 + vb
        c0, u0, s, vn2, sigma = _one_sample(y0 * s * p, p, y0, w0, q0, t, s, vn2, sigma, params)
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
        if s < params.s_min:  # crossed inside the block: undo (scalars only)
            return False, s_in, vn2_in, sigma_in
        if c0 != 0.0 or c1 != 0.0 or c2 != 0.0 or c3 != 0.0:
            for k in range(d):
                v[k] += c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
            v[d] += (c0 + c1 + c2 + c3) * bias
            if u0 != 0.0 or u1 != 0.0 or u2 != 0.0 or u3 != 0.0:
                for k in range(d):
                    acc[k] += u0 * r0[k] + u1 * r1[k] + u2 * r2[k] + u3 * r3[k]
                acc[d] += (u0 + u1 + u2 + u3) * bias
        return True, s, vn2, sigma

    return dense


def _batch_scores(rows, v, indices, start, size, out):
    """``out[b] = x̃_iᵀv`` for ``i = indices[start + b]``, ``b < size`` (``out``: (k,))."""


@overload(_batch_scores, jit_options=_BODY_OPTIONS)
def _batch_scores_impl(rows, v, indices, start, size, out):
    if not _is_dense_rows(rows):

        def per_row(rows, v, indices, start, size, out):
            vb = rows.bias * v[v.shape[0] - 1]
            for b in range(size):
                out[b] = row_dot(rows, indices[start + b], v, vb)

        return per_row

    def dense(rows, v, indices, start, size, out):  # four rows per pass
        X, bias = rows.X, rows.bias
        d = X.shape[1]
        vb = bias * v[d]
        b = 0
        while b + 4 <= size:
            r0, r1 = X[indices[start + b]], X[indices[start + b + 1]]
            r2, r3 = X[indices[start + b + 2]], X[indices[start + b + 3]]
            g0, g1, g2, g3 = dot4(r0, r1, r2, r3, v)
            out[b], out[b + 1], out[b + 2], out[b + 3] = g0 + vb, g1 + vb, g2 + vb, g3 + vb
            b += 4
        while b < size:
            out[b] = row_dot(rows, indices[start + b], v, 0.0) + vb
            b += 1

    return dense


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _dot_and_sq_norm(rows, i, v, dot, sq):
    """``(dot + x_i·v[:d], sq + ‖x_i‖²)`` in one pass over the row, one chain each."""
    for p in range(row_nnz(rows, i)):
        k, x = row_entry(rows, i, p)
        dot += x * v[k]
        sq += x * x
    return dot, sq


def _add_batch(rows, it, count, sigma, vn2, projection):
    """v += Σ_{b < count} coef_buf[b] x̃_{row_buf[b]} and, when σ ≠ 0, U −= σ·(the same).

    Returns ‖v‖² after the additions when ``projection`` (else ``vn2`` unchanged): the
    dense body recomputes it (one O(d) pass per batch), the generic one updates it row by
    row (O(nnz) per row: *Sparse input*).
    """


@overload(_add_batch, jit_options=_BODY_OPTIONS)
def _add_batch_impl(rows, it, count, sigma, vn2, projection):
    if not _is_dense_rows(rows):

        def per_row(rows, it, count, sigma, vn2, projection):
            v, acc, bias = it.v, it.acc, rows.bias
            d = v.shape[0] - 1
            for b in range(count):
                i, c = it.row_buf[b], it.coef_buf[b]
                if projection:  # ‖v + c x̃‖² = ‖v‖² + 2c x̃ᵀv + c²‖x̃‖², before the add
                    g, q = _dot_and_sq_norm(rows, i, v, bias * v[d], bias * bias)
                    vn2 += 2.0 * c * g + c * c * q
                row_axpy(rows, i, c, v)
                v[d] += c * bias
                if sigma != 0.0:
                    row_axpy(rows, i, -sigma * c, acc)
                    acc[d] -= sigma * c * bias
            return vn2

        return per_row

    def dense(rows, it, count, sigma, vn2, projection):  # four rows per pass
        X, bias, v, acc = rows.X, rows.bias, it.v, it.acc
        sel, coef = it.row_buf, it.coef_buf
        d = X.shape[1]
        total = 0.0
        b = 0
        while b < count:
            if count - b >= 4:
                r0, r1, r2, r3 = X[sel[b]], X[sel[b + 1]], X[sel[b + 2]], X[sel[b + 3]]
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
                xi = X[sel[b]]
                c = coef[b]
                if sigma != 0.0:
                    for k in range(d):
                        dk = c * xi[k]
                        v[k] += dk
                        acc[k] -= sigma * dk
                else:
                    row_axpy(rows, sel[b], c, v)
                total += c
                b += 1
        v[d] += total * bias
        if sigma != 0.0:
            acc[d] -= sigma * total * bias
        if projection:
            vn2 = 0.0
            for k in range(v.shape[0]):
                vn2 += v[k] * v[k]
        return vn2

    return dense


# ------------------------------------------------------------------ the epochs
@njit(cache=True, fastmath=FASTMATH)
def pegasos_single_epoch(rows, it, params, indices, t_start):
    """One epoch of single-sample Pegasos over ``indices``, in place (w = s·v).

    Dense rows are taken four at a time (*Memory streams*); iteration 1 of a fit, the
    epoch's tail, a block undone by a renormalisation and every CSR row run one at a time.

    Parameters
    ----------
    rows : solvers._kernels.DenseRows or solvers._kernels.CSRRows
        X (n, d) float32/float64, y (n,), ‖x̃_i‖² (n,) (read only with projection; may be
        empty), sample weights (n,) (or None), B.
    it : Iterate
        Updated in place.
    params : Params
    indices : ndarray of shape (m,), int64
        One sample per iteration, in order.
    t_start : int
        Iterations done before this epoch.
    """
    v, acc, scal = it.v, it.acc, it.scal
    y, bias = rows.y, rows.bias
    projection, s_min = params.projection, params.s_min
    d = v.shape[0] - 1
    m = indices.shape[0]
    s, vn2, sigma = scal[0], scal[1], scal[2]
    single = 0  # iterations to run one at a time (an undone block)
    j = 0
    while j < m:
        t = t_start + j + 1
        if _four_rows(rows) and t > 1 and m - j >= 4 and single == 0:
            done, s, vn2, sigma = _four_samples(rows, it, params, indices, j, t, s, vn2, sigma)
            if not done:  # then one at a time, checking s
                single = 4
                continue
            j += 4
        else:
            single = max(single - 1, 0)
            i = indices[j]
            p = row_dot(rows, i, v, bias * v[d])
            margin = y[i] * s * p
            if t == 1:  # factor 0: w^(1) does not depend on w^(0)
                _reset(v, acc, sigma)
                s, vn2, p = 1.0, 0.0, 0.0
            qi = rows.sq_norms[i] if projection else 0.0
            c, u, s, vn2, sigma = _one_sample(
                margin, p, y[i], weight_of(rows.weights, i), qi, t, s, vn2, sigma, params
            )
            if c != 0.0:
                row_axpy(rows, i, c, v)
                v[d] += c * bias
                if u != 0.0:
                    row_axpy(rows, i, u, acc)
                    acc[d] += u * bias
            j += 1
        if s < s_min:
            s, vn2, sigma = _renormalise(v, acc, s, sigma, projection)
    scal[0], scal[1], scal[2] = s, vn2, sigma


@njit(cache=True, fastmath=FASTMATH)
def pegasos_batch_epoch(rows, it, params, indices, t_start):
    """One epoch of mini-batch Pegasos over ``indices``, in place (w = s·v).

    ``indices`` is read as consecutive batches of ``params.batch_size`` (the last one
    smaller when the batch size does not divide its length); every margin of a batch is
    taken at the iterate before it. Arguments as in :func:`pegasos_single_epoch`
    (``it``'s buffers of length ``batch_size`` are used here).
    """
    v, acc, scal = it.v, it.acc, it.scal
    y = rows.y
    lmbd, projection, s_min = params.lmbd, params.projection, params.s_min
    m = indices.shape[0]
    s, vn2, sigma = scal[0], scal[1], scal[2]
    t = t_start
    j = 0
    while j < m:
        size = min(params.batch_size, m - j)
        t += 1
        _batch_scores(rows, v, indices, j, size, it.score_buf)  # all at w^(t-1)
        f, eta = _step(t, params.weighted, lmbd)
        s_before = s
        if t == 1:  # factor 0: w^(1) does not depend on w^(0)
            _reset(v, acc, sigma)
            s, f, vn2 = 1.0, 1.0, 0.0
        s *= f
        scale = eta / (size * s)
        count = 0
        for b in range(size):
            i = indices[j + b]
            a = losses.minus_derivative(params.loss, y[i] * s_before * it.score_buf[b])
            if a != 0.0:
                it.row_buf[count] = i
                it.coef_buf[count] = scale * y[i] * weight_of(rows.weights, i) * a
                count += 1
        vn2 = _add_batch(rows, it, count, sigma, vn2, projection)
        if projection and lmbd * s * s * vn2 > 1.0:
            s = 1.0 / math.sqrt(lmbd * vn2)
        sigma += _rho(t, params.mode, params.t0) * s
        if s < s_min:
            s, vn2, sigma = _renormalise(v, acc, s, sigma, projection)
        j += size
    scal[0], scal[1], scal[2] = s, vn2, sigma
