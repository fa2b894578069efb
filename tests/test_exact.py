"""The exact-optimum engine (solvers.exact) and its independent certificate.

Evidence, not accuracy: agreement with liblinear at tight tolerance, weak duality, the gap
target reached in every regime the catalogue has (n > d, d > n, large n with duplicated
samples, tiny λ, smoothed hinge, float32, bias), the two representations agreeing, and the
certificate agreeing with the plain objectives.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse
from numpy.testing import assert_allclose
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from benchmarks.problems import make_sparse_rows
from sdca_pegasos.solvers.core import losses, objectives
from sdca_pegasos.solvers.exact import engine as exact
from sdca_pegasos.solvers.exact import qp as _exact_qp
from sdca_pegasos.solvers.exact.engine import choose_method, solve_exact

from .conftest import gaussian_problem, real_problem
from .reference import exact_dot


def liblinear(X, y, lmbd):
    """liblinear's dual CD at tol=1e-10, where it converges on these problems (at tol=1e-12
    it hits max_iter and returns a point up to 5e-3 above the optimum: measured, not used)."""
    C = objectives.lmbd_to_C(lmbd, X.shape[0])
    svc = LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-10, max_iter=10**6)
    return svc.fit(X, y).coef_.ravel()


def skin_like(n=20_000, seed=0):
    """Integer 3-d features in [0, 255] with many duplicated rows, sorted by class (as skin)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.2, 1.0, -1.0)
    centre = np.where(y[:, None] > 0, [120.0, 150.0, 200.0], [100.0, 100.0, 100.0])
    X = np.clip(np.round((centre + rng.normal(0.0, 40.0, (n, 3))) / 4) * 4, 0, 255)
    order = np.argsort(-y, kind="stable")
    X, y = X[order], y[order]
    return np.ascontiguousarray((X - X.mean(0)) / X.std(0)), y


@pytest.mark.parametrize(
    ("n", "d", "lmbd"),
    [(200, 10, 0.01), (300, 20, 1 / 300), (40, 200, 0.05), (60, 300, 1 / 60)],
    ids=["n>d", "n>d-1/n", "d>n", "d>n-1/n"],
)
def test_agrees_with_liblinear(n, d, lmbd):
    X, y = gaussian_problem(n=n, d=d, seed=1)
    res = solve_exact(X, y, lmbd)
    assert res.certified and res.rel_gap <= 1e-10
    w_lib = liblinear(X, y, lmbd)
    p_lib = objectives.primal(X, y, w_lib, lmbd)
    # liblinear's point is feasible: never below our certified lower bound
    assert p_lib >= res.dual - 1e-15
    assert abs(p_lib - res.primal) <= 1e-8 * res.primal
    assert_allclose(res.w[:-1], w_lib, rtol=0, atol=1e-8 * np.abs(w_lib).max())


@pytest.mark.parametrize("method", ["primal", "gram", "ipm"])
def test_weak_duality_and_certificate_match_the_objectives(method):
    X, y = gaussian_problem(n=80, d=30, seed=2)
    lmbd = 0.02
    res = solve_exact(X, y, lmbd, method=method, max_cpu=0.0)  # stops after one stage
    cert = objectives.certificate(X, y, res.w, res.dual_coef, lmbd)
    assert cert["primal"] == pytest.approx(objectives.primal(X, y, res.w, lmbd), rel=1e-12)
    assert cert["dual"] == pytest.approx(objectives.dual(X, y, res.dual_coef, lmbd), rel=1e-12)
    # weak duality: every feasible dual point is below every primal point
    rng = np.random.default_rng(0)
    for _ in range(5):
        alpha = y * rng.random(y.shape[0])
        w = rng.standard_normal(X.shape[1])
        assert objectives.certificate(X, y, w, alpha, lmbd)["gap"] > 0.0
    assert res.primal >= res.dual
    with pytest.raises(ValueError, match="infeasible"):
        objectives.certificate(X, y, res.w, 2.0 * y, lmbd)


