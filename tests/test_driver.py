"""The one fit loop (sdca_pegasos.solvers.driver.loop): its check schedule, the certificate of
the returned pair for every engine, and the stop it makes against a gap after every epoch."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from sdca_pegasos import data
from sdca_pegasos.solvers import ASDCAClassifier, SDCAClassifier
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.driver.loop import (
    GAP_CHECK_EVERY,
    NEAR,
    Bounds,
    CheckSchedule,
    Engine,
    Settings,
    run,
)
from sdca_pegasos.solvers.driver.problem import Problem

from .conftest import gaussian_problem


def _checks(schedule: CheckSchedule, gaps: dict, steps: int) -> list[int]:
    """The steps ``schedule`` checks when step k's gap is ``gaps[k]`` (no statistic)."""
    made = []
    for k in range(1, steps + 1):
        if schedule.due(k, None):
            made.append(k)
            if schedule.checked(k, Bounds(1.0, 1.0 - gaps[k], gaps[k]), None):
                break
    return made


# ------------------------------------------------------------------ the schedule
def test_without_a_statistic_the_log_gap_is_extrapolated_half_way():
    """Steps 1 and 2 are checked (a line needs two points); then half way to the step where
    the line through the last two checks reaches NEAR·tol, at least every GAP_CHECK_EVERY
    steps; within NEAR·tol, every step."""
    tol = 1e-6
    gaps = {k: 10.0 ** (-k / 4) for k in range(1, 200)}  # a decade every 4 steps
    made = _checks(CheckSchedule(tol), gaps, 199)
    assert made[:2] == [1, 2]
    # from step 2 (gap 10^-0.5), NEAR·tol = 2e-6 is reached after 4·log10(10^-0.5/2e-6)
    # = 21.6 steps: half way is 10.8, capped at GAP_CHECK_EVERY
    assert made[2] == 2 + GAP_CHECK_EVERY
    first_below = min(k for k, g in gaps.items() if g <= tol)
    assert made[-1] == first_below == 24  # the stop of a check after every step
    assert len(made) < first_below / 2, made
    near = [k for k in made if gaps[k] <= NEAR * tol]
    assert near == list(range(near[0], first_below + 1))  # every step once near


def test_a_gap_that_does_not_fall_is_checked_every_step():
    """No progress between the last two checks (or a gap of 0): nothing to extrapolate, so
    every step is checked."""
    schedule = CheckSchedule(1e-6)
    schedule.checked(1, Bounds(1.0, 0.9, 0.1), None)
    schedule.checked(2, Bounds(1.0, 0.85, 0.15), None)
    assert schedule.due(3, None)
    zero = CheckSchedule(1e-6)
    zero.checked(1, Bounds(1.0, 1.0, 0.0), None)
    assert zero.due(2, None)
    flat = CheckSchedule(1e-6)  # two checks with the very same gap: no line, no division
    flat.checked(1, Bounds(1.0, 0.9, 0.1), None)
    flat.checked(2, Bounds(1.0, 0.9, 0.1), None)
    assert flat.due(3, None)


def test_the_line_runs_per_step_between_checks_steps_apart():
    """Checks at steps 2 and 6 (gaps 1e-1 and 1e-2): the log-gap falls ln(10)/4 a step, so
    NEAR·tol = 2e-6 is 4·log10(1e-2/2e-6) = 14.8 steps past step 6, and the next check is half
    way, the first step at least 7.4 past it: step 14 (``every`` out of the way)."""
    schedule = CheckSchedule(1e-6, every=100)
    schedule.checked(2, Bounds(1.0, 0.9, 1e-1), None)
    schedule.checked(6, Bounds(1.0, 0.99, 1e-2), None)
    assert [k for k in range(7, 20) if schedule.due(k, None)] == list(range(14, 20))


def test_a_relative_target_follows_the_last_checks_primal():
    schedule = CheckSchedule(1e-3, relative=True)
    assert not schedule.checked(1, Bounds(10.0, 9.9, 0.1), None)  # 0.1 > 1e-3·10
    assert schedule.target == pytest.approx(1e-2)
    assert schedule.checked(2, Bounds(10.0, 9.995, 0.005), None)


# ------------------------------------------------------------------ run() on a twin
class _Twin(Engine):
    """An engine whose pair is fixed and whose step k's gap is ``gaps[k]``: what the driver
    does with the steps, the checks and the returned pair, in plain Python."""

    def __init__(self, gaps: dict, output_differs: bool = False):
        X, y = gaussian_problem(n=8, d=2, seed=0)
        self.problem = Problem(X, y, 0.1, 0.0, None, 1.0, len(gaps))
        self.gaps, self.k, self.certified = gaps, 0, []
        self.w, self.a = np.zeros(3), np.zeros(8)
        self.output_differs = output_differs

    def step(self, step):
        self.k = step

    def current(self):
        return self.w, self.a

    def output(self):
        return (self.w.copy(), self.a.copy()) if self.output_differs else (self.w, self.a)

    def certify(self, w, dual_coef, check=True):
        self.certified.append(self.k)
        gap = self.gaps[self.k] * (2.0 if w is not self.w else 1.0)  # the output's own
        return Bounds(1.0, 1.0 - gap, gap)


