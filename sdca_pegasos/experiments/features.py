"""Beyond both studies: what a LinearSVC user reaches for, on the studies' own data.

Two parts, each a report (``reports/<name>.parquet``, git-ignored, rebuilt by ``python -m
sdca_pegasos.experiments features`` or ``make features``; not a stage of ``make reproduce``: the
raw-crop path to a gap of 1e-6 without shrinking takes hours of CPU):

``beyond_features_path``
    The warm λ path (:func:`sdca_pegasos.solvers.lambda_path`) on blood PCA-40 and raw crops over
    the λ sweep of the λ study (1.6 down to 1/n): every λ to a certified relative duality gap of
    1e-6, warm (each λ from the previous one's dual point) and cold (from α = 0), for SDCA with and
    without shrinking; one row per (data, solver, mode, repeat, λ) with the epochs, the CPU time of
    the fit and the certified relative gap.
``beyond_features_skin``
    ``class_weight="balanced"`` on skin (about 21 % skin pixels against 79 %), λ = 1/n: SDCA-Perm
    against Pegasos, with and without the weights, every epoch of every seed: the update-loop CPU
    time, the objective each configuration minimises (weighted or not), the test error and the
    balanced test error (the mean of the two classes' error rates). Each objective's optimum is
    certified first (SDCA with shrinking to a relative gap of 1e-10,
    :func:`sdca_pegasos.solvers.lambda_path`), and its dual D ≤ P* is stored, so every epoch
    carries a certified suboptimality bound (P(w) − D)/D.

:mod:`sdca_pegasos.figures.beyond_features` draws both (``make features`` builds and draws them);
``benchmarks/lambda_path.py`` prints the PCA-40 path's table from :func:`path_rows`.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from sdca_pegasos.solvers import PegasosClassifier, SDCAClassifier, lambda_path
from sdca_pegasos.solvers.core import objectives

from . import datasets, reports
from .catalogue import BLOOD_LAMBDAS
from .spec import canonical, code_digest

#: The reports this module writes.
PATH_REPORT = "beyond_features_path"
SKIN_REPORT = "beyond_features_skin"

#: Blood representations of the λ study: label -> (dataset, options).
PATH_DATASETS = {"blood PCA-40": ("blood", {"pca": 40}), "blood raw crops": ("blood", {})}
#: The solvers of the path: each an estimator a user calls (the finish: issue 32 item 2).
PATH_CONFIGS = {
    "SDCA": {"shrinking": False, "finish": False},
    "SDCA + shrinking": {"shrinking": True, "finish": False},
    "SDCA + shrinking + finish": {"shrinking": True, "finish": True},
}
#: The relative duality gap every λ of a path is fitted to.
PATH_REL_GAP = 1e-6

SKIN = ("skin", {"test_size": 0.2, "seed": 0})
#: (label, estimator class, parameters) of the class-weight comparison.
SKIN_CONFIGS = (
    ("SDCA-Perm", SDCAClassifier, {"sampling": "permutation", "tol": 0}),
    (
        "SDCA-Perm, balanced",
        SDCAClassifier,
        {"sampling": "permutation", "tol": 0, "class_weight": "balanced"},
    ),
    ("Pegasos", PegasosClassifier, {}),
    ("Pegasos, balanced", PegasosClassifier, {"class_weight": "balanced"}),
)
SKIN_EPOCHS = 40
#: The relative gap to which each skin objective's optimum is certified.
SKIN_CERT_GAP = 1e-10


def path_rows(
    label: str,
    dataset: str,
    options: dict,
    *,
    repeats: int = 3,
    max_epochs: int = 200_000,
    rel_gap: float = PATH_REL_GAP,
) -> pd.DataFrame:
    """Every (solver, mode, repeat, λ) of the warm and cold paths on one dataset, as rows
    (also the body of ``benchmarks/lambda_path.py``)."""
    ds = datasets.load(dataset, options)
    X, y = ds.X_train, ds.y_train
    lmbds = [datasets.resolve_lmbd(lmbd, X.shape[0]) for lmbd in BLOOD_LAMBDAS]
    rows = []
    for config, params in PATH_CONFIGS.items():
        # no intercept, as every experiment (the estimators' default is LinearSVC's intercept)
        base = SDCAClassifier(max_epochs=max_epochs, bias_multiplier=0.0, random_state=0, **params)
        for repeat in range(repeats):
            for warm in (True, False):
                points = lambda_path(base, X, y, lmbds, rel_gap=rel_gap, warm=warm)
                for lmbd_label, p in zip(BLOOD_LAMBDAS, points, strict=True):
                    rows.append(
                        {
                            "dataset": label,
                            "config": config,
                            "mode": "warm" if warm else "cold",
                            "repeat": repeat,
                            "lmbd": p.lmbd,
                            "lmbd_label": str(lmbd_label),
                            "n_train": X.shape[0],
                            "epochs": p.n_epochs,
                            "cpu_seconds": p.cpu_seconds,
                            "update_seconds": p.update_seconds,
                            "rel_gap": p.rel_gap,
                            "reached": p.reached,
                        }
                    )
    return pd.DataFrame(rows)


def balanced_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The mean over the classes of each class's error rate."""
    return float(np.mean([np.mean(y_pred[y_true == c] != c) for c in np.unique(y_true)]))


def skin_rows(seeds: int = 5, epochs: int = SKIN_EPOCHS) -> pd.DataFrame:
    """Every epoch of every seed of the class-weight configurations on skin."""
    ds = datasets.load(*SKIN)
    return class_weight_rows(ds.X_train, ds.y_train, ds.X_test, ds.y_test, seeds, epochs)


