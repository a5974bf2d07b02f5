"""The compiled crossed bootstrap of the meta-evaluation: each replicate equals the NumPy
engine's level statistic on the same system and input counts (every level, coefficient and
design, with missing cells and ties), independent of batches and threads, and the engines
agree in distribution."""

from __future__ import annotations

import numpy as np
import pytest

import booteval
from booteval.meta import compare_correlations, correlate, correlate_metrics
from booteval.meta.core import Problem, matrices_iv

numba = pytest.importorskip("numba")
CK = pytest.importorskip("booteval.core.crossed_kernels")

LEVELS = ("system", "summary", "global")
COEFFICIENTS = ("pearson", "spearman", "kendall")


def _matrices(seed: int, n_sys: int = 7, n_inp: int = 11, missing: bool = True):
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(n_sys, 1))
    human = np.round(quality + rng.normal(size=(n_sys, n_inp)), 0)  # many ties
    metric = np.round(quality + rng.normal(size=(n_sys, n_inp)), 1)
    if missing:
        metric[rng.random((n_sys, n_inp)) < 0.1] = np.nan
    return metric, human


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("coefficient", COEFFICIENTS)
@pytest.mark.parametrize("resample", ["systems", "inputs", "both"])
def test_each_replicate_is_the_numpy_statistic_of_its_counts(level, coefficient, resample) -> None:
    metric, human = _matrices(3)
    prob = Problem(*matrices_iv(metric, human), level, coefficient)
    run = CK.crossed_runner(prob.stat, resample)
    values, _ = run(21, 0, 60, False)
    n_sys, n_inp = prob.n_systems, prob.n_inputs
    for b in range(60):
        v, w = CK.crossed_counts(21, b, n_sys, n_inp)
        vv = v[None].astype(float) if resample != "inputs" else None
        ww = w[None].astype(float) if resample != "systems" else None
        with np.errstate(all="ignore"):
            want = prob.stat(vv, ww)[0]
        if np.isnan(want):
            assert np.isnan(values[b])
        else:
            assert values[b] == pytest.approx(want, abs=1e-9)


def test_counts_draw_systems_then_inputs_uniformly() -> None:
    draws = np.array([np.r_[CK.crossed_counts(4, b, 5, 9)] for b in range(4000)])
    assert (draws[:, :5].sum(axis=1) == 5).all() and (draws[:, 5:].sum(axis=1) == 9).all()
    assert np.allclose(draws.mean(axis=0), 1.0, atol=0.05)
    assert np.allclose(draws.var(axis=0)[:5], 1 - 1 / 5, atol=0.08)


@pytest.mark.parametrize("level", LEVELS)
def test_correlate_runs_the_kernels_and_agrees_with_numpy_in_distribution(level: str) -> None:
    metric, human = _matrices(5, n_sys=12, n_inp=40, missing=False)
    for coefficient in COEFFICIENTS:
        kw = {"level": level, "coefficient": coefficient, "n_resamples": 3000}
        fast = correlate(metric, human, seed=1, **kw)
        slow = correlate(metric, human, seed=2, engine="numpy", **kw)
        assert fast.design.endswith(", numba engine") and "numba" not in slow.design
        assert fast.estimate == slow.estimate
        # scales (interquartile ranges, robust to the long tails of a correlation across
        # a dozen systems) and centres agree; seed to seed they vary by about 8%
        qf = np.percentile(fast.distribution, [25, 50, 75])
        qs = np.percentile(slow.distribution, [25, 50, 75])
        assert (qf[2] - qf[0]) / (qs[2] - qs[0]) == pytest.approx(1.0, abs=0.12)
        assert abs(qf[1] - qs[1]) < 0.1 * (qs[2] - qs[0])


def test_same_replicates_for_any_batch_or_workers_and_for_several_metrics() -> None:
    metric, human = _matrices(6, n_sys=9, n_inp=25)
    kw = {"level": "summary", "coefficient": "kendall", "n_resamples": 500, "seed": 4}
    ref = correlate(metric, human, workers=1, **kw)
    for extra in ({"workers": 2}, {}):
        r = correlate(metric, human, **kw, **extra)
        assert np.array_equal(r.distribution, ref.distribution)
    both = correlate_metrics({"m": metric, "h": human + 0.5 * metric}, human, **kw)
    assert np.array_equal(both["m"].distribution, ref.distribution)
    assert both["m"].design.endswith(", numba engine")


