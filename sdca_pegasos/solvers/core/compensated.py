r"""Compensated arithmetic of the objectives: the certificate of a pair (w, α) and the exact
margins and dual weights (re-exported by :mod:`sdca_pegasos.solvers.core.objectives`, which
documents the problem).

Every sum here is a compensated Dot2 sum in float64 (Ogita, Rump & Oishi 2005: exact products by
:func:`sdca_pegasos.solvers.core.rows.two_product`, Knuth's TwoSum for the additions), so each
result is exact to a few roundings of its value, whatever the cancellation. The kernels are
compiled without fastmath (reassociation would optimise the compensation away) and read the samples
through :func:`sdca_pegasos.solvers.core.rows.row_nnz` and
:func:`sdca_pegasos.solvers.core.rows.row_entry`, in the row's order (a dense row's d entries, a
CSR row's stored ones), one source for both storages."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.core.losses import Loss, make_loss
from sdca_pegasos.solvers.core.passes import (
    as_data,
    as_dual,
    as_full,
    as_labels,
    as_sample_weight,
    feasible,
)
from sdca_pegasos.solvers.core.rows import (
    kernel_rows,
    n_rows,
    row_entry,
    row_nnz,
    two_product,
    weight_of,
)

__all__ = [
    "CertificateSums",
    "certificate",
    "certificate_sums",
    "certified_bounds",
    "combine_certificate",
    "exact_dual_weights",
    "exact_margins",
]

#: ``rows.sq_norms`` of the kernels here, which never read it.
_NO_NORMS = np.empty(0)


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
def _certificate(rows, w, a, loss, w_alpha, comp, z, mag, col):
    """Compensated fused pass: (Σ c_i φ(z_i), Σ (a_i - κ a_i²/(2c_i))) and Σ α_i x̃_i, each
    as an unevaluated pair (sum, compensation), with the magnitudes of the allowance.

    rows : DenseRows or CSRRows (n samples, d features; weights None: every c_i = 1) ;
    w : (d + 1,) ; a : (n,) = y·α ; out: w_alpha, comp (d + 1,) the pair of Σ α_i x̃_i
    (unscaled), z (n,) the margins, mag (n,) m_i = Σ_k |x_ik w_k| + |B w_b|, col (d + 1,)
    Σ_i a_i |x̃_ik|. Returns ``(loss sum, its compensation, dual sum, its compensation)``.
    Every sum is a compensated Dot2 sum in float64 (exact products, TwoSum additions), the
    margins included, so each pair is exact to a few roundings of its value; the
    magnitudes are plain sums (they only size the allowance). The pairs are left
    unevaluated so that the sums of several blocks of rows combine without a rounding of
    their own (:func:`combine_certificate`).
    """
    d = w.shape[0] - 1
    y, bias = rows.y, rows.bias
    w_alpha[:] = 0.0
    comp[:] = 0.0
    col[:] = 0.0
    total = total_c = dual = dual_c = 0.0
    wb, wb_err = two_product(bias, w[d])
    for i in range(n_rows(rows)):
        s = wb
        c = wb_err
        m = abs(wb)
        for p in range(row_nnz(rows, i)):
            k, x = row_entry(rows, i, p)
            s, c = _dot2(s, c, x, w[k])
            m += abs(x * w[k])
        z[i] = y[i] * (s + c)
        mag[i] = m
        ci = weight_of(rows.weights, i)
        if z[i] < 1.0:
            total, total_c = _two_sum(total, total_c, ci * losses.value(loss, z[i]))
        ai = a[i]
        if ai != 0.0:
            dual, dual_c = _two_sum(dual, dual_c, losses.dual_term(loss, ai, ci))
            alpha = y[i] * ai
            for p in range(row_nnz(rows, i)):
                k, x = row_entry(rows, i, p)
                w_alpha[k], comp[k] = _dot2(w_alpha[k], comp[k], alpha, x)
                col[k] += ai * abs(x)
            w_alpha[d], comp[d] = _dot2(w_alpha[d], comp[d], alpha, bias)
            col[d] += ai * abs(bias)
    return total, total_c, dual, dual_c


@njit(cache=True)  # no fastmath: the compensation must survive
def _exact_dual_weights(rows, dual_coef, scale, out, comp):
    """out = scale·Σ_i dual_coef[i]·x̃_i with Dot2 sums (``rows``: n samples, d features;
    dual_coef : (n,) ; out, comp : (d + 1,) float64, out filled, comp scratch)."""
    d = out.shape[0] - 1
    bias = rows.bias
    out[:] = 0.0
    comp[:] = 0.0
    for i in range(n_rows(rows)):
        c = dual_coef[i]
        if c != 0.0:
            for p in range(row_nnz(rows, i)):
                k, x = row_entry(rows, i, p)
                out[k], comp[k] = _dot2(out[k], comp[k], c, x)
            out[d], comp[d] = _dot2(out[d], comp[d], c, bias)
    for k in range(d + 1):
        out[k] = (out[k] + comp[k]) * scale


@njit(cache=True)  # no fastmath: the compensation must survive
def _exact_margins(rows, w, out):
    """out[i] = y_i (x_i·w[:d] + B w[d]) with a Dot2 sum started at the exact B·w_b
    (``rows``: n samples, d features; w : (d + 1,) ; out : (n,) float64)."""
    d = w.shape[0] - 1
    y, bias = rows.y, rows.bias
    for i in range(n_rows(rows)):
        s, c = two_product(bias, w[d])
        for p in range(row_nnz(rows, i)):
            k, x = row_entry(rows, i, p)
            s, c = _dot2(s, c, x, w[k])
        out[i] = y[i] * (s + c)


def exact_dual_weights(
    X: np.ndarray, dual_coef: np.ndarray, lmbd: float, bias: float = 0.0
) -> np.ndarray:
    r""":func:`sdca_pegasos.solvers.core.objectives.dual_weights` with compensated (Dot2) sums:
    exact to a few roundings.

    Where thousands of :math:`\alpha_i x_i` of both signs cancel (raw crops at λ = 1/n),
    a plain float64 sum errs by ~1e-11 per coordinate, which alone costs ~1e-10 of
    relative gap: the exact-optimum engine returns this one.
    """
    X = as_data(X)
    dual_coef = as_dual(dual_coef, X.shape[0])
    out = np.empty(X.shape[1] + 1)
    rows = kernel_rows(X, np.empty(0), _NO_NORMS, None, bias)
    _exact_dual_weights(rows, dual_coef, 1.0 / (lmbd * X.shape[0]), out, np.empty_like(out))
    return out


def exact_margins(X: np.ndarray, y: np.ndarray, w: np.ndarray, bias: float = 0.0) -> np.ndarray:
    """:func:`sdca_pegasos.solvers.core.objectives.margins` with compensated (Dot2) dot products:
    exact to a few roundings."""
    X = as_data(X)
    y = as_labels(y, X.shape[0])
    out = np.empty(X.shape[0])
    _exact_margins(kernel_rows(X, y, _NO_NORMS, None, bias), as_full(w, X.shape[1]), out)
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


class CertificateSums(NamedTuple):
    r"""The additive parts of :func:`certificate` over one block of rows (any split of the
    samples into blocks gives parts that :func:`combine_certificate` adds exactly).

    Attributes
    ----------
    n_samples : int
        Rows of the block.
    loss_sum, dual_sum : ndarray of shape (2,)
        :math:`\sum_i c_i\phi(z_i)` and :math:`\sum_i (a_i - \kappa a_i^2/(2c_i))` as an
        unevaluated pair (sum, compensation).
    w_alpha : ndarray of shape (2, n_features + 1)
        :math:`\sum_i \alpha_i \tilde x_i` (not yet divided by λn), as a pair.
    col : ndarray of shape (n_features + 1,)
        :math:`\sum_i a_i |\tilde x_{ik}|` (sizes the allowance).
    err_loss, abs_dual : float
        The block's share of the rounding allowance: the bound on the error of its loss
        terms, and :math:`\sum_i (|a_i| + |a_i - \kappa a_i^2/(2c_i)|)`.
    """

    n_samples: int
    loss_sum: np.ndarray
    dual_sum: np.ndarray
    w_alpha: np.ndarray
    col: np.ndarray
    err_loss: float
    abs_dual: float


def certificate_sums(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    dual_coef: np.ndarray,
    loss: Loss | float = 0.0,
    bias: float = 0.0,
    sample_weight: np.ndarray | None = None,
) -> CertificateSums:
    """One fused compensated pass over a block of rows: its :class:`CertificateSums` at
    the pair (w, α) (w the full vector of the whole problem, α the block's dual variables).

    :func:`certificate` is :func:`combine_certificate` of one block, the whole X; a distributed fit
    (:mod:`sdca_pegasos.solvers.cluster.estimator`) computes the parts where the blocks live and
    combines them on the driver."""
    X = as_data(X)
    n = X.shape[0]
    y = as_labels(y, n)
    w = as_full(w, X.shape[1])
    loss = make_loss(loss)
    c = as_sample_weight(sample_weight, n)
    a = feasible(as_dual(dual_coef, n) * y, loss, c)
    w_alpha = np.empty((2, X.shape[1] + 1))
    z, mag, col = np.empty(n), np.empty(n), np.empty(X.shape[1] + 1)
    rows = kernel_rows(X, y, _NO_NORMS, c, bias)
    total, total_c, dual, dual_c = _certificate(
        rows, w, a, loss, w_alpha[0], w_alpha[1], z, mag, col
    )
    err_loss, abs_dual = _block_allowance(z, mag, a, loss, c, X.shape[1])
    return CertificateSums(
        n, np.array([total, total_c]), np.array([dual, dual_c]), w_alpha, col, err_loss, abs_dual
    )


def _merge_pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two unevaluated pairs (sum, compensation) as one, not evaluated: TwoSum of the sums,
    its error and both compensations carried in the compensation."""
    t = a[0] + b[0]
    z = t - a[0]
    err = (a[0] - (t - z)) + (b[0] - z)
    return np.stack([t, (a[1] + b[1]) + err])


def merge_sums(a: CertificateSums, b: CertificateSums) -> CertificateSums:
    """The :class:`CertificateSums` of two disjoint blocks of rows as those of their union, its
    pairs still unevaluated, so that a chain of merges on the workers (the row chunks of one block,
    :mod:`sdca_pegasos.solvers.cluster.estimator`) hands :func:`combine_certificate` one part per
    block instead of one per chunk, with the same compensated accuracy."""
    return CertificateSums(
        a.n_samples + b.n_samples,
        _merge_pairs(a.loss_sum, b.loss_sum),
        _merge_pairs(a.dual_sum, b.dual_sum),
        _merge_pairs(a.w_alpha, b.w_alpha),
        a.col + b.col,
        a.err_loss + b.err_loss,
        a.abs_dual + b.abs_dual,
    )


def _add_pairs(pairs) -> np.ndarray:
    """Σ of unevaluated pairs (sum, compensation) — scalars or vectors, elementwise — by
    TwoSum on the sums with the compensations carried, evaluated once at the end: one
    pair is evaluated exactly as ``sum + compensation``."""
    s = c = 0.0
    for hi, lo in pairs:
        t = s + hi
        z = t - s
        c = c + ((s - (t - z)) + (hi - z))
        s = t
        c = c + lo
    return s + c


def combine_certificate(
    parts, w: np.ndarray, lmbd: float, loss: Loss | float = 0.0
) -> tuple[dict[str, float], np.ndarray]:
    r"""Certified bounds of a pair (w, α) from the :class:`CertificateSums` of the blocks
    that partition the samples, and :math:`\tilde w(\alpha)`.

    The blocks' pairs are added by TwoSum with their compensations carried (no rounding
    of a block's sum before the others are added), so the result is the compensated sum
    over all samples up to a few roundings whatever the blocking; the allowance adds the
    blocks' shares to the terms of the whole problem. Returns the dict of
    :func:`certificate` and :math:`\tilde w(\alpha) = (\lambda n)^{-1}\sum_i\alpha_i
    \tilde x_i`, shape (n_features + 1,), n the total of the blocks' rows.
    """
    parts = list(parts)
    loss = make_loss(loss)
    n = sum(p.n_samples for p in parts)
    w = np.asarray(w, dtype=np.float64)
    loss_sum = float(_add_pairs(p.loss_sum for p in parts))
    dual_sum = float(_add_pairs(p.dual_sum for p in parts))
    w_alpha = _add_pairs(p.w_alpha for p in parts) * (1.0 / (lmbd * n))
    col = parts[0].col.copy()
    for p in parts[1:]:
        col += p.col
    sq_w, sq_alpha = _sq_norm(w), _sq_norm(w_alpha)
    primal_value = 0.5 * lmbd * sq_w + loss_sum / n
    dual_value = dual_sum / n - 0.5 * lmbd * sq_alpha
    err_primal, err_dual = _rounding_allowance(
        sum(p.err_loss for p in parts),
        sum(p.abs_dual for p in parts),
        col,
        n,
        lmbd,
        w_alpha,
        (loss_sum, dual_sum, sq_w, sq_alpha),
    )
    return certified_bounds(primal_value + err_primal, dual_value - err_dual), w_alpha


def certified_bounds(primal: float, dual: float) -> dict[str, float]:
    """The dict of :func:`certificate` for the certified bounds ``dual <= P* <= primal``:
    with the gap and the gap relative to the primal."""
    gap = primal - dual
    rel_gap = gap / abs(primal) if primal != 0.0 else (0.0 if gap == 0 else np.inf)
    return {"primal": primal, "dual": dual, "gap": gap, "rel_gap": rel_gap}


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
    solver: it reads only X, y, w and α. (:func:`combine_certificate` of the one block X.)
    """
    w = as_full(w, as_data(X).shape[1])
    parts = certificate_sums(X, y, w, dual_coef, loss, bias, sample_weight)
    return combine_certificate([parts], w, lmbd, loss)[0]


#: Unit roundoff of float64 (half the machine epsilon).
_UNIT_ROUNDOFF = 0.5 * np.finfo(np.float64).eps


def _block_allowance(z, mag, a, loss: Loss, c, d: int) -> tuple[float, float]:
    """A block's share of :func:`_rounding_allowance`: the bound on the error of its loss
    terms Σ c_i φ(z_i) (from each margin's error bound, see there), and Σ (|a_i| + |t_i|)
    over its dual terms t_i (d: the number of features)."""
    u = _UNIT_ROUNDOFF
    kappa, upper = loss.kappa, loss.upper
    curv = 0.5 * kappa * upper * upper if math.isfinite(upper) else 0.0
    gamma_d = (d + 2) * u
    delta = 2.0 * u * np.abs(z) + 2.0 * gamma_d * gamma_d * mag  # |error| of each z_i
    near = z - delta < 1.0  # samples whose loss can be nonzero
    err_loss = 0.0
    if near.any():
        zn, dn = z[near], delta[near]
        gap = losses.HINGE.values(zn) + dn  # bounds max(0, 1 - z) nearby
        slope = np.full(gap.shape, upper) if kappa == 0.0 else np.minimum(gap / kappa, upper)
        value = loss.values(zn - dn)  # φ is non-increasing: its largest value nearby
        err = slope * (dn + 2.0 * u * gap) + 4.0 * u * (value + curv)
        err_loss = float(np.sum(err if c is None else c[near] * err))
    terms = loss.dual_terms(a, c)
    return err_loss, float(np.sum(np.abs(a) + np.abs(terms)))


def _rounding_allowance(err_loss, abs_dual, col, n, lmbd, w_alpha, sums):
    r"""A-priori bounds on the rounding error left in :func:`certificate`'s primal and dual.

    The fused pass forms every product exactly and compensates every sum, so a margin
    :math:`z_i` errs by at most :math:`2u|z_i| + 2\gamma_d^2 m_i` (u the unit roundoff,
    :math:`\gamma_d = (d + 2)u`, :math:`m_i = \sum_k |x_{ik} w_k| + |B w_b|`, ``mag``),
    which moves :math:`\phi(z_i)` by at most its slope near :math:`z_i` times that
    (``err_loss``, summed over the blocks' :func:`_block_allowance`); a
    coordinate of :math:`\tilde w(\alpha)` errs by at most
    :math:`2u|\tilde w_k| + 2\gamma_n^2 M_k` (:math:`M_k = \frac{1}{\lambda n}\sum_i a_i
    |\tilde x_{ik}|`, ``col`` before the scaling); each elementwise operation adds a few
    roundings of its own value. Every term is counted with a factor 2 to spare, so that
    ``primal + err_primal >= P(w)`` and ``dual - err_dual <= D(α)`` hold as real numbers: at
    an optimum solved to the last bit the two values can otherwise cross by an ulp, and a
    certificate must never say ``dual > primal``. The magnitudes come from the fused pass
    itself (no extra pass over X); the allowance is a few ulps of P and D unless the data
    are scaled beyond ~1e150. Blocks combined by :func:`combine_certificate` keep the
    bounds: their pairs add without rounding and :math:`\gamma_n` is that of all n rows.
    """
    u = _UNIT_ROUNDOFF
    loss_sum, dual_sum, sq_w, sq_alpha = sums
    gamma_n = (n + 2) * u
    big_m = col / (lmbd * n)
    err_w = 2.0 * u * np.abs(w_alpha) + 2.0 * gamma_n * gamma_n * big_m
    err_dual_sum = 6.0 * u * abs_dual + 2.0 * u * abs(dual_sum)
    err_sq_alpha = float(np.dot(2.0 * np.abs(w_alpha) + err_w, err_w)) + 2.0 * u * sq_alpha
    primal = 0.5 * lmbd * sq_w + loss_sum / n
    dual = dual_sum / n - 0.5 * lmbd * sq_alpha
    err_primal = (
        (err_loss + 2.0 * u * loss_sum) / n + 2.0 * u * lmbd * sq_w + 2.0 * u * abs(primal)
    )
    err_dual = err_dual_sum / n + 0.5 * lmbd * err_sq_alpha + 2.0 * u * lmbd * sq_alpha
    err_dual += 2.0 * u * abs(dual)
    return 2.0 * float(err_primal), 2.0 * float(err_dual)
