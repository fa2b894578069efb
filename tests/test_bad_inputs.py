"""No silent wrong answer (issue 12): unconverged fits warn, overflowing inputs are refused.

Every solver shares the driver (``sdca_pegasos.solvers.driver.estimator``): the ConvergenceWarning
when ``max_epochs`` ends a fit whose ``tol`` was not met, the scale checks before the fit and the
finiteness check of what a fit returns."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos import solvers
from sdca_pegasos.solvers import ASDCAClassifier, PegasosClassifier, SDCAClassifier, gpu
from sdca_pegasos.solvers.driver import estimator as base_module
from sdca_pegasos.solvers.driver import targets as targets_module
from tests.conftest import engine_class, gaussian_problem
from tests.reference import dual_reference, primal_reference

SOLVERS = [SDCAClassifier, PegasosClassifier, ASDCAClassifier]
DUAL_SOLVERS = [SDCAClassifier, ASDCAClassifier]


def gamma_of(est) -> float:
    """The smoothing of the estimator's loss (the references take γ; 0 is the hinge)."""
    loss = est.loss_function
    assert loss.upper == 1.0, "the NumPy references cover the (smoothed) hinge"
    return loss.kappa


# ------------------------------------------------------------------ ConvergenceWarning
@pytest.mark.parametrize("cls", DUAL_SOLVERS)
def test_max_epochs_before_tol_warns_with_the_gap_reached(small, cls):
    """The issue's case: tol=1e-12, max_epochs=2. The message carries the gap of the last
    iterate, which is the exact P - D recomputed independently, and it is above tol."""
    X, y = small
    est = cls(lmbd=0.05, tol=1e-12, max_epochs=2, bias_multiplier=0.0, random_state=0)
    with pytest.warns(ConvergenceWarning) as record:
        est.fit(X, y)
    assert len(record) == 1
    message = str(record[0].message)
    match = re.search(
        r"duality gap (\S+) > tol=1e-12 after max_epochs=2 \(last iterate\)\.", message
    )
    assert match, message
    w = np.append(est.coef_.ravel(), 0.0)
    gamma = gamma_of(est)
    gap = primal_reference(X, y, w, 0.05, gamma) - dual_reference(
        X, y, est.dual_coef_, 0.05, gamma
    )
    assert float(match[1]) == pytest.approx(gap, rel=5e-3)  # printed to 3 digits
    assert gap > 1e-12 and not est.converged_ and est.n_epochs_ == 2
    assert "Increase max_epochs" in message
    assert record[0].filename == __file__, "the warning points at the caller's fit"


@pytest.mark.parametrize(
    ("device", "classes", "detail"),
    [
        ("cpu", 3, r" \(last iterate, class 2\)"),  # one-vs-rest names the class
        ("cuda", 2, r" \(last iterate, device='cuda'\)"),  # the simulator without a GPU
    ],
)
def test_one_convergence_warning_for_every_fit(device, classes, detail):
    """The CPU fits and the GPU's say the same sentence (one ``warn_unconverged``): the
    gap against tol, max_epochs, what the fit adds, the fix, at the caller's line."""
    if device == "cuda" and not gpu.available():
        pytest.skip("no GPU and no simulator")
    X, y = gaussian_problem(n=60, d=4, seed=2)
    y = np.arange(60) % classes if classes > 2 else y
    est = SDCAClassifier(lmbd=0.05, tol=1e-14, max_epochs=2, device=device, random_state=0)
    with pytest.warns(ConvergenceWarning) as record:
        est.fit(X, y)
    message = str(record[-1].message)
    pattern = (
        r"^SDCAClassifier did not converge: duality gap \S+ > tol=1e-14 after max_epochs=2"
        + detail
        + r"\. Increase max_epochs or tol \(or pass tol=0 to run a fixed number of epochs\)\.$"
    )
    assert re.match(pattern, message), message
    assert all(r.filename == __file__ for r in record), "each points at the caller's fit"


