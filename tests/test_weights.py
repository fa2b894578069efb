"""What a LinearSVC / SGDClassifier user reaches for: sample and class weights, one-vs-rest
multiclass, the squared hinge, warm starts, partial_fit, the λ path.

Every solver is held to a reference: its NumPy twin on the same index arrays (weights and
the squared hinge included), liblinear at the optimum (LinearSVC with C = 1/(λn) and the
same weights, class weights, loss and one-vs-rest), and the identities weighting must keep.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from sdca_pegasos.solvers import ASDCAClassifier, PegasosClassifier, SDCAClassifier, lambda_path
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import make_loss
from tests.reference import asdca_reference, pegasos_reference, sdca_loss_reference

SQUARED = make_loss("squared_hinge")


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(120, 8, n_informative=5, random_state=0)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def weights():
    w = np.random.default_rng(0).integers(0, 4, 120).astype(float)
    w[:3] = [0.0, 0.5, 2.5]
    return w


def liblinear(X, y, lmbd, sample_weight=None, **params):
    """LinearSVC at the optimum of our objective: C = 1/(λn), no intercept, tight tol."""
    C = objectives.lmbd_to_C(lmbd, X.shape[0])
    ref = LinearSVC(
        C=C, dual=True, tol=1e-12, max_iter=10**6, fit_intercept=False, random_state=0, **params
    )
    with warnings.catch_warnings():  # liblinear rarely meets 1e-12; ours is compared in P
        warnings.simplefilter("ignore", ConvergenceWarning)
        return ref.fit(X, y, sample_weight=sample_weight)


def tight(**params):
    """SDCA to a gap of 1e-13 on liblinear's problem without an intercept (plain SDCA unless
    ``params`` set shrinking; no exact finish)."""
    params = {"shrinking": False, "finish": False, **params}
    return SDCAClassifier(
        tol=1e-13,
        tol_gap="absolute",
        max_epochs=200_000,
        bias_multiplier=0.0,
        random_state=0,
        **params,
    )


def rel(a, b):
    return abs(a - b) / abs(b)


# ------------------------------------------------------------------ 1. sample weights
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_sample_weight_agrees_with_liblinear(binary, weights, loss):
    """P(ours) ≤ P(liblinear) + 1e-6 relative, and above our own certified dual."""
    X, y = binary
    lmbd = 0.05
    ours = tight(lmbd=lmbd, loss=loss).fit(X, y, sample_weight=weights)
    ref = liblinear(X, y, lmbd, weights, loss=loss)
    y_pm = np.where(y == 1, 1.0, -1.0)
    p_ours = objectives.primal(X, y_pm, ours.coef_, lmbd, make_loss(loss), 0.0, weights)
    p_ref = objectives.primal(X, y_pm, ref.coef_, lmbd, make_loss(loss), 0.0, weights)
    assert p_ours <= p_ref * (1 + 1e-6)
    assert rel(p_ours, p_ref) <= 1e-6
    assert 0.0 <= ours.duality_gap(X, y, sample_weight=weights) <= 1e-12
    a = y_pm * ours.dual_coef_  # the weighted box [0, c_i U]
    assert np.all(a >= 0) and np.all(a[weights == 0] == 0)
    if loss == "hinge":
        assert np.all(a <= weights + 1e-15)


def test_weight_zero_is_dropping_and_integer_weight_is_repeating(binary, weights):
    """At a fixed C = 1/(λn): weight 0 == the sample dropped, weight k == k copies."""
    X, y = binary
    lmbd = 0.05
    n = X.shape[0]
    weighted = tight(lmbd=lmbd).fit(X, y, sample_weight=weights)
    keep = weights > 0
    integer = np.where(keep, np.ceil(weights), 0).astype(int)
    integer[1], integer[2] = 1, 3  # the non-integer ones, made integer for this fit
    w_int = integer.astype(float)
    fit_int = tight(lmbd=lmbd).fit(X, y, sample_weight=w_int)
    X_rep, y_rep = np.repeat(X, integer, axis=0), np.repeat(y, integer)
    repeated = tight(lmbd=lmbd * n / X_rep.shape[0]).fit(X_rep, y_rep)
    assert_allclose(fit_int.coef_, repeated.coef_, rtol=1e-6, atol=1e-9)
    dropped = tight(lmbd=lmbd * n / keep.sum()).fit(X[keep], y[keep], sample_weight=weights[keep])
    assert_allclose(weighted.coef_, dropped.coef_, rtol=1e-6, atol=1e-9)


def test_weights_of_one_are_no_weights_bit_for_bit(binary):
    X, y = binary
    for est in (
        SDCAClassifier(0.05, shrinking=False, tol=1e-6, tol_gap="absolute", random_state=0),
        SDCAClassifier(
            0.05, shrinking=True, finish=False, tol=1e-6, tol_gap="absolute", random_state=0
        ),
        PegasosClassifier(max_epochs=5, random_state=0),
        ASDCAClassifier(max_epochs=5, tol=0, random_state=0),
    ):
        a = est.fit(X, y).coef_.copy()
        b = est.fit(X, y, sample_weight=np.ones(X.shape[0])).coef_
        assert_array_equal(a, b)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    ("loss", "kappa", "upper"),
    [("hinge", 0.0, 1.0), ("smooth_hinge", 0.7, 1.0), ("squared_hinge", 0.5, np.inf)],
)
def test_sdca_kernel_equals_twin_with_weights_and_every_loss(
    binary, weights, record_fit, loss, kappa, upper, sparse
):
    X, y = binary
    lmbd = 0.05
    record = record_fit(SDCAClassifier)
    Xf = sp.csr_matrix(X) if sparse else X
    est = SDCAClassifier(
        lmbd,
        loss=loss,
        gamma=0.7,
        shrinking=False,
        tol=0,
        max_epochs=3,
        random_state=5,
        bias_multiplier=1.0,
    ).fit(Xf, y, sample_weight=weights)
    y_pm = np.where(y == 1, 1.0, -1.0)
    w_ref, a_ref = sdca_loss_reference(
        X, y_pm, lmbd, record.indices, kappa=kappa, upper=upper, weights=weights, bias=1.0
    )
    assert_allclose(est.dual_coef_, a_ref, rtol=0, atol=1e-10)
    assert_allclose(est.coef_.ravel(), w_ref[:-1], rtol=0, atol=1e-10)


def test_pegasos_kernels_equal_twin_with_weights(binary, weights, record_fit):
    X, y = binary
    y_pm = np.where(y == 1, 1.0, -1.0)
    for batch_size in (1, 5):
        record = record_fit(PegasosClassifier)
        est = PegasosClassifier(
            0.1, batch_size=batch_size, max_epochs=2, random_state=3, bias_multiplier=1.0
        ).fit(X, y, sample_weight=weights)
        w_ref, _, _ = pegasos_reference(
            X, y_pm, 0.1, record.indices, batch_size=batch_size, bias=1.0, weights=weights
        )
        assert_allclose(est.coef_.ravel(), w_ref[:-1], rtol=0, atol=1e-10)


def test_asdca_kernel_equals_twin_with_weights(binary, weights, record_fit):
    X, y = binary
    y_pm = np.where(y == 1, 1.0, -1.0)
    record = record_fit(ASDCAClassifier)
    est = ASDCAClassifier(
        0.1, theta=0.3, batch_size=4, max_epochs=2, tol=0, random_state=3, bias_multiplier=0.0
    )
    est.fit(X, y, sample_weight=weights)
    w_ref, a_ref = asdca_reference(
        X, y_pm, 0.1, 1.0, 0.3, record.indices, batch_size=4, weights=weights
    )
    assert_allclose(est.coef_.ravel(), w_ref[:-1], rtol=0, atol=1e-10)
    assert_allclose(est.dual_coef_, a_ref, rtol=0, atol=1e-10)


def test_weighted_certificate_is_the_weighted_objective(binary, weights):
    """The gap the driver certifies is that of Σ c_i φ_i / n, whose dual box is [0, c_i]."""
    X, y = binary
    est = SDCAClassifier(0.05, tol=1e-9, max_epochs=10_000, random_state=0, bias_multiplier=0.0)
    est.fit(X, y, sample_weight=weights)
    y_pm = np.where(y == 1, 1.0, -1.0)
    cert = objectives.certificate(X, y_pm, est.coef_, est.dual_coef_, 0.05, 0.0, 0.0, weights)
    assert 0.0 <= cert["gap"] <= 1e-9
    assert cert["gap"] == pytest.approx(est.duality_gap_, rel=1e-6, abs=1e-14)
    with pytest.raises(ValueError, match="infeasible"):  # the unweighted box is not this one
        objectives.certificate(X, y_pm, est.coef_, est.dual_coef_ * 3, 0.05, 0.0, 0.0, weights)


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (-np.ones(120), "Negative values"),
        (np.zeros(120), "at least one"),
        (np.ones(7), "7"),
    ],
)
def test_bad_sample_weight_is_refused(binary, bad, match):
    X, y = binary
    with pytest.raises(ValueError, match=match):
        SDCAClassifier().fit(X, y, sample_weight=bad)


# ------------------------------------------------------------------ 2. class weights
@pytest.mark.parametrize("class_weight", [{0: 3.0, 1: 0.5}, "balanced"])
def test_class_weight_binary_agrees_with_liblinear(binary, weights, class_weight):
    X, y = binary
    y = np.where(np.arange(y.shape[0]) % 5 == 0, 1, y)  # unbalanced, for "balanced"
    lmbd = 0.05
    ours = tight(lmbd=lmbd, class_weight=class_weight).fit(X, y, sample_weight=weights)
    ref = liblinear(X, y, lmbd, weights, loss="hinge", class_weight=class_weight)
    counts = np.bincount(y, weights=weights)  # "balanced" counts weighted by sample_weight
    total = counts.sum()
    cw = class_weight if isinstance(class_weight, dict) else dict(enumerate(total / (2 * counts)))
    c = weights * np.array([cw[label] for label in y])  # sample_weight × class weight
    y_pm = np.where(y == 1, 1.0, -1.0)
    p_ours = objectives.primal(X, y_pm, ours.coef_, lmbd, 0.0, 0.0, c)
    p_ref = objectives.primal(X, y_pm, ref.coef_, lmbd, 0.0, 0.0, c)
    cert = objectives.certificate(X, y_pm, ours.coef_, ours.dual_coef_, lmbd, 0.0, 0.0, c)
    assert cert["rel_gap"] <= 1e-12 and cert["dual"] <= p_ref
    assert rel(p_ours, p_ref) <= 1e-6


def test_class_weight_one_vs_rest_weights_the_positive_class_only(iris):
    """LinearSVC's and SGDClassifier's one-vs-rest: problem k weighs class k by its weight,
    the rest by 1."""
    X, y = iris
    lmbd = 0.01
    cw = {0: 2.0, 1: 0.3, 2: 5.0}
    ours = tight(lmbd=lmbd, class_weight=cw).fit(X, y)
    ref = liblinear(X, y, lmbd, loss="hinge", class_weight=cw)
    for k in range(3):
        y_pm = np.where(y == k, 1.0, -1.0)
        c = np.where(y == k, cw[k], 1.0)
        p_ours = objectives.primal(X, y_pm, ours.coef_[k], lmbd, 0.0, 0.0, c)
        p_ref = objectives.primal(X, y_pm, ref.coef_[k], lmbd, 0.0, 0.0, c)
        assert p_ours <= p_ref * (1 + 1e-6), k


def test_class_weight_naming_an_unknown_class_is_refused(binary):
    X, y = binary
    with pytest.raises(ValueError, match="not in y's classes"):
        SDCAClassifier(class_weight={0: 1.0, 7: 2.0}).fit(X, y)


# ------------------------------------------------------------------ 3. one-vs-rest
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_one_vs_rest_agrees_with_liblinear_per_problem(iris, loss):
    X, y = iris
    lmbd = 0.01
    ours = tight(lmbd=lmbd, loss=loss).fit(X, y)
    ref = liblinear(X, y, lmbd, loss=loss)
    assert ours.coef_.shape == (3, 4) and ours.intercept_.shape == (3,)
    assert ours.dual_coef_.shape == (3, 150)
    for k in range(3):
        y_pm = np.where(y == k, 1.0, -1.0)
        p_ours = objectives.primal(X, y_pm, ours.coef_[k], lmbd, make_loss(loss))
        p_ref = objectives.primal(X, y_pm, ref.coef_[k], lmbd, make_loss(loss))
        assert p_ours <= p_ref * (1 + 1e-6), k
        assert rel(p_ours, p_ref) <= 1e-6 or p_ours < p_ref
    scores = ours.decision_function(X)
    assert scores.shape == (150, 3)
    assert_array_equal(ours.predict(X), ours.classes_[np.argmax(scores, axis=1)])
    assert np.all(ours.duality_gap_ <= 1e-13) and ours.duality_gap_.shape == (3,)
    assert_allclose(ours.duality_gap(X, y), ours.duality_gap_, rtol=1e-6, atol=1e-15)


@pytest.mark.parametrize("cls", [SDCAClassifier, PegasosClassifier, ASDCAClassifier])
def test_every_estimator_fits_one_vs_rest_with_string_labels(iris, cls):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    est = cls(lmbd=0.01, max_epochs=30, random_state=0, **({"tol": 0} if cls().has_dual else {}))
    epochs = []
    est.set_params(callback=lambda info: epochs.append(info.positive_class))
    est.fit(X, names)
    assert est.classes_.tolist() == ["setosa", "versicolor", "virginica"]
    assert est.coef_.shape == (3, 4)
    # per-class epoch records: every class's 30 epochs, in class order
    assert epochs == ["setosa"] * 30 + ["versicolor"] * 30 + ["virginica"] * 30
    assert len(est.epoch_times_) == 3 and est.n_epochs_.tolist() == [30, 30, 30]
    assert np.mean(est.predict(X) == names) > 0.8


def test_binary_fit_of_two_classes_keeps_its_shapes(binary):
    X, y = binary
    est = SDCAClassifier(0.05, tol=1e-6, random_state=0).fit(X, y)
    assert est.coef_.shape == (1, 8) and est.dual_coef_.shape == (120,)
    assert isinstance(est.n_epochs_, int | np.integer) and np.ndim(est.duality_gap_) == 0


# ------------------------------------------------------------------ 4. squared hinge
@pytest.mark.parametrize("shrinking", [False, True])
def test_squared_hinge_is_certified_and_agrees_with_liblinear(binary, shrinking):
    X, y = binary
    lmbd = 0.01
    ours = tight(lmbd=lmbd, loss="squared_hinge", shrinking=shrinking).fit(X, y)
    ref = liblinear(X, y, lmbd, loss="squared_hinge")
    y_pm = np.where(y == 1, 1.0, -1.0)
    p_ours = objectives.primal(X, y_pm, ours.coef_, lmbd, SQUARED)
    p_ref = objectives.primal(X, y_pm, ref.coef_, lmbd, SQUARED)
    assert rel(p_ours, p_ref) <= 1e-6 and p_ours <= p_ref * (1 + 1e-9)
    assert ours.converged_ and 0.0 <= ours.duality_gap_ <= 1e-13
    cert = objectives.certificate(X, y_pm, ours.coef_, ours.dual_coef_, lmbd, SQUARED)
    assert cert["gap"] <= 1e-12 and cert["dual"] <= p_ref
    assert np.max(y_pm * ours.dual_coef_) > 1.0  # the box has no top: some a_i exceed 1


# ------------------------------------------------------------------ 5. warm start
def test_warm_start_at_the_same_lmbd_starts_at_the_optimum(binary):
    X, y = binary
    est = SDCAClassifier(
        0.05,
        shrinking=False,
        tol=1e-10,
        tol_gap="absolute",
        max_epochs=10_000,
        random_state=0,
        warm_start=True,
    )
    cold_epochs = est.fit(X, y).n_epochs_
    first_gap = []
    est.set_params(callback=lambda info: first_gap.append(info.gap)).fit(X, y)
    # one more pass moves the point a little (the primal is not monotone): within 1e-9
    assert first_gap[0] <= 1e-9 and 10 * est.n_epochs_ <= cold_epochs


@pytest.mark.parametrize("cls", [SDCAClassifier, ASDCAClassifier])
def test_warm_start_keeps_the_dual_point_and_recomputes_w(binary, cls):
    """The next fit's first epoch starts from the last α, with w(α) for the new λ."""
    X, y = binary
    est = cls(
        lmbd=0.1, tol=1e-8, tol_gap="absolute", max_epochs=5000, random_state=0, warm_start=True
    ).fit(X, y)
    alpha = est.dual_coef_.copy()
    est.set_params(lmbd=0.02, max_epochs=1, tol=0)
    # the starting point: the last α with w(α) for the new λ, far better than zero
    y_pm = np.where(y == 1, 1.0, -1.0)
    w0 = objectives.dual_weights(X, alpha, 0.02)
    start_gap = objectives.duality_gap(X, y_pm, w0, alpha, 0.02, est.loss_function)[2]
    cold_gap = objectives.duality_gap(X, y_pm, np.zeros(9), np.zeros(120), 0.02, 0)[2]
    assert start_gap < cold_gap
    est.fit(X, y)
    if cls is ASDCAClassifier:  # its momentum, restarted, gives no such guarantee
        return
    # one epoch from that start is better than one epoch from zero
    cold = cls(lmbd=0.02, tol=0, max_epochs=1, random_state=0).fit(X, y)
    gap_warm = objectives.duality_gap(X, y_pm, est.coef_, est.dual_coef_, 0.02, est.loss_function)[
        2
    ]
    gap_cold = objectives.duality_gap(
        X, y_pm, cold.coef_, cold.dual_coef_, 0.02, est.loss_function
    )[2]
    assert gap_warm < gap_cold