@pytest.mark.parametrize(
    ("shape", "method", "label"),
    [
        ((120, 120), "gram", "gram-cd+newton"),
        ((120, 120), "ipm", "gram-ipm+crossover"),
        ((400, 12), "ipm", "primal-ipm+crossover"),
    ],
)
def test_every_method_reaches_the_primal_representations_optimum(shape, method, label):
    n, d = shape
    X, y = gaussian_problem(n=n, d=d, seed=3)
    a = solve_exact(X, y, 1 / n, method="primal")
    b = solve_exact(X, y, 1 / n, method=method)
    assert a.certified and b.certified
    # a vertex of the optimum's face, not an interior point: in general position at most
    # d free variables (margins exactly 1), the others exactly at 0 or 1
    ab = y * b.dual_coef
    assert np.sum((ab > 0.0) & (ab < 1.0)) <= min(n, d)
    assert (a.method, b.method) == ("primal-cd+newton", label)
    assert_allclose(a.w, b.w, rtol=0, atol=1e-7 * np.abs(a.w).max())
    assert abs(a.primal - b.primal) <= 1e-10 * a.primal


def raw_crops_like(n_images=75, copies=4, d=1200, seed=0):
    """Nonnegative 'images' (a common mean, 8 modes of variation) each with near-duplicate
    augmented copies, random labels: the ill-conditioned Q of raw crops at small λ."""
    rng = np.random.default_rng(seed)
    images = rng.random(d) + rng.standard_normal((n_images, 8)) @ (
        0.1 * rng.standard_normal((8, d))
    )
    X = np.repeat(images, copies, axis=0) + 1e-3 * rng.standard_normal((n_images * copies, d))
    y = np.repeat(np.where(rng.random(n_images) < 0.5, 1.0, -1.0), copies)
    return np.clip(X, 0.0, None), y


@pytest.mark.parametrize("lmbd", [1 / 300, 1e-3])
def test_interior_point_certifies_near_duplicate_images_where_cd_crawls(lmbd):
    """The raw-crop failure in small: shrinking CD (either representation) still has a
    relative gap of 1e-6 to 1e-3 after 20 s here (measured), the interior point certifies
    in well under a second. Its optimum lies inside every CD certificate's bounds."""
    X, y = raw_crops_like()
    res = solve_exact(X, y, lmbd)
    assert res.method == "gram-ipm+crossover" and res.ipm_iterations > 0
    assert res.certified and res.rel_gap <= 1e-10
    cert = objectives.certificate(X, y, res.w, res.dual_coef, lmbd)
    assert cert["gap"] <= 1e-10 * cert["primal"]
    for method in ("primal", "gram"):
        cd = solve_exact(X, y, lmbd, method=method, max_cpu=0.5)
        assert cd.dual <= res.primal * (1 + 1e-12) and res.dual <= cd.primal * (1 + 1e-12)


def test_compensated_weights_and_margins_are_exact_to_rounding():
    """Terms of ~1e3 cancelling to ~1: a plain float64 sum errs; the compensated kernels
    (exact products, compensated sums) agree with the exact sum correctly rounded."""
    X, y = raw_crops_like(d=300)
    rng = np.random.default_rng(1)
    alpha = y * rng.random(y.shape[0])
    lmbd = 1e-3
    w = objectives.exact_dual_weights(X, alpha, lmbd)
    scale = 1.0 / (lmbd * X.shape[0])
    ref = np.array([exact_dot(alpha, X[:, k]) * scale for k in range(X.shape[1])])
    assert_allclose(w[:-1], ref, rtol=1e-15, atol=0)
    m = objectives.exact_margins(X, y, w)
    ref_m = y * np.array([exact_dot(X[i], w[:-1]) for i in range(X.shape[0])])
    assert_allclose(m, ref_m, rtol=1e-15, atol=1e-15 * np.abs(ref_m).max())
    sparse = objectives.exact_dual_weights(scipy.sparse.csr_matrix(X), alpha, lmbd)
    assert np.array_equal(sparse, w)
    assert np.array_equal(objectives.exact_margins(scipy.sparse.csr_matrix(X), y, w), m)


# one small instance of every regime the catalogue certifies
REGIMES = {
    "n>d, λ=1/n (blood PCA-40, simulated)": lambda: (*real_problem("cancer"), 1 / 569, {}),
    "d>n, λ=1/n (raw crops)": lambda: (*gaussian_problem(n=150, d=900, seed=4), 1 / 150, {}),
    "d>n, small λ (genomic λ=0.001)": lambda: (*gaussian_problem(n=60, d=600, seed=5), 1e-3, {}),
    "large n, duplicates, λ=1/n (skin)": lambda: (*skin_like(), 1 / 20_000, {}),
    "large λ, every α at a bound (λ=1.6)": lambda: (*real_problem("digits38"), 1.6, {}),
    "smoothed hinge γ=1": lambda: (*real_problem("iris"), 0.01, {"gamma": 1.0}),
    "bias multiplier": lambda: (*gaussian_problem(n=100, d=8, seed=6), 0.01, {"bias": 1.0}),
}


