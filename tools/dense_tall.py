"""SDCA against the exact engine on a dense tall problem (n ≫ d) at λ = 1/n, one core.

    python tools/dense_tall.py --rows 1000000 --epochs 400

The problem is ``benchmarks/gpu.py``'s dense draw (float32, d = 100, 10 % of the labels flipped) at
``--rows`` rows, without an intercept (as that bench). ``SDCAClassifier`` runs ``--epochs`` epochs,
plain and with ``shrinking=True`` (``tol=0``: no gap check inside the fit); for each: the CPU of
its epochs and of the whole fit, the certified relative gap of its returned pair
(:func:`sdca_pegasos.solvers.core.objectives.certificate`) and its suboptimality against the exact
engine's certified lower bound on P*. ``ExactSVMClassifier()``: its fit's CPU, its method and its
certified relative gap. Behind issue 33's dense target: how far dual coordinate ascent is from the
exact engine on such problems."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages, not an installed copy's
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.threads import pin_environment

if __name__ == "__main__":
    pin_environment()

import argparse

import numpy as np


def main(argv=None) -> None:
    from benchmarks.gpu import dense_problem
    from sdca_pegasos.solvers import ExactSVMClassifier, SDCAClassifier
    from sdca_pegasos.solvers.core import objectives

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=400)
    args = parser.parse_args(argv)
    X, y = dense_problem(args.rows, args.features)
    lmbd = 1.0 / args.rows
    print(f"{args.rows:,} x {args.features} float32, λ = 1/n; load {os.getloadavg()[0]:.2f}")

    t = time.process_time()
    exact = ExactSVMClassifier(lmbd, bias_multiplier=0.0).fit(X, y)
    print(
        f"ExactSVMClassifier(): fit {time.process_time() - t:.3g} s CPU, {exact.method_}, "
        f"certified {exact.certified_}, relative gap {exact.rel_gap_:.2e}",
        flush=True,
    )
    SDCAClassifier(lmbd, bias_multiplier=0.0, tol=0, max_epochs=2).fit(X[:1000], y[:1000])
    for name, options in (
        ("plain", {"shrinking": False, "finish": False}),
        ("shrinking=True", {"shrinking": True, "finish": False}),
    ):
        epochs = [0.0]

        def count(info, epochs=epochs):
            epochs[0] += info.cpu_time

        est = SDCAClassifier(
            lmbd, tol=0, max_epochs=args.epochs, random_state=0, bias_multiplier=0.0,
            callback=count, **options,
        )  # fmt: skip
        t = time.process_time()
        est.fit(X, y)
        fit = time.process_time() - t
        w = np.r_[est.coef_.ravel(), 0.0]
        cert = objectives.certificate(X, y, w, est.dual_coef_.ravel(), lmbd)
        sub = (cert["primal"] - exact.dual_) / abs(exact.dual_)
        print(
            f"SDCAClassifier {name}, {est.n_epochs_} epochs: epochs {epochs[0]:.3g} s CPU, "
            f"fit {fit:.3g} s; certified relative gap {cert['rel_gap']:.2e}, "
            f"suboptimality {sub:.2e} (against the exact engine's lower bound)",
            flush=True,
        )
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
