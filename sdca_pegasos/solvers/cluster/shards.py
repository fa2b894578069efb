"""Data too large for one machine as shards: a folder of files, read by the dask workers
into the row blocks of :class:`sdca_pegasos.solvers.cluster.estimator.DaskSVMClassifier`.

A shard is one file, one block: svmlight/libsvm text (``.svm``, ``.svmlight``,
``.libsvm``, ``.txt``: CSR rows), ``.npz`` (arrays ``X`` and ``y``, or a scipy.sparse
matrix saved by ``scipy.sparse.save_npz`` plus an array ``y`` in ``<name>.labels.npy``) or
``.parquet`` (a column ``y``, every other column a feature: dense rows). Every worker reads
its own shards from storage they all see (an NFS or a cluster file system), so nothing
passes through the driver.

:func:`read_shards` returns ``(X, y)`` as dask arrays whose chunks are the shards, read
and checked once on the workers and kept there (one future per shard). Parquet shards are
paired by column name (each read in the first shard's column order). A shard is refused with
an error naming the file (:class:`BadInput`, a ValueError raised in the user's process; the
workers return their refusals instead of raising, so the cluster's log holds no traceback):
NaN or infinity in X (with its row and column), a column of text, labels that are NaN,
infinite or continuous, feature names, a feature count or labels that disagree with the
other shards'.

:func:`split_svmlight` cuts one large svmlight file into shards without loading it: it streams
lines, a fixed number per shard (``python -m sdca_pegasos.solvers.cluster.shards big.svm out/
--rows 100000``)."""

from __future__ import annotations

import argparse
import glob
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from sdca_pegasos.cmdline import existing_file, positive_int
from sdca_pegasos.solvers.cluster.blocks import (
    BadInput,
    Refused,
    Where,
    as_numbers,
    check_features,
    check_labels,
    refusal,
)
from sdca_pegasos.solvers.cluster.layout import raise_refused

__all__ = ["SHARD_SUFFIXES", "BadInput", "read_shard", "read_shards", "split_svmlight"]

#: File endings read as shards, by format.
SHARD_SUFFIXES = {
    ".svm": "svmlight",
    ".svmlight": "svmlight",
    ".libsvm": "svmlight",
    ".txt": "svmlight",
    ".npz": "npz",
    ".parquet": "parquet",
}


def read_shard(path: str, n_features: int | None = None, columns=None):
    """One shard's ``(X, y, n_features_seen)``: X dense float64 or CSR float64, y 1-d,
    checked as it is read.

    ``n_features`` (svmlight): the width of X; a feature index beyond it is an error that
    names the file. ``columns`` (parquet): the feature columns to read, in this order (the
    first shard's, :func:`read_shards`: shards are paired by column name); None: every
    column but ``y``, in the file's order. ``n_features_seen``: the width the file itself
    implies (its largest svmlight index, or its number of feature columns).

    Raises
    ------
    BadInput
        A ValueError naming the file, and the row and column where there is one: a text
        column (parquet), values that are not numbers, NaN or infinity in X, labels that are
        not classes (NaN, infinity, floats that are not whole numbers: a continuous target),
        a missing ``y``, a feature index beyond ``n_features``.
    """
    where = Where(f"shard {path}", "row {} of the file")
    kind = SHARD_SUFFIXES.get(Path(path).suffix)
    if kind == "svmlight":
        from sklearn.datasets import load_svmlight_file

        X, y = load_svmlight_file(path, dtype=np.float64)
        seen = X.shape[1]
        if n_features is not None:
            if seen > n_features:
                raise BadInput(
                    f"shard {path} has feature index {seen} but the data has {n_features} "
                    "features: fix the file or pass the larger n_features."
                )
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
    elif kind == "npz":
        labels = Path(path).with_suffix(".labels.npy")
        if labels.exists():
            X = as_numbers(sp.load_npz(path).tocsr(), where).astype(np.float64)
            y = np.load(labels, allow_pickle=False)
        else:
            with np.load(path, allow_pickle=False) as f:
                if "X" not in f or "y" not in f:
                    raise BadInput(
                        f"shard {path} holds arrays {sorted(f.files)}: a .npz shard needs "
                        "arrays 'X' and 'y' (or a scipy.sparse.save_npz file with its labels "
                        f"in {labels.name})."
                    )
                X = np.ascontiguousarray(as_numbers(f["X"], where), dtype=np.float64)
                y = f["y"]
        seen = X.shape[-1]
    elif kind == "parquet":
        X, y, where = _read_parquet(path, columns, where)
        seen = X.shape[1]
    else:
        raise BadInput(f"{path} is not a shard: its ending is none of {sorted(SHARD_SUFFIXES)}")
    if X.ndim != 2:
        raise BadInput(f"shard {path} holds X of {X.ndim} dimensions: X must be 2-d, a row each")
    y = np.asarray(y).ravel()
    if y.shape[0] != X.shape[0]:
        raise BadInput(f"shard {path} has {X.shape[0]} rows of X but {y.shape[0]} labels")
    check_features(X, where)
    check_labels(y, where)
    return X, y, seen


