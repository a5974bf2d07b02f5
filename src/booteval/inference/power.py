"""Power and minimum detectable effect (MDE) of a paired comparison of two systems.

Three questions about a test set, each answered from the uncertainty of the
paired difference ``B - A``:

- :func:`minimum_detectable_effect`: the smallest true difference that a
  level-``alpha`` test detects with the requested power;
- :func:`power_for_effect`: the probability of detecting a given true difference;
- :func:`required_sample_size`: the number of test rows (or clusters, under a
  cluster design) needed to detect a given difference with the requested power.

Where the uncertainty comes from
--------------------------------
Each function takes one of three references:

1. a :class:`~booteval.results.ComparisonResult` from :func:`booteval.compare`, for any
   metric: its paired bootstrap standard error of the difference already
   reflects the pairing of the two systems and the design (strata, clusters);
2. pilot per-row outcomes of the two systems, ``scores_a, scores_b``, whose
   mean is the metric (correctness indicators for accuracy, per-row scores for
   a mean), with ``clusters=`` optionally. With ``d = b - a`` per row,
   ``Var(d) = Var(a) + Var(b) - 2 Cov(a, b)``: the more positively correlated
   the two systems' outcomes, the smaller the standard error and the MDE. Under
   a cluster design the standard error is the cluster-robust one, computed from
   the cluster sums of ``d``; its ratio to the iid one is the design effect
   ``DEFF = 1 + (m - 1) ICC`` (``m`` the mean cluster size), without assuming
   equal cluster sizes;
3. a plain ``standard_error`` of the difference, with the number of rows ``n``
   (and ``n_clusters``) it was computed at, where a new size is asked about.

A standard error at ``n`` rows (``G`` clusters) is carried to a new size by
``SE * sqrt(n / n_new)`` (``SE * sqrt(G / G_new)``); under a cluster design the
number of clusters is the unit of every sample-size answer.

Formulas
--------
With ``z_p = Phi^-1(p)``, a level-``alpha`` test and power ``1 - beta``::

    MDE   = (z_{1 - alpha/2} + z_{1 - beta}) * SE
    power = Phi(delta / SE - z_{1 - alpha/2}) + Phi(-delta / SE - z_{1 - alpha/2})
    n     = n_ref * ((z_{1 - alpha/2} + z_{1 - beta}) * SE_ref / delta) ** 2, rounded up

(one-sided tests: ``z_{1 - alpha}`` for ``z_{1 - alpha/2}`` and no second term in the power).

These are normal approximations: the estimated difference is taken to be normal
with a standard deviation equal to the estimated standard error, which stands in
for the unknown true one (and is assumed not to change with the true
difference). The two-sided MDE ignores the far tail (rejecting in the wrong
direction), which adds less than ``Phi(-2 z_{1 - alpha/2} - z_{1 - beta})``
(about 1e-6 at 80 % power, alpha = 0.05) to the power.
"""

from __future__ import annotations

import math
from typing import Any

from scipy.special import ndtri

from ..core.errors import InvalidInputError
from ..core.params import validated
from .power_model import (
    PowerAnalysis,
    _at_size,
    _ceil,
    _check_alternative,
    _check_fraction,
    _check_positive,
    _few_units,
    _levels,
    _power,
    _reference,
    _result,
    _z_level,
)

__all__ = [
    "PowerAnalysis",
    "minimum_detectable_effect",
    "power_for_effect",
    "required_sample_size",
]

# ---------------------------------------------------------------------------- public
_SHARED_PARAMETERS = """
    *data : ComparisonResult, or scores_a, scores_b
        The reference: a result of :func:`booteval.compare` (any metric; its
        paired bootstrap standard error is used, and ``alpha`` defaults to
        ``1 - confidence_level``), or pilot per-row outcomes of systems A and
        B on the same rows whose mean is the metric (0/1 correctness for
        accuracy). Leave empty to pass ``standard_error`` instead.
    alpha : float, optional
        Significance level of the test, strictly between 0 and 1; 0.05 unless
        a comparison sets it. Two-sided tests split it over both tails.
    alternative : {"two-sided", "one-sided"}
        ``"greater"`` and ``"less"`` are accepted as ``"one-sided"`` (the
        effect is then measured in the tested direction).
    clusters : array-like, optional
        Cluster label of each pilot row; the standard error becomes the
        cluster-robust one and sizes count clusters.
    standard_error : float, optional
        Standard error of the difference at the reference size (without
        ``data``).
    n, n_clusters : int, optional
        With ``standard_error``: the rows (and clusters) it was computed at;
        needed to rescale it or to answer in rows (clusters)."""


