"""booteval.ci: inputs, results, errors, degenerate cases, and invariances over the registry."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats

import booteval
from booteval import (
    BootevalError,
    DegenerateIntervalWarning,
    InvalidInputError,
    UndefinedReplicateWarning,
    get_metric,
    list_metrics,
)

N = 72


def _data(name: str, seed: int = 0):
    """Inputs suited to each registry metric."""
    rng = np.random.default_rng(seed)
    if name == "mean":
        return (rng.gamma(2.0, size=N),)
    if name in (
        "accuracy",
        "error_rate",
        "balanced_accuracy",
        "mcc",
        "cohen_kappa",
        "precision",
        "recall",
        "f1",
        "specificity",
        "youden",
    ):
        y = rng.integers(0, 2, N)
        return y, np.where(rng.random(N) < 0.75, y, 1 - y)
    if name in ("bleu", "chrf"):
        words = np.array(["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "far", "away"])
        refs = [" ".join(rng.choice(words, rng.integers(4, 9))) for _ in range(N)]
        hyps = [
            " ".join(w if rng.random() < 0.7 else rng.choice(words) for w in r.split())
            for r in refs
        ]
        return np.array(refs, dtype=object), np.array(hyps, dtype=object)
    if name in ("roc_auc", "average_precision", "log_loss", "brier", "ece"):
        y = rng.integers(0, 2, N)
        return y, np.clip(0.3 * y + 0.7 * rng.random(N), 0.0, 1.0)
    x = rng.normal(size=N)
    return x, x + rng.normal(size=N)


def _available(name: str) -> bool:
    if name in ("bleu", "chrf"):
        try:
            import sacrebleu  # noqa: F401
        except ImportError:
            return False
    return True


METRICS = sorted(m for m in list_metrics() if _available(m))
DESIGNS = {
    "iid": {},
    "strata": {"strata": np.arange(N) % 2},
    "clusters": {"clusters": np.arange(N) // 4},
    "both": {"clusters": np.arange(N) // 4, "strata": (np.arange(N) // 4) % 2},
}


def _quiet_ci(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", booteval.BootevalWarning)
        return booteval.ci(*args, **kwargs)


# --------------------------------------------------------------------- registry
def _registry_cases() -> list:
    """Every metric, design and method; the fast lane keeps every method on iid rows and
    every design with the percentile method (the full suite runs all of them)."""
    return [
        (name, design, method)
        if design == "iid" or method == "percentile"
        else pytest.param(name, design, method, marks=pytest.mark.slow)
        for method in booteval.core.intervals.METHODS
        for design in DESIGNS
        for name in METRICS
    ]


@pytest.mark.parametrize(("name", "design", "method"), _registry_cases())
def test_registry_invariances(name, design, method):
    data = _data(name)
    kw = dict(metric=name, method=method, n_resamples=120, seed=3, **DESIGNS[design])
    if method == "studentized":
        kw["n_inner"] = 10
    r = _quiet_ci(*data, **kw)
    # R2: the estimate is the metric on the original data
    assert r.estimate == pytest.approx(get_metric(name)(*data), abs=1e-12)
    assert r.low <= r.high
    assert r.n == N and r.n_resamples == 120 and r.seed == 3
    assert r.distribution.size + r.n_undefined == 120
    if r.n_clusters is not None:
        assert r.n_clusters == N // 4
    # seed determinism and batch invariance
    again = _quiet_ci(*data, batch=7, **kw)
    np.testing.assert_array_equal(again.distribution, r.distribution)
    assert (again.low, again.high) == (r.low, r.high)


@pytest.mark.parametrize("name", METRICS)
def test_row_order_changes_nothing_but_monte_carlo_error(name):
    data = _data(name, seed=5)
    perm = np.random.default_rng(1).permutation(N)
    a = _quiet_ci(*data, metric=name, method="percentile", n_resamples=3000, seed=1)
    b = _quiet_ci(
        *[d[perm] for d in data], metric=name, method="percentile", n_resamples=3000, seed=2
    )
    assert a.estimate == pytest.approx(b.estimate, abs=1e-12)
    tol = 5 * np.hypot(a.standard_error, b.standard_error) / np.sqrt(3000) * 3
    assert abs(a.standard_error - b.standard_error) < 0.15 * a.standard_error + 1e-12
    assert a.low == pytest.approx(b.low, abs=tol + 5 * max(a.mcse_low, b.mcse_low))
    assert a.high == pytest.approx(b.high, abs=tol + 5 * max(a.mcse_high, b.mcse_high))


def test_workers_do_not_change_the_result():
    x = np.random.default_rng(0).normal(size=5000)
    a = booteval.ci(x, n_resamples=2000, seed=9, workers=1)
    b = booteval.ci(x, n_resamples=2000, seed=9, workers=2, batch=33)
    np.testing.assert_array_equal(a.distribution, b.distribution)


@pytest.mark.slow
def test_blas_threads_are_restored_after_overlapping_runs():
    """Runs limit BLAS to one thread while their workers run, and give the setting back,
    also when runs from several user threads overlap."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads() -> list[int]:
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    x = np.random.default_rng(0).normal(size=20_000)
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with ThreadPoolExecutor(3) as pool:
            results = list(
                pool.map(lambda s: booteval.ci(x, n_resamples=2000, seed=s, workers=2), range(9))
            )
        assert blas_threads() == before
    assert all(r.distribution.size == 2000 for r in results)


