"""Inputs that used to end in a raw Python exception or a misleading number now end in a
booteval error naming the parameter, or in a result whose notes say what is wrong."""

from __future__ import annotations

import numpy as np
import pytest

import booteval

S = np.linspace(0.0, 1.0, 30)
Y = (S > 0.5).astype(int)
RUN = {"n_resamples": 200, "seed": 0}


@pytest.mark.parametrize(
    ("func", "says"),
    [
        (lambda x: np.array([1.0, 2.0]), "an array of shape (2,)"),
        (lambda x: None, "NoneType None"),
        (lambda x: "abc", "str 'abc'"),
        (lambda x: True, "bool True"),
    ],
)
def test_callable_metric_returning_not_a_number(func, says):
    with pytest.raises(booteval.InvalidInputError, match="`metric`") as info:
        booteval.ci(S, metric=func, **RUN)
    assert says in str(info.value)


def test_callable_metric_returning_numpy_scalars_is_fine():
    a = booteval.ci(S, metric=lambda x: np.mean(x), **RUN)
    b = booteval.ci(S, metric=lambda x: np.array([np.mean(x)]), **RUN)
    assert a.estimate == b.estimate == pytest.approx(0.5)


@pytest.mark.parametrize("kwargs", [["average"], "macro", ("average", "macro")])
def test_metric_kwargs_must_be_a_mapping(kwargs):
    with pytest.raises(booteval.InvalidInputError, match="`metric_kwargs`"):
        booteval.ci(Y, Y, metric="f1", metric_kwargs=kwargs, **RUN)


@pytest.mark.parametrize("names", [("a",), ("a", "b", "c"), "ab", ("a", "a"), ("a\nb", "c"), None])
def test_compare_names(names):
    with pytest.raises(booteval.InvalidInputError, match="`names`"):
        booteval.compare(S, S[::-1], names=names, **RUN)


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"scale": "100"}, "scale"),
        ({"scale": float("nan")}, "scale"),
        ({"scale": 0}, "scale"),
        ({"scale": True}, "scale"),
        ({"digits": -1}, "digits"),
        ({"digits": 2.5}, "digits"),
        ({"digits": "2"}, "digits"),
        ({"digits": 10**6}, "digits"),
    ],
)
def test_format_arguments(kwargs, parameter):
    r = booteval.ci(S, **RUN)
    for render in (r.format, r.describe):
        with pytest.raises(booteval.InvalidInputError, match=f"`{parameter}`"):
            render(**kwargs)


def test_threshold_rule_returning_a_string():
    with pytest.raises(booteval.InvalidInputError, match="`rule`") as info:
        booteval.threshold_ci(Y, S, Y, S, rule=lambda y, s, w: "abc", metric="f1", **RUN)
    assert "returned 'abc'" in str(info.value)


def test_non_monotone_transform_is_refused():
    with pytest.raises(booteval.InvalidInputError, match="`transform`") as info:
        booteval.ci(S, transform=(lambda x: np.sin(20 * x), lambda x: np.arcsin(x) / 20), **RUN)
    assert "monotone" in str(info.value)


def test_transform_whose_inverse_does_not_undo_it_is_refused():
    with pytest.raises(booteval.InvalidInputError, match="inverse"):
        booteval.ci(S, transform=(lambda x: 2 * x, lambda x: x), **RUN)


def test_decreasing_transform_is_fine():
    r = booteval.ci(S, transform=(lambda x: -x, lambda x: -x), method="percentile", **RUN)
    plain = booteval.ci(S, method="percentile", **RUN)
    # equal up to one order statistic (the quantile rule takes the ceil(pB)-th value)
    assert (r.low, r.high) == pytest.approx((plain.low, plain.high), abs=0.01)
    assert r.low <= r.estimate <= r.high


@pytest.mark.parametrize("big", [1e200, 1e308, -5e151])
def test_overflowing_values_are_refused(big):
    with pytest.raises(booteval.InvalidInputError, match="rescale"):
        booteval.ci(np.array([big, 1.0, 2.0] * 10), **RUN)


