"""``device="cpu" | "cuda"``: where :class:`sdca_pegasos.solvers.SDCAClassifier` and
:class:`sdca_pegasos.solvers.PegasosClassifier` run their epochs (:mod:`sdca_pegasos.solvers.gpu`
for ``"cuda"``).

Nothing here imports numba-cuda: a machine without it imports the solvers as before and
gets a clear error only when it asks for ``device="cuda"``.
"""

from __future__ import annotations

from sklearn.utils._param_validation import StrOptions

#: The parameter's constraint, for ``_parameter_constraints``.
DEVICE_CONSTRAINT = {"device": [StrOptions({"cpu", "cuda"})]}


class DeviceMixin:
    """Runs each binary problem of a fit on the GPU when ``self.device == "cuda"``.

    X is copied to the device once per ``fit`` (every one-vs-rest problem reads that copy); the
    copy is dropped when the fit ends. Subclasses name their GPU driver in ``_gpu_driver`` (a
    module of :mod:`sdca_pegasos.solvers.gpu` with ``fit(est, problem, data)``) and the options it
    lacks in ``_gpu_unsupported`` (``{param: value that is refused}``...)."""

    _gpu_driver = ""

    def _gpu_unsupported(self) -> list[str]:
        """Parameters set to what the GPU solver does not do (empty: all supported)."""
        return []

    def _fit_targets(self, X, y, targets, sample_weight, epochs, inits, **options):
        if self.device != "cuda":
            return super()._fit_targets(X, y, targets, sample_weight, epochs, inits, **options)
        from . import gpu
        from .gpu.data import to_device

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
        import importlib

        from .gpu.data import to_device

        driver = importlib.import_module(f"sdca_pegasos.solvers.gpu.{self._gpu_driver}")
        data = getattr(self, "_gpu_data", None)
        return driver.fit(self, problem, data if data is not None else to_device(problem.X))
