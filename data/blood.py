"""Blood-cell images (study A): crop pipeline, crop cache, PCA, and helpers for figures.

Data: Kaggle "blood-cells" ``dataset2-master/images/{TRAIN,TEST}``, LYMPHOCYTE (label −1)
versus NEUTROPHIL (label +1); 4982 training images (2483 + 2499) and 1244 test images
(620 + 624), all 320 × 240 RGB JPEG.

Crop pipeline (seeds/000 appendix A, parameters of the study's notebook; :class:`CropParams`),
per image:

1. ``cv2.pyrMeanShiftFiltering(img, 30, 60)`` (a blur that keeps the nucleus edge);
2. grey (``cv2.COLOR_BGR2GRAY``);
3. frame neutralisation: pixels below 80 (the black frame left by the augmentation's
   rotations and shifts) are replaced by the mean of the other pixels, rounded to the
   nearest integer because grey images are uint8 (:func:`neutralise_frame`);
4. threshold at the 2nd percentile of the grey values: pixels ``<=`` that level are "dark"
   (the darkest nucleus), the rest white;
5. morphological opening with a 5 × 5 square on the inverted mask (dark = 255) removes
   isolated dark specks ("pepper noise");
6. centre = mean (row, column) of the dark pixels left; a 120 × 120 window around it,
   clamped to stay inside the image, is cut from the ORIGINAL image, converted to grey,
   frame-neutralised again (same rule, mean of the window's other pixels), inverted
   (255 − v, so the nucleus is bright) and scaled to [0, 1]: d = 14400 features.

Degenerate case: when the opening leaves no dark pixel, the centre falls back to the mean of
the dark pixels BEFORE the opening (fallback 1); if there were none either (impossible for a
non-empty image, since the percentile level is attained; kept as a guard) it falls back to
the image centre (fallback 2). No image is ever dropped; the fallbacks are counted in
``meta["crop_fallbacks"]``.

Crops are stored as uint8 (the pipeline's output is a uint8 grey image) in
``<cache>/blood/crops-<key>.npz``, where the key hashes the pipeline parameters and version,
the OpenCV version and the project's checksums of the image files. The cache is written
atomically, only after every image was read and cropped; a corrupt image is an error naming
the file. :func:`load_blood` converts to float32 in [0, 1] (``v / 255``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np
from threadpoolctl import threadpool_limits

from . import fetch
from .errors import DataError
from .loaders import Dataset, require
from .paths import atomic_path, atomic_write_text, cache_root, raw_root

__all__ = [
    "CLASSES",
    "BloodCrops",
    "CropParams",
    "CropResult",
    "ExampleImage",
    "crop_cache_key",
    "crop_file",
    "crop_files",
    "crop_image",
    "crops",
    "example_images",
    "fit_pca",
    "list_files",
    "load_blood",
    "locate_centre",
    "neutralise_frame",
    "pca_reconstructions",
    "pipeline_steps",
    "read_image",
    "singular_values",
]

DATASET = "blood-cells"
IMAGE_ROOT = "dataset2-master/images"
SPLITS = ("TRAIN", "TEST")
CLASSES = {-1: "LYMPHOCYTE", 1: "NEUTROPHIL"}
PIPELINE_VERSION = 1  # bump when the crop code changes in a way the parameters do not show
FALLBACK_NONE, FALLBACK_PRE_OPENING, FALLBACK_IMAGE_CENTRE = 0, 1, 2
FALLBACK_NAMES = {FALLBACK_PRE_OPENING: "pre_opening_mask", FALLBACK_IMAGE_CENTRE: "image_centre"}
_CHUNK = 32  # images per parallel task


@dataclass(frozen=True)
class CropParams:
    """Parameters of the crop pipeline (defaults: the study's notebook).

    Attributes
    ----------
    spatial_radius, colour_radius : int
        ``sp`` and ``sr`` of ``cv2.pyrMeanShiftFiltering`` (30, 60).
    frame_threshold : int
        Grey values below this are frame pixels (80).
    dark_percentile : float
        Percentile of the grey values below which pixels are "dark" (2).
    opening_size : int
        Side of the square structuring element of the opening (5).
    crop_size : int
        Side of the square crop (120).
    """

    spatial_radius: int = 30
    colour_radius: int = 60
    frame_threshold: int = 80
    dark_percentile: float = 2.0
    opening_size: int = 5
    crop_size: int = 120


class CropResult(NamedTuple):
    """One cropped image.

    Attributes
    ----------
    crop : ndarray of shape (crop_size, crop_size), uint8
        Negative grey crop (nucleus bright); divide by 255 for [0, 1].
    centre : tuple of float
        (row, column) of the located nucleus centre in the original image.
    window : tuple of int
        (top, left) of the crop window in the original image.
    fallback : int
        0: normal; 1: centre from the pre-opening mask; 2: image centre.
    coverage : float
        Diagnostic: fraction of the dark pixels the centre was computed from that lie inside
        the crop window (1.0: the whole dark region is in the crop; low values flag a crop
        pulled between two dark regions).
    """

    crop: np.ndarray
    centre: tuple[float, float]
    window: tuple[int, int]
    fallback: int
    coverage: float


# ----------------------------------------------------------------------------- pipeline


def neutralise_frame(grey: np.ndarray, threshold: int = 80) -> np.ndarray:
    """Replace pixels below ``threshold`` by the mean of the other pixels.

    Parameters
    ----------
    grey : ndarray of shape (h, w), uint8
    threshold : int

    Returns
    -------
    ndarray of shape (h, w), uint8
        A copy. The fill value is the mean of the pixels ``>= threshold``, rounded to the
        nearest integer (halves up). If no pixel, or every pixel, is below the threshold the
        image is returned unchanged (there is nothing to average, or no frame to remove).
    """
    out = grey.copy()
    frame = grey < threshold
    n_frame = int(np.count_nonzero(frame))
    if 0 < n_frame < grey.size:
        out[frame] = int(np.floor(grey[~frame].mean() + 0.5))
    return out


def _locate(img_bgr: np.ndarray, params: CropParams, keep_steps: bool = False):
    """Steps 1–6 up to the centre; returns (centre, fallback, steps or None)."""
    shifted = cv2.pyrMeanShiftFiltering(img_bgr, params.spatial_radius, params.colour_radius)
    grey = cv2.cvtColor(shifted, cv2.COLOR_BGR2GRAY)
    neutral = neutralise_frame(grey, params.frame_threshold)
    level = np.percentile(neutral, params.dark_percentile)
    dark = neutral <= level
    threshold_mask = np.where(dark, 0, 255).astype(np.uint8)  # nucleus black on white
    inverted = 255 - threshold_mask  # nucleus white
    kernel = np.ones((params.opening_size, params.opening_size), np.uint8)
    opened = cv2.morphologyEx(inverted, cv2.MORPH_OPEN, kernel)
    rows, cols = np.nonzero(opened)
    fallback = FALLBACK_NONE
    if rows.size == 0:
        rows, cols = np.nonzero(inverted)
        fallback = FALLBACK_PRE_OPENING
    if rows.size == 0:
        h, w = grey.shape
        centre = ((h - 1) / 2.0, (w - 1) / 2.0)
        fallback = FALLBACK_IMAGE_CENTRE
    else:
        centre = (float(rows.mean()), float(cols.mean()))
    steps = {"dark_rows": rows, "dark_cols": cols}
    if keep_steps:
        steps |= {
            "mean_shift": shifted,
            "grey": grey,
            "frame_neutralised": neutral,
            "threshold_mask": threshold_mask,
            "opened_mask": opened,
        }
    return centre, fallback, steps


def locate_centre(img_bgr: np.ndarray, params: CropParams | None = None) -> tuple:
    """Nucleus centre of a BGR image (steps 1–6 of the pipeline).

    Returns
    -------
    centre : tuple of float
        (row, column).
    fallback : int
        0, 1 (pre-opening mask) or 2 (image centre); see the module docstring.
    """
    centre, fallback, _ = _locate(img_bgr, params or CropParams())
    return centre, fallback


def _window(centre: tuple[float, float], shape: tuple[int, int], size: int) -> tuple[int, int]:
    h, w = shape
    if h < size or w < size:
        raise ValueError(f"image of shape {shape} is smaller than the {size}×{size} crop")
    top = int(np.floor(centre[0] + 0.5)) - size // 2
    left = int(np.floor(centre[1] + 0.5)) - size // 2
    return min(max(top, 0), h - size), min(max(left, 0), w - size)


def _cut(img_bgr: np.ndarray, window: tuple[int, int], params: CropParams) -> np.ndarray:
    top, left = window
    s = params.crop_size
    grey = cv2.cvtColor(img_bgr[top : top + s, left : left + s], cv2.COLOR_BGR2GRAY)
    return (255 - neutralise_frame(grey, params.frame_threshold)).astype(np.uint8)


def crop_image(img_bgr: np.ndarray, params: CropParams | None = None) -> CropResult:
    """Crop one BGR image (uint8, shape (h, w, 3)) around its nucleus.

    Returns
    -------
    CropResult
        The uint8 negative grey crop, the centre, the window and the fallback code.
    """
    params = params or CropParams()
    if img_bgr.dtype != np.uint8 or img_bgr.ndim != 3 or img_bgr.shape[2] != 3:
        raise ValueError("crop_image expects a uint8 BGR image of shape (h, w, 3)")
    centre, fallback, steps = _locate(img_bgr, params)
    window = _window(centre, img_bgr.shape[:2], params.crop_size)
    coverage = _coverage(steps["dark_rows"], steps["dark_cols"], window, params.crop_size)
    return CropResult(_cut(img_bgr, window, params), centre, window, fallback, coverage)


def _coverage(rows: np.ndarray, cols: np.ndarray, window: tuple[int, int], size: int) -> float:
    if rows.size == 0:
        return 0.0
    top, left = window
    inside = (rows >= top) & (rows < top + size) & (cols >= left) & (cols < left + size)
    return float(np.mean(inside))


def read_image(path: Path | str) -> np.ndarray:
    """Read a colour image as BGR uint8; raise :class:`DataError` naming the file if unreadable."""
    path = Path(path)
    if not path.is_file():
        raise DataError(
            f"{path}: image file is missing. Fix: run `python -m data fetch {DATASET}`."
        )
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise DataError(
            f"{path}: OpenCV cannot decode this image (corrupt or not an image). Fix: restore "
            f"it with `python -m data fetch {DATASET} --full-check`."
        )
    return img


def crop_file(path: Path | str, params: CropParams | None = None) -> CropResult:
    """Read and crop one image file (see :func:`crop_image`)."""
    img = read_image(path)
    try:
        return crop_image(img, params)
    except ValueError as exc:
        raise DataError(f"{path}: {exc}") from exc


def _crop_chunk(paths: Sequence[str], params: CropParams):
    previous = cv2.getNumThreads()
    cv2.setNumThreads(1)  # one image per worker at a time: no nested threading
    try:
        s = params.crop_size
        out = np.empty((len(paths), s, s), np.uint8)
        centres = np.empty((len(paths), 2), np.float32)
        fallbacks = np.empty(len(paths), np.int8)
        coverage = np.empty(len(paths), np.float32)
        for i, path in enumerate(paths):
            res = crop_file(path, params)
            out[i], centres[i], fallbacks[i] = res.crop, res.centre, res.fallback
            coverage[i] = res.coverage
        return out, centres, fallbacks, coverage
    finally:
        cv2.setNumThreads(previous)


def crop_files(
    paths: Sequence[Path | str],
    params: CropParams | None = None,
    n_jobs: int = 2,
    progress: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Crop many image files in parallel (joblib), with a tqdm progress bar.

    Parameters
    ----------
    paths : sequence of path
    params : CropParams, optional
    n_jobs : int
        joblib workers (processes); 1 runs in this process; -1 uses every core.
    progress : bool
        Show a progress bar.

    Returns
    -------
    crops : ndarray of shape (n, crop_size, crop_size), uint8
    centres : ndarray of shape (n, 2), float32
        (row, column) of each nucleus centre in its original image.
    fallbacks : ndarray of shape (n,), int8
    coverage : ndarray of shape (n,), float32
        See :class:`CropResult`.

    Raises
    ------
    DataError
        An image is missing or unreadable (the message names it); nothing is returned.
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    params = params or CropParams()
    paths = [str(p) for p in paths]
    chunks = [paths[i : i + _CHUNK] for i in range(0, len(paths), _CHUNK)]
    parts = []
    with tqdm(total=len(paths), desc="crop blood cells", unit="img", disable=not progress) as bar:
        runner = Parallel(n_jobs=n_jobs, return_as="generator")
        for part in runner(delayed(_crop_chunk)(chunk, params) for chunk in chunks):
            parts.append(part)
            bar.update(len(part[0]))
    s = params.crop_size
    if not parts:
        return (
            np.empty((0, s, s), np.uint8),
            np.empty((0, 2), np.float32),
            np.empty(0, np.int8),
            np.empty(0, np.float32),
        )
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))


# ----------------------------------------------------------------------------- files & cache


def list_files(split: str = "TRAIN") -> tuple[list[str], np.ndarray]:
    """Image files of a split, from the project's checksum list, and their labels.

    Order: every LYMPHOCYTE file (label −1), then every NEUTROPHIL file (+1), each class in
    sorted path order. The order is fixed and NOT shuffled.

    Returns
    -------
    files : list of str
        Paths relative to the dataset folder (``dataset2-master/images/TRAIN/...``).
    labels : ndarray of shape (n,), int64
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    expected = fetch.expected_files(DATASET)
    files, labels = [], []
    for label in (-1, 1):
        prefix = f"{IMAGE_ROOT}/{split}/{CLASSES[label]}/"
        chosen = sorted(rel for rel in expected if rel.startswith(prefix))
        files += chosen
        labels += [label] * len(chosen)
    return files, np.asarray(labels, dtype=np.int64)


def crop_cache_key(params: CropParams | None = None) -> str:
    """Hash of everything the crops depend on: parameters, code version, OpenCV, file sums."""
    params = params or CropParams()
    expected = fetch.expected_files(DATASET)
    sums = hashlib.sha256()
    for split in SPLITS:
        for rel in list_files(split)[0]:
            sums.update(f"{expected[rel]}  {rel}\n".encode())
    blob = json.dumps(
        {
            "pipeline_version": PIPELINE_VERSION,
            "params": dataclasses.asdict(params),
            "opencv": cv2.__version__,
            "files": sums.hexdigest(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class BloodCrops:
    """Cropped images of both splits, as stored in the cache (uint8)."""

    key: str
    params: CropParams
    X_train: np.ndarray  # (n_train, s, s) uint8
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    files_train: list[str]
    files_test: list[str]
    centres_train: np.ndarray
    centres_test: np.ndarray
    fallbacks_train: np.ndarray
    fallbacks_test: np.ndarray
    coverage_train: np.ndarray
    coverage_test: np.ndarray


def _cache_dir() -> Path:
    return cache_root() / "blood"


def crops(params: CropParams | None = None, n_jobs: int = 2, progress: bool = True) -> BloodCrops:
    """Crops of every TRAIN and TEST image, from the cache or computed and cached.

    Parameters
    ----------
    params : CropParams, optional
    n_jobs : int
        joblib workers when the crops must be computed.
    progress : bool
        Show a progress bar when computing.

    Raises
    ------
    DataMissingError
        The images are not fetched and verified (names the file and the command to run).
    DataError
        An image cannot be decoded; nothing is cached.
    """
    params = params or CropParams()
    require(DATASET)
    key = crop_cache_key(params)
    path = _cache_dir() / f"crops-{key}.npz"
    files_train, y_train = list_files("TRAIN")
    files_test, y_test = list_files("TEST")
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
            if list(arrays["files_train"]) == files_train and list(arrays["files_test"]) == (
                files_test
            ):
                return _crops_from_arrays(key, params, arrays)
            warnings.warn(
                f"{path}: file list differs from the checksums; rebuilding", stacklevel=2
            )
        except (OSError, ValueError, KeyError) as exc:
            warnings.warn(f"{path}: unreadable crop cache ({exc}); rebuilding", stacklevel=2)

    root = raw_root() / DATASET
    start = time.perf_counter()
    X, centres, fallbacks, coverage = crop_files(
        [root / rel for rel in files_train + files_test], params, n_jobs, progress
    )
    seconds = time.perf_counter() - start
    n = len(files_train)
    arrays = {
        "X_train": X[:n],
        "y_train": y_train.astype(np.int8),
        "X_test": X[n:],
        "y_test": y_test.astype(np.int8),
        "files_train": np.asarray(files_train),
        "files_test": np.asarray(files_test),
        "centres_train": centres[:n],
        "centres_test": centres[n:],
        "fallbacks_train": fallbacks[:n],
        "fallbacks_test": fallbacks[n:],
        "coverage_train": coverage[:n],
        "coverage_test": coverage[n:],
    }
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, **arrays)
    info = {
        "key": key,
        "params": dataclasses.asdict(params),
        "opencv": cv2.__version__,
        "n_images": len(X),
        "n_jobs": n_jobs,
        "seconds": round(seconds, 2),
        "coverage_below_0.9": int(np.sum(coverage < 0.9)),
        "fallbacks": {
            name: int(np.sum(fallbacks == code)) for code, name in FALLBACK_NAMES.items()
        },
    }
    atomic_write_text(path.with_suffix(".json"), json.dumps(info, indent=1))
    return _crops_from_arrays(key, params, arrays)


def _crops_from_arrays(key: str, params: CropParams, a: dict) -> BloodCrops:
    return BloodCrops(
        key=key,
        params=params,
        X_train=a["X_train"],
        y_train=a["y_train"].astype(np.int64),
        X_test=a["X_test"],
        y_test=a["y_test"].astype(np.int64),
        files_train=[str(f) for f in a["files_train"]],
        files_test=[str(f) for f in a["files_test"]],
        centres_train=a["centres_train"],
        centres_test=a["centres_test"],
        fallbacks_train=a["fallbacks_train"],
        fallbacks_test=a["fallbacks_test"],
        coverage_train=a["coverage_train"],
        coverage_test=a["coverage_test"],
    )


def _unit(images: np.ndarray) -> np.ndarray:
    """uint8 images (n, s, s) → C-contiguous float32 (n, s·s) in [0, 1]."""
    X = images.reshape(len(images), -1).astype(np.float32)
    X /= np.float32(255.0)
    return X


# ----------------------------------------------------------------------------- PCA


def _pca_path(n_components: int, crop_key: str) -> Path:
    import sklearn

    blob = f"pca|{n_components}|whiten|svd_full|sklearn {sklearn.__version__}|{crop_key}"
    key = hashlib.sha256(blob.encode()).hexdigest()[:20]
    return _cache_dir() / f"pca{n_components}-{key}.joblib"


def fit_pca(
    n_components: int = 40,
    params: CropParams | None = None,
    n_jobs: int = 2,
    progress: bool = True,
):
    """Whitened PCA fit on the TRAINING crops only (cached).

    ``sklearn.decomposition.PCA(n_components, whiten=True, svd_solver="full")`` on the
    float32 training crops in [0, 1]; the exact LAPACK SVD makes the fit deterministic.
    Cached in ``<cache>/blood/pca<k>-<key>.joblib``, keyed by ``n_components``, the
    scikit-learn version and the crop cache key.

    Returns
    -------
    sklearn.decomposition.PCA
    """
    import joblib
    from sklearn.decomposition import PCA

    c = crops(params, n_jobs, progress)
    path = _pca_path(n_components, c.key)
    if path.is_file():
        try:
            return joblib.load(path)
        except Exception as exc:  # any unpickling failure means: rebuild
            warnings.warn(f"{path}: unreadable PCA cache ({exc}); refitting", stacklevel=2)
    pca = PCA(n_components=n_components, whiten=True, svd_solver="full")
    pca.fit(_unit(c.X_train))
    with atomic_path(path) as tmp:
        joblib.dump(pca, tmp)
    return pca


def singular_values(
    k: int = 1000, params: CropParams | None = None, n_jobs: int = 2, progress: bool = True
) -> np.ndarray:
    """First ``k`` singular values of the centred training crop matrix (study figure 8).

    The matrix is the 4982 × 14400 training crops in [0, 1], each column centred. All
    min(n, d) singular values are cached in ``<cache>/blood/sv-<crop key>.npy``.

    They are computed as the square roots of the eigenvalues of the smaller Gram matrix
    (``X Xᵀ``, 4982 × 4982, float64), which is about 10× faster than a bidiagonal SVD of the
    14400-wide matrix. The relative error of σᵢ is about ``eps · (σ₁/σᵢ)²``: below 1e-10 for
    the first 1000 values of these crops; values below ~1e-7·σ₁ (the numerically null ones)
    are not resolved.

    Returns
    -------
    ndarray of shape (min(k, n_train, d),), float64, in decreasing order
    """
    c = crops(params, n_jobs, progress)
    path = _cache_dir() / f"sv-{c.key}.npy"
    values = None
    if path.is_file():
        try:
            values = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            warnings.warn(f"{path}: unreadable cache ({exc}); recomputing", stacklevel=2)
    if values is None:
        values = _singular_values(_unit(c.X_train))
        with atomic_path(path) as tmp, open(tmp, "wb") as f:
            np.save(f, values)
    return values[:k]


def _singular_values(X: np.ndarray) -> np.ndarray:
    """All singular values of the column-centred ``X`` via the smaller Gram matrix (float64)."""
    X = np.asarray(X, dtype=np.float64)
    X = X - X.mean(axis=0)
    gram = X @ X.T if X.shape[0] <= X.shape[1] else X.T @ X
    eigenvalues = np.linalg.eigvalsh(gram)[::-1]
    return np.sqrt(np.clip(eigenvalues, 0.0, None))


def pca_reconstructions(
    indices: Sequence[int],
    n_components: int = 40,
    split: str = "TRAIN",
    params: CropParams | None = None,
) -> np.ndarray:
    """Crops rebuilt from their first ``n_components`` PCA coordinates (study figure 7).

    Parameters
    ----------
    indices : sequence of int
        Rows of the split, in :func:`list_files` order.
    n_components : int
    split : {"TRAIN", "TEST"}

    Returns
    -------
    ndarray of shape (len(indices), crop_size, crop_size), float32
        ``pca.inverse_transform(pca.transform(x))`` in the crops' [0, 1] scale (values may
        leave [0, 1] slightly).
    """
    c = crops(params)
    pca = fit_pca(n_components, params)
    images = (c.X_train if split == "TRAIN" else c.X_test)[np.asarray(indices, dtype=np.intp)]
    with threadpool_limits(limits=1):  # same bits whatever the caller's thread pool
        rebuilt = pca.inverse_transform(pca.transform(_unit(images)))
    s = c.params.crop_size
    return np.asarray(rebuilt, dtype=np.float32).reshape(len(images), s, s)


# ----------------------------------------------------------------------------- loader


def load_blood(
    pca: int | None = None,
    standardise: bool = False,
    params: CropParams | None = None,
    n_jobs: int = 2,
    progress: bool = True,
) -> Dataset:
    """Blood cells: NEUTROPHIL (+1) vs LYMPHOCYTE (−1), cropped 120 × 120 negatives.

    Parameters
    ----------
    pca : int or None
        None: the crops, float32 in [0, 1], d = 14400. An int k: whitened PCA-k coordinates
        (:func:`fit_pca`, fit on the training crops only, applied to both splits), float64.
    standardise : bool
        Standardise the raw crops with training statistics (float32). False by default: the
        study's standardisation was a no-op, so it used raw [0, 1] pixels. Not allowed with
        ``pca`` (whitened coordinates already have unit variance on the training set).
    params : CropParams, optional
    n_jobs : int
        joblib workers if the crops must be computed (first call only; then cached).
    progress : bool
        Show a progress bar when cropping.

    Returns
    -------
    Dataset
        Rows ordered by class (all LYMPHOCYTE, then all NEUTROPHIL) and file name: NOT
        shuffled. ``meta`` adds ``files_train``/``files_test`` (relative paths),
        ``crop_centres_train``/``_test`` ((row, col) in the original image),
        ``crop_fallbacks`` (counts by kind), ``n_crop_fallbacks``,
        ``crop_coverage_train``/``_test`` (see :class:`CropResult`), ``crop_params``,
        ``crop_cache_key``, ``image_shape``, ``pca`` and, with PCA,
        ``pca_explained_variance_ratio``.
    """
    if pca is not None and standardise:
        raise ValueError("standardise=True with pca: whitened PCA output is already unit-variance")
    c = crops(params, n_jobs, progress)
    Xtr, Xte = _unit(c.X_train), _unit(c.X_test)
    s = c.params.crop_size
    notes = [
        "rows are sorted by class (LYMPHOCYTE then NEUTROPHIL, file-name order); not shuffled",
        "crop pipeline of seeds/000 appendix A (data/blood.py); negative grey, nucleus bright",
        "frame neutralisation fills with the mean of the other pixels rounded to uint8",
    ]
    extra: dict[str, Any] = {"pca": pca}
    if pca is not None:
        model = fit_pca(pca, params, n_jobs, progress)
        # one BLAS thread: a threaded GEMM rounds differently with the thread count, and
        # every process (workers, optima, figures) must see the same bits
        with threadpool_limits(limits=1):
            Xtr = np.ascontiguousarray(model.transform(Xtr), dtype=np.float64)
            Xte = np.ascontiguousarray(model.transform(Xte), dtype=np.float64)
        extra["pca_explained_variance_ratio"] = model.explained_variance_ratio_.copy()
        notes.append(f"whitened PCA-{pca} fit on the training crops only (sklearn, svd full)")
        title = f"blood cells (neutrophil vs lymphocyte), whitened PCA-{pca} of {s}×{s} crops"
    else:
        title = f"blood cells (neutrophil vs lymphocyte), {s}×{s} crops"
        if standardise:
            mean = Xtr.mean(axis=0, dtype=np.float64)
            scale = Xtr.std(axis=0, dtype=np.float64)
            scale[scale == 0.0] = 1.0
            for X in (Xtr, Xte):
                X -= mean.astype(np.float32)
                X /= scale.astype(np.float32)
            notes.append("standardised with TRAIN mean and sd (float32)")
        else:
            notes.append("raw [0, 1] pixels, not standardised (the study's effective setting)")
    fallbacks = np.concatenate([c.fallbacks_train, c.fallbacks_test])
    counts = {name: int(np.sum(fallbacks == code)) for code, name in FALLBACK_NAMES.items()}
    meta = {
        "name": "blood",
        "title": title,
        "source": "Kaggle blood-cells (P. Mooney) dataset2-master/images, TRAIN and TEST",
        "substitute": False,
        "substitute_for": None,
        "classes": {1: "NEUTROPHIL", -1: "LYMPHOCYTE"},
        "n_train": Xtr.shape[0],
        "n_test": Xte.shape[0],
        "n_features": Xtr.shape[1],
        "standardised": standardise,
        "notes": notes,
        "files_train": c.files_train,
        "files_test": c.files_test,
        "crop_centres_train": c.centres_train,
        "crop_centres_test": c.centres_test,
        "crop_fallbacks": counts,
        "n_crop_fallbacks": sum(counts.values()),
        "crop_coverage_train": c.coverage_train,
        "crop_coverage_test": c.coverage_test,
        "crop_params": dataclasses.asdict(c.params),
        "crop_cache_key": c.key,
        "image_shape": (s, s),
        **extra,
    }
    return Dataset(Xtr, c.y_train, Xte, c.y_test, meta)


# ----------------------------------------------------------------------------- figures


def pipeline_steps(path: Path | str, params: CropParams | None = None) -> dict[str, np.ndarray]:
    """Every intermediate image of the crop pipeline for one file (study figure 4).

    Returns
    -------
    dict of str to ndarray, in pipeline order
        ``original`` (RGB), ``mean_shift`` (RGB), ``grey``, ``frame_neutralised``,
        ``threshold_mask`` (uint8: dark nucleus pixels 0, the rest 255), ``opened_mask``
        (uint8, inverted and opened: nucleus 255), ``centre_marked`` (RGB original with the
        centre cross and the crop window drawn), ``crop`` (float32 in [0, 1], negative).
    """
    params = params or CropParams()
    img = read_image(path)
    centre, _, steps = _locate(img, params, keep_steps=True)
    window = _window(centre, img.shape[:2], params.crop_size)
    marked = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    top, left = window
    s = params.crop_size
    cv2.rectangle(marked, (left, top), (left + s - 1, top + s - 1), (0, 255, 0), 2)
    point = (round(centre[1]), round(centre[0]))
    cv2.drawMarker(marked, point, (255, 255, 0), cv2.MARKER_CROSS, 16, 2)
    return {
        "original": cv2.cvtColor(img, cv2.COLOR_BGR2RGB),
        "mean_shift": cv2.cvtColor(steps["mean_shift"], cv2.COLOR_BGR2RGB),
        "grey": steps["grey"],
        "frame_neutralised": steps["frame_neutralised"],
        "threshold_mask": steps["threshold_mask"],
        "opened_mask": steps["opened_mask"],
        "centre_marked": marked,
        "crop": _cut(img, window, params).astype(np.float32) / np.float32(255.0),
    }


class ExampleImage(NamedTuple):
    """An original image for figures: RGB uint8 (240, 320, 3), its label and file."""

    image: np.ndarray
    label: int
    class_name: str
    path: str


def example_images(n_per_class: int = 4, seed: int = 0, split: str = "TRAIN") -> list:
    """Original images drawn at random from each class (study figure 1).

    Parameters
    ----------
    n_per_class : int
    seed : int
        ``np.random.default_rng(seed)`` draws, without replacement, within each class.
    split : {"TRAIN", "TEST"}

    Returns
    -------
    list of ExampleImage
        LYMPHOCYTE examples first, then NEUTROPHIL; each class in file order.
    """
    require(DATASET)
    files, labels = list_files(split)
    rng = np.random.default_rng(seed)
    root = raw_root() / DATASET
    out = []
    for label in (-1, 1):
        idx = np.flatnonzero(labels == label)
        chosen = np.sort(rng.choice(idx, size=n_per_class, replace=False))
        for i in chosen:
            img = cv2.cvtColor(read_image(root / files[i]), cv2.COLOR_BGR2RGB)
            out.append(ExampleImage(img, label, CLASSES[label], files[i]))
    return out
