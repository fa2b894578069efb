r"""The box QP of the exact engine (:mod:`sdca_pegasos.solvers.exact.engine`) and its two
representations.

:class:`QP` is the problem with the samples of weight 0 taken out; :class:`Primal` keeps
:math:`\tilde w(a)` (Q = A Aᵀ never formed, its products through X) and :class:`Gram` keeps Q and Q
a. Both give what the interior point (:mod:`sdca_pegasos.solvers.exact.ipm`), the sweeps and the
Newton finishes (:mod:`sdca_pegasos.solvers.exact.cd`) need: the gradient, H's diagonal and
products, the barrier system's solver (Woodbury on (d + 1) × (d + 1), or Cholesky on n × n) and the
Newton direction on a free set; the dense linear algebra (BLAS ``dsyrk``, Cholesky with a ridge for
duplicated samples) is here too."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numba import njit

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.rows import kernel_rows
from sdca_pegasos.solvers.exact.cd import cd_sweep_gram, cd_sweep_primal

#: Bytes of the row (or column) blocks the dense products convert and scale at a time.
BLOCK_BYTES = 2**24
#: Largest free set whose |F| × |F| block is formed and factored for a Newton step when the
#: free rows are not dense and narrow (O(|F|³); larger free sets are left to the sweeps).
FREE_BLOCK_MAX = 2_000
#: Largest flop count of a Newton step on the dense free rows (thin SVD or Woodbury).
NEWTON_MAX_FLOPS = 2e11


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
class QP:
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


def make_qp(X, y, lmbd, loss, bias, weights) -> QP:
    """The QP of (X, y) with the samples of weight 0 taken out (their a_i is 0)."""
    n_full = X.shape[0]
    if weights is not None and not weights.all():
        live = np.flatnonzero(weights > 0.0)
        X, y, weights = X[live], y[live], weights[live]
    n = y.shape[0]
    return QP(
        X=X,
        y=y,
        lmbd=lmbd * n_full / n if n < n_full else lmbd,
        bias=bias,
        loss=loss,
        weights=weights,
        inv_lmbd_n=1.0 / (lmbd * n_full),
        upper=loss.box(weights, n),
        curv=loss.dual_curvatures(weights, n),
    )


# ---------------------------------------------------------------------------- representations
class Representation:
    """What both representations share: the returned primal point, rebuilt from α."""

    form = ""

    def __init__(self, qp: QP):
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


class Primal(Representation):
    """State of the primal representation: w̃ kept by the sweeps; Q = A Aᵀ never formed
    (A: rows y_i x̃_i/√(λn)), its products through X."""

    form = "primal"

    def __init__(self, qp: QP):
        super().__init__(qp)
        self.inv_lmbd_n = qp.inv_lmbd_n
        self.sq_norms = objectives.row_sq_norms(self.X, self.bias)
        self.rows = kernel_rows(self.X, self.y, self.sq_norms, qp.weights, self.bias)
        self.w = np.zeros(self.X.shape[1] + 1)

    def sweep(self, a, order, pg_hi, pg_lo, keep):
        return cd_sweep_primal(
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


class Gram(Representation):
    """State of the Gram representation: Q (n × n) and the gradient part Q a."""

    form = "gram"

    def __init__(self, qp: QP):
        super().__init__(qp)
        self.Q = _gram_matrix(self.X, self.y, self.bias, qp.inv_lmbd_n)
        self.qa = np.zeros(qp.n)

    def sweep(self, a, order, pg_hi, pg_lo, keep):
        return cd_sweep_gram(
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
