"""Newcombe's score interval for ROC-AUC (method 5, 2006), against a grid scan and its
invariances."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import booteval
from booteval.core.errors import InvalidInputError
from booteval.inference.auc_score import (
    newcombe_auc_bounds,
    newcombe_auc_interval,
    newcombe_auc_variance,
)


def _variance_written_out(theta: float, m: int, n: int) -> float:
    """Hanley and McNeil's variance with their Q1 and Q2, both class sizes minus one
    replaced by (m + n) / 2 - 1 (Newcombe's method 5), in HM's own form."""
    q1, q2 = theta / (2 - theta), 2 * theta**2 / (1 + theta)
    k = (m + n) / 2 - 1
    return (theta * (1 - theta) + k * (q1 - theta**2) + k * (q2 - theta**2)) / (m * n)


def _scan(auc: float, m: int, n: int, level: float) -> tuple[float, float]:
    """The interval by brute force: the smallest and largest theta of a fine grid that the
    score test does not reject."""
    z = stats.norm.ppf(0.5 + level / 2)
    theta = np.linspace(0.0, 1.0, 400_001)
    q1, q2 = theta / (2 - theta), 2 * theta**2 / (1 + theta)
    k = (m + n) / 2 - 1
    v = (theta * (1 - theta) + k * (q1 - theta**2) + k * (q2 - theta**2)) / (m * n)
    kept = theta[(auc - theta) ** 2 <= z * z * np.maximum(v, 0.0)]
    return float(kept.min()), float(kept.max())


@pytest.mark.parametrize("theta", [0.0, 0.1, 0.5, 0.76, 0.98, 1.0])
@pytest.mark.parametrize(("m", "n"), [(2, 3), (5, 95), (30, 70), (400, 600)])
def test_the_variance_is_hanley_and_mcneils_with_newcombes_sizes(theta, m, n):
    assert newcombe_auc_variance(theta, m, n) == pytest.approx(
        _variance_written_out(theta, m, n), rel=1e-12, abs=1e-18
    )


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
@pytest.mark.parametrize(
    ("auc", "m", "n"),
    [(0.5, 10, 10), (0.76, 5, 95), (0.95, 3, 57), (1.0, 3, 57), (0.0, 4, 4), (1.0, 200, 800),
     (0.999, 50, 950), (0.62, 300, 700), (0.9, 2, 2)],
)  # fmt: skip
def test_the_ends_are_those_of_a_grid_scan(auc, m, n, level):
    low, high = newcombe_auc_bounds(auc, m, n, level)
    want_low, want_high = _scan(auc, m, n, level)
    step = 1.0 / 400_000
    assert low == pytest.approx(want_low, abs=2 * step)
    assert high == pytest.approx(want_high, abs=2 * step)


def test_perfect_separation_keeps_a_width_that_shrinks_with_the_rows():
    widths = []
    for m, n in [(3, 57), (10, 190), (50, 950)]:
        y = np.r_[np.zeros(n), np.ones(m)]
        s = np.r_[np.linspace(0, 1, n), 2 + np.arange(m)]
        r = newcombe_auc_interval(y, s)
        assert r.estimate == 1.0 and r.high == 1.0
        assert 0.0 < r.low < 1.0
        widths.append(r.high - r.low)
    assert widths[0] > widths[1] > widths[2] > 0.0


def test_reversing_the_scores_mirrors_the_interval():
    rng = np.random.default_rng(3)
    y = (rng.random(80) < 0.2).astype(int)
    s = rng.normal(y, 1.0)
    r, flipped = newcombe_auc_interval(y, s), newcombe_auc_interval(y, -s)
    assert flipped.estimate == pytest.approx(1 - r.estimate, abs=1e-12)
    assert flipped.low == pytest.approx(1 - r.high, abs=1e-9)
    assert flipped.high == pytest.approx(1 - r.low, abs=1e-9)


def test_with_many_rows_it_approaches_the_wald_interval_of_the_same_variance():
    auc, m, n = 0.8, 20_000, 30_000
    low, high = newcombe_auc_bounds(auc, m, n, 0.95)
    half = stats.norm.ppf(0.975) * math.sqrt(newcombe_auc_variance(auc, m, n))
    # the variance's slope in theta moves each end by a share of the half-width that
    # shrinks like 1 / sqrt(rows): here under 1 %
    assert low == pytest.approx(auc - half, abs=0.01 * half)
    assert high == pytest.approx(auc + half, abs=0.01 * half)


def test_the_estimate_is_sklearns_auc_with_ties():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(5)
    y = (rng.random(300) < 0.3).astype(int)
    s = rng.integers(0, 5, 300).astype(float)
    r = newcombe_auc_interval(y, s)
    assert r.estimate == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12)
    assert r.method == "newcombe-auc" and r.n == 300 and r.standard_error is None


def test_one_row_of_a_class_is_enough():
    r = newcombe_auc_interval([0, 0, 0, 1], [0.1, 0.4, 0.2, 0.3])
    assert r.estimate == pytest.approx(2 / 3)
    assert 0.0 < r.low < r.estimate < r.high < 1.0


def test_labels_other_than_0_and_1_take_pos_label():
    r = newcombe_auc_interval(["ham", "ham", "spam", "spam"], [0.1, 0.4, 0.35, 0.8],
                              pos_label="spam")  # fmt: skip
    assert r.estimate == 0.75


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=4, max_size=60),
    st.sampled_from([0.5, 0.9, 0.95, 0.99]),
)
def test_the_interval_lies_in_0_1_holds_the_estimate_and_has_width(rows, level):
    y = np.array([int(a) for a, _ in rows])
    s = np.array([float(b) for _, b in rows])
    assume(2 <= y.sum() <= y.size - 2)
    r = newcombe_auc_interval(y, s, confidence_level=level)
    assert 0.0 <= r.low <= r.estimate <= r.high <= 1.0
    assert r.high - r.low > 0.0
    wider = newcombe_auc_interval(y, s, confidence_level=min(0.999, level + 0.04))
    assert wider.low <= r.low + 1e-12 and wider.high >= r.high - 1e-12


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"y_true": [0, 1, 1, 0], "y_score": [0.1, 0.2, float("nan"), 0.3]}, "y_score"),
        ({"y_true": [1, 1, 1, 1], "y_score": [0.1, 0.2, 0.3, 0.4]}, "y_true"),
        ({"y_true": [0, 1, 1, 0], "y_score": [0.1, 0.2, 0.3]}, "y_score"),
        ({"y_true": [0, 1, 1, 0], "y_score": [0.1, 0.2, 0.3, 0.4], "confidence_level": 1.0},
         "confidence_level"),
    ],
)  # fmt: skip
def test_bad_input_names_the_parameter(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        newcombe_auc_interval(**kwargs)


# ------------------------------------------------------------------ as method="auto"'s choice
def _rare(n: int, positives: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, positives, replace=False)] = 1
    return y, rng.normal(2.0 * y, 1.0)


@pytest.mark.parametrize(("positives", "want"), [(1, "newcombe-auc"), (7, "newcombe-auc"),
                                                 (8, "bca"), (40, "bca")])  # fmt: skip
def test_the_default_takes_it_below_eight_rows_of_the_rarer_class(positives, want):
    y, s = _rare(100, positives)
    r = booteval.ci(y, s, metric="roc_auc", seed=0, n_resamples=500)
    assert r.method == want
    if want == "newcombe-auc":
        ref = newcombe_auc_interval(y, s)
        assert r.estimate == pytest.approx(ref.estimate, abs=1e-12)
        assert (r.low, r.high) == (ref.low, ref.high)
        assert "fewer than 8 rows in the rarer class" in r.notes[0]
        assert r.mcse_low == r.mcse_high == 0.0


def test_with_strata_too_for_the_stratified_bootstrap_collapses_at_an_auc_of_1():
    y = np.r_[np.zeros(30, dtype=int), np.ones(3, dtype=int)]
    s = np.r_[np.linspace(0.0, 1.0, 30), [2.0, 3.0, 4.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.ci(y, s, metric="roc_auc", seed=0, n_resamples=500, strata=y)
        b = booteval.ci(y, s, metric="roc_auc", seed=0, n_resamples=500, strata=y, method="bca")
    assert (b.low, b.high) == (1.0, 1.0)  # every replicate orders every pair
    assert r.method == "newcombe-auc" and 0.0 < r.low < r.high == 1.0


def test_the_rarer_class_may_be_the_negatives():
    y, s = _rare(60, 4)
    r = booteval.ci(1 - y, -s, metric="roc_auc", seed=0, n_resamples=500)
    assert r.method == "newcombe-auc"


def test_with_clusters_or_a_transform_the_default_stays_a_bootstrap():
    y, s = _rare(100, 5)
    with pytest.warns(booteval.SmallSampleWarning):
        clustered = booteval.ci(y, s, metric="roc_auc", seed=0, n_resamples=2000,
                                clusters=np.arange(100) // 4)  # fmt: skip
    # the bootstrap-t that the rule takes with 25 clusters is unbounded here (a third of
    # the replicates hold one positive or none: a zero standard error); the default is
    # the cluster jackknife t, and says so: on the AUC's own scale, clipped to [0, 1], as
    # leaving out one cluster orders every pair (an AUC of 1, infinite on the logit scale)
    assert clustered.method == "jackknife-t" and clustered.details["auto"]["method"] == (
        "studentized-symmetric"
    )
    assert any("was unbounded" in note and "clipped to its range" in note
               for note in clustered.notes)  # fmt: skip
    metrics = pytest.importorskip("sklearn.metrics")
    cl = np.arange(100) // 4
    loo = np.array([metrics.roc_auc_score(y[cl != g], s[cl != g]) for g in range(25)])
    assert loo.max() == 1.0
    half = stats.t.ppf(0.975, 24) * math.sqrt(24 / 25 * np.sum((loo - loo.mean()) ** 2))
    auc = metrics.roc_auc_score(y, s)
    assert (clustered.low, clustered.high) == pytest.approx((auc - half, 1.0), rel=1e-9)
    assert 0.0 < clustered.low < clustered.estimate < clustered.high == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a few hundred replicates: BCa says it is short
        transformed = booteval.ci(y, s, metric="roc_auc", seed=0, n_resamples=500,
                                  transform="logit")  # fmt: skip
    assert transformed.method == "bca" and transformed.transform.startswith("logit")


def test_perfect_separation_by_default_keeps_a_width_and_says_nothing_of_dropped_replicates(
    recwarn,
):
    y = np.r_[np.zeros(96, dtype=int), np.ones(4, dtype=int)]
    s = np.r_[np.linspace(0.0, 1.0, 96), [2.0, 3.0, 4.0, 5.0]]
    r = booteval.ci(y, s, metric="roc_auc", seed=0, n_resamples=2000)
    assert r.method == "newcombe-auc" and r.estimate == 1.0
    assert 0.5 < r.low < 0.99 and r.high == 1.0
    # the bootstrap kept for with_method() dropped replicates without a positive; the
    # interval is not theirs, so no warning, but the count stays on the result
    assert r.n_undefined > 0 and "undefined (dropped)" in r.describe()
    assert not [w for w in recwarn if issubclass(w.category, booteval.UndefinedReplicateWarning)]
