"""SDCAClassifier's defaults, measured: epochs and CPU of a whole fit with and without shrinking
and the exact finish.

On each problem, ``SDCAClassifier(random_state=seed, **setting)`` with every other parameter at
its default (λ = 1/n, an intercept, ``tol=1e-5`` read as an absolute gap, this release's
default reading, spelled ``tol_gap="absolute"`` to keep its ``FutureWarning`` out,
``max_epochs=1000``) is fitted for seeds 0, 1
and 2 under three settings: ``shrinking=False`` (plain epochs), ``shrinking=True,
finish=False`` and ``shrinking=True, finish=True`` (what the default ``"auto"`` is on the CPU).
Each fit's epochs (the largest over the one-vs-rest classes), whether it reached ``tol`` and its
CPU seconds (``time.process_time`` around ``fit``, after one unmeasured fit of each setting that
compiles its kernels) go to the record; ``--readme docs/scikit-learn.md`` regenerates the table
and its sentence there from the record. Epochs are deterministic; the seconds are one thread's
(BLAS limited to one) and as quiet as the machine was (the load is recorded).

    python benchmarks/defaults.py --out benchmarks/records
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
    "<!-- bench-defaults:begin (benchmarks/defaults.py --readme) -->",
    "<!-- bench-defaults:end -->",
)
README_RECORD = "benchmarks/records/defaults.json"

#: The settings compared, by the name the table gives them.
SETTINGS = {
    "shrinking=False": {"shrinking": False, "finish": False},
    "shrinking=True, finish=False": {"shrinking": True, "finish": False},
    "shrinking=True, finish=True": {"shrinking": True, "finish": True},
}
SEEDS = (0, 1, 2)
#: SDCAClassifier's default max_epochs, where a fit that has not reached tol stops.
SDCA_MAX_EPOCHS = 1000


def _standardised(X):
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(X)


def problems(names=None) -> dict:
    """name -> (description, X, y) of the problems measured (``names``: a subset; skin only
    where its data are present)."""
    from sklearn.datasets import load_breast_cancer, load_digits, make_blobs

    from sdca_pegasos import data

    out = {}

    def add(name, describe, make):
        if names is None or name in names:
            X, y = make()
            out[name] = (describe, X, y)

    add("breast cancer", "breast cancer, standardised",
        lambda: (_standardised(load_breast_cancer(return_X_y=True)[0]),
                 load_breast_cancer(return_X_y=True)[1]))  # fmt: skip
    add("simulated", "simulated (`data.load(\"simulated\", seed=0)`)",
        lambda: (data.load("simulated", seed=0).X_train,
                 data.load("simulated", seed=0).y_train))  # fmt: skip

    def simulated_wide():
        ds = data.load("simulated", seed=1, n_samples=5000, n_features=50)
        return ds.X_train, ds.y_train

    add("simulated 5000 x 50", "simulated (`seed=1, n_samples=5000, n_features=50`)",
        simulated_wide)  # fmt: skip
    add("digits", "digits, standardised, 10 classes (one-vs-rest)",
        lambda: (_standardised(load_digits(return_X_y=True)[0]),
                 load_digits(return_X_y=True)[1]))  # fmt: skip

    def sparse():
        ds = data.load("sparse-synthetic")
        return ds.X_train, ds.y_train

    add("sparse-synthetic", 'sparse-synthetic CSR (`data.load("sparse-synthetic")`)', sparse)

    def weighted():
        # the training half of scikit-learn's check_class_weight_classifiers, as it is
        # (unscaled); its class weights are those fit_once passes
        from sklearn.model_selection import train_test_split

        X, y = make_blobs(centers=3, random_state=0, cluster_std=20)
        return train_test_split(X, y, test_size=0.5, random_state=0)[::2]

    add("class weights", "scikit-learn's class-weight check (`make_blobs(centers=3, "
        "cluster_std=20)`, its training half, weights 1000 / 1e-4 / 1e-4)", weighted)  # fmt: skip
    if (names is None or "skin" in names) and data.available("skin"):
        ds = data.load("skin", test_size=None)
        out["skin"] = ("skin, standardised, every row", ds.X_train, ds.y_train)
    return out


def fit_once(X, y, setting: dict, seed: int, name: str) -> dict:
    """One fit of the defaults but ``setting``: its epochs, convergence and CPU seconds."""
    from sklearn.exceptions import ConvergenceWarning

    from sdca_pegasos.solvers import SDCAClassifier

    weights = {0: 1000.0, 1: 1e-4, 2: 1e-4} if name == "class weights" else None
    est = SDCAClassifier(random_state=seed, class_weight=weights, tol_gap="absolute", **setting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # recorded: converged below
        t = time.process_time()
        est.fit(X, y)
        cpu = time.process_time() - t
    return {
        "epochs": int(np.max(est.n_epochs_)),
        "converged": bool(np.all(est.converged_)),
        "cpu": cpu,
    }


def measure(names=None) -> dict:
    from threadpoolctl import threadpool_limits

    out = {}
    with threadpool_limits(limits=1):
        for name, (describe, X, y) in problems(names).items():
            runs = {}
            for label, setting in SETTINGS.items():
                fit_once(X, y, {**setting, "max_epochs": 2, "tol": 0.0}, 0, name)  # compile
                runs[label] = [fit_once(X, y, setting, seed, name) for seed in SEEDS]
            out[name] = {"describe": describe, "shape": list(X.shape), "runs": runs}
            print(name, {k: [r["epochs"] for r in v] for k, v in runs.items()}, flush=True)
    return out


def _cell(runs: list[dict]) -> str:
    said = [str(r["epochs"]) + ("" if r["converged"] else " (not converged)") for r in runs]
    epochs = f"{said[0]} × {len(said)}" if len(set(said)) == 1 else ", ".join(said)
    cpu = [r["cpu"] for r in runs]
    return f"{epochs}; {min(cpu):.2g}–{max(cpu):.2g} s"


def _versus(record: dict, other: str) -> str:
    """How the default setting's epochs compare with ``other``'s, fit by fit (same seed): the
    range of the ratio where both reached tol, and the fits only the default certified."""
    default = "shrinking=True, finish=True"
    ratios, only = [], 0
    for problem in record["problems"].values():
        for a, b in zip(problem["runs"][other], problem["runs"][default], strict=True):
            if a["converged"] and b["converged"]:
                ratios.append(a["epochs"] / b["epochs"])
            only += b["converged"] and not a["converged"]
    span = f"{min(ratios):.2g} to {max(ratios):.2g} times fewer epochs than {other}"
    return f"{span} where both reached tol, and reached it in {only} fits where it did not"


def readme_block(record: dict) -> str:
    """The table of docs/scikit-learn.md and its sentence, every number from the record."""
    lines = [
        reports.measured_record(record, "python benchmarks/defaults.py")
        + f": epochs (seeds {', '.join(map(str, record['seeds']))}) and CPU seconds of a "
        "whole fit to the default tol, one thread.",
        "",
        "| problem | " + " | ".join(f"`{s}`" for s in SETTINGS) + " |",
        "|---|" + "---|" * len(SETTINGS),
    ]
    for problem in record["problems"].values():
        n, d = problem["shape"]
        cells = [_cell(problem["runs"][s]) for s in SETTINGS]
        lines.append(f"| {problem['describe']}, {n:,} × {d:,} | " + " | ".join(cells) + " |")
    unconverged = sum(
        not r["converged"]
        for p in record["problems"].values()
        for r in p["runs"]["shrinking=True, finish=True"]
    )
    lines += [
        "",
        "With shrinking and the finish (the default on the CPU) a fit took "
        f"{_versus(record, 'shrinking=False')} within {record['max_epochs']} epochs; it took "
        f"{_versus(record, 'shrinking=True, finish=False')}. {unconverged} of its fits "
        "ended above tol.",
    ]
    return "\n".join(lines)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=None, help="a subset, by name")
    parser.add_argument("--out", help="folder for the JSON record (defaults.json)")
    reports.readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if reports.readme_requested(args, MARKERS, readme_block):
        return {}
    record = {
        **reports.record_head("defaults"),
        "command": " ".join(["python benchmarks/defaults.py", *(argv or sys.argv[1:])]),
        "seeds": list(SEEDS),
        "max_epochs": SDCA_MAX_EPOCHS,
        "problems": measure(args.problems),
    }
    record["load_end"] = os.getloadavg()[0]
    print(readme_block(record))
    if args.out:
        reports.write_record(args.out, "defaults.json", record)
    return record


if __name__ == "__main__":
    main()
