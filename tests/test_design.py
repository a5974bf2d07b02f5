"""Resampling designs: counts, their distribution, and reproducibility of ``ci``.

What a design must guarantee (see ``booteval.design``):

* every replicate draws as many units as there are (iid), within every stratum
  (stratified), whole clusters (clustered), clusters within strata (both);
* each unit's count is Binomial(m, 1/m) with covariance -1/m between two units
  (m units in the stratum); a compressed design draws a multinomial over cells;
* replicate ``b`` does not depend on how the replicates are fetched (batch
  sizes, offsets, the number of replicates, the number of threads).

Monte Carlo tolerances are five standard errors, each estimated from the
simulated counts themselves; every generator is seeded, so the tests are
deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest

import booteval
from booteval import InvalidInputError
from booteval.core.design import Design, make_design

SEED = 20240611


def _group_sums(w: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Column sums of ``w`` within each group label, shape ``(batch, n_groups)``."""
    _, codes = np.unique(groups, return_inverse=True)
    onehot = np.zeros((codes.size, codes.max() + 1))
    onehot[np.arange(codes.size), codes] = 1.0
    return w @ onehot


def _assert_counts(w: np.ndarray) -> None:
    assert w.dtype == np.float64
    assert np.all(w >= 0)
    assert np.array_equal(w, np.round(w))


def _within(estimate: np.ndarray, expected: np.ndarray, se: np.ndarray, k: float = 5.0) -> None:
    estimate, expected, se = map(np.asarray, (estimate, expected, se))
    assert np.all(se > 0)
    z = np.abs(estimate - expected) / se
    assert np.all(z < k), f"max |z| = {z.max():.2f}: {estimate} vs {expected}"


# ------------------------------------------------------------------ structure
@pytest.mark.parametrize("n", [50, 600, 5000])
def test_iid_counts_sum_to_n(n: int) -> None:
    d = make_design(n)
    assert d.kind == "iid" and d.n_units == n and d.n_strata == 1
    w = d.unit_weights(SEED, 0, 40)
    assert w.shape == (40, n)
    _assert_counts(w)
    assert np.all(w.sum(axis=1) == n)
    # iid row weights are the unit weights
    assert np.array_equal(d.row_weights(w), w)
    assert np.array_equal(d.original_weights(), np.ones((1, n)))


def test_stratified_sums_equal_stratum_sizes_in_every_replicate() -> None:
    rng = np.random.default_rng(1)
    strata = rng.choice(np.array(["a", "b", "c"]), size=700, p=[0.7, 0.25, 0.05])
    d = make_design(700, strata=strata)
    assert d.kind == "stratified" and d.n_strata == 3
    w = d.unit_weights(SEED, 0, 300)
    _assert_counts(w)
    sizes = np.array([(strata == s).sum() for s in ("a", "b", "c")])
    per = _group_sums(w, strata)
    assert np.array_equal(per, np.broadcast_to(sizes, per.shape))
    # the design records each unit's stratum (labels in sorted order)
    assert np.array_equal(d.unit_stratum, np.searchsorted(["a", "b", "c"], strata))


def test_clustered_row_weights_constant_within_cluster() -> None:
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 37, size=500) * 11 + 3  # arbitrary integer labels
    n_clusters = np.unique(labels).size
    d = make_design(500, clusters=labels)
    assert d.kind == "clustered" and d.n_units == n_clusters == d.n_clusters
    u = d.unit_weights(SEED, 0, 200)
    assert u.shape == (200, n_clusters)
    _assert_counts(u)
    assert np.all(u.sum(axis=1) == n_clusters)
    r = d.row_weights(u)
    assert r.shape == (200, 500)
    for c in np.unique(labels):
        rows = np.flatnonzero(labels == c)
        block = r[:, rows]
        # every row of a cluster carries the cluster's count
        assert np.all(block == block[:, :1])
        assert np.array_equal(block[:, 0], u[:, d.unit_of_row[rows[0]]])
    # rows of one cluster map to one unit, different clusters to different units
    assert all(np.unique(d.unit_of_row[labels == c]).size == 1 for c in np.unique(labels))
    assert np.unique(d.unit_of_row).size == n_clusters
    sizes = np.bincount(d.unit_of_row, minlength=n_clusters)
    assert np.array_equal(r.sum(axis=1), u @ sizes)


