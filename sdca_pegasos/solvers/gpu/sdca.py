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
docs/measurements.md). For the smooth losses on dense data the GPU has a second-order engine
instead: ``NewtonSVMClassifier(device="cuda")`` (:mod:`sdca_pegasos.solvers.gpu.newton`).

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
1/2`, halved when :math:`t = 1`, kept in [1, K].

The rounds are :class:`GPUSDCAEngine`'s, driven by the one fit loop
(:func:`sdca_pegasos.solvers.driver.loop.run`), whose check schedule
(:class:`~sdca_pegasos.solvers.driver.loop.CheckSchedule`; the rounds have no KKT statistic)
says when the duality gap is computed: after rounds 1 and 2, then half way to the round where
the log-gap of the last two checks, extrapolated, reaches twice the target, every round from
there, at least every 8th, and always for the returned pair. The gap is computed on the device
(:mod:`sdca_pegasos.solvers.gpu.certificate`), and each check rebuilds :math:`w = \tilde
w(\alpha)` from α, so the drift of the running w never reaches the certificate (which rounds
resynchronise is the schedule's: a fit with ``tol > 0`` takes other iterates than under the
rule before it, checks after rounds 1–10, then after each round divisible by ⌊round/10⌋).

Not on the GPU (a clear error): ``sampling="iid"``, ``sgd_init``, ``average``,
``shrinking``.
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
from sdca_pegasos.solvers.gpu.data import GRID, DeviceData, row_sq_norms, zeros

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


class GPUSDCAEngine(Engine):
    r"""SDCA's rounds on the device for one binary problem, for
    :func:`sdca_pegasos.solvers.driver.loop.run`.

    Built from plain settings: the ``problem``, its X on the device (``data``), the fit's
    random stream ``rng`` (the permutation the blocks cut, drawn by the timed set-up, then an
    offset per block each round unless ``cyclic``) and the ``loss``. The gap checks, the
    callback, the certificate's use and the warning are the driver's; the engine measures its
    own time (:class:`~sdca_pegasos.solvers.driver.loop.Times`: the set-up's wall seconds, as
    both of its clocks; a round's device seconds, CUDA events around its kernels, and its wall
    seconds).

    Its pair is the certificate's: :meth:`certify` with ``check=True`` (the fit's own check)
    certifies :math:`(\tilde w(\alpha), \alpha)` of the device's α and resynchronises the
    running w to :math:`\tilde w(\alpha)`, so that its drift never reaches the next check;
    :meth:`current` then returns that pair until the next round, and :meth:`output` the very
    same arrays (the driver certifies it once). ``check=False`` (a callback's
    ``info.bounds()``) certifies the pair it is given in scratch arrays and changes nothing.
    """

    def __init__(self, problem: Problem, data: DeviceData, rng: np.random.Generator, *, loss,
                 cyclic: bool):  # fmt: skip
        n, d = problem.n_samples, problem.n_features
        self.problem, self.data, self.rng, self.loss = problem, data, rng, loss
        self.cyclic = bool(cyclic)
        self.blocks = n_blocks(n)
        self.private = (
            DENSE_PRIVATE and not data.sparse and self.blocks * (d + 1) * 8 <= MAX_PRIVATE_BYTES
        )
        self.sigma = float(self.blocks) if self.private else 1.0
        self.scale = 1.0 / (problem.lmbd * n)
        self._pair = None  # the host pair of the last round, once asked (current)
        self._certificate = None  # the check's certificate of _pair (certify, check=True)
        self._out = None  # (pair, certificate) of an unchecked round's output
        self._w_host = self._dual_host = self._scratch = None  # allocated when first needed

    def setup(self) -> Times:
        """The device's arrays, the certificate's scratch, a warm start's α and w(α), and the
        permutation the blocks cut (wall seconds: no device clock runs)."""
        p, data = self.problem, self.data
        n, d, blocks = p.n_samples, p.n_features, self.blocks
        t_wall = time.perf_counter()
        self.y = cuda.to_device(p.y)
        weights = p.sample_weight
        self.c = cuda.to_device(np.ones(n) if weights is None else weights)
        self.q = row_sq_norms(data, p.bias, self.scale)
        a_host = np.zeros(n)
        if p.init is not None:  # warm start: the last α, in the new box
            a_host = np.clip(p.y * p.init.dual_coef, 0.0, self.loss.box(weights, n))
        self.a = cuda.to_device(a_host)
        self.a_new = cuda.device_array(n, dtype=np.float64)
        self.certifier = Certifier(data, self.y, self.c, p.lmbd, p.bias, self.loss)
        self.w = zeros(d + 1)
        if p.init is not None:
            self.w.copy_to_device(self.certifier.weights_of(self.a)[0])
        self.buf = zeros((blocks if self.private else 1, d + 1))
        self.dw = self.buf[0] if not self.private else cuda.device_array(d + 1, dtype=np.float64)
        self.order = cuda.to_device(self.rng.permutation(n).astype(data.all_rows.dtype))
        starts = (np.arange(blocks + 1, dtype=np.int64) * n) // blocks
        self.starts = cuda.to_device(starts)
        self.lengths = np.diff(starts)
        self.rot = cuda.to_device(np.zeros(blocks, dtype=np.int64))
        self.stats = cuda.device_array((blocks, 3), dtype=np.float64)
        self.dot_part = cuda.device_array((GRID, 2), dtype=np.float64)
        self.sc = cuda.to_device(np.array([self.scale, self.sigma, p.bias]))
        cuda.synchronize()
        wall = time.perf_counter() - t_wall
        self.events = cuda.event(), cuda.event()
        return Times(wall, wall)

    def draw(self, step: int) -> None:
        """The round's offsets (one per block, from the fit's stream; 0 for ``cyclic``) and
        σ' on the device, untimed."""
        if not self.cyclic:
            self.rot.copy_to_device(self.rng.integers(0, self.lengths))
        self.sc.copy_to_device(np.array([self.scale, self.sigma, self.problem.bias]))

    def step(self, step: int) -> Times:
        """One round: the blocks' sweeps, the line search and the combination, timed by CUDA
        events; then, untimed, σ' adapted to the round's step (:func:`adapt_sigma`)."""
        data, p = self.data, self.problem
        buf, dw, w = self.buf, self.dw, self.w
        start_ev, stop_ev = self.events
        t_wall = time.perf_counter()
        start_ev.record()
        K.fill[GRID, K.TPB](buf.reshape(buf.shape[0] * buf.shape[1]), 0.0)
        kernel = K.sdca_round_csr if data.sparse else K.sdca_round_dense
        kernel[self.blocks, K.TPB](
            *data.rows, self.y, self.c, self.q, self.a, self.a_new, w, buf, self.order,
            self.starts, self.rot, self.sc, self.loss, self.stats,
        )  # fmt: skip
        if self.private:
            K.sum_rows[p.n_features + 1, K.TPB](buf, dw)
        K.dots[GRID, K.TPB](w, dw, self.dot_part)
        parts = self.dot_part.copy_to_host()
        t = line_search_step(
            self.stats.copy_to_host(),
            math.fsum(parts[:, 0]),
            math.fsum(parts[:, 1]),
            p.lmbd,
            p.n_samples,
        )
        if t > 0.0:
            K.combine[GRID, K.TPB](self.a, self.a_new, t, self.c, self.loss)
            K.axpy[GRID, K.TPB](w, t, dw)
        stop_ev.record()
        stop_ev.synchronize()
        times = Times(start_ev.elapsed_time(stop_ev) / 1e3, time.perf_counter() - t_wall)
        # ---- clock stopped
        self.sigma = adapt_sigma(self.sigma, t, self.blocks)
        self._pair = self._certificate = self._out = None
        return times

    def current(self) -> tuple[np.ndarray, np.ndarray]:
        r"""The running w and the signed α = y·a on the host (copied once a round, into
        buffers the next round's copy overwrites; after the round's check, the certificate's
        pair :math:`(\tilde w(\alpha), \alpha)`)."""
        if self._pair is None:
            self._allocate()
            self.w.copy_to_host(self._w_host)
            K.signed_coef[GRID, K.TPB](self.a, self.y, 1.0, self._scratch)  # y·a, exactly
            self._scratch.copy_to_host(self._dual_host)
            self._pair = (self._w_host, self._dual_host)
        return self._pair

    def _allocate(self) -> None:
        """The host buffers of :meth:`current` (pinned: the copies run at the bus's speed) and
        an n-long device scratch, once, when a check or the callback first needs them."""
        if self._w_host is None:
            n, d = self.problem.n_samples, self.problem.n_features
            self._w_host, self._dual_host = cuda.pinned_array(d + 1), cuda.pinned_array(n)
            self._scratch = cuda.device_array(n, dtype=np.float64)

    def certify(self, w: np.ndarray, dual_coef: np.ndarray, check: bool = True) -> Bounds:
        r"""The device certificate (:class:`~sdca_pegasos.solvers.gpu.certificate.Certifier`)
        of :math:`(\tilde w(\alpha), \alpha)`, α = ``dual_coef``: its P bounds
        :math:`P(\tilde w(\alpha))`, not ``w``'s.

        ``check=True``, the fit's own check of :meth:`current`'s pair: certifies the device's
        α, resynchronises the device w = :math:`\tilde w(\alpha)` (as the certificate computed
        it) and makes the certified pair the current one. ``check=False``: ``dual_coef`` is
        copied to the device's scratch and certified there; no iterate changes."""
        if check:
            result = self.certifier(self.a)
            self.w.copy_to_device(result["w_device"])  # resync: w = w(α) as certified
            self._pair = (result["w"], self.current()[1])
            self._certificate = result
        else:
            self._allocate()
            self._scratch.copy_to_device(self.problem.y * dual_coef)  # a = y·α, exactly
            result = self.certifier(self._scratch)
        return Bounds(result["primal"], result["dual"], result["gap"])

    def output(self) -> tuple[np.ndarray, np.ndarray]:
        r"""The certificate's pair :math:`(\tilde w(\alpha), \alpha)`: after the round's
        check, the very arrays :meth:`current` returns; after a round without one (``tol=0``,
        or a callback's ``info.output_w()``), that pair certified now, the iterates
        unchanged."""
        if self._certificate is not None:
            return self._pair
        if self._out is None:
            dual_coef = self.current()[1]
            result = self.certifier(self.a)
            self._out = ((result["w"], dual_coef), result)
        return self._out[0]

    def attributes(self, w_out: np.ndarray) -> dict:
        """``primal_`` and ``dual_`` (the returned pair's certified bounds) and ``sigma_``
        (σ' after the last round)."""
        result = self._certificate if self._certificate is not None else self._out[1]
        return {"primal_": result["primal"], "dual_": result["dual"], "sigma_": self.sigma}


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


__all__ = ["GPUSDCAEngine", "adapt_sigma", "cpu_round", "line_search_step", "n_blocks"]
