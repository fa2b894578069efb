"""Per-epoch metrics of one run, computed after each epoch's clock has stopped.

Every quantity comes from :mod:`solvers.objectives` (one copy of the maths): the primal
objectives and the training error share one pass over X (the margins); for solvers with a
dual the same pass also recomputes w(α) from α (never taken from the solver); the test
error costs a pass over the test set, and the output iterate (running average) is
evaluated only when it differs from the current iterate.
"""

from __future__ import annotations

import math

import numpy as np

from solvers import objectives

from .datasets import Split

#: Report columns written by :class:`Recorder`, in order.
METRIC_COLUMNS = (
    "epoch",
    "samples_seen",
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


def _error(z: np.ndarray, y: np.ndarray) -> float:
    """Error of the rule ``+1 if score > 0 else -1`` from margins z = y·score."""
    return float(np.mean((z < 0.0) | ((z == 0.0) & (y > 0.0))))


class Recorder:
    """Callback that turns each :class:`solvers.EpochInfo` into one report row.

    Parameters
    ----------
    split : Split
    lmbd : float
    gamma : float
        Smoothing of the loss the solver optimises (0: hinge). ``primal_smooth``, ``dual``
        and ``gap`` refer to that problem; ``primal`` is always the hinge objective.
    bias : float
        Bias multiplier of the solver.
    has_dual : bool
    """

    def __init__(self, split: Split, lmbd: float, gamma: float, bias: float, has_dual: bool):
        self.split = split
        self.lmbd = lmbd
        self.gamma = gamma
        self.bias = bias
        self.has_dual = has_dual
        self.rows: list[dict] = []
        self._cpu = 0.0
        self._wall = 0.0

    # --------------------------------------------------------------------------- helpers
    def _primal_side(self, w: np.ndarray, X: np.ndarray, y: np.ndarray, z=None) -> tuple:
        if z is None:
            z = objectives.margins(X, y, w, self.bias)
        reg = 0.5 * self.lmbd * float(np.dot(w, w))
        primal = reg + float(objectives.loss_values(z, 0.0).mean())
        smooth = (
            reg + float(objectives.loss_values(z, self.gamma).mean()) if self.gamma else math.nan
        )
        return primal, smooth, _error(z, y)

    def _test_error(self, w: np.ndarray) -> float:
        s = self.split
        if s.X_test is None:
            return math.nan
        return objectives.error_rate(s.X_test, s.y_test, w, self.bias)

    def _row(self, epoch, samples, cpu, wall, w, dual_coef, w_out) -> dict:
        s = self.split
        z = None
        dual = gap = math.nan
        if self.has_dual:  # margins and w(α) in one pass over X
            z, dual = objectives.margins_and_dual(
                s.X_train, s.y_train, w, dual_coef, self.lmbd, self.gamma, self.bias
            )
        primal, smooth, train_error = self._primal_side(w, s.X_train, s.y_train, z)
        if self.has_dual:
            gap = (smooth if self.gamma else primal) - dual
        test_error = self._test_error(w)
        if w_out is w or np.array_equal(w_out, w):
            out = (primal, train_error, test_error)
        else:
            p_out, _, e_out = self._primal_side(w_out, s.X_train, s.y_train)
            out = (p_out, e_out, self._test_error(w_out))
        self._cpu += cpu
        self._wall += wall
        return dict(
            zip(
                METRIC_COLUMNS,
                (
                    epoch,
                    samples,
                    cpu,
                    wall,
                    self._cpu,
                    self._wall,
                    primal,
                    smooth,
                    dual,
                    gap,
                    train_error,
                    test_error,
                    *out,
                ),
                strict=True,
            )
        )

    # --------------------------------------------------------------------------- API
    def initial(self, n_features: int) -> None:
        """Epoch 0: the initial state w = 0, α = 0 of every solver here."""
        w = np.zeros(n_features + 1)
        alpha = np.zeros(self.split.n_train)
        self.rows.append(self._row(0, 0, 0.0, 0.0, w, alpha, w))

    def __call__(self, info) -> None:
        if info.epoch == 1:  # the per-fit precomputation counts once, in epoch 1
            cpu, wall = info.cpu_time + info.setup_time, info.wall_time + info.setup_time
        else:
            cpu, wall = info.cpu_time, info.wall_time
        self.rows.append(
            self._row(
                info.epoch, info.n_samples_seen, cpu, wall, info.w, info.dual_coef, info.output_w()
            )
        )
