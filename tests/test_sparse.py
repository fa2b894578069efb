"""scipy.sparse CSR input: the CSR kernels give the dense kernels' iterates (same seed, same
index arrays, up to reassociation) for every solver and option, CSR is never copied or
densified, and CSR fits reach liblinear's optimum."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from sdca_pegasos import solvers
from sdca_pegasos.solvers import ASDCAClassifier, PegasosClassifier, SDCAClassifier
from sdca_pegasos.solvers.core import objectives, passes
from sdca_pegasos.solvers.core.losses import make_loss
from sdca_pegasos.solvers.core.rows import kernel_rows
from sdca_pegasos.solvers.sdca import kernels as sdca_kernels

RTOL = 1e-10


def sparse_problem(n=40, d=9, density=0.4, seed=0, dtype=np.float64):
    """Noisy linear labels on a matrix with ~``density`` nonzeros and one empty row."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random(X.shape) > density] = 0.0
    X[3] = 0.0
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X.astype(dtype), y


def full_w(est):
    return np.r_[est.coef_.ravel(), est.intercept_]


def assert_same_fit(dense, sparse):
    w_d, w_s = full_w(dense), full_w(sparse)
    assert_allclose(w_s, w_d, rtol=0, atol=RTOL * np.abs(w_d).max())
    if dense.dual_coef_ is not None:
        assert_allclose(sparse.dual_coef_, dense.dual_coef_, rtol=0, atol=RTOL)
    assert sparse.n_epochs_ == dense.n_epochs_


# ------------------------------------------------------------------------ objectives
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_objectives_accept_sparse(dtype, fmt):
    X, y = sparse_problem(dtype=dtype)
    Xs = sp.csr_matrix(X).asformat(fmt)
    rng = np.random.default_rng(1)
    w = rng.standard_normal(X.shape[1] + 1)
    a = rng.random(X.shape[0]) * y
    lmbd, gamma, bias = 0.1, 0.5, 0.7
    for f, args in [
        (objectives.margins, (y, w, bias)),
        (objectives.row_sq_norms, (bias,)),
        (objectives.dual_weights, (a, lmbd, bias)),
        (objectives.primal, (y, w, lmbd, gamma, bias)),
        (objectives.dual, (y, a, lmbd, gamma, bias)),
        (objectives.error_rate, (y, w, bias)),
        (objectives.duality_gap, (y, w, a, lmbd, gamma, bias)),
    ]:
        assert_allclose(f(Xs, *args), f(X, *args), rtol=1e-12, err_msg=f.__name__)
    m_d, m_s = (
        objectives.monitor(X, y, w, lmbd, gamma, bias, a),
        objectives.monitor(Xs, y, w, lmbd, gamma, bias, a),
    )
    for key in m_d:
        assert_allclose(m_s[key], m_d[key], rtol=1e-12, err_msg=key)
    c_d, c_s = (objectives.certificate(M, y, w, a, lmbd, gamma, bias) for M in (X, Xs))
    for key in c_d:
        assert_allclose(c_s[key], c_d[key], rtol=1e-13, err_msg=key)


