"""A user's file, read as the user means it: a table (CSV, TSV or other delimited text;
parquet), ``.npz`` or svmlight/libsvm.

Every guess is stated (:attr:`Table.notes`): which reader a file of an ambiguous suffix gets,
a table's field separator and decimal mark, its header line, pandas' index column dropped,
which column holds the labels, whether svmlight indices start at 0 or 1, which label became
+1. Every problem is one line naming the file (and, in a table, the file's own line and
column numbers) and the fix: :class:`BadInput`.

Which reader (:func:`kind_of`): ``.csv``, ``.tsv`` and ``.tab`` are delimited text tables
("CSV"), ``.parquet`` and ``.pq`` parquet, ``.npz`` numpy archives, ``.svm``, ``.svmlight``
and ``.libsvm`` svmlight. Any other suffix (``.txt``, ``.dat``, none) is decided by the
content, and said: parquet's or zip's leading bytes; lines of ``index:value`` pairs are
svmlight; lines that split alike on one separator are a table; anything else is read as
svmlight (whose refusal names ``sep``). ``sep`` makes a file of such a suffix a table.

- **Tables** (CSV and parquet), one sample per row, the labels in one column
  (``label_col``: a header name, or an index, 0 the first column of the file and -1 the last,
  the default). A CSV's fields are separated by ``sep``, or by the separator among
  :data:`SEPARATORS` that splits every one of its first lines alike (said when it is not the
  one of the suffix: ``,`` for ``.csv``, tab for ``.tsv``); numbers written with decimal
  commas (``1,5``) in a file not separated by commas are read as such, and said
  (``decimal`` to choose). A first line with a word where the other lines hold numbers is a
  header. A first column with an empty name holding distinct integers is the index pandas'
  ``DataFrame.to_csv`` writes by default: dropped, with a note (a parquet file's stored
  DataFrame index is not read either, and said). Labels may be numbers or strings.

  The label column is questioned when the user did not name it (nor named labels:
  ``labels_named``, ``--classes``/``--positive``): a last column of more than
  :data:`MAX_LABELS` distinct values, or of more than two values with fractions, is refused,
  naming ``--label-col`` and the columns of 2 to :data:`MAX_LABELS` values, the likely labels.

  An empty cell (blank, or one of :data:`MISSING`; a parquet null) in a feature or the label
  is refused: one refusal names every such column with its count of rows, and the fixes:
  ``dropna`` leaves out the rows with one (said, with the count and the columns),
  ``drop_cols`` leaves columns out. Text in a feature column is refused, naming the columns
  and both fixes: ``drop_cols``, or ``encode``: one 0/1 feature per value, a blank being its
  own value (the values are those of every row, the test rows' included: the encoding reads
  no label, so nothing of the split leaks). ``encoding`` (default UTF-8): a CSV that does not
  decode is refused with the line, and ``--encoding latin-1`` suggested.
- **.npz**: arrays ``X`` (dense) and ``y`` (or ``labels``), or a sparse matrix saved by
  :func:`scipy.sparse.save_npz` with a ``y`` in the same archive. Nothing pickled is loaded.
- **svmlight/libsvm**, read as CSR. ``zero_based``: ``"yes"`` (the first feature is index 0,
  as scikit-learn's ``dump_svmlight_file`` writes), ``"no"`` (index 1, libsvm's convention) or
  ``"auto"``: one-based unless the file uses index 0. The number of features read is stated:
  a file written zero-based whose feature 0 is always zero reads as one feature fewer under
  ``auto``.
"""

from __future__ import annotations

import codecs
import csv
import itertools
import re
import shlex
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

