r"""The SVM losses, each defined once: value, conjugate, derivative, dual coordinate step,
shrinking test. Every kernel (SDCA, ASDCA, Pegasos, the exact engine) and every objective
(:mod:`sdca_pegasos.solvers.core.objectives`) takes a :class:`Loss` and calls the functions here,
so that a loss is never written into a kernel (the pattern of skglm's ``datafits``).

The family
----------
Every loss here is a *box-conjugate* margin loss: for a margin :math:`z = y\,\tilde x^\top
\tilde w` and :math:`u = 1 - z`,

.. math::

    \phi(z) = \max_{0 \le a \le U}\; a\,u - \frac{\kappa}{2}a^2,
    \qquad\text{so}\qquad
    -\phi^*(-a) = a - \frac{\kappa}{2}a^2 \quad (0 \le a \le U),

a Fenchel pair fixed by two numbers, the conjugate's curvature :math:`\kappa \ge 0` and the
dual box bound :math:`U \in (0, \infty]`:

========================= =================================== ============ ==========
name                      :math:`\phi(z)`                     :math:`\kappa` :math:`U`
========================= =================================== ============ ==========
``"hinge"``               :math:`\max(0, u)`                  0            1
``"smooth_hinge"``        :math:`\gamma`-smoothed hinge        :math:`\gamma` 1
``"squared_hinge"``       :math:`\max(0, u)^2` (L2-SVM)        1/2          :math:`\infty`
========================= =================================== ============ ==========

(the smoothed hinge of Shalev-Shwartz & Zhang 2013: :math:`0` for :math:`u \le 0`,
:math:`u^2/(2\gamma)` for :math:`0 < u < \gamma`, :math:`u - \gamma/2` beyond; it is the
hinge at :math:`\gamma = 0`). The maximiser :math:`a^*(z) = \mathrm{clip}(u/\kappa, 0, U)`
is :math:`-\phi'(z)`, and :math:`\phi` is :math:`1/\kappa`-smooth.

Sample weights
--------------
A sample of weight :math:`c \ge 0` contributes :math:`c\,\phi(z)` to the primal. Its conjugate is
:math:`-(c\phi)^*(-a) = a - \kappa a^2/(2c)` on :math:`0 \le a \le cU` (the box scales, the
curvature divides), so with ``c = 1.0`` every function below is the unweighted one to the bit, and
a weight of 0 fixes :math:`a = 0` (the sample has no say). The dual of the weighted problem, with
the signed :math:`\alpha_i = y_i a_i` of :mod:`sdca_pegasos.solvers.core.objectives`, is

.. math::

    D(\alpha) = \frac1n\sum_i \Big(a_i - \frac{\kappa}{2c_i}a_i^2\Big)
        - \frac\lambda2\|\tilde w(\alpha)\|^2,
    \qquad 0 \le a_i \le c_i U .

Coordinate step
---------------
Along :math:`a_i`, :math:`-nD` has gradient :math:`G_i = z_i - 1 + \kappa a_i/c_i`
(liblinear's gradient, :math:`z_i` the margin at :math:`\tilde w(\alpha)`) and curvature
:math:`h_i = \|\tilde x_i\|^2/(\lambda n) + \kappa/c_i`; its exact minimiser over the box is
:math:`\mathrm{clip}(a_i - G_i/h_i, 0, c_iU)` (:func:`coordinate_step`). A row with
:math:`\tilde x_i = 0` of the hinge has :math:`h_i = 0` and :math:`G_i = -1`: the minimum is
the upper bound. liblinear's shrinking rule (:func:`stays_active`) keeps a sample unless it
sits at a bound with a gradient pushing it further out than any projected gradient
(:func:`projected_gradient`) of the previous pass.

Adding a loss of this family is one entry in :data:`LOSSES` (its :math:`\kappa` and
:math:`U`) and its tests (``tests/test_losses.py``); a loss outside it (e.g. logistic) would
give these functions a second implementation, dispatched on its own tuple type, and still
touch no kernel.

Every ``@njit`` function here is inlined into the kernels that call it (``inline="always"``:
a call per sample would cost more than its arithmetic). Their NumPy twins, used by the tests
and by Python code that evaluates a loss on arrays, are the methods of :class:`Loss`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from sdca_pegasos.solvers.core.rows import FASTMATH

__all__ = ["LOSSES", "Loss", "make_loss"]


class Loss(NamedTuple):
    r"""A box-conjugate loss, as the kernels take it (module docstring).

    Attributes
    ----------
    kappa : float
        Curvature :math:`\kappa \ge 0` of the conjugate (the smoothing: ``gamma`` of the
        smoothed hinge, 1/2 for the squared hinge, 0 for the hinge).
    upper : float
        Dual box bound :math:`U` per unit weight (1, or ``inf`` for the squared hinge).
    """

    kappa: float
    upper: float

    @property
    def name(self) -> str:
        """``"hinge"``, ``"smooth_hinge"`` or ``"squared_hinge"``."""
        if self.upper == math.inf:
            return "squared_hinge"
        return "hinge" if self.kappa == 0.0 else "smooth_hinge"

    @property
    def smooth(self) -> bool:
        """Whether φ is differentiable (κ > 0): ASDCA needs it."""
        return self.kappa > 0.0

    # ---- NumPy twins of the @njit functions below (vectorised, float64)
    def values(self, z, sample_weight=None) -> np.ndarray:
        r""":math:`c_i\,\phi(z_i)`, elementwise (the arithmetic of :func:`value`)."""
        u = 1.0 - np.asarray(z, dtype=np.float64)
        out = np.zeros_like(u)
        pos = u > 0.0
        if self.kappa == 0.0:
            out[pos] = self.upper * u[pos]
        else:
            top = pos & (u >= self.kappa * self.upper)
            mid = pos & ~top
            out[top] = self.upper * u[top] - 0.5 * self.kappa * self.upper * self.upper
            out[mid] = u[mid] * u[mid] / (2.0 * self.kappa)
        return out if sample_weight is None else sample_weight * out

    def dual_terms(self, a, sample_weight=None) -> np.ndarray:
        r""":math:`a_i - \kappa a_i^2/(2c_i)` (0 where :math:`c_i = 0`), elementwise."""
        a = np.asarray(a, dtype=np.float64)
        if sample_weight is None:
            return a - 0.5 * self.kappa * a * a
        c = np.asarray(sample_weight, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(c > 0.0, a - 0.5 * self.kappa * a * a / c, 0.0)

    def project(self, a, sample_weight=None) -> np.ndarray:
        r""":math:`a_i` clipped to its box :math:`[0, c_i U]`, elementwise (a feasible dual
        point from any one)."""
        upper = self.upper if sample_weight is None else self.box(sample_weight)
        return np.clip(np.asarray(a, dtype=np.float64), 0.0, upper)

    def dual_targets(self, z) -> np.ndarray:
        r""":math:`a^*(z) = -\phi'(z) \in [0, U]` (unit weight), elementwise: the twin of
        :func:`dual_target` and of :func:`minus_derivative` (which gives 0 at a NaN)."""
        u = 1.0 - np.asarray(z, dtype=np.float64)
        if self.kappa == 0.0:
            return np.where(u > 0.0, self.upper, 0.0)
        return np.clip(u / self.kappa, 0.0, self.upper)

    def second_derivatives(self, z) -> np.ndarray:
        r""":math:`\phi''(z) = 1/\kappa` where :math:`0 < 1 - z < \kappa U`, else 0 (unit
        weight), elementwise: the curvature of a smooth loss along the margin (at the two
        kinks of the smoothed hinge, the one-sided value 0). The hinge has none (its
        :math:`\phi'` jumps at 1): a ValueError."""
        if not self.smooth:
            raise ValueError(
                "the hinge has no second derivative (its slope jumps at z = 1): use "
                "smooth_hinge or squared_hinge"
            )
        u = 1.0 - np.asarray(z, dtype=np.float64)
        return ((u > 0.0) & (u < self.kappa * self.upper)) / self.kappa

    def box(self, sample_weight=None, n_samples: int | None = None) -> np.ndarray:
        """Upper bounds :math:`c_i U` of :math:`a_i` (shape (n_samples,))."""
        if sample_weight is None:
            return np.full(n_samples, self.upper)
        c = np.asarray(sample_weight, dtype=np.float64)
        out = np.zeros_like(c)
        out[c > 0.0] = c[c > 0.0] * self.upper  # 0 · inf is not computed
        return out

    def dual_curvatures(self, sample_weight=None, n_samples: int | None = None) -> np.ndarray:
        r"""Curvatures :math:`\kappa / c_i` of the conjugate terms :math:`\kappa a_i^2/(2c_i)`
        (shape (n_samples,)): the diagonal that the loss adds to the dual's Hessian, as
        :func:`curvature` adds it to one coordinate's. 0 where :math:`c_i = 0` (the box is
        the point 0 there)."""
        if sample_weight is None:
            return np.full(n_samples, self.kappa)
        c = np.asarray(sample_weight, dtype=np.float64)
        out = np.zeros_like(c)
        out[c > 0.0] = self.kappa / c[c > 0.0]
        return out


#: The losses by name: ``LOSSES[name](gamma)`` is the :class:`Loss` (``gamma`` is read by the
#: smoothed hinge only).
LOSSES = {
    "hinge": lambda gamma=0.0: Loss(0.0, 1.0),
    "smooth_hinge": lambda gamma=1.0: Loss(float(gamma), 1.0),
    "squared_hinge": lambda gamma=0.0: Loss(0.5, math.inf),
}

HINGE = LOSSES["hinge"]()


def make_loss(loss="hinge", gamma: float = 1.0) -> Loss:
    """A :class:`Loss` from a name (with the smoothing ``gamma`` of ``"smooth_hinge"``), a
    number (the γ-smoothed hinge, 0: the hinge: the older spelling of this module's
    functions), or a :class:`Loss` (returned as is)."""
    if isinstance(loss, Loss):
        return loss
    if isinstance(loss, str):
        if loss not in LOSSES:
            raise ValueError(f"unknown loss {loss!r}; expected one of {sorted(LOSSES)}")
        return LOSSES[loss](gamma)
    gamma = float(loss)
    if not gamma >= 0.0:
        raise ValueError(f"gamma must be >= 0, got {gamma}")
    return Loss(gamma, 1.0)


# ---------------------------------------------------------------------------- kernels' side
@njit(cache=True, fastmath=FASTMATH, inline="always")
def value(loss, z):
    r""":math:`\phi(z)` for unit weight (multiply by :math:`c` for a weighted sample)."""
    u = 1.0 - z
    if u <= 0.0:
        return 0.0
    if loss.kappa == 0.0:
        return loss.upper * u
    if u >= loss.kappa * loss.upper:
        return loss.upper * u - 0.5 * loss.kappa * loss.upper * loss.upper
    return u * u / (2.0 * loss.kappa)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def hinge(z):
    r""":math:`\max(0, 1 - z)`: the hinge's :func:`value` (``HINGE``), which every training
    pass reports beside the solver's own loss."""
    u = 1.0 - z
    return u if u > 0.0 else 0.0


