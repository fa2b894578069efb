"""benchmarks/check_schedule.py: the fit loop's gap-check schedule against a gap after every
epoch, its record, and the sentence of docs/measurements.md made from it."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import check_schedule as bench

from .generated import regenerated

ROOT = Path(__file__).resolve().parents[1]


def test_the_sentence_is_generated_from_the_committed_record(tmp_path):
    text = regenerated(bench.main, "docs/measurements.md", [bench.README_RECORD], tmp_path)
    record = json.loads((ROOT / bench.README_RECORD).read_text())
    assert bench.readme_block(record) in text


def test_a_run_fits_both_ways_to_the_same_epoch_with_fewer_gaps(tmp_path):
    """Two alternated pairs on the simulated draw: the schedule stops at the epoch a gap
    after every epoch stops at, with the same final gap (the same iterate), computing it
    fewer times; the record holds both fits of each pair."""
    rec = bench.main(["--problem", "simulated", "--pairs", "2", "--out", str(tmp_path)])
    assert json.loads((tmp_path / "check_schedule.json").read_text()) == json.loads(
        json.dumps(rec)
    )
    for pair in rec["pairs"]:
        s, e = pair["schedule"], pair["every epoch"]
        assert s["epochs"] == e["epochs"] and s["gap"] == e["gap"] <= bench.TOL
        assert e["gaps"] == e["epochs"] and s["gaps"] < e["gaps"]
    text = bench.readme_block(rec)
    assert f"both stopped after {rec['pairs'][0]['schedule']['epochs']} epochs" in text
    rec["pairs"][1]["schedule"]["epochs"] += 1  # a planted late stop is said
    assert "the epochs differed" in bench.readme_block(rec)
