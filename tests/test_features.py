"""experiments.features: the warm λ path and the class-weight comparison, as reports."""

from __future__ import annotations

import numpy as np
import pytest

import data
from experiments import datasets, features
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
