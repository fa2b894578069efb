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
    copy is dropped when the fit ends. Subclasses run one binary problem on the device in
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