def test_the_returned_pair_is_certified_after_an_unchecked_last_step():
    """max_steps ending between checks: the last step is certified anyway (the returned
    pair), and an output that is not the current pair gets its own certificate."""
    gaps = {k: 10.0 ** (-k / 10) for k in range(1, 8)}  # far above tol
    engine = _Twin(gaps)
    with pytest.warns(ConvergenceWarning, match=r"duality gap 0\.2 > tol=1e-09"):
        fit = run(engine, Settings(steps=7, tol=1e-9, name="Twin"))
    assert engine.certified == [1, 2, 7] and fit.n_epochs == 7
    assert fit.duality_gap == gaps[7] and not fit.converged
    engine = _Twin(gaps, output_differs=True)
    with pytest.warns(ConvergenceWarning, match=r"returned pair 0\.399"):
        fit = run(engine, Settings(steps=7, tol=1e-9, name="Twin"))
    assert fit.duality_gap == 2 * gaps[7]


def test_a_callback_gets_every_steps_gap_on_demand():
    gaps = {k: 10.0 ** (-k) for k in range(1, 6)}
    seen = []
    engine = _Twin(gaps)

    def callback(info):
        seen.append((info.gap, info.bounds()[2]))

    run(engine, Settings(steps=5, tol=1e-12, warn=False, callback=callback))
    assert [b for _, b in seen] == [gaps[k] for k in range(1, 6)]
    assert [g for g, _ in seen][:2] == [gaps[1], gaps[2]] and seen[2][0] is None


# ------------------------------------------------------------------ every engine
def _engines():
    return [
        ("SDCA", SDCAClassifier, {"shrinking": False, "finish": False}),
        ("SDCA shrinking", SDCAClassifier, {"shrinking": True, "finish": False}),
        ("SDCA finish", SDCAClassifier, {}),
        ("SDCA averaged", SDCAClassifier, {"shrinking": False, "average": True}),
        ("ASDCA", ASDCAClassifier, {}),
        ("ASDCA averaged", ASDCAClassifier, {"average": True}),
    ]


@pytest.mark.parametrize(("name", "cls", "params"), _engines(), ids=lambda v: str(v))
def test_every_engine_certifies_the_pair_it_returns(name, cls, params):
    """Stopped by max_epochs between two checks, every engine's ``duality_gap_`` is the exact
    gap of the pair it returns, recomputed here from the fitted attributes (a driver that
    kept the last check's gap, or skipped the returned pair's, fails)."""
    X, y = gaussian_problem(n=400, d=20, seed=1)
    est = cls(lmbd=0.001, tol=1e-14, max_epochs=7, random_state=0, bias_multiplier=1.0,
              **params)  # fmt: skip
    with pytest.warns(ConvergenceWarning):
        est.fit(X, y)
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    w = objectives.full_weights(est.coef_.ravel(), est.intercept_[0], 1.0)
    exact = objectives.duality_gap(X, y_pm, w, est.dual_coef_, est.lmbd_, est.loss_function, 1.0)[
        2
    ]
    assert est.duality_gap_ == pytest.approx(exact, rel=1e-12, abs=1e-15)
    assert est.duality_gap_ > 1e-14 and not est.converged_


def _problems():
    X, y = load_breast_cancer(return_X_y=True)
    sim = data.load("simulated", seed=0)
    return {
        "cancer": (StandardScaler().fit_transform(X), y),
        "simulated": (sim.X_train, sim.y_train),
    }


@pytest.mark.slow
@pytest.mark.parametrize("tol", [1e-3, 1e-5])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("problem", ["cancer", "simulated"])
def test_plain_sdca_stops_where_a_gap_after_every_epoch_would(problem, seed, tol):
    """Plain SDCA (no statistic: the extrapolated schedule) stops at the first epoch whose
    exact gap is at most tol, the stop of a gap computed after every epoch, with fewer gaps."""
    X, y = _problems()[problem]
    every, made = [], []

    def callback(info):
        every.append(info.bounds()[2])
        made.append(info.gap is not None)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = SDCAClassifier(shrinking=False, finish=False, tol=tol, tol_gap="absolute",
                             max_epochs=600, random_state=seed,
                             callback=callback).fit(X, y)  # fmt: skip
    first = next((k for k, g in enumerate(every, 1) if g <= tol), None)
    assert est.n_epochs_ == (first if first is not None else 600)
    assert sum(made) < len(made), (sum(made), len(made))
    assert math.isclose(est.duality_gap_, every[-1], rel_tol=1e-12)
