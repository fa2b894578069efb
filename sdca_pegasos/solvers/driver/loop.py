r"""The one fit loop: :func:`run` drives an :class:`Engine` through one binary problem.

An engine (SDCA's, ASDCA's, Pegasos' epochs on the CPU, ...) knows its steps and its current
pair; the driver owns everything else a fit does around them, once for every engine:

- **timing**: the CPU (``time.process_time``) and wall seconds of the timed work only — the
  engine's set-up and its steps — with everything else (drawing the next step's indices, the
  gap, the callback) after the clock stops; an engine that measures its own time (a device's
  events, a cluster's blocks) returns it from the step instead;
- **the gap-check schedule** (:class:`CheckSchedule`): when a step computes the exact duality
  gap, the stopping test and the certificate;
- **steps in one call**: without a callback, the steps that no check falls between
  (:meth:`CheckSchedule.horizon`) are drawn together and made in one call where the engine
  can (:meth:`Engine.draw_steps`, SDCA's epochs on small problems), the same steps from the
  same draws as one call each; the call's seconds are split among its steps in proportion
  to their work (samples read), so each step's time is then that share, not a measurement
  of its own (a callback gets every step's own);
- **the callback record** (:class:`sdca_pegasos.solvers.driver.problem.EpochInfo`), and a
  callback's answer (:func:`~sdca_pegasos.solvers.driver.problem.stops`);
- **the divergence guard**: non-finite coefficients are refused, no model stored;
- **the certificate of the returned pair**, always (the last step's, or an averaged output's
  own), and the ``ConvergenceWarning`` of a fit that ends above ``tol``.

An engine receives plain settings (numbers, flags, its problem), never the estimator.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from sdca_pegasos.solvers.core.monitoring import EpochMetrics
from sdca_pegasos.solvers.core.runtime import caller_stacklevel
from sdca_pegasos.solvers.driver.problem import (
    BinaryFit,
    EpochInfo,
    Problem,
    stops,
    warn_unconverged,
)
from sdca_pegasos.solvers.driver.scales import max_abs

__all__ = ["GAP_CHECK_EVERY", "Bounds", "CheckSchedule", "Engine", "Settings", "Times", "run"]

#: The exact gap is computed at least every this many steps of a fit with ``tol > 0``.
GAP_CHECK_EVERY = 8
#: Without a statistic, every step is checked once the extrapolated gap is within this factor
#: of the target (a gap that wanders around its trend dips below the target first there).
NEAR = 2.0
#: The release from which ``tol`` is the relative gap in every estimator (``tol_gap``'s
#: default ``'relative'``), and the one that removes its absolute reading.
TOL_GAP_CHANGE, TOL_GAP_REMOVAL = "0.2", "0.3"


class Times(NamedTuple):
    """Seconds of a timed piece of work, as an engine that measures its own time returns
    them: ``cpu`` (CPU seconds, or a device's seconds) and ``wall``."""

    cpu: float
    wall: float


class Bounds(NamedTuple):
    """The primal P and dual D of a pair and their gap ``P - D`` (≥ 0 up to rounding)."""

    primal: float
    dual: float
    gap: float


class Engine:
    """What :func:`run` asks of an engine; defaults where an engine has nothing to add.

    ``problem`` is the :class:`~sdca_pegasos.solvers.driver.problem.Problem` it solves and
    ``has_dual`` whether it keeps a dual point (a gap, a certificate, ``tol``)."""

    problem: Problem
    has_dual: bool = True

    def setup(self) -> Times | None:
        """Per-fit precomputation, timed (None: timed by the driver)."""
        return None

    def draw(self, step: int) -> None:
        """Untimed preparation of ``step`` (its index array drawn from the fit's stream)."""

    def step(self, step: int) -> Times | None:
        """One epoch (or round): the timed work (None: timed by the driver)."""
        raise NotImplementedError

    def draw_steps(self, first: int, count: int) -> int:
        """Untimed preparation of steps ``first, first + 1, ...`` for one call of
        :meth:`steps_from`, at most ``count`` of them, drawn as :meth:`draw` would draw them
        one by one; returns how many (0: none, the default, and then the driver draws and
        makes one step)."""
        return 0

    def steps_from(self, first: int, until: float) -> np.ndarray:
        """The steps :meth:`draw_steps` prepared, from ``first``, in one call (timed by the
        driver), ending early after a step whose :meth:`statistic` is at most ``until``
        (-inf: never) or where the engine has work of its own between two steps. Returns
        each step made's share of the call's work (e.g. samples read: the driver splits the
        call's seconds in proportion), one entry per step made."""
        raise NotImplementedError

    def undraw(self, made: int) -> None:
        """After a :meth:`steps_from` that made fewer steps than were drawn: the fit's stream
        as if only the first ``made`` had been drawn."""

    def must_check(self) -> bool:
        """Whether the step just made is checked whatever the schedule (a cluster's finish,
        judged by its own check); default False."""
        return False

    def statistic(self) -> float | None:
        """A KKT statistic of the last step, free with it, that falls to 0 at the optimum
        (SDCA's projected-gradient range with shrinking), or None."""
        return None

    def current(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The current pair ``(w, dual_coef)`` (views; full w, last entry the bias weight)."""
        raise NotImplementedError

    def output(self) -> tuple[np.ndarray, np.ndarray | None]:
        """What the fit returns if it stops now (an average, a snapshot or the current pair:
        then the very arrays :meth:`current` returns)."""
        return self.current()

    def certify(self, w: np.ndarray, dual_coef: np.ndarray, check: bool = True) -> Bounds:
        """P, D and the gap of ``(w, dual_coef)`` on the problem, for the engine's ``loss``;
        ``check``: whether this is the fit's own check (an engine may then refresh its state
        from the certificate, as the GPU's resynchronises w = w(α)) or a certificate asked
        on demand, which changes nothing
        (default: the CPU passes of :func:`sdca_pegasos.solvers.core.objectives.duality_gap`,
        bit for bit, through an :class:`~sdca_pegasos.solvers.core.monitoring.EpochMetrics`
        that validates the problem's arrays once per fit instead of at every check).
        """
        metrics = getattr(self, "_metrics", None)
        if metrics is None:
            p = self.problem
            metrics = EpochMetrics(p.X, p.y, p.lmbd, self.loss, p.bias, p.sample_weight)
            self._metrics = metrics
        m = metrics(w, dual_coef)
        own = metrics.own  # the primal of the engine's loss, when it is not the hinge
        return Bounds(m["primal_smooth"] if own else m["primal"], m["dual"], m["gap"])

    def record(self) -> dict:
        """Fields of the step's :class:`EpochInfo` only the engine knows (default: every step
        swept the n samples, no active set)."""
        return {}

    def iterations(self) -> int | None:
        """Iterations made so far, a warm start's included, where the next fit continues
        the count (Pegasos' step size); None: not kept."""
        return None

    def attributes(self, w_out: np.ndarray) -> dict:
        """The engine's own fitted attributes, ``{name: value}`` (``w_out``: the returned w)."""
        return {}


@dataclass(frozen=True)
class Settings:
    """How :func:`run` drives a fit, as plain values.

    ``steps``: at most this many steps. ``tol``: stop once the certified gap is at most it
    (``relative``: at most ``tol·|P|``); 0 runs every step and computes no gap.
    ``callback``: called with each step's :class:`EpochInfo`; True stops. ``warn``: a
    ``ConvergenceWarning`` when the steps end above ``tol``; ``name`` (the estimator's) and
    ``detail`` (e.g. the class of a one-vs-rest problem) say whose, ``advice`` (sentences: why
    this fit may be slow, what to try) comes before the generic advice, which names the
    estimator's ``steps_name`` parameter; ``feature_names`` (X's
    columns', if any) go into its scaling advice. ``check_every``: the gap is computed at least
    every this many steps. ``tol_gap_warning``: ``tol`` is read as an absolute gap (not
    ``relative``) only for the deprecation period of that reading (an estimator's
    ``tol_gap='warn'``): a ``FutureWarning`` says so when the relative reading would have ended
    the fit at another step (:func:`relative_reading`; not without ``warn``)."""

    steps: int
    tol: float = 0.0
    relative: bool = False
    callback: Callable | None = None
    warn: bool = True
    name: str = "estimator"
    detail: str = ""
    advice: str = ""
    steps_name: str = "max_epochs"
    feature_names: object = None
    check_every: int = GAP_CHECK_EVERY
    tol_gap_warning: bool = False


@dataclass
class CheckSchedule:
    """When a step computes the exact duality gap: where it can stop the fit, at least every
    ``every`` steps.

    The gap is what the stop and the certificate need, and it costs a pass over the data,
    often as much as a step: a check is made when the last checks predict the gap at or below
    the target. With the engine's own KKT statistic (free with its step: SDCA's
    projected-gradient range under shrinking), the gap is assumed to shrink in proportion to
    it: after a gap g measured at statistic s₀, the next check comes once s ≤ s₀·target/g
    (liblinear's projected-gradient test, as a trigger rather than a stop). Without one, the
    log-gap of the last two checks is extrapolated linearly in the steps (the linear rate of
    coordinate ascent): the next check comes half way to the step where the line reaches
    :data:`NEAR` times the target, and from there every step is checked. A gap that falls
    faster than its line, or dips below its trend (SDCA's epoch-to-epoch gap wanders), is so
    caught at the step a check after every step would catch it: measured on 25 fits (plain
    SDCA on breast cancer, digits, a simulated draw, a sparse one and skin, tol 1e-3 to 1e-7,
    two seeds), every fit stopped at the same epoch as with a check after every epoch, with
    about half the checks (``tests/test_driver.py``).
    The first two steps are always checked (a line needs two points), and the returned pair is
    always certified (:func:`run`).

    ``tol``: the target (``relative``: relative to the last check's |P|). ``looser``: the
    checks aim at the looser of ``tol`` and ``tol·|P|`` while the stop stays ``tol`` (the
    deprecation period of the absolute reading, whose warning needs where each reading
    stops: every step is checked from near the first of the two)."""

    tol: float
    relative: bool = False
    every: int = GAP_CHECK_EVERY
    looser: bool = False
    #: (step, gap, statistic) of the checks made so far (the last two are what predicts)
    checks: list = field(default_factory=list)

    @property
    def target(self) -> float:
        """The absolute gap aimed at: ``tol``, or ``tol·|P|`` of the last check."""
        return self._target

    def __post_init__(self):
        self._target = self._aim = self.tol

    def due(self, step: int, statistic: float | None) -> bool:
        """Whether ``step`` computes the gap."""
        if not self.checks:
            return True
        at, gap, reference = self.checks[-1]
        if step - at >= self.every or not gap > 0.0:
            return True
        if statistic is not None and reference is not None:
            if not reference > 0.0:
                return True
            return statistic <= reference * self._aim / gap
        if len(self.checks) < 2:
            return True
        before, gap_before, _ = self.checks[-2]
        if not (gap_before > 0.0 and gap < gap_before):
            return True  # no progress to extrapolate: check every step (up to `every`)
        rate = (math.log(gap) - math.log(gap_before)) / (at - before)  # < 0
        reach = (math.log(NEAR * self._aim) - math.log(gap)) / rate  # steps from `at`
        return step - at >= reach / 2.0  # half way there: the line is only a prediction

    def horizon(self, step: int, last: int, statistic: bool) -> tuple[int, float]:
        """How far the steps from ``step`` may run before the next check, as ``(end,
        until)``: of the steps ``step..end`` (``end ≤ last``), one before ``end`` is due only
        if its statistic is at most ``until`` (-inf: never), and ``end`` is due whatever its
        statistic, or is ``last``. ``statistic``: whether the engine has one (:meth:`due`'s
        answer for the steps ahead, whose statistics are not known yet)."""
        until = -math.inf
        probe = math.inf if statistic else None  # a statistic that triggers no check
        if statistic and self.checks:
            _, gap, reference = self.checks[-1]
            if gap > 0.0 and reference is not None and reference > 0.0:
                until = reference * self._aim / gap  # due(s, x) is x <= this, unless forced
        end = step
        while end < last and not self.due(end, probe):
            end += 1
        return end, until

    def checked(self, step: int, bounds: Bounds, statistic: float | None) -> bool:
        """Record the check of ``step``; whether its gap meets the target."""
        self.checks.append((step, bounds.gap, statistic))
        if self.relative:
            self._target = self.tol * abs(bounds.primal)
        self._aim = (
            max(self._target, self.tol * abs(bounds.primal)) if self.looser else self._target
        )
        return bounds.gap <= self._target


def run(engine: Engine, settings: Settings) -> BinaryFit:
    """Drive ``engine`` through its problem (module docstring) and return the fit."""
    problem = engine.problem
    certifies = settings.tol > 0.0 and engine.has_dual
    setup = _timed(engine.setup)

    looser = settings.warn and settings.tol_gap_warning and not settings.relative
    schedule = CheckSchedule(settings.tol, settings.relative, settings.check_every, looser)
    cpu_times: list[float] = []
    wall_times: list[float] = []
    bounds = None  # the last step's check (None: it made none)
    converged = stopped = False
    relative_stop = None  # the first checked step whose gap is at most tol·|P|
    k = 0
    while k < settings.steps:
        first = k + 1
        drawn = 0
        if settings.callback is None:  # the steps no check falls between, in one call
            end, until = settings.steps, -math.inf
            if certifies:
                end, until = schedule.horizon(first, end, engine.statistic() is not None)
            if end > first:
                drawn = engine.draw_steps(first, end - first + 1)
        if drawn:
            times, shares = _timed_steps(engine, first, until)
            if len(shares) < drawn:
                engine.undraw(len(shares))
            k = first + len(shares) - 1
            cpu_times.extend(_split(times.cpu, shares))
            wall_times.extend(_split(times.wall, shares))
        else:
            k = first
            engine.draw(k)
            times = _timed(engine.step, k)
            cpu_times.append(times.cpu)
            wall_times.append(times.wall)
        # ---- clock stopped: monitoring only below this line
        bounds = None
        if certifies:
            statistic = engine.statistic()
            if engine.must_check() or schedule.due(k, statistic):
                bounds = engine.certify(*engine.current(), check=True)
                converged = schedule.checked(k, bounds, statistic)
                if relative_stop is None and bounds.gap <= settings.tol * abs(bounds.primal):
                    relative_stop = k
        if settings.callback is not None:
            pair = []  # the current pair, fetched once if the callback reads it

            def current(pair=pair):
                if not pair:
                    pair.append(engine.current())
                return pair[0]

            info = EpochInfo(
                output=lambda: engine.output()[0],
                current=current,
                certify=(lambda: engine.certify(*current(), check=False))
                if engine.has_dual
                else None,
                epoch=k,
                cpu_time=times.cpu,
                wall_time=times.wall,
                setup_time=setup.cpu,
                setup_wall_time=setup.wall,
                gap=None if bounds is None else bounds.gap,
                primal=None if bounds is None else bounds.primal,
                dual=None if bounds is None else bounds.dual,
                bias=problem.bias,
                positive_class=problem.positive_class,
                **{"n_samples_seen": k * problem.n_samples, "n_active": None, **engine.record()},
            )
            if stops(settings.callback(info)):  # the caller's budget (scipy's convention)
                stopped = True
                break
        if converged:
            break

    if certifies and bounds is None:  # the last step made no check: the returned pair's
        bounds = engine.certify(*engine.current(), check=True)
        converged = schedule.checked(len(cpu_times), bounds, engine.statistic())
        if relative_stop is None and bounds.gap <= settings.tol * abs(bounds.primal):
            relative_stop = len(cpu_times)
    w_out, dual_out = engine.output()
    _refuse_divergence(settings.name, problem, w_out, dual_out)
    returned_gap = np.nan
    if certifies:
        w_cur, dual_cur = engine.current()
        if w_out is w_cur and dual_out is dual_cur:
            returned_gap = bounds.gap
        else:  # an averaged / sampled output: certify what is returned
            returned_gap = engine.certify(w_out, dual_out, check=False).gap
        if settings.warn and not converged and not stopped:
            scale = abs(bounds.primal) if settings.relative else 1.0  # the gap tol bounds
            returned = (
                "" if returned_gap == bounds.gap else f"; returned pair {returned_gap / scale:.3g}"
            )
            warn_unconverged(
                settings.name,
                bounds.gap / scale,
                settings.tol,
                settings.steps,
                f" (last iterate{returned}{settings.detail})",
                X=problem.X,
                feature_names=settings.feature_names,
                relative=settings.relative,
                steps_name=settings.steps_name,
                advice=settings.advice,
            )
        if looser:
            differs = relative_reading(
                settings.tol,
                bounds,
                len(cpu_times),
                relative_stop,
                converged,
                settings.steps,
                unit=settings.steps_name.removeprefix("max_").removesuffix("s"),
            )
            if differs:
                warn_tol_gap(settings.name, settings.tol, bounds.primal, differs, settings.detail)
    return BinaryFit.of_epochs(
        cpu_times,
        wall_times,
        w=w_out.copy(),
        dual_coef=None if dual_out is None else dual_out.copy(),
        setup_time=setup.cpu,
        setup_wall_time=setup.wall,
        converged=converged,
        duality_gap=returned_gap,
        iterations=engine.iterations(),
        attributes=engine.attributes(w_out),
    )


def relative_reading(
    tol: float, bounds: Bounds, last: int, relative_stop: int | None, converged: bool,
    steps: int, unit: str = "step",
) -> str:  # fmt: skip
    """How a fit read with an absolute ``tol`` would have ended with the relative one, in
    words ('' when it ends at the same step): ``bounds`` are the ``last`` step's check,
    ``relative_stop`` the first checked step whose gap was at most ``tol·|P|`` (None: none),
    ``converged`` whether the absolute gap met ``tol``, ``steps`` the budget; ``unit`` names a
    step (``"epoch"``, ``"round"``).

    Read at the steps the fit checked: with the schedule's ``looser`` aim, every step from
    near the looser of the two targets, so each reading's first step below its target."""
    if relative_stop is not None and relative_stop < last:
        return f"stop after {unit} {relative_stop} instead of {last}"
    if relative_stop is None and converged:
        more = "go on" if last < steps else "end without meeting tol"
        return (
            f"{more} after {unit} {last}: its gap {bounds.gap:.3g} is at most tol but above "
            f"tol·|P| = {tol * abs(bounds.primal):.3g}"
        )
    if relative_stop == last and not converged:
        return f"meet tol at {unit} {last}, where the absolute gap {bounds.gap:.3g} does not"
    return ""


def warn_tol_gap(name: str, tol: float, primal: float, differs: str, detail: str = "") -> None:
    """The ``FutureWarning`` of a fit whose absolute reading of ``tol`` (its estimator's
    ``tol_gap='warn'``, the default until the relative reading becomes it) ended it at another
    step than the relative one would: ``differs`` says how (:func:`relative_reading`);
    ``detail`` which problem (``", class 2"`` of a one-vs-rest fit), as the
    ConvergenceWarning's."""
    warnings.warn(
        f"{name}: tol={tol:g} is read as an absolute duality gap P - D (tol_gap='warn', the "
        f"default of this release); from {TOL_GAP_CHANGE} on tol bounds the relative gap "
        f"(P - D)/|P|, as in DaskSVMClassifier and ExactSVMClassifier, and this fit (P = "
        f"{primal:.3g}{detail}) would then {differs}. Pass tol_gap='relative' to adopt that "
        f"reading now, or tol_gap='absolute' to keep this one (removed in {TOL_GAP_REMOVAL}).",
        FutureWarning,
        stacklevel=caller_stacklevel(),
    )


def _timed(work: Callable, *args) -> Times:
    """``work(*args)``'s own Times, or the CPU and wall seconds measured around it."""
    wall = time.perf_counter()
    cpu = time.process_time()
    own = work(*args)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    return own if own is not None else Times(cpu, wall)


def _timed_steps(engine: Engine, first: int, until: float) -> tuple[Times, np.ndarray]:
    """The CPU and wall seconds of ``engine.steps_from(first, until)``, and its shares."""
    wall = time.perf_counter()
    cpu = time.process_time()
    shares = engine.steps_from(first, until)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    return Times(cpu, wall), shares


def _split(seconds: float, shares: np.ndarray) -> list[float]:
    """``seconds`` split in proportion to ``shares`` (equally when they are all 0)."""
    shares = np.asarray(shares, dtype=np.float64)
    total = shares.sum()
    if not total > 0.0:
        return [seconds / len(shares)] * len(shares)
    return [float(seconds * s / total) for s in shares]


def _refuse_divergence(name: str, problem: Problem, w, dual_coef) -> None:
    """No model from non-finite coefficients: a ValueError that says what to do."""
    if np.all(np.isfinite(w)) and (dual_coef is None or np.all(np.isfinite(dual_coef))):
        return
    big = "" if problem.X is None else f", max |X| = {max_abs(problem.X):.3g}"
    raise ValueError(
        f"{name} diverged to non-finite coefficients (lmbd={problem.lmbd:g}{big}): the "
        "iterates overflowed float64. Scale the features (e.g. StandardScaler) or increase "
        "lmbd; no model was stored."
    )
