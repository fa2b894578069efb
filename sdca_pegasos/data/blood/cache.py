"""Blood-cell crops, cache: every TRAIN and TEST crop, computed once and stored under a key.

Crops are stored as uint8 (the pipeline's output is a uint8 grey image) in
``<cache>/blood/crops-<key>.npz``, where the key hashes the pipeline parameters and version,
the OpenCV version and the project's checksums of the image files
(:func:`crop_cache_key`). The cache is written atomically, only after every image was read
and cropped; a corrupt image is an error naming the file. :func:`unit_rows` converts to
float32 in [0, 1] (``v / 255``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .. import fetch
from ..paths import atomic_path, atomic_write_text, cache_root, raw_root
from .crop import crop_files
from .detection import FALLBACK_NAMES, CropParams
from .images import DATASET, SPLITS, list_files

__all__ = ["PIPELINE_VERSION", "BloodCrops", "cache_dir", "crop_cache_key", "crops", "unit_rows"]

PIPELINE_VERSION = 1  # bump when the crop code changes in a way the parameters do not show


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


def cache_dir() -> Path:
    """``<cache root>/blood``: crops, PCA fits and singular values."""
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
    fetch.require(DATASET)
    key = crop_cache_key(params)
    path = cache_dir() / f"crops-{key}.npz"
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


def unit_rows(images: np.ndarray) -> np.ndarray:
    """uint8 images (n, s, s) → C-contiguous float32 (n, s·s) in [0, 1]."""
    X = images.reshape(len(images), -1).astype(np.float32)
    X /= np.float32(255.0)
    return X
