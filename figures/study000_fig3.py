"""Study 000, figure 3: SDCA vs mini-batch Pegasos on the whitened PCA-40 blood-cell crops.

(a) training loss P(w) (log scale) vs the mean CPU time of the update loop; (b) test error vs
epochs. The study's three configurations (tag ``"study"``): SDCA-Perm, SDCA-Perm with the
modified-SGD first epoch, Pegasos with mini-batches of 100. Report: ``000_blood_pca40``.
"""

from __future__ import annotations

from pathlib import Path

from . import SCRIPTS
from ._common import cli, load, loss_and_error, save_figure, select, suptitle_for

NAME = "study000_fig3"
(REPORT,) = SCRIPTS[NAME].reports


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the report; returns the paths written (PDF, PNG)."""
    frame = select(load(REPORT, reports_dir), "study")
    title = suptitle_for(frame, "Study 000, fig. 3: SDCA vs Pegasos on the PCA-40 images")
    note = "λ is the study's (not cross-validated); every run does the same number of epochs."
    fig = loss_and_error(frame, title, note=note)
    return save_figure(fig, out_dir, NAME)


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
