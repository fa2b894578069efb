"""A user's file, read as the user means it: svmlight/libsvm, ``.npz`` or CSV.

Every guess is stated (:attr:`Table.notes`): the header line of a CSV, pandas' index
column dropped, which column holds the labels, whether svmlight indices start at 0 or 1,
which label became +1. Every problem is one line naming the file (and, in a CSV, the file's
own line and column numbers): :class:`BadInput`.

- **CSV** (``.csv``): comma-separated numbers, one sample per line, the labels in one column
  (``label_col``: a header name, or an index, 0 the first column of the file and -1 the last,
  the default). A first line with a word where the other lines hold numbers is a header. A
  first column with an empty name holding distinct integers is the index pandas'
  ``DataFrame.to_csv`` writes by default: dropped, with a note. Labels may be numbers or
  strings. Text in a feature column is refused, naming the columns and both fixes:
  ``drop_cols`` leaves columns out, ``encode`` one-hot encodes them (one 0/1 feature per
  value; the values are those of every row, the test rows' included: the encoding reads no
  label, so nothing of the split leaks). ``encoding`` (default UTF-8): a file that does not
  decode is refused with the line, and ``--encoding latin-1`` suggested.
- **.npz**: arrays ``X`` (dense) and ``y`` (or ``labels``), or a sparse matrix saved by
  :func:`scipy.sparse.save_npz` with a ``y`` in the same archive. Nothing pickled is loaded.
- anything else: **svmlight/libsvm**, read as CSR. ``zero_based``: ``"yes"`` (the first
  feature is index 0, as scikit-learn's ``dump_svmlight_file`` writes), ``"no"`` (index 1,
  libsvm's convention) or ``"auto"``: one-based unless the file uses index 0. The number of
  features read is stated: a file written zero-based whose feature 0 is always zero reads as
  one feature fewer under ``auto``.
"""

from __future__ import annotations

import codecs
import re
import shlex
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

#: The first lines read to find a CSV's header, index column and label column.
SNIFF_LINES = 200


class BadInput(ValueError):
    """The input or an option cannot be used; the message is one line naming the problem and
    the fix."""


@dataclass
class Table:
    """What was read: the samples, their labels as written in the file, and every guess.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features), float64, or a float64 CSR matrix
    labels : ndarray of shape (n_samples,)
        As written (numbers as float64, otherwise strings).
    kind : {"svmlight", "CSV", ".npz"}
    notes : list of str
        One sentence per guess or choice made while reading.
    """

    X: np.ndarray | sp.csr_matrix
    labels: np.ndarray
    kind: str
    notes: list[str] = field(default_factory=list)


def kind_of(path: Path) -> str:
    """``"CSV"``, ``".npz"`` or ``"svmlight"`` from the file's suffix."""
    return {".csv": "CSV", ".npz": ".npz"}.get(path.suffix.lower(), "svmlight")


def read(
    path: Path,
    label_col: str | None = None,
    zero_based: str = "auto",
    drop_cols: tuple[str, ...] = (),
    encode: tuple[str, ...] = (),
    encoding: str | None = None,
) -> Table:
    """Read ``path`` (see the module docstring); :class:`BadInput` on any problem."""
    kind = kind_of(path)
    for option, given in (("--label-col", label_col is not None), ("--drop-cols", drop_cols),
                          ("--encode", encode), ("--encoding", encoding is not None)):  # fmt: skip
        if given and kind != "CSV":
            raise BadInput(f"{option} applies to CSV files; {path} is read as {kind}")
    if zero_based != "auto" and kind != "svmlight":
        raise BadInput(f"--zero-based applies to svmlight files; {path} is read as {kind}")
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise BadInput(
                f"--encoding {encoding}: no such text encoding (e.g. utf-8, latin-1, cp1252)"
            ) from None
    if not path.is_file():
        raise BadInput(f"{path}: no such file" + (" (it is a folder)" if path.is_dir() else ""))
    if path.stat().st_size == 0:
        raise BadInput(f"{path}: the file is empty")
    if kind == "CSV":
        return _csv(path, label_col, drop_cols, encode, encoding or "utf-8")
    if kind == ".npz":
        return _npz(path)
    return _svmlight(path, zero_based)


