r"""Shared mathematics of the L2-regularised linear SVM, used by every solver and experiment.

Problem
-------
With labels :math:`y_i \in \{-1, +1\}`, an optional bias feature of constant value
:math:`B \ge 0` (``bias``) appended to every sample, :math:`\tilde x_i = (x_i, B)`, and the full
weight vector :math:`\tilde w = (w, w_b) \in \mathbb{R}^{d+1}`:

.. math::

    P(\tilde w) = \frac{\lambda}{2}\|\tilde w\|^2
        + \frac{1}{n}\sum_{i=1}^n \phi(y_i \tilde x_i^\top \tilde w),

with :math:`\phi` a loss of :mod:`sdca_pegasos.solvers.core.losses`: the hinge :math:`\max(0, 1 -
z)`, the :math:`\gamma`-smoothed hinge of Shalev-Shwartz & Zhang (2013) or the squared hinge, each
a :math:`\phi(z) = \max_{0 \le a \le U} a(1 - z) - \kappa a^2/2`. The dual variables are stored
signed, :math:`\alpha_i = y_i a_i` with :math:`a_i \in [0, U]`, and

.. math::

    D(\alpha) = \frac{1}{n}\sum_i \left(a_i - \frac{\kappa}{2} a_i^2\right)
        - \frac{\lambda}{2}\|\tilde w(\alpha)\|^2, \qquad
    \tilde w(\alpha) = \frac{1}{\lambda n}\sum_i \alpha_i \tilde x_i

(seeds/000 §2.1, seeds/001 §2.1; :math:`\kappa = \gamma`, :math:`U = 1` for the smoothed
hinge). With sample weights :math:`c_i \ge 0` (``sample_weight``) the primal's loss term is
:math:`\frac1n\sum_i c_i\phi(\cdot)` (as ``SGDClassifier``; liblinear's ``C = 1/(λn)``
with the same weights), the box :math:`0 \le a_i \le c_i U` and the dual's term
:math:`a_i - \kappa a_i^2/(2c_i)` (:mod:`sdca_pegasos.solvers.core.losses`).

Every function here takes the loss as ``loss``: a :class:`sdca_pegasos.solvers.core.losses.Loss`,
or a number :math:`\gamma \ge 0` for the :math:`\gamma`-smoothed hinge (0, the default: the hinge).

Weak duality :math:`D(\alpha) \le P(w^*) \le P(\tilde w)` holds for every :math:`\tilde w`
and every feasible :math:`\alpha`, so :math:`P(\tilde w) - D(\alpha)` certifies the
suboptimality of :math:`\tilde w`.

Conventions
-----------
``w`` is the *full* weight vector of length ``n_features + 1`` whose last entry is the bias weight
:math:`w_b` (the intercept is :math:`B w_b`); a vector of length ``n_features`` is accepted and
means :math:`w_b = 0`. ``X`` may be float32 or float64, dense or a ``scipy.sparse`` matrix (CSR is
used as is; CSC/COO are converted to CSR once); every reduction here accumulates in float64 and
never copies or densifies ``X``. Each pass is one kernel written against the row-access layer of
:mod:`sdca_pegasos.solvers.core.rows` (the samples as ``rows``,
:func:`sdca_pegasos.solvers.core.rows.kernel_rows`), compiled for dense and for CSR data: a dense
margin is one chain of additions in the row's order, a CSR margin four chains over the stored
entries (so CSR and dense margins of the same matrix may differ in the last bits).

Modules
-------
The validation of the arrays and the passes shared with :mod:`sdca_pegasos.solvers.core.monitoring`
live in :mod:`sdca_pegasos.solvers.core.passes`; the compensated arithmetic (:func:`certificate`,
:func:`exact_margins`, :func:`exact_dual_weights`) in :mod:`sdca_pegasos.solvers.core.compensated`.
This module re-exports every public name."""

from __future__ import annotations

import numpy as np
from numba import njit