@pytest.mark.parametrize("cls", DUAL_SOLVERS)
@pytest.mark.parametrize(
    "params",
    [
        {"tol": 1e-3, "max_epochs": 10_000},  # met: stops early
        {"tol": 0, "max_epochs": 2},  # no criterion (the experiment engine's setting)
        {"tol": None, "max_epochs": 2},
        {"tol": 1e-12, "max_epochs": 5, "callback": lambda info: info.epoch == 2},  # caller
    ],
)
def test_no_warning_when_the_criterion_is_met_absent_or_the_caller_stops(small, cls, params):
    X, y = small
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = cls(tol_gap="absolute", lmbd=0.05, random_state=0, **params).fit(X, y)
    if params["tol"]:
        assert est.converged_ == (params["tol"] == 1e-3)


def test_pegasos_has_no_criterion_and_never_warns(small):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PegasosClassifier(lmbd=0.05, max_epochs=2, random_state=0).fit(*small)


@pytest.mark.parametrize(
    ("cls", "params"), [(SDCAClassifier, {}), (ASDCAClassifier, {"theta": 0.5})]
)
def test_warm_up_fits_do_not_warn(small, monkeypatch, cls, params):
    """The warm-up's 2-epoch fit on 8 samples never meets tol=1e-8; the real fit does."""
    monkeypatch.setattr(base_module, "WARMED", set())  # force the warm-up fit
    est = cls(
        lmbd=0.05, tol=1e-8, tol_gap="absolute", max_epochs=100_000, random_state=0, **params
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.fit(*small)
    assert base_module.WARMED and est.converged_


# ------------------------------------------------------------------ overflow and underflow
@pytest.mark.parametrize("cls", SOLVERS)
@pytest.mark.parametrize(
    ("scale", "lmbd", "match"),
    [
        (1e200, 1e-3, r"X is too large for float64: a squared row norm \|\|x_i\|\|\^2 overflows"),
        (1e150, 1e-3, r"lmbd=0.001 is too small for the scale of X"),
        (1.0, 1e-300, r"lmbd=1e-300 is too small for the scale of X"),
        (1.0, 5e-324, r"1/\(lmbd \* n_samples\) = inf overflows"),
    ],
)
def test_overflowing_scale_raises_a_clear_error(small, cls, scale, lmbd, match):
    """Before: X * 1e200 gave w = 0 (SDCA, ASDCA: ‖x‖² = inf makes every step 0) or
    ~1e200 (Pegasos), λ = 1e-300 gave w = 0 (ASDCA) or ~1e298 (Pegasos), silently."""
    X, y = small
    est = cls(lmbd=lmbd, max_epochs=3, random_state=0)
    with pytest.raises(ValueError, match=match) as info:
        est.fit(X * scale, y)
    assert (
        "Scale the features" in str(info.value)
        or "larger lmbd" in str(info.value)
        or ("Use lmbd >=" in str(info.value))
    )
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize("cls", SOLVERS)
def test_overflowing_bias_multiplier_raises_a_clear_error(small, cls):
    """B = 1e200 makes the bias feature's B² overflow (it raised OverflowError in the check)."""
    with pytest.raises(ValueError, match=r"bias_multiplier = 1e\+200"):
        cls(bias_multiplier=1e200, max_epochs=2).fit(*small)


def test_the_exact_row_norms_decide_when_the_cheap_bound_fails():
    """R² <= d·max|X|² is checked first; one large entry per row makes that bound 4x too
    big (4e304/λ > 1e300) while the true ‖x‖²/λ = 5e299 is accepted."""
    X, y = gaussian_problem(n=20, d=4, seed=0)
    X[:, 1:] *= 1e-3
    X[:, 0] = 1e152
    est = SDCAClassifier(lmbd=2e4, tol=0, max_epochs=3, random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and np.any(est.coef_ != 0)


@pytest.mark.parametrize("cls", SOLVERS)
def test_extreme_but_representable_scale_is_scale_equivariant(small, cls):
    """(cX, c²λ) has the optimum w/c and, step for step, the iterates w_t/c: the same fit
    at c = 1e150 (‖x‖² ~ 1e301, λ = 1e297) is the plain one divided by c."""
    X, y = small
    c = 1e150
    params = {"max_epochs": 3, "bias_multiplier": 0.0, "random_state": 0}  # B is not scaled
    if cls is not PegasosClassifier:
        params["tol"] = 0
    plain = cls(lmbd=0.05, **params).fit(X, y)
    scaled = cls(lmbd=0.05 * c * c, **params).fit(X * c, y)
    assert_allclose(scaled.coef_ * c, plain.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("scale", "lmbd"), [(1e-200, 1e-3), (1.0, 1e300)])
def test_vanishing_scale_gives_the_exact_optimum(small, scale, lmbd):
    """‖x‖² underflowing to 0 (X * 1e-200) or a huge λ are not errors: every margin is
    ~0 < 1, so every a_i = 1 and w* = Σ y_i x_i / (λn) exactly. SDCA gets it in one epoch;
    Pegasos with permutation sampling lands on it at every epoch end (all samples below
    margin 1: w_T = Σ_t y_{i_t} x_{i_t} / (λT))."""
    X, y = small
    X = X * scale
    w_star = X.T @ y / (lmbd * X.shape[0])
    sdca = SDCAClassifier(lmbd=lmbd, tol=0, max_epochs=2, random_state=0, bias_multiplier=0.0).fit(
        X, y
    )
    assert_allclose(sdca.coef_.ravel(), w_star, rtol=1e-12, atol=0)
    assert_allclose(y * sdca.dual_coef_, 1.0)
    peg = PegasosClassifier(
        lmbd=lmbd, sampling="permutation", max_epochs=2, random_state=0, bias_multiplier=0.0
    ).fit(X, y)
    assert_allclose(peg.coef_.ravel(), w_star, rtol=1e-12, atol=0)
    # ASDCA: each visit moves a_i a fraction θ = 1/4 towards 1 and e = w - w(α) decays like
    # (3/4)^t: after 200 epochs (1500 iterations, ~200 visits per sample) both are exact
    asdca = ASDCAClassifier(
        lmbd=lmbd, tol=0, max_epochs=200, random_state=0, bias_multiplier=0.0
    ).fit(X, y)
    assert asdca.theta_ == 0.25  # R² = 0 (underflow) or γλn/R² huge: the formula's cap
    assert_allclose(asdca.coef_.ravel(), w_star, rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"lmbd": 1e-200}, r"theta=\S+ \(the paper's theta for gamma\*lmbd\*n/R\^2 = \S+\)"),
        ({"lmbd": 1e-3, "gamma": 1e-300}, r"the paper's theta"),
        ({"lmbd": 1e-3, "theta": 1e-300}, r"theta=1e-300 \(theta\) is below float64 resolution"),
    ],
)
def test_asdca_theta_below_resolution_raises(small, params, match):
    """1 − θ == 1 in float64: the iteration cannot leave w = 0 (before: w = 0, silently)."""
    est = ASDCAClassifier(max_epochs=3, random_state=0, **params)
    with pytest.raises(ValueError, match=match):
        est.fit(*small)


