"""The benchmark script keeps working (its numbers are read by people, never asserted here)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def test_epoch_cost_benchmark_runs_on_a_tiny_problem(capsys, monkeypatch):
    path = Path(__file__).parents[1] / "benchmarks" / "epoch_cost.py"
    spec = importlib.util.spec_from_file_location("epoch_cost", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "epoch_cost", module)  # dataclasses look themselves up
    spec.loader.exec_module(module)
    rows = module.main(["--n", "64", "--d", "16", "--epochs", "3", "--repeats", "1"])
    names = [row.name for row in rows]
    assert "SDCA-Perm, hinge" in names and len(set(names)) == len(names)
    assert all(row.seconds >= 0 for row in rows)
    assert "one-pass bound" in capsys.readouterr().out


def test_optima_benchmark_certifies_the_simulated_experiment(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path))  # nothing may be read or written there
    path = Path(__file__).parents[1] / "benchmarks" / "optima.py"
    spec = importlib.util.spec_from_file_location("optima_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--experiments", "001_simulated"]) == 0
    out = capsys.readouterr().out
    assert "1 optima, 1 certified in budget" in out and "yes" in out
    assert not any(tmp_path.iterdir())
