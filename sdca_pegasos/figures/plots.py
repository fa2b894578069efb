"""Plot kinds and output: the numbers of :mod:`sdca_pegasos.figures.common` -> figures and tables.

Kinds: :func:`curves` (a registry entry's configs in the panels of a :data:`LAYOUTS` entry, each
:class:`Panel` a metric vs epochs or vs CPU time; one curve per config or per λ), built on
:func:`curve_figure` (any layout, any report frame: ``python -m sdca_pegasos.compare`` draws with
it too); tables: :func:`write_table`. Style: :func:`style_for` (SDCA blue, Pegasos orange/red,
ASDCA green; averaged output dashed), :func:`distinct_styles` (colour-blind-safe colours and line
styles, all different), :func:`shades`, :func:`time_unit`.

Every curve is the mean over the seeds of the report with a band between the 10 % and 90 %
quantiles over seeds at each epoch (:func:`sdca_pegasos.figures.common.curves`): seeds are
aggregated epoch by epoch, never interpolated. A "CPU time" axis places epoch ``k`` at the mean
over seeds of the cumulative update-loop CPU time after ``k`` epochs (bands stay vertical)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from .common import (
    config_order,
    dataset_label,
    load,
    n_runs,
    output_dir,
    runs_count,
    runs_phrase,
    select,
    suptitle_for,
)
from .common import (
    curves as mean_curves,
)

# =============================================================================== style
FAMILY_COLOURMAP = {"sdca": "Blues", "pegasos": "Oranges", "asdca": "Greens"}
#: (pattern on the lower-case label without "(averaged)", colour), first match wins.
_COLOURS = (
    (r"asdca.*paper", "#74c476"),
    (r"asdca", "#1b7837"),
    (r"smooth", "#6a51a3"),
    (r"shrink", "#e7298a"),
    (r"exact", "#8c510a"),
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


def style_for(label: str, solver: str | None = None) -> dict:
    """Line style of a config: colour by algorithm family and variant; averaged output dashed.

    SDCA variants are blues (random darkest, cyclic lightest, smoothed purple-blue), Pegasos
    oranges (projected darker), mini-batch Pegasos reds, ASDCA greens (paper θ lighter);
    SDCA with shrinking magenta, the exact solver brown.
    """
    text = re.sub(r"\s*λ=\S+", "", label.replace(" (averaged)", "")).strip().lower()
    colour = next((c for pattern, c in _COLOURS if re.search(pattern, text)), None)
    colour = colour or _FALLBACK.get(solver or "", "#555555")
    averaged = "averaged" in label.lower()
    return {"color": colour, "linestyle": "--" if averaged else "-", "linewidth": 1.8}


#: Okabe and Ito's colour-blind-safe palette (without its yellow, too pale on white).
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
#: Line styles paired with them: a second cue, for print in grey and for any colour vision.
LINE_STYLES = ("-", "--", "-.", ":", (0, (6, 2, 1, 2, 1, 2)), (0, (1, 1)), (0, (8, 3)))


def distinct_styles(labels: Sequence[str]) -> dict[str, dict]:
    """One colour-blind-safe colour and one line style per label, all different (up to
    seven; beyond, colours repeat with another line style)."""
    n_col = len(OKABE_ITO)
    return {
        label: {
            "color": OKABE_ITO[i % n_col],
            "linestyle": LINE_STYLES[(i + i // n_col) % len(LINE_STYLES)],
            "linewidth": 1.8,
        }
        for i, label in enumerate(labels)
    }


def shades(solver: str, n: int) -> list:
    """``n`` colours of the solver's family, light to dark (for λ sweeps)."""
    cmap = plt.get_cmap(FAMILY_COLOURMAP.get(solver, "Greys"))
    return [cmap(v) for v in np.linspace(0.4, 0.95, n)] if n > 1 else [cmap(0.8)]


