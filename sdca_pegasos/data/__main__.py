"""Command line: ``python -m sdca_pegasos.data fetch NAME|all``, ``status``, ``prepare blood``.

``fetch all`` tries every dataset, continues after failures, and ends with one table
(dataset, status, what is missing, how to get it). Exit status: 0 when every required
dataset is verified and complete, 1 otherwise; ``--allow-missing`` makes it 0 anyway so that
``make reproduce`` can go on and skip the experiments whose data is missing. The optional
``genomic-original`` dataset never fails ``fetch all`` when it is simply absent.
"""

from __future__ import annotations

import argparse
import sys
import time

from sdca_pegasos.cmdline import existing_dir, positive_int

from . import fetch as F
from .errors import DataError, ManualDownloadRequired
from .paths import cache_root, mirror_root, raw_root


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    widths[-1] = 0  # last column is free text
    line = "  ".join("-" * w if w else "-" * 12 for w in widths)
    fmt = "  ".join(f"{{:<{w}}}" if w else "{}" for w in widths)
    return "\n".join([fmt.format(*header), line, *(fmt.format(*r) for r in rows)])


def _outcome_row(o: F.Outcome) -> tuple[str, str, str, str]:
    src = F.get_source(o.name)
    dest = raw_root() / src.name
    if o.ok:
        return (o.name, "ok", "-", f"{o.report.n_files} file(s) verified in {dest}")
    absent = isinstance(o.error, ManualDownloadRequired)
    if o.optional and absent:
        status = "optional, absent"
    elif absent:
        status = "MISSING"
    else:
        status = f"FAILED ({type(o.error).__name__})"
    n_expected = len(F.expected_files(src))
    missing = (
        f"{len(o.missing)} of {n_expected} files (e.g. {o.missing[0]})"
        if o.missing
        else "completion marker"
    )
    return (o.name, status, missing, src.howto.format(dest=dest))


def _cmd_fetch(args: argparse.Namespace) -> int:
    mirror = None if args.no_mirror else (args.mirror if args.mirror else mirror_root())
    names = list(F.SOURCES) if args.name == "all" else [F.canonical_name(args.name)]
    where = f"mirror {mirror}" if mirror else "public sources (DATA_MIRROR not set)"
    print(f"fetching {', '.join(names)} into {raw_root()} from {where}", flush=True)

    # an optional dataset that is simply absent does not fail `fetch all`; asked for by name,
    # it is treated like any other dataset
    def soft(o: F.Outcome) -> bool:
        return args.name == "all" and o.optional and isinstance(o.error, ManualDownloadRequired)

    outcomes = []
    for name in names:
        start = time.perf_counter()
        [o] = F.fetch_many(
            [name],
            mirror=mirror,
            include_optional=args.with_test_simple,
            full_check=args.full_check,
            progress=None if not args.quiet else False,
        )
        outcomes.append(o)
        if o.ok:
            print(f"  {o.report.summary()} [{time.perf_counter() - start:.1f} s]", flush=True)
        elif not soft(o):
            print(f"\nERROR {o.name}:\n{o.error}\n", file=sys.stderr, flush=True)
    failed = [o for o in outcomes if not o.ok]
    if len(outcomes) > 1 or failed:
        print()
        print(
            _table(
                [_outcome_row(o) for o in outcomes],
                ("dataset", "status", "missing", "how to get it"),
            )
        )
    fatal = [o for o in failed if not soft(o)]
    if not fatal:
        return 0
    if args.allow_missing:
        print(
            f"\n--allow-missing: continuing without {', '.join(o.name for o in fatal)}; "
            "experiments that need them will be skipped.",
            flush=True,
        )
        return 0
    print(
        f"\n{len(fatal)} dataset(s) not available: {', '.join(o.name for o in fatal)} "
        "(use --allow-missing to continue without them)",
        file=sys.stderr,
    )
    return 1


def _cmd_status(args: argparse.Namespace) -> int:
    rows = []
    for name, src in F.SOURCES.items():
        ok = F.available(name)
        missing = F.unverified_files(src)
        n = len(F.expected_files(src))
        rows.append(
            (
                name,
                "verified" if ok else ("optional, absent" if src.optional else "NOT AVAILABLE"),
                "-" if ok else f"{len(missing)} of {n} files unverified",
            )
        )
    print(f"raw data: {raw_root()}\ncache:    {cache_root()}\n")
    print(_table(rows, ("dataset", "status", "detail")))
    return 0 if all(F.available(n) for n, s in F.SOURCES.items() if not s.optional) else 1


def _cmd_prepare(args: argparse.Namespace) -> int:
    from . import blood

    try:
        start = time.perf_counter()
        c = blood.crops(n_jobs=args.n_jobs)
        seconds = time.perf_counter() - start
        print(f"crops: {len(c.X_train)} + {len(c.X_test)} images [{seconds:.1f} s]")
        for k in args.pca:
            start = time.perf_counter()
            blood.fit_pca(k)
            print(f"PCA-{k}: [{time.perf_counter() - start:.1f} s]")
        if args.singular_values:
            start = time.perf_counter()
            blood.singular_values()
            print(f"singular values: [{time.perf_counter() - start:.1f} s]")
    except DataError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m sdca_pegasos.data``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m sdca_pegasos.data", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fetch", help="copy or download datasets into data/raw, verified")
    p.add_argument("name", help=f"one of {', '.join(F.SOURCES)}, 'blood', or 'all'")
    p.add_argument("--allow-missing", action="store_true", help="exit 0 even if data is missing")
    p.add_argument("--mirror", type=existing_dir, help="mirror root (default: $DATA_MIRROR)")
    p.add_argument("--no-mirror", action="store_true", help="ignore $DATA_MIRROR; download")
    p.add_argument("--full-check", action="store_true", help="re-hash already verified files")
    p.add_argument(
        "--with-test-simple", action="store_true", help="blood-cells: also fetch TEST_SIMPLE"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_cmd_fetch)

    p = sub.add_parser("status", help="which datasets are verified and complete")
    p.set_defaults(func=_cmd_status)

    p = sub.add_parser("prepare", help="build derived caches (blood-cell crops, PCA)")
    p.add_argument("name", choices=["blood"])
    p.add_argument("--n-jobs", type=positive_int, default=2, help="crop workers (default 2)")
    p.add_argument(
        "--pca", type=positive_int, nargs="*", default=[40], help="PCA sizes to fit (40)"
    )
    p.add_argument("--singular-values", action="store_true", help="also the singular values")
    p.set_defaults(func=_cmd_prepare)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:  # unknown dataset name
        parser.error(str(exc))
        return 2


if __name__ == "__main__":
    sys.exit(main())
