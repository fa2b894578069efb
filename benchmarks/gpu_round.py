"""The GPU SDCA round's epoch time on the CSR or dense problem, for one source tree (issue 33).

For before/after comparisons of a kernel change on a GPU machine, alternated in one call::

    git archive BASE solvers | tar -x -C base/     # here, into a folder that travels
    for t in base . base .; do python benchmarks/gpu_round.py $t; done

Each process draws the bench's CSR problem (``benchmarks/gpu.py``: 10,000,000 ×
1,000,000, 50 nonzeros per row; ``--rows`` scales it), fits ``SDCAClassifier(device=
"cuda")`` at λ = 1e-6 for 12 epochs twice, and prints the median, min and max of epochs 3–12
(CUDA events around the update kernels) with the tree it imported ``solvers`` from.
``--dense shared`` / ``--dense private`` times the dense problem instead (10,000,000 × 100
float32, λ = 1/n) under that buffer scheme (``sdca_pegasos.solvers.gpu.sdca.DENSE_PRIVATE``).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import warnings


def main(argv=None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "tree", help="folder holding the sdca_pegasos/ package whose solvers to time"
    )
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--fits", type=int, default=2)
    parser.add_argument("--dense", choices=("shared", "private"))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(args.tree).resolve()))
    for name in [m for m in sys.modules if m == "sdca_pegasos" or m.startswith("sdca_pegasos.")]:
        del sys.modules[name]  # the tree's own solvers, not one imported before
    import numpy as np

    from benchmarks.gpu import csr_problem, dense_problem
    from sdca_pegasos import solvers

    if args.dense:
        from sdca_pegasos.solvers.gpu import sdca as gpu_sdca

        gpu_sdca.DENSE_PRIVATE = args.dense == "private"
        X, y = dense_problem(args.rows, 100)
        lmbd, what = 1.0 / args.rows, f"dense ({args.dense})"
    else:
        X, y = csr_problem(args.rows, max(1000, args.rows // 10), 50)
        lmbd, what = 1e-6, "CSR"
    medians = []
    for _ in range(args.fits):
        est = solvers.SDCAClassifier(
            lmbd, tol=0.0, max_epochs=12, random_state=0, bias_multiplier=0.0, device="cuda"
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a fixed number of epochs, no stopping test
            est.fit(X, y)
        t = 1e3 * np.asarray(est.epoch_times_[2:])
        medians.append(float(np.median(t)))
        print(
            f"{Path(solvers.__file__).parent}: {what} epoch ms median {np.median(t):.2f} "
            f"min {t.min():.2f} max {t.max():.2f}"
        )
    return medians


if __name__ == "__main__":
    main()
