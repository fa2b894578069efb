"""Reporting the time-to-ε benchmark, at report time, from the long-format table alone.

:func:`summarise` gives the time to each ε per problem × solver (the better knob, median
over repetitions) and the ratio to the fastest peer; :func:`markdown` the table (its first
part, :func:`headline`, is the README's; the whole is ``docs/speed.md``'s); :func:`plot`
suboptimality vs CPU time, one panel per problem; :func:`problem_record` and :func:`write`
the sidecar and every output of ``benchmarks/peers.py``.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from sdca_pegasos.experiments.reports import rewrite_block, short_commit

from .certify import TARGETS, Bounds
from .problems import Problem


def time_to(g: pd.DataFrame, eps: float) -> tuple[float, str]:
    """Time to ε of one solver on one problem: per sweep (knob), the monotone time of the
    first fit at ε, median over repetitions; the better knob, and which one it was."""
    best, which = math.inf, ""
    for knob, k in g.groupby("knob", sort=False):
        times = []
        for _, rep in k.groupby("repetition"):
            hit = rep.loc[rep["rel_subopt"] <= eps, "cpu_monotone"]
            times.append(float(hit.iloc[0]) if len(hit) else math.inf)
        t = float(np.median(times))
        if t < best:
            best, which = t, knob
    return best, which


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Time to each ε per problem × solver, best suboptimality and how the sweep that got
    it stopped, and the ratio to the best peer (> 1: slower than the fastest peer)."""
    out = []
    for (problem, solver), g in df.groupby(["problem", "solver"], sort=False):
        best_row = g.loc[g["rel_subopt"].idxmin()]
        row = {
            "problem": problem,
            "title": g["title"].iloc[0],
            "solver": solver,
            "family": g["family"].iloc[0],
            "best_rel_subopt": float(best_row["rel_subopt"]),
            "best_knob": best_row["knob"],
            "stop_reason": best_row["stop_reason"],
            "pstar_gap_rel": float(g["pstar_gap_rel"].iloc[0]),
        }
        for eps in TARGETS:
            row[f"t_{eps:.0e}"], row[f"knob_{eps:.0e}"] = time_to(g, eps)
        out.append(row)
    summary = pd.DataFrame(out)
    for eps in TARGETS:
        col = f"t_{eps:.0e}"
        best = summary[summary["family"] == "peer"].groupby("problem")[col].min()
        summary[f"ratio_{eps:.0e}"] = summary[col] / summary["problem"].map(best)
    return summary


def _cell(t: float, best: float, reason: str) -> str:
    if math.isfinite(t):
        return f"{t:.2g} s" if t < 10 else f"{t:.0f} s"
    dagger = "†" if reason == "budget" else ""
    return f"stalls at {best:.0e}{dagger}"


def _ratio(r: float) -> str:
    return f"{r:.2g}" if math.isfinite(r) else "—"


def _short(solver: str) -> str:
    """ "SDCA-Perm + shrinking (ours)" -> "SDCA-Perm + shrinking"; a peer -> its package."""
    if solver.endswith(" (ours)"):
        return solver[: -len(" (ours)")]
    return "Snap ML" if solver.startswith("Snap ML") else solver.split()[0]


def headline(summary: pd.DataFrame) -> str:
    """Per problem and ε: our fastest solver against the fastest peer (the README table)."""
    lines = [
        "| problem | " + " | ".join(f"to {eps:.0e}: ours / best peer" for eps in TARGETS) + " |",
        "|---|" + "---|" * len(TARGETS),
    ]
    for _, g in summary.groupby("problem", sort=False):
        cells = []
        for eps in TARGETS:
            col = f"t_{eps:.0e}"
            side = []
            for family in ("ours", "peer"):
                f = g[g["family"] == family]
                if f.empty:
                    side.append(("—", math.nan))
                elif np.isfinite(f[col]).any():
                    r = f.loc[f[col].idxmin()]
                    side.append((f"{_cell(r[col], 0, '')} {_short(r['solver'])}", r[col]))
                else:
                    side.append((f"stalls at {f['best_rel_subopt'].min():.0e}", math.inf))
            ratio = side[0][1] / side[1][1]
            verdict = f" (**{ratio:.2g}×**)" if math.isfinite(ratio) and ratio > 0 else ""
            cells.append(f"{side[0][0]} / {side[1][0]}{verdict}")
        lines.append(f"| {g['title'].iloc[0]} | " + " | ".join(cells) + " |")
    lines += ["", "(**r×**: our time over the best peer's; > 1 means we are slower.)"]
    return "\n".join(lines) + "\n"


