"""Study 001, figure 10: influence of λ on ASDCA (hand-tuned θ), genomic substitute.

Primal objective for every λ of the sweep (configs tagged ``"lambda"`` and
``"ASDCA"``), (a) vs epochs and (b) vs the mean CPU time of the update loop. Report:
``001_genomic_lambda`` (a labelled substitute for the study's genomic data).
"""

from __future__ import annotations

from pathlib import Path

from . import SCRIPTS
from ._common import cli, lambda_figure

NAME = "study001_fig10"
(REPORT,) = SCRIPTS[NAME].reports
#: Catalogue tag of the algorithm (see experiments.catalogue._genomic_lambda_configs).
ALGORITHM = "ASDCA"


def main(out_dir: Path | str | None = None, reports_dir: Path | str | None = None) -> list[Path]:
    """Draw the figure from the report; returns the paths written (PDF, PNG)."""
    return lambda_figure(
        NAME,
        REPORT,
        ALGORITHM,
        "Study 001, fig. 10: influence of λ on ASDCA (hand-tuned θ)",
        out_dir,
        reports_dir,
        note="Higher λ: a larger optimal objective (λ/2‖w‖² weighs more) and a better "
        "conditioned problem.",
    )


if __name__ == "__main__":
    raise SystemExit(cli(main, NAME))
