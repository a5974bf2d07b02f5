"""The mean of scores in [0, 1]: Wilson's score interval with the scores' own dispersion.

A mean of graded scores (a judge's 0-1 grade, a 1-5 rating rescaled, the fraction of tests
passed) behaves like a proportion whose variance is a fraction of the binomial one:
``Var(x) = phi * mu * (1 - mu)`` with ``phi`` between 0 and 1 (``phi = 1`` for 0/1 scores,
``1 / (a + b + 1)`` for Beta(a, b) scores). :func:`quasi_wilson_interval` estimates ``phi``
from the data and gives the mean the Wilson interval of a binomial sample of
``n / phi`` rows, with Student's quantile on ``n - 1`` degrees of freedom: it stays in
[0, 1], is not centred on the mean where the mean is near 0 or 1, and keeps a width when
every score is 0 or 1.
"""

from __future__ import annotations

import math
from typing import Any

from scipy.special import stdtrit

from ..core.errors import InvalidInputError
from ..core.params import validated
from .analytic import AnalyticInterval, _check_scores

__all__ = ["constant_bound", "quasi_wilson_interval"]


def constant_bound(value: float, n: int, level: float) -> tuple[float, float]:
    """An interval for the mean of [0, 1] scores when all ``n`` of them equal ``value``.

    The share ``q`` of the population at ``value`` is at least ``(alpha / 2)^(1 / n)`` (the
    exact binomial bound after ``n`` of ``n``), and the rest lies somewhere in [0, 1], so
    the mean is between ``q value`` and ``q value + 1 - q``. For 0/1 scores this is the
    Clopper-Pearson interval of ``n`` out of ``n`` (or 0 out of ``n``).

    Examples
    --------
    >>> low, high = constant_bound(1.0, 10, 0.95)
    >>> round(low, 4), high
    (0.6915, 1.0)
    """
    q = ((1.0 - level) / 2.0) ** (1.0 / n)
    return q * value, q * value + (1.0 - q)


@validated
def quasi_wilson_interval(scores: Any, *, confidence_level: float = 0.95) -> AnalyticInterval:
    """Wilson's score interval for the mean of scores in [0, 1], with their dispersion.

    Parameters
    ----------
    scores : array_like of shape (n,)
        Per-row scores, each in [0, 1]; at least 2.
    confidence_level : float, default 0.95
        Nominal coverage, strictly between 0 and 1.

    Returns
    -------
    AnalyticInterval
        ``estimate`` the mean, ``method = "quasi-wilson"``, ``n`` the number of scores and
        ``standard_error = None`` (the interval is not centred on the mean).

    Raises
    ------
    InvalidInputError
        If ``scores`` is not a 1-D array of at least 2 finite numbers in [0, 1], or
        ``confidence_level`` is not strictly between 0 and 1.

    Notes
    -----
    With ``m`` the mean, ``s^2`` the sample variance (``n - 1`` in its denominator), the
    dispersion ``phi = s^2 / (m (1 - m))`` and the effective size ``n_e = n / phi``, the end
    points are Wilson's on ``n_e`` rows with ``t``, the ``1 - alpha / 2`` quantile of
    Student's t on ``n - 1`` degrees of freedom, in place of the normal one:

    ``(m + t^2 / (2 n_e) -/+ t sqrt(m (1 - m) / n_e + t^2 / (4 n_e^2))) / (1 + t^2 / n_e)``.

    The score form is what keeps the interval honest near the ends of the range, where the
    mean's distribution is skewed: on 143 conditions of scores in [0, 1] (Beta shapes,
    point masses at 0 and 1, ratings; 10 to 100 scores; 4,000 data sets each) its coverage
    is in [93.5, 96.5] % in 138, against 134 for the logit-t interval
    (``benchmarks/evalstats_comparison.py``). When
    every score is the same value there is no dispersion to estimate, and the interval is
    :func:`constant_bound`'s.

    Examples
    --------
    >>> print(quasi_wilson_interval([0.9, 1.0, 0.75, 1.0, 0.5, 1.0, 0.8, 1.0]))
    0.8687 (0.6584, 0.9579)
    >>> r = quasi_wilson_interval([1.0] * 8)   # every score 1: still a width
    >>> round(r.low, 4), r.high
    (0.6306, 1.0)
    """
    x = _check_scores(scores, "scores")
    level = float(confidence_level)
    n = x.size
    if n < 2:
        raise InvalidInputError("scores", "at least 2 scores", f"{n}")
    lo_x, hi_x = float(x.min()), float(x.max())
    if lo_x < 0.0 or hi_x > 1.0:
        raise InvalidInputError("scores", "scores in [0, 1]", f"scores from {lo_x:g} to {hi_x:g}")
    m = float(x.mean())
    phi = float(x.var(ddof=1)) / (m * (1.0 - m)) if 0.0 < m < 1.0 else 0.0
    if lo_x == hi_x or not (phi > 0.0 and math.isfinite(phi)):  # no dispersion to estimate
        low, high = constant_bound(m, n, level)
        return AnalyticInterval(m, low, high, level, "quasi-wilson", n, None)
    n_e = n / phi
    t = float(stdtrit(n - 1, 0.5 + 0.5 * level))
    t2n = t * t / n_e
    centre = (m + t2n / 2.0) / (1.0 + t2n)
    half = t * math.sqrt(m * (1.0 - m) / n_e + t2n / (4.0 * n_e)) / (1.0 + t2n)
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return AnalyticInterval(m, low, high, level, "quasi-wilson", n, None)
