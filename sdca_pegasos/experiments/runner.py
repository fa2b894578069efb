"""Execute an experiment: every (configuration, seed) run, resumable, in parallel.

Each run happens in a worker (a joblib/loky process, a dask worker, or this process for
``n_jobs=1``): it loads the dataset (once per worker while the runs are of one dataset:
:func:`_dataset`), limits BLAS to one thread, fits the estimator with a
:class:`sdca_pegasos.experiments.metrics.Recorder` callback and returns its rows. The parent writes
every finished run atomically as soon as it arrives (so a kill loses only the runs in flight), then
rebuilds the report from the run files of the current definition. Experiments run one after the
other in one process share its loky workers (joblib reuses the pool), so a worker imports and
compiles once for all of them (``python -m sdca_pegasos.experiments run`` orders them by dataset,
so that it loads each dataset once too)."""

from __future__ import annotations

import json
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from time import perf_counter as stage_clock
from time import process_time

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from threadpoolctl import ThreadpoolController
from tqdm import tqdm  # not tqdm.auto: it warns in a Jupyter kernel without ipywidgets

from sdca_pegasos import solvers

from . import datasets, optima, reports, stopping
from .metrics import METRIC_COLUMNS, Recorder
from .spec import SOLVER_CLASSES, Config, Experiment, canonical, derive_seed

#: Columns that change between two runs of the same seed (everything else is bit-identical).
TIMING_COLUMNS = ("cpu_time", "wall_time", "cpu_time_cum", "wall_time_cum")


@dataclass(frozen=True)
class RunTask:
    """One seeded run. Its ``key`` is computed once, where the task is made: a worker that
    hashed the sources itself would disagree with the parent if they were edited mid-run
    (every file it wrote would then look like another run's)."""

    experiment: Experiment
    config: Config
    seed_index: int
    key: str = ""

    def __post_init__(self):
        if not self.key:
            object.__setattr__(self, "key", self.experiment.run_key(self.config))

    @property
    def seed(self) -> int:
        return derive_seed(self.experiment.base_seed, self.seed_index)


@dataclass
class RunResult:
    rows: pd.DataFrame
    coef: pd.DataFrame | None
    #: The run's CPU seconds in its worker, all of it (fit, metrics, report frame).
    cpu_seconds: float = 0.0


def make_estimator(task: RunTask, lmbd: float):
    """The configured estimator, its settings explicit (``lmbd``, the run defaults of
    :meth:`sdca_pegasos.experiments.spec.Experiment.config_params`: no intercept unless the config
    sets one, whatever the estimators' own defaults): its epoch cap, no gap stopping of its own
    (threshold 0; a stop rule is the callback's, :mod:`sdca_pegasos.experiments.stopping`); the
    exact solver certifies the config's ``rel_gap`` within its ``cpu_budget``."""
    cfg = task.config
    cls = getattr(solvers, SOLVER_CLASSES[cfg.solver])
    est = cls(**{**task.experiment.config_params(cfg), "lmbd": lmbd})
    if cfg.solver == "exact":
        return est.set_params(tol=cfg.rel_gap, max_cpu=cfg.cpu_budget, random_state=task.seed)
    fixed = {"max_epochs": task.experiment.config_epochs(cfg), "random_state": task.seed}
    if "tol" in est.get_params():
        fixed["tol"] = 0
    return est.set_params(**fixed)


@lru_cache(maxsize=1)
def _threadpools() -> ThreadpoolController:
    """This process's BLAS/OpenMP pools, found once (a search of the loaded libraries costs
    ~8 ms: as much as a whole run of a small experiment)."""
    return ThreadpoolController()


#: The dataset key of this process's last run (:func:`_dataset`).
_last_dataset: list[str | None] = [None]


def _dataset(exp: Experiment):
    """The dataset of ``exp``, from this process's cache (:func:`_load`)."""
    return _load(exp.dataset, exp.dataset_options)


def _load(dataset: str, options: dict):
    """A dataset from this process's cache; a task of another dataset than the last one
    (a run, or an optimum in the same pool) empties the cache first, so that a long-lived
    worker keeps one dataset (loky retires a worker whose memory grew by 300 MB: the raw
    crops alone are 287 MB)."""
    key = datasets.dataset_key(dataset, options)
    if _last_dataset[0] not in (None, key):
        datasets.load.cache_clear()
    _last_dataset[0] = key
    return datasets.load(dataset, options)


