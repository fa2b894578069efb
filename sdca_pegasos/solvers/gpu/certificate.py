r"""The duality-gap certificate on the device: ``dual <= P* <= primal``, rounding included.

As :func:`sdca_pegasos.solvers.core.objectives.certificate`, for the pair :math:`(\hat w, \alpha)`
where :math:`\hat w` is :math:`\tilde w(\alpha) = \frac{1}{\lambda n}\sum_i a_i y_i\tilde x_i`
computed on the device: ``primal`` bounds :math:`P(\hat w)` from above and ``dual`` bounds
:math:`D(\alpha)` from below, as real numbers. The device sums in plain float64 (no compensation),
so the allowance is the classical a-priori bound of each sum instead of the CPU's compensated one:
:math:`\gamma_m = mu/(1 - mu)` (u the unit roundoff) times the sum of the magnitudes, for a sum
whose every result passed through at most m roundings,

- a margin (≤ d/TPB terms per thread, a tree of log2 TPB, the bias): error
  :math:`\delta_i = 2(\gamma_{d+2} m_i + 2u|z_i|)`, :math:`m_i = \sum_k|\tilde x_{ik}\hat w_k|`,
  which moves :math:`c_i\phi(z_i)` by at most its slope nearby times :math:`\delta_i`;
- a coordinate of :math:`\tilde w(\alpha)`: :math:`e_k = \gamma_{m_k} M_k`, with
  :math:`M_k = \frac{1}{\lambda n}\sum_i a_i|\tilde x_{ik}|` and :math:`m_k` the roundings on
  its path (dense: a row chunk, a strided share of the chunks and a tree; CSR, summed by
  atomics in any order: the column's count of entries, plus two);
- the sums over samples (a grid-stride share per thread, a tree, then an exactly rounded
  ``math.fsum`` of the blocks): :math:`\gamma_{N}` times the sum of magnitudes;

each counted twice over, as on the CPU. The tests check that this interval contains
:func:`sdca_pegasos.solvers.core.objectives.certificate`'s on the same pair, within the two
allowances."""

from __future__ import annotations

import math

import numpy as np
from numba import cuda

from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu.data import GRID, DeviceData, RowCombiner, margins

_U = 0.5 * np.finfo(np.float64).eps


def _gamma(m: float) -> float:
    return m * _U / (1.0 - m * _U)


