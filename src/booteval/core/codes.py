"""Dense integer codes of discrete values: ``np.unique(..., return_inverse=True)`` in O(n).

Labels, predictions, 0/1 outcomes and cell keys are small integers in almost
every evaluation; sorting a million of them (what ``np.unique`` does) costs more
than the whole compressed bootstrap that follows. A counting pass over the
value range gives the same sorted values and codes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["dense_codes"]

# a counting table may be this many times larger than the data (and at least 2**16)
_TABLE_RATIO = 4


def _as_small_ints(v: np.ndarray) -> tuple[np.ndarray, int, int] | None:
    """``(v as intp, min, max)`` when ``v`` holds integers (of any dtype) of a small range."""
    if v.size == 0 or v.dtype.kind not in "biuf":
        return None
    lo_v, hi_v = v.min(), v.max()
    if v.dtype.kind == "f" and not (-(2.0**53) <= lo_v and hi_v <= 2.0**53):
        return None  # NaN, infinities, or beyond exact integers
    lo, hi = int(lo_v), int(hi_v)
    if hi - lo > _TABLE_RATIO * v.size + 2**16 or lo < -(2**62) or hi > 2**62:
        return None  # a wide range, or values beyond what intp offsets hold
    ints = v.astype(np.intp)
    if v.dtype.kind == "f" and not np.array_equal(ints, v):  # not integral
        return None
    return ints, lo, hi


def dense_codes(values: np.ndarray, *, return_counts: bool = False) -> tuple[np.ndarray, ...]:
    """``(sorted distinct values, code of each value[, count of each distinct value])``.

    The same arrays as ``np.unique(values.ravel(), return_inverse=True,
    return_counts=...)`` (codes as ``intp``), by counting when the values are
    integers of a small range, and by ``np.unique`` otherwise.

    Examples
    --------
    >>> uniq, code, count = dense_codes(np.array([5, 3, 5, 9]), return_counts=True)
    >>> uniq.tolist(), code.tolist(), count.tolist()
    ([3, 5, 9], [1, 0, 1, 2], [1, 2, 1])
    """
    v = np.asarray(values).ravel()
    small = _as_small_ints(v)
    if small is None:
        out = np.unique(v, return_inverse=True, return_counts=return_counts)
        return (out[0], out[1].reshape(-1).astype(np.intp), *out[2:])
    ints, lo, hi = small
    offset = ints - lo if lo else ints
    counts = np.bincount(offset, minlength=hi - lo + 1)
    present = counts > 0
    code_of = np.cumsum(present, dtype=np.intp) - 1
    uniq = (np.flatnonzero(present) + lo).astype(v.dtype)
    code = code_of[offset]
    return (uniq, code, counts[present]) if return_counts else (uniq, code)
