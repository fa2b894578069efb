"""The experiment engine on tiny versions of real experiments."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import types
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from sdca_pegasos import solvers
from sdca_pegasos.experiments import CATALOGUE, Config, Experiment, optima, reports, run_experiment
from sdca_pegasos.experiments import runner as runner_module
from sdca_pegasos.experiments import spec as spec_module
from sdca_pegasos.experiments.metrics import METRIC_COLUMNS, Recorder
from sdca_pegasos.experiments.runner import TIMING_COLUMNS
from sdca_pegasos.solvers.core import objectives

REPO = Path(__file__).resolve().parents[1]


def tiny_configs() -> tuple[Config, ...]:
    configs = [
        Config("SDCA perm", "sdca", {"sampling": "permutation"}, ("algorithms",)),
        Config("SDCA random averaged", "sdca", {"sampling": "iid", "average": True}),
        Config("SDCA smoothed", "sdca", {"loss": "smooth_hinge", "gamma": 1.0}),
    ]
    if hasattr(solvers, "PegasosClassifier"):
        configs.append(Config("Pegasos k=8", "pegasos", {"batch_size": 8, "sampling": "iid"}))
    if hasattr(solvers, "ASDCAClassifier"):
        configs.append(Config("ASDCA", "asdca", {"batch_size": 8, "theta": 0.15}))
    return tuple(configs)


def tiny(name="tiny", epochs=3, seeds=3, **kw) -> Experiment:
    """A real experiment (study 001's simulated data, λ = 1/n) at a tiny size."""
    return Experiment(
        name=name,
        study="test",
        dataset="simulated",
        lmbd="1/n",
        epochs=epochs,
        configs=kw.pop("configs", tiny_configs()),
        seeds=seeds,
        store_coef=kw.pop("store_coef", True),
        **kw,
    )


@pytest.fixture
def reports_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "reports"))
    return tmp_path / "reports"


def without_timing(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=list(TIMING_COLUMNS)).reset_index(drop=True)


# ------------------------------------------------------------------ schema and content
def test_rows_schema_and_epoch_zero(reports_dir):
    exp = tiny()
    report = run_experiment(exp, progress=False)
    n_train = report["n_train"].iloc[0]
    assert len(report) == len(exp.configs) * exp.seeds * (exp.epochs + 1)
    assert not report.duplicated(["config", "seed_index", "epoch"]).any()
    assert set(METRIC_COLUMNS) <= set(report.columns)
    for col in (
        "experiment",
        "study",
        "dataset",
        "dataset_title",
        "config",
        "solver",
        "seed_index",
        "seed",
        "lmbd",
        "run_key",
        "param_sampling",
    ):
        assert col in report.columns, col
    assert_allclose(report["lmbd"], 1 / n_train)
    assert (report["samples_seen"] == report["epoch"] * n_train).all()

    start = report[report.epoch == 0]
    assert (start.primal == 1.0).all() and (start.cpu_time == 0).all()
    sdca = start[start.solver == "sdca"]
    assert (sdca.dual == 0.0).all()
    hinge = sdca[sdca.config != "SDCA smoothed"]
    assert (hinge.gap == 1.0).all()
    smooth = sdca[sdca.config == "SDCA smoothed"]
    assert_allclose(smooth.primal_smooth, 0.5)  # φ_γ(0) = 1 - γ/2 at γ = 1
    assert (report[report.solver == "pegasos"].dual.isna()).all()
    # the swept set: every sample for SDCA without shrinking, no active set for the others
    swept = report[report.epoch > 0]
    assert (swept[swept.solver == "sdca"].n_active == n_train).all()
    assert swept[swept.solver != "sdca"].n_active.isna().all()
    assert start.n_active.isna().all()

    later = report[report.epoch > 0]
    assert (later.cpu_time > 0).all() and (later.wall_time > 0).all()
    with_dual = later[later.dual.notna()]
    assert set(with_dual.solver) >= {"sdca"} and (later.solver == "pegasos").sum() > 0
    assert np.all(with_dual.primal >= with_dual.dual - 1e-12)  # weak duality, every row
    # the cumulative columns are the running sums of the per-epoch ones
    for _, run in report.groupby(["config", "seed_index"]):
        assert_allclose(run.cpu_time_cum, run.cpu_time.cumsum(), rtol=1e-12)
        assert_allclose(run.wall_time_cum, run.wall_time.cumsum(), rtol=1e-12)


