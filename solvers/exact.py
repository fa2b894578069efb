r"""Exact optimum of the linear SVM, with a certificate computed apart from the solver.

Problem and notation
--------------------
The primal :math:`P` and dual :math:`D` of :mod:`solvers.objectives`, for every loss of
:mod:`solvers.losses` (hinge, :math:`\gamma`-smoothed hinge, squared hinge: a conjugate of
curvature :math:`\kappa` on a box of height :math:`U`) and sample weights :math:`c_i \ge 0`:

.. math::

    P(\tilde w) = \frac{\lambda}{2}\|\tilde w\|^2
        + \frac1n\sum_i c_i\,\phi(y_i\tilde x_i^\top\tilde w).

With :math:`a_i = y_i\alpha_i \in [0, u_i]`, :math:`u_i = c_i U` (:math:`U = \infty` for the
squared hinge: a one-sided bound), the dual is :math:`D(a) = -f(a)/n` for the convex
quadratic

.. math::

    f(a) = \frac{\lambda n}{2}\|\tilde w(a)\|^2 - \sum_i a_i
        + \sum_i \frac{\kappa}{2c_i}a_i^2,
    \qquad \tilde w(a) = \frac{1}{\lambda n}\sum_i a_i y_i \tilde x_i,

with gradient :math:`G_i = y_i\tilde x_i^\top\tilde w(a) - 1 + \kappa a_i/c_i` (margin minus
one) and Hessian :math:`H = Q + \mathrm{diag}(\kappa/c_i)`,
:math:`Q_{ij} = y_i y_j \tilde x_i^\top\tilde x_j/(\lambda n)`. Minimising :math:`f` over
the box is a box-constrained convex QP. A sample of weight 0 has the box :math:`\{0\}`: it
is taken out of the QP (its :math:`a_i = 0`), and :math:`\lambda n` keeps the full n.

Why this method
---------------
Plain SDCA converges linearly at a rate that degrades as :math:`\lambda n` shrinks, and it
pays for every sample in every epoch. At :math:`\lambda = 1/n` on raw 120×120 crops it left a
relative gap of 1e-1 after 30 s. The solver here chains standard tools so that each regime
costs what it must and no more:

1. **Interior point and crossover wherever a factorisation of the smaller side is
   affordable** (``method="ipm"``). CD's rate depends on the conditioning of :math:`Q`,
   which the shape of X does not predict (raw crops with near-duplicate augmented images
   make it hopeless at small λ: Gram CD with Newton finishes was still at a relative gap of
   1e-3 and 0.6 after 60 s at λ = 1e-3 and 1/n). Mehrotra's predictor-corrector method
   (:func:`_ipm_iterates`) needs ~15-35 factorisations whatever the conditioning, in one of
   two forms:

   * *Gram form* (n ≤ d): each iteration factors the n × n matrix
     :math:`Q + \mathrm{diag}` by Cholesky, O(n³), after one Gram product O(n² d);
   * *low-rank primal form* (n > d): with :math:`Q = AA^\top` (A the n × (d + 1) scaled
     rows), Woodbury's identity reduces each solve to one Cholesky factorisation of the
     (d + 1) × (d + 1) matrix :math:`I + A^\top D^{-1}A`, formed by BLAS ``dsyrk`` over
     row blocks, O(n d²) per iteration.

   From its iterates a primal-dual active-set crossover (:func:`_crossover`) finds the
   optimum's partition (each :math:`a_i` at 0, at :math:`u_i` or free) and solves it
   exactly, with the last refinements on a compensated gradient computed through X (Q a
   carries ~1e-9 of cancellation error on raw crops). Should it not certify, CD goes on.

2. **Dual coordinate descent with shrinking** (Hsieh et al., ICML 2008; liblinear) where
   the interior point is not affordable (both sides large). Exact coordinate minimisation
   in a seeded random order; a variable at a bound whose gradient pushes it further out
   leaves the sweep, and every shrunk set is restored for a full sweep before a stage is
   declared done. In primal representation (keep :math:`\tilde w`; a step costs O(d), or
   O(nnz of the row) on CSR) or in Gram representation (dense d ≥ n: form Q once and keep
   the gradient; a step costs O(n) whatever d).

3. **Newton finish on the free set** (a projected Newton step, Bertsekas 1982). Once CD has
   identified which :math:`a_i` sit at a bound, the optimum restricted to that partition
   solves one linear system on the free set F, :math:`H_{FF}\Delta = -G_F`: a Cholesky
   factorisation of :math:`H_{FF}` (Gram form, CSR), or the thin SVD of the free rows in
   primal form (:math:`Q_{FF}` has rank ≤ d + 1; with duplicated samples on the margin, as
   in skin, the minimum-norm step). CD then resumes.

4. **Certificate apart from the solver.** :math:`\tilde w` is rebuilt from :math:`\alpha`,
   then :func:`solvers.objectives.certificate` computes :math:`P(\tilde w)`, :math:`D(\alpha)`
   and the gap in one fused pass over X with exact products and compensated sums, each
   bound moved outward by its rounding allowance, so rounding cannot fake a 1e-10 relative
   gap. The run stops once :math:`(P - D)/|P| \le` ``tol``, or when the
   CPU budget ends, in which case the result says ``certified=False`` and carries the gap it
   reached: never a silent claim. Its ``w`` is then the point of lowest certified
   :math:`P` among every point the solve certified (the interior point's last iterate,
   crossover and CD points, and :math:`w = 0`), and its ``dual_coef`` the one of highest
   :math:`D`: never worse than :math:`w = 0` unless :math:`w = 0` is the best point found.

The budget is the solve's own: CPU seconds of the calling thread (``time.thread_time``),
with BLAS pinned to that one thread for the solve (threadpoolctl), so that neither BLAS
helper threads nor other threads of the process spend it. (Process CPU time with the
default two BLAS threads on two busy cores counted both threads, and the factorisations
ran several times slower: a 73,421 × 4,126 CSR solve spent its 60 s in the interior point
and returned w = 0; on one BLAS thread it certified in 28 s.)

Which method runs where
-----------------------
:func:`choose_method` predicts, from (n, d, nnz) alone, the flops and the bytes of the
interior point in both forms, and takes the cheaper one when its predicted time fits three
quarters of the CPU budget (the rest: crossover, certificates, and the prediction's error)
and its memory fits ``memory_limit``; otherwise coordinate descent (Gram representation for
dense d ≥ n while Q fits, primal otherwise). Measured with ``make bench-optima``
(``benchmarks/optima.py --regimes catalogue targets beyond``, 2026-11-25, git 74e37cca79),
one BLAS thread, 60 s budget, target relative gap 1e-10, on a quiet 2-core machine (CPU
seconds; the chooser's prediction in brackets; the README's generated block holds the
latest run):

=========================================  ===================  ======  ======  ========
problem (λ = 1/n unless said)              method               CPU s   pred.   rel. gap
=========================================  ===================  ======  ======  ========
dense 5000 × 2000                          primal-form IPM      12.0    11.4    1.8e-12
dense 5000 × 2000, λ = 1e-3                primal-form IPM      11.0    11.4    3.8e-13
dense 6000 × 2000                          primal-form IPM      15.8    13.4    1.9e-12
dense 6000 × 2000, λ = 1e-3                primal-form IPM      14.0    13.4    3.2e-13
dense 20000 × 500                          primal-form IPM      8.1     2.6     1.2e-13
raw crops 4982 × 14400 float32             Gram-form IPM        30.5–36 29.6    ≤ 3.7e-14
sparse-synthetic 20242 × 47236, 1.4 M nnz  primal CD + Newton   1.0     inf     2.0e-12
CSR 100,000 × 50,000, 50 nnz per row       primal CD + Newton   27.2    inf     4.4e-12
dense 20000 × 5000 (both sides large)      primal CD + Newton   60.2    272     2.0e-3
=========================================  ===================  ======  ======  ========

The last is not certified (``certified=False``, its gap reached returned): the interior
point would need ~4.5 budgets, coordinate descent does not converge in one. ``inf``: neither
form fits the 4 GiB memory limit.

Randomness enters as data: the driver draws each sweep's order from
``numpy.random.default_rng(seed)``, so the same seed gives the same bits.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from functools import lru_cache
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numba import njit
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import ThreadpoolController

from . import losses, objectives
from ._base import (
    WARM_UP_LMBD,
    WARMED,
    BaseLinearSVM,
    BinaryFit,
    Problem,
    caller_stacklevel,
    layout_key,
)
from ._kernels import (
    FASTMATH,
    ROW_AHEAD,
    kernel_rows,
    prefetch,
    prefetch_csr_row,
    weight_of,
)
from .losses import Loss

__all__ = ["ExactResult", "ExactSVMClassifier", "MethodChoice", "choose_method", "solve_exact"]

#: Sustained rate of the dense BLAS-3 work (``dsyrk``, ``dpotrf``) the prediction assumes,
#: flop/s on one core: measured 37 (dsyrk) and 48 (dpotrf) Gflop/s here.
BLAS_FLOPS = 4e10
#: Rate of scipy's sparse products (pairs of stored entries multiplied per second, one
#: core): measured 1.3-1.7e8 for X̃ᵀ D X̃ and X Xᵀ on CSR.
SPARSE_FLOPS = 1e8
#: Interior-point iterations the prediction assumes (measured 14-33, median ~18).
IPM_ITERATIONS = 20
#: Share of the CPU budget the predicted interior point may take to be chosen (the rest:
#: crossover, certificates, and the prediction's error).
IPM_SHARE = 0.75
#: Memory the chooser lets a method allocate beyond X (bytes).
MEMORY_LIMIT = 4 * 2**30
#: Bytes of the row (or column) blocks the dense products convert and scale at a time.
BLOCK_BYTES = 2**24


def _cpu_clock() -> float:
    """The engine's clock: CPU seconds of the calling thread, on which BLAS runs alone during
    a solve (:func:`solve_exact` pins one BLAS thread), so no other thread spends its budget."""
    return time.thread_time()


#: Largest free set whose |F| × |F| block is formed and factored for a Newton step when the
#: free rows are not dense and narrow (O(|F|³); larger free sets are left to the sweeps).
FREE_BLOCK_MAX = 2_000
#: Largest flop count of a Newton step on the dense free rows (thin SVD or Woodbury).
NEWTON_MAX_FLOPS = 2e11


class MethodChoice(NamedTuple):
    """What :func:`choose_method` predicts and picks.

    Attributes
    ----------
    method : {"ipm", "gram", "primal"}
        The ``method`` of :func:`solve_exact` that runs: the interior point, or coordinate
        descent in Gram or primal representation.
    form : {"gram", "primal"}
        The representation (for ``"ipm"``: the form of its linear algebra).
    bytes : int
        Memory the method is predicted to allocate beyond X (its largest arrays).
    ipm_seconds : float
        Predicted CPU seconds of the interior point in its cheaper form (whether or not it
        is chosen; ``inf`` when neither form fits the memory limit).
    """

    method: str
    form: str
    bytes: int
    ipm_seconds: float


def _ipm_costs(n, d, nnz, itemsize) -> dict[str, tuple[float, int]]:
    """(predicted seconds, bytes) of the interior point in each form (see choose_method)."""
    k = d + 1
    block = BLOCK_BYTES if nnz is not None or itemsize != 8 else 0
    # crossover: a Newton step on up to n dense free rows and their thin SVD
    newton = 2 * n * k * 8
    if nnz is None:
        primal_iter = (n * k * k + k**3 / 3 + 12 * n * k) / BLAS_FLOPS
        gram_setup = n * n * k / BLAS_FLOPS
    else:
        rows2 = nnz * nnz / max(n, 1)  # Σ_i nnz_i² for rows of equal length
        primal_iter = 2 * rows2 / SPARSE_FLOPS + (k**3 / 3 + 2 * k * k) / BLAS_FLOPS
        gram_setup = 2 * nnz * nnz / max(d, 1) / SPARSE_FLOPS + n * n / BLAS_FLOPS
    gram_iter = (n**3 / 3 + 6 * n * n) / BLAS_FLOPS
    sparse_result = 12 if nnz is not None else 0  # a sparse product's entries before densifying
    return {
        "primal": (
            IPM_ITERATIONS * primal_iter,
            8 * k * k + sparse_result * k * k + block + newton,
        ),
        "gram": (
            gram_setup + IPM_ITERATIONS * gram_iter,
            16 * n * n + sparse_result * n * n + BLOCK_BYTES,
        ),
    }


def choose_method(
    n_samples: int,
    n_features: int,
    nnz: int | None = None,
    *,
    itemsize: int = 8,
    max_cpu: float = 60.0,
    memory_limit: float = MEMORY_LIMIT,
) -> MethodChoice:
    r"""The method :func:`solve_exact` runs with ``method="auto"``, from the shape alone.

    Interior point in the cheaper of its two forms (k = d + 1, flops at ``BLAS_FLOPS``,
    sparse products at ``SPARSE_FLOPS``, ``IPM_ITERATIONS`` iterations):

    ============  =====================================  ============================
    form          flops                                  bytes
    ============  =====================================  ============================
    low-rank      per iteration n k² + k³/3 (dense);     k² (+ 12 k² sparse product)
    primal        2 Σᵢ nnzᵢ² sparse + k³/3 (CSR)         + 16 n k (crossover rows)
    Gram          n² k once (CSR: 2 nnz²/d sparse),      16 n² (Q and its factor)
                  then per iteration n³/3                (+ 12 n² sparse product)
    ============  =====================================  ============================

    chosen when its predicted time is at most ``IPM_SHARE`` × ``max_cpu`` and its bytes at
    most ``memory_limit``; otherwise coordinate descent with Newton finishes, in Gram
    representation for dense X with d ≥ n (8 n² bytes for Q, a step costs O(n)) when Q
    fits, else in primal representation (O(n + d) bytes).

    Parameters
    ----------
    n_samples, n_features : int
    nnz : int or None
        Stored entries of a CSR X; None for dense X.
    itemsize : int, default=8
        Bytes per value of X (4 for float32: the dense products then convert blocks).
    max_cpu : float, default=60.0
        The CPU budget of the solve (seconds).
    memory_limit : float, default=MEMORY_LIMIT (4 GiB)

    Returns
    -------
    MethodChoice
    """
    n, d = int(n_samples), int(n_features)
    costs = _ipm_costs(n, d, nnz, itemsize)
    fits = {form: c for form, c in costs.items() if c[1] <= memory_limit}
    best = min(fits, key=lambda form: fits[form][0]) if fits else None
    seconds = fits[best][0] if best else math.inf
    if best is not None and seconds <= IPM_SHARE * max_cpu:
        return MethodChoice("ipm", best, int(fits[best][1]), seconds)
    gram_bytes = 8 * n * n + 48 * n + BLOCK_BYTES
    if nnz is None and d >= n and gram_bytes <= memory_limit:
        return MethodChoice("gram", "gram", int(gram_bytes), seconds)
    primal_bytes = 8 * (d + 1) + 8 * 8 * n + 8 * FREE_BLOCK_MAX**2
    return MethodChoice("primal", "primal", int(primal_bytes), seconds)


@dataclass(frozen=True)
class ExactResult:
    """An optimum and its certificate.

    Attributes
    ----------
    w : ndarray of shape (n_features + 1,)
        Last entry the bias weight (see :mod:`solvers.objectives`). Certified:
        :math:`\\tilde w(\\alpha)` of ``dual_coef``. Not certified (the budget ended): the
        point of lowest certified :math:`P` among every point the solve certified, the
        interior point's last iterate and :math:`w = 0` included.
    dual_coef : ndarray of shape (n_samples,)
        Signed dual variables :math:`\\alpha_i = y_i a_i` (0 for a sample of weight 0). Not
        certified: the dual point of highest certified :math:`D` found.
    primal, dual, gap, rel_gap : float
        :math:`P(w)`, :math:`D(\\alpha)`, :math:`P - D \\ge 0` and :math:`(P - D)/|P|`,
        from the independent certificate. ``dual <= P* <= primal`` holds whatever the gap.
    certified : bool
        Exactly ``rel_gap <= tol``.
    cpu_seconds : float
        CPU time of the whole solve on the calling thread (Gram product, sweeps, Newton
        steps, certificates), BLAS included: it runs on that thread alone during the solve.
    method : str
        ``"primal-cd+newton"``, ``"gram-cd+newton"``, ``"gram-ipm+crossover"`` or
        ``"primal-ipm+crossover"`` (with ``"+cd+newton"`` when CD had to go on after the
        crossover).
    epochs : int
        CD sweeps (over the active set) run.
    newton_steps : int
        Newton steps taken.
    tol : float
    ipm_iterations : int
        Interior-point iterations run.
    loss : str
        ``"hinge"``, ``"smooth_hinge"`` or ``"squared_hinge"``.
    """

    w: np.ndarray
    dual_coef: np.ndarray
    primal: float
    dual: float
    gap: float
    rel_gap: float
    certified: bool
    cpu_seconds: float
    method: str
    epochs: int
    newton_steps: int
    tol: float
    ipm_iterations: int = 0
    loss: str = "hinge"


# ---------------------------------------------------------------------------- kernels
@njit(cache=True, fastmath=FASTMATH, inline="always")
def _cd_step(loss, ai, g, h, c, pg_hi, pg_lo):
    """One shrinking coordinate step on a_i (gradient g, curvature h, weight c): returns
    ``(keep, projected gradient, new a_i)`` by liblinear's rule
    (:func:`solvers.losses.stays_active`) and the exact coordinate minimum
    (:func:`solvers.losses.coordinate_step`); a dropped or stationary variable keeps a_i."""
    if not losses.stays_active(loss, ai, g, pg_hi, pg_lo, c):
        return False, 0.0, ai
    pg = losses.projected_gradient(loss, ai, g, c)
    if pg == 0.0:
        return True, pg, ai
    return True, pg, losses.coordinate_step(loss, ai, g, h, c)


@njit(cache=True, fastmath=FASTMATH)
def _cd_sweep_primal(rows, w, a, order, inv_lmbd_n, loss, pg_hi, pg_lo, keep):
    """One shrinking CD sweep over ``order`` in the primal representation, in place.

    Parameters
    ----------
    rows : solvers._kernels.DenseRows
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
    X, y, sq_norms, bias = rows.X, rows.y, rows.sq_norms, rows.bias
    d = X.shape[1]
    hi = -np.inf
    lo = np.inf
    for j in range(order.shape[0]):
        i = order[j]
        xi = X[i]
        s = bias * w[d]
        for k in range(d):
            s += xi[k] * w[k]
        ai = a[i]
        c = weight_of(rows.weights, i)
        g = losses.gradient(loss, y[i] * s, ai, c)
        h = losses.curvature(loss, sq_norms[i] * inv_lmbd_n, c)
        keep[j], pg, new = _cd_step(loss, ai, g, h, c, pg_hi, pg_lo)
        if not keep[j]:
            continue
        hi = max(hi, pg)
        lo = min(lo, pg)
        delta = new - ai
        if delta != 0.0:
            a[i] = new
            c = delta * y[i] * inv_lmbd_n
            for k in range(d):
                w[k] += c * xi[k]
            w[d] += c * bias
    return hi, lo