from sdca_pegasos.solvers.core.compensated import (
    CertificateSums,
    certificate,
    certificate_sums,
    certified_bounds,
    combine_certificate,
    exact_dual_weights,
    exact_margins,
    merge_sums,
)
from sdca_pegasos.solvers.core.losses import HINGE, Loss, make_loss
from sdca_pegasos.solvers.core.passes import (
    as_data,
    as_dual,
    as_full,
    as_labels,
    as_sample_weight,
    feasible,
    row_margin,
    row_sq_norms,
    train_pass,
)
from sdca_pegasos.solvers.core.rows import FASTMATH, kernel_rows, n_rows, row_axpy

__all__ = [
    "C_to_lmbd",
    "CertificateSums",
    "as_data",
    "as_labels",
    "as_sample_weight",
    "certificate",
    "certificate_sums",
    "certified_bounds",
    "combine_certificate",
    "dual",
    "dual_weights",
    "duality_gap",
    "error_rate",
    "exact_dual_weights",
    "exact_margins",
    "full_weights",
    "implied_dual",
    "lmbd_to_C",
    "loss_values",
    "margins",
    "merge_sums",
    "monitor",
    "primal",
    "row_sq_norms",
]


def lmbd_to_C(lmbd: float, n_samples: int) -> float:
    r"""Map the regulariser :math:`\lambda` to liblinear's :math:`C = 1 / (\lambda n)`.

    ``min_w λ/2‖w‖² + (1/n) Σ φ`` and ``min_w ½‖w‖² + C Σ φ`` have the same minimiser when
    ``C = 1/(λn)``; the objectives differ by the factor ``λ`` (VLFeat SDCA docs, seeds/004).
    """
    if not lmbd > 0 or not n_samples > 0:
        raise ValueError(f"need lmbd > 0 and n_samples > 0, got {lmbd=} and {n_samples=}")
    return 1.0 / (lmbd * n_samples)


def C_to_lmbd(C: float, n_samples: int) -> float:
    r"""Inverse of :func:`lmbd_to_C`: :math:`\lambda = 1 / (C n)`."""
    if not C > 0 or not n_samples > 0:
        raise ValueError(f"need C > 0 and n_samples > 0, got {C=} and {n_samples=}")
    return 1.0 / (C * n_samples)


def full_weights(coef: np.ndarray, intercept: float = 0.0, bias: float = 0.0) -> np.ndarray:
    """Build the full weight vector ``(coef, intercept / bias)`` used by this module.

    Parameters
    ----------
    coef : ndarray of shape (n_features,) or (1, n_features)
    intercept : float
        Must be 0 when ``bias`` is 0 (no bias feature, no intercept).
    bias : float
        The bias multiplier :math:`B`.
    """
    coef = np.asarray(coef, dtype=np.float64).ravel()
    intercept = float(np.asarray(intercept).ravel()[0]) if np.ndim(intercept) else float(intercept)
    if bias == 0.0 and intercept != 0.0:
        raise ValueError("a non-zero intercept needs a bias multiplier > 0")
    out = np.empty(coef.shape[0] + 1)
    out[:-1] = coef
    out[-1] = intercept / bias if bias != 0.0 else 0.0
    return out


#: ``rows.sq_norms`` of the passes here, which never read it.
_NO_NORMS = np.empty(0)


@njit(cache=True, fastmath=FASTMATH)
def _margins(rows, w, out):
    """out[i] = y_i (x_i · w[:d] + B w[d]) (:func:`sdca_pegasos.solvers.core.passes.row_margin`).

    rows : DenseRows or CSRRows (n samples, d features) ; w : (d + 1,) float64 ;
    out : (n,) float64.
    """
    wb = rows.bias * w[w.shape[0] - 1]
    for i in range(n_rows(rows)):
        out[i] = row_margin(rows, i, w, wb)


@njit(cache=True, fastmath=FASTMATH)
def _dual_weights(rows, dual_coef, scale, out):
    """out = scale · Σ_i dual_coef[i] · (x_i, B).

    rows : DenseRows or CSRRows (n samples, d features) ; dual_coef : (n,) float64 ;
    out : (d + 1,) float64, zeroed here.
    """
    d = out.shape[0] - 1
    out[:] = 0.0
    total = 0.0
    for i in range(n_rows(rows)):
        c = dual_coef[i]
        if c != 0.0:
            row_axpy(rows, i, c, out)
            total += c
    out[d] = total * rows.bias
    for k in range(d + 1):
        out[k] *= scale


