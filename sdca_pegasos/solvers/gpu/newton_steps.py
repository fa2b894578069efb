r"""The steps of :class:`sdca_pegasos.solvers.gpu.newton.NewtonSVMClassifier` on the host (the
Cholesky solve and the exact line search, shared by both engines) and :class:`NewtonEngine`,
the same steps in NumPy (``device="cpu"``, and the device's twin in the tests). The method and
why it is this one: :mod:`sdca_pegasos.solvers.gpu.newton`.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.driver.loop import Bounds, Engine
from sdca_pegasos.solvers.driver.problem import Problem

__all__ = [
    "LINE_SEARCH_EVALS",
    "LINE_SEARCH_TOL",
    "NewtonEngine",
    "assemble",
    "engine_attributes",
    "gradient_hessian",
    "line_search",
    "newton_direction",
    "slope_sums",
]

#: At most this many evaluations of f' in one line search (each a pass over n-vectors).
LINE_SEARCH_EVALS = 60
#: The line search ends once |f'(t)| ≤ this times |f'(0)|.
LINE_SEARCH_TOL = 1e-12


# ---------------------------------------------------------------------------- the host's part
def newton_direction(g: np.ndarray, H: np.ndarray) -> np.ndarray:
    """s = −H⁻¹g by Cholesky (LAPACK ``potrf``/``potrs`` through SciPy)."""
    factor = scipy.linalg.cho_factor(H, lower=True, check_finite=False)
    return -scipy.linalg.cho_solve(factor, g, check_finite=False)


def assemble(g_loss: np.ndarray, h_upper: np.ndarray, w: np.ndarray, lmbd: float, n: int):
    """g = λw − g_loss/n and H = λI + (h_upper mirrored)/n from the pass's sums (``h_upper``:
    the (d + 1)² upper triangle, row-major, lower part 0)."""
    m = w.shape[0]
    h = h_upper.reshape(m, m)
    H = (h + np.triu(h, 1).T) / n
    H[np.diag_indices(m)] += lmbd
    return lmbd * w - g_loss / n, H


def line_search(
    slope, gs: float, ws: float, ss: float, lmbd: float, n: int, tol: float = LINE_SEARCH_TOL
):
    r"""The exact minimiser t > 0 of f(t) = P(w + ts) (module docstring), and the number of
    evaluations made.

    ``slope(t)`` returns the sums (Σ c_i a*(z_i + tδ_i)δ_i, Σ c_i φ''(z_i + tδ_i)δ_i²);
    ``gs`` = gᵀs = f'(0), ``ws`` = wᵀs, ``ss`` = ‖s‖². Safeguarded Newton on f' from t = 1
    within the bracket [lo, hi] (f'(lo) < 0 < f'(hi)); where Newton's next t leaves the
    bracket, the secant through the bracket's ends (regula falsi, the Illinois variant:
    an end kept twice has its f' halved), or doubling while no f' > 0 is known. A step
    from far off (the first, from w = 0, where every margin sits where φ'' = 0 and the
    Newton direction is −g/λ) needs t ~ λ, which halving from 1 reaches only after about
    log₂(1/λ) evaluations. 0 when s is no descent direction. Should the
    evaluations run out, the last t with f' < 0 (P has decreased to it). It ends once
    |f'(t)| ≤ ``tol``·|f'(0)| (then P(w + ts) ≤ P(w) + t·tol·|f'(0)| by convexity, and
    below P(w) where f'(t) ≤ 0)."""
    if not gs < 0.0:
        return 0.0, 0
    lo, hi, t = 0.0, math.inf, 1.0
    d_lo, d_hi = gs, math.inf  # f' at the bracket's ends (the secant's weights)
    kept = 0  # which end the last two evaluations kept (-1 lo, 1 hi, 0 neither)
    for k in range(1, LINE_SEARCH_EVALS + 1):
        s1, s2 = slope(t)
        d1 = lmbd * (ws + t * ss) - s1 / n
        d2 = lmbd * ss + s2 / n
        if abs(d1) <= tol * -gs:
            return t, k
        if d1 < 0.0:
            lo, d_lo = t, d1
            if kept == -1:
                d_hi *= 0.5  # Illinois: hi kept twice
            kept = -1
        else:
            hi, d_hi = t, d1
            if kept == 1:
                d_lo *= 0.5
            kept = 1
        t_new = t - d1 / d2
        if not lo < t_new < hi:
            if hi == math.inf:
                t_new = 2.0 * t
            else:
                t_new = lo + (hi - lo) * (-d_lo) / (d_hi - d_lo)
                if not lo < t_new < hi:
                    t_new = 0.5 * (lo + hi)
        t = t_new
    return lo, LINE_SEARCH_EVALS


def _full_rows(X: np.ndarray, bias: float) -> np.ndarray:
    """X̃ = (X, B) in float64 (the NumPy twin's copy)."""
    Xf = np.empty((X.shape[0], X.shape[1] + 1))
    Xf[:, :-1] = X
    Xf[:, -1] = bias
    return Xf


def gradient_hessian(Xt: np.ndarray, y: np.ndarray, c: np.ndarray, w: np.ndarray, lmbd: float,
                     loss) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The NumPy twin of the device's pass: (g, H, z) at w, z = X̃w unsigned (``Xt``: X̃ in
    float64, ``c``: weights, ones when unweighted)."""
    n = Xt.shape[0]
    z = Xt @ w
    zs = y * z
    coef = c * y * loss.dual_targets(zs)
    curv = c * loss.second_derivatives(zs)
    h = Xt.T @ (curv[:, None] * Xt)
    H = h / n
    H[np.diag_indices(w.shape[0])] += lmbd
    return lmbd * w - (Xt.T @ coef) / n, H, z


def slope_sums(z: np.ndarray, dz: np.ndarray, y: np.ndarray, c: np.ndarray, t: float, loss):
    """The NumPy twin of :func:`sdca_pegasos.solvers.gpu._kernels.newton_slope`'s sums."""
    delta = y * dz
    u = y * z + t * delta
    return (
        math.fsum(c * loss.dual_targets(u) * delta),
        math.fsum(c * loss.second_derivatives(u) * delta * delta),
    )