# ------------------------------------------------------------------------------- svmlight
def _svmlight(path: Path, zero_based: str) -> Table:
    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(str(path), zero_based=zero_based != "no")
    except Exception as exc:  # the parser's own error, reduced to one line
        raise BadInput(
            f"{path}: not readable as a svmlight/libsvm file ({_first_line(exc)})"
        ) from None
    X = X.tocsr()
    if zero_based == "no":
        note = f"{X.shape[1]} features read; column indices one-based (--zero-based no)"
    elif zero_based == "yes":
        note = f"{X.shape[1]} features read; column indices zero-based (--zero-based yes)"
    elif X.nnz and X.indices.min() == 0:
        note = f"{X.shape[1]} features read; the file uses index 0, so indices are zero-based"
    else:
        X = X[:, 1:] if X.shape[1] > 1 else X  # one-based: index 1 is the first feature
        note = (
            f"{X.shape[1]} features read; the file never uses index 0, so indices are read "
            "as one-based (--zero-based yes if its first feature is 0 and always zero)"
        )
    return Table(X, y, "svmlight", [f"svmlight: {note}."])


# ------------------------------------------------------------------------------- npz
def _npz(path: Path) -> Table:
    if not zipfile.is_zipfile(path):
        raise BadInput(
            f"{path}: not a .npz archive (write one with numpy.savez(X=..., y=...) or "
            "scipy.sparse.save_npz plus a 'y' array)"
        )
    try:
        with np.load(path, allow_pickle=False) as archive:
            keys = set(archive.files)
            label_key = next((k for k in ("y", "labels") if k in keys), None)
            if label_key is None:
                raise BadInput(f"{path}: no labels: expected an array 'y' (or 'labels')")
            y = archive[label_key]
            if {"data", "indices", "indptr", "shape", "format"} <= keys:
                fmt = archive["format"].item()
                fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
                if fmt not in ("csr", "csc"):
                    raise BadInput(f"{path}: sparse format {fmt!r}; expected csr or csc")
                cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
                parts = (archive["data"], archive["indices"], archive["indptr"])
                X = cls(parts, shape=tuple(archive["shape"])).tocsr()
            elif "X" in keys:
                X = archive["X"]
            else:
                raise BadInput(
                    f"{path}: no data: expected an array 'X', or a sparse matrix saved by "
                    f"scipy.sparse.save_npz, next to '{label_key}'"
                )
    except BadInput:
        raise
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise BadInput(
                f"{path}: an array holds Python objects (dtype object), which are never "
                "unpickled from a file: save X and y as arrays of numbers (y may be strings)"
            ) from None
        raise BadInput(f"{path}: not readable as a .npz archive ({_first_line(exc)})") from None
    except Exception as exc:  # a damaged member, a bad zip entry
        raise BadInput(f"{path}: not readable as a .npz archive ({_first_line(exc)})") from None
    if not sp.issparse(X) and np.ndim(X) != 2:
        raise BadInput(f"{path}: X has shape {np.shape(X)}; expected (n_samples, n_features)")
    return Table(X, np.asarray(y).ravel(), ".npz", [])


