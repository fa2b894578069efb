"""Blood cells as a :class:`~sdca_pegasos.data.dataset.Dataset`: cached crops, raw or PCA-k."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ..dataset import Dataset
from .cache import crops, unit_rows
from .detection import FALLBACK_NAMES, CropParams
from .pca import fit_pca

__all__ = ["load_blood"]


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
    Xtr, Xte = unit_rows(c.X_train), unit_rows(c.X_test)
    s = c.params.crop_size
    notes = [
        "rows are sorted by class (LYMPHOCYTE then NEUTROPHIL, file-name order); not shuffled",
        "crop pipeline of seeds/000 appendix A (sdca_pegasos/data/blood/); negative grey, "
        "nucleus bright",
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