# ----------------------------------------------------------------------- inputs
def test_lists_arrays_and_pandas_agree():
    pd = pytest.importorskip("pandas")
    y, p = _data("accuracy")
    ref = booteval.ci(y, p, metric="accuracy", n_resamples=500, seed=0)
    for conv in (list, np.asarray, pd.Series):
        r = booteval.ci(conv(y), conv(p), metric="accuracy", n_resamples=500, seed=0)
        assert (r.estimate, r.low, r.high) == (ref.estimate, ref.low, ref.high)


def test_scores_default_to_the_mean():
    x = [0.2, 0.4, 0.9, 0.7]
    r = booteval.ci(x, n_resamples=400, seed=0)
    assert r.metric == "mean" and r.estimate == pytest.approx(0.55)


@pytest.mark.slow
def test_callables_take_the_generic_path_and_agree_with_the_registry():
    skm = pytest.importorskip("sklearn.metrics")
    y, p = _data("f1")
    fast = booteval.ci(y, p, metric="f1", n_resamples=600, seed=4, method="percentile")
    slow = booteval.ci(y, p, metric=skm.f1_score, n_resamples=600, seed=4, method="percentile")
    assert slow.metric == "f1_score"
    assert slow.estimate == pytest.approx(fast.estimate)
    # the generic path resamples rows, the registry path cells: same distribution
    assert slow.standard_error == pytest.approx(fast.standard_error, rel=0.15)
    bca = booteval.ci(y, p, metric=skm.f1_score, n_resamples=600, seed=4)
    assert bca.jackknife is not None and bca.jackknife.size == N


def test_callable_with_keyword_arguments():
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 90)
    p = np.where(rng.random(90) < 0.7, y, rng.integers(0, 3, 90))
    r = booteval.ci(
        y, p, metric=skm.f1_score, metric_kwargs={"average": "macro"}, n_resamples=300, seed=0
    )
    assert r.estimate == pytest.approx(skm.f1_score(y, p, average="macro"))
    assert r.metric == "f1_score(average='macro')"
    named = booteval.ci(
        y, p, metric="f1", metric_kwargs={"average": "macro"}, n_resamples=300, seed=0
    )
    assert named.estimate == pytest.approx(r.estimate)


def test_one_argument_callable():
    x = np.random.default_rng(0).exponential(size=50)
    r = booteval.ci(x, metric=np.median, method="percentile", n_resamples=500, seed=0)
    assert r.estimate == np.median(x)
    assert r.low < r.estimate < r.high


