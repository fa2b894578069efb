r"""Exact optimum of the linear SVM, with a certificate computed apart from the solver.

Problem and notation
--------------------
The primal :math:`P` and dual :math:`D` of :mod:`solvers.objectives` (hinge, or the
:math:`\gamma`-smoothed hinge). With :math:`a_i = y_i\alpha_i \in [0, 1]` the dual is
:math:`D(a) = -f(a)/n` for the convex quadratic

.. math::

    f(a) = \frac{\lambda n}{2}\|\tilde w(a)\|^2 - \sum_i a_i + \frac{\gamma}{2}\sum_i a_i^2,
    \qquad \tilde w(a) = \frac{1}{\lambda n}\sum_i a_i y_i \tilde x_i,

with gradient :math:`G_i = y_i\tilde x_i^\top\tilde w(a) - 1 + \gamma a_i` (margin minus one)
and Hessian :math:`H = Q + \gamma I` with
:math:`Q_{ij} = y_i y_j \tilde x_i^\top\tilde x_j/(\lambda n)`.
Minimising :math:`f` over the box :math:`[0, 1]^n` is a box-constrained convex QP.

Why this method
---------------
Plain SDCA converges linearly at a rate that degrades as :math:`\lambda n` shrinks, and it
pays for every sample in every epoch. At :math:`\lambda = 1/n` on raw 120×120 crops it left a
relative gap of 1e-1 after 30 s. The solver here chains standard tools so that each regime
costs what it must and no more:

1. **Dual coordinate descent with shrinking** (Hsieh et al., ICML 2008; liblinear). Exact
   coordinate minimisation in a seeded random order. A variable at a bound whose gradient
   pushes it further out (beyond the previous sweep's extreme projected gradients) leaves
   the sweep. Every shrunk set is restored for a full sweep before a stage is declared done.
   This gives the first digits quickly whatever the shape. Two representations:

   * *primal* (``n > d`` with d + 1 > 256, and CSR input): keep :math:`\tilde w`; a step
     costs :math:`O(d)` (:math:`O(\text{nnz of the row})` on CSR).
   * *Gram* (``d >= n``, the d ≫ n regime of raw crops and genomic data): form
     :math:`Q` once by one BLAS product (:math:`O(n^2 d)`) and keep the gradient vector. A
     step then costs :math:`O(n)` whatever :math:`d`, and a sweep of the active set costs
     :math:`O(|A|\,n)`.

2. **Newton finish on the free set** (a primal active-set step). Once CD has identified
   which :math:`a_i` sit at 0, at 1 or strictly inside, the optimum restricted to that
   partition solves one linear system on the free set :math:`F`: :math:`H_{FF}\Delta = -G_F`.
   In Gram mode this is a Cholesky factorisation of :math:`H_{FF}`. In primal mode the thin
   SVD of the free rows is used, since :math:`Q_{FF}` has rank at most :math:`d + 1`; with
   :math:`|F| > d + 1` (duplicated samples on the margin, as in the skin data) this gives the
   minimum-norm step. The step is cut at the first bound it crosses, or projected onto the
   box when that lowers :math:`f` more. Both lower :math:`f`, since the direction is
   Newton's. CD then resumes. With the right partition one step lands on the optimum up to
   rounding.

2b. **Interior point and crossover when d ≥ n and n ≤ 6,000** (``method="ipm"``, the
   default there, and for n > d with d + 1 ≤ 256, below). CD's rate depends on the
   conditioning of :math:`Q`, and raw crops (with near-duplicate augmented images) make it
   hopeless at small λ: at λ = 1e-3 and 1/n
   Gram CD with Newton finishes was still at a relative gap of 1e-3 and 0.6 after 60 s,
   its partition far from the optimum's (4094 free variables where the optimum has 1836).
   Mehrotra's predictor-corrector method (:func:`_ipm_iterates`) needs ~15-20 Cholesky
   factorisations of :math:`Q + \mathrm{diag}` whatever the conditioning; from its iterates
   a primal-dual active-set crossover (:func:`_crossover`) finds the optimum's partition and
   solves it exactly, with the last refinements on a compensated gradient computed through
   X (Q a carries ~1e-9 of cancellation error there). Measured on raw crops, one core: every
   λ of the sweep, 1.6 down to 1/n, certified to ≤ 2e-12 in 31-40 s, ~14 s of which is the
   Gram product. Should the crossover not certify, Gram CD goes on from its best point.

   The same method runs in **low-rank primal form when n > d and d + 1 ≤ 256**: with
   :math:`Q = AA^\top` (A the n × (d + 1) scaled rows), Woodbury's identity reduces each
   solve to a (d + 1) × (d + 1) Cholesky factorisation, O(n d²) per iteration, and the
   crossover is a few projected Newton steps (item 2). Measured, one core: PCA-40 at
   λ = 1/n certified in 0.1 s (CD + Newton: 3.6 s), skin at 1/n in 1.1 s (2.9 s).

3. **Certificate apart from the solver.** :math:`\tilde w` is rebuilt from :math:`\alpha`.
   Then :func:`solvers.objectives.certificate` computes :math:`P(\tilde w)`, :math:`D(\alpha)`
   (with :math:`\tilde w(\alpha)` recomputed) and the gap in one fused pass over X, with
   compensated (TwoSum) sums. Rounding therefore cannot fake a 1e-10 relative gap. The run
   stops once :math:`(P - D)/|P|` is at most ``tol``, or when the CPU budget ends, in which
   case the result says ``certified=False`` and carries the gap it reached.

Randomness enters as data: the driver draws each sweep's order from
``numpy.random.default_rng(seed)``, so the same seed gives the same bits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numba import njit

from . import losses, objectives
from ._kernels import FASTMATH, kernel_rows, weight_of

__all__ = ["ExactResult", "solve_exact"]

#: Largest n for the Gram representation (n² float64: 20,000 samples is 3.2 GB).
GRAM_MAX_SAMPLES = 20_000
#: Largest free set for a Newton step on CSR input (a dense |F| × |F| block and its
#: Cholesky factorisation, O(|F|³); larger free sets are left to the sweeps).
SPARSE_NEWTON_MAX = 2_000
#: Largest n for the interior-point method: each iteration factors an n × n matrix
#: (~1.5 s on one core at n = 5,000, O(n³)), and ~20-25 iterations must fit the budget.
IPM_MAX_SAMPLES = 6_000
#: Largest d + 1 for the interior point in primal form (n > d): an iteration forms and
#: factors I + Aᵀ D⁻¹ A, O(n d²), and takes a few O(n d) products.
IPM_MAX_RANK = 256


@dataclass(frozen=True)
class ExactResult:
    """An optimum and its certificate.

    Attributes
    ----------
    w : ndarray of shape (n_features + 1,)
        :math:`\\tilde w(\\alpha)`, last entry the bias weight (see :mod:`solvers.objectives`).
    dual_coef : ndarray of shape (n_samples,)
        Signed dual variables :math:`\\alpha_i = y_i a_i`.
    primal, dual, gap, rel_gap : float
        :math:`P(\\tilde w)`, :math:`D(\\alpha)`, :math:`P - D \\ge 0` and :math:`(P - D)/|P|`,
        from the independent certificate. ``dual <= P* <= primal`` holds whatever the gap.
    certified : bool
        ``rel_gap <= tol``.
    cpu_seconds : float
        Process CPU time of the whole solve (Gram product, sweeps, Newton steps, certificates).
    method : str
        ``"primal-cd+newton"``, ``"gram-cd+newton"``, ``"gram-ipm+crossover"`` (or
        ``"gram-ipm+crossover+cd+newton"`` when CD had to go on after the crossover).
    epochs : int
        CD sweeps (over the active set) run.
    newton_steps : int
        Newton steps taken.
    tol : float
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
    hi = -np.inf
    lo = np.inf
    for j in range(order.shape[0]):
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


