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

import numba
import numpy as np
from numba import njit, prange

from .kernels import (
    _CACHE,
    Runner,
    _bounded,
    _by_stratum,
    _compile_notice,
    _count_draws,
    _rejection,
    _run_chunks,
    _seed_state,
    stream_key,
)

__all__ = ["auc_bounds", "auc_runner", "units_auc_runner"]


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
def _auc_step(acc, cc, code):  # pragma: no cover - compiled
    """One sorted position of the weighted Mann-Whitney pass, branch-free.

    ``acc``: twice the numerator, the negatives in earlier tie groups, the negatives and
    the positives so far in this group, and all positives; ``cc`` the position's count;
    ``code``: bit 0 positive, bit 1 first position of a tie group. Within a group the
    positives come first, so a negative adds its ties with all of its group's positives.
    """
    num2, below, q, pg, p_tot = acc
    isp = np.int64(code & 1)
    st = np.int64(code >> 1)
    below += st * q
    q -= st * q
    pg -= st * pg
    num2 += cc * (isp * 2 * below + (1 - isp) * pg)
    pg += isp * cc
    q += (1 - isp) * cc
    p_tot += isp * cc
    return num2, below, q, pg, p_tot


@njit(cache=_CACHE, inline="always")
def _auc_value(acc):  # pragma: no cover - compiled
    """The AUC at the end of a pass (NaN when a class is absent)."""
    num2, below, q, _, p_tot = acc
    den = 2.0 * float(p_tot) * float(below + q)
    return float(num2) / den if den > 0 else np.nan


@njit(parallel=True, cache=_CACHE)
def _auc_rows_kernel(code, k0, k1, start, n_chunks, out):  # pragma: no cover - compiled
    """As :func:`_auc_kernel`, one branch-free step per sorted position (many tie groups).

    ``code[i]``: bit 0 set for a positive row, bit 1 for the first position of a
    tie group. Within a group the positives come first, so a negative position
    adds its ties with all of its group's positives, already counted.
    """
    n = code.shape[0]
    nb = out.shape[0]
    for c in prange(n_chunks):
        counts = np.zeros(n, dtype=np.int32)
        for r in range(c * nb // n_chunks, (c + 1) * nb // n_chunks):
            _count_draws(counts, k0, k1, start + r)
            acc = (np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(0))
            for i in range(n):
                acc = _auc_step(acc, np.int64(counts[i]), code[i])
                counts[i] = 0
            out[r] = _auc_value(acc)


@njit(parallel=True, cache=_CACHE)
def _auc_units_kernel(units, codes, perm, offsets, k0, k1, start, chunks, out):  # pragma: no cover
    """ROC-AUC of one or several systems, drawing resampling units (rows or clusters,
    within strata) once per replicate.

    ``perm`` lists the units grouped by stratum, stratum ``g`` holding
    ``perm[offsets[g]:offsets[g + 1]]``; a replicate draws that many of them, stratum
    after stratum, and counts them. Each system ``s`` then takes the pass of
    :func:`_auc_rows_kernel` over its sorted positions, position ``i`` weighing
    ``counts[units[s, i]]`` (the unit of the row there), with ``codes[s]`` as there.
    With one stratum of rows in order the draws are those of :func:`_count_draws`.
    """
    n_sys, n = units.shape
    nb = out.shape[0]
    for c in prange(chunks):
        counts = np.zeros(perm.shape[0], dtype=np.int32)
        for r in range(c * nb // chunks, (c + 1) * nb // chunks):
            s0, s1, s2, s3 = _seed_state(k0, k1, start + r)
            buf, have = np.uint64(0), False
            for g in range(offsets.shape[0] - 1):
                lo = offsets[g]
                nn, reject = _rejection(offsets[g + 1] - lo)
                for _ in range(offsets[g + 1] - lo):
                    idx, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
                    counts[perm[lo + idx]] += 1
            for s in range(n_sys):
                acc = (np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(0))
                for i in range(n):
                    acc = _auc_step(acc, np.int64(counts[units[s, i]]), codes[s, i])
                out[r, s] = _auc_value(acc)
            counts[:] = 0


def auc_runner(ev: object, design: Any) -> Runner | str:
    """The runner of one system's ROC-AUC: over sorted positions when ``design`` is iid,
    otherwise over its units."""
    if design.kind == "iid":
        return _sorted_auc_runner(ev)
    return _single(units_auc_runner([ev], design))


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
    per_row = n_groups * 8 > n
    if per_row:
        _, code = _auc_codes(ev)

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        k0, k1 = stream_key(seed)
        _compile_notice(_auc_rows_kernel if per_row else _auc_kernel)

        def kernel(lo: int, hi: int) -> np.ndarray:
            out = np.empty(hi - lo)
            chunks = np.int64(min(hi - lo, 8 * numba.get_num_threads()))
            if per_row:
                _auc_rows_kernel(code, k0, k1, np.int64(lo), chunks, out)
            else:
                _auc_kernel(bounds, k0, k1, np.int64(lo), chunks, out)
            return out

        return _run_chunks(kernel, start, stop), None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run


def _auc_codes(ev: object) -> tuple[np.ndarray, np.ndarray]:
    """A system's rows in sorted order and, per position, bit 0 positive and bit 1 the
    first position of a tie group (positives first within a group)."""
    bounds = auc_bounds(ev)
    g = ev.groups
    code = np.zeros(int(bounds[-1]), dtype=np.int8)
    code[:] = g.pos[g.order]
    code[bounds[0:-1:2]] += 2
    return np.asarray(g.order, dtype=np.int64), code


def units_auc_runner(parts: list[object], design: Any) -> Runner | str:
    """ROC-AUC of the systems in ``parts`` on shared draws of ``design``'s units (rows or
    clusters, within strata): values of shape ``(batch, len(parts))``."""
    from ..metrics.ranking import AucEvaluator

    if not all(type(part) is AucEvaluator for part in parts):
        return "the compiled engine has no kernel for several systems of this statistic yet"
    pairs = [_auc_codes(part) for part in parts]
    if len({order.size for order, _ in pairs}) != 1 or pairs[0][0].size != design.n_rows:
        return "the compiled engine needs the systems on the same rows"
    unit_of_row = np.asarray(design.unit_of_row, dtype=np.int64)
    units = np.ascontiguousarray(np.stack([unit_of_row[order] for order, _ in pairs]))
    codes = np.ascontiguousarray(np.stack([code for _, code in pairs]))
    perm, offsets = _by_stratum(np.asarray(design.unit_stratum, dtype=np.int64))

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        k0, k1 = stream_key(seed)
        _compile_notice(_auc_units_kernel)

        def kernel(lo: int, hi: int) -> np.ndarray:
            out = np.empty((hi - lo, units.shape[0]))
            chunks = np.int64(min(hi - lo, 8 * numba.get_num_threads()))
            _auc_units_kernel(units, codes, perm, offsets, k0, k1, np.int64(lo), chunks, out)
            return out

        return _run_chunks(kernel, start, stop).reshape(stop - start, units.shape[0]), None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run


def _single(runner: Runner | str) -> Runner | str:
    """A runner of one system's values as a vector (from a ``(batch, 1)`` runner)."""
    if isinstance(runner, str):
        return runner

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        values, _ = runner(seed, start, stop, want_se)
        return values[:, 0], None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run
