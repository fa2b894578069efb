r"""Time to ε: this project's solvers against one-thread peers on one SVM objective (issue 11).

Every solver minimises the same problem,

.. math::

    P(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i \max(0, 1 - y_i x_i^\top w)

(no intercept), each through its own parametrisation: liblinear, skglm and ReHLine with
``C = 1/(λn)`` (they minimise ``½‖w‖² + C Σ hinge = P/λ``), Snap ML with
``regularizer = λn`` (``Σ hinge + regularizer/2 ‖w‖² = nP``; its docs do not state the
objective: checked numerically, at λ = 1 it reaches ``(P − P*)/P* ≈ 1e-11``, while
``regularizer = λ`` stays 50 % away; ``tests/test_bench_peers.py`` keeps that check) and
lightning with ``alpha = λ`` (its docstring: mean loss + α/2‖w‖²).

Method
------
- One process, one thread: ``OMP_NUM_THREADS`` and friends are set to 1 before any library
  loads, the fits run inside ``threadpool_limits(1)`` and the peers get ``n_jobs=1``.
- Each solver is refitted from scratch with growing budgets, along two knobs where it has
  them: iteration counts doubling (``max_epochs`` for ours, ``max_iter`` for the peers) at
  the smallest tolerance it accepts, and tolerances shrinking tenfold at an iteration cap
  (the exact engine has only its relative-gap tolerance: 1e-2, 1e-4, 1e-6). A solver's
  time to ε is the better of the two: shrinking solvers (liblinear, ReHLine) restore
  shrunk variables only when their tolerance test passes, and at a tolerance they never
  meet they can stall (see :class:`Solver`). The CPU time (``time.process_time``) of the
  ``fit`` call alone is recorded; a fit's time is reported as the running maximum over the
  smaller budgets of its sweep (a bigger budget does at least the work of a smaller one;
  this removes timer noise on tiny fits and makes the time to ε monotone in ε).
- After each fit, outside the clock, this project's ``objectives.primal`` is evaluated on the
  returned coefficients, and ``objectives.dual`` on the returned dual point when the solver
  exposes one (ours, ReHLine, lightning).
- P*: every dual value is a lower bound and every primal value an upper bound of P* (weak
  duality). A certifying run (``solvers.exact.solve_exact`` when present; until then a long
  SDCA run, with shrinking when available) starts the bounds, and every fit of every solver
  tightens them. Suboptimality is reported as ``(P(w) − D*)/D*`` with ``D*`` the best dual
  value: an upper bound of the true ``(P(w) − P*)/P*``, larger by at most the recorded
  certificate gap, so every "reached ε" is certified.
- For ε ∈ {1e-2, 1e-4, 1e-6}, the time to ε is the (monotone) time of the first fit whose
  suboptimality is ≤ ε. A solver that never gets there is shown as "stalls at X", X its best
  suboptimality; a dagger marks a solver stopped by the CPU budget while still improving.
- A sweep stops when it reaches 1e-6, when its next fit would exceed its CPU budget
  (``--budget`` seconds per solver, knob and problem, scaled per problem), or when it stalls
  (three equal objectives in a row, or no 5 % progress while the budget grew 8×).

Outputs (``--out``, default ``output/bench``; git-ignored): ``peers.parquet`` (long format,
one row per problem × solver × knob × repetition × budget), ``peers_summary.parquet`` (time to each
ε), ``peers.md`` (the table), ``peers.png`` / ``peers.pdf`` (suboptimality vs CPU time, one
panel per problem), ``peers.json`` (versions, machine, load, certificates, skipped peers).

``make bench-peers`` installs the optional ``.[bench]`` extra and runs this file;
``--smoke`` runs two tiny synthetic problems (``tests/test_bench_peers.py``).
"""

from __future__ import annotations

import os

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)
if __name__ == "__main__":  # before NumPy, Numba or any peer starts a thread pool
    for _variable in THREAD_VARIABLES:
        os.environ[_variable] = "1"

import argparse  # noqa: E402
import hashlib  # noqa: E402
import importlib  # noqa: E402
import importlib.metadata  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from experiments.reports import cpu_model, git_commit  # noqa: E402  (shared with the run sidecars)
from solvers import SDCAClassifier, objectives  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGETS = (1e-2, 1e-4, 1e-6)
#: Relative certificate gap (D* ≤ P* ≤ P_best) aimed at: 1 % of the smallest target.
CERT_TARGET = 1e-8
#: Hard cap on any budget grid (epochs or iterations).
MAX_BUDGET = 2**24


