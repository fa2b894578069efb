"""benchmarks/newton_blocks.py: what docs/distributed.md and README say of the cluster's Newton
steps is the record's, its targets are the record's ratios, and a tiny run makes a record."""

from __future__ import annotations

import pytest

from benchmarks import newton_blocks as bench

from .generated import regenerated


def _run(k, rounds, wall, cg=(0, 0), passes=3.0, cert=4, share=0.25, certified=True):
    return {
        "k": k, "rounds": {"0.0001": rounds[0], "1e-06": rounds[1]},
        "wall": {"0.0001": wall[0], "1e-06": wall[1]}, "rounds_run": rounds[1] or 60,
        "cg": list(cg), "evals": [3] * len(cg), "data_passes": passes,
        "certificate_passes": cert, "check_share": share, "fit_wall": 9.0,
        "certified": certified, "rel_gap": 1e-9 if certified else 3e-3, "primal": 0.1,
    }  # fmt: skip


RECORD = {
    "date": "2026-11-29 12:00:00", "git": "abcdef0", "load_start": 0.5,
    "machine": {"cpus": 2}, "command": "python benchmarks/newton_blocks.py",
    "loss_said": "smoothed hinge (γ = 1)",
    "problems": [{
        "name": "skin", "n": 245057, "d": 3, "loss": "smooth_hinge",
        "sdca": {"epochs": {"0.0001": 33, "1e-06": 49}, "wall": {"0.0001": 1.2, "1e-06": 2.0},
                 "fit_wall": 2.5, "cpu": 1.9, "certified": True},
        "runs": [
            _run(1, (4, 5), (2.0, 2.5)), {**_run(2, (4, 5), (1.0, 1.2), share=0.125), "cpu": 0.75},
            _run(8, (4, 6), (2.0, 2.6), passes=10.0, cert=12),
            _run(64, (5, None), (3.0, None), certified=False),
        ],
    }],
}  # fmt: skip


def test_the_block_says_what_the_record_holds():
    text = bench.readme_block(RECORD)
    assert text.startswith("Measured 2026-11-29 (git abcdef0, load 0.5 at the start, 2 cores;")
    assert (
        "| skin (245,057 × 3) | one process (SDCA) | 33 / 49 epochs | — | — | — | 1.2 / 2 | — |"
        in text
    )
    assert "|  | 8 | 4 / 6 | 0 | — | 22 | 2 / 2.6 | 25% |" in text
    assert "|  | 64 | 5 / — (not certified: 0.003) | 0 | — | 7 | 3 / — | 25% |" in text
    tripped = {
        **RECORD["problems"][0],
        "runs": [{**_run(1, (4, 5), (2.0, 2.5)), "round_trips": 31}],
    }
    assert "|  | 1 | 4 / 5 | 0 | 31 | 7 | 2 / 2.5 | 25% |" in bench.readme_block(
        {**RECORD, "problems": [tripped]}
    )


def test_the_targets_are_the_records_ratios():
    lines = bench.targets_lines(RECORD)
    assert lines == [
        "skin: rounds to 1e-6 at K = 8 / K = 1: 1.20 / ≤ 1.5",
        "skin: data passes to 1e-6 at K = 8 (steps' and checks') / SDCA's epochs: 0.45 / ≤ 2",
        "skin: wall to 0.0001, 2 workers (K = 2) / one process: 0.83 / ≤ 0.7",
        "skin: wall to 1e-06, 2 workers (K = 2) / one process: 0.60 / ≤ 0.7",
        "skin: where the wall goes at K = 2: the workers' CPU in the steps 0.75 s (both "
        "summed; one process's epochs 1.9 s) of 1.2 s of rounds; the rest is the checks, task "
        "latency and the driver",
        "skin: the checks' share of the rounds' wall at K = 2: 12% / ≤ 15 %",
    ]


def test_the_readme_sentence_says_the_fewest_and_the_most_blocks():
    assert bench.readme_sentence(RECORD).startswith(
        'With `method="newton"` (smoothed hinge (γ = 1)) the rounds do not grow with the '
        "blocks: on skin to a certified 1e-6, 5 Newton steps at K = 1 and — at K = 64"
    )


