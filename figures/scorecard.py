"""REPRODUCTION.md: every claim of both studies, checked against our reports.

For each claim: what the study says (its numbers, from ../shared/REFERENCE.md and the study
reports), what our reports say (mean ± sd over seeds), a verdict — **holds**, **differs** or
**not run** (its report is missing) — decided by the stated criterion, and, where it differs,
the reason our own data shows. Every number of ours is computed here from the reports; only
the studies' numbers are written in this file. Each claim links to the figure that shows it.

Run ``python -m figures.scorecard [--out REPRODUCTION.md] [--reports DIR]`` (``make
REPRODUCTION.md``).
"""

from __future__ import annotations

import argparse
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from . import _common as common
from . import study001_table2 as table2

# ----------------------------------------------------------------------------- the studies'
# numbers (../shared/REFERENCE.md: their notebook outputs and report text)
STUDY000 = {
    "raw": {
        "sdca_cpu10": 15.2,
        "pegasos_cpu10": 72.3,
        "err_report": 0.26,  # "≈ 26 %" in the report text
        "err_sdca": 0.263,
        "err_pegasos": 0.264,
        "loss_sdca": 0.63,
        "loss_pegasos_epoch1": 1.75,
    },
    "pca40": {
        "sdca_cpu10": 1.45,
        "pegasos_cpu10": 0.142,
        "err_sdca": 0.206,
        "err_pegasos": 0.207,
        "loss": 0.895,
    },
}
RAW, PCA = STUDY000["raw"], STUDY000["pca40"]
# table 2 lives with the script that draws it (the single hand-written copy): the notebook's
# accuracies on the draw of 001_simulated (checked), the report's table 2 (its variants)
STUDY001_NOTEBOOK, STUDY001_NOTEBOOK_BETA = table2.NOTEBOOK, table2.NOTEBOOK_TRUE_BETA
STUDY001_TABLE2 = table2.STUDY

SDCA, SGD, PEG = "SDCA-Perm", "SDCA-Perm + SGD init", "Pegasos k=100"


@dataclass
class Result:
    ours: str
    verdict: str  # "holds" | "differs" | "not run"
    reason: str = ""


@dataclass
class Claim:
    study: str
    claim: str
    theirs: str
    criterion: str
    figures: tuple[str, ...]
    check: Callable[[Context], Result]


class Context:
    """Reports loaded once (a missing one raises MissingInputError naming its target)."""

    def __init__(self, reports_dir=None):
        self.reports_dir = reports_dir
        self._cache: dict = {}

    def report(self, name: str) -> pd.DataFrame:
        if name not in self._cache:
            self._cache[name] = common.load(name, self.reports_dir)
        return self._cache[name]

    def coef(self, name: str) -> pd.DataFrame:
        key = f"{name}/coef"
        if key not in self._cache:
            self._cache[key] = common.load_coef(name, self.reports_dir)
        return self._cache[key]

    def sidecar(self, name: str) -> dict:
        return common.load_sidecar(name, self.reports_dir)

    def subopt(self, name: str) -> pd.DataFrame:
        key = f"{name}/subopt"
        if key not in self._cache:
            optima = common.load_optima(self.reports_dir)
            self._cache[key] = common.with_suboptimality(self.report(name), optima)
        return self._cache[key]


# ----------------------------------------------------------------------------- small helpers
def pm(values, digits: int = 3, scale: float = 1.0, unit: str = "") -> str:
    """``mean ± sd`` over seeds (sd with ddof=1; just the mean for one value)."""
    v = np.asarray(values, dtype=float) * scale
    if v.size > 1:
        return f"{v.mean():.{digits}f} ± {v.std(ddof=1):.{digits}f}{unit}"
    return f"{v.mean():.{digits}f}{unit}"


def at_epoch(frame: pd.DataFrame, config: str, epoch: int, column: str) -> pd.Series:
    rows = frame[(frame.config == config) & (frame.epoch == epoch)]
    if rows.empty:
        raise KeyError(f"no rows for {config!r} at epoch {epoch}")
    return rows.set_index("seed_index")[column]


def mean_curve(frame: pd.DataFrame, config: str, column: str) -> pd.Series:
    return frame[frame.config == config].groupby("epoch")[column].mean()


def last_epoch(frame: pd.DataFrame) -> int:
    return int(frame.epoch.max())


def epochs_to(frame: pd.DataFrame, config: str, column: str, threshold: float) -> float:
    """First epoch where the mean over seeds of ``column`` is <= threshold (inf if never)."""
    curve = mean_curve(frame, config, column)
    hit = curve[curve <= threshold]
    return float(hit.index[0]) if len(hit) else math.inf


