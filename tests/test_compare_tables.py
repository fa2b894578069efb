"""``python -m sdca_pegasos.compare`` reads what users have, and says when the optimum is
trivial (the issue of ten real tables: statsmodels, ISLP and pydataset tables exported with
pandas).

Finding 4: a TSV, a semicolon CSV (with decimal commas) and parquet were refused as svmlight
or as "one column only"; now each reads as the CSV does, every guess said, ``--sep`` and
``--decimal`` override. Finding 5: anes96's last column (a logarithm) was read as 233 labels
and refused without naming ``--label-col``; now the label column is questioned, naming the
likely ones. Finding 6: empty cells were refused one column per run, with no way to drop the
rows; now one refusal names every column, ``--dropna`` leaves the rows out (said, with the
count) and ``--encode`` makes a blank a value of its own. Finding 9: on flchain the optimum
predicted the majority class and "best test error within 2 epochs" was judged "holds"; now
the summary says so and that claim is not tested. The files are built by
:mod:`tests.compare_files` as pandas writes them.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import matplotlib.figure
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file

from sdca_pegasos import data
from sdca_pegasos.compare import app, folder, inputs, outputs
from sdca_pegasos.compare.__main__ import main, parser, settings_of
from tests import compare_files

ANES = compare_files.anes_frame()
FLCHAIN = compare_files.flchain_frame()
PENGUINS = compare_files.penguins_frame()


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """compare registers the user's file as a dataset of this process: keep it local."""
    monkeypatch.setattr(data.registry, "DATASETS", dict(data.registry.DATASETS))


@pytest.fixture
def no_rendering(monkeypatch):
    """Figures are saved as empty files (not rendered: fast)."""
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda self, f, *a, **k: None)


@pytest.fixture
def files(tmp_path) -> dict[str, Path]:
    return compare_files.tables(tmp_path)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def refused(capsys, *argv) -> str:
    """The one line of a refusal (status 2, nothing on stdout)."""
    code, stdout, stderr = run(capsys, *argv)
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and not stdout, stderr
    return lines[0]


# ------------------------------------------------------------------ 4: what users have
def test_tsv_semicolon_csv_and_parquet_read_as_the_csv_does(files, tmp_path):
    """anes96 as pandas writes it: CSV, TSV, a semicolon CSV with decimal commas (Excel's in
    much of Europe), parquet (.parquet and .pq): the same samples and labels, bit for bit;
    each guess said (no separator note where the suffix says it). Was: the TSV refused as
    svmlight, the semicolon CSV "one column only", the parquet "not readable as svmlight"."""
    shutil.copy(files["anes96.parquet"], tmp_path / "anes96.pq")
    expected = ANES.drop(columns="vote").to_numpy(np.float64)
    notes = {}
    for name in ("anes96.csv", "anes96.tsv", "anes96_semicolon.csv", "anes96.parquet",
                 "anes96.pq"):  # fmt: skip
        table = inputs.read(tmp_path / name, label_col="vote")
        np.testing.assert_array_equal(table.X, expected, err_msg=name)
        np.testing.assert_array_equal(table.labels, ANES["vote"].to_numpy(np.float64))
        notes[name] = table.notes
    assert not any("separated" in n for n in notes["anes96.csv"] + notes["anes96.tsv"])
    semicolon = notes["anes96_semicolon.csv"]
    assert semicolon[0] == (
        "CSV: fields separated by semicolons (every one of its first lines splits alike on "
        "them; --sep to name another separator)."
    )
    example = repr(float(ANES["logpopul"].iloc[0])).replace(".", ",")
    assert semicolon[1] == (
        f"CSV: numbers with decimal commas ('{example}' is read as {example.replace(',', '.')}"
        "; --decimal . if its commas are not decimal marks)."
    )
    assert any("index pandas' to_csv writes; dropped" in n for n in notes["anes96.tsv"])
    assert notes["anes96.pq"][0].startswith("parquet: 240 rows, columns popul, TVnews")
    assert notes["anes96.pq"][1] == "parquet: labels in column 7 of 8 ('vote')."


