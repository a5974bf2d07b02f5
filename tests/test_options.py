"""One options object (BootstrapOptions) on every resampling entry point."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import booteval
from booteval import BootstrapOptions

PUBLIC = {
    name: fn for name in booteval.__all__ if inspect.isfunction(fn := getattr(booteval, name))
}
RNG = np.random.default_rng(0)
Y = (RNG.random(80) < 0.5).astype(int)
A = np.where(RNG.random(80) < 0.8, Y, 1 - Y)
B = np.where(RNG.random(80) < 0.7, Y, 1 - Y)
X = RNG.random((6, 15))
Z = X + RNG.normal(0, 0.3, (6, 15))


def test_every_function_that_takes_a_seed_takes_options():
    for name, fn in PUBLIC.items():
        params = inspect.signature(fn).parameters
        if "seed" in params:
            assert "options" in params, name
            assert getattr(fn, "__booteval_options__", False), name


CALLS = {
    "ci": (lambda **k: booteval.ci(Y, A, metric="accuracy", **k)),
    "compare": (lambda **k: booteval.compare(Y, A, B, metric="accuracy", **k)),
    "leaderboard": (lambda **k: booteval.leaderboard({"a": A, "b": B}, y_true=Y,
                                                     metric="accuracy", **k)),
    "correlate": (lambda **k: booteval.correlate(X, Z, **k)),
    "permutation_test": (lambda **k: booteval.permutation_test(Y, A, B, metric="accuracy",
                                                               **k)),
    "threshold_ci": (lambda **k: booteval.threshold_ci(Y[:40], A[:40] * 0.5 + 0.2, Y[40:],
                                                       A[40:] * 0.5 + 0.2, **k)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CALLS))
def test_options_give_the_same_result_as_the_keywords(name):
    call = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        keywords = {"seed": 3}
        if name != "permutation_test":  # a test: no resamples, no interval
            keywords.update(n_resamples=300, confidence_level=0.9)
        direct = call(**keywords)
        via = call(options=BootstrapOptions(**keywords))
    assert via == direct


def test_an_option_the_function_does_not_take_is_refused_by_name():
    with pytest.raises(booteval.InvalidInputError, match=r"`options`.*engine='numba'.*correlate"):
        booteval.correlate(X, Z, options=BootstrapOptions(engine="numba"))


def test_the_same_option_twice_is_refused():
    with pytest.raises(booteval.InvalidInputError, match=r"`options`.*`seed`"):
        booteval.ci(Y, A, metric="accuracy", seed=1, options=BootstrapOptions(seed=2))


def test_options_must_be_an_options_object():
    with pytest.raises(booteval.InvalidInputError, match=r"`options`.*BootstrapOptions"):
        booteval.ci(Y, A, metric="accuracy", options={"seed": 1})


def test_option_values_get_the_keywords_checks():
    with pytest.raises(booteval.InvalidInputError, match=r"`confidence_level`"):
        booteval.ci(Y, A, metric="accuracy", options=BootstrapOptions(confidence_level=95))


def test_options_are_a_frozen_value_with_replace():
    opts = BootstrapOptions(n_resamples=500, seed=1)
    assert opts.replace(seed=2) == BootstrapOptions(n_resamples=500, seed=2)
    assert opts.given() == {"n_resamples": 500, "seed": 1}
    with pytest.raises(AttributeError):
        opts.seed = 3  # type: ignore[misc]
