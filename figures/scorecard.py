"""REPRODUCTION.md: every claim of both studies, checked against our reports.

Claims are data. :data:`CLAIMS` has one row per claim: id, the outputs that show it, the
reports it is read from, the claim, the study's value, the criterion, then ``read`` (a
:class:`Query` of those reports -> our named values), ``holds`` (the criterion on them) and
the texts ``ours``, ``why`` (reason of a *differs*) and ``note`` (said when it *holds*). One
evaluator, :func:`evaluate`, turns a row into our value, a verdict — holds, differs, or not
run (a report is missing; the reason names its ``make`` target) — and the reason line. Every
number of ours comes from the reports; only the studies' numbers are written here (their
table 2 in :mod:`figures.study001_table2`). ``python -m figures.scorecard [--out FILE]
[--reports DIR]`` (``make REPRODUCTION.md``).
"""

from __future__ import annotations

import argparse
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from experiments.catalogue import CATALOGUE, MAIN_VARIANTS
from experiments.reports import StaleInputError, stale_report

from . import common
from . import study001_fig7 as fig7
from . import study001_table2 as table2
from .common import Query, Runs, within_spread

RAW, PCA, SIM = "000_blood_raw", "000_blood_pca40", "001_simulated"
GEN, SKIN, LAM = "001_genomic", "001_skin", "001_genomic_lambda"
SDCA, SGD, PEG = "SDCA-Perm", "SDCA-Perm + SGD init", "Pegasos k=100"
CPU10 = {RAW: (15.2, 72.3), PCA: (1.45, 0.142)}  # study 000: CPU s of 10 epochs, SDCA/Pegasos
FOUR = {  # study 001's four algorithms: SDCA, Pegasos, ASDCA, mini-batch Pegasos
    SIM: ("SDCA random", "Pegasos", "ASDCA θ=0.15", "Mini-batch Pegasos"),
    GEN: ("SDCA random", "Pegasos", "ASDCA θ=0.15", "Mini-batch Pegasos k=8"),
    SKIN: ("SDCA random", "Pegasos", "ASDCA θ=0.75", "Mini-batch Pegasos k=2"),
}
SAMPLINGS, AVG = ("SDCA random", "SDCA perm", "SDCA cyclic"), table2.AVERAGED


# ----------------------------------------------------------------------------- metrics
def stable_from(curve: pd.Series, tol: float) -> int:
    """First epoch from which the curve stays within ``tol`` of its final value."""
    outside = curve.index[(curve - curve.iloc[-1]).abs() > tol]
    return int(outside.max()) + 1 if len(outside) else int(curve.index.min())


def averaging(q: Query) -> dict:
    """Averaged − plain final accuracy per variant of table 2, and per solver."""
    diffs, family = [], {}
    for label in table2.STUDY:
        plain, avg = q.at(label, -1, "acc"), q.at(label + AVG, -1, "acc")
        diffs.append(avg - plain)
        solver = q.frame().solver[q.frame().config == label].iloc[0]
        sds = (plain.runs.std(ddof=1), avg.runs.std(ddof=1))
        family.setdefault(solver, []).append((avg - plain, *sds))
    by_family = "; ".join(
        f"{solver} {np.mean([d for d, _, _ in v]):+.4f} (sd over seeds "
        f"{np.mean([a for _, a, _ in v]):.4f} → {np.mean([b for _, _, b in v]):.4f})"
        for solver, v in family.items()
    )
    return dict(mean=np.mean(diffs), worst=max(abs(d) for d in diffs), by_family=by_family)


def star(v) -> str:
    """``P* = x`` from a certified record; ``P* ≥ x (not certified)`` otherwise."""
    return f"P* = {v.p_star:.4f}" if v.sure else f"P* ≥ {v.p_star:.4f} (not certified)"


def optimum_is(v) -> str:
    """``certified optimum is P* = x``, or what an uncertified record allows."""
    if v.sure:
        return f"certified optimum is P* = {v.p_star:.4f}"
    return f"optimum is not certified: P* ≥ {v.p_star:.4f}"


def rankings(q: Query, names) -> dict:
    """The four algorithms by mean certified suboptimality at the last epoch (best first)."""

    def rank(n):
        return sorted(((c, float(q.at(c, -1, "suboptimality", n))) for c in FOUR[n]),
                      key=lambda t: t[1])  # fmt: skip

    ranks = {n: rank(n) for n in names}
    text = "; ".join(f"{n.split('_', 1)[1]}: {fmt_rank(r)}" for n, r in ranks.items())
    return dict(ranks=ranks, text=text, slowest={n: r[-1][0] for n, r in ranks.items()})


def fmt_rank(rank) -> str:
    return " < ".join(f"{c} ({v:.1e})" for c, v in rank)


def asdca_note(q: Query, name: str) -> str:
    """What the report says about ASDCA on its own (smoothed) problem at the last epoch."""
    label, ds = FOUR[name][2], name.split("_", 1)[1]
    gap, smooth = (float(q.at(label, -1, col, name)) for col in ("gap", "primal_smooth"))
    hinge = q.curve(label, "primal", name)
    moved = abs(hinge.iloc[-1] - hinge.iloc[-6]) / hinge.iloc[-1] if len(hinge) > 6 else math.nan
    if gap > 1e-3 * smooth:
        return f"{ds}: {label} has not converged on its own smoothed problem (duality gap " \
            f"{gap:.1e} after {q.last(name)} epochs)"  # fmt: skip
    return f"{ds}: {label} has converged on the problem it solves, the γ-smoothed hinge (its " \
        f"own duality gap {gap:.1e}), and its hinge objective has stopped moving (relative " \
        f"change over the last 5 epochs {moved:.1e}): what separates it from P* is the " \
        "smoothing, not speed"  # fmt: skip


