"""Delta-method standard errors of the sum metrics (precision, recall, F1, and paired
differences): gradients against finite differences, standard errors against the
infinitesimal jackknife computed through the metric's own weighted replicates."""

from __future__ import annotations

import numpy as np
import pytest

import booteval
from booteval.core.design import make_design
from booteval.core.paired import StackedEvaluator
from booteval.inference.comparison import _Difference
from booteval.metrics import get_metric
from booteval.metrics.linearize import confusion_gradient, linearized_se, ratio_gradient

RATIOS = {"f1": (2, 1, 1), "precision": (1, 1, 0), "recall": (1, 0, 1)}


def _labels(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.65, y, rng.integers(0, k, n))
    return y, p


@pytest.mark.parametrize("average", ["binary", "micro", "macro", "weighted"])
@pytest.mark.parametrize("name", sorted(RATIOS))
@pytest.mark.parametrize("zero_division", [0.0, 1.0, np.nan])
def test_gradient_matches_finite_differences(average, name, zero_division):
    rng = np.random.default_rng(3)
    k = 2 if average == "binary" else 4
    cm = rng.integers(0, 9, size=(5, k, k)).astype(float)
    cm[0, :, 1] = 0.0  # class 1 never predicted: an empty precision denominator
    kwargs = {"zero_division": zero_division}
    if average != "binary":
        kwargs["average"] = average
    m = get_metric(name, **kwargs)
    ctx = {"pos": 1} if average == "binary" else {}
    g = confusion_gradient(cm, *RATIOS[name], average, zero_division, pos=ctx.get("pos"))
    h = 1e-6
    for j in range(k * k):
        e = np.zeros(k * k)
        e[j] = h
        e = e.reshape(k, k)
        # one-sided where a count is 0: the metric is not defined at negative counts
        up, here = m._from_confusion(cm + e, ctx), m._from_confusion(cm, ctx)
        num = (up - here) / h
        defined = np.isfinite(here) & np.isfinite(g[:, j])
        # a count added to an empty denominator jumps the metric (no derivative there;
        # the empty class is held at its constant): only in replicate 0's column 1
        jump = np.abs(num) > 1e3
        assert not jump[1:].any() and (not jump[0] or j % k == 1)
        ok = defined & ~jump
        assert np.allclose(g[ok, j], num[ok], atol=2e-5), (j, g[:, j], num)
        # NaN exactly where the metric is undefined
        assert np.array_equal(np.isnan(g[:, j]), np.isnan(here))


def test_ratio_gradient():
    g = ratio_gradient(np.array([[3.0, 4.0], [1.0, 0.0]]))
    assert g[0].tolist() == [0.25, -3 / 16]
    assert np.isnan(g[1]).all()


def _ij_variance(values_at, w0: np.ndarray, strata: list[np.ndarray]) -> float:
    """Infinitesimal-jackknife variance: each unit's weight nudged in turn, through the
    metric's own replicate code (no gradient formula involved). ``w0``: the original
    weights (a cell of ``m`` equal rows has weight ``m``, each row the cell's influence)."""
    h = 1e-6
    base = values_at(w0)
    u = np.empty(w0.size)
    for i in range(w0.size):
        w = w0.copy()
        w[i] += h
        u[i] = (values_at(w) - base) / h
    return float(
        sum(np.sum(w0[s] * u[s] ** 2) - np.sum(w0[s] * u[s]) ** 2 / w0[s].sum() for s in strata)
    )


