"""benchmarks/distributed.py: its record and the table of docs/distributed.md made from it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from benchmarks import distributed as bench

ROOT = Path(__file__).resolve().parents[1]


def record():
    return json.loads((ROOT / bench.README_RECORD).read_text())


def test_readme_table_is_generated_from_the_committed_record(tmp_path):
    readme = tmp_path / "distributed.md"
    shutil.copy(ROOT / bench.TABLE_FILE, readme)
    bench.main(["--readme", str(readme), "--record", str(ROOT / bench.README_RECORD)])
    assert readme.read_text() == (ROOT / bench.TABLE_FILE).read_text()
    assert bench.readme_table(record()) in readme.read_text()


def test_readme_table_says_what_the_record_says():
    """Each row's rounds, its ratio to SDCA's epochs and a miss, from the record's numbers:
    change one and the table changes with it."""
    rec = record()
    table = bench.readme_table(rec)
    for p in rec["problems"]:
        assert f"{p['n']:,} × {p['d']:,}" in table
        for r in p["blocks"]:
            assert f"| | {r['k']} |" in table
    first = rec["problems"][0]
    first["blocks"][0]["rounds"]["0.01"] = 7
    first["sdca"]["epochs"]["0.01"] = 2
    changed = bench.readme_table(rec)
    k1 = next(line for line in changed.splitlines() if line.startswith("| | 1 |"))
    wall = first["blocks"][0]["wall"]["0.01"]
    assert k1.startswith(f"| | 1 | 7 (3.5×), {wall:.2f} s |")
    rec["load_start"] = 1.6
    assert "under load" in bench.readme_table(rec)


def test_a_run_writes_the_record_its_table_reads(tmp_path):
    bench.main(
        ["--problem", "dense-small", "--blocks", "1", "2", "--max-rounds", "3",
         "--lmbd", "1.0", "--out", str(tmp_path)]
    )  # fmt: skip
    rec = json.loads((tmp_path / "distributed.json").read_text())
    assert [r["k"] for r in rec["problems"][0]["blocks"]] == [1, 2]
    assert "| dense-small (20,000 × 50, λ = 1) | SDCA |" in bench.readme_table(rec)