def projection(q: Query) -> dict:
    """Pegasos vs projected Pegasos: final objectives, roughness of log P, paired difference."""
    r = q.frame()
    rows = r[r.epoch >= 1].sort_values(["seed_index", "epoch"])
    tv = rows.groupby(["config", "seed_index"]).primal.apply(
        lambda v: np.abs(np.diff(np.log(v))).sum()
    )
    pair = r[r.config == "Pegasos"].merge(
        r[r.config == "Pegasos projected"], on=["seed_index", "epoch"], suffixes=("", "_p")
    )
    pair = pair[pair.epoch >= 1]
    rel = (pair.primal_p - pair.primal).abs() / pair.primal
    return dict(p=q.at("Pegasos", -1, "primal"), q=q.at("Pegasos projected", -1, "primal"),
                rel=rel, tv=tv["Pegasos"].mean(), tv_p=tv["Pegasos projected"].mean())  # fmt: skip


def lambda_study(q: Query) -> dict:
    """Per algorithm of the λ sweep: final P and epochs to 1e-3 relative suboptimality per λ."""
    r, end, lines, failing = q.frame("suboptimality"), q.last(), [], []
    for algo in ("SDCA", "Pegasos", "ASDCA", "Mini-batch Pegasos"):
        rows = r[common.tag_mask(r, "lambda", algo)]
        rows = rows.assign(rel=rows.suboptimality / rows.p_star_dual)
        lmbds = sorted(rows.lmbd.unique())
        final_p = [rows[(rows.lmbd == lm) & (rows.epoch == end)].primal.mean() for lm in lmbds]
        p_star = [rows[rows.lmbd == lm].p_star_dual.iloc[0] for lm in lmbds]
        curves = [rows[rows.lmbd == lm].groupby("epoch").rel.mean() for lm in lmbds]
        reach = [float(c.index[c <= 1e-3][0]) if (c <= 1e-3).any() else math.inf for c in curves]
        faster = all(a >= b for a, b in itertools.pairwise(reach))
        if not (np.all(np.diff(final_p) > 0) and faster):
            i = max(range(len(lmbds)), key=lambda i: final_p[i] / p_star[i])
            failing.append(f"{algo}: at λ = {lmbds[i]:g} its final objective is "
                           f"{final_p[i]:.3g} against P* = {p_star[i]:.3g} (not converged "
                           f"in {end} epochs)")  # fmt: skip
        epochs = ", ".join(f"{e:.0f}" if math.isfinite(e) else "never" for e in reach)
        final = ", ".join(f"{v:.3g}" for v in final_p)
        lines.append(f"{algo}: final P {final} ; epochs to 1e-3 relative: {epochs}")
    return dict(lines=lines, failing=failing)


# ----------------------------------------------------------------------------- the claims
@dataclass(frozen=True)
class Claim:
    """One claim: where it is shown and read from, what they found, how we judge and say it."""

    id: str  # "000.1": study and row
    figures: tuple[str, ...]  # the outputs that show it (figures.OUTPUTS)
    reports: tuple[str, ...]  # read from (the first is the Query's default)
    claim: str
    theirs: str  # the study's value
    criterion: str
    read: Callable[[Query], dict]  # our values
    holds: Callable[[SimpleNamespace], bool]  # the criterion on them
    ours: Callable[[SimpleNamespace], str]
    why: Callable[[SimpleNamespace], str] = lambda v: ""  # the reason of a differs (or level)
    note: Callable[[SimpleNamespace], str] = lambda v: ""  # said when it holds
    # the difference the claim is about is within the spread over seeds: "level", checked first
    level: Callable[[SimpleNamespace], bool] = lambda v: False
    configs: tuple[str, ...] = ()  # the configurations it reads (``compare``: runs or not)
    # measured against P* (suboptimality): "not tested" unless the optimum is certified
    needs_p_star: bool = False


# fmt: off
def _cpu10(q: Query) -> dict:
    s, p = q.at(SDCA, 10, "cpu_time_cum"), q.at(PEG, 10, "cpu_time_cum")
    return dict(s=s, p=p, fs=CPU10[q.name][0] / s, fp=CPU10[q.name][1] / p)


CPU10_TEXTS = dict(
    holds=lambda v: False,
    ours=lambda v: f"SDCA {v.s:pm4} s, Pegasos {v.p:pm4} s for 10 epochs ({v.fs:.0f}× and "
    f"{v.fp:.0f}× faster than theirs)",
    why=lambda v: "absolute times are machine- and implementation-bound: compiled Numba kernels "
    "here, Python loops there; only ratios between solvers can be compared",
)
NOT_COMPARABLE = "(not comparable across machines and implementations)"
SPREAD = lambda v: max(v.end.values()) - min(v.end.values())  # noqa: E731