def test_callable_undefined_replicates_are_counted():
    def picky(x):
        if x.min() > 0.05:
            raise ValueError("no small value in this resample")
        return float(np.mean(x))

    x = np.array([0.01, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1])
    with pytest.warns(UndefinedReplicateWarning, match="no small value"):
        r = booteval.ci(x, metric=picky, method="percentile", n_resamples=400, seed=0)
    assert 50 < r.n_undefined < 250  # P(row 0 missing) = (7/8)^8 = 0.34
    assert r.distribution.size == 400 - r.n_undefined
    with pytest.raises(BootevalError, match="undefined on"):
        booteval.ci(x, metric=picky, n_resamples=400, seed=0, on_undefined="raise")


# ---------------------------------------------------------------------- results
def test_format_and_describe():
    y, p = _data("accuracy")
    r = booteval.ci(y, p, metric="accuracy", n_resamples=1000, seed=12, method="percentile")
    text = r.format(scale=100, digits=2)
    est, rest = text.split(" (")
    assert float(est) == pytest.approx(100 * r.estimate, abs=0.005)
    lo, hi = rest.rstrip(")").split(", ")
    assert float(lo) == pytest.approx(100 * r.low, abs=0.005)
    assert float(hi) == pytest.approx(100 * r.high, abs=0.005)
    assert str(r) == r.format()
    d = r.describe()
    for part in ("percentile", "B = 1000", "seed = 12", "iid bootstrap (72 rows)"):
        assert part in d
    assert r.to_dict()["seed"] == 12


def test_with_method_equals_a_fresh_run():
    x = np.random.default_rng(3).lognormal(size=80)
    base = booteval.ci(x, method="percentile", n_resamples=2000, seed=5)
    for method in ("basic", "normal", "bca"):
        again = booteval.ci(x, method=method, n_resamples=2000, seed=5)
        other = base.with_method(method)
        assert (other.low, other.high) == (again.low, again.high)
        assert other.method == method
    lvl = base.with_method("percentile", confidence_level=0.9)
    assert lvl.confidence_level == 0.9 and lvl.width < base.width
    with pytest.raises(InvalidInputError, match="studentized"):
        base.with_method("studentized")
    stud = booteval.ci(x, method="studentized", n_resamples=2000, seed=5)
    assert stud.with_method("percentile").low == base.low


def test_distribution_is_read_only():
    r = booteval.ci([1.0, 2.0, 3.0, 5.0], n_resamples=100, seed=0)
    with pytest.raises(ValueError):
        r.distribution[0] = 0.0


def test_unseeded_run_records_a_seed_that_reproduces_it():
    x = np.random.default_rng(0).normal(size=40)
    r = booteval.ci(x, n_resamples=300)
    again = booteval.ci(x, n_resamples=300, seed=r.seed)
    np.testing.assert_array_equal(r.distribution, again.distribution)


# ------------------------------------------------------------------ transforms
def test_logit_transform_matches_manual_normal_interval():
    from scipy.special import expit, logit, ndtri

    y, p = _data("accuracy", seed=8)
    r = booteval.ci(
        y, p, metric="accuracy", method="normal", transform="logit", n_resamples=2000, seed=0
    )
    base = booteval.ci(y, p, metric="accuracy", method="normal", n_resamples=2000, seed=0)
    n = N
    k = r.distribution * n
    z = logit((k + 0.5) / (n + 1))
    z0 = logit((r.estimate * n + 0.5) / (n + 1))
    half = ndtri(0.975) * np.std(z, ddof=1)
    centre = 2 * z0 - z.mean()
    back = (expit(np.array([centre - half, centre + half])) * (n + 1) - 0.5) / n
    assert (r.low, r.high) == pytest.approx(tuple(back), abs=1e-12)
    assert r.transform.startswith("logit")
    # the percentile interval is invariant to the (monotone) transform
    pl = base.with_method("percentile")
    pt = r.with_method("percentile")
    assert (pl.low, pl.high) == pytest.approx((pt.low, pt.high), abs=1e-12)


