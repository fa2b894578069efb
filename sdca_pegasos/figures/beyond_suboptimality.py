"""Beyond the studies: certified suboptimality vs CPU time, every solver on every dataset.

One panel per catalogue report that exists: P(w) − D(α*) (log scale) vs the mean cumulative CPU
time of the update loop, for every configuration (the averaged-output twins are left out: their
iterates are the same). D(α*) ≤ P* is the dual value of the certified optimum of the report's
(dataset, λ) (:mod:`sdca_pegasos.experiments.optima`), so the plotted value is a certified upper
bound of the suboptimality P(w) − P*; the dotted line is the certificate's own gap P(w*) − D(α*),
below which nothing is signal. For a λ-sweep report the main figure shows its smallest λ (the
hardest problem), and ``beyond_suboptimality_<report>`` has a panel per λ."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from sdca_pegasos.experiments.catalogue import ROWS_PER_DOUBLING

from .common import (
    MissingInputError,
    dataset_label,
    existing_reports,
    lmbd_text,
    load,
    load_optima,
    n_runs,
    runs_count,
    with_suboptimality,
)
from .plots import cpu_axis_label, footnote, plot_curves, save_figure, time_unit

CAPTION = (
    "y: P(w) − D(α*), with P the hinge objective of the iterate and D(α*) ≤ P* the dual value "
    "of the certified optimum: a certified upper bound of the suboptimality P(w) − P*. "
    "Dotted: the certificate's gap P(w*) − D(α*) (or the float64 rounding of P* if larger), "
    "the floor below which nothing is signal. "
    "Solvers of the smoothed hinge level off at the hinge objective of their own optimum. "
    "Lines: mean over runs; bands: 10–90 % quantiles over runs at each recorded epoch (every "
    f"epoch; SDCA with shrinking run to convergence: beyond {2 * ROWS_PER_DOUBLING} epochs, "
    f"{ROWS_PER_DOUBLING} rows per doubling, and its last); x: mean cumulative CPU time of the "
    "update loop. Averaged-output twins are omitted (same iterates)."
)


def caption(frames: dict[str, pd.DataFrame]) -> tuple[str, str]:
    """(title word, caption): what the optima records say, certified or not."""
    unsure = [
        f"{name} λ = {lmbd:.3g} (relative gap {rel:.1g})"
        for name, f in frames.items()
        for lmbd, rel in f.loc[~f["p_star_certified"].astype(bool), ["lmbd", "p_star_rel_gap"]]
        .drop_duplicates("lmbd")
        .itertuples(index=False)
    ]
    if not unsure:
        return "certified suboptimality", CAPTION
    return "suboptimality upper bounds", (
        CAPTION.replace("of the certified optimum: a certified upper bound", "of the exact "
                        "engine's point: an upper bound")
        + " Not certified within the CPU budget, so D(α*) is only the best dual value found "
        "and the curves may stay far above P(w) − P*: " + "; ".join(unsure) + "."
    )  # fmt: skip


def iterates_only(frame: pd.DataFrame) -> pd.DataFrame:
    """Drop the averaged-output configs (``param_average`` true): their iterates are the same."""
    if "param_average" not in frame:
        return frame
    averaged = frame["param_average"].map(lambda s: isinstance(s, str) and json.loads(s) is True)
    return frame[~averaged.astype(bool)]


def panel(ax, frame: pd.DataFrame, title: str) -> None:
    """Suboptimality curves of one (dataset, λ), with the certificate's floor."""
    factor, unit = time_unit(float(frame["cpu_time_cum"].max()))
    plot_curves(ax, frame, "suboptimality", "time", time_factor=factor, positive=True)
    # the certificate's gap, or float64 rounding of P* when the gap is below it (exact optimum)
    rounding = 4 * np.finfo(float).eps * float(frame["p_star_primal"].abs().max())
    floor = max(float(frame["certificate_gap"].max()), rounding)
    label = f"certificate's floor ({floor:.0e})"
    ax.axhline(floor, color="black", linestyle=":", linewidth=1, label=label)
    ax.set_yscale("log")
    ax.set_xlabel(cpu_axis_label(frame, unit), fontsize=8.5)
    ax.set_ylabel("P(w) − D(α*) ≥ P(w) − P*")
    ax.set_title(title, loc="left", fontsize=9)
    ax.legend(fontsize=6.5, loc="upper right")


def _title(name: str, frame: pd.DataFrame, lmbd: float) -> str:
    head = f"{name}: {lmbd_text(lmbd, int(frame['n_train'].iloc[0]))}"
    return head + "\n" + textwrap.fill(dataset_label(frame), 55)


def _grid(n: int, ncols: int = 3):
    ncols = min(ncols, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(5.2 * ncols, 4.2 * nrows), layout="constrained", squeeze=False
    )
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def draw(spec, out_dir=None, reports_dir=None) -> list[Path]:
    """Draw the figure (and one per λ-sweep report); returns the paths written."""
    names = existing_reports(reports_dir)
    if not names:
        from sdca_pegasos.experiments import CATALOGUE

        raise MissingInputError(
            "no report of the catalogue exists: run e.g. `make reports/001_simulated.parquet` "
            f"(this figure draws every report present: {', '.join(CATALOGUE)})"
        )
    optima = load_optima(reports_dir)
    frames = {n: with_suboptimality(iterates_only(load(n, reports_dir)), optima) for n in names}

    fig, axes = _grid(len(frames))
    for ax, (name, frame) in zip(axes, frames.items(), strict=True):
        lmbd = float(frame["lmbd"].min())
        panel(ax, frame[frame["lmbd"] == lmbd], _title(name, frame, lmbd))
    lo = min(n_runs(f)[0] for f in frames.values())
    runs = runs_count(lo, max(n_runs(f)[1] for f in frames.values()))
    what = f"λ sweeps: smallest λ; {runs} runs per curve"
    word, text = caption(frames)
    fig.suptitle(f"Beyond the studies: {word} vs CPU time ({what})")
    footnote(fig, text, width=int(fig.get_figwidth() * 15))
    paths = save_figure(fig, out_dir, spec.name)

    for name, frame in frames.items():
        lmbds = sorted(pd.unique(frame["lmbd"]), reverse=True)
        if len(lmbds) < 2:
            continue
        fig, axes = _grid(len(lmbds))
        for ax, lmbd in zip(axes, lmbds, strict=True):
            panel(ax, frame[frame["lmbd"] == lmbd], _title(name, frame, lmbd))
        word, text = caption({name: frame})
        fig.suptitle(f"{word[0].upper() + word[1:]} vs CPU time, every λ of {name}")
        footnote(fig, text, width=int(fig.get_figwidth() * 15))
        paths += save_figure(fig, out_dir, f"{spec.name}_{name}")
    return paths
