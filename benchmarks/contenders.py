r"""The solvers under test: this project's and the peers, each one timed ``fit`` from scratch.

Every solver minimises the same problem,

.. math::

    P(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i \max(0, 1 - y_i x_i^\top w)

(no intercept), each through its own parametrisation: liblinear, skglm and ReHLine with
``C = 1/(λn)`` (they minimise ``½‖w‖² + C Σ hinge = P/λ``), Snap ML with
``regularizer = λn`` (``Σ hinge + regularizer/2 ‖w‖² = nP``; its docs do not state the
objective: checked numerically, at λ = 1 it reaches ``(P − P*)/P* ≈ 1e-11``, while
``regularizer = λ`` stays 50 % away; ``tests/test_bench_peers.py`` keeps that check) and
lightning with ``alpha = λ`` (its docstring: mean loss + α/2‖w‖²).

The CPU time (``time.process_time``) of the ``fit`` call alone is recorded; peers get
``n_jobs=1`` where they have it. A peer that does not import here is skipped with its
reason, never silently.
"""

from __future__ import annotations

import importlib.metadata
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sdca_pegasos.experiments.reports import git_commit  # shared with the run sidecars
from sdca_pegasos.solvers import ExactSVMClassifier, SDCAClassifier
from sdca_pegasos.solvers.core import objectives

from .certify import TARGETS


@dataclass
class Fit:
    cpu: float
    coef: np.ndarray  # (n_features,), float64
    dual_coef: np.ndarray | None = None  # signed α of this project's dual, y_i α_i in [0, 1]


#: Tolerances of the ``tol`` sweeps, loosest first.
PEER_TOLS = tuple(10.0**-k for k in range(1, 13))

#: ``fit(X, y, lmbd, max_iter, tol, max_cpu) -> Fit``: one timed fit from scratch.
FitFn = Callable[[np.ndarray, np.ndarray, float, int, float, float], Fit]


@dataclass
class Solver:
    """A solver as the sweeps see it, and the budget knobs they turn.

    ``knobs``: ``"iter"`` refits with growing iteration counts at the smallest tolerance
    the solver accepts (``iter_tol``); ``"tol"`` refits with shrinking tolerances at an
    iteration cap (twice the largest count the ``iter`` sweep used, else ``tol_cap``). A
    solver's time to ε is the better of its sweeps: shrinking solvers (liblinear, ReHLine)
    restore the shrunk variables only when their tolerance test passes, so at a tolerance
    they never meet they can stall early (liblinear at tol = 1e-12: 1.8e-4 on a 300 × 20
    problem where tol = 1e-10 reaches 4e-13); the ``tol`` sweep runs them as designed.
    """

    name: str
    family: str  # "ours" or "peer"
    package: str
    version: str
    fit: FitFn
    knobs: tuple[str, ...] = ("iter", "tol")
    iter_name: str = "max_iter"
    iter_tol: float = 0.0
    tol_cap: int = 1000
    tols: tuple[float, ...] = PEER_TOLS
    float64_only: bool = True  # peers computing in float64 get a float64 copy, made untimed
    sparse: bool = True


