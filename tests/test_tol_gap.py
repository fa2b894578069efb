"""One meaning of ``tol``: the relative duality gap (P - D)/|P|, the cluster's and the exact
engine's reading, and SDCA's and ASDCA's with ``tol_gap='relative'``; their old absolute
reading has a deprecation path (``tol_gap='warn'``, this release's default, keeps it and says
with a ``FutureWarning`` when the relative reading would have ended the fit elsewhere;
``tol_gap='absolute'`` keeps it without a word until it is removed)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from sdca_pegasos.solvers import ASDCAClassifier, ExactSVMClassifier, SDCAClassifier
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.driver.loop import Bounds, relative_reading

from .conftest import gaussian_problem, local_cluster_client, real_problem

PLAIN = {"shrinking": False, "finish": False, "random_state": 0}


def _primal(est, X, y, sample_weight=None):
    """The hinge objective P of a binary fit's (coef_, intercept_), recomputed."""
    if isinstance(est, ASDCAClassifier):
        return float(est.objective_)  # its smoothed objective, the one its gap bounds
    bias = est.bias_multiplier
    w = objectives.full_weights(est.coef_.ravel(), est.intercept_[0], bias)
    yy = np.where(y == est.classes_[1], 1.0, -1.0)
    return objectives.primal(X, yy, w, est.lmbd_, bias=bias, sample_weight=sample_weight)


def test_the_default_keeps_the_absolute_reading_and_says_where_the_relative_one_goes_on():
    """Plain SDCA on breast cancer (P* = 0.0466 at λ = 1/n): the absolute gap meets tol=1e-5
    at epoch 413, where tol·|P| = 4.7e-7 is not met; the default says so, and its fit is the
    absolute reading's bit for bit; the relative reading runs on to a gap below tol·|P|."""
    X, y = real_problem("cancer")
    with pytest.warns(FutureWarning) as caught:
        default = SDCAClassifier(**PLAIN).fit(X, y)
    assert len(caught) == 1
    said = str(caught[0].message)
    assert said.startswith(
        "SDCAClassifier: tol=1e-05 is read as an absolute duality gap P - D (tol_gap='warn', "
        "the default of this release); from 0.2 on tol bounds the relative gap (P - D)/|P|"
    )
    assert f"would then go on after epoch {default.n_epochs_}: its gap " in said
    assert "Pass tol_gap='relative' to adopt that reading now, or tol_gap='absolute'" in said

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the explicit readings say nothing
        absolute = SDCAClassifier(tol_gap="absolute", **PLAIN).fit(X, y)
        relative = SDCAClassifier(tol_gap="relative", **PLAIN).fit(X, y)
    assert np.array_equal(default.coef_, absolute.coef_)
    assert default.n_epochs_ == absolute.n_epochs_
    assert default.duality_gap_ == absolute.duality_gap_ <= 1e-5

    p_abs, p_rel = _primal(absolute, X, y), _primal(relative, X, y)
    assert absolute.duality_gap_ > 1e-5 * p_abs  # why the default warned
    assert relative.converged_ and relative.duality_gap_ <= 1e-5 * p_rel
    assert relative.n_epochs_ > absolute.n_epochs_


def test_the_default_says_where_the_relative_reading_stops_first():
    """With sample weights of 20, P is above 1 and the relative reading is the looser: it
    would have stopped at an earlier epoch, and the warning names it (the fit of
    tol_gap='relative' stops there)."""
    X, y = gaussian_problem(n=120, d=6, seed=3)
    weights = np.full(X.shape[0], 20.0)
    params = {**PLAIN, "lmbd": 0.1, "tol": 1e-5}
    with pytest.warns(FutureWarning, match=r"would then stop after epoch \d+ instead of \d+"):
        default = SDCAClassifier(**params).fit(X, y, sample_weight=weights)
    relative = SDCAClassifier(tol_gap="relative", **params).fit(X, y, sample_weight=weights)
    assert _primal(relative, X, y, weights) > 1.0
    assert relative.n_epochs_ < default.n_epochs_
    with pytest.warns(FutureWarning) as caught:
        SDCAClassifier(**params).fit(X, y, sample_weight=weights)
    message = str(caught[0].message)
    assert f"stop after epoch {relative.n_epochs_} instead of {default.n_epochs_}" in message


