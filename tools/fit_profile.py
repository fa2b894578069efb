"""Where one of our fits to ε spends its CPU, beside a peer's sweep to the same ε: the
profile behind issue 32's misses in `make bench-peers`.

    python tools/fit_profile.py pca40-1/n --tols 1e-2 1e-4 --rehline 60 80 120 500 1000

For each tolerance, ``SDCAClassifier(shrinking=True, finish=True)`` (no intercept, as in
the bench) is fitted ``--repeats`` times: the median CPU of ``fit``, its epochs and last
active set, and that CPU split into the timed epochs (kernel and per-fit setup, as
``epoch_times_`` and ``setup_time_`` report them), the exact-gap checks (the engine's
``certify``: the fit loop's checks and the certificate of the returned pair) and the rest
(the driver's Python loop); the suboptimality against the exact engine's certified lower
bound on P* (as the bench measures it). ``--rehline N...`` and
``--liblinear TOL...`` time those peers at each setting, through the bench's own fits
(:mod:`benchmarks.contenders`: the same parametrisation of the objective), median of
``--repeats``, with their suboptimality. One thread; the load is printed.
"""

from __future__ import annotations

import math
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


def suboptimality(X, y, coef, lmbd, p_lower) -> float:
    """(P(w) − P*)/P* as the bench measures it (:mod:`benchmarks.sweeps`): P(w) a certified
    upper bound, P* the certifier's lower bound."""
    from benchmarks.certify import evaluate

    primal, _ = evaluate(X, y, np.ravel(coef), None, lmbd)
    return (primal - p_lower) / abs(p_lower)


def ours(X, y, lmbd, tol, p_lower, repeats) -> None:
    from benchmarks.experiment_cost import Stopwatch
    from sdca_pegasos.solvers import SDCAClassifier
    from sdca_pegasos.solvers.driver.loop import Engine

    def make(callback=None):  # the bench's "SDCA-Perm + shrinking + finish (ours)"
        return SDCAClassifier(
            lmbd=lmbd, tol=tol, tol_gap="absolute", max_epochs=100_000, bias_multiplier=0.0,
            random_state=0, shrinking=True, finish=True, callback=callback,
        )  # fmt: skip

    make().fit(X, y)  # compiled, warm
    totals = []
    for _ in range(repeats):
        start = time.process_time()
        est = make().fit(X, y)
        totals.append(time.process_time() - start)
    infos = []
    make(lambda i: infos.append((i.cpu_time, i.setup_time, i.n_active))).fit(X, y)
    # the timed calls of a fit without a callback (epochs between checks share a call)
    epochs = float(est.epoch_times_.sum() + est.setup_time_)
    with Stopwatch(Engine, "certify") as gaps:  # the fit loop's checks and certificate
        make().fit(X, y)
    total = float(np.median(totals))
    sub = suboptimality(X, y, est.coef_, lmbd, p_lower)
    print(
        f"  ours, tol {tol:g}: fit {total * 1e3:.1f} ms (median of {repeats}), "
        f"{est.n_iter_} epochs (last active set {infos[-1][2]}), suboptimality {sub:.1e}: "
        f"epochs {epochs * 1e3:.1f} ms ({epochs / total:.0%}), exact-gap checks "
        f"{gaps.seconds * 1e3:.1f} ms ({gaps.seconds / total:.0%}), the rest "
        f"{(total - epochs - gaps.seconds) * 1e3:.1f} ms (validation, set-up and "
        f"{est.n_iter_} turns of the driver's loop)"
    )


def peer(solver, max_iter, tol, X, y, lmbd, p_lower, repeats) -> None:
    """``repeats`` fits of a bench peer (:func:`benchmarks.contenders.peer_solvers`: its
    own parametrisation of the objective), the median CPU and the suboptimality."""
    fits = [solver.fit(X, y, lmbd, max_iter, tol, math.inf) for _ in range(repeats)]
    sub = suboptimality(X, y, fits[-1].coef, lmbd, p_lower)
    cpu = np.median([f.cpu for f in fits])
    print(f"  {solver.name}, max_iter {max_iter}, tol {tol:g}: {cpu * 1e3:.1f} ms, "
          f"suboptimality {sub:.1e}")  # fmt: skip


def main(argv=None) -> None:
    from threadpoolctl import threadpool_limits

    from benchmarks.certify import exact_bounds
    from benchmarks.contenders import peer_solvers
    from benchmarks.problems import PROBLEMS, load_problem

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem", choices=[p.name for p in PROBLEMS])
    parser.add_argument("--tols", nargs="+", type=float, default=[1e-2, 1e-4, 1e-6])
    parser.add_argument("--rehline", nargs="*", type=int, default=[], help="max_iter values")
    parser.add_argument("--liblinear", nargs="*", type=float, default=[], help="tol values")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    problem = load_problem(next(p for p in PROBLEMS if p.name == args.problem))
    X, y, lmbd = problem.X, problem.y, problem.lmbd
    print(f"{args.problem}: {X.shape[0]} x {X.shape[1]}, load {os.getloadavg()[0]:.2f}")
    peers = {s.package: s for s in peer_solvers()[0]}
    with threadpool_limits(limits=1):
        p_lower = exact_bounds(X, y, lmbd, tol=1e-11, max_cpu=120.0).lower
        for tol in args.tols:
            ours(X, y, lmbd, tol, p_lower, args.repeats)
        for max_iter in args.rehline:  # its iteration sweep, at the bench's tolerance
            rehline = peers["rehline"]
            peer(rehline, max_iter, rehline.iter_tol, X, y, lmbd, p_lower, args.repeats)
        for tol in args.liblinear:  # its tolerance sweep, iterations not the limit
            peer(peers["scikit-learn"], 100_000, tol, X, y, lmbd, p_lower, args.repeats)
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