@pytest.mark.parametrize("index", range(5))
def test_a_runs_frames_are_the_ones_pandas_makes_column_for_column(
    reports_dir, monkeypatch, index
):
    """runner.frame makes a run's two frames (its rows, its coefficients) from NumPy columns
    it builds itself; each is the frame the former construction made, values, dtypes and
    column order, on every solver's run: the rows as a frame of the recorded rows and then one
    of it and the identity (pandas broadcasting the scalars), the coefficients as
    pd.DataFrame of the same columns."""
    exp = tiny(seeds=1, epochs=2)
    tasks, _ = runner_module.plan(exp)
    if index >= len(tasks):
        pytest.skip("this build has fewer solvers")
    calls, made, original = [], [], runner_module.frame

    def keeping(n, columns):
        calls.append((n, dict(columns)))
        made.append(original(n, columns))
        return made[-1]

    monkeypatch.setattr(runner_module, "frame", keeping)
    recorded = []
    report_rows = runner_module.report_rows

    def keeping_rows(identity, rows):
        recorded.append((identity, rows))
        return report_rows(identity, rows)

    monkeypatch.setattr(runner_module, "report_rows", keeping_rows)
    result = runner_module.run_one(tasks[index])
    assert len(calls) == 2 and made[0] is result.rows and made[1] is result.coef
    identity, rows = recorded[0]
    metrics = pd.DataFrame(rows)
    two_step = pd.DataFrame({**identity, **{c: metrics[c] for c in metrics.columns}})
    pd.testing.assert_frame_equal(result.rows, two_step, check_exact=True)
    coef_columns = calls[1][1]
    pd.testing.assert_frame_equal(result.coef, pd.DataFrame(coef_columns), check_exact=True)
    for ours, theirs in ((result.rows, two_step), (result.coef, pd.DataFrame(coef_columns))):
        assert list(ours.columns) == list(theirs.columns)
        assert list(ours.dtypes) == list(theirs.dtypes)
    assert len(result.rows) == exp.epochs + 1
    assert list(result.rows.columns[-len(METRIC_COLUMNS) :]) == list(METRIC_COLUMNS)


def test_frame_leaves_to_pandas_what_it_does_not_recognise():
    """Columns of other kinds (None, mixed lists, a date) come out as pandas makes them."""
    columns = {
        "text": "a", "flag": True, "count": 3, "big": np.int64(2**40), "x": 0.5,
        "none": None, "mixed": [1, "b", None], "when": pd.Timestamp("2026-11-29"),
        "floats": [1.0, float("nan"), 2.0], "ints": [1, 2, 3], "array": np.arange(3.0),
        "bools": [True, False, True], "bool_int": [True, 1, 2], "bool_float": [True, 0.5, 1.0],
        "numpy_bool_int": [np.True_, 2, 3],
    }  # fmt: skip
    ours, theirs = runner_module.frame(3, columns), pd.DataFrame(columns)
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    assert list(ours.dtypes) == list(theirs.dtypes)


def test_shrinking_runs_record_the_active_set_they_swept(reports_dir):
    """n_active is the size of the set each epoch swept (EpochInfo.n_active: the active set
    A it began with); an epoch makes passes over A, each over the survivors of the last, of
    at most n steps in all (fewer once the active problem is solved), and samples_seen
    counts exactly those steps."""
    shrink = Config("SDCA shrinking", "sdca", {"sampling": "permutation", "shrinking": True})
    report = run_experiment(tiny("shrink", epochs=30, seeds=2, configs=(shrink,)), progress=False)
    n_train = int(report["n_train"].iloc[0])
    runs = report[report.epoch > 0]
    assert (runs.n_active >= 1).all() and (runs.n_active <= n_train).all()
    assert (runs.n_active < n_train).any(), "at λ = 1/n some samples must be set aside"
    for _, run in report.groupby("seed_index"):
        active = run.n_active.to_numpy()[1:]
        steps = np.diff(run.samples_seen.to_numpy())
        assert (steps >= active).all() and (steps <= n_train).all()
        assert (steps > active).any(), "some epoch made several passes"
    assert (runs.gap >= -1e-12).all()
    # the same seeded fit outside the engine: the same active sets, steps and objectives
    from sdca_pegasos.experiments import datasets

    split = datasets.load("simulated", {})
    lmbd = float(report["lmbd"].iloc[0])
    for seed, run in report.groupby("seed"):
        seen = []
        solvers.SDCAClassifier(
            lmbd=lmbd, sampling="permutation", shrinking=True, finish=False, tol=0,
            max_epochs=30, bias_multiplier=0.0, random_state=int(seed),
            callback=lambda info, seen=seen: seen.append((
                info.n_active, info.n_samples_seen,
                objectives.primal(split.X_train, split.y_train, info.w, lmbd),
            )),
        ).fit(split.X_train, split.y_train)  # fmt: skip
        run = run.sort_values("epoch").iloc[1:]
        assert run.n_active.tolist() == [a for a, _, _ in seen]
        assert run.samples_seen.tolist() == [m for _, m, _ in seen]
        assert_allclose(run.primal, [p for _, _, p in seen], rtol=1e-12)


