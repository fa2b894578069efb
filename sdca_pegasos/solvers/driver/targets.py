"""From labels and weights to binary problems: classes, ±1 targets, weights, warm starts.

:class:`TargetsMixin` holds the part of
:class:`sdca_pegasos.solvers.driver.estimator.BaseLinearSVM` that reads ``y``, ``sample_weight``,
``class_weight`` and the previous fit: it sets ``classes_``, encodes the ±1 targets of the binary
problems (one for two classes, one per class in one-vs-rest), gives each problem its weights
(``sample_weight`` times ``class_weight``) and, for ``warm_start`` and ``partial_fit``, its start
(:class:`sdca_pegasos.solvers.driver.problem.Init`) from the fitted attributes.

The maths of the class weights and of the sides' weights is in functions of the classes'
totals (:func:`class_totals`: each class's number of samples, or its total ``sample_weight``),
:func:`class_weight_map` and :func:`refuse_weightless_sides`, which
:class:`sdca_pegasos.solvers.cluster.estimator.DaskSVMClassifier` calls with totals its workers
computed (the driver there never holds y)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.driver.problem import Init


class TargetsMixin:
    """Labels, weights and warm starts of
    :class:`sdca_pegasos.solvers.driver.estimator.BaseLinearSVM`.

    Reads the estimator's ``class_weight``, ``warm_start`` and ``bias_multiplier`` and, to
    continue a fit, its ``coef_``, ``intercept_``, ``dual_coef_`` and ``t_``; sets
    ``classes_`` and the ``class_weight`` map of the fit.
    """

    # ---------------------------------------------------------------- labels and weights
    def _encode_targets(self, y: np.ndarray) -> list[np.ndarray]:
        """Set ``classes_``; the ±1 targets of the binary problems (one, or one per class)."""
        classes = _two_numeric_classes(y)
        if classes is None:  # sklearn's full checks (and their messages)
            check_classification_targets(y)
            classes = np.unique(y)
            refuse_one_class(classes)
            type_of_target(y, input_name="y", raise_unknown=True)
        self.classes_ = classes
        return [np.where(y == positive, 1.0, -1.0) for positive in self._positive_classes()]

    def _positive_classes(self) -> list:
        """The class each binary problem calls +1: ``classes_[1]``, or every class."""
        return [self.classes_[1]] if len(self.classes_) == 2 else list(self.classes_)

    def _sample_weights(self, X, y, sample_weight) -> np.ndarray | None:
        """The user's ``sample_weight`` validated (None when absent); class weights are
        applied per binary problem (:meth:`_problem_weights`)."""
        if sample_weight is None:
            return None
        return _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)

    def _class_weights(self) -> dict | None:
        """``class_weight`` as {class: weight} (None: every class 1), scikit-learn's meaning
        (``"balanced"``: n_samples / (n_classes * count), from the fit's labels, the counts
        weighted by ``sample_weight``)."""
        if self.class_weight is None:
            return None
        return getattr(self, "_class_weight_map", None)

    def _problem_weights(self, y, sample_weight, positive) -> np.ndarray | None:
        """Weights of the binary problem whose +1 class is ``positive``: ``sample_weight``
        times the class weights. With two classes each class
        gets its weight; in one-vs-rest the positive class gets its weight and the rest 1
        (as liblinear's and SGDClassifier's one-vs-rest do). A side that weighs nothing is
        refused (:func:`refuse_weightless_sides`)."""
        weights = None if sample_weight is None else np.array(sample_weight, dtype=np.float64)
        cw = self._class_weights()
        if cw is not None:
            if len(self.classes_) == 2:
                per_sample = np.array([cw[c] for c in self.classes_])[
                    np.searchsorted(self.classes_, y)
                ]
            else:
                per_sample = np.where(y == positive, cw[positive], 1.0)
            weights = per_sample if weights is None else weights * per_sample
        if weights is None:
            return None
        totals = class_totals(self.classes_, y, sample_weight)
        refuse_weightless_sides(self.classes_, totals, cw, positive)
        return np.ascontiguousarray(weights)

    def _set_class_weight_map(self, y, sample_weight) -> None:
        if self.class_weight is None:
            return
        totals = None
        if isinstance(self.class_weight, str):  # "balanced": from the classes' totals
            totals = class_totals(self.classes_, y, sample_weight)
        self._class_weight_map = class_weight_map(self.class_weight, self.classes_, totals)

    # ---------------------------------------------------------------- warm start
    def _warm_start_inits(self, X, previous_classes) -> list | None:
        """The previous fit's points when ``warm_start`` and there was a fit (else None)."""
        if not (self.warm_start and hasattr(self, "coef_")):
            return None
        return self._fitted_inits(X, previous_classes)

    def _fitted_inits(self, X, previous_classes) -> list:
        """Each binary problem's start from the fitted attributes (warm start, partial_fit)."""
        if previous_classes is None or not np.array_equal(previous_classes, self.classes_):
            new_classes, self.classes_ = self.classes_, previous_classes  # leave the fit as it was
            raise ValueError(
                f"warm_start=True starts from the last fit, of classes "
                f"{None if previous_classes is None else previous_classes.tolist()}, and y "
                f"has classes {new_classes.tolist()}: fit the same classes or set "
                f"warm_start=False."
            )
        if self.coef_.shape[1] != X.shape[1]:
            raise ValueError(
                f"{'partial_fit' if not self.warm_start else 'warm_start=True'} continues a "
                f"fit of {self.coef_.shape[1]} features, but X has {X.shape[1]}."
            )
        duals = self.dual_coef_
        if duals is not None and duals.shape[-1] != X.shape[0]:
            raise ValueError(
                f"warm_start=True starts from the last fit's dual point, of "
                f"{duals.shape[-1]} samples, but X has {X.shape[0]}: fit the same samples "
                f"(another lmbd, tol or weights) or set warm_start=False."
            )
        k = self.coef_.shape[0]
        bias = float(self.bias_multiplier)
        if bias == 0.0 and np.any(self.intercept_ != 0.0):
            raise ValueError(
                "warm_start=True with bias_multiplier=0 cannot start from a fit with an "
                "intercept: keep bias_multiplier or set warm_start=False."
            )
        iterations = np.broadcast_to(getattr(self, "t_", 0), (k,))
        return [
            Init(
                objectives.full_weights(self.coef_[j], self.intercept_[j], bias),
                None if duals is None else duals.reshape(k, -1)[j].copy(),
                int(iterations[j]),
            )
            for j in range(k)
        ]


