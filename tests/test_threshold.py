"""Threshold refit per resample: the vectorized search against brute force, the test metric
against scikit-learn, the two-level interval against the single-level one, pairing, and errors."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from booteval import (
    BootevalError,
    CIResult,
    DegenerateIntervalWarning,
    InvalidInputError,
)
from booteval.core.design import make_design
from booteval.core.kernels import drawn_indices
from booteval.methods.threshold import (
    ThresholdCIResult,
    ThresholdComparisonResult,
    threshold_ci,
    threshold_compare,
)
from booteval.methods.threshold_fit import (
    _METRICS,
    _RULES,
    THRESHOLD_METRICS,
    THRESHOLD_RULES,
    _counts_at,
    _derived_seed,
    _fit_vectorized,
    _Sorted,
    _TestSet,
    fit_threshold,
    threshold_metric,
)
from booteval.results import ComparisonResult

RULE_CASES = [
    ("max_f1", None),
    ("youden", None),
    ("precision_at_recall", 0.7),
    ("recall_at_precision", 0.75),
]


# ------------------------------------------------------------------ brute force
def brute_threshold(y, s, w, rule, target):
    """Loop over the distinct scores of the expanded data; exact objectives; ties -> highest."""
    w = np.asarray(w).astype(int)
    ye = np.repeat(np.asarray(y).astype(bool), w)
    se = np.repeat(np.asarray(s, dtype=float), w)
    p = int(ye.sum())
    n = ye.size - p
    if p == 0 or n == 0:
        return math.nan
    best, best_t = None, math.nan
    for t in sorted(set(se.tolist()), reverse=True):
        pred = se >= t
        tp, pp = int((pred & ye).sum()), int(pred.sum())
        fp = pp - tp
        ok = True
        if rule == "max_f1":
            obj = Fraction(2 * tp, pp + p)
        elif rule == "youden":
            obj = Fraction(tp, p) - Fraction(fp, n)
        elif rule == "precision_at_recall":
            ok, obj = tp / p >= target, Fraction(tp, pp)
        else:
            ok, obj = tp / pp >= target, Fraction(tp, p)
        if ok and (best is None or obj > best):
            best, best_t = obj, t
    return best_t


def sk_metric(name, y, s, w, t):
    """scikit-learn's value of the metric for ``s >= t`` on the row-expanded data.

    NaN where the metric's denominator is zero (scikit-learn would return
    ``zero_division``)."""
    w = np.asarray(w).astype(int)
    ye = np.repeat(np.asarray(y).astype(int), w)
    pe = (np.repeat(np.asarray(s, dtype=float), w) >= t).astype(int)
    n_pos, n_neg, n_pred = ye.sum(), (1 - ye).sum(), pe.sum()
    if name == "f1":
        return f1_score(ye, pe) if n_pos + n_pred > 0 else math.nan
    if name == "precision":
        return precision_score(ye, pe) if n_pred > 0 else math.nan
    if name == "recall":
        return recall_score(ye, pe) if n_pos > 0 else math.nan
    if name == "specificity":
        return recall_score(ye, pe, pos_label=0) if n_neg > 0 else math.nan
    if name == "youden":
        if n_pos == 0 or n_neg == 0:
            return math.nan
        return recall_score(ye, pe) + recall_score(ye, pe, pos_label=0) - 1
    return accuracy_score(ye, pe)


def tied_data(rng, n, shift=1.0):
    y = rng.integers(0, 2, n)
    s = np.round(shift * y + rng.normal(0.0, 1.0, n), 1)  # one decimal: many ties
    return y, s


def draw(rng, n, shift=1.0, prevalence=0.5):
    y = (rng.random(n) < prevalence).astype(int)
    return y, shift * y + rng.normal(0.0, 1.0, n)


# -------------------------------------------------- vectorized search vs brute
@pytest.mark.parametrize(("rule", "target"), RULE_CASES)
def test_vectorized_search_equals_brute_force_with_ties(rule, target):
    rng = np.random.default_rng(11)
    y, s = tied_data(rng, 60)
    assert np.unique(s).size < 45  # ties present
    w = make_design(60).unit_weights(seed=3, start=0, stop=40)
    w[0] = 1.0  # the original data
    w[1, :] = 0.0
    w[1, :5] = 2.0  # a replicate with few rows (possibly one class)
    got = _fit_vectorized(_RULES[rule], target, _Sorted.build(y.astype(bool), s), w)
    want = np.array([brute_threshold(y, s, wi, rule, target) for wi in w])
    np.testing.assert_array_equal(got, want)
    assert np.isfinite(got).sum() >= 30
    # the public one-set helper agrees on the original data
    assert fit_threshold(y, s, rule=rule, target=target) == want[0]


def test_search_finds_the_optimum_whatever_the_tie_rule():
    """Convention-free check: the objective at the chosen threshold is the maximum."""
    rng = np.random.default_rng(5)
    y, s = tied_data(rng, 80)
    for seed in range(3):
        wi = make_design(80).unit_weights(seed, 0, 1)[0]
        t = fit_threshold(y, s, rule="max_f1", weights=wi)
        values = [threshold_metric(y, s, c, metric="f1", weights=wi) for c in np.unique(s)]
        assert threshold_metric(y, s, t, metric="f1", weights=wi) == pytest.approx(max(values))


@pytest.mark.parametrize("metric", THRESHOLD_METRICS)
def test_test_metric_at_thresholds_equals_sklearn_on_expanded_data(metric):
    rng = np.random.default_rng(2)
    y, s = tied_data(rng, 50)
    w = make_design(50).unit_weights(seed=8, start=0, stop=30)
    # thresholds on scores (ties), between scores, below and above every score
    t = np.concatenate([rng.choice(s, 20), rng.uniform(-2.0, 3.0, 8), [-10.0, 10.0]])
    fn = _METRICS[metric][0]
    with np.errstate(divide="ignore", invalid="ignore"):
        got = fn(*_counts_at(_TestSet.build(y.astype(bool), s), w, t))
    want = np.array([sk_metric(metric, y, s, wi, ti) for wi, ti in zip(w, t, strict=True)])
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    assert np.isfinite(want).sum() >= 25
    for wi, ti, gi in zip(w[:5], t[:5], got[:5], strict=True):
        assert threshold_metric(y, s, ti, metric=metric, weights=wi) == pytest.approx(gi)


def test_operating_point_metrics_are_the_registry_metrics():
    """The threshold bootstrap reads its metrics from the one registry: each named
    operating-point metric is the registry metric of the same name on the labels that the
    threshold predicts."""
    from booteval.metrics import get_metric, list_metrics

    declared = {n for n in list_metrics() if get_metric(n).confusion_ratio is not None}
    assert set(THRESHOLD_METRICS) == declared
    assert {"precision", "recall", "f1", "specificity", "youden", "accuracy"} <= declared
    rng = np.random.default_rng(4)
    y, s = tied_data(rng, 60)
    for metric in THRESHOLD_METRICS:
        for t in (0.0, 0.4, 1.1):
            want = get_metric(metric)(y, (s >= t).astype(int))
            assert threshold_metric(y, s, t, metric=metric) == pytest.approx(want), metric


def _kernel_weights(seed: int, b: int, n: int, which: str) -> np.ndarray:
    """Row counts of the compiled engine's iid draws of one set, replicates 0 .. b - 1."""
    stream = f"kernels.threshold.{which}"
    return np.array([np.bincount(drawn_indices(seed, i, n, stream), minlength=n)
                     for i in range(b)], dtype=float)  # fmt: skip


