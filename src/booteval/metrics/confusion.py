"""One core for the metrics of confusion counts: precision, recall, F-beta, specificity,
Youden's J and accuracy from true and false positives and negatives, with one
zero-division policy.

The registry's precision, recall and F1 (:mod:`booteval.metrics.classification`), the
threshold bootstrap's refit and test metrics (:mod:`booteval.methods.threshold_fit`) and
the multi-label scores (:mod:`booteval.methods.multilabel`) all read their ratios here.
The counts may be weighted (a bootstrap replicate's) and of any shape; where a ratio's
denominator is 0 it takes ``zero_division``: 0 or 1, or NaN for undefined (scikit-learn's
``zero_division``; the multi-label ``undefined="zero"``, ``"one"``, ``"exclude"``).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidInputError
from .base import safe_divide

__all__ = [
    "CONFUSION_RATIOS",
    "confusion_parts",
    "confusion_ratio",
    "f_beta_parts",
    "zero_division_value",
]

#: the ratios of the core, by name
CONFUSION_RATIOS = ("precision", "recall", "f1", "specificity", "youden", "accuracy")

#: the multi-label ``undefined`` policies as zero-division values
_POLICIES = {"zero": 0.0, "one": 1.0, "exclude": np.nan}


def zero_division_value(value: object, parameter: str = "zero_division") -> float:
    """The zero-division value: 0, 1 or NaN, or a policy name (``"zero"``, ``"one"``,
    ``"exclude"``).

    Examples
    --------
    >>> zero_division_value(1), zero_division_value("exclude")
    (1.0, nan)
    """
    if isinstance(value, str) and value in _POLICIES:
        return _POLICIES[value]
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (value in (0, 1) or np.isnan(value))
    ):
        raise InvalidInputError(parameter, "0, 1 or numpy.nan", repr(value))
    return float(value)


def f_beta_parts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """F1's numerator and denominator, ``2 tp`` and ``2 tp + fp + fn``."""
    return 2.0 * np.asarray(tp, dtype=float), 2.0 * np.asarray(tp, dtype=float) + fp + fn


def confusion_parts(
    name: str, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The numerator and denominator of the ratio ``name`` (not Youden's J): what an
    average over classes adds up before dividing (a micro average).

    Examples
    --------
    >>> confusion_parts("recall", 3.0, 1.0, 2.0)
    (3.0, 5.0)
    """
    if name == "precision":
        return tp, tp + fp
    if name == "recall":
        return tp, tp + fn
    if name == "f1":
        return f_beta_parts(tp, fp, fn)
    if tn is None:
        raise ValueError(f"{name} needs the true negatives")
    if name == "specificity":
        return tn, tn + fp
    return tp + tn, tp + fp + fn + tn  # accuracy


def confusion_ratio(
    name: str, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray | None = None,
    zero_division: float = np.nan,
) -> np.ndarray:  # fmt: skip
    """The ratio ``name`` of the counts (elementwise), ``zero_division`` where its
    denominator is 0; Youden's J is recall plus specificity minus 1.

    Examples
    --------
    >>> confusion_ratio("f1", np.array([3.0, 0.0]), np.array([1.0, 0.0]), np.array([2.0, 0.0]))
    array([0.66666667,        nan])
    >>> float(confusion_ratio("precision", 0.0, 0.0, 4.0, zero_division=0))
    0.0
    """
    if name == "youden":
        recall = confusion_ratio("recall", tp, fp, fn, tn, zero_division)
        return recall + confusion_ratio("specificity", tp, fp, fn, tn, zero_division) - 1.0
    arrays = (None if a is None else np.asarray(a, dtype=float) for a in (tp, fp, fn, tn))
    num, den = confusion_parts(name, *arrays)
    return safe_divide(num, den, zero_division)
