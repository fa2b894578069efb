"""The row-access layer (solvers._kernels): one sweep source, a dense and a CSR body chosen by
the type of ``rows``, each equal to NumPy's arithmetic on the row."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit

from sdca_pegasos.solvers.core.rows import (
    kernel_rows,
    n_rows,
    prefetch_row,
    row_axpy,
    row_dot,
    row_dots,
    row_entry,
    row_nnz,
    row_sq_norm,
)


@njit(cache=False)
def _sweep(rows, u, v, out):
    """Every primitive once per row: the same source compiles for both storages."""
    acc = np.zeros_like(u)
    for i in range(n_rows(rows)):
        prefetch_row(rows, i)
        out[i, 0] = row_dot(rows, i, u, 0.5)
        out[i, 1], out[i, 2] = row_dots(rows, i, u, v)
        out[i, 3] = row_sq_norm(rows, i)
        s = 0.0
        for p in range(row_nnz(rows, i)):
            k, x = row_entry(rows, i, p)
            s += x * v[k]
        out[i, 4] = s
        row_axpy(rows, i, 0.25 * (i + 1), acc)
    return acc


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("storage", ["dense", "csr"])
def test_each_primitive_equals_numpy_on_the_row(storage, dtype):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((9, 6))
    X[rng.random(X.shape) < 0.5] = 0.0
    X[4] = 0.0  # an empty row
    X = X.astype(dtype)
    u, v = rng.standard_normal(7), rng.standard_normal(7)
    data = sp.csr_matrix(X) if storage == "csr" else X
    rows = kernel_rows(data, np.ones(9), np.empty(0), None, 1.0)
    out = np.zeros((9, 5))
    acc = _sweep(rows, u, v, out)
    X64 = X.astype(np.float64)
    np.testing.assert_allclose(out[:, 0], 0.5 + X64 @ u[:6], rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(out[:, 1], X64 @ u[:6], rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(out[:, 2], X64 @ v[:6], rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(out[:, 3], (X64 * X64).sum(axis=1), rtol=1e-14)
    np.testing.assert_allclose(out[:, 4], X64 @ v[:6], rtol=1e-14, atol=1e-14)
    expected = 0.25 * np.arange(1, 10) @ X64
    np.testing.assert_allclose(acc[:6], expected, rtol=1e-14, atol=1e-14)
    assert acc[6] == 0.0  # the bias entry is the caller's


def test_a_csr_row_enumerates_only_its_stored_entries():
    X = sp.csr_matrix(np.array([[0.0, 2.0, 0.0, 3.0], [0.0, 0.0, 0.0, 0.0]]))
    rows = kernel_rows(X, np.ones(2), np.empty(0), None, 0.0)

    @njit(cache=False)
    def entries(rows, i):
        out = []
        for p in range(row_nnz(rows, i)):
            out.append(row_entry(rows, i, p))
        return out

    assert entries(rows, 0) == [(1, 2.0), (3, 3.0)]
    assert len(entries(rows, 1)) == 0
    dense = kernel_rows(X.toarray(), np.ones(2), np.empty(0), None, 0.0)
    assert [k for k, _ in entries(dense, 0)] == [0, 1, 2, 3]
