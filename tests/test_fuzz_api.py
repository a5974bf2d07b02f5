"""Fuzzing the public API: every function in ``booteval.__all__``, good and bad inputs.

For generated arguments, a call either returns a result whose numbers are finite and whose
interval holds its estimate (or whose notes say why not), or raises a ``BootevalError``
(an ``InvalidInputError`` naming a parameter). Any other exception is a failure. The
functions are discovered from ``__all__``, and a new public function without a strategy for
one of its required parameters fails ``test_every_public_function_is_fuzzed``.
"""

from __future__ import annotations

import inspect
import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import booteval
from conftest import public_api

#: functions not fuzzed here, with the reason
EXCLUDED = {
    "bootstrap_training": "trains a user's model (a callable); tested in test_training.py",
    "bootstrap_error_estimates": "trains a user's model; tested in test_oob.py",
    "oob_ensemble_extrapolation": "trains a user's model; tested in test_oob.py",
    "nested_cv_interval": "trains a user's model; tested in test_crossval.py",
    "simulate_correlation_coverage": "a simulation study of seconds per call",
    "stderr_progress": "returns a progress callback; nothing to fuzz",
    "list_metrics": "takes no input",
    "score_matrices": "takes a pandas table; tested in test_meta.py",
}

N = st.integers(0, 40)
JUNK = st.sampled_from([None, "abc", [], {}, [[1, 2], [3]], object(), math.nan, -1, 10**30])


def labels(n: int) -> st.SearchStrategy:
    good = st.lists(st.integers(0, 1), min_size=n, max_size=n)
    bad = st.one_of(
        st.lists(st.sampled_from([0, 1, "1", None, math.nan, 2.5, True]), min_size=n, max_size=n),
        st.lists(st.integers(0, 1), min_size=max(n - 1, 0), max_size=max(n - 1, 0)),
        JUNK,
    )
    return st.one_of(good, good, good, bad)


def scores(n: int) -> st.SearchStrategy:
    unit = st.floats(0, 1, allow_nan=False)
    good = st.lists(unit, min_size=n, max_size=n)
    bad = st.one_of(
        st.lists(
            st.sampled_from([0.5, math.nan, math.inf, 1e200, -1e308, "x"]), min_size=n, max_size=n
        ),
        st.lists(unit, min_size=n + 1, max_size=n + 1),
        JUNK,
    )
    return st.one_of(good, good, good, bad)


def matrix(n: int) -> st.SearchStrategy:
    return st.one_of(
        st.builds(
            lambda seed: np.random.default_rng(seed).random((4, max(n, 2))), st.integers(0, 99)
        ),
        st.builds(lambda seed: np.random.default_rng(seed).random((3,)), st.integers(0, 9)),
        JUNK,
    )


def groups(n: int) -> st.SearchStrategy:
    return st.one_of(
        st.none(),
        st.none(),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.lists(st.sampled_from(["a", "b", math.nan, None]), min_size=n, max_size=n),
        JUNK,
    )


