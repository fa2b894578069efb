"""Certified optima P* per (dataset, λ), for suboptimality plots P − P*.

SDCA-Perm is run to a duality gap ≤ 1e-10, or until a CPU budget (30 s by default) is
spent, and the result is stored with both bounds: ``dual <= P* <= primal``. Figures plot
``P - dual`` (a certified upper bound of the suboptimality) and must not read anything
below ``gap`` as signal: hard problems (λ = 1/n on 245,057 skin pixels, small λ on raw
crops) end with a larger, recorded gap instead of an unbounded run.
"""

from __future__ import annotations

import json
import time

from threadpoolctl import threadpool_limits

from solvers import SDCAClassifier, objectives

from . import datasets, reports
from .spec import Experiment

TARGET_GAP = 1e-10


def optimum_path(dataset: str, options: dict, lmbd: float):
    key = datasets.dataset_key(dataset, options)
    return reports.reports_dir() / "optima" / f"{key}_lmbd{lmbd:.6g}.json"


def certify(
    dataset: str,
    options: dict,
    lmbd: float,
    budget_seconds: float = 30.0,
    check_every: int = 5,
    max_epochs: int = 1_000_000,
) -> dict:
    """Solve the hinge problem with SDCA-Perm to gap <= 1e-10 or until the CPU budget ends.

    The gap is checked every ``check_every`` epochs with one fused pass over X (margins and
    w(α) together), outside the solver's timer. The returned bounds are exact whatever the
    gap reached: ``dual <= P* <= primal``; ``certified`` says whether gap <= 1e-10.
    """
    start = time.process_time()
    with threadpool_limits(limits=1):  # the same thread limit as the runs (same data bits)
        split = datasets.load(dataset, options)
        X, y = split.X_train, split.y_train
        best: dict = {}

        def monitor(info) -> bool:
            if info.epoch % check_every:
                return False
            m = objectives.monitor(X, y, info.w, lmbd, dual_coef=info.dual_coef)
            best.update(primal=m["primal"], dual=m["dual"], gap=m["gap"], epochs=info.epoch)
            return best["gap"] <= TARGET_GAP or time.process_time() - start > budget_seconds

        est = SDCAClassifier(
            lmbd=lmbd, tol=0, max_epochs=max_epochs, random_state=0, callback=monitor
        )
        est.fit(X, y)
    return {
        "dataset": dataset,
        "dataset_key": datasets.dataset_key(dataset, options),
        "dataset_options": options,
        "dataset_title": split.meta.get("title", dataset),
        "lmbd": lmbd,
        "primal": best["primal"],
        "dual": best["dual"],
        "gap": best["gap"],
        "certified": bool(best["gap"] <= TARGET_GAP),
        "epochs": int(best["epochs"]),
        "cpu_seconds": time.process_time() - start,
        "budget_seconds": budget_seconds,
    }


def needed(exp: Experiment) -> list[tuple[str, dict, float]]:
    """The (dataset, options, λ) triples the experiment's figures need an optimum for."""
    split = datasets.load(exp.dataset, exp.dataset_options)
    lmbds = sorted({datasets.resolve_lmbd(exp.config_lmbd(c), split.n_train) for c in exp.configs})
    return [(exp.dataset, dict(exp.dataset_options), lmbd) for lmbd in lmbds]


def _store(result: dict, path) -> None:
    reports.atomic_write_text(json.dumps(result, indent=2) + "\n", path)


def ensure_all(experiments: list[Experiment], n_jobs: int = 1) -> int:
    """Certify, in one pool, every missing optimum the experiments need; returns how many.

    Largest training sets first, so that the long certifications start early and the
    short ones fill the remaining workers.
    """
    todo: dict = {}
    for exp in experiments:
        for t in needed(exp):
            path = optimum_path(*t)
            if not path.exists():
                todo[path] = t
    order = sorted(todo.items(), key=lambda kv: -datasets.load(kv[1][0], kv[1][1]).n_train)
    # workers only compute; this process writes, to paths it resolved itself (a reused
    # worker may carry another environment, e.g. an older SVM_REPORTS_DIR)
    if n_jobs == 1 or len(order) <= 1:
        for path, t in order:
            _store(certify(*t), path)
    else:
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=min(n_jobs, len(order)), return_as="generator")
        for (path, _), result in zip(
            order, parallel(delayed(certify)(*t) for _, t in order), strict=True
        ):
            _store(result, path)
    return len(order)


def ensure(exp: Experiment, n_jobs: int = 1) -> list[dict]:
    """Compute (once) and return the certified optima of ``exp``."""
    ensure_all([exp], n_jobs)
    return [json.loads(optimum_path(*t).read_text()) for t in needed(exp)]


def load_all(root=None) -> list[dict]:
    """Every stored optimum under ``root`` (default: the reports folder); figures join them
    on dataset key and λ."""
    directory = reports.reports_dir(root) / "optima"
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]
