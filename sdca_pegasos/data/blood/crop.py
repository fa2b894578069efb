"""Blood-cell crops, the pipeline end to end: one image, one file, many files in parallel.

:func:`crop_image` runs detection (:mod:`sdca_pegasos.data.blood.detection`, steps 1–6) then
geometry (:mod:`sdca_pegasos.data.blood.geometry`, the window and the cut); :func:`crop_files` maps
it over files with joblib; :func:`pipeline_steps` keeps every intermediate image (study figure 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from ..errors import DataError
from .detection import CropParams, locate
from .geometry import coverage, cut, window
from .images import read_image

__all__ = ["CropResult", "crop_file", "crop_files", "crop_image", "pipeline_steps"]

_CHUNK = 32  # images per parallel task


class CropResult(NamedTuple):
    """One cropped image.

    Attributes
    ----------
    crop : ndarray of shape (crop_size, crop_size), uint8
        Negative grey crop (nucleus bright); divide by 255 for [0, 1].
    centre : tuple of float
        (row, column) of the located nucleus centre in the original image.
    window : tuple of int
        (top, left) of the crop window in the original image.
    fallback : int
        0: normal; 1: centre from the pre-opening mask; 2: image centre.
    coverage : float
        Diagnostic: fraction of the dark pixels the centre was computed from that lie inside
        the crop window (1.0: the whole dark region is in the crop; low values flag a crop
        pulled between two dark regions).
    """

    crop: np.ndarray
    centre: tuple[float, float]
    window: tuple[int, int]
    fallback: int
    coverage: float


def crop_image(img_bgr: np.ndarray, params: CropParams | None = None) -> CropResult:
    """Crop one BGR image (uint8, shape (h, w, 3)) around its nucleus.

    Returns
    -------
    CropResult
        The uint8 negative grey crop, the centre, the window and the fallback code.
    """
    params = params or CropParams()
    if img_bgr.dtype != np.uint8 or img_bgr.ndim != 3 or img_bgr.shape[2] != 3:
        raise ValueError("crop_image expects a uint8 BGR image of shape (h, w, 3)")
    centre, fallback, steps = locate(img_bgr, params)
    where = window(centre, img_bgr.shape[:2], params.crop_size)
    share = coverage(steps["dark_rows"], steps["dark_cols"], where, params.crop_size)
    return CropResult(cut(img_bgr, where, params), centre, where, fallback, share)


def crop_file(path: Path | str, params: CropParams | None = None) -> CropResult:
    """Read and crop one image file (see :func:`crop_image`)."""
    img = read_image(path)
    try:
        return crop_image(img, params)
    except ValueError as exc:
        raise DataError(f"{path}: {exc}") from exc


def _crop_chunk(paths: Sequence[str], params: CropParams):
    previous = cv2.getNumThreads()
    cv2.setNumThreads(1)  # one image per worker at a time: no nested threading
    try:
        s = params.crop_size
        out = np.empty((len(paths), s, s), np.uint8)
        centres = np.empty((len(paths), 2), np.float32)
        fallbacks = np.empty(len(paths), np.int8)
        coverage = np.empty(len(paths), np.float32)
        for i, path in enumerate(paths):
            res = crop_file(path, params)
            out[i], centres[i], fallbacks[i] = res.crop, res.centre, res.fallback
            coverage[i] = res.coverage
        return out, centres, fallbacks, coverage
    finally:
        cv2.setNumThreads(previous)


def crop_files(
    paths: Sequence[Path | str],
    params: CropParams | None = None,
    n_jobs: int = 2,
    progress: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Crop many image files in parallel (joblib), with a tqdm progress bar.

    Parameters
    ----------
    paths : sequence of path
    params : CropParams, optional
    n_jobs : int
        joblib workers (processes); 1 runs in this process; -1 uses every core.
    progress : bool
        Show a progress bar.

    Returns
    -------
    crops : ndarray of shape (n, crop_size, crop_size), uint8
    centres : ndarray of shape (n, 2), float32
        (row, column) of each nucleus centre in its original image.
    fallbacks : ndarray of shape (n,), int8
    coverage : ndarray of shape (n,), float32
        See :class:`CropResult`.

    Raises
    ------
    DataError
        An image is missing or unreadable (the message names it); nothing is returned.
    """
    from joblib import Parallel, delayed
    from tqdm import tqdm  # not tqdm.auto: it warns in a Jupyter kernel without ipywidgets

    params = params or CropParams()
    paths = [str(p) for p in paths]
    chunks = [paths[i : i + _CHUNK] for i in range(0, len(paths), _CHUNK)]
    parts = []
    with tqdm(total=len(paths), desc="crop blood cells", unit="img", disable=not progress) as bar:
        runner = Parallel(n_jobs=n_jobs, return_as="generator")
        for part in runner(delayed(_crop_chunk)(chunk, params) for chunk in chunks):
            parts.append(part)
            bar.update(len(part[0]))
    s = params.crop_size
    if not parts:
        return (
            np.empty((0, s, s), np.uint8),
            np.empty((0, 2), np.float32),
            np.empty(0, np.int8),
            np.empty(0, np.float32),
        )
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))


def pipeline_steps(path: Path | str, params: CropParams | None = None) -> dict[str, np.ndarray]:
    """Every intermediate image of the crop pipeline for one file (study figure 4).

    Returns
    -------
    dict of str to ndarray, in pipeline order
        ``original`` (RGB), ``mean_shift`` (RGB), ``grey``, ``frame_neutralised``,
        ``threshold_mask`` (uint8: dark nucleus pixels 0, the rest 255), ``opened_mask``
        (uint8, inverted and opened: nucleus 255), ``centre_marked`` (RGB original with the
        centre cross and the crop window drawn), ``crop`` (float32 in [0, 1], negative).
    """
    params = params or CropParams()
    img = read_image(path)
    centre, _, steps = locate(img, params, keep_steps=True)
    top, left = window(centre, img.shape[:2], params.crop_size)
    marked = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    s = params.crop_size
    cv2.rectangle(marked, (left, top), (left + s - 1, top + s - 1), (0, 255, 0), 2)
    point = (round(centre[1]), round(centre[0]))
    cv2.drawMarker(marked, point, (255, 255, 0), cv2.MARKER_CROSS, 16, 2)
    return {
        "original": cv2.cvtColor(img, cv2.COLOR_BGR2RGB),
        "mean_shift": cv2.cvtColor(steps["mean_shift"], cv2.COLOR_BGR2RGB),
        "grey": steps["grey"],
        "frame_neutralised": steps["frame_neutralised"],
        "threshold_mask": steps["threshold_mask"],
        "opened_mask": steps["opened_mask"],
        "centre_marked": marked,
        "crop": cut(img, (top, left), params).astype(np.float32) / np.float32(255.0),
    }