# ------------------------------------------------------------------------------- problems
@dataclass(frozen=True)
class ProblemSpec:
    """One benchmark problem: data (a dataset of ``experiments.datasets`` or a synthetic
    recipe), λ (a number or ``"1/n"``), and the factor applied to ``--budget``."""

    name: str
    title: str
    dataset: str | None
    options: dict
    lmbd: float | str
    budget_scale: float = 1.0
    sparse: bool = False


PROBLEMS = [
    ProblemSpec("pca40-1.6", "blood PCA-40, λ = 1.6", "blood", {"pca": 40}, 1.6, 0.5),
    ProblemSpec("pca40-1/n", "blood PCA-40, λ = 1/n", "blood", {"pca": 40}, "1/n", 1.0),
    ProblemSpec("skin-1/n", "skin, λ = 1/n", "skin", {}, "1/n", 1.5),
    ProblemSpec("crops-1e-3", "blood raw crops, λ = 1e-3", "blood", {}, 1e-3, 1.5),
    ProblemSpec(
        "dense-1/n",
        "dense 5000 × 2000, λ = 1/n",
        None,
        {"n": 5000, "d": 2000, "seed": 0},
        "1/n",
        1.5,
    ),
    # Hook: runs once the project accepts CSR input (issue "Sparse input"), skipped until then.
    ProblemSpec(
        "sparse-1/n",
        "sparse 20000 × 20000 (0.5 %), λ = 1/n",
        None,
        {"n": 20000, "d": 20000, "density": 0.005, "seed": 0},
        "1/n",
        1.0,
        sparse=True,
    ),
]

SMOKE_PROBLEMS = [
    ProblemSpec("smoke-0.1", "smoke dense 300 × 20, λ = 0.1", None, {"n": 300, "d": 20}, 0.1),
    ProblemSpec("smoke-1/n", "smoke dense 300 × 20, λ = 1/n", None, {"n": 300, "d": 20}, "1/n"),
]


