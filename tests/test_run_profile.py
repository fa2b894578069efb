"""tools/run_profile.py: one profiled run of each configuration of an experiment, after one
unmeasured run of each solver."""

from __future__ import annotations

import pstats

import pytest

from sdca_pegasos.experiments import runner
from sdca_pegasos.experiments.catalogue import CATALOGUE
from tools import run_profile


def test_each_configuration_runs_once_profiled_after_one_warm_run_per_solver(monkeypatch):
    exp = CATALOGUE["001_simulated_seeded"]
    seen = []

    def fake_run_one(task):
        seen.append((task.config.label, task.seed_index))

    monkeypatch.setattr(runner, "run_one", fake_run_one)
    prof = run_profile.profile("001_simulated_seeded", seed=3)
    solvers = list(dict.fromkeys(cfg.solver for cfg in exp.configs))
    warm = [next(c.label for c in exp.configs if c.solver == s) for s in solvers]
    assert seen == [(label, 3) for label in warm] + [(c.label, 3) for c in exp.configs]
    calls = {f[2]: v[1] for f, v in pstats.Stats(prof).stats.items()}
    assert calls["fake_run_one"] == len(exp.configs)  # only the measured runs are profiled


def test_an_unknown_experiment_is_named_with_the_choices():
    with pytest.raises(SystemExit, match="no experiment 'nope': choose from 000_blood_pca40"):
        run_profile.profile("nope")