def _weights(engine: str, seed: int, b: int, n_val: int, n_test: int) -> tuple:
    if engine == "numpy":
        return (make_design(n_val).unit_weights(_derived_seed(seed, 0), 0, b),
                make_design(n_test).unit_weights(_derived_seed(seed, 1), 0, b))  # fmt: skip
    return _kernel_weights(seed, b, n_val, "val"), _kernel_weights(seed, b, n_test, "test")


@pytest.mark.parametrize("engine", ["numpy", "auto"])
@pytest.mark.parametrize(("rule", "target"), RULE_CASES)
def test_every_replicate_equals_a_brute_force_two_level_recomputation(rule, target, engine):
    """End to end: rebuild each replicate from the designs' weights (the NumPy engine's,
    or the compiled engine's draws), refit by brute force, score the expanded test
    resample with scikit-learn."""
    rng = np.random.default_rng(21)
    y_val, s_val = tied_data(rng, 40)
    y_test, s_test = tied_data(rng, 70)
    b, seed = 60, 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = threshold_ci(
            y_val,
            s_val,
            y_test,
            s_test,
            rule=rule,
            target=target,
            n_resamples=b,
            seed=seed,
            confidence_level=0.9,
            engine=engine,
        )
    assert r.design.endswith(", numba engine") == (engine == "auto")
    metric = _RULES[rule].metric
    wv, wt = _weights(engine, seed, b, 40, 70)
    thresholds = np.array([brute_threshold(y_val, s_val, w, rule, target) for w in wv])
    values = np.array(
        [
            sk_metric(metric, y_test, s_test, w, t) if not math.isnan(t) else math.nan
            for w, t in zip(wt, thresholds, strict=True)
        ]
    )
    ok = np.isfinite(values) & np.isfinite(thresholds)
    assert ok.sum() >= 40
    np.testing.assert_allclose(r.distribution, values[ok], rtol=1e-12)
    np.testing.assert_array_equal(r.thresholds, thresholds[ok])
    assert r.n_undefined == b - ok.sum()
    t_hat = brute_threshold(y_val, s_val, np.ones(40), rule, target)
    assert r.threshold == t_hat
    assert r.estimate == pytest.approx(sk_metric(metric, y_test, s_test, np.ones(70), t_hat))