def _read_parquet(path: str, columns, where: Where) -> tuple:
    """A parquet shard's X (its feature columns, ``columns`` in that order, or every
    column but ``y``), y and its :class:`Where` with the columns' names; a column of text
    (or anything not numbers) is refused by name."""
    import pandas as pd
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    frame = pd.read_parquet(path, columns=None if columns is None else [*columns, "y"])
    if "y" not in frame.columns:
        raise BadInput(f"shard {path} has no column 'y' (its labels): name the label column y.")
    y = frame.pop("y").to_numpy()
    if columns is not None:
        frame = frame[list(columns)]
    text = [
        f"{name!r} ({dtype})"
        for name, dtype in frame.dtypes.items()
        if not (is_numeric_dtype(dtype) or is_bool_dtype(dtype))
    ]
    if text:
        raise BadInput(
            f"shard {path} has text (values that are not numbers) in column"
            f"{'s' * (len(text) > 1)} {', '.join(text[:5])}: every column but 'y' must hold "
            "numbers; encode it as numbers (e.g. pandas.get_dummies) or drop it, in every "
            "shard."
        )
    X = np.ascontiguousarray(frame.to_numpy(dtype=np.float64, na_value=np.nan))
    return X, y, where._replace(columns=tuple(frame.columns))


def _read_checked(path: str, n_features: int | None, columns=None):
    """:func:`read_shard` on a worker, its refusal returned (a :class:`Refused`) instead of
    raised, so that the cluster's log holds no traceback of it; a file that cannot be read
    at all (missing on this worker, damaged) is refused by name too."""
    try:
        return read_shard(path, n_features, columns)
    except BadInput as err:
        return Refused(str(err))
    except Exception as err:  # any failure to read the file is named
        return Refused(
            f"shard {path} could not be read ({type(err).__name__}: {err}): is it a "
            f"complete {SHARD_SUFFIXES.get(Path(path).suffix, 'shard')} file, on storage "
            "every worker sees?"
        )


def _parquet_features(path: str):
    """A parquet shard's feature columns, read from its schema alone (not its rows), in the
    file's order: every column but ``y`` and the index pandas stored; a :class:`Refused`
    when it has no ``y`` or its schema cannot be read."""
    try:
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
    except Exception as err:  # any failure to read the file is named
        return Refused(
            f"shard {path} could not be read ({type(err).__name__}: {err}): is it a "
            "complete parquet file, on storage every worker sees?"
        )
    meta = schema.pandas_metadata or {}
    index = {c for c in meta.get("index_columns", []) if isinstance(c, str)}
    names = [name for name in schema.names if name not in index]
    if "y" not in names:
        return Refused(f"shard {path} has no column 'y' (its labels): name the label column y.")
    return [name for name in names if name != "y"]


def _paired_columns(paths: list, names: list) -> list:
    """The feature columns every parquet shard is read with: the first shard's, in its order;
    a shard whose names differ from them (as sets: order is free) is refused, naming both
    files and the names that differ."""
    first = names[0]
    for path, found in zip(paths[1:], names[1:], strict=True):
        if set(found) != set(first):
            lacks, extra = sorted(set(first) - set(found)), sorted(set(found) - set(first))
            raise BadInput(
                f"shard {path} and shard {paths[0]} have different feature columns "
                f"(shards are paired by column name): {path} lacks {lacks} and has {extra} "
                f"that {paths[0]} has not. Rename or drop columns so that every shard has the "
                "same names, in any order."
            )
    return first


def _shard_summary(shard):
    """(rows, width, labels, sparse) of a read shard (small: what the driver checks), or
    its :class:`Refused`."""
    if isinstance(shard, Refused):
        return shard
    X, y, seen = shard
    return X.shape[0], seen, np.unique(y), sp.issparse(X)


def _x_of(shard):
    return shard[0]


