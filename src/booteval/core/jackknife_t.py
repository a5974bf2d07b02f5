"""The cluster jackknife t interval: the few-cluster answer where a bootstrap-t says nothing.

With 5 to 10 clusters a studentized bootstrap of whole clusters draws many replicates
made of one or two distinct clusters. Their standard error is zero or tiny, the
distribution of the studentized statistic has an infinite or enormous tail, and the
interval reaches past both ends of the metric's range. The jackknife over clusters has
no such replicates: each leave-one-cluster-out value keeps ``G - 1`` clusters. Its
variance,

.. math:: \\widehat{V}_J = \\frac{G-1}{G} \\sum_{g=1}^{G} (z_{(g)} - \\bar z)^2 ,

with a ``t`` quantile on ``G - 1`` degrees of freedom, is the cluster jackknife interval
(the jackknife counterpart of the CR3 cluster-robust variance; MacKinnon, Nielsen and
Webb 2023). It is formed on a scale where the metric's range is natural: the logit of
``(x - a) / (b - a)`` for a metric in ``[a, b]`` (Fisher's z up to a factor for a
correlation), the log of the distance from a one-sided bound, and the identity without
bounds. Where the estimate or a leave-one-out value sits on a bound (the scale sends it
to infinity) the interval is formed on the metric's own scale and clipped to its range.

``method="auto"`` gives it for a clustered metric other than a mean or proportion where
the bootstrap-t it chose is vacuous (``docs/coverage.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from scipy.special import stdtr, stdtrit

__all__ = [
    "JACKKNIFE_T",
    "JackknifeT",
    "jackknife_t_interval",
    "jackknife_t_p_value",
    "leave_one_cluster_out",
]

#: the method name of the cluster jackknife t interval in a result
JACKKNIFE_T = "jackknife-t"


def _scale(
    bounds: tuple[float, float] | None,
) -> tuple[str, Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """The scale an interval in ``bounds`` is formed on: its name, the map and its inverse."""
    lo, hi = bounds if bounds is not None else (-math.inf, math.inf)
    if math.isfinite(lo) and math.isfinite(hi):
        width = hi - lo

        def to(x: np.ndarray) -> np.ndarray:
            u = (np.asarray(x, float) - lo) / width
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.log(u) - np.log1p(-u)

        def back(z: np.ndarray) -> np.ndarray:
            return lo + width / (1.0 + np.exp(-np.asarray(z, float)))

        return ("Fisher z" if (lo, hi) == (-1.0, 1.0) else "logit"), to, back
    if math.isfinite(lo):
        return ("log", lambda x: np.log(np.asarray(x, float) - lo),
                lambda z: lo + np.exp(np.asarray(z, float)))  # fmt: skip
    if math.isfinite(hi):
        return ("log", lambda x: -np.log(hi - np.asarray(x, float)),
                lambda z: hi - np.exp(-np.asarray(z, float)))  # fmt: skip
    return "identity", lambda x: np.asarray(x, float), lambda z: np.asarray(z, float)


class JackknifeT(NamedTuple):
    """A cluster jackknife t interval: its ends, the scale it was formed on and the
    degrees of freedom of its ``t`` quantile (the defined leave-one-out values less one)."""

    low: float
    high: float
    scale: str
    df: int

    def describe(self, unit: str = "cluster") -> str:
        """How it was formed, for a result's notes (``unit``: what each value leaves out).

        Examples
        --------
        >>> JackknifeT(0.5, 0.9, "logit", 4).describe()
        '5 leave-one-cluster-out values, t on 4 degrees of freedom, on the logit scale'
        """
        where = (
            "formed on the metric's own scale and clipped to its range, since the estimate "
            "or a leave-one-out value is on a bound"
            if self.scale == "clipped"
            else f"on the {self.scale} scale"
        )
        values = f"{self.df + 1:,} leave-one-{unit}-out values"
        return f"{values}, t on {self.df:,} degrees of freedom, {where}"


def _t_interval(centre: float, values: np.ndarray, confidence_level: float) -> tuple[float, float]:
    g = values.size
    se = math.sqrt((g - 1) / g * float(np.sum((values - values.mean()) ** 2)))
    q = float(stdtrit(g - 1, 0.5 + confidence_level / 2))  # Student's t quantile
    return centre - q * se, centre + q * se


def _formed(
    estimate: float, jackknife: np.ndarray, bounds: tuple[float, float] | None
) -> tuple[str, float, np.ndarray, Callable[[np.ndarray], np.ndarray],
           Callable[[np.ndarray], np.ndarray]] | None:  # fmt: skip
    """The scale's name, the estimate and the defined leave-one-out values on it, and the
    map and its inverse; ``None`` where no interval has width (see
    :func:`jackknife_t_interval`)."""
    values = np.asarray(jackknife, float)
    values = values[np.isfinite(values)]
    if values.size < 3 or not math.isfinite(estimate):
        return None
    if np.ptp(values) <= 1e-12 * max(1.0, float(np.max(np.abs(values)))):
        return None  # equal up to rounding (two rows' correlation is 1 or -1)
    name, to, back = _scale(bounds)
    with np.errstate(divide="ignore", invalid="ignore"):
        z, z0 = to(values), float(to(np.array([estimate]))[0])
    if math.isfinite(z0) and bool(np.all(np.isfinite(z))):
        return name, z0, z, to, back
    ident = lambda x: np.asarray(x, float)  # noqa: E731
    return "clipped", float(estimate), values, ident, ident


def jackknife_t_interval(
    estimate: float, jackknife: np.ndarray, confidence_level: float,
    bounds: tuple[float, float] | None = None,
) -> JackknifeT | None:  # fmt: skip
    """The cluster jackknife t interval, or ``None`` where it has no width.

    Parameters
    ----------
    estimate : float
        The metric on all the data.
    jackknife : ndarray
        The metric leaving out each cluster in turn (one value a cluster; NaN where the
        metric is undefined without that cluster: left out, with one degree of freedom
        fewer).
    confidence_level : float
    bounds : (float, float), optional
        The metric's range.

    Returns
    -------
    JackknifeT or None
        ``scale`` is ``"logit"`` (``"Fisher z"`` in ``[-1, 1]``, the same map up to a
        factor), ``"log"`` or ``"identity"``, or ``"clipped"`` where the
        estimate or a leave-one-out value lies on a bound and the interval was formed on
        the metric's scale and clipped to its range. ``None`` with fewer than 3 defined
        leave-one-out values, or none differing from another, or where the interval is
        infinite or spans the whole range.

    Examples
    --------
    >>> r = jackknife_t_interval(0.8, np.array([0.75, 0.85, 0.78, 0.82]), 0.95, (0.0, 1.0))
    >>> r.scale, r.df, round(r.low, 3), round(r.high, 3)
    ('logit', 3, 0.513, 0.938)
    >>> jackknife_t_interval(0.8, np.array([0.8, 0.8, 0.8]), 0.95) is None
    True
    """
    formed = _formed(estimate, jackknife, bounds)
    if formed is None:
        return None
    name, z0, z, _, back = formed
    lz, hz = _t_interval(z0, z, confidence_level)
    df = z.size - 1
    if name == "clipped":
        lo, hi = bounds if bounds is not None else (-math.inf, math.inf)
        return _said_something(JackknifeT(max(lz, lo), min(hz, hi), name, df), bounds)
    with np.errstate(over="ignore"):  # an end far out on the scale maps to the bound
        low, high = (float(v) for v in back(np.array([lz, hz])))
    return _said_something(JackknifeT(low, high, name, df), bounds)


def jackknife_t_p_value(
    estimate: float, jackknife: np.ndarray, bounds: tuple[float, float] | None = None,
    null: float = 0.0, alternative: str = "two-sided",
) -> float:  # fmt: skip
    """The p-value that inverts :func:`jackknife_t_interval`: the t statistic of
    ``estimate - null`` on the interval's scale, on its degrees of freedom. ``null`` lies
    outside the level-``1 - alpha`` interval exactly where the two-sided p-value is below
    ``alpha``. Where no interval has width: 1 if the estimate is ``null``, else 0.

    Examples
    --------
    >>> p = jackknife_t_p_value(0.2, np.array([0.15, 0.25, 0.18, 0.22]), (-1.0, 1.0))
    >>> round(p, 4)
    0.0601
    """
    formed = _formed(estimate, jackknife, bounds)
    if formed is None:
        return 1.0 if estimate == null else 0.0
    _, z0, z, to, _ = formed
    g = z.size
    se = math.sqrt((g - 1) / g * float(np.sum((z - z.mean()) ** 2)))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (z0 - float(to(np.array([null]))[0])) / se
    if math.isnan(t):
        return 1.0
    sf = float(stdtr(g - 1, -t))  # P(T >= t)
    return min(1.0, {"greater": sf, "less": 1.0 - sf,
                     "two-sided": 2.0 * min(sf, 1.0 - sf)}[alternative])  # fmt: skip


def _said_something(out: JackknifeT, bounds: tuple[float, float] | None) -> JackknifeT | None:
    """``out``, or ``None`` where it is infinite or spans the whole range: an interval that
    says nothing is not an answer (the caller then takes another)."""
    lo, hi = bounds if bounds is not None else (-math.inf, math.inf)
    if not (math.isfinite(out.low) and math.isfinite(out.high)) or (
        out.low <= lo and out.high >= hi
    ):
        return None
    return out


def leave_one_cluster_out(
    metric: Callable[..., float], arrays: tuple[np.ndarray, ...], clusters: np.ndarray
) -> np.ndarray:
    """``metric(*arrays)`` leaving out each cluster in turn (in the order of the sorted
    labels); NaN where the metric is undefined or fails without that cluster.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 3.0, 5.0])
    >>> leave_one_cluster_out(np.mean, (x,), np.array([0, 0, 1, 2])).tolist()
    [4.0, 2.6666666666666665, 2.0]
    """
    out = []
    for label in np.unique(clusters):
        keep = clusters != label
        try:
            with np.errstate(all="ignore"):
                out.append(float(metric(*(a[keep] for a in arrays))))
        except Exception:  # undefined without this cluster: left out of the variance
            out.append(math.nan)
    return np.asarray(out, dtype=float)