def test_asdca_theta_just_above_resolution_is_accepted(small):
    ASDCAClassifier(lmbd=1e-3, theta=1e-15, tol=0, max_epochs=1, random_state=0).fit(*small)


@pytest.mark.parametrize("cls", SOLVERS)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_output_is_never_stored(small, monkeypatch, cls, bad):
    """Whatever happens inside a fit, non-finite coefficients are an error, not a model."""
    engine = engine_class(cls)
    output = engine.output

    def poisoned(self):
        w, dual = output(self)
        w = w.copy()
        w[0] = bad
        return w, dual

    X, y = small
    params = {"lmbd": 0.05, "max_epochs": 2, "random_state": 0}
    if cls is not PegasosClassifier:
        params["tol"] = 0
    cls(**params).fit(X, y)  # warm up with the real hooks
    monkeypatch.setattr(engine, "output", poisoned)
    est = cls(**params)
    with pytest.raises(ValueError, match="diverged to non-finite coefficients"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")


def test_numeric_label_fast_path_agrees_with_sklearns_checks():
    """Two integral numeric classes skip sklearn's type_of_target (1 ms a fit); every other
    label set still goes through it, with its errors."""
    X, y = gaussian_problem(n=40, d=4, seed=3)
    positive = y > 0
    fits = {}
    for name, labels in {
        "float ±1": y,
        "int 3/7": np.where(positive, 7, 3),
        "bool": positive,
        "str": np.where(positive, "yes", "no"),  # not numeric: sklearn's path
    }.items():
        est = SDCAClassifier(lmbd=0.1, max_epochs=3, tol=0, random_state=0).fit(X, labels)
        assert est.classes_[1] == labels[positive][0], name
        fits[name] = est.coef_
    for name, coef in fits.items():
        assert np.array_equal(coef, fits["float ±1"]), name
    with pytest.raises(ValueError, match="Unknown label type"):
        SDCAClassifier(lmbd=0.1).fit(X, np.where(positive, 1.5, 0.5))
    three = SDCAClassifier(lmbd=0.1, max_epochs=3, tol=0).fit(X, np.arange(40) % 3)
    assert three.classes_.tolist() == [0, 1, 2] and three.coef_.shape == (3, 4)  # one-vs-rest


def test_integral_float_labels_take_the_fast_path_and_others_sklearns(small, monkeypatch):
    """Two integral float classes ({-1., 1.}, {0., 1.}, {3., 7.}) are read without sklearn's
    label checks (the fast path's purpose); non-integral or infinite float labels go through
    them and are refused with their message (the mutation survivor _base.py:923 sent every
    float label set down one path or the other). Infinite labels never get here:
    sklearn's ``validate_data`` refuses them first."""
    X, y = small
    positive = y > 0
    calls = []
    checks = targets_module.check_classification_targets
    monkeypatch.setattr(
        targets_module, "check_classification_targets", lambda t: calls.append(t) or checks(t)
    )
    for lo, hi in [(-1.0, 1.0), (0.0, 1.0), (3.0, 7.0)]:
        labels = np.where(positive, hi, lo)
        est = SDCAClassifier(lmbd=0.1, max_epochs=2, tol=0, random_state=0).fit(X, labels)
        assert est.classes_.tolist() == [lo, hi] and est.classes_.dtype == np.float64
    assert calls == [], "integral float labels skip sklearn's checks"
    for lo, hi in [(0.5, 1.5), (0.0, 0.25)]:
        with pytest.raises(ValueError, match="Unknown label type"):
            SDCAClassifier(lmbd=0.1, max_epochs=2).fit(X, np.where(positive, hi, lo))
    assert len(calls) == 2, "each non-integral label set went through sklearn's checks"


def test_warm_start_from_an_intercept_needs_a_bias_multiplier(small):
    """A fit with an intercept (B > 0) continues warm with B > 0, from where it stopped; with
    B = 0 the intercept has nowhere to go, so the warm start is refused, naming both fixes,
    and the fitted model is left as it was (the mutation survivor _base.py:573). A fit
    without an intercept continues with B = 0."""
    X, y = small
    first_gaps = []

    def first_gap(info):
        if info.epoch == 1:
            first_gaps.append(info.gap)

    for bias in (1.0, 0.0):
        est = SDCAClassifier(
            lmbd=0.05, bias_multiplier=bias, tol=1e-9, max_epochs=5000, random_state=0
        )
        est.set_params(warm_start=True).fit(X, y)
        assert bool(est.intercept_[0] != 0.0) is (bias > 0.0)
        est.set_params(callback=first_gap).fit(X, y)  # from the optimum: gap ~ 0 at once
        assert first_gaps[-1] <= 1e-8 and est.n_epochs_ <= 2
    message = (
        "warm_start=True with bias_multiplier=0 cannot start from a fit with an intercept: "
        "keep bias_multiplier or set warm_start=False."
    )
    signs = []
    for labels in (y, -y):  # an intercept of either sign
        est = SDCAClassifier(lmbd=0.05, bias_multiplier=1.0, tol=1e-6, max_epochs=5000)
        est.set_params(warm_start=True, random_state=0).fit(X, labels)
        coef, intercept = est.coef_.copy(), est.intercept_.copy()
        signs.append(np.sign(intercept[0]))
        est.set_params(bias_multiplier=0.0)
        with pytest.raises(ValueError, match=re.escape(message)):
            est.fit(X, labels)
        assert np.array_equal(est.coef_, coef) and np.array_equal(est.intercept_, intercept)
        est.set_params(warm_start=False).fit(X, labels)  # the other fix
        assert est.intercept_.tolist() == [0.0]
    assert sorted(signs) == [-1.0, 1.0]


def _suggested(message: str, before: str) -> float:
    """The number the message suggests after ``before``."""
    return float(re.search(re.escape(before) + r"\s*([0-9.]+e[-+][0-9]+)", message).group(1))


@pytest.mark.parametrize("lmbd", [0.0, -1.0, np.nan, np.inf, np.float64(0.0)])
def test_check_lmbd_refuses_what_the_estimators_refuse(lmbd):
    """sdca_pegasos.solvers.check_lmbd, called directly: λ = 0 was a ZeroDivisionError (a NumPy
    zero, a RuntimeWarning and a message that λ is too small), λ = -1 and λ = inf passed, λ = nan
    was 'too small'. Now each is the estimators' refusal, said in words."""
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match=r"lmbd must be a positive finite number, got "):
        solvers.check_lmbd(X, lmbd)


