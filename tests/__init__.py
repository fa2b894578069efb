import os

# The GPU kernels (solvers.gpu) run in Numba's CUDA simulator unless the environment says
# otherwise (NUMBA_ENABLE_CUDASIM=0 on a GPU machine). Numba reads it when first imported:
# this package is imported before any test module.
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
