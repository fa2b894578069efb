"""Study 000's image figures (1, 4, 5, 7, 8), drawn from the blood-cell data products.

They read :mod:`sdca_pegasos.data.blood` (original images, the crop cache, the PCA fit, singular
values), not reports; each needs the images (``make data``) and names that command when they are
missing. Random choices are drawn with seed 0."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .plots import footnote, plt, save_figure


def image_grid(
    images: Sequence[np.ndarray], titles: Sequence[str], ncols: int,
    row_labels: Sequence[str] = (), cmap: str | None = None, vmin: float | None = None,
    vmax: float | None = None, panel_size: float = 2.2,
):  # fmt: skip
    """A grid of images without axes, titled, with optional row labels on the left."""
    nrows = math.ceil(len(images) / ncols)
    h, w = np.asarray(images[0]).shape[:2]
    size = (panel_size * ncols, panel_size * nrows * h / w + 0.3 * nrows)
    fig, axes = plt.subplots(nrows, ncols, figsize=size, squeeze=False, layout="constrained")
    for ax in axes.flat:
        ax.axis("off")
    for ax, image, title in zip(axes.flat, images, titles, strict=False):
        ax.imshow(image, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_title(title, fontsize=8.5)
    for ax, label in zip(axes[:, 0], row_labels, strict=False):
        ax.axis("on")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_ylabel(label, fontsize=10, fontweight="bold")
    return fig


def pick_per_class(labels: np.ndarray, n_per_class: int, seed: int = 0) -> list[int]:
    """``n_per_class`` row indices of each class (−1 first), drawn without replacement."""
    rng = np.random.default_rng(seed)
    out = []
    for label in (-1, 1):
        idx = np.flatnonzero(np.asarray(labels) == label)
        out += sorted(int(i) for i in rng.choice(idx, min(n_per_class, idx.size), replace=False))
    return out


def _finish(fig, title: str, note: str, width: int, spec, out_dir) -> list[Path]:
    """Title ``fig``, add ``note`` under it (wrapped at ``width`` characters) and save it."""
    fig.suptitle(title)
    footnote(fig, note, width=width)
    return save_figure(fig, out_dir, spec.name)


def _blood():
    from sdca_pegasos.data import blood

    blood.require(blood.DATASET)  # a missing dataset names `make data`
    return blood


def _class_rows(images, names, per_class: int, title, note, spec, out_dir, **style):
    """Fig. 1 and 5: ``per_class`` images of each class, a row per class (LYMPHOCYTE first, as
    :func:`pick_per_class` and :func:`sdca_pegasos.data.blood.example_images` draw them), each
    titled by its name; ``style``: :func:`image_grid`'s colour map, range and panel size."""
    from sdca_pegasos.data.blood import CLASSES

    fig = image_grid(images, names, per_class, [CLASSES[-1], CLASSES[1]], **style)
    return _finish(fig, title, note, 110, spec, out_dir)


def examples(spec, out_dir=None, reports_dir=None, per_class: int = 4) -> list[Path]:
    """Fig. 1: original RGB training images of both classes
    (:func:`sdca_pegasos.data.blood.example_images`)."""
    shown = _blood().example_images(n_per_class=per_class, seed=0)
    h, w = shown[0].image.shape[:2]
    title = f"Study 000, fig. 1: examples of both classes ({w}×{h} RGB training images)"
    note = (
        "The cell to classify is the purple-stained one; its position varies, and other cells "
        "fill the background. Drawn at random within each class (seed 0)."
    )
    images, names = [e.image for e in shown], [Path(e.path).name for e in shown]
    return _class_rows(images, names, per_class, title, note, spec, out_dir)


def pipeline(spec, out_dir=None, reports_dir=None) -> list[Path]:
    """Fig. 4: every step of :func:`sdca_pegasos.data.blood.pipeline_steps` on the first training
    neutrophil."""
    from sdca_pegasos.data import raw_root

    blood = _blood()
    files, labels = blood.list_files("TRAIN")
    index = next(i for i, label in enumerate(labels) if label == 1)
    steps = blood.pipeline_steps(raw_root() / blood.DATASET / files[index])
    p, s = blood.CropParams(), blood.CropParams().crop_size
    titles = {
        "original": "original",
        "mean_shift": f"1. mean-shift filter (sp {p.spatial_radius}, sr {p.colour_radius})",
        "grey": "2. grey",
        "frame_neutralised": f"3. frame (< {p.frame_threshold}) neutralised",
        "threshold_mask": f"4. threshold at the {p.dark_percentile:g} % darkest",
        "opened_mask": f"5. inverted, opened {p.opening_size}×{p.opening_size}",
        "centre_marked": f"6. centre and {s}×{s} window",
        "crop": "crop: grey, negative, [0, 1]",
    }
    grey = {"grey", "frame_neutralised", "threshold_mask", "opened_mask", "crop"}
    images = [
        image if key not in grey else image.astype(float) / (1.0 if key == "crop" else 255.0)
        for key, image in steps.items()
    ]
    fig = image_grid(images, [titles.get(k, k) for k in steps], 4, cmap="gray", vmin=0, vmax=1)
    name = f"{blood.CLASSES[int(labels[index])]} {Path(files[index]).name}"
    title = f"Study 000, fig. 4: automatic cropping procedure ({name})"
    note = (
        "Steps of appendix A (sdca_pegasos/data/blood/detection.py): the centre is the mean "
        "position of "
        "the dark pixels left after the opening; the crop is cut from the original image."
    )
    return _finish(fig, title, note, 120, spec, out_dir)