class Certifier:
    """The certificate of one problem, with its device scratch allocated once.

    Parameters
    ----------
    data : DeviceData
    y, c : device arrays (n,) float64: labels ±1 and sample weights
    lmbd, bias : float
    loss : solvers.losses.Loss
    """

    def __init__(self, data: DeviceData, y, c, lmbd: float, bias: float, loss):
        self.data, self.y, self.c = data, y, c
        self.lmbd, self.bias, self.loss = float(lmbd), float(bias), loss
        n, d = data.n_samples, data.n_features
        self.coef = cuda.device_array(n, dtype=np.float64)
        self.z = cuda.device_array(n, dtype=np.float64)
        self.mag = cuda.device_array(n, dtype=np.float64)
        self.partials = cuda.device_array((GRID, 4), dtype=np.float64)
        self.combine = RowCombiner(data, n)
        # roundings on the path of each coordinate of w(α) (module docstring)
        tree = -(-GRID // K.TPB) + math.log2(K.TPB) + 4
        if data.sparse:  # any order of the column's entries; the bias entry by a tree
            counts = cuda.to_device(np.zeros(d, dtype=np.int64))
            K.column_counts[GRID, K.TPB](data.rows[1], counts)
            self.col_terms = np.append(counts.copy_to_host().astype(np.float64) + 2, tree)
            self.col_terms[-1] += -(-n // (GRID * K.TPB)) + 2
        else:
            self.col_terms = np.full(d + 1, -(-n // self.combine.chunks) + tree)

    def weights_of(self, a):
        """:math:`\\tilde w(\\alpha)` and its magnitudes M (device arrays, length d + 1)."""
        n = self.data.n_samples
        K.signed_coef[GRID, K.TPB](a, self.y, 1.0 / (self.lmbd * n), self.coef)
        return self.combine(self.data.all_rows, 0, n, self.coef, self.bias)

    def __call__(self, a) -> dict:
        """Certified bounds of the pair (w(α), α); also returns ``w`` (host, float64), the
        primal point they certify."""
        data, n, d = self.data, self.data.n_samples, self.data.n_features
        w_dev, m_dev = self.weights_of(a)
        margins(data, data.all_rows, 0, n, w_dev, self.bias, self.z, self.mag)
        gamma_d = _gamma(d + 2 + math.log2(K.TPB))
        K.certificate_terms[GRID, K.TPB](
            self.z, self.mag, self.y, self.c, a, self.loss, gamma_d, self.partials
        )
        w = w_dev.copy_to_host()
        big_m = m_dev.copy_to_host()
        sq_w = math.fsum(w * w)  # products rounded once, then an exactly rounded sum
        result = self._bounds(sq_w, sq_w, w, big_m)
        result.update(w=w, w_device=w_dev)
        return result

    def pair(self, w: np.ndarray, a, z, mag) -> dict:
        r"""Certified bounds of a pair :math:`(\tilde w, \alpha)` whose w is *given*, not
        :math:`\tilde w(\alpha)`: ``primal`` bounds :math:`P(w)` from above and ``dual``
        bounds :math:`D(\alpha)` from below (a primal point certified through its implied
        dual, :mod:`sdca_pegasos.solvers.gpu.newton_device`).

        ``w``: the point (host float64, length d + 1, exact: its ‖w‖² is an exactly rounded
        sum); ``z``, ``mag``: its margins :math:`\tilde x_i^\top w` and magnitudes
        :math:`\sum_k|\tilde x_{ik}w_k|` as :func:`~sdca_pegasos.solvers.gpu.data.margins`
        computes them (the allowance of the loss terms is that kernel's); ``a``: the device's
        :math:`a_i = y_i\alpha_i`. Also returns ``w_alpha`` (host): :math:`\tilde w(\alpha)`
        as computed, whose ‖·‖² enters D with the allowance of :meth:`__call__`."""
        wa_dev, m_dev = self.weights_of(a)
        gamma_d = _gamma(self.data.n_features + 2 + math.log2(K.TPB))
        K.certificate_terms[GRID, K.TPB](
            z, mag, self.y, self.c, a, self.loss, gamma_d, self.partials
        )
        w_alpha = wa_dev.copy_to_host()
        big_m = m_dev.copy_to_host()
        sq_w = math.fsum(w * w)
        sq_wa = math.fsum(w_alpha * w_alpha)
        result = self._bounds(sq_w, sq_wa, w_alpha, big_m)
        result["w_alpha"] = w_alpha
        return result

    def _bounds(self, sq_w: float, sq_wa: float, w_alpha: np.ndarray, big_m: np.ndarray) -> dict:
        """primal, dual, gap, rel_gap from the partial sums in ``self.partials``, ‖w‖² of the
        primal point (``sq_w``) and w(α) (``sq_wa``, its coordinates ``w_alpha`` and their
        magnitudes ``big_m``): the module docstring's allowances, each bound moved outward."""
        lmbd, n = self.lmbd, self.data.n_samples
        part = self.partials.copy_to_host()
        loss_sum, err_sum, dual_sum, dual_abs = (math.fsum(part[:, k]) for k in range(4))
        gamma_n = _gamma(-(-n // (GRID * K.TPB)) + math.log2(K.TPB) + 2)
        primal = 0.5 * lmbd * sq_w + loss_sum / n
        dual = dual_sum / n - 0.5 * lmbd * sq_wa
        # w(α)'s coordinates: e_k bounds |ŵ_k − w(α)_k|; ||w(α)||² is within err_sq of sq_wa
        e = _gamma(self.col_terms) * big_m + 2.0 * _U * np.abs(w_alpha)
        err_sq = math.fsum(2.0 * np.abs(w_alpha) * e + e * e) + 2.0 * _U * sq_wa
        err_primal = 2.0 * (
            (err_sum + gamma_n * (loss_sum + err_sum)) / n + 0.5 * lmbd * 2.0 * _U * sq_w
        ) + 4.0 * _U * abs(primal)
        err_dual = 2.0 * ((gamma_n + 8.0 * _U) * dual_abs / n + 0.5 * lmbd * err_sq)
        err_dual += 4.0 * _U * abs(dual)
        primal += err_primal
        dual -= err_dual
        gap = primal - dual
        return {
            "primal": primal,
            "dual": dual,
            "gap": gap,
            "rel_gap": gap / abs(primal) if primal != 0.0 else (0.0 if gap == 0 else np.inf),
        }
