"""Acquisition: fill ``data/raw/<name>/`` from a mirror or the public source, verified.

This module is the only one that writes raw data; the loaders only read it. For each dataset:

1. the expected files and their checksums come from ``sdca_pegasos/data/checksums/<name>.<kind>``,
1. kept in the project (never read from the mirror at run time);
2. a file already listed in ``<dest>/.fetch-manifest.json`` with the same size and
   modification time is skipped cheaply; any other file present is hashed in full;
3. a missing or wrong file is copied from ``$DATA_MIRROR/<name>/`` when that folder exists,
   else downloaded from the public source, into a temporary name next to the target; it is
   hashed and moved into place with ``os.replace`` only when the checksum matches;
4. ``<dest>/.fetch-complete.json`` is written only after every required file is verified, and
   removed before any work starts, so a partial or interrupted fetch never looks complete.

:func:`available` answers "is this dataset verified and complete?" from the manifest (size
and modification time of every file), without hashing. ``fetch(..., full_check=True)``
re-hashes everything.

Datasets
--------
``blood-cells``
    Kaggle "blood-cells" ``dataset2-master/images/{TRAIN,TEST}/{LYMPHOCYTE,NEUTROPHIL}``
    (TEST_SIMPLE only with ``include_optional=True``). Kaggle needs a login, so without a
    mirror the files must be put in place by hand (the error says how) and then verified.
``skin``
    UCI Skin Segmentation ``Skin_NonSkin.txt``, downloaded from UCI.
``genomic``
    ``data/gravier.RData`` and ``data/gordon.RData`` of the R package datamicroarray
    (substitutes for the study's data), downloaded from GitHub at a pinned commit.
``genomic-original``
    Optional. The study's ``xtrain.txt`` / ``ytrain.txt``, checked by git blob id. Not
    downloadable here: the user puts them in place (the error says where from).
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from tqdm import tqdm  # not tqdm.auto: it warns in a Jupyter kernel without ipywidgets

from .errors import ChecksumError, DataError, DataMissingError, FetchError, ManualDownloadRequired
from .paths import CHECKSUM_DIR, atomic_path, atomic_write_text, mirror_root, raw_root

__all__ = [
    "ALIASES",
    "SOURCES",
    "FetchReport",
    "Outcome",
    "Source",
    "available",
    "canonical_name",
    "expected_files",
    "fetch",
    "fetch_many",
    "file_digest",
    "get_source",
    "require",
    "unverified_files",
]

MANIFEST_NAME = ".fetch-manifest.json"
MARKER_NAME = ".fetch-complete.json"
CHUNK_SIZE = 1 << 20
DOWNLOAD_TIMEOUT = 60.0
_FROM_ENV = object()  # sentinel: "use $DATA_MIRROR"


@dataclass(frozen=True)
class Source:
    """Where a dataset comes from and which files it must contain.

    Attributes
    ----------
    name : str
        Folder name under the raw root and the mirror (``blood-cells``, ``skin``, ...).
    checksum_file : Path
        Project copy of the checksums, ``<digest>  <relative path>`` per line.
    hash_kind : {"sha256", "gitblob"}
        ``gitblob`` is git's blob id: SHA-1 of ``b"blob <size>\\0" + content``.
    required_prefixes : tuple of str
        Only listed files whose path starts with one of these are required (all if empty).
    optional_prefixes : tuple of str
        Listed files fetched only with ``include_optional=True``.
    urls : mapping of str to str
        Public download address of each file (relative path → URL); empty when the data
        cannot be downloaded without a login or at all.
    instructions : str
        How to obtain the files by hand; ``{dest}`` is replaced by the target folder.
    howto : str
        The same in one line, for the summary table of ``python -m sdca_pegasos.data fetch all``.
    optional : bool
        Optional datasets are not part of ``fetch all``'s exit status.
    """

    name: str
    checksum_file: Path
    hash_kind: str = "sha256"
    required_prefixes: tuple[str, ...] = ()
    optional_prefixes: tuple[str, ...] = ()
    urls: Mapping[str, str] = field(default_factory=dict)
    instructions: str = ""
    howto: str = ""
    optional: bool = False


_BLOOD_INSTRUCTIONS = """\
blood-cells cannot be downloaded automatically: Kaggle needs a login. Get the images by hand:
  (a) Kaggle (needs an account and ~/.kaggle/kaggle.json):
        pip install kaggle
        kaggle datasets download paultimothymooney/blood-cells
        unzip blood-cells.zip 'dataset2-master/*'
      The zip nests the folder twice (dataset2-master/dataset2-master/images); move the
      inner images/ folder so that these exist:
        {dest}/dataset2-master/images/TRAIN/LYMPHOCYTE/*.jpeg
        {dest}/dataset2-master/images/TRAIN/NEUTROPHIL/*.jpeg
        {dest}/dataset2-master/images/TEST/LYMPHOCYTE/*.jpeg
        {dest}/dataset2-master/images/TEST/NEUTROPHIL/*.jpeg
  (b) or the byte-identical GitHub copy (commit 0b22eb2084b1004d464fb5ab87adc85ab94b2079):
        git clone https://github.com/dhruvp/wbc-classification
        mkdir -p {dest}/dataset2-master
        cp -r wbc-classification/images {dest}/dataset2-master/images
  (c) or set DATA_MIRROR to a folder holding blood-cells/dataset2-master/images/...
Then run `python -m sdca_pegasos.data fetch blood-cells`: it verifies every file against
sdca_pegasos/data/checksums/blood-cells.sha256 and marks the dataset complete."""

_GENOMIC_ORIGINAL_INSTRUCTIONS = """\
genomic-original (the study's breast-cancer relapse data, 184 samples x 4654 genes) is not
downloadable from here. With internet access:
    git clone https://github.com/AishaAlaagib/breast_cancer_relapse
    (or github.com/HansCeril/Machine_learning_Cancer_prediction,
     github.com/AmrKhalifa/Cancer_relapse_prediction for xtrain.txt)
find xtrain.txt (genes x samples: 4654 rows, gene id + 184 sample columns) and ytrain.txt
(184 labels, +1 = relapse) in the clone and copy both to
    {dest}/xtrain.txt
    {dest}/ytrain.txt
Check them with `git hash-object xtrain.txt ytrain.txt`; they must be
3b7db0f289831155a98b056fddec275c4b021e0b and e454935f39c6716494dfe253d5fc39b93bc6112a.
Then run `python -m sdca_pegasos.data fetch genomic-original` to verify and mark them complete.
Until then the genomic experiments use the substitutes (data.load("genomic"))."""

_DATAMICROARRAY = (
    "https://github.com/ramhiser/datamicroarray/raw/a95f6f68ed3debf48ee54f198435fa12aa655b16/data/"
)

SOURCES: dict[str, Source] = {
    "blood-cells": Source(
        name="blood-cells",
        checksum_file=CHECKSUM_DIR / "blood-cells.sha256",
        required_prefixes=(
            "dataset2-master/images/TRAIN/LYMPHOCYTE/",
            "dataset2-master/images/TRAIN/NEUTROPHIL/",
            "dataset2-master/images/TEST/LYMPHOCYTE/",
            "dataset2-master/images/TEST/NEUTROPHIL/",
        ),
        optional_prefixes=("dataset2-master/images/TEST_SIMPLE/",),
        instructions=_BLOOD_INSTRUCTIONS,
        howto=(
            "Kaggle login: `kaggle datasets download paultimothymooney/blood-cells` (or clone "
            "github.com/dhruvp/wbc-classification, images/) -> {dest}/dataset2-master/images/; "
            "then `python -m sdca_pegasos.data fetch blood-cells`"
        ),
    ),
    "skin": Source(
        name="skin",
        checksum_file=CHECKSUM_DIR / "skin.sha256",
        urls={
            "Skin_NonSkin.txt": (
                "https://archive.ics.uci.edu/ml/machine-learning-databases/00229/Skin_NonSkin.txt"
            )
        },
        instructions=(
            "Download Skin_NonSkin.txt from the UCI repository "
            "(https://archive.ics.uci.edu/dataset/229/skin+segmentation) to {dest}/ "
            "then run `python -m sdca_pegasos.data fetch skin`."
        ),
        howto="network access to archive.ics.uci.edu (or DATA_MIRROR); "
        "`python -m sdca_pegasos.data fetch skin`",
    ),
    "genomic": Source(
        name="genomic",
        checksum_file=CHECKSUM_DIR / "genomic.sha256",
        urls={
            "data/gravier.RData": _DATAMICROARRAY + "gravier.RData",
            "data/gordon.RData": _DATAMICROARRAY + "gordon.RData",
        },
        instructions=(
            "Download gravier.RData and gordon.RData from github.com/ramhiser/datamicroarray "
            "(commit a95f6f68ed3debf48ee54f198435fa12aa655b16, folder data/) to {dest}/data/ "
            "then run `python -m sdca_pegasos.data fetch genomic`."
        ),
        howto="network access to github.com (or DATA_MIRROR); "
        "`python -m sdca_pegasos.data fetch genomic`",
    ),
    "genomic-original": Source(
        name="genomic-original",
        checksum_file=CHECKSUM_DIR / "genomic-original.gitblob",
        hash_kind="gitblob",
        instructions=_GENOMIC_ORIGINAL_INSTRUCTIONS,
        howto=(
            "optional: clone github.com/AishaAlaagib/breast_cancer_relapse, copy xtrain.txt and "
            "ytrain.txt to {dest}/; then `python -m sdca_pegasos.data fetch genomic-original`"
        ),
        optional=True,
    ),
}

ALIASES = {"blood": "blood-cells"}


@dataclass
class FetchReport:
    """What :func:`fetch` did for one dataset (counts of files)."""

    name: str
    n_files: int
    skipped: int = 0
    verified_in_place: int = 0
    copied: int = 0
    downloaded: int = 0

    def summary(self) -> str:
        """One line: how many files were skipped, verified, copied, downloaded."""
        return (
            f"{self.name}: {self.n_files} file(s) verified ({self.skipped} already verified, "
            f"{self.verified_in_place} hashed in place, {self.copied} copied, "
            f"{self.downloaded} downloaded)"
        )


@dataclass
class Outcome:
    """Result of one dataset in :func:`fetch_many`: a report, or the error and what is missing."""

    name: str
    optional: bool
    report: FetchReport | None = None
    error: DataError | None = None
    missing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the dataset is verified and complete."""
        return self.error is None


# ----------------------------------------------------------------------------- checksums


def canonical_name(name: str) -> str:
    """Folder name of a dataset (``"blood"`` → ``"blood-cells"``); raise on unknown names."""
    name = ALIASES.get(name, name)
    if name not in SOURCES:
        known = ", ".join(sorted([*SOURCES, *ALIASES]))
        raise ValueError(f"unknown dataset {name!r}; known datasets: {known}")
    return name


def get_source(name: str | Source) -> Source:
    """The :class:`Source` of a dataset name (aliases accepted)."""
    if isinstance(name, Source):
        return name
    return SOURCES[canonical_name(name)]


@functools.lru_cache(maxsize=32)
def _parse_checksums(path: Path, _size: int, _mtime_ns: int) -> tuple[tuple[str, str], ...]:
    pairs = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        digest, sep, rel = line.partition("  ")
        if not sep:  # `sha256sum -b` style: "<digest> *<path>"
            digest, sep, rel = line.partition(" *")
        if not sep or not rel:
            raise DataError(f"{path}:{lineno}: not a `<digest>  <path>` line: {line!r}")
        pairs.append((rel.strip(), digest.strip().lower()))
    return tuple(pairs)


def expected_files(name: str | Source, include_optional: bool = False) -> dict[str, str]:
    """Files a dataset must contain, with their checksums, in checksum-file order.

    Parameters
    ----------
    name : str or Source
        Dataset name (``"blood-cells"``, ``"skin"``, ...) or its :class:`Source`.
    include_optional : bool
        Also return the optional files (blood-cells ``TEST_SIMPLE``).

    Returns
    -------
    dict of str to str
        Relative path (POSIX) → hex digest of kind ``source.hash_kind``.
    """
    src = get_source(name)
    st = src.checksum_file.stat()
    prefixes = src.required_prefixes + (src.optional_prefixes if include_optional else ())
    out = {}
    for rel, digest in _parse_checksums(src.checksum_file, st.st_size, st.st_mtime_ns):
        if not src.required_prefixes or rel.startswith(prefixes):
            out[rel] = digest
    return out


def file_digest(path: Path, kind: str = "sha256") -> str:
    """Hex digest of a file: ``sha256``, or ``gitblob`` (what ``git hash-object`` prints)."""
    path = Path(path)
    if kind == "sha256":
        hasher = hashlib.sha256()
    elif kind == "gitblob":
        hasher = hashlib.sha1(b"blob %d\0" % path.stat().st_size)
    else:
        raise ValueError(f"unknown hash kind {kind!r}")
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK_SIZE):
            hasher.update(chunk)
    return hasher.hexdigest()


def _set_digest(expected: Mapping[str, str]) -> str:
    """One SHA-256 over the sorted (path, digest) list: identifies the required file set."""
    text = "".join(f"{digest}  {rel}\n" for rel, digest in sorted(expected.items()))
    return hashlib.sha256(text.encode()).hexdigest()


# ----------------------------------------------------------------------------- manifest


def _read_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _read_manifest(dest: Path) -> dict[str, dict]:
    files = _read_json(dest / MANIFEST_NAME).get("files", {})
    return files if isinstance(files, dict) else {}


def _write_manifest(dest: Path, files: Mapping[str, dict]) -> None:
    text = json.dumps({"version": 1, "files": dict(sorted(files.items()))}, indent=0)
    atomic_write_text(dest / MANIFEST_NAME, text)


def _entry(path: Path, digest: str) -> dict:
    st = path.stat()
    return {"digest": digest, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _stat_matches(path: Path, entry: dict | None, digest: str) -> bool:
    """Cheap check: the manifest vouches for this digest and the file looks unchanged."""
    if not entry or entry.get("digest") != digest:
        return False
    try:
        st = path.stat()
    except OSError:
        return False
    return st.st_size == entry.get("size") and st.st_mtime_ns == entry.get("mtime_ns")


def unverified_files(name: str | Source, include_optional: bool = False) -> list[str]:
    """Relative paths of expected files that are missing or not verified (no hashing).

    A file counts as verified when the manifest holds its expected digest and its size and
    modification time are unchanged since it was verified.
    """
    src = get_source(name)
    dest = raw_root() / src.name
    manifest = _read_manifest(dest)
    return [
        rel
        for rel, digest in expected_files(src, include_optional).items()
        if not _stat_matches(dest / rel, manifest.get(rel), digest)
    ]


def _marker_valid(dest: Path, src: Source) -> bool:
    marker = _read_json(dest / MARKER_NAME)
    return marker.get("required_digest") == _set_digest(expected_files(src))


def available(name: str) -> bool:
    """True when a dataset's required raw files are all present and verified.

    Cheap (one ``stat`` per file, no hashing): the completion marker must be present and
    match the project's checksums, and every file must match the manifest written when it
    was verified.

    Parameters
    ----------
    name : str
        A raw folder of :data:`SOURCES` (``"blood-cells"``, ``"skin"``, ``"genomic"``,
        ``"genomic-original"``) or an alias (``"blood"``). Dataset names, generated ones
        included, are answered by :func:`sdca_pegasos.data.registry.available`.
    """
    src = get_source(name)
    dest = raw_root() / src.name
    return _marker_valid(dest, src) and not unverified_files(src)


def require(name: str) -> None:
    """Raise :class:`DataMissingError` unless a raw folder is fetched and verified.

    The message names the first missing (or unverified) file and the command that fixes it.
    Loaders call it before reading anything.
    """
    if available(name):
        return
    src = get_source(name)
    dest = raw_root() / src.name
    missing = unverified_files(src)
    if missing:
        what = f"{dest / missing[0]} is missing or not verified"
        if len(missing) > 1:
            what += f" ({len(missing)} of {len(expected_files(src))} files)"
    else:
        what = f"{dest} was never marked complete (no {MARKER_NAME})"
    fix = f"run `make data` or `python -m sdca_pegasos.data fetch {src.name}`"
    if src.optional or not (src.urls or src.name == "blood-cells"):
        fix = f"run `python -m sdca_pegasos.data fetch {src.name}`.\n" + src.instructions.format(
            dest=dest
        )
    raise DataMissingError(f"dataset {src.name!r}: {what}. Fix: {fix}")


# ----------------------------------------------------------------------------- transfer


def _open_source(origin: Path | str) -> BinaryIO:
    """Open a mirror file (Path) or a URL (str) for reading bytes."""
    if isinstance(origin, Path):
        return open(origin, "rb")
    return urllib.request.urlopen(origin, timeout=DOWNLOAD_TIMEOUT)


def _transfer(origin: Path | str, target: Path, digest: str, src: Source, rel: str) -> None:
    """Copy ``origin`` to ``target`` through a temporary file; keep it only if verified."""
    fix = f"re-run `python -m sdca_pegasos.data fetch {src.name}` (verified files are skipped)"
    with atomic_path(target) as tmp:
        try:
            with _open_source(origin) as fin, open(tmp, "wb") as fout:
                shutil.copyfileobj(fin, fout, CHUNK_SIZE)
        except OSError as exc:
            hint = (
                "check the mirror file"
                if isinstance(origin, Path)
                else "check network access, or set DATA_MIRROR to a folder holding "
                f"{src.name}/{rel}"
            )
            raise FetchError(
                f"{src.name}/{rel}: transfer from {origin} failed ({exc}); nothing was kept "
                f"(no partial file). Fix: {hint}, then {fix}."
            ) from exc
        actual = file_digest(tmp, src.hash_kind)
        if actual != digest:
            size = tmp.stat().st_size
            raise ChecksumError(
                f"{src.name}/{rel}: checksum mismatch for the copy of {origin} ({size} bytes; "
                f"{src.hash_kind} expected {digest}, got {actual}). The source file is corrupt "
                f"or truncated and was not kept. Fix: restore {origin} from the original "
                f"source (see {src.checksum_file.name}), then {fix}."
            )


def fetch(
    name: str,
    *,
    mirror: Path | str | object | None = _FROM_ENV,
    include_optional: bool = False,
    full_check: bool = False,
    progress: bool | None = None,
) -> FetchReport:
    """Fill ``<raw root>/<name>/`` with the verified files of a dataset.

    Parameters
    ----------
    name : str
        Dataset name (see :data:`SOURCES`; ``"blood"`` is an alias of ``"blood-cells"``).
    mirror : path or None, optional
        Mirror root holding ``<name>/``. Default: ``$DATA_MIRROR``. None: never use a mirror.
        When the mirror has no ``<name>/`` folder the public source is used instead.
    include_optional : bool
        Also fetch optional files (blood-cells ``TEST_SIMPLE``).
    full_check : bool
        Hash every file again, even those the manifest vouches for.
    progress : bool or None
        Show a progress bar (None: only on a terminal).

    Returns
    -------
    FetchReport
        Counts of skipped, hashed-in-place, copied and downloaded files.

    Raises
    ------
    ChecksumError
        A source file (or a file put in place by hand) has the wrong content.
    FetchError
        A copy or download failed part-way.
    DataMissingError
        A file is missing from the mirror. :class:`ManualDownloadRequired` (a subclass) when
        the dataset must be obtained by hand; the message says how.

    Notes
    -----
    Files verified before an error are kept and recorded in the manifest, so a re-run only
    redoes the rest; the completion marker is written only when every file is verified.
    """
    src = get_source(name)
    dest = raw_root() / src.name
    expected = expected_files(src, include_optional)
    report = FetchReport(src.name, len(expected))
    manifest = _read_manifest(dest)
    pending = [
        rel
        for rel, digest in expected.items()
        if full_check or not _stat_matches(dest / rel, manifest.get(rel), digest)
    ]
    if not pending and _marker_valid(dest, src):
        report.skipped = len(expected)
        return report

    (dest / MARKER_NAME).unlink(missing_ok=True)
    if mirror is _FROM_ENV:
        mirror = mirror_root()
    mirror_dir = Path(mirror) / src.name if mirror is not None else None
    if mirror_dir is not None and not mirror_dir.is_dir():
        mirror_dir = None

    report.skipped = len(expected) - len(pending)
    errors: list[DataError] = []
    unobtainable: list[str] = []
    try:
        bar = tqdm(pending, desc=f"fetch {src.name}", unit="file", disable=_no_bar(progress))
        for rel in bar:
            digest, target = expected[rel], dest / rel
            if target.is_file():
                if file_digest(target, src.hash_kind) == digest:
                    manifest[rel] = _entry(target, digest)
                    report.verified_in_place += 1
                    continue
                if mirror_dir is None and rel not in src.urls:
                    errors.append(_wrong_local_file(src, rel, target, dest))
                    continue
            try:
                if mirror_dir is not None:
                    origin = mirror_dir / rel
                    if not origin.is_file():
                        errors.append(_missing_in_mirror(src, rel, origin, mirror_dir))
                        continue
                    _transfer(origin, target, digest, src, rel)
                    report.copied += 1
                elif rel in src.urls:
                    _transfer(src.urls[rel], target, digest, src, rel)
                    report.downloaded += 1
                else:
                    unobtainable.append(rel)
                    continue
            except DataError as exc:
                errors.append(exc)
                continue
            manifest[rel] = _entry(target, digest)
    finally:
        if manifest or (dest / MANIFEST_NAME).exists():
            _write_manifest(dest, {r: e for r, e in manifest.items() if r in expected})

    if unobtainable:
        errors.append(_manual_error(src, dest, unobtainable, mirror))
    if errors:
        raise _combine(src, errors)
    marker = {"dataset": src.name, "required_digest": _set_digest(expected_files(src))}
    atomic_write_text(dest / MARKER_NAME, json.dumps(marker, indent=1))
    return report


def _no_bar(progress: bool | None) -> bool | None:
    return None if progress is None else not progress


def _wrong_local_file(src: Source, rel: str, target: Path, dest: Path) -> ChecksumError:
    return ChecksumError(
        f"{target}: content does not match sdca_pegasos/data/checksums/{src.checksum_file.name} "
        f"({src.hash_kind}). Fix: replace it with the original file, then run "
        f"`python -m sdca_pegasos.data fetch {src.name}`.\n" + src.instructions.format(dest=dest)
    )


def _missing_in_mirror(src: Source, rel: str, origin: Path, mirror_dir: Path) -> DataMissingError:
    alt = (
        f"unset DATA_MIRROR to download it from {src.urls[rel]}"
        if rel in src.urls
        else "obtain it as `python -m sdca_pegasos.data fetch "
        + src.name
        + "` explains without a mirror"
    )
    return DataMissingError(
        f"{src.name}/{rel}: missing from the mirror ({origin} does not exist). Fix: restore "
        f"the file in {mirror_dir}, or {alt}; then re-run "
        f"`python -m sdca_pegasos.data fetch {src.name}`."
    )


def _manual_error(
    src: Source, dest: Path, missing: list[str], mirror: object
) -> ManualDownloadRequired:
    shown = "\n".join(f"    {dest / rel}" for rel in missing[:3])
    more = f"\n    ... and {len(missing) - 3} more" if len(missing) > 3 else ""
    mirror_note = (
        f"DATA_MIRROR ({mirror}) has no {src.name}/ folder. "
        if mirror is not None
        else "DATA_MIRROR is not set. "
    )
    return ManualDownloadRequired(
        f"{src.name}: {len(missing)} required file(s) missing:\n{shown}{more}\n"
        f"{mirror_note}{src.instructions.format(dest=dest)}"
    )


def _combine(src: Source, errors: list[DataError]) -> DataError:
    if len(errors) == 1:
        return errors[0]
    # the most serious kind wins: wrong content, then failed transfers, then missing files
    priority = (ChecksumError, FetchError, ManualDownloadRequired, DataMissingError)
    cls = next((k for k in priority if any(isinstance(e, k) for e in errors)), DataError)
    shown = "\n".join(f"  - {e}" for e in errors[:10])
    more = f"\n  ... and {len(errors) - 10} more" if len(errors) > 10 else ""
    return cls(
        f"{src.name}: {len(errors)} file(s) failed; the dataset is NOT marked complete:\n"
        f"{shown}{more}"
    )


def fetch_many(
    names: Iterable[str],
    *,
    mirror: Path | str | object | None = _FROM_ENV,
    include_optional: bool = False,
    full_check: bool = False,
    progress: bool | None = None,
) -> list[Outcome]:
    """Fetch several datasets, continuing after failures; one :class:`Outcome` each.

    An optional dataset that cannot be fetched automatically and is absent ends with a
    :class:`ManualDownloadRequired` error, like any dataset that must be obtained by hand.
    """
    outcomes = []
    for name in names:
        src = get_source(name)
        outcome = Outcome(src.name, src.optional)
        try:
            outcome.report = fetch(
                src.name,
                mirror=mirror,
                include_optional=include_optional,
                full_check=full_check,
                progress=progress,
            )
        except DataError as exc:
            outcome.error = exc
            outcome.missing = unverified_files(src, include_optional)
        outcomes.append(outcome)
    return outcomes
