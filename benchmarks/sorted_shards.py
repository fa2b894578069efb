"""A newcomer's shards: skin's file, sorted by label, cut and fitted as the README says.

Skin's rows as the file holds them (the 50,859 skin rows first, then the 194,198 others) are
written to one svmlight file, cut by :func:`sdca_pegasos.solvers.cluster.shards.split_svmlight`
into shards of ``--rows`` rows (what ``python -m sdca_pegasos.solvers.cluster.shards FILE FOLDER
--rows N`` does), read back by the workers
(:func:`sdca_pegasos.solvers.cluster.shards.read_shards`) and fitted by
``DaskSVMClassifier(tol=1e-6)`` with its defaults on a LocalCluster of 2 workers × 1 thread; then
the same with the rows shuffled (seeded) before the cut. Each fit's blocks (their chunks and which
hold one class), rounds, finishes, data passes, certified relative gap and wall seconds go to the
record; ``--readme docs/distributed.md`` regenerates the sentence about it there.

    python benchmarks/sorted_shards.py --out benchmarks/records
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings

if __name__ == "__main__":  # this checkout's packages, and not `benchmarks/` itself on the
    # path: its distributed.py would shadow the `distributed` package
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import numpy as np

from sdca_pegasos.experiments import reports

MARKERS = (
    "<!-- sorted-shards:begin (benchmarks/sorted_shards.py --readme) -->",
    "<!-- sorted-shards:end -->",
)
README_RECORD = "benchmarks/records/sorted_shards.json"


def fit_shards(client, X, y, folder: str, rows: int, max_rounds: int) -> dict:
    """X, y written as one svmlight file, cut into shards of ``rows`` rows, read by the
    workers and fitted with the defaults: what the fit did and what it said."""
    from sklearn.datasets import dump_svmlight_file
    from sklearn.exceptions import ConvergenceWarning

    from sdca_pegasos.solvers import DaskSVMClassifier
    from sdca_pegasos.solvers.cluster.shards import read_shards, split_svmlight

    os.makedirs(folder)
    source = os.path.join(folder, "rows.svm")
    dump_svmlight_file(X, y, source, zero_based=True)
    shards = split_svmlight(source, os.path.join(folder, "shards"), rows)
    Xd, yd = read_shards(os.path.join(folder, "shards"), client, n_features=X.shape[1])
    clf = DaskSVMClassifier(tol=1e-6, max_rounds=max_rounds, random_state=0)
    t = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        clf.fit(Xd, yd)
    wall = time.perf_counter() - t
    k = int(clf.n_blocks_)  # "auto": X's row g in block g mod K
    labels = [np.unique(y[b::k], return_counts=True) for b in range(k)]
    return {
        "shards": len(shards),
        "blocks": k,
        "block_classes": [dict(zip(c.tolist(), m.tolist(), strict=True)) for c, m in labels],
        "certified": bool(clf.certified_),
        "rel_gap": float(clf.rel_gap_),
        "rounds": int(clf.n_rounds_),
        "finishes": int(clf.n_finishes_),
        "check_every": int(clf.check_every_),  # "auto" resolved
        "data_passes": float(clf.data_passes_),
        "wall": wall,
        "warnings": [str(w.message) for w in caught],
    }


def readme_block(record: dict) -> str:
    """The sentence of docs/distributed.md about the run, every number from its record."""
    from benchmarks.distributed import checks_said

    def said(run: dict) -> str:
        if run["certified"]:
            verdict = f"certified 1e-6 in {run['rounds']} rounds"
        else:
            verdict = (
                f"ended uncertified at a relative gap of {run['rel_gap']:.2g} after "
                f"{run['rounds']} rounds"
            )
        finishes = run["finishes"]
        return (
            f"{verdict} ({finishes} finish{'es' if finishes != 1 else ''}, "
            f"{run['data_passes']:.3g} data passes, {run['wall']:.1f} s)"
        )

    sorted_, shuffled = record["runs"]["file order"], record["runs"]["shuffled"]
    checks = checks_said(sorted_.get("check_every", 1))
    blocks = "; ".join(
        f"block {b}: " + ", ".join(f"{m:,} of class {float(c):g}" for c, m in held.items())
        for b, held in enumerate(sorted_["block_classes"])
    )
    return (
        reports.measured_record(record, "python benchmarks/sorted_shards.py")
        + f": skin's file in its own order (sorted by "
        f"label), cut into {sorted_['shards']} shards of {record['rows']:,} rows and fitted "
        f"with the defaults ({checks}) on 2 workers × 1 thread, its rows dealt "
        f"to {sorted_['blocks']} blocks ({blocks}), {said(sorted_)}; the same rows shuffled "
        f"before the cut {said(shuffled)}."
    )


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000, help="rows per shard")
    parser.add_argument("--max-rounds", type=int, default=200)
    parser.add_argument("--out", help="folder for the JSON record (sorted_shards.json)")
    reports.readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if reports.readme_requested(args, MARKERS, readme_block):
        return {}
    from benchmarks.distributed import local_client, skin_problem

    record = {**reports.record_head("sorted_shards"), "rows": args.rows, "runs": {}}
    X, y = skin_problem(seed=None)
    order = np.random.default_rng(0).permutation(X.shape[0])
    with tempfile.TemporaryDirectory() as tmp, local_client(2) as client:
        for name, rows in (("file order", slice(None)), ("shuffled", order)):
            folder = os.path.join(tmp, name.replace(" ", "-"))
            run = fit_shards(client, X[rows], y[rows], folder, args.rows, args.max_rounds)
            record["runs"][name] = run
            print(f"{name}: {json.dumps({k: v for k, v in run.items() if k != 'warnings'})}")
    record["load_end"] = os.getloadavg()[0]
    print(readme_block(record))
    if args.out:
        reports.write_record(args.out, "sorted_shards.json", record)
    return record


if __name__ == "__main__":
    main()
