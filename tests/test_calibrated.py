"""The calibrated (double) bootstrap, ``booteval.ci(method="calibrated")``: the same interval
as an independent double bootstrap, invariances, reproducibility, a short coverage check,
``with_method`` to and from it, and bad inputs."""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest

import booteval
from booteval.core.calibrated import calibrated_interval, inner_coverage
from booteval.core.design import make_design
from booteval.core.errors import DegenerateIntervalWarning, InvalidInputError
from booteval.core.streams import generator


def _quantile(values: np.ndarray, p: float) -> float:
    """The ``ceil(p * B)``-th smallest (booteval's order-statistic rule), written again."""
    v = np.sort(values)
    return float(v[min(max(math.ceil(p * v.size - 1e-9), 1), v.size) - 1])


def _double_bootstrap(outer: np.ndarray, inner: list[np.ndarray], theta: float, level: float):
    """The calibrated percentile interval from outer values and each one's inner values."""
    u = np.array([(np.sum(v < theta) + 0.5 * np.sum(v == theta)) / v.size for v in inner])
    alpha = 1 - level
    q_lo, q_hi = _quantile(u, alpha / 2), _quantile(u, 1 - alpha / 2)
    return _quantile(outer, q_lo), _quantile(outer, q_hi), (q_lo, q_hi)


pytestmark = [
    pytest.mark.filterwarnings("ignore::booteval.DegenerateIntervalWarning"),
    pytest.mark.filterwarnings("ignore::booteval.SmallSampleWarning"),
]

X = np.array([0.3, 1.9, 0.7, 4.2, 1.1, 0.2, 2.5, 0.9, 1.4, 0.6, 3.3, 0.8])


# ------------------------------------------------------------------ the same interval
def test_numpy_engine_is_a_plain_double_bootstrap_fed_the_same_weights() -> None:
    """Outer weights from the design's stream, inner weights from the ``calibrated`` stream at
    key ``b``: a double bootstrap written here from those weights gives the same interval."""
    b, m, seed, level = 400, 100, 11, 0.9
    r = booteval.ci(X, method="calibrated", n_resamples=b, n_inner=m, seed=seed,
                    engine="numpy", confidence_level=level)  # fmt: skip
    d = make_design(X.size)
    w = d.unit_weights(seed, 0, b)
    outer = w @ X / X.size
    inner = [
        d.nested_unit_weights(w[i], m, generator("calibrated", seed, i)) @ X / X.size
        for i in range(b)
    ]
    low, high, levels = _double_bootstrap(outer, inner, X.mean(), level)
    assert np.allclose(np.sort(r.distribution), np.sort(outer), rtol=1e-12)
    assert math.isclose(r.low, low, rel_tol=1e-12) and math.isclose(r.high, high, rel_tol=1e-12)
    assert r.details["levels"] == pytest.approx(levels)
    assert r.method == "calibrated" and r.details["n_inner"] == m


def test_compiled_engine_agrees_with_an_independent_double_bootstrap() -> None:
    """Large B: the compiled kernel's interval and one from NumPy's own random numbers
    agree within their Monte Carlo error."""
    x = np.random.default_rng(7).normal(size=25)
    b, m = 3000, 200
    r = booteval.ci(x, method="calibrated", n_resamples=b, n_inner=m, seed=9)
    assert r.design.endswith("numba engine")
    rng = np.random.default_rng(123)
    idx = rng.integers(0, x.size, (b, x.size))
    outer = x[idx].mean(axis=1)
    inner = [x[i][rng.integers(0, x.size, (m, x.size))].mean(axis=1) for i in idx]
    low, high, (q_lo, q_hi) = _double_bootstrap(outer, inner, x.mean(), 0.95)
    assert 0 < q_lo < 0.1 and 0.9 < q_hi < 1  # interior levels: a fair comparison
    for ours, theirs, mc in ((r.low, low, r.mcse_low), (r.high, high, r.mcse_high)):
        assert 0 < mc < 0.05
        assert abs(ours - theirs) < 5 * math.sqrt(2) * mc


