"""What every engine stands on: the rows as the kernels read them, the problem a binary fit
takes and returns, the estimators' shared base (validation, targets and weights, λ and the
overflow checks, the timed epoch loop), index streams, the certificate's compensated sums and
BLAS on one thread. Nothing here imports an engine."""