@pytest.mark.parametrize("regime", list(REGIMES))
def test_gap_target_reached_in_every_regime(regime):
    X, y, lmbd, extra = REGIMES[regime]()
    res = solve_exact(X, y, lmbd, **extra)
    assert res.certified, f"{regime}: rel. gap {res.rel_gap:.2e} after {res.cpu_seconds:.1f} s"
    assert -1e-14 <= res.rel_gap <= 1e-10
    # the certificate is recomputed here, from X, y, w and α only
    gamma, bias = extra.get("gamma", 0.0), extra.get("bias", 0.0)
    cert = objectives.certificate(X, y, res.w, res.dual_coef, lmbd, gamma, bias)
    assert cert["gap"] <= 1e-10 * abs(cert["primal"])
    assert cert["dual"] <= cert["primal"] + 1e-15


def test_float32_input_is_certified_on_its_own_bits():
    X, y = gaussian_problem(n=300, d=40, seed=7, dtype=np.float32)
    res = solve_exact(X, y, 1 / 300)
    assert res.certified
    cert64 = objectives.certificate(X.astype(np.float64), y, res.w, res.dual_coef, 1 / 300)
    assert cert64["rel_gap"] <= 1e-10  # the same problem: float32 values are exact in float64


def test_same_seed_same_bits_and_budget_is_honest():
    X, y = skin_like(n=5000, seed=1)
    a = solve_exact(X, y, 1 / 5000, seed=3)
    b = solve_exact(X, y, 1 / 5000, seed=3)
    assert np.array_equal(a.w, b.w) and np.array_equal(a.dual_coef, b.dual_coef)
    cut = solve_exact(X, y, 1 / 5000, max_cpu=0.0)  # one stage, then the budget ends it
    assert not cut.certified and cut.rel_gap > 1e-10
    # the bounds stay valid whatever the gap: dual <= P* <= primal
    assert cut.dual <= a.primal + 1e-12 and cut.primal >= a.dual - 1e-12


@pytest.mark.parametrize("method", ["primal", "gram", "ipm"])
@pytest.mark.parametrize("steps", [1, 2, 6])
def test_a_budget_cut_returns_the_lowest_primal_point_found(monkeypatch, method, steps):
    """Whatever step the budget ends after (a CD sweep, an interior-point factorisation),
    ``w`` is the point of lowest certified P found, never worse than w = 0; ``primal`` is
    P(w) raised by its rounding allowance, ``dual`` the D of ``dual_coef``, and they bound
    the optimum (issue 29: an interior point cut before its first crossover gave w = 0)."""
    X, y = gaussian_problem(n=80, d=30, seed=2)
    lmbd = 0.02
    opt = solve_exact(X, y, lmbd, method=method)
    clock, made = [0.0], [0]

    def counted(original):
        def step(self, *args):
            made[0] += 1
            if made[0] >= steps:
                clock[0] = 1e9  # the budget ends after this step, on any machine
            return original(self, *args)

        return step

    monkeypatch.setattr(exact, "_cpu_clock", lambda: clock[0])
    for rep in (_exact_qp.Primal, _exact_qp.Gram):
        monkeypatch.setattr(rep, "sweep", counted(rep.sweep))
        monkeypatch.setattr(rep, "barrier_solver", counted(rep.barrier_solver))
    res = solve_exact(X, y, lmbd, method=method, max_cpu=1.0)

    assert opt.certified and not res.certified and res.rel_gap > 1e-10
    p = objectives.primal(X, y, res.w, lmbd)
    assert p <= objectives.primal(X, y, np.zeros(X.shape[1] + 1), lmbd) == 1.0
    assert res.primal == pytest.approx(p, rel=1e-12) and res.primal >= p
    assert res.dual == pytest.approx(objectives.dual(X, y, res.dual_coef, lmbd), abs=1e-12)
    assert res.dual <= opt.primal and opt.dual <= res.primal
    assert res.gap == res.primal - res.dual and res.rel_gap == res.gap / res.primal
    if method != "ipm" or steps == 6:  # a CD sweep, or 6 interior-point steps, beat w = 0
        assert p < 0.5


