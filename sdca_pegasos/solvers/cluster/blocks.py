r"""The worker side of :class:`sdca_pegasos.solvers.cluster.estimator.DaskSVMClassifier`: a block
of rows and its dual variables, one CoCoA+ round on it, its share of the certificate, its
checkpoint.

Every function here runs inside a dask task on the worker that holds a row chunk, takes
the chunk's state and returns a *new* state (dask's results are immutable: a retried or
recomputed task must see the state it was given), so a chunk's state is a chain of
futures, one per round, that never leaves its worker; only the d-sized vectors travel.
The chunk's rows live in one key of their own (:class:`BlockData`), apart from the state,
so that dask can spill them to disk and read them back for each task that needs them: a
block of several chunks (``n_blocks``) makes its local pass one chunk at a time, v going
from one chunk's task to the next, and never needs all its rows in memory at once.

A chunk of the user's rows is checked where it is built (:func:`checked_block_data`: numbers,
finite, classes, weights >= 0); a refused one is a :class:`Refused` value, not an exception (dask
logs a task that raises, traceback and all, on its worker), which the driver turns into a
:class:`BadInput` in the user's process before any round.

The local subproblem (Ma et al. 2015, Smith et al. JMLR 2018, with adding: γ = 1,
σ' = K blocks). With :math:`\tilde w = \frac{1}{\lambda n}\sum_i \alpha_i\tilde x_i` (n the
*global* row count), block k maximises over its :math:`\Delta\alpha_{[k]}`

.. math::

    -\frac1n\sum_{i\in k}\phi_i^*(-\alpha_i - \Delta\alpha_i)
    - \frac1n \tilde w^\top A_k\Delta\alpha_{[k]}
    - \frac{\lambda\sigma'}{2}\Big\|\frac{1}{\lambda n}A_k\Delta\alpha_{[k]}\Big\|^2 .

Its partial derivative along :math:`\Delta\alpha_i` is :math:`-\frac1n(\ldots + \tilde
x_i^\top v)` with :math:`v = \tilde w + \frac{\sigma'}{\lambda n}A_k\Delta\alpha_{[k]}`, and
its curvature :math:`\sigma'\|\tilde x_i\|^2/(\lambda n)`: exactly SDCA's coordinate step
(:mod:`sdca_pegasos.solvers.sdca.estimator`) on the block's rows with :math:`\lambda n` replaced by
:math:`\lambda n/\sigma'` (``Params.lmbd_n``), started from :math:`v = \tilde w`, whose
running iterate is this :math:`v`. After the local passes the block's contribution is
:math:`\Delta w_k = \frac{1}{\lambda n}A_k\Delta\alpha_{[k]} = (v_{end} - \tilde w)/\sigma'`,
and the driver sets :math:`\tilde w \leftarrow \tilde w + \sum_k \Delta w_k`, which keeps
:math:`\tilde w = \tilde w(\alpha)`. With one block (σ' = 1) a round is an SDCA epoch.

Aggregation by line search (``aggregate="line_search"``, Lee & Roth, ICML 2015): σ' = 1, and
the driver takes a step η along :math:`\Delta\alpha = \sum_k\Delta\alpha_{[k]}`; with
:math:`a_i = y_i\alpha_i`, along that line

.. math::

    D(\alpha + \eta\Delta\alpha) = D(\alpha)
    + \eta\Big(\frac1n\sum_i\Big(\Delta a_i - \frac{\kappa}{c_i}a_i\Delta a_i\Big)
    - \lambda\tilde w^\top\Delta w\Big)
    - \frac{\eta^2}{2}\Big(\frac1n\sum_i\frac{\kappa}{c_i}\Delta a_i^2
    + \lambda\|\Delta w\|^2\Big),

whose sums over the rows each chunk sends back with its v (:func:`line_sums`, with the
largest η its box allows), and Δw is the driver's sum of the blocks' :math:`v_k - \tilde w`.
The chunk keeps the α it started the round from (``BlockState.start``) until the driver's
η comes back (:func:`apply_step`).
"""

from __future__ import annotations

import copy
import json
import os
import time
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.rows import kernel_rows
from sdca_pegasos.solvers.sdca.kernels import kernel_inputs, sdca_epoch
from sdca_pegasos.solvers.sdca.shrinking import (
    PERMUTATION,
    new_active_set,
    shrinking_epoch,
)


