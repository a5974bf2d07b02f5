"""The compiled engine's permutation kernels: random swaps of paired outputs.

A permutation swaps the two systems' outputs on each swappable unit with probability
1/2. Permutation ``r`` takes its swap bits from its own xoshiro256++ generator
(:mod:`booteval.core.kernels`), keyed on the ``kernels.swaps`` stream: 64 units per
output, low bit first (:func:`swap_bits`). The bits are not the NumPy engine's, so the
two engines give different (equally valid) null distributions for the same seed.

* **sum metrics**: swapping units moves their summed differences ``B - A`` from one
  system's sums to the other's, so a permutation is a sum of the differences of the
  swapped units;
* **ROC-AUC, average precision, Spearman and Kendall**: the metric is bound once to the
  pooled rows (A's, then B's), and a swapped system weighs each pooled row 0 or 1 (A'
  keeps A's unswapped rows and takes B's swapped ones); each permutation takes the
  statistic's one pass (:mod:`booteval.core.auc_kernels`, :mod:`booteval.core.rank_kernels`)
  over the pooled layout for A' and for B'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit, prange

from .auc_kernels import _auc_layout, _mann_whitney
from .kernels import (
    _CACHE,
    Runner,
    _compile_notice,
    _next,
    _run_chunks,
    _seed_state,
    chunk_runner,
    stream_key,
)
from .rank_kernels import RANK_STATISTICS, _kind, _layout_statistic, _scratch, rank_layout

__all__ = ["swap_bits", "swap_layout_runner", "swap_sums_runner"]


@njit(parallel=True, cache=_CACHE)
def _swap_sum_kernel(diff, k0, k1, start, out):  # pragma: no cover - compiled
    """``out[r] = sum over units j swapped in permutation start + r of diff[j]``.

    Each unit is swapped with probability 1/2: permutation ``r`` takes the bits of its
    own xoshiro256++ outputs (seeded as the draws are), 64 units per output, low bit first.
    """
    k, c = diff.shape
    for r in prange(out.shape[0]):
        s0, s1, s2, s3 = _seed_state(k0, k1, start + r)
        if c == 1:  # one column in a register
            a0 = 0.0
            for lo in range(0, k, 64):
                word, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
                for j in range(lo, min(lo + 64, k)):  # branch-free: the bits are random
                    a0 += diff[j, 0] * float((word >> np.uint64(j - lo)) & np.uint64(1))
            out[r, 0] = a0
            continue
        acc = np.zeros(c)
        for lo in range(0, k, 64):
            word, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
            for j in range(lo, min(lo + 64, k)):
                bit = float((word >> np.uint64(j - lo)) & np.uint64(1))
                for t in range(c):
                    acc[t] += bit * diff[j, t]
        for t in range(c):
            out[r, t] = acc[t]


def swap_bits(seed: int, r: int, k: int) -> np.ndarray:
    """The swap indicators (0/1, one per swappable unit) of compiled permutation ``r``.

    For tests and debugging: the bits :func:`swap_sums_runner` draws.

    Examples
    --------
    >>> bits = swap_bits(0, 0, 8)
    >>> bits.tolist(), bool((swap_bits(0, 0, 8) == bits).all())  # a pure function
    ([0, 1, 0, 1, 0, 1, 0, 1], True)
    """
    k0, k1 = stream_key(seed, "kernels.swaps")
    eye = np.ascontiguousarray(np.eye(k))
    out = np.empty((1, k))
    _swap_sum_kernel(eye, k0, k1, np.int64(r), out)
    return out[0].astype(np.int8)


def swap_sums_runner(
    diff: np.ndarray, statistic_of_sums: Callable[[np.ndarray], np.ndarray]
) -> Runner:
    """A runner of random swaps for a statistic of ``sum over swapped units of diff``:
    ``statistic_of_sums`` maps the ``(batch, c)`` sums to the permutation statistics.

    Examples
    --------
    >>> run = swap_sums_runner(np.array([[1.0], [2.0], [4.0]]), lambda s: s[:, 0])
    >>> values, _ = run(0, 0, 3, False)  # seed 0, permutations 0 to 2
    >>> bool(values[0] == swap_bits(0, 0, 3) @ [1.0, 2.0, 4.0])
    True
    """
    diff = np.asarray(diff, dtype=np.float64)
    moves = np.any(diff != 0.0, axis=0)  # a column that swaps leave unchanged sums to 0
    moved = np.ascontiguousarray(diff[:, moves])

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        k0, k1 = stream_key(seed, "kernels.swaps")
        _compile_notice(_swap_sum_kernel)

        def kernel(lo: int, hi: int) -> np.ndarray:
            out = np.empty((hi - lo, moved.shape[1]))
            _swap_sum_kernel(moved, k0, k1, np.int64(lo), out)
            return out

        sums = np.zeros((stop - start, diff.shape[1]))
        if moved.shape[1]:
            part = _run_chunks(kernel, start, stop).reshape(stop - start, moved.shape[1])
            sums[:, moves] = part
        return np.asarray(statistic_of_sums(sums), dtype=float), None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run


@njit(cache=_CACHE, inline="always")
def _unit_bits(swapped, k0, k1, code):  # pragma: no cover - compiled
    """The swap bits of permutation ``code`` (as :func:`_swap_sum_kernel` draws them)."""
    s0, s1, s2, s3 = _seed_state(k0, k1, code)
    k = swapped.shape[0]
    for lo in range(0, k, 64):
        word, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
        for j in range(lo, min(lo + 64, k)):
            swapped[j] = np.int64((word >> np.uint64(j - lo)) & np.uint64(1))


@njit(parallel=True, cache=_CACHE)
def _swap_layout_kernel(
    kind, units, a, b, c, sizes, ties, swappable, n_units, k0, k1, start, chunks, out
):  # pragma: no cover - compiled
    """``out[r] = stat(B') - stat(A')`` for permutations ``start ..``: position ``i`` of the
    pooled layout (rows of A's units ``0 .. n_units - 1``, then B's) holds a row of unit
    ``units[i]``; A' weighs A's rows 1 and B's 0 except on the swapped units
    (``swappable[j]`` where bit ``j`` is set). ``kind`` 0-2 as in
    :func:`booteval.core.rank_kernels._layout_statistic`; 3 is ROC-AUC (``a``: 1 at
    positives, ``ties`` its tie groups)."""
    n = units.shape[0]
    nb = out.shape[0]
    gmax = max(sizes[0], sizes[1]) + 1
    for ch in prange(chunks):
        bits = np.zeros(swappable.shape[0], dtype=np.int64)
        cnt = np.zeros(2 * n_units, dtype=np.int64)
        w = np.zeros(n, dtype=np.int64)
        fx, fy, tree, wy = _scratch(gmax)
        for r in range(ch * nb // chunks, (ch + 1) * nb // chunks):
            _unit_bits(bits, k0, k1, start + r)
            cnt[:n_units] = 1
            cnt[n_units:] = 0
            for j in range(bits.shape[0]):
                u = swappable[j]
                cnt[u] = 1 - bits[j]
                cnt[n_units + u] = bits[j]
            value = 0.0
            for side in range(2):  # A' (subtracted), then B' (the complement)
                total = np.int64(0)
                for i in range(n):
                    w[i] = cnt[units[i]] if side == 0 else 1 - cnt[units[i]]
                    total += w[i]
                if kind == 3:
                    v = _mann_whitney(w, total, a, ties, 0, ties.shape[0])
                else:
                    v = _layout_statistic(kind, w, a, b, c, sizes, fx, fy, tree, wy)
                value = v - value
            out[r] = value


def swap_layout_runner(ev: object, swappable: np.ndarray, n_units: int) -> Runner | str:
    """A runner of random swaps for ``ev``, a ROC-AUC, average precision, Spearman or
    Kendall evaluator bound to the pooled rows (A's units ``0 .. n_units - 1``, then B's):
    ``stat(B') - stat(A')`` per permutation, swapping the units ``swappable`` of A; or why
    there is no kernel."""
    empty = np.zeros(0, dtype=np.int64)
    if getattr(ev, "kernel", None) == "auc":
        rows, a, ties = _auc_layout(ev)
        kind, b, c, sizes = 3, empty, empty, np.zeros(2, dtype=np.int64)
    elif getattr(ev, "compiled_statistic", None) in RANK_STATISTICS:
        rows, a, b, c, sizes = rank_layout(ev)
        kind, ties = _kind(ev), np.zeros((0, 3), dtype=np.int64)
    else:
        return "the compiled engine has no permutation kernel for this statistic yet"
    units = np.ascontiguousarray(np.asarray(ev.design.unit_of_row, dtype=np.int64)[rows])
    swappable = np.ascontiguousarray(swappable, dtype=np.int64)
    args = (units, a, b, c, sizes, ties, swappable, np.int64(n_units))

    def call(lo: Any, chunks: Any, k0: Any, k1: Any, out: np.ndarray) -> None:
        _swap_layout_kernel(np.int64(kind), *args, k0, k1, lo, chunks, out)

    return chunk_runner(_swap_layout_kernel, call, stream="kernels.swaps")
