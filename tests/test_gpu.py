"""SDCA and Pegasos on the GPU (``device="cuda"``), run in Numba's CUDA simulator.

``tests/__init__.py`` sets ``NUMBA_ENABLE_CUDASIM=1`` unless the environment already sets
it: ``NUMBA_ENABLE_CUDASIM=0 pytest tests/test_gpu.py`` runs the same tests on a real GPU
(benchmarks/gpu.py's device run does). The simulator runs one Python thread per GPU thread,
so the problems are tiny; the kernels use 4 threads per block there (32 on a GPU).
"""

from __future__ import annotations

import json
import sys
import threading
import time
import types
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numba import cuda, float64
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos import solvers
from sdca_pegasos.solvers import ExactSVMClassifier, PegasosClassifier, SDCAClassifier
from sdca_pegasos.solvers.core import losses, objectives
from sdca_pegasos.solvers.driver.loop import Bounds, CheckSchedule
from sdca_pegasos.solvers.gpu import _kernels as K
from sdca_pegasos.solvers.gpu import sdca as gpu_sdca
from sdca_pegasos.solvers.gpu.certificate import Certifier
from sdca_pegasos.solvers.gpu.data import to_device
from sdca_pegasos.solvers.gpu.sdca import adapt_sigma, cpu_round, line_search_step

from .generated import regenerated

pytestmark = pytest.mark.skipif(not solvers.gpu.available(), reason="no GPU and no simulator")


