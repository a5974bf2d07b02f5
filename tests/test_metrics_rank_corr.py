"""Ranking (ROC-AUC, average precision) and correlation (Pearson, Spearman, Kendall) metrics.

Every metric is checked against its reference implementation (scikit-learn or SciPy) on
the expanded data ``np.repeat(x, w)`` of a replicate, and its jackknife against a
brute-force leave-one-unit-out recomputation, on data with many ties, with and without
clusters.
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from booteval.core.design import make_design
from booteval.core.errors import InvalidInputError
from booteval.metrics import correlation as _correlation
from booteval.metrics import ranking as _ranking
from booteval.metrics.correlation import Kendall, Pearson, Spearman
from booteval.metrics.ranking import AveragePrecision, RocAuc

TOL = 1e-10
RANKING = ("roc_auc", "average_precision")
CORRELATION = ("pearson", "spearman", "kendall")
CLASSES = {
    "roc_auc": RocAuc,
    "average_precision": AveragePrecision,
    "pearson": Pearson,
    "spearman": Spearman,
    "kendall": Kendall,
}


# --------------------------------------------------------------------------------------------
# References (NaN where the metric is undefined)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def skm():
    return pytest.importorskip("sklearn.metrics")


def reference(name: str, a: np.ndarray, b: np.ndarray) -> float:
    if name in RANKING:
        from sklearn.metrics import average_precision_score, roc_auc_score

        if name == "roc_auc":
            return float(roc_auc_score(a, b)) if np.unique(a).size == 2 else np.nan
        return float(average_precision_score(a, b)) if a.sum() > 0 else np.nan
    if a.size < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "pearson":
            return float(stats.pearsonr(a, b)[0])
        if name == "spearman":
            return float(stats.spearmanr(a, b)[0])
        return float(stats.kendalltau(a, b)[0])


def assert_same(got: np.ndarray, want: np.ndarray, tol: float = TOL) -> None:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=0, atol=tol)


def seed(*parts: str) -> int:
    return zlib.crc32("/".join(parts).encode())


def make_data(name: str, n: int, rng: np.random.Generator, ties: bool = True):
    """Inputs with many ties (few distinct values) or continuous ones."""
    if name in RANKING:
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        levels = int(rng.integers(2, 6)) if ties else 10**9
        s = (rng.integers(0, levels, n) + 0.7 * y).astype(float) if ties else rng.normal(size=n)
        return y, s
    if ties:
        x = rng.integers(0, int(rng.integers(2, 6)), n).astype(float)
        y = x + rng.integers(0, int(rng.integers(2, 5)), n)
        return x, y.astype(float)
    x = rng.normal(size=n)
    return x, 0.5 * x + rng.normal(size=n)


DESIGNS = ("iid", "clustered", "stratified+clustered")


def make_test_design(kind: str, n: int, rng: np.random.Generator):
    if kind == "iid":
        return make_design(n)
    clusters = rng.integers(0, max(2, n // 3), n)
    if kind == "clustered":
        return make_design(n, clusters=clusters)
    return make_design(n, clusters=clusters, strata=clusters % 2)


def bootstrap_counts(design, rng: np.random.Generator, size: int) -> np.ndarray:
    """Multinomial unit counts, like bootstrap draws (cheaper than whole design blocks)."""
    k = design.n_units
    return rng.multinomial(k, np.full(k, 1.0 / k), size=size).astype(float)


def bind(name: str, a, b, design):
    m = CLASSES[name]()
    return m.bind(m.validate(a, b), design)


# --------------------------------------------------------------------------------------------
# Replicates, estimate and jackknife against the references
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", DESIGNS)
@pytest.mark.parametrize("name", RANKING + CORRELATION)
def test_replicates_equal_reference_on_expanded_data(name, kind, skm):
    rng = np.random.default_rng(seed(name, kind))
    for ties in (True, False):
        n = 40
        a, b = make_data(name, n, rng, ties)
        design = make_test_design(kind, n, rng)
        ev = bind(name, a, b, design)
        # arbitrary integer weights with many zeros, and genuine bootstrap draws
        w = np.vstack(
            [
                rng.integers(0, 3, (12, design.n_units)),
                bootstrap_counts(design, rng, 8),
            ]
        ).astype(float)
        got = ev.replicates(w)
        rw = design.row_weights(w).astype(int)
        want = [reference(name, np.repeat(a, r), np.repeat(b, r)) for r in rw]
        assert_same(got, want)
        assert got.shape == (w.shape[0],)


@pytest.mark.parametrize("name", RANKING + CORRELATION)
def test_estimate_equals_reference(name, skm):
    rng = np.random.default_rng(7)
    for ties in (True, False):
        a, b = make_data(name, 57, rng, ties)
        want = reference(name, a, b)
        assert abs(CLASSES[name]()(a, b) - want) < TOL
        assert abs(bind(name, a, b, make_design(57)).estimate() - want) < TOL


@pytest.mark.parametrize("kind", DESIGNS)
@pytest.mark.parametrize("name", RANKING + CORRELATION)
def test_jackknife_equals_leave_one_unit_out(name, kind, skm):
    rng = np.random.default_rng(seed(name, kind, "jk"))
    for ties in (True, False):
        n = 36
        a, b = make_data(name, n, rng, ties)
        design = make_test_design(kind, n, rng)
        got = bind(name, a, b, design).jackknife()
        want = []
        for u in range(design.n_units):
            keep = design.unit_of_row != u
            want.append(reference(name, a[keep], b[keep]))
        assert_same(got, want)


def test_jackknife_undefined_when_a_class_vanishes(skm):
    # the only negative row, and a cluster holding every positive
    y = np.array([0, 1, 1, 1])
    s = np.array([0.1, 0.2, 0.3, 0.3])
    assert np.isnan(bind("roc_auc", y, s, make_design(4)).jackknife()[0])
    d = make_design(4, clusters=[0, 1, 1, 1])
    jk = bind("average_precision", y, s, d).jackknife()
    assert np.isnan(jk[1]) and jk[0] == 1.0


def test_average_precision_jackknife_large_cluster_path(monkeypatch, skm):
    """Clusters over the shift-table limit are evaluated directly; both agree."""
    rng = np.random.default_rng(11)
    n = 60
    y, s = make_data("average_precision", n, rng)
    d = make_design(n, clusters=rng.integers(0, 8, n))
    shift = bind("average_precision", y, s, d).jackknife()
    monkeypatch.setattr(_ranking, "_AP_SHIFT_MAX", 3)
    mixed = bind("average_precision", y, s, d).jackknife()
    want = [
        reference("average_precision", y[d.unit_of_row != u], s[d.unit_of_row != u])
        for u in range(d.n_units)
    ]
    assert_same(shift, want)
    assert_same(mixed, want)


def test_spearman_row_jackknife_closed_form_matches_direct():
    rng = np.random.default_rng(5)
    x, y = make_data("spearman", 300, rng, ties=True)
    ev = bind("spearman", x, y, make_design(300))
    assert_same(ev.jackknife(), ev._jackknife_direct(), tol=1e-12)


@pytest.mark.parametrize("name", RANKING + CORRELATION)
def test_chunking_and_uncached_paths_agree(name, monkeypatch):
    rng = np.random.default_rng(2)
    n = 50
    a, b = make_data(name, n, rng)
    d = make_test_design("clustered", n, rng)
    w = bootstrap_counts(d, rng, 9)
    base = bind(name, a, b, d)
    want_r, want_j = base.replicates(w), base.jackknife()
    module = _ranking if name in RANKING else _correlation
    monkeypatch.setattr(module, "_CELLS", 2 * n)  # two rows of weights at a time
    if name == "kendall":
        monkeypatch.setattr(_correlation, "_CACHE_CELLS", 0)
    small = bind(name, a, b, d)
    assert_same(small.replicates(w), want_r, tol=1e-12)
    assert_same(small.jackknife(), want_j, tol=1e-12)


@pytest.mark.parametrize("name", RANKING + CORRELATION)
def test_replicates_do_not_depend_on_batching(name):
    """Replicate b is bit-identical whether computed alone or within any batch."""
    rng = np.random.default_rng(seed(name, "batch"))
    for n in (9, 400):
        a, b = make_data(name, n, rng, ties=False)
        for kind in ("iid", "clustered"):
            d = make_test_design(kind, n, rng)
            ev = bind(name, a, b, d)
            w = bootstrap_counts(d, rng, 23)
            full = ev.replicates(w)
            ones = np.concatenate([ev.replicates(w[i : i + 1]) for i in range(23)])
            threes = np.concatenate([ev.replicates(w[i : i + 3]) for i in range(0, 23, 3)])
            np.testing.assert_array_equal(full, ones)
            np.testing.assert_array_equal(full, threes)


@pytest.mark.parametrize("name", (*RANKING, "spearman", "kendall"))
def test_with_design_rebinds_to_another_design(name):
    rng = np.random.default_rng(seed(name, "rebind"))
    n = 30
    a, b = make_data(name, n, rng)
    iid, clustered = make_design(n), make_test_design("clustered", n, rng)
    ev = bind(name, a, b, iid).with_design(clustered)
    direct = bind(name, a, b, clustered)
    assert ev.design is clustered and ev.n_units == clustered.n_units
    w = bootstrap_counts(clustered, rng, 6)
    np.testing.assert_array_equal(ev.replicates(w), direct.replicates(w))
    np.testing.assert_array_equal(ev.jackknife(), direct.jackknife())
    assert bind(name, a, b, iid).with_design(iid.compress(np.arange(n) % 2)) is None


def test_kendall_larger_sample_matches_scipy():
    """Many merge levels (n = 1500, about 11 levels), many ties."""
    rng = np.random.default_rng(9)
    n = 1500
    x = rng.integers(0, 40, n).astype(float)
    y = np.round(x / 3 + rng.normal(size=n), 1)
    d = make_design(n)
    ev = bind("kendall", x, y, d)
    w = d.unit_weights(seed=0, start=0, stop=3)
    want = [reference("kendall", np.repeat(x, r), np.repeat(y, r)) for r in w.astype(int)]
    assert_same(ev.replicates(w), want)


# --------------------------------------------------------------------------------------------
# Property test
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
        min_size=2,
        max_size=12,
    ),
    clustered=st.booleans(),
)
def test_property_weighted_equals_expanded(skm, data, clustered):
    arr = np.array(data)
    label, score, weight, other = arr.T
    label = label.copy()
    label[:2] = [0, 1]
    x, y = score.astype(float), other.astype(float)
    n = arr.shape[0]
    design = make_design(n, clusters=np.arange(n) // 2 if clustered else None)
    w = weight[: design.n_units][None, :].astype(float)
    rw = design.row_weights(w)[0].astype(int)
    for name in RANKING + CORRELATION:
        a, b = (label, score.astype(float)) if name in RANKING else (x, y)
        ev = bind(name, a, b, design)
        assert_same(ev.replicates(w), [reference(name, np.repeat(a, rw), np.repeat(b, rw))])
        want = [
            reference(name, a[design.unit_of_row != u], b[design.unit_of_row != u])
            for u in range(design.n_units)
        ]
        assert_same(ev.jackknife(), want)


# --------------------------------------------------------------------------------------------
# ROC-AUC: order invariance
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("transform", [np.exp, lambda s: s**3, lambda s: 2.0 * s - 5.0])
@pytest.mark.parametrize("name", RANKING)
def test_strictly_increasing_transform_changes_nothing(name, transform):
    rng = np.random.default_rng(4)
    n = 45
    y, s = make_data(name, n, rng, ties=True)
    s = s / 3.0 - 0.6  # negative scores too, so that s**3 is a real test
    d = make_test_design("clustered", n, rng)
    w = bootstrap_counts(d, rng, 10)
    ev, ev_t = bind(name, y, s, d), bind(name, y, transform(s), d)
    assert ev.estimate() == ev_t.estimate()
    np.testing.assert_array_equal(ev.replicates(w), ev_t.replicates(w))
    np.testing.assert_array_equal(ev.jackknife(), ev_t.jackknife())


def test_non_strict_transform_can_change_auc(skm):
    y = np.array([0, 1, 0, 1])
    s = np.array([0.11, 0.14, 0.31, 0.38])
    rounded = np.round(s, 1)  # 0.11 and 0.14 tie: 0.1 and 0.1
    assert RocAuc()(y, s) == pytest.approx(0.75)
    assert RocAuc()(y, rounded) == pytest.approx(0.625)
    assert RocAuc()(y, rounded) == pytest.approx(skm.roc_auc_score(y, rounded))


# --------------------------------------------------------------------------------------------
# Undefined replicates and input errors
# --------------------------------------------------------------------------------------------


def test_replicates_with_one_class_are_nan():
    y = np.array([0, 0, 1, 1])
    s = np.array([0.1, 0.4, 0.35, 0.8])
    w = np.array([[2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 3.0], [1.0, 1.0, 1.0, 1.0]])
    auc = bind("roc_auc", y, s, make_design(4)).replicates(w)
    ap = bind("average_precision", y, s, make_design(4)).replicates(w)
    assert np.isnan(auc[0]) and np.isnan(auc[1]) and auc[2] == 0.75
    # AP needs positives only: all-positive replicates have precision 1
    assert np.isnan(ap[0]) and ap[1] == 1.0


def test_correlation_nan_on_constant_input_or_replicate():
    x = np.array([1.0, 1.0, 2.0, 3.0])
    y = np.array([5.0, 4.0, 3.0, 9.0])
    w = np.array([[3.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 2.0, 1.0]])
    for name in CORRELATION:
        ev = bind(name, x, y, make_design(4))
        r = ev.replicates(w)
        assert np.isnan(r[0]) and np.isnan(r[1]) and not np.isnan(r[2])
        assert np.isnan(CLASSES[name]()(np.ones(5), np.arange(5.0)))


def test_pearson_stable_under_large_offset():
    rng = np.random.default_rng(8)
    x = rng.normal(size=200)
    y = x + rng.normal(size=200)
    d = make_design(200)
    w = d.unit_weights(seed=0, start=0, stop=5)
    ev = bind("pearson", x + 1e7, y - 1e7, d)
    want = [stats.pearsonr(np.repeat(x, r), np.repeat(y, r))[0] for r in w.astype(int)]
    np.testing.assert_allclose(ev.replicates(w), want, atol=1e-9)


@pytest.mark.parametrize("cls", [RocAuc, AveragePrecision])
def test_ranking_input_errors(cls):
    with pytest.raises(InvalidInputError, match="y_true") as exc:
        cls()([1, 1, 1], [0.1, 0.2, 0.3])
    assert "1 class" in str(exc.value)
    with pytest.raises(InvalidInputError, match="y_true") as exc:
        cls()([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4])
    assert "[0, 1, 2]" in str(exc.value)
    with pytest.raises(InvalidInputError, match="y_score"):
        cls()([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(InvalidInputError, match="y_score"):
        cls()([0, 1, 1], [0.1, 0.3])
    with pytest.raises(InvalidInputError, match="pos_label"):
        cls()(["ham", "spam"], [0.1, 0.3])
    with pytest.raises(InvalidInputError, match="pos_label"):
        cls(pos_label="eggs")(["ham", "spam"], [0.1, 0.3])


def test_pos_label_and_default_labels(skm):
    y = np.array(["ham", "spam", "ham", "spam", "spam"])
    s = np.array([0.2, 0.9, 0.4, 0.3, 0.3])
    assert RocAuc(pos_label="spam")(y, s) == pytest.approx(skm.roc_auc_score(y == "spam", s))
    assert RocAuc(pos_label="ham")(y, s) == pytest.approx(skm.roc_auc_score(y == "ham", s))
    ap = AveragePrecision(pos_label="spam")(y, s)
    assert ap == pytest.approx(skm.average_precision_score(y == "spam", s))
    # {-1, 1} and booleans default to 1 / True as the positive class
    assert RocAuc()(np.where(y == "spam", 1, -1), s) == RocAuc(pos_label="spam")(y, s)
    assert RocAuc()(y == "spam", s) == RocAuc(pos_label="spam")(y, s)
    assert RocAuc(pos_label="spam").label == "roc_auc(pos_label='spam')"
    assert RocAuc().label == "roc_auc"


def test_correlation_input_errors():
    for cls in (Pearson, Spearman, Kendall):
        with pytest.raises(InvalidInputError, match="`y`"):
            cls()([1.0, 2.0, 3.0], [1.0, 2.0])
        with pytest.raises(InvalidInputError, match="`x`"):
            cls()([1.0, np.inf, 3.0], [1.0, 2.0, 3.0])
        with pytest.raises(InvalidInputError, match="`x`"):
            cls()([1.0], [2.0])


def test_registry_tables():
    assert set(_ranking.METRICS) == {"roc_auc", "average_precision"}
    assert set(_correlation.METRICS) == {"pearson", "spearman", "kendall"}
    for table in (_ranking.METRICS, _correlation.METRICS):
        for key, cls in table.items():
            m = cls()
            assert m.name == key
            assert m.bounds is not None
    assert RocAuc.input_names == ("y_true", "y_score")
    assert Kendall.input_names == ("x", "y")
    assert Pearson.bounds == (-1.0, 1.0) and RocAuc.bounds == (0.0, 1.0)


def _delong_se_by_hand(y, s, groups):
    """DeLong's plug-in standard error from pairwise placements (O(n^2)), with the
    rows' influences added up within ``groups`` first."""
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = psi.mean()
    infl = np.zeros(y.size)
    infl[y == 1] = (psi.mean(axis=1) - auc) / pos.size
    infl[y == 0] = (psi.mean(axis=0) - auc) / neg.size
    return np.sqrt(np.sum(np.bincount(groups, weights=infl) ** 2))


