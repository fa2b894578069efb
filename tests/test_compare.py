"""``python -m sdca_pegasos.compare FILE --out DIR`` as a new user meets it (issue 19).

Files built as users build them (:mod:`tests.compare_files`: scikit-learn's digits as
svmlight, wine through pandas' ``to_csv`` with and without its index, a hashed text problem,
a dense npz, broken files), small for CI. Each input rule, each refusal (one line, status 2,
nothing written), the problem stated (intercept, scaling), every sentence about P* read from
its record (a budget too small to certify never yields the word "certified"), Ctrl-C, the
summary's tables and plurals. A new user's first hour (issue 29): too few samples for a
mini-batch, Ctrl-C while certifying, a folder that holds one input, more than two labels,
text columns, a file that is not UTF-8, a Python without the dependencies. The verdict
rules have their own tests (``tests/test_compare_verdicts.py``).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import matplotlib.figure
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from sdca_pegasos import data
from sdca_pegasos.compare import inputs, outputs, problem, progress
from sdca_pegasos.compare.__main__ import main
from sdca_pegasos.experiments import runner
from sdca_pegasos.figures import plots
from sdca_pegasos.solvers import SDCAClassifier
from tests import compare_files

ROOT = Path(__file__).resolve().parents[1]
BARE_CERTIFIED = re.compile(r"(?<!not )\bcertified\b", re.IGNORECASE)


def _problem(n=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random(X.shape) < 0.5] = 0.0
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 3, 7)
    return X, y


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """compare registers the user's file as a dataset of this process: keep it local."""
    monkeypatch.setattr(data.registry, "DATASETS", dict(data.registry.DATASETS))


@pytest.fixture
def svmlight_file(tmp_path):
    X, y = _problem()
    path = tmp_path / "small.svm"
    dump_svmlight_file(X, y, str(path))
    return path


@pytest.fixture
def dense_file(tmp_path):
    return compare_files.dense_npz(tmp_path, n=120, d=30)


