"""The generated scorecard: a verdict for every claim, computed from the reports."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from sdca_pegasos.experiments import CATALOGUE
from sdca_pegasos.figures import common, scorecard
from tests.test_figures import build_report

NEEDED = (
    "000_blood_raw",
    "000_blood_pca40",
    "001_simulated",
    "001_genomic",
    "001_genomic_lambda",
    "001_skin",
)


@pytest.fixture(scope="module")
def tiny_reports(tmp_path_factory):
    root = tmp_path_factory.mktemp("scorecard_reports")
    for name in NEEDED:
        build_report(root, name, seeds=3, epochs=10)
    return root


def rows_of(markdown: str) -> list[list[str]]:
    return [
        [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        for line in markdown.splitlines()
        if re.match(r"^\| 00[01]\.\d+ ", line)
    ]


def test_every_claim_gets_a_verdict(tiny_reports, tmp_path):
    out = scorecard.main(["--out", str(tmp_path / "R.md"), "--reports", str(tiny_reports)])
    rows = rows_of(out.read_text())
    assert len(rows) == len(scorecard.CLAIMS)
    for row in rows:
        assert ("holds" in row[4]) != ("differs" in row[4]), row[:2]
        assert row[3] and row[3] != "—", row[:2]  # our number is there
        if "differs" in row[4]:
            assert row[5] != "—", f"{row[0]}: a 'differs' must give its reason"
        assert "output/figures/" in row[6]
    assert "SUBSTITUTE" in out.read_text()


def test_a_missing_report_is_not_run_and_names_its_target(tmp_path):
    out = scorecard.main(["--out", str(tmp_path / "R.md"), "--reports", str(tmp_path)])
    rows = rows_of(out.read_text())
    assert all("not run" in r[4] for r in rows)
    assert any("make reports/000_blood_raw.parquet" in r[5] for r in rows)


def copy_reports(src, dst):
    for f in src.rglob("*"):
        if f.is_file():
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.read_bytes())


def set_final_primal(root, name, config, value):
    report = pd.read_parquet(root / f"{name}.parquet")
    last = (report.config == config) & (report.epoch == report.epoch.max())
    report.loc[last, "primal"] = value
    report.to_parquet(root / f"{name}.parquet", index=False)


def test_verdict_follows_the_data(tiny_reports, tmp_path):
    """'Plain Pegasos is the slowest everywhere': holds when its final objective is the
    worst on the three datasets, flips to differs when it is the best on genomic."""
    claim = scorecard.CLAIM["001.4"]
    assert claim.reports == ("001_simulated", "001_genomic", "001_skin")
    copy_reports(tiny_reports, tmp_path)
    for name in claim.reports:
        set_final_primal(tmp_path, name, "Pegasos", 10.0)
    assert scorecard.evaluate(scorecard.Query(tmp_path), claim).verdict == "holds"

    set_final_primal(tmp_path, "001_genomic", "Pegasos", 0.0)  # below every other method
    result = scorecard.evaluate(scorecard.Query(tmp_path), claim)
    assert result.verdict == "differs" and "genomic" in result.reason


def test_numbers_are_computed_from_the_report(tiny_reports):
    q = scorecard.Query(tiny_reports)
    report = q.frame(name="000_blood_raw")
    e2 = report[(report.config == "SDCA-Perm") & (report.epoch == 2)].test_error
    result = scorecard.evaluate(q, scorecard.CLAIM["000.1"])
    assert result.ours.startswith(f"{e2.mean():.3f} ± {e2.std(ddof=1):.3f}")
    table = scorecard.evaluate(q, scorecard.CLAIM["001.1"])
    sim = q.frame(name="001_simulated")
    last = sim[(sim.epoch == sim.epoch.max()) & (sim.config == "Pegasos (averaged)")]
    acc = 1 - last.test_error_output
    assert f"Pegasos (averaged): {acc.mean():.3f} ± {acc.std(ddof=1):.3f}" in table.ours


def test_pm_formats_mean_and_sd():
    assert common.pm([1.0, 2.0, 3.0], 2) == "2.00 ± 1.00"
    assert common.pm(np.array([0.5]), 1) == "0.5"
    runs = common.Runs([1.0, 2.0, 3.0])
    assert runs == 2.0 and f"{runs:pm2}" == "2.00 ± 1.00" and f"{runs:.1f}" == "2.0"


def test_claims_are_rows_with_their_inputs():
    """Ids number the rows of each study; each row names outputs that exist and reports of
    the catalogue, and states the study's value and a criterion."""
    from sdca_pegasos.experiments import CATALOGUE
    from sdca_pegasos.figures import OUTPUTS

    for study in ("000", "001"):
        ids = [c.id for c in scorecard.CLAIMS if c.id.startswith(study)]
        assert ids == [f"{study}.{i}" for i in range(1, len(ids) + 1)]
    for c in scorecard.CLAIMS:
        assert set(c.figures) <= set(OUTPUTS) and set(c.reports) <= set(CATALOGUE), c.id
        assert c.theirs and c.criterion and c.claim, c.id


