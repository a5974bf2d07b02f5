"""Closed-form confidence intervals, used as fast cross-checks for the bootstrap.

Each function here answers in microseconds to milliseconds, without resampling, and returns an
:class:`AnalyticInterval` (or a :class:`DeLongTest` for the paired AUC test):

* :func:`wilson_interval` -- Wilson score interval for a binomial proportion (e.g. accuracy).
* :func:`clopper_pearson_interval` -- exact (conservative) interval for a binomial proportion.
* :func:`delong_interval` -- ROC-AUC with DeLong's nonparametric standard error.
* :func:`delong_test` -- DeLong's paired test comparing the AUCs of two scorers on the same rows.
* :func:`fisher_z_interval` -- Fisher-z interval for a Pearson, Spearman or Kendall correlation,
  with the Bonett-Wright constants.

When the bootstrap and one of these formulas disagree badly on a large sample, one of the two
was set up wrongly; on small samples the formulas rest on approximations of their own.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import DegenerateIntervalWarning, InvalidInputError, warn
from ..core.format import format_triplet
from ..core.params import ALTERNATIVES, validated
from ..results import Difference, Result, protocol_defaults

__all__ = [
    "AnalyticInterval",
    "DeLongTest",
    "clopper_pearson_interval",
    "delong_interval",
    "delong_test",
    "fisher_z_interval",
    "wilson_interval",
]


# Bonett & Wright (2000): (b, c) in se = c / sqrt(n - b); c for Spearman depends on r.
_FISHER_OFFSETS = {"pearson": 3, "spearman": 3, "kendall": 4}


# --------------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class AnalyticInterval(Result):
    """A point estimate with a closed-form confidence interval.

    Attributes
    ----------
    estimate : float
        The point estimate (a proportion, an AUC or a correlation).
    low, high : float
        The interval's end points.
    confidence_level : float
        The nominal coverage, strictly between 0 and 1.
    method : str
        The formula: ``"wilson"``, ``"clopper-pearson"``, ``"delong"`` or ``"fisher-z"``.
    n : int
        The sample size the formula used; each function's docstring says what it counts.
    standard_error : float or None
        The standard error the interval was built from, on the scale the function documents;
        ``None`` where the interval is not of the form ``estimate +/- z * se``.

    Examples
    --------
    >>> ci = AnalyticInterval(0.8, 0.7, 0.9, 0.95, "wilson", 100, None)
    >>> print(ci)
    0.8000 (0.7000, 0.9000)
    >>> ci.format(scale=100, digits=1)
    '80.0 (70.0, 90.0)'
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    n: int
    standard_error: float | None

    def format(self, scale: float = 1.0, digits: int = 4) -> str:
        """Render ``estimate (low, high)``.

        Parameters
        ----------
        scale : float, default 1.0
            Factor applied to all three numbers (``100`` for percentages).
        digits : int, default 4
            Number of decimals.

        Returns
        -------
        str

        Examples
        --------
        >>> AnalyticInterval(0.5, 0.25, 0.75, 0.9, "wilson", 4, None).format(digits=2)
        '0.50 (0.25, 0.75)'
        """
        return format_triplet(self.estimate, self.low, self.high, scale=scale, digits=digits)

    def __str__(self) -> str:
        return self.format()


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


# --------------------------------------------------------------------------------------------
# Validation helpers (private)
# --------------------------------------------------------------------------------------------


def _describe(value: Any) -> str:
    """Short description of a received value for error messages."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} (type {type(value).__name__})"


def _check_confidence_level(confidence_level: Any) -> float:
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise InvalidInputError(
            "confidence_level", "a float strictly between 0 and 1", _describe(confidence_level)
        )
    level = float(confidence_level)
    if not (0.0 < level < 1.0):
        hint = ""
        if 1.0 < level < 100.0:
            hint = f"Did you mean {level / 100:g}?"
        raise InvalidInputError(
            "confidence_level", "a float strictly between 0 and 1", repr(confidence_level), hint
        )
    return level


def _check_integer(value: Any, name: str, *, minimum: int) -> int:
    """Accept Python/NumPy integers and integral floats; reject bools and everything else."""
    expected = f"an integer >= {minimum}"
    if isinstance(value, bool | np.bool_):
        raise InvalidInputError(name, expected, _describe(value))
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        out = int(value)
    else:
        raise InvalidInputError(name, expected, _describe(value))
    if out < minimum:
        raise InvalidInputError(name, expected, repr(value))
    return out


def _check_alternative(alternative: Any) -> str:
    if alternative not in ALTERNATIVES:
        raise InvalidInputError(
            "alternative", "one of " + ", ".join(repr(a) for a in ALTERNATIVES), repr(alternative)
        )
    return str(alternative)


def _check_scores(values: Any, name: str, n_rows: int | None = None) -> np.ndarray:
    """Return a finite 1-D float64 array, optionally of a required length."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise InvalidInputError(name, "a 1-D array of real numbers", str(exc)) from None
    if arr.dtype.kind == "c":
        raise InvalidInputError(name, "a 1-D array of real numbers", _describe(arr))
    try:
        arr = arr.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        raise InvalidInputError(name, "a 1-D array of real numbers", _describe(arr)) from None
    if arr.ndim != 1:
        raise InvalidInputError(name, "a 1-D array of real numbers", _describe(arr))
    if n_rows is not None and arr.shape[0] != n_rows:
        raise InvalidInputError(
            name,
            f"the same length as y_true ({n_rows})",
            f"length {arr.shape[0]}",
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            name,
            "finite numbers",
            f"{int(bad.sum())} NaN or infinite value(s), the first at index {first}",
        )
    return arr


