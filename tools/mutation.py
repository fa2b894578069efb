"""Mutation testing of the bookkeeping modules (``make mutation``; issue 24).

The solver kernels are guarded by NumPy twins, dense-vs-CSR equality and liblinear; this
measures how well the code *around* them is guarded — the flags, keys, choosers and verdict
rules that decide what a user is told. For each module below, cosmic-ray plants one small
bug at a time (a flipped comparison, a changed constant, a removed ``not``, a loop that never
runs...) and runs the module's own fast test subset; a mutant is *killed* when a test fails
(or the subset exceeds its time budget), and *survives* otherwise. The score is killed /
(killed + survived); the surviving mutants are printed as ``file:line operator`` with their
diff, to be triaged (a missing test, or an equivalent mutant: docs/testing.md).

Every run works on a copy of the repository (tracked and untracked, non-ignored files) under
``output/mutation/tree``, so a mutant never touches the working tree, even when interrupted.
Sessions (cosmic-ray's sqlite) and summaries stay under ``output/mutation/``. The modules are
large for this (hundreds to thousands of mutants, seconds each): ``--max-mutants`` runs a
deterministic sample (fixed ``--seed``) and says so in the output.

Examples
--------
python tools/mutation.py --list
python tools/mutation.py spec optima --max-mutants 60
python tools/mutation.py --report            # the table of the sessions already run
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "output" / "mutation"
TREE = OUT / "tree"


@dataclass(frozen=True)
class Target:
    """One module under mutation and the tests that should catch its bugs.

    ``functions`` restricts the mutants to those definitions (``name`` or
    ``Class.method``; None: the whole file). ``tests`` are paths or globs relative to the
    repository; a glob that matches nothing is dropped (tests/test_invariants.py may not
    exist yet). ``select`` is pytest's ``-k`` expression, if any.
    """

    path: str
    tests: tuple[str, ...]
    functions: tuple[str, ...] | None = None
    select: str | None = None


INVARIANTS = "tests/test_invariants*.py"

TARGETS = {
    "spec": Target(
        "sdca_pegasos/experiments/spec.py",
        ("tests/test_properties.py", "tests/test_experiments.py", INVARIANTS),
        select="key or refused or frozen or digest or rerun or changed_definition or catalogue",
    ),
    "optima": Target(
        "sdca_pegasos/experiments/optima.py",
        ("tests/test_optima.py", "tests/test_experiments.py", INVARIANTS),
        select="optim or certified",  # all of test_optima, the optima tests of the engine
    ),
    "runner": Target(
        "sdca_pegasos/experiments/runner.py",
        ("tests/test_experiments.py", INVARIANTS),
        # the whole file takes minutes (a kill -9, a dask cluster, every worker count)
        select="rows_schema or rerun or changed_definition or damage or missing_report "
        "or keeps_the_key or metric_time or resume or current or stale or sidecar_wall "
        "or longest_first or one_pool",
    ),
    "scorecard": Target(
        "sdca_pegasos/figures/scorecard.py",
        ("tests/test_scorecard.py", "tests/test_compare_verdicts.py", "tests/test_verdict*.py"),
    ),
    # the claim row and its evaluator, and the claims of ``python -m sdca_pegasos.compare``: the
    # same rules
    "claims": Target(
        "sdca_pegasos/figures/claims.py",
        ("tests/test_scorecard.py", "tests/test_compare_verdicts.py", "tests/test_verdict*.py"),
    ),
    "any_data": Target(
        "sdca_pegasos/figures/any_data.py",
        ("tests/test_compare_verdicts.py", "tests/test_verdict*.py"),
    ),
    # compare's verdicts are the scorecard's rules applied to the user's runs: its own code
    # is the claims section that selects and words them
    "compare": Target(
        "sdca_pegasos/compare/outputs.py",
        ("tests/test_compare_verdicts.py", "tests/test_compare.py", "tests/test_verdict*.py"),
        functions=("claims_of", "claims_section"),
        select="not wine and not ctrl_c and not sparse_file and not bad_",
    ),
    # what compare refuses before DIR is written: the split, the mini-batches, and a refusal
    # that names every fix at once (a new user's first hour)
    "compare_refusals": Target(
        "sdca_pegasos/compare/problem.py",
        ("tests/test_compare.py",),
        functions=("check_batches", "_batch_refusal", "_split"),
        select="too_small_to_split or too_few_samples or bad_option",
    ),
    "objectives": Target(
        "sdca_pegasos/solvers/core/objectives.py",
        ("tests/test_properties.py", "tests/test_exact.py", "tests/test_sdca.py", INVARIANTS),
        select="duality or dual_never or exact_optimum or certificate or compensated "
        "or reported_gap or certified or gap",
        # the objectives the certificate bounds (not the passes' arithmetic, which the
        # dense-vs-CSR and monitoring tests guard)
        functions=("primal", "dual", "_dual_value", "monitor", "duality_gap"),
    ),
    # the certificate and the compensated sums (re-exported by solvers.objectives)
    "certificate": Target(
        "sdca_pegasos/solvers/core/compensated.py",
        ("tests/test_properties.py", "tests/test_exact.py", "tests/test_sdca.py", INVARIANTS),
        select="duality or dual_never or exact_optimum or certificate or compensated "
        "or reported_gap or certified or gap",
        functions=(
            "_two_sum",
            "_dot2",
            "_certificate",
            "_exact_dual_weights",
            "_exact_margins",
            "_sq_norm",
            "_dot2_sq_norm",
            "_rounding_allowance",
            "certificate",
        ),
    ),
    # the dual box check every dual value and certificate goes through
    "passes": Target(
        "sdca_pegasos/solvers/core/passes.py",
        ("tests/test_properties.py", "tests/test_exact.py", "tests/test_sdca.py", INVARIANTS),
        select="duality or dual_never or certificate or infeasible or gap",
        functions=("feasible",),
    ),
    "exact": Target(
        "sdca_pegasos/solvers/exact/engine.py",
        ("tests/test_exact.py", "tests/test_exact_estimator.py", INVARIANTS),
        # the whole of both files takes ~2.5 min: the tests of the flags, the chooser, the
        # crossover's refinements, the budget and the arguments
        select="choose_method or certified or crossover or memory or tol_between or budget "
        "or bad_ or weight_zero or weak_duality or engines_certified",
        # its flags: the certified flag, the result record
        functions=(
            "ExactResult",
            "solve_exact",
            "ExactSVMClassifier._fit_binary",
        ),
    ),
    # the exact engine's chooser: the method choice from the shape
    "exact_choice": Target(
        "sdca_pegasos/solvers/exact/choice.py",
        ("tests/test_exact.py", "tests/test_exact_estimator.py", INVARIANTS),
        select="choose_method or memory or engines_certified",
        functions=("ipm_costs", "choose_method"),
    ),
    # the one fit loop's stop: the check schedule, the stop test, the tol reading's warning
    "loop": Target(
        "sdca_pegasos/solvers/driver/loop.py",
        ("tests/test_driver.py", "tests/test_tol_gap.py"),
        functions=("CheckSchedule.due", "CheckSchedule.checked", "relative_reading", "run"),
    ),
    "base": Target(
        "sdca_pegasos/solvers/driver/estimator.py",
        (
            "tests/test_bad_inputs.py",
            "tests/test_sdca.py",
            INVARIANTS,
        ),
        # the driver's own behaviour (the whole of these files takes ~5 min per mutant)
        select="bad or callback or reported_gap or tol_zero or same_seed or coef_shape or stops "
        "or durations or class_and_sample",
    ),
    # the driver's rooms (split out of _base.py): what a binary fit takes and returns, and
    # the loop's rules (when the exact gap is due, what a callback's answer means)
    "problem": Target(
        "sdca_pegasos/solvers/driver/problem.py",
        ("tests/test_sdca_shrinking.py", "tests/test_bad_inputs.py", "tests/test_sdca.py"),
        select="gap_due or callback or stops or bad or durations or samples_seen",
    ),
    # labels, class and sample weights, warm starts
    "targets": Target(
        "sdca_pegasos/solvers/driver/targets.py",
        ("tests/test_bad_inputs.py", "tests/test_weights.py", "tests/test_defaults.py"),
        select="label or warm_start or class_weight or bad_sample_weight or weight_zero "
        "or weights_of_one or weights_that or one_vs_rest or two_classes or partial_fit_rules "
        "or auto_with_sample_weights",
    ),
    # λ, the overflow checks, and max |X| with the finite check (dense_max_abs)
    "scales": Target(
        "sdca_pegasos/solvers/driver/scales.py",
        ("tests/test_bad_inputs.py", "tests/test_defaults.py"),
        select="scale or overflowing or row_norms or smallest_lmbd or lmbd_accepts or auto "
        "or check_lmbd or max_abs or non_finite_entry",
    ),
}

#: The order of a full run: the small modules first.
ORDER = (
    "spec",
    "optima",
    "runner",
    "scorecard",
    "claims",
    "any_data",
    "compare",
    "compare_refusals",
    "objectives",
    "certificate",
    "passes",
    "exact",
    "exact_choice",
    "scales",
    "problem",
    "targets",
    "loop",
    "base",
)

ENV = {
    "NUMBA_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


# ------------------------------------------------------------------ the scratch tree
def copy_tree() -> None:
    """``output/mutation/tree``: a fresh copy of every tracked or untracked, non-ignored file
    (compiled-kernel caches are kept between runs: a copy only refreshes sources)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        src, dst = REPO / rel, TREE / rel
        if not src.is_file():
            continue  # deleted but still in the index
        dst.parent.mkdir(parents=True, exist_ok=True)
        if not dst.exists() or dst.read_bytes() != src.read_bytes():
            shutil.copy2(src, dst)
    raw = REPO / "data" / "raw"  # datasets: linked, never copied
    if raw.is_dir() and not (TREE / "data" / "raw").exists():
        (TREE / "data").mkdir(parents=True, exist_ok=True)  # a plain folder, not a package
        (TREE / "data" / "raw").symlink_to(raw)


