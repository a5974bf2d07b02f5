"""Declared public parameters: one type and one normalising check per parameter name.

Every public entry point that takes one of the parameters below is decorated with
:func:`validated`, which normalises those arguments before the function runs, so a bad
value ends in the same :class:`~booteval.InvalidInputError` (naming the parameter, what
was expected and what was received) wherever it is passed. The command line checks its
options (``--confidence``, ``-B``, ``--seed``, ``--scale``, ``--digits``) with the same
table (:func:`normalise`), and ``tests/test_params.py`` tries bad values of every name in
it on every public function that takes it.

Checks that depend on other arguments (enough resamples for the confidence level, the
number of names for the number of systems) stay with the function; the table holds what
a parameter must be on its own.
"""

from __future__ import annotations

import functools
import inspect
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import InvalidInputError
from .format import check_digits, check_scale
from .validation import (
    MAX_RESAMPLES,
    check_choice,
    check_confidence_level,
    check_positive_int,
    check_resample_count,
    check_seed,
    describe_value,
)

#: the alternatives of every test and p-value: ``B - A`` differs, is larger, is smaller
ALTERNATIVES = ("two-sided", "greater", "less")
#: the tests of ``compare(test=...)``: the interval's own p-value, or a classical test
TESTS = ("bootstrap", "permutation", "mcnemar", "delong", "t")
#: the replicate engines: NumPy, the compiled kernels, or the kernels where they apply
ENGINES = ("numpy", "numba", "auto")
#: the resampling schemes of ``design=``: multinomial draws, or counter-based Poisson weights
RESAMPLING = ("multinomial", "poisson")

