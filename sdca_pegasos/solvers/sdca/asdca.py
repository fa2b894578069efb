r"""Accelerated mini-batch SDCA (Shalev-Shwartz & Zhang, NIPS 2013) for the smoothed-hinge SVM.

Minimises the :math:`\gamma`-smoothed primal :math:`P_\gamma(\tilde w)` of
:mod:`sdca_pegasos.solvers.core.objectives` (:math:`\gamma > 0`), with the dual
:math:`D_\gamma(\alpha)` of the same module. Written as in seeds/001 §2.5 with :math:`g(w) =
\frac\lambda2\|w\|^2`, :math:`\nabla g^*(\bar\alpha) = \bar\alpha/\lambda` and :math:`\phi_i(w) =
\phi_\gamma(y_i\tilde x_i^\top w)`, iteration :math:`t` draws a set :math:`I` of :math:`m` distinct
samples and does

.. math::

    u &= (1-\theta)\,w + \theta\,\nabla g^*(\bar\alpha), \\
    \alpha_i &\leftarrow (1-\theta)\,\alpha_i - \theta\,\nabla\phi_i(u) \quad (i \in I), \\
    \bar\alpha &\leftarrow \bar\alpha + \tfrac1n \textstyle\sum_{i\in I}\Delta\alpha_i, \\
    w &\leftarrow (1-\theta)\,w + \theta\,\nabla g^*(\bar\alpha),

from :math:`\alpha = 0, w = 0`. Each :math:`\alpha_i \in \mathbb{R}^{d+1}` stays a multiple of
:math:`\tilde x_i`, as :math:`\nabla\phi_i(u) = \phi_\gamma'(y_i\tilde x_i^\top u)\,y_i \tilde
x_i`, so the solver stores one scalar per sample, :math:`\alpha_i = a_i\tilde x_i`, with
:math:`a_i` the signed dual coefficient of :mod:`sdca_pegasos.solvers.sdca.estimator` (:math:`y_i
a_i \in [0, 1]`):

.. math::

    y_i a_i \leftarrow (1-\theta)\,y_i a_i + \theta\,(-\phi_\gamma'(y_i\tilde x_i^\top u)),
    \qquad -\phi_\gamma'(z) = 1\ (z \le 1-\gamma),\ \ (1-z)/\gamma\ (1-\gamma < z < 1),\ \ 0\
    (z \ge 1),

a convex combination of two numbers of :math:`[0, 1]`; the kernel clips the result to :math:`[0,
1]`, which only ever removes round-off (one ulp of :math:`1 - \theta + \theta`). Then :math:`\nabla
g^*(\bar\alpha) = \tilde w(\alpha) = \frac{1}{\lambda n}\sum_i a_i\tilde x_i`, and ``dual_coef_``
:math:`= a` gives :math:`D_\gamma(\alpha)` through
:func:`sdca_pegasos.solvers.core.objectives.dual`; :math:`P_\gamma(w) - D_\gamma(\alpha)` bounds
the suboptimality of :math:`w` and is the stopping test (``tol``).

Efficient form
--------------
Write :math:`z = \tilde w(\alpha)` and :math:`e = w - z`. With
:math:`\delta = \frac{1}{\lambda n}\sum_{i\in I}\Delta a_i\,\tilde x_i` the iteration is

.. math::

    u = z + (1-\theta)\,e, \qquad z \leftarrow z + \delta, \qquad
    e \leftarrow (1-\theta)(e - \delta)

(from :math:`w_{\text{new}} = (1-\theta)(z + e) + \theta(z + \delta) = z_{\text{new}} +
(1-\theta)(e - \delta)`). The kernel keeps :math:`e = s_e v_e` with a scalar :math:`s_e`:
:math:`v_e \mathrel{-}= \delta/s_e`, :math:`s_e \leftarrow (1-\theta)s_e`, and
:math:`v_e \leftarrow s_e v_e, s_e \leftarrow 1` when :math:`s_e <` 1e-6 (every
:math:`\approx 14/\theta` iterations; :math:`\theta = 1` makes :math:`e = 0` each time). An
iteration thus costs :math:`O(md)`, not :math:`O(d)` more: per sample two dot products
:math:`\tilde x_i^\top z` and :math:`\tilde x_i^\top v_e` (one read of the row, four rows per
pass), :math:`\tilde x_i^\top u = \tilde x_i^\top z + (1-\theta)s_e\,\tilde x_i^\top v_e`, and
the batch's rows, still in cache, are added to :math:`z` and :math:`v_e` in one pass per four
rows. The primal iterate :math:`w = z + s_e v_e` is formed only outside the timer (callback,
stopping test, output).

Averaged output (``average=True``) is lazy too: :math:`\sum_t z_t` through :math:`\sum_t (t -
t_0)\,\delta_t` as in :mod:`sdca_pegasos.solvers.sdca.estimator`, and :math:`\sum_t e_t` as
:math:`U + \sigma v_e` (:math:`\sigma \mathrel{+}= s_e` per iteration, :math:`U \mathrel{-}=
\sigma\,\Delta v_e` with the same rows, :math:`U \mathrel{+}= \sigma v_e, \sigma \leftarrow 0` at a
renormalisation), so it costs :math:`O(md)` per iteration, nothing before :math:`t_0`.

Step :math:`\theta`
-------------------
The paper proves convergence for :math:`\theta = \frac14\min\{1, \sqrt{\gamma\lambda n/m},
\gamma\lambda n, (\gamma\lambda n)^{2/3}/m^{1/3}\}` when the loss is :math:`(1/\gamma)`-smooth
and :math:`\|x_i\| \le 1`. As a function of :math:`w`,
:math:`\phi_\gamma(y_i\tilde x_i^\top w)` is :math:`(\|\tilde x_i\|^2/\gamma)`-smooth, so on
unnormalised data the assumption holds with :math:`\gamma' = \gamma/R^2`,
:math:`R^2 = \max_i\|\tilde x_i\|^2`; ``theta=None`` uses the formula with :math:`\gamma'`
(with plain :math:`\gamma` and :math:`R \gg 1` the iteration does not converge: the objective
jumps to several times its starting value and oscillates there). The study (seeds/001)
hand-tuned :math:`\theta` = 0.15 and 0.75; a float overrides the formula.

In this form each sampled :math:`a_i` moves a fraction :math:`\theta` towards
:math:`-\phi_\gamma'`, i.e. the dual moves about :math:`\theta` per epoch while :math:`w`
relaxes towards :math:`z` at :math:`\theta` per *iteration*; measured
(``benchmarks/asdca_theta.py``), the epochs to a given accuracy scale like :math:`1/\theta`
up to a stability limit, where :math:`\theta\,\|\tilde x_i\|^2/(\gamma\lambda n)` becomes of
order one for typical rows (lower with correlated rows), beyond which the run stalls. The
default :math:`\theta` is far inside that limit, hence safe but slow.

Sparse input
------------
The epoch kernel :func:`_asdca_epoch` is one source for both storages (its batch helpers chosen by
the type of ``rows``, :mod:`sdca_pegasos.solvers.core.rows`). On a CSR matrix it does the same
iterations on the same index arrays, each sample's two scores in one pass over its stored entries
and its update to :math:`z`, :math:`v_e` (and the averages) in another, so an iteration costs
:math:`O(\sum_{i \in I}\mathrm{nnz}(x_i))`. The renormalisation of :math:`v_e` stays :math:`O(d)`,
once every :math:`\ln(10^{-6})/\ln(1-\theta)` iterations (e.g. 85 at the study's :math:`\theta` =
0.15); at :math:`\theta = 1`, where it happens every iteration, :math:`v_e` is zero outside the
batch's columns and only those are cleared (on dense rows, all of :math:`v_e`). """