def margins(X: np.ndarray, y: np.ndarray, w: np.ndarray, bias: float = 0.0) -> np.ndarray:
    r"""Signed margins :math:`z_i = y_i \tilde x_i^\top \tilde w`, shape (n_samples,), float64."""
    X = as_data(X)
    y = as_labels(y, X.shape[0])
    out = np.empty(X.shape[0])
    _margins(kernel_rows(X, y, _NO_NORMS, None, bias), as_full(w, X.shape[1]), out)
    return out


def loss_values(z: np.ndarray, loss: Loss | float = 0.0) -> np.ndarray:
    r"""Pointwise loss :math:`\phi(z)` (``loss``: a :class:`sdca_pegasos.solvers.core.losses.Loss`
    or the smoothing γ of the smoothed hinge, 0 the hinge)."""
    return make_loss(loss).values(z)


def implied_dual(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    loss: Loss | float = 0.0,
    bias: float = 0.0,
    sample_weight: np.ndarray | None = None,
) -> np.ndarray:
    r"""The dual point that a primal point implies, signed, shape (n_samples,):
    :math:`\tilde\alpha_i = y_i c_i a^*(z_i)` with :math:`a^* = -\phi'` at the margin :math:`z_i =
    y_i\tilde x_i^\top\tilde w` (:meth:`sdca_pegasos.solvers.core.losses.Loss.dual_targets`), the
    maximiser of the dual's term i given w. It is feasible, and :math:`D(\tilde\alpha(w^*)) = P^*`;
    for a smooth loss (κ > 0) it is Lipschitz in w, so a primal point near the optimum certifies
    itself through it while the α of a solver may still be far behind (CoCoA+'s primal runs ahead
    of its dual: docs/distributed.md). For the hinge it is :math:`U` or 0 by the margin's side of
    1, a feasible point but a poor one near the optimum."""
    X = as_data(X)
    y = as_labels(y, X.shape[0])
    a = make_loss(loss).dual_targets(margins(X, y, w, bias))
    if sample_weight is not None:
        a = a * as_sample_weight(sample_weight, X.shape[0])
    return y * a


def primal(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    lmbd: float,
    loss: Loss | float = 0.0,
    bias: float = 0.0,
    sample_weight: np.ndarray | None = None,
) -> float:
    r"""Primal objective :math:`P(\tilde w) = \frac\lambda2\|\tilde w\|^2 +
    \frac1n\sum_i c_i\phi(y_i\tilde x_i^\top\tilde w)` (the hinge by default)."""
    w = as_full(w, X.shape[1])
    z = margins(X, y, w, bias)
    c = as_sample_weight(sample_weight, z.shape[0])
    return float(0.5 * lmbd * np.dot(w, w) + make_loss(loss).values(z, c).mean())


def dual_weights(
    X: np.ndarray, dual_coef: np.ndarray, lmbd: float, bias: float = 0.0
) -> np.ndarray:
    r"""Primal point of a dual point, :math:`\tilde w(\alpha) = (\lambda n)^{-1}\sum_i
    \alpha_i \tilde x_i`, recomputed from scratch (length ``n_features + 1``)."""
    X = as_data(X)
    dual_coef = as_dual(dual_coef, X.shape[0])
    out = np.empty(X.shape[1] + 1)
    rows = kernel_rows(X, _NO_NORMS, _NO_NORMS, None, bias)
    _dual_weights(rows, dual_coef, 1.0 / (lmbd * X.shape[0]), out)
    return out


