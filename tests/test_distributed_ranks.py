"""ROC-AUC and average precision on tables: per-class histograms of rounded scores,
exact where no bin holds two scores, otherwise within the stated tie bound; the same
numbers for any partitioning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import booteval
from booteval.core.errors import InvalidInputError
from booteval.distributed import ranks
from booteval.metrics.ranking import AveragePrecision, RocAuc

RNG = np.random.default_rng(11)
N = 4000
LABEL = RNG.integers(0, 2, N)
RAW = RNG.normal(0.8 * LABEL, 1.0)  # continuous: some bins hold two scores
COARSE = np.round(RAW, 2)  # few distinct values: exact
USERS = RNG.integers(0, 250, N)
TABLE = pd.DataFrame({"label": LABEL, "raw": RAW, "coarse": COARSE, "user": USERS})
SKLEARN = {"roc_auc": roc_auc_score, "average_precision": average_precision_score}
METRICS = list(SKLEARN)


def _run(table: object, metric: str, score: str = "coarse", **kw: object) -> booteval.CIResult:
    kw = {"seed": 5, "n_resamples": 400, **kw}
    return booteval.ci(table, y_true="label", y_score=score, metric=metric, **kw)


@pytest.mark.parametrize("metric", METRICS)
def test_few_distinct_scores_give_the_exact_value(metric: str) -> None:
    r = _run(TABLE, metric)
    assert r.estimate == pytest.approx(SKLEARN[metric](LABEL, COARSE), rel=1e-12)
    info = r.details["distributed"]["rank"]
    assert info["exact"] and info["tie_bound"] == 0.0 and info["score_bits"] == 12
    assert info["bins"] == np.unique(COARSE).size
    assert any("exact" in note for note in r.notes)
    assert r.method == "percentile" and r.details["distributed"]["tier"] == "rank"


@pytest.mark.parametrize("metric", METRICS)
def test_binned_scores_stay_within_the_stated_tie_bound(metric: str) -> None:
    r = _run(TABLE, metric, "raw")
    info = r.details["distributed"]["rank"]
    truth = SKLEARN[metric](LABEL, RAW)
    assert not info["exact"] and 0 < info["tie_bound"] < 1e-3
    assert abs(r.estimate - truth) <= info["tie_bound"]
    assert r.estimate != truth  # the bound is not vacuous: the histogram did tie scores
    assert any("tie bound" in note for note in r.notes)


def test_tie_bound_is_attained_by_the_worst_order_inside_a_bin() -> None:
    # one bin with 2 positives and 2 negatives: binned AUC counts the 4 pairs 1/2 each
    pos, neg = np.array([2.0]), np.array([2.0])
    assert ranks.tie_bound(RocAuc(), pos, neg, np.array([True])) == 0.5
    # AP: all positives first gives 1, all negatives first gives (1/3 + 2/4) / 2
    bound = ranks.tie_bound(AveragePrecision(), pos, neg, np.array([True]))
    assert bound == pytest.approx(max(1 - 0.5, 0.5 - (1 / 3 + 2 / 4) / 2))
    assert ranks.tie_bound(RocAuc(), pos, neg, np.array([False])) == 0.0


def test_rounding_is_monotone_and_keeps_twelve_bits() -> None:
    x = np.sort(RNG.normal(0, 3, 10_000))
    r = ranks.round_scores(x)
    assert (np.diff(r) >= 0).all()
    assert np.abs(r - x).max() <= np.abs(x).max() * 2.0**-12
    assert np.array_equal(ranks.round_scores(COARSE * 0 + 0.75), COARSE * 0 + 0.75)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("clusters", [None, "user"])
def test_agrees_with_the_in_memory_bootstrap(metric: str, clusters: str | None) -> None:
    r = _run(TABLE, metric, clusters=clusters, n_resamples=2000)
    m = booteval.ci(LABEL, COARSE, metric=metric, seed=5, n_resamples=2000,
                    method="percentile", clusters=None if clusters is None else USERS)  # fmt: skip
    assert r.standard_error / m.standard_error == pytest.approx(1.0, abs=0.08)
    half = (m.high - m.low) / 2
    assert abs(r.low - m.low) < 0.15 * half and abs(r.high - m.high) < 0.15 * half
    if clusters is not None:
        assert r.n_clusters == 250 and "250 clusters" in r.design


def test_any_partitioning_and_block_size_give_the_same_numbers(monkeypatch, dask_client):
    import dask.dataframe as dd

    for clusters in (None, "user"):
        local = _run(TABLE, "roc_auc", "raw", clusters=clusters)
        shuffled = TABLE.sample(frac=1.0, random_state=3)
        for parts in (2, 8):
            other = _run(dd.from_pandas(shuffled, npartitions=parts), "roc_auc", "raw",
                         clusters=clusters)  # fmt: skip
            assert np.array_equal(local.distribution, other.distribution)
            assert local.details["distributed"]["digest"] == other.details["distributed"]["digest"]
        monkeypatch.setattr(ranks, "_BLOCK_CELLS", 7)  # a few replicates per block
        assert np.array_equal(
            local.distribution, _run(TABLE, "roc_auc", "raw", clusters=clusters).distribution
        )
        monkeypatch.undo()


def test_compare_two_scores_on_a_table() -> None:
    other = np.round(RAW + RNG.normal(0, 0.5, N), 2)
    table = TABLE.assign(other=other)
    r = booteval.compare(table, metric="roc_auc", y_true="label", y_score=["coarse", "other"],
                         seed=2, n_resamples=500, method="percentile")  # fmt: skip
    assert r.estimate_a == pytest.approx(roc_auc_score(LABEL, COARSE), rel=1e-12)
    assert r.estimate_b == pytest.approx(roc_auc_score(LABEL, other), rel=1e-12)
    assert np.array_equal(r.distribution, r.distribution_b - r.distribution_a)
    assert r.high < 0  # the noisier score ranks worse


def test_rank_errors_name_the_parameter_and_the_alternatives() -> None:
    with pytest.raises(InvalidInputError, match=r"`method`.*'percentile'.*rounded scores"):
        _run(TABLE, "roc_auc", method="bca")
    bad = TABLE.assign(coarse=np.where(np.arange(N) == 7, np.nan, COARSE))
    with pytest.raises(InvalidInputError, match=r"`coarse`.*finite number"):
        _run(bad, "roc_auc")
    with pytest.raises(InvalidInputError, match=r"`y_true`.*exactly two classes"):
        _run(TABLE.assign(label=LABEL + (np.arange(N) == 0) * 2), "roc_auc")
    spam = TABLE.assign(label=np.where(LABEL == 1, "spam", "ham"))
    with pytest.raises(InvalidInputError, match=r"`pos_label`"):
        _run(spam, "roc_auc")
    r = _run(spam, "roc_auc", metric_kwargs={"pos_label": "spam"})
    assert r.estimate == pytest.approx(roc_auc_score(LABEL, COARSE), rel=1e-12)