# ------------------------------------------------------------ two-level vs one
@pytest.mark.parametrize(("rule", "target"), [("max_f1", None), ("precision_at_recall", 0.8)])
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_refit_interval_is_wider_when_the_threshold_is_unstable(rule, target, seed):
    # small validation set, overlapping classes: the fitted threshold moves a lot. (Over 30
    # seeds of this simulation the smallest width ratio was 1.46 for max_f1, 1.91 for
    # precision_at_recall; the median 2.8 and 3.8.)
    rng = np.random.default_rng(100 + seed)
    y_val, s_val = draw(rng, 30)
    y_test, s_test = draw(rng, 2000)
    kw = {"rule": rule, "target": target, "n_resamples": 1000, "seed": seed}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = threshold_ci(y_val, s_val, y_test, s_test, strata_val=y_val, **kw)
        one = threshold_ci(y_val, s_val, y_test, s_test, strata_val=y_val, refit=False, **kw)
    assert two.estimate == one.estimate and two.threshold == one.threshold
    assert two.width > 1.3 * one.width, (two.width, one.width)
    assert np.all(one.thresholds == one.threshold)
    assert np.unique(two.thresholds).size >= 5
    assert two.refit and not one.refit


@pytest.mark.parametrize("engine", ["numpy", "auto"])
def test_single_level_only_resamples_the_test_set(engine):
    """And with the same test resamples as the two-level run."""
    rng = np.random.default_rng(3)
    y_val, s_val = draw(rng, 100)
    y_test, s_test = draw(rng, 150)
    kw = dict(n_resamples=80, seed=9, confidence_level=0.9, engine=engine)
    r = threshold_ci(y_val, s_val, y_test, s_test, refit=False, **kw)
    _, wt = _weights(engine, 9, 80, 100, 150)
    want = [sk_metric("f1", y_test, s_test, w, r.threshold) for w in wt]
    np.testing.assert_allclose(r.distribution, want, rtol=1e-12)
    assert "single-level" in r.design
    two = threshold_ci(y_val, s_val, y_test, s_test, **kw)
    again = [sk_metric("f1", y_test, s_test, w, t) for w, t in zip(wt, two.thresholds, strict=True)]
    np.testing.assert_allclose(two.distribution, again, rtol=1e-12)


