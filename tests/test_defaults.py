"""The defaults a LinearSVC user expects (issue 29): λ = 1/n and an intercept.

``lmbd="auto"`` is resolved at ``fit`` to 1/n (``LinearSVC``'s ``C = 1``: C = 1/(λn)) and
kept as ``lmbd_``; ``bias_multiplier=1.0`` is ``LinearSVC``'s regularised intercept
(``intercept_scaling=1``). The evidence is the objective: the default pipeline reaches a
certified optimum of LinearSVC's own problem, with no warning.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils._param_validation import InvalidParameterError

from sdca_pegasos import solvers
from sdca_pegasos.solvers import ExactSVMClassifier, SDCAClassifier, objectives

from .conftest import gaussian_problem

ESTIMATORS = ("SDCAClassifier", "PegasosClassifier", "ASDCAClassifier", "ExactSVMClassifier")
#: A few epochs and no gap test: what is checked here is the problem, not the convergence
#: (and a seed: Pegasos without one drew an iterate whose intercept was exactly 0 once in a
#: full run of the suite)
SHORT = {
    "SDCAClassifier": {"max_epochs": 3, "tol": 0, "random_state": 0},
    "PegasosClassifier": {"max_epochs": 3, "random_state": 0},
    "ASDCAClassifier": {"max_epochs": 3, "tol": 0, "random_state": 0},
    "ExactSVMClassifier": {},
}


@pytest.fixture(scope="module")
def cancer():
    """Breast cancer (569 × 30) as a user has it: raw features, labels 0/1."""
    return load_breast_cancer(return_X_y=True)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_defaults_are_lambda_one_over_n_and_an_intercept(name):
    X, y = gaussian_problem(n=60, d=5, seed=0)
    y = y + 1.0  # an offset the intercept must take: labels 0 and 2
    X = X + 3.0
    cls = getattr(solvers, name)
    assert cls().lmbd == "auto" and cls().bias_multiplier == 1.0
    est = cls(**SHORT[name]).fit(X, y)
    assert est.lmbd_ == 1.0 / 60 and est.get_params()["lmbd"] == "auto"
    assert objectives.lmbd_to_C(est.lmbd_, X.shape[0]) == pytest.approx(1.0, rel=1e-15)
    assert est.intercept_.shape == (1,) and est.intercept_[0] != 0.0
    # a number is kept as given, and is the λ of the fit
    assert cls(lmbd=0.25, **SHORT[name]).fit(X, y).lmbd_ == 0.25


@pytest.mark.parametrize("name", ESTIMATORS)
def test_lmbd_accepts_a_positive_number_or_auto_only(name):
    X, y = gaussian_problem(n=20, d=3)
    cls = getattr(solvers, name)
    for bad in ("AUTO", "1/n", 0.0, -1.0):
        with pytest.raises(InvalidParameterError, match=r"'lmbd' parameter .*'auto'"):
            cls(lmbd=bad).fit(X, y)


def test_auto_with_sample_weights_is_linearsvc_c1_whatever_the_weights():
    """n counts the rows, weighted or not: each weight multiplies its sample's loss, as
    LinearSVC's C = 1 with the same weights. So a weight of 0 is the row dropped (and n
    changes with it): the same certified optimum, which a fixed λ would not give."""
    X, y = gaussian_problem(n=80, d=6, seed=4)
    weights = np.random.default_rng(4).uniform(0.5, 2.0, 80)
    weights[:10] = 0.0
    weighted = ExactSVMClassifier().fit(X, y, sample_weight=weights)
    dropped = ExactSVMClassifier().fit(X[10:], y[10:], sample_weight=weights[10:])
    assert weighted.lmbd_ == 1 / 80 and dropped.lmbd_ == 1 / 70
    assert weighted.certified_ and dropped.certified_
    np.testing.assert_allclose(weighted.coef_, dropped.coef_, rtol=0, atol=1e-7)
    np.testing.assert_allclose(weighted.intercept_, dropped.intercept_, rtol=0, atol=1e-7)
    # and it is LinearSVC's optimum with those weights (its objective is n P: compare P)
    svc = LinearSVC(loss="hinge", C=1.0, tol=1e-10, max_iter=10**6).fit(X, y, weights)
    w_lib = objectives.full_weights(svc.coef_[0], svc.intercept_[0], 1.0)
    p_lib = objectives.primal(X, y, w_lib, 1 / 80, 0.0, 1.0, weights)
    assert weighted.dual_ <= p_lib and weighted.primal_ <= p_lib * (1 + 1e-10)
    assert p_lib <= weighted.primal_ * (1 + 1e-6)  # liblinear converged here


def test_default_pipeline_reaches_linearsvcs_optimum_without_a_warning(cancer):
    """``make_pipeline(StandardScaler(), SDCAClassifier())`` is LinearSVC's problem (C = 1,
    regularised intercept of scaling 1, hinge loss), solved to its certificate within the
    default max_epochs: no ConvergenceWarning (issue 29: λ = 1e-3 without an intercept,
    100 epochs, warned and scored 0.668 where LinearSVC scored 0.707)."""
    X, y = cancer
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails here, ConvergenceWarning first
        pipe = make_pipeline(StandardScaler(), SDCAClassifier(random_state=0)).fit(X, y)
        exact = make_pipeline(StandardScaler(), ExactSVMClassifier()).fit(X, y)
    sdca = pipe[-1]
    n = X.shape[0]
    Xs = pipe[0].transform(X)
    y_pm = np.where(y == sdca.classes_[1], 1.0, -1.0)
    assert sdca.lmbd_ == 1 / n and objectives.lmbd_to_C(sdca.lmbd_, n) == pytest.approx(1.0)
    assert sdca.converged_ and 0.0 <= sdca.duality_gap_ <= sdca.tol == 1e-5
    assert sdca.n_epochs_ < sdca.max_epochs

    svc = LinearSVC(
        loss="hinge", C=1.0, intercept_scaling=1.0, dual=True, tol=1e-10, max_iter=10**6
    ).fit(Xs, y)
    w_lib = objectives.full_weights(svc.coef_[0], svc.intercept_[0], 1.0)
    p_lib = objectives.primal(Xs, y_pm, w_lib, 1 / n, 0.0, 1.0)
    w_sdca = objectives.full_weights(sdca.coef_[0], sdca.intercept_[0], 1.0)
    p_sdca, d_sdca, gap = objectives.duality_gap(
        Xs, y_pm, w_sdca, sdca.dual_coef_, 1 / n, 0.0, 1.0
    )
    assert gap == pytest.approx(sdca.duality_gap_, rel=1e-9)
    # D(α) <= P* <= P(w_liblinear), and P(w) - D(α) <= tol: within tol of liblinear's point
    assert d_sdca <= p_lib and p_sdca <= p_lib + sdca.tol
    # the certified optimum of the same problem, by the default exact estimator
    opt = exact[-1]
    assert opt.certified_ and opt.lmbd_ == 1 / n and opt.rel_gap_ <= 1e-10
    assert opt.dual_ <= p_lib and p_lib <= opt.primal_ * (1 + 1e-6)  # liblinear converged
    assert opt.dual_ <= p_sdca <= opt.primal_ + sdca.tol
    assert (pipe.predict(X) == svc.predict(Xs)).mean() >= 0.99
