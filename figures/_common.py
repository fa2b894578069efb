"""Shared helpers of the figure and table scripts: inputs, aggregation over seeds, style, output.

Inputs (reports only; STYLE.md practices 11-12)
    :func:`load` (a report; a missing one is an error naming its ``make`` target),
    :func:`load_coef`, :func:`load_sidecar`, :func:`load_optima`, :func:`existing_reports`.
Aggregation at plot time (reused by the scorecard)
    :func:`select` (configs by tag), :func:`band` (mean and 10-90 % quantiles over seeds at each
    epoch), :func:`curves` (a band plus the mean cumulative CPU time), :func:`final` (last-epoch
    rows), :func:`time_to` (first epoch where the mean over seeds reaches a threshold),
    :func:`with_suboptimality` (joins the certified optima), :func:`runs_phrase`.
Style
    :func:`style_for` (one colour family per algorithm: SDCA blue, Pegasos orange/red, ASDCA
    green; averaged output dashed), :func:`shades`, :func:`time_unit`.
Output
    :func:`save_figure` (PDF + PNG), :func:`write_table` (Markdown, CSV, PNG), :func:`cli`.

Every curve is the mean over the seeds present in the report, with a band between the 10 % and
90 % quantiles over seeds at each epoch. Runs of one experiment all have the same epochs, so
the seeds are aggregated epoch by epoch, never interpolated. A "CPU time" axis places epoch
``k`` at the mean over seeds of the cumulative update-loop CPU time after ``k`` epochs (bands
stay vertical: they are quantiles of the plotted value at that epoch).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from experiments import optima, reports
from experiments.reports import MissingInputError

REPO = Path(__file__).resolve().parents[1]

#: Columns that identify one run of one experiment.
RUN_COLUMNS = ("experiment", "config", "seed_index")


# =============================================================================== locations


def reports_root(reports_dir: Path | str | None = None) -> Path:
    """The reports folder: ``reports_dir``, else ``$SVM_REPORTS_DIR``, else ``<repo>/reports``."""
    return reports.reports_dir(reports_dir)


def output_dir(out_dir: Path | str | None = None) -> Path:
    """Where figures go: ``out_dir``, else ``$SVM_FIGURES_DIR``, else ``<repo>/output/figures``.

    The folder is created. ``output/`` is git-ignored: outputs are rebuilt, never committed.
    """
    path = Path(out_dir or os.environ.get("SVM_FIGURES_DIR") or REPO / "output" / "figures")
    path.mkdir(parents=True, exist_ok=True)
    return path


def make_target(name: str) -> str:
    """The command that builds report ``name``."""
    return f"make reports/{name}.parquet"


# =============================================================================== inputs
# (the loaders of experiments.reports: a missing input names the make target that builds it)
load = reports.load_report
load_coef = reports.load_coef
load_sidecar = reports.load_sidecar


def load_optima(reports_dir: Path | str | None = None) -> pd.DataFrame:
    """Every certified optimum as a table (:func:`experiments.optima.load_all`).

    Returns
    -------
    DataFrame
        One row per stored optimum: ``dataset_key``, ``lmbd``, ``primal`` (≥ P*), ``dual``
        (≤ P*), ``gap`` and the other stored fields. Empty (with those columns) if none.
    """
    records = optima.load_all(reports_dir)
    columns = ["dataset_key", "lmbd", "primal", "dual", "gap"]
    return pd.DataFrame.from_records(records) if records else pd.DataFrame(columns=columns)


def existing_reports(reports_dir: Path | str | None = None) -> list[str]:
    """Names of the catalogue's experiments whose report exists, in catalogue order."""
    from experiments import CATALOGUE

    root = reports_root(reports_dir)
    return [name for name in CATALOGUE if (root / f"{name}.parquet").is_file()]


# =============================================================================== aggregation


def tag_mask(frame: pd.DataFrame, *tags: str) -> pd.Series:
    """Rows whose comma-joined ``tags`` contain every one of ``tags`` (exact tag match)."""
    sets = frame["tags"].fillna("").map(lambda s: set(s.split(",")))
    return sets.map(lambda s: set(tags) <= s).astype(bool)


