r"""Stochastic Dual Coordinate Ascent (Shalev-Shwartz & Zhang, JMLR 2013) for the linear SVM.

Maximises the dual :math:`D(\alpha)` of :mod:`solvers.objectives` one coordinate at a time,
keeping :math:`\tilde w = \tilde w(\alpha)` up to date. With :math:`a_i = y_i\alpha_i` and
:math:`z_i = y_i\tilde x_i^\top\tilde w`, the exact coordinate maximiser is

.. math::

    a_i \leftarrow \operatorname{clip}_{[0,1]}\left(a_i +
        \frac{1 - z_i - \gamma a_i}{\|\tilde x_i\|^2/(\lambda n) + \gamma}\right),
    \qquad \tilde w \leftarrow \tilde w + \frac{y_i\,\Delta a_i}{\lambda n}\tilde x_i,

the hinge closed form of seeds/000 §2.1.1 for :math:`\gamma = 0` and the smoothed-hinge form
of REFERENCE.md for :math:`\gamma > 0`. A row with :math:`\tilde x_i = 0` and the plain hinge
has no quadratic term: its coordinate is maximised at :math:`a_i = 1` (no division by zero).

The optional first epoch is the modified SGD of seeds/000 §2.1.2: at step :math:`t` the
:math:`t`-th sample of a permutation gets

.. math::

    a_t = \operatorname{clip}_{[0,1]}\left(\frac{1 - y_t x_t^\top w^{(t-1)}}
        {\|\tilde x_t\|^2/(\lambda t) + \gamma}\right), \qquad
    w^{(t)} = \frac{1}{\lambda t}\sum_{i \le t}\alpha_i\tilde x_i,

after which :math:`w^{(n)} = \tilde w(\alpha)` and SDCA continues from that dual point.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from numba import njit
from sklearn.utils._param_validation import Interval, StrOptions

from . import objectives
from ._base import BaseLinearSVM, Problem
from ._kernels import _gram4
from ._sampling import SAMPLINGS, epoch_indices
from .objectives import FASTMATH

# Output modes shared by the kernels.
_LAST, _AVERAGE, _RANDOM = 0, 1, 2


@njit(cache=True, fastmath=FASTMATH)
def _coordinate_step(i, score, y, sq_norms, dual_coef, inv_lmbd_n, gamma):
    """Exact maximisation of D along coordinate i given x̃_i·w = ``score``; returns Δα_i."""
    yi = y[i]
    a_old = yi * dual_coef[i]
    denom = sq_norms[i] * inv_lmbd_n + gamma
    if denom > 0.0:
        a_new = min(1.0, max(0.0, a_old + (1.0 - yi * score - gamma * a_old) / denom))
    else:  # x̃_i = 0 and plain hinge: the coordinate's objective a is maximal at a = 1
        a_new = 1.0
    dual_coef[i] = yi * a_new
    return yi * (a_new - a_old)


@njit(cache=True, fastmath=FASTMATH)
def _sdca_epoch(
    X,
    y,
    sq_norms,
    w,
    dual_coef,
    indices,
    lmbd_n,
    gamma,
    bias,
    mode,
    t_start,
    t0,
    snap,
    acc_w,
    acc_a,
):
    """One SDCA epoch over ``indices``, in place: exact coordinate ascent in that order.

    Consecutive samples are taken four at a time: one pass over the four rows computes their
    scores x̃_b·w and their pairwise products x̃_b·x̃_c, the four coordinate steps are then
    made one after the other, each score corrected by the earlier steps of the block
    (x̃_b·w_{after c} = x̃_b·w + Σ_{c<b} Δ_c x̃_b·x̃_c / (λn)), and w gets one combined update.
    This is the same sequential algorithm (equal up to rounding); reading four rows per
    pass keeps four memory streams in flight instead of one.

    Parameters
    ----------
    X : (n, d) float32/float64 ; y : (n,) float64 ±1 ; sq_norms : (n,) float64, ‖x̃_i‖²
    w : (d + 1,) float64, the iterate w(α) ; dual_coef : (n,) float64, α (signed)
    indices : (m,) int64, the samples visited, in order
    lmbd_n : float, λn ; gamma : float, smoothing (0: hinge) ; bias : float, B
    mode : int, 0 last iterate, 1 running average, 2 snapshot at step ``snap``
    t_start : int, steps done before this epoch ; t0 : int, first averaged iterate index
    snap : int, step whose iterate mode 2 keeps
    acc_w : (d + 1,) float64, acc_a : (n,) float64
        mode 1: Σ_{s>t0} (s - t0)·(w_s - w_{s-1}) and the same for α, so that the mean of
        the iterates t0..T is ``w_T - acc_w / (T - t0 + 1)``; mode 2: the snapshot.
    """
    d = X.shape[1]
    m = indices.shape[0]
    inv = 1.0 / lmbd_n
    b2 = bias * bias
    j = 0
    while j < m:
        s = t_start + j  # steps done before this sample
        if m - j >= 4 and not (mode == 2 and s < snap <= s + 4):
            i0, i1, i2, i3 = indices[j], indices[j + 1], indices[j + 2], indices[j + 3]
            r0, r1, r2, r3 = X[i0], X[i1], X[i2], X[i3]
            g0, g1, g2, g3, h10, h20, h21, h30, h31, h32 = _gram4(r0, r1, r2, r3, w)
            wb = bias * w[d]
            d0 = _coordinate_step(i0, g0 + wb, y, sq_norms, dual_coef, inv, gamma)
            c0 = d0 * inv
            d1 = _coordinate_step(
                i1, g1 + wb + c0 * (h10 + b2), y, sq_norms, dual_coef, inv, gamma
            )
            c1 = d1 * inv
            d2 = _coordinate_step(
                i2,
                g2 + wb + c0 * (h20 + b2) + c1 * (h21 + b2),
                y,
                sq_norms,
                dual_coef,
                inv,
                gamma,
            )
            c2 = d2 * inv
            d3 = _coordinate_step(
                i3,
                g3 + wb + c0 * (h30 + b2) + c1 * (h31 + b2) + c2 * (h32 + b2),
                y,
                sq_norms,
                dual_coef,
                inv,
                gamma,
            )
            c3 = d3 * inv
            if c0 != 0.0 or c1 != 0.0 or c2 != 0.0 or c3 != 0.0:
                for k in range(d):
                    w[k] += c0 * r0[k] + c1 * r1[k] + c2 * r2[k] + c3 * r3[k]
                w[d] += (c0 + c1 + c2 + c3) * bias
                if mode == 1 and s + 4 > t0:
                    # weight (step - t0) for each step after t0, 0 before
                    e0 = max(0, s + 1 - t0)
                    e1 = max(0, s + 2 - t0)
                    e2 = max(0, s + 3 - t0)
                    e3 = max(0, s + 4 - t0)
                    f0, f1, f2, f3 = e0 * c0, e1 * c1, e2 * c2, e3 * c3
                    for k in range(d):
                        acc_w[k] += f0 * r0[k] + f1 * r1[k] + f2 * r2[k] + f3 * r3[k]
                    acc_w[d] += (f0 + f1 + f2 + f3) * bias
                    acc_a[i0] += e0 * d0
                    acc_a[i1] += e1 * d1
                    acc_a[i2] += e2 * d2
                    acc_a[i3] += e3 * d3
            j += 4
        else:  # one sample: the epoch's tail, or the block that holds mode 2's snapshot
            i = indices[j]
            xi = X[i]
            score = bias * w[d]
            for k in range(d):
                score += xi[k] * w[k]
            delta = _coordinate_step(i, score, y, sq_norms, dual_coef, inv, gamma)
            if delta != 0.0:
                c = delta * inv
                for k in range(d):
                    w[k] += c * xi[k]
                w[d] += c * bias
                if mode == 1 and s + 1 > t0:
                    e = s + 1 - t0
                    for k in range(d):
                        acc_w[k] += e * c * xi[k]
                    acc_w[d] += e * c * bias
                    acc_a[i] += e * delta
            if mode == 2 and s + 1 == snap:
                acc_w[:] = w
                acc_a[:] = dual_coef
            j += 1


@njit(cache=True, fastmath=FASTMATH)
def _sgd_init_epoch(X, y, sq_norms, w, dual_coef, indices, lmbd, gamma, bias):
    """Modified-SGD first epoch (seeds/000 §2.1.2), in place.

    ``indices`` must visit every sample once (a permutation); ``w`` and ``dual_coef`` must
    be zero on entry. During the epoch ``w`` holds u = Σ_{i<t} α_i x̃_i, so that each step
    costs O(d) (w^{(t-1)} = u / (λ(t-1)) is never formed); on exit w = u / (λn) = w(α).
    Shapes as in :func:`_sdca_epoch`.
    """
    d = X.shape[1]
    n = indices.shape[0]
    for j in range(n):
        t = j + 1
        i = indices[j]
        xi = X[i]
        yi = y[i]
        z = 0.0
        if j > 0:
            score = bias * w[d]
            for k in range(d):
                score += xi[k] * w[k]
            z = yi * score / (lmbd * (t - 1))
        denom = sq_norms[i] / (lmbd * t) + gamma
        a = min(1.0, max(0.0, (1.0 - z) / denom)) if denom > 0.0 else 1.0
        alpha = yi * a
        dual_coef[i] = alpha
        if alpha != 0.0:
            for k in range(d):
                w[k] += alpha * xi[k]
            w[d] += alpha * bias
    scale = 1.0 / (lmbd * n)
    for k in range(d + 1):
        w[k] *= scale


@dataclass
class _State:
    problem: Problem
    w: np.ndarray
    dual_coef: np.ndarray
    sq_norms: np.ndarray
    cyclic_order: np.ndarray | None
    mode: int
    t0: int
    snap: int
    acc_w: np.ndarray
    acc_a: np.ndarray
    steps: int = 0


class SDCAClassifier(BaseLinearSVM):
    r"""Linear SVM by Stochastic Dual Coordinate Ascent (SDCA, SDCA-Perm, cyclic).

    Minimises :math:`P(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i\phi(y_i x_i^\top w)`
    (hinge or :math:`\gamma`-smoothed hinge) by exact coordinate ascent on its dual
    (Shalev-Shwartz & Zhang, JMLR 2013); see :mod:`solvers.sdca` for the updates.

    Parameters
    ----------
    lmbd : float, default=1e-3
        Regularisation :math:`\lambda > 0` (liblinear's ``C = 1/(λ n)``, see
        :func:`solvers.objectives.lmbd_to_C`).
    loss : {"hinge", "smooth_hinge"}, default="hinge"
    gamma : float, default=1.0
        Smoothing :math:`\gamma \ge 0` of ``smooth_hinge`` (ignored for ``hinge``;
        ``gamma=0`` is the hinge).
    sampling : {"perm", "random", "cyclic"}, default="perm"
        ``perm``: a new permutation each epoch (SDCA-Perm); ``random``: n i.i.d. uniform
        draws per epoch (the analysed SDCA); ``cyclic``: one permutation drawn once, repeated.
    sgd_init : bool, default=False
        Run the modified-SGD first epoch (over a permutation, whatever ``sampling``), then SDCA.
    average : {False, True, "random"}, default=False
        Output: the last iterate; the mean of the iterates :math:`t_0 \dots T` (α and w
        averaged alike); or the iterate at a uniformly drawn :math:`t \in [t_0, T]`. If the
        run stops on ``tol`` before :math:`t_0` (or before the drawn step), the last iterate
        is returned.
    avg_start : int or None, default=None
        :math:`t_0`, in steps; None is half of all steps, ``max_epochs * n // 2``
        (seeds/001 §2.2). With ``sgd_init`` it is at least ``n`` (the SGD epoch's
        intermediate iterates are not SDCA iterates).
    max_epochs : int, default=100
    tol : float or None, default=1e-5
        Stop when the exact duality gap :math:`P(w(\alpha)) - D(\alpha) \le` ``tol``,
        checked after each epoch outside the timer. ``0`` or ``None``: run all epochs and
        compute no gap at all (``duality_gap_`` is then NaN; see :meth:`duality_gap`).
    bias_multiplier : float, default=0.0
        :math:`B \ge 0`: learn an intercept through a constant feature of value :math:`B`
        (regularised like the other weights, as in VLFeat). 0: no intercept.
    random_state : int, numpy Generator or None, default=None
        Seed of ``numpy.random.default_rng``, the only source of randomness.
    callback : callable or None, default=None
        Called as ``callback(info)`` with an :class:`solvers.EpochInfo` after every epoch,
        after the epoch's clock has stopped; returning ``True`` stops the fit.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Weights (scikit-learn's binary-classifier shape).
    intercept_ : ndarray of shape (1,)
        :math:`B w_b`; zero when ``bias_multiplier=0``.
    dual_coef_ : ndarray of shape (n_samples,)
        Signed dual variables :math:`\alpha_i`, with :math:`y_i\alpha_i \in [0, 1]`
        (``y`` in ±1, +1 for ``classes_[1]``), matching ``coef_``.
    classes_ : ndarray of shape (2,)
    n_epochs_ : int
        Epochs run (``n_iter_`` is the same number).
    duality_gap_ : float
        Gap of the returned pair when ``tol > 0``, else NaN.
    converged_ : bool
    epoch_times_ : ndarray of shape (n_epochs_,)
        CPU seconds (``time.process_time``) of the update loop of each epoch.
    epoch_wall_times_ : ndarray of shape (n_epochs_,)
    setup_time_, setup_wall_time_ : float
        CPU and wall seconds of the squared-norm precomputation (one pass over X, before
        epoch 1).
    """

    _parameter_constraints: dict = {
        **BaseLinearSVM._parameter_constraints,
        "loss": [StrOptions({"hinge", "smooth_hinge"})],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "sampling": [StrOptions(set(SAMPLINGS))],
        "sgd_init": ["boolean"],
        "average": ["boolean", StrOptions({"random"})],
        "avg_start": [Interval(Integral, 0, None, closed="left"), None],
    }

    def __init__(
        self,
        lmbd=1e-3,
        *,
        loss="hinge",
        gamma=1.0,
        sampling="perm",
        sgd_init=False,
        average=False,
        avg_start=None,
        max_epochs=100,
        tol=1e-5,
        bias_multiplier=0.0,
        random_state=None,
        callback=None,
    ):
        self.lmbd = lmbd
        self.loss = loss
        self.gamma = gamma
        self.sampling = sampling
        self.sgd_init = sgd_init
        self.average = average
        self.avg_start = avg_start
        self.max_epochs = max_epochs
        self.tol = tol
        self.bias_multiplier = bias_multiplier
        self.random_state = random_state
        self.callback = callback

    def _loss_gamma(self) -> float:
        return float(self.gamma) if self.loss == "smooth_hinge" else 0.0

    def _mode(self) -> int:
        if self.average == "random":
            return _RANDOM
        return _AVERAGE if self.average else _LAST

    def _kernel_key(self) -> tuple:
        return (bool(self.sgd_init),)

    def _warm_up_overrides(self) -> dict:
        return {"avg_start": None}

    def _init_state(self, problem: Problem, rng: np.random.Generator) -> _State:
        n, d = problem.n_samples, problem.n_features
        mode = self._mode()
        total = self.max_epochs * n
        t0 = total // 2 if self.avg_start is None else min(int(self.avg_start), total)
        if self.sgd_init:
            t0 = max(t0, n)
        snap = -1
        if mode == _RANDOM:  # a child stream: the index stream is the same for every output
            snap = int(rng.spawn(1)[0].integers(t0, total, endpoint=True))
        cyclic_order = rng.permutation(n) if self.sampling == "cyclic" else None
        state = _State(
            problem=problem,
            w=np.zeros(d + 1),
            dual_coef=np.zeros(n),
            sq_norms=np.empty(n),
            cyclic_order=cyclic_order,
            mode=mode,
            t0=t0,
            snap=snap,
            acc_w=np.zeros(d + 1 if mode else 1),
            acc_a=np.zeros(n if mode else 1),
        )
        return state

    def _setup(self, state: _State) -> None:
        objectives._row_sq_norms(state.problem.X, state.problem.bias, state.sq_norms)

    def _epoch_indices(self, state: _State, rng: np.random.Generator, epoch: int) -> np.ndarray:
        n = state.problem.n_samples
        if epoch == 1 and self.sgd_init:
            return state.cyclic_order if self.sampling == "cyclic" else rng.permutation(n)
        return epoch_indices(rng, n, self.sampling, state.cyclic_order)

    def _run_epoch(self, state: _State, indices: np.ndarray, epoch: int) -> None:
        p = state.problem
        gamma = self._loss_gamma()
        if epoch == 1 and self.sgd_init:
            _sgd_init_epoch(
                p.X, p.y, state.sq_norms, state.w, state.dual_coef, indices, p.lmbd, gamma, p.bias
            )
        else:
            _sdca_epoch(
                p.X,
                p.y,
                state.sq_norms,
                state.w,
                state.dual_coef,
                indices,
                p.lmbd * p.n_samples,
                gamma,
                p.bias,
                state.mode,
                state.steps,
                state.t0,
                state.snap,
                state.acc_w,
                state.acc_a,
            )
        state.steps += indices.shape[0]
        if state.mode == _RANDOM and state.snap == state.steps and epoch == 1 and self.sgd_init:
            state.acc_w[:] = state.w  # the SGD kernel keeps no snapshot; its last step is here
            state.acc_a[:] = state.dual_coef

    def _output(self, state: _State) -> tuple[np.ndarray, np.ndarray]:
        if state.mode == _AVERAGE and state.steps >= state.t0:
            count = state.steps - state.t0 + 1
            return state.w - state.acc_w / count, state.dual_coef - state.acc_a / count
        if state.mode == _RANDOM and state.steps >= state.snap:
            return state.acc_w, state.acc_a
        return state.w, state.dual_coef
