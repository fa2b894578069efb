"""Single streaming reads of a dense X: the one-pass bound an epoch's cost is measured against.

The Numba kernels live here, in a module imported under one name, and not in the script
that times them: a ``cache=True`` kernel compiled in a script loaded as ``epoch_cost`` (the
tests) would otherwise be looked up under that module name when the script runs as
``__main__``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from sdca_pegasos.solvers import FASTMATH, dot4


@njit(cache=True, fastmath=FASTMATH)
def _stream_rows(X, v, out):
    """out[i] = X[i] · v for every row, in storage order: one sequential read of X."""
    for i in range(X.shape[0]):
        xi = X[i]
        s = 0.0
        for k in range(X.shape[1]):
            s += xi[k] * v[k]
        out[i] = s


@njit(cache=True, fastmath=FASTMATH)
def _stream_rows4(X, v, out):
    """The same product, four rows at a time: four memory streams in flight instead of one
    (:func:`sdca_pegasos.solvers.core.rows.dot4`, the kernels' own four-row pass)."""
    n, d = X.shape
    for i in range(0, n - n % 4, 4):
        out[i], out[i + 1], out[i + 2], out[i + 3] = dot4(X[i], X[i + 1], X[i + 2], X[i + 3], v)
    for i in range(n - n % 4, n):
        s = 0.0
        for k in range(d):
            s += X[i, k] * v[k]
        out[i] = s


def stream_passes(X: np.ndarray) -> dict[str, Callable[[], object]]:
    """The reads of X to time, compiled for X: a Numba row-dot pass, the same four rows at a
    time, and one BLAS ``X @ v`` (``sgemv`` for float32 X)."""
    v = np.ones(X.shape[1], dtype=X.dtype)  # float32 X: sgemv (a float64 v would copy X)
    out = np.empty(X.shape[0])
    _stream_rows(X, v, out)  # compile
    _stream_rows4(X, v, out)
    return {
        "numba row-dot pass": lambda: _stream_rows(X, v, out),
        "numba 4-row pass": lambda: _stream_rows4(X, v, out),
        "BLAS X @ v (1 thread)": lambda: X @ v,
    }
