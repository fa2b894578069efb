"""The training data on the device, and the launch geometry the kernels share.

X given on the GPU (a CuPy array, any array with ``__cuda_array_interface__``, a numba
device array, or a CSR matrix of such arrays, ``cupyx.scipy.sparse.csr_matrix``'s interface)
is validated there and used in place (:func:`device_matrix`: :class:`DeviceMatrix`); NumPy /
SciPy X is copied once (:func:`to_device`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import cuda

from sdca_pegasos.solvers.driver.scales import OffHostMatrix
from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu import on_device
from sdca_pegasos.solvers.gpu._kernels import SIMULATED, TPB

__all__ = [
    "GRID",
    "ROW_BLOCKS",
    "SIMULATED",
    "TPB",
    "DeviceData",
    "DeviceMatrix",
    "RowCombiner",
    "decision_values",
    "device_matrix",
    "host_copy",
    "to_device",
]

#: Blocks of a grid-stride launch (elementwise kernels and reductions); 2 in the simulator.
GRID = 2 if K.SIMULATED else 1024
#: Blocks of a one-row-per-block pass (margins): enough to fill the GPU; 2 in the simulator.
ROW_BLOCKS = 2 if K.SIMULATED else 64 * 1024


@dataclass
class DeviceData:
    """X on the device as the kernels read it: ``rows`` = (X, X, X) for dense, (data, cols,
    indptr) for CSR (the first three arguments of every row kernel)."""

    rows: tuple
    sparse: bool
    n_samples: int
    n_features: int
    dtype: np.dtype
    all_rows: object  # device arange(n): the row list of whole-data passes


def to_device(X) -> DeviceData:
    """X (NumPy dense C-ordered or SciPy CSR, as the estimators validate it; a
    :class:`DeviceMatrix`; or a device array / CuPy CSR matrix, used in place) on the device.
    Host data are copied once."""
    if isinstance(X, DeviceMatrix):
        return X.data
    if sp.issparse(X) or getattr(X, "format", None) == "csr":
        parts = [_as_device(a) for a in (X.data, X.indices, X.indptr)]
        n, d = X.shape
        rows, sparse = tuple(parts), True
    else:
        dev = _as_device(X)
        if dev.ndim != 2:
            raise ValueError(f"X must be 2-d, got shape {dev.shape}")
        n, d = dev.shape
        rows, sparse = (dev, dev, dev), False
    return DeviceData(rows, sparse, int(n), int(d), np.dtype(rows[0].dtype), _all_rows(n))


def _all_rows(n: int):
    """Device arange(n), int32 where it fits: the row list of whole-data passes."""
    return cuda.to_device(np.arange(n, dtype=np.int32 if n < 2**31 - 1 else np.int64))


def _as_device(a):
    """A device array of ``a``: a view of it (CUDA array interface: CuPy, PyTorch, numba),
    itself (the simulator's device array), or a copy of host data."""
    if hasattr(a, "__cuda_array_interface__"):
        view = getattr(cuda, "as_cuda_array", None)
        if view is None:  # Numba's CUDA simulator: it has no device memory to view
            raise TypeError(
                f"Numba's CUDA simulator cannot read GPU memory ({type(a).__name__} with "
                "__cuda_array_interface__): give it its own device arrays (numba.cuda.to_device)"
            )
        return view(a)
    if on_device(a):
        return a
    return cuda.to_device(np.ascontiguousarray(a))


# ---------------------------------------------------------------------------- X given on the GPU
#: Above this |x|, x² overflows float64.
_SQRT_MAX = math.sqrt(np.finfo(np.float64).max)


@dataclass(frozen=True, eq=False)
class DeviceMatrix(OffHostMatrix):
    """X given on the GPU, validated there (:func:`device_matrix`) and read in place: the
    driver's :class:`~sdca_pegasos.solvers.driver.scales.OffHostMatrix`, whose statistics are
    reductions on the device (a number or a d-vector comes back, never X)."""

    data: DeviceData
    big: float  # max |X|, found by the validation's pass
    index_dtypes: tuple  # CSR: (indices, indptr) dtypes; dense: ()

    @property
    def shape(self) -> tuple[int, int]:
        return (self.data.n_samples, self.data.n_features)

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def sparse(self) -> bool:
        return self.data.sparse

    def max_abs(self) -> float:
        return self.big

    def column_scales(self) -> np.ndarray:
        out = zeros(self.data.n_features)
        if self.sparse:
            K.column_max_abs_csr[GRID, K.TPB](self.data.rows[0], self.data.rows[1], out)
        else:
            K.column_max_abs_dense[GRID, K.TPB](self.data.rows[0], out)
        return out.copy_to_host()

    def max_row_sq_norm(self, bias: float) -> float:
        if self.big > _SQRT_MAX:  # the row holding max |X| overflows: no pass needed
            return math.inf
        stats = _stats(row_sq_norms(self.data, bias, 1.0))
        return math.inf if stats["inf"] else stats["max_abs"]

    def layout_example(self):
        if not self.sparse:
            return np.zeros((1, 1), dtype=self.dtype)
        example = sp.csr_matrix(np.zeros((1, 1), dtype=self.dtype))
        for name, dtype in zip(("indices", "indptr"), self.index_dtypes, strict=True):
            # set directly: scipy would re-pick the index dtypes
            setattr(example, name, getattr(example, name).astype(dtype))
        return example


def device_matrix(X) -> DeviceMatrix:
    """X on the GPU, validated on the device, never copied: a dense 2-d array (CUDA array
    interface, or a numba device array) or a CSR matrix of device arrays (``format ==
    "csr"``, ``data``, ``indices``, ``indptr``, ``shape``: ``cupyx.scipy.sparse.csr_matrix``'s
    interface).

    Checks, with an error that names the fix: 2-d, float32 or float64 (a TypeError: nothing is
    cast on the device), C-contiguous (dense; a copy would double X's device memory, so none is
    made), no NaN or infinite entry (one pass on the device, whose max |X| is kept); CSR: an
    ``indptr`` of n + 1 entries from 0 to nnz that never decreases, column indices in [0,
    n_features), sorted and without duplicates within a row (canonical format: the host path
    converts to it, the device path asks for ``X.sum_duplicates()``)."""
    if getattr(X, "format", None) == "csr":
        n, d = (int(v) for v in X.shape)
        parts = []
        for name in ("data", "indices", "indptr"):
            part = getattr(X, name)
            if not on_device(part):
                raise TypeError(
                    f"X is a CSR matrix on the device, but X.{name} is not a device array "
                    f"({type(part).__name__}): give all of data, indices and indptr on the "
                    "device (cupyx.scipy.sparse.csr_matrix), or a SciPy matrix on the host"
                )
            parts.append(_contiguous(_as_device(part), f"X.{name}", 1))
        values, cols, indptr = parts
        _check_float(values, "X.data")
        for name, part in (("indices", cols), ("indptr", indptr)):
            if np.dtype(part.dtype).kind not in "iu":
                raise TypeError(
                    f"X.{name} on the device has dtype {part.dtype}: CSR indices are integers "
                    "(int32 or int64)"
                )
        if indptr.shape[0] != n + 1 or cols.shape[0] != values.shape[0]:
            raise ValueError(
                f"X (CSR on the device, shape {(n, d)}) has len(indptr) = {indptr.shape[0]} "
                f"(must be n_samples + 1 = {n + 1}) and len(indices) = {cols.shape[0]}, "
                f"len(data) = {values.shape[0]} (must be equal): rebuild it from its parts"
            )
        out = cuda.device_array((GRID, len(K.STATS)), dtype=np.float64)
        K.csr_stats[GRID, K.TPB](values, cols, indptr, d, out)
        stats = _combine(out)
        _refuse_structure(stats, n, d, values.shape[0])
        rows, index_dtypes = (values, cols, indptr), (np.dtype(cols.dtype), np.dtype(indptr.dtype))
    else:
        dev = _as_device(X)
        if len(dev.shape) != 2:
            raise ValueError(
                f"Expected 2D array, got {len(dev.shape)}D array instead (a device array of "
                f"shape {tuple(dev.shape)}). Reshape it on the device: X.reshape(-1, 1) if "
                "your data has a single feature or X.reshape(1, -1) if it contains a single "
                "sample."
            )
        _check_float(dev, "X")
        _contiguous(dev, "X", 2)
        n, d = (int(v) for v in dev.shape)
        stats = _stats(dev.reshape(n * d))
        rows, index_dtypes = (dev, dev, dev), ()
    dtype = np.dtype(rows[0].dtype)
    if stats["nan"]:
        raise ValueError(
            f"Input X contains NaN ({stats['nan']:.0f} entries, found on the device): no model "
            "is trained on missing values. Impute them or drop those samples on the device "
            "first (e.g. cupy.isnan(X).any(axis=1) finds the rows)."
        )
    if stats["inf"]:
        raise ValueError(
            f"Input X contains infinity or a value too large for dtype('{dtype}') "
            f"({stats['inf']:.0f} entries, found on the device): replace or drop them first."
        )
    data = DeviceData(rows, len(index_dtypes) > 0, n, d, dtype, _all_rows(n))
    return DeviceMatrix(data, stats["max_abs"], index_dtypes)


def host_copy(a) -> np.ndarray:
    """A host copy of the device array ``a`` (a short vector: y, sample weights)."""
    return _as_device(a).copy_to_host()


def decision_values(data: DeviceData, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """x_i·coef_k + intercept_k for every row of X on the device and every row k of ``coef``
    (shape (n_samples, n_classes), float64, on the host): the margins kernel with w = (coef_k,
    intercept_k) and the bias feature 1."""
    n = data.n_samples
    out = np.empty((n, coef.shape[0]))
    w = cuda.device_array(data.n_features + 1, dtype=np.float64)
    z = cuda.device_array(n, dtype=np.float64)
    mag = cuda.device_array(n, dtype=np.float64)
    for k in range(coef.shape[0]):
        w.copy_to_device(np.append(coef[k], intercept[k]).astype(np.float64))
        margins(data, data.all_rows, 0, n, w, 1.0, z, mag)
        out[:, k] = z.copy_to_host()
    return out


def _check_float(a, name: str) -> None:
    if np.dtype(a.dtype) not in (np.float32, np.float64):
        raise TypeError(
            f"{name} on the device has dtype {a.dtype}: device arrays are used in place, so they "
            "must already be float32 or float64 (nothing is cast on the device). Cast it there "
            "first, e.g. X.astype(cupy.float32)."
        )


def _contiguous(a, name: str, ndim: int):
    if len(a.shape) != ndim or not a.is_c_contiguous():
        raise ValueError(
            f"{name} on the device is not a C-contiguous {ndim}-d array (shape {tuple(a.shape)}, "
            f"strides {tuple(a.strides)}): the kernels read it in place, and a copy would "
            "double its device memory, so none is made. Make a C-ordered copy on the device "
            "first, e.g. cupy.ascontiguousarray(X)."
        )
    return a


def _stats(v) -> dict:
    """:data:`sdca_pegasos.solvers.gpu._kernels.STATS` of the 1-d device array ``v``."""
    out = cuda.device_array((GRID, len(K.STATS)), dtype=np.float64)
    K.finite_stats[GRID, K.TPB](v, out)
    return _combine(out)


def _combine(out) -> dict:
    """The blocks' rows of a stats kernel combined (a max, then sums) on the host."""
    part = out.copy_to_host()
    return {
        name: float(part[:, j].max() if j == 0 else part[:, j].sum())
        for j, name in enumerate(K.STATS)
    }


def _refuse_structure(stats: dict, n: int, d: int, nnz: int) -> None:
    """A CSR matrix whose structure the kernels cannot read: a ValueError naming the fix."""
    if stats["bad_indptr"]:
        raise ValueError(
            f"X (CSR on the device) has an invalid indptr: it must start at 0, never decrease "
            f"and end at nnz = {nnz}; {stats['bad_indptr']:.0f} of its {n} rows break this. "
            "Rebuild the matrix from valid parts."
        )
    if stats["bad_indices"]:
        raise ValueError(
            f"X (CSR on the device) has {stats['bad_indices']:.0f} column indices outside "
            f"[0, n_features = {d}): rebuild the matrix with the right shape or indices."
        )
    if stats["unsorted"]:
        raise ValueError(
            f"X (CSR on the device) is not in canonical format: {stats['unsorted']:.0f} stored "
            "entries are unsorted or duplicated within their row (the kernels read every "
            "stored entry as its own coordinate: a duplicate would count twice in ||x_i||^2). "
            "Call X.sum_duplicates() on the device first (it sorts the indices too); the host "
            "path makes this conversion itself."
        )


def zeros(shape, dtype=np.float64):
    """A device array of zeros (filled on the device: no host copy of its size)."""
    out = cuda.device_array(shape, dtype=dtype)
    K.fill[GRID, K.TPB](out.reshape(-1) if len(out.shape) > 1 else out, 0)
    return out


def row_sq_norms(data: DeviceData, bias: float, scale: float):
    """scale·‖x̃_i‖² for every row, on the device (float64)."""
    out = cuda.device_array(data.n_samples, dtype=np.float64)
    if data.sparse:
        K.row_sq_norms_csr[GRID, K.TPB](data.rows[0], data.rows[2], bias, scale, out)
    else:
        K.row_sq_norms_dense[GRID, K.TPB](data.rows[0], bias, scale, out)
    return out


class RowCombiner:
    """Σ_r coef[r]·x̃_{rows[start+r]} and Σ_r |coef[r]·x̃_i| (length d + 1, float64) for up to
    ``max_count`` rows, with its device scratch allocated once.

    Dense: row-chunk partial sums added by a fixed tree (deterministic). CSR: scattered with
    atomics (not bit-deterministic); the bias entry by a fixed tree."""

    def __init__(self, data: DeviceData, max_count: int):
        self.data = data
        d = data.n_features
        self.out, self.mag = zeros(d + 1), zeros(d + 1)
        self.sums = cuda.device_array((GRID, 2), dtype=np.float64)
        self.chunks = max(1, min(GRID, max_count // 64))
        if not data.sparse:
            self.part = cuda.device_array((self.chunks, d + 1), dtype=np.float64)
            self.part_mag = cuda.device_array((self.chunks, d + 1), dtype=np.float64)

    def __call__(self, rows, start: int, count: int, coef, bias: float):
        """(out, mag): device arrays owned by this object, overwritten by the next call."""
        data, d = self.data, self.data.n_features
        if data.sparse:
            K.fill[GRID, K.TPB](self.out, 0.0)
            K.fill[GRID, K.TPB](self.mag, 0.0)
            K.scatter_csr[GRID, K.TPB](*data.rows, rows, start, count, coef, self.out, self.mag)
            if bias != 0.0:  # the bias entry by a fixed tree, not n atomics on one address
                K.sums[GRID, K.TPB](coef, count, self.sums)
                host = self.sums.copy_to_host()
                self.out[d:].copy_to_device(np.array([bias * math.fsum(host[:, 0])]))
                self.mag[d:].copy_to_device(np.array([abs(bias) * math.fsum(host[:, 1])]))
            return self.out, self.mag
        chunks = max(1, min(self.chunks, count))
        part, part_mag = self.part[:chunks], self.part_mag[:chunks]
        K.colsum_dense[chunks, K.TPB](data.rows[0], rows, start, count, coef, bias, part, part_mag)
        K.sum_rows[d + 1, K.TPB](part, self.out)
        K.sum_rows[d + 1, K.TPB](part_mag, self.mag)
        return self.out, self.mag


def margins(data: DeviceData, rows, start: int, count: int, w, bias: float, z, mag) -> None:
    """z[r] = x̃_i·w, mag[r] = Σ|x̃_ij w_j| (i = rows[start + r]) on the device."""
    kernel = K.margins_csr if data.sparse else K.margins_dense
    blocks = max(1, min(ROW_BLOCKS, count))
    kernel[blocks, K.TPB](*data.rows, rows, start, count, w, bias, z, mag)
