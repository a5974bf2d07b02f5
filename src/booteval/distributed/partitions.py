"""What one partition computes: its state, from its rows alone.

These functions run on the workers (a Dask task, a Spark Python worker, or the caller's
process for in-memory data); they take a pandas DataFrame and return a small state of
:mod:`booteval.distributed.states`. Nothing in them depends on which other rows exist,
how many partitions there are, or in what order they are merged: rows are keyed by their
position in the whole data (``offset``, given by the engine) and clusters by the fixed
hash :func:`booteval.core.philox.unit_key` of their label.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.design import make_design
from ..core.errors import InvalidInputError
from ..core.philox import unit_keys
from ..core.poisson_kernels import poisson_int_sums
from ..metrics.base import Metric, SumEvaluator, deferred_compression
from .states import FRACTION_BITS, HistogramState, StateSpec, SumState, sort_combos

__all__ = [
    "fixed_point", "histogram_partition", "sum_evaluator", "sum_partition", "system_stats",
    "unit_values",
]  # fmt: skip

# rows per kernel call: 13 * 2**32 * rows stays below 2**63 (exact int64 sums)
_KERNEL_ROWS = 1 << 26
# the largest magnitude the fixed point holds: 3 limbs of 32 bits above 2**-56
_MAX_VALUE = 2.0**39


def sum_evaluator(metric: Metric, arrays: tuple[np.ndarray, ...]) -> SumEvaluator:
    """The metric bound to ``arrays`` row by row (no cells), or a clear error."""
    ev = None
    if arrays and (metric.discrete_inputs or metric.row_local):
        with deferred_compression():
            ev = metric.bind_rows(arrays, make_design(arrays[0].shape[0]))
    if not isinstance(ev, SumEvaluator):
        raise InvalidInputError(
            "metric", "a metric that runs on a table (accuracy, the confusion-matrix "
            "metrics, means, MAE, MSE, RMSE, R2, log loss, Brier, BLEU, chrF, ROC-AUC, "
            "average precision)", repr(metric.label),
            "Correlations and ECE do not run on a table yet: collect the columns and call "
            "booteval.ci on arrays.",
        )  # fmt: skip
    return ev


def system_stats(metric: Metric, columns: tuple[Any, ...]) -> tuple[SumEvaluator, np.ndarray]:
    """One system's inputs bound to ``metric`` row by row, and its per-row statistics."""
    ev = sum_evaluator(metric, metric.validate(*columns))
    stats = ev.unit_stats.toarray() if sp.issparse(ev.unit_stats) else np.asarray(ev.unit_stats)
    return ev, np.asarray(stats, dtype=float).reshape(stats.shape[0], -1)


def _cluster_codes(column: Any) -> tuple[np.ndarray, np.ndarray]:
    """Codes of a partition's cluster labels and the 64-bit keys of the distinct ones."""
    import pandas as pd

    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    if (codes < 0).any():
        raise InvalidInputError("clusters", "a cluster label on every row", "missing labels")
    return codes, unit_keys(np.asarray(uniques))


