"""Blood-cell images, reading: which files make each split, decoding one, examples for figures.

Data: Kaggle "blood-cells" ``dataset2-master/images/{TRAIN,TEST}``, LYMPHOCYTE (label −1)
versus NEUTROPHIL (label +1); 4982 training images (2483 + 2499) and 1244 test images
(620 + 624), all 320 × 240 RGB JPEG. The file list comes from the project's checksums
(:func:`sdca_pegasos.data.fetch.expected_files`), never from a directory listing.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from .. import fetch
from ..errors import DataError
from ..paths import raw_root

__all__ = [
    "CLASSES",
    "DATASET",
    "IMAGE_ROOT",
    "SPLITS",
    "ExampleImage",
    "example_images",
    "list_files",
    "read_image",
]

DATASET = "blood-cells"
IMAGE_ROOT = "dataset2-master/images"
SPLITS = ("TRAIN", "TEST")
CLASSES = {-1: "LYMPHOCYTE", 1: "NEUTROPHIL"}


def read_image(path: Path | str) -> np.ndarray:
    """Read a colour image as BGR uint8; raise :class:`DataError` naming the file if unreadable."""
    path = Path(path)
    if not path.is_file():
        raise DataError(
            f"{path}: image file is missing. Fix: run "
            f"`python -m sdca_pegasos.data fetch {DATASET}`."
        )
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise DataError(
            f"{path}: OpenCV cannot decode this image (corrupt or not an image). Fix: restore "
            f"it with `python -m sdca_pegasos.data fetch {DATASET} --full-check`."
        )
    return img


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
    fetch.require(DATASET)
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