__all__ = ["PARAMETERS", "Parameter", "normalise", "renamed", "validated"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Parameter:
    """A public parameter: what it must be, and the check that normalises it."""

    expected: str
    check: Callable[[object], object]


def _seed(value: object) -> object:
    return None if value is None else check_seed(value)


def _optional_count(name: str) -> Callable[[object], int | None]:
    def check(value: object) -> int | None:
        return None if value is None else check_positive_int(value, name)

    return check


def _choice(name: str, choices: tuple[str, ...]) -> Callable[[object], str]:
    return lambda value: check_choice(value, name, choices)


def _mapping_or_none(name: str) -> Callable[[object], Mapping[str, Any] | None]:
    def check(value: object) -> Mapping[str, Any] | None:
        if value is not None and not isinstance(value, Mapping):
            raise InvalidInputError(
                name, "None or a dict of keyword arguments, e.g. {'average': 'macro'}",
                describe_value(value),
            )  # fmt: skip
        return value

    return check


def _progress(value: object) -> object:
    if value is None or isinstance(value, bool) or callable(value):
        return value
    raise InvalidInputError(
        "progress",
        "None, True (a reporter on stderr) or a callable(done, total)",
        describe_value(value),
    )


#: the declared public parameters, by name
PARAMETERS: dict[str, Parameter] = {
    "confidence_level": Parameter(
        "a number strictly between 0 and 1 (e.g. 0.95)", check_confidence_level
    ),
    "n_resamples": Parameter(f"an integer from 1 to {MAX_RESAMPLES:,}", check_resample_count),
    "seed": Parameter(
        "None, a non-negative integer, a numpy SeedSequence or a numpy Generator", _seed
    ),
    "batch": Parameter("None or an integer >= 1", _optional_count("batch")),
    "workers": Parameter("None or an integer >= 1", _optional_count("workers")),
    "engine": Parameter("'numpy', 'numba' or 'auto'", _choice("engine", ENGINES)),
    "design": Parameter("'multinomial' or 'poisson'", _choice("design", RESAMPLING)),
    "digits": Parameter("an integer from 0 to 20", check_digits),
    "scale": Parameter("a finite, non-zero number", check_scale),
    "on_undefined": Parameter("'drop' or 'raise'", _choice("on_undefined", ("drop", "raise"))),
    "alternative": Parameter(
        "'two-sided', 'greater' or 'less'",
        _choice("alternative", ALTERNATIVES),
    ),
    "metric_kwargs": Parameter("None or a dict", _mapping_or_none("metric_kwargs")),
    "progress": Parameter("None, a bool or a callable(done, total)", _progress),
}


def normalise(name: str, value: object) -> object:
    """``value`` checked and normalised as the declared parameter ``name``.

    Examples
    --------
    >>> normalise("confidence_level", 0.9)
    0.9
    >>> normalise("n_resamples", 0)
    Traceback (most recent call last):
    ...
    booteval.core.errors.InvalidInputError: `n_resamples`: expected an integer >= 1; received 0.
    """
    return PARAMETERS[name].check(value)


#: the documentation of shared parameters, written once: a docstring line ``{name}``,
#: alone and indented, becomes the parameter's numpydoc entry (see :func:`validated`)
SHARED_DOCS = {
    "progress": (
        "progress : None, True or callable, optional\n"
        "    ``True`` prints the replicates done to stderr every few seconds; a callable is\n"
        "    called as ``progress(done, total)`` after each batch of replicates."
    ),
    "design": (
        'design : {"multinomial", "poisson"}, default "multinomial"\n'
        '    ``"multinomial"``: each replicate draws the rows (or clusters, within strata)\n'
        '    with replacement. ``"poisson"``: every row (or cluster) gets an independent\n'
        "    Poisson(1) weight, a pure function of the seed, the row's position (or a hash of\n"
        "    the cluster label) and the replicate (:mod:`booteval.core.philox`). With\n"
        "    ``clusters=`` (stable ids; a row id for row-level resampling) the numbers do not\n"
        "    depend on how the rows are ordered or split into partitions. Replicate totals\n"
        "    vary. Not with ``strata`` or a studentized method."
    ),
    "engine": (
        'engine : {"auto", "numba", "numpy"}, default "auto"\n'
        "    As in :func:`booteval.ci`: the compiled kernels where they apply, else NumPy.\n"
        "    Where no compiled kernel covers this function's statistic or weights yet,\n"
        '    ``"numba"`` runs the NumPy engine and says so in ``notes``.'
    ),
}
_SHARED_DOC_LINE = re.compile(r"^([ \t]*)\{(" + "|".join(SHARED_DOCS) + r")\}[ \t]*$", re.M)


def fill_docs(doc: str | None) -> str | None:
    """``doc`` with each ``{name}`` line of :data:`SHARED_DOCS` replaced by its entry.

    Examples
    --------
    >>> print(fill_docs("Parameters\\n----------\\n{progress}").splitlines()[2])
    progress : None, True or callable, optional
    """
    if not doc:
        return doc

    def entry(match: re.Match[str]) -> str:
        indent = match.group(1)
        return "\n".join(indent + line for line in SHARED_DOCS[match.group(2)].splitlines())

    return _SHARED_DOC_LINE.sub(entry, doc)


def validated(fn: F | None = None, *, own: tuple[str, ...] = ()) -> Any:
    """Normalise ``fn``'s declared parameters (:data:`PARAMETERS`) on every call.

    The signature and name of ``fn`` are kept, and its docstring gets the shared entries
    (:func:`fill_docs`); the declared names it takes
    are listed in ``fn.__booteval_parameters__``. ``own`` names parameters that the
    function checks itself because it accepts more (``power``'s ``alternative`` also
    takes ``"one-sided"``).
    """
    if fn is None:
        return functools.partial(validated, own=own)
    inner: Any = fn
    while inner is not None:  # the wrapped functions too: documentation tools unwrap
        inner.__doc__ = fill_docs(inner.__doc__)
        inner = getattr(inner, "__wrapped__", None)
    signature = inspect.signature(fn)
    declared = tuple(n for n in signature.parameters if n in PARAMETERS and n not in own)
    if not declared:
        fn.__booteval_parameters__ = ()  # type: ignore[attr-defined]
        return fn

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)  # a wrong call is Python's TypeError
        for name in declared:
            if name in bound.arguments:
                bound.arguments[name] = PARAMETERS[name].check(bound.arguments[name])
        return fn(*bound.args, **bound.kwargs)

    wrapper.__booteval_parameters__ = declared  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def renamed(**aliases: str | tuple[str, Callable[[Any], Any]]) -> Callable[[F], F]:
    """Accept old keyword names for one release, with a ``FutureWarning``.

    ``aliases`` maps an old name to its new name, or to ``(new name, convert)`` where the
    old value needs converting (``n_jobs=-1``, joblib's "all cores", becomes a count of
    workers). Passing both names is an error naming the old one. Put it outside
    :func:`validated`, so the new name's check applies to the value.

    Examples
    --------
    >>> @renamed(n_jobs="workers")
    ... def run(*, workers=None):
    ...     return workers
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = run(n_jobs=2)
    >>> value, caught[0].category.__name__, str(caught[0].message)[:34]
    (2, 'FutureWarning', '`n_jobs` is renamed `workers` (the')
    """

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, target in aliases.items():
                if old not in kwargs:
                    continue
                new, convert = target if isinstance(target, tuple) else (target, None)
                if new in kwargs:
                    raise InvalidInputError(
                        old, f"`{new}` alone (`{old}` is its old name)", "both names"
                    )
                value = kwargs.pop(old)
                kwargs[new] = convert(value) if convert is not None else value
                warnings.warn(
                    f"`{old}` is renamed `{new}` (the same in every booteval function); the "
                    "old name will be removed in the next release",
                    FutureWarning,
                    stacklevel=2,
                )
            return fn(*args, **kwargs)

        wrapper.__booteval_renamed__ = {  # type: ignore[attr-defined]
            old: (t[0] if isinstance(t, tuple) else t) for old, t in aliases.items()
        }
        return wrapper  # type: ignore[return-value]

    return decorate
