"""Reports -> numbers: the inputs of every figure, table and claim, and their aggregation.

Inputs (reports only; STYLE.md practices 11-12)
    :func:`load` (a report; a missing one is an error naming its ``make`` target),
    :func:`load_coef`, :func:`load_sidecar`, :func:`load_optima`, :func:`existing_reports`.
Aggregation at plot time
    :func:`select` (configs by tag), :func:`band` (mean and 10-90 % quantiles over seeds at each
    epoch), :func:`curves` (a band plus the mean cumulative CPU time), :func:`final` (last-epoch
    rows), :func:`time_to` (first epoch where the mean over seeds reaches a threshold),
    :func:`with_suboptimality` (joins the certified optima), :func:`runs_phrase`.
Reads of the claims (:mod:`sdca_pegasos.figures.scorecard`)
    :class:`Query` (a value at an epoch over seeds, a mean curve, CPU per epoch, P*),
    :class:`Runs` (a mean over seeds that formats as ``mean ± sd``), :func:`spread` and
    :func:`within_spread` (is a difference larger than the seeds' spread?), :class:`NotTested`.

Drawing is :mod:`sdca_pegasos.figures.plots`; this module does not import matplotlib.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from sdca_pegasos.experiments import optima, reports
from sdca_pegasos.experiments.optima import TARGET_REL_GAP
from sdca_pegasos.experiments.reports import MissingInputError

REPO = Path(__file__).resolve().parents[2]

#: Columns that identify one run of one experiment.
RUN_COLUMNS = ("experiment", "config", "seed_index")


# =============================================================================== locations


def output_dir(out_dir: Path | str | None = None) -> Path:
    """Where figures go: ``out_dir``, else ``$SVM_FIGURES_DIR``, else ``<repo>/output/figures``.

    The folder is created. ``output/`` is git-ignored: outputs are rebuilt, never committed.
    """
    path = Path(out_dir or os.environ.get("SVM_FIGURES_DIR") or REPO / "output" / "figures")
    path.mkdir(parents=True, exist_ok=True)
    return path


# =============================================================================== inputs
# (the loaders of experiments.reports: a missing input names the make target that builds it)
load = reports.load_report
load_coef = reports.load_coef
load_sidecar = reports.load_sidecar


def load_optima(reports_dir: Path | str | None = None) -> pd.DataFrame:
    """Every certified optimum (:func:`sdca_pegasos.experiments.optima.load_all`), one row each:
    ``dataset_key``, ``lmbd``, ``primal`` (≥ P*), ``dual`` (≤ P*), ``gap``, other fields."""
    records = optima.load_all(reports_dir)
    columns = ["dataset_key", "lmbd", "primal", "dual", "gap"]
    return pd.DataFrame.from_records(records) if records else pd.DataFrame(columns=columns)


def existing_reports(reports_dir: Path | str | None = None) -> list[str]:
    """Names of the catalogue's experiments whose report exists, in catalogue order."""
    from sdca_pegasos.experiments import CATALOGUE

    root = reports.reports_dir(reports_dir)  # reports_dir, $SVM_REPORTS_DIR or <repo>/reports
    return [name for name in CATALOGUE if (root / f"{name}.parquet").is_file()]


# =============================================================================== aggregation


def tag_mask(frame: pd.DataFrame, *tags: str) -> pd.Series:
    """Rows whose comma-joined ``tags`` contain every one of ``tags`` (exact tag match)."""
    column = frame["tags"].fillna("")
    wanted = set(tags)  # decided once per distinct tag string (a report has a few dozen)
    matching = [t for t in column.unique() if wanted <= set(t.split(","))]
    return column.isin(matching)


def select(frame: pd.DataFrame, *tags: str, solver: str | None = None) -> pd.DataFrame:
    """Rows of the configs carrying every tag in ``tags`` (and of ``solver`` if given); a
    ValueError if none (a figure would silently be empty)."""
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


