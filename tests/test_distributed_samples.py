"""pass@k on a table of samples: the histogram tier counts each problem's samples and
correct ones, the same numbers for any partitioning, close to the in-memory path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import booteval
from booteval.core.errors import InvalidInputError

RNG = np.random.default_rng(3)
P, S = 300, 8
SOLVE = RNG.beta(0.5, 0.8, P)
CORRECT = (RNG.random((P, S)) < SOLVE[:, None]).astype(int).ravel()
ITEMS = np.repeat([f"task/{i}" for i in range(P)], S)
CLUSTERS = np.repeat(RNG.integers(0, 40, P), S)
TABLE = pd.DataFrame({"task": ITEMS, "ok": CORRECT, "repo": CLUSTERS})


@pytest.mark.parametrize("clustered", [False, True])
def test_pass_at_k_on_a_table_agrees_with_the_in_memory_path(clustered: bool) -> None:
    kw = {"k": 3, "seed": 1, "n_resamples": 2000, "method": "bca"}
    r = booteval.pass_at_k(TABLE, "task", correct_col="ok",
                           clusters="repo" if clustered else None, **kw)  # fmt: skip
    m = booteval.pass_at_k(CORRECT, ITEMS, clusters=CLUSTERS if clustered else None, **kw)
    assert r.estimate == pytest.approx(m.estimate, rel=1e-12)
    assert (r.n, r.n_clusters) == (m.n, m.n_clusters) == (P, 40 if clustered else None)
    assert r.metric == "pass@3" and r.method == "bca"
    assert f"over {P} problems" in r.design and r.details["distributed"]["samples"] == P * S
    # the jackknife leaves one problem (or cluster) out, as in memory: the same acceleration
    assert r.details["acceleration"] == pytest.approx(m.details["acceleration"], rel=1e-9)
    assert r.standard_error / m.standard_error == pytest.approx(1.0, abs=0.08)
    half = (m.high - m.low) / 2
    assert abs(r.low - m.low) < 0.15 * half and abs(r.high - m.high) < 0.15 * half


def test_a_problem_split_over_partitions_gives_the_same_numbers(dask_client) -> None:
    import dask.dataframe as dd

    kw = {"k": 2, "seed": 4, "n_resamples": 500, "correct_col": "ok"}
    for clusters in (None, "repo"):
        local = booteval.pass_at_k(TABLE, "task", clusters=clusters, **kw)
        shuffled = dd.from_pandas(TABLE.sample(frac=1.0, random_state=2), npartitions=7)
        other = booteval.pass_at_k(shuffled, "task", clusters=clusters, **kw)
        assert np.array_equal(local.distribution, other.distribution)
        assert (local.low, local.high) == (other.low, other.high)
        assert local.details["distributed"]["digest"] == other.details["distributed"]["digest"]


def test_pass_at_k_table_errors_name_the_parameter() -> None:
    with pytest.raises(InvalidInputError, match=r"`ok`.*0/1"):
        booteval.pass_at_k(TABLE.assign(ok=TABLE["ok"] * 2), "task", correct_col="ok")
    with pytest.raises(InvalidInputError, match=r"`correct_col`.*column name"):
        booteval.pass_at_k(TABLE, "task")
    with pytest.raises(InvalidInputError, match=r"`correct`.*a table"):
        booteval.pass_at_k(CORRECT, ITEMS, correct_col="ok")
    with pytest.raises(InvalidInputError, match=r"`k`.*at most the smallest"):
        booteval.pass_at_k(TABLE, "task", k=S + 1, correct_col="ok")
    moved = TABLE.assign(repo=np.where(np.arange(P * S) == 0, -1, CLUSTERS))
    with pytest.raises(InvalidInputError, match=r"`clusters`.*same cluster"):
        booteval.pass_at_k(moved, "task", correct_col="ok", clusters="repo")