def select(frame: pd.DataFrame, *tags: str, solver: str | None = None) -> pd.DataFrame:
    """Rows of the configs carrying every tag in ``tags`` (and of ``solver`` if given).

    Raises
    ------
    ValueError
        No row matches (a figure would silently be empty).
    """
    mask = tag_mask(frame, *tags)
    if solver is not None:
        mask &= frame["solver"] == solver
    out = frame[mask]
    if out.empty:
        experiments = sorted(frame["experiment"].unique()) if len(frame) else []
        raise ValueError(f"no config of {experiments} has tags {tags} (solver={solver})")
    return out


def config_order(frame: pd.DataFrame) -> list[str]:
    """Config labels in order of first appearance (the catalogue's order in a report)."""
    return list(pd.unique(frame["config"]))


def band(
    frame: pd.DataFrame, value: str, by: Sequence[str] = ("config",), x: str = "epoch"
) -> pd.DataFrame:
    """Mean and 10-90 % quantile band over seeds of ``value``, per group and ``x``.

    Parameters
    ----------
    frame : DataFrame
        Report rows (one per run and epoch).
    value : str
        Column to aggregate.
    by : sequence of str
        Grouping columns (default: one curve per config).
    x : str
        The abscissa column, aggregated within (default ``"epoch"``).

    Returns
    -------
    DataFrame
        Columns ``*by, x, mean, q10, q90, n``: the mean, the 10 % and 90 % quantiles (linear
        interpolation, NumPy's default) and the number of non-missing values (seeds) at each
        ``x``; sorted by ``by`` then ``x``. Missing values (NaN) are left out of every
        statistic.
    """
    keys = [*by, x]
    groups = frame.groupby(keys, sort=True, dropna=False, observed=True)[value]
    out = groups.agg(mean="mean", n="count")
    out["q10"] = groups.quantile(0.1)
    out["q90"] = groups.quantile(0.9)
    return out.reset_index()[[*keys, "mean", "q10", "q90", "n"]]


def curves(
    frame: pd.DataFrame,
    value: str,
    by: Sequence[str] = ("config",),
    time: str = "cpu_time_cum",
) -> pd.DataFrame:
    """:func:`band` of ``value`` per epoch, plus ``time``: the mean over seeds of ``time``.

    ``time`` is the cumulative CPU time of the update loop by default: the abscissa of every
    "vs CPU time" panel.
    """
    out = band(frame, value, by, "epoch")
    mean_time = frame.groupby([*by, "epoch"], sort=True, dropna=False, observed=True)[time].mean()
    return out.merge(mean_time.rename("time").reset_index(), on=[*by, "epoch"], how="left")


def final(frame: pd.DataFrame, run: Sequence[str] = RUN_COLUMNS) -> pd.DataFrame:
    """Rows at the last epoch of each run (``run`` columns identify a run)."""
    last = frame.groupby(list(run), dropna=False, observed=True)["epoch"].transform("max")
    return frame[frame["epoch"] == last]


