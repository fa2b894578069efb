r"""The kernels of :mod:`sdca_pegasos.solvers.sdca.estimator`: one SDCA epoch and the modified-SGD
first epoch, each written once over the row-access layer of :mod:`sdca_pegasos.solvers.core.rows`,
and :func:`sdca_sweep`, the pass that the shrinking epoch
(:mod:`sdca_pegasos.solvers.sdca.shrinking`) also makes.

Dense rows are swept four samples at a time (:func:`sweep_blocks`: one pass over a block's rows
gives its scores and pairwise products, :func:`sdca_pegasos.solvers.core.rows.gram4`); CSR rows one
sample at a time (:func:`sweep_samples`), the row and the entries of w it will read prefetched a
few samples ahead. :func:`sdca_epoch` calls whichever the type of ``rows`` selects, at compile
time. The algebra is in :mod:`sdca_pegasos.solvers.sdca.estimator`'s docstring."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.core.losses import HINGE, Loss
from sdca_pegasos.solvers.core.passes import row_sq_norms
from sdca_pegasos.solvers.core.rows import (
    FASTMATH,
    ROW_AHEAD,
    U1,
    csr_dot,
    fma,
    gram4,
    is_array,
    is_csr_rows,
    kernel_rows,
    prefetch,
    prefetch_csr_row,
    prefetch_optional,
    prefetch_row,
    row_axpy,
    row_dot,
    store,
    update_gram4,
    weight_of,
)

# Output modes shared by the kernels.
LAST, AVERAGE, RANDOM = 0, 1, 2

#: When a block's four rows and w together exceed this many bytes (about L1's size), w's
#: block update is fused with the next block's scores (one pass over the rows instead of
#: two); smaller rows stay in L1 between the two passes, and there the fused loop (which
#: carries the next block's ten products from one block to the next) costs more than it
#: saves. Measured crossover on a 32 KiB-L1 core: d ≈ 700 in float64, ≈ 900 in float32.
#: Same iterates either way.
_FUSE_MIN_BYTES = 24 * 1024

#: CSR sweep: the entries of w that the row this many samples ahead reads are prefetched
# (the row itself ``ROW_AHEAD`` ahead, :data:`sdca_pegasos.solvers.core.rows.ROW_AHEAD`). Measured
# on a
#: 50,000 × 200,000 matrix with 40 nonzeros per row (``make bench``): 2 is near the best,
#: 1–3 within 10 %.
_W_AHEAD = 2

#: Dense short-row sweep: prefetch the samples this many steps ahead (their row's first
#: cache line, y, ‖x̃‖², α, G). Measured on skin (245,057 × 3, one epoch, CPU time on a
#: loaded 2-core machine): 8.1–8.9 ms without, 5.8 ms at 8 ahead, 5.6 ms at 16.
_DENSE_AHEAD = 16

# Per-block helpers inlined into the sweeps: a call with up to 13 array arguments costs more
# than the arithmetic on short rows.
_gram4_inline = njit(cache=True, fastmath=FASTMATH, inline="always")(gram4.py_func)
_update_gram4_inline = njit(cache=True, fastmath=FASTMATH, inline="always")(update_gram4.py_func)


#: A pass's projected-gradient range (max PG_i, min PG_i) before its first step: each step
#: widens it (:func:`_widen`), and the pass stores it in ``Sweep.pg_range``.
_PG_EMPTY = (-np.inf, np.inf)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _widen(pg, q_max, q_min):
    """The range ``pg`` widened to hold ``q_max`` and ``q_min`` (a step's PG_i: both)."""
    return max(pg[0], q_max), min(pg[1], q_min)


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


# Same seed, same bits, in every process. Numba links a copy of each kernel a sweep calls into
# the sweep's machine code and optimises it again there; which copy runs depends on whether the
# process compiled the kernels or loaded them from the cache (the first one loaded is used).
# Fast-math lets LLVM fuse a product into the sum it feeds (one rounding instead of two) and
# divide by a reciprocal wherever it sees fit, and the copies differed there: the two-pass sweep's
# own code and its copy in sweep_blocks had 101 and 104 FMAs, 12 and 11 divisions, for weighted
# κ > 0, and α differed in the last bit from the first epoch on (``tests/test_sdca.py::
# test_same_bits_whether_compiled_or_cached``). So a step's arithmetic has the same roundings
# wherever the optimiser puts it: :func:`_coordinate_step` is compiled without fast-math (a
# function of its own, which LLVM inlines: no speed lost), and :func:`_block_steps` corrects
# the scores with explicit FMAs (:func:`sdca_pegasos.solvers.core.rows.fma`).
@njit(cache=True)  # no fast-math: see above
def _coordinate_step(i, score, rows, sweep, loss, inv_lmbd_n):
    """Exact maximisation of D along coordinate i given x̃_i·w = ``score``
    (:func:`sdca_pegasos.solvers.core.losses.coordinate_step`).

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
    earlier steps: x̃_b·w_{after c} = x̃_b·w + Σ_{c<b} Δ_c (x̃_b·x̃_c + B²) / (λn), each term
    added by one FMA (the rounding does not depend on where the optimiser puts it).

    ``scores`` is what :func:`sdca_pegasos.solvers.core.rows.gram4` returns for the block's rows
    against the w before the block; ``wb`` = B·w_b. Returns ``(Δ0, Δ1, Δ2, Δ3, max PG, min PG)``.
    """
    g0, g1, g2, g3, h10, h20, h21, h30, h31, h32 = scores
    d0, q0 = _coordinate_step(i0, g0 + wb, rows, sweep, loss, inv)
    c0 = d0 * inv
    d1, q1 = _coordinate_step(i1, fma(c0, h10 + b2, g1 + wb), rows, sweep, loss, inv)
    c1 = d1 * inv
    score2 = fma(c1, h21 + b2, fma(c0, h20 + b2, g2 + wb))
    d2, q2 = _coordinate_step(i2, score2, rows, sweep, loss, inv)
    c2 = d2 * inv
    score3 = fma(c2, h32 + b2, fma(c1, h31 + b2, fma(c0, h30 + b2, g3 + wb)))
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


@njit(cache=True, fastmath=FASTMATH)
def _csr_axpy_asking(data, cols, p, end, c, w, a, b):
    """``w[cols[q]] += c · data[q]`` for q in [p, end) (a CSR row's update), asking along
    the way for w's entries at ``cols[a:b]`` (the row a later step reads), one per entry
    updated; returns how far ``a`` got."""
    while p < end:
        w[np.uint64(cols[p])] += c * np.float64(data[p])
        if a < b:
            prefetch(w, np.uint64(cols[a]))
            a += U1
        p += U1
    return a


@njit(cache=True, fastmath=FASTMATH)
def _ask_entries(w, cols, a, b):
    """Ask for w's entries at ``cols[a:b]`` (no effect on any result)."""
    while a < b:
        prefetch(w, np.uint64(cols[a]))
        a += U1


def _axpy_ahead(rows, i, c, w, moved, r):
    """``w[:d] += c · x_i`` when ``moved``; for a CSR row, the entries of w that row ``r`` will
    read are prefetched along the update (or alone when not ``moved``). A dense row is updated as
    :func:`sdca_pegasos.solvers.core.rows.row_axpy` and nothing is prefetched (kernels only)."""


@overload(_axpy_ahead, jit_options={"fastmath": FASTMATH})
def _axpy_ahead_impl(rows, i, c, w, moved, r):
    if is_csr_rows(rows):

        def csr(rows, i, c, w, moved, r):
            data, cols, indptr = rows.data, rows.cols, rows.indptr
            a, b = np.uint64(indptr[r]), np.uint64(indptr[r + 1])
            if moved:
                p, end = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
                a = _csr_axpy_asking(data, cols, p, end, c, w, a, b)
            _ask_entries(w, cols, a, b)

        return csr

    def dense(rows, i, c, w, moved, r):
        if moved:
            row_axpy(rows, i, c, w)

    return dense


def _prefetch_ahead(rows, sweep, r, later):
    """Ask for sample ``r``'s row, y, ‖x̃‖² and α, and (CSR) for the row pointer of the
    sample ``later`` (kernels only; no effect on any result)."""


@overload(_prefetch_ahead, jit_options={"fastmath": FASTMATH})
def _prefetch_ahead_impl(rows, sweep, r, later):
    if is_csr_rows(rows):

        def csr(rows, sweep, r, later):
            prefetch_row(rows, r)
            prefetch(sweep.dual_coef, r)
            if later >= 0:
                prefetch(rows.indptr, later)

        return csr

    def dense(rows, sweep, r, later):
        prefetch_row(rows, r)
        prefetch(sweep.dual_coef, r)

    return dense


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _one_step(rows, sweep, params, i, inv, done, ahead):
    """Step number done + 1 alone, on sample i (score from its own pass over the row); returns
    its PG. ``ahead``: the sample whose entries of w a CSR row prefetches along the update."""
    bias, w = rows.bias, sweep.w
    acc_w, acc_a = sweep.acc_w, sweep.acc_a
    mode, t0 = params.mode, params.t0
    bias_at = w.shape[0] - 1
    score = row_dot(rows, i, w, bias * w[bias_at])
    delta, q = _coordinate_step(i, score, rows, sweep, params.loss, inv)
    moved = delta != 0.0
    step = delta * inv
    _axpy_ahead(rows, i, step, w, moved, ahead)
    if moved:
        w[bias_at] += step * bias
        if mode == 1 and done + 1 > t0:
            e = done + 1 - t0
            row_axpy(rows, i, e * step, acc_w)
            acc_w[bias_at] += e * step * bias
            acc_a[i] += e * delta
    if mode == 2 and done + 1 == params.snap:  # O(d + n) once per fit
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
def _sweep_dense(rows, sweep, params, indices, t_start, fused):
    """:func:`sweep_blocks`'s loop, compiled once per schedule: ``fused`` None (two-pass)
    or True (fused). A None argument is a type, so Numba prunes the other schedule's
    branches (``is None`` tests) before it compiles: each loop carries only its own.

    Two-pass (short rows): per block, one pass for the scores and products, then one for w's
    update; the samples ``_DENSE_AHEAD`` steps ahead are prefetched (rows visited in a random
    order: on small d each step is bound by memory latency, not by its arithmetic). Fused (long
    rows): w's update by a block is made in the same pass that computes the next block's scores and
    products against the updated w (:func:`sdca_pegasos.solvers.core.rows.update_gram4`), so that
    the rows just read are applied from cache while the next four stream in; a row whose step was 0
    is not read again. The steps and their order are the same."""
    if fused is not None and not fused:  # False would not be pruned as None is: refused
        raise ValueError("_sweep_dense: fused is None (two-pass) or True")
    X, bias, w, loss = rows.X, rows.bias, sweep.w, params.loss
    mode, t0, snap = params.mode, params.t0, params.snap
    d = X.shape[1]
    m = indices.shape[0]
    inv = 1.0 / params.lmbd_n
    b2 = bias * bias
    pg = _PG_EMPTY
    ready = False  # fused: the block at j has its scores, against the current w, in ``scores``
    scores = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    j = 0
    while j < m:
        s = t_start + j  # steps done before this sample
        if fused is None and j + _DENSE_AHEAD + 4 <= m:
            for a in range(j + _DENSE_AHEAD, j + _DENSE_AHEAD + 4):
                _prefetch_sample(rows, sweep, indices[a])
        if _is_block(m, j, mode, s, snap):
            i0, i1, i2, i3 = indices[j], indices[j + 1], indices[j + 2], indices[j + 3]
            r0, r1, r2, r3 = X[i0], X[i1], X[i2], X[i3]
            if not ready:
                scores = _gram4_inline(r0, r1, r2, r3, w)
            d0, d1, d2, d3, q_max, q_min = _block_steps(
                i0, i1, i2, i3, scores, bias * w[d], b2, rows, sweep, loss, inv
            )
            pg = _widen(pg, q_max, q_min)
            c0, c1, c2, c3 = d0 * inv, d1 * inv, d2 * inv, d3 * inv
            moved = c0 != 0.0 or c1 != 0.0 or c2 != 0.0 or c3 != 0.0
            if moved:
                if fused is None:
                    for k in range(d):
                        w[k] += c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
                w[d] += (c0 + c1 + c2 + c3) * bias
                if mode == 1 and s + 4 > t0:
                    _average_block(
                        r0, r1, r2, r3, i0, i1, i2, i3, (d0, d1, d2, d3), inv, s, t0, bias,
                        sweep.acc_w, sweep.acc_a,
                    )  # fmt: skip
                if fused is not None:
                    # a row whose step was 0 is read as a copy of a moving one: c·x adds
                    # exactly 0 either way, and the copy comes from L1 instead of streaming
                    # the row again
                    f = r0 if c0 != 0.0 else (r1 if c1 != 0.0 else (r2 if c2 != 0.0 else r3))
                    r0 = r0 if c0 != 0.0 else f
                    r1 = r1 if c1 != 0.0 else f
                    r2 = r2 if c2 != 0.0 else f
                    r3 = r3 if c3 != 0.0 else f
            j += 4
            if fused is not None:
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
            q = _one_step(rows, sweep, params, indices[j], inv, s, indices[j])
            pg = _widen(pg, q, q)
            j += 1
    sweep.pg_range[0], sweep.pg_range[1] = pg


@njit(cache=True, fastmath=FASTMATH)
def sweep_blocks(rows, sweep, params, indices, t_start):
    """One SDCA pass over ``indices`` of dense rows, in place: exact coordinate ascent in
    that order.

    Consecutive samples are taken four at a time. The scores x̃_b·w of a block and its six
    pairwise products x̃_b·x̃_c come from one pass over its four rows; the four coordinate
    steps are then made one after the other, each score corrected by the earlier steps of
    the block (:func:`_block_steps`), and w gets the block's combined update: in a second
    pass over the rows (short rows: see ``_FUSE_MIN_BYTES``) or in the pass that computes
    the next block's scores (:func:`_sweep_dense`, one loop for the two schedules). This is
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
        _sweep_dense(rows, sweep, params, indices, t_start, True)
    else:
        _sweep_dense(rows, sweep, params, indices, t_start, None)


@njit(cache=True, fastmath=FASTMATH)
def sweep_samples(rows, sweep, params, indices, t_start):
    """One SDCA pass over ``indices``, one sample at a time (:func:`_one_step`): the sweep
    of CSR rows, each step reading only the row's stored entries (module docstring, *Sparse
    input*). Dense rows are swept in blocks of four instead (:func:`sweep_blocks`): on the
    same dense rows this sweep is the slower one (``tools/sdca_sweeps.py``: 1.1–1.6× the
    blocked sweep's epoch at d = 500–2000, 6× at d = 3).

    The rows come in a random order, so each would wait for memory: the row
    ``ROW_AHEAD`` samples ahead (its entries and its y, ‖x̃‖², α) and the entries of w
    that the row ``_W_AHEAD`` samples ahead will read are prefetched while the current
    sample is computed (:func:`sdca_pegasos.solvers.core.rows.prefetch`; no effect on the results).

    ``rows``: a :class:`sdca_pegasos.solvers.core.rows.CSRRows` or
    :class:`sdca_pegasos.solvers.core.rows.DenseRows`. Other arguments as in :func:`sweep_blocks`.
    """
    m = indices.shape[0]
    inv = 1.0 / params.lmbd_n
    pg = _PG_EMPTY
    for j in range(m):
        if j + ROW_AHEAD < m:
            later = indices[j + 2 * ROW_AHEAD] if j + 2 * ROW_AHEAD < m else -1
            _prefetch_ahead(rows, sweep, indices[j + ROW_AHEAD], later)
        i = indices[j]
        ahead = indices[j + _W_AHEAD] if j + _W_AHEAD < m else i
        q = _one_step(rows, sweep, params, i, inv, t_start + j, ahead)
        pg = _widen(pg, q, q)
    sweep.pg_range[0], sweep.pg_range[1] = pg


@njit(cache=True, fastmath=FASTMATH)
def sweep_csr(rows, sweep, params, indices, t_start):
    """:func:`sweep_samples` on CSR rows with every array taken out of ``rows`` and ``sweep``
    once, before the loop: the same steps in the same order, the same bits (tested), and
    the sweep the CSR epoch runs. Written apart because it pays: on a 50,000 × 200,000 CSR
    matrix with 40 nonzeros per row (the ``make bench`` problem), the generic loop, whose
    step reaches each array through the row-access layer at every sample, takes 2.7× this
    sweep's CPU time per epoch (18 ms against 6.7 ms, ``benchmarks/epoch_cost.py``).
    Arguments as in :func:`sweep_samples`."""
    data, cols, indptr, bias = rows.data, rows.cols, rows.indptr, rows.bias
    w, dual_coef, acc_w, acc_a = sweep.w, sweep.dual_coef, sweep.acc_w, sweep.acc_a
    mode, t0, snap, loss = params.mode, params.t0, params.snap, params.loss
    d = w.shape[0] - 1
    m = indices.shape[0]
    inv = 1.0 / params.lmbd_n
    pg = _PG_EMPTY
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
        score = bias * w[d] + csr_dot(data, cols, start, end, w)
        delta, q = _coordinate_step(i, score, rows, sweep, loss, inv)
        pg = _widen(pg, q, q)
        # w's entries of the row _W_AHEAD samples ahead, requested along this row's update
        r = indices[j + _W_AHEAD] if j + _W_AHEAD < m else i
        a, b = np.uint64(indptr[r]), np.uint64(indptr[r + 1])
        if delta != 0.0:
            c = delta * inv
            a = _csr_axpy_asking(data, cols, start, end, c, w, a, b)
            w[d] += c * bias
            if mode == 1 and s + 1 > t0:
                e = s + 1 - t0
                ec = e * c
                p = start
                while p < end:
                    acc_w[np.uint64(cols[p])] += ec * np.float64(data[p])
                    p += U1
                acc_w[d] += ec * bias
                acc_a[i] += e * delta
        _ask_entries(w, cols, a, b)
        if mode == 2 and s + 1 == snap:  # O(d + n) once per fit
            acc_w[:] = w
            acc_a[:] = dual_coef
    sweep.pg_range[0], sweep.pg_range[1] = pg


def sdca_sweep(rows, sweep, params, indices, t_start):
    """One SDCA pass over ``indices``, in place: :func:`sweep_blocks` for dense rows,
    :func:`sweep_csr` for CSR rows, chosen when the caller compiles (kernels only)."""


@overload(sdca_sweep, jit_options={"fastmath": FASTMATH})
def _sdca_sweep_impl(rows, sweep, params, indices, t_start):
    if is_csr_rows(rows):
        return lambda rows, sweep, params, indices, t_start: sweep_csr(
            rows, sweep, params, indices, t_start
        )
    return lambda rows, sweep, params, indices, t_start: sweep_blocks(
        rows, sweep, params, indices, t_start
    )


@njit(cache=True, fastmath=FASTMATH)
def sdca_epoch(rows, sweep, params, indices, t_start, sweep_len, eps_stop):
    """One SDCA epoch: consecutive passes (:func:`sdca_sweep`) of ``sweep_len`` entries of
    ``indices`` each, stopping after the first pass whose projected-gradient range
    ``pg_range[0] - pg_range[1]`` is at most ``eps_stop``. Returns the number of steps made.

    Without shrinking the epoch is one pass over ``indices`` (``sweep_len = len(indices)``,
    ``eps_stop = -inf``); with it, ``indices`` holds several passes over the active samples
    and the epoch ends once they are solved to ``eps_stop``. ``pg_range`` and ``grad`` are
    those of the last pass (``grad`` of earlier passes where a sample was not revisited).
    Other arguments as in :func:`sdca_sweep`.
    """
    m = indices.shape[0]
    done = 0
    while done < m:
        end = min(done + sweep_len, m)
        sdca_sweep(rows, sweep, params, indices[done:end], t_start + done)
        done = end
        if done < m and sweep.pg_range[0] - sweep.pg_range[1] <= eps_stop:
            break
    return done


@njit(cache=True, fastmath=FASTMATH)
def sdca_epochs(rows, sweep, params, indices, t_start, made):
    """Epochs of SDCA without shrinking in one call: epoch j is one pass over ``indices[j]``
    (:func:`sdca_epoch` with ``sweep_len = m``, ``eps_stop = -inf``), in order, as that many
    calls of it would make them. Returns the number of steps made.

    Parameters
    ----------
    indices : (k, m) int64, C-contiguous
        Row j: the samples epoch j visits, in order (its index array, drawn by the driver).
    t_start : int, steps done before the first epoch
    made : (k,) int64, out
        The steps each epoch made.

    Other arguments as in :func:`sdca_sweep`.
    """
    done = 0
    m = indices.shape[1]
    for j in range(indices.shape[0]):
        made[j] = sdca_epoch(rows, sweep, params, indices[j], t_start + done, m, -np.inf)
        done += made[j]
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
def sgd_init_epoch(rows, sweep, params, indices):
    """Modified-SGD first epoch (seeds/000 §2.1.2), in place.

    ``indices`` must visit every sample once (a permutation); ``sweep.w`` and
    ``sweep.dual_coef`` must be zero on entry. During the epoch w holds
    u = Σ_{i<t} α_i x̃_i, so that each step costs O(d) (w^{(t-1)} = u / (λ(t-1)) is never
    formed); on exit w = u / (λn) = w(α). Arguments as in :func:`sdca_epoch`.
    """
    y, bias, w, lmbd = rows.y, rows.bias, sweep.w, params.lmbd
    d = w.shape[0] - 1
    n = indices.shape[0]
    for j in range(n):
        t = j + 1
        i = indices[j]
        yi = y[i]
        z = 0.0
        if j > 0:
            z = yi * row_dot(rows, i, w, bias * w[d]) / (lmbd * (t - 1))
        alpha = yi * _sgd_step(rows, params, i, z, t)
        sweep.dual_coef[i] = alpha
        if alpha != 0.0:
            row_axpy(rows, i, alpha, w)
            w[d] += alpha * bias
    scale = 1.0 / (lmbd * n)
    for k in range(d + 1):
        w[k] *= scale


def kernel_inputs(X, y, lmbd: float, *, lmbd_n: float | None = None, shrinking=False):
    """``(rows, sweep, params)`` of :func:`sdca_epoch_kernel` for a fresh fit of the hinge
    (w = α = 0, last-iterate output) on dense X: for benchmarks that time the kernel alone.
    ``lmbd_n`` defaults to λ·n_samples."""
    n, d = X.shape
    rows = kernel_rows(X, y, row_sq_norms(X), None, 0.0)
    sweep = Sweep(
        np.zeros(d + 1),
        np.zeros(n),
        np.zeros(1),
        np.zeros(1),
        np.full(n, np.nan) if shrinking else None,
        np.zeros(2),
    )
    lmbd_n = lmbd * n if lmbd_n is None else lmbd_n
    return rows, sweep, Params(lmbd, lmbd_n, HINGE, LAST, 0, -1)


#: The two sweeps one epoch chooses between (dense rows four at a time, any rows one at a time),
#: public with :func:`sdca_epoch` and :func:`kernel_inputs` for the benchmarks that time their
#: arithmetic alone (``benchmarks/epoch_cost.py``, ``tools/sdca_sweeps.py``).
KERNEL_SWEEPS = {"blocks": sweep_blocks, "one by one": sweep_samples}