def test_row_norms_of_duplicate_entries():
    """A CSR with a duplicated column is summed once at the boundary (norms of the sums)."""
    data, cols = np.array([1.0, 2.0, 3.0, 1.0]), np.array([0, 0, 1, 1])
    X2 = sp.csr_matrix((data, cols, np.array([0, 3, 4])), (2, 2))
    assert not X2.has_canonical_format
    est = PegasosClassifier(lmbd=0.1, projection=True, max_epochs=1, random_state=0)
    Xd = np.array([[3.0, 3.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0])
    assert_same_fit(est.fit(Xd, y), PegasosClassifier(**est.get_params()).fit(X2, y))


# ------------------------------------------------------------------------ SDCA
SDCA_OPTIONS = [
    # (sampling, sgd_init, average, loss, bias, shrinking)
    ("permutation", False, False, "hinge", 0.0, False),
    ("iid", False, False, "smooth_hinge", 1.0, False),
    ("cyclic", False, False, "hinge", 0.5, False),
    ("permutation", True, False, "hinge", 1.0, False),
    ("cyclic", True, "random", "smooth_hinge", 0.0, False),
    ("iid", False, True, "hinge", 1.0, False),
    ("permutation", True, True, "smooth_hinge", 0.5, False),
    ("iid", False, "random", "hinge", 0.0, False),
    ("permutation", False, False, "hinge", 0.0, True),
    ("iid", True, False, "smooth_hinge", 1.0, True),
    ("cyclic", False, False, "hinge", 0.5, True),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    ("sampling", "sgd_init", "average", "loss", "bias", "shrinking"), SDCA_OPTIONS
)
def test_sdca_csr_equals_dense(dtype, sampling, sgd_init, average, loss, bias, shrinking):
    """Same seed: same iterates, same certificate, and with shrinking the same active sets
    (so the same samples swept) epoch by epoch."""
    X, y = sparse_problem(dtype=dtype)
    seen = {"dense": [], "csr": []}

    def fit(M, key):
        def record(info):
            seen[key].append((info.n_active, info.n_samples_seen, info.w.copy()))

        params = dict(
            lmbd=1.0 / X.shape[0] if shrinking else 0.05,
            loss=loss,
            gamma=0.3,
            sampling=sampling,
            sgd_init=sgd_init,
            average=average,
            avg_start=None if average is False else 5 * X.shape[0],
            shrinking=shrinking,
            finish=False,
            bias_multiplier=bias,
            max_epochs=12,
            tol=1e-9,  # a certificate every epoch, never met in 12: the fit says so
            random_state=1,
            callback=record,
        )
        with pytest.warns(ConvergenceWarning, match="after max_epochs=12"):
            return SDCAClassifier(**params).fit(M, y)

    dense, sparse = fit(X, "dense"), fit(sp.csr_matrix(X), "csr")
    assert_same_fit(dense, sparse)
    assert_allclose(sparse.duality_gap_, dense.duality_gap_, rtol=1e-8, atol=1e-15)
    assert [s[:2] for s in seen["csr"]] == [s[:2] for s in seen["dense"]]
    for (*_, w_s), (*_, w_d) in zip(seen["csr"], seen["dense"], strict=True):
        assert_allclose(w_s, w_d, rtol=0, atol=RTOL * np.abs(w_d).max())
    if shrinking:  # the test must exercise a shrunk epoch
        assert min(s[0] for s in seen["dense"]) < X.shape[0]


def test_sdca_csr_certificate():
    """CSR SDCA stops on the exact duality gap of the CSR problem: recomputed from scratch
    on the returned pair, P − D ≤ tol and D never decreases across epochs."""
    X, y = sparse_problem(n=120, d=30, density=0.2, seed=5)
    Xs = sp.csr_matrix(X)
    lmbd = 0.01
    duals = []

    def record(info):
        duals.append(objectives.dual(Xs, y, info.dual_coef, lmbd))

    est = SDCAClassifier(
        lmbd=lmbd,
        shrinking=False,
        tol=1e-10,
        tol_gap="absolute",
        max_epochs=5000,
        random_state=0,
        callback=record,
        bias_multiplier=0.0,
    )
    est.fit(Xs, y)
    assert est.converged_
    gap = est.duality_gap(Xs, y)
    assert 0.0 <= gap <= 1e-10
    assert gap == pytest.approx(est.duality_gap(X, y), rel=1e-6, abs=1e-15)
    assert np.all(np.diff(duals) >= -1e-15)


def test_sdca_csr_kernels_equal_sequential_numpy_steps():
    """The CSR sweep against the textbook step on dense rows, on a given index array (with
    repeats), hinge and smoothed: w = w(α) and each α_i its exact coordinate maximiser."""
    X, y = sparse_problem(n=30, d=7, seed=2)
    Xs = sp.csr_matrix(X)
    rng = np.random.default_rng(0)
    order = rng.integers(0, X.shape[0], 90)
    lmbd, bias = 0.1, 0.5
    n = X.shape[0]
    Xb = np.c_[X, np.full(n, bias)]
    sq = np.einsum("ij,ij->i", Xb, Xb)
    for gamma in (0.0, 0.4):
        w, a = np.zeros(X.shape[1] + 1), np.zeros(n)
        sweep = sdca_kernels.Sweep(w, a, np.zeros(1), np.zeros(1), None, np.empty(2))
        params = sdca_kernels.Params(lmbd, lmbd * n, make_loss(gamma), 0, 0, -1)
        rows = kernel_rows(Xs, y.astype(np.float64), sq, None, bias)
        sdca_kernels.sdca_epoch(rows, sweep, params, order, 0, order.shape[0], -np.inf)
        w_ref, a_ref = np.zeros(X.shape[1] + 1), np.zeros(n)
        for i in order:
            yi = y[i]
            g = 1.0 - yi * Xb[i] @ w_ref - gamma * yi * a_ref[i]
            denom = sq[i] / (lmbd * n) + gamma
            new = np.clip(yi * a_ref[i] + g / denom, 0, 1) if denom > 0 else 1.0
            w_ref += (yi * new - a_ref[i]) / (lmbd * n) * Xb[i]
            a_ref[i] = yi * new
        assert_allclose(a, a_ref, rtol=0, atol=1e-12)
        assert_allclose(w, w_ref, rtol=0, atol=1e-12)
        assert_allclose(w, objectives.dual_weights(X, a, lmbd, bias), rtol=0, atol=1e-12)


# ------------------------------------------------------------------------ Pegasos
PEGASOS_OPTIONS = [
    # (batch_size, sampling, projection, average, bias, lmbd)
    (1, "iid", False, False, 0.0, 0.1),
    (1, "permutation", True, True, 1.0, 1e-3),  # projections shrink s: renormalisations
    (1, "iid", True, "weighted", 0.5, 0.1),
    (3, "iid", False, True, 1.0, 0.1),
    (3, "permutation", True, "weighted", 0.0, 1e-3),
    (3, "permutation", True, False, 1.0, 0.1),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    ("k", "sampling", "projection", "average", "bias", "lmbd"), PEGASOS_OPTIONS
)
def test_pegasos_csr_equals_dense(dtype, k, sampling, projection, average, bias, lmbd):
    X, y = sparse_problem(dtype=dtype)
    params = dict(
        lmbd=lmbd,
        batch_size=k,
        sampling=sampling,
        projection=projection,
        average=average,
        bias_multiplier=bias,
        max_epochs=4,
        random_state=1,
    )
    dense = PegasosClassifier(**params).fit(X, y)
    assert_same_fit(dense, PegasosClassifier(**params).fit(sp.csr_matrix(X), y))


# ------------------------------------------------------------------------ ASDCA
ASDCA_OPTIONS = [
    # (batch_size, average, bias, theta, gamma)
    (1, False, 0.0, None, 1.0),
    (3, True, 1.0, None, 0.1),
    (3, False, 1.0, 0.5, 1.0),
    (3, True, 0.0, 1.0, 1.0),  # θ = 1: v_e cleared on the batch's columns only
    (8, True, 1.0, 0.15, 0.5),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("m", "average", "bias", "theta", "gamma"), ASDCA_OPTIONS)
def test_asdca_csr_equals_dense(dtype, m, average, bias, theta, gamma):
    X, y = sparse_problem(dtype=dtype)
    params = dict(
        lmbd=0.05,
        gamma=gamma,
        batch_size=m,
        theta=theta,
        average=average,
        bias_multiplier=bias,
        max_epochs=4,
        tol=1e-4,  # a certificate every epoch, never met in 4: the fit says so
        random_state=1,
    )
    with pytest.warns(ConvergenceWarning, match="after max_epochs=4"):
        dense = ASDCAClassifier(**params).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="after max_epochs=4"):
        sparse = ASDCAClassifier(**params).fit(sp.csr_matrix(X), y)
    assert_same_fit(dense, sparse)
    assert_allclose(sparse.duality_gap_, dense.duality_gap_, rtol=1e-9)


