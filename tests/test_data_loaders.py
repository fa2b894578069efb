"""Loaders (data.load): simulated, skin, genomic; Dataset contract; missing-data errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sdca_pegasos import data
from sdca_pegasos.data import dataset, fetch, genomic, simulated, skin
from sdca_pegasos.data.errors import DataError, DataMissingError

try:
    from data_fixtures import requires_mirror, use_real
except ImportError:  # tests/ imported as a package
    from tests.data_fixtures import requires_mirror, use_real


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Raw and cache roots in tmp (empty); no mirror from the environment."""
    monkeypatch.setenv("SVM_DATA_DIR", str(tmp_path / "raw"))
    monkeypatch.setenv("SVM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DATA_MIRROR", raising=False)


def _sign(v: np.ndarray) -> np.ndarray:
    return np.where(v >= 0, 1, -1)


# ----------------------------------------------------------------------------- simulated


def test_simulated_shapes_types_and_contract():
    ds = data.load("simulated")
    assert ds.X_train.shape == (670, 10) and ds.X_test.shape == (330, 10)  # ceil(0.33 · 1000)
    assert ds.X_train.dtype == np.float64 and ds.X_train.flags.c_contiguous
    assert ds.y_train.dtype == np.int64 and set(np.unique(ds.y_train)) == {-1, 1}
    assert ds.beta.shape == (10,)
    m = ds.meta
    assert (m["n_train"], m["n_test"], m["n_features"]) == (670, 330, 10)
    assert m["name"] == "simulated" and m["standardised"] and not m["substitute"]
    assert m["substitute_for"] is None and set(m["classes"]) == {-1, 1}
    assert any("TRAIN" in note for note in m["notes"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.X_train = None


def test_simulated_is_determined_by_the_seed():
    a, b, c = (
        data.load("simulated", seed=3),
        data.load("simulated", seed=3),
        data.load("simulated"),
    )
    for field in ("X_train", "y_train", "X_test", "y_test", "beta"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert not np.array_equal(a.beta, c.beta)


def test_simulated_golden_values_pin_the_random_stream():
    # numpy's PCG64 stream for default_rng(0): an upgrade that changes it must fail loudly.
    sim = simulated.simulate(seed=0)
    np.testing.assert_allclose(sim.X[0, :3], [0.12573022, -0.13210486, 0.64042265], atol=1e-8)
    np.testing.assert_allclose(sim.beta[:3], [0.48940762, -1.33654639, -1.11383088], atol=1e-8)
    assert sim.test_index[:6].tolist() == [2, 3, 5, 7, 9, 17]
    assert sim.y[:12].tolist() == [1, -1, -1, -1, -1, 1, 1, -1, -1, 1, 1, 1]


def test_simulated_train_is_standardised_with_train_statistics():
    ds = data.load("simulated")
    np.testing.assert_allclose(ds.X_train.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(ds.X_train.std(axis=0), 1.0, rtol=1e-12)
    # the test rows use the train statistics, so they are not exactly standardised
    assert np.abs(ds.X_test.mean(axis=0)).max() > 1e-6


def test_simulated_labels_are_sign_of_x_beta_plus_noise_in_raw_space():
    seed = 5
    ds = data.load("simulated", seed=seed)
    sim = simulated.simulate(seed=seed)
    m = ds.meta
    X_train_raw = ds.X_train * m["feature_scale"] + m["feature_mean"]
    X_test_raw = ds.X_test * m["feature_scale"] + m["feature_mean"]
    np.testing.assert_allclose(X_train_raw, sim.X[sim.train_index], atol=1e-12)
    np.testing.assert_allclose(X_test_raw, sim.X[sim.test_index], atol=1e-12)
    assert np.array_equal(ds.beta, sim.beta)
    noise = sim.noise
    assert np.array_equal(ds.y_train, _sign(X_train_raw @ ds.beta + noise[sim.train_index]))
    assert np.array_equal(ds.y_test, _sign(X_test_raw @ ds.beta + noise[sim.test_index]))
    # the noise matters: it flips some labels relative to sign(X beta)
    assert np.any(ds.y_train != _sign(X_train_raw @ ds.beta))
    acc = np.mean(_sign(X_test_raw @ ds.beta) == ds.y_test)
    assert m["beta_test_accuracy"] == pytest.approx(acc)
    # beta_standardised gives the same scores on standardised features, up to a constant
    diff = ds.X_train @ m["beta_standardised"] - X_train_raw @ ds.beta
    np.testing.assert_allclose(diff, diff[0], atol=1e-10)


def test_simulated_split_is_a_partition():
    sim = simulated.simulate(seed=1)
    both = np.concatenate([sim.train_index, sim.test_index])
    assert np.array_equal(np.sort(both), np.arange(1000))
    assert len(sim.test_index) == 330


def test_unstandardised_simulated_is_raw():
    ds = data.load("simulated", standardise=False, seed=2)
    sim = simulated.simulate(seed=2)
    assert np.array_equal(ds.X_train, sim.X[sim.train_index])
    assert not ds.meta["standardised"]


# ----------------------------------------------------------------------------- contract


def test_dataset_rejects_bad_arrays():
    X, y = np.zeros((3, 2)), np.array([1, -1, 1], dtype=np.int64)
    data.Dataset(X, y, None, None, {})
    with pytest.raises(ValueError, match="-1 and \\+1"):
        data.Dataset(X, np.array([0, 1, 1], dtype=np.int64), None, None, {})
    with pytest.raises(ValueError, match="C-contiguous"):
        data.Dataset(np.asfortranarray(np.zeros((3, 2))), y, None, None, {})
    with pytest.raises(ValueError, match="int64"):
        data.Dataset(X, y.astype(np.int32), None, None, {})
    with pytest.raises(ValueError, match="both"):
        data.Dataset(X, y, X, None, {})
    with pytest.raises(ValueError, match="features"):
        data.Dataset(X, y, np.zeros((3, 5)), y, {})


def test_standardise_uses_train_statistics_and_handles_constant_features():
    Xtr = np.array([[1.0, 5.0], [3.0, 5.0]])
    Xte = np.array([[5.0, 6.0]])
    a, b, mean, scale = dataset.standardise_features(Xtr, Xte)
    np.testing.assert_array_equal(mean, [2.0, 5.0])
    np.testing.assert_array_equal(scale, [1.0, 1.0])  # constant column: scale 1
    np.testing.assert_array_equal(a, [[-1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(b, [[3.0, 1.0]])


def test_unknown_names_are_errors():
    with pytest.raises(ValueError, match="unknown dataset"):
        data.load("mnist")
    with pytest.raises(ValueError, match="variant"):
        data.load("genomic", variant="nope")


# ----------------------------------------------------------------------------- missing data


@pytest.mark.parametrize(
    "name, kwargs, file, command",
    [
        ("skin", {}, "Skin_NonSkin.txt", "python -m sdca_pegasos.data fetch skin"),
        ("genomic", {}, "data/", "python -m sdca_pegasos.data fetch genomic"),
        ("genomic", {"variant": "gordon"}, "data/", "python -m sdca_pegasos.data fetch genomic"),
        ("blood", {}, "dataset2-master/images/", "python -m sdca_pegasos.data fetch blood-cells"),
    ],
)
def test_missing_raw_data_names_the_file_and_the_fix(name, kwargs, file, command):
    with pytest.raises(DataMissingError) as info:
        data.load(name, **kwargs)
    msg = str(info.value)
    assert str(data.raw_root()) in msg and file in msg
    assert command in msg and "make data" in msg


def test_missing_original_genomic_data_says_where_to_get_it():
    with pytest.raises(DataMissingError) as info:
        data.load("genomic", variant="original")
    msg = str(info.value)
    assert "xtrain.txt" in msg and "AishaAlaagib/breast_cancer_relapse" in msg
    assert "python -m sdca_pegasos.data fetch genomic-original" in msg


def test_unverified_file_is_not_loaded(tmp_path):
    # present but never verified (no manifest, no marker): still an error, not a silent read
    path = data.raw_root() / "skin" / "Skin_NonSkin.txt"
    path.parent.mkdir(parents=True)
    path.write_text("1\t2\t3\t1\r\n")
    with pytest.raises(DataMissingError, match="not verified"):
        data.load("skin")


# ----------------------------------------------------------------------------- parsers


def test_read_skin_parses_crlf_without_final_newline(tmp_path):
    path = tmp_path / "skin.txt"
    path.write_bytes(b"74\t85\t123\t1\r\n73\t84\t122\t1\r\n10\t20\t30\t2")
    X, y = skin.read_skin(path)
    np.testing.assert_array_equal(X, [[74, 85, 123], [73, 84, 122], [10, 20, 30]])
    assert X.dtype == np.float64
    np.testing.assert_array_equal(y, [1, 1, -1])
    path.write_bytes(b"1\t2\t3\t3\r\n")
    with pytest.raises(DataError, match="labels"):
        skin.read_skin(path)


def _write_original(folder, genes=3, samples=4):
    rng = np.random.default_rng(0)
    values = rng.normal(7.0, 2.0, (genes, samples)).round(2)
    lines = [f"x{g}_at\t" + "\t".join(f"{v:.2f}" for v in values[g]) for g in range(genes)]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "xtrain.txt").write_text("\n".join(lines) + "\n")
    labels = np.array([1, -1, -1, 1][:samples])
    (folder / "ytrain.txt").write_text("\n".join(str(v) for v in labels) + "\n")
    return values, labels


def test_read_genomic_original_transposes_genes_by_samples(tmp_path):
    values, labels = _write_original(tmp_path)
    X, y, genes = genomic.read_genomic_original(tmp_path / "xtrain.txt", tmp_path / "ytrain.txt")
    np.testing.assert_allclose(X, values.T)
    np.testing.assert_array_equal(y, labels)
    assert genes == ["x0_at", "x1_at", "x2_at"]
    (tmp_path / "ytrain.txt").write_text("1\n-1\n")
    with pytest.raises(DataError, match="labels"):
        genomic.read_genomic_original(tmp_path / "xtrain.txt", tmp_path / "ytrain.txt")


def test_load_original_genomic_when_present_and_verified(tmp_path, monkeypatch):
    folder = data.raw_root() / "genomic-original"
    _, labels = _write_original(folder)
    sums = tmp_path / "original.gitblob"
    sums.write_text(
        "".join(
            f"{fetch.file_digest(folder / f, 'gitblob')}  {f}\n"
            for f in ("xtrain.txt", "ytrain.txt")
        )
    )
    src = dataclasses.replace(fetch.SOURCES["genomic-original"], checksum_file=sums)
    monkeypatch.setitem(fetch.SOURCES, "genomic-original", src)
    assert fetch.fetch("genomic-original", mirror=None, progress=False).verified_in_place == 2
    ds = data.load("genomic", variant="original")
    assert ds.X_train.shape == (4, 3) and ds.X_test is None and ds.y_test is None
    np.testing.assert_array_equal(ds.y_train, labels)
    assert not ds.meta["substitute"] and ds.meta["variant"] == "original"
    np.testing.assert_allclose(ds.X_train.mean(axis=0), 0.0, atol=1e-12)


# ----------------------------------------------------------------------------- real data


@pytest.mark.real_data
@requires_mirror
def test_real_skin(tmp_path_factory, monkeypatch):
    use_real("skin", tmp_path_factory, monkeypatch)
    ds = data.load("skin")
    assert ds.X_train.shape == (245_057, 3) and ds.X_test is None
    assert int(np.sum(ds.y_train == 1)) == 50_859
    # sorted by class and NOT shuffled: every skin row first
    assert np.all(ds.y_train[:50_859] == 1) and np.all(ds.y_train[50_859:] == -1)
    assert any("sorted by class" in note for note in ds.meta["notes"])
    np.testing.assert_allclose(ds.X_train.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(ds.X_train.std(axis=0), 1.0, rtol=1e-10)
    assert ds.meta["classes"][1].startswith("skin") and not ds.meta["substitute"]

    split = data.load("skin", test_size=0.2, seed=1)
    n_test = split.X_test.shape[0]
    assert split.X_train.shape[0] + n_test == 245_057
    assert n_test == pytest.approx(0.2 * 245_057, abs=1)
    for y in (split.y_train, split.y_test):  # stratified, and each part keeps file order
        assert np.mean(y == 1) == pytest.approx(50_859 / 245_057, abs=1e-4)
        assert np.all(np.diff(y) <= 0)
    again = data.load("skin", test_size=0.2, seed=1)
    assert np.array_equal(split.X_test, again.X_test)


@pytest.mark.real_data
@requires_mirror
def test_real_genomic_substitutes(tmp_path_factory, monkeypatch):
    use_real("genomic", tmp_path_factory, monkeypatch)
    gravier = data.load("genomic")
    assert gravier.X_train.shape == (168, 2905) and gravier.X_test is None
    assert int(np.sum(gravier.y_train == 1)) == 57
    assert gravier.meta["substitute"] and gravier.meta["substitute_for"]
    title = gravier.meta["title"]
    assert "substitute" in title and "Gravier" in title and "not the study's data" in title
    np.testing.assert_allclose(gravier.X_train.mean(axis=0), 0.0, atol=1e-10)

    gordon = data.load("genomic", variant="gordon")
    assert gordon.X_train.shape == (181, 12_533)
    assert int(np.sum(gordon.y_train == 1)) == 31
    assert gordon.meta["classes"][1] == "mesothelioma"
    assert "substitute" in gordon.meta["title"] and np.isfinite(gordon.X_train).all()
    raw = data.load("genomic", variant="gordon", standardise=False)
    assert raw.X_train.min() == pytest.approx(np.log2(genomic.GORDON_FLOOR))
    assert 16.0 < raw.X_train.max() < 17.0  # log2(92377) ≈ 16.5