# ------------------------------------------------------------------------------- CSV
def _csv(
    path: Path,
    label_col: str | None,
    drop_cols: tuple[str, ...],
    encode: tuple[str, ...],
    encoding: str,
) -> Table:
    notes = []
    try:
        head = pd.read_csv(
            path, header=None, dtype=str, keep_default_na=False, nrows=SNIFF_LINES,
            skip_blank_lines=True, skipinitialspace=True, encoding=encoding,
        )  # fmt: skip
    except UnicodeDecodeError:
        raise _undecodable(path, encoding) from None
    except Exception as exc:
        raise BadInput(f"{path}: not readable as a CSV file ({_first_line(exc)})") from None
    if head.shape[1] < 2:
        raise BadInput(
            f"{path}: one column only; a CSV needs feature columns and a label column, "
            "separated by commas"
        )
    numeric = head.apply(lambda c: pd.to_numeric(c, errors="coerce").notna())
    header = len(head) > 1 and bool((~numeric.iloc[0] & numeric.iloc[1:].all()).any())
    if len(head) == 1:
        header = not bool(numeric.iloc[0].any())
    names = [str(v) for v in head.iloc[0]] if header else None
    width = head.shape[1]
    # pandas' default to_csv: a first column with an empty name, distinct integers
    index_col = None
    if header and re.fullmatch(r"|Unnamed: 0", names[0].strip()):
        first = pd.to_numeric(head.iloc[1:, 0], errors="coerce")
        if first.notna().all() and (first == first.round()).all() and first.is_unique:
            index_col = 0
    if header:
        named = names[1:] if index_col == 0 else names
        shown = ", ".join(named[:6]) + (", ..." if len(named) > 6 else "")
        notes.append(f"CSV: the first line is a header ({shown}).")
    else:
        notes.append("CSV: no header line (the first line holds numbers).")
    if index_col == 0:
        notes.append(
            "CSV: the first column has no name and holds distinct integers: the row index "
            "pandas' to_csv writes; dropped (not a feature)."
        )
    label = (
        width - 1 if label_col is None else _column(path, "--label-col", label_col, names, width)
    )
    if label == index_col:
        raise BadInput(f"{path}: --label-col {label_col} names the index column pandas wrote")
    label_name = f" ({names[label]!r})" if names else ""
    notes.append(
        f"CSV: labels in column {label + 1} of {width}{label_name}"
        + (" (the last: --label-col to choose another)." if label_col is None else ".")
    )
    dropped = _columns(path, "--drop-cols", drop_cols, names, width, label, index_col)
    encoded = _columns(path, "--encode", encode, names, width, label, index_col)
    both = sorted(set(dropped) & set(encoded))
    if both:
        raise BadInput(f"{path}: {_name(both[0], names)} is named by --drop-cols and --encode")
    if dropped:
        notes.append(
            f"CSV: left out (--drop-cols): {', '.join(_name(c, names) for c in dropped)}."
        )

    try:
        frame = pd.read_csv(
            path, header=None, skiprows=1 if header else 0,
            dtype={label: str, **dict.fromkeys(encoded, str)}, keep_default_na=False,
            na_values=[""], skip_blank_lines=False, skipinitialspace=True, low_memory=False,
            encoding=encoding,
        )  # fmt: skip
    except UnicodeDecodeError:
        raise _undecodable(path, encoding) from None
    except Exception as exc:
        raise BadInput(f"{path}: not readable as a CSV file ({_first_line(exc)})") from None
    first_line = 2 if header else 1  # the file's line of the first row read
    lines = np.arange(first_line, first_line + len(frame))
    blank = frame.isna().all(axis=1).to_numpy()
    if blank.any():
        frame, lines = frame[~blank], lines[~blank]
        n = int(blank.sum())
        notes.append(f"CSV: {n} empty line{'s' if n > 1 else ''} skipped.")
    if frame.shape[1] != width:
        raise BadInput(
            f"{path}: {frame.shape[1]} columns, but its first lines have {width}; every "
            "line needs the same number of fields"
        )
    features = [c for c in range(width) if c not in (label, index_col, *dropped)]
    blocks, text = [], []  # text: (column, line, cell) of each feature column holding text
    for col in features:
        column = frame[col]
        empty = column.isna().to_numpy()
        if empty.any():
            raise _bad_cell(path, lines, column, col, empty, names, _EMPTY_CELL)
        if col in encoded:
            block, note = _one_hot(column, col, names)
            blocks.append(block)
            notes.append(note)
            continue
        parsed = pd.to_numeric(column, errors="coerce")
        words = parsed.isna().to_numpy()  # cells that do not read as a number (or read as NaN)
        if 2 * words.sum() > len(column):  # mostly words: a column of text, not a typo
            i = int(np.argmax(words))
            text.append((col, lines[i], column.iloc[i]))
            continue
        bad = words | ~np.isfinite(parsed.to_numpy(dtype=float))
        if bad.any():
            raise _bad_cell(path, lines, column, col, bad, names, _NOT_A_NUMBER)
        blocks.append(parsed.to_numpy(dtype=np.float64)[:, None])
    if text:
        raise _text_columns(path, text, names)
    values = np.hstack(blocks) if blocks else np.empty((len(frame), 0))
    raw = frame[label].astype(object)
    missing = raw.isna().to_numpy() | (raw.astype(str).str.strip() == "").to_numpy()
    if missing.any():
        i = int(np.argmax(missing))
        raise BadInput(f"{path}: line {lines[i]}, column {label + 1}: the label is empty")
    text = raw.astype(str).str.strip()
    as_number = pd.to_numeric(text, errors="coerce")
    labels = as_number.to_numpy(np.float64) if as_number.notna().all() else text.to_numpy(str)
    return Table(values, labels, "CSV", notes)