@validated(own=("alternative",))
def minimum_detectable_effect(
    *data: Any, power: float = 0.8, alpha: float | None = None, alternative: str = "two-sided",
    clusters: Any = None, standard_error: float | None = None, n: int | None = None,
    n_clusters: int | None = None, n_new: int | None = None, n_clusters_new: int | None = None,
) -> PowerAnalysis:  # fmt: skip
    """The smallest true difference ``B - A`` a test detects with the requested power.

    ``MDE = (z_{1 - alpha/2} + z_{power}) * SE`` (one-sided: ``z_{1 - alpha}``),
    a normal approximation in which the estimated standard error of the paired
    difference stands in for the true one. A difference you care about that
    is smaller than the MDE needs a larger test set, not another test.

    Parameters
    ----------
    {shared}
    power : float
        Requested power, strictly between ``alpha`` and 1 (default 0.8).
    n_new : int, optional
        Evaluate at this many test rows instead of the reference's
        (``SE * sqrt(n / n_new)``; under a cluster design, rows in clusters of
        the reference's mean size).
    n_clusters_new : int, optional
        Evaluate at this many clusters (``SE * sqrt(G / G_new)``).

    Returns
    -------
    PowerAnalysis
        ``effect`` is the MDE, in the metric's units.

    Examples
    --------
    From a standard error of the difference (here 1 point of accuracy):

    >>> m = minimum_detectable_effect(standard_error=0.01)
    >>> round(m.effect, 6)
    0.028016
    >>> round(minimum_detectable_effect(standard_error=0.01, alternative="one-sided").effect, 6)
    0.024865

    From pilot correctness of two systems on 200 rows, for a test set of 800
    rows. B is right wherever A is, so their outcomes are positively correlated
    and the paired standard error is much smaller than the unpaired one:

    >>> import numpy as np
    >>> a = np.array([1, 1, 0, 0] * 50)
    >>> b = np.array([1, 1, 0, 1] * 50)
    >>> m = minimum_detectable_effect(a, b, n_new=800)
    >>> print(m)
    MDE at 80 % power, α = 0.05 (two-sided): 0.0430 with 800 rows
    >>> round(m.correlation, 3), round(m.unpaired_standard_error / m.standard_error, 3)
    (0.577, 1.528)
    """
    ref = _reference(data, clusters, standard_error, n, n_clusters)
    a, p, alt = _levels(alpha, power, ref, alternative)
    se, rows, groups, notes = _at_size(ref, n_new, n_clusters_new)
    effect = (_z_level(a, alt) + float(ndtri(p))) * se
    notes += _few_units(groups if groups is not None else rows, "independent units")
    return _result(ref, "effect", effect, p, a, alt, se, rows, groups, notes)


@validated(own=("alternative",))
def power_for_effect(
    *data: Any, effect: float, alpha: float | None = None, alternative: str = "two-sided",
    clusters: Any = None, standard_error: float | None = None, n: int | None = None,
    n_clusters: int | None = None, n_new: int | None = None, n_clusters_new: int | None = None,
) -> PowerAnalysis:  # fmt: skip
    """The probability that the test detects a true difference ``effect``.

    ``Phi(effect/SE - z_{1 - alpha/2}) + Phi(-effect/SE - z_{1 - alpha/2})``
    (one-sided: ``Phi(effect/SE - z_{1 - alpha})``), a normal approximation in
    which the estimated standard error of the paired difference stands in for
    the true one.

    Parameters
    ----------
    {shared}
    effect : float
        The true difference ``B - A`` (its size; positive), in the metric's units.
    n_new, n_clusters_new : int, optional
        Evaluate at this many rows or clusters, as in :func:`minimum_detectable_effect`.

    Returns
    -------
    PowerAnalysis
        ``power`` is the answer.

    Examples
    --------
    >>> r = power_for_effect(standard_error=0.01, effect=0.02)
    >>> round(r.power, 4)
    0.516
    >>> print(power_for_effect(standard_error=0.01, n=1000, n_new=4000, effect=0.02))
    Power to detect 0.0200 at α = 0.05 (two-sided): 97.93 % with 4000 rows
    """
    ref = _reference(data, clusters, standard_error, n, n_clusters)
    a = ref.alpha if alpha is None else _check_fraction(alpha, "alpha", "0.05")
    alt = _check_alternative(alternative)
    eff = _check_positive(
        effect, "effect", "Pass the size of the difference; its sign only names the direction."
    )
    se, rows, groups, notes = _at_size(ref, n_new, n_clusters_new)
    notes += _few_units(groups if groups is not None else rows, "independent units")
    return _result(ref, "power", eff, _power(eff, se, a, alt), a, alt, se, rows, groups, notes)