def test_stratified_clustered_resamples_clusters_within_strata() -> None:
    rng = np.random.default_rng(3)
    # 3 strata holding 5, 12 and 30 clusters of 1..20 rows each
    cl_stratum = np.repeat([0, 1, 2], [5, 12, 30])
    cl_size = rng.integers(1, 21, size=cl_stratum.size)
    clusters = np.repeat(np.arange(cl_stratum.size), cl_size)
    strata = np.array(["x", "y", "z"])[cl_stratum[clusters]]
    perm = rng.permutation(clusters.size)  # rows in any order
    clusters, strata = clusters[perm], strata[perm]
    d = make_design(clusters.size, strata=strata, clusters=clusters)
    assert d.kind == "stratified+clustered"
    assert d.n_units == cl_stratum.size and d.n_strata == 3
    u = d.unit_weights(SEED, 0, 300)
    _assert_counts(u)
    per = u @ np.eye(3)[d.unit_stratum]
    assert np.array_equal(per, np.broadcast_to([5.0, 12.0, 30.0], per.shape))
    r = d.row_weights(u)
    assert np.array_equal(r, u[:, d.unit_of_row])
    assert "47 clusters within 3 strata" in d.describe()


def test_cluster_spanning_two_strata_is_an_error() -> None:
    clusters = [1, 1, 2, 2, 3, 3]
    strata = ["a", "a", "a", "b", "b", "b"]  # cluster 2 is split
    with pytest.raises(InvalidInputError, match="`strata`") as info:
        make_design(6, strata=strata, clusters=clusters)
    assert info.value.parameter == "strata"
    assert "cluster" in str(info.value)
    # the same through ci()
    with pytest.raises(InvalidInputError, match="`strata`"):
        booteval.ci(np.arange(6.0), strata=strata, clusters=clusters, n_resamples=100, seed=0)


@pytest.mark.parametrize("parameter", ["strata", "clusters"])
@pytest.mark.parametrize("length", [9, 11])
def test_wrong_length_labels(parameter: str, length: int) -> None:
    with pytest.raises(InvalidInputError, match=f"`{parameter}`") as info:
        make_design(10, **{parameter: np.zeros(length, dtype=int)})
    assert info.value.parameter == parameter
    assert str(length) in str(info.value)
    with pytest.raises(InvalidInputError, match=f"`{parameter}`"):
        booteval.ci(
            np.arange(10.0), n_resamples=100, seed=0, **{parameter: np.zeros(length, dtype=int)}
        )


def test_unorderable_labels_are_an_error() -> None:
    with pytest.raises(InvalidInputError, match="`clusters`"):
        make_design(3, clusters=np.array([1, "a", 2.5], dtype=object))


# --------------------------------------------------------------- distribution
def _moment_checks(w: np.ndarray, m: int) -> None:
    """Columns of ``w`` are counts of units of a stratum of m units, drawn m times."""
    r = w.shape[0]
    c = w - 1.0
    # pooled over units: the variance is 1 - 1/m (not Poisson's 1)
    pooled = (c * c).mean(axis=1)
    _within(pooled.mean(), 1 - 1 / m, pooled.std(ddof=1) / np.sqrt(r))
    # mean 1 per unit
    _within(w.mean(axis=0), np.ones(w.shape[1]), w.std(axis=0, ddof=1) / np.sqrt(r))
    # variance 1 - 1/m per unit
    sq = c * c
    _within(sq.mean(axis=0), np.full(w.shape[1], 1 - 1 / m), sq.std(axis=0, ddof=1) / np.sqrt(r))
    # covariance -1/m between two units
    i, j = np.triu_indices(w.shape[1], k=1)
    prod = c[:, i] * c[:, j]
    _within(prod.mean(axis=0), np.full(i.size, -1 / m), prod.std(axis=0, ddof=1) / np.sqrt(r))