def _column(path: Path, option: str, value: str, names: list[str] | None, width: int) -> int:
    """The position in the file of the column ``value`` names: a header name, or an index
    (0 the first column, -1 the last)."""
    if names is not None and value in names:
        return names.index(value)
    try:
        index = int(value)
    except ValueError:
        if names is None:
            raise BadInput(
                f"{path}: {option} {value!r}: the file has no header line, so columns "
                f"have no names; give an index (0 the first column, -1 the last)"
            ) from None
        shown = ", ".join(repr(n) for n in names[:8]) + (", ..." if len(names) > 8 else "")
        raise BadInput(f"{path}: {option} {value!r}: no such column ({shown})") from None
    if not -width <= index < width:
        raise BadInput(
            f"{path}: {option} {index}: the file has {width} columns (0 to {width - 1}, "
            "or -1 for the last)"
        )
    return index % width


def _columns(path, option: str, values, names, width: int, label: int, index_col) -> list[int]:
    """The feature columns ``values`` name (``--drop-cols``, ``--encode``), in file order."""
    out = []
    for value in values:
        col = _column(path, option, value, names, width)
        if col == label:
            raise BadInput(f"{path}: {option} {value}: that is the label column")
        if col == index_col:
            raise BadInput(f"{path}: {option} {value}: the index column pandas wrote is dropped")
        out.append(col)
    return sorted(set(out))


def _name(col: int, names: list[str] | None) -> str:
    return repr(names[col]) if names else f"column {col + 1}"


def _shown(col: int, names: list[str] | None) -> str:
    """``column 2 ('b')``, or ``column 2`` in a file without a header."""
    return f"column {col + 1}" + (f" ({names[col]!r})" if names else "")


def _ref(col: int, names: list[str] | None) -> str:
    """How an option names column ``col``: its header name, or its index (0 the first)."""
    return shlex.quote(names[col]) if names else str(col)


#: What is wrong with a feature's cell (:func:`_bad_cell`): none, or not a finite number.
_EMPTY_CELL = "empty: every feature needs a value (fill it in, or {leave_out})"
_NOT_A_NUMBER = "{cell}: every feature must be a finite number; fix that line, or {leave_out}"


def _bad_cell(path: Path, lines, column: pd.Series, col: int, bad, names, what: str) -> BadInput:
    """The refusal of the first cell of feature ``column`` (column ``col`` of the file)
    flagged in ``bad``: its line and column, then ``what`` is wrong with it, formatted with
    ``cell`` (a text cell's repr, a number as written) and ``leave_out`` (how
    ``--drop-cols`` leaves the column out)."""
    i = int(np.argmax(bad))
    leave_out = f"leave the column out with --drop-cols {_ref(col, names)}"
    cell = column.iloc[i]  # read as a number: shown as one (inf, not np.float64(inf))
    cell = repr(cell) if isinstance(cell, str) else str(cell)
    what = what.format(cell=cell, leave_out=leave_out)
    return BadInput(f"{path}: line {lines[i]}, {_shown(col, names)} is {what}")