def frames(n: int) -> st.SearchStrategy:
    """pandas tables: empty, or labels and scores with numeric ids (read as text)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(n)
    full = pd.DataFrame({
        "id": np.arange(n), "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n),
        "s": rng.random(n), "model": np.resize(["m1", "007"], n),
    })  # fmt: skip
    return st.sampled_from([pd.DataFrame(), full, full.iloc[:0], full[["s"]]])


def data(n: int) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(scores(n)),
        st.tuples(labels(n), labels(n)),
        st.tuples(labels(n), scores(n)),
        st.tuples(labels(n), labels(n), labels(n)),
        st.tuples(scores(n), scores(n)),
        st.tuples(frames(n)),
        st.tuples(),
    )


def _wrong_arity(a, b, c):
    return 0.0


def _text_result(*arrays):
    return "high"


def _mean_of_first(x, *rest):
    return float(np.mean(x))


#: strategies for a parameter, by name (given the drawn number of rows)
STRATEGIES: dict[str, callable] = {
    "y_true": labels,
    "y_pred": labels,
    "y": labels,
    "y_val": labels,
    "y_test": labels,
    "pred_a": labels,
    "pred_b": labels,
    "correct": labels,
    "correct_a": labels,
    "correct_b": labels,
    "answers": labels,
    "targets": labels,
    "y_score": scores,
    "y_score_a": scores,
    "y_score_b": scores,
    "scores": scores,
    "scores_a": scores,
    "scores_b": scores,
    "s_val": scores,
    "s_test": scores,
    "s_val_a": scores,
    "s_val_b": scores,
    "s_test_a": scores,
    "s_test_b": scores,
    "values": scores,
    "p_values": scores,
    "human": scores,
    "human_a": scores,
    "human_b": scores,
    "judge_labelled": scores,
    "judge_unlabelled": scores,
    "judge_a_labelled": scores,
    "judge_b_labelled": scores,
    "judge_a_unlabelled": scores,
    "judge_b_unlabelled": scores,
    "clusters_unlabelled": groups,
    "items": groups,
    "items_a": groups,
    "items_b": groups,
    "clusters": groups,
    "strata": groups,
    "X": matrix,
    "Z": matrix,
    "X_a": matrix,
    "X_b": matrix,
    "metrics": lambda n: st.one_of(st.builds(lambda m: {"m": m}, matrix(n)), JUNK),
    "systems": lambda n: st.one_of(
        st.builds(lambda a, b: {"a": a, "b": b}, labels(n), labels(n)), JUNK
    ),
    "data": data,
    "successes": lambda n: st.one_of(st.integers(-2, 50), JUNK),
    "n": lambda n: st.one_of(st.integers(-2, 60), JUNK),
    "c": lambda n: st.one_of(st.integers(0, 10), JUNK),
    "k": lambda n: st.one_of(st.integers(-1, 6), JUNK),
    "r": lambda n: st.one_of(st.floats(-1.5, 1.5), JUNK),
    "effect": lambda n: st.one_of(st.floats(-1, 1), JUNK),
    "threshold": lambda n: st.one_of(st.floats(-1, 2), JUNK),
    "err1": lambda n: st.one_of(st.floats(0, 1), JUNK),
    "err_train": lambda n: st.one_of(st.floats(0, 1), JUNK),
    "no_information": lambda n: st.one_of(st.floats(0, 1), JUNK),
    "loss": lambda n: st.sampled_from(["zero_one", "squared", "nope", None]),
    "name": lambda n: st.sampled_from(["accuracy", "f1", "rademacher", "webb", "nope", ""]),
    "shape": lambda n: st.one_of(st.tuples(st.integers(0, 5)), JUNK),
    "rng": lambda n: st.builds(np.random.default_rng, st.integers(0, 9)),
    "n_rows": lambda n: st.one_of(st.integers(-1, 50), JUNK),
    "table": lambda n: JUNK,
}
#: optional parameters drawn from these (the rest keep their defaults)
OPTIONAL: dict[str, st.SearchStrategy] = {
    "n_resamples": st.sampled_from([50, 50, 100, 0, 10, "100", 2.5]),
    "seed": st.sampled_from([0, 1, 7, -1, "x", None]),
    "confidence_level": st.sampled_from([0.9, 0.95, 95, 0, "0.95"]),
    "method": st.sampled_from(["percentile", "bca", "basic", "normal", "studentized", "nope"]),
    "metric": st.sampled_from(
        [
            None,
            "accuracy",
            "f1",
            "roc_auc",
            "mean",
            "mse",
            "nope",
            "ece",
            "kendall",
            "brier",
            "specificity",
            _wrong_arity,
            _text_result,
            _mean_of_first,
        ]
    ),
    "metric_kwargs": st.sampled_from([None, {"average": "macro"}, {"nope": 1}, "x", {}]),
    "batch": st.sampled_from([None, 1, 7, 0]),
    "workers": st.sampled_from([None, 1, 2, 0]),
    "alternative": st.sampled_from(["two-sided", "greater", "less", "x"]),
    "resample": st.sampled_from(["items", "samples", "both", "rows"]),
}


def _args_for(fn) -> st.SearchStrategy:
    sig = inspect.signature(fn)

    def build(draw):
        n = draw(N)
        args, kwargs = [], {}
        for p in sig.parameters.values():
            if p.kind is p.VAR_KEYWORD:
                continue
            if p.kind is p.VAR_POSITIONAL:
                args.extend(draw(STRATEGIES[p.name](n)))
            elif p.default is p.empty:
                value = draw(STRATEGIES[p.name](n))
                if p.kind is p.KEYWORD_ONLY:
                    kwargs[p.name] = value
                else:
                    args.append(value)
            elif p.name in OPTIONAL and draw(st.booleans()):
                kwargs[p.name] = draw(OPTIONAL[p.name])
            elif p.name in ("clusters", "strata", "items_b") and draw(st.booleans()):
                kwargs[p.name] = draw(STRATEGIES[p.name](n))
        if "n_resamples" in sig.parameters and "n_resamples" not in kwargs:
            kwargs["n_resamples"] = 50  # keep every call quick
        return args, kwargs

    return st.composite(lambda draw: build(draw))()


API = public_api()
FUNCTIONS = sorted(
    name for name, obj in API.items() if inspect.isfunction(obj) and name not in EXCLUDED
)


def test_every_public_function_is_fuzzed():
    for name in FUNCTIONS:
        for p in inspect.signature(API[name]).parameters.values():
            if p.default is p.empty and p.kind is not p.VAR_KEYWORD:
                assert p.name in STRATEGIES, f"{name}: no strategy for `{p.name}`"


def _numbers(result) -> list[tuple[str, float]]:
    out = []
    for key in ("estimate", "low", "high", "p_value", "effect", "standard_error"):
        value = getattr(result, key, None)
        if isinstance(value, (int, float, np.floating)) and not isinstance(value, bool):
            out.append((key, float(value)))
    return out


def check_result(result) -> None:
    """Finite numbers and an interval holding its estimate, unless the notes say why."""
    notes = " ".join(getattr(result, "notes", ()) or ())
    numbers = dict(_numbers(result))
    one_sided = getattr(result, "alternative", "two-sided") in ("greater", "less")
    if not getattr(result, "has_interval", True):  # a test or a plan: no interval (nan)
        assert math.isnan(numbers["low"]) and math.isnan(numbers["high"]), result
        numbers = {k: v for k, v in numbers.items() if k not in ("low", "high")}
    for key, value in numbers.items():
        if one_sided and key in ("low", "high") and math.isinf(value):
            continue  # a one-sided interval is open on one side
        if not math.isfinite(value) and key != "standard_error":
            assert notes, f"{key} = {value} without a note: {result!r}"
    if {"estimate", "low", "high"} <= set(numbers) and all(
        math.isfinite(numbers[k]) for k in ("estimate", "low", "high")
    ):
        inside = numbers["low"] - 1e-9 <= numbers["estimate"] <= numbers["high"] + 1e-9
        assert inside or notes, f"estimate outside its interval without a note: {result!r}"


def call(fn, args, kwargs) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", booteval.BootevalWarning)
        warnings.simplefilter("error", RuntimeWarning)  # numpy's warnings must not leak
        try:
            result = fn(*args, **kwargs)
        except booteval.InvalidInputError as exc:
            assert exc.parameter, exc
            assert f"`{exc.parameter.split(',')[0].strip()}" in str(exc) or exc.parameter in str(
                exc
            )
            return
        except booteval.BootevalError:
            return
    check_result(result)


#: examples per fuzzed function: 30 in the README's test command, 150 in CI's own fuzz step
#: (``BOOTEVAL_FUZZ_EXAMPLES=150``, .ci/run)
EXAMPLES = int(os.environ.get("BOOTEVAL_FUZZ_EXAMPLES", "30"))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.slow  # 150 examples a function; the regressions below stay in the fast lane
@pytest.mark.parametrize("name", FUNCTIONS)
def test_public_function_returns_a_sound_result_or_a_booteval_error(name):
    fn = API[name]

    @FUZZ
    @given(_args_for(fn))
    def run(drawn):
        args, kwargs = drawn
        call(fn, args, kwargs)

    run()


# what the fuzz found along the way, kept as explicit regressions
RAGGED = [[1, 2], [3]]


@pytest.mark.parametrize(
    ("call_it", "parameter"),
    [
        (lambda: booteval.delong_test(RAGGED, [0.1, 0.2], [0.3, 0.4]), "y_true"),
        (lambda: booteval.methods.pass_at_k.pass_at_k_values(5, RAGGED, 1), "c"),
        (lambda: booteval.core.design.make_design("abc"), "n_rows"),
        (lambda: booteval.core.design.make_design(None), "n_rows"),
        (lambda: booteval.core.design.make_design(10**30), "n_rows"),
        (
            lambda: booteval.methods.wild.draw_multipliers(
                "rademacher", -1, np.random.default_rng(0)
            ),
            "shape",
        ),
        (
            lambda: booteval.methods.wild.draw_multipliers(
                "rademacher", "abc", np.random.default_rng(0)
            ),
            "shape",
        ),
        (lambda: booteval.methods.multilabel.macro_average(RAGGED, []), "y_true"),
        (lambda: booteval.methods.multilabel.per_label_scores(RAGGED, []), "y_true"),
        (
            lambda: booteval.methods.oob.no_information_error([0, None, 1], [0, 1, 1], "zero_one"),
            "y_true",
        ),
        (lambda: booteval.compare_pass_at_k([0], None, [0], None, k=1), "items"),
        (lambda: booteval.nested_ci([1.0, 0.0], None), "items"),
    ],
)
def test_fuzz_findings_end_in_a_clear_error(call_it, parameter):
    with pytest.raises(booteval.InvalidInputError) as info:
        call_it()
    assert info.value.parameter == parameter


def test_a_one_sided_interval_may_be_open():
    r = booteval.paired_t_test([0.1, 0.4, 0.3, 0.5], [0.2, 0.4, 0.5, 0.9], alternative="greater")
    assert math.isinf(r.high) and math.isfinite(r.low)
    check_result(r)


def test_threshold_metric_refuses_a_threshold_that_is_not_a_number():
    for bad in (None, "0.5", math.nan, [0.5]):
        with pytest.raises(booteval.InvalidInputError, match="`threshold`"):
            booteval.methods.threshold.threshold_metric([0, 1, 1], [0.2, 0.6, 0.9], bad)


def test_required_sample_size_for_a_vanishing_effect_is_a_clear_error():
    with pytest.raises(booteval.InvalidInputError, match="`effect`"):
        booteval.required_sample_size(standard_error=0.01, n=1000, effect=1e-300)