def time_unit(seconds: float) -> tuple[float, str]:
    """``(factor, unit)`` to show times up to ``seconds`` readably (µs, ms or s)."""
    if not np.isfinite(seconds) or seconds >= 1.0:
        return 1.0, "s"
    return (1e3, "ms") if seconds >= 1e-3 else (1e6, "µs")


def cpu_axis_label(frame: pd.DataFrame, unit: str) -> str:
    """Label of a CPU-time axis: what is timed, the unit and the number of runs."""
    return f"CPU time of the update loop, {unit} ({runs_phrase(frame)})"


plt.rcParams.update({
    "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 8.5,
    "legend.framealpha": 0.85, "xtick.labelsize": 9, "ytick.labelsize": 9, "axes.grid": True,
    "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False, "figure.dpi": 100,
    "savefig.dpi": 150, "pdf.fonttype": 42,
})  # fmt: skip


# =============================================================================== curves
def plot_curves(
    ax, frame, value, x="epoch", order=None, styles=None, labels=None, time_factor=1.0,
    positive=False,
) -> None:  # fmt: skip
    """One mean curve with its 10-90 % band per config of ``frame``.

    ``value``: the column on y; ``x``: ``"epoch"`` or ``"time"`` (the mean cumulative CPU
    time, times ``time_factor``); ``order``, ``styles``, ``labels``: config order (default:
    report order), line styles (default :func:`style_for`) and legend labels (default: the
    config label); ``positive``: drop non-positive values (log-scale axes).
    """
    c = mean_curves(frame, value)
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


@dataclass(frozen=True)
class Panel:
    """One panel of a curve figure: ``value`` vs ``x`` (``"epoch"`` or ``"time"``)."""

    value: str
    x: str
    ylabel: str = ""  # "" on a panel sharing the y axis of the first
    title: str = ""
    log: bool = True  # log y axis; non-positive values are not drawn


def vs_epochs_and_time(value: str, ylabel: str) -> tuple[Panel, Panel]:
    """(a) ``value`` vs epochs and (b) vs CPU time, one y axis, log scale."""
    return Panel(value, "epoch", ylabel, "(a) vs epochs"), Panel(
        value, "time", "", "(b) vs CPU time"
    )


#: Named layouts of :func:`curves` (a registry entry's ``layout``).
LAYOUTS = {
    "objective": vs_epochs_and_time("primal", "primal objective P(w) (hinge), log scale"),
    "loss_error": (
        Panel("primal", "time", "training loss P(w) (hinge + λ/2‖w‖²), log scale",
              "(a) training loss vs CPU time"),
        Panel("test_error", "epoch", "test error (fraction misclassified)",
              "(b) test error vs epochs", log=False),
    ),
    "gap": (Panel("gap", "epoch", "duality gap P(w(α)) − D(α), log scale"),),
    "shrinking": (Panel("gap", "time", "duality gap P(w(α)) − D(α), log scale", "(a) vs CPU time"),
                  Panel("n_active", "epoch", "samples swept (active set)", "(b) active set",
                        log=False)),
}  # fmt: skip
EPOCH_AXIS = "epoch (n samples processed per epoch)"


def band_note(frame: pd.DataFrame) -> str:
    """Standard caption sentence on the aggregation (number of runs, band, CPU time)."""
    lo, hi = n_runs(frame)
    runs = f"{runs_count(lo, hi)} run{'s' if hi > 1 else ''}"
    return (
        f"Lines: mean over {runs} (seeds); bands: 10–90 % quantiles "
        "over runs at each epoch. CPU time: mean over runs of the cumulative CPU time of the "
        "update loop at each epoch (epoch 1 includes the one-pass precomputation; metrics are "
        "not timed)."
    )


def footnote(fig, text: str, width: int = 150) -> None:
    """A caption under the figure (wrapped; kept by the tight bounding box when saving)."""
    fig.text(0.0, -0.01, textwrap.fill(text, width), ha="left", va="top", fontsize=8)


