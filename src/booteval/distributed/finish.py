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
import scipy.sparse as sp

from ..core.intervals import CountedJackknife
from ..core.philox import philox_key
from ..metrics.base import Metric
from .partitions import sum_evaluator
from .states import HistogramState, SumState

__all__ = ["Replicates", "cell_weights", "histogram_replicates", "sum_replicates"]

# replicates per counter of a cell's stream (a later block never depends on an earlier)
_CELL_BLOCK = 256


@dataclass(frozen=True)
class Replicates:
    """A tier's output: what the interval needs, and what the result reports."""

    estimate: float
    values: np.ndarray
    jackknife: CountedJackknife | None
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
            bits = np.random.Philox(key=full, counter=j << 128)
            out[lo:hi, c] = np.random.Generator(bits).poisson(float(m), _CELL_BLOCK)[: hi - lo]
    return out


def histogram_replicates(state: HistogramState, metric: Metric) -> Replicates:
    """The histogram tier's estimate, replicates and counted jackknife."""
    spec = state.spec
    table = state.canonical()
    inputs = list(spec.inputs)
    combos = table[inputs].drop_duplicates().reset_index(drop=True)
    arrays = metric.validate(*(combos[c].to_numpy() for c in inputs))
    ev = sum_evaluator(metric, arrays)
    stats = ev.unit_stats.toarray() if sp.issparse(ev.unit_stats) else np.asarray(ev.unit_stats)
    combo_of_row = (
        table[inputs].merge(combos.reset_index(), on=inputs, how="left")["index"].to_numpy()
    )
    counts = table["count"].to_numpy(dtype=np.int64)
    if spec.clusters is not None:
        unit_codes, unit_ids = _codes(table["unit"].to_numpy(dtype=np.uint64))
        units = np.zeros((unit_ids.size, stats.shape[1]))
        np.add.at(units, unit_codes, counts[:, None] * stats[combo_of_row])  # integer-valued
        mult = np.ones(unit_ids.size, dtype=np.int64)
        n_clusters: int | None = int(unit_ids.size)
    else:
        units, mult, n_clusters = stats[combo_of_row], counts, None
    cells, inverse = np.unique(units, axis=0, return_inverse=True)
    sizes = np.bincount(inverse.reshape(-1), weights=mult, minlength=cells.shape[0])
    sizes = sizes.astype(np.int64)
    weights = cell_weights(spec.seed, [_cell_key(r) for r in cells], sizes, spec.n_resamples)
    total = sizes.astype(float) @ cells
    estimate = float(ev.from_sums(total[None, :])[0])
    values = np.asarray(ev.from_sums(weights @ cells), dtype=float)
    jack = np.asarray(ev.from_sums(total[None, :] - cells), dtype=float)
    return Replicates(
        estimate, values, CountedJackknife(jack, sizes), int(counts.sum()), n_clusters,
        int(cells.shape[0]),
    )  # fmt: skip


def _codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ids, codes = np.unique(keys, return_inverse=True)
    return codes.reshape(-1), ids


def sum_replicates(state: SumState, metric: Metric, sample: tuple[Any, ...]) -> Replicates:
    """The row tier's estimate and replicates (``sample``: a few rows of the inputs, to
    bind the metric's function of sums)."""
    ev = sum_evaluator(metric, metric.validate(*sample))
    totals = state.values(state.totals)
    estimate = float(ev.from_sums(totals[None, :])[0])
    values = np.asarray(ev.from_sums(state.values(state.sums)), dtype=float)
    n_clusters = int(state.units.size) if state.spec.clusters is not None else None
    return Replicates(estimate, values, None, state.n_rows, n_clusters)
