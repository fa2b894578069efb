"""Beyond both studies: the λ sweeps at convergence (blood raw crops, blood PCA-40, genomic).

For each dataset of the λ sweeps, two views, both read from reports only:

(a) **the certified optimum** at each λ (:mod:`sdca_pegasos.experiments.optima`: relative duality
gap
    ≤ 1e-10): its training objective P* and its test error (training error on the genomic
    substitute, which has no test split), so "which λ is best" no longer depends on how far
    a solver got in a fixed number of epochs;
(b)–(d) **CPU time to a relative suboptimality** (P(w) − P*)/P* ≤ 1e-2, 1e-4, 1e-6 for every
    solver, read from the stored per-epoch curves: per run, the cumulative update-loop CPU time at
    the first recorded epoch whose certified bound (P(w) − D(α*))/D(α*) is ≤ ε (every epoch, but
    for the runs to convergence that record fewer: ``rows_per_doubling``); per configuration, the
    median over runs. A configuration whose median run does not reach ε within its epochs is "not
    reached" (× above the dotted line), with the best relative suboptimality its median run got to:
    a value, not a hole in the table. Beside the fixed-epoch configurations of the studies, each
    sweep runs SDCA-Perm with shrinking and the exact solver
    (:class:`sdca_pegasos.solvers.ExactSVMClassifier`) to convergence under a per-run CPU budget
    (:data:`sdca_pegasos.experiments.catalogue.TO_CONVERGENCE`); the exact solver's one certified
    solve is one epoch, so its CPU time is its time to every ε its certificate reaches.
    :func:`fastest` picks, per λ and ε, the configuration with the smallest median time (ringed in
    the panels, marked in the table), so every λ answers with a measured time.

Outputs: ``beyond_lambda.pdf/.png`` (figure), ``beyond_lambda_table.md/.csv/.png`` (the
time-to-ε table) and ``beyond_lambda_optima.csv``. :func:`findings` turns the same numbers
into the sentences that README.md and REPRODUCTION.md quote.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from sdca_pegasos.experiments import reports

from . import OUTPUTS
from .common import config_order, load, load_optima, output_dir, with_suboptimality
from .plots import footnote, save_figure, style_for, write_table

NAME = "beyond_lambda"
REPORTS = OUTPUTS[NAME].reports
#: Relative suboptimality targets of panels (b)–(d).
TARGETS = (1e-2, 1e-4, 1e-6)


def algorithm_of(frame: pd.DataFrame) -> pd.Series:
    """Per config: its algorithm tag (the tag other than ``"lambda"``)."""
    tags = frame.groupby("config", observed=True)["tags"].first()
    return tags.map(lambda s: next(t for t in s.split(",") if t != "lambda"))


#: Panel and sentence label of each sweep's dataset (the genomic data is a SUBSTITUTE).
LABELS = {
    "beyond_blood_lambda_raw": "blood cells, raw 120×120 crops",
    "beyond_blood_lambda_pca40": "blood cells, PCA-40",
    "001_genomic_lambda": "genomic SUBSTITUTE (Gravier 2010)",
}


def dataset_name(frame: pd.DataFrame) -> str:
    """Short label of a report's dataset (:data:`LABELS`, else the loader's title)."""
    return LABELS.get(str(frame["experiment"].iloc[0]), str(frame["dataset_title"].iloc[0]))


def optimum_table(frame: pd.DataFrame, optima: pd.DataFrame) -> pd.DataFrame:
    """The certified optimum at each λ of a sweep report.

    Returns
    -------
    DataFrame
        ``experiment, dataset, lmbd, p_star, rel_gap, certified, test_error, error_kind,
        alpha_at_bound, alpha_free, cpu_seconds, method`` (``error_kind``: "test" or "train"
        when the dataset has no test split).
    """
    key = str(frame["dataset_key"].iloc[0])
    rows = []
    for lmbd in np.sort(frame["lmbd"].unique()):
        cand = optima[(optima["dataset_key"] == key)]
        cand = cand[np.isclose(cand["lmbd"].astype(float), lmbd, rtol=1e-9, atol=0.0)]
        if cand.empty:
            raise FileNotFoundError(
                f"no certified optimum for {key} λ={lmbd:.6g}: run "
                f"`python -m sdca_pegasos.experiments optima {frame['experiment'].iloc[0]}`"
            )
        rec = cand.iloc[0]
        test = rec.get("test_error")
        has_test = test is not None and not (isinstance(test, float) and math.isnan(test))
        n = float(rec.get("n_train", np.nan))
        rel_gap = float(rec.get("rel_gap", rec["gap"] / abs(rec["primal"])))
        rows.append(dict(
            experiment=frame["experiment"].iloc[0], dataset=dataset_name(frame),
            lmbd=float(lmbd), p_star=float(rec["primal"]), rel_gap=rel_gap,
            certified=bool(rec.get("certified", rel_gap <= 1e-10)),
            test_error=float(test if has_test else rec.get("train_error", np.nan)),
            error_kind="test" if has_test else "train",
            alpha_at_bound=float(rec.get("n_alpha_bound", np.nan)) / n,
            alpha_free=float(rec.get("n_alpha_free", np.nan)) / n,
            cpu_seconds=float(rec.get("cpu_seconds", np.nan)), method=rec.get("method", "sdca"),
        ))  # fmt: skip
    return pd.DataFrame(rows)


def time_to_targets(frame: pd.DataFrame, optima: pd.DataFrame) -> pd.DataFrame:
    """Median CPU time of every config to each relative suboptimality of :data:`TARGETS`.

    Returns
    -------
    DataFrame
        One row per (config, ε): ``experiment, dataset, config, algorithm, solver, lmbd, eps,
        n_runs, n_reached, time`` (median over runs of the cumulative CPU seconds at the first
        recorded epoch with relative suboptimality ≤ ε; NaN when the median run does not
        reach it),
        ``reached``, ``best`` (median over runs of the smallest relative suboptimality the
        run reached), ``epochs`` (the longest run's epochs) and ``cpu`` (median over runs of
        the run's total CPU seconds: a run stopped by its budget used that budget).
    """
    sub = with_suboptimality(frame, optima)
    primal = sub["primal_output"].where(sub["primal_output"].notna(), sub["primal"])
    sub = sub.assign(rel=(primal - sub["p_star_dual"]) / sub["p_star_dual"])
    algorithms = algorithm_of(frame)
    rows = []
    for config in config_order(frame):
        runs = sub[sub["config"] == config]
        best = runs.groupby("seed_index")["rel"].min()
        spent = runs.groupby("seed_index")["cpu_time_cum"].max().median()
        for eps in TARGETS:
            hit = runs[runs["rel"] <= eps].groupby("seed_index")["cpu_time_cum"].min()
            per_run = hit.reindex(best.index)  # NaN: the run never reached ε
            median = per_run.fillna(np.inf).median()
            rows.append(dict(
                experiment=runs["experiment"].iloc[0], dataset=dataset_name(frame),
                config=config, algorithm=algorithms[config], solver=runs["solver"].iloc[0],
                lmbd=float(runs["lmbd"].iloc[0]), eps=eps, n_runs=int(best.shape[0]),
                n_reached=int(hit.shape[0]),
                time=float(median) if np.isfinite(median) else np.nan,
                reached=bool(np.isfinite(median)), best=float(best.median()),
                epochs=int(runs["epoch"].max()), cpu=float(spent),
            ))  # fmt: skip
    return pd.DataFrame(rows)


def fastest(times: pd.DataFrame) -> pd.DataFrame:
    """Per (sweep, λ, ε): the configuration whose median run reaches ε first.

    Parameters
    ----------
    times : DataFrame
        :func:`time_to_targets`' table (one or several sweeps).

    Returns
    -------
    DataFrame
        One row per (experiment, λ, ε), sweeps in the order of ``times``, λ ascending, ε
        descending: ``experiment, dataset, lmbd, eps, reached`` (whether any configuration's
        median run reaches ε) and, of the fastest configuration (smallest median ``time``; a
        tie goes to the first in catalogue order), ``config, algorithm, solver, time,
        n_reached, n_runs`` (missing, and 0 runs, when none reaches ε).
    """
    rows = []
    keys = ["experiment", "lmbd", "eps"]
    for (experiment, lmbd, eps), group in times.groupby(keys, sort=True):
        hit = group[group["reached"]]
        row = dict(experiment=experiment, dataset=group["dataset"].iloc[0], lmbd=lmbd, eps=eps,
                   reached=not hit.empty, config=None, algorithm=None, solver=None, time=np.nan,
                   n_reached=0, n_runs=0)  # fmt: skip
        if not hit.empty:
            first = hit.iloc[int(np.argmin(hit["time"].to_numpy()))]  # first of equal minima
            row |= {k: first[k] for k in ("config", "algorithm", "solver", "time")}
            row |= {"n_reached": int(first["n_reached"]), "n_runs": int(first["n_runs"])}
        rows.append(row)
    out = pd.DataFrame(rows)
    order = {name: i for i, name in enumerate(pd.unique(times["experiment"]))}
    out = out.assign(_order=out["experiment"].map(order))
    out = out.sort_values(["_order", "lmbd", "eps"], ascending=[True, True, False], kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)


def with_fastest(times: pd.DataFrame) -> pd.DataFrame:
    """``times`` with a column ``fastest``: whether the row is :func:`fastest`'s choice."""
    first = fastest(times)
    chosen = set(zip(first["experiment"], first["lmbd"], first["eps"], first["config"],
                     strict=True))  # fmt: skip
    keys = zip(times["experiment"], times["lmbd"], times["eps"], times["config"], strict=True)
    return times.assign(fastest=[k in chosen for k in keys])


def _fmt_time(row) -> str:
    if row["reached"]:
        mark = " ← fastest" if row.get("fastest", False) else ""
        return f"{row['time']:.3g} s ({row['n_reached']}/{row['n_runs']}){mark}"
    return (
        f"not reached in {row['epochs']} epochs, {row['cpu']:.3g} CPU s (best {row['best']:.1e})"
    )


def _lmbd_label(lmbd: float, n_train: int) -> str:
    return f"1/n = {lmbd:.2g}" if np.isclose(lmbd, 1 / n_train, rtol=1e-9) else f"{lmbd:g}"


def findings(optimum: pd.DataFrame, times: pd.DataFrame) -> list[str]:
    """Sentences of the λ study, each computed from the two tables (README, scorecard)."""
    out = []
    for dataset, opt in optimum.groupby("dataset", sort=False):
        if opt["test_error"].isna().all():
            raise ValueError(f"{dataset}: the optima records carry no error; recompute them")
        sure = opt[opt["certified"]]
        kind = "test" if opt["error_kind"].iloc[0] == "test" else "training"
        if sure.empty:
            out.append(f"{dataset}: no optimum certified within its CPU budget.")
        else:
            best = sure.loc[sure["test_error"].idxmin()]
            worst = sure.loc[sure["test_error"].idxmax()]
            out.append(
                f"{dataset}: among the certified optima (rel. gap ≤ {sure['rel_gap'].max():.0e})"
                f" the {kind} error is lowest at λ = {best['lmbd']:.3g} "
                f"({100 * best['test_error']:.1f} %) and highest at λ = {worst['lmbd']:.3g} "
                f"({100 * worst['test_error']:.1f} %)."
            )
        unsure = opt[~opt["certified"]]
        if len(unsure):
            out.append(
                f"{dataset}: NOT certified within the CPU budget: "
                + "; ".join(
                    f"λ = {r.lmbd:.3g} (rel. gap {r.rel_gap:.0e}, its best point's {kind} error "
                    f"{100 * r.test_error:.1f} %)"
                    for r in unsure.itertuples()
                )
                + " — suboptimalities there are bounds, not values."
            )
        first = fastest(times[times["dataset"] == dataset])
        for eps in TARGETS:
            parts = [
                f"λ = {r.lmbd:.3g}: {r.algorithm} ({r.time:.2g} s)"
                if r.reached
                else f"λ = {r.lmbd:.3g}: none"
                for r in first[first["eps"] == eps].itertuples()
            ]
            out.append(f"{dataset}, first to relative suboptimality {eps:g}: " + "; ".join(parts))
    return out


def _ring_fastest(ax, first: pd.DataFrame, algorithms: list[str], label: bool) -> None:
    """Ring the fastest configuration at each λ (:func:`fastest`) in its colour, at its
    algorithm's x offset, and join them with a broad grey line."""
    first = first[first["reached"]]
    shift = [10 ** (0.04 * (algorithms.index(a) - (len(algorithms) - 1) / 2))
             for a in first["algorithm"]]  # fmt: skip
    colours = [
        style_for(a, str(solver))["color"]
        for a, solver in zip(first["algorithm"], first["solver"], strict=True)
    ]
    ax.plot(first["lmbd"], first["time"], color="grey", linewidth=3, alpha=0.35, zorder=0,
            label="fastest at each λ (ringed)" if label else None)  # fmt: skip
    ax.scatter(first["lmbd"] * np.array(shift), first["time"], s=150, facecolors="none",
               edgecolors=colours, linewidths=2)  # fmt: skip


def _panels(axes, opt: pd.DataFrame, times: pd.DataFrame, n_train: int, row: int) -> None:
    ax_opt, *ax_eps = axes
    lmbds = opt["lmbd"].to_numpy()
    kind = opt["error_kind"].iloc[0]
    ax_opt.plot(lmbds, 100 * opt["test_error"], "o-", color="black", label=f"{kind} error of w*")
    ax_opt.set_ylabel(f"{kind} error of the optimum, %")
    twin = ax_opt.twinx()
    twin.plot(lmbds, opt["p_star"], "s--", color="tab:purple", label="P* (train objective)")
    twin.set_yscale("log")
    twin.set_ylabel("P*", color="tab:purple")
    handles = ax_opt.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    ax_opt.legend(handles=handles, fontsize=7, loc="best")
    ax_opt.set_title(f"({'abcdefghijkl'[4 * row]}) {opt['dataset'].iloc[0]}", loc="left")
    reached = times.loc[times["reached"], "time"]
    top = float(reached.max()) * 3.0 if len(reached) else 1.0
    algorithms = list(pd.unique(times["algorithm"]))
    for ax, eps, letter in zip(ax_eps, TARGETS, "abcdefghijkl"[4 * row + 1 :], strict=False):
        sub = times[times["eps"] == eps]
        for k, algorithm in enumerate(algorithms):
            rows = sub[sub["algorithm"] == algorithm].sort_values("lmbd")
            style = style_for(algorithm, str(rows["solver"].iloc[0]))
            x = rows["lmbd"].to_numpy() * 10 ** (0.04 * (k - (len(algorithms) - 1) / 2))
            hit = rows["reached"].to_numpy(bool)
            ax.plot(x[hit], rows["time"].to_numpy()[hit], marker="o", color=style["color"])
            ax.plot(
                x[~hit],
                np.full((~hit).sum(), top),
                linestyle="none",
                marker="x",
                markersize=7,
                markeredgewidth=2,
                color=style["color"],
                label=algorithm if eps == TARGETS[0] else None,
            )
            ax.plot([], [], marker="o", color=style["color"], label=algorithm)
        _ring_fastest(ax, fastest(sub), algorithms, label=eps == TARGETS[0])
        ax.axhline(top, color="grey", linestyle=":", linewidth=1)
        ax.set_yscale("log")
        ax.set_ylim(top=top * 2.5)
        ax.set_title(f"({letter}) CPU time to (P − P*)/P* ≤ {eps:g}", loc="left", fontsize=9)
        ax.set_ylabel("median CPU seconds (update loop)")
    handles, labels = ax_eps[0].get_legend_handles_labels()
    keep = {label: h for h, label in zip(handles, labels, strict=True) if label}
    ax_eps[0].legend(keep.values(), keep.keys(), fontsize=7, loc="lower left")
    ticks = [_lmbd_label(v, n_train) for v in lmbds]
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(lmbds, ticks, fontsize=7)
        ax.minorticks_off()
        ax.set_xlabel("λ")


def runs_per_algorithm(frame: pd.DataFrame) -> str:
    """Runs per configuration of a sweep: ``"100"``, or with the algorithms that have
    another count (``"100 (SDCA-Perm + shrinking 10, Exact optimum 3)"``)."""
    per_config = frame.groupby("config", observed=True)["seed_index"].nunique()
    per_algorithm = per_config.groupby(algorithm_of(frame)).max()
    common = int(per_config.mode().max())
    others = [f"{a} {n}" for a, n in per_algorithm.items() if n != common]
    return f"{common} ({', '.join(others)})" if others else f"{common}"


def _rows_note(per_doubling: set) -> str:
    """How a configuration run to convergence records its epochs
    (:func:`sdca_pegasos.experiments.stopping.recorded`), and what that does to its time to ε."""
    if per_doubling == {None}:
        return ""
    r = ", ".join(sorted(str(k) for k in per_doubling if k is not None))
    return (
        f"; rows at every epoch below 2R, then R = {r} per doubling of the epoch count: its "
        "gap is checked and its time to ε read there, at most e/R epochs late while the run "
        "stays below ε"
    )


def _to_convergence_note(frames: dict[str, pd.DataFrame]) -> str:
    """The caption's sentence on the configurations run to convergence (their stop rules,
    from the catalogue entries the reports were run from)."""
    from sdca_pegasos.experiments import CATALOGUE

    rules = {}
    for name in frames:
        for cfg in CATALOGUE[name].configs:
            if cfg.stops_early:
                algorithm = next(t for t in cfg.tags if t != "lambda")
                rule = (cfg.rel_gap, cfg.cpu_budget, cfg.rows_per_doubling)
                rules.setdefault(algorithm, set()).add(rule)
    if not rules:
        return ""
    parts = [
        f"{algorithm} (relative gap ≤ {', '.join(sorted({f'{g:g}' for g, _, _ in r}))} or "
        f"{', '.join(sorted({f'{b:g}' for _, b, _ in r}))} CPU s per run"
        f"{_rows_note({k for _, _, k in r})})"
        for algorithm, r in rules.items()
    ]
    return (
        "Run to convergence, each stopping at its own relative duality gap or when its timed "
        "CPU reaches its budget: " + "; ".join(parts) + ". The exact solver (ExactSVMClassifier) "
        "makes one certified solve: its CPU time is its time to every ε it certifies (for the "
        "larger ε an upper bound: it solves to the smallest)."
    )


def tables(reports_dir: Path | str | None = None):
    """The reports, the optimum table and the time-to-ε table of every λ sweep."""
    frames = {name: load(name, reports_dir) for name in REPORTS}
    optima = load_optima(reports_dir)
    optimum = pd.concat([optimum_table(f, optima) for f in frames.values()], ignore_index=True)
    times = pd.concat([time_to_targets(f, optima) for f in frames.values()], ignore_index=True)
    return frames, optimum, times


#: The README block that :func:`update_readme` regenerates (``make docs``).
README_MARKERS = (
    "<!-- beyond_lambda findings: generated from the reports by `make docs`; do not edit -->",
    "<!-- end of beyond_lambda findings -->",
)


def update_readme(readme: Path | str, reports_dir: Path | str | None = None) -> bool:
    """Rewrite the findings block of ``readme`` from the reports; True if it changed."""
    _, optimum, times = tables(reports_dir)
    block = "\n".join(f"- {line}" for line in findings(optimum, times))
    return reports.rewrite_block(readme, README_MARKERS, block)


def draw(spec, out_dir=None, reports_dir=None) -> list[Path]:
    """Draw the figure, write the time-to-ε table and the optimum table; returns the paths."""
    frames, optimum, times = tables(reports_dir)

    fig, axes = plt.subplots(len(frames), 4, figsize=(18, 4.2 * len(frames)), squeeze=False)
    fig.set_layout_engine("constrained")
    for row, (ax_row, frame) in enumerate(zip(axes, frames.values(), strict=True)):
        name, n_train = dataset_name(frame), int(frame["n_train"].iloc[0])
        opt, tim = optimum[optimum["dataset"] == name], times[times["dataset"] == name]
        _panels(ax_row, opt, tim, n_train, row)
    unsure = optimum[~optimum["certified"]]
    fig.suptitle(
        "Beyond the studies: the λ sweeps at convergence "
        + ("(certified optima)" if unsure.empty else "(optima, not all certified)")
    )
    runs = ", ".join(f"{dataset_name(f)} {runs_per_algorithm(f)}" for f in frames.values())
    left = "Left: the certified optimum w* at each λ (relative duality gap ≤ 1e-10)"
    if len(unsure):
        left = (
            "Left: the exact engine's optimum w* at each λ, certified to a relative duality gap "
            "≤ 1e-10 except (not certified, CPU budget ended) "
            + "; ".join(f"{r.dataset} λ = {r.lmbd:.3g}: relative gap {r.rel_gap:.1g}"
                        for r in unsure.itertuples())
            + ", where w* is its best point and P* only bounded"
        )  # fmt: skip
    footnote(
        fig,
        f"{left}: its error "
        "(test set; training set on the genomic SUBSTITUTE data, which has no test split) and "
        "P*. Right: per configuration, the median over runs of the cumulative update-loop CPU "
        "time at the first recorded epoch where the certified bound (P(w) − D(α*))/D(α*) ≤ ε; "
        "× above the dotted line: the median run does not reach ε within its epochs. Ringed "
        "(and on the grey line): the fastest configuration at each λ. "
        f"{_to_convergence_note(frames)} The smoothed-hinge "
        "solvers converge to the smoothed problem's optimum, whose hinge objective exceeds P*: "
        f"for them × can mean that bias, not slowness. Runs per configuration: {runs}.",
        width=200,
    )
    paths = save_figure(fig, out_dir, NAME)
    folder = output_dir(out_dir)
    optimum_csv = folder / f"{NAME}_optima.csv"
    optimum.to_csv(optimum_csv, index=False)
    times = with_fastest(times)
    shown = times.assign(
        λ=[
            _lmbd_label(v, int(frames[e]["n_train"].iloc[0]))
            for v, e in zip(times["lmbd"], times["experiment"], strict=True)
        ],
        ε=times["eps"].map(lambda e: f"{e:g}"),
        **{"CPU time (runs reaching)": times.apply(_fmt_time, axis=1)},
    )[["dataset", "λ", "algorithm", "ε", "CPU time (runs reaching)"]]
    title = "The λ sweeps at convergence: CPU time to a relative suboptimality"
    paths += write_table(times, shown, out_dir, f"{NAME}_table", title, findings(optimum, times))
    return [*paths, optimum_csv]