CLAIMS: list[Claim] = [
    Claim("000.1", ("study000_fig2",), (RAW,),
          "SDCA (with or without SGD init) reaches its best test error, ≈ 26 %, after 2 epochs "
          "on raw crops", "≈ 26% (notebook: 0.263)",
          "|mean − 0.26| ≤ 0.03 and within 1 pp of the best epoch",
          read=lambda q: dict(e2=q.at(SDCA, 2, "test_error"),
                              best=q.curve(SDCA, "test_error").min()),
          holds=lambda v: abs(v.e2 - 0.26) <= 0.03 and v.e2 - v.best <= 0.01,
          ours=lambda v: f"{v.e2:pm3} after 2 epochs (best mean over epochs {v.best:.3f})",
          why=lambda v: f"mean test error after 2 epochs {v.e2:.3f}, best over 10 epochs "
          f"{v.best:.3f}"),
    Claim("000.2", ("study000_fig2",), (RAW,),
          "Pegasos takes ≈ 3× longer (CPU) than SDCA to converge on raw crops", "≈ 3×",
          "ratio of CPU times to reach loss within 1 % of P* in [2, 4]",
          read=lambda q: dict(
              s=q.cpu_to(SDCA, "suboptimality", 0.01 * q.p_star()), se=q.epoch_cpu(SDCA, 1e3),
              p=q.cpu_to(PEG, "suboptimality", 0.01 * q.p_star()), pe=q.epoch_cpu(PEG, 1e3)),
          holds=lambda v: 2.0 <= v.p / v.s <= 4.0,
          ours=lambda v: f"time to loss within 1 % of P*: SDCA {v.s:.3f} s, Pegasos {v.p:.3f} s "
          f"(ratio {v.p / v.s:.1f}); CPU per epoch: SDCA {v.se:pm1} ms, Pegasos {v.pe:pm1} ms",
          why=lambda v: f"our epochs cost SDCA {v.se:.1f} ms vs Pegasos {v.pe:.1f} ms (compiled "
          f"kernels, same memory traffic per epoch); their 10 epochs took {CPU10[RAW][0]} s "
          f"(SDCA) and {CPU10[RAW][1]} s (Pegasos) in pure Python, so their gap measured "
          "interpreter overhead per update, not the algorithms. With λ = 1.6 almost every dual "
          "variable sits at its bound, so SDCA also needs few epochs."),
    Claim("000.3", ("study000_fig2",), (RAW,),
          "Pegasos' test error stabilises around epoch 4 (raw crops)", "≈ epoch 4",
          "first epoch from which the mean stays within 0.5 pp of its final value in [3, 5]",
          read=lambda q: dict(end=q.curve(PEG, "test_error").iloc[-1],
                              first=stable_from(q.curve(PEG, "test_error"), 0.005)),
          holds=lambda v: 3 <= v.first <= 5,
          ours=lambda v: f"stable (±0.5 pp of final {v.end:.3f}) from epoch {v.first}",
          why=lambda v: "the mean test error is within 0.5 pp of its final value from epoch "
          f"{v.first}"),
    Claim("000.4", ("study000_fig2",), (RAW,),
          "The modified-SGD first epoch lowers the first-epoch loss, not the test error",
          "lower loss after epoch 1, same scores",
          "lower mean loss at epoch 1 and test errors within 0.5 pp from epoch 2",
          read=lambda q: dict(p1=q.at(SDCA, 1, "primal"), p1s=q.at(SGD, 1, "primal"), diff=max(
              abs(q.at(SDCA, e, "test_error") - q.at(SGD, e, "test_error"))
              for e in range(2, q.last() + 1))),
          holds=lambda v: v.p1s < v.p1 and v.diff <= 0.005,
          ours=lambda v: f"epoch-1 loss {v.p1s:pm4} (SGD init) vs {v.p1:pm4}; test errors "
          f"within {v.diff * 100:.2f} pp from epoch 2",
          why=lambda v: f"epoch-1 loss with SGD init {v.p1s:.4f} vs {v.p1:.4f} without; largest "
          f"test-error difference from epoch 2 on: {v.diff * 100:.2f} pp"),
    Claim("000.5", ("study000_fig2",), (RAW,),
          "Raw crops: SDCA loss falls from 1.0 to ≈ 0.63 in 2–3 epochs; Pegasos jumps to ≈ 1.75 "
          "after epoch 1", "0.63; 1.75", "within 0.05 and 0.25",
          read=lambda q: dict(l3=q.at(SDCA, 3, "primal"), pe1=q.at(PEG, 1, "primal"),
                              p_star=q.p_star(), sure=q.certified()),
          holds=lambda v: abs(v.l3 - 0.63) <= 0.05 and abs(v.pe1 - 1.75) <= 0.25,
          ours=lambda v: f"SDCA loss after 3 epochs {v.l3:pm4} ({star(v)}); Pegasos "
          f"after epoch 1 {v.pe1:pm3}",
          why=lambda v: f"the {optimum_is(v)}; their SDCA used λd "
          "instead of λn in its step (REFERENCE.md), so their SDCA curve is not this problem's; "
          f"our Pegasos after one epoch: {v.pe1:.3f}"),
    Claim("000.6", ("study000_fig2",), (RAW,), "CPU time of 10 epochs, raw crops",
          f"SDCA {CPU10[RAW][0]} s, Pegasos {CPU10[RAW][1]} s", NOT_COMPARABLE,
          read=_cpu10, **CPU10_TEXTS),
    Claim("000.7", ("study000_fig3",), (PCA,),
          "PCA-40: the three methods have the same test error (≈ 20.6 %), reached after one "
          "epoch", "0.206 / 0.207", "final means within 0.5 pp of each other, ≈ 0.206 ± 0.03",
          read=lambda q: dict(end={c: q.at(c, -1, "test_error") for c in (SDCA, SGD, PEG)},
                              e1=[q.at(c, 1, "test_error") for c in (SDCA, SGD, PEG)]),
          holds=lambda v: SPREAD(v) <= 0.005 and abs(np.mean([*v.end.values()]) - 0.206) <= 0.03,
          ours=lambda v: "; ".join(f"{c}: {e:pm3}" for c, e in v.end.items())
          + f" (after 1 epoch: {', '.join(f'{e:.3f}' for e in v.e1)})",
          why=lambda v: f"final mean test errors spread over {SPREAD(v) * 100:.2f} pp"),
    Claim("000.8", ("study000_fig3",), (PCA,),
          "PCA-40: all three reach loss ≈ 0.895 after one epoch", "≈ 0.895",
          "every method within 0.02 after epoch 1",
          read=lambda q: dict(l1={c: q.at(c, 1, "primal") for c in (SDCA, SGD, PEG)},
                              p_star=q.p_star(), sure=q.certified()),
          holds=lambda v: all(abs(x - 0.895) <= 0.02 for x in v.l1.values()),
          ours=lambda v: "; ".join(f"{c}: {x:pm4}" for c, x in v.l1.items())
          + f" ({star(v)})",
          why=lambda v: optimum_is(v).replace(" is ", " ")),
    Claim("000.9", ("study000_fig3",), (PCA,),
          "PCA-40: Pegasos epochs are much cheaper (≈ 10×) than SDCA's", "≈ 10×",
          "SDCA/Pegasos CPU per epoch > 1.5",
          read=lambda q: dict(s=q.epoch_cpu(SDCA, 1e6), p=q.epoch_cpu(PEG, 1e6),
                              n=int(q.frame().n_train.iloc[0])),
          holds=lambda v: v.s / v.p > 1.5,
          ours=lambda v: f"CPU per epoch: SDCA {v.s:pm0} µs, Pegasos {v.p:pm0} µs "
          f"(SDCA/Pegasos = {v.s / v.p:.2f})",
          why=lambda v: f"an SDCA epoch costs {v.s:.0f} µs, a Pegasos epoch {v.p:.0f} µs once "
          "both are compiled: both read each 40-feature row once and SDCA's O(n) dual state "
          f"costs nothing extra. Their timings fit interpreter cost: {CPU10[PCA][0]} s / "
          f"(10 × {v.n}) = {CPU10[PCA][0] / (10 * v.n) * 1e6:.0f} µs per Python-level SDCA "
          f"update, while Pegasos makes {math.ceil(v.n / 100)} NumPy-batched updates per epoch"),
    Claim("000.10", ("study000_fig3",), (PCA,), "CPU time of 10 epochs, PCA-40",
          f"SDCA {CPU10[PCA][0]} s, Pegasos {CPU10[PCA][1]} s", NOT_COMPARABLE,
          read=_cpu10, **CPU10_TEXTS),
    Claim("001.1", ("study001_table2",), (SIM,),
          "Table 2: test accuracy of every variant on the simulated data",
          "notebook, same draw: 0.8545–0.8818 (true β 0.8788); report: 0.860–0.881",
          "each notebook accuracy inside the central 95 % of our runs (± half a test sample); "
          "true β equal",
          read=lambda q: table2.notebook_check(q.frame(), q.sidecar()["dataset_meta"]),
          holds=lambda v: not v.outside and v.same_beta,
          ours=lambda v: "; ".join(v.rows) + f"; true β {v.beta:.4f}",
          why=lambda v: f"on the study's own draw, outside the central 95 % of our {v.runs} "
          "runs: " + "; ".join(v.outside) + ("" if v.same_beta else f"; true β {v.beta:.4f} ≠ "
          f"{table2.NOTEBOOK_TRUE_BETA} (not the same draw)") + " (a single run of theirs; our "
          "spread is over solver seeds only)",
          note=lambda v: f"all {2 * len(table2.NOTEBOOK)} notebook accuracies lie in the central "
          f"95 % of our {v.runs} runs; true β {v.beta:.4f} = the notebook's (same draw)"),
    Claim("001.2", ("study001_table2",), (SIM,),
          "Averaging the output does not change accuracy much", "differences ≤ 0.015",
          "|averaged − plain| ≤ 0.01 for every variant",
          read=averaging, holds=lambda v: v.worst <= 0.01,
          ours=lambda v: f"averaged − plain accuracy: mean {v.mean:+.4f}, largest |difference| "
          f"{v.worst:.4f}; per solver: {v.by_family}",
          why=lambda v: f"averaging changes accuracy by up to {v.worst:.3f} (per-solver shifts "
          "above): averaging the noisy iterates of a subgradient method raises its accuracy and "
          "narrows its spread over seeds"),
    Claim("001.3", ("study001_fig7",), (SIM,),
          "Averaging does not bring the coefficients closer to the true β", "similar",
          "mean cosine(coef, β) within 0.01",
          read=lambda q: fig7.cosines(q.coef()), holds=lambda v: abs(v.avg - v.plain) <= 0.01,
          ours=lambda v: f"cosine(coef, β): plain {v.plain:pm4}, averaged {v.avg:pm4}",
          why=lambda v: "averaging moves the direction of w measurably"),
    Claim("001.4", ("study001_fig1", "study001_fig2", "study001_fig3"), (SIM, GEN, SKIN),
          "Plain Pegasos is the slowest of the four algorithms on every dataset",
          "slowest on simulated, genomic, skin",
          "largest mean P − P* at the last epoch on all three",
          read=lambda q: (d := rankings(q, FOUR)) | dict(notes=[
              asdca_note(q, n) for n, s in d["slowest"].items() if s.startswith("ASDCA")]),
          holds=lambda v: all(s == "Pegasos" for s in v.slowest.values()),
          ours=lambda v: "P − P* after the last epoch: " + v.text,
          why=lambda v: "slowest per dataset: "
          + ", ".join(f"{n.split('_', 1)[1]} {s}" for n, s in v.slowest.items())
          + (". " + "; ".join(v.notes) if v.notes else "")),
    Claim("001.5", ("study001_fig2",), (GEN,),
          "Mini-batch Pegasos is the fastest on genomic (d ≫ n)", "fastest",
          "smallest mean P − P* at the last epoch",
          read=lambda q: rankings(q, (GEN,)),
          holds=lambda v: v.ranks[GEN][0][0].startswith("Mini-batch"),
          ours=lambda v: fmt_rank(v.ranks[GEN]),
          why=lambda v: "per pass over the data (n samples per epoch for every method) mini-batch "
          "Pegasos is not ahead; the study ran its mini-batch methods n·epochs iterations of 8 "
          "samples, i.e. 8× more data than the k = 1 methods in the same number of 'epochs'"),
    Claim("001.6", ("study001_fig1", "study001_fig3"), (SIM, SKIN),
          "SDCA and ASDCA are the fastest on simulated and skin", "the two fastest",
          "the two smallest mean P − P* at the last epoch on both",
          read=lambda q: rankings(q, (SIM, SKIN))
          | dict(notes="; ".join(asdca_note(q, n) for n in (SIM, SKIN))),
          holds=lambda v: all({c for c, _ in r[:2]} == {FOUR[n][0], FOUR[n][2]}
                              for n, r in v.ranks.items()),
          ours=lambda v: v.text,
          why=lambda v: "; ".join(f"{n.split('_', 1)[1]}: first {r[0][0]}, ASDCA ranked "
                                  f"{[c for c, _ in r].index(FOUR[n][2]) + 1} of 4"
                                  for n, r in v.ranks.items()) + f". {v.notes}"),
    Claim("001.7", ("study001_fig5",), (SKIN,), "Cyclic order is slower on skin", "slower",
          "cyclic has the largest mean P − P* after 3 epochs",
          read=lambda q: dict(s={c: q.at(c, -1, "suboptimality") for c in SAMPLINGS}),
          holds=lambda v: v.s["SDCA cyclic"] > max(v.s["SDCA random"], v.s["SDCA perm"]),
          ours=lambda v: "P − P* after 3 epochs: "
          + "; ".join(f"{c} {x:.2e}" for c, x in v.s.items()),
          why=lambda v: "cyclic order is not behind on skin"),
    Claim("001.8", ("study001_fig4",), (GEN,),
          "On genomic the samplings converge alike, permutation the slowest", "perm slowest",
          "perm has the largest mean P − P* after 10 epochs",
          read=lambda q: dict(s=(s := {c: float(q.at(c, 10, "suboptimality")) for c in SAMPLINGS}),
                              slowest=max(s, key=s.get), n=int(q.frame().n_train.iloc[0])),
          holds=lambda v: v.slowest == "SDCA perm",
          ours=lambda v: "P − P* after 10 epochs: "
          + "; ".join(f"{c} {x:.2e}" for c, x in v.s.items()),
          why=lambda v: f"slowest here: {v.slowest}" + (
              f". Drawing n = {v.n} indices with replacement leaves (1 − 1/n)^n = "
              f"{(1 - 1 / v.n) ** v.n:.2f} of the samples unvisited in an epoch, which a "
              "permutation or a cyclic order never does" if v.slowest == "SDCA random" else "")),
    Claim("001.9", ("study001_fig6",), (GEN,),
          "Projection gives the same objective and speed, with a smoother curve",
          "same value, smoother", "final objectives within 1 % and smaller total variation",
          read=projection, holds=lambda v: abs(v.p - v.q) / v.p <= 0.01 and v.tv_p < v.tv,
          ours=lambda v: f"final objective {v.p:pm4} vs projected {v.q:pm4}; total variation of "
          f"log P: {v.tv:.3f} vs {v.tv_p:.3f}",
          why=lambda v: "the final objectives differ by more than 1 %"
          if abs(v.p - v.q) / v.p > 0.01 else "projection does change the trajectory (same "
          f"seeds: the objectives differ by {v.rel.mean():.1e} relatively on average over "
          f"epochs, {v.rel.max():.1e} at most) but not its roughness: the epoch-to-epoch "
          f"variation of log P is the same within {abs(v.tv_p / v.tv - 1):.0%}"),
    Claim("001.10", tuple(f"study001_fig{i}" for i in (8, 9, 10, 11)), (LAM,),
          "Higher λ: faster convergence and a higher final objective", "both",
          "final P increasing in λ and epochs to relative suboptimality 1e-3 non-increasing",
          read=lambda_study, holds=lambda v: not v.failing,
          ours=lambda v: " | ".join(v.lines) + " (λ ascending)",
          why=lambda v: "P* itself grows with λ for every algorithm (the claim's second half is "
          "a property of the problem); what fails is convergence at small λ: "
          + "; ".join(v.failing)),
]
# fmt: on
CLAIM = {c.id: c for c in CLAIMS}