def test_a_tiny_run_makes_the_record(monkeypatch):
    """A 400-row draw at K = 1 and 3: the same Newton steps, certified, and SDCA beside it."""
    pytest.importorskip("distributed")
    from benchmarks import distributed

    monkeypatch.setitem(distributed.PROBLEMS, "tiny", lambda: distributed.dense_problem(400, 4))
    record = bench.main(["--problems", "tiny", "--blocks", "1", "3"])
    (tiny,) = record["problems"]
    one, three = tiny["runs"]
    assert one["certified"] and three["certified"] and tiny["sdca"]["certified"]
    assert one["rounds"] == three["rounds"] and one["data_passes"] == three["data_passes"]
    assert "| tiny (400 × 4) | one process (SDCA) |" in bench.readme_block(record)


@pytest.mark.parametrize("doc", ["docs/distributed.md", "README.md"])
def test_the_committed_blocks_are_the_committed_records(doc, tmp_path):
    regenerated(bench.main, doc, [bench.README_RECORD], tmp_path)


def test_a_file_without_the_blocks_is_refused(tmp_path):
    other = tmp_path / "other.md"
    other.write_text("no markers\n")
    with pytest.raises(ValueError, match=r"holds none of newton_blocks\.py.s generated blocks"):
        bench.rewrite(str(other), RECORD)


def test_the_projection_is_its_printed_arithmetic():
    """wall(W) = wall₁ + R·(hop·⌈log₂W⌉ + pinned·2(W − 1) + submit·(W − 1)) from the K = 1
    run and the probe; the driver's share R/steps·(pinned·2W + submit·(W − 1)); none
    without a probe or a K = 1 run."""
    one = {**_run(1, (3, 4), (10.0, 20.0)), "cpu": 15.0, "round_trips": 40, "rounds_run": 4}
    problem = {
        **RECORD["problems"][0], "name": "csr", "n": 1000, "runs": [one],
        "probe": {"width": 4, "submit": 1e-4, "pinned": 1e-3, "reduction": {}, "hop": 0.01},
    }  # fmt: skip
    proj = bench.projection(problem)
    assert proj["walls"]["1"] == 20.0
    assert proj["walls"]["64"] == pytest.approx(20.0 + 40 * (0.01 * 6 + 1e-3 * 126 + 1e-4 * 63))
    assert proj["walls"]["2"] == pytest.approx(20.0 + 40 * (0.01 + 1e-3 * 2 + 1e-4))
    assert proj["driver_per_round"]["64"] == pytest.approx(10 * (1e-3 * 128 + 1e-4 * 63))
    lines = bench.targets_lines({"problems": [{**problem, "sdca": RECORD["problems"][0]["sdca"]}]})
    assert lines[-3].endswith(f"wall at 64 workers / 1: {proj['walls']['64'] / 20.0:.2f} / ≤ 2")
    assert lines[-2] == (
        "csr: what a round trip adds at 64 workers, split: the tree's 6 levels 60 ms, the "
        "driver's submissions 132 ms (the submissions the larger)"
    )  # 6 × 10 ms; 126 × 1 ms + 63 × 0.1 ms
    slow_tree = {**problem, "probe": {**problem["probe"], "hop": 0.05}}
    slow_lines = bench.targets_lines(
        {"problems": [{**slow_tree, "sdca": RECORD["problems"][0]["sdca"]}]}
    )
    assert slow_lines[-2].endswith("the tree's 6 levels 300 ms, the driver's submissions 132 ms "
                                   "(the tree the larger)")  # fmt: skip
    assert lines[-1].startswith("csr: projected driver's share of a round, 512 blocks on 64 ")
    assert "1.34 s / ≤ 0.2 s (on 512 workers: 10.8 s)" in lines[-1]
    assert bench.projection({**problem, "probe": None}) is None
    assert bench.projection({**problem, "runs": [_run(2, (3, 4), (1.0, 2.0))]}) is None
    negative = {**problem, "probe": {**problem["probe"], "hop": -0.5}}
    assert bench.projection(negative)["walls"]["64"] == pytest.approx(
        20.0 + 40 * (1e-3 * 126 + 1e-4 * 63)
    )
