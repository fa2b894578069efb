"""Pegasos: :class:`~sdca_pegasos.solvers.pegasos.estimator.PegasosClassifier` (``estimator``)
and its kernels, written once over the row-access layer (``kernels``)."""
