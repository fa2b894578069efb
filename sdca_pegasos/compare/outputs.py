"""Figures and SUMMARY.md of a comparison: every sentence about P* read from its record.

An optimum record (:mod:`sdca_pegasos.experiments.optima`) bounds P* from both sides, ``dual <= P*
<= primal``. Certified (relative gap ≤ its target), it is stated with the gap reached, the method
and the CPU seconds; not certified (the CPU budget ended first), it is stated as "not certified: P*
in [D, P], relative gap X after Y s", the suboptimality curves are labelled as upper bounds against
D, and no claim that needs P* is judged on it.

The claims are the rows :data:`sdca_pegasos.figures.any_data.ANY_DATA` of the scorecard's claim
table, judged by its one evaluator (:func:`sdca_pegasos.figures.claims.evaluate`) on this folder's
reports. Where the optimum's test error (training error without a test set) is exactly that of
predicting one class for every sample (:func:`one_class`), the summary says so, and the claims
that read errors are *not tested*: errors do not show what a solver learnt on such data."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd

from sdca_pegasos.figures import ASDCA_NOTE, any_data, claims, plots
from sdca_pegasos.figures import common as fc

#: Files of the output folder, described in SUMMARY.md (and README.md, "Your own data").
FILES = {
    "SUMMARY.md": "this summary",
    "manifest.json": "the input this folder belongs to (the file's SHA-256, the options that "
    "change what it holds, the command): another input is refused here",
    "compare.parquet": "every run's every epoch at every λ, long format (one row per run and "
    "epoch: objective, duality gap, errors, CPU time; the scaling and bias multiplier used)",
    "compare_lmbd<λ>.parquet, .json": "the same per λ, with a sidecar (versions, machine, timing)",
    "<figure>_lmbd<λ>.png, .pdf": "the figures listed above",
    "optima/": "the exact engine's record of P* per λ (bounds, gap, method, CPU s, errors)",
    "runs/": "one file per finished run: running the same command again reuses them",
}


def lmbd_words(lmbd: float, dataset) -> str:
    """``λ = 1/n = 7.4e-04`` or ``λ = 0.01``."""
    return fc.lmbd_text(lmbd, dataset.n_train)


def optimum_sentence(record: dict) -> str:
    """What the record says about P*, and nothing more."""
    p, d, rel = float(record["primal"]), float(record["dual"]), float(record["rel_gap"])
    cpu = float(record["cpu_seconds"])
    if record["certified"]:
        target = float(record.get("target_rel_gap", 1e-10))
        return (
            f"P* = {p:.8g}, certified by the exact engine: relative duality gap {gap_text(rel)} "
            f"reached (target {target:g}), method {record.get('method', '?')}, {cpu:.3g} s CPU"
        )
    budget = float(record.get("budget_seconds", math.nan))
    return (
        f"not certified: P* in [{d:.6g}, {p:.6g}], relative gap {rel:.2g} after {cpu:.3g} s "
        f"(CPU budget {budget:g} s)"
    )


def gap_text(rel_gap: float) -> str:
    """A relative gap as reached: below 1e-15 (or negative, by rounding) it is float64
    rounding, said so."""
    return f"{rel_gap:.1e}" if rel_gap >= 1e-15 else "below 1e-15 (float64 rounding)"


def one_class(rec: dict, dataset) -> tuple[str, str]:
    """Whether the optimum classifies no better than one class for every sample: its error on
    the test split (the training split without one) is exactly that of predicting +1, or −1,
    for every sample. Returns the summary's sentence and the reason a claim about errors is
    not judged, or ``("", "")``.

    Read from the record's count of the split's samples the optimum predicts +1
    (``test_predicted_positive``, ``train_predicted_positive``: :func:`sdca_pegasos.experiments.
    optima.certify`): one class when it is 0 or n. A record without it (written before the
    count was) is read from its error and the split's labels: k errors among n samples of which
    p are +1 is the error of predicting +1 for all when k = n − p, −1 for all when k = p. (It is
    also the error of any prediction whose +1 side holds as many −1 samples as +1 samples:
    the sentences say "no better than" and "the error of", which hold either way.)"""
    test = dataset.X_test is not None
    y = np.asarray(dataset.y_test if test else dataset.y_train)
    error = rec.get("test_error" if test else "train_error")
    if error is None or not math.isfinite(float(error)) or y.size == 0:
        return "", ""
    n, positive = int(y.size), int(np.sum(y > 0))
    predicted = rec.get("test_predicted_positive" if test else "train_predicted_positive")
    if predicted is not None and math.isfinite(float(predicted)):
        if int(predicted) not in (0, n):
            return "", ""
        signs = ["+1" if int(predicted) == n else "−1"]
        wrong = n - positive if signs == ["+1"] else positive
    else:
        wrong = round(float(error) * n)
        signs = [sign for sign, k in (("+1", n - positive), ("−1", positive)) if wrong == k]
    if not signs:
        return "", ""
    base = min(positive, n - positive)
    split = "test" if test else "training"
    who = "the optimum" if rec["certified"] else "the exact engine's best point (not certified)"
    if len(signs) == 2:
        which = "either class for every sample"
        rate = "the base rate: the classes are balanced"
    elif 2 * positive == n:  # balanced, and the prediction's class known
        which = f"{signs[0]} for every sample"
        rate = "the base rate: the classes are balanced"
    elif wrong == base:
        which = f"{signs[0]}, the majority class, for every sample"
        rate = "the base rate"
    else:
        which = f"{signs[0]}, the minority class, for every sample"
        rate = f"above the base rate of {_pct(base / n)}"
    error_text = f"{_pct(wrong / n)} ({wrong} of {n})"
    sentence = (
        f"{who} does no better on the {split} samples than predicting one class: its {split} "
        f"error, {error_text}, is exactly that of predicting {which} ({rate}). The features "
        "may not separate the classes at this λ (a smaller --lmbd, or other features, may); "
        "the claims about errors are not judged."
    )
    reason = (
        f"the {split} error of {who}, {error_text}, is that of predicting {which}: here "
        "errors do not show what a solver learnt"
    )
    return sentence[:1].upper() + sentence[1:], reason


def _record(opt: pd.DataFrame, lmbd: float) -> dict:
    rows = opt[np.isclose(opt["lmbd"].astype(float), lmbd, rtol=1e-9, atol=0.0)]
    return rows.iloc[0].to_dict()


# ------------------------------------------------------------------------------- figures
#: The figures of each λ, in order: stem -> what it shows.
FIGURES = {
    "loss_error": "training loss and test error",
    "objective": "primal objective",
    "suboptimality": "suboptimality",
    "duality_gap": "duality gap",
}


def not_drawn(frame: pd.DataFrame, panels) -> str:
    """Why a figure of these panels would be empty ("" when it would not): a log-scale panel needs
    a positive value, a linear one any value. A suboptimality bound P(w) − D is signal only above
    the certificate's own gap P − D of P* (``certificate_gap``, from
    :func:`sdca_pegasos.figures.common.with_suboptimality`): below it, w is at the optimum as far
    as the certificate can tell."""
    for p in panels:
        values = frame[p.value]
        floor, below = 0.0, ""
        if p.value == "suboptimality" and "certificate_gap" in frame:
            floor = frame["certificate_gap"].fillna(0.0).clip(lower=0.0)
            if float(floor.max()) > 0.0:
                below = f" the certificate's own gap of P* ({float(floor.max()):.1e})"
        if p.log and not (values > floor).any():
            return f"every value of {p.value} is 0 or below{below}, nothing to draw on a log scale"
        if not values.notna().any():
            return f"no value of {p.value}"
    return ""


def figures(frame: pd.DataFrame, opt: pd.DataFrame, out: Path, problem: str = "") -> list[Path]:
    """Per λ: loss and error, objective, suboptimality bound and (dual solvers) duality gap,
    as PNG and PDF; one colour-blind-safe colour and line style per solver. A figure that
    would have an empty panel is not drawn (:func:`omitted` says why)."""
    paths: list[Path] = []
    styles = plots.distinct_styles(fc.config_order(frame))
    for lmbd, sub in fc.with_suboptimality(frame, opt).groupby("lmbd", sort=True):
        for kind, (data, panels, title, note) in _specs(sub, _record(opt, lmbd), problem).items():
            if data is None or not_drawn(data, panels):
                continue
            fig = plots.curve_figure(data, panels, title, note, styles=styles)
            paths += plots.save_figure(fig, out, f"{kind}_lmbd{lmbd:.6g}")
    return paths


def omitted(sub: pd.DataFrame, rec: dict) -> dict[str, str]:
    """The figures of one λ that are not drawn, and why."""
    out = {}
    for kind, (data, panels, _, _) in _specs(sub, rec, "").items():
        why = "Pegasos keeps no dual point" if data is None else not_drawn(data, panels)
        if why:
            out[kind] = why
    return out


def _specs(sub: pd.DataFrame, rec: dict, problem: str) -> dict:
    """kind -> (rows, panels, title, caption) of the figures of one λ (rows None: no
    solver to draw)."""
    has_test = bool(sub["test_error"].notna().any())
    error = "test" if has_test else "training"
    loss_error = (
        plots.Panel("primal", "time", "training loss P(w) (hinge + λ/2‖w̃‖²), log scale",
                    "(a) training loss vs CPU time"),
        plots.Panel("test_error" if has_test else "train_error", "epoch",
                    f"{error} error (fraction misclassified)", f"(b) {error} error vs epochs",
                    log=False),
    )  # fmt: skip
    no_test = "" if has_test else " No test set (--test-size 0): training error."
    if rec["certified"]:
        ylabel = "P(w) − P* (upper bound: P(w) − D, D ≤ P*), log scale"
        what = "Suboptimality P(w) − P*"
        about = (
            f"{optimum_sentence(rec)}. The curves are P(w) − D with D ≤ P* the optimum's dual "
            "value: upper bounds of P(w) − P*, within the gap of it."
        )
    else:
        ylabel = "P(w) − D: an upper bound of P(w) − P*, log scale"
        what = "Upper bound of the suboptimality, P(w) − D (P* not certified)"
        about = (
            f"P* {optimum_sentence(rec)}. The curves are P(w) − D, upper bounds of P(w) − P* "
            "against the best dual value D the exact engine found; the true suboptimality may "
            "be smaller by up to the gap."
        )
    duals = sub[sub["solver"] != "pegasos"]  # Pegasos keeps no dual point
    gap = plots.vs_epochs_and_time(
        "gap", "duality gap P(w) − D(α) of the problem solved, log scale"
    )
    return {
        "loss_error": (sub, loss_error, fc.suptitle_for(sub, f"Training loss and {error} error"),
                       f"{problem}{no_test}".strip()),
        "objective": (sub, plots.LAYOUTS["objective"], fc.suptitle_for(sub, "Primal objective"),
                      f"{problem} {ASDCA_NOTE}".strip()),
        "suboptimality": (sub, plots.vs_epochs_and_time("suboptimality", ylabel),
                          fc.suptitle_for(sub, what), f"{about} {problem}".strip()),
        "duality_gap": (duals if len(duals) else None, gap,
                        fc.suptitle_for(duals if len(duals) else sub, "Duality gap"),
                        "ASDCA: gap of the smoothed problem it solves. Pegasos keeps no dual "
                        f"point. {problem}".strip()),
    }  # fmt: skip


# ------------------------------------------------------------------------------- summary
def claims_of(configs: set[str]) -> tuple[list, list]:
    """The claims whose solvers all ran, and those left out."""
    kept = [c for c in any_data.ANY_DATA if set(c.configs) <= configs]
    return kept, [c for c in any_data.ANY_DATA if c not in kept]


def claims_section(root: Path, name: str, configs: set[str], errors_moot: str = "") -> list[str]:
    """The claims table of report ``name`` (one sentence instead, when none applies);
    ``errors_moot``: why the claims about errors are not judged (:func:`one_class`)."""
    kept, left_out = claims_of(configs)
    q = fc.Query(root)
    lines = []
    if kept:
        lines += ["| claim | study | ours | verdict | why |", "|---|---|---|---|---|"]
        for claim in kept:
            res = claims.evaluate(q, dataclasses.replace(claim, reports=(name,)), errors_moot)
            verdict = f"{res.verdict}<br><sub>{claim.criterion}</sub>"
            cells = [claim.claim, claim.theirs, res.ours, verdict, res.reason or "—"]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    else:
        lines.append("No claim can be checked with these solvers alone: each compares two.")
    if left_out:
        missing = sorted({c for claim in left_out for c in claim.configs} - configs)
        lines += [
            "",
            f"Left out, because {_join(missing)} did not run (`--solvers`): "
            + "; ".join(f"“{c.claim}”" for c in left_out)
            + ".",
        ]
    return lines


def values_table(sub: pd.DataFrame, rec: dict) -> list[str]:
    """Per solver at the last epoch (means over seeds), then the exact engine's point."""
    certified = bool(rec["certified"])
    gap_head = "P(w) − P*" if certified else "P(w) − D (upper bound of P(w) − P*)"
    has_test = bool(sub["test_error"].notna().any())
    lines = [
        f"| solver | P(w) | {gap_head} | training error | test error | CPU s |",
        "|---|---|---|---|---|---|",
    ]
    last = fc.final(sub)
    table = last.groupby("config", sort=False).agg(
        primal=("primal", "mean"),
        subopt=("suboptimality", "mean"),
        train=("train_error", "mean"),
        test=("test_error", "mean"),
        cpu=("cpu_time_cum", "mean"),
    )
    for config, r in table.iterrows():
        lines.append(
            f"| {config} | {r['primal']:.6g} | {r['subopt']:.2g} | {_pct(r['train'])} | "
            f"{_pct(r['test']) if has_test else '–'} | {r['cpu']:.3g} |"
        )
    who = "exact optimum (certified)" if certified else "exact engine's best point (not certified)"
    test = rec.get("test_error")
    lines.append(
        f"| {who} | {float(rec['primal']):.6g} | "
        f"{0.0 if certified else float(rec['gap']):.2g} | {_pct(rec.get('train_error'))} | "
        f"{_pct(test) if has_test else '–'} | {float(rec['cpu_seconds']):.3g} |"
    )
    return lines


