"""SDCA's two sweeps on the same dense rows: four rows at a time (``blocks``, what dense
input gets) against one sample at a time (``one by one``, what CSR input gets).

    python tools/sdca_sweeps.py

Prints, for each (n, d), the median CPU time of the second epoch of each sweep (the first
compiles and warms), the two run in turn, and their ratio; the load average beside it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages, not an installed copy's
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from sdca_pegasos.solvers.sdca import kernels as sdca


def compare(n: int, d: int, repeats: int = 7) -> float:
    """Median CPU seconds of one epoch of each sweep; prints them and returns the ratio."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    y = np.sign(rng.standard_normal(n))
    order = rng.permutation(n)
    times: dict[str, list[float]] = {name: [] for name in sdca.KERNEL_SWEEPS}
    for _ in range(repeats):
        for name, sweep in sdca.KERNEL_SWEEPS.items():
            rows, state, params = sdca.kernel_inputs(X, y, 1.0 / n)
            sweep(rows, state, params, order, 0)
            start = time.process_time()
            sweep(rows, state, params, order, n)
            times[name].append(time.process_time() - start)
    blocks, single = np.median(times["blocks"]), np.median(times["one by one"])
    print(
        f"n={n} d={d}: blocks {blocks * 1e3:.2f} ms, one by one {single * 1e3:.2f} ms, "
        f"ratio {single / blocks:.2f} (load {os.getloadavg()[0]:.2f})"
    )
    return single / blocks


if __name__ == "__main__":
    for n, d in ((20000, 500), (200000, 3), (20000, 2000)):
        compare(n, d)
