"""The compiled merge of two sorted histograms of (unit key, combination code) pairs.

The histogram tier's states (:class:`booteval.distributed.states.HistogramState`) hold
their pairs sorted by unit key, then code, each pair once with its row count. Merging two
states is then one linear pass, as in merge sort, adding the counts of a pair that both
hold; the result is sorted and has each pair once, so merges compose in any order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import _CACHE

__all__ = ["merge_sorted_counts"]


@njit(cache=_CACHE)
def _merge(ua, ca, na, ub, cb, nb, u, c, n):  # pragma: no cover - compiled
    i = j = k = 0
    while i < ua.size or j < ub.size:
        if j == ub.size:
            take = -1
        elif i == ua.size:
            take = 1
        elif ua[i] != ub[j]:
            take = -1 if ua[i] < ub[j] else 1
        elif ca[i] != cb[j]:
            take = -1 if ca[i] < cb[j] else 1
        else:
            take = 0
        if take <= 0:
            u[k], c[k], n[k] = ua[i], ca[i], na[i]
            if take == 0:
                n[k] += nb[j]
                j += 1
            i += 1
        else:
            u[k], c[k], n[k] = ub[j], cb[j], nb[j]
            j += 1
        k += 1
    return k


def merge_sorted_counts(
    a: tuple[np.ndarray, np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge two ``(units uint64, codes int64, counts int64)`` histograms, each sorted by
    (unit, code) with distinct pairs: the sorted union, counts of shared pairs added.

    Examples
    --------
    >>> a = (np.array([1, 1, 5], np.uint64), np.array([0, 2, 1]), np.array([3, 1, 1]))
    >>> b = (np.array([1, 4], np.uint64), np.array([2, 0]), np.array([10, 7]))
    >>> [x.tolist() for x in merge_sorted_counts(a, b)]
    [[1, 1, 4, 5], [0, 2, 0, 1], [3, 11, 7, 1]]
    """
    ua, ca, na = (np.ascontiguousarray(x, dtype=t) for x, t in zip(a, _TYPES, strict=True))
    ub, cb, nb = (np.ascontiguousarray(x, dtype=t) for x, t in zip(b, _TYPES, strict=True))
    size = ua.size + ub.size
    u, c, n = np.empty(size, np.uint64), np.empty(size, np.int64), np.empty(size, np.int64)
    k = _merge(ua, ca, na, ub, cb, nb, u, c, n)
    return u[:k].copy(), c[:k].copy(), n[:k].copy()


_TYPES = (np.uint64, np.int64, np.int64)
