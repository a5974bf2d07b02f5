"""Compiled kernels over many systems' shared replicates (a leaderboard's ``(B, K)``
matrix, or its pairwise differences one row per pair).

* :func:`row_counts`: how many values of each row lie below (and on) given points, and
  each row's smallest and largest value: the counts BCa's ``z0`` and the bootstrap
  p-values read.
* :func:`sort_windows`: puts chosen windows of each row in sorted position (the order
  statistics an interval and its Monte Carlo error read) without sorting the row: one
  pass collects the values between two pivots selected from a sample of the row, and
  the window is selected among those (the whole row is sorted where the pivots miss,
  which they rarely do).
* :func:`pair_rows` and :func:`jackknife_sums`: a block of pairs' differences with their
  mean, SD and counts, and BCa's jackknife sums, in one pass over each pair's two rows.
* :func:`pair_deviations` and :func:`max_t`: each pairwise difference's bootstrap
  standard deviation, and each replicate's largest studentized deviation over all pairs
  (the bootstrap max-T statistic), without forming the ``(B, pairs)`` differences.
* :func:`min_ranks`: each replicate's competition ranks ("min": ties share the smallest).

Every value is computed with the same floating-point operations, in the same order, as
the NumPy expression it replaces (stated at each kernel), so results do not depend on
which one ran; the sums follow NumPy's pairwise summation of a float64 reduction
(:func:`_pairwise`), which :func:`sums_match_numpy` checks against the NumPy in use.
:func:`row_counts`, :func:`sort_windows`, :func:`pair_rows` and :func:`jackknife_sums` run
on the calling thread and release the GIL (a caller runs blocks of rows on several
threads); the others spread their loop over numba's threads, one such run at a time (as
the engine's kernels).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .engine import _kernel_lock
from .kernels import _CACHE, _compile_notice

__all__ = [
    "jackknife_sums",
    "max_t",
    "min_ranks",
    "pair_deviations",
    "pair_rows",
    "row_counts",
    "sort_windows",
    "sums_match_numpy",
]

#: rows at most this long are sorted whole; longer ones by a sample's pivots
_WHOLE = 2048
#: the sample of a longer row that its pivots come from
_SAMPLE = 512


@njit(cache=_CACHE, nogil=True, inline="always")
def _count_row(x, i, points, below, equal, low, high):  # pragma: no cover - compiled
    """Row ``i``'s counts below and at its two points, and its extremes (the counts in
    registers: one pass, no stores in the loop)."""
    p, q = points[i, 0], points[i, 1]
    lo = x[0]
    hi = x[0]
    below_p = equal_p = below_q = equal_q = 0
    for j in range(x.shape[0]):
        v = x[j]
        lo = min(lo, v)
        hi = max(hi, v)
        below_p += v < p
        equal_p += v == p
        below_q += v < q
        equal_q += v == q
    below[i, 0], equal[i, 0], below[i, 1], equal[i, 1] = below_p, equal_p, below_q, equal_q
    low[i] = lo
    high[i] = hi


@njit(cache=_CACHE, nogil=True)
def _row_counts(rows, points, below, equal, low, high):  # pragma: no cover - compiled
    """Two points a row."""
    for i in range(rows.shape[0]):
        _count_row(rows[i], i, points, below, equal, low, high)


def row_counts(
    rows: np.ndarray, points: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(below, equal, low, high)``: for row ``i`` of ``rows`` (finite values) and each
    of its one or two points ``points[i, t]``, how many values are below it and how many
    equal it; and the row's smallest and largest value.

    Examples
    --------
    >>> below, equal, low, high = row_counts(np.array([[1.0, 2.0, 2.0, 3.0]]),
    ...                                      np.array([[2.0, 0.0]]))
    >>> below.tolist(), equal.tolist(), low.tolist(), high.tolist()
    ([[1, 0]], [[2, 0]], [1.0], [3.0])
    """
    m = rows.shape[0]
    points = np.asarray(points, dtype=np.float64).reshape(m, -1)
    q = points.shape[1]
    pair = np.ascontiguousarray(points if q == 2 else np.repeat(points, 2, axis=1))
    below = np.empty((m, 2), dtype=np.int64)
    equal = np.empty((m, 2), dtype=np.int64)
    low, high = np.empty(m), np.empty(m)
    if rows.shape[1]:
        _compile_notice(_row_counts)
        _row_counts(rows, pair, below, equal, low, high)
    return below[:, :q], equal[:, :q], low, high


