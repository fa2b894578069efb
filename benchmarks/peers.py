r"""Time to ε: this project's solvers against one-thread peers on one SVM objective (issue 11).

Every solver (:mod:`benchmarks.contenders`: ours, liblinear, Snap ML, skglm, ReHLine,
lightning, each through its own parametrisation of the same objective) is refitted from
scratch with growing budgets on every problem (:mod:`benchmarks.problems`), in one process
on one thread: the thread variables are set to 1 before any library loads, the fits run
inside ``threadpool_limits(1)`` and the peers get ``n_jobs=1``. The CPU time of each ``fit``
is recorded and its suboptimality measured against certified bounds on P* from the exact
engine, tightened by every fit (:mod:`benchmarks.certify`); how the budgets grow and when a
sweep stops is :mod:`benchmarks.sweeps`.

For ε ∈ {1e-2, 1e-4, 1e-6}, the time to ε is the (monotone) time of the first fit whose
suboptimality is ≤ ε (:mod:`benchmarks.report`). A solver that never gets there is shown as
"stalls at X", X its best suboptimality; a dagger marks a solver stopped by the CPU budget
while still improving. Budgets: ``--budget`` CPU seconds per solver, knob and problem,
scaled per problem.

Outputs (``--out``, default ``output/bench``; git-ignored): ``peers.parquet`` (long format,
one row per problem × solver × knob × repetition × budget), ``peers_summary.parquet`` (time to each
ε), ``peers.md`` (the table), ``peers.png`` / ``peers.pdf`` (suboptimality vs CPU time, one
panel per problem), ``peers.json`` (versions, machine, load, certificates, skipped peers).

``make bench-peers`` installs the optional ``.[bench]`` extra and runs this file;
``--smoke`` runs two tiny synthetic problems (``tests/test_bench_peers.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages; one thread before any pool starts
    sys.path[0] = str(Path(__file__).resolve().parents[1])
    from benchmarks.threads import pin_environment

    pin_environment()

import argparse
import json
import os
import platform
import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchmarks import report
from benchmarks.certify import TARGETS
from benchmarks.contenders import our_solvers, peer_solvers, version_of
from benchmarks.problems import PROBLEMS, SMOKE_PROBLEMS, load_problem
from benchmarks.sweeps import run_problem, single_fits
from benchmarks.threads import THREAD_VARIABLES
from sdca_pegasos.experiments.reports import cpu_model, git_commit

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [p.name for p in PROBLEMS]
    parser.add_argument("--smoke", action="store_true", help="two tiny synthetic problems")
    parser.add_argument(
        "--problems",
        nargs="+",
        metavar="NAME",
        help=f"subset of {', '.join(names)} (default: all)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="CPU seconds per solver and problem, before each problem's scale "
        "(default 8; smoke 1)",
    )
    parser.add_argument("--repeats", type=int, default=1, help="sweeps per solver (median)")
    parser.add_argument(
        "--cert-budget",
        type=float,
        default=None,
        help="CPU seconds of the P* certifying run per problem (default 120; smoke 10)",
    )
    parser.add_argument("--solvers", nargs="+", help="only solvers whose name contains one")
    parser.add_argument("--out", type=Path, default=None, help="output folder")
    parser.add_argument("--no-cache", action="store_true", help="recompute the P* bounds")
    parser.add_argument("--replot", action="store_true", help="re-plot the stored report")
    parser.add_argument(
        "--readme",
        type=Path,
        default=None,
        help="rewrite this README's generated bench block, and docs/speed.md's beside it, "
        "from the (stored or new) report",
    )
    args = parser.parse_args(argv)

    out = args.out or ROOT / "output" / ("bench-smoke" if args.smoke else "bench")
    out.mkdir(parents=True, exist_ok=True)
    if args.replot:
        df = pd.read_parquet(out / "peers.parquet")
        report.plot(df, out / "peers")
        if args.readme:
            _readme(args.readme, out)
        return df
    budget = args.budget if args.budget is not None else (1.0 if args.smoke else 8.0)
    cert_cpu = args.cert_budget if args.cert_budget is not None else (10 if args.smoke else 120)
    specs = SMOKE_PROBLEMS if args.smoke else PROBLEMS
    if args.problems:
        unknown = set(args.problems) - {p.name for p in specs}
        if unknown:
            parser.error(f"unknown problems {sorted(unknown)}; choose from {names}")
        specs = [p for p in specs if p.name in args.problems]

    def log(msg: str) -> None:
        print(msg, flush=True)

    wall = time.perf_counter()
    load_start = os.getloadavg()
    with threadpool_limits(limits=1):
        solvers = our_solvers()
        peers, skipped = peer_solvers()
        solvers += peers
        if args.solvers:
            solvers = [
                s for s in solvers if any(k.lower() in s.name.lower() for k in args.solvers)
            ]
        for name, why in skipped.items():
            log(f"peer skipped: {name}: {why}")
        frames, meta_problems, skipped_problems = [], {}, {}
        for spec in specs:
            log(f"\n== {spec.title}")
            try:
                problem = load_problem(spec)
            except Exception as exc:  # missing data: said, and the other problems still run
                skipped_problems[spec.name] = f"{type(exc).__name__}: {exc}"
                log(f"  skipped (data): {type(exc).__name__}: {exc}")
                continue
            n_samples, n_features = problem.X.shape
            log(
                f"  {n_samples} × {n_features} {problem.X.dtype}, "
                f"λ = {problem.lmbd:.6g}, budget {budget * spec.budget_scale:.0f} s per solver"
            )
            cache = None if args.no_cache else out / "optima"
            df, bounds, reasons = run_problem(
                problem, solvers, budget, args.repeats, cert_cpu, cache, log
            )
            frames.append(df)
            meta_problems[spec.name] = report.problem_record(
                problem, budget * spec.budget_scale, bounds, reasons
            )
            meta_problems[spec.name]["single_fits"] = single_fits(problem, solvers, bounds, log)
    if not frames:
        raise SystemExit("no problem could run: " + json.dumps(skipped_problems))
    df = pd.concat(frames, ignore_index=True)
    summary = report.summarise(df)
    meta = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg(),
        "wall_seconds": time.perf_counter() - wall,
        "targets": TARGETS,
        "budget_seconds": budget,
        "repeats": args.repeats,
        "threads": {v: os.environ.get(v) for v in THREAD_VARIABLES},
        "versions": {s.name: f"{s.package} {s.version}" for s in solvers}
        | {"numpy": np.__version__, "numba": version_of("numba")},
        "skipped_peers": skipped,
        "skipped_problems": skipped_problems,
        "problems": meta_problems,
    }
    table = report.write(out, df, summary, meta)
    log("\n" + table)
    for name, why in skipped_problems.items():
        log(f"problem skipped: {name}: {why}")
    if args.readme:
        _readme(args.readme, out)
    log(
        f"wrote {out}/peers.{{parquet,md,png,pdf,json}} in {meta['wall_seconds']:.0f} s wall "
        f"(load average {load_start[0]:.1f} -> {meta['loadavg_end'][0]:.1f} on "
        f"{os.cpu_count()} cores)"
    )
    return df


def _readme(readme, out) -> None:
    """--readme: the bench blocks rewritten from ``out``, or why not (a loaded machine)."""
    try:
        report.update_readme(readme, out)
    except report.UnderLoad as err:
        print(err, flush=True)
    else:
        print(f"{readme} and {report.DETAILS}: bench blocks rewritten from {out}", flush=True)


if __name__ == "__main__":
    main()
