"""The compiled engine's two-level threshold kernel (:func:`booteval.threshold_ci` and
``threshold_compare`` with a named rule).

A replicate draws the validation units (rows or clusters, within strata) and, for each
system, takes one pass over its validation rows in decreasing score order, accumulating
the weighted positives and rows; at the end of each tie group it evaluates the rule's
objective exactly as the NumPy engine does (the same floating-point operations on the
same integer counts), keeping the first best: the highest threshold among equal optima.
It then draws the test units: under an iid test design each drawn row is added to the
confusion counts of every system at that system's threshold as it is drawn; otherwise the
drawn units are counted and one pass over the test rows weighs each row by its unit's
count.

Validation and test draws come from two xoshiro256++ generators per replicate
(:mod:`booteval.core.kernels`), keyed on the ``kernels.threshold.val`` and
``kernels.threshold.test`` streams, so ``refit=False`` (no validation draws) resamples
the test set exactly as ``refit=True`` does.
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
    _compile_notice,
    _design_units,
    _draw_units,
    _rejection,
    _run_chunks,
    _seed_state,
    stream_key,
)

__all__ = ["RULES", "threshold_runner"]

#: the named rules, by their codes in the kernel
RULES = {"max_f1": 0, "youden": 1, "precision_at_recall": 2, "recall_at_precision": 3}


@njit(cache=_CACHE)
def _fit(rule, target, counts, units, pos, ends, values, p, n):  # pragma: no cover - compiled
    """The rule's threshold for the unit ``counts`` (NaN where undefined): one pass over
    the rows in decreasing score order, ``ends`` closing each tie group of ``values``."""
    if p <= 0.0 or n <= 0.0:
        return np.nan
    tp = 0.0
    pp = 0.0
    g = 0
    best = -np.inf
    found = -1
    for i in range(units.shape[0]):
        w = float(counts[units[i]])
        tp += w * pos[i]
        pp += w
        if i + 1 != ends[g]:
            continue
        if pp > 0.0:
            if rule == 0:
                obj, ok = 2.0 * tp / (pp + p), True
            elif rule == 1:
                obj, ok = tp * n - (pp - tp) * p, True
            elif rule == 2:
                obj, ok = tp / pp, tp / p >= target
            else:
                obj, ok = tp, tp / pp >= target
            if ok and obj > best:
                best, found = obj, g
        g += 1
    return values[found] if found >= 0 else np.nan


@njit(parallel=True, cache=_CACHE)
def _threshold_kernel(  # pragma: no cover - compiled
    val, test, rows_drawn, rule, target, t_fixed, keys, start, chunks, out_t, out_c
):
    """Thresholds ``out_t[r, k]`` and test counts ``out_c[r, k] = (tp, fp, fn, tn)`` of
    replicate ``start + r`` for each system ``k``.

    ``val = (perm, offsets, unit_pos, unit_rows, units, pos, ends, end_at, values)``: the
    validation units grouped by stratum, each unit's positives and rows, and per system
    the unit and label of each row in decreasing score order, the ends of its tie groups
    (``ends[end_at[k]:end_at[k + 1]]``) and their scores. ``test = (perm, offsets,
    unit, pos, rank, neg_sorted)``: the test units grouped by stratum, each test row's
    unit and 0/1 label, its position in each system's decreasing score order (a column per
    system) and each system's negated scores in increasing order. A row predicts positive
    at threshold ``t`` when its position is below the number of scores ``>= t``. With
    ``rows_drawn`` (an iid test design: the units are the rows), each draw is added as it
    is drawn, with the draws of one stratum of units in order. With an
    empty ``val[0]`` the thresholds stay ``t_fixed`` (no refit).
    """
    v_perm, v_off, v_upos, v_urows, v_units, v_pos, v_ends, v_end_at, v_values = val
    t_perm, t_off, t_unit, t_pos, t_rank, t_neg_sorted = test
    kv0, kv1, kt0, kt1 = keys
    n_sys = t_rank.shape[1]
    nb = out_t.shape[0]
    refit = v_perm.shape[0] > 0
    for c in prange(chunks):
        v_counts = np.zeros(v_perm.shape[0], dtype=np.int64)
        t_counts = np.zeros(t_perm.shape[0], dtype=np.int64)
        cut = np.empty(n_sys, dtype=np.int64)
        tp, pp = np.empty(n_sys, dtype=np.int64), np.empty(n_sys, dtype=np.int64)
        for r in range(c * nb // chunks, (c + 1) * nb // chunks):
            for k in range(n_sys):
                out_t[r, k] = t_fixed[k]
            if refit:
                _draw_units(v_counts, v_perm, v_off, kv0, kv1, start + r)
                p = 0.0
                rows = 0.0
                for u in range(v_counts.shape[0]):
                    p += v_counts[u] * v_upos[u]
                    rows += v_counts[u] * v_urows[u]
                for k in range(n_sys):
                    lo, hi = v_end_at[k], v_end_at[k + 1]
                    out_t[r, k] = _fit(rule, target, v_counts, v_units[k], v_pos[k],
                                       v_ends[lo:hi], v_values[lo:hi], p, rows - p)  # fmt: skip
                v_counts[:] = 0
            for k in range(n_sys):  # rows at sorted positions below cut[k] predict positive
                t = out_t[r, k]
                cut[k] = 0 if t != t else np.searchsorted(t_neg_sorted[k], -t, side="right")
                tp[k] = 0
                pp[k] = 0
            p = np.int64(0)
            total = np.int64(0)
            if rows_drawn:  # iid rows: add each drawn row as it is drawn, branch-free
                s0, s1, s2, s3 = _seed_state(kt0, kt1, start + r)
                buf, have = np.uint64(0), False
                nn, reject = _rejection(t_pos.shape[0])
                for _ in range(t_pos.shape[0]):
                    row, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
                    y = t_pos[row]
                    p += y
                    for k in range(n_sys):
                        hit = -((t_rank[row, k] - cut[k]) >> 63)  # 1 when rank < cut
                        tp[k] += hit * y
                        pp[k] += hit
                total = t_pos.shape[0]
            else:  # units of rows: count the drawn units, then weigh every row by its unit
                _draw_units(t_counts, t_perm, t_off, kt0, kt1, start + r)
                for row in range(t_pos.shape[0]):
                    m = t_counts[t_unit[row]]
                    y = t_pos[row]
                    p += m * y
                    total += m
                    for k in range(n_sys):
                        hit = m & ((t_rank[row, k] - cut[k]) >> 63)  # m when rank < cut
                        tp[k] += hit * y
                        pp[k] += hit
                t_counts[:] = 0
            for k in range(n_sys):
                fp = pp[k] - tp[k]
                out_c[r, k, 0] = float(tp[k])
                out_c[r, k, 1] = float(fp)
                out_c[r, k, 2] = float(p - tp[k])
                out_c[r, k, 3] = float(total - p - fp)


def threshold_runner(
    rule: str, target: float | None, design_val: Any, val: list[Any], design_test: Any,
    test_pos: np.ndarray, test_scores: list[np.ndarray], t_fixed: np.ndarray | None,
    values_of: Any,
) -> Runner:  # fmt: skip
    """A runner of the two-level threshold bootstrap for a named ``rule``.

    ``val`` holds each system's validation scores sorted as the NumPy engine sorts them
    (``order``, ``pos_sorted``, ``ends``, ``values`` of its ``_Sorted``); ``t_fixed``
    the thresholds fitted once (``None`` to refit per replicate). ``values_of(t, counts)``
    maps the thresholds ``(batch, K)`` and the test counts ``(batch, K, 4)`` to the
    replicate values ``(batch, 2 K)``.

    Examples
    --------
    >>> from booteval.design import make_design
    >>> from booteval.methods.threshold_fit import _Sorted
    >>> y, s = np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])
    >>> val = [_Sorted.build(y.astype(bool), s)]
    >>> run = threshold_runner("youden", None, make_design(4), val, make_design(4), y, [s],
    ...                        None, lambda t, counts: t)  # the thresholds alone
    >>> thresholds, _ = run(0, 0, 50, False)
    >>> bool(np.all(np.isnan(thresholds) | np.isin(thresholds, s)))  # a validation score
    True
    """
    n_sys = len(test_scores)
    if t_fixed is None:
        v_perm, v_off = _design_units(design_val)
        u_row = np.asarray(design_val.unit_of_row, dtype=np.int64)
        pos_rows = np.asarray(val[0].pos, dtype=np.float64)
        v_upos = np.bincount(u_row, weights=pos_rows, minlength=design_val.n_units)
        v_urows = np.bincount(u_row, minlength=design_val.n_units).astype(np.float64)
        v_units = np.ascontiguousarray(np.stack([u_row[s.order] for s in val]))
        v_pos = np.ascontiguousarray(np.stack([s.pos_sorted for s in val]), dtype=np.float64)
        v_ends = np.concatenate([s.ends for s in val]).astype(np.int64)
        v_end_at = np.r_[0, np.cumsum([s.ends.size for s in val])].astype(np.int64)
        v_values = np.concatenate([s.values for s in val]).astype(np.float64)
        t_fixed = np.full(n_sys, np.nan)
    else:  # no validation draws
        v_perm, v_off = np.zeros(0, np.int64), np.zeros(1, np.int64)
        v_upos = v_urows = v_values = np.zeros(0)
        v_units, v_pos = np.zeros((n_sys, 0), np.int64), np.zeros((n_sys, 0))
        v_ends, v_end_at = np.zeros(0, np.int64), np.zeros(n_sys + 1, np.int64)
    t_perm, t_off = _design_units(design_test)
    n_test = len(test_pos)
    t_rank = np.empty((n_test, n_sys), dtype=np.int64)
    t_neg = np.empty((n_sys, n_test))
    for k, scores in enumerate(test_scores):
        order = np.argsort(-scores, kind="stable")
        t_rank[order, k] = np.arange(n_test)
        t_neg[k] = -scores[order]
    val_arrays = (v_perm, v_off, v_upos, v_urows, v_units, v_pos, v_ends, v_end_at, v_values)
    test_arrays = (t_perm, t_off, np.asarray(design_test.unit_of_row, dtype=np.int64),
                   np.asarray(test_pos, dtype=np.int64), t_rank, t_neg)  # fmt: skip
    iid = design_test.kind == "iid"
    code = np.int64(RULES[rule])
    tgt = np.float64(np.nan if target is None else target)
    fixed = np.asarray(t_fixed, dtype=np.float64)

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        keys = (*stream_key(seed, "kernels.threshold.val"),
                *stream_key(seed, "kernels.threshold.test"))  # fmt: skip
        _compile_notice(_threshold_kernel)
        t_out = np.empty((stop - start, n_sys))
        c_out = np.empty((stop - start, n_sys, 4))

        def kernel(lo: int, hi: int) -> np.ndarray:
            chunks = np.int64(min(hi - lo, 8 * numba.get_num_threads()))
            _threshold_kernel(val_arrays, test_arrays, iid, code, tgt, fixed, keys, np.int64(lo),
                              chunks, t_out[lo - start : hi - start],
                              c_out[lo - start : hi - start])  # fmt: skip
            return np.zeros(0)

        _run_chunks(kernel, start, stop)
        return values_of(t_out, c_out), None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run