def test_all_correct_sample_points_to_a_score_interval():
    # the default (method="auto") gives a proportion a Jeffreys interval: never a point
    r = booteval.ci(np.ones(20), **RUN)
    j = booteval.closed_forms.jeffreys_interval(20, 20)
    assert (r.method, r.low, r.high) == ("jeffreys", j.low, 1.0) and r.low < 1.0
    with pytest.warns(booteval.DegenerateIntervalWarning, match="wilson_interval"):
        r = booteval.ci(np.ones(20), method="bca", **RUN)
    assert (r.low, r.high) == (1.0, 1.0)
    w = booteval.closed_forms.wilson_interval(20, 20)
    assert any(f"({w.low:.4g}, 1)" in note for note in r.notes)
    with pytest.warns(booteval.DegenerateIntervalWarning, match="wilson_interval"):
        r = booteval.ci(
            np.zeros(20, int), np.zeros(20, int), metric="accuracy", method="percentile", **RUN
        )
    assert any("wilson_interval(20, 20)" in note for note in r.notes)


def test_estimate_outside_its_interval_is_noted():
    rng = np.random.default_rng(0)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    with pytest.warns(booteval.DegenerateIntervalWarning):
        r = booteval.ci(y, p, metric="ece", metric_kwargs={"n_bins": 100}, **RUN)
    assert not r.low <= r.estimate <= r.high
    assert any("outside its own interval" in note for note in r.notes)


def test_ece_with_absurd_bin_count_uses_only_occupied_bins():
    rng = np.random.default_rng(1)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    r = booteval.ci(y, p, metric="ece", metric_kwargs={"n_bins": 10**9}, method="percentile", **RUN)
    # each row alone in its bin: ECE is the mean absolute residual
    assert r.estimate == pytest.approx(np.mean(np.abs(y - p)))


def test_a_two_argument_threshold_rule_is_refused_naming_the_call():
    y, s = np.array([0, 1] * 20), np.linspace(0, 1, 40)
    with pytest.raises(booteval.InvalidInputError, match=r"`rule`.*rule\(y_val, s_val, weights\)"):
        booteval.threshold_ci(y, s, y, s, rule=lambda y, s: 0.5, metric="f1", **RUN)


def test_the_bad_input_battery_gives_only_clear_errors():
    """benchmarks/bad_inputs.py (the before/after table of the hardening) over the API."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bad_inputs.py"
    spec = importlib.util.spec_from_file_location("bad_inputs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outcomes = {name: module.run_api(name, fn) for name, fn in module.api_cases()}
    assert len(outcomes) >= 30
    assert {k: v for k, v in outcomes.items() if v not in ("clear error", "right")} == {}


def test_an_input_error_survives_a_process_boundary():
    # raised in a worker of a process pool, it reaches the caller as itself (an error that
    # cannot be rebuilt from its pickle breaks the pool with no word of the cause)
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    with pytest.raises(booteval.InvalidInputError) as raised:
        booteval.ci([0.1, 0.2], metric="no such metric")
    again = pickle.loads(pickle.dumps(raised.value))
    assert type(again) is type(raised.value) and str(again) == str(raised.value)
    assert (again.parameter, again.hint) == (raised.value.parameter, raised.value.hint)
    with ProcessPoolExecutor(1) as pool, pytest.raises(booteval.InvalidInputError, match="metric"):
        pool.submit(booteval.ci, [0.1, 0.2], metric="no such metric").result()


def test_file_errors_survive_pickling():
    import pickle

    from booteval.core.tables import InputFileError
    from booteval.logs._common import LogFormatError

    for err in (
        InputFileError("runs.csv", "column 'score': expected numbers"),
        LogFormatError("samples.jsonl", "expected a number", line=7, field="acc"),
    ):
        again = pickle.loads(pickle.dumps(err))
        assert type(again) is type(err) and str(again) == str(err) and again.file == err.file
    assert again.line == 7 and again.field == "acc"