@njit(cache=_CACHE, nogil=True)
def _select(a, lo, hi, k):  # pragma: no cover - compiled
    """Reorder ``a[lo .. hi]`` (inclusive) so that ``a[k]`` holds the value of rank ``k``,
    with no larger value before it and no smaller one after it (Hoare's selection, the
    median of three as pivot)."""
    while hi > lo:
        x, y, z = a[lo], a[(lo + hi) >> 1], a[hi]
        if x > y:
            x, y = y, x
        if y > z:
            y = z
        pivot = max(x, y)
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return


@njit(cache=_CACHE, nogil=True)
def _pivot(sample, b, first, last, lower):  # pragma: no cover - compiled
    """A value of the sample below the ``first``-th (``lower``) or above the ``last``-th
    (0-based) order statistic of the ``b`` values it was drawn from, with a margin of four
    of the sample rank's standard deviations; +-inf where the margin runs off the end."""
    s = sample.shape[0]
    q = (first if lower else last + 1) / b
    margin = int(4.0 * np.sqrt(s * q * (1.0 - q))) + 4
    k = (first * s) // b - margin if lower else ((last + 1) * s + b - 1) // b + margin
    if k < 0:
        return -np.inf
    if k >= s:
        return np.inf
    _select(sample, 0, s - 1, k)
    return sample[k]