@dataclass
class OptimumResult:
    """A certified optimum's record, made in a worker, and the CPU seconds it took there."""

    record: dict
    cpu_seconds: float


def certify_one(task: optima.OptimumTask) -> OptimumResult:
    """One optimum, certified in the runs' pool: its dataset loaded as a run's is
    (:func:`_load`), and kept for the worker's next task."""
    start = process_time()
    _load(task.dataset, task.options)
    return OptimumResult(task.certify(release=False), process_time() - start)


def run_one(task: RunTask) -> RunResult:
    """One run, start to finish (runs in a worker)."""
    start = process_time()
    exp, cfg = task.experiment, task.config
    with _threadpools().limit(limits=1):  # metrics must not spread over the timed core's sibling
        ds = _dataset(exp)
        lmbd = datasets.resolve_lmbd(exp.config_lmbd(cfg), ds.n_train)
        est = make_estimator(task, lmbd)
        recorder = Recorder(ds, lmbd, est.loss_function, float(est.bias_multiplier), est.has_dual)
        recorder.initial(ds.X_train.shape[1])
        stopping.fit_with_rule(est, ds.X_train, ds.y_train, recorder, cfg)

    identity = {
        "experiment": exp.name,
        "study": exp.study,
        "dataset": exp.dataset,
        "dataset_key": datasets.dataset_key(exp.dataset, exp.dataset_options),
        "dataset_title": ds.meta.get("title", exp.dataset),
        "substitute": bool(ds.meta.get("substitute", False)),
        "config": cfg.label,
        "solver": cfg.solver,
        "tags": ",".join(cfg.tags),
        "seed_index": task.seed_index,
        "seed": task.seed,
        "lmbd": lmbd,
        "n_train": ds.n_train,
        "n_features": ds.X_train.shape[1],
        "run_key": task.key,
        "params": json.dumps(canonical(cfg.params), sort_keys=True),
    }
    for name, value in sorted(cfg.params.items()):
        identity[f"param_{name}"] = json.dumps(canonical(value))
    rows = report_rows(identity, recorder.rows)

    coef = None
    if exp.store_coef:
        d = ds.X_train.shape[1]
        beta = ds.true_coef if ds.true_coef is not None else np.full(d, np.nan)
        coef = frame(
            d,
            {
                "experiment": exp.name,
                "config": cfg.label,
                "solver": cfg.solver,
                "tags": ",".join(cfg.tags),
                "seed_index": task.seed_index,
                "seed": task.seed,
                "feature": np.arange(d),
                "coef": est.coef_.ravel(),
                "intercept": float(est.intercept_[0]),
                "beta": np.asarray(beta, dtype=float),
            },
        )
    return RunResult(rows=rows, coef=coef, cpu_seconds=process_time() - start)


def report_rows(identity: dict, recorded: list[dict]) -> pd.DataFrame:
    """A run's report rows: the ``identity``'s scalars repeated on every row, then the metric
    columns of the ``recorded`` rows (:attr:`sdca_pegasos.experiments.metrics.Recorder.rows`),
    as one frame (:func:`frame`), where a frame of the rows, then one of it and the identity,
    made two constructions and aligned a Series per column (the per-run rest this saves:
    docs/measurements.md, issue 51's A/B). The same frame, column for column and dtype for
    dtype (``tests/test_experiments.py``)."""
    metrics = {name: [row[name] for row in recorded] for name in recorded[0]}
    return frame(len(recorded), {**identity, **metrics})


