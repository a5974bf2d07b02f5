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
from booteval.core.kernels import drawn_indices
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
    if engine == "numpy":  # the NumPy engine's blocks of unit counts
        weights = plan.unit_weights(3, 0, bb)
    else:  # the compiled kernels' draws of units (a difference of means runs there)
        assert "numba engine" in r.design
        weights = np.array(
            [
                np.bincount(drawn_indices(3, i, plan.n_units), minlength=plan.n_units)
                for i in range(bb)
            ],
            dtype=float,
        )
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


# ---------------------------------------------------------------- the same interval, every door
_N = 120
_RNG = np.random.default_rng(7)
_Y = _RNG.integers(0, 2, _N)
_PRED = {k: np.where(_RNG.random(_N) < p, _Y, 1 - _Y) for k, p in (("a", 0.8), ("b", 0.9))}
_SCORE = {k: _Y * s + _RNG.normal(0, 1, _N) for k, s in (("a", 0.8), ("b", 1.5))}
_MEAN = {k: _RNG.random(_N) + s for k, s in (("a", 0.0), ("b", 0.1))}
_Y_RARE = np.zeros(_N, dtype=int)  # 7 positives: ROC-AUC's default is Newcombe's interval
_Y_RARE[_RNG.choice(_N, 7, replace=False)] = 1
_RARE = {k: _Y_RARE * s + _RNG.normal(0, 1, _N) for k, s in (("a", 1.0), ("b", 2.5))}
_DESIGNS = {
    "iid": {},
    "strata": {"strata": _Y},
    "clusters": {"clusters": np.repeat(np.arange(40), 3)},
}
_KINDS = {  # metric, shared inputs, each system's outputs
    "means": ("mean", (), _MEAN),
    "labels": ("accuracy", (_Y,), _PRED),
    "scores": ("roc_auc", (_Y,), _SCORE),
}
_METHODS = ["auto", "percentile", "basic", "normal", "bca", "studentized"]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("method", _METHODS)
@pytest.mark.parametrize("design", sorted(_DESIGNS))
@pytest.mark.parametrize("kind", sorted(_KINDS))
def test_compare_and_leaderboard_give_each_system_ci_s_interval(kind, design, method):
    metric, shared, systems = _KINDS[kind]
    opts = {"metric": metric, "method": method, "seed": 11, "n_resamples": 1000}
    opts.update(_DESIGNS[design])
    alone = {k: _quiet(booteval.ci, *shared, v, **opts) for k, v in systems.items()}
    pair = _quiet(booteval.compare, *shared, systems["a"], systems["b"], **opts)
    assert pair.interval_a == (alone["a"].low, alone["a"].high)
    assert pair.interval_b == (alone["b"].low, alone["b"].high)
    board = _quiet(booteval.leaderboard, systems, y_true=shared[0] if shared else None, **opts)
    for k, r in alone.items():
        e = board.entry(k)
        assert (e.estimate, e.low, e.high) == (r.estimate, r.low, r.high), k
        assert board.system_methods[board.names.index(k)] == r.method


@pytest.mark.parametrize("design", sorted(_DESIGNS))
def test_every_door_gives_a_rare_class_s_default_interval(design):
    """7 positives among 120 rows: on independent rows the default is Newcombe's closed
    form for ROC-AUC; ci, compare and leaderboard give each system the same interval."""
    opts = {"metric": "roc_auc", "seed": 11, "n_resamples": 1000, **_DESIGNS[design]}
    alone = {k: _quiet(booteval.ci, _Y_RARE, v, **opts) for k, v in _RARE.items()}
    pair = _quiet(booteval.compare, _Y_RARE, _RARE["a"], _RARE["b"], **opts)
    assert pair.interval_a == (alone["a"].low, alone["a"].high)
    assert pair.interval_b == (alone["b"].low, alone["b"].high)
    board = _quiet(booteval.leaderboard, _RARE, y_true=_Y_RARE, **opts)
    for k, r in alone.items():
        e = board.entry(k)
        assert (e.estimate, e.low, e.high) == (r.estimate, r.low, r.high), k
        assert board.system_methods[board.names.index(k)] == r.method
        assert (r.method == "newcombe-auc") == (design != "clusters")


