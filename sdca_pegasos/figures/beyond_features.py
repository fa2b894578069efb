"""Beyond both studies: what a LinearSVC user reaches for, on the studies' own data.

Reads the two reports of :mod:`sdca_pegasos.experiments.features` (built by ``make features``, not
by ``make reproduce``: see that module) and writes, for each report present:

``beyond_features_path.md/.csv/.png``
    The warm λ path against cold fits: per dataset, configuration and λ, the median over
    repeats of the ``fit`` CPU time and of the epochs, warm and cold, their ratio, and
    whether every fit's relative duality gap was certified at the target; one "whole path"
    row per configuration (the sums, then the median over repeats).
``beyond_features_skin.md/.csv/.png`` and ``beyond_features_skin_curves.pdf/.png``
    ``class_weight="balanced"`` on skin: per configuration, median over seeds (with the
    range) of the test error and the balanced test error after the first and the last
    epoch, the certified suboptimality of the objective each minimises, and the update-loop
    CPU time; the figure draws the balanced test error against CPU time.

Never calls a solver: the numbers are the reports' (STYLE.md, practice 12)::

    python -m sdca_pegasos.figures.beyond_features [--reports DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from sdca_pegasos.experiments import features, reports

from .common import output_dir
from .plots import footnote, save_figure, style_for, write_table

PATH_NAME = "beyond_features_path"
SKIN_NAME = "beyond_features_skin"
#: How to build a missing report (said when one is absent).
BUILD = "make features (python -m sdca_pegasos.experiments features)"


def path_summary(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, config, λ) and one "whole path" row per (dataset, config):
    median over repeats of the CPU seconds and epochs, warm and cold, the ratio of the
    medians warm/cold, and whether every fit in it reached the gap target."""
    keys = ["dataset", "config"]
    per_lmbd = (
        df.groupby([*keys, "lmbd", "lmbd_label", "mode"], sort=False)
        .agg(cpu=("cpu_seconds", "median"), epochs=("epochs", "median"), ok=("reached", "all"))
        .reset_index()
    )
    whole = (
        df.groupby([*keys, "mode", "repeat"], sort=False)
        .agg(cpu=("cpu_seconds", "sum"), epochs=("epochs", "sum"), ok=("reached", "all"))
        .groupby([*keys, "mode"], sort=False)
        .agg(cpu=("cpu", "median"), epochs=("epochs", "median"), ok=("ok", "all"))
        .reset_index()
        .assign(lmbd=np.nan, lmbd_label="whole path")
    )
    both = pd.concat([per_lmbd, whole], ignore_index=True)
    wide = both.pivot_table(
        index=[*keys, "lmbd_label"],
        columns="mode",
        values=["cpu", "epochs", "ok"],
        aggfunc="first",
        sort=False,
    )
    out = pd.DataFrame(
        {
            "cpu_warm": wide[("cpu", "warm")],
            "cpu_cold": wide[("cpu", "cold")],
            "epochs_warm": wide[("epochs", "warm")],
            "epochs_cold": wide[("epochs", "cold")],
            "certified": wide[("ok", "warm")].astype(bool) & wide[("ok", "cold")].astype(bool),
        }
    ).reset_index()
    out["ratio"] = out["cpu_warm"] / out["cpu_cold"]
    return out