def test_separators_are_sniffed_or_named(tmp_path, capsys):
    """A .txt of bars is a table, a .txt of index:value pairs svmlight (as before), each said;
    --sep names a separator (and makes a .txt a table), --decimal the decimal mark; each
    refused where it cannot apply, naming the fix."""
    frame = ANES.iloc[:30]
    frame.to_csv(tmp_path / "bars.txt", sep="|", index=False)
    table = inputs.read(tmp_path / "bars.txt", label_col="vote")
    np.testing.assert_array_equal(table.X, frame.drop(columns="vote").to_numpy(np.float64))
    assert table.notes[:2] == [
        "CSV: bars.txt is read as CSV: its lines hold the same number of separated fields, "
        "no index:value pairs (its suffix, .txt, does not say which format it is).",
        "CSV: fields separated by bars (|) (every one of its first lines splits alike on them; "
        "--sep to name another separator).",
    ]
    X = frame.drop(columns="vote").to_numpy(np.float64)
    dump_svmlight_file(X, frame["vote"], str(tmp_path / "anes.txt"), zero_based=False)
    svm = inputs.read(tmp_path / "anes.txt")
    np.testing.assert_allclose(svm.X.toarray(), X)
    assert svm.notes[0].startswith("svmlight: anes.txt is read as svmlight: its lines hold")
    # named: a .dat separated by spaces (not sniffed), refused as svmlight naming --sep
    (tmp_path / "odd.dat").write_text("1 2 0\n4  5 1\n7 8 0\n")
    with pytest.raises(inputs.BadInput) as info:
        inputs.read(tmp_path / "odd.dat")
    assert str(info.value).startswith(f"{tmp_path / 'odd.dat'}: not readable as a svmlight")
    assert str(info.value).endswith("if it is a table, name its field separator with --sep")
    named = inputs.read(tmp_path / "odd.dat", sep=" ")
    assert named.X.tolist() == [[1.0, 2.0], [4.0, 5.0], [7.0, 8.0]]
    assert named.notes[:2] == [
        "CSV: odd.dat is read as CSV: --sep names its field separator (its suffix, .dat, does "
        "not say which format it is).",
        "CSV: fields separated by spaces (--sep).",
    ]
    # a decimal-comma file read with --decimal .: its text is named, with the fix
    with pytest.raises(inputs.BadInput) as info:
        inputs.read(_semicolon(tmp_path), decimal=".")
    assert str(info.value).endswith(
        "one-hot encode it with --encode logpopul ('8,7' reads as a number with a decimal "
        "comma: --decimal ,)"
    )
    svmlight = tmp_path / "small.svm"
    svmlight.write_text("1 1:2\n-1 1:3\n")
    for kwargs, message in [
        (dict(sep=";"), f"--sep applies to CSV files; {svmlight} is read as svmlight"),
        (dict(decimal=","), "--decimal applies to CSV files"),
        (dict(dropna=True), "--dropna applies to CSV and parquet files"),
    ]:
        with pytest.raises(inputs.BadInput, match=message):
            inputs.read(svmlight, **kwargs)
    with pytest.raises(inputs.BadInput, match="--decimal , but its fields are separated by "
                       "commas too; name the separator with --sep"):  # fmt: skip
        inputs.read(tmp_path / "bars.txt", sep=",", decimal=",")
    assert settings_of(parser().parse_args(["f", "--out", "o", "--sep", "tab"])).sep == "\t"
    code, _, stderr = run(capsys, "f.csv", "--out", tmp_path / "o", "--sep", "ab")
    assert code == 2 and "argument --sep: expected one character that separates fields" in stderr


def _semicolon(folder: Path) -> Path:
    path = folder / "eu.csv"
    path.write_text("popul;logpopul;vote\n12;8,7;0\n30;3,4;1\n5;2,5;0\n")
    return path