@pytest.fixture
def figures_seen(monkeypatch):
    """Figures are not rendered (fast); each saved one's texts and lines are recorded:
    ``{stem: {"text": every title, label, caption and legend entry, "lines": [(colour,
    linestyle), ...] of the first panel}}``."""
    seen: dict[str, dict] = {}

    def savefig(self, fname, *args, **kwargs):
        texts = [self.get_suptitle(), *(t.get_text() for t in self.texts)]
        for ax in self.axes:
            texts += [ax.get_title(loc="left"), ax.get_ylabel(), ax.get_xlabel()]
            if ax.get_legend():
                texts += [t.get_text() for t in ax.get_legend().get_texts()]
        lines = [(line.get_color(), str(line.get_linestyle())) for line in self.axes[0].lines]
        panels = [ax.get_title(loc="left") for ax in self.axes]
        seen[Path(fname).stem] = {"text": "\n".join(texts), "lines": lines, "panels": panels}
        Path(fname).touch()

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    return seen


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------ end to end
def test_end_to_end_and_resume(svmlight_file, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [svmlight_file, "--out", out, "--seeds", 2, "--max-epochs", 3, "--lmbd", 0.05, 0.01]
    code, stdout, stderr = run(capsys, *argv)
    assert code == 0, stderr
    report = pd.read_parquet(out / "compare.parquet")
    assert set(report["config"]) == {
        "SDCA-Perm", "SDCA-Perm + SGD init", "Pegasos", "Mini-batch Pegasos k=8",
        "ASDCA paper θ",
    }  # fmt: skip
    assert sorted(report["lmbd"].unique()) == [0.01, 0.05]
    assert set(report["epoch"]) == {0, 1, 2, 3}  # every epoch stored
    assert report.groupby(["lmbd", "config"])["seed_index"].nunique().eq(2).all()
    assert (report["param_bias_multiplier"] == "1.0").all()  # the intercept, in every run
    assert (report["bias_multiplier"] == 1.0).all() and (report["scale"] == "maxabs").all()
    for stem in ("loss_error", "objective", "suboptimality", "duality_gap"):
        for lmbd in ("0.05", "0.01"):
            for ext in ("png", "pdf"):
                assert (out / f"{stem}_lmbd{lmbd}.{ext}").stat().st_size > 0
    assert str(out / "SUMMARY.md") in stdout.splitlines()
    assert "6 features read" in stderr  # the svmlight reading, stated
    text = (out / "SUMMARY.md").read_text()
    assert "SDCA converges faster than Pegasos" in text and "λ = 0.05" in text
    assert "(sparse CSR)" in text and "with an intercept" in text and "largest absolute" in text
    assert "exact optimum (certified)" in text
    # resumable: the same command reuses every stored run (identical rows, timings included)
    assert run(capsys, *argv)[0] == 0
    pd.testing.assert_frame_equal(report, pd.read_parquet(out / "compare.parquet"))


def test_sparse_file_is_never_densified(svmlight_file, tmp_path, monkeypatch, figures_seen):
    """A svmlight file stays CSR from the loader to every solver: no dense copy of the data
    is made. (The exact engine's Newton step may densify a Gram block of free rows, square
    and of at most n_train rows, never an array with the data's columns.)"""
    n_features = load_svmlight_file(str(svmlight_file))[0].shape[1]
    densify = {name: getattr(sp.csr_matrix, name) for name in ("toarray", "todense")}

    def guarded(name):
        def method(self, *args, **kwargs):
            if self.shape[1] == n_features and self.shape[0] != self.shape[1]:
                raise AssertionError("a sparse matrix was densified")
            return densify[name](self, *args, **kwargs)

        return method

    for name in densify:
        monkeypatch.setattr(sp.csr_matrix, name, guarded(name))
    argv = [svmlight_file, "--out", tmp_path / "o", "--seeds", 1, "--max-epochs", 2]
    assert main([str(a) for a in [*argv, "--lmbd", "0.05", "--quiet"]]) == 0
    assert "(sparse CSR)" in (tmp_path / "o" / "SUMMARY.md").read_text()


# ------------------------------------------------------------------ reading files
def test_formats_agree(tmp_path):
    X, y = _problem(n=20)
    dump_svmlight_file(X, y, str(tmp_path / "a.svm"))
    np.savetxt(tmp_path / "b.csv", np.c_[X, y], delimiter=",", header="f,f,f,f,f,f,label")
    np.savez(tmp_path / "c.npz", X=X, y=y)
    Xs = sp.csr_matrix(X)
    np.savez(tmp_path / "d.npz", data=Xs.data, indices=Xs.indices, indptr=Xs.indptr,
             shape=Xs.shape, format="csr", y=y)  # fmt: skip
    expected = np.where(y == 7, 1, -1)
    for name in ("a.svm", "b.csv", "c.npz", "d.npz"):
        path = tmp_path / name
        Xr, yr, _ = inputs.binary(
            path, inputs.read(path, zero_based="yes" if "svm" in name else "auto")
        )
        dense = Xr.toarray() if sp.issparse(Xr) else Xr
        np.testing.assert_allclose(dense, X, err_msg=name)
        np.testing.assert_array_equal(yr, expected, err_msg=name)


def test_csv_as_pandas_writes_it(tmp_path):
    """pandas' default ``to_csv`` writes its index first, unnamed: dropped, and said; the
    header is stated; string labels are labels."""
    frame, label = compare_files.wine_frame()
    with_index = inputs.read(compare_files.wine_csv(tmp_path, index=True))
    without = inputs.read(compare_files.wine_csv(tmp_path, index=False))
    for table in (with_index, without):
        np.testing.assert_allclose(table.X, frame.drop(columns=label).to_numpy())
        np.testing.assert_array_equal(table.labels, frame[label].to_numpy())
        assert any("header" in n and "alcohol" in n for n in table.notes)
        assert any("'cultivar'" in n and "the last" in n for n in table.notes)
    assert any("index pandas' to_csv writes; dropped" in n for n in with_index.notes)
    assert not any("index" in n for n in without.notes)
    _, y, classes = inputs.binary(Path("wine.csv"), without)
    assert classes == "labels: 'barolo' → −1 (59 samples), 'other' → +1 (119 samples)."
    assert sorted(np.unique(y)) == [-1, 1]


def test_a_named_first_column_is_a_feature(tmp_path):
    path = tmp_path / "ids.csv"
    pd.DataFrame({"id": range(10), "x": np.arange(10.0) ** 2, "y": [0, 1] * 5}).to_csv(
        path, index=False
    )
    table = inputs.read(path)
    assert table.X.shape == (10, 2) and not any("index" in n for n in table.notes)


def test_label_column_by_name_or_index(tmp_path):
    path = tmp_path / "first.csv"
    rows = ["kind,a,b"] + [f"{'ab'[i % 2]},{i},{i * i}" for i in range(8)]
    path.write_text("\n".join(rows) + "\n")
    for choice in ("kind", "0", "-3"):
        table = inputs.read(path, label_col=choice)
        assert table.X.shape == (8, 2)
        assert list(table.labels[:2]) == ["a", "b"], choice
        assert any("labels in column 1 of 3 ('kind')" in n for n in table.notes)
    headerless = tmp_path / "plain.csv"
    headerless.write_text("\n".join(f"{i % 2},{i},{i * i}" for i in range(8)) + "\n")
    assert inputs.read(headerless, label_col="0").X[:, 0].tolist() == list(range(8))
    assert any("no header line" in n for n in inputs.read(headerless).notes)


def test_csv_errors_name_the_files_own_line(tmp_path):
    files = compare_files.broken(tmp_path)
    path = files["word_in_numbers.csv"]
    with pytest.raises(inputs.BadInput, match=r"line (\d+), column 2 \('b'\) is 'oops'") as exc:
        inputs.read(path)
    line = int(re.search(r"line (\d+)", str(exc.value)).group(1))
    assert "oops" in path.read_text().splitlines()[line - 1]  # the file's line, 1-based
    path = files["missing_value.csv"]
    with pytest.raises(inputs.BadInput, match=r"column 3 in 1 row \(line 4\)") as exc:
        inputs.read(path)
    assert ",," in path.read_text().splitlines()[3]


def test_svmlight_indices(tmp_path):
    """Digits written zero-based: pixel 0 is never written, so ``auto`` reads the file as
    one-based, one feature fewer, and says so; ``--zero-based yes`` reads all 64."""
    path = compare_files.digits_svmlight(tmp_path, small=True)
    auto, yes = inputs.read(path), inputs.read(path, zero_based="yes")
    assert (auto.X.shape[1], yes.X.shape[1]) == (63, 64)
    assert "63 features read" in auto.notes[0] and "one-based" in auto.notes[0]
    assert "64 features read" in yes.notes[0]
    np.testing.assert_array_equal(auto.X.toarray(), yes.X.toarray()[:, 1:])
    with_zero = tmp_path / "z.svm"
    with_zero.write_text("1 0:1 2:3\n-1 1:2\n")
    assert "uses index 0" in inputs.read(with_zero).notes[0]
    with pytest.raises(inputs.BadInput, match="Invalid index 0"):
        inputs.read(with_zero, zero_based="no")


# ------------------------------------------------------------------ refusals
BAD_FILES = {
    "garbage.svm": "not readable as a svmlight/libsvm file",
    "empty.csv": "the file is empty",
    "garbage.npz": "not a .npz archive",
    "pickled.npz": "not a .npz archive",
    "objects.npz": "never unpickled",
    "word_in_numbers.csv": "is 'oops': every feature must be a finite number",
    "inf_in_numbers.csv": "line 5, column 3 ('c') is inf: every feature must be a finite number",
    "missing_value.csv": "empty cells in 1 column: column 3 in 1 row (line 4)",
    "three_labels.csv": "not two-valued: 3 distinct labels",
    "one_class.csv": "one class only",
    "one_column.csv": "one column only",
    "ragged.csv": "Expected 3 fields in line 3",
    "huge.npz": "values too large to standard-scale",
    "nan.npz": "NaN or infinite",
    "sparse_no_labels.npz": "no labels",
    "nowhere.svm": "no such file",
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_file(name, tmp_path, capsys):
    files = compare_files.broken(tmp_path)
    path = files.get(name, tmp_path / name)
    out = tmp_path / "out"
    code, stdout, stderr = run(capsys, path, "--out", out)
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1, stderr
    assert str(path) in lines[0] and BAD_FILES[name] in lines[0], lines[0]
    assert "allow_pickle" not in lines[0]
    assert not out.exists() and not stdout


BAD_OPTIONS = [
    (["--seeds", "0"], "argument --seeds: expected an integer >= 1, got 0"),
    (["--max-epochs", "x"], "argument --max-epochs"),
    (["--lmbd", "-1"], "argument --lmbd"),
    (["--lmbd", "1e400"], "argument --lmbd"),
    (["--test-size", "1"], "argument --test-size"),
    (["--certify-budget", "0"], "argument --certify-budget"),
    (["--solvers", "nope"], "argument --solvers"),
    (["--scale", "log"], "argument --scale"),
    (["--lmbd", "1e-300"], "--lmbd 1e-300 is too small for these data"),
    (["--label-col", "0"], "--label-col applies to CSV and parquet files"),
    (["--scale", "standard"], "--scale standard centres every feature"),
    (["--test-size", "0.99"], "too few samples for a test split"),
]


@pytest.mark.parametrize(("args", "message"), BAD_OPTIONS)
def test_bad_option(args, message, svmlight_file, tmp_path, capsys):
    out = tmp_path / "out"
    code, stdout, stderr = run(capsys, svmlight_file, "--out", out, *args)
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and message in lines[0], stderr
    assert not out.exists() and not stdout


def test_bad_option_for_the_file(tmp_path, capsys):
    csv = compare_files.wine_csv(tmp_path, index=False)
    for args, message in [
        (["--zero-based", "yes"], "--zero-based applies to svmlight files"),
        (["--label-col", "nosuch"], "--label-col 'nosuch': no such column"),
        (["--label-col", "99"], "--label-col 99: the file has 14 columns"),
    ]:
        code, _, stderr = run(capsys, csv, "--out", tmp_path / "o", *args)
        assert code == 2 and len(stderr.strip().splitlines()) == 1 and message in stderr
    assert not (tmp_path / "o").exists()


def test_out_must_be_a_folder(svmlight_file, tmp_path, capsys):
    taken = tmp_path / "taken.txt"
    taken.write_text("mine")
    for out in (taken, taken / "below"):
        code, _, stderr = run(capsys, svmlight_file, "--out", out)
        assert code == 2 and len(stderr.strip().splitlines()) == 1 and "--out" in stderr
    assert taken.read_text() == "mine"


def test_old_command_names_the_new_one(capsys):
    from sdca_pegasos.experiments.__main__ import main as experiments_main

    assert experiments_main(["compare", "x.svm", "--out", "o"]) == 2
    assert "python -m sdca_pegasos.compare FILE --out DIR" in capsys.readouterr().err


# ------------------------------------------------------------------ the problem meant
def test_scaling_is_fitted_on_the_training_rows():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((80, 3)) * [1.0, 1e3, 1e-3] + [5.0, -2e3, 0.0]
    y = np.where(rng.random(80) < 0.5, 1, -1)
    p = problem.make("f", X, y, 0.25, "auto", True, {})
    ds = p.dataset
    assert p.scale == "standard" and p.bias == 1.0
    np.testing.assert_allclose(ds.X_train.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(ds.X_train.std(axis=0), 1.0)
    scaler = StandardScaler().fit(
        train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)[0]
    )
    X_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)[1]
    np.testing.assert_allclose(ds.X_test, scaler.transform(X_te))
    sparse = problem.make("f", sp.csr_matrix(X * (rng.random(X.shape) < 0.3)), y, 0.25, "auto",
                          False, {})  # fmt: skip
    assert sparse.scale == "maxabs" and sp.issparse(sparse.dataset.X_train)
    assert np.abs(sparse.dataset.X_train).max() == 1.0 and sparse.bias == 0.0
    assert "without an intercept" in sparse.words and "largest absolute" in sparse.words
    assert not p.warnings
    none = problem.make("f", X, y, 0.25, "none", True, {})
    assert "differ by a factor of" in none.warnings[0]


def test_wine_with_the_defaults_matches_linearsvc(tmp_path, capsys, figures_seen):
    """Unscaled features (proline ~1000, hue ~1) and an offset: with the defaults
    (standardised on the training rows, an intercept, λ = 1/n, i.e. C = 1) the test error is
    within 1 pp of ``make_pipeline(StandardScaler(), LinearSVC())`` on the same split."""
    path = compare_files.wine_csv(tmp_path, index=True)
    out = tmp_path / "out"
    code, _, stderr = run(capsys, path, "--out", out, "--seeds", 2)
    assert code == 0, stderr
    X, y, _ = inputs.binary(path, inputs.read(path))
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    reference = 1 - make_pipeline(StandardScaler(), LinearSVC()).fit(X_tr, y_tr).score(X_te, y_te)
    report = pd.read_parquet(out / "compare.parquet")
    last = report[report["epoch"] == report["epoch"].max()]
    ours = last.groupby("config")["test_error"].mean()
    assert abs(ours["SDCA-Perm"] - reference) <= 0.01, (ours, reference)
    record = next(iter((out / "optima").glob("*.json")))
    optimum = pd.read_json(record, typ="series")
    assert optimum["certified"] and optimum["bias"] == 1.0
    assert abs(optimum["test_error"] - reference) <= 0.01
    text = (out / "SUMMARY.md").read_text()
    assert "with an intercept" in text and "standardised" in text
    assert "dropped (not a feature)" in text  # pandas' index column
    assert "**One class.**" not in text
    for stem, seen in figures_seen.items():
        assert "with an intercept" in seen["text"], stem  # stated in every caption
        assert "standardised" in seen["text"], stem


# ------------------------------------------------------------------ P* from its record
def test_an_uncertified_optimum_is_never_called_certified(dense_file, tmp_path, capsys,
                                                           figures_seen):  # fmt: skip
    out = tmp_path / "out"
    argv = [dense_file, "--out", out, "--seeds", 2, "--max-epochs", 3]
    code, _, stderr = run(capsys, *argv, "--certify-budget", "1e-6")
    assert code == 0, stderr
    record = pd.read_json(next(iter((out / "optima").glob("*.json"))), typ="series")
    assert not record["certified"]
    text = (out / "SUMMARY.md").read_text()
    assert not BARE_CERTIFIED.search(text), BARE_CERTIFIED.search(text)
    assert f"not certified: P* in [{record['dual']:.6g}, {record['primal']:.6g}]" in text
    assert "upper bound" in text
    for stem, seen in figures_seen.items():
        assert not BARE_CERTIFIED.search(seen["text"]), (stem, seen["text"])
    sub = next(s for stem, s in figures_seen.items() if stem.startswith("suboptimality"))
    assert "upper bound" in sub["text"] and "not certified" in sub["text"]
    warning = [line for line in stderr.splitlines() if line.startswith("warning: P* at")]
    assert len(warning) == 1 and "not certified" in warning[0]
    # a larger budget recomputes it: now certified, and said so with what was reached
    code, _, stderr = run(capsys, *argv)
    record = pd.read_json(next(iter((out / "optima").glob("*.json"))), typ="series")
    assert code == 0 and record["certified"], stderr
    text = (out / "SUMMARY.md").read_text()
    reached = outputs.gap_text(record["rel_gap"])
    assert f"certified by the exact engine: relative duality gap {reached}" in text
    assert "not certified" not in text


# ------------------------------------------------------------------ interrupted, resumed
def test_ctrl_c_says_how_far_and_the_same_command_resumes(svmlight_file, tmp_path, capsys,
                                                          monkeypatch, figures_seen):  # fmt: skip
    out = tmp_path / "out"
    argv = [svmlight_file, "--out", out, "--seeds", 2, "--max-epochs", 2, "--quiet"]
    real, calls = runner.run_one, []

    def interrupted(task):
        calls.append(task)
        if len(calls) == 4 and not hasattr(interrupted, "done"):
            interrupted.done = True  # once: the second command runs to the end
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(runner, "run_one", interrupted)
    code, stdout, stderr = run(capsys, *argv)
    assert code == 130 and not stdout
    assert stderr.strip().splitlines()[-1] == (
        f"compare: interrupted while running the solvers: {out} holds P* at 1 of 1 λ and 3 of "
        "10 runs; run the same command again to resume"
    )
    assert "Traceback" not in stderr
    calls.clear()
    assert run(capsys, *argv)[0] == 0
    assert len(calls) == 7  # the 3 stored runs are reused


# ------------------------------------------------------------------ what a reader sees
def test_one_solver_no_test_set_one_seed(svmlight_file, tmp_path, capsys, figures_seen):
    out = tmp_path / "out"
    argv = [svmlight_file, "--out", out, "--seeds", 1, "--max-epochs", 1, "--test-size", 0,
            "--solvers", "pegasos"]  # fmt: skip
    assert run(capsys, *argv)[0] == 0
    text = (out / "SUMMARY.md").read_text()
    assert "| claim |" not in text  # no table without rows
    assert "No claim can be checked with these solvers alone" in text
    assert "Left out, because" in text and "SDCA-Perm" in text
    assert "1 seed each, 1 epoch per run" in text and "1 seeds" not in text
    assert "no test set" in text
    stems = set(figures_seen)
    assert not any(s.startswith("duality_gap") for s in stems)  # Pegasos keeps no dual
    assert "Not drawn: duality gap (Pegasos keeps no dual point)." in text
    loss = next(v for s, v in figures_seen.items() if s.startswith("loss_error"))
    assert loss["panels"][1] == "(b) training error vs epochs"  # not an empty test panel
    assert "mean over 1 run (seeds)" in loss["text"] and "1 runs" not in loss["text"]


def test_a_figure_with_nothing_to_draw_is_left_out_and_said(tmp_path, capsys, figures_seen):
    """λ = 1e200: w = 0 is optimal and every run sits on it; the suboptimality bound is 0 up
    to the certificate's own gap of P* (its bounds are rounded outward, so ~1e-16, not 0):
    nothing on a log scale, so that figure is not drawn, and the summary says why."""
    path = compare_files.wine_csv(tmp_path, index=False)
    out = tmp_path / "out"
    code, _, stderr = run(capsys, path, "--out", out, "--lmbd", "1e200", "--seeds", 1)
    assert code == 0, stderr
    assert not any(s.startswith("suboptimality") for s in figures_seen)
    assert "loss_error_lmbd1e+200" in figures_seen
    text = (out / "SUMMARY.md").read_text()
    assert "Not drawn: suboptimality (every value of suboptimality is 0 or below" in text
    assert "the certificate's own gap of P*" in text


def test_every_solver_has_its_own_colour_and_line_style(svmlight_file, tmp_path, capsys,
                                                         figures_seen):  # fmt: skip
    argv = [svmlight_file, "--out", tmp_path / "o", "--seeds", 1, "--max-epochs", 2]
    assert run(capsys, *argv)[0] == 0
    colours = [c.upper() for c, _ in figures_seen["objective_lmbd0.0222222"]["lines"]]
    assert len(colours) == 5 == len(set(colours)) and set(colours) <= set(plots.OKABE_ITO)
    styles = plots.distinct_styles([f"c{i}" for i in range(14)])
    assert len({str(s["linestyle"]) for s in list(styles.values())[:7]}) == 7
    assert len({(s["color"], str(s["linestyle"])) for s in styles.values()}) == 14


def test_the_summary_puts_the_optimum_beside_the_solvers(svmlight_file, tmp_path, capsys,
                                                         figures_seen):  # fmt: skip
    out = tmp_path / "out"
    assert run(capsys, svmlight_file, "--out", out, "--seeds", 1, "--max-epochs", 2)[0] == 0
    record = pd.read_json(next(iter((out / "optima").glob("*.json"))), typ="series")
    row = next(line for line in (out / "SUMMARY.md").read_text().splitlines()
               if line.startswith("| exact optimum (certified)"))  # fmt: skip
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3] == f"{100 * record['train_error']:.1f} %"
    assert cells[4] == f"{100 * record['test_error']:.1f} %"


