"""The compiled Spearman, Kendall and average-precision kernels: each replicate equals the
statistic of SciPy or scikit-learn on the drawn rows, the NumPy evaluators on the same
weights, and the engines agree in distribution under every design."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import booteval
from booteval.core.design import make_design
from booteval.metrics import get_metric

numba = pytest.importorskip("numba")
K = pytest.importorskip("booteval.core.kernels")
RK = pytest.importorskip("booteval.core.rank_kernels")

KINDS = ("spearman", "kendall", "average_precision")


def _data(kind: str, n: int, seed: int, decimals: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "average_precision":
        y = (rng.random(n) < 0.35).astype(int)
        return y, np.round(rng.normal(size=n) + y, decimals)
    x = np.round(rng.normal(size=n), decimals)
    return x, np.round(x + rng.normal(size=n), decimals)


def _reference(kind: str, a: np.ndarray, b: np.ndarray) -> float:
    """The statistic of the expanded data by SciPy / scikit-learn."""
    from sklearn.metrics import average_precision_score

    if kind == "spearman":
        return stats.spearmanr(a, b).statistic
    if kind == "kendall":
        return stats.kendalltau(a, b).statistic
    return average_precision_score(a, b) if a.any() else np.nan


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(KINDS),
    n=st.integers(2, 40),
    seed=st.integers(0, 10_000),
    decimals=st.integers(0, 2),
)
def test_values_equal_the_numpy_evaluators_on_the_same_weights(kind, n, seed, decimals) -> None:
    a, b = _data(kind, n, seed, decimals)
    ev = get_metric(kind).bind((a, b), make_design(n))
    rng = np.random.default_rng(seed + 1)
    w = rng.poisson(1.0, size=(12, n))
    w[0] = 0  # nothing drawn: undefined
    w[1] = 0
    w[1, 0] = 4  # one row drawn four times: undefined
    got = RK.rank_values(ev, w)
    want = ev._from_row_weights(w.astype(float))
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.allclose(got, want, rtol=0, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("kind", KINDS)
def test_each_replicate_is_the_statistic_of_its_drawn_rows(kind: str) -> None:
    n = 300
    a, b = _data(kind, n, 4)
    r = booteval.ci(a, b, metric=kind, n_resamples=200, seed=11, method="percentile")
    assert "numba engine" in r.design and not r.notes
    for rep in (0, 57, 199):
        idx = K.drawn_indices(11, rep, n)
        assert r.distribution[rep] == pytest.approx(_reference(kind, a[idx], b[idx]), abs=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_clusters_weigh_each_row_by_its_clusters_draws(kind: str) -> None:
    n = 360
    a, b = _data(kind, n, 5)
    cl = np.arange(n) // 6
    r = booteval.ci(a, b, metric=kind, clusters=cl, n_resamples=150, seed=2, method="percentile")
    assert "numba engine" in r.design and not r.notes
    for rep in (0, 149):
        rows = np.repeat(np.arange(n), np.bincount(K.drawn_indices(2, rep, 60), minlength=60)[cl])
        assert r.distribution[rep] == pytest.approx(_reference(kind, a[rows], b[rows]), abs=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_engines_agree_in_distribution_under_each_design(kind: str) -> None:
    n = 400
    a, b = _data(kind, n, 6, decimals=2)
    strata = np.arange(n) % 3
    cl = np.arange(n) // 4
    for design in ({}, {"strata": strata}, {"clusters": cl}):
        kw = {"metric": kind, "n_resamples": 3000, "method": "percentile", **design}
        fast = booteval.ci(a, b, seed=1, **kw)
        slow = booteval.ci(a, b, seed=2, engine="numpy", **kw)
        assert "numba engine" in fast.design
        assert fast.estimate == slow.estimate
        se = slow.distribution.std(ddof=1)
        assert fast.distribution.std(ddof=1) / se == pytest.approx(1.0, abs=0.08)
        assert abs(fast.distribution.mean() - slow.distribution.mean()) < 0.15 * se
        assert stats.ks_2samp(fast.distribution, slow.distribution).pvalue > 1e-4


@pytest.mark.parametrize("kind", KINDS)
def test_same_seed_same_result_any_batch_or_threads(kind: str) -> None:
    a, b = _data(kind, 250, 7)
    kw = {"metric": kind, "n_resamples": 300, "seed": 8, "method": "bca"}
    ref = booteval.ci(a, b, workers=1, **kw)
    for extra in ({"workers": 2}, {"batch": 7}, {"batch": 1000, "workers": 2}):
        r = booteval.ci(a, b, **kw, **extra)
        assert np.array_equal(r.distribution, ref.distribution, equal_nan=True)
        assert (r.low, r.high) == (ref.low, ref.high)


@pytest.mark.parametrize("kind", ["spearman", "kendall"])
def test_paired_systems_share_each_replicates_rows(kind: str) -> None:
    rng = np.random.default_rng(9)
    n = 200
    x = np.round(rng.normal(size=n), 1)
    m1 = np.round(x + rng.normal(size=n), 1)
    m2 = np.round(x + 2 * rng.normal(size=n), 1)
    c = booteval.compare(x, m1, m2, metric=kind, n_resamples=100, seed=3, method="percentile")
    assert "numba engine" in c.design and not c.notes
    for rep in (0, 99):
        idx = K.drawn_indices(3, rep, n)
        assert c.distribution_a[rep] == pytest.approx(_reference(kind, x[idx], m1[idx]), abs=1e-12)
        assert c.distribution_b[rep] == pytest.approx(_reference(kind, x[idx], m2[idx]), abs=1e-12)
    board = booteval.leaderboard({"m1": m1, "m2": m2}, y_true=x, metric=kind, n_resamples=500,
                                 seed=3)  # fmt: skip
    assert "numba engine" in board.design