@pytest.fixture(autouse=True, scope="module")
def _fast_barriers():
    """The simulator's barriers wait on the GIL's switch interval (5 ms by default)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


@pytest.fixture(autouse=True, scope="module")
def _small_grids_are_meant():
    """On a GPU, numba-cuda warns (NumbaPerformanceWarning) at every launch of fewer than 128
    blocks; this suite's problems are tiny by design, so the warning is switched off for it
    (on an H100 it failed 20 tests under ``-W error``). The simulator does not warn."""
    from numba.cuda.core import config

    old = config.CUDA_LOW_OCCUPANCY_WARNINGS
    config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    yield
    config.CUDA_LOW_OCCUPANCY_WARNINGS = old


_SHARED_LOCK = threading.Lock()


@pytest.fixture(autouse=True, scope="module")
def _one_shared_array_per_block():
    """The simulator's ``cuda.shared.array`` (numba-cuda 0.30.4, ``FakeCUDAShared.array``)
    looks the block's array up in a dict and, finding none, stores a new ``np.empty`` one, in
    every thread of the block and with no lock: a thread switch between the lookup and the
    store (likelier at the switch interval set above, on a loaded machine) gives two threads
    of one block two arrays, and the tree sum then reads an entry no thread wrote (the
    Pegasos comparison with the CPU below failed so, off by up to 26 %, in some runs; it and
    the SDCA determinism test were marked flaky for it). A GPU has one shared array per
    block: here the lookup and the store hold a lock
    (:func:`test_a_block_shares_one_array_through_thread_switches`)."""
    if not K.SIMULATED:
        yield
        return
    from numba.cuda.simulator import kernelapi

    shipped = kernelapi.FakeCUDAShared.array

    def array(self, shape, dtype, alignment=None):
        if alignment is not None or shape == 0:  # an error, or dynamic memory: no lookup
            return shipped(self, shape, dtype, alignment)
        if isinstance(dtype, kernelapi.types.Type):
            dtype = kernelapi.numpy_support.as_dtype(dtype)
        caller = sys._getframe(1)
        site = (caller.f_code.co_filename, caller.f_lineno)  # the simulator's key
        with _SHARED_LOCK:
            res = self._allocations.get(site)
            if res is None:
                res = self._allocations[site] = kernelapi.np.empty(shape, dtype)
        return res

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernelapi.FakeCUDAShared, "array", array)
        yield


def _problem(n=48, d=3, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    if sparse:
        X[rng.random(X.shape) < 0.4] = 0.0
        return sp.csr_matrix(X), y
    return X, y


LOSSES = ["hinge", "smooth_hinge", "squared_hinge"]


@cuda.jit
def _tree_sums(out):
    red = cuda.shared.array(K.TPB, float64)
    t = cuda.threadIdx.x
    total = K._block_sum(red, t, t + 1.0)
    if t == 0:
        out[cuda.blockIdx.x] = total


@pytest.mark.skipif(not K.SIMULATED, reason="the simulator's shared memory")
def test_a_block_shares_one_array_through_thread_switches(monkeypatch):
    """Every thread of a block gets the block's one shared array (so the tree sum over the
    block is right) even when the interpreter switches threads inside the allocation (forced
    here: a 2 ms sleep in it). With numba-cuda's own allocation about half of these launches
    sum wrong (22 of 50 measured; the first block of each launch allocates)."""
    from numba.cuda.simulator import kernelapi

    def empty_then_switch(*args, **kwargs):
        time.sleep(0.002)
        return np.empty(*args, **kwargs)

    monkeypatch.setattr(
        kernelapi, "np", types.SimpleNamespace(**{**vars(np), "empty": empty_then_switch})
    )
    for _ in range(40):
        out = np.zeros(2)
        _tree_sums[2, K.TPB](out)
        np.testing.assert_array_equal(out, K.TPB * (K.TPB + 1) / 2)


# ---------------------------------------------------------------------------- the round
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("bias", [0.0, 1.5])
@pytest.mark.parametrize("private", [True, False])
def test_round_equals_cpu_reference_bit_for_bit(loss, bias, private):
    """One round of the kernel, dense, equals its NumPy twin (same order of operations),
    with weights, the bias, σ' > 1, offsets, private or shared block buffers."""
    rng = np.random.default_rng(1)
    n, d, lmbd = 40, 5, 0.05
    X = rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    c = rng.uniform(0.5, 2.0, n)
    loss_ = losses.make_loss(loss, 0.7)
    scale = 1.0 / (lmbd * n)
    q = scale * ((X**2).sum(1) + bias**2)
    a = rng.uniform(0.0, 1.0, n) * np.minimum(loss_.box(c, n), 3.0)
    w = scale * np.append(X.T @ (a * y), bias * (a * y).sum())
    blocks = 4
    order = rng.permutation(n)
    starts = (np.arange(blocks + 1) * n) // blocks
    rot = rng.integers(0, np.diff(starts))
    sigma = 3.0
    ref = cpu_round(X, y, c, q, a, w, order, starts, rot, sigma, scale, bias, loss_, private)
    a_new, buf = np.zeros(n), np.zeros((blocks if private else 1, d + 1))
    stats = np.zeros((blocks, 3))
    sc = np.array([scale, sigma, bias])
    K.sdca_round_dense[blocks, K.TPB](
        X, X, X, y, c, q, a, a_new, w, buf, order, starts, rot, sc, loss_, stats
    )
    np.testing.assert_array_equal(a_new, ref[0])
    np.testing.assert_array_equal(buf, ref[1])
    np.testing.assert_array_equal(stats, ref[2])
    # the blocks' buffers are X̃ᵀ(Δa·y)/(λn): what the line search combines
    delta = a_new - a
    np.testing.assert_allclose(
        buf.sum(0), scale * np.append(X.T @ (delta * y), bias * (delta * y).sum()), atol=1e-12
    )


def test_shared_round_with_sigma_one_is_an_epoch_of_sequential_sdca():
    """What the shared buffer means: a sample's margin sees every update made before it. With
    the blocks run one after another (one launch each: on a GPU the blocks of one launch
    overlap, in the simulator they run in turn), a shared round with σ' = 1 proposes exactly
    one epoch of sequential SDCA over the blocks' rows in turn (the suite's NumPy reference,
    tests/reference.py, not the round's twin), up to the order of additions. Each launch
    names a second, empty block, so that the one buffer is shared (atomic adds, margins at
    w + v) as in a real round."""
    from tests.reference import sdca_reference

    rng = np.random.default_rng(5)
    n, d, lmbd = 24, 3, 0.1
    X = rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    order = rng.permutation(n)
    starts, rot = np.array([0, 8, 16, 24]), np.array([3, 0, 5])
    sequence = np.concatenate(
        [order[lo + (np.arange(8) + r) % 8] for lo, r in zip(starts[:-1], rot, strict=True)]
    )
    q = (X**2).sum(1) / (lmbd * n)
    a, a_new, w = np.zeros(n), np.zeros(n), np.zeros(d + 1)
    buf, stats = np.zeros((1, d + 1)), np.zeros((2, 3))
    sc = np.array([1.0 / (lmbd * n), 1.0, 0.0])
    hinge = losses.make_loss("hinge")
    for lo, hi, r in zip(starts[:-1], starts[1:], rot, strict=True):
        K.sdca_round_dense[1, K.TPB](
            X, X, X, y, np.ones(n), q, a, a_new, w, buf, order, np.array([lo, hi, hi]),
            np.array([r, 0]), sc, hinge, stats,
        )  # fmt: skip
    _, _, w_ref, alpha_ref = sdca_reference(X, y, lmbd, [sequence])
    assert np.any((a_new > 0.0) & (a_new < 1.0))  # not every step at a bound of the box
    np.testing.assert_allclose(y * a_new, alpha_ref, atol=1e-12)  # the reference's α is y·a
    np.testing.assert_allclose(buf[0, :d], w_ref[:d], atol=1e-12)