def band(frame: pd.DataFrame, value: str, by: Sequence[str] = ("config",), x: str = "epoch"):
    """Mean and 10-90 % quantile band over seeds of ``value`` per group ``by`` and ``x``.

    Returns columns ``*by, x, mean, q10, q90, n``: the mean, the 10 % and 90 % quantiles
    (linear interpolation, NumPy's default) and the number of non-missing values (seeds),
    sorted by ``by`` then ``x``. Missing values (NaN) are left out of every statistic.
    """
    keys = [*by, x]
    groups = frame.groupby(keys, sort=True, dropna=False, observed=True)[value]
    out = groups.agg(mean="mean", n="count")
    out["q10"] = groups.quantile(0.1)
    out["q90"] = groups.quantile(0.9)
    return out.reset_index()[[*keys, "mean", "q10", "q90", "n"]]


def curves(frame, value: str, by: Sequence[str] = ("config",), time: str = "cpu_time_cum"):
    """:func:`band` of ``value`` per epoch, plus ``time``: the mean over seeds of ``time`` (the
    cumulative update-loop CPU time: the abscissa of every "vs CPU time" panel)."""
    out = band(frame, value, by, "epoch")
    mean_time = frame.groupby([*by, "epoch"], sort=True, dropna=False, observed=True)[time].mean()
    return out.merge(mean_time.rename("time").reset_index(), on=[*by, "epoch"], how="left")


def final(frame: pd.DataFrame, run: Sequence[str] = RUN_COLUMNS) -> pd.DataFrame:
    """Rows at the last epoch of each run (``run`` columns identify a run)."""
    last = frame.groupby(list(run), dropna=False, observed=True)["epoch"].transform("max")
    return frame[frame["epoch"] == last]


def time_to(frame, value: str, threshold: float, by=("config",), time="cpu_time_cum"):
    """First epoch where the mean over seeds of ``value`` is ``<= threshold``, and its time:
    one row per group, ``*by, epoch, time, reached`` (NaN, NaN, False if never)."""
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


def row_bias(frame: pd.DataFrame) -> pd.Series:
    """Per row: the bias multiplier B of its configuration (``param_bias_multiplier``, a JSON
    number; 0 for configurations that leave it out: the runs' default,
    ``sdca_pegasos.experiments.spec.RUN_DEFAULTS``)."""
    if "param_bias_multiplier" not in frame:
        return pd.Series(0.0, index=frame.index)
    column = frame["param_bias_multiplier"]
    return column.map(lambda v: 0.0 if v is None or v != v else float(json.loads(v)))


