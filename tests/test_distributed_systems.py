"""compare and leaderboard on tables read by column names: several systems on the same
rows' Poisson(1) weights, the same numbers on pandas and a real Dask LocalCluster."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import booteval
from booteval.core.errors import InvalidInputError

RNG = np.random.default_rng(7)
N = 5000
LABEL = RNG.integers(0, 2, N)
PRED_A = np.where(RNG.random(N) < 0.78, LABEL, 1 - LABEL)
PRED_B = np.where(RNG.random(N) < 0.5, PRED_A, LABEL)  # B fixes about half of A's errors
PRED_C = np.where(RNG.random(N) < 0.70, LABEL, 1 - LABEL)
USERS = RNG.integers(0, 300, N)
SCORE_A = RNG.beta(2, 2, N)
SCORE_B = np.clip(SCORE_A + RNG.normal(0.03, 0.1, N), 0, 1)
TABLE = pd.DataFrame({
    "label": LABEL, "a": PRED_A, "b": PRED_B, "c": PRED_C, "user": USERS,
    "score_a": SCORE_A, "score_b": SCORE_B,
})  # fmt: skip
ACC = {"metric": "accuracy", "y_true": "label", "y_pred": ["a", "b"]}


def _same_comparison(
    x: booteval.results.ComparisonResult, y: booteval.results.ComparisonResult
) -> None:
    assert np.array_equal(x.distribution, y.distribution)
    assert (x.difference, x.low, x.high, x.p_value) == (y.difference, y.low, y.high, y.p_value)
    assert x.details["distributed"]["digest"] == y.details["distributed"]["digest"]


def _entries(board: booteval.results.LeaderboardResult) -> list[tuple]:
    return [(e.name, e.estimate, e.low, e.high, e.rank_low, e.rank_high, e.letters)
            for e in board.entries]  # fmt: skip


def test_compare_on_a_table_is_the_paired_difference_of_the_systems():
    r = booteval.compare(TABLE, seed=3, n_resamples=2000, clusters="user", **ACC)
    acc_a, acc_b = (PRED_A == LABEL).mean(), (PRED_B == LABEL).mean()
    assert (r.estimate_a, r.estimate_b) == pytest.approx((acc_a, acc_b), rel=1e-12)
    assert r.difference == pytest.approx(acc_b - acc_a, rel=1e-12)
    assert np.array_equal(r.distribution, r.distribution_b - r.distribution_a)
    assert r.method == "bca" and r.excludes_zero and r.p_value < 0.01
    assert "paired cluster Poisson bootstrap over 5000 rows in 300 clusters" in r.design
    # the in-memory multinomial compare agrees within Monte Carlo error
    m = booteval.compare(LABEL, PRED_A, PRED_B, metric="accuracy", clusters=USERS, seed=3,
                         n_resamples=2000)  # fmt: skip
    assert r.standard_error / m.standard_error == pytest.approx(1.0, abs=0.08)
    half = (m.high - m.low) / 2
    assert abs(r.low - m.low) < 0.15 * half and abs(r.high - m.high) < 0.15 * half


def test_row_tier_systems_share_each_units_weights_exactly():
    kw = {"seed": 4, "n_resamples": 300, "method": "percentile", "clusters": "user"}
    r = booteval.compare(TABLE, scores=["score_a", "score_b"], **kw)
    a = booteval.ci(TABLE, scores="score_a", **kw)
    b = booteval.ci(TABLE, scores="score_b", **kw)
    # a system's replicates are those of its own ci: the same weight for every cluster
    assert np.array_equal(r.distribution_a, a.distribution)
    assert np.array_equal(r.distribution_b, b.distribution)
    assert r.interval_a == (a.low, a.high)
    with pytest.raises(InvalidInputError, match=r"`method`.*'percentile', 'basic', 'normal'"):
        booteval.compare(TABLE, scores=["score_a", "score_b"], method="bca")  # no clusters
    # the default, "auto", takes the table's own rule, as ci does
    d = booteval.compare(TABLE, scores=["score_a", "score_b"], seed=4, n_resamples=300)
    assert d.method == "percentile" and any("method='auto'" in x for x in d.notes)


def test_leaderboard_on_a_table_ranks_the_systems():
    board = booteval.leaderboard(
        TABLE, system_cols={"A": "a", "B": "b", "C": "c"}, label_col="label",
        metric="accuracy", seed=1, n_resamples=2000, clusters="user",
    )  # fmt: skip
    assert board.names == ("B", "A", "C") and board.top_group == ("B",)
    est = {e.name: e.estimate for e in board.entries}
    for name, pred in (("A", PRED_A), ("B", PRED_B), ("C", PRED_C)):
        assert est[name] == pytest.approx((pred == LABEL).mean(), rel=1e-12)
    pair = board.pairs[0]
    c = booteval.compare(TABLE, metric="accuracy", y_true="label", y_pred=["a", "b"], seed=1,
                         n_resamples=2000, clusters="user")  # fmt: skip
    # the pair's difference is compare's estimate; its replicates come from other cells
    assert (pair.name_a, pair.name_b) == ("A", "B")
    assert pair.difference == pytest.approx(c.difference, rel=1e-12)
    assert board.method == "bca" and "Poisson bootstrap" in board.design
    scores = booteval.leaderboard(
        TABLE, system_cols=["score_a", "score_b"], method="percentile", seed=1,
        n_resamples=500,
    )  # fmt: skip
    assert scores.names == ("score_b", "score_a")


def test_table_systems_errors_name_the_parameter():
    with pytest.raises(InvalidInputError, match=r"`test`.*'bootstrap' for a table"):
        booteval.compare(TABLE, test="mcnemar", **ACC)
    with pytest.raises(InvalidInputError, match=r"`y_pred`.*list of 2 column names"):
        booteval.compare(TABLE, metric="accuracy", y_true="label", y_pred=["a", "b", "c"])
    with pytest.raises(InvalidInputError, match=r"`columns`.*one per system"):
        booteval.compare(TABLE, metric="accuracy", y_true="label", y_pred="a")
    with pytest.raises(InvalidInputError, match=r"`system_cols`.*at least two"):
        booteval.leaderboard(TABLE, system_cols=["a"], label_col="label", metric="accuracy")
    with pytest.raises(InvalidInputError, match=r"`label_col`.*a column name"):
        booteval.leaderboard(TABLE, system_cols=["a", "b"], metric="accuracy")
    with pytest.raises(InvalidInputError, match=r"`y_true`.*label_col"):
        booteval.leaderboard(TABLE, system_cols=["a", "b"], y_true=LABEL, metric="accuracy")


def test_compare_and_leaderboard_give_the_same_numbers_on_dask(dask_client):
    import dask.dataframe as dd

    kw = {"seed": 6, "n_resamples": 400, "clusters": "user"}
    local = booteval.compare(TABLE, **ACC, **kw)
    rows = booteval.compare(TABLE, scores=["score_a", "score_b"], method="basic", **kw)
    board_kw = {"system_cols": ["a", "b", "c"], "label_col": "label", "metric": "accuracy"}
    board = booteval.leaderboard(TABLE, **board_kw, **kw)
    for parts in (2, 8):
        ddf = dd.from_pandas(TABLE.sample(frac=1.0, random_state=parts), npartitions=parts)
        _same_comparison(local, booteval.compare(ddf, **ACC, **kw))
        _same_comparison(
            rows, booteval.compare(ddf, scores=["score_a", "score_b"], method="basic", **kw)
        )
        other = booteval.leaderboard(ddf, **board_kw, **kw)
        assert np.array_equal(other.distribution, board.distribution)
        assert _entries(other) == _entries(board) and "dask" in other.design


def test_one_column_may_feed_two_inputs():
    r = booteval.ci(TABLE, metric="accuracy", y_true="a", y_pred="a", seed=0, n_resamples=100,
                    method="percentile")  # fmt: skip
    assert r.estimate == 1.0 and r.details["distributed"]["tier"] == "histogram"