from __future__ import annotations

import math
import types
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload
from sklearn.utils._param_validation import Interval

from sdca_pegasos.solvers.core import losses, objectives
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.rows import (
    FASTMATH,
    CSRRows,
    row_dots,
    row_entry,
    row_nnz,
    weight_of,
)
from sdca_pegasos.solvers.core.sampling import distinct_batches
from sdca_pegasos.solvers.driver.estimator import BaseLinearSVM
from sdca_pegasos.solvers.driver.loop import Engine
from sdca_pegasos.solvers.driver.problem import Problem

#: Renormalise e = s_e·v_e (v_e ← s_e·v_e, s_e ← 1) when s_e falls below this.
_S_MIN = 1e-6


def paper_theta(gamma: float, lmbd: float, n_samples: int, batch_size: int) -> float:
    r"""The paper's :math:`\theta = \frac14\min\{1, \sqrt{\gamma\lambda n/m}, \gamma\lambda n,
    (\gamma\lambda n)^{2/3}/m^{1/3}\}` for a :math:`(1/\gamma)`-smooth loss and
    :math:`\|x_i\| \le 1`; pass :math:`\gamma/R^2` for data of radius :math:`R`."""
    if math.isinf(gamma):
        return 0.25
    q = gamma * lmbd * n_samples
    m = float(batch_size)
    return 0.25 * min(1.0, math.sqrt(q / m), q, q ** (2.0 / 3.0) / m ** (1.0 / 3.0))


