"""Study 001, figure 7 (a–d): final coefficients of every option vs the true β (simulated).

One panel per algorithm family: (a) SDCA (random, permutation, cyclic), (b) Pegasos (plain,
projected), (c) ASDCA (hand-tuned and paper θ), (d) mini-batch Pegasos (plain, projected); each
option plain (filled markers) and with averaged output (hollow markers). The coefficients of
an SVM are only defined up to scale relative to β (the hinge loss fixes the margin, not the
norm, of the generating direction), so every run's final w and β are divided by their
Euclidean norms; markers are the mean over runs of w/‖w‖, error bars the 10–90 % quantiles
over runs, black bars β/‖β‖. The legend gives the mean cosine similarity cos(w, β).
Reports: ``001_simulated_coef.parquet`` (and ``001_simulated`` for the configs' parameters).
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .common import Runs, config_order, load, load_coef, runs_count
from .plots import footnote, save_figure, style_for

PANELS = ("SDCA", "Pegasos", "ASDCA", "Mini-batch Pegasos")


def panel_of(solver: str, batch_size: int) -> str:
    """The family panel of a config."""
    if solver in ("sdca", "asdca"):
        return solver.upper()
    return "Mini-batch Pegasos" if batch_size > 1 else "Pegasos"


def normalised(coef: pd.DataFrame) -> pd.DataFrame:
    """Add ``w_unit`` (w/‖w‖ per run), ``beta_unit`` (β/‖β‖) and ``cosine`` (per run).

    A run whose w is exactly 0 has no direction: its ``w_unit`` and ``cosine`` are NaN.
    """
    runs = coef.groupby(["config", "seed_index"], observed=True)
    w_norm = np.sqrt(runs["coef"].transform(lambda c: np.sum(c**2)))
    b_norm = np.sqrt(runs["beta"].transform(lambda b: np.sum(b**2)))
    out = coef.assign(
        w_unit=(coef["coef"] / w_norm.where(w_norm > 0)), beta_unit=coef["beta"] / b_norm
    )
    out["cosine"] = (
        (out["w_unit"] * out["beta_unit"])
        .groupby([out["config"], out["seed_index"]], observed=True)
        .transform("sum", min_count=1)
    )
    return out


def cosines(coef: pd.DataFrame) -> dict[str, Runs]:
    """cos(w, β) of every run, ``plain`` and ``avg`` (averaged output) configs (scorecard)."""

    def cosine(frame):
        # the runs in groupby's order (sorted keys, rows in their order), split with NumPy:
        # pandas' per-group frames cost ~3 ms each, 1,800 of them
        frame = frame.sort_values(["config", "seed_index"], kind="stable")
        keys = frame[["config", "seed_index"]]
        starts = np.flatnonzero((keys != keys.shift()).any(axis=1).to_numpy())
        values = np.ascontiguousarray(frame[["coef", "beta"]].to_numpy().T)  # rows w, b
        runs = np.split(values, starts[1:], axis=1)
        return Runs([w @ b / (np.linalg.norm(w) * np.linalg.norm(b) + 1e-300) for w, b in runs])

    averaged = coef.config.str.endswith("(averaged)")
    return {"plain": cosine(coef[~averaged]), "avg": cosine(coef[averaged])}


def draw(spec, out_dir=None, reports_dir=None) -> list[Path]:
    """Draw the figure from the coefficient report; returns the paths written (PDF, PNG)."""
    (report,) = spec.reports
    coef = normalised(load_coef(report, reports_dir))
    configs = load(report, reports_dir, columns=["config", "solver", "params"])
    configs = configs.drop_duplicates("config").set_index("config")
    panel = {
        c: panel_of(row.solver, int(json.loads(row.params).get("batch_size", 1)))
        for c, row in configs.iterrows()
    }
    n_runs = coef.groupby("config", observed=True)["seed_index"].nunique()
    features = np.sort(coef["feature"].unique())
    beta = coef.drop_duplicates("feature").set_index("feature").loc[features, "beta_unit"]

    fig, axes = plt.subplots(2, 2, figsize=(12, 9.5), sharey=True, layout="constrained")
    for ax, (letter, family) in zip(axes.flat, zip("abcd", PANELS, strict=True), strict=True):
        configs = [c for c in config_order(coef) if panel.get(c) == family]
        width = 0.8 / max(len(configs), 1)
        ax.scatter(
            features, beta, marker="_", s=500, linewidths=2.5, color="black", label="true β/‖β‖"
        )
        for k, config in enumerate(configs):
            rows = coef[coef["config"] == config]
            stats = rows.groupby("feature")["w_unit"].agg(
                mean="mean", q10=lambda v: v.quantile(0.1), q90=lambda v: v.quantile(0.9)
            )
            stats = stats.loc[features]
            cosine = rows.drop_duplicates("seed_index")["cosine"].mean()
            style = style_for(config)
            averaged = "averaged" in config
            x = features - 0.4 + width * (k + 0.5)
            # equal values: rounding may put the mean a hair outside its quantiles
            err = np.clip([stats["mean"] - stats["q10"], stats["q90"] - stats["mean"]], 0, None)
            face = "white" if averaged else style["color"]
            ax.errorbar(x, stats["mean"], yerr=err, fmt="o", markersize=5, color=style["color"],
                        markerfacecolor=face, elinewidth=1, capsize=2,
                        label=f"{config} (cos {cosine:.3f})")  # fmt: skip
        ax.set_title(f"({letter}) {family}", loc="left")
        ax.set_xticks(features)
        ax.set_xlabel("feature (standardised)")
        ax.axhline(0.0, color="grey", linewidth=0.6)
        ax.legend(
            fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False
        )
    for ax in axes[:, 0]:
        ax.set_ylabel("coefficient / Euclidean norm")
    count = runs_count(int(n_runs.min()), int(n_runs.max()))
    fig.suptitle("Study 001, fig. 7: final coefficients of every option vs the true β (simulated)")
    footnote(
        fig,
        "An SVM's w estimates the direction of β, not its scale: each run's final w (no "
        "intercept) and β (in the standardised feature space) are divided by their Euclidean "
        f"norms. Markers: mean over {count} runs; error bars: 10–90 % quantiles over runs; "
        "hollow markers: averaged output. cos: mean over runs of the cosine similarity "
        "between w and β.",
    )
    return save_figure(fig, out_dir, spec.name)
