"""The compiled engine (engine="numba"): exactness on its own draws, agreement in
distribution with the NumPy engine, reproducibility across batches and threads, fallbacks."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

import booteval
from booteval.core.design import make_design
from booteval.core.errors import InvalidInputError
from booteval.metrics import get_metric

numba = pytest.importorskip("numba")
K = pytest.importorskip("booteval.core.kernels")
from booteval.core.kernel_plan import plan  # noqa: E402

M64 = (1 << 64) - 1


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def _reference_draws(seed: int, b: int, n: int) -> list[int]:
    """SplitMix64-seeded xoshiro256++ with Lemire's bounded integers, in plain Python."""
    k0, k1 = (int(v) for v in K.stream_key(seed))
    x = k0 ^ _mix((k1 + b * 0x9E3779B97F4A7C15) & M64)
    s = []
    for _ in range(4):
        x = (x + 0x9E3779B97F4A7C15) & M64
        s.append(_mix(x))

    def rotl(v: int, k: int) -> int:
        return ((v << k) | (v >> (64 - k))) & M64

    def words():  # 32-bit words: high, then low half of each output
        while True:
            r = (rotl((s[0] + s[3]) & M64, 23) + s[0]) & M64
            t = (s[1] << 17) & M64
            s[2] ^= s[0]
            s[3] ^= s[1]
            s[1] ^= s[2]
            s[0] ^= s[3]
            s[2] ^= t
            s[3] = rotl(s[3], 45)
            yield r >> 32
            yield r & 0xFFFFFFFF

    reject = (2**32 - n) % n
    out: list[int] = []
    for w in words():
        m = w * n
        if (m & 0xFFFFFFFF) >= reject:
            out.append(m >> 32)
            if len(out) == n:
                return out
    raise AssertionError


@pytest.fixture(scope="module")
def scores() -> np.ndarray:
    return np.random.default_rng(11).lognormal(size=3000)


@pytest.fixture(scope="module")
def ranking() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(12)
    y = (rng.random(2000) < 0.3).astype(int)
    s = np.round(rng.normal(size=2000) + y, 1)  # rounded: many ties
    return y, s


def _bound(metric: str, *data: np.ndarray):
    m = get_metric(metric)
    arrays = m.validate(*data)
    ev = m.bind(arrays, make_design(arrays[0].shape[0]))
    return ev, plan(ev, ev.design)


# ----------------------------------------------------------------------------- the streams


@pytest.mark.parametrize(("seed", "b", "n"), [(0, 0, 10), (7, 12345, 1000), (2**70, 3, 3)])
def test_generator_matches_reference(seed: int, b: int, n: int) -> None:
    assert K.drawn_indices(seed, b, n).tolist() == _reference_draws(seed, b, n)


def test_draws_are_uniform() -> None:
    n = 7
    draws = np.concatenate([K.drawn_indices(3, b, n) for b in range(3000)])
    counts = np.bincount(draws, minlength=n)
    assert stats.chisquare(counts).pvalue > 1e-4


# ------------------------------------------------------------ exact on the kernel's own draws


def test_mean_replicates_equal_direct_sums(scores: np.ndarray) -> None:
    ev, run = _bound("mean", scores)
    values, _ = run(5, 0, 40, False)
    n = scores.size
    for b in (0, 1, 17, 39):
        idx = K.drawn_indices(5, b, n)
        direct = np.cumsum((scores - ev.shift)[idx])[-1] / n + ev.shift  # draw order
        assert values[b] == direct
        assert values[b] == pytest.approx(scores[idx].mean(), rel=1e-12)


def test_ratio_metric_replicates_equal_direct(scores: np.ndarray) -> None:
    y = scores
    p = scores * 0.9 + 0.1
    _, run = _bound("rmse", y, p)
    values, _ = run(1, 0, 10, False)
    for b in (0, 9):
        idx = K.drawn_indices(1, b, y.size)
        assert values[b] == pytest.approx(np.sqrt(np.mean((y[idx] - p[idx]) ** 2)), rel=1e-12)


