"""The resampling loop: weight batches in, replicate values (and standard errors) out."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics.base import Evaluator
from .design import Design
from .errors import (
    BootevalError,
    InvalidInputError,
    LongRunWarning,
    UndefinedReplicateWarning,
    warn,
)
from .intervals import METHODS
from .params import ENGINES
from .progress import report, reporter
from .streams import generator
from .validation import (
    check_choice,
    check_confidence_level,
    check_n_resamples,
    check_positive_int,
    check_seed,
)

__all__ = [
    "ENGINES",
    "UNDEFINED_POLICIES",
    "UNDEFINED_WARN_FRACTION",
    "RunOptions",
    "check_choice",
    "check_run_options",
    "compiled_runner",
    "compiled_with",
    "default_batch",
    "draw_key",
    "engine_note",
    "run_on_engine",
    "run_replicates",
    "screen_undefined",
]

UNDEFINED_POLICIES = ("drop", "raise")
# engines: "auto" (the default) runs the compiled kernels of booteval.core.kernels, with
# their own per-replicate streams, where one applies, else NumPy; "numba" asks for the
# kernels (a note where none applies); "numpy": PCG64 blocks of unit counts (booteval 0.1)

#: ``on_undefined="drop"`` warns when more than this fraction of replicates is undefined
UNDEFINED_WARN_FRACTION = 0.01


@dataclass(frozen=True)
class RunOptions:
    """The validated options shared by every bootstrap entry point."""

    confidence_level: float
    n_resamples: int
    seed: int
    method: str
    on_undefined: str
    bca_ties: str
    batch: int | None
    n_inner: int
    workers: int | None
    engine: str = "auto"


def check_run_options(
    *, confidence_level: object, n_resamples: object, seed: object, method: object,
    on_undefined: object = "drop", bca_ties: object = "half", batch: object = None,
    n_inner: object = 50, workers: object = None, engine: object = "auto",
) -> RunOptions:  # fmt: skip
    """Validate the options every entry point shares (errors name the parameter)."""
    level = check_confidence_level(confidence_level)
    return RunOptions(
        confidence_level=level, n_resamples=check_n_resamples(n_resamples, level),
        seed=check_seed(seed), method=check_choice(method, "method", METHODS),
        on_undefined=check_choice(on_undefined, "on_undefined", UNDEFINED_POLICIES),
        bca_ties=check_choice(bca_ties, "bca_ties", ("half", "below")),
        batch=None if batch is None else check_positive_int(batch, "batch"),
        n_inner=check_positive_int(n_inner, "n_inner", minimum=2),
        workers=None if workers is None else check_positive_int(workers, "workers"),
        engine=check_choice(engine, "engine", ENGINES),
    )  # fmt: skip


def screen_undefined(
    defined: np.ndarray,
    what: str,
    on_undefined: str,
    *,
    reason: str | None = None,
    hint: str = "",
) -> int:
    """Apply the undefined-replicate policy; return the number of undefined replicates.

    Parameters
    ----------
    defined : ndarray of bool, shape (B,)
    what : str
        What was undefined, for the messages (e.g. ``"metric 'roc_auc'"``).
    on_undefined : {"drop", "raise"}
    reason : str, optional
        The first error a callable raised.
    hint : str
        Appended to the warning.
    """
    b = defined.size
    n_undefined = int(b - defined.sum())
    if not n_undefined:
        return 0
    msg = f"{what} was undefined on {n_undefined} of {b} replicates" + (
        f" (first error: {reason})" if reason else ""
    )
    if on_undefined == "raise":
        raise BootevalError(msg + "; pass on_undefined='drop' to drop and count them.")
    if n_undefined == b:
        raise BootevalError(msg + ": no interval can be formed.")
    if n_undefined > UNDEFINED_WARN_FRACTION * b:
        warn(
            msg + "; they were dropped, so the interval is conditional on the metric being "
            "defined." + hint,
            UndefinedReplicateWarning,
            stacklevel=3,
        )
    return n_undefined


def default_batch(design: Design, n_resamples: int) -> int:
    """One generator block of replicates (about 8 MB of weights) per batch.

    Aligning batches with the design's blocks means no block is drawn twice.
    """
    return max(1, min(n_resamples, design.block_size))


def _inner_rng(seed: int, b: int) -> np.random.Generator:
    return generator("nested", seed, b)


def _kernels_for(engine: str) -> tuple[Any, str | None]:
    """:mod:`booteval.core.kernels` for an engine that may use it (``None`` for the NumPy
    engine). numba is a dependency of booteval: where it cannot be imported (a broken
    install) the compiled engines are an error, never a silent switch to other numbers."""
    if engine == "numpy":
        return None, None
    try:
        from . import kernels
    except ImportError as exc:
        raise InvalidInputError(
            "engine",
            "'numpy', or the compiled engine with numba (a dependency of booteval) importable",
            f"{engine!r}, but numba cannot be imported ({exc})",
            'Reinstall numba (pip install numba), or pass engine="numpy".',
        ) from None
    return kernels, None


def compiled_with(engine: str, build: Callable[[Any], Any]) -> tuple[object | None, str | None]:
    """``build(kernels)``, a compiled runner made from :mod:`booteval.core.kernels` (e.g.
    ``kernels.sums_runner(...)``), for an engine that may use it; ``None`` for the NumPy
    engine (an error where numba cannot be imported, as everywhere).

    Examples
    --------
    >>> compiled_with("numpy", lambda kernels: kernels.sums_runner)
    (None, None)
    >>> compiled_with("auto", lambda kernels: kernels.__name__)
    ('booteval.core.kernels', None)
    """
    kernels, note = _kernels_for(engine)
    if kernels is None:
        return None, note
    return build(kernels), None


def compiled_runner(
    evaluator: Evaluator, design: Design, engine: str, *, want_se: bool = False
) -> tuple[object | None, str | None]:
    """The compiled runner for ``engine="numba"``/``"auto"``, or ``None`` and why not.

    ``engine="numba"`` and ``"auto"`` raise :class:`InvalidInputError` when numba, a
    dependency, cannot be imported (falling back silently would change the numbers for
    the same seed). ``engine="numba"`` returns a note when there is no kernel for this
    case; ``engine="auto"`` (the default) takes the NumPy engine there, without a note
    (the result's design says which engine ran).
    """
    _kernels, note = _kernels_for(engine)
    if _kernels is None:
        return None, note
    if not isinstance(design, Design):
        return None, None if engine == "auto" else (
            "engine='numba' was requested, but the compiled engine has no kernel for this "
            "weight source: the NumPy engine was used"
        )
    from .kernel_plan import plan

    runner = plan(evaluator, design)
    if isinstance(runner, str):
        reason = runner
    elif want_se and not getattr(runner, "has_standard_error", False):
        reason = "the compiled engine has no nested bootstrap for a studentized interval"
    else:
        return runner, None
    if engine == "auto":
        return None, None
    return None, (
        f"engine='numba' was requested, but {reason}: the NumPy engine was used, whose "
        "replicates differ from the compiled engine's for the same seed"
    )


def draw_key(evaluator: Evaluator | Any, source: Design | Any, compiled: object | None) -> object:
    """What a run of ``evaluator`` on ``source`` draws, as a comparable key (``None``: not
    known to be shared with any other run).

    Two runs with equal keys, the same seed and the same ``B`` draw the same weights of
    the same units in every replicate, and so give the same values of a system that both
    evaluate: the NumPy engine's blocks of one units design (the evaluator's own, e.g.
    compressed cells, or the design's), or one compiled kernel family's draws of that
    design (the ``draws`` a runner of :func:`booteval.core.kernel_plan.plan` declares). Doors
    that evaluate several systems at once use it to take a system's replicates from their
    shared run exactly where :func:`booteval.ci` would draw the same.

    Examples
    --------
    >>> from booteval.core.design import make_design
    >>> from booteval.metrics import get_metric
    >>> plan = make_design(4)
    >>> ev = get_metric("mean").bind((np.array([0.1, 0.4, 0.2, 0.9]),), plan)
    >>> draw_key(ev, plan, None) == draw_key(ev, plan, None)
    True
    """
    if compiled is None:
        if isinstance(source, Design):
            return ("numpy", id(getattr(evaluator, "design", None) or source))
        units = getattr(source, "design", None)
        return None if units is None else ("numpy", type(source).__name__, id(units))
    draws = getattr(compiled, "draws", None)
    if draws is None or not isinstance(source, Design):
        return None
    return ("compiled", draws, id(getattr(evaluator, "design", None) or source))


def run_replicates(
    evaluator: Evaluator | Any, design: Design | Any, n_resamples: int, seed: int,
    batch: int | None, *, want_se: bool = False, n_inner: int = 50, workers: int | None = None,
    compiled: object | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:  # fmt: skip
    """All replicate values, and per-replicate standard errors when ``want_se``.

    ``design`` is the weight source: a :class:`~booteval.design.Design`, or any object
    with ``unit_weights(seed, start, stop)`` (the weights of replicates ``start .. stop -
    1``, the same whatever the batching) and ``block_size`` (wild multipliers, permutation
    swaps, the two-level threshold and nested-sample designs). ``evaluator`` turns a batch
    of weights into values (``estimate()`` gives their shape, ``replicates(weights)`` the
    values; ``has_standard_error``/``standard_errors`` and ``thread_safe`` as for metrics).
    Progress is reported per batch to the caller's listener (:mod:`booteval.core.progress`).

    Standard errors come from the evaluator's analytic formula where it has
    one, and otherwise from a nested bootstrap of ``n_inner`` resamples drawn
    from each replicate (seeded per replicate, so independent of ``batch``), of the
    evaluator's ``studentized_values(weights)`` where it has them (the difference of
    a pair whose ``replicates`` are both systems' values), else of its replicates.

    ``compiled`` is a runner from :func:`compiled_runner`: the replicates then
    come from the compiled kernels (on ``workers`` numba threads), whose
    per-replicate streams make them independent of ``batch`` and ``workers``.
    """
    listener = reporter()  # read here: worker threads do not see the caller's context
    if compiled is not None:
        import numba

        from .kernels import threads

        previous = numba.get_num_threads()
        n_threads = threads(workers)
        numba.set_num_threads(n_threads)  # for this thread only
        try:  # in chunks: progress, the long-run estimate and Ctrl-C between them
            with _kernel_lock:
                return _compiled_chunks(
                    compiled, seed, n_resamples, want_se, listener, n_threads, batch
                )
        finally:
            numba.set_num_threads(previous)
    if isinstance(design, Design):  # the evaluator's own (e.g. compressed) design
        design = evaluator.design or design
    size = batch or default_batch(design, n_resamples)
    # an evaluator of several systems returns (batch, K) values
    width = np.shape(evaluator.estimate())
    reps = np.empty((n_resamples, *width))
    ses = np.empty(n_resamples) if want_se else None
    # the statistic the nested bootstrap studentizes: the values themselves, or (for the
    # difference of a pair of systems) what the evaluator names
    inner_values = getattr(evaluator, "studentized_values", evaluator.replicates)

    def one_batch(start: int, stop: int | None = None) -> None:
        stop = min(start + size if stop is None else stop, n_resamples)
        weights = design.unit_weights(seed, start, stop)
        reps[start:stop] = evaluator.replicates(weights)
        if ses is None:
            return
        if evaluator.has_standard_error:
            ses[start:stop] = evaluator.standard_errors(weights)
            return
        for i, b in enumerate(range(start, stop)):
            inner = design.nested_unit_weights(weights[i], n_inner, _inner_rng(seed, b))
            values = inner_values(inner)
            values = values[np.isfinite(values)]
            ses[b] = np.std(values, ddof=1) if values.size >= 2 else np.nan

    # a short first batch, timed, so that a long run says so before it goes on (the
    # weights of replicate b do not depend on how the replicates are batched)
    probe = min(size, _PROBE_REPLICATES, n_resamples)
    started = time.perf_counter()
    one_batch(0, probe)
    report(listener, probe, n_resamples)
    per_replicate = (time.perf_counter() - started) / probe
    starts = range(probe, n_resamples, size)
    parallel = getattr(evaluator, "thread_safe", True)
    n_workers = min(resolve_workers(workers), len(starts)) if parallel else 1
    _announce(per_replicate * (n_resamples - probe) / max(n_workers, 1), n_resamples, n_workers)
    if n_workers <= 1:
        for start in starts:
            one_batch(start)
            report(listener, min(start + size, n_resamples), n_resamples)
        return reps, ses
    with _one_blas_thread():
        pool = ThreadPoolExecutor(max_workers=n_workers)
        futures = []
        try:  # submitting is inside: a Ctrl-C while queueing must cancel the queue too
            futures.extend(pool.submit(one_batch, start) for start in starts)
            for start, future in zip(starts, futures, strict=True):
                future.result()  # in order: the count reported only grows
                report(listener, min(start + size, n_resamples), n_resamples)
        finally:
            # on an error or Ctrl-C, queued batches are dropped at once; a batch
            # already running finishes in the background, its result unused
            pool.shutdown(wait=False, cancel_futures=True)
    return reps, ses


#: replicates in the timed first batch
_PROBE_REPLICATES = 64
#: runs estimated to take longer than this many seconds say so when they start
LONG_RUN_SECONDS = 60.0


def engine_note(
    engine: str, evaluator: Evaluator | Any = None, source: Design | Any = None
) -> tuple[str, ...]:
    """The note for ``engine`` where the replicates run on the NumPy engine only.

    For entry points whose statistic or weight source has no compiled kernel yet:
    ``engine="numba"`` gets the note that says the NumPy engine ran (and an error when
    numba is missing, as everywhere); ``"numpy"`` and ``"auto"`` get none.
    """
    if engine == "auto":
        return ()
    runner, note = compiled_runner(evaluator, source, engine)
    if runner is not None:  # pragma: no cover - a kernel here would need run_on_engine
        raise AssertionError("a compiled kernel exists: run it with run_on_engine")
    return (note,) if note else ()


def run_on_engine(
    evaluator: Evaluator | Any, source: Design | Any, opts: RunOptions, *, want_se: bool = False,
    workers: int | None = None, batch: int | None = None, se_if_compiled: bool = False,
) -> tuple[np.ndarray, np.ndarray | None, tuple[str, ...], str, object]:  # fmt: skip
    """:func:`run_replicates` on the engine ``opts.engine`` names.

    Returns the replicates, their standard errors (or ``None``), the notes, the
    engine that ran (``", numba engine"`` to append to the design's description, or
    ``""``), and the key of the draws (:func:`draw_key`). The compiled kernels run where
    ``opts.engine`` asks for them and they cover the evaluator and its weight source (see
    :func:`compiled_runner`); the notes say when
    ``engine="numba"`` was asked for and the NumPy engine ran. ``workers`` and ``batch``
    default to the options' own. ``se_if_compiled``: the standard errors too where the
    compiled runner draws them on the same draws (several systems: each system's), and
    none otherwise (never a slower engine for them).
    """
    compiled, note = compiled_runner(evaluator, source, opts.engine, want_se=want_se)
    if se_if_compiled and not want_se:
        want_se = bool(getattr(compiled, "has_standard_error", False))
    reps, ses = run_replicates(
        evaluator, source, opts.n_resamples, opts.seed,
        opts.batch if batch is None else batch, want_se=want_se, n_inner=opts.n_inner,
        workers=opts.workers if workers is None else workers, compiled=compiled,
    )  # fmt: skip
    ran = ", numba engine" if compiled is not None else ""
    return reps, ses, (note,) if note else (), ran, draw_key(evaluator, source, compiled)


def _announce(seconds: float, n_resamples: int, n_workers: int, compiled: bool = False) -> None:
    if seconds <= LONG_RUN_SECONDS:
        return
    minutes = seconds / 60.0
    when = f"{minutes:.1f} min" if minutes < 120 else f"{minutes / 60.0:.1f} h"
    faster = "are faster" if compiled else "or engine='numba' where it applies are faster"
    warn(
        f"this run will take about {when} ({n_resamples} resamples on {n_workers} "
        f"thread{'s' if n_workers > 1 else ''}); Ctrl-C stops it. Fewer resamples "
        f"(n_resamples=1000 for a first look) {faster}.",
        LongRunWarning,
        stacklevel=4,
    )


#: replicates of the compiled engine between two progress reports (after a timed probe)
_COMPILED_CHUNK = 8192


def _compiled_chunks(
    compiled: Any, seed: int, n_resamples: int, want_se: bool, listener: Any, n_threads: int,
    batch: int | None,
) -> tuple[np.ndarray, np.ndarray | None]:  # fmt: skip
    """The compiled runner over replicates ``0 .. n_resamples - 1`` in chunks (its
    per-replicate streams make the values the same as one call's): ``batch`` replicates
    each where given, otherwise about a twentieth of the run (so that progress moves),
    within ``[256, 8192]``, after two probes of 256."""
    values, ses = [], []
    probe = 4 * _PROBE_REPLICATES
    chunk = batch or min(max(n_resamples // 20, probe), _COMPILED_CHUNK)
    start = 0
    while start < n_resamples:
        # two probes: the first may include compiling the kernels, the second is timed
        stop = min(n_resamples, start + (probe if start < 2 * probe and not batch else chunk))
        began = time.perf_counter()
        part, part_se = compiled(seed, start, stop, want_se)
        if len(values) == 1:  # the second chunk, after any compiling, is timed
            per_replicate = (time.perf_counter() - began) / (stop - start)
            _announce(per_replicate * (n_resamples - stop), n_resamples, n_threads, True)
        values.append(part)
        ses.append(part_se)
        report(listener, stop, n_resamples)
        start = stop
    return np.concatenate(values), (None if ses[0] is None else np.concatenate(ses))


#: one compiled run at a time: numba's fallback threading layer (workqueue, where neither
#: OpenMP nor TBB is available) aborts the process on concurrent parallel launches, and
#: each run already uses every thread it is given
_kernel_lock = threading.Lock()

_blas_lock = threading.Lock()
_blas_state: dict[str, Any] = {"users": 0, "limiter": None}


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """One BLAS thread while our worker threads run (a process-wide setting).

    A multi-threaded BLAS inside each of our threads oversubscribes the cores
    (measured 1.6x slower on the integer-count products of text metrics). The
    limit is set by the first of any concurrent runs and lifted by the last, so
    that overlapping runs from several user threads restore the original setting.
    """
    with _blas_lock:
        if _blas_state["users"] == 0:
            from threadpoolctl import threadpool_limits

            _blas_state["limiter"] = threadpool_limits(limits=1, user_api="blas")
        _blas_state["users"] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_state["users"] -= 1
            if _blas_state["users"] == 0:
                _blas_state["limiter"].restore_original_limits()
                _blas_state["limiter"] = None


def resolve_workers(workers: int | None) -> int:
    """Number of threads: ``workers``, or the machine's cores when ``None``."""
    if workers is None:
        return max(1, os.cpu_count() or 1)
    return max(1, int(workers))
