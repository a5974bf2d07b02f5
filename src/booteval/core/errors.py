"""Exceptions and warnings raised by booteval.

The hierarchy::

    BootevalError (Exception)
    └── InvalidInputError (BootevalError, ValueError)
        raised at the public boundary when an argument is malformed; the message
        names the parameter, what was expected and what was received.

    BootevalWarning (UserWarning)
    ├── UndefinedReplicateWarning
    │   the metric was undefined (NaN) on some bootstrap replicates; they were
    │   dropped and counted in ``result.n_undefined``.
    ├── DegenerateIntervalWarning
    │   the interval method could not be applied as stated (constant
    │   replicates, a zero-variance jackknife, BCa levels beyond the extreme
    │   order statistics); the result's ``notes`` say what was done instead.
    └── LongRunWarning
        the run is estimated (from its first replicates) to take more than a
        minute; said when it starts, so that it can be stopped early.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = [
    "BootevalError",
    "BootevalWarning",
    "DegenerateIntervalWarning",
    "InvalidInputError",
    "LongRunWarning",
    "UndefinedReplicateWarning",
]


class BootevalError(Exception):
    """Base class of every exception booteval raises on purpose."""


class InvalidInputError(BootevalError, ValueError):
    """An argument does not meet the documented expectations.

    Parameters
    ----------
    parameter : str
        Name of the offending parameter, as the user spelled it.
    expected : str
        What was expected.
    received : str
        What was received (a short description, not the whole value).
    hint : str, optional
        The likely cause or the fix.
    """

    def __init__(self, parameter: str, expected: str, received: str, hint: str = "") -> None:
        self.parameter = parameter
        self.expected = expected
        self.received = received
        self.hint = hint
        msg = f"`{parameter}`: expected {expected}; received {received}."
        if hint:
            msg += f" {hint}"
        super().__init__(msg)

    def __reduce__(self) -> tuple:
        # rebuilt from its four fields, so that it crosses process boundaries (an error
        # raised in a worker of a process pool reaches the caller as itself)
        return type(self), (self.parameter, self.expected, self.received, self.hint)


class BootevalWarning(UserWarning):
    """Base class of booteval's warnings."""


class UndefinedReplicateWarning(BootevalWarning):
    """The metric was undefined on some bootstrap replicates."""


class DegenerateIntervalWarning(BootevalWarning):
    """An interval method hit a degenerate case and used a documented fallback."""


class SmallSampleWarning(BootevalWarning):
    """Too few independent units for the interval method to hold its level; the message
    names one that does better (from the coverage atlas and simulations)."""


class LongRunWarning(BootevalWarning):
    """The run is estimated to take more than a minute (said when it starts)."""


# ------------------------------------------------------------ thread-safe warnings
@dataclass(frozen=True)
class CaughtWarning:
    """A warning held back by :func:`collect_warnings` (``message``, ``category``)."""

    message: str | Warning
    category: type[Warning]


_sink: ContextVar[list[CaughtWarning] | None] = ContextVar("booteval_warning_sink", default=None)


def warn(message: str | Warning, category: type[Warning], stacklevel: int = 1) -> None:
    """``warnings.warn`` for booteval's own warnings, which :func:`collect_warnings` can hold.

    The warning is attributed to the first caller outside booteval (the user's line),
    however many of booteval's frames lie between (decorators, helpers); ``stacklevel``,
    counted from the caller of this function as for ``warnings.warn``, is used only when
    no such frame exists.
    """
    sink = _sink.get()
    if sink is not None:
        sink.append(CaughtWarning(message, category))
        return
    warnings.warn(message, category, stacklevel=_user_stacklevel() or stacklevel + 1)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_stacklevel() -> int | None:
    """The ``stacklevel`` (for a ``warnings.warn`` in :func:`warn`) of the first frame
    outside the booteval package, or None."""
    frame = sys._getframe(2)  # the caller of warn()
    level = 2
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            return level
        frame = frame.f_back
        level += 1
    return None


@contextmanager
def collect_warnings() -> Iterator[list[CaughtWarning]]:
    """Hold back booteval's warnings raised in this context, to re-warn them elsewhere.

    Unlike ``warnings.catch_warnings``, this touches no process-wide state
    (the warning filters and ``showwarning`` stay as they are), so runs in several
    threads at once neither lose warnings nor change the user's filters. The
    sink is a context variable: each thread (and asyncio task) has its own.

    Examples
    --------
    >>> with collect_warnings() as caught:
    ...     warn("held back", BootevalWarning)
    >>> [str(w.message) for w in caught]
    ['held back']
    """
    sink: list[CaughtWarning] = []
    token = _sink.set(sink)
    try:
        yield sink
    finally:
        _sink.reset(token)
