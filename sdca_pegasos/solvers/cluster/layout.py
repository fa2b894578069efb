"""Where the rows of a :class:`sdca_pegasos.solvers.cluster.estimator.DaskSVMClassifier` fit live,
on the driver's side: the client, ``fit``'s inputs as dask arrays of row chunks (:func:`as_rows`;
data in memory cut and scattered: :func:`scatter_rows`), the blocks (X's row chunks grouped in
order, or its rows dealt in turn: :class:`RowLayout`), their placement on the workers and the
checks of their chunks (:func:`persist_blocks`), the ``"auto"`` sizes (blocks, local epochs, the
finish's rows), the classes and their counts (their weights' maths is
:mod:`sdca_pegasos.solvers.driver.targets`'). The rounds over those blocks are
:mod:`sdca_pegasos.solvers.cluster.rounds`; the worker side is
:mod:`sdca_pegasos.solvers.cluster.blocks`."""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np

from sdca_pegasos.solvers.cluster import blocks as _cocoa
from sdca_pegasos.solvers.cluster import rounds as _cocoa_rounds
from sdca_pegasos.solvers.driver.targets import refuse_one_class


def client():
    """The current dask.distributed client, or an error that says how to start one."""
    try:
        from distributed import get_client
    except ImportError as err:  # pragma: no cover - dask is a declared extra
        raise ImportError(
            "DaskSVMClassifier needs dask.distributed: pip install 'sdca-pegasos[dask]'"
        ) from err
    try:
        return get_client()
    except ValueError as err:
        raise ValueError(
            "DaskSVMClassifier.fit runs on the current dask.distributed client and there is "
            "none: start one first, e.g. `client = distributed.Client()` (a LocalCluster) "
            "or `distributed.Client('tcp://scheduler:8786')`."
        ) from err


def workers(client) -> dict:
    """The cluster's workers now, by address, each with what the scheduler knows of it
    (``memory_limit``, ``nthreads``, …), asked of the scheduler afresh.

    Not ``client.scheduler_info()["workers"]``: that returns the client's cached identity,
    which a periodic callback on the client's event loop rewrites every few seconds without
    its workers (``n_workers=0``); read between the refresh and the return, it names no
    worker at all (a fit on CI once placed no block and failed on a None chunk)."""
    return dict(client.sync(client.scheduler.identity, n_workers=-1)["workers"])


def as_rows(client, X, y, sample_weight) -> tuple:
    """``fit``'s dask arguments checked and chunked alike: X's row chunks of known sizes and
    one chunk across its features, y and ``sample_weight`` (or None) rechunked to X's rows.

    X is a dask array or DataFrame (:func:`as_dask`); y and ``sample_weight`` may also be
    in memory (NumPy, pandas), scattered then. An X of fewer than 2 rows or no feature is
    refused in scikit-learn's words, before any task runs."""
    X = as_dask(X, "X")
    y = as_dask(y, "y", client)
    if X.ndim != 2 or y.ndim != 1:
        raise ValueError(
            f"X must be 2-d and y 1-d, got {X.ndim}-d and {y.ndim}-d (shapes {X.shape} and "
            f"{y.shape}): pass y as one label per row."
        )
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            "X has row chunks of unknown size: call X.compute_chunk_sizes() first (or "
            "read shards with sdca_pegasos.solvers.cluster.shards.read_shards, which knows them)."
        )
    n, d = int(X.shape[0]), int(X.shape[1])
    if n < 2:
        raise ValueError(
            f"Found array with {n} sample(s) (shape=({n}, {d})) while a minimum of 2 is "
            "required by DaskSVMClassifier."
        )
    if d < 1:
        raise ValueError(
            f"Found array with 0 feature(s) (shape=({n}, 0)) while a minimum of 1 is "
            "required by DaskSVMClassifier."
        )
    if len(X.chunks[1]) != 1:
        X = X.rechunk({1: -1})
    if any(np.isnan(c) for c in y.chunks[0]) or y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels")
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    if sample_weight is not None:
        sample_weight = as_dask(sample_weight, "sample_weight", client)
        if sample_weight.ndim != 1 or sample_weight.shape[0] != n:
            raise ValueError(
                f"sample_weight.shape == {sample_weight.shape}, expected ({n},): one weight "
                "per row of X."
            )
        if sample_weight.chunks[0] != X.chunks[0]:
            sample_weight = sample_weight.rechunk((X.chunks[0],))
    return X, y, sample_weight


