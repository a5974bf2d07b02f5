"""Progress of long runs: one hook in the engine, reported per batch of replicates.

A run reports ``(done, total)`` replicates after each batch through :func:`report`. Who
listens is set for the calling thread (and its asyncio task) by :func:`reporting`, a
context variable, so concurrent runs in several threads report to their own listeners.
``progress=True`` on a public function prints to stderr (:func:`stderr_progress`); a
callable ``progress(done, total)`` receives the counts; the command line draws its bar
from the same reports.
"""

from __future__ import annotations

import functools
import inspect
import math
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .errors import InvalidInputError

__all__ = [
    "progress_option",
    "report",
    "reporter",
    "reporting",
    "resolve_progress",
    "stderr_progress",
]

Reporter = Callable[[int, int], None]

_listener: ContextVar[Reporter | None] = ContextVar("booteval_progress", default=None)


def stderr_progress(every: float = 2.0, unit: str = "resamples") -> Reporter:
    """A progress callback that prints ``done/total`` to stderr at most every ``every`` seconds.

    Examples
    --------
    >>> report = stderr_progress(every=5.0)  # report(done, total) prints "booteval: 3/10 ..."
    >>> callable(report)
    True
    """
    start = time.perf_counter()
    last = [-math.inf]

    def report(done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - last[0] < every:
            return
        last[0] = now
        el = now - start
        eta = el / done * (total - done) if done else math.nan
        print(
            f"booteval: {done}/{total} {unit} ({el:.1f} s elapsed"
            + (f", about {eta:.0f} s left)" if done < total else ")"),
            file=sys.stderr,
            flush=True,
        )

    return report


def resolve_progress(progress: Any, unit: str = "resamples") -> Reporter | None:
    """``None``/``False``: no reports; ``True``: :func:`stderr_progress`; a callable as is."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return stderr_progress(unit=unit)
    if callable(progress):
        return progress
    raise InvalidInputError(
        "progress", "None, True (a reporter on stderr) or a callable(done, total)", repr(progress)
    )


@contextmanager
def reporting(listener: Reporter | None) -> Iterator[None]:
    """Send the progress reports of runs in this context to ``listener`` (``None``: keep
    the current listener, e.g. the command line's bar)."""
    if listener is None:
        yield
        return
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def reporter() -> Reporter | None:
    """The listener of the calling context (read it in the thread that started the run)."""
    return _listener.get()


def report(listener: Reporter | None, done: int, total: int) -> None:
    """Tell ``listener`` (from :func:`reporter`) that ``done`` of ``total`` are finished."""
    if listener is not None:
        listener(done, total)


def progress_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Send the progress of the runs inside ``fn`` to the listener its ``progress=`` names.

    ``fn`` declares ``progress`` (keyword-only, default ``None``) and does not use it;
    put this decorator under ``validated``, which checks the value.
    """
    if "progress" not in inspect.signature(fn).parameters:
        raise TypeError(f"{fn.__name__} must declare a keyword-only `progress` parameter")

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with reporting(resolve_progress(kwargs.get("progress"))):
            return fn(*args, **kwargs)

    return wrapper
