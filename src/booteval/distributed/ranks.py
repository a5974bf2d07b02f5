"""Rank metrics on a table (ROC-AUC, average precision): per-class score histograms.

A rank metric depends on the scores only through their order, so a table needs the
count of rows of each (label, score) pair, not the rows. Scores take too many distinct
values to count exactly at scale, so each partition first rounds every score to
:data:`SCORE_BITS` significant bits (4096 bins per power of two, a fixed map that needs
no pass over the data). Rounding is monotone: it can tie two scores, never reorder
them. The partition counts rows per (label, rounded score) in a
:class:`~booteval.distributed.states.HistogramState` (with clusters, per cluster too)
and keeps the smallest and largest raw score of each rounded value, so the merged state
tells whether any rounded value holds two distinct scores:

* if none does, the histogram holds the exact scores' order and the value is exact;
* otherwise the result states the *tie bound*: the most the histogram's value can
  differ, on the data, from the value on the raw scores (computed from the histogram:
  the pairs a bin ties, for ROC-AUC; the spread of precision inside a bin, for average
  precision).

The bootstrap runs on the driver, over *cells*: the distinct joint (label, rounded
scores) combinations without clusters, the distinct cluster compositions with them. A
cell of ``m`` units gets the weight Poisson(``m``), the sum of its units' Poisson(1)
weights, from one counter-based stream in the cells' canonical order; the weighted
histogram then gives each replicate's statistic by the same code as the in-memory
metric (:meth:`~booteval.metrics.ranking.RocAuc.from_groups`). The cost is
``O(B * cells)`` without clusters (independent of the number of rows) and
``O(B * distinct (cluster, label, bin) triples)`` with them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.errors import InvalidInputError
from ..core.philox import philox_key
from ..core.streams import philox_generator
from ..metrics.base import Metric
from ..metrics.ranking import binary_labels
from .partitions import histogram_partition
from .states import HistogramState, StateSpec

__all__ = [
    "SCORE_BITS", "RankState", "rank_partition", "rank_replicates", "round_scores",
    "score_columns", "tie_bound",
]  # fmt: skip

#: significant bits a score keeps in a table's histogram (4096 bins per power of two)
SCORE_BITS = 12
# replicates per block of the weighted histogram (bounds the driver's memory)
_BLOCK_CELLS = 1 << 22


def round_scores(x: np.ndarray, bits: int = SCORE_BITS) -> np.ndarray:
    """Scores rounded to ``bits`` significant bits (half to even): monotone, data-free.

    Examples
    --------
    >>> round_scores(np.array([0.1, 0.10001, 0.5, -3.0, 0.0]), bits=8).tolist()
    [0.10009765625, 0.10009765625, 0.5, -3.0, 0.0]
    """
    mantissa, exponent = np.frexp(np.asarray(x, dtype=float))
    return np.ldexp(np.round(mantissa * 2.0**bits) / 2.0**bits, exponent)


@dataclass(frozen=True)
class RankState:
    """A histogram of (label, rounded scores) and each rounded value's raw range.

    Attributes
    ----------
    hist : HistogramState
        Row counts per (cluster, label, rounded score of every system).
    spread : pandas.DataFrame
        Columns ``column`` (the score column's position in the inputs), ``value`` (a
        rounded score), ``lo`` and ``hi`` (the smallest and largest raw score rounded to
        it), sorted by ``column`` and ``value``.
    """

    hist: HistogramState
    spread: Any

    @property
    def spec(self) -> StateSpec:
        return self.hist.spec

    @property
    def n_rows(self) -> int:
        return self.hist.n_rows

    def merge(self, other: RankState) -> RankState:
        import pandas as pd

        both = pd.concat([self.spread, other.spread], ignore_index=True)
        return RankState(self.hist.merge(other.hist), _ranges(both))

    def digest(self) -> str:
        h = hashlib.blake2b(self.hist.digest().encode(), digest_size=16)
        h.update(np.ascontiguousarray(self.spread.to_numpy(dtype=float)).tobytes())
        return h.hexdigest()


def _ranges(spread: Any) -> Any:
    groups = spread.groupby(["column", "value"], sort=True)
    return groups.agg(lo=("lo", "min"), hi=("hi", "max")).reset_index()


def score_columns(spec: StateSpec) -> tuple[str, ...]:
    """The distinct score columns of the systems (each system's second input).

    Examples
    --------
    >>> spec = StateSpec("rank", "roc_auc", ("y", "a", "b"), None, 0, 10,
    ...                  systems=(("y", "a"), ("y", "b")))
    >>> score_columns(spec)
    ('a', 'b')
    """
    return tuple(dict.fromkeys(cols[1] for cols in spec.system_columns))


def rank_partition(pdf: Any, spec: StateSpec) -> RankState:
    """The partition's histogram of (label, rounded scores) and the rounded values' ranges."""
    import pandas as pd

    frame = pdf.copy()
    parts = []
    for name in score_columns(spec):
        x = pd.to_numeric(pdf[name], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(x)
        if bad.any():
            raise InvalidInputError(
                name, "a finite number as the score of every row",
                f"{pdf[name].iloc[int(np.flatnonzero(bad)[0])]!r}",
            )  # fmt: skip
        frame[name] = rounded = round_scores(x)
        at = spec.inputs.index(name)
        parts.append(pd.DataFrame({"column": at, "value": rounded, "lo": x, "hi": x}))
    return RankState(histogram_partition(frame, spec), _ranges(pd.concat(parts)))


def _cells(state: HistogramState) -> tuple[sp.csr_matrix, np.ndarray, int | None]:
    """Cells as rows of a (cells x combinations) count matrix, their sizes (units per
    cell) and the number of clusters (``None`` without clusters)."""
    n_combos = len(state.combos)
    if state.spec.clusters is None:  # a row is a unit: one cell per combination
        counts = np.bincount(state.codes, weights=state.counts, minlength=n_combos)
        keep = np.flatnonzero(counts > 0)
        cells = sp.csr_matrix(
            (np.ones(keep.size), (np.arange(keep.size), keep)), shape=(keep.size, n_combos)
        )  # fmt: skip
        return cells, counts[keep].astype(np.int64), None
    starts = np.flatnonzero(np.r_[True, state.units[1:] != state.units[:-1]])
    ends = np.r_[starts[1:], state.units.size]
    first: dict[bytes, int] = {}  # cells numbered as met, clusters in key order
    cell_of = np.empty(starts.size, dtype=np.int64)
    for i, (lo, hi) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        sig = state.codes[lo:hi].tobytes() + b"|" + state.counts[lo:hi].tobytes()
        cell_of[i] = first.setdefault(sig, len(first))
    sizes = np.bincount(cell_of, minlength=len(first)).astype(np.int64)
    _, one = np.unique(cell_of, return_index=True)  # each cell's first cluster
    keep = np.isin(np.repeat(np.arange(starts.size), ends - starts), one)
    rows = np.repeat(cell_of, ends - starts)[keep]
    cells = sp.csr_matrix(
        (state.counts[keep].astype(float), (rows, state.codes[keep])),
        shape=(len(first), n_combos),
    )  # fmt: skip
    return cells, sizes, int(starts.size)


def _poisson_stream(seed: int) -> np.random.Generator:
    """The run's one stream of cell weights (its own key: no other stream shares it)."""
    k0, k1 = (int(v) for v in philox_key(seed))
    return philox_generator((k0 | (k1 << 32)) | (0x72616E6B << 64))


@dataclass(frozen=True)
class _System:
    """One system's view of the combinations: positive or not, and its score's bin."""

    groups: sp.csr_matrix  # (combinations, 2 * bins): positive bins, then negative
    n_bins: int
    mixed: np.ndarray  # bins holding several distinct raw scores

    def split(self, weighted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        both = np.asarray((self.groups.T @ weighted.T).T)
        return both[:, : self.n_bins], both[:, self.n_bins :]


def _system(state: RankState, cols: tuple[str, ...], metric: Metric) -> _System:
    combos, spec = state.hist.combos, state.spec
    label, score = cols
    pos = binary_labels(combos[label].to_numpy(), getattr(metric, "pos_label", None))
    values = combos[score].to_numpy(dtype=float)
    bins, group = np.unique(values, return_inverse=True)
    target = group.reshape(-1) + np.where(pos, 0, bins.size)
    groups = sp.csr_matrix(
        (np.ones(values.size), (np.arange(values.size), target)), shape=(values.size, 2 * bins.size)
    )  # fmt: skip
    spread = state.spread[state.spread["column"] == spec.inputs.index(score)]
    ranged = spread.set_index("value").reindex(bins)
    mixed = (ranged["hi"] > ranged["lo"]).to_numpy()
    return _System(groups, bins.size, mixed)


def tie_bound(metric: Metric, pos: np.ndarray, neg: np.ndarray, mixed: np.ndarray) -> float:
    """The most the value from a histogram can differ from the value on the raw scores,
    where bins ``mixed`` hold several distinct scores (counts in increasing score order).

    Examples
    --------
    >>> from booteval.metrics.ranking import RocAuc
    >>> tie_bound(RocAuc(), np.array([1.0, 2.0]), np.array([2.0, 1.0]), np.array([False, True]))
    0.1111111111111111
    """
    if not mixed.any():
        return 0.0
    if metric.name == "roc_auc":  # a tied pair counts 1/2; its true share is 0 or 1
        return float(0.5 * (pos * neg)[mixed].sum() / (pos.sum() * neg.sum()))
    # average precision: a bin's precision at each of its positives lies between that of
    # its negatives all coming first and all coming last
    p, n = pos[::-1], neg[::-1]
    tp_before = np.cumsum(p) - p
    seen_before = tp_before + np.cumsum(n) - n
    binned = (tp_before + p) / np.maximum(seen_before + p + n, 1)
    low = (tp_before + 1) / np.maximum(seen_before + n + 1, 1)
    high = (tp_before + p) / np.maximum(seen_before + p, 1)
    gap = np.maximum(high - binned, binned - low) * (p > 0)
    return float((p * gap)[mixed[::-1]].sum() / p.sum())


def rank_replicates(state: RankState, metric: Metric) -> tuple[Any, dict[str, Any], str]:
    """The estimates, replicates and what the result says of the histogram.

    Returns ``(Replicates, details, note)``.
    """
    from .finish import Replicates

    spec = state.spec
    cells, sizes, n_clusters = _cells(state.hist)
    systems = [_system(state, cols, metric) for cols in spec.system_columns]
    totals = np.asarray(cells.T @ sizes.astype(float))[None, :]
    estimates, bounds = [], []
    for s in systems:
        pos, neg = s.split(totals)
        estimates.append(float(metric.from_groups(pos, neg)[0]))
        bounds.append(tie_bound(metric, pos[0], neg[0], s.mixed))
    stream = _poisson_stream(spec.seed)
    block = max(1, _BLOCK_CELLS // max(1, sizes.size))
    values = np.empty((spec.n_resamples, len(systems)))
    for lo in range(0, spec.n_resamples, block):
        hi = min(lo + block, spec.n_resamples)
        draws = stream.poisson(sizes.astype(float), size=(hi - lo, sizes.size))
        weighted = np.asarray((cells.T @ draws.T).T)
        for k, s in enumerate(systems):
            values[lo:hi, k] = metric.from_groups(*s.split(weighted))
    exact = not any(s.mixed.any() for s in systems)
    n_bins = [s.n_bins for s in systems]
    details = {
        "score_bits": SCORE_BITS, "bins": n_bins if len(n_bins) > 1 else n_bins[0],
        "exact": exact, "tie_bound": bounds if len(bounds) > 1 else bounds[0],
    }  # fmt: skip
    if exact:
        note = (
            f"{metric.label} from a per-class histogram of the scores rounded to "
            f"{SCORE_BITS} significant bits: exact (no bin holds two distinct scores)"
        )
    else:
        worst = max(bounds)
        note = (
            f"{metric.label} from a per-class histogram of the scores rounded to "
            f"{SCORE_BITS} significant bits ({', '.join(map(str, n_bins))} bins): some bins "
            f"hold several distinct scores, so the value on the raw scores can differ by "
            f"at most {worst:.2g} (the tie bound)"
        )
    reps = Replicates(
        np.array(estimates), values, None, state.n_rows, n_clusters, int(sizes.size)
    )  # fmt: skip
    return reps, details, note