# ---------------------------------------------------------------------------- CPU engine
class NewtonEngine(Engine):
    """The Newton steps in NumPy (``device="cpu"``, and the device's twin in the tests), for
    :func:`sdca_pegasos.solvers.driver.loop.run`; certified by
    :func:`sdca_pegasos.solvers.core.objectives.certificate` on the pair (w, implied dual)."""

    def __init__(self, problem: Problem, *, loss):
        self.problem, self.loss = problem, loss
        self.w = np.zeros(problem.n_features + 1)
        self.steps: list[float] = []
        self.evals: list[int] = []
        self._pair = self._last = None

    def setup(self) -> None:
        p = self.problem
        self.Xt = _full_rows(p.X, p.bias)
        self.c = np.ones(p.n_samples) if p.sample_weight is None else p.sample_weight

    def gradient_hessian(self, w: np.ndarray):
        """(g, H, z) at ``w``."""
        return gradient_hessian(self.Xt, self.problem.y, self.c, w, self.problem.lmbd, self.loss)

    def step(self, step: int) -> None:
        p, w = self.problem, self.w
        g, H, z = self.gradient_hessian(w)
        s = newton_direction(g, H)
        dz = self.Xt @ s
        t, evals = line_search(
            lambda t: slope_sums(z, dz, p.y, self.c, t, self.loss),
            math.fsum(g * s),
            math.fsum(w * s),
            math.fsum(s * s),
            p.lmbd,
            p.n_samples,
        )
        w += t * s
        self.steps.append(t)
        self.evals.append(evals)
        self._pair = self._last = None

    def current(self) -> tuple[np.ndarray, np.ndarray]:
        """(w, its implied dual α = y·c·a*(z))."""
        if self._pair is None:
            p = self.problem
            alpha = objectives.implied_dual(p.X, p.y, self.w, self.loss, p.bias, p.sample_weight)
            self._pair = (self.w.copy(), alpha)
        return self._pair

    def certify(self, w: np.ndarray, dual_coef: np.ndarray, check: bool = True) -> Bounds:
        p = self.problem
        cert = objectives.certificate(
            p.X, p.y, w, dual_coef, p.lmbd, self.loss, p.bias, p.sample_weight
        )
        if check:
            self._last = cert
        return Bounds(cert["primal"], cert["dual"], cert["gap"])

    def attributes(self, w_out: np.ndarray) -> dict:
        if self._last is None:
            self.certify(*self.current())
        return engine_attributes(self._last, self.steps, self.evals)


def engine_attributes(cert: dict, steps: list, evals: list) -> dict:
    """The engines' fitted attributes: ``primal_``, ``dual_``, ``rel_gap_`` (the returned
    pair's certificate), ``step_sizes_`` (each step's t) and ``line_search_evals_`` (each
    line search's evaluations of f')."""
    return {
        "primal_": cert["primal"],
        "dual_": cert["dual"],
        "rel_gap_": cert["rel_gap"],
        "step_sizes_": np.array(steps),
        "line_search_evals_": np.array(evals, dtype=np.int64),
    }
