r"""Shared mathematics of the L2-regularised linear SVM, used by every solver and experiment.

Problem
-------
With labels :math:`y_i \in \{-1, +1\}`, an optional bias feature of constant value
:math:`B \ge 0` (``bias``) appended to every sample, :math:`\tilde x_i = (x_i, B)`, and the full
weight vector :math:`\tilde w = (w, w_b) \in \mathbb{R}^{d+1}`:

.. math::

    P(\tilde w) = \frac{\lambda}{2}\|\tilde w\|^2
        + \frac{1}{n}\sum_{i=1}^n \phi(y_i \tilde x_i^\top \tilde w),

with :math:`\phi` a loss of :mod:`solvers.losses`: the hinge :math:`\max(0, 1 - z)`, the
:math:`\gamma`-smoothed hinge of Shalev-Shwartz & Zhang (2013) or the squared hinge, each a
:math:`\phi(z) = \max_{0 \le a \le U} a(1 - z) - \kappa a^2/2`. The dual variables are stored
signed, :math:`\alpha_i = y_i a_i` with :math:`a_i \in [0, U]`, and

.. math::

    D(\alpha) = \frac{1}{n}\sum_i \left(a_i - \frac{\kappa}{2} a_i^2\right)
        - \frac{\lambda}{2}\|\tilde w(\alpha)\|^2, \qquad
    \tilde w(\alpha) = \frac{1}{\lambda n}\sum_i \alpha_i \tilde x_i

(seeds/000 §2.1, seeds/001 §2.1; :math:`\kappa = \gamma`, :math:`U = 1` for the smoothed
hinge). With sample weights :math:`c_i \ge 0` (``sample_weight``) the primal's loss term is
:math:`\frac1n\sum_i c_i\phi(\cdot)` (as ``SGDClassifier``; liblinear's ``C = 1/(λn)``
with the same weights), the box :math:`0 \le a_i \le c_i U` and the dual's term
:math:`a_i - \kappa a_i^2/(2c_i)` (:mod:`solvers.losses`).

Every function here takes the loss as ``loss``: a :class:`solvers.losses.Loss`, or a number
:math:`\gamma \ge 0` for the :math:`\gamma`-smoothed hinge (0, the default: the hinge).

Weak duality :math:`D(\alpha) \le P(w^*) \le P(\tilde w)` holds for every :math:`\tilde w`
and every feasible :math:`\alpha`, so :math:`P(\tilde w) - D(\alpha)` certifies the
suboptimality of :math:`\tilde w`.

Conventions
-----------
``w`` is the *full* weight vector of length ``n_features + 1`` whose last entry is the bias
weight :math:`w_b` (the intercept is :math:`B w_b`); a vector of length ``n_features`` is
accepted and means :math:`w_b = 0`. ``X`` may be float32 or float64, dense or a
``scipy.sparse`` matrix (CSR is used as is; CSC/COO are converted to CSR once); every reduction
here accumulates in float64 and never copies or densifies ``X``. Each dense kernel has a CSR
twin over ``(data, indices, indptr)`` (suffix ``_csr``) with the same arithmetic per stored
entry, chosen by :func:`scipy.sparse.issparse`.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from numba import njit

from . import losses
from ._kernels import FASTMATH, two_product, weight_of
from .losses import HINGE, Loss, make_loss

__all__ = [
    "C_to_lmbd",
    "as_data",
    "as_labels",
    "as_sample_weight",
    "certificate",
    "dual",
    "dual_weights",
    "duality_gap",
    "error_rate",
    "exact_dual_weights",
    "exact_margins",
    "full_weights",
    "lmbd_to_C",
    "loss_values",
    "margins",
    "monitor",
    "primal",
    "row_sq_norms",
]

#: Dual feasibility slack tolerated before :func:`dual` declares ``a_i`` outside its box
#: (round-off of convex combinations in ASDCA).
_FEASIBILITY_SLACK = 1e-9


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


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _row_margin(xi, w, wb, yi):
    r""":math:`y_i (x_i \cdot w_{:d} + B w_b)` of one dense row (``wb`` = B·w_b): float64
    accumulation in the row's order, the arithmetic of every margin here."""
    s = 0.0
    for k in range(xi.shape[0]):
        s += xi[k] * w[k]
    return yi * (s + wb)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _row_margin_csr(data, indices, lo, hi, w, wb, yi):
    """CSR twin of :func:`_row_margin` over the stored entries ``[lo, hi)`` of one row."""
    s = 0.0
    for p in range(lo, hi):
        s += np.float64(data[p]) * w[indices[p]]
    return yi * (s + wb)


