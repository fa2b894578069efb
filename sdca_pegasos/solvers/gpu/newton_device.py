r"""The primal Newton method of :mod:`sdca_pegasos.solvers.gpu.newton` on the device:
:class:`GPUNewtonEngine`, for ``NewtonSVMClassifier(device="cuda")``.

A step, on dense X only:

1. one pass over X (:func:`sdca_pegasos.solvers.gpu._kernels.newton_pass_dense`): every block
   takes a chunk of rows, a tile at a time, and adds the rows' gradient terms and the upper
   triangle of their outer products :math:`c_i\phi''(z_i)\tilde x_i\tilde x_i^\top` into its own
   row of two global partial-sum arrays (K × (d + 1) and K × (d + 1)², float64, whatever X's
   dtype); :func:`~sdca_pegasos.solvers.gpu._kernels.sum_rows` adds the K rows in a fixed order
   (deterministic: the same bits for the same data on the same device);
2. g and H to the host, :math:`s = -H^{-1}g` by Cholesky (NumPy/SciPy);
3. one pass for :math:`\tilde x_i^\top s` (:func:`~sdca_pegasos.solvers.gpu.data.margins`) and
   the exact line search, whose evaluations are passes over n-vectors
   (:func:`~sdca_pegasos.solvers.gpu._kernels.newton_slope`);
4. :math:`\tilde w \leftarrow \tilde w + ts` on the host (w is d + 1 numbers: the host's copy
   is the iterate, sent to the device at each pass).

The step's time is the CUDA events' around all of it (the host's Cholesky and the line
search's round trips included). The certificate of the iterate, after the step's clock: a
pass for its margins and their magnitudes, the implied dual
(:func:`~sdca_pegasos.solvers.gpu._kernels.implied_dual`), then
:meth:`~sdca_pegasos.solvers.gpu.certificate.Certifier.pair` (a pass for
:math:`\tilde w(\alpha)`, the per-sample terms).

The partial sums are K × (d + 1)² float64: K is at most :data:`MAX_CHUNKS`, at least one tile of
rows per block, and at most :data:`MAX_PART_BYTES` in all (at d = 100, K = 4,224 blocks hold
345 MB; at d = 1000, 64 blocks: the pass then uses a fraction of a GPU, a known cost).
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import cuda

from sdca_pegasos.solvers.driver.loop import Bounds, Engine, Times
from sdca_pegasos.solvers.driver.problem import Problem
from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu.certificate import Certifier
from sdca_pegasos.solvers.gpu.data import GRID, DeviceData, margins
from sdca_pegasos.solvers.gpu.newton_steps import (
    assemble,
    engine_attributes,
    line_search,
    newton_direction,
)

__all__ = ["MAX_CHUNKS", "MAX_PART_BYTES", "GPUNewtonEngine", "n_chunks"]

#: Blocks of the gradient-and-Hessian pass: at most this many (32 resident blocks on each of
#: the 132 SMs of an H100/H200; 2 in the simulator) ...
MAX_CHUNKS = 2 if K.SIMULATED else 132 * 32
#: ... each with at least this many rows ...
MIN_ROWS_PER_CHUNK = 1 if K.SIMULATED else 4 * K.NEWTON_TILE
#: ... and their partial Hessians at most this many bytes together.
MAX_PART_BYTES = 512 << 20


def n_chunks(n_samples: int, n_features: int) -> int:
    """K, the row chunks (blocks) of the gradient-and-Hessian pass."""
    m = n_features + 1
    return max(1, min(MAX_CHUNKS, n_samples // MIN_ROWS_PER_CHUNK, MAX_PART_BYTES // (8 * m * m)))


class GPUNewtonEngine(Engine):
    r"""Newton steps on the device for one binary problem (dense X), for
    :func:`sdca_pegasos.solvers.driver.loop.run`.

    Its pair is :math:`(\tilde w, \alpha(\tilde w))`, the iterate and its implied dual;
    :meth:`certify` bounds :math:`P(\tilde w)` and :math:`D(\alpha)` on the device, rounding
    included. ``check=False`` (a callback's ``info.bounds()``) certifies the given pair in
    scratch arrays and changes nothing."""

    def __init__(self, problem: Problem, data: DeviceData, *, loss):
        if data.sparse:
            raise TypeError("GPUNewtonEngine takes dense X only (CSR: GPUSDCAEngine)")
        if not loss.smooth:
            raise ValueError("GPUNewtonEngine needs a smooth loss (the hinge: GPUSDCAEngine)")
        self.problem, self.data, self.loss = problem, data, loss
        self.w = np.zeros(problem.n_features + 1)
        self.chunks = n_chunks(problem.n_samples, problem.n_features)
        self.steps: list[float] = []
        self.evals: list[int] = []
        self._pair = self._last = None
        self._scratch = None

    def setup(self) -> Times:
        """The device's arrays and the certificate's scratch (wall seconds as both clocks)."""
        p = self.problem
        n, m, chunks = p.n_samples, p.n_features + 1, self.chunks
        t_wall = time.perf_counter()
        self.y = cuda.to_device(p.y)
        self.c = cuda.to_device(np.ones(n) if p.sample_weight is None else p.sample_weight)
        self.w_dev = cuda.device_array(m, dtype=np.float64)
        self.s_dev = cuda.device_array(m, dtype=np.float64)
        self.part_g = cuda.device_array((chunks, m), dtype=np.float64)
        self.part_h = cuda.device_array((chunks, m * m), dtype=np.float64)
        self.g_dev = cuda.device_array(m, dtype=np.float64)
        self.h_dev = cuda.device_array(m * m, dtype=np.float64)
        self.z = cuda.device_array(n, dtype=np.float64)
        self.dz = cuda.device_array(n, dtype=np.float64)
        self.dz_mag = cuda.device_array(n, dtype=np.float64)
        self.a = cuda.device_array(n, dtype=np.float64)
        self.slope_part = cuda.device_array((GRID, 2), dtype=np.float64)
        self.certifier = Certifier(self.data, self.y, self.c, p.lmbd, p.bias, self.loss)
        cuda.synchronize()
        wall = time.perf_counter() - t_wall
        self.events = cuda.event(), cuda.event()
        return Times(wall, wall)

    # ---------------------------------------------------------------- the passes
    def gradient_hessian(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(g, H) at ``w`` (host float64), from one pass over X; the pass's margins stay in
        ``self.z``."""
        p, data, m = self.problem, self.data, self.problem.n_features + 1
        self.w_dev.copy_to_device(w)
        K.newton_pass_dense[self.chunks, K.TPB](
            data.rows[0], self.y, self.c, self.w_dev, p.bias, self.loss, self.z,
            self.part_g, self.part_h,
        )  # fmt: skip
        K.sum_rows[m, K.TPB](self.part_g, self.g_dev)
        K.sum_rows[m * m, K.TPB](self.part_h, self.h_dev)
        return assemble(
            self.g_dev.copy_to_host(), self.h_dev.copy_to_host(), w, p.lmbd, p.n_samples
        )

    def _slope(self, t: float) -> tuple[float, float]:
        K.newton_slope[GRID, K.TPB](self.z, self.dz, self.y, self.c, t, self.loss, self.slope_part)
        part = self.slope_part.copy_to_host()
        return math.fsum(part[:, 0]), math.fsum(part[:, 1])

    def step(self, step: int) -> Times:
        """One Newton step (module docstring), timed by CUDA events."""
        p, data, w = self.problem, self.data, self.w
        start_ev, stop_ev = self.events
        t_wall = time.perf_counter()
        start_ev.record()
        g, H = self.gradient_hessian(w)
        s = newton_direction(g, H)
        self.s_dev.copy_to_device(s)
        margins(data, data.all_rows, 0, p.n_samples, self.s_dev, p.bias, self.dz, self.dz_mag)
        t, evals = line_search(
            self._slope,
            math.fsum(g * s),
            math.fsum(w * s),
            math.fsum(s * s),
            p.lmbd,
            p.n_samples,
        )
        w += t * s
        stop_ev.record()
        stop_ev.synchronize()
        times = Times(start_ev.elapsed_time(stop_ev) / 1e3, time.perf_counter() - t_wall)
        self.steps.append(t)
        self.evals.append(evals)
        self._pair = self._last = None
        return times

    # ---------------------------------------------------------------- the pair
    def _implied(self, w: np.ndarray, w_dev, z, mag, a) -> None:
        """Margins of ``w`` (with their magnitudes) and its implied dual, on the device."""
        p, data = self.problem, self.data
        w_dev.copy_to_device(w)
        margins(data, data.all_rows, 0, p.n_samples, w_dev, p.bias, z, mag)
        K.implied_dual[GRID, K.TPB](z, self.y, self.c, self.loss, a)

    def current(self) -> tuple[np.ndarray, np.ndarray]:
        r"""(w, α(w)): the iterate and its implied dual, signed (computed on the device once
        a step, when first asked)."""
        if self._pair is None:
            cert = self.certifier
            self._implied(self.w, self.w_dev, cert.z, cert.mag, self.a)
            K.signed_coef[GRID, K.TPB](self.a, self.y, 1.0, self.dz)  # y·a, exactly
            self._pair = (self.w.copy(), self.dz.copy_to_host())
        return self._pair

    def certify(self, w: np.ndarray, dual_coef: np.ndarray, check: bool = True) -> Bounds:
        r"""Bounds of :math:`P(w)` and :math:`D(\alpha)`, ``dual_coef`` = α, on the device.
        ``check=True``: the fit's check of :meth:`current`'s pair (its device state reused);
        ``check=False``: any pair, in scratch arrays."""
        if check:
            w_cur, _ = self.current()
            result = self.certifier.pair(w_cur, self.a, self.certifier.z, self.certifier.mag)
            self._last = result
        else:
            z, mag, a, w_dev = self._scratch_arrays()
            w = np.ascontiguousarray(w, dtype=np.float64)
            self._implied(w, w_dev, z, mag, a)  # margins of w (its implied dual discarded)
            a.copy_to_device(self.problem.y * np.asarray(dual_coef, dtype=np.float64))
            result = self.certifier.pair(w, a, z, mag)
        return Bounds(result["primal"], result["dual"], result["gap"])

    def certify_point(self, w: np.ndarray) -> dict:
        r"""The certificate of any primal point through its implied dual (e.g. another
        solver's answer): ``primal``, ``dual``, ``gap``, ``rel_gap``; nothing of the fit
        changes."""
        z, mag, a, w_dev = self._scratch_arrays()
        w = np.ascontiguousarray(w, dtype=np.float64)
        self._implied(w, w_dev, z, mag, a)
        return self.certifier.pair(w, a, z, mag)

    def _scratch_arrays(self):
        if self._scratch is None:
            n, m = self.problem.n_samples, self.problem.n_features + 1
            z, mag, a = (cuda.device_array(n, dtype=np.float64) for _ in range(3))
            self._scratch = (z, mag, a, cuda.device_array(m, dtype=np.float64))
        return self._scratch

    def attributes(self, w_out: np.ndarray) -> dict:
        """:func:`sdca_pegasos.solvers.gpu.newton_steps.engine_attributes`."""
        if self._last is None:
            self.certify(*self.current())
        return engine_attributes(self._last, self.steps, self.evals)