def frame(n: int, columns: dict) -> pd.DataFrame:
    """``pd.DataFrame(columns)`` with ``n`` rows, its scalars repeated, each column made here
    as the NumPy array of the dtype pandas infers for it: a string an object column, a number
    or boolean NumPy's own dtype (which is pandas'), a list of numbers (or of booleans) its
    NumPy array. Pandas broadcasting a scalar infers a dtype and builds a column for each;
    anything this does not recognise (strings in a list, None, booleans mixed with numbers,
    dates) is left to pandas as it was given."""
    made = {}
    for name, value in columns.items():
        if isinstance(value, np.ndarray):
            made[name] = value
        elif isinstance(value, list):
            array = np.array(value)
            # pandas makes a list mixing booleans and numbers an object column; NumPy casts
            mixed = array.dtype.kind in "iuf" and any(
                isinstance(v, bool | np.bool_) for v in value
            )
            made[name] = array if array.dtype.kind in "biuf" and not mixed else value
        elif type(value) is str:
            made[name] = np.full(n, value, dtype=object)
        else:
            array = np.full(n, value)
            made[name] = array if array.dtype.kind in "biuf" else value
    return pd.DataFrame(made, copy=False)


def column_order(columns: list[str]) -> list[str]:
    """Identity columns, then the solver parameters (sorted), then the metrics."""
    params = sorted(c for c in columns if c.startswith("param_"))
    metrics = [c for c in METRIC_COLUMNS if c in columns]
    identity = [c for c in columns if c not in params and c not in metrics]
    return identity + params + metrics


def _indexed(i: int, task) -> tuple[int, RunResult | OptimumResult]:
    if isinstance(task, optima.OptimumTask):
        return i, certify_one(task)
    return i, run_one(task)


def execute(
    tasks: list, n_jobs: int = 1, backend: str = "loky", scheduler: str | None = None
) -> Iterator[tuple[int, RunResult | OptimumResult]]:
    """Yield ``(index into tasks, result)`` as tasks finish, in completion order: a
    :class:`RunTask`'s :class:`RunResult`, an :class:`optima.OptimumTask`'s
    :class:`OptimumResult`."""
    if not tasks:
        return
    if backend == "dask":
        from distributed import Client, as_completed

        client = Client(scheduler) if isinstance(scheduler, str) else scheduler
        if client is None:
            raise ValueError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
        futures = [client.submit(_indexed, i, t, pure=False) for i, t in enumerate(tasks)]
        for future in as_completed(futures):
            yield future.result()
        return
    if backend != "loky":
        raise ValueError(f"unknown backend {backend!r}; expected 'loky' or 'dask'")
    if n_jobs == 1:
        for i, task in enumerate(tasks):
            yield _indexed(i, task)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered")
    yield from parallel(delayed(_indexed)(i, t) for i, t in enumerate(tasks))


def _write_run(task: RunTask, result: RunResult, root=None) -> None:
    name = task.experiment.name
    if result.coef is not None:  # first: the run file is the completion marker
        reports.atomic_write_parquet(
            result.coef, reports.coef_run_path(name, task.key, task.seed_index, root)
        )
    reports.atomic_write_parquet(
        result.rows, reports.run_path(name, task.key, task.seed_index, root)
    )


def _files(task: RunTask, root=None) -> list:
    """The files of one finished run: its run file, and first its coefficients if stored."""
    name, key, r = task.experiment.name, task.key, task.seed_index
    run = reports.run_path(name, key, r, root)
    if task.experiment.store_coef:
        return [reports.coef_run_path(name, key, r, root), run]
    return [run]


def _set_aside(task: RunTask, reason: str, root=None) -> None:
    """Rename every existing file of ``task`` to ``*.damaged`` (with a warning naming it)."""
    for path in _files(task, root):
        if path.exists():
            reports.set_aside(path, reason)


def _is_complete(task: RunTask, root=None) -> bool:
    """Whether the run's files are all there and whole; a damaged one is set aside.

    The run file is the completion marker; a run file whose coefficient file is missing or
    damaged is incomplete too (both are set aside and the run is recomputed).
    """
    files = _files(task, root)
    if not files[-1].exists():
        return False
    for path in files:
        problem = reports.parquet_problem(path)
        if problem:
            _set_aside(task, f"{path.name}: {problem}", root)
            return False
    return True


def plan(exp: Experiment, root=None) -> tuple[list[RunTask], list[RunTask]]:
    """All runs of ``exp`` and those still missing on disk under the reports folder ``root`` (None:
    :func:`sdca_pegasos.experiments.reports.reports_dir`'s default); damaged files are set
    aside."""
    keyed = [(cfg, exp.run_key(cfg)) for cfg in exp.configs]  # hashed once, here
    tasks = [RunTask(exp, cfg, r, key) for cfg, key in keyed for r in range(exp.config_seeds(cfg))]
    missing = [t for t in tasks if not _is_complete(t, root)]
    return tasks, missing