def _y_of(shard):
    return shard[1]


def read_shards(folder, client=None, *, n_features: int | None = None, classes=None):
    """Read every shard of ``folder`` (sorted by name) on the workers: ``(X, y)`` dask
    arrays, one row chunk per shard, the chunks kept on the workers that read them.

    Every shard is checked as it is read (:func:`read_shard`), on its worker, before the
    arrays are made: a refused shard is a :class:`BadInput` raised here naming the file (the
    first refused, in name order), and the workers log nothing. Parquet shards are paired
    by column name: each is read with the first shard's feature columns in the first
    shard's order, so a shard whose columns are in another order gives the same X; one
    whose names differ is refused, naming both files and the names.

    Parameters
    ----------
    folder : str or Path
        On storage every worker sees; its files with an ending of :data:`SHARD_SUFFIXES`
        are the shards (one format per folder).
    client : distributed.Client, optional
        Default: the current client.
    n_features : int, optional
        Width of X (svmlight shards: the largest index over all shards when None). Dense
        shards must all have this many columns.
    classes : sequence, optional
        The labels the data may hold. None: the union of the shards' labels, where a label
        that only one shard has is an error (a different label encoding, e.g. {0, 1}
        against {-1, +1}; pass ``classes`` when such a class is real).

    Raises
    ------
    BadInput
        A ValueError naming the shard: one that cannot be read, NaN or infinity in X, a text
        column, labels that are not classes (NaN, infinity, a continuous target), parquet
        columns whose names differ from the first shard's, a width that disagrees, labels
        outside ``classes``, a shard without labels in common with the rest, labels of
        another type (numbers, strings) than the first shard's; or the folder: mixed
        formats, no shard, no row, no feature.
    """
    import dask.array as da

    if client is None:
        from distributed import get_client

        client = get_client()
    folder = Path(folder)
    paths = sorted(str(p) for p in folder.iterdir() if p.suffix in SHARD_SUFFIXES)
    if not paths:
        raise BadInput(
            f"{folder} holds no shard (files ending in {sorted(SHARD_SUFFIXES)}): cut a "
            "large svmlight file with sdca_pegasos.solvers.cluster.shards.split_svmlight."
        )
    kinds = {SHARD_SUFFIXES[Path(p).suffix] for p in paths}
    if len(kinds) > 1:
        raise BadInput(f"{folder} mixes shard formats {sorted(kinds)}: keep one per folder")
    columns = None
    if kinds == {"parquet"}:  # the names first, from the files' schemas
        found = client.gather([client.submit(_parquet_features, p, pure=False) for p in paths])
        raise_refused([refusal(f) for f in found])
        columns = _paired_columns(paths, found)
    shards = _read_placed(client, paths, n_features, columns)
    summaries = client.gather([client.submit(_shard_summary, s) for s in shards])
    raise_refused([refusal(s) for s in summaries])
    widths = [s[1] for s in summaries]
    sparse = summaries[0][3]
    if sparse:
        width = max(widths) if n_features is None else n_features
        if n_features is None and any(w != width for w in widths):  # read again at full width
            shards = _read_placed(client, paths, width)
    else:
        width = n_features if n_features is not None else widths[0]
        for p, w in zip(paths, widths, strict=True):
            if w != width:
                raise BadInput(
                    f"shard {p} has {w} features but "
                    f"{'n_features is' if n_features else paths[0] + ' has'} {width}: every "
                    "dense shard must have the same columns."
                )
    rows = [s[0] for s in summaries]
    if sum(rows) == 0 or width == 0:
        raise BadInput(
            f"the shards in {folder} hold {sum(rows)} rows of {width} features: X needs at "
            "least one row and one feature (is y the only column?)."
        )
    _check_labels(paths, [s[2] for s in summaries], classes)
    meta = sp.csr_matrix((0, width)) if sparse else np.empty((0, width))
    X = da.concatenate(
        [
            da.from_delayed(client.submit(_x_of, s), shape=(m, width), dtype=np.float64, meta=meta)
            for s, m in zip(shards, rows, strict=True)
        ]
    )
    y_dtype = np.result_type(*[s[2].dtype for s in summaries])
    y = da.concatenate(
        [
            da.from_delayed(client.submit(_y_of, s), shape=(m,), dtype=y_dtype)
            for s, m in zip(shards, rows, strict=True)
        ]
    )
    return X, y


