"""REPRODUCTION.md: every claim of both studies, checked against our reports.

Claims are data. :data:`CLAIMS` has one :class:`~sdca_pegasos.figures.claims.Claim` row per claim:
id, the outputs that show it, the reports it is read from, the claim, the study's value, the
criterion, then ``read`` (a :class:`Query` of those reports -> our named values), ``holds`` (the
criterion on them) and the texts ``ours``, ``why`` (reason of a *differs*) and ``note`` (said when
it *holds*). One evaluator, :func:`sdca_pegasos.figures.claims.evaluate`, turns a row into our
value, a verdict — holds, differs, or not run (a report is missing; the reason names its ``make``
target) — and the reason line; this module adds the studies' claims, their readers, the
current-report check and the page. Every number of ours comes from the reports; only the studies'
numbers are written here (their table 2 in :mod:`sdca_pegasos.figures.study001_table2`). ``python
-m sdca_pegasos.figures.scorecard [--out FILE] [--reports DIR]`` (``make REPRODUCTION.md``)."""

from __future__ import annotations

import argparse
import itertools
import math
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from sdca_pegasos.experiments.catalogue import CATALOGUE
from sdca_pegasos.experiments.reports import StaleInputError, stale_report

from . import common
from . import study001_fig7 as fig7
from . import study001_table2 as table2
from .claims import Claim, evaluate
from .common import Query

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
    """Per algorithm of the λ sweep: final P and epochs to 1e-3 relative suboptimality per λ.

    The final epoch is the fixed-epoch configurations' own: the report's runs to convergence
    (SDCA with shrinking, the exact solver) end at other epochs.
    """
    r, lines, failing = q.frame("suboptimality"), [], []
    for algo in ("SDCA", "Pegasos", "ASDCA", "Mini-batch Pegasos"):
        rows = r[common.tag_mask(r, "lambda", algo)]
        rows = rows.assign(rel=rows.suboptimality / rows.p_star_dual)
        end = int(rows.epoch.max())
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


class CurrentQuery(Query):
    """A :class:`Query` that reads a catalogue report only if it holds the runs of the experiment's
    current definition and code (:func:`sdca_pegasos.experiments.reports.stale_report`, two columns
    read, no run planned): a stale report raises :class:`StaleInputError`, and its claims are *not
    run*, naming the ``make`` target that rebuilds it."""

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


def beyond_lines(reports_dir) -> list[str]:
    """The λ study at convergence (:mod:`sdca_pegasos.figures.beyond_lambda`), or why it is
    missing."""
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
             f"Generated from the reports by `python -m sdca_pegasos.figures.scorecard` on "
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
    parser = argparse.ArgumentParser(
        prog="python -m sdca_pegasos.figures.scorecard", description=__doc__
    )
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