def test_csr_round_equals_dense_round_on_a_full_matrix():
    """The CSR kernel is the same sweep: on a CSR matrix with every entry stored (same
    columns in the same order) it gives the dense kernel's bits."""
    rng = np.random.default_rng(2)
    n, d, lmbd = 32, 4, 0.1
    X = rng.uniform(0.5, 1.5, (n, d)) * np.where(rng.random((n, d)) < 0.5, 1, -1)
    Xs = sp.csr_matrix(X)
    assert Xs.nnz == n * d
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    c, a = np.ones(n), np.zeros(n)
    q = ((X**2).sum(1)) / (lmbd * n)
    w = np.zeros(d + 1)
    order, starts, rot = rng.permutation(n), np.array([0, 16, 32]), np.array([3, 5])
    sc = np.array([1.0 / (lmbd * n), 1.0, 0.0])
    hinge = losses.make_loss("hinge")
    out = []
    for rows in [(X, X, X), (Xs.data, Xs.indices, Xs.indptr)]:
        a_new, buf, stats = np.zeros(n), np.zeros((2, d + 1)), np.zeros((2, 3))
        kernel = K.sdca_round_dense if rows[0].ndim == 2 else K.sdca_round_csr
        kernel[2, K.TPB](*rows, y, c, q, a, a_new, w, buf, order, starts, rot, sc, hinge, stats)
        out.append((a_new, buf))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_line_search_step():
    stats = np.array([[2.0, 0.5, 1.0], [1.0, 0.5, 1.0]])  # Σδ = 3, Σκaδ/c = 1, Σκδ²/c = 2
    n, lmbd = 10, 0.5
    # slope = (3 - 1)/10 - 0.5·w·dw ; curvature = 2/10 + 0.5·dw·dw
    assert line_search_step(stats, 0.0, 0.2, lmbd, n) == pytest.approx(0.2 / 0.3)
    assert line_search_step(stats, 0.0, 0.0, lmbd, n) == 1.0  # slope/curvature = 1
    assert line_search_step(stats, 0.4, 0.2, lmbd, n) == 0.0  # slope 0: no ascent, no step
    assert line_search_step(stats, -10.0, 0.0, lmbd, n) == 1.0  # clipped to the box
    linear = np.array([[1.0, 0.0, 0.0]])
    assert line_search_step(linear, 0.0, 0.0, lmbd, n) == 1.0  # no curvature at all


def test_adapt_sigma_moves_by_the_step_and_stays_between_one_and_the_blocks():
    assert adapt_sigma(8.0, 0.25, 64) == 32.0  # overshoot by 1/t: σ' divided by t
    assert adapt_sigma(8.0, 0.0, 64) == 32.0  # no ascent: by at most 4
    assert adapt_sigma(8.0, 0.7, 64) == 8.0  # a long step that was cut: kept
    assert adapt_sigma(8.0, 1.0, 64) == 4.0  # a full step: halved
    assert adapt_sigma(1.0, 1.0, 64) == 1.0  # ... not below 1
    # the H200 record's stall: rounds proposing no ascent grew σ' by 4 each, past 1e143;
    # K (CoCoA+'s safe value for adding K blocks' updates) caps it
    sigma = 1.0
    for _ in range(300):
        sigma = adapt_sigma(sigma, 0.0, 4224)
    assert sigma == 4224.0
    assert adapt_sigma(4224.0, 1.0, 4224) == 2112.0  # and it comes down again


