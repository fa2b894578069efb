r"""Monitoring in bulk: the metrics of many recorded epochs of one run from one read of each split.

:class:`sdca_pegasos.solvers.core.monitoring.EpochMetrics` evaluates one epoch at a time: one pass
over the training split and one over the test split per recorded epoch, each margin a vector dot
product. :class:`BulkMetrics` evaluates the iterates :math:`\tilde w_1, \dots, \tilde w_k` of
several epochs together: their margins over a split are ONE matrix product :math:`X W` with
:math:`W = (\tilde w_1, \dots, \tilde w_k)` (BLAS-3 for dense data, SciPy's sparse-by-dense
product for CSR), read a block of rows at a time (float32 rows are cast to float64 block by block,
never the whole matrix), and the dual's :math:`\tilde w(\alpha_1), \dots, \tilde w(\alpha_k)`
likewise one product :math:`X^\top A`. The primal, errors, dual and gap then follow from those, as
:class:`EpochMetrics` computes them from its own margins.

What is bit for bit and what is not
-----------------------------------
- **Error counts** (``error``, ``test_error`` and the output iterate's) are those of
  :class:`EpochMetrics`, bit for bit: a margin whose sign the matrix product's rounding could
  have flipped (:math:`|z_i| \le \delta_i` below, or not finite) is recomputed with the per-epoch
  arithmetic (:func:`sdca_pegasos.solvers.core.passes.row_margin`, the kernel of the training and
  test passes); every other margin has the same strict sign in both.
- **The dual's scalar part** :math:`\frac1n\sum_i (a_i - \frac\kappa2 a_i^2)` is the same
  arithmetic from the same :math:`\alpha` (:func:`sdca_pegasos.solvers.core.passes.feasible`,
  :meth:`sdca_pegasos.solvers.core.losses.Loss.dual_terms`, :func:`numpy.mean`), and so is the
  regulariser :math:`\frac\lambda2\|\tilde w\|^2` (:func:`numpy.dot` of the same vector).
- **The primal** (hinge, own loss, output iterate), **the dual** (through
  :math:`\|\tilde w(\alpha)\|^2`) and **the gap** sum in another order: they are equal within the
  bound :attr:`BulkMetrics` returns with each of them (``tests/test_bulk_monitoring.py`` checks
  it on every solver of the experiments, dense and CSR).

The bound
---------
With :math:`u = 2^{-53}` and :math:`\gamma_m = mu/(1 - mu)`: a sum of :math:`m` products computed
in ANY order (a dot product's chain, LLVM's reassociated vector lanes, a BLAS kernel's blocks, a
fused multiply-add or not) differs from the exact sum by at most :math:`\gamma_m \sum_j |x_j w_j|`
(Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1). The per-epoch margin
:math:`z_i = y_i(x_i\cdot w + B w_b)` and the bulk one are two such sums of the
:math:`m = d + 1` terms of :math:`\tilde x_i \circ \tilde w` (CSR: the row's stored entries and the
bias, at most :math:`m` = the longest row + 1), so, by Cauchy-Schwarz,

.. math::

    |z_i^{\text{bulk}} - z_i^{\text{epoch}}| \le \delta_i
        = 2\gamma_m \|\tilde x_i\|\,\|\tilde w\| \;(\times (1 + 2^{-20}))
        + 2m\cdot 2^{-1022},

the factor covering the rounding of the bound's own norms, the last term underflow (each of the
:math:`2m` operations of either sum loses at most :math:`2^{-1075}` absolutely). A loss
:math:`\phi` with :math:`-\phi' = a^*(z) \in [0, U]` non-increasing changes by at most
:math:`a^*(z_i - \delta_i)\,\delta_i` over that interval (the hinge: :math:`\delta_i` where
:math:`z_i - \delta_i < 1`, else 0), so the primal
:math:`P = \frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i c_i\phi(z_i)` of the two differs by at most

.. math::

    \frac1n\sum_i a^*(z_i - \delta_i)\,\delta_i
        + 2\gamma_{n+8}\Big(\frac\lambda2\|\tilde w\|^2
        + \frac1n\sum_i \big(\phi(z_i) + a^*(z_i - \delta_i)(|1 - z_i| + \delta_i)\big)\Big),

the second term the rounding of the loss values, their sum and the last operations in each
computation (:math:`\le \gamma_{n+8}` relative each, on non-negative terms): in words, the mean
of the margins' bounds where a margin can move the loss, plus a few units in the last place of
the objective's size per sample. For the dual, :math:`\tilde w(\alpha) = \frac1{\lambda
n}\sum_i\alpha_i\tilde x_i` is a sum of :math:`n` vectors in both, so
:math:`\|\Delta\tilde w(\alpha)\| \le E = 2\gamma_{n+2}\frac1{\lambda n}\sum_i|\alpha_i|\,
\|\tilde x_i\|`; with :math:`N = \|\tilde w(\alpha)\|` (bulk) and :math:`T` the scalar part,

.. math::

    |\Delta D| \le \frac\lambda2\Big((2NE + E^2)(1 + \gamma_{d+1}) + 2\gamma_{d+1}N^2\Big)
        + 4u\Big(|T| + \frac\lambda2 (N + E)^2\Big),

and the gap's bound is the sum of its primal's and dual's plus :math:`2u(|P| + |D|)`. Every
bound is computed with the values it bounds and multiplied by :math:`1 + 2^{-20}`. On the
tests' problems the bound is at most :math:`10^{-10}` of the objective
(``tests/test_bulk_monitoring.py`` asserts below :math:`10^{-9}`); the measured differences are
far smaller still, a few :math:`10^{-16}` (round-off errors of opposite signs cancel).
"""

