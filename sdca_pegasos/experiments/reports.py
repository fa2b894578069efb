"""Where reports live and how they are written: atomically, one file per finished run.

Layout under the reports directory (every function takes it as ``root``; None means
``$SVM_REPORTS_DIR`` or ``<repo>/reports``: an application such as
``python -m sdca_pegasos.compare``
passes its own folder down, it never sets the variable)::

    <name>.parquet              every run's every epoch, long format (the report)
    <name>_coef.parquet         final coefficients of every run (experiments with store_coef)
    <name>.json                 sidecar: versions, git commit, CPU, workers, start/end time
    runs/<name>/<key>-s<r>.parquet        one finished run (key = Experiment.run_key)
    runs/<name>/<key>-s<r>.coef.parquet   its coefficients, written before the run file
    optima/<dataset key>_<λ>_<γ>.json     certified optimum P* (see experiments.optima)

A run file is the unit of durability: it is written to a temporary name and renamed, so it
exists completely or not at all, and its name is fixed by (key, seed), so it can never be
duplicated. The report is rebuilt from the run files of the current definition only.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[2]


class MissingInputError(FileNotFoundError):
    """A report, sidecar, coefficient table or optimum is missing (the message names the fix)."""


class DamagedInputError(MissingInputError):
    """A report, sidecar or coefficient table exists but cannot be read (truncated, garbage).

    A :class:`MissingInputError` too: to whoever reads it, it is as good as absent, and the
    fix is the same command (the runner rebuilds a damaged report from its run files).
    """


class StaleInputError(MissingInputError):
    """A report exists but holds runs of another definition or code than the current one
    (:func:`stale_report`): as good as absent, fixed by the same command."""


class DamagedFileWarning(UserWarning):
    """A damaged run file was set aside (renamed ``*.damaged``) and will be recomputed."""


class DamagedFilesError(Exception):
    """Run files that could not be read or hold the wrong run; ``damaged`` maps path → reason."""

    def __init__(self, damaged: dict[Path, str]):
        self.damaged = damaged
        super().__init__(
            "damaged run file(s): " + "; ".join(f"{p} ({r})" for p, r in damaged.items())
        )


def reports_dir(root: Path | str | None = None) -> Path:
    """``root`` if given, else ``$SVM_REPORTS_DIR``, else ``<repo>/reports``."""
    if root is not None:
        return Path(root)
    return Path(os.environ.get("SVM_REPORTS_DIR", REPO / "reports"))


def report_path(name: str, root: Path | str | None = None) -> Path:
    return reports_dir(root) / f"{name}.parquet"


def coef_path(name: str, root: Path | str | None = None) -> Path:
    return reports_dir(root) / f"{name}_coef.parquet"


def sidecar_path(name: str, root: Path | str | None = None) -> Path:
    return reports_dir(root) / f"{name}.json"


def runs_dir(name: str, root: Path | str | None = None) -> Path:
    return reports_dir(root) / "runs" / name


def run_path(name: str, key: str, seed_index: int, root: Path | str | None = None) -> Path:
    return runs_dir(name, root) / f"{key}-s{seed_index:04d}.parquet"


def coef_run_path(name: str, key: str, seed_index: int, root: Path | str | None = None) -> Path:
    return runs_dir(name, root) / f"{key}-s{seed_index:04d}.coef.parquet"


def atomic_write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` so that the file is either complete or absent."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    frame.to_parquet(tmp, index=False)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def atomic_write_text(text: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def parquet_problem(path: Path) -> str | None:
    """Why ``path`` is not a complete parquet file (None when its footer reads).

    Reads only the footer (a few kB): a truncated file has lost it, garbage has no magic
    bytes. A file whose footer survives but whose data is damaged is caught when it is read.
    """
    try:
        pq.read_metadata(path)
    except FileNotFoundError:
        return "missing"
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for every kind of damage
        return f"{type(exc).__name__}: {exc}"
    return None


def set_aside(path: Path, reason: str) -> Path:
    """Rename a damaged file to ``<name>.damaged`` (``.damaged-2``, ... if taken) and warn.

    The file is kept for inspection and no longer matches ``*.parquet``, so nothing reads it.
    """
    target, k = path.with_name(path.name + ".damaged"), 1
    while target.exists():
        k += 1
        target = path.with_name(f"{path.name}.damaged-{k}")
    os.replace(path, target)
    warnings.warn(
        f"run file {path} set aside as {target.name} ({reason}); the run is recomputed",
        DamagedFileWarning,
        stacklevel=2,
    )
    return target


def remove_stale_temporaries(directory: Path) -> int:
    """Delete temporary files left by a killed writer; returns how many."""
    if not directory.exists():
        return 0
    stale = list(directory.glob(".*.tmp"))
    for tmp in stale:
        tmp.unlink(missing_ok=True)
    return len(stale)


def consolidate(
    files: Iterable[Path],
    out: Path,
    order: Callable[[list[str]], list[str]] | None = None,
    check: Callable[[Path, pd.DataFrame], str | None] | None = None,
) -> pd.DataFrame:
    """Concatenate run files (in the given order) into the report ``out``.

    Every file must read and pass ``check(path, frame)`` (which returns why a frame is wrong,
    or None); otherwise :class:`DamagedFilesError` names them all and ``out`` is not written.
    """
    frames, damaged = [], {}
    for f in files:
        try:
            frame = pd.read_parquet(f)
        except Exception as exc:  # truncated, garbage, a damaged column chunk
            damaged[f] = f"{type(exc).__name__}: {exc}"
            continue
        problem = check(f, frame) if check is not None else None
        if problem:
            damaged[f] = problem
        frames.append(frame)
    if damaged:
        raise DamagedFilesError(damaged)
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if order is not None and len(frame.columns):
        frame = frame[order(list(frame.columns))]
    atomic_write_parquet(frame, out)
    return frame


def missing(path: Path, name: str, what: str = "report") -> MissingInputError:
    """The error for a missing output of experiment ``name``: names the command that builds it."""
    return MissingInputError(
        f"{what} {path} does not exist: run `make reports/{name}.parquet` "
        f"(or `python -m sdca_pegasos.experiments run {name}`)"
    )


def damaged(path: Path, name: str, exc: Exception, what: str = "report") -> DamagedInputError:
    """The error for an unreadable output of experiment ``name``: names the command."""
    return DamagedInputError(
        f"{what} {path} is damaged ({type(exc).__name__}: {exc}): run "
        "`python -m sdca_pegasos.experiments "
        f"run {name}`, which rebuilds it from its run files"
    )


def stale_report(exp, root: Path | str | None = None) -> str | None:
    """Why the stored report of ``exp`` does not hold the runs of its current definition, or
    None when it does (or when there is none: reading it then names its ``make`` target).

    Current means: for some seed count S (the report's own: ``--seeds`` may differ from the
    catalogue's), exactly the runs ``(run key, seed index)`` of every configuration's current key
    (which hashes its definition and the code,
    :meth:`sdca_pegasos.experiments.spec.Experiment.run_key`) and seeds 0..S-1, or 0..min(S, cap)-1
    for a configuration with its own seed cap (``Config.seeds``). Only two columns of the report
    are read and no run file is opened, so a reader (the scorecard) can refuse stale numbers
    without planning the runs."""
    path = report_path(exp.name, root)
    if not path.is_file():
        return None
    try:
        stored = pq.read_table(path, columns=["run_key", "seed_index"]).to_pandas()
    except Exception:  # damaged, or no such columns: reading the report says which
        return None
    caps = {exp.run_key(cfg): cfg.seeds for cfg in exp.configs}  # a config's own seed cap
    keys = set(caps)
    runs = set(zip(stored["run_key"], stored["seed_index"].astype(int), strict=True))
    # S from the configurations without a cap (every configuration when all have one)
    uncapped = {key for key, cap in caps.items() if cap is None} or keys
    seeds = 1 + max((r for key, r in runs if key in uncapped), default=-1)
    expected = {(key, r) for key in keys for r in range(min(seeds, caps[key] or seeds))}
    if runs == expected and seeds > 0:
        return None
    other = len({run for run in runs if run[0] not in keys})
    lacking = len(expected - runs)
    why = []
    if other:
        why.append(f"{other} of its {len(runs)} runs were made by another definition or code")
    if lacking or not runs:
        why.append(f"it lacks {lacking or len(keys)} run(s) of the current definition")
    beyond = len({run for run in runs - expected if run[0] in keys})
    if beyond:
        why.append(f"it holds {beyond} run(s) beyond a configuration's seed count")
    return (
        f"report {path} is stale ({'; '.join(why)}): run `make reports/{exp.name}.parquet` "
        f"(or `python -m sdca_pegasos.experiments run {exp.name}`)"
    )


def load_report(
    name: str, root: Path | str | None = None, columns: list[str] | None = None
) -> pd.DataFrame:
    """Read report ``name`` (optionally only ``columns``); missing: :class:`MissingInputError`,
    unreadable: :class:`DamagedInputError`."""
    path = report_path(name, root)
    if not path.is_file():
        raise missing(path, name)
    try:
        return pd.read_parquet(path, columns=list(columns) if columns else None)
    except Exception as exc:
        raise damaged(path, name, exc) from exc


def load_coef(name: str, root: Path | str | None = None) -> pd.DataFrame:
    """Read the final coefficients of every run of ``name`` (one row per feature)."""
    path = coef_path(name, root)
    if not path.is_file():
        raise missing(path, name, "coefficient report")
    try:
        return pd.read_parquet(path)
    except Exception as exc:
        raise damaged(path, name, exc, "coefficient report") from exc


def load_sidecar(name: str, root: Path | str | None = None) -> dict:
    """Read the sidecar of ``name`` (dataset metadata, versions, seeds, timing)."""
    path = sidecar_path(name, root)
    if not path.is_file():
        raise missing(path, name, "report sidecar")
    try:
        return json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise damaged(path, name, exc, "report sidecar") from exc


def short_commit(commit: str) -> str:
    """A commit as a README states it: ten hex digits, "-dirty" kept (a run of a checkout
    with uncommitted changes must not pass for the commit's own)."""
    head, dirty = commit.removesuffix("-dirty"), commit.endswith("-dirty")
    return head[:10] + ("-dirty" if dirty else "")


def rewrite_block(path: Path | str, markers: tuple[str, str], block: str) -> bool:
    """Replace the text between the two marker lines of ``path`` (a README's generated
    block) by ``block``; True if the file changed. Missing markers are a ValueError that
    names them (nothing is appended elsewhere)."""
    path = Path(path)
    text = path.read_text()
    begin, end = markers
    if begin not in text or end not in text:
        raise ValueError(f"{path}: the markers of the generated block are missing ({begin})")
    head, rest = text.split(begin, 1)
    new = f"{head}{begin}\n{block}\n{end}{rest.split(end, 1)[1]}"
    if new != text:
        path.write_text(new)
    return new != text


def rewrite_blocks(path: Path | str, record: dict, blocks, script: str) -> None:
    """Rewrite every generated block of ``blocks`` (``(markers, render)`` pairs, ``render``
    taking the record) that ``path`` holds, each with :func:`rewrite_block`; a file that holds
    none is a ValueError naming ``script``."""
    text = Path(path).read_text()
    found = [(markers, render) for markers, render in blocks if markers[0] in text]
    if not found:
        raise ValueError(f"{path} holds none of {script}'s generated blocks")
    for markers, render in found:
        rewrite_block(path, markers, render(record))


def readme_arguments(parser, record_path: str) -> None:
    """A benchmark's ``--readme FILE`` and ``--record JSON`` (default ``record_path``): its
    generated block in FILE rewritten from the committed record (:func:`readme_requested`)."""
    parser.add_argument("--readme", help="rewrite this file's generated block from --record")
    parser.add_argument("--record", default=record_path)


def readme_requested(args, markers: tuple[str, str], render) -> bool:
    """With ``--readme``: :func:`rewrite_block` with ``render(record)``, the record read from
    ``--record``; True. Without it: False (the benchmark runs)."""
    if not args.readme:
        return False
    record = json.loads(Path(args.record).read_text())
    rewrite_block(args.readme, markers, render(record))
    return True


def record_head(benchmark: str) -> dict:
    """The fields every benchmark record starts with: its name, the commit (``-dirty`` if
    tracked files changed), the date, the machine and the load average at the start."""
    return {
        "benchmark": benchmark,
        "git": git_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpus": os.cpu_count(), "uname": " ".join(os.uname())},
        "load_start": os.getloadavg()[0],
    }


def measured(date: str, git: str, load: float, cores: int, command: str, end: str = "") -> str:
    """How a generated sentence says where its numbers come from: ``Measured DATE (git
    SHORT, load L at the start, N cores; `command`)``, ``under load`` after the start's load
    when it passes 0.75 per core, and ``end`` (e.g. the load at the end) before the cores."""
    busy = ", under load" if load > 0.75 * cores else ""
    end = f", {end}" if end else ""
    return (
        f"Measured {date[:10]} (git {git[:7]}, load {load:.1f} at the start{busy}{end}, "
        f"{cores} cores; `{command}`)"
    )


def measured_record(record: dict, command: str | None = None, end: str = "") -> str:
    """:func:`measured` of a benchmark's record: its ``date``, ``git``, ``load_start`` (the
    1-minute load where it holds the three of ``os.getloadavg()``), ``machine["cpus"]`` and,
    unless ``command`` is given, its ``command``."""
    load = record["load_start"]
    load = load[0] if isinstance(load, (list, tuple)) else load
    command = record["command"] if command is None else command
    return measured(record["date"], record["git"], load, record["machine"]["cpus"], command, end)


def write_record(folder, name: str, record: dict, **dump) -> Path:
    """``record`` as JSON in ``folder/name`` (made if missing), written whole or not at all
    (a temporary file renamed); ``dump``: arguments of ``json.dump`` (default: indent 1)."""
    os.makedirs(folder, exist_ok=True)
    path = Path(folder) / name
    tmp = path.with_name(f"{path.name}.tmp")
    with open(tmp, "w") as f:
        json.dump(record, f, **{"indent": 1, **dump})
    os.replace(tmp, path)
    print(f"record: {path}")
    return path


def git_commit() -> str:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def environment() -> dict:
    """Versions, commit and machine, for the sidecar."""
    import numba
    import numpy
    import sklearn

    return {
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "scikit-learn": sklearn.__version__,
        "pandas": pd.__version__,
        "git_commit": git_commit(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
    }


def write_sidecar(name: str, info: dict, root: Path | str | None = None) -> None:
    atomic_write_text(
        json.dumps(info, indent=2, sort_keys=True, default=str) + "\n", sidecar_path(name, root)
    )
