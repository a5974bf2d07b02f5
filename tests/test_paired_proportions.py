"""Tango's and Newcombe's paired score intervals, and compare's method="auto" for paired
proportions."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import chi2, multinomial

import booteval
from booteval.core.errors import InvalidInputError
from booteval.inference.auto_method import Case, choose
from booteval.inference.paired_proportions import _bounds as _newcombe_bounds
from booteval.inference.paired_proportions import (
    newcombe_interval,
    newcombe_p_value,
    paired_counts,
    tango_interval,
    tango_p_value,
    tango_statistic,
)


def rows(both: int, only_a: int, only_b: int, neither: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 outcomes of A and B with the given 2 x 2 table."""
    a = np.repeat([1, 1, 0, 0], [both, only_a, only_b, neither])
    b = np.repeat([1, 0, 1, 0], [both, only_a, only_b, neither])
    return a, b


# Newcombe (1998), Table II, method 10: (e, f, g, h) with the interval of (f - g) / n,
# the first system's proportion minus the second's. Here B is Newcombe's first system.
PUBLISHED = [
    ((36, 12, 2, 0), (0.0569, 0.3404)),
    ((18, 12, 2, 18), (0.0562, 0.3290)),
    ((53, 0, 0, 1), (-0.0729, 0.0729)),
    ((0, 30, 0, 0), (0.8395, 1.0)),
]


@pytest.mark.parametrize(("table", "expected"), PUBLISHED)
def test_reproduces_newcombes_published_intervals(table, expected):
    e, f, g, h = table
    a, b = rows(e, g, f, h)  # B alone right in f rows, A alone in g
    r = newcombe_interval(a, b)
    assert r.estimate == pytest.approx((f - g) / sum(table))
    assert (r.low, r.high) == pytest.approx(expected, abs=1e-4)
    assert r.method == "newcombe" and r.n == sum(table) and r.standard_error is None


def test_swapping_the_systems_negates_the_interval_and_row_order_does_not_matter():
    a, b = rows(20, 3, 9, 8)
    r, s = newcombe_interval(a, b), newcombe_interval(b, a)
    assert (s.low, s.high) == pytest.approx((-r.high, -r.low), abs=1e-12)
    perm = np.random.default_rng(0).permutation(a.size)
    p = newcombe_interval(a[perm], b[perm])
    assert (p.low, p.high) == (r.low, r.high)
    assert newcombe_interval(a.astype(bool), b.astype(bool)).low == r.low


def test_never_zero_width_and_inside_minus_one_one():
    for table in [(10, 0, 0, 0), (0, 0, 0, 7), (0, 5, 0, 0), (0, 0, 5, 0), (3, 0, 0, 3)]:
        r = newcombe_interval(*rows(*table))
        assert -1.0 <= r.low < r.estimate or r.estimate == -1.0
        assert r.high > r.low and r.high <= 1.0


def _exact_coverage(n: int, probs: np.ndarray) -> float:
    truth = probs[2] - probs[1]  # B alone right minus A alone right
    covered = 0.0
    for both in range(n + 1):
        for only_a in range(n + 1 - both):
            for only_b in range(n + 1 - both - only_a):
                cells = [both, only_a, only_b, n - both - only_a - only_b]
                r = newcombe_interval(*rows(*cells))
                if r.low <= truth <= r.high:
                    covered += multinomial.pmf(cells, n, probs)
    return covered


@pytest.mark.simulation
def test_exact_coverage_is_at_least_nominal_on_average_and_never_far_below():
    """Exact coverage (summing multinomial probabilities over every 2 x 2 table) at n = 20
    over a grid of accuracies, fix and break rates: Newcombe's interval is conservative
    on average and its worst point is about 93.8 %; the bootstrap's at such n is 70-90 %
    (docs/coverage.md)."""
    cover = []
    for p_a, fix, brk in itertools.product((0.5, 0.78, 0.95), (0.1, 0.4), (0.02, 0.1)):
        probs = np.array([p_a * (1 - brk), p_a * brk, (1 - p_a) * fix, (1 - p_a) * (1 - fix)])
        cover.append(_exact_coverage(20, probs))
    assert min(cover) > 0.935
    assert np.mean(cover) > 0.95
    # the atlas's cell: A right 78 %, B fixes 40 % of its errors and breaks 5 % of the rest
    atlas = np.array([0.78 * 0.95, 0.78 * 0.05, 0.22 * 0.4, 0.22 * 0.6])
    assert _exact_coverage(50, atlas) == pytest.approx(0.9674, abs=5e-4)