# ----------------------------------------------------------------------------- on any data
#: The main variants' labels (:data:`experiments.catalogue.MAIN_VARIANTS`).
MAIN = {name: c.label for name, c in MAIN_VARIANTS.items()}
#: Relative suboptimality (P − P*)/P* that "converged" means in claim any.1.
ANY_TARGET = 1e-2


def epochs_to(q: Query, config: str, target: float = ANY_TARGET) -> dict:
    """Per run of ``config``: the first epoch whose relative suboptimality bound
    (P(w) − D)/D is ≤ ``target`` (a run that never gets there counts as last + 1, censored).

    :class:`NotTested` when the optimum's own relative gap exceeds target/10: a bound that
    loose cannot tell whether a run reached the target.
    """
    r = q.frame("suboptimality")
    rel_gap = float(r["p_star_rel_gap"].max())
    if rel_gap > target / 10 or not (r["p_star_dual"] > 0).all():
        state = "" if bool(r["p_star_certified"].all()) else "not certified, "
        raise common.NotTested(
            f"P* is known only to a relative gap of {rel_gap:.1g} ({state}the exact engine's "
            f"budget ran out): too loose to judge a relative suboptimality of {target:g}"
        )
    last = int(r["epoch"].max())
    rows = r[r["config"] == config]
    rel = (rows["suboptimality"] / rows["p_star_dual"]).le(target)
    first = rows["epoch"].where(rel).groupby(rows["seed_index"]).min().fillna(last + 1)
    return dict(runs=Runs(first), censored=int((first > last).sum()), last=last)


