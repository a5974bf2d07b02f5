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
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from .kernels import _CACHE, Runner, _count_draws, _design_units, _draw_units, chunk_runner

__all__ = ["auc_bounds", "auc_runner", "single", "units_auc_runner", "units_of"]


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
    otherwise over its units."""
    if design.kind == "iid":
        return _sorted_auc_runner(ev)
    return single(units_auc_runner([ev], design))


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
    from ..metrics.ranking import AucEvaluator

    if not all(type(part) is AucEvaluator for part in parts):
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
