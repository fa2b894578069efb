"""benchmarks/distributed.py: its record and the table of docs/distributed.md made from it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from benchmarks import distributed as bench
from sdca_pegasos.solvers.cluster.layout import auto_local_epochs

from .generated import regenerated

ROOT = Path(__file__).resolve().parents[1]


def record():
    return json.loads((ROOT / bench.README_RECORD).read_text())


def test_readme_table_is_generated_from_the_committed_record(tmp_path):
    text = regenerated(bench.main, bench.TABLE_FILE, [bench.README_RECORD], tmp_path)
    assert bench.readme_table(record()) in text


def test_the_full_sizes_block_is_generated_from_its_own_record(tmp_path):
    """--full --readme renders benchmarks/records/distributed_full.json into its own block:
    the issue's sizes, a round's overhead at blocks of >= 2M entries and the projection."""
    readme = tmp_path / "distributed.md"
    shutil.copy(ROOT / bench.TABLE_FILE, readme)
    bench.main(["--full", "--readme", str(readme)])
    assert readme.read_text() == (ROOT / bench.TABLE_FILE).read_text()
    full = json.loads((ROOT / bench.FULL_RECORD).read_text())
    assert [p["name"] for p in full["problems"]] == ["dense-full", "csr-full"]
    table = bench.readme_table(full)
    assert table in readme.read_text() and table not in bench.readme_table(record())
    assert "A round's overhead at blocks of ≥ 2M stored entries" in table
    assert "Projection, csr-full" in table and "W = 512:" in table


def test_readme_table_says_what_the_record_says():
    """Each row's rounds, its ratio to SDCA's epochs and a miss, from the record's numbers:
    change one and the table changes with it."""
    rec = record()
    table = bench.readme_table(rec)
    for p in rec["problems"]:
        assert f"{p['n']:,} × {p['d']:,}" in table
        for r in p["blocks"]:
            assert f"| | {r['k']} | " in table
    first = rec["problems"][0]
    one = next(r for r in first["blocks"] if r["k"] == 1 and r["requested"] == 1)
    one["rounds"]["0.01"], one["passes"]["0.01"] = 7, 7
    first["sdca"]["epochs"]["0.01"] = 2
    auto = next(r for r in first["blocks"] if r["k"] == 1 and r["requested"] == "auto")
    auto["rounds"]["0.01"], auto["passes"]["0.01"], auto["local_epochs"] = 3, 30, 10
    changed = bench.readme_table(rec).splitlines()
    row = next(line for line in changed if line.startswith("| | 1 | 1 |"))
    assert row.startswith(f"| | 1 | 1 | 7 rounds, 7 passes (3.5×), {one['wall']['0.01']:.2f} s |")
    row = next(line for line in changed if line.startswith("| | 1 | auto: 10 |"))
    wall = auto["wall"]["0.01"]
    assert row.startswith(f"| | 1 | auto: 10 | 3 rounds, 30 passes (15.0×), {wall:.2f} s |")
    one["trace"] = [
        [1, 0.002, 0.030, None, 1], [2, 0.004, 0.044, 0.5, 2], [3, 0.003, 0.060, 0.1, 3]
    ]  # fmt: skip
    line = bench.fixed_cost_line(rec)  # means of wall − CPU (28, 40, 57 ms) and of CPU
    assert f"{first['name']} 42 ms (its pass: 3.0 ms)" in line
    assert line in bench.readme_table(rec)
    assert "(the defaults); every round checked; rounds to" in bench.readme_table(rec)
    one["check_every"] = 8  # a spacing recorded: each said
    assert "every round checked; a check at least every 8 rounds; rounds to" in (
        bench.readme_table(rec)
    )
    rec["load_start"] = 1.6
    assert "under load" in bench.readme_table(rec)


def test_the_compare_lines_set_each_k_at_auto_against_its_base():
    """Wall to ε of one kind of run over another at auto, per problem, K and ε (shrinking
    over plain passes; the finish over shrinking alone): a planted change of one run's
    time moves the range; an ε reached by one run only is counted on its side."""
    rec = record()
    runs = [r for r in rec["problems"][0]["blocks"] if r["k"] == 1 and r["requested"] == "auto"]
    shrunk = next(r for r in runs if bench.flags(r) == (True, False))
    plain = next(r for r in runs if bench.flags(r) == (False, False))
    for r in rec["problems"][0]["blocks"] + rec["problems"][1]["blocks"]:
        for e in rec["eps"]:  # every other run: equal times, or neither reached
            r["wall"][str(e)] = None if r["wall"][str(e)] is None else 1.0
    for e in rec["eps"]:
        plain["wall"][str(e)], shrunk["wall"][str(e)] = 4.0, 1.0
    plain["wall"][str(rec["eps"][-1])] = None
    line = bench.compare_line(rec, (True, False), (False, False), "Shrinking", "plain passes")
    assert line.startswith("\n\nShrinking against plain passes, both at auto:")
    assert "from 0.25 to 1.00 of the latter's" in line
    assert "reached by the former only: 1; by the latter only: 0." in line
    assert line in bench.readme_table(rec)
    for p in rec["problems"]:  # the record's own finish runs out: one planted instead
        p["blocks"] = [r for r in p["blocks"] if bench.flags(r) != (True, True)]
    finished = dict(shrunk, finish=True, wall={str(e): 0.5 for e in rec["eps"]})
    rec["problems"][0]["blocks"].append(finished)
    line = bench.compare_line(rec, (True, True), (True, False), "The finish", "shrinking alone")
    assert "from 0.50 to 0.50 of the latter's (3 problem, K and ε cases)" in line
    assert line in bench.readme_table(rec)


def test_a_run_writes_the_record_its_table_reads(tmp_path):
    bench.main(
        ["--problem", "dense-small", "--blocks", "1", "2", "--max-rounds", "3",
         "--lmbd", "1.0", "--out", str(tmp_path)]
    )  # fmt: skip
    rec = json.loads((tmp_path / "distributed.json").read_text())
    runs = rec["problems"][0]["blocks"]
    assert [(r["k"], r["requested"], r["shrinking"], r["finish"]) for r in runs] == [
        (k, h, shrinking, finish)
        for k in (1, 2)
        for h, shrinking, finish in (
            (1, False, False),
            ("auto", False, False),
            ("auto", True, False),
            ("auto", True, True),
        )
    ]
    for r in runs:
        assert r["workers"] == 2 and r["entries"] == -(-20_000 // r["k"]) * 50
        for t in r["trace"]:  # each block's CPU (a finish: the driver's), the check's wall
            assert len(t[6]) == (1 if t[5] else r["k"]) and sum(t[6]) == t[1]
            assert (0.0 < t[7] < t[2]) if t[3] is not None else t[7] == 0.0
        block_work = -(-20_000 // r["k"]) * (50 + 2)  # dense: entries and two per row
        auto = auto_local_epochs([block_work])
        assert r["local_epochs"] == (1 if r["requested"] == 1 else auto) and auto in (9, 17)
        for eps, rounds in r["rounds"].items():  # passes: the steps / n at that round
            passes = r["passes"][eps]
            if rounds is None:
                assert passes is None
                continue
            assert passes == next(t[4] for t in r["trace"] if t[0] == rounds)
            full = rounds * r["local_epochs"]  # plain passes: every row, every pass
            assert passes == full if not r["shrinking"] else 0 < passes <= full
    table = bench.readme_table(rec)
    assert "| dense-small (20,000 × 50, λ = 1) | SDCA |" in table
    assert "| | SDCA, shrinking |" in table and "| | 2 | auto: 17, shrinking |" in table
    assert "| | 2 | auto: 17, shrinking, finish |" in table
    for r in runs:  # finish rounds so far at each ε's round, none without the finish
        for eps, rounds in r["rounds"].items():
            made = r["finishes"][eps]
            assert made == (None if rounds is None else sum(t[5] for t in r["trace"][:rounds]))
            assert r["finish"] or not made


def test_the_overhead_line_reads_blocks_of_two_million_entries_and_their_busiest_worker():
    """A round's overhead: wall minus the CPU of the busiest worker's blocks (block k on
    worker k mod W), summed over the CoCoA+ rounds (finishes left out), over their wall
    summed, with the certificates' share; only for runs whose blocks hold >= 2M entries;
    the verdict against 15 %; how the rounds were checked (every one, or how many)."""
    assert bench.critical_cpu([1.0, 2.0, 3.0, 4.0], 2) == 6.0  # worker 1: blocks 1 and 3
    assert bench.critical_cpu([5.0], 2) == 5.0
    rounds = [
        [1, 3.0, 10.0, None, 1.0, False, [1.0, 2.0], 0.0],  # 10 - 2 = 8 s
        [2, 18.0, 10.0, 0.5, 2.0, False, [9.0, 9.0], 0.5],  # 1 s, the certificate 0.5 s
        [3, 18.0, 10.0, 0.4, 3.0, False, [9.5, 8.5], 0.4],  # 0.5 s, 0.4 s
        [4, 1.0, 99.0, 0.1, 4.0, True, [1.0], 9.0],  # a finish: left out
    ]
    run = {"k": 2, "local_epochs": 1, "entries": 2_000_000, "workers": 2, "trace": rounds}
    rec = {"problems": [{"name": "csr-full", "blocks": [run]}]}
    line = bench.overhead_line(rec)  # 9.5 s of 30, the certificate 0.9 s
    assert "csr-full K = 2 (blocks of 2.0M entries, H = 1, 3 rounds, every round checked): " \
        "32%, the certificate 3%; above 15%" in line  # fmt: skip
    rounds[0][2], rounds[0][6] = 2.5, [1.0, 2.0]  # 0.5 s: 2.0 s of 22.5, 4 %
    run["check_every"] = 8  # a record that says its spacing: the checked rounds counted
    line = bench.overhead_line(rec)
    assert "3 rounds, a check at least every 8 rounds, 2 made): 9%, the certificate 4%; " \
        "within 15%" in line  # fmt: skip
    run["entries"] = 1_999_999
    assert bench.overhead_line(rec) == ""


def test_the_projection_is_its_arithmetic_on_the_measured_rounds():
    """Round costs (medians over the CoCoA+ rounds; a coordinate step's CPU from the data
    passes made), the rest fitted as a + b·K, and each projected round's sum, planted so
    that every term is known: rest 1.0, 1.5, 2.5 s at K = 1, 2, 4 is 0.5 s + 0.5 s a
    block; a step 2 ms, so a pass over a K = 2 block of 500 rows 1 s; the certificate
    0.5 s; at W = 64, 0.5 + 32 s of rest."""

    def run(k, block_cpu, wall, check, entries=2_000_000):
        trace = [
            [1, sum(block_cpu), wall, 0.5, 1.0, False, block_cpu, check],
            [2, 9.0, 99.0, 0.4, 1.5, True, [9.0], 1.0],  # a finish: left out
        ]
        return {"k": k, "local_epochs": 1, "entries": entries, "workers": 2, "trace": trace}

    runs = [run(1, [2.0], 3.2, 0.2), run(2, [1.0, 1.0], 3.0, 0.5), run(4, [0.5] * 4, 4.0, 0.5)]
    costs = bench.round_costs(runs[1], 1000)
    assert costs == {
        "rounds": 1, "wall": 3.0, "critical": 1.0, "check": 0.5, "rest": 1.5, "step": 0.002
    }  # fmt: skip
    d = 1_220_703  # the link: 2·64·(d + 1)·8 bytes at 1.25 GB/s, 1.00 s
    rec = {"problems": [{"name": "csr-full", "n": 1000, "d": d, "blocks": runs}]}
    line = bench.projection_lines(rec)
    assert "a coordinate step 2000000 ns of CPU, so one pass over a K = 2 block (500 rows)" \
        " 1.00 s; the rest fitted as 500 ms + 500.0 ms per block" in line  # fmt: skip
    assert "W = 64: 1.00 + 0.50 + 32.50 + 1.00 = 35.00 s a round, its local pass 3% of it" in line
    assert "W = 512: 1.00 + 0.50 + 256.50 + 8.00 = 266.00 s a round" in line
    runs[1]["entries"] = 1_999_999  # blocks too small to project from
    assert bench.projection_lines(rec) == ""