def cpu_at(frame: pd.DataFrame, config: str, epoch: float) -> float:
    """Mean cumulative update-loop CPU time at ``epoch`` (inf for inf)."""
    if not math.isfinite(epoch):
        return math.inf
    return float(at_epoch(frame, config, int(epoch), "cpu_time_cum").mean())


def fmt_epochs(e: float) -> str:
    return f"{e:.0f}" if math.isfinite(e) else "never"


def per_epoch_cpu(frame: pd.DataFrame, config: str) -> pd.Series:
    """Per-run mean update-loop CPU seconds per epoch, epochs 2..end (epoch 1 holds set-up)."""
    rows = frame[(frame.config == config) & (frame.epoch >= 2)]
    return rows.groupby("seed_index").cpu_time.mean()


# ----------------------------------------------------------------------------- study 000
def c000_error_two_epochs(ctx: Context) -> Result:
    r = ctx.report("000_blood_raw")
    e2 = at_epoch(r, SDCA, 2, "test_error")
    best = mean_curve(r, SDCA, "test_error").min()
    ok = abs(e2.mean() - RAW["err_report"]) <= 0.03 and e2.mean() - best <= 0.01
    reason = (
        ""
        if ok
        else (f"mean test error after 2 epochs {e2.mean():.3f}, best over 10 epochs {best:.3f}")
    )
    return Result(
        f"{pm(e2)} after 2 epochs (best mean over epochs {best:.3f})",
        "holds" if ok else "differs",
        reason,
    )


def c000_pegasos_slower(ctx: Context) -> Result:
    r = ctx.subopt("000_blood_raw")
    target = 0.01 * float(r.p_star_dual.iloc[0])  # within 1 % of P*
    t = {c: cpu_at(r, c, epochs_to(r, c, "suboptimality", target)) for c in (SDCA, PEG)}
    ratio = t[PEG] / t[SDCA]
    sdca_e, peg_e = per_epoch_cpu(r, SDCA), per_epoch_cpu(r, PEG)
    ours = (
        f"time to loss within 1 % of P*: SDCA {t[SDCA]:.3f} s, Pegasos {t[PEG]:.3f} s "
        f"(ratio {ratio:.1f}); CPU per epoch: SDCA {pm(sdca_e * 1e3, 1)} ms, Pegasos "
        f"{pm(peg_e * 1e3, 1)} ms"
    )
    ok = 2.0 <= ratio <= 4.0
    reason = (
        ""
        if ok
        else (
            f"our epochs cost SDCA {sdca_e.mean() * 1e3:.1f} ms vs Pegasos "
            f"{peg_e.mean() * 1e3:.1f} ms (compiled kernels, same memory traffic per epoch); "
            f"their 10 epochs took {RAW['sdca_cpu10']} s (SDCA) and {RAW['pegasos_cpu10']} s "
            f"(Pegasos) in pure Python, so their "
            f"gap measured interpreter overhead per update, not the algorithms. With λ = 1.6 "
            f"almost every dual variable sits at its bound, so SDCA also needs few epochs."
        )
    )
    return Result(ours, "holds" if ok else "differs", reason)


def c000_pegasos_epoch4(ctx: Context) -> Result:
    r = ctx.report("000_blood_raw")
    curve = mean_curve(r, PEG, "test_error")
    final_err = curve.iloc[-1]
    # first epoch from which the mean stays within 0.5 pp of its final value
    outside = curve.index[(curve - final_err).abs() > 0.005]
    first = int(outside.max()) + 1 if len(outside) else int(curve.index.min())
    ok = 3 <= first <= 5
    reason = (
        "" if ok else f"the mean test error is within 0.5 pp of its final value from epoch {first}"
    )
    return Result(
        f"stable (±0.5 pp of final {final_err:.3f}) from epoch {first}",
        "holds" if ok else "differs",
        reason,
    )


def c000_sgd_init(ctx: Context) -> Result:
    r = ctx.report("000_blood_raw")
    p1 = at_epoch(r, SDCA, 1, "primal")
    p1s = at_epoch(r, SGD, 1, "primal")
    diffs = [
        abs(at_epoch(r, SDCA, e, "test_error").mean() - at_epoch(r, SGD, e, "test_error").mean())
        for e in range(2, last_epoch(r) + 1)
    ]
    helps_first = p1s.mean() < p1.mean()
    same_after = max(diffs) <= 0.005
    ok = helps_first and same_after
    reason = (
        ""
        if ok
        else (
            f"epoch-1 loss with SGD init {p1s.mean():.4f} vs {p1.mean():.4f} without; "
            f"largest test-error difference from epoch 2 on: {max(diffs) * 100:.2f} pp"
        )
    )
    return Result(
        f"epoch-1 loss {pm(p1s, 4)} (SGD init) vs {pm(p1, 4)}; test errors within "
        f"{max(diffs) * 100:.2f} pp from epoch 2",
        "holds" if ok else "differs",
        reason,
    )


