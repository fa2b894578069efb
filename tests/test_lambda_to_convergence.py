"""The λ sweeps' configurations run to convergence (issue 23, item 6).

Stop rules (:class:`sdca_pegasos.experiments.spec.Config`'s ``rel_gap``, ``cpu_budget``,
``max_epochs``) and their callback (:mod:`sdca_pegasos.experiments.stopping`); the exact solver as
a run; per-config seed counts; run keys of the pre-existing configurations unchanged; the time-to-ε
panels' choice of the fastest configuration (:func:`sdca_pegasos.figures.beyond_lambda.fastest`);
and the epochs a run to convergence records (``rows_per_doubling``, issue 32 item 3): its rows are
the full run's, its stop and its time to ε read on them at most e/R epochs late."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from sdca_pegasos import solvers
from sdca_pegasos.experiments import (
    CATALOGUE,
    Config,
    Experiment,
    datasets,
    reports,
    run_experiment,
    stopping,
)
from sdca_pegasos.experiments import spec as spec_module
from sdca_pegasos.experiments.catalogue import ROWS_PER_DOUBLING, STOP_REL_GAP
from sdca_pegasos.experiments.metrics import METRIC_COLUMNS, Recorder
from sdca_pegasos.experiments.runner import TIMING_COLUMNS, RunTask, make_estimator, run_one
from sdca_pegasos.figures.beyond_lambda import (
    TARGETS,
    fastest,
    runs_per_algorithm,
    time_to_targets,
    with_fastest,
)

RUN_KEYS = Path(__file__).parent / "golden" / "run_keys.json"


def sweep(*configs: Config, epochs: int = 3, seeds: int = 3, name: str = "conv") -> Experiment:
    """A λ sweep at a tiny size: study 001's simulated draw (670 × 10), λ = 1/n."""
    return Experiment(
        name=name,
        study="test",
        dataset="simulated",
        lmbd="1/n",
        epochs=epochs,
        configs=configs,
        seeds=seeds,
    )


SHRINKING = Config(
    "SDCA shrinking",
    "sdca",
    {"shrinking": True},
    rel_gap=1e-7,
    cpu_budget=30.0,
    max_epochs=100_000,
)
EXACT = Config("Exact", "exact", {}, rel_gap=1e-7, cpu_budget=30.0, seeds=2)


@pytest.fixture
def reports_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "reports"))
    return tmp_path / "reports"


def rel_gap(rows: pd.DataFrame) -> np.ndarray:
    return (rows["gap"] / rows["primal"]).to_numpy()


# ------------------------------------------------------------------ stop rules in a run
def test_sdca_with_shrinking_stops_at_the_first_epoch_with_its_relative_gap():
    rows = run_one(RunTask(sweep(SHRINKING), SHRINKING, 0)).rows
    rel = rel_gap(rows)
    assert rel[-1] <= 1e-7, "the run must end because it reached its relative gap"
    assert (rel[:-1] > 1e-7).all(), "and not one epoch later"
    assert 1 < rows["epoch"].iloc[-1] < 100_000
    assert rows["cpu_time_cum"].iloc[-1] < SHRINKING.cpu_budget


def test_the_cpu_budget_is_honoured_within_one_epoch():
    """At λ = 1e-6 SDCA is nowhere near 1e-7 after 3 ms: the budget ends the run, at the
    first epoch whose cumulative CPU reaches it, on the estimator's own clock."""
    budget = 3e-3
    ds = datasets.load("simulated", {})
    est = solvers.SDCAClassifier(1e-6, shrinking=False, max_epochs=100_000, tol=0, random_state=0)
    recorder = Recorder(ds, 1e-6, est.loss_function, 0.0, True)
    recorder.initial(ds.X_train.shape[1])
    rule = stopping.StopRule(recorder, rel_gap=1e-7, cpu_budget=budget)
    est.set_params(callback=rule).fit(ds.X_train, ds.y_train)

    assert rule.reason == "cpu_budget"
    spent = float(est.setup_time_ + est.epoch_times_.sum())  # what the estimator timed
    assert_allclose(recorder.rows[-1]["cpu_time_cum"], spent, rtol=1e-12)
    assert spent >= budget
    assert spent <= budget + est.epoch_times_[-1]  # at most one epoch over
    assert spent - est.epoch_times_[-1] < budget  # and no epoch later than needed
    assert est.n_epochs_ == len(recorder.rows) - 1 < 100_000
    assert recorder.rows[-1]["gap"] > 1e-7 * recorder.rows[-1]["primal"]


