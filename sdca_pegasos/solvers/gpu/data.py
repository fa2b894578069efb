"""The training data on the device, and the launch geometry the kernels share."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import cuda

from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu._kernels import SIMULATED, TPB

__all__ = ["GRID", "ROW_BLOCKS", "SIMULATED", "TPB", "DeviceData", "RowCombiner", "to_device"]

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
    """X (NumPy dense C-ordered or SciPy CSR, as the estimators validate it; or a device
    array / CuPy CSR matrix, used in place) on the device. Host data are copied once."""
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
    index = np.int32 if n < 2**31 - 1 else np.int64
    return DeviceData(
        rows,
        sparse,
        int(n),
        int(d),
        np.dtype(rows[0].dtype),
        cuda.to_device(np.arange(n, dtype=index)),
    )


def _as_device(a):
    if hasattr(a, "__cuda_array_interface__"):
        return cuda.as_cuda_array(a)
    return cuda.to_device(np.ascontiguousarray(a))


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