def with_suboptimality(frame: pd.DataFrame, optima: pd.DataFrame) -> pd.DataFrame:
    """Join the optimum of each row's (dataset, λ, bias multiplier) and add the suboptimality
    bound.

    Optima records (:mod:`sdca_pegasos.experiments.optima`) bound P* from both sides, certified or
    not: ``dual <= P* <= primal``. Added columns: ``p_star_dual`` and ``p_star_primal`` (the two
    bounds), ``certificate_gap`` (their difference: the floor below which nothing is signal),
    ``p_star_certified`` and ``p_star_rel_gap`` (the record's flag and relative gap: what every
    sentence about P* must say) and ``suboptimality = primal - p_star_dual``, an upper bound of
    P(w) − P* (P is the hinge objective of the iterate, whatever loss the solver optimises), within
    ``certificate_gap`` of it. A (dataset_key, λ, bias) without a stored optimum raises
    MissingInputError naming the command."""
    keyed = frame[["experiment", "dataset_key", "lmbd"]].assign(bias=row_bias(frame))
    pairs = keyed.drop_duplicates(["dataset_key", "lmbd", "bias"])
    record_bias = (
        optima["bias"].fillna(0.0).astype(float)
        if "bias" in optima
        else pd.Series(0.0, index=optima.index)
    )
    rows, missing = [], []
    for exp, key, lmbd, bias in pairs.itertuples(index=False):
        cand = optima
        if len(optima):
            cand = optima[(optima["dataset_key"] == key) & (record_bias == bias)]
        cand = cand[np.isclose(cand["lmbd"].astype(float), lmbd, rtol=1e-9, atol=0.0)]
        if cand.empty:
            missing.append((exp, key, lmbd))
        else:
            best = cand.iloc[0]
            gap = float(best["gap"])
            rel_gap = float(best.get("rel_gap", gap / abs(float(best["primal"]))))
            flag = best.get("certified")
            certified = rel_gap <= TARGET_REL_GAP if flag is None or flag != flag else bool(flag)
            rows.append(
                (key, lmbd, bias, float(best["dual"]), float(best["primal"]), gap, certified,
                 rel_gap)
            )  # fmt: skip
    if missing:
        lines = "; ".join(
            f"{key} λ={lmbd:.6g}: run `python -m sdca_pegasos.experiments run {exp}`"
            for exp, key, lmbd in missing
        )
        raise MissingInputError(
            f"no certified optimum for {lines} (it computes the optima first and reuses "
            "finished runs)"
        )
    columns = [
        "dataset_key", "lmbd", "bias", "p_star_dual", "p_star_primal", "certificate_gap",
        "p_star_certified", "p_star_rel_gap",
    ]  # fmt: skip
    bounds = pd.DataFrame(rows, columns=columns)
    out = keyed[["dataset_key", "lmbd", "bias"]].merge(
        bounds, on=["dataset_key", "lmbd", "bias"], how="left"
    )
    out.index = frame.index
    out = pd.concat([frame, out.drop(columns=["dataset_key", "lmbd", "bias"])], axis=1)
    out["suboptimality"] = out["primal"] - out["p_star_dual"]
    return out


def n_runs(frame: pd.DataFrame) -> tuple[int, int]:
    """Fewest and most seeds of any config in ``frame``."""
    counts = frame.groupby("config", observed=True)["seed_index"].nunique()
    return int(counts.min()), int(counts.max())


def runs_count(lo: int, hi: int) -> str:
    """``"100"``, or ``"3–5"`` when configs have different numbers of runs."""
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def runs_phrase(frame: pd.DataFrame) -> str:
    """``"mean over 100 runs"`` (or ``"mean over 3–5 runs"`` when configs differ)."""
    lo, hi = n_runs(frame)
    return f"mean over {runs_count(lo, hi)} run{'s' if hi > 1 else ''}"


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


def suptitle_for(frame: pd.DataFrame, what: str) -> str:
    """``"<what>\n<dataset title>, λ = ..."`` (one λ) for a figure title."""
    lmbds = sorted(pd.unique(frame["lmbd"]))
    n_train = int(frame["n_train"].iloc[0])
    lam = lmbd_text(lmbds[0], n_train) if len(lmbds) == 1 else "several λ"
    return f"{what}\n{dataset_label(frame)}, {lam}"


# =============================================================================== claims
def pm(values, digits: int = 3) -> str:
    """``mean ± sd`` over seeds (sd with ddof=1; just the mean for one value)."""
    v = np.asarray(values, dtype=float)
    sd = f" ± {v.std(ddof=1):.{digits}f}" if v.size > 1 else ""
    return f"{v.mean():.{digits}f}{sd}"


class Runs(float):
    """The mean over seeds, keeping the runs: ``f"{x:pm3}"`` is ``mean ± sd`` (:func:`pm`)."""

    def __new__(cls, values):
        self = super().__new__(cls, np.mean(runs := np.asarray(values, dtype=float)))
        self.runs = runs
        return self

    def __format__(self, spec: str) -> str:
        return pm(self.runs, int(spec[2:])) if spec.startswith("pm") else format(float(self), spec)


def spread(*values: Runs) -> float:
    """The spread over seeds of values compared with each other: the largest standard
    deviation over seeds (ddof = 1) among them; 0 for values of one run each."""
    sds = [float(np.std(v.runs, ddof=1)) for v in values if v.runs.size > 1]
    return max(sds, default=0.0)


