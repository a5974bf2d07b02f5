"""Interval methods: pure functions of a stored bootstrap distribution (the transforms they
may work through are in :mod:`booteval.core.transforms`).

Every function here takes the point estimate, the replicate values and, where a
method needs them, jackknife values or standard errors, and returns the
interval. Nothing here resamples, so any method can be recomputed from a stored
result and tested on its own.

Conventions
-----------
Quantile rule
    The endpoint at level ``p`` is the ``ceil(p * B)``-th smallest of the ``B``
    replicates (no interpolation; NumPy's ``"inverted_cdf"``). With
    ``B = 10_000`` at 95 % the percentile interval is the 250th and the 9,750th
    sorted values.
Ties in BCa's bias correction
    ``z0 = Phi^-1(p0)`` with ``p0 = (#{theta* < theta_hat} + #{theta* == theta_hat} / 2) / B``
    by default (``ties="half"``, as scipy), because accuracy-like metrics put many
    replicates exactly on the estimate and counting them as "not below" (R boot's
    rule, ``ties="below"``) biases ``z0`` downwards.
Acceleration
    From the centred jackknife values: with ``d_i = mean(theta_(.)) - theta_(i)``,
    ``a = sum(d^3) / (6 * sum(d^2)^1.5)``; the leave-one-out values are per unit
    (row, or cluster under a cluster design).
Normal
    Bias-corrected, as R boot's ``norm``: ``2 theta_hat - mean(theta*) -/+ z * sd(theta*)``.
Studentized
    ``t* = (theta* - theta_hat) / se*`` and the interval
    ``[theta_hat - t*_(1-alpha/2) se, theta_hat - t*_(alpha/2) se]``.

Degenerate cases (each warned with :class:`~booteval.DegenerateIntervalWarning`
and recorded in the outcome's ``notes``): all replicates equal (the interval has
zero width); BCa with the estimate outside the replicates (``z0`` infinite) or
a non-monotone adjustment (the percentile interval is returned instead); a
jackknife with zero variance (acceleration set to 0); BCa levels beyond the
extreme order statistics (the extreme replicate is used).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from .errors import DegenerateIntervalWarning, InvalidInputError, warn
from .order_stats import (
    _quantile_mcse,
    basic_endpoints,
    order_statistic_quantile,
    quantile_endpoints,
)
from .transforms import Transform, log_transform, resolve_transform

__all__ = [
    "METHODS",
    "STUDENTIZED",
    "CountedJackknife",
    "IntervalOutcome",
    "Transform",
    "bca_levels",
    "bca_levels_of",
    "compute_interval",
    "fraction_below",
    "log_transform",
    "normal_endpoints",
    "order_statistic_quantile",
    "resolve_transform",
    "vacuous_note",
]

METHODS: tuple[str, ...] = (
    "percentile", "basic", "normal", "bca", "studentized", "studentized-symmetric",
)  # fmt: skip
#: the methods that need a standard error of every replicate
STUDENTIZED: tuple[str, ...] = ("studentized", "studentized-symmetric")
#: the methods formed from the replicates alone: every method but the studentized ones
RESAMPLED: tuple[str, ...] = tuple(m for m in METHODS if m not in STUDENTIZED)
#: the closed-form methods ``method="auto"`` may choose (all others are bootstrap methods)
CLOSED_FORMS: tuple[str, ...] = (
    "jeffreys", "clustered-wilson", "cr2", "quasi-wilson", "newcombe", "tango", "newcombe-auc",
    "jackknife-t",
)  # fmt: skip


def methods_offered(*, standard_errors: bool = True, jackknife: bool = True) -> tuple[str, ...]:
    """The interval methods of a statistic, from what it offers: every method of
    :data:`METHODS`, less the studentized ones where it has no standard error of each
    replicate, less BCa where it has no jackknife. An entry point's allowed methods come
    from here, so that a new method of :func:`compute_interval` is offered wherever its
    needs are met.

    Examples
    --------
    >>> methods_offered(standard_errors=False)
    ('percentile', 'basic', 'normal', 'bca')
    >>> methods_offered(standard_errors=False, jackknife=False)
    ('percentile', 'basic', 'normal')
    """
    return tuple(
        m
        for m in METHODS
        if (standard_errors or m not in STUDENTIZED) and (jackknife or m != "bca")
    )


# ---------------------------------------------------------------- transforms
@dataclass(frozen=True)
class IntervalOutcome:
    """What an interval method produced.

    Attributes
    ----------
    low, high : float
        The interval on the metric's scale.
    mcse_low, mcse_high : float
        Monte Carlo standard errors of the endpoints (from the spread of the
        order statistics within one binomial standard deviation of the one
        used; for BCa plus the effect of the Monte Carlo error in ``z0`` on
        the adjusted levels; for the normal method from the sampling error of
        the mean and SD).
    notes : tuple of str
        Degenerate situations met and what was done about them.
    details : dict
        Method-specific values (``z0``, ``acceleration``, the adjusted levels).
    """

    low: float
    high: float
    mcse_low: float
    mcse_high: float
    notes: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class CountedJackknife:
    """Leave-one-unit-out values with their multiplicities: ``values[i]`` stands for
    ``counts[i]`` units (every row of a cell of equal rows leaves the same value), so BCa's
    acceleration needs no array of one value per unit (``10**9`` rows in a few cells).

    Two are equal when their values (NaN equal to NaN) and counts are, so a result that
    holds one compares equal to its copy after a pickle round trip.

    Examples
    --------
    >>> import pickle
    >>> j = CountedJackknife(np.array([0.5, np.nan]), np.array([3, 1]))
    >>> pickle.loads(pickle.dumps(j)) == j
    True
    """

    values: np.ndarray
    counts: np.ndarray

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CountedJackknife):
            return NotImplemented
        values, others = np.asarray(self.values), np.asarray(other.values)
        return (
            values.shape == others.shape
            and bool(np.array_equal(values, others, equal_nan=values.dtype.kind in "fc"))
            and bool(np.array_equal(np.asarray(self.counts), np.asarray(other.counts)))
        )

    __hash__ = None  # type: ignore[assignment]  # arrays: not hashable

    def __getitem__(self, key: Any) -> CountedJackknife:
        """One system's values (``jack[:, j]`` of values of shape ``(cells, K)``)."""
        return CountedJackknife(np.asarray(self.values)[key], self.counts)

    def __sub__(self, other: CountedJackknife) -> CountedJackknife:
        """The differences of two systems' values over the same cells."""
        return CountedJackknife(np.asarray(self.values) - np.asarray(other.values), self.counts)


