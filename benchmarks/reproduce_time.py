"""How long ``make reproduce`` takes from a fresh clone: every stage, measured, into a record.

Clones this checkout's HEAD into a new folder (no venv, no crops, no reports: a new user's
first run), runs ``make reproduce`` there with the environment given (``DATA_MIRROR`` to copy
the datasets instead of downloading them) and records the wall time of each stage
(``output/timings.tsv``, written by the Makefile's stages), the set-up before them (the
venv, built from the package index: the total less the stages), the load average at the
start and the end and the commit. ``--readme README.md`` writes the README's sentence and the
table in ``docs/measurements.md`` from the committed record::

    DATA_MIRROR=../shared/data python benchmarks/reproduce_time.py --clone /tmp/cold \\
        --out benchmarks/records
    python benchmarks/reproduce_time.py --readme README.md

The run writes ``RUN_LOG`` in the clone: a line ``start <UTC time> <loadavg>`` and one
``data <where the datasets came from>`` before ``make reproduce``, ``rc <exit status>`` and
``end <UTC time> <loadavg> total <seconds>`` after it. A new record keeps the summary of the one
it replaces (``previous``: its commit, date, load and stages), and the README's sentence and the
table say each stage's wall against it: two records from machines of different speed read
apart by the stage whose code did not change. ``--ingest CLONE`` makes the record
from a clone whose run wrote those lines by other means (the same ``echo`` lines around
``make reproduce``). A failed run (exit
status not 0) gives no record.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages, not `benchmarks/` itself on the path
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from benchmarks.report import QUIET_LOAD_PER_CORE, UnderLoad
from sdca_pegasos.experiments.reports import REPO, readme_arguments, rewrite_block

RUN_LOG = "output/reproduce_run.txt"
RECORD = "benchmarks/records/reproduce_time.json"
#: The README's sentence, and the table of the details file, both from :data:`RECORD`.
README_MARKERS = (
    "<!-- reproduce-time:begin (benchmarks/reproduce_time.py --readme) -->",
    "<!-- reproduce-time:end -->",
)
DETAILS = Path("docs/measurements.md")
DETAILS_MARKERS = (
    "<!-- reproduce-time-table:begin (benchmarks/reproduce_time.py --readme) -->",
    "<!-- reproduce-time-table:end -->",
)


def parse_run_log(text: str) -> dict:
    """The start/rc/end lines of :data:`RUN_LOG`: times, load averages, status and total."""
    out: dict = {}
    for line in text.splitlines():
        word, *rest = line.split()
        if word == "start":
            out["start"], out["load_start"] = rest[0], [float(v) for v in rest[1:4]]
        elif word == "rc":
            out["rc"] = int(rest[0])
        elif word == "data":
            out["data"] = " ".join(rest)
        elif word == "end":
            out["end"], out["load_end"] = rest[0], [float(v) for v in rest[1:4]]
            out["total"] = float(rest[rest.index("total") + 1])
    missing = {"start", "rc", "end"} - out.keys()
    if missing:
        raise ValueError(
            f"{RUN_LOG}: no {', '.join(sorted(missing))} line: the run did not finish (or was "
            "not started through this script); run it again"
        )
    return out


def ingest(clone: Path) -> dict:
    """The record of a finished run in ``clone``: its log, its stages and its commit."""
    log = clone / RUN_LOG
    if not log.is_file():
        raise FileNotFoundError(
            f"{log} is missing: {clone} is not a clone whose `make reproduce` ran through this "
            "script; run one with --clone NEW_FOLDER (or write its lines: module docstring)"
        )
    run = parse_run_log(log.read_text())
    if run["rc"] != 0:
        raise RuntimeError(
            f"make reproduce in {clone} ended with status {run['rc']}: no record is made "
            f"of a failed run (its output: {clone / 'reproduce.log'})"
        )
    stages = []
    for line in (clone / "output/timings.tsv").read_text().splitlines():
        name, seconds = line.rsplit("\t", 1)
        stages.append([name, float(seconds)])
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    return {
        "date": run["start"],
        "git": commit,
        "cores": os.cpu_count(),
        "load_start": run["load_start"],
        "load_end": run["load_end"],
        "total": run["total"],
        "setup": run["total"] - sum(s for _, s in stages),
        "stages": stages,
        "command": "make reproduce (fresh clone)",
        "data": run.get("data", "datasets source not recorded"),
    }


def run_fresh_clone(clone: Path) -> dict:
    """``git clone`` HEAD into ``clone`` (which must not exist), ``make reproduce`` there,
    and the record of it."""
    if clone.exists():
        raise FileExistsError(f"{clone} exists: give a new folder (the run must start bare)")
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    log = clone / RUN_LOG
    log.parent.mkdir(parents=True, exist_ok=True)

    def stamp() -> str:
        load = " ".join(f"{v:.2f}" for v in os.getloadavg())
        return f"{datetime.now(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')} {load}"

    source = "datasets downloaded"
    if os.environ.get("DATA_MIRROR"):
        source = "datasets copied from DATA_MIRROR, not downloaded"
    log.write_text(f"start {stamp()}\ndata {source}\n")
    start = time.perf_counter()
    with open(clone / "reproduce.log", "w") as out:
        rc = subprocess.run(["make", "reproduce"], cwd=clone, stdout=out, stderr=out).returncode
    total = time.perf_counter() - start
    with open(log, "a") as f:
        f.write(f"rc {rc}\nend {stamp()} total {total:.1f}\n")
    return ingest(clone)


def with_previous(record: dict, previous: dict | None) -> dict:
    """``record`` with the summary of the record it replaces (``previous``, none if ``None``):
    its commit, date, load at the start, total, set-up and stages."""
    if previous is None:
        return record
    keys = ("git", "date", "load_start", "total", "setup", "stages")
    return {**record, "previous": {k: previous[k] for k in keys}}


def against_previous(record: dict) -> str:
    """Each stage's wall against the record before (``record["previous"]``), as a ratio;
    stages of one record only are left out."""
    prev = record["previous"]
    before = {"set-up (the venv)": prev["setup"], **dict(prev["stages"])}
    now = {"set-up (the venv)": record["setup"], **dict(record["stages"])}
    ratios = [f"{name} {now[name] / before[name]:.2f}×" for name in now if before.get(name)]
    return (
        f"Against the record before it (git {prev['git'][:7]}, {prev['date'][:10]}, load "
        f"{prev['load_start'][0]:.1f} at the start: {_minutes(prev['total'])}), each stage's "
        f"wall: {', '.join(ratios)}; total {record['total'] / prev['total']:.2f}×."
    )


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def _wall(seconds: float) -> str:
    return f"{seconds:.0f} s" + (f" ({seconds / 60:.1f} min)" if seconds >= 90 else "")


def check_quiet(record: dict) -> None:
    """:class:`benchmarks.report.UnderLoad` if the machine was busy when the run started
    (its own jobs load it to the end, so the end's load is stated, not judged)."""
    limit = QUIET_LOAD_PER_CORE * record["cores"]
    if not record["load_start"][0] <= limit:
        raise UnderLoad(
            f"the run started under load (load average {record['load_start'][0]:.1f} on "
            f"{record['cores']} cores, above {limit:g}): README and {DETAILS} are not "
            "rewritten. Rerun on a quiet machine."
        )


def readme_sentence(record: dict) -> str:
    """The README's sentence: total and each stage, every number from the record."""
    parts = [f"set-up (the venv) {_minutes(record['setup'])}"]
    parts += [f"{name} {_minutes(seconds)}" for name, seconds in record["stages"]]
    return (
        f"A cold `make reproduce` on a fresh clone took **{_minutes(record['total'])}** on "
        f"{record['cores']} cores ({record['date'][:10]}, git {record['git'][:7]}, load "
        f"{record['load_start'][0]:.1f} at the start; {record['data']}): {', '.join(parts)} "
        f"(`benchmarks/reproduce_time.py`; every stage's table: "
        f"[{DETAILS.as_posix()}]({DETAILS.as_posix()}#time-of-make-reproduce-2-cores))."
    ) + (" " + against_previous(record) if "previous" in record else "")


def details_table(record: dict) -> str:
    """The stage table of the details file, from the record."""
    lines = [
        f"Cold run on a fresh clone, {record['date'][:10]} (git {record['git'][:7]}, "
        f"`{record['command']}`, {record['data']}, {record['cores']} cores, load average "
        f"{record['load_start'][0]:.1f} at the start, {record['load_end'][0]:.1f} at the end "
        "with its own jobs):",
        "",
        "| stage | wall | share |",
        "|---|---|---|",
    ]
    rows = [("set-up: the venv (pip install)", record["setup"])]
    rows += [(name, seconds) for name, seconds in record["stages"]]
    for name, seconds in rows:
        share = 100 * seconds / record["total"]
        lines.append(f"| {name} | {_wall(seconds)} | {share:.0f} % |")
    lines.append(f"| **total** | **{_wall(record['total'])}** | |")
    if "previous" in record:
        lines += ["", against_previous(record)]
    return "\n".join(lines)


def write_readme(readme: Path | str, record: dict) -> None:
    """README's sentence and the details file's table (beside the README) from ``record``."""
    check_quiet(record)
    rewrite_block(readme, README_MARKERS, readme_sentence(record))
    rewrite_block(Path(readme).parent / DETAILS, DETAILS_MARKERS, details_table(record))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clone", type=Path, help="a new folder: clone HEAD there and run")
    parser.add_argument("--ingest", type=Path, help="a clone whose run has finished")
    parser.add_argument("--out", type=Path, help="folder for the JSON record")
    readme_arguments(parser, str(REPO / RECORD))
    args = parser.parse_args(argv)
    if args.readme:
        record = json.loads(Path(args.record).read_text())
        write_readme(args.readme, record)
        return record
    if (args.clone is None) == (args.ingest is None):
        parser.error("give one of --clone (run now) and --ingest (a finished run)")
    record = run_fresh_clone(args.clone) if args.clone else ingest(args.ingest)
    print(details_table(record))
    if args.out:
        committed = Path(args.record)
        previous = json.loads(committed.read_text()) if committed.exists() else None
        record = with_previous(record, previous)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / Path(RECORD).name).write_text(json.dumps(record, indent=1) + "\n")
    return record


if __name__ == "__main__":
    main()