# ------------------------------------------------------------------------ boundary
@pytest.mark.parametrize("cls", [SDCAClassifier, PegasosClassifier, ASDCAClassifier])
def test_csr_is_not_copied(cls, record_fit):
    X, y = sparse_problem()
    Xs = sp.csr_matrix(X)
    record = record_fit(cls)
    no_tol = {} if cls is PegasosClassifier else {"tol": 0}  # one epoch, no stopping test
    cls(max_epochs=1, random_state=0, **no_tol).fit(Xs, y)
    assert record.state.problem.X is Xs


@pytest.mark.parametrize("fmt", ["csc", "coo", "lil"])
def test_other_formats_converted_once(fmt, record_fit):
    X, y = sparse_problem()
    record = record_fit(PegasosClassifier)
    est = PegasosClassifier(max_epochs=2, random_state=0).fit(sp.csr_matrix(X).asformat(fmt), y)
    assert record.state.problem.X.format == "csr"
    assert_same_fit(PegasosClassifier(max_epochs=2, random_state=0).fit(X, y), est)
    assert_allclose(est.decision_function(sp.csr_matrix(X)), est.decision_function(X))


def test_readonly_csr_and_int64_indices():
    X, y = sparse_problem(dtype=np.float32)
    Xs = sp.csr_matrix(X)
    Xs.indices = Xs.indices.astype(np.int64)
    Xs.indptr = Xs.indptr.astype(np.int64)
    for a in (Xs.data, Xs.indices, Xs.indptr):
        a.setflags(write=False)
    params = dict(lmbd=0.1, batch_size=3, projection=True, max_epochs=3, random_state=2)
    assert_same_fit(PegasosClassifier(**params).fit(X, y), PegasosClassifier(**params).fit(Xs, y))
    params = dict(lmbd=0.1, sgd_init=True, average=True, max_epochs=3, tol=0, random_state=2)
    assert_same_fit(SDCAClassifier(**params).fit(X, y), SDCAClassifier(**params).fit(Xs, y))


