"""Study 000, figure 8: decrease of the singular values of the training crops.

The first 1000 singular values of the centred training crop matrix (log scale,
:func:`data.blood.singular_values`), with the number k of principal components the PCA
experiment keeps and the share of the variance they carry. Needs the blood-cell images
(``make data``); the SVD is computed once (minutes) and cached.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from ._common import cli, footnote, save_figure
from .study000_fig7 import n_components

NAME = "study000_fig8"
SHOWN = 1000


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the singular values; returns the paths written (PDF, PNG)."""
    from data import blood

    blood.require(blood.DATASET)  # a missing dataset names `make data`
    crops = blood.crops(progress=False)
    values = np.asarray(blood.singular_values(k=len(crops.X_train)))  # all min(n, d) of them
    k = n_components()
    share = float(np.sum(values[:k] ** 2) / np.sum(values**2))
    shown = values[:SHOWN]
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    ax.semilogy(np.arange(1, len(shown) + 1), shown, color="#08306b", linewidth=1.6)
    ax.axvline(k, color="#e31a1c", linestyle="--", linewidth=1.2)
    ax.text(
        k * 1.3,
        shown[0],
        f"PCA-{k}: first {k} components\n= {100 * share:.1f} % of the variance",
        va="top",
        color="#e31a1c",
        fontsize=9,
    )
    ax.set_xlabel("rank")
    ax.set_ylabel("singular value (log scale)")
    fig.suptitle(f"Study 000, fig. 8: first {len(shown)} singular values of the training crops")
    footnote(
        fig,
        f"Training crops in [0, 1] ({len(crops.X_train)} images), each pixel centred; variance "
        f"share = sum of the first {k} squared singular values over the sum of all "
        f"{len(values)}.",
        width=95,
    )
    return save_figure(fig, out_dir, NAME)


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