from __future__ import annotations

import math
import weakref

import numpy as np
import scipy.sparse as sp
from numba import njit

from sdca_pegasos.solvers.core import losses, objectives
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.monitoring import EpochMetrics
from sdca_pegasos.solvers.core.passes import (
    feasible,
    misclassified,
    row_margin,
)
from sdca_pegasos.solvers.core.rows import FASTMATH, kernel_rows

__all__ = ["BLOCK_BYTES", "BulkMetrics", "gamma"]

#: Unit round-off of float64.
U = 2.0**-53
#: Every bound is multiplied by this: it covers the rounding of the bound's own arithmetic
#: (norms and sums of at most ~1e9 terms, each relative error below 1e-7).
SAFETY = 1.0 + 2.0**-20
#: Smallest positive normal float64: a bound of the absolute error an underflowing operation adds
#: (at most half a subnormal unit, 2^-1075; a subnormal bound would make every bound's sum a slow
#: subnormal operation).
TINY = 2.0**-1022
#: Largest finite float64.
_BIG = float(np.finfo(np.float64).max)
#: Bytes of a block of rows cast to float64 (and of its block of margins).
BLOCK_BYTES = 8 << 20

_NO_ARRAY = np.empty(0)


def gamma(m: int) -> float:
    r""":math:`\gamma_m = mu/(1 - mu)`, the relative error bound of a sum of ``m`` products."""
    return m * U / (1.0 - m * U)


