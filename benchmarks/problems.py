"""Benchmark problems: what to solve, the synthetic generators, and loading.

A :class:`ProblemSpec` names its data (a dataset of :mod:`sdca_pegasos.experiments.datasets`, the
same bits as the experiments, or a synthetic recipe below) and its λ; :func:`load_problem` turns it
into a :class:`Problem` with float64 labels in ±1. :data:`PROBLEMS` and :data:`SMOKE_PROBLEMS` are
the time-to-ε benchmark's (``benchmarks/peers.py``); the other scripts build their own specs or
call the generators."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class ProblemSpec:
    """One benchmark problem.

    Attributes
    ----------
    name, title : str
    dataset : str or None
        A dataset of :mod:`sdca_pegasos.experiments.datasets` (its training rows), or None for the
        synthetic recipe :func:`make_sparse` (``sparse``) or :func:`make_dense`.
    options : dict
        The dataset's loader options, or the recipe's keyword arguments.
    lmbd : float or "1/n"
    budget_scale : float
        Factor applied to a per-problem CPU budget (``--budget`` of ``peers.py``).
    sparse : bool
    max_rows : int or None
        Keep every k-th row, k = n // max_rows, when n > max_rows (quick runs on real data:
        skin's rows are sorted by class).
    """

    name: str
    title: str
    dataset: str | None
    options: dict
    lmbd: float | str
    budget_scale: float = 1.0
    sparse: bool = False
    max_rows: int | None = None


PROBLEMS = [
    ProblemSpec("pca40-1.6", "blood PCA-40, λ = 1.6", "blood", {"pca": 40}, 1.6, 0.5),
    ProblemSpec("pca40-1/n", "blood PCA-40, λ = 1/n", "blood", {"pca": 40}, "1/n", 1.0),
    ProblemSpec("skin-1/n", "skin, λ = 1/n", "skin", {}, "1/n", 1.5),
    ProblemSpec("crops-1e-3", "blood raw crops, λ = 1e-3", "blood", {}, 1e-3, 1.5),
    ProblemSpec(
        "dense-1/n",
        "dense 5000 × 2000, λ = 1/n",
        None,
        {"n": 5000, "d": 2000, "seed": 0},
        "1/n",
        1.5,
    ),
    ProblemSpec(
        "sparse-1/n",
        "sparse 20000 × 20000 (0.5 %), λ = 1/n",
        None,
        {"n": 20000, "d": 20000, "density": 0.005, "seed": 0},
        "1/n",
        1.0,
        sparse=True,
    ),
]

SMOKE_PROBLEMS = [
    ProblemSpec("smoke-0.1", "smoke dense 300 × 20, λ = 0.1", None, {"n": 300, "d": 20}, 0.1),
    ProblemSpec("smoke-1/n", "smoke dense 300 × 20, λ = 1/n", None, {"n": 300, "d": 20}, "1/n"),
]


def make_dense(
    n: int, d: int, seed: int = 0, noise: float = 1.0, dtype=np.float64
) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian features of ``dtype`` and the labels of a noisy linear teacher,
    ``sign(x·β + noise ε)``, β and ε standard normal (drawn in the order X, β, ε).

    With the defaults, 5000 × 2000 and seed 0 is the matrix of the README's epoch-cost table
    (``make bench``) and of the time-to-ε problem ``dense-1/n``.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(dtype, copy=False)
    y = np.where(X @ rng.standard_normal(d) + noise * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def make_sparse(
    n: int, d: int, density: float, seed: int = 0, noise: float = 0.5
) -> tuple[sp.csr_matrix, np.ndarray]:
    """CSR features (``density`` of the entries, Gaussian non-zeros) and the labels of a noisy
    linear teacher."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=rng, dtype=np.float64)
    X.data = rng.standard_normal(X.data.shape[0])
    beta = rng.standard_normal(d)
    score = X @ beta / math.sqrt(density * d) + noise * rng.standard_normal(n)
    return X, np.where(score > 0, 1.0, -1.0)


def make_sparse_rows(n: int, d: int, nnz: int, seed: int = 0) -> tuple[sp.csr_matrix, np.ndarray]:
    """CSR with exactly ``min(nnz, d)`` stored entries per row in distinct, uniformly drawn
    columns (sorted), standard normal values, and noisy linear labels."""
    rng = np.random.default_rng(seed)
    k = min(nnz, d)
    cols = np.sort(rng.integers(0, d, (n, k)), axis=1)
    while True:  # redraw the rows that drew a column twice (rare when k << d)
        dup = np.flatnonzero((np.diff(cols, axis=1) == 0).any(axis=1))
        if dup.size == 0:
            break
        cols[dup] = np.sort(rng.integers(0, d, (dup.size, k)), axis=1)
    X = sp.csr_matrix(
        (rng.standard_normal(n * k), cols.ravel(), np.arange(0, n * k + 1, k)), shape=(n, d)
    )
    y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@dataclass
class Problem:
    """A loaded problem: ``X`` (dense C-contiguous or CSR), ``y`` float64 in ±1, λ resolved."""

    spec: ProblemSpec
    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    lmbd: float
    load_seconds: float


def load_problem(spec: ProblemSpec) -> Problem:
    """Load or generate ``spec``'s data (a missing dataset raises the loader's error, which
    names the command that fetches it)."""
    start = time.perf_counter()
    if spec.dataset is not None:
        from sdca_pegasos.experiments import datasets

        ds = datasets.load(spec.dataset, spec.options)
        X, y = ds.X_train, ds.y_train.astype(np.float64)
    elif spec.sparse:
        X, y = make_sparse(**spec.options)
    else:
        X, y = make_dense(**spec.options)
    if spec.max_rows is not None and X.shape[0] > spec.max_rows:
        k = X.shape[0] // spec.max_rows
        X, y = np.ascontiguousarray(X[::k]), np.ascontiguousarray(y[::k])
    lmbd = 1.0 / X.shape[0] if spec.lmbd == "1/n" else float(spec.lmbd)
    return Problem(spec, X, y, lmbd, time.perf_counter() - start)
