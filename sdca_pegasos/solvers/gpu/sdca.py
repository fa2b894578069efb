r"""SDCA on the GPU: block-local SDCA rounds combined by an exact line search.

One *round* (an epoch: every sample visited once) runs K thread blocks at once. The samples
are a permutation drawn once (host, ``random_state``) cut into K chunks; block k sweeps its
chunk sequentially from an offset drawn each epoch (``sampling="permutation"``; 0 for
``"cyclic"``), taking the exact SDCA coordinate step of its *local subproblem* (CoCoA+,
Ma et al. 2015; Smith et al. 2018): margins at :math:`w + \sigma' v_k`, curvature
:math:`\sigma'\|\tilde x_i\|^2/(\lambda n) + \kappa/c_i`, where :math:`v_k` gathers the
block's own changes :math:`\Delta a_i y_i\tilde x_i/(\lambda n)` of the round.

- **Shared buffer** (CSR X, and dense X by default): the blocks share one v through atomics
  (asynchronous SDCA, TPA-SCD / PASSCoDe style: a sample sees every update made before it,
  from any block), so margins are at :math:`w + v` and σ' only damps the curvature (the β
  of mini-batch SDCA); σ' starts at 1. On CSR rows, which share few columns, the delay
  costs little (on the GPU records the rounds track CPU SDCA's epochs to four digits). The
  order of the atomic additions is the hardware's, so such a fit is **not
  bit-deterministic** on a GPU (its certificate is exact all the same; the simulator runs
  blocks one after another and is deterministic).
- **Private buffers** (dense X when ``DENSE_PRIVATE``; off by default, its comment has the
  measurements): every block has its own :math:`v_k` (K × (d+1) float64), margins at
  :math:`w + \sigma' v_k`, no atomics: the fit is bit-deterministic for a seed. σ' starts
  at K, CoCoA+'s safe value for *adding* the blocks' updates.

**Known limit (issue 33 stays open for it):** on dense data with many rows per feature and
a small λ, the rounds progress slowly at GPU scale: every row's update adds to the same d
+ 1 addresses, so the shared buffer's atomics make a round ~30–60 reads of X long, and the
private buffers need σ' in the thousands (the blocks' updates point the same way). Dense
GPU fits are certified like any other, but slow (``DENSE_PRIVATE``'s comment, and
docs/measurements.md).

After the round, the proposed :math:`\Delta a` and :math:`\Delta w` (:math:`\sum_k v_k`, or
the shared v) are combined as :math:`a + t\Delta a`, :math:`w + t\Delta w` with the step
:math:`t \in [0, 1]` that maximises the dual exactly: :math:`D` is a concave quadratic in
:math:`t`,

.. math::

    \frac{dD}{dt} = \frac1n\sum_i\Big(\delta_i - \frac{\kappa}{c_i}a_i\delta_i\Big)
        - \lambda\,w^\top\Delta w
        - t\Big(\frac1n\sum_i\frac{\kappa}{c_i}\delta_i^2 + \lambda\|\Delta w\|^2\Big),

and :math:`a + t\Delta a` stays in the box for :math:`t \in [0, 1]`. So the dual never decreases,
whatever σ' (a round that would overshoot is shortened; one that proposes no ascent is not taken),
and σ' is adapted from the step (:func:`adapt_sigma`): divided by t (by at most 4) when :math:`t <
1/2`, halved when :math:`t = 1`, kept in [1, K]. The duality gap is computed on the device
(:mod:`sdca_pegasos.solvers.gpu.certificate`) after epochs 1–10, then after each epoch divisible by
⌊epoch/10⌋, and for the returned pair; each check rebuilds :math:`w = \tilde w(\alpha)` from α, so
the drift of the running w never reaches the certificate.

Not on the GPU (a clear error): ``sampling="iid"``, ``sgd_init``, ``average``,
``shrinking``.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import cuda

from sdca_pegasos.solvers.driver.problem import BinaryFit, Problem, warn_unconverged
from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu.certificate import Certifier
from sdca_pegasos.solvers.gpu.data import GRID, DeviceData, epoch_callback, row_sq_norms, zeros

#: Blocks of a round: at most this many (32 resident 32-thread blocks on each of 132 SMs of an
#: H100/H200), and at least this many rows per block.
MAX_BLOCKS = 4 if K.SIMULATED else 132 * 32
MIN_ROWS_PER_BLOCK = 8
#: Whether dense rounds give each block its own buffer (CoCoA+; bit-deterministic) instead of
#: sharing one through atomics as CSR rounds do. Measured on an H100 (benchmarks/records/
#: gpu_h100_3bbbce3.json), dense 10,000,000 × 100, 25 s per run: shared (margins at w + v, σ' a
#: curvature damping, settled at 4) reached relative gaps 0.52 (λ = 1/n) and 0.053 (1e-6);
#: private (σ' ≈ 1,100) 576 and 76, and 194 and 44 with K ≤ 528. (The H200 records of
#: 2026-11-26 measured an earlier shared scheme that took margins at w + σ'v and stalled.)
#: The shipped kernel (gpu_h100_e6cd9ae.json): shared 0.63 and 0.066, private 1.3e3 and 66.
#: Shared it is; a dense fit on a GPU is then not bit-deterministic (certified all the same).
DENSE_PRIVATE = False
#: Largest K × (d + 1) float64 of private block buffers (dense); beyond it blocks share one.
MAX_PRIVATE_BYTES = 1 << 30


def n_blocks(n_samples: int) -> int:
    """K: as many blocks as fill the GPU, each with at least MIN_ROWS_PER_BLOCK rows."""
    return max(1, min(MAX_BLOCKS, n_samples // MIN_ROWS_PER_BLOCK))


def line_search_step(stats: np.ndarray, w_dw: float, dw_dw: float, lmbd: float, n: int):
    """The step t in [0, 1] maximising D(a + tΔa) (module docstring), from the blocks' sums
    ``stats`` (K × 3) and w·Δw, ‖Δw‖²; 0 when the round proposes no ascent."""
    s1 = math.fsum(stats[:, 0])
    s2 = math.fsum(stats[:, 1])
    s3 = math.fsum(stats[:, 2])
    slope = (s1 - s2) / n - lmbd * w_dw
    curvature = s3 / n + lmbd * dw_dw
    if not slope > 0.0:
        return 0.0
    if not curvature > 0.0:
        return 1.0
    return min(1.0, slope / curvature)


def adapt_sigma(sigma: float, step: float, blocks: int) -> float:
    """σ' for the next round from this round's step t: divided by t (by at most 4) when
    t < 1/2 (the blocks overshoot by about 1/t), halved when t = 1, kept in [1, K].

    K (the number of blocks) is CoCoA+'s safe value for adding the blocks' updates, so σ'
    never needs to exceed it; without the cap a run of rounds that propose no ascent (t = 0:
    with σ' large the proposals are tiny and lost in rounding) grew σ' by 4 each round, past
    1e143 on the H200 record, and the fit stalled for good."""
    if step < 0.5:
        sigma /= max(step, 0.25)
    elif step >= 1.0:
        sigma *= 0.5
    return min(float(blocks), max(1.0, sigma))


def _target(est, tol: float, result: dict) -> float:
    """The gap aimed at: ``tol``, or ``tol·|P|`` for a relative tolerance (as the CPU driver,
    :func:`sdca_pegasos.solvers.lambda_path`)."""
    return tol * abs(result["primal"]) if est._relative_tol else tol


def fit(est, problem: Problem, data: DeviceData) -> BinaryFit:
    """Solve one binary problem of ``est`` (an SDCAClassifier with ``device="cuda"``)."""
    n, d = problem.n_samples, problem.n_features
    loss = est.loss_function
    lmbd, bias = problem.lmbd, problem.bias
    tol = est.tol or 0.0
    rng = np.random.default_rng(est.random_state)
    cyclic = est._sampling() == "cyclic"

    t_wall = time.perf_counter()
    y = cuda.to_device(problem.y)
    weights = problem.sample_weight
    c = cuda.to_device(np.ones(n) if weights is None else weights)
    q = row_sq_norms(data, bias, 1.0 / (lmbd * n))
    box = loss.box(weights, n)
    a_host = np.zeros(n)
    if problem.init is not None:  # warm start: the last α, in the new box
        a_host = np.clip(problem.y * problem.init.dual_coef, 0.0, box)
    a = cuda.to_device(a_host)
    a_new = cuda.device_array(n, dtype=np.float64)
    certify = Certifier(data, y, c, lmbd, bias, loss)
    w = zeros(d + 1)
    if problem.init is not None:
        w.copy_to_device(certify.weights_of(a)[0])

    blocks = n_blocks(n)
    private = DENSE_PRIVATE and not data.sparse and blocks * (d + 1) * 8 <= MAX_PRIVATE_BYTES
    buf = zeros((blocks if private else 1, d + 1))
    dw = buf[0] if not private else cuda.device_array(d + 1, dtype=np.float64)
    order_host = rng.permutation(n).astype(data.all_rows.dtype)
    order = cuda.to_device(order_host)
    starts_host = (np.arange(blocks + 1, dtype=np.int64) * n) // blocks
    starts = cuda.to_device(starts_host)
    lengths = np.diff(starts_host)
    rot = cuda.to_device(np.zeros(blocks, dtype=np.int64))
    stats = cuda.device_array((blocks, 3), dtype=np.float64)
    dot_part = cuda.device_array((GRID, 2), dtype=np.float64)
    sigma = float(blocks) if private else 1.0
    sc = cuda.to_device(np.array([1.0 / (lmbd * n), sigma, bias]))
    cuda.synchronize()
    setup_wall = time.perf_counter() - t_wall

    start_ev, stop_ev = cuda.event(), cuda.event()
    gpu_times: list[float] = []
    wall_times: list[float] = []
    result = None
    converged = stopped = False
    for epoch in range(1, problem.epochs + 1):
        if not cyclic:
            rot.copy_to_device(rng.integers(0, lengths))
        sc.copy_to_device(np.array([1.0 / (lmbd * n), sigma, bias]))
        t_wall = time.perf_counter()
        start_ev.record()
        buf_flat = buf.reshape(buf.shape[0] * buf.shape[1])
        K.fill[GRID, K.TPB](buf_flat, 0.0)
        kernel = K.sdca_round_csr if data.sparse else K.sdca_round_dense
        kernel[blocks, K.TPB](
            *data.rows, y, c, q, a, a_new, w, buf, order, starts, rot, sc, loss, stats
        )
        if private:
            K.sum_rows[d + 1, K.TPB](buf, dw)
        K.dots[GRID, K.TPB](w, dw, dot_part)
        parts = dot_part.copy_to_host()
        step = line_search_step(
            stats.copy_to_host(), math.fsum(parts[:, 0]), math.fsum(parts[:, 1]), lmbd, n
        )
        if step > 0.0:
            K.combine[GRID, K.TPB](a, a_new, step, c, loss)
            K.axpy[GRID, K.TPB](w, step, dw)
        stop_ev.record()
        stop_ev.synchronize()
        gpu_times.append(start_ev.elapsed_time(stop_ev) / 1e3)
        wall_times.append(time.perf_counter() - t_wall)
        # ---- clock stopped: monitoring only below this line
        sigma = adapt_sigma(sigma, step, blocks)
        result = None
        if tol > 0.0 and (epoch <= 10 or epoch % max(1, epoch // 10) == 0):
            result = certify(a)
            w.copy_to_device(result["w_device"])  # resync: w = w(α) as the certificate has it
            converged = result["gap"] <= _target(est, tol, result)
        if est.callback is not None:
            w_host = w.copy_to_host() if result is None else result["w"]
            times = (gpu_times[-1], wall_times[-1], setup_wall)
            if epoch_callback(est, problem, epoch, times, w_host, lambda w=w_host: w, result):
                stopped = True
                break
        if converged:
            break

    if result is None:  # the returned pair is always the certificate's (w(α), α)
        result = certify(a)
        converged = tol > 0.0 and result["gap"] <= _target(est, tol, result)
    w_out = result["w"]
    dual_coef = problem.y * a.copy_to_host()
    if not (np.all(np.isfinite(w_out)) and np.all(np.isfinite(dual_coef))):
        raise ValueError(
            f"{type(est).__name__}(device='cuda') diverged to non-finite coefficients: scale "
            "the features (e.g. StandardScaler) or increase lmbd; no model was stored."
        )
    if est._warn_unconverged and tol > 0.0 and not converged and not stopped:
        warn_unconverged(
            type(est).__name__, result["gap"], tol, problem.epochs, " (device='cuda')",
            X=problem.X, feature_names=getattr(est, "feature_names_in_", None),
        )  # fmt: skip
    return BinaryFit.of_epochs(
        gpu_times,
        wall_times,
        w=w_out.copy(),
        dual_coef=dual_coef,
        setup_time=setup_wall,
        setup_wall_time=setup_wall,
        converged=bool(converged),
        duality_gap=result["gap"] if tol > 0.0 else np.nan,
        attributes={
            "primal_": result["primal"],
            "dual_": result["dual"],
            "sigma_": sigma,
        },
    )


def cpu_round(X, y, c, q, a, w, order, starts, rot, sigma, scale, bias, loss, private=True):
    r"""The CPU reference of one dense round
    (:func:`sdca_pegasos.solvers.gpu._kernels.sdca_round_dense`), in the kernel's own order of
    operations (a row's products summed per thread over columns t, t + TPB, ..., then by the same
    tree), so that the simulator's result equals it bit for bit. Returns (a_new, buf, stats)."""
    from sdca_pegasos.solvers.core import losses

    n_b = starts.shape[0] - 1
    d = w.shape[0] - 1
    buf = np.zeros((n_b if private else 1, d + 1))
    a_new = np.empty_like(a)
    stats = np.zeros((n_b, 3))
    vs = sigma if private else 1.0  # the margin's weight on v (the kernel's comment)
    for k in range(n_b):
        v = buf[k % buf.shape[0]]
        lo, m = starts[k], starts[k + 1] - starts[k]
        for s in range(m):
            i = order[lo + (s + rot[k]) % m]
            partial = [0.0] * K.TPB
            for t in range(K.TPB):
                acc = 0.0
                for j in range(t, d, K.TPB):
                    acc += X[i, j] * (w[j] + vs * v[j])
                partial[t] = acc
            if bias != 0.0:
                partial[0] += bias * (w[d] + vs * v[d])
            width = K.TPB // 2
            while width > 0:
                for t in range(width):
                    partial[t] += partial[t + width]
                width //= 2
            z = partial[0] * y[i]
            g = losses.gradient(loss, z, a[i], c[i])
            h = losses.curvature(loss, sigma * q[i], c[i])
            an = losses.coordinate_step(loss, a[i], g, h, c[i])
            delta = an - a[i]
            if delta != 0.0:
                coef = delta * y[i] * scale
                for j in range(d):
                    v[j] += coef * X[i, j]
                if bias != 0.0:
                    v[d] += coef * bias
            a_new[i] = an
            if c[i] > 0.0 and loss.kappa != 0.0:
                kc = loss.kappa / c[i]
                stats[k, 1] += kc * a[i] * delta
                stats[k, 2] += kc * delta * delta
            stats[k, 0] += delta
    return a_new, buf, stats


__all__ = ["adapt_sigma", "cpu_round", "fit", "line_search_step", "n_blocks"]