# ---------------------------------------------------------------------------- representations
class _Representation:
    """What both representations share: the returned primal point, rebuilt from α."""

    def weights(self, a):
        """w̃(a) from scratch with compensated sums (never the sweeps' running copy)."""
        return objectives.exact_dual_weights(self.X, self.y * a, self.lmbd, self.bias)

    def exact_gradient(self, a):
        """G(a) through X with compensated sums: free of the cancellation in Q a or w̃."""
        margins = objectives.exact_margins(self.X, self.y, self.weights(a), self.bias)
        return margins - 1.0 + self.gamma * a


class _Primal(_Representation):
    """State of the primal representation: w̃ kept by the sweeps."""

    method = "primal-cd+newton"

    def __init__(self, X, y, lmbd, gamma, bias):
        self.X, self.y, self.lmbd, self.gamma, self.bias = X, y, lmbd, gamma, bias
        self.loss = losses.make_loss(gamma)
        self.inv_lmbd_n = 1.0 / (lmbd * X.shape[0])
        self.sq_norms = objectives.row_sq_norms(X, bias)
        self.rows = kernel_rows(X, y, self.sq_norms, None, bias)
        self.w = np.zeros(X.shape[1] + 1)

    def sweep(self, a, order, pg_hi, pg_lo, keep):
        kernel = _cd_sweep_primal_csr if sp.issparse(self.X) else _cd_sweep_primal
        return kernel(self.rows, self.w, a, order, self.inv_lmbd_n, self.loss, pg_hi, pg_lo, keep)

    def refresh(self, a):
        """Rebuild w̃(a) from scratch (drops the sweeps' accumulated rounding)."""
        self.w = objectives.dual_weights(self.X, self.y * a, self.lmbd, self.bias)

    @property
    def factor(self):
        """A (n × (d + 1), dense float64) with Q = A Aᵀ: rows ỹ_i x̃_i/√(λn)."""
        if getattr(self, "_factor", None) is None:
            A = np.empty((self.X.shape[0], self.X.shape[1] + 1))
            A[:, :-1] = self.X
            A[:, -1] = self.bias
            A *= (self.y * np.sqrt(self.inv_lmbd_n))[:, None]
            self._factor = A
        return self._factor

    def hessian_diag(self):
        return self.sq_norms * self.inv_lmbd_n + self.gamma

    def hess_dot(self, v):
        A = self.factor
        return A @ (A.T @ v) + self.gamma * v

    def barrier_solver(self, barrier):
        """v ↦ (A Aᵀ + diag(γ + barrier))⁻¹ v through Woodbury's identity: one Cholesky of
        the (d + 1) × (d + 1) matrix I + Aᵀ D⁻¹ A, O(n d²) to form (None if it fails)."""
        A = self.factor
        dinv = 1.0 / (self.gamma + barrier)
        M = (A.T * dinv) @ A
        M[np.diag_indices_from(M)] += 1.0
        factor = _cholesky(M)
        if factor is None:
            return None

        def solve(v):
            u = dinv * v
            return u - dinv * (A @ scipy.linalg.cho_solve(factor, A.T @ u, check_finite=False))

        return solve

    def gradient(self, a):
        return objectives.margins(self.X, self.y, self.w, self.bias) - 1.0 + self.gamma * a

    def newton(self, free, g_free):
        """Newton direction on the free set F, and v ↦ H_FF v.

        H_FF = A Aᵀ + γI with A the free rows scaled by y_i/√(λn), of rank ≤ d + 1: the thin
        SVD of A gives its eigenvectors in O(|F| d²) whatever |F|. On CSR input (d large,
        rows sparse) H_FF is formed from the sparse product of the free rows and factored,
        as in the Gram representation (no step when |F| exceeds SPARSE_NEWTON_MAX).
        """
        if sp.issparse(self.X):
            if free.shape[0] > SPARSE_NEWTON_MAX:
                return np.zeros_like(g_free), lambda v: v
            solve, H = _free_block_solver(
                _gram_matrix(self.X[free], self.y[free], self.bias, self.inv_lmbd_n), self.gamma
            )
            return -solve(g_free), H
        rows = self.X[free].astype(np.float64)
        A = np.empty((free.shape[0], rows.shape[1] + 1))
        A[:, :-1] = rows
        A[:, -1] = self.bias
        A *= (self.y[free] * np.sqrt(self.inv_lmbd_n))[:, None]  # Q_FF = A Aᵀ
        U, s, _ = np.linalg.svd(A, full_matrices=False)
        curv = s * s + self.gamma  # H_FF's eigenvalues on range(A)
        keep = curv > curv.max(initial=0.0) * 1e-14
        U, curv = U[:, keep], curv[keep]
        # Off range(A), H_FF is γI: for the hinge f is linear there and unbounded in the
        # affine set, so the box decides. Give that part the smallest curvature of the
        # range; the projected line search then moves those variables to their bounds.
        null_curv = self.gamma if self.gamma > 0.0 else curv.min(initial=1.0)
        proj = U.T @ g_free
        delta = -(U @ (proj / curv) + (g_free - U @ proj) / null_curv)
        return delta, lambda v: A @ (A.T @ v) + self.gamma * v

    def apply(self, free, delta):
        c = self.y[free] * delta * self.inv_lmbd_n
        rows = self.X[free].astype(np.float64)
        self.w[:-1] += c @ rows
        self.w[-1] += c.sum() * self.bias


