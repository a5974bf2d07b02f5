"""The resampling loop: weight batches in, replicate values (and standard errors) out."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics.base import Evaluator
from .blas import one_blas_thread as _one_blas_thread
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
    "NO_KERNEL",
    "UNDEFINED_POLICIES",
    "UNDEFINED_WARN_FRACTION",
    "EngineRun",
    "RunOptions",
    "check_choice",
    "check_run_options",
    "compiled_runner",
    "compiled_with",
    "default_batch",
    "draw_key",
    "engine_note",
    "run_engine",
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
    methods: tuple[str, ...] = METHODS,
) -> RunOptions:  # fmt: skip
    """Validate the options every entry point shares (errors name the parameter);
    ``methods`` are the interval methods the entry point offers."""
    level = check_confidence_level(confidence_level)
    return RunOptions(
        confidence_level=level, n_resamples=check_n_resamples(n_resamples, level),
        seed=check_seed(seed), method=check_choice(method, "method", methods),
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


#: ``run_engine(kernel=NO_KERNEL)``: the statistic or weight source has no compiled kernel
NO_KERNEL = False


@dataclass(frozen=True)
class EngineRun:
    """What :func:`run_engine` returns.

    Attributes
    ----------
    values : ndarray
        The replicates, ``(B,)`` or ``(B, K)`` for several systems.
    standard_errors : ndarray or None
        Each replicate's standard error (``(B, K)`` for several systems) where asked, from
        the same draws as its value.
    notes : tuple of str
        Where ``engine="numba"`` was asked for and the NumPy engine ran, the note that says so.
    engine : str
        ``", numba engine"`` (to append to the design's description) or ``""``.
    key : object
        What was drawn (:func:`draw_key`).
    n_undefined : int
        How many replicates are undefined (a property).
    """

    values: np.ndarray
    standard_errors: np.ndarray | None
    notes: tuple[str, ...]
    engine: str
    key: object

    @property
    def n_undefined(self) -> int:
        """Replicates on which the statistic is undefined (any system's value not finite);
        the caller's policy (:func:`screen_undefined`) drops or refuses them."""
        finite = np.isfinite(self.values)
        return int(finite.size if finite.ndim == 1 else finite.shape[0]) - int(
            finite.sum() if finite.ndim == 1 else finite.all(axis=1).sum()
        )


def run_engine(
    evaluator: Evaluator | Any, source: Design | Any, opts: RunOptions | None = None, *,
    n_resamples: int | None = None, seed: int | None = None, engine: str | None = None,
    batch: int | None = None, workers: int | None = None, n_inner: int | None = None,
    want_se: bool = False, se_if_compiled: bool = False, kernel: Any = None,
    reuse: Callable[[object, bool], tuple[np.ndarray, np.ndarray | None] | None] | None = None,
    numpy_batch: int | None = None,
) -> EngineRun:  # fmt: skip
    """The one way into the engine: ``evaluator``'s replicates on the weight source
    ``source``, on the engine ``engine`` names.

    The run options come from ``opts`` (a :class:`RunOptions`), each overridden by its
    keyword where given. The compiled kernel is the one :func:`booteval.core.kernel_plan.plan`
    chooses from what the evaluator declares (``kernel=None``), the runner
    ``kernel(kernels)`` builds (an entry point's own kernel: the threshold refit, the
    crossed design, a multiplier fit), or none (``kernel=NO_KERNEL``); the NumPy engine
    runs where there is none, and the notes say so where ``engine="numba"`` asked for the
    kernels. ``want_se``: each replicate's standard error from the same draws (analytic,
    or a nested bootstrap of ``n_inner``); ``se_if_compiled``: the standard errors too
    where the compiled runner draws them, none otherwise (never a slower engine for them).
    ``reuse(key, want_se)``: replicates (and standard errors) another run drew with the
    same key (:func:`draw_key`), or ``None``: where given, nothing is drawn again.
    ``numpy_batch``: the batch where the NumPy engine runs (bounding its weight matrix;
    the compiled kernels, which form none, keep ``batch``).

    Examples
    --------
    >>> from booteval.core.design import make_design
    >>> from booteval.metrics import get_metric
    >>> plan = make_design(6)
    >>> ev = get_metric("mean").bind((np.arange(6.0),), plan)
    >>> run = run_engine(ev, plan, n_resamples=4, seed=0, engine="numpy")
    >>> run.values.shape, run.engine, run.notes, run.n_undefined
    ((4,), '', (), 0)
    """
    n_resamples = _option(n_resamples, opts, "n_resamples")
    seed, engine = _option(seed, opts, "seed"), _option(engine, opts, "engine", "auto")
    batch, workers = _option(batch, opts, "batch"), _option(workers, opts, "workers")
    n_inner = _option(n_inner, opts, "n_inner", 50)
    if kernel is None:
        compiled, note = compiled_runner(evaluator, source, engine, want_se=want_se)
        notes: tuple[str, ...] = (note,) if note else ()
    elif kernel is NO_KERNEL:
        compiled, notes = None, engine_note(engine, evaluator, source)
    else:
        compiled, note = compiled_with(engine, kernel)
        notes = (note,) if note else ()
    if se_if_compiled and not want_se:
        want_se = bool(getattr(compiled, "has_standard_error", False))
    key = draw_key(evaluator, source, compiled)
    found = reuse(key, want_se) if reuse is not None else None
    if compiled is None and numpy_batch is not None:
        batch = numpy_batch
    if found is not None:
        values, ses = found
    else:
        values, ses = run_replicates(
            evaluator, source, n_resamples, seed, batch, want_se=want_se, n_inner=n_inner,
            workers=workers, compiled=compiled,
        )  # fmt: skip
    ran = ", numba engine" if compiled is not None else ""
    return EngineRun(values, ses, notes, ran, key)


def _option(value: Any, opts: RunOptions | None, name: str, default: Any = None) -> Any:
    """``value``, else the options' own, else ``default``."""
    if value is not None:
        return value
    return getattr(opts, name) if opts is not None else default


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
#: and at most this many seconds of them, as the timed probe predicts
_CHUNK_SECONDS = 0.25


def _compiled_chunks(
    compiled: Any, seed: int, n_resamples: int, want_se: bool, listener: Any, n_threads: int,
    batch: int | None,
) -> tuple[np.ndarray, np.ndarray | None]:  # fmt: skip
    """The compiled runner over replicates ``0 .. n_resamples - 1`` in chunks (its
    per-replicate streams make the values the same as one call's): ``batch`` replicates
    each where given, otherwise about a twentieth of the run (so that progress moves),
    within ``[256, 8192]`` and of at most a quarter second by the second probe's timing,
    after two probes of 256."""
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
            if not batch:  # chunks of at most a quarter second: Ctrl-C is answered soon
                fit = int(_CHUNK_SECONDS / max(per_replicate, 1e-9))
                chunk = max(probe, min(chunk, fit))
        values.append(part)
        ses.append(part_se)
        report(listener, stop, n_resamples)
        start = stop
    return np.concatenate(values), (None if ses[0] is None else np.concatenate(ses))


#: one compiled run at a time: numba's fallback threading layer (workqueue, where neither
#: OpenMP nor TBB is available) aborts the process on concurrent parallel launches, and
#: each run already uses every thread it is given
_kernel_lock = threading.Lock()


def resolve_workers(workers: int | None) -> int:
    """Number of threads: ``workers``, or the machine's cores when ``None``."""
    if workers is None:
        return max(1, os.cpu_count() or 1)
    return max(1, int(workers))
