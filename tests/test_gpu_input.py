"""X given on the GPU (issue 52, "CuPy arrays in, no host copy"), run in Numba's CUDA simulator.

``fit``, ``partial_fit``, ``predict`` and ``decision_function`` of the ``device="cuda"``
estimators take X in GPU memory (:mod:`sdca_pegasos.solvers.gpu.device`): validated on the
device and read in place. CuPy is not installed here: in the simulator X is given as the
simulator's device array, wrapped so that the host cannot read it (:class:`DeviceOnly`: any
copy to the host, NumPy conversion or element read outside a kernel raises :class:`HostRead`),
and CSR as a ``cupyx.scipy.sparse.csr_matrix``-like object of such arrays (:class:`DeviceCSR`).
Every fit below is also a test that X never came back to the host. On a GPU
(``NUMBA_ENABLE_CUDASIM=0``) the same tests give numba device arrays, which carry
``__cuda_array_interface__`` as CuPy's do; the host-read guard is the simulator's only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
from numba import cuda
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos import solvers
from sdca_pegasos.solvers import PegasosClassifier, SDCAClassifier
from sdca_pegasos.solvers.core.objectives import row_sq_norms
from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu import on_device
from sdca_pegasos.solvers.gpu.data import device_matrix, to_device
from sdca_pegasos.solvers.gpu.newton import NewtonSVMClassifier

from .conftest import gaussian_problem

# the simulator's fixtures of the GPU suite (fast barriers, one shared array per block, no
# low-occupancy warnings on a GPU): autouse, so importing them applies them here too
from .test_gpu import (  # noqa: F401
    _fast_barriers,
    _one_shared_array_per_block,
    _small_grids_are_meant,
)

pytestmark = pytest.mark.skipif(not solvers.gpu.available(), reason="no GPU and no simulator")


# ---------------------------------------------------------------------------- X on the device
class HostRead(AssertionError):
    """The host read entries of X held on the device."""


if K.SIMULATED:
    from numba.cuda.simulator import kernel as _sim_kernel
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    class DeviceOnly(FakeCUDAArray):
        """The simulator's device array, with the host locked out of its entries: a copy to the
        host, a NumPy conversion, host arithmetic or an element read outside a kernel raise
        :class:`HostRead`; metadata (shape, dtype, strides) and views are free, as on a GPU.
        (The simulator's kernels read it through ``__getitem__`` while a kernel runs.)"""

        _META = frozenset({"dtype", "ndim", "size", "strides", "itemsize", "nbytes"})

        def __getattr__(self, name):
            if name in self._META:
                return getattr(self._ary, name)
            if name.startswith("__") or not hasattr(self._ary, name):
                raise AttributeError(name)  # absent, as on a device array (__array_struct__)
            raise HostRead(f"the host read X's .{name}")  # NumPy's host methods: .max(), ...

        def __array__(self, *args, **kwargs):
            raise HostRead("numpy.asarray(X) on the host")

        def copy_to_host(self, *args, **kwargs):
            raise HostRead("X.copy_to_host()")

        def __getitem__(self, idx):
            item = self._ary[idx]
            if isinstance(item, np.ndarray):  # a view stays on the device
                return DeviceOnly(item)
            if _sim_kernel._get_kernel_context() is None:
                raise HostRead(f"the host read X[{idx!r}]")
            return item

        def reshape(self, *args, **kwargs):
            return DeviceOnly(self._ary.reshape(*args, **kwargs))

        def ravel(self, *args, **kwargs):
            return DeviceOnly(self._ary.ravel(*args, **kwargs))

        def view(self, *args, **kwargs):
            return DeviceOnly(self._ary.view(*args, **kwargs))

        def transpose(self, axes=None):
            return DeviceOnly(np.transpose(self._ary, axes))

        def _host_arithmetic(self, *args):
            raise HostRead("host arithmetic on X")

        __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _host_arithmetic
        __add__ = __sub__ = __mul__ = __truediv__ = __floordiv__ = __pow__ = _host_arithmetic
        __hash__ = None

    def to_gpu(a):
        """``a`` in (simulated) device memory, out of the host's reach."""
        return DeviceOnly(np.array(a, order="K"))

    def peek(a) -> np.ndarray:
        """The test's own look at a device array, past the guard."""
        return a._ary
else:

    def to_gpu(a):
        """``a`` in device memory (a numba device array: ``__cuda_array_interface__``)."""
        return cuda.to_device(a)

    def peek(a) -> np.ndarray:
        return a.copy_to_host()


@dataclass
class DeviceCSR:
    """What the estimators read of ``cupyx.scipy.sparse.csr_matrix``: ``format``, ``shape`` and
    ``data``, ``indices``, ``indptr`` on the device."""

    data: object
    indices: object
    indptr: object
    shape: tuple
    format: str = "csr"

    @classmethod
    def of(cls, S: sp.csr_matrix, **parts) -> DeviceCSR:
        """S's arrays on the device (``parts``: replacements, host arrays put there too)."""
        arrays = {name: getattr(S, name) for name in ("data", "indices", "indptr")} | parts
        return cls(**{k: to_gpu(v) for k, v in arrays.items()}, shape=S.shape)


def _sparse(X: np.ndarray) -> sp.csr_matrix:
    X = X.copy()
    X[np.abs(X) < 0.6] = 0.0  # about half the entries stored
    return sp.csr_matrix(X)


def _on_gpu(X):
    return DeviceCSR.of(X) if sp.issparse(X) else to_gpu(X)


@pytest.mark.skipif(not K.SIMULATED, reason="the simulator's host-read guard")
def test_the_guard_refuses_every_host_read():
    X = to_gpu(np.arange(6.0).reshape(2, 3))
    for read in (
        lambda: np.asarray(X),
        lambda: np.array(X),
        X.copy_to_host,
        lambda: X[0, 1],
        lambda: X.max(),
        lambda: X.tolist(),
        lambda: X + 1.0,
        lambda: cuda.to_device(X),
    ):
        with pytest.raises(HostRead):
            read()
    assert X.shape == (2, 3) and X.dtype == np.float64 and X[:, 1:].shape == (2, 2)
    assert on_device(X) and on_device(X.reshape(6)) and on_device(X[:1])


def test_on_device_recognises_gpu_arrays_without_importing_cupy():
    X, _ = gaussian_problem(n=6, d=2)

    class Interface:  # what CuPy, PyTorch and numba arrays in GPU memory export
        __cuda_array_interface__ = {"shape": (6, 2), "typestr": "<f8", "data": (0, False)}

    assert on_device(to_gpu(X)) and on_device(Interface())
    assert on_device(DeviceCSR.of(_sparse(X)))
    assert not on_device(X) and not on_device(_sparse(X)) and not on_device([[1.0]])
    assert not on_device(None)
    assert "cupy" not in sys.modules


# ---------------------------------------------------------------------------- same fits
ESTIMATORS = {
    "sdca": lambda: SDCAClassifier(0.05, tol=0.0, max_epochs=3, random_state=0, device="cuda"),
    "pegasos": lambda: PegasosClassifier(
        0.05, batch_size=8, sampling="permutation", max_epochs=3, random_state=0, device="cuda"
    ),
    "newton": lambda: NewtonSVMClassifier(0.05, device="cuda"),
}
LAYOUTS = ["dense64", "dense32", "csr"]


def _layout(X, layout):
    if layout == "dense32":
        return X.astype(np.float32)
    return _sparse(X) if layout == "csr" else X


def _assert_same_fit(host, gpu, exact=True):
    """The same fitted attributes, bit for bit (``exact``), else to 1e-12 relative."""
    for name in ("coef_", "intercept_", "dual_coef_", "n_epochs_", "classes_", "lmbd_"):
        a, b = getattr(host, name), getattr(gpu, name)
        if a is None:
            assert b is None, name
        elif exact or np.asarray(a).dtype.kind != "f":
            np.testing.assert_array_equal(a, b, err_msg=name)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=name)
    assert gpu.n_features_in_ == host.n_features_in_


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_device_fit_equals_host_fit_bit_for_bit(name, layout):
    """X, y on the device give the very fit of the same data from NumPy / SciPy (same seed):
    dense bit for bit; CSR to 1e-12, as a host CSR fit against itself, since its sums over rows
    (Pegasos' batches, SDCA's w(α) at the returned pair) add into shared columns by atomics,
    whose order is the threads' (the simulator's too); the CSR arrays the kernels read are the
    host's bit for bit (:func:`test_device_statistics_equal_numpy`). predict and
    decision_function on device X give the host's labels and scores (to rounding: another
    order of summation than BLAS's). X is never read by the host (:class:`DeviceOnly`)."""
    if name == "newton" and layout == "csr":
        pytest.skip("the Newton engine is dense only (its refusal: test_refusals)")
    X, y = gaussian_problem(n=40, d=5, seed=1)
    X = _layout(X, layout)
    host = ESTIMATORS[name]().fit(X, y)
    gpu = ESTIMATORS[name]().fit(_on_gpu(X), cuda.to_device(y))
    _assert_same_fit(host, gpu, exact=layout != "csr")
    scores = gpu.decision_function(_on_gpu(X))
    assert type(scores) is np.ndarray and scores.shape == (40,) and scores.dtype == np.float64
    np.testing.assert_allclose(scores, host.decision_function(X), rtol=1e-12, atol=1e-12)
    labels = gpu.predict(_on_gpu(X))
    assert type(labels) is np.ndarray
    np.testing.assert_array_equal(labels, host.predict(X))
    assert gpu.score(_on_gpu(X), cuda.to_device(y)) == host.score(X, y)