class _Gram(_Representation):
    """State of the Gram representation: Q (n × n) and the gradient part Q a."""

    method = "gram-cd+newton"

    def __init__(self, X, y, lmbd, gamma, bias):
        self.X, self.y, self.lmbd, self.gamma, self.bias = X, y, lmbd, gamma, bias
        self.loss = losses.make_loss(gamma)
        self.Q = _gram_matrix(X, y, bias, 1.0 / (lmbd * X.shape[0]))
        self.qa = np.zeros(X.shape[0])

    def sweep(self, a, order, pg_hi, pg_lo, keep):
        return _cd_sweep_gram(self.Q, a, self.qa, order, self.loss, None, pg_hi, pg_lo, keep)

    def refresh(self, a):
        self.qa = self.Q @ a

    def gradient(self, a):
        return self.qa - 1.0 + self.gamma * a

    def hessian_diag(self):
        return np.diag(self.Q) + self.gamma

    def hess_dot(self, v):
        return self.Q @ v + self.gamma * v

    def barrier_solver(self, barrier):
        """v ↦ (H + diag(barrier))⁻¹ v by one n × n Cholesky (None if it fails)."""
        M = self.Q.copy()
        M[np.diag_indices_from(M)] += self.gamma + barrier
        factor = _cholesky(M)
        if factor is None:
            return None
        return lambda v: scipy.linalg.cho_solve(factor, v, check_finite=False)

    def free_solver(self, free):
        return _free_block_solver(self.Q[np.ix_(free, free)], self.gamma)

    def newton(self, free, g_free):
        solve, H = self.free_solver(free)
        return -solve(g_free), H

    def apply(self, free, delta):
        self.qa += self.Q[:, free] @ delta


