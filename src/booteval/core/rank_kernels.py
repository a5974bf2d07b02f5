"""The compiled engine's kernels for Spearman's rho, Kendall's tau-b and average precision
(see :mod:`booteval.core.kernels` for the draws).

A replicate draws the design's units (rows or clusters, within strata) once, as the
ROC-AUC kernel does (:mod:`booteval.core.auc_kernels`); each system then takes one pass
over its rows in a layout fixed by the data, every row weighing its unit's count. The
statistics are those of the NumPy engine's evaluators on the same weights:

* **Spearman**: each tie group's average rank of the expanded data, centred, is
  ``(rows before the group) + (the group's weight) / 2 - W / 2`` (halves, exact), then the
  weighted Pearson correlation of the ranks; one pass to sum the groups' weights, one over
  the groups and one over the rows.
* **Kendall's tau-b**: rows in increasing ``x`` (ties by increasing ``y``); the
  concordant pairs ``A`` come from a Fenwick tree over the ranks of ``y``, which holds
  the weights of the earlier ``x`` groups; ``C - D = 2 A + (S_y - S_xy) / 2 - (W^2 -
  S_x) / 2`` with ``S`` the sums of squared tie-group weights. Exact integers, O(n log n).
* **average precision**: the groups of tied scores in decreasing order; precision at each
  group times its positive weight, over the total positive weight.

The inline statistics take weights already in their layout's order, so any weight source
(the units of a design, or the cells of a crossed design) can use them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from .auc_kernels import units_of
from .kernels import _CACHE, Runner, _design_units, _draw_units, chunk_runner

__all__ = ["RANK_STATISTICS", "rank_layout", "rank_runner", "rank_values"]

#: the statistics these kernels compute, by the name evaluators give in ``compiled_statistic``
RANK_STATISTICS: tuple[str, ...] = ("spearman", "kendall", "average_precision")


@njit(cache=_CACHE, inline="always")
def _spearman(w, gx, gy, wx, wy, lo, hi, n_gx, n_gy):  # pragma: no cover - compiled
    """Spearman's rho of rows ``lo .. hi - 1`` weighing ``w`` (row order); ``gx``/``gy``
    are each row's tie group of ``x``/``y`` (increasing value, ``n_gx``/``n_gy`` groups),
    ``wx``/``wy`` zeroed scratch of at least those sizes (left zeroed). NaN where a
    variable is constant on the drawn rows."""
    total = np.int64(0)
    for i in range(lo, hi):
        wi = w[i]
        wx[gx[i]] += wi
        wy[gy[i]] += wi
        total += wi
    half = 0.5 * float(total)
    vx = _centre_ranks(wx, half, n_gx)
    vy = _centre_ranks(wy, half, n_gy)
    cov = 0.0
    for i in range(lo, hi):
        cov += float(w[i]) * wx[gx[i]] * wy[gy[i]]
    wx[:n_gx] = 0.0
    wy[:n_gy] = 0.0
    if total == 0 or not (vx > 0.0 and vy > 0.0):
        return np.nan
    return min(1.0, max(-1.0, cov / np.sqrt(vx * vy)))


@njit(cache=_CACHE, inline="always")
def _centre_ranks(wg, half, n_groups):  # pragma: no cover - compiled
    """Replace each group's weight by its centred average rank; return sum weight * rank^2."""
    before = 0.0
    var = 0.0
    for g in range(n_groups):
        s = wg[g]
        r = before + 0.5 * s - half
        var += s * r * r
        before += s
        wg[g] = r
    return var


