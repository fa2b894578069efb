r"""SDCA and Pegasos on one CUDA GPU (``device="cuda"`` on
:class:`sdca_pegasos.solvers.SDCAClassifier` and :class:`sdca_pegasos.solvers.PegasosClassifier`),
written in numba-cuda, with the same certificate.

Everything here runs unchanged in Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set
before Numba is first imported): that is how the tests run it on machines without a GPU.

- :mod:`sdca_pegasos.solvers.gpu._kernels`: the kernels (one sweep per idea, dense and CSR rows
- chosen when a kernel is built).
- :mod:`sdca_pegasos.solvers.gpu.data`: the data on the device (NumPy / SciPy copied once; X
  given on the GPU, :func:`on_device`, validated there and used in place).
- :mod:`sdca_pegasos.solvers.gpu.certificate`: P(w(α)) and D(α) in float64 on the device, with an
- outward-rounded allowance, as :func:`sdca_pegasos.solvers.core.objectives.certificate` on the
- CPU.
- :mod:`sdca_pegasos.solvers.gpu.sdca`, :mod:`sdca_pegasos.solvers.gpu.pegasos`: the engines
  (:class:`~sdca_pegasos.solvers.gpu.sdca.GPUSDCAEngine`,
  :class:`~sdca_pegasos.solvers.gpu.pegasos.GPUPegasosEngine`) that the one fit loop,
  :func:`sdca_pegasos.solvers.driver.loop.run`, drives as it drives the CPU's: its timing
  (the engines' own: CUDA events), check schedule, callback, certificate and warning.
"""

from __future__ import annotations

import sys

import numpy as np

# numba-cuda 0.30 registers an overload of np.row_stack, which NumPy 2.5 removed: on such a
# machine (the H200 image of 2026-11) its CUDA target fails at its first compile with an
# AttributeError unless the alias NumPy had until then exists. setattr, not an assignment:
# ruff's NPY201 fix rewrites `np.row_stack` into `np.vstack`, which undid this once.
if not hasattr(np, "row_stack"):
    setattr(np, "row_stack", np.vstack)  # noqa: B010

__all__ = ["available", "on_device", "require"]


def _cuda():
    try:
        from numba import cuda
    except ImportError as exc:  # numba without its CUDA target
        raise ImportError(
            "device='cuda' needs the numba-cuda package: pip install 'sdca-pegasos[gpu]' "
            "(or pip install numba-cuda), or use device='cpu'"
        ) from exc
    return cuda


def available() -> bool:
    """Whether ``device="cuda"`` can run here: numba-cuda installed and a GPU (or the
    simulator) present."""
    try:
        return bool(_cuda().is_available())
    except ImportError:
        return False


def require() -> None:
    """Raise a clear error when ``device="cuda"`` cannot run here."""
    cuda = _cuda()
    if not cuda.is_available():
        raise RuntimeError(
            "device='cuda' found no CUDA GPU (numba.cuda.is_available() is False): use "
            "device='cpu', or set NUMBA_ENABLE_CUDASIM=1 before importing numba to run the "
            "kernels in Numba's CUDA simulator (slow: for tests only)"
        )


def on_device(a) -> bool:
    """Whether ``a`` is in GPU memory: an array with the CUDA array interface (what
    ``numba.cuda.is_cuda_array`` tests: CuPy, PyTorch, numba's device arrays), or Numba's CUDA
    simulator's device array (``numba.cuda.simulator.cudadrv.devicearray.FakeCUDAArray``, which
    has no interface: the simulator's device memory); a sparse matrix (``format``) when its
    ``data`` are (``cupyx.scipy.sparse``). Imports neither CuPy nor Numba: no simulator array
    exists unless Numba's simulator module is loaded."""
    if isinstance(getattr(a, "format", None), str) and hasattr(a, "data"):
        a = a.data
    if hasattr(a, "__cuda_array_interface__"):
        return True
    simulator = sys.modules.get("numba.cuda.simulator.cudadrv.devicearray")
    return simulator is not None and isinstance(a, simulator.FakeCUDAArray)
