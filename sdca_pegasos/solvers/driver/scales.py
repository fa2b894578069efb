"""The λ of a fit and the checks that refuse data or λ whose iterates would overflow float64.

:func:`resolve_lmbd` turns ``lmbd`` (a number or ``"auto"``) into the fit's λ; :func:`check_lmbd`
refuses, with the smallest λ that passes, a λ too small for the scale of X (every estimator's
``fit`` calls it, and so does ``python -m sdca_pegasos.compare``); :func:`max_abs` is the max |X|
it bounds the row norms with, found once per fit; :func:`scaling_advice` is the advice to scale
that an uncertified fit's warning gives first when the columns' scales differ by orders of
magnitude. Each reads X as NumPy / SciPy data, or asks an :class:`OffHostMatrix` (X held on a
GPU) for the same statistic."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from sdca_pegasos.solvers.core.passes import row_sq_norms


class OffHostMatrix:
    """X whose entries the host does not hold (a GPU's device arrays:
    :class:`sdca_pegasos.solvers.gpu.data.DeviceMatrix`), as a fit's
    :class:`~sdca_pegasos.solvers.driver.problem.Problem` carries it.

    The driver reads its ``shape`` (n_samples, n_features), ``dtype`` and ``sparse`` (CSR or
    dense), never its entries: what this module and the estimator would compute from them, it
    asks the matrix for, each a reduction made where the entries are, whose result is a
    number or a d-vector."""

    shape: tuple[int, int]
    dtype: np.dtype
    sparse: bool

    def max_abs(self) -> float:
        """max |X| (0 when X stores nothing): :func:`max_abs`."""
        raise NotImplementedError

    def column_scales(self) -> np.ndarray:
        """max_i |x_ij| of every column, float64 of shape (n_features,): :func:`column_scales`."""
        raise NotImplementedError

    def max_row_sq_norm(self, bias: float) -> float:
        """max_i ‖x_i‖² + bias² (inf if it overflows): :func:`check_lmbd`'s exact bound."""
        raise NotImplementedError

    def layout_example(self):
        """A one-row host matrix of X's layout (dtype; CSR: its index dtypes), for the warm-up
        fit that compiles the kernels X's fit will call."""
        raise NotImplementedError


def is_sparse(X) -> bool:
    """Whether X is CSR data: a SciPy sparse matrix, or an :class:`OffHostMatrix` of CSR."""
    return sp.issparse(X) or (isinstance(X, OffHostMatrix) and X.sparse)


#: Largest ‖x̃‖²/λ (and 1/(λn)) a fit accepts. Every iterate is bounded by ~‖x̃‖/λ (w(α) of
#: SDCA/ASDCA, a sum of Pegasos steps 1/(λt)·x̃), so margins stay below ~ (1 + ln T)·‖x̃‖²/λ;
#: 1e300 leaves that factor and the sums over features and samples room below 1.8e308.
_SCALE_LIMIT = 1e300


def resolve_lmbd(lmbd, n_samples: int) -> float:
    r"""The λ of a fit: ``lmbd`` itself, or ``1/n_samples`` for ``"auto"``.

    ``"auto"`` is ``LinearSVC``'s default ``C = 1``: with :math:`C = 1/(\lambda n)` the
    objective :math:`\frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i c_i\phi_i` is
    :math:`\frac1n` times liblinear's :math:`\frac12\|\tilde w\|^2 + \sum_i c_i\phi_i`, the
    same minimiser. ``n_samples`` counts the rows of X, whatever their sample weights (a
    weight multiplies its sample's loss, as liblinear's per-sample C): so a weight of 0 is
    the same optimum as dropping the row and an integer weight the same as repeating it,
    exactly as with ``LinearSVC(C=1)``.
    """
    if isinstance(lmbd, str):
        if lmbd != "auto":
            raise ValueError(f"lmbd must be a number > 0 or 'auto', got {lmbd!r}")
        return 1.0 / n_samples
    return float(lmbd)


