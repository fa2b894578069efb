"""Numba building blocks shared by the solver kernels: the compile flags, the samples as a
kernel reads them (:class:`DenseRows`, :class:`CSRRows`) and the row-access layer over them,
optional arrays, prefetch, the exact product (:func:`fma`, :func:`two_product`) and the
four-row products of the dense sweeps.

Row-access layer
----------------
A sweep over samples is written once against ``rows`` (a :class:`DenseRows` or a
:class:`CSRRows`) and the functions :func:`n_rows`, :func:`row_dot`, :func:`row_dots`,
:func:`row_axpy`, :func:`row_sq_norm`, :func:`row_nnz`, :func:`row_entry` and
:func:`prefetch_row`. Each is a Numba ``overload`` inlined into its caller: Numba picks the
dense or the CSR body from the type of ``rows`` when it compiles the sweep, so the one source
compiles to two specialisations with no call or branch left per row (scikit-learn's
``SequentialDataset`` makes the same choice with a virtual call per row). The bodies keep the
arithmetic of the twins they replace: a dense row is summed in its order, one chain (LLVM
vectorises it under :data:`FASTMATH`); a CSR row in four chains (:func:`csr_dot`). The
bodies are compiled as functions with the kernels' flags and inlined by LLVM (see
``_LAYER_OPTIONS``).
"""

from __future__ import annotations

import inspect
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

#: Unsigned index steps: an index kept in uint64 pays no negative-index wraparound.
U1, _U2, _U3, _U4 = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)


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
    """:func:`prefetch` of ``v[i]``, or nothing when the optional array ``v`` is None."""


@overload(prefetch_optional, inline="always")
def _prefetch_optional_impl(v, i):
    if isinstance(v, types.NoneType):
        return lambda v, i: None
    return lambda v, i: prefetch(v, i)


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
def prefetch(typingctx, arr, idx):
    """``prefetch(arr, i)``: ask the CPU to bring ``arr[i]``'s cache line in (LLVM's
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
        prefetch(data, a)
        prefetch(cols, a)
        a += _U8


@njit(cache=True, inline="always")  # no fastmath: the error term must survive
def two_product(a, b):
    """``(p, e)`` with ``p = fl(a·b)`` and ``a·b = p + e`` exactly (barring under/overflow)."""
    p = a * b
    return p, fma(a, b, -p)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def csr_dot(data, cols, start, end, v):
    """Σ_{p in [start, end)} data[p]·v[cols[p]] in float64, with four partial sums (four
    independent chains of additions instead of one). ``start``, ``end``: uint64, as every
    index here, so that no access pays Numba's negative-index wraparound."""
    s0 = s1 = s2 = s3 = 0.0
    p = start
    while p + _U4 <= end:
        s0 += np.float64(data[p]) * v[np.uint64(cols[p])]
        s1 += np.float64(data[p + U1]) * v[np.uint64(cols[p + U1])]
        s2 += np.float64(data[p + _U2]) * v[np.uint64(cols[p + _U2])]
        s3 += np.float64(data[p + _U3]) * v[np.uint64(cols[p + _U3])]
        p += _U4
    while p < end:
        s0 += np.float64(data[p]) * v[np.uint64(cols[p])]
        p += U1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, fastmath=FASTMATH)
def dot4(r0, r1, r2, r3, v):
    """``(r0 · v[:d], r1 · v[:d], r2 · v[:d], r3 · v[:d])`` in float64, d = len(r0): four
    rows against one vector in one pass over k, each product its own chain in the rows'
    order, so that four memory streams are in flight instead of one (the dot products of
    :func:`gram4` without the pairwise ones)."""
    g0 = g1 = g2 = g3 = 0.0
    for k in range(r0.shape[0]):
        vk = v[k]
        g0 += r0[k] * vk
        g1 += r1[k] * vk
        g2 += r2[k] * vk
        g3 += r3[k] * vk
    return g0, g1, g2, g3


