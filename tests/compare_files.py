"""Files nobody here wrote, as a new user brings them to ``python -m sdca_pegasos.compare``.

Each builder writes one file with the tool a user would have used (scikit-learn's
``dump_svmlight_file``, pandas' ``to_csv``, ``numpy.savez``) and returns its path; ``small``
versions keep the test suite fast, the full ones are for trying by hand::

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
        *broken(folder).values(),
    ]


if __name__ == "__main__":
    for path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "compare_files")):
        print(path)
