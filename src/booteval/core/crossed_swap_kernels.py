"""The compiled engine's kernels for the meta-evaluation's paired permutation test (two
metrics' correlations with the same human scores; see :mod:`booteval.meta.compare`).

A swap pattern holds one bit per system (Perm-Systems), per input (Perm-Inputs) or both
(Perm-Both, where a cell is swapped when exactly one of its system and its input is),
systems first. Pattern ``r`` is the binary digits of ``r`` when every pattern is
enumerated (the NumPy engine's order, so an exact test gives the same p-value on both
engines), and otherwise the bits of its own xoshiro256++ generator on the
``kernels.meta.swaps`` stream, 64 per output, low bit first.

Under a pattern, metric A' takes B's score where a cell (or a system's mean) is swapped
and B' takes A's; a permutation's value is ``r(A') - r(B')``:

* **system level**: the systems' means over their inputs, shifted by the swapped cells'
  differences, then the correlation across systems (:func:`~booteval.core.crossed_kernels`'
  system statistic with every system counted once);
* **summary and global levels**: the *virtual cells* of both metrics (A's and B's scores
  side by side in one rank layout) weighted 0 or 1, so that A' weighs the cells it takes:
  per input across the virtual systems, or once over all virtual cells. Swapping whole
  inputs (Perm-Inputs at the summary level) exchanges the two metrics' per-input values.
  Kendall's tau at the summary level visits the pairs of virtual systems, as the crossed
  bootstrap does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from .crossed_kernels import (
    _KINDS,
    _across_systems,
    _kendall_of_pairs,
    _pair_weights,
    _segment,
    _segments,
    pair_codes,
)
from .kernels import _CACHE, Runner, _next, _seed_state, chunk_runner, stream_key
from .rank_kernels import _scratch

__all__ = ["crossed_swaps_runner", "swap_pattern"]


@njit(cache=_CACHE, inline="always")
def _pattern(bits, exact, k0, k1, code):  # pragma: no cover - compiled
    """Fill ``bits`` with the swap bits of pattern ``code``."""
    n = bits.shape[0]
    if exact:
        for j in range(n):
            bits[j] = (code >> j) & 1
        return
    s0, s1, s2, s3 = _seed_state(k0, k1, code)
    for lo in range(0, n, 64):
        word, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
        for j in range(lo, min(lo + 64, n)):
            bits[j] = np.int64((word >> np.uint64(j - lo)) & np.uint64(1))


@njit(cache=_CACHE, inline="always")
def _split(bits, use_s, use_t, s, t):  # pragma: no cover - compiled
    """The system bits ``s`` and input bits ``t`` of a pattern (0 where not permuted)."""
    off = 0
    for i in range(s.shape[0]):
        s[i] = bits[i] if use_s else 0
    if use_s:
        off = s.shape[0]
    for j in range(t.shape[0]):
        t[j] = bits[off + j] if use_t else 0


@njit(cache=_CACHE, inline="always")
def _mean_difference(per, t):  # pragma: no cover - compiled
    """Summary level: the mean of the swapped metric A's per-input values (over the inputs
    where they are defined) minus that of B's; ``per[j]`` holds input ``j``'s two values,
    exchanged where ``t[j]``."""
    num_a = 0.0
    den_a = 0.0
    num_b = 0.0
    den_b = 0.0
    for j in range(per.shape[0]):
        ra, rb = per[j, 0], per[j, 1]
        if t[j]:
            ra, rb = rb, ra
        if np.isfinite(ra):
            num_a += ra
            den_a += 1.0
        if np.isfinite(rb):
            num_b += rb
            den_b += 1.0
    if den_a > 0.0 and den_b > 0.0:
        return num_a / den_a - num_b / den_b
    return np.nan


@njit(cache=_CACHE)
def _pattern_kernel(exact, k0, k1, code, n_bits):  # pragma: no cover - compiled
    bits = np.zeros(n_bits, dtype=np.int64)
    _pattern(bits, exact, k0, k1, code)
    return bits


@njit(parallel=True, cache=_CACHE)
def _system_swap_kernel(
    kind, exact, use_s, use_t, xa, xb, z, d, dsum, cnt, tol_x, tol_z, k0, k1, start, chunks, out
):  # pragma: no cover - compiled
    """System level: ``xa``/``xb`` the systems' means, ``d`` the cells' ``B - A`` (0 where
    unjudged), ``dsum`` its row sums and ``cnt`` each system's judged inputs."""
    n_sys, n_inp = d.shape
    nb = out.shape[0]
    n_bits = (n_sys if use_s else 0) + (n_inp if use_t else 0)
    for ch in prange(chunks):
        bits = np.zeros(n_bits, dtype=np.int64)
        s = np.zeros(n_sys, dtype=np.int64)
        t = np.zeros(n_inp, dtype=np.int64)
        x_a = np.zeros(n_sys)
        x_b = np.zeros(n_sys)
        ones = np.ones(n_sys)
        rx = np.zeros(n_sys)
        rz = np.zeros(n_sys)
        for r in range(ch * nb // chunks, (ch + 1) * nb // chunks):
            _pattern(bits, exact, k0, k1, start + r)
            _split(bits, use_s, use_t, s, t)
            for i in range(n_sys):
                if use_t:  # the means move by the swapped cells' differences
                    dt = 0.0
                    for j in range(n_inp):
                        dt += t[j] * d[i, j]
                    inc = (1.0 - 2.0 * s[i]) * dt + s[i] * dsum[i]
                    inc = inc / cnt[i] if cnt[i] > 0.0 else np.nan
                    x_a[i] = xa[i] + inc
                    x_b[i] = xb[i] - inc
                elif s[i]:
                    x_a[i] = xb[i]
                    x_b[i] = xa[i]
                else:
                    x_a[i] = xa[i]
                    x_b[i] = xb[i]
            ra = _across_systems(kind, x_a, z, ones, tol_x, tol_z, rx, rz)
            rb = _across_systems(kind, x_b, z, ones, tol_x, tol_z, rx, rz)
            out[r] = ra - rb


@njit(parallel=True, cache=_CACHE)
def _cells_swap_kernel(
    kind, summary, exact, use_s, use_t, n_sys, n_inp, ps, pt, side, seg, a, b, c, x, z, sizes,
    k0, k1, start, chunks, out,
):  # pragma: no cover - compiled  # fmt: skip
    """Summary level (segment ``j``: input ``j``'s virtual systems) or global level (one
    segment of all virtual cells): position ``p`` holds a cell of system ``ps[p]`` and
    input ``pt[p]``, B's when ``side[p]``; ``a``, ``b``, ``c``, ``x``, ``z`` and ``sizes``
    as in :func:`booteval.core.crossed_kernels._segments_kernel`."""
    nb = out.shape[0]
    n_pos = ps.shape[0]
    n_seg = seg.shape[0] - 1
    n_bits = (n_sys if use_s else 0) + (n_inp if use_t else 0)
    gmax = 1
    for g in range(sizes.shape[0]):
        gmax = max(gmax, sizes[g, 0] + 1, sizes[g, 1] + 1)
    # Perm-Inputs at the summary level: each input's two values are fixed, only exchanged
    fixed = np.empty((n_seg, 2))
    if summary and not use_s:
        wa = np.empty(n_pos, dtype=np.int64)
        for p in range(n_pos):
            wa[p] = 1 - side[p]
        fx, fy, tree, wy = _scratch(gmax)
        for g in range(n_seg):
            lo, hi = seg[g], seg[g + 1]
            gx, gy = sizes[g, 0], sizes[g, 1]
            fixed[g, 0] = _segment(kind, wa, a, b, c, x, z, lo, hi, gx, gy, fx, fy, tree, wy)
            for p in range(lo, hi):
                wa[p] = 1 - wa[p]
            fixed[g, 1] = _segment(kind, wa, a, b, c, x, z, lo, hi, gx, gy, fx, fy, tree, wy)
    for ch in prange(chunks):
        bits = np.zeros(n_bits, dtype=np.int64)
        s = np.zeros(n_sys, dtype=np.int64)
        t = np.zeros(n_inp, dtype=np.int64)
        wa = np.zeros(n_pos, dtype=np.int64)
        wb = np.zeros(n_pos, dtype=np.int64)
        per = np.empty((n_seg, 2))  # each input's values for A' and B'
        fx, fy, tree, wy = _scratch(gmax)
        for r in range(ch * nb // chunks, (ch + 1) * nb // chunks):
            _pattern(bits, exact, k0, k1, start + r)
            _split(bits, use_s, use_t, s, t)
            if use_s or not summary:
                for p in range(n_pos):
                    swapped = s[ps[p]] if summary else s[ps[p]] ^ t[pt[p]]
                    wa[p] = 1 - (swapped ^ side[p])  # A' takes A's unswapped cells, B's swapped
                    wb[p] = 1 - wa[p]
            if not summary:
                lo, hi = seg[0], seg[1]
                gx, gy = sizes[0, 0], sizes[0, 1]
                ra = _segment(kind, wa, a, b, c, x, z, lo, hi, gx, gy, fx, fy, tree, wy)
                rb = _segment(kind, wb, a, b, c, x, z, lo, hi, gx, gy, fx, fy, tree, wy)
                out[r] = ra - rb
                continue
            for g in range(n_seg):
                if use_s:
                    lo, hi = seg[g], seg[g + 1]
                    gx, gy = sizes[g, 0], sizes[g, 1]
                    per[g, 0] = _segment(kind, wa, a, b, c, x, z, lo, hi, gx, gy, fx, fy, tree, wy)
                    per[g, 1] = _segment(kind, wb, a, b, c, x, z, lo, hi, gx, gy, fx, fy, tree, wy)
            out[r] = _mean_difference(per if use_s else fixed, t)


@njit(parallel=True, cache=_CACHE)
def _summary_pairs_swap_kernel(
    exact, use_s, use_t, iu, ku, ccd, cx, cz, mk, n_sys, n_inp, k0, k1, start, chunks, out
):  # pragma: no cover - compiled
    """Summary-level Kendall over the pairs of the ``2 N`` virtual systems (A's, then B's;
    :func:`booteval.core.crossed_kernels.pair_codes`): A' weighs virtual system ``i`` 1
    where it takes that metric's scores, B' the others."""
    nb = out.shape[0]
    n_bits = (n_sys if use_s else 0) + (n_inp if use_t else 0)
    fixed = np.empty((n_inp, 2))  # Perm-Inputs: each input's two values, only exchanged
    if not use_s:
        wv = np.zeros(2 * n_sys, dtype=np.int32)
        wv[:n_sys] = 1
        pw = np.zeros(iu.shape[0], dtype=np.int32)
        for side in range(2):
            _pair_weights(pw, wv, iu, ku)
            for j in range(n_inp):
                fixed[j, side] = _kendall_of_pairs(pw, ccd, cx, cz, j)
            for i in range(2 * n_sys):
                wv[i] = 1 - wv[i]
    for ch in prange(chunks):
        bits = np.zeros(n_bits, dtype=np.int64)
        s = np.zeros(n_sys, dtype=np.int64)
        t = np.zeros(n_inp, dtype=np.int64)
        wa = np.zeros(2 * n_sys, dtype=np.int32)
        wb = np.zeros(2 * n_sys, dtype=np.int32)
        pa = np.zeros(iu.shape[0], dtype=np.int32)
        pb = np.zeros(iu.shape[0], dtype=np.int32)
        per = np.empty((n_inp, 2))
        for r in range(ch * nb // chunks, (ch + 1) * nb // chunks):
            _pattern(bits, exact, k0, k1, start + r)
            _split(bits, use_s, use_t, s, t)
            if use_s:
                for i in range(n_sys):
                    wa[i] = 1 - s[i]
                    wa[n_sys + i] = s[i]
                    wb[i] = s[i]
                    wb[n_sys + i] = 1 - s[i]
                _pair_weights(pa, wa, iu, ku)
                _pair_weights(pb, wb, iu, ku)
            for j in range(n_inp if use_s else 0):
                per[j, 0] = _kendall_of_pairs(pa, ccd, cx, cz, j)
                per[j, 1] = _kendall_of_pairs(pb, ccd, cx, cz, j)
            out[r] = _mean_difference(per if use_s else fixed, t)


def swap_pattern(seed: int, code: int, n_bits: int, exact: bool = False) -> np.ndarray:
    """The swap bits (0/1, systems first) of compiled permutation pattern ``code`` (for
    tests): its binary digits when ``exact``, else the ``kernels.meta.swaps`` stream's.

    Examples
    --------
    >>> swap_pattern(0, 6, 4, exact=True).tolist()
    [0, 1, 1, 0]
    >>> bool((swap_pattern(1, 3, 70) == swap_pattern(1, 3, 70)).all())  # a pure function
    True
    """
    k0, k1 = stream_key(seed, "kernels.meta.swaps")
    return _pattern_kernel(bool(exact), k0, k1, np.int64(code), np.int64(n_bits))


def crossed_swaps_runner(spec: dict[str, Any], permutation: str, exact: bool) -> Runner:
    """The compiled runner of the paired permutation test described by ``spec`` (from
    the meta-evaluation's paired permutation, ``spec()``) under ``permutation``
    (``"systems"``, ``"inputs"`` or ``"both"``): pattern ``r``'s ``r(A') - r(B')``."""
    level, kind = spec["level"], np.int64(_KINDS[spec["coefficient"]])
    use_s, use_t = permutation != "inputs", permutation != "systems"
    n_sys, n_inp = spec["shape"]
    if level == "system":
        args: tuple[Any, ...] = (
            np.ascontiguousarray(spec["xa"], dtype=np.float64),
            np.ascontiguousarray(spec["xb"], dtype=np.float64),
            np.ascontiguousarray(spec["z"], dtype=np.float64),
            np.ascontiguousarray(spec["d"], dtype=np.float64),
            np.ascontiguousarray(spec["dsum"], dtype=np.float64),
            np.ascontiguousarray(spec["cnt"], dtype=np.float64),
            float(spec["tol_x"]),
            float(spec["tol_z"]),
        )
        kernel_fn = _system_swap_kernel
    else:
        xa, xb, z, mask = spec["xa"], spec["xb"], spec["z"], spec["mask"]
        pairs = None
        if level == "summary" and kind == _KINDS["kendall"]:  # the virtual systems' pairs
            pairs = pair_codes(np.vstack([xa, xb]), np.vstack([z, z]), np.vstack([mask, mask]))
        if pairs is not None:
            args, kernel_fn = pairs, _summary_pairs_swap_kernel
        else:
            args, kernel_fn = _virtual_cells(level, int(kind), xa, xb, z, mask), _cells_swap_kernel

    def call(lo: Any, chunks: Any, k0: Any, k1: Any, out: np.ndarray) -> None:
        if level == "system":
            _system_swap_kernel(kind, exact, use_s, use_t, *args, k0, k1, lo, chunks, out)
        elif kernel_fn is _summary_pairs_swap_kernel:
            _summary_pairs_swap_kernel(exact, use_s, use_t, *args, np.int64(n_sys),
                                       np.int64(n_inp), k0, k1, lo, chunks, out)  # fmt: skip
        else:
            _cells_swap_kernel(kind, level == "summary", exact, use_s, use_t, np.int64(n_sys),
                               np.int64(n_inp), *args, k0, k1, lo, chunks, out)  # fmt: skip

    return chunk_runner(kernel_fn, call, stream="kernels.meta.swaps")


def _virtual_cells(
    level: str, kind: int, xa: np.ndarray, xb: np.ndarray, z: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, ...]:
    """The layout of both metrics' cells: for the summary level, B's systems below A's
    (``2 N`` virtual systems per input); for the global level, B's cells after A's."""
    n_sys = xa.shape[0]
    if level == "summary":
        sysp, inpp, a, b, c, xv, zv, seg, sizes = _segments(
            "summary", kind, np.vstack([xa, xb]), np.vstack([z, z]), np.vstack([mask, mask])
        )
        ps, pt, side = sysp % n_sys, inpp, (sysp >= n_sys).astype(np.int64)
    else:
        rows, cols = np.nonzero(mask)
        n_cells = rows.size
        xs = np.concatenate([xa[rows, cols], xb[rows, cols]])[None]
        zs = np.concatenate([z[rows, cols], z[rows, cols]])[None]
        _, q, a, b, c, xv, zv, seg, sizes = _segments(
            "global", kind, xs, zs, np.ones(xs.shape, dtype=bool)
        )
        ps, pt, side = rows[q % n_cells], cols[q % n_cells], (q >= n_cells).astype(np.int64)
    ints = (np.ascontiguousarray(v, dtype=np.int64) for v in (ps, pt, side, seg, a, b, c))
    return (*ints, xv, zv, sizes)