def test_warm_start_refuses_what_it_cannot_continue(binary, iris):
    X, y = binary
    est = SDCAClassifier(0.05, tol=1e-4, random_state=0, warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="dual point, of 120 samples, but X has 60"):
        est.fit(X[:60], y[:60])
    with pytest.raises(ValueError, match="fit the same classes"):
        est.fit(X, np.where(y == 1, 5, y))
    with pytest.raises(ValueError, match="8 features, but X has 4"):
        est.fit(X[:, :4], y)


def test_lambda_path_certifies_every_lmbd(binary):
    """Each λ to the relative gap, warm or cold (their CPU time: benchmarks/lambda_path.py)."""
    X, y = binary
    lmbds = [1.0, 0.3, 0.1, 0.03, 0.01, 1 / 120]
    warm = lambda_path(
        SDCAClassifier(max_epochs=50_000, random_state=0, bias_multiplier=0.0), X, y, lmbds
    )
    cold = lambda_path(
        SDCAClassifier(max_epochs=50_000, random_state=0, bias_multiplier=0.0),
        X,
        y,
        lmbds,
        warm=False,
    )
    y_pm = np.where(y == 1, 1.0, -1.0)
    for pw, pc in zip(warm, cold, strict=True):
        assert pw.reached and pc.reached and pw.rel_gap <= 1e-6
        cert = objectives.certificate(X, y_pm, pw.coef, pw.dual_coef, pw.lmbd)
        assert cert["rel_gap"] == pytest.approx(pw.rel_gap, rel=1e-6, abs=1e-16)
        assert_allclose(pw.coef, pc.coef, rtol=0, atol=1e-3 * np.abs(pc.coef).max())