def class_weight_rows(X, y, X_test, y_test, seeds: int, epochs: int) -> pd.DataFrame:
    """The class-weight comparison on one split (λ = 1/n), one row per epoch and seed."""
    lmbd = 1.0 / X.shape[0]
    lower = {}  # a certified lower bound D ≤ P* of each objective (unweighted, balanced)
    for cw in (None, "balanced"):
        cert = SDCAClassifier(
            shrinking=True,
            max_epochs=100_000,
            bias_multiplier=0.0,
            random_state=0,
            class_weight=cw,
        )
        (point,) = lambda_path(cert, X, y, [lmbd], rel_gap=SKIN_CERT_GAP)
        if not point.reached:
            raise RuntimeError(f"skin's optimum (class_weight={cw}) was not certified")
        lower[cw] = point.dual
    positive = np.max(y)
    y_pm = np.where(y == positive, 1.0, -1.0)
    counts = {c: np.sum(y == c) for c in np.unique(y)}
    balanced = np.array([len(y) / (2 * counts[c]) for c in y])  # scikit-learn's "balanced"
    rows = []
    for label, cls, params in SKIN_CONFIGS:
        cw = params.get("class_weight")
        c = balanced if cw == "balanced" else None
        for seed in range(seeds):
            records = []

            def record(info, records=records):
                records.append((info.epoch, info.cpu_time, info.setup_time, info.w.copy()))

            est = cls(
                lmbd=lmbd,
                max_epochs=epochs,
                bias_multiplier=0.0,  # the objectives below have no intercept
                random_state=seed,
                callback=record,
                **params,
            )
            est.fit(X, y)
            cpu = 0.0
            for epoch, epoch_cpu, setup, w in records:
                cpu += epoch_cpu + (setup if epoch == 1 else 0.0)  # setup counts once
                primal = objectives.primal(X, y_pm, w, lmbd, 0.0, 0.0, c)
                pred = np.where(X_test @ w[:-1] > 0, positive, np.min(y))
                rows.append(
                    {
                        "config": label,
                        "solver": cls.__name__,
                        "class_weight": cw or "none",
                        "seed": seed,
                        "epoch": epoch,
                        "cpu_time_cum": cpu,
                        "primal": primal,
                        "p_star_lower": lower[cw],
                        "suboptimality": (primal - lower[cw]) / lower[cw],
                        "test_error": float(np.mean(pred != y_test)),
                        "test_error_balanced": balanced_error(y_test, pred),
                        "lmbd": lmbd,
                        "n_train": X.shape[0],
                        "positive_share": float(np.mean(y == positive)),
                    }
                )
    return pd.DataFrame(rows)


def _params(part: str, seeds: int, repeats: int) -> dict:
    """What determines a part's rows (with the code digest): its report is current when its
    sidecar records exactly these."""
    if part == PATH_REPORT:
        return {
            "datasets": PATH_DATASETS,
            "configs": PATH_CONFIGS,
            "lmbds": [str(v) for v in BLOOD_LAMBDAS],
            "rel_gap": PATH_REL_GAP,
            "repeats": repeats,
        }
    labels = [(label, cls.__name__, params) for label, cls, params in SKIN_CONFIGS]
    return {"dataset": SKIN, "configs": labels, "epochs": SKIN_EPOCHS, "seeds": seeds}


def is_current(part: str, seeds: int, repeats: int, root=None) -> bool:
    """Whether ``reports/<part>.parquet`` holds the rows these parameters and this code
    would write (its sidecar says so)."""
    if not reports.report_path(part, root).exists():
        return False
    try:
        side = reports.load_sidecar(part, root)
    except Exception:
        return False
    want = {"code_digest": code_digest(), "params": canonical(_params(part, seeds, repeats))}
    return {k: side.get(k) for k in want} == want


def ensure(
    parts=(PATH_REPORT, SKIN_REPORT), *, seeds: int = 5, repeats: int = 3, root=None, log=print
) -> list:
    """Build the reports of ``parts`` that are not current; returns their paths."""
    paths = []
    for part in parts:
        path = reports.report_path(part, root)
        paths.append(path)
        if is_current(part, seeds, repeats, root):
            log(f"{part}: current ({path})")
            continue
        start = time.perf_counter()
        with threadpool_limits(limits=1):  # one core per fit, as every timing here
            if part == PATH_REPORT:
                frames = []
                for label, (dataset, options) in PATH_DATASETS.items():
                    log(f"{part}: {label} ({len(BLOOD_LAMBDAS)} λ, warm and cold) ...")
                    frames.append(path_rows(label, dataset, options, repeats=repeats))
                frame = pd.concat(frames, ignore_index=True)
            else:
                log(f"{part}: skin, {len(SKIN_CONFIGS)} configurations x {seeds} seeds ...")
                frame = skin_rows(seeds)
        path.parent.mkdir(parents=True, exist_ok=True)
        reports.atomic_write_parquet(frame, path)
        side = {
            "code_digest": code_digest(),
            "params": canonical(_params(part, seeds, repeats)),
            **reports.environment(),
        }
        text = json.dumps(side, indent=2, sort_keys=True, default=str) + "\n"
        reports.atomic_write_text(text, reports.sidecar_path(part, root))
        log(f"{part}: {len(frame)} rows in {time.perf_counter() - start:.0f} s ({path})")
    return paths