@pytest.mark.parametrize("rule", ["max_f1", "youden"])
def test_compiled_replicates_under_clustered_and_stratified_designs(rule):
    """Clustered validation units and stratified clusters of test rows: each replicate
    is the brute-force refit on the drawn clusters' rows, scored by scikit-learn."""
    from booteval.core.kernels import _by_stratum, stream_key
    from booteval.core.threshold_kernels import _draw_units

    rng = np.random.default_rng(31)
    y_val, s_val = tied_data(rng, 60)
    y_test, s_test = tied_data(rng, 90)
    cv = rng.integers(0, 15, 60)
    ct, st_ = np.arange(90) // 3, (np.arange(90) // 3) % 2
    b, seed = 50, 6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = threshold_ci(y_val, s_val, y_test, s_test, rule=rule, clusters_val=cv,
                         clusters_test=ct, strata_test=st_, n_resamples=b, seed=seed,
                         confidence_level=0.9)  # fmt: skip
    assert r.design.endswith(", numba engine")
    dv = make_design(60, clusters=cv)
    dt = make_design(90, clusters=ct, strata=st_)

    def row_counts(design, which, i):
        counts = np.zeros(design.n_units, dtype=np.int64)
        perm, offsets = _by_stratum(np.asarray(design.unit_stratum, dtype=np.int64))
        _draw_units(counts, perm, offsets, *stream_key(seed, f"kernels.threshold.{which}"), i)
        for h in range(design.n_strata):  # each stratum keeps its number of units
            assert counts[design.unit_stratum == h].sum() == (design.unit_stratum == h).sum()
        return counts[design.unit_of_row].astype(float)

    thresholds = np.array([brute_threshold(y_val, s_val, row_counts(dv, "val", i), rule, None)
                           for i in range(b)])  # fmt: skip
    metric = _RULES[rule].metric
    values = np.array([sk_metric(metric, y_test, s_test, row_counts(dt, "test", i), t)
                       if not math.isnan(t) else math.nan
                       for i, t in enumerate(thresholds)])  # fmt: skip
    ok = np.isfinite(values) & np.isfinite(thresholds)
    assert ok.sum() >= 30
    np.testing.assert_allclose(r.distribution, values[ok], rtol=1e-12)
    np.testing.assert_array_equal(r.thresholds, thresholds[ok])


def test_engines_agree_in_distribution():
    """The compiled and the NumPy engine draw different resamples of the same two-level
    bootstrap: their distributions agree (means within Monte Carlo error, interval ends
    within a tenth of the half-width)."""
    rng = np.random.default_rng(5)
    y_val, s_val = draw(rng, 150)
    y_test, s_test = draw(rng, 400)
    kw = dict(rule="max_f1", n_resamples=3000, seed=2)
    a = threshold_ci(y_val, s_val, y_test, s_test, engine="numpy", **kw)
    c = threshold_ci(y_val, s_val, y_test, s_test, **kw)
    se = math.hypot(a.distribution.std(), c.distribution.std()) / math.sqrt(3000)
    assert abs(a.distribution.mean() - c.distribution.mean()) < 4 * se
    half = (a.high - a.low) / 2
    assert abs(a.low - c.low) < 0.1 * half and abs(a.high - c.high) < 0.1 * half