def within_spread(a: Runs, b: Runs, floor: float = 0.0) -> bool:
    """Whether the means of ``a`` and ``b`` differ by no more than their :func:`spread` (or
    ``floor``, the resolution of the quantity, if larger): a difference the seeds do not
    separate, "level" in a verdict."""
    return abs(float(a) - float(b)) <= max(spread(a, b), floor)


class NotTested(Exception):
    """A claim these reports cannot decide (no test set, P* too loose, nobody reached the
    target...); the message says why, in one sentence."""


class Query:
    """Reads of the reports, each loaded once; ``q.on(name)`` reads report ``name`` by default.

    Columns of the certified optimum (``suboptimality``, ``p_star_dual``) come from the report
    joined with the optima (:func:`with_suboptimality`). A missing input raises
    :class:`MissingInputError` naming its target.
    """

    def __init__(self, reports_dir=None, name: str = ""):
        self.reports_dir, self.name, self._cache = reports_dir, name, {}

    def on(self, name: str) -> Query:
        view = copy.copy(self)  # shares the cache
        view.name = name
        return view

    def _get(self, key, load):
        if key not in self._cache:
            self._cache[key] = load()
        return self._cache[key]

    def frame(self, column: str = "", name: str | None = None) -> pd.DataFrame:
        """The report (joined with its optima for ``suboptimality`` and ``p_star_dual``)."""
        name, where = name or self.name, self.reports_dir
        report = self._get(name, lambda: load(name, where))
        if column not in ("suboptimality", "p_star_dual"):
            return report
        return self._get(f"{name}/subopt", lambda: with_suboptimality(report, load_optima(where)))

    def coef(self) -> pd.DataFrame:
        return self._get(f"{self.name}/coef", lambda: load_coef(self.name, self.reports_dir))

    def sidecar(self) -> dict:
        return load_sidecar(self.name, self.reports_dir)

    def last(self, name: str | None = None) -> int:
        return int(self.frame(name=name).epoch.max())

    def at(self, config: str, epoch: int, column: str, name: str | None = None) -> Runs:
        """``column`` at ``epoch`` (-1: the last) over the seeds of ``config`` (``"acc"``:
        1 − ``test_error_output``)."""
        r = self.frame(column, name)
        rows = r[(r.config == config) & (r.epoch == (epoch if epoch >= 0 else r.epoch.max()))]
        if rows.empty:
            raise KeyError(f"no rows for {config!r} at epoch {epoch}")
        return Runs(1 - rows.test_error_output if column == "acc" else rows[column])

    def curve(self, config: str, column: str, name: str | None = None) -> pd.Series:
        """Mean over seeds per epoch."""
        r = self.frame(column, name)
        return r[r.config == config].groupby("epoch")[column].mean()

    def cpu_to(self, config: str, column: str, threshold: float) -> float:
        """Mean cumulative CPU time at the first epoch whose mean ``column`` <= threshold."""
        curve = self.curve(config, column)
        hit = curve.index[curve <= threshold]
        return self.at(config, int(hit[0]), "cpu_time_cum") if len(hit) else math.inf

    def epoch_cpu(self, config: str, scale: float = 1.0) -> Runs:
        """Per run: mean update-loop CPU per epoch over epochs 2.. (epoch 1 holds set-up)."""
        r = self.frame()
        rows = r[(r.config == config) & (r.epoch >= 2)]
        return Runs(rows.groupby("seed_index").cpu_time.mean() * scale)

    def p_star(self, name: str | None = None) -> float:
        """D(α*) ≤ P*: P* itself within the certificate's gap when :meth:`certified`."""
        return float(self.frame("p_star_dual", name).p_star_dual.iloc[0])

    def certified(self, name: str | None = None) -> bool:
        """Whether every optimum record the report joins is certified."""
        return bool(self.frame("p_star_dual", name).p_star_certified.all())
