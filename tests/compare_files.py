"""Files nobody here wrote, as a new user brings them to ``python -m sdca_pegasos.compare``.

Each builder writes one file with the tool a user would have used (scikit-learn's
``dump_svmlight_file``, pandas' ``to_csv`` and ``to_parquet``, ``numpy.savez``) and returns
its path; ``small`` versions keep the test suite fast, the full ones are for trying by hand.
The tables (issue: "compare reads what users have") are shaped like the statsmodels, ISLP and
pydataset tables a user tried: anes96 (the labels, ``vote``, in the middle; the last column a
logarithm), penguins (two rows of empty measurements, text columns, a blank ``sex``), flchain
(empty cells in three columns, a text column blank in most rows); pure noise, whose optimum
predicts the majority class::

    .venv/bin/python -m tests.compare_files DIR     # writes every file, full size, into DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_digits, load_wine


def digits_svmlight(folder: Path, small: bool = False) -> Path:
    """scikit-learn's digits, 3 against 8, as svmlight (zero-based: pixel 0 is never
    written, it is zero in every image)."""
    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, (3, 8)) if small else np.ones(len(y), bool)
    y = np.where(y[keep] == 3, 1, 0) if small else (y[keep] % 2 == 0).astype(int)
    path = folder / ("digits38.svm" if small else "digits_even.svm")
    dump_svmlight_file(X[keep], y, str(path))
    return path


def wine_frame() -> tuple[pd.DataFrame, str]:
    """Wine (178 × 13, unscaled: proline ~1000, hue ~1): class 0 against the other two, with
    string labels."""
    data = load_wine(as_frame=True)
    frame = data.frame.drop(columns="target")
    frame["cultivar"] = np.where(data.target == 0, "barolo", "other")
    return frame, "cultivar"


def wine_csv(folder: Path, index: bool) -> Path:
    """Wine as pandas writes it: ``to_csv()`` (index column first) or ``to_csv(index=False)``."""
    frame, _ = wine_frame()
    path = folder / ("wine_index.csv" if index else "wine.csv")
    frame.to_csv(path, index=index)
    return path


def hashed_text(folder: Path, small: bool = False, seed: int = 0) -> Path:
    """A text problem hashed to 2^18 (small: 2^12) features, as svmlight: documents drawn
    from two topic mixtures over a 3,000-word vocabulary."""
    from sklearn.feature_extraction.text import HashingVectorizer

    rng = np.random.default_rng(seed)
    n_docs, vocab = (300, 600) if small else (6000, 3000)
    words = np.array([f"w{i}" for i in range(vocab)])
    base = rng.dirichlet(np.full(vocab, 0.1))
    topics = [rng.dirichlet(np.full(vocab, 0.05)) for _ in range(2)]
    labels = rng.integers(0, 2, n_docs)
    docs = []
    for label in labels:
        mix = 0.7 * base + 0.3 * topics[label]
        length = rng.integers(20, 120)
        docs.append(" ".join(rng.choice(words, size=length, p=mix / mix.sum())))
    vectorizer = HashingVectorizer(n_features=2**12 if small else 2**18)
    X = vectorizer.transform(docs)
    path = folder / ("text_small.svm" if small else "text_hashed.svm")
    dump_svmlight_file(X, np.where(labels == 1, 1, -1), str(path))
    return path


def dense_npz(folder: Path, n: int = 6000, d: int = 2000, seed: int = 0) -> Path:
    """A dense n × d problem (Gaussian features, a noisy linear teacher) as ``np.savez``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 3.0 * rng.standard_normal(n) > 0, 1, -1)
    path = folder / f"dense_{n}x{d}.npz"
    np.savez(path, X=X, y=y)
    return path


