"""SDCA with shrinking: same certified optimum, a readable twin, nothing wrongly set aside."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from sdca_pegasos.solvers import SDCAClassifier
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.sdca import kernels as sdca_kernels
from sdca_pegasos.solvers.sdca import shrinking as sdca_shrinking
from sdca_pegasos.solvers.sklearn_checks import expected_failed_checks
from tests.conftest import gaussian_problem, real_problem
from tests.reference import sdca_shrinking_reference
from tests.test_sdca import AGREE, SAMPLINGS, _lmbd, liblinear

TOL = 1e-10


def certified(X, y, lmbd, **params):
    """SDCA to a gap of TOL; no intercept unless ``params`` set one (liblinear's problem);
    plain SDCA unless ``params`` set shrinking, and no exact finish."""
    params = {"bias_multiplier": 0.0, "shrinking": False, "finish": False, **params}
    est = SDCAClassifier(
        lmbd=lmbd, tol=TOL, tol_gap="absolute", max_epochs=100_000, random_state=0, **params
    )
    est.fit(X, y)
    assert est.converged_ and est.duality_gap_ <= TOL
    return est


def full_weights(est):
    return objectives.full_weights(est.coef_, est.intercept_[0], est.bias_multiplier)


# ------------------------------------------------------------------ 1. the same optimum
@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize(("name", "lmbd"), AGREE)
def test_agrees_with_liblinear(name, lmbd, sampling):
    X, y = real_problem(name)
    lmbd = _lmbd(X, lmbd)
    ours = certified(X, y, lmbd, sampling=sampling, shrinking=True)
    ref = liblinear(X, y, lmbd)
    assert objectives.primal(X, y, ours.coef_.ravel(), lmbd) == pytest.approx(
        objectives.primal(X, y, ref, lmbd), rel=1e-6
    )
    assert_allclose(ours.coef_.ravel(), ref, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bias", [0.0, 1.5])
@pytest.mark.parametrize("sgd_init", [False, True])
@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize(("loss", "gamma"), [("hinge", 0.0), ("smooth_hinge", 0.5)])
def test_same_certified_optimum_as_without_shrinking(loss, gamma, sampling, sgd_init, bias, dtype):
    """Both runs stop on an exact gap ≤ 1e-10; λ-strong convexity of P then bounds
    ‖w − w*‖ ≤ √(2 gap / λ) for each, so the two must agree to twice that."""
    X, y = real_problem("cancer")
    X = X.astype(dtype)
    lmbd = 1.0 / X.shape[0]
    params = dict(loss=loss, gamma=gamma, sampling=sampling, sgd_init=sgd_init)
    params["bias_multiplier"] = bias
    plain = certified(X, y, lmbd, **params)
    shrunk = certified(X, y, lmbd, shrinking=True, **params)
    bound = np.sqrt(2 * plain.duality_gap_ / lmbd) + np.sqrt(2 * shrunk.duality_gap_ / lmbd)
    assert np.linalg.norm(full_weights(plain) - full_weights(shrunk)) <= bound
    # the certificate is the returned pair's, recomputed from scratch
    assert shrunk.duality_gap(X, y) == pytest.approx(shrunk.duality_gap_, rel=1e-6, abs=1e-14)


def test_zero_rows_reach_their_bound_with_shrinking():
    X, y = gaussian_problem(zero_rows=(3, 17))
    est = certified(X, y, 0.05, shrinking=True)
    assert_array_equal(y[[3, 17]] * est.dual_coef_[[3, 17]], 1.0)


# ------------------------------------------------------------------ 2. nothing wrongly set aside
@pytest.mark.parametrize(("loss", "gamma"), [("hinge", 0.0), ("smooth_hinge", 0.5)])
@pytest.mark.parametrize(
    ("name", "lmbd"), [("cancer", "1/n"), ("cancer", 1e-2), ("digits38", "1/n")]
)
def test_set_aside_samples_do_not_move_in_a_final_full_pass(record_fit, name, lmbd, loss, gamma):
    """At the certified optimum, one more pass over *every* sample (the kernel, fresh order)
    leaves each sample the last epoch had set aside exactly where it was."""
    X, y = real_problem(name)
    lmbd = _lmbd(X, lmbd)
    record = record_fit(SDCAClassifier)
    n = X.shape[0]
    # the first seed whose certified fit ends on a shrunk epoch (one that set samples aside;
    # the stop may fall on a full pass, which has none)
    for seed in range(10):
        est = SDCAClassifier(
            lmbd, loss=loss, gamma=gamma, shrinking=True, finish=False, tol=TOL,
            tol_gap="absolute", max_epochs=100_000, random_state=seed,
        ).fit(X, y)  # fmt: skip
        assert est.converged_ and est.duality_gap_ <= TOL
        dropped = np.setdiff1d(np.arange(n), record.visited[-1])  # not in the last epoch's set
        if dropped.size:
            break
    assert dropped.size > 0, "the test needs samples set aside at the end"
    state = record.state
    w, alpha = state.sweep.w.copy(), state.sweep.dual_coef.copy()
    grad, pg_range = np.full(n, np.nan), np.empty(2)
    order = np.random.default_rng(7).permutation(n)
    sweep = sdca_kernels.Sweep(w, alpha, np.zeros(1), np.zeros(1), grad, pg_range)
    params = state.params._replace(mode=0, t0=0, snap=-1)
    sdca_kernels.sdca_epoch(state.rows, sweep, params, order, 0, n, -np.inf)
    assert_array_equal(alpha[dropped], state.sweep.dual_coef[dropped])
    # and they are at a bound, on the side their gradient holds them
    a = y[dropped] * alpha[dropped]
    assert np.all((a == 0) & (grad[dropped] > 0) | (a == 1) & (grad[dropped] < 0))


# ------------------------------------------------------------------ 3. the NumPy twin
@pytest.mark.parametrize("sgd_init", [False, True])
@pytest.mark.parametrize("bias", [0.0, 1.5])
@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize(("loss", "gamma"), [("hinge", 0.0), ("smooth_hinge", 0.7)])
def test_kernel_and_driver_equal_numpy_twin(record_fit, loss, gamma, sampling, bias, sgd_init):
    """Same steps → same iterates, same active sets, same steps per epoch; and every pass the
    kernel drew is over exactly the set the twin's rules leave active."""
    X, y = gaussian_problem(n=80, d=6, seed=4)
    lmbd = 1.0 / X.shape[0]
    record = record_fit(SDCAClassifier)
    seen = []
    est = SDCAClassifier(
        lmbd=lmbd,
        loss=loss,
        gamma=gamma,
        sampling=sampling,
        sgd_init=sgd_init,
        shrinking=True,
        finish=False,
        max_epochs=25,
        tol=0,
        bias_multiplier=bias,
        random_state=3,
        callback=lambda info: seen.append((info.n_active, info.n_samples_seen)),
    ).fit(X, y)
    w_ref, a_ref, history = sdca_shrinking_reference(
        X, y, lmbd, record.visited, gamma=gamma, bias=bias, sampling=sampling, sgd_init=sgd_init
    )
    assert_allclose(est.coef_.ravel(), w_ref[:-1], rtol=0, atol=1e-10)
    assert_allclose(est.intercept_[0], bias * w_ref[-1], rtol=0, atol=1e-10)
    assert_allclose(est.dual_coef_, a_ref, rtol=0, atol=1e-10)
    sizes, seen_total = np.array(seen).T
    assert [h[0] for h in history] == list(sizes)
    assert list(np.cumsum([h[1] for h in history])) == list(seen_total)
    assert min(sizes) < X.shape[0], "shrinking did set samples aside"
    assert sizes[0] == X.shape[0], "the first epoch is a full pass"
    passes = sum(h[1] > h[0] for h in history)
    assert passes > 0, "some epoch made several passes (and shrank between them)"


def passes_of(visited, first):
    """An epoch's steps cut into its passes: the first over ``first`` samples; each later
    one visits distinct samples, all of the pass before, so it ends at its first repeat."""
    visited = visited.tolist()
    out, start = [visited[:first]], first
    while start < len(visited):
        end = start
        while end < len(visited) and visited[end] not in visited[start:end]:
            end += 1
        out.append(visited[start:end])
        start = end
    return out


def test_epochs_are_at_most_n_steps(record_fit):
    """A shrunk epoch makes passes over its active set, each a permutation of the survivors
    of the pass before, and never more than n steps in all."""
    X, y = real_problem("digits38")
    n = X.shape[0]
    record = record_fit(SDCAClassifier)
    seen = []
    SDCAClassifier(
        lmbd=1.0 / n,
        shrinking=True,
        finish=False,
        max_epochs=40,
        tol=0,
        random_state=0,
        callback=lambda info: seen.append(info.n_active),
    ).fit(X, y)
    shrank = 0
    for size, visited in zip(seen, record.visited, strict=True):
        assert size <= len(visited) <= n
        cut = passes_of(visited, size)
        assert len(set(cut[0])) == size
        for before, after in itertools.pairwise(cut):
            assert len(set(after)) == len(after) and set(after) <= set(before)
            shrank += len(after) < len(before)
    assert shrank > 0, "some pass shrank the active set within an epoch"


# ------------------------------------------------------------------ 3b. the kernel's passes
def kernel_state(n=300, d=5, epochs=6, seed=0):
    """(rows, sweep, params) of a hinge fit at λ = 1/n after ``epochs`` full SDCA passes:
    some samples at 0, some at 1, some inside, gradients recorded."""
    X, y = gaussian_problem(n=n, d=d, seed=seed)
    rows, sweep, params = sdca_kernels.kernel_inputs(X, y, 1.0 / n, shrinking=True)
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        sdca_kernels.sdca_epoch(rows, sweep, params, rng.permutation(n), 0, n, -np.inf)
    return rows, sweep, params


def copy_sweep(sweep):
    return sdca_kernels.Sweep(*(None if a is None else a.copy() for a in sweep))


def active_set(n, samples, sampling=sdca_shrinking.PERMUTATION):
    """An ActiveSet with ``samples`` active, every unused entry a sentinel (-7)."""
    buffer = np.full(n, -7, dtype=np.int64)
    buffer[: len(samples)] = samples
    order = np.full(n, -7, dtype=np.int64)
    return sdca_shrinking.ActiveSet(buffer, order, np.array([len(samples)]), sampling)


def old_scan(rows, sweep, samples):
    """The shrink test as the driver made it before it moved into the kernel: one NumPy
    pass over the active samples after the epoch (liblinear's rule, see the reference)."""
    pg_max, pg_min = sweep.pg_range
    upper = pg_max if pg_max > 1e-12 else np.inf
    lower = pg_min if pg_min < -1e-12 else -np.inf
    a = rows.y[samples] * sweep.dual_coef[samples]
    g = sweep.grad[samples]
    out = ((a <= 0) & (g > upper)) | ((a >= 1) & (g < lower))  # NaN compares False: stays
    return samples[~out]


@pytest.mark.parametrize("sampling", ["permutation", "cyclic", "iid"])
def test_each_pass_is_drawn_from_exactly_the_active_samples_by_the_seed(sampling):
    """The first pass of a shrunk epoch: a permutation of exactly the active samples (the
    inside-out shuffle of the reference generator, from the seed), them in order (cyclic),
    or as many i.i.d. draws among them; the same seed gives the same pass, another seed
    another one."""
    from tests.reference import shuffle_reference, uniform_below_reference

    rows, sweep0, params = kernel_state()
    n = rows.y.shape[0]
    samples = np.arange(0, n, 3)  # every third sample active, in base order
    m = samples.shape[0]
    code = {"permutation": 0, "iid": 1, "cyclic": 2}[sampling]

    def first_pass(seed):
        active = active_set(n, samples, code)
        steps = sdca_shrinking.shrunk_epoch(
            rows, copy_sweep(sweep0), params, active, 0, seed, np.inf
        )  # eps_stop = inf: the epoch ends after its first pass
        assert steps == m and active.size[0] == m
        assert np.all(active.order[m:] == -7)  # nothing written past the pass
        return active.order[:m].copy()

    first = first_pass(2024)
    assert_array_equal(first, first_pass(2024))
    seed = 2024
    if sampling == "permutation":
        assert sorted(first) == sorted(samples)
        assert list(first) == shuffle_reference(samples.tolist(), seed)[0]
        assert not np.array_equal(first, first_pass(2025))
    elif sampling == "cyclic":
        assert_array_equal(first, samples)
    else:
        state, expected = seed, []
        for _ in range(m):
            state, j = uniform_below_reference(state, m)
            expected.append(samples[j])
        assert_array_equal(first, expected)
        assert not np.array_equal(first, first_pass(2025))


def test_the_folded_shrink_removes_exactly_what_the_old_scan_removed():
    """After a pass, the kernel's next pass is over exactly the samples that the driver's
    old NumPy scan (run on the same state: the first pass made again by ``sdca_epoch`` on
    the same order) would have kept; a case where the scan removes some and keeps some."""
    rows, sweep0, params = kernel_state()
    n = rows.y.shape[0]
    samples = np.arange(0, n, 2)
    m = samples.shape[0]
    active = active_set(n, samples)
    sweep = copy_sweep(sweep0)
    steps = sdca_shrinking.shrunk_epoch(rows, sweep, params, active, 0, 7, -np.inf)
    cut = passes_of(active.order[:steps], m)
    assert len(cut) >= 2
    again = copy_sweep(sweep0)  # the first pass again, then the old scan
    sdca_kernels.sdca_epoch(rows, again, params, active.order[:m].copy(), 0, m, -np.inf)
    kept = old_scan(rows, again, samples)
    assert 0 < len(kept) < m, "the case must remove some samples and keep some"
    assert sorted(cut[1]) == sorted(kept.tolist())


def test_a_shrunk_epoch_works_on_the_active_samples_only(record_fit):
    """Work counters of one shrunk epoch on 60 active samples of 20,000: it steps on them
    only, writes the order and the active list no further than its steps and the 60, and
    leaves every other sample's α and gradient as they were; the driver hands it one seed
    (no O(n) draw)."""
    rows, sweep0, params = kernel_state(n=20_000, d=4, epochs=2)
    n = rows.y.shape[0]
    samples = np.sort(np.random.default_rng(1).choice(n, 60, replace=False))
    sweep = copy_sweep(sweep0)
    sweep.grad[np.setdiff1d(np.arange(n), samples)] = -123.0  # sentinels
    grad_before, alpha_before = sweep.grad.copy(), sweep.dual_coef.copy()
    active = active_set(n, samples)
    steps = sdca_shrinking.shrunk_epoch(rows, sweep, params, active, 0, 5, np.inf)
    assert steps == 60  # one pass (eps_stop = inf): 60 steps
    assert np.all(active.order[60:] == -7) and np.all(active.samples[60:] == -7)
    others = np.setdiff1d(np.arange(n), samples)
    assert_array_equal(sweep.grad[others], grad_before[others])
    assert_array_equal(sweep.dual_coef[others], alpha_before[others])
    assert not np.array_equal(sweep.dual_coef[samples], alpha_before[samples])
    # a whole epoch (passes until n steps): every step on the active samples
    active = active_set(n, samples)
    steps = sdca_shrinking.shrunk_epoch(rows, copy_sweep(sweep0), params, active, 0, 5, -np.inf)
    assert n - 60 < steps <= n and set(active.order[:steps].tolist()) <= set(samples.tolist())
    assert np.all(active.samples[60:] == -7)
    # the driver's draw for a shrunk epoch is one seed
    record = record_fit(SDCAClassifier)
    SDCAClassifier(
        1.0 / 300, shrinking=True, finish=False, max_epochs=5, tol=0, random_state=0
    ).fit(*gaussian_problem(n=300, d=5))
    assert len(record.indices) == 5 and all(i.shape == (1,) for i in record.indices)


# ------------------------------------------------------------------ 4. determinism and API
@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_same_seed_same_bits(sampling):
    X, y = real_problem("cancer")

    def fit(seed):
        return SDCAClassifier(
            lmbd=1e-3,
            sampling=sampling,
            shrinking=True,
            finish=False,
            max_epochs=30,
            tol=0,
            random_state=seed,
        ).fit(X, y)

    a, b, c = fit(5), fit(5), fit(6)
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_array_equal(a.epoch_times_.shape, b.epoch_times_.shape)
    assert not np.array_equal(a.dual_coef_, c.dual_coef_)


def test_epoch_info_reports_the_active_set_and_true_sample_counts():
    X, y = real_problem("cancer")
    n = X.shape[0]
    infos = []
    SDCAClassifier(
        lmbd=1.0 / n,
        shrinking=True,
        finish=False,
        max_epochs=30,
        tol=0,
        random_state=0,
        callback=lambda info: infos.append((info.epoch, info.n_active, info.n_samples_seen)),
    ).fit(X, y)
    epochs, sizes, seen = np.array(infos).T
    assert sizes[0] == n and sizes.min() < n
    assert seen[0] == n and np.all(np.diff(seen) > 0)
    assert seen[-1] <= epochs[-1] * n  # never more than n steps per epoch
    plain = []
    SDCAClassifier(
        lmbd=1.0 / n,
        shrinking=False,
        max_epochs=3,
        tol=0,
        random_state=0,
        callback=lambda i: plain.append(i),
    ).fit(X, y)
    assert [(i.n_active, i.n_samples_seen) for i in plain] == [(n, n), (n, 2 * n), (n, 3 * n)]


@pytest.mark.parametrize("average", [True, "random"])
def test_shrinking_with_averaging_is_refused(average):
    X, y = real_problem("iris")
    with pytest.raises(ValueError, match="shrinking=True needs average=False"):
        SDCAClassifier(shrinking=True, average=average).fit(X, y)


def test_more_samples_than_the_passes_can_draw_are_refused():
    """The passes' bounded draws take 32 bits: 2**32 samples or more is a clear error (a
    stand-in problem: nothing of that size is allocated)."""

    class Huge:
        n_samples = 2**32

    with pytest.raises(ValueError, match=r"at most 2\*\*32 - 1 samples.*shrinking=False"):
        SDCAClassifier(shrinking=True)._check_problem(Huge())
    SDCAClassifier(shrinking=False)._check_problem(Huge())  # without shrinking: no limit


def test_callback_parameter_is_restored_after_fit():
    X, y = real_problem("iris")

    def callback(info):
        return None

    est = SDCAClassifier(shrinking=True, max_epochs=3, tol=0, callback=callback).fit(X, y)
    assert est.callback is callback and est.get_params()["callback"] is callback


# tol=0: 50 epochs, no stopping test (sklearn's random data is never solved to a tol in 50)
@parametrize_with_checks(
    [SDCAClassifier(shrinking=True, finish=False, tol=0, max_epochs=50, random_state=0)],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ the stopping test's cost
def test_the_check_schedule_follows_the_statistic_one_sided():
    """With a statistic, the exact gap is due once it predicts gap <= tol: at the threshold
    yes, just above it no; at least every GAP_CHECK_EVERY steps; without a usable reference,
    every step."""
    from sdca_pegasos.solvers.driver.loop import GAP_CHECK_EVERY, Bounds, CheckSchedule

    def after(gap, statistic, step, tol=1e-4):  # a schedule whose last check is this one
        schedule = CheckSchedule(tol)
        schedule.checked(step, Bounds(1.0, 1.0 - gap, gap), statistic)
        return schedule

    checked = after(1e-2, 4.0, 10)  # gap 1e-2 measured at statistic 4.0, step 10
    threshold = 4.0 * 1e-4 / 1e-2  # tol 1e-4: the statistic must fall 100-fold
    assert checked.due(11, threshold)
    assert not checked.due(11, threshold * (1 + 1e-12))
    assert checked.due(10 + GAP_CHECK_EVERY, threshold * 10)
    assert not checked.due(10 + GAP_CHECK_EVERY - 1, threshold * 10)
    assert CheckSchedule(1e-4).due(1, 5.0)  # the first step is always checked
    # overdue (a skipped step, a long one): due, whatever the statistic says
    assert checked.due(10 + GAP_CHECK_EVERY + 3, threshold * 10)
    assert after(1e-2, 4.0, 3).due(3 + 2 * GAP_CHECK_EVERY + 1, threshold * 10)
    # no usable reference (a gap or a statistic of 0 or less): due
    for reference in (0.0, -4.0):
        assert after(1e-2, reference, 10).due(11, threshold * 10)
    assert after(0.0, 4.0, 10).due(11, threshold * 10)


@pytest.mark.parametrize(("loss", "gamma"), [("hinge", 0.0), ("squared_hinge", 0.0)])
def test_shrinking_fit_pays_the_exact_gap_rarely_and_certifies_what_it_returns(loss, gamma):
    X, y = real_problem("cancer")
    lmbd = 1.0 / X.shape[0]
    gaps = []
    est = SDCAClassifier(
        lmbd,
        loss=loss,
        shrinking=True,
        finish=False,
        tol=1e-8,
        tol_gap="absolute",
        max_epochs=5000,
        random_state=0,
        callback=lambda info: gaps.append(info.gap),
        bias_multiplier=0.0,
    ).fit(X, y)
    computed = [g for g in gaps if g is not None]
    assert est.converged_ and est.duality_gap_ <= 1e-8
    assert est.duality_gap_ == computed[-1] and gaps[-1] is not None  # the stop is exact
    assert len(computed) <= len(gaps) / 3, (len(computed), len(gaps))
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    g = objectives.duality_gap(X, y_pm, est.coef_, est.dual_coef_, lmbd, est.loss_function)[2]
    assert g == pytest.approx(est.duality_gap_, rel=1e-9, abs=1e-15)
    # without shrinking there is no free statistic: the log-gap of the last two checks is
    # extrapolated (the first two epochs checked, then at least every GAP_CHECK_EVERY), and a
    # callback that needs every epoch's gap asks for it (info.bounds())
    from sdca_pegasos.solvers.driver.loop import GAP_CHECK_EVERY

    gaps.clear()
    every = []

    def both(info):
        gaps.append(info.gap)
        every.append(info.bounds()[2])

    est2 = SDCAClassifier(
        lmbd,
        shrinking=False,
        tol=1e-6,
        tol_gap="absolute",
        max_epochs=20,
        random_state=0,
        callback=both,
        bias_multiplier=0.0,
    )
    with pytest.warns(ConvergenceWarning):
        est2.fit(X, y)
    at = [k for k, g in enumerate(gaps) if g is not None]
    assert at[:2] == [0, 1] and len(at) < len(gaps) / 2, at
    assert max(np.diff(at)) <= GAP_CHECK_EVERY
    assert all(every[k] == gaps[k] for k in at) and all(e > 1e-6 for e in every)


def test_a_shrinking_fit_ending_at_max_epochs_reports_the_exact_final_gap():
    X, y = real_problem("cancer")
    lmbd = 1.0 / X.shape[0]
    est = SDCAClassifier(
        lmbd,
        shrinking=True,
        finish=False,
        tol=1e-14,
        max_epochs=7,
        random_state=0,
        bias_multiplier=0.0,
    )
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        est.fit(X, y)
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    g = objectives.duality_gap(X, y_pm, est.coef_, est.dual_coef_, lmbd)[2]
    assert g == pytest.approx(est.duality_gap_, rel=1e-9) and g > 1e-14


def test_the_docs_state_the_check_spacing_the_code_uses():
    """README and docs/scikit-learn.md say how often `tol` is checked with shrinking: the
    number they give is GAP_CHECK_EVERY (a change to it fails here until they follow)."""
    from pathlib import Path

    from sdca_pegasos.solvers.driver.loop import GAP_CHECK_EVERY

    root = Path(__file__).resolve().parents[1]
    for doc in ("README.md", "docs/scikit-learn.md"):
        text = (root / doc).read_text(encoding="utf-8")
        assert "predicts" in text and f"at least every {GAP_CHECK_EVERY}th" in text, doc