def _check_binary_labels(y_true: Any, pos_label: Any) -> np.ndarray:
    """Return a boolean mask of positive rows; y_true must hold exactly two classes."""
    try:
        arr = np.asarray(y_true)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise InvalidInputError("y_true", "a 1-D array of binary labels", str(exc)) from None
    if arr.ndim != 1:
        raise InvalidInputError("y_true", "a 1-D array of binary labels", _describe(arr))
    if arr.dtype.kind in "fc" and not np.isfinite(arr).all():
        raise InvalidInputError("y_true", "labels without NaN or infinite values", "NaN or inf")
    try:
        classes = np.unique(arr)
    except TypeError:  # unorderable mixture of types
        raise InvalidInputError(
            "y_true", "labels of a single comparable type", _describe(arr)
        ) from None
    if classes.shape[0] != 2:
        shown = ", ".join(repr(c.item() if hasattr(c, "item") else c) for c in classes[:10])
        more = ", ..." if classes.shape[0] > 10 else ""
        raise InvalidInputError(
            "y_true",
            "exactly two classes",
            f"{classes.shape[0]} class(es): [{shown}{more}]",
            "The AUC needs both positive and negative rows.",
        )
    is_pos = arr == pos_label
    if not isinstance(is_pos, np.ndarray) or not is_pos.any():
        shown = ", ".join(repr(c.item() if hasattr(c, "item") else c) for c in classes)
        raise InvalidInputError(
            "pos_label", f"one of the classes in y_true ([{shown}])", repr(pos_label)
        )
    n_pos = int(is_pos.sum())
    n_neg = arr.shape[0] - n_pos
    if n_pos < 2 or n_neg < 2:
        raise InvalidInputError(
            "y_true",
            "at least two positive and two negative rows",
            f"{n_pos} positive and {n_neg} negative",
            "DeLong's variance uses a sample variance within each class.",
        )
    return is_pos


# --------------------------------------------------------------------------------------------
# Numerical helpers (private)
# --------------------------------------------------------------------------------------------