@pytest.mark.parametrize("table", [(36, 2, 12, 0), (18, 12, 2, 18), (30, 4, 9, 7)])
def test_the_p_value_inverts_the_interval(table):
    a, b = rows(*table)
    p = newcombe_p_value(paired_counts(a, b))
    at = newcombe_interval(a, b, confidence_level=1 - p)
    assert min(abs(at.low), abs(at.high)) < 1e-9  # an end sits on 0 at level 1 - p
    wider = newcombe_interval(a, b, confidence_level=min(1 - p + 1e-3, 1 - 1e-12))
    narrower = newcombe_interval(a, b, confidence_level=1 - p - 1e-3)
    assert wider.low < 0 < wider.high
    assert not narrower.low < 0 < narrower.high
    d = table[2] - table[1]
    greater = newcombe_p_value(paired_counts(a, b), "greater")
    less = newcombe_p_value(paired_counts(a, b), "less")
    assert greater + less == pytest.approx(1.0)
    assert min(greater, less) == pytest.approx(p / 2)
    assert (greater < less) == (d > 0)


def test_no_difference_gives_p_one_and_a_huge_difference_the_floor():
    assert newcombe_p_value((5, 3, 3, 5)) == 1.0
    assert newcombe_p_value((0, 0, 5000, 0)) == pytest.approx(2e-15)


# ------------------------------------------------------------------ Tango's score interval
def _fitted_by_search(delta: float, only_a: int, only_b: int, n: int) -> float:
    """The constrained maximum likelihood share of "only A right" rows, by a numerical
    search over the multinomial likelihood (independent of the closed-form root)."""
    rest = n - only_a - only_b

    def minus_loglik(q: float) -> float:
        terms = ((only_a, q), (only_b, q + delta), (rest, 1.0 - 2.0 * q - delta))
        return -sum(k * math.log(p) for k, p in terms if k)

    lo, hi = max(0.0, -delta) + 1e-15, (1.0 - delta) / 2.0 - 1e-15
    return minimize_scalar(minus_loglik, bounds=(lo, hi), method="bounded",
                           options={"xatol": 1e-14}).x  # fmt: skip


@pytest.mark.parametrize("table", [(36, 2, 12, 0), (18, 12, 2, 18), (1, 1, 7, 12), (5, 0, 3, 2)])
def test_tango_ends_are_where_the_score_test_reaches_z(table):
    """At each end the score statistic, refitted by a numerical likelihood search, is
    the normal quantile (1.96 at 95 %, 2.576 at 99 %)."""
    _, only_a, only_b, _ = table
    n = sum(table)
    for level in (0.95, 0.99):
        r = tango_interval(*rows(*table), confidence_level=level)
        z = {0.95: 1.959964, 0.99: 2.575829}[level]
        for end, sign in ((r.low, 1.0), (r.high, -1.0)):
            if abs(end) == 1.0:
                continue
            q = _fitted_by_search(end, only_a, only_b, n)
            stat = (only_b - only_a - n * end) / math.sqrt(n * (2 * q + end * (1 - end)))
            assert stat == pytest.approx(sign * z, abs=1e-5)
        assert r.low < r.estimate < r.high
    # a wider level gives a wider interval, and the estimate is (only_b - only_a) / n
    assert r.estimate == pytest.approx((only_b - only_a) / n)


def test_tango_statistic_at_zero_is_mcnemar_and_the_p_value_inverts_the_interval():
    for table in [(36, 2, 12, 0), (18, 12, 2, 18), (30, 4, 9, 7), (10, 6, 6, 3)]:
        _, b, c, _ = table
        assert tango_statistic(0.0, table) == pytest.approx((c - b) / math.sqrt(b + c))
        p = tango_p_value(table)
        assert p == pytest.approx(chi2.sf((c - b) ** 2 / (b + c), 1))  # McNemar, no correction
        if p < 1.0:
            at = tango_interval(*rows(*table), confidence_level=1 - p)
            assert min(abs(at.low), abs(at.high)) < 1e-7  # an end sits on 0 at level 1 - p
        greater, less = tango_p_value(table, "greater"), tango_p_value(table, "less")
        assert greater + less == pytest.approx(1.0) and (greater < less) == (c > b)
    assert tango_p_value((5, 0, 0, 5)) == 1.0
    with pytest.raises(InvalidInputError, match="alternative"):
        tango_p_value((1, 2, 3, 4), "bigger")


