"""Same reports, bit for bit, from this checkout and from a base commit; and their run times.

A change to how runs are executed or measured (the fused per-epoch pass, the worker pool) must not
move a number of a report. This runs the same experiments with the same seeds from two source
trees, this checkout and a git worktree of ``--base`` made for the purpose, each into a reports
folder of its own, and compares every report and coefficient table exactly: the same rows (matched
on configuration, seed and epoch), the same columns and dtypes, and equal bits in every cell (NaN
equal to NaN, -0.0 not equal to 0.0). The timing columns
(``sdca_pegasos.experiments.runner.TIMING_COLUMNS``) are left out, and so is ``run_key``, which
hashes the source code and so differs by construction.

Both trees read the same raw data (``SVM_DATA_DIR``) and derived data (``SVM_CACHE_DIR``).
Each side runs ``python -m sdca_pegasos.experiments run NAMES --seeds S --no-optima`` in one
process, as
``make experiments`` does after this change (the base's Makefile ran one process per
experiment: ``--per-experiment`` times the base that way), and its wall time and its
processes' CPU time are printed. Run it twice for warm Numba caches in both trees::

    python benchmarks/same_reports.py --seeds 3 --n-jobs 2 001_simulated 001_skin_20ep

Exit status 1 when a report differs.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages (benchmarks.*, solvers, ...)
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import os
import resource
import subprocess
import tempfile
import time

import numpy as np
import pandas as pd

from sdca_pegasos.data.paths import cache_root, raw_root
from sdca_pegasos.experiments.runner import TIMING_COLUMNS

REPO = Path(__file__).resolve().parents[1]
#: Left out of the comparison: machine-dependent times, and the run key (a hash of the code).
IGNORED = (*TIMING_COLUMNS, "run_key")
#: Rows are matched on these (a report's row order is its run files' order).
ROW_KEY = ["config", "seed_index", "epoch"]
COEF_KEY = ["config", "seed_index", "feature"]


def base_tree(commit: str, where: Path) -> Path:
    """A git worktree of ``commit`` at ``where`` (reused when it is already there)."""
    if not (where / ".git").exists():
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(where), commit],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
    return where


def run_tree(tree: Path, reports: Path, names, seeds: int, n_jobs: int, per_experiment: bool):
    """Run ``names`` from the sources of ``tree``; returns (wall s, CPU s of the processes)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "SVM_REPORTS_DIR": str(reports),
        "SVM_DATA_DIR": str(raw_root()),
        "SVM_CACHE_DIR": str(cache_root()),
    }
    args = ["--seeds", str(seeds), "--n-jobs", str(n_jobs), "--no-optima", "--quiet"]
    groups = [[n] for n in names] if per_experiment else [list(names)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for group in groups:
        command = [sys.executable, "-m", "sdca_pegasos.experiments", "run", *group, *args]
        subprocess.run(command, cwd=tree, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def bits_equal(a: pd.Series, b: pd.Series) -> bool:
    """Equal cell by cell: floats by their bit patterns (every NaN one pattern)."""
    if a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        x, y = a.to_numpy(), b.to_numpy()
        nan = np.isnan(x)
        return bool(
            np.array_equal(nan, np.isnan(y)) and np.array_equal(x[~nan].view(np.int64),
                                                                y[~nan].view(np.int64))
        )  # fmt: skip
    return bool(a.reset_index(drop=True).equals(b.reset_index(drop=True)))


def differences(old: pd.DataFrame, new: pd.DataFrame, key: list[str]) -> list[str]:
    """What differs between two tables, the ignored columns aside (empty: identical)."""
    problems = []
    if list(old.columns) != list(new.columns):
        problems.append(f"columns differ: {sorted(set(old.columns) ^ set(new.columns))}")
    if len(old) != len(new):
        return [*problems, f"{len(old)} rows against {len(new)}"]
    old = old.sort_values(key, kind="stable").reset_index(drop=True)
    new = new.sort_values(key, kind="stable").reset_index(drop=True)
    for column in old.columns:
        if column in IGNORED or column not in new.columns:
            continue
        if not bits_equal(old[column], new[column]):
            problems.append(f"column {column!r} differs")
    return problems


def compare(names, old_root: Path, new_root: Path) -> bool:
    same = True
    for name in names:
        for suffix, key in (("", ROW_KEY), ("_coef", COEF_KEY)):
            old_path, new_path = (
                old_root / f"{name}{suffix}.parquet",
                new_root / f"{name}{suffix}.parquet",
            )
            if not old_path.exists() and not new_path.exists():
                continue
            if not (old_path.exists() and new_path.exists()):
                print(f"  {name}{suffix}: only one side wrote it")
                same = False
                continue
            old, new = pd.read_parquet(old_path), pd.read_parquet(new_path)
            problems = differences(old, new, key)
            compared = len([c for c in old.columns if c not in IGNORED])
            verdict = "identical" if not problems else "DIFFERS: " + "; ".join(problems)
            print(f"  {name + suffix:<32} {len(old):>7} rows x {compared} columns: {verdict}")
            same &= not problems
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="+", help="experiments of the catalogue")
    parser.add_argument("--base", default="f29ad98", help="the commit to compare with")
    parser.add_argument("--base-tree", type=Path, default=None, help="its worktree (made)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="reports folders' parent")
    parser.add_argument(
        "--base-reports",
        type=Path,
        default=None,
        help="the base's reports of these runs, already made: compare with them, untimed",
    )
    parser.add_argument(
        "--per-experiment",
        action="store_true",
        help="run the base one process per experiment, as its Makefile did",
    )
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="same_reports_"))
    sides = [("this", REPO, False)]
    base_reports = args.base_reports
    if base_reports is None:
        tree = base_tree(args.base, args.base_tree or out / "base-tree")
        print(f"base {args.base} at {tree}; reports under {out}")
        sides.insert(0, ("base", tree, args.per_experiment))
        base_reports = out / "base"
    for side, source, per in sides:
        wall, cpu = run_tree(source, out / side, args.names, args.seeds, args.n_jobs, per)
        print(f"{side}: wall {wall:.1f} s, CPU {cpu:.1f} s ({args.n_jobs} workers)")
    same = compare(args.names, base_reports, out / "this")
    print("same reports, timing columns and run keys aside" if same else "REPORTS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