def test_no_warning_where_both_readings_stop_together():
    """SDCA's defaults (shrinking and the exact finish) end at a gap of ~1e-16 on breast
    cancer, far below either reading's target: the same epoch either way, so not a word (the
    suite's warnings are errors); nor without a gap (tol=0), nor for ASDCA with tol=0."""
    X, y = real_problem("cancer")
    est = SDCAClassifier(random_state=0).fit(X, y)
    assert est.duality_gap_ <= 1e-5 * _primal(est, X, y)
    SDCAClassifier(tol=0, max_epochs=3, **PLAIN).fit(X, y)
    ASDCAClassifier(tol=0, max_epochs=3, random_state=0).fit(X, y)


def test_asdca_has_the_same_readings():
    X, y = gaussian_problem(n=120, d=6, seed=3)
    params = {"lmbd": 0.01, "tol": 1e-6, "max_epochs": 5000, "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        absolute = ASDCAClassifier(tol_gap="absolute", **params).fit(X, y)
        relative = ASDCAClassifier(tol_gap="relative", **params).fit(X, y)
    assert absolute.duality_gap_ <= 1e-6 < absolute.duality_gap_ / absolute.objective_
    assert relative.duality_gap_ <= 1e-6 * relative.objective_
    with pytest.warns(FutureWarning, match="ASDCAClassifier: tol=1e-06 is read as an absolute"):
        default = ASDCAClassifier(**params).fit(X, y)
    assert np.array_equal(default.coef_, absolute.coef_)


def test_tol_gap_is_validated():
    X, y = gaussian_problem()
    with pytest.raises(InvalidParameterError, match="tol_gap"):
        SDCAClassifier(tol_gap="percent").fit(X, y)


def test_one_tol_means_one_relative_gap_in_every_estimator_with_a_dual():
    """The issue's user: the same tol moved from SDCAClassifier to DaskSVMClassifier or
    ExactSVMClassifier bounds the same quantity, each fit's certified (P - D)/|P|."""
    from sdca_pegasos.solvers.cluster.estimator import DaskSVMClassifier

    X, y = gaussian_problem(n=200, d=5, seed=1)
    tol = 1e-4
    fits = [
        SDCAClassifier(tol=tol, tol_gap="relative", **PLAIN),
        ASDCAClassifier(tol=tol, tol_gap="relative", max_epochs=5000, random_state=0),
        ExactSVMClassifier(tol=tol),
    ]
    for est in fits:
        est.fit(X, y)
        assert est.duality_gap_ <= tol * _primal(est, X, y), type(est).__name__
    with local_cluster_client(processes=False):
        cluster = DaskSVMClassifier(tol=tol, random_state=0).fit(X, y)
    assert cluster.certified_ and cluster.rel_gap_ <= tol
    assert cluster.primal_ - cluster.dual_ <= tol * _primal(cluster, X, y) * (1 + 1e-9)


def test_relative_reading_names_every_difference_and_only_those():
    at = Bounds(primal=0.5, dual=0.5 - 8e-6, gap=8e-6)  # tol·|P| = 5e-6 < gap <= tol
    assert relative_reading(1e-5, at, 30, None, True, 100, unit="epoch") == (
        "go on after epoch 30: its gap 8e-06 is at most tol but above tol·|P| = 5e-06"
    )
    assert relative_reading(1e-5, at, 100, None, True, 100, unit="epoch").startswith(
        "end without meeting tol after epoch 100"
    )
    big = Bounds(primal=20.0, dual=20.0 - 5e-5, gap=5e-5)  # P > 1: relative is the looser
    assert relative_reading(1e-5, big, 30, 12, False, 100, unit="round") == (
        "stop after round 12 instead of 30"
    )
    assert relative_reading(1e-5, big, 30, 30, False, 30) == (
        "meet tol at step 30, where the absolute gap 5e-05 does not"
    )
    small = Bounds(primal=0.5, dual=0.5 - 1e-9, gap=1e-9)
    assert relative_reading(1e-5, small, 30, 30, True, 100) == ""  # both stop at 30
    assert relative_reading(1e-5, big, 100, None, False, 100) == ""  # neither meets tol


def test_a_one_vs_rest_fit_says_which_class_would_stop_elsewhere():
    """Wine, standardised, three classes: each binary problem whose stop differs says its
    class, as the ConvergenceWarning does."""
    from sklearn.datasets import load_wine
    from sklearn.preprocessing import StandardScaler

    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    with pytest.warns(FutureWarning) as caught:
        SDCAClassifier(**PLAIN).fit(X, y)
    said = [str(w.message) for w in caught]
    assert [f", class {k}) would then go on" in m for k, m in enumerate(said)] == [True] * 3