# ---------------------------------------------------------------------------- certificate
def _exact_pair_values(X, y, w, a, lmbd, bias, loss, c):
    """P(w) and D(α) of the pair in exact rational arithmetic (hinge / smoothed hinge)."""
    n, d = X.shape
    F = Fraction
    lm = F(lmbd)
    kappa, upper = F(loss.kappa), F(loss.upper)
    sq_w = sum(F(v) * F(v) for v in w)
    total = F(0)
    for i in range(n):
        z = F(y[i]) * (sum(F(X[i, k]) * F(w[k]) for k in range(d)) + F(bias) * F(w[d]))
        u = 1 - z
        if u > 0:
            if kappa == 0:
                val = upper * u
            elif u >= kappa * upper:
                val = upper * u - kappa * upper * upper / 2
            else:
                val = u * u / (2 * kappa)
            total += F(c[i]) * val
    primal = lm / 2 * sq_w + total / n
    scale = 1 / (lm * n)
    wa = [scale * sum(F(a[i]) * F(y[i]) * F(X[i, k]) for i in range(n)) for k in range(d)]
    wa.append(scale * F(bias) * sum(F(a[i]) * F(y[i]) for i in range(n)))
    terms = sum(F(a[i]) - kappa * F(a[i]) ** 2 / (2 * F(c[i])) for i in range(n))
    dual = terms / n - lm / 2 * sum(v * v for v in wa)
    return primal, dual


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("loss", ["hinge", "smooth_hinge"])
def test_certificate_brackets_exact_values(sparse, loss):
    """The device's bounds hold as real numbers (checked in rational arithmetic) and are
    tight: within 1e-12 of P(w) and D(α), and of objectives.certificate's own bounds."""
    X, y = _problem(n=24, d=3, seed=3, sparse=sparse)
    Xd = X.toarray() if sparse else X
    rng = np.random.default_rng(4)
    n, lmbd, bias = X.shape[0], 0.03, 1.0
    c = rng.uniform(0.5, 1.5, n)
    loss_ = losses.make_loss(loss, 0.5)
    a = rng.uniform(0.0, 1.0, n) * c
    data = to_device(X)
    cert = Certifier(data, cuda.to_device(y), cuda.to_device(c), lmbd, bias, loss_)
    got = cert(cuda.to_device(a))
    primal, dual = _exact_pair_values(Xd, y, got["w"], a, lmbd, bias, loss_, c)
    assert Fraction(got["primal"]) >= primal
    assert Fraction(got["dual"]) <= dual
    assert float(Fraction(got["primal"]) - primal) <= 1e-12 * abs(float(primal))
    assert float(dual - Fraction(got["dual"])) <= 1e-12 * abs(float(dual))
    cpu = objectives.certificate(X, y, got["w"], y * a, lmbd, loss_, bias, c)
    assert got["primal"] == pytest.approx(cpu["primal"], rel=1e-12)
    assert got["dual"] == pytest.approx(cpu["dual"], rel=1e-12)


# ---------------------------------------------------------------------------- SDCA fits
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("sparse", [False, True])
def test_sdca_gpu_reaches_the_exact_optimum(loss, sparse):
    """Every loss, dense and CSR, weighted, with an intercept: the GPU fit stops on its
    certified gap, and the exact engine's certified optimum lies inside its bounds."""
    X, y = _problem(n=48, d=3, seed=5, sparse=sparse)
    weights = np.random.default_rng(6).uniform(0.5, 2.0, X.shape[0])
    params = {"lmbd": 0.1, "loss": loss, "gamma": 0.5, "bias_multiplier": 1.0}
    gpu = SDCAClassifier(
        **params, tol=1e-8, tol_gap="absolute", max_epochs=400, random_state=0, device="cuda"
    )
    gpu.fit(X, y, sample_weight=weights)
    exact = ExactSVMClassifier(**params, tol=1e-12).fit(X, y, sample_weight=weights)
    assert gpu.converged_ and gpu.duality_gap_ <= 1e-8
    assert gpu.dual_ <= exact.primal_ and exact.dual_ <= gpu.primal_
    np.testing.assert_allclose(gpu.coef_, exact.coef_, atol=1e-3)
    # the fitted attributes are the certified pair's: recomputed on the CPU
    w = np.append(gpu.coef_[0], gpu.intercept_[0] / 1.0)
    cpu = objectives.certificate(X, y, w, gpu.dual_coef_, 0.1, gpu.loss_function, 1.0, weights)
    assert cpu["gap"] <= 1e-8 + 1e-12
    assert gpu.epoch_times_.shape == (gpu.n_epochs_,)


