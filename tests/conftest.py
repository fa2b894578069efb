"""Small shared problems with fixed seeds (STYLE.md, practice 8)."""

from __future__ import annotations

import contextlib
import logging
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from sklearn.datasets import load_breast_cancer, load_digits, load_iris
from sklearn.preprocessing import StandardScaler

# Hypothesis (tests/test_properties.py). "ci", the default: derandomised, so every run draws
# the same examples and CI is deterministic; no example database; no deadline (a first call
# may load compiled kernels from Numba's cache); a failure prints the blob that replays it
# (@reproduce_failure). "dev" (HYPOTHESIS_PROFILE=dev): new random examples on every run,
# failures kept in .hypothesis/ and replayed first.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _standardised(X, y):
    X = StandardScaler().fit_transform(X)
    return np.ascontiguousarray(X), np.where(y == np.unique(y)[1], 1.0, -1.0)


def real_problem(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Small real datasets shipped with scikit-learn, standardised, labels ±1."""
    if name == "cancer":  # 569 x 30
        return _standardised(*load_breast_cancer(return_X_y=True))
    if name == "digits38":  # 357 x 64, digits 3 vs 8
        X, y = load_digits(return_X_y=True)
        keep = (y == 3) | (y == 8)
        return _standardised(X[keep], y[keep])
    if name == "iris":  # 100 x 4, versicolor vs virginica (not separable)
        X, y = load_iris(return_X_y=True)
        return _standardised(X[y > 0], y[y > 0])
    raise KeyError(name)


def gaussian_problem(n=60, d=5, seed=0, zero_rows=(), dtype=np.float64):
    """Noisy linear labels; rows listed in ``zero_rows`` are set to 0."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    X[list(zero_rows)] = 0.0
    return X.astype(dtype), y


@pytest.fixture
def small():
    """60 x 5 Gaussian problem with two zero rows."""
    return gaussian_problem(zero_rows=(3, 17))


class FitRecord:
    """What one ``fit`` handed to its kernels: the epoch index arrays and the state, and the
    samples each epoch stepped on, in order (``visited``: the index array, except for SDCA
    with shrinking, whose kernel draws its passes itself from the seed it is handed)."""

    def __init__(self):
        self.indices: list[np.ndarray] = []
        self.visited: list[np.ndarray] = []
        self.state = None


def engine_class(cls):
    """The engine class an epoch-based estimator class builds for each binary problem."""
    from sdca_pegasos.solvers import ASDCAClassifier, PegasosClassifier, SDCAClassifier
    from sdca_pegasos.solvers.pegasos.estimator import PegasosEngine
    from sdca_pegasos.solvers.sdca.asdca import ASDCAEngine
    from sdca_pegasos.solvers.sdca.estimator import SDCAEngine

    engines = {SDCAClassifier: SDCAEngine, PegasosClassifier: PegasosEngine,
               ASDCAClassifier: ASDCAEngine}  # fmt: skip
    return engines[cls]


@pytest.fixture
def record_fit(monkeypatch):
    """``record_fit(cls)`` -> FitRecord filled by the next fits of ``cls``.

    The record is reset when the fit's engine is built, so after ``fit`` it describes that
    fit (a warm-up fit, which runs first, is overwritten); ``state`` is the engine. SDCA's
    fits make one epoch per call here (``BLOCK_SAMPLES = 0``: the loop's ``draw`` and
    ``step``, the ones recorded; ``tests/test_small_fits.py`` shows that the epochs of one
    call are the same).
    """

    def install(cls):
        from sdca_pegasos.solvers import SDCAClassifier
        from sdca_pegasos.solvers.sdca import estimator as sdca_estimator

        record = FitRecord()
        engine = engine_class(cls)
        init, draw, step = engine.__init__, engine.draw, engine.step
        monkeypatch.setattr(sdca_estimator, "BLOCK_SAMPLES", 0)

        def __init__(self, *args, **kwargs):
            record.indices, record.visited = [], []
            init(self, *args, **kwargs)
            record.state = self

        def _draw(self, k):
            draw(self, k)
            drawn = self.indices
            if cls is SDCAClassifier and drawn.ndim == 2:  # a row per epoch of the call: one
                drawn = drawn[0]
            record.indices.append(np.array(drawn, copy=True))

        def _step(self, k):
            before = getattr(self, "steps", 0)
            step(self, k)
            active = getattr(self, "active", None)
            if isinstance(active, tuple) and not (k == 1 and self.sgd_first):
                record.visited.append(active.order[: self.steps - before].copy())
            else:
                record.visited.append(record.indices[-1])

        monkeypatch.setattr(engine, "__init__", __init__)
        monkeypatch.setattr(engine, "draw", _draw)
        monkeypatch.setattr(engine, "step", _step)
        return record

    return install


@pytest.fixture(autouse=True)
def _no_worker_pool_across_tests():
    """Shut down joblib's worker pool (loky's reusable executor) after each test that
    started one.

    A pool outlives its ``Parallel`` call. Without this, a later test's solver runs would land
    in workers left by a blood-crop test (~85 MB when loky took their reference size), grow
    them past loky's 300 MB leak guard (numba, pandas, compiled kernels), and loky would
    retire them mid-pool with "A worker stopped while some jobs were given to the executor".
    """
    yield
    from joblib.externals.loky import reusable_executor

    executor = reusable_executor._executor  # private: loky has no public "is one running?"
    if executor is not None:
        executor.shutdown(wait=True)


@contextlib.contextmanager
def local_cluster_client(processes: bool = True, **kwargs):
    """A client of its own dask LocalCluster: 2 workers of one thread each, worker processes
    (``processes=False``: threads of this process, whose log records reach the test), quiet
    (the handlers' level only: records still propagate), the dashboard on a free port (None
    would mean the default :8787, which another run may hold); ``kwargs`` go to the cluster."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
            **kwargs,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c
