"""Genomic data (d ≫ n) of study 001: SUBSTITUTES (Gravier 2010, Gordon 2002) or the
study's own relapse data when the user supplies it.

Raw folders ``data/raw/genomic/`` (datamicroarray, ``python -m sdca_pegasos.data fetch genomic``)
and the optional ``data/raw/genomic-original/``; the loader only reads them."""

from __future__ import annotations

import numpy as np

from .dataset import Dataset, dataset_meta, labels_pm1, standardise_features
from .errors import DataError
from .fetch import require
from .paths import raw_root

__all__ = [
    "GENOMIC_VARIANTS",
    "GORDON_FLOOR",
    "load_genomic",
    "read_genomic_original",
    "read_gordon",
    "read_gravier",
]

GENOMIC_VARIANTS = ("gravier", "gordon", "original")
GORDON_FLOOR = 20.0


def _read_rdata(path, key: str) -> dict:
    import rdata

    try:
        return rdata.read_rda(path)[key]
    except KeyError as exc:
        raise DataError(f"{path}: no R object named {key!r}") from exc


def read_gravier(path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Read datamicroarray's ``gravier.RData``: 168 × 2905 aCGH log2 ratios.

    Returns
    -------
    X : ndarray (168, 2905) float64
    y : ndarray (168,) int64
        +1 = "poor" (metastasis within 5 years, 57 samples), −1 = "good" (111).
    feature_names : list of str
    """
    obj = _read_rdata(path, "gravier")
    x, y = obj["x"], obj["y"]
    X = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    labels = np.asarray(y.astype(str))
    if set(labels) != {"good", "poor"}:
        raise DataError(f"{path}: unexpected gravier classes {sorted(set(labels))}")
    return X, labels_pm1(labels == "poor"), [str(c) for c in x.columns]


def read_gordon(path, floor: float = GORDON_FLOOR) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Read datamicroarray's ``gordon.RData``: 181 × 12533 raw Affymetrix intensities.

    The raw average-difference intensities (−3134 to 92377; 22.5 % are ≤ 0) are clipped
    below at ``floor`` and then log2-transformed.

    Returns
    -------
    X : ndarray (181, 12533) float64
        ``log2(max(x, floor))``.
    y : ndarray (181,) int64
        +1 = mesothelioma (31 samples), −1 = adenocarcinoma (150).
    feature_names : list of str
    """
    if floor <= 0:
        raise ValueError(f"floor must be positive, got {floor}")
    obj = _read_rdata(path, "gordon")
    x, y = obj["x"], obj["y"]
    X = np.log2(np.maximum(np.asarray(x, dtype=np.float64), floor))
    labels = np.asarray(y.astype(str))
    if set(labels) != {"adenocarcinoma", "mesothelioma"}:
        raise DataError(f"{path}: unexpected gordon classes {sorted(set(labels))}")
    names = [str(c) for c in np.asarray(x.coords[x.dims[1]].values)] if hasattr(x, "dims") else []
    return np.ascontiguousarray(X), labels_pm1(labels == "mesothelioma"), names


def read_genomic_original(xtrain_path, ytrain_path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Read the study's ``xtrain.txt`` (genes × samples) and ``ytrain.txt`` (±1 per line).

    ``xtrain.txt`` has one gene per row: a gene id, then one whitespace-separated value per
    sample; it is transposed to samples × genes.

    Returns
    -------
    X : ndarray (n_samples, n_genes) float64
    y : ndarray (n_samples,) int64
        +1 = relapse within 5 years, −1 = no relapse.
    gene_ids : list of str
    """
    import pandas as pd

    table = pd.read_csv(xtrain_path, sep=r"\s+", header=None, index_col=0)
    X = np.ascontiguousarray(table.to_numpy(dtype=np.float64).T)
    y = np.loadtxt(ytrain_path, dtype=np.float64, ndmin=1)
    if not np.all((y == 1) | (y == -1)):
        raise DataError(f"{ytrain_path}: labels must be +1 or -1")
    if y.shape[0] != X.shape[0]:
        raise DataError(
            f"{xtrain_path} has {X.shape[0]} sample columns but {ytrain_path} has "
            f"{y.shape[0]} labels"
        )
    return X, y.astype(np.int64), [str(g) for g in table.index]


def load_genomic(
    variant: str = "gravier", standardise: bool = True, floor: float = GORDON_FLOOR
) -> Dataset:
    """Genomic data (d ≫ n), no test split (as the study: ``X_test`` is None).

    Parameters
    ----------
    variant : {"gravier", "gordon", "original"}
        ``"gravier"`` (default): SUBSTITUTE, Gravier et al. 2010 breast-cancer array-CGH,
        168 × 2905, +1 = poor prognosis (57). ``"gordon"``: SUBSTITUTE, Gordon et al. 2002
        lung-cancer expression, 181 × 12533, log2 of intensities clipped below at ``floor``,
        +1 = mesothelioma (31). ``"original"``: the study's relapse data, 184 × 4654, +1 =
        relapse (66), only if ``data/raw/genomic-original/`` holds it (see
        ``python -m sdca_pegasos.data fetch genomic-original``).
    standardise : bool
        Standardise every feature over the samples (the study standardised).
    floor : float
        Gordon only: lower clip of the raw intensities before log2 (default 20).

    Notes
    -----
    ``meta["substitute"]`` is True for gravier and gordon and ``meta["title"]`` says so;
    label every figure and table with ``meta["title"]``.
    """
    study = "the study's breast-cancer relapse data (J.-P. Vert's course, 184 × 4654)"
    if variant == "gravier":
        require("genomic")
        path = raw_root() / "genomic" / "data" / "gravier.RData"
        X, y, names = read_gravier(path)
        title = (
            "genomic substitute: Gravier 2010 breast-cancer aCGH (168×2905), not the study's data"
        )
        source = "datamicroarray (ramhiser) gravier.RData; Gravier et al. 2010, GEO GSE19159"
        classes = {1: "poor (metastasis < 5 y)", -1: "good"}
        notes = ["array-CGH DNA copy-number log2 ratios, NOT mRNA expression"]
        substitute_for = study
    elif variant == "gordon":
        require("genomic")
        path = raw_root() / "genomic" / "data" / "gordon.RData"
        X, y, names = read_gordon(path, floor)
        title = (
            "genomic substitute: Gordon 2002 lung-cancer expression (181×12533, log2), "
            "not the study's data"
        )
        source = "datamicroarray (ramhiser) gordon.RData; Gordon et al. 2002, Cancer Res."
        classes = {1: "mesothelioma", -1: "adenocarcinoma"}
        clipped = float(np.mean(np.log2(floor) >= X))
        notes = [
            f"raw intensities clipped below at {floor:g} ({clipped:.1%} of values), then log2"
        ]
        substitute_for = study
    elif variant == "original":
        require("genomic-original")
        folder = raw_root() / "genomic-original"
        X, y, names = read_genomic_original(folder / "xtrain.txt", folder / "ytrain.txt")
        title = "genomic (study's breast-cancer relapse data, 184×4654)"
        source = "J.-P. Vert's kernel-methods course xtrain.txt / ytrain.txt"
        classes = {1: "relapse within 5 years", -1: "no relapse"}
        notes = ["gene expression, log2 scale"]
        substitute_for = None
    else:
        raise ValueError(f"variant must be one of {GENOMIC_VARIANTS}, got {variant!r}")
    notes.append("no test split (the study's setting): X_test is None")
    if standardise:
        X, _, mean, scale = standardise_features(X)
        notes.append("standardised per feature over all samples")
    else:
        mean, scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
    meta = dataset_meta(
        "genomic",
        title,
        source,
        classes,
        X,
        None,
        standardise,
        notes,
        substitute_for=substitute_for,
        variant=variant,
        feature_names=names,
        feature_mean=mean,
        feature_scale=scale,
    )
    return Dataset(X, y, None, None, meta)