def _epochs_text(e: dict) -> str:
    text = f"{e['runs']:pm1}"
    if e["censored"]:
        n = e["runs"].runs.size
        text += f" ({e['censored']} of {n} run{'s' if n > 1 else ''} not within {e['last']}, "
        text += f"counted as {e['last'] + 1})"
    return text


def _any_converges(q: Query) -> dict:
    s, p = epochs_to(q, MAIN["sdca-perm"]), epochs_to(q, MAIN["pegasos"])
    if s["censored"] == s["runs"].runs.size and p["censored"] == p["runs"].runs.size:
        raise common.NotTested(
            f"neither SDCA-Perm nor Pegasos reached a relative suboptimality of {ANY_TARGET:g} "
            f"within {s['last']} epochs"
        )
    return dict(s=s["runs"], p=p["runs"], s_text=_epochs_text(s), p_text=_epochs_text(p))


def _any_best_error(q: Query) -> dict:
    r, sdca = q.frame(), MAIN["sdca-perm"]
    if r["test_error"].isna().all():
        raise common.NotTested("no test set (--test-size 0): nothing to measure a test error on")
    e = min(2, q.last())
    curve = q.curve(sdca, "test_error")
    best = int(curve[curve.index >= 1].idxmin())  # epoch 0 is w = 0: no step taken yet
    return dict(e=e, at=q.at(sdca, e, "test_error"), best=q.at(sdca, best, "test_error"),
                best_epoch=best)  # fmt: skip