def test_logit_keeps_a_near_boundary_interval_inside_zero_one():
    y = np.ones(60, dtype=int)
    p = y.copy()
    p[:2] = 0
    r = booteval.ci(
        y, p, metric="accuracy", method="normal", transform="logit", n_resamples=2000, seed=0
    )
    assert 0.0 <= r.low < r.estimate < r.high <= 1.0


def test_normal_interval_is_clipped_to_the_metric_range_and_noted():
    y = np.ones(40, dtype=int)
    p = y.copy()
    p[0] = 0
    r = booteval.ci(y, p, metric="accuracy", method="normal", n_resamples=2000, seed=0)
    assert r.high == 1.0
    assert any("clipped" in note for note in r.notes)


def test_custom_transform_pair():
    x = np.random.default_rng(1).lognormal(size=60)
    r = booteval.ci(x, method="basic", transform=(np.log, np.exp), n_resamples=1000, seed=0)
    z = np.log(r.distribution)
    from booteval.core.intervals import order_statistic_quantile

    s = np.sort(z)
    lo = 2 * np.log(r.estimate) - order_statistic_quantile(s, 0.975)
    assert r.low == pytest.approx(np.exp(lo))


# --------------------------------------------------------------- degenerate data
def test_constant_scores_give_a_warned_zero_width_interval():
    with pytest.warns(DegenerateIntervalWarning, match="zero width"):
        r = booteval.ci(np.full(30, 7.0), n_resamples=200, seed=0)
    assert r.low == r.high == pytest.approx(7.0)
    assert any("zero width" in note for note in r.notes)


def test_constant_scores_in_zero_one_keep_a_width_from_the_binomial_bound():
    """Every score 0.7: at least a share q = 0.025^(1/30) of the population is at 0.7 (the
    exact bound after 30 of 30), the rest anywhere in [0, 1]."""
    r = booteval.ci(np.full(30, 0.7), n_resamples=200, seed=0)
    q = 0.025 ** (1 / 30)
    assert r.method == "quasi-wilson"
    assert (r.low, r.high) == pytest.approx((0.7 * q, 0.7 * q + 1 - q))
    assert any("exact binomial bound" in note for note in r.notes)
    # for 0/1 scores the same bound is Clopper-Pearson's interval of 30 out of 30
    cp_low = scipy.stats.beta.ppf(0.025, 30, 1)
    assert q == pytest.approx(cp_low)


def test_bca_with_estimate_outside_the_distribution_falls_back_to_percentile():
    # every replicate of the max of distinct values is <= the estimate; ties half
    # keeps z0 finite, but R boot's rule ('below') puts all mass below: z0 infinite
    x = np.arange(1.0, 6.0)
    with pytest.warns(DegenerateIntervalWarning, match="z0 is infinite"):
        r = booteval.ci(x, metric=np.min, n_resamples=500, seed=0, bca_ties="below")
    assert any("percentile interval returned" in note for note in r.notes)
    pct = r.with_method("percentile")
    assert (r.low, r.high) == (pct.low, pct.high)


def test_bca_ties_convention_changes_z0_as_documented():
    from scipy.special import ndtri

    y, p = _data("accuracy", seed=2)
    half = booteval.ci(y, p, metric="accuracy", method="bca", n_resamples=4000, seed=1)
    below = booteval.ci(
        y, p, metric="accuracy", method="bca", n_resamples=4000, seed=1, bca_ties="below"
    )
    d = half.distribution
    n_below = np.sum(d < half.estimate)
    n_equal = np.sum(d == half.estimate)
    assert n_equal > 100  # accuracy-like metrics tie with the estimate often
    assert half.details["z0"] == pytest.approx(ndtri((n_below + 0.5 * n_equal) / d.size))
    assert below.details["z0"] == pytest.approx(ndtri(n_below / d.size))
    assert half.details["z0"] > below.details["z0"]


