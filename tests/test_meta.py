"""Meta-evaluation (booteval.meta): correlations of a metric with human scores.

Reference implementations here are deliberately plain: explicit resampled matrices built with
fancy indexing, SciPy's pearsonr / spearmanr / kendalltau called once per replicate, loops over
swap patterns. The library computes the same numbers from weights, vectorized.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

import booteval
from booteval.core.errors import BootevalError, InvalidInputError, UndefinedReplicateWarning
from booteval.core.intervals import _quantile_mcse
from booteval.meta import (
    compare_correlations,
    correlate,
    correlate_metrics,
    score_matrices,
    simulate_correlation_coverage,
)
from booteval.meta import kernels as K

SCIPY = {
    "pearson": lambda a, b: stats.pearsonr(a, b)[0],
    "spearman": lambda a, b: stats.spearmanr(a, b)[0],
    "kendall": lambda a, b: stats.kendalltau(a, b)[0],  # tau-b
}
LEVELS = ("system", "summary", "global")
COEFS = ("pearson", "spearman", "kendall")
DESIGNS = ("systems", "inputs", "both")


def _quiet(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(f(*args))


def ref_level(x: np.ndarray, z: np.ndarray, level: str, coefficient: str) -> float:
    """The level's correlation by the book (NaN = missing)."""
    f = SCIPY[coefficient]
    mask = np.isfinite(x) & np.isfinite(z)
    if level == "system":
        xs = np.array([x[i, mask[i]].mean() for i in range(x.shape[0])])
        zs = np.array([z[i, mask[i]].mean() for i in range(x.shape[0])])
        if coefficient != "pearson":  # exact ties of means (see the data README)
            xs, zs = np.round(xs, 9), np.round(zs, 9)
        return _quiet(f, xs, zs)
    if level == "summary":
        rs = [
            _quiet(f, x[mask[:, j], j], z[mask[:, j], j])
            for j in range(x.shape[1])
            if mask[:, j].sum() >= 3
        ]
        rs = [r for r in rs if np.isfinite(r)]
        return float(np.mean(rs)) if rs else math.nan
    return _quiet(f, x[mask], z[mask])