@njit(cache=_CACHE, nogil=True)
def _sort_windows(rows, windows):  # pragma: no cover - compiled
    """Two windows a row (``[first, last]``, 0-based, inclusive)."""
    m, b = rows.shape
    sample = np.empty(_SAMPLE)
    kept0 = np.empty(b + 1)
    kept1 = np.empty(b + 1)
    for i in range(m):
        x = rows[i]
        if b <= _WHOLE:
            x.sort()
            continue
        f0, l0, f1, l1 = windows[i, 0, 0], windows[i, 0, 1], windows[i, 1, 0], windows[i, 1, 1]
        for j in range(_SAMPLE):
            sample[j] = x[(j * b) // _SAMPLE]
        lo0, hi0 = _pivot(sample, b, f0, l0, True), _pivot(sample, b, f0, l0, False)
        lo1, hi1 = _pivot(sample, b, f1, l1, True), _pivot(sample, b, f1, l1, False)
        n0 = n1 = under0 = under1 = 0
        for j in range(b):  # no branch: every value is written, the kept ones counted
            v = x[j]
            under0 += v < lo0
            under1 += v < lo1
            kept0[n0] = v
            n0 += (v >= lo0) & (v <= hi0)
            kept1[n1] = v
            n1 += (v >= lo1) & (v <= hi1)
        # each window lies among its kept values, or the pivots missed it: sort the row
        if under0 > f0 or under0 + n0 <= l0 or under1 > f1 or under1 + n1 <= l1:
            x.sort()
            continue
        x[f0 : l0 + 1] = _ranked(kept0, n0, f0 - under0, l0 - under0)
        x[f1 : l1 + 1] = _ranked(kept1, n1, f1 - under1, l1 - under1)


@njit(cache=_CACHE, nogil=True)
def _ranked(values, n, lo, hi):  # pragma: no cover - compiled
    """The values of ranks ``lo .. hi`` (0-based) of ``values[:n]``, in order (reordered
    in place)."""
    _select(values, 0, n - 1, lo)
    if hi > lo:
        _select(values, lo + 1, n - 1, hi)
        values[lo + 1 : hi].sort()
    return values[lo : hi + 1]


def sort_windows(rows: np.ndarray, windows: np.ndarray) -> None:
    """Put positions ``windows[i, w, 0] .. windows[i, w, 1]`` (0-based, inclusive; two
    windows ``w`` a row, ``windows`` of shape ``(m, 2, 2)``) of each row of ``rows``
    (C-contiguous, finite) in sorted position, in place: afterwards each holds the order
    statistic of that rank. The other positions are left holding values
    of the row in no useful order (some may repeat): only the windows are to be read.

    Examples
    --------
    >>> x = np.random.default_rng(0).permutation(5000).astype(float)[None, :]
    >>> sort_windows(x, np.array([[[100, 102], [4000, 4000]]]))
    >>> x[0, 100:103].tolist(), float(x[0, 4000])
    ([100.0, 101.0, 102.0], 4000.0)
    """
    if rows.shape[0] and rows.shape[1]:
        _compile_notice(_sort_windows)
        _sort_windows(rows, np.ascontiguousarray(windows, dtype=np.int64))


# ------------------------------------------------------------- a leaderboard's pairs
@njit(cache=_CACHE, nogil=True, inline="always")
def _term(xa, xb, i, centre, mode):  # pragma: no cover - compiled
    """Row ``i``'s terms: the difference ``v = xb - xa`` (mode 0); ``(v - centre)**2``
    (mode 1, as ``x = arr - mean; x * x`` in NumPy's variance); ``d * d`` and
    ``d * d * d`` for ``d = centre - v`` (mode 2, BCa's jackknife sums)."""
    v = xb[i] - xa[i]
    if mode == 0:
        return v, 0.0
    if mode == 1:
        e = v - centre
        return e * e, 0.0
    d = centre - v
    t = d * d
    return t, t * d


@njit(cache=_CACHE, nogil=True, inline="always")
def _block_sums(xa, xb, centre, lo, n, mode, acc):  # pragma: no cover - compiled
    """The sums of :func:`_term` over rows ``lo .. lo + n - 1`` (``n <= 128``) as one
    block of NumPy's pairwise summation: eight running sums (in ``acc``, two rows of
    eight), combined as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the
    rest added in turn (fewer than eight rows: added in turn from -0.0)."""
    if n < 8:
        s = -0.0
        q = -0.0
        for i in range(lo, lo + n):
            t, u = _term(xa, xb, i, centre, mode)
            s += t
            q += u
        return s, q
    for j in range(8):
        acc[0, j], acc[1, j] = _term(xa, xb, lo + j, centre, mode)
    i = 8
    end = n - n % 8
    while i < end:
        for j in range(8):
            t, u = _term(xa, xb, lo + i + j, centre, mode)
            acc[0, j] += t
            acc[1, j] += u
        i += 8
    r, w = acc[0], acc[1]
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    q = ((w[0] + w[1]) + (w[2] + w[3])) + ((w[4] + w[5]) + (w[6] + w[7]))
    while i < n:
        t, u = _term(xa, xb, lo + i, centre, mode)
        s += t
        q += u
        i += 1
    return s, q


@njit(cache=_CACHE, nogil=True)
def _pairwise(xa, xb, centre, n, mode):  # pragma: no cover - compiled
    """The sums of :func:`_term` over rows ``0 .. n - 1`` in NumPy's order for a float64
    add reduction (its pairwise summation, ``0.0`` plus): blocks of at most 128 rows
    (:func:`_block_sums`), a longer run split in two halves (the first a multiple of
    eight rows) and the halves' sums added. Without recursion: the split tree is walked
    on a stack (64 levels hold any length)."""
    acc = np.empty((2, 8))
    start = np.empty(64, np.int64)
    size = np.empty(64, np.int64)
    phase = np.zeros(64, np.int64)
    s_done = np.empty(64)
    q_done = np.empty(64)
    start[0], size[0], phase[0] = 0, n, 0
    top = 0  # the node on the stack's top
    done = 0  # sums of finished nodes, waiting for their sibling
    while top >= 0:
        lo, m = start[top], size[top]
        if m <= 128:
            s_done[done], q_done[done] = _block_sums(xa, xb, centre, lo, m, mode, acc)
            done += 1
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if phase[top] == 0:  # the first half
            phase[top] = 1
            top += 1
            start[top], size[top], phase[top] = lo, half, 0
        elif phase[top] == 1:  # then the second
            phase[top] = 2
            top += 1
            start[top], size[top], phase[top] = lo + half, m - half, 0
        else:  # both halves summed: their sum is this node's
            done -= 1
            s_done[done - 1] += s_done[done]
            q_done[done - 1] += q_done[done]
            top -= 1
    return 0.0 + s_done[0], 0.0 + q_done[0]


@njit(cache=_CACHE, nogil=True)
def _pair_rows(
    columns, ia, ib, points, diffs, mean, sd, below, equal, low, high
):  # pragma: no cover - compiled
    """Each pair's differences ``columns[ib] - columns[ia]`` into ``diffs``, with their
    mean and SD (``ddof=1``) as NumPy's ``mean`` and ``std`` give them, and the counts of
    :func:`_row_counts` at two points a pair."""
    b = columns.shape[1]
    for p in range(ia.shape[0]):
        xa = columns[ia[p]]
        xb = columns[ib[p]]
        out = diffs[p]
        for r in range(b):
            out[r] = xb[r] - xa[r]
        _count_row(out, p, points, below, equal, low, high)
        m = _pairwise(xa, xb, 0.0, b, 0)[0] / b
        mean[p] = m
        sd[p] = np.sqrt(_pairwise(xa, xb, m, b, 1)[0] / (b - 1))


@njit(cache=_CACHE, nogil=True)
def _jackknife_sums(rows, ia, ib, ss, cube, finite):  # pragma: no cover - compiled
    """BCa's jackknife sums of each pair's differences ``rows[ib] - rows[ia]`` (one value
    per unit), as ``bca_levels`` forms them with NumPy: the centred values ``d`` and
    ``sum d^2``, ``sum d^3``; and whether every difference is finite."""
    n = rows.shape[1]
    total = _pairwise(np.zeros(n), np.ones(n), 0.0, n, 0)[0]  # np.sum(np.ones(n))
    for p in range(ia.shape[0]):
        xa = rows[ia[p]]
        xb = rows[ib[p]]
        ok = True
        for i in range(n):
            if not np.isfinite(xb[i] - xa[i]):
                ok = False
        finite[p] = ok
        m = _pairwise(xa, xb, 0.0, n, 0)[0] / total
        ss[p], cube[p] = _pairwise(xa, xb, m, n, 2)


def pair_rows(
    columns: np.ndarray, ia: np.ndarray, ib: np.ndarray, points: np.ndarray
) -> tuple[np.ndarray, ...]:
    """``(diffs, mean, sd, below, equal, low, high)`` of each pair's differences
    ``columns[ib] - columns[ia]`` (``columns``: ``(K, B)``, one system's finite replicates a
    row): the ``(pairs, B)`` differences, their mean and SD (``ddof=1``) summed as NumPy's
    ``mean`` and ``std`` sum them (pairwise), and :func:`row_counts` at the two points of
    each pair. On the calling thread, without the GIL.

    Examples
    --------
    >>> cols = np.array([[0.0, 1.0, 2.0, 4.0], [1.0, 1.0, 1.0, 1.0]])
    >>> diffs, mean, sd, below, equal, low, high = pair_rows(
    ...     cols, np.array([1]), np.array([0]), np.array([[0.0, 1.0]]))
    >>> diffs.tolist(), mean.tolist(), below.tolist(), equal.tolist()
    ([[-1.0, 0.0, 1.0, 3.0]], [0.75], [[1, 2]], [[1, 1]])
    >>> bool(sd[0] == np.std(diffs[0], ddof=1))
    True
    """
    m, b = len(ia), columns.shape[1]
    diffs = np.empty((m, b))
    mean, sd, low, high = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    below = np.empty((m, 2), dtype=np.int64)
    equal = np.empty((m, 2), dtype=np.int64)
    if m and b > 1:
        _compile_notice(_pair_rows)
        _pair_rows(
            columns, np.asarray(ia, np.int64), np.asarray(ib, np.int64),
            np.ascontiguousarray(points, dtype=np.float64), diffs, mean, sd, below, equal,
            low, high,
        )  # fmt: skip
    return diffs, mean, sd, below, equal, low, high


def jackknife_sums(
    rows: np.ndarray, ia: np.ndarray, ib: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ss, cube, finite)``: for each pair's jackknife differences ``rows[ib] - rows[ia]``
    (``rows``: ``(K, n)``, one system's leave-one-unit-out values a row), the sums of
    ``d**2`` and ``d**3`` of the centred differences, summed as
    :func:`~booteval.core.intervals.bca_levels` sums them with NumPy, and whether all are
    finite. On the calling thread, without the GIL.

    Examples
    --------
    >>> rows = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 6.0]])
    >>> ss, cube, finite = jackknife_sums(rows, np.array([0]), np.array([1]))
    >>> ss.tolist(), cube.tolist(), finite.tolist()
    ([14.0], [-18.0], [True])
    """
    m = len(ia)
    ss, cube, finite = np.empty(m), np.empty(m), np.empty(m, dtype=np.bool_)
    if m and rows.shape[1]:
        _compile_notice(_jackknife_sums)
        with np.errstate(invalid="ignore", over="ignore"):
            _jackknife_sums(
                rows, np.asarray(ia, np.int64), np.asarray(ib, np.int64), ss, cube, finite
            )
    return ss, cube, finite


_checked: list[bool] = []


def sums_match_numpy() -> bool:
    """Whether :func:`pair_rows` and :func:`jackknife_sums` give NumPy's sums to the last
    bit with the NumPy in use (checked once, on rows of awkward lengths and values of every
    magnitude); where not,
    callers use NumPy itself.

    Examples
    --------
    >>> sums_match_numpy()
    True
    """
    if not _checked:
        ok = True
        for n in (7, 9, 129, 1000, 8193, 20001):  # values of all magnitudes: rounding shows
            i = np.arange(2.0 * n).reshape(2, n)
            cols = np.sin(1.618 * i) * 10.0 ** (3.0 * np.cos(0.7071 * i))
            one, zero = np.array([1]), np.array([0])
            _, mean, sd, *_ = pair_rows(cols, zero, one, np.zeros((1, 2)))
            ss, cube, _ = jackknife_sums(cols, zero, one)
            d = cols[1] - cols[0]
            e = float(np.sum(d) / np.sum(np.ones(n))) - d  # bca_levels' centred values
            ok &= bool(mean[0] == np.mean(d) and sd[0] == np.std(d, ddof=1))
            ok &= bool(ss[0] == float(np.sum(e * e)) and cube[0] == float(np.sum(e * e * e)))
        _checked.append(ok)
    return _checked[0]


@njit(parallel=True, cache=_CACHE, error_model="numpy")
def _pair_deviations(columns, ia, ib, out):  # pragma: no cover - compiled
    b = columns.shape[1]
    for p in prange(ia.shape[0]):
        xa = columns[ia[p]]
        xb = columns[ib[p]]
        m = _pairwise(xa, xb, 0.0, b, 0)[0] / b
        out[p] = np.sqrt(_pairwise(xa, xb, m, b, 1)[0] / (b - 1))


def pair_deviations(columns: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """The standard deviation (``ddof=1``) of ``columns[ib[p]] - columns[ia[p]]`` for each
    pair ``p``; ``columns`` is ``(K, B)``, one system's replicates a row. The sums are
    NumPy's (pairwise), so each equals ``np.std`` of that pair's differences.

    Examples
    --------
    >>> cols = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]])
    >>> pair_deviations(cols, np.array([1]), np.array([0])).tolist()
    [1.0]
    """
    out = np.empty(len(ia))
    if len(ia):
        _compile_notice(_pair_deviations)
        with np.errstate(divide="ignore", invalid="ignore"), _kernel_lock:
            _pair_deviations(
                np.ascontiguousarray(columns, dtype=np.float64),
                np.asarray(ia, np.int64), np.asarray(ib, np.int64), out,
            )  # fmt: skip
    return out


@njit(parallel=True, cache=_CACHE)
def _max_t(reps, ia, ib, centre, scale, out):  # pragma: no cover - compiled
    for r in prange(reps.shape[0]):
        row = reps[r]
        worst = 0.0
        for p in range(ia.shape[0]):
            t = abs((row[ib[p]] - row[ia[p]]) - centre[p]) / scale[p]
            if t > worst:
                worst = t
        out[r] = worst


def max_t(
    reps: np.ndarray, ia: np.ndarray, ib: np.ndarray, centre: np.ndarray, scale: np.ndarray
) -> np.ndarray:
    """Each replicate's ``max over p of |(reps[:, ib[p]] - reps[:, ia[p]]) - centre[p]| /
    scale[p]`` (0 with no pair), for ``reps`` of shape ``(B, K)`` and positive ``scale``.

    Examples
    --------
    >>> reps = np.array([[0.0, 1.0], [0.0, 3.0]])
    >>> max_t(reps, np.array([0]), np.array([1]), np.array([2.0]), np.array([0.5])).tolist()
    [2.0, 2.0]
    """
    out = np.empty(reps.shape[0])
    _compile_notice(_max_t)
    with _kernel_lock:
        _max_t(
            np.ascontiguousarray(reps, dtype=np.float64), np.asarray(ia, np.int64),
            np.asarray(ib, np.int64), np.asarray(centre, np.float64),
            np.asarray(scale, np.float64), out,
        )  # fmt: skip
    return out


@njit(parallel=True, cache=_CACHE)
def _min_ranks(values, out):  # pragma: no cover - compiled
    k = values.shape[1]
    for r in prange(values.shape[0]):
        row = values[r]
        order = np.argsort(row)
        rank = 1
        for i in range(k):
            j = order[i]
            if i > 0 and row[j] != row[order[i - 1]]:
                rank = i + 1
            out[r, j] = rank


def min_ranks(values: np.ndarray) -> np.ndarray:
    """Competition ranks along the last axis of a 2-D array, 1 for the smallest (ties share
    the smallest rank of their group; finite values): SciPy's ``rankdata(method="min",
    axis=-1)``.

    Examples
    --------
    >>> min_ranks(np.array([[0.3, 0.1, 0.3, 0.2]])).tolist()
    [[3, 1, 3, 2]]
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    out = np.empty(values.shape, dtype=np.int64)
    if values.size:
        _compile_notice(_min_ranks)
        with _kernel_lock:
            _min_ranks(values, out)
    return out