def timed_fit(est, X, y) -> Fit:
    """``est.fit(X, y)`` timed in CPU seconds, its coefficients as a float64 vector."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at small budgets is the point
        start = time.process_time()
        est.fit(X, y)
        cpu = time.process_time() - start
    return Fit(cpu, np.asarray(est.coef_, dtype=np.float64).ravel().copy())


def version_of(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def our_solvers() -> list[Solver]:
    """SDCA-Perm, SDCA-Perm with shrinking (with and without its exact finish), and
    ExactSVMClassifier (the exact engine as an estimator): each row a solver a user can
    call."""
    ours = version_of("sdca-pegasos") + "+" + git_commit()[:10]

    def sdca(**params) -> FitFn:
        def fit(X, y, lmbd, max_iter, tol, max_cpu):
            est = SDCAClassifier(
                lmbd=lmbd,
                tol=tol,
                tol_gap="absolute",
                max_epochs=int(max_iter),
                bias_multiplier=0.0,  # no intercept, as every contender here
                random_state=0,
                **params,
            )
            result = timed_fit(est, X, y)
            result.dual_coef = est.dual_coef_
            return result

        return fit

    def exact(X, y, lmbd, max_iter, tol, max_cpu):
        est = ExactSVMClassifier(
            lmbd=lmbd, tol=tol, max_cpu=max_cpu, bias_multiplier=0.0, random_state=0
        )
        result = timed_fit(est, X, y)
        result.dual_coef = est.dual_coef_
        return result

    common = {"family": "ours", "package": "sdca-pegasos", "version": ours, "float64_only": False}
    return [
        # tol > 0 would add a gap pass per epoch and stops nothing earlier: iterations only
        Solver(
            "SDCA-Perm (ours)",
            fit=sdca(shrinking=False),
            knobs=("iter",),
            iter_name="max_epochs",
            **common,
        ),
        Solver(
            "SDCA-Perm + shrinking (ours)",
            fit=sdca(shrinking=True, finish=False),
            iter_name="max_epochs",
            **common,
        ),
        Solver(
            "SDCA-Perm + shrinking + finish (ours)",
            fit=sdca(shrinking=True, finish=True),
            iter_name="max_epochs",
            **common,
        ),
        # the estimator over the exact engine, with a relative-gap target: each fit aims at
        # one ε (and certifies it)
        Solver("ExactSVMClassifier (ours)", fit=exact, knobs=("tol",), tols=TARGETS, **common),
    ]


def peer_solvers() -> tuple[list[Solver], dict[str, str]]:
    """The peers that import here, and the reason for each one that does not."""
    peers: list[Solver] = []
    skipped: dict[str, str] = {}
    missing = "not installed ({}); `make bench-peers` installs the .[bench] extra"

    from sklearn.svm import LinearSVC

    def liblinear(X, y, lmbd, max_iter, tol, max_cpu):
        C = objectives.lmbd_to_C(lmbd, X.shape[0])
        return timed_fit(
            LinearSVC(
                loss="hinge",
                dual=True,
                fit_intercept=False,
                C=C,
                tol=tol,
                max_iter=int(max_iter),
                random_state=0,
            ),
            X,
            y,
        )

    peers.append(
        Solver(
            "liblinear (scikit-learn LinearSVC)",
            "peer",
            "scikit-learn",
            version_of("scikit-learn"),
            liblinear,
            iter_tol=1e-12,
        )
    )

    try:
        import snapml

        def snap(X, y, lmbd, max_iter, tol, max_cpu):
            est = snapml.SupportVectorMachine(
                regularizer=lmbd * X.shape[0], fit_intercept=False, n_jobs=1,
                max_iter=int(max_iter), tol=tol, random_state=0,
            )  # fmt: skip
            return timed_fit(est, X, y)

        peers.append(
            Solver(
                "Snap ML SupportVectorMachine",
                "peer",
                "snapml",
                version_of("snapml"),
                snap,
                float64_only=False,
            )
        )
    except ImportError as exc:
        skipped["Snap ML"] = missing.format(exc)

    try:
        import skglm

        def skglm_fit(X, y, lmbd, max_iter, tol, max_cpu):
            C = objectives.lmbd_to_C(lmbd, X.shape[0])
            est = skglm.LinearSVC(C=C, fit_intercept=False, max_iter=int(max_iter), tol=tol)
            return timed_fit(est, X, y)

        peers.append(
            Solver(
                "skglm LinearSVC",
                "peer",
                "skglm",
                version_of("skglm"),
                skglm_fit,
                # iterations only: one fit at tol = 0.1 and 16 outer iterations ran 372 s
                # on raw crops (up to 50,000 inner epochs per subproblem), and the
                # tolerance sweep never beat the iteration sweep (PCA-40, skin, dense)
                knobs=("iter",),
                iter_tol=1e-14,
            )
        )
    except ImportError as exc:
        skipped["skglm"] = missing.format(exc)

    try:
        import rehline

        def rehline_fit(X, y, lmbd, max_iter, tol, max_cpu):
            C = objectives.lmbd_to_C(lmbd, X.shape[0])
            est = rehline.plq_Ridge_Classifier(
                loss={"name": "svm"}, C=C, fit_intercept=False, max_iter=int(max_iter), tol=tol
            )
            result = timed_fit(est, X, y)
            a = np.ravel(est._Lambda)  # ReLU multipliers: a_i in [0, 1], our dual variable
            result.dual_coef = y * a if a.shape[0] == X.shape[0] else None
            return result

        peers.append(
            Solver(
                "ReHLine plq_Ridge_Classifier",
                "peer",
                "rehline",
                version_of("rehline"),
                rehline_fit,
                iter_tol=1e-14,
                sparse=False,
            )
        )
    except ImportError as exc:
        skipped["ReHLine"] = missing.format(exc)

    try:
        from lightning.classification import SDCAClassifier as LightningSDCA

        def lightning_fit(X, y, lmbd, max_iter, tol, max_cpu):
            est = LightningSDCA(
                alpha=lmbd, loss="hinge", max_iter=int(max_iter), tol=tol, random_state=0
            )
            result = timed_fit(est, X, y)
            dual = np.ravel(est.dual_coef_) * (lmbd * X.shape[0])  # stored as α / (λn)
            result.dual_coef = dual if dual.shape[0] == X.shape[0] else None
            return result

        peers.append(
            Solver(
                "lightning SDCAClassifier",
                "peer",
                "sklearn-contrib-lightning",
                version_of("sklearn-contrib-lightning"),
                lightning_fit,
                iter_tol=1e-15,
            )
        )
    except Exception as exc:  # an ABI mismatch surfaces as ValueError/AttributeError too
        skipped["lightning"] = (
            f"not importable ({type(exc).__name__}: {exc}); it has no wheel for Python 3.11 "
            "and its sdist builds only with `pip install cython && pip install "
            "--no-build-isolation sklearn-contrib-lightning` (make bench-peers tries this)"
        )
    return peers, skipped
