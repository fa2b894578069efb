"""Numba building blocks shared by the solver kernels."""

from __future__ import annotations

import numpy as np
from numba import njit

from .objectives import FASTMATH


@njit(cache=True, fastmath=FASTMATH)
def _gram4(r0, r1, r2, r3, v):
    """One pass over four rows: their scores against ``v`` and their six pairwise products.

    Returns ``(g0, g1, g2, g3, h10, h20, h21, h30, h31, h32)`` with ``g_b = r_b · v[:d]`` and
    ``h_bc = r_b · r_c``. A sequential solver that updates ``v`` by multiples of these rows
    gets each later row's score exactly from them (x_b·v_after = g_b + Σ_c coef_c·h_bc), so
    four consecutive samples cost one read of their rows: four memory streams instead of
    one. Rows may be float32 or float64; every product is taken in float64.
    """
    g0 = g1 = g2 = g3 = 0.0
    h10 = h20 = h21 = h30 = h31 = h32 = 0.0
    for k in range(r0.shape[0]):
        # float64 before any product: float32 * float32 would round to float32
        x0, x1 = np.float64(r0[k]), np.float64(r1[k])
        x2, x3, vk = np.float64(r2[k]), np.float64(r3[k]), v[k]
        g0 += x0 * vk
        g1 += x1 * vk
        g2 += x2 * vk
        g3 += x3 * vk
        h10 += x1 * x0
        h20 += x2 * x0
        h21 += x2 * x1
        h30 += x3 * x0
        h31 += x3 * x1
        h32 += x3 * x2
    return g0, g1, g2, g3, h10, h20, h21, h30, h31, h32