def test_final_rows_match_the_stored_coefficients(reports_dir):
    """The report's last primal/test error are those of the stored output coefficients."""
    from sdca_pegasos import data

    exp = tiny(seeds=2)
    report = run_experiment(exp, progress=False)
    coef = pd.read_parquet(reports.coef_path(exp.name))
    ds = data.load("simulated")
    last = report[report.epoch == exp.epochs].set_index(["config", "seed_index"])
    for (config, seed), run in coef.groupby(["config", "seed_index"]):
        w = np.append(run.sort_values("feature").coef.to_numpy(), 0.0)
        lmbd = last.loc[(config, seed), "lmbd"]
        assert last.loc[(config, seed), "primal_output"] == pytest.approx(
            objectives.primal(ds.X_train, ds.y_train, w, lmbd), rel=1e-12
        )
        assert last.loc[(config, seed), "test_error_output"] == pytest.approx(
            objectives.error_rate(ds.X_test, ds.y_test, w)
        )
        assert_allclose(run.beta, ds.meta["beta_standardised"])  # the coefficients' space


def test_metric_time_is_not_update_time(reports_dir, monkeypatch):
    """Metrics that burn 30 ms of CPU per epoch must not show in the update-loop CPU time."""
    original = Recorder._row

    def slow_row(self, *args):
        end = time.process_time() + 0.03
        while time.process_time() < end:
            pass
        return original(self, *args)

    monkeypatch.setattr(Recorder, "_row", slow_row)
    report = run_experiment(tiny(seeds=1, epochs=4), progress=False)
    assert report[report.epoch > 0].cpu_time.max() < 0.01


# ------------------------------------------------------------------ resume and invalidation
def test_resume_after_a_failing_run_gives_the_uninterrupted_table(
    reports_dir, tmp_path, monkeypatch
):
    exp = tiny()
    original = runner_module.run_one

    def failing(task):
        if task.config.label == "SDCA smoothed" and task.seed_index == 1:
            raise RuntimeError("simulated crash")
        return original(task)

    monkeypatch.setattr(runner_module, "run_one", failing)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run_experiment(exp, progress=False)
    assert not reports.report_path(exp.name).exists(), "no partial report"
    done = list(reports.runs_dir(exp.name).glob("*-s*.parquet"))
    assert 0 < len([f for f in done if ".coef" not in f.name]) < len(exp.configs) * exp.seeds

    calls = []
    monkeypatch.setattr(runner_module, "run_one", lambda t: calls.append(t) or original(t))
    resumed = run_experiment(exp, progress=False)
    finished_before = len([f for f in done if ".coef" not in f.name])
    assert len(calls) == len(exp.configs) * exp.seeds - finished_before, "nothing recomputed"

    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "clean"))
    clean = run_experiment(exp, progress=False)
    pd.testing.assert_frame_equal(without_timing(resumed), without_timing(clean))


def test_rerun_skips_everything_and_more_seeds_reuse_runs(reports_dir, monkeypatch):
    exp = tiny(seeds=2)
    first = run_experiment(exp, progress=False)
    calls = []
    original = runner_module.run_one
    monkeypatch.setattr(runner_module, "run_one", lambda t: calls.append(t) or original(t))
    mtime = reports.report_path(exp.name).stat().st_mtime_ns
    again = run_experiment(exp, progress=False)
    assert calls == []
    assert reports.report_path(exp.name).stat().st_mtime_ns == mtime, "report left untouched"
    pd.testing.assert_frame_equal(first, again)  # identical, timing included: nothing rerun
    more = run_experiment(exp.with_seeds(3), progress=False)
    assert len(calls) == len(exp.configs) and {t.seed_index for t in calls} == {2}
    pd.testing.assert_frame_equal(
        more[more.seed_index < 2].reset_index(drop=True), first.reset_index(drop=True)
    )


def test_changed_definition_invalidates_old_runs(reports_dir):
    run_experiment(tiny(epochs=2, seeds=2), progress=False)
    changed = run_experiment(tiny(epochs=3, seeds=2), progress=False)
    assert changed.epoch.max() == 3
    assert len(changed) == len(tiny_configs()) * 2 * 4, "old 2-epoch runs are not mixed in"
    files = [f for f in reports.runs_dir("tiny").glob("*.parquet") if ".coef" not in f.name]
    assert len(files) == len(tiny_configs()) * 2, "stale runs were pruned"


# ------------------------------------------------------------------ damaged files
def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(b"not a parquet file\n" * 20)


