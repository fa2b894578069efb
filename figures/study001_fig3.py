"""Study 001, figure 3: primal objective of the four algorithms on the skin data.

SDCA (random sampling), Pegasos, ASDCA (hand-tuned θ) and mini-batch Pegasos (configs tagged
``"algorithms"``), (a) vs epochs and (b) vs the mean CPU time of the update loop (the study
plotted iterations only). Report: ``001_skin``.
"""

from __future__ import annotations

from pathlib import Path

from . import SCRIPTS
from ._common import ASDCA_NOTE, EPOCH_NOTE, cli, objective_figure

NAME = "study001_fig3"
(REPORT,) = SCRIPTS[NAME].reports


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the report; returns the paths written (PDF, PNG)."""
    return objective_figure(
        NAME,
        REPORT,
        ("algorithms",),
        "Study 001, fig. 3: convergence of the four algorithms",
        out_dir,
        reports_dir,
        note=f"{EPOCH_NOTE} {ASDCA_NOTE}",
    )


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
