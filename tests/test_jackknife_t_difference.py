"""The cluster jackknife t of a difference ``B - A`` in ``compare`` and ``leaderboard``, and
the p-value that inverts it.

References: leave-one-cluster-out values computed here with scikit-learn and SciPy in a
loop, the t interval and test by hand with ``scipy.stats.t``; the p-value checked against
the interval it inverts (the level at which the interval's end reaches 0)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import f1_score

import booteval
from booteval.core.jackknife_t import jackknife_t_interval, jackknife_t_p_value


def _by_hand(d, loo, level):
    """The t interval of ``B - A`` in [-1, 1] on atanh's scale (the logit of (d + 1) / 2 is
    twice it: the same t interval), with its two-sided p-value of 0."""
    z, z0 = np.arctanh(np.asarray(loo)), math.atanh(d)
    g = z.size
    se = math.sqrt((g - 1) / g * np.sum((z - z.mean()) ** 2))
    q = stats.t.ppf(0.5 + level / 2, g - 1)
    p = 2 * stats.t.sf(abs(z0) / se, g - 1)
    return (math.tanh(z0 - q * se), math.tanh(z0 + q * se)), p


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-0.9, 0.9), min_size=3, max_size=12),
    st.floats(-0.8, 0.8),
    st.sampled_from([(-1.0, 1.0), (-2.0, 2.0), None]),
)
def test_the_p_value_inverts_the_interval(values, estimate, bounds):
    values = np.asarray(values)
    if np.ptp(values) < 1e-6 or estimate == 0.0:
        return
    p = jackknife_t_p_value(estimate, values, bounds)
    assert 0.0 < p <= 1.0
    if p < 1e-9 or p > 1 - 1e-9:
        return
    # at level 1 - p the interval's end nearer 0 is 0
    r = jackknife_t_interval(estimate, values, 1 - p, bounds)
    if r is None:  # spans the whole range: no answer at that level
        return
    end = r.low if estimate > 0 else r.high
    assert end == pytest.approx(0.0, abs=1e-7)
    one = jackknife_t_p_value(estimate, values, bounds, alternative="greater" if estimate > 0
                              else "less")  # fmt: skip
    assert one == pytest.approx(p / 2, rel=1e-9)


def _two_classifiers():
    rng = np.random.default_rng(0)
    y = (rng.random(60) < 0.3).astype(int)
    b = np.where(rng.random(60) < 0.8, y, 1 - y)
    a = np.where(rng.random(60) < 0.7, y, 1 - y)
    return y, a, b, np.arange(60) // 12


def test_a_vacuous_bootstrap_t_of_a_difference_gives_way_to_its_jackknife_t():
    y, a, b, cl = _two_classifiers()
    kw = {"metric": "f1", "clusters": cl, "seed": 0, "n_resamples": 2000}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.compare(y, a, b, **kw)
        t = booteval.compare(y, a, b, method="studentized-symmetric", **kw)
        board = booteval.leaderboard({"a": a, "b": b}, y_true=y, **kw)
    # the symmetric bootstrap-t the rule takes spans all of [-1, 1]
    assert (t.low, t.high) == (-1.0, 1.0)
    assert r.details["auto"]["method"] == "studentized-symmetric" and r.method == "jackknife-t"
    loo = [f1_score(y[cl != g], b[cl != g]) - f1_score(y[cl != g], a[cl != g]) for g in range(5)]
    want, p = _by_hand(f1_score(y, b) - f1_score(y, a), loo, 0.95)
    assert (r.low, r.high) == pytest.approx(want, rel=1e-9)
    assert r.p_value == pytest.approx(p, rel=1e-9) and r.p_value > 0.05
    assert -1.0 < r.low < r.difference < r.high < 1.0 and "vacuous" not in r.details
    note = next(n for n in r.notes if "unbounded or spanned the whole range" in n)
    assert "the cluster jackknife t interval of B - A (5 leave-one-cluster-out values" in note
    # the leaderboard's pair is compare's, in both orientations, and names the method
    pair = board.pair("a", "b")
    assert (pair.low, pair.high, pair.p_value) == (r.low, r.high, r.p_value)
    back = board.pair("b", "a")
    assert (back.low, back.high) == pytest.approx((-r.high, -r.low), rel=1e-12)
    assert board.pair_methods == ("jackknife-t",)
    assert any("pair b - a" in n and "jackknife t" in n for n in board.notes)


def test_kendall_s_difference_with_few_clusters_takes_the_jackknife_t_in_every_door():
    rng = np.random.default_rng(2)
    cl = np.repeat(np.arange(6), 9)
    u = rng.normal(size=6)[cl]
    human = u + rng.normal(size=cl.size)
    a, b = u + 2 * rng.normal(size=cl.size), u + rng.normal(size=cl.size)
    kw = {"metric": "kendall", "clusters": cl, "seed": 0, "n_resamples": 300}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.compare(human, a, b, **kw)
        one = booteval.compare(human, a, b, alternative="greater", **kw)
        board = booteval.leaderboard({"a": a, "b": b, "c": -a}, y_true=human, **kw)
    assert r.method == "jackknife-t" and r.details["auto"]["method"] == "jackknife-t"
    tau = lambda x, y: stats.kendalltau(x, y).statistic  # noqa: E731
    loo = [tau(human[cl != g], b[cl != g]) - tau(human[cl != g], a[cl != g]) for g in range(6)]
    d = tau(human, b) - tau(human, a)
    # B - A in [-2, 2]: the t interval on atanh(d / 2)'s scale
    want, p = _by_hand(d / 2, np.asarray(loo) / 2, 0.95)
    assert (r.low, r.high) == pytest.approx((2 * want[0], 2 * want[1]), rel=1e-9)
    assert r.p_value == pytest.approx(p, rel=1e-9)
    assert one.p_value == pytest.approx(p / 2 if d > 0 else 1 - p / 2, rel=1e-9)
    pair = board.pair("a", "b")
    assert (pair.low, pair.high, pair.p_value) == pytest.approx((r.low, r.high, r.p_value))
    assert set(board.pair_methods) == {"jackknife-t"}


def test_a_bootstrap_t_p_value_reads_the_pivots_its_interval_reads():
    # with few clusters many resamples have a zero standard error: the interval counts
    # their pivots as infinite, and so must the p-value, or it comes out too small (before:
    # 16 to 27 of 1,000 data sets a cell with p < 0.05 and 0 inside the interval)
    rng = np.random.default_rng(11)
    disagree = 0
    for s in range(25):
        cl = np.repeat(np.arange(6), 1 + rng.geometric(1 / 9, 6))
        y = (rng.random(cl.size) < rng.beta(2.7, 6.3, 6)[cl]).astype(int)
        right = rng.random(cl.size) < rng.beta(6.75, 2.25, 6)[cl]
        a = np.where(right, y, 1 - y)
        b = np.where(right | (rng.random(cl.size) > 0.6), y, 1 - y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = booteval.compare(y, a, b, metric="f1", clusters=cl, seed=s, n_resamples=999,
                                 method="studentized-symmetric")  # fmt: skip
        disagree += (r.p_value < 0.05) != (r.low > 0 or r.high < 0)
    assert disagree == 0
