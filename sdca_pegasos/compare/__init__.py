"""``python -m sdca_pegasos.compare FILE --out DIR``: do the studies' conclusions hold on your
data?

An application above the engine (:mod:`sdca_pegasos.experiments`) and the figures
(:mod:`sdca_pegasos.figures`): nothing below imports it. It reads a binary classification file as
the user means it (:mod:`sdca_pegasos.compare.inputs`: a table (CSV, TSV or other delimited
text; parquet), ``.npz`` or svmlight/libsvm, every guess stated), builds the problem the user
means (:mod:`sdca_pegasos.compare.problem`: stratified split, features scaled on the training
rows, an intercept), checks everything before writing anything, then, in DIR (passed down to the
engine as its reports folder, :mod:`sdca_pegasos.compare.app`):

1. P* at each λ from the exact engine (:mod:`sdca_pegasos.experiments.optima`), certified or
   said not to be;
2. the studies' main solvers (:data:`sdca_pegasos.experiments.catalogue.MAIN_VARIANTS`), seeded
   runs with every epoch stored, resumable;
3. the figures and SUMMARY.md (:mod:`sdca_pegasos.compare.outputs`): the claims rows of the
   scorecard (:data:`sdca_pegasos.figures.any_data.ANY_DATA`), judged by its evaluator, with the
   runs' spread (the claims about errors not judged where the optimum does no better than
   predicting one class).

Every problem is one line naming the fix and exit status 2, before anything is written
(:mod:`sdca_pegasos.compare.folder`: DIR holds one input, recorded in its manifest); Ctrl-C says
what it interrupted and what DIR holds (exit status 130), and the same command resumes."""

from importlib import import_module

#: The package's names -> the module that defines them, imported on first use, so that
#: ``python -m sdca_pegasos.compare`` reaches its ``__main__`` (which says how to install a missing
#: dependency) before anything imports numpy or pandas.
_HOME = {"BadInput": "inputs", "Plan": "app", "Settings": "app", "compare": "app",
         "execute": "app", "prepare": "app"}  # fmt: skip

__all__ = sorted(_HOME)


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
