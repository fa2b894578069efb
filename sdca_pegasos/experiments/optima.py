"""Certified optima P* per (dataset, λ), for suboptimality plots P − P* and time-to-ε tables.

Each optimum is solved by :class:`sdca_pegasos.solvers.ExactSVMClassifier` (the exact engine,
:mod:`sdca_pegasos.solvers.exact.engine`: an interior point with an active-set crossover wherever a
factorisation of the smaller side is affordable, otherwise shrinking dual coordinate
descent with a projected-Newton finish; its docstring says which runs where) to a relative
duality gap (P − D)/|P| ≤ 1e-10 under a 60 s CPU budget, and stored with its certificate,
computed apart from the solver: ``dual <= P* <= primal``, ``gap``, ``rel_gap``,
``certified`` (exactly ``rel_gap <= target_rel_gap``), ``cpu_seconds`` and ``method``.
Should a budget end a solve, the record says ``certified: false`` and figures read nothing
below its ``gap``; a later call with a larger budget recomputes it.

A record is keyed by (dataset, loader options, λ, bias multiplier, code digest), like the runs: a
change to the solvers, loaders or metrics recomputes it, and the record it replaces is removed. The
bias multiplier B is the configurations' ``bias_multiplier`` (0 unless they set it:
:data:`sdca_pegasos.experiments.spec.RUN_DEFAULTS`): the optimum is that of the problem the runs
solve. Records live under the reports folder ``root`` (None:
:func:`sdca_pegasos.experiments.reports.reports_dir`'s default)."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from . import datasets, reports
from .spec import Experiment, code_digest

#: Target relative duality gap (P − D)/|P| of every stored optimum.
TARGET_REL_GAP = 1e-10
#: CPU seconds allowed per optimum (Gram product, sweeps, Newton steps, certificates).
BUDGET_SECONDS = 60.0


def optimum_path(dataset: str, options: dict, lmbd: float, bias: float = 0.0, root=None):
    key = datasets.dataset_key(dataset, options)
    stem = f"{key}_lmbd{lmbd:.6g}" + (f"_bias{bias:g}" if bias else "")
    return reports.reports_dir(root) / "optima" / f"{stem}_{code_digest()}.json"


def certify(
    dataset: str,
    options: dict,
    lmbd: float,
    bias: float = 0.0,
    budget_seconds: float = BUDGET_SECONDS,
    tol: float = TARGET_REL_GAP,
    release: bool = True,
) -> dict:
    """Solve the hinge problem of (dataset, options, λ, bias multiplier) exactly and return
    its record.

    Runs in a worker: one BLAS thread (the same data bits as the runs, and CPU seconds that
    mean one core). With ``release``, the dataset is dropped from the per-process cache on
    return, so a long-lived worker does not keep every dataset it has seen (with 287 MB of
    raw crops that growth made loky's memory-leak guard retire workers mid-pool: the "A
    worker stopped while some jobs were given to the executor" warning); the runs' pool
    passes False, its workers keeping one dataset loaded as they do for runs
    (:func:`sdca_pegasos.experiments.runner.run_experiments`).
    """
    # imported here: a reader of the optima (the scorecard, the figures) imports no solver
    from sklearn.exceptions import ConvergenceWarning

    from sdca_pegasos.solvers import ExactSVMClassifier
    from sdca_pegasos.solvers.core import objectives

    try:
        with threadpool_limits(limits=1):
            ds = datasets.load(dataset, options)
            y = ds.y_train.astype(np.float64)  # once, outside the engine's clock
            est = ExactSVMClassifier(lmbd, tol=tol, max_cpu=budget_seconds, bias_multiplier=bias)
            with warnings.catch_warnings():  # an uncertified record says so itself
                warnings.simplefilter("ignore", ConvergenceWarning)
                est.fit(ds.X_train, y)
        title = ds.meta.get("title", dataset)
        y = np.where(ds.y_train == est.classes_[1], 1.0, -1.0)  # the estimator's ±1
        w = objectives.full_weights(est.coef_, est.intercept_[0], bias)
        a = y * est.dual_coef_
        errors = {
            "train_error": objectives.error_rate(ds.X_train, y, w, bias),
            "test_error": None
            if ds.X_test is None
            else objectives.error_rate(ds.X_test, ds.y_test, w, bias),
            # how many samples the optimum predicts +1 (as ``predict``: score > 0), so that a
            # reader can tell an optimum of one class for every sample (compare's summary)
            "train_predicted_positive": _predicted_positive(ds.X_train, w, bias),
            "test_predicted_positive": None
            if ds.X_test is None
            else _predicted_positive(ds.X_test, w, bias),
        }
    finally:
        if release:
            datasets.load.cache_clear()
    return {
        "dataset": dataset,
        "dataset_key": datasets.dataset_key(dataset, options),
        "dataset_options": options,
        "dataset_title": title,
        "lmbd": lmbd,
        "bias": bias,
        "primal": est.primal_,
        "dual": est.dual_,
        "gap": est.duality_gap_,
        "rel_gap": est.rel_gap_,
        "certified": bool(est.certified_),
        "target_rel_gap": tol,
        "method": est.method_,
        # the optimum itself: its errors, and where its dual variables sit
        **errors,
        "n_train": int(a.shape[0]),
        "n_alpha_zero": int(np.sum(a <= 0.0)),
        "n_alpha_free": int(np.sum((a > 0.0) & (a < 1.0))),
        "n_alpha_bound": int(np.sum(a >= 1.0)),
        "epochs": est.cd_epochs_,
        "newton_steps": est.newton_steps_,
        "ipm_iterations": est.ipm_iterations_,
        "cpu_seconds": est.cpu_seconds_,
        "budget_seconds": budget_seconds,
        "code": code_digest(),
    }


def _predicted_positive(X, w: np.ndarray, bias: float) -> int:
    """Rows of ``X`` whose score ``x·w[:-1] + bias·w[-1]`` is above 0 (``predict``'s +1)."""
    from sdca_pegasos.solvers.core import objectives

    return int(np.sum(objectives.margins(X, np.ones(X.shape[0]), w, bias) > 0.0))


def needed(exp: Experiment) -> list[tuple[str, dict, float, float]]:
    """The (dataset, options, λ, bias multiplier) the experiment's figures need an optimum
    for."""
    ds = datasets.load(exp.dataset, exp.dataset_options)
    problems = {
        (
            datasets.resolve_lmbd(exp.config_lmbd(c), ds.n_train),
            float(exp.config_params(c)["bias_multiplier"]),
        )
        for c in exp.configs
    }
    options = dict(exp.dataset_options)
    return [(exp.dataset, options, lmbd, bias) for lmbd, bias in sorted(problems)]


def _store(result: dict, path) -> None:
    reports.atomic_write_text(json.dumps(result, indent=2) + "\n", path)
    # one record per (dataset, options, λ, bias): drop those of other code versions
    stem = path.name.rsplit("_", 1)[0]
    for old in path.parent.glob(f"{stem}_*.json"):
        if old != path and old.name.rsplit("_", 1)[0] == stem:
            old.unlink(missing_ok=True)


def _is_done(path, budget_seconds: float) -> bool:
    """A stored record that stands: certified, or not certified under a budget at least as
    large as ``budget_seconds`` (a larger budget recomputes it)."""
    if not path.exists():
        return False
    record = json.loads(path.read_text())
    return bool(record.get("certified")) or record.get("budget_seconds", 0.0) >= budget_seconds


@dataclass(frozen=True)
class OptimumTask:
    """One optimum to certify, (dataset, loader options, λ, bias multiplier), its CPU budget
    and the ``path`` its record goes to: :func:`ensure_all`'s unit of work, and what the
    runs' pool takes beside the runs
    (:func:`sdca_pegasos.experiments.runner.run_experiments`)."""

    dataset: str
    options: dict
    lmbd: float
    bias: float
    budget_seconds: float
    path: Path

    def certify(self, release: bool = True) -> dict:
        """Its record (:func:`certify`)."""
        return certify(
            self.dataset, self.options, self.lmbd, self.bias, budget_seconds=self.budget_seconds,
            release=release,
        )  # fmt: skip

    def store(self, record: dict) -> None:
        """Write ``record`` to :attr:`path` (atomically; records of other code versions of
        the same problem removed)."""
        _store(record, self.path)


def missing(
    experiments: list[Experiment], root=None, budget_seconds: float = BUDGET_SECONDS
) -> list[OptimumTask]:
    """Every optimum the experiments need that does not stand yet (:func:`_is_done`), each
    once, largest problem (n × d) first: the long certifications start early and the short
    ones fill the remaining workers."""
    todo: dict = {}
    for exp in experiments:
        for t in needed(exp):
            path = optimum_path(*t, root=root)
            if path not in todo and not _is_done(path, budget_seconds):
                todo[path] = OptimumTask(*t, budget_seconds, path)

    def size(task: OptimumTask) -> int:
        X = datasets.load(task.dataset, task.options).X_train
        return X.shape[0] * X.shape[1]

    order = sorted(todo.values(), key=lambda task: -size(task))
    datasets.load.cache_clear()  # the workers load their own copies
    return order


def ensure_all(
    experiments: list[Experiment],
    n_jobs: int = 1,
    root=None,
    budget_seconds: float = BUDGET_SECONDS,
) -> int:
    """Certify, in one pool, every missing optimum the experiments need (:func:`missing`);
    returns how many.

    Workers only compute; this process writes each record atomically under the reports
    folder ``root`` as it arrives (a kill loses only the optima in flight, and none is
    written twice or half). ``budget_seconds``: CPU seconds per optimum. ``python -m
    sdca_pegasos.experiments run`` certifies them in its runs' pool instead, beside the runs.
    """
    order = missing(experiments, root, budget_seconds)
    if n_jobs == 1 or len(order) <= 1:
        for task in order:
            task.store(task.certify())
    else:
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=min(n_jobs, len(order)), return_as="generator")
        jobs = (delayed(task.certify)() for task in order)
        for task, record in zip(order, parallel(jobs), strict=True):
            task.store(record)
    return len(order)


def ensure(
    exp: Experiment, n_jobs: int = 1, root=None, budget_seconds: float = BUDGET_SECONDS
) -> list[dict]:
    """Compute (once) and return the optima records of ``exp`` (see :func:`ensure_all`)."""
    ensure_all([exp], n_jobs, root, budget_seconds)
    return [json.loads(optimum_path(*t, root=root).read_text()) for t in needed(exp)]


def load_all(root=None) -> list[dict]:
    """Every stored optimum under ``root`` (default: the reports folder); figures join them
    on dataset key and λ."""
    directory = reports.reports_dir(root) / "optima"
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]


def summary(root=None) -> str:
    """One line per stored optimum: relative gap reached, CPU seconds, method."""
    lines = [f"{'dataset':<28} {'λ':>10} {'rel. gap':>10} {'CPU s':>7}  method"]
    for r in load_all(root):
        lines.append(
            f"{r['dataset_key']:<28} {r['lmbd']:>10.4g} {r.get('rel_gap', float('nan')):>10.1e} "
            f"{r['cpu_seconds']:>7.2f}  {r.get('method', '?')}"
            + ("" if r.get("certified") else "  NOT CERTIFIED")
        )
    return "\n".join(lines)
