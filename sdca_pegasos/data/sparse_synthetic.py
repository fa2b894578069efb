"""SYNTHETIC sparse text-like data with the statistics of rcv1 (a seeded generator).

No real sparse data (rcv1, news20, astro-ph) can be installed offline here: scikit-learn's
``fetch_rcv1`` and ``fetch_20newsgroups`` download from the web, which the pipeline cannot rely
on, and a search of PyPI's package list (names and summaries: rcv1, news20, libsvm, svmlight)
found only fetchers that download at run time (``libsvmdata``) and solver bindings
(``libsvm``, ``libsvm-official``), none installed. So this module draws a matrix with rcv1's
published statistics
(Lewis et al. 2004, binary ``rcv1.binary`` of LIBSVM: 20,242 × 47,236, 0.16 % dense, about
74 nonzeros per row, tf-idf rows of unit L2 norm, 52 % positive):

- row lengths: log-normal around ``nnz_per_row`` (at least 1);
- columns: drawn from a power law, :math:`p_j \\propto (j + 1)^{-s}` with ``s`` = 1.1 (word
  frequencies), then shuffled so that frequent columns are not the first ones; a column drawn
  twice in one row is summed (canonical CSR);
- values: exponential "tf-idf" weights, each row scaled to unit L2 norm;
- labels: the sign of ``X β + noise`` with a sparse β on the frequent columns, thresholded at
  the median plus a shift so that about 52 % are positive.

It is labelled SYNTHETIC wherever it is shown (``meta["title"]``, ``meta["substitute"]``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .dataset import Dataset, dataset_meta

__all__ = ["RCV1_NNZ_PER_ROW", "RCV1_SHAPE", "generate", "load_sparse_synthetic"]

#: rcv1.binary's shape and density.
RCV1_SHAPE = (20242, 47236)
RCV1_NNZ_PER_ROW = 74.0


def generate(
    n_samples: int = RCV1_SHAPE[0],
    n_features: int = RCV1_SHAPE[1],
    nnz_per_row: float = RCV1_NNZ_PER_ROW,
    exponent: float = 1.1,
    noise: float = 0.1,
    seed: int = 0,
    dtype=np.float64,
) -> tuple[sp.csr_matrix, np.ndarray, dict]:
    """Draw ``(X, y, meta)``: X CSR (canonical, unit-norm rows), y in ±1 (float64).

    Vectorised: one draw of every row length, one of every column (inverse CDF of the power
    law), one of every value; about a second at rcv1's size.
    """
    if n_samples < 2 or n_features < 1 or nnz_per_row <= 0:
        raise ValueError("need n_samples >= 2, n_features >= 1 and nnz_per_row > 0")
    # frequent columns are drawn twice in a row and merge: a first draw measures how many
    # draws give one distinct column, the second asks for that many more
    X, *_ = _draw(n_samples, n_features, nnz_per_row, exponent, noise, seed, dtype)
    inflate = nnz_per_row / (X.nnz / n_samples)
    return _draw(n_samples, n_features, nnz_per_row * inflate, exponent, noise, seed, dtype)


def _draw(n_samples, n_features, nnz_per_row, exponent, noise, seed, dtype):
    rng = np.random.default_rng(seed)
    lengths = np.maximum(1, rng.lognormal(np.log(nnz_per_row) - 0.125, 0.5, n_samples))
    lengths = np.minimum(lengths.astype(np.int64), n_features)
    cdf = np.cumsum(np.arange(1, n_features + 1, dtype=np.float64) ** -exponent)
    cdf /= cdf[-1]
    rank = np.minimum(np.searchsorted(cdf, rng.random(int(lengths.sum()))), n_features - 1)
    column_of_rank = rng.permutation(n_features)
    rows = np.repeat(np.arange(n_samples), lengths)
    values = rng.exponential(1.0, rows.shape[0]) + 0.1
    X = sp.csr_matrix(
        (values, (rows, column_of_rank[rank])), shape=(n_samples, n_features), dtype=np.float64
    )
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.csr_matrix(sp.diags(1.0 / norms) @ X)
    X.sort_indices()
    X = X.astype(dtype)

    beta = np.zeros(n_features)
    frequent = column_of_rank[: max(1, n_features // 20)]  # the 5 % most frequent words
    beta[frequent] = rng.standard_normal(frequent.shape[0])
    score = X @ beta + noise * rng.standard_normal(n_samples)
    y = np.where(score > np.quantile(score, 0.48), 1.0, -1.0)  # about 52 % positive
    meta = {
        "name": "sparse-synthetic",
        "title": f"SYNTHETIC sparse, rcv1-like ({n_samples} x {n_features}, seed {seed})",
        "source": "sdca_pegasos.data.sparse_synthetic.generate (seeded generator, not rcv1)",
        "substitute": True,
        "substitute_for": "rcv1.binary (Lewis et al. 2004)",
        "density": X.nnz / (n_samples * n_features),
        "nnz_per_row": X.nnz / n_samples,
    }
    return X, y, meta


def load_sparse_synthetic(
    seed: int = 0,
    n_samples: int = 10_000,
    n_features: int = 30_000,
    nnz_per_row: float = 60.0,
    test_size: float = 0.25,
) -> Dataset:
    """SYNTHETIC sparse text-like data with rcv1's statistics, as CSR (never densified).

    Drawn by :func:`generate` (seeded: power-law column frequencies,
    unit-norm tf-idf-like rows, about 52 % positive); the defaults are a smaller matrix than
    rcv1.binary's 20,242 × 47,236 (74 nonzeros per row) so that a 100-seed experiment runs
    in minutes (``generate()``'s defaults give rcv1's size). Split stratified with ``seed``;
    rows already have unit norm, so nothing is standardised. Not real data: ``meta["title"]``
    says SYNTHETIC and ``meta["substitute_for"]`` names rcv1.
    """
    from sklearn.model_selection import train_test_split

    X, y, info = generate(n_samples, n_features, nnz_per_row, seed=seed)
    y = y.astype(np.int64)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=test_size, stratify=y, random_state=seed
    )
    X_tr, X_te = sp.csr_matrix(X_tr), sp.csr_matrix(X_te)
    for M in (X_tr, X_te):
        M.sort_indices()  # row slicing keeps each row's order; stated, not assumed
    meta = dataset_meta(
        "sparse-synthetic",
        f"SYNTHETIC sparse, rcv1-like ({n_samples} x {n_features}, seed {seed})",
        info["source"],
        {1: "positive", -1: "negative"},
        X_tr,
        X_te,
        False,
        [
            "SYNTHETIC: a seeded generator with rcv1.binary's published statistics, not rcv1",
            f"{info['nnz_per_row']:.1f} nonzeros per row, density {info['density']:.2e}",
        ],
        substitute_for=info["substitute_for"],
        nnz_per_row=info["nnz_per_row"],
        density=info["density"],
    )
    return Dataset(X_tr, y_tr, X_te, y_te, meta)
