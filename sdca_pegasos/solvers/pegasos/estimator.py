r"""Pegasos: primal estimated sub-gradient solver for the linear SVM (Shalev-Shwartz et al. 2011).

Minimises the primal :math:`P(\tilde w)` of :mod:`sdca_pegasos.solvers.core.objectives` (of the
hinge; of another loss: *Loss* below) by stochastic sub-gradient steps (seeds/001 algorithms 3–4,
seeds/002). Iteration :math:`t = 1, 2, \dots` (counted across epochs) takes a batch :math:`A_t` of
:math:`|A_t| \le k` samples and, with every margin taken at the current iterate :math:`\tilde
w^{(t-1)}`,

.. math::

    A_t^+ = \{i \in A_t : y_i \tilde x_i^\top \tilde w^{(t-1)} < 1\}, \qquad
    \tilde w^{(t)} = (1 - \eta_t\lambda)\,\tilde w^{(t-1)}
        + \frac{\eta_t}{|A_t|}\sum_{i \in A_t^+} y_i \tilde x_i,

from :math:`\tilde w^{(0)} = 0`, with :math:`\eta_t = 1/(\lambda t)` (Pegasos) or
:math:`\eta_t = 2/(\lambda(t+1))` (Lacoste-Julien, Schmidt & Bach 2012, seeds/002). The step
divides by the actual batch size, so the last, smaller batch of an epoch takes the mean
sub-gradient of its samples. With ``projection`` the iterate is then scaled onto the ball
:math:`\|\tilde w\| \le 1/\sqrt\lambda`, which holds the optimum; :math:`\tilde w` includes the
bias weight :math:`w_b` (the ball is that of the full vector, as the regulariser is).

Bias (seeds/003, VLFeat): with ``bias_multiplier`` :math:`B > 0` every sample gets a constant
feature :math:`B`, :math:`\tilde x_i = (x_i, B)`, and the intercept is :math:`B w_b`.

Output: the last iterate :math:`\tilde w^{(T)}`; the uniform average of
:math:`\tilde w^{(t)}, T_0 \le t \le T`; or the weighted average
:math:`\sum_{t \ge T_0} t\,\tilde w^{(t)} / \sum_{t \ge T_0} t`, which for :math:`T_0 = 1` is
:math:`\frac{2}{T(T+1)}\sum_{t=1}^T t\,\tilde w^{(t)}`. Here :math:`\tilde w^{(t)}` is the
iterate *after* :math:`t` iterations, so the final iterate gets the largest weight
:math:`T`. (Lacoste-Julien et al. weight the point at which step :math:`t` evaluates its
sub-gradient, :math:`\tilde w^{(t-1)}`, by :math:`t`. Their proof bounds the expected
weighted sum of suboptimalities of :math:`T+1` steps by :math:`(T+1)G^2/\lambda`, with
:math:`G = 2R` bounding the sub-gradients; ours drops the first point and lowers every other
weight by one, so, suboptimalities being non-negative, our average is within
:math:`2G^2/(\lambda T) = 8R^2/(\lambda T)` in expectation, against their
:math:`8R^2/(\lambda(T+1))`.)

Loss
----
With ``loss`` other than the hinge the same iterations take the sub-gradient of :math:`\phi`, the
loss of :mod:`sdca_pegasos.solvers.core.losses`: sample :math:`i \in A_t` contributes :math:`a_i
c_i y_i \tilde x_i` with :math:`a_i = -\phi'(y_i\tilde x_i^\top\tilde w^{(t-1)})`
(:func:`sdca_pegasos.solvers.core.losses.minus_derivative`; the hinge's :math:`a_i` is 1 on
:math:`A_t^+`, 0 elsewhere, so the update above is this one). The ball of radius
:math:`1/\sqrt\lambda` holds the optimum for every loss there (:math:`\lambda\|\tilde w^*\|^2 \le
\frac1n\sum_i (a_i - \frac\kappa2 a_i^2) \le 1`), so ``projection`` stays exact. The squared hinge
needs it: its derivative grows with the margin, and the first steps :math:`1/(\lambda t)` blow the
unprojected iterate up by orders of magnitude (a primal of 1e9 to 1e17 after 200 epochs at
:math:`\lambda = 0.05` on a 200 × 5 problem, ``tests/test_pegasos.py``).

The kernels, their scaled iterate, lazy average and the reading of rows are in
:mod:`sdca_pegasos.solvers.pegasos.kernels`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.sampling import (
    DEPRECATED_SAMPLINGS,
    batch_order,
    resolve_sampling,
)
from sdca_pegasos.solvers.driver.estimator import BaseLinearSVM
from sdca_pegasos.solvers.driver.loop import Engine
from sdca_pegasos.solvers.driver.problem import Problem, canonical
from sdca_pegasos.solvers.gpu.device import DEVICE_CONSTRAINT, DeviceMixin
from sdca_pegasos.solvers.pegasos.kernels import (
    LAST,
    UNIFORM,
    WEIGHTED,
    Iterate,
    Params,
    pegasos_batch_epoch,
    pegasos_single_epoch,
)

#: Renormalise w = s·v (v ← s·v, s ← 1, U ← U + σv, σ ← 0) when s falls below this: it
#: bounds the precision lost by the lazy average to a factor 1/_S_MIN
#: (:mod:`sdca_pegasos.solvers.pegasos.kernels`).
_S_MIN = 1e-2

#: Pegasos' orders, in the vocabulary of every solver (:mod:`sdca_pegasos.solvers.core.sampling`).
SAMPLINGS = ("iid", "permutation")


class PegasosEngine(Engine):
    """Pegasos' epochs on one binary problem, for :func:`sdca_pegasos.solvers.driver.loop.run`.

    Built from plain settings: the ``loss``, the mini-batch ``batch_size``, the output ``mode``
    (LAST, UNIFORM, WEIGHTED), ``projection``, the ``sampling`` ("permutation" or "iid"), the
    iterations a warm start made before (``start``) and the first averaged one ``t0`` (both
    counted from the first fit of a warm-started sequence), and the fit's random stream
    ``rng``. Its attributes are the fit's state: ``rows``, ``it`` (the iterate) and ``params``
    (the kernels'), ``w`` (s·v, materialised outside the timer), ``iters_per_epoch``, ``t``
    (iterations done, a warm start's included) and ``indices`` (the next epoch's order)."""

    has_dual = False

    def __init__(
        self,
        problem: Problem,
        rng: np.random.Generator,
        *,
        loss,
        batch_size: int,
        mode: int,
        projection: bool,
        sampling: str,
        start: int,
        t0: int,
    ):
        n, d = problem.n_samples, problem.n_features
        k = int(batch_size)
        self.it = Iterate(
            v=np.zeros(d + 1) if problem.init is None else problem.init.w.copy(),
            acc=np.zeros(d + 1),  # full length even unused: see Iterate
            scal=np.array([1.0, 0.0, 0.0]),
            score_buf=np.empty(k),
            coef_buf=np.empty(k),
            row_buf=np.empty(k, dtype=np.int64),
        )
        self.it.scal[1] = self.it.v @ self.it.v
        self.params = Params(
            problem.lmbd, mode == WEIGHTED, bool(projection), mode, t0, _S_MIN, k, loss
        )
        self.problem, self.rng, self.sampling = problem, rng, sampling
        self.rows = problem.rows(np.empty(n if (projection and k == 1) else 0))
        self.w = np.zeros(d + 1)
        self.iters_per_epoch = -(-n // k)
        self.t = start
        self.indices = None

    def setup(self) -> None:
        if self.rows.sq_norms.shape[0]:
            p = self.problem
            objectives.row_sq_norms(p.X, p.bias, out=self.rows.sq_norms)

    def draw(self, step: int) -> None:
        n, k = self.problem.n_samples, self.params.batch_size
        self.indices = batch_order(self.rng, n, self.sampling, k)

    def step(self, step: int) -> None:
        kernel = pegasos_single_epoch if self.params.batch_size == 1 else pegasos_batch_epoch
        kernel(self.rows, self.it, self.params, self.indices, self.t)
        self.t += self.iters_per_epoch

    def current(self) -> tuple[np.ndarray, None]:
        np.multiply(self.it.v, self.it.scal[0], out=self.w)
        return self.w, None

    def iterations(self) -> int:
        return self.t

    def output(self) -> tuple[np.ndarray, None]:
        T, t0, mode = self.t, self.params.t0, self.params.mode
        if mode == LAST or t0 > T:
            return self.current()
        if mode == UNIFORM:
            weight = T - t0 + 1.0
        else:  # Σ_{t = max(t0, 1)}^{T} t
            lo = max(t0, 1)
            weight = (T * (T + 1.0) - (lo - 1.0) * lo) / 2.0
        return (self.it.acc + self.it.scal[2] * self.it.v) / weight, None


class PegasosClassifier(DeviceMixin, BaseLinearSVM):
    r"""Linear SVM by Pegasos, stochastic sub-gradient descent on the primal (mini-batch).

    Minimises the primal :math:`P(\tilde w) = \frac{\lambda}{2}\|\tilde w\|^2 + \frac1n\sum_i
    c_i\phi(y_i \tilde x_i^\top\tilde w)` of the hinge :math:`\phi(z) = \max(0, 1 - z)` (or of
    ``loss``) with step :math:`\eta_t = 1/(\lambda t)` (Shalev-Shwartz, Singer, Srebro & Cotter
    2011; seeds/001 algorithms 3–4) or, with ``average="weighted"``, :math:`2/(\lambda(t+1))`
    (Lacoste-Julien et al. 2012). See :mod:`sdca_pegasos.solvers.pegasos.estimator` for the update
    and its implementation. An epoch is always ``n_samples`` samples, i.e. :math:`\lceil n/k\rceil`
    iterations, whatever ``batch_size``.

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        Regularisation :math:`\lambda > 0`. ``"auto"`` (the default): :math:`\lambda = 1/n`,
        n the number of rows of X, resolved at ``fit`` (``lmbd_``): ``LinearSVC``'s default
        ``C = 1`` (with sample weights n still counts the rows: each weight multiplies its
        sample's loss, as in ``LinearSVC(C=1)``). In ``partial_fit``, which sees one chunk at
        a time, not the n of the whole stream, ``"auto"`` is the λ already in use (``lmbd_`` of
        the last ``fit`` or of the stream's first call), or :math:`1/n` of the first call's
        rows: a stream's λ is fixed at its start, as its steps :math:`1/(\lambda t)` need. Pass
        a number, e.g. 1/(the number of samples in the stream), for LinearSVC's ``C = 1`` on
        the whole stream.
    loss : {"hinge", "smooth_hinge", "squared_hinge"}, default="hinge"
        :math:`\phi` (:mod:`sdca_pegasos.solvers.core.losses`), as in
        :class:`sdca_pegasos.solvers.SDCAClassifier`: the hinge, the :math:`\gamma`-smoothed hinge
        or the squared hinge :math:`\max(0, 1 - z)^2`. A step adds :math:`-\phi'(z_i)\,c_i
        y_i\tilde x_i` per sample (the hinge's sub-gradient: 1 below the margin, 0 from it on). The
        squared hinge needs ``projection=True`` (its derivative grows with the margin: see
        :mod:`sdca_pegasos.solvers.pegasos.estimator`).
    gamma : float, default=1.0
        Smoothing :math:`\gamma \ge 0` of ``smooth_hinge`` (ignored by the other losses;
        ``gamma=0`` is the hinge).
    batch_size : int, default=1
        :math:`k`; 1 is basic Pegasos. Must not exceed ``n_samples``.
    sampling : {"iid", "permutation"}, default="iid"
        ``iid``: every batch is a uniform subset of :math:`k` distinct samples, independent of the
        others (seeds/001; :math:`k = 1`: i.i.d. draws). ``permutation``: each epoch is a random
        partition of the samples into batches of :math:`k` (a fresh permutation cut into
        consecutive batches), the last one smaller when :math:`k \nmid n` (seeds/000 algorithm 3).
        The vocabulary of every solver (:mod:`sdca_pegasos.solvers.core.sampling`); the old
        spelling ``"epoch"`` still works for one release, with a ``FutureWarning``, and gives the
        same results.
    projection : bool, default=False
        Project the full iterate (bias weight included) onto :math:`\|\tilde w\| \le
        1/\sqrt\lambda` after each step.
    average : {False, True, "weighted"}, default=False
        Output: the last iterate; the uniform mean of the iterates :math:`\tilde w^{(t)}`,
        :math:`T_0 \le t \le T`; or the weighted mean with weight :math:`t` (and step
        :math:`2/(\lambda(t+1))`), :math:`\tilde w^{(t)}` being the iterate after :math:`t`
        iterations, so that the final iterate weighs most.
    avg_start : int or None, default=None
        :math:`T_0`, in iterations (batches), clipped to the total :math:`T`. None: half of
        all iterations, :math:`T/2`, for ``average=True``, and 1 (every iterate, the
        Lacoste-Julien average :math:`\frac{2}{T(T+1)}\sum_t t\,\tilde w^{(t)}`) for
        ``"weighted"``.
    max_epochs : int, default=100
        Pegasos has no stopping certificate: every fit runs all epochs.
    bias_multiplier : float, default=1.0
        :math:`B \ge 0`: learn an intercept :math:`B w_b` through a constant feature of value
        :math:`B`, regularised like the other weights (VLFeat, seeds/003; the default 1.0 is
        ``LinearSVC``'s ``intercept_scaling=1``). 0: no intercept (the studies' setting).
    random_state : int, numpy Generator or None, default=None
    class_weight : dict, "balanced" or None, default=None
        As in :class:`sdca_pegasos.solvers.SDCAClassifier`: the sampled sample's step is multiplied
        by its weight, which makes each step an unbiased sub-gradient of the weighted objective.
    warm_start : bool, default=False
        Start the next ``fit`` from this fit's output ``coef_`` *and* its step counter
        ``t_`` (the first Pegasos step, at t = 1, would otherwise discard the start).
    callback : callable or None, default=None
        ``callback(info)`` with an :class:`sdca_pegasos.solvers.EpochInfo` after every epoch,
        outside the timer; ``info.w`` is the current iterate, ``info.output_w()`` the current
        output. Returning ``True`` stops the fit.
    device : {"cpu", "cuda"}, default="cpu"
        ``"cuda"``: the iterations run on the GPU (:mod:`sdca_pegasos.solvers.gpu.pegasos`), each
        batch's margins and sub-gradient in parallel; the same steps, projection and averages, and
        the same index arrays from ``random_state``. Pays for large ``batch_size`` only (a batch is
        a few kernel launches). Needs numba-cuda and a GPU; NumPy/SciPy X is copied once per fit,
        X already on the GPU (CuPy) is read there (:mod:`sdca_pegasos.solvers.gpu.device`). CSR
        batches are summed with atomics (not bit-deterministic).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    dual_coef_ : None
        Pegasos keeps no dual point.
    duality_gap_ : float or ndarray of shape (n_classes,)
        Always NaN.
    classes_ : ndarray of shape (n_classes,)
    lmbd_ : float
        The :math:`\lambda` of the fit (``1/n_samples`` when ``lmbd="auto"``); after
        ``partial_fit`` with ``lmbd="auto"``, the λ of the stream: ``1/n`` of its first call's
        rows (or of the ``fit`` it continues), kept by every later call.
    n_epochs_ : int or ndarray of shape (n_classes,)
        Epochs run (always ``max_epochs``; 1 per ``partial_fit``); ``n_iter_`` the largest.
    t_ : int or ndarray of shape (n_classes,)
        Iterations made since the first fit of a warm-started or ``partial_fit`` sequence:
        the next iteration's step is :math:`1/(\lambda (t_ + 1))`.
    converged_ : bool or ndarray of shape (n_classes,)
        Always False (no stopping test).
    epoch_times_, epoch_wall_times_ : ndarray of shape (n_epochs_,), or a list of them
        CPU (``time.process_time``) and wall seconds of each epoch's update loop.
    setup_time_ : float or ndarray of shape (n_classes,)
        CPU seconds of the squared row norms (only with ``projection`` and ``batch_size=1``).
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in BaseLinearSVM._parameter_constraints.items() if k != "tol"},
        "loss": [StrOptions({"hinge", "smooth_hinge", "squared_hinge"})],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "sampling": [
            StrOptions(
                set(SAMPLINGS) | set(DEPRECATED_SAMPLINGS["PegasosClassifier"]),
                deprecated=set(DEPRECATED_SAMPLINGS["PegasosClassifier"]),
            )
        ],
        "projection": ["boolean"],
        "average": ["boolean", StrOptions({"weighted"})],
        "avg_start": [Interval(Integral, 0, None, closed="left"), None],
        **DEVICE_CONSTRAINT,
    }

    _has_dual = False
    _supports_sparse = True

    def _gpu_fit(self, problem: Problem, data):
        """One binary problem on the device: :class:`~sdca_pegasos.solvers.gpu.pegasos.
        GPUPegasosEngine` driven by the one fit loop with the CPU's settings."""
        from sdca_pegasos.solvers.driver.loop import run
        from sdca_pegasos.solvers.gpu.pegasos import GPUPegasosEngine

        start, t0 = self._iteration_counts(problem)
        mode = self._mode()
        engine = GPUPegasosEngine(
            problem,
            data,
            np.random.default_rng(self.random_state),
            loss=self.loss_function,
            batch_size=int(self.batch_size),
            average=mode != LAST,
            weighted=mode == WEIGHTED,
            projection=bool(self.projection),
            sampling=resolve_sampling("PegasosClassifier", self.sampling),
            start=start,
            t0=t0,
        )
        return run(engine, self._settings(problem, ", device='cuda'"))

    def __init__(
        self,
        lmbd="auto",
        *,
        loss="hinge",
        gamma=1.0,
        batch_size=1,
        sampling="iid",
        projection=False,
        average=False,
        avg_start=None,
        max_epochs=100,
        bias_multiplier=1.0,
        random_state=None,
        class_weight=None,
        warm_start=False,
        callback=None,
        device="cpu",
    ):
        self.lmbd = lmbd
        self.loss = loss
        self.gamma = gamma
        self.batch_size = batch_size
        self.sampling = sampling
        self.projection = projection
        self.average = average
        self.avg_start = avg_start
        self.max_epochs = max_epochs
        self.bias_multiplier = bias_multiplier
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.callback = callback
        self.device = device

    def _mode(self) -> int:
        if self.average == "weighted":
            return WEIGHTED
        return UNIFORM if self.average else LAST

    def _kernel_key(self) -> tuple:
        return (self.batch_size == 1, self.device)

    def _warm_up_overrides(self) -> dict:
        # any k > 1 calls the batch kernel; 3 also exercises a smaller last batch of 8
        return {"avg_start": None, "batch_size": min(self.batch_size, 3)}

    def _check_params(self) -> None:
        resolve_sampling("PegasosClassifier", self.sampling, warn=True)

    def _check_problem(self, problem: Problem) -> None:
        if self.batch_size > problem.n_samples:
            raise ValueError(f"batch_size={self.batch_size} exceeds n_samples={problem.n_samples}")

    def _iteration_counts(self, problem: Problem) -> tuple[int, int]:
        """(iterations before this fit, the first averaged iteration T_0), both counted
        since the first fit of a warm-started sequence (``avg_start``'s meaning)."""
        iters = -(-problem.n_samples // int(self.batch_size))
        total = problem.epochs * iters
        if self.avg_start is not None:
            t0 = min(int(self.avg_start), total)
        else:
            t0 = 1 if self._mode() == WEIGHTED else total // 2
        start = 0 if problem.init is None else problem.init.iterations
        return start, start + t0

    def _engine(self, problem: Problem, rng: np.random.Generator) -> PegasosEngine:
        start, t0 = self._iteration_counts(problem)
        return PegasosEngine(
            problem,
            rng,
            loss=self.loss_function,
            batch_size=int(self.batch_size),
            mode=self._mode(),
            projection=bool(self.projection),
            sampling=resolve_sampling("PegasosClassifier", self.sampling),
            start=start,
            t0=t0,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        r"""One pass over the given rows, from the current iterate, as ``SGDClassifier``.

        The step counter t carries across calls (the step :math:`1/(\lambda t)` goes on
        decreasing), so a stream of calls over successive chunks is one Pegasos run. With
        ``lmbd="auto"`` the stream's λ is :math:`1/n` of the first call's rows, kept by the
        later calls (``lmbd_``); a number is used as given.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            With ``device="cuda"`` also on the GPU, as ``fit`` takes it.
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class the stream will hold: required on the first call (a chunk may miss
            some), and if given later, the same.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of this chunk's samples.

        Returns
        -------
        self
        """
        first = not hasattr(self, "coef_")
        if self.average is not False:
            raise ValueError(
                f"partial_fit keeps the last iterate: average={self.average!r} is defined "
                "over the iterations of one fit. Use average=False, or fit."
            )
        if self.class_weight == "balanced":
            raise ValueError(
                "class_weight='balanced' needs every label at once: pass a dict of class "
                "weights to partial_fit, or use fit."
            )
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        X, y = self._check_X_y(X, y, reset=first, ensure_min_samples=1)
        if classes is not None:
            classes = np.unique(classes)
            if classes.shape[0] < 2:
                raise ValueError(f"classes needs at least two classes, got {classes.tolist()}")
            if not first and not np.array_equal(classes, self.classes_):
                raise ValueError(
                    f"classes={classes.tolist()} differs from the first call's "
                    f"{self.classes_.tolist()}."
                )
            self.classes_ = classes
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(
                f"y has labels {unknown.tolist()} outside classes {self.classes_.tolist()}."
            )
        targets = [np.where(y == positive, 1.0, -1.0) for positive in self._positive_classes()]
        inits = None if first else self._fitted_inits(X, self.classes_)
        weights = self._sample_weights(X, y, sample_weight)
        # "auto": the stream keeps the λ it started with (None: 1/n of this first call's rows)
        lmbd = None if first or not isinstance(self.lmbd, str) else float(self.lmbd_)
        self._fit_targets(canonical(X), y, targets, weights, 1, inits, lmbd=lmbd)
        return self