def make_dense(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian features, labels of a noisy linear teacher, ``sign(x·β + ε)`` with β and ε
    standard normal: the recipe of ``benchmarks/epoch_cost.py`` (``make bench``), so that
    5000 × 2000 with seed 0 is the same matrix as the README's epoch-cost table."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def make_sparse(n: int, d: int, density: float, seed: int = 0, noise: float = 0.5):
    """CSR features with Gaussian non-zeros, labels of a noisy linear teacher."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=rng, dtype=np.float64)
    X.data = rng.standard_normal(X.data.shape[0])
    beta = rng.standard_normal(d)
    score = X @ beta / math.sqrt(density * d) + noise * rng.standard_normal(n)
    return X, np.where(score > 0, 1.0, -1.0)


def accepts_csr() -> bool:
    """Whether this project's solvers take CSR input (the sparse problem's switch)."""
    return bool(SDCAClassifier().__sklearn_tags__().input_tags.sparse)


@dataclass
class Problem:
    spec: ProblemSpec
    X: np.ndarray
    y: np.ndarray
    lmbd: float
    load_seconds: float

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]


def load_problem(spec: ProblemSpec) -> Problem:
    start = time.perf_counter()
    if spec.sparse:
        if not accepts_csr():
            raise SkipProblem(
                "this project does not accept CSR input yet (issue 'Sparse input'); the "
                "problem runs as soon as SDCAClassifier's input tags say sparse=True"
            )
        X, y = make_sparse(**spec.options)
    elif spec.dataset is None:
        X, y = make_dense(**spec.options)
    else:
        from experiments import datasets

        split = datasets.load(spec.dataset, spec.options)
        X, y = split.X_train, split.y_train
    lmbd = 1.0 / X.shape[0] if spec.lmbd == "1/n" else float(spec.lmbd)
    return Problem(spec, X, np.asarray(y, dtype=np.float64), lmbd, time.perf_counter() - start)


class SkipProblem(Exception):
    """A problem that cannot run here (missing data, unsupported input): said, not hidden."""


def data_digest(X, y, lmbd: float) -> str:
    h = hashlib.blake2b(digest_size=12)
    if hasattr(X, "indptr"):
        for part in (X.data, X.indices, X.indptr):
            h.update(np.ascontiguousarray(part).view(np.uint8))
    else:
        h.update(np.ascontiguousarray(X).view(np.uint8))
    h.update(np.ascontiguousarray(y, dtype=np.float64).view(np.uint8))
    h.update(repr((X.shape, str(X.dtype), float(lmbd))).encode())
    return h.hexdigest()


# ------------------------------------------------------------------------------- solvers
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


def integer_grid(stop: int = MAX_BUDGET) -> Iterator[int]:
    """1, 2, 4, 8, ...: iteration counts doubling."""
    b = 1
    while b <= stop:
        yield b
        b *= 2


def _timed(est, X, y) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at small budgets is the point
        start = time.process_time()
        est.fit(X, y)
        return time.process_time() - start


def _coef(est) -> np.ndarray:
    return np.asarray(est.coef_, dtype=np.float64).ravel().copy()


def version_of(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def has_shrinking() -> bool:
    return "shrinking" in SDCAClassifier().get_params()


def exact_engine():
    """``solvers.exact.solve_exact`` when it exists (issue 11's exact-optimum engine)."""
    try:
        module = importlib.import_module("solvers.exact")
    except ImportError:
        return None
    return getattr(module, "solve_exact", None)


def our_solvers() -> list[Solver]:
    ours = version_of("sdca-pegasos") + "+" + git_commit()[:10]

    def sdca(**params) -> FitFn:
        def fit(X, y, lmbd, max_iter, tol, max_cpu):
            est = SDCAClassifier(
                lmbd=lmbd, tol=tol, max_epochs=int(max_iter), random_state=0, **params
            )
            cpu = _timed(est, X, y)
            return Fit(cpu, _coef(est), est.dual_coef_)

        return fit

    common = {"family": "ours", "package": "sdca-pegasos", "version": ours}
    solvers = [
        # tol > 0 would add a gap pass per epoch and stops nothing earlier: iterations only
        Solver(
            "SDCA-Perm (ours)",
            fit=sdca(),
            knobs=("iter",),
            iter_name="max_epochs",
            float64_only=False,
            **common,
        ),
    ]
    if has_shrinking():
        solvers.append(
            Solver(
                "SDCA-Perm + shrinking (ours)",
                fit=sdca(shrinking=True),
                iter_name="max_epochs",
                float64_only=False,
                **common,
            )
        )
    exact = exact_engine()
    if exact is not None:

        def fit_exact(X, y, lmbd, max_iter, tol, max_cpu):
            start = time.process_time()
            result = exact(X, y, lmbd, tol=tol, max_cpu=max_cpu)
            cpu = time.process_time() - start
            w = np.asarray(result.w, dtype=np.float64)
            return Fit(cpu, w[: X.shape[1]].copy(), getattr(result, "dual_coef", None))

        solvers.append(
            Solver(
                "exact engine (ours)",
                fit=fit_exact,
                knobs=("tol",),
                tols=TARGETS,  # a relative-gap target: each fit aims at one ε
                float64_only=False,
                **common,
            )
        )
    return solvers


def peer_solvers() -> tuple[list[Solver], dict[str, str]]:
    """The peers that import here, and the reason for each one that does not."""
    peers: list[Solver] = []
    skipped: dict[str, str] = {}
    missing = "not installed ({}); `make bench-peers` installs the .[bench] extra"

    from sklearn.svm import LinearSVC

    def liblinear(X, y, lmbd, max_iter, tol, max_cpu):
        C = objectives.lmbd_to_C(lmbd, X.shape[0])
        est = LinearSVC(
            loss="hinge",
            dual=True,
            fit_intercept=False,
            C=C,
            tol=tol,
            max_iter=int(max_iter),
            random_state=0,
        )
        return Fit(_timed(est, X, y), _coef(est))

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
                regularizer=lmbd * X.shape[0],
                fit_intercept=False,
                n_jobs=1,
                max_iter=int(max_iter),
                tol=tol,
                random_state=0,
            )
            return Fit(_timed(est, X, y), _coef(est))

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
            return Fit(_timed(est, X, y), _coef(est))

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
                loss={"name": "svm"},
                C=C,
                fit_intercept=False,
                max_iter=int(max_iter),
                tol=tol,
            )
            cpu = _timed(est, X, y)
            a = np.ravel(est._Lambda)  # ReLU multipliers: a_i in [0, 1], our dual variable
            return Fit(cpu, _coef(est), y * a if a.shape[0] == X.shape[0] else None)

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
            cpu = _timed(est, X, y)
            dual = np.ravel(est.dual_coef_) * (lmbd * X.shape[0])  # stored as α / (λn)
            return Fit(cpu, _coef(est), dual if dual.shape[0] == X.shape[0] else None)

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


# ------------------------------------------------------------------------------- P*
@dataclass
class Bounds:
    """Weak-duality bounds ``lower <= P* <= upper`` and where each came from."""

    upper: float = math.inf
    lower: float = -math.inf
    upper_source: str = ""
    lower_source: str = ""
    certifier: str = ""
    certifier_cpu: float = 0.0

    def add(self, primal: float, dual: float, source: str) -> None:
        if primal < self.upper:
            self.upper, self.upper_source = primal, source
        if np.isfinite(dual) and dual > self.lower:
            self.lower, self.lower_source = dual, source

    @property
    def gap(self) -> float:
        return (self.upper - self.lower) / abs(self.lower)

    def rel(self, primal: float) -> float:
        return (primal - self.lower) / abs(self.lower)


