"""Argument types shared by every command line of the project (``python -m data``,
``python -m experiments``, ``python -m figures``, ``benchmarks/*.py``).

Each is an ``argparse`` ``type=``: a bad value makes argparse print the usage and one line
naming the argument and what it accepts, and exit with status 2 (never a traceback from
deep inside a run). It lives in :mod:`data`, the package every other one already imports.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

__all__ = ["existing_dir", "positive_float", "positive_int"]


def positive_int(text: str) -> int:
    """An integer >= 1 (seed counts, worker counts, sizes, epochs)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (budgets in seconds, tolerances)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def existing_dir(text: str) -> Path:
    """A folder that exists (e.g. an explicit ``--mirror``: a typo must not fall back to
    downloading)."""
    path = Path(text).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"no such directory: {text!r}")
    return path
