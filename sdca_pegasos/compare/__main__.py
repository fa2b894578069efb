"""Command line: ``python -m sdca_pegasos.compare FILE --out DIR [options]`` (``--help``: all)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The project's own packages: a missing one is not a missing dependency.
PROJECT = ("sdca_pegasos",)


def _missing_dependency(exc: ModuleNotFoundError) -> str:
    """The one line for a Python that lacks compare's dependencies, with how to install."""
    return (
        f"python -m sdca_pegasos.compare: this Python ({sys.executable}) lacks {exc.name}, "
        "which compare needs: run `make venv`, then "
        "`.venv/bin/python -m sdca_pegasos.compare FILE --out DIR` (or "
        "`pip install -e .` into the environment of this Python)"
    )


try:
    from sdca_pegasos.cmdline import fraction, positive_float, positive_int
    from sdca_pegasos.experiments import optima
    from sdca_pegasos.experiments.catalogue import MAIN_VARIANTS

    from .app import Settings, execute, interrupted, prepare
    from .inputs import MAX_LABELS, BadInput
    from .problem import SCALES
    from .progress import Console
except ModuleNotFoundError as exc:
    if exc.name is None or exc.name.split(".")[0] in PROJECT:
        raise
    if __name__ != "__main__":  # imported (by a test, a script): the error is theirs to see
        raise
    print(_missing_dependency(exc), file=sys.stderr)
    raise SystemExit(1) from None

DESCRIPTION = (
    "Run the studies' main solvers on FILE (a binary classification problem: a table (CSV, TSV "
    "or other delimited text; parquet), .npz or svmlight/libsvm) and write to DIR the optimum "
    "P* (certified, or said not to be), every run's every epoch, the standard figures and "
    "SUMMARY.md: which of the studies' claims hold on this data. Everything is checked before "
    "DIR is written; running the same command again resumes."
)


#: ``--sep`` by name.
SEPARATOR_WORDS = {"tab": "\t", "\\t": "\t", "space": " ", "comma": ",", "semicolon": ";",
                   "pipe": "|"}  # fmt: skip