def _text_columns(path: Path, text: list, names: list[str] | None) -> BadInput:
    """The refusal of feature columns holding text, with both fixes spelled out."""
    col, line, cell = text[0]
    others = ""
    if len(text) > 1:
        more = len(text) - 1
        others = (
            f", and {more} other column{'s' if more > 1 else ''} hold{'' if more > 1 else 's'} "
            f"text too ({', '.join(_shown(c, names) for c, _, _ in text[1:])})"
        )
    them = "it" if len(text) == 1 else "them"
    refs = " ".join(_ref(c, names) for c, _, _ in text)
    by_index = "" if names else " (by index, 0 the first column)"
    return BadInput(
        f"{path}: line {line}, {_shown(col, names)} is {cell!r}{others}: every feature must be "
        f"a number; leave {them} out with --drop-cols {refs}, or one-hot encode {them} with "
        f"--encode {refs}{by_index}"
    )


def _one_hot(column: pd.Series, col: int, names: list[str] | None) -> tuple[np.ndarray, str]:
    """One 0/1 feature per distinct value of ``column`` (sorted), and the note saying so."""
    values = column.astype(str).str.strip()
    levels = sorted(values.unique())
    block = (values.to_numpy()[:, None] == np.array(levels)[None, :]).astype(np.float64)
    name = names[col] if names else f"column {col + 1}"
    shown = ", ".join(f"{name}={v}" for v in levels[:6]) + (", ..." if len(levels) > 6 else "")
    note = (
        f"CSV: --encode {name}: one-hot, {len(levels)} features ({shown}); the values are "
        "those of every row, the test rows' included (the encoding reads no label, so the "
        "split's labels cannot leak), then scaled like the other features."
    )
    return block, note


def _undecodable(path: Path, encoding: str) -> BadInput:
    """The refusal of a file that is not ``encoding`` text: binary, or which line and byte
    fail, and the fix."""
    with path.open("rb") as f:
        start = f.read(1 << 13)
    if b"\x00" in start:
        return BadInput(f"{path}: not a text file (it holds NUL bytes), so not a CSV")
    decoder = codecs.getincrementaldecoder(encoding)()
    line, where = 1, ""
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                at = min(exc.start, len(chunk) - 1)
                line += chunk[:at].count(b"\n")
                where = f"line {line} (byte 0x{chunk[at]:02x}) "
                break
            line += chunk.count(b"\n")
    if codecs.lookup(encoding).name == "utf-8":
        fix = (
            "a file saved by Excel or another Windows program is often Latin-1: try "
            "--encoding latin-1 (or cp1252, or the file's own encoding)"
        )
    else:
        fix = "name the file's own encoding with --encoding"
    return BadInput(f"{path}: {where}is not {encoding} text; {fix}")


