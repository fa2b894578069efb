"""``python -m experiments compare FILE --out DIR``: end to end on a small svmlight file, the
three input formats, and bad files (one line naming the file, status 2, nothing written)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import data
from experiments.__main__ import main
from experiments.compare import BadInputError, load_file


def _problem(n=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random(X.shape) < 0.5] = 0.0
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 3, 7)
    return X, y


@pytest.fixture
def svmlight_file(tmp_path):
    X, y = _problem()
    path = tmp_path / "small.svm"
    dump_svmlight_file(X, y, str(path))
    return path


def test_compare_end_to_end(svmlight_file, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(data.registry, "DATASETS", dict(data.registry.DATASETS))
    out = tmp_path / "out"
    argv = [
        "compare",
        str(svmlight_file),
        "--out",
        str(out),
        "--seeds",
        "2",
        "--max-epochs",
        "3",
        "--lmbd",
        "0.05",
        "0.01",
        "--quiet",
    ]
    assert main(argv) == 0
    report = pd.read_parquet(out / "compare.parquet")
    assert set(report["config"]) == {
        "SDCA-Perm",
        "SDCA-Perm + SGD init",
        "Pegasos",
        "Mini-batch Pegasos k=8",
        "ASDCA paper θ",
    }
    assert sorted(report["lmbd"].unique()) == [0.01, 0.05]
    assert set(report["epoch"]) == {0, 1, 2, 3}  # every epoch stored
    assert report.groupby(["lmbd", "config"])["seed_index"].nunique().eq(2).all()
    assert (report.loc[report["epoch"] > 0, "cpu_time"] >= 0).all()
    for stem in ("loss_error", "objective", "suboptimality", "duality_gap"):
        for lmbd in ("0.05", "0.01"):
            for ext in ("png", "pdf"):
                assert (out / f"{stem}_lmbd{lmbd}.{ext}").stat().st_size > 0
    text = (out / "SUMMARY.md").read_text()
    assert "SDCA converges faster than Pegasos" in text and "λ = 0.05" in text
    assert "(sparse CSR)" in text and "densified" not in text  # every solver takes CSR
    # resumable: the same command reuses every stored run (identical rows, timings included)
    assert main(argv) == 0
    again = pd.read_parquet(out / "compare.parquet")
    pd.testing.assert_frame_equal(report, again)


def test_sparse_file_is_never_densified(svmlight_file, tmp_path, monkeypatch):
    """A svmlight file stays CSR from the loader to every solver: no dense copy of the data
    is made. (The exact engine's Newton step may densify a Gram block of free rows, square
    and of at most n_train rows, never an array with the data's columns.)"""
    monkeypatch.setattr(data.registry, "DATASETS", dict(data.registry.DATASETS))
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
    argv = ["compare", str(svmlight_file), "--out", str(tmp_path / "o"), "--seeds", "1"]
    assert main([*argv, "--max-epochs", "2", "--lmbd", "0.05", "--quiet"]) == 0
    assert "(sparse CSR)" in (tmp_path / "o" / "SUMMARY.md").read_text()


def test_formats_agree(tmp_path):
    X, y = _problem(n=20)
    dump_svmlight_file(X, y, str(tmp_path / "a.svm"))
    np.savetxt(tmp_path / "b.csv", np.c_[X, y], delimiter=",", header="f,f,f,f,f,f,label")
    np.savez(tmp_path / "c.npz", X=X, y=y)
    Xs = sp.csr_matrix(X)
    np.savez(tmp_path / "d.npz", data=Xs.data, indices=Xs.indices, indptr=Xs.indptr,
             shape=Xs.shape, format="csr", y=y)  # fmt: skip
    expected = np.where(y == 7, 1.0, -1.0)
    for name in ("a.svm", "b.csv", "c.npz", "d.npz"):
        Xr, yr = load_file(tmp_path / name)
        dense = Xr.toarray() if sp.issparse(Xr) else Xr
        np.testing.assert_allclose(dense, X, err_msg=name)
        np.testing.assert_array_equal(yr, expected, err_msg=name)
    assert sp.issparse(load_file(tmp_path / "a.svm")[0])


def _write_bad(tmp_path, case):
    X, y = _problem(n=12)
    if case == "garbage":
        path = tmp_path / "garbage.svm"
        path.write_bytes(b"\x00\x01 this is not : svmlight\n{}\n")
    elif case == "empty":
        path = tmp_path / "empty.csv"
        path.write_text("")
    elif case == "one class":
        path = tmp_path / "one.svm"
        dump_svmlight_file(X, np.ones(12), str(path))
    elif case == "three labels":
        path = tmp_path / "three.csv"
        np.savetxt(path, np.c_[X, np.arange(12) % 3], delimiter=",")
    elif case == "nan":
        path = tmp_path / "nan.csv"
        X[2, 1] = np.nan
        np.savetxt(path, np.c_[X, y], delimiter=",")
    elif case == "nan label":
        path = tmp_path / "nanlabel.npz"
        np.savez(path, X=X, y=np.r_[y[:-1], np.nan])
    elif case == "missing":
        path = tmp_path / "nowhere.svm"
    return path


BAD = {
    "garbage": "not readable as a svmlight/libsvm file",
    "empty": "empty",
    "one class": "one class only",
    "three labels": "not two-valued",
    "nan": "NaN or infinite",
    "nan label": "NaN or infinite",
    "missing": "no such file",
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_file(case, tmp_path, capsys):
    path = _write_bad(tmp_path, case)
    with pytest.raises(BadInputError, match=BAD[case]):
        load_file(path)
    out = tmp_path / "out"
    assert main(["compare", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and BAD[case] in err[0], err
    assert not out.exists()


@pytest.mark.parametrize(
    "args", [["--seeds", "0"], ["--max-epochs", "x"], ["--lmbd", "-1"], ["--test-size", "1"]]
)
def test_bad_arguments(args, svmlight_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(svmlight_file), "--out", str(tmp_path / "o"), *args])
    assert exc.value.code == 2
    assert not (tmp_path / "o").exists()