def _content_check(tasks: list[RunTask], root=None):
    """``check(path, frame)`` for :func:`reports.consolidate`: the file holds its own run."""
    expected = {}
    for t in tasks:
        for path in _files(t, root):
            expected[path] = t

    def check(path, frame: pd.DataFrame) -> str | None:
        t = expected[path]
        own = {"seed_index": t.seed_index, "config": t.config.label}
        if not path.name.endswith(".coef.parquet"):  # coefficient files carry no run_key
            own["run_key"] = t.key
        if frame.empty:
            return "no rows"
        for column, value in own.items():
            if column not in frame:
                return f"no {column} column"
            if not (frame[column] == value).all():
                return f"rows of another run ({column} is not {value!r} throughout)"
        return None

    return check


def prune_stale_runs(exp: Experiment, root=None) -> int:
    """Delete run files of definitions that no longer exist (changed configs, epochs...)."""
    keys = {exp.run_key(cfg) for cfg in exp.configs}
    directory = reports.runs_dir(exp.name, root)
    if not directory.exists():
        return 0
    stale = [f for f in directory.glob("*.parquet") if f.name.split("-s")[0] not in keys]
    for f in stale:
        f.unlink()
    return len(stale)


def _current_report(exp: Experiment, tasks: list[RunTask], root=None) -> pd.DataFrame | None:
    """The stored report if it holds exactly the runs of the current definition, else None.

    A report (or coefficient table) that cannot be read is not current: it is rebuilt.
    """
    paths = [reports.report_path(exp.name, root)]
    if exp.store_coef:
        paths.append(reports.coef_path(exp.name, root))
    if not all(p.exists() for p in paths):
        return None
    try:
        report = pd.read_parquet(paths[0])
        if exp.store_coef:
            pq.read_metadata(paths[1])
    except Exception as exc:
        warnings.warn(
            f"{exp.name}: stored report unreadable ({type(exc).__name__}: {exc}); rebuilding it",
            reports.DamagedFileWarning,
            stacklevel=3,
        )
        return None
    stored = report[["run_key", "seed_index"]].drop_duplicates()
    expected = {(t.key, t.seed_index) for t in tasks}
    return report if set(map(tuple, stored.itertuples(index=False))) == expected else None


@dataclass(frozen=True)
class _Pool:
    """Where and how runs execute, and what their progress bar and writes go to."""

    n_jobs: int
    backend: str
    scheduler: object
    progress: bool
    root: object


@dataclass(frozen=True)
class StageTime:
    """Where a pool's time went: its ``wall`` seconds, the ``cpu`` seconds its runs spent in
    their workers, and ``idle``, the rest of ``workers`` × wall (None where the number of
    workers is not known here: a dask cluster's)."""

    runs: int
    wall: float
    cpu: float
    workers: int | None
    #: Optima certified in the same pool (their CPU is in ``cpu``).
    optima: int = 0

    @property
    def idle(self) -> float | None:
        return None if self.workers is None else max(0.0, self.workers * self.wall - self.cpu)

    def line(self) -> str:
        tasks = f"{self.runs} runs" + (f" and {self.optima} optima" if self.optima else "")
        head = f"{tasks}: wall {self.wall:.1f} s, CPU {self.cpu:.1f} s"
        if self.workers is None:
            return head
        share = self.idle / (self.workers * self.wall) if self.wall > 0 else 0.0
        return (
            f"{head}, idle {self.idle:.1f} s of {self.workers} workers × {self.wall:.1f} s "
            f"({share:.0%})"
        )