def test_a_budget_run_through_the_engine_stops_at_the_budget():
    cfg = Config("SDCA budget", "sdca", {"lmbd": 1e-6}, cpu_budget=3e-3, max_epochs=100_000)
    rows = run_one(RunTask(sweep(cfg), cfg, 0)).rows
    cum, cpu = rows["cpu_time_cum"].to_numpy(), rows["cpu_time"].to_numpy()
    assert cum[-1] >= 3e-3 > cum[-2]
    assert cum[-1] <= 3e-3 + cpu[-1]


def test_max_epochs_caps_a_run_whose_rule_is_not_met():
    cfg = Config("SDCA capped", "sdca", {"lmbd": 1e-6}, rel_gap=1e-12, max_epochs=4)
    rows = run_one(RunTask(sweep(cfg, epochs=2), cfg, 0)).rows
    assert rows["epoch"].tolist() == [0, 1, 2, 3, 4]


def test_the_exact_solver_is_one_certified_solve_recorded_as_epoch_one():
    exp = sweep(EXACT)
    rows = run_one(RunTask(exp, EXACT, 0)).rows
    assert rows["epoch"].tolist() == [0, 1]
    solve = rows.iloc[-1]
    assert solve["gap"] <= 1e-7 * solve["primal"]  # the recorder's own measure
    # the recorder's P and D are plain float64 evaluations: at an optimum solved to the last
    # bit they can cross by an ulp (seen here: P - D = -2.8e-17); the order is the
    # certificate's to guarantee (est.primal_ >= est.dual_ below), not theirs
    assert solve["primal"] >= solve["dual"] - 4 * np.finfo(float).eps * abs(solve["primal"])
    # the same solve outside the engine: its CPU seconds are the epoch's time
    ds = datasets.load("simulated", {})
    lmbd = 1.0 / ds.n_train
    est = solvers.ExactSVMClassifier(
        lmbd, tol=1e-7, max_cpu=30.0, random_state=0, bias_multiplier=0.0
    )
    est.fit(ds.X_train, ds.y_train)
    assert solve["cpu_time"] == solve["cpu_time_cum"] > 0
    assert_allclose(solve["primal"], est.primal_, rtol=1e-9)
    assert_allclose(solve["dual"], est.dual_, rtol=1e-9)
    assert est.primal_ >= est.dual_ and est.certified_
    metrics = ["primal", "dual", "train_error", "test_error"]
    again = run_one(RunTask(exp, EXACT, 1)).rows.iloc[-1]  # deterministic: same optimum
    assert_allclose(again[metrics].to_numpy(float), solve[metrics].to_numpy(float), rtol=0)


def test_fixed_epoch_rows_are_those_of_the_plain_recorder():
    """A configuration without a stop rule runs as before: the recorder is the callback, the
    estimator does exactly ``epochs`` epochs, the same rows as a fit made by hand."""
    cfg = Config("SDCA perm", "sdca", {"sampling": "permutation"})
    exp = sweep(cfg, epochs=4)
    task = RunTask(exp, cfg, 1)
    rows = run_one(task).rows
    ds = datasets.load("simulated", {})
    lmbd = 1.0 / ds.n_train
    est = solvers.SDCAClassifier(
        lmbd, shrinking=False, max_epochs=4, tol=0, random_state=task.seed, bias_multiplier=0.0
    )
    recorder = Recorder(ds, lmbd, est.loss_function, 0.0, True)
    recorder.initial(ds.X_train.shape[1])
    est.set_params(callback=recorder).fit(ds.X_train, ds.y_train)
    by_hand = pd.DataFrame(recorder.rows).drop(columns=list(TIMING_COLUMNS))
    pd.testing.assert_frame_equal(rows[by_hand.columns].reset_index(drop=True), by_hand)