def _any_sgd(q: Query) -> dict:
    sdca, sgd, last = MAIN["sdca-perm"], MAIN["sdca-sgd"], q.last()
    return dict(p1=q.at(sdca, 1, "primal"), p1s=q.at(sgd, 1, "primal"), last=last,
                pl=q.at(sdca, last, "primal"), pls=q.at(sgd, last, "primal"))  # fmt: skip


def _later_same(v) -> bool:
    return within_spread(v.pls, v.pl, 1e-3 * abs(float(v.pl)))


def _final_primals(q: Query, **configs: str) -> dict:
    """P at the last epoch of each config, P*'s lower bound D and its status."""
    out = {key: q.at(label, -1, "primal") for key, label in configs.items()}
    r = q.frame("suboptimality")
    return out | dict(last=q.last(), d=float(r["p_star_dual"].iloc[0]),
                      sure=bool(r["p_star_certified"].all()))  # fmt: skip


def _far(v, *keys: str) -> str:
    """A sentence when every value compared is still more than twice P*: early progress."""
    values = [float(getattr(v, k)) for k in keys]
    if v.d <= 0 or min(values) <= 2 * v.d:
        return ""
    star = "P*" if v.sure else "the lower bound D of P*"
    return (f"; all still {min(values) / v.d:.3g}× {star} or more: this compares progress "
            "so far, not where they converge")  # fmt: skip


def _sentence(clause: str) -> str:
    """``"; all still ..."`` -> ``"All still ..."``."""
    text = clause.removeprefix("; ")
    return text[:1].upper() + text[1:]


def _p_star(v) -> str:
    return f"P* = {v.d:.4g}" if v.sure else f"P* ≥ {v.d:.4g}, not certified"


def _level_or_not(v, a: str, b: str, what: str, other: str) -> str:
    """The reason of a *level* or *differs* comparing ``v.<a>`` and ``v.<b>``."""
    x, y = getattr(v, a), getattr(v, b)
    if within_spread(x, y):
        return (f"the difference of the means ({abs(x - y):.2g}) is within the spread over "
                f"seeds ({common.spread(x, y):.2g}){what}")  # fmt: skip
    return other


