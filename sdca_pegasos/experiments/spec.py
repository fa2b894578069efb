"""Declarative experiments: what to run, never how (STYLE.md, practice 12).

An :class:`Experiment` names a dataset (and loader options), a regulariser, a number of
epochs and seeds, and a list of solver :class:`Config` s. Every (configuration, seed) pair is
one *run*. A run is identified by a hash of exactly what determines its rows (dataset and
options, λ, epochs, solver and parameters, base seed, the configuration's stop rule and the
epochs it records if it has one, and the source code of the solvers, loaders and metrics),
so that changing an experiment invalidates only the runs it changes, and adding seeds or
configurations reuses every finished run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

#: Bump when the meaning of a report row changes: every stored run is then recomputed.
ENGINE_VERSION = 1

#: Solver name -> (module attribute of ``solvers``) for the estimators the engine can run.
SOLVER_CLASSES = {
    "sdca": "SDCAClassifier",
    "pegasos": "PegasosClassifier",
    "asdca": "ASDCAClassifier",
    "exact": "ExactSVMClassifier",
}


#: Estimator parameters every run passes unless its configuration's ``params`` set them: the
#: experiments' settings where the estimators' defaults differ. The estimators default to what
#: a ``LinearSVC`` user expects (an intercept, λ = 1/n); both studies fit no intercept (λ is
#: always passed: the experiment's ``lmbd`` or the configuration's).
RUN_DEFAULTS = {"bias_multiplier": 0.0}

#: Per solver, the estimator parameters every run of that solver passes unless its
#: configuration's ``params`` set them, after :data:`RUN_DEFAULTS`: SDCA's epochs sweep all n
#: samples in both studies, so no shrinking and no exact finish, whatever the estimator's
#: default (``"auto"``: both on, on the CPU). Pegasos, ASDCA and the exact solver have no such
#: parameters.
SOLVER_RUN_DEFAULTS = {"sdca": {"shrinking": False, "finish": False}}

#: What a run key leaves out of the parameters when they hold this value: the keys made
#: before ``RUN_DEFAULTS`` existed (when 0.0 was the estimators' own default and no
#: configuration named it) stay valid, and a configuration that names the same value is the
#: same run. So are the keys made before :data:`SOLVER_RUN_DEFAULTS` (when ``False`` was
#: SDCA's default for both and no configuration named ``finish``; SDCA's configurations are
#: the only ones with these parameters).
_KEYS_IMPLY = {"bias_multiplier": 0.0, "shrinking": False, "finish": False}

#: Source files whose content determines report rows: a change to any of them invalidates
#: every stored run (a bug fix in a solver must never be hidden by reused runs).
_ROWS_DEPEND_ON = (
    "sdca_pegasos/solvers/**/*.py",  # every room of the solvers: kernels, monitoring, driver
    "sdca_pegasos/data/**/*.py",
    "sdca_pegasos/experiments/metrics.py",
    "sdca_pegasos/experiments/bulk.py",
    "sdca_pegasos/experiments/runner.py",
    "sdca_pegasos/experiments/datasets.py",
    "sdca_pegasos/experiments/stopping.py",
)


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Hash of the sources that determine report rows (see ``_ROWS_DEPEND_ON``)."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for pattern in _ROWS_DEPEND_ON:
        for path in sorted(root.glob(pattern)):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def canonical(value: Any) -> Any:
    """JSON-stable form of a parameter value (tuples -> lists, NumPy scalars -> Python)."""
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return canonical(value.tolist())
    return value


def digest(obj: Any, length: int = 12) -> str:
    """Short stable hash of a JSON-able object."""
    text = json.dumps(canonical(obj), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:length]


@dataclass(frozen=True)
class Config:
    """One solver configuration of an experiment.

    By default a run does exactly the experiment's ``epochs`` (gap threshold 0, as both
    studies). A *stop rule* (``rel_gap``, ``cpu_budget``, ``max_epochs``) runs the
    configuration as a user would instead: until its own certificate reaches ``rel_gap`` or
    its timed CPU reaches ``cpu_budget`` (:mod:`sdca_pegasos.experiments.stopping`).

    Parameters
    ----------
    label : str
        Name shown in figures and tables, unique within the experiment.
    solver : {"sdca", "pegasos", "asdca", "exact"}
        ``"exact"``: :class:`sdca_pegasos.solvers.ExactSVMClassifier`, one certified solve
        (recorded as one epoch); it needs ``rel_gap`` (its ``tol``) and ``cpu_budget`` (its
        ``max_cpu``).
    params : dict
        Estimator parameters (``lmbd``, ``max_epochs``, ``tol``, ``random_state`` and
        ``callback`` are set by the engine; ``lmbd`` here overrides the experiment's). Those
        left out of :data:`RUN_DEFAULTS` and of the solver's :data:`SOLVER_RUN_DEFAULTS` take
        their value, not the estimator's default (``bias_multiplier=0.0``: no intercept, as
        both studies; SDCA: ``shrinking=False, finish=False``, epochs over all n samples).
    tags : tuple of str
        Groups the figures select on (e.g. ``"algorithms"``, ``"sampling"``).
    rel_gap : float, default=0
        Stop after the first epoch whose relative duality gap (P(w) − D(α))/P(w), computed
        by the recorder after the clock stops, is at most this (0: never; solvers with a
        dual only).
    cpu_budget : float or None, default=None
        Stop after the first epoch whose cumulative timed CPU seconds (setup included) reach
        this: a run's CPU time is at most the budget plus one epoch.
    max_epochs : int or None, default=None
        Epoch cap of a configuration with a stop rule (None: the experiment's ``epochs``).
    seeds : int or None, default=None
        At most this many seeds (a deterministic solver needs few), else the experiment's.
    rows_per_doubling : int or None, default=None
        A stop rule's runs record every epoch below 2R (R = this), then R per doubling of
        the epoch count, and their last epoch (:func:`sdca_pegasos.experiments.stopping.recorded`);
        None: every epoch. A row costs a pass over both splits: a long run to convergence
        records what its readers need, not every cheap epoch of SDCA with shrinking.
    """

    label: str
    solver: str
    params: dict = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    rel_gap: float = 0.0
    cpu_budget: float | None = None
    max_epochs: int | None = None
    seeds: int | None = None
    rows_per_doubling: int | None = None

    def __post_init__(self):
        if self.solver not in SOLVER_CLASSES:
            raise ValueError(f"unknown solver {self.solver!r}; expected {sorted(SOLVER_CLASSES)}")
        reserved = {"max_epochs", "tol", "random_state", "callback", "max_cpu"} & set(self.params)
        if reserved:
            raise ValueError(
                f"{self.label}: {sorted(reserved)} are set by the engine (use the Config fields "
                "max_epochs, rel_gap and cpu_budget)"
            )
        if not 0.0 <= self.rel_gap < 1.0:
            raise ValueError(f"{self.label}: rel_gap must be in [0, 1), got {self.rel_gap!r}")
        if self.rel_gap and self.solver == "pegasos":
            raise ValueError(f"{self.label}: rel_gap needs a dual point; Pegasos has none")
        if self.cpu_budget is not None and not self.cpu_budget > 0:
            raise ValueError(f"{self.label}: cpu_budget must be > 0 seconds or None")
        for name in ("max_epochs", "seeds", "rows_per_doubling"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{self.label}: {name} must be >= 1 or None")
        if self.solver == "exact" and not (self.rel_gap > 0 and self.cpu_budget is not None):
            raise ValueError(
                f"{self.label}: the exact solver needs rel_gap > 0 (the relative gap it "
                "certifies) and cpu_budget (its max_cpu)"
            )
        if self.max_epochs is not None and not self.stops_early:
            raise ValueError(
                f"{self.label}: max_epochs is the cap of a stop rule; set rel_gap or "
                "cpu_budget, or change the experiment's epochs"
            )
        if self.rows_per_doubling is not None and (not self.stops_early or self.solver == "exact"):
            raise ValueError(
                f"{self.label}: rows_per_doubling thins the rows of a run with a stop rule "
                "(rel_gap or cpu_budget) and epochs; a fixed-epoch run records every epoch, "
                "the exact solver's one solve is one row"
            )

    @property
    def stops_early(self) -> bool:
        """Whether runs stop on ``rel_gap`` or ``cpu_budget`` (else: exactly ``epochs``)."""
        return self.rel_gap > 0 or self.cpu_budget is not None

    def stop_rule(self) -> dict:
        """The stop rule's fields, for the run key ({} without one: keys stay as before;
        ``rows_per_doubling`` only when set: the keys of runs recording every epoch stay)."""
        if not self.stops_early:
            return {}
        rule = {
            "rel_gap": self.rel_gap,
            "cpu_budget": self.cpu_budget,
            "max_epochs": self.max_epochs,
        }
        if self.rows_per_doubling is not None:
            rule["rows_per_doubling"] = self.rows_per_doubling
        return rule


@dataclass(frozen=True)
class Experiment:
    """A named set of runs: every config × every seed, on one dataset.

    Parameters
    ----------
    name : str
        Report name: ``reports/<name>.parquet``.
    study : {"000", "001", "beyond", "test"}
    dataset : str
        Name for :func:`sdca_pegasos.data.load` (or a dataset registered with
        :func:`sdca_pegasos.experiments.datasets.register`).
    lmbd : float or "1/n"
        Default regulariser of the configs; ``"1/n"`` is resolved on the training set.
    epochs : int
        Every run does exactly this many epochs (gap threshold 0, as both studies).
    configs : tuple of Config
    dataset_options : dict
        Keyword arguments of the loader (e.g. ``{"pca": 40}``).
    seeds : int
        Runs per configuration (100 in the studies).
    base_seed : int
        Run ``r`` uses the seed derived from ``(base_seed, r)``.
    store_coef : bool
        Also store the final coefficients of every run (study 001 figure 7).
    description : str
    """

    name: str
    study: str
    dataset: str
    lmbd: float | str
    epochs: int
    configs: tuple[Config, ...]
    dataset_options: dict = field(default_factory=dict)
    seeds: int = 100
    base_seed: int = 0
    store_coef: bool = False
    description: str = ""

    def __post_init__(self):
        labels = [c.label for c in self.configs]
        if len(set(labels)) != len(labels):
            raise ValueError(f"{self.name}: duplicate config labels")
        if not self.configs:
            raise ValueError(f"{self.name}: no configurations")
        if self.epochs < 1 or self.seeds < 1:
            raise ValueError(f"{self.name}: epochs and seeds must be >= 1")

    def with_seeds(self, seeds: int) -> Experiment:
        """The same experiment with another number of seeds (runs are shared)."""
        return Experiment(**{**self.__dict__, "seeds": seeds})

    def config_lmbd(self, config: Config) -> float | str:
        return config.params.get("lmbd", self.lmbd)

    def config_params(self, config: Config) -> dict:
        """Every parameter the engine passes to ``config``'s estimator besides those it sets
        itself (``max_epochs``, ``tol``, ``random_state``, ``callback``, ``max_cpu``):
        :data:`RUN_DEFAULTS` and the solver's :data:`SOLVER_RUN_DEFAULTS`, then the
        configuration's ``params``, and ``lmbd`` (as declared: ``"1/n"`` is resolved on the
        training set by the runner)."""
        return {
            **RUN_DEFAULTS,
            **SOLVER_RUN_DEFAULTS.get(config.solver, {}),
            **config.params,
            "lmbd": self.config_lmbd(config),
        }

    def config_epochs(self, config: Config) -> int:
        """Epoch cap of ``config``'s runs: 1 (one solve) for the exact solver, its own
        ``max_epochs`` if set, else the experiment's ``epochs``."""
        if config.solver == "exact":
            return 1
        return config.max_epochs or self.epochs

    def config_seeds(self, config: Config) -> int:
        """Runs of ``config``: the experiment's ``seeds``, capped by the config's own."""
        return min(self.seeds, config.seeds or self.seeds)

    def run_key(self, config: Config) -> str:
        """Hash of everything that determines the rows of this config's runs (a stop rule
        only when there is one: the keys of the fixed-epoch configurations do not change)."""
        definition = {
            "engine": ENGINE_VERSION,
            "code": code_digest(),
            "dataset": self.dataset,
            "options": self.dataset_options,
            "epochs": self.config_epochs(config),
            "base_seed": self.base_seed,
            "store_coef": self.store_coef,
            "solver": config.solver,
            "params": {
                k: v
                for k, v in self.config_params(config).items()
                if not (k in _KEYS_IMPLY and v == _KEYS_IMPLY[k])
            },
            # written into every row (figures select on them): a renamed or retagged
            # configuration is not served from runs stored under its old name
            "display": {"study": self.study, "label": config.label, "tags": list(config.tags)},
        }
        if config.stops_early:
            definition["stop"] = config.stop_rule()
        return digest(definition)


def derive_seed(base_seed: int, index: int) -> int:
    """Seed of run ``index``: independent streams from ``SeedSequence([base, index])``."""
    return int(np.random.SeedSequence([base_seed, index]).generate_state(1)[0])
