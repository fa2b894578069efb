"""Rounds, passes and wall of DaskSVMClassifier(method="newton") as the blocks grow, against
single-process SDCA with shrinking on the same problem and loss.

Each problem (skin in a seeded order, and the draws of ``benchmarks/distributed.py``) is
fitted with a smooth loss (``--loss``, default the smoothed hinge, γ = 1), λ = 1/n and an
intercept (bias multiplier 1), to a certified relative gap of 1e-6:

- ``SDCAClassifier(shrinking=True, tol_gap="relative")`` in this process: epochs and wall
  (its own epochs' wall and checks, from its callback) to 1e-4 and 1e-6;
- ``DaskSVMClassifier(method="newton", n_blocks=None)`` on X cut into K contiguous chunks
  (K blocks) for K in ``--blocks``, on a LocalCluster of 2 workers × 1 thread: Newton steps
  ("rounds"), conjugate-gradient products, line-search evaluations, data passes (steps'
  and certificates'), and the fit's rounds' wall (each round's with its check) to 1e-4 and
  1e-6, and what share of it the checks took.

It prints each of issue "More workers, less time"'s targets that these runs measure as
measured / target. Rounds and passes are the algorithm's (the same at every K, up to the
order of the sums); walls are this machine's, its load printed. ``--readme`` regenerates
docs/distributed.md's table and README's sentence from the record.

    python benchmarks/newton_blocks.py --out benchmarks/records
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

if __name__ == "__main__":  # this checkout's packages, not benchmarks/distributed.py as
    # the `distributed` package
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import numpy as np

from sdca_pegasos.experiments import reports

README_RECORD = "benchmarks/records/newton_blocks.json"
MARKERS = (
    "<!-- newton-blocks:begin (benchmarks/newton_blocks.py --readme) -->",
    "<!-- newton-blocks:end -->",
)
SENTENCE_MARKERS = (
    "<!-- newton-blocks-sentence:begin (benchmarks/newton_blocks.py --readme) -->",
    "<!-- newton-blocks-sentence:end -->",
)
TARGETS = (1e-4, 1e-6)
BLOCKS = (1, 2, 4, 8, 16, 64)


def first(gaps, values, eps):
    """The first of ``values`` whose gap is at most ``eps`` (None: never)."""
    return next((v for g, v in zip(gaps, values, strict=True) if g is not None and g <= eps), None)


def sdca_run(X, y, loss: str, max_epochs: int) -> dict:
    from sklearn.exceptions import ConvergenceWarning

    from sdca_pegasos.solvers import SDCAClassifier

    rows = []

    def record(info):
        rel = None if info.gap is None else info.gap / abs(info.primal)
        rows.append((info.epoch, info.wall_time, rel, info.cpu_time))

    clf = SDCAClassifier(
        lmbd=1.0 / X.shape[0], loss=loss, shrinking=True, tol=min(TARGETS),
        tol_gap="relative", max_epochs=max_epochs, random_state=0, callback=record,
    )  # fmt: skip
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    fit_wall = time.perf_counter() - start
    gaps = [r[2] for r in rows]
    wall = list(np.cumsum([r[1] for r in rows]))
    return {
        "epochs": {str(e): first(gaps, [r[0] for r in rows], e) for e in TARGETS},
        "wall": {str(e): first(gaps, wall, e) for e in TARGETS},
        "fit_wall": fit_wall,
        "cpu": float(sum(r[3] for r in rows)),
        "certified": bool(rows and gaps[-1] is not None and gaps[-1] <= min(TARGETS)),
    }


def newton_run(client, X, y, loss: str, k: int, max_rounds: int) -> dict:
    import dask.array as da
    import scipy.sparse as sp
    from sklearn.exceptions import ConvergenceWarning

    from sdca_pegasos.solvers import DaskSVMClassifier

    per = -(-X.shape[0] // k)
    if sp.issparse(X):
        parts = [X[i : i + per] for i in range(0, X.shape[0], per)]
        Xd = da.concatenate([da.from_array(p, chunks=p.shape, asarray=False) for p in parts])
    else:
        Xd = da.from_array(X, chunks=(per, -1))
    yd = da.from_array(y, chunks=(per,))
    rows = []

    def record(info):
        rel = None if info.gap is None else info.gap / abs(info.primal)
        rows.append((info.epoch, info.wall_time, info.check_wall, rel, info.cpu_time))

    clf = DaskSVMClassifier(
        lmbd=1.0 / X.shape[0], loss=loss, method="newton", n_blocks=None, tol=min(TARGETS),
        max_rounds=max_rounds, random_state=0, callback=record,
    )  # fmt: skip
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Xd, yd)
    fit_wall = time.perf_counter() - start
    gaps = [r[3] for r in rows]
    wall = list(np.cumsum([r[1] + r[2] for r in rows]))
    checks = sum(r[2] for r in rows)
    return {
        "k": k,
        "rounds": {str(e): first(gaps, [r[0] for r in rows], e) for e in TARGETS},
        "wall": {str(e): first(gaps, wall, e) for e in TARGETS},
        "rounds_run": int(clf.n_rounds_),
        "cg": [int(c) for c in clf.cg_iterations_],
        "evals": [int(e) for e in clf.line_search_evals_],
        "data_passes": float(clf.data_passes_),
        "certificate_passes": int(clf.certificate_passes_),
        "round_trips": int(clf.round_trips_),
        "check_share": checks / wall[-1] if wall and wall[-1] > 0 else None,
        "fit_wall": fit_wall,
        "cpu": float(sum(r[4] for r in rows)),
        "certified": bool(clf.certified_),
        "rel_gap": float(clf.rel_gap_),
        "primal": float(clf.primal_),
    }


def _filled(width: int, value: float) -> np.ndarray:
    return np.full(width, value)


def probe(client, width: int, repeats: int = 20) -> dict:
    """The cluster's costs the projection reads: the driver's seconds per task pinned to a
    worker by ``client.submit`` (a slot's task: ``pinned``) and per task of a ``client.map``
    call (the tree's additions: ``submit``), 512 tasks each, and the wall of one reduction
    of ``parts`` vectors of ``width`` floats made on the workers (a map, :func:`tree_sum`,
    a gather: what a Newton pass costs besides its work) for 2, 4 and 8 parts, the median
    of ``repeats``; ``hop`` is the wall one more level of the tree adds, (t(8) − t(2)) / 2."""
    from sdca_pegasos.solvers.cluster.newton import tree_sum

    start = time.perf_counter()
    futures = client.map(_filled, [width] * 512, np.arange(512.0), pure=False)
    submit = (time.perf_counter() - start) / 512
    client.gather(futures)
    workers = sorted(client.scheduler_info()["workers"])
    start = time.perf_counter()
    futures = [
        client.submit(_filled, width, float(i), workers=[workers[i % len(workers)]],
                      allow_other_workers=True, pure=False)
        for i in range(512)
    ]  # fmt: skip
    pinned = (time.perf_counter() - start) / 512
    client.gather(futures)
    del futures
    walls = {}
    for parts in (2, 4, 8):
        times = []
        for r in range(repeats):
            begin = time.perf_counter()
            made = client.map(_filled, [width] * parts, np.arange(parts) + r, pure=False)
            client.gather(tree_sum(client, made))
            times.append(time.perf_counter() - begin)
        walls[str(parts)] = float(np.median(times))
    return {
        "width": width,
        "submit": submit,
        "pinned": pinned,
        "reduction": walls,
        "hop": (walls["8"] - walls["2"]) / 2,
    }


#: Workers the projection prints, and the target's: W workers each holding a block of the
#: problem's size, and the blocks at which the driver's share is read.
PROJECTED = (1, 2, 8, 64, 512)
PROJECTED_BLOCKS = 512


def projection(p: dict) -> dict | None:
    """Weak scaling projected from the measured K = 1 run and the cluster's probe: W
    workers each holding a block the size of the whole problem (W times the rows) make
    the same Newton steps, products and evaluations as K = 1 (assumed: the rounds were
    measured flat in K at fixed n, not at W times n), each worker doing the K = 1
    worker's work at the same time, so only the round trips grow:

    wall(W) = wall₁ + R·(hop·⌈log₂W⌉ + pinned·2(W − 1) + submit·(W − 1)),

    wall₁ the K = 1 rounds' wall to 1e-6 (its workers' CPU ``cpu`` and the rest), R its
    round trips: at W workers each adds ⌈log₂W⌉ tree levels and, for the driver to submit,
    at most 2(W − 1) more pinned tasks (a pass's task and its part's, one a worker) and
    W − 1 additions (one ``client.map`` a level). The driver's share of a round is its
    submissions, R/steps·(pinned·2W + submit·(W − 1)), whatever the blocks (a task a
    worker)."""
    runs = {r["k"]: r for r in p["runs"]}
    one, probed = runs.get(1), p.get("probe")
    eps = str(min(TARGETS))
    if one is None or probed is None or one["wall"][eps] is None or "round_trips" not in one:
        return None
    cpu, wall, trips = one["cpu"], one["wall"][eps], one["round_trips"]
    hop, submit = max(probed["hop"], 0.0), probed["submit"]
    pinned = probed.get("pinned", submit)
    steps = max(one["rounds_run"], 1)
    out = {"cpu": cpu, "wall": wall, "round_trips": trips, "steps": steps, "hop": hop,
           "submit": submit, "pinned": pinned, "walls": {}, "driver_per_round": {}}  # fmt: skip
    for w in PROJECTED:
        levels = math.ceil(math.log2(w)) if w > 1 else 0
        out["walls"][str(w)] = wall + trips * (
            hop * levels + pinned * 2 * (w - 1) + submit * (w - 1)
        )
        out["driver_per_round"][str(w)] = trips / steps * (pinned * 2 * w + submit * (w - 1))
    return out


def _best(runs: list[dict]) -> dict:
    """Of repeated runs of one setting (the same rounds and passes), the one with the least
    wall to 1e-6 (its fit's wall when none reached it): a run's wall on this shared
    machine varies with what else ran, and the least is the closest to the method's."""
    eps = str(min(TARGETS))
    return min(runs, key=lambda r: (r["wall"][eps] is None, r["wall"][eps] or r["fit_wall"]))


def measure(problems, blocks, loss: str, max_rounds: int, repeats: int = 1) -> list[dict]:
    from benchmarks.distributed import PROBLEMS, local_client

    out = []
    for name in problems:
        X, y = PROBLEMS[name]()
        entry = {"name": name, "n": int(X.shape[0]), "d": int(X.shape[1]), "loss": loss}
        entry["sdca"] = _best([sdca_run(X, y, loss, 1000) for _ in range(repeats)])
        print(name, "sdca", entry["sdca"], flush=True)
        entry["runs"] = []
        with local_client(2) as client:
            newton_run(client, X[:1000], y[:1000], loss, 2, 5)  # the workers' imports, once
            for k in blocks:
                runs = [newton_run(client, X, y, loss, k, max_rounds) for _ in range(repeats)]
                entry["runs"].append(_best(runs))
                print(name, entry["runs"][-1], flush=True)
            entry["probe"] = probe(client, X.shape[1] + 1)
            print(name, "probe", entry["probe"], flush=True)
        out.append(entry)
    return out


def _fmt(v, spec=".3g") -> str:
    return "—" if v is None else format(v, spec)


def targets_lines(record: dict) -> list[str]:
    """Issue "More workers, less time"'s targets these runs measure, measured / target."""
    lines = []
    for p in record["problems"]:
        runs = {r["k"]: r for r in p["runs"]}
        one, eps = runs.get(1), str(min(TARGETS))
        for k, bound in ((8, 1.5), (64, 2.5)):
            if one is None or one["rounds"][eps] is None or k not in runs:
                continue
            if runs[k]["rounds"][eps] is not None:
                ratio = runs[k]["rounds"][eps] / one["rounds"][eps]
                lines.append(
                    f"{p['name']}: rounds to 1e-6 at K = {k} / K = 1: {ratio:.2f} / ≤ {bound}"
                )
        epochs = p["sdca"]["epochs"][eps]
        if 8 in runs and epochs:
            passes = runs[8]["data_passes"] + runs[8]["certificate_passes"]
            lines.append(
                f"{p['name']}: data passes to 1e-6 at K = 8 (steps' and checks') / SDCA's "
                f"epochs: {passes / epochs:.2f} / ≤ 2"
            )
        if 2 in runs:
            for e in TARGETS:
                ours, theirs = runs[2]["wall"][str(e)], p["sdca"]["wall"][str(e)]
                if ours is not None and theirs:
                    lines.append(
                        f"{p['name']}: wall to {e:g}, 2 workers (K = 2) / one process: "
                        f"{ours / theirs:.2f} / ≤ 0.7"
                    )
            wall = runs[2]["wall"][str(min(TARGETS))]
            if wall is not None and "cpu" in runs[2] and "cpu" in p["sdca"]:
                lines.append(
                    f"{p['name']}: where the wall goes at K = 2: the workers' CPU in the steps "
                    f"{runs[2]['cpu']:.3g} s (both summed; one process's epochs "
                    f"{p['sdca']['cpu']:.3g} s) of {wall:.3g} s "
                    "of rounds; the rest is the checks, task latency and the driver"
                )
            share = runs[2]["check_share"]
            if share is not None:
                lines.append(f"{p['name']}: the checks' share of the rounds' wall at K = 2: "
                             f"{share:.0%} / ≤ 15 %")  # fmt: skip
        proj = projection(p)
        if proj is not None:
            walls, driver = proj["walls"], proj["driver_per_round"]
            lines.append(
                f"{p['name']}: projected weak scaling (W workers, each a block of "
                f"{p['n']:,} rows; wall(W) = {proj['wall']:.3g} s + {proj['round_trips']} round "
                f"trips × ({proj['hop'] * 1e3:.3g} ms × ⌈log₂W⌉ + {proj['pinned'] * 1e3:.2g} ms "
                f"× 2(W − 1) + {proj['submit'] * 1e3:.2g} ms × (W − 1)); rounds as at K = 1, "
                "assumed): wall at 64 workers / 1: "
                f"{walls['64'] / walls['1']:.2f} / ≤ 2"
            )
            tree, submissions = 6 * proj["hop"], 126 * proj["pinned"] + 63 * proj["submit"]
            lines.append(
                f"{p['name']}: what a round trip adds at 64 workers, split: the tree's 6 "
                f"levels {tree * 1e3:.3g} ms, the driver's submissions {submissions * 1e3:.3g} "
                f"ms ({'the submissions' if submissions > tree else 'the tree'} the larger)"
            )
            lines.append(
                f"{p['name']}: projected driver's share of a round, {PROJECTED_BLOCKS} blocks "
                f"on 64 workers (a task a worker: {proj['round_trips'] / proj['steps']:.3g} "
                f"round trips a step × ({proj['pinned'] * 1e3:.2g} ms × 2W + "
                f"{proj['submit'] * 1e3:.2g} ms × (W − 1))): "
                f"{driver['64']:.3g} s / ≤ 0.2 s (on {PROJECTED_BLOCKS} workers: "
                f"{driver[str(PROJECTED_BLOCKS)]:.3g} s)"
            )
    return lines


def readme_block(record: dict) -> str:
    """docs/distributed.md's table, every number from the record."""
    lines = [
        reports.measured_record(record)
        + ': `DaskSVMClassifier(method="newton", n_blocks=None)` on X cut into K contiguous '
        f"chunks, LocalCluster of 2 workers × 1 thread, {record['loss_said']}, λ = 1/n, bias "
        "multiplier 1, to a certified relative gap of 1e-6; single-process "
        '`SDCAClassifier(shrinking=True, tol_gap="relative")` on the same problem in the '
        f"same run; each the best of {record.get('repeats', 1)} runs by its wall to 1e-6. "
        "Rounds are Newton steps; passes are the steps' (gradient, "
        "conjugate-gradient products, margins along the step) plus the checks'; round trips "
        "are the sums the driver waited on (`round_trips_`: passes, line-search evaluations, "
        "certificates); wall is the rounds' with their checks.",
        "",
        "| problem | K | rounds to 1e-4 / 1e-6 | CG products | round trips | passes "
        "| wall to 1e-4 / 1e-6 (s) | checks' share |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for p in record["problems"]:
        sd = p["sdca"]
        lines.append(
            f"| {p['name']} ({p['n']:,} × {p['d']}) | one process (SDCA) | "
            f"{_fmt(sd['epochs']['0.0001'])} / {_fmt(sd['epochs']['1e-06'])} epochs | — | — | — | "
            f"{_fmt(sd['wall']['0.0001'])} / {_fmt(sd['wall']['1e-06'])} | — |"
        )
        for r in p["runs"]:
            passes = r["data_passes"] + r["certificate_passes"]
            cert = "" if r["certified"] else f" (not certified: {r['rel_gap']:.2g})"
            lines.append(
                f"|  | {r['k']} | {_fmt(r['rounds']['0.0001'])} / {_fmt(r['rounds']['1e-06'])}"
                f"{cert} | {sum(r['cg'])} | {_fmt(r.get('round_trips'))} | {passes:.3g} | "
                f"{_fmt(r['wall']['0.0001'])} / "
                f"{_fmt(r['wall']['1e-06'])} | {_fmt(r['check_share'], '.0%')} |"
            )
    lines += ["", "Measured / target:", ""] + [f"- {line}" for line in targets_lines(record)]
    return "\n".join(lines)


def readme_sentence(record: dict) -> str:
    """README's sentence: Newton's rounds at the fewest and the most blocks, from the record."""
    p = record["problems"][0]
    runs = {r["k"]: r for r in p["runs"]}
    low, high = min(runs), max(runs)
    eps = "1e-06"
    return (
        f'With `method="newton"` ({record["loss_said"]}) the rounds do not grow with the '
        f"blocks: on {p['name']} to a certified 1e-6, {_fmt(runs[low]['rounds'][eps])} "
        f"Newton steps at K = {low} and {_fmt(runs[high]['rounds'][eps])} at K = {high} "
        f"(`benchmarks/newton_blocks.py`; the table: "
        "[docs/distributed.md](docs/distributed.md#newtons-method-on-the-primal-methodnewton))."
    )


def rewrite(path: str, record: dict) -> None:
    """Rewrite the generated blocks ``path`` holds; a file with neither is a ValueError."""
    blocks = ((MARKERS, readme_block), (SENTENCE_MARKERS, readme_sentence))
    reports.rewrite_blocks(path, record, blocks, "newton_blocks.py")


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=["skin", "dense-full", "csr-full"])
    parser.add_argument("--blocks", nargs="+", type=int, default=list(BLOCKS))
    parser.add_argument(
        "--loss", default="smooth_hinge", choices=["smooth_hinge", "squared_hinge"]
    )
    parser.add_argument("--max-rounds", type=int, default=60)
    parser.add_argument(
        "--repeats", type=int, default=2, help="runs of each setting; the record keeps the best"
    )
    parser.add_argument("--out", help="folder for the JSON record (newton_blocks.json)")
    reports.readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if args.readme:
        import json
        from pathlib import Path

        rewrite(args.readme, json.loads(Path(args.record).read_text()))
        return {}
    said = {"smooth_hinge": "smoothed hinge (γ = 1)", "squared_hinge": "squared hinge"}
    record = {
        **reports.record_head("newton_blocks"),
        "command": " ".join(["python benchmarks/newton_blocks.py", *(argv or sys.argv[1:])]),
        "loss_said": said[args.loss],
        "repeats": args.repeats,
        "problems": measure(args.problems, args.blocks, args.loss, args.max_rounds, args.repeats),
    }
    record["load_end"] = os.getloadavg()[0]
    print(readme_block(record))
    if args.out:
        reports.write_record(args.out, "newton_blocks.json", record)
    return record


if __name__ == "__main__":
    main()
