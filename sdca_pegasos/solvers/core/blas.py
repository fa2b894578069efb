"""BLAS on one thread: what the exact engine and SDCA's exact finish factorise under."""

from __future__ import annotations

from functools import lru_cache

from threadpoolctl import ThreadpoolController


def blas_single_thread():
    """A context in which BLAS runs on the calling thread alone (threadpoolctl): the
    factorisations in it then cost CPU on one clock and give the same bits in every
    process, whatever the machine's cores."""
    return _blas_threads().limit(limits=1)


@lru_cache(maxsize=1)
def _blas_threads() -> ThreadpoolController:
    """This process's BLAS/OpenMP pools, found once (a search of the loaded libraries costs
    milliseconds: as much as a whole solve of a small problem)."""
    return ThreadpoolController()