@njit(cache=True, fastmath=FASTMATH)
def _cd_sweep_primal_csr(rows, w, a, order, inv_lmbd_n, loss, pg_hi, pg_lo, keep):
    """CSR twin of :func:`_cd_sweep_primal` (``rows``: a :class:`solvers._kernels.CSRRows`):
    a step costs O(nnz of the row)."""
    data, cols, indptr, y, bias = rows.data, rows.cols, rows.indptr, rows.y, rows.bias
    d = w.shape[0] - 1
    m = order.shape[0]
    hi = -np.inf
    lo = np.inf
    for j in range(m):
        if j + ROW_AHEAD < m:  # the rows come in random order: request one ahead of time
            r = order[j + ROW_AHEAD]
            prefetch(y, r)
            prefetch(a, r)
            prefetch(rows.sq_norms, r)
            prefetch_csr_row(data, cols, indptr, r)
            if j + 2 * ROW_AHEAD < m:
                prefetch(indptr, order[j + 2 * ROW_AHEAD])
        i = order[j]
        start, stop = indptr[i], indptr[i + 1]
        s = bias * w[d]
        for p in range(start, stop):
            s += data[p] * w[cols[p]]
        ai = a[i]
        c = weight_of(rows.weights, i)
        g = losses.gradient(loss, y[i] * s, ai, c)
        h = losses.curvature(loss, rows.sq_norms[i] * inv_lmbd_n, c)
        keep[j], pg, new = _cd_step(loss, ai, g, h, c, pg_hi, pg_lo)
        if not keep[j]:
            continue
        hi = max(hi, pg)
        lo = min(lo, pg)
        delta = new - ai
        if delta != 0.0:
            a[i] = new
            c = delta * y[i] * inv_lmbd_n
            for p in range(start, stop):
                w[cols[p]] += c * data[p]
            w[d] += c * bias
    return hi, lo