def _check_labels(paths, labels, classes) -> None:
    """Every shard's labels of one type (numbers or strings), among ``classes``, or (None)
    each held by another shard too."""
    kinds = ["strings" if found.dtype.kind in "OUS" else "numbers" for found in labels]
    for p, kind, found in zip(paths, kinds, labels, strict=True):
        if kind != kinds[0]:
            raise BadInput(
                f"shard {p} has labels of {kind} ({found[:3].tolist()} …) but {paths[0]} has "
                f"labels of {kinds[0]} ({labels[0][:3].tolist()} …): write every shard's y "
                "as one type."
            )
    if classes is not None:
        allowed = set(np.asarray(classes).tolist())
        for p, found in zip(paths, labels, strict=True):
            outside = sorted(set(found.tolist()) - allowed)
            if outside:
                raise BadInput(
                    f"shard {p} has labels {outside} outside classes {sorted(allowed)}: fix "
                    "the file or the classes."
                )
        return
    if len(paths) < 2:
        return
    for i, (p, found) in enumerate(zip(paths, labels, strict=True)):
        others = set(np.concatenate([lab for j, lab in enumerate(labels) if j != i]).tolist())
        alone = sorted(set(found.tolist()) - others)
        if alone:
            raise BadInput(
                f"shard {p} has labels {alone} that no other shard has ({sorted(others)}): "
                "a different label encoding? Fix the file, or pass classes= to read_shards "
                "if they are real classes."
            )


def _read_placed(client, paths, n_features, columns=None) -> list:
    """The shards read and checked by the workers (:func:`_read_checked`: a shard, or its
    :class:`Refused`), shard k on the k-th worker (modulo their number, in sorted order)
    when dask can: where :class:`sdca_pegasos.solvers.cluster.estimator.DaskSVMClassifier` puts
    block k, so a fit of one block per shard moves no rows."""
    from sdca_pegasos.solvers.cluster.layout import workers as cluster_workers

    workers = sorted(cluster_workers(client))
    return [
        client.submit(
            _read_checked,
            p,
            n_features,
            columns,
            pure=False,
            workers=[workers[k % len(workers)]],
            allow_other_workers=True,
        )
        for k, p in enumerate(paths)
    ]


def split_svmlight(source, folder, rows_per_shard: int, prefix: str = "shard") -> list[str]:
    """Cut the svmlight file ``source`` into shards of ``rows_per_shard`` lines each in
    ``folder`` (``<prefix>-00000.svm``, ...), streaming: one line in memory at a time.
    Comment and blank lines are dropped. Returns the shard paths, in order."""
    if rows_per_shard < 1:
        raise ValueError(f"rows_per_shard must be >= 1, got {rows_per_shard}")
    os.makedirs(folder, exist_ok=True)
    stale = sorted(glob.glob(os.path.join(glob.escape(str(folder)), f"{prefix}-*.svm")))
    if stale:  # a reader of the folder would mix the old shards with the new ones
        raise FileExistsError(
            f"{folder} already holds {len(stale)} shard(s) named {prefix}-*.svm (e.g. "
            f"{os.path.basename(stale[0])}): remove them or name another folder"
        )
    paths: list[str] = []
    out = None
    count = 0
    try:
        with open(source) as f:
            for line in f:
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                if out is None or count == rows_per_shard:
                    if out is not None:
                        out.close()
                    paths.append(os.path.join(folder, f"{prefix}-{len(paths):05d}.svm"))
                    out = open(paths[-1], "w")  # noqa: SIM115 - closed in this loop
                    count = 0
                out.write(line if line.endswith("\n") else line + "\n")
                count += 1
    except BaseException:  # an error or Ctrl-C: no partial set of shards is left behind
        if out is not None:
            out.close()
            out = None
        for path in paths:
            os.remove(path)
        raise
    finally:
        if out is not None:
            out.close()
    return paths


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m sdca_pegasos.solvers.cluster.shards",
        description="Cut a large svmlight file into shards without loading it.",
    )
    parser.add_argument("source", type=existing_file, help="the svmlight file to cut")
    parser.add_argument("folder", help="where the shards go (created; must hold none yet)")
    parser.add_argument("--rows", type=positive_int, required=True, help="rows per shard")
    args = parser.parse_args(argv)
    try:
        paths = split_svmlight(args.source, args.folder, args.rows)
    except FileExistsError as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    except KeyboardInterrupt:
        parser.exit(130, f"{parser.prog}: interrupted; no shard was left in {args.folder}\n")
    print(f"{len(paths)} shards in {args.folder}")


if __name__ == "__main__":
    main()