def _gram_matrix(X, y, bias, scale):
    """Q = scale · diag(y) (X Xᵀ + B²) diag(y) as a dense float64 array: one BLAS ``dsyrk``
    (upper triangle) for dense X, a sparse product for CSR."""
    if sp.issparse(X):
        X64 = X.astype(np.float64)
        Q = (X64 @ X64.T).toarray()
    else:
        Q = scipy.linalg.blas.dsyrk(1.0, np.asarray(X, dtype=np.float64))
        Q = np.triu(Q) + np.triu(Q, 1).T
    if bias != 0.0:
        Q += bias * bias
    Q *= np.outer(y, y) * scale
    return np.ascontiguousarray(Q)


def _free_block_solver(H, gamma):
    """v ↦ (H + γI)⁻¹ v (Cholesky, a tiny ridge if singular) and v ↦ (H + γI) v; H is
    modified in place."""
    H[np.diag_indices_from(H)] += gamma
    factor = _cholesky(H)
    if factor is None:
        return (lambda v: np.zeros_like(v)), lambda v: H @ v
    return lambda v: scipy.linalg.cho_solve(factor, v, check_finite=False), lambda v: H @ v


def _cholesky(H):
    """Cholesky factor of H, or of H + a tiny ridge when H is singular to rounding
    (duplicated samples); None when even the largest ridge fails."""
    scale = max(float(np.mean(np.diag(H))), np.finfo(float).tiny)
    for ridge in (0.0, 1e-13, 1e-10, 1e-7):
        try:
            return scipy.linalg.cho_factor(
                H + ridge * scale * np.eye(H.shape[0]) if ridge else H, check_finite=False
            )
        except np.linalg.LinAlgError:
            continue
    return None