def test_readme_describes_every_file_written():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Your own data") :]
    section = section[: section.index("\n## ", 3)]
    for name in outputs.FILES:
        assert f"`{name}`" in section, name
    assert "python -m sdca_pegasos.compare FILE --out DIR" in section


def test_a_stage_speaks_only_when_it_lasts(monkeypatch):
    import io
    import time

    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.05)
    monkeypatch.setattr(progress, "EVERY_SECONDS", 0.05)
    stream = io.StringIO()
    console = progress.Console(stream=stream)
    with console.stage("quick"):
        pass
    assert stream.getvalue() == ""
    with console.stage("slow", lambda t: "busy"):
        time.sleep(0.2)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "slow: busy ..." and lines[-1].startswith("slow: done in")
    quiet = progress.Console(quiet=True, stream=io.StringIO())
    with quiet.stage("slow"):
        time.sleep(0.1)
    quiet.warn("still said")
    assert quiet.stream.getvalue() == "warning: still said\n"


def test_the_smallest_lmbd_compare_suggests_is_the_estimators_own():
    """compare refuses a λ with the estimators' own check (one home: no second limit or
    rounding): the λ it suggests, typed back, passes compare and the estimators alike, and
    a λ the estimators refuse is refused before anything is written."""
    X, y = _problem()
    y = np.where(y == 7, 1, -1)  # the ±1 labels make() receives from the reader
    X = X * 1e140  # max ||x||² ~ 1e281: the λ floor, ~1e-19, is set by the data's scale
    made = problem.make("f.svm", X, y, 0.25, "none", True, {})
    with pytest.raises(inputs.BadInput, match="--lmbd 1e-25 is too small") as info:
        problem.check_lmbds("f.svm", made, [1e-25])
    suggested = float(re.search(r"Use lmbd >= ([0-9.]+e[-+][0-9]+)", str(info.value)).group(1))
    assert 1e-25 < suggested < 1e-17
    problem.check_lmbds("f.svm", made, [suggested])  # accepted by compare ...
    ds = made.dataset
    est = SDCAClassifier(lmbd=suggested, bias_multiplier=made.bias, max_epochs=1, tol=0)
    est.fit(ds.X_train, ds.y_train)  # ... and by the estimator it runs
    with pytest.raises(ValueError, match="too small for the scale of X"):  # half: below it
        SDCAClassifier(lmbd=suggested / 2, bias_multiplier=made.bias).fit(ds.X_train, ds.y_train)


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["--seeds", "3", "--quiet"],
        ["--lmbd", "0.05", "1e-3", "--max-epochs", "7", "--solvers", "pegasos", "sdca-perm"],
        ["--test-size", "0", "--label-col", "my label", "--scale", "none", "--no-intercept"],
        ["--zero-based", "yes", "--certify-budget", "2.5", "--test-size", "0.3"],
        [
            "--classes",
            "a b",
            "c",
            "--drop-cols",
            "id",
            "my col",
            "--encode",
            "colour",
            "--encoding",
            "latin-1",
        ],
        ["--positive", "3", "--encode", "0"],
        ["--sep", "tab", "--decimal", ",", "--dropna"],
        ["--sep", ";", "--label-col", "vote"],
        ["--sep", "space", "--decimal", "."],
        ["--sep", "|"],
    ],
)
def test_the_command_summary_quotes_makes_the_same_settings(options, tmp_path):
    """SUMMARY.md quotes the command of its run: parsed again, it gives the same settings
    (a quoted command that dropped --seeds or --lmbd would rebuild another folder)."""
    from sdca_pegasos.compare.__main__ import parser, settings_of

    argv = [str(tmp_path / "my file.csv"), "--out", str(tmp_path / "out dir"), *options]
    settings = settings_of(parser().parse_args(argv))
    words = shlex.split(settings.command())
    assert words[:3] == ["python", "-m", "sdca_pegasos.compare"]
    assert settings_of(parser().parse_args(words[3:])) == settings


