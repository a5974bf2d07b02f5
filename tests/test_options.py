"""One options object (BootstrapOptions) on every resampling entry point."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import booteval
from booteval import BootstrapOptions
from conftest import public_api

PUBLIC = {name: fn for name, fn in public_api().items() if inspect.isfunction(fn)}
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
    with pytest.raises(booteval.InvalidInputError, match=r"`options`.*batch=10.*correlate"):
        booteval.correlate(X, Z, options=BootstrapOptions(batch=10))


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


# ----------------------------------------------------------- the shared keywords
#: the run options every resampling entry point takes, with the one default they share
SHARED = {
    "n_resamples": 10_000,
    "seed": None,
    "confidence_level": 0.95,
    "method": "bca",
    "strata": None,
    "clusters": None,
    "batch": None,
    "workers": None,
    "engine": "auto",
    "on_undefined": "drop",
    "progress": None,
}
#: functions with a seed that are not resampling entry points
NOT_RESAMPLING = {
    "simulate_correlation_coverage": "a simulation study of correlation intervals",
    "nested_cv_interval": "an interval from cross-validation folds, not from resamples",
    "oob_ensemble_extrapolation": "extrapolates out-of-bag errors of a fitted ensemble",
    "bootstrap_error_estimates": ".632/.632+ point estimates from refits of the user's model",
}
#: keywords an entry point does not take, and why
NOT_TAKEN = {
    "bootstrap_training": ({"batch", "on_undefined"},
        "each replicate is one refit run by joblib; failed refits are counted in n_failed"),
    "correlate": ({"strata", "clusters", "batch", "on_undefined"},
        "the crossed systems x inputs design is chosen by resample=; undefined "
        "correlations are always dropped and counted"),
    "compare_correlations": ({"strata", "clusters", "batch", "on_undefined"}, "as correlate"),
    "correlate_metrics": ({"strata", "clusters", "batch", "on_undefined"}, "as correlate"),
    "pass_at_k": ({"strata", "on_undefined"},
        "problems are the units (clusters group them); a per-problem value is always defined"),
    "compare_pass_at_k": ({"strata", "on_undefined"}, "as pass_at_k"),
    "majority_vote_at_k": ({"strata", "on_undefined"}, "as pass_at_k"),
    "nested_ci": ({"strata", "on_undefined"}, "as pass_at_k"),
    "multilabel_ci": ({"strata", "clusters"}, "resample= picks instances or labels"),
    "permutation_test": ({"confidence_level", "method", "on_undefined"},
        "a test, not an interval: n_resamples counts its swaps, and undefined swaps "
        "are always left out and counted"),
    "threshold_ci": ({"strata", "clusters"},
        "strata_val/clusters_val and strata_test/clusters_test design the two sets"),
    "threshold_compare": ({"strata", "clusters"}, "as threshold_ci"),
    "wild_ci": ({"strata", "clusters"},
        "multipliers on the rows of a regression; the clustered version is wild_cluster_ci"),
    "judge_corrected_ci": ({"strata", "on_undefined", "batch", "workers", "engine", "progress"},
        "PPI++: two independent samples (labelled, unlabelled), a closed form by default and a "
        "vectorised NumPy bootstrap; no replicate is ever undefined"),
    "judge_corrected_compare": ({"strata", "on_undefined", "batch", "workers", "engine",
                                 "progress"}, "as judge_corrected_ci"),
    "wild_cluster_ci": ({"method", "strata", "on_undefined"},
        "always the percentile-t interval of the cluster t statistic, whose infinite "
        "values are kept and counted"),
}  # fmt: skip
#: defaults that differ from SHARED because the statistics ask for it (the docstring says why)
OWN_DEFAULTS = {
    ("ci", "method"): "auto",  # the coverage atlas's best calibrated method for the case
    ("compare", "method"): "auto",
    ("leaderboard", "method"): "auto",
    # one question per item, answered as ci answers it (the command line's numbers)
    ("nested_ci", "method"): "auto",
    ("pass_at_k", "method"): "auto",
    ("compare_pass_at_k", "method"): "auto",
    ("majority_vote_at_k", "method"): "auto",
    ("judge_corrected_ci", "method"): "auto",  # the normal interval, the bootstrap below 30
    ("judge_corrected_compare", "method"): "auto",
    ("bootstrap_training", "n_resamples"): 200,  # every replicate refits the model
    ("bootstrap_training", "method"): "percentile",  # a BCa jackknife would refit n times
    ("threshold_ci", "n_resamples"): 2_000,  # every replicate refits the threshold
    ("threshold_ci", "method"): "percentile",
    ("threshold_compare", "n_resamples"): 2_000,
    ("threshold_compare", "method"): "percentile",
    ("wild_ci", "n_resamples"): 2_000,  # a callable fit refits per replicate
    ("wild_ci", "method"): "percentile",
    ("wild_cluster_ci", "n_resamples"): 9_999,  # (B + 1) * alpha / 2 whole for t quantiles
    ("wild_cluster_ci", "clusters"): inspect.Parameter.empty,  # the design itself
    ("pool_seeds", "method"): "t",  # seed and data variance combined (Satterthwaite df)
    ("compare_methods", "method"): "t",
    ("correlate", "method"): "percentile",  # meta-evaluation's usual bootstrap interval
    ("correlate_metrics", "method"): "percentile",
    ("compare_correlations", "method"): "percentile",
}


def test_every_resampling_entry_point_takes_the_shared_keywords_with_one_default():
    entry_points = {
        name: fn
        for name, fn in PUBLIC.items()
        if "seed" in inspect.signature(fn).parameters and name not in NOT_RESAMPLING
    }
    assert {"ci", "compare", "leaderboard", "threshold_ci", "correlate"} <= set(entry_points)
    for name, fn in entry_points.items():
        params = inspect.signature(fn).parameters
        skipped, _why = NOT_TAKEN.get(name, (set(), ""))
        assert skipped <= set(SHARED), name
        missing = {key for key in SHARED if key not in params}
        assert missing == skipped, (name, missing ^ skipped)
        for key, default in SHARED.items():
            if key in params:
                expected = OWN_DEFAULTS.get((name, key), default)
                assert params[key].default == expected, (name, key, params[key].default)
                if expected is not inspect.Parameter.empty:  # a required argument may be positional
                    assert params[key].kind is inspect.Parameter.KEYWORD_ONLY, (name, key)
    assert set(NOT_TAKEN) <= set(entry_points) and {n for n, _ in OWN_DEFAULTS} <= set(entry_points)