def test_bad_arguments_are_named():
    X, y = gaussian_problem(n=20, d=3)
    with pytest.raises(ValueError, match="lmbd"):
        solve_exact(X, y, 0.0)
    with pytest.raises(ValueError, match="method"):
        solve_exact(X, y, 0.1, method="newton")
    with pytest.raises(ValueError, match="labels"):
        solve_exact(X, np.arange(20.0), 0.1)
    with pytest.raises(ValueError, match="sample_weight"):
        solve_exact(X, y, 0.1, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match=r"gamma=0\.5 applies to the hinge"):
        solve_exact(X, y, 0.1, loss="squared_hinge", gamma=0.5)
    with pytest.raises(ValueError, match="unknown loss"):
        solve_exact(X, y, 0.1, loss="logistic")


@pytest.mark.parametrize("method", ["auto", "primal", "gram", "ipm"])
def test_csr_input_reaches_the_dense_optimum_and_liblinears(method):
    """CSR is solved as CSR (O(nnz) sweeps, sparse Gram products) to the same certified
    optimum as its dense copy; liblinear, given the CSR matrix, agrees."""
    rng = np.random.default_rng(8)
    X = scipy.sparse.random(300, 900, density=0.02, random_state=9, format="csr")
    y = np.where(X @ rng.standard_normal(900) + 0.1 * rng.standard_normal(300) > 0, 1.0, -1.0)
    lmbd = 1 / 300
    res = solve_exact(X, y, lmbd, method=method)
    dense = solve_exact(X.toarray(), y, lmbd, method=method)
    assert res.certified and dense.certified
    assert (
        res.method
        == dense.method
        == {
            "auto": "gram-ipm+crossover",  # 300 samples: the Gram form's factorisations are cheap
            "primal": "primal-cd+newton",
            "gram": "gram-cd+newton",
            "ipm": "gram-ipm+crossover",
        }[method]
    )
    assert abs(res.primal - dense.primal) <= 1e-10 * dense.primal
    assert_allclose(res.w, dense.w, rtol=0, atol=1e-7 * np.abs(dense.w).max())
    p_lib = objectives.primal(X, y, liblinear(X, y, lmbd), lmbd)
    assert res.dual - 1e-15 <= p_lib <= res.primal * (1 + 1e-8)


# ---------------------------------------------------------------------------- the chooser
GiB = 2**30


@pytest.mark.parametrize(
    ("shape", "nnz", "itemsize", "max_cpu", "limit", "method", "form", "bytes_"),
    [
        # dense n > d: the low-rank primal form, (d+1)² for M and 16 n (d+1) for the
        # crossover's free rows and their SVD; float32 adds the block it converts
        ((5000, 2000), None, 8, 60.0, 4 * GiB, "ipm", "primal", 8 * 2001**2 + 16 * 5000 * 2001),
        (
            (20000, 500),
            None,
            4,
            60.0,
            4 * GiB,
            "ipm",
            "primal",
            8 * 501**2 + 2**24 + 16 * 20000 * 501,
        ),
        # dense d ≥ n: the Gram form, Q and its factor (2 n²) and one block
        ((3000, 14400), None, 4, 60.0, 4 * GiB, "ipm", "gram", 16 * 3000**2 + 2**24),
        # both sides large: coordinate descent, in Gram form while Q (n²) fits ...
        (
            (12000, 50000),
            None,
            8,
            60.0,
            4 * GiB,
            "gram",
            "gram",
            8 * 12000**2 + 48 * 12000 + 2**24,
        ),
        # ... and in primal form beyond (Q of 30,000² is 7.2 GB), or for n > d
        (
            (30000, 100000),
            None,
            8,
            60.0,
            4 * GiB,
            "primal",
            "primal",
            8 * 100001 + 64 * 30000 + 8 * 2000**2,
        ),
        (
            (200000, 3000),
            None,
            8,
            60.0,
            4 * GiB,
            "primal",
            "primal",
            8 * 3001 + 64 * 200000 + 8 * 2000**2,
        ),
        # the same dense 5000 × 2000 whose interior point does not fit a 10 s budget ...
        (
            (5000, 2000),
            None,
            8,
            10.0,
            4 * GiB,
            "primal",
            "primal",
            8 * 2001 + 64 * 5000 + 8 * 2000**2,
        ),
        # ... or 100 MB of memory
        ((5000, 2000), None, 8, 60.0, 1e8, "primal", "primal", 8 * 2001 + 64 * 5000 + 8 * 2000**2),
        # CSR: rcv1's shape (both sides large) and 100,000 × 50,000 go to CD ...
        (
            (20242, 47236),
            1_500_000,
            8,
            60.0,
            4 * GiB,
            "primal",
            "primal",
            8 * 47237 + 64 * 20242 + 8 * 2000**2,
        ),
        (
            (100000, 50000),
            5_000_000,
            8,
            60.0,
            4 * GiB,
            "primal",
            "primal",
            8 * 50001 + 64 * 100000 + 8 * 2000**2,
        ),
        # ... small CSR to the interior point: Gram form (plus 12 n² of the sparse product
        # before it is densified), or the primal form for n ≫ d (12 (d+1)² likewise)
        ((300, 900), 5400, 8, 60.0, 4 * GiB, "ipm", "gram", 28 * 300**2 + 2**24),
        (
            (100000, 200),
            2_000_000,
            8,
            60.0,
            4 * GiB,
            "ipm",
            "primal",
            20 * 201**2 + 2**24 + 16 * 100000 * 201,
        ),
    ],
)
def test_choose_method_every_branch_and_its_memory(
    shape, nnz, itemsize, max_cpu, limit, method, form, bytes_
):
    choice = choose_method(*shape, nnz, itemsize=itemsize, max_cpu=max_cpu, memory_limit=limit)
    assert (choice.method, choice.form, choice.bytes) == (method, form, bytes_)
    assert choice.bytes <= limit
    # the interior point when its predicted time fits 3/4 of the budget (in the memory limit:
    # else its prediction is inf), coordinate descent otherwise
    assert (choice.ipm_seconds <= 0.75 * max_cpu) == (method == "ipm")


