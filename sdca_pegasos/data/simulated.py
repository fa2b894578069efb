"""Simulated data of study 001 (seeds/001 §4.1): X ~ N(0, 1), y = sign(Xβ + N(0, 1) noise).

Generated, never fetched: always available. Two draws: our seeded generator (any size, any
seed, train-only scaling) and the study's own notebook draw (``draw="study001"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .dataset import Dataset, dataset_meta, labels_pm1, standardise_features

__all__ = [
    "SIMULATED_DRAWS",
    "SimulatedData",
    "load_simulated",
    "simulate",
    "simulate_study001",
]

#: ``load_simulated(draw=...)``: our seeded generator, or study 001's notebook draw.
SIMULATED_DRAWS = ("seeded", "study001")


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
    y = labels_pm1(X @ beta + noise >= 0.0)
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
        y=labels_pm1(X @ beta + noise >= 0.0),
        beta=beta,
        noise=noise,
        train_index=train_index,
        test_index=test_index,
    )


def _load_study001() -> Dataset:
    """The notebook's draw, standardised as the notebook did: with all 1000 rows."""
    sim = simulate_study001()
    X, _, mean, scale = standardise_features(sim.X)  # StandardScaler on every row
    Xtr, Xte = np.ascontiguousarray(X[sim.train_index]), np.ascontiguousarray(X[sim.test_index])
    yte = sim.y[sim.test_index]
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
    title = f"simulated, study 001's draw (n={n}, d={d})"
    source = "generated: seeds/001 §4.1, the study's notebook draw"
    raw_accuracy = np.mean(labels_pm1(sim.X[sim.test_index] @ sim.beta >= 0.0) == yte)
    return _dataset(sim, Xtr, Xte, mean, scale, title, source, True, notes,
                    draw="study001", seed=STUDY001_SEED,
                    beta_test_accuracy=float(np.mean(labels_pm1(Xte @ sim.beta >= 0.0) == yte)),
                    beta_test_accuracy_raw=float(raw_accuracy))  # fmt: skip


def _dataset(sim, Xtr, Xte, mean, scale, title, source, standardised, notes, **extra) -> Dataset:
    """Draw ``sim`` as a :class:`Dataset`: its rows scaled as ``Xtr``, ``Xte`` (raw rows are
    ``X * scale + mean``), ``meta`` with ``extra``, then β on the scaled features and the
    scaling statistics."""
    meta = dataset_meta(
        "simulated",
        title,
        source,
        {1: "sign(x·β + ε) = +1", -1: "sign(x·β + ε) = −1"},
        Xtr,
        Xte,
        standardised,
        notes,
        **extra,
        beta_standardised=sim.beta * scale,
        feature_mean=mean,
        feature_scale=scale,
    )
    ytr, yte = sim.y[sim.train_index], sim.y[sim.test_index]
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
        return _load_study001()
    sim = simulate(n_samples, n_features, test_size, seed)
    Xtr_raw, Xte_raw = sim.X[sim.train_index], sim.X[sim.test_index]
    ytr, yte = sim.y[sim.train_index], sim.y[sim.test_index]
    if standardise:
        Xtr, Xte, mean, scale = standardise_features(Xtr_raw, Xte_raw)
    else:
        Xtr, Xte = np.ascontiguousarray(Xtr_raw), np.ascontiguousarray(Xte_raw)
        mean, scale = np.zeros(n_features), np.ones(n_features)
    beta_acc = float(np.mean(labels_pm1(Xte_raw @ sim.beta >= 0.0) == yte))
    notes = [
        "X ~ N(0,1), beta ~ N(0,1), y = sign(X beta + N(0,1) noise), numpy default_rng(seed)",
        f"random {len(ytr)}/{len(yte)} train/test split (test_size={test_size}, ceil)",
        "standardised with TRAIN mean and sd" if standardise else "not standardised",
        "beta is in raw feature space; meta['beta_standardised'] = beta * feature_scale",
    ]
    title = f"simulated (n={n_samples}, d={n_features}, seed {seed})"
    return _dataset(sim, Xtr, Xte, mean, scale, title, "generated: seeds/001 §4.1", standardise,
                    notes, draw="seeded", seed=seed, beta_test_accuracy=beta_acc)  # fmt: skip