@pytest.mark.parametrize("clustered", [False, True])
def test_roc_auc_standard_error_is_delongs(clustered):
    rng = np.random.default_rng(3)
    n = 90
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 1)  # with ties
    groups = np.arange(n) // 6 if clustered else np.arange(n)
    m = RocAuc()
    design = make_design(n, clusters=groups) if clustered else make_design(n)
    ev = m.bind(m.validate(y, s), design)
    assert ev.has_standard_error
    se = ev.standard_errors(ev.design.original_weights())[0]
    assert se == pytest.approx(_delong_se_by_hand(y, s, groups), rel=1e-12)
    # a replicate: the same on its expanded data, each drawn unit a group of its own
    w = rng.multinomial(ev.n_units, np.full(ev.n_units, 1 / ev.n_units))
    copies = [u for u in range(ev.n_units) for _ in range(w[u])]
    rows = np.concatenate([np.flatnonzero(groups == u) for u in copies])
    new_groups = np.concatenate([np.full(np.sum(groups == u), i) for i, u in enumerate(copies)])
    got = ev.standard_errors(w[None, :].astype(float))[0]
    assert got == pytest.approx(_delong_se_by_hand(y[rows], s[rows], new_groups), rel=1e-12)
    # several replicates in one call: each the same as alone
    batch = rng.multinomial(ev.n_units, np.full(ev.n_units, 1 / ev.n_units), size=5)
    batch = np.vstack([batch, w]).astype(float)
    alone = [ev.standard_errors(row[None, :])[0] for row in batch]
    assert np.allclose(ev.standard_errors(batch), alone, rtol=1e-13, atol=0)
    assert ev.standard_errors(batch)[-1] == got
    only_negatives = np.where(y == 0, 1.0, 0.0)[None, :] if not clustered else None
    if only_negatives is not None:
        assert np.isnan(ev.standard_errors(only_negatives)[0])


def test_roc_auc_standard_error_follows_a_new_design():
    rng = np.random.default_rng(0)
    n = 60
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    m = RocAuc()
    first = m.bind(m.validate(y, s), make_design(n, clusters=np.arange(n) // 6))
    first.standard_errors(np.ones((1, 10)))  # caches its layout
    other = make_design(n, clusters=(np.arange(n) * 7) % 10)  # 10 clusters too
    moved = first.with_design(other).standard_errors(np.ones((1, 10)))[0]
    fresh = m.bind(m.validate(y, s), other).standard_errors(np.ones((1, 10)))[0]
    assert moved == fresh
