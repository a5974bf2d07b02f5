"""The compiled engine (the default, ``engine="auto"``, where a kernel applies):
draw and accumulate in one pass.

The NumPy engine draws a ``(batch, n_units)`` matrix of counts and reduces it;
these kernels instead draw each replicate's ``n`` row indices and add up what
the metric needs as they go, so no ``(batch, n)`` array is ever formed. They
are compiled by numba (a dependency) on first use and cached in a user cache
directory (:func:`cache_dir`).

Random streams
--------------
Every replicate ``b`` has its own generator, a xoshiro256++ whose state is
seeded by SplitMix64 from ``(key, b)``, where ``key`` comes from
the ``kernels`` stream of :mod:`booteval.core.streams`. Its 64-bit outputs are
used as 32-bit words (high half, then low half), and bounded integers use Lemire's
multiply-and-reject method on those words, so every row is drawn with exactly
equal probability. A replicate is therefore the same whichever thread computes it
and whatever batch it is computed in, and a run of ``B`` replicates is a
prefix of any longer run. The streams are *not* the NumPy engine's (those are
PCG64 blocks drawing unit counts), so for the same seed the two engines give
different (equally valid) replicates; each engine is reproducible on its own.

Kernels
-------
* sums of per-row statistics (means, ratios, mean losses, R^2, ...: every
  :class:`~booteval.metrics.base.SumEvaluator` with dense statistics), iid
  design: each draw adds the drawn row's statistics, in draw order;
* the same sums under clustered and stratified designs: a sum metric's statistics are
  then its per-cluster sums, and a replicate draws clusters (``n_clusters`` draws);
  with strata, it draws each stratum's units from that stratum, stratum after stratum;
* ROC-AUC, of one system or several, under any design: :mod:`booteval.core.auc_kernels`;
* Spearman's rho, Kendall's tau-b and average precision, of one system or several, under
  any design: :mod:`booteval.core.rank_kernels`;
* random swaps of a paired sum metric: :mod:`booteval.core.swap_kernels`;
* the two-level threshold bootstrap with a named rule: :mod:`booteval.core.threshold_kernels`;
* the wild bootstrap of an OLS fit: :mod:`booteval.core.wild_kernels`;
* the meta-evaluation's crossed bootstrap (systems x inputs): :mod:`booteval.core.crossed_kernels`,
  and its paired permutation test: :mod:`booteval.core.crossed_swap_kernels`.

Callables and compressed cells have no kernel;
:func:`plan` says why, and the caller uses the NumPy engine.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from .blas import one_blas_thread
from .cache import user_cache_dir
from .streams import seed_sequence

__all__ = [
    "MAX_ROWS",
    "Runner",
    "chunk_runner",
    "drawn_counts",
    "drawn_indices",
    "stacked_runner",
    "stratified_sums",
    "stream_key",
    "sum_runner",
    "sums_runner",
    "threads",
    "unshift",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
# the shift counts of the mixers and generators, as uint64 (no mixed-type promotion)
_U17, _U19, _U23, _U27, _U30, _U31, _U32, _U41, _U45 = (
    np.uint64(k) for k in (17, 19, 23, 27, 30, 31, 32, 41, 45)
)
_LOW32 = np.uint64(0xFFFFFFFF)
# the kernels count draws in 32-bit integers and draw 32-bit bounded integers
MAX_ROWS = (1 << 31) - 1
# replicates per kernel call (the output is tiny; this only bounds one call's work)
_CALL_REPLICATES = 4096
_CACHE = os.environ.get("BOOTEVAL_NUMBA_CACHE", "1") != "0"


def cache_dir() -> str:
    """Where compiled kernels are cached: a user cache directory, never the package.

    ``$NUMBA_CACHE_DIR`` when set (numba's own setting); otherwise ``booteval/numba``
    under ``$XDG_CACHE_HOME`` (``~/.cache``), ``~/Library/Caches`` on macOS, or
    ``%LOCALAPPDATA%`` on Windows. The installed package may be read-only, and a source
    checkout stays clean.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    return user_cache_dir("numba")


if _CACHE:  # read by numba when each cached kernel below is defined
    numba.config.CACHE_DIR = cache_dir()


@njit(cache=_CACHE)
def _mix(z: np.uint64) -> np.uint64:  # pragma: no cover - compiled
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@njit(cache=_CACHE)
def _seed_state(k0, k1, b):  # pragma: no cover - compiled
    """xoshiro256++ state of replicate ``b``: SplitMix64 outputs from ``(k0, k1, b)``."""
    x = k0 ^ _mix(k1 + np.uint64(b) * _GOLDEN)
    x = x + _GOLDEN
    s0 = _mix(x)
    x = x + _GOLDEN
    s1 = _mix(x)
    x = x + _GOLDEN
    s2 = _mix(x)
    x = x + _GOLDEN
    s3 = _mix(x)
    return s0, s1, s2, s3


@njit(cache=_CACHE)
def _next(s0, s1, s2, s3):  # pragma: no cover - compiled
    """One xoshiro256++ output and the new state."""
    t = s0 + s3
    out = ((t << _U23) | (t >> _U41)) + s0
    sh = s1 << _U17
    s2 = s2 ^ s0
    s3 = s3 ^ s1
    s1 = s1 ^ s2
    s0 = s0 ^ s3
    s2 = s2 ^ sh
    s3 = (s3 << _U45) | (s3 >> _U19)
    return out, s0, s1, s2, s3


@njit(cache=_CACHE)
def _word(s0, s1, s2, s3, buf, have):  # pragma: no cover - compiled
    """The next 32-bit word: the high, then the low half of each xoshiro256++ output."""
    if have:
        return buf & _LOW32, s0, s1, s2, s3, buf, False
    out, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
    return out >> _U32, s0, s1, s2, s3, out, True


@njit(cache=_CACHE)
def _bounded(s0, s1, s2, s3, buf, have, n, reject):  # pragma: no cover - compiled
    """A uniform integer in ``[0, n)`` (Lemire: multiply, reject the biased low part)."""
    while True:
        w, s0, s1, s2, s3, buf, have = _word(s0, s1, s2, s3, buf, have)
        m = w * n
        if (m & _LOW32) >= reject:
            return np.int64(m >> _U32), s0, s1, s2, s3, buf, have


def _reject(n: int) -> np.uint64:
    return np.uint64((2**32 - n) % n)


@njit(cache=_CACHE)
def _draws(k0, k1, b, n, reject):  # pragma: no cover - compiled
    s0, s1, s2, s3 = _seed_state(k0, k1, b)
    buf, have = np.uint64(0), False
    nn = np.uint64(n)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        idx, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
        out[i] = idx
    return out


@njit(cache=_CACHE)
def _rejection(n):  # pragma: no cover - compiled
    """``n`` as uint64 and the rejection bound of Lemire's method for indices below ``n``."""
    nn = np.uint64(n)
    return nn, ((np.uint64(1) << _U32) - nn) % nn


@njit(cache=_CACHE)
def _count_draws(counts, k0, k1, b):  # pragma: no cover - compiled
    """Add replicate ``b``'s ``len(counts)`` draws to ``counts`` (how often each index occurs).

    The words of :func:`_bounded` (the high, then the low half of each output), two per
    output in one step: the same indices, without carrying the spare half between calls.
    """
    n = counts.shape[0]
    nn, reject = _rejection(n)
    s0, s1, s2, s3 = _seed_state(k0, k1, b)
    i = 0
    while i < n:
        out, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
        m1 = (out >> _U32) * nn
        m2 = (out & _LOW32) * nn
        ok1 = (m1 & _LOW32) >= reject
        ok2 = (m2 & _LOW32) >= reject
        if ok1 and ok2 and i + 1 < n:  # nearly always: both words accepted
            counts[m1 >> _U32] += 1
            counts[m2 >> _U32] += 1
            i += 2
            continue
        if ok1:
            counts[m1 >> _U32] += 1
            i += 1
        if ok2 and i < n:
            counts[m2 >> _U32] += 1
            i += 1


@njit(cache=_CACHE)
def _draw_units(counts, perm, offsets, k0, k1, b):  # pragma: no cover - compiled
    """Add replicate ``b``'s draws of units (stratum after stratum) to ``counts``."""
    s0, s1, s2, s3 = _seed_state(k0, k1, b)
    buf, have = np.uint64(0), False
    for g in range(offsets.shape[0] - 1):
        lo = offsets[g]
        nn, reject = _rejection(offsets[g + 1] - lo)
        for _ in range(offsets[g + 1] - lo):
            idx, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
            counts[perm[lo + idx]] += 1


@njit(parallel=True, cache=_CACHE)
def _sum_kernel(stats, k0, k1, start, out):  # pragma: no cover - compiled
    """``out[r] = sum over replicate start + r's draws i of stats[i]`` (in draw order)."""
    n, k = stats.shape
    nn, reject = _rejection(n)
    for r in prange(out.shape[0]):
        s0, s1, s2, s3 = _seed_state(k0, k1, start + r)
        buf, have = np.uint64(0), False
        if k == 1:  # one column in a register (a mean's values: its ones are not drawn)
            a0 = 0.0
            for _ in range(n):
                idx, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
                a0 += stats[idx, 0]
            out[r, 0] = a0
        elif k == 2:
            a0 = 0.0
            a1 = 0.0
            for _ in range(n):
                idx, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
                a0 += stats[idx, 0]
                a1 += stats[idx, 1]
            out[r, 0] = a0
            out[r, 1] = a1
        else:
            acc = np.zeros(k)
            for _ in range(n):
                idx, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
                for j in range(k):
                    acc[j] += stats[idx, j]
            for j in range(k):
                out[r, j] = acc[j]


@njit(parallel=True, cache=_CACHE)
def _strata_sum_kernel(stats, offsets, k0, k1, start, out):  # pragma: no cover - compiled
    """As :func:`_sum_kernel`, drawing within strata: the units of stratum ``s`` are rows
    ``offsets[s] .. offsets[s + 1] - 1`` of ``stats``, and a replicate draws that many of
    them, stratum after stratum, from its one stream."""
    k = stats.shape[1]
    n_strata = offsets.shape[0] - 1
    for r in prange(out.shape[0]):
        s0, s1, s2, s3 = _seed_state(k0, k1, start + r)
        buf, have = np.uint64(0), False
        acc = np.zeros(k)
        for g in range(n_strata):
            lo = offsets[g]
            size = offsets[g + 1] - lo
            nn, reject = _rejection(size)
            for _ in range(size):
                idx, s0, s1, s2, s3, buf, have = _bounded(s0, s1, s2, s3, buf, have, nn, reject)
                for j in range(k):
                    acc[j] += stats[lo + idx, j]
        for j in range(k):
            out[r, j] = acc[j]


@njit(cache=_CACHE, nogil=True)
def _count_matrix(perm, offsets, k0, k1, start, out):  # pragma: no cover - compiled
    """Row ``r`` of ``out`` (zeroed here): how often replicate ``start + r`` draws each
    row, as :func:`_sum_kernel` draws them (``perm`` empty) or, within strata, as
    :func:`_strata_sum_kernel` does (``perm``, ``offsets``: the units by stratum). On the
    calling thread, without the GIL (:func:`_product_sums` runs blocks on threads)."""
    for r in range(out.shape[0]):
        row = out[r]
        row[:] = 0
        if perm.shape[0] == 0:
            _count_draws(row, k0, k1, start + r)
        else:
            _draw_units(row, perm, offsets, k0, k1, start + r)


# ------------------------------------------------------------------------------- Python side


def stream_key(seed: int, stream: str = "kernels") -> tuple[np.uint64, np.uint64]:
    """The 128-bit key of the compiled engine's generators for ``seed`` (on ``stream`` of
    :mod:`booteval.core.streams`: ``"kernels"`` for draws, ``"kernels.swaps"`` for swaps)."""
    k = seed_sequence(stream, seed).generate_state(2, dtype=np.uint64)
    return np.uint64(k[0]), np.uint64(k[1])


def drawn_indices(seed: int, b: int, n: int, stream: str = "kernels") -> np.ndarray:
    """The ``n`` draws (in ``[0, n)``, in order) of replicate ``b`` for ``seed``.

    For the sums kernel these are row indices; for the ROC-AUC kernel they are
    positions in the sorted order (row ``order[p]``); ``stream`` names another kernel's
    draws (e.g. ``"kernels.threshold.val"``). For tests and debugging.
    """
    k0, k1 = stream_key(seed, stream)
    return _draws(k0, k1, np.int64(b), np.int64(n), _reject(n))


def drawn_counts(seed: int, start: int, stop: int, strata: np.ndarray) -> np.ndarray:
    """How often replicates ``start .. stop - 1`` for ``seed`` draw each unit when each
    stratum's units are drawn from that stratum (``strata``: each unit's stratum), as
    the sums kernel draws them. For tests and debugging.

    Examples
    --------
    >>> counts = drawn_counts(0, 0, 2, np.array([0, 0, 1, 1, 1]))
    >>> counts.sum(axis=1).tolist(), counts[:, :2].sum(axis=1).tolist()
    ([5, 5], [2, 2])
    """
    order, offsets = _by_stratum(np.asarray(strata, dtype=np.int64))
    k0, k1 = stream_key(seed)
    out = np.empty((stop - start, order.size), dtype=np.int64)
    _count_matrix(order, offsets, k0, k1, np.int64(start), out)
    return out


def stratified_sums(stats: np.ndarray, strata: np.ndarray) -> Callable[[int, int, int], np.ndarray]:
    """``(seed, start, stop) ->`` each replicate's column sums of ``stats`` when each
    stratum's rows (``strata``: each row's stratum) are drawn from that stratum, in one
    pass (the draws of :func:`drawn_counts`).

    Examples
    --------
    >>> stats, strata = np.array([[1.0], [2.0], [10.0]]), np.array([0, 0, 1])
    >>> sums = stratified_sums(stats, strata)(0, 0, 2)[:, 0]
    >>> bool(np.all(sums == drawn_counts(0, 0, 2, strata) @ stats[:, 0]))
    True
    """
    stats = np.ascontiguousarray(stats, dtype=np.float64)
    return _kernel_sums(stats, np.asarray(strata, dtype=np.int64))


def threads(workers: int | None) -> int:
    """numba threads for ``workers`` (all of numba's threads when ``None``)."""
    cap = int(numba.config.NUMBA_NUM_THREADS)
    return cap if workers is None else max(1, min(int(workers), cap))


def _run_chunks(kernel: Callable[[int, int], np.ndarray], start: int, stop: int) -> np.ndarray:
    parts = [
        kernel(lo, min(lo + _CALL_REPLICATES, stop)) for lo in range(start, stop, _CALL_REPLICATES)
    ]
    return np.concatenate(parts) if parts else np.zeros((0,))


def chunk_runner(
    kernel: object, call: Callable[..., None], width: int | None = None, stream: str = "kernels"
) -> Runner:
    """A runner of ``kernel``'s replicates: ``call(lo, chunks, k0, k1, out)`` fills ``out``
    (shape ``(batch,)``, or ``(batch, width)``) with replicates ``lo ..`` on numba's threads
    in ``chunks`` pieces, keyed on ``stream``; the runner calls it in slices of
    ``_CALL_REPLICATES`` and says once when ``kernel`` must be compiled first.

    Examples
    --------
    >>> def call(lo, chunks, k0, k1, out):  # replicate b's value: b itself
    ...     out[:] = np.arange(lo, lo + out.shape[0])
    >>> run = chunk_runner(_count_draws, call)
    >>> run(0, 3, 6, False)[0].tolist()
    [3.0, 4.0, 5.0]
    """

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        k0, k1 = stream_key(seed, stream)
        _compile_notice(kernel)

        def chunk(lo: int, hi: int) -> np.ndarray:
            out = np.empty((hi - lo,) if width is None else (hi - lo, width))
            call(np.int64(lo), np.int64(min(hi - lo, 8 * numba.get_num_threads())), k0, k1, out)
            return out

        values = _run_chunks(chunk, start, stop)
        return (values if width is None else values.reshape(stop - start, width)), None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run


_noticed: set[str] = set()


def _cached(kernel: object) -> bool:
    """Whether numba's cache holds an index for this very kernel (module, line, Python)."""
    try:
        return os.path.exists(kernel._cache._cache_file._index_path)  # type: ignore[attr-defined]
    except AttributeError:  # another numba layout: look for any index of the kernel
        name = kernel.py_func.__name__  # type: ignore[attr-defined]
        return any(Path(cache_dir()).rglob(f"*kernels.{name}-*.nbi"))


def _compile_notice(kernel: object) -> None:
    """Say so, once, when a kernel is about to be compiled from scratch (the first use
    on this machine, or with caching off): it takes a few seconds, once."""
    name = kernel.py_func.__name__  # type: ignore[attr-defined]
    if name in _noticed or kernel.signatures:  # type: ignore[attr-defined]
        return
    _noticed.add(name)
    if _CACHE and _cached(kernel):
        return  # compiled before: numba loads it from the cache
    from .errors import LongRunWarning, warn

    where = (
        f"they are cached in {cache_dir()} for later runs"
        if _CACHE
        else "caching is off (BOOTEVAL_NUMBA_CACHE=0)"
    )
    warn(
        f"compiling booteval's numba kernel {name} for this machine (once, a few seconds); "
        + where,
        LongRunWarning,
    )


#: ``(seed, start, stop, want_se) -> (values, standard errors or None)``
Runner = Callable[[int, int, int, bool], tuple[np.ndarray, "np.ndarray | None"]]


def unshift(ev: object) -> tuple[float, object]:
    """``(shift, inner)`` of an evaluator that declares itself a shifted one (``kernel =
    "shifted"``: another evaluator's values plus a constant); ``(0, ev)`` for any other."""
    if getattr(ev, "kernel", None) == "shifted":
        return ev.shift, ev.inner  # type: ignore[attr-defined]
    return 0.0, ev


def _by_stratum(strata: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The units grouped by stratum (stable), and where each stratum's group starts (with
    the total at the end): stratum ``g`` is ``order[offsets[g]:offsets[g + 1]]``."""
    order = np.argsort(strata, kind="stable").astype(np.int64)
    return order, np.r_[0, np.cumsum(np.bincount(strata))].astype(np.int64)


def _design_units(design: object) -> tuple[np.ndarray, np.ndarray]:
    """A design's units grouped by stratum, and where each stratum starts (the layout
    :func:`_draw_units` draws from)."""
    return _by_stratum(np.asarray(design.unit_stratum, dtype=np.int64))  # type: ignore[attr-defined]


def _kernel_sums(
    stats: np.ndarray, strata: np.ndarray | None = None
) -> Callable[[int, int, int], np.ndarray]:
    """``(seed, start, stop) ->`` each replicate's weighted column sums of ``stats`` (rows
    drawn on the kernels stream; within each stratum where ``strata``, the stratum of each
    row, is given). The rows are prepared once, for every chunk of replicates.

    A column of ones (a count, e.g. the denominator of a mean) sums to the number of
    draws, exactly, in every replicate, so only the other columns are accumulated.
    """
    n, k = stats.shape
    ones = np.all(stats == 1.0, axis=0)
    drawn = np.ascontiguousarray(stats[:, ~ones]) if ones.any() else stats
    offsets = None
    if strata is not None:  # rows grouped by stratum, and where each group starts
        order, offsets = _by_stratum(strata)
    exact = _exact_product(drawn)
    if exact is not None:  # counts times statistics, one matrix product per block
        return _product_sums(drawn, exact, ones, order if strata is not None else None, offsets)
    if offsets is not None:
        drawn = np.ascontiguousarray(drawn[order])

    def sums(seed: int, start: int, stop: int) -> np.ndarray:
        k0, k1 = stream_key(seed)
        _compile_notice(_sum_kernel if offsets is None else _strata_sum_kernel)

        def kernel(lo: int, hi: int) -> np.ndarray:
            out = np.empty((hi - lo, drawn.shape[1]))
            if offsets is None:
                _sum_kernel(drawn, k0, k1, np.int64(lo), out)
            else:
                _strata_sum_kernel(drawn, offsets, k0, k1, np.int64(lo), out)
            return out

        if ones.all():
            return np.full((stop - start, k), float(n))
        part = _run_chunks(kernel, start, stop).reshape(stop - start, drawn.shape[1])
        if not ones.any():
            return part
        out = np.empty((stop - start, k))
        out[:, ~ones] = part
        out[:, ones] = float(n)
        return out

    return sums


#: the fewest drawn columns for which the counts' matrix product beats the sums kernel,
#: and the most rows (each block of replicates holds a ``(replicates, rows)`` count matrix)
_PRODUCT_COLUMNS = 16
_PRODUCT_ROWS = 1 << 20
#: count-matrix entries of one block of replicates (16 MiB of float32)
_PRODUCT_BLOCK = 1 << 22


def _exact_product(drawn: np.ndarray) -> type | None:
    """The float type in which ``counts @ drawn`` equals the sums kernel's sums to the last
    bit, where one does: integer statistics (0/1 outcomes, counts) whose every partial sum
    is an integer that float32 (below ``2**24``) or float64 (below ``2**53``) holds, so
    that any order of summation, the kernel's draw order or a BLAS product's, gives the
    same exact sum. ``None`` for other statistics, few columns or many rows (the kernel)."""
    n, k = drawn.shape
    if k < _PRODUCT_COLUMNS or n > _PRODUCT_ROWS or drawn.size == 0:
        return None
    with np.errstate(invalid="ignore"):
        top = float(np.max(np.abs(drawn)))
    if not np.isfinite(top) or not np.array_equal(drawn, np.round(drawn)):
        return None
    bound = n * max(top, 1.0)  # counts add up to the n draws: |partial sums| <= n * max|x|
    return np.float32 if bound < 2**24 else np.float64 if bound < 2**53 else None


def _product_sums(
    drawn: np.ndarray, dtype: type, ones: np.ndarray, order: np.ndarray | None,
    offsets: np.ndarray | None,
) -> Callable[[int, int, int], np.ndarray]:  # fmt: skip
    """:func:`_kernel_sums` as a matrix product: each block of replicates' counts (drawn as
    the kernels draw them) times the statistics, exact (:func:`_exact_product`)."""
    n, k = drawn.shape
    distinct, copy_of = _distinct_columns(drawn)  # e.g. x and x**2 of 0/1 outcomes
    stats = np.ascontiguousarray(drawn[:, distinct], dtype=dtype)
    perm = np.zeros(0, np.int64) if order is None else order
    edges = np.zeros(1, np.int64) if offsets is None else offsets
    rows = max(1, _PRODUCT_BLOCK // max(n, 1))

    def sums(seed: int, start: int, stop: int) -> np.ndarray:
        k0, k1 = stream_key(seed)
        _compile_notice(_count_matrix)
        part = np.empty((stop - start, k))

        def block(lo: int) -> None:  # counts, then their product with the statistics
            hi = min(lo + rows, stop)
            counts = np.empty((hi - lo, n), dtype=dtype)
            _count_matrix(perm, edges, k0, k1, np.int64(lo), counts)
            part[lo - start : hi - start] = (counts @ stats)[:, copy_of]

        starts = range(start, stop, rows)
        workers = min(numba.get_num_threads(), len(starts))  # the run's threads
        with one_blas_thread():  # each block's product on its own thread
            if workers == 1:
                for lo in starts:
                    block(lo)
            else:
                with ThreadPoolExecutor(workers) as pool:
                    list(pool.map(block, starts))
        if not ones.any():
            return part
        out = np.empty((stop - start, ones.shape[0]))
        out[:, ~ones] = part
        out[:, ones] = float(n)
        return out

    return sums


def _distinct_columns(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first of each set of equal columns of ``x``, and for every column the position
    of its equal among those (``x[:, distinct][:, copy_of]`` is ``x``)."""
    key = np.sin(1.618 * np.arange(1, x.shape[0] + 1)) @ x  # equal columns, equal keys
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    same = np.all(x == x[:, first[inverse]], axis=0)  # the keys' groups, checked
    distinct = np.sort(np.r_[first, np.flatnonzero(~same)])
    copy_of = np.searchsorted(distinct, np.where(same, first[inverse], np.arange(x.shape[1])))
    return distinct, copy_of