@pytest.mark.parametrize(
    "metric, kwargs",
    [("f1", {}), ("f1", {"average": "macro"}), ("precision", {"average": "weighted"}),
     ("recall", {"average": "micro"})],
)  # fmt: skip
@pytest.mark.parametrize("design", ["iid", "clustered", "stratified"])
def test_standard_error_is_the_infinitesimal_jackknife(metric, kwargs, design):
    k = 2 if not kwargs else 3
    y, p = _labels(120, k, seed=5)
    clusters = np.repeat(np.arange(30), 4) if design == "clustered" else None
    strata = y if design == "stratified" else None
    d = make_design(y.size, clusters=clusters, strata=strata)
    ev = get_metric(metric, **kwargs).bind((y, p), d)
    ev = ev.with_design(d)  # uncompressed: one weight per row or cluster
    assert ev.has_standard_error

    def values_at(w: np.ndarray) -> float:
        return float(ev.replicates(w[None, :])[0])

    want = np.sqrt(_ij_variance(values_at, d.original_weights()[0], list(d.strata_units)))
    got = ev.standard_errors(d.original_weights())[0]
    assert got == pytest.approx(want, rel=1e-4)
    # the compressed evaluator (cells of equal rows) gives the same standard error
    if design != "clustered":
        cells = get_metric(metric, **kwargs).bind((y, p), d)
        assert cells.design.n_units < d.n_units
        got_cells = cells.standard_errors(cells.design.original_weights())[0]
        assert got_cells == pytest.approx(got, rel=1e-12)


def test_standard_error_on_a_weighted_replicate():
    # a replicate's weights are counts: the same as the expanded rows' standard error
    y, p = _labels(60, 3, seed=8)
    d = make_design(y.size)
    ev = get_metric("f1", average="macro").bind((y, p), d).with_design(d)
    counts = np.random.default_rng(1).multinomial(60, np.full(60, 1 / 60))
    rows = np.repeat(np.arange(60), counts)
    d2 = make_design(rows.size)
    ev2 = get_metric("f1", average="macro").bind((y[rows], p[rows]), d2).with_design(d2)
    got = ev.standard_errors(counts[None, :].astype(float))[0]
    assert got == pytest.approx(ev2.standard_errors(d2.original_weights())[0], rel=1e-12)


@pytest.mark.parametrize("metric", ["accuracy", "f1"])
@pytest.mark.parametrize("clustered", [False, True])
def test_paired_difference_standard_error(metric, clustered):
    rng = np.random.default_rng(11)
    n = 90
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.7, y, 1 - y)
    b = np.where(rng.random(n) < 0.8, y, 1 - y)
    clusters = np.repeat(np.arange(30), 3) if clustered else None
    d = make_design(n, clusters=clusters)
    m = get_metric(metric)
    parts = [m.bind((y, s), d).with_design(d) for s in (a, b)]
    diff = _Difference(StackedEvaluator(parts, d))
    assert diff.has_standard_error

    def values_at(w: np.ndarray) -> float:
        return float(diff.replicates(w[None, :])[0])

    dd = diff.design  # the joint cells of equal rows, without clusters
    assert dd.compressed != clustered
    w0 = dd.original_weights()[0]
    want = np.sqrt(_ij_variance(values_at, w0, list(dd.strata_units)))
    assert diff.standard_errors(w0[None, :])[0] == pytest.approx(want, rel=1e-4)


def test_nan_gradient_gives_nan_standard_error():
    stats = np.eye(2)
    g = np.array([[1.0, np.nan], [1.0, -1.0]])
    se = linearized_se(np.ones((2, 2)), [(stats, g)], [np.arange(2)])
    assert np.isnan(se[0]) and se[1] == pytest.approx(np.sqrt(2.0))


@pytest.mark.parametrize("clusters", [None, np.repeat(np.arange(50), 6)])
def test_studentized_f1_needs_no_nested_bootstrap(clusters):
    y, p = _labels(300, 3, seed=2)
    kw = {"metric": "f1", "metric_kwargs": {"average": "macro"}, "method": "studentized",
          "n_resamples": 499, "seed": 4, "clusters": clusters}  # fmt: skip
    one = booteval.ci(y, p, n_inner=2, **kw)
    other = booteval.ci(y, p, n_inner=80, batch=37, **kw)
    assert (one.low, one.high) == (other.low, other.high)  # no inner draws, any batch
    # close to the bootstrap's own spread of the metric
    spread = np.std(booteval.ci(y, p, **(kw | {"method": "percentile"})).distribution)
    assert one.standard_error == pytest.approx(spread, rel=0.15)


