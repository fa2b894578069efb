r"""The exact finish of SDCA with shrinking (``SDCAClassifier(shrinking=True, finish=True)``).

Late in a fit with shrinking, the active set is a few dozen samples swept for hundreds of
epochs: on blood PCA-40 at λ = 1/n, 41-57 samples inside the box with d + 1 = 41, so the
block's dual Hessian is singular and coordinate ascent moves its coupled coordinates one at
a time, barely moving the gap. Once per shrinking phase (between two full passes), when the
active set A has at most :data:`LIMIT` samples, the finish solves the block's box QP
exactly, the other samples' α fixed:

.. math:: \min_{0 \le a_A \le c_A U} \tfrac12 a_A^\top G a_A + b^\top a_A, \qquad
   G = \tfrac{1}{\lambda n} (y_A y_A^\top) \circ (X_A X_A^\top + B^2)
   + \operatorname{diag}(\kappa / c_A),

with b the margins of the current w̃ less the block's own part, minus 1, so that G a + b is
SDCA's gradient :math:`G_i = y_i \tilde x_i^\top \tilde w - 1 + \kappa a_i / c_i`. The method
(:func:`box_qp`) is a primal active-set method in the block's Gram form (|A| × |A|, built by
one product of the block's rows, dense or CSR): Newton's step on the face of the free
variables (the least-norm solution from an eigendecomposition of G_FF), or, when the
gradient has a part in G_FF's null space, the descent ray along that part (the objective is
linear there: the degenerate case above), each to the first bound it reaches; at a face's
minimum the fixed variable pulled inside hardest is freed. Then α_A and w̃ take the
solution (w̃ by the block's change alone: O(nnz(X_A))) and the sweep goes on; the next full
pass checks the partition, and the stopping test certifies as always.

A finish is part of the timed update (it is the solver's work); it depends only on the
state and runs its linear algebra on one BLAS thread
(:func:`sdca_pegasos.solvers.core.runtime.blas_single_thread`, as the exact engine), so the same
seed gives the same bits on any machine's core count.
"""

from __future__ import annotations

import numpy as np

from sdca_pegasos.solvers.core.runtime import blas_single_thread

#: The largest active set given a finish (its eigendecompositions are |F| × |F|, |F| ≤ |A|).
LIMIT = 64
#: Active-set iterations of one finish at most (each fixes or frees one variable).
MAX_ITER = 500


def box_qp(G, b, a, u, max_iter: int = MAX_ITER, tol: float = 1e-12):
    """Minimise ½ aᵀGa + bᵀa over 0 ≤ a ≤ u (G symmetric positive semi-definite) from the
    feasible ``a`` (a copy is made); returns ``(a, iterations, converged)``.

    Variables at a bound are fixed; on the free ones F the step is Newton's on the face (the
    least-norm solution of G_FF p = −g_F) or, when g_F has a part in G_FF's null space, the
    descent ray along that part, each taken up to the first bound it reaches (which is then
    fixed). At a face's minimum, the fixed variable whose gradient pulls it inside hardest is
    freed; none: optimal (every projected gradient within ``tol``).
    """
    a = np.clip(a, 0.0, u)
    at0, at1 = a <= 0.0, a >= u
    for it in range(max_iter):
        g = G @ a + b
        free = np.flatnonzero(~(at0 | at1))
        p, ray = np.zeros_like(a), False
        if free.size:
            s2, V = np.linalg.eigh(G[np.ix_(free, free)])
            keep = s2 > max(s2.max(), 0.0) * 1e-20  # s > 1e-10 of the largest singular value
            V, s2 = V[:, keep], s2[keep]
            proj = V.T @ g[free]
            null = g[free] - V @ proj
            ray = np.linalg.norm(null) > 1e-10 * np.linalg.norm(g[free])
            p[free] = -null if ray else -V @ (proj / s2)
        if not ray and np.abs(p).max(initial=0.0) <= tol * max(1.0, np.abs(a).max()):
            pull0 = np.where(at0 & (u > 0.0), -g, -np.inf)  # at 0, g < 0 pulls inside
            pull1 = np.where(at1 & (u > 0.0), g, -np.inf)  # at the top, g > 0 does
            if max(pull0.max(), pull1.max()) <= tol:
                return a, it, True
            if pull0.max() >= pull1.max():
                at0[np.argmax(pull0)] = False
            else:
                at1[np.argmax(pull1)] = False
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            reach = np.where(p < 0.0, -a / p, np.where(p > 0.0, (u - a) / p, np.inf))
        j = int(np.argmin(reach))
        if ray and not np.isfinite(reach[j]):
            return a, it, False  # an unbounded ray: not for G ⪰ 0 with a finite box
        step = reach[j] if ray else min(1.0, reach[j])
        a[free] += step * p[free]
        if reach[j] <= step:  # the blocking variable is fixed at its bound
            (at1 if p[j] > 0.0 else at0)[j] = True
            a[j] = u[j] if p[j] > 0.0 else 0.0
    return a, max_iter, False


class BlockFinish:
    """The finish of one binary fit: when it is due, and the finish itself."""

    def __init__(self, problem, loss):
        self.problem, self.loss = problem, loss
        n = problem.n_samples
        self.upper = loss.box(problem.sample_weight, n)
        self.curv = loss.dual_curvatures(problem.sample_weight, n)
        self.done = False  # this shrinking phase has had its finish
        self.finishes = 0
        self.iterations = 0  # active-set iterations, every finish of the fit

    def __call__(self, state) -> int:
        """Before a shrunk epoch: finish the active set if it is due; returns the samples
        read (the block's rows, once)."""
        active, n = state.active, self.problem.n_samples
        m = int(active.size[0])
        if m == n:
            self.done = False  # a full pass: the next small active set gets a finish
            return 0
        if self.done or m > LIMIT or m == 0:
            return 0
        self.done = True
        block = np.sort(active.samples[:m])
        with blas_single_thread():
            self._solve(state.sweep, block, state.params.lmbd_n)
        state.sweep.grad[block] = np.nan  # the block's gradients moved: unknown until swept
        return m

    def _solve(self, sweep, block, lmbd_n: float) -> None:
        p = self.problem
        X = p.X[block].astype(np.float64)  # float32 rows: the products in float64
        y = p.y[block]
        bias = p.bias
        K = X @ X.T
        K = np.asarray(K.toarray() if hasattr(K, "toarray") else K, dtype=np.float64)
        curv = self.curv[block]
        Q = (np.outer(y, y) * (K + bias * bias)) / lmbd_n
        w = sweep.w
        margins = y * (np.asarray(X @ w[:-1], dtype=np.float64).ravel() + bias * w[-1])
        a0 = y * sweep.dual_coef[block]
        b = margins - 1.0 - Q @ a0
        a, iterations, _ = box_qp(Q + np.diag(curv), b, a0, self.upper[block])
        self.finishes += 1
        self.iterations += iterations
        coef = y * (a - a0) / lmbd_n
        w[:-1] += np.asarray(X.T @ coef, dtype=np.float64).ravel()
        w[-1] += bias * coef.sum()
        sweep.dual_coef[block] = y * a