def c000_losses_raw(ctx: Context) -> Result:
    r = ctx.subopt("000_blood_raw")
    l3 = at_epoch(r, SDCA, 3, "primal")
    pe1 = at_epoch(r, PEG, 1, "primal")
    pstar = float(r.p_star_dual.iloc[0])
    ok = (
        abs(l3.mean() - RAW["loss_sdca"]) <= 0.05
        and abs(pe1.mean() - RAW["loss_pegasos_epoch1"]) <= 0.25
    )
    reason = (
        ""
        if ok
        else (
            f"the certified optimum is P* = {pstar:.4f}; their SDCA used λd instead of λn in its "
            f"step (REFERENCE.md), so their SDCA curve is not this problem's; our Pegasos after "
            f"one epoch: {pe1.mean():.3f}"
        )
    )
    return Result(
        f"SDCA loss after 3 epochs {pm(l3, 4)} (P* = {pstar:.4f}); Pegasos after "
        f"epoch 1 {pm(pe1, 3)}",
        "holds" if ok else "differs",
        reason,
    )


def c000_cpu_numbers(variant: str) -> Callable[[Context], Result]:
    def check(ctx: Context) -> Result:
        r = ctx.report(f"000_blood_{variant}")
        s10 = at_epoch(r, SDCA, 10, "cpu_time_cum")
        p10 = at_epoch(r, PEG, 10, "cpu_time_cum")
        theirs = STUDY000[variant]
        return Result(
            f"SDCA {pm(s10, 4)} s, Pegasos {pm(p10, 4)} s for 10 epochs "
            f"({theirs['sdca_cpu10'] / s10.mean():.0f}× and "
            f"{theirs['pegasos_cpu10'] / p10.mean():.0f}× faster than theirs)",
            "differs",
            "absolute times are machine- and implementation-bound: compiled Numba kernels "
            "here, Python loops there; only ratios between solvers can be compared",
        )

    return check


def c000_pca_equal_error(ctx: Context) -> Result:
    r = ctx.report("000_blood_pca40")
    end = last_epoch(r)
    errs = {c: at_epoch(r, c, end, "test_error") for c in (SDCA, SGD, PEG)}
    e1 = {c: at_epoch(r, c, 1, "test_error").mean() for c in errs}
    spread = max(v.mean() for v in errs.values()) - min(v.mean() for v in errs.values())
    ok = (
        spread <= 0.005
        and abs(np.mean([v.mean() for v in errs.values()]) - PCA["err_sdca"]) <= 0.03
    )
    reason = "" if ok else f"final mean test errors spread over {spread * 100:.2f} pp"
    return Result(
        "; ".join(f"{c}: {pm(v)}" for c, v in errs.items())
        + f" (after 1 epoch: {', '.join(f'{v:.3f}' for v in e1.values())})",
        "holds" if ok else "differs",
        reason,
    )


def c000_pca_loss(ctx: Context) -> Result:
    r = ctx.subopt("000_blood_pca40")
    l1 = {c: at_epoch(r, c, 1, "primal") for c in (SDCA, SGD, PEG)}
    pstar = float(r.p_star_dual.iloc[0])
    ok = all(abs(v.mean() - PCA["loss"]) <= 0.02 for v in l1.values())
    reason = "" if ok else f"certified optimum P* = {pstar:.4f}"
    return Result(
        "; ".join(f"{c}: {pm(v, 4)}" for c, v in l1.items()) + f" (P* = {pstar:.4f})",
        "holds" if ok else "differs",
        reason,
    )


def c000_pca_pegasos_cheaper(ctx: Context) -> Result:
    r = ctx.report("000_blood_pca40")
    s, p = per_epoch_cpu(r, SDCA), per_epoch_cpu(r, PEG)
    n = int(r.n_train.iloc[0])
    ratio = s.mean() / p.mean()
    ok = ratio > 1.5
    reason = (
        ""
        if ok
        else (
            f"an SDCA epoch costs {s.mean() * 1e6:.0f} µs, a Pegasos epoch {p.mean() * 1e6:.0f} "
            f"µs once both are compiled: both read each 40-feature row once and SDCA's O(n) "
            f"dual state costs nothing extra. Their timings fit interpreter cost: "
            f"{PCA['sdca_cpu10']} s / (10 × {n}) = {PCA['sdca_cpu10'] / (10 * n) * 1e6:.0f} µs "
            f"per Python-level SDCA update, while Pegasos makes {math.ceil(n / 100)} "
            f"NumPy-batched updates per epoch"
        )
    )
    return Result(
        f"CPU per epoch: SDCA {pm(s * 1e6, 0)} µs, Pegasos {pm(p * 1e6, 0)} µs "
        f"(SDCA/Pegasos = {ratio:.2f})",
        "holds" if ok else "differs",
        reason,
    )


