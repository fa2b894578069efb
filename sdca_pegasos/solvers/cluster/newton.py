r"""Newton's method on the primal across the cluster (``DaskSVMClassifier(method="newton")``,
smooth losses): rounds that do not depend on how the rows are cut into blocks.

CoCoA+'s rounds grow with the blocks (docs/distributed.md): each block solves its own rows'
part of the dual, and the blocks' updates must be damped (σ' = K) or searched along
(``aggregate="line_search"``) to be combined. A primal Newton step needs no such
combination: its every ingredient is a sum over the rows, and a sum does not care where
the rows are. For a smooth loss φ (the smoothed or the squared hinge) and
:math:`z_i = y_i\tilde x_i^\top w`,

.. math::

    P(w) = \frac\lambda2\|w\|^2 + \frac1n\sum_i c_i\phi(z_i),\quad
    \nabla P = \lambda w - \frac1n\sum_i c_i a^*(z_i)\,y_i\tilde x_i,\quad
    \nabla^2P\,v = \lambda v + \frac1n\sum_i c_i\phi''(z_i)\,\tilde x_i\tilde x_i^\top v,

(:math:`a^* = -\phi'`; for the squared hinge :math:`\phi''` is the generalised one, as in
LIBLINEAR's TRON). A step is a truncated Newton step, as MPI-LIBLINEAR's distributed TRON
makes it (Zhuang, Chin, Juan and Lin, PAKDD 2015) but with a line search instead of a trust
region: the gradient (one pass over the rows), the direction s from conjugate gradients on
:math:`\nabla^2P\,s = -\nabla P` to a relative residual of
:data:`CG_FORCING` · min(1, (‖∇P‖/‖∇P(w_0)‖)^½) (each iteration one pass: a Hessian-vector
product), the margins' change along s (one pass), then the exact minimiser of P(w + ts)
(:func:`sdca_pegasos.solvers.gpu.newton_steps.line_search`, the GPU Newton engine's: each
evaluation of P' a sum over the stored margins, no pass over X). Every sum is a vector of
d + 1 (or 2) floats per row chunk, reduced pairwise on the workers
(:func:`tree_sum`: dask futures, ⌈log₂ chunks⌉ levels), one vector reaching the driver.
In exact arithmetic every quantity, and so every step, is the same however the rows are
blocked; in floating point only the order of the sums differs.

The certificate is the one every cluster fit returns: P(w) and D(α̃(w)), α̃ the dual point
that w implies (:func:`sdca_pegasos.solvers.core.objectives.implied_dual`), from every chunk's
compensated sums with the outward allowance (:func:`sdca_pegasos.solvers.cluster.blocks.
block_certificate`); ``dual_coef_`` is α̃(w) of the returned w.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit

from sdca_pegasos.solvers.cluster import blocks as _cocoa
from sdca_pegasos.solvers.cluster.rounds import ClusterProblem, chains
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.driver.loop import Bounds, Engine, Times
from sdca_pegasos.solvers.gpu.newton_steps import line_search, newton_direction

#: Conjugate gradients stop at a residual of this times ‖∇P‖ (times (‖∇P‖/‖∇P(w₀)‖)^½ once
#: the gradient has shrunk: the forcing term of Eisenstat and Walker's choice 2, which keeps
#: Newton's local convergence superlinear).
CG_FORCING = 0.1
#: At most this many conjugate-gradient iterations (Hessian-vector products) in one step.
MAX_CG = 200
#: The line search ends once |P'(t)| ≤ this times |P'(0)| along the step (the GPU engine's
#: 1e-12 costs the cluster a round trip per evaluation; near the optimum t = 1 meets this at
#: once, and P grows by at most t·LINE_TOL·|P'(0)| where P'(t) > 0).
LINE_TOL = 1e-4
#: A dense chunk's rows on the loss's curved part (φ'' ≠ 0) are copied once per step for the
#: conjugate-gradient products when they are at most this share of its rows (else all of X
#: is read each product).
CURVED_COPY = 0.5
#: A check certifies (a compensated pass) only once its estimate of the relative gap, free
#: with the gradient's pass, is at most this times ``tol``; above, the estimate is its reading.
ESTIMATE_SLACK = 2.0
#: Vectors of at most this many floats travel inside each task; longer ones are scattered to
#: every worker once (one more round trip, one copy per worker instead of one per task).
INLINE_FLOATS = 4096
#: Up to this many weights (features + 1), the Hessian itself is summed in the gradient's
#: pass, (d + 1)² floats per chunk, and the step solved on the driver by Cholesky (one pass
#: and one round trip instead of one per conjugate-gradient product).
GRAM_WEIGHTS = 256


# ---------------------------------------------------------------- the worker side
@dataclass(frozen=True)
class Margins:
    """A chunk's margins :math:`z_i = y_i\\tilde x_i^\\top w` at the step's w, its curvatures
    :math:`c_i\\phi''(z_i)` and the margins' change :math:`\\delta_i = y_i\\tilde x_i^\\top s`
    along the step (None until :func:`slot_along`)."""

    z: np.ndarray
    curv: np.ndarray
    delta: np.ndarray | None = None
    rows: tuple | None = None  # a dense chunk's curved rows and their curvatures, copied


@dataclass(frozen=True)
class Slot:
    """The :class:`Margins` of one worker's chunks, in order, and ``part``: their sum of the
    last pass that made them (:func:`slot_margins`: the gradient's, and the Hessian's with
    ``gram``), the task's CPU seconds last."""

    margins: list
    part: np.ndarray

    def __sizeof__(self) -> int:
        arrays = [
            a
            for m in self.margins
            for a in (m.z, m.curv, m.delta, *(m.rows or ()))
            if a is not None
        ]
        return sum(a.nbytes for a in arrays) + self.part.nbytes