@pytest.mark.parametrize("damage", [_truncate, _garbage])
@pytest.mark.parametrize("which", ["run", "coef"])
def test_damaged_run_file_is_set_aside_and_recomputed(reports_dir, tmp_path, damage, which):
    """Issue 12: a truncated or garbage run file (or its coefficient file) crashed the report
    build. It is renamed *.damaged with a warning naming it, the run is recomputed, and the
    report equals an undamaged one."""
    exp = tiny(seeds=2)
    first = run_experiment(exp, progress=False)
    task = runner_module.RunTask(exp, exp.configs[1], 1)
    path = (reports.coef_run_path if which == "coef" else reports.run_path)(exp.name, task.key, 1)
    damage(path)
    reports.report_path(exp.name).unlink()  # as after a change elsewhere: the report rebuilds
    with pytest.warns(reports.DamagedFileWarning) as record:  # the run file and its partner
        again = run_experiment(exp, progress=False)
    assert any(str(path) in str(w.message) for w in record), "the warning names the file"
    assert path.with_name(path.name + ".damaged").exists(), "kept for inspection"
    assert path.exists() and not reports.parquet_problem(path), "recomputed"
    pd.testing.assert_frame_equal(without_timing(again), without_timing(first))
    coef = reports.load_coef(exp.name)
    assert len(coef) == len(exp.configs) * exp.seeds * coef.feature.nunique()


def test_a_run_keeps_the_key_it_was_planned_with_when_sources_change_mid_run(
    reports_dir, monkeypatch
):
    """The key is hashed once, in the parent: a worker started after an edit of the sources
    (another code digest) still writes rows under its task's key, not a key of its own, so
    its file is not later taken for another run's."""
    exp = tiny(seeds=1)
    tasks, _ = runner_module.plan(exp)
    planned = [t.key for t in tasks]
    monkeypatch.setattr("sdca_pegasos.experiments.spec.code_digest", lambda: "edited-mid-run")
    assert [exp.run_key(t.config) for t in tasks] != planned  # the sources did change
    result = runner_module.run_one(tasks[0])
    assert (result.rows["run_key"] == planned[0]).all()


def test_damage_behind_an_intact_footer_is_caught_when_the_report_is_built(
    reports_dir, monkeypatch
):
    """A readable file holding another run (copied over it) is never mixed into the report."""
    exp = tiny(seeds=2)
    first = run_experiment(exp, progress=False)
    a = reports.run_path(exp.name, exp.run_key(exp.configs[0]), 0)
    b = reports.run_path(exp.name, exp.run_key(exp.configs[0]), 1)
    b.write_bytes(a.read_bytes())
    reports.report_path(exp.name).unlink()
    calls = []
    original = runner_module.run_one
    monkeypatch.setattr(runner_module, "run_one", lambda t: calls.append(t) or original(t))
    with pytest.warns(reports.DamagedFileWarning, match="seed_index is not 1"):
        again = run_experiment(exp, progress=False)
    assert [(t.config.label, t.seed_index) for t in calls] == [(exp.configs[0].label, 1)]
    pd.testing.assert_frame_equal(without_timing(again), without_timing(first))


@pytest.mark.parametrize("store_coef", [True, False])
def test_resume_after_a_kill_between_the_coefficients_and_the_run_file(reports_dir, store_coef):
    """The run file is the completion marker (the coefficients are written first): a run
    whose coefficient file exists but whose run file does not was killed between the two
    writes. It is planned again, quietly (nothing is damaged: no warning, nothing set aside),
    and only it; a finished run is never planned again, with or without coefficients (the
    mutation survivor runner.py:202 read the coefficient file as the marker)."""
    sdca = (Config("SDCA perm", "sdca", {"sampling": "permutation"}),)
    exp = tiny(seeds=2, configs=sdca, store_coef=store_coef)
    first = run_experiment(exp, progress=False)
    tasks, missing = runner_module.plan(exp)
    assert len(tasks) == 2 and missing == []
    reports.run_path(exp.name, tasks[1].key, 1).unlink()  # the kill: its coefficients stay
    reports.report_path(exp.name).unlink()
    assert reports.coef_run_path(exp.name, tasks[1].key, 1).exists() is store_coef
    _, missing = runner_module.plan(exp)  # warnings are errors: none may be raised
    assert [t.seed_index for t in missing] == [1]
    assert not list(reports.runs_dir(exp.name).glob("*.damaged*")), "nothing set aside"
    again = run_experiment(exp, progress=False)
    pd.testing.assert_frame_equal(without_timing(again), without_timing(first))


def test_resume_progress_bar_counts_each_run_once(reports_dir, capsys):
    """The progress bar starts at the runs already on disk and counts each run computed now
    once: 2 of 3 resumed, 1 computed, it ends at 3/3 (the mutation survivor runner.py:328
    counted 2 per run, ending at 4/3)."""
    sdca = (Config("SDCA perm", "sdca", {"sampling": "permutation"}),)
    run_experiment(tiny(seeds=2, configs=sdca), progress=False)
    capsys.readouterr()
    run_experiment(tiny(seeds=3, configs=sdca), progress=True)
    counts = re.findall(r"(\d+)/(\d+) \[", capsys.readouterr().err)
    assert counts[0] == ("2", "3") and counts[-1] == ("3", "3"), counts