def dual_value(X, y, dual_coef, lmbd: float) -> float:
    """Our D(α) at a solver's dual point, made feasible by clipping ``y_i α_i`` to [0, 1]
    (any feasible α gives a valid lower bound: D recomputes w(α) itself)."""
    if dual_coef is None:
        return math.nan
    a = np.clip(np.asarray(dual_coef, dtype=np.float64) * y, 0.0, 1.0)
    return objectives.dual(X, y, y * a, lmbd)


def store_bounds(bounds: Bounds, path: Path | None, max_cpu: float) -> None:
    """Keep the bounds for the next run (valid whatever code produced them: weak duality
    on the same data, which the file name's digest pins)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {**bounds.__dict__, "gap": bounds.gap, "max_cpu": max_cpu}
        path.write_text(json.dumps(record, indent=2) + "\n")


def certify(
    problem: Problem, max_cpu: float, cache_dir: Path | None
) -> tuple[Bounds, Path | None]:
    """Bounds on P* from a certifying run: the exact engine when present, else SDCA run
    until its relative gap is ≤ CERT_TARGET / 10 or ``max_cpu`` is spent. Cached on disk
    under a digest of (X, y, λ) and the certifier; returns the bounds and that path."""
    X, y, lmbd = problem.X, problem.y, problem.lmbd
    exact = exact_engine()
    certifier = "solvers.exact.solve_exact" if exact is not None else "SDCAClassifier"
    if certifier == "SDCAClassifier" and has_shrinking():
        certifier += "(shrinking=True)"
    path = None
    if cache_dir is not None:
        key = f"{data_digest(X, y, lmbd)}-{certifier.split('(')[0].rsplit('.', 1)[-1]}"
        path = cache_dir / f"{problem.spec.name.replace('/', '_')}-{key}.json"
        if path.exists():
            stored = json.loads(path.read_text())
            if stored["gap"] <= CERT_TARGET or stored["max_cpu"] >= max_cpu:
                return Bounds(**{k: stored[k] for k in Bounds.__dataclass_fields__}), path
    bounds = Bounds(certifier=certifier)
    start = time.process_time()
    if exact is not None:
        result = exact(X, y, lmbd, tol=CERT_TARGET / 10, max_cpu=max_cpu)
        w = np.asarray(result.w, dtype=np.float64)
        primal = objectives.primal(X, y, w[: X.shape[1]], lmbd)
        bounds.add(primal, dual_value(X, y, result.dual_coef, lmbd), certifier)
    else:
        params = {"shrinking": True} if has_shrinking() else {}

        def monitor(info) -> bool:
            if info.epoch % 5:
                return False
            primal, dual, _ = objectives.duality_gap(X, y, info.w, info.dual_coef, lmbd)
            bounds.add(primal, dual, certifier)
            done = bounds.gap <= CERT_TARGET / 10
            return done or time.process_time() - start > max_cpu

        SDCAClassifier(
            lmbd=lmbd, tol=0, max_epochs=10**8, random_state=1, callback=monitor, **params
        ).fit(X, y)
    bounds.certifier_cpu = time.process_time() - start
    store_bounds(bounds, path, max_cpu)
    return bounds, path


# ------------------------------------------------------------------------------- sweep
def warm(solver: Solver, X, y, lmbd: float) -> None:
    """Compile / load everything a fit touches (Numba, lazy imports) on a tiny slice of the
    same dtype and layout, so that no timed fit pays for it."""
    idx = np.concatenate([np.flatnonzero(y > 0)[:16], np.flatnonzero(y < 0)[:16]])
    Xs, ys = X[idx], y[idx]
    for knob in solver.knobs:
        for max_iter, tol in ((1, 1e-1), (2, 1e-2)):
            if knob == "iter":
                solver.fit(Xs, ys, lmbd, max_iter, solver.iter_tol, 1.0)
            else:
                solver.fit(Xs, ys, lmbd, solver.tol_cap, tol, 1.0)


def sweep(
    solver: Solver,
    knob: str,
    X,
    y,
    lmbd: float,
    bounds: Bounds,
    budget: float,
    X_eval,
    tol_cap: int,
) -> tuple[list[dict], str]:
    """Refit ``solver`` from scratch with growing budgets along ``knob``, until it reaches
    the smallest target, stalls, or its next fit would not fit in ``budget`` CPU seconds.
    Returns one row per fit and the reason the sweep stopped."""
    rows: list[dict] = []
    spent = 0.0
    previous: tuple[float, float] | None = None
    best_at: list[tuple[float, float]] = []  # (budget, best primal so far) for stall tests
    reason = "grid exhausted"
    grid = integer_grid() if knob == "iter" else iter(solver.tols)
    for b in grid:
        if previous is not None:  # the next fit's cost: iterations scale it, tolerances
            last_b, last_cpu = previous  # by the growth seen so far (1.2× to 4×)
            if knob == "iter":
                ratio = b / last_b
            else:
                ratio = (
                    min(4.0, max(1.2, last_cpu / rows[-2]["cpu_seconds"]))
                    if len(rows) > 1
                    else 1.5
                )
            if spent + last_cpu * ratio > budget:
                reason = "budget"
                break
        if knob == "iter":
            max_iter, tol = int(b), solver.iter_tol
        else:
            max_iter, tol = tol_cap, float(b)
        fit = solver.fit(X, y, lmbd, max_iter, tol, max(budget - spent, 0.1))
        spent += fit.cpu
        primal = objectives.primal(X_eval, y, fit.coef, lmbd)
        dual = dual_value(X_eval, y, fit.dual_coef, lmbd)
        bounds.add(primal, dual, solver.name)
        rows.append(
            {
                "knob": knob,
                "budget_name": solver.iter_name if knob == "iter" else "tol",
                "budget": float(b),
                "max_iter": max_iter,
                "tol": tol,
                "cpu_seconds": fit.cpu,
                "primal": primal,
                "dual": dual,
            }
        )
        previous = (float(b), fit.cpu)
        best_at.append((float(b), min(r["primal"] for r in rows)))
        if bounds.rel(primal) <= min(TARGETS):
            reason = "reached"
            break
        if knob == "iter" and len(rows) >= 3:
            p = [r["primal"] for r in rows[-3:]]
            if max(p) - min(p) <= 1e-13 * abs(p[-1]):
                reason = "stalled"  # the solver's own stopping test ends every fit alike
                break
        if knob == "iter" and b >= 64:  # early iterates of some solvers go up and down
            old = [p for bb, p in best_at if bb <= b / 8]
            if old and bounds.rel(best_at[-1][1]) > 0.95 * bounds.rel(old[-1]):
                reason = "stalled"  # no 5 % progress while the budget grew 8×
                break
    return rows, reason


def run_problem(
    problem: Problem,
    solvers: list[Solver],
    budget: float,
    repeats: int,
    cert_cpu: float,
    cache_dir: Path | None,
    log: Callable[[str], None],
) -> tuple[pd.DataFrame, Bounds, dict]:
    X, y, lmbd = problem.X, problem.y, problem.lmbd
    budget = budget * problem.spec.budget_scale
    start = time.process_time()
    bounds, cache_path = certify(problem, cert_cpu, cache_dir)
    log(
        f"  P* bounds from {bounds.certifier}: [{bounds.lower:.12g}, {bounds.upper:.12g}] "
        f"(relative gap {bounds.gap:.1e}, {time.process_time() - start:.1f} s CPU)"
    )
    X64 = X if X.dtype == np.float64 else X.astype(np.float64)
    records: list[dict] = []
    reasons: dict[str, str] = {}
    for solver in solvers:
        if hasattr(X, "indptr") and not solver.sparse:
            reasons[solver.name] = "skipped: no CSR input"
            continue
        Xs = X64 if solver.float64_only else X
        warm(solver, Xs, y, lmbd)
        for rep in range(repeats):
            cap = solver.tol_cap
            for knob in solver.knobs:
                rows, reason = sweep(solver, knob, Xs, y, lmbd, bounds, budget, X, cap)
                if knob == "iter" and rows:  # a tolerance fit may cost ~2 iteration fits
                    cap = 2 * int(rows[-1]["budget"])
                reasons[f"{solver.name} [{knob}]"] = reason
                for r in rows:
                    records.append(
                        {
                            "solver": solver.name,
                            "family": solver.family,
                            "package": solver.package,
                            "version": solver.version,
                            "repetition": rep,
                            "input_dtype": str(Xs.dtype),
                            "stop_reason": reason,
                            **r,
                        }
                    )
                spent = sum(r["cpu_seconds"] for r in rows)
                best = min((bounds.rel(r["primal"]) for r in rows), default=math.nan)
                log(
                    f"  {solver.name:<36} {knob:>4} rep {rep}: {len(rows):2d} fits, "
                    f"{spent:6.2f} s CPU, best {best:8.1e}, stop: {reason}"
                )
    store_bounds(bounds, cache_path, cert_cpu)  # the sweeps' fits may have tightened them
    df = pd.DataFrame.from_records(records)
    df["problem"] = problem.spec.name
    df["title"] = problem.spec.title
    df["dataset"] = problem.spec.dataset or "synthetic"
    df["dataset_options"] = json.dumps(problem.spec.options, sort_keys=True)
    df["n_samples"] = problem.n_samples
    df["n_features"] = problem.n_features
    df["data_dtype"] = str(X.dtype)
    df["lmbd"] = lmbd
    df["pstar_lower"] = bounds.lower
    df["pstar_upper"] = bounds.upper
    df["pstar_gap_rel"] = bounds.gap
    df["rel_subopt"] = (df["primal"] - bounds.lower) / abs(bounds.lower)
    keys = ["solver", "knob", "repetition"]
    df["cpu_monotone"] = df.groupby(keys, sort=False)["cpu_seconds"].cummax()
    return df, bounds, reasons


# ------------------------------------------------------------------------------- summary
def time_to(g: pd.DataFrame, eps: float) -> tuple[float, str]:
    """Time to ε of one solver on one problem: per sweep (knob), the monotone time of the
    first fit at ε, median over repetitions; the better knob, and which one it was."""
    best, which = math.inf, ""
    for knob, k in g.groupby("knob", sort=False):
        times = []
        for _, rep in k.groupby("repetition"):
            hit = rep.loc[rep["rel_subopt"] <= eps, "cpu_monotone"]
            times.append(float(hit.iloc[0]) if len(hit) else math.inf)
        t = float(np.median(times))
        if t < best:
            best, which = t, knob
    return best, which


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Time to each ε per problem × solver, best suboptimality and how the sweep that got
    it stopped, and the ratio to the best peer (> 1: slower than the fastest peer)."""
    out = []
    for (problem, solver), g in df.groupby(["problem", "solver"], sort=False):
        best_row = g.loc[g["rel_subopt"].idxmin()]
        row = {
            "problem": problem,
            "title": g["title"].iloc[0],
            "solver": solver,
            "family": g["family"].iloc[0],
            "best_rel_subopt": float(best_row["rel_subopt"]),
            "best_knob": best_row["knob"],
            "stop_reason": best_row["stop_reason"],
            "pstar_gap_rel": float(g["pstar_gap_rel"].iloc[0]),
        }
        for eps in TARGETS:
            row[f"t_{eps:.0e}"], row[f"knob_{eps:.0e}"] = time_to(g, eps)
        out.append(row)
    summary = pd.DataFrame(out)
    for eps in TARGETS:
        col = f"t_{eps:.0e}"
        best = summary[summary["family"] == "peer"].groupby("problem")[col].min()
        summary[f"ratio_{eps:.0e}"] = summary[col] / summary["problem"].map(best)
    return summary