def make_data(n=7, m=9, seed=0, missing=0):
    """Human scores in thirds (ties, exact-tie means) and a noisy metric with ties."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(n, 1))
    z = np.clip(np.round(3 * (3 + quality + rng.normal(size=(n, m)))) / 3, 1, 5)
    x = np.round(z + rng.normal(scale=0.8, size=(n, m)), 1)
    for _ in range(missing):
        x[rng.integers(n), rng.integers(m)] = np.nan
    return x, z


# ----------------------------------------------------------------------- point estimates
@pytest.mark.parametrize("coefficient", COEFS)
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("missing", [0, 5])
def test_point_correlations_equal_scipy(level, coefficient, missing):
    x, z = make_data(9, 14, seed=3, missing=missing)
    r = correlate(x, z, level=level, coefficient=coefficient, method="fisher")
    assert r.estimate == pytest.approx(ref_level(x, z, level, coefficient), abs=1e-13)
    assert r.n_missing == int(np.isnan(x).sum())


def test_system_means_that_tie_exactly_are_tied():
    # rows 0 and 1: ratings in thirds with equal sums (40 / 3) but float means that differ
    z = np.array([[3, 15, 14, 8], [10, 5, 11, 14], [6, 9, 3, 12], [15, 12, 9, 6], [4, 4, 5, 9]])
    z = z / 3
    assert z[0].mean() != z[1].mean()
    x = np.array([[1.0, 2.0, 3.0, 1.5], [2.0, 2.0, 2.5, 2.0], [3.0, 4.0, 1.0, 0.0],
                  [0.5, 1.0, 1.0, 4.0], [1.0, 0.0, 0.5, 1.0]])  # fmt: skip
    for coefficient in ("spearman", "kendall"):
        r = correlate(x, z, coefficient=coefficient, resample="inputs", n_resamples=100, seed=0)
        assert r.estimate == pytest.approx(ref_level(x, z, "system", coefficient), abs=1e-14)
        naive = SCIPY[coefficient](x.mean(axis=1), z.mean(axis=1))  # breaks the tie
        assert abs(r.estimate - naive) > 0.01


def test_summary_level_skips_and_counts_undefined_inputs():
    x, z = make_data(6, 8, seed=1)
    z[:, 2] = 3.0  # every system rated the same on input 2
    x[:, 5] = 0.4
    r = correlate(x, z, level="summary", method="fisher")
    assert r.n_inputs_undefined == 2
    assert r.estimate == pytest.approx(ref_level(x, z, "summary", "pearson"), abs=1e-14)
    assert any("undefined on 2 of 8 inputs" in note for note in r.notes)


def test_inputs_judged_for_fewer_than_three_systems_are_left_out():
    x, z = make_data(5, 6, seed=2)
    x[:3, 4] = np.nan  # input 4 has two scored systems left
    r = correlate(x, z, level="summary", method="fisher")
    assert r.n_inputs == 5
    assert r.estimate == pytest.approx(ref_level(x, z, "summary", "pearson"), abs=1e-14)
    assert any("fewer than 3" in note for note in r.notes)


# --------------------------------------------------------------------------------- Fisher
@pytest.mark.parametrize("coefficient", COEFS)
@pytest.mark.parametrize("level", LEVELS)
def test_fisher_interval_matches_closed_form(level, coefficient):
    x, z = make_data(10, 12, seed=5, missing=3)
    r = correlate(x, z, level=level, coefficient=coefficient, method="fisher",
                  confidence_level=0.9)  # fmt: skip
    mask = np.isfinite(x)
    n = {"system": 10, "summary": int(mask.sum(axis=0).max()), "global": int(mask.sum())}[level]
    b = 4 if coefficient == "kendall" else 3
    c = {"pearson": 1.0, "spearman": math.sqrt(1 + r.estimate**2 / 2), "kendall": math.sqrt(0.437)}
    half = stats.norm.ppf(0.95) * c[coefficient] / math.sqrt(n - b)
    assert r.n == n
    assert r.low == pytest.approx(math.tanh(math.atanh(r.estimate) - half), abs=1e-12)
    assert r.high == pytest.approx(math.tanh(math.atanh(r.estimate) + half), abs=1e-12)
    assert r.resample is None and r.n_resamples == 0
    assert f"n = {n}" in r.n_meaning


def test_every_result_says_what_n_means():
    x, z = make_data(8, 10, seed=0)
    meanings = {lv: correlate(x, z, level=lv, n_resamples=200, seed=0).n_meaning for lv in LEVELS}
    assert meanings["system"] == "n = 8 systems"
    assert "systems per input" in meanings["summary"] and "mean of 10" in meanings["summary"]
    assert meanings["global"] == "n = 80 scored system-input pairs, treated as independent"


# ------------------------------------------------------- bootstrap replicates, exactly
def _draws(seed, n, m, n_resamples):
    """The system and input indices the library draws (see _meta_kernels.bootstrap_block)."""
    size = K.block_size(n, m)
    s_all, i_all = [], []
    for j in range(math.ceil(n_resamples / size)):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(2, j))))
        s_all.append(rng.integers(0, n, size=(size, n)))
        i_all.append(rng.integers(0, m, size=(size, m)))
    return np.concatenate(s_all)[:n_resamples], np.concatenate(i_all)[:n_resamples]


def ref_replicates(x, z, level, coefficient, design, seed, n_resamples):
    """Loop: resample the matrices explicitly and correlate them with SciPy."""
    n, m = x.shape
    s_idx, i_idx = _draws(seed, n, m, n_resamples)
    out = []
    for b in range(n_resamples):
        rows = s_idx[b] if design != "inputs" else np.arange(n)
        cols = i_idx[b] if design != "systems" else np.arange(m)
        xb, zb = x[np.ix_(rows, cols)], z[np.ix_(rows, cols)]
        keep = (np.isfinite(xb) & np.isfinite(zb)).any(axis=1)  # systems left with a score
        out.append(ref_level(xb[keep], zb[keep], level, coefficient))
    return np.array(out)


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("coefficient", COEFS)
@pytest.mark.parametrize("level", LEVELS)
def test_replicates_equal_explicitly_resampled_matrices(level, coefficient, design):
    x, z = make_data(6, 7, seed=11, missing=2)
    b = 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedReplicateWarning)
        r = correlate(x, z, level=level, coefficient=coefficient, resample=design,
                      n_resamples=b, seed=123, engine="numpy")  # fmt: skip
    ref = ref_replicates(x, z, level, coefficient, design, 123, b)
    ref = ref[np.isfinite(ref)]
    assert r.n_undefined == b - ref.size
    np.testing.assert_allclose(r.distribution, ref, rtol=1e-10, atol=1e-12)


# ---------------------------------------------- bootstrap intervals, Monte Carlo agreement
def loop_bootstrap(x, z, level, coefficient, design, n_resamples, seed):
    """A straightforward, independent Boot-* implementation (its own random numbers)."""
    rng = np.random.default_rng(seed)
    n, m = x.shape
    reps = []
    for _ in range(n_resamples):
        rows = rng.integers(0, n, n) if design in ("systems", "both") else np.arange(n)
        cols = rng.integers(0, m, m) if design in ("inputs", "both") else np.arange(m)
        reps.append(ref_level(x[np.ix_(rows, cols)], z[np.ix_(rows, cols)], level, coefficient))
    reps = np.sort(np.array(reps)[np.isfinite(reps)])
    k = reps.size
    return reps[math.ceil(0.025 * k) - 1], reps[math.ceil(0.975 * k) - 1], reps


@pytest.mark.parametrize(
    ("level", "coefficient", "design"),
    [
        pytest.param("system", "pearson", "both", marks=pytest.mark.slow),
        pytest.param("system", "kendall", "inputs", marks=pytest.mark.slow),
        pytest.param("summary", "spearman", "systems", marks=pytest.mark.slow),
        pytest.param("summary", "pearson", "both", marks=pytest.mark.slow),
        ("global", "kendall", "both"),  # the fast lane's case
    ],
)
def test_intervals_agree_with_a_loop_reference_within_monte_carlo_error(level, coefficient, design):
    x, z = make_data(8, 8, seed=4)
    b = 1000
    r = correlate(x, z, level=level, coefficient=coefficient, resample=design, n_resamples=b,
                  seed=7)  # fmt: skip
    lo, hi, reps = loop_bootstrap(x, z, level, coefficient, design, b, seed=99)
    # 4 Monte Carlo standard errors of the two runs' endpoints, plus the lattice of ties
    tol_lo = 4 * math.hypot(r.mcse_low, _quantile_mcse(reps, 0.025)) + 0.01
    tol_hi = 4 * math.hypot(r.mcse_high, _quantile_mcse(reps, 0.975)) + 0.01
    assert abs(r.low - lo) < tol_lo
    assert abs(r.high - hi) < tol_hi
    iqr = np.subtract(*np.percentile(reps, [75, 25]))
    assert np.subtract(*np.percentile(r.distribution, [75, 25])) == pytest.approx(iqr, rel=0.2)


try:
    import nlpstats.correlations as nlpstats
except Exception:  # pragma: no cover - optional peer (pip install nlpstats)
    nlpstats = None
needs_nlpstats = pytest.mark.skipif(nlpstats is None, reason="nlpstats not installed")


@needs_nlpstats
@pytest.mark.parametrize(
    ("level", "coefficient", "design"),
    [("system", "pearson", "both"),
     pytest.param("summary", "kendall", "systems", marks=pytest.mark.slow),
     ("system", "spearman", "inputs")],
)  # fmt: skip
def test_intervals_agree_with_nlpstats(level, coefficient, design):
    x, z = make_data(12, 6, seed=8)
    b = 1000
    np.random.seed(0)  # noqa: NPY002 - nlpstats draws from NumPy's global state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = nlpstats.bootstrap(x, z, "input" if level == "summary" else level,
                                    coefficient, design, n_resamples=b)  # fmt: skip
    ours = correlate(x, z, level=level, coefficient=coefficient, resample=design,
                     n_resamples=b, seed=0)  # fmt: skip
    samples = np.sort(theirs.samples)
    tol_lo = 4 * math.hypot(ours.mcse_low, _quantile_mcse(samples, 0.025)) + 0.01
    tol_hi = 4 * math.hypot(ours.mcse_high, _quantile_mcse(samples, 0.975)) + 0.01
    assert abs(ours.low - theirs.lower) < tol_lo
    assert abs(ours.high - theirs.upper) < tol_hi
    assert np.median(ours.distribution) == pytest.approx(np.median(samples), abs=0.02)
    fisher = nlpstats.fisher(x, z, "input" if level == "summary" else level, coefficient)
    ours_f = ours.with_method("fisher")
    assert (ours_f.low, ours_f.high) == pytest.approx(tuple(fisher), abs=1e-12)


# ------------------------------------------------------------------ methods, seeds, BCa
def test_methods_recompute_from_the_same_replicates_and_seed_is_reproducible():
    x, z = make_data(8, 10, seed=9)
    r = correlate(x, z, level="summary", n_resamples=2000, seed=5)
    again = correlate(x, z, level="summary", n_resamples=2000, seed=5)
    assert np.array_equal(r.distribution, again.distribution)
    for m in ("basic", "normal", "bca"):
        other = r.with_method(m)
        assert other.method == m and np.array_equal(other.distribution, r.distribution)
    srt = np.sort(r.distribution)
    assert (r.low, r.high) == (srt[49], srt[1949])  # ceil(0.025 B), ceil(0.975 B)
    basic = r.with_method("basic")
    assert basic.low == pytest.approx(2 * r.estimate - srt[1949])
    longer = correlate(x, z, level="summary", n_resamples=3000, seed=5)
    np.testing.assert_allclose(longer.distribution[:2000], r.distribution, rtol=1e-12)
    other_seed = correlate(x, z, level="summary", n_resamples=2000, seed=6)
    assert not np.array_equal(other_seed.distribution, r.distribution)


def test_bca_acceleration_for_boot_both_combines_both_jackknives():
    x, z = make_data(8, 10, seed=12)
    r = correlate(x, z, level="system", method="bca", n_resamples=2000, seed=1)
    sys_loo = [ref_level(np.delete(x, i, 0), np.delete(z, i, 0), "system", "pearson")
               for i in range(8)]  # fmt: skip
    inp_loo = [ref_level(np.delete(x, j, 1), np.delete(z, j, 1), "system", "pearson")
               for j in range(10)]  # fmt: skip
    u = np.concatenate([(7 / 8) * (np.mean(sys_loo) - np.array(sys_loo)),
                        (9 / 10) * (np.mean(inp_loo) - np.array(inp_loo))])  # fmt: skip
    a = float(np.sum(u**3) / (6 * np.sum(u**2) ** 1.5))
    assert r.details["acceleration"] == pytest.approx(a, rel=1e-9)


def test_correlate_metrics_shares_the_resamples():
    x, z = make_data(8, 10, seed=13)
    x2 = x + np.random.default_rng(0).normal(size=x.shape)
    both = correlate_metrics({"m1": x, "m2": x2}, z, level="summary", n_resamples=500, seed=3)
    one = correlate(x2, z, level="summary", n_resamples=500, seed=3, metric="m2")
    np.testing.assert_array_equal(both["m2"].distribution, one.distribution)
    assert list(both) == ["m1", "m2"] and both["m1"].metric == "m1"


def test_designs_report_their_population():
    x, z = make_data(8, 10, seed=14)
    pops = {d: correlate(x, z, resample=d, n_resamples=200, seed=0).population for d in DESIGNS}
    assert pops == {
        "systems": "new systems like these, on these 10 inputs",
        "inputs": "these 8 systems, on new inputs like these",
        "both": "new systems and new inputs like these",
    }
    r = correlate(x, z, resample="inputs", n_resamples=200, seed=0)
    assert str(r) == r.format() == f"{r.estimate:.2f} ({r.low:.2f}, {r.high:.2f})"
    assert "Boot-Inputs" in r.describe() and r.to_dict()["resample"] == "inputs"


def test_undefined_replicates_are_dropped_and_counted():
    x = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 5.0]])
    z = np.array([[1.0, 1.0], [2.0, 3.0], [4.0, 3.0]])
    with pytest.warns(UndefinedReplicateWarning, match="undefined on"):
        r = correlate(x, z, resample="systems", n_resamples=1000, seed=0)
    # all three draws the same system: probability 3 / 27
    assert 0.07 < r.n_undefined / 1000 < 0.15
    assert r.distribution.size == 1000 - r.n_undefined


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"level": "document"}, "'system', 'summary', 'global', 'input'"),
        ({"coefficient": "tau"}, "'pearson', 'spearman', 'kendall'"),
        ({"resample": "rows"}, "'systems', 'inputs', 'both'"),
        ({"method": "studentized"}, "'percentile', 'basic', 'normal', 'bca', 'fisher'"),
        ({"confidence_level": 95}, "Pass 0.95"),
        ({"n_resamples": 10}, "at least 40"),
    ],
)
def test_unknown_names_list_the_valid_ones(kwargs, match):
    x, z = make_data(5, 5)
    with pytest.raises(InvalidInputError, match=match):
        correlate(x, z, **kwargs)


def test_clear_errors_for_malformed_matrices():
    x, z = make_data(5, 6)
    with pytest.raises(InvalidInputError, match=r"`Z`: expected the same shape as `X` \(5, 6\)"):
        correlate(x, z[:, :5])
    with pytest.raises(InvalidInputError, match="2-D array"):
        correlate(x[0], z[0])
    bad = x.copy()
    bad[2] = np.nan
    with pytest.raises(InvalidInputError, match=r"`X`: expected at least one score in every row"):
        correlate(bad, z)
    badz = z.copy()
    badz[:, 3] = np.nan
    with pytest.raises(InvalidInputError, match=r"`Z`: .*every column .*index 3"):
        correlate(x, badz)
    with pytest.raises(InvalidInputError, match="at least 3 systems"):
        correlate(x[:2], z[:2], level="system")
    with pytest.raises(InvalidInputError, match="at least 3 systems"):
        correlate(x[:2], z[:2], level="summary")
    inf = x.copy()
    inf[0, 0] = np.inf
    with pytest.raises(InvalidInputError, match="infinite"):
        correlate(inf, z)
    with pytest.raises(InvalidInputError, match="constant"):
        correlate(np.ones_like(x), z, method="fisher")
    with pytest.raises(InvalidInputError, match="n > 4"):
        correlate(x[:4], z[:4], coefficient="kendall", method="fisher")
    with pytest.raises(InvalidInputError, match="X_b"):
        compare_correlations(x, x[:, :3], z)


def test_score_matrices_pivots_a_long_table():
    pd = pytest.importorskip("pandas")
    t = pd.DataFrame({"sys": ["b", "a", "a", "b", "a"], "doc": [1, 1, 2, 2, 3],
                      "m": [0.5, 0.1, 0.2, 0.4, 0.3], "h": [5.0, 1.0, 2.0, 4.0, 3.0]})  # fmt: skip
    mats = score_matrices(t, ["m", "h"], system="sys", input="doc")
    assert mats.systems == ("a", "b") and mats.inputs == (1, 2, 3)
    np.testing.assert_array_equal(mats["h"], [[1.0, 2.0, 3.0], [5.0, 4.0, np.nan]])
    assert list(mats) == ["m", "h"] and len(mats) == 2
    with pytest.raises(InvalidInputError, match="at most one row per"):
        score_matrices(pd.concat([t, t.iloc[:1]]), "m", system="sys", input="doc")
    with pytest.raises(InvalidInputError, match="`system`"):
        score_matrices(t, "m", input="doc")


# --------------------------------------------------------------------- comparing metrics
def standardized(a):
    return (a - np.nanmean(a)) / np.nanstd(a)


def brute_force_permutation_p(xa, xb, z, level, coefficient, design, alternative="two-sided"):
    """Enumerate every swap pattern and rebuild the swapped matrices explicitly."""
    a, b = standardized(xa), standardized(xb)
    n, m = a.shape
    obs = ref_level(a, z, level, coefficient) - ref_level(b, z, level, coefficient)
    k = {"systems": n, "inputs": m, "both": n + m}[design]
    hits = 0
    for code in range(2**k):
        bits = np.array([(code >> i) & 1 for i in range(k)])
        s = bits[:n] if design != "inputs" else np.zeros(n, int)
        t = bits[-m:] if design != "systems" else np.zeros(m, int)
        swap = (s[:, None] ^ t[None, :]).astype(bool)
        a2, b2 = np.where(swap, b, a), np.where(swap, a, b)
        d = ref_level(a2, z, level, coefficient) - ref_level(b2, z, level, coefficient)
        if alternative == "two-sided":
            hits += abs(d) >= abs(obs) - 1e-12
        elif alternative == "greater":
            hits += d >= obs - 1e-12
        else:
            hits += d <= obs + 1e-12
    return hits / 2**k


@pytest.mark.parametrize(
    ("level", "coefficient", "design"),
    [
        # the summary level enumerated over 2**9 patterns takes the longest: full suite only
        pytest.param(level, coefficient, design, marks=pytest.mark.slow)
        if (level, design) == ("summary", "both")
        else (level, coefficient, design)
        for design in DESIGNS
        for coefficient in COEFS
        for level in LEVELS
    ],
)
def test_permutation_p_values_equal_exact_enumeration(level, coefficient, design):
    rng = np.random.default_rng(21)
    z = np.round(rng.normal(size=(5, 4)) * 2) / 2
    xa = z + rng.normal(scale=0.5, size=z.shape)
    xb = np.round(z + rng.normal(scale=1.5, size=z.shape), 1)
    alternative = "greater" if design == "systems" else "two-sided"
    c = compare_correlations(xa, xb, z, level=level, coefficient=coefficient,
                             permutation=design, alternative=alternative, n_resamples=1000,
                             seed=0)  # fmt: skip
    assert c.permutation_exact
    assert c.n_permutations == 2 ** {"systems": 5, "inputs": 4, "both": 9}[design]
    expected = brute_force_permutation_p(xa, xb, z, level, coefficient, design, alternative)
    assert c.p_value_permutation == pytest.approx(expected, abs=1e-12)
    assert c.difference == pytest.approx(
        ref_level(xa, z, level, coefficient) - ref_level(xb, z, level, coefficient), abs=1e-12
    )


def test_random_permutation_p_value_is_close_to_the_exact_one():
    rng = np.random.default_rng(2)
    z = rng.normal(size=(6, 6))
    xa, xb = z + rng.normal(size=z.shape), z + 2 * rng.normal(size=z.shape)
    exact = compare_correlations(
        xa, xb, z, level="summary", permutation="both", n_resamples=5000, seed=0
    )  # 2^12 patterns: enumerated
    sampled = compare_correlations(xa, xb, z, level="summary", permutation="both",
                                   n_resamples=2000, seed=0)  # fmt: skip
    assert exact.permutation_exact and not sampled.permutation_exact
    p = exact.p_value_permutation
    assert abs(sampled.p_value_permutation - p) < 4 * math.sqrt(p * (1 - p) / 2000) + 1e-3


@pytest.mark.slow
@needs_nlpstats
def test_permutation_p_value_agrees_with_nlpstats():
    rng = np.random.default_rng(5)
    z = rng.normal(size=(7, 12))
    xa, xb = z + rng.normal(size=z.shape), z + 1.6 * rng.normal(size=z.shape)
    np.random.seed(1)  # noqa: NPY002 - nlpstats draws from NumPy's global state
    theirs = nlpstats.permutation_test(xa, xb, z, "system", "pearson", "both", n_resamples=2000)
    ours = compare_correlations(xa, xb, z, permutation="both", n_resamples=2000, seed=0)
    p = ours.p_value_permutation
    assert abs(theirs.pvalue - p) < 4 * math.sqrt(p * (1 - p) / 1000) + 2e-3


def test_williams_test_matches_the_formula_and_nlpstats():
    rng = np.random.default_rng(6)
    z = rng.normal(size=(12, 20)) + rng.normal(size=(12, 1))
    xa, xb = z + rng.normal(size=z.shape), z + 2 * rng.normal(size=z.shape)
    c = compare_correlations(xa, xb, z, n_resamples=200, seed=0, permutation=None)
    r12, r13 = c.estimate_a, c.estimate_b
    r23 = stats.pearsonr(xa.mean(1), xb.mean(1))[0]
    assert c.correlation_ab == pytest.approx(r23, abs=1e-13)
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    t = (r12 - r13) * math.sqrt(
        (12 - 1) * (1 + r23) / (2 * (12 - 1) / (12 - 3) * det + ((r12 + r13) / 2) ** 2
                                * (1 - r23) ** 3)
    )  # fmt: skip
    assert c.williams_t == pytest.approx(t, rel=1e-12)
    assert c.p_value_williams == pytest.approx(2 * stats.t.sf(abs(t), 9), rel=1e-12)
    if nlpstats is not None:
        theirs = nlpstats.williams_test(xa, xb, z, "system", "pearson")  # all r > 0 here
        assert c.p_value_williams == pytest.approx(theirs.pvalue, rel=1e-10)
    greater = compare_correlations(xa, xb, z, n_resamples=200, seed=0, permutation=None,
                                   alternative="greater")  # fmt: skip
    assert greater.p_value_williams == pytest.approx(stats.t.sf(t, 9), rel=1e-12)
    summary = compare_correlations(xa, xb, z, level="summary", n_resamples=200, seed=0)
    assert summary.p_value_williams is None


def test_paired_bootstrap_of_the_difference():
    x, z = make_data(8, 12, seed=15)
    x2 = x + np.random.default_rng(1).normal(scale=2, size=x.shape)
    c = compare_correlations(x, x2, z, level="summary", resample="systems", permutation=None,
                             n_resamples=2000, seed=4)  # fmt: skip
    ra = correlate(x, z, level="summary", resample="systems", n_resamples=2000, seed=4)
    rb = correlate(x2, z, level="summary", resample="systems", n_resamples=2000, seed=4)
    np.testing.assert_allclose(c.distribution, ra.distribution - rb.distribution, atol=1e-12)
    d = np.sort(c.distribution)
    assert (c.low, c.high) == (d[49], d[1949])
    shifted = np.abs(c.distribution - c.difference)
    assert c.p_value_bootstrap == pytest.approx(
        (1 + np.sum(shifted >= abs(c.difference) - 1e-12)) / 2001
    )
    assert c.excludes_zero == (c.low > 0 or c.high < 0)
    assert "Perm" not in c.describe() and c.permutation_distribution is None


# ------------------------------------------------------------------------- simulations
def _null_data(rng, n, m):
    quality = rng.normal(size=(n, 1)) + 0.7 * rng.normal(size=(n, m))
    z = quality + rng.normal(size=(n, m))
    return quality + rng.normal(size=(n, m)), quality + rng.normal(size=(n, m)), z


@pytest.mark.simulation
@pytest.mark.slow
@pytest.mark.parametrize("level", ["system", "summary"])
def test_tests_reject_at_close_to_the_nominal_rate_under_the_null(level):
    """Two exchangeable metrics (same noise): a test of size alpha rejects alpha of the time.

    300 data sets of 8 systems x 10 inputs, alpha = 0.1; the binomial SE of a rate is 0.017,
    the band is 3 SEs. Each permutation design is exact under this null (the two metrics'
    scores are exchangeable in every cell) and Williams' test is exact for normal data up to
    its approximation. The paired Boot-Both test is conservative: resampling systems and
    inputs both counts the per-cell noise twice (McCullagh, 2000), so its replicates spread
    about twice as wide as the difference really varies and it almost never rejects
    (observed 0-1 %); Boot-Systems / Boot-Inputs rejected 3-14 % over master seeds.
    """
    rng = np.random.default_rng(2024 if level == "system" else 1)
    n_sets, alpha = 300, 0.1
    rejections = dict.fromkeys(["systems", "inputs", "both", "williams", "boot-both"], 0)
    for k in range(n_sets):
        xa, xb, z = _null_data(rng, 8, 10)
        for design in DESIGNS:
            c = compare_correlations(xa, xb, z, level=level, permutation=design,
                                     resample="both", n_resamples=200, seed=k)  # fmt: skip
            rejections[design] += c.p_value_permutation <= alpha
        if level == "system":
            rejections["williams"] += c.p_value_williams <= alpha
        rejections["boot-both"] += c.p_value_bootstrap <= alpha
    rates = {k: v / n_sets for k, v in rejections.items()}
    for name in ("systems", "inputs", "both") + (("williams",) if level == "system" else ()):
        assert abs(rates[name] - alpha) < 0.052, rates
    assert rates["boot-both"] <= alpha, rates


@pytest.mark.simulation
@pytest.mark.slow
def test_coverage_simulation_ranks_the_designs():
    """New systems and new inputs in every data set (the model's default).

    Observed with this seed (200 data sets, SE about 0.02): system level, Boot-Inputs 0.50
    (it ignores that the systems are a sample), Boot-Systems 0.89 / BCa 0.92, Boot-Both 0.96,
    Fisher 0.96; global level, Fisher 0.65 (it takes the 360 cells as independent),
    Boot-Both 0.95.
    """
    kw = {"n_systems": 12, "n_inputs": 30, "n_trials": 200, "n_resamples": 400,
          "noise_sd": 1.0, "seed": 3}  # fmt: skip
    t = simulate_correlation_coverage(level="system", **kw)
    cov = {(r.design, r.method): r.coverage for r in t.rows}
    assert cov["inputs", "percentile"] < 0.7
    assert cov["systems", "percentile"] > 0.82 and cov["systems", "bca"] > 0.85
    assert cov["both", "percentile"] > 0.9
    assert cov["fisher", "fisher"] > 0.9
    assert t.row("both", "percentile").mean_width > t.row("inputs", "percentile").mean_width
    assert "coverage" in t.format() and len(t.to_dicts()) == 7
    g = simulate_correlation_coverage(level="global", methods=("percentile",), **kw)
    assert g.row("fisher", "fisher").coverage < 0.8
    assert g.row("both", "percentile").coverage > 0.9


def test_coverage_simulation_from_a_finite_population():
    x, z = make_data(12, 30, seed=16)
    t = simulate_correlation_coverage(population=(x, z), level="summary", n_systems=8,
                                      n_inputs=15, n_trials=10, n_resamples=100, seed=0,
                                      designs=("both",), methods=("percentile", "bca"))  # fmt: skip
    assert t.truth == pytest.approx(ref_level(x, z, "summary", "pearson"), abs=1e-13)
    assert [(r.design, r.method) for r in t.rows] == [
        ("fisher", "fisher"),
        ("both", "percentile"),
        ("both", "bca"),
    ]
    assert all(0 <= r.coverage <= 1 and r.n_intervals == 10 for r in t.rows)


def test_true_correlation_of_the_model_is_right():
    """The model's truth against a very large simulated data set."""
    from booteval.meta.simulation import true_correlation

    rng = np.random.default_rng(0)
    n, m = 4000, 25
    u, v = rng.normal(size=(n, 1)), rng.normal(size=(n, 1))
    a, c = u, 0.8 * u + 0.6 * v  # system effects, correlation 0.8, sd 1
    e = 2 * rng.normal(size=(n, m))  # cell noise, correlation 0.3, sd 2
    f = 0.3 * e + math.sqrt(1 - 0.09) * 2 * rng.normal(size=(n, m))
    x, z = a + e, c + f
    for coefficient in ("pearson", "kendall"):
        truth = true_correlation("system", coefficient, m, 0.8, 0.3, 0.0, 1.0, 1.0, 2.0)
        got = SCIPY[coefficient](x.mean(1), z.mean(1))
        assert got == pytest.approx(truth, abs=0.03)


# ------------------------------------------------------------------- SummEval, published
# sacrerouge doc/datasets/fabbri2020.md, single-reference tables (r, rho, tau vs expert
# relevance), printed to 2 decimals
PUBLISHED = {
    "rouge1_p": ((0.13, 0.12, 0.09), (0.29, 0.15, 0.03)),
    "rouge1_r": ((0.31, 0.28, 0.23), (0.55, 0.56, 0.42)),
    "rouge1_f1": ((0.28, 0.26, 0.20), (0.61, 0.62, 0.50)),
    "rouge2_p": ((0.15, 0.13, 0.09), (0.49, 0.41, 0.25)),
    "rouge2_r": ((0.26, 0.23, 0.18), (0.65, 0.78, 0.57)),
    "rouge2_f1": ((0.23, 0.19, 0.14), (0.64, 0.60, 0.43)),
    "bertscore_p": ((0.17, 0.17, 0.13), (0.18, 0.11, 0.02)),
    "bertscore_r": ((0.37, 0.35, 0.27), (0.84, 0.91, 0.75)),
    "bertscore_f1": ((0.29, 0.28, 0.22), (0.54, 0.40, 0.28)),
    "moverscore": ((0.28, 0.24, 0.18), (0.56, 0.54, 0.42)),
    "qaeval_em": ((0.23, 0.23, 0.19), (0.80, 0.91, 0.77)),
    "qaeval_f1": ((0.30, 0.29, 0.22), (0.82, 0.91, 0.77)),
}


def test_summeval_reproduces_the_published_correlations():
    pytest.importorskip("pandas")
    table = booteval.datasets.summeval()
    mats = score_matrices(table, [*PUBLISHED, "expert_relevance"], system="system_id",
                          input="input_id")  # fmt: skip
    z = mats["expert_relevance"]
    assert z.shape == (16, 100)
    checked = 0
    for name, (summary, system) in PUBLISHED.items():
        for level, values in (("summary", summary), ("system", system)):
            for coefficient, published in zip(COEFS, values, strict=True):
                r = correlate(mats[name], z, level=level, coefficient=coefficient,
                              method="fisher").estimate  # fmt: skip
                assert abs(r - published) <= 0.005 + 1e-9, (name, level, coefficient, r)
                checked += 1
    assert checked == 72
    # and the headline number to more digits, against SciPy directly
    r2 = correlate(mats["rouge2_f1"], z, method="fisher").estimate
    assert r2 == pytest.approx(stats.pearsonr(mats["rouge2_f1"].mean(1), z.mean(1))[0], abs=1e-14)
    assert round(r2, 4) == 0.6391


def test_undefined_everywhere_raises():
    x = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    z = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 1.0]])
    with pytest.raises(InvalidInputError):
        correlate(x, z, level="summary")
    with pytest.raises((BootevalError, InvalidInputError)):
        correlate(x, z, level="system")