# ----------------------------------------------------------------------------- study 001
def c001_table2(ctx: Context) -> Result:
    """Per variant: the notebook's accuracy on the same draw inside our seed spread."""
    r = ctx.report("001_simulated")
    meta = ctx.sidecar("001_simulated")["dataset_meta"]
    n_test, beta_acc = int(meta["n_test"]), float(meta["beta_test_accuracy"])
    table = table2.accuracy_table(r, beta_acc, n_test).set_index("variant")
    end = last_epoch(r)
    rows, outside = [], []
    for label in STUDY001_NOTEBOOK:
        for kind, suffix in (("plain", ""), ("averaged", " (averaged)")):
            row = table.loc[label]
            theirs, lo, hi = row[f"notebook_{kind}"], row[f"lo_{kind}"], row[f"hi_{kind}"]
            acc = 1 - at_epoch(r, label + suffix, end, "test_error_output")
            rows.append(f"{label}{suffix}: {pm(acc)} (notebook {theirs:.4f})")
            if row[f"within_{kind}"] != 1.0:
                outside.append(
                    f"{label}{suffix} {theirs:.4f} outside our [{lo + 0.5 / n_test:.4f}, "
                    f"{hi - 0.5 / n_test:.4f}]"
                )
    same_beta = table.loc[table2.TRUE_BETA, "within_plain"] == 1.0
    runs = int(table.loc[next(iter(STUDY001_NOTEBOOK)), "n_plain"])
    ok = not outside and same_beta
    if ok:
        reason = (
            f"all {2 * len(STUDY001_NOTEBOOK)} notebook accuracies lie in the central 95 % of "
            f"our {runs} runs; true β {beta_acc:.4f} = the notebook's (same draw)"
        )
    else:
        reason = "; ".join(outside) + (
            ""
            if same_beta
            else f"; true β {beta_acc:.4f} ≠ {STUDY001_NOTEBOOK_BETA} (not the same draw)"
        )
        reason = (
            f"on the study's own draw, outside the central 95 % of our {runs} runs: {reason} "
            "(a single run of theirs; our spread is over solver seeds only)"
        )
    return Result(
        "; ".join(rows) + f"; true β {beta_acc:.4f}", "holds" if ok else "differs", reason
    )


def c001_averaging(ctx: Context) -> Result:
    r = ctx.report("001_simulated")
    end = last_epoch(r)
    diffs, family = [], {}
    for label in STUDY001_TABLE2:
        plain = 1 - at_epoch(r, label, end, "test_error_output")
        avg = 1 - at_epoch(r, label + " (averaged)", end, "test_error_output")
        diffs.append(avg.mean() - plain.mean())
        solver = r.loc[r.config == label, "solver"].iloc[0]
        family.setdefault(solver, []).append(
            (avg.mean() - plain.mean(), plain.std(ddof=1), avg.std(ddof=1))
        )
    worst = max(abs(d) for d in diffs)
    ok = worst <= 0.01
    by_family = "; ".join(
        f"{solver} {np.mean([d for d, _, _ in v]):+.4f} (sd over seeds "
        f"{np.mean([a for _, a, _ in v]):.4f} → {np.mean([b for _, _, b in v]):.4f})"
        for solver, v in family.items()
    )
    return Result(
        f"averaged − plain accuracy: mean {np.mean(diffs):+.4f}, largest |difference| "
        f"{worst:.4f}; per solver: {by_family}",
        "holds" if ok else "differs",
        ""
        if ok
        else f"averaging changes accuracy by up to {worst:.3f} (per-solver shifts above): "
        "averaging the noisy iterates of a subgradient method raises its accuracy and narrows "
        "its spread over seeds",
    )


def c001_beta(ctx: Context) -> Result:
    c = ctx.coef("001_simulated")

    def cosine(frame):
        out = []
        for _, run in frame.groupby(["config", "seed_index"]):
            w, b = run.coef.to_numpy(), run.beta.to_numpy()
            out.append(w @ b / (np.linalg.norm(w) * np.linalg.norm(b) + 1e-300))
        return np.array(out)

    plain = cosine(c[~c.config.str.endswith("(averaged)")])
    avg = cosine(c[c.config.str.endswith("(averaged)")])
    ok = abs(avg.mean() - plain.mean()) <= 0.01
    return Result(
        f"cosine(coef, β): plain {pm(plain, 4)}, averaged {pm(avg, 4)}",
        "holds" if ok else "differs",
        "" if ok else "averaging moves the direction of w measurably",
    )