def test_refit_interval_not_wider_when_the_threshold_is_stable():
    """Large, well-separated validation set: refitting adds little."""
    rng = np.random.default_rng(4)
    y_val, s_val = draw(rng, 4000, shift=3.0)
    y_test, s_test = draw(rng, 500, shift=3.0)
    kw = {"n_resamples": 1000, "seed": 1, "rule": "youden"}
    two = threshold_ci(y_val, s_val, y_test, s_test, **kw)
    one = threshold_ci(y_val, s_val, y_test, s_test, refit=False, **kw)
    assert two.width < 1.3 * one.width


# --------------------------------------------------------------- invariances
def test_same_seed_same_result_for_any_batch_size():
    rng = np.random.default_rng(6)
    y_val, s_val = tied_data(rng, 70)
    y_test, s_test = tied_data(rng, 90)
    runs = [
        threshold_ci(
            y_val, s_val, y_test, s_test, rule="youden", n_resamples=300, seed=12, batch=bs
        )
        for bs in (None, 1, 7, 64, 300)
    ]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.distribution, runs[0].distribution)
        np.testing.assert_array_equal(r.thresholds, runs[0].thresholds)
        assert (r.low, r.high) == (runs[0].low, runs[0].high)
    pairs = [
        threshold_compare(
            y_val,
            s_val,
            s_val + 0.3 * y_val,
            y_test,
            s_test,
            s_test + 0.3 * y_test,
            n_resamples=200,
            seed=3,
            batch=bs,
        )
        for bs in (None, 13)
    ]
    np.testing.assert_array_equal(pairs[0].distribution, pairs[1].distribution)
    assert pairs[0].p_value == pairs[1].p_value
    # a shorter run is a prefix of a longer one
    short = threshold_ci(y_val, s_val, y_test, s_test, rule="youden", n_resamples=100, seed=12)
    np.testing.assert_array_equal(short.distribution, runs[0].distribution[:100])
    # another seed gives another distribution
    other = threshold_ci(y_val, s_val, y_test, s_test, rule="youden", n_resamples=300, seed=13)
    assert not np.array_equal(other.distribution, runs[0].distribution)


def test_callable_rule_equals_the_named_rule():
    rng = np.random.default_rng(8)
    y_val, s_val = tied_data(rng, 50)
    y_test, s_test = tied_data(rng, 60)

    def youden(y, s, w):
        return fit_threshold(y, s, rule="youden", weights=w)

    kw = {"n_resamples": 100, "seed": 2, "confidence_level": 0.9}
    named = threshold_ci(y_val, s_val, y_test, s_test, rule="youden", engine="numpy", **kw)
    called = threshold_ci(y_val, s_val, y_test, s_test, rule=youden, metric="youden", **kw)
    np.testing.assert_array_equal(called.distribution, named.distribution)
    np.testing.assert_array_equal(called.thresholds, named.thresholds)
    assert called.rule == "youden" and "youden" in called.metric


# ------------------------------------------------------------------- paired
def correlated_systems(rng, n, shift_b=0.25):
    y = rng.integers(0, 2, n)
    a = y + rng.normal(0.0, 1.0, n)
    b = a + shift_b * y + rng.normal(0.0, 0.15, n)  # B: A plus a small improvement
    return y, a, b