# ------------------------------------------------------------------------------- labels
def binary(
    path: Path,
    table: Table,
    classes: tuple[str, str] | None = None,
    positive: str | None = None,
) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray, str]:
    """The checks every format shares; returns ``(X, y in ±1, sentence on the classes)``.

    Two labels: the larger (sorted) is +1. More: refused, unless ``classes`` names two of
    them (their rows are kept; the first is −1, the second +1) or ``positive`` names one
    (+1, every other label −1). A label is named as written (``3``, ``3.0`` or ``cat``).
    X comes back as C-contiguous float64, or canonical float64 CSR (sorted, unique indices).
    """
    X, y = table.X, np.asarray(table.labels).ravel()
    n = X.shape[0]
    if n == 0 or X.shape[1] == 0:
        raise BadInput(f"{path}: no samples or no features ({n} x {X.shape[1]})")
    if y.shape[0] != n:
        raise BadInput(f"{path}: {y.shape[0]} labels for {n} samples")
    values = X.data if sp.issparse(X) else np.asarray(X)
    if not (np.issubdtype(values.dtype, np.number) or values.dtype == bool):
        raise BadInput(f"{path}: the data are not numbers (dtype {values.dtype})")
    if not np.all(np.isfinite(values)):
        raise BadInput(f"{path}: the data contain NaN or infinite values")
    if np.issubdtype(y.dtype, np.number) and not np.all(np.isfinite(y.astype(np.float64))):
        raise BadInput(f"{path}: the labels contain NaN or infinite values")
    if not (np.issubdtype(y.dtype, np.number) or y.dtype.kind in "USb"):
        raise BadInput(f"{path}: labels of dtype {y.dtype}; expected numbers or strings")
    found, counts = np.unique(y, return_counts=True)
    kept = ""
    if classes is not None:
        negative, plus = (_find_label(path, "--classes", name, found) for name in classes)
        if negative == plus:
            raise BadInput(f"--classes {' '.join(classes)}: name two different labels")
        keep = (y == negative) | (y == plus)
        X, y = X[keep], y[keep]
        kept = f"; --classes: the other {n - int(keep.sum())} samples left out"
    elif positive is not None:
        plus = _find_label(path, "--positive", positive, found)
        rest = found[found != plus]
        if rest.size == 0:
            raise BadInput(f"{path}: one class only (every label is {_label(plus)}); need two")
        n_plus = int(counts[found == plus][0])
        sentence = (
            f"labels: {_label(plus)} → +1 ({n_plus} samples), the {rest.size} other"
            f"{'s' if rest.size > 1 else ''} ({_labels(rest)}) → −1 ({n - n_plus} samples; "
            "--positive)."
        )
        return _canonical(X), np.where(y == plus, 1, -1).astype(np.int64), sentence
    elif found.shape[0] == 1:
        raise BadInput(f"{path}: one class only (every label is {_label(found[0])}); need two")
    elif found.shape[0] > 2:
        a, b = (shlex.quote(_typed(c)) for c in found[:2])
        raise BadInput(
            f"{path}: labels are not two-valued: {found.shape[0]} distinct labels "
            f"({_labels(found)}); keep the rows of two of them with --classes A B (e.g. "
            f"--classes {a} {b}), or judge one against the rest with --positive A (e.g. "
            f"--positive {a})"
        )
    else:
        negative, plus = found
    n_neg, n_plus = int((y == negative).sum()), int((y == plus).sum())
    sentence = (
        f"labels: {_label(negative)} → −1 ({n_neg} samples), {_label(plus)} → +1 "
        f"({n_plus} samples){kept}."
    )
    return _canonical(X), np.where(y == plus, 1, -1).astype(np.int64), sentence


def _canonical(X):
    """C-contiguous float64, or canonical float64 CSR (sorted, unique indices), as the
    solvers read it."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sum_duplicates()
        return X
    return np.ascontiguousarray(X, dtype=np.float64)


def _find_label(path: Path, option: str, typed: str, found: np.ndarray):
    """The label of ``found`` that ``typed`` names (``3`` names 3.0; ``cat`` names 'cat')."""
    if np.issubdtype(found.dtype, np.number):
        try:
            value = float(typed)
        except ValueError:
            value = None
        matches = found[found == value] if value is not None else found[:0]
    else:
        matches = found[found == typed]
    if matches.size == 0:
        raise BadInput(f"{path}: {option} {typed}: no such label; the labels are {_labels(found)}")
    return matches[0]


def _labels(values, most: int = 20) -> str:
    """Labels as a list for a sentence, the first ``most`` of them."""
    shown = ", ".join(_label(v) for v in values[:most])
    return shown + (f", ... ({len(values)} in all)" if len(values) > most else "")


def _typed(value) -> str:
    """A label as typed on the command line."""
    return str(value) if isinstance(value, str | np.str_) else f"{float(value):g}"


def _label(value) -> str:
    if isinstance(value, str | np.str_):
        return repr(str(value))
    return f"{float(value):g}" if np.isscalar(value) else repr(value)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
