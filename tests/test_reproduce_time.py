"""benchmarks/reproduce_time.py: a cold run's record, and the README's sentence and the
details table made from it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks import reproduce_time as bench
from benchmarks.report import UnderLoad

ROOT = Path(__file__).resolve().parents[1]

LOG = (
    "start 2026-01-02T03:04:05Z 0.40 0.80 1.00 1/80 9774\n"
    "data datasets downloaded\n"
    "rc 0\n"
    "end 2026-01-02T03:40:05Z 2.10 2.00 1.90 3/90 9999 total 2160.0\n"
)
TIMINGS = "data (fetch + verify)\t2.0\nblood crops + PCA\t900.0\nexperiments\t1100.0\n"


def fake_clone(tmp_path: Path, log: str = LOG) -> Path:
    """A git folder with the files a finished run leaves: the run log and the stages."""
    clone = tmp_path / "clone"
    (clone / "output").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    (clone / "README.md").write_text("x\n")
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    (clone / bench.RUN_LOG).write_text(log)
    (clone / "output/timings.tsv").write_text(TIMINGS)
    return clone


def test_ingest_reads_every_stage_and_the_set_up_is_the_rest(tmp_path):
    record = bench.ingest(fake_clone(tmp_path))
    assert record["stages"] == [
        ["data (fetch + verify)", 2.0],
        ["blood crops + PCA", 900.0],
        ["experiments", 1100.0],
    ]
    assert record["total"] == 2160.0 and record["setup"] == pytest.approx(158.0)
    assert record["load_start"] == [0.4, 0.8, 1.0] and record["load_end"] == [2.1, 2.0, 1.9]
    assert record["date"] == "2026-01-02T03:04:05Z" and len(record["git"]) == 40


def test_a_failed_or_unfinished_run_gives_no_record(tmp_path):
    with pytest.raises(RuntimeError, match="ended with status 2: no record"):
        bench.ingest(fake_clone(tmp_path, LOG.replace("rc 0", "rc 2")))
    shutil.rmtree(tmp_path / "clone")
    with pytest.raises(ValueError, match="no end, rc line: the run did not finish"):
        bench.ingest(fake_clone(tmp_path, LOG.splitlines()[0] + "\n"))
    with pytest.raises(FileNotFoundError, match="is not a clone whose `make reproduce` ran"):
        bench.ingest(tmp_path / "not-a-clone")


def test_the_sentence_and_the_table_say_what_the_record_says(tmp_path):
    record = bench.ingest(fake_clone(tmp_path))
    text = bench.readme_sentence(record)
    assert "took **36.0 min** on" in text and "load 0.4 at the start" in text
    assert "set-up (the venv) 2.6 min, data (fetch + verify) 2 s" in text
    assert "blood crops + PCA 15.0 min, experiments 18.3 min" in text
    table = bench.details_table(record)
    assert "| blood crops + PCA | 900 s (15.0 min) | 42 % |" in table
    assert "| **total** | **2160 s (36.0 min)** | |" in table
    assert "0.4 at the start, 2.1 at the end" in table
    record["stages"][1][1] = 600.0  # a stage changed: both texts change with it
    assert "blood crops + PCA 10.0 min" in bench.readme_sentence(record)
    assert "| blood crops + PCA | 600 s (10.0 min) | 28 % |" in bench.details_table(record)


def test_a_run_started_under_load_rewrites_nothing(tmp_path):
    record = bench.ingest(fake_clone(tmp_path))
    readme, details = tmp_path / "README.md", tmp_path / bench.DETAILS
    details.parent.mkdir()
    readme.write_text("a\n" + "\n".join(bench.README_MARKERS) + "\nb\n")
    details.write_text("\n".join(bench.DETAILS_MARKERS) + "\n")
    before = readme.read_text(), details.read_text()
    cores = record["cores"]
    with pytest.raises(UnderLoad, match="started under load"):
        bench.write_readme(readme, {**record, "load_start": [0.76 * cores, 0, 0]})
    assert (readme.read_text(), details.read_text()) == before
    bench.write_readme(readme, {**record, "load_start": [0.75 * cores, 0, 0]})
    assert "A cold `make reproduce`" in readme.read_text()
    assert "| **total** |" in details.read_text()


def test_readme_and_details_are_generated_from_the_committed_record(tmp_path):
    """The README's sentence and docs/measurements.md's table are the committed record's,
    regenerated here (an edit by hand, or a record committed without `--readme`, fails)."""
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copy(ROOT / bench.DETAILS, tmp_path / bench.DETAILS)
    bench.main(["--readme", str(tmp_path / "README.md"), "--record", str(ROOT / bench.RECORD)])
    assert (tmp_path / "README.md").read_text() == (ROOT / "README.md").read_text()
    assert (tmp_path / bench.DETAILS).read_text() == (ROOT / bench.DETAILS).read_text()
    record = json.loads((ROOT / bench.RECORD).read_text())
    names = [name for name, _ in record["stages"]]
    assert names[:2] == ["data (fetch + verify)", "blood crops + PCA"]
    assert record["setup"] >= 0 and all(s > 0 for _, s in record["stages"])  # log and tsv agree


def test_a_fresh_clone_is_cloned_run_and_recorded(tmp_path, monkeypatch):
    """--clone's whole path on a stand-in repository whose `make reproduce` writes two
    stages: cloned from HEAD into a new folder, run there, logged and ingested; where the
    datasets came from is recorded; an existing folder and a failing run are refused."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "Makefile").write_text(
        "reproduce:\n\tmkdir -p output\n"
        "\tprintf 'data (fetch + verify)\\t1.5\\nexperiments\\t2.5\\n' > output/timings.tsv\n"
        "fail:\n"
    )
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "Makefile"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    monkeypatch.setattr(bench, "REPO", repo)
    monkeypatch.setenv("DATA_MIRROR", str(tmp_path))
    record = bench.run_fresh_clone(tmp_path / "cold")
    assert record["stages"] == [["data (fetch + verify)", 1.5], ["experiments", 2.5]]
    assert record["data"] == "datasets copied from DATA_MIRROR, not downloaded"
    assert record["setup"] == pytest.approx(record["total"] - 4.0)  # the stand-in's stages
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True)
    assert record["git"] == head.stdout.strip()
    with pytest.raises(FileExistsError, match="give a new folder"):
        bench.run_fresh_clone(tmp_path / "cold")
    (repo / "Makefile").write_text("reproduce:\n\texit 3\n")
    subprocess.run([*git, "commit", "-qam", "y"], check=True)
    monkeypatch.delenv("DATA_MIRROR")
    with pytest.raises(RuntimeError, match="ended with status 2: no record"):
        bench.run_fresh_clone(tmp_path / "cold2")  # make reports a failed recipe as 2
    assert "data datasets downloaded" in (tmp_path / "cold2" / bench.RUN_LOG).read_text()