def test_sdca_gpu_dense_private_is_deterministic_and_shared_warm_starts(monkeypatch):
    """Private buffers (a block's own v, summed by the driver) give the same bits on every
    run; the shared buffer (the default) does not on a GPU, where the blocks' atomic adds
    and reads interleave (two 3-epoch fits on an H100 differed by up to 0.19 in coef_), so
    it is judged by its certificate: a warm start at its optimum certifies in one round."""
    X, y = _problem(n=40, d=3, seed=7)
    monkeypatch.setattr(gpu_sdca, "DENSE_PRIVATE", True)
    fits = [
        SDCAClassifier(lmbd=0.1, tol=0, max_epochs=3, random_state=4, device="cuda").fit(X, y)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    np.testing.assert_array_equal(fits[0].dual_coef_, fits[1].dual_coef_)
    monkeypatch.setattr(gpu_sdca, "DENSE_PRIVATE", False)
    warm = SDCAClassifier(lmbd=0.1, tol=1e-8, max_epochs=300, random_state=0, device="cuda")
    warm.set_params(warm_start=True).fit(X, y)
    first = warm.n_epochs_
    warm.fit(X, y)  # restarts at the optimum: one round certifies it
    assert warm.converged_ and warm.n_epochs_ == 1 < first


def _count_certificates(monkeypatch, n_samples: int) -> list:
    """Every device certificate computed on n_samples rows (not the warm-up fit's 8),
    appended to the list returned (its gap)."""
    made = []
    shipped = Certifier.__call__

    def counted(self, a):
        result = shipped(self, a)
        if self.data.n_samples == n_samples:
            made.append(result["gap"])
        return result

    monkeypatch.setattr(Certifier, "__call__", counted)
    return made


def test_sdca_gpu_gap_is_the_certificate_of_the_returned_pair(monkeypatch):
    """max_epochs ending between two checks: ``duality_gap_``, ``primal_`` and ``dual_`` are
    the device certificate of the pair returned, recomputed here on the CPU from ``coef_``,
    ``intercept_`` and ``dual_coef_`` (the certificate is outward-rounded: at or above the
    CPU's gap, by rounding only), that pair is (w(α), α), and the driver certified it once:
    one device certificate per check, plus the returned pair's."""
    X, y = _problem(n=48, d=3, seed=5)
    weights = np.random.default_rng(6).uniform(0.5, 2.0, X.shape[0])
    checked = []
    made = _count_certificates(monkeypatch, X.shape[0])
    est = SDCAClassifier(lmbd=0.1, tol=1e-14, max_epochs=7, random_state=0, device="cuda",
                         callback=lambda info: checked.append(info.gap is not None))  # fmt: skip
    with pytest.warns(ConvergenceWarning, match=r"\(last iterate, device='cuda'\)"):
        est.fit(X, y, sample_weight=weights)
    assert est.n_epochs_ == 7 and not checked[-1], "the fit must end between two checks"
    assert len(made) == sum(checked) + 1
    # the device certificate of the returned α, from a certifier of its own: its w(α) is the
    # returned w (not the running w of the rounds), its bounds the fit's, bit for bit
    own = Certifier(to_device(X), cuda.to_device(y), cuda.to_device(weights), 0.1, 1.0,
                    est.loss_function)(cuda.to_device(y * est.dual_coef_))  # fmt: skip
    w = objectives.full_weights(est.coef_.ravel(), est.intercept_[0], 1.0)
    np.testing.assert_array_equal(w, own["w"])  # bias 1: intercept_ is w's last entry
    assert (est.primal_, est.dual_, est.duality_gap_) == (own["primal"], own["dual"], own["gap"])
    # and on the CPU: the exact gap of the returned pair, which the certificate bounds
    primal, dual, gap = objectives.duality_gap(
        X, y, w, est.dual_coef_, 0.1, est.loss_function, 1.0, weights
    )
    assert gap > 1e-14 and not est.converged_
    assert gap <= est.duality_gap_ <= gap + 1e-13
    assert est.primal_ == pytest.approx(primal, rel=1e-13)
    assert est.dual_ == pytest.approx(dual, rel=1e-13)


@pytest.mark.parametrize("tol", [0.0, 1e-14])
def test_sdca_gpu_bounds_on_demand_change_no_iterate(monkeypatch, tol):
    """A callback that asks ``info.bounds()`` after every round (between the fit's checks, or
    with no checks at all at tol=0) gets the device certificate of that round's pair, and the
    fit is the same bit for bit as without it (private buffers: deterministic): an on-demand
    certificate does not resynchronise w nor touch α. The last round's on-demand bounds are
    those of the returned pair."""
    X, y = _problem(n=40, d=3, seed=7)
    monkeypatch.setattr(gpu_sdca, "DENSE_PRIVATE", True)
    params = {"lmbd": 0.1, "tol": tol, "max_epochs": 6, "random_state": 4, "device": "cuda"}
    seen = []

    def callback(info):
        seen.append((info.gap, info.bounds()))

    fits = []
    for callback_ in (None, callback):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fits.append(SDCAClassifier(**params, callback=callback_).fit(X, y))
    plain, asked = fits
    assert sum(gap is None for gap, _ in seen) >= 3  # rounds certified on demand only
    for name in ("coef_", "intercept_", "dual_coef_", "primal_", "dual_", "sigma_"):
        np.testing.assert_array_equal(getattr(asked, name), getattr(plain, name), err_msg=name)
    np.testing.assert_array_equal(asked.duality_gap_, plain.duality_gap_)
    primal, dual, gap = seen[-1][1]
    assert (primal, dual) == (plain.primal_, plain.dual_)
    assert tol == 0.0 or gap == plain.duality_gap_


def test_sdca_gpu_checks_follow_the_driver_schedule():
    """The rounds a GPU fit certifies are those :class:`CheckSchedule` calls for (no KKT
    statistic: the extrapolated log-gap), replayed here from the gaps the callback saw:
    rounds 1 and 2, then fewer than one a round (the rule before checked rounds 1 to 10
    all), and the last, where the gap meets tol."""
    X, y = _problem(n=48, d=3, seed=5)
    tol, checks = 1e-8, {}

    def callback(info):
        if info.gap is not None:
            checks[info.epoch] = Bounds(info.primal, info.dual, info.gap)

    est = SDCAClassifier(lmbd=0.1, tol=tol, tol_gap="absolute", max_epochs=400, random_state=0,
                         device="cuda", callback=callback).fit(X, y)  # fmt: skip
    schedule = CheckSchedule(tol)
    for k in range(1, est.n_epochs_ + 1):
        assert schedule.due(k, None) == (k in checks), k
        if k in checks:
            schedule.checked(k, checks[k], None)
    made = sorted(checks)
    assert made[:2] == [1, 2] and made[-1] == est.n_epochs_
    assert est.converged_ and checks[made[-1]].gap <= tol < checks[made[-2]].gap
    assert len([k for k in made if k <= 10]) < min(10, est.n_epochs_)


def test_sdca_gpu_one_vs_rest_matches_cpu_optimum():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((45, 3))
    y = np.argmax(X @ rng.standard_normal((3, 3)), axis=1)
    # 2000 epochs: on an H200 (32-thread blocks, 5 of them) class 0 needed more than 500
    params = {"lmbd": 0.2, "bias_multiplier": 0.0, "random_state": 0}
    gpu = SDCAClassifier(**params, tol=1e-9, max_epochs=2000, device="cuda")
    cpu = SDCAClassifier(**params, tol=1e-11, max_epochs=5000)
    gpu.fit(X, y)
    cpu.fit(X, y)
    np.testing.assert_allclose(gpu.coef_, cpu.coef_, atol=1e-4)
    assert np.all(gpu.duality_gap_ <= 1e-9)


def test_device_errors_are_clear(monkeypatch):
    X, y = _problem()
    for bad in ({"sampling": "iid"}, {"average": True}, {"shrinking": True}, {"sgd_init": True}):
        with pytest.raises(ValueError, match=r"does not support .*use device='cpu'"):
            SDCAClassifier(device="cuda", **bad).fit(X, y)
    with pytest.raises(ValueError, match="device"):
        SDCAClassifier(device="gpu").fit(X, y)
    monkeypatch.setattr(cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match=r"found no CUDA GPU.*device='cpu'"):
        SDCAClassifier(device="cuda").fit(X, y)
    with pytest.raises(RuntimeError, match="found no CUDA GPU"):
        PegasosClassifier(device="cuda").fit(X, y)


# ---------------------------------------------------------------------------- Pegasos
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    "options",
    [
        {"sampling": "permutation", "projection": True, "average": True},
        {"sampling": "iid", "projection": False, "average": "weighted"},
        {"sampling": "permutation", "loss": "smooth_hinge", "gamma": 0.5},
        {"sampling": "iid", "projection": True, "loss": "squared_hinge"},
    ],
)
def test_pegasos_gpu_equals_cpu(sparse, options):
    """The same index arrays (same seed), the same steps (every loss: −φ'(z) of
    :mod:`sdca_pegasos.solvers.core.losses` on both): the GPU's iterates are the CPU solver's up to
    the order of the additions."""
    X, y = _problem(n=30, d=4, seed=9, sparse=sparse)
    weights = np.random.default_rng(10).uniform(0.5, 2.0, X.shape[0])
    params = {"lmbd": 0.05, "batch_size": 7, "max_epochs": 3, "bias_multiplier": 1.0}
    params.update(options, random_state=3)
    gpu = PegasosClassifier(**params, device="cuda").fit(X, y, sample_weight=weights)
    cpu = PegasosClassifier(**params).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(gpu.coef_, cpu.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gpu.intercept_, cpu.intercept_, rtol=1e-10, atol=1e-12)
    assert gpu.t_ == cpu.t_


