"""The quasi-binomial Wilson interval for the mean of scores in [0, 1]."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import brentq

import booteval
from booteval.closed_forms import quasi_wilson_interval
from booteval.core.errors import InvalidInputError
from booteval.inference.bounded_mean import constant_bound


def _score_test_bounds(x: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The interval as the set of means a score test keeps, found by root finding:
    ``(m - mu)^2 = t^2 phi mu (1 - mu) / n``, ``phi = s^2 / (m (1 - m))``."""
    n, m = x.size, x.mean()
    phi = x.var(ddof=1) / (m * (1 - m))
    t = stats.t.ppf(0.5 + level / 2, n - 1)

    def f(mu: float) -> float:
        return (m - mu) ** 2 - t * t * phi * mu * (1 - mu) / n

    low = 0.0 if f(1e-15) <= 0 else brentq(f, 1e-15, m, xtol=1e-14)
    high = 1.0 if f(1 - 1e-15) <= 0 else brentq(f, m, 1 - 1e-15, xtol=1e-14)
    return low, high


@pytest.mark.parametrize(
    "x",
    [
        [0.9, 1.0, 0.75, 1.0, 0.5, 1.0, 0.8, 1.0],
        [0.0, 0.1, 0.05, 0.3, 0.0, 0.0, 0.2, 0.1, 0.0, 0.4, 0.0, 0.15],
        np.linspace(0.0, 1.0, 41),
        [1, 1, 1, 1, 0, 1, 1, 1, 1, 1],
    ],
)
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_the_end_points_are_where_the_score_test_rejects(x, level):
    x = np.asarray(x, float)
    r = quasi_wilson_interval(x, confidence_level=level)
    assert (r.low, r.high) == pytest.approx(_score_test_bounds(x, level), abs=1e-10)
    assert r.estimate == pytest.approx(x.mean()) and r.method == "quasi-wilson"
    assert r.n == x.size and r.confidence_level == level


def test_with_binary_scores_it_is_wilson_on_n_minus_one_rows_with_student_t():
    """For 0/1 scores phi = n / (n - 1), so n_e = n - 1."""
    x = np.r_[np.ones(17), np.zeros(8)]
    n, p = x.size - 1, x.mean()
    t = stats.t.ppf(0.975, x.size - 1)
    c = (p + t * t / (2 * n)) / (1 + t * t / n)
    h = t * math.sqrt(p * (1 - p) / n + t * t / (4 * n * n)) / (1 + t * t / n)
    r = quasi_wilson_interval(x)
    assert (r.low, r.high) == pytest.approx((c - h, c + h), abs=1e-12)


def test_less_dispersed_scores_give_a_narrower_interval_than_binary_ones_at_the_same_mean():
    binary = quasi_wilson_interval(np.r_[np.ones(30), np.zeros(10)])
    graded = quasi_wilson_interval(np.r_[np.full(20, 0.5), np.ones(20)])  # mean 0.75 too
    assert graded.high - graded.low < 0.7 * (binary.high - binary.low)


@pytest.mark.parametrize("value", [0.0, 0.3, 1.0])
def test_constant_scores_take_the_exact_binomial_bound(value):
    r = quasi_wilson_interval(np.full(12, value))
    assert (r.low, r.high) == pytest.approx(constant_bound(value, 12, 0.95))
    assert r.high - r.low > 0.2


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=2, max_size=60),
    st.floats(0.5, 0.999),
)
def test_always_inside_zero_one_with_a_width_and_around_the_mean(values, level):
    r = quasi_wilson_interval(values, confidence_level=level)
    assert 0.0 <= r.low < r.high <= 1.0
    assert math.isfinite(r.low) and math.isfinite(r.high)
    assert r.low <= r.estimate + 1e-12 and r.estimate <= r.high + 1e-12


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ([0.2, 1.5], "scores in \\[0, 1\\]"),
        ([0.2, -0.1, 0.4], "scores in \\[0, 1\\]"),
        ([0.5], "at least 2"),
        ([0.5, float("nan")], "finite"),
        ([[0.1, 0.2]], "1-D"),
    ],
)
def test_bad_scores_name_the_parameter(value, match):
    with pytest.raises(InvalidInputError, match=match) as info:
        quasi_wilson_interval(value)
    assert "scores" in str(info.value)


def test_bad_confidence_level_is_refused():
    with pytest.raises(InvalidInputError, match="confidence_level"):
        quasi_wilson_interval([0.1, 0.5], confidence_level=1.5)


def test_the_default_for_a_mean_of_graded_scores_is_this_interval():
    x = np.random.default_rng(3).beta(5, 2, 25)
    r = booteval.ci(x, seed=0, n_resamples=500)
    q = quasi_wilson_interval(x)
    assert r.method == "quasi-wilson" and (r.low, r.high) == (q.low, q.high)
    assert r.mcse_low == r.mcse_high == 0.0
    assert any("quasi-wilson" in note for note in r.notes)


@pytest.mark.simulation
@pytest.mark.parametrize(
    ("draw", "n"),
    [
        (lambda rng, size: rng.beta(1, 20, size), 15),  # mean 0.048, skewed
        (lambda rng, size: np.where(rng.random(size) < 0.8, 1.0, rng.beta(5, 2, size)), 10),
        (lambda rng, size: rng.choice([0, 0.5, 1], size, p=[0.2, 0.3, 0.5]), 10),
        (lambda rng, size: rng.beta(0.5, 0.5, size), 20),
    ],
)
def test_coverage_is_near_nominal_where_the_logit_t_interval_strays(draw, n):
    """4,000 data sets each (Monte Carlo SE 0.34 points); the logit-t interval covers
    93.3, 86.2, 98.5 and 96.4 % on these (benchmarks/evalstats_comparison.py)."""
    rng = np.random.default_rng(35)
    truth = float(draw(np.random.default_rng(99), 2_000_000).mean())
    hits = 0
    for _ in range(4000):
        r = quasi_wilson_interval(draw(rng, n))
        hits += r.low <= truth <= r.high
    assert 93.0 <= 100 * hits / 4000 <= 96.7