# ------------------------------------------------------------------ a new user's first hour
# (issue 29): every check before DIR is written, a folder that holds one input, labels and
# columns a new user brings, and the fix in every message.
def _csv(path: Path, rows: int, labels=(0, 1), extra: dict | None = None, seed=0) -> Path:
    """A CSV of ``rows`` samples: features a, b (a noisy linear teacher), the columns of
    ``extra`` (name -> one value per row), labels cycling through ``labels`` last."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.standard_normal((rows, 2)), columns=["a", "b"])
    for name, values in (extra or {}).items():
        frame[name] = values
    frame["label"] = [labels[i % len(labels)] for i in range(rows)]
    frame.to_csv(path, index=False)
    return path


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_too_few_samples_for_a_mini_batch_is_refused_before_writing(tmp_path, capsys):
    """The issue's 8-row CSV: 6 training rows, fewer than the mini-batch of 8 of Pegasos k=8
    and ASDCA. Was a ValueError traceback (exit 1) after optima/ and 15 runs were written;
    now one line naming both solvers and the fixes, status 2, nothing written; the fix it
    names runs."""
    path = _csv(tmp_path / "eight.csv", 8)
    out = tmp_path / "out"
    cases = [
        ([], "leave them out: --solvers sdca-perm sdca-sgd pegasos, or train on all 8 "
             "samples: --test-size 0 (no test set)"),
        # none of the chosen fits: every solver that does, and only those
        (["--solvers", "pegasos-batch"], "leave it out: --solvers sdca-perm sdca-sgd pegasos, "
                                         "or train on all 8 samples"),
    ]  # fmt: skip
    for args, fix in cases:
        code, stdout, stderr = run(capsys, path, "--out", out, *args)
        lines = stderr.strip().splitlines()
        assert code == 2 and len(lines) == 1 and not stdout, stderr
        assert "6 training samples, fewer than the mini-batch of" in lines[0]
        assert fix in lines[0], lines[0]
        assert not out.exists()
    assert "pegasos-batch (8) and asdca (8)" in run(capsys, path, "--out", out)[2]
    six = _csv(tmp_path / "six.csv", 6)
    code, _, stderr = run(capsys, six, "--out", out, "--test-size", "0")
    assert code == 2 and "6 training samples" in stderr and "--test-size" not in stderr
    assert not out.exists()
    larger = _csv(tmp_path / "forty.csv", 40)  # 30 training rows: a smaller test set is a fix
    code, _, stderr = run(capsys, larger, "--out", out, "--solvers", "asdca", "--test-size",
                          "0.9")  # fmt: skip
    assert code == 2 and "--test-size 0.8 or less" in stderr, stderr
    # 30 rows: the largest test size that leaves 8 training rows is 0.73 (22 held out;
    # 0.74 holds out 23), rounded down to the hundredth, never up
    thirty = _csv(tmp_path / "thirty.csv", 30)
    code, _, stderr = run(capsys, thirty, "--out", out, "--solvers", "asdca", "--test-size",
                          "0.9")  # fmt: skip
    assert code == 2 and "--test-size 0.73 or less" in stderr, stderr
    code, _, stderr = run(capsys, thirty, "--out", out, "--solvers", "asdca", "--test-size",
                          "0.74")  # fmt: skip
    assert code == 2 and "7 training samples, fewer than the mini-batch" in stderr, stderr
    assert not out.exists()
    code, _, stderr = run(capsys, path, "--out", out, "--solvers", "sdca-perm", "sdca-sgd",
                          "pegasos", "--seeds", 1, "--max-epochs", 2, "--quiet")  # fmt: skip
    assert code == 0 and (out / "SUMMARY.md").is_file(), stderr


def test_a_file_too_small_to_split_names_every_fix_at_once(tmp_path, capsys):
    """4 rows: too few for a test split, and with --test-size 0 still fewer than the
    mini-batch of 8 of Pegasos k=8 and ASDCA. Was two refusals one after the other (the
    split's, then the mini-batch's); now the first names both fixes, the command it gives
    runs, and without a mini-batch solver it names the split's alone."""
    path = _csv(tmp_path / "four.csv", 4)
    out = tmp_path / "out"
    code, stdout, stderr = run(capsys, path, "--out", out)
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and not stdout, stderr
    assert lines[0].endswith(
        "too few samples for a test split of 0.25 (4 samples, smallest class 2); pass "
        "--test-size 0; then all 4 are fewer than the mini-batch of pegasos-batch (8) and "
        "asdca (8): leave them out: --solvers sdca-perm sdca-sgd pegasos"
    ), lines[0]
    assert not out.exists()
    code, _, stderr = run(capsys, path, "--out", out, "--solvers", "sdca-perm", "asdca")
    assert code == 2 and stderr.strip().endswith(
        "pass --test-size 0; then all 4 are fewer than the mini-batch of asdca (8): leave it "
        "out: --solvers sdca-perm"
    ), stderr
    code, _, stderr = run(capsys, path, "--out", out, "--solvers", "sdca-perm")
    assert code == 2 and stderr.strip().endswith("pass --test-size 0"), stderr
    # 8 rows at 0.8: 7 held out and one to train on, too few as well (not sklearn's error)
    code, _, stderr = run(capsys, _csv(tmp_path / "eight.csv", 8), "--out", out, "--solvers",
                          "sdca-perm", "--test-size", "0.8")  # fmt: skip
    assert code == 2 and stderr.strip().endswith(
        "too few samples for a test split of 0.8 (8 samples, smallest class 4); pass --test-size 0"
    ), stderr
    code, _, stderr = run(capsys, path, "--out", out, "--test-size", "0", "--solvers",
                          "sdca-perm", "sdca-sgd", "pegasos", "--seeds", 1, "--max-epochs", 2,
                          "--quiet")  # fmt: skip
    assert code == 0 and (out / "SUMMARY.md").is_file(), stderr