def test_choose_method_prices_each_ipm_form_by_its_factorisation():
    """Each form of the interior point pays at least its dense Cholesky every iteration:
    (d+1)³/3 flops for the primal form (CSR too: its normal matrix is dense), n³/3 for the
    Gram form, the Gram form's dominating its price; so a wide CSR problem's primal form
    costs more than its Gram form (the mutation survivor _exact_choice.py:90, k/3/3 for
    k**3/3, priced it below)."""
    from sdca_pegasos.solvers.exact.choice import BLAS_FLOPS, IPM_ITERATIONS, ipm_costs

    for n, d, nnz in ((2000, 6000, 20_000), (500, 3000, 5000), (20_000, 300, 400_000)):
        costs = ipm_costs(n, d, nnz, 8)
        for form, size in (("primal", d + 1), ("gram", n)):
            assert costs[form][0] >= IPM_ITERATIONS * size**3 / 3 / BLAS_FLOPS, (n, d, form)
        # and the Gram form's is its Cholesky: n³/3, not n³ (the survivor :92, ^ for /)
        assert costs["gram"][0] <= 2 * IPM_ITERATIONS * n**3 / 3 / BLAS_FLOPS, (n, d)
        assert (costs["primal"][0] > costs["gram"][0]) == (d > n), (n, d)


@pytest.mark.parametrize(
    ("kind", "budget"),
    [("n>d", 60.0), ("d>n", 60.0), ("d>n f32", 60.0), ("n>d", 1e-4), ("d>n", 1e-4), ("csr", 60.0)],
)
def test_predicted_memory_bounds_what_the_solve_allocates(kind, budget):
    """tracemalloc's peak (every NumPy/SciPy array the solve allocates, X excluded) stays
    within the chooser's prediction, for the interior point in both forms and for CD."""
    import tracemalloc

    if kind == "csr":
        X, y = make_sparse_rows(5000, 60, 8, seed=1)
    else:
        n, d = (1500, 120) if kind.startswith("n>d") else (120, 1500)
        X, y = gaussian_problem(n, d, seed=1, dtype=np.float32 if "f32" in kind else np.float64)
    nnz = X.nnz if scipy.sparse.issparse(X) else None
    choice = choose_method(*X.shape, nnz, itemsize=X.dtype.itemsize, max_cpu=budget)
    solve_exact(X[:40], y[:40], 0.1, method=choice.method)  # compile outside the trace
    tracemalloc.start()
    try:
        res = solve_exact(X, y, 1 / X.shape[0], max_cpu=budget)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.method.startswith(choice.form)
    assert ("ipm" in res.method) == (choice.method == "ipm")
    assert 0 < peak <= choice.bytes