def test_sidecar_wall_seconds_is_the_time_run_experiment_took(reports_dir, monkeypatch):
    """``wall_seconds`` is the wall-clock time from the call's start to the sidecar, rounded
    to the millisecond (the mutation survivor runner.py:374 wrote another number): with a
    clock that reads 1000 s at the start and 1002.3456 s at the end, 2.346."""
    readings = iter([1000.0, 1002.3456])
    clock = types.SimpleNamespace(perf_counter=lambda: next(readings))
    monkeypatch.setattr(runner_module, "time", clock)  # the runner's own clock only
    exp = tiny(seeds=1, configs=(Config("SDCA perm", "sdca", {"sampling": "permutation"}),))
    run_experiment(exp, progress=False)
    side = json.loads(reports.sidecar_path(exp.name).read_text())
    assert side["wall_seconds"] == 2.346
    assert next(readings, None) is None, "read at the start and at the end"
    started, finished = (datetime.fromisoformat(side[k]) for k in ("started", "finished"))
    assert started <= finished


def test_damaged_report_is_rebuilt_and_named_to_readers(reports_dir):
    exp = tiny(seeds=1)
    first = run_experiment(exp, progress=False)
    _garbage(reports.report_path(exp.name))
    with pytest.raises(
        reports.DamagedInputError, match=f"python -m sdca_pegasos.experiments run {exp.name}"
    ):
        reports.load_report(exp.name)
    with pytest.raises(FileNotFoundError):  # what the figure scripts catch
        reports.load_report(exp.name)
    with pytest.warns(reports.DamagedFileWarning, match="stored report unreadable"):
        again = run_experiment(exp, progress=False)
    pd.testing.assert_frame_equal(again, first)  # rebuilt from the same run files
    _garbage(reports.sidecar_path(exp.name))
    with pytest.raises(reports.DamagedInputError, match="report sidecar"):
        reports.load_sidecar(exp.name)


# ------------------------------------------------------------------ command lines
BAD_COMMAND_LINES = [
    ("experiments", ["run", "001_simulated", "--seeds", "0"], "argument --seeds: expected an"),
    ("experiments", ["run", "001_simulated", "--seeds", "-3"], "integer >= 1, got -3"),
    ("experiments", ["run", "001_simulated", "--seeds", "many"], "got 'many'"),
    ("experiments", ["run", "001_simulated", "--n-jobs", "0"], "argument --n-jobs"),
    ("experiments", ["optima", "001_simulated", "--n-jobs", "-1"], "argument --n-jobs"),
    ("experiments", ["run", "no_such_experiment"], "unknown experiment(s) ['no_such"),
    ("experiments", ["run", "001_simulated", "--backend", "dask"], "needs --scheduler"),
    ("experiments", ["list", "--available", "--missing"], "not allowed with"),
    ("data", ["prepare", "blood", "--n-jobs", "0"], "argument --n-jobs"),
    ("data", ["prepare", "blood", "--pca", "40", "0"], "argument --pca"),
    ("data", ["fetch", "skin", "--mirror", "/no/such/mirror"], "no such directory"),
    ("data", ["fetch", "no_such_dataset"], "unknown dataset"),
    ("figures", ["list", "study001_table2"], "'list' takes no other names"),
    ("figures", ["no_such_figure"], "unknown script(s)"),
]


@pytest.mark.parametrize(("package", "argv", "message"), BAD_COMMAND_LINES)
def test_bad_command_line_exits_2_with_one_clear_line(package, argv, message, capsys):
    """Each of these was a traceback (or started work) before: now argparse's usage and one
    error line, status 2, before anything runs."""
    import importlib

    main = importlib.import_module(f"sdca_pegasos.{package}.__main__").main
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"python -m sdca_pegasos.{package}") and message in err[-1], err
    assert not any("Traceback" in line for line in err)


def test_bad_command_line_in_a_fresh_process_prints_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "sdca_pegasos.experiments", "run", "001_simulated", "--seeds", "0"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "Warning" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "python -m sdca_pegasos.experiments run: error: argument --seeds: expected an integer "
        ">= 1, got 0"
    )


KILL_SCRIPT = textwrap.dedent(
    """
    import sys
    from sdca_pegasos.experiments import Config, Experiment, run_experiment
    configs = tuple(Config(f"SDCA {i}", "sdca",
                           {"sampling": "permutation", "lmbd": 1e-3 * (i + 1)})
                    for i in range(4))
    exp = Experiment(name="killme", study="test", dataset="simulated", lmbd="1/n",
                     epochs=400, configs=configs, seeds=int(sys.argv[1]))
    run_experiment(exp, n_jobs=1, progress=False)
    """
)


