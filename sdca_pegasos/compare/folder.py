"""The output folder DIR: which input it belongs to, which files in it are compare's.

DIR belongs to one input. :data:`MANIFEST`, written before anything else, records the input file's
SHA-256 and every option that changes what DIR holds
(:meth:`sdca_pegasos.compare.app.Settings.identity`). The same command finds its own manifest and
resumes; another file, or other options, is refused (:func:`check`), naming the two fixes: ``--out
NEW``, or ``--overwrite``, which removes compare's own files (:func:`own_files`) and nothing else
(:func:`remove_own`). A folder that is not empty and holds no manifest was not made by compare:
refused, ``--overwrite`` or not, since nothing says which of its files are compare's."""

from __future__ import annotations

import json
import os
import re
from fnmatch import fnmatch
from pathlib import Path

from sdca_pegasos.experiments import reports

from .inputs import BadInput
from .outputs import FIGURES

MANIFEST = "manifest.json"

#: compare's own files at the top of DIR (glob patterns): the manifest, the summary, the
#: reports and sidecars, the figures. Below it: ``optima/file-*.json`` (the optima of a
#: user's file) and ``runs/compare_lmbd*/`` (the runs).
TOP = (
    MANIFEST,
    "SUMMARY.md",
    "compare.parquet",
    "compare_lmbd*",
    *(f"{stem}_lmbd*.{ext}" for stem in FIGURES for ext in ("png", "pdf")),
)
#: What a writer leaves of a file it was writing or setting aside: ``.<name>.<pid>.tmp``
#: (:func:`sdca_pegasos.experiments.reports.atomic_write_parquet`), ``<name>.damaged[-k]``
#: (:func:`sdca_pegasos.experiments.reports.set_aside`).
_LEFTOVER = re.compile(r"^\.(?P<tmp>.+)\.\d+\.tmp$|^(?P<aside>.+)\.damaged(-\d+)?$")


def check(out: Path, manifest: dict, overwrite: bool) -> dict | None:
    """Whether the command of ``manifest`` may write in ``out``; writes nothing.

    Returns None when ``out`` is absent, empty, or holds the outputs of this same input
    (resumed), and the manifest found there when ``overwrite`` will remove its files.

    Raises
    ------
    BadInput
        ``out`` holds another input's outputs (without ``overwrite``), or is not empty and
        has no readable manifest.
    """
    if not out.is_dir() or not any(out.iterdir()):
        return None
    path = out / MANIFEST
    if not path.is_file():
        raise BadInput(
            f"--out {out}: not empty, and no {MANIFEST} says compare made it: name a new or "
            "empty folder (--overwrite clears only a folder compare made)"
        )
    try:
        old = json.loads(path.read_text())
        old_sha, old_options, old_command = old["sha256"], old["options"], old["command"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise BadInput(
            f"--out {out}: its {MANIFEST} is unreadable, so which input the folder holds is "
            "unknown: name a new folder (--out NEW)"
        ) from None
    if overwrite:
        return old
    if old_sha == manifest["sha256"] and old_options == manifest["options"]:
        return None
    if old_sha != manifest["sha256"]:
        what = (
            f"another file ({old.get('file')}, SHA-256 {old_sha[:12]}; {manifest['file']} is "
            f"{manifest['sha256'][:12]})"
        )
    else:
        what = f"other options (`{old_command}`)"
    raise BadInput(
        f"--out {out}: holds compare's outputs of {what}; name a new folder with --out NEW, "
        "or add --overwrite to remove compare's files from it and start again"
    )


def is_own(relative: Path) -> bool:
    """Whether a file at ``relative`` (to DIR) is one compare writes (or a leftover of one)."""
    *folders, name = relative.parts
    leftover = _LEFTOVER.match(name)
    if leftover:
        name = leftover["tmp"] or leftover["aside"]
    if not folders:
        return any(fnmatch(name, pattern) for pattern in TOP)
    if folders == ["optima"]:
        return fnmatch(name, "file-*.json")
    return len(folders) == 2 and folders[0] == "runs" and fnmatch(folders[1], "compare_lmbd*")


def own_files(out: Path) -> list[Path]:
    """compare's files in ``out``, sorted."""
    return sorted(p for p in out.rglob("*") if p.is_file() and is_own(p.relative_to(out)))


def remove_own(out: Path) -> int:
    """Remove compare's files from ``out`` but its manifest (which the new one replaces, so
    that a folder interrupted here still says whose it is), then the folders they leave
    empty; returns how many files were removed."""
    files = own_files(out)
    manifest = out / MANIFEST
    removed = [path for path in files if path != manifest]
    for path in removed:
        path.unlink()
    for folder in [*sorted((out / "runs").glob("compare_lmbd*")), out / "runs", out / "optima"]:
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return len(removed)


def write_manifest(out: Path, manifest: dict) -> None:
    """Write (or replace, atomically) ``out``'s manifest."""
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    reports.atomic_write_text(text, out / MANIFEST)


def manifest_of(file: Path, sha256: str, identity: dict, command: str) -> dict:
    """What :data:`MANIFEST` records: the input and every option that changes what DIR holds
    (``identity``, made JSON-equal to what is read back), and the command that made it."""
    return {
        "made_by": "python -m sdca_pegasos.compare",
        "file": os.fspath(file),
        "sha256": sha256,
        "options": json.loads(json.dumps(identity)),
        "command": command,
    }