def test_the_scale_error_quotes_its_ratio():
    """The 'too small for the scale of X' message quotes max ||x_i||^2 / lmbd, the number it
    compares with 1e300 (bias multiplier included)."""
    X, _ = gaussian_problem(n=30, d=4, seed=0)
    r2 = float(np.max(np.einsum("ij,ij->i", X, X))) + 1.0
    with pytest.raises(ValueError, match="too small for the scale of X") as info:
        solvers.check_lmbd(X, 1e-300, bias=1.0)
    quoted = float(re.search(r"max \|\|x_i\|\|\^2 / lmbd = (\S+) exceeds", str(info.value))[1])
    assert quoted == pytest.approx(r2 / 1e-300, rel=1e-2)


def test_the_scale_check_holds_for_entries_below_one():
    """The cheap bound d·max|X|² on max ||x_i||² must bound it for entries below 1 as well
    (a cube, smaller there, let λ = 6e-301 through on rows of 0.5 whose ||x||²/λ is 1.7e300;
    the mutation survivor _scales.py:67)."""
    X = np.full((3, 4), 0.5)
    with pytest.raises(
        ValueError, match=r"max \|\|x_i\|\|\^2 / lmbd = 1.67e\+300 exceeds"
    ) as info:
        solvers.check_lmbd(X, 6e-301)
    solvers.check_lmbd(X, _suggested(str(info.value), "Use lmbd >="))  # what it suggests passes


