"""``benchmarks/spark_svc.py``: Spark MLlib's ``LinearSVC`` given rows on which its objective
is an affine map of ours, and the bookkeeping of the time-to-ε comparison.

The helpers are tested without PySpark; the tests marked ``slow`` start a local Spark
session (about 10 s, Java 17) and check, on a 200 × 5 problem, that Spark's own objective
history is our P at its coefficients and that its iterates approach the exact engine's P*.
"""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

from benchmarks import distributed as dist
from benchmarks import spark_svc
from sdca_pegasos.solvers import ExactSVMClassifier
from sdca_pegasos.solvers.core import objectives

from .conftest import gaussian_problem
from .generated import regenerated

LMBD = 0.01


def tiny(sparse: bool = False):
    X, y = gaussian_problem(n=200, d=5, seed=4)
    X[:, 1] += 0.7  # an off-centre column: the intercept matters
    return (sp.csr_matrix(X) if sparse else X), y


# ---------------------------------------------------------------- without PySpark
def spark_fit_record(wall, subopt, max_iter=8, tol=0.0, iterations=None):
    return {
        "max_iter": max_iter,
        "tol": tol,
        "iterations": max_iter if iterations is None else iterations,
        "wall": wall,
        "rel_subopt": subopt,
    }


def test_fastest_is_the_least_wall_within_each_eps_over_both_sweeps():
    sweep = [spark_fit_record(w, s, k) for w, s, k in [(1.0, 0.5, 1), (2.0, 5e-3, 2),
                                                      (4.0, 2e-2, 4), (8.0, 5e-5, 8)]]  # fmt: skip
    tols = [spark_fit_record(3.0, 1e-4, 100, 1e-4), spark_fit_record(9.0, 1e-7, 100, 1e-6)]
    out = spark_svc.fastest([*sweep, *tols], [1e-2, 1e-4, 1e-6, 1e-8])
    assert out[1e-2] is sweep[1]
    assert out[1e-4] is tols[0]  # a tolerance fit, faster than maxIter 8
    assert out[1e-6] is tols[1] and out[1e-8] is None
    assert spark_svc.fastest([], [1e-2]) == {1e-2: None}
    assert spark_svc.fit_label(sweep[3]) == "maxIter 8"
    assert spark_svc.fit_label(tols[0]) == "tol 0.0001"


def test_fmt_time_three_digits_and_whole_seconds_beyond():
    got = [spark_svc.fmt_time(s, "x") for s in (2.0, 0.8291, 524.3, 1022.4)]
    assert got == ["2.00 s (x)", "0.829 s (x)", "524 s (x)", "1022 s (x)"]


def targets_record(spark_walls, ours_walls, ended="cap", rounds=50, gap=1e-7):
    """A problem's record for :func:`spark_svc.target_lines`: Spark's reach and our walls
    by ε (None: not reached)."""
    reach = {
        eps: None if w is None else spark_fit_record(w, eps / 2) for eps, w in spark_walls.items()
    }
    ours = {
        "blocks": 2,
        "wall": ours_walls,
        "rounds": [{}] * rounds,
        "final_rel_gap": gap,
    }
    fits = [spark_fit_record(w, 1.0) for w in (1.0, 12.0)]  # Spark's longest fit: 12 s
    return {"spark": {"reach": reach, "ended": ended, "fits": fits}, "ours": ours}


def test_target_lines_say_the_ratio_and_its_verdict():
    met = spark_svc.target_lines("p", targets_record({1e-4: 10.0, 1e-6: None}, {1e-4: 4.0,
                                 1e-6: 9.0}, ended="optimizer stopped"))  # fmt: skip
    assert met[0] == "p: wall to 0.0001, ours (K = 2) / Spark: 0.40 / ≤ 0.5: met"
    assert met[1] == "p: 1e-06: Spark's OWL-QN stalls above it, ours certified in 9 s: met"
    missed = spark_svc.target_lines(
        "p", targets_record({1e-4: 10.0, 1e-6: None}, {1e-4: 5.01, 1e-6: None},
                            ended="optimizer stopped", rounds=300, gap=2e-5)
    )  # fmt: skip
    assert missed[0].endswith("0.50 / ≤ 0.5: missed")  # 0.501 rounds to 0.50, still missed
    assert missed[1] == (
        "p: 1e-06: Spark's OWL-QN stalls above it, ours not within 300 rounds (gap 2.0e-05): "
        "missed"
    )


