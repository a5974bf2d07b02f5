"""Prediction-powered inference for LLM-judge scores (PPI / PPI++, issue 36 part 3).

The numbers are checked against the reference formulas of ``ppi_py`` (Angelopoulos, Duchi
and Zrnic), transcribed below from ``ppi_mean_pointestimate``, ``ppi_mean_ci`` and
``_calc_lam_glm`` (and against ``ppi_py`` itself where it is installed), then for their
properties, the bootstrap's replicates against a plain recomputation on resampled data,
a small coverage simulation, and every refusal of bad input.
"""

from __future__ import annotations

import json
import math
import pickle
import warnings

import numpy as np
import pytest
from scipy.stats import norm

import booteval
from booteval.core import kernels
from booteval.core.design import make_design
from booteval.core.kernels import drawn_counts
from booteval.inference import judge as judge_module
from booteval.inference.judge import judge_corrected_ci, judge_corrected_compare
from booteval.inference.judge_results import JudgeCorrectedComparison, JudgeCorrectedResult


# ------------------------------------------------------------------ the reference formulas
def reference_lambda(y, yh, yu, clip=True):
    """``_calc_lam_glm`` for the mean (gradients ``Y - theta``, identity Hessian)."""
    n, big_n = len(y), len(yu)
    cov_grads = 2.0 * np.sum((y - y.mean()) * (yh - yh.mean())) / n
    var_grads_hat = np.cov(np.concatenate([yh, yu]))  # ddof 1, both sets pooled
    lam = cov_grads / (2.0 * (1.0 + n / big_n) * var_grads_hat)
    return float(np.clip(lam, 0.0, 1.0)) if clip else float(lam)


def reference_ci(y, yh, yu, alpha, lam=None, alternative="two-sided"):
    """``ppi_mean_pointestimate`` and ``ppi_mean_ci`` (statsmodels' ``_zconfint_generic``)."""
    n, big_n = len(y), len(yu)
    if lam is None:
        lam = reference_lambda(y, yh, yu)
    estimate = np.mean(lam * yu) + np.mean(y - lam * yh)
    imputed_std = np.std(lam * yu) / np.sqrt(big_n)  # ddof 0
    rectifier_std = np.std(y - lam * yh) / np.sqrt(n)
    se = np.sqrt(imputed_std**2 + rectifier_std**2)
    if alternative == "two-sided":
        z = norm.ppf(1 - alpha / 2)
        return lam, estimate, estimate - z * se, estimate + z * se
    if alternative == "greater":
        return lam, estimate, estimate + norm.ppf(alpha) * se, math.inf
    return lam, estimate, -math.inf, estimate + norm.ppf(1 - alpha) * se


def data(seed, n=150, big_n=1500, kind="continuous"):
    rng = np.random.default_rng(seed)
    if kind == "binary":
        truth = rng.random(n + big_n) < 0.65
        judge = np.where(rng.random(n + big_n) < 0.85, truth, ~truth).astype(float)
        truth = truth.astype(float)
    else:
        truth = rng.normal(3.0, 1.0, n + big_n)
        judge = 0.7 * truth + rng.normal(0.5, 0.6, n + big_n)
    return truth[:n], judge[:n], judge[n:]


CASES = [(seed, kind) for seed in range(6) for kind in ("continuous", "binary")]


@pytest.mark.parametrize(("seed", "kind"), CASES)
@pytest.mark.parametrize("lam", [None, 0.0, 1.0, 0.4, 1.5])
def test_equal_to_the_reference_formulas(seed, kind, lam):
    y, yh, yu = data(seed, n=40 + 30 * seed, big_n=300 + 500 * seed, kind=kind)
    for level in (0.95, 0.9):
        r = judge_corrected_ci(y, yh, yu, lam=lam, confidence_level=level)
        ref_lam, est, low, high = reference_ci(y, yh, yu, 1 - level, lam)
        assert r.lam == pytest.approx(ref_lam, abs=1e-12)
        assert r.estimate == pytest.approx(est, abs=1e-9)
        assert (r.low, r.high) == pytest.approx((low, high), abs=1e-9)
        assert r.lam_tuned is (lam is None)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_intervals_are_the_reference_ones(alternative):
    y, yh, yu = data(3)
    r = judge_corrected_ci(y, yh, yu, lam=0.8, alternative=alternative, confidence_level=0.9)
    _, est, low, high = reference_ci(y, yh, yu, 0.1, 0.8, alternative)
    assert (r.estimate, r.low, r.high) == pytest.approx((est, low, high), abs=1e-9)
    assert math.isinf(r.high if alternative == "greater" else r.low)