@njit(cache=True, inline="always")
def _misclassified(z, yi):
    """Whether the rule "+1 if score > 0" errs on a sample of margin ``z`` = y·score."""
    return z < 0.0 or (z == 0.0 and yi > 0.0)


@njit(cache=True, fastmath=FASTMATH)
def _margins(X, y, w, bias, out):
    """out[i] = y[i] * (X[i] · w[:d] + bias * w[d]), float64 accumulation.

    X : (n, d) float32/float64, y : (n,) float64, w : (d + 1,) float64, out : (n,) float64.
    """
    d = X.shape[1]
    wb = bias * w[d]
    for i in range(X.shape[0]):
        xi = X[i]
        out[i] = _row_margin(xi, w, wb, y[i])


@njit(cache=True, fastmath=FASTMATH)
def _dual_weights(X, dual_coef, bias, scale, out):
    """out = scale * Σ_i dual_coef[i] * (X[i], bias); out : (d + 1,) float64, zeroed here."""
    d = X.shape[1]
    out[:] = 0.0
    total = 0.0
    for i in range(X.shape[0]):
        c = dual_coef[i]
        if c != 0.0:
            xi = X[i]
            for k in range(d):
                out[k] += c * xi[k]
            total += c
    out[d] = total * bias
    for k in range(d + 1):
        out[k] *= scale


@njit(cache=True, fastmath=FASTMATH)
def _row_sq_norms(X, bias, out):
    """out[i] = ||X[i]||² + bias², float64 accumulation; out : (n,) float64."""
    b2 = bias * bias
    for i in range(X.shape[0]):
        xi = X[i]
        s = 0.0
        for k in range(X.shape[1]):
            v = np.float64(xi[k])  # float32 * float32 would round the product to float32
            s += v * v
        out[i] = s + b2