def test_zero_variance_jackknife_sets_acceleration_to_zero_with_a_note():
    # the median of an odd sample with a wide central plateau: every leave-one-out
    # median is the plateau value, while the bootstrap still varies
    x = np.array([0.0, 1.0, 5.0, 5.0, 5.0, 5.0, 5.0, 9.0, 10.0])
    with pytest.warns(DegenerateIntervalWarning, match="zero variance"):
        r = booteval.ci(x, metric=np.median, n_resamples=2000, seed=0)
    assert r.details["acceleration"] == 0.0


def test_extreme_bca_levels_are_warned():
    x = np.concatenate([np.zeros(38), [1.0, 50.0]])
    with pytest.warns(DegenerateIntervalWarning, match="extreme order statistics"):
        booteval.ci(x, metric="mean", method="bca", n_resamples=100, seed=0)


def test_undefined_auc_replicates_are_dropped_counted_and_warned():
    y = np.array([1] + [0] * 19)
    s = np.linspace(0, 1, 20)[np.r_[10, 0:10, 11:20]]  # the positive sits mid-range
    with pytest.warns(UndefinedReplicateWarning, match="strata"):
        r = booteval.ci(y, s, metric="roc_auc", method="percentile", n_resamples=1000, seed=0)
    # P(the single positive is not drawn) = (19/20)^20 = 0.358
    assert 290 < r.n_undefined < 430
    # stratifying by class keeps both classes in every replicate
    strat = booteval.ci(
        y, s, metric="roc_auc", method="percentile", n_resamples=1000, seed=0, strata=y
    )
    assert strat.n_undefined == 0


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("kwargs", "param", "fragment"),
    [
        ({"confidence_level": 95}, "confidence_level", "0.95 rather than 95"),
        ({"confidence_level": 1.0}, "confidence_level", "strictly between"),
        ({"n_resamples": 10}, "n_resamples", "at least 40"),
        ({"n_resamples": 0}, "n_resamples", "integer >= 1"),
        ({"method": "BCa"}, "method", "'percentile'"),
        ({"metric": "acc"}, "metric", "accuracy"),
        ({"seed": -1}, "seed", "non-negative"),
        ({"batch": 0}, "batch", ">= 1"),
        ({"on_undefined": "ignore"}, "on_undefined", "'drop'"),
        ({"transform": "log"}, "transform", "'logit'"),
        ({"strata": [0, 1]}, "strata", "one label per row"),
        ({"clusters": [0, 1, 2]}, "clusters", "one label per row"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs, param, fragment):
    x = np.arange(12.0)
    with pytest.raises(InvalidInputError) as info:
        booteval.ci(x, **kwargs)
    assert info.value.parameter == param
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("args", "kwargs", "param"),
    [
        (([1, 0, 1], [1, 0]), {"metric": "accuracy"}, "y_pred"),
        (([],), {}, "scores"),
        (([1.0, np.nan, 2.0],), {}, "scores"),
        (([1.0, np.inf],), {}, "scores"),
        (([0, 1, 1], [0, 1, 0]), {}, "metric"),
        (([0.1, 0.2],), {"metric": "accuracy"}, "data"),
        (([0, 0, 0], [0.1, 0.4, 0.3]), {"metric": "roc_auc"}, "y_true"),
        (([0, 1, 1], [0.1, 0.4, 1.3]), {"metric": "log_loss"}, "y_score"),
    ],
)
def test_bad_data_name_the_parameter(args, kwargs, param):
    with pytest.raises(InvalidInputError) as info:
        booteval.ci(*args, n_resamples=100, seed=0, **kwargs)
    assert param in info.value.parameter


def test_logit_on_unbounded_metric_is_rejected():
    with pytest.raises(InvalidInputError, match="logit"):
        booteval.ci([1.0, 2.0, 3.0, 4.0], transform="logit", n_resamples=100, seed=0)


def test_metric_kwargs_with_a_metric_object_is_rejected():
    with pytest.raises(InvalidInputError, match="metric_kwargs"):
        booteval.ci([0, 1], [0, 1], metric=get_metric("f1"), metric_kwargs={"average": "macro"})