# ---------------------------------------------------------------------------- interior point
def _ipm_iterates(rep, max_iter=100):
    r"""Mehrotra's predictor-corrector interior-point method on the box QP; yields
    ``(a, z, s, mu, g)`` before each iteration (g = Ha - 1, the gradient at a).

    KKT system of :math:`\min \tfrac12 a^\top H a - 1^\top a`, :math:`0 \le a \le 1`,
    :math:`H = Q + \gamma I`: :math:`Ha - 1 - z + s = 0`, :math:`a_i z_i = \mu`,
    :math:`(1 - a_i) s_i = \mu` with :math:`z, s > 0` and :math:`\mu \to 0`. Each
    iteration solves with :math:`H + \mathrm{diag}(z/a + s/(1 - a))` twice through one
    factorisation (``rep.barrier_solver``: dense Cholesky of n × n in Gram mode, a
    (d + 1) × (d + 1) one through Woodbury's identity in primal mode), so the iteration
    count does not depend on the conditioning of H. Start: a = 1/2 with z, s making the
    first point dual feasible; steps stop 0.5 % short of the boundary.
    """
    n = rep.y.shape[0]
    a = np.full(n, 0.5)
    g = rep.hess_dot(a) - 1.0
    z = np.maximum(g, 0.0) + 1.0
    s = np.maximum(-g, 0.0) + 1.0
    for _ in range(max_iter):
        t = 1.0 - a
        mu = float(a @ z + t @ s) / (2 * n)
        yield a, z, s, mu, g
        rd = g - z + s
        solve = rep.barrier_solver(z / a + s / t)
        if solve is None:
            return
        da, dz, ds = _ipm_direction(solve, a, t, z, s, rd, -a * z, -t * s)  # predictor
        step = _ipm_longest(a, t, z, s, da, dz, ds)
        mu_aff = ((a + step * da) @ (z + step * dz) + (t - step * da) @ (s + step * ds)) / (2 * n)
        sigma = (mu_aff / mu) ** 3
        da, dz, ds = _ipm_direction(  # corrector
            solve, a, t, z, s, rd, sigma * mu - a * z - da * dz, sigma * mu - t * s + da * ds
        )
        step = 0.995 * _ipm_longest(a, t, z, s, da, dz, ds)
        if step < 1e-10:
            return  # stalled (rounding): the crossover so far is the answer
        a = a + step * da
        z = z + step * dz
        s = s + step * ds
        g = rep.hess_dot(a) - 1.0


def _ipm_direction(solve, a, t, z, s, rd, rz, rs):
    """Newton direction (da, dz, ds) for the complementarity targets rz = a∘z, rs = t∘s."""
    da = solve(rz / a - rs / t - rd)
    return da, (rz - z * da) / a, (rs + s * da) / t


def _ipm_longest(a, t, z, s, da, dz, ds) -> float:
    """Longest step in [0, 1] that keeps a, t = 1 - a, z and s nonnegative."""
    step = 1.0
    for v, dv in ((a, da), (t, -da), (z, dz), (s, ds)):
        neg = dv < 0.0
        if neg.any():
            step = min(step, float(np.min(-v[neg] / dv[neg])))
    return step


def _crossover(rep, a, z, s, rounds: int = 30):
    """From an interior point to the vertex of its face: a primal-dual active-set finish.

    A variable is put at 0 when its barrier curvature z/a exceeds its curvature H_ii (and
    z > s), at 1 likewise with s/(1 - a); the rest is free. In primal mode (H_FF of rank
    ≤ d + 1, singular when |F| > d + 1 as with skin's duplicates) a few projected Newton
    steps (:func:`_newton_step`) finish the face. In Gram mode, on a partition, the free
    variables solve H_FF a_F = 1 - H_FB a_B (one factorisation, a Newton step and one
    refinement). Free variables that leave the box are put at the bound, bounded ones whose
    gradient pulls inward are freed (Hintermüller, Ito & Kunisch 2003), until the partition
    stands. Two last refinements use :meth:`_Representation.exact_gradient` (compensated,
    through X): the Gram products Q a carry ~1e-9 of cancellation error on raw crops, which
    alone would cost 1e-10 of relative gap. Returns a point of the box.
    """
    hd = rep.hessian_diag()
    with np.errstate(divide="ignore"):
        at0 = (z > s) & (z > hd * a)
        at1 = (s > z) & (s > hd * (1.0 - a))
    a = np.where(at0, 0.0, np.where(at1, 1.0, a))
    rep.refresh(a)
    if not isinstance(rep, _Gram):
        # primal mode: H_FF has rank ≤ d + 1, often below |F| (duplicates): the projected
        # Newton step with its minimum-norm direction and line search finishes the face
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
        low, high = a[free] < 0.0, a[free] > 1.0
        enter0 = at0 & (g < -1e-12)
        enter1 = at1 & (g > 1e-12)
        if not (low.any() or high.any() or enter0.any() or enter1.any()):
            break
        at0[free[low]] = True
        at1[free[high]] = True
        at0 &= ~enter0
        at1 &= ~enter1
        a = np.clip(a, 0.0, 1.0)
        rep.refresh(a)
    free = np.flatnonzero(~(at0 | at1))
    if free.size:
        if factored is None or not np.array_equal(free, factored):
            solve, _ = rep.free_solver(free)
        for _ in range(2):
            a[free] -= solve(rep.exact_gradient(a)[free])
    a = np.clip(a, 0.0, 1.0)
    rep.refresh(a)
    return a


