"""benchmarks/shrinking.py keeps working (its times are read by people, never asserted)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np


def test_shrinking_benchmark_runs_on_a_tiny_problem(capsys, monkeypatch):
    path = Path(__file__).parents[1] / "benchmarks" / "shrinking.py"
    spec = importlib.util.spec_from_file_location("shrinking_bench", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "shrinking_bench", module)  # dataclasses look it up
    spec.loader.exec_module(module)
    argv = ["--quick", "--problems", "synthetic", "--seeds", "1", "--budget", "5"]
    results = module.main([*argv, "--configs", "perm,perm+shrinking"])
    for runs in results.values():
        # the certified P* makes every target reachable on the tiny problem
        assert all(np.isfinite(runs[0].times[t]) for t in module.TARGETS)
        assert all(runs[0].fit_cpu[t] >= 0 for t in module.TARGETS)
    assert "perm+shrinking" in capsys.readouterr().out
