"""Runs scheduled for the floor (sdca_pegasos/experiments/runner.py): on more than one worker an
experiment's runs go longest first, the reports unchanged, and the pool's wall, its runs' CPU and
its workers' idle time are printed at its end."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from sdca_pegasos.experiments import runner as runner_module
from sdca_pegasos.experiments.runner import TIMING_COLUMNS, StageTime, run_experiment
from sdca_pegasos.experiments.spec import Config, Experiment

SHORT = Config("short", "sdca", {"sampling": "permutation"})
#: Six epochs: a gap of 1e-12 is out of reach at λ = 1e-6, so the cap ends every run.
LONG = Config("long", "sdca", {"lmbd": 1e-6}, rel_gap=1e-12, max_epochs=6)


def experiment() -> Experiment:
    return Experiment(
        name="floor",
        study="test",
        dataset="simulated",
        lmbd="1/n",
        epochs=2,
        configs=(SHORT, LONG),  # the catalogue's order: the short runs first
        seeds=3,
    )


@pytest.fixture
def reports_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "reports"))
    return tmp_path / "reports"


def without_timing(frame: pd.DataFrame) -> pd.DataFrame:
    cols = ["config", "seed_index", "epoch"]
    return frame.drop(columns=list(TIMING_COLUMNS)).sort_values(cols).reset_index(drop=True)


def test_two_workers_take_the_longest_runs_first_and_the_report_is_unchanged(
    reports_dir, tmp_path, monkeypatch
):
    exp = experiment()
    alone = run_experiment(exp, progress=False)  # one worker: the given order
    orders = []
    real_execute = runner_module.execute

    def spy(tasks, n_jobs, *args):
        orders.append([t.config.label for t in tasks])
        return real_execute(tasks, 1, *args)  # the order is decided before: run them here

    monkeypatch.setattr(runner_module, "execute", spy)
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "two"))
    pooled = run_experiment(exp, n_jobs=2, progress=False)
    assert orders == [["long"] * 3 + ["short"] * 3]
    pd.testing.assert_frame_equal(without_timing(pooled), without_timing(alone))


def test_the_pool_prints_its_wall_cpu_and_idle(reports_dir, capsys, monkeypatch):
    """The line is the pool's StageTime: its CPU the sum of its runs' CPU in their workers."""
    stages, cpus = [], []
    real_write = runner_module._write_run

    def recorded(*args):
        stages.append(StageTime(*args))
        return stages[-1]

    def write(task, result, root=None):
        cpus.append(result.cpu_seconds)
        return real_write(task, result, root)

    monkeypatch.setattr(runner_module, "StageTime", recorded)
    monkeypatch.setattr(runner_module, "_write_run", write)
    run_experiment(experiment(), progress=True)
    (stage,) = stages
    assert stage.runs == len(cpus) == 6 and stage.workers == 1
    assert stage.cpu == sum(cpus) > 0.0
    assert stage.idle == max(0.0, stage.wall - stage.cpu)
    lines = [x for x in capsys.readouterr().err.splitlines() if "runs: wall" in x]
    assert lines == [f"floor: {stage.line()}"]
    assert re.fullmatch(r"6 runs: wall [\d.]+ s, CPU [\d.]+ s, idle [\d.]+ s of 1 workers × .*",
                        stage.line())  # fmt: skip


def test_stage_time_idle_is_the_workers_time_left():
    stage = StageTime(runs=4, wall=10.0, cpu=15.0, workers=2)
    assert stage.idle == 5.0
    assert (
        stage.line() == "4 runs: wall 10.0 s, CPU 15.0 s, idle 5.0 s of 2 workers × 10.0 s (25%)"
    )
    assert StageTime(4, 10.0, 15.0, None).idle is None
    assert StageTime(4, 10.0, 15.0, None).line() == "4 runs: wall 10.0 s, CPU 15.0 s"


def test_stage_time_line_names_the_optima_of_the_same_pool():
    """Optima certified in the runs' pool are counted beside the runs (their CPU is the
    stage's CPU); none: the line is the runs' alone."""
    stage = StageTime(runs=4, wall=10.0, cpu=15.0, workers=2, optima=3)
    assert stage.line().startswith("4 runs and 3 optima: wall 10.0 s, CPU 15.0 s, idle 5.0 s")
    assert StageTime(4, 10.0, 15.0, None, 0).line() == "4 runs: wall 10.0 s, CPU 15.0 s"
