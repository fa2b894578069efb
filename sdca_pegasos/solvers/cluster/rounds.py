"""The driver side of :class:`sdca_pegasos.solvers.cluster.estimator.DaskSVMClassifier`'s rounds:
:class:`ClusterEngine`, the engine that :func:`sdca_pegasos.solvers.driver.loop.run` drives through
one binary problem a round at a time, and what its rounds are made of: the blocks' local passes
submitted as chains of tasks, the certificate over the blocks, the finish, and the checkpoints.
Where the rows live (blocks, their placement, their layout) is
:mod:`sdca_pegasos.solvers.cluster.layout`. The worker side is
:mod:`sdca_pegasos.solvers.cluster.blocks`."""

from __future__ import annotations

import json
import os
import time
from typing import NamedTuple

import numpy as np

from sdca_pegasos.solvers.cluster import blocks as _cocoa
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.driver.loop import Bounds, Engine, Times


class ClusterProblem(NamedTuple):
    """One binary problem of a cluster fit, as the driver
    (:func:`sdca_pegasos.solvers.driver.loop.run`) reads a
    :class:`~sdca_pegasos.solvers.driver.problem.Problem`: its sizes, λ, the bias multiplier
    and the class it calls +1; ``X`` is None (the rows are on the workers, and the driver
    never holds them). ``class_weights`` ({class: weight} or None) and ``two`` (two classes,
    or one-vs-rest) are how the blocks weigh their rows
    (:func:`sdca_pegasos.solvers.cluster.blocks.problem_weights`)."""

    n_samples: int
    n_features: int
    lmbd: float
    bias: float
    positive_class: object
    class_weights: dict | None
    two: bool
    X: None = None


class _Returned(NamedTuple):
    """The certificate of the pair a fit returns: ``bounds`` (the dict of
    :func:`certify`), the primal ``point`` they certify (never the engine's running w
    itself), and the ``passes`` over the rows it took that no check has counted."""

    bounds: dict
    point: np.ndarray
    passes: int