#: The first lines read to find a CSV's separator, decimal mark, header, index and label
#: columns, and the format of a file whose suffix does not say.
SNIFF_LINES = 200
#: The field separators a CSV is sniffed for. Where several split every line alike (a file
#: separated by semicolons whose numbers have decimal commas may split alike on commas too;
#: a comma file may hold one semicolon in a text field of every line), the one whose fields
#: read as numbers most often wins, then the first.
SEPARATORS = ("\t", ";", "|", ",")
#: The suffixes of tables, with the separator each implies (parquet: None).
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".parquet": None, ".pq": None}
SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm")
#: The most distinct values a label column the user did not name may hold: ten classes (the
#: digits) is about the most a classification table carries in one column; more values, or
#: more than two with fractions, are a measurement or a count (anes96's last column, a
#: logarithm of population), not labels.
MAX_LABELS = 10
#: Cells read as empty besides blanks: the spellings of a missing value that pandas and R
#: write (pandas' own ``read_csv`` reads them as NaN). In an ``--encode`` column they are
#: values like any other.
MISSING = frozenset({"NA", "N/A", "n/a", "NaN", "nan", "-nan", "-NaN", "null", "NULL", "None",
                     "<NA>", "#N/A"})  # fmt: skip

_SEP_WORDS = {"\t": "tabs", " ": "spaces", ",": "commas", ";": "semicolons", "|": "bars (|)"}
_NUMBER = r"[+-]?(?:\d+{0}\d*|{0}\d+)(?:[eE][+-]?\d+)?"
_COMMA_NUMBER = re.compile(_NUMBER.format(","))
_DOT_NUMBER = re.compile(_NUMBER.format(r"\."))
_INTEGER = re.compile(r"[+-]?\d+(?:[eE][+-]?\d+)?")
_SVM_LABEL = re.compile(r"[+-]?[\d.]+(?:[eE][+-]?\d+)?(?:,[+-]?[\d.]+(?:[eE][+-]?\d+)?)*")
_SVM_PAIR = re.compile(r"(?:qid:)?\d+:\S+")


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
    kind : {"svmlight", "CSV", "parquet", ".npz"}
    notes : list of str
        One sentence per guess or choice made while reading.
    """

    X: np.ndarray | sp.csr_matrix
    labels: np.ndarray
    kind: str
    notes: list[str] = field(default_factory=list)


def kind_of(path: Path, sep: str | None = None, encoding: str | None = None) -> tuple[str, str]:
    """The reader of the file ``path`` (``"CSV"``, ``"parquet"``, ``".npz"`` or
    ``"svmlight"``) and, when its content decided it, why (``""`` when the suffix did)."""
    suffix = path.suffix.lower()
    if suffix in TABLE_SUFFIXES:
        return ("CSV" if TABLE_SUFFIXES[suffix] else "parquet"), ""
    if suffix == ".npz":
        return ".npz", ""
    if suffix in SVMLIGHT_SUFFIXES:
        return "svmlight", ""
    with path.open("rb") as f:
        start = f.read(1 << 16)
    if start.startswith(b"PAR1"):
        return "parquet", "it begins with parquet's mark, PAR1"
    if start.startswith(b"PK\x03\x04"):
        return ".npz", "it is a zip archive"
    if sep is not None:
        return "CSV", "--sep names its field separator"
    if b"\x00" in start or start.startswith((b"\x1f\x8b", b"BZh")):  # binary, or compressed
        return "svmlight", ""
    lines = start.decode(encoding or "utf-8", errors="replace").splitlines()
    if len(start) == 1 << 16 and len(lines) > 1:
        lines = lines[:-1]  # cut by the read
    lines = [line for line in lines[:SNIFF_LINES] if line.strip()]
    if _svmlight_like(lines):
        return "svmlight", "its lines hold index:value pairs"
    if _sniff(lines, ",")[1]:
        return "CSV", "its lines hold the same number of separated fields, no index:value pairs"
    return "svmlight", ""


def read(
    path: Path,
    label_col: str | None = None,
    zero_based: str = "auto",
    drop_cols: tuple[str, ...] = (),
    encode: tuple[str, ...] = (),
    encoding: str | None = None,
    sep: str | None = None,
    decimal: str | None = None,
    dropna: bool = False,
    labels_named: bool = False,
) -> Table:
    """Read ``path`` (see the module docstring); :class:`BadInput` on any problem.

    ``labels_named``: ``--classes`` or ``--positive`` names labels, so a label column of many
    values is meant (it is not questioned)."""
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise BadInput(
                f"--encoding {encoding}: no such text encoding (e.g. utf-8, latin-1, cp1252)"
            ) from None
    if decimal not in (None, ".", ","):
        raise BadInput(f"--decimal {decimal}: expected . or ,")
    if not path.is_file():
        raise BadInput(f"{path}: no such file" + (" (it is a folder)" if path.is_dir() else ""))
    if path.stat().st_size == 0:
        raise BadInput(f"{path}: the file is empty")
    kind, why = kind_of(path, sep, encoding)
    tables, text = ("CSV", "parquet"), ("CSV",)
    for option, given, applies in (
        ("--label-col", label_col is not None, tables), ("--drop-cols", drop_cols, tables),
        ("--encode", encode, tables), ("--dropna", dropna, tables),
        ("--encoding", encoding is not None, text), ("--sep", sep is not None, text),
        ("--decimal", decimal is not None, text), ("--zero-based", zero_based != "auto",
                                                   ("svmlight",)),
    ):  # fmt: skip
        if given and kind not in applies:
            files = " and ".join(applies)
            because = f" ({why})" if why else ""
            raise BadInput(f"{option} applies to {files} files; {path} is read as {kind}{because}")
    notes = []
    if why:
        said = f"its suffix, {path.suffix}," if path.suffix else "its name has no suffix, so it"
        notes.append(
            f"{kind}: {path.name} is read as {kind}: {why} ({said} does not say which format "
            "it is)."
        )
    if kind == "CSV":
        options = (drop_cols, encode, dropna, labels_named)
        return _csv(path, label_col, options, encoding or "utf-8", sep, decimal, notes)
    if kind == "parquet":
        return _parquet(path, label_col, (drop_cols, encode, dropna, labels_named), notes)
    if kind == ".npz":
        table = _npz(path)
        table.notes[:0] = notes
        return table
    hint = "" if path.suffix.lower() in SVMLIGHT_SUFFIXES or why else (
        "; if it is a table, name its field separator with --sep"
    )  # fmt: skip
    table = _svmlight(path, zero_based, hint)
    table.notes[:0] = notes
    return table


def _svmlight_like(lines: list[str]) -> bool:
    """Whether every line is a svmlight line (a label, then ``index:value`` pairs; ``#``
    starts a comment) and some line holds a pair."""
    pairs = False
    for line in lines:
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if not _SVM_LABEL.fullmatch(words[0]):
            return False
        if not all(_SVM_PAIR.fullmatch(w) for w in words[1:]):
            return False
        pairs = pairs or len(words) > 1
    return pairs


def _sniff(lines: list[str], default: str) -> tuple[str, bool]:
    """The field separator of these lines, and whether it splits every one of them alike
    (into two fields or more). Where none does: the separator found on the most lines
    (``default`` when none is, or on a tie): the reader then names the lines that differ."""
    counts = {}
    for sep in SEPARATORS:
        try:
            counts[sep] = [len(row) for row in csv.reader(lines, delimiter=sep)]
        except csv.Error:
            counts[sep] = []
    alike = [sep for sep, n in counts.items() if len(set(n)) == 1 and min(n) >= 2]
    if alike:  # the one whose fields read as numbers most often; on a tie, the first
        numbers = {sep: _number_cells(lines, sep) for sep in alike}
        return max(alike, key=lambda sep: (numbers[sep], -SEPARATORS.index(sep))), True
    on = {sep: sum(n >= 2 for n in counts[sep]) for sep in SEPARATORS}
    best = max(SEPARATORS, key=lambda sep: (on[sep], sep == default))
    return (best if on[best] else default), False


def _number_cells(lines: list[str], sep: str) -> int:
    """How many fields of these lines split on ``sep`` are numbers (with a decimal point, or a
    decimal comma where ``sep`` is not a comma)."""
    patterns = (_DOT_NUMBER, _INTEGER) + ((_COMMA_NUMBER,) if sep != "," else ())
    rows = csv.reader(lines, delimiter=sep, skipinitialspace=True)
    return sum(any(p.fullmatch(cell.strip()) for p in patterns) for row in rows for cell in row)


def _separator_words(sep: str) -> str:
    return _SEP_WORDS.get(sep, repr(sep))


# ------------------------------------------------------------------------------- svmlight
def _svmlight(path: Path, zero_based: str, hint: str = "") -> Table:
    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(str(path), zero_based=zero_based != "no")
    except Exception as exc:  # the parser's own error, reduced to one line
        raise BadInput(
            f"{path}: not readable as a svmlight/libsvm file ({_first_line(exc)}){hint}"
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


# ------------------------------------------------------------------------------- tables
@dataclass
class _Source:
    """A table being read: where its messages point and how its cells read as numbers."""

    path: Path
    kind: str  # "CSV" or "parquet": the first word of its notes
    names: list[str] | None  # the header (None: a CSV without one)
    rows: np.ndarray  # per row: its line in the file (CSV) or its row number (parquet), from 1
    where: str = "line"  # "line" or "row"
    decimal: str = "."
    sep: str | None = None  # a CSV's separator

    def at(self, i: int) -> str:
        """``line 5`` (the file's own line) or ``row 5`` of row ``i`` of the table."""
        return f"{self.where} {self.rows[i]}"


def _csv(
    path: Path, label_col: str | None, options: tuple, encoding: str, sep, decimal, notes
) -> Table:
    lines = _head_lines(path, encoding)
    default = TABLE_SUFFIXES.get(path.suffix.lower())
    sniffed = sep is None
    if sniffed:
        sep, alike = _sniff(lines, default or ",")
        if sep != default:
            how = "every one of its first lines splits alike on them" if alike else (
                "the most of its first lines hold them; they do not split every line alike"
            )  # fmt: skip
            notes.append(
                f"CSV: fields separated by {_separator_words(sep)} ({how}; --sep to name "
                "another separator)."
            )
    elif sep != default:
        notes.append(f"CSV: fields separated by {_separator_words(sep)} (--sep).")
    if decimal == "," and sep == ",":
        raise BadInput(
            f"{path}: --decimal , but its fields are separated by commas too; name the "
            "separator with --sep (e.g. --sep ';')"
        )
    if decimal is None:
        decimal = "."
        example = _decimal_comma(lines, sep) if sep != "," else None
        if example is not None:
            decimal = ","
            notes.append(
                f"CSV: numbers with decimal commas ({example!r} is read as "
                f"{example.replace(',', '.')}; --decimal . if its commas are not decimal "
                "marks)."
            )
    reading = dict(sep=r"\s+" if sep == " " else sep, skipinitialspace=True, encoding=encoding)
    try:
        head = pd.read_csv(
            path, header=None, dtype=str, keep_default_na=False, nrows=SNIFF_LINES,
            skip_blank_lines=True, **reading,
        )  # fmt: skip
    except UnicodeDecodeError:
        raise _undecodable(path, encoding) from None
    except Exception as exc:
        raise BadInput(f"{path}: not readable as a CSV file ({_first_line(exc)})") from None
    if head.shape[1] < 2:
        how = (
            f"none of {', '.join(_separator_words(s) for s in SEPARATORS)} separates its "
            "fields (--sep names another separator)"
            if sniffed
            else f"its lines hold no {_SEP_WORDS.get(sep, repr(sep))} (--sep)"
        )
        raise BadInput(
            f"{path}: one column only: {how}; a table needs feature columns and a label column"
        )
    numeric = head.apply(lambda c: _numbers(c, decimal).notna())
    missing = head.apply(_missing)
    header = len(head) > 1 and bool(
        (~numeric.iloc[0] & ~missing.iloc[0] & (numeric | missing).iloc[1:].all()).any()
    )
    if len(head) == 1:
        header = not bool(numeric.iloc[0].any())
    elif not header and missing.iat[0, 0] and not missing.iloc[0, 1:].any():
        header = _pandas_index(head.iloc[1:, 0], decimal)  # `,0,1,2`: a frame's own names
    names = [str(v) for v in head.iloc[0]] if header else None
    width = head.shape[1]
    index_col = None
    pandas_name = header and re.fullmatch(r"|Unnamed: 0", names[0].strip())
    if pandas_name and _pandas_index(head.iloc[1:, 0], decimal):
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
    src = _Source(path, "CSV", names, np.empty(0, np.int64), "line", decimal, sep)
    label, dropped, encoded = _choose(src, width, label_col, options, index_col, notes)
    try:
        frame = pd.read_csv(
            path, header=None, skiprows=1 if header else 0,
            dtype={label: str, **dict.fromkeys(encoded, str)}, keep_default_na=False,
            na_values=[""], skip_blank_lines=False, low_memory=False, decimal=decimal,
            **reading,
        )  # fmt: skip
    except UnicodeDecodeError:
        raise _undecodable(path, encoding) from None
    except Exception as exc:
        raise BadInput(f"{path}: not readable as a CSV file ({_first_line(exc)})") from None
    first_line = 2 if header else 1  # the file's line of the first row read
    src.rows = np.arange(first_line, first_line + len(frame))
    blank = frame.isna().all(axis=1).to_numpy()
    if blank.any():
        frame, src.rows = frame[~blank].reset_index(drop=True), src.rows[~blank]
        n = int(blank.sum())
        notes.append(f"CSV: {n} empty line{'s' if n > 1 else ''} skipped.")
    if frame.shape[1] != width:
        raise BadInput(
            f"{path}: {frame.shape[1]} columns, but its first lines have {width}; every "
            "line needs the same number of fields"
        )
    return _table(src, frame, label, label_col, index_col, dropped, encoded, options, notes)


def _parquet(path: Path, label_col: str | None, options: tuple, notes: list[str]) -> Table:
    try:
        frame = pd.read_parquet(path)
    except ImportError as exc:
        raise BadInput(
            f"{path}: reading parquet needs pyarrow ({_first_line(exc)}): pip install pyarrow"
        ) from None
    except Exception as exc:
        raise BadInput(f"{path}: not readable as a parquet file ({_first_line(exc)})") from None
    index = frame.index
    if not isinstance(index, pd.RangeIndex) or any(n is not None for n in index.names):
        named = ", ".join(repr(str(n)) for n in index.names if n is not None)
        notes.append(
            f"parquet: the DataFrame index stored with the table{f' ({named})' if named else ''}"
            " is not read (DataFrame.reset_index() before to_parquet makes it a column)."
        )
    names = [str(c) for c in frame.columns]
    frame = frame.set_axis(range(len(names)), axis=1).reset_index(drop=True)
    width = len(names)
    if width < 2:
        raise BadInput(
            f"{path}: one column only; a table needs feature columns and a label column"
        )
    index_col = None
    pandas_name = re.fullmatch(r"|Unnamed: 0|__index_level_0__", names[0].strip())
    if pandas_name and _pandas_index(frame[0], "."):
        index_col = 0
    named = names[1:] if index_col == 0 else names
    notes.append(
        f"parquet: {len(frame)} rows, columns {', '.join(named[:6])}"
        + (", ..." if len(named) > 6 else "")
        + "."
    )
    if index_col == 0:
        notes.append(
            f"parquet: the first column, {names[0]!r}, holds distinct integers: a row index "
            "written as a column; dropped (not a feature)."
        )
    rows = np.arange(1, len(frame) + 1)
    src = _Source(path, "parquet", names, rows, "row")
    label, dropped, encoded = _choose(src, width, label_col, options, index_col, notes)
    return _table(src, frame, label, label_col, index_col, dropped, encoded, options, notes)


def _choose(src: _Source, width: int, label_col, options: tuple, index_col, notes):
    """The label column, the columns ``--drop-cols`` leaves out and those ``--encode``
    encodes (file positions), checked and said."""
    drop_cols, encode, _, _ = options
    path, names = src.path, src.names
    label = (
        width - 1 if label_col is None else _column(path, "--label-col", label_col, names, width)
    )
    if label == index_col:
        raise BadInput(f"{path}: --label-col {label_col} names the index column pandas wrote")
    label_name = f" ({names[label]!r})" if names else ""
    notes.append(
        f"{src.kind}: labels in column {label + 1} of {width}{label_name}"
        + (" (the last: --label-col to choose another)." if label_col is None else ".")
    )
    dropped = _columns(path, "--drop-cols", drop_cols, names, width, label, index_col)
    encoded = _columns(path, "--encode", encode, names, width, label, index_col)
    both = sorted(set(dropped) & set(encoded))
    if both:
        raise BadInput(f"{path}: {_name(both[0], names)} is named by --drop-cols and --encode")
    if dropped:
        notes.append(
            f"{src.kind}: left out (--drop-cols): {', '.join(_name(c, names) for c in dropped)}."
        )
    return label, dropped, encoded


def _table(
    src: _Source, frame: pd.DataFrame, label: int, label_col, index_col, dropped, encoded,
    options: tuple, notes: list[str],
) -> Table:  # fmt: skip
    """The samples and labels of ``frame`` (columns numbered as in the file): the label
    column questioned, empty cells and text refused (all in one line) or handled
    (``--dropna``, ``--encode``), every feature a finite number."""
    _, _, dropna, labels_named = options
    path = src.path
    features = [c for c in range(frame.shape[1]) if c not in (label, index_col, *dropped)]
    if label_col is None and not labels_named:
        _question_label(src, frame, label, features)
    text, empty, numbers = [], {}, {}  # text: (column, row, cell) of each column of text
    for col in features:
        if col in encoded:
            continue
        column = frame[col]
        blank = _missing(column)
        parsed = _numbers(column, src.decimal)
        words = ~blank & parsed.isna().to_numpy()
        present = int((~blank).sum())
        if present and 2 * int(words.sum()) > present:  # mostly words: text, not a typo
            i = int(np.argmax(words))
            text.append((col, i, column.iloc[i]))
            continue
        if blank.any():
            empty[col] = blank
        numbers[col] = parsed
    label_blank = _missing(frame[label])
    if label_blank.any():
        empty = dict(sorted({**empty, label: label_blank}.items()))
    problems = []
    if empty and not dropna:
        problems.append(_empty_cells(src, empty, label, len(frame)))
    if text:
        problems.append(_text_columns(src, text))
    if problems:
        raise BadInput(f"{path}: " + "; also, ".join(problems))
    keep = np.ones(len(frame), bool)
    if dropna:
        for blank in empty.values():
            keep &= ~blank
        notes.append(_dropped_rows(src, empty, label, keep))
        if not keep.any():
            raise BadInput(
                f"{path}: --dropna leaves no row: every row has an empty cell; leave the "
                "columns of empty cells out with --drop-cols instead"
            )
    blocks = []
    for col in features:
        if col in encoded:
            block, note = _one_hot(src, frame[col][keep], col)
            blocks.append(block)
            notes.append(note)
            continue
        values = numbers[col][keep]
        bad = ~np.isfinite(values.to_numpy(dtype=float))
        if bad.any():
            raise _bad_cell(src, frame[col][keep], col, bad, src.rows[keep])
        blocks.append(values.to_numpy(dtype=np.float64)[:, None])
    values = np.hstack(blocks) if blocks else np.empty((int(keep.sum()), 0))
    written = _as_text(frame[label][keep])
    as_number = _numbers(written, src.decimal)
    labels = as_number.to_numpy(np.float64) if as_number.notna().all() else written.to_numpy(str)
    return Table(values, labels, src.kind, notes)


def _question_label(src: _Source, frame: pd.DataFrame, label: int, features: list[int]):
    """Refuse a label column the user did not name whose values are not plausibly labels:
    more than :data:`MAX_LABELS` distinct values, or more than two with fractions. Names
    ``--label-col`` with the columns of 2 to :data:`MAX_LABELS` values, and the ways to keep
    this column as labels (``--classes``, ``--positive``)."""
    column = frame[label]
    written = _as_text(column[~_missing(column)])
    numbers = _numbers(written, src.decimal)
    if len(numbers) and numbers.notna().all():
        distinct = int(numbers.nunique())
        fractions = numbers[numbers != numbers.round()]
    else:
        distinct, fractions = int(written.nunique()), numbers[:0]
    if distinct <= 2 or (distinct <= MAX_LABELS and fractions.empty):
        return
    what = f"{distinct} distinct values"
    if not fractions.empty:
        what += f", numbers with fractions (e.g. {written[fractions.index[0]]})"
    likely = []
    for col in features:
        cells = frame[col]
        k = int(_as_text(cells[~_missing(cells)]).nunique())
        if 2 <= k <= MAX_LABELS:
            likely.append((k, col))
    names = src.names
    shown = [
        f"{_ref(col, names)} ({k} values)" if names else f"{col} (column {col + 1}, {k} values)"
        for k, col in sorted(likely)[:5]
    ]
    candidates = (
        f"likely: {', '.join(shown)}"
        + (f", ... ({len(likely)} columns)" if len(likely) > 5 else "")
        if likely
        else f"no other column holds 2 to {MAX_LABELS} distinct values"
    )
    raise BadInput(
        f"{src.path}: the last column, {_shown(label, names)}, holds {what}: more than the "
        f"labels of a classification plausibly have (at most {MAX_LABELS} classes), so it is "
        f"likely a feature; name the label column with --label-col ({candidates}), or, if "
        "this column is the label, keep two of its values with --classes A B or take one "
        "against the rest with --positive A"
    )


def _empty_cells(src: _Source, empty: dict, label: int, n: int) -> str:
    """The refusal of empty cells: every column that has some, how many and where the first
    is, and the fixes (``--dropna``, ``--drop-cols``)."""
    names = src.names
    parts = []
    for col, blank in empty.items():
        k = int(blank.sum())
        first = ("first: " if k > 1 else "") + src.at(int(np.argmax(blank)))
        the = ", the labels," if col == label else ""
        parts.append(f"{_shown(col, names)}{the} in {k} row{'s' if k > 1 else ''} ({first})")
    rows = int(np.logical_or.reduce(list(empty.values())).sum())
    cols = [col for col in empty if col != label]
    fixes = f"leave out the rows with an empty cell ({rows} of {n}) with --dropna"
    if cols:
        them = "the column" if len(cols) == 1 else "the columns"
        fixes += f", or {them} with --drop-cols {' '.join(_ref(c, names) for c in cols)}"
        fixes += "" if names else " (by index, 0 the first column)"
    k = len(empty)
    return (
        f"empty cells in {k} column{'s' if k > 1 else ''}: {', '.join(parts)}; every feature "
        f"and the label need a value: {fixes}, or fill them in"
    )


def _dropped_rows(src: _Source, empty: dict, label: int, keep: np.ndarray) -> str:
    """The note of ``--dropna``: how many rows it left out, for which columns."""
    n, left = keep.shape[0], int((~keep).sum())
    if not left:
        return f"{src.kind}: --dropna: no row has an empty cell; none left out."
    cols = ", ".join(
        f"{_name(col, src.names)} {int(blank.sum())}{' (the labels)' if col == label else ''}"
        for col, blank in empty.items()
    )
    return (
        f"{src.kind}: --dropna: {left} of {n} rows left out for their empty cells (rows with "
        f"one, per column: {cols})."
    )


def _head_lines(path: Path, encoding: str) -> list[str]:
    """The first :data:`SNIFF_LINES` lines of the file that are not blank."""
    try:
        with path.open(encoding=encoding, newline="") as f:
            lines = list(itertools.islice(f, SNIFF_LINES))
    except UnicodeDecodeError:
        raise _undecodable(path, encoding) from None
    return [line.rstrip("\r\n") for line in lines if line.strip()]


def _decimal_comma(lines: list[str], sep: str) -> str | None:
    """The first cell written as a number with a decimal comma (``1,5``), or None when there
    is none, or a cell is written with a decimal point (the commas then are something else)."""
    try:
        rows = list(csv.reader(lines, delimiter=sep, skipinitialspace=True))
    except csv.Error:
        return None
    cells = [cell.strip() for row in rows for cell in row]
    if any(_DOT_NUMBER.fullmatch(cell) for cell in cells):
        return None
    return next((cell for cell in cells if _COMMA_NUMBER.fullmatch(cell)), None)


def _pandas_index(column: pd.Series, decimal: str) -> bool:
    """Whether ``column`` holds distinct integers, every cell filled: a row index."""
    values = _numbers(column, decimal)
    return bool(
        len(values) and values.notna().all() and (values == values.round()).all()
        and values.is_unique
    )  # fmt: skip


def _as_text(column: pd.Series) -> pd.Series:
    """Each cell as written, stripped; an empty cell (NaN, None) as ``""``."""
    blank = column.isna().to_numpy()
    return column.astype(object).where(~blank, "").astype(str).str.strip()


def _missing(column: pd.Series) -> np.ndarray:
    """Which cells are empty: NaN or null, blank, or a spelling of :data:`MISSING`."""
    blank = column.isna().to_numpy()
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return blank
    written = _as_text(column)
    return blank | (written == "").to_numpy() | written.isin(MISSING).to_numpy()


def _numbers(column: pd.Series, decimal: str) -> pd.Series:
    """The cells as float64 (NaN where a cell is not a number); ``decimal`` the decimal mark
    of text cells."""
    if pd.api.types.is_bool_dtype(column.dtype) or pd.api.types.is_numeric_dtype(column.dtype):
        return column.astype(np.float64)
    written = _as_text(column)
    if decimal == ",":
        written = written.str.replace(",", ".", regex=False)
    return pd.to_numeric(written, errors="coerce").astype(np.float64)


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


def _bad_cell(src: _Source, column: pd.Series, col: int, bad, rows) -> BadInput:
    """The refusal of the first cell of feature ``column`` (column ``col`` of the file)
    flagged in ``bad`` (``rows``: the file's line, or row, of each cell): not a finite
    number; the fixes are to correct it or to leave the column out with ``--drop-cols``."""
    i = int(np.argmax(bad))
    leave_out = f"leave the column out with --drop-cols {_ref(col, src.names)}"
    cell = column.iloc[i]  # read as a number: shown as one (inf, not np.float64(inf))
    cell = repr(cell) if isinstance(cell, str) else str(cell)
    return BadInput(
        f"{src.path}: {src.where} {rows[i]}, {_shown(col, src.names)} is {cell}: every feature "
        f"must be a finite number; fix that {src.where}, or {leave_out}{_comma_hint(src, cell)}"
    )


def _comma_hint(src: _Source, cell: str) -> str:
    """When a text cell reads as a number with a decimal comma: how to read it as one."""
    if (
        src.decimal == ","
        or src.sep in (None, ",")
        or not _COMMA_NUMBER.fullmatch(cell.strip("'\""))
    ):
        return ""
    return f" ({cell} reads as a number with a decimal comma: --decimal ,)"


def _text_columns(src: _Source, text: list) -> str:
    """The refusal of feature columns holding text, with both fixes spelled out."""
    names = src.names
    col, i, cell = text[0]
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
    return (
        f"{src.at(i)}, {_shown(col, names)} is {cell!r}{others}: every feature must be a "
        f"number; leave {them} out with --drop-cols {refs}, or one-hot encode {them} with "
        f"--encode {refs}{by_index}{_comma_hint(src, repr(cell))}"
    )


def _one_hot(src: _Source, column: pd.Series, col: int) -> tuple[np.ndarray, str]:
    """One 0/1 feature per distinct value of ``column`` (sorted; a blank cell is the value
    ``<blank>``), and the note saying so."""
    values = _as_text(column)
    levels = sorted(values.unique())
    block = (values.to_numpy()[:, None] == np.array(levels)[None, :]).astype(np.float64)
    names = src.names
    name = names[col] if names else f"column {col + 1}"
    shown = ", ".join(f"{name}={v or '<blank>'}" for v in levels[:6])
    shown += ", ..." if len(levels) > 6 else ""
    blanks = int((values == "").sum())
    blank = (
        f"; a blank cell is a value of its own ({name}=<blank>, {blanks} "
        f"row{'s' if blanks > 1 else ''})"
        if blanks
        else ""
    )
    note = (
        f"{src.kind}: --encode {name}: one-hot, {len(levels)} features ({shown}){blank}; the "
        "values are those of every row, the test rows' included (the encoding reads no label, "
        "so the split's labels cannot leak), then scaled like the other features."
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
