"""How a run with a stop rule ends (:class:`experiments.spec.Config`'s ``rel_gap``,
``cpu_budget`` and ``max_epochs``), and the one-solve record of the exact solver.

The studies' configurations run exactly ``epochs`` epochs. A configuration with a stop rule
runs as a user calls it instead: its :class:`StopRule` callback (the driver stops a fit
after an epoch whose callback returns ``True``, :class:`solvers.EpochInfo`) lets the
recorder write the epoch's row, then stops once that row's relative duality gap
(P(w) − D(α))/P(w) is at most ``rel_gap`` or its cumulative timed CPU seconds (setup
included, the ``cpu_time_cum`` the figures read) reach ``cpu_budget``; ``max_epochs`` caps
the rest. So a run's recorded CPU time is at most the budget plus one epoch, and the gap
the rule reads is the recorder's, computed after the clock stopped, never inside it.

:class:`solvers.ExactSVMClassifier` has no epochs: :func:`fit_exact` makes its one certified
solve (to ``rel_gap`` within ``cpu_budget`` CPU seconds, its ``tol`` and ``max_cpu``) and
records it as epoch 1, with the solve's CPU seconds as that epoch's time. That time is then
its time to every relative suboptimality its certificate reaches.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from solvers import EpochInfo, objectives

from .metrics import Recorder
from .spec import Config


class StopRule:
    """Callback: ``recorder(info)``, then ``True`` (stop) once the rule is met.

    Parameters
    ----------
    recorder : experiments.metrics.Recorder
        Writes the epoch's row; the rule reads that row.
    rel_gap : float
        Stop once ``gap <= rel_gap * P`` (P of the solver's own loss; 0: never).
    cpu_budget : float or None
        Stop once ``cpu_time_cum >= cpu_budget`` (None: never).

    Attributes
    ----------
    reason : str or None
        ``"rel_gap"`` or ``"cpu_budget"`` once the rule stopped the fit, else None.
    """

    def __init__(self, recorder: Recorder, rel_gap: float, cpu_budget: float | None):
        self.recorder = recorder
        self.rel_gap = float(rel_gap)
        self.cpu_budget = math.inf if cpu_budget is None else float(cpu_budget)
        self.reason: str | None = None

    def __call__(self, info) -> bool:
        self.recorder(info)
        row = self.recorder.rows[-1]
        primal = row["primal_smooth"] if math.isfinite(row["primal_smooth"]) else row["primal"]
        if self.rel_gap > 0.0 and row["gap"] <= self.rel_gap * primal:
            self.reason = "rel_gap"
        elif row["cpu_time_cum"] >= self.cpu_budget:
            self.reason = "cpu_budget"
        return self.reason is not None


def fit_with_rule(est, X, y, recorder: Recorder, config: Config) -> None:
    """Fit ``est`` with the recorder as its callback, wrapped in ``config``'s stop rule if it
    has one (the fixed-epoch configurations get the recorder itself)."""
    if config.solver == "exact":
        fit_exact(est, X, y, recorder)
        return
    callback = recorder
    if config.stops_early:
        callback = StopRule(recorder, config.rel_gap, config.cpu_budget)
    est.set_params(callback=callback)
    est.fit(X, y)


def fit_exact(est, X, y, recorder: Recorder) -> None:
    """One certified solve of :class:`solvers.ExactSVMClassifier`, recorded as epoch 1.

    An uncertified solve (``max_cpu`` ended first) is no error here: its row's gap says how
    far it got, as the recorder computes it for every solver.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    bias = float(est.bias_multiplier)
    w = objectives.full_weights(est.coef_, est.intercept_[0], bias)
    cpu = float(np.asarray(est.cpu_seconds_))
    recorder(
        EpochInfo(
            output=lambda: w,
            epoch=1,
            cpu_time=cpu,
            wall_time=float(np.asarray(est.epoch_wall_times_).ravel()[0]),
            setup_time=0.0,
            setup_wall_time=0.0,
            w=w,
            dual_coef=np.asarray(est.dual_coef_, dtype=np.float64),
            gap=float(est.duality_gap_),
            primal=float(est.primal_),
            dual=float(est.dual_),
            bias=bias,
            positive_class=est.classes_[1],
            n_samples_seen=X.shape[0],
            n_active=None,
        )
    )
