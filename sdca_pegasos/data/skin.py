"""UCI Skin Segmentation (Bhatt & Dhall 2009): 245,057 pixels × (B, G, R).

Raw folder ``data/raw/skin/`` (``python -m sdca_pegasos.data fetch skin``); the loader only reads
it."""

from __future__ import annotations

import numpy as np

from .dataset import Dataset, dataset_meta, labels_pm1, standardise_features
from .errors import DataError
from .fetch import require
from .paths import raw_root

__all__ = ["load_skin", "read_skin"]

#: Raw folder (:data:`sdca_pegasos.data.fetch.SOURCES`).
FOLDER = "skin"


def read_skin(path) -> tuple[np.ndarray, np.ndarray]:
    """Read ``Skin_NonSkin.txt``: ``B<TAB>G<TAB>R<TAB>label`` per row, no header.

    Returns
    -------
    X : ndarray of shape (n, 3), float64
        B, G, R in file order (the file is sorted by class: all skin rows first).
    y : ndarray of shape (n,), int64
        +1 for label 1 (skin), −1 for label 2 (non-skin).
    """
    import pandas as pd

    table = pd.read_csv(path, sep="\t", header=None, dtype=np.int64).to_numpy()
    if table.ndim != 2 or table.shape[1] != 4:
        raise DataError(f"{path}: expected 4 tab-separated columns, got shape {table.shape}")
    labels = table[:, 3]
    if not np.all((labels == 1) | (labels == 2)):
        raise DataError(f"{path}: labels must be 1 (skin) or 2 (non-skin)")
    return np.ascontiguousarray(table[:, :3], dtype=np.float64), labels_pm1(labels == 1)


def load_skin(test_size: float | None = None, seed: int = 0, standardise: bool = True) -> Dataset:
    """UCI Skin Segmentation: 245,057 pixels × (B, G, R); +1 = skin, −1 = non-skin.

    The rows keep the file order, which is SORTED BY CLASS (all 50,859 skin rows first): the
    loader never shuffles, so a solver must draw its own permutation before taking an epoch.

    Parameters
    ----------
    test_size : float or None
        None (the study's setting): every row is a training row and ``X_test`` is None. A
        fraction in (0, 1): stratified held-out split drawn with ``seed`` (scikit-learn
        ``train_test_split``); both parts keep file order.
    seed : int
        Seed of the split (ignored when ``test_size`` is None).
    standardise : bool
        Standardise with training statistics (the study standardised).
    """
    require(FOLDER)
    X, y = read_skin(raw_root() / FOLDER / "Skin_NonSkin.txt")
    notes = ["rows are sorted by class (all skin rows first); the loader does not shuffle"]
    if test_size is None:
        Xtr, ytr, Xte, yte = X, y, None, None
        notes.append("no test split (the study's setting): all rows are training rows")
    else:
        from sklearn.model_selection import train_test_split

        itr, ite = train_test_split(
            np.arange(len(y)), test_size=test_size, stratify=y, random_state=seed
        )
        itr, ite = np.sort(itr), np.sort(ite)
        Xtr, ytr, Xte, yte = X[itr], y[itr], X[ite], y[ite]
        notes.append(
            f"stratified split test_size={test_size}, seed={seed}; each part in file order"
        )
    if standardise:
        Xtr, Xte, mean, scale = standardise_features(Xtr, Xte)
        notes.append("standardised with TRAIN mean and sd")
    else:
        mean, scale = np.zeros(3), np.ones(3)
    meta = dataset_meta(
        "skin",
        "skin (UCI Skin Segmentation, 245,057 × 3)",
        "UCI Skin Segmentation (Bhatt & Dhall 2009), Skin_NonSkin.txt",
        {1: "skin (label 1)", -1: "non-skin (label 2)"},
        Xtr,
        Xte,
        standardise,
        notes,
        feature_names=["B", "G", "R"],
        feature_mean=mean,
        feature_scale=scale,
        seed=None if test_size is None else seed,
    )
    return Dataset(np.ascontiguousarray(Xtr), ytr, Xte, yte, meta)
