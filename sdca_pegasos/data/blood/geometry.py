"""Blood-cell crops, geometry: the crop window around a centre, the cut, and its coverage.

Step 7 of the crop pipeline: a ``crop_size`` × ``crop_size`` window (120) around the centre,
clamped to stay inside the image, is cut from the ORIGINAL image, converted to grey,
frame-neutralised again (same rule, mean of the window's other pixels), inverted
(255 − v, so the nucleus is bright): d = 14400 features once scaled to [0, 1].
"""

from __future__ import annotations

import cv2
import numpy as np

from .detection import CropParams, neutralise_frame

__all__ = ["coverage", "cut", "window"]


def window(centre: tuple[float, float], shape: tuple[int, int], size: int) -> tuple[int, int]:
    """(top, left) of the ``size`` × ``size`` window centred on ``centre`` (rounded
    half up), clamped to stay inside an image of ``shape``."""
    h, w = shape
    if h < size or w < size:
        raise ValueError(f"image of shape {shape} is smaller than the {size}×{size} crop")
    top = int(np.floor(centre[0] + 0.5)) - size // 2
    left = int(np.floor(centre[1] + 0.5)) - size // 2
    return min(max(top, 0), h - size), min(max(left, 0), w - size)


def cut(img_bgr: np.ndarray, window: tuple[int, int], params: CropParams) -> np.ndarray:
    """The uint8 negative grey crop at ``window`` (frame-neutralised, then 255 − v)."""
    top, left = window
    s = params.crop_size
    grey = cv2.cvtColor(img_bgr[top : top + s, left : left + s], cv2.COLOR_BGR2GRAY)
    return (255 - neutralise_frame(grey, params.frame_threshold)).astype(np.uint8)


def coverage(rows: np.ndarray, cols: np.ndarray, window: tuple[int, int], size: int) -> float:
    """Fraction of the dark pixels (``rows``, ``cols``) inside the window (0 if none)."""
    if rows.size == 0:
        return 0.0
    top, left = window
    inside = (rows >= top) & (rows < top + size) & (cols >= left) & (cols < left + size)
    return float(np.mean(inside))
