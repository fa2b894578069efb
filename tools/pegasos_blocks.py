"""Whether Pegasos' dense blocks of four rows pay: the same epoch kernel on the same dense X, with
the dense specialisation (four rows per pass, :mod:`sdca_pegasos.solvers.pegasos.kernels`) and
with the generic one-row-at-a-time bodies of the row-access layer (what a CSR matrix gets).

The generic bodies are selected by passing the rows as :class:`PerRowDense`, a NamedTuple
with :class:`sdca_pegasos.solvers.core.rows.DenseRows`' fields but another type: the layer reads
it as a
dense row, the kernel's blocked helpers do not recognise it. Both variants are compiled
before any timing; then epochs alternate between them (each on its own state, from the same
index arrays), timed with ``time.process_time`` around the kernel call alone, and the median
epoch of each is printed with their ratio::

    python tools/pegasos_blocks.py --n 20000 --d 500 --batch-size 64 --epochs 6
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import NamedTuple

if __name__ == "__main__":  # this checkout's packages (solvers, ...)
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from sdca_pegasos.solvers.core.losses import HINGE
from sdca_pegasos.solvers.core.rows import DenseRows
from sdca_pegasos.solvers.pegasos.kernels import (
    LAST,
    Iterate,
    Params,
    pegasos_batch_epoch,
    pegasos_single_epoch,
)


class PerRowDense(NamedTuple):
    """:class:`sdca_pegasos.solvers.core.rows.DenseRows` under another type: the generic bodies."""

    X: np.ndarray
    y: np.ndarray
    sq_norms: np.ndarray
    weights: np.ndarray | None
    bias: float


def _state(d, k):
    buf = np.empty(k)
    return Iterate(
        np.zeros(d + 1), np.zeros(d + 1), np.array([1.0, 0.0, 0.0]), buf, buf.copy(),
        np.empty(k, dtype=np.int64),
    )  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--d", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--projection", action="store_true")
    args = parser.parse_args(argv)
    n, d, k = args.n, args.d, args.batch_size
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    sq = (X * X).sum(axis=1) + 1.0
    kernel = pegasos_single_epoch if k == 1 else pegasos_batch_epoch
    params = Params(1.0 / n, False, args.projection, LAST, 0, 1e-2, k, HINGE)
    variants = {
        "blocked": DenseRows(X, y, sq, None, 1.0),
        "per-row": PerRowDense(X, y, sq, None, 1.0),
    }
    for rows in variants.values():  # compile both outside the clock
        kernel(rows, _state(d, k), params, np.arange(min(n, 4 * k + 3)), 0)
    states = {name: _state(d, k) for name in variants}
    times: dict[str, list[float]] = {name: [] for name in variants}
    iters = -(-n // k)
    for epoch in range(args.epochs):
        indices = rng.permutation(n)
        order = list(variants) if epoch % 2 == 0 else list(variants)[::-1]
        for name in order:
            t = time.process_time()
            kernel(variants[name], states[name], params, indices, epoch * iters)
            times[name].append(time.process_time() - t)
    w = {name: s.scal[0] * s.v for name, s in states.items()}
    diff = np.abs(w["blocked"] - w["per-row"]).max() / np.abs(w["blocked"]).max()
    med = {name: float(np.median(ts)) for name, ts in times.items()}
    print(f"n={n} d={d} batch_size={k} projection={args.projection} epochs={args.epochs}")
    for name, ts in times.items():
        print(f"  {name:8s} median {med[name]:.4f} s/epoch  ({' '.join(f'{x:.3f}' for x in ts)})")
    print(
        f"  per-row / blocked = {med['per-row'] / med['blocked']:.2f}; max rel diff w {diff:.1e}"
    )


if __name__ == "__main__":
    main()