def _cell(t: float, best: float, reason: str) -> str:
    if math.isfinite(t):
        return f"{t:.2g} s" if t < 10 else f"{t:.0f} s"
    dagger = "†" if reason == "budget" else ""
    return f"stalls at {best:.0e}{dagger}"


def _ratio(r: float) -> str:
    return f"{r:.2g}" if math.isfinite(r) else "—"


def _short(solver: str) -> str:
    """ "SDCA-Perm + shrinking (ours)" -> "SDCA-Perm + shrinking"; a peer -> its package."""
    if solver.endswith(" (ours)"):
        return solver[: -len(" (ours)")]
    return "Snap ML" if solver.startswith("Snap ML") else solver.split()[0]


def headline(summary: pd.DataFrame) -> str:
    """Per problem and ε: our fastest solver against the fastest peer (the README table)."""
    lines = [
        "| problem | " + " | ".join(f"to {eps:.0e}: ours / best peer" for eps in TARGETS) + " |",
        "|---|" + "---|" * len(TARGETS),
    ]
    for _, g in summary.groupby("problem", sort=False):
        cells = []
        for eps in TARGETS:
            col = f"t_{eps:.0e}"
            side = []
            for family in ("ours", "peer"):
                f = g[g["family"] == family]
                if f.empty:
                    side.append(("—", math.nan))
                elif np.isfinite(f[col]).any():
                    r = f.loc[f[col].idxmin()]
                    side.append((f"{_cell(r[col], 0, '')} {_short(r['solver'])}", r[col]))
                else:
                    side.append((f"stalls at {f['best_rel_subopt'].min():.0e}", math.inf))
            ratio = side[0][1] / side[1][1]
            verdict = f" (**{ratio:.2g}×**)" if math.isfinite(ratio) and ratio > 0 else ""
            cells.append(f"{side[0][0]} / {side[1][0]}{verdict}")
        lines.append(f"| {g['title'].iloc[0]} | " + " | ".join(cells) + " |")
    lines += ["", "(**r×**: our time over the best peer's; > 1 means we are slower.)"]
    return "\n".join(lines) + "\n"