def bca_levels(
    estimate: float,
    replicates: np.ndarray,
    jackknife: np.ndarray,
    alpha: float,
    *,
    ties: str = "half",
    counts: np.ndarray | None = None,
) -> tuple[float, float, float, float, list[str]]:
    """BCa's adjusted percentile levels.

    Parameters
    ----------
    estimate : float
    replicates : ndarray
        Finite replicate values.
    jackknife : ndarray
        Leave-one-unit-out values (finite).
    alpha : float
        ``1 - confidence_level``.
    ties : {"half", "below"}
        How replicates equal to the estimate count in ``z0``.
    counts : ndarray, optional
        How many units each jackknife value stands for (default: one each).

    Returns
    -------
    (level_low, level_high, z0, acceleration, notes)
        Levels are NaN when BCa is undefined (see the notes).

    Examples
    --------
    >>> reps = np.array([1.0, 2.0, 3.0, 4.0])
    >>> lo, hi, z0, a, notes = bca_levels(2.5, reps, np.array([1.0, 2.0, 3.0]), 0.5)
    >>> z0, a
    (0.0, 0.0)
    """
    if ties not in ("half", "below"):
        raise InvalidInputError("ties", "'half' or 'below'", repr(ties))
    p0 = fraction_below(
        int(np.count_nonzero(replicates < estimate)),
        int(np.count_nonzero(replicates == estimate)), replicates.shape[0], ties,
    )  # fmt: skip
    return bca_levels_of(p0, lambda: _jackknife_moments(jackknife, counts), alpha)


def fraction_below(below: int, equal: int, b: int, ties: str) -> float:
    """BCa's ``p0`` from the counts of replicates below and equal to the estimate (those
    equal count one half with ``ties="half"``, none with ``"below"``).

    Examples
    --------
    >>> fraction_below(40, 20, 100, "half"), fraction_below(40, 20, 100, "below")
    (0.5, 0.4)
    """
    below_f = float(below)
    if ties == "half":
        below_f += 0.5 * float(equal)
    return below_f / b


