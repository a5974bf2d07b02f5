"""Counter-based Poisson(1) weights (core.philox) and ci(design="poisson")."""

from __future__ import annotations

import hashlib
from decimal import ROUND_FLOOR, Decimal, getcontext

import numpy as np
import pytest

import booteval
from booteval.core.design import make_design
from booteval.core.philox import (
    POISSON1_THRESHOLDS,
    PoissonSource,
    philox4x32_10,
    poisson_weights,
    unit_key,
    unit_keys,
)

# Random123, tests/kat_vectors, the three "philox4x32 10" lines: counter[4] key[2] -> out[4]
KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    (
        [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344],
        [0xA4093822, 0x299F31D0],
        [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1],
    ),
]


@pytest.mark.parametrize(("counter", "key", "expected"), KAT)
def test_philox_reproduces_the_published_known_answers(counter, key, expected):
    assert philox4x32_10(np.array(counter), np.array(key)).tolist() == expected


def test_philox_is_vectorized_over_leading_axes():
    counters = np.array([c for c, _, _ in KAT])
    keys = np.array([k for _, k, _ in KAT])
    assert philox4x32_10(counters, keys).tolist() == [e for _, _, e in KAT]


def test_the_threshold_table_is_the_exact_poisson_cdf_rounded_down():
    getcontext().prec = 60
    e_inv, cdf, factorial, expected = Decimal(1).exp() ** -1, Decimal(0), Decimal(1), []
    for k in range(POISSON1_THRESHOLDS.size):
        factorial *= max(k, 1)
        cdf += e_inv / factorial
        expected.append(int((cdf * (1 << 32)).to_integral_value(rounding=ROUND_FLOOR)))
    assert POISSON1_THRESHOLDS.tolist() == expected


def test_weights_follow_poisson_one():
    w = poisson_weights(11, np.arange(4000, dtype=np.uint64), 0, 500).astype(int).ravel()
    pmf = np.array([np.exp(-1) / np.prod(np.arange(1, k + 1)) for k in range(6)])
    freq = np.bincount(w, minlength=6)[:6] / w.size
    se = np.sqrt(pmf * (1 - pmf) / w.size)
    assert np.all(np.abs(freq - pmf) < 5 * se)
    assert abs(w.mean() - 1) < 5 / np.sqrt(w.size) and abs(w.var() - 1) < 0.01


def test_a_weight_depends_only_on_seed_key_and_replicate():
    keys = np.random.default_rng(0).integers(0, 2**63, 50).astype(np.uint64)
    full = poisson_weights(3, keys, 0, 37)
    order = np.random.default_rng(1).permutation(50)
    # any subset of the units, in any order, any range of replicates: the same numbers
    assert np.array_equal(poisson_weights(3, keys[order[:20]], 5, 30), full[5:30, order[:20]])
    parts = [poisson_weights(3, keys, lo, min(lo + 6, 37)) for lo in range(0, 37, 6)]
    assert np.array_equal(np.vstack(parts), full)
    assert not np.array_equal(poisson_weights(4, keys, 0, 37), full)
    # every bit of the seed counts (fresh seeds are 128-bit)
    assert not np.array_equal(poisson_weights(3 + 2**64, keys, 0, 37), full)


def test_unit_keys_are_fixed_hashes_of_the_label():
    # pinned: a change here would change every clustered Poisson result
    assert unit_key("user-17") == 1885509964236496897
    # integers: Philox4x32-10 of (value low, value high, tag, "keys") under ("boot", "eval")
    words = philox4x32_10(np.array([42, 0, 1, 0x6B657973]), np.array([0x626F6F74, 0x6576616C]))
    assert unit_key(42) == unit_key(np.int16(42)) == int(words[0]) | int(words[1]) << 32
    digest = hashlib.blake2b(b"s:user-17", digest_size=8).digest()
    assert unit_key("user-17") == int.from_bytes(digest, "little")
    assert unit_key("42") != unit_key(42) == unit_key(42.0) != unit_key(42.5)
    assert unit_keys(["a", "b", "a"]).tolist()[0] == unit_keys(["a"]).tolist()[0]
    with pytest.raises(booteval.InvalidInputError, match="clusters"):
        unit_key((1, 2))


