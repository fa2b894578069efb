"""One SVM on rows several times the workers' memory: ``DaskSVMClassifier(n_blocks=K)``
on a LocalCluster whose workers spill to disk, certified, with peak memory measured.

The rows are a CSR draw made by the workers themselves, chunk by chunk (``--nnz`` nonzeros per row
at random columns of ``--features``, values N(0, 1/nnz), labels the sign of a planted w plus noise,
no intercept: fitted without one unless ``--bias``, docs/distributed.md says why): no process ever
holds all of them, and their total (the chunks'
:class:`sdca_pegasos.solvers.cluster.blocks.BlockData`, as dask's ``sizeof`` counts them) is
``--factor`` times the workers' total ``memory_limit``. Each worker keeps about ``target`` of its
limit in memory and spills the rest; a block's local pass reads its chunks back one at a time.

Measured: rounds, data passes, wall and CPU to each relative gap, every round's wall and
gap; the workers' peak resident memory (``getrusage``'s maxrss of each worker process,
which would reset if its nanny restarted it: the workers' addresses are checked to be the
same at the end), what they held in memory and on disk after every round (dask's own
counts), and the driver's peak resident memory (this process, the scheduler included) against
d. ``--out FOLDER`` writes the JSON record the README's sentence is generated from.

    python benchmarks/beyond_memory.py --out benchmarks/records
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import warnings

if __name__ == "__main__":  # this checkout's packages, and not `benchmarks/` itself on the
    # path: its distributed.py would shadow the `distributed` package
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import numpy as np
import scipy.sparse as sp

from sdca_pegasos.experiments import reports


def row_bytes(nnz: int) -> int:
    """Bytes of one row in a chunk's BlockData: nnz (float64 value, int32 column), its row
    pointer (int32) and its label (float64)."""
    return nnz * (8 + 4) + 4 + 8


def draw_chunk(seed: int, rows: int, d: int, nnz: int, noise: float = 0.1):
    """One chunk of the draw: (CSR X, labels ±1). The planted w is the same in every chunk
    (seed 0); the rows come from the chunk's own seed."""
    w = np.random.default_rng(0).standard_normal(d)
    rng = np.random.default_rng([1, seed])
    cols = np.sort(rng.integers(0, d, size=(rows, nnz), dtype=np.int32), axis=1)
    vals = rng.standard_normal((rows, nnz)) / np.sqrt(nnz)
    indptr = np.arange(0, rows * nnz + 1, nnz, dtype=np.int32)
    X = sp.csr_matrix((vals.ravel(), cols.ravel(), indptr), shape=(rows, d))
    X.sum_duplicates()  # a repeated column adds up: canonical CSR
    margin = X @ w
    y = np.where(margin + noise * np.abs(margin).mean() * rng.standard_normal(rows) > 0, 1, -1)
    return X, y.astype(np.float64)


def dask_draw(n_chunks: int, rows: int, d: int, nnz: int):
    """X, y as dask arrays whose chunks the workers draw (no data in the graph)."""
    import dask
    import dask.array as da

    xs, ys = [], []
    for c in range(n_chunks):
        part = dask.delayed(draw_chunk, pure=True)(c, rows, d, nnz)
        xs.append(da.from_delayed(part[0], (rows, d), np.float64, meta=sp.csr_matrix((0, d))))
        ys.append(da.from_delayed(part[1], (rows,), np.float64))
    return da.concatenate(xs), da.concatenate(ys)


def worker_memory(dask_worker) -> dict:
    """A worker's peak and current resident memory and dask's counts of what it holds."""
    import psutil

    store = dask_worker.data
    spilled = store.spilled_total
    return {
        "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "rss": psutil.Process().memory_info().rss,
        "in_memory": int(store.fast.total_weight),
        "on_disk": int(spilled.disk),
        "keys_on_disk": len(store.slow),
    }


#: The README's generated block, and the record it is generated from.
MARKERS = (
    "<!-- beyond-memory:begin (benchmarks/beyond_memory.py --readme) -->",
    "<!-- beyond-memory:end -->",
)
README_RECORD = "benchmarks/records/beyond_memory.json"


