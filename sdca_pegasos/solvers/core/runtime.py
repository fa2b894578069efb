"""What a fit needs of the runtime: BLAS on one thread (what the exact engine and SDCA's exact
finish factorise under), and the stack level of the user's call for a warning."""

from __future__ import annotations

import os
import sys
from functools import lru_cache

import sklearn
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


#: Frames in these folders are not the user's: the solvers package and scikit-learn.
_INTERNAL = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    os.path.dirname(sklearn.__file__),
)


def caller_stacklevel() -> int:
    """``stacklevel`` for the first frame outside this package and scikit-learn (the ``fit``
    call in the user's code), whatever the chain of overrides and decorators in between."""
    frame, level = sys._getframe(2), 2  # the frame that calls warnings.warn is level 1
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    return level