def test_lambda_zero_is_the_classical_interval_of_the_human_labels():
    y, yh, yu = data(1)
    r = judge_corrected_ci(y, yh, yu, lam=0.0)
    z = norm.ppf(0.975)
    se = np.std(y) / np.sqrt(len(y))  # the reference's variance: denominator n
    expected = (y.mean() - z * se, y.mean() + z * se)
    assert (r.low, r.high) == pytest.approx(expected, abs=1e-12)
    assert (r.human_low, r.human_high) == pytest.approx(expected, abs=1e-12)
    assert r.gain == pytest.approx(1.0) and r.effective_n == pytest.approx(len(y))
    tuned = judge_corrected_ci(y, yh, yu)  # the human-only interval does not depend on lam
    assert (tuned.human_low, tuned.human_high) == pytest.approx(expected, abs=1e-12)


def test_lambda_one_is_classic_ppi():
    """PPI (Angelopoulos et al., 2023): the judge's mean on the unlabelled rows plus the
    rectifier ``mean(Y - Yhat)``, with the two variances added."""
    y, yh, yu = data(2)
    r = judge_corrected_ci(y, yh, yu, lam=1.0)
    rectifier = np.mean(y - yh)
    estimate = np.mean(yu) + rectifier
    se = np.sqrt(np.var(yu) / len(yu) + np.var(y - yh) / len(y))
    z = norm.ppf(0.975)
    assert (r.estimate, r.low, r.high) == pytest.approx(
        (estimate, estimate - z * se, estimate + z * se), abs=1e-12
    )
    assert r.standard_error == pytest.approx(se, abs=1e-15)


def test_the_gain_is_the_ratio_of_variances():
    y, yh, yu = data(4, n=200, big_n=5000)
    r = judge_corrected_ci(y, yh, yu)
    assert r.gain == pytest.approx(r.human_standard_error**2 / r.standard_error**2)
    assert r.effective_n == pytest.approx(200 * r.gain)
    assert r.gain > 1.5  # a judge correlated ~0.75 with the humans and N = 25 n
    assert r.judge_mean == pytest.approx(np.concatenate([yh, yu]).mean())
    assert r.details["judge_bias"] == pytest.approx(yh.mean() - y.mean())