def _products(X, bias: float, v: np.ndarray) -> np.ndarray:
    """X̃v (unsigned), X̃ = (X, B)."""
    out = X @ v[:-1]
    if bias > 0.0:
        out = out + bias * v[-1]
    return np.asarray(out, dtype=np.float64).ravel()


def _transposed(X, bias: float, u: np.ndarray) -> np.ndarray:
    """X̃ᵀu, shape (d + 1,)."""
    out = np.empty(X.shape[1] + 1)
    out[:-1] = X.T @ u
    out[-1] = bias * u.sum() if bias > 0.0 else 0.0
    return out


@njit(cache=True)
def _csr_hessian_product(data, indices, indptr, bias, curv, v, out):
    """out += Σ_i curv_i x̃_i x̃_iᵀv over the rows of a CSR chunk with curv_i ≠ 0, each row
    read once for both products (SciPy's X̃ᵀ(curv·X̃v) reads X twice, every row)."""
    d = out.shape[0] - 1
    vb = bias * v[d]
    for i in range(indptr.shape[0] - 1):
        c = curv[i]
        if c == 0.0:
            continue
        t = vb
        for j in range(indptr[i], indptr[i + 1]):
            t += data[j] * v[indices[j]]
        t *= c
        for j in range(indptr[i], indptr[i + 1]):
            out[indices[j]] += t * data[j]
        out[d] += t * bias


def _hessian_product(X, bias: float, curv: np.ndarray, v: np.ndarray, rows) -> np.ndarray:
    """:math:`\\sum_i c_i\\phi''(z_i)\\tilde x_i\\tilde x_i^\\top v` over the rows where φ'' ≠ 0
    only (the others add nothing: near the optimum most rows sit off the loss's curved
    part): CSR in one compiled read of those rows; dense through ``rows``, those rows
    copied once per step (:func:`slot_margins`), or all of X when most rows are curved."""
    out = np.zeros(v.shape[0])
    if sp.issparse(X):
        _csr_hessian_product(X.data, X.indices, X.indptr, float(bias), curv, v, out)
        return out
    if rows is not None:
        X, curv = rows
    return _transposed(X, bias, curv * _products(X, bias, v))


def _curvatures(loss: Loss, z: np.ndarray) -> np.ndarray:
    """φ''(z), with the curved side's 1/κ at the smoothed hinge's upper kink (1 − z = κU, a
    generalised second derivative as valid as the loss's one-sided 0 there): at w = 0 with
    γ = 1 every margin sits on that kink, where 0 would leave the first step's Hessian λI and
    its direction −∇P/λ, a step some 1/λ too long."""
    out = loss.second_derivatives(z)
    if np.isfinite(loss.upper):
        out[1.0 - z == loss.kappa * loss.upper] = 1.0 / loss.kappa
    return out


