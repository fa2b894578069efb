r"""A regularisation path: one estimator fitted along a decreasing λ sequence, warm.

On the hinge (and the smoothed hinge) the dual box :math:`[0, c_i]` does not depend on λ, so
the optimal dual point of one λ is feasible for the next and, λ changing by a small factor,
close to its optimum: :func:`lambda_path` starts each fit from the last one's α
(``warm_start=True``), with :math:`\tilde w(\alpha)` recomputed for the new λ, and runs
each to the same *relative* duality gap :math:`(P - D)/P \le` ``rel_gap`` (a fixed
absolute ``tol`` would mean a different accuracy at each λ, P* spanning orders of
magnitude along a path).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos.solvers.core import objectives

__all__ = ["PathPoint", "lambda_path"]


@dataclass(frozen=True)
class PathPoint:
    """One λ of a path.

    Attributes
    ----------
    lmbd : float
    coef : ndarray of shape (n_features,) or (n_classes, n_features)
    intercept : ndarray of shape (1,) or (n_classes,)
    dual_coef : ndarray of shape (n_samples,) or (n_classes, n_samples)
    primal, dual : float or ndarray of shape (n_classes,)
        :math:`P` and :math:`D` of the returned pair, from
        :func:`sdca_pegasos.solvers.core.objectives.certificate` (compensated, apart from the
        solver): ``dual <= P* <= primal`` (one per class in one-vs-rest).
    rel_gap : float
        :math:`(P - D)/P`, the largest over the classes in one-vs-rest.
    reached : bool
        ``rel_gap <= rel_gap`` target.
    n_epochs : int
        Epochs run (the largest over the classes).
    cpu_seconds : float
        Process CPU time of the ``fit`` call (its per-epoch gap checks included).
    update_seconds : float
        CPU time of the update loops and the set-up alone (``epoch_times_``,
        ``setup_time_``), what the studies time.
    """

    lmbd: float
    coef: np.ndarray
    intercept: np.ndarray
    dual_coef: np.ndarray
    primal: float | np.ndarray
    dual: float | np.ndarray
    rel_gap: float
    reached: bool
    n_epochs: int
    cpu_seconds: float
    update_seconds: float


def lambda_path(
    estimator, X, y, lmbds, *, rel_gap: float = 1e-6, warm: bool = True, sample_weight=None
) -> list[PathPoint]:
    """Fit ``estimator`` (SDCA or ASDCA) at each λ of ``lmbds``, to a relative duality gap.

    Parameters
    ----------
    estimator : SDCAClassifier or ASDCAClassifier
        Cloned; its ``lmbd``, ``tol`` and ``warm_start`` are set here, every other
        parameter (``max_epochs`` bounds each fit; a ``callback`` still runs) is kept.
    X, y, sample_weight
        As in ``fit``.
    lmbds : sequence of float
        In the order given (a decreasing sequence is what warm starts help).
    rel_gap : float, default=1e-6
        Each fit stops after the first epoch whose exact duality gap is at most ``rel_gap``
        times its primal objective (every class's, in one-vs-rest); with
        ``shrinking=True`` that gap is computed only on the epochs where the free KKT
        statistic predicts it (as ``tol`` in ``fit``), not after every epoch.
    warm : bool, default=True
        Start each fit from the previous λ's dual point; False fits each λ from α = 0
        (the comparison the benchmark makes).

    Returns
    -------
    list of PathPoint
        One per λ. A fit that ends at ``max_epochs`` before the target is kept, with
        ``reached=False``, and one ConvergenceWarning names every such λ.
    """
    if not estimator.has_dual:
        raise ValueError(
            f"{type(estimator).__name__} keeps no dual point: a path needs a duality gap "
            "(use SDCAClassifier or ASDCAClassifier)."
        )
    if not rel_gap > 0:
        raise ValueError(f"rel_gap must be > 0, got {rel_gap!r}")

    def prepared(est):
        """Every λ to the relative gap: the driver's ``tol`` test, relative (its exact gap
        still computed only when the KKT statistic predicts it, with shrinking); the
        path warns for the λ that miss it, not each fit."""
        est._warn_unconverged = False
        return est

    est = prepared(clone(estimator).set_params(tol=rel_gap, tol_gap="relative", warm_start=warm))
    points, missed = [], []
    bias = float(est.bias_multiplier)
    for lmbd in lmbds:
        if not warm:
            est = prepared(clone(est))
        est.set_params(lmbd=float(lmbd))
        start = time.process_time()
        est.fit(X, y, sample_weight=sample_weight)
        cpu = time.process_time() - start
        certs = _certificates(est, X, y, sample_weight, bias)
        gaps = np.array([c["rel_gap"] for c in certs])
        reached = bool(np.all(gaps <= rel_gap))

        def one(key, certs=certs):
            values = np.array([c[key] for c in certs])
            return float(values[0]) if len(values) == 1 else values

        if not reached:
            missed.append(f"lmbd={lmbd:g} ({gaps.max():.2e})")
        times = est.epoch_times_ if isinstance(est.epoch_times_, list) else [est.epoch_times_]
        points.append(
            PathPoint(
                lmbd=float(lmbd),
                coef=est.coef_.copy(),
                intercept=est.intercept_.copy(),
                dual_coef=est.dual_coef_.copy(),
                primal=one("primal"),
                dual=one("dual"),
                rel_gap=float(gaps.max()),
                reached=reached,
                n_epochs=int(est.n_iter_),
                cpu_seconds=cpu,
                update_seconds=float(sum(t.sum() for t in times) + np.sum(est.setup_time_)),
            )
        )
    if missed:
        warnings.warn(
            f"lambda_path: max_epochs={est.max_epochs} ended before the relative gap "
            f"{rel_gap:g} at {', '.join(missed)}. Increase max_epochs.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return points


def _certificates(est, X, y, sample_weight, bias: float) -> list[dict]:
    """The certificate of each binary problem of a fitted estimator."""
    y = np.asarray(y)
    positives = [est.classes_[1]] if len(est.classes_) == 2 else list(est.classes_)
    duals = est.dual_coef_.reshape(len(positives), -1)
    out = []
    for k, positive in enumerate(positives):
        y_pm = np.where(y == positive, 1.0, -1.0)
        weights = est._problem_weights(y, sample_weight, positive)
        w = objectives.full_weights(est.coef_[k], est.intercept_[k], bias)
        cert = objectives.certificate(
            X, y_pm, w, duals[k], est.lmbd_, est.loss_function, bias, weights
        )
        out.append(cert)
    return out
