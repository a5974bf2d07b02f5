"""The effective sample size of a clustered estimate (Kish's design effect).

``effective_n = n / deff``, where the design effect ``deff`` is the ratio of the
estimate's variance under the clustered design to its variance with the rows taken as
independent. Both variances are jackknife variances: leave one cluster out, and leave one
row out. With an intra-cluster correlation ``rho`` in [0, 1] Kish's formula
``deff = 1 + (m_w - 1) rho`` (``m_w = sum(m_g^2) / n``, the size-weighted mean cluster
size) lies in ``[1, m_w]``; the ratio of two estimated variances can fall outside it by
chance (a negative estimated correlation, a noisy jackknife), so it is clipped to that
range. The effective sample size is therefore never above ``n``, nor below ``n / m_w``
(the number of clusters, for equal ones).

Every metric is covered. A vectorized metric leaves out one row at a time. A metric that
is not vectorized (a callable, a rank correlation) costs a call per left-out unit, so its
rows are left out in as many groups as there are clusters, row ``i`` in group
``i mod G``: a delete-a-group jackknife of the same shape as the clusters' one, which also
keeps a non-smooth metric (a median) from the delete-one jackknife's known failure. Past
:data:`MAX_CALLS` calls the figure is not computed (NaN) and a note says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..core.design import Design, make_design
from ..metrics import Metric

__all__ = [
    "MAX_CALLS",
    "clustered_effective_n",
    "cost_note",
    "effective_sample_size",
    "kish_effective_n",
    "row_jackknife",
]

#: most calls of a metric that is not vectorized spent on the effective sample size
MAX_CALLS = 20_000


def _jackknife_variance(values: np.ndarray) -> float:
    """``(k - 1) / k * sum((v - mean)^2)`` over the finite values, summed in sorted order
    (the same rows in another order give the same figure to the last bit)."""
    v = np.sort(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    k = v.size
    return (k - 1) / k * float(np.sum((v - v.mean()) ** 2)) if k > 1 else math.nan


def kish_effective_n(unit_of_row: np.ndarray, v_independent: float, v_clustered: float) -> float:
    """``n / deff`` with ``deff = v_clustered / v_independent`` clipped to ``[1, m_w]``.

    Examples
    --------
    >>> units = np.repeat(np.arange(4), 5)          # 4 clusters of 5 rows
    >>> kish_effective_n(units, 1.0, 2.0)           # deff 2
    10.0
    >>> kish_effective_n(units, 1.0, 0.5)           # deff below 1: the rows, no more
    20.0
    >>> kish_effective_n(units, 1.0, 9.0)           # beyond m_w = 5: the clusters
    4.0
    """
    n = unit_of_row.size
    if not (v_clustered > 0 and math.isfinite(v_clustered) and math.isfinite(v_independent)):
        return math.nan
    sizes = np.bincount(unit_of_row).astype(float)
    m_w = float(np.sum(sizes * sizes)) / n
    deff = min(max(v_clustered / v_independent, 1.0), m_w) if v_independent > 0 else m_w
    return n / deff


def cost_note(m: Metric, design: Design, systems: int = 1) -> str | None:
    """Why the effective sample size is not computed (too many calls of a metric that is
    not vectorized), or ``None``."""
    calls = systems * 2 * design.n_units
    if m.vectorized or calls <= MAX_CALLS:
        return None
    return (
        f"effective sample size not computed: it would take {calls:,} calls of {m.label} "
        f"(at most {MAX_CALLS:,})"
    )


def row_jackknife(m: Metric, arrays: tuple[np.ndarray, ...], design: Design) -> np.ndarray:
    """Leave-one-row-out values of ``m``; for a metric that is not vectorized,
    leave-one-group-out values with as many groups as ``design`` has clusters (row ``i``
    in group ``i mod G``)."""
    n = design.n_rows
    if m.vectorized:
        return np.asarray(m.bind(arrays, make_design(n)).jackknife())
    groups = make_design(n, clusters=np.arange(n) % design.n_units)
    return np.asarray(m.bind(arrays, groups).jackknife())


def effective_sample_size(
    design: Design, row_values: np.ndarray, cluster_values: np.ndarray
) -> float:
    """Kish's effective sample size under the clustered ``design`` from the estimate's
    row-level (:func:`row_jackknife`) and cluster-level jackknife values."""
    return kish_effective_n(
        design.unit_of_row,
        _jackknife_variance(row_values),
        _jackknife_variance(cluster_values),
    )


def clustered_effective_n(
    m: Metric,
    design: Design,
    row_values: Callable[[], np.ndarray],
    cluster_values: Callable[[], np.ndarray],
    systems: int = 1,
) -> tuple[float, str | None]:
    """The effective sample size every entry point reports, and a note where it is not
    computed: ``n`` without clusters; with clusters Kish's, from the row-level and
    cluster-level jackknife values (called only when needed), or NaN with the note of
    :func:`cost_note`."""
    if not design.clustered:
        return float(design.n_rows), None
    costly = cost_note(m, design, systems)
    if costly:
        return math.nan, costly
    return effective_sample_size(design, row_values(), cluster_values()), None