@njit(cache=True, fastmath=FASTMATH)
def _cd_sweep_gram(Q, a, qa, order, loss, weights, pg_hi, pg_lo, keep):
    """One shrinking CD sweep over ``order`` in the Gram representation, in place.

    Q : (n, n) float64, y_i y_j x̃_i·x̃_j/(λn) ; a : (n,) float64 ; qa : (n,) float64, Q a
    (kept exact up to rounding for every sample, shrunk or not) ; weights : (n,) or None.
    Other arguments and the return value as :func:`_cd_sweep_primal`.
    """
    n = Q.shape[0]
    hi = -np.inf
    lo = np.inf
    for j in range(order.shape[0]):
        i = order[j]
        ai = a[i]
        c = weight_of(weights, i)
        g = losses.gradient(loss, qa[i], ai, c)
        keep[j], pg, new = _cd_step(
            loss, ai, g, losses.curvature(loss, Q[i, i], c), c, pg_hi, pg_lo
        )
        if not keep[j]:
            continue
        hi = max(hi, pg)
        lo = min(lo, pg)
        delta = new - ai
        if delta != 0.0:
            a[i] = new
            qi = Q[i]
            for k in range(n):
                qa[k] += delta * qi[k]
    return hi, lo


@njit(cache=True)
def _symmetrise(M, from_upper):
    """The full symmetric matrix from one triangle of M (m × m float64), in place:
    ``M[j, i] = M[i, j]`` for i < j (``from_upper``, what BLAS ``dsyrk`` and ``dpotrf``
    leave of an F-ordered matrix), else ``M[i, j] = M[j, i]``."""
    m = M.shape[0]
    for j in range(m):
        for i in range(j):
            if from_upper:
                M[j, i] = M[i, j]
            else:
                M[i, j] = M[j, i]


# ---------------------------------------------------------------------------- the QP
@dataclass(frozen=True)
class _QP:
    """The box QP of the samples of positive weight (module docstring).

    ``lmbd`` is the λ that gives these ``n`` samples the full problem's 1/(λn)
    (``inv_lmbd_n``); ``weights`` is None when every c_i = 1; ``upper`` (c_i U, ``inf`` for
    the squared hinge) and ``curv`` (κ/c_i) have shape (n,).
    """

    X: object
    y: np.ndarray
    lmbd: float
    bias: float
    loss: Loss
    weights: np.ndarray | None
    inv_lmbd_n: float
    upper: np.ndarray
    curv: np.ndarray

    @property
    def n(self) -> int:
        return self.y.shape[0]