@pytest.mark.parametrize("decimals", [1, 6])  # few tie groups / many
def test_auc_replicates_equal_direct(ranking: tuple[np.ndarray, np.ndarray], decimals: int) -> None:
    y, s = ranking
    s = np.round(s + np.random.default_rng(0).normal(size=s.size) * 0.01, decimals)
    ev, run = _bound("roc_auc", y, s)
    values, _ = run(9, 0, 30, False)
    n = y.size
    order = ev.groups.order
    for b in (0, 3, 29):
        rows = order[K.drawn_indices(9, b, n)]  # the kernel draws sorted positions
        w = np.bincount(rows, minlength=n).astype(float)
        assert values[b] == ev.replicates(w[None, :])[0]  # bit for bit
        sklearn = pytest.importorskip("sklearn.metrics")
        assert values[b] == pytest.approx(sklearn.roc_auc_score(y[rows], s[rows]), abs=1e-12)


def test_auc_undefined_when_a_class_is_absent() -> None:
    y = np.array([1] + [0] * 9)
    s = np.arange(10.0)
    ev, run = _bound("roc_auc", y, s)
    values, _ = run(0, 0, 400, False)
    pos_position = int(np.flatnonzero(ev.groups.order == 0)[0])
    drew_pos = np.array([(K.drawn_indices(0, b, 10) == pos_position).any() for b in range(400)])
    assert np.array_equal(np.isnan(values), ~drew_pos)
    assert np.isnan(values).any() and (~np.isnan(values)).any()


def test_studentized_standard_errors(scores: np.ndarray) -> None:
    ev, run = _bound("mean", scores)
    values, ses = run(2, 0, 5, True)
    n = scores.size
    for b in range(5):
        w = np.bincount(K.drawn_indices(2, b, n), minlength=n).astype(float)[None, :]
        assert ses[b] == pytest.approx(ev.standard_errors(w)[0], rel=1e-9)
        assert values[b] == pytest.approx(ev.replicates(w)[0], rel=1e-12)


@pytest.mark.parametrize("clustered", [False, True])
def test_auc_studentized_standard_errors_on_the_kernels(clustered: bool) -> None:
    """The compiled studentized ROC-AUC: each replicate's value is the percentile run's
    (same draws) and its standard error is DeLong's on that replicate's weights."""
    rng = np.random.default_rng(4)
    n = 500
    cl = np.arange(n) // 5
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.normal(size=n) + y, 1)
    m = get_metric("roc_auc")
    arrays = m.validate(y, s)
    ev = m.bind(arrays, make_design(n, clusters=cl) if clustered else make_design(n))
    run = plan(ev, ev.design)
    assert run.has_standard_error
    values, ses = run(5, 0, 40, True)
    plain, none = run(5, 0, 40, False)
    assert none is None and np.array_equal(values, plain)
    for b in (0, 17, 39):
        if clustered:  # the kernel draws clusters
            w = np.bincount(K.drawn_indices(5, b, 100), minlength=100).astype(float)
        else:  # the kernel draws sorted positions
            w = np.bincount(ev.groups.order[K.drawn_indices(5, b, n)], minlength=n).astype(float)
        assert values[b] == pytest.approx(ev.replicates(w[None, :])[0], abs=1e-12)
        assert ses[b] == pytest.approx(ev.standard_errors(w[None, :])[0], rel=1e-12)
    kw = {"metric": "roc_auc", "n_resamples": 300, "seed": 2, "method": "studentized"}
    kw.update(clusters=cl) if clustered else None
    r = booteval.ci(y, s, **kw)
    assert "numba engine" in r.design and not r.notes
    again = booteval.ci(y, s, batch=37, workers=1, **kw)
    assert np.array_equal(again.replicate_standard_errors, r.replicate_standard_errors)
    slow = booteval.ci(y, s, engine="numpy", **kw)  # another stream, the same formula
    ratio = np.mean(r.replicate_standard_errors) / np.mean(slow.replicate_standard_errors)
    assert abs(ratio - 1) < 0.03


