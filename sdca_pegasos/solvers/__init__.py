"""Numba solvers for the L2-regularised linear SVM, with scikit-learn's estimator API.

- :class:`SDCAClassifier`: stochastic dual coordinate ascent (permutation / iid / cyclic
  sampling, modified-SGD first epoch, averaged or random-iterate output, smoothed hinge,
  exact duality-gap stopping).
- :class:`PegasosClassifier`: Pegasos, mini-batch stochastic sub-gradient descent on the
  primal (iid or permutation sampling, projection, uniform or Lacoste-Julien weighted
  average).

Every solver names its sampling orders in one vocabulary, ``"iid"`` / ``"permutation"`` /
``"cyclic"`` (why: :mod:`sdca_pegasos.solvers.core.sampling`).
- :class:`ASDCAClassifier`: accelerated mini-batch SDCA on the smoothed hinge, with
  duality-gap stopping.
- :class:`DaskSVMClassifier`: CoCoA+ with SDCA on each block of a dask cluster, certified
  by the duality gap summed over the blocks (:mod:`sdca_pegasos.solvers.cluster.estimator`).
- :class:`ExactSVMClassifier`: the optimum itself, certified to a relative duality gap
  (interior point and crossover, or coordinate descent with Newton finishes:
  :mod:`sdca_pegasos.solvers.exact.engine`).
- :class:`NewtonSVMClassifier`: a primal Newton method for the squared and the smoothed hinge
  on dense data, on the GPU (``device="cuda"``) or the CPU, every iterate certified through
  the dual point it implies (:mod:`sdca_pegasos.solvers.gpu.newton`).

scikit-learn's estimator checks that an estimator fails by design, with the reasons, are
:func:`sdca_pegasos.solvers.sklearn_checks.expected_failed_checks` (``check_estimator``'s
``expected_failed_checks``; none for ``SDCAClassifier()`` and ``ExactSVMClassifier()``).

Shared maths (objectives, dual, gap, λ ↔ C) lives in :mod:`sdca_pegasos.solvers.core.objectives`,
the losses (hinge, smoothed hinge, squared hinge: value, conjugate, coordinate step, shrinking
test) in :mod:`sdca_pegasos.solvers.core.losses`; ``FASTMATH`` is the kernels' compile flag set and
``dot4`` their pass of four rows against one vector (benchmarks stream X with it as the kernels
do)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from sdca_pegasos.solvers.cluster.estimator import DaskSVMClassifier
from sdca_pegasos.solvers.core import losses, objectives
from sdca_pegasos.solvers.core.rows import FASTMATH, dot4
from sdca_pegasos.solvers.driver.estimator import BaseLinearSVM
from sdca_pegasos.solvers.driver.problem import EpochInfo
from sdca_pegasos.solvers.driver.scales import check_lmbd
from sdca_pegasos.solvers.exact.engine import ExactSVMClassifier
from sdca_pegasos.solvers.gpu.newton import NewtonSVMClassifier
from sdca_pegasos.solvers.path import PathPoint, lambda_path
from sdca_pegasos.solvers.pegasos.estimator import PegasosClassifier
from sdca_pegasos.solvers.sdca.asdca import ASDCAClassifier
from sdca_pegasos.solvers.sdca.estimator import SDCAClassifier

__all__ = [
    "FASTMATH",
    "ASDCAClassifier",
    "DaskSVMClassifier",
    "EpochInfo",
    "ExactSVMClassifier",
    "NewtonSVMClassifier",
    "PathPoint",
    "PegasosClassifier",
    "SDCAClassifier",
    "check_lmbd",
    "dot4",
    "lambda_path",
    "losses",
    "objectives",
    "warm_up",
]

#: Parameter sets that together call every kernel of every solver.
_KERNEL_CONFIGS: list[tuple[type[BaseLinearSVM], dict]] = [
    (SDCAClassifier, {"sgd_init": False, "average": True, "tol": 1e-3}),
    (SDCAClassifier, {"sgd_init": True, "average": "random", "tol": 1e-3}),
    (SDCAClassifier, {"shrinking": True, "tol": 1e-3}),
    (PegasosClassifier, {"batch_size": 1, "projection": True, "average": True}),
    (PegasosClassifier, {"batch_size": 2, "projection": True, "average": "weighted"}),
    (ASDCAClassifier, {"tol": 1e-3, "average": True}),
    (ExactSVMClassifier, {}),  # its warm-up runs the engine by each method
]


def warm_up(dtypes=(np.float64, np.float32), readonly: bool = True, sparse: bool = True) -> None:
    """Compile every kernel for every dtype (and for read-only inputs) before any timing.

    With ``sparse``, also the CSR kernels of the solvers that have them, for scipy's
    default int32 indices (int64 indices, used by scipy only beyond 2³¹ entries, compile on
    their first fit). Fits with sample weights compile their own variant on first use.

    On a machine that has never compiled them this takes minutes (245 s on a busy 2-core
    machine, measured; a single first fit compiles only its own variant, ~20 s). Kernels are
    cached on disk (``cache=True``), so after the first process this costs milliseconds.
    ``fit`` also warms up its own kernels for its input's exact type, so calling this is an
    optimisation (e.g. once per worker, or before a first timed fit), never a requirement.
    """
    rng = np.random.default_rng(0)
    for dtype in dtypes:
        for writeable in (True, False) if readonly else (True,):
            X = rng.standard_normal((8, 3)).astype(dtype)
            X.setflags(write=writeable)
            for cls, params in _KERNEL_CONFIGS:
                cls(**params)._warm_up_for(X)
            if not sparse:
                continue
            Xs = sp.csr_matrix(X)
            for a in (Xs.data, Xs.indices, Xs.indptr):
                a.setflags(write=writeable)
            for cls, params in _KERNEL_CONFIGS:
                if cls._supports_sparse:
                    cls(**params)._warm_up_for(Xs)