def test_per_config_seeds_and_the_report(reports_dir):
    fixed = Config("SDCA perm", "sdca", {"sampling": "permutation"})
    exp = sweep(fixed, SHRINKING, EXACT, seeds=3)
    report = run_experiment(exp, progress=False)
    runs = report.groupby("config")["seed_index"].nunique().to_dict()
    assert runs == {"SDCA perm": 3, "SDCA shrinking": 3, "Exact": 2}
    assert exp.with_seeds(1).config_seeds(EXACT) == 1  # the experiment's count caps it
    epochs = report.groupby(["config", "seed_index"])["epoch"].max()
    assert (epochs["SDCA perm"] == 3).all() and (epochs["Exact"] == 1).all()
    assert (epochs["SDCA shrinking"] > 3).all()
    # the scorecard's freshness check counts each configuration's own runs: current as made
    # (3 seeds, the exact solver capped at 2), and also when made with --seeds 1
    assert reports.stale_report(exp) is None
    assert reports.stale_report(exp.with_seeds(1)) is None  # the stored 3-seed report
    one = run_experiment(exp.with_seeds(1), progress=False)
    assert set(one.groupby("config")["seed_index"].nunique()) == {1}
    assert reports.stale_report(exp) is None
    # a capped configuration's missing run, or a run beyond its cap, is stale
    run_experiment(exp, progress=False)  # the 3-seed report again (its runs are stored)
    path = reports.report_path(exp.name)
    stored = pd.read_parquet(path)
    capped = stored["config"] == "Exact"
    stored[~(capped & (stored["seed_index"] == 1))].to_parquet(path)
    assert "lacks 1 run(s)" in reports.stale_report(exp)
    extra = stored[capped & (stored["seed_index"] == 1)].assign(seed_index=2)
    pd.concat([stored, extra]).to_parquet(path)
    assert "holds 1 run(s) beyond a configuration's seed count" in reports.stale_report(exp)


# ------------------------------------------------------------------ definitions
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"solver": "exact"}, "the exact solver needs rel_gap"),
        ({"solver": "exact", "rel_gap": 1e-7}, "the exact solver needs rel_gap"),
        ({"solver": "pegasos", "rel_gap": 1e-7}, "Pegasos has none"),
        ({"rel_gap": 1.5}, r"rel_gap must be in \[0, 1\)"),
        ({"cpu_budget": 0.0}, "cpu_budget must be > 0"),
        ({"max_epochs": 50}, "max_epochs is the cap of a stop rule"),
        ({"seeds": 0}, "seeds must be >= 1"),
        ({"params": {"max_cpu": 3.0}}, "use the Config fields"),
        ({"rows_per_doubling": 0, "rel_gap": 1e-7}, "rows_per_doubling must be >= 1"),
        ({"rows_per_doubling": 100}, "rows_per_doubling thins the rows of a run with a stop"),
        (
            {"solver": "exact", "rel_gap": 1e-7, "cpu_budget": 1.0, "rows_per_doubling": 100},
            "the exact solver's one solve is one row",
        ),
    ],
)
def test_bad_stop_rules_are_refused_by_name(kwargs, message):
    fields = {"label": "bad", "solver": "sdca", **kwargs}
    with pytest.raises(ValueError, match=message):
        Config(**fields)


def test_run_keys_of_the_pre_existing_configurations_are_unchanged(monkeypatch):
    """Keys (with the code digest pinned) of the configurations that predate the stop rules,
    captured when the display fields (study, label, tags) joined the key: adding
    configurations (or a stop rule to another configuration) changes none of them. The keys
    of SDCA with shrinking run to convergence were recaptured when its recorded epochs
    (``rows_per_doubling``) joined them: they change, the others do not."""
    monkeypatch.setattr(spec_module, "code_digest", lambda: "pinned")
    before = json.loads(RUN_KEYS.read_text())
    assert set(before) <= set(CATALOGUE)
    for name, keys in before.items():
        exp = CATALOGUE[name]
        now = {c.label: exp.run_key(c) for c in exp.configs}
        assert {label: now.get(label) for label in keys} == keys, name