def _make_qp(X, y, lmbd, loss, bias, weights) -> _QP:
    """The QP of (X, y) with the samples of weight 0 taken out (their a_i is 0)."""
    n_full = X.shape[0]
    if weights is not None and not weights.all():
        live = np.flatnonzero(weights > 0.0)
        X, y, weights = X[live], y[live], weights[live]
    n = y.shape[0]
    c = np.ones(n) if weights is None else weights
    return _QP(
        X=X,
        y=y,
        lmbd=lmbd * n_full / n if n < n_full else lmbd,
        bias=bias,
        loss=loss,
        weights=weights,
        inv_lmbd_n=1.0 / (lmbd * n_full),
        upper=c * loss.upper,
        curv=loss.kappa / c,
    )


# ---------------------------------------------------------------------------- representations
class _Representation:
    """What both representations share: the returned primal point, rebuilt from α."""

    form = ""

    def __init__(self, qp: _QP):
        self.qp = qp
        self.X, self.y, self.bias = qp.X, qp.y, qp.bias
        self.curv, self.upper = qp.curv, qp.upper

    @property
    def method(self) -> str:
        return f"{self.form}-cd+newton"

    def weights(self, a):
        """w̃(a) from scratch with compensated sums (never the sweeps' running copy)."""
        return objectives.exact_dual_weights(self.X, self.y * a, self.qp.lmbd, self.bias)

    def exact_gradient(self, a):
        """G(a) through X with compensated sums: free of the cancellation in Q a or w̃."""
        margins = objectives.exact_margins(self.X, self.y, self.weights(a), self.bias)
        return margins - 1.0 + self.curv * a


