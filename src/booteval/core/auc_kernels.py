"""The compiled engine's ROC-AUC kernels (see :mod:`booteval.core.kernels` for the draws).

* iid design, one system: the scores are sorted once; a replicate draws sorted
  positions (row ``order[p]``) and counts them, then one pass in score order
  accumulates the weighted Mann-Whitney numerator in exact integer arithmetic (ties
  count one half; NaN when a class is absent). Two equivalent passes, per position
  (many tie groups) or per tie group (few), give identical values.
* several systems on shared draws (a comparison, a leaderboard), or clustered and
  stratified designs: a replicate draws the units (rows or clusters, within strata) once,
  then takes one pass per system over its own sorted order, each position weighing its
  unit's count.
* a studentized interval of one system: on the same draws, DeLong's standard error of
  each replicate from its tie groups' class weights (the placements), summed over rows or,
  with clusters, over each cluster's rows first; the NumPy engine's
  ``AucEvaluator.standard_errors`` runs the same pass over any weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from .kernels import (
    _CACHE,
    Runner,
    _compile_notice,
    _count_draws,
    _design_units,
    _draw_units,
    chunk_runner,
)

__all__ = [
    "auc_bounds", "auc_runner", "delong_standard_errors", "single", "units_auc_runner", "units_of",
]  # fmt: skip


@njit(parallel=True, cache=_CACHE)
def _auc_kernel(bounds, k0, k1, start, n_chunks, out):  # pragma: no cover - compiled
    """ROC-AUC of replicates ``start ..`` over tie groups of the sorted scores.

    ``bounds`` has ``2 G + 1`` entries: group ``g``'s positives occupy sorted
    positions ``[bounds[2g], bounds[2g+1])`` and its negatives
    ``[bounds[2g+1], bounds[2g+2])``, groups in increasing score order.
    """
    n = bounds[bounds.shape[0] - 1]
    n_groups = (bounds.shape[0] - 1) // 2
    nb = out.shape[0]
    for c in prange(n_chunks):
        counts = np.zeros(n, dtype=np.int32)
        for r in range(c * nb // n_chunks, (c + 1) * nb // n_chunks):
            _count_draws(counts, k0, k1, start + r)
            # twice the Mann-Whitney numerator, exactly: sum_g P_g (2 Nbelow_g + N_g)
            num2 = np.int64(0)
            below = np.int64(0)
            p_tot = np.int64(0)
            for g in range(n_groups):
                p = np.int64(0)
                for i in range(bounds[2 * g], bounds[2 * g + 1]):
                    p += counts[i]
                    counts[i] = 0
                q = np.int64(0)
                for i in range(bounds[2 * g + 1], bounds[2 * g + 2]):
                    q += counts[i]
                    counts[i] = 0
                num2 += p * (2 * below + q)
                below += q
                p_tot += p
            den = 2.0 * float(p_tot) * float(below)
            out[r] = float(num2) / den if den > 0 else np.nan


@njit(cache=_CACHE, inline="always")
def _mann_whitney(w, total, pos, ties, t0, t1):  # pragma: no cover - compiled
    """The AUC of one replicate from the weights ``w`` of the sorted positions (and
    zero them), which add up to ``total``; NaN when a class is absent.

    ``pos[i]`` is 1 where position ``i`` holds a positive; within a tie group the
    positives come first, so a positive is above exactly the negatives counted so far.
    The tied pairs add ``P_g Q_g / 2`` per group: ``ties[t0:t1]`` lists each group with
    both classes as (first position, first negative, end). In exact integers.
    """
    tied = _tied_pairs(w, ties, t0, t1)
    above = np.int64(0)
    below = np.int64(0)
    for i in range(pos.shape[0]):
        cc = np.int64(w[i])
        isp = pos[i]
        above += isp * cc * below
        below += (1 - isp) * cc
        w[i] = 0
    return _auc_of(above, tied, below, total)


@njit(cache=_CACHE, inline="always")
def _tied_pairs(w, ties, t0, t1):  # pragma: no cover - compiled
    """Twice the tied pairs' share of the numerator: ``sum P_g Q_g`` over ``ties[t0:t1]``."""
    tied = np.int64(0)
    for t in range(t0, t1):
        p = np.int64(0)
        for i in range(ties[t, 0], ties[t, 1]):
            p += w[i]
        q = np.int64(0)
        for i in range(ties[t, 1], ties[t, 2]):
            q += w[i]
        tied += p * q
    return tied


