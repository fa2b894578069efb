"""Declarative experiments of both studies, run over seeded repetitions into complete reports.

- :mod:`sdca_pegasos.experiments.spec`: :class:`Experiment` and :class:`Config` (what to run)
- :mod:`sdca_pegasos.experiments.catalogue`: every experiment (:data:`CATALOGUE`)
- :mod:`sdca_pegasos.experiments.runner`: :func:`run_experiment` (resumable, joblib or dask), and
  :func:`run_experiments` (several in one pool, longest runs first)
- :mod:`sdca_pegasos.experiments.reports`: where reports live; :func:`load_report`
- :mod:`sdca_pegasos.experiments.optima`: certified optima P* for suboptimality plots

Command line: ``python -m sdca_pegasos.experiments --help``.
"""

from .catalogue import CATALOGUE
from .reports import load_report
from .spec import Config, Experiment

__all__ = ["CATALOGUE", "Config", "Experiment", "load_report", "run_experiment", "run_experiments"]


def __getattr__(name: str):
    """``run_experiment(s)`` on first use: a reader of reports (the figures, the scorecard)
    imports no solver."""
    if name in ("run_experiment", "run_experiments"):
        from . import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
