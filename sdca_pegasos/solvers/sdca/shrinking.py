r"""SDCA's epoch with shrinking (:func:`shrunk_epoch`): passes over an active set that shrinks
after each, liblinear's rule (Hsieh et al. 2008 §3), each pass
:func:`sdca_pegasos.solvers.sdca.kernels. sdca_sweep`; the shrink and the next pass's draw are one
loop over the active set (:func:`_next_pass`), so an epoch costs what it sweeps. The driver is
:mod:`sdca_pegasos.solvers.sdca.estimator`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.core.rows import FASTMATH, weight_of
from sdca_pegasos.solvers.core.sampling import uniform_below
from sdca_pegasos.solvers.sdca.kernels import sdca_sweep

#: Shrinking restores every sample once the active set's projected-gradient range is below
#: this fraction of the range of the last full pass.
UNSHRINK_RATIO = 0.1

#: Projected gradients within this of 0 count as 0 in the shrinking thresholds (liblinear's
#: constant): an interior coordinate's gradient is 0 up to rounding after its own step.
PG_ZERO = 1e-12

#: How a shrinking epoch orders each pass over the active set (:class:`ActiveSet`).
PERMUTATION, IID, CYCLIC = 0, 1, 2


class ActiveSet(NamedTuple):
    """The active set of a shrinking fit, as :func:`shrunk_epoch` takes it (in place).

    Attributes
    ----------
    samples : ndarray of shape (n_samples,), int64
        ``samples[:size[0]]`` are the active samples, in their base order (0..n-1, or the
        cyclic order): the survivors of each shrink are compacted to the front in order.
    order : ndarray of shape (n_samples,), int64, out
        The epoch's steps, pass after pass: its first ``steps`` entries (the number
        :func:`shrunk_epoch` returns) are the samples it visited, in order.
    size : ndarray of shape (1,), int64, in/out
        The number of active samples.
    sampling : int
        :data:`PERMUTATION` (each pass a fresh random permutation of the active samples),
        :data:`IID` (as many i.i.d. uniform draws among them) or :data:`CYCLIC` (them, in
        their base order).
    """

    samples: np.ndarray
    order: np.ndarray
    size: np.ndarray
    sampling: int


@njit(cache=True, fastmath=FASTMATH)
def _next_pass(rows, sweep, loss, active, m, start, shrink, draw, state):
    """The shrink after a pass and the draw of the next one, in one loop over the active set.

    With ``shrink``, every sample of ``samples[:m]`` held at a bound by its gradient leaves
    (:func:`sdca_pegasos.solvers.core.losses.stays_active`; G_i from ``sweep.grad``, NaN: unknown,
    never removed), against the thresholds of the pass just made (``sweep.pg_range``, a projected
    gradient within ``PG_ZERO`` of 0 counting as 0); the survivors are compacted to the front in
    order and, for i.i.d. passes, their gradients forgotten (NaN: the next pass may not visit them
    all). With ``draw``, the next pass is written to ``order[start:start + k]``: a permutation of
    the k survivors (Durstenfeld's "inside-out" Fisher–Yates, built as they are found), k i.i.d.
    draws among them, or them in order. Returns ``(k, state)``, the generator's state
    (:func:`sdca_pegasos.solvers.core.sampling.uniform_below`) advanced."""
    samples, order, sampling = active.samples, active.order, active.sampling
    y, dual_coef, grad = rows.y, sweep.dual_coef, sweep.grad
    upper = sweep.pg_range[0] if sweep.pg_range[0] > PG_ZERO else np.inf
    lower = sweep.pg_range[1] if sweep.pg_range[1] < -PG_ZERO else -np.inf
    k = 0
    for p in range(m):
        i = samples[p]
        if shrink:
            c = weight_of(rows.weights, i)
            if not losses.stays_active(loss, y[i] * dual_coef[i], grad[i], upper, lower, c):
                continue
            if sampling == IID:
                grad[i] = np.nan
        samples[k] = i
        if draw and sampling == PERMUTATION:  # order[start:start + k + 1], uniformly shuffled
            state, j = uniform_below(state, k + 1)
            order[start + k] = order[start + j]
            order[start + j] = i
        elif draw and sampling == CYCLIC:
            order[start + k] = i
        k += 1
    if draw and sampling == IID:
        for p in range(k):
            state, j = uniform_below(state, k)
            order[start + p] = samples[j]
    return k, state


@njit(cache=True, fastmath=FASTMATH)
def shrunk_epoch(rows, sweep, params, active, t_start, seed, eps_stop):
    """One epoch of SDCA with shrinking: passes over the active set, each shrinking it.

    Each pass sweeps the active set in the order :class:`ActiveSet` ``sampling`` asks for (drawn
    here from ``seed``, :func:`sdca_pegasos.solvers.core.sampling.splitmix64`), records every
    sample's gradient after its step (``sweep.grad``) and the pass's projected-gradient range
    (``sweep.pg_range``); then the samples that range shows held at a bound leave, and the next
    pass is drawn over the survivors in the same loop (:func:`_next_pass`). The epoch ends after
    the first pass whose range is at most ``eps_stop`` (the active problem is solved: the caller
    restores every sample), when no sample is left, or when the next pass might take the epoch past
    n steps (the last shrink is still made). Costs O(steps · nnz per row + passes · |A|), nothing
    of order n unless |A| is. Returns the number of steps; ``active.order[:steps]`` holds them,
    ``active.size`` the active set's new size. Other arguments as in :func:`sdca_epoch`; ``seed`` :
    int."""
    budget = active.samples.shape[0]
    m = active.size[0]
    _, state = _next_pass(rows, sweep, params.loss, active, m, 0, False, True, np.uint64(seed))
    done = 0
    while True:
        sdca_sweep(rows, sweep, params, active.order[done : done + m], t_start + done)
        done += m
        if sweep.pg_range[0] - sweep.pg_range[1] <= eps_stop:
            break
        fits = done + m <= budget
        m, state = _next_pass(rows, sweep, params.loss, active, m, done, True, fits, state)
        if m == 0 or not fits:
            break
    active.size[0] = m
    return done


def new_active_set(n: int, sampling: int, base: np.ndarray | None = None) -> ActiveSet:
    """Every one of ``n`` samples active, in ``base`` order (a copy; None: 0..n-1)."""
    samples = np.arange(n) if base is None else base.copy()
    return ActiveSet(samples, np.empty(n, dtype=np.int64), np.array([n]), sampling)


@njit(cache=True)  # no fast-math: eps and the statistic compare as the driver's floats (NaN too)
def shrinking_epochs(
    rows, sweep, params, active, t_start, seeds, eps, base, until, finish_at, finish_done, made
):  # fmt: skip
    """Epochs of SDCA with shrinking in one call, as that many calls of
    :func:`shrinking_epoch` make them: epoch j is :func:`shrunk_epoch` from ``seeds[j]``, then
    the active set's bookkeeping.

    An epoch from a full active set is a full pass first (its projected-gradient range sets
    ``eps``, a tenth of it, the precision of the shrunk phase that follows); a shrunk epoch
    stops once the active set's range is at most ``eps``. When that happens, or no sample is
    left, every sample is restored (in ``base`` order, as :func:`new_active_set`; None:
    0..n-1) and the gradients forgotten: a full pass comes next. ``sweep.grad`` must be an
    array (NaN: unknown).

    The call ends early, so that the driver can do what comes between two epochs:

    - after an epoch whose statistic, the last pass's range ``max PG - min PG`` (0 when
      empty; :meth:`sdca_pegasos.solvers.sdca.estimator.SDCAEngine.statistic`), is at most
      ``until`` (-inf: never): the driver's gap check is then due
      (:class:`sdca_pegasos.solvers.driver.loop.CheckSchedule`);
    - before an epoch other than the first that the exact finish would precede
      (:class:`sdca_pegasos.solvers.sdca.finish.BlockFinish`): its active set has 1 to
      ``finish_at`` samples, fewer than n, and this shrinking phase has had no finish
      (``finish_done[0]``, in/out, cleared by a full active set as the finish clears it).
      ``finish_at = 0``: no finish.

    Parameters
    ----------
    seeds : (k,) int64
        Each epoch's seed, drawn by the driver.
    eps : float
        The shrunk phase's precision before the first epoch.
    made : (k,) int64, out
        The steps each epoch made (its first entries, one per epoch made).

    Returns ``(epochs, eps)``: the epochs made and the threshold for the next one. Other
    arguments as in :func:`shrunk_epoch`.
    """
    n = active.samples.shape[0]
    epochs = 0
    for j in range(seeds.shape[0]):
        m = active.size[0]
        if j > 0 and m == n:
            finish_done[0] = False
        elif j > 0 and not finish_done[0] and 0 < m <= finish_at:
            break
        full = m == n
        steps = shrunk_epoch(
            rows, sweep, params, active, t_start, seeds[j], -np.inf if full else eps
        )
        t_start += steps
        made[j] = steps
        epochs += 1
        pg_max, pg_min = sweep.pg_range[0], sweep.pg_range[1]
        if full:  # a full pass sets the precision of the next shrunk phase
            eps = UNSHRINK_RATIO * (pg_max - pg_min)
        if active.size[0] == 0 or (not full and pg_max - pg_min <= eps):
            # every sample at a bound, or the active problem solved: a full pass next
            if base is None:
                active.samples[:] = np.arange(n)
            else:
                active.samples[:] = base
            active.size[0] = n
            sweep.grad[:] = np.nan  # gradients from before the full pass are stale
        statistic = pg_max - pg_min if pg_max >= pg_min else 0.0
        if statistic <= until:
            break
    return epochs, eps


def shrinking_epoch(rows, sweep, params, active, t_start, seed, eps, base=None):
    """One epoch of SDCA with shrinking and the active set's bookkeeping after it, as
    ``SDCAClassifier(shrinking=True)`` makes each epoch and ``DaskSVMClassifier(shrinking=
    True)`` each local pass (:mod:`sdca_pegasos.solvers.sdca.estimator`, "shrinking"):
    :func:`shrinking_epochs` with the one ``seed`` (int), no finish and no early end.
    Returns ``(steps, eps)``: the steps made, the threshold for the next epoch.
    """
    made = np.zeros(1, dtype=np.int64)
    seeds = np.array([seed], dtype=np.int64)
    done = np.zeros(1, dtype=np.bool_)
    _, eps = shrinking_epochs(
        rows, sweep, params, active, t_start, seeds, eps, base, -np.inf, 0, done, made
    )
    return int(made[0]), eps