@validated(own=("alternative",))
def required_sample_size(
    *data: Any, effect: float, power: float = 0.8, alpha: float | None = None,
    alternative: str = "two-sided", clusters: Any = None, standard_error: float | None = None,
    n: int | None = None, n_clusters: int | None = None,
) -> PowerAnalysis:  # fmt: skip
    """The number of test rows (clusters, under a cluster design) to detect ``effect``.

    ``n = n_ref * ((z_{1 - alpha/2} + z_{power}) * SE_ref / effect)^2``, rounded
    up, with ``n_ref`` the number of rows (clusters) the reference standard
    error ``SE_ref`` was computed at. Under a cluster design the count is of
    clusters (new clusters like the reference's: same mean size and design
    effect), and the rows follow from the reference's mean cluster size. A
    normal approximation in which the estimated standard error stands in for
    the true one.

    Parameters
    ----------
    {shared}
        With ``standard_error``, ``n`` (or ``n_clusters``) is required here.
    effect : float
        The true difference ``B - A`` to detect (its size; positive).
    power : float
        Requested power, strictly between ``alpha`` and 1 (default 0.8).

    Returns
    -------
    PowerAnalysis
        ``n`` (and ``n_clusters``) is the answer; ``standard_error`` is the
        standard error at that size.

    Examples
    --------
    >>> r = required_sample_size(standard_error=0.01, n=1000, effect=0.01)
    >>> r.n
    7849
    >>> print(required_sample_size(standard_error=0.02, n=5000, n_clusters=50, effect=0.02))
    Needed to detect 0.0200 at 80 % power, α = 0.05 (two-sided): 393 clusters (about 39300 rows)
    """
    ref = _reference(data, clusters, standard_error, n, n_clusters)
    a, p, alt = _levels(alpha, power, ref, alternative)
    eff = _check_positive(
        effect, "effect", "Pass the size of the difference; its sign only names the direction."
    )
    try:
        ratio = ((_z_level(a, alt) + float(ndtri(p))) * ref.standard_error / eff) ** 2
    except OverflowError:
        ratio = math.inf
    if not ratio * (ref.n_clusters or ref.n or 1) < 1e15:
        raise InvalidInputError(
            "effect",
            "a difference large enough to be detected with fewer than 10**15 units",
            f"{eff!r} (standard error of the reference: {ref.standard_error:.3g})",
        )
    if ref.n_clusters is not None:
        groups: int | None = _ceil(ref.n_clusters * ratio)
        rows = None if ref.n is None else -(-groups * ref.n // ref.n_clusters)
        se = ref.standard_error * math.sqrt(ref.n_clusters / groups)
        notes = _few_units(groups, "clusters")
    else:
        if ref.n is None:
            raise InvalidInputError(
                "n",
                "the number of rows the standard error was computed at (or n_clusters)",
                "None",
            )
        groups, rows = None, _ceil(ref.n * ratio)
        se = ref.standard_error * math.sqrt(ref.n / rows)
        notes = _few_units(rows, "rows")
    return _result(ref, "sample size", eff, p, a, alt, se, rows, groups, notes)


for _f in (minimum_detectable_effect, power_for_effect, required_sample_size):
    if _f.__doc__:  # None under python -OO
        _f.__doc__ = _f.__doc__.replace("{shared}", _SHARED_PARAMETERS.strip())
del _f
