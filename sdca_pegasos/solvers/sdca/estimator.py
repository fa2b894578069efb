r"""Stochastic Dual Coordinate Ascent (Shalev-Shwartz & Zhang, JMLR 2013) for the linear SVM.

Maximises the dual :math:`D(\alpha)` of :mod:`sdca_pegasos.solvers.core.objectives` one coordinate
at a time, keeping :math:`\tilde w = \tilde w(\alpha)` up to date. With :math:`a_i = y_i\alpha_i`
and :math:`z_i = y_i\tilde x_i^\top\tilde w`, the exact coordinate maximiser is

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

Shrinking (``shrinking=True``) is liblinear's (Hsieh et al. 2008 §3; Fan et al. 2008, appendix),
with the active set kept between epochs. With :math:`G_i = z_i - 1 + \gamma a_i`, the derivative of
:math:`-nD` along :math:`a_i`, and its projection :math:`PG_i` (:math:`\min(G_i, 0)` at :math:`a_i
= 0`, :math:`\max(G_i, 0)` at :math:`a_i = 1`, :math:`G_i` inside), the kernel records every
sample's :math:`G_i` right after its step and each pass the range :math:`[\underline m, \overline
M]` of the :math:`PG_i` before the steps. After each pass sample :math:`i` leaves the active set
when :math:`a_i = 0` and :math:`G_i > \overline M`, or :math:`a_i = 1` and :math:`G_i < \underline
m` (:math:`\overline M \le 10^{-12}`: :math:`+\infty`; :math:`\underline m \ge -10^{-12}`:
:math:`-\infty`): it sits at a bound with a margin larger than any violation of the pass. An epoch
(one call of :func:`sdca_pegasos.solvers.sdca.shrinking.shrunk_epoch`) makes passes over the active
set :math:`A`, each over the survivors of the one before — a fresh permutation of them, :math:`|A|`
i.i.d. draws among them, or them in the cyclic order — while the next pass fits in :math:`n` steps
(so the driver's per-epoch work — gap, callback — stays once per about :math:`n` steps); it ends
after the first pass whose range :math:`\overline M - \underline m` is at most a tenth of the last
full pass's, and then every sample is restored for a full pass, after which shrinking starts
afresh. The kernel draws the passes itself, from a seed the driver draws each epoch (SplitMix64 and
Lemire's exact bounded draws, :mod:`sdca_pegasos.solvers.core.sampling`), and the shrink test and
the next pass's shuffle are one loop over :math:`A`: an epoch costs :math:`O(\text{steps} \cdot
\text{nnz per row})`, with no term of order :math:`n` besides a full pass. Deviations from
liblinear, which decides *during* a pass: the gradient is the one after the sample's own step (the
test liblinear makes at the next visit), the thresholds are those of the same pass (known at its
end), and the restoring criterion is relative to the last full pass (liblinear's absolute ε is its
stopping tolerance; the stop here is the gap). The ``tol`` stop is unchanged: the gap is computed
over all samples after the epochs that call for it (:meth:`SDCAClassifier._kkt_statistic`), so it
certifies the returned pair whatever the active set (liblinear needs a final full pass because its
stopping test only sees the active set).

Sparse input
------------
For a CSR matrix the kernels (:mod:`sdca_pegasos.solvers.sdca.kernels`, written once over the
row-access layer) compile for ``(data, indices, indptr)``: the same steps on the same index
arrays, one sample at a time (no blocks of four: rows share few columns, so there is no Gram
correction to amortise), each reading and updating only the row's stored entries, so a step costs
:math:`O(\mathrm{nnz}(x_i))` for every option — averaging updates its running sums on the
same entries, shrinking needs no row. The :math:`O(d)` work is once per fit: the random
iterate's snapshot and the SGD epoch's final scaling. Same iterates as the dense kernels up
to the order of the additions.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.sampling import (
    DEPRECATED_SAMPLINGS,
    SAMPLINGS,
    epoch_indices,
    resolve_sampling,
)
from sdca_pegasos.solvers.driver.estimator import BaseLinearSVM
from sdca_pegasos.solvers.driver.loop import Engine
from sdca_pegasos.solvers.driver.problem import Problem
from sdca_pegasos.solvers.gpu.device import DEVICE_CONSTRAINT, DeviceMixin
from sdca_pegasos.solvers.sdca.finish import LIMIT as FINISH_LIMIT
from sdca_pegasos.solvers.sdca.finish import BlockFinish
from sdca_pegasos.solvers.sdca.kernels import (
    AVERAGE,
    LAST,
    RANDOM,
    Params,
    Sweep,
    sdca_epochs,
    sgd_init_epoch,
)
from sdca_pegasos.solvers.sdca.shrinking import (
    CYCLIC,
    IID,
    PERMUTATION,
    ActiveSet,
    new_active_set,
    shrinking_epochs,
)

#: Shrinking draws its passes with 32-bit bounded draws: fewer samples than this.
_SHRINKING_LIMIT = 2**32

#: A fit without a callback runs the epochs between two gap checks in one compiled call when
#: their index arrays hold at most this many samples (:meth:`SDCAEngine.draw_steps`): on small
#: problems, where the driver's turn (a kernel call, a draw, the schedule) costs as much as a
#: good part of an epoch; from n > BLOCK_SAMPLES / 2 on, every epoch is a call of its own.
#: 0: one epoch per call everywhere (the same iterates either way).
BLOCK_SAMPLES = 2**18


def _explicitly_on(option) -> bool:
    """Whether ``shrinking`` or ``finish`` is set on by name (True, not ``"auto"``)."""
    return not isinstance(option, str) and bool(option)


__all__ = ["SDCAClassifier"]


class SDCAEngine(Engine):
    """SDCA's epochs on one binary problem, for :func:`sdca_pegasos.solvers.driver.loop.run`.

    Built from plain settings: the ``loss``, the output ``mode`` (LAST, AVERAGE, RANDOM),
    the ``sampling`` ("permutation", "iid", "cyclic"), whether to ``shrink`` and ``finish``,
    ``sgd_init`` and ``avg_start`` (as :class:`SDCAClassifier`'s parameters), and the fit's
    random stream ``rng``. Its attributes are the fit's state: ``rows`` (DenseRows / CSRRows,
    squared norms filled by the timed set-up), ``sweep`` and ``params`` (the kernels'),
    ``cyclic_order``, ``active`` (the active set with shrinking, else None), ``base`` (with
    shrinking: the order of a restored active set), ``eps`` (restore
    every sample once the PG range is below it), ``steps`` (samples processed so far),
    ``swept`` (the size of the set the first epoch of the last call swept: the record's, whose
    calls are one epoch each), ``sgd_first`` (epoch 1 is the
    modified-SGD epoch), ``finish`` (the exact finish of small active sets, or None) and
    ``indices`` (the next call's epochs' index arrays, shape (k, n), or with shrinking the
    seeds of their passes, shape (k,); the SGD epoch's permutation)."""

    def __init__(
        self,
        problem: Problem,
        rng: np.random.Generator,
        *,
        loss,
        mode: int,
        sampling: str,
        shrink: bool,
        finish: bool,
        sgd_init: bool,
        avg_start: int | None,
    ):
        n, d = problem.n_samples, problem.n_features
        total = problem.epochs * n
        t0 = total // 2 if avg_start is None else min(int(avg_start), total)
        self.sgd_first = bool(sgd_init) and problem.init is None
        if self.sgd_first:
            t0 = max(t0, n)
        snap = -1
        if mode == RANDOM:  # a child stream: the index stream is the same for every output
            snap = int(rng.spawn(1)[0].integers(t0, total, endpoint=True))
        self.problem, self.rng, self.sampling, self.loss = problem, rng, sampling, loss
        self.cyclic_order = rng.permutation(n) if sampling == "cyclic" else None
        self.sweep = Sweep(
            w=np.zeros(d + 1),
            dual_coef=np.zeros(n),
            acc_w=np.zeros(d + 1 if mode else 1),
            acc_a=np.zeros(n if mode else 1),
            grad=np.full(n, np.nan) if shrink else None,
            pg_range=np.array([-np.inf, np.inf]),
        )
        self.params = Params(problem.lmbd, problem.lmbd * n, loss, mode, t0, snap)
        self.active: ActiveSet | None = None
        if shrink:
            kinds = {"permutation": PERMUTATION, "iid": IID, "cyclic": CYCLIC}
            self.active = new_active_set(n, kinds[sampling], self.cyclic_order)
            # the order a restored active set takes: an array for every sampling (one
            # specialisation of the kernel, whatever the sampling the warm-up ran)
            self.base = np.arange(n) if self.cyclic_order is None else self.cyclic_order
        self.rows = problem.rows(np.empty(n))
        self.finish = BlockFinish(problem, loss) if finish else None
        self.eps = np.inf
        self.steps = 0
        self.swept = n
        self.indices = None

    def setup(self) -> None:
        p = self.problem
        objectives.row_sq_norms(p.X, p.bias, out=self.rows.sq_norms)
        if p.init is not None:  # warm start: the last α, in the new box; w(α) for this λ
            box = self.loss.box(self.rows.weights, p.n_samples)
            a = np.clip(p.y * p.init.dual_coef, 0.0, box)
            self.sweep.dual_coef[:] = p.y * a
            self.sweep.w[:] = objectives.dual_weights(p.X, self.sweep.dual_coef, p.lmbd, p.bias)

    def draw(self, step: int) -> None:
        """The epoch's index array; with shrinking (after an SGD first epoch), the seed of the
        passes that :func:`~sdca_pegasos.solvers.sdca.shrinking.shrunk_epoch` draws (one
        int64)."""
        n = self.problem.n_samples
        if step == 1 and self.sgd_first:
            cyclic = self.sampling == "cyclic"
            self.indices = self.cyclic_order if cyclic else self.rng.permutation(n)
        else:
            self.indices = self._draw_epochs(1)

    def draw_steps(self, first: int, count: int) -> int:
        """Draw epochs ``first..`` for one compiled call, at most ``count`` and at most
        :data:`BLOCK_SAMPLES` samples' worth of index arrays: as many as :meth:`draw` would
        draw one by one, in the same order from the same stream (the stream's state is kept
        for :meth:`undraw`). None below 2, nor the SGD first epoch (a kernel of its own): 0."""
        count = min(count, BLOCK_SAMPLES // self.problem.n_samples)
        if count < 2 or (first == 1 and self.sgd_first):
            return 0
        self._stream = self.rng.bit_generator.state
        self.indices = self._draw_epochs(count)
        return count

    def undraw(self, made: int) -> None:
        """The stream as if only the first ``made`` epochs of the last :meth:`draw_steps` had
        been drawn."""
        self.rng.bit_generator.state = self._stream
        self.indices = self._draw_epochs(made)

    def _draw_epochs(self, count: int) -> np.ndarray:
        """``count`` epochs' draws, as ``count`` calls of :meth:`draw`: with shrinking their
        seeds, shape (count,) (one draw of ``count`` 64-bit integers below 2**63 is the
        ``count`` draws of one, tested); else their index arrays, shape (count, n)."""
        if self.active is not None:
            return self.rng.integers(2**63, size=count)
        n = self.problem.n_samples
        if count == 1:
            return epoch_indices(self.rng, n, self.sampling, self.cyclic_order)[None]
        indices = np.empty((count, n), dtype=np.int64)
        for j in range(count):
            indices[j] = epoch_indices(self.rng, n, self.sampling, self.cyclic_order)
        return indices

    def step(self, step: int) -> None:
        indices = self.indices
        if step == 1 and self.sgd_first:
            sgd_init_epoch(self.rows, self.sweep, self.params, indices)
            self.steps += indices.shape[0]
            snap = self.params.snap
            if self.params.mode == RANDOM and snap == self.steps:
                self.sweep.acc_w[:] = self.sweep.w  # the SGD kernel keeps no snapshot: its
                self.sweep.acc_a[:] = self.sweep.dual_coef  # last step is the snapshot
        else:
            self.steps_from(step, -np.inf)

    def steps_from(self, first: int, until: float) -> np.ndarray:
        """The drawn epochs from ``first`` in one compiled call (timed): SDCA's
        (:func:`~sdca_pegasos.solvers.sdca.kernels.sdca_epochs`) or, with shrinking, SDCA's
        with the active set's bookkeeping
        (:func:`~sdca_pegasos.solvers.sdca.shrinking.shrinking_epochs`), preceded by the
        exact finish when due and ending early after an epoch whose :meth:`statistic` is at
        most ``until``, or before an epoch the finish would precede. Returns each epoch's
        samples read (the first's with the finish's rows)."""
        count = self.indices.shape[0]
        made = np.zeros(count, dtype=np.int64)
        if self.active is None:
            self.steps += sdca_epochs(
                self.rows, self.sweep, self.params, self.indices, self.steps, made
            )
            return made
        finish, finished = self.finish, 0
        if finish is not None:  # the exact finish of a small active set, if due
            finished = finish(self)
            self.steps += finished
        done = np.array([finish is not None and finish.done])
        self.swept = int(self.active.size[0])
        epochs, self.eps = shrinking_epochs(
            self.rows,
            self.sweep,
            self.params,
            self.active,
            self.steps,
            self.indices,
            self.eps,
            self.base,
            until,
            0 if finish is None else FINISH_LIMIT,
            done,
            made,
        )
        if finish is not None:
            finish.done = bool(done[0])
        made = made[:epochs]
        self.steps += int(made.sum())
        made[0] += finished
        return made

    def statistic(self) -> float | None:
        """Shrinking: the last pass's projected-gradient range (liblinear's stopping
        statistic, free with the sweep); without shrinking: None."""
        if self.active is None:
            return None
        pg_max, pg_min = self.sweep.pg_range
        return float(pg_max - pg_min) if pg_max >= pg_min else 0.0

    def attributes(self, w_out: np.ndarray) -> dict:
        if self.finish is None:
            return {}
        return {"n_finishes_": self.finish.finishes, "finish_iterations_": self.finish.iterations}

    def record(self) -> dict:
        return {"n_active": self.swept, "n_samples_seen": self.steps}

    def current(self) -> tuple[np.ndarray, np.ndarray]:
        return self.sweep.w, self.sweep.dual_coef

    def output(self) -> tuple[np.ndarray, np.ndarray]:
        sweep, params = self.sweep, self.params
        if params.mode == AVERAGE and self.steps >= params.t0:
            count = self.steps - params.t0 + 1
            return sweep.w - sweep.acc_w / count, sweep.dual_coef - sweep.acc_a / count
        if params.mode == RANDOM and self.steps >= params.snap:
            return sweep.acc_w, sweep.acc_a
        return sweep.w, sweep.dual_coef


class SDCAClassifier(DeviceMixin, BaseLinearSVM):
    r"""Linear SVM by Stochastic Dual Coordinate Ascent (SDCA, SDCA-Perm, cyclic).

    Minimises :math:`P(w) = \frac{\lambda}{2}\|w\|^2 + \frac1n\sum_i\phi(y_i x_i^\top w)` (hinge or
    :math:`\gamma`-smoothed hinge) by exact coordinate ascent on its dual (Shalev-Shwartz & Zhang,
    JMLR 2013); see :mod:`sdca_pegasos.solvers.sdca.estimator` for the updates.

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        Regularisation :math:`\lambda > 0` (liblinear's ``C = 1/(λ n)``, see
        :func:`sdca_pegasos.solvers.core.objectives.lmbd_to_C`). ``"auto"`` (the default):
        :math:`\lambda = 1/n`, n the number of rows of X, resolved at ``fit`` (``lmbd_``):
        ``LinearSVC``'s default ``C = 1`` (with sample weights n still counts the rows: each weight
        multiplies its sample's loss, as in ``LinearSVC(C=1)``).
    loss : {"hinge", "smooth_hinge", "squared_hinge"}, default="hinge"
        :mod:`sdca_pegasos.solvers.core.losses`: the hinge, the :math:`\gamma`-smoothed hinge, or
        the squared hinge :math:`\max(0, 1 - z)^2` (``LinearSVC``'s default, the L2-SVM: its dual
        box has no upper bound and gains the diagonal term :math:`a_i^2/4`; the gap stays exact).
    gamma : float, default=1.0
        Smoothing :math:`\gamma \ge 0` of ``smooth_hinge`` (ignored by the other losses;
        ``gamma=0`` is the hinge).
    sampling : {"permutation", "iid", "cyclic"}, default="permutation"
        ``permutation``: a new permutation each epoch (SDCA-Perm); ``iid``: n i.i.d. uniform draws
        per epoch (the analysed SDCA); ``cyclic``: one permutation drawn once, repeated (the
        vocabulary of every solver: :mod:`sdca_pegasos.solvers.core.sampling`). The old spellings
        ``"perm"`` and ``"random"`` still work for one release, with a ``FutureWarning``, and give
        the same results.
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
    shrinking : bool or "auto", default="auto"
        Sweep only an *active set* of samples: those not held at a dual bound by their gradient
        (liblinear's rule; see :mod:`sdca_pegasos.solvers.sdca.estimator`). A shrunk epoch makes
        passes over the active set A, shrinking it after each, for at most n steps — fresh
        permutations of it (``permutation``), |A| i.i.d. draws among it each (``iid``; only samples
        drawn since the last shrink can leave), or A in the fixed cyclic order (``cyclic``) — and
        ends early once A's problem is solved, after which every sample gets a full pass. The first
        epoch is full. With ``tol``, the exact gap (over all samples) is computed only when the
        last pass's projected-gradient range predicts it below ``tol`` (at least every 8 epochs,
        and for the returned pair): the certificate stays exact, paid for rarely. Needs
        ``average=False`` (the averaged and random-iterate outputs are defined over the uniform
        sweeps of SDCA's analysis, which shrinking replaces). ``"auto"`` (the default): on wherever
        it can be, i.e. with ``device="cpu"``, ``average=False`` and fewer than 2**32 samples, else
        off (the GPU has no shrinking); ``shrinking_`` says which. On by default: measured to take
        far fewer epochs to the default ``tol`` (``benchmarks/defaults.py``; docs/scikit-learn.md,
        "Defaults"). The studies' experiments and figures pass ``shrinking=False``: every epoch of
        theirs sweeps all n samples.
    finish : bool or "auto", default="auto"
        With shrinking: once per shrinking phase, when the active set has at most 64 samples,
        solve the box QP of their dual coordinates exactly, the others fixed (an active-set method
        on the block's Gram matrix that also takes the degenerate faces coordinate ascent crawls
        along; :mod:`sdca_pegasos.solvers.sdca.finish`), before the sweeps go on; timed with the
        epoch. Same certificate; pays where the last active samples are coupled near-duplicates
        (``benchmarks/shrinking.py`` measures it) or carry very unequal weights. ``"auto"`` (the
        default): on whenever shrinking is (``finish_`` says which); ``True`` needs shrinking.
        Measured by ``benchmarks/defaults.py`` (docs/scikit-learn.md, "Defaults"), against
        shrinking alone, on its problems. The studies' experiments pass ``finish=False``.
    max_epochs : int, default=1000
        At most this many epochs (``LinearSVC``'s ``max_iter=1000``; at λ = 1/n plain SDCA
        needs a few hundred to reach ``tol=1e-5`` on standardised data).
    tol : float or None, default=1e-5
        Stop when the exact duality gap :math:`P(w(\alpha)) - D(\alpha)` is at most ``tol``
        (read as ``tol_gap`` says), computed outside the timer after the epochs the fit loop's
        check schedule picks (those where it can stop the fit, at least every
        :data:`sdca_pegasos.solvers.driver.loop.GAP_CHECK_EVERY`-th:
        :class:`sdca_pegasos.solvers.driver.loop.CheckSchedule`), and always for the returned
        pair. ``0`` or ``None``: run all epochs and compute no gap at all (``duality_gap_`` is
        then NaN; see :meth:`duality_gap`).
    tol_gap : {"relative", "absolute", "warn"}, default="warn"
        How ``tol`` bounds the gap. ``"relative"``: :math:`(P - D)/|P| \le` ``tol``, the reading
        of :class:`~sdca_pegasos.solvers.DaskSVMClassifier` and
        :class:`~sdca_pegasos.solvers.ExactSVMClassifier`, and this estimator's default from
        release 0.2 (it means the same precision whatever the objective's scale: class weights,
        sample weights or a separable problem's tiny P). ``"absolute"``: :math:`P - D \le`
        ``tol``, this estimator's reading until then; removed in 0.3. ``"warn"`` (the default
        of this release): the absolute reading, with a ``FutureWarning`` when the relative one
        would have ended the fit at another epoch (README, "Stopping").
    bias_multiplier : float, default=1.0
        :math:`B \ge 0`: learn an intercept through a constant feature of value :math:`B`
        (regularised like the other weights, as in VLFeat): the default 1.0 is
        ``LinearSVC``'s intercept (``intercept_scaling=1``, regularised too). 0: no
        intercept (the studies' setting).
    random_state : int, numpy Generator or None, default=None
        Seed of ``numpy.random.default_rng``, the only source of randomness (each binary
        problem of a one-vs-rest fit starts from it).
    class_weight : dict, "balanced" or None, default=None
        scikit-learn's meaning: class ``c``'s samples weigh ``class_weight[c]`` (``"balanced"``:
        ``n_samples / (n_classes * count(c))``, counts weighted by ``sample_weight``), times
        ``sample_weight``. In one-vs-rest the
        positive class of each problem gets its weight and the rest 1, as in ``LinearSVC``.
    warm_start : bool, default=False
        Start the next ``fit`` from this fit's dual point (same samples, same classes):
        α is kept (clipped to the new box if the weights or the loss changed) and
        :math:`\tilde w(\alpha)` recomputed for the new ``lmbd``. On the hinge the box does
        not depend on λ, so a decreasing λ sequence starts each fit close to its optimum
        (:func:`sdca_pegasos.solvers.lambda_path`). ``sgd_init`` applies to cold starts only.
    callback : callable or None, default=None
        Called as ``callback(info)`` with an :class:`sdca_pegasos.solvers.EpochInfo` after every
        epoch, after the epoch's clock has stopped; returning ``True`` stops the fit. With a
        callback every epoch is a call of its own (see ``epoch_times_``).
    device : {"cpu", "cuda"}, default="cpu"
        ``"cuda"``: the epochs run on the GPU (:mod:`sdca_pegasos.solvers.gpu.sdca`: block-local
        SDCA rounds combined by an exact line search, the certificate computed on the device),
        needs numba-cuda (``pip install 'sdca-pegasos[gpu]'``) and a GPU. NumPy/SciPy X is copied
        to the device once per fit; X already on the GPU (CuPy, ``cupyx.scipy.sparse`` CSR) is
        validated and read there, never copied to the host
        (:mod:`sdca_pegasos.solvers.gpu.device`). The blocks of a round share one buffer of
        updates through atomics, so a fit on a GPU is not bit-deterministic (its certificate is
        exact all the same; dense fits are with ``sdca_pegasos.solvers.gpu.sdca.DENSE_PRIVATE``,
        which is slower). On large dense problems at small λ the GPU rounds converge slowly (a
        known limit,
        :mod:`sdca_pegasos.solvers.gpu.sdca`); CSR is where the GPU pays (README, "On a GPU").
        For dense data with ``loss="squared_hinge"`` or ``"smooth_hinge"`` use
        :class:`sdca_pegasos.solvers.gpu.newton.NewtonSVMClassifier` ``(device="cuda")``, a
        primal Newton method certified the same way (its own estimator: not SDCA).
        ``epoch_times_`` are then GPU seconds of the update kernels (CUDA events). Supports every
        loss, sample and class weights, the bias, warm starts and ``sampling`` "permutation" /
        "cyclic"; not ``"iid"``, ``sgd_init``, ``average``, ``shrinking=True`` or
        ``finish=True`` (a ValueError says so; their default ``"auto"`` is off on the GPU).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights (scikit-learn's shapes: one row for two classes, one per class otherwise).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        :math:`B w_b`; zero when ``bias_multiplier=0``.
    dual_coef_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Signed dual variables :math:`\alpha_i`, with :math:`y_i\alpha_i \in [0, c_iU]`
        (``y`` in ±1, +1 for ``classes_[1]`` or the row's class; :math:`c_i` the sample
        weights, :math:`U = 1`, or :math:`\infty` for the squared
        hinge), matching ``coef_``.
    classes_ : ndarray of shape (n_classes,)
    lmbd_ : float
        The :math:`\lambda` of the fit (``1/n_samples`` when ``lmbd="auto"``).
    n_epochs_ : int or ndarray of shape (n_classes,)
        Epochs run (``n_iter_``: the largest).
    duality_gap_ : float or ndarray of shape (n_classes,)
        Gap of the returned pair when ``tol > 0``, else NaN.
    converged_ : bool or ndarray of shape (n_classes,)
    epoch_times_ : ndarray of shape (n_epochs_,), or a list of them (one per class)
        CPU seconds (``time.process_time``) of the update loop of each epoch. Without a
        ``callback``, the epochs between two gap checks of a small problem run in one compiled
        call (:data:`sdca_pegasos.solvers.sdca.estimator.BLOCK_SAMPLES`; the same iterates):
        each then gets the call's seconds in proportion to the samples it read, and their sum
        is the call's. With a callback every epoch is measured alone.
    epoch_wall_times_ : ndarray of shape (n_epochs_,), or a list of them
    setup_time_, setup_wall_time_ : float or ndarray of shape (n_classes,)
        CPU and wall seconds of the per-fit precomputation (squared norms; w(α) of a warm
        start), before epoch 1.
    shrinking_, finish_ : bool
        Whether the fit shrank its active set and made exact finishes (what ``"auto"``
        resolved to).
    n_finishes_, finish_iterations_ : int or ndarray of shape (n_classes,)
        With the finish only (``finish_``): the finishes made, and their active-set iterations
        in all.
    """

    _parameter_constraints: dict = {
        **BaseLinearSVM._parameter_constraints,
        "loss": [StrOptions({"hinge", "smooth_hinge", "squared_hinge"})],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "sampling": [
            StrOptions(
                set(SAMPLINGS) | set(DEPRECATED_SAMPLINGS["SDCAClassifier"]),
                deprecated=set(DEPRECATED_SAMPLINGS["SDCAClassifier"]),
            )
        ],
        "sgd_init": ["boolean"],
        "average": ["boolean", StrOptions({"random"})],
        "avg_start": [Interval(Integral, 0, None, closed="left"), None],
        "shrinking": ["boolean", StrOptions({"auto"})],
        "finish": ["boolean", StrOptions({"auto"})],
        **DEVICE_CONSTRAINT,
    }

    _supports_sparse = True

    def _gpu_fit(self, problem: Problem, data):
        """One binary problem on the device: :class:`~sdca_pegasos.solvers.gpu.sdca.
        GPUSDCAEngine` driven by the one fit loop with the CPU's settings."""
        from sdca_pegasos.solvers.driver.loop import run
        from sdca_pegasos.solvers.gpu.sdca import GPUSDCAEngine

        engine = GPUSDCAEngine(
            problem,
            data,
            np.random.default_rng(self.random_state),
            loss=self.loss_function,
            cyclic=self._sampling() == "cyclic",
        )
        return run(engine, self._settings(problem, ", device='cuda'"))

    def __init__(
        self,
        lmbd="auto",
        *,
        loss="hinge",
        gamma=1.0,
        sampling="permutation",
        sgd_init=False,
        average=False,
        avg_start=None,
        shrinking="auto",
        finish="auto",
        max_epochs=1000,
        tol=1e-5,
        tol_gap="warn",
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
        self.sampling = sampling
        self.sgd_init = sgd_init
        self.average = average
        self.avg_start = avg_start
        self.shrinking = shrinking
        self.finish = finish
        self.max_epochs = max_epochs
        self.tol = tol
        self.tol_gap = tol_gap
        self.bias_multiplier = bias_multiplier
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.callback = callback
        self.device = device

    def _gpu_unsupported(self) -> list[str]:
        bad = {
            "sampling='iid'": self._sampling() == "iid",
            "sgd_init=True": bool(self.sgd_init),
            f"average={self.average!r}": self.average is not False,
            "shrinking=True": _explicitly_on(self.shrinking),
            "finish=True": _explicitly_on(self.finish),
        }
        return [name for name, refused in bad.items() if refused]

    def _shrinks(self, n_samples: int) -> bool:
        """Whether a fit of ``n_samples`` samples shrinks: ``shrinking`` itself, or, for
        ``"auto"``, whether it can (``device="cpu"``, ``average=False``, fewer than 2**32
        samples)."""
        if not isinstance(self.shrinking, str):
            return bool(self.shrinking)
        return self.device == "cpu" and self.average is False and n_samples < _SHRINKING_LIMIT

    def _finishes(self, n_samples: int) -> bool:
        """Whether a fit of ``n_samples`` samples makes exact finishes: ``finish`` itself, or,
        for ``"auto"``, whether it shrinks."""
        if not isinstance(self.finish, str):
            return bool(self.finish)
        return self._shrinks(n_samples)

    def _sampling(self) -> str:
        """``sampling`` in the current vocabulary (a deprecated spelling translated)."""
        return resolve_sampling("SDCAClassifier", self.sampling)

    def _mode(self) -> int:
        if self.average == "random":
            return RANDOM
        return AVERAGE if self.average else LAST

    def _kernel_key(self) -> tuple:
        # "auto" resolved for a problem below 2**32 samples (beyond, the plain kernels would
        # compile in the first timed epoch: no problem of that size fits in memory anyway)
        return (bool(self.sgd_init), self._shrinks(1), self.device)

    def _fit_targets(self, X, y, targets, sample_weight, epochs, inits, **options) -> None:
        super()._fit_targets(X, y, targets, sample_weight, epochs, inits, **options)
        self.shrinking_ = self._shrinks(X.shape[0])
        self.finish_ = self._finishes(X.shape[0])

    def _check_params(self) -> None:
        resolve_sampling("SDCAClassifier", self.sampling, warn=True)

    def _check_problem(self, problem: Problem) -> None:
        n = problem.n_samples
        if self._finishes(n) and not self._shrinks(n):  # finish=True, shrinking off
            if isinstance(self.shrinking, str):
                why = (
                    f"average={self.average!r}"
                    if self.average is not False
                    else f"{n} samples, more than 2**32 - 1"
                )
                raise ValueError(
                    f"finish=True needs shrinking=True, and shrinking='auto' is off here "
                    f"({why}): the exact finish runs when a shrunk phase has solved its active "
                    "set. Pass finish='auto' or finish=False."
                )
            raise ValueError(
                "finish=True needs shrinking=True: the exact finish runs when a shrunk phase "
                "has solved its active set. Pass shrinking=True as well, or finish=False."
            )
        if _explicitly_on(self.shrinking) and self.average is not False:
            raise ValueError(
                f"shrinking=True needs average=False (got average={self.average!r}): the "
                "averaged and random-iterate outputs are defined over SDCA's uniform sweeps, "
                "which shrinking replaces. Pass shrinking=False to average."
            )
        if _explicitly_on(self.shrinking) and n >= _SHRINKING_LIMIT:
            raise ValueError(
                "shrinking=True draws its passes with 32-bit bounded draws "
                "(sdca_pegasos.solvers.core.sampling.uniform_below): at most 2**32 - 1 samples, "
                f"got {n}. Pass shrinking=False (or 'auto')."
            )

    def _warm_up_overrides(self) -> dict:
        return {"avg_start": None}

    def _engine(self, problem: Problem, rng: np.random.Generator) -> SDCAEngine:
        n = problem.n_samples
        return SDCAEngine(
            problem,
            rng,
            loss=self.loss_function,
            mode=self._mode(),
            sampling=self._sampling(),
            shrink=self._shrinks(n),
            finish=self._finishes(n),
            sgd_init=bool(self.sgd_init),
            avg_start=self.avg_start,
        )