# ---------------------------------------------------------------------------- driver
def solve_exact(
    X,
    y,
    lmbd: float,
    *,
    gamma: float = 0.0,
    bias: float = 0.0,
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
    gamma : float, default=0.0
        Smoothing of the hinge (0: hinge).
    bias : float, default=0.0
        Bias multiplier :math:`B` (constant feature, regularised like the others).
    tol : float, default=1e-10
        Target relative gap.
    max_cpu : float, default=60.0
        CPU-second budget of the whole solve; when it ends the best certified bounds so far
        are returned with ``certified=False``.
    method : {"auto", "primal", "gram", "ipm"}, default="auto"
        ``auto``, for dense X: ``ipm`` when ``n_features >= n_samples`` and n ≤ 6,000 (Gram
        form), or when ``n_features < n_samples`` and d + 1 ≤ 256 (low-rank primal form);
        else ``gram`` when ``n_features >= n_samples`` and n ≤ 20,000; else ``primal``.
        Sparse X: ``primal``. ``ipm`` goes on with coordinate descent (in its
        representation) should its crossover not certify within the budget.
    seed : int, default=0
        Seed of the sweep orders.

    Returns
    -------
    ExactResult
    """
    start = time.process_time()
    X = objectives.as_data(X)
    n, d = X.shape
    y = objectives.as_labels(y, n)
    if not (np.isfinite(lmbd) and lmbd > 0.0):
        raise ValueError(f"lmbd must be a finite number > 0, got {lmbd!r}")
    if not (tol > 0.0):
        raise ValueError(f"tol must be > 0, got {tol!r}")
    gram_ipm = d >= n and n <= IPM_MAX_SAMPLES
    if method == "auto":
        if sp.issparse(X):
            method = "primal"
        elif gram_ipm or (d < n and d + 1 <= IPM_MAX_RANK):
            method = "ipm"
        else:
            method = "gram" if d >= n and n <= GRAM_MAX_SAMPLES else "primal"
    if method not in ("primal", "gram", "ipm"):
        raise ValueError(f"method must be 'auto', 'primal', 'gram' or 'ipm', got {method!r}")
    if method == "ipm" and sp.issparse(X) and d < n:
        raise ValueError(
            "method='ipm' on sparse X needs n_features >= n_samples (its Gram form); "
            "use method='primal' for this shape"
        )
    use_gram = method == "gram" or (method == "ipm" and d >= n)
    rep = (_Gram if use_gram else _Primal)(X, y, float(lmbd), float(gamma), float(bias))
    rng = np.random.default_rng(seed)
    a = np.zeros(n)
    all_samples = np.arange(n, dtype=np.int64)
    epochs = newton_steps = ipm_iterations = 0
    eps = 0.1  # projected-gradient spread that ends a CD stage; tightened stage by stage
    best = None
    skip_newton = False

    def cpu() -> float:
        return time.process_time() - start

    def certify(a) -> bool:
        """The certificate of ``a``, kept if it is the best so far; True when it certifies."""
        nonlocal best
        w = rep.weights(a)
        cert = objectives.certificate(X, y, w, y * a, lmbd, gamma, bias)
        if best is None or cert["gap"] < best[2]["gap"]:
            best = (w, y * a, cert)
        return cert["rel_gap"] <= tol

    if method == "ipm":
        # ---- interior point: a crossover each time mu has fallen tenfold below 1e-6 (the
        # vertex of the optimum's face: exact zeros and ones), and, should that not yet
        # certify, the iterate itself once the gap its gradient implies is below tol/2
        # (enough for loose targets, but its a_i are never exactly at a bound)
        next_crossover = 1e-6
        for a_in, z, s, mu, g in _ipm_iterates(rep):
            if cpu() >= max_cpu:
                break
            if mu <= next_crossover:
                next_crossover = mu * 0.1
                if certify(_crossover(rep, a_in, z, s)):
                    break
            if _implied_rel_gap(a_in, g, gamma) <= 0.5 * tol and certify(a_in):
                break
            ipm_iterations += 1
        label = ("gram" if use_gram else "primal") + "-ipm+crossover"
        if best is not None:
            a = np.clip(best[1] * y, 0.0, 1.0)  # Gram CD goes on from the best point
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
        while cpu() < max_cpu and work < 200 * n:
            order = rng.permutation(active)
            work += order.shape[0]
            keep = np.empty(order.shape[0], dtype=np.bool_)
            hi, lo = rep.sweep(a, order, pg_hi, pg_lo, keep)
            epochs += 1
            active = order[keep]
            if active.shape[0] == 0 or hi - lo <= eps:
                if order.shape[0] == n:
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
            kkt = np.abs(_projected_gradient(rep.gradient(a), a)).max()
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
            skip_newton = np.abs(_projected_gradient(rep.gradient(a), a)).max() > 0.1 * kkt
        # ---- stage 3: the certificate, computed apart from the solver's state
        certify(a)
        eps = max(eps * 0.01, 1e-15)

    w, dual_coef, cert = best
    return ExactResult(
        w=w,
        dual_coef=dual_coef,
        primal=cert["primal"],
        dual=cert["dual"],
        gap=cert["gap"],
        rel_gap=cert["rel_gap"],
        certified=bool(cert["rel_gap"] <= tol),
        cpu_seconds=cpu(),
        method=label,
        epochs=epochs,
        newton_steps=newton_steps,
        tol=float(tol),
        ipm_iterations=ipm_iterations,
    )


def _implied_rel_gap(a: np.ndarray, g: np.ndarray, gamma: float) -> float:
    """(P - D)/|P| at a from its gradient g = Qa + γa - 1 alone, O(n): the margins are Qa.

    An estimate (Qa carries the representation's rounding); the certificate decides.
    """
    qa = g + 1.0 - gamma * a
    aqa = float(a @ qa)
    primal = 0.5 * aqa + float(objectives.loss_values(qa, gamma).sum())
    dual = float(a.sum()) - 0.5 * aqa - 0.5 * gamma * float(a @ a)
    return (primal - dual) / abs(primal) if primal != 0.0 else np.inf


def _projected_gradient(g: np.ndarray, a: np.ndarray) -> np.ndarray:
    """KKT residual of the box QP: the gradient with its outward part at the bounds removed."""
    return np.where(a <= 0.0, np.minimum(g, 0.0), np.where(a >= 1.0, np.maximum(g, 0.0), g))


def _newton_step(rep, a) -> float:
    """One projected Newton step (Bertsekas 1982) on ``a``, in place.

    Variables at a bound whose gradient pushes them outward stay fixed; on the others
    (free, or at a bound but pulled inward) the step solves H_FF Δ = -G_F. The trial point
    is the projection of a + tΔ onto the box, t = 1, 1/2, 1/4, ..., accepted at the first
    exact decrease f(a + s) - f(a) = G_Fᵀs + ½ sᵀH_FF s < 0. Returns the decrease (0.0 when
    no step lowers f: the partition is then left to the sweeps).
    """
    g_all = rep.gradient(a)
    fixed = ((a <= 0.0) & (g_all >= 0.0)) | ((a >= 1.0) & (g_all <= 0.0))
    free = np.flatnonzero(~fixed)
    if free.size == 0:
        return 0.0
    g = g_all[free]
    delta, H = rep.newton(free, g)
    if not np.any(delta):
        return 0.0
    a_f = a[free]
    t = 1.0
    for _ in range(30):
        new = np.clip(a_f + t * delta, 0.0, 1.0)
        s = new - a_f
        decrease = float(g @ s + 0.5 * s @ H(s))
        if decrease < 0.0:
            a[free] = new
            rep.apply(free, s)
            return decrease
        t *= 0.5
    return 0.0