def test_tango_never_zero_width_swaps_and_stays_inside():
    for table in [(10, 0, 0, 0), (0, 0, 0, 7), (0, 5, 0, 0), (0, 0, 5, 0), (3, 0, 0, 3)]:
        r = tango_interval(*rows(*table))
        assert -1.0 <= r.low <= r.estimate <= r.high <= 1.0 and r.high > r.low
    a, b = rows(18, 12, 2, 18)
    r, swapped = tango_interval(a, b), tango_interval(b, a)
    assert (swapped.low, swapped.high) == pytest.approx((-r.high, -r.low))


def _tango_exact_coverage(n: int, probs: np.ndarray) -> float:
    """Exact coverage over the (only_a, only_b) counts, which are all Tango's interval sees."""
    truth = probs[2] - probs[1]
    log_a, log_b, log_rest = np.log([probs[1], probs[2], 1 - probs[1] - probs[2]])
    covered = 0.0
    for only_a in range(n + 1):
        for only_b in range(n + 1 - only_a):
            rest = n - only_a - only_b
            pr = math.exp(
                math.lgamma(n + 1) - math.lgamma(only_a + 1) - math.lgamma(only_b + 1)
                - math.lgamma(rest + 1) + only_a * log_a + only_b * log_b + rest * log_rest
            )  # fmt: skip
            if pr < 1e-13:
                continue
            low, high = _tango_bounds(n, only_a, only_b)
            covered += pr * (low <= truth <= high)
    return covered


@functools.cache
def _tango_bounds(n: int, only_a: int, only_b: int) -> tuple[float, float]:
    """Tango's interval of a table, which depends on ``n`` and the discordant counts only
    (kept: the coverage sums over many tables meet the same ones again)."""
    r = tango_interval(*rows(n - only_a - only_b, only_a, only_b, 0))
    return r.low, r.high


def test_tango_exact_coverage_at_the_atlas_cells():
    """The atlas's paired cells (A right 78 %; B fixes 40 % of its errors and breaks 5 %):
    Tango's exact coverage is 95.7 % at n = 50, where Newcombe's is 96.7 %."""
    atlas = np.array([0.78 * 0.95, 0.78 * 0.05, 0.22 * 0.4, 0.22 * 0.6])
    assert _tango_exact_coverage(50, atlas) == pytest.approx(0.9572, abs=5e-4)
    assert _tango_exact_coverage(20, atlas) == pytest.approx(0.9884, abs=5e-4)


def _newcombe_exact_coverage_fast(n: int, probs: np.ndarray) -> float:
    """:func:`_exact_coverage` skipping tables of probability below 1e-13 (to 1e-9)."""
    truth = probs[2] - probs[1]
    cells, log_coef = _tables(n)
    log_pr = log_coef + cells @ np.log(probs)
    covered = 0.0
    for k in np.flatnonzero(log_pr >= -30):
        low, high = _newcombe_bounds_kept(tuple(int(c) for c in cells[k]))
        covered += math.exp(log_pr[k]) * (low <= truth <= high)
    return covered


