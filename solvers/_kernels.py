"""Numba building blocks shared by the solver kernels: the compile flags, the samples as a
kernel reads them (:class:`DenseRows`, :class:`CSRRows`), optional arrays, prefetch, the
exact product (:func:`fma`, :func:`two_product`) and the four-row products of the dense
sweeps."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

#: Fast-math flags for the Numba kernels: reassociation lets LLVM vectorise reductions; no
#: ``nnan``/``ninf`` so that non-finite values are never assumed away.
FASTMATH = {"reassoc", "contract", "arcp", "nsz"}

_U1, _U2, _U3, _U4 = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)


class DenseRows(NamedTuple):
    """The training samples as a dense kernel reads them (one argument instead of five).

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features), float32 or float64, C-contiguous
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
    sq_norms : ndarray of shape (n_samples,) or (0,), float64
        ‖x̃_i‖² = ‖x_i‖² + B² where the solver needs them (filled by its timed set-up),
        else empty.
    weights : ndarray of shape (n_samples,), float64, or None
        Sample weights c_i ≥ 0; None means every c_i = 1 and compiles kernels in which the
        weight is the constant 1.0 (:func:`weight_of`), bit for bit the unweighted ones.
    bias : float
        The bias multiplier B (x̃_i = (x_i, B)).
    """

    X: np.ndarray
    y: np.ndarray
    sq_norms: np.ndarray
    weights: np.ndarray | None
    bias: float


class CSRRows(NamedTuple):
    """:class:`DenseRows` for a canonical CSR matrix: row i is ``data[indptr[i]:indptr[i+1]]``
    at columns ``cols[...]`` (float32/float64 data, int32/int64 indices)."""

    data: np.ndarray
    cols: np.ndarray
    indptr: np.ndarray
    y: np.ndarray
    sq_norms: np.ndarray
    weights: np.ndarray | None
    bias: float


def kernel_rows(X, y, sq_norms, weights, bias) -> DenseRows | CSRRows:
    """The :class:`DenseRows` or :class:`CSRRows` of X (CSR: canonical, not copied)."""
    if sp.issparse(X):
        return CSRRows(X.data, X.indices, X.indptr, y, sq_norms, weights, float(bias))
    return DenseRows(X, y, sq_norms, weights, float(bias))


def weight_of(weights, i):
    """``weights[i]``, or the constant 1.0 when ``weights`` is None (kernels only)."""


@overload(weight_of, inline="always")
def _weight_of(weights, i):
    if isinstance(weights, types.NoneType):
        return lambda weights, i: 1.0
    return lambda weights, i: weights[i]


def is_array(v) -> bool:
    """Whether an optional kernel array is present: a compile-time constant (kernels only)."""


@overload(is_array, inline="always")
def _is_array(v):
    if isinstance(v, types.NoneType):
        return lambda v: False
    return lambda v: True


def prefetch_optional(v, i):
    """:func:`_prefetch` of ``v[i]``, or nothing when the optional array ``v`` is None."""


@overload(prefetch_optional, inline="always")
def _prefetch_optional_impl(v, i):
    if isinstance(v, types.NoneType):
        return lambda v, i: None
    return lambda v, i: _prefetch(v, i)


def store(v, i, value):
    """``v[i] = value``, or nothing when the optional array ``v`` is None (kernels only)."""


@overload(store, inline="always")
def _store(v, i, value):
    if isinstance(v, types.NoneType):
        return lambda v, i, value: None

    def impl(v, i, value):
        v[i] = value

    return impl


@intrinsic
def _prefetch(typingctx, arr, idx):
    """``_prefetch(arr, i)``: ask the CPU to bring ``arr[i]``'s cache line in (LLVM's
    ``llvm.prefetch``, read, keep in every level); no load, no fault, no effect on results.

    For kernels that visit rows in a random order (CSR SDCA): the rows a few samples ahead
    and their entries of ``w`` are requested while the current sample is computed, so that
    their memory latency overlaps the work instead of adding to it.
    """
    if not (isinstance(arr, types.Array) and isinstance(idx, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        arr_t, idx_t = signature.args
        ary = context.make_array(arr_t)(context, builder, args[0])
        ptr = builder.gep(ary.data, [context.cast(builder, args[1], idx_t, types.intp)])
        i32 = ir.IntType(32)
        if getattr(ptr.type, "is_opaque", False):  # LLVM >= 15 (llvmlite >= 0.45)
            arg, name = ptr, "llvm.prefetch.p0"
        else:  # typed pointers (older llvmlite)
            arg = builder.bitcast(ptr, ir.IntType(8).as_pointer())
            name = "llvm.prefetch.p0i8"
        fnty = ir.FunctionType(ir.VoidType(), [arg.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        builder.call(fn, [arg, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


@intrinsic
def fma(typingctx, a, b, c):
    """a·b + c with one rounding (LLVM's ``llvm.fma``: the FMA instruction where the CPU has
    one, a correctly rounded libm call otherwise). float64 only."""
    if not all(t == types.float64 for t in (a, b, c)):
        return None

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return types.float64(types.float64, types.float64, types.float64), codegen


_U8 = np.uint64(8)

#: CSR sweeps (SDCA's and the exact engine's) prefetch the row this many samples ahead:
#: the rows come in a random order, so each would wait for memory. Measured on a 50,000 ×
#: 200,000 matrix with 40 nonzeros per row (``make bench``): 8 is near the best, 4–32
#: within 10 %.
ROW_AHEAD = 8


@njit(cache=True, inline="always")
def prefetch_csr_row(data, cols, indptr, r):
    """Prefetch CSR row ``r``'s stored entries: one request per 8 entries (a 64-byte line
    of float64 data, half a line of int32 column indices). No effect on any result."""
    a, b = np.uint64(indptr[r]), np.uint64(indptr[r + 1])
    while a < b:
        _prefetch(data, a)
        _prefetch(cols, a)
        a += _U8


@njit(cache=True, inline="always")  # no fastmath: the error term must survive
def two_product(a, b):
    """``(p, e)`` with ``p = fl(a·b)`` and ``a·b = p + e`` exactly (barring under/overflow)."""
    p = a * b
    return p, fma(a, b, -p)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _csr_dot(data, cols, start, end, v):
    """Σ_{p in [start, end)} data[p]·v[cols[p]] in float64, with four partial sums (four
    independent chains of additions instead of one). ``start``, ``end``: uint64, as every
    index here, so that no access pays Numba's negative-index wraparound."""
    s0 = s1 = s2 = s3 = 0.0
    p = start
    while p + _U4 <= end:
        s0 += np.float64(data[p]) * v[np.uint64(cols[p])]
        s1 += np.float64(data[p + _U1]) * v[np.uint64(cols[p + _U1])]
        s2 += np.float64(data[p + _U2]) * v[np.uint64(cols[p + _U2])]
        s3 += np.float64(data[p + _U3]) * v[np.uint64(cols[p + _U3])]
        p += _U4
    while p < end:
        s0 += np.float64(data[p]) * v[np.uint64(cols[p])]
        p += _U1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, fastmath=FASTMATH)