#: ``local_epochs="auto"``: the work of one block's local passes in a round, in stored
# entries plus two per row (:func:`sdca_pegasos.solvers.cluster.blocks.block_work`): tens of ms of
# one core
#: (skin's pass, 1.2M of them, took 8.7 ms of CPU in benchmarks/records/distributed.json:
#: 2**23 of them ~60 ms), about a round's fixed cost on a 2-worker LocalCluster (25–51 ms).
#: Balanced so, a round wastes at most as much again whichever way the data go: where more
#: local passes do not help (CoCoA+ over several blocks can need as many rounds at 64
#: passes a round as at 1), a round costs about twice one pass's round; where they do, a
#: pass costs about twice its own work. More work per round (2**26 was tried) wins more
#: where passes help and loses more where they do not (docs/distributed.md's table).
AUTO_ROUND_WORK = 2**23
#: ``local_epochs="auto"`` never makes more passes per round than this (tiny blocks).
AUTO_MAX_EPOCHS = 64


def auto_local_epochs(block_works) -> int:
    """The local passes per round ``local_epochs="auto"`` makes for blocks whose one pass costs
    ``block_works`` (:func:`sdca_pegasos.solvers.cluster.blocks.block_work`): ⌈AUTO_ROUND_WORK /
    the largest⌉, between 1 and AUTO_MAX_EPOCHS."""
    largest = max(1, max(block_works))
    return int(min(AUTO_MAX_EPOCHS, max(1, -(-AUTO_ROUND_WORK // largest))))


#: ``n_blocks="auto"`` deals the rows to its blocks and merges each block's into one array
#: when all the rows take at most this fraction of the workers' total ``memory_limit``
#: (dealing holds the chunks, their shares and the merged blocks at once, three copies).
AUTO_MERGE_MEMORY = 1 / 3


def merge_fits(total_bytes: int, memory_limits) -> bool:
    """Whether rows of ``total_bytes`` fit :data:`AUTO_MERGE_MEMORY` of the workers'
    ``memory_limits`` (a worker without a limit, 0 or None, has room for any)."""
    if any(not limit for limit in memory_limits):
        return True
    return total_bytes <= AUTO_MERGE_MEMORY * sum(memory_limits)


def max_finish_rows(block_works, n_samples: int) -> int:
    """How many rows a finish gathers at most:
    :data:`sdca_pegasos.solvers.cluster.rounds.FINISH_ROWS`, fewer where their stored entries (the
    blocks' work less two per row, per row) would pass :data:`AUTO_ROUND_WORK`, a round's work."""
    per_row = max(1.0, (sum(block_works) - 2 * n_samples) / max(n_samples, 1))
    return int(min(_cocoa_rounds.FINISH_ROWS, max(1, AUTO_ROUND_WORK // per_row)))


def is_dask(value) -> bool:
    """Whether ``value`` is a dask collection (array, DataFrame, Series, bag, delayed)."""
    import dask

    return dask.is_dask_collection(value)


def is_dask_frame(value) -> bool:
    """Whether ``value`` is a dask DataFrame or Series (a Delayed answers every attribute:
    only the types tell)."""
    if not is_dask(value):
        return False
    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - dask[dataframe] absent
        return False
    return isinstance(value, dd.DataFrame | dd.Series)


def as_dask(X, name: str, client=None):
    """X as a dask array: a dask array as is, a dask DataFrame or Series with its
    partitions' lengths computed (``to_dask_array(lengths=True)``, one pass over them);
    given a ``client``, an in-memory array (y or ``sample_weight`` beside a dask X)
    scattered to the workers as one chunk. Anything else is a TypeError that names what
    ``fit`` takes."""
    import dask.array as da

    if isinstance(X, da.Array):
        return X
    if is_dask_frame(X):
        return X.to_dask_array(lengths=True)
    if client is not None and not is_dask(X):
        values = np.asarray(X)
        return da.from_delayed(client.scatter(values), shape=values.shape, dtype=values.dtype)
    raise TypeError(
        f"DaskSVMClassifier.fit takes NumPy arrays, scipy.sparse matrices, pandas DataFrames "
        f"(scattered to the workers), dask arrays and dask DataFrames, got {name} of type "
        f"{type(X).__name__}: compute it, or make it a dask array (e.g. "
        "dask.array.from_delayed), or read shards with "
        "sdca_pegasos.solvers.cluster.shards.read_shards."
    )


def in_memory_chunks(client, n_samples: int, n_blocks) -> list[int]:
    """The row chunks' sizes an in-memory X is cut into before it is scattered: one chunk per
    worker thread of the cluster, or ``n_blocks`` chunks when it asks for more (an int),
    as equal as can be, at most one per row."""
    threads = max(1, sum(client.nthreads().values()))
    k = min(n_samples, max(threads, int(n_blocks) if isinstance(n_blocks, Integral) else 1))
    return [len(part) for part in np.array_split(np.arange(n_samples), max(k, 1))]


def scatter_rows(client, X, y, sample_weight, sizes, groups) -> tuple:
    """In-memory X (C-contiguous ndarray or canonical CSR), y and ``sample_weight`` (or None)
    cut into row chunks of ``sizes``, each scattered to the worker that
    :func:`persist_blocks` builds its block on (block k's chunks on the k-th worker, modulo
    their number): ``(X, y, sample_weight)`` as dask arrays of those chunks."""
    import dask.array as da
    import scipy.sparse as sp

    names = sorted(workers(client))
    if not names:
        raise RuntimeError("the dask cluster has no workers: start some before fitting")
    ends = np.cumsum([0, *sizes])
    arrays = [X, y] if sample_weight is None else [X, y, sample_weight]
    pieces = [[a[ends[c] : ends[c + 1]] for a in arrays] for c in range(len(sizes))]
    futures = [None] * len(sizes)  # per chunk, one future per array
    for slot, worker in enumerate(names):  # one scatter per worker
        mine = [c for group in groups[slot :: len(names)] for c in group]
        if mine:
            flat = [piece for c in mine for piece in pieces[c]]
            sent = client.scatter(flat, workers=[worker], hash=False)
            for i, c in enumerate(mine):
                futures[c] = sent[i * len(arrays) : (i + 1) * len(arrays)]
    out = []
    for j, a in enumerate(arrays):
        meta = sp.csr_matrix((0, a.shape[1]), dtype=a.dtype) if sp.issparse(a) else None
        parts = [
            da.from_delayed(f[j], shape=piece[j].shape, dtype=a.dtype, meta=meta)
            for f, piece in zip(futures, pieces, strict=True)
        ]
        out.append(da.concatenate(parts))
    return out[0], out[1], (out[2] if sample_weight is not None else None)


class RowLayout(NamedTuple):
    """Which rows of X each state holds: X's row chunks of ``chunk_sizes``, one state each
    (``step`` None), or ``step`` = K blocks whose rows are dealt in turn, X's row g in
    block g mod K at position g // K (``n_blocks="auto"``, merged)."""

    chunk_sizes: list
    step: int | None = None

    def to_rows(self, client, parts: list, sizes: list):
        """The states' per-row ``parts`` (futures of arrays, of ``sizes``) as one dask
        array in X's row order, chunked as X's rows (each chunk's values interleaved on
        the workers from the slices of the blocks that hold them)."""
        import dask.array as da

        if self.step is None:
            return da.concatenate(
                [
                    da.from_delayed(p, shape=(m,), dtype=np.float64)
                    for p, m in zip(parts, sizes, strict=True)
                ]
            )
        k, chunks, start = self.step, [], 0
        for size in self.chunk_sizes:
            pieces = [
                client.submit(_cocoa.rows_slice, part, (start - b + k - 1) // k,
                              (start + size - b + k - 1) // k)
                for b, part in enumerate(parts)
            ]  # fmt: skip
            values = client.submit(_cocoa.interleave, start % k, size, *pieces)
            chunks.append(da.from_delayed(values, shape=(size,), dtype=np.float64))
            start += size
        return da.concatenate(chunks)

    def from_rows(self, values) -> list:
        """The inverse of :meth:`to_rows`: a dask array in X's row order cut into the
        states' parts."""
        if self.step is not None:
            return [values[b :: self.step] for b in range(self.step)]
        ends = np.cumsum([0, *self.chunk_sizes])
        return [values[ends[c] : ends[c + 1]] for c in range(len(self.chunk_sizes))]


def chunk_groups(client, n_chunks: int, n_blocks) -> list[list[int]]:
    """The row chunks of each block: one each, or K consecutive groups (``n_blocks``;
    "auto": one per worker thread, at most one per chunk)."""
    if n_blocks is None:
        return [[c] for c in range(n_chunks)]
    if n_blocks == "auto":
        k = min(n_chunks, max(1, sum(client.nthreads().values())))
        return [g.tolist() for g in np.array_split(np.arange(n_chunks), k)]
    if n_blocks > n_chunks:
        raise ValueError(
            f"n_blocks={n_blocks} blocks need at least as many row chunks, and X has "
            f"{n_chunks}: rechunk X's rows finer (X.rechunk({{0: rows_per_chunk}})) or "
            "ask for fewer blocks."
        )
    return [g.tolist() for g in np.array_split(np.arange(n_chunks), n_blocks)]


def persist_blocks(client, X, y, sample_weight, groups) -> list:
    """One future per row chunk, a :class:`sdca_pegasos.solvers.cluster.blocks.BlockData` on a
    worker: block k's chunks on the k-th worker, modulo their number, when dask can, so that a
    block's chain of tasks does not wait on another block's and blocks run side by side from the
    first round (left to dask, every chunk of a ``from_array`` X was built on one worker and the
    blocks' first passes ran one after the other there).

    Each chunk is checked where it is built (:func:`sdca_pegasos.solvers.cluster.blocks.
    checked_block_data`: finite numbers in X, classes in y, finite weights >= 0), and the
    checks' results gathered before anything else runs on the chunks: a refused chunk is a
    :class:`sdca_pegasos.solvers.cluster.blocks.BadInput` raised here, on the driver, naming the
    chunk and its rows (the first refused, in X's order), and the workers log nothing."""
    import dask

    xs = X.to_delayed().ravel()
    ys = y.to_delayed().ravel()
    ws = [None] * len(xs) if sample_weight is None else sample_weight.to_delayed().ravel()
    starts = np.cumsum([0, *X.chunks[0]])
    chunks = [
        dask.delayed(_cocoa.checked_block_data)(
            xk, yk, wk, _cocoa.chunk_where(c, int(starts[c]), int(X.chunks[0][c]))
        )
        for c, (xk, yk, wk) in enumerate(zip(xs, ys, ws, strict=True))
    ]
    names = sorted(workers(client))
    if not names:
        raise RuntimeError("the dask cluster has no workers: start some before fitting")
    futures = [None] * len(chunks)
    for slot, worker in enumerate(names):  # one graph per worker, not one per block
        mine = [c for group in groups[slot :: len(names)] for c in group]
        if mine:
            placed = client.compute(
                [chunks[c] for c in mine], workers=[worker], allow_other_workers=True
            )
            for c, f in zip(mine, placed, strict=True):
                futures[c] = f
    raise_refused(client.gather([client.submit(_cocoa.refusal, f) for f in futures]))
    return futures


def raise_refused(messages) -> None:
    """Raise the first refusal among the workers' checks (``messages``: None or the
    message of a :class:`sdca_pegasos.solvers.cluster.blocks.Refused`, one per chunk or shard) as a
    :class:`sdca_pegasos.solvers.cluster.blocks.BadInput`, in the user's process; the others are
    counted in a note."""
    refused = [m for m in messages if m is not None]
    if refused:
        err = _cocoa.BadInput(refused[0])
        if len(refused) > 1:
            err.add_note(f"{len(refused) - 1} more chunk(s) or shard(s) were refused too.")
        raise err


def deal(client, data, sizes, groups) -> tuple:
    """``n_blocks="auto"``: when all the rows fit in :data:`AUTO_MERGE_MEMORY` of the
    workers' total ``memory_limit`` (:func:`merge_fits`), the rows dealt to the K
    blocks in turn, X's row g to block g mod K, each block's rows merged into one array
    on its worker (K > 1; K = 1: the chunks merged); ``(data, sizes, groups, layout)``
    of the blocks then (:class:`RowLayout`), else as given."""
    layout = RowLayout(sizes)
    k, n = len(groups), sum(sizes)
    if len(data) == 1:
        return data, sizes, groups, layout
    total = sum(client.gather([client.submit(_cocoa.data_bytes, b) for b in data]))
    cluster = workers(client)
    memory_limits = [w.get("memory_limit") for w in cluster.values()]
    if not merge_fits(total, memory_limits):
        return data, sizes, groups, layout
    if k == 1:
        return [client.submit(_cocoa.merge_data, *data)], [n], [[0]], layout
    starts = np.cumsum([0, *sizes])[:-1]
    names = sorted(cluster)
    merged = []
    for b in range(k):  # each chunk's share sliced where it lives, merged on worker b
        shares = [
            client.submit(_cocoa.dealt_rows, chunk, int((b - start) % k), k)
            for chunk, start in zip(data, starts, strict=True)
        ]
        where = {"workers": [names[b % len(names)]], "allow_other_workers": True}
        merged.append(client.submit(_cocoa.merge_data, *shares, **where))
    merged_sizes = [len(range(b, n, k)) for b in range(k)]
    return merged, merged_sizes, [[b] for b in range(k)], layout._replace(step=k)


def resolve_local_epochs(local_epochs, works, groups) -> int:
    """``local_epochs``, ``"auto"`` resolved from the blocks' work per pass (``works``:
    :func:`sdca_pegasos.solvers.cluster.blocks.block_work` of each block)."""
    if local_epochs != "auto":
        return int(local_epochs)
    if any(len(group) > 1 for group in groups):
        return 1  # each pass is a chain of tasks, one per chunk: nothing to amortise
    return auto_local_epochs(works)


def class_counts(client, data, weighted) -> tuple[np.ndarray, np.ndarray, list]:
    """The classes over every block and their counts (their total ``sample_weight`` when
    ``weighted``: the totals of :func:`sdca_pegasos.solvers.driver.targets.class_totals`,
    each block's computed on its worker), and each chunk's classes."""
    parts = client.gather([client.submit(_cocoa.block_labels, b, weighted) for b in data])
    try:
        classes = np.unique(np.concatenate([c for c, _ in parts]))
    except TypeError as err:  # e.g. strings in one chunk, numbers in another
        raise ValueError(
            f"y mixes labels of different types across its chunks ({err}): make every "
            "label of one type, all numbers or all strings."
        ) from None
    counts = np.zeros(classes.shape[0])
    for c, k in parts:
        counts[np.searchsorted(classes, c)] += k
    refuse_one_class(classes)
    return classes, counts, [c for c, _ in parts]