def test_against_ppi_py_itself_where_installed():
    ppi_py = pytest.importorskip("ppi_py")
    for seed, kind in CASES:
        y, yh, yu = data(seed, kind=kind)
        for lam in (None, 0.0, 1.0, 0.3):
            r = judge_corrected_ci(y, yh, yu, lam=lam, confidence_level=0.9)
            low, high = ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.1, lam=lam)
            est = ppi_py.ppi_mean_pointestimate(y, yh, yu, lam=lam)
            assert r.estimate == pytest.approx(float(np.ravel(est)[0]), abs=1e-9)
            assert (r.low, r.high) == pytest.approx(
                (float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-9
            )


# ------------------------------------------------------------------------------ properties
def test_invariant_under_shifting_and_scaling():
    y, yh, yu = data(5)
    base = judge_corrected_ci(y, yh, yu, clip=False)
    shifted = judge_corrected_ci(y + 10.0, yh - 3.0, yu - 3.0, clip=False)
    assert shifted.lam == pytest.approx(base.lam, rel=1e-9)
    assert (shifted.estimate, shifted.low, shifted.high) == pytest.approx(
        (base.estimate + 10.0, base.low + 10.0, base.high + 10.0), rel=1e-9
    )
    scaled = judge_corrected_ci(2.0 * y, 0.5 * yh, 0.5 * yu, clip=False)
    assert scaled.lam == pytest.approx(4.0 * base.lam, rel=1e-9)
    assert (scaled.estimate, scaled.low, scaled.high) == pytest.approx(
        (2 * base.estimate, 2 * base.low, 2 * base.high), rel=1e-9
    )
    boot = dict(method="bootstrap", n_resamples=400, seed=3)
    b0 = judge_corrected_ci(y, yh, yu, **boot)
    b1 = judge_corrected_ci(y + 10.0, yh - 3.0, yu - 3.0, **boot)
    assert np.allclose(b1.distribution, b0.distribution + 10.0, rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    ("kind", "n", "big_n", "b"), [("binary", 2000, 20000, 2000), ("continuous", 1000, 5000, 1000)]
)
def test_bootstrap_and_clt_agree_on_a_large_sample(kind, n, big_n, b):
    y, yh, yu = data(6, n=n, big_n=big_n, kind=kind)
    clt = judge_corrected_ci(y, yh, yu)
    boot = judge_corrected_ci(y, yh, yu, method="bootstrap", n_resamples=b, seed=0)
    assert boot.standard_error == pytest.approx(clt.standard_error, rel=0.08)
    assert boot.low == pytest.approx(clt.low, abs=0.25 * clt.standard_error)
    assert boot.high == pytest.approx(clt.high, abs=0.25 * clt.standard_error)
    assert boot.gain == pytest.approx(clt.gain, rel=0.2)


def _resampled_reference(y, yh, yu, seed, b, lam=None, cells=False):
    """The bootstrap replicates recomputed plainly: the rows each replicate draws (the
    design's counts of cells of equal rows, or the compiled engine's draws of rows), then
    the reference estimator on them."""
    n, big_n = len(y), len(yu)
    strata = np.repeat([0, 1], [n, big_n])
    if cells:
        key_l = np.unique(np.column_stack([y, yh]), axis=0, return_inverse=True)[1].ravel()
        keys = np.concatenate([key_l, np.unique(yu, return_inverse=True)[1].ravel()])
        design = make_design(n + big_n, strata=strata).compress(keys)
        counts = np.zeros((b, n + big_n), dtype=int)
        counts[:, design.cell_row] = design.unit_weights(seed, 0, b)  # a row stands for its cell
    else:  # the compiled engine's draws within each stratum
        counts = drawn_counts(seed, 0, b, strata)
    out = []
    for row in counts:
        ys, yhs = np.repeat(y, row[:n]), np.repeat(yh, row[:n])
        yus = np.repeat(yu, row[n:])
        out.append(reference_ci(ys, yhs, yus, 0.05, lam)[1])
    return np.array(out)


@pytest.mark.parametrize("lam", [None, 0.7])
@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_bootstrap_replicates_are_the_reference_estimator_on_resampled_rows(lam, kind):
    y, yh, yu = data(7, n=60, big_n=300, kind=kind)
    r = judge_corrected_ci(y, yh, yu, method="bootstrap", n_resamples=100, seed=11, lam=lam)
    expected = _resampled_reference(y, yh, yu, 11, 100, lam, cells=kind == "binary")
    assert np.allclose(r.distribution, expected, rtol=0, atol=1e-12)
    assert r.standard_error == pytest.approx(np.std(expected, ddof=1))


def test_clustered_bootstrap_replicates_recomputed_plainly():
    """With clusters, a replicate's tuned lambda sums deviations within each drawn cluster
    (a cluster drawn twice counts as two)."""
    rng = np.random.default_rng(8)
    n, big_n = 40, 90
    y, yh, yu = rng.normal(size=n), rng.normal(size=n), rng.normal(size=big_n)
    yh += y
    cl, cu = rng.permutation(np.arange(n) % 12), rng.permutation(np.arange(big_n) % 20)
    r = judge_corrected_ci(
        y, yh, yu, method="bootstrap", n_resamples=50, seed=4, clusters=cl, clusters_unlabelled=cu
    )
    gl, gu = 12, 20
    design = make_design(
        n + big_n, strata=np.repeat([0, 1], [n, big_n]), clusters=np.concatenate([cl, gl + cu])
    )
    w = drawn_counts(4, 0, 50, design.unit_stratum)  # the compiled engine's draws
    for b, row in enumerate(w):
        # the drawn clusters as (copy id, rows)
        lab = [np.flatnonzero(cl == g) for g in range(gl) for _ in range(row[g])]
        unl = [np.flatnonzero(cu == g) for g in range(gu) for _ in range(row[gl + g])]
        ys, yhs = np.concatenate([y[i] for i in lab]), np.concatenate([yh[i] for i in lab])
        yus = np.concatenate([yu[i] for i in unl])
        m, big_m = len(ys), len(yus)
        cov = sum(np.sum(y[i] - ys.mean()) * np.sum(yh[i] - yhs.mean()) for i in lab) / m
        pooled = np.concatenate([yhs, yus]).mean()
        var = sum(np.sum(yh[i] - pooled) ** 2 for i in lab)
        var = (var + sum(np.sum(yu[i] - pooled) ** 2 for i in unl)) / (m + big_m - 1)
        lam = min(max(cov / ((1 + m / big_m) * var), 0.0), 1.0)
        expected = ys.mean() - lam * yhs.mean() + lam * yus.mean()
        assert r.distribution[b] == pytest.approx(expected, abs=1e-12)


def test_the_batching_never_changes_the_bootstrap(monkeypatch):
    kw = dict(method="bootstrap", n_resamples=300, seed=5)
    for kind in ("continuous", "binary"):  # rows, and cells of equal rows
        y, yh, yu = data(9, n=50, big_n=400, kind=kind)
        one = judge_corrected_ci(y, yh, yu, **kw)
        monkeypatch.setattr(judge_module, "_BATCH_CELLS", 3 * 450 + 7)  # 3 replicates a batch
        monkeypatch.setattr(kernels, "_CALL_REPLICATES", 7)  # 7 a call of the compiled engine
        again = judge_corrected_ci(y, yh, yu, **kw)
        monkeypatch.undo()
        assert np.array_equal(one.distribution, again.distribution)


def test_paired_version_is_the_single_version_on_differences():
    rng = np.random.default_rng(10)
    n, big_n = 120, 900
    ha, hb = rng.random(n) < 0.6, rng.random(n) < 0.7
    ja = np.where(rng.random(n) < 0.85, ha, ~ha)
    jb = np.where(rng.random(n) < 0.85, hb, ~hb)
    ua, ub = rng.random(big_n) < 0.6, rng.random(big_n) < 0.68
    for kw in ({}, {"method": "bootstrap", "n_resamples": 500, "seed": 2}, {"lam": 1.0}):
        d = judge_corrected_compare(ha, hb, ja, jb, ua, ub, names=("old", "new"), **kw)
        f = np.asarray
        s = judge_corrected_ci(
            f(hb, float) - f(ha, float), f(jb, float) - f(ja, float),
            f(ub, float) - f(ua, float), **kw,
        )  # fmt: skip
        assert (d.estimate, d.low, d.high, d.lam) == (s.estimate, s.low, s.high, s.lam)
        assert d.difference == d.estimate
        assert d.estimate_b - d.estimate_a == pytest.approx(d.estimate, abs=1e-12)
        assert d.human_estimate_b - d.human_estimate_a == pytest.approx(d.human_estimate)
        assert 0 <= d.p_value <= 1 and d.excludes_zero == (d.low > 0 or d.high < 0)
    assert isinstance(d, JudgeCorrectedComparison) and d.label == "new - old"
    assert pickle.loads(pickle.dumps(d)) == d and json.dumps(d.to_dict())
    assert "judge-corrected new - old" in d.describe() and "p = " in d.describe()


def test_paired_p_value_is_the_normal_test():
    rng = np.random.default_rng(12)
    ha, hb = rng.normal(size=80), rng.normal(0.3, 1, 80)
    ua, ub = rng.normal(size=500), rng.normal(0.3, 1, 500)
    d = judge_corrected_compare(ha, hb, ha + rng.normal(size=80), hb, ua, ub)
    assert d.p_value == pytest.approx(2 * norm.sf(abs(d.estimate / d.standard_error)))
    greater = judge_corrected_compare(
        ha, hb, ha + rng.normal(size=80), hb, ua, ub, alternative="greater"
    )
    assert greater.p_value == pytest.approx(norm.sf(greater.estimate / greater.standard_error))


def test_one_row_per_cluster_equals_iid():
    y, yh, yu = data(11, n=80, big_n=600)
    iid = judge_corrected_ci(y, yh, yu)
    clustered = judge_corrected_ci(
        y, yh, yu, clusters=np.arange(80), clusters_unlabelled=np.arange(600)
    )
    assert (clustered.estimate, clustered.low, clustered.high, clustered.lam) == pytest.approx(
        (iid.estimate, iid.low, iid.high, iid.lam), abs=1e-12
    )
    assert (clustered.n_clusters_labelled, clustered.n_clusters_unlabelled) == (80, 600)
    kw = dict(method="bootstrap", n_resamples=300, seed=1)
    b_iid = judge_corrected_ci(y, yh, yu, **kw)
    b_cl = judge_corrected_ci(y, yh, yu, clusters=np.arange(80), **kw)
    assert np.allclose(b_iid.distribution, b_cl.distribution, rtol=0, atol=1e-12)


def test_clustered_variance_sums_within_clusters():
    rng = np.random.default_rng(13)
    groups = np.repeat(np.arange(30), 4)
    effect = rng.normal(size=30)[groups]
    y = effect + rng.normal(size=120)
    yh = effect + 0.5 * rng.normal(size=120)
    gu = np.repeat(np.arange(200), 5)
    yu = rng.normal(size=200)[gu] + 0.5 * rng.normal(size=1000)
    r = judge_corrected_ci(y, yh, yu, lam=0.6, clusters=groups, clusters_unlabelled=gu)
    rect = y - 0.6 * yh
    s_lab = np.bincount(groups, rect - rect.mean())
    s_unl = np.bincount(gu, yu - yu.mean())
    se = np.sqrt(np.sum(s_lab**2) / 120**2 + 0.36 * np.sum(s_unl**2) / 1000**2)
    assert r.standard_error == pytest.approx(se, rel=1e-12)
    iid = judge_corrected_ci(y, yh, yu, lam=0.6)
    assert r.standard_error > 1.15 * iid.standard_error  # the clusters are real
    shared = judge_corrected_ci(y, yh, yu, clusters=groups, clusters_unlabelled=gu)
    assert any("both the labelled and the unlabelled" in note for note in shared.notes)


# ---------------------------------------------------------------- when it helps and when not
def test_an_uninformative_judge_gives_lambda_near_zero_and_no_gain():
    rng = np.random.default_rng(14)
    y = rng.random(300) < 0.6
    r = judge_corrected_ci(y, rng.random(300) < 0.5, rng.random(5000) < 0.5)
    assert r.lam < 0.15 and r.gain < 1.1
    negative = judge_corrected_ci(y, ~y, rng.random(5000) < 0.4)
    assert negative.lam == 0.0 and negative.details["lam_unclipped"] < 0
    assert any("negatively" in note for note in negative.notes)
    assert negative.estimate == pytest.approx(np.mean(y))


def test_a_judge_on_another_scale_needs_clip_false():
    y, yh, yu = data(19, n=200, big_n=4000)
    small = judge_corrected_ci(y, yh / 10, yu / 10)  # a judge scoring on a tenth of the scale
    assert small.lam == 1.0 and small.details["lam_unclipped"] > 1
    assert any("clipped to 1" in note for note in small.notes)
    free = judge_corrected_ci(y, yh / 10, yu / 10, clip=False)
    same_scale = judge_corrected_ci(y, yh, yu)
    assert free.lam == pytest.approx(10 * same_scale.lam)
    assert free.gain == pytest.approx(same_scale.gain) and free.gain > small.gain


@pytest.mark.filterwarnings("ignore::booteval.SmallSampleWarning")
def test_constant_judge_scores_carry_no_information():
    y = np.array([0.0, 1, 1, 0, 1, 1])
    r = judge_corrected_ci(y, np.ones(6), np.ones(20))
    assert r.lam == 0.0 and r.estimate == pytest.approx(y.mean())
    assert any("constant" in note for note in r.notes)


@pytest.mark.filterwarnings("ignore::booteval.SmallSampleWarning")
def test_constant_human_labels_give_a_zero_width_interval_with_a_note():
    with pytest.warns(booteval.DegenerateIntervalWarning):
        r = judge_corrected_ci(np.ones(5), np.ones(5), np.zeros(10), lam=0.0)
    assert r.low == r.high == 1.0 and math.isnan(r.gain) and r.notes


def test_few_labelled_rows_are_flagged():
    y, yh, yu = data(15, n=12, big_n=500)
    with pytest.warns(booteval.SmallSampleWarning, match="method='bootstrap'"):
        r = judge_corrected_ci(y, yh, yu, method="clt")
    assert any("12 labelled rows" in note for note in r.notes)
    # the default turns to the bootstrap there, and says so; with 30 rows or more, the CLT
    auto = judge_corrected_ci(y, yh, yu, n_resamples=300, seed=1)
    same = judge_corrected_ci(y, yh, yu, method="bootstrap", n_resamples=300, seed=1)
    assert auto.method == "bootstrap" and (auto.low, auto.high) == (same.low, same.high)
    assert "method='auto' chose 'bootstrap': 12 labelled rows (fewer than 30" in auto.notes[0]
    y, yh, yu = data(16, n=40, big_n=500)
    auto, clt = judge_corrected_ci(y, yh, yu), judge_corrected_ci(y, yh, yu, method="clt")
    assert auto.method == "clt" and (auto.low, auto.high) == (clt.low, clt.high)
    assert auto.n_resamples is None and auto.seed is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        judge_corrected_ci(y, yh, yu, method="bootstrap", n_resamples=200, seed=0)


# ---------------------------------------------------------------------- coverage (small)
@pytest.mark.parametrize("method", ["clt", "bootstrap"])
def test_coverage_of_the_ppi_interval(method):
    """300 simulated evaluations (n = 100 human labels, N = 1000 judge scores, a binary
    judge that agrees 85 % of the time and leans towards "correct"): the 90 % interval
    covers the true accuracy close to 90 % of the time."""
    rng = np.random.default_rng(16)
    p, hits, gains = 0.7, 0, []
    for rep in range(300):
        truth = rng.random(1100) < p
        judge = np.where(rng.random(1100) < 0.85, truth, rng.random(1100) < 0.8)
        r = judge_corrected_ci(
            truth[:100], judge[:100], judge[100:], confidence_level=0.9, method=method,
            n_resamples=500, seed=rep,
        )  # fmt: skip
        hits += r.low <= p <= r.high
        gains.append(r.gain)
    assert 0.85 <= hits / 300 <= 0.96
    assert np.median(gains) > 1.5


# ------------------------------------------------------------------- results and seeds
def test_the_result_prints_and_serialises():
    y, yh, yu = data(17)
    r = judge_corrected_ci(y, yh, yu, method="bootstrap", n_resamples=500, seed=9)
    assert str(r) == f"{r.estimate:.4f} ({r.low:.4f}, {r.high:.4f})"
    assert r.format(scale=100, digits=1).count("(") == 1
    text = r.describe()
    for piece in ("150 labelled rows", "1500 unlabelled rows", "power-tuned lambda", "gain x"):
        assert piece in text
    assert r.to_text() == text and "B = 500 resamples, seed = 9" in text
    data_out = json.loads(json.dumps(r.to_dict()))
    assert data_out["n_labelled"] == 150 and data_out["lam"] == r.lam
    assert pickle.loads(pickle.dumps(r)) == r
    assert isinstance(r, JudgeCorrectedResult) and "JudgeCorrectedResult(" in repr(r)
    assert r.distribution.shape == (500,) and not r.distribution.flags.writeable
    clt = judge_corrected_ci(y, yh, yu)
    assert clt.seed is None and clt.n_resamples is None and clt.distribution is None


def test_the_same_seed_gives_the_same_result():
    y, yh, yu = data(18)
    kw = dict(method="bootstrap", n_resamples=400)
    a = judge_corrected_ci(y, yh, yu, seed=123, **kw)
    assert a == judge_corrected_ci(y, yh, yu, seed=123, **kw)
    assert not np.array_equal(
        a.distribution, judge_corrected_ci(y, yh, yu, seed=124, **kw).distribution
    )
    drawn = judge_corrected_ci(y, yh, yu, **kw)
    assert isinstance(drawn.seed, int)
    assert drawn == judge_corrected_ci(y, yh, yu, seed=drawn.seed, **kw)
    opts = booteval.BootstrapOptions(n_resamples=400, seed=123, method="bootstrap")
    assert judge_corrected_ci(y, yh, yu, options=opts) == a


def test_top_level_names():
    assert booteval.judge_corrected_ci is judge_corrected_ci
    assert booteval.judge_corrected_compare is judge_corrected_compare


# ------------------------------------------------------------------------------ bad input
Y3, J3, U3 = [1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 1.0]


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"human": [1.0, math.nan, 0.0]}, "human"),
        ({"judge_labelled": [1.0, math.nan, 0.0]}, "judge_labelled"),
        ({"judge_unlabelled": [math.inf, 1.0]}, "judge_unlabelled"),
        ({"judge_labelled": [1.0, 0.0]}, "judge_labelled"),
        ({"human": [1.0], "judge_labelled": [1.0]}, "human"),
        ({"human": None}, "human"),
        ({"judge_unlabelled": []}, "judge_unlabelled"),
        ({"human": [["a", "b"]] * 3}, "human"),
        ({"clusters": [1, 2]}, "clusters"),
        ({"clusters": [1, 1, 1]}, "clusters"),
        ({"clusters": [1, None, 2]}, "clusters"),
        ({"clusters_unlabelled": [1, 2, 3]}, "clusters_unlabelled"),
        ({"clusters_unlabelled": [4, 4]}, "clusters_unlabelled"),
        ({"lam": math.nan}, "lam"),
        ({"lam": "tuned"}, "lam"),
        ({"lam": True}, "lam"),
        ({"clip": "yes"}, "clip"),
        ({"method": "bca"}, "method"),
        ({"confidence_level": 95}, "confidence_level"),
        ({"alternative": "larger"}, "alternative"),
        ({"method": "bootstrap", "n_resamples": 10}, "n_resamples"),
        ({"method": "bootstrap", "seed": -1}, "seed"),
        ({"options": "fast"}, "options"),
    ],
)
def test_bad_input_is_refused_naming_the_parameter(kwargs, parameter):
    args = {"human": Y3, "judge_labelled": J3, "judge_unlabelled": U3, **kwargs}
    with pytest.raises(booteval.InvalidInputError) as info:
        judge_corrected_ci(
            args.pop("human"), args.pop("judge_labelled"), args.pop("judge_unlabelled"), **args
        )
    assert info.value.parameter == parameter