# ------------------------------------------------------------------ on the engine's loop
def _engine_data():
    rng = np.random.default_rng(12)
    q = rng.normal(size=(8, 1)) + rng.normal(size=(8, 30))
    z = q + rng.normal(size=(8, 30))
    return q + rng.normal(size=(8, 30)), q + 2 * rng.normal(size=(8, 30)), z


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("coefficient", COEFS)
def test_replicates_do_not_depend_on_batch_or_workers(level, coefficient):
    from booteval.meta import core as meta_core

    x, _, z = _engine_data()
    x[2, 5] = np.nan
    prob = meta_core.Problem(x, z, np.isfinite(x) & np.isfinite(z), level, coefficient)
    for design, engine in itertools.product(DESIGNS, ("numpy", "auto")):
        ref = meta_core.bootstrap([prob.stat], design, 8, 30, 5, 300, workers=1, engine=engine)
        assert ref[1] == ("" if engine == "numpy" else ", numba engine")
        for batch, workers in ((1, 1), (37, 3), (None, None)):
            got = meta_core.bootstrap([prob.stat], design, 8, 30, 5, 300, workers=workers,
                                      batch=batch, engine=engine)  # fmt: skip
            np.testing.assert_array_equal(got[0], ref[0])


def test_public_functions_take_workers_without_changing_the_result():
    x, x2, z = _engine_data()
    one = correlate(x, z, n_resamples=1500, seed=2, workers=1)
    assert correlate(x, z, n_resamples=1500, seed=2, workers=3) == one
    kw = dict(level="summary", n_resamples=1500, seed=2)
    c1 = compare_correlations(x, x2, z, workers=1, **kw)
    c3 = compare_correlations(x, x2, z, workers=3, **kw)
    np.testing.assert_array_equal(c1.distribution, c3.distribution)
    np.testing.assert_array_equal(c1.permutation_distribution, c3.permutation_distribution)
    assert (c1.p_value_bootstrap, c1.p_value_permutation) == (
        c3.p_value_bootstrap, c3.p_value_permutation,
    )  # fmt: skip