# ---------------------------------------------------------------------------- benchmark
def test_benchmark_runs_end_to_end_on_the_simulator(tmp_path):
    """benchmarks/gpu.py, the script run whole on a GPU machine, at a tiny size: every
    (problem, λ) has GPU checks whose certified duals bound its primal values from below,
    a CPU baseline, and the README table renders from the record."""
    from benchmarks import gpu as bench

    bench.main(
        ["--out", str(tmp_path), "--scale", "0.00001", "--cpu-cap", "0.2", "--gpu-cap", "3",
         "--dense-schemes", "private,shared@2"]
    )  # fmt: skip
    record = json.loads((tmp_path / "gpu.json").read_text())
    assert record["meta"]["simulated"] is True
    results = record["results"]
    assert set(results) == {
        "dense_1n_private", "dense_1n_shared2", "dense_1e-6_private", "dense_1e-6_shared2",
        "csr_1n", "csr_1e-6",
    }  # fmt: skip
    for res in results.values():
        assert res["checks"], "no certified check recorded"
        assert all(ch["dual"] <= res["d_best"] <= ch["primal"] for ch in res["checks"])
        assert res["cpu"]["records"] and res["cpu"]["capped"]
    for lmbd in ("1n", "1e-6"):  # one CPU baseline and one best dual per (problem, λ)
        private, shared = results[f"dense_{lmbd}_private"], results[f"dense_{lmbd}_shared2"]
        assert private["cpu"] == shared["cpu"]
        assert private["d_best"] == shared["d_best"]
        best = max(ch["dual"] for ch in private["checks"] + shared["checks"])
        assert private["d_best"] == best
    assert solvers.gpu.sdca.DENSE_PRIVATE is False  # the schemes' switches restored
    assert solvers.gpu.sdca.MAX_BLOCKS == 4
    table = bench.table(record)
    assert table.count("\n| dense") + table.count("\n| csr") == 6
    assert "(shared buffers, K ≤ 2)" in table and "(private buffers)" in table