# ------------------------------------------------------------------ 5: the label column
def test_a_many_valued_last_column_is_questioned(files, tmp_path, capsys):
    """anes96's last column (a logarithm, 233 values with fractions) is not taken for labels
    unless the user says so: one line naming --label-col and the likely columns (2 to 10
    values, fewest first), nothing written; --label-col vote reads; --classes/--positive
    make the column meant. Was "labels are not two-valued: 233 distinct labels"."""
    out = tmp_path / "out"
    line = refused(capsys, files["anes96.csv"], "--out", out)
    k = ANES["logpopul"].nunique()
    assert (
        f"anes96.csv: the last column, column 9 ('logpopul'), holds {k} distinct values, "
        "numbers with fractions (e.g. "
    ) in line
    assert (
        "so it is likely a feature; name the label column with --label-col (likely: vote (2 "
        "values), selfLR (7 values), educ (7 values), TVnews (8 values)), or, if this column is "
        "the label, keep two of its values with --classes A B or take one against the rest "
        "with --positive A"
    ) in line
    assert not out.exists()
    for name in ("anes96.tsv", "anes96_semicolon.csv", "anes96.parquet"):
        assert "likely: vote (2 values)" in refused(capsys, files[name], "--out", out), name
    assert inputs.read(files["anes96.csv"], label_col="vote").X.shape == (240, 7)
    meant = inputs.read(files["anes96.csv"], labels_named=True)  # --positive 2.5 on it
    np.testing.assert_array_equal(meant.labels, ANES["logpopul"].to_numpy())
    # the threshold: 10 integer values are labels (the normal refusal), 11 are questioned
    for values, questioned in ((10, False), (11, True)):
        path = tmp_path / f"{values}.csv"
        pd.DataFrame({"x": np.arange(44.0), "flag": [0, 1] * 22,
                      "grade": np.arange(44) % values}).to_csv(path, index=False)  # fmt: skip
        if questioned:
            with pytest.raises(inputs.BadInput, match=r"holds 11 distinct values: more than "
                               r".* \(likely: flag \(2 values\)\)"):  # fmt: skip
                inputs.read(path)
        else:
            table = inputs.read(path)
            with pytest.raises(inputs.BadInput, match="not two-valued: 10 distinct labels"):
                inputs.binary(path, table)
    plain = tmp_path / "plain.csv"
    plain.write_text("".join(f"{i % 2},{i},{1.5 * i}\n" for i in range(12)))
    with pytest.raises(inputs.BadInput, match=r"the last column, column 3, holds 12 distinct "
                       r".*likely: 0 \(column 1, 2 values\)"):  # fmt: skip
        inputs.read(plain)


# ------------------------------------------------------------------ 6: empty cells
def test_every_column_with_empty_cells_is_named_in_one_refusal(files, tmp_path, capsys):
    """flchain: kappa, lambda and creatinine have empty cells (3, 2 and 11 rows): one line
    names all three with their counts and first lines, the rows they empty together, and
    both fixes (--dropna, --drop-cols), and the text columns besides. Was one column per
    run, three runs, and no way to drop the rows."""
    path = files["flchain.csv"]
    line = refused(capsys, path, "--out", tmp_path / "o", "--label-col", "death")
    empty = FLCHAIN[["kappa", "lambda", "creatinine"]].isna()
    first = [int(np.argmax(empty[c])) + 2 for c in empty]  # the file's line (header: line 1)
    assert line.startswith(
        f"compare: {path}: empty cells in 3 columns: column 5 ('kappa') in 3 rows (first: line "
        f"{first[0]}), column 6 ('lambda') in 2 rows (first: line {first[1]}), column 8 "
        f"('creatinine') in 11 rows (first: line {first[2]}); every feature and the label need "
        f"a value: leave out the rows with an empty cell ({int(empty.any(axis=1).sum())} of "
        "200) with --dropna, or the columns with --drop-cols kappa lambda creatinine, or fill "
        f"them in; also, line 2, column 3 ('sex') is {FLCHAIN['sex'].iloc[0]!r}, and 1 other "
        "column holds text too (column 12 ('chapter'))"
    ), line
    assert line.endswith("one-hot encode them with --encode sex chapter")
    assert empty.any(axis=1).sum() == 14