def _jackknife_moments(jackknife: np.ndarray, counts: np.ndarray | None) -> tuple[float, float]:
    """``(sum c d^2, sum c d^3)`` of the centred jackknife values ``d`` (each standing for
    ``c`` units); the second is NaN where the first is not positive and finite."""
    c = np.ones(jackknife.shape) if counts is None else np.asarray(counts, dtype=float)
    d = float(np.sum(c * jackknife) / np.sum(c)) - jackknife
    ss = float(np.sum(c * d * d))
    if ss <= 0.0 or not math.isfinite(ss):
        return ss, math.nan
    return ss, float(np.sum(c * d * d * d))


def bca_levels_of(
    p0: float, moments: Any, alpha: float
) -> tuple[float, float, float, float, list[str]]:
    """:func:`bca_levels` from ``p0`` (:func:`fraction_below`) and ``moments()``, the
    jackknife's ``(sum c d^2, sum c d^3)`` (called only where ``p0`` is inside (0, 1)).

    Examples
    --------
    >>> lo, hi, z0, a, notes = bca_levels_of(0.5, lambda: (2.0, 0.0), 0.1)
    >>> round(lo, 3), round(hi, 3), z0, a
    (0.05, 0.95, 0.0, 0.0)
    """
    notes: list[str] = []
    if p0 <= 0.0 or p0 >= 1.0:
        notes.append(
            "BCa undefined: the estimate lies outside the bootstrap distribution "
            f"(fraction below = {p0:g}, so z0 is infinite)"
        )
        return math.nan, math.nan, math.copysign(math.inf, p0 - 0.5), math.nan, notes
    z0 = float(ndtri(p0))
    ss, cube = moments()
    if ss <= 0.0 or not math.isfinite(ss):
        notes.append("jackknife values have zero variance: acceleration set to 0")
        acc = 0.0
    else:
        acc = cube / (6.0 * ss**1.5)

    levels = []
    for z_alpha in (float(ndtri(alpha / 2)), float(ndtri(1 - alpha / 2))):
        num = z0 + z_alpha
        den = 1.0 - acc * num
        if den <= 0.0:
            notes.append(
                f"BCa undefined: acceleration {acc:.3g} is too large for this level "
                "(1 - a (z0 + z) <= 0)"
            )
            return math.nan, math.nan, z0, acc, notes
        levels.append(float(ndtr(z0 + num / den)))
    return levels[0], levels[1], z0, acc, notes


def normal_endpoints(
    theta: float, mean: float, sd: float, alpha: float, b: int
) -> tuple[float, float, float, dict[str, float]]:
    """The bias-corrected normal interval from the replicates' mean and SD (``ddof=1``),
    the endpoints' (common) Monte Carlo error, and the details (bias, SD).

    Examples
    --------
    >>> lo, hi, mc, details = normal_endpoints(1.0, 1.0, 0.5, 0.05, 10_000)
    >>> round(lo, 3), round(hi, 3), details
    (0.02, 1.98, {'bias': 0.0, 'sd': 0.5})
    """
    bias = mean - theta
    z = float(ndtri(1 - alpha / 2))
    mc = math.sqrt(sd * sd / b + (z * sd) ** 2 / (2 * (b - 1)))
    return theta - bias - z * sd, theta - bias + z * sd, mc, {"bias": bias, "sd": sd}


def _check_monotone(g: Transform, reps: np.ndarray, estimate: float) -> None:
    """Refuse a transform that is not monotone (and invertible) over the replicates."""
    xs = np.unique(np.concatenate([reps, [estimate]]))
    with np.errstate(all="ignore"):
        ys = np.asarray(g.forward(xs), dtype=float)
        back = np.asarray(g.inverse(ys), dtype=float) if ys.size else ys
    if not np.all(np.isfinite(ys)):
        bad = float(xs[np.flatnonzero(~np.isfinite(ys))[0]])
        raise InvalidInputError(
            "transform",
            "a forward map that is finite over the replicate values",
            f"forward({bad:.6g}) is not finite",
        )
    steps = np.diff(ys)
    if not (np.all(steps >= 0) or np.all(steps <= 0)):
        i = int(np.flatnonzero(steps > 0)[0] if steps[0] < 0 else np.flatnonzero(steps < 0)[0])
        raise InvalidInputError(
            "transform",
            "a monotone forward map over the replicate values",
            f"{g.name}: forward({xs[i]:.6g}) = {ys[i]:.6g} but "
            f"forward({xs[i + 1]:.6g}) = {ys[i + 1]:.6g}, against the trend",
            "A non-monotone transform reorders the replicates, so the endpoints mapped back "
            "need not bracket the estimate.",
        )
    scale = max(1.0, float(np.max(np.abs(xs))))
    if not np.all(np.abs(back - xs) <= 1e-6 * scale + 1e-9 * np.abs(xs)):
        i = int(np.flatnonzero(~(np.abs(back - xs) <= 1e-6 * scale))[0])
        raise InvalidInputError(
            "transform",
            "an inverse that undoes the forward map",
            f"inverse(forward({xs[i]:.6g})) = {back[i]:.6g}",
        )


