"""The compiled engine's kernels for the meta-evaluation's crossed bootstrap (systems x
inputs; see :mod:`booteval.meta.kernels` for the statistics and :mod:`booteval.core.kernels`
for the generator).

A replicate draws the systems, then the inputs, from its own generator (the units of two
strata, :func:`booteval.core.kernels._draw_units`, on the ``kernels.meta`` stream): ``v``
counts each system's draws and ``w`` each input's. Boot-Systems keeps ``w`` at one and
Boot-Inputs ``v``, so the three designs share their draws for the same seed.

* **system level**: each system's mean over the drawn inputs, then the correlation across
  systems, system ``i`` counted ``v_i`` times, means closer than the level's tolerance tied
  (``O(N M + N^2)`` per replicate);
* **summary level**: for each input, the correlation across the systems judged on it with
  weights ``v`` (the layouts of :mod:`booteval.core.rank_kernels`, one segment per input;
  undefined with fewer than ``min_rows`` drawn systems), then the mean over the inputs
  where it is defined, input ``j`` counted ``w_j`` times. Kendall's tau visits every pair
  of systems instead (when the pairs of all inputs fit in a few megabytes): a replicate
  forms the pairs' weights ``v_i v_k`` once, and each input takes three dot products of
  them with its pairs' sign codes (``C - D`` and the pairs untied in each variable), in
  exact integers as the Fenwick pass;
* **global level**: one correlation over all judged cells, cell ``(i, j)`` weighing
  ``v_i w_j``.

Pearson sums values centred by a fixed mean (the input's, or all cells'); Spearman and
Kendall follow the rank kernels (exact in integers and halves).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from .kernels import _CACHE, Runner, _draw_units, chunk_runner, stream_key
from .rank_kernels import RANK_STATISTICS, _kendall, _rank_arrays, _scratch, _spearman

__all__ = ["crossed_counts", "crossed_runner"]

_PEARSON = 3  # the kind code of Pearson's r; the rank coefficients keep the rank kernels'
_KINDS = {name: RANK_STATISTICS.index(name) for name in ("spearman", "kendall")}
_KINDS["pearson"] = _PEARSON
_PEARSON_RTOL = 1e-12  # as the NumPy evaluators: variance below this relative size is zero


@njit(cache=_CACHE, inline="always")
def _pearson(w, x, z, lo, hi):  # pragma: no cover - compiled
    """Pearson's r of positions ``lo .. hi - 1`` weighing ``w`` with values ``x``, ``z``
    (centred by a fixed mean); NaN where a variable is constant on the positive weights."""
    n = 0.0
    sx = 0.0
    sz = 0.0
    sxx = 0.0
    szz = 0.0
    sxz = 0.0
    for p in range(lo, hi):
        wp = float(w[p])
        if wp != 0.0:
            n += wp
            sx += wp * x[p]
            sz += wp * z[p]
            sxx += wp * x[p] * x[p]
            szz += wp * z[p] * z[p]
            sxz += wp * x[p] * z[p]
    if n <= 0.0:
        return np.nan
    mx = sx / n
    mz = sz / n
    qx = sxx / n
    qz = szz / n
    vx = qx - mx * mx
    vz = qz - mz * mz
    if not (vx > _PEARSON_RTOL * qx and vz > _PEARSON_RTOL * qz):
        return np.nan
    return min(1.0, max(-1.0, (sxz / n - mx * mz) / np.sqrt(vx * vz)))


@njit(cache=_CACHE)
def _segment(kind, w, a, b, c, x, z, lo, hi, gx, gy, fx, fy, tree, wy):  # pragma: no cover
    if kind == 0:
        return _spearman(w, a, b, fx, fy, lo, hi, gx, gy)
    if kind == 1:
        return _kendall(w, a, b, c, tree, wy, lo, hi, gy)
    return _pearson(w, x, z, lo, hi)


@njit(parallel=True, cache=_CACHE)
def _segments_kernel(
    kind,
    summary,
    min_rows,
    use_v,
    use_w,
    sysp,
    inpp,
    seg,
    a,
    b,
    c,
    x,
    z,
    sizes,
    n_sys,
    n_inp,
    k0,
    k1,
    start,
    chunks,
    out,
):  # pragma: no cover - compiled
    """Summary level (``summary``: segment ``j`` is input ``j``'s judged systems, weights
    ``v``) or global level (one segment of all cells, weights ``v_i w_j``): position ``p``
    holds the cell of system ``sysp[p]`` and input ``inpp[p]``; ``a``, ``b``, ``c`` are the
    rank layouts and ``x``, ``z`` the centred values, ``sizes`` each segment's tie groups."""
    nb = out.shape[0]
    perm = np.arange(n_sys + n_inp)
    offsets = np.array([0, n_sys, n_sys + n_inp])
    gmax = 1
    for s in range(sizes.shape[0]):
        gmax = max(gmax, sizes[s, 0] + 1, sizes[s, 1] + 1)
    # Boot-Inputs at the summary level: the per-input values do not change, so they are
    # computed once per call
    fixed = np.empty(seg.shape[0] - 1)
    if summary and not use_v:
        ones = np.ones(sysp.shape[0], dtype=np.int64)
        fx, fy, tree, wy = _scratch(gmax)
        for s in range(seg.shape[0] - 1):
            fixed[s] = _summary_input(kind, ones, a, b, c, x, z, seg[s], seg[s + 1], min_rows,
                                      sizes[s, 0], sizes[s, 1], fx, fy, tree, wy)  # fmt: skip
    for ch in prange(chunks):
        counts = np.zeros(n_sys + n_inp, dtype=np.int32)
        wt = np.zeros(sysp.shape[0], dtype=np.int64)
        fx, fy, tree, wy = _scratch(gmax)
        for r in range(ch * nb // chunks, (ch + 1) * nb // chunks):
            _draw_units(counts, perm, offsets, k0, k1, start + r)
            if use_v:
                for p in range(sysp.shape[0]):
                    vp = np.int64(counts[sysp[p]])
                    wt[p] = vp if summary or not use_w else vp * counts[n_sys + inpp[p]]
            elif not summary:
                for p in range(sysp.shape[0]):
                    wt[p] = counts[n_sys + inpp[p]]
            num = 0.0
            den = 0.0
            for s in range(seg.shape[0] - 1):
                lo, hi = seg[s], seg[s + 1]
                if not summary:
                    r_s = _segment(
                        kind, wt, a, b, c, x, z, lo, hi, sizes[s, 0], sizes[s, 1], fx, fy, tree, wy
                    )
                    wj = 1.0
                else:
                    wj = float(counts[n_sys + inpp[lo]]) if use_w else 1.0
                    if wj == 0.0:
                        continue
                    if use_v:
                        gx, gy = sizes[s, 0], sizes[s, 1]
                        r_s = _summary_input(kind, wt, a, b, c, x, z, lo, hi, min_rows,
                                             gx, gy, fx, fy, tree, wy)  # fmt: skip
                    else:
                        r_s = fixed[s]
                num, den = _add_defined(num, den, wj, r_s)
            out[r] = num / den if den > 0.0 else np.nan
            counts[:] = 0


@njit(cache=_CACHE, inline="always")
def _add_defined(num, den, w, r):  # pragma: no cover - compiled
    """A weighted mean's running sums with value ``r`` of weight ``w`` added where defined."""
    if np.isfinite(r):
        return num + w * r, den + w
    return num, den


@njit(cache=_CACHE)
def _summary_input(
    kind, wt, a, b, c, x, z, lo, hi, min_rows, gx, gy, fx, fy, tree, wy
):  # pragma: no cover - compiled
    """One input's correlation across its judged systems; NaN with fewer than
    ``min_rows`` drawn (with repeats)."""
    drawn = np.int64(0)
    for p in range(lo, hi):
        drawn += wt[p]
    if drawn < min_rows:
        return np.nan
    return _segment(kind, wt, a, b, c, x, z, lo, hi, gx, gy, fx, fy, tree, wy)


#: Kendall's tau at the summary level visits the pairs of systems when the pairs' codes of
#: all inputs (3 bytes each) take at most this many
_PAIR_CODES_MAX = 1 << 24


def pair_codes(x: np.ndarray, z: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """The pairs of systems ``(i, k)``, ``i < k``, and per input (rows) their codes: the sign
    of ``(x_i - x_k)(z_i - z_k)``, and 1 where ``x`` (``z``) is untied, 0 where either cell is
    unjudged; and the mask as ``int8`` (inputs x systems). ``None`` when too many.

    Examples
    --------
    >>> x = np.array([[1.0], [2.0], [2.0]])  # 3 systems, 1 input
    >>> z = np.array([[1.0], [3.0], [2.0]])
    >>> iu, ku, cd, ux, uz, mk = pair_codes(x, z, np.ones((3, 1), dtype=bool))
    >>> iu.tolist(), ku.tolist(), cd.tolist(), ux.tolist(), uz.tolist()
    ([0, 0, 1], [1, 2, 2], [[1, 1, 0]], [[1, 1, 0]], [[1, 1, 1]])
    """
    n_sys, n_inp = x.shape
    iu, ku = np.triu_indices(n_sys, 1)
    if 3 * iu.size * n_inp > _PAIR_CODES_MAX:
        return None
    both = mask[iu] & mask[ku]
    sx = np.where(both, np.sign(np.where(mask, x, 0.0)[iu] - np.where(mask, x, 0.0)[ku]), 0.0)
    sz = np.where(both, np.sign(np.where(mask, z, 0.0)[iu] - np.where(mask, z, 0.0)[ku]), 0.0)
    codes = [np.ascontiguousarray(c.T, dtype=np.int8) for c in (sx * sz, abs(sx), abs(sz))]
    ints = (np.ascontiguousarray(v, dtype=np.int64) for v in (iu, ku))
    return (*ints, *codes, np.ascontiguousarray(mask.T, dtype=np.int8))


@njit(cache=_CACHE, inline="always")
def _pair_weights(pw, v, iu, ku):  # pragma: no cover - compiled
    for p in range(pw.shape[0]):
        pw[p] = v[iu[p]] * v[ku[p]]


@njit(cache=_CACHE, inline="always")
def _kendall_of_pairs(pw, ccd, cx, cz, j):  # pragma: no cover - compiled
    """Kendall's tau-b of input ``j`` with pair weights ``pw`` (as :func:`_kendall`)."""
    cd = np.int64(0)
    dx = np.int64(0)
    dz = np.int64(0)
    for p in range(pw.shape[0]):
        w = pw[p]
        cd += w * ccd[j, p]
        dx += w * cx[j, p]
        dz += w * cz[j, p]
    ux = 2.0 * float(dx)
    uz = 2.0 * float(dz)
    if not (ux > 0.0 and uz > 0.0):
        return np.nan
    return min(1.0, max(-1.0, float(cd) / np.sqrt(ux * uz * 0.25)))


@njit(parallel=True, cache=_CACHE)
def _summary_pairs_kernel(
    use_v, use_w, min_rows, iu, ku, ccd, cx, cz, mk, n_sys, k0, k1, start, chunks, out
):  # pragma: no cover - compiled
    """Summary-level Kendall over the pairs of systems (see :func:`pair_codes`)."""
    nb = out.shape[0]
    n_inp = ccd.shape[0]
    perm = np.arange(n_sys + n_inp)
    offsets = np.array([0, n_sys, n_sys + n_inp])
    fixed = np.empty(n_inp)  # Boot-Inputs: every system once
    if not use_v:
        pw = np.ones(iu.shape[0], dtype=np.int32)
        for j in range(n_inp):
            fixed[j] = _kendall_of_pairs(pw, ccd, cx, cz, j)
            drawn = np.int64(0)
            for i in range(n_sys):
                drawn += mk[j, i]
            if drawn < min_rows:
                fixed[j] = np.nan
    for ch in prange(chunks):
        counts = np.zeros(n_sys + n_inp, dtype=np.int32)
        pw = np.zeros(iu.shape[0], dtype=np.int32)
        for r in range(ch * nb // chunks, (ch + 1) * nb // chunks):
            _draw_units(counts, perm, offsets, k0, k1, start + r)
            if use_v:
                _pair_weights(pw, counts, iu, ku)
            num = 0.0
            den = 0.0
            for j in range(n_inp):
                wj = float(counts[n_sys + j]) if use_w else 1.0
                if wj == 0.0:
                    continue
                if use_v:
                    drawn = np.int64(0)
                    for i in range(n_sys):
                        drawn += counts[i] * mk[j, i]
                    r_j = np.nan if drawn < min_rows else _kendall_of_pairs(pw, ccd, cx, cz, j)
                else:
                    r_j = fixed[j]
                num, den = _add_defined(num, den, wj, r_j)
            out[r] = num / den if den > 0.0 else np.nan
            counts[:] = 0


@njit(cache=_CACHE, inline="always")
def _sign(d, tol):  # pragma: no cover - compiled
    if d > tol:
        return 1.0
    if d < -tol:
        return -1.0
    return 0.0


@njit(parallel=True, cache=_CACHE)
def _system_kernel(
    kind, use_v, use_w, xm, zm, mk, tol_x, tol_z, k0, k1, start, chunks, out
):  # pragma: no cover - compiled
    """System level: ``xm``/``zm`` the scores with unjudged cells 0, ``mk`` 1 where judged
    (``N x M``); each system's mean over the drawn inputs, then the correlation across the
    systems with a mean, system ``i`` counted ``v_i`` times (ties within ``tol``)."""
    n_sys, n_inp = xm.shape
    nb = out.shape[0]
    perm = np.arange(n_sys + n_inp)
    offsets = np.array([0, n_sys, n_sys + n_inp])
    for ch in prange(chunks):
        counts = np.zeros(n_sys + n_inp, dtype=np.int32)
        xs = np.zeros(n_sys)
        zs = np.zeros(n_sys)
        vv = np.zeros(n_sys)
        rx = np.zeros(n_sys)
        rz = np.zeros(n_sys)
        for r in range(ch * nb // chunks, (ch + 1) * nb // chunks):
            _draw_units(counts, perm, offsets, k0, k1, start + r)
            for i in range(n_sys):
                sx = 0.0
                sz = 0.0
                sd = 0.0
                for j in range(n_inp):
                    wj = float(counts[n_sys + j]) if use_w else 1.0
                    sx += wj * xm[i, j]
                    sz += wj * zm[i, j]
                    sd += wj * mk[i, j]
                vi = float(counts[i]) if use_v else 1.0
                if sd > 0.0:
                    xs[i] = sx / sd
                    zs[i] = sz / sd
                    vv[i] = vi
                else:
                    xs[i] = 0.0
                    zs[i] = 0.0
                    vv[i] = 0.0
            out[r] = _across_systems(kind, xs, zs, vv, tol_x, tol_z, rx, rz)
            counts[:] = 0


@njit(cache=_CACHE, inline="always")
def _across_systems(kind, x, z, v, tol_x, tol_z, rx, rz):  # pragma: no cover - compiled
    """The correlation of ``x`` and ``z`` across systems weighing ``v``."""
    n = x.shape[0]
    if kind == _PEARSON:  # centred by the weighted means first
        sv = 0.0
        mx = 0.0
        mz = 0.0
        for i in range(n):
            sv += v[i]
            mx += v[i] * x[i]
            mz += v[i] * z[i]
        if sv <= 0.0:
            return np.nan
        for i in range(n):
            rx[i] = x[i] - mx / sv
            rz[i] = z[i] - mz / sv
        return _pearson(v, rx, rz, 0, n)
    if kind == 0:  # centred average ranks: sum_k v_k sign(x_i - x_k) / 2, then Pearson
        for i in range(n):
            a = 0.0
            b = 0.0
            for k in range(n):
                a += v[k] * _sign(x[i] - x[k], tol_x)
                b += v[k] * _sign(z[i] - z[k], tol_z)
            rx[i] = 0.5 * a
            rz[i] = 0.5 * b
        return _pearson(v, rx, rz, 0, n)
    num = 0.0
    dx = 0.0
    dz = 0.0
    for i in range(n):
        if v[i] == 0.0:
            continue
        for k in range(n):
            sx = _sign(x[i] - x[k], tol_x)
            sz = _sign(z[i] - z[k], tol_z)
            vik = v[i] * v[k]
            num += vik * sx * sz
            dx += vik * abs(sx)
            dz += vik * abs(sz)
    if not (dx > 0.0 and dz > 0.0):
        return np.nan
    return min(1.0, max(-1.0, num / np.sqrt(dx * dz)))


@njit(cache=_CACHE)
def _counts_kernel(k0, k1, b, n_sys, n_inp):  # pragma: no cover - compiled
    counts = np.zeros(n_sys + n_inp, dtype=np.int32)
    _draw_units(counts, np.arange(n_sys + n_inp), np.array([0, n_sys, n_sys + n_inp]), k0, k1, b)
    return counts


def crossed_counts(seed: int, b: int, n_systems: int, n_inputs: int) -> tuple[np.ndarray, ...]:
    """Replicate ``b``'s system counts ``v`` and input counts ``w`` (for tests).

    Examples
    --------
    >>> v, w = crossed_counts(0, 3, 5, 7)
    >>> int(v.sum()), int(w.sum())
    (5, 7)
    """
    k0, k1 = stream_key(seed, "kernels.meta")
    c = _counts_kernel(k0, k1, np.int64(b), np.int64(n_systems), np.int64(n_inputs))
    return c[:n_systems].astype(np.int64), c[n_systems:].astype(np.int64)


def _segments(level: str, kind: int, x: np.ndarray, z: np.ndarray, mask: np.ndarray):
    """Positions, segment bounds and layouts of the summary or global level."""
    cells = []
    if level == "global":
        rows, cols = np.nonzero(mask)
        cells.append((rows, cols))
    else:
        for j in range(mask.shape[1]):
            rows = np.flatnonzero(mask[:, j])
            cells.append((rows, np.full(rows.size, j)))
    parts: list[list[np.ndarray]] = [[] for _ in range(7)]
    sizes = []
    for rows, cols in cells:
        xv, zv = x[rows, cols], z[rows, cols]
        if kind == _PEARSON:
            order = np.arange(rows.size)
            a = b = c = np.zeros(rows.size, dtype=np.int64)
            gsz = (0, 0)
            xv, zv = xv - xv.mean(), zv - zv.mean()
        else:
            rx = np.unique(xv, return_inverse=True)[1].reshape(-1)
            ry = np.unique(zv, return_inverse=True)[1].reshape(-1)
            order, a, b, c, size = _rank_arrays(kind, rx, ry)
            if c.size == 0:
                c = np.zeros(rows.size, dtype=np.int64)
            gsz = tuple(size)
        for k, arr in enumerate((rows[order], cols[order], a, b, c, xv[order], zv[order])):
            parts[k].append(arr)
        sizes.append(gsz)
    seg = np.r_[0, np.cumsum([r.size for r, _ in cells])].astype(np.int64)
    out = [np.ascontiguousarray(np.concatenate(p)) for p in parts]
    ints = [o.astype(np.int64) for o in out[:5]]
    return (*ints, out[5].astype(np.float64), out[6].astype(np.float64), seg,
            np.array(sizes, dtype=np.int64).reshape(-1, 2))  # fmt: skip


def crossed_runner(stat: Any, resample: str) -> Runner:
    """The compiled runner of one correlation level ``stat`` (a
    :mod:`booteval.meta.kernels` level, whose ``spec()`` gives its data) under
    ``resample`` (``"systems"``, ``"inputs"`` or ``"both"``): values of shape ``(batch,)``."""
    spec = stat.spec()
    level, kind = spec["level"], _KINDS[spec["coefficient"]]
    use_v, use_w = resample != "inputs", resample != "systems"
    x, z, mask = spec["x"], spec["z"], spec["mask"]
    n_sys, n_inp = x.shape
    if level == "system":
        xm = np.ascontiguousarray(np.where(mask, x, 0.0))
        zm = np.ascontiguousarray(np.where(mask, z, 0.0))
        mk = np.ascontiguousarray(mask, dtype=np.float64)
        tols = (float(spec["tol_x"]), float(spec["tol_z"]))
        kernel_fn = _system_kernel
    else:
        min_rows = np.int64(spec.get("min_rows", 0))
        pairs = pair_codes(x, z, mask) if level == "summary" and kind == 1 else None
        if pairs is not None:
            kernel_fn = _summary_pairs_kernel
        else:
            sysp, inpp, a, b, c, xv, zv, seg, sizes = _segments(level, kind, x, z, mask)
            kernel_fn = _segments_kernel

    def call(lo: Any, chunks: Any, k0: Any, k1: Any, out: np.ndarray) -> None:
        if level == "system":
            _system_kernel(np.int64(kind), use_v, use_w, xm, zm, mk, *tols, k0, k1, lo, chunks,
                           out)  # fmt: skip
        elif pairs is not None:
            _summary_pairs_kernel(use_v, use_w, min_rows, *pairs, np.int64(n_sys), k0, k1, lo,
                                  chunks, out)  # fmt: skip
        else:
            _segments_kernel(
                np.int64(kind), level == "summary", min_rows, use_v, use_w, sysp, inpp, seg,
                a, b, c, xv, zv, sizes, np.int64(n_sys), np.int64(n_inp), k0, k1, lo, chunks, out,
            )  # fmt: skip

    return chunk_runner(kernel_fn, call, stream="kernels.meta")
