"""``python -m compare FILE --out DIR``: do the studies' conclusions hold on your data?

An application above the engine (:mod:`experiments`) and the figures (:mod:`figures`):
nothing below imports it. It reads a binary classification file as the user means it
(:mod:`compare.inputs`: svmlight/libsvm, ``.npz`` or CSV, every guess stated), builds the
problem the user means (:mod:`compare.problem`: stratified split, features scaled on the
training rows, an intercept), checks everything before writing anything, then, in DIR
(passed down to the engine as its reports folder, :mod:`compare.app`):

1. P* at each λ from the exact engine (:mod:`experiments.optima`), certified or said not
   to be;
2. the studies' main solvers (:data:`experiments.catalogue.MAIN_VARIANTS`), seeded runs with
   every epoch stored, resumable;
3. the figures and SUMMARY.md (:mod:`compare.outputs`): the claims rows of the scorecard
   (:data:`figures.any_data.ANY_DATA`), judged by its evaluator, with the runs' spread.

Every problem is one line naming the fix and exit status 2, before anything is written
(:mod:`compare.folder`: DIR holds one input, recorded in its manifest); Ctrl-C says what it
interrupted and what DIR holds (exit status 130), and the same command resumes.
"""

from importlib import import_module

#: The package's names -> the module that defines them, imported on first use, so that
#: ``python -m compare`` reaches its ``__main__`` (which says how to install a missing
#: dependency) before anything imports numpy or pandas.
_HOME = {"BadInput": "inputs", "Plan": "app", "Settings": "app", "compare": "app",
         "execute": "app", "prepare": "app"}  # fmt: skip

__all__ = sorted(_HOME)


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