@njit(cache=_CACHE, inline="always")
def _auc_of(above, tied, below, total):  # pragma: no cover - compiled
    den = 2.0 * float(total - below) * float(below)
    return float(2 * above + tied) / den if den > 0 else np.nan


@njit(cache=_CACHE, inline="always")
def _mann_whitney_two(w, v, total, pos, ties):  # pragma: no cover - compiled
    """:func:`_mann_whitney` of two replicates' weights in one pass (two independent
    running sums keep the core busy); each value as the one-replicate pass gives it."""
    tied_w = _tied_pairs(w, ties, 0, ties.shape[0])
    tied_v = _tied_pairs(v, ties, 0, ties.shape[0])
    above_w = np.int64(0)
    below_w = np.int64(0)
    above_v = np.int64(0)
    below_v = np.int64(0)
    for i in range(pos.shape[0]):
        cw = np.int64(w[i])
        cv = np.int64(v[i])
        isp = pos[i]
        above_w += isp * cw * below_w
        below_w += (1 - isp) * cw
        above_v += isp * cv * below_v
        below_v += (1 - isp) * cv
        w[i] = 0
        v[i] = 0
    return _auc_of(above_w, tied_w, below_w, total), _auc_of(above_v, tied_v, below_v, total)


#: the rows kernel passes two replicates at a time up to this many rows (two count arrays
#: per thread still fit the core's cache; beyond, one at a time is faster)
_TWO_MAX = 1 << 19


@njit(parallel=True, cache=_CACHE)
def _auc_rows_kernel(pos, ties, k0, k1, start, n_chunks, out):  # pragma: no cover - compiled
    """As :func:`_auc_kernel`, one pass over the sorted positions (many tie groups), two
    replicates at a time up to :data:`_TWO_MAX` rows: see :func:`_mann_whitney` for ``pos``
    and ``ties``."""
    n = pos.shape[0]
    nb = out.shape[0]
    two = n <= _TWO_MAX
    for c in prange(n_chunks):
        counts = np.zeros(n, dtype=np.int32)
        other = np.zeros(n if two else 0, dtype=np.int32)
        lo, hi = c * nb // n_chunks, (c + 1) * nb // n_chunks
        r = lo
        while two and r + 1 < hi:
            _count_draws(counts, k0, k1, start + r)
            _count_draws(other, k0, k1, start + r + 1)
            out[r], out[r + 1] = _mann_whitney_two(counts, other, n, pos, ties)
            r += 2
        for q in range(r, hi):
            _count_draws(counts, k0, k1, start + q)
            out[q] = _mann_whitney(counts, n, pos, ties, 0, ties.shape[0])


