"""Where one experiment's runs spend their CPU, function by function: the profile behind the
parts of ``benchmarks/experiment_cost.py`` (timed loops, monitoring, the rest).

    python tools/run_profile.py 000_blood_raw --top 30

One unmeasured run of each solver of the experiment first (JIT, the dataset's load), then
one run of each configuration for seed index ``--seed`` under :mod:`cProfile`, as the stage's
workers make them (:func:`sdca_pegasos.experiments.runner.run_one`, one thread); printed: the
``--top`` functions by cumulative time, and the load average before and after.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages, not an installed copy's
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.threads import pin_environment

if __name__ == "__main__":
    pin_environment()

import argparse
import cProfile
import os
import pstats


def profile(name: str, seed: int = 0) -> cProfile.Profile:
    """One run of each configuration of experiment ``name`` at seed index ``seed``,
    profiled (after one unmeasured run of each solver)."""
    from sdca_pegasos.experiments.catalogue import CATALOGUE
    from sdca_pegasos.experiments.runner import RunTask, run_one

    if name not in CATALOGUE:
        raise SystemExit(f"no experiment {name!r}: choose from {', '.join(sorted(CATALOGUE))}")
    exp = CATALOGUE[name]
    warm = set()
    for cfg in exp.configs:
        if cfg.solver not in warm:
            run_one(RunTask(exp, cfg, seed))
            warm.add(cfg.solver)
    prof = cProfile.Profile()
    prof.enable()
    for cfg in exp.configs:
        run_one(RunTask(exp, cfg, seed))
    prof.disable()
    return prof


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", help="a name of the catalogue, e.g. 000_blood_raw")
    parser.add_argument("--seed", type=int, default=0, help="seed index of the runs")
    parser.add_argument("--top", type=int, default=30, help="functions printed")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    prof = profile(args.experiment, args.seed)
    pstats.Stats(prof).sort_stats("cumulative").print_stats(args.top)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