# ------------------------------------------------------- same distribution as the NumPy engine


@pytest.mark.parametrize("which", ["mean", "roc_auc"])
def test_distribution_agrees_with_numpy_engine(
    which: str, scores: np.ndarray, ranking: tuple[np.ndarray, np.ndarray]
) -> None:
    data = (scores[:500],) if which == "mean" else ranking
    kw = {"metric": which, "method": "percentile", "n_resamples": 4000}
    a = booteval.ci(*data, seed=3, **kw).distribution
    b = booteval.ci(*data, seed=4, engine="numba", **kw).distribution
    assert stats.ks_2samp(a, b).pvalue > 1e-3
    se = a.std(ddof=1)
    assert abs(a.mean() - b.mean()) < 5 * se * np.sqrt(2 / a.size)
    assert b.std(ddof=1) / se == pytest.approx(1.0, abs=0.08)
    assert stats.skew(b) == pytest.approx(stats.skew(a), abs=0.2)


# ------------------------------------------------------------------------- reproducibility


@pytest.mark.parametrize("which", ["mean", "roc_auc"])
def test_same_seed_same_result_any_batch_or_threads(
    which: str, scores: np.ndarray, ranking: tuple[np.ndarray, np.ndarray]
) -> None:
    data = (scores,) if which == "mean" else ranking
    kw = {"metric": which, "n_resamples": 300, "seed": 8, "engine": "numba"}
    ref = booteval.ci(*data, workers=1, **kw)
    for extra in ({"workers": 2}, {"batch": 7}, {"batch": 1000, "workers": 2}, {}):
        r = booteval.ci(*data, **kw, **extra)
        assert np.array_equal(r.distribution, ref.distribution, equal_nan=True)
        assert (r.low, r.high) == (ref.low, ref.high)
    _, run = _bound(which, *data)
    full, _ = run(8, 0, 300, False)
    prev = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        part, _ = run(8, 100, 250, False)
    finally:
        numba.set_num_threads(prev)
    assert np.array_equal(part, full[100:250], equal_nan=True)


def test_estimate_and_jackknife_unchanged(scores: np.ndarray) -> None:
    a = booteval.ci(scores, seed=0, n_resamples=500, engine="numpy")
    b = booteval.ci(scores, seed=0, n_resamples=500, engine="numba")
    assert a.estimate == b.estimate
    assert np.array_equal(a.jackknife, b.jackknife)
    assert b.design == a.design + ", numba engine"
    assert "numba" not in a.design
    assert not np.array_equal(a.distribution, b.distribution)  # its own streams
    assert booteval.ci(scores, seed=0, n_resamples=500) == b  # the default runs the kernels


# ------------------------------------------------------------------------------ fallbacks