def test_auc_interval_invariant_under_strictly_increasing_transforms():
    """R21: value, bootstrap distribution and interval are unchanged."""
    y, s = _data("roc_auc", seed=4)
    base = booteval.ci(y, s, metric="roc_auc", n_resamples=2000, seed=2)
    for f in (np.exp, lambda v: v**3 + 2 * v, lambda v: np.log(v + 1e-3)):
        other = booteval.ci(y, f(s), metric="roc_auc", n_resamples=2000, seed=2)
        np.testing.assert_array_equal(other.distribution, base.distribution)
        assert (other.estimate, other.low, other.high) == (base.estimate, base.low, base.high)
    # a non-strict transform creates ties, which count one half: the value changes
    coarse = booteval.ci(y, np.round(s, 1), metric="roc_auc", n_resamples=2000, seed=2)
    assert coarse.estimate != base.estimate


@pytest.mark.slow
@pytest.mark.parametrize("method", ["percentile", "bca", "normal"])
def test_monte_carlo_errors_match_the_spread_over_seeds(method):
    """mcse_low / mcse_high predict how much the endpoints move between seeds."""
    x = np.random.default_rng(0).lognormal(size=300)
    runs = [booteval.ci(x, seed=s, n_resamples=2000, method=method, workers=1) for s in range(60)]
    for end in ("low", "high"):
        spread = np.std([getattr(r, end) for r in runs], ddof=1)
        predicted = np.mean([getattr(r, f"mcse_{end}") for r in runs])
        # 60 seeds estimate an SD to about +-9 %; the predictions are approximations
        assert 0.7 * spread < predicted < 1.45 * spread, (end, spread, predicted)


def test_few_units_warn_and_name_a_better_calibrated_interval():
    rng = np.random.default_rng(3)
    with pytest.warns(booteval.SmallSampleWarning, match=r"BCa on 20 rows.*studentized"):
        r = booteval.ci(rng.random(20), method="bca", seed=0, n_resamples=500)
    assert any("BCa on 20 rows" in note for note in r.notes)
    with pytest.warns(booteval.SmallSampleWarning, match=r"method='auto' \(a Jeffreys"):
        booteval.ci((rng.random(20) < 0.9).astype(int), method="bca", seed=0, n_resamples=500)
    clusters = np.arange(200) % 8
    with pytest.warns(booteval.SmallSampleWarning, match=r"only 8 clusters.*cluster_robust"):
        booteval.ci(rng.random(200), clusters=clusters, method="bca", seed=0, n_resamples=500)
    with pytest.warns(booteval.SmallSampleWarning, match=r"only 8 clusters.*studentized"):
        booteval.ci((rng.random(200) < 0.8).astype(int), clusters=clusters, method="percentile",
                    seed=0, n_resamples=500)  # fmt: skip
    # method="auto" (the default) picks the remedy itself: only the few-clusters note stays
    with pytest.warns(booteval.SmallSampleWarning, match=r"only 8 clusters.*method='auto' took"):
        r = booteval.ci(rng.random(200), clusters=clusters, seed=0, n_resamples=500)
    assert r.method == "cr2"  # a mean with fewer than 10 clusters
    with warnings.catch_warnings():
        warnings.simplefilter("error", booteval.SmallSampleWarning)
        assert booteval.ci(3 * rng.random(20), seed=0, n_resamples=500).method == "studentized"