def test_target_lines_when_one_side_does_not_reach():
    only_ours = spark_svc.target_lines(
        "p", targets_record({1e-4: None, 1e-6: None}, {1e-4: 4.0, 1e-6: None})
    )
    assert only_ours[0].endswith(
        "Spark did not reach it (cap; its longest fit 12 s), ours in 4 s, 0.33 of that fit: met"
    )
    # Spark's time is only known to exceed its longest fit: under twice ours shows nothing
    slower = spark_svc.target_lines(
        "p", targets_record({1e-4: None, 1e-6: None}, {1e-4: 6.5, 1e-6: None})
    )
    assert slower[0].endswith("ours in 6.5 s, 0.54 of that fit: not shown")
    assert only_ours[1].endswith("(cap), ours not within 50 rounds (gap 1.0e-07): Spark's "
                                 "stall not shown")  # fmt: skip
    only_spark = spark_svc.target_lines(
        "p", targets_record({1e-4: 3.0, 1e-6: 7.0}, {1e-4: None, 1e-6: None}, gap=3e-4)
    )
    assert only_spark[0].endswith("within 50 rounds (gap 3.0e-04), Spark in 3 s: missed")
    assert only_spark[1].startswith("p: 1e-06: Spark reached it too (7 s)")
    neither = spark_svc.target_lines(
        "p", targets_record({1e-4: None, 1e-6: None}, {1e-4: None, 1e-6: None})
    )
    assert neither[0].endswith("neither reached it: not measured")