def _bench_row(problem, scheme, epoch_ms, gpu_1e4, cpu_1e4, capped=False, gap=0.5):
    return {
        "problem": problem, "scheme": scheme, "lmbd_name": "1/n", "epoch_ms_median": epoch_ms,
        "read_ms": 1.0, "gpu_time_to": {"0.0001": gpu_1e4}, "cpu_time_to": {"0.0001": cpu_1e4},
        "cpu": {"capped": capped, "cpu_s": 120.0},
        "checks": [{"gap": gap, "dual": 1.0, "primal": 1.0 + gap}],
    }  # fmt: skip


def test_benchmark_targets_are_met_or_missed_as_the_record_says():
    """The README's verdicts on issue 33's targets, read from a record: each bound at its
    edge, a CPU cap making the speed-up a lower bound, and no verdict from the simulator."""
    from benchmarks.gpu import targets

    def record(*rows, simulated=False):
        return {"meta": {"simulated": simulated}, "results": dict(enumerate(rows))}

    met = targets(record(
        _bench_row("dense", "shared", 2.0, 1.0, 30.0),
        _bench_row("dense", "private", 9.0, None, None),
        _bench_row("csr", "shared", 3.0, 0.1, 1.0),
    ))  # fmt: skip
    assert "dense epoch ≤ 2× one read of X: met (best 2.0×, 1/n, shared)" in met
    assert "CSR epoch ≤ 3× one read of X: met (best 3.0×, 1/n)" in met
    assert "dense time to 1e-4 ≥ 30× the CPU's: met (30×, 1/n, shared)" in met
    missed = targets(record(
        _bench_row("dense", "shared", 2.01, 1.0, 29.0),
        _bench_row("csr", "shared", 3.01, 0.1, 1.0),
    ))  # fmt: skip
    assert "dense epoch ≤ 2× one read of X: missed (best 2.0×" in missed
    assert "CSR epoch ≤ 3× one read of X: missed" in missed
    assert "dense time to 1e-4 ≥ 30× the CPU's: missed (29×" in missed
    capped = targets(record(_bench_row("dense", "shared", 5.0, 2.0, None, capped=True)))
    assert "met (≥ 60×, 1/n, shared)" in capped  # 120 s of capped CPU over 2 s
    none = targets(record(_bench_row("dense", "shared", 5.0, None, None, gap=0.25)))
    assert "missed (no GPU run reached 1e-4; certified relative gaps at the cap: 0.25" in none
    assert targets(record(simulated=True)) == (
        "Targets: not measured (the record is the CUDA simulator's)."
    )