def markdown(summary: pd.DataFrame, meta: dict) -> str:
    head = [f"to {eps:.0e}" for eps in TARGETS]
    lines = [
        headline(summary),
        "| problem | solver | " + " | ".join(head) + " | ÷ best peer |",
        "|---|---|" + "---|" * len(TARGETS) + "---|",
    ]
    for problem, g in summary.groupby("problem", sort=False):
        info = meta["problems"][problem]
        title = (
            f"{info['title']}<br>{info['n_samples']} × {info['n_features']}, "
            f"P* = {info['pstar_lower']:.6g} (± {max(info['pstar_gap_rel'], 0.0):.0e})"
        )
        for i, (_, r) in enumerate(g.iterrows()):
            cells = [
                _cell(r[f"t_{e:.0e}"], r["best_rel_subopt"], r["stop_reason"]) for e in TARGETS
            ]
            ratios = " / ".join(_ratio(r[f"ratio_{e:.0e}"]) for e in TARGETS)
            name = f"**{r['solver']}**" if r["family"] == "ours" else r["solver"]
            first = title if i == 0 else ""
            lines.append(f"| {first} | {name} | " + " | ".join(cells) + f" | {ratios} |")
    singles = [
        (info["title"], r)
        for info in meta["problems"].values()
        for r in info.get("single_fits", [])
    ]
    if singles:
        lines += [
            "",
            "One `fit(X, y)` each, with the tolerance a user would set for a relative "
            "suboptimality of 1e-6 (ours: the exact duality gap, 1e-6 × P*'s certified lower "
            "bound, or the exact engine's relative gap 1e-6; the peers: `tol=1e-6` in their own "
            "sense), and the relative suboptimality it returned:",
            "",
            "| problem | solver | tol | CPU s | (P(w) − P*)/P* |",
            "|---|---|---|---|---|",
        ]
        for title, r in singles:
            name = f"**{r['solver']}**" if r["family"] == "ours" else r["solver"]
            if r["cpu"] is None:  # killed at the cap
                cpu, rel = f"not within {r['cap']:g} s", "—"
            else:
                cpu, rel = f"{r['cpu']:.3g}", f"{r['rel_subopt']:.1e}"
            lines.append(f"| {title} | {name} | {r['tol']:.1e} | {cpu} | {rel} |")
    lines += [
        "",
        "CPU seconds (`time.process_time`) of the first fit, from scratch on one thread, whose "
        "(P(w) − P*)/P* ≤ ε; each solver refitted with growing iteration counts and with "
        "shrinking tolerances, the better of the two. ÷ best peer: time over the fastest "
        'peer\'s at 1e-2 / 1e-4 / 1e-6 (> 1: slower). "stalls at X": best suboptimality '
        "reached (†: its CPU budget ran out while it still improved). ± : relative gap of "
        "the P* certificate (weak duality with this project's dual).",
    ]
    return "\n".join(lines) + "\n"


