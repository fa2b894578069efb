"""Labels, class and sample weights and warm starts have one home,
:mod:`sdca_pegasos.solvers.driver.targets`, for every estimator: the ones that hold y
(SDCA, ASDCA, Pegasos, the exact engine, through ``TargetsMixin``) and the cluster's
``DaskSVMClassifier``, whose workers count the classes and whose driver applies the same
functions to those counts. So a problem refused by one is refused by all, in the same words,
and a refused warm start leaves every estimator's fit as it was.
"""

from __future__ import annotations

import numpy as np
import pytest

from sdca_pegasos.solvers import (
    ASDCAClassifier,
    ExactSVMClassifier,
    PegasosClassifier,
    SDCAClassifier,
)
from sdca_pegasos.solvers.driver.targets import class_totals, refuse_weightless_sides

from .conftest import gaussian_problem, local_cluster_client

#: Each estimator with settings that fit the problems below in a few steps, without a
#: warning (no tol, or the exact engine's, which certifies).
ESTIMATORS = {
    "SDCAClassifier": lambda: SDCAClassifier(lmbd=0.1, tol=0, max_epochs=3, random_state=0),
    "ASDCAClassifier": lambda: ASDCAClassifier(lmbd=0.1, tol=0, max_epochs=3, random_state=0),
    "PegasosClassifier": lambda: PegasosClassifier(lmbd=0.1, max_epochs=3, random_state=0),
    "ExactSVMClassifier": lambda: ExactSVMClassifier(lmbd=0.1),
    "DaskSVMClassifier": lambda: _dask().DaskSVMClassifier(
        lmbd=0.1, tol=0, max_rounds=3, random_state=0
    ),
}


def _dask():
    from sdca_pegasos.solvers.cluster import estimator

    return estimator


def _in_process_client():
    return local_cluster_client(processes=False)


@pytest.fixture(scope="module")
def dask_client():
    """A LocalCluster of 2 in-process workers, for the cluster's estimator only."""
    with _in_process_client() as c:
        yield c


SIDE = (
    "sample_weight (times class_weight) is 0 on every sample of {}: a binary problem needs "
    "weight on both sides. Drop those labels from y, or give their samples a weight > 0."
)
BALANCED = (
    "class_weight='balanced' divides by each class's total sample_weight, which is 0 for "
    "class {}: give its samples a weight > 0 or drop it from y."
)


def weightless_cases():
    """(labels, sample_weight, class_weight, the message) of problems where a side weighs
    nothing: a class whose weight is 0 everywhere (by its samples' weights, by its class
    weight, both ways under "balanced", in two classes and in one-vs-rest), and the rest
    of a class in one-vs-rest."""
    X, y = gaussian_problem(n=60, d=4, seed=2)
    two = (y > 0).astype(int)  # classes 0 and 1
    three = np.arange(60) % 3  # classes 0, 1 and 2
    off = np.where(two == 1, 0.0, 1.0)  # every sample of class 1 weighs 0
    return X, [
        (two, off, None, SIDE.format("class 1")),
        (two, None, {1: 0.0}, SIDE.format("class 1")),
        (two, off, "balanced", BALANCED.format(1)),
        (three, None, {2: 0.0}, SIDE.format("class 2")),
        (three, np.where(three == 1, 0.0, 1.0), None, SIDE.format("class 1")),
        (three, np.where(three == 0, 1.0, 0.0), None, SIDE.format("the rest of 0")),
    ]


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_every_estimator_refuses_a_weightless_side_and_keeps_its_fit_after_a_bad_warm_start(
    name, request
):
    """Every estimator, the cluster's included: (1) a class whose weight is 0 everywhere,
    or the rest of a class in one-vs-rest, is refused with the same message (the cluster's
    used to say another thing under "balanced", and could refuse a side whose weight
    cancelled in a difference); (2) a warm start refused for its classes leaves
    ``classes_`` and ``coef_`` as the last fit left them (the cluster's used to keep the new
    classes), with the same message. The exact engine has no warm start: it refits."""
    if name == "DaskSVMClassifier":
        pytest.importorskip("distributed")
        request.getfixturevalue("dask_client")
    X, cases = weightless_cases()
    for labels, sample_weight, class_weight, message in cases:
        est = ESTIMATORS[name]().set_params(class_weight=class_weight)
        with pytest.raises(ValueError) as caught:
            est.fit(X, labels, sample_weight=sample_weight)
        assert str(caught.value) == message, (labels.max(), class_weight)

    two = (X[:, 0] > 0).astype(int)
    est = ESTIMATORS[name]().fit(X, two)
    if "warm_start" not in est.get_params():
        assert name == "ExactSVMClassifier"
        return
    classes, coef = est.classes_.copy(), est.coef_.copy()
    est.set_params(warm_start=True)
    with pytest.raises(ValueError) as caught:
        est.fit(X, np.arange(60) % 3)
    assert str(caught.value) == (
        "warm_start=True starts from the last fit, of classes [0, 1], and y has classes "
        "[0, 1, 2]: fit the same classes or set warm_start=False."
    )
    np.testing.assert_array_equal(est.classes_, classes)
    assert est.classes_.dtype == classes.dtype
    np.testing.assert_array_equal(est.coef_, coef)
    est.fit(X, two)  # the same classes: it continues
    np.testing.assert_array_equal(est.classes_, classes)


def test_the_rest_of_a_class_is_a_sum_of_the_other_classes_totals():
    """One-vs-rest: the rest's weight is the other classes' totals summed, not the total
    less the class's (1e17 + 2 - 1e17 is 0 in floating point: a rest of weight 2 refused),
    and a class's total is its samples' weights summed."""
    classes = np.array([0, 1, 2])
    y = np.array([0, 0, 1, 2])
    totals = class_totals(classes, y, np.array([5e16, 5e16, 1.0, 1.0]))
    np.testing.assert_array_equal(totals, [1e17, 1.0, 1.0])
    assert (totals.sum() - totals[0]) == 0.0  # what a difference would see
    refuse_weightless_sides(classes, totals, None, 0)  # not refused
    with pytest.raises(ValueError, match="0 on every sample of the rest of 0"):
        refuse_weightless_sides(classes, np.array([3.0, 0.0, 0.0]), None, 0)
    with pytest.raises(ValueError, match="0 on every sample of class 2"):
        refuse_weightless_sides(classes, totals, {0: 1.0, 1: 1.0, 2: 0.0}, 2)
    np.testing.assert_array_equal(class_totals(classes, y), [2.0, 1.0, 1.0])
