"""Many bootstrap intervals at once: one per row of an ``(m, B)`` matrix of replicate values
(a leaderboard's pairwise differences, one pair a row).

Each row's interval is the one :func:`~booteval.core.intervals.compute_interval` forms from
that row, to the last bit, without its per-row costs: instead of sorting the row, only
the positions the endpoints read (:func:`~booteval.core.order_stats.order_window`) are put
in sorted order (:func:`~booteval.core.row_kernels.sort_windows`); BCa's ``z0`` comes from
compiled counts and its acceleration from NumPy sums over the jackknife rows (the same
sums, in the same order, as for one row); and the endpoints are then formed by the very
functions ``compute_interval`` calls. A row that meets a degenerate case (every replicate
equal, BCa undefined or beyond the extreme order statistics, undefined jackknife values,
an endpoint clipped to the bounds, the estimate outside its interval) is left to
``compute_interval``, which says what happened: it gets ``None`` here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import InvalidInputError
from .intervals import (
    IntervalOutcome,
    bca_levels_of,
    fraction_below,
    normal_endpoints,
)
from .order_stats import basic_endpoints, order_window, quantile_endpoints
from .row_kernels import row_counts, sort_windows

__all__ = ["ROW_METHODS", "row_intervals"]

#: the methods :func:`row_intervals` forms (those of the replicates alone, no transform)
ROW_METHODS: tuple[str, ...] = ("percentile", "basic", "normal", "bca")


def row_intervals(
    method: str, estimates: np.ndarray, rows: np.ndarray, confidence_level: float, *,
    jackknife: np.ndarray | None = None, jackknife_counts: np.ndarray | None = None,
    ties: str = "half", bounds: tuple[float, float] | None = None, mcse: bool = True,
    counts: tuple[np.ndarray, ...] | None = None, moments: tuple[np.ndarray, ...] | None = None,
    jackknife_moments: tuple[np.ndarray, ...] | None = None,
) -> list[IntervalOutcome | None]:  # fmt: skip
    """Each row's interval, as :func:`~booteval.core.intervals.compute_interval` gives it.

    Parameters
    ----------
    method : {"percentile", "basic", "normal", "bca"}
    estimates : ndarray, shape (m,)
        Each row's point estimate.
    rows : ndarray, shape (m, B)
        Finite replicate values, C-contiguous float64. Reordered in place (each row
        keeps its values, but in no useful order).
    confidence_level : float
    jackknife : ndarray, shape (m, n), optional
        Each row's leave-one-unit-out values (BCa); a float64 array is overwritten.
    jackknife_counts : ndarray, shape (n,), optional
        How many units each jackknife value stands for (a
        :class:`~booteval.core.intervals.CountedJackknife`'s counts).
    ties, bounds
        As for ``compute_interval``.
    mcse : bool
        Form the endpoints' Monte Carlo errors (otherwise NaN, and only the two order
        statistics of each row are put in place).
    counts : tuple of ndarray, optional
        :func:`~booteval.core.row_kernels.row_counts` of the rows at their estimates
        (a first column of counts), where the caller has them.
    moments : tuple of ndarray, optional
        The rows' means and SDs (``ddof=1``) as NumPy gives them (the normal interval),
        where the caller has them.
    jackknife_moments : tuple of ndarray, optional
        In place of ``jackknife``: :func:`~booteval.core.row_kernels.jackknife_sums` of
        the rows' jackknife values (``sum d^2``, ``sum d^3``, all finite).

    Returns
    -------
    list of IntervalOutcome or None
        ``None`` for a row that meets a degenerate case: ``compute_interval`` forms it,
        with its notes.

    Examples
    --------
    >>> from booteval.core.intervals import compute_interval
    >>> rng = np.random.default_rng(0)
    >>> rows = rng.normal(size=(3, 4000))
    >>> expected = [compute_interval("percentile", 0.0, r, 0.95) for r in rows]
    >>> got = row_intervals("percentile", np.zeros(3), rows.copy(), 0.95)
    >>> [(g.low, g.high) == (e.low, e.high) for g, e in zip(got, expected)]
    [True, True, True]
    """
    if method not in ROW_METHODS:
        raise InvalidInputError("method", f"one of {', '.join(map(repr, ROW_METHODS))}", method)
    if ties not in ("half", "below"):
        raise InvalidInputError("ties", "'half' or 'below'", repr(ties))
    m, b = rows.shape
    alpha = 1.0 - confidence_level
    theta = np.asarray(estimates, dtype=float)
    out: list[IntervalOutcome | None] = [None] * m
    if b == 0 or m == 0:
        return out
    below, equal, low, high = row_counts(rows, theta[:, None]) if counts is None else counts
    spread = np.flatnonzero(low != high)  # every replicate equal: compute_interval's note
    if method == "normal":
        if not spread.size:
            return out
        mean, sd = (rows.mean(axis=1), rows.std(axis=1, ddof=1)) if moments is None else moments
        for i in spread:
            lo, hi, mc, details = normal_endpoints(
                float(theta[i]), float(mean[i]), float(sd[i]), alpha, b
            )
            mc = mc if mcse else math.nan
            out[i] = _checked(lo, hi, mc, mc, details, float(theta[i]), bounds)
        return out
    levels: dict[int, tuple[float, float, Any, dict[str, Any]]] = {}
    if method == "bca":
        sums = jackknife_moments
        if sums is None:
            sums = _jackknife_moments(jackknife, jackknife_counts)
        levels = _bca_rows(spread, below, equal, b, alpha, ties, *sums)
    else:
        sides = (alpha / 2, 1 - alpha / 2) if method == "percentile" else (1 - alpha / 2, alpha / 2)
        levels = {int(i): (*sides, None, {}) for i in spread}
    windows = np.zeros((m, 2, 2), dtype=np.int64)
    for i, (lev_lo, lev_hi, bca, _) in levels.items():
        for side, lev in enumerate((lev_lo, lev_hi)):
            first, last = order_window(b, lev, mcse=mcse, slope=bca is not None)
            windows[i, side] = (first - 1, last - 1)
    sort_windows(rows, windows)
    for i, (lev_lo, lev_hi, bca, details) in levels.items():
        t = float(theta[i])
        if method == "basic":
            lo_t, hi_t, mc_lo, mc_hi = basic_endpoints(rows[i], t, alpha, mcse)
        else:
            lo_t, hi_t, mc_lo, mc_hi = quantile_endpoints(rows[i], lev_lo, lev_hi, alpha, bca, mcse)
        out[i] = _checked(lo_t, hi_t, mc_lo, mc_hi, details, t, bounds)
    return out


def _jackknife_moments(
    jackknife: np.ndarray | None, counts: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``bca_levels``' sums of the centred jackknife values of each row, ``(sum c d^2,
    sum c d^3, all finite)``, with NumPy's sums along each row (those of one row's own
    array); ``c * x`` is ``x`` itself where every count is 1. The centred values
    overwrite a float64 ``jackknife``, then their squares and cubes share one array."""
    if jackknife is None:
        raise InvalidInputError("jackknife", "jackknife values for method='bca'", "None")
    jk = np.asarray(jackknife, dtype=float)
    finite = np.isfinite(jk).all(axis=1)
    if counts is None:
        mean = jk.sum(axis=1) / np.sum(np.ones(jk.shape[1]))
        d = np.subtract(mean[:, None], jk, out=jk if jk is jackknife else None)
        dd = d * d
    else:
        c = np.asarray(counts, dtype=float)
        d = (np.sum(c * jk, axis=1) / np.sum(c))[:, None] - jk
        dd = c * d * d
    ss = dd.sum(axis=1)
    return ss, np.multiply(dd, d, out=dd).sum(axis=1), finite