#: :func:`gram4`'s sums before the first k.
_GRAM_ZERO = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _gram_terms(acc, e0, e1, e2, e3, vk):
    """:func:`gram4`'s sums ``acc`` plus one k: entries ``e0..e3`` of the four rows
    against ``vk`` and against each other (each entry made float64 before any product:
    float32 * float32 would round to float32)."""
    g0, g1, g2, g3, h10, h20, h21, h30, h31, h32 = acc
    x0, x1, x2, x3 = np.float64(e0), np.float64(e1), np.float64(e2), np.float64(e3)
    return (
        g0 + x0 * vk, g1 + x1 * vk, g2 + x2 * vk, g3 + x3 * vk,
        h10 + x1 * x0, h20 + x2 * x0, h21 + x2 * x1,
        h30 + x3 * x0, h31 + x3 * x1, h32 + x3 * x2,
    )  # fmt: skip


@njit(cache=True, fastmath=FASTMATH)
def gram4(r0, r1, r2, r3, v):
    """One pass over four rows: their scores against ``v`` and their six pairwise products.

    Returns ``(g0, g1, g2, g3, h10, h20, h21, h30, h31, h32)`` with ``g_b = r_b · v[:d]`` and
    ``h_bc = r_b · r_c``. A sequential solver that updates ``v`` by multiples of these rows
    gets each later row's score exactly from them (x_b·v_after = g_b + Σ_c coef_c·h_bc), so
    four consecutive samples cost one read of their rows: four memory streams instead of
    one. Rows may be float32 or float64; every product is taken in float64.
    """
    acc = _GRAM_ZERO
    for k in range(r0.shape[0]):
        acc = _gram_terms(acc, r0[k], r1[k], r2[k], r3[k], v[k])
    return acc


@njit(cache=True, fastmath=FASTMATH)
def update_gram4(p0, p1, p2, p3, c0, c1, c2, c3, v, r0, r1, r2, r3):
    """``v[:d] += c0 p0 + c1 p1 + c2 p2 + c3 p3`` and, in the same pass, :func:`gram4` of
    the next four rows ``r0..r3`` against the updated ``v``.

    A sequential solver updates ``v`` by a block of rows and then needs the next block's
    scores against the new ``v``: doing both in one loop over k reads ``v`` once instead of
    three times, and keeps the next rows' memory streams in flight while the previous rows
    (just read, so in L2) are applied. Each ``v[k]`` is final before it is multiplied, so
    the results are exactly those of the update followed by :func:`gram4` (up to the
    summation order of the reductions). Rows may be float32 or float64; products in float64.
    Returns ``(g0, g1, g2, g3, h10, h20, h21, h30, h31, h32)`` as :func:`gram4`.
    """
    acc = _GRAM_ZERO
    for k in range(r0.shape[0]):
        vk = v[k] + (
            c0 * np.float64(p0[k])
            + c1 * np.float64(p1[k])
            + c2 * np.float64(p2[k])
            + c3 * np.float64(p3[k])
        )
        v[k] = vk
        acc = _gram_terms(acc, r0[k], r1[k], r2[k], r3[k], vk)
    return acc


# ------------------------------------------------------------------ row-access layer
#: How the layer's bodies compile: as functions of their own with the kernels' flags, which
#: LLVM inlines into the sweep, not by Numba's IR inlining (``overload(inline="always")``):
#: with Numba 0.68 an IR-inlined body with a loop gave wrong results inside an SDCA step
#: (found by ``benchmarks/iterates_digest.py``; ``tests/test_sdca.py::
#: test_each_sweep_equals_the_numpy_steps`` fails with it).
_LAYER_OPTIONS = {"fastmath": FASTMATH}


def is_csr_rows(rows) -> bool:
    """Whether the Numba type ``rows`` is that of a :class:`CSRRows` (else a DenseRows)."""
    return getattr(rows, "instance_class", None) is CSRRows


def _layer(stub, csr, dense):
    """Make ``stub`` a layer function: an ``overload`` whose body is ``csr`` for a
    :class:`CSRRows` and ``dense`` for a :class:`DenseRows` (the three share the signature)."""

    def choose(rows, *args):
        return csr if is_csr_rows(rows) else dense

    choose.__signature__ = inspect.signature(stub)  # the signature Numba checks the bodies by
    overload(stub, jit_options=_LAYER_OPTIONS)(choose)
    return stub


def n_rows(rows):
    """Number of samples in ``rows`` (kernels only)."""


_layer(n_rows, lambda rows: rows.indptr.shape[0] - 1, lambda rows: rows.X.shape[0])