@njit(cache=_CACHE, inline="always")
def _kendall(w, ry, xnew, xynew, tree, wy, lo, hi, n_gy):  # pragma: no cover - compiled
    """Kendall's tau-b of rows ``lo .. hi - 1`` weighing ``w``, in increasing ``x`` (ties
    by increasing ``y``): ``ry`` the dense rank of ``y`` (1 .. ``n_gy``), ``xnew``/``xynew``
    1 where an ``x`` / ``(x, y)`` tie group starts. ``tree`` (Fenwick) and ``wy`` are zeroed
    scratch of at least ``n_gy + 1`` entries, left zeroed. NaN where a variable is constant
    on the drawn rows."""
    conc = np.int64(0)
    total = np.int64(0)
    sx2 = np.int64(0)
    sxy2 = np.int64(0)
    start = lo
    while start < hi:
        stop = start + 1
        while stop < hi and xnew[stop] == 0:
            stop += 1
        # pairs with every earlier x group: weight below this row's y
        gx_w = np.int64(0)
        run = np.int64(0)
        for p in range(start, stop):
            wp = np.int64(w[p])
            if xynew[p]:
                sxy2 += run * run
                run = np.int64(0)
            run += wp
            gx_w += wp
            if wp != 0:
                k = ry[p] - 1
                below = np.int64(0)
                while k > 0:
                    below += tree[k]
                    k -= k & -k
                conc += wp * below
        sxy2 += run * run
        sx2 += gx_w * gx_w
        total += gx_w
        for p in range(start, stop):
            wp = np.int64(w[p])
            if wp != 0:
                wy[ry[p]] += wp
                k = ry[p]
                while k <= n_gy:
                    tree[k] += wp
                    k += k & -k
        start = stop
    sy2 = np.int64(0)
    for g in range(n_gy + 1):
        sy2 += wy[g] * wy[g]
        wy[g] = 0
        tree[g] = 0
    w2 = float(total) * float(total)
    ux = w2 - float(sx2)
    uy = w2 - float(sy2)
    if not (ux > 0.0 and uy > 0.0):
        return np.nan
    cd = 2.0 * float(conc) + 0.5 * float(sy2 - sxy2) - 0.5 * ux
    return min(1.0, max(-1.0, cd / np.sqrt(ux * uy * 0.25)))


@njit(cache=_CACHE, inline="always")
def _average_precision(w, pos, gnew):  # pragma: no cover - compiled
    """Average precision of positions weighing ``w`` in increasing score order (positives
    first within a tie group; ``gnew`` 1 where a group starts), over the groups in
    decreasing order. NaN without a drawn positive."""
    tp = 0.0
    seen = 0.0
    num = 0.0
    pg = 0.0
    ng = 0.0
    for p in range(w.shape[0] - 1, -1, -1):
        wp = float(w[p])
        if pos[p]:
            pg += wp
        else:
            ng += wp
        if gnew[p]:
            tp += pg
            seen += pg + ng
            if seen > 0.0:
                num += pg * (tp / seen)
            pg = 0.0
            ng = 0.0
    return num / tp if tp > 0.0 else np.nan


@njit(cache=_CACHE)
def _scratch(size):  # pragma: no cover - compiled
    """Zeroed scratch of the statistics for up to ``size - 1`` tie groups: the group
    weights of ``x`` and ``y`` (Spearman), a Fenwick tree and the weights of ``y`` (Kendall)."""
    f = np.zeros(size, dtype=np.float64)
    i = np.zeros(size, dtype=np.int64)
    return f, f.copy(), i, i.copy()


