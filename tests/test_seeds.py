"""Seed pooling (issue 6, item 1): booteval.seeds.pool_seeds and compare_methods."""

from __future__ import annotations

import numpy as np
import pytest

import booteval
from booteval.core.errors import InvalidInputError
from booteval.methods.seeds import compare_methods, pool_seeds


def _runs(rng, n=200, r=5, mu=0.0, sd_seed=0.15, sd_row=1.0, sd_noise=0.5, rows=None):
    """Per-row scores x[r, i] = mu + s_r + a_i + e_ri (a_i shared by all runs)."""
    a = rng.normal(0, sd_row, n) if rows is None else rows
    s = rng.normal(0, sd_seed, r)
    return mu + s[:, None] + a[None, :] + rng.normal(0, sd_noise, (r, n))


def test_runs_share_the_same_resampled_rows_as_ci():
    rng = np.random.default_rng(0)
    x = _runs(rng, n=60, r=3)
    res = pool_seeds(x, n_resamples=500, seed=7)
    for r in range(3):
        one = booteval.ci(x[r], n_resamples=500, seed=7, method="percentile")
        np.testing.assert_allclose(res.run_distributions[:, r], one.distribution)
        assert res.run_estimates[r] == pytest.approx(one.estimate)
    assert res.estimate == pytest.approx(x.mean())
    assert res.n_runs == 3 and res.n == 60 and res.run_distributions.shape == (500, 3)


def test_cluster_design_is_shared_across_runs():
    rng = np.random.default_rng(1)
    x = _runs(rng, n=80, r=4)
    cl = np.repeat(np.arange(20), 4)
    res = pool_seeds(list(x), clusters=cl, n_resamples=300, seed=3)
    for r in range(4):
        one = booteval.ci(x[r], clusters=cl, n_resamples=300, seed=3, method="percentile")
        np.testing.assert_allclose(res.run_distributions[:, r], one.distribution)
    assert res.n_clusters == 20
    strat = pool_seeds(x, strata=np.arange(80) % 2, n_resamples=300, seed=3)
    assert np.isfinite(strat.low) and strat.low < strat.estimate < strat.high


def test_labels_and_predictions_and_reproducible():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    preds = np.array([np.where(rng.random(300) < 0.8, y, 1 - y) for _ in range(4)])
    a = pool_seeds(y, preds, metric="accuracy", n_resamples=400, seed=1)
    b = pool_seeds(y, preds, metric="accuracy", n_resamples=400, seed=1, batch=37)
    assert a.low == b.low and a.high == b.high
    accs = (preds == y).mean(axis=1)
    assert a.estimate == pytest.approx(accs.mean())
    assert a.between_run_variance == pytest.approx(np.var(accs, ddof=1))
    assert 0 <= a.low < a.estimate < a.high <= 1
    for m in ("percentile", "basic", "normal"):
        r = pool_seeds(y, preds, metric="accuracy", n_resamples=400, seed=1, method=m)
        assert r.low < r.estimate < r.high
    lo, hi = a.single_run_interval
    assert lo < a.estimate < hi
    assert "runs" in a.describe()


def test_errors_name_the_parameter():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 50)
    with pytest.raises(InvalidInputError) as e:
        pool_seeds(y, [y], metric="accuracy", n_resamples=100)
    assert e.value.parameter == "y_pred" and "at least 2 runs" in str(e.value)
    with pytest.raises(InvalidInputError) as e:
        pool_seeds(y, [y, y[:40]], metric="accuracy", n_resamples=100)
    assert e.value.parameter == "y_pred (run 1)" and "40 rows" in str(e.value)
    with pytest.raises(InvalidInputError) as e:
        pool_seeds([0.1, 0.2, 0.3], n_resamples=100)
    assert e.value.parameter == "scores"
    with pytest.raises(InvalidInputError) as e:
        pool_seeds(y[:40], [y, y], metric="accuracy", n_resamples=100)
    with pytest.raises(InvalidInputError) as e:
        pool_seeds(y, [y, y], metric="accuracy", method="bca", n_resamples=100)
    assert e.value.parameter == "method"
    with pytest.raises(InvalidInputError) as e:
        compare_methods(y, [y, y], [y[:30], y[:30]], metric="accuracy", n_resamples=100)
    assert e.value.parameter.startswith("y_pred of B")
    with pytest.raises(InvalidInputError) as e:
        compare_methods(y, [y, y], [y], metric="accuracy", n_resamples=100)
    assert e.value.parameter == "y_pred of B"


def test_compare_methods_basic():
    rng = np.random.default_rng(4)
    rows = rng.normal(0, 1, 150)
    a = _runs(rng, n=150, r=4, rows=rows, sd_seed=0.05)
    b = _runs(rng, n=150, r=6, mu=0.5, rows=rows, sd_seed=0.05)
    r = compare_methods(a, b, n_resamples=1000, seed=0, names=("base", "new"))
    assert r.difference == pytest.approx(b.mean() - a.mean())
    assert r.excludes_zero and r.p_value < 0.01 and r.low > 0
    assert r.result_a.n_runs == 4 and r.result_b.n_runs == 6
    # pairing: the shared row effect cancels, so the difference is far more precise
    assert r.test_variance_of_difference < 0.2 * r.result_b.test_variance_of_mean
    for m in ("percentile", "normal"):
        rm = compare_methods(a, b, n_resamples=1000, seed=0, method=m)
        assert rm.low > 0 and rm.p_value < 0.01
    assert "new - base" in r.summary()


@pytest.mark.simulation
@pytest.mark.slow
def test_pooled_interval_covers_method_mean_and_recovers_components():
    """Known components: seed var 0.0225, one run's test var (1 + 0.25)/n; R = 5 runs."""
    rng = np.random.default_rng(2024)
    n, runs, sims = 200, 5, 600
    sd_seed, sd_row, sd_noise = 0.15, 1.0, 0.5
    cover = cover_naive = 0
    seed_v, test_v, test_mean_v = [], [], []
    for i in range(sims):
        x = _runs(rng, n=n, r=runs, sd_seed=sd_seed, sd_row=sd_row, sd_noise=sd_noise)
        res = pool_seeds(x, n_resamples=400, seed=i)
        cover += res.low <= 0.0 <= res.high
        half = 1.96 * np.sqrt(res.test_variance_of_mean)  # ignores the seeds: undercovers
        cover_naive += abs(res.estimate) <= half
        seed_v.append(res.seed_variance)
        test_v.append(res.test_variance)
        test_mean_v.append(res.test_variance_of_mean)
    assert 0.925 <= cover / sims <= 0.975
    assert cover_naive / sims < 0.89
    assert np.mean(seed_v) == pytest.approx(sd_seed**2, rel=0.2)
    assert np.mean(test_v) == pytest.approx((sd_row**2 + sd_noise**2) / n, rel=0.1)
    true_test_mean = (sd_row**2 + sd_noise**2 / runs) / n
    assert np.mean(test_mean_v) == pytest.approx(true_test_mean, rel=0.1)


@pytest.mark.simulation
@pytest.mark.slow
def test_compare_methods_covers_true_difference():
    rng = np.random.default_rng(7)
    n, sims, delta = 150, 400, 0.1
    cover = 0
    for i in range(sims):
        rows = rng.normal(0, 1, n)
        a = _runs(rng, n=n, r=4, rows=rows, sd_seed=0.1)
        b = _runs(rng, n=n, r=4, mu=delta, rows=rows, sd_seed=0.1)
        r = compare_methods(a, b, n_resamples=300, seed=i)
        cover += r.low <= delta <= r.high
    assert 0.92 <= cover / sims <= 0.98