def readme_block(record: dict) -> str:
    """The README's sentences about a run, every number read from its record."""
    gib = 2**30
    p, a = record["problem"], record["args"]
    peaks = sorted(record["worker_peak_rss"].values())
    reach = "; ".join(
        f"{float(eps):g} at round {r['round']} ({r['wall']:.0f} s)"
        for eps, r in record["reach"].items()
        if r is not None
    )
    verdict = "certified" if record["certified"] else "not certified"
    end = f"{record['load_end'][0]:.1f} at the end with its own workers"
    return (
        reports.measured_record(record, "python benchmarks/beyond_memory.py", end)
        + f": {record['rows_bytes'] / gib:.2f} GiB of CSR rows ({p['n']:,} × {p['d']:,}, "
        f"{p['nnz_per_row']} nonzeros per row, drawn by the workers in {p['chunks']} chunks) "
        f"on {a['workers']} workers of {a['memory_limit']:g} GiB `memory_limit` each, "
        f"{record['factor']:.2f}× their total; `n_blocks={a['blocks']}`, {a['loss']} at "
        f"λ = {a['lmbd']:g}, bias multiplier {a['bias']:g}: {verdict} at a relative gap of "
        f"{record['rel_gap']:.1e} in {record['rounds']} rounds ({record['wall']:.0f} s wall; "
        f"relative gap {reach}). Peak resident memory: workers "
        f"{' and '.join(f'{v / gib:.2f}' for v in peaks)} GiB (restarted: "
        f"{'yes' if record['workers_restarted'] else 'no'}), driver "
        f"{record['driver_peak_rss'] / gib:.2f} GiB with the scheduler, for d = {p['d']:,}."
    )


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-limit", type=float, default=1.0, help="GiB per worker")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--factor", type=float, default=3.2, help="rows' bytes / total limit")
    parser.add_argument("--chunk-mib", type=float, default=64.0)
    parser.add_argument("--features", type=int, default=100_000)
    parser.add_argument("--nnz", type=int, default=40)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--lmbd", type=float, default=1e-5)
    parser.add_argument("--loss", default="smooth_hinge")
    parser.add_argument(
        "--bias", type=float, default=0.0, help="bias multiplier (the draw has no intercept)"
    )
    parser.add_argument("--eps", type=float, nargs="+", default=[1e-2, 1e-4, 1e-6])
    parser.add_argument("--check-every", type=int, default=1)
    parser.add_argument("--max-rounds", type=int, default=100)
    parser.add_argument("--target", type=float, default=0.5, help="dask's memory target")
    parser.add_argument("--spill-dir", default=None, help="default: a temporary folder")
    parser.add_argument("--out", default=None, help="folder for the JSON record")
    reports.readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if reports.readme_requested(args, MARKERS, readme_block):
        return {}

    import dask
    from sklearn.exceptions import ConvergenceWarning

    from benchmarks.distributed import local_client
    from sdca_pegasos.solvers import DaskSVMClassifier

    limit = int(args.memory_limit * 2**30)
    rows = int(args.chunk_mib * 2**20) // row_bytes(args.nnz)
    n_chunks = -(-int(args.factor * limit * args.workers) // (rows * row_bytes(args.nnz)))
    n_chunks = max(n_chunks, args.blocks)
    n, d = n_chunks * rows, args.features
    load_start = os.getloadavg()
    memory = {
        "distributed.worker.memory.target": args.target,
        "distributed.worker.memory.spill": min(args.target + 0.1, 0.9),
        "distributed.worker.memory.pause": 0.92,
        "distributed.worker.memory.terminate": 0.98,
    }
    spill_root = args.spill_dir or tempfile.mkdtemp(prefix="beyond-memory-")
    print(
        f"{n_chunks} chunks x {rows} rows = {n} rows, d = {d}, {args.nnz} nonzeros per row: "
        f"{n_chunks * rows * row_bytes(args.nnz) / 2**30:.2f} GiB of rows on "
        f"{args.workers} workers x {args.memory_limit:g} GiB; spill to {spill_root}",
        flush=True,
    )
    with (
        dask.config.set(memory),  # the nannies hand it to their workers
        local_client(args.workers, memory_limit=limit, local_directory=spill_root) as client,
    ):
        workers_start = sorted(client.nthreads())  # asked afresh (not scheduler_info's cache)
        X, y = dask_draw(n_chunks, rows, d, args.nnz)
        trace = []
        t0 = time.perf_counter()

        def record(info):
            held = client.run(worker_memory)
            rel_gap = None if info.gap is None else info.gap / abs(info.primal)
            trace.append(
                {
                    "round": info.epoch,
                    "wall": time.perf_counter() - t0,
                    "cpu": info.cpu_time,
                    "block_cpu": list(info.block_cpu),
                    "check_wall": info.check_wall,
                    "finish": info.finish,
                    "rel_gap": rel_gap,
                    "workers": held,
                }
            )
            on_disk = sum(h["on_disk"] for h in held.values()) / 2**30
            in_mem = sum(h["in_memory"] for h in held.values()) / 2**30
            print(
                f"  round {info.epoch}: {trace[-1]['wall']:.1f} s, rel gap "
                f"{rel_gap if rel_gap is None else format(rel_gap, '.3g')}, "
                f"{in_mem:.2f} GiB in memory, {on_disk:.2f} GiB on disk",
                flush=True,
            )

        clf = DaskSVMClassifier(
            lmbd=args.lmbd,
            loss=args.loss,
            bias_multiplier=args.bias,
            n_blocks=args.blocks,
            tol=min(args.eps),
            max_rounds=args.max_rounds,
            check_every=args.check_every,
            random_state=0,
            callback=record,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(X, y)
        wall = time.perf_counter() - t0
        workers_end = sorted(client.nthreads())
        end = client.run(worker_memory)
    rows_bytes = n_chunks * rows * row_bytes(args.nnz)
    reach = {}
    for eps in args.eps:
        hit = [t for t in trace if t["rel_gap"] is not None and t["rel_gap"] <= eps]
        reach[str(eps)] = None if not hit else {"round": hit[0]["round"], "wall": hit[0]["wall"]}
    record_ = {
        "benchmark": "beyond_memory",
        "git": reports.git_commit(),  # experiments.reports: the commit, "-dirty" if changed
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpus": os.cpu_count(), "uname": " ".join(os.uname())},
        "load_start": load_start,
        "load_end": os.getloadavg(),
        "args": vars(args),
        "problem": {"n": n, "d": d, "nnz_per_row": args.nnz, "chunks": n_chunks, "rows": rows},
        "rows_bytes": rows_bytes,
        "memory_limit_total": limit * args.workers,
        "factor": rows_bytes / (limit * args.workers),
        "certified": bool(clf.certified_),
        "rel_gap": float(clf.rel_gap_),
        "primal": float(clf.primal_),
        "dual": float(clf.dual_),
        "rounds": int(clf.n_rounds_),
        "data_passes": int(clf.data_passes_),
        "certificate_passes": int(clf.certificate_passes_),
        "wall": wall,
        "reach": reach,
        "workers_restarted": workers_start != workers_end,
        "worker_peak_rss": {w: end[w]["maxrss"] for w in end},
        "driver_peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "bytes_per_round": int(clf.bytes_per_round_),
        "trace": trace,
    }
    gib = 2**30
    print(
        f"\n{rows_bytes / gib:.2f} GiB of rows = {record_['factor']:.2f}x the workers' "
        f"{limit * args.workers / gib:.2f} GiB: certified={record_['certified']} "
        f"(rel gap {record_['rel_gap']:.2e}) in {record_['rounds']} rounds, {wall:.0f} s\n"
        f"  worker peak RSS: "
        + ", ".join(f"{v / gib:.2f} GiB" for v in record_["worker_peak_rss"].values())
        + f" (restarted: {record_['workers_restarted']}); driver peak RSS "
        f"{record_['driver_peak_rss'] / gib:.3f} GiB for d = {d}"
    )
    for eps, r in reach.items():
        print(f"  {eps}: " + ("not reached" if r is None else f"round {r['round']}, "
                              f"{r['wall']:.0f} s"))  # fmt: skip
    if args.out:
        reports.write_record(args.out, "beyond_memory.json", record_)
    return record_


if __name__ == "__main__":
    main()
