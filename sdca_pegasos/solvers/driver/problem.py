"""What one binary fit takes, reports and returns, and the small rules of its epoch loop.

:class:`Problem` is a validated binary problem as the kernels see it (with its warm start,
:class:`Init`); :class:`BinaryFit` is what a fit of it returns to ``BaseLinearSVM.fit``;
:class:`EpochInfo` is what the per-epoch ``callback`` receives. The driver's loop
(:meth:`sdca_pegasos.solvers.driver.estimator.BaseLinearSVM._fit_binary`) and the drivers that
replace it (the exact and GPU solvers) share these types and helpers: :func:`stops` (whether a
callback's answer stops the fit),
:func:`canonical` (CSR in the layout the kernels read) and :func:`warn_unconverged` (the
``ConvergenceWarning``, at the user's line)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos.solvers.core.rows import kernel_rows
from sdca_pegasos.solvers.core.runtime import caller_stacklevel
from sdca_pegasos.solvers.driver.scales import is_sparse, scaling_advice


#: Source folders whose frames a warning skips to point at the caller's line.
class Init(NamedTuple):
    """Where a warm-started fit begins: the previous fit's full weight vector, its dual
    point (None for primal solvers) and the iterations it had made (Pegasos' step counter)."""

    w: np.ndarray
    dual_coef: np.ndarray | None
    iterations: int


@dataclass(frozen=True, slots=True)
class Problem:
    """A validated binary training problem as the kernels see it, and how to run it.

    Attributes
    ----------
    X : ndarray or scipy.sparse CSR matrix of shape (n_samples, n_features)
        float32 or float64; dense C-contiguous, or CSR in canonical format (sorted indices,
        no duplicates), whose ``(data, indices, indptr)`` the ``_csr`` kernels take.
        With ``device="cuda"``, X may also stay on the GPU: an
        :class:`~sdca_pegasos.solvers.driver.scales.OffHostMatrix`, whose entries only the
        device's kernels read.
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
    lmbd : float
    bias : float
        Bias multiplier B (0: no bias feature).
    sample_weight : ndarray of shape (n_samples,) or None
        Weights c_i >= 0 (``sample_weight`` times ``class_weight``; float64). None: every 1.
    positive_class : object
        The class this problem calls +1 (``classes_[1]`` for two classes; one class per
        problem in one-vs-rest).
    epochs : int
        Epochs to run at most (``max_epochs``; 1 for ``partial_fit``).
    init : Init or None
        The warm start, or None (w = 0, α = 0).
    """

    X: np.ndarray
    y: np.ndarray
    lmbd: float
    bias: float
    sample_weight: np.ndarray | None = None
    positive_class: object = None
    epochs: int = 1
    init: Init | None = None

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def sparse(self) -> bool:
        return is_sparse(self.X)

    def rows(self, sq_norms: np.ndarray):
        """The samples as the kernels read them (:class:`sdca_pegasos.solvers.core.rows.DenseRows`
        or ``CSRRows``), with ``sq_norms`` (filled later by a timed set-up, or empty)."""
        return kernel_rows(self.X, self.y, sq_norms, self.sample_weight, self.bias)


@dataclass
class BinaryFit:
    """What one binary problem's fit returns to :meth:`BaseLinearSVM.fit`.

    ``w`` is the returned full weight vector (last entry the bias weight), ``dual_coef`` its
    dual point (None for primal solvers); ``attributes`` holds the solver's own fitted
    attributes (``theta_``, ``certified_``, ...), stored as they are for two classes and
    one entry per class in one-vs-rest.
    """

    w: np.ndarray
    dual_coef: np.ndarray | None
    n_epochs: int
    epoch_times: np.ndarray
    epoch_wall_times: np.ndarray
    setup_time: float
    setup_wall_time: float
    converged: bool
    duality_gap: float
    iterations: int | None = None
    attributes: dict = field(default_factory=dict)

    @classmethod
    def of_epochs(cls, cpu_times, wall_times, **fields) -> BinaryFit:
        """The fit of the epochs timed in ``cpu_times`` and ``wall_times`` (one entry per
        epoch, CPU and wall seconds): ``n_epochs``, ``epoch_times`` and ``epoch_wall_times``
        are theirs; ``fields`` are the others."""
        return cls(
            n_epochs=len(cpu_times),
            epoch_times=np.array(cpu_times),
            epoch_wall_times=np.array(wall_times),
            **fields,
        )


class EpochInfo:
    """State handed to the per-epoch ``callback``, after the epoch's clock has stopped.

    A callback that returns ``True`` (or ``numpy.True_``) stops the fit after this epoch
    (e.g. a time budget); ``None`` or ``False`` goes on; any other value is a TypeError.

    Attributes
    ----------
    epoch : int
        Number of epochs completed (1 after the first).
    n_samples_seen : int
        Samples processed so far (``epoch * n_samples``, except for SDCA with shrinking:
        the samples its epochs actually swept).
    n_active : int or None
        Size of the set of samples this epoch swept: ``n_samples``, or fewer when SDCA's
        shrinking had set some aside (``SDCAClassifier(shrinking=True)``: the active set the
        epoch began with, its first pass, which its later passes shrink); None for solvers
        without an active set.
    cpu_time, wall_time : float
        Update-loop CPU (``time.process_time``) and wall seconds of this epoch only.
    setup_time, setup_wall_time : float
        CPU and wall seconds of the per-fit precomputation (counted once, before epoch 1).
    w : ndarray of shape (n_features + 1,)
        Current iterate, full vector (last entry: bias weight). A live view: copy it to keep.
    dual_coef : ndarray of shape (n_samples,) or None
        Current dual point (signed, ``y_i * alpha_i`` in [0, 1]), None for primal solvers.
    gap : float or None
        Duality gap of (w, dual_coef) when the fit computed it for its stopping test (``tol >
        0``, on the steps its check schedule calls for:
        :class:`sdca_pegasos.solvers.driver.loop.CheckSchedule`; None on the others, where
        :meth:`bounds` computes it on demand).
    primal, dual : float or None
        The primal P(w) and dual D(α) of that gap (None when no gap was computed): a
        callback can stop on a relative gap, ``info.gap <= eps * info.primal``.
    bias : float
        Bias multiplier.
    positive_class : object
        The class this binary problem calls +1 (one problem per class in one-vs-rest).

    The fields below are an engine's own (its ``record()``), None where the engine keeps
    none; today only :class:`sdca_pegasos.solvers.cluster.estimator.DaskSVMClassifier`'s
    rounds (an epoch is a round there, and ``cpu_time`` the blocks' CPU seconds summed):

    data_passes : float or None
        The local passes' coordinate steps so far, all blocks and rounds, over n
        (``data_passes_`` at the end).
    finish : bool or None
        Whether the round was a finish (``finish``) instead of CoCoA+'s local passes.
    block_cpu : tuple of float or None
        Each block's CPU seconds of its local passes this round (a finish: the driver's
        solve alone); they sum to ``cpu_time``.
    check_wall : float or None
        Wall seconds of the round's certificate, after the round's clock stopped (0.0 when
        the round made no check).
    """

    __slots__ = (
        "_certify",
        "_current",
        "_output",
        "_pair",
        "bias",
        "block_cpu",
        "check_wall",
        "cpu_time",
        "data_passes",
        "dual",
        "epoch",
        "finish",
        "gap",
        "n_active",
        "n_samples_seen",
        "positive_class",
        "primal",
        "setup_time",
        "setup_wall_time",
        "wall_time",
    )

    #: The engine's own fields (see above): None unless the engine's ``record()`` gives them.
    OPTIONAL = ("data_passes", "finish", "block_cpu", "check_wall")

    def __init__(
        self,
        *,
        output: Callable[[], np.ndarray],
        current: Callable[[], tuple] | None = None,
        certify: Callable | None = None,
        w: np.ndarray | None = None,
        dual_coef: np.ndarray | None = None,
        **fields,
    ):
        self._output = output
        self._certify = certify
        # the pair, given or fetched from the engine when first read (a device's copy to the
        # host only for a callback that reads it)
        self._current = current
        self._pair = None if current is not None else (w, dual_coef)
        for name in self.OPTIONAL:
            setattr(self, name, None)
        for name, value in fields.items():
            setattr(self, name, value)

    def _resolved(self) -> tuple:
        if self._pair is None:
            self._pair = self._current()
        return self._pair

    @property
    def w(self) -> np.ndarray:
        """Current iterate, full vector (last entry: bias weight); a live view."""
        return self._resolved()[0]

    @property
    def dual_coef(self) -> np.ndarray | None:
        """Current dual point, or None."""
        return self._resolved()[1]

    @property
    def coef(self) -> np.ndarray:
        """Current coefficients, shape (n_features,)."""
        return self.w[:-1]

    @property
    def intercept(self) -> float:
        """Current intercept, ``bias * w[-1]`` (as ``intercept_``)."""
        return float(self.bias * self.w[-1])

    def output_w(self) -> np.ndarray:
        """What ``fit`` would return if it stopped now (e.g. the running average), full vector."""
        return self._output()

    def bounds(self):
        """``(primal, dual, gap)`` of the current pair: the step's own check when it made one
        (``gap`` is not None), else computed now, outside the timer, for a callback that needs
        the gap at every step (the fit's own checks follow its schedule). None for a solver
        without a dual point."""
        if self.gap is not None:
            return self.primal, self.dual, self.gap
        if self._certify is None:
            return None
        primal, dual, gap = self._certify()
        return primal, dual, gap


def stops(answer) -> bool:
    """Whether a callback's return value stops the fit: ``True`` (a Python or NumPy bool,
    as ``info.gap <= eps * info.primal`` gives) stops, ``None`` or ``False`` continues;
    anything else is refused, since a truthy number or array would be a guess."""
    if answer is None or isinstance(answer, bool | np.bool_):
        return bool(answer)
    raise TypeError(
        f"callback returned {answer!r} ({type(answer).__name__}): return True (or a NumPy "
        "bool) to stop the fit, None or False to go on."
    )


def canonical(X):
    """A CSR matrix with sorted, unique indices (one copy only when it is not already so).

    The CSR kernels read a row's stored entries as its coordinates: a duplicated column
    would be right in dot products but wrong in squared row norms.
    """
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # also sorts the indices
    return X


def warn_unconverged(
    name: str, gap: float, tol: float, max_epochs: int, detail: str = "", X=None,
    feature_names=None, relative: bool = False, steps_name: str = "max_epochs",
    advice: str = "",
) -> None:  # fmt: skip
    """The ``ConvergenceWarning`` of a fit whose gap is above ``tol`` when ``max_epochs``
    (the estimator's ``steps_name`` parameter) ran out; ``detail`` (e.g. which class, what was
    returned) follows the numbers, ``relative``: the gap is relative to |P|, as ``tol``.
    ``advice`` (sentences) comes before the generic advice. Given the fit's ``X``
    (``feature_names``: its columns' names, if any), whose columns' scales differ by orders of
    magnitude, the advice names scaling first
    (:func:`sdca_pegasos.solvers.driver.scales.scaling_advice`): more epochs do not mend it."""
    generic = f"Increase {steps_name} or tol (or pass tol=0 to run a fixed number of epochs)."
    scaling = "" if X is None else scaling_advice(X, feature_names)
    if scaling:
        generic = f"{scaling} or tol (or passing tol=0 to run a fixed number of epochs)."
    said = f"{advice} {generic}" if advice else generic
    kind = "relative duality gap" if relative else "duality gap"
    warnings.warn(
        f"{name} did not converge: {kind} {gap:.3g} > tol={tol:g} after "
        f"{steps_name}={max_epochs}{detail}. {said}",
        ConvergenceWarning,
        stacklevel=caller_stacklevel(),
    )
