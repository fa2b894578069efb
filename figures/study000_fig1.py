"""Study 000, figure 1: example training images of both classes (lymphocyte, neutrophil).

Original RGB images drawn at random (seed 0) from each class by
:func:`data.blood.example_images`. Needs the blood-cell images (``make data``).
"""

from __future__ import annotations

from pathlib import Path

from ._common import cli, footnote, image_grid, save_figure

NAME = "study000_fig1"
PER_CLASS = 4


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the image files; returns the paths written (PDF, PNG)."""
    from data import blood

    blood.require(blood.DATASET)  # a missing dataset names `make data`
    examples = blood.example_images(n_per_class=PER_CLASS, seed=0)
    h, w = examples[0].image.shape[:2]
    fig = image_grid(
        [e.image for e in examples],
        [Path(e.path).name for e in examples],
        ncols=PER_CLASS,
        row_labels=[e.class_name for e in examples[::PER_CLASS]],
    )
    fig.suptitle(f"Study 000, fig. 1: examples of both classes ({w}×{h} RGB training images)")
    footnote(
        fig,
        "The cell to classify is the purple-stained one; its position varies, and other cells "
        "fill the background. Drawn at random within each class (seed 0).",
        width=110,
    )
    return save_figure(fig, out_dir, NAME)


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
