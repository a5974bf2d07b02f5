"""DeLong's method for ROC-AUC: the interval of one system and the paired test of two."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import DegenerateIntervalWarning, warn
from ..core.format import format_triplet
from ..core.params import validated
from ..core.validation import check_confidence_level
from ..metrics.base import doc_fragments
from ..results import Difference, protocol_defaults
from .analytic import (
    AnalyticInterval,
    _check_alternative,
    _check_binary_labels,
    _check_scores,
    _normal_quantile,
    zero_se_test,
)


@dataclass(frozen=True, eq=False)
class DeLongTest(Difference):
    """Outcome of DeLong's paired comparison of two ROC-AUCs measured on the same rows.

    Attributes
    ----------
    auc_a, auc_b : float
        The AUC of each scorer.
    difference : float
        ``auc_b - auc_a``.
    standard_error : float
        DeLong standard error of the difference.
    z : float
        ``difference / standard_error`` (see :func:`delong_test` for a zero standard error).
    p_value : float
        p-value for the chosen ``alternative``.
    low, high : float
        Confidence interval for the difference, matching ``alternative``.
    confidence_level : float
        Nominal coverage of ``(low, high)``.
    alternative : str
        ``"two-sided"``, ``"greater"`` (``auc_b > auc_a``) or ``"less"``.
    n_pos, n_neg : int
        Numbers of positive and negative rows.

    Examples
    --------
    >>> t = DeLongTest(0.7, 0.8, 0.1, 0.05, 2.0, 0.0455, 0.002, 0.198, 0.95, "two-sided", 40, 60)
    >>> print(t)
    DeLong paired test (two-sided): AUC_a = 0.7000, AUC_b = 0.8000
      difference (b - a) = 0.1000 (0.0020, 0.1980), 95% CI, se = 0.0500
      z = 2.0000, p = 0.0455; n_pos = 40, n_neg = 60
    """

    _protocol_defaults = protocol_defaults(
        Difference,
        estimate=lambda r: r.difference,
        method="delong",
    )

    auc_a: float
    auc_b: float
    difference: float
    standard_error: float
    z: float
    p_value: float
    low: float
    high: float
    confidence_level: float
    alternative: str
    n_pos: int
    n_neg: int

    def format(self, scale: float = 1.0, digits: int = 4) -> str:
        """Render the test as three lines of text.

        Parameters
        ----------
        scale : float, default 1.0
            Factor applied to the AUCs, the difference, its interval and its standard error
            (not to ``z`` or the p-value).
        digits : int, default 4
            Number of decimals.

        Returns
        -------
        str

        Examples
        --------
        >>> t = DeLongTest(0.7, 0.8, 0.1, 0.05, 2.0, 0.0455, 0.0, 0.2, 0.9, "two-sided", 4, 6)
        >>> print(t.format(scale=100, digits=1).splitlines()[0])
        DeLong paired test (two-sided): AUC_a = 70.0, AUC_b = 80.0
        """
        d = digits
        level = f"{100 * self.confidence_level:g}%"
        diff = format_triplet(self.difference, self.low, self.high, scale=scale, digits=d)
        return (
            f"DeLong paired test ({self.alternative}): "
            f"AUC_a = {self.auc_a * scale:.{d}f}, AUC_b = {self.auc_b * scale:.{d}f}\n"
            f"  difference (b - a) = {diff}, {level} CI, "
            f"se = {self.standard_error * scale:.{d}f}\n"
            f"  z = {self.z:.{d}f}, p = {self.p_value:.{d}g}; "
            f"n_pos = {self.n_pos}, n_neg = {self.n_neg}"
        )

    def __str__(self) -> str:
        return self.format()


def _midranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of ``x`` with ties sharing the mean of their positions; O(n log n)."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    mid = upper - (counts - 1) / 2.0
    return mid[inverse.reshape(-1)]


def _placements(score: np.ndarray, is_pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong placement values via midranks (Sun & Xu, 2014).

    ``v10[i]`` is the share of negatives that positive ``i`` outranks (ties count 1/2);
    ``v01[j]`` is the share of positives that outrank negative ``j`` (ties count 1/2).
    Both have mean equal to the AUC.
    """
    pos = score[is_pos]
    neg = score[~is_pos]
    m, n = pos.shape[0], neg.shape[0]
    tz = _midranks(score)
    v10 = (tz[is_pos] - _midranks(pos)) / n
    v01 = 1.0 - (tz[~is_pos] - _midranks(neg)) / m
    return v10, v01