def test_progress_is_reported_per_batch():
    x, x2, z = _engine_data()
    calls: list[tuple[int, int]] = []
    correlate(x, z, n_resamples=2500, seed=1, progress=lambda d, t: calls.append((d, t)))
    done = [d for d, _ in calls]
    assert len(calls) >= 3 and done == sorted(done) and calls[-1] == (2500, 2500)
    calls.clear()
    compare_correlations(x, x2, z, n_resamples=2500, seed=1,
                         progress=lambda d, t: calls.append((d, t)))  # fmt: skip
    # the bootstrap's batches, then the permutation test's
    assert calls.count((2500, 2500)) == 2 and len(calls) >= 6


# values of the meta-evaluation's own loop before it ran on the engine, for the same draws:
# (level, coefficient, resample, estimate, low, high, sum of the replicates, replicate 777).
# Rank coefficients are bit-identical; Pearson's sums now run row by row (not BLAS) and are
# centred per replicate, which moves the last bits
_BEFORE_ENGINE = [
    ("system", "spearman", "both", 1.0, 0.620253164556962, 1.0, 1424.3129426122268,
     0.9259259259259259),
    ("summary", "kendall", "systems", 0.519047619047619, 0.3573333333333333,
     0.6695652173913044, 777.3676057569342, 0.5306666666666667),
    ("global", "spearman", "inputs", 0.6813599194430459, 0.6005118304362017,
     0.7500694487849935, 1019.5272381986366, 0.6802657897295571),
    ("system", "pearson", "both", 0.997736309796135, 0.9209855470480904, 0.998878017554291,
     1468.2254566054726, 0.952674776450873),
    ("summary", "pearson", "both", 0.7157017728705611, 0.4778283012889392,
     0.8392744815015386, 1034.1661041323014, 0.6335204795854267),
]  # fmt: skip


