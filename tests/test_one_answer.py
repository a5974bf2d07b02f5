"""One question, one answer: the same data, seed, B and method give the same interval
through ``ci``, ``compare`` and ``leaderboard``; the studentized comparison divides each
resample's difference by that resample's own standard error."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import booteval
from booteval.core.design import make_design
from booteval.core.streams import generator


def _scores(n=120, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.05, 0.2, n), 0, 1)
    return a, b


# ---------------------------------------------------------------- the studentized comparison
@pytest.mark.parametrize("engine", ["numpy", "auto"])
@pytest.mark.parametrize("clustered", [False, True])
def test_studentized_t_star_rebuilt_from_the_drawn_rows(engine, clustered):
    """Each replicate's difference and standard error, rebuilt by hand from that
    replicate's own drawn units (the plug-in delta-method SE of a difference of means)."""
    a, b = _scores()
    n = a.size
    clusters = np.repeat(np.arange(30), 4) if clustered else None
    bb = 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.compare(
            a, b, method="studentized", n_resamples=bb, seed=3, clusters=clusters, engine=engine
        )
    plan = make_design(n, clusters=clusters)
    weights = plan.unit_weights(3, 0, bb)  # the NumPy engine's draws of the units
    unit = plan.unit_of_row
    n_c = np.bincount(unit).astype(float)
    a_c, b_c = np.bincount(unit, weights=a), np.bincount(unit, weights=b)
    rep_se = r.details["replicate_standard_errors"]
    assert rep_se.shape == (bb,)
    for i, w in enumerate(weights):
        total = w @ n_c
        mean_a, mean_b = (w @ a_c) / total, (w @ b_c) / total
        assert r.distribution[i] == pytest.approx(mean_b - mean_a, abs=1e-12)
        z = ((b_c - n_c * mean_b) - (a_c - n_c * mean_a)) / total
        var = w @ z**2 - (w @ z) ** 2 / w.sum()
        assert rep_se[i] == pytest.approx(np.sqrt(var), rel=1e-9)
    # the interval is formed from exactly these t*: estimate -/+ quantile(t*) * se
    d = r.difference
    se_hat = r.details["standard_error"]
    t = np.sort((r.distribution - d) / rep_se)
    k = int(np.ceil(0.975 * bb)) - 1  # the upper quantile's order statistic, within one
    assert d - t[min(k + 1, bb - 1)] * se_hat <= r.low <= d - t[k - 1] * se_hat
    k = int(np.ceil(0.025 * bb)) - 1
    assert d - t[k + 1] * se_hat <= r.high <= d - t[max(k - 1, 0)] * se_hat


def test_studentized_nested_t_star_rebuilt_from_the_same_resample():
    """ROC-AUC has no analytic SE of a difference: each replicate's SE is the SD of a
    nested bootstrap drawn from that replicate's own units."""
    rng = np.random.default_rng(1)
    n = 60
    y = rng.integers(0, 2, n)
    s_a = y + rng.normal(0, 1.0, n)
    s_b = y + rng.normal(0, 0.7, n)
    bb, inner = 12, 15
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = booteval.compare(
            y, s_a, s_b, metric="roc_auc", method="studentized", n_resamples=bb, seed=4,
            n_inner=inner, confidence_level=0.5,
        )  # fmt: skip
    plan = make_design(n)
    weights = plan.unit_weights(4, 0, bb)
    rep_se = r.details["replicate_standard_errors"]

    def diff(w):
        keep = w > 0
        return roc_auc_score(y[keep], s_b[keep], sample_weight=w[keep]) - roc_auc_score(
            y[keep], s_a[keep], sample_weight=w[keep]
        )

    for i, w in enumerate(weights):
        assert r.distribution[i] == pytest.approx(diff(w), abs=1e-12)
        nested = plan.nested_unit_weights(w, inner, generator("nested", 4, i))
        values = np.array([diff(v) for v in nested])
        assert rep_se[i] == pytest.approx(np.std(values, ddof=1), rel=1e-9)
