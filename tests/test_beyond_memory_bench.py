"""benchmarks/beyond_memory.py: its run's record, and the README sentence made from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from benchmarks import beyond_memory as bench

from .generated import regenerated

ROOT = Path(__file__).resolve().parents[1]


def test_readme_block_is_generated_from_the_committed_record(tmp_path):
    """The README's beyond-memory sentence is the record's, regenerated here (an edit by hand,
    or a record committed without `--readme`, fails)."""
    text = regenerated(bench.main, "README.md", [bench.README_RECORD], tmp_path)
    record = json.loads((ROOT / bench.README_RECORD).read_text())
    assert record["factor"] >= 3.0 and record["certified"] and not record["workers_restarted"]
    assert bench.readme_block(record) in text


def test_readme_block_says_what_the_record_says():
    record = json.loads((ROOT / bench.README_RECORD).read_text())
    assert ": certified at a relative gap" in bench.readme_block(record)
    assert "under load" not in bench.readme_block(record)
    failed = {**record, "certified": False, "workers_restarted": True, "load_start": [1.6]}
    text = bench.readme_block(failed)
    assert ": not certified at a relative gap" in text and "(restarted: yes)" in text
    assert "1.6 at the start, under load" in text


@pytest.mark.slow
def test_a_small_run_spills_and_certifies(tmp_path):
    """A run at a tiny scale: rows 1.5x two workers' memory target, spilled, certified."""
    record = bench.main(
        ["--memory-limit", "1", "--target", "0.002", "--factor", "0.0035", "--chunk-mib",
         "0.5", "--features", "2000", "--lmbd", "1e-3", "--max-rounds", "40",
         "--spill-dir", str(tmp_path / "spill"), "--out", str(tmp_path)]
    )  # fmt: skip
    assert record["certified"] and record["rel_gap"] <= 1e-6
    assert record["dual"] <= record["primal"]
    disk = [sum(h["on_disk"] for h in t["workers"].values()) for t in record["trace"]]
    assert min(disk) > 0.5 * record["rows_bytes"]
    saved = json.loads((tmp_path / "beyond_memory.json").read_text())
    assert saved["rounds"] == record["rounds"] and len(saved["trace"]) == record["rounds"]