def test_paired_studentized_uses_the_linearized_standard_error():
    rng = np.random.default_rng(4)
    n = 400
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.7, y, 1 - y)
    b = np.where(rng.random(n) < 0.75, y, 1 - y)
    kw = {"metric": "f1", "method": "studentized", "n_resamples": 499, "seed": 3,
          "clusters": np.repeat(np.arange(80), 5)}  # fmt: skip
    one = booteval.compare(y, a, b, n_inner=2, **kw)
    other = booteval.compare(y, a, b, n_inner=60, batch=50, **kw)
    assert (one.low, one.high, one.p_value) == (other.low, other.high, other.p_value)


@pytest.mark.parametrize("smooth_method", ["exp", "floor", "add-k", "none"])
@pytest.mark.parametrize("effective_order", [False, True])
def test_bleu_gradient_matches_finite_differences(smooth_method, effective_order):
    from booteval.metrics.text import bleu_from_stats, bleu_gradient

    rng = np.random.default_rng(7)
    kw = {"smooth_method": smooth_method, "effective_order": effective_order}
    checked = 0
    for _ in range(200):
        hyp = int(rng.integers(5, 40))
        ref = hyp + int(rng.integers(-5, 6))
        total = np.array([max(hyp - j, 0) for j in range(4)], dtype=float)
        correct = np.floor(total * rng.random(4) ** (np.arange(4) + 1))
        if rng.random() < 0.2:
            correct[3] = 0.0  # a smoothed order
        s = np.r_[hyp, ref, correct, total].astype(float)[None, :]
        g = bleu_gradient(s, **kw)
        for j in range(10):
            if s[0, j] == 0 or (j < 2 and hyp == ref):  # no derivative at 0 or at the kink
                continue
            e = np.zeros(10)
            e[j] = 1e-6
            num = (bleu_from_stats(s + e, **kw) - bleu_from_stats(s - e, **kw))[0] / 2e-6
            assert g[0, j] == pytest.approx(num, abs=1e-6)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("clustered", [False, True])
def test_bleu_standard_error_is_the_infinitesimal_jackknife(clustered):
    from booteval.metrics.text import _CountEvaluator, bleu_from_stats, bleu_gradient

    rng = np.random.default_rng(2)
    n = 60
    hyp = rng.integers(6, 25, n).astype(float)
    ref = hyp + rng.integers(-3, 4, n)
    total = np.column_stack([np.maximum(hyp - j, 0) for j in range(4)])
    correct = np.floor(total * rng.random((n, 4)) ** np.arange(1, 5))
    stats = np.column_stack([hyp, ref, correct, total])
    clusters = np.repeat(np.arange(20), 3) if clustered else None
    d = make_design(n, clusters=clusters)
    ev = _CountEvaluator(stats, d, bleu_from_stats, bleu_gradient)
    assert ev.has_standard_error

    def values_at(w: np.ndarray) -> float:
        return float(ev.replicates(w[None, :])[0])

    w0 = d.original_weights()[0]
    want = np.sqrt(_ij_variance(values_at, w0, list(d.strata_units)))
    assert ev.standard_errors(w0[None, :])[0] == pytest.approx(want, rel=1e-4)
    assert ev.with_design(d).has_standard_error


def test_studentized_bleu_needs_no_nested_bootstrap():
    pytest.importorskip("sacrebleu")
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(60)]
    refs = [" ".join(rng.choice(words, 12)) for _ in range(80)]
    hyps = [" ".join(t if rng.random() < 0.7 else "x" for t in r.split()) for r in refs]
    kw = {"metric": "bleu", "method": "studentized", "n_resamples": 299, "seed": 1}
    one = booteval.ci(refs, hyps, n_inner=2, **kw)
    other = booteval.ci(refs, hyps, n_inner=40, batch=64, **kw)
    assert (one.low, one.high) == (other.low, other.high)
    spread = np.std(booteval.ci(refs, hyps, **(kw | {"method": "percentile"})).distribution)
    assert one.standard_error == pytest.approx(spread, rel=0.2)