class BulkMetrics:
    """The per-epoch metrics of many iterates of one problem at once (module docstring).

    Parameters
    ----------
    X, y : training split (float32/float64, dense or CSR) and its ±1 labels
    lmbd : float
    loss : solvers.losses.Loss or float
    bias : float
    X_test, y_test : test split or None
    """

    def __init__(
        self, X, y, lmbd: float, loss: Loss | float, bias: float, X_test=None, y_test=None
    ):
        # the per-epoch pass's own validation (casts, labels, the test split's width and labels)
        checked = EpochMetrics(X, y, lmbd, loss, bias, X_test=X_test, y_test=y_test)
        self.X, self.y, self.X_test = checked.X, checked.y, checked.X_test
        self.y_test = None if self.X_test is None else checked.y_test
        self.n_samples, self.n_features = checked.n_samples, checked.n_features
        self.lmbd, self.loss, self.own = checked.lmbd, checked.loss, checked.own
        self.bias, self.scale = checked.bias, checked.scale
        self._split = _Split(self.X, self.y, self.bias)
        self._test = None if self.X_test is None else _Split(self.X_test, self.y_test, self.bias)

    # --------------------------------------------------------------------------- training
    def train(self, W: np.ndarray, A: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The training split's numbers of the iterates ``W`` (k, d + 1), one per row: arrays of
        length k ``primal``, ``primal_smooth`` (NaN for the hinge), ``errors`` (counts, exact),
        ``primal_bound`` and ``primal_smooth_bound``; given dual points ``A`` (k', n), also
        ``dual`` and ``dual_bound`` of length k' (:meth:`dual`) from the same read of the split."""
        W = np.ascontiguousarray(W, dtype=np.float64)
        k, n = W.shape[0], self.n_samples
        sums = np.zeros((6, k))  # hinge, smooth, their Lipschitz terms, their magnitudes
        errors = np.zeros(k, dtype=np.int64)
        s = self._split
        wnorm = np.sqrt(np.einsum("kj,kj->k", W, W))
        if A is not None:
            A = np.ascontiguousarray(A, dtype=np.float64)
            acc = np.zeros((A.shape[0], self.n_features))
        for r0, r1, Xb, S in s.scores(W, 0 if A is None else A.shape[0]):
            if A is not None:
                acc += A[:, r0:r1] @ Xb  # w(α) of every dual point: one product per block
            unsure = np.empty((S.size, 2), dtype=np.int64)
            count = _train_block(s.y, r0, S, s.norms, wnorm, s.g2, s.eta, self.loss, self.own,
                                 sums, errors, unsure)  # fmt: skip
            if count:
                _exact_wrong(s.rows, unsure[:count], W, errors)
        hinge, smooth, lip_h, lip_s, mag_h, mag_s = sums
        reg = np.array([0.5 * self.lmbd * float(np.dot(w, w)) for w in W])
        g = gamma(n + 8)
        out = {
            "primal": reg + hinge / n,
            "primal_smooth": reg + smooth / n if self.own else np.full(k, np.nan),
            "errors": errors,
            "primal_bound": SAFETY * (lip_h / n + 2.0 * g * (reg + mag_h / n)),
            "primal_smooth_bound": (
                SAFETY * (lip_s / n + 2.0 * g * (reg + mag_s / n)) if self.own else np.zeros(k)
            ),
        }
        if A is not None:
            out["dual"], out["dual_bound"] = self._duals(A, acc)
        return out

    def test_errors(self, W: np.ndarray) -> np.ndarray:
        """Misclassified test rows of each iterate of ``W`` (k, d + 1), exact (NaN-free counts;
        a split without rows gives 0)."""
        W = np.ascontiguousarray(W, dtype=np.float64)
        wrong = np.zeros(W.shape[0], dtype=np.int64)
        s = self._test
        wnorm = np.sqrt(np.einsum("kj,kj->k", W, W))
        for r0, _, _, S in s.scores(W):
            unsure = np.empty((S.size, 2), dtype=np.int64)
            count = _test_block(s.y, r0, S, s.norms, wnorm, s.g2, s.eta, wrong, unsure)
            if count:
                _exact_wrong(s.rows, unsure[:count], W, wrong)
        return wrong

    # --------------------------------------------------------------------------- dual
    def dual(self, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(D, bound)`` of the dual points ``A`` (k, n), one per row: D(α) with w(α) of the
        matrix product and its bound (module docstring). An infeasible α raises ValueError as
        :func:`sdca_pegasos.solvers.core.objectives.dual` does."""
        A = np.ascontiguousarray(A, dtype=np.float64)
        acc = np.zeros((A.shape[0], self.n_features))
        for r0, r1, Xb in self._split.blocks(A.shape[0]):
            acc += A[:, r0:r1] @ Xb
        return self._duals(A, acc)

    def _duals(self, A: np.ndarray, acc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """D(α) and its bound of each row of ``A`` given ``acc`` = A X (w(α) unscaled, without
        its bias entry)."""
        k, d, s = A.shape[0], self.n_features, self._split
        W_alpha = np.empty((k, d + 1))
        W_alpha[:, :d] = acc
        W_alpha[:, d] = A.sum(axis=1) * self.bias
        W_alpha *= self.scale
        E = SAFETY * 2.0 * gamma(self.n_samples + 2) * self.scale * (np.abs(A) @ s.norms)
        gd = gamma(d + 1)
        duals, bounds = np.empty(k), np.empty(k)
        for j in range(k):
            a = feasible(A[j] * self.y, self.loss, None)
            terms = float(np.mean(self.loss.dual_terms(a, None)))
            w_alpha = np.ascontiguousarray(W_alpha[j])
            duals[j] = float(terms - 0.5 * self.lmbd * np.dot(w_alpha, w_alpha))
            N, e = math.sqrt(float(np.dot(w_alpha, w_alpha))), E[j]
            bounds[j] = SAFETY * (
                0.5 * self.lmbd * ((2.0 * N * e + e * e) * (1.0 + gd) + 2.0 * gd * N * N)
                + 4.0 * U * (abs(terms) + 0.5 * self.lmbd * (N + e) ** 2)
            )
        return duals, bounds


#: ‖x̃_i‖ of a split by (id of its matrix, bias), while the matrix lives: a worker's runs share
#: their dataset's arrays (experiments.datasets.load), so its norms are one pass per process.
_NORMS: dict[tuple[int, float], tuple[weakref.ref, np.ndarray]] = {}


def _row_norms(X, bias: float) -> np.ndarray:
    """‖x̃_i‖ = sqrt(‖x_i‖² + B²) of every row of ``X``, read-only, computed once per matrix."""
    key = (id(X), bias)
    held = _NORMS.get(key)
    if held is not None and held[0]() is X:
        return held[1]
    norms = np.sqrt(objectives.row_sq_norms(X, bias))
    norms.flags.writeable = False
    _NORMS[key] = (weakref.ref(X), norms)
    weakref.finalize(X, _NORMS.pop, key, None)
    return norms


class _Split:
    """One split's arrays as the bulk passes read them: its rows for the exact margins, the
    norms ‖x̃_i‖ and the margin bound's constants."""

    def __init__(self, X, y, bias: float):
        self.X, self.y, self.bias = X, y, bias
        d = X.shape[1]
        self.rows = kernel_rows(X, y, _NO_ARRAY, None, bias)
        self.norms = _row_norms(X, bias)
        longest = int(np.diff(X.indptr).max(initial=0)) if sp.issparse(X) else d
        m = max(d, longest) + 1
        self.g2 = SAFETY * 2.0 * gamma(m)
        self.eta = 2.0 * m * TINY

    def blocks(self, k: int):
        """``(r0, r1, rows r0:r1 as float64)``, blocks of at most :data:`BLOCK_BYTES` (and
        their k margins at most as much)."""
        n, d = self.X.shape
        width = -(-self.X.nnz // max(n, 1)) if sp.issparse(self.X) else d  # entries per row
        step = max(1, min(n, BLOCK_BYTES // (8 * max(width, k, 1))))
        for r0 in range(0, n, step):
            r1 = min(n, r0 + step)
            Xb = self.X[r0:r1]
            if Xb.dtype != np.float64:
                Xb = Xb.astype(np.float64)
            yield r0, r1, Xb

    def scores(self, W: np.ndarray, more: int = 0):
        """``(r0, r1, Xb, S)``: the block of rows r0:r1 (float64) and the unsigned scores x̃_i ·
        w̃ of its rows for every iterate of ``W`` (k, d + 1), S of shape (r1 - r0, k); the
        blocks sized for k + ``more`` columns."""
        d = W.shape[1] - 1
        Wd = np.ascontiguousarray(W[:, :d].T)
        wb = self.bias * W[:, d]
        for r0, r1, Xb in self.blocks(W.shape[0] + more):
            S = np.asarray(Xb @ Wd)
            S += wb
            yield r0, r1, Xb, np.ascontiguousarray(S)


# ------------------------------------------------------------------------------ kernels
@njit(cache=True, inline="always")
def _a_star(loss, z):
    """-φ'(z) = clip((1 - z)/κ, 0, U) (the hinge: U where 1 - z > 0, else 0)."""
    u = 1.0 - z
    if loss.kappa == 0.0:
        return loss.upper if u > 0.0 else 0.0
    return min(max(u / loss.kappa, 0.0), loss.upper)


@njit(cache=True, inline="always")
def _certain(z, delta):
    """Whether the per-epoch margin has the strict sign of the bulk margin ``z``: |z| > δ, both
    finite (a NaN fails both comparisons)."""
    a = abs(z)
    return a > delta and a <= _BIG and delta <= _BIG


@njit(cache=True, fastmath=FASTMATH)
def _train_block(y, r0, S, norms, wnorm, g2, eta, loss, own, sums, errors, unsure):
    """Add rows r0: (scores S, (b, k)) to each iterate's sums (see BulkMetrics.train):
    sums[0] Σ max(0, 1 - z), sums[1] Σ φ(z) (own), sums[2, 3] Σ a*(z - δ)·δ of the hinge and
    φ, sums[4, 5] their magnitude terms; errors: misclassified counts of the certain margins.
    The others' (row, iterate) go to ``unsure`` (b·k, 2); returns how many."""
    b, k = S.shape
    count = 0
    for i in range(b):
        r = r0 + i
        yi = y[r]
        for j in range(k):
            z = yi * S[i, j]
            delta = g2 * norms[r] * wnorm[j] + eta
            h = losses.hinge(z)
            if h > 0.0:
                sums[0, j] += h
                if own:
                    sums[1, j] += losses.value(loss, z)
            lo = z - delta
            if 1.0 - lo > 0.0:  # the hinge can move
                sums[2, j] += delta
                sums[4, j] += h + abs(1.0 - z) + delta
            if own:
                a = _a_star(loss, lo)
                if a > 0.0:
                    sums[3, j] += a * delta
                    phi = losses.value(loss, z) if h > 0.0 else 0.0
                    sums[5, j] += phi + a * (abs(1.0 - z) + delta)
            if _certain(z, delta):
                if misclassified(z, yi):
                    errors[j] += 1
            else:
                unsure[count, 0] = r
                unsure[count, 1] = j
                count += 1
    return count


@njit(cache=True, fastmath=FASTMATH)
def _test_block(y, r0, S, norms, wnorm, g2, eta, wrong, unsure):
    """Add the misclassified rows r0: (scores S, (b, k)) of each iterate to ``wrong`` where the
    margin is certain; the others go to ``unsure`` (see _train_block)."""
    b, k = S.shape
    count = 0
    for i in range(b):
        r = r0 + i
        yi = y[r]
        for j in range(k):
            z = yi * S[i, j]
            if _certain(z, g2 * norms[r] * wnorm[j] + eta):
                if misclassified(z, yi):
                    wrong[j] += 1
            else:
                unsure[count, 0] = r
                unsure[count, 1] = j
                count += 1
    return count


@njit(cache=True, fastmath=FASTMATH)
def _exact_wrong(rows, unsure, W, wrong):
    """Add to ``wrong`` the (row, iterate) pairs of ``unsure`` that the per-epoch margin
    (row_margin, the arithmetic of the training and test passes) misclassifies."""
    d = W.shape[1] - 1
    for t in range(unsure.shape[0]):
        r, j = unsure[t, 0], unsure[t, 1]
        w = W[j]
        if misclassified(row_margin(rows, r, w, rows.bias * w[d]), rows.y[r]):
            wrong[j] += 1