class Iterates(NamedTuple):
    """What an ASDCA epoch updates in place (the kernels' state, one argument).

    Attributes
    ----------
    z : ndarray of shape (n_features + 1,), float64
        w(α).
    ve : ndarray of shape (n_features + 1,), float64
        e / s_e with e = w − w(α).
    dual_coef : ndarray of shape (n_samples,), float64
        Signed a_i (y_i a_i in [0, c_i]).
    scal : ndarray of shape (2,), float64
        ``[s_e, σ]``.
    acc_z, acc_e : ndarray of shape (n_features + 1,) or (1,), float64
    acc_a : ndarray of shape (n_samples,) or (1,), float64
        Averaging (length 1 otherwise): Σ_{t>t0} (t − t0) Δz_t and the same for a, so that the mean
        of z over the iterates t0..T is z_T − acc_z / (T − t0 + 1) (as in
        :class:`sdca_pegasos.solvers.sdca.estimator.Sweep`); and U with Σ_{t>=t0} e_t = U + σ v_e
        (a change v_e += Δ is compensated by U −= σΔ).
    gz, ge, coef : ndarray of shape (batch_size,), float64
        Scratch space.
    """

    z: np.ndarray
    ve: np.ndarray
    dual_coef: np.ndarray
    scal: np.ndarray
    acc_z: np.ndarray
    acc_e: np.ndarray
    acc_a: np.ndarray
    gz: np.ndarray
    ge: np.ndarray
    coef: np.ndarray


class Params(NamedTuple):
    """The scalars of an ASDCA fit, as the kernels take them: λn, the loss (smooth), θ, the
    renormalisation threshold of s_e, averaging and its first iterate t0, the batch size."""

    lmbd_n: float
    loss: Loss
    theta: float
    s_min: float
    average: bool
    t0: int
    batch_size: int


# ------------------------------------------------------------------ a batch's rows The epoch
# (:func:`_asdca_epoch`) is written once; what it does with a batch's rows goes through three
# functions whose body Numba picks from the type of ``rows`` (as the row-access layer of
# :mod:`sdca_pegasos.solvers.core.rows` does): the dense ones read four rows per pass, which
# ``tools/asdca_blocked.py`` measured to pay for wide rows (n = 20000, m = 64: row by row takes
# 1.39x as long at d = 500, 0.82x at d = 50); CSR rows one at a time. They are called, not inlined:
# one call per batch costs nothing, and inlining ``_batch_scores`` (numba 0.68.1) left the scores
# unwritten before ``_dual_moves`` read them.
def _batch_scores(rows, it, indices, start, size):
    """``gz[b] = x̃_iᵀz``, ``ge[b] = x̃_iᵀv_e`` for i = indices[start + b], b < size
    (kernels only): :func:`_scores_dense4` or :func:`_scores_rowwise`."""


def _add_batch(rows, it, indices, start, size, inv_se, weight, sigma):
    """z += δ, v_e −= δ/s_e with δ = Σ_b coef[b] x̃_{indices[start + b]}; when averaging
    also acc_z += weight·δ and acc_e += σ·δ/s_e (U −= σ·Δv_e). Kernels only:
    :func:`_add_dense4` or :func:`_add_rowwise`."""


def _clear_batch(rows, ve, indices, start, size):
    """v_e[k] = 0 on every column the batch's rows can have touched and on the bias entry:
    all of v_e for dense rows, the batch's stored columns for CSR rows (kernels only)."""


def _is_csr(rows) -> bool:
    return getattr(rows, "instance_class", None) is CSRRows


@overload(_batch_scores)
def _batch_scores_impl(rows, it, indices, start, size):
    if _is_csr(rows):

        def csr(rows, it, indices, start, size):
            _scores_rowwise(rows, it, indices, start, size)

        return csr

    def dense(rows, it, indices, start, size):
        _scores_dense4(rows, it, indices, start, size)

    return dense


@overload(_add_batch)
def _add_batch_impl(rows, it, indices, start, size, inv_se, weight, sigma):
    if _is_csr(rows):

        def csr(rows, it, indices, start, size, inv_se, weight, sigma):
            _add_rowwise(rows, it, indices, start, size, inv_se, weight, sigma)

        return csr

    def dense(rows, it, indices, start, size, inv_se, weight, sigma):
        _add_dense4(rows, it, indices, start, size, inv_se, weight, sigma)

    return dense


@overload(_clear_batch)
def _clear_batch_impl(rows, ve, indices, start, size):
    if _is_csr(rows):

        def csr(rows, ve, indices, start, size):
            for b in range(size):
                i = indices[start + b]
                for p in range(row_nnz(rows, i)):
                    k, _ = row_entry(rows, i, p)
                    ve[k] = 0.0
            ve[ve.shape[0] - 1] = 0.0

        return csr

    def dense(rows, ve, indices, start, size):
        ve[:] = 0.0

    return dense


