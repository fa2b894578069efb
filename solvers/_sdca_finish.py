r"""The exact finish of SDCA with shrinking (``SDCAClassifier(shrinking=True, finish=True)``).

Late in a fit with shrinking, a shrunk phase sweeps a few dozen samples for hundreds of
epochs: near-duplicate samples whose coupled coordinates coordinate ascent moves one at a
time. Once such a phase has solved its active problem (its projected-gradient range fell
below the phase's ε) and the free set F (0 < a_i < c_i U) is small, the exact engine's
projected Newton steps (:func:`solvers._exact_cd.newton_stage`, in its primal
representation: one solve of size min(|F|, d + 1) and two passes over X per step) move F
together to the optimum of the current partition, and the next full SDCA pass checks the
partition. The first finish waits for a full pass whose projected-gradient spread is at
most 0.1; one that does not cut the largest projected gradient tenfold (the partition still
far from right) makes the next wait for a spread ten times smaller.

The finish is part of the timed update (it is the solver's work), runs on one BLAS thread
(its factorisations then give the same bits in every process) and leaves α, w̃(α) rebuilt
from scratch, and the projected-gradient range over all samples, the statistic the driver's
stopping test reads, in the SDCA state.
"""

from __future__ import annotations

import numpy as np

from . import objectives
from ._exact_cd import newton_stage, projected_gradient
from ._exact_qp import Primal, make_qp
from .exact import blas_single_thread

#: A finish is tried when the free set has at most this many samples or the problem at
#: most this many features (+ 1): Newton's solve is of size min(|F|, d + 1).
MAX_SOLVE = 512
#: The full pass's projected-gradient spread below which the first finish is tried (the
#: engine's first CD stage ends at the same 0.1); after a finish that did not cut the KKT
#: residual tenfold, the next waits for a spread RETRY times that of the failed one (chosen
#: on a 5000 × 40 draw at λ = 1/n: 0.1 / 0.1 took 1e-9 in 73 epochs, 0.1 / 0.01 in 94,
#: 1 / 0.1 in 62 but slower in CPU; none: 187).
FIRST_SPREAD = 0.1
RETRY = 0.1


class NewtonFinish:
    """The engine's primal representation of one binary problem, built at the first
    finish of a fit (one pass over X), and the finish itself (:meth:`__call__`)."""

    def __init__(self, problem, loss):
        self.problem, self.loss = problem, loss
        self.rep = None
        self.live = None  # samples of positive weight (the QP's), None: all
        self.spread = FIRST_SPREAD  # the full-pass spread below which a finish is tried
        self.steps = 0  # Newton steps taken in this fit

    def _build(self) -> None:
        p = self.problem
        weights = objectives.as_sample_weight(p.sample_weight, p.n_samples)
        if weights is not None and np.all(weights == 1.0):
            weights = None
        if weights is not None and not weights.all():
            self.live = np.flatnonzero(weights > 0.0)
        self.rep = Primal(make_qp(p.X, p.y, p.lmbd, self.loss, p.bias, weights))

    def due(self, sweep, spread: float) -> bool:
        """Whether a finish is worth trying now: the last full pass's projected-gradient
        spread at most :attr:`spread` (the partition nearly found), and Newton's solve small."""
        if spread > self.spread:
            return False
        if self.problem.n_features + 1 <= MAX_SOLVE:
            return True
        y, upper = self.problem.y, self.loss.upper
        a = y * sweep.dual_coef
        return int(np.count_nonzero((a > 0.0) & (a < upper))) <= MAX_SOLVE

    def __call__(self, sweep, spread: float) -> int:
        """Newton steps from the sweep's α, in place; returns the passes over X made."""
        if self.rep is None:
            self._build()
        rep, y = self.rep, self.problem.y
        a_full = y * sweep.dual_coef
        a = a_full if self.live is None else a_full[self.live]
        a = np.clip(a, 0.0, rep.upper)
        with blas_single_thread():
            rep.refresh(a)
            steps, cut = newton_stage(rep, a, lambda: True)
        self.steps += steps
        if not cut:  # the partition still far from right: wait for a smaller spread
            self.spread = min(self.spread, spread) * RETRY
        if self.live is None:
            a_full = a
        else:
            a_full[:] = 0.0
            a_full[self.live] = a
        sweep.dual_coef[:] = y * a_full
        sweep.w[:] = rep.w  # w̃(a) from scratch: rep.refresh after the last step
        pg = projected_gradient(rep.gradient(a), a, rep.upper)
        sweep.pg_range[0], sweep.pg_range[1] = pg.max(), pg.min()
        return 2 * steps + 3  # refresh and gradient per step; the first refresh, two gradients