def test_a_column_of_labels_gets_each_labels_key_at_once():
    ids = np.random.default_rng(0).integers(-(2**62), 2**62, 20_000)
    keys = unit_keys(ids)
    assert np.unique(keys).size == ids.size  # a bijection on integers: no collisions
    assert keys[:50].tolist() == [unit_key(int(v)) for v in ids[:50]]
    assert np.array_equal(unit_keys(np.arange(9.0)), unit_keys(np.arange(9)))
    big = np.array([2**63 + 5, 2**64 - 1], dtype=np.uint64)
    assert unit_keys(big).tolist() == [unit_key(2**63 + 5), unit_key(2**64 - 1)]
    assert unit_key(-1) != unit_key(2**64 - 1) and unit_key(2**64) != unit_key(0)
    days = np.array(["2024-01-02", "1960-05-01"], dtype="datetime64[D]")
    assert unit_keys(days).tolist() == [unit_key(d) for d in days]
    assert unit_key(days[0]) != unit_key(int(days[0].astype("datetime64[ns]").astype(np.int64)))
    mixed = np.array([7, "7", 7.5, True, b"7", -7], dtype=object)
    assert unit_keys(mixed).tolist() == [unit_key(v) for v in mixed]
    assert len(set(unit_keys(mixed).tolist())) == 6


def test_a_compressed_design_gets_the_sum_of_its_rows_weights():
    keys = np.array([0, 1, 1, 0, 1, 2])
    cells = make_design(6).compress(keys)
    source = PoissonSource(cells)
    rows = poisson_weights(9, np.arange(6, dtype=np.uint64), 0, 40)
    expected = np.stack([rows[:, cells.unit_of_row == u].sum(axis=1) for u in range(3)], 1)
    assert np.array_equal(source.unit_weights(9, 0, 40), expected)


# ------------------------------------------------------------- ci(design="poisson")
X = np.random.default_rng(0).lognormal(size=300)


def test_poisson_ci_is_the_weighted_statistic_of_the_counter_based_weights():
    r = booteval.ci(X, seed=5, n_resamples=400, design="poisson", method="percentile")
    w = poisson_weights(5, np.arange(300, dtype=np.uint64), 0, 400)
    assert np.allclose(r.distribution, (w @ X) / w.sum(axis=1), rtol=1e-13, atol=0)
    assert "Poisson bootstrap" in r.design
    other = booteval.ci(
        X, seed=5, n_resamples=400, design="poisson", method="percentile", batch=7, workers=2
    )
    assert np.array_equal(other.distribution, r.distribution)


def test_poisson_accuracy_equals_the_row_level_bootstrap_on_compressed_cells():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 500)
    p = np.where(rng.random(500) < 0.8, y, 1 - y)
    r = booteval.ci(y, p, metric="accuracy", seed=2, n_resamples=300, design="poisson")
    w = poisson_weights(2, np.arange(500, dtype=np.uint64), 0, 300)
    assert np.allclose(r.distribution, (w @ (y == p)) / w.sum(axis=1), rtol=1e-13, atol=0)


def test_poisson_clusters_keep_their_weight_wherever_their_rows_are():
    rng = np.random.default_rng(2)
    clusters = rng.integers(0, 40, 300).astype(str)
    kw = {"seed": 5, "n_resamples": 300, "design": "poisson", "method": "percentile"}
    a = booteval.ci(X, clusters=clusters, **kw)
    order = rng.permutation(300)
    b = booteval.ci(X[order], clusters=clusters[order], **kw)
    assert np.allclose(a.distribution, b.distribution, rtol=1e-12, atol=0)
    assert a.n_clusters == 40


