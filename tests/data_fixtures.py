"""Helpers shared by the data-package tests (test_data_fetch, test_data_loaders, test_blood_crop).

- :func:`use_real` copies a real dataset from ``$DATA_MIRROR`` ONCE per test session into a
  shared temporary raw root (module-level memo, so the ~42 MB blood-cell copy happens once
  even though three test files use it) and points ``SVM_DATA_DIR`` at it.
- :func:`make_toy_source` builds a small fake dataset: files in a fake mirror and a checksum
  file, registered in ``sdca_pegasos.data.fetch.SOURCES`` for the duration of a test.
- :func:`synthetic_cell` draws a 320 × 240 BGR image with a dark purple "nucleus" at a known
  place, pale "red cells", noise and the black frame of a rotation + shift augmentation.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from sdca_pegasos.data import fetch

MIRROR = os.environ.get("DATA_MIRROR") or None
HAVE_MIRROR = MIRROR is not None and Path(MIRROR).is_dir()
requires_mirror = pytest.mark.skipif(
    not HAVE_MIRROR,
    reason="real-data test: set DATA_MIRROR to the dataset mirror (CI: ../shared/data)",
)

_SESSION: dict[str, object] = {}


def use_real(name: str, tmp_path_factory, monkeypatch) -> Path:
    """Fetch ``name`` from the mirror once per session; point SVM_DATA_DIR at the copy."""
    root = _SESSION.get("root")
    if root is None:
        root = tmp_path_factory.mktemp("real_raw")
        _SESSION["root"] = root
    monkeypatch.setenv("SVM_DATA_DIR", str(root))
    if name not in _SESSION:
        _SESSION[name] = fetch.fetch(name, mirror=MIRROR, progress=False)
    return root


def sha256_bytes(content: bytes) -> str:
    """SHA-256 hex digest of bytes."""
    return hashlib.sha256(content).hexdigest()


def make_toy_source(
    tmp_path: Path,
    monkeypatch,
    files: dict[str, bytes],
    *,
    name: str = "toy",
    urls: dict[str, str] | None = None,
    in_mirror: bool = True,
    optional: bool = False,
    digests: dict[str, str] | None = None,
) -> tuple[fetch.Source, Path]:
    """Register a fake dataset ``name``; return its Source and the mirror root.

    ``files`` are written to ``<tmp>/mirror/<name>/`` (unless ``in_mirror`` is False) and their
    SHA-256 to ``<tmp>/sums/<name>.sha256``; ``digests`` overrides some checksums.
    """
    mirror = tmp_path / "mirror"
    sums = tmp_path / "sums" / f"{name}.sha256"
    sums.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for rel, content in files.items():
        if in_mirror:
            path = mirror / name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        digest = (digests or {}).get(rel, sha256_bytes(content))
        lines.append(f"{digest}  {rel}\n")
    sums.write_text("".join(lines))
    src = fetch.Source(
        name=name,
        checksum_file=sums,
        urls=urls or {},
        instructions=f"TOY-INSTRUCTIONS: put the {name} files in {{dest}}",
        howto=f"TOY-HOWTO {name} -> {{dest}}",
        optional=optional,
    )
    monkeypatch.setitem(fetch.SOURCES, name, src)
    return src, mirror


def synthetic_cell(
    centre: tuple[float, float],
    *,
    radius: int = 22,
    angle: float = 0.0,
    shift: tuple[int, int] = (0, 0),
    seed: int = 0,
) -> tuple[np.ndarray, tuple[float, float]]:
    """A 240 × 320 BGR uint8 "blood smear" with one dark nucleus.

    The nucleus is a dark purple disc (BGR 175, 65, 115: grey ≈ 93, above the frame threshold
    80) of ``radius`` at ``centre`` = (row, col) BEFORE the augmentation; pale red cells
    (grey ≈ 169) are scattered around; Gaussian noise (sd 6) is added. The default radius 22
    makes the disc just under 2 % of the image, so the 2nd-percentile threshold keeps the
    whole disc and part of its (symmetric) blurred rim: the expected centre is unambiguous.
    (A uniform disc much larger than 2 % would let the threshold pick an arbitrary, noise-
    driven part of it; real nuclei behave the same, see the real-data tests.)

    The augmentation rotates the image by ``angle`` degrees about its centre and shifts it
    by ``shift`` = (rows, cols), filling the uncovered border with black (0), like the
    Kaggle augmentations.

    Returns
    -------
    image : ndarray (240, 320, 3) uint8
    centre : tuple of float
        (row, col) of the nucleus centre AFTER the augmentation.
    """
    rng = np.random.default_rng(seed)
    h, w = 240, 320
    img = np.empty((h, w, 3), np.float64)
    img[:] = (215, 200, 230)
    for _ in range(7):  # pale red cells, lighter than the nucleus
        r, c = rng.uniform(20, h - 20), rng.uniform(20, w - 20)
        if np.hypot(r - centre[0], c - centre[1]) > radius + 30:
            cv2.circle(img, (int(c), int(r)), int(rng.uniform(18, 26)), (150, 150, 215), -1)
    cv2.circle(img, (round(centre[1]), round(centre[0])), radius, (175, 65, 115), -1)
    img += rng.normal(0.0, 6.0, img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    M = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), angle, 1.0)
    M[0, 2] += shift[1]
    M[1, 2] += shift[0]
    out = cv2.warpAffine(
        img, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )
    x, y = M @ np.array([centre[1], centre[0], 1.0])
    return out, (float(y), float(x))


def write_jpeg(path: Path, image: np.ndarray, quality: int = 92) -> Path:
    """Write a BGR image as JPEG (creating folders); return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ok = cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok, f"could not write {path}"
    return path
