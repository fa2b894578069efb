"""The :class:`Dataset` every loader returns, and what loaders share to build one.

Conventions
-----------
- ``X_train`` / ``X_test`` are C-contiguous float arrays (float64, except raw blood-cell
  crops: float32 in [0, 1]) or canonical float CSR matrices (``sparse-synthetic``);
  ``y_train`` / ``y_test`` are int64 arrays of ±1.
- "Standardised" means every feature is centred and scaled to unit variance (``ddof=0``) with
- statistics of the TRAINING rows only, applied unchanged to the test rows; a constant feature is
- centred and left unscaled. One documented exception: study 001's exact simulated draw
- (``sdca_pegasos.data.simulated.load(draw="study001")``) is scaled with all its rows, as the
- study's notebook did.
- Which class is +1 is in ``meta["classes"]`` (+1 → original class name).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["Dataset", "dataset_meta", "labels_pm1", "standardise_features"]


@dataclass(frozen=True)
class Dataset:
    """A binary classification dataset with labels ±1.

    Attributes
    ----------
    X_train : ndarray or scipy.sparse CSR matrix of shape (n_train, n_features)
        C-contiguous float array, or a float CSR matrix in canonical format (sorted,
        unique indices: ``sparse-synthetic``).
    y_train : ndarray of shape (n_train,)
        int64, values in {-1, +1}.
    X_test : ndarray of shape (n_test, n_features) or None
        None when the dataset has no test split.
    y_test : ndarray of shape (n_test,) or None
    meta : dict
        ``name``, ``title`` (use it for every figure label), ``source``, ``substitute``
        (bool), ``substitute_for`` (str or None), ``classes`` ({+1: name, -1: name}),
        ``n_train``, ``n_test``, ``n_features``, ``standardised``, ``notes`` (list of str),
        plus dataset-specific entries documented by each loader.
    beta : ndarray of shape (n_features,) or None
        True coefficients (simulated data only, in raw feature space); see
        :attr:`true_coef` for them in the space of ``X_train``.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    meta: dict[str, Any] = field(default_factory=dict)
    beta: np.ndarray | None = None

    def __post_init__(self) -> None:
        _check_split(self.X_train, self.y_train, "train")
        if (self.X_test is None) != (self.y_test is None):
            raise ValueError("X_test and y_test must both be arrays or both be None")
        if self.X_test is not None:
            _check_split(self.X_test, self.y_test, "test")
            if self.X_test.shape[1] != self.X_train.shape[1]:
                raise ValueError("X_test and X_train have different numbers of features")

    @property
    def n_train(self) -> int:
        """Number of training rows (λ = 1/n means 1/n_train)."""
        return self.X_train.shape[0]

    @property
    def true_coef(self) -> np.ndarray | None:
        """True coefficients in the space of ``X_train``'s columns, where a fitted ``coef_``
        lives: ``meta["beta_standardised"]`` when the loader standardised the features, else
        :attr:`beta`; None when no teacher is known."""
        return self.meta.get("beta_standardised", self.beta)


def _check_split(X: np.ndarray, y: np.ndarray, split: str) -> None:
    if sp.issparse(X):
        if X.format != "csr" or X.dtype.kind != "f" or not X.has_canonical_format:
            raise ValueError(f"X_{split} must be a float CSR matrix with sorted, unique indices")
    elif not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype.kind != "f":
        raise ValueError(f"X_{split} must be a 2-D float array")
    elif not X.flags.c_contiguous:
        raise ValueError(f"X_{split} must be C-contiguous")
    if not isinstance(y, np.ndarray) or y.shape != (X.shape[0],) or y.dtype != np.int64:
        raise ValueError(f"y_{split} must be an int64 array of length {X.shape[0]}")
    if not np.all((y == 1) | (y == -1)):
        raise ValueError(f"y_{split} must contain only -1 and +1")


def dataset_meta(
    name: str,
    title: str,
    source: str,
    classes: dict[int, str],
    X_train: np.ndarray,
    X_test: np.ndarray | None,
    standardised: bool,
    notes: list[str],
    substitute_for: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The ``meta`` entries every :class:`Dataset` has, then the loader's own (``extra``)."""
    return {
        "name": name,
        "title": title,
        "source": source,
        "substitute": substitute_for is not None,
        "substitute_for": substitute_for,
        "classes": classes,
        "n_train": X_train.shape[0],
        "n_test": 0 if X_test is None else X_test.shape[0],
        "n_features": X_train.shape[1],
        "standardised": standardised,
        "notes": notes,
        **extra,
    }


def standardise_features(
    X_train: np.ndarray, X_test: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
    """Centre and scale features with the statistics of the training rows.

    Parameters
    ----------
    X_train : ndarray of shape (n_train, n_features)
    X_test : ndarray of shape (n_test, n_features) or None

    Returns
    -------
    X_train_std, X_test_std : ndarray (float64, C-contiguous), X_test_std None if X_test is
        ``(X - mean) / scale``.
    mean, scale : ndarray of shape (n_features,)
        Training mean and standard deviation (``ddof=0``); ``scale`` is 1 for a constant
        feature, which is therefore only centred.
    """
    X_train = np.asarray(X_train, dtype=np.float64)
    mean = X_train.mean(axis=0)
    scale = X_train.std(axis=0)
    scale[scale == 0.0] = 1.0
    Xtr = np.ascontiguousarray((X_train - mean) / scale)
    Xte = None
    if X_test is not None:
        Xte = np.ascontiguousarray((np.asarray(X_test, dtype=np.float64) - mean) / scale)
    return Xtr, Xte, mean, scale


def labels_pm1(mask_positive: np.ndarray) -> np.ndarray:
    """int64 labels: +1 where ``mask_positive``, −1 elsewhere."""
    return np.where(mask_positive, 1, -1).astype(np.int64)
