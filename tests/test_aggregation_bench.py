"""benchmarks/aggregation.py: what docs/distributed.md says of adding against the line search
is the record's, and a tiny run makes such a record."""

from __future__ import annotations

import pytest

from benchmarks import aggregation as bench

from .generated import regenerated


def _run(k, aggregate, rounds, finish=True, passes=None, finishes=0, last=(1e-7,)):
    return {
        "k": k, "aggregate": aggregate, "finish": finish, "rounds": rounds,
        "passes": passes, "finishes": finishes if rounds is not None else None,
        "certified": rounds is not None, "rounds_run": rounds or 60, "last_gaps": list(last),
    }  # fmt: skip


RECORD = {
    "date": "2026-11-28 12:00:00", "git": "abcdef0", "load_start": 0.5,
    "machine": {"cpus": 2}, "command": "python benchmarks/aggregation.py", "target": 1e-6,
    "problems": [{
        "name": "skin", "n": 245057, "d": 3, "runs": [
            _run(1, "add", 9, passes=57.46), _run(1, "line_search", 9, passes=57.46),
            _run(4, "add", 11, passes=226.06, finishes=3),
            _run(4, "line_search", 8, passes=104.7, finishes=5),
            _run(4, "add", 40, finish=False, passes=300.0),
            _run(4, "line_search", None, finish=False, last=(1.3e-4, 2.0e-4)),
        ],
    }],
}  # fmt: skip


def test_the_block_says_what_the_record_holds():
    text = bench.readme_block(RECORD)
    assert text.startswith("Measured 2026-11-28 (git abcdef0, load 0.5 at the start, 2 cores;")
    assert "| skin (245,057 × 3) | 1 | 9 rounds, 57.5 passes | 9 rounds, 57.5 passes |" in text
    assert "|  | 4 | 11 rounds (3), 226 passes | 8 rounds (5), 105 passes |" in text
    assert (
        "Without the finish (`finish=False`, skin): K = 4: add certifies in 40 rounds, "
        "line_search does not within 60 (its last ten gaps 0.00013 to 0.0002)."
    ) in text


def test_a_fit_that_never_certified_says_so():
    record = {**RECORD, "problems": [{**RECORD["problems"][0], "runs": [_run(2, "add", None)]}]}
    assert "| 2 | not within 60 rounds | — |" in bench.readme_block(record)


def test_a_tiny_run_makes_the_record(monkeypatch):
    """Two blocks of a 300-row draw: one block is adding's round for round (the line search's
    η is 1), and every run certifies."""
    pytest.importorskip("distributed")
    from benchmarks import distributed

    monkeypatch.setitem(distributed.PROBLEMS, "tiny", lambda: distributed.dense_problem(300, 4))
    record = bench.main(["--problems", "tiny", "--blocks", "1", "2", "--max-rounds", "60"])
    (tiny,) = record["problems"]
    runs = {(r["k"], r["aggregate"]): r for r in tiny["runs"]}
    assert set(runs) == {(1, "add"), (1, "line_search"), (2, "add"), (2, "line_search")}
    assert all(r["certified"] and r["rounds"] is not None for r in runs.values())
    assert runs[(1, "add")]["last_gaps"] == runs[(1, "line_search")]["last_gaps"]
    assert "| tiny (300 × 4) | 1 |" in bench.readme_block(record)


def test_the_readme_sentence_says_the_fewest_and_the_most_blocks():
    record = {
        **RECORD,
        "problems": [
            {
                **RECORD["problems"][0],
                "runs": [
                    *RECORD["problems"][0]["runs"],
                    _run(16, "add", 22, passes=933.0),
                    _run(16, "line_search", None),
                ],
            }
        ],
    }
    assert bench.readme_sentence(record).startswith(
        "How the rounds grow with the blocks, on skin to a certified 1e-06: 9 rounds (57.5 data "
        "passes) at K = 1, 22 rounds (933 data passes) at K = 16 adding (σ' = K), no "
        'certificate within 60 rounds with `aggregate="line_search"`'
    )


@pytest.mark.parametrize("doc", ["docs/distributed.md", "README.md"])
def test_the_committed_blocks_are_the_committed_records(doc, tmp_path):
    regenerated(bench.main, doc, [bench.README_RECORD], tmp_path)


def test_a_file_without_the_blocks_is_refused(tmp_path):
    other = tmp_path / "other.md"
    other.write_text("no markers\n")
    with pytest.raises(ValueError, match=r"holds none of aggregation\.py.s generated blocks"):
        bench.rewrite(str(other), RECORD)
