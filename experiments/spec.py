"""Declarative experiments: what to run, never how (STYLE.md, practice 12).

An :class:`Experiment` names a dataset (and loader options), a regulariser, a number of
epochs and seeds, and a list of solver :class:`Config` s. Every (configuration, seed) pair is
one *run*. A run is identified by a hash of exactly what determines its rows (dataset and
options, λ, epochs, solver and parameters, base seed, and the source code of the solvers,
loaders and metrics), so that changing an
experiment invalidates only the runs it changes, and adding seeds or configurations reuses
every finished run.
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
}


#: Source files whose content determines report rows: a change to any of them invalidates
#: every stored run (a bug fix in a solver must never be hidden by reused runs).
_ROWS_DEPEND_ON = (
    "solvers/*.py",
    "data/*.py",
    "data/blood/*.py",
    "experiments/metrics.py",
    "experiments/runner.py",
    "experiments/datasets.py",
)


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Hash of the sources that determine report rows (see ``_ROWS_DEPEND_ON``)."""
    root = Path(__file__).resolve().parents[1]
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

    Parameters
    ----------
    label : str
        Name shown in figures and tables, unique within the experiment.
    solver : {"sdca", "pegasos", "asdca"}
    params : dict
        Estimator parameters (``lmbd``, ``max_epochs``, ``tol``, ``random_state`` and
        ``callback`` are set by the engine; ``lmbd`` here overrides the experiment's).
    tags : tuple of str
        Groups the figures select on (e.g. ``"algorithms"``, ``"sampling"``).
    """

    label: str
    solver: str
    params: dict = field(default_factory=dict)
    tags: tuple[str, ...] = ()

    def __post_init__(self):
        if self.solver not in SOLVER_CLASSES:
            raise ValueError(f"unknown solver {self.solver!r}; expected {sorted(SOLVER_CLASSES)}")
        reserved = {"max_epochs", "tol", "random_state", "callback"} & set(self.params)
        if reserved:
            raise ValueError(f"{self.label}: {sorted(reserved)} are set by the engine")


@dataclass(frozen=True)
class Experiment:
    """A named set of runs: every config × every seed, on one dataset.

    Parameters
    ----------
    name : str
        Report name: ``reports/<name>.parquet``.
    study : {"000", "001", "beyond", "test"}
    dataset : str
        Name for :func:`data.load` (or a dataset registered with
        :func:`experiments.datasets.register`).
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

    def run_key(self, config: Config) -> str:
        """Hash of everything that determines the rows of this config's runs."""
        return digest(
            {
                "engine": ENGINE_VERSION,
                "code": code_digest(),
                "dataset": self.dataset,
                "options": self.dataset_options,
                "epochs": self.epochs,
                "base_seed": self.base_seed,
                "store_coef": self.store_coef,
                "solver": config.solver,
                "params": {**config.params, "lmbd": self.config_lmbd(config)},
            }
        )


def derive_seed(base_seed: int, index: int) -> int:
    """Seed of run ``index``: independent streams from ``SeedSequence([base, index])``."""
    return int(np.random.SeedSequence([base_seed, index]).generate_state(1)[0])
