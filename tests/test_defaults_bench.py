"""benchmarks/defaults.py: SDCAClassifier's defaults measured, its record, and the table of
docs/scikit-learn.md made from it."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import defaults as bench

from .generated import regenerated

ROOT = Path(__file__).resolve().parents[1]


def record() -> dict:
    return json.loads((ROOT / bench.README_RECORD).read_text())


def test_the_table_is_generated_from_the_committed_record(tmp_path):
    """docs/scikit-learn.md's table is the record's, regenerated here (an edit by hand, or a
    record committed without `--readme`, fails)."""
    text = regenerated(bench.main, "docs/scikit-learn.md", [bench.README_RECORD], tmp_path)
    assert bench.readme_block(record()) in text


def test_a_run_measures_the_three_settings_per_seed(tmp_path):
    """A small run: every problem asked for, each setting's fits over the seeds, in the
    record it writes; the default setting (shrinking and the finish) reaches tol on both
    problems in fewer epochs than plain SDCA, fit by fit, and the class-weight problem is
    the one where only the finish certifies within max_epochs."""
    rec = bench.main(["--problems", "breast cancer", "class weights", "--out", str(tmp_path)])
    assert json.loads((tmp_path / "defaults.json").read_text()) == json.loads(json.dumps(rec))
    assert list(rec["problems"]) == ["breast cancer", "class weights"]
    for problem in rec["problems"].values():
        runs = problem["runs"]
        assert list(runs) == list(bench.SETTINGS)
        assert all(len(fits) == len(bench.SEEDS) for fits in runs.values())
        plain, default = runs["shrinking=False"], runs["shrinking=True, finish=True"]
        for a, b in zip(plain, default, strict=True):
            assert b["converged"] and b["epochs"] < a["epochs"] <= bench.SDCA_MAX_EPOCHS
    weighted = rec["problems"]["class weights"]["runs"]
    assert not any(f["converged"] for f in weighted["shrinking=True, finish=False"])
    assert rec["problems"]["breast cancer"]["shape"] == [569, 30]


def test_the_sentence_counts_what_the_record_holds():
    """The comparison sentence: ratios over the fits both settings certified, fits only the
    default certified counted apart, and the default's own failures counted (a planted
    unconverged default fit shows)."""
    rec = {
        "date": "2026-11-28 12:00:00", "git": "abcdef0", "load_start": 0.5,
        "machine": {"cpus": 2}, "seeds": [0, 1], "max_epochs": 1000,
        "problems": {"p": {"describe": "p", "shape": [10, 2], "runs": {
            "shrinking=False": [{"epochs": 100, "converged": True, "cpu": 1.0},
                                {"epochs": 1000, "converged": False, "cpu": 2.0}],
            "shrinking=True, finish=False": [{"epochs": 20, "converged": True, "cpu": 0.1},
                                             {"epochs": 30, "converged": True, "cpu": 0.2}],
            "shrinking=True, finish=True": [{"epochs": 10, "converged": True, "cpu": 0.1},
                                            {"epochs": 30, "converged": True, "cpu": 0.3}],
        }}},
    }  # fmt: skip
    text = bench.readme_block(rec)
    assert "| p, 10 × 2 | 100, 1000 (not converged); 1–2 s |" in text
    assert (
        "a fit took 10 to 10 times fewer epochs than shrinking=False where both reached tol, "
        "and reached it in 1 fits where it did not within 1000 epochs; it took 1 to 2 times "
        "fewer epochs than shrinking=True, finish=False where both reached tol, and reached "
        "it in 0 fits where it did not. 0 of its fits ended above tol."
    ) in text
    rec["problems"]["p"]["runs"]["shrinking=True, finish=True"][1]["converged"] = False
    assert "1 of its fits ended above tol." in bench.readme_block(rec)
