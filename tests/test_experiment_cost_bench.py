"""benchmarks/experiment_cost.py: a run's CPU split into its parts, the record's table, and
the block of docs/measurements.md made from the committed record."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks import experiment_cost as bench
from sdca_pegasos.experiments.catalogue import CATALOGUE
from sdca_pegasos.experiments.runner import RunTask, run_one
from sdca_pegasos.experiments.spec import Config, Experiment

from .generated import regenerated

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "measurements.md"


def record() -> dict:
    return json.loads((ROOT / bench.README_RECORD).read_text())


def test_the_block_is_generated_from_the_committed_record(tmp_path):
    """docs/measurements.md's block is the record's, regenerated here (an edit by hand, or a
    record committed without `--readme`, fails)."""
    text = regenerated(bench.main, "docs/measurements.md", [bench.README_RECORD], tmp_path)
    assert bench.readme_block(record()) in text


def test_the_table_adds_up_the_record():
    """Each experiment's row is its configurations' mean run, by part, times their runs;
    the last row their sums; the sentence's shares and seconds those of the sums."""
    rec = record()
    text = bench.readme_block(rec)
    sums = dict.fromkeys(bench.PARTS, 0.0)
    for name, exp in rec["experiments"].items():
        for part in bench.PARTS:
            stage = sum(c[part] * c["runs"] for c in exp["configs"].values())
            assert stage == pytest.approx(exp["stage"][part], rel=1e-12)
            sums[part] += stage
        cells = " | ".join(f"{exp['stage'][p]:.0f}" for p in bench.PARTS)
        assert f"| {name} | {cells} |" in text
    total = sum(sums.values())
    assert f"| **all** | **{sums['timed']:.0f}** |" in text
    assert f"Monitoring is {sums['monitoring'] / total:.0%} of the runs' CPU" in text
    cores = rec["machine"]["cpus"]
    assert f"about {total / cores:.0f} s of wall" in text
    floor = (sums["timed"] + sums["monitoring"]) / sums["timed"]
    assert f"The monitoring alone is {sums['monitoring'] / sums['timed']:.2f}× the timed" in text
    assert f"the runs' CPU would still be {floor:.2f}× them." in text
    for name, exp in rec["experiments"].items():  # the catalogue's runs, not the profile's
        seeds = {c.label: CATALOGUE[name].config_seeds(c) for c in CATALOGUE[name].configs}
        assert {label: c["runs"] for label, c in exp["configs"].items()} == seeds


def test_a_runs_parts_add_up_to_its_cpu_and_its_timed_part_is_the_reports(monkeypatch):
    """profile_run: timed = the report's last cpu_time_cum (the whole run's timed loops,
    not its last epoch's), monitoring > 0 (each recorded epoch made one EpochMetrics pass),
    other ≥ 0 up to the clock's resolution, and the run's CPU measured around it at least
    their sum; the stopwatch leaves EpochMetrics as it found it."""
    import time

    from sdca_pegasos.experiments import runner
    from sdca_pegasos.solvers.core.monitoring import EpochMetrics

    exp = Experiment(
        name="cost_probe",
        study="001",
        dataset="simulated",
        lmbd=1e-3,
        epochs=3,
        configs=(Config("SDCA perm", "sdca", {"sampling": "permutation"}),),
        seeds=1,
    )
    task = RunTask(exp, exp.configs[0], 0)
    seen = []
    monkeypatch.setattr(runner, "run_one", lambda t: seen.append(run_one(t)) or seen[-1])
    original = EpochMetrics.__call__
    start = time.process_time()
    parts = bench.profile_run(task)
    outer = time.process_time() - start
    assert EpochMetrics.__call__ is original
    rows = seen[0].rows
    assert parts["timed"] == rows["cpu_time_cum"].iloc[-1] > rows["cpu_time"].iloc[-1]
    assert parts["rows"] == len(rows) == 4  # epoch 0 and three epochs
    assert parts["monitoring"] > 0.0 and parts["other"] > -1e-3
    assert outer >= parts["timed"] + parts["monitoring"] + parts["other"] - 1e-3


def test_the_sentence_names_the_load_and_the_command():
    rec = record()
    text = bench.readme_block(rec)
    assert re.search(r"load \d+\.\d at the start", text)
    assert f"`{rec['command']}`" in text