# ---------------------------------------------------------------------------- certificates
def test_certified_is_exactly_rel_gap_at_most_tol():
    """Between two measured gaps, and at the boundary itself (the same run, to the bit)."""
    X, y = skin_like(n=3000, seed=4)
    lmbd = 1 / 3000
    cut = solve_exact(X, y, lmbd, method="primal", max_cpu=0.0)  # one CD stage, certified once
    full = solve_exact(X, y, lmbd, method="primal")
    assert full.rel_gap < 1e-10 < cut.rel_gap
    between = math.sqrt(full.rel_gap * cut.rel_gap)
    assert not solve_exact(X, y, lmbd, method="primal", max_cpu=0.0, tol=between).certified
    assert solve_exact(X, y, lmbd, method="primal", tol=between).certified
    at = solve_exact(X, y, lmbd, method="primal", max_cpu=0.0, tol=cut.rel_gap)
    below = solve_exact(
        X, y, lmbd, method="primal", max_cpu=0.0, tol=np.nextafter(cut.rel_gap, 0.0)
    )
    assert at.rel_gap == below.rel_gap == cut.rel_gap
    assert at.certified and not below.certified


@pytest.mark.parametrize("seed", [0, 1])
def test_crossover_exact_refinements_reach_rounding_level(seed):
    """The crossover's last refinements on the compensated gradient (through X) are what
    takes near-duplicate images from ~4e-13 to ≤ 5e-14 (measured on seeds 0-2, one and two
    BLAS threads): without them, or on the Gram gradient Q a instead, the crossover stops
    at 3.3-3.7e-13, the interior point runs on and CD takes the rest of the budget."""
    X, y = raw_crops_like(seed=seed)
    with threadpool_limits(limits=1):
        res = solve_exact(X, y, 1 / 300, tol=1e-13, max_cpu=3.0)
    assert res.method == "gram-ipm+crossover", (res.method, res.rel_gap)
    assert res.certified and res.rel_gap <= 1e-13 and res.ipm_iterations <= 20


# ---------------------------------------------------------------------------- losses, weights
def test_weight_zero_is_a_dropped_sample():
    """P with c_i ∈ {0, 1} is (n'/n) times the P of the n' kept samples at λ' = λn/n': the
    same minimiser, and a dual variable of 0 for every dropped sample."""
    X, y = gaussian_problem(n=200, d=12, seed=9)
    c = (np.arange(200) % 4 != 0).astype(float)
    lmbd, keep = 1 / 200, c > 0
    res = solve_exact(X, y, lmbd, bias=1.0, sample_weight=c)
    sub = solve_exact(X[keep], y[keep], lmbd * 200 / keep.sum(), bias=1.0)
    assert res.certified and sub.certified
    assert np.all(res.dual_coef[~keep] == 0.0)
    assert_allclose(res.w, sub.w, rtol=0, atol=1e-9 * np.abs(sub.w).max())
    assert res.primal == pytest.approx(sub.primal * keep.sum() / 200, rel=1e-10)


def test_every_weight_zero_is_refused_by_name():
    X, y = gaussian_problem(n=30, d=4, seed=1)
    with pytest.raises(ValueError, match="sample_weight is 0 everywhere"):
        solve_exact(X, y, 0.1, sample_weight=np.zeros(30))


def test_gamma_keeps_its_older_meaning():
    """``gamma=`` alone is the γ-smoothed hinge (0: the hinge), bit for bit the same solve
    as ``loss="smooth_hinge"`` or a number."""
    X, y = real_problem("iris")
    a = solve_exact(X, y, 0.01, gamma=0.5)
    b = solve_exact(X, y, 0.01, loss="smooth_hinge", gamma=0.5)
    c = solve_exact(X, y, 0.01, loss=0.5)
    assert a.loss == b.loss == c.loss == "smooth_hinge"
    assert np.array_equal(a.w, b.w) and np.array_equal(a.w, c.w)
    assert solve_exact(X, y, 0.01, gamma=0.0).loss == "hinge"


@pytest.mark.parametrize("loss", ["smooth_hinge", "squared_hinge"])
def test_smooth_losses_are_certified_in_both_forms_and_float32(loss):
    X, y = gaussian_problem(n=300, d=30, seed=2, dtype=np.float32)
    c = np.random.default_rng(2).uniform(0.2, 3.0, 300)
    results = [
        solve_exact(X, y, 1 / 300, loss=loss, sample_weight=c, method=m)
        for m in ("ipm", "primal", "gram")
    ]
    for res in results:
        assert res.certified and res.loss == loss
        cert = objectives.certificate(
            X, y, res.w, res.dual_coef, 1 / 300, losses.make_loss(loss), 0.0, c
        )
        assert cert["rel_gap"] <= 1e-10
    assert max(r.primal for r in results) - min(r.primal for r in results) <= 2e-10 * abs(
        results[0].primal
    )
