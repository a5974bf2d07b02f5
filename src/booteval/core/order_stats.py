"""Order statistics of bootstrap replicates: the quantile rule of every interval, the
Monte Carlo errors of the endpoints, and which sorted positions an endpoint reads (so that
a caller forming many intervals at once need sort only those; see
:mod:`booteval.core.row_intervals`).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.special import betainc, ndtr, ndtri

__all__ = ["basic_endpoints", "order_statistic_quantile", "order_window", "quantile_endpoints"]


def order_statistic_quantile(sorted_values: np.ndarray, p: float) -> float:
    """The ``ceil(p * B)``-th smallest value (1-based), clamped to the sample.

    Examples
    --------
    >>> x = np.arange(1, 10_001, dtype=float)
    >>> order_statistic_quantile(x, 0.025), order_statistic_quantile(x, 0.975)
    (250.0, 9750.0)
    """
    b = sorted_values.shape[0]
    k = math.ceil(p * b - 1e-9)
    k = min(max(k, 1), b)
    return float(sorted_values[k - 1])


def _quantile_mcse(sorted_values: np.ndarray, p: float) -> float:
    """The Monte Carlo SD of the ``ceil(p B)``-th order statistic of ``B`` replicates.

    It is that order statistic's SD when ``B`` values are drawn from the replicates' own
    distribution (Maritz & Jarrett, 1978): the ``i``-th smallest value is the order
    statistic with probability ``I(i / B) - I((i - 1) / B)``, ``I`` the regularized
    incomplete beta function with parameters ``(r, B - r + 1)``. Tied values (a metric
    on a lattice, such as a difference of accuracies) are handled as they are: the
    endpoint moves between lattice points only as often as the replicates say.
    Weights further than 10 binomial SDs from ``r`` (under 1e-20) are left out.
    """
    b = sorted_values.shape[0]
    r = min(max(math.ceil(p * b - 1e-9), 1), b)
    first, last, live, w = _order_weights(b, r, int(10.0 * math.sqrt(b * p * (1.0 - p))) + 2)
    x = sorted_values[first - 1 : last][live]
    if not np.all(np.isfinite(x)):
        return math.nan  # an infinite quantile (zero standard errors) has no Monte Carlo SE
    mu = float(w @ x)
    return math.sqrt(max(float(w @ (x - mu) ** 2), 0.0))


@lru_cache(maxsize=4096)
def _order_weights(b: int, r: int, half: int) -> tuple[int, int, np.ndarray, np.ndarray]:
    """The order statistics within ``half`` of the ``r``-th of ``b`` (1-based ``first ..
    last``), which of them carry weight in :func:`_quantile_mcse`, and their weights
    (summing to 1): the same for every distribution of ``b`` replicates, so formed once."""
    first, last = max(r - half, 1), min(r + half, b)
    cdf = betainc(r, b - r + 1, np.arange(first - 1, last + 1) / b)
    w = np.diff(cdf)
    live = w > 1e-15
    w = w[live]
    w = w / w.sum()
    live.flags.writeable = w.flags.writeable = False
    return first, last, live, w


def order_window(b: int, p: float, *, mcse: bool = True, slope: bool = False) -> tuple[int, int]:
    """The 1-based positions ``first .. last`` of ``b`` sorted replicates that the endpoint
    at level ``p`` reads: its order statistic, with ``mcse`` those its Monte Carlo error
    weighs (and, with ``slope``, those of BCa's quantile slope). Only these need to be in
    sorted order.

    Examples
    --------
    >>> order_window(10_000, 0.025), order_window(10_000, 0.025, mcse=False)
    ((92, 408), (250, 250))
    """
    r = min(max(math.ceil(p * b - 1e-9), 1), b)
    if not mcse:
        return r, r
    half = int(10.0 * math.sqrt(b * p * (1.0 - p))) + 2
    first, last = max(r - half, 1), min(r + half, b)
    if slope:
        sd = math.sqrt(max(b * p * (1 - p), 1.0))
        first = min(first, min(max(math.floor(p * b - sd), 1), b))
        last = max(last, min(max(math.ceil(p * b + sd), 1), b))
    return first, last


def _quantile_slope(sorted_values: np.ndarray, p: float) -> float:
    """d(quantile)/d(level) near ``p``, from the order statistics one binomial SD away."""
    b = sorted_values.shape[0]
    sd = math.sqrt(max(b * p * (1 - p), 1.0))
    lo = min(max(math.floor(p * b - sd), 1), b)
    hi = min(max(math.ceil(p * b + sd), 1), b)
    if hi == lo:
        return 0.0
    return float(sorted_values[hi - 1] - sorted_values[lo - 1]) / ((hi - lo) / b)


def _bca_level_slope(level_z: float, z0: float, acc: float) -> float:
    """d(BCa level)/d(p0), ``p0`` the fraction of replicates below the estimate
    (``z0 = Phi^-1(p0)``)."""
    phi = math.exp(-0.5 * z0 * z0) / math.sqrt(2 * math.pi)
    if phi <= 0:
        return 0.0
    u = z0 + level_z
    den = 1.0 - acc * u
    arg = z0 + u / den
    dlevel = math.exp(-0.5 * arg * arg) / math.sqrt(2 * math.pi) * (1.0 + 1.0 / (den * den))
    return dlevel / phi


def quantile_endpoints(
    srt: np.ndarray, lev_lo: float, lev_hi: float, alpha: float,
    bca: tuple[float, float] | None = None, mcse: bool = True,
) -> tuple[float, float, float, float]:  # fmt: skip
    """The endpoints at levels ``lev_lo`` and ``lev_hi`` of the sorted replicates ``srt``
    (only :func:`order_window`'s positions are read) and their Monte Carlo errors; with
    ``bca = (z0, acceleration)`` (``z0`` finite), plus the error that ``z0``'s own Monte
    Carlo error brings to BCa's levels. Without ``mcse``, the errors are NaN.

    Examples
    --------
    >>> quantile_endpoints(np.arange(1.0, 101.0), 0.05, 0.95, 0.1)[:2]
    (5.0, 95.0)
    """
    lo_t = order_statistic_quantile(srt, lev_lo)
    hi_t = order_statistic_quantile(srt, lev_hi)
    if not mcse:
        return lo_t, hi_t, math.nan, math.nan
    mc_lo, mc_hi = _quantile_mcse(srt, lev_lo), _quantile_mcse(srt, lev_hi)
    if bca is not None:
        # BCa's levels move with z0, itself estimated from the same B replicates: the
        # endpoint is q(level(p0)) with both the quantile and p0 read off one empirical
        # distribution, whose values at two points covary (min(F1, F2) - F1 F2) / B
        z0, acc = bca
        b = srt.shape[0]
        p0 = float(ndtr(z0))
        mc = []
        for lev, z_a, mc_q in (
            (lev_lo, float(ndtri(alpha / 2)), mc_lo),
            (lev_hi, float(ndtri(1 - alpha / 2)), mc_hi),
        ):
            slope = _quantile_slope(srt, lev)
            d = _bca_level_slope(z_a, z0, acc)
            var = (
                mc_q * mc_q
                + slope
                * slope
                * (d * d * p0 * (1.0 - p0) - 2.0 * d * (min(lev, p0) - lev * p0))
                / b
            )
            mc.append(math.sqrt(max(var, 0.0)) if math.isfinite(var) else mc_q)
        mc_lo, mc_hi = mc
    return lo_t, hi_t, mc_lo, mc_hi


def basic_endpoints(
    srt: np.ndarray, theta: float, alpha: float, mcse: bool = True
) -> tuple[float, float, float, float]:
    """The basic interval ``2 theta - q(1 - alpha/2), 2 theta - q(alpha/2)`` of the sorted
    replicates ``srt`` and the endpoints' Monte Carlo errors (NaN without ``mcse``).

    Examples
    --------
    >>> basic_endpoints(np.arange(1.0, 101.0), 50.0, 0.1)[:2]
    (5.0, 95.0)
    """
    lo_t = 2 * theta - order_statistic_quantile(srt, 1 - alpha / 2)
    hi_t = 2 * theta - order_statistic_quantile(srt, alpha / 2)
    if not mcse:
        return lo_t, hi_t, math.nan, math.nan
    return lo_t, hi_t, _quantile_mcse(srt, 1 - alpha / 2), _quantile_mcse(srt, alpha / 2)
