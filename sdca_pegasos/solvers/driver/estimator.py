"""The estimators' shared base: :class:`BaseLinearSVM`.

A solver subclasses :class:`BaseLinearSVM` and builds, for each binary problem of a fit, the
engine that runs its epochs (``_engine(problem, rng)``: an
:class:`~sdca_pegasos.solvers.driver.loop.Engine` made of plain settings, ``rng`` the fit's
stream, ``numpy.random.default_rng(random_state)``), which
:func:`sdca_pegasos.solvers.driver.loop.run` drives: the timed loop, the gap checks, the
callback, the certificate and the warning are the driver's, once for every engine. A solver
that is not epoch-based (the exact engine) overrides ``_fit_binary`` instead.

What code outside this package needs to know about an estimator is public and read-only:
:attr:`BaseLinearSVM.loss_function` (the :class:`sdca_pegasos.solvers.core.losses.Loss` its
objective uses), :attr:`BaseLinearSVM.has_dual` and :attr:`BaseLinearSVM.supports_sparse`.

This module holds the estimator itself: parameter and input validation, ``fit`` (one binary
problem per target), the stored attributes and the warm-up fits (``WARMED``,
:func:`layout_key`). The rest of the driver has rooms of its own: the loop in
:mod:`sdca_pegasos.solvers.driver.loop`; the types a binary fit takes and returns in
:mod:`sdca_pegasos.solvers.driver.problem`; labels, class and sample weights and warm starts in
:mod:`sdca_pegasos.solvers.driver.targets` (``TargetsMixin``, which :class:`BaseLinearSVM`
inherits); λ and the overflow checks in
:mod:`sdca_pegasos.solvers.driver.scales`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import Loss, make_loss
from sdca_pegasos.solvers.driver.loop import Engine, Settings, run
from sdca_pegasos.solvers.driver.problem import BinaryFit, Problem, canonical
from sdca_pegasos.solvers.driver.scales import (
    OffHostMatrix,
    check_lmbd,
    dense_max_abs,
    max_abs,
    resolve_lmbd,
)
from sdca_pegasos.solvers.driver.targets import TargetsMixin

# (estimator class, dtype, writeable, kernel-selecting params) already compiled in this process.
WARMED: set[tuple] = set()

# estimator class -> its parameter names (scikit-learn's ``_get_param_names``)
_PARAM_NAMES: dict[type, list[str]] = {}

#: λ used by the warm-up fits: λ is a scalar argument, it selects no kernel, and an extreme
#: user λ must not overflow the warm-up's tiny problem.
WARM_UP_LMBD = 0.1


class BaseLinearSVM(TargetsMixin, LinearClassifierMixin, BaseEstimator):
    """Shared driver of the linear SVM solvers (see module docstring for the hooks)."""

    _parameter_constraints: dict = {
        "lmbd": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "tol_gap": [StrOptions({"relative", "absolute", "warn"})],
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

    # ---------------------------------------------------------------- what others may read
    @property
    def loss_function(self) -> Loss:
        """The :class:`sdca_pegasos.solvers.core.losses.Loss` of the objective this estimator
        minimises, from its parameters ``loss`` and ``gamma`` (its dual, gap and certificate are
        those of this loss)."""
        return make_loss(self.loss, self.gamma)

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

    def _engine(self, problem: Problem, rng: np.random.Generator) -> Engine:
        """The engine of one binary problem (see the module docstring)."""
        raise NotImplementedError

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
            unsorted indices are converted once here. Never densified. With ``device="cuda"``,
            X may be on the GPU, used in place
            (:class:`sdca_pegasos.solvers.gpu.device.DeviceMixin`).
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
        X, y = self._check_X_y(X, y)
        previous = getattr(self, "classes_", None) if self.warm_start else None
        targets = self._encode_targets(y)
        inits = self._warm_start_inits(X, previous)
        weights = self._sample_weights(X, y, sample_weight)
        self._fit_targets(canonical(X), y, targets, weights, int(self.max_epochs), inits)
        return self

    def _check_X_y(self, X, y, *, reset: bool = True, ensure_min_samples: int = 2):
        """X and y as the kernels take them: scikit-learn's ``validate_data`` (float32/float64
        kept, C order, CSR when ``supports_sparse``), or :meth:`_plain_arrays`' fast path when
        ``reset`` (it asks for 2 samples: ``ensure_min_samples`` is 1 or 2). ``reset``: set
        ``n_features_in_`` (``fit``), else check X against it (``partial_fit``'s later calls).
        :class:`sdca_pegasos.solvers.gpu.device.DeviceMixin` also takes X on a GPU here."""
        if reset and self._plain_arrays(X, y):
            return X, y
        return validate_data(
            self,
            X,
            y,
            reset=reset,
            dtype=[np.float64, np.float32],
            order="C",
            ensure_min_samples=ensure_min_samples,
            accept_sparse="csr" if self._supports_sparse else False,
        )

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
            and np.isfinite(dense_max_abs(X))  # one pass, no temporary of X's size
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

    # ---------------------------------------------------------------- the binary problems
    def _fit_targets(
        self, X, y, targets, sample_weight, epochs: int, inits, lmbd: float | None = None
    ) -> None:
        """Fit one binary problem per target (labels ``y``, ``classes_`` set) and store the
        fitted attributes; ``lmbd``: the λ of the fit (None: ``self.lmbd``, ``"auto"``
        resolved on X's rows)."""
        self._set_class_weight_map(y, sample_weight)
        if lmbd is None:
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
        big = max_abs(X)  # once for every binary problem
        for problem in problems:
            self._check_scales(problem, big)
            self._check_problem(problem)
        # X on a GPU compiles what a host matrix of its layout does
        layout = X.layout_example() if isinstance(X, OffHostMatrix) else X
        self._warm_up_for(layout, problems[0].sample_weight is not None)
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
        """Solve one binary problem: its engine driven by the one fit loop.

        A solver that is not epoch-based overrides this method alone.
        """
        engine = self._engine(problem, np.random.default_rng(self.random_state))
        return run(engine, self._settings(problem))

    def _settings(self, problem: Problem, where: str = "") -> Settings:
        """How the fit loop drives ``problem``'s engine, from the estimator's parameters;
        ``where`` names the device in the warning (e.g. ``", device='cuda'"``)."""
        which = "" if len(self.classes_) == 2 else f", class {problem.positive_class}"
        reading = getattr(self, "tol_gap", "relative")  # solvers without a dual have no `tol`
        return Settings(
            steps=problem.epochs,
            tol=getattr(self, "tol", None) or 0.0,
            relative=reading == "relative",
            tol_gap_warning=reading == "warn",
            callback=self.callback,
            warn=self._warn_unconverged,
            name=type(self).__name__,
            detail=f"{where}{which}",
            feature_names=getattr(self, "feature_names_in_", None),
        )

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


def _fingerprint(params: dict) -> tuple:
    """What identifies a set of parameter values for :meth:`BaseLinearSVM._validate_params`:
    values by ``repr`` (a dict mutated in place changes it), objects with state of their
    own (callbacks, generators) by identity."""
    return tuple(
        (k, type(v), repr(v) if isinstance(v, str | int | float | bool | dict | None) else id(v))
        for k, v in params.items()
    )


def layout_key(X) -> tuple:
    """What Numba specialises the kernels on: dtypes and writeability of the arrays."""
    if sp.issparse(X):
        return ("csr", *((a.dtype.str, a.flags.writeable) for a in (X.data, X.indices, X.indptr)))
    return ("dense", X.dtype.str, X.flags.writeable)
