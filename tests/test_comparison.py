"""booteval.compare: paired differences, p-values, pairing, errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import multinomial

import booteval
from booteval import InvalidInputError
from booteval.inference.comparison import bootstrap_p_value


def _paired_systems(n=400, seed=0, p_a=0.75, fix=0.3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < p_a, y, 1 - y)
    b = np.where(rng.random(n) < fix, y, a)  # B fixes some of A's errors: correlated errors
    return y, a, b


def test_difference_equals_difference_of_estimates_and_of_replicates():
    y, a, b = _paired_systems()
    r = booteval.compare(y, a, b, metric="accuracy", n_resamples=2000, seed=1)
    assert r.estimate_a == pytest.approx(np.mean(a == y))
    assert r.estimate_b == pytest.approx(np.mean(b == y))
    assert r.difference == pytest.approx(r.estimate_b - r.estimate_a)
    np.testing.assert_allclose(r.distribution, r.distribution_b - r.distribution_a)
    assert r.low <= r.difference <= r.high


def test_each_system_alone_matches_ci_in_distribution():
    y, a, b = _paired_systems(seed=3)
    r = booteval.compare(y, a, b, metric="accuracy", n_resamples=4000, seed=2)
    alone = booteval.ci(y, a, metric="accuracy", n_resamples=4000, seed=5)
    assert np.std(r.distribution_a) == pytest.approx(alone.standard_error, rel=0.06)
    assert np.mean(r.distribution_a) == pytest.approx(np.mean(alone.distribution), abs=0.002)


def test_paired_interval_is_narrower_than_unpaired_for_correlated_errors():
    y, a, b = _paired_systems(n=600, seed=4)
    r = booteval.compare(y, a, b, metric="accuracy", n_resamples=3000, seed=0)
    wa = r.interval_a[1] - r.interval_a[0]
    wb = r.interval_b[1] - r.interval_b[0]
    # independent resamples of the two systems would give about sqrt(wa^2 + wb^2)
    assert r.high - r.low < 0.6 * math.hypot(wa, wb)
    # and an unpaired bootstrap (independent weights for A and B) really is wider
    ra = booteval.ci(y, a, metric="accuracy", n_resamples=3000, seed=10, method="percentile")
    rb = booteval.ci(y, b, metric="accuracy", n_resamples=3000, seed=11, method="percentile")
    unpaired = rb.distribution - ra.distribution
    assert np.std(r.distribution) < 0.6 * np.std(unpaired)


def test_exact_enumeration_of_the_paired_difference_on_tiny_data():
    sa = np.array([0.1, 0.5, 0.2, 0.9])
    sb = np.array([0.3, 0.4, 0.6, 1.0])
    n = 4
    support, probs = [], []
    for counts in itertools.product(range(n + 1), repeat=n):
        if sum(counts) != n:
            continue
        c = np.array(counts)
        support.append(c @ (sb - sa) / n)
        probs.append(multinomial.pmf(c, n, np.full(n, 1 / n)))
    support, probs = np.array(support), np.array(probs)
    mean = probs @ support
    var = probs @ (support - mean) ** 2
    b = 100_000
    r = booteval.compare(sa, sb, n_resamples=b, seed=0, method="percentile")
    assert r.difference == pytest.approx(np.mean(sb - sa))
    assert np.mean(r.distribution) == pytest.approx(mean, abs=4 * math.sqrt(var / b))
    assert np.var(r.distribution) == pytest.approx(var, rel=0.02)
    for x in (0.0, 0.1, 0.2):
        cdf = probs[support <= x + 1e-12].sum()
        emp = np.mean(r.distribution <= x + 1e-12)
        assert emp == pytest.approx(cdf, abs=4 * math.sqrt(cdf * (1 - cdf) / b) + 1e-9)


def test_large_b_agreement_with_a_straightforward_reference():
    rng = np.random.default_rng(7)
    sa = rng.gamma(2.0, size=120)
    sb = sa + rng.normal(0.2, 0.5, size=120)
    r = booteval.compare(sa, sb, n_resamples=20_000, seed=3, method="percentile")
    ref_rng = np.random.default_rng(99)
    idx = ref_rng.integers(0, 120, size=(20_000, 120))
    ref = (sb[idx] - sa[idx]).mean(axis=1)
    sd = np.std(ref)
    assert r.standard_error == pytest.approx(sd, rel=0.03)
    for q, got in ((0.025, r.low), (0.975, r.high)):
        assert got == pytest.approx(np.quantile(ref, q), abs=0.06 * sd)


def test_clustered_comparison_resamples_clusters():
    rng = np.random.default_rng(1)
    g = np.repeat(np.arange(30), 8)
    effect = rng.normal(0, 0.5, 30)[g]  # the difference varies by cluster
    sa = rng.normal(size=240)
    sb = sa + 0.1 + effect
    iid = booteval.compare(sa, sb, n_resamples=2000, seed=0)
    clu = booteval.compare(sa, sb, n_resamples=2000, seed=0, clusters=g)
    assert clu.n_clusters == 30
    assert clu.high - clu.low > 1.8 * (iid.high - iid.low)


@pytest.mark.parametrize("method", booteval.core.intervals.METHODS)
def test_p_value_agrees_with_the_interval(method):
    y, a, b = _paired_systems(n=300, seed=8, fix=0.12)
    r = booteval.compare(y, a, b, metric="accuracy", n_resamples=4000, seed=2, method=method)
    if r.excludes_zero:
        assert r.p_value < 0.05 + 0.01
    else:
        assert r.p_value > 0.05 - 0.01
    one = booteval.compare(
        y, a, b, metric="accuracy", n_resamples=4000, seed=2, method=method, alternative="greater"
    )
    assert one.p_value <= r.p_value + 1e-12


def test_p_value_formulas_on_a_fixed_distribution():
    reps = np.linspace(-1.0, 3.0, 401)  # 401 values, 100 of them below 0 and one at 0
    # percentile: (1 + below + ties / 2) / (B + 1)
    assert bootstrap_p_value("percentile", 1.0, reps, "greater") == pytest.approx(101.5 / 402)
    # basic: mass at or above 2 * estimate
    assert bootstrap_p_value("basic", 1.0, reps, "greater") == pytest.approx(
        (1 + np.sum(reps > 2.0) + 0.5) / 402
    )
    from scipy.special import ndtr

    centre = 2 * 1.0 - reps.mean()
    assert bootstrap_p_value("normal", 1.0, reps, "greater") == pytest.approx(
        ndtr(-centre / reps.std(ddof=1))
    )
    two = bootstrap_p_value("percentile", 1.0, reps, "two-sided")
    assert two == pytest.approx(2 * 101.5 / 402)
    # far from zero: the smallest p-value B replicates can show
    assert bootstrap_p_value("percentile", 10.0, reps + 9.0, "greater") == pytest.approx(1 / 402)


@pytest.mark.slow
def test_bootstrap_test_rejects_at_about_the_nominal_rate_under_the_null():
    rejections = 0
    sims = 300
    for s in range(sims):
        rng = np.random.default_rng(1000 + s)
        y = rng.integers(0, 2, 200)
        a = np.where(rng.random(200) < 0.7, y, 1 - y)
        b = np.where(rng.random(200) < 0.7, y, 1 - y)  # same accuracy in expectation
        r = booteval.compare(
            y, a, b, metric="accuracy", n_resamples=400, seed=s, method="percentile", workers=1
        )
        rejections += r.p_value < 0.05
    rate = rejections / sims
    # binomial SE at 5 % over 300 simulations is 0.0126
    assert 0.015 <= rate <= 0.09


def test_compressed_joint_cells_for_count_metrics():
    y, a, b = _paired_systems(n=200_000, seed=0)
    r = booteval.compare(y, a, b, metric="f1", n_resamples=2000, seed=0)
    assert r.n == 200_000
    small = booteval.compare(y[:2000], a[:2000], b[:2000], metric="f1", n_resamples=500, seed=0)
    assert small.standard_error > r.standard_error


def test_summary_and_describe():
    y, a, b = _paired_systems(seed=9)
    r = booteval.compare(
        y, a, b, metric="accuracy", n_resamples=1000, seed=4, names=("baseline", "ours")
    )
    text = r.summary(scale=100, digits=1)
    assert text.startswith("accuracy: ours - baseline = ")
    assert "p = " in text
    d = r.describe()
    assert "paired iid bootstrap" in d and "seed = 4" in d
    assert r.to_dict()["name_b"] == "ours"


@pytest.mark.parametrize(
    ("args", "kwargs", "param"),
    [
        (([0, 1, 1], [0, 1, 1], [1, 1]), {"metric": "accuracy"}, "y_pred of system B"),
        (([0.1, 0.2], [0.3]), {}, "system B"),
        (([0.1, 0.2],), {}, "data"),
        (([0, 1, 1], [0, 1, 1]), {"metric": "accuracy"}, "data"),
        (([0.1, 0.2], [0.3, 0.4]), {"alternative": "bigger"}, "alternative"),
        (
            ([0, 1, 0, 1], [0, 0, 0, 0], [0, 1, 0, 1]),
            {"metric": "precision", "metric_kwargs": {"zero_division": np.nan}},
            "y_pred of system A",
        ),
    ],
)
def test_errors_name_the_parameter(args, kwargs, param):
    with pytest.raises(InvalidInputError) as info:
        booteval.compare(*args, n_resamples=100, seed=0, **kwargs)
    assert param in info.value.parameter


@pytest.mark.slow
def test_under_clustering_the_row_level_bootstrap_rejects_too_often():
    """Null: no true difference, but the difference varies by cluster (shared topic effects)."""
    sims, naive, clustered = 200, 0, 0
    g = np.repeat(np.arange(20), 15)
    for s in range(sims):
        rng = np.random.default_rng(5000 + s)
        topic = rng.normal(0, 0.6, 20)[g]  # per-cluster advantage of B, mean zero
        a = rng.normal(size=300)
        b = a + topic + rng.normal(0, 0.3, 300)
        kw = dict(n_resamples=400, seed=s, method="percentile", workers=1)
        naive += booteval.compare(a, b, **kw).p_value < 0.05
        clustered += booteval.compare(a, b, clusters=g, **kw).p_value < 0.05
    # binomial SE at 5 % over 200 simulations: 0.015
    assert naive / sims > 0.4
    assert 0.01 <= clustered / sims <= 0.11


def test_classical_tests_supply_the_p_value():
    from booteval.inference.delong import delong_test

    y, a, b = _paired_systems(n=300, seed=12)
    kw = dict(n_resamples=1000, seed=3)
    boot = booteval.compare(y, a, b, metric="accuracy", **kw)
    mc = booteval.compare(y, a, b, metric="accuracy", test="mcnemar", **kw)
    assert mc.p_value == booteval.mcnemar_test(y, a, b).p_value
    assert (mc.low, mc.high) == (boot.low, boot.high)  # the interval stays the bootstrap's
    perm = booteval.compare(y, a, b, metric="accuracy", test="permutation", **kw)
    direct = booteval.permutation_test(y, a, b, metric="accuracy", n_resamples=1000, seed=3)
    assert perm.p_value == direct.p_value and perm.test == "permutation"
    rng = np.random.default_rng(2)
    s1, s2 = rng.random(300), 0.3 * rng.random(300) + 0.7 * y
    dl = booteval.compare(y, s1, s2, metric="roc_auc", test="delong", **kw)
    assert dl.p_value == delong_test(y, s1, s2).p_value
    g = np.arange(300) // 10
    t = booteval.compare(s1, s2, test="t", clusters=g, **kw)
    assert t.p_value == booteval.paired_t_test(s1, s2, clusters=g).p_value
    assert t.details["test_result"].n_clusters == 30


@pytest.mark.parametrize(
    ("metric", "test", "kwargs"),
    [
        ("f1", "mcnemar", {}),
        ("accuracy", "delong", {}),
        ("accuracy", "t", {}),
        ("accuracy", "mcnemar", {"clusters": np.arange(300) // 10}),
        ("accuracy", "anova", {}),
    ],
)
def test_inapplicable_tests_are_refused(metric, test, kwargs):
    y, a, b = _paired_systems(n=300, seed=1)
    with pytest.raises(InvalidInputError) as info:
        booteval.compare(y, a, b, metric=metric, test=test, n_resamples=100, seed=0, **kwargs)
    assert info.value.parameter == "test"


def test_a_note_says_why_the_interval_and_a_classical_test_disagree():
    from booteval.inference.classical import disagreement_note

    (note,) = disagreement_note(-0.05, -0.003, 0.12, 0.95, "bca", "delong", "two-sided")
    assert "excludes 0" in note and "delong test gives p = 0.12" in note
    (note,) = disagreement_note(-0.01, 0.02, 0.01, 0.95, "bca", "mcnemar", "two-sided")
    assert "contains 0" in note
    assert disagreement_note(0.01, 0.02, 0.01, 0.95, "bca", "delong", "two-sided") == ()
    assert disagreement_note(-0.05, -0.003, 0.12, 0.95, "bca", "delong", "greater") == ()