class ClusterEngine(Engine):
    """CoCoA+'s rounds over the blocks of one binary problem, for
    :func:`sdca_pegasos.solvers.driver.loop.run`: a step is one round, the blocks' local passes
    (:func:`local_passes`) or a finish (:func:`finish`), and the driver owns the rest.

    Built from plain settings: the dask ``client``; the row chunks' ``data`` futures, their
    ``groups`` (the chunks of each block) and ``sizes``; the ``problem``
    (:class:`ClusterProblem`); the ``loss``; ``local_epochs`` and ``shrinking`` (each block's
    passes per round); ``finish`` (whether finishes are made,
    :class:`FinishSchedule`) and ``finish_rows`` (the most rows one gathers); ``tol`` (the
    relative gap at which a check's pair is certified once more, as the returned pair);
    ``implied`` and ``bias_step`` (:func:`certify`'s second primal point); the checkpoints'
    ``folder`` (None: none), ``checkpoint_every`` and ``max_rounds`` (a checkpoint every that
    many rounds and at the last), ``index`` and ``n_problems`` (this problem's place among the
    fit's); ``rng`` (the fit's stream: block k's is ``rng.spawn(K + 1)[k]``, the finish's the
    last) and ``init`` (each chunk's α to start from: arrays, futures or checkpoint files;
    None: α = 0); ``aggregate``: how a round's blocks are combined, ``"add"`` (σ' = K,
    w ← w + Σ_k (v_k − w)/σ', each block's α + Δα_[k] taken whole) or ``"line_search"``
    (σ' = :data:`LINE_SEARCH_SIGMA`, the step η of :func:`line_step` taken along the blocks'
    summed direction by w and by every block's α, :func:`sdca_pegasos.solvers.cluster.blocks.
    apply_step`; with one block, as ``"add"``: its local passes are SDCA's epochs).

    ``step`` returns ``Times(cpu=the blocks' CPU seconds summed, wall=the round's wall)``
    (local passes, transfers and the checkpoint; the checks come after the clock stops).
    ``certify(w, None, check=True)`` is the certificate over the blocks (:func:`certify`),
    which then resynchronises the driver's w to w(α), the additions' drift gone; when its
    relative gap is at most ``tol`` the pair (w(α), α) is certified once more, and the
    bounds returned are that pair's (the one the fit returns; a checkpoint is written then,
    the fit ending). ``certify(w, None, check=False)`` changes nothing. The finish schedule
    reads the relative gaps of the fit's own checks (``gaps``). ``output`` is the
    certified primal point of (w(α), α) (:func:`certify`'s ``point``), certified when no
    check has just done it.
    """

    has_dual = True

    def __init__(
        self,
        client,
        data: list,
        groups: list,
        sizes: list,
        problem: ClusterProblem,
        *,
        loss: Loss,
        local_epochs: int,
        shrinking: bool,
        finish: bool,
        finish_rows: int,
        tol: float,
        implied: bool,
        bias_step: bool,
        folder: str | None,
        checkpoint_every: int,
        max_rounds: int,
        index: int,
        n_problems: int,
        rng: np.random.Generator,
        init: list | None,
        aggregate: str = "add",
    ):
        self.client, self.data, self.groups, self.sizes = client, data, groups, sizes
        self.problem, self.loss = problem, loss
        self.local_epochs, self.shrinking = int(local_epochs), bool(shrinking)
        self.finish, self.finish_rows = bool(finish), int(finish_rows)
        self.tol, self.implied, self.bias_step = float(tol), bool(implied), bool(bias_step)
        self.folder, self.checkpoint_every = folder, int(checkpoint_every)
        self.max_rounds, self.index, self.n_problems = int(max_rounds), index, n_problems
        self.init = init
        # by line search (K > 1): the blocks' directions summed and the step chosen
        self.line = aggregate == "line_search" and len(groups) > 1
        self.sigma = LINE_SEARCH_SIGMA if self.line else float(len(groups))  # add: σ' = K
        self.etas: list = []  # each round's step η (1.0 adding, NaN a finish)
        # block k's stream, and the finish's (one more child: the blocks' are those of
        # spawn(K) whatever follows)
        *self.block_rngs, self.finish_rng = rng.spawn(len(groups) + 1)
        self.w = np.zeros(problem.n_features + 1)
        self.templates: list = []
        self.states: list = []
        self.round = 0  # the round in progress (or last made)
        self.steps = 0  # the local passes' coordinate steps, all blocks and rounds
        self.finishes = 0  # rounds that were a finish
        self.passes = 0  # passes over the rows by the fit's certificates
        self.gaps: list = []  # the relative gap of each of the fit's checks
        self.checked: list = []  # the round of each of those checks
        self.schedule = FinishSchedule()
        self.finishing = False  # whether the last round was a finish
        self.last_gap = None  # the last round's check's relative gap (None: no check)
        self.block_cpu: tuple = ()
        self.check_wall = 0.0
        self.last_checkpoint = None  # the round of the last checkpoint written
        self._synced = False  # w is w(α) of the current α (a check since the last round)
        self._returned: _Returned | None = None

    # ---------------------------------------------------------------- the driver's protocol
    def setup(self) -> None:
        """Every chunk's state on its worker (α = 0, or ``init``); w = w(α) of a start."""
        p, client, n = self.problem, self.client, self.problem.n_samples
        rngs = [None] * len(self.data)  # a chunk's stream: its block's, or one of its children
        for group, block_rng in zip(self.groups, self.block_rngs, strict=True):
            streams = [block_rng] if len(group) == 1 else block_rng.spawn(len(group))
            for c, stream in zip(group, streams, strict=True):
                rngs[c] = stream
        alphas = [None] * len(self.data) if self.init is None else self.init
        if self.init is not None and isinstance(self.init[0], str):
            alphas = [client.submit(_cocoa.read_alpha, f, pure=False) for f in self.init]
        self.templates = [
            client.submit(
                _cocoa.init_block, self.data[k], k, p.positive_class, p.class_weights, p.two,
                p.bias, self.loss, p.lmbd, p.lmbd * n / self.sigma, rngs[k], alphas[k],
                pure=False,
            )
            for k in range(len(self.data))
        ]  # fmt: skip
        self.states = list(self.templates)
        if self.init is not None:  # w = w(α) of the starting point
            start = self._certify(self.w)
            self.w, self.passes = start.w_alpha, self.passes + start.passes

    def step(self, step: int) -> Times:
        """Round ``step``: a finish when the schedule called for one after the last round's
        check, else every block's local passes and w ← w + Σ_k (v_k − w)/σ' (adding), or
        by line search w ← w + ηΔw and every chunk's α ← α + ηΔα (:func:`line_step`, the
        step sent to the chunks as one task each, before any check or checkpoint reads
        their α); then the checkpoint when one is due (α alone: a resumed fit's w is
        w(α))."""
        start = time.perf_counter()
        finishing = False
        if self.finish and step > 1:  # decided on the last round and its check
            finishing = self.schedule.finish_next(
                self.finishing, self.gaps, self.last_gap, self.checked
            )
        self.round, self.finishing, self.last_gap, self.check_wall = step, finishing, None, 0.0
        self._synced, self._returned = False, None
        p = self.problem
        if finishing:  # the rows nearest the margin, solved together on the driver
            problem = p.positive_class, p.class_weights, p.two, p.bias, self.loss, p.lmbd
            self.w, self.finish_rng, made, cpu = finish(
                self.client, self.states, self.data, self.sizes, self.w, problem,
                self.finish_rng, self.finish_rows,
            )  # fmt: skip
            self.finishes += 1
            self.block_cpu = (float(cpu),)
            self.etas.append(np.nan)
        else:
            ends = local_passes(
                self.client, self.states, self.data, self.groups, self.block_rngs, self.w,
                self.local_epochs, self.shrinking, self.line,
            )  # fmt: skip
            results = self.client.gather(ends)
            eta = 1.0
            if self.line:  # w and every chunk's α step η along the blocks' summed direction
                line = line_step(self.w, results, self.sigma, p.lmbd, p.n_samples)
                eta = line.eta
                self.w = self.w + eta * line.delta_w
                self.states = [
                    self.client.submit(_cocoa.apply_step, state, eta, pure=False)
                    for state in self.states
                ]
            elif len(self.groups) == 1:  # one block: w + (v - w) is v, taken as is (no rounding)
                self.w = np.array(results[0][0])
            else:
                w = self.w
                self.w = w + sum((r[0] - w for r in results), np.zeros(w.shape[0])) / self.sigma
            self.etas.append(eta)
            self.block_cpu = tuple(float(r[1]) for r in results)
            made = sum(r[2] for r in results)
        self.steps += int(made)
        if self.folder is not None and (
            step % self.checkpoint_every == 0 or step == self.max_rounds
        ):
            self._checkpoint()
        return Times(float(sum(self.block_cpu)), time.perf_counter() - start)

    def must_check(self) -> bool:
        """A finish is checked whatever the schedule: its check judges it
        (:class:`FinishSchedule`)."""
        return self.finishing

    def current(self) -> tuple[np.ndarray, None]:
        """The driver's w (α stays on the workers)."""
        return self.w, None

    def certify(self, w: np.ndarray, dual_coef=None, check: bool = True) -> Bounds:
        """P, D and the gap of w and the blocks' α (the class docstring)."""
        if not check:
            returned = self._returned
            if returned is not None and w is returned.point:  # already certified
                return _bounds(returned.bounds)
            return _bounds(self._certify(w).bounds)
        start = time.perf_counter()
        first = self._certify(w)
        self.passes += first.passes
        self.w, self._synced = first.w_alpha, True  # the same point, without the drift
        self._returned = None  # one certified on demand before (output) is this check's now
        self.last_gap = first.bounds["rel_gap"]
        self.gaps.append(self.last_gap)
        self.checked.append(self.round)
        bounds = first.bounds
        if self.meets(bounds):  # the returned pair itself, (w(α), α), certified once more
            last = self._certify(self.w)
            self.passes += last.passes
            self._returned = _Returned(last.bounds, _apart(last.point, self.w), 0)
            bounds = last.bounds
            if (
                self.meets(bounds)
                and self.folder is not None
                and self.last_checkpoint != (self.round)
            ):
                self._checkpoint()  # the fit ends here: its last state kept
        self.check_wall += time.perf_counter() - start
        return _bounds(bounds)

    def output(self) -> tuple[np.ndarray, None]:
        """The certified primal point of (w(α), α): w(α), or for a smooth loss w(α) with its
        bias weight moved by one Newton step where that lowers P (:func:`certify`),
        certified now unless a check just did (one pass when w is w(α) already, two
        otherwise); a copy, never the running w."""
        if self._returned is None:
            w, passes = self.w, 0
            if not self._synced:
                first = self._certify(w)
                w, passes = first.w_alpha, first.passes
            last = self._certify(w)
            self._returned = _Returned(
                last.bounds, _apart(last.point, self.w), passes + last.passes
            )
        return self._returned.point, None

    def record(self) -> dict:
        """The round's own fields of the callback's record
        (:class:`~sdca_pegasos.solvers.driver.problem.EpochInfo`)."""
        n = self.problem.n_samples
        return {
            "n_samples_seen": self.steps,
            "data_passes": self.steps / n,
            "finish": self.finishing,
            "block_cpu": self.block_cpu,
            "check_wall": self.check_wall,
        }

    def attributes(self, w_out: np.ndarray) -> dict:
        """What the estimator stores of the fit: the returned pair's certificate
        (``bounds``) and whether it meets ``tol`` (``certified``), the finishes, the data
        passes, the certificates' passes, and the blocks' final ``states``."""
        if self._returned is None:
            self.output()
        returned = self._returned
        return {
            "bounds": returned.bounds,
            "certified": self.meets(returned.bounds),
            "finishes": self.finishes,
            "data_passes": self.steps / self.problem.n_samples,
            "certificate_passes": self.passes + returned.passes,
            "states": self.states,
            "step_sizes": np.array(self.etas),
        }

    # ---------------------------------------------------------------- internals
    def meets(self, bounds: dict) -> bool:
        """Whether certified ``bounds`` meet the relative target: gap ≤ tol·|P|, tol > 0 (the
        driver's test, :class:`sdca_pegasos.solvers.driver.loop.CheckSchedule`)."""
        return self.tol > 0.0 and bounds["gap"] <= self.tol * abs(bounds["primal"])

    def _certify(self, w: np.ndarray) -> Certified:
        p = self.problem
        return certify(
            self.client, self.states, self.data, self.groups, w, p.lmbd, self.loss, p.bias,
            p.n_samples, self.implied, self.bias_step,
        )  # fmt: skip

    def _checkpoint(self) -> None:
        """Every block's state written (:func:`checkpoint`); their chains restart from it."""
        self.states = checkpoint(
            self.client, self.states, self.templates, self.folder, self.index, self.round,
            self.sizes, self.problem.n_features, self.n_problems,
        )  # fmt: skip
        self.last_checkpoint = self.round


