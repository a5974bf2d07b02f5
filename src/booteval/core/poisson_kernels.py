"""The compiled kernel of the row tier: exact weighted sums under counter-based Poisson(1)
weights, for every replicate in one pass over the units.

Unit ``u`` of key ``keys[u]`` gets, in replicate ``b``, the Poisson(1) count that
:func:`booteval.core.philox.poisson_weights` gives it (Philox4x32-10 of the counter
``(key low, key high, b // 4, 0)``, word ``b % 4`` through the threshold table), and
adds ``count * values[u, j]`` to ``out[b, j]``. Values and sums are 64-bit integers, so
the sums are exact and do not depend on the order of the units: a partition's sums
added to another's equal the sums over both (the contract of the mergeable states in
:mod:`booteval.distributed`). Callers keep ``13 * n_units * max|values|`` below
``2**63``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import _CACHE
from .poisson_table import POISSON1_THRESHOLDS, philox_key

__all__ = ["philox_blocks", "poisson_int_sums"]

# units per pass: their values stay in cache while every replicate block visits them
_CHUNK = 512


@njit(cache=_CACHE, inline="always")
def _philox10(c0, c1, c2, c3, ka, kb):  # pragma: no cover - compiled
    """The ten rounds of Philox4x32 on one counter ``(c0, c1, c2, c3)`` (``uint64``
    words holding 32 bits) under the round keys ``ka``, ``kb``."""
    low = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for r in range(10):
        p0 = m0 * c0
        p1 = m1 * c2
        c0, c1, c2, c3 = (p1 >> s32) ^ c1 ^ ka[r], p1 & low, (p0 >> s32) ^ c3 ^ kb[r], p0 & low
    return c0, c1, c2, c3


@njit(cache=_CACHE)
def _sums(keys, values, ka, kb, start, stop, t, out):  # pragma: no cover - compiled
    """Philox for a chunk of units at once (a loop without branches, which the compiler
    vectorizes), then each replicate's counts and their dot products with the values."""
    low = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    n, m = values.shape
    first, last = start // 4, (stop - 1) // 4
    words = np.empty((4, _CHUNK), dtype=np.uint64)
    w = np.empty(_CHUNK, dtype=np.int64)
    for lo in range(0, n, _CHUNK):
        hi = min(lo + _CHUNK, n)
        size = hi - lo
        for blk in range(first, last + 1):
            for i in range(size):
                key = keys[lo + i]
                c0, c1, c2, c3 = _philox10(
                    key & low, key >> s32, np.uint64(blk), np.uint64(0), ka, kb
                )
                words[0, i], words[1, i], words[2, i], words[3, i] = c0, c1, c2, c3
            for j in range(4):
                b = 4 * blk + j - start
                if b < 0 or b >= stop - start:
                    continue
                rare = False
                for i in range(size):  # counts up to 7 without branches; above, rarely
                    u = words[j, i]
                    k = 0
                    for q in range(7):
                        k += u >= t[q]
                    rare |= u >= t[6]
                    w[i] = k
                if rare:  # a count of 7 or more: P = 8.3e-5 per weight
                    for i in range(size):
                        while w[i] < t.shape[0] and words[j, i] >= t[w[i]]:
                            w[i] += 1
                for c in range(m):
                    acc = 0
                    for i in range(size):
                        acc += w[i] * values[lo + i, c]
                    out[b, c] += acc


def poisson_int_sums(
    seed: int, keys: np.ndarray, values: np.ndarray, start: int, stop: int
) -> np.ndarray:
    """``out[b, j] = sum_u w[b, u] * values[u, j]`` for replicates ``start .. stop - 1``.

    ``w`` are the Poisson(1) weights of :func:`booteval.core.philox.poisson_weights`
    for the unit ``keys``; ``values`` are ``int64``. Returns ``(stop - start, m)`` ``int64``.

    Examples
    --------
    >>> from booteval.core.philox import poisson_weights
    >>> keys, v = np.arange(6, dtype=np.uint64), np.arange(12, dtype=np.int64).reshape(6, 2)
    >>> s = poisson_int_sums(3, keys, v, 2, 9)
    >>> bool((s == poisson_weights(3, keys, 2, 9) @ v).all())
    True
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    values = np.ascontiguousarray(values, dtype=np.int64).reshape(keys.size, -1)
    out = np.zeros((max(stop - start, 0), values.shape[1]), dtype=np.int64)
    if stop > start and keys.size:
        k0, k1 = philox_key(seed)  # the round keys: the key bumped by the Weyl constants
        steps = np.arange(10, dtype=np.uint64)
        ka = (k0 + steps * np.uint64(0x9E3779B9)) & np.uint64(0xFFFFFFFF)
        kb = (k1 + steps * np.uint64(0xBB67AE85)) & np.uint64(0xFFFFFFFF)
        _sums(keys, values, ka, kb, int(start), int(stop), POISSON1_THRESHOLDS, out)
    return out


@njit(cache=_CACHE)
def _blocks(c0s, c1s, c2s, c3, ka, kb, out):  # pragma: no cover - compiled
    s32 = np.uint64(32)
    for i in range(c0s.size):
        c0, c1, _, _ = _philox10(c0s[i], c1s[i], c2s[i], c3, ka, kb)
        out[i] = c0 | (c1 << s32)


def philox_blocks(counter: np.ndarray, last: int, key: np.ndarray) -> np.ndarray:
    """The first two words of Philox4x32-10 of the counters ``(counter[:, 0],
    counter[:, 1], counter[:, 2], last)`` under ``key``, as ``word0 | word1 << 32``
    (what :func:`booteval.core.philox.philox4x32_10` gives, compiled).

    Examples
    --------
    >>> from booteval.core.philox import philox4x32_10
    >>> c, key = np.array([[1, 2, 3], [7, 0, 9]], dtype=np.uint64), np.array([5, 6])
    >>> w = philox4x32_10(np.c_[c, [11, 11]], key).astype(np.uint64)
    >>> bool((philox_blocks(c, 11, key) == w[:, 0] | w[:, 1] << np.uint64(32)).all())
    True
    """
    c = np.asarray(counter, dtype=np.uint64).reshape(-1, 3)
    k0, k1 = (np.uint64(int(v) & 0xFFFFFFFF) for v in np.asarray(key).ravel()[:2])
    steps = np.arange(10, dtype=np.uint64)
    ka = (k0 + steps * np.uint64(0x9E3779B9)) & np.uint64(0xFFFFFFFF)
    kb = (k1 + steps * np.uint64(0xBB67AE85)) & np.uint64(0xFFFFFFFF)
    out = np.empty(c.shape[0], dtype=np.uint64)
    cols = [np.ascontiguousarray(c[:, j]) for j in range(3)]
    _blocks(*cols, np.uint64(last), ka, kb, out)
    return out
