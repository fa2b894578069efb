r"""The arrays as every objective takes them, and the passes over the samples that
:mod:`sdca_pegasos.solvers.core.objectives` and :mod:`sdca_pegasos.solvers.core.monitoring` share
(internal API: the names here are for those modules and
:mod:`sdca_pegasos.solvers.core.compensated`, not for users).

Validation (:func:`as_data`, :func:`as_labels`, :func:`as_sample_weight`, :func:`as_full`,
:func:`as_dual`, :func:`feasible`) casts and checks once at the boundary. The passes are written
once against the row-access layer of :mod:`sdca_pegasos.solvers.core.rows` and take the samples as
``rows`` (:func:`sdca_pegasos.solvers.core.rows.kernel_rows`): Numba compiles each for a dense and
a CSR ``rows``. A margin (:func:`row_margin`) is one float64 chain in the row's order for a dense
row, four chains over the stored entries for a CSR row
(:func:`sdca_pegasos.solvers.core.rows.row_dot`)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.rows import (
    FASTMATH,
    kernel_rows,
    n_rows,
    row_axpy,
    row_dot,
    row_sq_norm,
    weight_of,
)

__all__ = [
    "FEASIBILITY_SLACK",
    "as_data",
    "as_dual",
    "as_full",
    "as_labels",
    "as_sample_weight",
    "feasible",
    "misclassified",
    "row_margin",
    "row_sq_norms",
    "train_pass",
]

# Dual feasibility slack tolerated before :func:`sdca_pegasos.solvers.core.objectives.dual`
# declares ``a_i``
#: outside its box (round-off of convex combinations in ASDCA).
FEASIBILITY_SLACK = 1e-9


# ------------------------------------------------------------------------------ the arrays
def as_data(X):
    """Dense: C-contiguous float32/float64. Sparse: CSR float32/float64 (no copy if already;
    a CSR matrix is not canonicalised: a duplicated column counts as two entries in
    :func:`sdca_pegasos.solvers.core.objectives.row_sq_norms`, as it always did here)."""
    if sp.issparse(X):
        if X.format != "csr":
            X = X.tocsr()
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        return X
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return np.ascontiguousarray(X)


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


def as_full(w: np.ndarray, n_features: int) -> np.ndarray:
    """The full weight vector, shape (n_features + 1,) float64: ``w`` itself (C-contiguous
    float64, no copy when already so) or, for ``n_features`` entries, ``w`` with w_b = 0."""
    w = np.ascontiguousarray(w, dtype=np.float64).ravel()
    if w.shape[0] == n_features:
        return np.append(w, 0.0)
    if w.shape[0] != n_features + 1:
        raise ValueError(
            f"w has {w.shape[0]} entries; expected n_features ({n_features}) or n_features + 1"
        )
    return w


def as_dual(dual_coef: np.ndarray, n_samples: int) -> np.ndarray:
    """The signed dual point α, shape (n_samples,), C-contiguous float64."""
    dual_coef = np.ascontiguousarray(dual_coef, dtype=np.float64)
    if dual_coef.shape != (n_samples,):
        raise ValueError(f"dual_coef has shape {dual_coef.shape}; expected ({n_samples},)")
    return dual_coef


def feasible(a: np.ndarray, loss: Loss, sample_weight) -> np.ndarray:
    """``a`` (= y·α, shape (n_samples,)) clipped to its box [0, c_i U], after checking that it
    lies there up to :data:`FEASIBILITY_SLACK`."""
    box = loss.box(sample_weight, a.shape[0])
    lo = a.min(initial=0.0)
    over = (a - box).max(initial=0.0)
    if lo < -FEASIBILITY_SLACK or over > FEASIBILITY_SLACK * max(1.0, box.max(initial=1.0)):
        raise ValueError(  # the span is a's own (lo and over start at 0: the check's)
            f"dual point is infeasible: y*alpha spans [{a.min()}, {a.max()}], outside "
            f"its box [0, c_i * {loss.upper:g}] (by {max(-lo, over):.3g})"
        )
    return np.clip(a, 0.0, box)


# ------------------------------------------------------------------------------ the passes
@njit(cache=True, fastmath=FASTMATH)  # not inline="always": see below
def row_margin(rows, i, w, wb):
    r""":math:`y_i (x_i \cdot w_{:d} + B w_b)` of row ``i`` (``wb`` = B·w_b, ``w`` of shape (d +
    1,)): the dot product started at 0 (:func:`sdca_pegasos.solvers.core.rows.row_dot`), then the
    bias term, then the label: the arithmetic of every margin here.

    A function of its own, which LLVM inlines, rather than Numba's ``inline="always"``: a
    sweep that takes two margins per row (:func:`train_pass` of ``w`` and ``w_out``) would
    then hold two inlined copies of ``row_dot``, which Numba's SSA check reports as a
    ``NumbaIRAssumptionWarning`` at every compilation (an error under the tests' filter)."""
    return rows.y[i] * (row_dot(rows, i, w, 0.0) + wb)


@njit(cache=True, inline="always")
def misclassified(z, yi):
    """Whether the rule "+1 if score > 0" errs on a sample of margin ``z`` = y·score."""
    return z < 0.0 or (z == 0.0 and yi > 0.0)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _add_sample(z, yi, c, loss, own, hinge, smooth, errors):
    """One sample of a training pass, at margin ``z`` and weight ``c``, added to the sums:
    ``hinge + c·max(0, 1 − z)``, ``smooth + c·φ(z)`` (when ``own``), ``errors + 1`` if
    misclassified."""
    h = losses.hinge(z)
    if h > 0.0:
        hinge += c * h
        if own:
            smooth += c * losses.value(loss, z)
    if misclassified(z, yi):
        errors += 1
    return hinge, smooth, errors


@njit(cache=True, fastmath=FASTMATH)
def train_pass(rows, w, w_out, with_out, dual_coef, loss, own, scale, with_dual, w_alpha):
    """One pass over the training rows for both iterates and w(α).

    rows : DenseRows or CSRRows (n samples, d features; its sq_norms unused) ;
    w, w_out : (d + 1,) float64 ; dual_coef : (n,) float64 (read when ``with_dual``) ;
    w_alpha : (d + 1,) float64 out (scale·Σ α_i x̃_i, zeroed here; when ``with_dual``).
    Returns ``(hinge, smooth, errors, hinge_out, errors_out)``: Σ c_i max(0, 1 - z_i),
    Σ c_i φ(z_i) (when ``own``), the misclassified count of ``w``, and the first and third
    for ``w_out`` (when ``with_out``).
    """
    d = w.shape[0] - 1
    y, bias = rows.y, rows.bias
    wb = bias * w[d]
    wb_out = bias * w_out[d]
    if with_dual:
        w_alpha[:] = 0.0
    total = hinge = smooth = hinge_out = 0.0
    errors = errors_out = 0
    for i in range(n_rows(rows)):
        c = weight_of(rows.weights, i)
        z = row_margin(rows, i, w, wb)
        hinge, smooth, errors = _add_sample(z, y[i], c, loss, own, hinge, smooth, errors)
        if with_out:
            z = row_margin(rows, i, w_out, wb_out)
            hinge_out, _, errors_out = _add_sample(
                z, y[i], c, loss, False, hinge_out, 0.0, errors_out
            )
        if with_dual:
            c = dual_coef[i]
            if c != 0.0:
                row_axpy(rows, i, c, w_alpha)
                total += c
    if with_dual:
        w_alpha[d] = total * bias
        for k in range(d + 1):
            w_alpha[k] *= scale
    return hinge, smooth, errors, hinge_out, errors_out


#: An empty array: no labels or no norms given to :func:`kernel_rows`.
_NO_ARRAY = np.empty(0)


@njit(cache=True, fastmath=FASTMATH)
def _row_sq_norms(rows, out):
    """out[i] = ‖x_i‖² + B², float64 accumulation
    (:func:`sdca_pegasos.solvers.core.rows.row_sq_norm`).

    rows : DenseRows or CSRRows (n samples) ; out : (n,) float64.
    """
    b2 = rows.bias * rows.bias
    for i in range(n_rows(rows)):
        out[i] = row_sq_norm(rows, i) + b2


def row_sq_norms(X: np.ndarray, bias: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
    r"""Squared norms :math:`\|\tilde x_i\|^2 = \|x_i\|^2 + B^2`, shape (n_samples,).

    ``out``: a float64 array of shape (n_samples,) to fill (the solvers' timed set-up), else
    a new one.
    """
    X = as_data(X)
    out = np.empty(X.shape[0]) if out is None else out
    _row_sq_norms(kernel_rows(X, _NO_ARRAY, _NO_ARRAY, None, bias), out)
    return out
