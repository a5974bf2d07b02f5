"""Mergeable exact states: what one partition returns, merged by addition in any order.

Two kinds, one per tier:

* :class:`HistogramState` (discrete inputs: accuracy and every confusion-matrix metric):
  the count of rows of each distinct combination of the input columns (and, with
  clusters, of each cluster's 64-bit key), kept sorted, so a merge is one linear pass and
  any merge order gives the same state.
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
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import InvalidInputError
from ..core.histogram_kernels import merge_sorted_counts

__all__ = [
    "FRACTION_BITS", "HistogramState", "StateSpec", "SumState", "merge_states", "sort_combos",
]  # fmt: skip

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
    #: each system's columns, one per input of the metric (``()``: one system, ``inputs``)
    systems: tuple[tuple[str, ...], ...] = ()
    #: whether a row-tier state keeps each cluster's sums (BCa's jackknife)
    unit_sums: bool = False

    @property
    def system_columns(self) -> tuple[tuple[str, ...], ...]:
        """The columns of each system's inputs (several for ``compare`` and ``leaderboard``)."""
        return self.systems or (self.inputs,)


def _spec_text(spec: StateSpec) -> bytes:
    """The spec in a digest: what the numbers depend on (not the columns' names)."""
    clustered = spec.clusters is not None
    fields = (spec.tier, spec.metric, clustered, spec.seed, spec.n_resamples, spec.weights)
    if len(spec.system_columns) > 1:  # which inputs each system reads, by position
        fields += (tuple(tuple(map(spec.inputs.index, s)) for s in spec.system_columns),)
    return repr(fields).encode()


def _check_same(a: StateSpec, b: StateSpec) -> None:
    if a != b:
        raise InvalidInputError(
            "states", "states of the same run (same metric, columns, seed and B)",
            f"{a} and {b}",
        )  # fmt: skip


@dataclass(frozen=True)
class HistogramState:
    """Row counts of each distinct (unit, combination of the input columns).

    Attributes
    ----------
    combos : pandas.DataFrame
        The distinct combinations of the input columns, sorted, one per row: code ``i``
        is row ``i``.
    units, codes, counts : ndarray (uint64, int64, int64)
        Each distinct (cluster key, combination code) pair and its number of rows, sorted
        by key then code (every key 0 without clusters).
    """

    spec: StateSpec
    combos: object  # pandas.DataFrame
    units: np.ndarray
    codes: np.ndarray
    counts: np.ndarray

    def merge(self, other: HistogramState) -> HistogramState:
        import pandas as pd

        _check_same(self.spec, other.spec)
        cols = list(self.spec.inputs)
        union = sort_combos(
            pd.concat([self.combos, other.combos], ignore_index=True).drop_duplicates()
        )
        mine = [_recode(s.combos, union, cols) for s in (self, other)]
        a = _resorted(self.units, mine[0][self.codes], self.counts)
        b = _resorted(other.units, mine[1][other.codes], other.counts)
        return HistogramState(self.spec, union, *merge_sorted_counts(a, b))

    @property
    def n_rows(self) -> int:
        return int(self.counts.sum())

    def digest(self) -> str:
        h = hashlib.blake2b(_spec_text(self.spec), digest_size=16)
        h.update(self.combos.to_csv(index=False, header=False).encode())
        for part in (self.units, self.codes, self.counts):
            h.update(np.ascontiguousarray(part).astype("<u8").tobytes())
        return h.hexdigest()


def sort_combos(combos: object, by: list[str] | None = None) -> object:
    """Distinct combinations in canonical order (sorted by the columns ``by``, all by
    default), indexed 0, 1, ..."""
    cols = list(combos.columns) if by is None else by
    return combos.sort_values(cols, kind="stable").reset_index(drop=True)


def _recode(combos: object, union: object, cols: list[str]) -> np.ndarray:
    """The code in ``union`` of each row of ``combos``."""
    merged = combos.merge(union.reset_index(), on=cols, how="left", sort=False)
    return merged["index"].to_numpy(dtype=np.int64)


def _resorted(
    units: np.ndarray, codes: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs sorted by (unit, code) again where new codes changed their order."""
    same_unit = units[1:] == units[:-1]
    if (codes[1:][same_unit] > codes[:-1][same_unit]).all():
        return units, codes, counts
    order = np.lexsort((codes, units))
    return units[order], codes[order], counts[order]


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
    classes : dict
        The distinct values of each label column (the metric's ``label_inputs``), so
        the driver checks the classes of the whole column.
    unit_limbs : ndarray of int64, shape (len(units), 4 k), optional
        With ``spec.unit_sums``: each cluster's exact sums, four limbs per statistic at
        bit shifts 0, 32, 56 and 64 (in units of ``2**-56``), in the order of ``units``.
    """

    spec: StateSpec
    sums: np.ndarray
    totals: np.ndarray
    n_rows: int
    units: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    classes: dict = field(default_factory=dict)
    unit_limbs: np.ndarray | None = None

    def merge(self, other: SumState) -> SumState:
        _check_same(self.spec, other.spec)
        classes = {
            c: np.union1d(self.classes[c], other.classes[c]) for c in self.classes
        }  # fmt: skip
        units, limbs = np.union1d(self.units, other.units), None
        if self.unit_limbs is not None and other.unit_limbs is not None:
            keys = np.concatenate([self.units, other.units])
            by_key = np.argsort(keys, kind="stable")
            first = np.flatnonzero(np.r_[True, keys[by_key][1:] != keys[by_key][:-1]])
            both = np.concatenate([self.unit_limbs, other.unit_limbs])[by_key]
            limbs = np.add.reduceat(both, first, axis=0)
        return SumState(
            self.spec, self.sums + other.sums, self.totals + other.totals,
            self.n_rows + other.n_rows, units, classes, limbs,
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
        if self.unit_limbs is not None:
            h.update(np.ascontiguousarray(self.unit_limbs).astype("<i8").tobytes())
        return h.hexdigest()


def merge_states(states: list) -> HistogramState | SumState:
    """The states merged (their order does not change the result).

    Examples
    --------
    >>> import pandas as pd
    >>> spec = StateSpec("histogram", "accuracy", ("y",), None, 0, 10)
    >>> zero = np.zeros(2, np.uint64)
    >>> a = HistogramState(spec, pd.DataFrame({"y": [0, 1]}), zero, np.arange(2), np.array([3, 4]))
    >>> b = HistogramState(spec, pd.DataFrame({"y": [1]}), zero[:1], np.arange(1), np.array([5]))
    >>> merge_states([a, b]).counts.tolist(), merge_states([b, a]).n_rows
    ([3, 9], 12)
    """
    if not states:
        raise InvalidInputError("data", "at least one partition", "none")
    level = list(states)
    while len(level) > 1:  # pairs of about equal size: each merge is a linear pass
        pairs = [level[i].merge(level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = pairs + level[len(level) - len(level) % 2 :]
    return level[0]
