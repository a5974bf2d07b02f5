"""The effective sample size: Kish's, never above the rows, reported by every door."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import booteval
from booteval.inference.design_effect import MAX_CALLS, kish_effective_n


def _median(x):
    return float(np.median(x))


def _accuracy(y_true, y_pred):
    return float(np.mean(y_true == y_pred))


@st.composite
def clustered_outcomes(draw):
    """The issue's family: geometric cluster sizes, a Beta cluster effect (any ICC), and
    clusters whose rows alternate (a negative within-cluster correlation)."""
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    g = draw(st.integers(3, 30))
    sizes = rng.geometric(draw(st.sampled_from([0.05, 0.2, 0.6])), g)
    clusters = np.repeat(np.arange(g), sizes)
    n = clusters.size
    kind = draw(st.sampled_from(["beta", "alternating", "none"]))
    if kind == "beta":
        a = draw(st.sampled_from([0.5, 2.0, 8.0]))
        y = (rng.random(n) < rng.beta(a, a / 4 + 0.5, g)[clusters]).astype(float)
    elif kind == "alternating":
        y = (np.arange(n) % 2).astype(float)
    else:
        y = (rng.random(n) < 0.7).astype(float)
    return y, clusters


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(clustered_outcomes(), st.sampled_from(["mean", _median]))
def test_effective_n_lies_between_the_clusters_and_the_rows(data, metric):
    y, clusters = data
    n = y.size
    sizes = np.bincount(clusters)
    floor = n * n / float(np.sum(sizes * sizes))  # n / m_w: the clusters, for equal ones
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.ci(y, metric=metric, clusters=clusters, method="percentile",
                        n_resamples=50, seed=0)  # fmt: skip
    if math.isnan(r.effective_n):  # a constant metric: no variance to compare
        return
    assert floor - 1e-9 <= r.effective_n <= n + 1e-9, (r.effective_n, floor, n)


def test_the_issue_s_case_no_longer_reports_more_than_the_rows():
    """13-15 % of clustered data sets used to report effective_n > n (950 of 446 rows)."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for i in range(150):
        g = int(rng.integers(8, 20))
        clusters = np.repeat(np.arange(g), rng.geometric(0.05, g))
        y = (rng.random(clusters.size) < rng.beta(9, 1, g)[clusters]).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = booteval.ci(y, clusters=clusters, method="percentile", n_resamples=50, seed=i)
        worst = max(worst, r.effective_n / y.size)
    assert worst <= 1.0


def test_kish_formula_on_a_known_correlation():
    """Equal clusters of m rows with ICC rho: n / (1 + (m - 1) rho), within noise."""
    rng = np.random.default_rng(3)
    g, m, rho = 200, 10, 0.2
    clusters = np.repeat(np.arange(g), m)
    x = math.sqrt(rho) * rng.normal(size=g)[clusters] + math.sqrt(1 - rho) * rng.normal(size=g * m)
    r = booteval.ci(x, clusters=clusters, method="percentile", n_resamples=50, seed=0)
    assert r.effective_n == pytest.approx(g * m / (1 + (m - 1) * rho), rel=0.2)


def test_a_callable_gets_an_effective_n_close_to_the_registry_metric_s():
    rng = np.random.default_rng(5)
    g, m = 60, 8
    clusters = np.repeat(np.arange(g), m)
    y = rng.integers(0, 2, g * m)
    pred = np.where(rng.random(g * m) < rng.beta(4, 1, g)[clusters], y, 1 - y)
    kw = {"clusters": clusters, "method": "percentile", "n_resamples": 50, "seed": 0}
    builtin = booteval.ci(y, pred, metric="accuracy", **kw)
    mine = booteval.ci(y, pred, metric=_accuracy, **kw)
    assert math.isfinite(mine.effective_n) and mine.effective_n <= y.size
    assert mine.effective_n == pytest.approx(builtin.effective_n, rel=0.35)
    assert f"effective sample size {mine.effective_n:.1f}" in mine.describe()


def test_too_many_calls_of_a_callable_is_said_not_hidden():
    g = MAX_CALLS // 2 + 1  # one row a cluster
    x = np.random.default_rng(0).random(g)
    r = booteval.ci(x, metric=_median, clusters=np.arange(g), method="percentile",
                    n_resamples=40, seed=0)  # fmt: skip
    assert math.isnan(r.effective_n)
    assert any("effective sample size not computed" in note for note in r.notes)
    assert "effective sample size not computed" in r.describe()


def test_compare_and_leaderboard_report_it_as_ci_does():
    rng = np.random.default_rng(9)
    g, m = 30, 12
    clusters = np.repeat(np.arange(g), m)
    n = g * m
    y = rng.integers(0, 2, n)
    easy = rng.beta(3, 1, g)[clusters]
    a = np.where(rng.random(n) < easy, y, 1 - y)
    b = np.where(rng.random(n) < 0.3, y, a)
    kw = {"clusters": clusters, "n_resamples": 200, "seed": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp_ = booteval.compare(y, a, b, metric="accuracy", **kw)
        board = booteval.leaderboard({"a": a, "b": b}, y_true=y, metric="accuracy", **kw)
        alone = {s: booteval.ci(y, p, metric="accuracy", **kw) for s, p in (("a", a), ("b", b))}
    assert 0 < cmp_.effective_n <= n
    assert "clusters; effective sample size" in cmp_.describe()
    assert cmp_.to_dict()["effective_n"] == cmp_.effective_n
    for e in board.entries:
        assert e.effective_n == alone[e.name].effective_n
    own_a, own_b = cmp_.details["systems"]
    assert (own_a.effective_n, own_b.effective_n) == (alone["a"].effective_n,
                                                      alone["b"].effective_n)  # fmt: skip
    assert "effective sample size" in str(board)


def test_without_clusters_the_effective_n_is_the_rows():
    r = booteval.compare([0, 1] * 20, [1, 1] * 20, n_resamples=100, seed=0)
    assert r.effective_n == 40


def test_kish_clips_to_its_range():
    units = np.repeat(np.arange(4), 5)
    assert kish_effective_n(units, 1.0, 2.0) == 10.0
    assert kish_effective_n(units, 1.0, 0.1) == 20.0
    assert kish_effective_n(units, 1.0, 100.0) == 4.0
    assert math.isnan(kish_effective_n(units, 1.0, 0.0))
