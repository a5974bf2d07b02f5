"""The jackknife t interval as ``method="auto"`` gives it: of one metric
(:func:`booteval.ci`; over clusters, or over rows for a correlation on independent rows)
and of the difference ``B - A`` of two systems' metrics on the same clusters
(:func:`booteval.compare`, with the p-value that inverts it).

The interval itself is :mod:`booteval.core.jackknife_t`. A difference of two metrics in
``[a, b]`` lies in ``[a - b, b - a]``; it is formed on the logit of its share of that range
(for ``[-1, 1]``, twice Fisher's z), where ``0`` stays ``0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.intervals import CountedJackknife
from ..core.jackknife_t import (
    JACKKNIFE_T,
    JackknifeT,
    jackknife_t_interval,
    jackknife_t_p_value,
    leave_one_cluster_out,
)
from ..metrics import Metric
from .few_clusters import ClusteredInterval

__all__ = [
    "difference_bounds", "jackknife_t_closed_form", "paired_jackknife", "paired_jackknife_t",
    "result_jackknife_t",
]  # fmt: skip


def _labels(clusters: Any) -> np.ndarray:
    return np.unique(np.asarray(clusters), return_inverse=True)[1].reshape(-1)


def jackknife_t_closed_form(
    m: Metric, arrays: tuple[np.ndarray, ...], clusters: Any, level: float
) -> ClusteredInterval:
    """The cluster jackknife t interval of any metric, with the note that says how it was
    formed; chosen only where it can be (``Case.jackknife``)."""
    labels = _labels(clusters)
    estimate = float(m(*arrays))
    jack = jackknife_t_interval(estimate, leave_one_cluster_out(m, arrays, labels), level,
                                m.bounds)  # fmt: skip
    assert jack is not None, "chosen only where Case.jackknife holds"
    note = f"the cluster jackknife t interval: {jack.describe()}"
    return ClusteredInterval(
        estimate, jack.low, jack.high, level, JACKKNIFE_T, int(arrays[0].shape[0]), None,
        n_clusters=int(labels.max()) + 1, df=float(jack.df), notes=(note,),
    )  # fmt: skip


def result_jackknife_t(result: Any, m: Metric) -> JackknifeT | None:
    """The jackknife t interval from the leave-one-unit-out values a bootstrap result's
    evaluator computes (those BCa's acceleration uses: one a cluster, or one a row on
    independent rows), or ``None`` where they cannot be had or give no interval."""
    recipe = result._recompute
    if recipe is None or recipe.jackknife is None:
        return None
    try:
        values = recipe.jackknife()
    except Exception:  # a jackknife that cannot be formed: the caller takes another
        return None
    if isinstance(values, CountedJackknife):
        values = np.repeat(np.asarray(values.values, float), np.asarray(values.counts))
    bounds = m.bounds if m.bounds is not None else recipe.scores_range
    return jackknife_t_interval(result.estimate, values, result.confidence_level, bounds)


def difference_bounds(bounds: tuple[float, float] | None) -> tuple[float, float] | None:
    """The range of ``B - A`` for a metric in ``bounds``.

    Examples
    --------
    >>> difference_bounds((0.0, 1.0))
    (-1.0, 1.0)
    >>> difference_bounds((0.0, float("inf"))) is None
    True
    """
    if bounds is None or not np.all(np.isfinite(bounds)):
        return None
    lo, hi = bounds
    return (lo - hi, hi - lo)


def paired_jackknife(
    m: Metric, arrays: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]], clusters: Any,
    known: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[float, np.ndarray]:  # fmt: skip
    """``B - A`` on all the data and leaving out each cluster in turn (``known``: each
    system's leave-one-cluster-out values, where already computed)."""
    a, b = arrays
    if known is None:
        labels = _labels(clusters)
        known = (leave_one_cluster_out(m, a, labels), leave_one_cluster_out(m, b, labels))
    return float(m(*b)) - float(m(*a)), known[1] - known[0]


def paired_jackknife_t(
    m: Metric, arrays: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]], clusters: Any,
    level: float, alternative: str = "two-sided",
    known: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[JackknifeT, float] | None:  # fmt: skip
    """The cluster jackknife t interval of ``B - A`` and the p-value that inverts it (of no
    difference), or ``None`` where the interval has no width (``known``: as for
    :func:`paired_jackknife`)."""
    estimate, values = paired_jackknife(m, arrays, clusters, known)
    bounds = difference_bounds(m.bounds)
    jack = jackknife_t_interval(estimate, values, level, bounds)
    if jack is None:
        return None
    return jack, jackknife_t_p_value(estimate, values, bounds, 0.0, alternative)