def test_iid_counts_are_binomial_with_negative_covariance() -> None:
    m = 10
    d = make_design(m)
    w = d.unit_weights(SEED, 0, 100_000)
    _moment_checks(w, m)
    # the whole marginal law of a count, not just its moments: Binomial(m, 1/m)
    from scipy.stats import binom

    counts = np.bincount(w.astype(np.int64).ravel(), minlength=m + 1)[:6]
    p = binom.pmf(np.arange(6), m, 1 / m)
    total = w.size
    _within(counts / total, p, np.sqrt(p * (1 - p) / total))


def test_stratified_and_clustered_counts_are_binomial_per_stratum() -> None:
    # 8 units in stratum 0, 5 in stratum 1 (and 200 in stratum 2): Binomial(8, 1/8)
    # and Binomial(5, 1/5), negatively correlated within a stratum, uncorrelated
    # across strata
    strata = np.repeat([0, 1, 2], [8, 5, 200])
    d = make_design(strata.size, strata=strata)
    w = d.unit_weights(SEED, 0, 40_000)
    _moment_checks(w[:, :8], 8)
    _moment_checks(w[:, 8:13], 5)
    _moment_checks(w[:, 13:23], 200)
    cross = (w[:, 0] - 1) * (w[:, 8] - 1)
    _within(cross.mean(), 0.0, cross.std(ddof=1) / np.sqrt(cross.size))
    # clusters of unequal sizes (1 to 40 rows) are drawn with equal probability
    clusters = np.repeat(np.arange(40), np.arange(1, 41))
    dc = make_design(clusters.size, clusters=clusters)
    wc = dc.unit_weights(SEED, 0, 30_000)
    _moment_checks(wc[:, :12], 40)
    _moment_checks(wc[:, -12:], 40)


