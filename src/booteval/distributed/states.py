"""Mergeable exact states: what one partition returns, merged by addition in any order.

Two kinds, one per tier:

* :class:`HistogramState` (discrete inputs: accuracy and every confusion-matrix metric):
  the count of rows of each distinct combination of the input columns (and, with
  clusters, of each cluster's 64-bit key). Counts are integers, so any merge order gives
  the same table; :meth:`HistogramState.canonical` sorts it.
* :class:`SumState` (sums of continuous per-row statistics: mean score, losses, BLEU
  statistics): for every replicate ``b`` and statistic ``j``, the exact sum of the units'
  Poisson weights times their values, as Python integers in units of ``2**-FRACTION_BITS``
  (fixed point: floating-point summation order cannot change the result).

Both carry the record of what produced them (:class:`StateSpec`) and refuse to merge
with a state of another run. :meth:`digest` is a BLAKE2b hash of the canonical content,
reported in the result, so two runs can be compared without their data.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

import numpy as np

from ..core.errors import InvalidInputError

__all__ = ["FRACTION_BITS", "HistogramState", "StateSpec", "SumState", "merge_states"]

#: the fixed point of the row tier's sums: values are kept to ``2**-56`` (exact for any
#: float64 of magnitude 1/16 or more), sums as unbounded integers
FRACTION_BITS = 56


@dataclass(frozen=True)
class StateSpec:
    """What a state was computed for: the run's record (equal specs merge)."""

    tier: str  # "histogram" or "row"
    metric: str
    inputs: tuple[str, ...]
    clusters: str | None
    seed: int
    n_resamples: int
    weights: str = "Poisson(1), Philox4x32-10 keyed by (seed, unit key, replicate)"


def _spec_text(spec: StateSpec) -> bytes:
    """The spec in a digest: what the numbers depend on (not the columns' names)."""
    clustered = spec.clusters is not None
    return repr(
        (spec.tier, spec.metric, clustered, spec.seed, spec.n_resamples, spec.weights)
    ).encode()


def _check_same(a: StateSpec, b: StateSpec) -> None:
    if a != b:
        raise InvalidInputError(
            "states", "states of the same run (same metric, columns, seed and B)",
            f"{a} and {b}",
        )  # fmt: skip


@dataclass(frozen=True)
class HistogramState:
    """Row counts of each distinct combination of ``columns`` (a pandas DataFrame with a
    ``count`` column; with clusters, its first column ``unit`` holds the cluster keys)."""

    spec: StateSpec
    table: object  # pandas.DataFrame

    def merge(self, other: HistogramState) -> HistogramState:
        import pandas as pd

        _check_same(self.spec, other.spec)
        both = pd.concat([self.table, other.table], ignore_index=True)
        keys = [c for c in both.columns if c != "count"]
        merged = both.groupby(keys, sort=False, dropna=False)["count"].sum().reset_index()
        return replace(self, table=merged)

    def canonical(self) -> object:
        """The table sorted by its key columns, with a fresh index."""
        keys = [c for c in self.table.columns if c != "count"]
        return self.table.sort_values(keys, kind="stable").reset_index(drop=True)

    @property
    def n_rows(self) -> int:
        return int(self.table["count"].sum())

    def digest(self) -> str:
        text = self.canonical().to_csv(index=False, header=False).encode()
        return hashlib.blake2b(_spec_text(self.spec) + text, digest_size=16).hexdigest()


@dataclass(frozen=True)
class SumState:
    """Exact weighted sums of one or more partitions.

    Attributes
    ----------
    sums : ndarray of object, shape (n_resamples, k)
        ``sum_u w[b, u] * value[u, j]`` as Python integers in units of ``2**-56``.
    totals : ndarray of object, shape (k,)
        The same with every weight 1 (the original data).
    n_rows : int
    units : ndarray of uint64
        The distinct cluster keys (empty without clusters), for the number of clusters.
    """

    spec: StateSpec
    sums: np.ndarray
    totals: np.ndarray
    n_rows: int
    units: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))

    def merge(self, other: SumState) -> SumState:
        _check_same(self.spec, other.spec)
        return SumState(
            self.spec, self.sums + other.sums, self.totals + other.totals,
            self.n_rows + other.n_rows, np.union1d(self.units, other.units),
        )  # fmt: skip

    def values(self, integers: np.ndarray) -> np.ndarray:
        """Fixed-point integers as correctly rounded floats."""
        scale = 1 << FRACTION_BITS
        flat = [int(v) / scale for v in np.asarray(integers, dtype=object).ravel()]
        return np.array(flat, dtype=float).reshape(np.shape(integers))

    def digest(self) -> str:
        h = hashlib.blake2b(_spec_text(self.spec), digest_size=16)
        for part in (self.totals, self.sums):
            h.update(",".join(str(int(v)) for v in np.asarray(part).ravel()).encode())
        h.update(f"{self.n_rows};".encode() + np.sort(self.units).tobytes())
        return h.hexdigest()


def merge_states(states: list) -> HistogramState | SumState:
    """The states merged (their order does not change the result).

    Examples
    --------
    >>> import pandas as pd
    >>> spec = StateSpec("histogram", "accuracy", ("y",), None, 0, 10)
    >>> a = HistogramState(spec, pd.DataFrame({"y": [0, 1], "count": [3, 4]}))
    >>> b = HistogramState(spec, pd.DataFrame({"y": [1], "count": [5]}))
    >>> merge_states([a, b]).canonical()["count"].tolist(), merge_states([b, a]).n_rows
    ([3, 9], 12)
    """
    if not states:
        raise InvalidInputError("data", "at least one partition", "none")
    out = states[0]
    for s in states[1:]:
        out = out.merge(s)
    return out