@pytest.mark.parametrize(
    "design",
    [{}, {"strata": np.arange(60) % 3}, {"clusters": np.arange(60) // 4},
     {"clusters": np.arange(60) // 4, "strata": np.arange(60) // 4 % 2}],
    ids=["iid", "stratified", "clustered", "stratified+clustered"],
)  # fmt: skip
@pytest.mark.parametrize("engine", ["auto", "numpy"])
def test_outer_replicates_are_those_of_every_other_method(design: dict, engine: str) -> None:
    x = np.random.default_rng(1).lognormal(size=60)
    kw = {"n_resamples": 300, "seed": 4, "engine": engine, **design}
    r = booteval.ci(x, method="calibrated", n_inner=80, **kw)
    p = booteval.ci(x, method="percentile", **kw)
    assert r.design == p.design
    assert np.array_equal(r.distribution, p.distribution)
    assert (r.with_method("percentile").low, r.with_method("percentile").high) == (p.low, p.high)
    u = r._recompute.inner_coverage
    assert u.shape == (300,) and np.all((0 <= u) & (u <= 1))
    assert r.low <= r.estimate <= r.high


def test_accuracy_on_cells_and_on_clusters() -> None:
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 200)
    pred = np.where(rng.random(200) < 0.85, y, 1 - y)
    for design in ({}, {"clusters": np.arange(200) // 5}):
        kw = {"metric": "accuracy", "n_resamples": 400, "seed": 3, **design}
        r = booteval.ci(y, pred, method="calibrated", n_inner=100, **kw)
        p = booteval.ci(y, pred, method="percentile", **kw)
        assert np.array_equal(r.distribution, p.distribution)
        assert 0.7 < r.low < r.estimate < r.high < 0.95


# ------------------------------------------------------------------ invariances
def test_shift_and_scale_move_the_interval_with_the_mean() -> None:
    x = np.random.default_rng(3).lognormal(size=40)
    kw = {"method": "calibrated", "n_resamples": 500, "n_inner": 100, "seed": 5}
    r = booteval.ci(x, **kw)
    s = booteval.ci(-3.0 + 2.5 * x, **kw)
    assert s.details["levels"] == r.details["levels"]
    assert math.isclose(s.low, -3.0 + 2.5 * r.low, rel_tol=1e-9)
    assert math.isclose(s.high, -3.0 + 2.5 * r.high, rel_tol=1e-9)


def test_a_monotone_transform_changes_nothing() -> None:
    x = np.random.default_rng(4).uniform(0.05, 0.95, 50)
    kw = {"method": "calibrated", "n_resamples": 400, "n_inner": 100, "seed": 6}
    r, t = booteval.ci(x, **kw), booteval.ci(x, transform="logit", **kw)
    assert (r.low, r.high) == (t.low, t.high)


# ------------------------------------------------------------------ reproducibility
@pytest.mark.parametrize(
    ("data", "kw"),
    [
        ((np.random.default_rng(5).lognormal(size=150),), {}),
        ((np.random.default_rng(5).lognormal(size=150),), {"engine": "numpy"}),
        ((np.random.default_rng(5).lognormal(size=150),), {"clusters": np.arange(150) // 3}),
        ((np.random.default_rng(5).lognormal(size=40),), {"metric": np.median}),
    ],
    ids=["compiled", "numpy", "clustered", "callable"],
)
def test_the_seed_fixes_the_result_whatever_the_batch_and_workers(data: tuple, kw: dict) -> None:
    base = {"method": "calibrated", "n_resamples": 300, "n_inner": 60, "seed": 8, **kw}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        runs = [
            booteval.ci(*data, **base),
            booteval.ci(*data, batch=7, workers=1, **base),
            booteval.ci(*data, batch=64, workers=2, **base),
        ]
    for r in runs[1:]:
        assert (r.low, r.high) == (runs[0].low, runs[0].high)
        assert np.array_equal(r.distribution, runs[0].distribution)
        assert np.array_equal(r._recompute.inner_coverage, runs[0]._recompute.inner_coverage)
    other = booteval.ci(*data, **{**base, "seed": 9})
    assert not np.array_equal(other._recompute.inner_coverage, runs[0]._recompute.inner_coverage)


def test_a_longer_run_keeps_the_first_replicates_inner_coverage() -> None:
    x = np.random.default_rng(6).normal(size=30)
    short = booteval.ci(x, method="calibrated", n_resamples=200, n_inner=80, seed=1)
    long = booteval.ci(x, method="calibrated", n_resamples=500, n_inner=80, seed=1)
    u_short, u_long = short._recompute.inner_coverage, long._recompute.inner_coverage
    assert np.array_equal(u_short, u_long[:200])


# ------------------------------------------------------------------ coverage
def test_calibration_widens_the_percentile_interval_where_it_undercovers() -> None:
    """The mean of a lognormal sample of 20: the percentile interval covers about 86 %
    (the atlas: 85.1 %); the calibrated one moves its levels outward, mostly on the long
    side, and covers more. A calibration of the wrong sign narrows it and covers less."""
    truth = math.exp(0.5)
    rng = np.random.default_rng(2024)
    covered = {"percentile": [], "calibrated": []}
    widths: dict[str, list[float]] = {"percentile": [], "calibrated": []}
    upper = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(300):
            x = rng.lognormal(size=20)
            r = booteval.ci(x, method="calibrated", n_resamples=500, n_inner=100, seed=i,
                            workers=1)  # fmt: skip
            for name, res in (("percentile", r.with_method("percentile")), ("calibrated", r)):
                covered[name].append(res.low <= truth <= res.high)
                widths[name].append(res.high - res.low)
            upper.append(r.details["levels"][1])
    assert np.mean(np.array(upper) > 0.975) > 0.8  # the long (upper) side moves out
    pct, cal = np.array(covered["percentile"]), np.array(covered["calibrated"])
    assert cal.mean() >= pct.mean() + 0.03
    assert np.sum(cal & ~pct) > 3 * np.sum(pct & ~cal)
    assert np.median(widths["calibrated"]) > 1.15 * np.median(widths["percentile"])


# ------------------------------------------------------------------ results
def test_with_method_to_and_from_calibrated() -> None:
    x = np.random.default_rng(7).lognormal(size=30)
    kw = {"n_resamples": 400, "n_inner": 100, "seed": 2}
    r = booteval.ci(x, method="calibrated", **kw)
    assert r.notes[0].startswith("calibrated percentile levels")
    back = r.with_method("bca").with_method("calibrated")
    assert (back.low, back.high, back.method) == (r.low, r.high, "calibrated")
    at90 = r.with_method("calibrated", confidence_level=0.9)
    direct = booteval.ci(x, method="calibrated", confidence_level=0.9, **kw)
    assert (at90.low, at90.high) == (direct.low, direct.high)
    assert at90.high - at90.low < r.high - r.low
    copy = pickle.loads(pickle.dumps(r))
    assert copy == r and (copy.with_method("calibrated").low == r.low)
    plain = booteval.ci(x, method="percentile", **kw)
    with pytest.raises(InvalidInputError, match=r"method='calibrated'"):
        plain.with_method("calibrated")


def test_degenerate_cases_are_noted() -> None:
    same = booteval.ci([2.0] * 10, method="calibrated", n_resamples=200, seed=0)
    assert same.low == same.high == 2.0
    with pytest.warns(DegenerateIntervalWarning, match="inner coverage is 0.5"):
        out = calibrated_interval(0.5, np.linspace(0, 1, 101), np.full(101, 0.5), 0.95)
    assert out.notes[0].startswith("the calibrated interval is undefined")
    assert (out.low, out.high) == (0.02, 0.98)  # the percentile interval
    with pytest.warns(DegenerateIntervalWarning, match="n_inner = 20"):
        r = booteval.ci(X, method="calibrated", n_resamples=300, n_inner=20, seed=1)
    assert any("too coarse" in note for note in r.notes)


def test_inner_coverage_counts_ties_half_and_skips_undefined_values() -> None:
    v = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, np.nan, 5.0, 6.0], [np.nan] * 4])
    u = inner_coverage(v, 2.0)
    assert u[:2].tolist() == [0.375, 0.5 / 3] and math.isnan(u[2])


# ------------------------------------------------------------------ bad inputs
@pytest.mark.parametrize("bad", [0, 1, 2.5, True, "200"])
def test_bad_n_inner_is_refused_naming_it(bad: object) -> None:
    with pytest.raises(InvalidInputError, match="`n_inner`"):
        booteval.ci(X, method="calibrated", n_inner=bad, n_resamples=100, seed=0)


def test_the_poisson_design_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="design='multinomial'"):
        booteval.ci(X, method="calibrated", design="poisson", n_resamples=100, seed=0)


def test_engine_numba_says_where_the_numpy_engine_ran() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        r = booteval.ci(X, metric=np.median, method="calibrated", engine="numba",
                        n_resamples=100, n_inner=40, seed=0)  # fmt: skip
    assert any("calibrated bootstrap ran on the NumPy engine" in n for n in r.notes)
    assert not r.design.endswith("numba engine")