def check_lmbd(X, lmbd: float, *, bias: float = 0.0, sample_weight=None, big=None) -> None:
    """Refuse data or λ whose derived quantities overflow float64 (never a silent w = 0):
    a ValueError that names the smallest λ these data accept (rounded up: typed back, it
    passes), or says to scale X. Every estimator's ``fit`` calls it, and so does
    ``python -m sdca_pegasos.compare`` before it writes anything.

    With ``R² = max_i c_i ‖x̃_i‖²`` (c_i the sample weights, 1 without; x̃_i with the bias
    feature ``bias``), every solver's iterates are bounded by about ``R/λ`` and its margins
    by ``R²/λ`` (times a log factor), and SDCA/ASDCA scale by ``1/(λn)``: each must stay
    below ``_SCALE_LIMIT``. ``R²`` is bounded from ``big`` = max |X| (computed when None) in
    two passes without allocation; the exact row norms are computed only when that bound
    fails.
    """
    if not 0.0 < lmbd < np.inf:  # as the estimators' own parameter check
        raise ValueError(
            f"lmbd must be a positive finite number, got {lmbd!r}: the regularisation "
            "strength, e.g. 1/n_samples (or lmbd='auto' on an estimator)."
        )
    n = X.shape[0]
    big = max_abs(X) if big is None else big
    if not 1.0 / (lmbd * n) <= _SCALE_LIMIT:
        raise ValueError(
            f"lmbd={lmbd:g} is too small for float64: 1/(lmbd * n_samples) = "
            f"{1.0 / (lmbd * n):g} overflows. Use a larger "
            f"lmbd (at least {_rounded_up(1.0 / (_SCALE_LIMIT * n))} for n_samples={n})."
        )
    c_max = 1.0 if sample_weight is None else float(np.max(sample_weight))
    with np.errstate(over="ignore"):
        r2 = (np.float64(big) ** 2 * X.shape[1] + np.float64(bias) ** 2) * c_max
        if not r2 / lmbd <= _SCALE_LIMIT:  # the bound fails: the exact largest norm
            r2 = _max_row_sq_norm(X, bias) * c_max
    if not np.isfinite(r2):
        raise ValueError(
            f"X is too large for float64: a squared row norm ||x_i||^2 overflows "
            f"(max |X| = {big:.3g}, bias_multiplier = {bias:g}), so every step "
            f"would be 0 or inf. Scale the features first, e.g. "
            f"sklearn.preprocessing.StandardScaler or X / {max(big, 1.0):.0e}."
        )
    if not r2 / lmbd <= _SCALE_LIMIT:
        raise ValueError(
            f"lmbd={lmbd:g} is too small for the scale of X: max ||x_i||^2 / lmbd = "
            f"{r2 / lmbd:.3g} exceeds {_SCALE_LIMIT:g}, and the iterates (~||x||/lmbd) "
            f"and margins (~||x||^2/lmbd) would overflow float64. Use lmbd >= "
            f"{_rounded_up(r2 / _SCALE_LIMIT)} or scale the features down."
        )


#: Columns whose largest |x_j| differ by more than this factor make an uncertified fit's
#: ConvergenceWarning advise scaling before more epochs (:func:`scaling_advice`).
SCALE_SPREAD = 1e3


def column_scales(X) -> np.ndarray:
    """max_i |x_ij| of every column j, float64 of shape (n_features,): dense or CSR, one pass
    over X (the stored entries of a CSR matrix), no copy of it."""
    if isinstance(X, OffHostMatrix):
        return X.column_scales()
    if sp.issparse(X):
        scales = np.zeros(X.shape[1])
        np.maximum.at(scales, X.indices, np.abs(X.data))
        return scales
    with np.errstate(over="ignore"):
        return np.maximum(X.max(axis=0), -X.min(axis=0)).astype(np.float64)