@pytest.mark.parametrize(
    ("position", "parameter"),
    [
        (1, "human_b"),
        (3, "judge_b_labelled"),
        (5, "judge_b_unlabelled"),
    ],
)
def test_paired_lengths_are_checked(position, parameter):
    args = [Y3, Y3, J3, J3, U3, U3]
    args[position] = args[position][:-1] if len(args[position]) > 2 else [1.0, 0.0, 1.0]
    with pytest.raises(booteval.InvalidInputError) as info:
        judge_corrected_compare(*args)
    assert info.value.parameter == parameter
    with pytest.raises(booteval.InvalidInputError, match="`names`"):
        judge_corrected_compare(Y3, Y3, J3, J3, U3, U3, names=("same", "same"))
    with pytest.raises(booteval.InvalidInputError, match="`human_a`"):
        judge_corrected_compare([1.0], [0.0], [1.0], [1.0], U3, U3)


def test_junk_ends_in_a_booteval_error_never_another_exception():
    junk = [None, "abc", [], {}, [[1, 2], [3]], object(), math.nan, -1, 10**30, [1e200] * 3]
    for position in range(3):
        for value in junk:
            args = [Y3, J3, U3]
            args[position] = value
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", booteval.BootevalWarning)
                warnings.simplefilter("error", RuntimeWarning)
                try:
                    judge_corrected_ci(*args)
                except booteval.BootevalError:
                    pass
