"""Small fits without the loop's toll: the epochs between two gap checks in one compiled call.

Without a callback, the fit loop (:func:`sdca_pegasos.solvers.driver.loop.run`) hands the
epochs that no check falls between (:meth:`CheckSchedule.horizon`) to SDCA's engine in one
call (:meth:`SDCAEngine.draw_steps`, up to ``BLOCK_SAMPLES`` samples of index arrays). Its
promise: the same iterates, the same checks and the same epochs as one call per epoch, bit
for bit. The one-call-per-epoch fits here are the same fits with a callback that returns
None (the loop then makes one epoch per call, to report each) and with ``BLOCK_SAMPLES = 0``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from sdca_pegasos.solvers import SDCAClassifier
from sdca_pegasos.solvers.driver import loop
from sdca_pegasos.solvers.driver.loop import Bounds, CheckSchedule
from sdca_pegasos.solvers.sdca import estimator as sdca_estimator
from tests.conftest import gaussian_problem

N, D = 300, 8


def _data(storage: str, seed: int):
    X, y = gaussian_problem(n=N, d=D, seed=seed)
    if storage == "csr":
        X = sp.csr_matrix(np.where(np.abs(X) < 0.6, 0.0, X))
    return X, y


def _fit(X, y, monkeypatch, how: str, **params):
    """The fit, the steps its checks were made at and the epochs of each engine call
    (``how``: "blocks", "callback" or "one per call", BLOCK_SAMPLES = 0)."""
    checks, calls = [], []
    checked, steps_from = CheckSchedule.checked, sdca_estimator.SDCAEngine.steps_from

    def record_check(self, step, bounds, statistic):
        checks.append((self, step))
        return checked(self, step, bounds, statistic)

    def record_call(self, first, until):
        made = steps_from(self, first, until)
        calls.append((self, len(made)))
        return made

    with monkeypatch.context() as patch:
        patch.setattr(CheckSchedule, "checked", record_check)
        patch.setattr(sdca_estimator.SDCAEngine, "steps_from", record_call)
        if how == "one per call":
            patch.setattr(sdca_estimator, "BLOCK_SAMPLES", 0)
        callback = (lambda info: None) if how == "callback" else None
        params = {"max_epochs": 400, **params}
        est = SDCAClassifier(lmbd=1.0 / N, tol_gap="absolute", callback=callback, **params)
        est.fit(X, y)
    # the fit's own, not a warm-up's (a tiny fit before the first of its kind: fit's first)
    checks = [step for schedule, step in checks if schedule is checks[-1][0]]
    calls = [made for engine, made in calls if engine is calls[-1][0]]
    return est, checks, calls


def _assert_same_fit(a, b, what: str) -> None:
    for name in ("coef_", "intercept_", "dual_coef_", "duality_gap_", "converged_"):
        assert_array_equal(getattr(a, name), getattr(b, name), err_msg=f"{what}: {name}")
    assert a.n_iter_ == b.n_iter_, what
    assert a.epoch_times_.shape == b.epoch_times_.shape == (a.n_iter_,), what
    for name in ("n_finishes_", "finish_iterations_"):
        assert getattr(a, name, None) == getattr(b, name, None), f"{what}: {name}"


OPTIONS = {
    "shrinking + finish": {"shrinking": True, "finish": True},
    "shrinking": {"shrinking": True, "finish": False},
    "shrinking, cyclic": {"shrinking": True, "finish": False, "sampling": "cyclic"},
    "shrinking, iid, smoothed": {
        "shrinking": True, "finish": True, "sampling": "iid", "loss": "smooth_hinge",
    },
    "plain": {"shrinking": False},
    "plain, iid": {"shrinking": False, "sampling": "iid"},
    "plain, cyclic, squared": {"shrinking": False, "sampling": "cyclic", "loss": "squared_hinge"},
    "average": {"shrinking": False, "average": True},
    "random iterate": {"shrinking": False, "average": "random", "avg_start": 2 * N},
    "sgd first": {"shrinking": True, "sgd_init": True},
}  # fmt: skip


# tol 1e-6 within 400 epochs: met by the shrinking fits, not by all plain ones (then the
# returned pair's certificate comes after the last epoch, unchecked before)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("options", list(OPTIONS), ids=list(OPTIONS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_fit_in_one_call_as_one_call_per_epoch(storage, options, seed, monkeypatch):
    """Coefficients, dual point, gap, epochs and the steps of every check: the same bits
    whether the epochs between checks run in one call or one call each (a callback; no
    blocks at all), at two tolerances; and calls of several epochs did happen."""
    X, y = _data(storage, seed)
    for tol in (1e-2, 1e-6):
        params = {"tol": tol, "random_state": seed, **OPTIONS[options]}
        blocks, checks, calls = _fit(X, y, monkeypatch, "blocks", **params)
        for how in ("callback", "one per call"):
            single, single_checks, single_calls = _fit(X, y, monkeypatch, how, **params)
            what = f"{options}, {storage}, seed {seed}, tol {tol:g}: blocks vs {how}"
            _assert_same_fit(blocks, single, what)
            assert checks == single_checks, what
            assert set(single_calls) == {1}, what
        assert sum(calls) + params.get("sgd_init", False) == blocks.n_iter_
        assert max(calls) > 1, f"{options}, {storage}: no call made more than one epoch"


@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("shrinking", [True, False])
def test_same_fit_without_checks(storage, shrinking, monkeypatch):
    """tol=0 (no check at all): every epoch in calls of as many as BLOCK_SAMPLES allows,
    the same bits as one call per epoch."""
    X, y = _data(storage, 5)
    params = {"tol": 0, "max_epochs": 37, "random_state": 5, "shrinking": shrinking}
    params["finish"] = False  # a finish due would end a call early
    monkeypatch.setattr(sdca_estimator, "BLOCK_SAMPLES", 10 * N)
    blocks, checks, calls = _fit(X, y, monkeypatch, "blocks", **params)
    single, _, _ = _fit(X, y, monkeypatch, "one per call", **params)
    _assert_same_fit(blocks, single, f"tol=0, {storage}, shrinking {shrinking}")
    assert checks == [] and calls == [10, 10, 10, 7]


def test_a_large_problem_runs_one_epoch_per_call(monkeypatch):
    """Above BLOCK_SAMPLES / 2 samples every epoch is a call of its own (as before)."""
    X, y = _data("dense", 0)
    monkeypatch.setattr(sdca_estimator, "BLOCK_SAMPLES", 2 * N - 1)
    _, _, calls = _fit(X, y, monkeypatch, "blocks", tol=1e-6, random_state=0)
    assert set(calls) == {1}


def test_epoch_times_split_the_call_by_samples_read():
    """A call's seconds go to its epochs in proportion to the samples each read (equally
    when none did), and add up to the call's."""
    assert loop._split(6.0, np.array([1, 2, 3])) == [1.0, 2.0, 3.0]
    assert loop._split(1.0, np.array([0, 0])) == [0.5, 0.5]
    X, y = _data("dense", 0)
    est = SDCAClassifier(lmbd=1.0 / N, tol=1e-6, tol_gap="absolute", random_state=0).fit(X, y)
    assert est.epoch_times_.shape == (est.n_iter_,) and np.all(est.epoch_times_ >= 0.0)