@njit(parallel=True, cache=_CACHE)
def _auc_units_kernel(
    units, pos, ties, tie_at, perm, offsets, k0, k1, start, chunks, out
):  # pragma: no cover
    """ROC-AUC of one or several systems, drawing resampling units (rows or clusters,
    within strata) once per replicate.

    ``perm`` lists the units grouped by stratum, stratum ``g`` holding
    ``perm[offsets[g]:offsets[g + 1]]``; a replicate draws that many of them, stratum
    after stratum, and counts them. Each system ``s`` then takes the pass of
    :func:`_mann_whitney` over its sorted positions, position ``i`` weighing
    ``counts[units[s, i]]`` (the unit of the row there), with ``pos[s]`` and the tie
    groups ``ties[tie_at[s]:tie_at[s + 1]]``. With one stratum of rows in order the
    draws are those of :func:`_count_draws`.
    """
    n_sys, n = units.shape
    nb = out.shape[0]
    for c in prange(chunks):
        counts = np.zeros(perm.shape[0], dtype=np.int32)
        w = np.zeros(n, dtype=np.int32)
        for r in range(c * nb // chunks, (c + 1) * nb // chunks):
            _draw_units(counts, perm, offsets, k0, k1, start + r)
            for s in range(n_sys):
                total = np.int64(0)
                for i in range(n):
                    w[i] = counts[units[s, i]]
                    total += w[i]
                out[r, s] = _mann_whitney(w, total, pos[s], ties, tie_at[s], tie_at[s + 1])
            counts[:] = 0


def auc_runner(ev: object, design: Any) -> Runner | str:
    """The runner of one system's ROC-AUC: over sorted positions when ``design`` is iid,
    otherwise over its units; with DeLong's standard errors on the same draws when asked
    (a studentized interval)."""
    iid = design.kind == "iid"
    values = _sorted_auc_runner(ev) if iid else single(units_auc_runner([ev], design))
    if isinstance(values, str):
        return values
    prepared: list[Runner] = []  # the standard errors' layout, on first use

    def with_se() -> Runner:
        if prepared:
            return prepared[0]
        rows, pos, ties = _auc_layout(ev)
        units = rows if iid else units_of([(rows,)], design).reshape(-1)  # type: ignore[union-attr]
        g = ev.groups  # type: ignore[attr-defined]
        group = np.ascontiguousarray(g.group_of_row[rows], dtype=np.int64)
        perm, offsets = _design_units(design)
        clustered = bool(design.clustered)

        def call(lo: int, chunks: int, k0: Any, k1: Any, out: np.ndarray) -> None:
            _auc_se_kernel(
                units, pos, group, g.n_groups, ties, perm, offsets, iid, clustered, k0, k1,
                lo, chunks, out,
            )  # fmt: skip

        prepared.append(chunk_runner(_auc_se_kernel, call, width=2))
        return prepared[0]

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, Any]:
        if not want_se:
            return values(seed, start, stop, False)
        both, _ = with_se()(seed, start, stop, False)
        return both[:, 0], both[:, 1]

    run.has_standard_error = True  # type: ignore[attr-defined]
    return run


def auc_bounds(ev: object) -> np.ndarray:
    """Sorted-position boundaries of each tie group's positives and negatives."""
    g = ev.groups
    pc = g.pos_count.astype(np.int64)
    nc = g.neg_count.astype(np.int64)
    sizes = np.column_stack([pc, nc]).reshape(-1)
    return np.r_[0, np.cumsum(sizes)].astype(np.int64)


def _sorted_auc_runner(ev: object) -> Runner:
    bounds = auc_bounds(ev)
    n = int(bounds[-1])
    n_groups = (bounds.size - 1) // 2
    # many tie groups: one branch-free step per position; few: one loop per group
    if n_groups * 8 > n:
        _, pos, ties = _auc_layout(ev)

        def rows(lo: Any, chunks: Any, k0: Any, k1: Any, out: np.ndarray) -> None:
            _auc_rows_kernel(pos, ties, k0, k1, lo, chunks, out)

        return chunk_runner(_auc_rows_kernel, rows)

    def groups(lo: Any, chunks: Any, k0: Any, k1: Any, out: np.ndarray) -> None:
        _auc_kernel(bounds, k0, k1, lo, chunks, out)

    return chunk_runner(_auc_kernel, groups)


