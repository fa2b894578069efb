"""The maths every engine shares: the rows as the kernels read them (``rows``), the losses,
the objectives and the certificate (``objectives``, its compensated sums in ``compensated``,
the passes they share with monitoring in ``passes``), index streams (``sampling``) and BLAS
on one thread (``blas``). Imports no estimator and no engine."""