@pytest.mark.parametrize("method", [m for m in _METHODS if m != "auto"])
@pytest.mark.parametrize("design", sorted(_DESIGNS))
def test_compare_with_a_system_of_zeros_is_ci(design, method):
    """B - A with A all zeros is B's mean: the same interval as ci, to the last bit."""
    x = _MEAN["b"]
    opts = {"method": method, "seed": 5, "n_resamples": 1000, **_DESIGNS[design]}
    alone = _quiet(booteval.ci, x, **opts)
    pair = _quiet(booteval.compare, np.zeros_like(x), x, **opts)
    assert (pair.difference, pair.low, pair.high) == (alone.estimate, alone.low, alone.high)
    np.testing.assert_array_equal(pair.distribution, alone.distribution)


def test_leaderboard_pairs_follow_compare_s_automatic_choice():
    """With clusters, compare's method='auto' takes CR2 for a difference of means: the
    leaderboard's pair is the same closed form, and says so."""
    clusters = _DESIGNS["clusters"]["clusters"]
    pair = _quiet(booteval.compare, _MEAN["a"], _MEAN["b"], clusters=clusters, seed=1)
    board = _quiet(booteval.leaderboard, _MEAN, clusters=clusters, seed=1)
    p = board.pair("a", "b")
    assert pair.method == "cr2" and board.pair_methods == ("cr2",)
    assert (p.low, p.high, p.p_value) == (pair.low, pair.high, pair.p_value)
    mirrored = board.pair("b", "a")
    assert (mirrored.low, mirrored.high) == (-pair.high, -pair.low)
    assert "pairs cr2" in board.to_text()


def test_permutation_test_takes_n_resamples_and_the_old_name_warns():
    a, b = _scores(60)
    new = booteval.permutation_test(a, b, n_resamples=500, seed=2)
    with pytest.warns(FutureWarning, match="`n_permutations` is renamed `n_resamples`"):
        old = booteval.permutation_test(a, b, n_permutations=500, seed=2)
    assert new.p_value == old.p_value and new.n_permutations == 500
    with pytest.raises(booteval.InvalidInputError, match="n_permutations"):
        booteval.permutation_test(a, b, n_permutations=500, n_resamples=500)


@pytest.mark.parametrize("engine", ["numpy", "auto"])
def test_threshold_ci_takes_workers_and_they_never_change_the_result(engine):
    rng = np.random.default_rng(3)
    y_val, y_test = rng.integers(0, 2, 150), rng.integers(0, 2, 150)
    s_val, s_test = y_val + rng.normal(0, 1, 150), y_test + rng.normal(0, 1, 150)
    runs = [
        booteval.threshold_ci(
            y_val, s_val, y_test, s_test, rule="youden", metric="f1", n_resamples=400,
            seed=1, engine=engine, workers=w,
        )
        for w in (1, 2)
    ]  # fmt: skip
    assert (runs[0].low, runs[0].high) == (runs[1].low, runs[1].high)
    np.testing.assert_array_equal(runs[0].distribution, runs[1].distribution)
    with pytest.raises(booteval.InvalidInputError, match="`workers`"):
        booteval.threshold_ci(y_val, s_val, y_test, s_test, rule="youden", workers=0)


def test_a_table_leaderboard_with_a_counted_jackknife_survives_a_pickle_round_trip():
    import pickle

    pd = pytest.importorskip("pandas")
    from booteval.core.intervals import CountedJackknife

    table = pd.DataFrame({"label": _Y, "a": _PRED["a"], "b": _PRED["b"]})
    board = _quiet(
        booteval.leaderboard, table, system_cols=["a", "b"], label_col="label",
        metric="accuracy", method="bca", n_resamples=400, seed=2,
    )  # fmt: skip
    assert isinstance(board.jackknife, CountedJackknife)
    again = pickle.loads(pickle.dumps(board))
    assert again == board and again.jackknife == board.jackknife
    assert again.jackknife != CountedJackknife(board.jackknife.values + 1, board.jackknife.counts)
