"""Where the CPU of `make reproduce`'s experiment stage goes: a profile of its runs.

For every experiment of the catalogue (whose dataset is present) and each of its configurations,
``--seeds`` runs (fewer where the configuration has fewer) are measured one after the other, in
this process, on one thread, as the stage's workers make them
(:func:`sdca_pegasos.experiments.runner.run_one`), after one unmeasured run of the first
configuration of each solver and dataset (JIT, the dataset's load). Each run's CPU seconds are
split into

- **timed**: the update loops the report times (its last ``cpu_time_cum``);
- **monitoring**: the metrics of the recorded epochs (the report's rows: primal, dual, gap and
  errors): :class:`sdca_pegasos.solvers.core.monitoring.EpochMetrics`, the per-epoch pass over each
  split, and :meth:`sdca_pegasos.experiments.metrics.Recorder.evaluate`, the stored epochs'
  evaluation in bulk (:mod:`sdca_pegasos.experiments.bulk`);
- **other**: the rest of the run (the estimator's driver, validation, the callback, the
  report's frame).

Each part is then scaled to the catalogue's seed counts: the CPU the stage spends on its
runs, by part, against the timed CPU that the issue's floor counts (`make reproduce` also
computes the certified optima, not profiled here). ``--out DIR`` writes the record
``experiment_cost.json``; ``--readme FILE`` rewrites the block of FILE from ``--record``.

    python benchmarks/experiment_cost.py --seeds 2 --out benchmarks/records
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
import os
import time

from sdca_pegasos.experiments import reports

MARKERS = (
    "<!-- experiment-cost:begin (benchmarks/experiment_cost.py --readme) -->",
    "<!-- experiment-cost:end -->",
)
README_RECORD = "benchmarks/records/experiment_cost.json"
PARTS = ("timed", "monitoring", "other")


class Stopwatch:
    """CPU seconds spent in ``owner.name`` (a method of a class, a function of a module),
    summed while installed (``with Stopwatch(owner, name) as watch: ...; watch.seconds``);
    the original is put back on exit."""

    def __init__(self, owner, name: str):
        self.owner, self.name, self.seconds = owner, name, 0.0
        self.original = getattr(owner, name)

    def __enter__(self):
        original, watch = self.original, self

        def timed(*args, **kwargs):
            start = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                watch.seconds += time.process_time() - start

        setattr(self.owner, self.name, timed)
        return self

    def __exit__(self, *exc):
        setattr(self.owner, self.name, self.original)


def profile_run(task) -> dict:
    """One run's CPU seconds by part (:data:`PARTS`) and its recorded rows."""
    from sdca_pegasos.experiments.metrics import Recorder
    from sdca_pegasos.experiments.runner import run_one
    from sdca_pegasos.solvers.core.monitoring import EpochMetrics

    with Stopwatch(EpochMetrics, "__call__") as epochs, Stopwatch(Recorder, "evaluate") as bulk:
        start = time.process_time()
        result = run_one(task)
        total = time.process_time() - start
    timed = float(result.rows["cpu_time_cum"].iloc[-1])
    monitoring = epochs.seconds + bulk.seconds
    return {
        "timed": timed,
        "monitoring": monitoring,
        "other": total - timed - monitoring,
        "rows": len(result.rows),
    }