@pytest.mark.parametrize(
    ("data", "kwargs", "reason"),
    [
        (
            (np.arange(40.0) % 7,),
            {"metric": lambda x: float(np.median(x)), "strata": np.arange(40) % 2},
            "stratified designs for sum, ROC-AUC and rank metrics only",
        ),
        (
            (np.arange(40.0) % 7,),
            {"metric": lambda x: float(np.median(x)), "clusters": np.arange(40) // 4},
            "clustered designs for sum, ROC-AUC and rank metrics only",
        ),
        (
            (np.arange(40.0) % 9, np.arange(40.0) % 7),
            {"metric": "kendall", "method": "studentized", "n_inner": 5},
            "nested bootstrap",
        ),
        ((np.arange(40) % 2,), {}, "compressed"),
        ((np.arange(40) % 2, np.arange(40) % 3 == 0), {"metric": "accuracy"}, "compressed"),
        (
            (np.arange(40.0) % 7,),
            {"metric": lambda x: float(np.median(x))},
            "no kernel for this statistic",
        ),
        (
            (np.arange(40) % 2, np.arange(40.0) % 9),
            {"metric": "average_precision", "method": "studentized", "n_inner": 5},
            "nested bootstrap",
        ),
    ],
)
def test_falls_back_to_numpy_with_a_note(data: tuple, kwargs: dict, reason: str) -> None:
    kw = {"n_resamples": 200, "seed": 1, "method": "percentile", **kwargs}
    a = booteval.ci(*data, **kw)
    b = booteval.ci(*data, engine="numba", **kw)
    assert np.array_equal(a.distribution, b.distribution)
    assert b.design == a.design
    assert any("NumPy engine was used" in note and reason in note for note in b.notes)
    assert not any("numba" in note for note in a.notes)


def test_clustered_sums_run_on_the_kernels_and_agree_with_numpy() -> None:
    rng = np.random.default_rng(0)
    g = np.sort(rng.integers(0, 150, 3000))
    x = rng.normal(size=150)[g] + rng.normal(size=3000)
    kw = {"clusters": g, "method": "percentile", "seed": 2}
    fast = booteval.ci(x, n_resamples=20_000, **kw)
    assert fast.design.endswith("clusters), numba engine") and not fast.notes
    slow = booteval.ci(x, n_resamples=20_000, engine="numpy", **kw)
    # the same cluster bootstrap: the replicates' SD agrees within Monte Carlo error (~0.5 %)
    sd_fast, sd_slow = fast.distribution.std(), slow.distribution.std()
    assert abs(sd_fast / sd_slow - 1) < 0.03
    # a replicate draws clusters: its value is a ratio of drawn per-cluster sums
    sums = np.bincount(g, weights=x)
    sizes = np.bincount(g)
    idx = K.drawn_indices(2, 7, sizes.size)
    assert fast.distribution[7] == pytest.approx(sums[idx].sum() / sizes[idx].sum(), rel=1e-12)
    # reproducible for any batch and number of workers
    again = booteval.ci(x, n_resamples=20_000, batch=3_000, workers=1, **kw)
    assert np.array_equal(again.distribution, fast.distribution)
    # a paired comparison of clustered means shares each replicate's clusters
    c = booteval.compare(x, x + 0.1, n_resamples=2_000, **kw)
    assert "numba engine" in c.design
    assert np.allclose(c.distribution, 0.1)


def test_stratified_sums_draw_each_stratums_size_from_that_stratum() -> None:
    rng = np.random.default_rng(1)
    strata = rng.integers(0, 4, 2000)
    # a value constant within strata (up to 1e-9, so that the rows are not compressed
    # into a few cells): every stratified replicate has the original mean, to 1e-9
    level = strata * 1.5 + 1e-9 * rng.random(2000)
    r = booteval.ci(level, strata=strata, n_resamples=500, seed=3, method="percentile")
    assert "numba engine" in r.design
    assert np.allclose(r.distribution, level.mean(), rtol=0, atol=2e-9)
    iid = booteval.ci(level, n_resamples=500, seed=3, method="percentile")
    assert iid.distribution.std() > 0.01  # without strata the mean varies
    # and it agrees in distribution with the NumPy engine's stratified bootstrap
    x = rng.normal(size=2000) + strata
    kw = {"strata": strata, "n_resamples": 20_000, "seed": 4, "method": "percentile"}
    fast, slow = booteval.ci(x, **kw), booteval.ci(x, engine="numpy", **kw)
    assert abs(fast.distribution.std() / slow.distribution.std() - 1) < 0.03
    again = booteval.ci(x, batch=777, workers=1, **kw)
    assert np.array_equal(again.distribution, fast.distribution)


def test_paired_roc_auc_draws_rows_once_for_both_systems() -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(5)
    y = (rng.random(400) < 0.3).astype(int)
    a = rng.normal(size=400) + y
    b = np.round(rng.normal(size=400) + 1.3 * y, 1)  # ties
    c = booteval.compare(y, a, b, metric="roc_auc", n_resamples=300, seed=6, method="percentile")
    assert "numba engine" in c.design and not c.notes
    for rep in (0, 17, 299):  # each replicate: both systems on the same drawn rows
        idx = K.drawn_indices(6, rep, 400)
        assert c.distribution_a[rep] == pytest.approx(roc_auc_score(y[idx], a[idx]), abs=1e-12)
        assert c.distribution_b[rep] == pytest.approx(roc_auc_score(y[idx], b[idx]), abs=1e-12)
    again = booteval.compare(y, a, b, metric="roc_auc", n_resamples=300, seed=6,
                             method="percentile", batch=50, workers=1)  # fmt: skip
    assert np.array_equal(again.distribution, c.distribution)
    board = booteval.leaderboard({"a": a, "b": b}, y_true=y, metric="roc_auc",
                                 n_resamples=300, seed=6)  # fmt: skip
    assert "numba engine" in board.design


def test_clustered_and_stratified_roc_auc_draw_units_on_the_kernels() -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(8)
    n = 600
    cl = np.arange(n) // 6
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.normal(size=100)[cl] * 0.5 + rng.normal(size=n) + y
    kw = {"metric": "roc_auc", "n_resamples": 200, "seed": 9, "method": "percentile"}
    r = booteval.ci(y, s, clusters=cl, **kw)
    assert "numba engine" in r.design and not r.notes
    for rep in (0, 11, 199):  # a replicate: each row weighted by its cluster's draws
        w = np.bincount(K.drawn_indices(9, rep, 100), minlength=100)[cl]
        expected = roc_auc_score(y, s, sample_weight=w)
        assert r.distribution[rep] == pytest.approx(expected, abs=1e-12)
    again = booteval.ci(y, s, clusters=cl, batch=33, workers=1, **kw)
    assert np.array_equal(again.distribution, r.distribution)
    # strata: the class counts are fixed, so no replicate is undefined; and it agrees in
    # distribution with the NumPy engine's stratified bootstrap
    big = {**kw, "n_resamples": 8000}
    fast = booteval.ci(y, s, strata=y, **big)
    slow = booteval.ci(y, s, strata=y, engine="numpy", **big)
    assert "numba engine" in fast.design and fast.n_undefined == 0
    assert abs(fast.distribution.std() / slow.distribution.std() - 1) < 0.05


def test_error_without_numba(monkeypatch: pytest.MonkeyPatch, scores: np.ndarray) -> None:
    booteval.ci(scores, seed=0, n_resamples=50, engine="numpy")  # the modules, loaded
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba -> ImportError
    monkeypatch.delitem(sys.modules, "booteval.core.kernels")
    monkeypatch.delattr(booteval.core, "kernels", raising=False)
    with pytest.raises(InvalidInputError, match=r"engine.*numba.*Reinstall numba"):
        booteval.ci(scores, seed=0, n_resamples=50, engine="numba")
    # the NumPy engine needs no numba
    r = booteval.ci(scores, seed=0, n_resamples=50, method="percentile", engine="numpy")
    assert r.distribution.size == 50 and not r.notes


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_auto_uses_the_kernels_where_they_apply(scores: np.ndarray, method: str) -> None:
    kw = {"n_resamples": 300, "seed": 4, "method": method}
    auto = booteval.ci(scores, engine="auto", **kw)
    fast = booteval.ci(scores, engine="numba", **kw)
    assert np.array_equal(auto.distribution, fast.distribution)
    assert (auto.low, auto.high, auto.design) == (fast.low, fast.high, fast.design)
    assert "numba engine" in auto.design


def test_auto_falls_back_to_numpy_silently() -> None:
    # discrete rows are resampled as cells by the NumPy engine: no kernel, no note
    y, p = np.arange(60) % 2, np.arange(60) % 3 == 0
    kw = {"metric": "accuracy", "n_resamples": 200, "seed": 2}
    auto = booteval.ci(y, p, engine="auto", **kw)
    plain = booteval.ci(y, p, **kw)
    assert np.array_equal(auto.distribution, plain.distribution)
    assert auto.design == plain.design and auto.notes == plain.notes


def test_auto_without_numba(monkeypatch: pytest.MonkeyPatch, scores: np.ndarray) -> None:
    expected = booteval.ci(scores, seed=0, n_resamples=80, engine="numpy")
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba -> ImportError
    monkeypatch.delitem(sys.modules, "booteval.core.kernels")
    monkeypatch.delattr(booteval.core, "kernels", raising=False)
    # numba is a dependency: a broken install is an error that says how to go on, never
    # a silent switch to the NumPy engine's (other) numbers for the same seed
    for engine in ("auto", "numba"):
        with pytest.raises(InvalidInputError, match=r"numba cannot be imported.*engine=.numpy"):
            booteval.ci(scores, seed=0, n_resamples=80, engine=engine)
    r = booteval.ci(scores, seed=0, n_resamples=80, engine="numpy")
    assert np.array_equal(r.distribution, expected.distribution)
    assert r.design == expected.design


def test_rejects_unknown_engine(scores: np.ndarray) -> None:
    with pytest.raises(InvalidInputError, match="engine"):
        booteval.ci(scores, seed=0, engine="cuda")


def test_auc_passes_agree(ranking: tuple[np.ndarray, np.ndarray]) -> None:
    y, s = ranking
    ev, _ = _bound("roc_auc", y, s)
    from booteval.core import auc_kernels as A

    bounds = A.auc_bounds(ev)
    _, pos, ties = A._auc_layout(ev)
    assert len(ties) > 0  # the data have tie groups with both classes
    k0, k1 = K.stream_key(4)
    a, b = np.empty(50), np.empty(50)
    A._auc_kernel(bounds, k0, k1, np.int64(0), np.int64(3), a)
    A._auc_rows_kernel(pos, ties, k0, k1, np.int64(0), np.int64(5), b)
    assert np.array_equal(a, b, equal_nan=True)


@pytest.mark.long  # a fresh interpreter compiles the kernels
def test_kernels_are_cached_in_a_user_cache_directory_not_the_package(tmp_path):
    """A fresh process with NUMBA_CACHE_DIR unset writes its compiled kernels under
    XDG_CACHE_HOME/booteval/numba, and nothing into the package's __pycache__."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    package = Path(booteval.__file__).parent / "__pycache__"
    before = {p.name for p in package.glob("*.nb*")} if package.is_dir() else set()
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = (
        "import numpy as np, booteval\n"
        "booteval.ci(np.arange(50.0), engine='numba', seed=0, n_resamples=100)\n"
        "from booteval.core.kernels import cache_dir; print(cache_dir())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(tmp_path / "booteval" / "numba")
    assert any((tmp_path / "booteval" / "numba").rglob("*.nbi"))
    after = {p.name for p in package.glob("*.nb*")} if package.is_dir() else set()
    assert after == before


# ------------------------------------------------- several systems on shared resamples
def test_paired_systems_share_each_replicates_draws(scores: np.ndarray) -> None:
    b_scores = scores * 0.9 + np.random.default_rng(5).normal(0.0, 0.3, scores.size)
    kw = {"seed": 3, "n_resamples": 300, "engine": "numba", "method": "percentile"}
    r = booteval.compare(scores, b_scores, **kw)
    # each system's replicates are exactly ci's on the compiled stream: the same draws
    assert np.array_equal(r.distribution_a, booteval.ci(scores, **kw).distribution)
    assert np.array_equal(r.distribution_b, booteval.ci(b_scores, **kw).distribution)
    assert np.allclose(r.distribution, r.distribution_b - r.distribution_a, rtol=0, atol=1e-12)
    assert r.design.endswith("numba engine") and not r.notes
    board = booteval.leaderboard({"a": scores, "b": b_scores}, **kw)
    assert board.design.endswith("numba engine")
    assert np.array_equal(board.rank_distribution.shape, (300, 2))


def test_paired_kernel_is_independent_of_batch_and_workers(scores: np.ndarray) -> None:
    runs = [
        booteval.leaderboard(
            {"a": scores, "b": scores**0.5, "c": np.log1p(scores)},
            seed=8, n_resamples=700, engine="numba", method="percentile", **extra,
        )
        for extra in ({}, {"batch": 64, "workers": 1}, {"batch": 500, "workers": 2})
    ]  # fmt: skip
    for other in runs[1:]:
        assert np.array_equal(other.rank_distribution, runs[0].rank_distribution)
        assert [e.low for e in other.entries] == [e.low for e in runs[0].entries]


def test_paired_kernel_agrees_with_the_numpy_engine(scores: np.ndarray) -> None:
    other = scores * 0.8 + np.random.default_rng(6).normal(0.0, 0.5, scores.size)
    kw = {"seed": 9, "n_resamples": 3000, "method": "percentile"}
    fast = booteval.compare(scores, other, engine="numba", **kw)
    slow = booteval.compare(scores, other, **kw)
    sd_fast, sd_slow = np.std(fast.distribution), np.std(slow.distribution)
    # the SD of a bootstrap SD from B = 3000 replicates is about 1.3 %; 8 % is 6 of them
    assert abs(sd_fast / sd_slow - 1) < 0.08
    assert abs(fast.distribution.mean() - slow.distribution.mean()) < 0.2 * sd_slow


def test_paired_discrete_systems_fall_back_with_a_note() -> None:
    y = np.arange(200) % 2
    a, b = (np.arange(200) % 3 == 0).astype(int), (np.arange(200) % 5 == 0).astype(int)
    kw = {"metric": "accuracy", "seed": 1, "n_resamples": 200}
    r = booteval.compare(y, a, b, engine="numba", **kw)
    assert any("NumPy engine was used" in note for note in r.notes)
    assert np.array_equal(r.distribution, booteval.compare(y, a, b, **kw).distribution)


def test_the_command_line_takes_the_engine(tmp_path, capsys, scores: np.ndarray) -> None:
    from booteval.cli import main

    path = tmp_path / "scores.csv"
    rows = "\n".join(f"{float(x)!r},{float(x * 0.9 + 0.1)!r}" for x in scores[:400])
    path.write_text("a,b\n" + rows + "\n")
    common = ["--seed", "2", "-B", "500", "--method", "percentile", "--format", "json", "-q"]
    assert main(["compare", str(path), "--a", "a", "--b", "b", "--engine", "numba", *common]) == 0
    out = capsys.readouterr().out
    kw = {"seed": 2, "n_resamples": 500, "method": "percentile", "engine": "numba"}
    expected = booteval.compare(scores[:400], scores[:400] * 0.9 + 0.1, **kw)
    assert "numba engine" in out and f"{expected.low:.4f}"[:6] in out


def test_the_compiled_engine_reports_progress_in_chunks(scores: np.ndarray) -> None:
    seen: list[tuple[int, int]] = []
    kw = {"seed": 1, "n_resamples": 20_000, "engine": "numba", "method": "percentile"}
    r = booteval.ci(scores, progress=lambda done, total: seen.append((done, total)), **kw)
    done = [d for d, _ in seen]
    assert len(seen) >= 3 and done == sorted(done) and seen[-1] == (20_000, 20_000)
    # chunks do not change the replicates: each has its own stream
    assert np.array_equal(r.distribution, booteval.ci(scores, batch=3, **kw).distribution)


@pytest.mark.long  # fresh interpreters compile the kernels
def test_the_first_use_says_it_is_compiling_and_later_runs_do_not(tmp_path) -> None:
    code = (
        "import numpy as np, booteval\n"
        "booteval.ci(np.arange(50.0), seed=0, n_resamples=300, engine='numba',"
        " method='percentile')\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    assert "compiling booteval's numba kernel" in first.stderr
    assert str(tmp_path / "cache") in first.stderr
    assert "compiling" not in again.stderr
