"""Time to relative suboptimality of SDCA with and without shrinking, on one thread.

Run with ``python benchmarks/shrinking.py`` (``--help`` for the options). For each problem, P*
is certified first: the exact engine runs to a relative duality gap of ``--cert``
(:func:`benchmarks.certify.exact_bounds`), and its dual value D ≤ P* is used, so the
relative suboptimality (P(w) − D)/D printed here is an upper bound of the true one. Then every
configuration is fitted ``--seeds`` times with ``tol=0`` and its time to each target is the
update-loop CPU time (``setup_time_`` plus the ``epoch_times_`` up to the first epoch whose
primal is within the target), the project's timing convention: the primal is evaluated in
the callback, after the clock has stopped. The table shows medians over seeds (the spread
is printed alongside), epochs and samples processed; and, as a user would see it, the CPU
time of a whole ``fit`` without callback (``tol=0``, ``max_epochs`` = the epochs the first
seed needed), which adds the per-epoch work outside the update loop (index drawing, Python).
CPU times, not wall times: the machines this runs on are often shared.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages (benchmarks.*, solvers, ...)
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import math
import time
from dataclasses import dataclass, field, replace

import numpy as np

from benchmarks.certify import TARGETS, exact_bounds
from benchmarks.problems import Problem, ProblemSpec, load_problem
from benchmarks.threads import one_thread
from sdca_pegasos.solvers import SDCAClassifier
from sdca_pegasos.solvers.core import objectives


@dataclass
class Run:
    times: dict = field(default_factory=dict)  # target -> CPU seconds (nan: not reached)
    epochs: dict = field(default_factory=dict)  # target -> epochs
    seen: dict = field(default_factory=dict)  # target -> samples processed
    fit_cpu: dict = field(default_factory=dict)  # target -> CPU s of a whole plain fit


def synthetic(name: str, n: int, d: int, seed: int) -> ProblemSpec:
    """Gaussian features, labels of a noisy linear rule (noise 0.25 √d: about 10 % against
    the rule), λ = 1/n."""
    options = {"n": n, "d": d, "seed": seed, "noise": 0.25 * math.sqrt(d)}
    return ProblemSpec(name, f"{name} {n} x {d}", None, options, "1/n")


SKIN = ProblemSpec("skin", "skin", "skin", {}, "1/n")
PCA40 = ProblemSpec("blood-pca40", "blood PCA-40", "blood", {"pca": 40}, "1/n")
#: Problem name -> (its spec, its ``--quick`` spec): real data quick is every k-th row, about
#: 500 (skin's rows are sorted by class).
PROBLEMS = {
    "synthetic": (synthetic("synthetic", 20000, 40, 0), synthetic("synthetic", 400, 40, 0)),
    # shaped like blood PCA-40 (4982 x 40), for machines without the blood crops
    "pca40-like": (synthetic("pca40-like", 5000, 40, 0), synthetic("pca40-like", 400, 40, 0)),
    "dense": (synthetic("dense", 5000, 2000, 1), synthetic("dense", 200, 50, 1)),
    "skin": (SKIN, replace(SKIN, max_rows=500)),
    "blood-pca40": (PCA40, replace(PCA40, max_rows=500)),
}


def load_problems(names: list[str], quick: bool) -> list[Problem]:
    problems = []
    for name in names:
        if name not in PROBLEMS:
            raise SystemExit(f"unknown problem {name!r}")
        full, small = PROBLEMS[name]
        try:
            problems.append(load_problem(small if quick else full))
        except Exception as err:  # the data is not there: say so and go on
            print(f"skipping {name}: {type(err).__name__}: {err}")
    return problems


def time_to_targets(p: Problem, params: dict, seed: int, d_star: float, budget: float) -> Run:
    run = Run()
    clock = {"cpu": 0.0}
    todo = list(TARGETS)

    def watch(info):
        if info.epoch == 1:
            clock["cpu"] = info.setup_time
        clock["cpu"] += info.cpu_time
        rel = (objectives.primal(p.X, p.y, info.w, p.lmbd) - d_star) / d_star
        while todo and rel <= todo[0]:
            target = todo.pop(0)
            run.times[target] = clock["cpu"]
            run.epochs[target] = info.epoch
            run.seen[target] = info.n_samples_seen
        return not todo or clock["cpu"] > budget

    est = SDCAClassifier(
        lmbd=p.lmbd,
        tol=0,
        max_epochs=10**7,
        bias_multiplier=0.0,  # the objectives here have no intercept
        random_state=seed,
        callback=watch,
        **params,
    )
    est.fit(p.X, p.y)
    for target in todo:
        run.times[target] = run.epochs[target] = run.seen[target] = np.nan
    return run


def whole_fit_cpu(p: Problem, params: dict, seed: int, epochs: int) -> float:
    """CPU seconds of ``fit`` as a user runs it: no callback, no gap, ``epochs`` epochs."""
    est = SDCAClassifier(
        lmbd=p.lmbd, tol=0, max_epochs=epochs, bias_multiplier=0.0, random_state=seed, **params
    )
    start = time.process_time()
    est.fit(p.X, p.y)
    return time.process_time() - start


CONFIGS = {
    "perm": {"shrinking": False},
    "perm+shrinking": {"shrinking": True, "finish": False},
    "perm+shrinking+finish": {"shrinking": True, "finish": True},
    "cyclic": {"sampling": "cyclic", "shrinking": False},
    "cyclic+shrinking": {"sampling": "cyclic", "shrinking": True, "finish": False},
    "random+shrinking": {"sampling": "iid", "shrinking": True, "finish": False},
}
DEFAULT_CONFIGS = "perm,perm+shrinking,cyclic+shrinking"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--problems",
        default="synthetic,skin,blood-pca40",
        help="comma-separated: synthetic (20000x40), pca40-like (5000x40), dense (5000x2000), "
        "skin, blood-pca40",
    )
    parser.add_argument("--seeds", type=int, default=3, help="fits per configuration")
    parser.add_argument(
        "--configs", default=DEFAULT_CONFIGS, help=f"comma-separated, of {', '.join(CONFIGS)}"
    )
    parser.add_argument("--cert", type=float, default=1e-9, help="relative gap of P*")
    parser.add_argument("--budget", type=float, default=60.0, help="CPU seconds per fit")
    parser.add_argument("--quick", action="store_true", help="tiny problems (smoke test)")
    parser.add_argument(
        "--no-refit", dest="refit", action="store_false", help="skip the whole-fit timing"
    )
    args = parser.parse_args(argv)
    configs = {name: CONFIGS[name] for name in args.configs.split(",")}

    results = {}
    with one_thread(np.float64):
        for p in load_problems(args.problems.split(","), args.quick):
            bounds = exact_bounds(p.X, p.y, p.lmbd, tol=args.cert, max_cpu=10 * args.budget)
            d_star, p_best = bounds.lower, bounds.upper
            n, d = p.X.shape
            print(
                f"\n{p.spec.name}: {n} x {d}, lambda = 1/n, P* in [{d_star:.10g}, {p_best:.10g}] "
                f"(relative width {(p_best - d_star) / d_star:.1e})"
            )
            print(
                f"{'configuration':<18} {'target':>6}  {'loop CPU s, median [min-max]':>30}"
                f" {'epochs':>7} {'samples/n':>10} {'fit CPU s':>10}"
            )
            for name, params in configs.items():
                runs = [
                    time_to_targets(p, params, seed, d_star, args.budget)
                    for seed in range(args.seeds)
                ]
                results[(p.spec.name, name)] = runs
                for t in TARGETS:
                    times = np.array([r.times[t] for r in runs])
                    if np.isnan(times).any():
                        print(f"{name:<18} {t:>6.0e}  {'not reached in budget':>30}")
                        continue
                    fit = np.nan
                    if args.refit:
                        fit = whole_fit_cpu(p, params, 0, int(runs[0].epochs[t]))
                        runs[0].fit_cpu[t] = fit
                    spread = f"{np.median(times):.3f} [{times.min():.3f}-{times.max():.3f}]"
                    print(
                        f"{name:<18} {t:>6.0e}  {spread:>30}"
                        f" {np.median([r.epochs[t] for r in runs]):>7.0f}"
                        f" {np.median([r.seen[t] for r in runs]) / n:>10.1f} {fit:>10.3f}",
                        flush=True,
                    )
    return results


if __name__ == "__main__":
    main()