def scaling_advice(X, feature_names=None) -> str:
    """The sentence an uncertified fit's warning starts its advice with when the columns'
    scales (their max |x_j|, all-zero columns left out) differ by more than
    :data:`SCALE_SPREAD`: the factor, the two columns (by name when X had names) and the fix
    (standardise, before raising ``max_epochs``); ``""`` otherwise. Computed only when the
    warning is issued (one pass over X)."""
    if X.shape[0] == 0 or X.shape[1] < 2:
        return ""
    scales = column_scales(X)
    used = np.flatnonzero(scales > 0.0)
    if used.size < 2:
        return ""
    hi = int(used[np.argmax(scales[used])])
    lo = int(used[np.argmin(scales[used])])
    with np.errstate(over="ignore"):
        factor = scales[hi] / scales[lo]
    if not factor > SCALE_SPREAD:
        return ""

    def column(j: int) -> str:
        return f"column {j}" if feature_names is None else f"column {j} ({feature_names[j]!r})"

    scaler = (
        "sklearn.preprocessing.MaxAbsScaler (it keeps sparse X's zeros)"
        if is_sparse(X)
        else "sklearn.preprocessing.StandardScaler"
    )
    return (
        f"The features' scales differ by a factor of {factor:.3g} (max |x| = "
        f"{scales[hi]:.3g} in {column(hi)}, {scales[lo]:.3g} in {column(lo)}): standardise "
        f"them, e.g. with {scaler}, before raising max_epochs"
    )


def max_abs(X) -> float:
    """max |X| (dense or CSR; 0 when X stores nothing). A C-contiguous float ndarray is read
    once (:func:`dense_max_abs`); X holding a NaN gives NaN."""
    if isinstance(X, OffHostMatrix):
        return X.max_abs()
    if dense_max_abs_applies(X):
        return dense_max_abs(X)
    with np.errstate(over="ignore"):
        return max(abs(float(X.max())), abs(float(X.min()))) if X.size else 0.0


#: The magnitude bits (all but the sign) of a float32 / float64, as unsigned integers.
_MAGNITUDE = {
    np.dtype(np.float32): (np.uint32, np.uint32(0x7FFFFFFF)),
    np.dtype(np.float64): (np.uint64, np.uint64(0x7FFFFFFFFFFFFFFF)),
}


def dense_max_abs_applies(X) -> bool:
    """Whether :func:`dense_max_abs` reads X: a C-contiguous float32/float64 ndarray."""
    return type(X) is np.ndarray and X.dtype in _MAGNITUDE and X.flags.c_contiguous


def dense_max_abs(X: np.ndarray) -> float:
    """max |X| of a C-contiguous float32/float64 ndarray in one pass, no temporary: +inf when
    X holds an infinity and NaN when it holds a NaN (so ``np.isfinite`` of it is whether every
    entry is finite), 0 when X is empty.

    IEEE 754 orders non-negative floats as their bit patterns read as unsigned integers,
    and |x| is x's bits without the sign bit; so max |X| is the float whose bits are the
    largest of those integers, exactly (no rounding), with the infinities above every finite
    value and the NaNs above them. An integer maximum vectorises with no fast-math flag, where
    ``np.isfinite(X).all()`` then ``X.max()`` and ``X.min()`` were three passes and a boolean
    temporary of X's size."""
    unsigned, mask = _MAGNITUDE[X.dtype]
    if X.size == 0:
        return 0.0
    top = _max_magnitude(X.reshape(-1).view(unsigned), mask)
    return float(np.array([top], dtype=unsigned).view(X.dtype)[0])


@njit(cache=True, nogil=True)
def _max_magnitude(bits, mask):
    """max over ``bits`` of ``bits & mask`` (:func:`dense_max_abs`)."""
    top = bits[0] & mask
    for i in range(1, bits.shape[0]):
        top = max(top, bits[i] & mask)
    return top


def _max_row_sq_norm(X, bias: float) -> float:
    """max_i ‖x_i‖² + bias² (:func:`check_lmbd`'s exact bound, when max |X| bounds it too
    loosely)."""
    if isinstance(X, OffHostMatrix):
        return X.max_row_sq_norm(bias)
    return float(row_sq_norms(X, bias).max())


def _rounded_up(bound: float) -> str:
    """``bound`` to two significant digits, rounded up: a smallest value suggested in a
    message, which the user can type back and meet (3.33e-302 is "3.4e-302", not "3.3e-302").
    A bound within 1e-12 (relative) of its two-digit value goes one step up: the check's own
    rounding can refuse the bound itself (1/(8e-303 * 125) > 1e300 in float64)."""
    bound *= 1.0 + 1e-12
    text = f"{bound:.1e}"
    if float(text) < bound:
        mantissa, exponent = text.split("e")
        text = f"{float(f'{float(mantissa) + 0.1:.1f}e{exponent}'):.1e}"
    return text
