"""SDCA and accelerated mini-batch SDCA: :class:`~.estimator.SDCAClassifier`
(``estimator``), its kernels written once over the row-access layer (``kernels``), its epoch
with shrinking (``shrinking``) and the exact finish of a small active set (``finish``), and
:class:`~sdca_pegasos.solvers.sdca.asdca.ASDCAClassifier` (``asdca``)."""