def anes_frame(n: int = 240, seed: int = 0) -> pd.DataFrame:
    """anes96-like: integer survey answers (many-valued ``popul``, ``age`` and ``income``,
    7-point scales), ``vote`` (0/1, driven by ``selfLR``) in the middle, and last
    ``logpopul``, a logarithm: many values, with fractions."""
    rng = np.random.default_rng(seed)
    popul = rng.integers(0, 7300, n)
    self_lr = rng.integers(1, 8, n)
    frame = pd.DataFrame({
        "popul": popul, "TVnews": rng.integers(0, 8, n), "selfLR": self_lr,
        "age": rng.integers(19, 92, n), "educ": rng.integers(1, 8, n),
        "income": rng.integers(1, 25, n),
        "vote": (self_lr + rng.normal(0.0, 1.0, n) > 4).astype(int),
        "logpopul": np.log(popul + 0.1),
    })  # fmt: skip
    return frame


def penguins_frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    """penguins-like: ``species`` and ``island`` (text), four measurements empty in the same
    two rows, ``sex`` (text, blank in some rows), ``year`` (three values) last."""
    rng = np.random.default_rng(seed)
    species = np.array(["Adelie", "Chinstrap", "Gentoo"])[np.arange(n) % 3]
    big = species == "Gentoo"
    frame = pd.DataFrame({
        "species": species,
        "island": np.array(["Biscoe", "Dream", "Torgersen"])[rng.integers(0, 3, n)],
        "bill_length_mm": np.round(rng.normal(44, 3, n) + 4 * big, 1),
        "bill_depth_mm": np.round(rng.normal(17, 1, n) - 2 * big, 1),
        "flipper_length_mm": rng.normal(200, 8, n).round() + 15 * big,
        "body_mass_g": rng.normal(4000, 300, n).round() + 1000 * big,
        "sex": np.array(["female", "male"], dtype=object)[rng.integers(0, 2, n)],
        "year": 2007 + np.arange(n) % 3,
    })  # fmt: skip
    measurements = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
    frame.loc[[3, 71], measurements] = np.nan
    frame.loc[[3, 8, 71, 90, 101], "sex"] = None
    return frame


def flchain_frame(n: int = 200, seed: int = 0) -> pd.DataFrame:
    """flchain-like: ``kappa``, ``lambda`` and ``creatinine`` with empty cells (3, 2 and 11
    rows), ``sex`` text, ``death`` (0/1) and last ``chapter``, the cause of death: text, 12
    values, blank for the living."""
    rng = np.random.default_rng(seed)
    age = rng.integers(50, 100, n)
    death = (age + rng.normal(0, 10, n) > 80).astype(int)
    causes = np.array([f"cause {c}" for c in "ABCDEFGHIJKL"], dtype=object)
    frame = pd.DataFrame({
        "age": age, "sex": np.array(["F", "M"])[rng.integers(0, 2, n)],
        "sample.yr": rng.integers(1995, 2004, n), "kappa": rng.gamma(2.0, 0.7, n).round(2),
        "lambda": rng.gamma(2.5, 0.6, n).round(2), "flc.grp": rng.integers(1, 11, n),
        "creatinine": rng.normal(1.1, 0.3, n).round(1), "mgus": rng.integers(0, 2, n),
        "futime": rng.integers(0, 5000, n), "death": death,
        "chapter": np.where(death == 1, causes[np.arange(n) % 12], None),
    })  # fmt: skip
    frame.loc[[5, 50, 150], "kappa"] = np.nan
    frame.loc[[50, 77], "lambda"] = np.nan
    frame.loc[[2, 11, 23, 50, 64, 99, 120, 133, 160, 181, 199], "creatinine"] = np.nan
    return frame