# fmt: off
ANY_DATA: list[Claim] = [
    Claim("any.1", (), (), "SDCA converges faster than Pegasos",
          "≈ 3× less CPU time to converge on raw crops (study 000)",
          f"per run, epochs to a relative suboptimality of {ANY_TARGET:g}: fewer for SDCA-Perm "
          "than for Pegasos (level: the means differ by no more than the spread over seeds); "
          "not judged without a certificate for P*",
          read=_any_converges, needs_p_star=True, level=lambda v: within_spread(v.s, v.p),
          holds=lambda v: v.s < v.p,
          ours=lambda v: f"epochs to {ANY_TARGET:g}: SDCA-Perm {v.s_text}, Pegasos {v.p_text}",
          why=lambda v: _level_or_not(v, "s", "p", "", "Pegasos gets there first"),
          configs=(MAIN["sdca-perm"], MAIN["pegasos"])),
    Claim("any.2", (), (), "SDCA reaches its best test error within 2 epochs",
          "2 epochs (study 000)",
          "mean test error after 2 epochs within 1 pp (or the spread over seeds, if larger) of "
          "the best epoch's, from epoch 1 on (epoch 0 is w = 0, which puts every sample in one "
          "class)",
          read=_any_best_error,
          holds=lambda v: within_spread(v.at, v.best, 0.01),
          ours=lambda v: f"SDCA-Perm: {100 * v.at:.1f} % after {v.e} epochs, best "
          f"{100 * v.best:.1f} % (epoch {v.best_epoch})",
          why=lambda v: f"its test error after {v.e} epochs is {100 * (v.at - v.best):.1f} pp "
          f"above its best (spread over seeds {100 * common.spread(v.at, v.best):.1f} pp)",
          configs=(MAIN["sdca-perm"],)),
    Claim("any.3", (), (), "The SGD first epoch lowers the first-epoch loss only",
          "lower loss after epoch 1, same later (study 000)",
          "P after epoch 1: SDCA-Perm + SGD init lower than SDCA-Perm by more than the spread "
          "over seeds (level: within it); after the last epoch within the spread or 0.1 %",
          read=_any_sgd, level=lambda v: within_spread(v.p1s, v.p1),
          holds=lambda v: v.p1s < v.p1 and _later_same(v),
          ours=lambda v: f"P after epoch 1: SGD init {v.p1s:.4g} vs {v.p1:.4g}; after epoch "
          f"{v.last}: {v.pls:.4g} vs {v.pl:.4g}",
          why=lambda v: _level_or_not(
              v, "p1s", "p1", ": the SGD first epoch does not change the first-epoch loss",
              "the SGD first epoch raises the first-epoch loss" if v.p1s > v.p1 else
              f"the two still differ after epoch {v.last}"),
          configs=(MAIN["sdca-perm"], MAIN["sdca-sgd"])),
    Claim("any.4", (), (), "Per sample processed, mini-batches do not speed Pegasos up",
          "no gain (study 001)",
          "P after the last epoch: Pegasos (k = 1) lower than mini-batch Pegasos (k = 8) by more "
          "than the spread over seeds (level: within it)",
          read=lambda q: _final_primals(q, k1=MAIN["pegasos"], k8=MAIN["pegasos-batch"]),
          level=lambda v: within_spread(v.k1, v.k8), holds=lambda v: v.k1 < v.k8,
          ours=lambda v: f"P after {v.last} epochs: k = 1 {v.k1:.4g}, k = 8 {v.k8:.4g} "
          f"({_p_star(v)})",
          why=lambda v: _level_or_not(v, "k1", "k8", ": mini-batches neither help nor hurt",
                                      "mini-batches end lower per sample processed")
          + _far(v, "k1", "k8"),
          note=lambda v: _sentence(_far(v, "k1", "k8")),
          configs=(MAIN["pegasos"], MAIN["pegasos-batch"])),
    Claim("any.5", (), (), "ASDCA ends above SDCA in the hinge objective",
          "ASDCA farthest from P* (study 001)",
          "P (hinge) after the last epoch: ASDCA higher than SDCA-Perm by more than the spread "
          "over seeds (level: within it); ASDCA solves the smoothed hinge (γ = 1)",
          read=lambda q: _final_primals(q, a=MAIN["asdca"], s=MAIN["sdca-perm"]),
          level=lambda v: within_spread(v.a, v.s), holds=lambda v: v.a > v.s,
          ours=lambda v: f"P after {v.last} epochs: ASDCA {v.a:.4g}, SDCA-Perm {v.s:.4g} "
          f"({_p_star(v)})",
          why=lambda v: _level_or_not(v, "a", "s", "", "ASDCA ends below SDCA")
          + _far(v, "a", "s"),
          note=lambda v: _sentence(_far(v, "a", "s")),
          configs=(MAIN["asdca"], MAIN["sdca-perm"])),
]
# fmt: on


class CurrentQuery(Query):
    """A :class:`Query` that reads a catalogue report only if it holds the runs of the
    experiment's current definition and code (:func:`experiments.reports.stale_report`, two
    columns read, no run planned): a stale report raises :class:`StaleInputError`, and its
    claims are *not run*, naming the ``make`` target that rebuilds it."""

    def _require_current(self, name: str) -> None:
        if name in CATALOGUE:
            reason = self._get(
                f"{name}/stale", lambda: stale_report(CATALOGUE[name], self.reports_dir)
            )
            if reason:
                raise StaleInputError(reason)

    def frame(self, column: str = "", name: str | None = None) -> pd.DataFrame:
        self._require_current(name or self.name)
        return super().frame(column, name)

    def coef(self) -> pd.DataFrame:
        self._require_current(self.name)
        return super().coef()


