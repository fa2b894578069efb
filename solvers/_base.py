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
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.base import BaseEstimator, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import objectives
from ._kernels import kernel_rows
from .losses import HINGE, Loss

# (estimator class, dtype, writeable, kernel-selecting params) already compiled in this process.
WARMED: set[tuple] = set()

# estimator class -> its parameter names (scikit-learn's ``_get_param_names``)
_PARAM_NAMES: dict[type, list[str]] = {}

#: Largest ‖x̃‖²/λ (and 1/(λn)) a fit accepts. Every iterate is bounded by ~‖x̃‖/λ (w(α) of
#: SDCA/ASDCA, a sum of Pegasos steps 1/(λt)·x̃), so margins stay below ~ (1 + ln T)·‖x̃‖²/λ;
#: 1e300 leaves that factor and the sums over features and samples room below 1.8e308.
_SCALE_LIMIT = 1e300

#: Source folders whose frames a warning skips to point at the caller's line.
_INTERNAL = (os.path.dirname(__file__), os.path.dirname(sklearn.__file__))

#: λ used by the warm-up fits: λ is a scalar argument, it selects no kernel, and an extreme
#: user λ must not overflow the warm-up's tiny problem.
WARM_UP_LMBD = 0.1


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
        return sp.issparse(self.X)

    def rows(self, sq_norms: np.ndarray):
        """The samples as the kernels read them (:class:`solvers._kernels.DenseRows` or
        ``CSRRows``), with ``sq_norms`` (filled later by a timed set-up, or empty)."""
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
        Duality gap of (w, dual_coef) when the solver computed it for its stopping test
        (``tol > 0``; with SDCA's shrinking, only on the epochs whose free KKT statistic
        called for it: None on the others).
    primal, dual : float or None
        The primal P(w) and dual D(α) of that gap (None when no gap was computed): a
        callback can stop on a relative gap, ``info.gap <= eps * info.primal``.
    bias : float
        Bias multiplier.
    positive_class : object
        The class this binary problem calls +1 (one problem per class in one-vs-rest).
    """

    __slots__ = (
        "_output",
        "bias",
        "cpu_time",
        "dual",
        "dual_coef",
        "epoch",
        "gap",
        "n_active",
        "n_samples_seen",
        "positive_class",
        "primal",
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
        "lmbd": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "bias_multiplier": [Interval(Real, 0, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.Generator, None],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "warm_start": ["boolean"],
        "callback": [callable, None],
    }

    @classmethod
    def _get_param_names(cls):
        """scikit-learn's list, read once per class (it inspects ``__init__``'s signature,
        ~0.1 ms, at every ``get_params``)."""
        if cls not in _PARAM_NAMES:
            _PARAM_NAMES[cls] = super()._get_param_names()
        return _PARAM_NAMES[cls]

    def _validate_params(self):
        """scikit-learn's parameter validation, skipped when the parameters are those that
        passed it last (a fit's set-up is ~1 ms on small data; this was 60 µs of it)."""
        key = _fingerprint(self.get_params(deep=False))
        if getattr(self, "_validated", None) != key:
            super()._validate_params()
            self._validated = key

    #: Whether the solver keeps a dual point (SDCA, ASDCA) or not (Pegasos).
    _has_dual = True

    #: Whether the solver has CSR kernels (``fit`` then accepts scipy.sparse input).
    _supports_sparse = False

    #: ConvergenceWarning when max_epochs ends a fit before tol is met (False: warm-up fits).
    _warn_unconverged = True
    #: ``tol`` relative to the primal value: stop once gap <= tol·|P| (set by
    #: :func:`solvers.lambda_path`, whose every λ goes to the same relative gap; the
    #: exact gap is then still computed only when the KKT statistic predicts it).
    _relative_tol = False

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

    def _check_params(self) -> None:
        """Checks of the parameters alone, once per fit (e.g. a deprecated spelling's
        warning)."""

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

    def _finish(self, problem: Problem, state, w_out: np.ndarray) -> dict:
        """The solver's own fitted attributes of this binary problem, as ``{name: value}``
        (default: none); ``w_out`` is the returned full weight vector."""
        return {}

    def _kernel_key(self) -> tuple:
        """Parameters that select which kernels a fit calls (for warm-up bookkeeping)."""
        return ()

    # ---------------------------------------------------------------- public API
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        r"""Fit the SVM.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Dense data; float32 and float64 are kept, other numeric types become float64;
            Fortran-ordered or strided input is copied to C order once. Solvers with CSR
            kernels (``supports_sparse``) take sparse input: CSR of float32/float64 in
            canonical format is used without a copy; CSC, COO, other dtypes, duplicate or
            unsorted indices are converted once here. Never densified.
        y : array-like of shape (n_samples,)
            Two classes or more, of any type. Two: ``classes_[1]`` is the positive class
            (+1). More: one binary problem per class, that class against the rest
            (one-vs-rest, as ``LinearSVC``); ``predict`` takes the largest decision value.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights :math:`c_i \ge 0`: the objective becomes
            :math:`\frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i c_i\phi_i` (the convention
            of ``SGDClassifier``; ``LinearSVC(C=1/(λn))`` with the same weights), the dual box
            :math:`[0, c_iU]`. At a fixed ``C = 1/(λn)`` a weight of 0 is the same optimum as
            dropping the sample and an integer weight the same as repeating it (at a fixed
            ``lmbd``, the data's n changes: use ``lmbd * n / n'``; ``lmbd="auto"``, 1/n with n
            the rows whatever their weights, is C = 1 for any n). Multiplied by
            ``class_weight``.

        Returns
        -------
        self
        """
        if not self._plain_arrays(X, y):  # anything else: scikit-learn's full validation
            X, y = validate_data(
                self,
                X,
                y,
                dtype=[np.float64, np.float32],
                order="C",
                ensure_min_samples=2,
                accept_sparse="csr" if self._supports_sparse else False,
            )
        previous = getattr(self, "classes_", None) if self.warm_start else None
        targets = self._encode_targets(y)
        inits = self._warm_start_inits(X, previous)
        weights = self._sample_weights(X, y, sample_weight)
        self._fit_targets(canonical(X), y, targets, weights, int(self.max_epochs), inits)
        return self

    def _plain_arrays(self, X, y) -> bool:
        """The common case that ``validate_data`` would pass unchanged: X a C-contiguous,
        finite float32/float64 ndarray of at least 2 × 1, y a 1-d numeric ndarray of the
        same length, finite. Sets what ``validate_data`` sets (``n_features_in_``, no
        ``feature_names_in_``) and returns True; False leaves everything to it (and to its
        error messages). Its generic checks (data frames, feature names) cost ~0.15 ms of a
        ~0.8 ms fit on small data."""
        if not (
            type(X) is np.ndarray
            and type(y) is np.ndarray
            and X.ndim == 2
            and y.ndim == 1
            and X.dtype in (np.float64, np.float32)
            and X.flags.c_contiguous
            and y.dtype.kind in "biuf"
            and X.shape[0] == y.shape[0] >= 2
            and X.shape[1] >= 1
            and np.isfinite(X).all()
            and (y.dtype.kind != "f" or np.isfinite(y).all())
        ):
            return False
        self.n_features_in_ = X.shape[1]
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return True

    def duality_gap(self, X, y, sample_weight=None):
        """Exact duality gap ``P(w) - D(α)`` of the fitted (output) pair on ``(X, y)``.

        Only for solvers with a dual; ``X, y`` (and ``sample_weight``) must be those of
        the fit. One gap per class (an array) in one-vs-rest.
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
        y = np.asarray(y)
        if not np.all(np.isin(y, self.classes_)):
            raise ValueError(f"y has labels outside the fitted classes {self.classes_}")
        gaps = []
        duals = self.dual_coef_.reshape(-1, X.shape[0])
        for k, (positive, alpha) in enumerate(zip(self._positive_classes(), duals, strict=True)):
            y_pm = np.where(y == positive, 1.0, -1.0)
            weights = self._problem_weights(y, sample_weight, positive)
            w = objectives.full_weights(
                self.coef_[k], self.intercept_[k], float(self.bias_multiplier)
            )
            gaps.append(
                objectives.duality_gap(
                    X,
                    y_pm,
                    w,
                    alpha,
                    float(self.lmbd_),
                    self.loss_function,
                    float(self.bias_multiplier),
                    weights,
                )[2]
            )
        return gaps[0] if len(gaps) == 1 else np.array(gaps)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.sparse = self._supports_sparse
        return tags

    # ---------------------------------------------------------------- labels and weights
    def _encode_targets(self, y: np.ndarray) -> list[np.ndarray]:
        """Set ``classes_``; the ±1 targets of the binary problems (one, or one per class)."""
        classes = _two_numeric_classes(y)
        if classes is None:  # sklearn's full checks (and their messages)
            check_classification_targets(y)
            classes = np.unique(y)
            if classes.shape[0] == 1:
                raise ValueError(
                    f"Classifier can't train when only one class is present: every label is "
                    f"{classes[0]!r}. Pass samples of at least two classes."
                )
            type_of_target(y, input_name="y", raise_unknown=True)
        self.classes_ = classes
        return [np.where(y == positive, 1.0, -1.0) for positive in self._positive_classes()]

    def _positive_classes(self) -> list:
        """The class each binary problem calls +1: ``classes_[1]``, or every class."""
        return [self.classes_[1]] if len(self.classes_) == 2 else list(self.classes_)

    def _sample_weights(self, X, y, sample_weight) -> np.ndarray | None:
        """The user's ``sample_weight`` validated (None when absent); class weights are
        applied per binary problem (:meth:`_problem_weights`)."""
        if sample_weight is None:
            return None
        return _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)

    def _class_weights(self) -> dict | None:
        """``class_weight`` as {class: weight} (None: every class 1), scikit-learn's meaning
        (``"balanced"``: n_samples / (n_classes * count), from the fit's labels, the counts
        weighted by ``sample_weight``)."""
        if self.class_weight is None:
            return None
        return getattr(self, "_class_weight_map", None)

    def _problem_weights(self, y, sample_weight, positive) -> np.ndarray | None:
        """Weights of the binary problem whose +1 class is ``positive``: ``sample_weight``
        times the class weights. With two classes each class
        gets its weight; in one-vs-rest the positive class gets its weight and the rest 1
        (as liblinear's and SGDClassifier's one-vs-rest do)."""
        weights = None if sample_weight is None else np.array(sample_weight, dtype=np.float64)
        cw = self._class_weights()
        if cw is not None:
            if len(self.classes_) == 2:
                per_sample = np.array([cw[c] for c in self.classes_])[
                    np.searchsorted(self.classes_, y)
                ]
            else:
                per_sample = np.where(y == positive, cw[positive], 1.0)
            weights = per_sample if weights is None else weights * per_sample
        if weights is None:
            return None
        sides = ((y == positive, f"class {positive}"), (y != positive, f"the rest of {positive}"))
        if len(self.classes_) == 2:
            sides = tuple((y == c, f"class {c}") for c in self.classes_)
        for side, which in sides:
            if side.any() and not weights[side].max() > 0.0:
                raise ValueError(
                    f"sample_weight (times class_weight) is 0 on every sample of {which}: a "
                    "binary problem needs weight on both sides. Drop those labels from y, or "
                    "give their samples a weight > 0."
                )
        return np.ascontiguousarray(weights)

    def _set_class_weight_map(self, y, sample_weight) -> None:
        if self.class_weight is None:
            return
        if isinstance(self.class_weight, dict):
            unknown = set(self.class_weight) - set(self.classes_.tolist())
            if unknown:
                raise ValueError(
                    f"class_weight names classes {sorted(map(repr, unknown))} that are not in "
                    f"y's classes {self.classes_.tolist()}."
                )
        if self.class_weight == "balanced" and sample_weight is not None:
            for c in self.classes_:
                if not sample_weight[y == c].sum() > 0.0:
                    raise ValueError(
                        f"class_weight='balanced' divides by each class's total "
                        f"sample_weight, which is 0 for class {c}: give its samples a weight "
                        f"> 0 or drop it from y."
                    )
        values = compute_class_weight(
            self.class_weight, classes=self.classes_, y=y, sample_weight=sample_weight
        )
        self._class_weight_map = dict(zip(self.classes_.tolist(), values, strict=True))

    # ---------------------------------------------------------------- warm start
    def _warm_start_inits(self, X, previous_classes) -> list | None:
        """The previous fit's points when ``warm_start`` and there was a fit (else None)."""
        if not (self.warm_start and hasattr(self, "coef_")):
            return None
        return self._fitted_inits(X, previous_classes)

    def _fitted_inits(self, X, previous_classes) -> list:
        """Each binary problem's start from the fitted attributes (warm start, partial_fit)."""
        if previous_classes is None or not np.array_equal(previous_classes, self.classes_):
            new_classes, self.classes_ = self.classes_, previous_classes  # leave the fit as it was
            raise ValueError(
                f"warm_start=True starts from the last fit, of classes "
                f"{None if previous_classes is None else previous_classes.tolist()}, and y "
                f"has classes {new_classes.tolist()}: fit the same classes or set "
                f"warm_start=False."
            )
        if self.coef_.shape[1] != X.shape[1]:
            raise ValueError(
                f"{'partial_fit' if not self.warm_start else 'warm_start=True'} continues a "
                f"fit of {self.coef_.shape[1]} features, but X has {X.shape[1]}."
            )
        duals = self.dual_coef_
        if duals is not None and duals.shape[-1] != X.shape[0]:
            raise ValueError(
                f"warm_start=True starts from the last fit's dual point, of "
                f"{duals.shape[-1]} samples, but X has {X.shape[0]}: fit the same samples "
                f"(another lmbd, tol or weights) or set warm_start=False."
            )
        k = self.coef_.shape[0]
        bias = float(self.bias_multiplier)
        if bias == 0.0 and np.any(self.intercept_ != 0.0):
            raise ValueError(
                "warm_start=True with bias_multiplier=0 cannot start from a fit with an "
                "intercept: keep bias_multiplier or set warm_start=False."
            )
        iterations = np.broadcast_to(getattr(self, "t_", 0), (k,))
        return [
            Init(
                objectives.full_weights(self.coef_[j], self.intercept_[j], bias),
                None if duals is None else duals.reshape(k, -1)[j].copy(),
                int(iterations[j]),
            )
            for j in range(k)
        ]

    # ---------------------------------------------------------------- the binary problems
    def _fit_targets(self, X, y, targets, sample_weight, epochs: int, inits) -> None:
        """Fit one binary problem per target (labels ``y``, ``classes_`` set) and store the
        fitted attributes."""
        self._set_class_weight_map(y, sample_weight)
        lmbd = resolve_lmbd(self.lmbd, X.shape[0])
        problems = [
            Problem(
                X,
                target,
                lmbd,
                float(self.bias_multiplier),
                self._problem_weights(y, sample_weight, positive),
                positive,
                epochs,
                None if inits is None else inits[k],
            )
            for k, (target, positive) in enumerate(
                zip(targets, self._positive_classes(), strict=True)
            )
        ]
        self._check_params()
        big = _max_abs(X)  # once for every binary problem
        for problem in problems:
            self._check_scales(problem, big)
            self._check_problem(problem)
        self._warm_up_for(X, problems[0].sample_weight is not None)
        fits = [self._fit_binary(problem) for problem in problems]
        self._store(fits)
        self.lmbd_ = lmbd

    def _store(self, fits: list[BinaryFit]) -> None:
        """The fitted attributes: scikit-learn's binary shapes for two classes, one row or
        entry per class in one-vs-rest."""
        one = len(fits) == 1
        bias = float(self.bias_multiplier)
        self.coef_ = np.stack([f.w[:-1] for f in fits])
        self.intercept_ = np.array([bias * f.w[-1] for f in fits])
        duals = [f.dual_coef for f in fits]
        self.dual_coef_ = None if duals[0] is None else (duals[0] if one else np.stack(duals))

        def per_class(values, dtype=None):
            return values[0] if one else np.array(values, dtype=dtype)

        self.n_epochs_ = per_class([f.n_epochs for f in fits])
        self.n_iter_ = max(f.n_epochs for f in fits)
        self.epoch_times_ = fits[0].epoch_times if one else [f.epoch_times for f in fits]
        self.epoch_wall_times_ = (
            fits[0].epoch_wall_times if one else [f.epoch_wall_times for f in fits]
        )
        self.setup_time_ = per_class([f.setup_time for f in fits])
        self.setup_wall_time_ = per_class([f.setup_wall_time for f in fits])
        self.converged_ = per_class([f.converged for f in fits], dtype=bool)
        self.duality_gap_ = per_class([f.duality_gap for f in fits], dtype=float)
        if fits[0].iterations is not None:
            self.t_ = per_class([f.iterations for f in fits], dtype=np.int64)
        for name in fits[0].attributes:
            setattr(self, name, per_class([f.attributes[name] for f in fits]))

    def _fit_binary(self, problem: Problem) -> BinaryFit:
        """Solve one binary problem: the timed epoch loop over this solver's kernels.

        A solver that is not epoch-based overrides this method alone.
        """
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
        gap = primal = dual = None
        checked = None  # (gap, KKT statistic, epoch) of the last exact gap computed
        target = tol  # the absolute gap aimed at (tol·|P| of the last check if relative)
        converged = False
        stopped = False  # by the callback
        for epoch in range(1, problem.epochs + 1):
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
            gap = primal = dual = None
            if tol > 0.0 and self._has_dual:
                statistic = self._kkt_statistic(state)
                if _gap_due(statistic, checked, target, epoch):
                    primal, dual, gap = objectives.duality_gap(
                        problem.X,
                        problem.y,
                        w,
                        dual_coef,
                        problem.lmbd,
                        loss,
                        problem.bias,
                        problem.sample_weight,
                    )
                    checked = (gap, statistic, epoch)
                    target = tol * abs(primal) if self._relative_tol else tol
                    converged = gap <= target
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
                        primal=primal,
                        dual=dual,
                        bias=problem.bias,
                        positive_class=problem.positive_class,
                        **fields,
                    )
                )
                if stops(stop):  # the caller's budget (scipy's convention): stop here
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
                f"{problem.lmbd:g}, max |X| = {abs(problem.X).max():.3g}): the iterates "
                f"overflowed float64. Scale the features (e.g. StandardScaler) or increase "
                f"lmbd; no model was stored."
            )
        duality_gap = np.nan
        if tol > 0.0 and self._has_dual:
            w_cur, dual_cur = self._current(state)
            if gap is None:  # the last epoch skipped its check: the certificate is exact
                primal, _, gap = objectives.duality_gap(
                    problem.X,
                    problem.y,
                    w_cur,
                    dual_cur,
                    problem.lmbd,
                    loss,
                    problem.bias,
                    problem.sample_weight,
                )
                converged = gap <= (tol * abs(primal) if self._relative_tol else tol)
            if w_out is w_cur and dual_out is dual_cur:
                duality_gap = gap
            else:  # an averaged / sampled output: certify what is returned
                duality_gap = objectives.duality_gap(
                    problem.X,
                    problem.y,
                    w_out,
                    dual_out,
                    problem.lmbd,
                    loss,
                    problem.bias,
                    problem.sample_weight,
                )[2]
        if (
            self._warn_unconverged
            and tol > 0.0
            and self._has_dual
            and not converged
            and not stopped
        ):
            returned = "" if duality_gap == gap else f"; returned pair {duality_gap:.3g}"
            which = "" if len(self.classes_) == 2 else f" (class {problem.positive_class})"
            warnings.warn(
                f"{type(self).__name__} did not converge{which}: duality gap {gap:.3g} > "
                f"tol={tol:g} after max_epochs={problem.epochs} (last iterate{returned}). "
                f"Increase max_epochs or tol (or pass tol=0 to run a fixed number of epochs).",
                ConvergenceWarning,
                stacklevel=caller_stacklevel(),
            )
        return BinaryFit(
            w=w_out.copy(),
            dual_coef=None if dual_out is None else dual_out.copy(),
            n_epochs=len(cpu_times),
            epoch_times=np.array(cpu_times),
            epoch_wall_times=np.array(wall_times),
            setup_time=setup_time,
            setup_wall_time=setup_wall_time,
            converged=converged,
            duality_gap=duality_gap,
            iterations=self._iterations(state),
            attributes=self._finish(problem, state, w_out),
        )

    def _kkt_statistic(self, state) -> float | None:
        """A measure of the last epoch's KKT violation, free with its sweep, that falls to 0
        at the optimum (None, the default: none; the exact gap is then computed after every
        epoch). With one, the exact gap is computed only when it predicts ``gap <= tol``
        (:func:`_gap_due`)."""
        return None

    def _iterations(self, state) -> int | None:
        """Iterations made so far, a warm start's included, for solvers whose next fit
        continues their count (Pegasos' step size); None (default): not kept."""
        return None

    # ---------------------------------------------------------------- internals
    def _warm_up_for(self, X, weighted: bool = False) -> None:
        """Compile, before any timing, every kernel this fit will call for X's exact type.

        Numba specialises on dtype and on writeability (read-only arrays, e.g. joblib
        memmaps, are a distinct type), and on whether sample weights are given: a tiny fit
        with the same parameters on an array of the same dtype and flags triggers exactly
        those compilations.
        """
        key = (type(self), layout_key(X), weighted, self._kernel_key())
        if key in WARMED:
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
        tiny = self.__class__(**{**self.get_params(), "callback": None, "warm_start": False})
        tiny.set_params(random_state=0, lmbd=WARM_UP_LMBD, **tiny._warm_up_overrides())
        tiny.classes_ = np.array([-1.0, 1.0])
        weights = np.linspace(0.5, 1.5, 8) if weighted else None
        problem = Problem(Xt, yt, WARM_UP_LMBD, float(self.bias_multiplier), weights, 1.0, 2)
        tiny._warn_unconverged = False  # its 2 epochs never meet tol: not the user's fit
        tiny._fit_binary(problem)
        WARMED.add(key)

    def _warm_up_overrides(self) -> dict:
        """Parameter changes that keep a warm-up fit valid on an 8-sample problem."""
        return {}

    def _check_scales(self, problem: Problem, big: float) -> None:
        """:func:`check_lmbd` for one binary problem (``big``: max |X|, found once)."""
        check_lmbd(
            problem.X,
            problem.lmbd,
            bias=problem.bias,
            sample_weight=problem.sample_weight,
            big=big,
        )