def markdown(summary: pd.DataFrame, meta: dict) -> str:
    head = [f"to {eps:.0e}" for eps in TARGETS]
    lines = [
        headline(summary),
        "| problem | solver | " + " | ".join(head) + " | ÷ best peer |",
        "|---|---|" + "---|" * len(TARGETS) + "---|",
    ]
    for problem, g in summary.groupby("problem", sort=False):
        info = meta["problems"][problem]
        title = (
            f"{info['title']}<br>{info['n_samples']} × {info['n_features']}, "
            f"P* = {info['pstar_lower']:.6g} (± {max(info['pstar_gap_rel'], 0.0):.0e})"
        )
        for i, (_, r) in enumerate(g.iterrows()):
            cells = [
                _cell(r[f"t_{e:.0e}"], r["best_rel_subopt"], r["stop_reason"]) for e in TARGETS
            ]
            ratios = " / ".join(_ratio(r[f"ratio_{e:.0e}"]) for e in TARGETS)
            name = f"**{r['solver']}**" if r["family"] == "ours" else r["solver"]
            first = title if i == 0 else ""
            lines.append(f"| {first} | {name} | " + " | ".join(cells) + f" | {ratios} |")
    lines += [
        "",
        "CPU seconds (`time.process_time`) of the first fit, from scratch on one thread, whose "
        "(P(w) − P*)/P* ≤ ε; each solver refitted with growing iteration counts and with "
        "shrinking tolerances, the better of the two. ÷ best peer: time over the fastest "
        'peer\'s at 1e-2 / 1e-4 / 1e-6 (> 1: slower). "stalls at X": best suboptimality '
        "reached (†: its CPU budget ran out while it still improved). ± : relative gap of "
        "the P* certificate (weak duality with this project's dual).",
    ]
    return "\n".join(lines) + "\n"