@pytest.mark.parametrize("cls", [SDCAClassifier, PegasosClassifier, ASDCAClassifier])
def test_sparse_tags(cls):
    assert cls().__sklearn_tags__().input_tags.sparse


def test_no_compilation_inside_a_csr_fit_after_warm_up():
    """Every CSR kernel signature an SDCA fit needs exists before the fit."""
    solvers.warm_up(readonly=False)
    kernels = [
        sdca_kernels.sdca_epoch,
        sdca_kernels.sgd_init_epoch,
        passes._row_sq_norms,
    ]
    before = [len(k.signatures) for k in kernels]
    X, y = sparse_problem()
    for dtype in (np.float64, np.float32):
        Xs = sp.csr_matrix(X.astype(dtype))
        for params in ({}, {"sgd_init": True}, {"average": "random"}, {"shrinking": True}):
            params = {"shrinking": False, **params}
            SDCAClassifier(max_epochs=2, tol=0, random_state=0, **params).fit(Xs, y)
    assert [len(k.signatures) for k in kernels] == before


def test_warm_up_compiles_csr_kernels():
    from sdca_pegasos.solvers.driver import estimator as _base

    solvers.warm_up(dtypes=(np.float64,), readonly=False)
    Xs = sp.csr_matrix(sparse_problem()[0])
    for cls, params in solvers._KERNEL_CONFIGS:
        if cls().supports_sparse:
            key = (cls, _base.layout_key(Xs), False, cls(**params)._kernel_key())
            assert key in _base.WARMED