FOUR = {
    "001_simulated": ("SDCA random", "Pegasos", "ASDCA θ=0.15", "Mini-batch Pegasos"),
    "001_genomic": ("SDCA random", "Pegasos", "ASDCA θ=0.15", "Mini-batch Pegasos k=8"),
    "001_skin": ("SDCA random", "Pegasos", "ASDCA θ=0.75", "Mini-batch Pegasos k=2"),
}


def ranking(ctx: Context, name: str) -> list[tuple[str, float]]:
    """The four algorithms by mean certified suboptimality at the last epoch (best first)."""
    r = ctx.subopt(name)
    end = last_epoch(r)
    out = [(c, float(at_epoch(r, c, end, "suboptimality").mean())) for c in FOUR[name]]
    return sorted(out, key=lambda t: t[1])


def fmt_rank(rank) -> str:
    return " < ".join(f"{c} ({v:.1e})" for c, v in rank)


def asdca_note(ctx: Context, name: str) -> str:
    """What the report says about ASDCA on its own (smoothed) problem at the last epoch."""
    r = ctx.report(name)
    label = FOUR[name][2]
    end = last_epoch(r)
    gap = float(at_epoch(r, label, end, "gap").mean())
    smooth = float(at_epoch(r, label, end, "primal_smooth").mean())
    hinge = mean_curve(r, label, "primal")
    moved = abs(hinge.iloc[-1] - hinge.iloc[-6]) / hinge.iloc[-1] if len(hinge) > 6 else math.nan
    ds = name.split("_", 1)[1]
    if gap <= 1e-3 * smooth:
        return (
            f"{ds}: {label} has converged on the problem it solves, the γ-smoothed hinge "
            f"(its own duality gap {gap:.1e}), and its hinge objective has stopped moving "
            f"(relative change over the last 5 epochs {moved:.1e}): what separates it from "
            f"P* is the smoothing, not speed"
        )
    return (
        f"{ds}: {label} has not converged on its own smoothed problem (duality gap "
        f"{gap:.1e} after {end} epochs)"
    )


def c001_pegasos_slowest(ctx: Context) -> Result:
    ranks = {n: ranking(ctx, n) for n in FOUR}
    slowest = {n: r[-1][0] for n, r in ranks.items()}
    ok = all(s == "Pegasos" for s in slowest.values())
    text = "; ".join(f"{n.split('_', 1)[1]}: {fmt_rank(r)}" for n, r in ranks.items())
    notes = [asdca_note(ctx, n) for n, s in slowest.items() if s.startswith("ASDCA")]
    reason = (
        ""
        if ok
        else "slowest per dataset: "
        + ", ".join(f"{n.split('_', 1)[1]} {s}" for n, s in slowest.items())
        + (". " + "; ".join(notes) if notes else "")
    )
    return Result("P − P* after the last epoch: " + text, "holds" if ok else "differs", reason)


def c001_minibatch_genomic(ctx: Context) -> Result:
    rank = ranking(ctx, "001_genomic")
    ok = rank[0][0].startswith("Mini-batch")
    reason = (
        ""
        if ok
        else (
            "per pass over the data (n samples per epoch for every method) mini-batch Pegasos is "
            "not ahead; the study ran its mini-batch methods n·epochs iterations of 8 samples, "
            "i.e. 8× more data than the k = 1 methods in the same number of 'epochs'"
        )
    )
    return Result(fmt_rank(rank), "holds" if ok else "differs", reason)


def c001_dual_fastest(ctx: Context) -> Result:
    ranks = {n: ranking(ctx, n) for n in ("001_simulated", "001_skin")}
    ok = all({c for c, _ in r[:2]} == {FOUR[n][0], FOUR[n][2]} for n, r in ranks.items())
    text = "; ".join(f"{n.split('_', 1)[1]}: {fmt_rank(r)}" for n, r in ranks.items())
    places = "; ".join(
        f"{n.split('_', 1)[1]}: first {r[0][0]}, ASDCA ranked "
        f"{[c for c, _ in r].index(FOUR[n][2]) + 1} of 4"
        for n, r in ranks.items()
    )
    notes = "; ".join(asdca_note(ctx, n) for n in ranks)
    return Result(text, "holds" if ok else "differs", "" if ok else f"{places}. {notes}")


def c001_cyclic_skin(ctx: Context) -> Result:
    r = ctx.subopt("001_skin")
    end = last_epoch(r)
    s = {
        c: at_epoch(r, c, end, "suboptimality")
        for c in ("SDCA random", "SDCA perm", "SDCA cyclic")
    }
    ok = s["SDCA cyclic"].mean() > max(s["SDCA random"].mean(), s["SDCA perm"].mean())
    return Result(
        "P − P* after 3 epochs: " + "; ".join(f"{c} {v.mean():.2e}" for c, v in s.items()),
        "holds" if ok else "differs",
        "" if ok else "cyclic order is not behind on skin",
    )