def time_to(
    frame: pd.DataFrame,
    value: str,
    threshold: float,
    by: Sequence[str] = ("config",),
    time: str = "cpu_time_cum",
) -> pd.DataFrame:
    """First epoch where the mean over seeds of ``value`` is ``<= threshold``, and its time.

    Returns
    -------
    DataFrame
        One row per group: ``*by, epoch, time, reached``. ``epoch`` and ``time`` (the mean
        over seeds of ``time`` at that epoch) are NaN and ``reached`` is False when the mean
        never reaches the threshold.
    """
    c = curves(frame, value, by, time)
    rows = []
    for key, group in c.groupby(list(by), sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        hit = group[group["mean"] <= threshold].sort_values("epoch")
        if len(hit):
            rows.append((*key, float(hit["epoch"].iloc[0]), float(hit["time"].iloc[0]), True))
        else:
            rows.append((*key, math.nan, math.nan, False))
    return pd.DataFrame(rows, columns=[*by, "epoch", "time", "reached"])


def with_suboptimality(frame: pd.DataFrame, optima: pd.DataFrame) -> pd.DataFrame:
    """Join the certified optimum of each row's (dataset, λ) and add the suboptimality bound.

    Certified optima (:mod:`experiments.optima`) bound P* from both sides: ``dual <= P* <=
    primal``. Added columns: ``p_star_dual`` and ``p_star_primal`` (the two bounds),
    ``certificate_gap`` (their difference: the floor below which nothing is signal) and
    ``suboptimality = primal - p_star_dual``, a certified upper bound of P(w) − P* (P is the
    hinge objective of the iterate, whatever loss the solver optimises).

    Raises
    ------
    MissingInputError
        Some (dataset_key, λ) of ``frame`` has no stored optimum; names the command.
    """
    pairs = frame[["experiment", "dataset_key", "lmbd"]].drop_duplicates(["dataset_key", "lmbd"])
    rows, missing = [], []
    for exp, key, lmbd in pairs.itertuples(index=False):
        cand = optima[optima["dataset_key"] == key] if len(optima) else optima
        cand = cand[np.isclose(cand["lmbd"].astype(float), lmbd, rtol=1e-9, atol=0.0)]
        if cand.empty:
            missing.append((exp, key, lmbd))
        else:
            best = cand.iloc[0]
            rows.append(
                (key, lmbd, float(best["dual"]), float(best["primal"]), float(best["gap"]))
            )
    if missing:
        lines = "; ".join(
            f"{key} λ={lmbd:.6g}: run `python -m experiments run {exp}`"
            for exp, key, lmbd in missing
        )
        raise MissingInputError(
            f"no certified optimum for {lines} (it computes the optima first and reuses "
            "finished runs)"
        )
    columns = ["dataset_key", "lmbd", "p_star_dual", "p_star_primal", "certificate_gap"]
    out = frame.merge(pd.DataFrame(rows, columns=columns), on=["dataset_key", "lmbd"], how="left")
    out.index = frame.index
    out["suboptimality"] = out["primal"] - out["p_star_dual"]
    return out


def n_runs(frame: pd.DataFrame) -> tuple[int, int]:
    """Fewest and most seeds of any config in ``frame``."""
    counts = frame.groupby("config", observed=True)["seed_index"].nunique()
    return int(counts.min()), int(counts.max())


def runs_phrase(frame: pd.DataFrame) -> str:
    """``"mean over 100 runs"`` (or ``"mean over 3–5 runs"`` when configs differ)."""
    lo, hi = n_runs(frame)
    count = f"{lo}" if lo == hi else f"{lo}–{hi}"
    return f"mean over {count} run{'s' if hi > 1 else ''}"


def dataset_label(frame: pd.DataFrame) -> str:
    """The dataset's title from the report, flagged when it is a substitute."""
    titles = list(pd.unique(frame["dataset_title"]))
    title = "; ".join(str(t) for t in titles)
    if bool(frame["substitute"].any()) and "substitute" not in title.lower():
        title += " (SUBSTITUTE data)"
    return title


def lmbd_text(lmbd: float, n_train: int | None = None) -> str:
    """``λ = 0.01`` (``λ = 1/n = 2e-04`` when λ is 1/n_train)."""
    if n_train and math.isclose(lmbd, 1.0 / n_train, rel_tol=1e-9):
        return f"λ = 1/n = {lmbd:.2g}"
    return f"λ = {lmbd:g}"


# =============================================================================== style

FAMILY_COLOURMAP = {"sdca": "Blues", "pegasos": "Oranges", "asdca": "Greens"}

#: (pattern on the lower-case label without "(averaged)", colour), first match wins.
_COLOURS = (
    (r"asdca.*paper", "#74c476"),
    (r"asdca", "#1b7837"),
    (r"smooth", "#6a51a3"),
    (r"sgd", "#17a3c9"),
    (r"cyclic", "#9ecae1"),
    (r"perm", "#4292c6"),
    (r"sdca", "#08306b"),
    (r"(mini-batch|k=([2-9]|\d\d+)).*project", "#8c0d0d"),
    (r"(mini-batch|k=([2-9]|\d\d+))", "#e31a1c"),
    (r"pegasos.*project", "#d94801"),
    (r"pegasos", "#fdae6b"),
)
_FALLBACK = {"sdca": "#2171b5", "asdca": "#238b45", "pegasos": "#f16913"}


def base_label(label: str) -> str:
    """A config label without its ``" (averaged)"`` suffix and ``" λ=..."`` part."""
    label = label.replace(" (averaged)", "")
    return re.sub(r"\s*λ=\S+", "", label).strip()


def style_for(label: str, solver: str | None = None) -> dict:
    """Line style of a config: colour by algorithm family and variant; averaged output dashed.

    SDCA variants are blues (random darkest, cyclic lightest, smoothed purple-blue), Pegasos
    oranges (projected darker), mini-batch Pegasos reds, ASDCA greens (paper θ lighter).
    """
    text = base_label(label).lower()
    colour = next((c for pattern, c in _COLOURS if re.search(pattern, text)), None)
    if colour is None:
        colour = _FALLBACK.get(solver or "", "#555555")
    averaged = "averaged" in label.lower()
    return {"color": colour, "linestyle": "--" if averaged else "-", "linewidth": 1.8}


def shades(solver: str, n: int) -> list:
    """``n`` colours of the solver's family, light to dark (for λ sweeps)."""
    cmap = plt.get_cmap(FAMILY_COLOURMAP.get(solver, "Greys"))
    return [cmap(v) for v in np.linspace(0.4, 0.95, n)] if n > 1 else [cmap(0.8)]


def time_unit(seconds: float) -> tuple[float, str]:
    """``(factor, unit)`` to show times up to ``seconds`` readably (µs, ms or s)."""
    if not np.isfinite(seconds) or seconds >= 1.0:
        return 1.0, "s"
    if seconds >= 1e-3:
        return 1e3, "ms"
    return 1e6, "µs"


def cpu_axis_label(frame: pd.DataFrame, unit: str) -> str:
    """Label of a CPU-time axis: what is timed, the unit and the number of runs."""
    return f"CPU time of the update loop, {unit} ({runs_phrase(frame)})"


def setup_style() -> None:
    """Readable defaults for every figure (Agg backend, fonts, grid, legend)."""
    plt.rcParams.update(
        {
            "font.size": 10,
            "axes.titlesize": 11,
            "axes.labelsize": 10,
            "legend.fontsize": 8.5,
            "legend.framealpha": 0.85,
            "xtick.labelsize": 9,
            "ytick.labelsize": 9,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "pdf.fonttype": 42,
        }
    )


setup_style()


# =============================================================================== plotting


def plot_curves(
    ax,
    frame: pd.DataFrame,
    value: str,
    x: str = "epoch",
    order: Sequence[str] | None = None,
    styles: dict[str, dict] | None = None,
    labels: dict[str, str] | None = None,
    time_factor: float = 1.0,
    positive: bool = False,
) -> None:
    """One mean curve with its 10-90 % band per config of ``frame``.

    Parameters
    ----------
    ax : matplotlib Axes
    frame : DataFrame
        Report rows of the configs to draw.
    value : str
        Column on the y axis.
    x : {"epoch", "time"}
        Abscissa: the epoch, or the mean cumulative CPU time (times ``time_factor``).
    order, styles, labels : optional
        Config order (default: report order), line styles (default :func:`style_for`) and
        legend labels (default: the config label).
    positive : bool
        Drop non-positive values from the band and curve (log-scale axes).
    """
    c = curves(frame, value)
    solver = frame.groupby("config", observed=True)["solver"].first()
    n_epochs = int(frame["epoch"].max())
    for config in order or config_order(frame):
        sub = c[c["config"] == config].sort_values("epoch")
        xs = sub["epoch"] if x == "epoch" else sub["time"] * time_factor
        mean, low, high = sub["mean"], sub["q10"], sub["q90"]
        if positive:
            mean, low, high = (s.where(s > 0) for s in (mean, low, high))
        style = (styles or {}).get(config) or style_for(config, solver.get(config))
        if n_epochs <= 12:
            style = {"marker": "o", "markersize": 3.5, **style}
        ax.plot(xs, mean, label=(labels or {}).get(config, config), **style)
        ax.fill_between(xs, low, high, color=style["color"], alpha=0.18, linewidth=0)
    if x == "epoch":
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def objective_panels(
    frame: pd.DataFrame,
    title: str,
    value: str = "primal",
    ylabel: str = "primal objective P(w) (hinge), log scale",
    order: Sequence[str] | None = None,
    styles: dict[str, dict] | None = None,
    labels: dict[str, str] | None = None,
    note: str = "",
):
    """Two panels: ``value`` (log scale) (a) vs epochs and (b) vs mean CPU time.

    Returns
    -------
    matplotlib Figure
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3), sharey=True, layout="constrained")
    factor, unit = time_unit(float(frame["cpu_time_cum"].max()))
    kw = {"order": order, "styles": styles, "labels": labels, "positive": True}
    plot_curves(axes[0], frame, value, "epoch", **kw)
    plot_curves(axes[1], frame, value, "time", time_factor=factor, **kw)
    axes[0].set_xlabel("epoch (n samples processed per epoch)")
    axes[1].set_xlabel(cpu_axis_label(frame, unit))
    axes[0].set_ylabel(ylabel)
    for ax, letter in zip(axes, "ab", strict=True):
        ax.set_yscale("log")
        ax.set_title(f"({letter}) vs {'epochs' if letter == 'a' else 'CPU time'}", loc="left")
    axes[0].legend(loc="upper right")
    fig.suptitle(title)
    footnote(fig, f"{band_note(frame)} {note}".strip())
    return fig


def band_note(frame: pd.DataFrame) -> str:
    """Standard caption sentence on the aggregation (number of runs, band, CPU time)."""
    lo, hi = n_runs(frame)
    count = f"{lo}" if lo == hi else f"{lo}–{hi}"
    return (
        f"Lines: mean over {count} runs (seeds); bands: 10–90 % quantiles over runs at each "
        "epoch. CPU time: mean over runs of the cumulative CPU time of the update loop at each "
        "epoch (epoch 1 includes the one-pass precomputation; metrics are not timed)."
    )


def footnote(fig, text: str, width: int = 150) -> None:
    """A caption under the figure (wrapped; kept by the tight bounding box when saving)."""
    fig.text(0.0, -0.01, textwrap.fill(text, width), ha="left", va="top", fontsize=8)


def suptitle_for(frame: pd.DataFrame, what: str) -> str:
    """``"<what> — <dataset title>, λ = ..."`` (one λ) for a figure title."""
    lmbds = sorted(pd.unique(frame["lmbd"]))
    n_train = int(frame["n_train"].iloc[0])
    lam = lmbd_text(lmbds[0], n_train) if len(lmbds) == 1 else "several λ"
    return f"{what}\n{dataset_label(frame)}, {lam}"


# =============================================================================== output


def save_figure(fig, out_dir: Path | str | None, name: str) -> list[Path]:
    """Write ``<name>.pdf`` and ``<name>.png`` (no timestamps in the PDF), close the figure."""
    folder = output_dir(out_dir)
    paths = [folder / f"{name}.pdf", folder / f"{name}.png"]
    fig.savefig(paths[0], bbox_inches="tight", metadata={"CreationDate": None})
    fig.savefig(paths[1], bbox_inches="tight")
    plt.close(fig)
    return paths


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (values as already formatted)."""
    cells = frame.astype(str)
    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(row) + " |" for row in cells.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def write_table(
    data: pd.DataFrame,
    shown: pd.DataFrame,
    out_dir: Path | str | None,
    name: str,
    title: str,
    notes: Iterable[str] = (),
) -> list[Path]:
    """Write a table as ``<name>.csv`` (``data``: numbers), ``.md`` and ``.png`` (``shown``).

    Parameters
    ----------
    data : DataFrame
        Machine-readable values (full precision).
    shown : DataFrame
        The formatted table for people (strings).
    title : str
        Heading of the Markdown file and of the PNG.
    notes : iterable of str
        Footnotes (Markdown and PNG).
    """
    folder = output_dir(out_dir)
    notes = list(notes)
    csv, md, png = (folder / f"{name}.{ext}" for ext in ("csv", "md", "png"))
    data.to_csv(csv, index=False)
    text = [f"## {title}", "", markdown_table(shown), ""]
    text += [f"- {n}" for n in notes]
    md.write_text("\n".join(text).rstrip() + "\n")

    render_table_png(shown, png, title, notes)
    return [md, csv, png]


def render_table_png(shown: pd.DataFrame, path: Path, title: str, notes: Sequence[str] = ()):
    """Draw a formatted table (long cells wrapped) with its title and notes into ``path``."""
    wrap = 40
    cells = shown.astype(str).map(lambda v: textwrap.fill(v, wrap) if len(v) > wrap else v)
    header = [textwrap.fill(str(c), wrap) for c in shown.columns]
    lines = [max(h.count("\n") + 1 for h in header)]
    lines += [max(v.count("\n") + 1 for v in row) for row in cells.to_numpy()]
    widths = [
        max(5, *(len(line) + 2 for text in [h, *cells[c]] for line in text.split("\n")))
        for h, c in zip(header, cells.columns, strict=True)
    ]
    fig_w = min(max(5.0, 0.075 * sum(widths) + 0.8), 24.0)
    row_h = [0.17 * n + 0.1 for n in lines]
    fig = plt.figure(figsize=(fig_w, sum(row_h)))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.axis("off")
    table = ax.table(
        cellText=cells.to_numpy(),
        colLabels=header,
        colWidths=[w / sum(widths) for w in widths],
        cellLoc="left",
        bbox=(0, 0, 1, 1),
    )
    table.auto_set_font_size(False)
    table.set_fontsize(8.5)
    for (row, _), cell in table.get_celld().items():
        cell.set_height(row_h[row] / sum(row_h))
        cell.PAD = 0.03
        if row == 0:
            cell.set_text_props(weight="bold")
            cell.set_facecolor("#e8eef7")
    fig.suptitle(title, y=1.0 + 0.12 / sum(row_h), va="bottom", fontsize=11)
    if notes:
        fig.text(
            0.0,
            -0.1 / sum(row_h),
            textwrap.fill(" ".join(notes), int(fig_w * 15)),
            ha="left",
            va="top",
            fontsize=8,
        )
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)


