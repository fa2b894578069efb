"""Loaders: ``data.load(name, ...)`` → a :class:`Dataset` of train/test arrays and metadata.

Loaders are pure: they read verified raw files (see :mod:`data.fetch`) or generate data from a
seed, never download, never shuffle, and raise :class:`~data.errors.DataMissingError` naming
the missing file and the command that fixes it. Costly derived data (blood-cell crops, PCA) is
cached under a key of its parameters by :mod:`data.blood`.

Conventions
-----------
- ``X_train`` / ``X_test`` are C-contiguous float arrays (float64, except raw blood-cell
  crops: float32 in [0, 1]); ``y_train`` / ``y_test`` are int64 arrays of ±1.
- "Standardised" means every feature is centred and scaled to unit variance (``ddof=0``)
  with statistics of the TRAINING rows only, applied unchanged to the test rows; a constant
  feature is centred and left unscaled. One documented exception: study 001's exact
  simulated draw (``load_simulated(draw="study001")``) is scaled with all its rows, as the
  study's notebook did.
- Which class is +1 is in ``meta["classes"]`` (+1 → original class name).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import fetch
from .errors import DataError, DataMissingError
from .paths import raw_root

__all__ = [
    "DATASET_NAMES",
    "SIMULATED_DRAWS",
    "Dataset",
    "SimulatedData",
    "load",
    "load_genomic",
    "load_simulated",
    "load_skin",
    "load_sparse_synthetic",
    "read_genomic_original",
    "read_gordon",
    "read_gravier",
    "read_skin",
    "require",
    "simulate",
    "simulate_study001",
    "standardise_features",
]

DATASET_NAMES = ("simulated", "skin", "genomic", "blood", "sparse-synthetic")
#: ``load_simulated(draw=...)``: our seeded generator, or study 001's notebook draw.
SIMULATED_DRAWS = ("seeded", "study001")
GENOMIC_VARIANTS = ("gravier", "gordon", "original")
GORDON_FLOOR = 20.0


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
        True coefficients (simulated data only, in raw feature space).
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


def _meta(
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


# ----------------------------------------------------------------------------- helpers


def require(name: str) -> None:
    """Raise :class:`DataMissingError` unless a dataset is fetched and verified.

    The message names the first missing (or unverified) file and the command that fixes it.
    """
    if fetch.available(name):
        return
    src = fetch.get_source(name)
    dest = raw_root() / src.name
    missing = fetch.unverified_files(src)
    if missing:
        what = f"{dest / missing[0]} is missing or not verified"
        if len(missing) > 1:
            what += f" ({len(missing)} of {len(fetch.expected_files(src))} files)"
    else:
        what = f"{dest} was never marked complete (no {fetch.MARKER_NAME})"
    fix = f"run `make data` or `python -m data fetch {src.name}`"
    if src.optional or not (src.urls or src.name == "blood-cells"):
        fix = f"run `python -m data fetch {src.name}`.\n" + src.instructions.format(dest=dest)
    raise DataMissingError(f"dataset {src.name!r}: {what}. Fix: {fix}")


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


def _labels(mask_positive: np.ndarray) -> np.ndarray:
    return np.where(mask_positive, 1, -1).astype(np.int64)


# ----------------------------------------------------------------------------- simulated


@dataclass(frozen=True)
class SimulatedData:
    """Raw (unstandardised) simulated data and its generating quantities.

    ``y = sign(X @ beta + noise)`` holds exactly, with sign(0) = +1.
    """

    X: np.ndarray
    y: np.ndarray
    beta: np.ndarray
    noise: np.ndarray
    train_index: np.ndarray
    test_index: np.ndarray


def simulate(
    n_samples: int = 1000, n_features: int = 10, test_size: float = 0.33, seed: int = 0
) -> SimulatedData:
    """Generate the simulated data of study B (seeds/001 §4.1), before standardisation.

    With ``rng = np.random.default_rng(seed)``, in this order: ``X = rng.standard_normal
    ((n_samples, n_features))``, ``beta = rng.standard_normal(n_features)``, ``noise =
    rng.standard_normal(n_samples)``, ``y = sign(X @ beta + noise)``; then
    ``perm = rng.permutation(n_samples)``: the first ``ceil(test_size * n_samples)`` indices
    (sorted) are the test rows, the rest (sorted) the training rows. With the defaults:
    670 training and 330 test rows (``ceil`` as in scikit-learn's ``train_test_split``).

    Returns
    -------
    SimulatedData
    """
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size}")
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features))
    beta = rng.standard_normal(n_features)
    noise = rng.standard_normal(n_samples)
    y = _labels(X @ beta + noise >= 0.0)
    n_test = math.ceil(test_size * n_samples)
    perm = rng.permutation(n_samples)
    return SimulatedData(
        X=X,
        y=y,
        beta=beta,
        noise=noise,
        train_index=np.sort(perm[n_test:]),
        test_index=np.sort(perm[:n_test]),
    )


#: Study 001's notebook draw: legacy seed, sizes, split (REFERENCE.md, "Study B").
STUDY001_SEED, STUDY001_SHAPE, STUDY001_TEST_SIZE, STUDY001_SPLIT_SEED = 10, (1000, 10), 0.33, 42


def simulate_study001() -> SimulatedData:
    """Study 001's exact simulated draw, before standardisation (its notebook, REFERENCE.md).

    The notebook ran ``np.random.seed(10)``, ``X = np.random.randn(1000, 10)``, ``beta =
    np.random.randn(10)``, ``y = sign(X @ beta + np.random.randn(1000))``. A
    ``np.random.RandomState(10)`` gives the same stream (NumPy keeps the legacy generator's
    stream fixed) without touching the global state. The split is the notebook's
    ``train_test_split(test_size=0.33, random_state=42)``: 670 training rows in that
    function's shuffled order (kept: cyclic SDCA visits them in it) and 330 test rows.
    """
    from sklearn.model_selection import train_test_split

    rng = np.random.RandomState(STUDY001_SEED)
    X = rng.randn(*STUDY001_SHAPE)
    beta = rng.randn(STUDY001_SHAPE[1])
    noise = rng.randn(STUDY001_SHAPE[0])
    train_index, test_index = train_test_split(
        np.arange(STUDY001_SHAPE[0]),
        test_size=STUDY001_TEST_SIZE,
        random_state=STUDY001_SPLIT_SEED,
    )
    return SimulatedData(
        X=X,
        y=_labels(X @ beta + noise >= 0.0),
        beta=beta,
        noise=noise,
        train_index=train_index,
        test_index=test_index,
    )


def _load_simulated_study001() -> Dataset:
    """The notebook's draw, standardised as the notebook did: with all 1000 rows."""
    sim = simulate_study001()
    X, _, mean, scale = standardise_features(sim.X)  # StandardScaler on every row
    Xtr, Xte = np.ascontiguousarray(X[sim.train_index]), np.ascontiguousarray(X[sim.test_index])
    ytr, yte = sim.y[sim.train_index], sim.y[sim.test_index]
    n, d = STUDY001_SHAPE
    notes = [
        "study 001's notebook draw: RandomState(10) -> X = randn(1000, 10), beta = randn(10), "
        "y = sign(X beta + randn(1000))",
        "standardised with the mean and sd of ALL 1000 rows, as the notebook (the test rows "
        "take part in the scaling); then train_test_split(test_size=0.33, random_state=42)",
        "beta_test_accuracy: the notebook's score, sign(X_test_standardised @ beta); "
        "beta_test_accuracy_raw: sign(X_test_raw @ beta), the generating rule",
        "lambda = 1/1000 in the study: 1/n of all samples, not of the 670 training rows",
    ]
    meta = _meta(
        "simulated",
        f"simulated, study 001's draw (n={n}, d={d})",
        "generated: seeds/001 §4.1, the study's notebook draw",
        {1: "sign(x·β + ε) = +1", -1: "sign(x·β + ε) = −1"},
        Xtr,
        Xte,
        True,
        notes,
        draw="study001",
        seed=STUDY001_SEED,
        beta_test_accuracy=float(np.mean(_labels(Xte @ sim.beta >= 0.0) == yte)),
        beta_test_accuracy_raw=float(
            np.mean(_labels(sim.X[sim.test_index] @ sim.beta >= 0.0) == yte)
        ),
        beta_standardised=sim.beta * scale,
        feature_mean=mean,
        feature_scale=scale,
    )
    return Dataset(Xtr, ytr, Xte, yte, meta, beta=sim.beta.copy())


def load_simulated(
    seed: int = 0,
    n_samples: int = 1000,
    n_features: int = 10,
    test_size: float = 0.33,
    standardise: bool = True,
    draw: str = "seeded",
) -> Dataset:
    """Simulated linear-SVM data of study B: X ~ N(0, 1), y = sign(Xβ + N(0, 1) noise).

    ``draw="seeded"`` (default): fully determined by ``seed`` (see :func:`simulate`), any
    size; features standardised with the training statistics. ``draw="study001"``: the
    study's own draw (:func:`simulate_study001`), scaled with all rows as its notebook did; it
    takes no other option. ``beta`` is returned in raw feature space; ``meta`` also holds:

    ``beta_test_accuracy``
        Accuracy of ``sign(X_test_raw @ beta)`` on the test labels (seeded draws); for the
        study's draw, its notebook's score ``sign(X_test_standardised @ beta)``: 0.8788
        (``beta_test_accuracy_raw`` has the other).
    ``beta_standardised``
        ``beta * scale``: the same linear score on standardised features, up to the
        constant offset ``mean @ beta`` that a model without intercept cannot represent.
    ``feature_mean``, ``feature_scale``
        Scaling statistics; raw features are ``X * feature_scale + feature_mean``.
    """
    if draw not in SIMULATED_DRAWS:
        raise ValueError(f"unknown simulated draw {draw!r}; expected one of {SIMULATED_DRAWS}")
    if draw == "study001":
        given = {"seed": seed, "n_samples": n_samples, "n_features": n_features}
        given |= {"test_size": test_size, "standardise": standardise}
        if given != {
            "seed": 0,
            "n_samples": 1000,
            "n_features": 10,
            "test_size": 0.33,
            "standardise": True,
        }:
            raise ValueError(
                f"draw='study001' is the study's fixed draw (1000 x 10, its split, standardised):"
                f" it takes no other option, got {given}; use draw='seeded' to vary them"
            )
        return _load_simulated_study001()
    sim = simulate(n_samples, n_features, test_size, seed)
    Xtr_raw, Xte_raw = sim.X[sim.train_index], sim.X[sim.test_index]
    ytr, yte = sim.y[sim.train_index], sim.y[sim.test_index]
    if standardise:
        Xtr, Xte, mean, scale = standardise_features(Xtr_raw, Xte_raw)
    else:
        Xtr, Xte = np.ascontiguousarray(Xtr_raw), np.ascontiguousarray(Xte_raw)
        mean, scale = np.zeros(n_features), np.ones(n_features)
    beta_acc = float(np.mean(_labels(Xte_raw @ sim.beta >= 0.0) == yte))
    notes = [
        "X ~ N(0,1), beta ~ N(0,1), y = sign(X beta + N(0,1) noise), numpy default_rng(seed)",
        f"random {len(ytr)}/{len(yte)} train/test split (test_size={test_size}, ceil)",
        "standardised with TRAIN mean and sd" if standardise else "not standardised",
        "beta is in raw feature space; meta['beta_standardised'] = beta * feature_scale",
    ]
    meta = _meta(
        "simulated",
        f"simulated (n={n_samples}, d={n_features}, seed {seed})",
        "generated: seeds/001 §4.1",
        {1: "sign(x·β + ε) = +1", -1: "sign(x·β + ε) = −1"},
        Xtr,
        Xte,
        standardise,
        notes,
        draw="seeded",
        seed=seed,
        beta_test_accuracy=beta_acc,
        beta_standardised=sim.beta * scale,
        feature_mean=mean,
        feature_scale=scale,
    )
    return Dataset(Xtr, ytr, Xte, yte, meta, beta=sim.beta.copy())


# ----------------------------------------------------------------------------- skin


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
    return np.ascontiguousarray(table[:, :3], dtype=np.float64), _labels(labels == 1)


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
    require("skin")
    X, y = read_skin(raw_root() / "skin" / "Skin_NonSkin.txt")
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
    meta = _meta(
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


# ----------------------------------------------------------------------------- genomic


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
    return X, _labels(labels == "poor"), [str(c) for c in x.columns]


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
    return np.ascontiguousarray(X), _labels(labels == "mesothelioma"), names


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
        ``python -m data fetch genomic-original``).
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
    meta = _meta(
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


# ----------------------------------------------------------------------------- sparse


def load_sparse_synthetic(
    seed: int = 0,
    n_samples: int = 10_000,
    n_features: int = 30_000,
    nnz_per_row: float = 60.0,
    test_size: float = 0.25,
) -> Dataset:
    """SYNTHETIC sparse text-like data with rcv1's statistics, as CSR (never densified).

    Drawn by :func:`data.sparse_synthetic.generate` (seeded: power-law column frequencies,
    unit-norm tf-idf-like rows, about 52 % positive); the defaults are a smaller matrix than
    rcv1.binary's 20,242 × 47,236 (74 nonzeros per row) so that a 100-seed experiment runs
    in minutes (``generate()``'s defaults give rcv1's size). Split stratified with ``seed``;
    rows already have unit norm, so nothing is standardised. Not real data: ``meta["title"]``
    says SYNTHETIC and ``meta["substitute_for"]`` names rcv1.
    """
    from sklearn.model_selection import train_test_split

    from .sparse_synthetic import generate

    X, y, info = generate(n_samples, n_features, nnz_per_row, seed=seed)
    y = y.astype(np.int64)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=test_size, stratify=y, random_state=seed
    )
    X_tr, X_te = sp.csr_matrix(X_tr), sp.csr_matrix(X_te)
    for M in (X_tr, X_te):
        M.sort_indices()  # row slicing keeps each row's order; stated, not assumed
    meta = _meta(
        "sparse-synthetic",
        f"SYNTHETIC sparse, rcv1-like ({n_samples} x {n_features}, seed {seed})",
        info["source"],
        {1: "positive", -1: "negative"},
        X_tr,
        X_te,
        False,
        [
            "SYNTHETIC: a seeded generator with rcv1.binary's published statistics, not rcv1",
            f"{info['nnz_per_row']:.1f} nonzeros per row, density {info['density']:.2e}",
        ],
        substitute_for=info["substitute_for"],
        nnz_per_row=info["nnz_per_row"],
        density=info["density"],
    )
    return Dataset(X_tr, y_tr, X_te, y_te, meta)


# ----------------------------------------------------------------------------- dispatch


def load(name: str, **kwargs: Any) -> Dataset:
    """Load a dataset by name.

    Parameters
    ----------
    name : {"simulated", "skin", "genomic", "blood", "sparse-synthetic"}
        ``"blood-cells"`` is accepted for ``"blood"``.
    **kwargs
        Passed to :func:`load_simulated`, :func:`load_skin`, :func:`load_genomic`,
        :func:`data.blood.load_blood` or :func:`load_sparse_synthetic`.

    Returns
    -------
    Dataset

    Raises
    ------
    DataMissingError
        The raw data is absent or unverified; the message names the file and the fix
        (``make data`` / ``python -m data fetch NAME``).
    """
    if name == "simulated":
        return load_simulated(**kwargs)
    if name == "skin":
        return load_skin(**kwargs)
    if name == "genomic":
        return load_genomic(**kwargs)
    if name in ("blood", "blood-cells"):
        from .blood import load_blood

        return load_blood(**kwargs)
    if name == "sparse-synthetic":
        return load_sparse_synthetic(**kwargs)
    raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASET_NAMES)}")
