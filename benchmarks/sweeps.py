"""Refits with growing budgets: one solver's sweeps on one problem, in long format.

- Each solver is refitted from scratch with growing budgets, along two knobs where it has
  them: iteration counts doubling (``max_epochs`` for ours, ``max_iter`` for the peers) at
  the smallest tolerance it accepts, and tolerances shrinking tenfold at an iteration cap
  (the exact engine has only its relative-gap tolerance: 1e-2, 1e-4, 1e-6). A solver's
  time to ε is the better of the two (see :class:`benchmarks.contenders.Solver`).
- Everything a fit touches is compiled or loaded first, on a tiny slice of the same dtype
  and layout (:func:`warm`). A fit's time is reported as the running maximum over the
  smaller budgets of its sweep (a bigger budget does at least the work of a smaller one;
  this removes timer noise on tiny fits and makes the time to ε monotone in ε).
- After each fit, outside the clock, :func:`benchmarks.certify.evaluate` bounds P(w) of the
  returned coefficients from above, and D(α) of the returned dual point from below when the
  solver exposes one (ours, ReHLine, lightning), rounding included; both tighten the bounds
  on P* (:mod:`benchmarks.certify`).
- A sweep stops when it reaches the smallest target, when its next fit would exceed its CPU
  budget, or when it stalls (three equal objectives in a row, or no 5 % progress while the
  budget grew 8×).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from .certify import TARGETS, Bounds, certify, evaluate, store_bounds
from .contenders import Solver
from .problems import Problem

#: Hard cap on any budget grid (epochs or iterations).
MAX_BUDGET = 2**24


def integer_grid(stop: int = MAX_BUDGET) -> Iterator[int]:
    """1, 2, 4, 8, ...: iteration counts doubling."""
    b = 1
    while b <= stop:
        yield b
        b *= 2


def warm(solver: Solver, X, y, lmbd: float) -> None:
    """Compile / load everything a fit touches (Numba, lazy imports) on a tiny slice of the
    same dtype and layout, so that no timed fit pays for it."""
    idx = np.concatenate([np.flatnonzero(y > 0)[:16], np.flatnonzero(y < 0)[:16]])
    Xs, ys = X[idx], y[idx]
    for knob in solver.knobs:
        for max_iter, tol in ((1, 1e-1), (2, 1e-2)):
            if knob == "iter":
                solver.fit(Xs, ys, lmbd, max_iter, solver.iter_tol, 1.0)
            else:
                solver.fit(Xs, ys, lmbd, solver.tol_cap, tol, 1.0)


def sweep(
    solver: Solver,
    knob: str,
    X,
    y,
    lmbd: float,
    bounds: Bounds,
    budget: float,
    X_eval,
    tol_cap: int,
) -> tuple[list[dict], str]:
    """Refit ``solver`` from scratch with growing budgets along ``knob``, until it reaches
    the smallest target, stalls, or its next fit would not fit in ``budget`` CPU seconds.
    Returns one row per fit and the reason the sweep stopped."""
    rows: list[dict] = []
    spent = 0.0
    previous: tuple[float, float] | None = None
    best_at: list[tuple[float, float]] = []  # (budget, best primal so far) for stall tests
    reason = "grid exhausted"
    grid = integer_grid() if knob == "iter" else iter(solver.tols)
    for b in grid:
        if previous is not None:  # the next fit's cost: iterations scale it, tolerances
            last_b, last_cpu = previous  # by the growth seen so far (1.2× to 4×)
            if knob == "iter":
                ratio = b / last_b
            else:
                ratio = (
                    min(4.0, max(1.2, last_cpu / rows[-2]["cpu_seconds"]))
                    if len(rows) > 1
                    else 1.5
                )
            if spent + last_cpu * ratio > budget:
                reason = "budget"
                break
        if knob == "iter":
            max_iter, tol = int(b), solver.iter_tol
        else:
            max_iter, tol = tol_cap, float(b)
        fit = solver.fit(X, y, lmbd, max_iter, tol, max(budget - spent, 0.1))
        spent += fit.cpu
        primal, dual = evaluate(X_eval, y, fit.coef, fit.dual_coef, lmbd)
        bounds.add(primal, dual, solver.name)
        rows.append(
            {
                "knob": knob,
                "budget_name": solver.iter_name if knob == "iter" else "tol",
                "budget": float(b),
                "max_iter": max_iter,
                "tol": tol,
                "cpu_seconds": fit.cpu,
                "primal": primal,
                "dual": dual,
            }
        )
        previous = (float(b), fit.cpu)
        best_at.append((float(b), min(r["primal"] for r in rows)))
        if bounds.rel(primal) <= min(TARGETS):
            reason = "reached"
            break
        if knob == "iter" and len(rows) >= 3:
            p = [r["primal"] for r in rows[-3:]]
            if max(p) - min(p) <= 1e-13 * abs(p[-1]):
                reason = "stalled"  # the solver's own stopping test ends every fit alike
                break
        if knob == "iter" and b >= 64:  # early iterates of some solvers go up and down
            old = [p for bb, p in best_at if bb <= b / 8]
            if old and bounds.rel(best_at[-1][1]) > 0.95 * bounds.rel(old[-1]):
                reason = "stalled"  # no 5 % progress while the budget grew 8×
                break
    return rows, reason


def run_problem(
    problem: Problem,
    solvers: list[Solver],
    budget: float,
    repeats: int,
    cert_cpu: float,
    cache_dir: Path | None,
    log: Callable[[str], None],
) -> tuple[pd.DataFrame, Bounds, dict]:
    """Certify P*, then sweep every solver along each of its knobs, ``repeats`` times, with
    ``budget`` × the problem's scale CPU seconds per sweep. Returns the long-format rows (one
    per fit), the final bounds and each sweep's stop reason."""
    X, y, lmbd = problem.X, problem.y, problem.lmbd
    budget = budget * problem.spec.budget_scale
    start = time.process_time()
    bounds, cache_path = certify(problem, cert_cpu, cache_dir)
    log(
        f"  P* bounds from {bounds.certifier}: [{bounds.lower:.12g}, {bounds.upper:.12g}] "
        f"(relative gap {bounds.gap:.1e}, {time.process_time() - start:.1f} s CPU)"
    )
    X64 = X if X.dtype == np.float64 else X.astype(np.float64)
    records: list[dict] = []
    reasons: dict[str, str] = {}
    for solver in solvers:
        if hasattr(X, "indptr") and not solver.sparse:
            reasons[solver.name] = "skipped: no CSR input"
            continue
        Xs = X64 if solver.float64_only else X
        warm(solver, Xs, y, lmbd)
        for rep in range(repeats):
            cap = solver.tol_cap
            for knob in solver.knobs:
                rows, reason = sweep(solver, knob, Xs, y, lmbd, bounds, budget, X, cap)
                if knob == "iter" and rows:  # a tolerance fit may cost ~2 iteration fits
                    cap = 2 * int(rows[-1]["budget"])
                reasons[f"{solver.name} [{knob}]"] = reason
                for r in rows:
                    records.append(
                        {
                            "solver": solver.name,
                            "family": solver.family,
                            "package": solver.package,
                            "version": solver.version,
                            "repetition": rep,
                            "input_dtype": str(Xs.dtype),
                            "stop_reason": reason,
                            **r,
                        }
                    )
                spent = sum(r["cpu_seconds"] for r in rows)
                best = min((bounds.rel(r["primal"]) for r in rows), default=math.nan)
                log(
                    f"  {solver.name:<36} {knob:>4} rep {rep}: {len(rows):2d} fits, "
                    f"{spent:6.2f} s CPU, best {best:8.1e}, stop: {reason}"
                )
    store_bounds(bounds, cache_path, cert_cpu)  # the sweeps' fits may have tightened them
    df = pd.DataFrame.from_records(records)
    df["problem"] = problem.spec.name
    df["title"] = problem.spec.title
    df["dataset"] = problem.spec.dataset or "synthetic"
    df["dataset_options"] = json.dumps(problem.spec.options, sort_keys=True)
    df["n_samples"], df["n_features"] = X.shape
    df["data_dtype"] = str(X.dtype)
    df["lmbd"] = lmbd
    df["pstar_lower"] = bounds.lower
    df["pstar_upper"] = bounds.upper
    df["pstar_gap_rel"] = bounds.gap
    df["rel_subopt"] = (df["primal"] - bounds.lower) / abs(bounds.lower)
    keys = ["solver", "knob", "repetition"]
    df["cpu_monotone"] = df.groupby(keys, sort=False)["cpu_seconds"].cummax()
    return df, bounds, reasons


