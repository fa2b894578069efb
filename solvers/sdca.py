r"""Stochastic Dual Coordinate Ascent (Shalev-Shwartz & Zhang, JMLR 2013) for the linear SVM.

Maximises the dual :math:`D(\alpha)` of :mod:`solvers.objectives` one coordinate at a time,
keeping :math:`\tilde w = \tilde w(\alpha)` up to date. With :math:`a_i = y_i\alpha_i` and
:math:`z_i = y_i\tilde x_i^\top\tilde w`, the exact coordinate maximiser is

.. math::

    a_i \leftarrow \operatorname{clip}_{[0,1]}\left(a_i +
        \frac{1 - z_i - \gamma a_i}{\|\tilde x_i\|^2/(\lambda n) + \gamma}\right),
    \qquad \tilde w \leftarrow \tilde w + \frac{y_i\,\Delta a_i}{\lambda n}\tilde x_i,

the hinge closed form of seeds/000 §2.1.1 for :math:`\gamma = 0` and the smoothed-hinge form
of REFERENCE.md for :math:`\gamma > 0`. A row with :math:`\tilde x_i = 0` and the plain hinge
has no quadratic term: its coordinate is maximised at :math:`a_i = 1` (no division by zero).

The optional first epoch is the modified SGD of seeds/000 §2.1.2: at step :math:`t` the
:math:`t`-th sample of a permutation gets

.. math::

    a_t = \operatorname{clip}_{[0,1]}\left(\frac{1 - y_t x_t^\top w^{(t-1)}}
        {\|\tilde x_t\|^2/(\lambda t) + \gamma}\right), \qquad
    w^{(t)} = \frac{1}{\lambda t}\sum_{i \le t}\alpha_i\tilde x_i,

after which :math:`w^{(n)} = \tilde w(\alpha)` and SDCA continues from that dual point.

Shrinking (``shrinking=True``) is liblinear's (Hsieh et al. 2008 §3; Fan et al. 2008,
appendix), with the active set kept by the driver between epochs. With
:math:`G_i = z_i - 1 + \gamma a_i`, the derivative of :math:`-nD` along :math:`a_i`, and its
projection :math:`PG_i` (:math:`\min(G_i, 0)` at :math:`a_i = 0`, :math:`\max(G_i, 0)` at
:math:`a_i = 1`, :math:`G_i` inside), the kernel records every sample's :math:`G_i` right
after its step and each pass the range :math:`[\underline m, \overline M]` of the
:math:`PG_i` before the steps. After an epoch the driver removes sample :math:`i` when
:math:`a_i = 0` and :math:`G_i > \overline M`, or :math:`a_i = 1` and
:math:`G_i < \underline m` (:math:`\overline M \le 10^{-12}`: :math:`+\infty`;
:math:`\underline m \ge -10^{-12}`: :math:`-\infty`): it sits at a bound with a margin
larger than any violation of the pass. An epoch over the active set :math:`A` makes
:math:`\lfloor n/|A| \rfloor` passes, each a fresh permutation of :math:`A` drawn by the
driver (never more steps than a full pass, and the driver's per-epoch work — gap,
callback — stays once per about :math:`n` steps); it ends after the first pass whose range
:math:`\overline M - \underline m` is at most a tenth of the last full pass's, and then
every sample is restored for a full pass, after which shrinking starts afresh. Deviations
from liblinear, which decides *during* a pass: the gradient is the one after the sample's
own step (the test liblinear makes at the next visit), the thresholds are those of the same
pass (known when the driver decides), and the restoring criterion is relative to the last
full pass (liblinear's absolute ε is its stopping tolerance; the stop here is the gap). The
``tol`` stop is unchanged: the gap is computed over all samples after every epoch, so it
certifies the returned pair whatever the active set (liblinear needs a final full pass
because its stopping test only sees the active set).

Sparse input
------------
For a CSR matrix the driver calls :func:`_sdca_epoch_csr` and :func:`_sgd_init_epoch_csr` on
``(data, indices, indptr)``: the same steps on the same index arrays, one sample at a time
(no blocks of four: rows share few columns, so there is no Gram correction to amortise),
each reading and updating only the row's stored entries, so a step costs
:math:`O(\mathrm{nnz}(x_i))` for every option — averaging updates its running sums on the
same entries, shrinking needs no row. The :math:`O(d)` work is once per fit: the random
iterate's snapshot and the SGD epoch's final scaling. Same iterates as the dense kernels up
to the order of the additions.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from numba import njit
from sklearn.utils._param_validation import Interval, StrOptions

from . import losses, objectives
from ._base import BaseLinearSVM, Problem
from ._device import DEVICE_CONSTRAINT, DeviceMixin
from ._kernels import (
    _U1,
    FASTMATH,
    ROW_AHEAD,
    _csr_dot,
    gram4,
    is_array,
    kernel_rows,
    prefetch,
    prefetch_csr_row,
    prefetch_optional,
    store,
    update_gram4,
    weight_of,
)
from ._sampling import (
    DEPRECATED_SAMPLINGS,
    SAMPLINGS,
    active_indices,
    epoch_indices,
    resolve_sampling,
)
from .losses import HINGE, Loss

# Output modes shared by the kernels.
_LAST, _AVERAGE, _RANDOM = 0, 1, 2

#: When a block's four rows and w together exceed this many bytes (about L1's size), w's
#: block update is fused with the next block's scores (one pass over the rows instead of
#: two); smaller rows stay in L1 between the two passes, and there the fused loop (which
#: carries the next block's ten products from one block to the next) costs more than it
#: saves. Measured crossover on a 32 KiB-L1 core: d ≈ 700 in float64, ≈ 900 in float32.
#: Same iterates either way.
_FUSE_MIN_BYTES = 24 * 1024

#: CSR sweep: the entries of w that the row this many samples ahead reads are prefetched
#: (the row itself ``ROW_AHEAD`` ahead, :data:`solvers._kernels.ROW_AHEAD`). Measured on a
#: 50,000 × 200,000 matrix with 40 nonzeros per row (``make bench``): 2 is near the best,
#: 1–3 within 10 %.
_W_AHEAD = 2

#: Dense short-row sweep: prefetch the samples this many steps ahead (their row's first
#: cache line, y, ‖x̃‖², α, G). Measured on skin (245,057 × 3, one epoch, CPU time on a
#: loaded 2-core machine): 8.1–8.9 ms without, 5.8 ms at 8 ahead, 5.6 ms at 16.
_DENSE_AHEAD = 16

#: Shrinking restores every sample once the active set's projected-gradient range is below
#: this fraction of the range of the last full pass.
_UNSHRINK_RATIO = 0.1

#: Projected gradients within this of 0 count as 0 in the shrinking thresholds (liblinear's
#: constant): an interior coordinate's gradient is 0 up to rounding after its own step.
_PG_ZERO = 1e-12

# Per-block helpers inlined into the sweeps: a call with up to 13 array arguments costs more
# than the arithmetic on short rows.
_gram4_inline = njit(cache=True, fastmath=FASTMATH, inline="always")(gram4.py_func)
_update_gram4_inline = njit(cache=True, fastmath=FASTMATH, inline="always")(update_gram4.py_func)


class Sweep(NamedTuple):
    """What an SDCA epoch updates in place (the kernels' state, one argument).

    Attributes
    ----------
    w : ndarray of shape (n_features + 1,), float64
        The iterate w̃(α), kept up to date step by step.
    dual_coef : ndarray of shape (n_samples,), float64
        α, signed (a_i = y_i α_i in [0, c_i U]).
    acc_w : ndarray of shape (n_features + 1,) or (1,), float64
    acc_a : ndarray of shape (n_samples,) or (1,), float64
        Output mode 1: Σ_{s>t0} (s - t0)·(w_s - w_{s-1}) and the same for α, so that the mean
        of the iterates t0..T is ``w_T - acc_w / (T - t0 + 1)``; mode 2: the snapshot; mode 0:
        unused (length 1).
    grad : ndarray of shape (n_samples,), float64, or None
        Shrinking: every visited sample's gradient G_i right after its (last) step of the
        pass (:func:`_coordinate_step`), other entries untouched. None: nothing recorded,
        in kernels compiled without it (SDCA without shrinking).
    pg_range : ndarray of shape (2,), float64, out
        Max and min over a pass's steps of the projected gradient before the step:
        liblinear's shrinking thresholds (0 and 0 without ``grad``; -inf and inf for an
        empty pass).
    """

    w: np.ndarray
    dual_coef: np.ndarray
    acc_w: np.ndarray
    acc_a: np.ndarray
    grad: np.ndarray | None
    pg_range: np.ndarray


class Params(NamedTuple):
    """The scalars of an SDCA fit, as the kernels take them.

    Attributes
    ----------
    lmbd : float
        λ (the SGD epoch's steps).
    lmbd_n : float
        λn.
    loss : solvers.losses.Loss
    mode : int
        Output: 0 last iterate, 1 running average, 2 snapshot at step ``snap``.
    t0 : int
        First averaged iterate (mode 1).
    snap : int
        The step whose iterate mode 2 keeps.
    """

    lmbd: float
    lmbd_n: float
    loss: Loss
    mode: int
    t0: int
    snap: int


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _coordinate_step(i, score, rows, sweep, loss, inv_lmbd_n):
    """Exact maximisation of D along coordinate i given x̃_i·w = ``score``
    (:func:`solvers.losses.coordinate_step`).

    Returns ``(Δα_i, PG_i)`` and, with ``sweep.grad``, writes ``grad[i]``. With
    G_i = y_i x̃_i·w − 1 + κ a_i/c_i, the derivative of −nD along a_i (liblinear's gradient),
    PG_i is its projection before the step (``min(G_i, 0)`` at a_i = 0, ``max(G_i, 0)`` at
    the box's top, G_i inside) and ``grad[i]`` is G_i *after* the step, G_i + h_i Δa_i: 0
    for a coordinate left inside the box, of the sign that keeps it there for one left at a
    bound. Without ``grad``, PG_i is returned as 0.
    """
    yi = rows.y[i]
    c = weight_of(rows.weights, i)
    a_old = yi * sweep.dual_coef[i]
    g = losses.gradient(loss, yi * score, a_old, c)
    h = losses.curvature(loss, rows.sq_norms[i] * inv_lmbd_n, c)
    a_new = losses.coordinate_step(loss, a_old, g, h, c)
    sweep.dual_coef[i] = yi * a_new
    pg = 0.0
    if is_array(sweep.grad):  # shrinking only (a kernel without it is compiled for None)
        store(sweep.grad, i, g + h * (a_new - a_old))
        pg = losses.projected_gradient(loss, a_old, g, c)
    return yi * (a_new - a_old), pg


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _is_block(m, j, mode, s, snap):
    """Whether positions j..j+3 of the pass are taken as one block of four: they exist, and
    (mode 2) the snapshot step is not among them."""
    return m - j >= 4 and not (mode == 2 and s < snap <= s + 4)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _block_steps(i0, i1, i2, i3, scores, wb, b2, rows, sweep, loss, inv):
    """The four coordinate steps of a block, in order, each score corrected by the block's
    earlier steps: x̃_b·w_{after c} = x̃_b·w + Σ_{c<b} Δ_c (x̃_b·x̃_c + B²) / (λn).

    ``scores`` is what :func:`solvers._kernels.gram4` returns for the block's rows against
    the w before the block; ``wb`` = B·w_b. Returns ``(Δ0, Δ1, Δ2, Δ3, max PG, min PG)``.
    """
    g0, g1, g2, g3, h10, h20, h21, h30, h31, h32 = scores
    d0, q0 = _coordinate_step(i0, g0 + wb, rows, sweep, loss, inv)
    c0 = d0 * inv
    d1, q1 = _coordinate_step(i1, g1 + wb + c0 * (h10 + b2), rows, sweep, loss, inv)
    c1 = d1 * inv
    score2 = g2 + wb + c0 * (h20 + b2) + c1 * (h21 + b2)
    d2, q2 = _coordinate_step(i2, score2, rows, sweep, loss, inv)
    c2 = d2 * inv
    score3 = g3 + wb + c0 * (h30 + b2) + c1 * (h31 + b2) + c2 * (h32 + b2)
    d3, q3 = _coordinate_step(i3, score3, rows, sweep, loss, inv)
    return d0, d1, d2, d3, max(max(q0, q1), max(q2, q3)), min(min(q0, q1), min(q2, q3))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _average_block(r0, r1, r2, r3, i0, i1, i2, i3, deltas, inv, s, t0, bias, acc_w, acc_a):
    """Mode 1: add the block's four steps (numbers s+1..s+4) to the running sums, each
    weighted by (step − t0), 0 before t0 (see :class:`Sweep`)."""
    d0, d1, d2, d3 = deltas
    d = r0.shape[0]
    e0 = max(0, s + 1 - t0)
    e1 = max(0, s + 2 - t0)
    e2 = max(0, s + 3 - t0)
    e3 = max(0, s + 4 - t0)
    f0, f1, f2, f3 = e0 * (d0 * inv), e1 * (d1 * inv), e2 * (d2 * inv), e3 * (d3 * inv)
    for k in range(d):
        acc_w[k] += f0 * r0[k] + f1 * r1[k] + f2 * r2[k] + f3 * r3[k]
    acc_w[d] += (f0 + f1 + f2 + f3) * bias
    acc_a[i0] += e0 * d0
    acc_a[i1] += e1 * d1
    acc_a[i2] += e2 * d2
    acc_a[i3] += e3 * d3


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _single_step(rows, sweep, params, i, inv, s):
    """Step number s + 1 alone (score from its own pass over the row); returns its PG."""
    X, bias, w = rows.X, rows.bias, sweep.w
    acc_w, acc_a = sweep.acc_w, sweep.acc_a
    mode, t0 = params.mode, params.t0
    d = X.shape[1]
    xi = X[i]
    score = bias * w[d]
    for k in range(d):
        score += xi[k] * w[k]
    delta, q = _coordinate_step(i, score, rows, sweep, params.loss, inv)
    if delta != 0.0:
        c = delta * inv
        for k in range(d):
            w[k] += c * xi[k]
        w[d] += c * bias
        if mode == 1 and s + 1 > t0:
            e = s + 1 - t0
            for k in range(d):
                acc_w[k] += e * c * xi[k]
            acc_w[d] += e * c * bias
            acc_a[i] += e * delta
    if mode == 2 and s + 1 == params.snap:
        acc_w[:] = w
        acc_a[:] = sweep.dual_coef
    return q


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _prefetch_sample(rows, sweep, i):
    """Ask for sample i's row (its first cache line) and scalars ahead of its step."""
    prefetch(rows.X[i], 0)
    prefetch(rows.y, i)
    prefetch(rows.sq_norms, i)
    prefetch(sweep.dual_coef, i)
    prefetch_optional(sweep.grad, i)


@njit(cache=True, fastmath=FASTMATH)
def _sweep_two_pass(rows, sweep, params, indices, t_start):
    """:func:`_sdca_sweep` for short rows: per block, one pass for the scores and products,
    then one for w's update. The samples ``_DENSE_AHEAD`` steps ahead are prefetched (rows
    visited in a random order: on small d each step is bound by memory latency, not by its
    arithmetic)."""
    X, bias, w, loss = rows.X, rows.bias, sweep.w, params.loss
    mode, t0, snap = params.mode, params.t0, params.snap
    d = X.shape[1]
    m = indices.shape[0]
    inv = 1.0 / params.lmbd_n
    b2 = bias * bias
    pg_max = -np.inf
    pg_min = np.inf
    j = 0
    while j < m:
        s = t_start + j  # steps done before this sample
        if j + _DENSE_AHEAD + 4 <= m:
            for a in range(j + _DENSE_AHEAD, j + _DENSE_AHEAD + 4):
                _prefetch_sample(rows, sweep, indices[a])
        if _is_block(m, j, mode, s, snap):
            i0, i1, i2, i3 = indices[j], indices[j + 1], indices[j + 2], indices[j + 3]
            r0, r1, r2, r3 = X[i0], X[i1], X[i2], X[i3]
            scores = _gram4_inline(r0, r1, r2, r3, w)
            d0, d1, d2, d3, q_max, q_min = _block_steps(
                i0, i1, i2, i3, scores, bias * w[d], b2, rows, sweep, loss, inv
            )
            pg_max, pg_min = max(pg_max, q_max), min(pg_min, q_min)
            c0, c1, c2, c3 = d0 * inv, d1 * inv, d2 * inv, d3 * inv
            if c0 != 0.0 or c1 != 0.0 or c2 != 0.0 or c3 != 0.0:
                for k in range(d):
                    w[k] += c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
                w[d] += (c0 + c1 + c2 + c3) * bias
                if mode == 1 and s + 4 > t0:
                    _average_block(
                        r0, r1, r2, r3, i0, i1, i2, i3, (d0, d1, d2, d3), inv, s, t0, bias,
                        sweep.acc_w, sweep.acc_a,
                    )  # fmt: skip
            j += 4
        else:  # one sample: the pass's tail, or the block that holds mode 2's snapshot
            q = _single_step(rows, sweep, params, indices[j], inv, s)
            pg_max, pg_min = max(pg_max, q), min(pg_min, q)
            j += 1
    sweep.pg_range[0] = pg_max
    sweep.pg_range[1] = pg_min


@njit(cache=True, fastmath=FASTMATH)
def _sweep_fused(rows, sweep, params, indices, t_start):
    """:func:`_sdca_sweep` for long rows: w's update by a block is made in the same pass
    that computes the next block's scores and products against the updated w
    (:func:`solvers._kernels.update_gram4`), so that the rows just read are applied from
    cache while the next four stream in; a row whose step was 0 is not read again."""
    X, bias, w, loss = rows.X, rows.bias, sweep.w, params.loss
    mode, t0, snap = params.mode, params.t0, params.snap
    d = X.shape[1]
    m = indices.shape[0]
    inv = 1.0 / params.lmbd_n
    b2 = bias * bias
    pg_max = -np.inf
    pg_min = np.inf
    ready = False  # the block at j has its scores, against the current w, in ``scores``
    scores = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    j = 0
    while j < m:
        s = t_start + j  # steps done before this sample
        if _is_block(m, j, mode, s, snap):
            i0, i1, i2, i3 = indices[j], indices[j + 1], indices[j + 2], indices[j + 3]
            r0, r1, r2, r3 = X[i0], X[i1], X[i2], X[i3]
            if not ready:
                scores = _gram4_inline(r0, r1, r2, r3, w)
            d0, d1, d2, d3, q_max, q_min = _block_steps(
                i0, i1, i2, i3, scores, bias * w[d], b2, rows, sweep, loss, inv
            )
            pg_max, pg_min = max(pg_max, q_max), min(pg_min, q_min)
            c0, c1, c2, c3 = d0 * inv, d1 * inv, d2 * inv, d3 * inv
            moved = c0 != 0.0 or c1 != 0.0 or c2 != 0.0 or c3 != 0.0
            if moved:
                w[d] += (c0 + c1 + c2 + c3) * bias
                if mode == 1 and s + 4 > t0:
                    _average_block(
                        r0, r1, r2, r3, i0, i1, i2, i3, (d0, d1, d2, d3), inv, s, t0, bias,
                        sweep.acc_w, sweep.acc_a,
                    )  # fmt: skip
                # a row whose step was 0 is read as a copy of a moving one: c·x adds exactly
                # 0 either way, and the copy comes from L1 instead of streaming the row again
                f = r0 if c0 != 0.0 else (r1 if c1 != 0.0 else (r2 if c2 != 0.0 else r3))
                r0 = r0 if c0 != 0.0 else f
                r1 = r1 if c1 != 0.0 else f
                r2 = r2 if c2 != 0.0 else f
                r3 = r3 if c3 != 0.0 else f
            j += 4
            ready = _is_block(m, j, mode, s + 4, snap)
            if ready:  # w's update fused with the next block's scores
                n0, n1 = X[indices[j]], X[indices[j + 1]]
                n2, n3 = X[indices[j + 2]], X[indices[j + 3]]
                if moved:
                    scores = _update_gram4_inline(
                        r0, r1, r2, r3, c0, c1, c2, c3, w, n0, n1, n2, n3
                    )
                else:
                    scores = _gram4_inline(n0, n1, n2, n3, w)
            elif moved:
                for k in range(d):
                    w[k] += c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
        else:  # one sample: the pass's tail, or the block that holds mode 2's snapshot
            q = _single_step(rows, sweep, params, indices[j], inv, s)
            pg_max, pg_min = max(pg_max, q), min(pg_min, q)
            j += 1
    sweep.pg_range[0] = pg_max
    sweep.pg_range[1] = pg_min


@njit(cache=True, fastmath=FASTMATH)
def _sdca_sweep(rows, sweep, params, indices, t_start):
    """One SDCA pass over ``indices``, in place: exact coordinate ascent in that order.

    Consecutive samples are taken four at a time. The scores x̃_b·w of a block and its six
    pairwise products x̃_b·x̃_c come from one pass over its four rows; the four coordinate
    steps are then made one after the other, each score corrected by the earlier steps of
    the block (:func:`_block_steps`), and w gets the block's combined update: in a second
    pass over the rows (:func:`_sweep_two_pass`, short rows: see ``_FUSE_MIN_BYTES``) or
    in the pass that computes the next block's scores (:func:`_sweep_fused`). This is
    the same sequential algorithm (equal up to rounding), with four memory streams in flight
    instead of one.

    Parameters
    ----------
    rows : solvers._kernels.DenseRows
        X (n, d) float32/float64, y, ‖x̃_i‖², sample weights (or None), B.
    sweep : Sweep
        w, α, the output accumulators, ``grad`` and ``pg_range`` (in place).
    params : Params
        λn, the loss, the output mode, t0, snap.
    indices : (m,) int64, the samples visited, in order
    t_start : int, steps done before this pass
    """
    X = rows.X
    if (4 * X.itemsize + 8) * X.shape[1] > _FUSE_MIN_BYTES:
        _sweep_fused(rows, sweep, params, indices, t_start)
    else:
        _sweep_two_pass(rows, sweep, params, indices, t_start)


@njit(cache=True, fastmath=FASTMATH)
def _sdca_epoch(rows, sweep, params, indices, t_start, sweep_len, eps_stop):
    """One SDCA epoch: consecutive passes (:func:`_sdca_sweep`) of ``sweep_len`` entries of
    ``indices`` each, stopping after the first pass whose projected-gradient range
    ``pg_range[0] - pg_range[1]`` is at most ``eps_stop``. Returns the number of steps made.

    Without shrinking the epoch is one pass over ``indices`` (``sweep_len = len(indices)``,
    ``eps_stop = -inf``); with it, ``indices`` holds several passes over the active samples
    and the epoch ends once they are solved to ``eps_stop``. ``pg_range`` and ``grad`` are
    those of the last pass (``grad`` of earlier passes where a sample was not revisited).
    Other arguments as in :func:`_sdca_sweep`.
    """
    m = indices.shape[0]
    done = 0
    while done < m:
        end = min(done + sweep_len, m)
        _sdca_sweep(rows, sweep, params, indices[done:end], t_start + done)
        done = end
        if done < m and sweep.pg_range[0] - sweep.pg_range[1] <= eps_stop:
            break
    return done


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _sgd_step(rows, params, i, z, t):
    """a_t of the modified-SGD step t (seeds/000 §2.1.2): the maximiser over the sample's
    box of the dual restricted to the first t samples, given the margin z of w^{(t-1)}."""
    c = weight_of(rows.weights, i)
    loss = params.loss
    h = losses.curvature(loss, rows.sq_norms[i] / (params.lmbd * t), c)
    return losses.coordinate_step(loss, 0.0, losses.gradient(loss, z, 0.0, c), h, c)


@njit(cache=True, fastmath=FASTMATH)
def _sgd_init_epoch(rows, sweep, params, indices):
    """Modified-SGD first epoch (seeds/000 §2.1.2), in place.

    ``indices`` must visit every sample once (a permutation); ``sweep.w`` and
    ``sweep.dual_coef`` must be zero on entry. During the epoch w holds
    u = Σ_{i<t} α_i x̃_i, so that each step costs O(d) (w^{(t-1)} = u / (λ(t-1)) is never
    formed); on exit w = u / (λn) = w(α). Arguments as in :func:`_sdca_epoch`.
    """
    X, y, bias, w, lmbd = rows.X, rows.y, rows.bias, sweep.w, params.lmbd
    d = X.shape[1]
    n = indices.shape[0]
    for j in range(n):
        t = j + 1
        i = indices[j]
        xi = X[i]
        yi = y[i]
        z = 0.0
        if j > 0:
            score = bias * w[d]
            for k in range(d):
                score += xi[k] * w[k]
            z = yi * score / (lmbd * (t - 1))
        alpha = yi * _sgd_step(rows, params, i, z, t)
        sweep.dual_coef[i] = alpha
        if alpha != 0.0:
            for k in range(d):
                w[k] += alpha * xi[k]
            w[d] += alpha * bias
    scale = 1.0 / (lmbd * n)
    for k in range(d + 1):
        w[k] *= scale


@njit(cache=True, fastmath=FASTMATH)
def _sdca_sweep_csr(rows, sweep, params, indices, t_start):
    """CSR twin of :func:`_sdca_sweep`: the same steps in the same order, one sample at a
    time, each reading only the row's stored entries (module docstring, *Sparse input*).

    The rows come in a random order, so each would wait for memory: the row
    ``ROW_AHEAD`` samples ahead (its entries and its y, ‖x̃‖², α) and the entries of w
    that the row ``_W_AHEAD`` samples ahead will read are prefetched while the current
    sample is computed (:func:`solvers._kernels.prefetch`; no effect on the results).

    ``rows`` is a :class:`solvers._kernels.CSRRows` (the canonical CSR arrays of X: data
    float32/float64, cols and indptr int32/int64). Other arguments as in
    :func:`_sdca_sweep`.
    """
    data, cols, indptr, bias = rows.data, rows.cols, rows.indptr, rows.bias
    w, dual_coef, acc_w, acc_a = sweep.w, sweep.dual_coef, sweep.acc_w, sweep.acc_a
    mode, t0, snap, loss = params.mode, params.t0, params.snap, params.loss
    d = w.shape[0] - 1
    m = indices.shape[0]
    inv = 1.0 / params.lmbd_n
    pg_max = -np.inf
    pg_min = np.inf
    for j in range(m):
        if j + ROW_AHEAD < m:
            r = indices[j + ROW_AHEAD]
            prefetch(rows.y, r)
            prefetch(rows.sq_norms, r)
            prefetch(dual_coef, r)
            prefetch_csr_row(data, cols, indptr, r)
            if j + 2 * ROW_AHEAD < m:
                prefetch(indptr, indices[j + 2 * ROW_AHEAD])
        s = t_start + j  # steps done before this sample
        i = indices[j]
        start, end = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        score = bias * w[d] + _csr_dot(data, cols, start, end, w)
        delta, q = _coordinate_step(i, score, rows, sweep, loss, inv)
        pg_max, pg_min = max(pg_max, q), min(pg_min, q)
        # w's entries of the row _W_AHEAD samples ahead, requested along this row's update
        r = indices[j + _W_AHEAD] if j + _W_AHEAD < m else i
        a, b = np.uint64(indptr[r]), np.uint64(indptr[r + 1])
        if delta != 0.0:
            c = delta * inv
            p = start
            while p < end:
                w[np.uint64(cols[p])] += c * np.float64(data[p])
                if a < b:
                    prefetch(w, np.uint64(cols[a]))
                    a += _U1
                p += _U1
            w[d] += c * bias
            if mode == 1 and s + 1 > t0:
                e = s + 1 - t0
                ec = e * c
                p = start
                while p < end:
                    acc_w[np.uint64(cols[p])] += ec * np.float64(data[p])
                    p += _U1
                acc_w[d] += ec * bias
                acc_a[i] += e * delta
        while a < b:
            prefetch(w, np.uint64(cols[a]))
            a += _U1
        if mode == 2 and s + 1 == snap:  # O(d + n) once per fit
            acc_w[:] = w
            acc_a[:] = dual_coef
    sweep.pg_range[0] = pg_max
    sweep.pg_range[1] = pg_min


#: The dense one-epoch kernel :func:`_sdca_epoch`, public for benchmarks that time its
#: arithmetic alone (``benchmarks/epoch_cost.py``, with :func:`kernel_inputs`).
sdca_epoch_kernel = _sdca_epoch


@njit(cache=True, fastmath=FASTMATH)
def _sdca_epoch_csr(rows, sweep, params, indices, t_start, sweep_len, eps_stop):
    """CSR twin of :func:`_sdca_epoch` (passes of :func:`_sdca_sweep_csr`); returns the
    number of steps made. Arguments as in :func:`_sdca_sweep_csr` and :func:`_sdca_epoch`."""
    m = indices.shape[0]
    done = 0
    while done < m:
        end = min(done + sweep_len, m)
        _sdca_sweep_csr(rows, sweep, params, indices[done:end], t_start + done)
        done = end
        if done < m and sweep.pg_range[0] - sweep.pg_range[1] <= eps_stop:
            break
    return done


@njit(cache=True, fastmath=FASTMATH)
def _sgd_init_epoch_csr(rows, sweep, params, indices):
    """CSR twin of :func:`_sgd_init_epoch`: O(nnz(x_t)) per step, one O(d) scaling at the
    end. Arguments as in :func:`_sdca_sweep_csr`."""
    data, cols, indptr, y, bias = rows.data, rows.cols, rows.indptr, rows.y, rows.bias
    w, lmbd = sweep.w, params.lmbd
    d = w.shape[0] - 1
    n = indices.shape[0]
    for j in range(n):
        t = j + 1
        i = indices[j]
        start, end = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        yi = y[i]
        z = 0.0
        if j > 0:
            score = bias * w[d] + _csr_dot(data, cols, start, end, w)
            z = yi * score / (lmbd * (t - 1))
        alpha = yi * _sgd_step(rows, params, i, z, t)
        sweep.dual_coef[i] = alpha
        if alpha != 0.0:
            p = start
            while p < end:
                w[np.uint64(cols[p])] += alpha * np.float64(data[p])
                p += _U1
            w[d] += alpha * bias
    scale = 1.0 / (lmbd * n)
    for k in range(d + 1):
        w[k] *= scale


@njit(cache=True)
def _shrink(active, n_active, rows, sweep, loss, upper, lower, forget):
    """Remove from ``active[:n_active]`` every sample held at a bound by its gradient
    (:func:`solvers.losses.stays_active`; G_i from ``sweep.grad``, NaN: unknown, never
    removed). The survivors are compacted to the front in their order; with ``forget``
    their gradients are marked unknown (NaN), for a next epoch that may not visit them all
    (i.i.d. sampling). Returns their number. ``active`` : (n,) int64, in place.
    """
    y, dual_coef, grad = rows.y, sweep.dual_coef, sweep.grad
    kept = 0
    for p in range(n_active):
        i = active[p]
        a = y[i] * dual_coef[i]
        c = weight_of(rows.weights, i)
        if not losses.stays_active(loss, a, grad[i], upper, lower, c):
            continue
        active[kept] = i
        if forget:
            grad[i] = np.nan
        kept += 1
    return kept


def kernel_inputs(X, y, lmbd: float, *, lmbd_n: float | None = None, shrinking=False):
    """``(rows, sweep, params)`` of :func:`sdca_epoch_kernel` for a fresh fit of the hinge
    (w = α = 0, last-iterate output) on dense X: for benchmarks that time the kernel alone.
    ``lmbd_n`` defaults to λ·n_samples."""
    n, d = X.shape
    rows = kernel_rows(X, y, objectives.row_sq_norms(X), None, 0.0)
    sweep = Sweep(
        np.zeros(d + 1),
        np.zeros(n),
        np.zeros(1),
        np.zeros(1),
        np.full(n, np.nan) if shrinking else None,
        np.zeros(2),
    )
    lmbd_n = lmbd * n if lmbd_n is None else lmbd_n
    return rows, sweep, Params(lmbd, lmbd_n, HINGE, _LAST, 0, -1)


@dataclass
class _State:
    problem: Problem
    rows: object  # DenseRows / CSRRows (sq_norms filled by the timed set-up)
    sweep: Sweep
    params: Params
    cyclic_order: np.ndarray | None
    active: np.ndarray  # shrinking: active[:n_active] are swept, in their base order (else [])
    n_active: int
    eps: float = np.inf  # shrinking: restore every sample once the PG range is below it
    steps: int = 0  # samples processed (steps taken) so far
    swept: int = 0  # size of the set the last epoch swept (n_active before shrinking)
    sgd_first: bool = False  # epoch 1 is the modified-SGD epoch (sgd_init, cold start)


class SDCAClassifier(DeviceMixin, BaseLinearSVM):
    r"""Linear SVM by Stochastic Dual Coordinate Ascent (SDCA, SDCA-Perm, cyclic).

    Minimises :math:`P(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i\phi(y_i x_i^\top w)`
    (hinge or :math:`\gamma`-smoothed hinge) by exact coordinate ascent on its dual
    (Shalev-Shwartz & Zhang, JMLR 2013); see :mod:`solvers.sdca` for the updates.

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        Regularisation :math:`\lambda > 0` (liblinear's ``C = 1/(λ n)``, see
        :func:`solvers.objectives.lmbd_to_C`). ``"auto"`` (the default): :math:`\lambda =
        1/n`, n the number of rows of X, resolved at ``fit`` (``lmbd_``): ``LinearSVC``'s
        default ``C = 1`` (with sample weights n still counts the rows: each weight
        multiplies its sample's loss, as in ``LinearSVC(C=1)``).
    loss : {"hinge", "smooth_hinge", "squared_hinge"}, default="hinge"
        :mod:`solvers.losses`: the hinge, the :math:`\gamma`-smoothed hinge, or the squared
        hinge :math:`\max(0, 1 - z)^2` (``LinearSVC``'s default, the L2-SVM: its dual box
        has no upper bound and gains the diagonal term :math:`a_i^2/4`; the gap stays exact).
    gamma : float, default=1.0
        Smoothing :math:`\gamma \ge 0` of ``smooth_hinge`` (ignored by the other losses;
        ``gamma=0`` is the hinge).
    sampling : {"permutation", "iid", "cyclic"}, default="permutation"
        ``permutation``: a new permutation each epoch (SDCA-Perm); ``iid``: n i.i.d.
        uniform draws per epoch (the analysed SDCA); ``cyclic``: one permutation drawn once,
        repeated (the vocabulary of every solver: :mod:`solvers._sampling`). The old
        spellings ``"perm"`` and ``"random"`` still work for one release, with a
        ``FutureWarning``, and give the same results.
    sgd_init : bool, default=False
        Run the modified-SGD first epoch (over a permutation, whatever ``sampling``), then SDCA.
    average : {False, True, "random"}, default=False
        Output: the last iterate; the mean of the iterates :math:`t_0 \dots T` (α and w
        averaged alike); or the iterate at a uniformly drawn :math:`t \in [t_0, T]`. If the
        run stops on ``tol`` before :math:`t_0` (or before the drawn step), the last iterate
        is returned.
    avg_start : int or None, default=None
        :math:`t_0`, in steps; None is half of all steps, ``max_epochs * n // 2``
        (seeds/001 §2.2). With ``sgd_init`` it is at least ``n`` (the SGD epoch's
        intermediate iterates are not SDCA iterates).
    shrinking : bool, default=False
        Sweep only an *active set* of samples: those not held at a dual bound by their
        gradient (liblinear's rule; see :mod:`solvers.sdca`). A shrunk epoch makes
        ⌊n/|A|⌋ passes over the active set A — fresh permutations of it (``permutation``),
        |A| i.i.d. draws among it each (``iid``; only samples drawn since the last shrink
        can leave), or A in the fixed cyclic order (``cyclic``) — and ends early once A's
        problem is solved, after which every sample gets a full pass. The first epoch is
        full. With ``tol``, the exact gap (over all samples) is computed only when the last
        pass's projected-gradient range predicts it below ``tol`` (at least every 8
        epochs, and for the returned pair): the certificate stays exact, paid for rarely.
        Needs ``average=False`` (the averaged and random-iterate outputs are defined over
        the uniform sweeps of SDCA's analysis, which shrinking replaces). Off by default,
        decided by measurement (``make bench-peers``, one thread, CPU time of a whole
        ``fit``, 2026-11-25; without → with): shrinking is not faster to every ε — blood
        PCA-40 at λ = 1.6, 0.87 → 1.2 ms (one epoch solves it, the bookkeeping is extra),
        skin at 1/n to 1e-2, 0.13 → 0.14 s — but far faster to 1e-4 and 1e-6 at small λ
        (skin 0.94 s → 0.28 s, and 1e-6 unreached in 12 s → 0.96 s; PCA-40 at 1/n 0.37 s →
        0.045 s, 1e-6 unreached → 0.097 s). And every experiment, figure and averaged
        output of the studies is defined on epochs that sweep all n samples. Turn it on to
        solve to 1e-4 or better.
    max_epochs : int, default=1000
        At most this many epochs (``LinearSVC``'s ``max_iter=1000``; at λ = 1/n plain SDCA
        needs a few hundred to reach ``tol=1e-5`` on standardised data).
    tol : float or None, default=1e-5
        Stop when the exact duality gap :math:`P(w(\alpha)) - D(\alpha) \le` ``tol``,
        checked after each epoch outside the timer. ``0`` or ``None``: run all epochs and
        compute no gap at all (``duality_gap_`` is then NaN; see :meth:`duality_gap`).
    bias_multiplier : float, default=1.0
        :math:`B \ge 0`: learn an intercept through a constant feature of value :math:`B`
        (regularised like the other weights, as in VLFeat): the default 1.0 is
        ``LinearSVC``'s intercept (``intercept_scaling=1``, regularised too). 0: no
        intercept (the studies' setting).
    random_state : int, numpy Generator or None, default=None
        Seed of ``numpy.random.default_rng``, the only source of randomness (each binary
        problem of a one-vs-rest fit starts from it).
    class_weight : dict, "balanced" or None, default=None
        scikit-learn's meaning: class ``c``'s samples weigh ``class_weight[c]`` (``"balanced"``:
        ``n_samples / (n_classes * count(c))``, counts weighted by ``sample_weight``), times
        ``sample_weight``. In one-vs-rest the
        positive class of each problem gets its weight and the rest 1, as in ``LinearSVC``.
    warm_start : bool, default=False
        Start the next ``fit`` from this fit's dual point (same samples, same classes):
        α is kept (clipped to the new box if the weights or the loss changed) and
        :math:`\tilde w(\alpha)` recomputed for the new ``lmbd``. On the hinge the box does
        not depend on λ, so a decreasing λ sequence starts each fit close to its optimum
        (:func:`solvers.lambda_path`). ``sgd_init`` applies to cold starts only.
    callback : callable or None, default=None
        Called as ``callback(info)`` with an :class:`solvers.EpochInfo` after every epoch,
        after the epoch's clock has stopped; returning ``True`` stops the fit.
    device : {"cpu", "cuda"}, default="cpu"
        ``"cuda"``: the epochs run on the GPU (:mod:`solvers.gpu.sdca`: block-local SDCA
        rounds combined by an exact line search, the certificate computed on the device),
        needs numba-cuda (``pip install 'sdca-pegasos[gpu]'``) and a GPU. X is copied to the
        device once per fit. Dense fits are bit-deterministic for a seed; CSR fits share
        one w through atomics and are not (their certificate is exact all the same). On
        large dense problems at small λ the GPU rounds converge slowly (a known limit,
        :mod:`solvers.gpu.sdca`); CSR is where the GPU pays (README, "On a GPU").
        ``epoch_times_`` are then GPU seconds of the update kernels (CUDA events).
        Supports every loss, sample and class weights, the bias, warm starts and
        ``sampling`` "permutation" / "cyclic"; not ``"iid"``, ``sgd_init``, ``average``,
        ``shrinking`` (a ValueError says so).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights (scikit-learn's shapes: one row for two classes, one per class otherwise).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        :math:`B w_b`; zero when ``bias_multiplier=0``.
    dual_coef_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Signed dual variables :math:`\alpha_i`, with :math:`y_i\alpha_i \in [0, c_iU]`
        (``y`` in ±1, +1 for ``classes_[1]`` or the row's class; :math:`c_i` the sample
        weights, :math:`U = 1`, or :math:`\infty` for the squared
        hinge), matching ``coef_``.
    classes_ : ndarray of shape (n_classes,)
    lmbd_ : float
        The :math:`\lambda` of the fit (``1/n_samples`` when ``lmbd="auto"``).
    n_epochs_ : int or ndarray of shape (n_classes,)
        Epochs run (``n_iter_``: the largest).
    duality_gap_ : float or ndarray of shape (n_classes,)
        Gap of the returned pair when ``tol > 0``, else NaN.
    converged_ : bool or ndarray of shape (n_classes,)
    epoch_times_ : ndarray of shape (n_epochs_,), or a list of them (one per class)
        CPU seconds (``time.process_time``) of the update loop of each epoch.
    epoch_wall_times_ : ndarray of shape (n_epochs_,), or a list of them
    setup_time_, setup_wall_time_ : float or ndarray of shape (n_classes,)
        CPU and wall seconds of the per-fit precomputation (squared norms; w(α) of a warm
        start), before epoch 1.
    """

    _parameter_constraints: dict = {
        **BaseLinearSVM._parameter_constraints,
        "loss": [StrOptions({"hinge", "smooth_hinge", "squared_hinge"})],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "sampling": [
            StrOptions(
                set(SAMPLINGS) | set(DEPRECATED_SAMPLINGS["SDCAClassifier"]),
                deprecated=set(DEPRECATED_SAMPLINGS["SDCAClassifier"]),
            )
        ],
        "sgd_init": ["boolean"],
        "average": ["boolean", StrOptions({"random"})],
        "avg_start": [Interval(Integral, 0, None, closed="left"), None],
        "shrinking": ["boolean"],
        **DEVICE_CONSTRAINT,
    }

    _supports_sparse = True
    _gpu_driver = "sdca"

    def __init__(
        self,
        lmbd="auto",
        *,
        loss="hinge",
        gamma=1.0,
        sampling="permutation",
        sgd_init=False,
        average=False,
        avg_start=None,
        shrinking=False,
        max_epochs=1000,
        tol=1e-5,
        bias_multiplier=1.0,
        random_state=None,
        class_weight=None,
        warm_start=False,
        callback=None,
        device="cpu",
    ):
        self.lmbd = lmbd
        self.loss = loss
        self.gamma = gamma
        self.sampling = sampling
        self.sgd_init = sgd_init
        self.average = average
        self.avg_start = avg_start
        self.shrinking = shrinking
        self.max_epochs = max_epochs
        self.tol = tol
        self.bias_multiplier = bias_multiplier
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.callback = callback
        self.device = device

    @property
    def loss_function(self) -> Loss:
        return losses.make_loss(self.loss, self.gamma)

    def _gpu_unsupported(self) -> list[str]:
        bad = {
            "sampling='iid'": self._sampling() == "iid",
            "sgd_init=True": bool(self.sgd_init),
            f"average={self.average!r}": self.average is not False,
            "shrinking=True": bool(self.shrinking),
        }
        return [name for name, refused in bad.items() if refused]

    def _sampling(self) -> str:
        """``sampling`` in the current vocabulary (a deprecated spelling translated)."""
        return resolve_sampling("SDCAClassifier", self.sampling)

    def _mode(self) -> int:
        if self.average == "random":
            return _RANDOM
        return _AVERAGE if self.average else _LAST

    def _kernel_key(self) -> tuple:
        return (bool(self.sgd_init), bool(self.shrinking), self.device)

    def _check_params(self) -> None:
        resolve_sampling("SDCAClassifier", self.sampling, warn=True)

    def _check_problem(self, problem: Problem) -> None:
        if self.shrinking and self.average is not False:
            raise ValueError(
                f"shrinking=True needs average=False (got average={self.average!r}): the "
                "averaged and random-iterate outputs are defined over SDCA's uniform sweeps, "
                "which shrinking replaces. Pass shrinking=False to average."
            )

    def _warm_up_overrides(self) -> dict:
        return {"avg_start": None}

    def _init_state(self, problem: Problem, rng: np.random.Generator) -> _State:
        n, d = problem.n_samples, problem.n_features
        mode = self._mode()
        total = problem.epochs * n
        t0 = total // 2 if self.avg_start is None else min(int(self.avg_start), total)
        sgd_first = bool(self.sgd_init) and problem.init is None
        if sgd_first:
            t0 = max(t0, n)
        snap = -1
        if mode == _RANDOM:  # a child stream: the index stream is the same for every output
            snap = int(rng.spawn(1)[0].integers(t0, total, endpoint=True))
        cyclic_order = rng.permutation(n) if self._sampling() == "cyclic" else None
        sweep = Sweep(
            w=np.zeros(d + 1),
            dual_coef=np.zeros(n),
            acc_w=np.zeros(d + 1 if mode else 1),
            acc_a=np.zeros(n if mode else 1),
            grad=np.full(n, np.nan) if self.shrinking else None,
            pg_range=np.array([-np.inf, np.inf]),
        )
        params = Params(problem.lmbd, problem.lmbd * n, self.loss_function, mode, t0, snap)
        active = np.empty(0, dtype=np.int64)
        if self.shrinking:
            active = np.arange(n) if cyclic_order is None else cyclic_order.copy()
        rows = problem.rows(np.empty(n))
        return _State(problem, rows, sweep, params, cyclic_order, active, n, sgd_first=sgd_first)

    def _setup(self, state: _State) -> None:
        p = state.problem
        objectives.row_sq_norms(p.X, p.bias, out=state.rows.sq_norms)
        if p.init is not None:  # warm start: the last α, in the new box; w(α) for this λ
            box = state.params.loss.box(state.rows.weights, p.n_samples)
            a = np.clip(p.y * p.init.dual_coef, 0.0, box)
            state.sweep.dual_coef[:] = p.y * a
            state.sweep.w[:] = objectives.dual_weights(p.X, state.sweep.dual_coef, p.lmbd, p.bias)

    def _epoch_indices(self, state: _State, rng: np.random.Generator, epoch: int) -> np.ndarray:
        n = state.problem.n_samples
        if epoch == 1 and state.sgd_first:
            return state.cyclic_order if self._sampling() == "cyclic" else rng.permutation(n)
        if state.n_active < n:  # as many passes over the active set as fit in n steps
            sweeps = n // state.n_active
            active = state.active[: state.n_active]
            return active_indices(rng, active, self._sampling(), sweeps)
        return epoch_indices(rng, n, self._sampling(), state.cyclic_order)

    def _run_epoch(self, state: _State, indices: np.ndarray, epoch: int) -> None:
        p = state.problem
        state.swept = state.n_active
        if epoch == 1 and state.sgd_first:
            sgd_kernel = _sgd_init_epoch_csr if p.sparse else _sgd_init_epoch
            sgd_kernel(state.rows, state.sweep, state.params, indices)
            steps = indices.shape[0]
        else:
            shrunk = state.n_active < p.n_samples
            kernel = _sdca_epoch_csr if p.sparse else _sdca_epoch
            steps = kernel(
                state.rows,
                state.sweep,
                state.params,
                indices,
                state.steps,
                state.n_active if shrunk else indices.shape[0],
                state.eps if shrunk else -np.inf,
            )
            if self.shrinking:
                self._update_active_set(state)
        state.steps += steps
        snap = state.params.snap
        if state.params.mode == _RANDOM and snap == state.steps and epoch == 1 and state.sgd_first:
            state.sweep.acc_w[:] = state.sweep.w  # the SGD kernel keeps no snapshot: its
            state.sweep.acc_a[:] = state.sweep.dual_coef  # last step is the snapshot

    def _update_active_set(self, state: _State) -> None:
        """Shrink after an epoch, or restore every sample (see ``shrinking``); timed."""
        n = state.problem.n_samples
        pg_max, pg_min = state.sweep.pg_range
        if state.n_active == n:  # a full pass sets the precision of the next shrunk phase
            state.eps = _UNSHRINK_RATIO * (pg_max - pg_min)
        elif pg_max - pg_min <= state.eps:  # the active problem is solved: full pass next
            self._restore_all(state)
            return
        # as liblinear, a projected gradient within 1e-12 of 0 counts as 0 (rounding)
        upper = pg_max if pg_max > _PG_ZERO else np.inf
        lower = pg_min if pg_min < -_PG_ZERO else -np.inf
        state.n_active = _shrink(
            state.active,
            state.n_active,
            state.rows,
            state.sweep,
            state.params.loss,
            upper,
            lower,
            self._sampling() == "iid",  # permutation and cyclic passes visit every active one
        )
        if state.n_active == 0:  # every sample at a bound: check them all
            self._restore_all(state)

    @staticmethod
    def _restore_all(state: _State) -> None:
        state.active[:] = (
            np.arange(state.active.shape[0]) if state.cyclic_order is None else state.cyclic_order
        )
        state.n_active = state.active.shape[0]
        state.sweep.grad[:] = np.nan  # gradients from before the full pass are stale

    def _kkt_statistic(self, state: _State) -> float | None:
        """Shrinking: the last pass's projected-gradient range (liblinear's stopping
        statistic, free with the sweep); without shrinking: None (a gap every epoch)."""
        if not self.shrinking:
            return None
        pg_max, pg_min = state.sweep.pg_range
        return float(pg_max - pg_min) if pg_max >= pg_min else 0.0

    def _epoch_record(self, state: _State) -> dict:
        return {"n_active": state.swept, "n_samples_seen": state.steps}

    def _current(self, state: _State) -> tuple[np.ndarray, np.ndarray]:
        return state.sweep.w, state.sweep.dual_coef

    def _output(self, state: _State) -> tuple[np.ndarray, np.ndarray]:
        sweep, params = state.sweep, state.params
        if params.mode == _AVERAGE and state.steps >= params.t0:
            count = state.steps - params.t0 + 1
            return sweep.w - sweep.acc_w / count, sweep.dual_coef - sweep.acc_a / count
        if params.mode == _RANDOM and state.steps >= params.snap:
            return sweep.acc_w, sweep.acc_a
        return sweep.w, sweep.dual_coef