@njit(cache=True, fastmath=FASTMATH)
def _scores_rowwise(rows, it, indices, start, size):
    """:func:`_batch_scores` one row at a time, both scores in one pass over the row
    (:func:`sdca_pegasos.solvers.core.rows.row_dots`)."""
    z, ve = it.z, it.ve
    d = z.shape[0] - 1
    zb, eb = rows.bias * z[d], rows.bias * ve[d]
    for b in range(size):
        a, e = row_dots(rows, indices[start + b], z, ve)
        it.gz[b], it.ge[b] = a + zb, e + eb


@njit(cache=True, fastmath=FASTMATH)
def _scores_dense4(rows, it, indices, start, size):
    """:func:`_batch_scores` for dense rows, four rows per pass (z and v_e read once per
    four rows; each score its own chain, as in :func:`_scores_rowwise`)."""
    X, bias, z, ve, gz, ge = rows.X, rows.bias, it.z, it.ve, it.gz, it.ge
    d = X.shape[1]
    zb, eb = bias * z[d], bias * ve[d]
    b = 0
    while b + 4 <= size:
        r0, r1 = X[indices[start + b]], X[indices[start + b + 1]]
        r2, r3 = X[indices[start + b + 2]], X[indices[start + b + 3]]
        a0 = a1 = a2 = a3 = 0.0
        e0 = e1 = e2 = e3 = 0.0
        for k in range(d):
            zk, ek = z[k], ve[k]
            x0, x1, x2, x3 = r0[k], r1[k], r2[k], r3[k]
            a0 += x0 * zk
            a1 += x1 * zk
            a2 += x2 * zk
            a3 += x3 * zk
            e0 += x0 * ek
            e1 += x1 * ek
            e2 += x2 * ek
            e3 += x3 * ek
        gz[b], gz[b + 1], gz[b + 2], gz[b + 3] = a0 + zb, a1 + zb, a2 + zb, a3 + zb
        ge[b], ge[b + 1], ge[b + 2], ge[b + 3] = e0 + eb, e1 + eb, e2 + eb, e3 + eb
        b += 4
    while b < size:
        a, e = row_dots(rows, indices[start + b], z, ve)
        gz[b], ge[b] = a + zb, e + eb
        b += 1


@njit(cache=True, fastmath=FASTMATH)
def _add_rowwise(rows, it, indices, start, size, inv_se, weight, sigma):
    """:func:`_add_batch` one row at a time, skipping the rows whose a_i did not move."""
    z, ve, acc_z, acc_e, coef = it.z, it.ve, it.acc_z, it.acc_e, it.coef
    d = z.shape[0] - 1
    avg = weight != 0.0 or sigma != 0.0
    cs = sigma * inv_se
    total = 0.0
    for b in range(size):
        c = coef[b]
        if c == 0.0:
            continue
        i = indices[start + b]
        for p in range(row_nnz(rows, i)):
            k, x = row_entry(rows, i, p)
            _add_delta(z, ve, acc_z, acc_e, k, c * x, inv_se, weight, cs, avg)
        total += c
    _add_delta(z, ve, acc_z, acc_e, d, total * rows.bias, inv_se, weight, cs, avg)