def c001_sampling_genomic(ctx: Context) -> Result:
    r = ctx.subopt("001_genomic")
    labels = ("SDCA random", "SDCA perm", "SDCA cyclic")
    s = {c: float(at_epoch(r, c, 10, "suboptimality").mean()) for c in labels}
    slowest = max(s, key=s.get)
    ok = slowest == "SDCA perm"
    n = int(r.n_train.iloc[0])
    reason = (
        ""
        if ok
        else f"slowest here: {slowest}. Drawing n = {n} indices with replacement leaves "
        f"(1 − 1/n)^n = {(1 - 1 / n) ** n:.2f} of the samples unvisited in an epoch, which a "
        "permutation or a cyclic order never does"
        if slowest == "SDCA random"
        else f"slowest here: {slowest}"
    )
    return Result(
        "P − P* after 10 epochs: " + "; ".join(f"{c} {v:.2e}" for c, v in s.items()),
        "holds" if ok else "differs",
        reason,
    )


def c001_projection(ctx: Context) -> Result:
    r = ctx.report("001_genomic")
    end = last_epoch(r)
    p = at_epoch(r, "Pegasos", end, "primal")
    q = at_epoch(r, "Pegasos projected", end, "primal")

    def roughness(config):  # mean over seeds of the total variation of log P per epoch
        rows = r[(r.config == config) & (r.epoch >= 1)].sort_values(["seed_index", "epoch"])
        tv = rows.groupby("seed_index").primal.apply(lambda v: np.abs(np.diff(np.log(v))).sum())
        return tv.mean()

    plain, proj = r[r.config == "Pegasos"], r[r.config == "Pegasos projected"]
    paired = plain.merge(proj, on=["seed_index", "epoch"], suffixes=("", "_p"))
    paired = paired[paired.epoch >= 1]
    rel_diff = (paired.primal_p - paired.primal).abs() / paired.primal
    same = abs(p.mean() - q.mean()) / p.mean() <= 0.01
    smoother = roughness("Pegasos projected") < roughness("Pegasos")
    ok = same and smoother
    reason = (
        ""
        if ok
        else "the final objectives differ by more than 1 %"
        if not same
        else f"projection does change the trajectory (same seeds: the objectives differ by "
        f"{rel_diff.mean():.1e} relatively on average over epochs, {rel_diff.max():.1e} at most) "
        f"but "
        f"not its roughness: the epoch-to-epoch variation of log P is the same within "
        f"{abs(roughness('Pegasos projected') / roughness('Pegasos') - 1):.0%}"
    )
    return Result(
        f"final objective {pm(p, 4)} vs projected {pm(q, 4)}; total variation of log P: "
        f"{roughness('Pegasos'):.3f} vs {roughness('Pegasos projected'):.3f}",
        "holds" if ok else "differs",
        reason,
    )


def c001_lambda(ctx: Context) -> Result:
    r = ctx.subopt("001_genomic_lambda")
    end = last_epoch(r)
    lines, failing = [], []
    for algo in ("SDCA", "Pegasos", "ASDCA", "Mini-batch Pegasos"):
        rows = r[common.tag_mask(r, "lambda", algo)]
        lmbds = sorted(rows.lmbd.unique())
        final_p = [rows[(rows.lmbd == lm) & (rows.epoch == end)].primal.mean() for lm in lmbds]
        rel = rows.assign(rel=rows.suboptimality / rows.p_star_dual)
        reach = [
            epochs_to(rel[rel.lmbd == lm], rel[rel.lmbd == lm].config.iloc[0], "rel", 1e-3)
            for lm in lmbds
        ]
        p_star = [rows[rows.lmbd == lm].p_star_dual.iloc[0] for lm in lmbds]
        increasing = bool(np.all(np.diff(final_p) > 0))
        faster = all(a >= b for a, b in itertools.pairwise(reach))
        if not (increasing and faster):
            worst = max(range(len(lmbds)), key=lambda i: final_p[i] / p_star[i])
            failing.append(
                f"{algo}: at λ = {lmbds[worst]:g} its final objective is "
                f"{final_p[worst]:.3g} against P* = {p_star[worst]:.3g} (not converged in "
                f"{end} epochs)"
            )
        lines.append(
            f"{algo}: final P "
            + ", ".join(f"{v:.3g}" for v in final_p)
            + " ; epochs to 1e-3 relative: "
            + ", ".join(fmt_epochs(e) for e in reach)
        )
    ok = not failing
    reason = (
        ""
        if ok
        else (
            "P* itself grows with λ for every algorithm (the claim's second half is a property "
            "of the problem); what fails is convergence at small λ: " + "; ".join(failing)
        )
    )
    return Result(" | ".join(lines) + " (λ ascending)", "holds" if ok else "differs", reason)


