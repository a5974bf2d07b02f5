"""Classification metrics computed from weighted confusion counts.

Every replicate's confusion matrix is one product of the weight matrix with a
sparse one-hot encoding of each row's (true, predicted) cell, so the cost is
that of a single pass over the weights whatever the number of classes. The
leave-one-out values follow in closed form (the total minus one unit's counts).

The class set is fixed on the original data (the union of the labels in
``y_true`` and ``y_pred``), so a class missing from a replicate still counts in a
macro average, where its undefined terms follow ``zero_division``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..core.codes import dense_codes
from ..core.design import Design
from ..core.errors import InvalidInputError
from ..core.validation import as_label_array, check_label_pair, check_same_length
from .base import Evaluator, Metric, SumEvaluator, row_sum, safe_divide
from .confusion import confusion_parts, confusion_ratio, zero_division_value
from .linearize import confusion_gradient

__all__ = [
    "F1",
    "Accuracy",
    "BalancedAccuracy",
    "CohenKappa",
    "ErrorRate",
    "MatthewsCorrCoef",
    "Precision",
    "Recall",
    "Specificity",
    "Youden",
]

AVERAGES = ("binary", "macro", "micro", "weighted")

#: the same ratios as (alpha, beta_pred, beta_true): alpha tp / (beta_pred pred + beta_true true)
_WEIGHTS: dict[str, tuple[float, float, float]] = {
    "precision": (1.0, 1.0, 0.0),
    "recall": (1.0, 0.0, 1.0),
    "f1": (2.0, 1.0, 1.0),
}


def _encode_pair(
    y_true: np.ndarray, y_pred: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    try:
        classes, codes = dense_codes(np.concatenate([y_true, y_pred]))
    except TypeError:
        raise InvalidInputError(
            "y_pred",
            "labels of the same type as `y_true`",
            f"{y_pred.dtype} labels against {y_true.dtype} labels",
        ) from None
    return classes, codes[: y_true.size], codes[y_true.size :]


class _LabelMetric(Metric):
    """Base of metrics on ``(y_true, y_pred)`` class labels."""

    input_names: ClassVar[tuple[str, ...]] = ("y_true", "y_pred")
    bounds = (0.0, 1.0)
    discrete_inputs: ClassVar[bool] = True

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        y_true = as_label_array(arrays[0], "y_true")
        y_pred = as_label_array(arrays[1], "y_pred")
        check_same_length({"y_true": y_true, "y_pred": y_pred})
        check_label_pair(y_true, y_pred)
        return y_true, y_pred


class _ConfusionMetric(_LabelMetric):
    """A metric that is a function of the confusion matrix."""

    def _from_confusion(self, cm: np.ndarray, ctx: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def _gradient(self, cm: np.ndarray, ctx: dict[str, Any]) -> np.ndarray | None:
        """The metric's gradient with respect to the flattened confusion counts, or
        ``None`` where it has none (then no analytic standard error)."""
        return None

    def _context(self, classes: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray) -> dict:
        return {}

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        y_true, y_pred = arrays
        classes, t, p = _encode_pair(y_true, y_pred)
        k = classes.size
        ctx = self._context(classes, y_true, y_pred)
        ctx["k"] = k
        n = t.size
        onehot = sp.csr_matrix((np.ones(n), (np.arange(n), t * k + p)), shape=(n, k * k))

        def from_sums(sums: np.ndarray) -> np.ndarray:
            return self._from_confusion(np.asarray(sums).reshape(-1, k, k), ctx)

        def gradient(sums: np.ndarray) -> np.ndarray:
            return self._gradient(np.asarray(sums).reshape(-1, k, k), ctx)  # type: ignore[return-value]

        has = type(self)._gradient is not _ConfusionMetric._gradient
        return SumEvaluator(
            onehot, design, from_sums, gradient=gradient if has else None, keys=t * k + p
        )


class Accuracy(_LabelMetric):
    """Fraction of rows where the prediction equals the label.

    Has an analytic standard error (the linearized, cluster-robust one when
    clustered), used by the studentized interval.

    Examples
    --------
    >>> Accuracy()([0, 1, 1, 0], [0, 1, 0, 0])
    0.75
    """

    name = "accuracy"
    auto_family: ClassVar[str] = "proportion"
    confusion_ratio: ClassVar[str | None] = "accuracy"

    def row_scores(self, *arrays: np.ndarray) -> np.ndarray:
        return self.outcomes(*arrays).astype(float)

    def outcomes(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        """Each row's outcome (``True`` where it counts), whose mean is the metric.

        Examples
        --------
        >>> Accuracy().outcomes(np.array([0, 1, 1]), np.array([0, 1, 0])).tolist()
        [True, True, False]
        """
        return self._hits(y_true, y_pred)

    def _hits(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        if y_true.dtype.kind in "biuf" and y_pred.dtype.kind in "biuf":
            return y_true == y_pred  # numbers: equal values, equal classes
        _, t, p = _encode_pair(y_true, y_pred)
        return t == p

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        from .regression import ratio_evaluator

        return ratio_evaluator(self._hits(*arrays), None, design)


class ErrorRate(Accuracy):
    """Fraction of rows where the prediction differs from the label.

    Examples
    --------
    >>> ErrorRate()([0, 1, 1, 0], [0, 1, 0, 0])
    0.25
    """

    name = "error_rate"
    greater_is_better = False
    confusion_ratio: ClassVar[str | None] = None

    def _hits(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return ~super()._hits(y_true, y_pred)


def _positive_index(classes: np.ndarray, pos_label: Any, parameter: str) -> int:
    """The index of ``pos_label`` among two classes (a clear error for more classes, or
    for a positive label that is not one of them)."""
    if classes.size > 2:
        wanted = (
            f"a multiclass average ('macro', 'micro' or 'weighted') for {classes.size} classes"
            if parameter == "average"
            else "binary labels (two classes at most)"
        )
        received = "'binary'" if parameter == "average" else f"{classes.size} classes"
        raise InvalidInputError(
            parameter, wanted, received, f"The labels are {classes.tolist()[:10]}."
        )
    hit = np.flatnonzero(classes == pos_label)
    if hit.size == 0:
        raise InvalidInputError(
            "pos_label", f"one of the labels {classes.tolist()}", repr(pos_label)
        )
    return int(hit[0])


class _AveragedMetric(_ConfusionMetric):
    """Precision, recall or F1 with sklearn's ``average`` and ``pos_label`` conventions."""

    def __init__(
        self, *, average: str = "binary", pos_label: Any = 1, zero_division: float = 0.0
    ) -> None:
        if average not in AVERAGES:
            raise InvalidInputError(
                "average", f"one of {', '.join(map(repr, AVERAGES))}", repr(average)
            )
        zero_division = zero_division_value(zero_division)
        params: dict[str, Any] = {} if average == "binary" else {"average": average}
        if average == "binary" and pos_label != 1:
            params["pos_label"] = pos_label
        if zero_division != 0.0:
            params["zero_division"] = zero_division
        super().__init__(**params)
        self.average = average
        self.pos_label = pos_label
        self.zero_division = zero_division

    def _context(self, classes: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray) -> dict:
        if self.average != "binary":
            return {}
        return {"pos": _positive_index(classes, self.pos_label, "average")}

    def _from_confusion(self, cm: np.ndarray, ctx: dict[str, Any]) -> np.ndarray:
        tp = np.diagonal(cm, axis1=1, axis2=2)
        pred = cm.sum(axis=1)
        true = cm.sum(axis=2)
        # the confusion-count core's ratio, from each class's tp, fp = pred - tp, fn = true - tp
        num, den = confusion_parts(self.name, tp, pred - tp, true - tp)
        zd = self.zero_division
        if self.average == "binary":
            j = ctx["pos"]
            return safe_divide(num[:, j], den[:, j], zd)
        # counts are whole numbers, so their sums are exact; sums of ratios use
        # row_sum, whose result does not depend on the batch
        if self.average == "micro":
            return safe_divide(num.sum(axis=1), den.sum(axis=1), zd)
        per_class = safe_divide(num, den, zd)
        # classes whose score is undefined (zero_division=nan) leave the average
        defined = ~np.isnan(per_class)
        scores = np.where(defined, per_class, 0.0)
        if self.average == "macro":
            return safe_divide(row_sum(scores), defined.sum(axis=1), np.nan)
        # weighted by support (true counts) in the replicate
        support = np.where(defined, true, 0.0)
        return safe_divide(
            row_sum(scores * support), support.sum(axis=1), np.nan if np.isnan(zd) else zd
        )

    def _gradient(self, cm: np.ndarray, ctx: dict[str, Any]) -> np.ndarray:
        alpha, b_pred, b_true = _WEIGHTS[self.name]
        return confusion_gradient(
            cm, alpha, b_pred, b_true, self.average, self.zero_division, pos=ctx.get("pos")
        )