def test_readme_gpu_block_is_generated_from_the_committed_record(tmp_path):
    """Every GPU number in the README comes from the committed record: regenerating the
    block from benchmarks/records/ changes nothing (a hand edit, or a record changed
    without `--readme`, fails here)."""

    from benchmarks import gpu as bench

    root = Path(__file__).resolve().parents[1]
    text = regenerated(bench.main, "README.md", bench.README_RECORDS, tmp_path)
    for path in bench.README_RECORDS:  # and the block states each record's verdicts
        assert bench.targets(json.loads((root / path).read_text())) in text


def test_round_timer_imports_the_tree_it_is_given(tmp_path):
    """benchmarks/gpu_round.py times the solvers of the tree it names (a copy of this one
    here), not the checkout's: a before/after comparison that timed one tree twice would
    report no change."""
    import os
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[1]
    shutil.copytree(
        root / "sdca_pegasos", tmp_path / "sdca_pegasos", ignore=shutil.ignore_patterns("*.nb?")
    )
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    cmd = [sys.executable, str(root / "benchmarks/gpu_round.py"), str(tmp_path)]
    out = subprocess.run(
        [*cmd, "--rows", "40", "--fits", "1"], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert f"{tmp_path / 'sdca_pegasos' / 'solvers'}: CSR epoch ms median" in out


def test_row_stack_alias_for_numba_cuda_under_numpy_2_5(monkeypatch):
    """numba-cuda 0.30 overloads np.row_stack, which NumPy 2.5 removed: importing
    solvers.gpu restores the alias (a ruff autofix once turned it into a no-op)."""
    import importlib

    monkeypatch.delattr(np, "row_stack", raising=False)
    importlib.reload(solvers.gpu)
    # getattr: ruff's NPY201 autofix would rewrite the attribute into np.vstack
    assert getattr(np, "row_stack") is np.vstack  # noqa: B009


def test_lambda_path_on_the_gpu_stops_on_the_relative_gap():
    """lambda_path asks for a relative gap (tol·|P|): the GPU fits stop on it, as the CPU's
    do. With P ≈ 0.2 an absolute tol of 1e-3 would stop at a relative gap up to ~5e-3."""
    from sdca_pegasos.solvers import lambda_path

    X, y = _problem(n=48, d=3, seed=11)
    est = SDCAClassifier(bias_multiplier=0.0, max_epochs=400, random_state=0, device="cuda")
    path = lambda_path(est, X, y, [1.0, 0.3], rel_gap=1e-3)
    for point in path:
        assert point.reached and point.rel_gap <= 1e-3
        assert point.primal < 1.0  # the case where the two readings of tol differ