def test_the_sweeps_run_every_lambda_to_convergence():
    for name in ("beyond_blood_lambda_raw", "beyond_blood_lambda_pca40", "001_genomic_lambda"):
        exp = CATALOGUE[name]
        lmbds = {exp.config_lmbd(c) for c in exp.configs}
        for algorithm in ("SDCA-Perm + shrinking", "Exact optimum"):
            configs = [c for c in exp.configs if algorithm in c.tags]
            assert {exp.config_lmbd(c) for c in configs} == lmbds, (name, algorithm)
            for c in configs:
                assert c.rel_gap == STOP_REL_GAP < min(TARGETS) and c.cpu_budget > 0
                assert exp.config_seeds(c) <= exp.seeds
                thinned = ROWS_PER_DOUBLING if c.solver == "sdca" else None
                assert c.rows_per_doubling == thinned, c.label
        assert all(c.rows_per_doubling is None for c in exp.configs if not c.stops_early)
        assert all(exp.config_seeds(c) <= 3 for c in exp.configs if c.solver == "exact"), (
            "deterministic: a few seeds"
        )


def test_run_keys_depend_on_the_stop_rule():
    exp = sweep(SHRINKING)
    keys = {
        exp.run_key(c)
        for c in (
            SHRINKING,
            Config(**{**SHRINKING.__dict__, "rel_gap": 1e-6}),
            Config(**{**SHRINKING.__dict__, "cpu_budget": 5.0}),
            Config(**{**SHRINKING.__dict__, "max_epochs": 10}),
            Config(**{**SHRINKING.__dict__, "rows_per_doubling": 100}),
            Config(**{**SHRINKING.__dict__, "rows_per_doubling": 50}),
        )
    }
    assert len(keys) == 6  # the rows a run records are part of what its key names
    assert exp.run_key(Config(**{**SHRINKING.__dict__, "seeds": 2})) == exp.run_key(SHRINKING)


# ------------------------------------------------------------------ the fastest choice
def times_table() -> pd.DataFrame:
    """Two λ × one ε, three configurations; at λ = 0.1 two tie, at 1e-3 only one reaches."""
    rows = []
    for lmbd, values in ((0.1, (0.5, 0.2, 0.2)), (1e-3, (np.nan, np.nan, 3.0))):
        for config, t in zip(("A", "B", "C"), values, strict=True):
            rows.append(dict(experiment="e", dataset="d", config=f"{config} λ={lmbd:g}",
                             algorithm=config, solver="sdca", lmbd=lmbd, eps=1e-4, n_runs=3,
                             n_reached=0 if np.isnan(t) else 3, time=t,
                             reached=bool(np.isfinite(t)), best=1e-5, epochs=20))  # fmt: skip
    rows.append({**rows[0], "eps": 1e-6, "time": np.nan, "reached": False, "n_reached": 0})
    return pd.DataFrame(rows)


def test_fastest_is_the_smallest_median_time_among_configs_reaching_eps():
    first = fastest(times_table())
    assert first[["lmbd", "eps"]].to_numpy().tolist() == [[1e-3, 1e-4], [0.1, 1e-4], [0.1, 1e-6]]
    slow, tie, none = (first.iloc[i] for i in range(3))
    assert (slow["algorithm"], slow["time"], slow["n_reached"]) == ("C", 3.0, 3)
    assert (tie["algorithm"], tie["time"]) == ("B", 0.2)  # the first of two equal times
    assert not none["reached"] and pd.isna(none["algorithm"]) and np.isnan(none["time"])
    assert none["n_reached"] == 0