# --------------------------------------------------------------------------------------------
# ROC-AUC (DeLong)
# --------------------------------------------------------------------------------------------


#: the parameters of the single-scorer ROC-AUC intervals (DeLong's, Newcombe's)
AUC_PARAMETERS = """\
y_true : array_like of shape (n,)
    Labels with exactly two classes; rows equal to ``pos_label`` are positive.
y_score : array_like of shape (n,)
    Finite scores, higher meaning "more positive". Only their order matters; ties count
    one half.
confidence_level : float, default 0.95
    Nominal coverage, strictly between 0 and 1.
pos_label : scalar, default 1
    The value of ``y_true`` that marks a positive row."""


@validated
@doc_fragments(auc_parameters=AUC_PARAMETERS)
def delong_interval(
    y_true: Any, y_score: Any, *, confidence_level: float = 0.95, pos_label: Any = 1
) -> AnalyticInterval:
    """ROC-AUC with a normal-approximation interval from DeLong's variance.

    The AUC is the probability that a random positive row scores higher than a random
    negative row, with ties counting one half. Its variance is estimated with DeLong's
    structural components (placement values), computed in ``O(n log n)`` from midranks
    (Sun & Xu, 2014) instead of the ``O(n_pos * n_neg)`` pairwise table.

    Parameters
    ----------
    {auc_parameters}

    Returns
    -------
    AnalyticInterval
        ``method = "delong"``; ``n`` is the total number of rows, ``n_pos + n_neg`` (the
        variance uses both class sizes: ``se^2 = S10 / n_pos + S01 / n_neg``);
        ``standard_error`` is DeLong's standard error of the AUC. The interval is
        ``auc +/- z * se`` clipped to ``[0, 1]``.

    Raises
    ------
    InvalidInputError
        If the arrays are not 1-D or differ in length, the scores hold NaN or infinite values,
        ``y_true`` does not hold exactly two classes with at least two rows each, ``pos_label``
        is not one of them, or ``confidence_level`` is not strictly between 0 and 1.

    Warns
    -----
    DegenerateIntervalWarning
        When the standard error is 0 (the placement values are constant within each class, as
        under perfect separation or when every score is tied); the interval then collapses to
        the point estimate.

    Notes
    -----
    With ``V10[i]`` the share of negatives that positive ``i`` outranks and ``V01[j]`` the
    share of positives that outrank negative ``j`` (ties 1/2), ``S10`` and ``S01`` are their
    sample variances (denominators ``n_pos - 1`` and ``n_neg - 1``).

    Examples
    --------
    >>> ci = delong_interval([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7])
    >>> round(ci.estimate, 4), ci.n
    (0.8889, 6)
    >>> print(ci)
    0.8889 (0.5809, 1.0000)
    """
    level = check_confidence_level(confidence_level)
    is_pos = _check_binary_labels(y_true, pos_label)
    score = _check_scores(y_score, "y_score", n_rows=is_pos.shape[0])
    v10, v01 = _placements(score, is_pos)
    m, n = v10.shape[0], v01.shape[0]
    auc = float(v10.mean())
    var = float(np.var(v10, ddof=1)) / m + float(np.var(v01, ddof=1)) / n
    se = math.sqrt(var)
    if se == 0.0:
        warn(
            "DeLong standard error is 0: the placement values are constant within each class "
            "(perfect separation or all scores tied), so the interval collapses to the "
            f"estimate {auc:.6g}.",
            DegenerateIntervalWarning,
            stacklevel=2,
        )
    z = _normal_quantile(0.5 + 0.5 * level)
    low = max(0.0, auc - z * se)
    high = min(1.0, auc + z * se)
    return AnalyticInterval(auc, low, high, level, "delong", m + n, se)


