"""Blood-cell crop pipeline (data.blood): centring, frame, clamping, fallbacks, cache, PCA."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.decomposition import PCA

from sdca_pegasos import data
from sdca_pegasos.data import blood, fetch
from sdca_pegasos.data.errors import DataError, DataMissingError

try:
    from data_fixtures import requires_mirror, sha256_bytes, synthetic_cell, use_real, write_jpeg
except ImportError:  # tests/ imported as a package
    from tests.data_fixtures import (
        requires_mirror,
        sha256_bytes,
        synthetic_cell,
        use_real,
        write_jpeg,
    )

TOL = 3.0  # pixels


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SVM_DATA_DIR", str(tmp_path / "raw"))
    monkeypatch.setenv("SVM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DATA_MIRROR", raising=False)


def _distance(a, b) -> float:
    return float(np.hypot(a[0] - b[0], a[1] - b[1]))


def _crop_of(tmp_path, image, name="cell.jpeg", params=None):
    path = write_jpeg(tmp_path / name, image)
    return blood.crop_file(path, params)


# ----------------------------------------------------------------------------- synthetic


@pytest.mark.parametrize(
    "centre, angle, shift",
    [((120, 160), 0.0, (0, 0)), ((90, 110), 7.0, (-10, 12)), ((150, 215), -9.0, (8, -15))],
)
def test_crop_is_centred_on_the_nucleus(tmp_path, centre, angle, shift):
    image, true_centre = synthetic_cell(centre, angle=angle, shift=shift, seed=1)
    res = _crop_of(tmp_path, image)
    assert _distance(res.centre, true_centre) < TOL
    assert res.fallback == 0 and res.coverage == 1.0
    assert res.crop.shape == (120, 120) and res.crop.dtype == np.uint8
    # negative: the nucleus (grey ≈ 93) is bright, the background (grey ≈ 205) dark
    r = round(true_centre[0]) - res.window[0]
    c = round(true_centre[1]) - res.window[1]
    nucleus = res.crop[r - 10 : r + 10, c - 10 : c + 10] / 255.0
    typical = np.median(res.crop) / 255.0  # mostly background (grey ≈ 205 → 0.2)
    assert nucleus.mean() > 0.55 and typical < 0.3
    assert nucleus.mean() > typical + 0.3


def test_frame_pixels_never_win(tmp_path):
    # a strong augmentation: rotated 14° and shifted, black wedges on three sides; the nucleus
    # is about 40 px from the nearest black pixel, so its crop contains part of the frame
    image, true_centre = synthetic_cell((110, 40), angle=14.0, shift=(18, 30), seed=2)
    black = np.all(image == 0, axis=2)
    assert black.mean() > 0.1  # the frame is much larger than 2 % of the image
    rows, cols = np.nonzero(black)
    assert np.min(np.hypot(rows - true_centre[0], cols - true_centre[1])) > 35
    res = _crop_of(tmp_path, image)
    assert _distance(res.centre, true_centre) < TOL
    # the crop contains part of the black frame, but no frame pixel survives neutralisation
    top, left = res.window
    assert black[top : top + 120, left : left + 120].any()
    assert res.crop.max() <= 255 - 80
    # control: without frame neutralisation the darkest 2 % ARE the frame and pull the centre
    control = _crop_of(tmp_path, image, "control.jpeg", blood.CropParams(frame_threshold=0))
    assert _distance(control.centre, true_centre) > 20


def test_crop_window_is_clamped_at_the_border(tmp_path):
    image, true_centre = synthetic_cell((28, 292), seed=3)
    res = _crop_of(tmp_path, image)
    assert _distance(res.centre, true_centre) < TOL
    assert res.window == (0, 200)  # top-right corner: 240×320 image, 120×120 crop
    # the bright nucleus is where it should be inside the clamped crop
    rows, cols = np.nonzero(res.crop > 0.5 * 255)
    assert _distance((rows.mean(), cols.mean()), (true_centre[0], true_centre[1] - 200)) < TOL


def test_no_dark_region_after_opening_falls_back_to_the_pre_opening_mask(monkeypatch):
    # no mean-shift and salt noise: the darkest 2 % are isolated pixels that the 5×5 opening
    # removes; the centre must come from the pre-opening mask, not crash or drop the image
    monkeypatch.setattr(
        blood.detection.cv2, "pyrMeanShiftFiltering", lambda img, sp, sr: img.copy()
    )
    rng = np.random.default_rng(0)
    grey = rng.integers(150, 256, size=(240, 320), dtype=np.uint8)
    res = blood.crop_image(np.repeat(grey[:, :, None], 3, axis=2))
    assert res.fallback == blood.FALLBACK_PRE_OPENING
    assert res.crop.shape == (120, 120)
    assert _distance(res.centre, (119.5, 159.5)) < 15  # scattered pixels: about the middle


def test_no_dark_pixel_at_all_falls_back_to_the_image_centre(monkeypatch):
    monkeypatch.setattr(blood.detection.np, "percentile", lambda *args, **kwargs: -1.0)
    image, _ = synthetic_cell((60, 60), seed=4)
    res = blood.crop_image(image)
    assert res.fallback == blood.FALLBACK_IMAGE_CENTRE
    assert res.centre == (119.5, 159.5) and res.window == (60, 100)


def test_frame_neutralisation_rule():
    grey = np.array([[0, 10, 100], [200, 79, 80]], dtype=np.uint8)
    out = blood.neutralise_frame(grey, 80)
    fill = round((100 + 200 + 80) / 3)  # 126.67 → 127
    np.testing.assert_array_equal(out, [[fill, fill, 100], [200, fill, 80]])
    assert out.dtype == np.uint8
    all_black = np.zeros((2, 2), np.uint8)
    np.testing.assert_array_equal(blood.neutralise_frame(all_black), all_black)


def test_unreadable_or_missing_image_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "_0_1.jpeg"
    bad.write_bytes(b"\xff\xd8 this is not a jpeg")
    with pytest.raises(DataError, match=r"_0_1\.jpeg.*cannot decode"):
        blood.crop_file(bad)
    with pytest.raises(DataError, match=r"nothere\.jpeg.*missing"):
        blood.crop_file(tmp_path / "nothere.jpeg")


def test_parallel_crops_equal_serial_crops(tmp_path):
    paths = [
        write_jpeg(tmp_path / f"{k}.jpeg", synthetic_cell((100 + 5 * k, 150), seed=k)[0])
        for k in range(4)
    ]
    serial = blood.crop_files(paths, n_jobs=1, progress=False)
    parallel = blood.crop_files(paths, n_jobs=2, progress=False)
    for a, b in zip(serial, parallel, strict=True):
        np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------- toy dataset


@pytest.fixture
def toy_blood(tmp_path, monkeypatch):
    """A tiny fetched blood-cells tree: TRAIN 6 + 6 and TEST 2 + 2 synthetic JPEGs."""
    mirror = tmp_path / "mirror"
    rng = np.random.default_rng(7)
    lines, truth = [], {}
    for split, n in (("TRAIN", 6), ("TEST", 2)):
        for cls, radius in (("LYMPHOCYTE", 21), ("NEUTROPHIL", 22)):
            for k in range(n):
                centre = (rng.uniform(70, 170), rng.uniform(90, 230))
                image, true_centre = synthetic_cell(
                    centre, radius=radius, angle=rng.uniform(-8, 8), seed=int(rng.integers(1e6))
                )
                rel = f"dataset2-master/images/{split}/{cls}/_{k}_{k * 7}.jpeg"
                path = write_jpeg(mirror / "blood-cells" / rel, image)
                lines.append(f"{sha256_bytes(path.read_bytes())}  {rel}\n")
                truth[rel] = true_centre
    sums = tmp_path / "blood-cells.sha256"
    sums.write_text("".join(lines))
    src = dataclasses.replace(fetch.SOURCES["blood-cells"], checksum_file=sums)
    monkeypatch.setitem(fetch.SOURCES, "blood-cells", src)
    fetch.fetch("blood-cells", mirror=mirror, progress=False)
    return SimpleNamespace(mirror=mirror, sums=sums, truth=truth, cache=tmp_path / "cache")


def _crop_caches(cache):
    return sorted((cache / "blood").glob("crops-*.npz")) if (cache / "blood").exists() else []


def test_load_blood_from_the_toy_tree(toy_blood):
    ds = data.load("blood", n_jobs=1, progress=False)
    assert ds.X_train.shape == (12, 14400) and ds.X_test.shape == (4, 14400)
    assert ds.X_train.dtype == np.float32 and ds.X_train.flags.c_contiguous
    assert ds.X_train.min() >= 0.0 and ds.X_train.max() <= 1.0
    assert ds.y_train.tolist() == [-1] * 6 + [1] * 6 and ds.y_test.tolist() == [-1, -1, 1, 1]
    m = ds.meta
    assert m["classes"] == {1: "NEUTROPHIL", -1: "LYMPHOCYTE"} and not m["substitute"]
    assert m["n_crop_fallbacks"] == 0 and m["crop_fallbacks"] == {
        "pre_opening_mask": 0,
        "image_centre": 0,
    }
    assert all("LYMPHOCYTE" in f for f in m["files_train"][:6])
    assert any("not shuffled" in note for note in m["notes"])
    for rel, centre in zip(m["files_train"], m["crop_centres_train"], strict=True):
        assert _distance(centre, toy_blood.truth[rel]) < TOL, rel
    assert len(_crop_caches(toy_blood.cache)) == 1


def test_second_load_comes_from_the_cache(toy_blood, monkeypatch):
    first = data.load("blood", n_jobs=1, progress=False)

    def no_cropping(*args, **kwargs):
        raise AssertionError("crops were recomputed although they are cached")

    monkeypatch.setattr(blood.cache, "crop_files", no_cropping)
    second = data.load("blood", progress=False)
    np.testing.assert_array_equal(first.X_train, second.X_train)
    np.testing.assert_array_equal(first.X_test, second.X_test)


def test_cache_key_depends_on_parameters_and_checksums(toy_blood):
    key = blood.crop_cache_key()
    assert blood.crop_cache_key(blood.CropParams(dark_percentile=3.0)) != key
    assert blood.crop_cache_key(blood.CropParams()) == key
    lines = toy_blood.sums.read_text().splitlines(keepends=True)
    lines[0] = ("0" * 64) + lines[0][64:]
    toy_blood.sums.write_text("".join(lines))
    assert blood.crop_cache_key() != key


def test_corrupt_image_is_an_error_and_nothing_is_cached(tmp_path, toy_blood, monkeypatch):
    # a corrupt JPEG whose checksum is the one on the list: verification passes, decoding fails
    rel = "dataset2-master/images/TEST/NEUTROPHIL/_9_9.jpeg"
    garbage = b"\xff\xd8\xff\xe0 truncated jpeg"
    (toy_blood.mirror / "blood-cells" / rel).write_bytes(garbage)
    with open(toy_blood.sums, "a") as f:
        f.write(f"{sha256_bytes(garbage)}  {rel}\n")
    fetch.fetch("blood-cells", mirror=toy_blood.mirror, progress=False)
    with pytest.raises(DataError, match=r"_9_9\.jpeg"):
        data.load("blood", n_jobs=1, progress=False)
    assert _crop_caches(toy_blood.cache) == []
    assert not list(toy_blood.cache.rglob("*.part"))


def test_load_blood_without_the_images(tmp_path, toy_blood, monkeypatch):
    monkeypatch.setenv("SVM_DATA_DIR", str(tmp_path / "elsewhere"))
    with pytest.raises(DataMissingError, match=r"python -m sdca_pegasos\.data fetch blood-cells"):
        data.load("blood", progress=False)


def test_pca_is_whitened_sklearn_pca_fit_on_the_training_crops(toy_blood):
    raw = data.load("blood", n_jobs=1, progress=False)
    ds = data.load("blood", pca=3, progress=False)
    assert ds.X_train.shape == (12, 3) and ds.X_test.shape == (4, 3)
    assert ds.X_train.dtype == np.float64 and ds.meta["pca"] == 3
    reference = PCA(n_components=3, whiten=True, svd_solver="full").fit(raw.X_train)
    np.testing.assert_allclose(ds.X_train, reference.transform(raw.X_train), atol=1e-4)
    np.testing.assert_allclose(ds.X_test, reference.transform(raw.X_test), atol=1e-4)
    np.testing.assert_allclose(ds.X_train.var(axis=0, ddof=1), 1.0, rtol=1e-4)  # whitened
    assert list((toy_blood.cache / "blood").glob("pca3-*.joblib"))
    with pytest.raises(ValueError, match="whitened"):
        data.load("blood", pca=3, standardise=True)


def test_gram_singular_values_match_the_svd():
    X = np.random.default_rng(0).normal(size=(30, 50)) * np.linspace(10.0, 0.1, 50)
    expected = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    values = blood.pca._singular_values(X)
    np.testing.assert_allclose(values[:29], expected[:29], rtol=1e-10)  # rank 29 after centring
    np.testing.assert_allclose(
        blood.pca._singular_values(X.T)[:29],
        np.linalg.svd(X.T - X.T.mean(axis=0), compute_uv=False)[:29],
        rtol=1e-10,
    )  # the n > d branch


def test_singular_values_and_reconstructions(toy_blood):
    raw = data.load("blood", n_jobs=1, progress=False)
    centred = raw.X_train.astype(np.float64) - raw.X_train.astype(np.float64).mean(axis=0)
    expected = np.linalg.svd(centred, compute_uv=False)
    values = blood.singular_values(k=1000, progress=False)
    assert values.shape == (12,)  # min(n_train, d) < k
    np.testing.assert_allclose(values, expected, rtol=1e-6, atol=1e-6 * expected[0])
    np.testing.assert_allclose(blood.singular_values(k=5), expected[:5], rtol=1e-6)

    rebuilt = blood.pca_reconstructions([0, 7], n_components=3)
    assert rebuilt.shape == (2, 120, 120) and rebuilt.dtype == np.float32
    pca = blood.fit_pca(3)
    direct = pca.inverse_transform(pca.transform(raw.X_train[[0, 7]])).reshape(2, 120, 120)
    np.testing.assert_allclose(rebuilt, direct, atol=1e-5)
    # a rank-3 rebuild is closer to its image than the mean image is
    err = np.linalg.norm(rebuilt[0].ravel() - raw.X_train[0])
    assert err < np.linalg.norm(pca.mean_ - raw.X_train[0])


def test_standardised_raw_crops(toy_blood):
    ds = data.load("blood", standardise=True, n_jobs=1, progress=False)
    assert ds.X_train.dtype == np.float32 and ds.meta["standardised"]
    np.testing.assert_allclose(ds.X_train.mean(axis=0), 0.0, atol=1e-5)


def test_pipeline_steps_for_figures(toy_blood):
    files, _ = blood.list_files("TRAIN")
    steps = blood.pipeline_steps(data.raw_root() / "blood-cells" / files[0])
    assert list(steps) == [
        "original",
        "mean_shift",
        "grey",
        "frame_neutralised",
        "threshold_mask",
        "opened_mask",
        "centre_marked",
        "crop",
    ]
    assert steps["original"].shape == (240, 320, 3) and steps["grey"].shape == (240, 320)
    assert set(np.unique(steps["threshold_mask"])) <= {0, 255}
    assert steps["crop"].shape == (120, 120) and steps["crop"].max() <= 1.0
    # the step crop is the crop the loader uses
    ds = data.load("blood", n_jobs=1, progress=False)
    np.testing.assert_allclose(steps["crop"].ravel(), ds.X_train[0], atol=1e-7)
    # the mask pixels the centre came from are dark in the neutralised grey image
    dark = steps["opened_mask"] > 0
    assert steps["frame_neutralised"][dark].mean() < steps["frame_neutralised"][~dark].mean()


def test_example_images_are_reproducible(toy_blood):
    a = blood.example_images(n_per_class=2, seed=3)
    b = blood.example_images(n_per_class=2, seed=3)
    assert [e.label for e in a] == [-1, -1, 1, 1]
    assert [e.path for e in a] == [e.path for e in b]
    assert a[0].image.shape == (240, 320, 3) and a[0].class_name == "LYMPHOCYTE"


# ----------------------------------------------------------------------------- real data

# the study notebook's own example images (4 neutrophils, 4 lymphocytes), plus TEST images
STUDY_EXAMPLES = [
    "TRAIN/NEUTROPHIL/_0_9649.jpeg",
    "TRAIN/NEUTROPHIL/_0_1095.jpeg",
    "TRAIN/NEUTROPHIL/_7_5840.jpeg",
    "TRAIN/LYMPHOCYTE/_0_204.jpeg",
    "TRAIN/LYMPHOCYTE/_0_278.jpeg",
    "TEST/LYMPHOCYTE/_0_1022.jpeg",
]


@pytest.mark.real_data
@requires_mirror
def test_real_blood_files_and_labels(tmp_path_factory, monkeypatch):
    use_real("blood-cells", tmp_path_factory, monkeypatch)
    assert data.available("blood")
    for split, n_lym, n_neu in (("TRAIN", 2483, 2499), ("TEST", 620, 624)):
        files, labels = blood.list_files(split)
        assert (int(np.sum(labels == -1)), int(np.sum(labels == 1))) == (n_lym, n_neu)
        assert all(f"/{split}/LYMPHOCYTE/" in f for f in files[:n_lym])
        assert all(f"/{split}/NEUTROPHIL/" in f for f in files[n_lym:])
        assert all((data.raw_root() / "blood-cells" / f).is_file() for f in files[::97])


@pytest.mark.real_data
@requires_mirror
def test_real_crops_centre_on_the_dark_nucleus(tmp_path_factory, monkeypatch):
    root = use_real("blood-cells", tmp_path_factory, monkeypatch) / "blood-cells"
    paths = [root / "dataset2-master" / "images" / rel for rel in STUDY_EXAMPLES]
    crops, centres, fallbacks, coverage = blood.crop_files(paths, n_jobs=1, progress=False)
    assert crops.shape == (6, 120, 120) and crops.dtype == np.uint8
    assert np.all(fallbacks == 0) and np.all(coverage > 0.9)
    for path, crop, centre in zip(paths, crops, centres, strict=True):
        steps = blood.pipeline_steps(path)
        grey = steps["frame_neutralised"].astype(float)
        rows, cols = np.nonzero(steps["opened_mask"])
        # the centre lies on (or within a few pixels of) the dark nucleus region ...
        assert np.min(np.hypot(rows - centre[0], cols - centre[1])) < 5, path.name
        # ... which is far darker than the image: its pixels are the darkest 2-5 %
        assert grey[rows, cols].mean() < np.percentile(grey, 10), path.name
        # in the negative crop, the nucleus is bright: the crop centre is brighter than average
        x = crop / 255.0
        assert x.min() >= 0.0 and x.max() <= 1.0
        assert x[50:70, 50:70].mean() > x.mean(), path.name
