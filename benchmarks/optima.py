"""Certified optima recomputed from scratch: method, relative gap and CPU time per problem.

Two sets of problems (``--regimes``, default both):

``catalogue``
    every (dataset, λ) that an experiment of the catalogue needs, solved exactly as ``python -m
    sdca_pegasos.experiments optima`` does (:class:`sdca_pegasos.solvers.ExactSVMClassifier`), but
    nothing is read from or written to the reports cache;
``targets``
    the regimes of the exact engine's targets (issue 20): dense 5000 × 2000 and 6000 × 2000
    at λ = 1/n and 1e-3, dense 20000 × 500, the sparse-synthetic data at rcv1's full size
    (20242 × 47236) and a 100,000 × 50,000 CSR draw with 50 nonzeros per row, at λ = 1/n,
    solved by :func:`sdca_pegasos.solvers.exact.engine.solve_exact`;
``beyond``
    (not in the default) dense 20000 × 5000 at λ = 1/n, where both sides are too large for
    the interior point: coordinate descent, and ``certified`` says what it reached.

Every solve: one BLAS thread, a 60 s CPU budget, target relative gap 1e-10. Prints one line
per problem (method, gap, CPU s, and for the targets the chooser's predicted interior-point
seconds), stores them with the run's date, commit and machine load in
``OUT/optima.{parquet,json}`` (default ``output/bench``, git-ignored) and exits with status 1
if any catalogue or target problem is not certified within the budget. ``--readme
README.md`` rewrites the README's generated block from that stored run (every number and
verdict in it read from the records)::

    python benchmarks/optima.py [--n-jobs 2] [--regimes catalogue targets beyond]
                                [--experiments NAME ...] [--out DIR] [--readme README.md]
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages (cmdline, experiments, ...)
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import os
import time

import pandas as pd
import scipy.sparse as sp
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from benchmarks.problems import make_dense, make_sparse_rows
from sdca_pegasos import data
from sdca_pegasos.cmdline import command_line, positive_int, readme_option
from sdca_pegasos.data.sparse_synthetic import generate as generate_sparse_synthetic
from sdca_pegasos.experiments import CATALOGUE, datasets, optima
from sdca_pegasos.experiments.reports import cpu_model, git_commit, rewrite_block, short_commit
from sdca_pegasos.solvers.exact.engine import choose_method, solve_exact

#: (name, generator, its keyword arguments, λ: a number or "1/n") of the target regimes.
TARGETS = {
    "targets": [
        ("dense 5000x2000", "dense", {"n": 5000, "d": 2000}, "1/n"),
        ("dense 5000x2000", "dense", {"n": 5000, "d": 2000}, 1e-3),
        ("dense 6000x2000", "dense", {"n": 6000, "d": 2000}, "1/n"),
        ("dense 6000x2000", "dense", {"n": 6000, "d": 2000}, 1e-3),
        ("dense 20000x500", "dense", {"n": 20000, "d": 500}, "1/n"),
        ("sparse-synthetic full", "rcv1-like", {}, "1/n"),
        ("CSR 100000x50000", "rows", {"n": 100_000, "d": 50_000, "nnz": 50}, "1/n"),
    ],
    "beyond": [("dense 20000x5000", "dense", {"n": 20000, "d": 5000}, "1/n")],
}


def target_problem(kind: str, options: dict):
    """The data of a target regime: ``benchmarks.problems``' generators (seed 0)."""
    if kind == "dense":
        return make_dense(**options)
    if kind == "rows":
        return make_sparse_rows(**options)
    X, y, _ = generate_sparse_synthetic(**options)  # rcv1's shape by default
    return X, y