def _bca_rows(
    candidates: np.ndarray, below: np.ndarray, equal: np.ndarray, b: int, alpha: float,
    ties: str, ss: np.ndarray, cube: np.ndarray, finite: np.ndarray,
) -> dict[int, tuple[float, float, tuple[float, float], dict[str, Any]]]:  # fmt: skip
    """BCa's levels of the rows where they are defined and within the replicates:
    ``row -> (level_low, level_high, (z0, acceleration), details)``."""
    out = {}
    for i in candidates:
        if not finite[i]:
            continue  # compute_interval notes the undefined values
        p0 = fraction_below(int(below[i, 0]), int(equal[i, 0]), b, ties)
        moments = (float(ss[i]), float(cube[i]))
        a1, a2, z0, acc, notes = bca_levels_of(p0, lambda m=moments: m, alpha)
        if notes or math.isnan(a1) or min(a1, 1 - a2) < 1.0 / b:
            continue
        details = {"z0": z0, "acceleration": acc, "ties": ties, "levels": (a1, a2)}
        out[int(i)] = (a1, a2, (z0, acc), details)
    return out


def _checked(
    low: float, high: float, mc_lo: float, mc_hi: float, details: dict[str, Any],
    estimate: float, bounds: tuple[float, float] | None,
) -> IntervalOutcome | None:  # fmt: skip
    """The outcome, or ``None`` where ``compute_interval`` would clip it to the bounds or
    note the estimate outside it."""
    low, high = float(low), float(high)
    if bounds is not None and (low < bounds[0] or high > bounds[1]):
        return None
    if not low <= estimate <= high:
        return None
    return IntervalOutcome(low, high, float(mc_lo), float(mc_hi), (), details)
