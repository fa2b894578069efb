"""Blood-cell crops, detection: where the nucleus is (steps 1–6 of the crop pipeline).

Per image (seeds/000 appendix A, parameters of the study's notebook; :class:`CropParams`):

1. ``cv2.pyrMeanShiftFiltering(img, 30, 60)`` (a blur that keeps the nucleus edge);
2. grey (``cv2.COLOR_BGR2GRAY``);
3. frame neutralisation: pixels below 80 (the black frame left by the augmentation's
   rotations and shifts) are replaced by the mean of the other pixels, rounded to the
   nearest integer because grey images are uint8 (:func:`neutralise_frame`);
4. threshold at the 2nd percentile of the grey values: pixels ``<=`` that level are "dark"
   (the darkest nucleus), the rest white;
5. morphological opening with a 5 × 5 square on the inverted mask (dark = 255) removes
   isolated dark specks ("pepper noise");
6. centre = mean (row, column) of the dark pixels left.

Degenerate case: when the opening leaves no dark pixel, the centre falls back to the mean of
the dark pixels BEFORE the opening (fallback 1); if there were none either (impossible for a
non-empty image, since the percentile level is attained; kept as a guard) it falls back to
the image centre (fallback 2). No image is ever dropped; the fallbacks are counted in
``meta["crop_fallbacks"]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = [
    "FALLBACK_IMAGE_CENTRE",
    "FALLBACK_NAMES",
    "FALLBACK_NONE",
    "FALLBACK_PRE_OPENING",
    "CropParams",
    "locate",
    "locate_centre",
    "neutralise_frame",
]

FALLBACK_NONE, FALLBACK_PRE_OPENING, FALLBACK_IMAGE_CENTRE = 0, 1, 2
FALLBACK_NAMES = {FALLBACK_PRE_OPENING: "pre_opening_mask", FALLBACK_IMAGE_CENTRE: "image_centre"}


@dataclass(frozen=True)
class CropParams:
    """Parameters of the crop pipeline (defaults: the study's notebook).

    Attributes
    ----------
    spatial_radius, colour_radius : int
        ``sp`` and ``sr`` of ``cv2.pyrMeanShiftFiltering`` (30, 60).
    frame_threshold : int
        Grey values below this are frame pixels (80).
    dark_percentile : float
        Percentile of the grey values below which pixels are "dark" (2).
    opening_size : int
        Side of the square structuring element of the opening (5).
    crop_size : int
        Side of the square crop (120).
    """

    spatial_radius: int = 30
    colour_radius: int = 60
    frame_threshold: int = 80
    dark_percentile: float = 2.0
    opening_size: int = 5
    crop_size: int = 120


def neutralise_frame(grey: np.ndarray, threshold: int = 80) -> np.ndarray:
    """Replace pixels below ``threshold`` by the mean of the other pixels.

    Parameters
    ----------
    grey : ndarray of shape (h, w), uint8
    threshold : int

    Returns
    -------
    ndarray of shape (h, w), uint8
        A copy. The fill value is the mean of the pixels ``>= threshold``, rounded to the
        nearest integer (halves up). If no pixel, or every pixel, is below the threshold the
        image is returned unchanged (there is nothing to average, or no frame to remove).
    """
    out = grey.copy()
    frame = grey < threshold
    n_frame = int(np.count_nonzero(frame))
    if 0 < n_frame < grey.size:
        out[frame] = int(np.floor(grey[~frame].mean() + 0.5))
    return out


def locate(img_bgr: np.ndarray, params: CropParams, keep_steps: bool = False):
    """Steps 1–6 up to the centre; returns (centre, fallback, steps).

    ``steps`` holds ``dark_rows`` and ``dark_cols`` (the pixels the centre is the mean of) and,
    with ``keep_steps``, every intermediate image (see
    :func:`sdca_pegasos.data.blood.pipeline_steps`)."""
    shifted = cv2.pyrMeanShiftFiltering(img_bgr, params.spatial_radius, params.colour_radius)
    grey = cv2.cvtColor(shifted, cv2.COLOR_BGR2GRAY)
    neutral = neutralise_frame(grey, params.frame_threshold)
    level = np.percentile(neutral, params.dark_percentile)
    dark = neutral <= level
    threshold_mask = np.where(dark, 0, 255).astype(np.uint8)  # nucleus black on white
    inverted = 255 - threshold_mask  # nucleus white
    kernel = np.ones((params.opening_size, params.opening_size), np.uint8)
    opened = cv2.morphologyEx(inverted, cv2.MORPH_OPEN, kernel)
    rows, cols = np.nonzero(opened)
    fallback = FALLBACK_NONE
    if rows.size == 0:
        rows, cols = np.nonzero(inverted)
        fallback = FALLBACK_PRE_OPENING
    if rows.size == 0:
        h, w = grey.shape
        centre = ((h - 1) / 2.0, (w - 1) / 2.0)
        fallback = FALLBACK_IMAGE_CENTRE
    else:
        centre = (float(rows.mean()), float(cols.mean()))
    steps = {"dark_rows": rows, "dark_cols": cols}
    if keep_steps:
        steps |= {
            "mean_shift": shifted,
            "grey": grey,
            "frame_neutralised": neutral,
            "threshold_mask": threshold_mask,
            "opened_mask": opened,
        }
    return centre, fallback, steps


def locate_centre(img_bgr: np.ndarray, params: CropParams | None = None) -> tuple:
    """Nucleus centre of a BGR image (steps 1–6 of the pipeline).

    Returns
    -------
    centre : tuple of float
        (row, column).
    fallback : int
        0, 1 (pre-opening mask) or 2 (image centre); see the module docstring.
    """
    centre, fallback, _ = locate(img_bgr, params or CropParams())
    return centre, fallback
