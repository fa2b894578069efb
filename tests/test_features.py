"""sdca_pegasos.experiments.features: the warm λ path and the class-weight comparison, as
reports."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sdca_pegasos import data
from sdca_pegasos.experiments import datasets, features
from sdca_pegasos.figures import beyond_features
from tests.conftest import gaussian_problem


@pytest.fixture
def tiny(monkeypatch):
    X, y = gaussian_problem(n=80, d=4, seed=3)
    labels = np.where(y > 0, 1, -1).astype(np.int64)
    labels[:50] = -1  # unbalanced, for class_weight="balanced"
    datasets.register("tiny-features", lambda: data.Dataset(X, labels, X, labels, {"name": "t"}))
    monkeypatch.setattr(features, "PATH_DATASETS", {"tiny": ("tiny-features", {})})
    return X, labels


def test_path_rows_certify_every_lmbd_warm_and_cold(tiny):
    rows = features.path_rows("tiny", "tiny-features", {}, repeats=1)
    assert set(rows["mode"]) == {"warm", "cold"} and set(rows["config"]) == set(
        features.PATH_CONFIGS
    )
    assert rows["reached"].all() and (rows["rel_gap"] <= features.PATH_REL_GAP).all()
    assert rows.groupby(["config", "mode"]).size().eq(len(features.BLOOD_LAMBDAS)).all()


def test_class_weight_rows_bound_the_suboptimality_by_a_certified_dual(tiny):
    X, y = tiny
    rows = features.class_weight_rows(X, y, X, y, seeds=2, epochs=30)
    assert set(rows["config"]) == {label for label, _, _ in features.SKIN_CONFIGS}
    assert (rows["suboptimality"] >= -1e-12).all()  # P(w) >= D: the bound is certified
    last = rows[rows["epoch"] == 30].groupby("config")
    sdca = last.get_group("SDCA-Perm, balanced")
    assert (sdca["suboptimality"] <= 1e-2).all()  # 30 epochs at 1/n: SDCA converges
    # the weighted objective is another problem: its own lower bound
    lower = rows.groupby("class_weight")["p_star_lower"].unique()
    assert lower["none"][0] != lower["balanced"][0]
    balanced = rows.groupby("config")["test_error_balanced"].last()
    assert balanced["SDCA-Perm, balanced"] <= balanced["SDCA-Perm"] + 1e-12


def test_ensure_writes_once_and_rebuilds_when_the_definition_changes(tiny, tmp_path, monkeypatch):
    monkeypatch.setattr(features, "BLOOD_LAMBDAS", (1.0, 0.1))
    logged = []
    (path,) = features.ensure((features.PATH_REPORT,), repeats=1, root=tmp_path, log=logged.append)
    first = path.stat().st_mtime_ns
    assert features.is_current(features.PATH_REPORT, 5, 1, tmp_path)
    features.ensure((features.PATH_REPORT,), repeats=1, root=tmp_path, log=logged.append)
    assert path.stat().st_mtime_ns == first and "current" in logged[-1]
    assert not features.is_current(features.PATH_REPORT, 5, 2, tmp_path)  # repeats changed
    monkeypatch.setattr(features, "PATH_REL_GAP", 1e-5)
    assert not features.is_current(features.PATH_REPORT, 5, 1, tmp_path)


# ---------------------------------------------------------------- figures.beyond_features
def _path_frame():
    """Two configs, warm and cold, two repeats, two λ, with planted numbers."""
    rows = []
    for config, scale in (("SDCA", 1.0), ("SDCA + shrinking", 0.1)):
        for mode, factor in (("warm", 0.5), ("cold", 1.0)):
            for repeat in range(3):
                for lmbd, label, base in ((1.0, "1.0", 2.0), (0.01, "0.01", 10.0)):
                    rows.append(
                        {
                            "dataset": "tiny",
                            "config": config,
                            "mode": mode,
                            "repeat": repeat,
                            "lmbd": lmbd,
                            "lmbd_label": label,
                            "n_train": 80,
                            "epochs": int(base * factor * 10) + repeat,
                            "cpu_seconds": scale * factor * base * (1 + repeat),
                            "update_seconds": 0.0,
                            "rel_gap": 1e-7,
                            "reached": not (config == "SDCA" and mode == "cold" and lmbd < 1),
                        }
                    )
    return pd.DataFrame(rows)


def test_path_summary_medians_ratios_and_certified_flag():
    summary = beyond_features.path_summary(_path_frame()).set_index(["config", "lmbd_label"])
    row = summary.loc[("SDCA", "0.01")]
    # repeats cost 1×, 2×, 3× the base: the median is the middle one
    assert row["cpu_warm"] == pytest.approx(0.5 * 10.0 * 2) and row["cpu_cold"] == 20.0
    assert row["ratio"] == pytest.approx(0.5) and row["epochs_warm"] == 51
    assert not row["certified"]  # one cold fit missed the gap: said, not hidden
    assert summary.loc[("SDCA", "1.0"), "certified"]
    whole = summary.loc[("SDCA + shrinking", "whole path")]
    # per repeat r the path costs 0.1 × factor × 12 × (1 + r); median over r: r = 1
    assert whole["cpu_warm"] == pytest.approx(0.1 * 0.5 * 12 * 2)
    assert whole["cpu_cold"] == pytest.approx(0.1 * 1.0 * 12 * 2)
    assert whole["certified"] and not summary.loc[("SDCA", "whole path"), "certified"]


def test_skin_summary_reads_the_first_and_last_epoch(tiny):
    X, y = tiny
    rows = features.class_weight_rows(X, y, X, y, seeds=3, epochs=4)
    summary = beyond_features.skin_summary(rows)
    assert list(summary["at"]) == ["first", "last"] * len(features.SKIN_CONFIGS)
    for _, s in summary.iterrows():
        at = rows[(rows["config"] == s["config"]) & (rows["epoch"] == s["epoch"])]
        assert s["test_error_balanced_median"] == at["test_error_balanced"].median()
        assert s["suboptimality_max"] == at["suboptimality"].max()
        assert s["seeds"] == 3


def test_build_draws_what_is_present_and_names_what_is_missing(tiny, tmp_path):
    X, y = tiny
    reports_dir, out = tmp_path / "reports", tmp_path / "out"
    with pytest.raises(FileNotFoundError, match="make features"):
        beyond_features.build(reports_dir, out, log=lambda _: None)
    assert beyond_features.main(["--reports", str(reports_dir), "--out", str(out)]) == 2
    reports_dir.mkdir()
    rows = features.class_weight_rows(X, y, X, y, seeds=2, epochs=3)
    rows.to_parquet(reports_dir / f"{features.SKIN_REPORT}.parquet")
    logged = []
    paths = beyond_features.build(reports_dir, out, log=logged.append)
    names = {p.name for p in paths}
    assert {"beyond_features_skin.md", "beyond_features_skin_curves.png"} <= names
    assert all(p.stat().st_size > 0 for p in paths)
    assert len(logged) == 1 and features.PATH_REPORT in logged[0] and "make features" in logged[0]
    _path_frame().to_parquet(reports_dir / f"{features.PATH_REPORT}.parquet")
    paths = beyond_features.build(reports_dir, out, log=logged.append)
    table = (out / "beyond_features_path.md").read_text()
    assert "| tiny | SDCA | 0.01 |" in table and "| NO |" in table