def test_dropna_leaves_out_the_rows_and_says_so(files):
    """--dropna leaves out exactly the rows with an empty cell in a feature or the label
    (pandas' dropna on those columns), said with the count and the columns; --encode makes
    a blank a value of its own (chapter is blank for the living). Was: --encode refused a
    column with blanks, and no way to drop rows."""
    table = inputs.read(
        files["flchain.csv"], label_col="death", dropna=True, encode=("sex", "chapter")
    )
    kept = FLCHAIN.dropna(subset=["kappa", "lambda", "creatinine"])
    assert table.X.shape == (186, 8 + 2 + 13)  # 8 numbers, sex and chapter one-hot
    np.testing.assert_array_equal(table.X[:, 0], kept["age"])
    np.testing.assert_array_equal(table.X[:, 4:6], kept[["kappa", "lambda"]])
    np.testing.assert_array_equal(table.labels, kept["death"].to_numpy(np.float64))
    np.testing.assert_array_equal(table.X[:, 1], kept["sex"] == "F")  # sex=F
    np.testing.assert_array_equal(table.X[:, 10], kept["chapter"].isna())  # chapter=<blank>
    np.testing.assert_array_equal(table.X[:, 11], kept["chapter"] == "cause A")
    assert (
        "CSV: --dropna: 14 of 200 rows left out for their empty cells (rows with one, per "
        "column: 'kappa' 3, 'lambda' 2, 'creatinine' 11)." in table.notes
    )
    blanks = int(kept["chapter"].isna().sum())
    (note,) = [n for n in table.notes if n.startswith("CSV: --encode chapter:")]
    assert note.startswith(
        "CSV: --encode chapter: one-hot, 13 features (chapter=<blank>, chapter=cause A, "
        f"chapter=cause B, chapter=cause C, chapter=cause D, chapter=cause E, ...); a blank "
        f"cell is a value of its own (chapter=<blank>, {blanks} rows); the values are those "
        "of every row"
    )
    # an empty label is a missing value too: refused by name, or its row left out
    path = files["penguins.csv"]
    with pytest.raises(inputs.BadInput, match=r"column 8 \('sex'\), the labels, in 5 rows "
                       r"\(first: line 5\)"):  # fmt: skip
        inputs.read(path, label_col="sex", drop_cols=("species", "island"))
    table = inputs.read(path, label_col="sex", drop_cols=("species", "island"), dropna=True)
    assert table.X.shape == (115, 5) and set(table.labels) == {"female", "male"}
    nothing = inputs.read(files["noise.csv"], dropna=True)
    assert "CSV: --dropna: no row has an empty cell; none left out." in nothing.notes


def test_parquet_nulls_and_its_stored_index(files, tmp_path):
    """In parquet a null is an empty cell (named by row), and the DataFrame index pandas
    stored is said not to be read."""
    path = files["penguins.parquet"]
    with pytest.raises(inputs.BadInput, match=r"column 3 \('bill_length_mm'\) in 2 rows "
                       r"\(first: row 4\)"):  # fmt: skip
        inputs.read(path, label_col="species", encode=("island", "sex"))
    table = inputs.read(path, label_col="species", encode=("island", "sex"), dropna=True)
    from_csv = inputs.read(files["penguins.csv"], label_col="species", encode=("island", "sex"),
                           dropna=True)  # fmt: skip
    np.testing.assert_array_equal(table.X, from_csv.X)
    np.testing.assert_array_equal(table.labels, from_csv.labels)
    indexed = tmp_path / "indexed.parquet"
    PENGUINS.dropna().set_index("island").to_parquet(indexed)
    table = inputs.read(indexed, label_col="species", encode=("sex",))
    assert table.notes[0] == (
        "parquet: the DataFrame index stored with the table ('island') is not read "
        "(DataFrame.reset_index() before to_parquet makes it a column)."
    )
    assert table.X.shape == (len(PENGUINS.dropna()), 5 + 2)  # 5 numbers, sex one-hot