def resolve_lmbd(lmbd, n_samples: int) -> float:
    r"""The λ of a fit: ``lmbd`` itself, or ``1/n_samples`` for ``"auto"``.

    ``"auto"`` is ``LinearSVC``'s default ``C = 1``: with :math:`C = 1/(\lambda n)` the
    objective :math:`\frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i c_i\phi_i` is
    :math:`\frac1n` times liblinear's :math:`\frac12\|\tilde w\|^2 + \sum_i c_i\phi_i`, the
    same minimiser. ``n_samples`` counts the rows of X, whatever their sample weights (a
    weight multiplies its sample's loss, as liblinear's per-sample C): so a weight of 0 is
    the same optimum as dropping the row and an integer weight the same as repeating it,
    exactly as with ``LinearSVC(C=1)``.
    """
    if isinstance(lmbd, str):
        if lmbd != "auto":
            raise ValueError(f"lmbd must be a number > 0 or 'auto', got {lmbd!r}")
        return 1.0 / n_samples
    return float(lmbd)


def check_lmbd(X, lmbd: float, *, bias: float = 0.0, sample_weight=None, big=None) -> None:
    """Refuse data or λ whose derived quantities overflow float64 (never a silent w = 0):
    a ValueError that names the smallest λ these data accept (rounded up: typed back, it
    passes), or says to scale X. Every estimator's ``fit`` calls it, and so does
    ``python -m compare`` before it writes anything.

    With ``R² = max_i c_i ‖x̃_i‖²`` (c_i the sample weights, 1 without; x̃_i with the bias
    feature ``bias``), every solver's iterates are bounded by about ``R/λ`` and its margins
    by ``R²/λ`` (times a log factor), and SDCA/ASDCA scale by ``1/(λn)``: each must stay
    below ``_SCALE_LIMIT``. ``R²`` is bounded from ``big`` = max |X| (computed when None) in
    two passes without allocation; the exact row norms are computed only when that bound
    fails.
    """
    n = X.shape[0]
    big = _max_abs(X) if big is None else big
    if not 1.0 / (lmbd * n) <= _SCALE_LIMIT:
        raise ValueError(
            f"lmbd={lmbd:g} is too small for float64: 1/(lmbd * n_samples) = "
            f"{1.0 / (lmbd * n) if lmbd * n > 0 else np.inf:g} overflows. Use a larger "
            f"lmbd (at least {_rounded_up(1.0 / (_SCALE_LIMIT * n))} for n_samples={n})."
        )
    c_max = 1.0 if sample_weight is None else float(np.max(sample_weight))
    with np.errstate(over="ignore"):
        r2 = (np.float64(big) ** 2 * X.shape[1] + np.float64(bias) ** 2) * c_max
        if not r2 / lmbd <= _SCALE_LIMIT:  # the bound fails: the exact largest norm
            r2 = float(objectives.row_sq_norms(X, bias).max()) * c_max
    if not np.isfinite(r2):
        raise ValueError(
            f"X is too large for float64: a squared row norm ||x_i||^2 overflows "
            f"(max |X| = {big:.3g}, bias_multiplier = {bias:g}), so every step "
            f"would be 0 or inf. Scale the features first, e.g. "
            f"sklearn.preprocessing.StandardScaler or X / {max(big, 1.0):.0e}."
        )
    if not r2 / lmbd <= _SCALE_LIMIT:
        raise ValueError(
            f"lmbd={lmbd:g} is too small for the scale of X: max ||x_i||^2 / lmbd = "
            f"{r2 / lmbd:.3g} exceeds {_SCALE_LIMIT:g}, and the iterates (~||x||/lmbd) "
            f"and margins (~||x||^2/lmbd) would overflow float64. Use lmbd >= "
            f"{_rounded_up(r2 / _SCALE_LIMIT)} or scale the features down."
        )


