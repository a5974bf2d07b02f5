"""Tests of booteval.significance: permutation, McNemar and paired t tests.

The permutation test is checked against brute force (every one of the 2**n swaps,
written here with a plain loop and scikit-learn / NumPy metrics), its vectorized
evaluation against one metric call per swap, and its level under simulated nulls,
including a cluster design where the row-level test rejects far too often.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import f1_score, roc_auc_score

from booteval import InvalidInputError, UndefinedReplicateWarning, get_metric
from booteval.core.design import make_design
from booteval.inference import swaps as sig
from booteval.inference.classical import mcnemar_test, paired_t_test
from booteval.inference.significance import permutation_test
from booteval.metrics import list_metrics, resolve_metric

ALTS = ("two-sided", "greater", "less")


# ------------------------------------------------------------------------------------------
# Brute force
# ------------------------------------------------------------------------------------------


def brute_force_null(fn, shared, a, b, units):
    """Every subset of units swapped, one metric call per system: (T_obs, all T*)."""
    a, b = np.asarray(a), np.asarray(b)
    labels = np.unique(units)
    values = []
    for mask in itertools.product([False, True], repeat=labels.size):
        rows = np.isin(units, labels[np.array(mask, dtype=bool)])
        if a.ndim == 2:
            rows = rows[:, None]
        a2 = np.where(rows, b, a)
        b2 = np.where(rows, a, b)
        values.append(fn(*shared, b2) - fn(*shared, a2))
    return fn(*shared, b) - fn(*shared, a), np.array(values)


def exact_p(t_obs, values, alternative, tol=1e-9):
    if alternative == "two-sided":
        count = np.sum(np.abs(values) >= abs(t_obs) - tol)
    elif alternative == "greater":
        count = np.sum(values >= t_obs - tol)
    else:
        count = np.sum(values <= t_obs + tol)
    return count / values.size


def brute_force_p(fn, shared, a, b, units, alternative):
    t_obs, values = brute_force_null(fn, shared, a, b, units)
    return exact_p(t_obs, values, alternative), t_obs


# plain reference metrics (checked against scikit-learn below), fast enough for 2**10 swaps
def accuracy_score(y, p):
    return float(np.mean(np.asarray(y) == np.asarray(p)))


def macro_f1(y, p):
    """sklearn's macro F1: classes = labels of y and p, 0 where a class's F1 is 0/0."""
    scores = []
    for c in np.unique(np.concatenate([y, p])):
        tp = np.sum((y == c) & (p == c))
        den = np.sum(y == c) + np.sum(p == c)
        scores.append(2 * tp / den if den else 0.0)
    return float(np.mean(scores))


def auc(y, s):
    pos, neg = s[y == 1], s[y == 0]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (pos.size * neg.size))


def test_reference_metrics_agree_with_sklearn():
    rng = np.random.default_rng(0)
    for _ in range(5):
        y = rng.integers(0, 3, 30)
        p = rng.integers(0, 5, 30)
        assert macro_f1(y, p) == pytest.approx(f1_score(y, p, average="macro", zero_division=0))
        yb = rng.integers(0, 2, 30)
        s = rng.normal(size=30).round(1)
        assert auc(yb, s) == pytest.approx(roc_auc_score(yb, s))


def _tiny_case(kind, seed):
    rng = np.random.default_rng(seed)
    n = 8 + seed % 3  # 8, 9 or 10 rows
    if kind == "mean":
        return dict(metric=None, kwargs=None, fn=np.mean, shared=(),
                    a=rng.normal(size=n).round(2), b=rng.normal(size=n).round(2))  # fmt: skip
    if kind == "accuracy":
        y = rng.integers(0, 3, n)
        return dict(metric="accuracy", kwargs=None, fn=accuracy_score, shared=(y,),
                    a=np.where(rng.random(n) < 0.5, y, rng.integers(0, 3, n)),
                    b=np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)))  # fmt: skip
    if kind == "macro_f1":
        y = np.array(["cat", "dog", "eel"])[rng.integers(0, 3, n)]
        y[:3] = ["cat", "dog", "eel"]
        flip = np.array(["cat", "dog", "eel"])[rng.integers(0, 3, n)]
        return dict(metric="f1", kwargs={"average": "macro"}, fn=macro_f1, shared=(y,),
                    a=np.where(rng.random(n) < 0.4, y, flip),
                    b=np.where(rng.random(n) < 0.8, y, flip))  # fmt: skip
    if kind == "macro_f1_extra_label":
        # labels only the predictions use ("fox", "gnu"): the class set depends on the swap
        y = np.array(["cat", "dog", "eel"])[rng.integers(0, 3, n)]
        a = np.where(rng.random(n) < 0.5, y, "fox")
        b = np.where(rng.random(n) < 0.6, y, np.where(rng.random(n) < 0.5, "gnu", "cat"))
        return dict(metric="f1", kwargs={"average": "macro"}, fn=macro_f1, shared=(y,),
                    a=a, b=b)  # fmt: skip
    if kind == "callable":
        return dict(metric=np.median, kwargs=None, fn=np.median, shared=(),
                    a=rng.normal(size=n).round(2), b=rng.normal(size=n).round(2) + 0.5)  # fmt: skip
    if kind == "roc_auc":
        y = np.tile([0, 1], n)[:n]
        a = rng.normal(size=n).round(1) + y
        b = rng.normal(size=n).round(1) + 2 * y
        return dict(metric="roc_auc", kwargs=None, fn=auc, shared=(y,), a=a, b=b)
    raise AssertionError(kind)


KINDS = ("mean", "accuracy", "macro_f1", "macro_f1_extra_label", "callable", "roc_auc")


# ------------------------------------------------------------------------------------------
# Permutation test: exact enumeration against brute force
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kind", KINDS)
def test_permutation_exact_equals_brute_force(kind, seed):
    c = _tiny_case(kind, seed)
    n = c["a"].shape[0]
    t_obs, values = brute_force_null(c["fn"], c["shared"], c["a"], c["b"], np.arange(n))
    assert np.unique(np.abs(np.round(values, 9))).size >= 2  # not a degenerate null
    for alternative in ALTS:
        r = permutation_test(*c["shared"], c["a"], c["b"], metric=c["metric"],
                             metric_kwargs=c["kwargs"], alternative=alternative)  # fmt: skip
        assert r.exact
        assert r.seed is None
        assert r.statistic == pytest.approx(t_obs, abs=1e-12)
        assert r.p_value == pytest.approx(exact_p(t_obs, values, alternative), abs=1e-12)
        # only rows where the outputs differ are enumerated; the distribution has 2**k values
        k = int(np.sum(np.asarray(c["a"]) != np.asarray(c["b"])))
        assert r.n_swappable == k and r.n_permutations == 2**k == r.distribution.size
        assert r.vectorized == (kind != "callable")


@pytest.mark.parametrize("kind", ["mean", "accuracy", "macro_f1"])
def test_clusters_swap_together(kind):
    c = _tiny_case(kind, 4)
    rng = np.random.default_rng(7)
    n = c["a"].shape[0]
    # 5 clusters of unequal sizes, labels not in row order
    clusters = np.array(["q", "r", "s", "t", "u"])[rng.permutation(np.arange(n) % 5)]
    clusters[0] = clusters[1]
    for alternative in ALTS:
        r = permutation_test(*c["shared"], c["a"], c["b"], metric=c["metric"],
                             metric_kwargs=c["kwargs"], clusters=clusters,
                             alternative=alternative)  # fmt: skip
        p, _ = brute_force_p(c["fn"], c["shared"], c["a"], c["b"], clusters, alternative)
        assert r.exact and r.n_clusters == np.unique(clusters).size
        assert r.p_value == pytest.approx(p, abs=1e-12)
        assert r.n_permutations <= 2 ** np.unique(clusters).size
        differs = np.asarray(c["a"]) != np.asarray(c["b"])
        assert r.n_swappable == np.unique(clusters[differs]).size
    # and the row-level test is another one
    row = permutation_test(*c["shared"], c["a"], c["b"], metric=c["metric"],
                           metric_kwargs=c["kwargs"])  # fmt: skip
    p_row, _ = brute_force_p(c["fn"], c["shared"], c["a"], c["b"], np.arange(n), "two-sided")
    assert row.p_value == pytest.approx(p_row, abs=1e-12)
    assert row.n_swappable == differs.sum() and row.n_clusters is None


def test_strata_do_not_change_swaps():
    c = _tiny_case("mean", 1)
    n = c["a"].shape[0]
    plain = permutation_test(c["a"], c["b"], n_resamples=500, seed=3, exact=False)
    strat = permutation_test(c["a"], c["b"], n_resamples=500, seed=3, exact=False,
                             strata=np.arange(n) % 2)  # fmt: skip
    assert np.array_equal(plain.distribution, strat.distribution)
    assert plain.p_value == strat.p_value
    with pytest.raises(InvalidInputError, match="strata"):
        permutation_test(c["a"], c["b"], clusters=np.arange(n) // 2, strata=np.arange(n) % 2)


# ------------------------------------------------------------------------------------------
# Permutation test: vectorized evaluation against one call per swap
# ------------------------------------------------------------------------------------------


def _swappers(metric, kwargs, data, clusters=None):
    m = resolve_metric(metric, kwargs, len(data) - 1)
    arr_a = m.validate(*data[:-2], data[-2])
    arr_b = m.validate(*data[:-2], data[-1])
    n = arr_a[-1].shape[0]
    design = make_design(n, clusters=clusters)
    iid = make_design(n)
    est = (m.bind(arr_a, iid).estimate(), m.bind(arr_b, iid).estimate())
    fast = sig._make_swapper(m, arr_a, arr_b, design, est)
    slow = sig._make_swapper(m, arr_a, arr_b, design, est, vectorize=False)
    return fast, slow


@pytest.mark.parametrize("clustered", [False, True])
@pytest.mark.parametrize("kind", ["mean", "accuracy", "macro_f1", "macro_f1_extra_label"])
def test_vectorized_equals_loop_for_the_same_swap_matrix(kind, clustered):
    rng = np.random.default_rng(11)
    n = 60
    if kind == "mean":
        data = (rng.normal(size=n), rng.normal(size=n))
    else:
        y = rng.integers(0, 4, n)
        a = np.where(rng.random(n) < 0.6, y, rng.integers(0, 4, n))
        b = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n))
        if kind == "macro_f1_extra_label":
            a[[3, 17]] = 9  # a label y_true never takes
        data = (y, a, b)
    metric = {"mean": None, "accuracy": "accuracy"}.get(kind, "f1")
    kwargs = {"average": "macro"} if "f1" in kind else None
    fast, slow = _swappers(metric, kwargs, data, rng.integers(0, 12, n) if clustered else None)
    assert fast.vectorized and not slow.vectorized
    assert isinstance(fast, sig._SumSwapper) == (kind != "macro_f1_extra_label")
    assert np.array_equal(fast.units, slow.units)
    z = (rng.random((200, fast.units.size)) < 0.5).astype(float)
    np.testing.assert_allclose(fast.statistics(z), slow.statistics(z), rtol=1e-10, atol=1e-13)
    assert fast.t_ref == pytest.approx(slow.t_ref, abs=1e-13)


def _registry_data(name, rng, n):
    m = resolve_metric(name, None, 1 if name == "mean" else 2)
    if m.input_names == ("scores",):
        return rng.normal(size=n), rng.normal(size=n)
    if name in ("precision", "recall", "f1", "specificity", "youden"):
        y = rng.integers(0, 2, n)
        return y, rng.integers(0, 2, n), rng.integers(0, 2, n)
    if name in ("accuracy", "error_rate", "balanced_accuracy", "mcc", "cohen_kappa"):
        y = rng.integers(0, 3, n)
        return y, rng.integers(0, 3, n), rng.integers(0, 3, n)
    if name in ("roc_auc", "average_precision", "log_loss", "brier", "ece"):
        y = np.tile([0, 1], n)[:n]
        return y, rng.random(n), rng.random(n)
    if name in ("bleu", "chrf"):
        pytest.importorskip("sacrebleu")
        words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran"]

        def sentence():
            return " ".join(rng.choice(words, int(rng.integers(3, 7))))

        refs = np.array([sentence() for _ in range(n)], dtype=object)
        return (
            refs,
            np.array([sentence() for _ in range(n)], dtype=object),
            np.array([sentence() for _ in range(n)], dtype=object),
        )
    return rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)


@pytest.mark.parametrize("name", list_metrics())
def test_every_registry_metric_vectorized_equals_loop(name):
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    data = _registry_data(name, rng, 8)
    for clusters in (None, np.arange(8) // 2):
        fast, slow = _swappers(name, None, data, clusters)
        assert fast.vectorized, name
        k = fast.units.size
        z = sig._exact_swaps(k, 0, 2**k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_allclose(
                fast.statistics(z), slow.statistics(z), rtol=1e-10, atol=1e-12, equal_nan=True
            )


def test_probability_matrix_outputs():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 9)
    pa, pb = rng.dirichlet(np.ones(3), 9), rng.dirichlet(np.ones(3), 9)
    r = permutation_test(y, pa, pb, metric="log_loss")
    m = resolve_metric("log_loss", None, 2)
    p, _ = brute_force_p(lambda t, q: m(t, q), (y,), pa, pb, np.arange(9), "two-sided")
    assert r.vectorized and r.exact
    assert r.p_value == pytest.approx(p, abs=1e-12)


# ------------------------------------------------------------------------------------------
# Permutation test: Monte Carlo p-value, seeds and batches
# ------------------------------------------------------------------------------------------


def _noisy_pair(n=40, seed=0, shift=0.3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return x + rng.normal(size=n), x + rng.normal(size=n) + shift


@pytest.mark.parametrize("metric", [None, np.mean])
def test_same_seed_same_result_for_any_batch(metric):
    a, b = _noisy_pair()
    kw = dict(metric=metric, n_resamples=700, seed=12)
    ref = permutation_test(a, b, **kw)
    for batch in (1, 7, 256, 10_000):
        r = permutation_test(a, b, batch=batch, **kw)
        assert np.array_equal(r.distribution, ref.distribution)
        assert r.p_value == ref.p_value
    # R swaps are a prefix of a longer run with the same seed
    longer = permutation_test(a, b, metric=metric, n_resamples=1500, seed=12, batch=100)
    assert np.array_equal(longer.distribution[:700], ref.distribution)
    assert not np.array_equal(permutation_test(a, b, **{**kw, "seed": 13}).distribution,
                              ref.distribution)  # fmt: skip
    assert ref.seed == 12 and not ref.exact


def test_registry_and_callable_paths_draw_the_same_swaps():
    a, b = _noisy_pair(seed=2)
    fast = permutation_test(a, b, n_resamples=500, seed=1, engine="numpy")
    slow = permutation_test(a, b, metric=lambda x: float(np.mean(x)), n_resamples=500, seed=1)
    assert fast.vectorized and not slow.vectorized
    np.testing.assert_allclose(fast.distribution, slow.distribution, atol=1e-13)
    assert fast.p_value == slow.p_value


def test_the_compiled_engine_swaps_sum_metrics_with_its_own_bits():
    from booteval.core.swap_kernels import swap_bits

    a, b = _noisy_pair(n=150, seed=4)
    r = permutation_test(a, b, n_resamples=400, seed=2)  # the default engine
    assert not r.exact and r.distribution.size == 400
    swappable = np.flatnonzero(a != b)
    for k in (0, 5, 399):  # permutation k: the metric on the swapped systems
        z = np.zeros(a.size, dtype=bool)
        z[swappable] = swap_bits(2, k, swappable.size).astype(bool)
        a2, b2 = np.where(z, b, a), np.where(z, a, b)
        assert r.distribution[k] == pytest.approx(b2.mean() - a2.mean(), abs=1e-12)
    # the same null distribution as the NumPy engine's swaps, within Monte Carlo error
    slow = permutation_test(a, b, n_resamples=4000, seed=2, engine="numpy")
    fast = permutation_test(a, b, n_resamples=4000, seed=2)
    assert abs(fast.distribution.std() / slow.distribution.std() - 1) < 0.06
    again = permutation_test(a, b, n_resamples=400, seed=2, batch=7, workers=1)
    assert np.array_equal(again.distribution, r.distribution)


@pytest.mark.parametrize("metric", ["f1", "mcc", "balanced_accuracy"])
def test_the_compiled_engine_swaps_confusion_matrix_metrics(metric):
    from booteval.core.swap_kernels import swap_bits

    rng = np.random.default_rng(6)
    n = 120
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.7, y, 1 - y)
    r = permutation_test(y, a, b, metric=metric, n_resamples=300, seed=3)
    fn, design = get_metric(metric), make_design(n)
    swappable = np.flatnonzero(a != b)
    for k in (0, 17, 299):  # permutation k: the metric on the swapped systems
        z = np.zeros(n, dtype=bool)
        z[swappable] = swap_bits(3, k, swappable.size).astype(bool)
        a2, b2 = np.where(z, b, a), np.where(z, a, b)
        want = fn.bind((y, b2), design).estimate() - fn.bind((y, a2), design).estimate()
        assert r.distribution[k] == pytest.approx(want, abs=1e-12)
    slow = permutation_test(y, a, b, metric=metric, n_resamples=300, seed=3, engine="numpy")
    assert not np.array_equal(slow.distribution, r.distribution)  # the NumPy engine's bits


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "spearman", "kendall"])
@pytest.mark.parametrize("clustered", [False, True])
def test_the_compiled_engine_swaps_rank_metrics_on_the_pooled_rows(metric, clustered):
    from booteval.core.swap_kernels import swap_bits

    rng = np.random.default_rng(8)
    n = 90
    y = rng.integers(0, 2, n) if metric in ("roc_auc", "average_precision") else rng.normal(size=n)
    a = np.round(y + rng.normal(size=n), 1)  # ties within and across the systems
    b = np.round(y + 1.5 * rng.normal(size=n), 1)
    b[:7] = a[:7]  # rows that no swap changes
    clusters = rng.integers(0, 25, n) if clustered else None
    kw = {"metric": metric, "clusters": clusters, "n_resamples": 300, "seed": 5}
    r = permutation_test(y, a, b, **kw)
    assert not r.exact and r.distribution.size == 300
    fn = get_metric(metric)
    unit = np.unique(clusters, return_inverse=True)[1] if clustered else np.arange(n)
    differs = np.zeros(unit.max() + 1, dtype=bool)
    differs[unit[a != b]] = True
    swappable = np.flatnonzero(differs)
    design = make_design(n)
    for k in (0, 1, 150, 299):  # permutation k: the metric on the swapped systems
        z = np.zeros(unit.max() + 1, dtype=bool)
        z[swappable] = swap_bits(5, k, swappable.size).astype(bool)
        rows = z[unit]
        a2, b2 = np.where(rows, b, a), np.where(rows, a, b)
        want = fn.bind((y, b2), design).estimate() - fn.bind((y, a2), design).estimate()
        assert r.distribution[k] == pytest.approx(want, abs=1e-12)
    # the NumPy engine's swaps give the same null distribution within Monte Carlo error
    slow = permutation_test(y, a, b, **{**kw, "n_resamples": 3000}, engine="numpy")
    fast = permutation_test(y, a, b, **{**kw, "n_resamples": 3000})
    assert abs(fast.distribution.std() / slow.distribution.std() - 1) < 0.08
    assert abs(fast.p_value - slow.p_value) < 0.04
    again = permutation_test(y, a, b, **kw, batch=11, workers=1)
    assert np.array_equal(again.distribution, r.distribution)


@pytest.mark.parametrize("alternative", ALTS)
def test_monte_carlo_p_value_uses_the_plus_one_correction(alternative):
    a, b = _noisy_pair(n=16, seed=3)
    r = permutation_test(a, b, n_resamples=2000, seed=0, exact=False, alternative=alternative)
    null, t = r.distribution, r.statistic
    count = {
        "two-sided": np.sum(np.abs(null) >= abs(t) - 1e-12),
        "greater": np.sum(null >= t - 1e-12),
        "less": np.sum(null <= t + 1e-12),
    }[alternative]
    assert r.n_permutations == 2000 == null.size
    assert r.p_value == pytest.approx((1 + count) / 2001, abs=1e-15)
    # close to the exact p-value over all 2**16 swaps
    ex = permutation_test(a, b, exact=True, alternative=alternative)
    assert ex.exact and ex.n_permutations == 2**16
    assert abs(r.p_value - ex.p_value) < 4 * math.sqrt(ex.p_value * (1 - ex.p_value) / 2000) + 1e-3


def test_exact_auto_threshold():
    a, b = _noisy_pair(n=12, seed=4)  # all 12 rows differ: 4096 swaps
    assert permutation_test(a, b, n_resamples=4096).exact
    r = permutation_test(a, b, n_resamples=4095, seed=0)
    assert not r.exact and r.n_permutations == 4095
    assert permutation_test(a, b, n_resamples=100, exact=True).n_permutations == 4096
    assert not permutation_test(a, b, exact=False, seed=0).exact


def test_identical_systems_give_p_one():
    x = [0.2, 0.5, 0.9, 0.1]
    r = permutation_test(x, x)
    assert r.statistic == 0.0 and r.p_value == 1.0 and r.n_swappable == 0
    r = permutation_test(x, x, exact=False, n_resamples=50, seed=0)
    assert r.p_value == 1.0


def test_symmetric_null_and_complement():
    # swapping every unit turns T into -T, for any metric
    c = _tiny_case("macro_f1", 0)
    r = permutation_test(*c["shared"], c["a"], c["b"], metric="f1",
                         metric_kwargs={"average": "macro"})  # fmt: skip
    d = r.distribution
    np.testing.assert_allclose(d, -d[::-1], atol=1e-12)
    assert d[0] == pytest.approx(r.statistic, abs=1e-12)


def test_undefined_swaps_are_counted_and_warned():
    def fussy(x):
        if x[0] > 0.5 and x[3] > 0.3:
            raise ValueError("undefined here")
        return float(np.mean(x))

    a = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    b = np.array([0.9, 0.2, 0.3, 0.1, 0.5, 0.7])
    # rows 0, 3 and 5 differ: 8 swaps; A' is undefined when row 0 swaps and row 3 does
    # not, B' when row 3 swaps and row 0 does not: 4 of 8
    with pytest.warns(UndefinedReplicateWarning, match="undefined on 4 of 8 swaps"):
        r = permutation_test(a, b, metric=fussy)
    assert r.exact and r.n_undefined == 4 and r.distribution.size == 4
    assert r.p_value == pytest.approx(np.mean(np.abs(r.distribution) >= abs(r.statistic) - 1e-12))


def test_result_text_and_dict():
    r = permutation_test([1, 0, 1, 1, 0], [1, 1, 1, 1, 1], names=("base", "new"),
                         alternative="greater")  # fmt: skip
    assert str(r) == ("mean: new - base = 0.4000, p = 0.2500 "
                      "(permutation, exact over 2^2 swaps, greater)")  # fmt: skip
    d = r.to_dict()
    assert d["p_value"] == 0.25 and d["test"] == "permutation" and "distribution" not in d
    with pytest.raises(ValueError):
        r.distribution[0] = 1.0
    cl = permutation_test([1, 0, 1, 1, 0, 0], [1, 1, 1, 1, 1, 0], clusters=[1, 1, 2, 2, 3, 3])
    assert "of clusters" in str(cl)


# ------------------------------------------------------------------------------------------
# Permutation test: errors
# ------------------------------------------------------------------------------------------


def test_permutation_errors():
    with pytest.raises(InvalidInputError, match=r"scores of system B.*4 rows") as e:
        permutation_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0])
    assert e.value.parameter == "scores of system B"
    with pytest.raises(InvalidInputError, match="y_pred of system new") as e:
        permutation_test([0, 1, 1], [0, 1, 1], [0, 1], metric="accuracy", names=("old", "new"))
    with pytest.raises(InvalidInputError, match="'two-sided', 'greater', 'less'") as e:
        permutation_test([1.0, 2.0], [2.0, 3.0], alternative="bigger")
    assert e.value.parameter == "alternative"
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidInputError, match="2\\^20") as e:
        permutation_test(rng.normal(size=30), rng.normal(size=30), exact=True)
    assert e.value.parameter == "exact"
    with pytest.raises(InvalidInputError) as e:
        permutation_test([1.0, 2.0], [2.0, 3.0], exact="yes")
    assert e.value.parameter == "exact"
    with pytest.raises(InvalidInputError) as e:
        permutation_test([1.0, 2.0], [2.0, 3.0], n_resamples=0)
    assert e.value.parameter == "n_resamples"
    with pytest.raises(InvalidInputError) as e:
        permutation_test([1.0, 2.0])
    assert e.value.parameter == "data"
    with pytest.raises(InvalidInputError) as e:
        permutation_test([1.0, 2.0], [2.0, 3.0], clusters=[1, 2, 3])
    assert e.value.parameter == "clusters"
    with pytest.raises(InvalidInputError, match="metric") as e:
        permutation_test([0, 1], [0, 1], [1, 1])  # two inputs need a metric
    with pytest.raises(InvalidInputError, match="defined") as e:
        permutation_test([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], [1.0, 2.0, 2.0], metric="pearson")
    assert e.value.parameter == "y of system A"  # a constant system: undefined


# ------------------------------------------------------------------------------------------
# McNemar
# ------------------------------------------------------------------------------------------


def _binom_p(c, nd, alternative):
    pmf = [math.comb(nd, i) / 2**nd for i in range(nd + 1)]
    upper = sum(pmf[c:])
    lower = sum(pmf[: c + 1])
    if alternative == "greater":
        return upper
    if alternative == "less":
        return lower
    return min(1.0, 2 * min(upper, lower))


@pytest.mark.parametrize("alternative", ALTS)
def test_mcnemar_exact_equals_direct_binomial(alternative):
    rng = np.random.default_rng(1)
    for trial in range(20):
        n = int(rng.integers(5, 60))
        y = rng.integers(0, 3, n)
        a = np.where(rng.random(n) < 0.6, y, (y + 1) % 3)
        b = np.where(rng.random(n) < 0.6 + 0.02 * trial, y, (y + 2) % 3)
        r = mcnemar_test(y, a, b, alternative=alternative)
        b_ = int(np.sum((a == y) & (b != y)))
        c_ = int(np.sum((a != y) & (b == y)))
        assert (r.b, r.c, r.n_discordant, r.n) == (b_, c_, b_ + c_, n)
        assert r.statistic == c_ and r.test == "mcnemar-exact"
        expected = 1.0 if b_ + c_ == 0 else _binom_p(c_, b_ + c_, alternative)
        assert r.p_value == pytest.approx(expected, rel=1e-12, abs=1e-15)
        assert r.difference == pytest.approx(np.mean(b == y) - np.mean(a == y))


def test_mcnemar_chi_square_equals_formula():
    y = np.array(list("abcabcabcabcabcabcab"))
    a = y.copy()
    a[:7] = "z"  # A wrong on rows 0-6
    b = y.copy()
    b[5:8] = "z"  # B wrong on rows 5-7
    r = mcnemar_test(y, a, b, exact=False)
    # b = A right & B wrong = row 7 -> 1; c = A wrong & B right = rows 0-4 -> 5
    assert (r.b, r.c) == (1, 5)
    stat = (abs(1 - 5) - 1) ** 2 / 6
    assert r.statistic == pytest.approx(stat)
    assert r.p_value == pytest.approx(stats.chi2.sf(stat, 1))
    assert r.test == "mcnemar-chi2"
    tied = mcnemar_test([1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], exact=False)
    assert (tied.b, tied.c, tied.statistic, tied.p_value) == (1, 1, 0.0, 1.0)
    none = mcnemar_test([1, 0], [1, 0], [1, 0], exact=False)
    assert none.n_discordant == 0 and none.p_value == 1.0
    assert mcnemar_test([1, 0], [1, 0], [1, 0]).p_value == 1.0


def test_mcnemar_labels_of_any_type():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 50)
    a = np.where(rng.random(50) < 0.6, y, (y + 1) % 3)
    b = np.where(rng.random(50) < 0.8, y, (y + 2) % 3)
    names = np.array(["cat", "dog", "eel"])
    ref = mcnemar_test(y, a, b, alternative="greater")
    text = mcnemar_test(list(names[y]), list(names[a]), list(names[b]), alternative="greater")
    assert (text.b, text.c, text.p_value) == (ref.b, ref.c, ref.p_value)
    boolean = mcnemar_test(y == 0, a == 0, b == 0)
    assert boolean.n == 50 and boolean.n_discordant == np.sum((a == 0) != (b == 0))


def test_mcnemar_errors():
    with pytest.raises(InvalidInputError, match="two-sided") as e:
        mcnemar_test([0, 1], [0, 1], [1, 1], exact=False, alternative="greater")
    assert e.value.parameter == "alternative"
    with pytest.raises(InvalidInputError) as e:
        mcnemar_test([0, 1, 1], [0, 1, 1], [0, 1])
    assert e.value.parameter == "pred_b"
    with pytest.raises(InvalidInputError) as e:
        mcnemar_test([0, 1], [0, 1], [1, 1], alternative="two_sided")
    assert e.value.parameter == "alternative"
    with pytest.raises(InvalidInputError) as e:
        mcnemar_test([0, 1], [0, 1], [1, 1], exact="yes")
    assert e.value.parameter == "exact"
    with pytest.raises(InvalidInputError) as e:
        mcnemar_test(["a", "b"], [0, 1], [1, 1])
    assert e.value.parameter == "pred_a"


# ------------------------------------------------------------------------------------------
# Paired t
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ALTS)
def test_paired_t_equals_scipy(alternative):
    rng = np.random.default_rng(2)
    a = rng.normal(size=37)
    b = a + rng.normal(scale=0.7, size=37) + 0.2
    r = paired_t_test(a, b, alternative=alternative, confidence_level=0.9)
    ref = stats.ttest_rel(b, a, alternative=alternative)
    ci = ref.confidence_interval(confidence_level=0.9)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.t == r.statistic
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.df == 36 and r.n == 37 and r.n_clusters is None
    assert (r.low, r.high) == (pytest.approx(ci.low, rel=1e-12), pytest.approx(ci.high, rel=1e-12))
    assert r.estimate == pytest.approx(np.mean(b - a))
    assert r.standard_error == pytest.approx(stats.sem(b - a))


def test_paired_t_clustered_se_equals_hand_formula():
    rng = np.random.default_rng(3)
    sizes = [1, 2, 3, 5, 8, 4, 2, 6]
    clusters = np.repeat(np.array(list("hgfedcba")), sizes)
    n = clusters.size
    a = rng.normal(size=n)
    b = a + rng.normal(size=n) + np.repeat(rng.normal(size=len(sizes)), sizes)
    r = paired_t_test(a, b, clusters=clusters, alternative="greater")
    d = b - a
    dbar = d.mean()
    big_g = len(sizes)
    total = 0.0
    for g in np.unique(clusters):
        rows = clusters == g
        total += (d[rows].sum() - rows.sum() * dbar) ** 2
    se = math.sqrt(big_g / (big_g - 1) * total) / n
    assert r.standard_error == pytest.approx(se, rel=1e-12)
    assert r.df == big_g - 1 and r.n_clusters == big_g
    assert r.statistic == pytest.approx(dbar / se, rel=1e-12)
    assert r.p_value == pytest.approx(stats.t.sf(dbar / se, big_g - 1), rel=1e-10)
    assert r.low == pytest.approx(dbar - stats.t.ppf(0.95, big_g - 1) * se) and r.high == math.inf
    assert r.test == "paired-t (cluster-robust)"
    # one row per cluster: the ordinary paired t
    single = paired_t_test(a, b, clusters=np.arange(n))
    plain = paired_t_test(a, b)
    assert single.standard_error == pytest.approx(plain.standard_error, rel=1e-12)
    assert single.p_value == pytest.approx(plain.p_value, rel=1e-10)


def test_paired_t_degenerate_and_errors():
    from booteval import DegenerateIntervalWarning

    with pytest.warns(DegenerateIntervalWarning):
        r = paired_t_test([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])
    assert r.statistic == math.inf and r.p_value == 0.0 and r.low == r.high == 0.5
    with pytest.warns(DegenerateIntervalWarning):
        r = paired_t_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], alternative="less")
    assert r.statistic == 0.0 and r.p_value == 1.0
    with pytest.raises(InvalidInputError) as e:
        paired_t_test([1.0, 2.0, 3.0], [1.0, 2.0])
    assert e.value.parameter == "scores_b"
    with pytest.raises(InvalidInputError) as e:
        paired_t_test([1.0], [2.0])
    assert e.value.parameter == "scores_a"
    with pytest.raises(InvalidInputError) as e:
        paired_t_test([1.0, 2.0], [2.0, 2.5], clusters=[0, 0])
    assert e.value.parameter == "clusters"
    with pytest.raises(InvalidInputError) as e:
        paired_t_test([1.0, 2.0], [2.0, 2.5], alternative="up")
    assert e.value.parameter == "alternative"
    with pytest.raises(InvalidInputError) as e:
        paired_t_test([1.0, 2.0], [2.0, 2.5], confidence_level=95)
    assert e.value.parameter == "confidence_level"


# ------------------------------------------------------------------------------------------
# Level under simulated nulls
# ------------------------------------------------------------------------------------------

ALPHA = 0.05


def _rate(pvalues):
    return float(np.mean(np.asarray(pvalues) <= ALPHA))


@pytest.mark.simulation
@pytest.mark.slow
def test_null_rejection_rates_iid():
    """No true difference: every test rejects at about 5 %."""
    rng = np.random.default_rng(2024)
    sims, n = 600, 60
    p_perm_mean, p_perm_acc, p_t, p_mc, p_mc_chi = [], [], [], [], []
    for s in range(sims):
        x = rng.normal(size=n)
        a = x + rng.normal(size=n)
        b = x + rng.normal(size=n)
        p_perm_mean.append(permutation_test(a, b, n_resamples=1000, seed=s).p_value)
        p_t.append(paired_t_test(a, b).p_value)
        y = rng.integers(0, 3, 4 * n)
        hard = rng.random(4 * n) < 0.3  # hard rows are hard for both systems
        pa = np.where(rng.random(4 * n) < np.where(hard, 0.4, 0.85), y, (y + 1) % 3)
        pb = np.where(rng.random(4 * n) < np.where(hard, 0.4, 0.85), y, (y + 2) % 3)
        p_perm_acc.append(
            permutation_test(y, pa, pb, metric="accuracy", n_resamples=1000, seed=s).p_value
        )
        p_mc.append(mcnemar_test(y, pa, pb).p_value)
        p_mc_chi.append(mcnemar_test(y, pa, pb, exact=False).p_value)
    rates = {
        "permutation (mean)": p_perm_mean,
        "permutation (accuracy)": p_perm_acc,
        "paired t": p_t,
        "McNemar exact": p_mc,
        "McNemar chi2": p_mc_chi,
    }
    for name, ps in rates.items():
        assert 0.02 <= _rate(ps) <= 0.08, (name, _rate(ps))


@pytest.mark.simulation
@pytest.mark.slow
def test_null_rejection_rates_clustered():
    """Strong within-cluster correlation of the differences: row-level tests reject far too
    often, the cluster-level permutation test and the cluster-robust t stay near 5 %."""
    rng = np.random.default_rng(7)
    sims, n_clusters, size = 500, 20, 10
    clusters = np.repeat(np.arange(n_clusters), size)
    row_perm, cl_perm, naive_t, cl_t = [], [], [], []
    # one numba thread per permutation test: the p-values do not depend on the number of
    # threads, and 1,000 permutations are too few to gain from more (under pytest-xdist the
    # idle threads of many short parallel launches only contend for the cores)
    one = {"n_resamples": 1000, "workers": 1}
    for s in range(sims):
        x = rng.normal(size=clusters.size)
        # each system is better on some clusters (sources, speakers) than on others
        a = x + rng.normal(size=n_clusters)[clusters] + 0.3 * rng.normal(size=clusters.size)
        b = x + rng.normal(size=n_clusters)[clusters] + 0.3 * rng.normal(size=clusters.size)
        row_perm.append(permutation_test(a, b, seed=s, **one).p_value)
        cl_perm.append(permutation_test(a, b, clusters=clusters, seed=s, **one).p_value)
        naive_t.append(paired_t_test(a, b).p_value)
        cl_t.append(paired_t_test(a, b, clusters=clusters).p_value)
    assert _rate(row_perm) > 0.15, _rate(row_perm)
    assert _rate(naive_t) > 0.15, _rate(naive_t)
    assert 0.02 <= _rate(cl_perm) <= 0.08, _rate(cl_perm)
    assert 0.02 <= _rate(cl_t) <= 0.08, _rate(cl_t)


def test_permutations_run_on_the_engine_loop_for_any_batch_and_workers():
    rng = np.random.default_rng(21)
    y = (rng.random(200) < 0.5).astype(int)
    a = np.where(rng.random(200) < 0.8, y, 1 - y)
    b = np.where(rng.random(200) < 0.75, y, 1 - y)
    kw = dict(metric="accuracy", n_resamples=2500, seed=4)
    ref = permutation_test(y, a, b, batch=2500, workers=1, **kw)
    calls = []
    other = permutation_test(
        y, a, b, batch=97, workers=2, progress=lambda d, t: calls.append(d), **kw
    )
    assert np.array_equal(ref.distribution, other.distribution)
    assert ref.p_value == other.p_value
    assert calls[-1] == 2500 and calls == sorted(calls)
