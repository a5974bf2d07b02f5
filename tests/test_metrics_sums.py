"""Sum-decomposable metrics: values on weighted replicates equal the reference metric
on the expanded data, closed-form jackknife equals brute force, compression is exact."""

from __future__ import annotations

import numpy as np
import pytest

from booteval import InvalidInputError, get_metric, list_metrics
from booteval.core.design import make_design
from booteval.metrics import SumEvaluator

skm = pytest.importorskip("sklearn.metrics")

RNG = np.random.default_rng(20261122)
N = 60


def _multiclass(n=N, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    return y, p


def _binary(n=N, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.75, y, 1 - y)
    return y, p


def _proba(n=N, seed=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.clip(0.35 * y + rng.random(n) * 0.65, 0, 1)
    return y, s


def _regression(n=N, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    return y, y + rng.normal(scale=0.5, size=n)


def _ece_reference(y, p, n_bins):
    bins = np.minimum((p * n_bins).astype(int), n_bins - 1)
    total = 0.0
    for b in range(n_bins):
        m = bins == b
        if m.any():
            total += abs(y[m].sum() - p[m].sum())
    return total / len(y)


# name, params, data factory, reference function on (expanded) arrays
CASES = [
    ("accuracy", {}, _multiclass, skm.accuracy_score),
    ("error_rate", {}, _multiclass, lambda y, p: 1 - skm.accuracy_score(y, p)),
    ("precision", {}, _binary, skm.precision_score),
    ("recall", {}, _binary, skm.recall_score),
    ("f1", {}, _binary, skm.f1_score),
    ("f1", {"pos_label": 0}, _binary, lambda y, p: skm.f1_score(y, p, pos_label=0)),
    ("specificity", {}, _binary, lambda y, p: skm.recall_score(y, p, pos_label=0)),
    ("specificity", {"pos_label": 0}, _binary, skm.recall_score),
    (
        "youden",
        {},
        _binary,
        lambda y, p: skm.recall_score(y, p) + skm.recall_score(y, p, pos_label=0) - 1,
    ),
    *[
        (
            name,
            {"average": avg},
            _multiclass,
            (lambda f, a: lambda y, p: f(y, p, average=a, zero_division=0))(fn, avg),
        )
        for name, fn in (
            ("precision", skm.precision_score),
            ("recall", skm.recall_score),
            ("f1", skm.f1_score),
        )
        for avg in ("macro", "micro", "weighted")
    ],
    ("balanced_accuracy", {}, _multiclass, skm.balanced_accuracy_score),
    ("mcc", {}, _multiclass, skm.matthews_corrcoef),
    ("cohen_kappa", {}, _multiclass, skm.cohen_kappa_score),
    ("log_loss", {}, _proba, lambda y, s: skm.log_loss(y, s, labels=[0, 1])),
    ("brier", {}, _proba, skm.brier_score_loss),
    ("ece", {"n_bins": 10}, _proba, lambda y, s: _ece_reference(y, s, 10)),
    ("mae", {}, _regression, skm.mean_absolute_error),
    ("mse", {}, _regression, skm.mean_squared_error),
    ("rmse", {}, _regression, lambda y, p: np.sqrt(skm.mean_squared_error(y, p))),
    ("r2", {}, _regression, skm.r2_score),
]
IDS = [f"{c[0]}-{c[1]}" for c in CASES]


def _weights(n, b=6, seed=5):
    rng = np.random.default_rng(seed)
    w = rng.multinomial(n, np.full(n, 1 / n), size=b).astype(float)
    w[0] = 1.0  # the original data
    return w


@pytest.mark.parametrize(("name", "params", "make", "ref"), CASES, ids=IDS)
def test_replicates_equal_reference_on_expanded_data(name, params, make, ref):
    y, p = make()
    metric = get_metric(name, **params)
    data = metric.validate(y, p)
    ev = metric.bind(data, make_design(len(y)))
    w = _weights(len(y))
    got = ev.replicates(_unit(ev, w))
    for b in range(w.shape[0]):
        idx = np.repeat(np.arange(len(y)), w[b].astype(int))
        assert got[b] == pytest.approx(ref(y[idx], p[idx]), abs=1e-10), b
    assert ev.estimate() == pytest.approx(ref(y, p), abs=1e-12)


def _unit(ev, row_weights):
    """Row weights -> the evaluator's unit weights (sums over compressed cells)."""
    d = ev.design
    if d is None or not d.compressed:
        return row_weights
    out = np.zeros((row_weights.shape[0], d.n_units))
    for b in range(row_weights.shape[0]):
        out[b] = np.bincount(d.unit_of_row, weights=row_weights[b], minlength=d.n_units)
    return out


@pytest.mark.parametrize(("name", "params", "make", "ref"), CASES, ids=IDS)
@pytest.mark.parametrize("clustered", [False, True])
def test_jackknife_equals_brute_force(name, params, make, ref, clustered):
    y, p = make()
    n = len(y)
    clusters = np.arange(n) // 3 if clustered else None
    metric = get_metric(name, **params)
    design = make_design(n, clusters=clusters)
    jack = metric.bind(metric.validate(y, p), design).jackknife()
    groups = clusters if clustered else np.arange(n)
    expected = []
    for g in np.unique(groups):
        keep = groups != g
        expected.append(ref(y[keep], p[keep]))
    np.testing.assert_allclose(jack, expected, atol=1e-10)


@pytest.mark.parametrize(("name", "params", "make", "ref"), CASES[:14], ids=IDS[:14])
def test_compressed_cells_match_row_level(name, params, make, ref):
    """Count metrics resample cells; the cell sums of row-level weights give identical values."""
    y, p = make(n=400)
    metric = get_metric(name, **params)
    ev = metric.bind(metric.validate(y, p), make_design(len(y)))
    assert ev.design.compressed
    w = _weights(len(y))
    got = ev.replicates(_unit(ev, w))
    for b in range(w.shape[0]):
        idx = np.repeat(np.arange(len(y)), w[b].astype(int))
        assert got[b] == pytest.approx(ref(y[idx], p[idx]), abs=1e-10)


def test_compressed_distribution_matches_row_level():
    """Bootstrap distributions from cells and from rows agree (two-sample KS, moments)."""
    from scipy import stats

    y, p = _multiclass(n=500, k=3, seed=11)
    metric = get_metric("f1", average="macro")
    data = metric.validate(y, p)
    design = make_design(len(y))
    ev = metric.bind(data, design)
    assert ev.design.compressed
    cells = ev.replicates(ev.design.unit_weights(1, 0, 4000))
    rows = SumEvaluator(ev.unit_stats[ev.design.unit_of_row], design, ev.from_sums)
    assert not rows.design.compressed
    direct = rows.replicates(design.unit_weights(2, 0, 4000))
    assert stats.ks_2samp(cells, direct).pvalue > 1e-3
    assert np.mean(cells) == pytest.approx(np.mean(direct), abs=4 * np.std(direct) / 40)
    assert np.std(cells) == pytest.approx(np.std(direct), rel=0.08)


def test_expected_cell_counts_are_cell_sizes():
    y, p = _binary(n=300)
    ev = get_metric("accuracy").bind(get_metric("accuracy").validate(y, p), make_design(300))
    w = ev.design.unit_weights(3, 0, 20_000)
    sizes = ev.design.unit_size
    # a cell's count is Binomial(n, size/n): its mean over R replicates has SD sqrt(size/R)
    assert np.all(np.abs(w.mean(axis=0) - sizes) <= 5 * np.sqrt(sizes / 20_000))
    assert (w.sum(axis=1) == 300).all()


def test_string_labels_and_pos_label():
    y = np.array(["spam", "ham", "spam", "spam", "ham"])
    p = np.array(["spam", "spam", "spam", "ham", "ham"])
    f1 = get_metric("f1", pos_label="spam")(y, p)
    assert f1 == pytest.approx(skm.f1_score(y, p, pos_label="spam"))
    with pytest.raises(InvalidInputError, match="pos_label"):
        get_metric("f1")(y, p)


def test_binary_average_on_multiclass_data_is_an_error():
    y, p = _multiclass()
    with pytest.raises(InvalidInputError, match="average"):
        get_metric("precision")(y, p)


def test_zero_division_nan_marks_undefined():
    y = np.array([0, 0, 1, 1])
    p = np.array([0, 0, 0, 0])
    assert get_metric("precision")(y, p) == 0.0
    assert np.isnan(get_metric("precision", zero_division=np.nan)(y, p))


def test_multiclass_probability_matrix():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 80)
    raw = rng.random((80, 3)) + np.eye(3)[y]
    proba = raw / raw.sum(axis=1, keepdims=True)
    assert get_metric("log_loss")(y, proba) == pytest.approx(skm.log_loss(y, proba))
    brier = np.mean(((np.eye(3)[y] - proba) ** 2).sum(axis=1))
    assert get_metric("brier")(y, proba) == pytest.approx(brier)
    conf, top = proba.max(axis=1), proba.argmax(axis=1)
    assert get_metric("ece", n_bins=5)(y, proba) == pytest.approx(
        _ece_reference((top == y).astype(float), conf, 5)
    )


@pytest.mark.parametrize(
    ("name", "args", "param"),
    [
        ("log_loss", ([0, 1], [0.2, 1.3]), "y_score"),
        ("log_loss", ([0, 1, 2], [0.2, 0.3, 0.1]), "y_true"),
        ("ece", ([0, 1], [[0.5, 0.6], [0.5, 0.5]]), "y_score"),
        ("accuracy", ([0, 1, None], [0, 1, 1]), "y_true"),
        ("mae", ([0.0, np.nan], [0.0, 1.0]), "y_true"),
        ("mae", ([0.0, 1.0], [0.0, 1.0, 2.0]), "y_pred"),
    ],
)
def test_bad_inputs_name_the_parameter(name, args, param):
    with pytest.raises(InvalidInputError, match=param):
        get_metric(name)(*args)


def test_unknown_metric_lists_valid_names():
    with pytest.raises(InvalidInputError, match="accuracy") as info:
        get_metric("acuracy")
    assert info.value.parameter == "metric"


def test_bad_metric_parameter():
    with pytest.raises(InvalidInputError, match="n_bins"):
        get_metric("ece", n_bins=0)
    with pytest.raises(InvalidInputError, match="metric_kwargs"):
        get_metric("accuracy", average="macro")


def test_registry_lists_every_required_metric():
    required = {
        "mean",
        "accuracy",
        "error_rate",
        "precision",
        "recall",
        "f1",
        "balanced_accuracy",
        "mcc",
        "cohen_kappa",
        "roc_auc",
        "average_precision",
        "log_loss",
        "brier",
        "ece",
        "mae",
        "mse",
        "rmse",
        "r2",
        "pearson",
        "spearman",
        "kendall",
    }
    assert required <= set(list_metrics())


def test_ratio_standard_error_closed_form():
    """Analytic SE of a proportion is sqrt(p(1-p)/n); cluster-robust SE by hand."""
    rng = np.random.default_rng(9)
    x = (rng.random(200) < 0.3).astype(float)
    m = get_metric("mean")
    ev = m.bind(m.validate(x), make_design(200))
    p = x.mean()
    se = ev.standard_errors(ev.design.original_weights())[0]
    assert se == pytest.approx(np.sqrt(p * (1 - p) / 200), rel=1e-12)
    cl = np.arange(200) // 8
    evc = m.bind(m.validate(x), make_design(200, clusters=cl))
    sums = np.bincount(cl, weights=x)
    sizes = np.bincount(cl)
    by_hand = np.sqrt(np.sum((sums - p * sizes) ** 2)) / 200
    assert evc.standard_errors(np.ones((1, evc.n_units)))[0] == pytest.approx(by_hand)


def _pearson_se_by_hand(x, y, groups):
    """Linearized SE of Pearson's r from its influence function, summed within groups."""
    zx = (x - x.mean()) / x.std()
    zy = (y - y.mean()) / y.std()
    r = np.mean(zx * zy)
    infl = zx * zy - r / 2 * (zx**2 + zy**2)
    return np.sqrt(np.sum(np.bincount(groups, weights=infl) ** 2)) / x.size


def test_pearson_standard_error_is_the_influence_function_one():
    rng = np.random.default_rng(4)
    n = 120
    x = rng.standard_t(4, n)
    y = 0.5 * x + rng.exponential(size=n)
    m = get_metric("pearson")
    ev = m.bind(m.validate(x, y), make_design(n))
    assert ev.has_standard_error
    se = ev.standard_errors(ev.design.original_weights())[0]
    assert se == pytest.approx(_pearson_se_by_hand(x, y, np.arange(n)), rel=1e-9)
    # a weighted replicate: the same formula on the expanded rows
    w = rng.multinomial(n, np.full(n, 1 / n)).astype(float)
    rows = np.repeat(np.arange(n), w.astype(int))
    rep = ev.standard_errors(w[None, :])[0]
    assert rep == pytest.approx(_pearson_se_by_hand(x[rows], y[rows], np.arange(n)), rel=1e-9)
    # whole clusters: the influence summed within each
    cl = np.arange(n) // 7
    evc = m.bind(m.validate(x, y), make_design(n, clusters=cl))
    sec = evc.standard_errors(evc.design.original_weights())[0]
    assert sec == pytest.approx(_pearson_se_by_hand(x, y, cl), rel=1e-9)
    # constant in a replicate: undefined, like r itself
    only_one = np.zeros((1, n))
    only_one[0, 0] = n
    assert np.isnan(ev.standard_errors(only_one)[0])


def test_pearson_standard_error_matches_normal_theory():
    rng = np.random.default_rng(5)
    n, rho = 20_000, 0.6
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    m = get_metric("pearson")
    ev = m.bind(m.validate(x, y), make_design(n))
    se = ev.standard_errors(ev.design.original_weights())[0]
    assert se == pytest.approx((1 - rho**2) / np.sqrt(n), rel=0.03)
