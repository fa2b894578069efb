"""Certified Numba solvers for the linear SVM, and a reproduction of two studies comparing them.

One import package, named after the distribution, so that a user's own ``data/``,
``solvers/`` or ``compare.py`` never shadows the project's (nor ours theirs):

- :mod:`sdca_pegasos.solvers`: the estimators (``SDCAClassifier``, ``ASDCAClassifier``,
  ``PegasosClassifier``, ``ExactSVMClassifier``, ``DaskSVMClassifier``) and their kernels;
- :mod:`sdca_pegasos.data`: the studies' datasets (``python -m sdca_pegasos.data``);
- :mod:`sdca_pegasos.experiments`: seeded runs into reports (``python -m
  sdca_pegasos.experiments``);
- :mod:`sdca_pegasos.figures`: every figure, table and the scorecard, from the reports;
- :mod:`sdca_pegasos.compare`: ``python -m sdca_pegasos.compare FILE --out DIR``;
- :mod:`sdca_pegasos.cmdline`: the argument types every command line shares.

Importing this package imports none of them.
"""
