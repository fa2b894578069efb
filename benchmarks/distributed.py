"""CoCoA+ over a LocalCluster (``sdca_pegasos.solvers.DaskSVMClassifier``) against single-process
SDCA.

For K = 1, 2, 4, 8 blocks on a LocalCluster of 2 workers × 1 thread, each run as ``--runs``
says (default: H = 1 plain local pass per round, ``local_epochs="auto"`` plain passes, and
with shrinking, and the estimator's defaults, "auto" with shrinking and the finish):
rounds (and the finish's among them), data passes (the local
coordinate steps over n: ``EpochInfo.data_passes``), CPU seconds (the blocks' local
passes, summed) and wall seconds (the whole round: passes, transfers, certificate: the
record's ``wall_time`` and ``check_wall``) until
the certified relative gap first reaches each ε; the bytes a round moves; and a round's
fixed cost (at K = 1, H = 1). The references are ``SDCAClassifier`` in this process,
plain and with ``shrinking=True``: epochs, CPU (its update loop) and wall to the same
relative gap (its exact gap, after each epoch).

``make bench-distributed`` runs the default size, modest for a 2-core machine: dense
20,000 × 50 Gaussian rows at λ = 1e-3 (at λ = 1/n the hinge needs more than 400 SDCA epochs
to reach 1e-4 there). ``--full`` runs the issue's sizes (a CSR 1,000,000 ×
100,000 with 40 nonzeros per row and a dense 200,000 × 500, λ = 1/n: hours and tens of GB);
``--problem`` picks one, ``skin`` among them (its rows shuffled once: the file is sorted by
class). ``--out FOLDER`` writes the JSON record (every problem, K and round);
``--readme docs/distributed.md`` (``TABLE_FILE``) regenerates its table from ``--record``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import time
import warnings

if __name__ == "__main__":  # this checkout's packages, and not `benchmarks/` itself on the
    # path: this file's name would shadow the `distributed` package
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos.experiments import reports
from sdca_pegasos.solvers import DaskSVMClassifier, SDCAClassifier


def dense_problem(n: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def csr_problem(n: int, d: int, nnz: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, d, size=(n, nnz))
    data = rng.standard_normal((n, nnz)) / np.sqrt(nnz)
    X = sp.csr_matrix((data.ravel(), cols.ravel(), np.arange(0, n * nnz + 1, nnz)), (n, d))
    X.sum_duplicates()
    y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def skin_problem(seed: int | None = 0):
    """Skin (245,057 × 3) as ``make bench-peers`` loads it, its rows in one seeded random
    order (``seed`` None: the file's): the file is sorted by class, and K contiguous blocks
    of it would each hold mostly one class."""
    from benchmarks.problems import PROBLEMS as PEERS
    from benchmarks.problems import load_problem

    problem = load_problem(next(p for p in PEERS if p.dataset == "skin"))
    if seed is None:
        return problem.X, problem.y
    order = np.random.default_rng(seed).permutation(problem.X.shape[0])
    return problem.X[order], problem.y[order]


PROBLEMS = {
    "skin": skin_problem,
    "dense-small": lambda: dense_problem(20_000, 50),
    "dense-full": lambda: dense_problem(200_000, 500),
    "csr-full": lambda: csr_problem(1_000_000, 100_000, 40),
}


def first_reach(gaps, values, targets):
    """For each ε: the first entry of ``values`` whose gap is <= ε (None if never)."""
    out = {}
    for eps in targets:
        hit = [v for g, v in zip(gaps, values, strict=True) if g is not None and g <= eps]
        out[eps] = hit[0] if hit else None
    return out


def sdca_reference(X, y, lmbd, targets, max_epochs, shrinking=False):
    rows = []

    def record(info):
        rel = info.gap / abs(info.primal) if info.gap is not None else None
        rows.append((info.epoch, info.cpu_time, info.wall_time, rel))
        return bool(rel is not None and rel <= min(targets))

    clf = SDCAClassifier(
        lmbd=lmbd,
        tol=1e-300,
        tol_gap="absolute",
        max_epochs=max_epochs,
        random_state=0,
        shrinking=shrinking,
        finish=False,
    )
    clf.set_params(callback=record)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    gaps = [r[3] for r in rows]
    cpu, wall = np.cumsum([r[1] for r in rows]), np.cumsum([r[2] for r in rows])
    epochs = [r[0] for r in rows]
    return {
        "epochs": first_reach(gaps, epochs, targets),
        "cpu": first_reach(gaps, list(cpu), targets),
        "wall": first_reach(gaps, list(wall), targets),
    }


def dask_run(
    client, X, y, lmbd, k, targets, max_rounds, local_epochs="auto", shrinking=True, finish=True,
    aggregate="add", check_every="auto",
):  # fmt: skip
    import dask.array as da

    rows_per_block = -(-X.shape[0] // k)
    if sp.issparse(X):
        parts = [X[i : i + rows_per_block] for i in range(0, X.shape[0], rows_per_block)]
        Xd = da.concatenate(
            [da.from_array(p, chunks=p.shape, asarray=False) for p in parts], axis=0
        )
    else:
        Xd = da.from_array(X, chunks=(rows_per_block, -1))
    yd = da.from_array(y, chunks=(rows_per_block,))
    rows = []

    def record(info):  # the round's wall with its check, which comes after its clock
        rel = None if info.gap is None else info.gap / abs(info.primal)
        rows.append(
            (info.epoch, info.cpu_time, info.wall_time + info.check_wall, rel,
             info.data_passes, info.finish, list(info.block_cpu), info.check_wall)
        )  # fmt: skip

    clf = DaskSVMClassifier(
        lmbd=lmbd,
        tol=min(targets),
        max_rounds=max_rounds,
        n_blocks=None,  # K blocks: the K row chunks above, whatever the cluster's threads
        local_epochs=local_epochs,
        shrinking=shrinking,
        finish=finish,
        aggregate=aggregate,
        check_every=check_every,
        random_state=0,
        callback=record,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Xd, yd)
    gaps = [r[3] for r in rows]
    cpu, wall = np.cumsum([r[1] for r in rows]), np.cumsum([r[2] for r in rows])
    rounds = first_reach(gaps, [r[0] for r in rows], targets)
    if sp.issparse(X):
        entries = max(p.nnz for p in parts)
    else:
        entries = min(rows_per_block, X.shape[0]) * X.shape[1]
    return {
        "local_epochs": clf.local_epochs_,  # passes per round (local_epochs resolved)
        "check_every": clf.check_every_,  # the most rounds between checks ("auto" resolved)
        "entries": int(entries),  # the largest block's stored entries (X's, no bias)
        "workers": len(client.nthreads()),  # asked afresh, not scheduler_info()'s cache
        "rounds": rounds,
        "passes": first_reach(gaps, [r[4] for r in rows], targets),
        "cpu": first_reach(gaps, list(cpu), targets),
        "wall": first_reach(gaps, list(wall), targets),
        "bytes": clf.bytes_per_round_,
        "certified": bool(clf.certified_),
        "rel_gap": float(clf.rel_gap_),
        "finishes": first_reach(gaps, list(np.cumsum([r[5] for r in rows])), targets),
        # every round: (round, CPU, wall, certified relative gap or None, data passes so
        # far, whether it was a finish, each block's CPU, the certificate's wall)
        "trace": rows,
    }


@contextlib.contextmanager
def local_client(n_workers: int = 2, **cluster_kwargs):
    """A client of a LocalCluster of ``n_workers`` processes × 1 thread, quiet, its
    dashboard on a free port (the benchmarks' cluster)."""
    from distributed import Client, LocalCluster

    options = {"dashboard_address": ":0", "silence_logs": logging.ERROR, **cluster_kwargs}
    with (
        LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, **options) as c,
        Client(c) as client,
    ):
        yield client


def fmt(v, spec=".3g"):
    return "—" if v is None else format(v, spec)


#: The generated table (in ``TABLE_FILE``), and the record it is generated from.
MARKERS = (
    "<!-- bench-distributed:begin (benchmarks/distributed.py --readme) -->",
    "<!-- bench-distributed:end -->",
)
README_RECORD = "benchmarks/records/distributed.json"
#: The same for the issue's sizes (``--full``), in a block of their own.
FULL_MARKERS = (
    "<!-- bench-distributed-full:begin (benchmarks/distributed.py --full --readme) -->",
    "<!-- bench-distributed-full:end -->",
)
FULL_RECORD = "benchmarks/records/distributed_full.json"
#: the file whose generated block shows the record (``--readme``)
TABLE_FILE = "docs/distributed.md"


def readme_table(record: dict) -> str:
    """The README's table of a run: per problem and K, rounds (= data passes) to each ε
    against single-process SDCA's epochs, and wall seconds; every number from the record."""
    eps = record["eps"]
    head = (
        reports.measured_record(record) + ", LocalCluster of 2 workers "
        f"× 1 thread, hinge, bias multiplier 1; H local passes per round (`local_epochs`; "
        f"auto: resolved), plain, with shrinking, and with the finish too (the defaults); "
        f"{spacings_said(record)}; rounds to the certified relative gap ε, the data "
        f"passes they made (local coordinate steps / n; × plain SDCA's epochs, n steps "
        f"each) and wall seconds, "
        f"— = not within {record['max_rounds']} rounds (SDCA: epochs):\n\n"
    )
    cols = " | ".join(f"ε = {e:g}" for e in eps)
    lines = [f"| problem | K | H | {cols} | bytes / round |", "|" + " --- |" * (len(eps) + 4)]
    for p in record["problems"]:
        ref = p["sdca"]
        name = f"{p['name']} ({p['n']:,} × {p['d']:,}, λ = {p['lmbd']:.3g})"
        for label, key in (("SDCA", "sdca"), ("SDCA, shrinking", "sdca_shrinking")):
            if key not in p:
                continue
            cells = " | ".join(
                f"{fmt(p[key]['epochs'][str(e)], 'd')} epochs, "
                f"{fmt(p[key]['wall'][str(e)], '.2f')} s"
                for e in eps
            )
            lines.append(f"| {name} | {label} | | {cells} | — |".replace("|  |", "| |", 1))
            name = ""
        for r in p["blocks"]:
            cells = []
            for e in eps:
                rounds, passes = r["rounds"][str(e)], r["passes"][str(e)]
                epochs = ref["epochs"][str(e)]
                ratio = "" if passes is None or not epochs else f" ({passes / epochs:.1f}×)"
                made = int((r.get("finishes") or {}).get(str(e)) or 0)  # finish rounds
                plural = "" if rounds == 1 else "s"
                among = f" ({made} finish{'es' if made != 1 else ''})" if made else ""
                done = (
                    "—" if rounds is None
                    else f"{rounds} round{plural}{among}, {count(passes)} passes"
                )  # fmt: skip
                cells.append(f"{done}{ratio}, {fmt(r['wall'][str(e)], '.2f')} s")
            h = r["local_epochs"] if r["requested"] != "auto" else f"auto: {r['local_epochs']}"
            shown = [f for f, on in zip(("shrinking", "finish"), flags(r), strict=True) if on]
            h = ", ".join([str(h), *shown])
            lines.append(f"| | {r['k']} | {h} | {' | '.join(cells)} | {r['bytes']:,} |")
    tail = fixed_cost_line(record) + overhead_line(record) + projection_lines(record)
    tail += compare_lines(record)
    return head + "\n".join(lines) + tail


def checks_said(check_every: int, made: int | None = None) -> str:
    """How a fit's rounds were checked, in words: every round (``check_every=1``, also for
    records made before ``check_every="auto"``, which do not say), or at least every N
    rounds (``made``: how many checks were made)."""
    if check_every == 1:
        return "every round checked"
    said = f"a check at least every {check_every} rounds"
    return said if made is None else f"{said}, {made} made"


def spacings_said(record: dict) -> str:
    """How the record's runs were checked (:func:`checks_said` of each spacing they used)."""
    spacings = sorted({r.get("check_every", 1) for p in record["problems"] for r in p["blocks"]})
    return "; ".join(checks_said(every) for every in spacings)


def flags(run: dict) -> tuple[bool, bool]:
    """A run's (shrinking, finish) (records before either ran without it)."""
    return bool(run.get("shrinking")), bool(run.get("finish"))


def compare_line(record: dict, better: tuple, base: tuple, what: str, against: str) -> str:
    """Runs of flags ``better`` against runs of flags ``base`` (:func:`flags`), both at
    ``local_epochs="auto"``, read off the record: for every problem, K and ε, the ratio of
    their wall seconds where both reached ε, and how many ε only one of them reached."""
    ratios, only = [], {True: 0, False: 0}
    for p in record["problems"]:
        auto = [r for r in p["blocks"] if r["requested"] == "auto"]
        bases = {r["k"]: r for r in auto if flags(r) == base}
        for r in auto:
            if flags(r) != better or r["k"] not in bases:
                continue
            for e in record["eps"]:
                a, b = r["wall"][str(e)], bases[r["k"]]["wall"][str(e)]
                if a is not None and b is not None:
                    ratios.append(a / b)
                elif (a is None) != (b is None):
                    only[a is not None] += 1
    if not ratios and not any(only.values()):
        return ""
    span = f"from {min(ratios):.2f} to {max(ratios):.2f}" if ratios else "—"
    return (
        f"\n\n{what} against {against}, both at auto: wall time to ε where both reached it "
        f"{span} of the latter's ({len(ratios)} problem, K and ε cases); reached by the "
        f"former only: {only[True]}; by the latter only: {only[False]}."
    )


def compare_lines(record: dict) -> str:
    """Shrinking against plain passes, and the finish against shrinking alone."""
    return compare_line(
        record, (True, False), (False, False), "Shrinking", "plain passes"
    ) + compare_line(record, (True, True), (True, False), "The finish", "shrinking alone")


def count(passes: float) -> str:
    """Data passes as the table shows them: whole from 100 on, else 3 digits."""
    return f"{passes:,.0f}" if passes >= 100 else f"{passes:.3g}"


def fixed_cost_line(record: dict) -> str:
    """A round's fixed cost, read off the record: at K = 1 and one pass a round, the mean
    over its rounds of the round's wall seconds minus its local pass's CPU seconds (the
    tasks' latency, the gathers, the certificates: a mean, since with spaced checks most
    rounds make none), beside the mean local pass."""
    parts = []
    for p in record["problems"]:
        for r in p["blocks"]:
            if r["k"] == 1 and r["local_epochs"] == 1 and not any(flags(r)) and r["trace"]:
                fixed = np.mean([t[2] - t[1] for t in r["trace"]])  # wall - CPU
                local = np.mean([t[1] for t in r["trace"]])
                parts.append(f"{p['name']} {fixed * 1e3:.0f} ms (its pass: {local * 1e3:.1f} ms)")
    if not parts:
        return ""
    return (
        "\n\nA round's fixed cost, at K = 1 and H = 1 (mean over its rounds of the round's "
        "wall minus its local pass's CPU: task latency, gathers, certificates): "
        + "; ".join(parts)
        + "."
    )


#: The issue's target for a round's overhead (wall minus the local passes' critical path,
#: over the wall) applies at blocks of at least this many stored entries.
OVERHEAD_ENTRIES = 2_000_000
OVERHEAD_TARGET = 0.15


def critical_cpu(block_cpu: list, workers: int) -> float:
    """The CPU seconds of a round's local passes on its busiest worker: block k runs on
    worker k mod W (``DaskSVMClassifier`` places it there), one task at a time on a
    worker of one thread, so the round waits for the largest of the W sums."""
    return max(sum(block_cpu[w::workers]) for w in range(min(workers, len(block_cpu))))


def overhead_line(record: dict) -> str:
    """A round's overhead at blocks of >= ``OVERHEAD_ENTRIES`` stored entries, read off the
    record: over each such run's CoCoA+ rounds (finishes left out), the rounds' wall minus
    their local passes' critical path (:func:`critical_cpu`), summed, over their wall
    summed, and the certificates' share of it, against ``OVERHEAD_TARGET`` (sums, not a
    median: with the checks spaced, ``check_every`` > 1, most rounds make none)."""
    parts = []
    for p in record["problems"]:
        for r in p["blocks"]:
            rounds = [t for t in r["trace"] if len(t) >= 8 and not t[5]]
            if r.get("entries", 0) < OVERHEAD_ENTRIES or not rounds:
                continue
            wall = sum(t[2] for t in rounds)
            over = sum(t[2] - critical_cpu(t[6], r["workers"]) for t in rounds) / wall
            check = sum(t[7] for t in rounds) / wall
            every = r.get("check_every", 1)
            made = None if every == 1 else sum(t[7] > 0.0 for t in rounds)
            verdict = "within" if over <= OVERHEAD_TARGET else "above"
            parts.append(
                f"{p['name']} K = {r['k']} (blocks of {r['entries'] / 1e6:.1f}M entries, "
                f"H = {r['local_epochs']}, {len(rounds)} rounds, "
                f"{checks_said(every, made)}): {over:.0%}, "
                f"the certificate {check:.0%}; {verdict} {OVERHEAD_TARGET:.0%}"
            )
    if not parts:
        return ""
    return (
        f"\n\nA round's overhead at blocks of ≥ {OVERHEAD_ENTRIES / 1e6:g}M stored entries "
        "(over the CoCoA+ rounds, the rounds' wall minus the CPU of their busiest "
        "worker's local passes, summed, over their wall summed; the certificates' share of "
        "that wall beside it): " + "; ".join(parts) + "."
    )


#: The projection's assumptions: the driver's link (10 Gb/s Ethernet) and the worker counts.
LINK_BYTES_PER_S = 1.25e9
PROJECTED_WORKERS = (64, 512)


def round_costs(run: dict, n: int) -> dict:
    """A run's measured round, median over its CoCoA+ rounds (finishes left out): wall, the
    busiest worker's local CPU (:func:`critical_cpu`), the rest (tasks, transfers, the
    driver's sum), and the CPU of one coordinate step; and the certificate's wall per round,
    their mean (spaced checks: most rounds make none)."""
    trace = [t for t in run["trace"] if len(t) >= 8]
    rounds, before = [], 0.0
    for t in trace:
        steps = (t[4] - before) * n
        before = t[4]
        if not t[5] and steps > 0:
            rounds.append((t, steps))
    crit = [critical_cpu(t[6], run["workers"]) for t, _ in rounds]
    return {
        "rounds": len(rounds),
        "wall": float(np.median([t[2] for t, _ in rounds])),
        "critical": float(np.median(crit)),
        "check": float(np.mean([t[7] for t, _ in rounds])),
        "rest": float(
            np.median([t[2] - t[7] - c for (t, _), c in zip(rounds, crit, strict=True)])
        ),
        "step": float(np.median([t[1] / s for t, s in rounds])),
    }


def projection_lines(record: dict) -> str:
    """A round on W = 64 and 512 workers, projected from the measured rounds of each
    problem whose blocks at K = 2 hold >= ``OVERHEAD_ENTRIES``: each worker one block of
    the K = 2 block's rows (the data grow with W), one pass a round at the measured CPU per
    coordinate step, the certificate's wall as measured at K = 2 (a pass over each block,
    side by side), the rest fitted as a + b·K over K = 1, 2, 4, 8 (least squares), plus
    the driver's link carrying w out and v_k back for every block at
    ``LINK_BYTES_PER_S``. Rounds to ε are not projected: CoCoA+'s grow with K."""
    out = []
    for p in record["problems"]:
        runs = {r["k"]: r for r in p["blocks"] if r["trace"] and len(r["trace"][0]) >= 8}
        if 2 not in runs or len(runs) < 2 or runs[2].get("entries", 0) < OVERHEAD_ENTRIES:
            continue
        costs = {k: round_costs(r, p["n"]) for k, r in sorted(runs.items())}
        ks = np.array(list(costs), dtype=float)
        b, a = np.polyfit(ks, [c["rest"] for c in costs.values()], 1)
        rows = -(-p["n"] // 2)
        local = rows * costs[2]["step"] * runs[2]["local_epochs"]
        check = costs[2]["check"]
        parts = []
        for w in PROJECTED_WORKERS:
            link = 2 * w * (p["d"] + 1) * 8 / LINK_BYTES_PER_S
            wall = local + check + a + b * w + link
            parts.append(
                f"W = {w}: {local:.2f} + {check:.2f} + {a + b * w:.2f} + {link:.2f} = "
                f"{wall:.2f} s a round, its local pass {local / wall:.0%} of it"
            )
        measured = "; ".join(
            f"K = {k}: wall {c['wall']:.2f} s, busiest worker {c['critical']:.2f} s, "
            f"certificate {c['check']:.2f} s, rest {c['rest'] * 1e3:.0f} ms"
            for k, c in costs.items()
        )
        out.append(
            f"\n\nProjection, {p['name']} (a round's medians, {measured}): a coordinate step "
            f"{costs[2]['step'] * 1e9:.0f} ns of CPU, so one pass over a K = 2 block "
            f"({rows:,} rows) {local:.2f} s; the rest fitted as {a * 1e3:.0f} ms + "
            f"{b * 1e3:.1f} ms per block; the driver's link at {LINK_BYTES_PER_S / 1e9:g} GB/s "
            f"carries 2·W·(d + 1)·8 bytes a round. With every worker holding such a block "
            f"(W/2 times these rows), pass + certificate + rest + link: "
            + "; ".join(parts)
            + ". Rounds to ε at 64 or 512 blocks were not measured (CoCoA+'s grow with K)."
        )
    return "".join(out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", choices=sorted(PROBLEMS), action="append")
    parser.add_argument("--full", action="store_true", help="the issue's sizes")
    parser.add_argument("--blocks", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--eps", type=float, nargs="+", default=[1e-2, 1e-4, 1e-6])
    parser.add_argument("--max-rounds", type=int, default=400)
    parser.add_argument(
        "--runs",
        nargs="+",
        default=["1", "auto", "auto:shrinking", "auto:shrinking:finish"],
        help="how to run each K: local passes per round (an int or auto), then ':shrinking' "
        "for SDCA with shrinking, ':finish' for the finish (default: 1 auto auto:shrinking "
        "auto:shrinking:finish, the last the estimator's defaults)",
    )
    parser.add_argument("--lmbd", type=float, help="default: 1e-3 for dense-small, else 1/n")
    parser.add_argument("--out", help="folder for the JSON record (distributed.json)")
    reports.readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if args.full and args.record == README_RECORD:
        args.record = FULL_RECORD
    if reports.readme_requested(args, FULL_MARKERS if args.full else MARKERS, readme_table):
        return
    runs = []  # (spec, local epochs, {"shrinking": bool, "finish": bool}) of each --runs entry
    for spec in args.runs:
        h, *how = spec.split(":")
        if set(how) - {"shrinking", "finish"} or not (h == "auto" or h.isdigit()):
            parser.error(f"--runs {spec}: an int or auto, then :shrinking and/or :finish")
        on = {f: f in how for f in ("shrinking", "finish")}
        runs.append((spec, h if h == "auto" else int(h), on))

    names = args.problem or (["dense-full", "csr-full"] if args.full else ["dense-small"])
    record = {
        "command": "python benchmarks/distributed.py " + " ".join(argv or sys.argv[1:]),
        **reports.record_head("distributed"),
        "eps": args.eps,
        "max_rounds": args.max_rounds,
        "problems": [],
    }
    with local_client(2) as client:
        for name in names:
            X, y = PROBLEMS[name]()
            n = X.shape[0]
            lmbd = args.lmbd or (1e-3 if name == "dense-small" else 1.0 / n)
            t = time.perf_counter()
            ref = sdca_reference(X, y, lmbd, args.eps, args.max_rounds)
            ref_shrinking = sdca_reference(X, y, lmbd, args.eps, args.max_rounds, True)
            print(
                f"\n{name}: n={n}, d={X.shape[1]}, lambda={lmbd:g} "
                f"(SDCA reference {time.perf_counter() - t:.1f} s wall)"
            )
            print("  single-process SDCA: " + "; ".join(
                f"{eps:g}: {fmt(ref['epochs'][eps], 'd')} epochs, CPU {fmt(ref['cpu'][eps])} s, "
                f"wall {fmt(ref['wall'][eps])} s" for eps in args.eps))  # fmt: skip
            entry = {"name": name, "n": n, "d": X.shape[1], "lmbd": lmbd, "sdca": ref}
            entry["sdca_shrinking"] = ref_shrinking
            entry["blocks"] = []
            for k in args.blocks:
                for spec, h, on in runs:
                    r = dask_run(client, X, y, lmbd, k, args.eps, args.max_rounds, h, **on)
                    entry["blocks"].append({"k": k, "requested": h, **on, **r})
                    print(f"  K={k}, {spec} (H={r['local_epochs']}): {r['bytes']} bytes/round, "
                          f"certified={r['certified']} (rel gap {r['rel_gap']:.2e})")  # fmt: skip
                    for eps in args.eps:
                        passes, epochs = r["passes"][eps], ref["epochs"][eps]
                        ratio = None if passes is None or not epochs else passes / epochs
                        print(f"    {eps:g}: {fmt(r['rounds'][eps], 'd')} rounds, "
                              f"{fmt(passes, '.1f')} data passes ({fmt(ratio, '.2f')}x SDCA's "
                              f"epochs), CPU {fmt(r['cpu'][eps])} s, "
                              f"wall {fmt(r['wall'][eps])} s")  # fmt: skip
            record["problems"].append(entry)
    record["load_end"] = os.getloadavg()[0]
    if args.out:  # ε keys become strings; one line (every round of every run: MBs indented)
        name = os.path.basename(FULL_RECORD if args.full else README_RECORD)
        reports.write_record(args.out, name, record, default=float, indent=None)


if __name__ == "__main__":
    main()