CLAIMS: list[Claim] = [
    Claim(
        "000",
        "SDCA (with or without SGD init) reaches its best test error, ≈ 26 %, after "
        "2 epochs on raw crops",
        f"≈ {RAW['err_report']:.0%} (notebook: {RAW['err_sdca']})",
        "|mean − 0.26| ≤ 0.03 and within 1 pp of the best epoch",
        ("study000_fig2",),
        c000_error_two_epochs,
    ),
    Claim(
        "000",
        "Pegasos takes ≈ 3× longer (CPU) than SDCA to converge on raw crops",
        "≈ 3×",
        "ratio of CPU times to reach loss within 1 % of P* in [2, 4]",
        ("study000_fig2",),
        c000_pegasos_slower,
    ),
    Claim(
        "000",
        "Pegasos' test error stabilises around epoch 4 (raw crops)",
        "≈ epoch 4",
        "first epoch from which the mean stays within 0.5 pp of its final value in [3, 5]",
        ("study000_fig2",),
        c000_pegasos_epoch4,
    ),
    Claim(
        "000",
        "The modified-SGD first epoch lowers the first-epoch loss, not the test error",
        "lower loss after epoch 1, same scores",
        "lower mean loss at epoch 1 and test errors within 0.5 pp from epoch 2",
        ("study000_fig2",),
        c000_sgd_init,
    ),
    Claim(
        "000",
        "Raw crops: SDCA loss falls from 1.0 to ≈ 0.63 in 2–3 epochs; Pegasos jumps to "
        "≈ 1.75 after epoch 1",
        f"{RAW['loss_sdca']}; {RAW['loss_pegasos_epoch1']}",
        "within 0.05 and 0.25",
        ("study000_fig2",),
        c000_losses_raw,
    ),
    Claim(
        "000",
        "CPU time of 10 epochs, raw crops",
        f"SDCA {RAW['sdca_cpu10']} s, Pegasos {RAW['pegasos_cpu10']} s",
        "(not comparable across machines and implementations)",
        ("study000_fig2",),
        c000_cpu_numbers("raw"),
    ),
    Claim(
        "000",
        "PCA-40: the three methods have the same test error (≈ 20.6 %), reached after one epoch",
        f"{PCA['err_sdca']} / {PCA['err_pegasos']}",
        "final means within 0.5 pp of each other, ≈ 0.206 ± 0.03",
        ("study000_fig3",),
        c000_pca_equal_error,
    ),
    Claim(
        "000",
        "PCA-40: all three reach loss ≈ 0.895 after one epoch",
        f"≈ {PCA['loss']}",
        "every method within 0.02 after epoch 1",
        ("study000_fig3",),
        c000_pca_loss,
    ),
    Claim(
        "000",
        "PCA-40: Pegasos epochs are much cheaper (≈ 10×) than SDCA's",
        "≈ 10×",
        "SDCA/Pegasos CPU per epoch > 1.5",
        ("study000_fig3",),
        c000_pca_pegasos_cheaper,
    ),
    Claim(
        "000",
        "CPU time of 10 epochs, PCA-40",
        f"SDCA {PCA['sdca_cpu10']} s, Pegasos {PCA['pegasos_cpu10']} s",
        "(not comparable across machines and implementations)",
        ("study000_fig3",),
        c000_cpu_numbers("pca40"),
    ),
    Claim(
        "001",
        "Table 2: test accuracy of every variant on the simulated data",
        "notebook, same draw: 0.8545–0.8818 (true β 0.8788); report: 0.860–0.881",
        "each notebook accuracy inside the central 95 % of our runs (± half a test sample); "
        "true β equal",
        ("study001_table2",),
        c001_table2,
    ),
    Claim(
        "001",
        "Averaging the output does not change accuracy much",
        "differences ≤ 0.015",
        "|averaged − plain| ≤ 0.01 for every variant",
        ("study001_table2",),
        c001_averaging,
    ),
    Claim(
        "001",
        "Averaging does not bring the coefficients closer to the true β",
        "similar",
        "mean cosine(coef, β) within 0.01",
        ("study001_fig7",),
        c001_beta,
    ),
    Claim(
        "001",
        "Plain Pegasos is the slowest of the four algorithms on every dataset",
        "slowest on simulated, genomic, skin",
        "largest mean P − P* at the last epoch on all three",
        ("study001_fig1", "study001_fig2", "study001_fig3"),
        c001_pegasos_slowest,
    ),
    Claim(
        "001",
        "Mini-batch Pegasos is the fastest on genomic (d ≫ n)",
        "fastest",
        "smallest mean P − P* at the last epoch",
        ("study001_fig2",),
        c001_minibatch_genomic,
    ),
    Claim(
        "001",
        "SDCA and ASDCA are the fastest on simulated and skin",
        "the two fastest",
        "the two smallest mean P − P* at the last epoch on both",
        ("study001_fig1", "study001_fig3"),
        c001_dual_fastest,
    ),
    Claim(
        "001",
        "Cyclic order is slower on skin",
        "slower",
        "cyclic has the largest mean P − P* after 3 epochs",
        ("study001_fig5",),
        c001_cyclic_skin,
    ),
    Claim(
        "001",
        "On genomic the samplings converge alike, permutation the slowest",
        "perm slowest",
        "perm has the largest mean P − P* after 10 epochs",
        ("study001_fig4",),
        c001_sampling_genomic,
    ),
    Claim(
        "001",
        "Projection gives the same objective and speed, with a smoother curve",
        "same value, smoother",
        "final objectives within 1 % and smaller total variation",
        ("study001_fig6",),
        c001_projection,
    ),
    Claim(
        "001",
        "Higher λ: faster convergence and a higher final objective",
        "both",
        "final P increasing in λ and epochs to relative suboptimality 1e-3 non-increasing",
        ("study001_fig8", "study001_fig9", "study001_fig10", "study001_fig11"),
        c001_lambda,
    ),
]