@pytest.mark.parametrize("data_seed", [10, 11, 12])
def test_paired_difference_is_narrower_than_combining_separate_intervals(data_seed):
    rng = np.random.default_rng(data_seed)
    y_val, a_val, b_val = correlated_systems(rng, 1000)
    y_test, a_test, b_test = correlated_systems(rng, 1500)
    kw = {"n_resamples": 1000, "seed": 5, "strata_val": y_val}
    r = threshold_compare(y_val, a_val, b_val, y_test, a_test, b_test, **kw)
    ra = threshold_ci(y_val, a_val, y_test, a_test, **kw)
    rb = threshold_ci(y_val, b_val, y_test, b_test, **kw)
    # the paired run uses the same resamples as each system's own run
    np.testing.assert_array_equal(r.distribution_a, ra.distribution)
    np.testing.assert_array_equal(r.distribution_b, rb.distribution)
    np.testing.assert_array_equal(r.thresholds_a, ra.thresholds)
    assert (r.estimate_a, r.estimate_b) == (ra.estimate, rb.estimate)
    assert r.difference == pytest.approx(rb.estimate - ra.estimate)
    assert r.interval_a == (ra.low, ra.high)
    # treating the two intervals as independent: width of the difference sqrt(wa^2 + wb^2).
    # Each system refits its own threshold, so the refit noise cancels only in part (ratios
    # 0.42 to 0.60 in this simulation).
    unpaired = math.hypot(ra.width, rb.width)
    assert r.high - r.low < 0.75 * unpaired, (r.high - r.low, unpaired)
    # the naive "do the intervals overlap" reading misses a real improvement
    assert ra.high > rb.low and r.excludes_zero and r.low > 0
    assert r.p_value < 0.01
    assert np.corrcoef(r.distribution_a, r.distribution_b)[0, 1] > 0.6


def test_paired_p_value_under_no_difference():
    rng = np.random.default_rng(12)
    y_val, a_val, _ = correlated_systems(rng, 200)
    y_test, a_test, _ = correlated_systems(rng, 400)
    with pytest.warns(DegenerateIntervalWarning, match="all 200 bootstrap replicates are equal"):
        same = threshold_compare(
            y_val, a_val, a_val, y_test, a_test, a_test, n_resamples=200, seed=1
        )
    assert same.difference == 0.0 and same.low == same.high == 0.0
    assert not same.excludes_zero
    flipped = threshold_compare(
        y_val,
        a_val,
        a_val + 0.01 * rng.normal(size=200),
        y_test,
        a_test,
        a_test,
        n_resamples=400,
        seed=1,
    )
    assert flipped.p_value > 0.05


def test_paired_result_type_and_text():
    rng = np.random.default_rng(13)
    y_val, a_val, b_val = correlated_systems(rng, 120)
    y_test, a_test, b_test = correlated_systems(rng, 200)
    r = threshold_compare(
        y_val,
        a_val,
        b_val,
        y_test,
        a_test,
        b_test,
        rule="precision_at_recall",
        target=0.8,
        n_resamples=200,
        seed=0,
        names=("base", "new"),
        alternative="greater",
    )
    assert isinstance(r, ThresholdComparisonResult) and isinstance(r, ComparisonResult)
    assert r.metric.startswith("precision (threshold: precision_at_recall(target=0.8)")
    assert "new - base" in r.summary() and "greater" in r.summary()
    assert r.design.startswith("paired two-level bootstrap")
    d = r.to_dict()
    assert d["threshold_a"] == r.threshold_a and d["rule"] == "precision_at_recall(target=0.8)"
    assert r.thresholds_a.shape == r.distribution.shape


# ---------------------------------------------------------- methods, designs
def test_bca_basic_normal_and_with_method():
    rng = np.random.default_rng(14)
    y_val, s_val = draw(rng, 80)
    y_test, s_test = draw(rng, 300)
    # the refitted replicates mostly fall below the estimate: BCa reaches the extreme replicate
    with pytest.warns(DegenerateIntervalWarning, match="extreme order statistics"):
        r = threshold_ci(y_val, s_val, y_test, s_test, method="bca", n_resamples=500, seed=0)
    assert r.details["z0"] > 0.5
    assert isinstance(r, ThresholdCIResult) and isinstance(r, CIResult)
    assert r.low < r.estimate < r.high
    assert math.isfinite(r.details["acceleration"]) and r.jackknife.size == 80 + 300
    for m in ("percentile", "basic", "normal"):
        other = r.with_method(m)
        assert other.method == m and np.array_equal(other.distribution, r.distribution)
        assert other.low < other.high
    assert (
        r.with_method("percentile", confidence_level=0.8).width < r.with_method("percentile").width
    )
    with pytest.raises(InvalidInputError, match="method"):
        r.with_method("studentized")
    text = r.describe()
    assert "two-level bootstrap" in text and "refitted thresholds" in text
    assert r.to_dict()["threshold"] == r.threshold
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        p = threshold_compare(
            y_val,
            s_val,
            s_val + 0.2 * y_val,
            y_test,
            s_test,
            s_test + 0.2 * y_test,
            method="bca",
            n_resamples=500,
            seed=0,
        )
    assert p.low <= p.difference <= p.high and 0 < p.p_value <= 1