# ------------------------------------------------------------------------ liblinear
def test_csr_reaches_liblinear_optimum():
    """On a CSR problem, P* from liblinear (evaluated on the CSR matrix) is reached by
    averaged Pegasos to 1e-3 relative, and bracketed by ASDCA's certified smoothed dual:
    D_γ(α) ≤ P*_γ ≤ P* ≤ P(w_ASDCA) ≤ P*_γ + γ/2 + gap."""
    X, y = sparse_problem(n=200, d=20, density=0.2, seed=3)
    Xs = sp.csr_matrix(X)
    lmbd = 0.05
    C = objectives.lmbd_to_C(lmbd, X.shape[0])
    svc = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-10, max_iter=10**6)
    p_star = objectives.primal(Xs, y, svc.fit(Xs, y).coef_.ravel(), lmbd)

    peg = PegasosClassifier(
        lmbd=lmbd, average="weighted", max_epochs=300, random_state=0, bias_multiplier=0.0
    )
    p_peg = objectives.primal(Xs, y, full_w(peg.fit(Xs, y))[:-1], lmbd)
    assert p_star <= p_peg <= p_star * (1 + 1e-3)

    gamma = 0.05
    asd = ASDCAClassifier(
        lmbd=lmbd,
        gamma=gamma,
        tol=1e-9,
        tol_gap="absolute",
        max_epochs=3000,
        random_state=0,
        bias_multiplier=0.0,
    )
    asd.fit(Xs, y)
    assert asd.converged_
    d_gamma = objectives.dual(Xs, y, asd.dual_coef_, lmbd, gamma)
    assert d_gamma <= p_star + 1e-12
    assert asd.hinge_objective_ <= d_gamma + gamma / 2 + 1e-9


@pytest.mark.parametrize("bias", [0.0, 1.0])
@pytest.mark.parametrize("shrinking", [False, True])
def test_sdca_csr_reaches_liblinear_optimum(shrinking, bias):
    """CSR SDCA certified to a gap of 1e-10 has liblinear's objective: D(α) ≤ P* ≤ P(w_lib)
    brackets the optimum, and P(w_SDCA) ≤ D(α) + 1e-10 (liblinear with C = 1/(λn), the
    intercept as a constant feature B, no fit_intercept)."""
    X, y = sparse_problem(n=300, d=40, density=0.15, seed=7)
    Xs = sp.csr_matrix(X)
    lmbd = 1.0 / X.shape[0]
    C = objectives.lmbd_to_C(lmbd, X.shape[0])
    Xl = sp.hstack([Xs, np.full((X.shape[0], 1), bias)], format="csr") if bias else Xs
    svc = LinearSVC(
        loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-10, max_iter=10**6,
        random_state=0,  # at tol=1e-12 liblinear stalls on this problem (never unshrinks)
    )  # fmt: skip
    w_lib = svc.fit(Xl, y).coef_.ravel()
    w_lib_full = w_lib if bias else np.r_[w_lib, 0.0]
    p_lib = objectives.primal(Xs, y, w_lib_full, lmbd, 0.0, bias)

    est = SDCAClassifier(
        lmbd=lmbd, shrinking=shrinking, finish=False, bias_multiplier=bias, tol=1e-10,
        tol_gap="absolute", max_epochs=100_000, random_state=0,
    )  # fmt: skip
    est.fit(Xs, y)
    assert est.converged_
    w = objectives.full_weights(est.coef_, est.intercept_[0], bias)
    p_sdca = objectives.primal(Xs, y, w, lmbd, 0.0, bias)
    d_sdca = objectives.dual(Xs, y, est.dual_coef_, lmbd, 0.0, bias)
    assert p_sdca - d_sdca <= 1e-10
    assert d_sdca <= p_lib + 1e-15  # weak duality on liblinear's point
    assert p_sdca == pytest.approx(p_lib, rel=1e-9)