def _weights(state: _cocoa.BlockState) -> np.ndarray:
    return np.ones(state.y.shape[0]) if state.weights is None else state.weights


def _gram(X, bias: float, curv: np.ndarray) -> np.ndarray:
    """:math:`\\sum_i c_i\\phi''(z_i)\\tilde x_i\\tilde x_i^\\top`, shape (d + 1, d + 1)."""
    d = X.shape[1]
    out = np.empty((d + 1, d + 1))
    if sp.issparse(X):
        out[:d, :d] = (X.T @ sp.diags(curv) @ X).toarray()
    else:
        out[:d, :d] = (X.T * curv) @ X
    cross = bias * (X.T @ curv)
    out[:d, d] = cross
    out[d, :d] = cross
    out[d, d] = bias * bias * curv.sum()
    return out


def _margins_at(state, data, w: np.ndarray, loss: Loss, gram: bool) -> tuple:
    """One chunk's :class:`Margins` at w and its share of the sums (one pass): :math:`\\sum_i
    c_i a^*(z_i)\\,y_i\\tilde x_i`, with ``gram`` :math:`\\sum_i c_i\\phi''(z_i)\\tilde
    x_i\\tilde x_i^\\top` flattened, then :math:`\\sum_i c_i\\phi(z_i)` and the conjugate terms
    :math:`\\sum_i (a_i - \\kappa a_i^2/(2c_i))` of α̃(w) (:math:`a_i = c_ia^*(z_i)`): what
    P(w) and D(α̃(w)) need besides w and ∇P (the check's estimate)."""
    c = _weights(state)
    z = state.y * _products(data.X, state.bias, w)
    curv = c * _curvatures(loss, z)
    targets = loss.dual_targets(z)
    pieces = [_transposed(data.X, state.bias, c * state.y * targets)]
    if gram:
        pieces.append(_gram(data.X, state.bias, curv).ravel())
    objective = [loss.values(z, state.weights).sum(), loss.dual_terms(c * targets, c).sum()]
    pieces.append(np.array(objective))
    rows = None
    if not gram and not sp.issparse(data.X):
        curved = np.flatnonzero(curv)
        if curved.shape[0] <= CURVED_COPY * z.shape[0]:
            rows = (data.X[curved], curv[curved])
    return Margins(z, curv, None, rows), np.concatenate(pieces)


def _timed_sum(parts, start: float) -> np.ndarray:
    """The parts added in order, the CPU seconds since ``start`` appended."""
    total = parts[0].copy()
    for part in parts[1:]:
        total += part
    return np.append(total, time.process_time() - start)


def slot_margins(states: list, datas: list, w: np.ndarray, loss: Loss, gram: bool) -> Slot:
    """A worker's chunks at w (one task a worker, one pass over their rows)."""
    start = time.process_time()
    made = [_margins_at(st, d, w, loss, gram) for st, d in zip(states, datas, strict=True)]
    return Slot([m for m, _ in made], _timed_sum([p for _, p in made], start))


def slot_certificate(slot: Slot, states: list, datas: list, w: np.ndarray, loss: Loss):
    """The certificate's compensated sums at (w, α̃(w)) over a worker's chunks, merged in
    order, α̃ from the margins the slot holds at w
    (:func:`sdca_pegasos.solvers.cluster.blocks.block_certificate` without α): one pass."""
    sums = None
    for m, state, data in zip(slot.margins, states, datas, strict=True):
        at = state.y * _weights(state) * loss.dual_targets(m.z)
        sums = _cocoa.block_certificate(state, data, w, loss, sums, w, False, at)
    return sums[0]


def slot_part(slot: Slot) -> np.ndarray:
    """A :class:`Slot`'s ``part`` (its own small key, for the reduction)."""
    return slot.part


def slot_hessian(slot: Slot, datas: list, bias: float, v: np.ndarray) -> np.ndarray:
    """The worker's :math:`\\sum_i c_i\\phi''(z_i)\\tilde x_i\\tilde x_i^\\top v` over its
    chunks (one pass over their rows; none over a chunk with no row on the loss's curved
    part), the task's CPU seconds last."""
    start = time.process_time()
    parts = []
    for m, data in zip(slot.margins, datas, strict=True):
        parts.append(_hessian_product(data.X, bias, m.curv, v, m.rows))
    return _timed_sum(parts, start)