def test_kill_9_loses_only_runs_in_flight(reports_dir, tmp_path):
    """SIGKILL in the middle of an experiment: every stored run is complete and readable,
    none is duplicated, and a rerun completes the same table as an uninterrupted run."""
    env = {**os.environ, "SVM_REPORTS_DIR": str(reports_dir), "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-c", KILL_SCRIPT, "8"]
    proc = subprocess.Popen(cmd, env=env, cwd=REPO)
    runs = reports_dir / "runs" / "killme"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(runs.glob("*.parquet"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored = sorted(runs.glob("*.parquet"))
    assert 3 <= len(stored) < 32, "killed mid-experiment"
    for f in stored:
        assert len(pd.read_parquet(f)) == 401  # complete, never partial
    assert not (reports_dir / "killme.parquet").exists()

    rerun = subprocess.run(cmd, env=env, cwd=REPO, check=True, capture_output=True, text=True)
    assert "Warning" not in rerun.stderr, rerun.stderr  # a warning in a subprocess is unseen
    resumed = pd.read_parquet(reports_dir / "killme.parquet")
    assert not list(runs.glob(".*.tmp")), "temporaries of the killed writer were removed"
    env["SVM_REPORTS_DIR"] = str(tmp_path / "clean")
    rerun = subprocess.run(cmd, env=env, cwd=REPO, check=True, capture_output=True, text=True)
    assert "Warning" not in rerun.stderr, rerun.stderr
    clean = pd.read_parquet(tmp_path / "clean" / "killme.parquet")
    pd.testing.assert_frame_equal(without_timing(resumed), without_timing(clean))


# ------------------------------------------------------------------ determinism and backends
def test_same_rows_across_runs_and_worker_counts(reports_dir, tmp_path, monkeypatch):
    exp = tiny()
    one = run_experiment(exp, n_jobs=1, progress=False)
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "two"))
    two = run_experiment(exp, n_jobs=2, progress=False)
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "again"))
    again = run_experiment(exp, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(without_timing(one), without_timing(two))
    pd.testing.assert_frame_equal(without_timing(one), without_timing(again))
    seeds = one.groupby("seed_index").seed.first()
    assert seeds.nunique() == exp.seeds, "each run index has its own derived seed"


def test_dask_local_cluster_gives_the_same_rows(reports_dir, tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    exp = tiny(seeds=2)
    reference = run_experiment(exp, n_jobs=1, progress=False)
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "dask"))
    with (
        # ":0": any free port (None still serves its HTTP routes on 8787, and fails when a
        # dashboard of another cluster holds it)
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        via_dask = run_experiment(exp, backend="dask", scheduler=client, progress=False)
    pd.testing.assert_frame_equal(without_timing(reference), without_timing(via_dask))


# ------------------------------------------------------------------ scheduling across experiments
def _task(name: str, dataset_options: dict, epochs: int) -> runner_module.RunTask:
    exp = tiny(name, epochs=epochs, seeds=1, dataset_options=dataset_options)
    return runner_module.RunTask(exp, exp.configs[0], 0, key=name)


def test_longest_first_orders_datasets_by_their_longest_run_then_runs_longest_first():
    """Two datasets (sizes 10 and 100): dataset B's longest run costs 100·5 = 500 > A's
    10·40 = 400, so B comes first; within each, longest first; equal costs keep their order."""
    a, b = {"seed": 1}, {"seed": 2}
    tasks = [
        _task("a_short", a, 2),
        _task("b_short", b, 1),
        _task("a_long", a, 40),
        _task("b_long", b, 5),
        _task("a_tie1", a, 3),
        _task("a_tie2", a, 3),
    ]
    key_a, key_b = (runner_module.datasets.dataset_key("simulated", o) for o in (a, b))
    order = runner_module.longest_first(tasks, {key_a: 10.0, key_b: 100.0})
    assert [t.key for t in order] == ["b_long", "b_short", "a_long", "a_tie1", "a_tie2", "a_short"]
    assert runner_module.run_cost(tasks[2], 10.0) == 400.0


def test_several_experiments_share_one_pool_and_give_the_same_reports(
    reports_dir, tmp_path, monkeypatch
):  # fmt: skip
    """``run_experiments`` hands every missing run of every experiment to one ``execute``
    call (so a core freed by one experiment takes the next's runs), and each report equals the
    one ``run_experiment`` builds alone."""
    sdca = (Config("SDCA perm", "sdca", {"sampling": "permutation"}),)
    exps = [tiny("first", seeds=2, configs=sdca), tiny("second", epochs=5, seeds=3)]
    calls = []
    real_execute = runner_module.execute

    def spy(tasks, *args):
        calls.append([(t.experiment.name, t.seed_index) for t in tasks])
        return real_execute(tasks, *args)

    monkeypatch.setattr(runner_module, "execute", spy)
    pooled = runner_module.run_experiments(exps, progress=False)
    assert len(calls) == 1 and len(calls[0]) == 2 + 3 * len(tiny_configs())
    assert {name for name, _ in calls[0]} == {"first", "second"}
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "alone"))
    for exp in exps:
        alone = run_experiment(exp, progress=False)
        pd.testing.assert_frame_equal(without_timing(pooled[exp.name]), without_timing(alone))
    assert runner_module.run_experiments([], progress=False) == {}