def test_the_smallest_lmbd_an_error_suggests_is_accepted_by_its_check():
    """Each scale error suggests the smallest λ, to two digits, rounded up so that the value
    typed back meets the check it failed: 1/(λn) <= 1e300 and max ||x_i||²/λ <= 1e300 (the
    mutation survivor _base.py:857 suggested another number; rounding to nearest suggested
    3.3e-302 for n = 30, which fails 1/(λn) <= 1e300 again), and is at most one step of its
    second digit above the bound."""
    limit = 1e300

    def two_digits_above(bound):  # one step of the second significant digit above bound
        return (bound + 10.0 ** (np.floor(np.log10(bound)) - 1)) * (1 + 1e-9)

    # 1/(1e300 n): 1.67e-301 (rounds up by itself), 3.33e-302 (rounds down), 2.5e-302
    # (exact), 8e-303 (exact, but the check refuses it: 1/(8e-303 * 125) > 1e300)
    for n in (6, 30, 40, 125):
        X = np.random.default_rng(n).standard_normal((n, 4))
        y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        with pytest.raises(ValueError, match="too small for float64") as info:
            SDCAClassifier(lmbd=5e-324, bias_multiplier=0.0).fit(X, y)
        smallest = _suggested(str(info.value), "at least")
        assert 1.0 / (smallest * n) <= limit, n  # accepted by the check it failed
        assert smallest <= two_digits_above(1.0 / (limit * n)), n  # the smallest, 2 digits
    X, y = gaussian_problem(n=30, d=4, seed=0)
    r2 = float(np.max(np.einsum("ij,ij->i", X, X)))
    with pytest.raises(ValueError, match="too small for the scale of X") as info:
        SDCAClassifier(lmbd=1e-300, bias_multiplier=0.0).fit(X, y)
    smallest = _suggested(str(info.value), "Use lmbd >=")
    assert r2 / smallest <= limit and smallest <= two_digits_above(r2 / limit)