@njit(cache=True, fastmath=FASTMATH)
def _add_dense4(rows, it, indices, start, size, inv_se, weight, sigma):
    """:func:`_add_batch` for dense rows, four rows per pass (δ_k of four rows formed in
    registers, then z, v_e and the averages written once). Each loop over k is written
    twice, with and without the averages, so that no loop tests ``avg``."""
    X, coef = rows.X, it.coef
    z, ve, acc_z, acc_e = it.z, it.ve, it.acc_z, it.acc_e
    d = X.shape[1]
    avg = weight != 0.0 or sigma != 0.0
    cs = sigma * inv_se
    total = 0.0
    b = 0
    while b < size:
        if size - b >= 4:
            r0, r1 = X[indices[start + b]], X[indices[start + b + 1]]
            r2, r3 = X[indices[start + b + 2]], X[indices[start + b + 3]]
            c0, c1, c2, c3 = coef[b], coef[b + 1], coef[b + 2], coef[b + 3]
            if avg:
                for k in range(d):
                    dk = c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
                    _add_delta(z, ve, acc_z, acc_e, k, dk, inv_se, weight, cs, True)
            else:
                for k in range(d):
                    dk = c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
                    _add_delta(z, ve, acc_z, acc_e, k, dk, inv_se, weight, cs, False)
            total += c0 + c1 + c2 + c3
            b += 4
        else:
            xi = X[indices[start + b]]
            c = coef[b]
            if avg:
                for k in range(d):
                    _add_delta(z, ve, acc_z, acc_e, k, c * xi[k], inv_se, weight, cs, True)
            else:
                for k in range(d):
                    _add_delta(z, ve, acc_z, acc_e, k, c * xi[k], inv_se, weight, cs, False)
            total += c
            b += 1
    _add_delta(z, ve, acc_z, acc_e, d, total * rows.bias, inv_se, weight, cs, avg)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _add_delta(z, ve, acc_z, acc_e, k, dk, inv_se, weight, cs, avg):
    """Entry k of :func:`_add_batch`'s update by δ_k = ``dk``: z_k += δ_k, v_e,k −= δ_k/s_e
    and, with averaging (``avg``), the averages' entries by ``weight``·δ_k and ``cs``·δ_k.
    The bias entry is k = d, with δ_d = B Σ_b coef[b]."""
    z[k] += dk
    ve[k] -= dk * inv_se
    if avg:
        acc_z[k] += weight * dk
        acc_e[k] += cs * dk


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _dual_moves(rows, it, params, indices, start, size, ce, inv, weight):
    """The batch's dual steps a_i ← (1 − θ) a_i + θ c_i a*(y_i x̃_iᵀu), with x̃_iᵀu = gz + ce·ge
    (:func:`sdca_pegasos.solvers.core.losses.dual_target`); ``coef[b]`` gets y_i Δa_i/(λn). Returns
    whether any a_i moved. Clipping to the box only removes round-off (one ulp of 1 − θ + θ)."""
    y, dual_coef, acc_a = rows.y, it.dual_coef, it.acc_a
    loss, theta = params.loss, params.theta
    keep = 1.0 - theta
    moved = False
    for b in range(size):
        i = indices[start + b]
        yi = y[i]
        c = weight_of(rows.weights, i)
        g = losses.dual_target(loss, yi * (it.gz[b] + ce * it.ge[b]))
        a_old = yi * dual_coef[i]
        a_new = min(losses.upper_bound(loss, c), max(0.0, keep * a_old + theta * (c * g)))
        dual_coef[i] = yi * a_new
        it.coef[b] = yi * (a_new - a_old) * inv
        if it.coef[b] != 0.0:
            moved = True
            if weight != 0.0:
                acc_a[i] += weight * yi * (a_new - a_old)
    return moved


@njit(cache=True, fastmath=FASTMATH)
def _asdca_epoch(rows, it, params, indices, t_start):
    """One ASDCA epoch over ``indices``, in place (see the module docstring for the algebra).

    Parameters
    ----------
    rows : solvers._kernels.DenseRows or solvers._kernels.CSRRows
        X (n, d) float32/float64 (dense or CSR), y, sample weights (or None), B. One
        source, two specialisations: the batch's rows go through :func:`_batch_scores`,
        :func:`_add_batch` and :func:`_clear_batch`.
    it : Iterates
        Updated in place.
    params : Params
    indices : (m,) int64, read as consecutive batches of ``params.batch_size`` distinct
        samples (the last one smaller when the batch size does not divide m)
    t_start : int, iterations done before this epoch
    """
    ve, acc_e, scal = it.ve, it.acc_e, it.scal
    d = ve.shape[0] - 1
    m = indices.shape[0]
    inv = 1.0 / params.lmbd_n
    keep = 1.0 - params.theta
    average, t0, s_min = params.average, params.t0, params.s_min
    se, sigma = scal[0], scal[1]
    t = t_start
    j = 0
    while j < m:
        size = min(params.batch_size, m - j)
        t += 1
        weight = float(max(0, t - t0)) if average else 0.0
        _batch_scores(rows, it, indices, j, size)
        if _dual_moves(rows, it, params, indices, j, size, keep * se, inv, weight):
            _add_batch(rows, it, indices, j, size, 1.0 / se, weight, sigma)
        se *= keep
        if average and t >= t0:
            sigma += se
        if se < s_min:
            if se == 0.0 and sigma == 0.0:
                # θ = 1: e = 0, and v_e was 0 before this batch's rows changed it
                _clear_batch(rows, ve, indices, j, size)
            else:
                if sigma != 0.0:  # keep U + σ v_e: fold σ v_e into U
                    for k in range(d + 1):
                        acc_e[k] += sigma * ve[k]
                    sigma = 0.0
                for k in range(d + 1):
                    ve[k] *= se
            se = 1.0
        j += size
    scal[0], scal[1] = se, sigma


