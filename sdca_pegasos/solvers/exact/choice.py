r"""Which method the exact engine (:mod:`sdca_pegasos.solvers.exact.engine`) runs: a cost model
from the shape.

Which method runs where
-----------------------
:func:`choose_method` predicts, from (n, d, nnz) alone, the flops and the bytes of the
interior point in both forms, and takes the cheaper one when its predicted time fits three
quarters of the CPU budget (the rest: crossover, certificates, and the prediction's error)
and its memory fits ``memory_limit``; otherwise coordinate descent (Gram representation for
dense d ≥ n while Q fits, primal otherwise). Measured with ``make bench-optima``
(``benchmarks/optima.py --regimes catalogue targets beyond``, 2026-11-25, git 74e37cca79),
one BLAS thread, 60 s budget, target relative gap 1e-10, on a quiet 2-core machine (CPU
seconds; the chooser's prediction in brackets; the README's generated block holds the
latest run):

=========================================  ===================  ======  ======  ========
problem (λ = 1/n unless said)              method               CPU s   pred.   rel. gap
=========================================  ===================  ======  ======  ========
dense 5000 × 2000                          primal-form IPM      12.0    11.4    1.8e-12
dense 5000 × 2000, λ = 1e-3                primal-form IPM      11.0    11.4    3.8e-13
dense 6000 × 2000                          primal-form IPM      15.8    13.4    1.9e-12
dense 6000 × 2000, λ = 1e-3                primal-form IPM      14.0    13.4    3.2e-13
dense 20000 × 500                          primal-form IPM      8.1     2.6     1.2e-13
raw crops 4982 × 14400 float32             Gram-form IPM        30.5–36 29.6    ≤ 3.7e-14
sparse-synthetic 20242 × 47236, 1.4 M nnz  primal CD + Newton   1.0     inf     2.0e-12
CSR 100,000 × 50,000, 50 nnz per row       primal CD + Newton   27.2    inf     4.4e-12
dense 20000 × 5000 (both sides large)      primal CD + Newton   60.2    272     2.0e-3
=========================================  ===================  ======  ======  ========

The last is not certified (``certified=False``, its gap reached returned): the interior
point would need ~4.5 budgets, coordinate descent does not converge in one. ``inf``: neither
form fits the 4 GiB memory limit.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from sdca_pegasos.solvers.exact.qp import BLOCK_BYTES, FREE_BLOCK_MAX

#: Sustained rate of the dense BLAS-3 work (``dsyrk``, ``dpotrf``) the prediction assumes,
#: flop/s on one core: measured 37 (dsyrk) and 48 (dpotrf) Gflop/s here.
BLAS_FLOPS = 4e10
#: Rate of scipy's sparse products (pairs of stored entries multiplied per second, one
#: core): measured 1.3-1.7e8 for X̃ᵀ D X̃ and X Xᵀ on CSR.
SPARSE_FLOPS = 1e8
#: Interior-point iterations the prediction assumes (measured 14-33, median ~18).
IPM_ITERATIONS = 20
#: Share of the CPU budget the predicted interior point may take to be chosen (the rest:
#: crossover, certificates, and the prediction's error).
IPM_SHARE = 0.75
#: Memory the chooser lets a method allocate beyond X (bytes).
MEMORY_LIMIT = 4 * 2**30


class MethodChoice(NamedTuple):
    """What :func:`choose_method` predicts and picks.

    Attributes
    ----------
    method : {"ipm", "gram", "primal"}
        The ``method`` of :func:`solve_exact` that runs: the interior point, or coordinate
        descent in Gram or primal representation.
    form : {"gram", "primal"}
        The representation (for ``"ipm"``: the form of its linear algebra).
    bytes : int
        Memory the method is predicted to allocate beyond X (its largest arrays).
    ipm_seconds : float
        Predicted CPU seconds of the interior point in its cheaper form (whether or not it
        is chosen; ``inf`` when neither form fits the memory limit).
    """

    method: str
    form: str
    bytes: int
    ipm_seconds: float


def ipm_costs(n, d, nnz, itemsize) -> dict[str, tuple[float, int]]:
    """(predicted seconds, bytes) of the interior point in each form (see choose_method)."""
    k = d + 1
    block = BLOCK_BYTES if nnz is not None or itemsize != 8 else 0
    # crossover: a Newton step on up to n dense free rows and their thin SVD
    newton = 2 * n * k * 8
    if nnz is None:
        primal_iter = (n * k * k + k**3 / 3 + 12 * n * k) / BLAS_FLOPS
        gram_setup = n * n * k / BLAS_FLOPS
    else:
        rows2 = nnz * nnz / max(n, 1)  # Σ_i nnz_i² for rows of equal length
        primal_iter = 2 * rows2 / SPARSE_FLOPS + (k**3 / 3 + 2 * k * k) / BLAS_FLOPS
        gram_setup = 2 * nnz * nnz / max(d, 1) / SPARSE_FLOPS + n * n / BLAS_FLOPS
    gram_iter = (n**3 / 3 + 6 * n * n) / BLAS_FLOPS
    sparse_result = 12 if nnz is not None else 0  # a sparse product's entries before densifying
    return {
        "primal": (
            IPM_ITERATIONS * primal_iter,
            8 * k * k + sparse_result * k * k + block + newton,
        ),
        "gram": (
            gram_setup + IPM_ITERATIONS * gram_iter,
            16 * n * n + sparse_result * n * n + BLOCK_BYTES,
        ),
    }


def choose_method(
    n_samples: int,
    n_features: int,
    nnz: int | None = None,
    *,
    itemsize: int = 8,
    max_cpu: float = 60.0,
    memory_limit: float = MEMORY_LIMIT,
) -> MethodChoice:
    r"""The method :func:`solve_exact` runs with ``method="auto"``, from the shape alone.

    Interior point in the cheaper of its two forms (k = d + 1, flops at ``BLAS_FLOPS``,
    sparse products at ``SPARSE_FLOPS``, ``IPM_ITERATIONS`` iterations):

    ============  =====================================  ============================
    form          flops                                  bytes
    ============  =====================================  ============================
    low-rank      per iteration n k² + k³/3 (dense);     k² (+ 12 k² sparse product)
    primal        2 Σᵢ nnzᵢ² sparse + k³/3 (CSR)         + 16 n k (crossover rows)
    Gram          n² k once (CSR: 2 nnz²/d sparse),      16 n² (Q and its factor)
                  then per iteration n³/3                (+ 12 n² sparse product)
    ============  =====================================  ============================

    chosen when its predicted time is at most ``IPM_SHARE`` × ``max_cpu`` and its bytes at
    most ``memory_limit``; otherwise coordinate descent with Newton finishes, in Gram
    representation for dense X with d ≥ n (8 n² bytes for Q, a step costs O(n)) when Q
    fits, else in primal representation (O(n + d) bytes).

    Parameters
    ----------
    n_samples, n_features : int
    nnz : int or None
        Stored entries of a CSR X; None for dense X.
    itemsize : int, default=8
        Bytes per value of X (4 for float32: the dense products then convert blocks).
    max_cpu : float, default=60.0
        The CPU budget of the solve (seconds).
    memory_limit : float, default=MEMORY_LIMIT (4 GiB)

    Returns
    -------
    MethodChoice
    """
    n, d = int(n_samples), int(n_features)
    costs = ipm_costs(n, d, nnz, itemsize)
    fits = {form: c for form, c in costs.items() if c[1] <= memory_limit}
    best = min(fits, key=lambda form: fits[form][0]) if fits else None
    seconds = fits[best][0] if best else math.inf
    if best is not None and seconds <= IPM_SHARE * max_cpu:
        return MethodChoice("ipm", best, int(fits[best][1]), seconds)
    gram_bytes = 8 * n * n + 48 * n + BLOCK_BYTES
    if nnz is None and d >= n and gram_bytes <= memory_limit:
        return MethodChoice("gram", "gram", int(gram_bytes), seconds)
    primal_bytes = 8 * (d + 1) + 8 * 8 * n + 8 * FREE_BLOCK_MAX**2
    return MethodChoice("primal", "primal", int(primal_bytes), seconds)