def test_the_command_line_runs_its_experiments_in_one_pool(reports_dir, monkeypatch):
    """``python -m sdca_pegasos.experiments run A B`` calls :func:`run_experiments` once with
    both."""
    from sdca_pegasos.experiments import __main__ as cli

    seen = []
    monkeypatch.setattr(
        cli, "run_experiments", lambda exps, **kw: seen.append((exps, kw["with_optima"])) or {}
    )
    names = ["001_simulated", "001_simulated_seeded"]
    assert all(n in CATALOGUE for n in names), sorted(CATALOGUE)[:5]
    assert cli.main(["run", *names, "--quiet", "--seeds", "1"]) == 0
    assert len(seen) == 1 and sorted(e.name for e in seen[0][0]) == names
    assert seen[0][1] is True  # the optima in the same pool
    assert cli.main(["run", *names, "--quiet", "--seeds", "1", "--no-optima"]) == 0
    assert seen[1][1] is False


def test_the_runs_pool_certifies_the_missing_optima_ahead_of_the_runs(reports_dir, monkeypatch):
    """run_experiments(with_optima=True): every missing optimum goes into the runs' pool,
    ahead of the runs (one call of execute with both kinds of task), is written where
    ensure_all writes it, and is the record ensure_all makes, the solve's CPU seconds aside;
    the stage's line counts both; a second call finds them all standing."""
    a = tiny(name="a", configs=(Config("SDCA", "sdca", {"lmbd": 0.01}),), epochs=1, seeds=2)
    b = tiny(
        name="b",
        configs=(Config("SDCA", "sdca", {"lmbd": 0.01}), Config("SDCA 2", "sdca", {"lmbd": 0.1})),
        epochs=1,
        seeds=2,
    )
    calls, original = [], runner_module.execute

    def recording(tasks, *args, **kw):
        calls.append([type(t).__name__ for t in tasks])
        yield from original(tasks, *args, **kw)

    monkeypatch.setattr(runner_module, "execute", recording)
    lines = []
    monkeypatch.setattr(runner_module.StageTime, "line", lambda s: lines.append(s) or "")
    pooled = runner_module.run_experiments([a, b], n_jobs=2, with_optima=True)
    assert calls == [["OptimumTask", "OptimumTask"] + ["RunTask"] * 6]
    assert lines[0].runs == 6 and lines[0].optima == 2 and lines[0].cpu > 0
    made = {o["lmbd"]: o for o in optima.load_all()}
    assert sorted(made) == [0.01, 0.1] and all(o["certified"] for o in made.values())
    for path in (reports_dir / "optima").glob("*.json"):
        path.unlink()
    assert optima.ensure_all([a, b]) == 2  # the same optima, in their own pool
    alone = {o["lmbd"]: o for o in optima.load_all()}
    for lmbd, record in made.items():
        same = {k: v for k, v in record.items() if k != "cpu_seconds"}
        assert same == {k: v for k, v in alone[lmbd].items() if k != "cpu_seconds"}
    assert runner_module.run_experiments([a, b], n_jobs=2, with_optima=True).keys() == {"a", "b"}
    assert calls[1:] == [[]]  # nothing left to run or certify
    assert set(pooled) == {"a", "b"}


# ------------------------------------------------------------------ optima, sidecar, errors
def test_certified_optimum_is_below_every_run(reports_dir):
    exp = tiny(configs=(Config("SDCA perm", "sdca", {"sampling": "permutation"}),), epochs=5)
    (opt,) = optima.ensure(exp)
    assert opt["certified"] and opt["gap"] <= 1e-10
    assert opt["dual"] <= opt["primal"] <= opt["dual"] + 1e-10
    report = run_experiment(exp, progress=False)
    assert (report.primal >= opt["dual"]).all()
    assert optima.load_all() == [opt]


def test_sidecar_records_the_environment(reports_dir):
    exp = tiny(seeds=1)
    run_experiment(exp, progress=False)
    side = json.loads(reports.sidecar_path(exp.name).read_text())
    for key in (
        "numpy",
        "numba",
        "scikit-learn",
        "git_commit",
        "cpu_model",
        "n_jobs",
        "started",
        "finished",
        "runs_total",
    ):
        assert key in side, key
    assert side["runs_total"] == len(exp.configs)


def test_missing_report_names_the_command(reports_dir):
    with pytest.raises(
        FileNotFoundError, match=r"python -m sdca_pegasos.experiments run nothing_here"
    ):
        reports.load_report("nothing_here")