@pytest.mark.parametrize("layout", ["dense64", "csr"])
def test_one_vs_rest_weights_and_string_labels_on_device(layout):
    """Three string classes (y on the host: labels of any type), sample weights on the device:
    the host's fit, and a (n, 3) NumPy score array whose argmax is ``predict``'s label."""
    X, _ = gaussian_problem(n=45, d=4, seed=2)
    X = _layout(X, layout)
    labels = np.array(["a", "b", "c"])[np.arange(45) % 3]
    weights = np.linspace(0.5, 2.0, 45)
    host = ESTIMATORS["sdca"]().fit(X, labels, sample_weight=weights)
    gpu = ESTIMATORS["sdca"]().fit(_on_gpu(X), labels, sample_weight=cuda.to_device(weights))
    _assert_same_fit(host, gpu, exact=layout != "csr")
    scores = gpu.decision_function(_on_gpu(X))
    assert scores.shape == (45, 3)
    np.testing.assert_allclose(scores, host.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(gpu.predict(_on_gpu(X)), host.predict(X))
    np.testing.assert_array_equal(gpu.predict(_on_gpu(X)), gpu.classes_[scores.argmax(axis=1)])


def test_partial_fit_chunks_on_device():
    X, y = gaussian_problem(n=40, d=3, seed=3)
    kw = dict(lmbd=0.05, batch_size=4, random_state=0, device="cuda")
    host, gpu = PegasosClassifier(**kw), PegasosClassifier(**kw)
    for rows in (slice(0, 20), slice(20, 40)):
        host.partial_fit(X[rows], y[rows], classes=[-1.0, 1.0])
        gpu.partial_fit(to_gpu(X[rows]), cuda.to_device(y[rows]), classes=[-1.0, 1.0])
    _assert_same_fit(host, gpu)
    assert gpu.t_ == host.t_


def test_unconverged_warning_names_the_same_scaling_on_device():
    """The ConvergenceWarning's scaling advice reads the columns' scales of X: on the device
    the column maxima come back, not X, and the warning is the host's word for word."""
    X, y = gaussian_problem(n=30, d=3, seed=4)
    X[:, 0] *= 1e4
    kw = dict(lmbd=0.05, tol=1e-12, tol_gap="relative", max_epochs=2, random_state=0)
    messages = []
    for data in (X, to_gpu(X)):
        with pytest.warns(ConvergenceWarning, match="scales differ by a factor") as caught:
            SDCAClassifier(**kw, device="cuda").fit(data, y)
        messages.append(str(caught[0].message))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("scale", [1e140, 1e160])
def test_overflow_checks_read_the_device_statistics(scale):
    """check_lmbd's refusals (λ too small for max ||x||², or ||x||² overflowing) from max |X|
    and the largest row norm computed on the device: the host's messages."""
    X, y = gaussian_problem(n=20, d=3, seed=5)
    X *= scale
    messages = []
    for data in (X, to_gpu(X)):
        with pytest.raises(ValueError, match=r"too small for the scale of X|X is too large") as e:
            SDCAClassifier(1e-25, device="cuda").fit(data, y)
        messages.append(str(e.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("layout", ["dense32", "csr"])
def test_device_statistics_equal_numpy(layout):
    X, _ = gaussian_problem(n=25, d=4, seed=6)
    X[:, 2] *= 30.0
    X = _layout(X, layout)
    matrix = device_matrix(_on_gpu(X))
    dense = X.toarray() if sp.issparse(X) else X
    assert (
        matrix.shape == X.shape and matrix.dtype == X.dtype and matrix.sparse == (layout == "csr")
    )
    assert matrix.max_abs() == np.abs(dense).max()
    np.testing.assert_array_equal(matrix.column_scales(), np.abs(dense).max(axis=0))
    # float32: the kernel squares in float32, the host in float64
    np.testing.assert_allclose(matrix.max_row_sq_norm(0.5), row_sq_norms(X, 0.5).max(), rtol=1e-6)
    for ours, theirs in zip(matrix.data.rows, to_device(X).rows, strict=True):  # what kernels read
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(peek(ours), theirs.copy_to_host())
    example = matrix.layout_example()
    assert example.dtype == X.dtype and sp.issparse(example) == sp.issparse(X)
    if sp.issparse(X):
        assert (example.indices.dtype, example.indptr.dtype) == (X.indices.dtype, X.indptr.dtype)


# ---------------------------------------------------------------------------- refusals
def _with(X, i, j, value):
    X = X.copy()
    X[i, j] = value
    return X


def _csr_parts(S, **parts):
    return DeviceCSR.of(
        S, **{k: np.asarray(v, dtype=getattr(S, k).dtype) for k, v in parts.items()}
    )


def _refusals():
    X, _ = gaussian_problem(n=40, d=5, seed=7)
    S = _sparse(X)
    p = S.indptr[np.flatnonzero(np.diff(S.indptr) >= 2)[0]]  # a row's first of >= 2 entries
    swapped = S.indices.copy()
    swapped[[p, p + 1]] = swapped[[p + 1, p]]
    doubled = S.indices.copy()
    doubled[p + 1] = doubled[p]
    outside = S.indices.copy()
    outside[p] = 5
    indptr = S.indptr.copy()
    indptr[3] = indptr[4] + 1
    return {
        "nan": (to_gpu(_with(X, 3, 1, np.nan)), ValueError, r"^Input X contains NaN \(1 entries"),
        "inf32": (
            to_gpu(_with(X, 0, 4, -np.inf).astype(np.float32)),
            ValueError,
            r"^Input X contains infinity or a value too large for dtype\('float32'\) \(1 entr",
        ),
        "csr-nan": (
            _csr_parts(S, data=np.where(np.arange(S.nnz) == 2, np.nan, S.data)),
            ValueError,
            r"^Input X contains NaN",
        ),
        "int64": (
            to_gpu(np.arange(200).reshape(40, 5)),
            TypeError,
            r"X on the device has dtype int64: .* must already be float32 or float64 "
            r".*X\.astype\(cupy\.float32\)",
        ),
        "float16": (to_gpu(X.astype(np.float16)), TypeError, "dtype float16"),
        "csr-int-data": (
            DeviceCSR.of(S.astype(np.int32)),
            TypeError,
            "X.data on the device has dtype int32",
        ),
        "1d": (
            to_gpu(X[:, 0].copy()),
            ValueError,
            r"^Expected 2D array, got 1D array instead \(a device array of shape \(40,\)\)\. "
            "Reshape it on the device",
        ),
        "3d": (to_gpu(X.reshape(40, 5, 1)), ValueError, "got 3D array"),
        "strided": (
            to_gpu(X)[:, ::2],
            ValueError,
            r"X on the device is not a C-contiguous 2-d array \(shape \(40, 3\)"
            r".*cupy\.ascontiguousarray\(X\)",
        ),
        "fortran": (to_gpu(np.asfortranarray(X)), ValueError, "not a C-contiguous 2-d array"),
        "unsorted": (
            _csr_parts(S, indices=swapped),
            ValueError,
            r"not in canonical format: 1 stored entries are unsorted or duplicated "
            r".*X\.sum_duplicates\(\)",
        ),
        "duplicate": (_csr_parts(S, indices=doubled), ValueError, "not in canonical format"),
        "column": (
            _csr_parts(S, indices=outside),
            ValueError,
            r"has 1 column indices outside \[0, n_features = 5\)",
        ),
        "indptr": (
            _csr_parts(S, indptr=indptr),
            ValueError,
            r"invalid indptr: it must start at 0, never decrease and end at nnz = \d+; "
            "1 of its 40 rows break this",
        ),
        "indptr-start": (_csr_parts(S, indptr=S.indptr + 1), ValueError, "invalid indptr"),
        "indptr-length": (
            DeviceCSR(to_gpu(S.data), to_gpu(S.indices), to_gpu(S.indptr[:-1]), S.shape),
            ValueError,
            r"len\(indptr\) = 40 \(must be n_samples \+ 1 = 41\)",
        ),
        "csr-host-part": (
            DeviceCSR(to_gpu(S.data), S.indices, to_gpu(S.indptr), S.shape),
            TypeError,
            "X.indices is not a device array",
        ),
        "csc": (
            DeviceCSR(to_gpu(S.data), to_gpu(S.indices), to_gpu(S.indptr), S.shape, "csc"),
            TypeError,
            r"X is a csc matrix on the device: .*X\.tocsr\(\)",
        ),
        "one-row": (to_gpu(X[:1]), ValueError, r"Found array with 1 sample\(s\) \(shape=\(1, 5\)"),
    }


REFUSALS = sorted(_refusals())


def _one_epoch():
    """A fit that data slipping past a check would finish quickly, and wrongly."""
    return SDCAClassifier(tol=0.0, max_epochs=1, random_state=0, device="cuda")


@pytest.mark.parametrize("case", REFUSALS)
def test_bad_device_input_is_refused_with_the_fix(case):
    _, y = gaussian_problem(n=40, d=5, seed=7)
    data, error, message = _refusals()[case]
    n = 1 if case == "one-row" else 40
    with pytest.raises(error, match=message):
        _one_epoch().fit(data, y[:n])


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_nan_and_inf_words_are_the_host_paths(value):
    """A user matching the host path's message matches the device's."""
    X, y = gaussian_problem(n=40, d=5, seed=7)
    X = _with(X, 5, 0, value)
    words = "Input X contains NaN" if value != value else "Input X contains infinity"
    for data in (X, to_gpu(X)):
        with pytest.raises(ValueError, match=f"^{words}"):
            _one_epoch().fit(data, y)


def test_refusals():
    X, y = gaussian_problem(n=40, d=5, seed=7)
    gpu = SDCAClassifier(0.05, tol=0.0, max_epochs=2, random_state=0, device="cuda")
    with pytest.raises(TypeError, match=r"reads host memory\. Use device='cuda' .*X\.get\(\)"):
        SDCAClassifier(device="cpu").fit(to_gpu(X), y)
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[40, 39\]"):
        gpu.fit(to_gpu(X), y[:39])
    with pytest.raises(TypeError, match=r"takes dense X only.*SDCAClassifier\(device='cuda'\)"):
        NewtonSVMClassifier(device="cuda").fit(DeviceCSR.of(_sparse(X)), y)
    gpu.fit(to_gpu(X), y)
    with pytest.raises(ValueError, match="X has 4 features, but SDCAClassifier is expecting 5"):
        gpu.predict(to_gpu(X[:, :4].copy()))
    with pytest.raises(ValueError, match=r"^Input X contains NaN"):
        gpu.decision_function(to_gpu(_with(X, 1, 1, np.nan)))
    with pytest.raises(TypeError, match=r"duality_gap recomputes the gap on the host.*duality_"):
        gpu.duality_gap(to_gpu(X), y)