def sums_runner(stats: np.ndarray, values_of_sums: Callable[[np.ndarray], np.ndarray]) -> Runner:
    """A runner for any statistic of the column sums of dense per-row ``stats`` (rows
    drawn iid, on the stream of :func:`sum_runner`).

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 3.0, 4.0])
    >>> run = sums_runner(x[:, None], lambda sums: sums[:, 0] / 4)  # the mean
    >>> values, _ = run(0, 0, 2, False)  # seed 0, replicates 0 and 1
    >>> bool(values[1] == x[drawn_indices(0, 1, 4)].mean())
    True
    """
    sums_of = _kernel_sums(np.ascontiguousarray(stats, dtype=np.float64))

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        return np.asarray(values_of_sums(sums_of(seed, start, stop)), dtype=float), None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run


def sum_runner(ev: object, shift: float, strata: np.ndarray | None = None) -> Runner | str:
    """One sum metric's runner (``shift`` added to its values), rows drawn within ``strata``."""
    import scipy.sparse as sp

    if sp.issparse(ev.unit_stats):
        return "the compiled engine needs dense per-row statistics"
    k = ev.unit_stats.shape[1]
    plain = _kernel_sums(np.ascontiguousarray(ev.unit_stats, dtype=np.float64), strata)
    with_se = ev.se_by_sums  # the studentized interval's sums, prepared on first use
    prepared: dict[str, Callable[[int, int, int], np.ndarray]] = {}

    def run(
        seed: int, start: int, stop: int, want_se: bool
    ) -> tuple[np.ndarray, np.ndarray | None]:
        if want_se and with_se:
            if "se" not in prepared:
                se_stats = np.ascontiguousarray(ev.se_stats, dtype=np.float64)
                prepared["se"] = _kernel_sums(se_stats, strata)
            sums = prepared["se"](seed, start, stop)
        else:
            sums = plain(seed, start, stop)
        values = np.asarray(ev.from_sums(sums[:, :k]), dtype=float) + shift
        ses = None
        if want_se and with_se:
            ses = ev.se_from_sums(sums)
        return values, ses

    run.has_standard_error = with_se  # type: ignore[attr-defined]
    return run