def test_jackknife_equals_direct_leave_one_out():
    rng = np.random.default_rng(15)
    y_val, s_val = tied_data(rng, 25)
    y_test, s_test = tied_data(rng, 30)
    r = threshold_ci(y_val, s_val, y_test, s_test, method="bca", n_resamples=200, seed=0)
    keep = np.ones(25, bool)
    val_loo = []
    for i in range(25):
        keep[:] = True
        keep[i] = False
        t = brute_threshold(y_val[keep], s_val[keep], np.ones(24), "max_f1", None)
        val_loo.append(sk_metric("f1", y_test, s_test, np.ones(30), t))
    test_loo = []
    for j in range(30):
        w = np.ones(30)
        w[j] = 0
        test_loo.append(sk_metric("f1", y_test, s_test, w, r.threshold))
    want = np.concatenate(
        [
            (np.array(val_loo) - np.mean(val_loo)) * 24 / 25,
            (np.array(test_loo) - np.mean(test_loo)) * 29 / 30,
        ]
    )
    np.testing.assert_allclose(r.jackknife, want, atol=1e-12)


def test_cluster_and_strata_designs():
    rng = np.random.default_rng(16)
    y_val, s_val = draw(rng, 120)
    y_test, s_test = draw(rng, 240)
    groups = np.repeat(np.arange(40), 6)
    r = threshold_ci(
        y_val,
        s_val,
        y_test,
        s_test,
        clusters_test=groups,
        strata_val=y_val,
        n_resamples=300,
        seed=0,
        method="bca",
    )
    assert r.n_clusters == 40 and r.n == 240 and r.n_val == 120
    assert "40 clusters" in r.design and "stratified" in r.design
    assert r.jackknife.size == 120 + 40
    # stratifying validation by label: no replicate loses a class
    assert r.n_undefined == 0


def test_undefined_replicates_are_counted_dropped_or_raised():
    rng = np.random.default_rng(18)
    y_val, s_val = draw(rng, 30, shift=1.5)
    y_test, s_test = draw(rng, 200)
    kw = {"rule": "recall_at_precision", "target": 0.75, "n_resamples": 400, "seed": 0}
    t_hat = fit_threshold(y_val, s_val, rule="recall_at_precision", target=0.75)
    assert math.isfinite(t_hat)
    with pytest.warns(Warning, match="undefined on"):
        r = threshold_ci(y_val, s_val, y_test, s_test, **kw)
    assert r.n_undefined > 0 and r.distribution.size == 400 - r.n_undefined
    with pytest.raises(BootevalError, match="undefined"):
        threshold_ci(y_val, s_val, y_test, s_test, on_undefined="raise", **kw)