def _warn(notes: list[str]) -> None:
    for note in notes:
        warn(note, DegenerateIntervalWarning, stacklevel=4)


def compute_interval(
    method: str, estimate: float, replicates: np.ndarray, confidence_level: float, *,
    jackknife: np.ndarray | CountedJackknife | None = None,
    standard_error: float | None = None, replicate_standard_errors: np.ndarray | None = None,
    transform: Transform | None = None,
    bounds: tuple[float, float] | None = None, ties: str = "half", warn: bool = True,
) -> IntervalOutcome:  # fmt: skip
    """Form one interval from a bootstrap distribution.

    Parameters
    ----------
    method : {"percentile", "basic", "normal", "bca", "studentized", "studentized-symmetric"}
        ``"studentized-symmetric"`` is the bootstrap-t with one quantile of
        ``|t*|`` on both sides, ``estimate -+ q * se`` (Hall's symmetric percentile-t:
        its two-sided coverage error shrinks faster than the equal-tailed one's).
    estimate : float
        The metric on the original data.
    replicates : ndarray, shape (B,)
        Finite replicate values (undefined ones already removed).
    confidence_level : float
        In (0, 1).
    jackknife : ndarray or CountedJackknife, optional
        Leave-one-unit-out values (or distinct values and their multiplicities);
        required by ``"bca"``.
    standard_error : float, optional
        Standard error of the estimate; required by the studentized methods.
    replicate_standard_errors : ndarray, shape (B,), optional
        Standard error within each replicate; required by the studentized methods.
    transform : Transform, optional
        Applied to the estimate, the replicates and the jackknife values (and,
        by the delta method, the standard errors) before the interval is formed;
        the endpoints are mapped back.
    bounds : (float, float), optional
        The metric's range; endpoints outside it are clipped (and noted).
    ties : {"half", "below"}
        BCa's tie convention (see the module notes).
    warn : bool
        Emit :class:`DegenerateIntervalWarning` for each note.

    Returns
    -------
    IntervalOutcome

    Examples
    --------
    >>> reps = np.linspace(0.0, 1.0, 10_001)
    >>> out = compute_interval("percentile", 0.5, reps, 0.95)
    >>> round(out.low, 4), round(out.high, 4)
    (0.025, 0.975)
    """
    if method not in METHODS:
        raise InvalidInputError("method", f"one of {', '.join(map(repr, METHODS))}", repr(method))
    reps = np.asarray(replicates, dtype=float)
    b = reps.shape[0]
    if b == 0:
        raise InvalidInputError("replicates", "at least one finite replicate", "none")
    alpha = 1.0 - confidence_level
    notes: list[str] = []
    details: dict[str, Any] = {}

    g = transform
    if g is not None:
        _check_monotone(g, reps, estimate)
        theta = float(g.forward(np.array([estimate]))[0])
        t_reps = np.asarray(g.forward(reps), dtype=float)
    else:
        theta, t_reps = float(estimate), reps

    order = np.argsort(t_reps, kind="stable")
    srt = t_reps[order]

    if srt[0] == srt[-1]:
        notes.append(
            f"all {b} bootstrap replicates are equal ({reps[0]:g}): the data give no "
            "resampling variability, so the interval has zero width"
        )
        low = high = float(estimate)
        if warn:
            _warn(notes)
        return IntervalOutcome(low, high, 0.0, 0.0, tuple(notes), details)

    if method in ("percentile", "bca"):
        lev_lo, lev_hi = alpha / 2, 1 - alpha / 2
        if method == "bca":
            if jackknife is None:
                raise InvalidInputError("jackknife", "jackknife values for method='bca'", "None")
            counted = isinstance(jackknife, CountedJackknife)
            jk = np.asarray(jackknife.values if counted else jackknife, dtype=float)
            cnt = np.asarray(jackknife.counts, dtype=float) if counted else np.ones(jk.shape)
            finite = np.isfinite(jk)
            if not finite.all():
                notes.append(
                    f"{int(cnt[~finite].sum())} of {int(cnt.sum())} jackknife values "
                    "undefined; acceleration computed from the rest"
                )
                jk, cnt = jk[finite], cnt[finite]
            if g is not None:
                jk = np.asarray(g.forward(jk), dtype=float)
            a1, a2, z0, acc, bnotes = bca_levels(
                theta, t_reps, jk, alpha, ties=ties, counts=cnt if counted else None
            )
            notes.extend(bnotes)
            details.update(z0=z0, acceleration=acc, ties=ties)
            if math.isnan(a1):
                notes.append("percentile interval returned instead of BCa")
            else:
                lev_lo, lev_hi = a1, a2
                if min(a1, 1 - a2) < 1.0 / b:
                    notes.append(
                        f"BCa levels ({a1:.2g}, {a2:.4g}) reach beyond the extreme order "
                        f"statistics of {b} replicates: the endpoint is the extreme replicate; "
                        "increase n_resamples"
                    )
            details.update(levels=(lev_lo, lev_hi))
        bca = None
        if method == "bca" and math.isfinite(details["z0"]):
            bca = (details["z0"], details["acceleration"])
        lo_t, hi_t, mc_lo, mc_hi = quantile_endpoints(srt, lev_lo, lev_hi, alpha, bca)
    elif method == "basic":
        lo_t, hi_t, mc_lo, mc_hi = basic_endpoints(srt, theta, alpha)
    elif method == "normal":
        mean, sd = float(np.mean(t_reps)), float(np.std(t_reps, ddof=1))
        lo_t, hi_t, mc_lo, normal = normal_endpoints(theta, mean, sd, alpha, b)
        mc_hi = mc_lo
        details.update(normal)
    else:  # studentized
        if standard_error is None or replicate_standard_errors is None:
            raise InvalidInputError(
                "standard_error",
                f"the estimate's standard error and one per replicate for method={method!r}",
                "None",
            )
        se_star = np.asarray(replicate_standard_errors, dtype=float)
        se_hat = float(standard_error)
        if g is not None:
            se_hat = se_hat * abs(float(g.derivative(np.array([estimate]))[0]))
            se_star = se_star * np.abs(np.asarray(g.derivative(reps), dtype=float))
        # A replicate with a zero standard error (e.g. a resample with every row correct)
        # has an infinite pivot, of the sign of its deviation: it is an extreme of the
        # t distribution, not a missing value, and leaving it out would make the interval
        # too short on that side. With no deviation either, its pivot is 0.
        dev = t_reps - theta
        pivots, ok, zero = studentized_pivots(dev, se_star)
        if zero.any():
            notes.append(
                f"{int(zero.sum())} of {b} replicates have a zero standard error: their "
                "studentized values are infinite (0 where the replicate equals the estimate)"
            )
        if not ok.all():
            notes.append(
                f"{int((~ok).sum())} of {b} replicates have an undefined standard error "
                "and were left out of the studentized distribution"
            )
        if ok.sum() < 2 or not (se_hat > 0 and math.isfinite(se_hat)):
            notes.append(
                "studentized interval undefined (no usable standard errors); "
                "percentile interval returned instead"
            )
            lo_t = order_statistic_quantile(srt, alpha / 2)
            hi_t = order_statistic_quantile(srt, 1 - alpha / 2)
            mc_lo, mc_hi = _quantile_mcse(srt, alpha / 2), _quantile_mcse(srt, 1 - alpha / 2)
        else:
            if method == "studentized":
                t_star = np.sort(pivots[ok])
                lo_t = theta - order_statistic_quantile(t_star, 1 - alpha / 2) * se_hat
                hi_t = theta - order_statistic_quantile(t_star, alpha / 2) * se_hat
                mc_lo = _quantile_mcse(t_star, 1 - alpha / 2) * se_hat
                mc_hi = _quantile_mcse(t_star, alpha / 2) * se_hat
            else:  # symmetric: one quantile of |t*| on both sides
                abs_t = np.sort(np.abs(pivots[ok]))
                q = order_statistic_quantile(abs_t, 1 - alpha)
                if not math.isfinite(q):
                    notes.append(
                        "the symmetric studentized quantile is infinite (too many replicates "
                        "with a zero standard error): the interval is unbounded"
                    )
                lo_t, hi_t = theta - q * se_hat, theta + q * se_hat
                mc_lo = mc_hi = _quantile_mcse(abs_t, 1 - alpha) * se_hat
                details.update(t_quantile=q)
            details.update(standard_error=se_hat)

    if g is not None:
        ends = np.asarray(g.inverse(np.array([lo_t, hi_t])), dtype=float)
        # carry the Monte Carlo errors back by the local slope of the inverse
        slope = (
            np.abs(1.0 / np.asarray(g.derivative(ends), dtype=float))
            if np.all(np.isfinite(ends))
            else np.array([math.nan, math.nan])
        )
        low, high = float(ends[0]), float(ends[1])
        mc_lo, mc_hi = mc_lo * float(slope[0]), mc_hi * float(slope[1])
        if low > high:
            low, high, mc_lo, mc_hi = high, low, mc_hi, mc_lo
    else:
        low, high = float(lo_t), float(hi_t)

    # an interval that says nothing: an infinite end, or nothing left out of the range on
    # either side (infinite on the scale it was formed on, or clipped to the range)
    gone_lo = not math.isfinite(float(lo_t)) or (bounds is not None and low < bounds[0])
    gone_hi = not math.isfinite(float(hi_t)) or (bounds is not None and high > bounds[1])
    infinite = not (math.isfinite(low) and math.isfinite(high))
    if (gone_lo and gone_hi) or (infinite and bounds is None):
        details.update(vacuous=True)
    if bounds is not None:
        blo, bhi = bounds
        if low < blo or high > bhi:
            notes.append(
                f"interval ({low:.6g}, {high:.6g}) clipped to the metric's range [{blo:g}, {bhi:g}]"
            )
            low, high = max(low, blo), min(high, bhi)
    if not low <= estimate <= high:
        notes.append(
            f"the estimate {estimate:.6g} lies outside its own interval ({low:.6g}, {high:.6g}): "
            "the bootstrap distribution is centred away from the estimate (a metric biased "
            "under resampling, such as ECE with many bins, or too few resampling units); "
            "treat this interval with caution"
        )

    if warn:
        _warn([n for n in notes if not n.startswith("interval (")])
    return IntervalOutcome(low, high, float(mc_lo), float(mc_hi), tuple(notes), details)