def dual(
    X: np.ndarray,
    y: np.ndarray,
    dual_coef: np.ndarray,
    lmbd: float,
    loss: Loss | float = 0.0,
    bias: float = 0.0,
    sample_weight: np.ndarray | None = None,
) -> float:
    r"""Dual objective :math:`D(\alpha)`, with :math:`\tilde w(\alpha)` recomputed from
    ``dual_coef`` (never taken from a solver's running iterate).

    Raises
    ------
    ValueError
        If some :math:`a_i = y_i\alpha_i` lies outside its box :math:`[0, c_i U]` (the dual
        is :math:`-\infty` there): that is a solver bug, not a rounding matter.
    """
    y = as_labels(y, X.shape[0])
    c = as_sample_weight(sample_weight, y.shape[0])
    w_alpha = dual_weights(X, dual_coef, lmbd, bias)
    return _dual_value(y, dual_coef, w_alpha, lmbd, make_loss(loss), c)


def _dual_value(y, dual_coef, w_alpha, lmbd, loss: Loss, sample_weight) -> float:
    """D(α) from α and w(α) (feasibility checked, see :func:`dual`)."""
    a = feasible(np.asarray(dual_coef, dtype=np.float64) * y, loss, sample_weight)
    terms = loss.dual_terms(a, sample_weight)
    return float(np.mean(terms) - 0.5 * lmbd * np.dot(w_alpha, w_alpha))


def monitor(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    lmbd: float,
    loss: Loss | float = 0.0,
    bias: float = 0.0,
    dual_coef: np.ndarray | None = None,
    sample_weight: np.ndarray | None = None,
) -> dict[str, float]:
    r"""Every per-epoch number of a run from ONE pass over X, without temporaries.

    Returns ``primal`` (hinge), ``primal_smooth`` (:math:`P` of ``loss`` when it is not the
    hinge — the smoothed or squared hinge — else NaN), ``error`` (training error of the
    rule ``+1 if score > 0``, unweighted) and, given ``dual_coef``, ``dual``
    (:math:`D(\alpha)` of ``loss`` with w(α) recomputed) and ``gap`` (of the problem with
    ``loss``). Equal to :func:`primal`, :func:`dual` and :func:`error_rate` up to summation
    order.
    """
    X = as_data(X)
    y = as_labels(y, X.shape[0])
    n = X.shape[0]
    loss = make_loss(loss)
    c = as_sample_weight(sample_weight, n)
    own = loss != HINGE
    w = as_full(w, X.shape[1])
    with_dual = dual_coef is not None
    alpha = as_dual(dual_coef, n) if with_dual else np.zeros(1)
    w_alpha = np.empty(X.shape[1] + 1)
    rows = kernel_rows(X, y, _NO_NORMS, c, bias)
    hinge, smooth, errors, _, _ = train_pass(
        rows, w, w, False, alpha, loss, own, 1.0 / (lmbd * n), with_dual, w_alpha
    )
    reg = 0.5 * lmbd * float(np.dot(w, w))
    out = {
        "primal": reg + hinge / n,
        "primal_smooth": reg + smooth / n if own else np.nan,
        "error": errors / n,
        "dual": np.nan,
        "gap": np.nan,
    }
    if with_dual:
        out["dual"] = _dual_value(y, alpha, w_alpha, lmbd, loss, c)
        out["gap"] = (out["primal_smooth"] if own else out["primal"]) - out["dual"]
    return out


def duality_gap(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    dual_coef: np.ndarray,
    lmbd: float,
    loss: Loss | float = 0.0,
    bias: float = 0.0,
    sample_weight: np.ndarray | None = None,
) -> tuple[float, float, float]:
    r"""Return ``(P(w), D(α), P(w) - D(α))`` for the problem with ``loss`` (one pass over X,
    see :func:`monitor`)."""
    m = monitor(X, y, w, lmbd, loss, bias, dual_coef, sample_weight)
    own = make_loss(loss) != HINGE
    return (m["primal_smooth"] if own else m["primal"]), m["dual"], m["gap"]


def error_rate(X: np.ndarray, y: np.ndarray, w: np.ndarray, bias: float = 0.0) -> float:
    """Misclassification rate of the rule ``+1 if score > 0 else -1`` (as ``predict``).

    A zero score predicts the negative class, so at ``w = 0`` the error is the share of +1.
    """
    y = as_labels(y, X.shape[0])
    z = margins(X, y, w, bias)
    return float(np.mean((z < 0.0) | ((z == 0.0) & (y > 0.0))))
