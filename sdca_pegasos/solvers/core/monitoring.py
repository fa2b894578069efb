r"""Every per-epoch number of a run from one compiled pass over each split.

An experiment records, after every epoch, the hinge primal :math:`P(\tilde w)`, the primal of the
solver's own loss, the dual :math:`D(\alpha)` with :math:`\tilde w(\alpha)` rebuilt from
:math:`\alpha`, the gap, the training and test errors of the current iterate, and the primal and
errors of the returned iterate (a running average) when it differs. Computed one function at a time
(:func:`sdca_pegasos.solvers.core.objectives.monitor`,
:func:`sdca_pegasos.solvers.core.objectives.error_rate`) that is up to four passes over the
training set, two over the test set, a validation of the labels at every call and half a dozen
temporaries of length n.

:class:`EpochMetrics` validates a split once and then, per epoch, reads each training row once for
both iterates and the dual's :math:`\tilde w(\alpha)`
(:func:`sdca_pegasos.solvers.core.passes.train_pass`, the kernel of
:func:`sdca_pegasos.solvers.core.objectives.monitor`), each test row once for both iterates
(``_test_pass``), and :math:`\alpha` once for the dual's terms (``_dual_terms``). Its numbers are
those of :mod:`sdca_pegasos.solvers.core.objectives` bit for bit: the same per-row arithmetic
(:func:`sdca_pegasos.solvers.core.passes.row_margin`) in the same order under the same compile
flags, and the same NumPy reductions (:func:`numpy.mean` of the dual's terms, :func:`numpy.dot` for
the squared norms), which ``tests/test_monitoring.py`` asserts on dense and CSR data, every loss,
with and without sample weights."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sdca_pegasos.solvers.core.losses import HINGE, Loss, make_loss
from sdca_pegasos.solvers.core.passes import (
    FEASIBILITY_SLACK,
    as_data,
    as_dual,
    as_full,
    as_labels,
    as_sample_weight,
    misclassified,
    row_margin,
    train_pass,
)
from sdca_pegasos.solvers.core.rows import FASTMATH, kernel_rows, n_rows, weight_of

__all__ = ["EpochMetrics"]


class EpochMetrics:
    r"""The per-epoch metrics of one problem, its arrays validated once.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
        The training split (float32/float64, dense or CSR; never copied when already so).
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    lmbd : float
    loss : solvers.losses.Loss or float
        The solver's loss (``primal_smooth``, ``dual`` and ``gap`` are of its problem).
    bias : float
        Bias multiplier :math:`B`.
    sample_weight : ndarray of shape (n_samples,) or None
    X_test, y_test : test split or None
        Without one, the test errors are NaN.

    Notes
    -----
    Calling the instance with ``(w, dual_coef, w_out)`` returns the dict of
    :func:`sdca_pegasos.solvers.core.objectives.monitor` for ``w`` (``primal``, ``primal_smooth``,
    ``error``, ``dual``, ``gap``) plus ``test_error``
    (:func:`sdca_pegasos.solvers.core.objectives.error_rate` of ``w`` on the test split) and, for
    ``w_out``, ``primal_output``, ``error_output`` and ``test_error_output`` (the values of ``w``
    when ``w_out`` is ``w`` or equal to it)."""

    def __init__(
        self,
        X,
        y,
        lmbd: float,
        loss: Loss | float = 0.0,
        bias: float = 0.0,
        sample_weight: np.ndarray | None = None,
        X_test=None,
        y_test=None,
    ):
        self.X = as_data(X)
        self.n_samples, self.n_features = self.X.shape
        self.y = as_labels(y, self.n_samples)
        self.lmbd = float(lmbd)
        self.loss = make_loss(loss)
        self.own = self.loss != HINGE
        self.bias = float(bias)
        self.sample_weight = as_sample_weight(sample_weight, self.n_samples)
        self.scale = 1.0 / (self.lmbd * self.n_samples)
        self.X_test = None if X_test is None else as_data(X_test)
        if self.X_test is not None:
            if self.X_test.shape[1] != self.n_features:
                raise ValueError(
                    f"X_test has {self.X_test.shape[1]} features; the training split has "
                    f"{self.n_features}"
                )
            if y_test is None:
                raise ValueError("X_test was given without y_test")
            self.y_test = as_labels(y_test, self.X_test.shape[0])
        no_norms = np.empty(0)
        self._rows = kernel_rows(self.X, self.y, no_norms, self.sample_weight, self.bias)
        self._test_rows = (
            None
            if self.X_test is None
            else kernel_rows(self.X_test, self.y_test, no_norms, None, self.bias)
        )
        self._w_alpha = np.empty(self.n_features + 1)
        self._terms = np.empty(self.n_samples)
        self._no_dual = np.zeros(1)

    def __call__(
        self, w: np.ndarray, dual_coef: np.ndarray | None = None, w_out: np.ndarray | None = None
    ) -> dict[str, float]:
        """The epoch's numbers for the current iterate ``w`` (full vector), its dual point
        ``dual_coef`` (None: no dual) and the returned iterate ``w_out`` (None: ``w``)."""
        w = as_full(w, self.n_features)
        if w_out is None or w_out is w or np.array_equal(w_out, w):
            with_out, w_out = False, w
        else:
            with_out, w_out = True, as_full(w_out, self.n_features)
        with_dual = dual_coef is not None
        alpha = as_dual(dual_coef, self.n_samples) if with_dual else self._no_dual
        hinge, smooth, errors, hinge_out, errors_out = train_pass(
            self._rows, w, w_out, with_out, alpha, self.loss, self.own, self.scale, with_dual,
            self._w_alpha,
        )  # fmt: skip
        n = self.n_samples
        reg = 0.5 * self.lmbd * float(np.dot(w, w))
        out = {
            "primal": reg + hinge / n,
            "primal_smooth": reg + smooth / n if self.own else np.nan,
            "error": errors / n,
            "dual": np.nan,
            "gap": np.nan,
        }
        if with_dual:
            out["dual"] = self._dual(alpha)
            out["gap"] = (out["primal_smooth"] if self.own else out["primal"]) - out["dual"]
        test_error = test_error_out = math.nan
        if self._test_rows is not None:
            wrong, wrong_out = _test_pass(self._test_rows, w, w_out, with_out)
            n_test = self.X_test.shape[0]
            test_error = float(wrong / n_test) if n_test else math.nan
            test_error_out = float(wrong_out / n_test) if n_test else math.nan
        out["test_error"] = test_error
        if with_out:
            reg_out = 0.5 * self.lmbd * float(np.dot(w_out, w_out))
            out["primal_output"] = reg_out + hinge_out / n
            out["error_output"] = errors_out / n
            out["test_error_output"] = test_error_out
        else:
            out["primal_output"] = out["primal"]
            out["error_output"] = out["error"]
            out["test_error_output"] = test_error
        return out

    def _dual(self, alpha: np.ndarray) -> float:
        """D(α) from α and w(α) left in the scratch by the training pass (the arithmetic of
        :func:`sdca_pegasos.solvers.core.objectives.dual`: box check, clip, terms, NumPy mean and
        dot)."""
        loss, c = self.loss, self.sample_weight
        lo, hi, over, box_max = _dual_terms(alpha, self.y, loss, c, self._terms)
        if lo < -FEASIBILITY_SLACK or over > FEASIBILITY_SLACK * max(1.0, box_max):
            raise ValueError(
                f"dual point is infeasible: y*alpha spans [{lo}, {hi}], outside "
                f"its box [0, c_i * {loss.upper:g}] (by {max(-lo, over):.3g})"
            )
        w_alpha = self._w_alpha
        return float(np.mean(self._terms) - 0.5 * self.lmbd * np.dot(w_alpha, w_alpha))


# ------------------------------------------------------------------------------ kernels
# The training pass is the one of solvers.objectives.monitor (solvers._passes.train_pass);
# the test pass computes its margins as solvers.objectives.margins does (row_margin, the
# same FASTMATH flags): changing either side changes the reports' bits, and the tests say so.


@njit(cache=True, fastmath=FASTMATH)
def _test_pass(rows, w, w_out, with_out):
    """Misclassified test rows of ``w`` and (``with_out``) ``w_out``, one pass over them.

    rows : DenseRows or CSRRows (the test split, d features) ; w, w_out : (d + 1,) float64.
    """
    d = w.shape[0] - 1
    y = rows.y
    wb = rows.bias * w[d]
    wb_out = rows.bias * w_out[d]
    wrong = wrong_out = 0
    for i in range(n_rows(rows)):
        if misclassified(row_margin(rows, i, w, wb), y[i]):
            wrong += 1
        if with_out and misclassified(row_margin(rows, i, w_out, wb_out), y[i]):
            wrong_out += 1
    return wrong, wrong_out


@njit(cache=True)  # no fastmath: contracting a - κa²/2 into an FMA would change its bits
def _dual_terms(dual_coef, y, loss, weights, terms):
    """terms[i] = a_i - κ a_i²/(2c_i) of a_i = y_i α_i clipped to [0, c_i U] (0 where
    c_i = 0), as ``Loss.dual_terms(np.clip(a, 0, box), c)`` computes it elementwise.

    Returns ``(min a, max a, max(a - box), max box)`` with 0 (1 for the box) as the initial
    value of each, for the check of :func:`sdca_pegasos.solvers.core.passes.feasible`.
    """
    lo = hi = over = 0.0
    box_max = 1.0
    half_kappa = 0.5 * loss.kappa
    for i in range(dual_coef.shape[0]):
        a = dual_coef[i] * y[i]
        c = weight_of(weights, i)
        box = loss.upper if weights is None else (c * loss.upper if c > 0.0 else 0.0)
        lo = min(lo, a)
        hi = max(hi, a)
        over = max(over, a - box)
        box_max = max(box_max, box)
        v = a if a > 0.0 else 0.0  # np.clip's max-then-min: -0.0 becomes +0.0
        v = v if v < box else box
        if weights is None:
            terms[i] = v - half_kappa * v * v
        else:
            terms[i] = v - half_kappa * v * v / c if c > 0.0 else 0.0
    return lo, hi, over, box_max