def _slope_sums(slot: Slot, states: list, loss: Loss, t: float) -> list:
    out = []
    for m, state in zip(slot.margins, states, strict=True):
        c, u = _weights(state), m.z + t * m.delta
        out.append(
            np.array(
                [
                    float(np.dot(c * loss.dual_targets(u), m.delta)),
                    float(np.dot(c * _curvatures(loss, u), m.delta * m.delta)),
                ]
            )
        )
    return out


def slot_along(slot: Slot, states: list, datas: list, s: np.ndarray, loss: Loss) -> Slot:
    """The margins with their change along s, :math:`\\delta_i = y_i\\tilde x_i^\\top s`
    (one pass); ``part`` the line search's first sums, :func:`slot_slope`'s at t = 1 (the
    Newton step's own length), and the task's CPU seconds."""
    start = time.process_time()
    margins = [
        Margins(m.z, m.curv, state.y * _products(data.X, state.bias, s), m.rows)
        for m, state, data in zip(slot.margins, states, datas, strict=True)
    ]
    along = Slot(margins, np.zeros(0))
    return Slot(margins, _timed_sum(_slope_sums(along, states, loss, 1.0), start))


def slot_slope(slot: Slot, states: list, loss: Loss, t: float) -> np.ndarray:
    """The worker's :math:`(\\sum_i c_ia^*(z_i + t\\delta_i)\\delta_i, \\sum_i c_i\\phi''(z_i +
    t\\delta_i)\\delta_i^2)`, P'(t)'s and P''(t)'s sums (no pass over X), and the task's CPU
    seconds."""
    start = time.process_time()
    return _timed_sum(_slope_sums(slot, states, loss, t), start)


def with_implied_dual(
    state: _cocoa.BlockState, data: _cocoa.BlockData, w: np.ndarray, loss: Loss
) -> _cocoa.BlockState:
    """The chunk's state with α = α̃(w), the dual point that w implies (what ``dual_coef_``
    holds after a Newton fit)."""
    alpha = objectives.implied_dual(data.X, state.y, w, loss, state.bias, state.weights)
    return _cocoa.set_alpha(state, np.arange(alpha.shape[0]), alpha)


# ---------------------------------------------------------------- the driver side
def tree_sum(client, parts: list):
    """The sum of ``parts`` (futures of equal-shaped arrays), added pairwise on the workers
    level by level: one future, ⌈log₂ len(parts)⌉ additions deep, in a fixed order."""
    parts = list(parts)
    while len(parts) > 1:
        half = len(parts) // 2  # a level's additions in one message (client.map)
        pairs = client.map(np.add, parts[0 : 2 * half : 2], parts[1 : 2 * half : 2])
        parts = pairs + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]


def conjugate_gradient(hessian_vector, g: np.ndarray, rtol: float, max_iter: int):
    """s ≈ −H⁻¹g by conjugate gradients from s = 0, to ‖Hs + g‖ ≤ rtol·‖g‖ or ``max_iter``
    products; returns (s, products made)."""
    s = np.zeros_like(g)
    r = -g
    p = r.copy()
    rr = float(np.dot(r, r))
    goal = (rtol * math.sqrt(float(np.dot(g, g)))) ** 2
    made = 0
    while rr > goal and made < max_iter:
        hp = hessian_vector(p)
        made += 1
        php = float(np.dot(p, hp))
        if not php > 0.0:
            break
        a = rr / php
        s += a * p
        r -= a * hp
        rr_next = float(np.dot(r, r))
        p = r + (rr_next / rr) * p
        rr = rr_next
    return s, made