class Precision(_AveragedMetric):
    """Precision: true positives over predicted positives (sklearn's conventions).

    Parameters
    ----------
    average : {"binary", "macro", "micro", "weighted"}
    pos_label : label, default 1
        The positive class for ``average="binary"``.
    zero_division : {0, 1, nan}
        Value where a class has no predicted rows; ``nan`` makes it undefined
        (and drops the class from macro and weighted averages).

    Examples
    --------
    >>> Precision()([0, 1, 1, 0], [1, 1, 0, 0])
    0.5
    """

    name = "precision"
    confusion_ratio: ClassVar[str | None] = "precision"


class Recall(_AveragedMetric):
    """Recall: true positives over actual positives (sklearn's conventions).

    Examples
    --------
    >>> Recall(average="macro")([0, 1, 2, 2], [0, 1, 2, 0])
    0.8333333333333334
    """

    name = "recall"
    confusion_ratio: ClassVar[str | None] = "recall"
    multilabel: ClassVar[bool] = True


class F1(_AveragedMetric):
    """F1 score, ``2 TP / (2 TP + FP + FN)`` per class (sklearn's conventions).

    Examples
    --------
    >>> round(F1(average="macro")([0, 1, 2, 2], [0, 1, 2, 0]), 6)
    0.777778
    """

    name = "f1"
    auto_family: ClassVar[str] = "f1"
    confusion_ratio: ClassVar[str | None] = "f1"
    multilabel: ClassVar[bool] = True