@validated
def delong_test(
    y_true: Any, y_score_a: Any, y_score_b: Any, *, confidence_level: float = 0.95,
    alternative: str = "two-sided", pos_label: Any = 1,
) -> DeLongTest:  # fmt: skip
    """DeLong's paired test for the difference of two ROC-AUCs on the same rows.

    Both scorers are evaluated on the same labelled rows, so their AUCs are correlated; the
    test accounts for that through the covariance of their placement values (DeLong, DeLong &
    Clarke-Pearson, 1988), computed in ``O(n log n)`` from midranks.

    Parameters
    ----------
    y_true : array_like of shape (n,)
        Labels with exactly two classes; rows equal to ``pos_label`` are positive.
    y_score_a, y_score_b : array_like of shape (n,)
        Finite scores of the two systems for the same rows, in the same order.
    confidence_level : float, default 0.95
        Nominal coverage of the interval for the difference, strictly between 0 and 1.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"`` tests whether ``AUC_b > AUC_a``; ``"less"`` whether ``AUC_b < AUC_a``.
    pos_label : scalar, default 1
        The value of ``y_true`` that marks a positive row.

    Returns
    -------
    DeLongTest
        ``difference = auc_b - auc_a``, its standard error, ``z = difference / se`` and the
        p-value. The interval follows ``alternative`` (as in :mod:`scipy.stats`):
        ``difference +/- z_{1-alpha/2} * se`` for two-sided, ``[difference - z_{1-alpha} * se,
        1]`` for ``"greater"`` and ``[-1, difference + z_{1-alpha} * se]`` for ``"less"``, with
        finite ends clipped to ``[-1, 1]``.

    Raises
    ------
    InvalidInputError
        On malformed inputs, as in :func:`delong_interval`, or an unknown ``alternative``.

    Warns
    -----
    DegenerateIntervalWarning
        When the standard error of the difference is 0, e.g. for identical scores or for two
        scorers that rank the rows the same way.

    Notes
    -----
    The variance of the difference is ``L S10 L' / n_pos + L S01 L' / n_neg`` with
    ``L = (-1, 1)`` and ``S10``, ``S01`` the 2 x 2 sample covariance matrices of the placement
    values; it is computed as the sample variances of the per-row differences of placement
    values, which is the same number without cancellation.

    A zero standard error means the difference has no sampling variability under the model.
    Then, if the difference is 0, ``z = 0`` and ``p_value = 1.0`` for every alternative (no
    evidence against the null). If it is not 0, ``z`` is ``+inf`` or ``-inf`` and the p-value
    is the limit of the normal formula: 0 when the observed sign agrees with the alternative
    (always for two-sided), 1 otherwise. The interval collapses to the observed difference.

    Examples
    --------
    >>> y = [0, 0, 0, 1, 1, 1, 0, 1]
    >>> a = [0.1, 0.5, 0.3, 0.4, 0.6, 0.2, 0.7, 0.9]
    >>> b = [0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 0.5, 0.9]
    >>> t = delong_test(y, a, b)
    >>> round(t.auc_a, 4), round(t.auc_b, 4), round(t.difference, 4)
    (0.625, 0.9375, 0.3125)
    >>> round(t.p_value, 4)
    0.1138
    """
    level = check_confidence_level(confidence_level)
    alt = _check_alternative(alternative)
    is_pos = _check_binary_labels(y_true, pos_label)
    rows = is_pos.shape[0]
    score_a = _check_scores(y_score_a, "y_score_a", n_rows=rows)
    score_b = _check_scores(y_score_b, "y_score_b", n_rows=rows)

    v10_a, v01_a = _placements(score_a, is_pos)
    v10_b, v01_b = _placements(score_b, is_pos)
    m, n = v10_a.shape[0], v01_a.shape[0]
    auc_a = float(v10_a.mean())
    auc_b = float(v10_b.mean())
    diff = auc_b - auc_a
    var = float(np.var(v10_b - v10_a, ddof=1)) / m + float(np.var(v01_b - v01_a, ddof=1)) / n
    se = math.sqrt(var)

    two_sided = alt == "two-sided"
    z_crit = _normal_quantile(0.5 + 0.5 * level if two_sided else level)
    if se == 0.0:
        z, p = zero_se_test(
            diff,
            alt,
            "The DeLong standard error of the AUC difference is 0 (the two scorers give the "
            "same placement-value differences on every row, e.g. identical scores); the "
            "interval collapses to the observed difference and the p-value is degenerate.",
        )
    else:
        from scipy.special import ndtr

        z = diff / se
        if two_sided:
            p = min(1.0, 2.0 * float(ndtr(-abs(z))))
        elif alt == "greater":
            p = float(ndtr(-z))
        else:
            p = float(ndtr(z))

    low = max(-1.0, diff - z_crit * se) if alt != "less" else -1.0
    high = min(1.0, diff + z_crit * se) if alt != "greater" else 1.0
    return DeLongTest(
        auc_a=auc_a, auc_b=auc_b, difference=diff, standard_error=se, z=z, p_value=p, low=low,
        high=high, confidence_level=level, alternative=alt, n_pos=m, n_neg=n,
    )  # fmt: skip