def test_catalogue_is_complete_and_well_formed():
    names = set(CATALOGUE)
    assert {
        "000_blood_raw",
        "000_blood_pca40",
        "001_simulated",
        "001_simulated_seeded",
        "001_genomic",
        "001_genomic_lambda",
        "001_skin",
        "001_skin_20ep",
    } <= names
    # documented exceptions (catalogue comments)
    budget = {
        "beyond_blood_lambda_raw": 10,
        "001_simulated_seeded": 20,
        "beyond_skin_shrinking": 10,
    }
    for exp in CATALOGUE.values():  # 100 seeds, but for the documented budget exceptions
        assert exp.seeds == budget.get(exp.name, 100)
        keys = [exp.run_key(c) for c in exp.configs]
        assert len(set(keys)) == len(keys), f"{exp.name}: two configs would share runs"
    assert len(CATALOGUE["001_simulated"].configs) == 18  # 9 variants x {plain, averaged}
    assert CATALOGUE["000_blood_raw"].lmbd == 1.6 and CATALOGUE["000_blood_raw"].epochs == 10


def test_optima_of_several_experiments_in_one_pool(reports_dir):
    a = tiny(name="a", configs=(Config("SDCA", "sdca", {"lmbd": 0.01}),), epochs=1)
    b = tiny(
        name="b",
        configs=(Config("SDCA", "sdca", {"lmbd": 0.01}), Config("SDCA 2", "sdca", {"lmbd": 0.1})),
        epochs=1,
    )
    assert optima.ensure_all([a, b], n_jobs=2) == 2  # (simulated, 0.01) is shared
    assert optima.ensure_all([a, b], n_jobs=2) == 0  # nothing left to do
    assert all(o["certified"] for o in optima.load_all())


# ------------------------------------------------------------------ the studies' settings
def test_every_catalogue_run_key_is_the_one_before_the_estimators_defaults_changed(
    monkeypatch,
):
    """Issue 29 gave the estimators a LinearSVC user's defaults (an intercept, λ = 1/n); the
    experiments keep the studies' settings and their runs. tests/golden/run_keys.json holds
    the key of every catalogue configuration computed at 44c8467 (before that change, the
    code digest pinned): each one is unchanged."""
    monkeypatch.setattr(spec_module, "code_digest", lambda: "pinned")
    golden = json.loads((REPO / "tests" / "golden" / "run_keys.json").read_text())
    now = {name: {c.label: exp.run_key(c) for c in exp.configs} for name, exp in CATALOGUE.items()}
    assert now == golden


def test_every_catalogue_estimator_gets_the_studies_settings_explicitly():
    """The runner passes λ and the run defaults (no intercept) to every estimator it builds,
    whatever the estimators' own defaults are; a configuration's bias_multiplier wins."""
    assert spec_module.RUN_DEFAULTS == {"bias_multiplier": 0.0}
    for exp in CATALOGUE.values():
        for cfg in exp.configs:
            est = runner_module.make_estimator(runner_module.RunTask(exp, cfg, 0), 0.25)
            assert est.lmbd == 0.25, (exp.name, cfg.label)
            assert est.bias_multiplier == cfg.params.get("bias_multiplier", 0.0) == 0.0
            # explicit: not the estimator's own default, which is an intercept
            assert est.get_params()["bias_multiplier"] != type(est)().bias_multiplier
    with_bias = Config("SDCA B=1", "sdca", {"bias_multiplier": 1.0})
    exp = tiny(configs=(with_bias,))
    est = runner_module.make_estimator(runner_module.RunTask(exp, with_bias, 0), 0.25)
    assert est.bias_multiplier == 1.0
    assert exp.run_key(with_bias) != exp.run_key(Config("SDCA B=1", "sdca", {}))
    # naming the run default changes no key: the same run
    named = Config("SDCA", "sdca", {"bias_multiplier": 0.0})
    assert exp.run_key(named) == exp.run_key(Config("SDCA", "sdca", {}))


def test_a_generated_sentence_says_where_its_numbers_come_from():
    """``measured``: date, short commit, the start's load (``under load`` above 0.75 per
    core, not at it), anything said of the end, the cores and the command."""
    from sdca_pegasos.experiments.reports import measured, measured_record

    quiet = measured("2026-11-27 10:00:00", "751c237abcdef", 1.5, 2, "python b.py")
    assert quiet == (
        "Measured 2026-11-27 (git 751c237, load 1.5 at the start, 2 cores; `python b.py`)"
    )
    busy = measured("2026-11-27", "751c237", 1.51, 2, "make x", "2.9 at the end")
    assert busy == (
        "Measured 2026-11-27 (git 751c237, load 1.5 at the start, under load, 2.9 at the end, "
        "2 cores; `make x`)"
    )
    # a record's: the first of a load triple, its own command unless one is given
    record = {"date": "2026-11-27", "git": "751c237", "machine": {"cpus": 2}, "command": "c"}
    assert measured_record({**record, "load_start": 1.5}) == (
        "Measured 2026-11-27 (git 751c237, load 1.5 at the start, 2 cores; `c`)"
    )
    triple = measured_record({**record, "load_start": [1.6, 0.1, 0.1]}, "make y", "e")
    assert triple == (
        "Measured 2026-11-27 (git 751c237, load 1.6 at the start, under load, e, 2 cores; "
        "`make y`)"
    )