def skin_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per configuration (report order): median, min and max over seeds of the test error,
    the balanced test error, the certified suboptimality and the cumulative CPU time, after
    the first epoch and after the last."""
    rows = []
    for config, frame in df.groupby("config", sort=False):
        for which, epoch in (("first", frame["epoch"].min()), ("last", frame["epoch"].max())):
            at = frame[frame["epoch"] == epoch]
            row = {"config": config, "class_weight": at["class_weight"].iloc[0]}
            row.update({"at": which, "epoch": int(epoch), "seeds": at["seed"].nunique()})
            for col in ("test_error", "test_error_balanced", "suboptimality", "cpu_time_cum"):
                row[f"{col}_median"] = float(at[col].median())
                row[f"{col}_min"] = float(at[col].min())
                row[f"{col}_max"] = float(at[col].max())
            rows.append(row)
    return pd.DataFrame(rows)


def _pct(row, col: str) -> str:
    lo, mid, hi = (100 * row[f"{col}_{k}"] for k in ("min", "median", "max"))
    return f"{mid:.2f} % [{lo:.2f}, {hi:.2f}]"


def path_outputs(df: pd.DataFrame, out_dir) -> list[Path]:
    summary = path_summary(df)
    shown = pd.DataFrame(
        {
            "data": summary["dataset"],
            "solver": summary["config"],
            "λ": summary["lmbd_label"],
            "warm CPU s": summary["cpu_warm"].map("{:.4g}".format),
            "cold CPU s": summary["cpu_cold"].map("{:.4g}".format),
            "warm / cold": summary["ratio"].map("{:.2f}".format),
            "epochs warm / cold": [
                f"{w:.0f} / {c:.0f}"
                for w, c in zip(summary["epochs_warm"], summary["epochs_cold"], strict=True)
            ],
            "certified": summary["certified"].map({True: "yes", False: "NO"}),
        }
    )
    gap = df["rel_gap"].max()
    notes = [
        f"Every λ fitted to a relative duality gap of {features.PATH_REL_GAP:g} by "
        "sdca_pegasos.solvers.lambda_path, warm (from the previous λ's dual point) and cold "
        "(from α = 0); "
        f"'certified' says every fit's certificate reached it (largest gap {gap:.1e}).",
        "CPU seconds of the fit calls (their per-epoch gap checks included), median over "
        f"{df['repeat'].nunique()} repeats; one thread.",
    ]
    return write_table(
        summary, shown, out_dir, PATH_NAME, "The warm λ path against cold fits", notes
    )


def skin_outputs(df: pd.DataFrame, out_dir) -> list[Path]:
    summary = skin_summary(df)
    shown = pd.DataFrame(
        {
            "configuration": summary["config"],
            "after epoch": summary["epoch"].astype(str),
            "test error": [_pct(r, "test_error") for _, r in summary.iterrows()],
            "balanced test error": [_pct(r, "test_error_balanced") for _, r in summary.iterrows()],
            "(P − D*)/D*": summary["suboptimality_median"].map("{:.1e}".format),
            "CPU s": summary["cpu_time_cum_median"].map("{:.3g}".format),
        }
    )
    share = float(df["positive_share"].iloc[0])
    seeds = int(summary["seeds"].min())
    notes = [
        f"skin, λ = 1/n (n = {int(df['n_train'].iloc[0])}), {100 * share:.0f} % of the "
        "training samples in the positive class; median over "
        f"{seeds} seeds [min, max].",
        "Balanced test error: the mean of the two classes' error rates. (P − D*)/D*: the "
        "suboptimality of the objective the configuration minimises (weighted for "
        "'balanced'), against the dual value D* ≤ P* of its certified optimum.",
    ]
    paths = write_table(
        summary,
        shown,
        out_dir,
        SKIN_NAME,
        'class_weight="balanced" on skin: SDCA against Pegasos',
        notes,
    )
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for config, frame in df.groupby("config", sort=False):
        curve = frame.groupby("epoch").agg(
            cpu=("cpu_time_cum", "median"),
            mid=("test_error_balanced", "median"),
            lo=("test_error_balanced", "min"),
            hi=("test_error_balanced", "max"),
        )
        style = style_for(config, frame["solver"].iloc[0])
        if "balanced" in config:
            style["linestyle"] = ":"
        ax.plot(curve["cpu"], 100 * curve["mid"], label=config, **style)
        ax.fill_between(curve["cpu"], 100 * curve["lo"], 100 * curve["hi"],
                        color=style["color"], alpha=0.15, linewidth=0)  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("update-loop CPU time (s)")
    ax.set_ylabel("balanced test error (%)")
    ax.set_title('skin, λ = 1/n: class_weight="balanced" against none')
    ax.legend(fontsize=8)
    footnote(fig, f"Median over {seeds} seeds, band min to max. " + notes[1], width=110)
    paths += save_figure(fig, out_dir, f"{SKIN_NAME}_curves")
    return paths


def build(reports_dir=None, out_dir=None, log=print) -> list[Path]:
    """Every output whose report is present; names each missing report and how to build
    it. Raises FileNotFoundError when neither is present."""
    paths, missing = [], []
    for part, draw in ((features.PATH_REPORT, path_outputs), (features.SKIN_REPORT, skin_outputs)):
        path = reports.report_path(part, reports_dir)
        if not path.exists():
            missing.append(str(path))
            continue
        paths += draw(pd.read_parquet(path), output_dir(out_dir))
    for path in missing:
        log(f"{path} is missing: {BUILD} builds it")
    if not paths:
        raise FileNotFoundError(f"no report of experiments.features is present: run {BUILD}")
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reports", type=Path, default=None, help="reports directory")
    parser.add_argument("--out", type=Path, default=None, help="output directory")
    args = parser.parse_args(argv)
    try:
        for path in build(args.reports, args.out):
            print(f"wrote {path}")
    except FileNotFoundError as exc:
        print(exc)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
