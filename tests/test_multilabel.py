"""Multi-label macro recall / F1 (R22): instance and label resampling against sklearn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import f1_score, recall_score

import booteval
from booteval.core.design import make_design
from booteval.core.errors import InvalidInputError, UndefinedReplicateWarning
from booteval.core.kernels import drawn_indices
from booteval.methods.multilabel import macro_average, multilabel_ci, per_label_scores

ZERO_DIVISION = {"zero": 0.0, "one": 1.0, "exclude": np.nan}
SKLEARN = {"recall": recall_score, "f1": f1_score}


def _data(n=40, n_labels=6, seed=0):
    rng = np.random.default_rng(seed)
    prev = np.linspace(0.03, 0.5, n_labels)  # some rare labels: resamples without positives
    yt = (rng.random((n, n_labels)) < prev).astype(int)
    flip = rng.random((n, n_labels)) < 0.25
    yp = np.where(flip, 1 - yt, yt)
    return yt, yp


def _sk(metric, yt, yp, undefined):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SKLEARN[metric](yt, yp, average="macro", zero_division=ZERO_DIVISION[undefined])


@pytest.mark.parametrize("metric", ["recall", "f1"])
@pytest.mark.parametrize("undefined", ["zero", "one", "exclude"])
@pytest.mark.filterwarnings("ignore::booteval.DegenerateIntervalWarning")
def test_point_estimate_equals_sklearn(metric, undefined):
    yt, yp = _data(seed=1)
    yt[:, 0] = 0  # a label without positives
    yp[:, 0] = 0  # and without predictions (undefined for F1 too)
    expected = _sk(metric, yt, yp, undefined)
    assert macro_average(yt, yp, metric, undefined) == pytest.approx(expected, abs=1e-12)
    r = multilabel_ci(yt, yp, metric=metric, undefined=undefined, n_resamples=100, seed=0)
    assert r.estimate == pytest.approx(expected, abs=1e-12)
    assert r.details["undefined_labels"] == 1
    assert any("1 of 6 labels" in note for note in r.notes)


@pytest.mark.parametrize("metric", ["recall", "f1"])
@pytest.mark.parametrize("undefined", ["zero", "one", "exclude"])
def test_instance_replicates_equal_sklearn_on_resampled_rows(metric, undefined):
    yt, yp = _data(n=30, seed=2)
    b, seed = 60, 7
    kw = {"metric": metric, "undefined": undefined, "method": "percentile", "n_resamples": b}
    r = multilabel_ci(yt, yp, seed=seed, engine="numpy", **kw)
    assert r.n_undefined == 0 and r.distribution.size == b
    counts = make_design(yt.shape[0]).unit_weights(seed, 0, b).astype(int)
    expected = []
    for c in counts:
        rows = np.repeat(np.arange(yt.shape[0]), c)
        expected.append(_sk(metric, yt[rows], yp[rows], undefined))
    np.testing.assert_allclose(r.distribution, expected, rtol=1e-12, atol=1e-12)
    # the default (compiled) engine: replicate k is the metric on its drawn rows
    from booteval.core.kernels import drawn_indices

    fast = multilabel_ci(yt, yp, seed=seed, **kw)
    assert fast.design.endswith("numba engine") and fast.distribution.size == b
    drawn = [_sk(metric, yt[idx], yp[idx], undefined)
             for idx in (drawn_indices(seed, k, yt.shape[0]) for k in range(b))]  # fmt: skip
    np.testing.assert_allclose(fast.distribution, drawn, rtol=1e-12, atol=1e-12)
    # recall: the rare label has no positive in some resamples, so the policy is exercised
    # and counted (F1 is undefined only without positives *and* predicted positives)
    if metric == "recall":
        assert r.details["mean_undefined_labels"] > 0


@pytest.mark.parametrize("engine", ["numpy", "auto"])
@pytest.mark.parametrize("undefined", ["zero", "exclude"])
def test_label_replicates_are_macro_averages_over_resampled_labels(undefined, engine):
    """Each replicate is the mean over the drawn labels (the NumPy engine's unit counts,
    or the compiled engine's draws, replicate by replicate)."""
    yt, yp = _data(n=50, n_labels=12, seed=3)
    yt[:, 2] = 0
    yp[:, 2] = 0  # no positives, no predictions: F1 undefined for label 2
    b, seed = 80, 5
    r = multilabel_ci(yt, yp, metric="f1", resample="labels", undefined=undefined,
                      n_resamples=b, seed=seed, method="percentile", engine=engine)  # fmt: skip
    assert r.design.endswith(", numba engine") == (engine == "auto")
    per = per_label_scores(yt, yp, "f1", undefined)
    if engine == "numpy":
        counts = make_design(12).unit_weights(seed, 0, b).astype(int)
    else:
        counts = np.array([np.bincount(drawn_indices(seed, i, 12), minlength=12) for i in range(b)])
    expected = []
    for c in counts:
        drawn = np.repeat(per, c)
        expected.append(np.nanmean(drawn) if np.isfinite(drawn).any() else np.nan)
    expected = np.array(expected)
    np.testing.assert_allclose(r.distribution, expected[np.isfinite(expected)], rtol=1e-12)
    assert r.n == 12 and r.details["unit"] == "labels"
    assert r.details["mean_undefined_labels"] == pytest.approx(counts[:, 2].mean())


@pytest.mark.parametrize("resample", ["instances", "labels"])
def test_same_seed_same_result_for_any_batch(resample):
    yt, yp = _data(n=200, n_labels=15, seed=4)
    kw = dict(resample=resample, n_resamples=3000, seed=11, metric="f1")
    a = multilabel_ci(yt, yp, **kw)
    c = multilabel_ci(yt, yp, batch=17, **kw)
    np.testing.assert_array_equal(a.distribution, c.distribution)
    assert (a.low, a.high) == (c.low, c.high)


def test_jackknife_over_instances_and_labels():
    yt, yp = _data(n=25, n_labels=5, seed=5)
    r = multilabel_ci(yt, yp, method="bca", n_resamples=200, seed=0)
    loo = [_sk("recall", np.delete(yt, i, 0), np.delete(yp, i, 0), "zero") for i in range(25)]
    np.testing.assert_allclose(r.jackknife, loo, rtol=1e-12)
    assert "acceleration" in r.details
    rl = multilabel_ci(yt, yp, resample="labels", method="bca", n_resamples=200, seed=0)
    per = per_label_scores(yt, yp)
    np.testing.assert_allclose(rl.jackknife, [np.delete(per, j).mean() for j in range(5)])
    for m in ("percentile", "basic", "normal"):
        other = r.with_method(m)
        assert other.method == m and np.array_equal(other.distribution, r.distribution)
        assert 0.0 <= other.low <= other.high <= 1.0


@pytest.mark.filterwarnings("ignore::booteval.DegenerateIntervalWarning")
def test_replicates_with_no_defined_label_are_dropped_and_counted():
    yt = np.zeros((20, 1), dtype=int)
    yt[0, 0] = 1
    yp = yt.copy()
    b, seed = 400, 3
    with pytest.warns(UndefinedReplicateWarning):
        r = multilabel_ci(
            yt, yp, undefined="exclude", method="percentile", n_resamples=b, seed=seed,
            engine="numpy",
        )  # fmt: skip
    counts = make_design(20).unit_weights(seed, 0, b)
    assert r.n_undefined == int((counts[:, 0] == 0).sum()) > 0
    assert r.distribution.size == b - r.n_undefined


def test_label_interval_reflects_label_heterogeneity():
    # labels of very different difficulty on many documents: the instance interval is
    # narrow (documents are plentiful) while the label interval is wide (few, unlike labels)
    rng = np.random.default_rng(6)
    n, n_labels = 2000, 20
    yt = (rng.random((n, n_labels)) < 0.3).astype(int)
    skill = np.linspace(0.2, 0.95, n_labels)
    hit = rng.random((n, n_labels)) < skill
    yp = np.where(yt == 1, hit, 0).astype(int)
    inst = multilabel_ci(yt, yp, n_resamples=1000, seed=0, method="percentile")
    labs = multilabel_ci(yt, yp, resample="labels", n_resamples=1000, seed=0, method="percentile")
    assert inst.estimate == labs.estimate
    assert labs.width > 3 * inst.width


def test_errors_name_the_parameter():
    yt, yp = _data()
    with pytest.raises(InvalidInputError, match="`y_pred`"):
        multilabel_ci(yt, yp[:, :-1])
    with pytest.raises(InvalidInputError, match="`y_pred`"):
        multilabel_ci(yt, yp[:-1])
    with pytest.raises(InvalidInputError, match=r"`y_true`.*binary"):
        multilabel_ci(yt * 2, yp)
    with pytest.raises(InvalidInputError, match=r"`y_pred`.*binary"):
        multilabel_ci(yt, yp * 0.5)
    with pytest.raises(InvalidInputError, match=r"`y_true`.*2-D"):
        multilabel_ci(yt[:, 0], yp[:, 0])
    with pytest.raises(InvalidInputError, match=r"`y_true`.*at least 2 labels"):
        multilabel_ci(yt[:, :1], yp[:, :1], resample="labels")
    with pytest.raises(InvalidInputError, match="`resample`"):
        multilabel_ci(yt, yp, resample="rows")
    with pytest.raises(InvalidInputError, match="`metric`"):
        multilabel_ci(yt, yp, metric="precision")
    with pytest.raises(InvalidInputError, match="`undefined`"):
        multilabel_ci(yt, yp, undefined="skip")
    with pytest.raises(InvalidInputError, match="`method`"):
        multilabel_ci(yt, yp, method="studentized")


def test_accepts_boolean_sparse_and_pandas():
    import scipy.sparse as sp

    yt, yp = _data(seed=8)
    ref = multilabel_ci(yt, yp, n_resamples=100, seed=1)
    for a, b in ((yt.astype(bool), yp.astype(bool)), (sp.csr_matrix(yt), sp.csr_matrix(yp))):
        r = multilabel_ci(a, b, n_resamples=100, seed=1)
        np.testing.assert_array_equal(r.distribution, ref.distribution)


@pytest.mark.parametrize("resample", ["instances", "labels"])
def test_the_engine_loop_gives_the_same_replicates_for_any_batch_and_workers(resample):
    rng = np.random.default_rng(8)
    yt = (rng.random((120, 6)) < 0.3).astype(int)
    yp = np.where(rng.random((120, 6)) < 0.8, yt, 1 - yt)
    kw = dict(resample=resample, n_resamples=1500, seed=2, metric="f1")
    ref = multilabel_ci(yt, yp, batch=1500, workers=1, **kw)
    calls = []
    other = multilabel_ci(yt, yp, batch=97, workers=2, progress=lambda d, t: calls.append(d), **kw)
    assert np.array_equal(ref.distribution, other.distribution)
    assert ref.details["mean_undefined_labels"] == other.details["mean_undefined_labels"]
    assert calls[-1] == 1500 and calls == sorted(calls)


def test_a_missing_numba_is_an_error_before_the_run(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "booteval.core.kernels", raising=False)
    monkeypatch.delattr(booteval.core, "kernels", raising=False)
    seen = []
    yt = (np.arange(120).reshape(40, 3) % 2).astype(int)
    yp = ((np.arange(120).reshape(40, 3) + 1) % 3 == 0).astype(int)
    with pytest.raises(booteval.InvalidInputError, match="numba"):
        booteval.multilabel_ci(yt, yp, engine="numba", n_resamples=500, seed=0,
                               progress=lambda d, t: seen.append(d))  # fmt: skip
    assert seen == []


def test_metrics_are_the_registry_metrics_that_declare_multilabel_scores():
    from booteval.methods.multilabel import MULTILABEL_METRICS
    from booteval.metrics import get_metric, list_metrics

    assert set(MULTILABEL_METRICS) == {n for n in list_metrics() if get_metric(n).multilabel}
    assert set(MULTILABEL_METRICS) == {"recall", "f1"}
    with pytest.raises(InvalidInputError, match="'recall'"):
        multilabel_ci(np.eye(3, dtype=int), np.eye(3, dtype=int), metric="precision")
