"""How a fit runs, whatever the engine: the estimators' base (validation, ``fit`` over one
binary problem per class, the timed epoch loop and its hooks, warm-up), the problem a binary
fit takes and returns, targets and weights, λ and the overflow checks, and where the epochs
run (``device``). Imports :mod:`sdca_pegasos.solvers.core` and no engine."""