def test_enough_units_or_another_method_say_nothing_about_sample_size():
    rng = np.random.default_rng(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", booteval.SmallSampleWarning)
        booteval.ci(rng.random(30), seed=0, n_resamples=500)
        booteval.ci(rng.random(20), seed=0, n_resamples=500, method="percentile")
        booteval.ci(rng.random(300), clusters=np.arange(300) % 30, seed=0, n_resamples=500)


# ------------------------------------------------------- n_resamples="auto" (a budget)
def test_auto_resamples_meet_the_monte_carlo_target_and_equal_a_fixed_run():
    x = np.random.default_rng(0).lognormal(size=400)
    r = booteval.ci(x, seed=1, n_resamples="auto", method="percentile")
    assert r.n_resamples >= 2_000
    assert max(r.mcse_low, r.mcse_high) <= 0.01 * (r.high - r.low) / 2
    assert f"B = {r.n_resamples}" in r.notes[-1]
    fixed = booteval.ci(x, seed=1, n_resamples=r.n_resamples, method="percentile")
    assert np.array_equal(fixed.distribution, r.distribution)
    assert (fixed.low, fixed.high) == (r.low, r.high)
    # the note stays with the result through with_method
    assert r.with_method("basic").notes[-1] == r.notes[-1]


def test_auto_resamples_follow_the_target_and_the_cap():
    x = np.random.default_rng(2).normal(size=300)
    loose = booteval.ci(x, seed=0, n_resamples="auto", mcse_target=0.05, method="percentile")
    tight = booteval.ci(x, seed=0, n_resamples="auto", mcse_target=0.01, method="percentile")
    assert loose.n_resamples < tight.n_resamples
    capped = booteval.ci(x, seed=0, n_resamples="auto", max_resamples=4_000)
    assert capped.n_resamples <= 4_000 and "stopped at max_resamples = 4000" in capped.notes[-1]


def test_auto_resamples_warn_once():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        booteval.ci(np.arange(20.0), method="bca", seed=0, n_resamples="auto", max_resamples=8_000)
    small = [w for w in caught if issubclass(w.category, booteval.SmallSampleWarning)]
    assert len(small) == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mcse_target": 0.05}, r"`mcse_target`.*n_resamples='auto'"),
        ({"max_resamples": 5_000}, r"`max_resamples`.*n_resamples='auto'"),
        ({"n_resamples": "auto", "mcse_target": 1.5}, r"`mcse_target`.*between 0 and 1"),
        ({"n_resamples": "auto", "max_resamples": 100}, r"`max_resamples`.*>= 2000"),
        ({"n_resamples": "lots"}, r"`n_resamples`"),
    ],
)
def test_auto_resamples_bad_settings_are_refused(kwargs, match):
    with pytest.raises(booteval.InvalidInputError, match=match):
        booteval.ci(np.arange(50.0), seed=0, **kwargs)


def test_the_command_line_takes_auto_resamples_for_ci_only(tmp_path, capsys):
    from booteval.cli import main

    path = tmp_path / "s.csv"
    x = np.random.default_rng(4).normal(size=300)
    path.write_text("s\n" + "\n".join(f"{float(v)!r}" for v in x) + "\n")
    args = ["--score", "s", "--seed", "1", "--method", "percentile", "-q"]
    assert main(["ci", str(path), "-B", "auto", *args]) == 0
    out = capsys.readouterr().out
    expected = booteval.ci(x, seed=1, n_resamples="auto", method="percentile")
    assert f"B = {expected.n_resamples}," in out and "n_resamples='auto'" in out
    assert main(["compare", str(path), "--a", "s", "--b", "s", "-B", "auto", "-q"]) == 2
    assert "only `booteval ci`" in capsys.readouterr().err


def test_auto_resamples_start_high_enough_for_the_level():
    x = np.random.default_rng(5).normal(size=200)
    r = booteval.ci(x, seed=0, n_resamples="auto", confidence_level=0.9995, method="percentile")
    assert r.n_resamples >= 4000 and "percentile endpoints" in r.notes[-1]
    with pytest.raises(booteval.InvalidInputError, match=r"`max_resamples`.*>= 4000"):
        booteval.ci(x, seed=0, n_resamples="auto", confidence_level=0.9995, max_resamples=3000)
    with pytest.raises(booteval.InvalidInputError, match=r"`n_resamples`.*'auto'"):
        booteval.ci(x, seed=0, n_resamples="AUTO")
