"""The compiled double bootstrap of a sum metric: each outer replicate and its inner
resamples in one pass, for ``method="calibrated"`` (:mod:`booteval.core.calibrated`).

Outer draws
-----------
Replicate ``b`` draws its units exactly as the sums kernel of :mod:`booteval.core.kernels`
does (the same generator on the ``kernels`` stream, the same bounded integers, stratum
after stratum, the statistics added in draw order), so its value is, to the last bit, the
replicate that ``booteval.ci`` forms with any other method on the compiled engine for the
same seed. The drawn units' statistics are kept, in draw order, as the outer resample.

Inner draws
-----------
The ``n_inner`` inner resamples of replicate ``b`` come from one xoshiro256++ generator
of their own, seeded from ``(key, b)`` with ``key`` from the ``kernels.calibrated`` stream
of :mod:`booteval.core.streams`: they depend on the seed and ``b`` only, never on the
batch, the chunk or the thread. Each inner resample draws, within each stratum, as many
positions of the outer resample as the stratum has units (Lemire's bounded integers on
both 32-bit halves of each output, high half first; a half left over at the end of a
stratum is dropped), and adds up their statistics; the sums of one column go into two
alternating accumulators, which keeps the loop off the latency of one chain of additions.

Cost: ``B * n_inner * n`` draws, a gather from the outer resample (in cache up to about
``10**5`` units) and an addition each: about 4 * 10**9 for ``n = 10**4``, ``B = 2,000``,
``n_inner = 200``, a few seconds on two cores.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

from .kernels import (
    _CACHE,
    _LOW32,
    _U32,
    Runner,
    _bounded,
    _by_stratum,
    _compile_notice,
    _next,
    _rejection,
    _seed_state,
    stream_key,
)

__all__ = ["INNER_STREAM", "calibrated_sums_runner"]

#: the stream of the compiled inner draws (:data:`booteval.core.streams.STREAMS`)
INNER_STREAM = "kernels.calibrated"
#: at most this many inner sums (``replicates * n_inner * columns``) per kernel call
_CALL_CELLS = 1 << 21


@njit(cache=_CACHE)
def _inner_one(drawn, offsets, t0, t1, t2, t3):  # pragma: no cover - compiled
    """One inner resample's sum of ``drawn`` (one value per drawn unit, flat) and the
    generator's state."""
    a = 0.0
    c = 0.0
    for g in range(offsets.shape[0] - 1):
        lo = offsets[g]
        size = offsets[g + 1] - lo
        nn, reject = _rejection(size)
        i = 0
        while i < size:
            out, t0, t1, t2, t3 = _next(t0, t1, t2, t3)
            m1 = (out >> _U32) * nn
            m2 = (out & _LOW32) * nn
            if (m1 & _LOW32) >= reject:
                a += drawn[lo + np.int64(m1 >> _U32)]
                i += 1
            if i < size and (m2 & _LOW32) >= reject:
                c += drawn[lo + np.int64(m2 >> _U32)]
                i += 1
    return a + c, t0, t1, t2, t3


@njit(cache=_CACHE)
def _inner_many(drawn, offsets, t0, t1, t2, t3, out):  # pragma: no cover - compiled
    """One inner resample's column sums of ``drawn`` (``k = out.shape[0]`` values per
    drawn unit, flat) into ``out``; the generator's state. The draws of
    :func:`_inner_one`, kept apart from it: its one sum in registers runs 2.5 times faster
    than this loop over columns (measured at ``n = 10**4``)."""
    k = out.shape[0]
    out[:] = 0.0
    for g in range(offsets.shape[0] - 1):
        lo = offsets[g]
        size = offsets[g + 1] - lo
        nn, reject = _rejection(size)
        i = 0
        while i < size:
            word, t0, t1, t2, t3 = _next(t0, t1, t2, t3)
            m1 = (word >> _U32) * nn
            m2 = (word & _LOW32) * nn
            if (m1 & _LOW32) >= reject:
                row = (lo + np.int64(m1 >> _U32)) * k
                for j in range(k):
                    out[j] += drawn[row + j]
                i += 1
            if i < size and (m2 & _LOW32) >= reject:
                row = (lo + np.int64(m2 >> _U32)) * k
                for j in range(k):
                    out[j] += drawn[row + j]
                i += 1
    return t0, t1, t2, t3