@njit(parallel=True, cache=_CACHE)
def _rank_units_kernel(
    kind, units, a, b, c, sizes, perm, offsets, k0, k1, start, chunks, out
):  # pragma: no cover - compiled
    """Statistic ``kind`` (0 Spearman, 1 Kendall, 2 average precision) of one or several
    systems, drawing the design's units once per replicate (as the ROC-AUC units kernel).

    System ``s`` reads its rows in its layout's order: position ``i`` weighs
    ``counts[units[s, i]]``; ``a``, ``b``, ``c`` are its layout (see :func:`rank_layout`)
    and ``sizes[s]`` its scratch sizes (tie groups of ``x`` and of ``y``).
    """
    n_sys, n = units.shape
    nb = out.shape[0]
    gmax = 1
    for s in range(n_sys):
        gmax = max(gmax, sizes[s, 0] + 1, sizes[s, 1] + 1)
    for ch in prange(chunks):
        counts = np.zeros(perm.shape[0], dtype=np.int32)
        w = np.zeros(n, dtype=np.int64)
        fx, fy, tree, wy = _scratch(gmax)
        for r in range(ch * nb // chunks, (ch + 1) * nb // chunks):
            _draw_units(counts, perm, offsets, k0, k1, start + r)
            for s in range(n_sys):
                for i in range(n):
                    w[i] = counts[units[s, i]]
                out[r, s] = _layout_statistic(kind, w, a[s], b[s], c[s], sizes[s], fx, fy, tree, wy)
            counts[:] = 0


@njit(cache=_CACHE, inline="always")
def _layout_statistic(kind, w, a, b, c, size, fx, fy, tree, wy):  # pragma: no cover - compiled
    n = w.shape[0]
    if kind == 0:
        return _spearman(w, a, b, fx, fy, 0, n, size[0], size[1])
    if kind == 1:
        return _kendall(w, a, b, c, tree, wy, 0, n, size[1])
    return _average_precision(w, a, b)


@njit(cache=_CACHE)
def _values_kernel(kind, w, a, b, c, size):  # pragma: no cover - compiled
    """The statistic of one system for given weights (``w`` per position of the layout)."""
    g = max(size[0], size[1]) + 1
    fx, fy, tree, wy = _scratch(g)
    out = np.empty(w.shape[0])
    for r in range(w.shape[0]):
        out[r] = _layout_statistic(kind, w[r], a, b, c, size, fx, fy, tree, wy)
    return out


def rank_layout(ev: Any) -> tuple[np.ndarray, ...]:
    """``(row_of_position, a, b, c, sizes)``: the order in which the kernel reads an
    evaluator's rows and its layout arrays (int64), with the scratch sizes.

    Spearman reads rows in order (``a``, ``b``: tie groups of ``x`` and ``y``); Kendall
    in increasing ``x`` then ``y`` (``a``: dense rank of ``y`` from 1, ``b``/``c``: where
    ``x`` and ``(x, y)`` groups start); average precision in increasing score, positives
    first within a group (``a``: positive, ``b``: where a group starts).
    """
    kind = ev.compiled_statistic
    if kind in ("spearman", "kendall"):
        return _rank_arrays(RANK_STATISTICS.index(kind), ev.gx.group_of_row, ev.gy.group_of_row)
    g = ev.groups
    rows = np.asarray(g.order, dtype=np.int64)
    grp = np.asarray(g.group_of_row)[rows]
    a = np.asarray(g.pos, dtype=np.int64)[rows]
    b = np.r_[1, grp[1:] != grp[:-1]].astype(np.int64)
    return rows, a, b, np.zeros(0, dtype=np.int64), np.array([g.n_groups, 0], dtype=np.int64)


def _rank_arrays(kind: int, rx: np.ndarray, ry: np.ndarray) -> tuple[np.ndarray, ...]:
    """The layout of Spearman (``kind`` 0) or Kendall (1) from the dense ranks (tie groups
    from 0, increasing) of ``x`` and ``y``: see :func:`rank_layout`."""
    rx = np.asarray(rx, dtype=np.int64)
    ry = np.asarray(ry, dtype=np.int64)
    sizes = np.array([rx.max(initial=-1) + 1, ry.max(initial=-1) + 1], dtype=np.int64)
    if kind == 0:
        return np.arange(rx.size, dtype=np.int64), rx, ry, np.zeros(0, dtype=np.int64), sizes
    rows = np.lexsort((ry, rx)).astype(np.int64)
    sx, sy = rx[rows], ry[rows]
    b = np.r_[1, sx[1:] != sx[:-1]].astype(np.int64)[: rows.size]
    c = (b | np.r_[1, sy[1:] != sy[:-1]][: rows.size]).astype(np.int64)
    return rows, sy + 1, b, c, sizes


def _kind(ev: Any) -> int:
    return RANK_STATISTICS.index(ev.compiled_statistic)


def rank_values(ev: Any, row_weights: np.ndarray) -> np.ndarray:
    """The compiled statistic of ``ev`` for each row of integer ``row_weights`` (rows in
    the data's order): for tests against the NumPy evaluators.

    Examples
    --------
    >>> import booteval as be
    >>> from booteval.core.design import make_design
    >>> ev = be.get_metric("kendall").bind(([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0]),
    ...                                    make_design(4))
    >>> float(rank_values(ev, np.ones((1, 4), dtype=np.int64))[0])  # doctest: +ELLIPSIS
    0.666...
    """
    rows, a, b, c, sizes = rank_layout(ev)
    w = np.ascontiguousarray(np.asarray(row_weights, dtype=np.int64)[:, rows])
    return _values_kernel(np.int64(_kind(ev)), w, a, b, c, sizes)


def rank_runner(parts: list[Any], design: Any) -> Runner | str:
    """The statistic of each evaluator in ``parts`` (all of one kind of
    :data:`RANK_STATISTICS`) on shared draws of ``design``'s units: values of shape
    ``(batch, len(parts))``."""
    kinds = {part.compiled_statistic for part in parts}
    if len(kinds) != 1:
        return "the compiled engine needs the systems' metrics to be the same"
    layouts = [rank_layout(part) for part in parts]
    units = units_of(layouts, design)
    if isinstance(units, str):
        return units
    a, b, c = (np.ascontiguousarray(np.stack([lay[k] for lay in layouts])) for k in (1, 2, 3))
    sizes = np.ascontiguousarray(np.stack([lay[4] for lay in layouts]))
    kind = np.int64(_kind(parts[0]))
    perm, offsets = _design_units(design)

    def call(lo: int, chunks: int, k0: Any, k1: Any, out: np.ndarray) -> None:
        _rank_units_kernel(kind, units, a, b, c, sizes, perm, offsets, k0, k1, lo, chunks, out)

    return chunk_runner(_rank_units_kernel, call, width=units.shape[0])
