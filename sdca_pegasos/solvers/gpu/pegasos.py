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

from sdca_pegasos.solvers.core.sampling import batch_order, resolve_sampling
from sdca_pegasos.solvers.driver.problem import BinaryFit, Problem
from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu.data import (
    GRID,
    DeviceData,
    RowCombiner,
    epoch_callback,
    margins,
    zeros,
)


def fit(est, problem: Problem, data: DeviceData, weighted: bool) -> BinaryFit:
    """Solve one binary problem of ``est`` (a PegasosClassifier with ``device="cuda"``);
    ``weighted``: whether its average weighs iterate t by t (``average="weighted"``)."""
    n, d = problem.n_samples, problem.n_features
    lmbd, bias = problem.lmbd, problem.bias
    k = int(est.batch_size)
    mode = est._mode()
    start_t, t0 = est._iteration_counts(problem)
    rng = np.random.default_rng(est.random_state)

    t_wall = time.perf_counter()
    y = cuda.to_device(problem.y)
    weights = problem.sample_weight
    c = cuda.to_device(np.ones(n) if weights is None else weights)
    w = zeros(d + 1) if problem.init is None else cuda.to_device(problem.init.w.copy())
    avg = zeros(d + 1)
    z = cuda.device_array(k, dtype=np.float64)
    mag = cuda.device_array(k, dtype=np.float64)
    coef = cuda.device_array(k, dtype=np.float64)
    norm_part = cuda.device_array((GRID, 2), dtype=np.float64)
    combine = RowCombiner(data, k)
    loss = est.loss_function
    radius2 = 1.0 / lmbd
    setup_wall = time.perf_counter() - t_wall

    start_ev, stop_ev = cuda.event(), cuda.event()
    gpu_times: list[float] = []
    wall_times: list[float] = []
    t = start_t
    weight_sum = 0.0  # Σ of the weights of the averaged iterates so far
    for epoch in range(1, problem.epochs + 1):
        indices = batch_order(rng, n, resolve_sampling("PegasosClassifier", est.sampling), k)
        idx = cuda.to_device(indices.astype(data.all_rows.dtype))
        t_wall = time.perf_counter()
        start_ev.record()
        for b0 in range(0, n, k):
            t += 1
            count = min(k, n - b0)
            eta = 2.0 / (lmbd * (t + 1)) if weighted else 1.0 / (lmbd * t)
            margins(data, idx, b0, count, w, bias, z, mag)
            K.pegasos_coef[GRID, K.TPB](z, idx, b0, count, y, c, 1.0, eta / count, loss, coef)
            g, _ = combine(idx, b0, count, coef, bias)
            K.scale_add[GRID, K.TPB](w, 1.0 - eta * lmbd, g)
            if est.projection:
                K.dots[GRID, K.TPB](w, w, norm_part)
                sq = math.fsum(norm_part.copy_to_host()[:, 1])
                if sq > radius2:
                    K.rescale[GRID, K.TPB](w, 1.0 / math.sqrt(lmbd * sq))
            if mode and t >= t0:
                rho_t = float(t) if weighted else 1.0
                weight_sum += rho_t
                K.running_mean[GRID, K.TPB](avg, w, rho_t / weight_sum)
        stop_ev.record()
        stop_ev.synchronize()
        gpu_times.append(start_ev.elapsed_time(stop_ev) / 1e3)
        wall_times.append(time.perf_counter() - t_wall)
        if est.callback is not None:
            w_host = w.copy_to_host()

            def output(w_host=w_host, averaged=bool(mode and t >= t0)):
                return avg.copy_to_host() if averaged else w_host

            times = (gpu_times[-1], wall_times[-1], setup_wall)
            if epoch_callback(est, problem, epoch, times, w_host, output):
                break

    w_out = avg.copy_to_host() if mode and t >= t0 else w.copy_to_host()
    if not np.all(np.isfinite(w_out)):
        raise ValueError(
            f"{type(est).__name__}(device='cuda') diverged to non-finite coefficients: scale "
            "the features (e.g. StandardScaler) or increase lmbd; no model was stored."
        )
    return BinaryFit.of_epochs(
        gpu_times,
        wall_times,
        w=w_out,
        dual_coef=None,
        setup_time=setup_wall,
        setup_wall_time=setup_wall,
        converged=False,
        duality_gap=np.nan,
        iterations=t,
    )