@pytest.mark.parametrize("case", _BEFORE_ENGINE, ids=lambda c: "-".join(c[:3]))
def test_the_engine_keeps_the_numbers_of_the_own_loop(case):
    level, coefficient, resample, *expected = case
    x, _, z = _engine_data()
    r = correlate(x, z, level=level, coefficient=coefficient, resample=resample,
                  n_resamples=1500, seed=4, engine="numpy")  # fmt: skip
    d = np.asarray(r.distribution)
    got = (r.estimate, r.low, r.high, float(d.sum()), float(d[777]))
    if coefficient == "pearson":
        assert got == pytest.approx(tuple(expected), rel=1e-13, abs=0)
    else:
        assert got == tuple(expected)


def test_compare_on_the_engine_keeps_the_numbers_of_the_own_loop():
    x, x2, z = _engine_data()
    c = compare_correlations(x, x2, z, level="system", coefficient="kendall",
                             n_resamples=1500, seed=4, engine="numpy")  # fmt: skip
    got = (c.low, c.high, c.p_value_bootstrap, c.p_value_permutation,
           float(np.sum(c.permutation_distribution)))  # fmt: skip
    assert got == (-0.3076923076923077, 0.7619047619047619, 0.3984010659560293,
                   0.0073284477015323115, -2.142857142857144)  # fmt: skip