def certify_target(name, kind, options, lmbd, budget_seconds=optima.BUDGET_SECONDS) -> dict:
    """Solve one target regime exactly (one BLAS thread) and return its line's numbers."""
    X, y = target_problem(kind, options)
    n, d = X.shape
    lmbd = 1.0 / n if lmbd == "1/n" else float(lmbd)
    nnz = X.nnz if sp.issparse(X) else None
    choice = choose_method(n, d, nnz, itemsize=X.dtype.itemsize, max_cpu=budget_seconds)
    with threadpool_limits(limits=1):
        res = solve_exact(X, y, lmbd, tol=optima.TARGET_REL_GAP, max_cpu=budget_seconds)
    return {
        "dataset_key": name,
        "n": n,
        "d": d,
        "nnz": nnz,
        "lmbd": lmbd,
        "method": res.method,
        "rel_gap": res.rel_gap,
        "certified": res.certified,
        "cpu_seconds": res.cpu_seconds,
        "predicted_ipm_seconds": choice.ipm_seconds,
        "ipm_iterations": res.ipm_iterations,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=positive_int, default=1, help="worker processes")
    parser.add_argument(
        "--regimes",
        nargs="+",
        choices=["catalogue", *TARGETS],
        default=["catalogue", "targets"],
        help="problem sets (default: catalogue targets)",
    )
    parser.add_argument(
        "--experiments", nargs="+", default=None, help="catalogue names (default: all present)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("output/bench"), help="folder of optima.{parquet,json}"
    )
    readme_option(parser, "bench-optima block from the stored run")
    args = parser.parse_args(argv)
    start, load_start = time.perf_counter(), os.getloadavg()
    bad, records = 0, []
    if "catalogue" in args.regimes:
        bad += catalogue(parser, args, records)
    targets = [
        (regime, t) for regime in args.regimes if regime != "catalogue" for t in TARGETS[regime]
    ]
    if targets:
        bad += regimes(targets, args.n_jobs, records)
    meta = {
        "command": command_line("benchmarks/optima.py", argv),
        "git_commit": git_commit(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg(),
        "wall_seconds": time.perf_counter() - start,
        "date": time.strftime("%Y-%m-%d"),
        "budget_seconds": optima.BUDGET_SECONDS,
        "target_rel_gap": optima.TARGET_REL_GAP,
    }
    save(records, meta, args.out)
    if args.readme:
        update_readme(args.readme, args.out)
        print(f"{args.readme}: bench-optima block rewritten from {args.out}")
    return 1 if bad else 0


def within(rec: dict) -> bool:
    """Certified (relative gap at most the target) within the CPU budget."""
    return bool(rec["certified"]) and rec["cpu_seconds"] <= optima.BUDGET_SECONDS


def save(records: list[dict], meta: dict, out: Path) -> None:
    """The run's records and its sidecar, ``out/optima.{parquet,json}``."""
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame.from_records(records).to_parquet(out / "optima.parquet", index=False)
    (out / "optima.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")


#: The README block :func:`update_readme` rewrites.
README_MARKERS = (
    "<!-- bench-optima: generated by benchmarks/optima.py --readme; do not edit -->",
    "<!-- end of bench-optima -->",
)


def readme_block(df: pd.DataFrame, meta: dict) -> str:
    """The README's text for a stored run: one sentence of totals and a table of the
    target regimes, every number and verdict read from the records."""
    budget, commit = meta["budget_seconds"], short_commit(str(meta["git_commit"]))
    lines = [
        f"Run of {meta['date']} (git {commit}, `{meta['command']}`, one "
        f"BLAS thread, load average {meta['loadavg_start'][0]:.1f} on {meta['cpu_count']} "
        f"cores at the start; CPU seconds, budget {budget:g} s, target relative gap "
        f"{meta['target_rel_gap']:g}):"
    ]
    cat = df[df["set"] == "catalogue"]
    if len(cat):
        ok = cat.apply(within, axis=1)
        lines += [
            "",
            f"catalogue: {int(ok.sum())} of {len(cat)} optima certified within the budget, "
            f"{cat['cpu_seconds'].sum():.0f} CPU s together (largest "
            f"{cat['cpu_seconds'].max():.1f} s, {cat.loc[cat['cpu_seconds'].idxmax(), 'name']}"
            f"); largest relative gap {cat['rel_gap'].max():.1e}.",
        ]
    regs = df[df["set"] != "catalogue"]
    if len(regs):
        lines += [
            "",
            "| problem | λ | method | relative gap | CPU s | certified within the budget |",
            "|---|---|---|---|---|---|",
        ]
        for rec in regs.to_dict("records"):
            verdict = (
                "yes"
                if within(rec)
                else ("NO (over budget)" if rec["certified"] else "NO (not certified)")
            )
            lines.append(
                f"| {rec['name']} ({rec['set']}) | {rec['lmbd']:.4g} | {rec['method']} | "
                f"{rec['rel_gap']:.1e} | {rec['cpu_seconds']:.1f} | {verdict} |"
            )
    return "\n".join(lines)


def update_readme(readme: Path | str, out: Path) -> bool:
    """Rewrite the README's bench-optima block from the run stored in ``out``; True if the
    README changed."""
    df = pd.read_parquet(out / "optima.parquet")
    meta = json.loads((out / "optima.json").read_text())
    return rewrite_block(readme, README_MARKERS, readme_block(df, meta))


def regimes(targets: list, n_jobs: int, records: list) -> int:
    """Solve and print the regimes ((regime, target) pairs), appending their records;
    returns how many of the targets missed (the beyond set only reports)."""
    results = Parallel(n_jobs=n_jobs)(delayed(certify_target)(*t) for _, t in targets)
    print(
        f"{'regime':<22} {'n':>7} {'d':>6} {'nnz':>9} {'λ':>10} {'method':<22} "
        f"{'rel. gap':>9} {'CPU s':>7} {'IPM pred.':>9}  within {optima.BUDGET_SECONDS:g} s "
        "and 1e-10"
    )
    missed = 0
    for (regime, _), rec in zip(targets, results, strict=True):
        ok = within(rec)
        missed += (not ok) and regime == "targets"
        records.append({"set": regime, "name": rec["dataset_key"], **rec})
        nnz = "dense" if rec["nnz"] is None else rec["nnz"]
        print(
            f"{rec['dataset_key']:<22} {rec['n']:>7} {rec['d']:>6} {nnz:>9} "
            f"{rec['lmbd']:>10.4g} {rec['method']:<22} {rec['rel_gap']:>9.1e} "
            f"{rec['cpu_seconds']:>7.2f} {rec['predicted_ipm_seconds']:>9.3g}  "
            f"{'yes' if ok else 'NO'}"
        )
    return missed


def describe(dataset: str, options: dict) -> str:
    """A dataset as a reader names it: ``blood``, ``blood (pca=40)`` (its key is a hash)."""
    if not options:
        return dataset
    return f"{dataset} ({', '.join(f'{k}={v}' for k, v in sorted(options.items()))})"


def catalogue(parser, args, records: list) -> int:
    """Solve and print the catalogue's optima, appending their records; returns how many
    are not certified in budget."""
    names = args.experiments or [n for n, e in CATALOGUE.items() if data.available(e.dataset)]
    unknown = sorted(set(names) - set(CATALOGUE))
    if unknown:
        parser.error(f"unknown experiment(s) {unknown}; `python -m sdca_pegasos.experiments list`")
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
        f"{'dataset':<32} {'n':>7} {'d':>6} {'λ':>10} {'method':<22} {'rel. gap':>9} "
        f"{'CPU s':>7}  within {optima.BUDGET_SECONDS:g} s and 1e-10"
    )
    bad = 0
    for key, rec in zip(order, results, strict=True):
        n, d = shapes[key]
        ok = within(rec)
        bad += not ok
        records.append(
            {
                "set": "catalogue",
                "name": describe(*todo[key][:2]),
                "dataset_key": rec["dataset_key"],
                "n": n,
                "d": d,
                "nnz": None,
                "lmbd": rec["lmbd"],
                "method": rec["method"],
                "rel_gap": rec["rel_gap"],
                "certified": rec["certified"],
                "cpu_seconds": rec["cpu_seconds"],
            }
        )
        print(
            f"{records[-1]['name']:<32} {n:>7} {d:>6} {rec['lmbd']:>10.4g} {rec['method']:<22} "
            f"{rec['rel_gap']:>9.1e} {rec['cpu_seconds']:>7.2f}  {'yes' if ok else 'NO'}"
        )
    total = sum(r["cpu_seconds"] for r in results)
    print(f"{len(results)} optima, {len(results) - bad} certified in budget, {total:.1f} CPU s")
    return bad


if __name__ == "__main__":
    sys.exit(main())
