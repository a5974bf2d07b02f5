"""The cluster jackknife t interval, and the default's use of it where its bootstrap-t says
nothing (a clustered metric other than a mean or proportion with few clusters).

References: leave-one-cluster-out values computed here with scikit-learn and NumPy in a
loop; for a mean of equal clusters, the closed form of the jackknife variance; Fisher's z
for a correlation (the scale-invariance of the t interval)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import f1_score

import booteval
from booteval.core.jackknife_t import jackknife_t_interval


def _by_hand(estimate, values, level, to, back):
    z = to(np.asarray(values, float))
    g = z.size
    se = math.sqrt((g - 1) / g * np.sum((z - z.mean()) ** 2))
    q = stats.t.ppf(0.5 + level / 2, g - 1)
    return back(to(estimate) - q * se), back(to(estimate) + q * se)


def test_a_mean_of_equal_clusters_has_the_closed_form_variance():
    # leave-one-cluster-out means of G equal clusters: the jackknife variance is
    # sum (cluster mean - mean)^2 / (G (G - 1))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 5)) + rng.normal(size=(6, 1))
    means = x.mean(axis=1)
    loo = np.array([np.delete(means, g).mean() for g in range(6)])
    r = jackknife_t_interval(float(x.mean()), loo, 0.9)
    se = math.sqrt(np.sum((means - means.mean()) ** 2) / (6 * 5))
    q = stats.t.ppf(0.95, 5)
    assert r.scale == "identity" and r.df == 5
    assert (r.low, r.high) == pytest.approx((x.mean() - q * se, x.mean() + q * se), rel=1e-12)


@pytest.mark.parametrize(
    ("bounds", "to", "back", "scale"),
    [
        ((0.0, 1.0), lambda p: np.log(p / (1 - p)), lambda z: 1 / (1 + np.exp(-z)), "logit"),
        # Fisher's z: the logit of (r + 1) / 2 is 2 atanh(r), and a t interval does not
        # depend on the scale's factor
        ((-1.0, 1.0), np.arctanh, np.tanh, "Fisher z"),
        ((0.0, 100.0), lambda b: np.log(b / (100 - b)), lambda z: 100 / (1 + np.exp(-z)), "logit"),
        ((0.0, math.inf), np.log, np.exp, "log"),
        ((-math.inf, 1.0), lambda v: -np.log(1 - v), lambda z: 1 - np.exp(-z), "log"),
    ],
)
def test_the_interval_is_formed_on_the_scale_of_the_range(bounds, to, back, scale):
    lo, hi = bounds
    width = hi - lo if math.isfinite(hi - lo) else 1.0
    centre = (lo if math.isfinite(lo) else 0.0) + 0.3 * width
    span = 0.1 * width
    values = centre + span * np.array([-0.4, 0.3, 0.1, -0.2, 0.5])
    r = jackknife_t_interval(centre, values, 0.95, bounds)
    assert r.scale == scale and r.df == 4
    assert (r.low, r.high) == pytest.approx(_by_hand(centre, values, 0.95, to, back), rel=1e-9)
    assert lo < r.low < centre < r.high < hi


def test_a_value_on_a_bound_is_clipped_and_said_so():
    # F1 = 1 leaving a cluster out: the logit is infinite; the metric's own scale, clipped
    values = np.array([1.0, 0.9, 0.95, 0.8])
    r = jackknife_t_interval(0.9, values, 0.95, (0.0, 1.0))
    low, high = _by_hand(0.9, values, 0.95, lambda v: v, lambda v: v)
    assert r.scale == "clipped" and high > 1.0
    assert (r.low, r.high) == pytest.approx((low, 1.0), rel=1e-12)


def test_no_interval_without_three_defined_values_that_differ():
    assert jackknife_t_interval(0.5, np.array([0.4, 0.6]), 0.95, (0.0, 1.0)) is None
    assert jackknife_t_interval(0.5, np.array([0.5, 0.5, 0.5, 0.5]), 0.95) is None
    assert jackknife_t_interval(0.5, np.array([0.4, math.nan, 0.6]), 0.95) is None
    # an undefined leave-one-out value is left out, with a degree of freedom fewer
    r = jackknife_t_interval(0.5, np.array([0.4, math.nan, 0.6, 0.55]), 0.95, (0.0, 1.0))
    assert r.df == 2
    assert r == jackknife_t_interval(0.5, np.array([0.4, 0.6, 0.55]), 0.95, (0.0, 1.0))


def _f1_five_clusters():
    rng = np.random.default_rng(4)
    y = (rng.random(60) < 0.3).astype(int)
    p = np.where(rng.random(60) < 0.8, y, 1 - y)
    return y, p, np.arange(60) // 12


def test_a_vacuous_bootstrap_t_of_f1_gives_way_to_the_jackknife_t_in_every_door():
    y, p, cl = _f1_five_clusters()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.ci(y, p, metric="f1", clusters=cl, seed=0, n_resamples=2000)
        t = booteval.ci(y, p, metric="f1", clusters=cl, seed=0, n_resamples=2000,
                        method="studentized")  # fmt: skip
    # the equal-tailed bootstrap-t the rule takes reaches past both ends of [0, 1]
    assert t.details.get("vacuous"), (t.low, t.high)
    assert r.details["auto"]["method"] == "studentized" and r.method == "jackknife-t"
    # the reference: scikit-learn's F1 leaving out each cluster in turn
    loo = [f1_score(y[cl != g], p[cl != g]) for g in range(5)]
    logit = lambda v: np.log(v / (1 - v))  # noqa: E731
    want = _by_hand(f1_score(y, p), loo, 0.95, logit, lambda z: 1 / (1 + np.exp(-z)))
    assert (r.low, r.high) == pytest.approx(want, rel=1e-9)
    assert 0.0 < r.low < r.estimate < r.high < 1.0
    assert r.mcse_low == r.mcse_high == 0.0 and "vacuous" not in r.details
    note = next(n for n in r.notes if "unbounded or spanned the whole range" in n)
    assert "cluster jackknife t interval (5 leave-one-cluster-out values, t on 4" in note
    assert "logit scale" in note
    # the same interval from compare (each system's) and leaderboard
    other = np.where(np.arange(60) % 5 == 0, 1 - y, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pair = booteval.compare(y, other, p, metric="f1", clusters=cl, seed=0, n_resamples=2000)
        board = booteval.leaderboard({"a": other, "b": p}, y_true=y, metric="f1", clusters=cl,
                                     seed=0, n_resamples=2000)  # fmt: skip
    assert pair.interval_b == (r.low, r.high)
    e = board.entry("b")
    assert (e.low, e.high) == (r.low, r.high)


def test_a_correlation_s_jackknife_t_is_fisher_s_z():
    rng = np.random.default_rng(0)
    cl = np.arange(40) // 8
    x = rng.normal(size=40) + rng.normal(size=5)[cl]
    y = 0.5 * x + rng.normal(size=40) + rng.normal(size=5)[cl]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.ci(x, y, metric="pearson", clusters=cl, seed=0, n_resamples=2000)
    assert r.method == "jackknife-t"
    loo = [stats.pearsonr(x[cl != g], y[cl != g])[0] for g in range(5)]
    want = _by_hand(stats.pearsonr(x, y)[0], loo, 0.95, np.arctanh, np.tanh)
    assert (r.low, r.high) == pytest.approx(want, rel=1e-9)
    assert -1.0 < r.low < r.high < 1.0


def test_average_precision_with_few_clusters_takes_the_jackknife_t_against_sklearn():
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.3).astype(int)
    s = y + rng.normal(size=200)
    cl = np.arange(200) // 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.ci(y, s, metric="average_precision", clusters=cl, seed=0, n_resamples=300)
        board = booteval.leaderboard({"a": s, "b": -s}, y_true=y, metric="average_precision",
                                     clusters=cl, seed=0, n_resamples=300)  # fmt: skip
    assert r.method == "jackknife-t" and r.details["auto"]["method"] == "jackknife-t"
    loo = [average_precision_score(y[cl != g], s[cl != g]) for g in range(10)]
    logit = lambda v: np.log(v / (1 - v))  # noqa: E731
    want = _by_hand(average_precision_score(y, s), loo, 0.95, logit, lambda z: 1 / (1 + np.exp(-z)))
    assert (r.low, r.high) == pytest.approx(want, rel=1e-9)
    assert (board.entry("a").low, board.entry("a").high) == (r.low, r.high)


def test_where_the_jackknife_cannot_be_formed_the_default_keeps_a_bootstrap():
    # every positive in one of 3 clusters: without it the AP is undefined, 2 values remain
    rng = np.random.default_rng(1)
    y = np.zeros(30, dtype=int)
    y[:4] = 1
    s = y + rng.normal(size=30)
    cl = np.repeat(np.arange(3), 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.ci(y, s, metric="average_precision", clusters=cl, seed=0, n_resamples=200,
                        n_inner=20)  # fmt: skip
    assert r.details["auto"]["method"] == "studentized-symmetric"  # the nested bootstrap-t
    assert r.method in ("studentized-symmetric", "bca") and 0.0 <= r.low < r.high <= 1.0


def test_an_interval_that_says_nothing_is_no_answer():
    # leave-one-out values at the ends of the range: the interval spans all of it (or is
    # infinite on a one-sided range), and the caller takes another
    edge = np.array([1e-300, 0.5, 1 - 1e-16, 0.3])
    assert jackknife_t_interval(0.5, edge, 0.95, (0.0, 1.0)) is None
    assert (
        jackknife_t_interval(5.0, np.array([1e-300, 5.0, 1e300, 3.0]), 0.95, (0.0, math.inf))
        is None
    )


def _leave_one_row_out_r(x, y):
    keep = ~np.eye(x.size, dtype=bool)
    return np.array([stats.pearsonr(x[k], y[k])[0] for k in keep])


@pytest.mark.parametrize("ties", [False, True])
def test_pearson_on_independent_rows_takes_the_row_jackknife_t_on_fisher_s_z(ties):
    rng = np.random.default_rng(3)
    x = rng.normal(size=40)
    y = 0.5 * x + rng.normal(size=40)
    if ties:  # ratings: many tied rows (the evaluator counts equal rows once)
        x, y = np.round(x), np.round(2 * y)
    kw = {"metric": "pearson", "seed": 0, "n_resamples": 500}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.ci(x, y, **kw)
        pair = booteval.compare(y, -x, x, **kw)
        board = booteval.leaderboard({"a": -x, "b": x}, y_true=y, **kw)
    assert r.method == "jackknife-t" and r.details["auto"]["method"] == "jackknife-t"
    want = _by_hand(stats.pearsonr(x, y)[0], _leave_one_row_out_r(x, y), 0.95, np.arctanh,
                    np.tanh)  # fmt: skip
    assert (r.low, r.high) == pytest.approx(want, rel=1e-9)
    assert r.mcse_low == r.mcse_high == 0.0
    assert any("40 leave-one-row-out values, t on 39 degrees of freedom, on the Fisher z" in n
               for n in r.notes)  # fmt: skip
    # one answer: compare's system B and the leaderboard's entry are ci's
    assert pair.interval_b == pytest.approx((r.low, r.high), rel=1e-12)
    assert (board.entry("b").low, board.entry("b").high) == pytest.approx((r.low, r.high))
    # the bootstrap still ran, for with_method
    assert r.with_method("percentile").method == "percentile"


def test_pearson_s_row_jackknife_without_width_gives_the_percentile_interval():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.ci([0.0, 1.0, 2.0], [0.0, 2.0, 1.0], metric="pearson", seed=0)
    assert r.method == "percentile" and r.details["auto"]["method"] == "jackknife-t"
    assert any("jackknife t interval has no width here" in n for n in r.notes)
    assert -1.0 <= r.low <= r.high <= 1.0