def test_a_new_record_keeps_the_one_it_replaces_and_says_each_stage_against_it(tmp_path):
    """--ingest --out with a committed record: the new record carries its summary, and the
    sentence and the table give each stage's wall over the one before (a stage of one
    record only is left out); without a record before, neither says anything of one."""
    clone = fake_clone(tmp_path)
    alone = bench.ingest(clone)
    assert "record before" not in bench.readme_sentence(alone)
    assert "record before" not in bench.details_table(alone)
    old = {**alone, "git": "a" * 40, "date": "2025-12-01T00:00:00Z", "total": 1080.0}
    old["setup"] = 79.0
    old["stages"] = [["blood crops + PCA", 450.0], ["experiments", 550.0], ["gone", 1.0]]
    committed = tmp_path / "committed.json"
    committed.write_text(json.dumps(old))
    out = tmp_path / "out"
    bench.main(["--ingest", str(clone), "--out", str(out), "--record", str(committed)])
    record = json.loads((out / Path(bench.RECORD).name).read_text())
    assert record["previous"]["git"] == "a" * 40
    assert record["previous"]["stages"] == old["stages"] and "previous" not in old
    said = (
        "Against the record before it (git aaaaaaa, 2025-12-01, load 0.4 at the start: "
        "18.0 min), each stage's wall: set-up (the venv) 2.00×, blood crops + PCA 2.00×, "
        "experiments 2.00×; total 2.00×."
    )
    assert bench.readme_sentence(record).endswith(" " + said)
    assert bench.details_table(record).endswith("\n\n" + said)
    record["stages"][2][1] = 1650.0  # a stage changed: its ratio with it
    assert "experiments 3.00×" in bench.readme_sentence(record)
