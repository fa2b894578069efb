"""``device="cpu" | "cuda"``: where :class:`sdca_pegasos.solvers.SDCAClassifier` and
:class:`sdca_pegasos.solvers.PegasosClassifier` run their epochs (:mod:`sdca_pegasos.solvers.gpu`
for ``"cuda"``).

Nothing here imports numba-cuda: a machine without it imports the solvers as before and
gets a clear error only when it asks for ``device="cuda"``.

X on the GPU
------------
With ``device="cuda"``, ``fit``, ``partial_fit``, ``predict``, ``decision_function`` and
``score`` take X already in GPU memory (:func:`sdca_pegasos.solvers.gpu.on_device`: a CuPy
array or any array with ``__cuda_array_interface__``, or a ``cupyx.scipy.sparse`` CSR
matrix), validated on the device (:func:`sdca_pegasos.solvers.gpu.data.device_matrix`: 2-d,
float32/float64, C-contiguous, finite; CSR canonical, with valid indices) and read in place:
X is never copied to the host. y and ``sample_weight`` may be on the device too: they are
n-vectors, copied to the host once (the labels are encoded there, as any y). ``predict`` and
``decision_function`` return NumPy arrays (see :meth:`DeviceMixin.decision_function`).
``device="cpu"`` refuses X on the GPU (a TypeError says how to copy it), and so does
``duality_gap``, which recomputes the gap on the host.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import assert_all_finite, check_is_fitted, column_or_1d

from sdca_pegasos.solvers.gpu import on_device

#: The parameter's constraint, for ``_parameter_constraints``.
DEVICE_CONSTRAINT = {"device": [StrOptions({"cpu", "cuda"})]}


class DeviceMixin:
    """Runs each binary problem of a fit on the GPU when ``self.device == "cuda"``.

    Host X is copied to the device once per ``fit`` (every one-vs-rest problem reads that
    copy); the copy is dropped when the fit ends. X given on the GPU is read where it is (the
    module docstring). Subclasses run one binary problem on the device in
    ``_gpu_fit(problem, data)``: their GPU engine (imported there, so that numba-cuda is
    imported only when a fit asks for the device), built from plain settings and driven by
    :func:`sdca_pegasos.solvers.driver.loop.run` as the CPU's engines are; they name the
    options it lacks in ``_gpu_unsupported``."""

    def _gpu_fit(self, problem, data):
        """One binary problem on the device (``data``: X there)."""
        raise NotImplementedError

    def _gpu_unsupported(self) -> list[str]:
        """Parameters set to what the GPU solver does not do (empty: all supported)."""
        return []

    def _fit_targets(self, X, y, targets, sample_weight, epochs, inits, **options):
        if self.device != "cuda":
            return super()._fit_targets(X, y, targets, sample_weight, epochs, inits, **options)
        from sdca_pegasos.solvers import gpu
        from sdca_pegasos.solvers.gpu.data import to_device

        gpu.require()
        bad = self._gpu_unsupported()
        if bad:
            raise ValueError(
                f"{type(self).__name__}(device='cuda') does not support {', '.join(bad)}: "
                "use device='cpu' for these options"
            )
        self._gpu_data = to_device(X)
        try:
            return super()._fit_targets(X, y, targets, sample_weight, epochs, inits, **options)
        finally:
            del self._gpu_data

    def _fit_binary(self, problem):
        if self.device != "cuda":
            return super()._fit_binary(problem)
        from sdca_pegasos.solvers.gpu.data import to_device

        data = getattr(self, "_gpu_data", None)
        return self._gpu_fit(problem, data if data is not None else to_device(problem.X))

    # ---------------------------------------------------------------- X on the GPU
    def _check_X_y(self, X, y, *, reset: bool = True, ensure_min_samples: int = 2):
        """Host X as the base validates it; X on the GPU validated there (a
        :class:`~sdca_pegasos.solvers.gpu.data.DeviceMatrix`); y on the GPU copied to the
        host."""
        y = _host_vector(y)
        if not on_device(X):
            return super()._check_X_y(X, y, reset=reset, ensure_min_samples=ensure_min_samples)
        X = self._device_X(X, reset=reset, ensure_min_samples=ensure_min_samples)
        y = column_or_1d(y, warn=True)
        assert_all_finite(y, input_name="y")
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"[{X.shape[0]}, {y.shape[0]}] (X on the device, y)"
            )
        return X, y

    def _device_X(self, X, *, reset: bool, ensure_min_samples: int = 1):
        """X on the GPU, validated on the device (errors name the fix); ``n_features_in_`` set
        (``reset``) or checked."""
        name = type(self).__name__
        if self.device != "cuda":
            raise TypeError(
                f"X is in GPU memory ({type(X).__name__}), but {name}(device={self.device!r}) "
                "reads host memory. Use device='cuda' to fit on the GPU in place, or copy X to "
                "the host first (X.get() for CuPy, X.cpu().numpy() for PyTorch)."
            )
        if getattr(X, "format", None) not in (None, "csr"):
            raise TypeError(
                f"X is a {X.format} matrix on the device: device='cuda' takes CSR (or dense) "
                "device data. Convert it there first: X.tocsr()."
            )
        if getattr(X, "format", None) == "csr" and not self._supports_sparse:
            raise TypeError(
                f"{name} takes dense X only; X is a CSR matrix on the device (for sparse X use "
                "SDCAClassifier(device='cuda'))"
            )
        from sdca_pegasos.solvers import gpu

        gpu.require()
        from sdca_pegasos.solvers.gpu.data import device_matrix

        X = device_matrix(X)
        n, d = X.shape
        for found, least, what in ((n, ensure_min_samples, "sample"), (d, 1, "feature")):
            if found < least:
                raise ValueError(
                    f"Found array with {found} {what}(s) (shape=({n}, {d})) while a minimum of "
                    f"{least} is required by {name}."
                )
        if reset:
            self.n_features_in_ = d
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        elif d != self.n_features_in_:
            raise ValueError(
                f"X has {d} features, but {name} is expecting {self.n_features_in_} features "
                "as input."
            )
        return X

    def _sample_weights(self, X, y, sample_weight):
        if sample_weight is not None and on_device(sample_weight):
            sample_weight = _host_vector(sample_weight)
        return super()._sample_weights(X, y, sample_weight)

    def decision_function(self, X):
        """Confidence scores: ``X @ coef_.T + intercept_``, shape (n_samples,) for two classes,
        (n_samples, n_classes) otherwise.

        X on the GPU (``device="cuda"``) is validated and read on the device (the margins
        kernel, one pass per class, summed in another order than the host's BLAS: equal to
        rounding) and the scores come back as a **NumPy** array: they are n values (n × k),
        what ``predict`` turns into labels of ``classes_``, which may be strings no device
        array holds, and what scikit-learn's metrics and scorers take; a CuPy user who wants
        them on the device calls ``cupy.asarray`` on them (one n-vector copied back). Host X:
        scikit-learn's ``LinearClassifierMixin.decision_function``, as before."""
        if not on_device(X):
            return super().decision_function(X)
        check_is_fitted(self)
        from sdca_pegasos.solvers.gpu.data import decision_values

        data = self._device_X(X, reset=False).data
        scores = decision_values(data, self.coef_, self.intercept_)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Class labels (a NumPy array of ``classes_``' type): the largest decision value, or
        its sign for two classes, as ``LinearClassifierMixin.predict``; X on the GPU as in
        :meth:`decision_function`."""
        if not on_device(X):
            return super().predict(X)
        scores = self.decision_function(X)
        indices = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[indices]

    def score(self, X, y, sample_weight=None):
        """Mean accuracy (scikit-learn's ``score``); X, y and ``sample_weight`` may be on the
        GPU (y and the weights are copied to the host)."""
        y = _host_vector(y) if on_device(y) else y
        if sample_weight is not None and on_device(sample_weight):
            sample_weight = _host_vector(sample_weight)
        return super().score(X, y, sample_weight)

    def duality_gap(self, X, y, sample_weight=None):
        """The base's gap, on host X only (it recomputes P and D on the host)."""
        if on_device(X):
            raise TypeError(
                f"{type(self).__name__}.duality_gap recomputes the gap on the host and takes "
                "host X: copy X to the host (X.get() for CuPy), or read the fit's own "
                "certificate, duality_gap_ (primal_, dual_), which the device computed."
            )
        return super().duality_gap(X, y, sample_weight)


def _host_vector(a) -> np.ndarray:
    """``a`` on the host: a device array copied (an n-vector: y, sample weights), anything
    else as given."""
    if not on_device(a):
        return a
    from sdca_pegasos.solvers.gpu.data import host_copy

    return host_copy(a)