def _bounds(bounds: dict) -> Bounds:
    return Bounds(bounds["primal"], bounds["dual"], bounds["gap"])


def _apart(point: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``point``, copied when it is the array ``w`` (the running w, which the next check
    moves: the returned point is then certified for itself, not as the current pair)."""
    return point.copy() if point is w else point


class Certified(NamedTuple):
    """What :func:`certify` returns: the certified ``bounds`` (the dict of
    :func:`sdca_pegasos.solvers.core.objectives.certificate`), ``w_alpha`` = w(α), the primal
    ``point`` those bounds certify, and the ``passes`` over the rows that it took."""

    bounds: dict
    w_alpha: np.ndarray
    point: np.ndarray
    passes: int


def local_passes(
    client, states, data, groups, block_rngs, w, epochs: int, shrinking: bool = False,
    line: bool = False,
) -> list:  # fmt: skip
    """Submit one round's local passes (with ``shrinking``, epochs of SDCA with shrinking:
    :func:`sdca_pegasos.solvers.cluster.blocks.local_round`), replacing ``states`` (one per chunk)
    in place; returns one future per block of its (v_k, CPU seconds, coordinate steps, line
    sums: :func:`sdca_pegasos.solvers.cluster.blocks.line_sums` of its chunks with ``line``,
    else None). A block of one chunk makes its ``local_epochs`` passes in one task; a block of
    several makes each pass chunk by chunk, in an order drawn from the block's stream, v going
    from each chunk's task to the next (with ``line``, a chunk adds its sums at its last
    visit of the round)."""
    ends = []
    for group, block_rng in zip(groups, block_rngs, strict=True):
        carry = (w, 0.0, 0)
        if len(group) == 1:
            visits = [(group[0], epochs)]
        else:
            visits = [
                (group[i], 1) for _ in range(epochs) for i in block_rng.permutation(len(group))
            ]
        last = {c: i for i, (c, _) in enumerate(visits)}
        for i, (c, passes) in enumerate(visits):
            if line:
                states[c] = client.submit(
                    _cocoa.local_round, states[c], data[c], carry, passes, shrinking, True,
                    last[c] == i, pure=False,
                )  # fmt: skip
            else:
                states[c] = client.submit(
                    _cocoa.local_round, states[c], data[c], carry, passes, shrinking, pure=False
                )
            carry = client.submit(_cocoa.local_result, states[c])
        ends.append(carry)
    return ends


class LineStep(NamedTuple):
    """The driver's step of a round aggregated by line search (:func:`line_step`): ``eta``,
    the summed direction's ``delta_w`` = Σ_k Δw_k, and the line's ``slope`` (dD/dη at 0),
    ``curvature`` (−d²D/dη²) and ``eta_max``."""

    eta: float
    delta_w: np.ndarray
    slope: float
    curvature: float
    eta_max: float


def line_step(w, results, sigma: float, lmbd: float, n: int) -> LineStep:
    r"""The step η ∈ [0, η_max] that maximises :math:`D(\alpha + \eta\Delta\alpha)`, Δα the
    blocks' summed directions, from what they sent back (``results``: each block's
    (v_k, CPU, steps, :func:`sdca_pegasos.solvers.cluster.blocks.line_sums`)) and the
    driver's ``w``: :math:`\Delta w = \sum_k (v_k - w)/\sigma'`, and along the line

    .. math::

        D(\alpha + \eta\Delta\alpha) = D(\alpha) + \eta\Big(\frac{s_1}{n} -
        \lambda w^\top\Delta w\Big) - \frac{\eta^2}{2}\Big(\frac{s_2}{n} +
        \lambda\|\Delta w\|^2\Big),

    a concave quadratic (:math:`s_2 = 0` for the hinge): η = slope/curvature clipped to
    [0, η_max], η_max the blocks' smallest (at least 1: each block's own end point is
    feasible). No slope (a zero direction, or rounding): η = 0; no curvature with a
    positive slope: η_max, or 1 when nothing bounds it."""
    delta_w = np.zeros(w.shape[0])
    for v, *_ in results:
        delta_w += v - w
    if sigma != 1.0:
        delta_w /= sigma
    sums = [r[3] for r in results]
    s1 = sum(float(s[0]) for s in sums)
    s2 = sum(float(s[1]) for s in sums)
    eta_max = max(1.0, min(float(s[2]) for s in sums))
    slope = s1 / n - lmbd * float(np.dot(w, delta_w))
    curvature = s2 / n + lmbd * float(np.dot(delta_w, delta_w))
    if not slope > 0.0:
        eta = 0.0
    elif curvature > 0.0:
        eta = min(slope / curvature, eta_max)
    else:
        eta = eta_max if np.isfinite(eta_max) else 1.0
    return LineStep(float(eta), delta_w, slope, curvature, eta_max)


def certify(client, states, data, groups, w, lmbd, loss, bias, n, implied, bias_step) -> Certified:
    """Certified bounds of the better of two primal points, from every block's partial
    sums (a block's chunks merge theirs in turn on the workers: one
    part per block reaches the driver).

    The points are w and, for a smooth loss (with ``implied``), w' = w with its bias weight moved
    by one Newton step of P along it (with ``bias_step`` and an intercept: one more pass; a pass
    chunk by chunk leaves the bias weight dragged toward the last chunk's own,
    docs/distributed.md); the dual bound is the larger of D(α) and D(α̃(w')), α̃ the dual point
    that w' implies (:func:`sdca_pegasos.solvers.core.objectives.implied_dual`). Each is a
    certified bound of P*, with its own rounding allowance."""
    implied = implied and loss.smooth
    w_key = w if len(states) == len(groups) else client.scatter(w, hash=False)
    w_implied = None
    passes = 1  # P(w), D(α) and w(α)
    if implied:
        w_implied = w.copy()
        passes += 2  # the margins of w', then P(w') and D(α̃(w'))
        if bias > 0.0 and bias_step:
            passes += 1
            slope = chains(client, groups, _cocoa.bias_slope_sums, states, data, w_key, loss)
            ya, curved = sum(client.gather(slope))
            grad = lmbd * w[-1] - bias * ya / n
            w_implied[-1] -= grad / (lmbd + bias * bias * curved / n)
    parts = chains(client, groups, _cocoa.block_certificate, states, data, w_key, loss, w_implied)
    sums = client.gather(parts)
    bounds, w_alpha = objectives.combine_certificate([p[0] for p in sums], w, lmbd, loss)
    point = w
    if implied:
        other = objectives.combine_certificate([p[1] for p in sums], w_implied, lmbd, loss)[0]
        primal = bounds["primal"]
        if other["primal"] < primal:
            primal, point = other["primal"], w_implied
        bounds = objectives.certified_bounds(primal, max(bounds["dual"], other["dual"]))
    return Certified(bounds, w_alpha, point, passes)


#: σ' of each block's local subproblem when the rounds are aggregated by line search
#: (``aggregate="line_search"``): 1, each block solving its rows' part of the problem as if
#: the others stood still; the driver's step along the summed direction undoes the overlap
#: (docs/distributed.md, "Aggregation by line search", measures it against σ' = K).
LINE_SEARCH_SIGMA = 1.0

#: CoCoA+ rounds before the first finish, and after a finish that did not pay; each such
#: finish doubles the wait for the next (:class:`FinishSchedule`).
FINISH_WAIT = 2
#: A finish pays only if it cuts the gap by at least this factor (and by more than CoCoA+ did
#: a round): a finish costs a gather, the driver's solve and its own check, several CoCoA+
#: rounds' wall, and where CoCoA+'s gap rose between its checks (a rate under 1) any cut at
#: all paid before. Seen on csr-full at K = 2 in a ``make bench-spark`` run at git 2a75989
#: (2026-11-29; its record was not committed, the one after this change was): after a
#: finish that cut the gap 1.19x, seven more in a row cut it by 1.002x and less, 2.1-2.6 s
#: of wall each, until two gave the same gap.
FINISH_MIN_CUT = 1.01


class FinishSchedule:
    """When the next round is a finish (``finish=True``), decided at each check, in rounds
    (the checks need not be every round's: :class:`sdca_pegasos.solvers.driver.loop.
    CheckSchedule` spaces them, and the round after a finish is always checked,
    :meth:`ClusterEngine.must_check`).

    The first finish comes once CoCoA+ has stalled: the gap cut by less than √2 a round
    between the check two checks before and the last (with every round checked: the gap
    above half the one two checks before). A finish that paid — it cut the gap by more a
    round than CoCoA+ did when the finishes began, and by at least :data:`FINISH_MIN_CUT` —
    is followed by another at once; after one
    that did not, CoCoA+ makes ``wait`` rounds (counted at its checks) before the next can be
    due and must stall again. ``wait`` starts at :data:`FINISH_WAIT`, doubles with each
    finish that did not pay and is back at the start after one that did: where finishes help
    they follow each other, where they do not they become rare and CoCoA+ makes its rounds."""

    def __init__(self):
        self.wait = FINISH_WAIT
        self.since = 0  # the round of the check that judged the last finish (0: none yet)
        self.pending = False  # a finish made, its check not seen yet
        self.rate = 1.0  # CoCoA+'s cut per round when the finishes began

    def finish_next(
        self, finishing: bool, gaps: list, rel_gap: float | None, rounds: list
    ) -> bool:
        """After a round (a finish or not) whose check gave ``rel_gap`` (None: no check;
        ``gaps`` every check's so far, ``rounds`` the rounds they checked): whether the next
        round is a finish."""
        self.pending = self.pending or finishing
        if rel_gap is None:
            return False
        if self.pending:
            self.pending = False
            self.since = rounds[-1]
            paid = len(gaps) < 2 or _cut(gaps[-2], gaps[-1], rounds[-1] - rounds[-2]) > max(
                self.rate, FINISH_MIN_CUT
            )
            self.wait = FINISH_WAIT if paid else 2 * self.wait
            return paid
        if rounds[-1] - self.since >= self.wait and len(gaps) >= 3:
            span = rounds[-1] - rounds[-3]
            if gaps[-1] > gaps[-3] * 0.5 ** (span / 2):  # stalled: not halved over 2 rounds
                self.rate = _cut(gaps[-3], gaps[-1], span)
                return True
        return False


def _cut(before: float, after: float, rounds: int) -> float:
    """The gap's cut per round from ``before`` to ``after`` over ``rounds`` rounds (inf: to
    0)."""
    if not after > 0.0:
        return np.inf
    ratio = before / after
    if rounds == 1:
        return float(ratio)
    return float(np.sqrt(ratio)) if rounds == 2 else float(ratio ** (1.0 / rounds))


#: The finish gathers at most about this many rows, those nearest the margin, from every
#: chunk in proportion to its rows, and fewer where rows are long (the driver holds them:
#: ``DaskSVMClassifier`` caps their stored entries at ``AUTO_ROUND_WORK``, a round's work).
FINISH_ROWS = 2**15
#: Epochs of SDCA with shrinking the finish makes over the rows it gathered.
FINISH_EPOCHS = 50


def finish(client, states, data, sizes, w, problem, rng, max_rows: int) -> tuple:
    """CoCoA+'s finish, on the driver: the rows nearest the margin at w, about ``max_rows``
    (:func:`sdca_pegasos.solvers.cluster.blocks.finish_candidates`, each chunk's share in
    proportion to its rows, rounded up), solved together by :data:`FINISH_EPOCHS` epochs of SDCA
    with shrinking on the *whole* problem's dual, every other α fixed: σ' = 1, exact coordinate
    ascent, so D(α) cannot decrease, where CoCoA+'s σ' = K damps every block's step. ``problem``:
    (positive, class_weights, two, bias, loss, lmbd) as
    :func:`sdca_pegasos.solvers.cluster.blocks.init_block` takes them. Replaces ``states`` with
    their new α in place; returns the new w (the solve's running iterate), the advanced ``rng``,
    and the solve's coordinate steps and CPU seconds."""
    positive, class_weights, two, bias, loss, lmbd = problem
    n = sum(sizes)
    counts = [-(-max_rows * m // n) for m in sizes]
    parts = client.gather(
        [
            client.submit(_cocoa.finish_candidates, state, block, w, k)
            for state, block, k in zip(states, data, counts, strict=True)
        ]
    )
    gathered = _cocoa.merge_data(*[p[1] for p in parts])
    alpha = np.concatenate([p[2] for p in parts])
    args = positive, class_weights, two, bias, loss, lmbd, lmbd * n
    # the kernels of these rows' types compiled (or loaded) on the driver before the timed
    # solve: an epoch over the first row alone, thrown away
    c = gathered.sample_weight
    one = _cocoa.block_data(gathered.X[:1], gathered.labels[:1], None if c is None else c[:1])
    warm = _cocoa.init_block(one, -1, *args, np.random.default_rng(0), None)
    _cocoa.local_round(warm, one, (w, 0.0, 0), 1, shrinking=True)
    solve = _cocoa.init_block(gathered, -1, *args, rng, alpha)
    solve = _cocoa.local_round(solve, gathered, (w, 0.0, 0), FINISH_EPOCHS, shrinking=True)
    start = 0
    for c, (rows, _, _) in enumerate(parts):
        values = solve.sweep.dual_coef[start : start + rows.shape[0]]
        states[c] = client.submit(_cocoa.set_alpha, states[c], rows, values)
        start += rows.shape[0]
    return solve.v, solve.rng, solve.round_steps, solve.cpu


def chains(client, groups, task, states, data, w_key, loss, *extra) -> list:
    """``task(state, data, w, loss, previous, *extra)`` along each block's chunks in
    turn, on the workers: one future per block, its chunks' results merged."""
    parts = []
    for group in groups:
        part = None
        for c in group:
            part = client.submit(task, states[c], data[c], w_key, loss, part, *extra)
        parts.append(part)
    return parts


def checkpoint(client, states, templates, folder, j, round_, sizes, d, n_problems) -> list:
    """Write every block's checkpoint of problem ``j`` at this round, then the manifest
    that names them (:func:`checkpoint_inits` reads it), then drop the files older than
    the last two rounds kept; every block's chain restarts from its file."""
    paths = [_cocoa.checkpoint_path(folder, j, k, round_) for k in range(len(states))]
    written = [
        client.submit(_cocoa.write_checkpoint, s, p, pure=False)
        for s, p in zip(states, paths, strict=True)
    ]
    client.gather(written)
    _write_manifest(folder, j, round_, paths, sizes, d, n_problems)
    _prune(folder, j, round_)
    return [
        client.submit(_cocoa.restore_block, t, p, pure=False)
        for t, p in zip(templates, paths, strict=True)
    ]


def _manifest_path(folder) -> str:
    return os.path.join(os.fspath(folder), "manifest.json")


def checkpoint_inits(folder, sizes, d, n_problems) -> list | None:
    """The checkpoint's α per problem and block (file paths, read by the workers), when
    ``folder`` holds one of the same data; None when it holds none (or ``folder`` is
    None)."""
    if folder is None or not os.path.exists(_manifest_path(folder)):
        return None
    with open(_manifest_path(folder)) as f:
        manifest = json.load(f)
    found = (manifest["rows"], manifest["n_features"], manifest["n_problems"])
    if found != (list(sizes), d, n_problems):
        raise ValueError(
            f"the checkpoint in {folder} is of blocks {found[0]}, "
            f"{found[1]} features and {found[2]} binary problems, but X has blocks "
            f"{list(sizes)}, {d} features and {n_problems} problems: resume with the "
            "same data and chunks, or use another checkpoint_dir."
        )
    return [[manifest["files"][str(j)][k] for k in range(len(sizes))] for j in range(n_problems)]


def _write_manifest(folder, j, round_, paths, sizes, d, n_problems) -> None:
    path = _manifest_path(folder)
    manifest = {"files": {}}
    if os.path.exists(path):
        with open(path) as f:
            manifest = json.load(f)
    manifest.update(rows=list(sizes), n_features=d, n_problems=n_problems)
    manifest["files"][str(j)] = paths
    manifest.setdefault("rounds", {})[str(j)] = round_
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, path)


def _prune(folder, j, round_) -> None:
    """Remove the problem's checkpoint files older than the last two rounds kept."""
    sub = os.path.join(folder, f"problem-{j}")
    names = [f for f in os.listdir(sub) if f.endswith(".npz")]
    rounds = sorted({int(f.rsplit("-", 1)[1][: -len(".npz")]) for f in names})
    for old in rounds[:-2]:
        for f in os.listdir(sub):
            if f.endswith(f"-round-{old}.npz"):
                os.remove(os.path.join(sub, f))