def crops(spec, out_dir=None, reports_dir=None, per_class: int = 6) -> list[Path]:
    """Fig. 5: training crops (grey negatives) of both classes, from the crop cache."""
    cropped = _blood().crops(progress=False)
    chosen = pick_per_class(cropped.y_train, per_class)
    s = cropped.params.crop_size
    title = f"Study 000, fig. 5: automatically cropped images ({s}×{s}, grey negative)"
    note = (
        "Training crops drawn at random within each class (seed 0); #: row of the training "
        "set. Negative: the dark nucleus becomes bright, so its pixels have the large values."
    )
    images, names = [cropped.X_train[i] for i in chosen], [f"#{i}" for i in chosen]
    style = {"cmap": "gray", "vmin": 0, "vmax": 255, "panel_size": 1.8}
    return _class_rows(images, names, per_class, title, note, spec, out_dir, **style)


def n_components() -> int:
    """k of the catalogue's PCA experiment (the figures show what that experiment sees)."""
    from sdca_pegasos.experiments import CATALOGUE

    return int(CATALOGUE["000_blood_pca40"].dataset_options["pca"])


def pca(spec, out_dir=None, reports_dir=None, per_class: int = 4) -> list[Path]:
    """Fig. 7: crops and the crops rebuilt from their first k whitened PCA coordinates."""
    blood, k = _blood(), n_components()
    cropped = blood.crops(progress=False)
    chosen = pick_per_class(cropped.y_train, per_class)
    rebuilt = blood.pca_reconstructions(chosen, n_components=k, split="TRAIN")
    images, titles, rows = [], [], []
    for c, label in enumerate((-1, 1)):
        part = slice(c * per_class, (c + 1) * per_class)
        images += [cropped.X_train[i].astype(float) / 255.0 for i in chosen[part]]
        images += list(np.clip(rebuilt[part], 0.0, 1.0))
        titles += [f"#{i} crop" for i in chosen[part]] + [f"#{i} PCA-{k}" for i in chosen[part]]
        rows += [f"{blood.CLASSES[label]}\ncrop", f"{blood.CLASSES[label]}\nPCA-{k}"]
    fig = image_grid(images, titles, per_class, rows, "gray", vmin=0, vmax=1, panel_size=1.9)
    title = f"Study 000, fig. 7: crops rebuilt from {k} principal components"
    note = (
        f"Rebuilt = inverse transform of the first {k} whitened PCA coordinates (fit on the "
        "training crops only), clipped to [0, 1] for display. Training crops drawn at random "
        "within each class (seed 0)."
    )
    return _finish(fig, title, note, 100, spec, out_dir)


def singular_values(spec, out_dir=None, reports_dir=None, shown: int = 1000) -> list[Path]:
    """Fig. 8: the first singular values of the centred training crops, and PCA-k's share."""
    blood, k = _blood(), n_components()
    n = len(blood.crops(progress=False).X_train)
    values = np.asarray(blood.singular_values(k=n))  # all min(n, d) of them
    share = float(np.sum(values[:k] ** 2) / np.sum(values**2))
    first = values[:shown]
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    ax.semilogy(np.arange(1, len(first) + 1), first, color="#08306b", linewidth=1.6)
    ax.axvline(k, color="#e31a1c", linestyle="--", linewidth=1.2)
    text = f"PCA-{k}: first {k} components\n= {100 * share:.1f} % of the variance"
    ax.text(k * 1.3, first[0], text, va="top", color="#e31a1c", fontsize=9)
    ax.set_xlabel("rank")
    ax.set_ylabel("singular value (log scale)")
    title = f"Study 000, fig. 8: first {len(first)} singular values of the training crops"
    note = (
        f"Training crops in [0, 1] ({n} images), each pixel centred; variance share = sum of "
        f"the first {k} squared singular values over the sum of all {len(values)}."
    )
    return _finish(fig, title, note, 95, spec, out_dir)
