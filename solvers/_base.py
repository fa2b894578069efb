"""What every solver shares: validation, label mapping, the timed epoch loop, warm-up, callback.

A solver subclasses :class:`BaseLinearSVM` and provides these hooks:

``_init_state(problem, rng)``
    allocate the state (never timed);
``_setup(state)``
    per-fit precomputation that the algorithm needs (e.g. squared row norms): timed and
    reported as ``setup_time_``;
``_epoch_indices(state, rng, epoch)``
    draw the index array of one epoch from ``rng`` (not timed);
``_run_epoch(state, indices, epoch)``
    call the kernel(s) of one epoch: the only code inside the timer;
``_output(state)``
    the returned ``(w, dual_coef)`` (last iterate, averaged, ...);
``_epoch_record(state)``
    what the epoch's :class:`EpochInfo` says beyond the driver's own fields (default: every
    epoch swept ``n_samples`` samples and there is no active set);
``_finish(problem, state)``
    fitted attributes of the solver's own, after the driver has stored the common ones.

Only the kernel calls of ``_run_epoch`` are inside ``time.process_time()``; index drawing,
objectives, gaps and the user callback all run after the clock stops.

What code outside this package needs to know about an estimator is public and read-only:
:attr:`BaseLinearSVM.loss_function` (the :class:`solvers.losses.Loss` its objective uses),
:attr:`BaseLinearSVM.has_dual` and :attr:`BaseLinearSVM.supports_sparse`.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.base import BaseEstimator, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from . import objectives
from ._kernels import kernel_rows
from .losses import HINGE, Loss

# (estimator class, dtype, writeable, kernel-selecting params) already compiled in this process.
_WARMED: set[tuple] = set()

#: Largest ‖x̃‖²/λ (and 1/(λn)) a fit accepts. Every iterate is bounded by ~‖x̃‖/λ (w(α) of
#: SDCA/ASDCA, a sum of Pegasos steps 1/(λt)·x̃), so margins stay below ~ (1 + ln T)·‖x̃‖²/λ;
#: 1e300 leaves that factor and the sums over features and samples room below 1.8e308.
_SCALE_LIMIT = 1e300

#: Source folders whose frames a warning skips to point at the caller's line.
_INTERNAL = (os.path.dirname(__file__), os.path.dirname(sklearn.__file__))

#: λ used by the warm-up fits: λ is a scalar argument, it selects no kernel, and an extreme
#: user λ must not overflow the warm-up's tiny problem.
_WARM_UP_LMBD = 0.1


@dataclass(frozen=True, slots=True)
class Problem:
    """A validated training problem as the kernels see it.

    Attributes
    ----------
    X : ndarray or scipy.sparse CSR matrix of shape (n_samples, n_features)
        float32 or float64; dense C-contiguous, or CSR in canonical format (sorted indices,
        no duplicates), whose ``(data, indices, indptr)`` the ``_csr`` kernels take.
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
    lmbd : float
    bias : float
        Bias multiplier B (0: no bias feature).
    """

    X: np.ndarray
    y: np.ndarray
    lmbd: float
    bias: float

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def sparse(self) -> bool:
        return sp.issparse(self.X)

    def rows(self, sq_norms: np.ndarray):
        """The samples as the kernels read them (:class:`solvers._kernels.DenseRows` or
        ``CSRRows``), with ``sq_norms`` (filled later by a timed set-up, or empty)."""
        return kernel_rows(self.X, self.y, sq_norms, None, self.bias)


class EpochInfo:
    """State handed to the per-epoch ``callback``, after the epoch's clock has stopped.

    A callback that returns ``True`` stops the fit after this epoch (e.g. a time budget).

    Attributes
    ----------
    epoch : int
        Number of epochs completed (1 after the first).
    n_samples_seen : int
        Samples processed so far (``epoch * n_samples``, except for SDCA with shrinking:
        the samples its epochs actually swept).
    n_active : int or None
        Size of the set of samples this epoch swept: ``n_samples``, or fewer when SDCA's
        shrinking had set some aside (``SDCAClassifier(shrinking=True)``); None for solvers
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
        Duality gap of (w, dual_coef) when the solver computed it for its stopping test.
    bias : float
        Bias multiplier.
    """

    __slots__ = (
        "_output",
        "bias",
        "cpu_time",
        "dual_coef",
        "epoch",
        "gap",
        "n_active",
        "n_samples_seen",
        "setup_time",
        "setup_wall_time",
        "w",
        "wall_time",
    )

    def __init__(self, *, output: Callable[[], np.ndarray], **fields):
        self._output = output
        for name, value in fields.items():
            setattr(self, name, value)

    @property
    def coef(self) -> np.ndarray:
        """Current coefficients, shape (n_features,)."""
        return self.w[:-1]

    @property
    def intercept(self) -> float:
        return float(self.bias * self.w[-1])

    def output_w(self) -> np.ndarray:
        """What ``fit`` would return if it stopped now (e.g. the running average), full vector."""
        return self._output()


class BaseLinearSVM(LinearClassifierMixin, BaseEstimator):
    """Shared driver of the linear SVM solvers (see module docstring for the hooks)."""

    _parameter_constraints: dict = {
        "lmbd": [Interval(Real, 0, None, closed="neither")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "bias_multiplier": [Interval(Real, 0, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.Generator, None],
        "callback": [callable, None],
    }

    #: Whether the solver keeps a dual point (SDCA, ASDCA) or not (Pegasos).
    _has_dual = True

    #: Whether the solver has CSR kernels (``fit`` then accepts scipy.sparse input).
    _supports_sparse = False

    #: ConvergenceWarning when max_epochs ends a fit before tol is met (False: warm-up fits).
    _warn_unconverged = True

    # ---------------------------------------------------------------- what others may read
    @property
    def loss_function(self) -> Loss:
        """The :class:`solvers.losses.Loss` of the objective this estimator minimises, from
        its parameters (its dual, gap and certificate are those of this loss)."""
        return HINGE

    @property
    def has_dual(self) -> bool:
        """Whether ``fit`` keeps a dual point (``dual_coef_``, a duality gap, ``tol``)."""
        return self._has_dual

    @property
    def supports_sparse(self) -> bool:
        """Whether ``fit`` takes scipy.sparse input (the solver has CSR kernels)."""
        return self._supports_sparse

    # ---------------------------------------------------------------- hooks for subclasses

    def _check_problem(self, problem: Problem) -> None:
        """Cross-checks of parameters against the data (e.g. batch_size <= n_samples).

        Runs after :meth:`_check_scales`, before the warm-up and the fit.
        """

    def _init_state(self, problem: Problem, rng: np.random.Generator):
        raise NotImplementedError

    def _setup(self, state) -> None:
        """Timed per-fit precomputation; default: none."""

    def _epoch_indices(self, state, rng: np.random.Generator, epoch: int) -> np.ndarray:
        raise NotImplementedError

    def _run_epoch(self, state, indices: np.ndarray, epoch: int) -> None:
        raise NotImplementedError

    def _output(self, state) -> tuple[np.ndarray, np.ndarray | None]:
        raise NotImplementedError

    def _current(self, state) -> tuple[np.ndarray, np.ndarray | None]:
        """The current iterate ``(w, dual_coef)`` (views)."""
        return state.w, getattr(state, "dual_coef", None)

    def _epoch_record(self, state) -> dict:
        """Fields of the epoch's :class:`EpochInfo` that only the solver knows, e.g.
        ``n_active`` and ``n_samples_seen`` (default: none; the driver's
        ``n_samples_seen`` is ``epoch * n_samples``)."""
        return {}

    def _finish(self, problem: Problem, state) -> None:
        """Set the solver's own fitted attributes once the fit is over (default: none)."""

    def _kernel_key(self) -> tuple:
        """Parameters that select which kernels a fit calls (for warm-up bookkeeping)."""
        return ()

    # ---------------------------------------------------------------- public API
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the SVM.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Dense data; float32 and float64 are kept, other numeric types become float64;
            Fortran-ordered or strided input is copied to C order once. Solvers with CSR
            kernels (``_supports_sparse``) take sparse input: CSR of float32/float64 in
            canonical format is used without a copy; CSC, COO, other dtypes, duplicate or
            unsorted indices are converted once here. Never densified.
        y : array-like of shape (n_samples,)
            Exactly two classes, of any type; ``classes_[1]`` is the positive class (+1).

        Returns
        -------
        self
        """
        X, y = validate_data(
            self,
            X,
            y,
            dtype=[np.float64, np.float32],
            order="C",
            ensure_min_samples=2,
            accept_sparse="csr" if self._supports_sparse else False,
        )
        X = _canonical(X)
        y_pm = self._encode_labels(y)
        problem = Problem(X, y_pm, float(self.lmbd), float(self.bias_multiplier))
        self._check_scales(problem)
        self._check_problem(problem)
        self._warm_up_for(X)
        self._fit_problem(problem)
        return self

    def duality_gap(self, X, y) -> float:
        """Exact duality gap ``P(w) - D(α)`` of the fitted (output) pair on ``(X, y)``.

        Only for solvers with a dual; ``X, y`` must be the training data.
        """
        check_is_fitted(self)
        if self.dual_coef_ is None:
            raise AttributeError(f"{type(self).__name__} has no dual point")
        X = validate_data(
            self,
            X,
            reset=False,
            dtype=[np.float64, np.float32],
            order="C",
            accept_sparse="csr" if self._supports_sparse else False,
        )
        y_pm = self._encode_labels(np.asarray(y), refit=False)
        w = objectives.full_weights(self.coef_, self.intercept_[0], float(self.bias_multiplier))
        return objectives.duality_gap(
            X,
            y_pm,
            w,
            self.dual_coef_,
            float(self.lmbd),
            self.loss_function,
            float(self.bias_multiplier),
        )[2]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = self._supports_sparse
        return tags

    # ---------------------------------------------------------------- internals
    def _encode_labels(self, y: np.ndarray, refit: bool = True) -> np.ndarray:
        if refit:
            classes = _two_numeric_classes(y)
            if classes is not None:  # the common case, without sklearn's 1 ms of checks
                self.classes_ = classes
                return np.where(y == classes[1], 1.0, -1.0)
            check_classification_targets(y)
            classes = np.unique(y)
            if classes.shape[0] == 1:
                raise ValueError(
                    f"Classifier can't train when only one class is present: every label is "
                    f"{classes[0]!r}. Pass samples of exactly two classes."
                )
            y_type = type_of_target(y, input_name="y", raise_unknown=True)
            if y_type != "binary":
                raise ValueError(
                    "Only binary classification is supported. The type of the target is "
                    f"{y_type} ({classes.shape[0]} classes); train one-vs-rest yourself."
                )
            self.classes_ = classes
        elif not np.all(np.isin(y, self.classes_)):
            raise ValueError(f"y has labels outside the fitted classes {self.classes_}")
        return np.where(y == self.classes_[1], 1.0, -1.0)

    def _warm_up_for(self, X: np.ndarray) -> None:
        """Compile, before any timing, every kernel this fit will call for X's exact type.

        Numba specialises on dtype and on writeability (read-only arrays, e.g. joblib
        memmaps, are a distinct type): a tiny fit with the same parameters on an array of
        the same dtype and flags triggers exactly those compilations.
        """
        key = (type(self), _layout_key(X), self._kernel_key())
        if key in _WARMED:
            return
        rng = np.random.default_rng(0)
        Xt = rng.standard_normal((8, 3)).astype(X.dtype)
        Xt[0] = 0.0  # exercise the zero-row branch too
        if sp.issparse(X):  # the same index dtype and the same flags on each of the 3 arrays
            Xt[1, 1] = 0.0
            tiny_csr = sp.csr_matrix(Xt)
            for name in ("data", "indices", "indptr"):
                ref = getattr(X, name)
                arr = getattr(tiny_csr, name).astype(ref.dtype)
                arr.setflags(write=ref.flags.writeable)
                setattr(tiny_csr, name, arr)  # set directly: scipy would re-pick index dtypes
            Xt = tiny_csr
        elif not X.flags.writeable:
            Xt.setflags(write=False)
        yt = np.array([1.0, -1.0] * 4)
        tiny = self.__class__(**{**self.get_params(), "max_epochs": 2, "callback": None})
        tiny.set_params(random_state=0, lmbd=_WARM_UP_LMBD, **tiny._warm_up_overrides())
        problem = Problem(Xt, yt, _WARM_UP_LMBD, float(self.bias_multiplier))
        tiny._warn_unconverged = False  # its 2 epochs never meet tol: not the user's fit
        tiny._fit_problem(problem)
        _WARMED.add(key)

    def _warm_up_overrides(self) -> dict:
        """Parameter changes that keep a warm-up fit valid on an 8-sample problem."""
        return {}

    def _check_scales(self, problem: Problem) -> None:
        """Refuse data or λ whose derived quantities overflow float64 (never a silent w = 0).

        With ``R² = max_i ‖x̃_i‖²``, every solver's iterates are bounded by about ``R/λ`` and
        its margins by ``R²/λ`` (times a log factor), and SDCA/ASDCA scale by ``1/(λn)``: each
        must stay below ``_SCALE_LIMIT``. ``R²`` is bounded from ``max|X|`` in two passes
        without allocation; the exact row norms are computed only when that bound fails.
        """
        X, lmbd, n = problem.X, problem.lmbd, problem.n_samples
        if not 1.0 / (lmbd * n) <= _SCALE_LIMIT:
            raise ValueError(
                f"lmbd={lmbd:g} is too small for float64: 1/(lmbd * n_samples) = "
                f"{1.0 / (lmbd * n) if lmbd * n > 0 else np.inf:g} overflows. Use a larger "
                f"lmbd (at least {1.0 / (_SCALE_LIMIT * n):.1e} for n_samples={n})."
            )
        with np.errstate(over="ignore"):
            big = max(abs(float(X.max())), abs(float(X.min()))) if X.size else 0.0
            r2 = np.float64(big) ** 2 * X.shape[1] + np.float64(problem.bias) ** 2
            if not r2 / lmbd <= _SCALE_LIMIT:  # the bound fails: the exact largest norm
                r2 = float(objectives.row_sq_norms(X, problem.bias).max())
        if not np.isfinite(r2):
            raise ValueError(
                f"X is too large for float64: a squared row norm ||x_i||^2 overflows "
                f"(max |X| = {big:.3g}, bias_multiplier = {problem.bias:g}), so every step "
                f"would be 0 or inf. Scale the features first, e.g. "
                f"sklearn.preprocessing.StandardScaler or X / {max(big, 1.0):.0e}."
            )
        if not r2 / lmbd <= _SCALE_LIMIT:
            raise ValueError(
                f"lmbd={lmbd:g} is too small for the scale of X: max ||x_i||^2 / lmbd = "
                f"{r2 / lmbd:.3g} exceeds {_SCALE_LIMIT:g}, and the iterates (~||x||/lmbd) "
                f"and margins (~||x||^2/lmbd) would overflow float64. Use lmbd >= "
                f"{r2 / _SCALE_LIMIT:.1e} or scale the features down."
            )

    def _fit_problem(self, problem: Problem) -> None:
        rng = np.random.default_rng(self.random_state)
        state = self._init_state(problem, rng)
        tol = getattr(self, "tol", None) or 0.0  # solvers without a dual have no `tol`
        loss = self.loss_function

        t_wall = time.perf_counter()
        t_cpu = time.process_time()
        self._setup(state)
        setup_time = time.process_time() - t_cpu
        setup_wall_time = time.perf_counter() - t_wall

        cpu_times: list[float] = []
        wall_times: list[float] = []
        gap = None
        converged = False
        stopped = False  # by the callback
        for epoch in range(1, self.max_epochs + 1):
            indices = self._epoch_indices(state, rng, epoch)
            t_wall = time.perf_counter()
            t_cpu = time.process_time()
            self._run_epoch(state, indices, epoch)
            cpu = time.process_time() - t_cpu
            wall = time.perf_counter() - t_wall
            cpu_times.append(cpu)
            wall_times.append(wall)
            # ---- clock stopped: monitoring only below this line
            w, dual_coef = self._current(state)
            if tol > 0.0 and self._has_dual:
                gap = objectives.duality_gap(
                    problem.X, problem.y, w, dual_coef, problem.lmbd, loss, problem.bias
                )[2]
                converged = gap <= tol
            if self.callback is not None:
                fields = {"n_samples_seen": epoch * problem.n_samples, "n_active": None}
                fields.update(self._epoch_record(state))
                stop = self.callback(
                    EpochInfo(
                        output=lambda s=state: self._output(s)[0],
                        epoch=epoch,
                        cpu_time=cpu,
                        wall_time=wall,
                        setup_time=setup_time,
                        setup_wall_time=setup_wall_time,
                        w=w,
                        dual_coef=dual_coef,
                        gap=gap,
                        bias=problem.bias,
                        **fields,
                    )
                )
                if stop is True:  # the caller's budget (scipy's convention): stop here
                    stopped = True
                    break
            if converged:
                break

        w_out, dual_out = self._output(state)
        if not (
            np.all(np.isfinite(w_out)) and (dual_out is None or np.all(np.isfinite(dual_out)))
        ):
            raise ValueError(
                f"{type(self).__name__} diverged to non-finite coefficients (lmbd="
                f"{problem.lmbd:g}, max |X| = {np.abs(problem.X).max():.3g}): the iterates "
                f"overflowed float64. Scale the features (e.g. StandardScaler) or increase "
                f"lmbd; no model was stored."
            )
        self.coef_ = w_out[None, :-1].copy()
        self.intercept_ = np.array([problem.bias * w_out[-1]])
        self.dual_coef_ = None if dual_out is None else dual_out.copy()
        self.n_epochs_ = len(cpu_times)
        self.n_iter_ = self.n_epochs_
        self.epoch_times_ = np.array(cpu_times)
        self.epoch_wall_times_ = np.array(wall_times)
        self.setup_time_ = setup_time
        self.setup_wall_time_ = setup_wall_time
        self.converged_ = converged
        self.duality_gap_ = np.nan
        if tol > 0.0 and self._has_dual:
            w_cur, dual_cur = self._current(state)
            if w_out is w_cur and dual_out is dual_cur:
                self.duality_gap_ = gap
            else:  # an averaged / sampled output: certify what is returned
                self.duality_gap_ = objectives.duality_gap(
                    problem.X, problem.y, w_out, dual_out, problem.lmbd, loss, problem.bias
                )[2]
        self._finish(problem, state)
        if (
            self._warn_unconverged
            and tol > 0.0
            and self._has_dual
            and not converged
            and not stopped
        ):
            returned = (
                "" if self.duality_gap_ == gap else f"; returned pair {self.duality_gap_:.3g}"
            )
            warnings.warn(
                f"{type(self).__name__} did not converge: duality gap {gap:.3g} > "
                f"tol={tol:g} after max_epochs={self.max_epochs} (last iterate{returned}). "
                f"Increase max_epochs or tol (or pass tol=0 to run a fixed number of epochs).",
                ConvergenceWarning,
                stacklevel=_caller_stacklevel(),
            )


def _two_numeric_classes(y: np.ndarray) -> np.ndarray | None:
    """The sorted classes when ``y`` is a 1-d numeric array of exactly two integral values
    (what sklearn's ``type_of_target`` calls "binary" among numeric labels), else None and
    the caller runs sklearn's full checks (their error messages included)."""
    if y.ndim != 1 or y.dtype.kind not in "biuf":
        return None
    classes = np.unique(y)
    if classes.shape[0] != 2:
        return None
    if y.dtype.kind == "f" and not (np.all(np.isfinite(classes)) and np.all(classes % 1 == 0)):
        return None
    return classes


def _canonical(X):
    """A CSR matrix with sorted, unique indices (one copy only when it is not already so).

    The CSR kernels read a row's stored entries as its coordinates: a duplicated column
    would be right in dot products but wrong in squared row norms.
    """
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # also sorts the indices
    return X


def _layout_key(X) -> tuple:
    """What Numba specialises the kernels on: dtypes and writeability of the arrays."""
    if sp.issparse(X):
        return ("csr", *((a.dtype.str, a.flags.writeable) for a in (X.data, X.indices, X.indptr)))
    return ("dense", X.dtype.str, X.flags.writeable)


def _caller_stacklevel() -> int:
    """``stacklevel`` for the first frame outside this package and scikit-learn (the ``fit``
    call in the user's code), whatever the chain of overrides and decorators in between."""
    frame, level = sys._getframe(2), 2  # the frame that calls warnings.warn is level 1
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    return level
