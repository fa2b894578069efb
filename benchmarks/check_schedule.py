"""The fit loop's gap-check schedule against an exact gap after every epoch: plain SDCA on skin.

Plain SDCA (``shrinking=False``) has no free KKT statistic, so before the one fit loop it
computed the exact duality gap after every epoch (:func:`sdca_pegasos.solvers.core.objectives.
duality_gap`, validating its arrays at each call). The loop's :class:`~sdca_pegasos.solvers.
driver.loop.CheckSchedule` computes it after the first two epochs and where the extrapolated
log-gap predicts it near ``tol``, through an :class:`~sdca_pegasos.solvers.core.monitoring.
EpochMetrics` validated once per fit. Both fit ``SDCAClassifier(shrinking=False, finish=False,
tol=1e-5)`` at λ = 1/n on skin (every row, standardised), one thread:

- **schedule**: the fit as it is;
- **every epoch**: ``tol=0`` with a callback that computes ``objectives.duality_gap`` after
  every epoch and stops at the first at most ``tol``: the old loop's checks and stop.

They run in alternated pairs (``--pairs``); each fit's wall seconds, CPU seconds, epochs,
gap computations and final gap go to the record, and ``--readme docs/measurements.md``
regenerates the sentence there from it.

    python benchmarks/check_schedule.py --out benchmarks/records
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

if __name__ == "__main__":  # this checkout's packages first
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import numpy as np

from sdca_pegasos.experiments import reports

MARKERS = (
    "<!-- check-schedule:begin (benchmarks/check_schedule.py --readme) -->",
    "<!-- check-schedule:end -->",
)
README_RECORD = "benchmarks/records/check_schedule.json"
TOL = 1e-5


def skin():
    from sdca_pegasos import data

    ds = data.load("skin", test_size=None)
    return ds.X_train, ds.y_train


def simulated():
    """A small stand-in for the tests (seconds, not minutes)."""
    from sdca_pegasos import data

    ds = data.load("simulated", seed=0)
    return ds.X_train, ds.y_train


PROBLEMS = {"skin": skin, "simulated": simulated}


def schedule_fit(X, y) -> dict:
    """The fit as the loop runs it; its gap computations counted."""
    from sdca_pegasos.solvers import SDCAClassifier
    from sdca_pegasos.solvers.core.monitoring import EpochMetrics

    calls = [0]
    real = EpochMetrics.__call__

    def counted(self, *args, **kwargs):
        calls[0] += 1
        return real(self, *args, **kwargs)

    est = SDCAClassifier(
        1.0 / X.shape[0],
        shrinking=False,
        finish=False,
        tol=TOL,
        tol_gap="absolute",
        random_state=0,
    )
    EpochMetrics.__call__ = counted
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        est.fit(X, y)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        EpochMetrics.__call__ = real
    return {"wall": wall, "cpu": cpu, "epochs": int(est.n_epochs_), "gaps": calls[0],
            "gap": float(est.duality_gap_)}  # fmt: skip


def every_epoch_fit(X, y) -> dict:
    """``tol=0`` and a callback that computes the exact gap after every epoch with
    ``objectives.duality_gap`` and stops at the first at most TOL: the old loop."""
    from sdca_pegasos.solvers import SDCAClassifier
    from sdca_pegasos.solvers.core import objectives

    lmbd, gaps = 1.0 / X.shape[0], []
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)

    def check(info):
        gap = objectives.duality_gap(
            X, y_pm, info.w, info.dual_coef, lmbd, est.loss_function, info.bias
        )[2]
        gaps.append(gap)
        return bool(gap <= TOL)

    est = SDCAClassifier(lmbd, shrinking=False, finish=False, tol=0, random_state=0,
                         callback=check)  # fmt: skip
    wall, cpu = time.perf_counter(), time.process_time()
    est.fit(X, y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "epochs": int(est.n_epochs_), "gaps": len(gaps),
            "gap": float(gaps[-1])}  # fmt: skip


def measure(problem: str, pairs: int) -> list[dict]:
    from threadpoolctl import threadpool_limits

    from sdca_pegasos.solvers import SDCAClassifier

    X, y = PROBLEMS[problem]()
    out = []
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("error")  # an unconverged fit is not a measurement
        SDCAClassifier(shrinking=False, finish=False, tol=0, max_epochs=2).fit(X, y)  # compile
        for k in range(pairs):
            first, second = (schedule_fit, every_epoch_fit)[:: 1 if k % 2 == 0 else -1]
            runs = {f.__name__: f(X, y) for f in (first, second)}
            out.append({"schedule": runs["schedule_fit"], "every epoch": runs["every_epoch_fit"]})
            said = {
                name: {key: round(v, 4) for key, v in r.items()} for name, r in out[-1].items()
            }
            print(k, said, flush=True)
    return out


def readme_block(record: dict) -> str:
    """The sentence of docs/measurements.md, every number from the record."""
    pairs = record["pairs"]
    ratios = [p["schedule"]["wall"] / p["every epoch"]["wall"] for p in pairs]
    s, e = pairs[0]["schedule"], pairs[0]["every epoch"]
    same = all(p["schedule"]["epochs"] == p["every epoch"]["epochs"] == s["epochs"] for p in pairs)
    epochs = (
        f"both stopped after {s['epochs']} epochs"
        if same
        else "the epochs differed: "
        + ", ".join(f"{p['schedule']['epochs']}/{p['every epoch']['epochs']}" for p in pairs)
    )
    return (
        reports.measured_record(record, "python benchmarks/check_schedule.py")
        + f": plain SDCA on {record['problem']} at λ = 1/n, tol = {record['tol']:g}, one "
        f"thread, {len(pairs)} alternated pairs: {epochs} (final gaps {s['gap']:.3g} and "
        f"{e['gap']:.3g}), the schedule computing the gap {s['gaps']} times against "
        f"{e['gaps']}; fit wall schedule / every epoch {np.median(ratios):.2f} (median; "
        f"{min(ratios):.2f}–{max(ratios):.2f})."
    )


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", choices=sorted(PROBLEMS), default="skin")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--out", help="folder for the JSON record (check_schedule.json)")
    reports.readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if reports.readme_requested(args, MARKERS, readme_block):
        return {}
    record = {
        **reports.record_head("check_schedule"),
        "command": " ".join(["python benchmarks/check_schedule.py", *(argv or sys.argv[1:])]),
        "problem": args.problem,
        "tol": TOL,
        "pairs": measure(args.problem, args.pairs),
    }
    record["load_end"] = os.getloadavg()[0]
    print(readme_block(record))
    if args.out:
        reports.write_record(args.out, "check_schedule.json", record)
    return record


if __name__ == "__main__":
    main()