def test_compare_correlations_bootstraps_the_difference_on_shared_draws() -> None:
    metric, human = _matrices(7, n_sys=10, n_inp=30, missing=False)
    other = np.round(human + np.random.default_rng(1).normal(size=human.shape), 1)
    c = compare_correlations(metric, other, human, level="global", coefficient="spearman",
                             n_resamples=400, seed=3, permutation=None)  # fmt: skip
    pa = Problem(*matrices_iv(metric, human), "global", "spearman")
    pb = Problem(*matrices_iv(other, human), "global", "spearman")
    a, _ = CK.crossed_runner(pa.stat, "both")(3, 0, 400, False)
    b, _ = CK.crossed_runner(pb.stat, "both")(3, 0, 400, False)
    assert np.allclose(np.sort(c.distribution), np.sort(a - b), atol=1e-12)
    slow = compare_correlations(metric, other, human, level="global", coefficient="spearman",
                                n_resamples=400, seed=3, permutation=None,
                                engine="numpy")  # fmt: skip
    assert not np.array_equal(np.sort(c.distribution), np.sort(slow.distribution))
    with_perm = compare_correlations(metric, other, human, n_resamples=200, seed=3,
                                     engine="numba")  # fmt: skip
    assert not any("NumPy engine" in note for note in with_perm.notes)  # both compiled


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("coefficient", COEFFICIENTS)
@pytest.mark.parametrize("permutation", ["systems", "inputs", "both"])
def test_the_exact_permutation_test_is_the_same_on_both_engines(level, coefficient, permutation):
    # every swap pattern enumerated in binary order on both engines: the same values
    metric, human = _matrices(9, n_sys=5, n_inp=6)
    other = np.round(human + np.random.default_rng(2).normal(size=human.shape), 1)
    kw = {"level": level, "coefficient": coefficient, "permutation": permutation,
          "n_resamples": 2048, "seed": 1}  # fmt: skip
    fast = compare_correlations(metric, other, human, **kw)
    slow = compare_correlations(metric, other, human, engine="numpy", **kw)
    assert fast.permutation_exact and slow.permutation_exact
    assert (
        fast.n_permutations
        == slow.n_permutations
        == 2 ** {"systems": 5, "inputs": 6}.get(permutation, 11)
    )
    np.testing.assert_allclose(fast.permutation_distribution, slow.permutation_distribution,
                               rtol=0, atol=1e-12)  # fmt: skip
    assert fast.p_value_permutation == slow.p_value_permutation


@pytest.mark.parametrize("level", LEVELS)
def test_random_swap_patterns_are_the_kernels_bits(level: str) -> None:
    from booteval.core.crossed_swap_kernels import swap_pattern
    from booteval.meta.compare import _PairedPermutation

    metric, human = _matrices(10, n_sys=8, n_inp=70)
    other = np.round(human + np.random.default_rng(3).normal(size=human.shape), 1)
    kw = {"level": level, "coefficient": "kendall", "n_resamples": 300, "seed": 6}
    r = compare_correlations(metric, other, human, **kw)
    assert not r.permutation_exact and r.n_permutations == 300
    pa = Problem(*matrices_iv(metric + 0 * other, human), level, "kendall")
    xb = np.where(pa.mask, other, np.nan)
    perm = _PairedPermutation(pa.x, xb, pa.z, pa.mask, level, "kendall")
    for k in (0, 7, 299):  # pattern k: systems' bits, then inputs'
        bits = swap_pattern(6, k, 78).astype(float)
        want = perm(bits[None, :8], bits[None, 8:])[0]
        assert r.permutation_distribution[k] == pytest.approx(want, abs=1e-12)
    again = compare_correlations(metric, other, human, workers=1, **kw)
    assert np.array_equal(again.permutation_distribution, r.permutation_distribution)
    # the NumPy engine's random patterns: the same null distribution within Monte Carlo error
    many = {**kw, "n_resamples": 3000, "resample": "systems"}
    fast = compare_correlations(metric, other, human, **many)
    slow = compare_correlations(metric, other, human, engine="numpy", **many)
    ratio = fast.permutation_distribution.std() / slow.permutation_distribution.std()
    assert ratio == pytest.approx(1.0, abs=0.08)


def test_engine_numba_without_numba_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    metric, human = _matrices(8)
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba -> ImportError
    monkeypatch.delitem(sys.modules, "booteval.core.kernels")
    monkeypatch.delattr(booteval.core, "kernels", raising=False)
    with pytest.raises(booteval.InvalidInputError, match=r"engine.*numba.*Reinstall numba"):
        correlate(metric, human, engine="numba", n_resamples=100, seed=0)
    # the default too: numba is a dependency; the NumPy engine needs none
    with pytest.raises(booteval.InvalidInputError, match=r"numba cannot be imported"):
        correlate(metric, human, n_resamples=100, seed=0)
    assert not any(
        "numba" in n
        for n in correlate(metric, human, n_resamples=100, seed=0, engine="numpy").notes
    )