def test_with_fastest_marks_exactly_the_choice():
    marked = with_fastest(times_table())
    chosen = marked[marked["fastest"]]
    assert chosen["config"].tolist() == ["B λ=0.1", "C λ=0.001"]
    per_target = marked.groupby(["lmbd", "eps"])["fastest"].sum()
    assert per_target.to_dict() == {(1e-3, 1e-4): 1, (0.1, 1e-4): 1, (0.1, 1e-6): 0}


def test_the_caption_counts_runs_per_algorithm():
    rows = [
        dict(config=f"{a} λ={lmbd}", tags=f"lambda,{a}", seed_index=r)
        for a, seeds in (("SDCA-Perm", 5), ("Exact optimum", 2), ("Pegasos", 5))
        for lmbd in (0.1, 1.0)
        for r in range(seeds)
    ]
    frame = pd.DataFrame(rows)
    assert runs_per_algorithm(frame) == "5 (Exact optimum 2)"
    assert runs_per_algorithm(frame[~frame["config"].str.startswith("Exact")]) == "5"


# ------------------------------------------------------------------ rows of a run to convergence
METRICS = [c for c in METRIC_COLUMNS if c not in TIMING_COLUMNS]


def test_the_recorded_epochs():
    """Every epoch below 2R, then R per doubling, each epoch's next row at most e/R away."""
    assert [e for e in range(1, 41) if stopping.recorded(e, 3)] == [
        *range(1, 6), 6, 8, 10, 12, 16, 20, 24, 32, 40,
    ]  # fmt: skip
    assert all(stopping.recorded(e, None) for e in range(1, 1000))
    for r in (1, 2, 3, 7, 100):
        kept = np.array([e for e in range(1, 2**11 * r) if stopping.recorded(e, r)])
        assert kept[: 2 * r - 1].tolist() == list(range(1, 2 * r))
        for j in range(1, 10):
            assert ((kept >= 2**j * r) & (kept < 2 ** (j + 1) * r)).sum() == r, (r, j)
        epochs = np.arange(1, 2**10 * r)
        after = kept[np.searchsorted(kept, epochs)] - epochs  # epochs to the next row
        assert (after <= np.maximum(0, epochs // r - 1)).all(), r
    # the catalogue's schedule, pinned: a change of it is a change of the run keys
    assert ROWS_PER_DOUBLING == 100
    assert sum(stopping.recorded(e, ROWS_PER_DOUBLING) for e in range(1, 9401)) == 746


def to_convergence(rows_per_doubling, lmbd="1/n", rel_gap=1e-7, max_epochs=100_000) -> Config:
    return Config(
        "SDCA shrinking",
        "sdca",
        {"shrinking": True, "lmbd": lmbd},
        ("lambda", "SDCA-Perm + shrinking"),
        rel_gap=rel_gap,
        cpu_budget=30.0,
        max_epochs=max_epochs,
        rows_per_doubling=rows_per_doubling,
    )


def rows_of(cfg: Config, seed: int = 0) -> pd.DataFrame:
    return run_one(RunTask(sweep(cfg), cfg, seed)).rows


def stops(rows: pd.DataFrame) -> pd.Series:
    return rows["gap"] <= 1e-7 * rows["primal"]


def test_a_short_run_records_every_epoch_with_the_catalogues_rows():
    """Below 2R epochs nothing changes: the same rows, the same stop epoch (55 here)."""
    full = rows_of(to_convergence(None))
    thinned = rows_of(to_convergence(ROWS_PER_DOUBLING))
    assert full["epoch"].iloc[-1] < 2 * ROWS_PER_DOUBLING
    pd.testing.assert_frame_equal(thinned[METRICS], full[METRICS], check_exact=True)


@pytest.mark.parametrize(("seed", "per_doubling"), [(0, 4), (1, 4), (0, ROWS_PER_DOUBLING)])
def test_a_thinned_run_writes_the_full_runs_rows_at_its_epochs(seed, per_doubling):
    """λ = 1e-4 (hundreds of epochs): the thinned run's rows are the full run's rows at the
    recorded epochs, bit for bit, and it stops at the first recorded epoch whose relative gap
    is at most rel_gap: at most e/R epochs after the full run's stop (the stated difference;
    R = 4 moves it here, the catalogue's R = 100 by under 1 %)."""
    full = rows_of(to_convergence(None, lmbd=1e-4), seed)
    stop = int(full["epoch"].iloc[-1])
    assert stops(full).iloc[-1] and not stops(full).iloc[:-1].any()
    # every epoch beyond that stop too: the same run with no gap to stop it
    trace = rows_of(to_convergence(None, 1e-4, rel_gap=0.0, max_epochs=2 * stop), seed)
    pd.testing.assert_frame_equal(trace[METRICS].iloc[: stop + 1], full[METRICS])
    thinned = rows_of(to_convergence(per_doubling, lmbd=1e-4), seed)

    due = trace["epoch"].map(lambda e: e > 0 and stopping.recorded(e, per_doubling))
    end = int(trace.loc[due & stops(trace), "epoch"].iloc[0])
    epochs = [0, *(e for e in range(1, end + 1) if stopping.recorded(e, per_doubling))]
    assert thinned["epoch"].tolist() == epochs
    expected = trace[METRICS].iloc[epochs].reset_index(drop=True)
    pd.testing.assert_frame_equal(thinned[METRICS], expected, check_exact=True)
    window = stops(trace).iloc[stop : stop + max(1, stop // per_doubling)]
    assert window.all(), "the gap stays below rel_gap after the stop on these runs"
    assert stop <= end <= stop + max(0, stop // per_doubling - 1)  # the stated bound
    if per_doubling == 4:
        assert end > stop, "the difference this test states must show on this problem"


def test_a_thinned_run_counts_every_epochs_time_and_records_its_last():
    """The cumulative CPU is the estimator's over every epoch, recorded or not; a run ended
    by its cap or its budget records its last epoch, off the schedule."""
    ds = datasets.load("simulated", {})
    lmbd = 1e-4
    for cap, budget in ((37, None), (100_000, 3e-3)):
        est = solvers.SDCAClassifier(
            lmbd,
            shrinking=True,
            finish=False,
            max_epochs=cap,
            tol=0,
            random_state=0,
            bias_multiplier=0.0,
        )
        recorder = Recorder(ds, lmbd, est.loss_function, 0.0, True)
        recorder.initial(ds.X_train.shape[1])
        rule = stopping.StopRule(recorder, 1e-7, budget, cap, rows_per_doubling=4)
        est.set_params(callback=rule).fit(ds.X_train, ds.y_train)
        rows = pd.DataFrame(recorder.rows)
        last = est.n_iter_
        on_schedule = [e for e in range(last) if stopping.recorded(e, 4)]
        assert rows["epoch"].tolist() == [*on_schedule, last]  # the last once, on it or not
        if budget is None:  # the cap's last epoch is off the schedule: recorded besides
            assert last == cap and not stopping.recorded(last, 4)
        spent = float(est.setup_time_ + est.epoch_times_.sum())
        assert_allclose(rows["cpu_time_cum"].iloc[-1], spent, rtol=1e-12)
        assert rows["cpu_time"].sum() < spent  # the unrecorded epochs' time is in the sum
        assert rule.reason == (None if budget is None else "cpu_budget")


def test_a_fit_that_ends_off_its_rule_is_refused():
    """An estimator that stops itself (its own tol) would leave the last epoch unrecorded:
    the run raises instead of writing a report without its end."""
    cfg = to_convergence(4, lmbd=1e-4)
    exp = sweep(cfg)
    task = RunTask(exp, cfg, 0)
    ds = datasets.load("simulated", {})
    est = make_estimator(task, 1e-4).set_params(tol=1e-3, tol_gap="absolute")
    recorder = Recorder(ds, 1e-4, est.loss_function, 0.0, True)
    recorder.initial(ds.X_train.shape[1])
    with pytest.raises(RuntimeError, match="give the estimator tol=0"):
        stopping.fit_with_rule(est, ds.X_train, ds.y_train, recorder, cfg)


def optimum_record(lmbd: float) -> pd.DataFrame:
    """The certified optimum of the simulated draw at ``lmbd``, as an optima record."""
    ds = datasets.load("simulated", {})
    est = solvers.ExactSVMClassifier(lmbd, tol=1e-12, bias_multiplier=0.0, random_state=0)
    est.fit(ds.X_train, ds.y_train)
    assert est.certified_
    gap = est.primal_ - est.dual_
    return pd.DataFrame([dict(dataset_key=datasets.dataset_key("simulated", {}), lmbd=lmbd,
                              dual=est.dual_, primal=est.primal_, gap=gap,
                              rel_gap=gap / est.primal_, certified=True)])  # fmt: skip


@pytest.mark.parametrize(
    ("lmbd", "per_doubling"), [(1e-4, 4), (1e-4, ROWS_PER_DOUBLING), ("1/n", ROWS_PER_DOUBLING)]
)
def test_the_time_to_eps_of_a_thinned_run(lmbd, per_doubling):
    """The figures' reading (:func:`sdca_pegasos.figures.beyond_lambda.time_to_targets`) on thinned
    rows: per run, the CPU time at the first recorded epoch reaching ε: at most e/R epochs after
    the full run's e while the run stays below ε (P(w) is not monotone: at λ = 1e-4, R = 100 one
    run reaches 1e-6 at epoch 305, is above it at 308, the next row, and is read at 310); the same
    reading where every crossing is below 2R (λ = 1/n here). Both readings on one clock: the
    thinned rows take the full trace's timings at their epochs (their other columns are the full
    run's, bit for bit: ``test_a_thinned_run_writes_the_full_runs_rows_at_its_epochs``)."""
    lmbd = datasets.resolve_lmbd(lmbd, datasets.load("simulated", {}).n_train)
    optima = optimum_record(lmbd)
    p_star = float(optima["dual"].iloc[0])
    full, thinned, traces = [], [], []
    for seed in range(3):
        trace = rows_of(to_convergence(None, lmbd, rel_gap=0.0, max_epochs=1200), seed)
        rows = rows_of(to_convergence(per_doubling, lmbd), seed)
        clock = trace.set_index("epoch")[list(TIMING_COLUMNS)].loc[rows["epoch"]]
        rows[list(TIMING_COLUMNS)] = clock.to_numpy()
        full.append(trace.iloc[: int(trace.loc[stops(trace), "epoch"].iloc[0]) + 1])
        thinned.append(rows)
        traces.append(trace.set_index("epoch"))
    before = time_to_targets(pd.concat(full), optima).set_index("eps")
    after = time_to_targets(pd.concat(thinned), optima).set_index("eps")
    moved = 0
    for eps in TARGETS:
        read = {"full": [], "thinned": []}  # per run: the CPU time at the reading's epoch
        for trace, rows in zip(traces, thinned, strict=True):
            rel = (trace["primal"] - p_star) / p_star
            reached = rel.index[rel <= eps]
            first = int(reached[0])
            due = next(e for e in reached if stopping.recorded(e, per_doubling))
            assert rows["epoch"].eq(due).any()
            window = rel.loc[first : first + max(0, first // per_doubling - 1)]
            if (window <= eps).all():  # P(w) is not monotone: ε may be lost again
                assert due <= window.index[-1]
            moved += due > first
            read["full"].append(trace.loc[first, "cpu_time_cum"])
            read["thinned"].append(trace.loc[due, "cpu_time_cum"])
        assert before.loc[eps, "time"] == np.median(read["full"])
        assert after.loc[eps, "time"] == np.median(read["thinned"])
    assert after["reached"].all() and before["reached"].all()
    assert (moved > 0) == (lmbd == 1e-4), moved  # 1/n: no crossing beyond 2R epochs
    if moved == 0:
        pd.testing.assert_frame_equal(after, before)