def row_dot(rows, i, v, init):
    """``init + x_i · v[:d]`` in float64 (kernels only): a dense row in one chain started
    at ``init``, a CSR row's stored entries in four chains added to ``init``."""


def _row_dot_csr(rows, i, v, init):
    lo, hi = np.uint64(rows.indptr[i]), np.uint64(rows.indptr[i + 1])
    return init + csr_dot(rows.data, rows.cols, lo, hi, v)


def _row_dot_dense(rows, i, v, init):
    xi = rows.X[i]
    s = init
    for k in range(xi.shape[0]):
        s += xi[k] * v[k]
    return s


_layer(row_dot, _row_dot_csr, _row_dot_dense)


def row_dots(rows, i, u, v):
    """``(x_i · u[:d], x_i · v[:d])`` in one pass over the row, float64 (kernels only)."""


def _row_dots_csr(rows, i, u, v):
    data, cols = rows.data, rows.cols
    a = e = 0.0
    for p in range(rows.indptr[i], rows.indptr[i + 1]):
        x = np.float64(data[p])
        a += x * u[cols[p]]
        e += x * v[cols[p]]
    return a, e


def _row_dots_dense(rows, i, u, v):
    xi = rows.X[i]
    a = e = 0.0
    for k in range(xi.shape[0]):
        a += xi[k] * u[k]
        e += xi[k] * v[k]
    return a, e


_layer(row_dots, _row_dots_csr, _row_dots_dense)


def row_axpy(rows, i, c, v):
    """``v[:d] += c · x_i`` (the bias entry ``v[d]`` is the caller's; kernels only)."""


def _row_axpy_csr(rows, i, c, v):
    data, cols = rows.data, rows.cols
    for p in range(rows.indptr[i], rows.indptr[i + 1]):
        v[cols[p]] += c * np.float64(data[p])


def _row_axpy_dense(rows, i, c, v):
    xi = rows.X[i]
    for k in range(xi.shape[0]):
        v[k] += c * xi[k]


_layer(row_axpy, _row_axpy_csr, _row_axpy_dense)


def row_sq_norm(rows, i):
    """``‖x_i‖²`` (without the bias feature) in float64, one chain (kernels only)."""


def _row_sq_norm_csr(rows, i):
    data = rows.data
    s = 0.0
    for p in range(rows.indptr[i], rows.indptr[i + 1]):
        x = np.float64(data[p])
        s += x * x
    return s


def _row_sq_norm_dense(rows, i):
    xi = rows.X[i]
    s = 0.0
    for k in range(xi.shape[0]):
        x = np.float64(xi[k])  # float32 * float32 would round the product to float32
        s += x * x
    return s


_layer(row_sq_norm, _row_sq_norm_csr, _row_sq_norm_dense)


def row_nnz(rows, i):
    """Number of entries :func:`row_entry` enumerates in row ``i``: d for a dense row, the
    stored entries of a CSR row (kernels only)."""


_layer(
    row_nnz,
    lambda rows, i: rows.indptr[i + 1] - rows.indptr[i],
    lambda rows, i: rows.X.shape[1],
)


def row_entry(rows, i, p):
    """``(k, x_ik)``, the p-th entry of row ``i`` (0 <= p < :func:`row_nnz`), x as float64.

    For sweeps whose every operation must happen in the row's order (compensated sums,
    compiled without fastmath); a fastmath sweep uses the reductions above (kernels only).
    """


def _row_entry_csr(rows, i, p):
    q = rows.indptr[i] + p
    return rows.cols[q], np.float64(rows.data[q])


_layer(row_entry, _row_entry_csr, lambda rows, i, p: (p, np.float64(rows.X[i, p])))


def prefetch_row(rows, i):
    """Ask the CPU for row ``i`` (its first line for a dense row, every stored entry of a
    CSR row: :func:`prefetch_csr_row`) and its y, ‖x̃_i‖² (kernels only; no result changes)."""


def _prefetch_row_csr(rows, i):
    prefetch(rows.y, i)
    prefetch(rows.sq_norms, i)
    prefetch_csr_row(rows.data, rows.cols, rows.indptr, i)


def _prefetch_row_dense(rows, i):
    prefetch(rows.X[i], 0)
    prefetch(rows.y, i)
    prefetch(rows.sq_norms, i)


_layer(prefetch_row, _prefetch_row_csr, _prefetch_row_dense)
