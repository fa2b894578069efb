"""The SYNTHETIC rcv1-like generator: seeded, canonical CSR, unit rows, rcv1's statistics."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose

from sdca_pegasos.data.sparse_synthetic import generate


def test_statistics_and_determinism():
    X, y, meta = generate(n_samples=2000, n_features=5000, nnz_per_row=40, seed=3)
    X2, y2, _ = generate(n_samples=2000, n_features=5000, nnz_per_row=40, seed=3)
    assert (X != X2).nnz == 0 and np.array_equal(y, y2)
    assert X.format == "csr" and X.has_canonical_format
    assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).A1, 1.0, rtol=1e-12)
    assert 0.9 * 40 <= meta["nnz_per_row"] <= 1.1 * 40
    assert 0.45 <= (y > 0).mean() <= 0.6
    counts = np.sort(np.bincount(X.indices, minlength=X.shape[1]))[::-1]
    assert counts[0] > 20 * counts[500]  # power-law column frequencies
    assert "SYNTHETIC" in meta["title"] and meta["substitute"]
