"""Many intervals at once (a leaderboard at MTEB/HELM size) equal the one-at-a-time ones.

The batched paths are exact re-orderings of the same arithmetic, so every check is
equality to the last bit: row intervals against ``compute_interval``, a leaderboard's
blocked pairs against ``_pair_interval`` and ``compare``, the counts' matrix product
against the sums kernel, and the pairs' ``method="auto"`` against ``paired_case_of``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import booteval
from booteval.core import kernels
from booteval.core.intervals import CountedJackknife, compute_interval
from booteval.core.row_intervals import row_intervals
from booteval.core.row_kernels import (
    jackknife_sums,
    max_t,
    min_ranks,
    pair_deviations,
    pair_rows,
    row_counts,
    sort_windows,
    sums_match_numpy,
)
from booteval.inference import leaderboard_pairs
from booteval.inference.auto_method import choose, outcomes, paired_case_of
from booteval.inference.leaderboard_pairs import board_pair_methods, resampled_pairs
from booteval.inference.leaderboard_results import _pair_interval


def _rows(kind, m, b, rng):
    if kind == "lattice":  # differences of accuracies: many ties
        return (rng.binomial(300, 0.6, (m, b)) - rng.binomial(300, 0.58, (m, b))) / 300
    if kind == "heavy":
        return rng.standard_cauchy((m, b))
    return rng.normal(size=(m, b)) * rng.uniform(0.5, 2.0, (m, 1))


@pytest.mark.parametrize("kind", ["lattice", "normal", "heavy"])
@pytest.mark.parametrize("b", [999, 2049, 6000])
def test_sort_windows_places_the_order_statistics(kind, b):
    rng = np.random.default_rng(b)
    rows = _rows(kind, 20, b, rng)
    rows[3] = 0.25  # a constant row
    first = rng.integers(0, b, (20, 2))
    width = rng.integers(0, 60, (20, 2))
    windows = np.stack([first, np.minimum(first + width, b - 1)], axis=2)
    got = rows.copy()
    sort_windows(got, windows)
    srt = np.sort(rows, axis=1)
    for i in range(20):
        for f, last in windows[i]:
            np.testing.assert_array_equal(got[i, f : last + 1], srt[i, f : last + 1])
    np.testing.assert_array_equal(np.sort(got[3]), srt[3])


def test_row_counts_min_ranks_and_the_pair_kernels_equal_numpy():
    rng = np.random.default_rng(1)
    rows = np.round(rng.normal(size=(7, 500)), 1)
    points = np.stack([rows[:, 0], np.zeros(7)], axis=1)
    below, equal, low, high = row_counts(rows, points)
    for i in range(7):
        for t in range(2):
            assert below[i, t] == np.count_nonzero(rows[i] < points[i, t])
            assert equal[i, t] == np.count_nonzero(rows[i] == points[i, t])
    np.testing.assert_array_equal(low, rows.min(axis=1))
    np.testing.assert_array_equal(high, rows.max(axis=1))
    from scipy.stats import rankdata

    np.testing.assert_array_equal(min_ranks(rows), rankdata(rows, method="min", axis=-1))
    reps = rng.normal(size=(300, 4))
    ia, ib = np.array([0, 2, 3]), np.array([1, 0, 1])
    diffs = reps[:, ib] - reps[:, ia]
    se = pair_deviations(np.ascontiguousarray(reps.T), ia, ib)
    # NumPy's own sums (pairwise): each pair's SD is np.std of its differences
    np.testing.assert_array_equal(se, [np.std(diffs[:, j], ddof=1) for j in range(3)])
    hats = np.array([0.1, -0.2, 0.0])
    np.testing.assert_array_equal(
        max_t(reps, ia, ib, hats, se), (np.abs(diffs - hats) / se).max(axis=1)
    )


@pytest.mark.parametrize("method", ["bca", "percentile", "basic", "normal"])
def test_row_intervals_equal_compute_interval(method):
    rng = np.random.default_rng(2)
    checked = degenerate = 0
    for trial, kind in enumerate(["lattice", "normal", "heavy", "lattice"]):
        b = (999, 2500, 6000, 3001)[trial]
        rows = _rows(kind, 12, b, rng)
        rows[0] = rows[0, 0]  # every replicate equal
        est = rng.normal(size=12) * 0.05
        est[1] = rows[1].max() + 1.0  # outside the replicates
        jack = rng.normal(size=(12, 40)) ** 3
        jack[2, 5] = np.nan
        counts = rng.integers(1, 4, 40) if trial % 2 else None
        bounds = (-0.5, 0.5) if kind == "lattice" else None
        level = 0.95 if trial % 2 else 0.9
        for mcse in (True, False):
            got = row_intervals(
                method, est, rows.copy(), level, jackknife=jack.copy(), jackknife_counts=counts,
                mcse=mcse, bounds=bounds, ties="half" if trial < 2 else "below",
            )  # fmt: skip
            for i in range(12):
                jk = jack[i] if counts is None else CountedJackknife(jack[i], counts)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref = compute_interval(
                        method, est[i], rows[i], level, jackknife=jk, bounds=bounds,
                        ties="half" if trial < 2 else "below", warn=False,
                    )  # fmt: skip
                if got[i] is None:  # left to compute_interval: it has something to say
                    assert ref.notes
                    degenerate += 1
                    continue
                g = got[i]
                assert (g.low, g.high, g.notes, g.details) == (ref.low, ref.high, (), ref.details)
                if mcse:
                    assert (g.mcse_low, g.mcse_high) == (ref.mcse_low, ref.mcse_high)
                checked += 1
    assert checked > 40 and degenerate >= 4


def test_the_compiled_sums_are_numpys():
    rng = np.random.default_rng(7)
    assert sums_match_numpy()
    for b in (2, 7, 9, 128, 129, 1000, 8193, 10001):
        cols = rng.normal(size=(3, b)) * 10.0 ** rng.uniform(-4, 4, (3, b))
        ia, ib = np.array([0, 2]), np.array([1, 0])
        diffs, mean, sd, *_ = pair_rows(cols, ia, ib, np.zeros((2, 2)))
        ss, cube, finite = jackknife_sums(cols, ia, ib)
        for j in range(2):
            d = cols[ib[j]] - cols[ia[j]]
            np.testing.assert_array_equal(diffs[j], d)
            assert (mean[j], sd[j]) == (np.mean(d), np.std(d, ddof=1))
            c = np.ones(b)  # bca_levels' sums
            e = float(np.sum(c * d) / np.sum(c)) - d
            assert (ss[j], cube[j]) == (float(np.sum(c * e * e)), float(np.sum(c * e * e * e)))
            assert finite[j]


@pytest.mark.parametrize("jackknife", ["rows", "counted", "numpy sums"])
def test_blocked_pairs_equal_one_pair_at_a_time(jackknife, monkeypatch):
    if jackknife == "numpy sums":  # NumPy's reductions, where the compiled sums would differ
        monkeypatch.setattr(leaderboard_pairs, "sums_match_numpy", lambda: False)
    rng = np.random.default_rng(3)
    k, b = 7, 3000
    reps = rng.binomial(200, rng.uniform(0.4, 0.8, k), size=(b, k)) / 200
    reps[:, 1] = reps[:, 0]  # two systems with equal replicates
    est = reps.mean(axis=0).round(3)
    jack = (
        CountedJackknife(rng.normal(size=(5, k)), np.array([3, 1, 4, 1, 5]))
        if jackknife == "counted"
        else rng.normal(size=(200, k))
    )
    names = [f"s{j}" for j in range(k)]
    pairs = [(a, c) for a in range(k) for c in range(k) if a != c]
    for method in ("bca", "percentile", "basic", "normal"):
        for bounds in (None, (0.0, 1.0)):
            got = resampled_pairs(method, est, reps, jack, pairs, 0.95, bounds, "half", names, 2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for (a, c), g in zip(pairs, got, strict=True):
                    ref = _pair_interval(
                        method, est, reps, jack, a, c, 0.95, bounds, "half", (names[a], names[c])
                    )
                    assert g == ref


@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
def test_a_leaderboard_beyond_2048_replicates_equals_ci_and_compare(method):
    """Continuous scores are not compressed: each system equals ``ci`` and each pair
    ``compare`` to the last bit, with B past the rows that are sorted whole."""
    rng = np.random.default_rng(4)
    sc = {f"c{j}": rng.normal(0.05 * j, 1.0, 150) for j in range(4)}
    b = 2500
    board = booteval.leaderboard(sc, n_resamples=b, seed=3, method=method)
    for p in board.pairs:
        c = booteval.compare(sc[p.name_a], sc[p.name_b], n_resamples=b, seed=3, method=method)
        assert (p.difference, p.low, p.high, p.standard_error) == (
            c.difference, c.low, c.high, pytest.approx(c.standard_error, rel=1e-12)
        )  # fmt: skip
        if np.any(c.distribution <= 0) and np.any(c.distribution >= 0):
            assert p.p_value == c.p_value


@pytest.mark.parametrize("strata", [None, "strata"])
def test_the_counts_matrix_product_equals_the_sums_kernel(strata):
    rng = np.random.default_rng(5)
    n, k = 997, 24
    stats = rng.integers(0, 2, (n, k)).astype(float)
    stats[:, 3] = rng.integers(-5, 7, n)  # small integers of either sign
    stats[:, 5] = 1.0  # a count column
    stats[:, 7] = stats[:, 2]  # an equal column (x and x**2 of 0/1 outcomes)
    groups = np.repeat(np.arange(3), [300, 400, 297]) if strata else None
    assert kernels._exact_product(stats) is np.float32
    fast = kernels._kernel_sums(stats, groups)(11, 5, 1500)
    saved = kernels._PRODUCT_COLUMNS
    kernels._PRODUCT_COLUMNS = 10**9  # the kernel, draw by draw
    try:
        slow = kernels._kernel_sums(stats, groups)(11, 5, 1500)
    finally:
        kernels._PRODUCT_COLUMNS = saved
    np.testing.assert_array_equal(fast, slow)
    # statistics that are not integers keep the kernel: its order of summation
    assert kernels._exact_product(stats + 0.5) is None
    assert kernels._exact_product(stats[:, :4]) is None  # too few columns


def test_pair_methods_for_many_systems_equal_paired_case_of():
    """``method="auto"`` per pair with every pair's discordant rows and constant
    differences computed at once: the method ``paired_case_of`` gives pair by pair."""
    from booteval.core.design import make_design
    from booteval.core.paired import StackedEvaluator, validate_system
    from booteval.metrics import resolve_metric

    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 40)
    systems = {f"s{j}": (rng.random(40) < 0.4 + 0.05 * j).astype(int) for j in range(6)}
    systems["same"] = systems["s0"].copy()  # no discordant rows
    systems["flip"] = 1 - systems["s1"]  # every row discordant
    for metric, shared in ((None, ()), ("accuracy", (y,))):
        m = resolve_metric(metric, None, 1 + len(shared))
        arrays = {k: validate_system(m, shared, v, k) for k, v in systems.items()}
        if metric is None:  # scores that differ by a constant
            arrays["shift"] = validate_system(m, (), systems["s2"] * 0.5 + 0.25, "shift")
            arrays["half"] = validate_system(m, (), systems["s2"] * 0.5, "half")
        names = list(arrays)
        plan = make_design(40)
        stacked = StackedEvaluator([m.bind(arrays[k], plan) for k in names], plan)
        got = board_pair_methods(m, names, arrays, plan, stacked, "bca", True, True)
        grads = [getattr(p, "gradient", None) is not None for p in stacked.parts]
        for (ia, ib), method in got.items():
            lo, hi = min(ia, ib), max(ia, ib)  # the orientation the board asks first
            case = paired_case_of(
                m, arrays[names[lo]], arrays[names[hi]], plan, analytic_se=grads[ia] and grads[ib],
                known_outcomes=(outcomes(m, arrays[names[lo]]), outcomes(m, arrays[names[hi]])),
            )  # fmt: skip
            assert method == choose(case).method, (names[ia], names[ib])
        assert {"tango", "bca"} <= set(got.values())