def cli(main: Callable[..., list[Path]], name: str, argv: Sequence[str] | None = None) -> int:
    """Command line of one script: ``python -m figures.<name> [--out DIR] [--reports DIR]``."""
    parser = argparse.ArgumentParser(prog=f"python -m figures.{name}", description=main.__doc__)
    parser.add_argument("--out", default=None, help="output folder (default: output/figures)")
    parser.add_argument("--reports", default=None, help="reports folder (default: reports)")
    args = parser.parse_args(argv)
    try:
        paths = main(out_dir=args.out, reports_dir=args.reports)
    except FileNotFoundError as exc:  # missing report or dataset: the message names the fix
        print(f"{name}: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0


# =============================================================================== study 000


def loss_and_error(frame: pd.DataFrame, title: str, note: str = ""):
    """Study 000 layout: (a) training loss (log) vs CPU time, (b) test error vs epochs.

    Returns
    -------
    matplotlib Figure
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3), layout="constrained")
    factor, unit = time_unit(float(frame["cpu_time_cum"].max()))
    plot_curves(axes[0], frame, "primal", "time", time_factor=factor, positive=True)
    axes[0].set_yscale("log")
    axes[0].set_xlabel(cpu_axis_label(frame, unit))
    axes[0].set_ylabel("training loss P(w) (hinge + λ/2‖w‖²), log scale")
    axes[0].set_title("(a) training loss vs CPU time", loc="left")
    plot_curves(axes[1], frame, "test_error", "epoch")
    axes[1].set_xlabel("epoch (n samples processed per epoch)")
    axes[1].set_ylabel("test error (fraction misclassified)")
    axes[1].set_title("(b) test error vs epochs", loc="left")
    axes[0].legend(loc="upper right")
    fig.suptitle(title)
    footnote(fig, f"{band_note(frame)} {note}".strip())
    return fig


# =============================================================================== study 001

EPOCH_NOTE = (
    "An epoch is n samples processed whatever the batch size (the study ran its mini-batch "
    "methods for n·epochs batches, i.e. batch-size times more data)."
)
ASDCA_NOTE = (
    "ASDCA optimises the smoothed hinge; like every curve, its curve is the hinge objective "
    "of the iterate (as in the study)."
)


def objective_figure(
    name: str,
    report: str,
    tags: Sequence[str],
    what: str,
    out_dir: Path | str | None,
    reports_dir: Path | str | None,
    note: str = "",
) -> list[Path]:
    """Study 001 layout: primal objective of the configs tagged ``tags``, vs epochs and CPU time.

    Parameters
    ----------
    name : str
        Output stem.
    report : str
        Report to read.
    tags : sequence of str
        Configs carrying every one of these tags are drawn.
    what : str
        Title (the dataset title and λ are appended from the report).
    note : str
        Extra caption text.
    """
    frame = select(load(report, reports_dir), *tags)
    fig = objective_panels(frame, suptitle_for(frame, what), note=note)
    return save_figure(fig, out_dir, name)


def lambda_figure(
    name: str,
    report: str,
    algorithm: str,
    what: str,
    out_dir: Path | str | None,
    reports_dir: Path | str | None,
    note: str = "",
) -> list[Path]:
    """Study 001 λ sweep: primal objective of one algorithm for every λ (one curve per λ).

    Parameters
    ----------
    algorithm : str
        The catalogue tag of the algorithm in the sweep (configs tagged ``"lambda"`` and
        ``algorithm``).
    """
    frame = select(load(report, reports_dir), "lambda", algorithm)
    lmbd = frame.groupby("config", observed=True)["lmbd"].first().sort_values(ascending=False)
    solver = str(frame["solver"].iloc[0])
    colours = shades(solver, len(lmbd))[::-1]
    styles = {
        c: {"color": col, "linewidth": 1.8} for c, col in zip(lmbd.index, colours, strict=True)
    }
    labels = {c: f"λ = {v:g}" for c, v in lmbd.items()}
    title = f"{what}\n{dataset_label(frame)}"
    fig = objective_panels(
        frame, title, order=list(lmbd.index), styles=styles, labels=labels, note=note
    )
    return save_figure(fig, out_dir, name)


# =============================================================================== images


def image_grid(
    images: Sequence[np.ndarray],
    titles: Sequence[str],
    ncols: int,
    row_labels: Sequence[str] = (),
    cmap: str | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    panel_size: float = 2.2,
):
    """A grid of images without axes, titled, with optional row labels on the left.

    Returns
    -------
    matplotlib Figure
    """
    nrows = math.ceil(len(images) / ncols)
    h, w = np.asarray(images[0]).shape[:2]
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel_size * ncols, panel_size * nrows * h / w + 0.3 * nrows),
        squeeze=False,
        layout="constrained",
    )
    for ax in axes.flat:
        ax.axis("off")
    for ax, image, title in zip(axes.flat, images, titles, strict=False):
        ax.imshow(image, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_title(title, fontsize=8.5)
    for ax, label in zip(axes[:, 0], row_labels, strict=False):
        ax.axis("on")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_ylabel(label, fontsize=10, fontweight="bold")
    return fig


def pick_per_class(labels: np.ndarray, n_per_class: int, seed: int = 0) -> list[int]:
    """``n_per_class`` row indices of each class (−1 first), drawn without replacement."""
    rng = np.random.default_rng(seed)
    out = []
    for label in (-1, 1):
        idx = np.flatnonzero(np.asarray(labels) == label)
        out += sorted(
            int(i) for i in rng.choice(idx, size=min(n_per_class, idx.size), replace=False)
        )
    return out
