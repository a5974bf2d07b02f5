"""One options object for every resampling entry point.

:class:`BootstrapOptions` holds the run options that the resampling functions share, so a
study can set them once and pass them everywhere::

    opts = booteval.BootstrapOptions(n_resamples=5_000, seed=2024, confidence_level=0.9)
    booteval.ci(y, p, metric="f1", options=opts)
    booteval.compare(y, a, b, metric="f1", options=opts)
    booteval.correlate(X, Z, options=opts)

A field left at ``None`` means "the function's own default". A field that is set must be
a keyword the function takes, or the call is refused naming the option (``engine`` on a
function without a compiled engine is an error, not ignored); a keyword given both
directly and in ``options`` is refused too. Each value is then checked by the function
exactly as the keyword would be.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import InvalidInputError
from .params import validated
from .progress import progress_option

__all__ = ["BootstrapOptions", "accepts_options", "entry_point"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class BootstrapOptions:
    """Run options shared by the resampling functions (``None``: the function's default).

    Parameters
    ----------
    n_resamples : int, optional
        Bootstrap replicates (``B``).
    seed : int, SeedSequence or Generator, optional
    confidence_level : float, optional
    method : str, optional
        The interval method (``"bca"``, ``"percentile"``, ...; what the function offers).
    strata, clusters : array-like, optional
        The resampling design.
    batch : int, optional
        Replicates per batch (bounds memory; never changes the result).
    workers : int, optional
        Threads (never change the result).
    engine : str, optional
        ``"auto"``, ``"numba"`` or ``"numpy"`` (see :func:`booteval.ci`).
    on_undefined : str, optional
        ``"drop"`` or ``"raise"``.
    progress : bool or callable, optional
        ``True`` reports to stderr; a callable gets ``(done, total)`` per batch.

    Examples
    --------
    >>> import booteval
    >>> opts = booteval.BootstrapOptions(n_resamples=2000, seed=0, method="percentile")
    >>> scores = [0.7, 0.9, 0.8, 0.6, 0.95, 0.85, 0.75, 0.9]
    >>> booteval.ci(scores, options=opts) == booteval.ci(
    ...     scores, n_resamples=2000, seed=0, method="percentile")
    True
    >>> opts.replace(seed=1).seed
    1
    """

    n_resamples: int | None = None
    seed: Any = None
    confidence_level: float | None = None
    method: str | None = None
    strata: Any = None
    clusters: Any = None
    batch: int | None = None
    workers: int | None = None
    engine: str | None = None
    on_undefined: str | None = None
    progress: Any = None

    def replace(self, **changes: Any) -> BootstrapOptions:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def given(self) -> dict[str, Any]:
        """The fields that are set (not ``None``)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not None
        }


def accepts_options(fn: F) -> F:
    """Let ``fn`` take ``options=BootstrapOptions(...)`` (put it above ``validated``)."""
    takes = set(inspect.signature(fn).parameters)
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: Any, options: BootstrapOptions | None = None, **kwargs: Any) -> Any:
        if options is None:
            return fn(*args, **kwargs)
        if not isinstance(options, BootstrapOptions):
            raise InvalidInputError(
                "options", "None or a booteval.BootstrapOptions", type(options).__name__
            )
        for key, value in options.given().items():
            if key not in takes:
                raise InvalidInputError(
                    "options",
                    f"only options that {name} takes",
                    f"{key}={value!r}",
                    f"{name} has no `{key}`; leave it None in the options passed here.",
                )
            if key in kwargs:
                raise InvalidInputError(
                    "options", f"`{key}` either as a keyword or in options", "both"
                )
            kwargs[key] = value
        return fn(*args, **kwargs)

    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    extra = inspect.Parameter(
        "options", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="BootstrapOptions"
    )
    where = len(params) - (1 if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD else 0)
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*params[:where], extra, *params[where:]]
    )
    wrapper.__booteval_options__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def entry_point(fn: F | None = None, *, own: tuple[str, ...] = ()) -> Any:
    """The decorators of a resampling entry point, in their order: ``options=``
    (:func:`accepts_options`), the declared parameters checked (:func:`validated`, with
    ``own`` as there) and ``progress=`` reported (:func:`progress_option`).

    Examples
    --------
    >>> @entry_point
    ... def draws(*, n_resamples=100, seed=None, progress=None):
    ...     return n_resamples, seed
    >>> draws(options=BootstrapOptions(n_resamples=500), seed=3)
    (500, 3)
    >>> draws(n_resamples=0)
    Traceback (most recent call last):
    ...
    booteval.core.errors.InvalidInputError: `n_resamples`: expected an integer >= 1; received 0.
    """
    if fn is None:
        return functools.partial(entry_point, own=own)
    return accepts_options(validated(own=own)(progress_option(fn)))