def _normal_quantile(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


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
# Proportions
# --------------------------------------------------------------------------------------------


@validated
def wilson_interval(successes: int, n: int, *, confidence_level: float = 0.95) -> AnalyticInterval:
    """Wilson score interval for a binomial proportion, without continuity correction.

    The interval is the set of proportions ``p`` that a two-sided score test at level
    ``1 - confidence_level`` would not reject. Unlike the Wald interval it stays inside
    ``[0, 1]`` and behaves sensibly when ``successes`` is 0 or ``n``.

    Parameters
    ----------
    successes : int
        Number of successes (e.g. correct predictions), between 0 and ``n``.
    n : int
        Number of trials (e.g. evaluated rows), at least 1.
    confidence_level : float, default 0.95
        Nominal coverage, strictly between 0 and 1.

    Returns
    -------
    AnalyticInterval
        ``estimate = successes / n``, ``method = "wilson"``, ``n`` = number of trials and
        ``standard_error = None`` (the interval is not centred on the estimate).

    Raises
    ------
    InvalidInputError
        If ``n`` is not a positive integer, ``successes`` is not an integer in ``[0, n]`` or
        ``confidence_level`` is not strictly between 0 and 1.

    Notes
    -----
    With ``z`` the ``1 - alpha/2`` normal quantile and ``p = successes / n``, the end points are

    ``(p + z^2 / (2n) -/+ z * sqrt(p (1 - p) / n + z^2 / (4 n^2))) / (1 + z^2 / n)``.

    Examples
    --------
    >>> print(wilson_interval(42, 50))
    0.8400 (0.7149, 0.9166)
    >>> wilson_interval(0, 10).low
    0.0
    """
    level = _check_confidence_level(confidence_level)
    n_ = _check_integer(n, "n", minimum=1)
    k = _check_integer(successes, "successes", minimum=0)
    if k > n_:
        raise InvalidInputError("successes", f"an integer between 0 and n = {n_}", repr(k))
    z = _normal_quantile(0.5 + 0.5 * level)
    p = k / n_
    z2n = z * z / n_
    denom = 1.0 + z2n
    centre = (p + z2n / 2.0) / denom
    half = z * math.sqrt(p * (1.0 - p) / n_ + z2n / (4.0 * n_)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n_ else min(1.0, centre + half)
    return AnalyticInterval(p, low, high, level, "wilson", n_, None)


@validated
def clopper_pearson_interval(
    successes: int, n: int, *, confidence_level: float = 0.95
) -> AnalyticInterval:
    """Clopper-Pearson ("exact") interval for a binomial proportion.

    The lower end is the proportion at which seeing ``successes`` or more has probability
    ``alpha / 2``; the upper end is the proportion at which seeing ``successes`` or fewer has
    probability ``alpha / 2``. Both come from beta quantiles. Coverage is at least the nominal
    level for every true proportion, so the interval is wider than :func:`wilson_interval`.

    Parameters
    ----------
    successes : int
        Number of successes, between 0 and ``n``.
    n : int
        Number of trials, at least 1.
    confidence_level : float, default 0.95
        Nominal (minimum) coverage, strictly between 0 and 1.

    Returns
    -------
    AnalyticInterval
        ``estimate = successes / n``, ``method = "clopper-pearson"``, ``n`` = number of trials
        and ``standard_error = None``. ``low`` is exactly 0 when ``successes == 0`` and
        ``high`` is exactly 1 when ``successes == n``.

    Raises
    ------
    InvalidInputError
        If ``n`` is not a positive integer, ``successes`` is not an integer in ``[0, n]`` or
        ``confidence_level`` is not strictly between 0 and 1.

    Notes
    -----
    ``low = B^-1(alpha/2; k, n - k + 1)`` and ``high = B^-1(1 - alpha/2; k + 1, n - k)``, where
    ``B^-1(q; a, b)`` is the ``q`` quantile of the Beta(a, b) distribution.

    Examples
    --------
    >>> print(clopper_pearson_interval(42, 50))
    0.8400 (0.7089, 0.9283)
    >>> clopper_pearson_interval(5, 5).high
    1.0
    """
    from scipy.special import betaincinv

    level = _check_confidence_level(confidence_level)
    n_ = _check_integer(n, "n", minimum=1)
    k = _check_integer(successes, "successes", minimum=0)
    if k > n_:
        raise InvalidInputError("successes", f"an integer between 0 and n = {n_}", repr(k))
    tail = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else float(betaincinv(k, n_ - k + 1, tail))
    high = 1.0 if k == n_ else float(betaincinv(k + 1, n_ - k, 1.0 - tail))
    return AnalyticInterval(k / n_, low, high, level, "clopper-pearson", n_, None)


# --------------------------------------------------------------------------------------------
# ROC-AUC (DeLong)
# --------------------------------------------------------------------------------------------


@validated
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
    y_true : array_like of shape (n,)
        Labels with exactly two classes; rows equal to ``pos_label`` are positive.
    y_score : array_like of shape (n,)
        Finite scores, higher meaning "more positive". Only their order matters.
    confidence_level : float, default 0.95
        Nominal coverage, strictly between 0 and 1.
    pos_label : scalar, default 1
        The value of ``y_true`` that marks a positive row.

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
    level = _check_confidence_level(confidence_level)
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
    y_true: Any,
    y_score_a: Any,
    y_score_b: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = 1,
) -> DeLongTest:
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
    level = _check_confidence_level(confidence_level)
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
        warn(
            "The DeLong standard error of the AUC difference is 0 (the two scorers give the "
            "same placement-value differences on every row, e.g. identical scores); the "
            "interval collapses to the observed difference and the p-value is degenerate.",
            DegenerateIntervalWarning,
            stacklevel=2,
        )
        if diff == 0.0:
            z, p = 0.0, 1.0
        else:
            z = math.copysign(math.inf, diff)
            agrees = two_sided or (alt == "greater") == (diff > 0)
            p = 0.0 if agrees else 1.0
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
        auc_a=auc_a,
        auc_b=auc_b,
        difference=diff,
        standard_error=se,
        z=z,
        p_value=p,
        low=low,
        high=high,
        confidence_level=level,
        alternative=alt,
        n_pos=m,
        n_neg=n,
    )


