"""The problem a user means: a stratified split, features scaled on the training rows only,
an intercept through the solvers' bias multiplier, and every choice said in words.

Scaling (``scale``): ``"standard"`` centres each feature and divides it by its standard
deviation (scikit-learn's ``StandardScaler``), ``"maxabs"`` divides each by its largest
absolute value (``MaxAbsScaler``: zeros stay zeros, so CSR stays CSR), ``"none"`` leaves the
file's values; ``"auto"`` is standard for dense data and max-abs for sparse data. The
statistics come from the training split only and are applied unchanged to the test rows.

The intercept (``intercept=True``, the default, as scikit-learn's ``LinearSVC``) is a
constant feature B = 1 appended to every sample through the solvers' ``bias_multiplier``; its
weight is regularised like the others (as liblinear's ``intercept_scaling``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from sdca_pegasos.data import Dataset
from sdca_pegasos.solvers import check_lmbd
from sdca_pegasos.solvers.core import objectives

from .inputs import BadInput

SCALES = ("auto", "standard", "maxabs", "none")
#: The bias multiplier B of ``--intercept`` (LinearSVC's ``intercept_scaling`` default).
INTERCEPT_SCALING = 1.0
#: ``--scale none`` warns when the features' largest absolute values differ by more.
SCALE_SPREAD_WARNING = 1e3

SCALE_WORDS = {
    "standard": "standardised (centred, unit variance; statistics of the training rows)",
    "maxabs": "scaled by their largest absolute value on the training rows (zeros kept)",
    "none": "as in the file (no scaling)",
}


@dataclass(frozen=True)
class Problem:
    """The split, scaled data and the problem's words.

    Attributes
    ----------
    dataset : data.Dataset
        Scaled training and test rows, labels ±1 (no test rows for ``test_size=0``).
    scale : {"standard", "maxabs", "none"}
        The scaling applied (``"auto"`` resolved).
    bias : float
        The bias multiplier B (0: no intercept).
    warnings : list of str
        Said on the terminal and in the summary (e.g. ``--scale none`` on features whose
        scales differ by more than 1e3).
    """

    dataset: Dataset
    scale: str
    bias: float
    warnings: list[str] = field(default_factory=list)

    @property
    def words(self) -> str:
        """One sentence: the problem solved (a figure caption, the summary, the report)."""
        intercept = (
            f"with an intercept (bias multiplier B = {self.bias:g}, regularised like the "
            "weights, as LinearSVC)"
            if self.bias
            else "without an intercept"
        )
        return f"Hinge-loss linear SVM {intercept}; features {SCALE_WORDS[self.scale]}."


def make(
    path,
    X,
    y,
    test_size: float,
    scale: str,
    intercept: bool,
    meta: dict,
    batches: dict[str, int] | None = None,
    chosen=(),
) -> Problem:
    """Split (stratified, seed 0), scale, and check that the solvers can take the result.
    ``batches`` and ``chosen`` as in :func:`check_batches`: a refused split names the
    mini-batches too large for all the samples with its fix."""
    if scale not in SCALES:
        raise BadInput(f"--scale {scale!r}: expected one of {', '.join(SCALES)}")
    resolved = ("maxabs" if sp.issparse(X) else "standard") if scale == "auto" else scale
    if resolved == "standard" and sp.issparse(X):
        raise BadInput(
            f"{path}: --scale standard centres every feature, which would make this sparse "
            "file dense; use --scale maxabs (the default for sparse data) or none"
        )
    X_tr, y_tr, X_te, y_te = _split(path, X, y, test_size, batches or {}, chosen)
    warnings = []
    if resolved != "none":
        X_tr, X_te = _scaled(path, resolved, X_tr, X_te)
    else:
        ratio = _feature_scale_ratio(X_tr)
        if ratio > SCALE_SPREAD_WARNING:
            warnings.append(
                f"--scale none: the features' largest absolute values differ by a factor of "
                f"{ratio:.1e}; the large ones will dominate the steps and the regulariser "
                "(--scale auto standardises them)"
            )
    bias = INTERCEPT_SCALING if intercept else 0.0
    meta = {**meta, "scale": resolved, "bias_multiplier": bias}
    dataset = Dataset(X_tr, y_tr, X_te, y_te, meta)
    return Problem(dataset, resolved, bias, warnings)


def check_lmbds(path, problem: Problem, lmbds: list[float]) -> None:
    """Refuse a λ the estimators would refuse (float64 overflow), naming the smallest usable one:
    the estimators' own check (:func:`sdca_pegasos.solvers.check_lmbd`), made before anything is
    written."""
    X = problem.dataset.X_train
    with np.errstate(over="ignore"):
        r2 = float(objectives.row_sq_norms(X, problem.bias).max())
    if not math.isfinite(r2):
        raise BadInput(
            f"{path}: a squared row norm overflows float64 (values too large for the "
            "solvers); use --scale auto or divide the values by a power of ten"
        )
    for lmbd in lmbds:
        try:
            check_lmbd(X, lmbd, bias=problem.bias)
        except ValueError as exc:
            raise BadInput(f"--lmbd {lmbd:g} is too small for these data. {exc}") from None


def check_batches(
    path, problem: Problem, batches: dict[str, int], chosen: tuple[str, ...], test_size: float
) -> None:
    """Refuse the ``chosen`` solvers whose mini-batch is larger than the training set (the
    estimators refuse it at fit time, after DIR is written), naming them and the fixes:
    ``--solvers`` without them, or a smaller ``--test-size`` where one leaves enough rows.

    ``batches``: every solver's short name (``--solvers``) -> its batch size.
    """
    ds = problem.dataset
    n_train = ds.n_train
    n = n_train + (0 if ds.X_test is None else ds.X_test.shape[0])
    refused = _batch_refusal(n_train, batches, chosen)
    if refused is None:
        return
    which, fix = refused
    fixes = [fix]
    k = max(batches[name] for name in chosen)
    if test_size > 0 and n >= k:
        smaller = math.floor(100 * (n - k) / n) / 100
        if math.ceil(smaller * n) >= 2:  # a test split of at least 2 samples
            fixes.append(f"hold out fewer samples: --test-size {smaller:g} or less")
        else:
            fixes.append(f"train on all {n} samples: --test-size 0 (no test set)")
    raise BadInput(
        f"{path}: {n_train} training samples, fewer than the mini-batch of {which}; "
        + ", or ".join(fixes)
    )


def _batch_refusal(n_train: int, batches: dict[str, int], chosen) -> tuple[str, str] | None:
    """None where every ``chosen`` solver's mini-batch fits ``n_train`` training samples,
    else the refused ones in words (``"asdca (8)"``) and the fix that leaves them out (the
    other chosen solvers, or every solver that fits where none of the chosen does)."""
    large = [name for name in chosen if batches[name] > n_train]
    if not large:
        return None
    fits = [name for name in chosen if name not in large]
    fits = fits or [name for name, size in batches.items() if size <= n_train]
    them = "it" if len(large) == 1 else "them"
    which = " and ".join(f"{name} ({batches[name]})" for name in large)
    return which, f"leave {them} out: --solvers {' '.join(fits)}"


def _split(path, X, y, test_size: float, batches: dict[str, int], chosen):
    """The stratified split (seed 0), or a refusal whose fix is the whole of it: with
    ``--test-size 0`` the solvers of ``chosen`` whose mini-batch (``batches``) is larger
    than all the samples would be refused next (:func:`check_batches`), so it says both."""
    from sklearn.model_selection import train_test_split

    if test_size == 0:
        return X, y, None, None
    counts = np.unique(y, return_counts=True)[1]
    n_test = math.ceil(test_size * y.shape[0])
    if counts.min() < 2 or n_test < 2 or y.shape[0] - n_test < 2:
        refused = _batch_refusal(y.shape[0], batches, chosen)
        also = (
            ""
            if refused is None
            else f"; then all {y.shape[0]} are fewer than the mini-batch of {refused[0]}: "
            f"{refused[1]}"
        )
        raise BadInput(
            f"{path}: too few samples for a test split of {test_size:g} "
            f"({y.shape[0]} samples, smallest class {counts.min()}); pass --test-size 0{also}"
        )
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=test_size, stratify=y, random_state=0
    )
    if sp.issparse(X):
        X_tr, X_te = sp.csr_matrix(X_tr), sp.csr_matrix(X_te)
        X_tr.sort_indices()
        X_te.sort_indices()
    else:
        X_tr, X_te = np.ascontiguousarray(X_tr), np.ascontiguousarray(X_te)
    return X_tr, y_tr, X_te, y_te


def _scaled(path, scale: str, X_tr, X_te):
    """Scaled copies, statistics from the training rows; a feature whose statistics
    overflow float64 is refused by name."""
    from sklearn.preprocessing import MaxAbsScaler, StandardScaler

    scaler = StandardScaler() if scale == "standard" else MaxAbsScaler()
    with np.errstate(over="ignore", invalid="ignore"):
        scaler.fit(X_tr)
    stats = scaler.scale_ if scale == "maxabs" else np.r_[scaler.scale_, scaler.mean_]
    if not np.all(np.isfinite(stats)):
        d = X_tr.shape[1]
        feature = int(np.flatnonzero(~np.isfinite(stats))[0]) % d
        raise BadInput(
            f"{path}: feature {feature + 1}: values too large to {scale}-scale in float64 "
            "(their squares overflow); divide them by a power of ten first, or use --scale "
            "maxabs"
        )
    out = []
    for X in (X_tr, X_te):
        if X is None:
            out.append(None)
            continue
        Xs = scaler.transform(X)
        if sp.issparse(Xs):
            Xs = sp.csr_matrix(Xs, dtype=np.float64)
            Xs.sort_indices()
        else:
            Xs = np.ascontiguousarray(Xs, dtype=np.float64)
        out.append(Xs)
    return out[0], out[1]


def _feature_scale_ratio(X) -> float:
    """Largest over smallest per-feature max |x| (features not all zero)."""
    if sp.issparse(X):
        peak = np.asarray(abs(X).max(axis=0).todense()).ravel()
    else:
        peak = np.abs(X).max(axis=0)
    peak = peak[peak > 0]
    return float(peak.max() / peak.min()) if peak.size else 1.0