@njit(parallel=True, cache=_CACHE)
def _calibrated_kernel(stats, offsets, k0, k1, c0, c1, start, outer, inner):  # pragma: no cover
    """``outer[r]``: the column sums of replicate ``start + r`` (drawn as the sums kernel
    draws, within the strata ``offsets`` of ``stats``); ``inner[r, m]``: those of its inner
    resample ``m``, drawn from the outer resample on the ``(c0, c1)`` key."""
    n, k = stats.shape
    n_inner = inner.shape[1]
    for r in prange(outer.shape[0]):
        b = start + r
        drawn = np.empty(n * k)  # the outer resample's statistics, flat (k = 1: one gather)
        acc = np.zeros(k)
        s0, s1, s2, s3 = _seed_state(k0, k1, b)
        buf, have = np.uint64(0), False
        pos = 0
        for g in range(offsets.shape[0] - 1):
            lo = offsets[g]
            nn, reject = _rejection(offsets[g + 1] - lo)
            for _ in range(offsets[g + 1] - lo):
                idx, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
                for j in range(k):
                    v = stats[lo + idx, j]
                    drawn[pos + j] = v
                    acc[j] += v
                pos += k
        for j in range(k):
            outer[r, j] = acc[j]
        t0, t1, t2, t3 = _seed_state(c0, c1, b)
        for m in range(n_inner):
            if k == 1:
                total, t0, t1, t2, t3 = _inner_one(drawn, offsets, t0, t1, t2, t3)
                inner[r, m, 0] = total
            else:
                t0, t1, t2, t3 = _inner_many(drawn, offsets, t0, t1, t2, t3, inner[r, m])


def calibrated_sums_runner(
    ev: object, shift: float, strata: np.ndarray | None, n_inner: int,
    coverage: Callable[[np.ndarray], np.ndarray],
) -> Runner:  # fmt: skip
    """A runner ``(seed, start, stop, want_se) -> (values, inner coverage)`` of a sum
    metric's double bootstrap.

    Parameters
    ----------
    ev : object
        An evaluator that declares the ``"sums"`` kernel: dense ``unit_stats`` (one row
        per unit) and ``from_sums``.
    shift : float
        Added to every value (a shifted evaluator's constant).
    strata : ndarray or None
        The stratum of each unit, or ``None``.
    n_inner : int
        Inner resamples per replicate.
    coverage : callable
        Maps the ``(replicates, n_inner)`` inner values to each replicate's inner coverage.

    Returns
    -------
    callable
        Its second output, in the slot where the engine's runners return standard
        errors, is each replicate's inner coverage.

    Examples
    --------
    >>> from booteval.core.kernels import sums_runner
    >>> class Mean:
    ...     unit_stats = np.array([[1.0], [2.0], [4.0], [8.0]])
    ...     from_sums = staticmethod(lambda s: s[:, 0] / 4)
    >>> below = lambda v: (v <= 3.75).mean(axis=1)
    >>> run = calibrated_sums_runner(Mean, 0.0, None, 50, below)
    >>> values, cover = run(7, 0, 3, False)
    >>> plain, _ = sums_runner(Mean.unit_stats, Mean.from_sums)(7, 0, 3, False)
    >>> bool((values == plain).all()), cover.shape
    (True, (3,))
    """
    stats = np.ascontiguousarray(ev.unit_stats, dtype=np.float64)  # type: ignore[attr-defined]
    n, k = stats.shape
    ones = np.all(stats == 1.0, axis=0)  # a count sums to the number of draws: not drawn
    drawn = stats[:, ~ones]
    if strata is not None:
        order, offsets = _by_stratum(np.asarray(strata, dtype=np.int64))
        drawn = drawn[order]
    else:
        offsets = np.array([0, n], dtype=np.int64)
    drawn = np.ascontiguousarray(drawn)
    width = drawn.shape[1]
    step = max(1, _CALL_CELLS // max(n_inner * max(width, 1), 1))

    def values_of(part: np.ndarray) -> np.ndarray:
        sums = np.empty((part.shape[0], k))
        sums[:, ~ones] = part
        sums[:, ones] = float(n)
        return np.asarray(ev.from_sums(sums), dtype=float) + shift  # type: ignore[attr-defined]

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, np.ndarray]:
        k0, k1 = stream_key(seed)
        c0, c1 = stream_key(seed, INNER_STREAM)
        _compile_notice(_calibrated_kernel)
        values, cover = np.empty(stop - start), np.empty(stop - start)
        for lo in range(start, stop, step):
            hi = min(lo + step, stop)
            outer, inner = np.empty((hi - lo, width)), np.empty((hi - lo, n_inner, width))
            _calibrated_kernel(drawn, offsets, k0, k1, c0, c1, np.int64(lo), outer, inner)
            values[lo - start : hi - start] = values_of(outer)
            inner_values = values_of(inner.reshape(-1, width)).reshape(hi - lo, n_inner)
            cover[lo - start : hi - start] = coverage(inner_values)
        return values, cover

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run
