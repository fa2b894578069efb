"""Study 000, figure 6: duality gaps of the SDCA configurations on the raw blood-cell crops.

Gap P(w(α)) − D(α) (log scale) vs epochs for the study's SDCA configurations (tag
``"study"``, solver ``sdca``); Pegasos has no dual, hence no gap. Report: ``000_blood_raw``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from . import SCRIPTS
from ._common import band_note, cli, footnote, load, plot_curves, save_figure, select, suptitle_for

NAME = "study000_fig6"
(REPORT,) = SCRIPTS[NAME].reports


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the report; returns the paths written (PDF, PNG)."""
    frame = select(load(REPORT, reports_dir), "study", solver="sdca")
    fig, ax = plt.subplots(figsize=(6.5, 4.3), layout="constrained")
    plot_curves(ax, frame, "gap", "epoch", positive=True)
    ax.set_yscale("log")
    ax.set_xlabel("epoch (n samples processed per epoch)")
    ax.set_ylabel("duality gap P(w(α)) − D(α), log scale")
    ax.legend(loc="upper right")
    fig.suptitle(suptitle_for(frame, "Study 000, fig. 6: decrease of the SDCA duality gaps"))
    footnote(
        fig,
        f"{band_note(frame)} The gap bounds the suboptimality of both P and D. Non-positive "
        "values (rounding at convergence) are not drawn.",
        width=100,
    )
    return save_figure(fig, out_dir, NAME)


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