def test_lambda_path_with_shrinking_pays_for_few_exact_gaps(binary, monkeypatch):
    """With shrinking, a path's fits compute the exact gap only when the KKT statistic
    predicts the relative target (the driver's rare test, now relative), not after every
    epoch as a callback would; every λ still certified, and each fit stopped at the first
    exact gap within rel_gap·P. Kills a path that checks every epoch, and a relative test
    that is absolute (P is not 1 here: an absolute 1e-6 stops elsewhere)."""
    from sdca_pegasos.solvers.core.monitoring import EpochMetrics

    X, y = binary
    calls = []
    real = EpochMetrics.__call__  # what the fit loop's checks compute the gap with

    def counted(self, *args, **kwargs):
        out = real(self, *args, **kwargs)
        calls.append((out["primal"], out["dual"], out["gap"]))
        return out

    monkeypatch.setattr(EpochMetrics, "__call__", counted)
    lmbds = [1.0, 0.1, 0.01, 1 / 120]
    est = SDCAClassifier(max_epochs=50_000, random_state=0, shrinking=True, finish=False)
    points = lambda_path(est, X, y, lmbds, rel_gap=1e-6)
    epochs = sum(p.n_epochs for p in points)
    assert all(p.reached for p in points)
    assert 0 < len(calls) <= epochs / 2, (len(calls), epochs)
    primal, _, gap = calls[-1]  # the last λ's stopping check
    assert gap <= 1e-6 * primal and gap > 1e-6 * primal / 100  # relative, not tighter