@functools.cache
def _tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every 2 x 2 table of ``n`` paired rows (both, only A, only B, neither) and the log of
    its multinomial coefficient."""
    grid = [c for c in itertools.product(range(n + 1), repeat=3) if sum(c) <= n]
    cells = np.array([(*c, n - sum(c)) for c in grid], dtype=float)
    log_coef = math.lgamma(n + 1) - np.sum([[math.lgamma(k + 1) for k in c] for c in cells], 1)
    return cells, log_coef


@functools.cache
def _newcombe_bounds_kept(cells: tuple[int, ...]) -> tuple[float, float]:
    return _newcombe_bounds(cells, 0.95)


@pytest.mark.simulation
@pytest.mark.slow
def test_tango_is_closer_to_nominal_than_newcombe_with_few_discordant_rows():
    """Exact coverage over 60 tables (n 20 to 80, fewer than 30 expected discordant
    rows): Tango's interval is closer to 95 % on average and more often within 1.5 points;
    Newcombe's is the more conservative. The rule of compare's method="auto" rests on it."""
    tango, newcombe = [], []
    for n, p_a, (fix, brk) in itertools.product(
        (20, 30, 50, 80), (0.6, 0.78, 0.9),
        ((0.4, 0.05), (0.2, 0.1), (0.1, 0.1), (0.5, 0.02), (0.3, 0.3)),
    ):  # fmt: skip
        probs = np.array([p_a * (1 - brk), p_a * brk, (1 - p_a) * fix, (1 - p_a) * (1 - fix)])
        if n * (probs[1] + probs[2]) >= 30:
            continue
        tango.append(_tango_exact_coverage(n, probs))
        newcombe.append(_newcombe_exact_coverage_fast(n, probs))
    t, w = 100 * np.array(tango), 100 * np.array(newcombe)
    assert t.size == 60
    assert np.mean(np.abs(t - 95)) == pytest.approx(1.63, abs=0.01)
    assert np.mean(np.abs(w - 95)) == pytest.approx(2.22, abs=0.01)
    assert np.sum(np.abs(t - 95) <= 1.5) == 37 and np.sum(np.abs(w - 95) <= 1.5) == 25
    assert t.min() == pytest.approx(93.64, abs=0.01) and w.min() == pytest.approx(94.74, abs=0.01)


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ([0, 1, 2], [0, 1, 1], r"`correct_a`: expected 0/1 outcomes.*2\.0 at index 2"),
        ([0, 1, 1], [0, 1], r"`correct_b`: expected the same length as correct_a \(3\)"),
        ([], [], r"`correct_a`: expected a non-empty 1-D array"),
        ([[0, 1]], [[0, 1]], r"`correct_a`: expected a non-empty 1-D array"),
        (["x"], [1], r"`correct_a`: expected a 1-D array of 0/1 outcomes"),
    ],
)
def test_bad_inputs_name_the_parameter(a, b, match):
    with pytest.raises(InvalidInputError, match=match):
        newcombe_interval(a, b)


def test_bad_level_and_alternative():
    with pytest.raises(InvalidInputError, match="confidence_level"):
        newcombe_interval([0, 1], [1, 1], confidence_level=1.5)
    with pytest.raises(InvalidInputError, match="alternative"):
        newcombe_p_value((1, 2, 3, 4), "bigger")


# ------------------------------------------------------------------ compare(method="auto")
def test_compare_auto_takes_tango_with_few_discordant_rows():
    a, b = rows(30, 2, 9, 9)  # 11 discordant rows
    r = booteval.compare(a, b, seed=0, n_resamples=2000)
    ref = tango_interval(a, b)
    assert r.method == "tango" and r.test == "tango"
    assert (r.low, r.high) == (ref.low, ref.high) and r.mcse_low == 0.0
    assert r.p_value == tango_p_value(paired_counts(a, b))
    assert r.excludes_zero == (r.p_value < 0.05)
    assert r.notes[0].startswith("method='auto' chose 'tango' for a paired difference of")
    assert "11 discordant" in r.notes[0] and r.details["auto"]["method"] == "tango"
    # each system's own interval is booteval.ci's (method='auto': Jeffreys for a proportion)
    own = [booteval.ci(x, seed=0, n_resamples=2000) for x in (a, b)]
    assert r.interval_a == (own[0].low, own[0].high) and own[0].method == "jeffreys"
    assert r.interval_b == (own[1].low, own[1].high)
    one = booteval.compare(a, b, seed=0, n_resamples=2000, alternative="greater")
    assert one.p_value == pytest.approx(r.p_value / 2)


def test_compare_auto_with_labels_and_predictions_counts_correct_rows():
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0] * 4)
    pa = np.where(np.arange(40) % 7 == 0, 1 - y, y)
    pb = np.where(np.arange(40) % 13 == 0, 1 - y, y)
    r = booteval.compare(y, pa, pb, metric="accuracy", seed=0, n_resamples=500)
    ref = tango_interval(pa == y, pb == y)
    assert r.method == "tango" and (r.low, r.high) == (ref.low, ref.high)


def test_a_collapsed_bootstrap_gives_no_warning_under_tango():
    a = b = np.r_[np.ones(15), np.zeros(5)]  # no discordant row: every replicate is 0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = booteval.compare(a, b, seed=0, n_resamples=500)
    assert r.method == "tango" and r.low < 0 < r.high and r.p_value == 1.0


@pytest.mark.filterwarnings("ignore:.*zero standard error")  # 8 clusters: a few such replicates
def test_compare_auto_elsewhere():
    rng = np.random.default_rng(3)
    a = (rng.random(400) < 0.7).astype(float)
    b = np.where(rng.random(400) < 0.2, 1 - a, a)  # about 80 discordant rows
    r = booteval.compare(a, b, seed=0, n_resamples=1000)
    assert r.method == "bca" and r.test == "bootstrap" and "discordant" in r.notes[0]
    clusters = np.repeat(np.arange(40), 10)
    c40 = booteval.compare(a, b, seed=0, n_resamples=1000, clusters=clusters)
    assert c40.method == "cr2" and c40.test == "cr2"
    y = np.repeat([0, 1], 200)
    f40 = booteval.compare(
        y, np.where(a > 0, y, 1 - y), np.where(b > 0, y, 1 - y), metric="f1", seed=0,
        n_resamples=300, clusters=clusters,
    )  # fmt: skip
    assert f40.method == "studentized" and f40.test == "bootstrap"
    # an accuracy difference of scores and labels on 8 clusters: CR2 on the differences
    fewer = booteval.compare(
        rng.normal(size=400), rng.normal(size=400), seed=0, n_resamples=500,
        clusters=clusters // 5,
    )  # fmt: skip
    assert fewer.method == "cr2" and "a paired difference of means" in fewer.notes[0]
    f1 = booteval.compare(
        (a > 0).astype(int), a.astype(int), b.astype(int), metric="f1", seed=0,
        n_resamples=300, clusters=clusters // 5,
    )  # fmt: skip
    assert f1.method == "studentized-symmetric"  # other metrics: the bootstrap-t
    s = booteval.compare(rng.normal(size=50), rng.normal(size=50), seed=0, n_resamples=500)
    assert s.method == "bca" and "of means on independent rows" in s.notes[0]
    # an explicit method is kept, with no note of the choice
    e = booteval.compare(a[:40], b[:40], seed=0, n_resamples=500, method="percentile")
    assert e.method == "percentile" and "auto" not in e.details
    assert not any("method='auto'" in note for note in e.notes)


def test_the_rule_for_differences():
    few = Case("proportion-difference", clustered=False, n=200, discordant=29)
    many = Case("proportion-difference", clustered=False, n=200, discordant=30)
    assert choose(few).method == "tango" and choose(many).method == "bca"
    # a proportion's rows for one system never apply to a difference
    clustered = Case("proportion-difference", clustered=True, n=40, n_clusters=8, discordant=3)
    assert choose(clustered).method == "cr2"
    many = Case("proportion-difference", clustered=True, n=400, n_clusters=30, discordant=3)
    assert choose(many).method == "cr2"
    assert choose(Case("difference", clustered=True, n=400, n_clusters=30)).method == (
        "studentized"
    )
    other = Case("difference", clustered=True, n=400, n_clusters=8)
    assert choose(other).method == "studentized-symmetric"
    means = Case("mean-difference", clustered=True, n=400, n_clusters=8)
    assert choose(means).method == "cr2"
    assert choose(Case("mean-difference", clustered=False, n=400)).method == "bca"


@pytest.mark.parametrize("shift", [0.0, 0.1, 0.25])
def test_compare_auto_with_few_clusters_is_cr2_on_the_differences(shift):
    rng = np.random.default_rng(7)
    clusters = np.repeat(np.arange(8), 50)
    a = (rng.random(400) < 0.6).astype(int)
    b = np.where(rng.random(400) < shift, 1, a)
    r = booteval.compare(a, b, clusters=clusters, seed=0, n_resamples=500)
    if shift == 0.0:  # no discordant row: Newcombe's interval, not CR2's zero width
        assert r.method == "newcombe" and r.low < 0 < r.high and r.p_value == 1.0
        return
    # formed on atanh's scale: a difference of proportions stays in [-1, 1]
    ref = booteval.closed_forms.cluster_robust_interval(
        b - a, clusters, correction="CR2", link="atanh"
    )
    assert r.method == "cr2" and r.test == "cr2" and (r.low, r.high) == (ref.low, ref.high)
    assert r.excludes_zero == (r.p_value < 0.05)
    at = booteval.closed_forms.cluster_robust_interval(
        b - a, clusters, confidence_level=1 - r.p_value, link="atanh"
    )
    assert at.low == pytest.approx(0.0, abs=1e-10)
    greater = booteval.compare(
        a, b, clusters=clusters, seed=0, n_resamples=500, alternative="greater"
    )  # fmt: skip
    assert greater.p_value == pytest.approx(r.p_value / 2)
