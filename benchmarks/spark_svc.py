r"""Wall time to relative suboptimality ε: Spark MLlib's LinearSVC against DaskSVMClassifier.

Both on the same objective, the same rows and the same cores.

The objective is this project's (:mod:`sdca_pegasos.solvers.core.objectives`), hinge loss and bias
multiplier B = 1, the bias weight regularised like the others:

.. math:: P(\tilde w) = \frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i \max(0, 1 - y_i\tilde
   x_i^\top\tilde w), \qquad \tilde x_i = (x_i, 1).

Spark's ``LinearSVC`` minimises :math:`\sum_i c_i\,\mathrm{hinge}_i / \sum_i c_i +
\frac12 r\|w\|^2` (``r = regParam``; ``L2Regularization`` in Spark's ``optim/loss``) by
OWL-QN, and never regularises its own intercept, so ``fitIntercept=False``,
``standardization=False`` and the bias is a feature column of ones. Spark trains in the
standardised space, though, and gives a zero-variance feature the coefficient 0
(``LinearSVC.train``): a bare column of ones would solve the problem without a bias. So Spark
also gets one dummy row, all zeros (the bias column too), of weight ``n``: its margin is 0
whatever the weights, its hinge 1, and it gives the bias column a standard deviation of about
½. With ``r = λ/2`` Spark's objective is then exactly

.. math:: S(\tilde w) = \frac{\sum_i \mathrm{hinge}_i + n}{2n} + \frac\lambda4\|\tilde w\|^2
   = \frac{P(\tilde w) + 1}{2},

which every fit checks: ``2 S − 1``, S the last value of Spark's ``objectiveHistory``, equals P at
Spark's coefficients evaluated here (:func:`sdca_pegasos.solvers.core.objectives.primal`, float64).

Spark: a ``SparkSession`` on ``local[cores]`` (``--cores``, 2), its JVM warmed up by a tiny
self-check fit first. The rows are written to Parquet (the vector column in Spark's own
vector layout, so Spark reads the same float64 bits), read, repartitioned into ``cores``
partitions, cached and counted before any timing. Then fits from scratch with
``maxIter`` = 1, 2, 4, … (``tol=0``), each timed by the wall clock around ``.fit()`` only
(it includes Spark's summary pass, standardisation and blocking of the data: each fit's own
work), until one reaches the smallest ε, OWL-QN stops before ``maxIter`` (it will not
improve), ``--max-iter`` or the fits' total wall passes ``--cap``. Then Spark's tolerance
sweep: fits with its default ``maxIter`` (100) and ``tol`` = ``--spark-tols`` (1e-2, 1e-4)
and its default tol (1e-6) last, which is the fit with Spark's defaults whole, until they
too pass ``--cap``. Spark's time to ε is the least wall of any fit of either sweep that
reaches it. A fit's relative
suboptimality is :math:`(P(w) - P^*)/P^*`, :math:`P^*` the certified upper bound of
``ExactSVMClassifier`` (``primal_``, certified to a relative gap of 1e-10 or better, which
is printed): a bound that can only flatter Spark.

Ours: ``DaskSVMClassifier`` as a user calls it (its defaults, ``local_epochs="auto"``,
``shrinking=True`` and ``finish=True`` among them: H is shown) with K =
``--blocks`` (2) blocks on a ``LocalCluster`` of ``cores`` workers × 1 thread, through
``benchmarks.distributed.dask_run`` (a small warm-up fit first, so that no timed round
compiles). Its time to ε is the cumulated wall time of its rounds until the *certified*
relative duality gap is ≤ ε; the gap bounds the suboptimality from above, so these are
upper bounds on our time to suboptimality ε. The whole ``dask_run`` call (graph, final
certificate) is recorded too.

Both sides get the rows in one seeded random order (``--keep-order``: the loader's). Skin's
file is sorted by class, and with K = 2 contiguous blocks one block then holds one class
only: in a run of 2026-11-27 CoCoA+ stalled there at a relative gap of 0.7 after 400
rounds (7.6e-4 after 100 rounds once shuffled), while Spark's ``repartition`` mixes the
rows anyway.

Spark and the cluster never run at the same time: every problem's data is made and its P*
certified first, then one Spark session runs every problem and is stopped, then one cluster.

Problems: ``skin`` (UCI skin segmentation, 245,057 × 3, as ``benchmarks/peers.py`` loads it:
``python -m sdca_pegasos.data fetch skin`` or ``DATA_MIRROR``) and the ``PROBLEMS`` of
``benchmarks/distributed.py`` (``dense-small``; ``dense-full`` and ``csr-full`` are the
issue's sizes, heavy on both sides), λ = 1/n unless ``--lmbd``; by default skin and
csr-full (the record's; csr-full's Spark sweeps and our rounds take most of its time, and
``--cap`` and ``--max-rounds`` bound them). ``--out FOLDER`` writes
``spark_svc.json``: machine, load, commit, versions, and every fit and round.

``make bench-spark`` installs PySpark (Java 17 needed) and runs this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages, and not `benchmarks/` itself on the
    # path: its distributed.py would shadow the `distributed` package
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import datetime
import json
import os
import tempfile
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from benchmarks import distributed as dist
from sdca_pegasos.data.errors import DataError
from sdca_pegasos.experiments.reports import (
    git_commit,
    measured,
    readme_arguments,
    readme_requested,
)
from sdca_pegasos.solvers import ExactSVMClassifier
from sdca_pegasos.solvers.core import objectives

ROOT = Path(__file__).resolve().parents[1]
TARGETS = (1e-2, 1e-4, 1e-6)
BIAS = 1.0  # the bias multiplier B of both sides
PROBLEM_NAMES = ["skin", *dist.PROBLEMS]
UNAME_FIELDS = ("sysname", "nodename", "release", "version", "machine")
#: the most a fit's 2 S − 1 may differ from P at its coefficients, relatively
MAPPING_TOLERANCE = 1e-6


# ----------------------------------------------------------------- the objective mapping
def spark_rows(X, y):
    """What Spark is given: the rows ``(x_i, 1)`` and one all-zero dummy row; labels 0/1 (the
    dummy's 0); weights 1 and ``n`` for the dummy (see the module docstring)."""
    n, d = X.shape
    if sp.issparse(X):
        ones = sp.csr_matrix(np.full((n, 1), BIAS))
        rows = sp.vstack(
            [sp.hstack([sp.csr_matrix(X), ones], format="csr"), sp.csr_matrix((1, d + 1))],
            format="csr",
        )
    else:
        rows = np.zeros((n + 1, d + 1))
        rows[:n, :d] = X
        rows[:n, d] = BIAS
    labels = np.append(np.asarray(y) > 0, False).astype(np.float64)
    weights = np.append(np.ones(n), float(n))
    return rows, labels, weights


def spark_reg_param(lmbd: float) -> float:
    """Spark's ``regParam`` for our λ: λ/2, the loss being averaged over 2n of weight."""
    return lmbd / 2.0


def objective_from_spark(value: float) -> float:
    """Our P from Spark's objective S = (P + 1)/2 at the same weights."""
    return 2.0 * value - 1.0


def spark_objective(rows, labels, weights, w, reg_param):
    """Spark's objective as its docs state it, in NumPy (the tests' reference):
    Σ c_i hinge(ỹ_i x_iᵀw) / Σ c_i + ½ regParam ‖w‖², ỹ = 2·label − 1."""
    margins = (2.0 * labels - 1.0) * np.asarray(rows @ w).ravel()
    loss = np.dot(weights, np.maximum(0.0, 1.0 - margins)) / weights.sum()
    return float(loss + 0.5 * reg_param * np.dot(w, w))


def rel_subopt(primal: float, p_star: float) -> float:
    return (primal - p_star) / abs(p_star)


# ------------------------------------------------------------------------ problems
def load(name: str):
    """X, y (±1 floats) of a problem of ``benchmarks.distributed.PROBLEMS``, ``skin`` in its
    file's order (:func:`shuffled` orders the rows)."""
    if name == "skin":
        return dist.skin_problem(seed=None)
    return dist.PROBLEMS[name]()


def shuffled(X, y, seed: int):
    """The rows in one seeded random order (P does not depend on it; the blocks do)."""
    order = np.random.default_rng(seed).permutation(X.shape[0])
    return X[order], y[order]


def optimum(X, y, lmbd: float, max_cpu: float) -> dict:
    """P*'s certified bounds from the exact engine."""
    clf = ExactSVMClassifier(lmbd=lmbd, bias_multiplier=BIAS, max_cpu=max_cpu)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # said: certified False
        clf.fit(X, y)
    return {
        "primal": float(clf.primal_),
        "dual": float(clf.dual_),
        "rel_gap": float(clf.rel_gap_),
        "certified": bool(clf.certified_),
        "method": str(clf.method_),
        "cpu_seconds": float(clf.cpu_seconds_),
    }


# --------------------------------------------------------------------------- Spark
def write_parquet(path, rows, labels, weights) -> None:
    """``label``, ``weight`` and ``features`` in Spark's vector layout (struct of type,
    size, indices, values: 0 sparse, 1 dense), so Spark reads exactly these float64 bits."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n, d = rows.shape

    def lists(offsets, values):
        large = offsets[-1] > np.iinfo(np.int32).max
        kind = pa.LargeListArray if large else pa.ListArray
        return kind.from_arrays(pa.array(offsets, pa.int64() if large else pa.int32()), values)

    if sp.issparse(rows):
        kind, size = 0, pa.array(np.full(n, d, np.int32))
        indices = lists(rows.indptr, pa.array(rows.indices, pa.int32()))
        values = lists(rows.indptr, pa.array(rows.data, pa.float64()))
    else:
        kind, size, indices = 1, pa.nulls(n, pa.int32()), pa.nulls(n, pa.list_(pa.int32()))
        values = lists(np.arange(0, n * d + 1, d), pa.array(np.ascontiguousarray(rows).ravel()))
    features = pa.StructArray.from_arrays(
        [pa.array(np.full(n, kind, np.int8)), size, indices, values],
        names=["type", "size", "indices", "values"],
    )
    pq.write_table(pa.table({"label": labels, "weight": weights, "features": features}), path)


def quiet_log4j(folder: str) -> str:
    """A log4j2 configuration in ``folder`` that prints errors only; the JVM option."""
    path = Path(folder) / "log4j2.properties"
    path.write_text(
        "rootLogger.level = error\n"
        "rootLogger.appenderRef.stderr.ref = console\n"
        "appender.console.type = Console\n"
        "appender.console.name = console\n"
        "appender.console.target = SYSTEM_ERR\n"
        "appender.console.layout.type = PatternLayout\n"
        "appender.console.layout.pattern = %p %c{1}: %m%n%ex\n"
    )
    return f"-Dlog4j2.configurationFile=file:{path}"


def start_spark(cores: int, memory: str, folder: str):
    """A quiet ``SparkSession`` on ``local[cores]``, no UI."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no loopback-hostname warning
    from pyspark.sql import SparkSession

    with warnings.catch_warnings():
        # PySpark 4.x checks its pandas support when it starts, and this venv's pandas 3 is
        # newer than it knows: no pandas path is used here
        warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
        spark = (
            SparkSession.builder.master(f"local[{cores}]")
            .appName("spark_svc")
            .config("spark.driver.memory", memory)
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.extraJavaOptions", quiet_log4j(folder))
            .config("spark.local.dir", folder)
            .getOrCreate()
        )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_frame(spark, path, partitions: int):
    """The Parquet rows as a cached DataFrame of ``partitions`` partitions, counted."""
    from pyspark.ml.linalg import VectorUDT
    from pyspark.sql.types import DoubleType, StructField, StructType

    schema = StructType(
        [
            StructField("label", DoubleType()),
            StructField("weight", DoubleType()),
            StructField("features", VectorUDT()),
        ]
    )
    frame = spark.read.schema(schema).parquet(str(path)).repartition(partitions).cache()
    frame.count()
    return frame


def spark_defaults() -> tuple[int, float]:
    """``LinearSVC``'s own default ``maxIter`` and ``tol`` (100 and 1e-6 in PySpark 4.x)."""
    from pyspark.ml.classification import LinearSVC

    svc = LinearSVC()
    return int(svc.getMaxIter()), float(svc.getTol())


def spark_fit(frame, lmbd: float, max_iter: int, tol: float = 0.0) -> dict:
    """One ``LinearSVC`` fit from scratch: wall seconds around ``.fit()``, the weights
    (length d + 1, the bias weight last) and Spark's objective history. ``tol`` 0: OWL-QN
    runs ``max_iter`` iterations unless it cannot improve."""
    from pyspark.ml.classification import LinearSVC

    svc = LinearSVC(
        regParam=spark_reg_param(lmbd),
        fitIntercept=False,
        standardization=False,
        weightCol="weight",
        maxIter=max_iter,
        tol=tol,
    )
    start = time.perf_counter()
    model = svc.fit(frame)
    wall = time.perf_counter() - start
    summary = model.summary
    summary = summary() if callable(summary) else summary  # a method in PySpark 4.x
    return {
        "max_iter": max_iter,
        "tol": tol,
        "wall": wall,
        "w": model.coefficients.toArray(),
        "history": list(summary.objectiveHistory),
        "iterations": int(summary.totalIterations),
    }


def evaluate_fit(fit: dict, X, y, lmbd: float, p_star: float) -> dict:
    """A fit's record: P at its weights (ours, float64), its relative suboptimality, and the
    mapping's check against Spark's own last objective value."""
    primal = objectives.primal(X, y, fit["w"], lmbd, bias=BIAS)
    spark_p = objective_from_spark(fit["history"][-1])
    mapping_error = abs(spark_p - primal) / abs(primal)
    if not mapping_error <= MAPPING_TOLERANCE:
        raise RuntimeError(
            f"Spark's objective 2S - 1 = {spark_p!r} but P(w) = {primal!r} at its weights "
            f"(relative {mapping_error:.2e}): the objective mapping does not hold"
        )
    return {
        "max_iter": fit["max_iter"],
        "tol": fit["tol"],
        "iterations": fit["iterations"],
        "wall": fit["wall"],
        "P": primal,
        "rel_subopt": rel_subopt(primal, p_star),
        "mapping_error": mapping_error,
    }


def spark_sweep(frame, X, y, lmbd, p_star, targets, cap: float, max_iter: int, log):
    """Fits with maxIter = 1, 2, 4, …: their records and why the sequence ended."""
    fits, total, k = [], 0.0, 1
    while True:
        record = evaluate_fit(spark_fit(frame, lmbd, k), X, y, lmbd, p_star)
        fits.append(record)
        total += record["wall"]
        log(
            f"    maxIter {k}: {record['wall']:.2f} s, rel. subopt {record['rel_subopt']:.2e}"
            f" ({record['iterations']} iterations)"
        )
        if record["rel_subopt"] <= min(targets):
            return fits, "reached"
        if record["iterations"] < k:
            return fits, "optimizer stopped"  # OWL-QN ended early: more maxIter changes nothing
        if 2 * k > max_iter:
            return fits, "max-iter"
        if total >= cap:
            return fits, "cap"
        k *= 2


def spark_tol_sweep(frame, X, y, lmbd, p_star, tols, cap: float, log) -> list[dict]:
    """Fits with Spark's default ``maxIter`` and ``tol`` = each of ``tols``, loosest first
    (its default tol, last, is Spark's defaults whole), until their wall passes ``cap``; a
    tol given twice is fitted once."""
    max_iter, _ = spark_defaults()
    fits, total = [], 0.0
    for tol in sorted(set(tols), reverse=True):
        if total >= cap:
            break
        record = evaluate_fit(spark_fit(frame, lmbd, max_iter, tol), X, y, lmbd, p_star)
        fits.append(record)
        total += record["wall"]
        log(
            f"    tol {tol:g}, maxIter {max_iter}: {record['wall']:.2f} s, rel. subopt "
            f"{record['rel_subopt']:.2e} ({record['iterations']} iterations)"
        )
    return fits


def fastest(fits, targets) -> dict:
    """For each ε: the fit of least wall whose relative suboptimality is <= ε (None if
    none): Spark's time to ε, over both sweeps."""
    out = {}
    for eps in targets:
        hits = [f for f in fits if f["rel_subopt"] <= eps]
        out[eps] = min(hits, key=lambda f: f["wall"]) if hits else None
    return out


def fit_label(fit: dict) -> str:
    """How a Spark fit was asked for: ``maxIter k`` (tol 0) or ``tol t`` (default maxIter)."""
    if fit.get("tol", 0.0) == 0.0:
        return f"maxIter {fit['max_iter']}"
    return f"tol {fit['tol']:g}"


def self_check(spark, folder, lmbd=0.01, max_iter=64) -> dict:
    """The mapping on a tiny problem (200 × 5): Spark's history against our P, and Spark's
    suboptimality after ``max_iter`` iterations. Warms the JVM up before any timing."""
    X, y = dist.dense_problem(200, 5, seed=1)
    p_star = optimum(X, y, lmbd, 10.0)["primal"]
    path = Path(folder) / "self_check.parquet"
    write_parquet(path, *spark_rows(X, y))
    frame = spark_frame(spark, path, 2)
    record = evaluate_fit(spark_fit(frame, lmbd, max_iter), X, y, lmbd, p_star)
    frame.unpersist()
    return record


# ----------------------------------------------------------------------------- ours
def warm_up_cluster(client, X, y, lmbd, blocks) -> None:
    """A short fit on every ~n/2000-th row: the workers compile before any timed round."""
    step = max(1, X.shape[0] // 2000)
    dist.dask_run(client, X[::step], y[::step], lmbd, blocks, TARGETS, 3)


def our_sweep(client, X, y, lmbd, blocks, targets, max_rounds) -> dict:
    start = time.perf_counter()
    result = dist.dask_run(client, X, y, lmbd, blocks, targets, max_rounds)
    fit_wall = time.perf_counter() - start
    cumulative = np.cumsum([t[2] for t in result["trace"]])  # the rounds' wall seconds
    return {
        "blocks": blocks,
        "local_epochs": result["local_epochs"],  # local passes per round ("auto" resolved)
        "check_every": result["check_every"],  # the most rounds between checks (resolved)
        "shrinking": True,  # the estimator's defaults, as dask_run's
        "finish": True,
        "wall": result["wall"],
        "rounds_to": result["rounds"],
        "certified": result["certified"],
        "final_rel_gap": result["rel_gap"],
        "bytes_per_round": result["bytes"],
        "fit_wall": fit_wall,
        "rounds": [
            {
                "round": t[0],
                "wall_cumulative": float(c),
                "rel_gap": t[3],
                "check_wall": t[7],
                "finish": bool(t[5]),
            }
            for t, c in zip(result["trace"], cumulative, strict=True)
        ],
    }


# -------------------------------------------------------------------------- report
def fmt_time(seconds: float, what: str) -> str:
    # 3 digits (2.00, 0.829, 524, not 524.), whole seconds from 1000 on (not 1.02e+03)
    shown = f"{seconds:.0f}" if seconds >= 1000 else f"{seconds:#.3g}".rstrip(".")
    return f"{shown} s ({what})"


def ours_title(ours: dict) -> str:
    """Our column's title: K, the local passes per round, whether they shrink and finish,
    and the most rounds between two checks (records before ``local_epochs="auto"`` made one
    a round, those before ``shrinking=True`` plain passes, and those before
    ``check_every="auto"`` checked every round, and do not say so)."""
    title = f"ours, K={ours['blocks']}, H={ours.get('local_epochs', 1)}"
    shown = [f for f in ("shrinking", "finish") if ours.get(f)]
    return ", ".join([title, *shown, f"check_every={ours.get('check_every', 1)}"])


def check_share(ours: dict) -> str:
    """What our rounds' certificates cost: their wall over the rounds' (the round's wall
    includes its check's), how many rounds were checked and, of those, how many were
    finishes (checked whatever the schedule, to judge them) with their checks' share ('' for
    records that did not time the checks)."""
    rounds = ours.get("rounds", [])
    if not rounds or "check_wall" not in rounds[0]:
        return ""
    total = rounds[-1]["wall_cumulative"]
    checked = [r for r in rounds if r["check_wall"] > 0.0]
    finishes = [r for r in checked if r["finish"]]
    line = (
        f"ours' checks: {len(checked)} of {len(rounds)} rounds, "
        f"{sum(r['check_wall'] for r in checked) / total:.0%} of the rounds' wall"
    )
    if finishes:
        line += (
            f"; {len(finishes)} of them after a finish, "
            f"{sum(r['check_wall'] for r in finishes) / total:.0%}"
        )
    return line


def table(name: str, rec: dict, targets) -> str:
    """The problem's lines: Spark's and our time to each ε and their ratio."""
    exact, spark, ours = rec["exact"], rec["spark"], rec["ours"]
    width = max(28, len(ours_title(ours)) + 2)  # our column
    lines = [
        f"\n{name}: n={rec['n']}, d={rec['d']} (+ bias), nnz={rec['nnz']}, "
        f"lambda={rec['lmbd']:.4g}, P*={exact['primal']:.10g} (exact engine: "
        f"{'certified' if exact['certified'] else 'NOT certified'}, rel gap "
        f"{exact['rel_gap']:.1e}, {exact['method']}, {exact['cpu_seconds']:.1f} s CPU)",
        f"  {'eps':<8}{'Spark LinearSVC':<28}{ours_title(ours):<{width}}ours/Spark",
    ]
    tol_fits = spark.get("tol_fits", [])  # records before the tolerance sweep have none
    best = min(f["rel_subopt"] for f in [*spark["fits"], *tol_fits])
    for eps in targets:
        fit = spark["reach"][eps]
        if fit is not None:
            left = fmt_time(fit["wall"], fit_label(fit))
        elif spark["ended"] == "optimizer stopped":
            left = f"stalls at {best:.1e}"
        else:
            left = f"{spark['ended']}: best {best:.1e}"
        wall, rounds = ours["wall"][eps], ours["rounds_to"][eps]
        if wall is not None:
            right = fmt_time(wall, f"{rounds} rounds")
        else:
            right = f"gap {ours['final_rel_gap']:.1e} at the end"
        ratio = "—" if fit is None or wall is None else f"{wall / fit['wall']:.2f}"
        lines.append(f"  {eps:<8.0e}{left:<28}{right:<{width}}{ratio}")
    fits = [*spark["fits"], *tol_fits]
    lines.append(
        f"  Spark: {len(fits)} fits, {sum(f['wall'] for f in fits):.1f} s (maxIter sweep "
        f"ended: {spark['ended']}"
        + (f"; tolerance sweep: {len(tol_fits)} fits" if tol_fits else "")
        + f"); ours: dask_run {ours['fit_wall']:.2f} s in all, "
        f"final certified gap {ours['final_rel_gap']:.1e}"
    )
    share = check_share(ours)
    if share:
        lines.append(f"  {share}")
    sweep = spark["fits"]
    if spark["ended"] in ("cap", "max-iter") and len(sweep) >= 2:  # stopped by us, not OWL-QN
        a, b = sweep[-2], sweep[-1]
        lines.append(
            f"  Spark's last doubling of maxIter, {a['max_iter']} to {b['max_iter']}: rel. "
            f"subopt {a['rel_subopt']:.3g} to {b['rel_subopt']:.3g}"
        )
    default = defaults_fit(spark)
    if default is not None:
        lines.append(
            f"  Spark's defaults (maxIter {default['max_iter']}, tol {default['tol']:g}): "
            f"{default['wall']:.3g} s, {default['iterations']} iterations, rel. subopt "
            f"{default['rel_subopt']:.1e}"
        )
    return "\n".join(lines)


def defaults_fit(spark: dict) -> dict | None:
    """The tolerance sweep's fit with Spark's default maxIter and tol (None if not run)."""
    default = spark.get("defaults")
    if default is None:
        return None
    return next(
        (
            f
            for f in spark.get("tol_fits", [])
            if f["tol"] == default["tol"] and f["max_iter"] == default["max_iter"]
        ),
        None,
    )


#: The ε of the wall-ratio target, its bound, and the ε ours should reach where Spark stalls.
RATIO_EPS, RATIO_TARGET, STALL_EPS = 1e-4, 0.5, 1e-6


def target_lines(name: str, rec: dict) -> list[str]:
    """The targets of "More workers, less time" this problem's run measures: ours over
    Spark's wall to 1e-4 (≤ ½), and 1e-6 reached by ours where Spark's OWL-QN stalls."""
    spark, ours = rec["spark"], rec["ours"]
    fit, wall = spark["reach"].get(RATIO_EPS), ours["wall"].get(RATIO_EPS)
    head = f"{name}: wall to {RATIO_EPS:g}, ours (K = {ours['blocks']}) / Spark:"
    if fit is not None and wall is not None:
        ratio = wall / fit["wall"]
        verdict = "met" if ratio <= RATIO_TARGET else "missed"
        first = f"{head} {ratio:.2f} / ≤ {RATIO_TARGET:g}: {verdict}"
    elif wall is not None:  # Spark's time to ε is then only above its longest fit's
        longest = max(f["wall"] for f in [*spark["fits"], *spark.get("tol_fits", [])])
        verdict = "met" if wall <= RATIO_TARGET * longest else "not shown"
        first = (
            f"{head} Spark did not reach it ({spark['ended']}; its longest fit {longest:.3g} s), "
            f"ours in {wall:.3g} s, {wall / longest:.2f} of that fit: {verdict}"
        )
    elif fit is not None:
        first = (
            f"{head} ours did not reach it within {len(ours['rounds'])} rounds (gap "
            f"{ours['final_rel_gap']:.1e}), Spark in {fit['wall']:.3g} s: missed"
        )
    else:
        first = f"{head} neither reached it: not measured"
    fit, wall = spark["reach"].get(STALL_EPS), ours["wall"].get(STALL_EPS)
    head = f"{name}: {STALL_EPS:g}"
    if wall is None:
        ours_says = (
            f"ours not within {len(ours['rounds'])} rounds (gap {ours['final_rel_gap']:.1e})"
        )
    else:
        ours_says = f"ours certified in {wall:.3g} s"
    if fit is not None:
        second = (
            f"{head}: Spark reached it too ({fit['wall']:.3g} s), {ours_says}: no stall to beat"
        )
    elif spark["ended"] == "optimizer stopped":
        verdict = "met" if wall is not None else "missed"
        second = f"{head}: Spark's OWL-QN stalls above it, {ours_says}: {verdict}"
    else:
        second = (
            f"{head}: Spark did not reach it before its sweep ended ({spark['ended']}), "
            f"{ours_says}: Spark's stall not shown"
        )
    return [first, second]


#: The README's generated block, and the record it is generated from.
MARKERS = (
    "<!-- bench-spark:begin (benchmarks/spark_svc.py --readme) -->",
    "<!-- bench-spark:end -->",
)
README_RECORD = "benchmarks/records/spark_svc.json"


def readme_block(record: dict) -> str:
    """The README's block: a head line and :func:`table` of each problem, from the record."""
    targets = [float(t) for t in record["targets"]]

    def by_eps(values: dict) -> dict:
        return {float(k): v for k, v in values.items()}

    tables, lines = [], []
    for name, rec in record["problems"].items():
        spark = {**rec["spark"], "reach": by_eps(rec["spark"]["reach"])}
        ours = {
            **rec["ours"],
            "wall": by_eps(rec["ours"]["wall"]),
            "rounds_to": by_eps(rec["ours"]["rounds_to"]),
        }
        rec = {**rec, "spark": spark, "ours": ours}
        tables.append(table(name, rec, targets).strip("\n"))
        lines.extend(target_lines(name, rec))
    load, command = record["loadavg_start"][0], record["command"]
    head = (
        measured(record["date"], record["git_commit"], load, record["cores"], command)
        + f", PySpark {record['pyspark']}: wall seconds to relative "
        "suboptimality ε, Spark's (P(w) − P*)/P* against the exact engine's P*, ours the "
        "certified gap (an upper bound of it):"
    )
    return (
        head
        + "\n\n```text\n"
        + "\n\n".join(tables)
        + '\n```\n\nMeasured / target ("More workers, less time"):\n\n'
        + "\n".join(f"- {line}" for line in lines)
    )


def machine() -> dict:
    return {
        "uname": {key: getattr(os.uname(), key) for key in UNAME_FIELDS},
        "cpu_count": os.cpu_count(),
    }


def json_safe(value):
    """Dict keys to str and NumPy scalars to Python, for ``json.dumps``."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


# ---------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--problem",
        choices=PROBLEM_NAMES,
        action="append",
        help="repeat for more (default: skin and csr-full, the record's)",
    )
    parser.add_argument("--lmbd", type=float, help="default: 1/n")
    parser.add_argument("--blocks", type=int, default=2, help="our K (default 2)")
    parser.add_argument("--cores", type=int, default=2, help="Spark's and the cluster's")
    parser.add_argument("--eps", type=float, nargs="+", default=list(TARGETS))
    parser.add_argument("--cap", type=float, default=600.0, help="Spark fits' total wall, s")
    parser.add_argument("--max-iter", type=int, default=4096, help="Spark's largest maxIter")
    parser.add_argument(
        "--spark-tols",
        type=float,
        nargs="*",
        default=[1e-2, 1e-4],
        help="the tolerance sweep's tol (at Spark's default maxIter), beside its default tol; "
        "its fits have their own --cap",
    )
    parser.add_argument("--max-rounds", type=int, default=400, help="our largest round count")
    parser.add_argument("--exact-cpu", type=float, default=600.0, help="P*'s CPU budget, s")
    parser.add_argument("--spark-memory", default="8g", help="spark.driver.memory")
    parser.add_argument(
        "--keep-order",
        action="store_true",
        help="the rows in the loader's order, not shuffled (skin's are sorted by class)",
    )
    parser.add_argument("--seed", type=int, default=0, help="of the rows' shuffle")
    parser.add_argument("--scratch", help="folder for Spark's Parquet files (default: temp)")
    parser.add_argument("--out", type=Path, help="folder for spark_svc.json")
    readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if readme_requested(args, MARKERS, readme_block):
        return {}
    import pyspark

    def log(msg: str) -> None:
        print(msg, flush=True)

    targets = sorted(args.eps, reverse=True)
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    load_start = os.getloadavg()
    names = args.problem or ["skin", "csr-full"]
    with tempfile.TemporaryDirectory(dir=args.scratch, prefix="spark_svc-") as folder:
        data, records = {}, {}
        for name in names:  # the data, P* and Spark's Parquet rows, before either side runs
            try:
                X, y = load(name)
            except DataError as exc:  # it names the command that fetches the data
                log(f"{name}: skipped: {exc}")
                continue
            if not args.keep_order:
                X, y = shuffled(X, y, args.seed)
            n, d = X.shape
            lmbd = args.lmbd or 1.0 / n
            t = time.perf_counter()
            exact = optimum(X, y, lmbd, args.exact_cpu)
            log(
                f"{name}: {n} x {d}, lambda {lmbd:.4g}: P* {exact['primal']:.10g} "
                f"(rel gap {exact['rel_gap']:.1e}, {time.perf_counter() - t:.1f} s)"
            )
            write_parquet(Path(folder) / f"{name}.parquet", *spark_rows(X, y))
            data[name] = X, y
            nnz = X.nnz if sp.issparse(X) else int(np.count_nonzero(X))
            records[name] = {"n": n, "d": d, "nnz": nnz, "lmbd": lmbd, "exact": exact}

        names = list(records)
        if not names:
            raise SystemExit("no problem to run")
        t = time.perf_counter()
        spark = start_spark(args.cores, args.spark_memory, folder)
        try:
            check = self_check(spark, folder)
            default_iter, default_tol = spark_defaults()
            log(
                f"Spark {pyspark.__version__} on local[{args.cores}] "
                f"({time.perf_counter() - t:.1f} s to start and self-check): 2S - 1 = P to "
                f"{check['mapping_error']:.1e}; tiny problem at {check['rel_subopt']:.1e} "
                f"after {check['iterations']} iterations"
            )
            for name in names:
                X, y = data[name]
                rec = records[name]
                log(f"  {name}: Spark LinearSVC")
                frame = spark_frame(spark, Path(folder) / f"{name}.parquet", args.cores)
                fits, ended = spark_sweep(
                    frame, X, y, rec["lmbd"], rec["exact"]["primal"], targets, args.cap,
                    args.max_iter, log,
                )  # fmt: skip
                tol_fits = spark_tol_sweep(
                    frame, X, y, rec["lmbd"], rec["exact"]["primal"],
                    [*args.spark_tols, default_tol], args.cap, log,
                )  # fmt: skip
                frame.unpersist()
                rec["spark"] = {
                    "fits": fits,
                    "ended": ended,
                    "tol_fits": tol_fits,
                    "defaults": {"max_iter": default_iter, "tol": default_tol},
                    "reach": fastest([*fits, *tol_fits], targets),
                }
        finally:
            spark.stop()

    with dist.local_client(args.cores) as client:
        for name in names:
            X, y = data[name]
            rec = records[name]
            log(f"  {name}: DaskSVMClassifier, K={args.blocks}")
            warm_up_cluster(client, X, y, rec["lmbd"], args.blocks)
            rec["ours"] = our_sweep(
                client, X, y, rec["lmbd"], args.blocks, targets, args.max_rounds
            )

    for name in names:
        log(table(name, records[name], targets))
    meta = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "date": started,
        "machine": machine(),
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg(),
        "git_commit": git_commit(),
        "pyspark": pyspark.__version__,
        "cores": args.cores,
        "blocks": args.blocks,
        "targets": targets,
        "rows": "loader's order" if args.keep_order else f"shuffled, seed {args.seed}",
        "self_check": check,
        "problems": records,
    }
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "spark_svc.json"
        path.write_text(json.dumps(json_safe(meta), indent=1) + "\n")
        log(f"wrote {path}")
    return meta


if __name__ == "__main__":
    main()