def test_lambda_path_says_which_lmbd_it_did_not_reach(binary):
    X, y = binary
    with pytest.warns(ConvergenceWarning, match=r"relative gap 1e-06 at lmbd=0.001"):
        points = lambda_path(SDCAClassifier(max_epochs=2, random_state=0), X, y, [1e-3])
    assert not points[0].reached and points[0].rel_gap > 1e-6


# ------------------------------------------------------------------ 6. partial_fit
def test_partial_fit_is_one_pegasos_run_over_the_chunks(binary, record_fit):
    """Chunks through partial_fit == the twin over the same index arrays, t carried on."""
    X, y = binary
    y_pm = np.where(y == 1, 1.0, -1.0)
    record = record_fit(PegasosClassifier)
    est = PegasosClassifier(0.1, random_state=0, bias_multiplier=0.0)
    w = None
    t = 0
    for start in range(0, 120, 40):
        chunk = slice(start, start + 40)
        est.partial_fit(X[chunk], y[chunk], classes=[0, 1])
        assert est.t_ == t + 40
        w_ref, _, _ = pegasos_reference(
            X[chunk], y_pm[chunk], 0.1, record.indices, t_start=t, w_start=w
        )
        assert_allclose(est.coef_.ravel(), w_ref[:-1], rtol=1e-12, atol=1e-12)
        w, t = w_ref, est.t_