def test_labels_and_pos_label():
    rng = np.random.default_rng(18)
    y_val, s_val = draw(rng, 60)
    y_test, s_test = draw(rng, 80)
    base = threshold_ci(y_val, s_val, y_test, s_test, n_resamples=100, seed=0, confidence_level=0.9)
    names = np.array(["neg", "pos"])
    named = threshold_ci(
        names[y_val],
        s_val,
        names[y_test].tolist(),
        s_test,
        pos_label="pos",
        n_resamples=100,
        seed=0,
        confidence_level=0.9,
    )
    np.testing.assert_array_equal(named.distribution, base.distribution)
    flags = threshold_ci(
        y_val.astype(bool),
        s_val,
        y_test.astype(bool),
        s_test,
        pos_label=True,
        n_resamples=100,
        seed=0,
        confidence_level=0.9,
    )
    np.testing.assert_array_equal(flags.distribution, base.distribution)
    # a callable metric on the confusion counts
    fm = threshold_ci(
        y_val,
        s_val,
        y_test,
        s_test,
        metric=lambda tp, fp, fn, tn: tp / (tp + fn),
        n_resamples=100,
        seed=0,
        confidence_level=0.9,
    )
    rec = threshold_ci(
        y_val, s_val, y_test, s_test, metric="recall", n_resamples=100, seed=0, confidence_level=0.9
    )
    np.testing.assert_allclose(fm.distribution, rec.distribution)


# ------------------------------------------------------------------- errors
def _sets():
    rng = np.random.default_rng(19)
    y_val, s_val = draw(rng, 40)
    y_test, s_test = draw(rng, 50)
    return y_val, s_val, y_test, s_test


def _param(excinfo) -> str:
    return excinfo.value.parameter


def test_errors_name_the_parameter():
    y_val, s_val, y_test, s_test = _sets()
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(np.zeros(40, int), s_val, y_test, s_test)
    assert _param(e) == "y_val" and "both classes" in str(e.value)
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test, s_test, rule="max_accuracy")
    assert _param(e) == "rule"
    assert all(name in str(e.value) for name in THRESHOLD_RULES)
    for bad in (None, 0.0, 1.0, 1.5, -0.2, 80, True):
        with pytest.raises(InvalidInputError) as e:
            threshold_ci(y_val, s_val, y_test, s_test, rule="precision_at_recall", target=bad)
        assert _param(e) == "target"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test, s_test, rule="max_f1", target=0.5)
    assert _param(e) == "target"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val[:-1], y_test, s_test)
    assert _param(e) == "s_val"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test[:-3], s_test)
    assert _param(e) == "s_test"
    with pytest.raises(InvalidInputError) as e:
        threshold_compare(y_val, s_val, s_val[:-1], y_test, s_test, s_test)
    assert _param(e) == "s_val_b"
    with pytest.raises(InvalidInputError) as e:
        threshold_compare(y_val, s_val, s_val, y_test, s_test, s_test[:10])
    assert _param(e) == "s_test_b"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test, s_test, metric="auc")
    assert _param(e) == "metric" and "'f1'" in str(e.value)
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test, s_test, rule=lambda y, s, w: 0.0)
    assert _param(e) == "metric"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test, s_test, method="studentized")
    assert _param(e) == "method"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test, s_test, pos_label=2)
    assert _param(e) == "pos_label"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test + 1, s_test)
    assert _param(e) == "y_test"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(np.arange(40) % 3, s_val, y_test, s_test)
    assert _param(e) == "y_val" and "binary" in str(e.value)
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test, s_test, confidence_level=95)
    assert _param(e) == "confidence_level"
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, y_test, s_test, refit="yes")
    assert _param(e) == "refit"
    with pytest.raises(InvalidInputError) as e:
        threshold_compare(y_val, s_val, s_val, y_test, s_test, s_test, alternative="bigger")
    assert _param(e) == "alternative"
    # a target no threshold reaches on the full validation set (the top score is a negative)
    y_bad, s_bad = [1, 0, 1, 0], [0.1, 0.9, 0.2, 0.8]
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_bad, s_bad, y_test, s_test, rule="recall_at_precision", target=0.9)
    assert _param(e) == "target"
    with pytest.raises(InvalidInputError) as e:
        fit_threshold(y_bad, s_bad, rule="recall_at_precision", target=0.9)
    assert _param(e) == "target"
    # a test metric undefined at the fitted threshold
    with pytest.raises(InvalidInputError) as e:
        threshold_ci(y_val, s_val, np.zeros(50, int), s_test, metric="recall")
    assert _param(e) == "y_test"
