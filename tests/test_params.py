"""One declared check per public parameter, applied at every public entry point first."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import booteval
from booteval._params import PARAMETERS, normalise

PUBLIC = {
    name: obj for name in booteval.__all__ if inspect.isfunction(obj := getattr(booteval, name))
}

BAD = {
    "confidence_level": [95, 0, 1.0, float("nan"), "0.95", None, True],
    "n_resamples": [0, -5, 2.5, "1000", None, 10**12],
    "seed": [-1, 1.5, "7", True, [1, 2]],
    "batch": [0, -1, 1.5, "8"],
    "workers": [0, -2, 1.5, "4"],
    "digits": [-1, 21, 1.5, "2", None],
    "scale": [0, float("nan"), float("inf"), "100", None],
    "on_undefined": ["skip", None, 1],
    "alternative": ["two_sided", "bigger", None],
    "metric_kwargs": [["average", "macro"], "average=macro", 3],
}


def test_every_declared_name_has_bad_values_to_try():
    assert set(BAD) == set(PARAMETERS)


def test_every_public_function_declares_the_parameters_it_takes():
    for name, fn in PUBLIC.items():
        takes = {p for p in inspect.signature(fn).parameters if p in PARAMETERS}
        declared = set(getattr(fn, "__booteval_parameters__", ()))
        own = {"alternative"} if fn.__module__ == "booteval.power" else set()
        assert takes - own == declared, name


CASES = [
    (name, param, value)
    for name, fn in sorted(PUBLIC.items())
    for param in getattr(fn, "__booteval_parameters__", ())
    for value in BAD[param]
]


@pytest.mark.parametrize(("name", "param", "value"), CASES, ids=repr)
def test_a_bad_declared_value_is_refused_first_naming_it(name, param, value):
    fn = PUBLIC[name]
    signature = inspect.signature(fn)
    # junk for every required argument: the declared check must come before any other
    junk = object()
    args, kwargs = [], {}
    for p in signature.parameters.values():
        if p.name == param:
            continue
        if p.kind is p.VAR_POSITIONAL:
            args.append(junk)
        elif p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(junk)
        elif p.default is p.empty:
            kwargs[p.name] = junk
    kwargs[param] = value
    with pytest.raises(booteval.InvalidInputError) as info:
        fn(*args, **kwargs)
    assert info.value.parameter == param


def test_the_same_value_gets_the_same_message_everywhere():
    messages = set()
    for fn in PUBLIC.values():
        if "confidence_level" in getattr(fn, "__booteval_parameters__", ()):
            with pytest.raises(booteval.InvalidInputError) as info:
                fn(*[object()] * _required(fn), confidence_level=95)
            messages.add(str(info.value))
    assert len(messages) == 1
    assert "Did you mean 0.95?" in messages.pop()


def _required(fn) -> int:
    return sum(
        1
        for p in inspect.signature(fn).parameters.values()
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ) + any(p.kind is p.VAR_POSITIONAL for p in inspect.signature(fn).parameters.values())


def test_good_values_pass_through_normalised():
    assert normalise("n_resamples", np.int64(500)) == 500
    assert type(normalise("n_resamples", np.int64(500))) is int
    assert normalise("seed", None) is None
    assert normalise("confidence_level", np.float32(0.5)) == 0.5
    assert normalise("metric_kwargs", {"average": "macro"}) == {"average": "macro"}


def test_decorated_functions_keep_their_signature_and_docs():
    assert "confidence_level" in str(inspect.signature(booteval.ci))
    assert booteval.ci.__name__ == "ci" and "Parameters" in booteval.ci.__doc__


def test_warnings_point_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        booteval.ci(np.ones(20), n_resamples=100, seed=0)
    assert caught and all(w.filename == __file__ for w in caught)