@pytest.mark.parametrize(
    "bit_generator", [np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64]
)
def test_seeds_drawn_together_are_the_seeds_drawn_one_by_one(bit_generator):
    """A shrinking fit's epoch seeds drawn k at a time (a call's) are those drawn one at a
    time, whatever the user's bit generator, and the stream goes on from the same state."""
    together = np.random.Generator(bit_generator(7))
    alone = np.random.Generator(bit_generator(7))
    seeds = together.integers(2**63, size=9)
    assert_array_equal(seeds, [alone.integers(2**63, size=1)[0] for _ in range(9)])
    assert together.integers(2**63) == alone.integers(2**63)


def _schedule(checks, relative=False, tol=1e-3):
    schedule = CheckSchedule(tol, relative)
    for step, gap, statistic in checks:
        schedule.checked(step, Bounds(1.0 + gap, 1.0, gap), statistic)
    return schedule


SCHEDULES = {
    "none yet": [],
    "one check, statistic": [(1, 0.5, 2.0)],
    "two checks, statistic": [(1, 0.5, 2.0), (2, 0.1, 0.5)],
    "statistic 0": [(1, 0.5, 2.0), (2, 0.1, 0.0)],
    "gap 0": [(1, 0.5, 2.0), (2, 0.0, 0.5)],
    "one check, line": [(1, 0.5, None)],
    "line": [(1, 0.5, None), (3, 0.1, None)],
    "line, slow": [(1, 0.5, None), (2, 0.45, None)],
    "line, no progress": [(1, 0.5, None), (2, 0.6, None)],
    "line, near": [(1, 0.5, None), (4, 0.0021, None)],
}


@pytest.mark.parametrize("checks", list(SCHEDULES), ids=list(SCHEDULES))
def test_horizon_is_where_due_says(checks):
    """``horizon(step, last)`` = (end, until): :meth:`CheckSchedule.due` says no before
    ``end`` for a statistic above ``until`` and yes for one at most it, and yes at ``end``
    whatever the statistic (unless end is ``last``)."""
    for relative in (False, True):
        schedule = _schedule(SCHEDULES[checks], relative)
        statistic = any(s is not None for _, _, s in SCHEDULES[checks]) or not SCHEDULES[checks]
        step = SCHEDULES[checks][-1][0] + 1 if SCHEDULES[checks] else 1
        for last in (step, step + 3, step + 50):
            end, until = schedule.horizon(step, last, statistic)
            assert step <= end <= last
            probes = [None] if not statistic else [0.0, until, math.nextafter(until, 1.0), 9.0]
            probes = [p for p in probes if p is None or math.isfinite(p)]
            for s in range(step, end):
                for p in probes:
                    assert schedule.due(s, p) == (p is not None and p <= until), (s, p)
            if end < last:
                for p in probes + ([1e300] if statistic else []):
                    assert schedule.due(end, p), (end, p)