# ------------------------------------------------------------------ max |X| in one pass
def _planted(dtype, where: int, value) -> np.ndarray:
    """A C-contiguous (7, 5) array of ``dtype`` spanning subnormals to large magnitudes, with
    ``value`` planted at flat index ``where`` (None: nothing planted)."""
    rng = np.random.default_rng(where + 11)
    tiny = np.finfo(dtype).smallest_subnormal
    X = (rng.standard_normal((7, 5)) * 10.0 ** rng.integers(-3, 4, (7, 5))).astype(dtype)
    X.flat[3] = -tiny
    X.flat[4] = -0.0
    if value is not None:
        X.flat[where] = value
    return X


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("where", [0, 17, 34])
@pytest.mark.parametrize("value", [None, -1e30, np.inf, -np.inf, np.nan])
def test_dense_max_abs_is_numpys_max_of_abs_exactly(dtype, where, value):
    """scales.dense_max_abs (one integer pass over the magnitude bits) is max |X| to the last
    bit for finite X, +inf with an infinity and NaN with a NaN, wherever it sits (first,
    middle, last entry): the estimators' finite check reads it."""
    from sdca_pegasos.solvers.driver import scales

    if value == -1e30 and dtype == np.float32:
        value = -3e38  # the largest magnitudes of float32
    X = _planted(dtype, where, value)
    got = scales.dense_max_abs(X)
    with np.errstate(invalid="ignore"):
        want = float(np.abs(X).max())
    if np.isnan(want):
        assert np.isnan(got)
    else:
        assert got == want and type(got) is float
        assert scales.max_abs(X) == want
    ro = X.copy()
    ro.setflags(write=False)
    read_only = scales.dense_max_abs(ro)
    assert np.isnan(read_only) if np.isnan(want) else read_only == want
    assert scales.dense_max_abs(np.zeros((0, 3), dtype=dtype)) == 0.0
    only_negative_zero = np.full((2, 2), -0.0, dtype=dtype)
    assert scales.dense_max_abs(only_negative_zero) == 0.0


@pytest.mark.parametrize("cls", SOLVERS)
@pytest.mark.parametrize("where", [0, 17, 34])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_a_non_finite_entry_anywhere_refuses_the_fit(cls, where, value):
    """The fast path's finite check (dense_max_abs) lets no non-finite entry through: the fit
    refuses with scikit-learn's message, wherever the entry is, float32 or float64."""
    for dtype in (np.float32, np.float64):
        X = _planted(dtype, where, value)
        y = np.where(np.arange(7) % 2 == 0, 1, -1)
        kind = "NaN" if np.isnan(value) else "infinity"
        with pytest.raises(ValueError, match=f"Input X contains {kind}"):
            cls(lmbd=0.1, max_epochs=1, random_state=0).fit(X, y)