def separator(text: str) -> str:
    """``--sep``: one character that may separate fields (not a letter, digit, quote, point,
    sign or line end), or a name of :data:`SEPARATOR_WORDS`."""
    value = SEPARATOR_WORDS.get(text.lower(), text)
    if len(value) != 1 or value.isalnum() or value in "\"'.+-\r\n":
        raise argparse.ArgumentTypeError(
            f"expected one character that separates fields (, ; | ...), tab or space, got {text!r}"
        )
    return value


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block): ``python -m sdca_pegasos.compare: error:
    ...``."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m sdca_pegasos.compare", description=DESCRIPTION)
    p.add_argument(
        "file", type=Path, metavar="FILE",
        help=".csv, .tsv or other delimited text, .parquet, .npz (X, y) or svmlight/libsvm; "
        "another suffix (.txt) is read by its content, and said",
    )  # fmt: skip
    p.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="output folder (created)"
    )
    p.add_argument(
        "--lmbd", type=positive_float, nargs="+", default=None, metavar="λ",
        help="regularisation λ, one or more (default: 1/n, n the training samples; "
        "LinearSVC's C = 1/(λn))",
    )  # fmt: skip
    p.add_argument(
        "--seeds", type=positive_int, default=5, metavar="N", help="runs per solver (default 5)"
    )
    p.add_argument(
        "--max-epochs", type=positive_int, default=20, metavar="N",
        help="epochs per run (default 20)",
    )  # fmt: skip
    p.add_argument(
        "--solvers", nargs="+", choices=list(MAIN_VARIANTS), default=list(MAIN_VARIANTS),
        metavar="NAME",
        help="solvers to run (default: all, the studies' main variants: "
        + ", ".join(f"{k} = {c.label}" for k, c in MAIN_VARIANTS.items()) + ")",
    )  # fmt: skip
    p.add_argument(
        "--test-size", type=fraction, default=0.25, metavar="FRACTION",
        help="held-out fraction, stratified, in [0, 1) (default 0.25; 0: no test set)",
    )  # fmt: skip
    p.add_argument(
        "--label-col", default=None, metavar="NAME|INDEX",
        help="tables: the label column, by header name or index (0 the first column of the "
        f"file, -1 the last; default: the last, refused when it holds more than {MAX_LABELS} "
        "distinct values, or more than two with fractions, unless --classes or --positive)",
    )  # fmt: skip
    labels = p.add_mutually_exclusive_group()
    labels.add_argument(
        "--classes", nargs=2, default=None, metavar=("A", "B"),
        help="more than two labels: keep the samples labelled A or B (A is -1, B +1) and "
        "leave the others out",
    )  # fmt: skip
    labels.add_argument(
        "--positive", default=None, metavar="A",
        help="more than two labels: A against the rest (A is +1, every other label -1)",
    )  # fmt: skip
    p.add_argument(
        "--drop-cols", nargs="+", default=(), metavar="NAME|INDEX",
        help="tables: columns to leave out (by header name or index, as --label-col), e.g. an "
        "id, a text column or a column of many empty cells",
    )  # fmt: skip
    p.add_argument(
        "--encode", nargs="+", default=(), metavar="NAME|INDEX",
        help="tables: columns of categories (text) to one-hot encode: one 0/1 feature per "
        "value, a blank cell a value of its own, the values those of every row (the encoding "
        "reads no label, so the split cannot leak)",
    )  # fmt: skip
    p.add_argument(
        "--dropna", action="store_true",
        help="tables: leave out the rows with an empty cell (blank, NA, NaN, null) in a feature "
        "or the label (not in an --encode column); the summary says how many, and where "
        "(default: such a file is refused, naming every column with empty cells)",
    )  # fmt: skip
    p.add_argument(
        "--sep", type=separator, default=None, metavar="CHAR",
        help="CSV: the field separator, one character (, ; | ...), tab or space (runs of "
        "spaces); default: the one of , ; tab | that splits every one of the first lines "
        "alike, said when it is not the suffix's (.csv: comma, .tsv: tab); makes a file of "
        "another suffix (.txt) a table",
    )  # fmt: skip
    p.add_argument(
        "--decimal", choices=(".", ","), default=None,
        help="CSV: the decimal mark of its numbers (default: a comma where the file is not "
        "separated by commas and writes its numbers 1,5, said; otherwise a point)",
    )  # fmt: skip
    p.add_argument(
        "--encoding", default=None, metavar="NAME",
        help="CSV: the file's text encoding (default utf-8; e.g. latin-1 or cp1252 for a "
        "file saved by Excel on Windows)",
    )  # fmt: skip
    p.add_argument(
        "--zero-based", choices=("auto", "yes", "no"), default="auto",
        help="svmlight: whether column indices start at 0 (yes: scikit-learn's "
        "dump_svmlight_file) or 1 (no: libsvm); auto: 1 unless the file uses index 0 "
        "(default auto; the number of features read is printed)",
    )  # fmt: skip
    p.add_argument(
        "--intercept", action=argparse.BooleanOptionalAction, default=True,
        help="fit an intercept, as LinearSVC: a constant feature 1 through the solvers' bias "
        "multiplier, regularised like the weights (default: on)",
    )  # fmt: skip
    p.add_argument(
        "--scale", choices=SCALES, default="auto",
        help="feature scaling, fitted on the training split only: standard (centre, unit "
        "variance), maxabs (divide by the largest |x|; keeps sparsity), none; auto: standard "
        "for dense data, maxabs for sparse (default auto)",
    )  # fmt: skip
    p.add_argument(
        "--certify-budget", type=positive_float, default=optima.BUDGET_SECONDS,
        metavar="SECONDS",
        help="CPU seconds the exact engine may spend on P* per λ (default "
        f"{optima.BUDGET_SECONDS:g}); past it, P* is reported not certified, with its bounds",
    )  # fmt: skip
    p.add_argument(
        "--overwrite", action="store_true",
        help="DIR holds compare's outputs of another file or other options: remove them (only "
        "compare's own files) and start again (without it, such a DIR is refused)",
    )  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress lines (warnings stay)")
    return p


def settings_of(args: argparse.Namespace) -> Settings:
    """The :class:`sdca_pegasos.compare.app.Settings` of parsed arguments."""
    return Settings(
        file=args.file,
        out=args.out,
        lmbds=tuple(args.lmbd) if args.lmbd else None,
        seeds=args.seeds,
        epochs=args.max_epochs,
        solvers=tuple(dict.fromkeys(args.solvers)),
        test_size=args.test_size,
        label_col=args.label_col,
        zero_based=args.zero_based,
        intercept=args.intercept,
        scale=args.scale,
        certify_budget=args.certify_budget,
        classes=tuple(args.classes) if args.classes else None,
        positive=args.positive,
        drop_cols=tuple(dict.fromkeys(args.drop_cols)),
        encode=tuple(dict.fromkeys(args.encode)),
        encoding=args.encoding,
        sep=args.sep,
        decimal=args.decimal,
        dropna=args.dropna,
    )


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a bad option (one line already printed)
        return int(exc.code or 0)
    settings = settings_of(args)
    console = Console(quiet=args.quiet)
    plan = None
    try:
        plan = prepare(settings, console, overwrite=args.overwrite)
        paths = execute(plan, console)
    except BadInput as exc:
        print(f"compare: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ncompare: {interrupted(plan)}", file=sys.stderr)
        return 130
    except OSError as exc:  # a full disk, a folder removed under us: not a traceback
        print(f"compare: {exc.strerror or exc}: {exc.filename or settings.out}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