def test_the_lambda_study_section_is_the_figure_scripts_findings(tiny_reports, tmp_path):
    from sdca_pegasos.figures import beyond_lambda

    root = tmp_path / "reports"
    copy_reports(tiny_reports, root)
    # without the blood λ sweeps the section says what is missing, by its command
    text = scorecard.main(["--out", str(tmp_path / "R.md"), "--reports", str(root)]).read_text()
    assert "not run:" in text and "beyond_blood_lambda_raw" in text
    for name in ("beyond_blood_lambda_raw", "beyond_blood_lambda_pca40"):
        build_report(root, name, seeds=3, epochs=4)
    text = scorecard.main(["--out", str(tmp_path / "R.md"), "--reports", str(root)]).read_text()
    _, optimum, times = beyond_lambda.tables(root)
    for line in beyond_lambda.findings(optimum, times):
        assert f"- {line}" in text


def rewrite(root, name, change):
    report = pd.read_parquet(root / f"{name}.parquet")
    change(report).to_parquet(root / f"{name}.parquet", index=False)


@pytest.mark.parametrize(
    ("change", "why"),
    [  # the runs of an older definition or code: another run key
        (lambda r: r.assign(run_key=r.run_key.where(r.config != "SDCA-Perm", "0" * 12)),
         "3 of its 9 runs were made by another definition or code"),
        # a configuration's runs missing, or one seed of one configuration
        (lambda r: r[r.config != "Pegasos k=100"], "it lacks 3 run(s) of the current definition"),
        (lambda r: r[(r.config != "SDCA-Perm") | (r.seed_index != 1)],
         "it lacks 1 run(s) of the current definition"),
    ],
)  # fmt: skip
def test_a_stale_report_is_not_run_and_names_its_target(tiny_reports, tmp_path, change, why):
    """The scorecard reads the reports without planning any run, yet never scores a report
    that the runner would not reuse: its claims are 'not run', with the target to make."""
    copy_reports(tiny_reports, tmp_path)
    q = scorecard.CurrentQuery(tmp_path)
    claim = scorecard.CLAIM["000.1"]
    assert scorecard.evaluate(q, claim).verdict in ("holds", "differs")  # current: scored
    rewrite(tmp_path, "000_blood_raw", change)
    result = scorecard.evaluate(scorecard.CurrentQuery(tmp_path), claim)
    assert result.verdict == "not run" and result.ours == "—"
    assert why in result.reason and "make reports/000_blood_raw.parquet" in result.reason
    out = scorecard.main(["--out", str(tmp_path / "R.md"), "--reports", str(tmp_path)])
    row = next(r for r in rows_of(out.read_text()) if r[0] == "000.1")
    assert "not run" in row[4] and "is stale" in row[5]


def test_any_seed_count_is_current_and_another_definition_is_not(tiny_reports):
    """Any seed count is a current report (``--seeds 3``), as long as every configuration has
    seeds 0..S-1 of its current key; a code change (another key) makes every report stale."""
    from sdca_pegasos.experiments import CATALOGUE
    from sdca_pegasos.experiments.reports import stale_report

    exp = CATALOGUE["000_blood_raw"]
    assert stale_report(exp, tiny_reports) is None
    assert stale_report(CATALOGUE["beyond_sparse_synthetic"], tiny_reports) is None  # no file
    edited = exp.__class__(**{**exp.__dict__, "epochs": exp.epochs + 1})  # a new definition
    assert "9 of its 9 runs were made by another definition" in stale_report(edited, tiny_reports)


