"""How DaskSVMClassifier's rounds grow with its blocks, adding (σ' = K) against the line search.

``DaskSVMClassifier(aggregate="add")`` adds the K blocks' updates damped by σ' = K;
``aggregate="line_search"`` lets each block solve its local problem with σ' = 1 and takes the
step η ∈ [0, η_max] that maximises the dual along the summed direction (docs/distributed.md,
"Aggregation by line search"). On each problem (skin, its rows in a seeded order, and the
dense draw ``dense-small`` of ``benchmarks/distributed.py``; hinge, λ = 1/n, bias multiplier
1, the estimator's defaults otherwise: automatic local passes, shrinking, the finish; every
round checked, ``check_every=1``, so that the rounds are where the gap first meets ε), both are
fitted at K = 1, 2, 4, 8 and 16 blocks (K contiguous chunks, ``n_blocks=None``) on a
LocalCluster of 2 workers × 1 thread, to a certified relative gap of 1e-6 within
``--max-rounds`` rounds; and on skin without the finish (``finish=False``) at K = 2, 4 and 8
within ``--no-finish-rounds``, whose last ten certified gaps say whether a fit stalls. Rounds
and data passes are the algorithm's (deterministic); the record holds every run, and
``--readme docs/distributed.md`` regenerates the table and its sentences from it.

    python benchmarks/aggregation.py --out benchmarks/records
"""

from __future__ import annotations

import argparse
import os
import sys

if __name__ == "__main__":  # this checkout's packages, and not `benchmarks/` itself on the
    # path: its distributed.py would shadow the `distributed` package
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from sdca_pegasos.experiments import reports

README_RECORD = "benchmarks/records/aggregation.json"
MARKERS = (
    "<!-- aggregation:begin (benchmarks/aggregation.py --readme) -->",
    "<!-- aggregation:end -->",
)
#: The README's sentence of how the rounds grow with the blocks (its cluster section).
SENTENCE_MARKERS = (
    "<!-- aggregation-sentence:begin (benchmarks/aggregation.py --readme) -->",
    "<!-- aggregation-sentence:end -->",
)
TARGET = 1e-6
BLOCKS = (1, 2, 4, 8, 16)
NO_FINISH_BLOCKS = (2, 4, 8)
AGGREGATES = ("add", "line_search")


def one_run(client, X, y, k: int, aggregate: str, max_rounds: int, finish: bool = True) -> dict:
    """One fit's rounds, passes and finishes to :data:`TARGET` (None: not reached), whether it
    certified, and its last ten certified relative gaps."""
    from benchmarks.distributed import dask_run

    run = dask_run(
        client, X, y, 1.0 / X.shape[0], k, [TARGET], max_rounds, finish=finish,
        aggregate=aggregate, check_every=1,  # every round checked: the algorithm's rounds
    )  # fmt: skip
    gaps = [float(row[3]) for row in run["trace"] if row[3] is not None]
    finishes = run["finishes"][TARGET]
    return {
        "k": k,
        "aggregate": aggregate,
        "finish": finish,
        "rounds": run["rounds"][TARGET],
        "passes": None if run["passes"][TARGET] is None else float(run["passes"][TARGET]),
        "finishes": None if finishes is None else int(finishes),
        "certified": run["certified"],
        "rounds_run": len(run["trace"]),
        "last_gaps": gaps[-10:],
    }


def measure(problems, blocks, max_rounds: int, no_finish_rounds: int) -> list[dict]:
    from benchmarks.distributed import PROBLEMS, local_client

    out = []
    with local_client(2) as client:
        for name in problems:
            X, y = PROBLEMS[name]()
            entry = {"name": name, "n": int(X.shape[0]), "d": int(X.shape[1]), "runs": []}
            for k in blocks:
                for aggregate in AGGREGATES:
                    entry["runs"].append(one_run(client, X, y, k, aggregate, max_rounds))
                    print(name, entry["runs"][-1], flush=True)
            if name == "skin":
                for k in (b for b in NO_FINISH_BLOCKS if b in blocks):
                    for aggregate in AGGREGATES:
                        run = one_run(client, X, y, k, aggregate, no_finish_rounds, False)
                        entry["runs"].append(run)
                        print(name, run, flush=True)
            out.append(entry)
    return out


def _cell(run: dict | None, with_finishes: bool) -> str:
    if run is None:
        return "—"
    if run["rounds"] is None:
        return f"not within {run['rounds_run']} rounds"
    finishes = f" ({run['finishes']:g})" if with_finishes else ""
    return f"{run['rounds']} rounds{finishes}, {run['passes']:.3g} passes"