def test_ctrl_c_while_certifying_says_what_dir_holds(svmlight_file, tmp_path, capsys,
                                                    monkeypatch, figures_seen):  # fmt: skip
    """Ctrl-C during the exact engine: DIR holds its manifest only (resumable: it says
    whose it is), the message says so and that the same command resumes, and it does. Was
    "interrupted after 0 of 2 runs" beside an empty DIR."""
    from sdca_pegasos.experiments import optima

    out = tmp_path / "out"
    argv = [svmlight_file, "--out", out, "--seeds", 1, "--max-epochs", 2, "--quiet",
            "--solvers", "sdca-perm", "pegasos"]  # fmt: skip
    real = optima.ensure

    def interrupted(*args, **kwargs):
        monkeypatch.setattr(optima, "ensure", real)  # once
        raise KeyboardInterrupt

    monkeypatch.setattr(optima, "ensure", interrupted)
    code, stdout, stderr = run(capsys, *argv)
    assert code == 130 and not stdout and "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == (
        f"compare: interrupted while computing P* at λ = 1/n = 0.022: {out} holds P* at 0 of "
        "1 λ and 0 of 2 runs; run the same command again to resume"
    )
    assert sorted(_tree(out)) == ["manifest.json"]
    code, _, stderr = run(capsys, *argv)
    assert code == 0 and (out / "SUMMARY.md").is_file(), stderr


