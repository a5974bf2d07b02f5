"""Closed-form confidence intervals, used as fast cross-checks for the bootstrap.

Each function here answers in microseconds to milliseconds, without resampling, and returns an
:class:`AnalyticInterval` (or a :class:`DeLongTest` for the paired AUC test):

* :func:`wilson_interval` -- Wilson score interval for a binomial proportion (e.g. accuracy).
* :func:`clopper_pearson_interval` -- exact (conservative) interval for a binomial proportion.
* :func:`jeffreys_interval` -- equal-tailed Jeffreys interval for a binomial proportion, closed
  at 0 or 1 with the exact limit when every trial has the same outcome.
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
from ..core.validation import check_confidence_level
from ..metrics.base import doc_fragments
from ..results import Result

__all__ = [
    "AnalyticInterval",
    "clopper_pearson_interval",
    "fisher_z_interval",
    "jeffreys_interval",
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
        The formula: ``"wilson"``, ``"clopper-pearson"``, ``"jeffreys"``, ``"delong"`` or
        ``"fisher-z"``.
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
        """``estimate (low, high)``, each times ``scale`` (``100`` for percentages), with
        ``digits`` decimals.

        Examples
        --------
        >>> AnalyticInterval(0.5, 0.25, 0.75, 0.9, "wilson", 4, None).format(digits=2)
        '0.50 (0.25, 0.75)'
        """
        return format_triplet(self.estimate, self.low, self.high, scale=scale, digits=digits)

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


def zero_se_test(estimate: float, alternative: str, why: str) -> tuple[float, float]:
    """The statistic and p-value of a test whose standard error is 0, after a
    :class:`DegenerateIntervalWarning` that says ``why``: no evidence at an estimate of
    0, otherwise an infinite statistic, significant only on the side the alternative
    names.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     zero_se_test(0.0, "two-sided", "SE 0"), zero_se_test(0.2, "less", "SE 0")
    ((0.0, 1.0), (inf, 1.0))
    """
    warn(why, DegenerateIntervalWarning)
    if estimate == 0.0:
        return 0.0, 1.0
    agrees = alternative == "two-sided" or (alternative == "greater") == (estimate > 0)
    return math.copysign(math.inf, estimate), 0.0 if agrees else 1.0


def _check_binomial(successes: Any, n: Any, confidence_level: Any) -> tuple[int, int, float]:
    """``(successes, n)`` as integers with ``0 <= successes <= n`` and ``n >= 1``, and the
    confidence level."""
    level = check_confidence_level(confidence_level)
    n_ = _check_integer(n, "n", minimum=1)
    k = _check_integer(successes, "successes", minimum=0)
    if k > n_:
        raise InvalidInputError("successes", f"an integer between 0 and n = {n_}", repr(k))
    return k, n_, level


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


def _check_binary_labels(y_true: Any, pos_label: Any, *, two_each: bool = True) -> np.ndarray:
    """Return a boolean mask of positive rows; y_true must hold exactly two classes (with
    ``two_each``, at least two rows of each, as DeLong's variance needs)."""
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
    if two_each and (n_pos < 2 or n_neg < 2):
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


#: the parameters of a binomial interval, as its docstring states them
_BINOMIAL_PARAMETERS = """Parameters
----------
successes : int
    Number of successes (e.g. correct predictions), between 0 and ``n``.
n : int
    Number of trials (e.g. evaluated rows), at least 1.
confidence_level : float, default 0.95
    Nominal coverage, strictly between 0 and 1."""
#: the errors of a binomial interval, as its docstring states them
_BINOMIAL_RAISES = """Raises
------
InvalidInputError
    If ``n`` is not a positive integer, ``successes`` is not an integer in ``[0, n]`` or
    ``confidence_level`` is not strictly between 0 and 1."""


def _normal_quantile(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


# --------------------------------------------------------------------------------------------
# Proportions
# --------------------------------------------------------------------------------------------


@validated
@doc_fragments(binomial_parameters=_BINOMIAL_PARAMETERS, binomial_raises=_BINOMIAL_RAISES)
def wilson_interval(successes: int, n: int, *, confidence_level: float = 0.95) -> AnalyticInterval:
    """Wilson score interval for a binomial proportion, without continuity correction.

    The interval is the set of proportions ``p`` that a two-sided score test at level
    ``1 - confidence_level`` would not reject. Unlike the Wald interval it stays inside
    ``[0, 1]`` and behaves sensibly when ``successes`` is 0 or ``n``.

    {binomial_parameters}

    Returns
    -------
    AnalyticInterval
        ``estimate = successes / n``, ``method = "wilson"``, ``n`` = number of trials and
        ``standard_error = None`` (the interval is not centred on the estimate).

    {binomial_raises}

    Notes
    -----
    With ``z`` the ``1 - alpha/2`` normal quantile and ``p = successes / n``, the end points are

    ``(p + z^2 / (2n) -/+ z * sqrt(p (1 - p) / n + z^2 / (4 n^2))) / (1 + z^2 / n)``.

    Examples
    --------
    >>> print(wilson_interval(42, 50))
    0.8400 (0.7149, 0.9166)
    >>> wilson_interval(0, 10).low, wilson_interval(10, 10).high  # never beyond [0, 1]
    (0.0, 1.0)
    """
    k, n_, level = _check_binomial(successes, n, confidence_level)
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
@doc_fragments(binomial_raises=_BINOMIAL_RAISES)
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

    {binomial_raises}

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

    k, n_, level = _check_binomial(successes, n, confidence_level)
    tail = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else float(betaincinv(k, n_ - k + 1, tail))
    high = 1.0 if k == n_ else float(betaincinv(k + 1, n_ - k, 1.0 - tail))
    return AnalyticInterval(k / n_, low, high, level, "clopper-pearson", n_, None)


@validated
@doc_fragments(binomial_parameters=_BINOMIAL_PARAMETERS, binomial_raises=_BINOMIAL_RAISES)
def jeffreys_interval(
    successes: int, n: int, *, confidence_level: float = 0.95
) -> AnalyticInterval:
    """Equal-tailed Jeffreys interval for a binomial proportion.

    The end points are the ``alpha / 2`` and ``1 - alpha / 2`` quantiles of
    Beta(``successes + 1/2``, ``n - successes + 1/2``), the posterior under the Jeffreys
    prior, read as a confidence interval. Brown, Cai & DasGupta (2001) recommend it with
    the Wilson interval; it is nearly as short as Wilson's and its misses are balanced
    between the two sides. When every trial has the same outcome the quantile on the
    open side would sit too close to the estimate (coverage collapses for a true
    proportion just inside it), so that end is the exact Clopper-Pearson limit,
    ``(alpha / 2) ** (1 / n)`` for ``successes == n``, and the other end is 1 (0 when
    ``successes == 0``). This is the interval ``booteval.ci(..., method="auto")`` gives a
    proportion of independent rows (see ``docs/coverage.md``).

    {binomial_parameters}

    Returns
    -------
    AnalyticInterval
        ``estimate = successes / n``, ``method = "jeffreys"``, ``n`` = number of trials and
        ``standard_error = None``.

    {binomial_raises}

    Notes
    -----
    For ``0 < k < n``: ``low = B^-1(alpha/2; k + 1/2, n - k + 1/2)`` and
    ``high = B^-1(1 - alpha/2; k + 1/2, n - k + 1/2)``, ``B^-1(q; a, b)`` the ``q`` quantile
    of the Beta(a, b) distribution. Exact coverage (summing binomial probabilities over
    the outcomes whose interval contains ``p``) at ``n = 200``: 95.0 % for ``p = 0.95``
    (Wilson 96.7 %, Clopper-Pearson 96.7 %).

    Examples
    --------
    >>> print(jeffreys_interval(42, 50))
    0.8400 (0.7207, 0.9213)
    >>> r = jeffreys_interval(20, 20)  # all correct: not a point
    >>> round(r.low, 4), r.high
    (0.8316, 1.0)
    """
    from scipy.special import betaincinv

    k, n_, level = _check_binomial(successes, n, confidence_level)
    tail = (1.0 - level) / 2.0
    if k == n_:
        low, high = tail ** (1.0 / n_), 1.0
    elif k == 0:
        low, high = 0.0, 1.0 - tail ** (1.0 / n_)
    else:
        low = float(betaincinv(k + 0.5, n_ - k + 0.5, tail))
        high = float(betaincinv(k + 0.5, n_ - k + 0.5, 1.0 - tail))
    return AnalyticInterval(k / n_, low, high, level, "jeffreys", n_, None)


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
    level = check_confidence_level(confidence_level)
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
