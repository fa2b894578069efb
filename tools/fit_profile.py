"""Where one of our fits to ε spends its CPU, beside a peer's sweep to the same ε: the
profile behind issue 32's misses in `make bench-peers`.

    python tools/fit_profile.py pca40-1/n --tols 1e-2 1e-4 --rehline 60 80 120 500 1000

For each tolerance, ``SDCAClassifier(shrinking=True, finish=True)`` (no intercept, as in
the bench) is fitted ``--repeats`` times: the median CPU of ``fit``, its epochs and last
active set, and that CPU split into the timed epochs (kernel and per-fit setup, as the
callback reports them), the exact-gap checks (``objectives.duality_gap``, the
certificate) and the rest (the driver's Python loop); the suboptimality against the exact
engine's P*. ``--rehline N...`` and ``--liblinear TOL...`` time those peers (median of
``--repeats``) at each setting, with their suboptimality. One thread; the load is printed.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages, not an installed copy's
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.threads import pin_environment

if __name__ == "__main__":
    pin_environment()

import argparse

import numpy as np

from solvers import objectives


def ours(X, y, lmbd, tol, p_star, repeats) -> None:
    from benchmarks.experiment_cost import Stopwatch
    from solvers import SDCAClassifier

    def make(callback=None):
        return SDCAClassifier(
            lmbd=lmbd, tol=tol, max_epochs=100_000, bias_multiplier=0.0, random_state=0,
            shrinking=True, finish=True, callback=callback,
        )  # fmt: skip

    make().fit(X, y)  # compiled, warm
    totals = []
    for _ in range(repeats):
        start = time.process_time()
        est = make().fit(X, y)
        totals.append(time.process_time() - start)
    infos = []
    make(lambda i: infos.append((i.cpu_time, i.setup_time, i.n_active))).fit(X, y)
    epochs = sum(c for c, _, _ in infos) + infos[0][1]
    with Stopwatch(objectives, "duality_gap") as gaps:  # as the driver calls it
        make().fit(X, y)
    total = float(np.median(totals))
    w = np.r_[est.coef_.ravel(), 0.0]
    sub = (objectives.primal(X, y, w, lmbd) - p_star) / p_star
    print(
        f"  ours, tol {tol:g}: fit {total * 1e3:.1f} ms (median of {repeats}), "
        f"{est.n_iter_} epochs (last active set {infos[-1][2]}), suboptimality {sub:.1e}: "
        f"epochs {epochs * 1e3:.1f} ms ({epochs / total:.0%}), exact-gap checks "
        f"{gaps.seconds * 1e3:.1f} ms ({gaps.seconds / total:.0%}), the rest "
        f"{(total - epochs - gaps.seconds) * 1e3:.1f} ms ({est.n_iter_} epochs of the "
        "driver's loop)"
    )


def peer(name, make, X, y, lmbd, p_star, repeats) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at small budgets
        times = []
        for _ in range(repeats):
            est = make()
            start = time.process_time()
            est.fit(X, y)
            times.append(time.process_time() - start)
    w = np.r_[np.ravel(est.coef_), 0.0]
    sub = (objectives.primal(X, y, w, lmbd) - p_star) / p_star
    print(f"  {name}: {np.median(times) * 1e3:.1f} ms, suboptimality {sub:.1e}")


def main(argv=None) -> None:
    from threadpoolctl import threadpool_limits

    from benchmarks.problems import PROBLEMS, load_problem
    from solvers import ExactSVMClassifier

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
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # P*'s solve may stop a hair above its 1e-11
        p_star = ExactSVMClassifier(lmbd=lmbd, tol=1e-11, bias_multiplier=0.0).fit(X, y).primal_
    with threadpool_limits(limits=1):
        for tol in args.tols:
            ours(X, y, lmbd, tol, p_star, args.repeats)
        C = objectives.lmbd_to_C(lmbd, X.shape[0])
        for max_iter in args.rehline:
            import rehline

            def make(max_iter=max_iter):
                return rehline.plq_Ridge_Classifier(
                    loss={"name": "svm"}, C=C, fit_intercept=False, max_iter=max_iter, tol=1e-14
                )

            peer(f"ReHLine, max_iter {max_iter}", make, X, y, lmbd, p_star, args.repeats)
        for tol in args.liblinear:
            from sklearn.svm import LinearSVC

            def make(tol=tol):
                return LinearSVC(
                    loss="hinge", dual=True, fit_intercept=False, C=C, tol=tol,
                    max_iter=100_000, random_state=0,
                )  # fmt: skip

            peer(f"liblinear, tol {tol:g}", make, X, y, lmbd, p_star, args.repeats)
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
