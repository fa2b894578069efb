"""Declarative experiments of both studies, run over seeded repetitions into complete reports.

- :mod:`experiments.spec`: :class:`Experiment` and :class:`Config` (what to run)
- :mod:`experiments.catalogue`: every experiment (:data:`CATALOGUE`)
- :mod:`experiments.runner`: :func:`run_experiment` (resumable, joblib or dask)
- :mod:`experiments.reports`: where reports live; :func:`load_report`
- :mod:`experiments.optima`: certified optima P* for suboptimality plots

Command line: ``python -m experiments --help``.
"""

from .catalogue import CATALOGUE
from .reports import load_report
from .spec import Config, Experiment

__all__ = ["CATALOGUE", "Config", "Experiment", "load_report", "run_experiment"]


def __getattr__(name: str):
    """``run_experiment`` on first use: a reader of reports (the figures, the scorecard)
    imports no solver."""
    if name == "run_experiment":
        from .runner import run_experiment

        return run_experiment
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
