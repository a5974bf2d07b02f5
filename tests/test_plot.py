"""Plots render to non-empty images of the expected size; reliability intervals are exact."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import matplotlib.image as mpimg

import booteval
from booteval.core.errors import InvalidInputError
from booteval.core.intervals import order_statistic_quantile
from booteval.plot import (
    plot_distribution,
    plot_forest,
    plot_pairwise,
    plot_reliability,
    reliability_bins,
)

RNG = np.random.default_rng(7)
N = 200
A = (RNG.uniform(size=N) < 0.7).astype(int)
B = (RNG.uniform(size=N) < 0.6).astype(int)
C = (RNG.uniform(size=N) < 0.5).astype(int)
KW = {"n_resamples": 400, "seed": 0, "method": "percentile"}


@pytest.fixture(scope="module")
def results():
    ra = booteval.ci(A, **KW)
    rb = booteval.ci(B, **KW)
    cmp_ = booteval.compare(A, B, names=("A", "B"), **KW)
    lb = booteval.leaderboard({"A": A, "B": B, "C": C}, **KW)
    return ra, rb, cmp_, lb


def _check_png(path, fig):
    assert path.is_file() and path.stat().st_size > 0
    img = mpimg.imread(path)
    w, h = fig.get_size_inches() * fig.dpi
    assert img.shape[:2] == (round(h), round(w))
    assert img[..., :3].std() > 0  # not blank


def test_distribution_ci_and_comparison(tmp_path, results):
    ra, _, cmp_, _ = results
    p = tmp_path / "d.png"
    fig = plot_distribution(ra, p, scale=100, figsize=(5, 3), dpi=80)
    _check_png(p, fig)
    title = fig.axes[0].get_title()
    assert "percentile" in title and "B = 400" in title and "seed 0" in title
    p2 = tmp_path / "c.png"
    fig = plot_distribution(cmp_, p2)
    _check_png(p2, fig)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("p =" in s for s in labels)


def test_forest_list_mapping_and_leaderboard(tmp_path, results):
    ra, rb, cmp_, lb = results
    fig = plot_forest([ra, rb], labels=["A", "B"], path=tmp_path / "f.png", scale=100)
    _check_png(tmp_path / "f.png", fig)
    fig = plot_forest({"A": ra, "B - A": cmp_})
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["A", "B - A"]
    fig = plot_forest(lb, path=tmp_path / "lb.png")
    _check_png(tmp_path / "lb.png", fig)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(lb.names)
    right = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert all("rank" in s for s in right)


def test_pairwise(tmp_path, results):
    lb = results[3]
    fig = plot_pairwise(lb, tmp_path / "p.png", scale=100)
    _check_png(tmp_path / "p.png", fig)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == 6  # K (K - 1) off-diagonal cells
    n_sep = sum(p.separated for p in lb.pairs)
    assert sum(s.endswith("*") for s in texts) == 2 * n_sep
    # row minus column: the first row holds the leader's (non-negative) differences
    first_row = [float(s.rstrip("*")) for s in texts[:2]]
    assert all(d >= 0 for d in first_row)


@pytest.mark.parametrize("ext", ["svg", "pdf"])
def test_vector_formats(tmp_path, results, ext):
    path = tmp_path / f"d.{ext}"
    plot_distribution(results[0], path)
    head = path.read_bytes()[:200]
    assert (b"<svg" in head or b"<?xml" in head) if ext == "svg" else head.startswith(b"%PDF")


def _direct_bins(y, p, n_bins, n_resamples, seed, level):
    """Replicate by replicate, bin by bin, with a Python loop."""
    bins = np.minimum((p * n_bins).astype(int), n_bins - 1)
    w_all = booteval.core.design.make_design(len(y)).unit_weights(seed, 0, n_resamples)
    lows, highs = [], []
    for b in range(n_bins):
        vals = []
        for w in w_all:
            tot = sum(w[i] for i in range(len(y)) if bins[i] == b)
            if tot > 0:
                vals.append(sum(w[i] * y[i] for i in range(len(y)) if bins[i] == b) / tot)
        if not vals or not (bins == b).any():
            lows.append(math.nan)
            highs.append(math.nan)
            continue
        v = np.sort(vals)
        lows.append(order_statistic_quantile(v, (1 - level) / 2))
        highs.append(order_statistic_quantile(v, 1 - (1 - level) / 2))
    return np.array(lows), np.array(highs)


def test_reliability_bins_equal_direct_loop():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=40)
    y = (rng.uniform(size=40) < p).astype(int)
    rb = reliability_bins(y, p, n_bins=4, n_resamples=150, seed=5, method="percentile")
    low, high = _direct_bins(y, p, 4, 150, 5, 0.95)
    np.testing.assert_allclose(rb.low, low, equal_nan=True)
    np.testing.assert_allclose(rb.high, high, equal_nan=True)
    assert rb.count.sum() == 40
    ece = booteval.ci(y, p, metric="ece", metric_kwargs={"n_bins": 4}, n_resamples=150,
                      seed=5, method="percentile")  # fmt: skip
    assert rb.ece.estimate == ece.estimate and rb.ece.low == ece.low


def test_reliability_plot(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(int)
    path = tmp_path / "r.png"
    fig = plot_reliability(y, p, n_bins=8, path=path, n_resamples=300, seed=1, method="percentile")
    _check_png(path, fig)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any(s.startswith("ECE (8 bins)") for s in legend)
    # a probability matrix: top-label confidence
    probs = np.column_stack([1 - p, p])
    fig = plot_reliability(y, probs, n_bins=5, n_resamples=100, seed=1, method="percentile")
    assert fig.axes[0].get_ylabel() == "accuracy of the top label"


def test_errors(tmp_path, results):
    ra, _, _, lb = results
    with pytest.raises(InvalidInputError, match="`path`"):
        plot_distribution(ra, tmp_path / "x.jpg")
    with pytest.raises(InvalidInputError, match="`result`"):
        plot_distribution(lb)
    with pytest.raises(InvalidInputError, match="`result`"):
        plot_distribution("not a result")
    with pytest.raises(InvalidInputError, match="`results`"):
        plot_forest([])
    with pytest.raises(InvalidInputError, match="`results`"):
        plot_forest([ra, 3.0])
    with pytest.raises(InvalidInputError, match="`labels`"):
        plot_forest([ra], labels=["a", "b"])
    with pytest.raises(InvalidInputError, match="`leaderboard_result`"):
        plot_pairwise(ra)
    with pytest.raises(InvalidInputError, match="`n_bins`"):
        plot_reliability([0, 1], [0.2, 0.8], n_bins=0)


def test_missing_matplotlib_message(monkeypatch, results):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'booteval\[plot\]'"):
        plot_distribution(results[0])


def test_import_booteval_does_not_import_plot():
    import subprocess

    code = (
        "import sys, booteval; print('matplotlib' in sys.modules, 'booteval.plot' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_result_plot_methods_delegate_to_the_plot_module(tmp_path):
    pytest.importorskip("matplotlib")
    import numpy as np

    import booteval

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    a = np.where(rng.random(200) < 0.7, y, 1 - y)
    b = np.where(rng.random(200) < 0.8, y, 1 - y)
    r = booteval.ci(y, a, metric="accuracy", n_resamples=500, seed=0)
    c = booteval.compare(y, a, b, metric="accuracy", n_resamples=500, seed=0)
    lb = booteval.leaderboard(
        {"a": a, "b": b, "c": y},
        y_true=y,
        metric="accuracy",
        n_resamples=500,
        seed=0,
        method="percentile",
    )
    for obj, name in ((r, "ci"), (c, "compare"), (lb, "leaderboard")):
        out = tmp_path / f"{name}.png"
        fig = obj.plot(str(out))
        assert out.stat().st_size > 0 and fig.axes
    assert lb.plot_pairwise().axes


@pytest.mark.long
def test_every_result_with_an_interval_plots_through_the_protocol(tmp_path):
    """No dispatch on concrete classes: seed pools, threshold, training and analytic
    results plot too (their distribution where one is stored, else the interval)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from test_result_protocol import EXAMPLES, result_of

    drawn = 0
    for name in sorted(EXAMPLES):
        r = result_of(name)
        if isinstance(
            r, booteval.results.LeaderboardResult | booteval.results.CoverageTable
        ) or not getattr(r, "has_interval", False):
            continue
        if hasattr(r, "entries") or isinstance(r, booteval.results.BootstrapErrorEstimates):
            continue
        fig = r.plot(tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").stat().st_size > 1000, name
        assert fig.axes, name
        drawn += 1
    assert drawn >= 20


@pytest.mark.filterwarnings("ignore")
def test_leaderboard_figure_draws_each_interval_and_rank_interval(tmp_path):
    from matplotlib.colors import to_hex

    from booteval.plot import draw, plot_leaderboard

    rng = np.random.default_rng(11)
    systems = {f"m{j}": (rng.random(300) < 0.55 + 0.02 * j).astype(int) for j in range(7)}
    lb = booteval.leaderboard(systems, n_resamples=600, seed=0)
    fig = plot_leaderboard(lb, tmp_path / "lb.png", scale=100)
    _check_png(tmp_path / "lb.png", fig)
    left, right = fig.axes
    k = len(lb.entries)
    assert [t.get_text() for t in left.get_yticklabels()] == list(lb.names)
    # one interval per system, best at the top, in the scaled units
    (lines,) = left.collections[:1]
    segments = lines.get_segments()
    assert len(segments) == k
    for e, seg, y in zip(lb.entries, segments, range(k - 1, -1, -1), strict=True):
        assert seg[:, 0].tolist() == pytest.approx([e.low * 100, e.high * 100])
        assert seg[:, 1].tolist() == [y, y]
    dots = left.collections[1].get_offsets()
    assert dots[:, 0].tolist() == pytest.approx([e.estimate * 100 for e in lb.entries])
    # one rank bar per system over its ranks rank_low .. rank_high, the expected rank a dot
    bars = right.patches
    assert len(bars) == k
    for e, bar in zip(lb.entries, bars, strict=True):
        assert bar.get_x() == pytest.approx(e.rank_low - 0.4)
        assert bar.get_x() + bar.get_width() == pytest.approx(e.rank_high + 0.4)
    expected = right.collections[0].get_offsets()
    assert expected[:, 0].tolist() == pytest.approx(list(lb.expected_rank.values()))
    assert right.get_xlabel() == "rank (95% interval)\ndot: expected rank"
    # the systems tied with the leader in colour, the others grey
    tied = set(lb.tied_with_leader())
    assert 1 < len(tied) < k
    colours = [to_hex(c) for c in left.collections[1].get_facecolors()]
    assert [c == "#1f4e79" for c in colours] == [e.name in tied for e in lb.entries]
    assert f"tied with the leader ({len(tied)} of {k}" in fig._suptitle.get_text()
    # the result's plot() draws it; the forest and the heat map stay available
    assert [a.get_xlabel() for a in lb.plot().axes][1] == right.get_xlabel()
    assert draw(lb, "leaderboard").axes[1].get_xlabel() == right.get_xlabel()
    assert lb.plot_forest().axes and lb.plot_pairwise().axes
    with pytest.raises(InvalidInputError, match="`leaderboard_result`"):
        plot_leaderboard(booteval.ci(A, **KW))


@pytest.mark.filterwarnings("ignore")
def test_leaderboard_figure_grows_with_the_systems():
    from booteval.plot import plot_leaderboard

    rng = np.random.default_rng(12)
    heights, sizes = [], []
    for k in (4, 60):
        systems = {f"s{j:02d}": (rng.random(60) < 0.3 + 0.01 * j).astype(int) for j in range(k)}
        lb = booteval.leaderboard(systems, n_resamples=200, seed=0, correction="none")
        fig = plot_leaderboard(lb)
        heights.append(fig.get_size_inches()[1])
        sizes.append(fig.axes[0].get_yticklabels()[0].get_fontsize())
        assert len(fig.axes[0].get_yticklabels()) == k
    assert heights[1] > 8 * heights[0] / 4 and sizes[1] < sizes[0]