def _auc_layout(ev: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A system's rows in sorted order (positives first within a tie group), 1 at the
    positions of positives, and its tie groups with both classes (first position, first
    negative, end)."""
    bounds = auc_bounds(ev)
    g = ev.groups
    pos = np.ascontiguousarray(g.pos[g.order], dtype=np.int64)
    first, mid, end = bounds[0:-1:2], bounds[1::2], bounds[2::2]
    mixed = (mid > first) & (end > mid)
    ties = np.ascontiguousarray(np.column_stack([first, mid, end])[mixed], dtype=np.int64)
    return np.asarray(g.order, dtype=np.int64), pos, ties.reshape(-1, 3)


def units_auc_runner(parts: list[object], design: Any) -> Runner | str:
    """ROC-AUC of the systems in ``parts`` on shared draws of ``design``'s units (rows or
    clusters, within strata): values of shape ``(batch, len(parts))``."""
    if not all(getattr(part, "kernel", None) == "auc" for part in parts):
        return "the compiled engine has no kernel for several systems of this statistic yet"
    layouts = [_auc_layout(part) for part in parts]
    units = units_of(layouts, design)
    if isinstance(units, str):
        return units
    pos = np.ascontiguousarray(np.stack([lay[1] for lay in layouts]))
    ties = np.ascontiguousarray(np.concatenate([lay[2] for lay in layouts]))
    tie_at = np.r_[0, np.cumsum([len(lay[2]) for lay in layouts])].astype(np.int64)
    perm, offsets = _design_units(design)

    def call(lo: int, chunks: int, k0: Any, k1: Any, out: np.ndarray) -> None:
        _auc_units_kernel(units, pos, ties, tie_at, perm, offsets, k0, k1, lo, chunks, out)

    return chunk_runner(_auc_units_kernel, call, width=units.shape[0])


def units_of(layouts: list[tuple[np.ndarray, ...]], design: Any) -> np.ndarray | str:
    """Each system's units at the positions of its layout (``layouts[s][0]`` lists the
    rows in the order the kernel reads them), as one ``(systems, n)`` array; or why not."""
    if len({lay[0].size for lay in layouts}) != 1 or layouts[0][0].size != design.n_rows:
        return "the compiled engine needs the systems on the same rows"
    unit_of_row = np.asarray(design.unit_of_row, dtype=np.int64)
    return np.ascontiguousarray(np.stack([unit_of_row[lay[0]] for lay in layouts]))


def single(runner: Runner | str) -> Runner | str:
    """A runner of one system's values as a vector (from a ``(batch, 1)`` runner)."""
    if isinstance(runner, str):
        return runner

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        values, _ = runner(seed, start, stop, want_se)
        return values[:, 0], None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run


@njit(cache=_CACHE, inline="always")
def _delong_se(w, wu, unit, pos, group, clustered, wp, wn, a10, a01, per_unit):  # pragma: no cover
    """DeLong's standard error of one replicate, from the weights ``w`` of the rows in
    sorted order and ``wu`` of the units.

    Position ``i`` holds a row of unit ``unit[i]``, positive where ``pos[i]``, in tie
    group ``group[i]`` (increasing score). Each group's class weights give the
    placements and the AUC; the variance adds the squared influence of every row
    (``clustered`` false: a unit is a row) or of one copy of every cluster, weighed by
    its unit's weight. NaN where a class weighs nothing. ``wp``, ``wn``, ``a10``, ``a01``
    (one entry per group) and ``per_unit`` are scratch.
    """
    n_groups = wp.shape[0]
    wp[:] = 0.0
    wn[:] = 0.0
    for i in range(unit.shape[0]):
        if pos[i]:
            wp[group[i]] += w[i]
        else:
            wn[group[i]] += w[i]
    p_tot = 0.0
    n_tot = 0.0
    for g in range(n_groups):
        p_tot += wp[g]
        n_tot += wn[g]
    if not (p_tot > 0.0 and n_tot > 0.0):
        return np.nan
    below = 0.0  # negative weight of the lower groups
    above = p_tot  # positive weight of the higher groups (once this one is taken off)
    num = 0.0
    for g in range(n_groups):
        a10[g] = (below + 0.5 * wn[g]) / n_tot  # a positive's placement
        below += wn[g]
        above -= wp[g]
        a01[g] = (above + 0.5 * wp[g]) / p_tot  # a negative's placement
        num += wp[g] * a10[g]
    auc = num / p_tot
    var = 0.0
    for g in range(n_groups):  # placements less the AUC, over the class's weight
        a10[g] = (a10[g] - auc) / p_tot
        a01[g] = (a01[g] - auc) / n_tot
        var += wp[g] * a10[g] * a10[g] + wn[g] * a01[g] * a01[g]
    if clustered:  # one copy of each cluster: its rows' influences add up first
        var = 0.0
        per_unit[:] = 0.0
        for i in range(unit.shape[0]):
            per_unit[unit[i]] += a10[group[i]] if pos[i] else a01[group[i]]
        for u in range(per_unit.shape[0]):
            var += wu[u] * per_unit[u] * per_unit[u]
    return np.sqrt(max(var, 0.0))