class _BinaryRatio(_ConfusionMetric):
    """A ratio of the confusion-count core for binary labels, one class positive."""

    def __init__(self, *, pos_label: Any = 1, zero_division: float = 0.0) -> None:
        zero_division = zero_division_value(zero_division)
        params: dict[str, Any] = {} if pos_label == 1 else {"pos_label": pos_label}
        if zero_division != 0.0:
            params["zero_division"] = zero_division
        super().__init__(**params)
        self.pos_label = pos_label
        self.zero_division = zero_division

    def _context(self, classes: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray) -> dict:
        return {"pos": _positive_index(classes, self.pos_label, "y_true")}

    def _from_confusion(self, cm: np.ndarray, ctx: dict[str, Any]) -> np.ndarray:
        j = ctx["pos"]
        tp = cm[:, j, j]
        fp = cm[:, :, j].sum(axis=1) - tp
        fn = cm[:, j, :].sum(axis=1) - tp
        tn = cm.sum(axis=(1, 2)) - tp - fp - fn
        return confusion_ratio(self.name, tp, fp, fn, tn, self.zero_division)


class Specificity(_BinaryRatio):
    """Specificity: true negatives over actual negatives, for binary labels.

    Parameters
    ----------
    pos_label : label, default 1
        The positive class; every other row is a negative.
    zero_division : {0, 1, nan}
        Value where there are no actual negatives.

    Examples
    --------
    >>> Specificity()([0, 0, 0, 1], [0, 1, 0, 1])
    0.6666666666666666
    """

    name = "specificity"
    confusion_ratio: ClassVar[str | None] = "specificity"