@dataclass(frozen=True)
class BlockData:
    """A block of rows as it arrived on its worker: X_k (dense C-contiguous float32/64 or
    canonical CSR), its raw labels and its sample weights (or None)."""

    X: object
    labels: np.ndarray
    sample_weight: np.ndarray | None

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    def __sizeof__(self) -> int:
        """Bytes held (what dask's ``sizeof`` reads to decide what to spill to disk: a
        dataclass would otherwise weigh as its few pointers and never leave memory)."""
        return _nbytes(self.X, self.labels, self.sample_weight)


class Shrink(NamedTuple):
    """A chunk's shrinking state between rounds: its active rows ``samples[:size]``, the
    threshold ``eps`` of the shrunk phase and the rows' last gradients ``grad`` (NaN:
    unknown), as :func:`sdca_pegasos.solvers.sdca.shrinking.shrinking_epoch` leaves them."""

    samples: np.ndarray
    size: int
    eps: float
    grad: np.ndarray


@dataclass(frozen=True)
class BlockState:
    """One row chunk's part of a binary problem between two rounds, without its rows:
    those stay in the chunk's one :class:`BlockData` key, which dask may spill to disk,
    and each task that needs them takes that key as an argument.

    Attributes
    ----------
    index : int
        The chunk's position among the row chunks.
    y, sq_norms, weights, bias :
        What :func:`sdca_pegasos.solvers.core.rows.kernel_rows` takes besides X: labels ±1, ‖x̃_i‖²,
        c_i (or None), B.
    sweep, params :
        What :func:`sdca_pegasos.solvers.sdca.kernels.sdca_epoch` takes besides the rows
        (``sweep.dual_coef``: the chunk's α, signed; ``sweep.w``: scratch for v) and the
        scalars (``lmbd_n`` = λn/σ').
    rng : numpy.random.Generator
        The chunk's own stream (its permutations).
    steps : int
        Coordinate steps made so far.
    v : ndarray of shape (n_features + 1,)
        The local iterate after the chunk's last pass (what the next chunk of the block, or
        the driver, reads).
    cpu : float
        CPU seconds of the block's local passes this round up to and including this chunk's.
    round_steps : int
        Coordinate steps of the block's local passes this round, likewise.
    shrink : Shrink or None
        With ``shrinking``, the active set, its threshold and the gradients where the last
        local pass left them (None: every row active, as at the start and after a finish).
    start : ndarray or None
        Aggregation by line search only: the chunk's α at the start of the round in
        progress (its direction is ``sweep.dual_coef - start``) until the driver's step
        is applied (:func:`apply_step`); None otherwise.
    line : ndarray or None
        Aggregation by line search only: the block's :func:`line_sums` so far this round
        (the chunks of the block up to and including this one); None otherwise.
    """

    index: int
    y: np.ndarray
    sq_norms: np.ndarray
    weights: np.ndarray | None
    bias: float
    sweep: object
    params: object
    rng: np.random.Generator
    steps: int = 0
    v: np.ndarray | None = None
    cpu: float = 0.0
    round_steps: int = 0
    shrink: Shrink | None = None
    start: np.ndarray | None = None
    line: np.ndarray | None = None

    def rows(self, data: BlockData):
        """The kernels' rows: the chunk's X with this state's y, ‖x̃‖², c and B."""
        return kernel_rows(data.X, self.y, self.sq_norms, self.weights, self.bias)

    def __sizeof__(self) -> int:
        """Bytes held (dask's ``sizeof``; see :meth:`BlockData.__sizeof__`)."""
        carried = () if self.shrink is None else (self.shrink.samples, self.shrink.grad)
        return _nbytes(
            self.y, self.sq_norms, self.weights, self.v, self.start, *self.sweep, *carried
        )


def _nbytes(*arrays) -> int:
    """Bytes of the arrays (dense or scipy.sparse; None counts 0)."""
    total = 0
    for a in arrays:
        if sp.issparse(a):
            total += a.data.nbytes + a.indices.nbytes + a.indptr.nbytes
        elif isinstance(a, np.ndarray):
            total += a.nbytes
    return total