def row_sq_norms(X: np.ndarray, bias: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
    r"""Squared norms :math:`\|\tilde x_i\|^2 = \|x_i\|^2 + B^2`, shape (n_samples,).

    ``out``: a float64 array of shape (n_samples,) to fill (the solvers' timed set-up), else
    a new one.
    """
    X = as_data(X)
    out = np.empty(X.shape[0]) if out is None else out
    if sp.issparse(X):
        _row_sq_norms_csr(*csr_parts(X), float(bias), out)
    else:
        _row_sq_norms(X, float(bias), out)
    return out


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _add_sample(z, yi, c, loss, own, hinge, smooth, errors):
    """One sample of a training pass, at margin ``z`` and weight ``c``, added to the sums:
    ``hinge + c·max(0, 1 − z)``, ``smooth + c·φ(z)`` (when ``own``), ``errors + 1`` if
    misclassified."""
    u = 1.0 - z
    if u > 0.0:
        hinge += c * u
        if own:
            smooth += c * losses.value(loss, z)
    if _misclassified(z, yi):
        errors += 1
    return hinge, smooth, errors


@njit(cache=True, fastmath=FASTMATH)
def _train_pass(
    X, y, w, w_out, with_out, dual_coef, bias, loss, own, scale, with_dual, w_alpha, weights
):
    """One pass over the training rows for both iterates and w(α).

    X : (n, d) float32/float64 ; y : (n,) ±1 float64 ; w, w_out : (d + 1,) float64 ;
    dual_coef : (n,) float64 (read when ``with_dual``) ; w_alpha : (d + 1,) float64 out
    (scale·Σ α_i x̃_i, zeroed here) ; weights : (n,) float64 or None.
    Returns ``(hinge, smooth, errors, hinge_out, errors_out)``: Σ c_i max(0, 1 - z_i),
    Σ c_i φ(z_i) (when ``own``), the misclassified count of ``w``, and the first and third
    for ``w_out`` (when ``with_out``).
    """
    d = X.shape[1]
    wb = bias * w[d]
    wb_out = bias * w_out[d]
    if with_dual:
        w_alpha[:] = 0.0
    total = hinge = smooth = hinge_out = 0.0
    errors = errors_out = 0
    for i in range(X.shape[0]):
        xi = X[i]
        c = weight_of(weights, i)
        z = _row_margin(xi, w, wb, y[i])
        hinge, smooth, errors = _add_sample(z, y[i], c, loss, own, hinge, smooth, errors)
        if with_out:
            z = _row_margin(xi, w_out, wb_out, y[i])
            hinge_out, _, errors_out = _add_sample(
                z, y[i], c, loss, False, hinge_out, 0.0, errors_out
            )
        if with_dual:
            c = dual_coef[i]
            if c != 0.0:
                for k in range(d):
                    w_alpha[k] += c * xi[k]
                total += c
    if with_dual:
        w_alpha[d] = total * bias
        for k in range(d + 1):
            w_alpha[k] *= scale
    return hinge, smooth, errors, hinge_out, errors_out


@njit(cache=True, fastmath=FASTMATH)
def _train_pass_csr(
    data,
    indices,
    indptr,
    y,
    w,
    w_out,
    with_out,
    dual_coef,
    bias,
    loss,
    own,
    scale,
    with_dual,
    w_alpha,
    weights,
):
    """CSR twin of :func:`_train_pass`."""
    d = w.shape[0] - 1
    wb = bias * w[d]
    wb_out = bias * w_out[d]
    if with_dual:
        w_alpha[:] = 0.0
    total = hinge = smooth = hinge_out = 0.0
    errors = errors_out = 0
    for i in range(indptr.shape[0] - 1):
        lo, hi = indptr[i], indptr[i + 1]
        c = weight_of(weights, i)
        z = _row_margin_csr(data, indices, lo, hi, w, wb, y[i])
        hinge, smooth, errors = _add_sample(z, y[i], c, loss, own, hinge, smooth, errors)
        if with_out:
            z = _row_margin_csr(data, indices, lo, hi, w_out, wb_out, y[i])
            hinge_out, _, errors_out = _add_sample(
                z, y[i], c, loss, False, hinge_out, 0.0, errors_out
            )
        if with_dual:
            c = dual_coef[i]
            if c != 0.0:
                for p in range(lo, hi):
                    w_alpha[indices[p]] += c * np.float64(data[p])
                total += c
    if with_dual:
        w_alpha[d] = total * bias
        for k in range(d + 1):
            w_alpha[k] *= scale
    return hinge, smooth, errors, hinge_out, errors_out


def _as_full(w: np.ndarray, n_features: int) -> np.ndarray:
    w = np.ascontiguousarray(w, dtype=np.float64).ravel()
    if w.shape[0] == n_features:
        return np.append(w, 0.0)
    if w.shape[0] != n_features + 1:
        raise ValueError(
            f"w has {w.shape[0]} entries; expected n_features ({n_features}) or n_features + 1"
        )
    return w


def _as_dual(dual_coef: np.ndarray, n_samples: int) -> np.ndarray:
    dual_coef = np.ascontiguousarray(dual_coef, dtype=np.float64)
    if dual_coef.shape != (n_samples,):
        raise ValueError(f"dual_coef has shape {dual_coef.shape}; expected ({n_samples},)")
    return dual_coef


def as_labels(y: np.ndarray, n_samples: int) -> np.ndarray:
    """Labels as the kernels take them: a C-contiguous float64 array of ±1 of length
    ``n_samples`` (no copy when already so); any other value is an error."""
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    if y.shape[0] != n_samples:
        raise ValueError(f"y has {y.shape[0]} labels for {n_samples} samples")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("labels must be -1 or +1 here; map classes first")
    return y


def as_sample_weight(sample_weight, n_samples: int) -> np.ndarray | None:
    r"""Sample weights as the kernels take them: None (every weight 1), or a C-contiguous
    float64 array of ``n_samples`` finite values :math:`c_i \ge 0`, not all 0 (no copy when
    already so). The loss term is :math:`\frac1n\sum_i c_i\phi_i` (scikit-learn's
    ``SGDClassifier`` convention; liblinear's :math:`C\sum_i c_i\phi_i` with
    :math:`C = 1/(\lambda n)`)."""
    if sample_weight is None:
        return None
    c = np.ascontiguousarray(sample_weight, dtype=np.float64).ravel()
    if c.shape[0] != n_samples:
        raise ValueError(f"sample_weight has {c.shape[0]} entries for {n_samples} samples")
    if not np.all(np.isfinite(c)) or (c.shape[0] and c.min() < 0.0):
        raise ValueError("sample_weight must be finite and >= 0")
    if not c.max(initial=0.0) > 0.0:
        raise ValueError("sample_weight is 0 everywhere: at least one sample needs a weight > 0")
    return c


def as_data(X):
    """Dense: C-contiguous float32/float64. Sparse: CSR float32/float64 (no copy if already)."""
    if sp.issparse(X):
        if X.format != "csr":
            X = X.tocsr()
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        return X
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return np.ascontiguousarray(X)


def csr_parts(X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(data, indices, indptr)`` of a CSR matrix, as the ``_csr`` kernels take them."""
    return X.data, X.indices, X.indptr


def margins(X: np.ndarray, y: np.ndarray, w: np.ndarray, bias: float = 0.0) -> np.ndarray:
    r"""Signed margins :math:`z_i = y_i \tilde x_i^\top \tilde w`, shape (n_samples,), float64."""
    X = as_data(X)
    y = as_labels(y, X.shape[0])
    out = np.empty(X.shape[0])
    if sp.issparse(X):
        _margins_csr(*csr_parts(X), y, _as_full(w, X.shape[1]), float(bias), out)
    else:
        _margins(X, y, _as_full(w, X.shape[1]), float(bias), out)
    return out


def loss_values(z: np.ndarray, loss: Loss | float = 0.0) -> np.ndarray:
    r"""Pointwise loss :math:`\phi(z)` (``loss``: a :class:`solvers.losses.Loss` or the
    smoothing γ of the smoothed hinge, 0 the hinge)."""
    return make_loss(loss).values(z)


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
    w = _as_full(w, X.shape[1])
    z = margins(X, y, w, bias)
    c = as_sample_weight(sample_weight, z.shape[0])
    return float(0.5 * lmbd * np.dot(w, w) + make_loss(loss).values(z, c).mean())


def dual_weights(
    X: np.ndarray, dual_coef: np.ndarray, lmbd: float, bias: float = 0.0
) -> np.ndarray:
    r"""Primal point of a dual point, :math:`\tilde w(\alpha) = (\lambda n)^{-1}\sum_i
    \alpha_i \tilde x_i`, recomputed from scratch (length ``n_features + 1``)."""
    X = as_data(X)
    dual_coef = _as_dual(dual_coef, X.shape[0])
    out = np.empty(X.shape[1] + 1)
    kernel, data = (_dual_weights_csr, csr_parts(X)) if sp.issparse(X) else (_dual_weights, (X,))
    kernel(*data, dual_coef, float(bias), 1.0 / (lmbd * X.shape[0]), out)
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


def _feasible(a: np.ndarray, loss: Loss, sample_weight) -> np.ndarray:
    """``a`` clipped to its box, after checking it lies there up to rounding."""
    box = loss.box(sample_weight, a.shape[0])
    lo = a.min(initial=0.0)
    over = (a - box).max(initial=0.0)
    if lo < -_FEASIBILITY_SLACK or over > _FEASIBILITY_SLACK * max(1.0, box.max(initial=1.0)):
        raise ValueError(
            f"dual point is infeasible: y*alpha spans [{lo}, {a.max(initial=0.0)}], outside "
            f"its box [0, c_i * {loss.upper:g}] (by {max(-lo, over):.3g})"
        )
    return np.clip(a, 0.0, box)


def _dual_value(y, dual_coef, w_alpha, lmbd, loss: Loss, sample_weight) -> float:
    """D(α) from α and w(α) (feasibility checked, see :func:`dual`)."""
    a = _feasible(np.asarray(dual_coef, dtype=np.float64) * y, loss, sample_weight)
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
    w = _as_full(w, X.shape[1])
    with_dual = dual_coef is not None
    alpha = _as_dual(dual_coef, n) if with_dual else np.zeros(1)
    w_alpha = np.empty(X.shape[1] + 1)
    kernel, data = (_train_pass_csr, csr_parts(X)) if sp.issparse(X) else (_train_pass, (X,))
    hinge, smooth, errors, _, _ = kernel(
        *data, y, w, w, False, alpha, float(bias), loss, own, 1.0 / (lmbd * n), with_dual,
        w_alpha, c,
    )  # fmt: skip
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


@njit(cache=True)
def _two_sum(s, c, x):
    """s + x with its rounding error added to the compensation c (Knuth's TwoSum)."""
    t = s + x
    z = t - s
    return t, c + ((s - (t - z)) + (x - z))


@njit(cache=True)
def _dot2(s, c, x, v):
    """s + x·v with the rounding errors of both the product (:func:`two_product`) and the
    sum added to the compensation c (Ogita, Rump & Oishi's Dot2 step)."""
    p, e = two_product(x, v)
    s, c = _two_sum(s, c, p)
    return s, c + e


@njit(cache=True)  # no fastmath: reassociation would optimise the compensation away
def _certificate(X, y, w, a, bias, loss, scale, w_alpha, comp, weights, z, mag, col):
    """Compensated fused pass: (Σ c_i φ(z_i), Σ (a_i - κ a_i²/(2c_i))) and
    w_alpha = scale·Σ α_i x̃_i, with the magnitudes :func:`_rounding_allowance` reads.

    X : (n, d) ; y : (n,) ±1 ; w : (d + 1,) ; a : (n,) = y·α ; w_alpha, comp : (d + 1,)
    float64 scratch (w_alpha out) ; weights : (n,) or None (every c_i = 1) ; out: z (n,)
    the margins, mag (n,) m_i = Σ_k |x_ik w_k| + |B w_b|, col (d + 1,) Σ_i a_i |x̃_ik|.
    Every sum of the result is a compensated Dot2 sum in float64 (exact products, TwoSum
    additions), the margins included, so each is exact to a few roundings of its result;
    the magnitudes are plain sums (they only size the allowance).
    """
    d = X.shape[1]
    w_alpha[:] = 0.0
    comp[:] = 0.0
    col[:] = 0.0
    total = total_c = dual = dual_c = 0.0
    wb, wb_err = two_product(bias, w[d])
    for i in range(X.shape[0]):
        xi = X[i]
        s = wb
        c = wb_err
        m = abs(wb)
        for k in range(d):
            x = np.float64(xi[k])
            s, c = _dot2(s, c, x, w[k])
            m += abs(x * w[k])
        z[i] = y[i] * (s + c)
        mag[i] = m
        ci = weight_of(weights, i)
        if z[i] < 1.0:
            total, total_c = _two_sum(total, total_c, ci * losses.value(loss, z[i]))
        ai = a[i]
        if ai != 0.0:
            dual, dual_c = _two_sum(dual, dual_c, losses.dual_term(loss, ai, ci))
            alpha = y[i] * ai
            for k in range(d):
                x = np.float64(xi[k])
                w_alpha[k], comp[k] = _dot2(w_alpha[k], comp[k], alpha, x)
                col[k] += ai * abs(x)
            w_alpha[d], comp[d] = _dot2(w_alpha[d], comp[d], alpha, bias)
            col[d] += ai * abs(bias)
    for k in range(d + 1):
        w_alpha[k] = (w_alpha[k] + comp[k]) * scale
    return total + total_c, dual + dual_c


@njit(cache=True)  # no fastmath: the compensation must survive
def _exact_dual_weights(X, dual_coef, bias, scale, out, comp):
    """Compensated twin of :func:`_dual_weights` (``comp`` : (d + 1,) scratch)."""
    d = X.shape[1]
    out[:] = 0.0
    comp[:] = 0.0
    for i in range(X.shape[0]):
        c = dual_coef[i]
        if c != 0.0:
            xi = X[i]
            for k in range(d):
                out[k], comp[k] = _dot2(out[k], comp[k], c, np.float64(xi[k]))
            out[d], comp[d] = _dot2(out[d], comp[d], c, bias)
    for k in range(d + 1):
        out[k] = (out[k] + comp[k]) * scale


@njit(cache=True)
def _exact_dual_weights_csr(data, indices, indptr, dual_coef, bias, scale, out, comp):
    """CSR twin of :func:`_exact_dual_weights`."""
    d = out.shape[0] - 1
    out[:] = 0.0
    comp[:] = 0.0
    for i in range(indptr.shape[0] - 1):
        c = dual_coef[i]
        if c != 0.0:
            for p in range(indptr[i], indptr[i + 1]):
                k = indices[p]
                out[k], comp[k] = _dot2(out[k], comp[k], c, np.float64(data[p]))
            out[d], comp[d] = _dot2(out[d], comp[d], c, bias)
    for k in range(d + 1):
        out[k] = (out[k] + comp[k]) * scale


@njit(cache=True)
def _exact_margins(X, y, w, bias, out):
    """Compensated twin of :func:`_margins`."""
    d = X.shape[1]
    for i in range(X.shape[0]):
        xi = X[i]
        s, c = two_product(bias, w[d])
        for k in range(d):
            s, c = _dot2(s, c, np.float64(xi[k]), w[k])
        out[i] = y[i] * (s + c)


@njit(cache=True)
def _exact_margins_csr(data, indices, indptr, y, w, bias, out):
    """CSR twin of :func:`_exact_margins`."""
    d = w.shape[0] - 1
    for i in range(indptr.shape[0] - 1):
        s, c = two_product(bias, w[d])
        for p in range(indptr[i], indptr[i + 1]):
            s, c = _dot2(s, c, np.float64(data[p]), w[indices[p]])
        out[i] = y[i] * (s + c)


def exact_dual_weights(
    X: np.ndarray, dual_coef: np.ndarray, lmbd: float, bias: float = 0.0
) -> np.ndarray:
    r""":func:`dual_weights` with compensated (Dot2) sums: exact to a few roundings.

    Where thousands of :math:`\alpha_i x_i` of both signs cancel (raw crops at λ = 1/n),
    a plain float64 sum errs by ~1e-11 per coordinate, which alone costs ~1e-10 of
    relative gap: the exact-optimum engine returns this one.
    """
    X = as_data(X)
    dual_coef = _as_dual(dual_coef, X.shape[0])
    out = np.empty(X.shape[1] + 1)
    if sp.issparse(X):
        kernel, data = _exact_dual_weights_csr, csr_parts(X)
    else:
        kernel, data = _exact_dual_weights, (X,)
    kernel(*data, dual_coef, float(bias), 1.0 / (lmbd * X.shape[0]), out, np.empty_like(out))
    return out


def exact_margins(X: np.ndarray, y: np.ndarray, w: np.ndarray, bias: float = 0.0) -> np.ndarray:
    """:func:`margins` with compensated (Dot2) dot products: exact to a few roundings."""
    X = as_data(X)
    y = as_labels(y, X.shape[0])
    out = np.empty(X.shape[0])
    w = _as_full(w, X.shape[1])
    if sp.issparse(X):
        _exact_margins_csr(*csr_parts(X), y, w, float(bias), out)
    else:
        _exact_margins(X, y, w, float(bias), out)
    return out


def _sq_norm(v: np.ndarray) -> float:
    """‖v‖² to a few roundings of the result (a compensated Dot2 sum of exact squares)."""
    return _dot2_sq_norm(np.ascontiguousarray(v, dtype=np.float64))


@njit(cache=True)  # no fastmath: the compensation must survive
def _dot2_sq_norm(v):
    s = c = 0.0
    for k in range(v.shape[0]):
        s, c = _dot2(s, c, v[k], v[k])
    return s + c


def certificate(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    dual_coef: np.ndarray,
    lmbd: float,
    loss: Loss | float = 0.0,
    bias: float = 0.0,
    sample_weight: np.ndarray | None = None,
) -> dict[str, float]:
    r"""Certified bounds ``dual <= P* <= primal`` of a pair (w, α), rounding included.

    One fused pass over X computes :math:`P(\tilde w)` and :math:`D(\alpha)` (with
    :math:`\tilde w(\alpha)` rebuilt from α) with compensated sums throughout, so that a
    relative gap of 1e-10 is not an artefact of summation order (plain float64 sums over
    245,057 samples can err by ~1e-11 relative); then ``primal`` is raised and ``dual``
    lowered by a bound on the rounding left (:func:`_rounding_allowance`), so both are true
    bounds of the real numbers and ``gap >= 0`` even at an optimum solved to the last bit.
    Returns ``primal``, ``dual``, ``gap`` and ``rel_gap = gap / |primal|``. Independent of any
    solver: it reads only X, y, w and α.
    """
    X = as_data(X)
    n = X.shape[0]
    y = as_labels(y, n)
    w = _as_full(w, X.shape[1])
    loss = make_loss(loss)
    c = as_sample_weight(sample_weight, n)
    a = _feasible(_as_dual(dual_coef, n) * y, loss, c)
    w_alpha = np.empty(X.shape[1] + 1)
    z, mag, col = np.empty(n), np.empty(n), np.empty_like(w_alpha)
    kernel, data = (_certificate_csr, csr_parts(X)) if sp.issparse(X) else (_certificate, (X,))
    loss_sum, dual_sum = kernel(
        *data, y, w, a, float(bias), loss, 1.0 / (lmbd * n), w_alpha, np.empty_like(w_alpha),
        c, z, mag, col,
    )  # fmt: skip
    sq_w, sq_alpha = _sq_norm(w), _sq_norm(w_alpha)
    primal_value = 0.5 * lmbd * sq_w + loss_sum / n
    dual_value = dual_sum / n - 0.5 * lmbd * sq_alpha
    err_primal, err_dual = _rounding_allowance(
        z, mag, col, a, loss, c, lmbd, w_alpha, (loss_sum, dual_sum, sq_w, sq_alpha)
    )
    primal_value += err_primal
    dual_value -= err_dual
    gap = primal_value - dual_value
    return {
        "primal": primal_value,
        "dual": dual_value,
        "gap": gap,
        "rel_gap": gap / abs(primal_value)
        if primal_value != 0.0
        else (0.0 if gap == 0 else np.inf),
    }


#: Unit roundoff of float64 (half the machine epsilon).
_UNIT_ROUNDOFF = 0.5 * np.finfo(np.float64).eps


def _rounding_allowance(z, mag, col, a, loss: Loss, c, lmbd, w_alpha, sums):
    r"""A-priori bounds on the rounding error left in :func:`certificate`'s primal and dual.

    The fused pass forms every product exactly and compensates every sum, so a margin
    :math:`z_i` errs by at most :math:`2u|z_i| + 2\gamma_d^2 m_i` (u the unit roundoff,
    :math:`\gamma_d = (d + 2)u`, :math:`m_i = \sum_k |x_{ik} w_k| + |B w_b|`, ``mag``),
    which moves :math:`\phi(z_i)` by at most its slope near :math:`z_i` times that; a
    coordinate of :math:`\tilde w(\alpha)` errs by at most
    :math:`2u|\tilde w_k| + 2\gamma_n^2 M_k` (:math:`M_k = \frac{1}{\lambda n}\sum_i a_i
    |\tilde x_{ik}|`, ``col`` before the scaling); each elementwise operation adds a few
    roundings of its own value. Every term is counted with a factor 2 to spare, so that
    ``primal + err_primal >= P(w)`` and ``dual - err_dual <= D(α)`` hold as real numbers: at
    an optimum solved to the last bit the two values can otherwise cross by an ulp, and a
    certificate must never say ``dual > primal``. The magnitudes come from the fused pass
    itself (no extra pass over X); the allowance is a few ulps of P and D unless the data
    are scaled beyond ~1e150.
    """
    u = _UNIT_ROUNDOFF
    loss_sum, dual_sum, sq_w, sq_alpha = sums
    n, d = z.shape[0], w_alpha.shape[0] - 1
    kappa, upper = loss.kappa, loss.upper
    curv = 0.5 * kappa * upper * upper if math.isfinite(upper) else 0.0
    gamma_d, gamma_n = (d + 2) * u, (n + 2) * u
    delta = 2.0 * u * np.abs(z) + 2.0 * gamma_d * gamma_d * mag  # |error| of each z_i
    near = z - delta < 1.0  # samples whose loss can be nonzero
    err_loss = 0.0
    if near.any():
        zn, dn = z[near], delta[near]
        gap = np.maximum(0.0, 1.0 - zn) + dn  # bounds 1 - z nearby
        slope = np.full(gap.shape, upper) if kappa == 0.0 else np.minimum(gap / kappa, upper)
        value = loss.values(zn - dn)  # φ is non-increasing: its largest value nearby
        err = slope * (dn + 2.0 * u * gap) + 4.0 * u * (value + curv)
        err_loss = float(np.sum(err if c is None else c[near] * err))
    big_m = col / (lmbd * n)
    err_w = 2.0 * u * np.abs(w_alpha) + 2.0 * gamma_n * gamma_n * big_m
    terms = loss.dual_terms(a, c)
    err_dual_sum = 6.0 * u * float(np.sum(np.abs(a) + np.abs(terms))) + 2.0 * u * abs(dual_sum)
    err_sq_alpha = float(np.dot(2.0 * np.abs(w_alpha) + err_w, err_w)) + 2.0 * u * sq_alpha
    primal = 0.5 * lmbd * sq_w + loss_sum / n
    dual = dual_sum / n - 0.5 * lmbd * sq_alpha
    err_primal = (
        (err_loss + 2.0 * u * loss_sum) / n + 2.0 * u * lmbd * sq_w + 2.0 * u * abs(primal)
    )
    err_dual = err_dual_sum / n + 0.5 * lmbd * err_sq_alpha + 2.0 * u * lmbd * sq_alpha
    err_dual += 2.0 * u * abs(dual)
    return 2.0 * float(err_primal), 2.0 * float(err_dual)


def error_rate(X: np.ndarray, y: np.ndarray, w: np.ndarray, bias: float = 0.0) -> float:
    """Misclassification rate of the rule ``+1 if score > 0 else -1`` (as ``predict``).

    A zero score predicts the negative class, so at ``w = 0`` the error is the share of +1.
    """
    y = as_labels(y, X.shape[0])
    z = margins(X, y, w, bias)
    return float(np.mean((z < 0.0) | ((z == 0.0) & (y > 0.0))))


# ---------------------------------------------------------------------------- CSR kernels
# Twins of the dense kernels above over a CSR matrix (data, indices, indptr): row i is
# data[indptr[i]:indptr[i + 1]] at columns indices[...]; n_features is w's length minus one.
# Each costs O(nnz) (plus O(d) for an output vector), reads every stored entry once and
# accumulates in float64 like its dense twin.


@njit(cache=True, fastmath=FASTMATH)
def _margins_csr(data, indices, indptr, y, w, bias, out):
    """CSR twin of :func:`_margins`."""
    d = w.shape[0] - 1
    wb = bias * w[d]
    for i in range(indptr.shape[0] - 1):
        out[i] = _row_margin_csr(data, indices, indptr[i], indptr[i + 1], w, wb, y[i])


@njit(cache=True, fastmath=FASTMATH)
def _dual_weights_csr(data, indices, indptr, dual_coef, bias, scale, out):
    """CSR twin of :func:`_dual_weights`."""
    d = out.shape[0] - 1
    out[:] = 0.0
    total = 0.0
    for i in range(indptr.shape[0] - 1):
        c = dual_coef[i]
        if c != 0.0:
            for p in range(indptr[i], indptr[i + 1]):
                out[indices[p]] += c * np.float64(data[p])
            total += c
    out[d] = total * bias
    for k in range(d + 1):
        out[k] *= scale


@njit(cache=True, fastmath=FASTMATH)
def _row_sq_norms_csr(data, indices, indptr, bias, out):
    """CSR twin of :func:`_row_sq_norms`."""
    b2 = bias * bias
    for i in range(indptr.shape[0] - 1):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            v = np.float64(data[p])
            s += v * v
        out[i] = s + b2


@njit(cache=True)  # no fastmath: reassociation would optimise the compensation away
def _certificate_csr(
    data, indices, indptr, y, w, a, bias, loss, scale, w_alpha, comp, weights, z, mag, col
):
    """CSR twin of :func:`_certificate` (every sum Dot2-compensated)."""
    d = w.shape[0] - 1
    w_alpha[:] = 0.0
    comp[:] = 0.0
    col[:] = 0.0
    total = total_c = dual = dual_c = 0.0
    wb, wb_err = two_product(bias, w[d])
    for i in range(indptr.shape[0] - 1):
        lo, hi = indptr[i], indptr[i + 1]
        s = wb
        c = wb_err
        m = abs(wb)
        for p in range(lo, hi):
            x = np.float64(data[p])
            s, c = _dot2(s, c, x, w[indices[p]])
            m += abs(x * w[indices[p]])
        z[i] = y[i] * (s + c)
        mag[i] = m
        ci = weight_of(weights, i)
        if z[i] < 1.0:
            total, total_c = _two_sum(total, total_c, ci * losses.value(loss, z[i]))
        ai = a[i]
        if ai != 0.0:
            dual, dual_c = _two_sum(dual, dual_c, losses.dual_term(loss, ai, ci))
            alpha = y[i] * ai
            for p in range(lo, hi):
                k = indices[p]
                x = np.float64(data[p])
                w_alpha[k], comp[k] = _dot2(w_alpha[k], comp[k], alpha, x)
                col[k] += ai * abs(x)
            w_alpha[d], comp[d] = _dot2(w_alpha[d], comp[d], alpha, bias)
            col[d] += ai * abs(bias)
    for k in range(d + 1):
        w_alpha[k] = (w_alpha[k] + comp[k]) * scale
    return total + total_c, dual + dual_c