def curve_figure(frame, panels, title, note="", order=None, styles=None, labels=None):
    """A row of :class:`Panel` s (or a :data:`LAYOUTS` name) of the configs of ``frame``.

    Panels on one metric share their y axis; the legend is on the first panel; the caption
    is :func:`band_note` and ``note``. Returns the matplotlib Figure.
    """
    panels = LAYOUTS[panels] if isinstance(panels, str) else panels
    shared = len(panels) > 1 and len({p.value for p in panels}) == 1
    fig, axes = plt.subplots(
        1, len(panels), figsize=(11, 4.3) if len(panels) > 1 else (6.5, 4.3),
        layout="constrained", squeeze=False, **({"sharey": True} if shared else {}),
    )  # fmt: skip
    factor, unit = time_unit(float(frame["cpu_time_cum"].max()))
    for ax, p in zip(axes.flat, panels, strict=True):
        kw = {"order": order, "styles": styles, "labels": labels, "positive": p.log}
        plot_curves(ax, frame, p.value, p.x, time_factor=factor, **kw)
        ax.set_xlabel(EPOCH_AXIS if p.x == "epoch" else cpu_axis_label(frame, unit))
        if p.ylabel:
            ax.set_ylabel(p.ylabel)
        if p.log:
            ax.set_yscale("log")
        if p.title:
            ax.set_title(p.title, loc="left")
    axes.flat[0].legend(loc="upper right")
    fig.suptitle(title)
    footnote(fig, f"{band_note(frame)} {note}".strip(), 150 if len(panels) > 1 else 100)
    return fig


def by_lambda(frame: pd.DataFrame) -> dict:
    """Order, styles and labels of one curve per λ (one algorithm: shades of its family)."""
    lmbd = frame.groupby("config", observed=True)["lmbd"].first().sort_values(ascending=False)
    colours = shades(str(frame["solver"].iloc[0]), len(lmbd))[::-1]
    styles = {c: {"color": col, "linewidth": 1.8} for c, col in zip(lmbd.index, colours)}  # noqa: B905
    labels = {c: f"λ = {v:g}" for c, v in lmbd.items()}
    return {"order": list(lmbd.index), "styles": styles, "labels": labels}


def curves(spec, out_dir=None, reports_dir=None) -> list[Path]:
    """The ``curves`` kind: the configs of ``spec.reports[0]`` tagged ``spec.select`` (and
    of ``spec.solver``) in the panels of ``spec.layout``, titled ``spec.heading`` and the
    dataset (and λ, unless ``spec.by == "lambda"``), captioned ``spec.caption``."""
    frame = select(load(spec.reports[0], reports_dir), *spec.select, solver=spec.solver)
    if spec.by == "lambda":
        title, kw = f"{spec.heading}\n{dataset_label(frame)}", by_lambda(frame)
    else:
        title, kw = suptitle_for(frame, spec.heading), {}
    fig = curve_figure(frame, spec.layout, title, spec.caption, **kw)
    return save_figure(fig, out_dir, spec.name)


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
    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(row) + " |" for row in frame.astype(str).itertuples(index=False)]
    return "\n".join([head, rule, *body])


def write_table(data, shown, out_dir, name: str, title: str, notes: Iterable[str] = ()):
    """Write a table as ``<name>.csv`` (``data``: numbers, full precision), ``.md`` and
    ``.png`` (``shown``: the formatted strings), with ``title`` and footnotes ``notes``."""
    folder, notes = output_dir(out_dir), list(notes)
    csv, md, png = (folder / f"{name}.{ext}" for ext in ("csv", "md", "png"))
    data.to_csv(csv, index=False)
    text = [f"## {title}", "", markdown_table(shown), "", *(f"- {n}" for n in notes)]
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
        text = textwrap.fill(" ".join(notes), int(fig_w * 15))
        fig.text(0.0, -0.1 / sum(row_h), text, ha="left", va="top", fontsize=8)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