def test_penguins_with_dropna_end_to_end(files, tmp_path, capsys, no_rendering):
    """The penguins run the user wanted: --dropna and --encode instead of dropping
    bill_length_mm; the summary says which rows went, the command and the manifest carry
    --dropna (resuming needs it; without it DIR is refused as other options)."""
    out = tmp_path / "out"
    argv = [files["penguins.csv"], "--out", out, "--label-col", "species", "--classes",
            "Adelie", "Gentoo", "--encode", "island", "sex", "--seeds", 1, "--max-epochs", 2,
            "--solvers", "sdca-perm", "pegasos", "--quiet"]  # fmt: skip
    code, _, stderr = run(capsys, *argv, "--dropna")
    assert code == 0, stderr
    text = (out / "SUMMARY.md").read_text()
    assert (
        "- CSV: --dropna: 2 of 120 rows left out for their empty cells (rows with one, per "
        "column: 'bill_length_mm' 2, 'bill_depth_mm' 2, 'flipper_length_mm' 2, 'body_mass_g' "
        "2).\n"
    ) in text
    assert " --dropna` — read from the reports" in text  # the command, resumable
    assert json.loads((out / "manifest.json").read_text())["options"]["dropna"] is True
    assert run(capsys, *argv, "--dropna")[0] == 0  # resumes
    line = refused(capsys, *argv, "--drop-cols", "bill_length_mm", "bill_depth_mm",
                   "flipper_length_mm", "body_mass_g")  # fmt: skip
    assert "holds compare's outputs of other options" in line


def test_new_options_are_settings_and_old_folders_resume(tmp_path):
    """--sep, --decimal and --dropna change what DIR holds: in its manifest when set, and a
    DIR made with other values is refused; at their defaults they are left out, so that a
    DIR made before they existed resumes."""
    path = tmp_path / "f.csv"
    plain = app.Settings(path, tmp_path / "out")
    assert not {"sep", "decimal", "dropna"} & set(plain.identity())
    chosen = dataclasses.replace(plain, sep="\t", decimal=",", dropna=True)
    assert {k: chosen.identity()[k] for k in ("sep", "decimal", "dropna")} == {
        "sep": "\t", "decimal": ",", "dropna": True
    }  # fmt: skip
    assert chosen.command().endswith("--sep tab --decimal , --dropna")
    out = plain.out
    out.mkdir()
    (out / "SUMMARY.md").write_text("made before --dropna existed")
    older = ("file", "out", "certify_budget", "sep", "decimal", "dropna")
    before = {  # what compare recorded before these options existed
        f.name: getattr(plain, f.name) for f in dataclasses.fields(plain) if f.name not in older
    }
    folder.write_manifest(out, folder.manifest_of(path, "0" * 64, before, plain.command()))
    same = folder.manifest_of(path, "0" * 64, plain.identity(), plain.command())
    assert folder.check(out, same, overwrite=False) is None
    other = folder.manifest_of(path, "0" * 64, chosen.identity(), chosen.command())
    with pytest.raises(inputs.BadInput, match="holds compare's outputs of other options"):
        folder.check(out, other, overwrite=False)


# ------------------------------------------------------------------ 9: a trivial optimum
def _split(y_train, y_test=None):
    return SimpleNamespace(
        y_train=np.asarray(y_train), y_test=None if y_test is None else np.asarray(y_test),
        X_test=None if y_test is None else np.zeros((len(y_test), 1)),
    )  # fmt: skip


def test_one_class_is_read_exactly_from_the_optimums_errors():
    """k errors among n test samples, p of them +1: the error of predicting −1 for every
    sample when k = p, +1 when k = n − p; one error more or less is not; without a test set
    the training error is read; a record not certified is not called the optimum."""
    split = _split(np.r_[np.ones(6), -np.ones(54)], np.r_[np.ones(2), -np.ones(18)])
    record = {"certified": True, "test_error": 2 / 20, "train_error": 0.0}
    sentence, reason = outputs.one_class(record, split)
    assert sentence == (
        "The optimum does no better on the test samples than predicting one class: its test "
        "error, 10.0 % (2 of 20), is exactly that of predicting −1, the majority class, for "
        "every sample (the base rate). The features may not separate the classes at this λ (a "
        "smaller --lmbd, or other features, may); the claims about errors are not judged."
    )
    assert reason == (
        "the test error of the optimum, 10.0 % (2 of 20), is that of predicting −1, the "
        "majority class, for every sample: here errors do not show what a solver learnt"
    )
    for wrong in (1, 3, 17, 19):
        assert outputs.one_class({**record, "test_error": wrong / 20}, split) == ("", "")
    minority, _ = outputs.one_class({**record, "test_error": 18 / 20}, split)
    assert "predicting +1, the minority class, for every sample (above the base rate of " \
        "10.0 %)" in minority  # fmt: skip
    balanced = _split(np.r_[np.ones(5), -np.ones(5)])
    sentence, _ = outputs.one_class({"certified": False, "train_error": 0.5}, balanced)
    assert sentence.startswith(
        "The exact engine's best point (not certified) does no better on the training samples "
        "than predicting one class: its training error, 50.0 % (5 of 10), is exactly that of "
        "predicting either class for every sample (the base rate: the classes are balanced)."
    )
    assert outputs.one_class({"certified": True, "train_error": 0.4}, balanced) == ("", "")