def plot(df: pd.DataFrame, path_stem: Path) -> None:
    """Suboptimality vs CPU time, one panel per problem, log axes, every fit a marker."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    problems = list(dict.fromkeys(df["problem"]))
    ncols = min(3, len(problems))
    nrows = math.ceil(len(problems) / ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(4.8 * ncols, 3.8 * nrows + 0.8),
        squeeze=False,
        layout="constrained",
    )
    solvers = list(dict.fromkeys(df["solver"]))
    colors = {s: plt.cm.tab10(i % 10) for i, s in enumerate(solvers)}
    floor = 1e-12
    for ax, problem in zip(axes.flat, problems, strict=False):
        g = df[df["problem"] == problem]
        for (solver, knob), s in g.groupby(["solver", "knob"], sort=False):
            ours = s["family"].iloc[0] == "ours"
            for rep, r in s.groupby("repetition"):
                ax.plot(
                    r["cpu_monotone"],
                    np.maximum(r["rel_subopt"], floor),
                    marker="o" if knob == "iter" else "^",
                    ms=3,
                    lw=1.8 if ours else 1.0,
                    ls="-" if ours else "--",
                    color=colors[solver],
                    alpha=1.0 if rep == 0 else 0.35,
                    label=solver if rep == 0 else None,
                )
        for eps in TARGETS:
            ax.axhline(eps, color="0.6", lw=0.7, ls=":")
        gap = g["pstar_gap_rel"].iloc[0]
        if gap > floor:
            ax.axhspan(floor, gap, color="0.88", zorder=0)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(g["title"].iloc[0], fontsize=9)
        ax.set_xlabel("CPU seconds of the fit (1 thread)", fontsize=8)
        ax.set_ylabel("(P − P*) / P*", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(problems) :]:
        ax.axis("off")
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="outside lower center", ncols=min(4, len(labels)), fontsize=8)
    fig.suptitle(
        "Refits with growing budgets (o: iteration count, ^: tolerance); "
        "grey band: P* uncertainty",
        fontsize=9,
    )
    for ext in ("png", "pdf"):
        fig.savefig(path_stem.with_suffix(f".{ext}"), dpi=130)
    plt.close(fig)


# ------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [p.name for p in PROBLEMS]
    parser.add_argument("--smoke", action="store_true", help="two tiny synthetic problems")
    parser.add_argument(
        "--problems",
        nargs="+",
        metavar="NAME",
        help=f"subset of {', '.join(names)} (default: all)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="CPU seconds per solver and problem, before each problem's scale "
        "(default 8; smoke 1)",
    )
    parser.add_argument("--repeats", type=int, default=1, help="sweeps per solver (median)")
    parser.add_argument(
        "--cert-budget",
        type=float,
        default=None,
        help="CPU seconds of the P* certifying run per problem (default 120; smoke 10)",
    )
    parser.add_argument("--solvers", nargs="+", help="only solvers whose name contains one")
    parser.add_argument("--out", type=Path, default=None, help="output folder")
    parser.add_argument("--no-cache", action="store_true", help="recompute the P* bounds")
    parser.add_argument("--replot", action="store_true", help="re-plot the stored report")
    args = parser.parse_args(argv)

    out = args.out or ROOT / "output" / ("bench-smoke" if args.smoke else "bench")
    out.mkdir(parents=True, exist_ok=True)
    if args.replot:
        df = pd.read_parquet(out / "peers.parquet")
        plot(df, out / "peers")
        return df
    budget = args.budget if args.budget is not None else (1.0 if args.smoke else 8.0)
    cert_cpu = args.cert_budget if args.cert_budget is not None else (10 if args.smoke else 120)
    specs = SMOKE_PROBLEMS if args.smoke else PROBLEMS
    if args.problems:
        unknown = set(args.problems) - {p.name for p in specs}
        if unknown:
            parser.error(f"unknown problems {sorted(unknown)}; choose from {names}")
        specs = [p for p in specs if p.name in args.problems]

    def log(msg: str) -> None:
        print(msg, flush=True)

    wall = time.perf_counter()
    load_start = os.getloadavg()
    with threadpool_limits(limits=1):
        solvers = our_solvers()
        peers, skipped = peer_solvers()
        solvers += peers
        if args.solvers:
            solvers = [
                s for s in solvers if any(k.lower() in s.name.lower() for k in args.solvers)
            ]
        for name, why in skipped.items():
            log(f"peer skipped: {name}: {why}")
        if not has_shrinking():
            log("SDCA shrinking: not available yet (no `shrinking` parameter); measured without")
        if exact_engine() is None:
            log("exact engine: solvers.exact not present; P* from a long SDCA run (stand-in)")
        frames, meta_problems, skipped_problems = [], {}, {}
        for spec in specs:
            log(f"\n== {spec.title}")
            try:
                problem = load_problem(spec)
            except SkipProblem as exc:
                skipped_problems[spec.name] = str(exc)
                log(f"  skipped: {exc}")
                continue
            except Exception as exc:  # missing data: said, and the other problems still run
                skipped_problems[spec.name] = f"{type(exc).__name__}: {exc}"
                log(f"  skipped (data): {type(exc).__name__}: {exc}")
                continue
            log(
                f"  {problem.n_samples} × {problem.n_features} {problem.X.dtype}, "
                f"λ = {problem.lmbd:.6g}, budget {budget * spec.budget_scale:.0f} s per solver"
            )
            cache = None if args.no_cache else out / "optima"
            df, bounds, reasons = run_problem(
                problem, solvers, budget, args.repeats, cert_cpu, cache, log
            )
            frames.append(df)
            meta_problems[spec.name] = {
                "title": spec.title,
                "dataset": spec.dataset or "synthetic",
                "options": spec.options,
                "n_samples": problem.n_samples,
                "n_features": problem.n_features,
                "dtype": str(problem.X.dtype),
                "lmbd": problem.lmbd,
                "budget_seconds": budget * spec.budget_scale,
                "pstar_lower": bounds.lower,
                "pstar_upper": bounds.upper,
                "pstar_gap_rel": bounds.gap,
                "pstar_lower_from": bounds.lower_source,
                "pstar_upper_from": bounds.upper_source,
                "certifier": bounds.certifier,
                "certifier_cpu_seconds": bounds.certifier_cpu,
                "stop_reasons": reasons,
            }
    if not frames:
        raise SystemExit("no problem could run: " + json.dumps(skipped_problems))
    df = pd.concat(frames, ignore_index=True)
    summary = summarise(df)
    meta = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg(),
        "wall_seconds": time.perf_counter() - wall,
        "targets": TARGETS,
        "budget_seconds": budget,
        "repeats": args.repeats,
        "threads": {v: os.environ.get(v) for v in THREAD_VARIABLES},
        "versions": {s.name: f"{s.package} {s.version}" for s in solvers}
        | {"numpy": np.__version__, "numba": version_of("numba")},
        "skipped_peers": skipped,
        "skipped_problems": skipped_problems,
        "shrinking_available": has_shrinking(),
        "exact_engine_available": exact_engine() is not None,
        "problems": meta_problems,
    }
    table = markdown(summary, meta)
    df.to_parquet(out / "peers.parquet", index=False)
    summary.to_parquet(out / "peers_summary.parquet", index=False)
    (out / "peers.md").write_text(table)
    (out / "peers.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    plot(df, out / "peers")
    log("\n" + table)
    for name, why in skipped_problems.items():
        log(f"problem skipped: {name}: {why}")
    log(
        f"wrote {out}/peers.{{parquet,md,png,pdf,json}} in {meta['wall_seconds']:.0f} s wall "
        f"(load average {load_start[0]:.1f} -> {meta['loadavg_end'][0]:.1f} on "
        f"{os.cpu_count()} cores)"
    )
    return df


if __name__ == "__main__":
    main()