def test_partial_fit_rules(binary, iris):
    X, y = binary
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        PegasosClassifier().partial_fit(X, y)
    est = PegasosClassifier(lmbd=1e-3, random_state=0)
    est.partial_fit(X[:10], y[:10], classes=[0, 1])
    with pytest.raises(ValueError, match="differs from the first call"):
        est.partial_fit(X[10:20], y[10:20], classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"outside classes \[0, 1\]"):
        est.partial_fit(X[10:20], np.full(10, 3))
    with pytest.raises(ValueError, match="partial_fit keeps the last iterate"):
        PegasosClassifier(average=True).partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="balanced"):
        PegasosClassifier(class_weight="balanced").partial_fit(X, y, classes=[0, 1])
    Xi, yi = iris  # one-vs-rest chunks, a chunk missing a class
    est = PegasosClassifier(0.01, random_state=0)
    for start in range(0, 150, 30):
        est.partial_fit(Xi[start : start + 30], yi[start : start + 30], classes=[0, 1, 2])
    assert est.coef_.shape == (3, 4) and est.t_.tolist() == [150, 150, 150]


def test_partial_fit_with_lmbd_auto_keeps_the_lmbd_its_stream_started_with(binary):
    """lmbd="auto" (the default) in a stream: λ = 1/n of the first call's rows, kept by every
    later call whatever their size (the steps 1/(λt) of one run need one λ): the same bits as
    that λ passed as a number, and ``lmbd_`` says it. After a ``fit``, the stream goes on
    with the fit's λ. (It was refused: scikit-learn's partial_fit checks failed on the
    defaults.)"""
    X, y = binary
    auto = PegasosClassifier(random_state=0)
    number = PegasosClassifier(lmbd=1 / 40, random_state=0)
    for chunk in (slice(0, 40), slice(40, 70), slice(70, 120)):  # 40, then 30 and 50 rows
        auto.partial_fit(X[chunk], y[chunk], classes=[0, 1])
        number.partial_fit(X[chunk], y[chunk], classes=[0, 1])
        assert auto.lmbd_ == number.lmbd_ == 1 / 40
        assert_array_equal(auto.coef_, number.coef_)
        assert_array_equal(auto.intercept_, number.intercept_)
    assert auto.t_ == 120 and auto.get_params()["lmbd"] == "auto"
    fitted = PegasosClassifier(max_epochs=2, random_state=0).fit(X, y)  # λ = 1/120
    fixed = PegasosClassifier(lmbd=1 / 120, max_epochs=2, random_state=0).fit(X, y)
    fitted.partial_fit(X[:30], y[:30])
    fixed.partial_fit(X[:30], y[:30])
    assert fitted.lmbd_ == 1 / 120 and fitted.t_ == fixed.t_ == 270
    assert_array_equal(fitted.coef_, fixed.coef_)


def test_weights_that_empty_a_class_are_refused_by_name(binary):
    """scikit-learn's one-label check: the message names the class (no silent NaN)."""
    X, y = binary
    only_ones = (y == 1).astype(float)
    with pytest.raises(ValueError, match="0 on every sample of class 0"):
        SDCAClassifier().fit(X, y, sample_weight=only_ones)
    with pytest.raises(ValueError, match=r"'balanced' divides .* which is 0 for class 0"):
        SDCAClassifier(class_weight="balanced").fit(X, y, sample_weight=only_ones)
    # class weights given by the user divide by nothing: the message is the first one's
    with pytest.raises(ValueError, match="0 on every sample of class 0") as info:
        SDCAClassifier(class_weight={0: 2.0, 1: 1.0}).fit(X, y, sample_weight=only_ones)
    assert "balanced" not in str(info.value)
