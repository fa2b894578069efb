"""One thread for every benchmark: the environment before any pool starts, the pools after.

This module imports nothing heavy at load time: :func:`pin_environment` must run before
NumPy, Numba or a peer library is imported.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

#: Thread-count variables of the BLAS, OpenMP and Numba pools.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)


def pin_environment() -> None:
    """Set every variable of :data:`THREAD_VARIABLES` to 1 (before any pool starts)."""
    for variable in THREAD_VARIABLES:
        os.environ[variable] = "1"


@contextmanager
def one_thread(*dtypes) -> Iterator[None]:
    """BLAS pools limited to one thread and, given ``dtypes``, every solver kernel compiled
    for them first (:func:`sdca_pegasos.solvers.warm_up`), so that no timed region pays for JIT."""
    from threadpoolctl import threadpool_limits

    from sdca_pegasos import solvers

    with threadpool_limits(limits=1):
        if dtypes:
            solvers.warm_up(dtypes=dtypes, readonly=False)
        yield