@njit(cache=True, fastmath=FASTMATH, inline="always")
def dual_term(loss, a, c):
    r""":math:`-(c\phi)^*(-a) = a - \kappa a^2/(2c)` for :math:`0 \le a \le cU` (0 when
    :math:`c = 0`, where the box holds only :math:`a = 0`)."""
    if c == 1.0:
        return a - 0.5 * loss.kappa * a * a
    if c == 0.0:
        return 0.0
    return a - 0.5 * loss.kappa * a * a / c


@njit(cache=True, fastmath=FASTMATH, inline="always")
def dual_target(loss, z):
    r""":math:`a^*(z) = -\phi'(z)`, the maximiser in :math:`[0, U]` (unit weight)."""
    if z >= 1.0:
        return 0.0
    if z <= 1.0 - loss.kappa * loss.upper:
        return loss.upper
    return (1.0 - z) * (1.0 / loss.kappa)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def minus_derivative(loss, z):
    r""":math:`-\phi'(z) \in [0, U]` (unit weight), the coefficient of :math:`y\,\tilde x` in
    a primal sub-gradient step (Pegasos): :func:`dual_target` for :math:`z < 1`, else 0.

    The test is ``z < 1.0``, first: for the hinge this is exactly its sub-gradient's test
    (1 below the margin, 0 from it on), and a margin that is NaN takes no step.
    """
    if z < 1.0:
        return dual_target(loss, z)
    return 0.0


