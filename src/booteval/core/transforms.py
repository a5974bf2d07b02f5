"""Monotone transforms of a metric's scale, for intervals formed on another scale.

A :class:`Transform` maps the replicates (and, through its derivative, a standard error)
to a working scale and the interval's ends back. ``"logit"`` (continuity-corrected) is for
proportion-like metrics, ``"fisher"`` (``atanh``) for correlations, and
:func:`log_transform` for means of non-negative scores; a pair of callables gives any
other monotone map.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .errors import InvalidInputError

__all__ = ["TRANSFORMS", "Transform", "log_transform", "resolve_transform"]


@dataclass(frozen=True)
class Transform:
    """A monotone transform applied to every replicate before forming an interval.

    Attributes
    ----------
    name : str
    forward, inverse : callable
        Vectorized maps between the metric scale and the working scale.
    derivative : callable
        ``d forward / d x``, used to carry an analytic standard error across.
    """

    name: str
    forward: Callable[[np.ndarray], np.ndarray]
    inverse: Callable[[np.ndarray], np.ndarray]
    derivative: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class _Logit:
    """One map of the continuity-corrected logit for ``n`` rows (module-level, so that
    results holding it pickle): ``part`` is "forward", "inverse" or "derivative"."""

    k: float
    part: str

    def __call__(self, x: np.ndarray) -> np.ndarray:
        k = self.k
        if self.part == "inverse":
            return np.clip((expit(np.asarray(x, dtype=float)) * (k + 1.0) - 0.5) / k, 0.0, 1.0)
        q = (np.asarray(x, dtype=float) * k + 0.5) / (k + 1.0)
        if self.part == "forward":
            return np.log(q) - np.log1p(-q)
        return (k / (k + 1.0)) / (q * (1.0 - q))


def _logit_transform(n: int) -> Transform:
    k = float(n)
    return Transform(
        f"logit (continuity-corrected, n={n})",
        _Logit(k, "forward"),
        _Logit(k, "inverse"),
        _Logit(k, "derivative"),
    )


@dataclass(frozen=True)
class _Log:
    """``log(x + c)`` for a mean of non-negative scores (picklable)."""

    offset: float
    part: str

    def __call__(self, x: np.ndarray) -> np.ndarray:
        v = np.asarray(x, dtype=float)
        if self.part == "forward":
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.log(np.maximum(v, 0.0) + self.offset)
        if self.part == "inverse":
            return np.maximum(np.exp(v) - self.offset, 0.0)
        return 1.0 / (np.maximum(v, 0.0) + self.offset)


def log_transform(offset: float) -> Transform:
    """``log(x + offset)``: a mean of non-negative scores on the log scale, where its
    interval stays at or above 0; the offset keeps a replicate of 0 finite.

    Examples
    --------
    >>> t = log_transform(0.01)
    >>> float(t.inverse(t.forward(np.array([2.5])))[0])
    2.5
    """
    c = float(offset)
    return Transform(f"log (offset {c:.3g})", _Log(c, "forward"), _Log(c, "inverse"),
                     _Log(c, "derivative"))  # fmt: skip


_FISHER_EDGE = 1.0 - 1e-12


def _fisher_forward(r: np.ndarray) -> np.ndarray:
    return np.arctanh(np.clip(np.asarray(r, dtype=float), -_FISHER_EDGE, _FISHER_EDGE))


def _fisher_derivative(r: np.ndarray) -> np.ndarray:
    rr = np.clip(np.asarray(r, dtype=float), -_FISHER_EDGE, _FISHER_EDGE)
    return 1.0 / (1.0 - rr * rr)


def _fisher_transform() -> Transform:
    return Transform("fisher z", _fisher_forward, np.tanh, _fisher_derivative)


@dataclass(frozen=True)
class _NumericDerivative:
    """The central-difference derivative of a user's forward map (picklable when the map
    is)."""

    forward: Callable[[np.ndarray], np.ndarray]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        h = 1e-6 * np.maximum(1.0, np.abs(x))
        return (np.asarray(self.forward(x + h)) - np.asarray(self.forward(x - h))) / (2 * h)


TRANSFORMS: tuple[str, ...] = ("logit", "fisher")


def resolve_transform(transform: object, n: int) -> Transform | None:
    """Turn the user's ``transform=`` argument into a :class:`Transform`.

    Parameters
    ----------
    transform : None, "logit", "fisher", Transform or (forward, inverse)
        ``"logit"`` maps a proportion-like metric with the continuity
        correction ``p -> (p n + 0.5) / (n + 1)`` (for a proportion ``k / n``,
        ``(k + 0.5) / (n + 1)``), so replicates at 0 or 1 stay finite.
        ``"fisher"`` is ``atanh`` for correlations. A pair of vectorized
        callables ``(forward, inverse)`` supplies any other monotone map.
    n : int
        The sample size used by the logit continuity correction.

    Examples
    --------
    >>> t = resolve_transform("logit", n=10)
    >>> float(t.inverse(t.forward(np.array([0.3])))[0])
    0.3
    """
    if transform is None:
        return None
    if isinstance(transform, Transform):
        return transform
    if isinstance(transform, str):
        if transform == "logit":
            return _logit_transform(max(int(n), 1))
        if transform == "fisher":
            return _fisher_transform()
        raise InvalidInputError(
            "transform",
            f"one of {', '.join(repr(t) for t in TRANSFORMS)}, a Transform, or a pair of "
            "callables (forward, inverse)",
            repr(transform),
        )
    if isinstance(transform, tuple) and len(transform) == 2 and all(map(callable, transform)):
        fwd, inv = transform
        return Transform(getattr(fwd, "__name__", "custom"), fwd, inv, _NumericDerivative(fwd))
    raise InvalidInputError(
        "transform",
        "None, 'logit', 'fisher', a Transform, or a pair of callables (forward, inverse)",
        f"{type(transform).__name__}",
    )


# ------------------------------------------------------------------ outcomes
