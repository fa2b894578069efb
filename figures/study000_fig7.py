"""Study 000, figure 7: crops rebuilt from their whitened PCA coordinates, both classes.

For training crops drawn at random (seed 0) from each class: the crop, and the crop rebuilt
from its first k PCA coordinates (:func:`data.blood.pca_reconstructions`; k of the catalogue's
``000_blood_pca40`` experiment, PCA fit on the training crops only). Needs the blood-cell
images (``make data``); crops and PCA are computed once and cached.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._common import cli, footnote, image_grid, pick_per_class, save_figure

NAME = "study000_fig7"
PER_CLASS = 4


def n_components() -> int:
    """k of the catalogue's PCA experiment (the figure shows what that experiment sees)."""
    from experiments import CATALOGUE

    return int(CATALOGUE["000_blood_pca40"].dataset_options["pca"])


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the crops and the PCA fit; returns the paths written."""
    from data import blood

    blood.require(blood.DATASET)  # a missing dataset names `make data`
    k = n_components()
    crops = blood.crops(progress=False)
    chosen = pick_per_class(crops.y_train, PER_CLASS)
    rebuilt = blood.pca_reconstructions(chosen, n_components=k, split="TRAIN")
    images, titles, rows = [], [], []
    for c, label in enumerate((-1, 1)):
        part = slice(c * PER_CLASS, (c + 1) * PER_CLASS)
        images += [crops.X_train[i].astype(float) / 255.0 for i in chosen[part]]
        images += list(np.clip(rebuilt[part], 0.0, 1.0))
        titles += [f"#{i} crop" for i in chosen[part]] + [f"#{i} PCA-{k}" for i in chosen[part]]
        rows += [f"{blood.CLASSES[label]}\ncrop", f"{blood.CLASSES[label]}\nPCA-{k}"]
    fig = image_grid(images, titles, PER_CLASS, rows, cmap="gray", vmin=0, vmax=1, panel_size=1.9)
    fig.suptitle(f"Study 000, fig. 7: crops rebuilt from {k} principal components")
    footnote(
        fig,
        f"Rebuilt = inverse transform of the first {k} whitened PCA coordinates (fit on the "
        "training crops only), clipped to [0, 1] for display. Training crops drawn at random "
        "within each class (seed 0).",
        width=100,
    )
    return save_figure(fig, out_dir, NAME)


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