@njit(cache=True, fastmath=FASTMATH, inline="always")
def gradient(loss, z, a, c):
    r""":math:`G = z - 1 + \kappa a/c`, the derivative of :math:`-nD` along :math:`a`
    (margin :math:`z` at :math:`\tilde w(\alpha)`; 0 curvature term when :math:`c = 0`)."""
    if c == 1.0:
        return z - 1.0 + loss.kappa * a
    if c == 0.0:
        return z - 1.0
    return z - 1.0 + loss.kappa * a / c


@njit(cache=True, fastmath=FASTMATH, inline="always")
def curvature(loss, q, c):
    r""":math:`h = q + \kappa/c`, the curvature of :math:`-nD` along :math:`a`, given
    :math:`q = \|\tilde x\|^2/(\lambda n)` (just :math:`q` when :math:`c = 0`: the box is
    the point 0 and no step is taken)."""
    if c == 1.0:
        return q + loss.kappa
    if c == 0.0:
        return q
    return q + loss.kappa / c


@njit(cache=True, fastmath=FASTMATH, inline="always")
def upper_bound(loss, c):
    r"""The top :math:`cU` of a sample's box (0 when :math:`c = 0`, even with
    :math:`U = \infty`)."""
    if c == 1.0:
        return loss.upper
    if c == 0.0:
        return 0.0
    return c * loss.upper


