"""One declared check per public parameter, applied at every public entry point first."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import booteval
from booteval.core.params import PARAMETERS, normalise
from conftest import public_api

PUBLIC = {name: obj for name, obj in public_api().items() if inspect.isfunction(obj)}

BAD = {
    "confidence_level": [95, 0, 1.0, float("nan"), "0.95", None, True],
    "n_resamples": [0, -5, 2.5, "1000", None, 10**12],
    "seed": [-1, 1.5, "7", True, [1, 2]],
    "batch": [0, -1, 1.5, "8"],
    "workers": [0, -2, 1.5, "4"],
    "engine": ["cuda", 1, None],
    "design": ["bayesian", 0, None],
    "digits": [-1, 21, 1.5, "2", None],
    "scale": [0, float("nan"), float("inf"), "100", None],
    "on_undefined": ["skip", None, 1],
    "alternative": ["two_sided", "bigger", None],
    "metric_kwargs": [["average", "macro"], "average=macro", 3],
    "progress": ["yes", 1, 2.5],
}


def test_every_declared_name_has_bad_values_to_try():
    assert set(BAD) == set(PARAMETERS)


def test_every_public_function_declares_the_parameters_it_takes():
    for name, fn in PUBLIC.items():
        takes = {p for p in inspect.signature(fn).parameters if p in PARAMETERS}
        declared = set(getattr(fn, "__booteval_parameters__", ()))
        # checked by the function itself, because it accepts more
        own = {"alternative"} if fn.__module__ == "booteval.inference.power" else set()
        own |= {"n_resamples"} if name == "ci" else set()  # also "auto"
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
        booteval.ci(np.ones(20), method="bca", n_resamples=100, seed=0)
    assert caught and all(w.filename == __file__ for w in caught)


def test_seed_takes_a_seed_sequence_or_a_generator_and_records_an_integer():
    x = np.random.default_rng(0).random(50)
    run = booteval.ci(x, seed=42, n_resamples=300)
    assert booteval.ci(x, seed=np.random.SeedSequence(42), n_resamples=300) == run
    a, b = np.random.SeedSequence(42).spawn(2)  # siblings must not share a stream
    ra, rb = (booteval.ci(x, seed=s, n_resamples=300) for s in (a, b))
    assert ra != rb and ra.seed != rb.seed
    assert booteval.ci(x, seed=ra.seed, n_resamples=300) == ra
    g = np.random.default_rng(5)
    rg = booteval.ci(x, seed=g, n_resamples=300)
    assert isinstance(rg.seed, int) and booteval.ci(x, seed=rg.seed, n_resamples=300) == rg
    assert booteval.ci(x, seed=np.random.default_rng(5), n_resamples=300) == rg
    entropy_list = np.random.SeedSequence([1, 2, 3])
    assert isinstance(booteval.ci(x, seed=entropy_list, n_resamples=300).seed, int)


def test_every_public_function_taking_a_seed_takes_a_generator():
    for name, fn in PUBLIC.items():
        if "seed" in inspect.signature(fn).parameters:
            assert "seed" in fn.__booteval_parameters__, name
            assert normalise("seed", np.random.default_rng(0)) == normalise(
                "seed", np.random.default_rng(0)
            )


def test_old_keyword_names_still_work_for_one_release_with_a_future_warning():
    X = np.random.default_rng(0).random((40, 2))
    y = (X[:, 0] > 0.5).astype(int)

    def fit(X, y):
        return float(np.median(X[:, 0]))

    def predict(m, X):
        return (X[:, 0] > m).astype(int)

    new = booteval.bootstrap_error_estimates(X, y, fit=fit, predict=predict, n_resamples=20, seed=1)
    with pytest.warns(FutureWarning, match="`n_bootstraps` is renamed `n_resamples`"):
        old = booteval.bootstrap_error_estimates(
            X, y, fit=fit, predict=predict, n_bootstraps=20, seed=1
        )
    assert old.oob.estimate == new.oob.estimate
    kw = dict(predict=predict, n_resamples=10, seed=2)
    base = booteval.bootstrap_training(fit, X[:20], y[:20], X[20:], y[20:], workers=1, **kw)
    with pytest.warns(FutureWarning, match="`n_jobs` is renamed `workers`"):
        again = booteval.bootstrap_training(fit, X[:20], y[:20], X[20:], y[20:], n_jobs=-1, **kw)
    assert np.array_equal(again.distribution, base.distribution)
    with pytest.raises(booteval.InvalidInputError, match="`n_jobs`"):
        booteval.bootstrap_training(fit, X[:20], y[:20], X[20:], y[20:], n_jobs=1, workers=1, **kw)


def test_one_spelling_per_concept_across_the_public_api():
    """Names that meant the same thing under several spellings now have one."""
    retired = {"n_jobs", "n_bootstraps", "test_strata", "test_clusters"}
    for name, fn in PUBLIC.items():
        assert not retired & set(inspect.signature(fn).parameters), name


def test_shared_parameter_docs_are_filled_in():
    from booteval.core.params import SHARED_DOCS

    for name, fn in PUBLIC.items():
        doc = fn.__doc__ or ""
        for key in SHARED_DOCS:
            assert "{" + key + "}" not in doc, (name, key)
        for key in ("progress", "engine"):
            if key in inspect.signature(fn).parameters:
                assert f"\n    {key} : " in doc or f", {key}" in doc or f" {key}," in doc, (
                    name,
                    key,
                )


def test_a_drawn_seed_is_short_and_repeats_the_run():
    x = np.random.default_rng(0).normal(size=50)
    r = booteval.ci(x, n_resamples=300)
    assert isinstance(r.seed, int) and 0 <= r.seed < 2**32
    again = booteval.ci(x, n_resamples=300, seed=r.seed)
    assert (again.low, again.high) == (r.low, r.high)