def class_totals(classes: np.ndarray, y, sample_weight=None) -> np.ndarray:
    """Each class's number of samples in ``y`` (float64), or its total ``sample_weight``;
    ``classes``: y's sorted classes."""
    index = np.searchsorted(classes, y)
    totals = np.bincount(index, weights=sample_weight, minlength=classes.shape[0])
    return totals.astype(np.float64, copy=False)


def class_weight_map(class_weight, classes: np.ndarray, totals) -> dict | None:
    """``class_weight`` as {class: weight} (None: every class 1), scikit-learn's meaning: a
    dict names some classes (the others 1); ``"balanced"`` is n_samples / (n_classes ·
    count), from the classes' ``totals`` (:func:`class_totals`: counts, or their total
    ``sample_weight``), as ``sklearn.utils.class_weight.compute_class_weight`` computes it,
    bit for bit. A dict that names classes not in ``classes``, and ``"balanced"`` with a
    class whose total is 0, are refused."""
    if class_weight is None:
        return None
    if isinstance(class_weight, dict):
        unknown = set(class_weight) - set(classes.tolist())
        if unknown:
            raise ValueError(
                f"class_weight names classes {sorted(map(repr, unknown))} that are not in "
                f"y's classes {classes.tolist()}."
            )
        return {c: float(class_weight.get(c, 1.0)) for c in classes.tolist()}
    totals = np.asarray(totals, dtype=np.float64)
    for c, total in zip(classes, totals, strict=True):
        if not total > 0.0:
            raise ValueError(
                f"class_weight='balanced' divides by each class's total sample_weight, "
                f"which is 0 for class {c}: give its samples a weight > 0 or drop it from y."
            )
    values = np.sum(totals) / (classes.shape[0] * totals)
    return dict(zip(classes.tolist(), values.tolist(), strict=True))


def refuse_weightless_sides(classes: np.ndarray, totals, class_weights, positive) -> None:
    """Refuse the binary problem whose +1 class is ``positive`` when one of its sides weighs
    nothing: ``sample_weight`` times the class weights summed over the side, from the
    classes' ``totals`` (:func:`class_totals`) and ``class_weights`` (None: every class 1).
    Two classes: each class, its own weight; one-vs-rest: the positive class, its weight,
    and the rest, weight 1 (the rest's total is a sum of the other classes' totals, never a
    difference, which cancellation could make 0 or leave above 0)."""
    totals = np.asarray(totals, dtype=np.float64)
    weight = np.array([1.0 if class_weights is None else class_weights[c] for c in classes])
    if classes.shape[0] == 2:
        sides = [(totals[k] * weight[k], f"class {c}") for k, c in enumerate(classes)]
    else:
        k = int(np.searchsorted(classes, positive))
        rest = np.delete(totals, k).sum()
        sides = [(totals[k] * weight[k], f"class {positive}"), (rest, f"the rest of {positive}")]
    for total, which in sides:
        if not total > 0.0:
            raise ValueError(
                f"sample_weight (times class_weight) is 0 on every sample of {which}: a "
                "binary problem needs weight on both sides. Drop those labels from y, or "
                "give their samples a weight > 0."
            )


def refuse_one_class(classes: np.ndarray) -> None:
    """A classifier needs two classes: refuse ``classes`` (y's) of one."""
    if classes.shape[0] == 1:
        raise ValueError(
            f"Classifier can't train when only one class is present: every label is "
            f"{classes[0]!r}. Pass samples of at least two classes."
        )


def _two_numeric_classes(y: np.ndarray) -> np.ndarray | None:
    """The sorted classes when ``y`` is a 1-d numeric array of exactly two integral values
    (what sklearn's ``type_of_target`` calls "binary" among numeric labels), else None and
    the caller runs sklearn's full checks (their error messages included)."""
    if y.ndim != 1 or y.dtype.kind not in "biuf":
        return None
    if y.shape[0] == 0:
        return None
    lo, hi = y.min(), y.max()  # two passes and one comparison pass: no sort
    if lo == hi or not np.all((y == lo) | (y == hi)):
        return None
    classes = np.array([lo, hi], dtype=y.dtype)
    if y.dtype.kind == "f" and not (np.all(np.isfinite(classes)) and np.all(classes % 1 == 0)):
        return None
    return classes