@njit(cache=True, fastmath=FASTMATH, inline="always")
def coordinate_step(loss, a, g, h, c):
    r"""The exact minimiser of :math:`-nD` along :math:`a` over :math:`[0, cU]`, given its
    gradient ``g`` and curvature ``h`` at ``a`` (:math:`h = 0`: a linear direction, whose
    minimum over the box is the end its slope points to)."""
    if c == 0.0:
        return 0.0
    top = upper_bound(loss, c)
    if h > 0.0:
        return min(top, max(0.0, a - g / h))
    # linear along a (a zero row of the hinge, where g = -1): the end its slope points to
    if g < 0.0:
        return top
    return 0.0 if g > 0.0 else a


@njit(cache=True, fastmath=FASTMATH, inline="always")
def projected_gradient(loss, a, g, c):
    r"""The KKT residual of coordinate :math:`a`: :math:`\min(G, 0)` at 0,
    :math:`\max(G, 0)` at :math:`cU`, :math:`G` inside (0 for a weight of 0: the box is a
    point)."""
    if c == 0.0:
        return 0.0
    if a <= 0.0:
        return min(g, 0.0)
    if a >= upper_bound(loss, c):
        return max(g, 0.0)
    return g


@njit(cache=True, fastmath=FASTMATH, inline="always")
def stays_active(loss, a, g, upper_pg, lower_pg, c):
    """liblinear's shrinking test: False when :math:`a` sits at 0 with a gradient above
    ``upper_pg`` or at :math:`cU` with one below ``lower_pg`` (the largest and smallest
    projected gradients of the previous pass): it would only be pushed further out. An
    unknown gradient (NaN) always stays; a sample of weight 0 (its box a point) never does."""
    if c == 0.0:
        return False
    if a <= 0.0:
        return not g > upper_pg
    if a >= upper_bound(loss, c):
        return not g < lower_pg
    return True