def test_a_folder_holds_one_input(svmlight_file, tmp_path, capsys, figures_seen):
    """DIR made for one file is refused for another, and for other options (one line naming
    --out NEW and --overwrite, status 2, DIR unchanged); --overwrite removes compare's own
    files only (said in one line) so nothing of the old file stays beside the new summary;
    a non-empty folder compare did not make is refused, --overwrite or not. Before, a
    reused DIR kept the old file's figures, reports and optima beside the new summary."""
    out = tmp_path / "out"
    quick = ["--seeds", 1, "--max-epochs", 2, "--solvers", "sdca-perm", "pegasos", "--quiet"]
    assert run(capsys, svmlight_file, "--out", out, *quick, "--lmbd", 0.1)[0] == 0
    (out / "my notes.txt").write_text("mine")
    before = _tree(out)
    other = compare_files.digits_svmlight(tmp_path, small=True)
    for argv, what in [
        ([other, "--out", out, *quick, "--lmbd", 0.1], "holds compare's outputs of another file"),
        ([svmlight_file, "--out", out, *quick, "--lmbd", 0.05],
         "holds compare's outputs of other options (`python -m sdca_pegasos.compare"),
    ]:  # fmt: skip
        code, stdout, stderr = run(capsys, *argv)
        lines = stderr.strip().splitlines()
        assert code == 2 and len(lines) == 1 and not stdout, stderr
        assert what in lines[0] and "--out NEW" in lines[0] and "--overwrite" in lines[0]
        assert _tree(out) == before
    code, _, stderr = run(capsys, other, "--out", out, *quick, "--lmbd", 0.05, "--overwrite")
    assert code == 0, stderr
    removed = [line for line in stderr.splitlines() if "--overwrite" in line]
    assert len(removed) == 1 and "removed compare's" in removed[0], stderr
    assert (out / "my notes.txt").read_text() == "mine"  # not compare's: kept
    left = _tree(out)
    assert not [name for name in left if "lmbd0.1" in name], left  # nothing of the old run
    assert len([name for name in left if name.startswith("optima/")]) == 1
    assert "digits38.svm" in (out / "SUMMARY.md").read_text()
    # the same command again resumes (the manifest is the new one's)
    assert run(capsys, other, "--out", out, *quick, "--lmbd", 0.05)[0] == 0
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_bytes(b"\xff\xd8")
    for extra in ([], ["--overwrite"]):
        code, _, stderr = run(capsys, svmlight_file, "--out", foreign, *quick, *extra)
        assert code == 2 and "not empty, and no manifest.json says compare made it" in stderr
        assert _tree(foreign) == {"cat.jpg": b"\xff\xd8"}