def evaluate(ctx: Context, claim: Claim) -> Result:
    try:
        return claim.check(ctx)
    except common.MissingInputError as exc:
        return Result("—", "not run", str(exc))


def beyond_lines(reports_dir) -> list[str]:
    """The λ study at convergence (:mod:`figures.beyond_lambda`), or why it is missing."""
    from .beyond_lambda import findings, tables

    try:
        _, optimum, times = tables(reports_dir)
    except FileNotFoundError as exc:  # a missing report or optimum names its fix
        return [f"not run: {exc}"]
    return findings(optimum, times)


def render(results: list[tuple[Claim, Result]], figure_dir: str, beyond: list[str] = ()) -> str:
    counts = pd.Series([r.verdict for _, r in results]).value_counts()
    lines = [
        "# Reproduction scorecard",
        "",
        f"Generated from the reports by `python -m figures.scorecard` on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC — do not edit by hand. "
        f"**{counts.get('holds', 0)} hold, {counts.get('differs', 0)} differ, "
        f"{counts.get('not run', 0)} not run.**",
        "",
        "Ours: mean ± sd over seeds (sd with ddof = 1). The genomic results use a SUBSTITUTE "
        "dataset (Gravier 2010), not the study's data. Verdicts follow the stated criterion; "
        "a *differs* comes with the reason our data shows.",
        "",
    ]
    for study, title in (
        ("000", "Study 000 — blood cells (2018)"),
        ("001", "Study 001 — simulated, genomic, skin; ASDCA (2017)"),
    ):
        lines += [
            f"## {title}",
            "",
            "| # | claim | study | ours | verdict | why | figure |",
            "|---|---|---|---|---|---|---|",
        ]
        for i, (claim, res) in enumerate([x for x in results if x[0].study == study], 1):
            links = ", ".join(f"[{f}]({figure_dir}/{f}.png)" for f in claim.figures)
            why = res.reason or "—"
            verdict = {"holds": "✅ holds", "differs": "❌ differs", "not run": "⏸ not run"}[
                res.verdict
            ]
            cells = [
                f"{study}.{i}",
                claim.claim,
                claim.theirs,
                res.ours,
                f"{verdict}<br><sub>{claim.criterion}</sub>",
                why,
                links,
            ]
            lines.append(
                "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"
            )
        lines.append("")
    if beyond:
        lines += [
            "## Beyond the studies — the λ sweeps at convergence",
            "",
            "Certified optima (relative duality gap ≤ 1e-10) and each solver's median CPU time to "
            f"a relative suboptimality ([figure]({figure_dir}/beyond_lambda.png), "
            f"[table]({figure_dir}/beyond_lambda_table.md)); genomic = SUBSTITUTE data.",
            "",
            *[f"- {line}" for line in beyond],
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m figures.scorecard", description=__doc__)
    parser.add_argument("--out", default="REPRODUCTION.md")
    parser.add_argument("--reports", default=None)
    parser.add_argument(
        "--figures",
        default="output/figures",
        help="where the figure links point (relative to the output file)",
    )
    args = parser.parse_args(argv)
    ctx = Context(args.reports)
    results = [(c, evaluate(ctx, c)) for c in CLAIMS]
    out = Path(args.out)
    out.write_text(render(results, args.figures, beyond_lines(args.reports)) + "\n")
    print(
        f"{out}: {sum(r.verdict == 'holds' for _, r in results)} hold, "
        f"{sum(r.verdict == 'differs' for _, r in results)} differ, "
        f"{sum(r.verdict == 'not run' for _, r in results)} not run"
    )
    return out


if __name__ == "__main__":
    main()