def test_an_optimum_of_one_class_is_said_and_its_error_claims_not_judged(
    files, tmp_path, capsys, no_rendering
):
    """Pure noise, 90 % 'common', λ = 1: the optimum does no better than 'common' (−1) for all.
    The summary says so, the terminal warns, and "SDCA reaches its best test error within 2
    epochs" is not tested (its values still shown). Was judged "holds", the summary silent.
    """
    out = tmp_path / "out"
    code, _, stderr = run(capsys, files["noise.csv"], "--out", out, "--lmbd", 1, "--seeds", 1,
                          "--max-epochs", 2, "--solvers", "sdca-perm", "pegasos")  # fmt: skip
    assert code == 0, stderr
    record = json.loads(next((out / "optima").glob("*.json")).read_text())
    assert record["certified"] and record["test_error"] == 0.1  # 2 of 20: the base rate
    text = (out / "SUMMARY.md").read_text()
    assert (
        "**One class.** The optimum does no better on the test samples than predicting one "
        "class: its test error, 10.0 % (2 of 20), is exactly that of predicting −1, the "
        "majority class, for every sample (the base rate)."
    ) in text
    (row,) = [r for r in text.splitlines() if r.startswith("| SDCA reaches its best test")]
    cells = row.split(" | ")
    assert cells[2] == "SDCA-Perm: 10.0 % after 2 epochs, best 10.0 % (epoch 1)"
    assert cells[3].startswith("not tested<br>")
    assert cells[4].startswith("the test error of the optimum, 10.0 % (2 of 20), is that")
    warned = [line for line in stderr.splitlines() if "does no better" in line]
    assert warned == [
        "warning: at λ = 1: the optimum does no better on the test samples than predicting "
        "one class: its test error, 10.0 % (2 of 20), is exactly that of predicting −1, the "
        "majority class, for every sample (the base rate). The features may not separate the "
        "classes at this λ (a smaller --lmbd, or other features, may); the claims about "
        "errors are not judged."
    ]


def test_one_class_is_read_from_the_optimums_predictions_where_recorded():
    """A record that counts the samples its optimum predicts +1 is read by that count, not by
    its error: 0 of 20 is −1 for every sample; 3 of 20 predicted +1 is not one class even
    where 2 errors equal the base rate (the error proxy alone would say it is); balanced
    classes and all predicted +1 name +1, not "either class"."""
    split = _split(np.r_[np.ones(6), -np.ones(54)], np.r_[np.ones(2), -np.ones(18)])
    record = {"certified": True, "test_error": 2 / 20, "train_error": 0.0}
    sentence, _ = outputs.one_class({**record, "test_predicted_positive": 0}, split)
    assert "predicting −1, the majority class, for every sample (the base rate)" in sentence
    assert outputs.one_class({**record, "test_predicted_positive": 3}, split) == ("", "")
    assert outputs.one_class(record, split)[0] == sentence  # an older record: the proxy
    balanced = _split(np.r_[np.ones(5), -np.ones(5)])
    record = {"certified": True, "train_error": 0.5, "train_predicted_positive": 10}
    sentence, _ = outputs.one_class(record, balanced)
    assert "predicting +1 for every sample (the base rate: the classes are balanced)" in sentence