def test_more_than_two_labels(tmp_path, capsys, figures_seen):
    """Three labels: refused with the labels found and both options, spelled with the file's
    own labels; --classes A B keeps two (A −1, B +1), --positive A takes one against the
    rest, and a label the file lacks is named with the labels it has. Was "labels are not
    two-valued" with no way on."""
    path = compare_files.broken(tmp_path)["three_labels.csv"]
    code, _, stderr = run(capsys, path, "--out", tmp_path / "o")
    assert code == 2 and not (tmp_path / "o").exists()
    assert (
        "3 distinct labels (0, 1, 2); keep the rows of two of them with --classes A B " in stderr
    )
    assert "(e.g. --classes 0 1)" in stderr and "--positive A (e.g. --positive 0)" in stderr
    table = inputs.read(path)
    X, y, sentence = inputs.binary(path, table, classes=("2", "0"))
    keep = np.isin(table.labels, (0, 2))
    np.testing.assert_array_equal(X, table.X[keep])
    np.testing.assert_array_equal(y, np.where(table.labels[keep] == 0, 1, -1))
    assert sentence == (
        "labels: 2 → −1 (4 samples), 0 → +1 (4 samples); --classes: the other 4 samples left out."
    )
    X, y, sentence = inputs.binary(path, table, positive="1.0")
    np.testing.assert_array_equal(y, np.where(table.labels == 1, 1, -1))
    assert X.shape == table.X.shape
    assert (
        sentence == "labels: 1 → +1 (4 samples), the 2 others (0, 2) → −1 (8 samples; --positive)."
    )
    for kwargs, message in [
        (dict(classes=("0", "5")), "--classes 5: no such label; the labels are 0, 1, 2"),
        (dict(positive="cat"), "--positive cat: no such label; the labels are 0, 1, 2"),
        (dict(classes=("1", "1.0")), "--classes 1 1.0: name two different labels"),
    ]:
        with pytest.raises(inputs.BadInput, match=re.escape(message)):
            inputs.binary(path, table, **kwargs)
    wine = _csv(tmp_path / "kinds.csv", 45, labels=("red", "rosé", "white"))
    out = tmp_path / "out"
    argv = [wine, "--out", out, "--positive", "rosé", "--seeds", 1, "--max-epochs", 1]
    code, _, stderr = run(capsys, *argv, "--solvers", "sdca-perm", "pegasos")
    assert code == 0, stderr
    assert (
        "'rosé' → +1 (15 samples), the 2 others ('red', 'white') → −1"
        in (out / "SUMMARY.md").read_text()
    )


