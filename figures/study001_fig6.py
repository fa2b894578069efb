"""Study 001, figure 6: Pegasos with and without projection on the genomic substitute.

Primal objective of Pegasos (k = 1) with and without the projection onto the ball of radius
1/√λ (configs tagged ``"projection"``), (a) vs epochs and (b) vs the mean CPU time of the
update loop. Report: ``001_genomic`` (a labelled substitute for the study's genomic data).
"""

from __future__ import annotations

from pathlib import Path

from . import SCRIPTS
from ._common import cli, objective_figure

NAME = "study001_fig6"
(REPORT,) = SCRIPTS[NAME].reports


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the report; returns the paths written (PDF, PNG)."""
    return objective_figure(
        NAME,
        REPORT,
        ("projection",),
        "Study 001, fig. 6: influence of the projection step on Pegasos",
        out_dir,
        reports_dir,
        note="Projection: w ← min(1, (1/√λ)/‖w‖)·w after each step.",
    )


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
