"""The warm λ path against cold fits, to the same certified relative duality gap, one thread.

For the λ sweep of ``beyond_blood_lambda_pca40`` (1.6, 0.1, 0.01, 1e-3, 1/n; the catalogue's
``BLOOD_LAMBDAS``), :func:`sdca_pegasos.solvers.lambda_path` fits each λ to a relative gap
``--rel-gap``
(default 1e-6), first warm (each λ from the previous one's dual point), then cold (each
from α = 0), for SDCA with and without shrinking. Every λ's relative gap is certified by
:func:`sdca_pegasos.solvers.core.objectives.certificate` (compensated, apart from the solver).
The CPU time is
that of the ``fit`` calls (``time.process_time``, their per-epoch gap checks included),
median over ``--repeats`` runs of the whole path; the ratio warm/cold is the result::

    python benchmarks/lambda_path.py [--datasets pca40 raw] [--repeats 3] [--readme README.md]

Writes ``output/bench/lambda_path.{parquet,md}`` (git-ignored) and prints the table.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages (benchmarks.*, solvers, ...)
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import os
import time

import pandas as pd

from benchmarks.threads import one_thread
from sdca_pegasos.cmdline import command_line, positive_float, positive_int, readme_option
from sdca_pegasos.experiments import datasets, features
from sdca_pegasos.experiments.catalogue import BLOOD_LAMBDAS
from sdca_pegasos.experiments.reports import git_commit, rewrite_block, short_commit

#: --datasets choice -> (label, data.load name, options): the blood representations of the
#: λ study (:data:`sdca_pegasos.experiments.features.PATH_DATASETS`).
DATASETS = {
    "pca40": ("blood PCA-40", *features.PATH_DATASETS["blood PCA-40"]),
    "raw": ("blood raw crops", *features.PATH_DATASETS["blood raw crops"]),
}


def run(name: str, rel_gap: float, repeats: int, max_epochs: int) -> pd.DataFrame:
    """Every (config, warm/cold, repeat, λ) of one dataset, as rows, one thread."""
    label, loader, options = DATASETS[name]
    ds = datasets.load(loader, options)
    with one_thread(ds.X_train.dtype):
        return features.path_rows(
            label, loader, options, repeats=repeats, max_epochs=max_epochs, rel_gap=rel_gap
        )


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and config: the path's total CPU time (median over repeats), warm and
    cold, their ratio, the CPU of the timed epochs alone (``update_seconds``; the rest of a
    fit is its exact-gap checks and its driver: validation, set-up, the loop over epochs),
    and whether every λ was certified."""
    totals = (
        df.groupby(["dataset", "config", "mode", "repeat"])
        .agg(
            cpu=("cpu_seconds", "sum"),
            update=("update_seconds", "sum"),
            epochs=("epochs", "sum"),
            ok=("reached", "all"),
        )
        .groupby(["dataset", "config", "mode"])
        .agg(
            cpu=("cpu", "median"),
            update=("update", "median"),
            epochs=("epochs", "median"),
            ok=("ok", "all"),
        )
        .unstack("mode")
    )
    out = pd.DataFrame(
        {
            "warm CPU s": totals[("cpu", "warm")],
            "cold CPU s": totals[("cpu", "cold")],
            "warm / cold": totals[("cpu", "warm")] / totals[("cpu", "cold")],
            "warm epochs CPU s": totals[("update", "warm")],
            "cold epochs CPU s": totals[("update", "cold")],
            "warm epochs": totals[("epochs", "warm")],
            "cold epochs": totals[("epochs", "cold")],
            "every λ certified": totals[("ok", "warm")] & totals[("ok", "cold")],
        }
    )
    return out.reset_index()


def markdown(table: pd.DataFrame, rel_gap: float) -> str:
    lines = [
        f"Warm λ path against cold fits, each λ to a certified relative gap {rel_gap:g} "
        f"(λ = {', '.join(map(str, BLOOD_LAMBDAS))}; CPU s of the fit calls, one thread; "
        "the epochs' CPU: the timed epochs alone, the rest of a fit being its exact-gap "
        "checks and its driver):",
        "",
        "| data | solver | warm CPU s | cold CPU s | warm / cold | epochs' CPU s warm / cold "
        "| epochs warm / cold | every λ certified |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in table.to_dict("records"):
        lines.append(
            f"| {r['dataset']} | {r['config']} | {r['warm CPU s']:.3g} | "
            f"{r['cold CPU s']:.3g} | {r['warm / cold']:.2f} | "
            f"{r['warm epochs CPU s']:.3g} / {r['cold epochs CPU s']:.3g} | "
            f"{r['warm epochs']:.0f} / {r['cold epochs']:.0f} | "
            f"{'yes' if r['every λ certified'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", choices=sorted(DATASETS), default=["pca40"])
    parser.add_argument("--rel-gap", type=positive_float, default=1e-6)
    parser.add_argument("--repeats", type=positive_int, default=3)
    parser.add_argument("--max-epochs", type=positive_int, default=100_000)
    parser.add_argument("--out", type=Path, default=Path("output/bench"))
    readme_option(parser, "warm-path block from this run")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()
    df = pd.concat(
        [run(name, args.rel_gap, args.repeats, args.max_epochs) for name in args.datasets]
    )
    table = summary(df)
    text = markdown(table, args.rel_gap)
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_parquet(args.out / "lambda_path.parquet", index=False)
    (args.out / "lambda_path.md").write_text(text)
    print(text)
    if args.readme:
        command = command_line("benchmarks/lambda_path.py", argv)
        header = (
            f"Run of {time.strftime('%Y-%m-%d')} (git {short_commit(git_commit())}, "
            f"`{command}`, load average {load_start[0]:.1f} on {os.cpu_count()} cores at the "
            "start; the median of the repeats):"
        )
        rewrite_block(args.readme, README_MARKERS, f"{header}\n\n{text.rstrip()}")
        print(f"{args.readme}: warm-path block rewritten")
    return table


#: The README block ``--readme`` rewrites.
README_MARKERS = (
    "<!-- bench-lambda-path: generated by benchmarks/lambda_path.py --readme; do not edit -->",
    "<!-- end of bench-lambda-path -->",
)


if __name__ == "__main__":
    main()