# ------------------------------------------------------------------ what the claims read
class FrameQuery(scorecard.Query):
    """A Query over one report held in memory (``frame`` is every read's source)."""

    def __init__(self, report: pd.DataFrame):
        super().__init__(None, "")
        self.report = report

    def frame(self, column: str = "", name: str | None = None) -> pd.DataFrame:
        return self.report


def test_stability_claim_reports_the_final_mean_test_error():
    """Claim 000.3 says from which epoch Pegasos' mean test error stays within 0.5 pp of its
    *final* value, and names that value: the last epoch's mean, not epoch 1's (the mutation
    survivor scorecard.py:218 read ``.iloc[+1]``)."""
    curve = [0.5, 0.4, 0.3, 0.25, 0.22, 0.208, 0.207, 0.206, 0.206, 0.205, 0.205]
    report = pd.DataFrame(
        [
            dict(
                config=scorecard.PEG, epoch=e, seed_index=s, test_error=v + (0.01 if s else -0.01)
            )
            for e, v in enumerate(curve)
            for s in (0, 1)
        ]
    )
    result = scorecard.evaluate(FrameQuery(report), scorecard.CLAIM["000.3"])
    assert result.verdict == "holds"
    assert result.ours == "stable (±0.5 pp of final 0.205) from epoch 5"


def test_averaging_claim_groups_each_variant_under_its_own_solver():
    """Claim 001.2's per-solver shifts: each variant of table 2 is counted under its own
    solver, as the report's rows say (the mutation survivor scorecard.py:60 matched the
    configs by ``>=``, so 'Pegasos' took the solver of the first config sorting after it,
    'SDCA random')."""
    shift = {"sdca": 0.001, "pegasos": 0.004, "asdca": 0.002}
    configs = [(c.label, c.solver) for c in CATALOGUE[scorecard.SIM].configs]
    rows = []
    for label, solver in configs:  # the catalogue's order, as in the report
        averaged = label.endswith(scorecard.AVG)
        for s, acc in enumerate((0.80, 0.82)):
            acc += shift[solver] if averaged else 0.0
            rows.append(
                dict(config=label, solver=solver, epoch=1, seed_index=s, test_error_output=1 - acc)
            )
    result = scorecard.evaluate(FrameQuery(pd.DataFrame(rows)), scorecard.CLAIM["001.2"])
    sd = "(sd over seeds 0.0141 → 0.0141)"
    assert result.ours == (
        "averaged − plain accuracy: mean +0.0026, largest |difference| 0.0040; per solver: "
        f"sdca +0.0010 {sd}; pegasos +0.0040 {sd}; asdca +0.0020 {sd}"
    )
    assert result.verdict == "holds"


def test_the_lambda_claim_reads_the_fixed_epoch_runs_last_epoch(tiny_reports, tmp_path):
    """001.10 reads the four algorithms' final objective at their own last epoch: the λ
    sweep's runs to convergence (SDCA with shrinking: up to 188 epochs on the genomic
    substitute, against the fixed configurations' 50) must not move it (they did: the
    report's last epoch found no row of the four, and every final P read NaN)."""
    claim = scorecard.CLAIM["001.10"]
    before = scorecard.evaluate(scorecard.Query(tiny_reports), claim)
    copy_reports(tiny_reports, tmp_path)
    path = tmp_path / "001_genomic_lambda.parquet"
    report = pd.read_parquet(path)
    longer = report[report["tags"].str.contains("SDCA-Perm + shrinking", regex=False)]
    longer = longer[longer["epoch"] == longer["epoch"].max()]
    extra = [longer.assign(epoch=longer["epoch"] + k) for k in (1, 2, 3)]
    pd.concat([report, *extra], ignore_index=True).to_parquet(path, index=False)
    after = scorecard.evaluate(scorecard.Query(tmp_path), claim)
    assert "nan" not in before.ours
    assert (after.ours, after.verdict) == (before.ours, before.verdict)