def _execute_and_write(pool: _Pool, name: str, total: int, missing: list) -> float:
    """Run ``missing`` (runs, and optima: :class:`optima.OptimumTask`) and write each as it
    finishes; the bar counts ``total`` tasks. Returns their CPU seconds in their workers."""
    bar = tqdm(
        total=total,
        initial=total - len(missing),
        desc=name,
        unit="run",
        disable=not pool.progress,
        dynamic_ncols=True,
    )
    cpu = 0.0
    try:
        for i, result in execute(missing, pool.n_jobs, pool.backend, pool.scheduler):
            if isinstance(result, OptimumResult):
                missing[i].store(result.record)
            else:
                _write_run(missing[i], result, pool.root)
            cpu += result.cpu_seconds
            bar.update(1)
    finally:
        bar.close()
    return cpu


def run_cost(task: RunTask, size: float) -> float:
    """A run's expected cost, for ordering only: its epoch cap times the stored entries of
    its training set (``size``: n·d dense, the nonzeros of CSR). A run with a stop rule may
    end sooner; the cap is what can be known before it runs."""
    return task.experiment.config_epochs(task.config) * size


def longest_first(tasks: list[RunTask], sizes: dict[str, float]) -> list[RunTask]:
    """``tasks`` in the order a pool should take them so that no core idles while runs
    remain (longest processing time first): datasets by their longest run, longest first,
    and within a dataset its runs longest first. A worker keeps one dataset loaded
    (:func:`_dataset`), so a dataset's runs stay together; the pool's tail is the shortest
    runs of the dataset whose runs are shortest. Ties keep the given order (a stable sort),
    so the order is the same on every machine."""

    def dataset(t: RunTask) -> str:
        return datasets.dataset_key(t.experiment.dataset, t.experiment.dataset_options)

    cost = {id(t): run_cost(t, sizes[dataset(t)]) for t in tasks}
    longest: dict[str, float] = {}
    for t in tasks:
        longest[dataset(t)] = max(longest.get(dataset(t), 0.0), cost[id(t)])
    return sorted(tasks, key=lambda t: (-longest[dataset(t)], dataset(t), -cost[id(t)]))


def _training_size(exp: Experiment) -> float:
    """Stored entries of ``exp``'s training set (n·d dense, the nonzeros of CSR)."""
    X = datasets.load(exp.dataset, exp.dataset_options).X_train
    return float(X.nnz if hasattr(X, "nnz") else X.size)


def _consolidate(exp: Experiment, tasks: list[RunTask], check, root=None) -> pd.DataFrame:
    """Rebuild the report (and coefficient table) from the run files of ``tasks``."""
    run_files = [reports.run_path(exp.name, t.key, t.seed_index, root) for t in tasks]
    if exp.store_coef:
        coef_files = [reports.coef_run_path(exp.name, t.key, t.seed_index, root) for t in tasks]
        reports.consolidate(coef_files, reports.coef_path(exp.name, root), check=check)
    return reports.consolidate(
        run_files, reports.report_path(exp.name, root), order=column_order, check=check
    )


def run_experiment(
    exp: Experiment,
    n_jobs: int = 1,
    backend: str = "loky",
    scheduler=None,
    progress: bool = True,
    root=None,
) -> pd.DataFrame:
    """Run every missing run of ``exp``, then (re)build its report; returns the report.

    Everything is read and written under the reports folder ``root`` (None:
    :func:`sdca_pegasos.experiments.reports.reports_dir`'s default). A failing run raises after the
    runs finished before it have been saved; running again resumes from there. The report is only
    written when every run exists."""
    return run_experiments([exp], n_jobs, backend, scheduler, progress, root)[exp.name]


