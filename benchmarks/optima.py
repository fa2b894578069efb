"""Certified optima of the whole catalogue, recomputed from scratch: relative gap and CPU time.

Every (dataset, λ) that an experiment of the catalogue needs is solved by
:func:`solvers.exact.solve_exact` exactly as ``python -m experiments optima`` does (one BLAS
thread, 60 s CPU budget, target relative gap 1e-10), but nothing is read from or written to
the reports cache. Prints one line per optimum and exits with status 1 if any is not
certified within the budget::

    python benchmarks/optima.py [--n-jobs 2] [--experiments NAME ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages (cmdline, experiments, ...)
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse

from joblib import Parallel, delayed

import data
from cmdline import positive_int
from experiments import CATALOGUE, datasets, optima


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=positive_int, default=1, help="worker processes")
    parser.add_argument(
        "--experiments", nargs="+", default=None, help="catalogue names (default: all present)"
    )
    args = parser.parse_args(argv)
    names = args.experiments or [n for n, e in CATALOGUE.items() if data.available(e.dataset)]
    unknown = sorted(set(names) - set(CATALOGUE))
    if unknown:
        parser.error(f"unknown experiment(s) {unknown}; `python -m experiments list`")
    todo = {}
    for name in names:
        for dataset, options, lmbd, bias in optima.needed(CATALOGUE[name]):
            key = (datasets.dataset_key(dataset, options), lmbd, bias)
            todo.setdefault(key, (dataset, options, lmbd, bias))
    shapes = {k: datasets.load(t[0], t[1]).X_train.shape for k, t in todo.items()}
    datasets.load.cache_clear()
    order = sorted(todo, key=lambda k: -shapes[k][0] * shapes[k][1])
    results = Parallel(n_jobs=args.n_jobs)(delayed(optima.certify)(*todo[k]) for k in order)
    print(
        f"{'dataset':<20} {'n':>7} {'d':>6} {'λ':>10} {'method':<17} {'rel. gap':>9} "
        f"{'CPU s':>7}  within {optima.BUDGET_SECONDS:g} s and 1e-10"
    )
    bad = 0
    for key, rec in zip(order, results, strict=True):
        n, d = shapes[key]
        ok = rec["certified"] and rec["cpu_seconds"] <= optima.BUDGET_SECONDS
        bad += not ok
        print(
            f"{rec['dataset_key']:<20} {n:>7} {d:>6} {rec['lmbd']:>10.4g} {rec['method']:<17} "
            f"{rec['rel_gap']:>9.1e} {rec['cpu_seconds']:>7.2f}  {'yes' if ok else 'NO'}"
        )
    total = sum(r["cpu_seconds"] for r in results)
    print(f"{len(results)} optima, {len(results) - bad} certified in budget, {total:.1f} CPU s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
