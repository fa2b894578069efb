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
    reports = tmp_path / "reports"
    reports.mkdir()
    monkeypatch.setenv("SVM_REPORTS_DIR", str(reports))  # nothing may be read or written there
    path = Path(__file__).parents[1] / "benchmarks" / "optima.py"
    spec = importlib.util.spec_from_file_location("optima_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bench = tmp_path / "bench"
    args = ["--regimes", "catalogue", "--experiments", "001_simulated", "--out", str(bench)]
    assert module.main(args) == 0
    out = capsys.readouterr().out
    assert "1 optima, 1 certified in budget" in out and "yes" in out
    assert not any(reports.iterdir())
    stored = pd.read_parquet(bench / "optima.parquet")
    assert list(stored["set"]) == ["catalogue"] and bool(stored["certified"].iloc[0])
    assert stored["name"].iloc[0].startswith("simulated")  # a name, not the key's hash
    assert stored["rel_gap"].iloc[0] <= 1e-10


def test_optima_benchmark_prints_method_gap_and_cpu_of_each_regime(capsys, monkeypatch, tmp_path):
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
    readme = tmp_path / "README.md"
    readme.write_text("before\n" + "\nstale\n".join(module.README_MARKERS) + "\nafter\n")
    args = ["--regimes", "targets", "--out", str(tmp_path / "bench"), "--readme", str(readme)]
    assert module.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["regime", "n"] and "IPM pred." in lines[0]
    assert lines[1].startswith("dense 300x20") and "primal-ipm+crossover" in lines[1]
    assert lines[2].startswith("CSR 400x900") and "nnz" not in lines[2]
    assert all(line.endswith("yes") for line in lines[1:3])
    text = readme.read_text()
    assert text.startswith("before\n") and text.endswith("\nafter\n") and "stale" not in text
    assert "| dense 300x20 (targets) |" in text and "| CSR 400x900 (targets) |" in text
    assert text.count("| yes |") == 2 and "NO" not in text


def _bench_optima_module():
    path = Path(__file__).parents[1] / "benchmarks" / "optima.py"
    spec = importlib.util.spec_from_file_location("optima_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_optima_readme_block_states_what_the_records_hold():
    """Every verdict and total of the README block is read from the records: a solve that
    did not certify, or certified after the budget, is never called within it."""
    module = _bench_optima_module()
    meta = {
        "date": "2026-01-02",
        "git_commit": "abcdef1234567",
        "command": "python benchmarks/optima.py",
        "loadavg_start": [0.5, 0.5, 0.5],
        "cpu_count": 2,
        "budget_seconds": 60.0,
        "target_rel_gap": 1e-10,
    }
    common = {"n": 10, "d": 3, "nnz": None, "lmbd": 0.1, "method": "m"}
    df = pd.DataFrame.from_records(
        [
            {"set": "catalogue", "name": "a", **common, "rel_gap": 1e-12,
             "certified": True, "cpu_seconds": 2.0},
            {"set": "catalogue", "name": "b", **common, "rel_gap": 3e-2,
             "certified": False, "cpu_seconds": 60.2},
            {"set": "targets", "name": "late", **common, "rel_gap": 2e-11,
             "certified": True, "cpu_seconds": 60.09},
            {"set": "targets", "name": "open", **common, "rel_gap": 1e-2,
             "certified": False, "cpu_seconds": 60.5},
            {"set": "beyond", "name": "fine", **common, "rel_gap": 4e-12,
             "certified": True, "cpu_seconds": 59.9},
        ]
    )  # fmt: skip
    text = module.readme_block(df, meta)
    assert "catalogue: 1 of 2 optima certified within the budget, 62 CPU s together" in text
    assert "largest 60.2 s, b" in text and "largest relative gap 3.0e-02" in text
    assert "| late (targets) | 0.1 | m | 2.0e-11 | 60.1 | NO (over budget) |" in text
    assert "| open (targets) | 0.1 | m | 1.0e-02 | 60.5 | NO (not certified) |" in text
    assert "| fine (beyond) | 0.1 | m | 4.0e-12 | 59.9 | yes |" in text
    assert text.startswith("Run of 2026-01-02 (git abcdef1234,")


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
    from benchmarks import lambda_path as bench
    from sdca_pegasos import data
    from sdca_pegasos.experiments import datasets
    from tests.conftest import gaussian_problem

    X, y = gaussian_problem(n=60, d=5, seed=2)
    labels = np.where(y > 0, 1, -1).astype(np.int64)
    datasets.register("tiny-path", lambda: data.Dataset(X, labels, None, None, {"name": "t"}))
    monkeypatch.setitem(bench.DATASETS, "tiny", ("tiny", "tiny-path", {}))
    readme = tmp_path / "README.md"
    readme.write_text("a\n" + "\nSTALE\n".join(bench.README_MARKERS) + "\nb\n")
    argv = [
        "--datasets",
        "tiny",
        "--repeats",
        "1",
        "--out",
        str(tmp_path),
        "--readme",
        str(readme),
    ]
    table = bench.main(argv)
    rows = pd.read_parquet(tmp_path / "lambda_path.parquet")
    assert rows["reached"].all() and (rows["rel_gap"] <= 1e-6).all()
    from sdca_pegasos.experiments.features import PATH_CONFIGS

    assert set(rows["config"]) == set(PATH_CONFIGS) and set(rows["mode"]) == {"warm", "cold"}
    assert len(rows) == len(PATH_CONFIGS) * 2 * 5  # configs × modes × λ
    for r in table.to_dict("records"):
        mine = rows[(rows.config == r["config"]) & (rows["mode"] == "warm")]
        assert r["warm CPU s"] == pytest.approx(mine.cpu_seconds.sum())
        assert r["warm epochs CPU s"] == pytest.approx(mine.update_seconds.sum())
        assert 0.0 < r["warm epochs CPU s"] < r["warm CPU s"]  # the epochs are part of a fit
    stored = (tmp_path / "lambda_path.md").read_text()
    assert "warm / cold" in stored
    text = readme.read_text()  # the block holds the stored table, nothing else changed
    assert text.startswith("a\n") and text.endswith("\nb\n") and "STALE" not in text
    assert stored.rstrip() in text and "`python benchmarks/lambda_path.py --datasets tiny" in text


def test_a_readme_block_names_a_dirty_checkout():
    """A run of a checkout with uncommitted changes says so where the README names its
    commit (ten digits would cut the "-dirty" of experiments.reports.git_commit)."""
    from sdca_pegasos.experiments.reports import short_commit

    assert short_commit("0123456789abcdef-dirty") == "0123456789-dirty"
    assert short_commit("0123456789abcdef") == "0123456789"
    assert short_commit("unknown") == "unknown"
