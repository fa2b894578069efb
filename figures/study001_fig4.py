"""Study 001, figure 4: SDCA sampling (random, permutation, cyclic) on the genomic substitute.

Primal objective of SDCA with i.i.d. random, per-epoch permutation and fixed cyclic order
(configs tagged ``"sampling"``), (a) vs epochs and (b) vs the mean CPU time of the update loop.
Report: ``001_genomic`` (a labelled substitute for the study's genomic data).
"""

from __future__ import annotations

from pathlib import Path

from . import SCRIPTS
from ._common import cli, objective_figure

NAME = "study001_fig4"
(REPORT,) = SCRIPTS[NAME].reports


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the report; returns the paths written (PDF, PNG)."""
    return objective_figure(
        NAME,
        REPORT,
        ("sampling",),
        "Study 001, fig. 4: influence of the sampling order on SDCA",
        out_dir,
        reports_dir,
        note="The cyclic order is one random permutation drawn once per run and kept.",
    )


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
