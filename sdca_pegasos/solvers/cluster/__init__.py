"""One SVM across a dask cluster: :class:`~.estimator.DaskSVMClassifier`
(``estimator``: CoCoA+ with SDCA as the local solver, certified by the gap summed over the
blocks), a block's worker side (``blocks``), where the rows live (``layout``), the driver's side
of a round (``rounds``) and shards read by the workers (``shards``)."""