def test_command(target: Target) -> str:
    # in the order given, the quickest and most pointed first: with -x a killed mutant stops
    # at its first failure, and most are killed by the first file
    found = [str(p.relative_to(TREE)) for g in target.tests for p in sorted(TREE.glob(g))]
    files = list(dict.fromkeys(found))
    if not files:
        raise SystemExit(f"{target.path}: none of its tests {target.tests} exists")
    select = f" -k '{target.select}'" if target.select else ""
    return f"{sys.executable} -m pytest -x -q -p no:cacheprovider{select} {' '.join(files)}"


def environment() -> dict:
    env = {**os.environ, **ENV, "PYTHONPATH": str(TREE)}
    env.setdefault("DATA_MIRROR", "/work/shared/data")
    return env


# ------------------------------------------------------------------ one module
def line_ranges(path: Path, functions) -> list[tuple[int, int]]:
    """First and last lines of the named definitions (``name`` or ``Class.method``)."""
    tree = ast.parse(path.read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        if isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{node.name}.{sub.name}"] = sub
    missing = set(functions) - set(found)
    if missing:
        raise SystemExit(f"{path}: no definition {sorted(missing)}: update tools/mutation.py")
    return [(found[f].lineno, found[f].end_lineno) for f in functions]


def annotation_spans(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions of every annotation: with ``from __future__ import
    annotations`` they are strings never evaluated, so a mutant there (``float | str`` ->
    ``float ^ str``) is equivalent by construction and is not run."""
    spans = []
    for node in ast.walk(ast.parse(path.read_text())):
        notes = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            notes.append(node.returns)
            a = node.args
            notes += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            notes += [x.annotation for x in (a.vararg, a.kwarg) if x is not None]
        elif isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
        spans += [
            ((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset))
            for n in notes
            if n is not None
        ]
    return spans


def run_module(name: str, args) -> dict:
    target = TARGETS[name]
    slug = name
    config, db_path = OUT / f"{slug}.toml", OUT / f"{slug}.sqlite"
    command = test_command(target)
    env = environment()

    start = time.perf_counter()
    base = subprocess.run(
        command, shell=True, cwd=TREE, env=env, capture_output=True, text=True, check=False
    )
    baseline = time.perf_counter() - start
    if base.returncode != 0:
        print(base.stdout[-3000:], base.stderr[-3000:], sep="\n")
        raise SystemExit(f"{name}: the unmutated tests fail ({command}): fix them first")
    timeout = args.timeout or max(30.0, 3.0 * baseline)
    config.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{target.path}"\n'
        f"timeout = {timeout:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n"
        "\n[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )
    db_path.unlink(missing_ok=True)
    cosmic = str(Path(sys.executable).with_name("cosmic-ray"))
    subprocess.run([cosmic, "init", str(config), str(db_path)], cwd=TREE, env=env, check=True)

    # restrict to the named definitions, then a deterministic sample
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        items = sorted(
            db.pending_work_items,
            key=lambda w: (
                tuple(w.mutations[0].start_pos),
                w.mutations[0].operator_name,
                w.mutations[0].occurrence,
            ),
        )
        total = len(items)
        if target.functions:
            ranges = line_ranges(TREE / target.path, target.functions)
            items = [
                w for w in items if any(a <= w.mutations[0].start_pos[0] <= b for a, b in ranges)
            ]
        spans = annotation_spans(TREE / target.path)
        items = [
            w for w in items if not any(a <= tuple(w.mutations[0].start_pos) < b for a, b in spans)
        ]
        eligible = len(items)
        chosen = items
        if args.max_mutants and eligible > args.max_mutants:
            chosen = random.Random(args.seed).sample(items, args.max_mutants)
        keep = {w.job_id for w in chosen}
        skip = [w.job_id for w in db.pending_work_items if w.job_id not in keep]
        db.set_multiple_results(skip, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))

    where = f" in {', '.join(target.functions)}" if target.functions else ""
    where += " outside annotations"
    sampled = f", a sample of {len(chosen)} (seed {args.seed})" if len(chosen) < eligible else ""
    print(
        f"\n== {target.path}: {total} mutants, {eligible}{where}{sampled}; "
        f"baseline {baseline:.1f} s, timeout {timeout:.0f} s per mutant\n   {command}",
        flush=True,
    )
    start = time.perf_counter()
    subprocess.run([cosmic, "exec", str(config), str(db_path)], cwd=TREE, env=env, check=True)
    summary = summarise(name, db_path)
    summary.update(
        total=total,
        eligible=eligible,
        sampled=len(chosen),
        seed=args.seed,
        functions=target.functions,
        command=command,
        baseline_s=round(baseline, 1),
        seconds=round(time.perf_counter() - start),
        date=time.strftime("%Y-%m-%d"),
    )
    (OUT / f"{slug}.json").write_text(json.dumps(summary, indent=1))
    return summary


def summarise(name: str, db_path: Path) -> dict:
    """Counts and survivors of one session."""
    killed = timeouts = incompetent = 0
    survivors = []
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            m = item.mutations[0]
            if result.worker_outcome != WorkerOutcome.NORMAL:
                incompetent += 1
            elif result.test_outcome == TestOutcome.SURVIVED:
                survivors.append(
                    {
                        "where": f"{m.module_path}:{m.start_pos[0]}",
                        "operator": m.operator_name.removeprefix("core/"),
                        "definition": m.definition_name,
                        "diff": result.diff or "",
                    }
                )
            elif result.test_outcome == TestOutcome.KILLED:
                killed += 1
                timeouts += result.output == "timeout"
            else:
                incompetent += 1
    survivors.sort(key=lambda s: (int(s["where"].rsplit(":", 1)[1]), s["operator"]))
    return {
        "module": TARGETS[name].path,
        "killed": killed,
        "survived": len(survivors),
        "timeouts": timeouts,
        "incompetent": incompetent,
        "survivors": survivors,
    }


# ------------------------------------------------------------------ report
def diff_lines(diff: str) -> list[str]:
    """The changed lines of a unified diff."""
    return [
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def report(names) -> None:
    rows = []
    for name in names:
        path = OUT / f"{name}.json"
        if path.exists():
            rows.append(json.loads(path.read_text()))
    if not rows:
        print("no mutation session yet: run `make mutation`")
        return
    print("\nMutation score per module (killed / (killed + survived)):\n")
    print(f"  {'module':<24} {'killed':>7} {'survived':>8} {'score':>7}  mutants run")
    for r in rows:
        n = r["killed"] + r["survived"]
        score = f"{100 * r['killed'] / n:.0f} %" if n else "–"
        run = f"{r['sampled']} of {r['eligible']}"
        if r["functions"]:
            run += " (listed functions)"
        if r["sampled"] < r["eligible"]:
            run += f", sampled, seed {r['seed']}"
        extra = f"; {r['timeouts']} by timeout" if r["timeouts"] else ""
        extra += f"; {r['incompetent']} incompetent" if r["incompetent"] else ""
        print(
            f"  {r['module']:<24} {r['killed']:>7} {r['survived']:>8} {score:>7}  {run}{extra}"
            f"  [{r['date']}, {r['seconds']} s]"
        )
    for r in rows:
        if not r["survivors"]:
            continue
        print(f"\nSurvivors in {r['module']}:")
        for s in r["survivors"]:
            print(f"  {s['where']}  {s['operator']}  ({s['definition']})")
            for line in diff_lines(s["diff"]):
                print(f"      {line.strip()[:110]}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help=f"any of {', '.join(ORDER)} (default: all)")
    parser.add_argument(
        "--max-mutants",
        type=int,
        default=int(os.environ.get("MUTATION_MAX", "0")) or None,
        help="run a deterministic sample of this many mutants per module (default: all)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample")
    parser.add_argument("--timeout", type=float, help="seconds per mutant (3 x baseline)")
    parser.add_argument("--list", action="store_true", help="the modules and their tests")
    parser.add_argument("--report", action="store_true", help="only print stored results")
    args = parser.parse_args(argv)
    names = args.modules or list(ORDER)
    unknown = set(names) - set(ORDER)
    if unknown:
        parser.error(f"unknown module {sorted(unknown)}; expected some of {', '.join(ORDER)}")
    if args.list:
        for name in names:
            t = TARGETS[name]
            where = f" [{', '.join(t.functions)}]" if t.functions else ""
            print(f"{name:<11} {t.path}{where}\n            tests: {' '.join(t.tests)}")
        return
    if not args.report:
        OUT.mkdir(parents=True, exist_ok=True)
        copy_tree()
        for name in names:
            run_module(name, args)
    report(names)


if __name__ == "__main__":
    main()