def readme_block(record: dict) -> str:
    """The table and the no-finish sentence of docs/distributed.md, every number from the
    record."""
    lines = [
        reports.measured_record(record)
        + f": rounds to a certified relative gap of {record['target']:g} (finishes among them) "
        "and data passes, LocalCluster of 2 workers × 1 thread, hinge, λ = 1/n, bias "
        "multiplier 1, the defaults otherwise.",
        "",
        '| problem | K | `"add"` (σ\' = K) | `"line_search"` (σ\' = 1) |',
        "| --- | --- | --- | --- |",
    ]
    stalls = []
    for p in record["problems"]:
        runs = {(r["k"], r["aggregate"], r["finish"]): r for r in p["runs"]}
        for i, k in enumerate(sorted({r["k"] for r in p["runs"] if r["finish"]})):
            name = f"{p['name']} ({p['n']:,} × {p['d']})" if i == 0 else ""
            add, line = runs.get((k, "add", True)), runs.get((k, "line_search", True))
            lines.append(f"| {name} | {k} | {_cell(add, k > 1)} | {_cell(line, k > 1)} |")
        for k in sorted({r["k"] for r in p["runs"] if not r["finish"]}):
            said = []
            for aggregate in AGGREGATES:
                r = runs[(k, aggregate, False)]
                if r["rounds"] is not None:
                    said.append(f"{aggregate} certifies in {r['rounds']} rounds")
                else:
                    gaps = r["last_gaps"]
                    said.append(
                        f"{aggregate} does not within {r['rounds_run']} (its last ten gaps "
                        f"{min(gaps):.2g} to {max(gaps):.2g})"
                    )
            stalls.append(f"K = {k}: " + ", ".join(said))
    if stalls:
        lines += ["", "Without the finish (`finish=False`, skin): " + "; ".join(stalls) + "."]
    return "\n".join(lines)


def readme_sentence(record: dict, problem: str = "skin") -> str:
    """README's one sentence: the rounds and passes of the fewest and the most blocks on
    ``problem``, both ways, from the record."""
    p = next(p for p in record["problems"] if p["name"] == problem)
    runs = {(r["k"], r["aggregate"]): r for r in p["runs"] if r["finish"]}
    low, high = min(k for k, _ in runs), max(k for k, _ in runs)

    def said(k, aggregate):
        r = runs[(k, aggregate)]
        if r["rounds"] is None:
            return f"no certificate within {r['rounds_run']} rounds"
        return f"{r['rounds']} rounds ({r['passes']:.3g} data passes)"

    return (
        f"How the rounds grow with the blocks, on {problem} to a certified {record['target']:g}: "
        f"{said(low, 'add')} at K = {low}, {said(high, 'add')} at K = {high} adding (σ' = K), "
        f'{said(high, "line_search")} with `aggregate="line_search"` '
        "(`benchmarks/aggregation.py`; the table and why adding stays the default: "
        "[docs/distributed.md](docs/distributed.md#aggregation-by-line-search-aggregateline_search))."
    )


def rewrite(path: str, record: dict) -> None:
    """Rewrite the generated blocks ``path`` holds: the table (docs/distributed.md) and the
    sentence (README.md); a file with neither is a ValueError."""
    blocks = ((MARKERS, readme_block), (SENTENCE_MARKERS, readme_sentence))
    reports.rewrite_blocks(path, record, blocks, "aggregation.py")


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=["skin", "dense-small"])
    parser.add_argument("--blocks", nargs="+", type=int, default=list(BLOCKS))
    parser.add_argument("--max-rounds", type=int, default=200)
    parser.add_argument("--no-finish-rounds", type=int, default=60)
    parser.add_argument("--out", help="folder for the JSON record (aggregation.json)")
    reports.readme_arguments(parser, README_RECORD)
    args = parser.parse_args(argv)
    if args.readme:
        import json
        from pathlib import Path

        rewrite(args.readme, json.loads(Path(args.record).read_text()))
        return {}
    record = {
        **reports.record_head("aggregation"),
        "command": " ".join(["python benchmarks/aggregation.py", *(argv or sys.argv[1:])]),
        "target": TARGET,
        "problems": measure(args.problems, args.blocks, args.max_rounds, args.no_finish_rounds),
    }
    record["load_end"] = os.getloadavg()[0]
    print(readme_block(record))
    if args.out:
        print("record:", reports.write_record(args.out, "aggregation.json", record))
    return record


if __name__ == "__main__":
    main()