def run_experiments(
    exps: list[Experiment],
    n_jobs: int = 1,
    backend: str = "loky",
    scheduler=None,
    progress: bool = True,
    root=None,
    with_optima: bool = False,
) -> dict[str, pd.DataFrame]:
    """:func:`run_experiment` for several experiments whose missing runs share one pool,
    longest first (:func:`longest_first`; so are one experiment's runs on more than one
    worker), so that no core idles while any experiment still has runs; each report is then
    built as :func:`run_experiment` builds it. Returns the reports by experiment name. With
    ``with_optima``, the certified optima the experiments need and lack
    (:func:`optima.missing`) go into the same pool, ahead of the runs (the largest first:
    a raw-crop optimum is as long as the longest runs), so that they overlap the runs
    instead of running in a pool of their own before them; each record is written as it
    arrives, as :func:`optima.ensure_all` writes it. With ``progress``, the pool's wall, its
    tasks' CPU and its workers' idle time are printed at its end (:class:`StageTime`). The
    sidecar's ``started`` is the pool's start, and its ``wall_seconds`` the time from there
    until that experiment's report was written."""
    if not exps:
        return {}
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    plans = []
    for exp in exps:
        reports.remove_stale_temporaries(reports.runs_dir(exp.name, root))
        pruned = prune_stale_runs(exp, root)
        plans.append((exp, pruned, *plan(exp, root)))
    # first: optima.missing loads every dataset it sizes and then empties the cache, which the
    # runs' sizes below and the reports after the pool then fill once
    certs = optima.missing(exps, root) if with_optima else []
    pooled = [t for *_, missing in plans for t in missing]
    if len(exps) > 1 or n_jobs != 1:  # one worker: any order takes as long
        sizes = {
            datasets.dataset_key(e.dataset, e.dataset_options): _training_size(e)
            for e, *_, missing in plans
            if missing
        }
        pooled = longest_first(pooled, sizes)
    pool = _Pool(n_jobs, backend, scheduler, progress, root)
    total = sum(len(tasks) for *_, tasks, _ in plans) + len(certs)
    name = exps[0].name if len(exps) == 1 else f"{len(exps)} experiments"
    pool_start = stage_clock()  # not time.perf_counter: the sidecar's clock reads start and end
    cpu = _execute_and_write(pool, name, total, [*certs, *pooled])
    stage = StageTime(len(pooled), stage_clock() - pool_start, cpu, _workers(pool), len(certs))
    if (pooled or certs) and progress:  # the floor: longest first keeps every worker busy
        print(f"{name}: {stage.line()}", file=sys.stderr, flush=True)
    return {
        exp.name: _report(pool, exp, tasks, missing, pruned, started, t0)
        for exp, pruned, tasks, missing in plans
    }


def _workers(pool: _Pool) -> int | None:
    """The pool's worker processes (loky: joblib's count for n_jobs; dask: unknown here)."""
    if pool.backend != "loky":
        return None
    if pool.n_jobs == 1:
        return 1
    from joblib import effective_n_jobs

    return effective_n_jobs(pool.n_jobs)


def _report(pool: _Pool, exp, tasks, missing, pruned, started, t0) -> pd.DataFrame:
    """``exp``'s report once its runs are on disk: the stored one if current, else rebuilt
    from the run files (damaged ones recomputed once), with its sidecar."""
    root = pool.root
    computed = len(missing)
    if not missing:
        current = _current_report(exp, tasks, root)
        if current is not None:
            # nothing changed: leave the report (and its timestamp, which Make reads) untouched
            return current
    check = _content_check(tasks, root)
    for attempt in (1, 2):
        try:
            report = _consolidate(exp, tasks, check, root)
            break
        except reports.DamagedFilesError as err:
            if attempt == 2:  # recomputed and still damaged: the disk, not the file
                raise
            redo = [t for t in tasks if any(p in err.damaged for p in _files(t, root))]
            for t in redo:
                reason = "; ".join(err.damaged[p] for p in _files(t, root) if p in err.damaged)
                _set_aside(t, reason, root)
            computed += len(redo)
            _execute_and_write(pool, exp.name, len(tasks), redo)
    reports.write_sidecar(
        exp.name,
        {
            "experiment": exp.name,
            "study": exp.study,
            "description": exp.description,
            "dataset": exp.dataset,
            "dataset_options": canonical(exp.dataset_options),
            "dataset_meta": canonical(datasets.load(exp.dataset, exp.dataset_options).meta),
            "epochs": exp.epochs,
            "seeds": exp.seeds,
            "configs": [c.label for c in exp.configs],
            "runs_total": len(tasks),
            "runs_computed_now": computed,
            "runs_reused": len(tasks) - computed,
            "stale_runs_pruned": pruned,
            "backend": pool.backend,
            "n_jobs": pool.n_jobs,
            "started": started.isoformat(),
            "finished": datetime.now(UTC).isoformat(),
            "wall_seconds": round(time.perf_counter() - t0, 3),
            **reports.environment(),
        },
        root,
    )
    return report