# ----------------------------------------------------------- batch invariance
def _big_strata(n: int) -> np.ndarray:
    return np.repeat([0, 1, 2], [n // 2, n // 3, n - n // 2 - n // 3])


DESIGNS = {
    # one generator block holds every replicate (block_size > B)
    "iid-small": lambda: make_design(5000),
    "stratified-small": lambda: make_design(5000, strata=_big_strata(5000)),
    "clustered-small": lambda: make_design(35_000, clusters=np.arange(35_000) // 7),
    "stratified+clustered-small": lambda: make_design(
        50_000, strata=np.arange(50_000) // 20_000, clusters=np.arange(50_000) // 10
    ),
    "compressed": lambda: make_design(1000).compress(np.arange(1000) % 3),
    "stratified+compressed": lambda: make_design(1000, strata=np.arange(1000) // 400).compress(
        np.arange(1000) % 2
    ),
    # a few replicates per block: replicates span several blocks
    "iid-large": lambda: make_design(300_000),
    "iid-tiny-many-blocks": lambda: make_design(7),
    "stratified-large": lambda: make_design(300_000, strata=_big_strata(300_000)),
    "clustered-large": lambda: make_design(600_000, clusters=np.arange(600_000) // 2),
}


def _fetch(d: Design, seed: int, sizes: list[int]) -> np.ndarray:
    parts, start = [], 0
    for s in sizes:
        parts.append(d.unit_weights(seed, start, start + s))
        start += s
    return np.concatenate(parts, axis=0)


@pytest.mark.parametrize("name", list(DESIGNS))
def test_replicates_do_not_depend_on_batching(name: str) -> None:
    d = DESIGNS[name]()
    if name.endswith("large"):
        b = 13
        assert d.block_size < b  # several blocks
    elif name.endswith("many-blocks"):
        b = 3 * d.block_size + 17  # a few thousand replicates of a tiny design
        assert d.block_size < b
    else:
        b = 24
        assert d.block_size > b  # one block
    full = d.unit_weights(SEED, 0, b)
    assert full.shape == (b, d.n_units)
    rng = np.random.default_rng(7)
    cuts = np.sort(rng.choice(np.arange(1, b), size=3, replace=False))
    random_split = np.diff(np.concatenate([[0], cuts, [b]])).tolist()
    ones = [1] * min(b, 40) + [b - min(b, 40)]
    for sizes in (random_split, ones):
        got = _fetch(d, SEED, sizes)
        assert np.array_equal(got, full[: got.shape[0]]), sizes
    # any window fetched on its own matches
    assert np.array_equal(d.unit_weights(SEED, 3, 11), full[3:11])
    assert np.array_equal(d.unit_weights(SEED, b - 9, b), full[b - 9 :])
    # prefix property: B replicates are the first B of 2B
    assert np.array_equal(d.unit_weights(SEED, 0, 2 * b)[:b], full)
    # and the seed matters
    assert not np.array_equal(d.unit_weights(SEED + 1, 0, b), full)
    # empty ranges are allowed
    assert d.unit_weights(SEED, 5, 5).shape == (0, d.n_units)


# ------------------------------------------------------------------ compressed
def test_compress_structure() -> None:
    keys = np.array([5, 1, 1, 5, 1, 7, 1])
    c = make_design(7).compress(keys)
    assert c.compressed and not make_design(7).compressed
    assert c.n_rows == 7 and c.n_units == 3
    assert c.unit_size.tolist() == [4, 2, 1]  # cells in sorted key order
    assert np.array_equal(c.unit_of_row, [1, 0, 0, 1, 0, 2, 0])
    assert np.array_equal(c.original_weights(), [[4.0, 2.0, 1.0]])
    with pytest.raises(ValueError, match="compressed"):
        c.row_weights(np.ones((1, 3)))
    # equal keys in different strata are different cells
    cs = make_design(7, strata=[0, 0, 0, 1, 1, 1, 1]).compress(keys)
    assert cs.n_units == 5 and cs.unit_size.sum() == 7
    assert np.array_equal(np.bincount(cs.unit_stratum, weights=cs.unit_size), [3, 4])
    assert np.array_equal(cs.unit_stratum[cs.unit_of_row], [0, 0, 0, 1, 1, 1, 1])
    # a clustered design is returned unchanged
    cl = make_design(7, clusters=[0, 0, 1, 1, 2, 2, 3])
    assert cl.compress(keys) is cl


def _multinomial_checks(w: np.ndarray, n: int, sizes: np.ndarray) -> None:
    r = w.shape[0]
    p = sizes / n
    _within(w.mean(axis=0), sizes, w.std(axis=0, ddof=1) / np.sqrt(r))
    c = w - sizes
    sq = c * c
    _within(sq.mean(axis=0), n * p * (1 - p), sq.std(axis=0, ddof=1) / np.sqrt(r))
    i, j = np.triu_indices(sizes.size, k=1)
    prod = c[:, i] * c[:, j]
    _within(prod.mean(axis=0), -n * p[i] * p[j], prod.std(axis=0, ddof=1) / np.sqrt(r))


def test_compressed_counts_are_multinomial() -> None:
    rng = np.random.default_rng(4)
    sizes = np.array([30, 20, 7, 2, 1])
    keys = rng.permutation(np.repeat(np.arange(5) * 3, sizes))
    c = make_design(60).compress(keys)
    assert c.unit_size.tolist() == sizes.tolist()
    w = c.unit_weights(SEED, 0, 60_000)
    _assert_counts(w)
    assert np.all(w.sum(axis=1) == 60)
    _multinomial_checks(w, 60, sizes)


def test_stratified_compressed_counts_are_multinomial_within_strata() -> None:
    rng = np.random.default_rng(5)
    # stratum 0: 40 rows in cells of 25, 10, 5; stratum 1: 20 rows in cells of 12, 8
    strata = np.repeat([0, 1], [40, 20])
    keys = np.concatenate([np.repeat([0, 1, 2], [25, 10, 5]), np.repeat([0, 1], [12, 8])])
    perm = rng.permutation(60)
    c = make_design(60, strata=strata[perm]).compress(keys[perm])
    assert c.n_units == 5 and c.n_strata == 2
    w = c.unit_weights(SEED, 0, 60_000)
    _assert_counts(w)
    for h, n_h in ((0, 40), (1, 20)):
        cols = np.flatnonzero(c.unit_stratum == h)
        assert np.all(w[:, cols].sum(axis=1) == n_h)  # exact per-stratum totals
        _multinomial_checks(w[:, cols], n_h, c.unit_size[cols])
    a, b = np.flatnonzero(c.unit_stratum == 0)[0], np.flatnonzero(c.unit_stratum == 1)[0]
    cross = (w[:, a] - c.unit_size[a]) * (w[:, b] - c.unit_size[b])
    _within(cross.mean(), 0.0, cross.std(ddof=1) / np.sqrt(cross.size))


# --------------------------------------------------------------------- nested
@pytest.mark.parametrize("kind", ["iid", "stratified", "stratified+clustered"])
def test_nested_weights_draw_from_the_outer_multiset(kind: str) -> None:
    n = 40
    strata = np.repeat([0, 1], [24, 16]) if kind != "iid" else None
    clusters = np.arange(n) // 2 if kind == "stratified+clustered" else None
    d = make_design(n, strata=strata, clusters=clusters)
    outer = d.unit_weights(SEED, 0, 6)
    stratum_of_unit = d.unit_stratum
    for i, oc in enumerate(outer):
        inner = d.nested_unit_weights(oc, 4000, np.random.default_rng(i))
        assert inner.shape == (4000, d.n_units)
        _assert_counts(inner)
        # units the outer replicate did not draw never appear
        assert np.all(inner[:, oc == 0] == 0)
        assert np.any(oc == 0)  # (the check above is not vacuous)
        # stratum totals are preserved
        for h in range(d.n_strata):
            cols = stratum_of_unit == h
            assert np.all(inner[:, cols].sum(axis=1) == oc[cols].sum())
        # the inner draw is a multinomial on the outer counts: mean = outer count
        _within(
            inner.mean(axis=0)[oc > 0],
            oc[oc > 0],
            inner.std(axis=0, ddof=1)[oc > 0] / np.sqrt(inner.shape[0]),
        )
        # reproducible from the generator
        again = d.nested_unit_weights(oc, 4000, np.random.default_rng(i))
        assert np.array_equal(inner, again)


# ------------------------------------------------------------- ci() invariance
def _cases() -> dict[str, tuple[tuple[np.ndarray, ...], dict]]:
    rng = np.random.default_rng(6)
    n = 6000
    x = rng.gamma(2.0, size=n)
    y_true = rng.integers(0, 2, size=n)
    y_pred = np.where(rng.random(n) < 0.8, y_true, 1 - y_true)
    clusters = np.arange(n) // 3
    strata = (np.arange(n) // 3) % 3  # clusters nested in strata
    return {
        "mean": ((x,), {}),
        "mean-clustered": ((x,), {"clusters": clusters}),
        "mean-stratified+clustered": ((x,), {"clusters": clusters, "strata": strata}),
        "accuracy": ((y_true, y_pred), {"metric": "accuracy"}),
        "accuracy-stratified": ((y_true, y_pred), {"metric": "accuracy", "strata": y_true}),
        "accuracy-clustered": ((y_true, y_pred), {"metric": "accuracy", "clusters": clusters}),
    }


CASES = _cases()


def _same(a: booteval.CIResult, b: booteval.CIResult) -> None:
    """Bit-identical runs: replicate values, endpoints and their Monte Carlo errors."""
    assert np.array_equal(a.distribution, b.distribution)
    assert (a.estimate, a.low, a.high, a.standard_error) == (
        b.estimate,
        b.low,
        b.high,
        b.standard_error,
    )
    assert (a.mcse_low, a.mcse_high, a.seed, a.n_undefined) == (
        b.mcse_low,
        b.mcse_high,
        b.seed,
        b.n_undefined,
    )


@pytest.mark.filterwarnings("ignore::booteval.DegenerateIntervalWarning")  # BCa with B = 40
@pytest.mark.parametrize("name", list(CASES))
def test_ci_does_not_depend_on_batch_or_workers(name: str) -> None:
    data, kw = CASES[name]
    # (a low level allows few replicates: the point is identity, not accuracy)
    common = dict(method="bca", confidence_level=0.5, n_resamples=12, seed=11, **kw)
    ref = booteval.ci(*data, workers=1, **common)
    assert ref.distribution.shape == (12,)
    assert ref.seed == 11
    _same(ref, booteval.ci(*data, workers=1, **common))  # same seed, same result
    for batch, workers in ((None, 2), (1, 1), (5, 1), (5, 2)):
        _same(ref, booteval.ci(*data, batch=batch, workers=workers, **common))
    # a longer run starts with the same replicates
    longer = booteval.ci(*data, workers=2, **{**common, "n_resamples": 30})
    assert np.array_equal(longer.distribution[:12], ref.distribution)
    # another seed gives another run
    other = booteval.ci(*data, workers=1, **{**common, "seed": 12})
    assert not np.array_equal(other.distribution, ref.distribution)


def _many_units() -> np.ndarray:
    return np.random.default_rng(8).normal(size=200_000)


def test_ci_invariance_across_blocks_with_threads() -> None:
    # 200_000 units: 5 replicates per block, so 40 replicates span 8 blocks and the
    # default batches run on several threads
    x = _many_units()
    d = make_design(x.size)
    assert d.block_size < 10
    common = dict(method="percentile", n_resamples=40, seed=3)
    ref = booteval.ci(x, workers=1, **common)
    for batch, workers in ((None, 2), (2, 1), (4, 2), (40, 1)):
        _same(ref, booteval.ci(x, batch=batch, workers=workers, **common))


# einsum sums a single row differently beyond 8192 terms; matmul adds fixed chunks
@pytest.mark.parametrize("batch", [1, 3])  # 40 = 13 * 3 + 1: the last batch has one row
def test_ci_single_replicate_batches_with_many_units(batch: int) -> None:
    x = _many_units()
    common = dict(method="percentile", n_resamples=40, seed=3)
    _same(booteval.ci(x, workers=1, **common), booteval.ci(x, batch=batch, workers=1, **common))


def test_studentized_nested_bootstrap_does_not_depend_on_batch() -> None:
    # a callable metric without an analytic standard error: inner resamples are
    # seeded per replicate, so the replicate standard errors do not depend on batch
    x = np.random.default_rng(9).exponential(size=2000)
    common = dict(metric=np.median, method="studentized", n_resamples=40, n_inner=10, seed=5)
    ref = booteval.ci(x, **common)
    assert ref.replicate_standard_errors is not None
    for batch in (1, 5):
        got = booteval.ci(x, batch=batch, workers=2, **common)
        _same(ref, got)
        assert np.array_equal(got.replicate_standard_errors, ref.replicate_standard_errors)


def test_unseeded_run_records_a_seed_that_reproduces_it() -> None:
    x = np.random.default_rng(10).normal(size=500)
    r = booteval.ci(x, method="percentile", n_resamples=50)
    again = booteval.ci(x, method="percentile", n_resamples=50, seed=r.seed)
    _same(r, again)


@pytest.mark.parametrize("m", [1, 2, 7, 300])
@pytest.mark.parametrize("compiled", [True, False])
def test_counting_draws_matches_bincount(
    monkeypatch: pytest.MonkeyPatch, m: int, compiled: bool
) -> None:
    from booteval.core import design as design_module

    if not compiled:  # the np.bincount fallback
        monkeypatch.setattr(design_module, "_csr_todense", None)
    draws = np.random.default_rng(m).integers(0, m, size=(5, m))
    counts = np.full((5, m), 7.0)  # overwritten, not added to
    design_module._count(draws, m, counts)
    expected = np.stack([np.bincount(row, minlength=m) for row in draws])
    assert np.array_equal(counts, expected)
