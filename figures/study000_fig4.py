"""Study 000, figure 4: the automatic crop pipeline, step by step, on one training image.

Every intermediate image of :func:`data.blood.pipeline_steps` (mean-shift filter, grey, frame
neutralisation, dark-percentile threshold, opening, centre and crop window, final crop) for the
first neutrophil of the training set. Needs the blood-cell images (``make data``).
"""

from __future__ import annotations

from pathlib import Path

from ._common import cli, footnote, image_grid, save_figure

NAME = "study000_fig4"


def step_titles(params) -> dict[str, str]:
    """Panel titles with the pipeline's parameters (:class:`data.blood.CropParams`)."""
    s = params.crop_size
    return {
        "original": "original",
        "mean_shift": f"1. mean-shift filter (sp {params.spatial_radius}, sr "
        f"{params.colour_radius})",
        "grey": "2. grey",
        "frame_neutralised": f"3. frame (< {params.frame_threshold}) neutralised",
        "threshold_mask": f"4. threshold at the {params.dark_percentile:g} % darkest",
        "opened_mask": f"5. inverted, opened {params.opening_size}×{params.opening_size}",
        "centre_marked": f"6. centre and {s}×{s} window",
        "crop": "crop: grey, negative, [0, 1]",
    }


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the image file; returns the paths written (PDF, PNG)."""
    from data import blood, raw_root

    blood.require(blood.DATASET)  # a missing dataset names `make data`
    files, labels = blood.list_files("TRAIN")
    index = next(i for i, label in enumerate(labels) if label == 1)
    path = raw_root() / blood.DATASET / files[index]
    steps = blood.pipeline_steps(path)
    titles = step_titles(blood.CropParams())
    grey = {"grey", "frame_neutralised", "threshold_mask", "opened_mask", "crop"}
    images = [
        image if key not in grey else image.astype(float) / (1.0 if key == "crop" else 255.0)
        for key, image in steps.items()
    ]
    fig = image_grid(
        images, [titles.get(k, k) for k in steps], ncols=4, cmap="gray", vmin=0, vmax=1
    )
    name = f"{blood.CLASSES[int(labels[index])]} {Path(files[index]).name}"
    fig.suptitle(f"Study 000, fig. 4: automatic cropping procedure ({name})")
    footnote(
        fig,
        "Steps of the study's appendix A (data/blood.py): the centre is the mean position of "
        "the dark pixels left after the opening; the crop is cut from the original image.",
        width=120,
    )
    return save_figure(fig, out_dir, NAME)


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
