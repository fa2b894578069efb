"""Study 000, figure 5: automatically cropped images of both classes.

Training crops (grey negatives, nucleus bright) drawn at random (seed 0) from each class, from
the crop cache of :func:`data.blood.crops`. Needs the blood-cell images (``make data``); the
crops are computed once (minutes) and cached.
"""

from __future__ import annotations

from pathlib import Path

from ._common import cli, footnote, image_grid, pick_per_class, save_figure

NAME = "study000_fig5"
PER_CLASS = 6


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the crops; returns the paths written (PDF, PNG)."""
    from data import blood

    blood.require(blood.DATASET)  # a missing dataset names `make data`
    crops = blood.crops(progress=False)
    chosen = pick_per_class(crops.y_train, PER_CLASS)
    s = crops.params.crop_size
    fig = image_grid(
        [crops.X_train[i] for i in chosen],
        [f"#{i}" for i in chosen],
        ncols=PER_CLASS,
        row_labels=[blood.CLASSES[-1], blood.CLASSES[1]],
        cmap="gray",
        vmin=0,
        vmax=255,
        panel_size=1.8,
    )
    fig.suptitle(f"Study 000, fig. 5: automatically cropped images ({s}×{s}, grey negative)")
    footnote(
        fig,
        "Training crops drawn at random within each class (seed 0); #: row of the training "
        "set. Negative: the dark nucleus becomes bright, so its pixels have the large values.",
        width=110,
    )
    return save_figure(fig, out_dir, NAME)


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
