"""Benchmarks, run as scripts (``python benchmarks/NAME.py``, ``make bench*``), never installed.

Scripts: :mod:`~benchmarks.peers` (time to ε against peers, ``make bench-peers``),
:mod:`~benchmarks.epoch_cost` (one epoch against the memory bound, ``make bench``),
:mod:`~benchmarks.shrinking` (SDCA with and without shrinking), :mod:`~benchmarks.optima`
(the catalogue's optima from scratch, ``make bench-optima``), :mod:`~benchmarks.asdca_theta`.

What they share, one home each (the benchopt split): :mod:`~benchmarks.problems` (problem
lists, synthetic generators, loading), :mod:`~benchmarks.contenders` (our solvers and the
peers, each one timed ``fit``), :mod:`~benchmarks.certify` (ε targets and certified bounds
on P*), :mod:`~benchmarks.sweeps` (refits with growing budgets), :mod:`~benchmarks.report`
(time-to-ε summary, tables, plots) and :mod:`~benchmarks.threads` (one thread everywhere).

A script started as ``python benchmarks/NAME.py`` puts the repository root first on
``sys.path``, so that it imports this checkout's packages (``benchmarks``, ``cmdline``,
``solvers``, ...), like ``python -m`` from the root does.
"""
