"""Per-epoch metrics of one run, computed after each epoch's clock has stopped.

Every quantity comes from :class:`sdca_pegasos.solvers.core.monitoring.EpochMetrics` (the maths of
:mod:`sdca_pegasos.solvers.core.objectives`, bit for bit): the hinge and smoothed primal
objectives, the training error and, for solvers with a dual, w(α) recomputed from α (never taken
from the solver) and the dual, from ONE pass over the training split that also evaluates the output
iterate (running average) when it differs from the current one; the test errors of both iterates
from one pass over the test split."""

from __future__ import annotations

import math

import numpy as np

from sdca_pegasos import data
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.monitoring import EpochMetrics

#: Report columns written by :class:`Recorder`, in order.
METRIC_COLUMNS = (
    "epoch",
    "samples_seen",
    "n_active",
    "cpu_time",
    "wall_time",
    "cpu_time_cum",
    "wall_time_cum",
    "primal",
    "primal_smooth",
    "dual",
    "gap",
    "train_error",
    "test_error",
    "primal_output",
    "train_error_output",
    "test_error_output",
)


class Recorder:
    """Callback that turns each :class:`sdca_pegasos.solvers.EpochInfo` into one report row.

    Called, it records every epoch. A run to convergence records fewer
    (:class:`sdca_pegasos.experiments.stopping.StopRule`): :meth:`tally` counts every epoch's time
    into the cumulative columns, :meth:`record` writes the row of an epoch it keeps.

    Parameters
    ----------
    dataset : data.Dataset
        Its labels are converted to float64 once, here: the objectives take float64 labels
        and would otherwise convert the int64 ones at every epoch.
    lmbd : float
    loss : solvers.losses.Loss
        The loss the solver optimises (``est.loss_function``). ``primal_smooth`` (its
        objective, NaN for the hinge), ``dual`` and ``gap`` refer to that problem;
        ``primal`` is always the hinge objective.
    bias : float
        Bias multiplier of the solver.
    has_dual : bool
    """

    def __init__(
        self, dataset: data.Dataset, lmbd: float, loss: Loss, bias: float, has_dual: bool
    ):
        y_test = None if dataset.y_test is None else dataset.y_test.astype(np.float64)
        self.metrics = EpochMetrics(
            dataset.X_train,
            dataset.y_train.astype(np.float64),
            lmbd,
            loss,
            bias,
            X_test=dataset.X_test,
            y_test=y_test,
        )
        self.has_dual = has_dual
        self.rows: list[dict] = []
        self._cpu = 0.0
        self._wall = 0.0

    # --------------------------------------------------------------------------- helpers
    def _row(self, epoch, samples, n_active, cpu, wall, w, dual_coef, w_out) -> dict:
        """The row of an epoch whose times are already counted (:meth:`tally`)."""
        m = self.metrics(w, dual_coef if self.has_dual else None, w_out)
        values = (
            epoch,
            samples,
            math.nan if n_active is None else float(n_active),
            cpu,
            wall,
            self._cpu,
            self._wall,
            m["primal"],
            m["primal_smooth"],
            m["dual"],
            m["gap"],
            m["error"],
            m["test_error"],
            m["primal_output"],
            m["error_output"],
            m["test_error_output"],
        )
        return dict(zip(METRIC_COLUMNS, values, strict=True))

    # --------------------------------------------------------------------------- API
    @property
    def cpu_time_cum(self) -> float:
        """Timed CPU seconds of every epoch counted so far, setup included."""
        return self._cpu

    def initial(self, n_features: int) -> None:
        """Epoch 0: the initial state w = 0, α = 0 of every solver here."""
        w = np.zeros(n_features + 1)
        alpha = np.zeros(self.metrics.n_samples)
        self.rows.append(self._row(0, 0, None, 0.0, 0.0, w, alpha, w))

    def tally(self, info) -> tuple[float, float]:
        """Count the epoch's timed CPU and wall seconds into the cumulative ones (every
        epoch, recorded or not: ``cpu_time_cum`` sums all of them) and return them; the
        per-fit precomputation counts once, in epoch 1."""
        if info.epoch == 1:
            cpu, wall = info.cpu_time + info.setup_time, info.wall_time + info.setup_wall_time
        else:
            cpu, wall = info.cpu_time, info.wall_time
        self._cpu += cpu
        self._wall += wall
        return cpu, wall

    def record(self, info, cpu: float, wall: float) -> dict:
        """Append (and return) the row of the epoch ``info``, counted by :meth:`tally`,
        whose own times were ``cpu`` and ``wall``: its metrics, one pass over each split."""
        row = self._row(
            info.epoch,
            info.n_samples_seen,
            info.n_active,
            cpu,
            wall,
            info.w,
            info.dual_coef,
            info.output_w(),
        )
        self.rows.append(row)
        return row

    def __call__(self, info) -> None:
        """Every epoch's row (the fixed-epoch configurations' callback)."""
        self.record(info, *self.tally(info))
