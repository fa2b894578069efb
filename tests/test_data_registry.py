"""The dataset registry (data.registry): the one list every package reads for names,
loaders and availability."""

from __future__ import annotations

import numpy as np
import pytest

from sdca_pegasos import data
from sdca_pegasos.data import fetch, registry
from sdca_pegasos.experiments import datasets
from sdca_pegasos.experiments.catalogue import CATALOGUE


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Empty raw and cache roots, no mirror, and a registry restored after the test."""
    monkeypatch.setenv("SVM_DATA_DIR", str(tmp_path / "raw"))
    monkeypatch.setenv("SVM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DATA_MIRROR", raising=False)
    monkeypatch.setattr(registry, "DATASETS", dict(registry.DATASETS))
    yield
    datasets.load.cache_clear()


def test_every_catalogue_dataset_is_in_the_registry():
    assert {e.dataset for e in CATALOGUE.values()} <= set(registry.names())


def test_every_folder_is_a_fetch_source_and_every_loader_resolves():
    for entry in registry.DATASETS.values():
        assert entry.folder is None or entry.folder in fetch.SOURCES, entry.name
        assert callable(entry.load_function()), entry.name


def test_generated_data_is_available_and_fetched_data_is_not_here():
    assert data.available("simulated") and data.available("sparse-synthetic")
    assert not data.available("skin") and not data.available("blood")
    assert not data.available("blood-cells")  # a raw folder is answered too
    assert registry.folder("blood") == registry.folder("blood-cells") == "blood-cells"
    with pytest.raises(data.DataMissingError, match=r"python -m sdca_pegasos.data fetch skin"):
        data.load("skin")


def test_unknown_names_list_the_known_ones():
    with pytest.raises(ValueError, match="unknown dataset 'mnist'; known: simulated, skin"):
        data.load("mnist")
    with pytest.raises(ValueError, match="unknown dataset"):
        data.available("mnist")


def test_a_registered_dataset_reaches_data_and_the_engine():
    """The README's example: one data.register call, then data.load and the experiments."""
    rng = np.random.default_rng(0)
    X, Xt = rng.standard_normal((20, 3)), rng.standard_normal((8, 3))
    y, yt = np.repeat([-1, 1], 10), np.repeat([-1, 1], 4)

    def load_toy(scale=1.0):
        return data.Dataset(X * scale, y, Xt * scale, yt, {"title": "toy"})

    data.register("toy", load_toy)
    assert "toy" in registry.names() and data.available("toy")
    assert np.array_equal(data.load("toy", scale=2.0).X_train, 2 * X)
    ds = datasets.load("toy", {"scale": 2.0})
    assert isinstance(ds, data.Dataset) and ds.n_train == 20
    assert np.array_equal(ds.X_train, 2 * X) and np.array_equal(ds.y_train, y)
    assert ds.meta["title"] == "toy"
    assert datasets.load("toy", {"scale": 2.0}) is ds  # loaded once per process


def test_engine_register_is_the_same_registry():
    ds = data.Dataset(np.ones((4, 2)), np.array([1, -1, 1, -1]), None, None, {})
    datasets.register("engine-toy", lambda **options: ds)
    assert registry.entry("engine-toy").folder is None
    assert datasets.load("engine-toy") is ds


def test_engine_refuses_a_loader_that_returns_no_dataset():
    datasets.register("tuple-toy", lambda **options: (np.ones((4, 2)), np.ones(4)))
    with pytest.raises(TypeError, match=r"'tuple-toy' returned a tuple; return a data\.Dataset"):
        datasets.load("tuple-toy")


def test_true_coef_is_beta_in_the_space_of_the_features():
    """Simulated data is standardised: the fitted coef_ lives where beta_standardised does;
    without that entry, beta's own space is X's."""
    sim = data.load("simulated")
    assert np.array_equal(sim.true_coef, sim.meta["beta_standardised"])
    assert not np.array_equal(sim.true_coef, sim.beta)
    raw = data.Dataset(np.ones((2, 2)), np.array([1, -1]), None, None, {}, beta=np.ones(2))
    assert raw.true_coef is raw.beta
    assert data.Dataset(np.ones((2, 2)), np.array([1, -1]), None, None).true_coef is None
