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
    └── DegenerateIntervalWarning
        the interval method could not be applied as stated (constant
        replicates, a zero-variance jackknife, BCa levels beyond the extreme
        order statistics); the result's ``notes`` say what was done instead.
"""

from __future__ import annotations

__all__ = [
    "BootevalError",
    "BootevalWarning",
    "DegenerateIntervalWarning",
    "InvalidInputError",
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


class BootevalWarning(UserWarning):
    """Base class of booteval's warnings."""


class UndefinedReplicateWarning(BootevalWarning):
    """The metric was undefined on some bootstrap replicates."""


class DegenerateIntervalWarning(BootevalWarning):
    """An interval method hit a degenerate case and used a documented fallback."""