def _max_abs(X) -> float:
    """max |X| (dense or CSR; 0 when X stores nothing)."""
    with np.errstate(over="ignore"):
        return max(abs(float(X.max())), abs(float(X.min()))) if X.size else 0.0


def _rounded_up(bound: float) -> str:
    """``bound`` to two significant digits, rounded up: a smallest value suggested in a
    message, which the user can type back and meet (3.33e-302 is "3.4e-302", not "3.3e-302").
    A bound within 1e-12 (relative) of its two-digit value goes one step up: the check's own
    rounding can refuse the bound itself (1/(8e-303 * 125) > 1e300 in float64)."""
    bound *= 1.0 + 1e-12
    text = f"{bound:.1e}"
    if float(text) < bound:
        mantissa, exponent = text.split("e")
        text = f"{float(f'{float(mantissa) + 0.1:.1f}e{exponent}'):.1e}"
    return text


#: With a KKT statistic, the exact gap is computed at least every this many epochs.
_GAP_CHECK_EVERY = 8


def _gap_due(statistic, checked, tol: float, epoch: int) -> bool:
    """Whether this epoch computes the exact duality gap (the ``tol`` test).

    Without a statistic, always. With one (s, free with the sweep), the gap is assumed to
    shrink in proportion: after an exact gap g measured at statistic s₀, the next one is
    computed once s ≤ s₀·tol/g (the predicted gap reaches tol), or ``_GAP_CHECK_EVERY``
    epochs later (the statistic is not monotone), so that the certificate is exact but paid
    for rarely: liblinear's projected-gradient test, as a trigger rather than a stop.
    """
    if statistic is None or checked is None:
        return True
    gap, reference, at = checked
    if epoch - at >= _GAP_CHECK_EVERY or not (gap > 0.0 and reference > 0.0):
        return True
    return statistic <= reference * tol / gap


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


