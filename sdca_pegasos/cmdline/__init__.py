"""Argument types shared by every command line of the project (``python -m sdca_pegasos.data``,
``python -m sdca_pegasos.experiments``, ``python -m sdca_pegasos.figures``, ``benchmarks/*.py``).

Each is an ``argparse`` ``type=``: a bad value makes argparse print the usage and one line
naming the argument and what it accepts, and exit with status 2 (never a traceback from
deep inside a run). :func:`readme_option` and :func:`command_line` are what the benchmark
scripts that rewrite a README block share. The bottom floor of the import graph: it imports
no project package, so that every one of them can import it.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

__all__ = [
    "command_line",
    "existing_dir",
    "existing_file",
    "fraction",
    "positive_float",
    "positive_int",
    "readme_option",
]


def _number(text: str, parse, expected: str, in_range, out_of_range: str = "") -> int | float:
    """``parse(text)`` if it parses and is ``in_range``; else argparse's one-line error:
    "expected <expected>, got '<text>'", or the ``out_of_range`` message (a format string of
    ``text`` and ``value``) for a number out of range."""
    try:
        value = parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not in_range(value):
        message = out_of_range or f"expected {expected}, got {{text!r}}"
        raise argparse.ArgumentTypeError(message.format(text=text, value=value))
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (seed counts, worker counts, sizes, epochs)."""
    return _number(
        text, int, "an integer >= 1", lambda v: v >= 1, "expected an integer >= 1, got {value}"
    )


def positive_float(text: str) -> float:
    """A finite number > 0 (budgets in seconds, tolerances)."""
    return _number(
        text,
        float,
        "a number > 0",
        lambda v: math.isfinite(v) and v > 0,
        "expected a finite number > 0, got {text!r}",
    )


def fraction(text: str) -> float:
    """A number in [0, 1) (``--test-size``)."""
    return _number(text, float, "a number in [0, 1)", lambda v: 0.0 <= v < 1.0)


def existing_dir(text: str) -> Path:
    """A folder that exists (e.g. an explicit ``--mirror``: a typo must not fall back to
    downloading)."""
    path = Path(text).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"no such directory: {text!r}")
    return path


def existing_file(text: str) -> Path:
    """A file that exists (``--readme``: a typo must not write a new file)."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such file: {text!r}")
    return path


def readme_option(parser: argparse.ArgumentParser, block: str) -> None:
    """Add ``--readme FILE`` to a benchmark script's ``parser``: rewrite FILE's generated
    ``block`` (its help, e.g. ``"warm-path block from this run"``); FILE must exist."""
    parser.add_argument(
        "--readme",
        type=existing_file,
        default=None,
        help=f"rewrite this README's generated {block}",
    )


def command_line(script: str, argv: list[str] | None) -> str:
    """The command that ran ``script`` with ``argv`` (None: this process's arguments), as a
    README or a record states it: ``python benchmarks/optima.py --n-jobs 2``."""
    return " ".join(["python", script, *(argv or sys.argv[1:])])