def histogram_partition(pdf: Any, spec: StateSpec) -> HistogramState:
    """Row counts of each distinct combination of the input columns (and cluster key)."""
    cols = list(spec.inputs)
    groups = pdf[cols].groupby(cols, sort=False, dropna=False)
    code = groups.ngroup().to_numpy(dtype=np.int64)
    combos = groups.size().index.to_frame(index=False)
    combos.columns = cols
    canon = sort_combos(combos.reset_index(), cols)  # the partition's codes, in canonical order
    rank = np.empty(len(canon), dtype=np.int64)
    rank[canon.pop("index").to_numpy()] = np.arange(len(canon))
    code, n_combos = rank[code], len(canon)
    if spec.clusters is None:
        counts = np.bincount(code, minlength=n_combos).astype(np.int64)
        keep = counts > 0
        units = np.zeros(int(keep.sum()), dtype=np.uint64)
        return HistogramState(spec, canon, units, np.flatnonzero(keep), counts[keep])
    unit, keys = _cluster_codes(pdf[spec.clusters])
    by_key = np.argsort(keys, kind="stable")
    rank = np.empty(keys.size, dtype=np.int64)
    rank[by_key] = np.arange(keys.size)
    # sorted pairs of (the unit's rank by key, code): sorted by (key, code)
    pairs, counts = np.unique(rank[unit] * n_combos + code, return_counts=True)
    units, codes = keys[by_key][pairs // n_combos], pairs % n_combos
    counts = counts.astype(np.int64)
    new = np.ones(units.size, dtype=bool)  # two labels of one key (a hash collision) merge
    new[1:] = (units[1:] != units[:-1]) | (codes[1:] != codes[:-1])
    if not new.all():
        order = np.lexsort((codes, units))
        units, codes, counts = units[order], codes[order], counts[order]
        new[1:] = (units[1:] != units[:-1]) | (codes[1:] != codes[:-1])
        starts = np.flatnonzero(new)
        units, codes, counts = units[starts], codes[starts], np.add.reduceat(counts, starts)
    return HistogramState(spec, canon, units, codes, counts)


def fixed_point(stats: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Per-row statistics as exact ``int64`` limbs, and each limb's (column, bit shift)
    in units of ``2**-56``: one limb for integer columns, three of 32 bits otherwise.

    Examples
    --------
    >>> limbs, where = fixed_point(np.array([[1.0, 0.1], [2.0, -0.25]]))
    >>> where
    [(0, 56), (1, 0), (1, 32), (1, 64)]
    >>> sum(int(limbs[1, i]) << s for i, (_, s) in enumerate(where) if _ == 1) / 2**56
    -0.25
    """
    cols: list[np.ndarray] = []
    where: list[tuple[int, int]] = []
    for j in range(stats.shape[1]):
        x = np.asarray(stats[:, j], dtype=float)
        big = float(np.abs(x).max()) if x.size else 0.0
        if not np.isfinite(big):
            raise InvalidInputError(
                "data", "finite per-row statistics", "a row where the metric's statistics "
                "are NaN or infinite",
            )  # fmt: skip
        if big < 2.0**31 and np.array_equal(x, np.rint(x)):
            cols.append(x.astype(np.int64))
            where.append((j, FRACTION_BITS))
            continue
        if big >= _MAX_VALUE:
            raise InvalidInputError(
                "data", "per-row statistics below 2**39 in magnitude on a cluster "
                "(sums are exact fixed point)", f"a value of {big:g}",
            )  # fmt: skip
        sign = np.sign(x)
        y = np.abs(x) * 2.0**FRACTION_BITS  # exact: a power of two
        top = np.floor(y / 2.0**64)
        rest = y - top * 2.0**64  # exact: the low bits of y (y >= 0)
        mid = np.floor(rest / 2.0**32)
        low = np.rint(rest - mid * 2.0**32)  # the one rounding, to 2**-56 (half to even)
        cols += [(sign * v).astype(np.int64) for v in (low, mid, top)]
        where += [(j, 0), (j, 32), (j, 64)]
    return np.column_stack(cols) if cols else np.zeros((stats.shape[0], 0), np.int64), where


def _combine(limb_sums: np.ndarray, where: list[tuple[int, int]], k: int) -> np.ndarray:
    """Per-limb ``int64`` sums ``(..., L)`` as exact per-column Python integers ``(..., k)``."""
    out = np.zeros((*limb_sums.shape[:-1], k), dtype=object)
    for i, (j, shift) in enumerate(where):
        out[..., j] += limb_sums[..., i].astype(object) * (1 << shift)
    return out


# the slot of each limb shift in the layout every partition shares (unit sums)
_SLOTS = {0: 0, 32: 1, FRACTION_BITS: 2, 64: 3}


def _canonical(values: np.ndarray, where: list[tuple[int, int]], k: int) -> np.ndarray:
    """Limb sums in the layout every partition shares: four ``int64`` limbs per column,
    at bit shifts 0, 32, 56 and 64 (a partition's layout depends on its values)."""
    out = np.zeros((values.shape[0], 4 * k), dtype=np.int64)
    for i, (j, shift) in enumerate(where):
        out[:, 4 * j + _SLOTS[shift]] += values[:, i]
    return out


def unit_values(limbs: np.ndarray, k: int) -> np.ndarray:
    """Canonical limbs ``(U, 4 k)`` as exact per-column Python integers ``(U, k)``.

    Examples
    --------
    >>> unit_values(np.array([[1, 0, 2, 0]]), 1)[0, 0] == 1 + (2 << 56)
    True
    """
    where = [(j, shift) for j in range(k) for shift in _SLOTS]
    return _combine(limbs, where, k)


def sum_partition(pdf: Any, spec: StateSpec, metric: Metric, offset: int) -> SumState:
    """Exact Poisson-weighted sums of the partition's per-row statistics for every
    replicate; its rows are ``offset .. offset + len(pdf) - 1`` of the whole data."""
    stats = np.hstack(
        [system_stats(metric, tuple(pdf[c].to_numpy() for c in cols))[1]
         for cols in spec.system_columns]
    )  # fmt: skip
    n = stats.shape[0]
    limbs, where = fixed_point(stats)
    k = stats.shape[1]
    units = np.zeros(0, dtype=np.uint64)
    unit_limbs = None
    if spec.clusters is not None:
        codes, ukeys = _cluster_codes(pdf[spec.clusters])
        order = np.argsort(codes, kind="stable")
        starts = np.searchsorted(codes[order], np.arange(ukeys.size))
        values = np.add.reduceat(limbs[order], starts, axis=0) if n else limbs
        keys, units = ukeys, np.unique(ukeys)
        if spec.unit_sums:  # each cluster's sums, by key (for the jackknife)
            by_key = np.argsort(ukeys, kind="stable")
            first = np.flatnonzero(np.r_[True, ukeys[by_key][1:] != ukeys[by_key][:-1]])
            unit_limbs = np.add.reduceat(_canonical(values, where, k)[by_key], first, axis=0)
    else:
        keys, values = np.arange(offset, offset + n, dtype=np.uint64), limbs
    sums = np.zeros((spec.n_resamples, k), dtype=object)
    # chunks of units holding at most _KERNEL_ROWS rows (a unit's limbs sum its rows')
    rows = np.bincount(codes, minlength=keys.size) if spec.clusters is not None else None
    bounds = [0]
    if rows is None:
        bounds += list(range(_KERNEL_ROWS, keys.size, _KERNEL_ROWS))
    else:
        cum = np.cumsum(rows)
        bounds += list(np.searchsorted(cum, np.arange(_KERNEL_ROWS, n, _KERNEL_ROWS)) + 1)
    bounds.append(keys.size)
    totals = np.zeros(k, dtype=object)
    for lo, hi in itertools.pairwise(bounds):
        if hi > lo:
            part = poisson_int_sums(spec.seed, keys[lo:hi], values[lo:hi], 0, spec.n_resamples)
            sums += _combine(part, where, k)
            totals += _combine(values[lo:hi].sum(axis=0), where, k)
    labels = {
        cols[metric.input_names.index(name)]
        for cols in spec.system_columns for name in metric.label_inputs
    }  # fmt: skip
    classes = {c: np.unique(pdf[c].to_numpy()) for c in sorted(labels)}
    return SumState(spec, sums, totals, n, units, classes, unit_limbs)