def plot(df: pd.DataFrame, path_stem: Path) -> None:
    """Suboptimality vs CPU time, one panel per problem, log axes, every fit a marker."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    problems = list(dict.fromkeys(df["problem"]))
    ncols = min(3, len(problems))
    nrows = math.ceil(len(problems) / ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(4.8 * ncols, 3.8 * nrows + 0.8),
        squeeze=False,
        layout="constrained",
    )
    solvers = list(dict.fromkeys(df["solver"]))
    colors = {s: plt.cm.tab10(i % 10) for i, s in enumerate(solvers)}
    floor = 1e-12
    for ax, problem in zip(axes.flat, problems, strict=False):
        g = df[df["problem"] == problem]
        for (solver, knob), s in g.groupby(["solver", "knob"], sort=False):
            ours = s["family"].iloc[0] == "ours"
            for rep, r in s.groupby("repetition"):
                ax.plot(
                    r["cpu_monotone"],
                    np.maximum(r["rel_subopt"], floor),
                    marker="o" if knob == "iter" else "^",
                    ms=3,
                    lw=1.8 if ours else 1.0,
                    ls="-" if ours else "--",
                    color=colors[solver],
                    alpha=1.0 if rep == 0 else 0.35,
                    label=solver if rep == 0 else None,
                )
        for eps in TARGETS:
            ax.axhline(eps, color="0.6", lw=0.7, ls=":")
        gap = g["pstar_gap_rel"].iloc[0]
        if gap > floor:
            ax.axhspan(floor, gap, color="0.88", zorder=0)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(g["title"].iloc[0], fontsize=9)
        ax.set_xlabel("CPU seconds of the fit (1 thread)", fontsize=8)
        ax.set_ylabel("(P − P*) / P*", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(problems) :]:
        ax.axis("off")
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="outside lower center", ncols=min(4, len(labels)), fontsize=8)
    fig.suptitle(
        "Refits with growing budgets (o: iteration count, ^: tolerance); "
        "grey band: P* uncertainty",
        fontsize=9,
    )
    for ext in ("png", "pdf"):
        fig.savefig(path_stem.with_suffix(f".{ext}"), dpi=130)
    plt.close(fig)


def problem_record(problem: Problem, budget: float, bounds: Bounds, reasons: dict) -> dict:
    """What ``peers.json`` says of one problem: its data, budget, P* certificate and the
    reason each sweep stopped."""
    spec = problem.spec
    n_samples, n_features = problem.X.shape
    return {
        "title": spec.title,
        "dataset": spec.dataset or "synthetic",
        "options": spec.options,
        "n_samples": n_samples,
        "n_features": n_features,
        "dtype": str(problem.X.dtype),
        "lmbd": problem.lmbd,
        "budget_seconds": budget,
        "pstar_lower": bounds.lower,
        "pstar_upper": bounds.upper,
        "pstar_gap_rel": bounds.gap,
        "pstar_lower_from": bounds.lower_source,
        "pstar_upper_from": bounds.upper_source,
        "certifier": bounds.certifier,
        "certifier_cpu_seconds": bounds.certifier_cpu,
        "stop_reasons": reasons,
    }


def write(out: Path, df: pd.DataFrame, summary: pd.DataFrame, meta: dict) -> str:
    """``peers.parquet`` (one row per fit), ``peers_summary.parquet``, ``peers.md``,
    ``peers.json`` (the sidecar) and ``peers.png`` / ``peers.pdf`` in ``out``; returns the
    table."""
    table = markdown(summary, meta)
    df.to_parquet(out / "peers.parquet", index=False)
    summary.to_parquet(out / "peers_summary.parquet", index=False)
    (out / "peers.md").write_text(table)
    (out / "peers.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    plot(df, out / "peers")
    return table


#: The README's block (the :func:`headline`) and the full tables' block in :data:`DETAILS`,
#: both rewritten by :func:`update_readme` (``--readme``).
README_MARKERS = (
    "<!-- bench-peers: generated by benchmarks/peers.py --readme; do not edit -->",
    "<!-- end of bench-peers -->",
)
DETAIL_MARKERS = (
    "<!-- bench-peers-detail: generated by benchmarks/peers.py --readme; do not edit -->",
    "<!-- end of bench-peers-detail -->",
)
#: Where the full tables go, relative to the README's folder.
DETAILS = Path("docs") / "speed.md"


#: The largest load average per core, at the start or the end of a run, at which the run is
#: written into the README: 1.5 on 2 cores (issue 32). Above it the peers' times were seen
#: 3–5× those of a quiet run.
QUIET_LOAD_PER_CORE = 0.75


class UnderLoad(RuntimeError):
    """A bench run measured on a loaded machine: its report stands, the README is not
    rewritten from it."""


def update_readme(readme: Path | str, out: Path) -> bool:
    """Rewrite the README's bench block (the headline) and the full tables' block of
    :data:`DETAILS` beside it from the stored report in ``out`` (its summary and sidecar):
    the run's date, machine load at the start and the end, and the tables, every ratio
    computed from the report. True if either file changed. A run whose load average exceeds
    :data:`QUIET_LOAD_PER_CORE` per core at its start or end raises :class:`UnderLoad` and
    rewrites nothing."""
    summary = pd.read_parquet(out / "peers_summary.parquet")
    meta = json.loads((out / "peers.json").read_text())
    stamp = datetime.fromtimestamp((out / "peers.json").stat().st_mtime).strftime("%Y-%m-%d")
    start = meta.get("loadavg_start", [float("nan")])[0]
    end = meta.get("loadavg_end", [float("nan")])[0]
    cores = meta.get("cpu_count")
    limit = QUIET_LOAD_PER_CORE * (cores or 1)
    if not (start <= limit and end <= limit):  # NaN (a load not recorded) is not quiet either
        raise UnderLoad(
            f"{out}: the run was under load (load average {start:.1f} at the start, "
            f"{end:.1f} at the end, on {cores} cores; the README takes runs at or below "
            f"{limit:g}): {readme} and {DETAILS} are not rewritten. Rerun on a quiet machine."
        )
    run = (
        f"Run of {stamp} (git {short_commit(str(meta.get('git_commit', '?')))}, "
        f"`{meta.get('command', '')}`, "
        f"load average {start:.1f} at the start and {end:.1f} at the end on {cores} cores):"
    )
    link = f"[{DETAILS.as_posix()}]({DETAILS.as_posix()})"
    more = f"Every solver, and one fit each at tol 1e-6: {link}."
    head = f"{run}\n\n{headline(summary).rstrip()}\n\n{more}"
    full = f"{run}\n\n{markdown(summary, meta).rstrip()}"
    changed = rewrite_block(readme, README_MARKERS, head)
    return rewrite_block(Path(readme).parent / DETAILS, DETAIL_MARKERS, full) or changed