@pytest.mark.parametrize("sparse", [False, True])
def test_spark_objective_on_its_rows_is_an_affine_map_of_ours(sparse):
    """S = (P + 1)/2 at every w, for Spark's objective as documented (weighted mean hinge +
    ½ regParam ‖w‖², labels 0/1) on the rows with the bias column and the dummy row."""
    X, y = tiny(sparse)
    rows, labels, weights = spark_svc.spark_rows(X, y)
    reg = spark_svc.spark_reg_param(LMBD)
    rng = np.random.default_rng(0)
    for w in [np.zeros(6), *rng.standard_normal((5, 6))]:
        s = spark_svc.spark_objective(rows, labels, weights, w, reg)
        ours = objectives.primal(X, y, w, LMBD, bias=1.0)
        assert spark_svc.objective_from_spark(s) == pytest.approx(ours, rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("sparse", [False, True])
def test_spark_rows_bias_column_and_dummy_row(sparse):
    X, y = tiny(sparse)
    n = X.shape[0]
    rows, labels, weights = spark_svc.spark_rows(X, y)
    dense = rows.toarray() if sparse else rows
    assert rows.shape == (n + 1, 6) and sp.issparse(rows) == sparse
    np.testing.assert_array_equal(dense[:n, :5], X.toarray() if sparse else X)
    np.testing.assert_array_equal(dense[:n, 5], 1.0)
    np.testing.assert_array_equal(dense[n], 0.0)  # margin 0 whatever w: hinge 1
    np.testing.assert_array_equal(labels[:n], (y > 0).astype(float))
    assert labels[n] == 0.0 and weights[n] == n and np.all(weights[:n] == 1.0)
    # the bias column varies (Spark zeroes a zero-variance feature's coefficient): ½
    mean = np.average(dense[:, 5], weights=weights)
    std = np.sqrt(np.average((dense[:, 5] - mean) ** 2, weights=weights))
    assert std == pytest.approx(0.5)


@pytest.mark.parametrize("sparse", [False, True])
def test_parquet_rows_are_spark_vectors_with_the_same_bits(sparse, tmp_path):
    X, y = tiny(sparse)
    rows, labels, weights = spark_svc.spark_rows(X, y)
    spark_svc.write_parquet(tmp_path / "rows.parquet", rows, labels, weights)
    table = pq.read_table(tmp_path / "rows.parquet").to_pylist()
    assert [r["label"] for r in table] == list(labels)
    assert [r["weight"] for r in table] == list(weights)
    back = np.zeros(rows.shape)
    for i, r in enumerate(table):
        f = r["features"]
        if sparse:
            assert f["type"] == 0 and f["size"] == rows.shape[1]
            back[i, f["indices"]] = f["values"]
        else:
            assert f["type"] == 1 and f["size"] is None and f["indices"] is None
            back[i] = f["values"]
    np.testing.assert_array_equal(back, rows.toarray() if sparse else rows)


def test_recorded_rounds_are_dask_runs_rounds():
    pytest.importorskip("distributed")
    X, y = tiny()
    with dist.local_client(2) as client:  # the benchmark's own cluster: 2 worker processes
        ours = spark_svc.our_sweep(client, X, y, 0.1, 2, [1e-2, 1e-4], 100)
    rounds = ours["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    walls = [r["wall_cumulative"] for r in rounds]
    assert walls == sorted(walls) and ours["certified"]
    for eps in (1e-2, 1e-4):  # dask_run's first rounds and walls, from the recorded rows
        first = next(r for r in rounds if r["rel_gap"] is not None and r["rel_gap"] <= eps)
        assert ours["rounds_to"][eps] == first["round"]
        assert ours["wall"][eps] == pytest.approx(first["wall_cumulative"], rel=1e-12)
    # the defaults' spacing of the checks, and a check's wall exactly where a gap is read
    assert ours["check_every"] == 8
    for r in rounds:
        assert (r["check_wall"] > 0.0) == (r["rel_gap"] is not None)
        assert isinstance(r["finish"], bool)


def test_check_share_is_the_checks_wall_over_the_rounds():
    """The certificates' share: their wall summed over the last cumulative wall (which
    includes them), with the rounds checked counted; nothing for records without it; the
    title names the spacing (1 for records before check_every="auto")."""
    rounds = [
        {"round": 1, "wall_cumulative": 2.0, "rel_gap": 0.1, "check_wall": 1.0},
        {"round": 2, "wall_cumulative": 3.0, "rel_gap": None, "check_wall": 0.0},
        {"round": 3, "wall_cumulative": 8.0, "rel_gap": 0.01, "check_wall": 1.0},
    ]
    for r in rounds:
        r["finish"] = False
    ours = {"blocks": 2, "local_epochs": 3, "shrinking": True, "rounds": rounds}
    assert spark_svc.check_share(ours) == "ours' checks: 2 of 3 rounds, 25% of the rounds' wall"
    rounds[2]["finish"] = True  # a finish's check, counted apart: 1.0 s of 8
    assert spark_svc.check_share(ours).endswith("wall; 1 of them after a finish, 12%")
    old = [{k: v for k, v in r.items() if k != "check_wall"} for r in rounds]
    assert spark_svc.check_share({**ours, "rounds": old}) == ""
    assert spark_svc.ours_title(ours) == "ours, K=2, H=3, shrinking, check_every=1"
    assert spark_svc.ours_title({**ours, "check_every": 8}).endswith("shrinking, check_every=8")


# -------------------------------------------------------------------- with PySpark
@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    pytest.importorskip("pyspark")
    folder = tmp_path_factory.mktemp("spark")
    session = spark_svc.start_spark(2, "1g", str(folder))
    yield session, folder
    session.stop()


@pytest.fixture(scope="module")
def p_star():
    X, y = tiny()
    clf = ExactSVMClassifier(lmbd=LMBD, bias_multiplier=1.0).fit(X, y)
    assert clf.certified_
    return float(clf.primal_)


def frame_of(spark, X, y, name):
    session, folder = spark
    path = folder / f"{name}.parquet"
    spark_svc.write_parquet(path, *spark_svc.spark_rows(X, y))
    return spark_svc.spark_frame(session, path, 2)


@pytest.mark.slow
@pytest.mark.parametrize("sparse", [False, True])
def test_spark_objective_history_is_our_primal_at_its_coefficients(spark, p_star, sparse):
    X, y = tiny(sparse)
    frame = frame_of(spark, X, y, f"tiny-{sparse}")
    for max_iter in (1, 4):
        fit = spark_svc.spark_fit(frame, LMBD, max_iter)
        assert fit["iterations"] == max_iter and fit["w"].shape == (6,)
        record = spark_svc.evaluate_fit(fit, X, y, LMBD, p_star)  # raises beyond 1e-6
        assert record["mapping_error"] <= 1e-12
        assert record["rel_subopt"] > 0
    # the first value of the history is S(0) = 1: P(0) = 1, the mean hinge at w = 0
    assert spark_svc.objective_from_spark(fit["history"][0]) == pytest.approx(1.0, rel=1e-15)
    frame.unpersist()


@pytest.mark.slow
def test_enough_spark_iterations_reach_1e3_of_the_exact_optimum(spark, p_star):
    X, y = tiny()
    frame = frame_of(spark, X, y, "tiny-reach")
    fits, ended = spark_svc.spark_sweep(frame, X, y, LMBD, p_star, [1e-3], 60.0, 64, print)
    tol_fits = spark_svc.spark_tol_sweep(
        frame, X, y, LMBD, p_star, [1e-6, 1e-2, 1e-6], 60.0, print
    )  # the default tol given twice (--spark-tols 1e-6 beside it): fitted once
    frame.unpersist()
    # the tolerance sweep: loosest first, at Spark's own default maxIter, each fit stopping
    # no later than its maxIter; a tighter tol never ends further from P*
    assert spark_svc.spark_defaults() == (100, 1e-6)
    assert [(f["tol"], f["max_iter"]) for f in tol_fits] == [(1e-2, 100), (1e-6, 100)]
    assert all(f["iterations"] <= 100 for f in tol_fits)
    assert tol_fits[1]["rel_subopt"] <= tol_fits[0]["rel_subopt"]
    assert ended == "reached", [(f["max_iter"], f["rel_subopt"]) for f in fits]
    assert -1e-12 <= fits[-1]["rel_subopt"] <= 1e-3  # P* is the minimum: never below it
    assert [f["max_iter"] for f in fits] == [2**k for k in range(len(fits))]


@pytest.mark.slow
def test_a_bare_column_of_ones_would_lose_the_bias(spark):
    """Why the dummy row: Spark standardises, and a zero-variance column gets weight 0."""
    from pyspark.ml.classification import LinearSVC

    X, y = tiny()
    rows = np.hstack([X, np.ones((X.shape[0], 1))])
    session, folder = spark
    path = folder / "bare.parquet"
    spark_svc.write_parquet(path, rows, (y > 0).astype(float), np.ones(X.shape[0]))
    frame = spark_svc.spark_frame(session, path, 2)
    model = LinearSVC(
        regParam=LMBD, fitIntercept=False, standardization=False, maxIter=20, tol=0.0
    ).fit(frame)
    frame.unpersist()
    w = model.coefficients.toArray()
    assert w[-1] == 0.0 and np.all(w[:-1] != 0.0)


def test_docs_block_is_generated_from_the_committed_record(tmp_path):
    """docs/distributed.md's Spark block is the committed record's, regenerated here; the
    table's ratio is ours over Spark's time, from the record's numbers."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    regenerated(spark_svc.main, "docs/distributed.md", [spark_svc.README_RECORD], tmp_path)
    record = json.loads((root / spark_svc.README_RECORD).read_text())
    skin = record["problems"]["skin"]
    ratio = skin["ours"]["wall"]["0.0001"] / skin["spark"]["reach"]["0.0001"]["wall"]
    assert f"{ratio:.2f}" in spark_svc.readme_block(record)


def test_table_says_spark_defaults_fit_and_its_last_doubling():
    sweep = [spark_fit_record(w, s, k) for w, s, k in [(5.0, 3e-3, 128), (9.0, 2.9e-3, 256)]]
    tol_fits = [
        spark_fit_record(2.0, 4e-3, 100, 1e-2, iterations=20),
        spark_fit_record(6.0, 3.5e-3, 100, 1e-6),
    ]
    spark = {
        "fits": sweep,
        "ended": "cap",
        "tol_fits": tol_fits,
        "defaults": {"max_iter": 100, "tol": 1e-6},
        "reach": spark_svc.fastest([*sweep, *tol_fits], [1e-2, 1e-4]),
    }
    ours = {
        "blocks": 2,
        "local_epochs": 1,
        "wall": {1e-2: 1.0, 1e-4: None},
        "rounds_to": {1e-2: 3, 1e-4: None},
        "final_rel_gap": 2e-4,
        "fit_wall": 30.0,
    }
    exact = {"primal": 0.5, "certified": True, "rel_gap": 1e-12, "method": "ipm",
             "cpu_seconds": 1.0}  # fmt: skip
    rec = {"n": 10, "d": 2, "nnz": 20, "lmbd": 0.1, "spark": spark, "ours": ours, "exact": exact}
    text = spark_svc.table("p", rec, [1e-2, 1e-4])
    assert "2.00 s (tol 0.01)" in text  # the fastest fit within 1e-2: the tolerance sweep's
    assert "cap: best 2.9e-03" in text
    assert "Spark's last doubling of maxIter, 128 to 256: rel. subopt 0.003 to 0.0029" in text
    assert "Spark's defaults (maxIter 100, tol 1e-06): 6 s, 100 iterations, rel. subopt " in text
    # OWL-QN stopping by itself says so, and no doubling line
    stopped = spark_svc.table("p", {**rec, "spark": {**spark, "ended": "optimizer stopped"}},
                              [1e-2, 1e-4])  # fmt: skip
    assert "stalls at 2.9e-03" in stopped and "last doubling" not in stopped