@njit(cache=_CACHE, nogil=True)
def _delong_se_kernel(uw, unit, pos, group, n_groups, clustered, out):  # pragma: no cover
    """:func:`_delong_se` of each row of unit weights ``uw``."""
    n = unit.shape[0]
    w = np.empty(n)
    wp, wn = np.empty(n_groups), np.empty(n_groups)
    a10, a01 = np.empty(n_groups), np.empty(n_groups)
    per_unit = np.empty(uw.shape[1])
    for b in range(uw.shape[0]):
        for i in range(n):
            w[i] = uw[b, unit[i]]
        out[b] = _delong_se(w, uw[b], unit, pos, group, clustered, wp, wn, a10, a01, per_unit)


@njit(parallel=True, cache=_CACHE)
def _auc_se_kernel(
    units, pos, group, n_groups, ties, perm, offsets, by_position, clustered, k0, k1, start,
    chunks, out,
):  # pragma: no cover - compiled  # fmt: skip
    """ROC-AUC (``out[:, 0]``) and DeLong's standard error (``out[:, 1]``) of one system's
    replicates, on the draws of the value kernels: of sorted positions where
    ``by_position`` (as :func:`_auc_rows_kernel`), else of the design's units (as
    :func:`_auc_units_kernel`); see :func:`_delong_se` for ``units``, ``pos``, ``group``."""
    n = units.shape[0]
    nb = out.shape[0]
    for c in prange(chunks):
        counts = np.zeros(n if by_position else perm.shape[0], dtype=np.int32)
        w = np.zeros(n, dtype=np.int32)
        wp, wn = np.empty(n_groups), np.empty(n_groups)
        a10, a01 = np.empty(n_groups), np.empty(n_groups)
        per_unit = np.empty(counts.shape[0] if clustered else 0)
        for r in range(c * nb // chunks, (c + 1) * nb // chunks):
            if by_position:
                _count_draws(counts, k0, k1, start + r)
            else:
                _draw_units(counts, perm, offsets, k0, k1, start + r)
            total = np.int64(0)
            for i in range(n):
                w[i] = counts[i] if by_position else counts[units[i]]
                total += w[i]
            out[r, 1] = _delong_se(
                w, counts, units, pos, group, clustered, wp, wn, a10, a01, per_unit
            )
            out[r, 0] = _mann_whitney(w, total, pos, ties, 0, ties.shape[0])  # zeroes w
            counts[:] = 0


def delong_standard_errors(
    unit_weights: np.ndarray, unit: np.ndarray, pos: np.ndarray, group: np.ndarray,
    n_groups: int, clustered: bool,
) -> np.ndarray:  # fmt: skip
    """DeLong's standard error of the AUC of every replicate (a row of ``unit_weights``),
    compiled, in one pass over the rows in sorted order per replicate: position ``i``
    holds a row of unit ``unit[i]``, positive where ``pos[i]``, in tie group
    ``group[i]`` of ``n_groups`` (see :meth:`AucEvaluator.standard_errors`).

    Examples
    --------
    Three rows, one unit each: a negative, the positive above it and a negative above
    both (AUC 0.5; the negatives' influences are +-1/4, the positive's 0):

    >>> rows = np.array([0, 1, 2])
    >>> se = delong_standard_errors(
    ...     np.ones((1, 3)), rows, np.array([False, True, False]), rows, 3, False
    ... )
    >>> round(float(se[0]), 4)  # sqrt(2 / 16)
    0.3536
    """
    uw = np.ascontiguousarray(unit_weights, dtype=np.float64)
    out = np.empty(uw.shape[0])
    _compile_notice(_delong_se_kernel)
    _delong_se_kernel(uw, unit, pos, group, n_groups, clustered, out)
    return out