def summary(frame: pd.DataFrame, opt: pd.DataFrame, plan, pngs: list[Path]) -> str:
    """The text of SUMMARY.md."""
    s, ds = plan.settings, plan.problem.dataset
    framed = fc.with_suboptimality(frame, opt)
    kind = "sparse CSR" if ds.meta.get("sparse") else "dense"
    seeds, epochs = s.seeds, s.epochs
    configs = fc.config_order(frame)
    lines = [
        f"# Do the studies' conclusions hold on {s.file.name}?",
        "",
        f"`{s.command()}` — read from the reports in this folder.",
        "",
        "## The problem",
        "",
        *[f"- {note}" for note in plan.notes],
        f"- {plan.problem.words}",
        f"- {ds.n_train} training samples × {ds.X_train.shape[1]} features ({kind}); "
        + (
            "no test set (--test-size 0)"
            if ds.X_test is None
            else f"{ds.X_test.shape[0]} test samples (stratified split, seed 0)"
        )
        + ".",
        f"- Solvers: {', '.join(configs)}; {seeds} seed{'s' if seeds > 1 else ''} each, "
        f"{epochs} epoch{'s' if epochs > 1 else ''} per run (an epoch is n samples processed, "
        "whatever the batch size).",
        *[f"- Warning: {w}" for w in plan.problem.warnings],
        "",
    ]
    for lmbd, sub in framed.groupby("lmbd", sort=True):
        rec = _record(opt, lmbd)
        name = str(sub["experiment"].iloc[0])
        stem = f"lmbd{lmbd:.6g}"
        lines += [
            f"## {fc.lmbd_text(lmbd, ds.n_train)}",
            "",
            f"**P\\***: {optimum_sentence(rec)}.",
        ]
        one, errors_moot = one_class(rec, ds)
        if one:
            lines += ["", f"**One class.** {one}"]
        if not rec["certified"]:
            lines += [
                "",
                "Every suboptimality below and in the figures is P(w) − D: an upper bound of "
                "P(w) − P*, not its value.",
            ]
        claims_lines = claims_section(s.out, name, set(configs), errors_moot)
        lines += ["", "### Claims", "", *claims_lines, ""]
        lines += ["### At the last epoch (means over seeds)", "", *values_table(sub, rec), ""]
        shown = [p.name for p in pngs if p.stem.endswith(stem)]
        if shown:
            lines.append("Figures: " + ", ".join(f"[{n}]({n})" for n in shown) + ".")
        lines += [f"Not drawn: {FIGURES[k]} ({why})." for k, why in omitted(sub, rec).items()]
        lines.append("")
    lines += [
        "## How to read the verdicts",
        "",
        "- **holds**: the claimed direction, by more than the spread over seeds (the larger "
        "standard deviation over seeds of the two values compared);",
        "- **level**: the difference is within that spread: the seeds do not separate them;",
        "- **differs**: the other direction, or the criterion is not met;",
        "- **not tested**: these runs cannot decide it (the reason says why).",
        "",
        "## Files in this folder",
        "",
        *[f"- `{name}`: {what}" for name, what in FILES.items()],
    ]
    return "\n".join(lines) + "\n"


def _pct(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * float(value):.1f} %"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