def test_text_columns_are_named_with_both_fixes(tmp_path, capsys):
    """Feature columns of words: one line naming them and both fixes (--drop-cols, --encode,
    by name; by index in a file without a header). --drop-cols leaves them out; --encode
    one-hots them over every row (said: it reads no label, so the split cannot leak). Was
    "every feature must be a finite number" about the first text cell only."""
    colours = ["red", "green", "blue"] * 4
    path = _csv(tmp_path / "shop.csv", 12, extra={"colour": colours, "city": ["Oslo"] * 12})
    code, _, stderr = run(capsys, path, "--out", tmp_path / "o")
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and not (tmp_path / "o").exists()
    assert (
        "line 2, column 3 ('colour') is 'red', and 1 other column holds text too (column 4 "
        in lines[0]
    )
    assert lines[0].endswith(
        "every feature must be a number; leave them out with --drop-cols colour city, or "
        "one-hot encode them with --encode colour city"
    )
    dropped = inputs.read(path, drop_cols=("colour", "city"))
    assert (
        dropped.X.shape == (12, 2)
        and "left out (--drop-cols): 'colour', 'city'." in dropped.notes[-1]
    )
    encoded = inputs.read(path, drop_cols=("city",), encode=("colour",))
    assert encoded.X.shape == (12, 5)
    np.testing.assert_array_equal(  # colour=blue, colour=green, colour=red
        encoded.X[:3, 2:], [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
    )
    note = next(n for n in encoded.notes if "--encode" in n)
    assert "one-hot, 3 features (colour=blue, colour=green, colour=red)" in note
    assert "the test rows' included" in note and "cannot leak" in note
    headerless = tmp_path / "plain.csv"
    headerless.write_text("".join(f"{i},{c},{i % 2}\n" for i, c in enumerate(colours)))
    with pytest.raises(inputs.BadInput, match=r"--drop-cols 1, or one-hot encode it with "
                       r"--encode 1 \(by index, 0 the first column\)"):  # fmt: skip
        inputs.read(headerless)
    assert inputs.read(headerless, encode=("1",)).X.shape == (12, 4)
    for kwargs, message in [
        (dict(drop_cols=("label",)), "--drop-cols label: that is the label column"),
        (dict(drop_cols=("colour",), encode=("colour",)), "named by --drop-cols and --encode"),
        (dict(encode=("size",)), "--encode 'size': no such column"),
    ]:
        with pytest.raises(inputs.BadInput, match=re.escape(message)):
            inputs.read(path, **kwargs)


def test_a_file_that_is_not_utf8_suggests_its_encoding(tmp_path, capsys):
    """A Latin-1 CSV (Excel on Windows): one line naming the line and byte, suggesting
    --encoding latin-1, which reads it. Was "not a text file". A binary file is still not
    a text file; an unknown encoding and --encoding on a non-CSV file are refused."""
    path = tmp_path / "latin.csv"
    rows = ["température,pluie,ville"] + [f"{i},{i % 3},{'Orléans' if i % 2 else 'Metz'}"
                                          for i in range(10)]  # fmt: skip
    path.write_bytes("\n".join(rows).encode("latin-1") + b"\n")
    code, _, stderr = run(capsys, path, "--out", tmp_path / "o")
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and not (tmp_path / "o").exists()
    assert "latin.csv: line 1 (byte 0xe9) is not utf-8 text" in lines[0]
    assert "try --encoding latin-1" in lines[0]
    table = inputs.read(path, encoding="latin-1")
    assert sorted(set(table.labels)) == ["Metz", "Orléans"]
    assert any("header (température, pluie, ville)" in n for n in table.notes)
    binary = tmp_path / "image.csv"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(inputs.BadInput, match="not a text file"):
        inputs.read(binary)
    with pytest.raises(inputs.BadInput, match="--encoding klingon: no such text encoding"):
        inputs.read(path, encoding="klingon")
    svm = tmp_path / "a.svm"
    svm.write_text("1 1:2\n-1 1:3\n")
    for kwargs, message in [
        (dict(encoding="latin-1"), "--encoding applies to CSV files;"),
        (dict(drop_cols=("1",)), "--drop-cols applies to CSV and parquet"),
        (dict(encode=("1",)), "--encode applies to CSV and parquet"),
    ]:
        with pytest.raises(inputs.BadInput, match=message):
            inputs.read(svm, **kwargs)


def test_a_python_without_the_dependencies_says_how_to_install(tmp_path):
    """``python -m sdca_pegasos.compare`` under a Python lacking pandas: one line saying how to
    install (make venv, or pip install -e .), not a ModuleNotFoundError traceback."""
    import subprocess
    import sys

    code = ("import runpy, sys; sys.modules['pandas'] = None; "
            "runpy.run_module('sdca_pegasos.compare', run_name='__main__', "
            "alter_sys=True)")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", code, "x.csv", "--out", str(tmp_path / "o")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert "lacks pandas" in lines[0] and "make venv" in lines[0]
    assert (
        ".venv/bin/python -m sdca_pegasos.compare FILE --out DIR" in lines[0]
        and "pip install -e ." in lines[0]
    )
    assert not (tmp_path / "o").exists()
