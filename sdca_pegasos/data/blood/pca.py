"""Blood-cell crops, PCA: the whitened PCA fit, its reconstructions, the singular values.

Everything here is fit on the TRAINING crops only and cached next to the crops, keyed by
the crop cache key (:func:`sdca_pegasos.data.blood.cache.crop_cache_key`).
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ..paths import atomic_path
from .cache import cache_dir, crops, unit_rows
from .detection import CropParams

__all__ = ["fit_pca", "pca_reconstructions", "singular_values"]


def _pca_path(n_components: int, crop_key: str) -> Path:
    import sklearn

    blob = f"pca|{n_components}|whiten|svd_full|sklearn {sklearn.__version__}|{crop_key}"
    key = hashlib.sha256(blob.encode()).hexdigest()[:20]
    return cache_dir() / f"pca{n_components}-{key}.joblib"


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
    pca.fit(unit_rows(c.X_train))
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
    path = cache_dir() / f"sv-{c.key}.npy"
    values = None
    if path.is_file():
        try:
            values = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            warnings.warn(f"{path}: unreadable cache ({exc}); recomputing", stacklevel=2)
    if values is None:
        values = _singular_values(unit_rows(c.X_train))
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
        rebuilt = pca.inverse_transform(pca.transform(unit_rows(images)))
    s = c.params.crop_size
    return np.asarray(rebuilt, dtype=np.float32).reshape(len(images), s, s)