#: Relative suboptimality the single fits of :func:`single_fits` are asked for.
SINGLE_TARGET = 1e-6


#: Seconds one single fit may take: CPU for ours (their ``max_cpu``), wall for a peer's,
#: whose child process is killed at it.
SINGLE_CAP = 120.0


def fit_capped(solver: Solver, X, y, lmbd: float, tol: float, cap: float):
    """``solver.fit`` in a forked child process (the parent's warmed state inherited), its
    result sent back; ``None`` when it has not returned after ``cap`` wall seconds (the child
    is then killed). An exception in the child is raised here as a RuntimeError naming it."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            send.send(("fit", solver.fit(X, y, lmbd, 1_000_000, tol, cap)))
        except Exception as exc:
            send.send(("error", f"{type(exc).__name__}: {exc}"))

    proc = ctx.Process(target=child, daemon=True)
    with warnings.catch_warnings():
        # Python ≥ 3.12 warns that fork() in a threaded process may deadlock the child; the
        # child here only runs the peer's fit and sends its result (a deadlock would be
        # killed at the cap like a slow fit)
        warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
        proc.start()
    send.close()  # the child's end only: a child that dies unannounced is an EOFError
    try:
        if not receive.poll(cap):
            return None
        kind, value = receive.recv()
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
    if kind == "error":
        raise RuntimeError(value)
    return value


def single_fits(
    problem: Problem, solvers: list[Solver], bounds: Bounds, log: Callable[[str], None]
) -> list[dict]:
    """One ``fit(X, y)`` per solver with the tolerance a user would set for a relative
    suboptimality of 1e-6, as its own documentation defines ``tol``: ours, the exact duality
    gap (absolute: 1e-6 × the certified lower bound of P*, so the stop guarantees it; the
    exact engine, the relative gap 1e-6); the peers, ``tol=1e-6`` in their own sense. The
    time is the fit's CPU time, the result its certified relative suboptimality."""
    X, y, lmbd = problem.X, problem.y, problem.lmbd
    X64 = X if X.dtype == np.float64 else X.astype(np.float64)
    rows = []
    for solver in solvers:
        if hasattr(X, "indptr") and not solver.sparse:
            continue
        ours = solver.family == "ours"
        if ours and solver.knobs == ("iter",):  # no stopping test of its own: no single fit
            continue
        relative = "exact" in solver.name.lower() or "ExactSVM" in solver.name
        tol = SINGLE_TARGET if (relative or not ours) else SINGLE_TARGET * bounds.lower
        Xs = X64 if solver.float64_only else X
        warm(solver, Xs, y, lmbd)
        try:
            if ours:  # our estimators stop at max_cpu themselves
                fit = solver.fit(Xs, y, lmbd, 1_000_000, tol, SINGLE_CAP)
            else:  # a peer may ignore it (skglm ran > 12 min on skin): a child, killed
                fit = fit_capped(solver, Xs, y, lmbd, tol, SINGLE_CAP)
        except Exception as exc:
            log(f"  single fit {solver.name}: {type(exc).__name__}: {exc}")
            continue
        if fit is None:
            rows.append({"solver": solver.name, "family": solver.family, "tol": tol,
                         "cpu": None, "rel_subopt": None, "cap": SINGLE_CAP})  # fmt: skip
            log(f"  single fit {solver.name:<36} tol {tol:.1e}: not within {SINGLE_CAP:g} s")
            continue
        p, _ = evaluate(X, y, fit.coef, None, lmbd)
        rel = (p - bounds.lower) / bounds.lower
        rows.append({"solver": solver.name, "family": solver.family, "tol": tol,
                     "cpu": fit.cpu, "rel_subopt": rel})  # fmt: skip
        log(f"  single fit {solver.name:<36} tol {tol:.1e}: {fit.cpu:8.4f} s, {rel:.1e}")
    return rows
