"""Figures and tables of both studies and beyond: one script per output, reading reports only.

Every script ``figures/<name>.py`` exposes ``main(out_dir=None, reports_dir=None) -> list[Path]``
and runs as ``python -m figures.<name>``; ``python -m figures NAME|all`` runs them by name,
``python -m figures list`` lists them and ``python -m figures deps`` prints their Makefile
dependencies. Scripts never call a solver (STYLE.md, practice 12): they read the reports of
:mod:`experiments` (or, for the blood-cell images, the data products of :mod:`data.blood`) and
aggregate over seeds at plot time with the helpers of :mod:`figures._common`.

:data:`SCRIPTS` is the registry: which reports (and datasets) each script reads, as data.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Script:
    """One figure or table script.

    Attributes
    ----------
    name : str
        Module name in this package and stem of its output files.
    title : str
        What it shows (one line).
    reports : tuple of str
        Reports it requires (``reports/<name>.parquet``; the ``_coef.parquet`` and ``.json``
        sidecars are written with them).
    data : tuple of str
        Raw datasets it reads directly (``make data``), for the image figures.
    kind : {"figure", "table"}
        Figures write ``.pdf`` and ``.png``; tables write ``.md``, ``.csv`` and ``.png``.
    any_report : bool
        The script reads every catalogue report that exists (at least one), instead of a
        fixed list.
    """

    name: str
    title: str
    reports: tuple[str, ...] = ()
    data: tuple[str, ...] = ()
    kind: str = "figure"
    any_report: bool = False

    @property
    def extensions(self) -> tuple[str, ...]:
        return ("md", "csv", "png") if self.kind == "table" else ("pdf", "png")


_BLOOD = ("blood-cells",)

SCRIPTS: dict[str, Script] = {
    s.name: s
    for s in (
        Script("study000_fig1", "blood cells: example images of both classes", data=_BLOOD),
        Script(
            "study000_fig2",
            "blood cells, raw crops: train loss vs CPU time, test error vs epoch",
            ("000_blood_raw",),
        ),
        Script(
            "study000_fig3",
            "blood cells, PCA-40: train loss vs CPU time, test error vs epoch",
            ("000_blood_pca40",),
        ),
        Script("study000_fig4", "blood cells: the crop pipeline step by step", data=_BLOOD),
        Script("study000_fig5", "blood cells: cropped images of both classes", data=_BLOOD),
        Script("study000_fig6", "blood cells, raw crops: SDCA duality gaps", ("000_blood_raw",)),
        Script("study000_fig7", "blood cells: images rebuilt from PCA-40", data=_BLOOD),
        Script("study000_fig8", "blood cells: singular values of the crops", data=_BLOOD),
        Script("study001_fig1", "simulated: the four algorithms", ("001_simulated",)),
        Script("study001_fig2", "genomic (substitute): the four algorithms", ("001_genomic",)),
        Script("study001_fig3", "skin: the four algorithms", ("001_skin",)),
        Script("study001_fig4", "genomic (substitute): SDCA sampling", ("001_genomic",)),
        Script("study001_fig5", "skin: SDCA sampling", ("001_skin",)),
        Script("study001_fig6", "genomic (substitute): Pegasos projection", ("001_genomic",)),
        Script(
            "study001_fig7",
            "simulated: final coefficients of every option vs β",
            ("001_simulated",),
        ),
        Script("study001_fig8", "genomic (substitute): λ and SDCA", ("001_genomic_lambda",)),
        Script("study001_fig9", "genomic (substitute): λ and Pegasos", ("001_genomic_lambda",)),
        Script("study001_fig10", "genomic (substitute): λ and ASDCA", ("001_genomic_lambda",)),
        Script(
            "study001_fig11",
            "genomic (substitute): λ and mini-batch Pegasos",
            ("001_genomic_lambda",),
        ),
        Script(
            "study001_table1",
            "datasets of study 001",
            ("001_simulated", "001_genomic", "001_skin"),
            kind="table",
        ),
        Script(
            "study001_table2",
            "simulated: test accuracy of every variant, plain and averaged",
            ("001_simulated",),
            kind="table",
        ),
        Script(
            "beyond_suboptimality",
            "certified suboptimality vs CPU time, every solver on every dataset",
            any_report=True,
        ),
        Script(
            "beyond_lambda",
            "λ sweeps at convergence: the certified optimum's error, CPU time to 1e-2/1e-4/1e-6",
            ("beyond_blood_lambda_raw", "beyond_blood_lambda_pca40", "001_genomic_lambda"),
        ),
    )
}

__all__ = ["SCRIPTS", "Script"]