def _gram4(r0, r1, r2, r3, v):
    """One pass over four rows: their scores against ``v`` and their six pairwise products.

    Returns ``(g0, g1, g2, g3, h10, h20, h21, h30, h31, h32)`` with ``g_b = r_b · v[:d]`` and
    ``h_bc = r_b · r_c``. A sequential solver that updates ``v`` by multiples of these rows
    gets each later row's score exactly from them (x_b·v_after = g_b + Σ_c coef_c·h_bc), so
    four consecutive samples cost one read of their rows: four memory streams instead of
    one. Rows may be float32 or float64; every product is taken in float64.
    """
    g0 = g1 = g2 = g3 = 0.0
    h10 = h20 = h21 = h30 = h31 = h32 = 0.0
    for k in range(r0.shape[0]):
        # float64 before any product: float32 * float32 would round to float32
        x0, x1 = np.float64(r0[k]), np.float64(r1[k])
        x2, x3, vk = np.float64(r2[k]), np.float64(r3[k]), v[k]
        g0 += x0 * vk
        g1 += x1 * vk
        g2 += x2 * vk
        g3 += x3 * vk
        h10 += x1 * x0
        h20 += x2 * x0
        h21 += x2 * x1
        h30 += x3 * x0
        h31 += x3 * x1
        h32 += x3 * x2
    return g0, g1, g2, g3, h10, h20, h21, h30, h31, h32


@njit(cache=True, fastmath=FASTMATH)
def _update_gram4(p0, p1, p2, p3, c0, c1, c2, c3, v, r0, r1, r2, r3):
    """``v[:d] += c0 p0 + c1 p1 + c2 p2 + c3 p3`` and, in the same pass, :func:`_gram4` of
    the next four rows ``r0..r3`` against the updated ``v``.

    A sequential solver updates ``v`` by a block of rows and then needs the next block's
    scores against the new ``v``: doing both in one loop over k reads ``v`` once instead of
    three times, and keeps the next rows' memory streams in flight while the previous rows
    (just read, so in L2) are applied. Each ``v[k]`` is final before it is multiplied, so
    the results are exactly those of the update followed by :func:`_gram4` (up to the
    summation order of the reductions). Rows may be float32 or float64; products in float64.
    Returns ``(g0, g1, g2, g3, h10, h20, h21, h30, h31, h32)`` as :func:`_gram4`.
    """
    g0 = g1 = g2 = g3 = 0.0
    h10 = h20 = h21 = h30 = h31 = h32 = 0.0
    for k in range(r0.shape[0]):
        vk = v[k] + (
            c0 * np.float64(p0[k])
            + c1 * np.float64(p1[k])
            + c2 * np.float64(p2[k])
            + c3 * np.float64(p3[k])
        )
        v[k] = vk
        x0, x1 = np.float64(r0[k]), np.float64(r1[k])
        x2, x3 = np.float64(r2[k]), np.float64(r3[k])
        g0 += x0 * vk
        g1 += x1 * vk
        g2 += x2 * vk
        g3 += x3 * vk
        h10 += x1 * x0
        h20 += x2 * x0
        h21 += x2 * x1
        h30 += x3 * x0
        h31 += x3 * x1
        h32 += x3 * x2
    return g0, g1, g2, g3, h10, h20, h21, h30, h31, h32
