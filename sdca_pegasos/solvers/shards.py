"""Data too large for one machine as shards: a folder of files, read by the dask workers
into the row blocks of :class:`sdca_pegasos.solvers.distributed.DaskSVMClassifier`.

A shard is one file, one block: svmlight/libsvm text (``.svm``, ``.svmlight``,
``.libsvm``, ``.txt``: CSR rows), ``.npz`` (arrays ``X`` and ``y``, or a scipy.sparse
matrix saved by ``scipy.sparse.save_npz`` plus an array ``y`` in ``<name>.labels.npy``) or
``.parquet`` (a column ``y``, every other column a feature: dense rows). Every worker reads
its own shards from storage they all see (an NFS or a cluster file system), so nothing
passes through the driver.

:func:`read_shards` returns ``(X, y)`` as dask arrays whose chunks are the shards, read
and checked once on the workers and kept there (one future per shard). A shard whose
feature count or labels disagree with the others is refused with an error naming the file.

:func:`split_svmlight` cuts one large svmlight file into shards without loading it: it streams
lines, a fixed number per shard (``python -m sdca_pegasos.solvers.shards big.svm out/ --rows
100000``)."""

from __future__ import annotations

import argparse
import glob
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from sdca_pegasos.cmdline import existing_file, positive_int

__all__ = ["SHARD_SUFFIXES", "read_shard", "read_shards", "split_svmlight"]

#: File endings read as shards, by format.
SHARD_SUFFIXES = {
    ".svm": "svmlight",
    ".svmlight": "svmlight",
    ".libsvm": "svmlight",
    ".txt": "svmlight",
    ".npz": "npz",
    ".parquet": "parquet",
}


def read_shard(path: str, n_features: int | None = None):
    """One shard's ``(X, y, n_features_seen)``: X dense float64 or CSR float64, y 1-d.

    ``n_features`` (svmlight): the width of X; a feature index beyond it is an error that
    names the file. ``n_features_seen``: the width the file itself implies (its largest
    svmlight index, or its number of columns).
    """
    kind = SHARD_SUFFIXES.get(Path(path).suffix)
    if kind == "svmlight":
        from sklearn.datasets import load_svmlight_file

        X, y = load_svmlight_file(path, dtype=np.float64)
        seen = X.shape[1]
        if n_features is not None:
            if seen > n_features:
                raise ValueError(
                    f"shard {path} has feature index {seen} but the data has {n_features} "
                    "features: fix the file or pass the larger n_features."
                )
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
        return X, np.asarray(y), seen
    if kind == "npz":
        labels = Path(path).with_suffix(".labels.npy")
        if labels.exists():
            X = sp.load_npz(path).tocsr().astype(np.float64)
            y = np.load(labels)
        else:
            with np.load(path) as f:
                if "X" not in f or "y" not in f:
                    raise ValueError(
                        f"shard {path} holds arrays {sorted(f.files)}: a .npz shard needs "
                        "arrays 'X' and 'y' (or a scipy.sparse.save_npz file with its labels "
                        f"in {labels.name})."
                    )
                X, y = np.ascontiguousarray(f["X"], dtype=np.float64), f["y"]
        return X, np.asarray(y).ravel(), X.shape[1]
    if kind == "parquet":
        import pandas as pd

        frame = pd.read_parquet(path)
        if "y" not in frame.columns:
            raise ValueError(f"shard {path} has no column 'y' (its labels)")
        y = frame.pop("y").to_numpy()
        return np.ascontiguousarray(frame.to_numpy(dtype=np.float64)), y, frame.shape[1]
    raise ValueError(f"{path} is not a shard: its ending is none of {sorted(SHARD_SUFFIXES)}")


def _shard_summary(shard) -> tuple:
    """(rows, width, labels, sparse) of a read shard (small: what the driver checks)."""
    X, y, seen = shard
    return X.shape[0], seen, np.unique(y), sp.issparse(X)


def _x_of(shard):
    return shard[0]


def _y_of(shard):
    return shard[1]


def read_shards(folder, client=None, *, n_features: int | None = None, classes=None):
    """Read every shard of ``folder`` (sorted by name) on the workers: ``(X, y)`` dask
    arrays, one row chunk per shard, the chunks kept on the workers that read them.

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
    ValueError
        Naming the shard: a width that disagrees, labels outside ``classes``, a shard
        without labels in common with the rest, mixed formats, an empty folder.
    """
    import dask.array as da

    if client is None:
        from distributed import get_client

        client = get_client()
    folder = Path(folder)
    paths = sorted(str(p) for p in folder.iterdir() if p.suffix in SHARD_SUFFIXES)
    if not paths:
        raise ValueError(
            f"{folder} holds no shard (files ending in {sorted(SHARD_SUFFIXES)}): cut a "
            "large svmlight file with solvers.shards.split_svmlight."
        )
    kinds = {SHARD_SUFFIXES[Path(p).suffix] for p in paths}
    if len(kinds) > 1:
        raise ValueError(f"{folder} mixes shard formats {sorted(kinds)}: keep one per folder")
    shards = _read_placed(client, paths, n_features)
    summaries = client.gather([client.submit(_shard_summary, s) for s in shards])
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
                raise ValueError(
                    f"shard {p} has {w} features but "
                    f"{'n_features is' if n_features else paths[0] + ' has'} {width}: every "
                    "dense shard must have the same columns."
                )
    _check_labels(paths, [s[2] for s in summaries], classes)
    rows = [s[0] for s in summaries]
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
    """Every shard's labels among ``classes``, or (None) each held by another shard too."""
    if classes is not None:
        allowed = set(np.asarray(classes).tolist())
        for p, found in zip(paths, labels, strict=True):
            outside = sorted(set(found.tolist()) - allowed)
            if outside:
                raise ValueError(
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
            raise ValueError(
                f"shard {p} has labels {alone} that no other shard has ({sorted(others)}): "
                "a different label encoding? Fix the file, or pass classes= to read_shards "
                "if they are real classes."
            )


def _read_placed(client, paths, n_features) -> list:
    """The shards read by the workers, shard k on the k-th worker (modulo their number, in sorted
    order) when dask can: where :class:`sdca_pegasos.solvers.distributed.DaskSVMClassifier` puts
    block k, so a fit of one block per shard moves no rows."""
    from ._cocoa_layout import workers as cluster_workers

    workers = sorted(cluster_workers(client))
    return [
        client.submit(
            read_shard,
            p,
            n_features,
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
        prog="python -m sdca_pegasos.solvers.shards",
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
