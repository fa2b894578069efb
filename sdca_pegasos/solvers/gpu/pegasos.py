r"""Mini-batch Pegasos on the GPU: the iterations of :mod:`sdca_pegasos.solvers.pegasos.estimator`,
each batch's margins and sub-gradient computed by the device in parallel.

Iteration t takes the next batch of the epoch's index array (drawn by the host from
``random_state`` exactly as on the CPU: a permutation cut into batches, or distinct i.i.d.
batches), computes its margins at :math:`\tilde w^{(t-1)}` (one block per row), the
coefficients :math:`\eta_t c_i y_i a^*(z_i)/|A_t|` (:math:`a^* = -\phi'` of
:mod:`sdca_pegasos.solvers.core.losses`: the hinge's 1 below the margin), their combination
:math:`\sum_i \mathrm{coef}_i\tilde x_i` (dense: deterministic chunk sums; CSR: atomics, not
bit-deterministic), then :math:`\tilde w \leftarrow (1 - \eta_t\lambda)\tilde w + \ldots`, the
projection onto :math:`\|\tilde w\| \le 1/\sqrt\lambda` and the running average: the same
update, step sizes, projection and averages as the CPU solver (``average`` True or
``"weighted"``, ``avg_start``), with :math:`\tilde w` kept explicitly (no scaled
representation: every iteration costs O(d) on the device besides its rows). A batch is a
handful of kernel launches, so the GPU pays only for large ``batch_size`` (thousands).
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import cuda

from sdca_pegasos.solvers.core.sampling import batch_order
from sdca_pegasos.solvers.driver.loop import Engine, Times
from sdca_pegasos.solvers.driver.problem import Problem
from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu.data import GRID, DeviceData, RowCombiner, margins, zeros

__all__ = ["GPUPegasosEngine"]


class GPUPegasosEngine(Engine):
    r"""Pegasos' epochs on the device for one binary problem, for
    :func:`sdca_pegasos.solvers.driver.loop.run`.

    Built from plain settings: the ``problem``, its X on the device (``data``), the fit's
    random stream ``rng``, the ``loss``, the mini-batch ``batch_size``, ``average`` (whether
    the output is an average of the iterates) and ``weighted`` (iterate t weighs t in it, and
    the step is :math:`2/(\lambda(t+1))`), ``projection``, the ``sampling`` ("permutation" or
    "iid"), the iterations a warm start made before (``start``) and the first averaged one
    ``t0`` (both counted from the first fit of a warm-started sequence). No dual, no gap: the
    driver runs every epoch. The engine measures its own time
    (:class:`~sdca_pegasos.solvers.driver.loop.Times`: the set-up's wall seconds, as both of
    its clocks; an epoch's device seconds, CUDA events around its batches, and its wall
    seconds)."""

    has_dual = False

    def __init__(
        self,
        problem: Problem,
        data: DeviceData,
        rng: np.random.Generator,
        *,
        loss,
        batch_size: int,
        average: bool,
        weighted: bool,
        projection: bool,
        sampling: str,
        start: int,
        t0: int,
    ):
        self.problem, self.data, self.rng, self.loss = problem, data, rng, loss
        self.batch_size = int(batch_size)
        self.average, self.weighted = bool(average), bool(weighted)
        self.projection, self.sampling = bool(projection), sampling
        self.t, self.t0 = int(start), int(t0)
        self.weight_sum = 0.0  # Σ of the weights of the averaged iterates so far
        self.idx = None  # the next epoch's index array, on the device
        self._w = self._out = None  # the host copies of the last epoch, once asked

    def setup(self) -> Times:
        """The device's arrays and scratch (wall seconds: no device clock runs)."""
        p, k = self.problem, self.batch_size
        n, d = p.n_samples, p.n_features
        t_wall = time.perf_counter()
        self.y = cuda.to_device(p.y)
        self.c = cuda.to_device(np.ones(n) if p.sample_weight is None else p.sample_weight)
        self.w = zeros(d + 1) if p.init is None else cuda.to_device(p.init.w.copy())
        self.avg = zeros(d + 1)
        self.z = cuda.device_array(k, dtype=np.float64)
        self.mag = cuda.device_array(k, dtype=np.float64)
        self.coef = cuda.device_array(k, dtype=np.float64)
        self.norm_part = cuda.device_array((GRID, 2), dtype=np.float64)
        self.combine = RowCombiner(self.data, k)
        wall = time.perf_counter() - t_wall
        self.events = cuda.event(), cuda.event()
        return Times(wall, wall)

    def draw(self, step: int) -> None:
        """The epoch's index array, drawn on the host exactly as on the CPU, and copied to the
        device (untimed)."""
        indices = batch_order(self.rng, self.problem.n_samples, self.sampling, self.batch_size)
        self.idx = cuda.to_device(indices.astype(self.data.all_rows.dtype))

    def step(self, step: int) -> Times:
        """The epoch's ⌈n/k⌉ iterations, timed by CUDA events."""
        p, data, k = self.problem, self.data, self.batch_size
        n, lmbd, bias = p.n_samples, p.lmbd, p.bias
        w, avg, idx = self.w, self.avg, self.idx
        radius2 = 1.0 / lmbd
        t = self.t
        start_ev, stop_ev = self.events
        t_wall = time.perf_counter()
        start_ev.record()
        for b0 in range(0, n, k):
            t += 1
            count = min(k, n - b0)
            eta = 2.0 / (lmbd * (t + 1)) if self.weighted else 1.0 / (lmbd * t)
            margins(data, idx, b0, count, w, bias, self.z, self.mag)
            K.pegasos_coef[GRID, K.TPB](
                self.z, idx, b0, count, self.y, self.c, 1.0, eta / count, self.loss, self.coef
            )
            g, _ = self.combine(idx, b0, count, self.coef, bias)
            K.scale_add[GRID, K.TPB](w, 1.0 - eta * lmbd, g)
            if self.projection:
                K.dots[GRID, K.TPB](w, w, self.norm_part)
                sq = math.fsum(self.norm_part.copy_to_host()[:, 1])
                if sq > radius2:
                    K.rescale[GRID, K.TPB](w, 1.0 / math.sqrt(lmbd * sq))
            if self.average and t >= self.t0:
                rho_t = float(t) if self.weighted else 1.0
                self.weight_sum += rho_t
                K.running_mean[GRID, K.TPB](avg, w, rho_t / self.weight_sum)
        stop_ev.record()
        stop_ev.synchronize()
        times = Times(start_ev.elapsed_time(stop_ev) / 1e3, time.perf_counter() - t_wall)
        self.t = t
        self._w = self._out = None
        return times

    def current(self) -> tuple[np.ndarray, None]:
        """The iterate on the host (copied once an epoch, when first asked)."""
        if self._w is None:
            self._w = self.w.copy_to_host()
        return self._w, None

    def output(self) -> tuple[np.ndarray, None]:
        """The running average once iteration ``t0`` is past (``average``), else the
        iterate: the very arrays :meth:`current` returns."""
        if not (self.average and self.t >= self.t0):
            return self.current()
        if self._out is None:
            self._out = self.avg.copy_to_host()
        return self._out, None

    def iterations(self) -> int:
        return self.t