def epoch_kernel(rowwise: bool = False):
    """The epoch kernel (:func:`_asdca_epoch`, compiled), or with ``rowwise`` the same source
    compiled with the row-by-row batch products of CSR rows (:func:`_scores_rowwise`,
    :func:`_add_rowwise`) for dense rows too: the form the four-row products replaced, which
    ``tools/asdca_blocked.py`` times against it (the same arithmetic, another order)."""
    if not rowwise:
        return _asdca_epoch
    source = _asdca_epoch.py_func
    scope = {**source.__globals__, "_batch_scores": _scores_rowwise, "_add_batch": _add_rowwise}
    return njit(fastmath=FASTMATH)(types.FunctionType(source.__code__, scope, "rowwise_epoch"))


class ASDCAEngine(Engine):
    """ASDCA's epochs on one binary problem, for :func:`sdca_pegasos.solvers.driver.loop.run`.

    Built from plain settings: the smoothed hinge ``loss``, ``theta`` (None: the paper's, from
    the rows' largest squared norm, found by the timed set-up with ``gamma``), the mini-batch
    ``batch_size`` (at most n), ``average`` and ``avg_start`` (as :class:`ASDCAClassifier`'s
    parameters), and the fit's random stream ``rng``. Its attributes are the fit's state:
    ``rows``, ``it`` (the iterates) and ``params`` (the kernel's), ``w`` (z + s_e v_e,
    materialised outside the timer), ``iters_per_epoch``, ``t`` (iterations done) and
    ``indices`` (the next epoch's batches)."""

    def __init__(
        self,
        problem: Problem,
        rng: np.random.Generator,
        *,
        loss: Loss,
        gamma: float,
        theta: float | None,
        batch_size: int,
        average: bool,
        avg_start: int | None,
    ):
        n, d = problem.n_samples, problem.n_features
        m = batch_size
        self.iters_per_epoch = -(-n // m)
        total = problem.epochs * self.iters_per_epoch
        t0 = total // 2 if avg_start is None else min(int(avg_start), total)
        self.it = Iterates(
            z=np.zeros(d + 1),
            ve=np.zeros(d + 1),
            dual_coef=np.zeros(n),
            scal=np.array([1.0, 0.0]),
            acc_z=np.zeros(d + 1 if average else 1),
            acc_e=np.zeros(d + 1 if average else 1),
            acc_a=np.zeros(n if average else 1),
            gz=np.empty(m),
            ge=np.empty(m),
            coef=np.empty(m),
        )
        given = np.nan if theta is None else float(theta)  # None: set by the set-up
        self.params = Params(problem.lmbd * n, loss, given, _S_MIN, bool(average), t0, m)
        self.problem, self.rng, self.loss, self.gamma = problem, rng, loss, float(gamma)
        self.theta_from_rows = theta is None
        self.rows = problem.rows(np.empty(n if theta is None else 0))
        self.w = np.zeros(d + 1)
        self.t = 0
        self.indices = None

    def setup(self) -> None:
        p = self.problem
        if self.theta_from_rows:
            r2 = float(objectives.row_sq_norms(p.X, p.bias, out=self.rows.sq_norms).max())
            theta = asdca_theta(self.gamma, r2, p, self.params.batch_size)
            self.params = self.params._replace(theta=theta)
        if p.init is not None:  # warm start: the last α, in the new box; w = z = w(α)
            box = self.loss.box(self.rows.weights, p.n_samples)
            self.it.dual_coef[:] = p.y * np.clip(p.y * p.init.dual_coef, 0.0, box)
            self.it.z[:] = objectives.dual_weights(p.X, self.it.dual_coef, p.lmbd, p.bias)

    def draw(self, step: int) -> None:
        self.indices = distinct_batches(self.rng, self.problem.n_samples, self.params.batch_size)

    def step(self, step: int) -> None:
        _asdca_epoch(self.rows, self.it, self.params, self.indices, self.t)
        self.t += self.iters_per_epoch

    def current(self) -> tuple[np.ndarray, np.ndarray]:
        it = self.it
        np.multiply(it.ve, it.scal[0], out=self.w)
        self.w += it.z
        return self.w, it.dual_coef

    def output(self) -> tuple[np.ndarray, np.ndarray]:
        it, t0 = self.it, self.params.t0
        if not self.params.average or self.t < t0:
            return self.current()
        count = self.t - t0 + 1.0
        w = it.z - it.acc_z / count + (it.acc_e + it.scal[1] * it.ve) / count
        return w, it.dual_coef - it.acc_a / count

    def attributes(self, w_out: np.ndarray) -> dict:
        p = self.problem
        m = objectives.monitor(
            p.X, p.y, w_out, p.lmbd, self.loss, p.bias, sample_weight=p.sample_weight
        )
        return {
            "theta_": self.params.theta,
            "objective_": m["primal_smooth"],
            "hinge_objective_": m["primal"],
        }


def asdca_theta(gamma: float, r2: float, problem: Problem, batch_size: int) -> float:
    """The paper's θ for the smoothing ``gamma`` over rows of largest squared norm ``r2``."""
    g = gamma / r2 if r2 > 0.0 else math.inf
    return paper_theta(g, problem.lmbd, problem.n_samples, batch_size)


class ASDCAClassifier(BaseLinearSVM):
    r"""Linear SVM (smoothed hinge) by accelerated mini-batch SDCA (Shalev-Shwartz & Zhang 2013).

    Minimises :math:`P_\gamma(\tilde w) = \frac{\lambda}{2}\|\tilde w\|^2 + \frac1n\sum_i
    \phi_\gamma(y_i\tilde x_i^\top\tilde w)` with the :math:`\gamma`-smoothed hinge; see
    :mod:`sdca_pegasos.solvers.sdca.asdca` for the update, its :math:`O(md)` form and the default
    :math:`\theta`. An epoch is ``n_samples`` samples, :math:`\lceil n/m\rceil` iterations of
    :math:`m` distinct uniformly drawn samples each (the last one smaller when
    :math:`m \nmid n`).

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        Regularisation :math:`\lambda > 0`; ``"auto"`` (the default) is :math:`1/n` at
        ``fit`` (``lmbd_``), ``LinearSVC``'s default ``C = 1``, as in
        :class:`sdca_pegasos.solvers.SDCAClassifier`.
    gamma : float, default=1.0
        Smoothing :math:`\gamma > 0` of the hinge (the acceleration needs a smooth loss).
    batch_size : int, default=8
        :math:`m`; a fit of fewer samples takes them all in each iteration, :math:`m = n`
        (``batch_size_``).
    theta : float in (0, 1] or None, default=None
        Momentum/step :math:`\theta`. None: the paper's value with :math:`\gamma/R^2` in place
        of :math:`\gamma`, :math:`R^2 = \max_i\|\tilde x_i\|^2` (see module docstring).
    average : bool, default=False
        Output the mean of the iterates :math:`t_0 \dots T` (iterations, the iterate after
        :math:`t` iterations being number :math:`t`), for :math:`w` and :math:`\alpha` alike
        (seeds/001 averaged every solver's output). :math:`\bar w \ne w(\bar\alpha)` here,
        but :math:`\bar\alpha` is feasible, so :math:`P_\gamma(\bar w) - D_\gamma(\bar\alpha)`
        still bounds the suboptimality. If ``tol`` stops the run before :math:`t_0`, the last
        iterate is returned.
    avg_start : int or None, default=None
        :math:`t_0` in iterations, clipped to the total; None: half of all iterations.
    max_epochs : int, default=100
    tol : float or None, default=1e-5
        Stop when the exact gap :math:`P_\gamma(w) - D_\gamma(\alpha)` is at most ``tol`` (read
        as ``tol_gap`` says), computed outside the timer after the epochs the fit loop's check
        schedule picks, and always for the returned pair. 0 or None: run all epochs, compute no
        gap.
    tol_gap : {"relative", "absolute", "warn"}, default="warn"
        How ``tol`` bounds the gap, as in :class:`sdca_pegasos.solvers.SDCAClassifier`
        (``"relative"``: :math:`(P_\gamma - D_\gamma)/|P_\gamma|`, the one meaning from 0.2).
    bias_multiplier : float, default=1.0
        :math:`B \ge 0`: intercept :math:`B w_b` through a constant feature :math:`B`,
        regularised like the other weights (the default 1.0 is ``LinearSVC``'s
        ``intercept_scaling=1``). 0: no intercept (the studies' setting).
    random_state : int, numpy Generator or None, default=None
    class_weight : dict, "balanced" or None, default=None
        As in :class:`sdca_pegasos.solvers.SDCAClassifier`.
    warm_start : bool, default=False
        Start the next ``fit`` from this fit's dual point (same samples, same classes), with
        :math:`w = \tilde w(\alpha)` for the new ``lmbd``.
    callback : callable or None, default=None
        ``callback(info)`` with an :class:`sdca_pegasos.solvers.EpochInfo` after every epoch,
        outside the timer. ``info.w`` is the primal iterate :math:`w` (materialised),
        ``info.dual_coef`` the dual point: ``objectives.primal(X, y, info.w, lmbd, gamma, B)`` is
        the smoothed objective it optimises, the same with ``gamma=0`` the hinge objective.
        Returning ``True`` stops the fit.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    dual_coef_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Signed :math:`a_i` (:math:`\alpha_i = a_i\tilde x_i`), :math:`y_i a_i \in [0, c_i]`
        (:math:`c_i` the sample weights).
    batch_size_ : int
        The :math:`m` of the fit: ``min(batch_size, n_samples)``.
    theta_ : float or ndarray of shape (n_classes,)
        The :math:`\theta` used (the paper's for ``batch_size_``).
    objective_ : float or ndarray of shape (n_classes,)
        :math:`P_\gamma` (smoothed primal) of the returned weights.
    hinge_objective_ : float or ndarray of shape (n_classes,)
        The hinge primal :math:`P_0` of the returned weights (what the study compares).
    duality_gap_ : float or ndarray of shape (n_classes,)
        :math:`P_\gamma(w) - D_\gamma(\alpha)` of the returned pair when ``tol > 0``, else NaN.
    classes_, lmbd_, n_epochs_, n_iter_, converged_, epoch_times_, epoch_wall_times_, setup_time_
        As in :class:`sdca_pegasos.solvers.SDCAClassifier` (``setup_time_``: the :math:`R^2` pass
        when ``theta`` is None, and w(α) of a warm start).
    """

    _parameter_constraints: dict = {
        **BaseLinearSVM._parameter_constraints,
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "theta": [Interval(Real, 0, 1, closed="right"), None],
        "average": ["boolean"],
        "avg_start": [Interval(Integral, 0, None, closed="left"), None],
    }

    _supports_sparse = True

    def __init__(
        self,
        lmbd="auto",
        *,
        gamma=1.0,
        batch_size=8,
        theta=None,
        average=False,
        avg_start=None,
        max_epochs=100,
        tol=1e-5,
        tol_gap="warn",
        bias_multiplier=1.0,
        random_state=None,
        class_weight=None,
        warm_start=False,
        callback=None,
    ):
        self.lmbd = lmbd
        self.gamma = gamma
        self.batch_size = batch_size
        self.theta = theta
        self.average = average
        self.avg_start = avg_start
        self.max_epochs = max_epochs
        self.tol = tol
        self.tol_gap = tol_gap
        self.bias_multiplier = bias_multiplier
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.callback = callback

    @property
    def loss_function(self) -> Loss:
        return losses.make_loss("smooth_hinge", self.gamma)

    def _warm_up_overrides(self) -> dict:
        return {"batch_size": min(self.batch_size, 3), "avg_start": None}

    def _batch(self, n_samples: int) -> int:
        """The batch size :math:`m` of a fit of ``n_samples``: ``batch_size``, or every sample
        when there are fewer (``batch_size_``)."""
        return min(int(self.batch_size), n_samples)

    def _fit_targets(self, X, y, targets, sample_weight, epochs, inits, **options) -> None:
        super()._fit_targets(X, y, targets, sample_weight, epochs, inits, **options)
        self.batch_size_ = self._batch(X.shape[0])

    def _check_problem(self, problem: Problem) -> None:
        theta, how = self.theta, "theta"
        if theta is None:  # the paper's θ grows with 1/R²: first from a bound on R² (no pass)
            X, m = problem.X, self._batch(problem.n_samples)
            big = max(abs(float(X.max())), abs(float(X.min())))
            r2 = big * big * X.shape[1] + problem.bias * problem.bias  # inf, never an error
            theta = asdca_theta(float(self.gamma), r2, problem, m)
            if 1.0 - theta == 1.0:  # the bound may be loose: the exact R²
                r2 = float(objectives.row_sq_norms(X, problem.bias).max())
                theta = asdca_theta(float(self.gamma), r2, problem, m)
            q = self.gamma * problem.lmbd * problem.n_samples / r2 if r2 > 0.0 else math.inf
            how = f"the paper's theta for gamma*lmbd*n/R^2 = {q:.3g}"
        if 1.0 - theta == 1.0:
            raise ValueError(
                f"theta={theta:.3g} ({how}) is below float64 resolution: 1 - theta == 1, "
                f"so the iteration cannot move from w = 0. Increase lmbd or gamma, or pass a "
                f"theta of at least 1e-15 (the study used 0.15)."
            )

    def _engine(self, problem: Problem, rng: np.random.Generator) -> ASDCAEngine:
        return ASDCAEngine(
            problem,
            rng,
            loss=self.loss_function,
            gamma=float(self.gamma),
            theta=self.theta,
            batch_size=self._batch(problem.n_samples),
            average=bool(self.average),
            avg_start=self.avg_start,
        )
