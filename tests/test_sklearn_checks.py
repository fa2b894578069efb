"""scikit-learn's estimator checks on every public single-machine estimator, with its DEFAULT
parameters, and :func:`sdca_pegasos.solvers.sklearn_checks.expected_failed_checks`.

A user checks an estimator as it comes: ``SDCAClassifier()``, not one configured for the
checks. Each check an estimator fails by design is listed, with its reason, by the package's
``expected_failed_checks``; strict xfail makes a listed check that passes fail here, so the
list is exactly what fails. (The configured estimators' checks stay in each solver's file.)

The checks' data are small random problems, some unscaled (features around 100 beside a
unit intercept, random labels): a fit that does not reach ``tol`` there warns, as
``LinearSVC`` does. Each check here asserts that every warning it raised is that
ConvergenceWarning of the estimator checked, naming the gap it reached; any other warning
fails it.
"""

from __future__ import annotations

import re
import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from sdca_pegasos.solvers import (
    ASDCAClassifier,
    ExactSVMClassifier,
    NewtonSVMClassifier,
    PegasosClassifier,
    SDCAClassifier,
)
from sdca_pegasos.solvers import sklearn_checks as checks_module
from sdca_pegasos.solvers.sklearn_checks import expected_failed_checks

DEFAULTS = [
    SDCAClassifier(),
    PegasosClassifier(),
    ASDCAClassifier(),
    ExactSVMClassifier(),
    NewtonSVMClassifier(),
]


@parametrize_with_checks(
    DEFAULTS, expected_failed_checks=expected_failed_checks, xfail_strict=True
)
def test_every_estimator_with_its_defaults_passes_scikit_learns_checks(estimator, check):
    name = type(estimator).__name__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(estimator)
    for w in caught:
        assert issubclass(w.category, ConvergenceWarning), (w.category, str(w.message))
        assert re.match(rf"{name} did not converge: duality gap \S+ > tol=", str(w.message))


def test_the_defaults_fail_only_the_checks_they_fail_by_design():
    """SDCA (shrinking and the exact finish by default) and the exact solver pass every
    check; Pegasos fails only the sample-weight checks (no certificate), ASDCA those and the
    class-weight check (its θ on the check's unscaled blobs). Before: Pegasos' partial_fit
    refused lmbd="auto" (3 checks), ASDCA refused 5 samples (batch_size=8) and SDCA failed
    the sample-weight checks."""
    weights = set(checks_module.SAMPLE_WEIGHT_CHECKS)
    assert expected_failed_checks(SDCAClassifier()) == {}
    assert expected_failed_checks(ExactSVMClassifier()) == {}
    assert expected_failed_checks(NewtonSVMClassifier()) == {}
    assert set(expected_failed_checks(PegasosClassifier())) == weights
    assert set(expected_failed_checks(ASDCAClassifier())) == weights | {
        "check_class_weight_classifiers"
    }
    for est in DEFAULTS:
        for check, reason in expected_failed_checks(est).items():
            assert check.startswith("check_") and len(reason) > 40, (check, reason)


def test_the_list_follows_the_parameters():
    """A fixed lmbd, no intercept, SDCA without its finish, Pegasos' refusals in
    partial_fit: each adds the checks it fails, with its own reason; a new dict each call."""
    fixed = expected_failed_checks(SDCAClassifier(lmbd=1e-3))
    assert set(fixed) == set(checks_module.SAMPLE_WEIGHT_CHECKS)
    assert all("fixed C = 1/(lmbd n)" in r and "lmbd=0.001" in r for r in fixed.values())
    plain = expected_failed_checks(SDCAClassifier(shrinking=False, tol=0, max_epochs=50))
    assert set(plain) == {*checks_module.SAMPLE_WEIGHT_CHECKS, "check_class_weight_classifiers"}
    assert "without the exact finish" in plain["check_sample_weight_equivalence_on_dense_data"]
    assert "check_class_weight_classifiers" not in expected_failed_checks(
        SDCAClassifier(shrinking=False)  # 1000 epochs pass it (measured)
    )
    for est in (SDCAClassifier(bias_multiplier=0.0), ExactSVMClassifier(bias_multiplier=0.0)):
        assert (
            "without an intercept" in expected_failed_checks(est)["check_class_weight_classifiers"]
        )
    for params, says in (
        ({"average": True}, "refuses average=True"),
        ({"class_weight": "balanced"}, "refuses class_weight='balanced'"),
    ):
        failures = expected_failed_checks(PegasosClassifier(**params))
        for check in checks_module.PARTIAL_FIT_CHECKS:
            assert says in failures[check]
    est = ASDCAClassifier()
    first = expected_failed_checks(est)
    first.clear()
    assert expected_failed_checks(est)


def test_a_dask_estimator_gets_the_distributed_modules_list():
    distributed = pytest.importorskip("sdca_pegasos.solvers.cluster.estimator")
    if not hasattr(distributed, "expected_failed_checks"):
        pytest.skip(
            "sdca_pegasos.solvers.cluster.estimator.expected_failed_checks not written yet"
        )
    est = distributed.DaskSVMClassifier()
    assert expected_failed_checks(est) == distributed.expected_failed_checks(est)


def test_another_packages_estimator_is_refused_by_name():
    with pytest.raises(TypeError, match=r"not of LinearSVC: pass an SDCAClassifier"):
        expected_failed_checks(LinearSVC())