def studentized_pivots(
    deviations: np.ndarray, standard_errors: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bootstrap-t's pivots ``(theta* - theta) / se*``, which of them are usable, and
    which replicates have a zero standard error.

    A replicate with a zero standard error (e.g. a resample with every row correct) has
    an infinite pivot, of the sign of its deviation: it is an extreme of the t
    distribution, not a missing value, and leaving it out would make the interval too
    short on that side (and a p-value too small). With no deviation either, its pivot is
    0. An undefined standard error (NaN) is not usable.

    Examples
    --------
    >>> p, ok, zero = studentized_pivots(np.array([1.0, -2.0, 0.0, 1.0]),
    ...                                  np.array([0.5, 0.0, 0.0, np.nan]))
    >>> p[ok].tolist(), zero.tolist()
    ([2.0, -inf, 0.0], [False, True, True, False])
    """
    dev = np.asarray(deviations, dtype=float)
    se = np.asarray(standard_errors, dtype=float)
    zero = np.isfinite(se) & (se == 0)
    ok = (np.isfinite(se) & (se > 0)) | zero
    with np.errstate(divide="ignore", invalid="ignore"):
        pivots = np.where(zero, np.sign(dev) * np.inf, dev / np.where(zero, 1.0, se))
    return np.where(zero & (dev == 0), 0.0, pivots), ok, zero


def vacuous_note(method: str, instead: str) -> str:
    """The note of a default whose bootstrap-t said nothing (``details["vacuous"]``), for
    ``ci`` and ``compare``.

    Examples
    --------
    >>> vacuous_note("studentized", "BCa from the same replicates")[:44]
    'the studentized interval was unbounded or sp'
    """
    return (
        f"the {method} interval was unbounded or spanned the whole range (too many "
        f"replicates with a zero or tiny standard error), so method='auto' gives {instead}"
    )
