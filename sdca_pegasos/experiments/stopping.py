"""How a run with a stop rule ends (:class:`sdca_pegasos.experiments.spec.Config`'s ``rel_gap``,
``cpu_budget`` and ``max_epochs``), which of its epochs it records (``rows_per_doubling``),
and the one-solve record of the exact solver.

The studies' configurations run exactly ``epochs`` epochs. A configuration with a stop rule
runs as a user calls it instead: its :class:`StopRule` callback (the driver stops a fit
after an epoch whose callback returns ``True``, :class:`sdca_pegasos.solvers.EpochInfo`) lets the
recorder write the epoch's row, then stops once that row's relative duality gap
(P(w) − D(α))/P(w) is at most ``rel_gap`` or its cumulative timed CPU seconds (setup
included, the ``cpu_time_cum`` the figures read) reach ``cpu_budget``; ``max_epochs`` caps
the rest. So a run's recorded CPU time is at most the budget plus one epoch, and the gap
the rule reads is the recorder's, computed after the clock stopped, never inside it.

A row costs a pass over the training and test splits (~40 ms on the raw crops, issue 32), against a
few ms for a late epoch of SDCA with shrinking. With ``rows_per_doubling`` = R a run records the
epochs of :func:`recorded` (every epoch below 2R, then R per doubling of the epoch count:
consecutive rows at most e/R epochs apart) and its last epoch, whatever ended it; every epoch's
time still counts in ``cpu_time_cum``. The budget and the cap are read every epoch (they need no
row), the relative gap at the recorded epochs: a run stops on it at the first recorded epoch whose
gap is at most ``rel_gap``. Where full recording stopped at epoch e at or beyond 2R, that is (while
the gap stays below ``rel_gap``) at most e/R epochs later; the time to ε that the figures read at
the first row reaching ε is likewise at most e/R epochs late while the run stays below ε (P(w) is
not monotone: it may not; :func:`sdca_pegasos.figures.beyond_lambda.time_to_targets`). Each
recorded row is the row full recording writes at that epoch, bit for bit but for its timings.

The rule reads a row's gap at its epoch, so the recorder computes each recorded row's training
numbers (primal, dual, gap, training error) then, per epoch, as before; its test errors and
output iterate, which no rule reads, are evaluated with the run's other recorded epochs at its
end (:mod:`sdca_pegasos.experiments.metrics`, monitoring in bulk: the same error counts bit for
bit). A rule without ``rel_gap`` (budget or cap only) computes them per epoch too, although it
reads no gap: its rows are then the rows of the same run with a gap rule, bit for bit (a row
evaluated in bulk is within a rounding bound of the per-epoch one, not equal to it).

:class:`sdca_pegasos.solvers.ExactSVMClassifier` has no epochs: :func:`fit_exact` makes its one
certified solve (to ``rel_gap`` within ``cpu_budget`` CPU seconds, its ``tol`` and ``max_cpu``) and
records it as epoch 1, with the solve's CPU seconds as that epoch's time. That time is then its
time to every relative suboptimality its certificate reaches."""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos.solvers import EpochInfo
from sdca_pegasos.solvers.core import objectives

from .metrics import Recorder
from .spec import Config


def recorded(epoch: int, rows_per_doubling: int | None) -> bool:
    """Whether a run with ``rows_per_doubling`` = R records ``epoch`` (None: every epoch).

    Every epoch below 2R, then in [2^j R, 2^(j+1) R) every 2^j-th: R rows per doubling of
    the epoch count, consecutive rows 2^j <= e/R epochs apart. Integer arithmetic only, so
    the schedule is the same on every machine. The run's last epoch is recorded besides
    (:class:`StopRule`).
    """
    if rows_per_doubling is None:
        return True
    step = 1 << max(0, (epoch // rows_per_doubling).bit_length() - 1)
    return epoch % step == 0


class StopRule:
    """Callback: count the epoch, record it if due, then ``True`` (stop) once the rule is met.

    Parameters
    ----------
    recorder : experiments.metrics.Recorder
        Writes the rows; the rule reads them.
    rel_gap : float
        Stop once a row's ``gap <= rel_gap * P`` (P of the solver's own loss; 0: never).
    cpu_budget : float or None
        Stop once ``cpu_time_cum >= cpu_budget`` (None: never); read every epoch.
    max_epochs : int or None
        The estimator's epoch cap: its last epoch is recorded (None: no cap).
    rows_per_doubling : int or None
        Record the epochs of :func:`recorded` and the last one (None: every epoch).

    Attributes
    ----------
    reason : str or None
        ``"rel_gap"`` or ``"cpu_budget"`` once the rule stopped the fit, else None.
    """

    def __init__(
        self,
        recorder: Recorder,
        rel_gap: float,
        cpu_budget: float | None,
        max_epochs: int | None = None,
        rows_per_doubling: int | None = None,
    ):
        self.recorder = recorder
        self.rel_gap = float(rel_gap)
        self.cpu_budget = math.inf if cpu_budget is None else float(cpu_budget)
        self.max_epochs = math.inf if max_epochs is None else max_epochs
        self.rows_per_doubling = rows_per_doubling
        self.reason: str | None = None

    def __call__(self, info) -> bool:
        cpu, wall = self.recorder.tally(info)
        last = self.recorder.cpu_time_cum >= self.cpu_budget or info.epoch >= self.max_epochs
        if not (last or recorded(info.epoch, self.rows_per_doubling)):
            return False
        # the gap is read now: the row's training numbers are computed now (live), the rest
        # with the run's other recorded epochs, in bulk (experiments.metrics)
        row = self.recorder.record(info, cpu, wall, live=True)
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
    if not config.stops_early:
        est.set_params(callback=recorder).fit(X, y)
        return
    max_epochs = est.get_params()["max_epochs"]
    rule = StopRule(
        recorder, config.rel_gap, config.cpu_budget, max_epochs, config.rows_per_doubling
    )
    est.set_params(callback=rule).fit(X, y)
    if recorder.rows[-1]["epoch"] != est.n_iter_:  # the rule saw no sign of the end
        raise RuntimeError(
            f"{config.label}: the fit ended after epoch {est.n_iter_}, before its cap "
            f"({max_epochs}) and without its stop rule, so its last row is epoch "
            f"{recorder.rows[-1]['epoch']}: give the estimator tol=0 (the stop rule's gap "
            "is the stop)"
        )


def fit_exact(est, X, y, recorder: Recorder) -> None:
    """One certified solve of :class:`sdca_pegasos.solvers.ExactSVMClassifier`, recorded as epoch
    1.

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
