"""The compiled engine's permutation kernel: random swaps of a paired sum metric.

A permutation swaps the two systems' outputs on each swappable unit with probability
1/2. For a metric that is a function of column sums, swapping units moves their summed
differences ``B - A`` from one system's sums to the other's, so a permutation is a sum
of the differences of the swapped units. Permutation ``r`` takes its swap bits from its
own xoshiro256++ generator (:mod:`booteval.core.kernels`), keyed on the ``kernels.swaps``
stream: 64 units per output, low bit first. The bits are not the NumPy engine's, so the
two engines give different (equally valid) null distributions for the same seed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

from .kernels import _CACHE, Runner, _compile_notice, _next, _run_chunks, _seed_state, stream_key

__all__ = ["swap_bits", "swap_sums_runner"]


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
