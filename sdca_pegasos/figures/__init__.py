"""Figures and tables of both studies and beyond, as data: one registry entry per output.

:data:`OUTPUTS` says, for every output, which reports (or datasets) it reads, which configs
(catalogue tags), how it is drawn and with which caption. ``draw`` names a plot kind of
:mod:`sdca_pegasos.figures.plots` (``plots.curves``: curves over seeds in the panels of a layout)
or, for an output that is genuinely special (images, coefficients, tables, the λ study), a function
``module.function`` of this package; every one is called as ``f(spec, out_dir, reports_dir) ->
list[Path]`` by :func:`build`. Outputs never call a solver (STYLE.md, practice 12): they read the
reports of :mod:`sdca_pegasos.experiments` (or the data products of :mod:`sdca_pegasos.data.blood`)
and aggregate over seeds at plot time (:mod:`sdca_pegasos.figures.common`).

``python -m sdca_pegasos.figures list`` traces each output to its report, experiment,
configurations and estimator classes; ``python -m sdca_pegasos.figures NAME|all`` builds them."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

EPOCH_NOTE = (
    "An epoch is n samples processed whatever the batch size (the study ran its mini-batch "
    "methods for n·epochs batches, i.e. batch-size times more data)."
)
ASDCA_NOTE = (
    "ASDCA optimises the smoothed hinge; like every curve, its curve is the hinge objective "
    "of the iterate (as in the study)."
)
LAMBDA_NOTE = (
    "Higher λ: a larger optimal objective (λ/2‖w‖² weighs more) and a better conditioned problem."
)
SAMPLING_NOTE = "The cyclic order is one random permutation drawn once per run and kept."
STUDY_LAMBDA = "λ is the study's (not cross-validated); every run does the same number of epochs."


@dataclass(frozen=True)
class Output:
    """One figure or table: its inputs, the configs it draws, how, and the study's words.

    ``select`` and ``solver`` pick the configs (every tag of ``select``; the solver if given);
    ``layout`` names the panels of the curves kind (:data:`sdca_pegasos.figures.plots.LAYOUTS`:
    ``"objective"`` primal vs epochs and CPU time, ``"loss_error"`` loss vs CPU time and
    test error vs epochs, ``"gap"`` duality gap vs epochs); ``by="lambda"`` draws one curve
    per λ of one algorithm; ``heading`` is the study's title (the dataset and λ are
    appended) and ``caption`` the note after the standard one on the aggregation.
    """

    name: str  # stem of its files: output/figures/<name>.pdf ...
    title: str  # what it shows, one line
    reports: tuple[str, ...] = ()  # reports/<name>.parquet (and sidecars) it reads
    draw: str = "plots.curves"  # the plot kind, or "module.function" of this package
    select: tuple[str, ...] = ()
    solver: str | None = None
    layout: str = "objective"
    by: str = "config"  # or "lambda"
    heading: str = ""
    caption: str = ""
    data: tuple[str, ...] = ()  # raw datasets read directly (image figures; `make data`)
    kind: str = "figure"  # figure: .pdf, .png; table: .md, .csv, .png
    any_report: bool = False  # reads every catalogue report present, not a fixed list

    @property
    def extensions(self) -> tuple[str, ...]:
        return ("md", "csv", "png") if self.kind == "table" else ("pdf", "png")

    @property
    def module(self) -> str:
        """The file that draws it (a Makefile prerequisite)."""
        return f"sdca_pegasos/figures/{self.draw.split('.')[0]}.py"


def _study000(n: int, report: str, what: str, title: str) -> Output:
    return Output(f"study000_fig{n}", title, (report,), select=("study",), layout="loss_error",
                  heading=f"Study 000, fig. {n}: SDCA vs Pegasos on the {what}",
                  caption=STUDY_LAMBDA)  # fmt: skip


def _study001(n, report, tag, title, heading, caption=LAMBDA_NOTE, by="config") -> Output:
    return Output(f"study001_fig{n}", title, (report,), by=by,
                  select=("lambda", tag) if by == "lambda" else (tag,),
                  heading=f"Study 001, fig. {n}: {heading}", caption=caption)  # fmt: skip


def _lambda(n: int, algorithm: str, heading: str) -> Output:
    """Study 001's λ figures: one curve per λ of one algorithm (tags of the catalogue)."""
    title = f"genomic (substitute): λ and {algorithm if n != 11 else 'mini-batch Pegasos'}"
    return _study001(n, "001_genomic_lambda", algorithm, title, heading, by="lambda")