def evaluate(q: Query, claim: Claim) -> SimpleNamespace:
    """Our value, the verdict and its reason for one claim.

    Verdicts: *level* when the difference the claim is about is within the spread over seeds
    (``claim.level``, checked first), else *holds* or *differs* by ``claim.holds``; *not run*
    when an input is missing, *not tested* when the reports cannot decide (the reason says
    why: :class:`figures.common.NotTested`), as is a claim that ``needs_p_star`` on reports
    whose optimum is not certified.
    """
    try:
        q = q.on(claim.reports[0])
        if claim.needs_p_star and not q.certified():
            raise common.NotTested(
                "P* not certified (the exact engine's CPU budget ran out first), and this "
                "claim is measured against P*"
            )
        v = SimpleNamespace(**claim.read(q))
        verdict = "level" if claim.level(v) else "holds" if claim.holds(v) else "differs"
        reason = claim.note(v) if verdict == "holds" else claim.why(v)
        return SimpleNamespace(ours=claim.ours(v), verdict=verdict, reason=reason)
    except common.MissingInputError as exc:
        return SimpleNamespace(ours="—", verdict="not run", reason=str(exc))
    except common.NotTested as exc:
        return SimpleNamespace(ours="—", verdict="not tested", reason=str(exc))


def beyond_lines(reports_dir) -> list[str]:
    """The λ study at convergence (:mod:`figures.beyond_lambda`), or why it is missing."""
    from .beyond_lambda import REPORTS, findings, tables

    stale = [stale_report(CATALOGUE[name], reports_dir) for name in REPORTS if name in CATALOGUE]
    if any(stale):
        return [f"not run: {reason}" for reason in stale if reason]
    try:
        _, optimum, times = tables(reports_dir)
    except FileNotFoundError as exc:  # a missing report or optimum names its fix
        return [f"not run: {exc}"]
    return findings(optimum, times)


VERDICT = {"holds": "✅ holds", "level": "➖ level", "differs": "❌ differs",
           "not run": "⏸ not run", "not tested": "⏸ not tested"}  # fmt: skip
STUDIES = {"000": "Study 000 — blood cells (2018)",
           "001": "Study 001 — simulated, genomic, skin; ASDCA (2017)"}  # fmt: skip


def counts(results) -> str:
    """``"9 hold, 11 differ, 0 not run"`` (level and not tested only when there are any)."""
    n = pd.Series([r.verdict for _, r in results], dtype=object).value_counts()
    extra = "".join(f", {n[k]} {k}" for k in ("level", "not tested") if n.get(k, 0))
    return (
        f"{n.get('holds', 0)} hold, {n.get('differs', 0)} differ{extra}, "
        f"{n.get('not run', 0)} not run"
    )


def render(results: list, figure_dir: str, beyond: list[str] = ()) -> str:
    """The Markdown of REPRODUCTION.md: a table per study, then the λ study's findings."""
    lines = ["# Reproduction scorecard", "",
             f"Generated from the reports by `python -m figures.scorecard` on "
             f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC — do not edit by hand. "
             f"**{counts(results)}.**", "",
             "Ours: mean ± sd over seeds (sd with ddof = 1). The genomic results use a "
             "SUBSTITUTE dataset (Gravier 2010), not the study's data. Verdicts follow the "
             "stated criterion; a *differs* comes with the reason our data shows.",
             ""]  # fmt: skip
    for study, title in STUDIES.items():
        lines += [f"## {title}", "", "| # | claim | study | ours | verdict | why | figure |"]
        lines.append("|---|---|---|---|---|---|---|")
        for c, res in (x for x in results if x[0].id.startswith(study)):
            links = ", ".join(f"[{f}]({figure_dir}/{f}.png)" for f in c.figures)
            verdict = f"{VERDICT[res.verdict]}<br><sub>{c.criterion}</sub>"
            cells = [c.id, c.claim, c.theirs, res.ours, verdict, res.reason or "—", links]
            cells = [cell.replace("|", "\\|").replace("\n", " ") for cell in cells]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    if beyond:
        lines += ["## Beyond the studies — the λ sweeps at convergence", "",
                  "The exact engine's optima (certified or not, as each line says) and each "
                  "solver's median CPU "
                  f"time to a relative suboptimality ([figure]({figure_dir}/beyond_lambda.png), "
                  f"[table]({figure_dir}/beyond_lambda_table.md)); genomic = SUBSTITUTE data.",
                  "", *[f"- {line}" for line in beyond], ""]  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m figures.scorecard", description=__doc__)
    parser.add_argument("--out", default="REPRODUCTION.md")
    parser.add_argument("--reports", default=None)
    parser.add_argument("--figures", default="output/figures", help="figure links, relative")
    args = parser.parse_args(argv)
    q = CurrentQuery(args.reports)
    results = [(c, evaluate(q, c)) for c in CLAIMS]
    out = Path(args.out)
    out.write_text(render(results, args.figures, beyond_lines(args.reports)) + "\n")
    print(f"{out}: {counts(results)}")
    return out


if __name__ == "__main__":
    main()