# --------------------------------------------------------------------------------------------
# Correlations (Fisher z)
# --------------------------------------------------------------------------------------------


@validated
def fisher_z_interval(
    r: float, n: int, *, coefficient: str = "pearson", confidence_level: float = 0.95
) -> AnalyticInterval:
    """Fisher-z interval for a correlation coefficient, with the Bonett-Wright constants.

    The correlation is mapped to ``z = atanh(r)``, where it is roughly normal with standard
    error ``c / sqrt(n - b)``; the normal interval is mapped back with ``tanh``:
    ``tanh(atanh(r) -/+ z_{1-alpha/2} * c / sqrt(n - b))``. The constants (Bonett & Wright,
    2000) are

    ========  ===  =====================
    kind       b    c
    ========  ===  =====================
    pearson    3    1
    spearman   3    sqrt(1 + r^2 / 2)
    kendall    4    sqrt(0.437)
    ========  ===  =====================

    The approximation assumes roughly bivariate-normal data; for skewed metric scores the
    bootstrap is the safer choice.

    Parameters
    ----------
    r : float
        The observed correlation, in ``[-1, 1]``.
    n : int
        Number of paired observations the correlation was computed from; must exceed ``b``.
    coefficient : {"pearson", "spearman", "kendall"}, default "pearson"
        Which correlation ``r`` is (case-insensitive).
    confidence_level : float, default 0.95
        Nominal coverage, strictly between 0 and 1.

    Returns
    -------
    AnalyticInterval
        ``estimate = r``, ``method = "fisher-z"``, ``n`` = number of paired observations and
        ``standard_error = c / sqrt(n - b)``, on the Fisher-z (``atanh``) scale.

    Raises
    ------
    InvalidInputError
        If ``r`` is not a finite number in ``[-1, 1]``, ``n`` is not an integer greater than
        ``b``, ``coefficient`` is unknown or ``confidence_level`` is not strictly between 0
        and 1.

    Warns
    -----
    DegenerateIntervalWarning
        When ``r`` is exactly -1 or 1: ``atanh(r)`` is infinite, so the interval is ``[r, r]``.

    Examples
    --------
    >>> print(fisher_z_interval(0.6, 50))
    0.6000 (0.3861, 0.7526)
    >>> print(fisher_z_interval(0.6, 50, coefficient="kendall"))
    0.6000 (0.4638, 0.7085)
    """
    level = _check_confidence_level(confidence_level)
    kind = coefficient.lower() if isinstance(coefficient, str) else coefficient
    if kind not in _FISHER_OFFSETS:
        raise InvalidInputError(
            "coefficient", "one of 'pearson', 'spearman', 'kendall'", repr(coefficient)
        )
    if isinstance(r, bool) or not isinstance(r, numbers.Real) or not math.isfinite(r):
        raise InvalidInputError("r", "a finite correlation in [-1, 1]", _describe(r))
    r_ = float(r)
    if not -1.0 <= r_ <= 1.0:
        raise InvalidInputError("r", "a correlation in [-1, 1]", repr(r))
    b = _FISHER_OFFSETS[kind]
    n_ = _check_integer(n, "n", minimum=1)
    if n_ <= b:
        raise InvalidInputError(
            "n",
            f"an integer greater than {b} for coefficient={kind!r}",
            repr(n),
            "The standard error c / sqrt(n - b) needs n > b.",
        )
    if kind == "pearson":
        c = 1.0
    elif kind == "spearman":
        c = math.sqrt(1.0 + r_ * r_ / 2.0)
    else:
        c = math.sqrt(0.437)
    se = c / math.sqrt(n_ - b)
    if abs(r_) == 1.0:
        warn(
            f"r = {r_:g} lies on the boundary: atanh(r) is infinite, so the Fisher-z interval "
            f"is the single point [{r_:g}, {r_:g}].",
            DegenerateIntervalWarning,
            stacklevel=2,
        )
        return AnalyticInterval(r_, r_, r_, level, "fisher-z", n_, se)
    zr = math.atanh(r_)
    half = _normal_quantile(0.5 + 0.5 * level) * se
    return AnalyticInterval(
        r_, math.tanh(zr - half), math.tanh(zr + half), level, "fisher-z", n_, se
    )
