"""A score interval for ROC-AUC that keeps its width near 1: Newcombe's (2006) method 5.

The AUC is the share of (positive, negative) pairs that the scores order correctly, and
like a proportion its bootstrap interval collapses near the boundary: with few rows of
one class, or with near-perfect separation, most replicates reproduce the observed AUC
and the interval says nothing about how far below it the truth may lie (with binormal
scores at an AUC of 0.98, BCa covers 45 to 89 % with a median 3 to 20 rows of the rarer
class; ``benchmarks/auc_score.py``). The score
interval inverts a test whose variance is a function of the candidate AUC ``theta``,
so, as Wilson's interval for a proportion, it lies in [0, 1] and has width even where
every pair is ordered correctly.
"""

from __future__ import annotations

import math
from typing import Any

from scipy.optimize import brentq

from ..core.params import validated
from ..core.validation import check_confidence_level
from ..metrics.base import doc_fragments
from .analytic import AnalyticInterval, _check_binary_labels, _check_scores, _normal_quantile
from .delong import AUC_PARAMETERS, _placements

__all__ = ["newcombe_auc_bounds", "newcombe_auc_interval", "newcombe_auc_variance"]


def newcombe_auc_variance(theta: float, n_pos: int, n_neg: int) -> float:
    """The variance of the empirical AUC at a true AUC ``theta`` (Newcombe's method 5).

    Hanley and McNeil's variance under their exponential model,
    ``theta (1 - theta) [1 + (n_pos - 1) (Q1 - theta^2) / (theta (1 - theta)) + (n_neg - 1)
    (Q2 - theta^2) / (theta (1 - theta))] / (n_pos n_neg)`` with ``Q1 = theta / (2 - theta)``
    and ``Q2 = 2 theta^2 / (1 + theta)``, with both ``n_pos - 1`` and ``n_neg - 1``
    replaced by ``N - 1``, ``N = (n_pos + n_neg) / 2`` (Newcombe's choice, which treats the
    two classes alike):
    ``theta (1 - theta) [1 + (N - 1) ((1 - theta) / (2 - theta) + theta / (1 + theta))]
    / (n_pos n_neg)``.

    Examples
    --------
    >>> round(newcombe_auc_variance(0.8, 20, 80), 6)
    0.003094
    >>> newcombe_auc_variance(1.0, 20, 80)
    0.0
    """
    k = 0.5 * (n_pos + n_neg) - 1.0
    shape = 1.0 + k * ((1.0 - theta) / (2.0 - theta) + theta / (1.0 + theta))
    return theta * (1.0 - theta) * shape / (n_pos * n_neg)


@validated
@doc_fragments(auc_parameters=AUC_PARAMETERS)
def newcombe_auc_interval(
    y_true: Any, y_score: Any, *, confidence_level: float = 0.95, pos_label: Any = 1
) -> AnalyticInterval:
    """ROC-AUC with Newcombe's score interval (his method 5, 2006).

    The interval is every ``theta`` in [0, 1] with
    ``|auc - theta| <= z sqrt(V(theta))``, ``V`` being :func:`newcombe_auc_variance`:
    the AUC's variance at ``theta``, not at the estimate. It inverts a test, as Wilson's
    interval does for a proportion, so it lies in [0, 1] and keeps a width where every
    positive outranks every negative (AUC = 1), where DeLong's interval and the bootstrap
    collapse to a point. ``V`` is Hanley and McNeil's model variance, which depends on the
    data only through the AUC and the class sizes.

    Parameters
    ----------
    {auc_parameters}

    Returns
    -------
    AnalyticInterval
        ``method = "newcombe-auc"``; ``n`` is the number of rows; ``standard_error`` is
        ``None`` (the interval is not ``estimate +/- z * se``).

    Raises
    ------
    InvalidInputError
        If the arrays are not 1-D or differ in length, the scores hold NaN or infinite
        values, ``y_true`` does not hold exactly two classes, ``pos_label`` is not one of
        them, or ``confidence_level`` is not strictly between 0 and 1. One row of a class
        is enough.

    Notes
    -----
    ``sqrt(V)`` is concave in ``theta``, so ``|auc - theta| - z sqrt(V(theta))`` crosses 0
    once on each side of the estimate: each end is one root, found by Brent's method.

    References
    ----------
    Newcombe, R. G. (2006). Confidence intervals for an effect size measure based on the
    Mann-Whitney statistic. Part 2: asymptotic methods and evaluation. Statistics in
    Medicine, 25, 559-573. Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of
    the area under a receiver operating characteristic (ROC) curve. Radiology, 143, 29-36.

    Examples
    --------
    >>> r = newcombe_auc_interval([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7])
    >>> print(r)
    0.8889 (0.4010, 0.9884)
    >>> print(newcombe_auc_interval([0, 0, 0, 1, 1], [0.1, 0.2, 0.3, 0.8, 0.9]))
    1.0000 (0.4389, 1.0000)
    """
    level = check_confidence_level(confidence_level)
    is_pos = _check_binary_labels(y_true, pos_label, two_each=False)
    score = _check_scores(y_score, "y_score", n_rows=is_pos.shape[0])
    v10, v01 = _placements(score, is_pos)
    m, n = v10.shape[0], v01.shape[0]
    auc = min(1.0, max(0.0, float(v10.mean())))
    low, high = newcombe_auc_bounds(auc, m, n, level)
    return AnalyticInterval(auc, low, high, level, "newcombe-auc", m + n, None)


def newcombe_auc_bounds(auc: float, n_pos: int, n_neg: int, level: float) -> tuple[float, float]:
    """The ends of :func:`newcombe_auc_interval` for an AUC of ``auc`` on ``n_pos``
    positive and ``n_neg`` negative rows.

    Examples
    --------
    >>> [round(x, 4) for x in newcombe_auc_bounds(0.5, 10, 10, 0.95)]
    [0.2735, 0.7265]
    """
    z = _normal_quantile(0.5 + 0.5 * level)

    def gap(theta: float) -> float:  # convex: one root on each side of the estimate
        return abs(auc - theta) - z * math.sqrt(newcombe_auc_variance(theta, n_pos, n_neg))

    # at an estimate of 0 or 1 the estimate itself is a root: the other end is bracketed
    # just inside it, where the variance's square root outgrows the distance
    inner = 1e-12
    low = 0.0 if auc <= 0.0 else brentq(gap, 0.0, auc - inner if auc >= 1.0 else auc)
    high = 1.0 if auc >= 1.0 else brentq(gap, auc + inner if auc <= 0.0 else auc, 1.0)
    return float(low), float(high)