class Youden(_BinaryRatio):
    """Youden's J: recall plus specificity minus 1, for binary labels.

    Examples
    --------
    >>> Youden()([0, 0, 1, 1], [0, 1, 1, 1])
    0.5
    """

    name = "youden"
    bounds = (-1.0, 1.0)
    confusion_ratio: ClassVar[str | None] = "youden"


class BalancedAccuracy(_ConfusionMetric):
    """Mean recall over the classes present in ``y_true`` (as sklearn).

    Examples
    --------
    >>> BalancedAccuracy()([0, 0, 0, 1], [0, 0, 1, 1])
    0.8333333333333333
    """

    name = "balanced_accuracy"

    def _from_confusion(self, cm: np.ndarray, ctx: dict[str, Any]) -> np.ndarray:
        tp = np.diagonal(cm, axis1=1, axis2=2)
        true = cm.sum(axis=2)
        per_class = safe_divide(tp, true, np.nan)
        present = true > 0
        return safe_divide(row_sum(np.where(present, per_class, 0.0)), present.sum(axis=1), np.nan)


class MatthewsCorrCoef(_ConfusionMetric):
    """Matthews correlation coefficient (multiclass form, as sklearn).

    Parameters
    ----------
    zero_division : {0, 1, nan}, default 0
        Value when the denominator is zero (all rows in one true or one
        predicted class); sklearn returns 0.

    Examples
    --------
    >>> MatthewsCorrCoef()([0, 0, 1, 1], [0, 0, 1, 1])
    1.0
    """

    name = "mcc"
    bounds = (-1.0, 1.0)

    def __init__(self, *, zero_division: float = 0.0) -> None:
        zd = zero_division_value(zero_division)
        super().__init__(**({"zero_division": zd} if zd != 0.0 else {}))
        self.zero_division = zd

    def _from_confusion(self, cm: np.ndarray, ctx: dict[str, Any]) -> np.ndarray:
        tp = np.diagonal(cm, axis1=1, axis2=2).sum(axis=1)
        pred = cm.sum(axis=1)
        true = cm.sum(axis=2)
        s = true.sum(axis=1)
        cov_tp = tp * s - (true * pred).sum(axis=1)
        cov_pp = s * s - (pred * pred).sum(axis=1)
        cov_tt = s * s - (true * true).sum(axis=1)
        den = np.sqrt(np.maximum(cov_pp * cov_tt, 0.0))
        return safe_divide(cov_tp, den, self.zero_division)


class CohenKappa(_ConfusionMetric):
    """Cohen's kappa between labels and predictions (unweighted).

    Undefined (NaN) when chance agreement is 1 (one class only), as sklearn.

    Examples
    --------
    >>> CohenKappa()([0, 0, 1, 1], [0, 1, 1, 1])
    0.5
    """

    name = "cohen_kappa"
    bounds = (-1.0, 1.0)

    def _from_confusion(self, cm: np.ndarray, ctx: dict[str, Any]) -> np.ndarray:
        n = cm.sum(axis=(1, 2))
        po = safe_divide(np.diagonal(cm, axis1=1, axis2=2).sum(axis=1), n, np.nan)
        pe = safe_divide((cm.sum(axis=1) * cm.sum(axis=2)).sum(axis=1), n * n, np.nan)
        return safe_divide(po - pe, 1.0 - pe, np.nan)


METRICS: dict[str, type[Metric]] = {
    "accuracy": Accuracy,
    "error_rate": ErrorRate,
    "precision": Precision,
    "recall": Recall,
    "f1": F1,
    "specificity": Specificity,
    "youden": Youden,
    "balanced_accuracy": BalancedAccuracy,
    "mcc": MatthewsCorrCoef,
    "cohen_kappa": CohenKappa,
}
