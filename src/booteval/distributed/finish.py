"""The driver's part: a merged state becomes the estimate, the replicates and, for the
histogram tier, the jackknife.

* Histogram tier: the merged table's distinct input combinations are bound to the
  metric once (so every partition's rows use the same classes), each unit (row, or
  cluster with its rows' combined statistics) gets its statistics, and units with equal
  statistics form a *cell* of size ``m``. The exact Poisson bootstrap draws each cell's
  total weight as Poisson(``m``), the sum of ``m`` independent Poisson(1) weights, from
  its own counter-based stream (numpy's Philox keyed by the seed and a hash of the cell's
  statistics, one counter per block of 256 replicates), in canonical (sorted) order.
* Row tier: the exact sums are converted to floats (correctly rounded) and the metric's
  function of sums applied.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.intervals import CountedJackknife
from ..core.philox import philox_key
from ..core.streams import philox_generator
from ..metrics.base import Metric
from .partitions import system_stats, unit_values
from .states import HistogramState, StateSpec, SumState

__all__ = [
    "Replicates", "cell_replicates", "cell_weights", "histogram_replicates", "sum_replicates",
]  # fmt: skip

# replicates per counter of a cell's stream (a later block never depends on an earlier)
_CELL_BLOCK = 256


@dataclass(frozen=True)
class Replicates:
    """A tier's output for ``K`` systems on shared weights: what the intervals need, and
    what the result reports."""

    estimates: np.ndarray  # (K,)
    values: np.ndarray  # (B, K)
    jackknife: CountedJackknife | None  # values (cells, K)
    n_rows: int
    n_clusters: int | None
    n_cells: int | None = None


def _cell_key(row: np.ndarray) -> int:
    data = np.ascontiguousarray(row, dtype="<f8").tobytes()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def cell_weights(seed: int, keys: list[int], sizes: np.ndarray, n_resamples: int) -> np.ndarray:
    """Poisson(``sizes[c]``) weights of cells ``c`` (keyed by ``keys[c]``) for replicates
    ``0 .. n_resamples - 1``, shape ``(n_resamples, cells)``.

    Examples
    --------
    >>> a = cell_weights(3, [11, 12], np.array([5, 1000]), 300)
    >>> b = cell_weights(3, [12], np.array([1000]), 300)  # a cell's own stream
    >>> a.shape, bool((a[:, 1] == b[:, 0]).all())
    ((300, 2), True)
    """
    k0, k1 = (int(v) for v in philox_key(seed))
    out = np.empty((n_resamples, len(keys)))
    for c, (key, m) in enumerate(zip(keys, sizes, strict=True)):
        full = (k0 | (k1 << 32)) | (int(key) << 64)
        for j, lo in enumerate(range(0, n_resamples, _CELL_BLOCK)):
            hi = min(lo + _CELL_BLOCK, n_resamples)
            rng = philox_generator(full, j << 128)
            out[lo:hi, c] = rng.poisson(float(m), _CELL_BLOCK)[: hi - lo]
    return out


def _from_sums(evs: list, widths: list[int], sums: np.ndarray) -> np.ndarray:
    """Each system's metric from its slice of the stacked sums: ``(rows, K)``."""
    edges = np.cumsum([0, *widths])
    cols = [
        np.asarray(ev.from_sums(sums[:, lo:hi]), dtype=float).reshape(-1)
        for ev, lo, hi in zip(evs, edges[:-1], edges[1:], strict=True)
    ]
    return np.column_stack(cols)


def histogram_replicates(state: HistogramState, metric: Metric) -> Replicates:
    """The histogram tier's estimates, replicates and counted jackknife."""
    spec = state.spec
    bound = [
        system_stats(metric, tuple(state.combos[c].to_numpy() for c in cols))
        for cols in spec.system_columns
    ]
    evs, widths = [b[0] for b in bound], [b[1].shape[1] for b in bound]
    stats = np.hstack([b[1] for b in bound])
    counts = state.counts
    if spec.clusters is not None:
        starts = np.flatnonzero(np.r_[True, state.units[1:] != state.units[:-1]])
        rows = counts[:, None] * stats[state.codes]  # integer-valued
        units = np.add.reduceat(rows, starts, axis=0) if starts.size else rows[:0]
        mult = np.ones(starts.size, dtype=np.int64)
        n_clusters: int | None = int(starts.size)
    else:
        units, mult, n_clusters = stats[state.codes], counts, None
    return cell_replicates(evs, widths, units, mult, spec, state.n_rows, n_clusters)


def cell_replicates(
    evs: list, widths: list[int], units: np.ndarray, mult: np.ndarray, spec: StateSpec,
    n_rows: int, n_clusters: int | None,
) -> Replicates:  # fmt: skip
    """The exact Poisson bootstrap over units' statistics ``units`` (``mult`` units of
    each row): units with equal statistics form a cell, each cell's weight is
    Poisson(its units) from its own stream; with the counted jackknife. ``evs`` and
    ``widths``: each system's function of sums and its number of statistics."""
    cells, inverse = np.unique(units, axis=0, return_inverse=True)
    sizes = np.bincount(inverse.reshape(-1), weights=mult, minlength=cells.shape[0])
    sizes = sizes.astype(np.int64)
    weights = cell_weights(spec.seed, [_cell_key(r) for r in cells], sizes, spec.n_resamples)
    total = sizes.astype(float) @ cells
    estimates = _from_sums(evs, widths, total[None, :])[0]
    values = _from_sums(evs, widths, weights @ cells)
    jack = _from_sums(evs, widths, total[None, :] - cells)
    return Replicates(
        estimates, values, CountedJackknife(jack, sizes), n_rows, n_clusters,
        int(cells.shape[0]),
    )  # fmt: skip


def sum_replicates(state: SumState, metric: Metric, sample: Any) -> Replicates:
    """The row tier's estimates and replicates (``sample``: a few rows of the table as a
    pandas DataFrame, to bind each system's function of sums)."""
    spec = state.spec
    for column, classes in state.classes.items():
        metric.check_classes(classes, column)
    bound = [
        system_stats(metric, tuple(sample[c].to_numpy() for c in cols))
        for cols in spec.system_columns
    ]
    evs, widths = [b[0] for b in bound], [b[1].shape[1] for b in bound]
    totals = state.values(state.totals)
    estimates = _from_sums(evs, widths, totals[None, :])[0]
    values = _from_sums(evs, widths, state.values(state.sums))
    n_clusters = int(state.units.size) if spec.clusters is not None else None
    jack = None
    if state.unit_limbs is not None:  # leave each cluster out: its exact sums subtracted
        rest = state.totals[None, :] - unit_values(state.unit_limbs, state.totals.size)
        ones = np.ones(state.units.size, dtype=np.int64)
        jack = CountedJackknife(_from_sums(evs, widths, state.values(rest)), ones)
    return Replicates(estimates, values, jack, state.n_rows, n_clusters)