def test_poisson_and_multinomial_agree_within_monte_carlo_error():
    kw = {"seed": 3, "n_resamples": 3000, "method": "percentile"}
    poisson = booteval.ci(X, design="poisson", **kw)
    multinomial = booteval.ci(X, **kw)
    # the SD of a bootstrap SD from 3000 replicates is about 1.3 %: 8 % is 6 of them
    assert abs(np.std(poisson.distribution) / np.std(multinomial.distribution) - 1) < 0.08


def test_poisson_design_refuses_what_it_cannot_do():
    with pytest.raises(booteval.InvalidInputError, match=r"`design`.*'poisson'"):
        booteval.ci(X, seed=0, n_resamples=100, design="poison")
    with pytest.raises(booteval.InvalidInputError, match=r"`method`.*design='poisson'"):
        booteval.ci(X, seed=0, n_resamples=100, design="poisson", method="studentized")


def test_poisson_compare_and_leaderboard_share_ci_s_weights():
    rng = np.random.default_rng(4)
    a = rng.normal(size=400)
    b = a + rng.normal(0.05, 0.5, 400)
    kw = {"seed": 4, "n_resamples": 300, "design": "poisson", "method": "percentile"}
    pair = booteval.compare(a, b, **kw)
    # each system's replicates are ci's: the same Poisson weights for the same rows
    assert np.allclose(pair.distribution_a, booteval.ci(a, **kw).distribution, rtol=1e-13)
    assert np.allclose(pair.distribution_b, booteval.ci(b, **kw).distribution, rtol=1e-13)
    assert pair.design == "paired iid Poisson bootstrap (400 rows)"
    board = booteval.leaderboard({"a": a, "b": b}, **kw)
    assert np.allclose(
        board.distribution, np.column_stack([pair.distribution_a, pair.distribution_b]), rtol=1e-13
    )
    with pytest.raises(booteval.InvalidInputError, match="design='poisson'"):
        booteval.compare(a, b, seed=0, n_resamples=50, design="poisson", method="studentized")


def test_poisson_design_refuses_strata():
    with pytest.raises(booteval.InvalidInputError, match=r"`strata`.*design='poisson'"):
        booteval.ci(X, strata=np.arange(300) % 2, seed=0, n_resamples=100, design="poisson")


@pytest.mark.parametrize("metric", ["mean", "mae", "r2", "pearson"])
def test_poisson_replicates_do_not_depend_on_the_batch(metric):
    rng = np.random.default_rng(6)
    y = rng.normal(size=300)
    data = (y,) if metric == "mean" else (y, y + rng.normal(0.0, 0.5, 300))
    kw = {"metric": metric, "seed": 1, "n_resamples": 60, "design": "poisson"}
    base = booteval.ci(*data, method="percentile", **kw)
    for batch in (1, 3, 4, 11):
        other = booteval.ci(*data, method="percentile", batch=batch, **kw)
        assert np.array_equal(other.distribution, base.distribution), batch


def test_weights_are_c_ordered_for_any_range():
    w = poisson_weights(1, np.arange(30, dtype=np.uint64), 5, 7)
    assert w.flags["C_CONTIGUOUS"]
    assert PoissonSource(make_design(30)).block_size % 4 == 0


def test_cluster_keys_do_not_depend_on_how_an_id_column_was_read():
    import datetime

    assert unit_key(3) == unit_key(3.0) == unit_key(np.float32(3.0)) == unit_key(np.uint8(3))
    assert unit_key(0.5) != unit_key(0.25)
    day = datetime.datetime(2026, 11, 25, 6, 0)
    assert unit_key(day) == unit_key(np.datetime64("2026-11-25T06:00"))
    assert unit_key(datetime.date(2026, 11, 25)) == unit_key(np.datetime64("2026-11-25"))