def stacked_runner(parts: list[object], strata: np.ndarray | None = None) -> Runner | str:
    """Several sum metrics on shared resamples: one draw per replicate for all of them.

    The systems' per-row statistics sit side by side in one matrix, so replicate ``b``
    draws its rows once and every system's sums come from the same draws (the pairing of
    a comparison), with the stream of :func:`sum_runner`.
    """
    import scipy.sparse as sp

    shifts, evaluators = [], []
    for whole in parts:
        shift, part = unshift(whole)
        if getattr(part, "kernel", None) != "sums" or sp.issparse(part.unit_stats):
            return (
                "the compiled engine covers several systems only for metrics that are sums "
                "of dense per-row statistics"
            )
        shifts.append(shift)
        evaluators.append(part)
    if len({ev.unit_stats.shape[0] for ev in evaluators}) != 1:
        return "the compiled engine needs the systems on the same rows"
    widths = [ev.unit_stats.shape[1] for ev in evaluators]
    edges = np.r_[0, np.cumsum(widths)]
    with_se = all(ev.se_by_sums for ev in evaluators)  # each system's studentized sums
    prepared: list[tuple[Callable[[int, int, int], np.ndarray], np.ndarray]] = []
    plain: list[Callable[[int, int, int], np.ndarray]] = []  # prepared on first use

    def run(
        seed: int, start: int, stop: int, want_se: bool
    ) -> tuple[np.ndarray, np.ndarray | None]:
        values = np.empty((stop - start, len(evaluators)))
        if not (want_se and with_se):
            if not plain:
                stats = np.hstack([ev.unit_stats for ev in evaluators])
                plain.append(_kernel_sums(np.ascontiguousarray(stats, dtype=np.float64), strata))
            sums = plain[0](seed, start, stop)
            for j, (ev, shift) in enumerate(zip(evaluators, shifts, strict=True)):
                values[:, j] = np.asarray(ev.from_sums(sums[:, edges[j] : edges[j + 1]])) + shift
            return values, None
        if not prepared:  # every system's standard-error statistics, side by side
            blocks = [np.asarray(ev.se_stats, dtype=np.float64) for ev in evaluators]
            se_edges = np.r_[0, np.cumsum([b.shape[1] for b in blocks])]
            prepared.append(
                (_kernel_sums(np.ascontiguousarray(np.hstack(blocks)), strata), se_edges)
            )
        se_sums, se_edges = prepared[0]
        sums = se_sums(seed, start, stop)
        ses = np.empty_like(values)
        for j, (ev, shift) in enumerate(zip(evaluators, shifts, strict=True)):
            part = sums[:, se_edges[j] : se_edges[j + 1]]
            values[:, j] = np.asarray(ev.from_sums(part[:, : widths[j]]), dtype=float) + shift
            ses[:, j] = ev.se_from_sums(part)
        return values, ses

    run.has_standard_error = with_se  # type: ignore[attr-defined]
    return run