class NewtonClusterEngine(Engine):
    """Truncated Newton steps over every row chunk of one binary problem (module
    docstring), for :func:`sdca_pegasos.solvers.driver.loop.run`: a step is one Newton step;
    ``certify`` is P(w) and D(α̃(w)) over the chunks; ``output`` the certified w.

    Built from the cluster fit's plain settings, as
    :class:`sdca_pegasos.solvers.cluster.rounds.ClusterEngine`: the dask ``client``, the row
    chunks' ``data`` futures, their ``groups`` (a block's chunks merge their certificate
    sums in turn) and the ``problem``; ``loss`` (smooth); ``tol`` (the relative gap a check
    must meet to end the fit); ``workers`` (the cluster's worker addresses, sorted: block k's
    chunks are on the k-th, modulo their number); ``init`` (each chunk's α to start from,
    w = w(α); None: w = 0)."""

    has_dual = True
    folder = None  # no checkpoints (the estimator refuses checkpoint_dir)
    last_checkpoint = None

    def __init__(
        self,
        client,
        data: list,
        groups: list,
        problem: ClusterProblem,
        *,
        loss: Loss,
        tol: float,
        workers: list,
        init: list | None = None,
    ):
        if not loss.smooth:
            raise ValueError(
                "method='newton' needs a smooth loss (its Hessian): use "
                "loss='smooth_hinge' or loss='squared_hinge', or method='cocoa' for the hinge"
            )
        self.client, self.data, self.groups, self.problem = client, data, groups, problem
        self.loss, self.tol, self.init = loss, float(tol), init
        self.workers = list(workers)
        self.w = np.zeros(problem.n_features + 1)
        self.states: list = []
        self.slots: list = []  # (worker, its chunks), set up by _slots
        self.passes = 0.0  # passes over the rows by the steps
        self.certificate_passes = 0
        self.steps: list = []  # each step's t
        self.cg: list = []  # each step's conjugate-gradient products
        self.evals: list = []  # each line search's evaluations of P' (a round trip each)
        self.g0 = None  # ‖∇P‖ at the first step
        self.block_cpu: tuple = ()
        self.check_wall = 0.0
        self._certified: tuple | None = None  # (w, bounds) of the last certificate
        self.round = 0  # the step in progress (or last made)
        self._ready: tuple | None = None  # (w, its slots, their sums): _margins
        self.estimated = 0  # checks that read the estimate alone
        self.round_trips = 0  # sums the driver waited on (_reduce, the certificate's gather)

    def setup(self) -> None:
        """Every chunk's state (labels ±1, weights, B; α = 0 or ``init``); w = w(α) of a
        start."""
        p, client = self.problem, self.client
        alphas = [None] * len(self.data) if self.init is None else self.init
        if self.init is not None and isinstance(self.init[0], str):
            alphas = [client.submit(_cocoa.read_alpha, f, pure=False) for f in self.init]
        self.states = [
            client.submit(
                _cocoa.init_block, self.data[k], k, p.positive_class, p.class_weights, p.two,
                p.bias, self.loss, p.lmbd, p.lmbd * p.n_samples, None, alphas[k], pure=False,
            )
            for k in range(len(self.data))
        ]  # fmt: skip
        if self.init is not None:
            parts = chains(
                client, self.groups, _cocoa.block_certificate, self.states, self.data,
                self.w, self.loss,
            )  # fmt: skip
            sums = client.gather(parts)
            _, self.w = objectives.combine_certificate(
                [s[0] for s in sums], self.w, p.lmbd, self.loss
            )
            self.certificate_passes += 1
        self._slots()

    def _slots(self) -> None:
        """The chunks of each worker, as the layout placed them
        (:func:`sdca_pegasos.solvers.cluster.layout.persist_blocks`: block k's on the k-th
        worker in sorted order, modulo their number): one task a worker per pass, whatever
        the blocks, its chunks' sums added there in order."""
        names = self.workers
        slots = []
        for slot, worker in enumerate(names):
            mine = [c for group in self.groups[slot :: len(names)] for c in group]
            if mine:
                slots.append((worker, mine))
        self.slots = slots

    def _per_slot(self, func, *columns: list, pure: bool = True) -> list:
        """``func`` once per slot, on the slot's worker (elsewhere if it is gone);
        ``columns`` hold one argument per slot (:meth:`_each`, :meth:`_same`). Pinned, not
        left to dask's placement, which ran them away from their chunk when it was one or
        two (``client.map``, seen on dense-full at K = 1 and 2, 2026-11-29: the 800 MB
        chunk moved to the other worker, and arrived misaligned). Each pinned
        ``client.submit`` is a driver call (its cost: the ``pinned`` of
        ``benchmarks/newton_blocks.py``'s probe), so the driver's cost of a pass grows with
        the workers, not the blocks."""
        return [
            self.client.submit(func, *args, workers=[worker], allow_other_workers=True, pure=pure)
            for (worker, _), *args in zip(self.slots, *columns, strict=True)
        ]

    def _each(self, values: list) -> list:
        """Per slot, the entries of ``values`` (one per chunk) of that slot's chunks."""
        return [[values[c] for c in chunks] for _, chunks in self.slots]

    def _same(self, value) -> list:
        """``value`` for every slot."""
        return [value] * len(self.slots)

    def _broadcast(self, v: np.ndarray):
        """v for every slot's task: as is when short (:data:`INLINE_FLOATS`) or for one slot,
        else scattered to every worker once."""
        if len(self.slots) == 1 or v.shape[0] <= INLINE_FLOATS:
            return v
        return self.client.scatter(v, broadcast=True, hash=False)

    def _reduce(self, parts: list) -> np.ndarray:
        self.round_trips += 1
        return self.client.gather(tree_sum(self.client, parts))

    def step(self, step: int) -> Times:
        """One Newton step (module docstring): the gradient's pass (and the Hessian's, up to
        :data:`GRAM_WEIGHTS` weights), the direction (Cholesky on the driver, or conjugate
        gradients, a pass each product), the margins along it, the line search."""
        start = time.perf_counter()
        self.round = step
        p, loss, n, w = self.problem, self.loss, self.problem.n_samples, self.w
        width = w.shape[0]
        gram = width <= GRAM_WEIGHTS
        ready = self._ready  # the last step made the gradient's pass at w (and counted it)
        fresh = ready is None or ready[0] is not w
        slots, total = self._margins(w)
        self._ready = None
        cpu = float(total[-1]) if fresh else 0.0
        g = p.lmbd * w - total[:width] / n
        norm = math.sqrt(float(np.dot(g, g)))
        if self.g0 is None:
            self.g0 = norm
        if gram:
            H = total[width : width + width * width].reshape(width, width) / n
            H[np.diag_indices(width)] += p.lmbd
            s, made = newton_direction(g, H), 0
        else:

            def hessian_vector(v):
                nonlocal cpu
                v_key = self._broadcast(v)
                out = self._reduce(
                    self._per_slot(slot_hessian, slots, self._each(self.data), self._same(p.bias),
                              self._same(v_key))
                )  # fmt: skip
                cpu += float(out[-1])
                return p.lmbd * v + out[:-1] / n

            rtol = CG_FORCING * min(1.0, math.sqrt(norm / self.g0)) if self.g0 > 0.0 else 0.0
            s, made = conjugate_gradient(hessian_vector, g, rtol, MAX_CG)
        s_key = self._broadcast(s)
        slots = self._per_slot(
            slot_along, slots, self._each(self.states), self._each(self.data),
            self._same(s_key), self._same(loss), pure=False,
        )  # fmt: skip
        at_one = self._reduce(self._per_slot(slot_part, slots))
        cpu += float(at_one[-1])

        def slope(t):
            nonlocal cpu
            if t == 1.0:  # the along pass's own sums
                return float(at_one[0]), float(at_one[1])
            out = self._reduce(
                self._per_slot(
                    slot_slope, slots, self._each(self.states), self._same(loss), self._same(t)
                )
            )
            cpu += float(out[-1])
            return float(out[0]), float(out[1])

        t, evals = line_search(
            slope, float(np.dot(g, s)), float(np.dot(w, s)), float(np.dot(s, s)), p.lmbd, n,
            LINE_TOL,
        )  # fmt: skip
        self.w = w + t * s
        self.steps.append(t)
        self.cg.append(made)
        self.evals.append(evals)
        self.passes += 1 + made  # the CG products, the margins along s (the gradient's: _margins)
        # the gradient's pass at the new w, the next step's and the check's (whose own cost
        # is then what it adds: the estimate's arithmetic, or the certificate's pass)
        _, total = self._margins(self.w)
        cpu += float(total[-1])
        self.block_cpu = (cpu,)
        self.check_wall = 0.0
        return Times(cpu, time.perf_counter() - start)

    def current(self) -> tuple[np.ndarray, None]:
        return self.w, None

    def _margins(self, w: np.ndarray) -> tuple:
        """(the slots' futures, their summed parts) at w: the gradient's pass, made once per
        w (a check's estimate and the next step share it)."""
        ready = self._ready
        if ready is not None and ready[0] is w:
            return ready[1], ready[2]
        gram = w.shape[0] <= GRAM_WEIGHTS
        w_key = self._broadcast(w)
        slots = self._per_slot(
            slot_margins, self._each(self.states), self._each(self.data), self._same(w_key),
            self._same(self.loss), self._same(gram), pure=False,
        )  # fmt: skip
        total = self._reduce(self._per_slot(slot_part, slots))
        self.passes += 1
        self._ready = (w, slots, total)
        return slots, total

    def estimate(self, w: np.ndarray, total: np.ndarray) -> tuple[float, float]:
        """P(w) and D(α̃(w)) from the gradient pass's sums, in plain floating point (no
        compensation, no allowance): w(α̃(w)) = w − ∇P(w)/λ exactly, so D needs no pass of
        its own."""
        lmbd, n = self.problem.lmbd, self.problem.n_samples
        width = w.shape[0]
        loss_sum, dual_sum = float(total[-3]), float(total[-2])
        g = lmbd * w - total[:width] / n
        w_alpha = w - g / lmbd
        primal = 0.5 * lmbd * float(np.dot(w, w)) + loss_sum / n
        return primal, dual_sum / n - 0.5 * lmbd * float(np.dot(w_alpha, w_alpha))

    def _certify(self, w: np.ndarray) -> dict:
        """The certificate of (w, α̃(w)): the compensated pass over every chunk, with the
        outward allowance (one pass; the margins are the gradient pass's)."""
        if self._certified is not None and self._certified[0] is w:
            return self._certified[1]
        slots, _ = self._margins(w)
        w_key = self._broadcast(w)
        parts = self._per_slot(
            slot_certificate, slots, self._each(self.states), self._each(self.data),
            self._same(w_key), self._same(self.loss), pure=False,
        )  # fmt: skip
        sums = self.client.gather(parts)
        self.round_trips += 1
        bounds, _ = objectives.combine_certificate(sums, w, self.problem.lmbd, self.loss)
        self.certificate_passes += 1
        self._certified = (w, bounds)
        return bounds

    def certify(self, w: np.ndarray, dual_coef=None, check: bool = True) -> Bounds:
        """The fit's check at w: the estimate (:meth:`estimate`, free with the next step's
        gradient pass) while it is above :data:`ESTIMATE_SLACK` times ``tol`` (relative), the
        certificate (:meth:`_certify`) once it may pass; a certificate asked on demand
        (``check=False``) is always the full one."""
        start = time.perf_counter()
        if check and self.tol > 0.0:
            _, total = self._margins(w)
            primal, dual = self.estimate(w, total)
            if primal - dual > ESTIMATE_SLACK * self.tol * abs(primal):
                self.estimated += 1
                self.check_wall += time.perf_counter() - start
                return Bounds(primal, dual, primal - dual)
        bounds = self._certify(w)
        if check:
            self.check_wall += time.perf_counter() - start
        return Bounds(bounds["primal"], bounds["dual"], bounds["gap"])

    def output(self) -> tuple[np.ndarray, None]:
        return self.w, None

    def record(self) -> dict:
        n = self.problem.n_samples
        return {
            "n_samples_seen": round(self.passes * n),
            "data_passes": self.passes,
            "finish": False,
            "block_cpu": self.block_cpu,
            "check_wall": self.check_wall,
        }

    def attributes(self, w_out: np.ndarray) -> dict:
        """What the estimator stores (as :meth:`ClusterEngine.attributes`): the returned w's
        certificate, every chunk's α = α̃(w), the passes, each step's t (``step_sizes``) and
        its conjugate-gradient products (``cg_iterations``), and the sums the driver waited
        on (``round_trips``)."""
        bounds = self._certify(w_out)
        w_key = self._broadcast(w_out)
        states = [
            self.client.submit(with_implied_dual, s, d, w_key, self.loss, pure=False)
            for s, d in zip(self.states, self.data, strict=True)
        ]
        return {
            "bounds": bounds,
            "certified": self.tol > 0.0 and bounds["gap"] <= self.tol * abs(bounds["primal"]),
            "finishes": 0,
            "data_passes": self.passes,
            "certificate_passes": self.certificate_passes,
            "states": states,
            "step_sizes": np.array(self.steps),
            "cg_iterations": np.array(self.cg, dtype=np.int64),
            "line_search_evals": np.array(self.evals, dtype=np.int64),
            "estimated_checks": self.estimated,
            "round_trips": self.round_trips,
        }


__all__ = [
    "CG_FORCING",
    "MAX_CG",
    "Margins",
    "NewtonClusterEngine",
    "conjugate_gradient",
    "tree_sum",
]