def noise_csv(folder: Path, n: int = 80, seed: int = 0) -> Path:
    """Three features of pure noise and labels 'common' (90 %) and 'rare' (10 %): at a large
    λ the optimum predicts 'common' for every sample."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.standard_normal((n, 3)), columns=["a", "b", "c"])
    frame["label"] = np.where(np.arange(n) % 10 == 0, "rare", "common")
    path = folder / "noise.csv"
    frame.to_csv(path, index=False)
    return path


def tables(folder: Path) -> dict[str, Path]:
    """The tables a user brings, written as users write them (pandas, default index and
    all): ``anes96.csv``, ``anes96.tsv``, ``anes96_semicolon.csv`` (``sep=";"``,
    ``decimal=","``: Excel's CSV in much of Europe), ``anes96.parquet``, ``penguins.csv``,
    ``penguins.parquet``, ``flchain.csv``, ``noise.csv``."""
    anes, penguins, flchain = anes_frame(), penguins_frame(), flchain_frame()
    files = {}
    for name, frame, write in [
        ("anes96.csv", anes, lambda f, p: f.to_csv(p)),
        ("anes96.tsv", anes, lambda f, p: f.to_csv(p, sep="\t")),
        ("anes96_semicolon.csv", anes, lambda f, p: f.to_csv(p, sep=";", decimal=",")),
        ("anes96.parquet", anes, lambda f, p: f.to_parquet(p)),
        ("penguins.csv", penguins, lambda f, p: f.to_csv(p)),
        ("penguins.parquet", penguins, lambda f, p: f.to_parquet(p)),
        ("flchain.csv", flchain, lambda f, p: f.to_csv(p)),
    ]:
        write(frame, folder / name)
        files[name] = folder / name
    files["noise.csv"] = noise_csv(folder)
    return files


def broken(folder: Path) -> dict[str, Path]:
    """Files a user gets wrong, by name: what each should be refused for is in the tests."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    files = {}

    def write(name: str, text: str | bytes) -> None:
        path = folder / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        files[name] = path

    write("garbage.svm", b"\x00\x01 this is not : svmlight\n{}\n")
    write("empty.csv", "")
    write("garbage.npz", bytes(rng.integers(0, 256, 300, dtype=np.uint8)))
    np.save(folder / "pickled.npy", np.array([{"X": 1}], dtype=object), allow_pickle=True)
    (folder / "pickled.npy").rename(folder / "pickled.npz")
    files["pickled.npz"] = folder / "pickled.npz"
    np.savez(folder / "objects.npz", X=X, y=np.array([None] * 12, dtype=object))
    files["objects.npz"] = folder / "objects.npz"
    lines = ["a,b,c,label"] + [f"{x[0]},{x[1]},{x[2]},{t}" for x, t in zip(X, y, strict=True)]
    lines[5] = lines[5].replace(lines[5].split(",")[1], "oops", 1)
    write("word_in_numbers.csv", "\n".join(lines) + "\n")
    lines = ["a,b,c,label"] + [f"{x[0]},{x[1]},{x[2]},{t}" for x, t in zip(X, y, strict=True)]
    lines[4] = lines[4].replace(lines[4].split(",")[2], "inf", 1)
    write("inf_in_numbers.csv", "\n".join(lines) + "\n")
    lines = [f"{x[0]},{x[1]},{x[2]},{t}" for x, t in zip(X, y, strict=True)]
    lines[3] = ",".join(lines[3].split(",")[:2]) + ",," + lines[3].split(",")[3]
    write("missing_value.csv", "\n".join(lines) + "\n")
    lines = [f"{x[0]},{x[1]},{x[2]},{i % 3}" for i, x in enumerate(X)]
    write("three_labels.csv", "\n".join(lines) + "\n")
    write("one_class.csv", "\n".join(f"{x[0]},{x[1]},1" for x in X) + "\n")
    write("one_column.csv", "\n".join(f"{x[0]}" for x in X) + "\n")
    write("ragged.csv", "1,2,1\n3,4,0\n5,6,7,1\n")
    huge = X * 1e200
    np.savez(folder / "huge.npz", X=huge, y=y)
    files["huge.npz"] = folder / "huge.npz"
    np.savez(folder / "nan.npz", X=np.where(X > 1.0, np.nan, X), y=y)
    files["nan.npz"] = folder / "nan.npz"
    sp.save_npz(folder / "sparse_no_labels.npz", sp.csr_matrix(X))
    files["sparse_no_labels.npz"] = folder / "sparse_no_labels.npz"
    return files


def write_all(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [
        digits_svmlight(folder),
        digits_svmlight(folder, small=True),
        wine_csv(folder, index=True),
        wine_csv(folder, index=False),
        hashed_text(folder),
        dense_npz(folder),
        *tables(folder).values(),
        *broken(folder).values(),
    ]


if __name__ == "__main__":
    for path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "compare_files")):
        print(path)
