"""Command line: ``python -m sdca_pegasos.experiments {list,run,optima} ...`` (your own data:
``python -m sdca_pegasos.compare``)."""

from __future__ import annotations

import argparse
import os
import sys
import time

from sdca_pegasos import data
from sdca_pegasos.cmdline import positive_int

from . import datasets, optima
from .catalogue import CATALOGUE
from .runner import run_experiments


def _names(parser: argparse.ArgumentParser, requested: list[str]) -> list[str]:
    """The requested experiment names, or a usage error (status 2) naming the unknown ones."""
    if requested == ["all"]:
        return list(CATALOGUE)
    unknown = [n for n in requested if n not in CATALOGUE]
    if unknown:
        parser.error(
            f"unknown experiment(s) {unknown}; see `python -m sdca_pegasos.experiments list`"
        )
    return requested


def _missing_data(name: str) -> str | None:
    """The raw folder experiment ``name`` still needs, or None when its dataset is available."""
    dataset = CATALOGUE[name].dataset
    return None if data.available(dataset) else data.registry.folder(dataset)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sdca_pegasos.experiments", description=__doc__
    )
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="list the catalogue")
    listing.add_argument("--names", action="store_true", help="names only, one per line")
    which = listing.add_mutually_exclusive_group()
    which.add_argument(
        "--available",
        action="store_true",
        help="only experiments whose dataset is present (after `make data`)",
    )
    which.add_argument(
        "--missing", action="store_true", help="only experiments whose dataset is missing"
    )
    cpus = os.cpu_count() or 1
    opt = sub.add_parser("optima", help="certify every optimum the experiments need, in one pool")
    opt.add_argument("names", nargs="+", help="experiment names, or 'all'")
    opt.add_argument(
        "--n-jobs", type=positive_int, default=cpus, help=f"worker processes (default {cpus})"
    )
    run = sub.add_parser("run", help="run experiments (resumes; skips finished runs)")
    run.add_argument("names", nargs="+", help="experiment names, or 'all'")
    run.add_argument(
        "--seeds",
        type=positive_int,
        default=None,
        help="runs per config, >= 1 (default: the experiment's own, see `list`)",
    )
    run.add_argument(
        "--n-jobs", type=positive_int, default=cpus, help=f"worker processes (default {cpus})"
    )
    run.add_argument("--backend", choices=("loky", "dask"), default="loky")
    run.add_argument("--scheduler", default=None, help="dask scheduler address")
    run.add_argument("--no-optima", action="store_true", help="skip the certified optima")
    run.add_argument(
        "--allow-missing",
        action="store_true",
        help="skip experiments whose dataset is missing instead of failing",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    feat = sub.add_parser(
        "features",
        help="beyond: the warm lambda path (blood) and class weights (skin), certified",
        description="Build reports/beyond_features_{path,skin}.parquet (skips current ones).",
    )
    feat.add_argument("--only", choices=("path", "skin"), default=None)
    feat.add_argument("--seeds", type=positive_int, default=5, help="skin: runs per configuration")
    feat.add_argument("--repeats", type=positive_int, default=3, help="path: repeats of each path")
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["compare"]:  # moved up a floor: an application above experiments
        print(
            "`python -m sdca_pegasos.experiments compare` is now "
            "`python -m sdca_pegasos.compare FILE --out DIR`",
            file=sys.stderr,
        )
        return 2
    args = parser.parse_args(argv)
    if args.command == "features":
        from . import features

        parts = {"path": (features.PATH_REPORT,), "skin": (features.SKIN_REPORT,)}.get(
            args.only, (features.PATH_REPORT, features.SKIN_REPORT)
        )
        if features.PATH_REPORT in parts and not data.available("blood-cells"):
            print("features: blood-cell images missing: no lambda path", file=sys.stderr)
            parts = tuple(p for p in parts if p != features.PATH_REPORT)
        if features.SKIN_REPORT in parts and not data.available("skin"):
            print("features: skin missing: no class-weight comparison", file=sys.stderr)
            parts = tuple(p for p in parts if p != features.SKIN_REPORT)
        for path in features.ensure(
            parts,
            seeds=args.seeds,
            repeats=args.repeats,
            log=lambda m: print(m, file=sys.stderr),
        ):
            print(path)
        return 0
    if args.command == "run" and args.backend == "dask" and not args.scheduler:
        run.error("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")

    if args.command == "list":
        for name, exp in CATALOGUE.items():
            missing = _missing_data(name)
            if (args.available and missing) or (args.missing and not missing):
                continue
            if args.names:
                print(name)
                continue
            print(
                f"{name:<28} {exp.dataset:<10} {len(exp.configs):>3} configs x {exp.seeds} "
                f"seeds, {exp.epochs} epochs  {exp.description}"
            )
        return 0

    if args.command == "optima":
        names = [n for n in _names(opt, args.names) if not _missing_data(n)]
        start = time.perf_counter()
        count = optima.ensure_all([CATALOGUE[n] for n in names], n_jobs=args.n_jobs)
        print(f"optima: {count} certified in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        return 0

    skipped, exps = [], []
    names = _names(run, args.names)  # one dataset after another: a worker loads each once
    names.sort(
        key=lambda n: datasets.dataset_key(CATALOGUE[n].dataset, CATALOGUE[n].dataset_options)
    )
    for name in names:
        missing = _missing_data(name)
        if missing:
            if not args.allow_missing:
                raise SystemExit(
                    f"{name}: dataset folder '{missing}' is missing: run `make data` "
                    f"(or `python -m sdca_pegasos.data fetch {missing}`)"
                )
            skipped.append((name, missing))
            continue
        exps.append(
            CATALOGUE[name] if args.seeds is None else CATALOGUE[name].with_seeds(args.seeds)
        )
    start = time.perf_counter()
    # every experiment's runs in one pool, longest first, the missing optima ahead of them
    # in the same pool: no core idles while any task remains
    run_experiments(
        exps,
        n_jobs=args.n_jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        progress=not args.quiet,
        with_optima=not args.no_optima,
    )
    if exps:
        print(
            f"{len(exps)} experiments: done in {time.perf_counter() - start:.1f} s",
            file=sys.stderr,
        )
    if skipped:
        print(
            "\nSkipped (dataset missing; see `python -m sdca_pegasos.data fetch all`):",
            file=sys.stderr,
        )
        for name, folder in skipped:
            print(f"  {name:<28} needs data/raw/{folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