class _Primal(_Representation):
    """State of the primal representation: w̃ kept by the sweeps; Q = A Aᵀ never formed
    (A: rows y_i x̃_i/√(λn)), its products through X."""

    form = "primal"

    def __init__(self, qp: _QP):
        super().__init__(qp)
        self.inv_lmbd_n = qp.inv_lmbd_n
        self.sq_norms = objectives.row_sq_norms(self.X, self.bias)
        self.rows = kernel_rows(self.X, self.y, self.sq_norms, qp.weights, self.bias)
        self.w = np.zeros(self.X.shape[1] + 1)

    def sweep(self, a, order, pg_hi, pg_lo, keep):
        kernel = _cd_sweep_primal_csr if sp.issparse(self.X) else _cd_sweep_primal
        return kernel(
            self.rows, self.w, a, order, self.inv_lmbd_n, self.qp.loss, pg_hi, pg_lo, keep
        )

    def refresh(self, a):
        """Rebuild w̃(a) from scratch (drops the sweeps' accumulated rounding)."""
        self.w = self._w_of(a)

    def _w_of(self, a):
        """w̃(a) = Aᵀ a/√(λn) = X̃ᵀ(y∘a)/(λn), one pass over X."""
        return objectives.dual_weights(self.X, self.y * a, self.qp.lmbd, self.bias)

    def gradient(self, a):
        return objectives.margins(self.X, self.y, self.w, self.bias) - 1.0 + self.curv * a

    def hessian_diag(self):
        return self.sq_norms * self.inv_lmbd_n + self.curv

    def hess_dot(self, v):
        return objectives.margins(self.X, self.y, self._w_of(v), self.bias) + self.curv * v

    def barrier_solver(self, barrier):
        """v ↦ (A Aᵀ + D)⁻¹ v, D = diag(κ/c + barrier), through Woodbury's identity:

        (A Aᵀ + D)⁻¹ v = D⁻¹v − D⁻¹A M⁻¹ Aᵀ D⁻¹ v,  M = I + Aᵀ D⁻¹ A = I + X̃ᵀ D⁻¹ X̃/(λn)

        (y² = 1 drops out of M). M is (d + 1) × (d + 1), formed by ``dsyrk`` over row
        blocks of D^{-1/2} X̃ (a sparse product on CSR) and factored once (None if that
        fails)."""
        dinv = 1.0 / (self.curv + barrier)
        M = self._weighted_cross(dinv)
        M[np.diag_indices_from(M)] += 1.0
        factor = _cholesky(M, overwrite=True)
        if factor is None:
            return None

        def solve(v):
            u = dinv * v
            p = scipy.linalg.cho_solve(factor, self._w_of(u), check_finite=False)
            return u - dinv * objectives.margins(self.X, self.y, p, self.bias)

        return solve

    def _weighted_cross(self, dinv):
        """X̃ᵀ diag(dinv) X̃/(λn), (d + 1) × (d + 1) F-ordered float64."""
        X, bias = self.X, self.bias
        n, d = X.shape
        k = d + 1
        if sp.issparse(X):
            M = np.empty((k, k), order="F")
            M[:d, :d] = (X.T @ (sp.diags(dinv) @ X)).toarray()
            col = bias * np.asarray(X.T @ dinv, dtype=np.float64).ravel()
            M[:d, d] = col
            M[d, :d] = col
            M[d, d] = bias * bias * dinv.sum()
        else:
            M = np.zeros((k, k), order="F")
            rows = max(1, BLOCK_BYTES // (8 * k))
            buf = np.empty((min(rows, n), k))
            for start in range(0, n, rows):
                stop = min(n, start + rows)
                blk = buf[: stop - start]
                blk[:, :d] = X[start:stop]
                blk[:, d] = bias
                blk *= np.sqrt(dinv[start:stop])[:, None]
                # upper triangle of blkᵀ blk added to M's (blk.T is F-ordered: no copy)
                M = scipy.linalg.blas.dsyrk(1.0, blk.T, beta=1.0, c=M, overwrite_c=1)
            _symmetrise(M, True)
        M *= self.inv_lmbd_n
        return M

    def _free_rows(self, free):
        """A_F: the free rows y_i x̃_i/√(λn) as a dense |F| × (d + 1) float64 array."""
        rows = self.X[free]
        A = np.empty((free.shape[0], self.X.shape[1] + 1))
        A[:, :-1] = rows.toarray() if sp.issparse(rows) else rows
        A[:, -1] = self.bias
        A *= (self.y[free] * np.sqrt(self.inv_lmbd_n))[:, None]
        return A

    def newton(self, free, g_free):
        """Newton direction on the free set F, and v ↦ H_FF v (the factorisation of the
        last free set is kept: the crossover's steps often repeat it)."""
        cached = getattr(self, "_newton_cache", None)
        if cached is None or not np.array_equal(cached[0], free):
            cached = (free.copy(), *self._free_solver(free))
            self._newton_cache = cached
        _, direction, hess = cached
        return direction(g_free), hess

    def _free_solver(self, free):
        """(g_F ↦ Newton direction, v ↦ H_FF v) on the free set F.

        H_FF = A_F A_Fᵀ + diag(κ/c_F). On CSR, while |F| ≤ FREE_BLOCK_MAX, it is formed
        from the sparse product of the free rows and factored, as in the Gram form. Else, on
        the dense free rows (when that costs at most NEWTON_MAX_FLOPS): for the hinge (no
        diagonal) H_FF has rank ≤ d + 1. With |F| ≤ d + 1 and H_FF well conditioned (the
        Cholesky factor's diagonal within 1e6 of its largest) one Cholesky factorisation of
        A_F A_Fᵀ; otherwise the thin SVD of A_F, which gives its eigenvectors whatever |F|
        (a minimum-norm step when duplicated samples make it singular). With κ > 0 it is
        positive definite and solved directly (|F| ≤ d + 1) or through Woodbury's identity.
        Otherwise no step (zero direction).
        """
        m, k = free.shape[0], self.X.shape[1] + 1
        kf = self.curv[free]
        flops = 4.0 * m * k * min(m, k)
        if m <= FREE_BLOCK_MAX and (sp.issparse(self.X) or flops > NEWTON_MAX_FLOPS):
            H = _gram_matrix(self.X[free], self.y[free], self.bias, self.inv_lmbd_n)
            solve, hess = _free_block_solver(H, kf)
            return (lambda g: -solve(g)), hess
        if flops > NEWTON_MAX_FLOPS:
            return np.zeros_like, lambda v: v
        A = self._free_rows(free)

        def hess(v):
            return A @ (A.T @ v) + kf * v

        if m <= k:
            H = A @ A.T
            H[np.diag_indices_from(H)] += kf
            try:
                factor = scipy.linalg.cho_factor(H, overwrite_a=True, check_finite=False)
                diag = np.abs(np.diag(factor[0]))
                if diag.min() >= 1e-6 * diag.max():
                    return (lambda g: -scipy.linalg.cho_solve(factor, g, check_finite=False)), hess
            except np.linalg.LinAlgError:
                pass
        if not kf.any():
            U, s, _ = np.linalg.svd(A, full_matrices=False)
            curv = s * s  # H_FF's eigenvalues on range(A)
            keep = curv > curv.max(initial=0.0) * 1e-14
            U, curv = U[:, keep], curv[keep]
            # Off range(A), H_FF is 0: f is linear there and unbounded in the affine set,
            # so the box decides. Give that part the smallest curvature of the range; the
            # projected line search then moves those variables to their bounds.
            null_curv = curv.min(initial=1.0)

            def direction(g):
                proj = U.T @ g
                return -(U @ (proj / curv) + (g - U @ proj) / null_curv)

            return direction, hess
        if m <= k:
            solve, _ = _free_block_solver(A @ A.T, kf)
            return (lambda g: -solve(g)), hess
        kinv = 1.0 / kf  # Woodbury: (A Aᵀ + K)⁻¹ = K⁻¹ − K⁻¹A (I + AᵀK⁻¹A)⁻¹ AᵀK⁻¹
        M = (A.T * kinv) @ A
        M[np.diag_indices_from(M)] += 1.0
        factor = _cholesky(M.T, overwrite=True)  # M.T: the same matrix, F-ordered
        if factor is None:
            return np.zeros_like, hess

        def woodbury(g):
            u = kinv * g
            p = scipy.linalg.cho_solve(factor, A.T @ u, check_finite=False)
            return -(u - kinv * (A @ p))

        return woodbury, hess

    def apply(self, free, delta):
        c = self.y[free] * delta * self.inv_lmbd_n
        self.w[:-1] += self.X[free].T @ c
        self.w[-1] += c.sum() * self.bias


class _Gram(_Representation):
    """State of the Gram representation: Q (n × n) and the gradient part Q a."""

    form = "gram"

    def __init__(self, qp: _QP):
        super().__init__(qp)
        self.Q = _gram_matrix(self.X, self.y, self.bias, qp.inv_lmbd_n)
        self.qa = np.zeros(qp.n)

    def sweep(self, a, order, pg_hi, pg_lo, keep):
        return _cd_sweep_gram(
            self.Q, a, self.qa, order, self.qp.loss, self.qp.weights, pg_hi, pg_lo, keep
        )

    def refresh(self, a):
        self.qa = self.Q @ a

    def gradient(self, a):
        return self.qa - 1.0 + self.curv * a

    def hessian_diag(self):
        return np.diag(self.Q) + self.curv

    def hess_dot(self, v):
        return self.Q @ v + self.curv * v

    def barrier_solver(self, barrier):
        """v ↦ (Q + diag(κ/c + barrier))⁻¹ v by one n × n Cholesky factorisation of a copy
        of Q (None if it fails): 2 n² floats in all."""
        M = self.Q.copy()
        M[np.diag_indices_from(M)] += self.curv + barrier
        factor = _cholesky(M.T, overwrite=True)  # M.T: the same matrix, F-ordered
        if factor is None:
            return None
        return lambda v: scipy.linalg.cho_solve(factor, v, check_finite=False)

    def free_solver(self, free):
        return _free_block_solver(self.Q[np.ix_(free, free)], self.curv[free])

    def newton(self, free, g_free):
        solve, H = self.free_solver(free)
        return -solve(g_free), H

    def apply(self, free, delta):
        self.qa += self.Q[:, free] @ delta


def _gram_matrix(X, y, bias, scale):
    """Q = scale · diag(y) (X Xᵀ + B²) diag(y), a dense C-contiguous float64 array: one BLAS
    ``dsyrk`` (float64 X, no copy of X), or one per column block converted to float64
    (float32 X), or a sparse product (CSR)."""
    n = X.shape[0]
    if sp.issparse(X):
        X64 = X if X.dtype == np.float64 else X.astype(np.float64)
        Q = np.ascontiguousarray((X64 @ X64.T).toarray())
    else:
        syrk = scipy.linalg.blas.dsyrk
        if X.dtype == np.float64:
            Q = syrk(1.0, X.T, trans=1)  # (Xᵀ)ᵀ Xᵀ; X.T is F-ordered: no copy
        else:
            Q = np.zeros((n, n), order="F")
            cols = max(1, BLOCK_BYTES // (8 * max(n, 1)))
            for j in range(0, X.shape[1], cols):
                blk = np.asfortranarray(X[:, j : j + cols], dtype=np.float64)
                Q = syrk(1.0, blk, beta=1.0, c=Q, overwrite_c=1)
        _symmetrise(Q, True)
        Q = Q.T  # symmetric: its transpose is the same matrix, C-ordered
    if bias != 0.0:
        Q += bias * bias
    Q *= y[:, None]
    Q *= y * scale
    return Q


def _free_block_solver(H, diag):
    """v ↦ (H + diag)⁻¹ v (Cholesky, a tiny ridge if singular) and v ↦ (H + diag) v; H
    (owned by the caller, C-ordered) gets the diagonal in place."""
    H[np.diag_indices_from(H)] += diag
    factor = _cholesky(H, overwrite=False)
    if factor is None:
        return (lambda v: np.zeros_like(v)), lambda v: H @ v
    return lambda v: scipy.linalg.cho_solve(factor, v, check_finite=False), lambda v: H @ v


def _cholesky(M, overwrite: bool):
    """Cholesky factor (``scipy.linalg.cho_factor``) of the symmetric M, or of M + a tiny
    ridge when M is singular to rounding (duplicated samples); None when even the largest
    ridge fails.

    With ``overwrite`` M (F-ordered) is factored in place: a failed attempt has overwritten
    its upper triangle and diagonal only, which are restored from the lower triangle and a
    copy of the diagonal before the next ridge. Otherwise a copy is factored.
    """
    if not overwrite:
        M = np.array(M, order="F")
    diag = np.diag(M).copy()
    scale = max(float(np.mean(diag)), np.finfo(float).tiny) if diag.size else 1.0
    idx = np.diag_indices_from(M)
    for ridge in (0.0, 1e-13, 1e-10, 1e-7):
        if ridge:
            _symmetrise(M, False)
            M[idx] = diag + ridge * scale
        try:
            return scipy.linalg.cho_factor(M, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            continue
    return None


# ---------------------------------------------------------------------------- interior point
def _ipm_iterates(rep, max_iter=100):
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


def _crossover(rep, a, z, s, rounds: int = 30, exact_refinements: int = 2):
    """From an interior point to the vertex of its face: a primal-dual active-set finish.

    A variable is put at 0 when its barrier curvature z/a exceeds its curvature H_ii (and
    z > s), at u likewise with s/(u - a); the rest is free. In primal form (H_FF of rank
    ≤ d + 1 for the hinge, singular when |F| > d + 1 as with skin's duplicates) a few
    projected Newton steps (:func:`_newton_step`) finish the face. In Gram form, on a
    partition, the free variables solve H_FF a_F = 1 - H_FB a_B (one factorisation, a
    Newton step and one refinement). Free variables that leave the box are put at the
    bound, bounded ones whose gradient pulls inward are freed (Hintermüller, Ito & Kunisch
    2003), until the partition stands. The last ``exact_refinements`` refinements use
    :meth:`_Representation.exact_gradient` (compensated, through X): the Gram products Q a
    carry ~1e-9 of cancellation error on raw crops, which alone would cost 1e-10 of
    relative gap. Returns a point of the box.
    """
    u = rep.upper
    hd = rep.hessian_diag()
    with np.errstate(divide="ignore", invalid="ignore"):
        at0 = (z > s) & (z > hd * a)
        at1 = np.isfinite(u) & (s > z) & (s > hd * (u - a))
    a = np.where(at0, 0.0, np.where(at1, u, a))
    rep.refresh(a)
    if not isinstance(rep, _Gram):
        # primal form: H_FF has rank ≤ d + 1 (hinge), often below |F| (duplicates): the
        # projected Newton step with its minimum-norm direction and line search finishes
        for _ in range(5):
            decrease = _newton_step(rep, a)
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


# ---------------------------------------------------------------------------- driver
def _resolve_loss(loss, gamma) -> Loss:
    """The :class:`solvers.losses.Loss` of ``loss`` and ``gamma`` (see solve_exact)."""
    if gamma is None:
        return losses.make_loss(loss)
    if not (isinstance(gamma, int | float) and math.isfinite(gamma) and gamma >= 0.0):
        raise ValueError(f"gamma must be a finite number >= 0, got {gamma!r}")
    if isinstance(loss, str) and loss in ("hinge", "smooth_hinge"):
        # "hinge" with gamma: the γ-smoothed hinge (0: the hinge), the older spelling
        return losses.make_loss(float(gamma)) if loss == "hinge" else losses.make_loss(loss, gamma)
    raise ValueError(
        f"gamma={gamma!r} applies to the hinge and the smoothed hinge only, not to "
        f"loss={loss!r}; drop gamma (or pass loss='smooth_hinge', gamma=...)"
    )


def solve_exact(
    X,
    y,
    lmbd: float,
    *,
    loss: str | Loss | float = "hinge",
    gamma: float | None = None,
    bias: float = 0.0,
    sample_weight=None,
    tol: float = 1e-10,
    max_cpu: float = 60.0,
    method: str = "auto",
    seed: int = 0,
) -> ExactResult:
    r"""Minimise :math:`P` to a certified relative duality gap :math:`(P - D)/|P| \le` ``tol``.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features), float32 or float64
        Sparse input is read as CSR (converted once if in another format), never densified.
    y : ndarray of shape (n_samples,), labels in {-1, +1}
    lmbd : float
        :math:`\lambda > 0`.
    loss : {"hinge", "smooth_hinge", "squared_hinge"}, Loss or float, default="hinge"
        The loss (:mod:`solvers.losses`); a number is the γ-smoothed hinge (0: the hinge).
    gamma : float or None, default=None
        Smoothing of ``"smooth_hinge"`` (None: 1.0). With ``loss="hinge"`` a γ > 0 selects
        the γ-smoothed hinge too (the older spelling ``solve_exact(..., gamma=1.0)``).
    bias : float, default=0.0
        Bias multiplier :math:`B` (constant feature, regularised like the others).
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        Weights :math:`c_i \ge 0` of the samples' losses (None: every weight 1); a weight of
        0 fixes :math:`\alpha_i = 0`.
    tol : float, default=1e-10
        Target relative gap.
    max_cpu : float, default=60.0
        CPU-second budget of the whole solve, on the calling thread's clock
        (``time.thread_time``); BLAS is pinned to one thread, that one, for the solve
        (threadpoolctl), so neither BLAS helper threads nor other threads of the process
        spend it. When it ends first: ``certified=False``, ``w`` the lowest-:math:`P` point
        certified (never worse than :math:`w = 0`), ``dual_coef`` the highest-:math:`D` one,
        ``primal``, ``dual`` and ``rel_gap`` their bounds.
    method : {"auto", "ipm", "primal", "gram"}, default="auto"
        ``auto``: :func:`choose_method` (the interior point where its factorisations fit
        three quarters of the budget and the memory limit, else coordinate descent).
        ``ipm``: the interior point in its cheaper form, whatever it costs; it goes on with
        coordinate descent (in its representation) should its crossover not certify within
        the budget. ``primal``, ``gram``: coordinate descent with Newton finishes in that
        representation.
    seed : int, default=0
        Seed of the sweep orders.

    Returns
    -------
    ExactResult
    """
    start = _cpu_clock()
    with _blas_threads().limit(limits=1):
        return _solve(
            start, X, y, lmbd, loss, gamma, bias, sample_weight, tol, max_cpu, method, seed
        )


@lru_cache(maxsize=1)
def _blas_threads() -> ThreadpoolController:
    """This process's BLAS/OpenMP pools, found once (a search of the loaded libraries costs
    milliseconds: as much as a whole solve of a small problem)."""
    return ThreadpoolController()


def _solve(start, X, y, lmbd, loss, gamma, bias, sample_weight, tol, max_cpu, method, seed):
    """The body of :func:`solve_exact` (its clock started at ``start``), on one BLAS thread."""
    X = objectives.as_data(X)
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # the row norms read each stored entry as one coordinate
    n, d = X.shape
    y = objectives.as_labels(y, n)
    loss = _resolve_loss(loss, gamma)
    weights = objectives.as_sample_weight(sample_weight, n)
    if weights is not None and np.all(weights == 1.0):
        weights = None  # the unweighted kernels, bit for bit
    if not (np.isfinite(lmbd) and lmbd > 0.0):
        raise ValueError(f"lmbd must be a finite number > 0, got {lmbd!r}")
    if not (tol > 0.0):
        raise ValueError(f"tol must be > 0, got {tol!r}")
    if method not in ("auto", "primal", "gram", "ipm"):
        raise ValueError(f"method must be 'auto', 'primal', 'gram' or 'ipm', got {method!r}")
    lmbd, bias = float(lmbd), float(bias)
    qp = _make_qp(X, y, lmbd, loss, bias, weights)
    nnz = X.nnz if sp.issparse(X) else None
    if method == "auto":
        choice = choose_method(qp.n, d, nnz, itemsize=X.dtype.itemsize, max_cpu=max_cpu)
        method, form = choice.method, choice.form
    elif method == "ipm":
        costs = _ipm_costs(qp.n, d, nnz, X.dtype.itemsize)
        form = min(costs, key=lambda f: costs[f][0])
    else:
        form = method
    rng = np.random.default_rng(seed)
    epochs = newton_steps = ipm_iterations = 0
    best = None  # (w, α, certificate, a) of the smallest gap: the pair CD goes on from
    bounds = _Bounds()  # the lowest P and the highest D of every point certified

    def cpu() -> float:
        return _cpu_clock() - start

    def certify(a) -> bool:
        """The certificate of ``a`` (the QP's variables), kept if it is the best so far;
        True when it certifies."""
        nonlocal best
        alpha = np.zeros(n)
        if qp.n == n:
            alpha[:] = y * a
        else:
            alpha[weights > 0.0] = qp.y * a
        w = objectives.exact_dual_weights(X, alpha, lmbd, bias)
        cert = objectives.certificate(X, y, w, alpha, lmbd, loss, bias, weights)
        bounds.add(w, alpha, cert)
        if best is None or cert["gap"] < best[2]["gap"]:
            best = (w, alpha, cert, a.copy())
        return cert["rel_gap"] <= tol

    rep = (_Gram if form == "gram" else _Primal)(qp)
    a = np.zeros(qp.n)
    all_samples = np.arange(qp.n, dtype=np.int64)
    eps = 0.1  # projected-gradient spread that ends a CD stage; tightened stage by stage
    skip_newton = False

    if method == "ipm":
        # ---- interior point: a crossover each time mu has fallen tenfold below 1e-6 (times
        # the mean weight: mu scales with the box), and, should that not yet certify, the
        # iterate itself once the gap its gradient implies is below tol/2 (enough for
        # loose targets, but its a_i are never exactly at a bound)
        next_crossover = 1e-6 * (1.0 if qp.weights is None else float(qp.weights.mean()))
        for a_in, z, s, mu, g in _ipm_iterates(rep):
            if cpu() >= max_cpu:
                certify(a_in)  # the budget ends the interior point: its iterate is a candidate
                break
            if mu <= next_crossover:
                next_crossover = mu * 0.1
                if certify(_crossover(rep, a_in, z, s)):
                    break
            if _implied_rel_gap(rep, a_in, g) <= 0.5 * tol and certify(a_in):
                break
            ipm_iterations += 1
        label = f"{form}-ipm+crossover"
        if best is not None:
            a = np.clip(best[3], 0.0, qp.upper)  # CD goes on from the best point
            if best[2]["rel_gap"] > tol and cpu() < max_cpu:
                label += "+cd+newton"
    else:
        label = rep.method
    rep.refresh(a)

    # at least one stage unless the interior point has certified or used the budget
    while best is None or (best[2]["rel_gap"] > tol and cpu() < max_cpu):
        # ---- stage 1: shrinking CD until the spread of projected gradients is below eps
        # (or 200 sweeps' worth of work: an ill-conditioned stage is handed to Newton)
        active = all_samples
        pg_hi, pg_lo = np.inf, -np.inf
        work = 0
        while cpu() < max_cpu and work < 200 * qp.n:
            order = rng.permutation(active)
            work += order.shape[0]
            keep = np.empty(order.shape[0], dtype=np.bool_)
            hi, lo = rep.sweep(a, order, pg_hi, pg_lo, keep)
            epochs += 1
            active = order[keep]
            if active.shape[0] == 0 or hi - lo <= eps:
                if order.shape[0] == qp.n:
                    break  # a full sweep met the stage's tolerance
                active, pg_hi, pg_lo = all_samples, np.inf, -np.inf
                continue
            pg_hi = hi if hi > 0.0 else np.inf
            pg_lo = lo if lo < 0.0 else -np.inf
        # ---- stage 2: projected Newton steps while they lower f
        # (until one lowers f by less than 1e-12 of the first: rounding level). A round that
        # does not cut the KKT residual tenfold (the partition is still far from right, as on
        # near-duplicate raw crops at small λ, where each step costs a large factorisation)
        # makes the later stages skip Newton and leave the time to the sweeps.
        rep.refresh(a)
        if not skip_newton:
            kkt = np.abs(_projected_gradient(rep.gradient(a), a, qp.upper)).max()
            first = 0.0
            for _ in range(20):
                if cpu() >= max_cpu:
                    break
                decrease = _newton_step(rep, a)
                if decrease == 0.0:
                    break
                newton_steps += 1
                rep.refresh(a)
                first = min(first, decrease)
                if decrease > 1e-12 * first:
                    break
            residual = np.abs(_projected_gradient(rep.gradient(a), a, qp.upper)).max()
            skip_newton = residual > 0.1 * kkt
        # ---- stage 3: the certificate, computed apart from the solver's state
        certify(a)
        eps = max(eps * 0.01, 1e-15)

    if best[2]["rel_gap"] <= tol:  # certified: the pair itself, w = w̃(α)
        w, alpha, cert, _ = best
    else:  # the budget ended: the lowest P and the highest D of every point, w = 0 included
        zero_w, zero_alpha = np.zeros(d + 1), np.zeros(n)
        bounds.add(
            zero_w,
            zero_alpha,
            objectives.certificate(X, y, zero_w, zero_alpha, lmbd, loss, bias, weights),
        )
        w, alpha, cert = bounds.w, bounds.alpha, bounds.certificate()
    return _result(w, alpha, cert, tol, cpu(), label, epochs, newton_steps, ipm_iterations, loss)


class _Bounds:
    """The lowest certified primal value P(w) and the highest dual value D(α) over every
    point certified, each with its point: the bounds D ≤ P* ≤ P of a solve that the budget
    ends, at least as tight as those of any one pair."""

    def __init__(self):
        self.primal, self.w = math.inf, None
        self.dual, self.alpha = -math.inf, None

    def add(self, w, alpha, cert) -> None:
        if cert["primal"] < self.primal:
            self.primal, self.w = cert["primal"], w
        if cert["dual"] > self.dual:
            self.dual, self.alpha = cert["dual"], alpha

    def certificate(self) -> dict[str, float]:
        """``primal``, ``dual``, ``gap`` and ``rel_gap`` of the two (as
        :func:`solvers.objectives.certificate` computes them for one pair)."""
        gap = self.primal - self.dual
        rel = gap / abs(self.primal) if self.primal != 0.0 else (0.0 if gap == 0 else np.inf)
        return {"primal": self.primal, "dual": self.dual, "gap": gap, "rel_gap": rel}


def _result(w, alpha, cert, tol, cpu_seconds, label, epochs, newton_steps, ipm_iterations, loss):
    return ExactResult(
        w=w,
        dual_coef=alpha,
        primal=cert["primal"],
        dual=cert["dual"],
        gap=cert["gap"],
        rel_gap=cert["rel_gap"],
        certified=bool(cert["rel_gap"] <= tol),
        cpu_seconds=cpu_seconds,
        method=label,
        epochs=epochs,
        newton_steps=newton_steps,
        tol=float(tol),
        ipm_iterations=ipm_iterations,
        loss=loss.name,
    )


def _implied_rel_gap(rep, a: np.ndarray, g: np.ndarray) -> float:
    """(P - D)/|P| at a from its gradient g = Qa + κa/c - 1 alone, O(n): the margins are Qa.

    An estimate (Qa carries the representation's rounding); the certificate decides.
    """
    qp = rep.qp
    qa = g + 1.0 - rep.curv * a
    aqa = float(a @ qa)
    primal = 0.5 * aqa + float(qp.loss.values(qa, qp.weights).sum())
    dual = float(qp.loss.dual_terms(a, qp.weights).sum()) - 0.5 * aqa
    return (primal - dual) / abs(primal) if primal != 0.0 else np.inf


def _projected_gradient(g: np.ndarray, a: np.ndarray, u: np.ndarray) -> np.ndarray:
    """KKT residual of the box QP: the gradient with its outward part at the bounds removed."""
    return np.where(a <= 0.0, np.minimum(g, 0.0), np.where(a >= u, np.maximum(g, 0.0), g))


def _newton_step(rep, a) -> float:
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


# ---------------------------------------------------------------------------- the estimator
class ExactSVMClassifier(BaseLinearSVM):
    r"""The linear SVM solved to a certified optimum: :func:`solve_exact` as a classifier.

    Minimises :math:`P(\tilde w) = \frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i c_i
    \phi(y_i\tilde x_i^\top\tilde w)` (hinge, smoothed hinge or squared hinge; sample and
    class weights :math:`c_i`) by an interior point with an active-set crossover where its
    factorisations are affordable, else by shrinking coordinate descent with Newton finishes
    (:func:`choose_method`), and returns the optimum with its certificate: the pair
    :math:`(\tilde w, \alpha)` whose independently computed relative duality gap
    :math:`(P - D)/|P|` is at most ``tol``. Where ``LinearSVC`` returns an approximate
    optimum, this one says how far from the optimum it is, bounds included
    (``dual_ <= P* <= primal_``). Two classes or more (one-vs-rest, as ``LinearSVC``), dense
    or CSR, float32 or float64.

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        Regularisation λ > 0 (``LinearSVC``'s ``C = 1/(λ n)``). ``"auto"`` (the default):
        λ = 1/n, n the number of rows of X, resolved at ``fit`` (``lmbd_``): ``LinearSVC``'s
        default ``C = 1`` (with sample weights n still counts the rows: each weight
        multiplies its sample's loss, as in ``LinearSVC(C=1)``).
    loss : {"hinge", "smooth_hinge", "squared_hinge"}, default="hinge"
    gamma : float, default=1.0
        Smoothing γ > 0 of ``"smooth_hinge"`` (ignored by the other losses).
    tol : float, default=1e-10
        Relative duality gap to certify, (P − D)/|P|.
    max_cpu : float, default=60.0
        CPU seconds per binary problem, the engine's own: measured on the fitting thread
        (``time.thread_time``), with BLAS pinned to that one thread during the fit
        (threadpoolctl), so BLAS helper threads and other threads of the process neither
        spend it nor slow the factorisations down. When they end before ``tol`` is
        certified, ``coef_`` is the point of lowest certified objective the engine found
        (never worse than w = 0: its interior-point iterate, crossover and CD points and
        w = 0 compared), ``primal_`` its objective, ``dual_`` the highest dual bound found,
        ``certified_`` is False and a ``ConvergenceWarning`` says the gap reached.
    method : {"auto", "ipm", "primal", "gram"}, default="auto"
        :func:`solve_exact`'s ``method`` (``"auto"``: :func:`choose_method`).
    bias_multiplier : float, default=1.0
        The constant feature B appended to every sample (regularised like the others); the
        intercept is ``B * w_b``. The default 1.0 is ``LinearSVC``'s intercept
        (``intercept_scaling=1``, regularised too); 0: no intercept, as in the studies.
    class_weight : dict, "balanced" or None, default=None
        scikit-learn's meaning; multiplies ``sample_weight``.
    random_state : int or None, default=None
        Seed of the coordinate-descent sweep orders (None: 0). The result is deterministic.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    dual_coef_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Signed dual variables α_i = y_i a_i, a_i in [0, c_i U]: certified, the dual point of
        ``coef_`` (w = w̃(α)); not certified, the dual point of highest D found.
    duality_gap_, rel_gap_ : float or ndarray of shape (n_classes,)
        P − D and (P − D)/|P| of the returned pair, from the certificate.
    primal_, dual_ : float or ndarray of shape (n_classes,)
        The certified bounds ``dual_ <= P* <= primal_``.
    certified_ : bool or ndarray of shape (n_classes,)
        Exactly ``rel_gap_ <= tol`` (also ``converged_``).
    method_ : str or ndarray of shape (n_classes,)
        What ran (:class:`ExactResult`'s ``method``).
    cpu_seconds_ : float or ndarray of shape (n_classes,)
        CPU seconds of each solve (also ``epoch_times_``; ``n_epochs_`` is 1: one solve).
    ipm_iterations_, cd_epochs_, newton_steps_ : int or ndarray of shape (n_classes,)
    lmbd_ : float
        The λ of the fit (``1/n_samples`` when ``lmbd="auto"``).
    classes_, n_features_in_

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = ExactSVMClassifier().fit(StandardScaler().fit_transform(X), y)  # λ = 1/n, intercept
    >>> bool(clf.certified_), bool(clf.rel_gap_ <= 1e-10), clf.lmbd_ == 1 / X.shape[0]
    (True, True, True)
    """

    _parameter_constraints: dict = {
        "lmbd": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "loss": [StrOptions(set(losses.LOSSES))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_cpu": [Interval(Real, 0, None, closed="left")],
        "method": [StrOptions({"auto", "ipm", "primal", "gram"})],
        "bias_multiplier": [Interval(Real, 0, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "random_state": [Interval(Integral, 0, None, closed="left"), None],
    }

    _supports_sparse = True

    #: What the driver reads of an epoch-based solver: the engine solves each binary
    #: problem once, from scratch (an interior point has no use for a start point), and
    #: reports no epochs to a callback.
    max_epochs = 1
    warm_start = False
    callback = None

    def __init__(
        self,
        lmbd="auto",
        *,
        loss="hinge",
        gamma=1.0,
        tol=1e-10,
        max_cpu=60.0,
        method="auto",
        bias_multiplier=1.0,
        class_weight=None,
        random_state=None,
    ):
        self.lmbd = lmbd
        self.loss = loss
        self.gamma = gamma
        self.tol = tol
        self.max_cpu = max_cpu
        self.method = method
        self.bias_multiplier = bias_multiplier
        self.class_weight = class_weight
        self.random_state = random_state

    @property
    def loss_function(self) -> Loss:
        return losses.make_loss(self.loss, self.gamma)

    def _fit_binary(self, problem: Problem) -> BinaryFit:
        """One certified solve of the binary problem (the engine owns its clock)."""
        wall = time.perf_counter()
        res = solve_exact(
            problem.X,
            problem.y,
            problem.lmbd,
            loss=self.loss_function,
            bias=problem.bias,
            sample_weight=problem.sample_weight,
            tol=float(self.tol),
            max_cpu=float(self.max_cpu),
            method=self.method,
            seed=0 if self.random_state is None else int(self.random_state),
        )
        wall = time.perf_counter() - wall
        if not res.certified and self._warn_unconverged:
            which = "" if len(self.classes_) == 2 else f" (class {problem.positive_class})"
            warnings.warn(
                f"{type(self).__name__} did not certify the optimum{which}: relative duality "
                f"gap {res.rel_gap:.3g} > tol={self.tol:g} when max_cpu={self.max_cpu:g} CPU "
                f"seconds ended ({res.method}). coef_ is the lowest-objective point found "
                f"(primal_ = {res.primal:.6g}), dual_ = {res.dual:.6g} the highest dual bound "
                f"(dual_ <= P* <= primal_, certified_=False); increase max_cpu or tol.",
                ConvergenceWarning,
                stacklevel=caller_stacklevel(),
            )
        return BinaryFit(
            w=res.w,
            dual_coef=res.dual_coef,
            n_epochs=1,
            epoch_times=np.array([res.cpu_seconds]),
            epoch_wall_times=np.array([wall]),
            setup_time=0.0,
            setup_wall_time=0.0,
            converged=res.certified,
            duality_gap=res.gap,
            attributes={
                "certified_": res.certified,
                "rel_gap_": res.rel_gap,
                "primal_": res.primal,
                "dual_": res.dual,
                "method_": res.method,
                "cpu_seconds_": res.cpu_seconds,
                "ipm_iterations_": res.ipm_iterations,
                "cd_epochs_": res.epochs,
                "newton_steps_": res.newton_steps,
            },
        )

    def _warm_up_for(self, X, weighted: bool = False) -> None:
        """Compile the engine's kernels for X's layout (and weights) before the timed solve:
        a tiny solve by each method, and one sweep in each representation (a budget of 0
        ends those solves before their first sweep, which then compiled inside the first
        real solve's budget). The on-disk cache makes this milliseconds after the first
        process."""
        key = (type(self), layout_key(X), weighted, self._kernel_key())
        if key in WARMED:
            return
        rng = np.random.default_rng(0)
        Xt = rng.standard_normal((8, 3)).astype(X.dtype)
        if sp.issparse(X):
            Xt = sp.csr_matrix(Xt)
            Xt.indices = Xt.indices.astype(X.indices.dtype)
            Xt.indptr = Xt.indptr.astype(X.indptr.dtype)
        elif not X.flags.writeable:
            Xt.setflags(write=False)
        yt = np.array([1.0, -1.0] * 4)
        weights = np.linspace(0.5, 1.5, 8) if weighted else None
        loss, bias = self.loss_function, float(self.bias_multiplier)
        for method in ("ipm", "primal", "gram"):
            solve_exact(
                Xt,
                yt,
                WARM_UP_LMBD,
                loss=loss,
                bias=bias,
                sample_weight=weights,
                method=method,
                max_cpu=0.0,
            )
        qp = _make_qp(objectives.as_data(Xt), yt, WARM_UP_LMBD, loss, bias, weights)
        for representation in (_Primal, _Gram):
            keep = np.empty(qp.n, dtype=np.bool_)
            representation(qp).sweep(np.zeros(qp.n), np.arange(qp.n), np.inf, -np.inf, keep)
        WARMED.add(key)
