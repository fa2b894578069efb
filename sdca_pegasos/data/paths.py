"""Where raw data, caches and the dataset mirror live, and atomic file writes.

Defaults are in the checkout's top ``data/`` folder (``data/raw/<name>/`` and
``data/cache/``, both git-ignored). Three environment variables override them:

``SVM_DATA_DIR``
    Folder that holds one sub-folder per dataset (``<SVM_DATA_DIR>/skin/...``).
``SVM_CACHE_DIR``
    Folder for derived data (blood-cell crops, PCA fits, singular values).
``DATA_MIRROR``
    Folder with a verified copy of every dataset (``<DATA_MIRROR>/<name>/...``); when set,
    ``python -m sdca_pegasos.data fetch`` copies from it instead of downloading.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
CHECKSUM_DIR = PACKAGE_DIR / "checksums"
#: ``data/`` at the top of the checkout: a plain folder of data, not the package (which
#: lives in ``sdca_pegasos/data/``), so that nothing the project imports is named by it.
DATA_DIR = PACKAGE_DIR.parents[1] / "data"


def raw_root() -> Path:
    """Folder holding ``<name>/`` for every raw dataset (``$SVM_DATA_DIR`` or ``data/raw``)."""
    env = os.environ.get("SVM_DATA_DIR")
    return Path(env).expanduser().resolve() if env else DATA_DIR / "raw"


def cache_root() -> Path:
    """Folder for derived, rebuildable data (``$SVM_CACHE_DIR`` or ``data/cache``)."""
    env = os.environ.get("SVM_CACHE_DIR")
    return Path(env).expanduser().resolve() if env else DATA_DIR / "cache"


def mirror_root() -> Path | None:
    """The dataset mirror named by ``$DATA_MIRROR``, or None when it is unset or empty."""
    env = os.environ.get("DATA_MIRROR")
    return Path(env).expanduser().resolve() if env else None


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` only on success.

    The temporary file lives in the same folder, so the final ``os.replace`` is atomic: a
    reader sees either the old file, or the complete new one, never a partial file. On any
    exception the temporary file is removed and the exception propagates.

    Parameters
    ----------
    path : Path
        Final destination. Its parent folder is created if needed.

    Yields
    ------
    Path
        Where to write. It does not exist yet (the caller creates it).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    tmp.unlink()
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
