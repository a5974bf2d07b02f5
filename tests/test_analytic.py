"""Tests for booteval.analytic: closed-form intervals checked against independent computations."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from booteval.core.errors import DegenerateIntervalWarning, InvalidInputError
from booteval.inference.analytic import (
    AnalyticInterval,
    clopper_pearson_interval,
    fisher_z_interval,
    jeffreys_interval,
    wilson_interval,
)
from booteval.inference.delong import DeLongTest, delong_interval, delong_test

LEVELS = [0.5, 0.8, 0.9, 0.95, 0.99]


def _grid() -> list[tuple[int, int]]:
    cells = set()
    for n in (1, 2, 3, 5, 10, 37, 100, 1000):
        for k in (0, 1, 2, n // 3, n // 2, n - 1, n):
            if 0 <= k <= n:
                cells.add((k, n))
    return sorted(cells)


GRID = _grid()


# --------------------------------------------------------------------------------------------
# Independent reference computations (written out directly, no shared code with the module)
# --------------------------------------------------------------------------------------------


def wilson_closed_form(k: int, n: int, level: float) -> tuple[float, float]:
    """Wilson interval in the (k + z^2/2) / (n + z^2) form (Agresti & Coull, 1998)."""
    z = stats.norm.ppf(1 - (1 - level) / 2)
    p = k / n
    centre = (k + z**2 / 2) / (n + z**2)
    half = z * math.sqrt(n) / (n + z**2) * math.sqrt(p * (1 - p) + z**2 / (4 * n))
    return centre - half, centre + half


def pairwise_kernel(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """psi[i, j] = 1 if positive i outscores negative j, 1/2 on ties, 0 otherwise."""
    pos = s[y == 1]
    neg = s[y == 0]
    return (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])


def delong_direct(y: np.ndarray, scores: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """AUCs and DeLong covariance matrix from the O(n^2) structural components."""
    psis = [pairwise_kernel(y, s) for s in scores]
    aucs = np.array([p.mean() for p in psis])
    v10 = np.array([p.mean(axis=1) for p in psis])  # (k, m)
    v01 = np.array([p.mean(axis=0) for p in psis])  # (k, n)
    m, n = v10.shape[1], v01.shape[1]
    d10 = v10 - aucs[:, None]
    d01 = v01 - aucs[:, None]
    s10 = d10 @ d10.T / (m - 1)
    s01 = d01 @ d01.T / (n - 1)
    return aucs, s10 / m + s01 / n


def tied_data(seed: int, n: int = 60, p_pos: float = 0.4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < p_pos).astype(int)
    y[:2], y[2:4] = 1, 0  # at least two of each class
    s = np.round(rng.normal(size=n) + 0.8 * y, 1)  # rounding creates many ties
    return y, s


# --------------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------------


def test_analytic_interval_format_and_str():
    ci = AnalyticInterval(0.8202, 0.8101, 0.83, 0.95, "wilson", 1000, None)
    assert str(ci) == "0.8202 (0.8101, 0.8300)"
    assert ci.format(scale=100, digits=2) == "82.02 (81.01, 83.00)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        ci.low = 0.0  # type: ignore[misc]


def test_delong_test_str_is_readable():
    y, s = tied_data(0)
    t = delong_test(y, s, s + np.random.default_rng(1).normal(size=s.size))
    text = str(t)
    assert isinstance(t, DeLongTest)
    assert "difference (b - a)" in text
    assert f"n_pos = {t.n_pos}" in text and f"n_neg = {t.n_neg}" in text
    assert f"{t.auc_a:.4f}" in text and f"{t.auc_b:.4f}" in text
    assert "95% CI" in text
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.z = 0.0  # type: ignore[misc]


# --------------------------------------------------------------------------------------------
# Wilson
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_wilson_matches_scipy_and_closed_form(level):
    for k, n in GRID:
        ci = wilson_interval(k, n, confidence_level=level)
        ref = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        lo, hi = wilson_closed_form(k, n, level)
        assert ci.low == pytest.approx(ref.low, abs=1e-12), (k, n)
        assert ci.high == pytest.approx(ref.high, abs=1e-12), (k, n)
        assert ci.low == pytest.approx(lo, abs=1e-12), (k, n)
        assert ci.high == pytest.approx(hi, abs=1e-12), (k, n)
        assert ci.estimate == k / n
        assert 0.0 <= ci.low <= ci.estimate <= ci.high <= 1.0
        assert (ci.method, ci.n, ci.standard_error, ci.confidence_level) == (
            "wilson",
            n,
            None,
            level,
        )


def test_wilson_edges_are_exact():
    assert wilson_interval(0, 7).low == 0.0
    assert wilson_interval(7, 7).high == 1.0
    # Worked value: k = 42, n = 50 at 95%.
    ci = wilson_interval(42, 50)
    assert (round(ci.low, 4), round(ci.high, 4)) == (0.7149, 0.9166)


def test_wilson_accepts_numpy_and_integral_float_counts():
    ref = wilson_interval(3, 10)
    assert wilson_interval(np.int64(3), np.int32(10)) == ref
    assert wilson_interval(3.0, 10.0) == ref


# --------------------------------------------------------------------------------------------
# Clopper-Pearson
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_clopper_pearson_matches_scipy(level):
    for k, n in GRID:
        ci = clopper_pearson_interval(k, n, confidence_level=level)
        ref = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
        assert ci.low == pytest.approx(ref.low, abs=1e-12), (k, n)
        assert ci.high == pytest.approx(ref.high, abs=1e-12), (k, n)
        assert 0.0 <= ci.low <= ci.estimate <= ci.high <= 1.0
        assert (ci.method, ci.n, ci.standard_error) == ("clopper-pearson", n, None)


@pytest.mark.parametrize("level", LEVELS)
def test_clopper_pearson_tail_probabilities(level):
    alpha = 1 - level
    for k, n in GRID:
        ci = clopper_pearson_interval(k, n, confidence_level=level)
        if k == 0:
            assert ci.low == 0.0
        else:  # P(X >= k | p = low) = alpha / 2
            assert stats.binom.sf(k - 1, n, ci.low) == pytest.approx(alpha / 2, abs=1e-9)
        if k == n:
            assert ci.high == 1.0
        else:  # P(X <= k | p = high) = alpha / 2
            assert stats.binom.cdf(k, n, ci.high) == pytest.approx(alpha / 2, abs=1e-9)


def test_clopper_pearson_n_equals_one_closed_form():
    # With n = 1: k = 0 gives [0, 1 - alpha/2]; k = 1 gives [alpha/2, 1].
    assert clopper_pearson_interval(0, 1).high == pytest.approx(0.975, abs=1e-14)
    assert clopper_pearson_interval(1, 1).low == pytest.approx(0.025, abs=1e-14)


def test_clopper_pearson_zero_successes_closed_form():
    # With k = 0 the upper end solves (1 - p)^n = alpha / 2.
    for n in (1, 5, 20, 100):
        for level in (0.9, 0.95):
            expected = 1 - ((1 - level) / 2) ** (1 / n)
            ci = clopper_pearson_interval(0, n, confidence_level=level)
            assert ci.high == pytest.approx(expected, abs=1e-13)
            mirror = clopper_pearson_interval(n, n, confidence_level=level)
            assert mirror.low == pytest.approx(1 - expected, abs=1e-13)


@pytest.mark.parametrize("level", LEVELS)
def test_jeffreys_matches_beta_quantiles(level):
    tail = (1 - level) / 2
    for k, n in GRID:
        ci = jeffreys_interval(k, n, confidence_level=level)
        assert (ci.method, ci.n, ci.standard_error, ci.estimate) == ("jeffreys", n, None, k / n)
        if 0 < k < n:
            lo, hi = stats.beta.ppf([tail, 1 - tail], k + 0.5, n - k + 0.5)
            assert ci.low == pytest.approx(lo, abs=1e-12), (k, n)
            assert ci.high == pytest.approx(hi, abs=1e-12), (k, n)
        assert 0.0 <= ci.low <= ci.estimate <= ci.high <= 1.0
        assert ci.high > ci.low  # never a point, even when every trial agrees


def test_jeffreys_all_one_outcome_uses_the_exact_limit():
    for n in (1, 5, 20, 200):
        for level in (0.9, 0.95):
            tail = (1 - level) / 2
            top = jeffreys_interval(n, n, confidence_level=level)
            assert (top.low, top.high) == (pytest.approx(tail ** (1 / n), abs=1e-14), 1.0)
            cp = clopper_pearson_interval(n, n, confidence_level=level)
            assert top.low == pytest.approx(cp.low, abs=1e-12)
            bottom = jeffreys_interval(0, n, confidence_level=level)
            assert (bottom.low, bottom.high) == (0.0, pytest.approx(1 - top.low, abs=1e-14))


def _exact_coverage(interval, n, p):
    """Coverage at ``p``: the binomial probability of the outcomes whose interval holds p."""
    return sum(
        stats.binom.pmf(k, n, p) for k in range(n + 1) if (r := interval(k, n)).low <= p <= r.high
    )


def test_jeffreys_exact_coverage_where_wilson_over_covers():
    # accuracy at n = 200, p = 0.95 (issue 14): Wilson 96.7 %, Jeffreys 95.0 %
    assert _exact_coverage(wilson_interval, 200, 0.95) == pytest.approx(0.9668, abs=5e-4)
    assert _exact_coverage(jeffreys_interval, 200, 0.95) == pytest.approx(0.9501, abs=5e-4)
    # n = 20, p = 0.9: a bootstrap covers 87.6 % here; Jeffreys 95.7 %
    assert _exact_coverage(jeffreys_interval, 20, 0.9) == pytest.approx(0.9568, abs=5e-4)


# --------------------------------------------------------------------------------------------
# DeLong interval
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_delong_matches_direct_structural_components(seed):
    y, s = tied_data(seed)
    ci = delong_interval(y, s)
    aucs, cov = delong_direct(y, [s])
    assert ci.estimate == pytest.approx(aucs[0], abs=1e-12)
    assert ci.standard_error**2 == pytest.approx(cov[0, 0], abs=1e-12)
    assert ci.standard_error == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-10)
    z = stats.norm.ppf(0.975)
    assert ci.low == pytest.approx(max(0.0, aucs[0] - z * math.sqrt(cov[0, 0])), abs=1e-12)
    assert ci.high == pytest.approx(min(1.0, aucs[0] + z * math.sqrt(cov[0, 0])), abs=1e-12)
    assert ci.n == y.size
    assert ci.method == "delong"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 4)), min_size=4, max_size=30),
)
def test_delong_matches_direct_on_heavily_tied_data(rows):
    y = np.array([int(a) for a, _ in rows])
    s = np.array([float(b) for _, b in rows])
    assume(2 <= y.sum() <= y.size - 2)
    aucs, cov = delong_direct(y, [s])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = delong_interval(y, s)
    degenerate = [w for w in caught if issubclass(w.category, DegenerateIntervalWarning)]
    assert len(degenerate) == (1 if ci.standard_error == 0 else 0)
    assert ci.estimate == pytest.approx(aucs[0], abs=1e-12)
    assert ci.standard_error**2 == pytest.approx(cov[0, 0], abs=1e-12)


def test_placement_values_match_pairwise_means():
    # Private helper, pinned because the variance alone cannot see a reflected V01.
    from booteval.inference.delong import _placements

    y, s = tied_data(9)
    psi = pairwise_kernel(y, s)
    v10, v01 = _placements(s, y == 1)
    np.testing.assert_allclose(v10, psi.mean(axis=1), rtol=0, atol=1e-14)
    np.testing.assert_allclose(v01, psi.mean(axis=0), rtol=0, atol=1e-14)


def test_delong_auc_matches_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    for seed in range(3):
        y, s = tied_data(seed, n=300)
        assert delong_interval(y, s).estimate == pytest.approx(
            metrics.roc_auc_score(y, s), abs=1e-12
        )


def test_delong_invariant_under_increasing_transforms():
    y, s = tied_data(7)
    base = delong_interval(y, s)
    for f in (np.exp, np.arctan, lambda x: 3 * x + 1, lambda x: x**3):
        other = delong_interval(y, f(s))
        assert other.estimate == pytest.approx(base.estimate, abs=1e-15)
        assert other.standard_error == pytest.approx(base.standard_error, abs=1e-15)
        assert (other.low, other.high) == pytest.approx((base.low, base.high), abs=1e-15)


def test_delong_reversed_scores_mirror():
    y, s = tied_data(3)
    a = delong_interval(y, s)
    b = delong_interval(y, -s)
    assert b.estimate == pytest.approx(1 - a.estimate, abs=1e-12)
    assert b.standard_error == pytest.approx(a.standard_error, abs=1e-12)


def test_delong_label_types_and_pos_label():
    y, s = tied_data(4)
    base = delong_interval(y, s)
    as_str = np.where(y == 1, "spam", "ham")
    assert delong_interval(as_str, s, pos_label="spam") == base
    assert delong_interval(y.astype(bool), s, pos_label=True) == base
    assert delong_interval(list(y * 2 - 1), list(s), pos_label=1) == base
    flipped = delong_interval(y, s, pos_label=0)
    assert flipped.estimate == pytest.approx(1 - base.estimate, abs=1e-12)


def test_delong_confidence_level_widens_interval():
    y, s = tied_data(5, n=200)
    narrow = delong_interval(y, s, confidence_level=0.8)
    wide = delong_interval(y, s, confidence_level=0.99)
    assert wide.low < narrow.low < narrow.estimate < narrow.high < wide.high


def test_delong_perfect_separation_warns_and_collapses():
    y = np.array([0, 0, 0, 1, 1])
    s = np.array([0.1, 0.2, 0.3, 0.8, 0.9])
    with pytest.warns(DegenerateIntervalWarning, match="standard error is 0"):
        ci = delong_interval(y, s)
    assert (ci.estimate, ci.low, ci.high, ci.standard_error) == (1.0, 1.0, 1.0, 0.0)


def test_delong_large_input_is_fast_and_sane():
    rng = np.random.default_rng(11)
    n = 200_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = rng.normal(size=n) + y
    ci = delong_interval(y, s)
    # Binormal with unit shift: AUC = Phi(1 / sqrt(2)).
    assert ci.estimate == pytest.approx(stats.norm.cdf(1 / math.sqrt(2)), abs=0.01)
    assert 0 < ci.standard_error < 0.005


# --------------------------------------------------------------------------------------------
# DeLong paired test
# --------------------------------------------------------------------------------------------


def _paired(seed: int, n: int = 60) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y, s = tied_data(seed, n=n)
    rng = np.random.default_rng(seed + 100)
    b = np.round(s + rng.normal(scale=0.7, size=s.size) + 0.3 * y, 1)
    return y, s, b


@pytest.mark.parametrize("seed", range(5))
def test_delong_test_matches_direct_covariance(seed):
    y, a, b = _paired(seed)
    t = delong_test(y, a, b)
    aucs, cov = delong_direct(y, [a, b])
    var_diff = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    assert t.auc_a == pytest.approx(aucs[0], abs=1e-12)
    assert t.auc_b == pytest.approx(aucs[1], abs=1e-12)
    assert t.difference == pytest.approx(aucs[1] - aucs[0], abs=1e-12)
    assert t.standard_error**2 == pytest.approx(var_diff, abs=1e-12)
    z = (aucs[1] - aucs[0]) / math.sqrt(var_diff)
    assert t.z == pytest.approx(z, rel=1e-9)
    assert t.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
    half = stats.norm.ppf(0.975) * math.sqrt(var_diff)
    assert t.low == pytest.approx(t.difference - half, abs=1e-12)
    assert t.high == pytest.approx(t.difference + half, abs=1e-12)
    assert (t.n_pos, t.n_neg) == (int(y.sum()), int((1 - y).sum()))
    # Each single AUC agrees with delong_interval.
    assert t.auc_a == delong_interval(y, a).estimate
    assert t.auc_b == delong_interval(y, b).estimate


@pytest.mark.parametrize("seed", range(4))
def test_delong_test_alternatives_are_consistent(seed):
    y, a, b = _paired(seed, n=80)
    two = delong_test(y, a, b, alternative="two-sided")
    greater = delong_test(y, a, b, alternative="greater")
    less = delong_test(y, a, b, alternative="less")
    assert greater.p_value + less.p_value == pytest.approx(1.0, abs=1e-12)
    assert two.p_value == pytest.approx(2 * min(greater.p_value, less.p_value), abs=1e-12)
    assert greater.z == less.z == two.z
    # "greater" means b > a: its p-value is small exactly when the difference is positive.
    assert (greater.p_value < 0.5) == (two.difference > 0)
    # One-sided intervals are open on the far side and use the one-sided quantile.
    zc = stats.norm.ppf(0.95)
    assert greater.high == 1.0 and less.low == -1.0
    assert greater.low == pytest.approx(two.difference - zc * two.standard_error, abs=1e-12)
    assert less.high == pytest.approx(two.difference + zc * two.standard_error, abs=1e-12)


def test_delong_test_swapping_systems_negates():
    y, a, b = _paired(2)
    ab = delong_test(y, a, b)
    ba = delong_test(y, b, a)
    assert ba.difference == pytest.approx(-ab.difference, abs=1e-15)
    assert ba.standard_error == pytest.approx(ab.standard_error, abs=1e-15)
    assert ba.p_value == pytest.approx(ab.p_value, abs=1e-15)


def test_delong_test_interval_and_p_value_agree():
    for seed in range(10):
        y, a, b = _paired(seed, n=50)
        t = delong_test(y, a, b, confidence_level=0.95)
        assert (t.p_value < 0.05) == (not t.low <= 0.0 <= t.high)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_delong_test_identical_scores(alternative):
    y, a, _ = _paired(1)
    with pytest.warns(DegenerateIntervalWarning, match="standard error"):
        t = delong_test(y, a, a.copy(), alternative=alternative)
    assert (t.difference, t.standard_error, t.z, t.p_value) == (0.0, 0.0, 0.0, 1.0)
    # A monotone transform of the same scores is also a zero-variance comparison.
    with pytest.warns(DegenerateIntervalWarning):
        t2 = delong_test(y, a, np.exp(a), alternative=alternative)
    assert (t2.z, t2.p_value) == (0.0, 1.0)


def test_delong_test_zero_se_nonzero_difference():
    y = np.array([0, 0, 0, 1, 1, 1])
    a = np.zeros(6)  # all tied: AUC 0.5 with constant placement values
    b = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])  # perfect: AUC 1
    expected = {"two-sided": (math.inf, 0.0), "greater": (math.inf, 0.0), "less": (math.inf, 1.0)}
    for alt, (z, p) in expected.items():
        with pytest.warns(DegenerateIntervalWarning):
            t = delong_test(y, a, b, alternative=alt)
        assert t.difference == 0.5 and t.standard_error == 0.0
        assert (t.z, t.p_value) == (z, p)
    with pytest.warns(DegenerateIntervalWarning):
        t = delong_test(y, b, a, alternative="greater")
    assert (t.z, t.p_value, t.low, t.high) == (-math.inf, 1.0, -0.5, 1.0)


# --------------------------------------------------------------------------------------------
# Fisher z
# --------------------------------------------------------------------------------------------

BW = {
    "pearson": (3, lambda r: 1.0),
    "spearman": (3, lambda r: math.sqrt(1 + r**2 / 2)),
    "kendall": (4, lambda r: math.sqrt(0.437)),
}


@pytest.mark.parametrize("coefficient", sorted(BW))
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_fisher_z_matches_closed_form(coefficient, level):
    b, c = BW[coefficient]
    for r in (-0.95, -0.4, 0.0, 0.1, 0.6, 0.999):
        for n in (b + 1, 10, 57, 1000):
            ci = fisher_z_interval(r, n, coefficient=coefficient, confidence_level=level)
            z = stats.norm.ppf(1 - (1 - level) / 2)
            se = c(r) / math.sqrt(n - b)
            assert ci.standard_error == pytest.approx(se, abs=1e-12)
            assert ci.low == pytest.approx(math.tanh(math.atanh(r) - z * se), abs=1e-12)
            assert ci.high == pytest.approx(math.tanh(math.atanh(r) + z * se), abs=1e-12)
            assert (ci.estimate, ci.n, ci.method) == (r, n, "fisher-z")
            assert -1 < ci.low <= r <= ci.high < 1


def test_fisher_z_symmetry_and_case_insensitive():
    a = fisher_z_interval(0.3, 40, coefficient="Spearman")
    b = fisher_z_interval(-0.3, 40, coefficient="spearman")
    assert a.low == pytest.approx(-b.high, abs=1e-15)
    assert a.high == pytest.approx(-b.low, abs=1e-15)


@pytest.mark.parametrize("r", [1.0, -1.0])
def test_fisher_z_boundary_is_degenerate(r):
    with pytest.warns(DegenerateIntervalWarning, match="infinite"):
        ci = fisher_z_interval(r, 30)
    assert (ci.estimate, ci.low, ci.high) == (r, r, r)


def test_fisher_z_pearson_coverage_sanity():
    rng = np.random.default_rng(2024)
    rho, n, reps = 0.5, 25, 2000
    x = rng.normal(size=(reps, n))
    y = rho * x + math.sqrt(1 - rho**2) * rng.normal(size=(reps, n))
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    r = (xc * yc).sum(axis=1) / np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))
    hits = 0
    for ri in r:
        ci = fisher_z_interval(float(ri), n)
        hits += ci.low <= rho <= ci.high
    assert 0.93 <= hits / reps <= 0.97


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.9, 0.3, 0.6, 0.2, 0.4])

CALLERS = {
    "wilson": lambda **kw: wilson_interval(3, 10, **kw),
    "clopper-pearson": lambda **kw: clopper_pearson_interval(3, 10, **kw),
    "delong": lambda **kw: delong_interval(Y, S, **kw),
    "delong_test": lambda **kw: delong_test(Y, S, S[::-1], **kw),
    "fisher": lambda **kw: fisher_z_interval(0.3, 20, **kw),
}


@pytest.mark.parametrize("name", sorted(CALLERS))
@pytest.mark.parametrize("level", [0, 1, 1.0, -0.1, 1.5, 95, float("nan"), "0.95", None, True])
def test_bad_confidence_level(name, level):
    with pytest.raises(InvalidInputError, match="`confidence_level`"):
        CALLERS[name](confidence_level=level)


def test_confidence_level_percent_hint():
    with pytest.raises(InvalidInputError, match=r"Did you mean 0\.95"):
        wilson_interval(3, 10, confidence_level=95)


def test_invalid_input_error_is_value_error():
    with pytest.raises(ValueError, match="`n`"):
        wilson_interval(1, 0)


@pytest.mark.parametrize("func", [wilson_interval, clopper_pearson_interval])
@pytest.mark.parametrize(
    ("successes", "n", "param"),
    [
        (-1, 10, "successes"),
        (11, 10, "successes"),
        (2.5, 10, "successes"),
        ("3", 10, "successes"),
        (True, 10, "successes"),
        (None, 10, "successes"),
        (0, 0, "n"),
        (0, -5, "n"),
        (1, 2.5, "n"),
        (1, float("inf"), "n"),
        (1, None, "n"),
        (1, "10", "n"),
    ],
)
def test_bad_counts(func, successes, n, param):
    with pytest.raises(InvalidInputError, match=f"`{param}`"):
        func(successes, n)


@pytest.mark.parametrize(
    ("y", "s", "match"),
    [
        ([1, 1, 1, 1], [0.1, 0.2, 0.3, 0.4], r"`y_true`.*1 class\(es\): \[1\]"),
        ([0, 1, 2, 0, 1, 2], S, r"`y_true`.*3 class\(es\): \[0, 1, 2\]"),
        ([], [], r"`y_true`.*0 class"),
        ([0, 1, 0, 0, 0], [0.1, 0.2, 0.3, 0.4, 0.5], r"`y_true`.*at least two"),
        (Y, S[:-1], r"`y_score`.*same length"),
        (Y, np.append(S, 0.5), r"`y_score`.*same length"),
        (Y, np.where(np.arange(6) == 2, np.nan, S), r"`y_score`.*index 2"),
        (Y, np.where(np.arange(6) == 4, np.inf, S), r"`y_score`.*NaN or infinite"),
        (Y, S.reshape(2, 3), r"`y_score`.*1-D"),
        (Y.reshape(2, 3), S, r"`y_true`.*1-D"),
        (Y, ["a", "b", "c", "d", "e", "f"], r"`y_score`.*real numbers"),
        (Y, S + 1j, r"`y_score`.*real numbers"),
        (np.array([0.0, 1.0, np.nan, 1.0, 0.0, 1.0]), S, r"`y_true`.*NaN"),
        (np.array([0, "a", 1, 0, 1, 0], dtype=object), S, r"`y_true`"),
    ],
)
def test_delong_interval_bad_inputs(y, s, match):
    with pytest.raises(InvalidInputError, match=match):
        delong_interval(y, s)


def test_delong_bad_pos_label_lists_classes():
    with pytest.raises(InvalidInputError, match=r"`pos_label`.*\[0, 1\].*received 2"):
        delong_interval(Y, S, pos_label=2)
    with pytest.raises(InvalidInputError, match=r"`pos_label`.*'ham', 'spam'"):
        delong_interval(np.where(Y == 1, "spam", "ham"), S)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"y_score_a": S[:-1]}, r"`y_score_a`.*same length"),
        ({"y_score_b": S[:-1]}, r"`y_score_b`.*same length"),
        ({"y_score_a": np.where(np.arange(6) == 0, np.nan, S)}, r"`y_score_a`.*NaN"),
        ({"y_score_b": np.where(np.arange(6) == 5, -np.inf, S)}, r"`y_score_b`.*NaN"),
        ({"y_true": [1, 1, 1, 1, 1, 1]}, r"`y_true`.*two classes"),
        ({"alternative": "bigger"}, r"`alternative`.*'two-sided', 'greater', 'less'"),
        ({"alternative": None}, r"`alternative`"),
        ({"pos_label": "1"}, r"`pos_label`"),
    ],
)
def test_delong_test_bad_inputs(kwargs, match):
    args = {"y_true": Y, "y_score_a": S, "y_score_b": S[::-1]}
    args.update(kwargs)
    extra = {k: args.pop(k) for k in ("alternative", "pos_label") if k in args}
    with pytest.raises(InvalidInputError, match=match):
        delong_test(args["y_true"], args["y_score_a"], args["y_score_b"], **extra)


@pytest.mark.parametrize(
    ("r", "n", "coefficient", "match"),
    [
        (1.5, 20, "pearson", "`r`"),
        (-1.01, 20, "pearson", "`r`"),
        (float("nan"), 20, "pearson", "`r`"),
        (float("inf"), 20, "pearson", "`r`"),
        ("0.5", 20, "pearson", "`r`"),
        (None, 20, "pearson", "`r`"),
        (0.5, 3, "pearson", r"`n`.*greater than 3"),
        (0.5, 3, "spearman", r"`n`.*greater than 3"),
        (0.5, 4, "kendall", r"`n`.*greater than 4"),
        (0.5, 0, "pearson", "`n`"),
        (0.5, 10.5, "pearson", "`n`"),
        (0.5, 20, "pearsn", r"`coefficient`.*'pearson', 'spearman', 'kendall'.*'pearsn'"),
        (0.5, 20, None, "`coefficient`"),
    ],
)
def test_fisher_z_bad_inputs(r, n, coefficient, match):
    with pytest.raises(InvalidInputError, match=match):
        fisher_z_interval(r, n, coefficient=coefficient)


def test_fisher_z_smallest_valid_n():
    assert fisher_z_interval(0.5, 5, coefficient="kendall").n == 5
    assert fisher_z_interval(0.5, 4, coefficient="pearson").n == 4
