"""benchmarks/sorted_shards.py: its record, and the sentence of docs/distributed.md made
from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from benchmarks import sorted_shards as bench

from .generated import regenerated

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "distributed.md"


def record() -> dict:
    return json.loads((ROOT / bench.README_RECORD).read_text())


def test_the_sentence_is_generated_from_the_committed_record(tmp_path):
    """docs/distributed.md's sentence is the record's, regenerated here (an edit by hand, or
    a record committed without `--readme`, fails)."""
    text = regenerated(bench.main, "docs/distributed.md", [bench.README_RECORD], tmp_path)
    assert bench.readme_block(record()) in text


def test_the_sentence_says_what_the_record_says():
    rec = record()
    text = bench.readme_block(rec)
    runs = rec["runs"]
    for run in runs.values():  # both classes in every block of the sorted file, as dealt
        assert run["blocks"] == len(run["block_classes"]) == 2
    assert all(len(held) == 2 for held in runs["file order"]["block_classes"])
    first = runs["file order"]
    said = f"certified 1e-6 in {first['rounds']} rounds" if first["certified"] else "uncertified"
    assert said in text.split("; the same rows shuffled")[0]
    failed = json.loads(json.dumps(rec))
    failed["runs"]["file order"].update(certified=False, rel_gap=0.13, rounds=200, finishes=197)
    failed["load_start"] = 1.6
    text = bench.readme_block(failed)
    assert "ended uncertified at a relative gap of 0.13 after 200 rounds (197 finishes" in text
    assert "1.6 at the start, under load" in text
    one = json.loads(json.dumps(rec))
    one["runs"]["shuffled"]["finishes"] = 1
    assert "(1 finish, " in bench.readme_block(one)
    # how the rounds were checked: the record's spacing, every round for a record made
    # before check_every="auto" (which does not say)
    assert "with the defaults (every round checked) on" in bench.readme_block(rec)
    one["runs"]["file order"]["check_every"] = 8
    assert "with the defaults (a check at least every 8 rounds) on" in bench.readme_block(one)
