"""The SYNTHETIC sparse dataset in the catalogue: loaded as CSR, labelled SYNTHETIC, and its
"beyond" experiment run by the engine on CSR (nothing densified), with a few seeds."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

from sdca_pegasos import data
from sdca_pegasos.experiments import CATALOGUE, datasets, run_experiment
from sdca_pegasos.experiments.__main__ import main
from sdca_pegasos.solvers.core import objectives

SMALL = {"seed": 1, "n_samples": 600, "n_features": 2000, "nnz_per_row": 20.0}


@pytest.fixture
def reports_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "reports"))
    return tmp_path / "reports"


def test_loader_gives_csr_labelled_synthetic():
    ds = data.load("sparse-synthetic", **SMALL)
    again = data.load("sparse-synthetic", **SMALL)
    for X, X2 in ((ds.X_train, again.X_train), (ds.X_test, again.X_test)):
        assert X.format == "csr" and X.has_canonical_format and X.dtype == np.float64
        assert (X != X2).nnz == 0  # same seed, same bits
    assert np.array_equal(ds.y_train, again.y_train) and ds.y_train.dtype == np.int64
    assert ds.X_train.shape == (450, 2000) and ds.X_test.shape == (150, 2000)
    assert "SYNTHETIC" in ds.meta["title"] and ds.meta["substitute"]
    assert "rcv1" in ds.meta["substitute_for"]
    assert data.available("sparse-synthetic") and data.registry.folder("sparse-synthetic") is None


def test_dataset_refuses_non_canonical_csr():
    X = sp.csr_matrix((np.ones(2), np.array([1, 0]), np.array([0, 2, 2])), shape=(2, 3))
    X.has_sorted_indices = False
    with pytest.raises(ValueError, match="sorted, unique indices"):
        data.Dataset(X, np.array([1, -1]), None, None)


def test_beyond_experiment_runs_on_csr(reports_dir, monkeypatch):
    """A few seeds of the catalogue experiment on a small draw: every run sees CSR (a
    densified copy would fail the test), the SDCA rows' gaps are exact duality gaps of the
    CSR problem, and every row says SYNTHETIC."""
    exp = dataclasses.replace(
        CATALOGUE["beyond_sparse_synthetic"], seeds=2, epochs=4, dataset_options=SMALL
    )

    def refuse(self, *args, **kwargs):
        raise AssertionError("densified")

    monkeypatch.setattr(sp.csr_matrix, "toarray", refuse)
    report = run_experiment(exp, progress=False)
    assert set(report["config"]) == {c.label for c in exp.configs}
    assert report.groupby("config")["seed_index"].nunique().eq(2).all()
    assert report["dataset_title"].str.contains("SYNTHETIC").all() and report["substitute"].all()
    split = datasets.load("sparse-synthetic", SMALL)
    sdca = report[(report["solver"] == "sdca") & (report["epoch"] > 0)]
    assert (sdca["gap"] >= -1e-12).all() and (sdca["primal"] >= sdca["dual"] - 1e-12).all()
    # the certificate: D(α) ≤ P* ≤ P(w) for every SDCA row, so every primal bounds every dual
    assert sdca["dual"].max() <= report.loc[report["epoch"] > 0, "primal"].min() + 1e-12
    assert split.X_train.format == "csr"
    lmbd = report["lmbd"].iloc[0]
    assert lmbd == pytest.approx(1.0 / split.n_train)
    assert objectives.primal(split.X_train, split.y_train, np.zeros(2000), lmbd) == 1.0


def test_catalogue_entry(capsys):
    exp = CATALOGUE["beyond_sparse_synthetic"]
    assert exp.seeds == 100 and exp.study == "beyond" and exp.dataset == "sparse-synthetic"
    assert {c.solver for c in exp.configs} == {"sdca", "pegasos", "asdca"}
    assert "SYNTHETIC" in exp.description
    assert main(["list", "--names", "--missing"]) == 0
    assert "beyond_sparse_synthetic" not in capsys.readouterr().out  # generated: never missing