_BLOOD, _SIM, _GEN, _SKIN = ("blood-cells",), "001_simulated", "001_genomic", "001_skin"
_FOUR, _SUB = f"{EPOCH_NOTE} {ASDCA_NOTE}", "genomic (substitute)"
_CONVERGENCE = "convergence of the four algorithms"
_SAMPLING = "influence of the sampling order on SDCA"

# fmt: off
OUTPUTS: dict[str, Output] = {o.name: o for o in (
    Output("study000_fig1", "blood cells: example images of both classes", data=_BLOOD,
           draw="images.examples"),
    _study000(2, "000_blood_raw", "raw cropped images",
              "blood cells, raw crops: train loss vs CPU time, test error vs epoch"),
    _study000(3, "000_blood_pca40", "PCA-40 images",
              "blood cells, PCA-40: train loss vs CPU time, test error vs epoch"),
    Output("study000_fig4", "blood cells: the crop pipeline step by step", data=_BLOOD,
           draw="images.pipeline"),
    Output("study000_fig5", "blood cells: cropped images of both classes", data=_BLOOD,
           draw="images.crops"),
    Output("study000_fig6", "blood cells, raw crops: SDCA duality gaps", ("000_blood_raw",),
           select=("study",), solver="sdca", layout="gap",
           heading="Study 000, fig. 6: decrease of the SDCA duality gaps",
           caption="The gap bounds the suboptimality of both P and D. Non-positive values "
           "(rounding at convergence) are not drawn."),
    Output("study000_fig7", "blood cells: images rebuilt from PCA-40", data=_BLOOD,
           draw="images.pca"),
    Output("study000_fig8", "blood cells: singular values of the crops", data=_BLOOD,
           draw="images.singular_values"),
    _study001(1, _SIM, "algorithms", "simulated: the four algorithms", _CONVERGENCE, _FOUR),
    _study001(2, _GEN, "algorithms", f"{_SUB}: the four algorithms", _CONVERGENCE, _FOUR),
    _study001(3, _SKIN, "algorithms", "skin: the four algorithms", _CONVERGENCE, _FOUR),
    _study001(4, _GEN, "sampling", f"{_SUB}: SDCA sampling", _SAMPLING, SAMPLING_NOTE),
    _study001(5, _SKIN, "sampling", "skin: SDCA sampling", _SAMPLING, SAMPLING_NOTE),
    _study001(6, _GEN, "projection", f"{_SUB}: Pegasos projection",
              "influence of the projection step on Pegasos",
              "Projection: w ← min(1, (1/√λ)/‖w‖)·w after each step."),
    Output("study001_fig7", "simulated: final coefficients of every option vs β", (_SIM,),
           draw="study001_fig7.draw"),
    _lambda(8, "SDCA", "influence of λ on SDCA (random sampling)"),
    _lambda(9, "Pegasos", "influence of λ on Pegasos"),
    _lambda(10, "ASDCA", "influence of λ on ASDCA (hand-tuned θ)"),
    _lambda(11, "Mini-batch Pegasos", "influence of λ on mini-batch Pegasos"),
    Output("study001_table1", "datasets of study 001", (_SIM, _GEN, _SKIN), kind="table",
           draw="study001_table1.draw"),
    Output("study001_table2", "simulated: test accuracy of every variant, plain and averaged",
           (_SIM,), kind="table", draw="study001_table2.draw"),
    Output("beyond_suboptimality",
           "certified suboptimality vs CPU time, every solver on every dataset",
           any_report=True, draw="beyond_suboptimality.draw"),
    Output("beyond_shrinking", "skin: SDCA with and without shrinking, gap and active set",
           ("beyond_skin_shrinking",), select=("shrinking",), layout="shrinking",
           heading="Beyond the studies: SDCA with shrinking", caption="Shrinking sets aside "
           "the samples held at a dual bound and restores them for a full pass once the rest "
           "is solved; the gap is over all samples after each epoch (untimed)."),
    Output("beyond_lambda",
           "λ sweeps at convergence: the certified optimum's error, CPU time to 1e-2/1e-4/1e-6",
           ("beyond_blood_lambda_raw", "beyond_blood_lambda_pca40", "001_genomic_lambda"),
           draw="beyond_lambda.draw"),
)}
# fmt: on


def build(name: str, out_dir=None, reports_dir=None) -> list[Path]:
    """Draw output ``name`` from its inputs; returns the paths written (FileNotFoundError
    naming the command that makes a missing report or dataset)."""
    spec = OUTPUTS[name]
    module, function = spec.draw.rsplit(".", 1)
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)(
        spec, out_dir, reports_dir
    )


__all__ = ["ASDCA_NOTE", "OUTPUTS", "Output", "build"]