def profile(names, seeds: int) -> dict:
    """Per experiment and configuration: the mean of ``seeds`` measured runs, by part, and
    the catalogue's number of runs."""
    from sdca_pegasos import data
    from sdca_pegasos.experiments.catalogue import CATALOGUE
    from sdca_pegasos.experiments.runner import RunTask, run_one

    out, warm = {}, set()
    for name in names:
        exp = CATALOGUE[name]
        if not data.available(exp.dataset):
            print(f"{name}: dataset {exp.dataset} missing, skipped", flush=True)
            continue
        configs = {}
        for cfg in exp.configs:
            key = (exp.dataset, repr(exp.dataset_options), cfg.solver)
            if key not in warm:  # JIT and the dataset's load, once per solver and data
                run_one(RunTask(exp, cfg, 0))
                warm.add(key)
            count = min(seeds, exp.config_seeds(cfg))
            runs = [profile_run(RunTask(exp, cfg, s)) for s in range(count)]
            mean = {part: sum(r[part] for r in runs) / len(runs) for part in (*PARTS, "rows")}
            configs[cfg.label] = {**mean, "runs": exp.config_seeds(cfg)}
        stage = {p: sum(c[p] * c["runs"] for c in configs.values()) for p in PARTS}
        out[name] = {"configs": configs, "stage": stage}
        print(
            f"{name:<28} "
            + "  ".join(f"{p} {stage[p]:8.1f} s" for p in PARTS)
            + f"  ({time.strftime('%H:%M:%S')})",
            flush=True,
        )
    return out


def readme_block(record: dict) -> str:
    """The table of the stage's CPU by experiment and part, every number from the record."""
    rows, totals = [], dict.fromkeys(PARTS, 0.0)
    for name, exp in record["experiments"].items():
        stage = exp["stage"]
        total = sum(stage.values())
        for p in PARTS:
            totals[p] += stage[p]
        cells = " | ".join(f"{stage[p]:.0f}" for p in PARTS)
        rows.append(f"| {name} | {cells} | {total:.0f} | {total / stage['timed']:.1f}× |")
    grand = sum(totals.values())
    cells = " | ".join(f"**{totals[p]:.0f}**" for p in PARTS)
    rows.append(f"| **all** | {cells} | **{grand:.0f}** | **{grand / totals['timed']:.1f}×** |")
    share = {p: totals[p] / grand for p in PARTS}
    cores = record["machine"]["cpus"]
    head = reports.measured_record(record)
    return (
        f"{head}: CPU seconds of the experiment stage's runs at the catalogue's seed counts, "
        f"from up to {record['seeds']} measured runs per configuration (after one of each "
        "solver that compiles and loads), one thread, by part: the timed update loops, the "
        "monitoring of the recorded epochs (primal, dual, gap, train and test errors: "
        "`Recorder.evaluate`, the stored epochs in bulk, and `EpochMetrics` where a stop "
        "rule reads an epoch's gap as it runs), and the rest of each run (driver, callback, "
        "report frame):\n\n"
        "| experiment | timed | monitoring | other | total | total / timed |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        f"Monitoring is {share['monitoring']:.0%} of the runs' CPU and the timed loops "
        f"{share['timed']:.0%}; with {cores} cores busy throughout, the runs alone would "
        f"take about {grand / cores:.0f} s of wall (an estimate from the measured runs), "
        f"{grand / totals['timed']:.1f}× the {totals['timed'] / cores:.0f} s of the timed "
        "loops alone. The monitoring alone is "
        f"{totals['monitoring'] / totals['timed']:.2f}× the timed loops: were the rest of "
        "every run free, the runs' CPU would still be "
        f"{(totals['timed'] + totals['monitoring']) / totals['timed']:.2f}× them."
    )


def main(argv=None) -> dict | None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="measured runs per config")
    parser.add_argument("--only", nargs="+", help="these experiments (default: all)")
    parser.add_argument("--out", help="folder for the record (experiment_cost.json)")
    reports.readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if reports.readme_requested(args, MARKERS, readme_block):
        return None
    from sdca_pegasos.experiments.catalogue import CATALOGUE

    command = "python benchmarks/experiment_cost.py " + " ".join(argv or sys.argv[1:])
    record = {
        **reports.record_head("experiment_cost"),
        "command": command.strip(),
        "seeds": args.seeds,
    }
    record["experiments"] = profile(args.only or list(CATALOGUE), args.seeds)
    record["load_end"] = os.getloadavg()[0]
    if args.out:
        reports.write_record(args.out, "experiment_cost.json", record)
    print(readme_block(record))
    return record


if __name__ == "__main__":
    main()