def _fingerprint(params: dict) -> tuple:
    """What identifies a set of parameter values for :meth:`BaseLinearSVM._validate_params`:
    values by ``repr`` (a dict mutated in place changes it), objects with state of their
    own (callbacks, generators) by identity."""
    return tuple(
        (k, type(v), repr(v) if isinstance(v, str | int | float | bool | dict | None) else id(v))
        for k, v in params.items()
    )


def _two_numeric_classes(y: np.ndarray) -> np.ndarray | None:
    """The sorted classes when ``y`` is a 1-d numeric array of exactly two integral values
    (what sklearn's ``type_of_target`` calls "binary" among numeric labels), else None and
    the caller runs sklearn's full checks (their error messages included)."""
    if y.ndim != 1 or y.dtype.kind not in "biuf":
        return None
    if y.shape[0] == 0:
        return None
    lo, hi = y.min(), y.max()  # two passes and one comparison pass: no sort
    if lo == hi or not np.all((y == lo) | (y == hi)):
        return None
    classes = np.array([lo, hi], dtype=y.dtype)
    if y.dtype.kind == "f" and not (np.all(np.isfinite(classes)) and np.all(classes % 1 == 0)):
        return None
    return classes


def canonical(X):
    """A CSR matrix with sorted, unique indices (one copy only when it is not already so).

    The CSR kernels read a row's stored entries as its coordinates: a duplicated column
    would be right in dot products but wrong in squared row norms.
    """
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # also sorts the indices
    return X


def layout_key(X) -> tuple:
    """What Numba specialises the kernels on: dtypes and writeability of the arrays."""
    if sp.issparse(X):
        return ("csr", *((a.dtype.str, a.flags.writeable) for a in (X.data, X.indices, X.indptr)))
    return ("dense", X.dtype.str, X.flags.writeable)


def caller_stacklevel() -> int:
    """``stacklevel`` for the first frame outside this package and scikit-learn (the ``fit``
    call in the user's code), whatever the chain of overrides and decorators in between."""
    frame, level = sys._getframe(2), 2  # the frame that calls warnings.warn is level 1
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    return level
