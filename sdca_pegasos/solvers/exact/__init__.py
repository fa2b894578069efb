"""The exact-optimum engine: :func:`~sdca_pegasos.solvers.exact.engine.solve_exact` and
:class:`~sdca_pegasos.solvers.exact.engine.ExactSVMClassifier` (``engine``), which method runs
where (``choice``), the QP in its primal or Gram form (``qp``), the interior point and its
crossover (``ipm``) and coordinate descent with Newton finishes (``cd``)."""
