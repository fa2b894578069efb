"""The benchmark script keeps working (its numbers are read by people, never asserted here)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.problems import make_sparse_rows


def test_epoch_cost_benchmark_runs_on_a_tiny_problem(capsys, monkeypatch):
    path = Path(__file__).parents[1] / "benchmarks" / "epoch_cost.py"
    spec = importlib.util.spec_from_file_location("epoch_cost", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "epoch_cost", module)  # dataclasses look themselves up
    spec.loader.exec_module(module)
    tiny = ["--epochs", "3", "--repeats", "1", "--sparse-n", "64", "--sparse-d", "50"]
    rows = module.main(["--n", "64", "--d", "16", *tiny, "--sparse-nnz", "5"])
    names = [row.name for row in rows]
    assert {"SDCA-Perm, hinge", "CSR SDCA-Perm, hinge"} <= set(names)
    assert len(set(names)) == len(names)
    assert all(row.seconds >= 0 for row in rows)
    out = capsys.readouterr().out
    assert "one-pass bound" in out
    assert "Sparse SDCA-Perm epoch / one X @ v pass:" in out and "Peak allocation" in out


def test_sparse_benchmark_problem_has_exact_row_counts():
    X, y = make_sparse_rows(200, 30, 12, seed=1)
    assert X.format == "csr" and X.has_canonical_format
    assert (X.getnnz(axis=1) == 12).all() and set(y) == {-1.0, 1.0}


def test_optima_benchmark_certifies_the_simulated_experiment(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path))  # nothing may be read or written there
    path = Path(__file__).parents[1] / "benchmarks" / "optima.py"
    spec = importlib.util.spec_from_file_location("optima_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--regimes", "catalogue", "--experiments", "001_simulated"]) == 0
    out = capsys.readouterr().out
    assert "1 optima, 1 certified in budget" in out and "yes" in out
    assert not any(tmp_path.iterdir())


def test_optima_benchmark_prints_method_gap_and_cpu_of_each_regime(capsys, monkeypatch):
    """The target regimes' lines (the real ones are minutes of CPU: a small stand-in)."""
    path = Path(__file__).parents[1] / "benchmarks" / "optima.py"
    spec = importlib.util.spec_from_file_location("optima_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    small = [
        ("dense 300x20", "dense", {"n": 300, "d": 20}, "1/n"),
        ("CSR 400x900", "rows", {"n": 400, "d": 900, "nnz": 5}, 1e-3),
    ]
    monkeypatch.setitem(module.TARGETS, "targets", small)
    assert module.main(["--regimes", "targets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["regime", "n"] and "IPM pred." in lines[0]
    assert lines[1].startswith("dense 300x20") and "primal-ipm+crossover" in lines[1]
    assert lines[2].startswith("CSR 400x900") and "nnz" not in lines[2]
    assert all(line.endswith("yes") for line in lines[1:])


def test_a_benchmark_script_imports_this_checkout_from_any_folder(tmp_path):
    """``python benchmarks/optima.py`` puts the repository root first on ``sys.path``: it runs
    this checkout's packages (``cmdline`` included, which an older install may not have)
    wherever it is started from, and a bad value is argparse's one line with status 2."""
    script = Path(__file__).parents[1] / "benchmarks" / "optima.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--n-jobs", "0"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "optima.py: error: argument --n-jobs: expected an integer >= 1, got 0"
    )


def test_lambda_path_benchmark_compares_warm_and_cold_on_a_tiny_problem(monkeypatch, tmp_path):
    """The path benchmark on a registered 60-sample problem: every λ certified, warm and
    cold alike, and its table reads the totals of its own rows."""
    import data
    from benchmarks import lambda_path as bench
    from experiments import datasets
    from tests.conftest import gaussian_problem

    X, y = gaussian_problem(n=60, d=5, seed=2)
    labels = np.where(y > 0, 1, -1).astype(np.int64)
    datasets.register("tiny-path", lambda: data.Dataset(X, labels, None, None, {"name": "t"}))
    monkeypatch.setitem(bench.DATASETS, "tiny", ("tiny", "tiny-path", {}))
    table = bench.main(["--datasets", "tiny", "--repeats", "1", "--out", str(tmp_path)])
    rows = pd.read_parquet(tmp_path / "lambda_path.parquet")
    assert rows["reached"].all() and (rows["rel_gap"] <= 1e-6).all()
    assert set(rows["mode"]) == {"warm", "cold"} and len(rows) == 2 * 2 * 5
    for r in table.itertuples(index=False):
        mine = rows[(rows.config == r.config) & (rows["mode"] == "warm")]
        assert r[2] == pytest.approx(mine.cpu_seconds.sum())
    assert "warm / cold" in (tmp_path / "lambda_path.md").read_text()