def _aligned(a: np.ndarray) -> np.ndarray:
    """``a``, copied once if its memory is not aligned for its dtype. A chunk that reached its
    worker over the wire can be a view into the received frame at any byte offset, and NumPy
    does not hand misaligned arrays to BLAS: dense-full's 800 MB chunk arrived so at K = 1
    and every X @ w on it took the slow path (``benchmarks/newton_blocks.py``'s record
    before and after; ``tests/test_distributed.py`` holds the check)."""
    return a if a.flags.aligned else a.copy()


def block_data(X, labels, sample_weight=None) -> BlockData:
    """Validate a chunk on its worker: float32/float64 rows (other numeric types become
    float64), C order or canonical CSR, every array aligned (:func:`_aligned`); labels 1-d
    of the same length."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        parts = (X.data, X.indices, X.indptr)
        if not all(a.flags.aligned for a in parts):
            X = sp.csr_matrix(tuple(_aligned(a) for a in parts), shape=X.shape)
    else:
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = _aligned(np.ascontiguousarray(X))
    labels = _aligned(np.asarray(labels).ravel())
    if labels.shape[0] != X.shape[0]:
        raise ValueError(
            f"a block has {X.shape[0]} rows of X but {labels.shape[0]} labels: chunk y "
            "along its rows exactly as X (y.rechunk(X.chunks[0]))."
        )
    if sample_weight is not None:
        sample_weight = _aligned(np.ascontiguousarray(sample_weight, dtype=np.float64).ravel())
    return BlockData(X, labels, sample_weight)


# ------------------------------------------------------------------ refused inputs
class BadInput(ValueError):
    """An input refused by name: the shard's file, or X's row chunk (its index and rows),
    what is wrong with it and how to fix it.

    Raised on the driver only. A worker's check returns a :class:`Refused` instead of
    raising (dask logs a task that raises on its worker, as "Compute Failed" with the
    traceback, in the cluster's log), and the driver, which gathers the checks before any
    round, raises this in the user's process."""


@dataclass(frozen=True)
class Refused:
    """What a worker's check returns in place of its result when it refuses the input: the
    message of the :class:`BadInput` the driver raises."""

    message: str


def refusal(value) -> str | None:
    """The message of ``value`` when it is a :class:`Refused`, else None: the small result
    the driver gathers from each chunk or shard before it spends a round."""
    return value.message if isinstance(value, Refused) else None


class Where(NamedTuple):
    """Where the rows a check reads come from, as its messages name them: ``name`` (e.g.
    ``"shard /data/b.parquet"`` or ``"X's row chunk 2 (rows 40 to 59)"``), how a row is
    named (``rows``, a format of its position: ``"row {} of X"``, ``"row {} of the
    file"``), the position of the first (``start``) and the feature columns' names
    (``columns``; None: their indices)."""

    name: str
    rows: str = "row {}"
    start: int = 0
    columns: tuple | None = None

    def row(self, i: int) -> str:
        return self.rows.format(self.start + int(i))

    def column(self, j: int) -> str:
        return f"column {self.columns[j]!r}" if self.columns is not None else f"column {j}"


def chunk_where(index: int, start: int, size: int) -> Where:
    """How the checks name X's row chunk ``index`` of ``size`` rows from row ``start``."""
    return Where(
        f"X's row chunk {index} (rows {start} to {start + size - 1})", "row {} of X", start
    )


def _first(mask: np.ndarray) -> int:
    """The flat position of the first True of ``mask`` (one exists)."""
    return int(np.argmax(mask.ravel()))


def as_numbers(X, where: Where):
    """X itself when its values are numbers (bool, integers or floats, dense or sparse),
    else converted to float64 (an object array of numbers); text or complex values are
    refused (:class:`BadInput`) with ``where``."""
    kind = X.dtype.kind
    if kind == "c":
        raise BadInput(
            f"Complex data not supported: X in {where.name} holds complex numbers; pass "
            "their real parts (or real and imaginary parts as two features)."
        )
    if kind in "biuf":
        return X
    try:
        return X.astype(np.float64)
    except (TypeError, ValueError) as err:
        raise BadInput(
            f"X in {where.name} holds values that are not numbers ({err}): encode text as "
            "numbers (e.g. sklearn.preprocessing.OneHotEncoder) or drop it before fitting."
        ) from None


def check_features(X, where: Where) -> None:
    """Refuse (:class:`BadInput`) X (float rows, dense or CSR) unless every stored value is
    finite; the message names the first NaN or infinity: its row and column."""
    values = X.data if sp.issparse(X) else X
    finite = np.isfinite(values)
    if finite.all():
        return
    k = _first(~finite)
    if sp.issparse(X):
        i, j = int(np.searchsorted(X.indptr, k, side="right")) - 1, int(X.indices[k])
    else:
        i, j = np.unravel_index(k, X.shape)
    what = "NaN" if np.isnan(values.ravel()[k]) else "infinity"
    raise BadInput(
        f"Input X contains {what} in {where.name}, first at {where.row(i)}, "
        f"{where.column(j)}: DaskSVMClassifier takes finite numbers only; drop those rows "
        "or impute their values (e.g. sklearn.impute.SimpleImputer) before fitting."
    )


def check_labels(labels: np.ndarray, where: Where) -> None:
    """Refuse (:class:`BadInput`) labels that are not classes, as scikit-learn's
    ``type_of_target`` sees them: NaN or infinity, floats that are not whole numbers (a
    continuous target), complex numbers, or objects of no one type."""
    from sklearn.utils.multiclass import type_of_target

    kind = labels.dtype.kind
    if kind in "biu":
        return
    if kind == "f":
        finite = np.isfinite(labels)
        if not finite.all():
            i = _first(~finite)
            what = "NaN" if np.isnan(labels[i]) else "infinity"
            raise BadInput(
                f"Input y contains {what} in {where.name}, first at {where.row(i)}: every "
                "row needs a class; drop the rows without one."
            )
        whole = labels == np.floor(labels)
        if not whole.all():
            i = _first(~whole)
            raise BadInput(
                f"Unknown label type: continuous, in {where.name} (y = {labels[i]!r} at "
                f"{where.row(i)} is not a whole number). Maybe you are trying to fit a "
                "classifier, which expects discrete classes, on a regression target with "
                "continuous values: bin y into classes, or fit a regressor."
            )
        return
    try:
        target = type_of_target(labels, input_name="y")
    except (TypeError, ValueError) as err:
        target = f"unknown ({err})"
    if target not in ("binary", "multiclass"):
        raise BadInput(
            f"Unknown label type: {target}, in {where.name} (y of dtype {labels.dtype}): y "
            "must hold classes in an array of numbers or of strings; convert it (e.g. a "
            "pandas column of dtype object or Int64 with .astype(int) or .astype(str))."
        )


def check_weights(sample_weight: np.ndarray | None, where: Where) -> None:
    """Refuse (:class:`BadInput`) sample weights that are not finite or are negative."""
    if sample_weight is None:
        return
    finite = np.isfinite(sample_weight)
    if not finite.all():
        i = _first(~finite)
        what = "NaN" if np.isnan(sample_weight[i]) else "infinity"
        raise BadInput(
            f"Input sample_weight contains {what} in {where.name}, first at "
            f"{where.row(i)}: every weight must be a finite number >= 0."
        )
    if (sample_weight < 0).any():
        i = _first(sample_weight < 0)
        raise BadInput(
            f"Negative values in data passed to `sample_weight`, in {where.name}, first at "
            f"{where.row(i)} ({sample_weight[i]!r}): every weight must be >= 0."
        )


def checked_block_data(X, labels, sample_weight, where: Where) -> BlockData | Refused:
    """:func:`block_data` of a row chunk of the user's data, checked on its worker: finite
    numbers in X (:func:`check_features`), classes in y (:func:`check_labels`), finite
    weights >= 0 (:func:`check_weights`); a :class:`Refused` naming ``where`` instead when
    a check fails (returned, not raised: nothing reaches the cluster's log)."""
    try:
        labels = np.asarray(labels).ravel()
        data = block_data(as_numbers(X, where), labels, sample_weight)
        check_features(data.X, where)
        check_labels(data.labels, where)
        check_weights(data.sample_weight, where)
    except BadInput as err:
        return Refused(str(err))
    return data


def merge_data(*parts: BlockData) -> BlockData:
    """One block of the chunks ``parts``, their rows in order (``n_blocks="auto"``, when
    the rows fit in the workers' memory): dense rows concatenated, CSR stacked (canonical,
    as each part), labels and weights likewise."""
    if len(parts) == 1:
        return parts[0]
    Xs = [p.X for p in parts]
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.concatenate(Xs)
    weights = [p.sample_weight for p in parts]
    w = None if weights[0] is None else np.concatenate(weights)
    return block_data(X, np.concatenate([p.labels for p in parts]), w)


def dealt_rows(data: BlockData, first: int, step: int) -> BlockData:
    """The chunk's rows ``first``, ``first + step``, …: its share of one of ``step`` blocks
    whose rows are dealt in turn (``n_blocks="auto"``, merged)."""
    rows = slice(first, None, step)
    weights = None if data.sample_weight is None else data.sample_weight[rows]
    return block_data(data.X[rows], data.labels[rows], weights)


def rows_slice(values: np.ndarray, start: int, stop: int) -> np.ndarray:
    """``values[start:stop]``, a copy (a task's result of its own)."""
    return values[start:stop].copy()


def interleave(first: int, size: int, *pieces: np.ndarray) -> np.ndarray:
    """A chunk's ``size`` values from the dealt blocks' ``pieces`` (piece k: its values of
    the chunk's rows in block k): row i is in block (``first`` + i) mod K."""
    out = np.empty(size)
    step = len(pieces)
    for k, piece in enumerate(pieces):
        out[(k - first) % step :: step] = piece
    return out


def data_bytes(data: BlockData) -> int:
    """The chunk's bytes (:meth:`BlockData.__sizeof__`)."""
    return data.__sizeof__()


def block_labels(data: BlockData, weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """The block's classes and their counts (weighted by ``sample_weight`` when asked)."""
    classes, inverse = np.unique(data.labels, return_inverse=True)
    if weighted and data.sample_weight is not None:
        counts = np.bincount(inverse, weights=data.sample_weight, minlength=classes.shape[0])
    else:
        counts = np.bincount(inverse, minlength=classes.shape[0]).astype(np.float64)
    return classes, counts


def block_work(data: BlockData) -> int:
    """What one local pass over the chunk costs, in the units of
    :data:`sdca_pegasos.solvers.cluster.layout.AUTO_ROUND_WORK`: its stored entries (every entry of
    a dense chunk, the nonzeros of a CSR one) and two per row (the bias entry and the step)."""
    X = data.X
    entries = X.nnz if sp.issparse(X) else X.shape[0] * X.shape[1]
    return int(entries + 2 * X.shape[0])


def problem_weights(data: BlockData, positive, class_weights: dict | None, two: bool):
    """c_i of the block in the binary problem whose +1 class is ``positive``:
    ``sample_weight`` times the class weights (two classes: each its own; one-vs-rest:
    the positive class its weight, the rest 1), as the single-process estimators."""
    weights = data.sample_weight
    if class_weights is not None:
        if two:
            per_sample = np.array([class_weights[c] for c in data.labels.tolist()], dtype=float)
        else:
            per_sample = np.where(data.labels == positive, class_weights[positive], 1.0)
        weights = per_sample if weights is None else weights * per_sample
    return None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)


def init_block(
    data: BlockData,
    index: int,
    positive,
    class_weights,
    two: bool,
    bias: float,
    loss: Loss,
    lmbd: float,
    lmbd_n_local: float,
    rng: np.random.Generator,
    init_alpha=None,
) -> BlockState:
    """The chunk's state at the start of a fit: α = 0, or ``init_alpha`` (a warm start, a
    checkpoint) clipped to the loss's box."""
    X = data.X
    y = np.where(data.labels == positive, 1.0, -1.0)
    _, sweep, params = kernel_inputs(X, y, lmbd, lmbd_n=lmbd_n_local)
    weights = problem_weights(data, positive, class_weights, two)
    params = params._replace(loss=loss)
    if init_alpha is not None:
        box = loss.box(weights, X.shape[0])
        a = np.clip(y * np.asarray(init_alpha, dtype=np.float64), 0.0, box)
        sweep.dual_coef[:] = y * a
    sq_norms = objectives.row_sq_norms(X, bias)
    return BlockState(index, y, sq_norms, weights, float(bias), sweep, params, rng)


def local_round(
    state: BlockState,
    data: BlockData,
    carry: tuple[np.ndarray, float, int],
    local_epochs: int,
    shrinking: bool = False,
    line: bool = False,
    last: bool = True,
) -> BlockState:
    """``local_epochs`` SDCA passes over the chunk's rows on the block's local subproblem,
    from v, the CPU seconds and the steps ``carry`` holds (the driver's (w, 0, 0) for a
    block's first chunk of a round, the previous chunk's :func:`local_result` after it);
    returns the new state, whose ``v`` is the local iterate at the end (module docstring).

    With ``line`` (aggregation by line search), the state keeps the α the round started
    from (``start``: kept from an earlier visit of this round, else the α given), and on
    the chunk's ``last`` visit of the round adds its :func:`line_sums` to the block's
    (``carry``'s fourth entry, None at the block's first chunk): what the driver's step
    needs, with no pass over the rows.

    Each pass is a fresh permutation of the rows drawn from the chunk's stream; with
    ``shrinking``, each is an epoch of SDCA with shrinking instead (as
    ``SDCAClassifier(shrinking=True)`` makes it: :func:`sdca_pegasos.solvers.sdca.shrinking.
    shrinking_epoch`, its passes drawn in the kernel from a seed of the chunk's stream),
    from the active set, threshold and gradients the chunk's last pass left
    (``state.shrink``; every row at first and after a finish): one block's rounds are then
    the epochs of ``SDCAClassifier(shrinking=True)``. The other blocks' updates move v
    between rounds, so a row shrunk out may come to violate its bound; it is back at the
    next full pass, which comes when the active set's problem is solved (every pass
    visits the active rows, the certificate every row).
    """
    v, cpu, round_steps = carry[:3]
    sums = carry[3] if len(carry) > 3 else None
    start = None
    if line:
        start = state.sweep.dual_coef.copy() if state.start is None else state.start
    rng = copy.deepcopy(state.rng)  # never advance the input's stream (a retried task)
    sweep = state.sweep._replace(
        w=np.array(v, dtype=np.float64), dual_coef=state.sweep.dual_coef.copy()
    )
    rows = state.rows(data)
    n = sweep.dual_coef.shape[0]
    steps = state.steps
    if shrinking:
        active, eps = new_active_set(n, PERMUTATION), np.inf
        grad = np.full(n, np.nan)
        if state.shrink is not None:
            active.samples[:] = state.shrink.samples
            active.size[0] = state.shrink.size
            eps, grad = state.shrink.eps, state.shrink.grad.copy()
        sweep = sweep._replace(grad=grad)
    for _ in range(local_epochs):
        if shrinking:
            seed = int(rng.integers(2**63))
            t = time.process_time()
            made, eps = shrinking_epoch(rows, sweep, state.params, active, steps, seed, eps)
        else:
            indices = rng.permutation(n)
            t = time.process_time()
            made = sdca_epoch(rows, sweep, state.params, indices, steps, n, -np.inf)
        cpu += time.process_time() - t
        steps += made
    shrink = None
    if shrinking:
        shrink = Shrink(active.samples, int(active.size[0]), float(eps), sweep.grad)
    sweep = sweep._replace(grad=None)
    round_steps += steps - state.steps
    if line and last:
        own = line_sums(state, start, sweep.dual_coef)
        sums = own if sums is None else merge_line_sums(sums, own)
    return replace(
        state, sweep=sweep, rng=rng, steps=steps, v=sweep.w, cpu=cpu, round_steps=round_steps,
        shrink=shrink, start=start, line=sums,
    )  # fmt: skip


def local_result(state: BlockState) -> tuple:
    """What the next chunk of the block, or the driver after its last, reads: v, the
    block's CPU seconds and its coordinate steps this round so far, and its
    :func:`line_sums` so far (None without line search)."""
    return state.v, state.cpu, state.round_steps, state.line


def line_sums(state: BlockState, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    r"""The chunk's share of the dual along its direction :math:`\Delta\alpha = ` ``end`` −
    ``start`` (signed α; :math:`a_i = y_i\alpha_i`, weights :math:`c_i`, the loss's
    :math:`\kappa` and box :math:`[0, c_iU]`, :mod:`sdca_pegasos.solvers.core.losses`):
    ``[s1, s2, eta_max]`` with

    .. math::

        s_1 = \sum_i \Delta a_i - \frac{\kappa}{c_i} a_i\Delta a_i, \qquad
        s_2 = \sum_i \frac{\kappa}{c_i}\Delta a_i^2,

    (rows of weight 0 add nothing: their box is the point 0) so that the conjugate terms of
    :math:`D(\alpha + \eta\Delta\alpha)` are theirs at α plus
    :math:`(\eta s_1 - \eta^2 s_2/2)/n`, and ``eta_max`` the largest η that keeps every
    :math:`a_i + \eta\Delta a_i` in its box (inf when none binds; at least 1 in exact
    arithmetic, ``end`` being feasible)."""
    a = state.y * start
    delta = state.y * end - a
    loss = state.params.loss
    if state.weights is None:
        curv = np.full(a.shape[0], loss.kappa)
        box = np.full(a.shape[0], loss.upper)
    else:
        curv = loss.dual_curvatures(state.weights)
        box = loss.box(state.weights)
    s1 = float(delta.sum() - np.dot(curv * a, delta))
    s2 = float(np.dot(curv * delta, delta))
    up, down = delta > 0.0, delta < 0.0
    eta_max = np.inf
    if up.any():
        eta_max = min(eta_max, float(np.min((box[up] - a[up]) / delta[up])))
    if down.any():
        eta_max = min(eta_max, float(np.min(a[down] / -delta[down])))
    return np.array([s1, s2, eta_max])


def merge_line_sums(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Two :func:`line_sums` of disjoint rows as one: the sums added, the ``eta_max`` the
    smaller."""
    return np.array([first[0] + second[0], first[1] + second[1], min(first[2], second[2])])


def apply_step(state: BlockState, eta: float) -> BlockState:
    r"""The chunk's α moved by the driver's step η along its direction of the round:
    :math:`\alpha_{start} + \eta\,(\alpha_{end} - \alpha_{start})`, each :math:`a_i`
    clipped to its box (a rounding over it when η > 1; η = 1 keeps the local passes' α
    bit for bit); ``start`` and ``line`` cleared. A state with no ``start`` is returned as
    is."""
    if state.start is None:
        return state
    end = state.sweep.dual_coef
    if eta == 1.0:
        alpha = end
    else:
        alpha = state.start + eta * (end - state.start)
        loss = state.params.loss
        box = loss.box(state.weights, alpha.shape[0])
        alpha = state.y * np.clip(state.y * alpha, 0.0, box)
    sweep = state.sweep._replace(dual_coef=alpha)
    return replace(state, sweep=sweep, start=None, line=None)


def bias_slope_sums(
    state: BlockState, data: BlockData, w: np.ndarray, loss: Loss, previous=None
) -> np.ndarray:
    r"""The chunk's share of the primal's first and second derivative along the bias
    weight at w (smooth loss): :math:`\big(\sum_i c_i y_i a^*(z_i),\ \sum_i c_i
    \phi''(z_i)\big)`, :math:`a^* = -\phi'` (the loss's ``dual_targets`` and
    ``second_derivatives``), added to ``previous`` (the block's chunks before it). Plain
    sums: they only choose the candidate :math:`w'` that the certificate then bounds
    exactly."""
    z = objectives.margins(data.X, state.y, w, state.bias)
    curved = loss.second_derivatives(z)
    a = loss.dual_targets(z)
    if state.weights is not None:
        a, curved = a * state.weights, curved * state.weights
    sums = np.array([float(np.dot(state.y, a)), float(curved.sum())])
    return sums if previous is None else previous + sums


def block_certificate(
    state: BlockState,
    data: BlockData,
    w: np.ndarray,
    loss: Loss,
    previous: tuple | None = None,
    w_implied: np.ndarray | None = None,
    with_alpha: bool = True,
    implied: np.ndarray | None = None,
) -> tuple:
    """The chunk's :class:`sdca_pegasos.solvers.core.objectives.CertificateSums` at (w, α_k) and,
    given ``w_implied``, at (w_implied, :func:`sdca_pegasos.solvers.core.objectives.implied_dual`
    of it), each merged with those of the block's chunks before it (``previous``) when given: a
    tuple of one or two sums; without ``with_alpha``, the sums at (w_implied, α̃) alone (a
    fit that keeps no α of its own: ``method="newton"``), and given ``implied``, that α̃
    itself (computed already from w_implied's margins).

    A chunk whose rows all weigh 0 (``sample_weight`` times the class weights) holds α = 0
    and adds no term: its sums are those of no row, counted as its rows (the objectives
    refuse weights that are 0 everywhere, which the whole problem's are not)."""
    if state.weights is not None and not state.weights.any():
        none = slice(0, 0)
        empty = objectives.certificate_sums(
            data.X[none], state.y[none], w, state.sweep.dual_coef[none], loss, state.bias
        )._replace(n_samples=state.y.shape[0])
        parts = [empty] * (int(with_alpha) + int(w_implied is not None))
        if previous is None:
            return tuple(parts)
        return tuple(objectives.merge_sums(p, s) for p, s in zip(previous, parts, strict=True))
    parts = []
    if with_alpha:
        parts.append(
            objectives.certificate_sums(
                data.X, state.y, w, state.sweep.dual_coef, loss, state.bias, state.weights
            )
        )
    if w_implied is not None:
        v, c = w_implied, state.weights
        at = implied
        if at is None:
            at = objectives.implied_dual(data.X, state.y, v, loss, state.bias, c)
        parts.append(objectives.certificate_sums(data.X, state.y, v, at, loss, state.bias, c))
    if previous is None:
        return tuple(parts)
    return tuple(objectives.merge_sums(p, s) for p, s in zip(previous, parts, strict=True))


def finish_candidates(state: BlockState, data: BlockData, w: np.ndarray, count: int) -> tuple:
    """The chunk's ``count`` rows nearest the margin at w (smallest :math:`|1 - z_i|`, ties by
    position) for the driver's finish (:func:`sdca_pegasos.solvers.cluster.rounds.finish`): their
    positions in the chunk (ascending), and their rows, raw labels, sample weights and α as a
    :class:`BlockData` and an array."""
    z = objectives.margins(data.X, state.y, w, state.bias)
    rows = np.sort(np.argsort(np.abs(1.0 - z), kind="stable")[: min(count, z.shape[0])])
    weights = None if data.sample_weight is None else data.sample_weight[rows]
    part = block_data(data.X[rows], data.labels[rows], weights)
    return rows, part, state.sweep.dual_coef[rows]


def set_alpha(state: BlockState, rows: np.ndarray, values: np.ndarray) -> BlockState:
    """The state with α at ``rows`` (positions in the chunk) set to ``values``, every row
    active again (the finish moved w and those α: the shrinking state is stale)."""
    dual_coef = state.sweep.dual_coef.copy()
    dual_coef[rows] = values
    return replace(state, sweep=state.sweep._replace(dual_coef=dual_coef), shrink=None)


def block_alpha(state: BlockState) -> np.ndarray:
    """The block's α (signed), a copy."""
    return state.sweep.dual_coef.copy()


# ------------------------------------------------------------------ checkpoints
def checkpoint_path(folder: str, problem: int, block: int, round_: int) -> str:
    return os.path.join(folder, f"problem-{problem}", f"block-{block}-round-{round_}.npz")


def write_checkpoint(state: BlockState, path: str) -> str:
    """Write the block's α, step count, stream state and shrinking state to ``path``
    (atomically: a temporary file renamed); returns ``path``."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp.npz"
    shrink = {}
    if state.shrink is not None:
        shrink = {f"shrink_{k}": np.asarray(v) for k, v in state.shrink._asdict().items()}
    np.savez(
        tmp,
        dual_coef=state.sweep.dual_coef,
        steps=np.int64(state.steps),
        rng=np.array(json.dumps(state.rng.bit_generator.state)),
        **shrink,
    )
    os.replace(tmp, path)
    return path


def read_alpha(path: str) -> np.ndarray:
    """The α stored in a checkpoint file."""
    with np.load(path) as f:
        return f["dual_coef"].copy()


def restore_block(template: BlockState, path: str) -> BlockState:
    """The state that wrote ``path`` (:func:`write_checkpoint`), bit for bit, from the
    block's initial state ``template`` (its rows, ‖x̃‖² included: no pass over the data)
    and the file's α, step count and stream."""
    with np.load(path) as f:
        alpha = f["dual_coef"].copy()
        steps, rng_state = int(f["steps"]), json.loads(str(f["rng"]))
        shrink = None
        if "shrink_samples" in f:
            shrink = Shrink(
                f["shrink_samples"].copy(), int(f["shrink_size"]), float(f["shrink_eps"]),
                f["shrink_grad"].copy(),
            )  # fmt: skip
    rng = copy.deepcopy(template.rng)
    rng.bit_generator.state = rng_state
    sweep = template.sweep._replace(dual_coef=alpha)
    return replace(template, sweep=sweep, rng=rng, steps=steps, v=None, cpu=0.0, shrink=shrink)
