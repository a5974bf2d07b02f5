"""Tables read by column names (booteval.distributed): the exact states, their merge, and
the same numbers on pandas, a real Dask LocalCluster and Parquet files."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import booteval
from booteval.core.errors import InvalidInputError
from booteval.core.philox import poisson_weights
from booteval.core.poisson_kernels import poisson_int_sums
from booteval.distributed import StateSpec, merge_states
from booteval.distributed.finish import cell_weights
from booteval.distributed.partitions import fixed_point, histogram_partition, sum_partition
from booteval.metrics import get_metric

RNG = np.random.default_rng(20261125)
N = 6000
LABEL = RNG.integers(0, 3, N)
PRED = np.where(RNG.random(N) < 0.8, LABEL, RNG.integers(0, 3, N))
USERS = np.array([f"user-{u}" for u in RNG.integers(0, 400, N)])  # scattered over partitions
SCORE = RNG.gamma(0.5, 2.0, N)
TABLE = pd.DataFrame({"label": LABEL, "pred": PRED, "user": USERS, "score": SCORE})

CASES = {
    "accuracy": {"y_true": "label", "y_pred": "pred", "metric": "accuracy"},
    "macro_f1_clustered": {
        "y_true": "label", "y_pred": "pred", "metric": "f1",
        "metric_kwargs": {"average": "macro"}, "clusters": "user",
    },
    "mean": {"scores": "score", "method": "percentile"},
    "mean_clustered": {"scores": "score", "method": "basic", "clusters": "user"},
    "mean_clustered_bca": {"scores": "score", "method": "bca", "clusters": "user"},
}  # fmt: skip


def _same(a: booteval.CIResult, b: booteval.CIResult) -> None:
    assert np.array_equal(a.distribution, b.distribution)
    assert (a.estimate, a.low, a.high) == (b.estimate, b.low, b.high)
    assert a.details["distributed"]["digest"] == b.details["distributed"]["digest"]


# --------------------------------------------------------------------------- the kernel


def test_kernel_sums_equal_the_counter_based_weights_times_the_values():
    keys = RNG.integers(0, 2**63, 700).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    values = RNG.integers(-(2**32), 2**32, size=(700, 3))
    for start, stop in ((0, 1), (3, 10), (5, 203)):
        w = poisson_weights(9, keys, start, stop).astype(np.int64)
        assert np.array_equal(poisson_int_sums(9, keys, values, start, stop), w @ values)


def test_fixed_point_limbs_are_the_value_rounded_to_two_to_the_minus_56():
    x = np.concatenate([RNG.normal(size=200) * 10.0 ** RNG.integers(-8, 11, 200), [0.0, -3.0]])
    limbs, where = fixed_point(x[:, None])
    for i, v in enumerate(x):
        exact = sum(int(limbs[i, c]) << s for c, (_, s) in enumerate(where))
        assert abs(Fraction(exact, 2**56) - Fraction(v)) <= Fraction(1, 2**57)


def test_fixed_point_refuses_what_it_cannot_hold():
    with pytest.raises(InvalidInputError, match="below 2\\*\\*39"):
        fixed_point(np.array([[1e12 + 0.5]]))
    with pytest.raises(InvalidInputError, match="finite"):
        fixed_point(np.array([[np.nan]]))


# ------------------------------------------------------------------ states and their merge


def test_states_merge_in_any_order_to_the_state_of_the_whole_table():
    spec = StateSpec("row", "mean", ("score",), "user", 4, 50)
    mean = get_metric("mean")
    parts = [TABLE.iloc[i : i + 1000] for i in range(0, N, 1000)]
    whole = sum_partition(TABLE, spec, mean, 0)
    states = [sum_partition(p, spec, mean, 0) for p in parts]
    for order in (states, states[::-1], states[2:] + states[:2]):
        merged = merge_states(order)
        assert np.array_equal(merged.sums, whole.sums) and merged.digest() == whole.digest()
    hspec = StateSpec("histogram", "accuracy", ("label", "pred"), "user", 4, 50)
    h_whole = histogram_partition(TABLE, hspec)
    h_parts = merge_states([histogram_partition(p, hspec) for p in parts[::-1]])
    assert h_parts.digest() == h_whole.digest() and h_parts.n_rows == N


def test_states_of_different_runs_do_not_merge():
    mean = get_metric("mean")
    a = sum_partition(TABLE, StateSpec("row", "mean", ("score",), None, 4, 50), mean, 0)
    b = sum_partition(TABLE, StateSpec("row", "mean", ("score",), None, 5, 50), mean, 0)
    with pytest.raises(InvalidInputError, match="same run"):
        merge_states([a, b])


def test_a_cells_poisson_weights_are_its_own_stream_in_blocks():
    a = cell_weights(7, [1, 2, 3], np.array([4, 40, 4_000_000]), 700)
    b = cell_weights(7, [3], np.array([4_000_000]), 300)
    assert np.array_equal(a[:300, 2], b[:, 0])
    for c, m in enumerate((4, 40, 4_000_000)):  # Poisson(m): mean m, variance m
        col = a[:, c]
        assert abs(col.mean() - m) < 5 * np.sqrt(m / 700)
        assert 0.75 < col.var(ddof=1) / m < 1.3


# --------------------------------------------------------- pandas tables and in-memory arrays


@pytest.mark.parametrize("case", sorted(CASES))
def test_arrays_with_design_poisson_equal_the_table_run(case):
    kw = dict(CASES[case])
    columns = {k: kw.pop(k) for k in ("y_true", "y_pred", "scores") if k in kw}
    clusters = kw.pop("clusters", None)
    table = booteval.ci(TABLE, seed=11, n_resamples=500, clusters=clusters, **columns, **kw)
    arrays = [TABLE[c].to_numpy() for c in columns.values()]
    groups = TABLE[clusters].to_numpy() if clusters else None
    kw.setdefault("method", "bca")
    mem = booteval.ci(*arrays, seed=11, n_resamples=500, clusters=groups, design="poisson", **kw)
    _same(table, mem)


def test_poisson_tables_agree_with_the_multinomial_bootstrap():
    for kw, arrays in (
        ({"y_true": "label", "y_pred": "pred", "metric": "accuracy"}, (LABEL, PRED)),
        ({"scores": "score"}, (SCORE,)),
    ):
        metric = kw.get("metric")
        p = booteval.ci(TABLE, seed=2, n_resamples=4000, method="percentile", **kw)
        m = booteval.ci(*arrays, metric=metric, seed=2, n_resamples=4000, method="percentile")
        assert p.estimate == pytest.approx(m.estimate, rel=1e-12)
        # the two bootstrap standard errors agree within their Monte Carlo error (about 1.1 %
        # each at B = 4000) plus the Poisson bootstrap's O(1/n) excess
        assert p.standard_error / m.standard_error == pytest.approx(1.0, abs=0.06)
        half = (m.high - m.low) / 2
        assert abs(p.low - m.low) < 0.1 * half and abs(p.high - m.high) < 0.1 * half


def test_histogram_tier_jackknife_gives_the_in_memory_bca_acceleration():
    r = booteval.ci(TABLE, y_true="label", y_pred="pred", metric="accuracy", seed=1,
                    n_resamples=300)  # fmt: skip
    assert r.method == "bca" and "auto" in r.notes[0]
    m = booteval.ci(LABEL, PRED, metric="accuracy", seed=1, n_resamples=300, method="bca")
    assert r.details["acceleration"] == pytest.approx(m.details["acceleration"], rel=1e-9)
    assert r.with_method("percentile").method == "percentile"


def test_table_errors_name_the_parameter_and_the_alternatives():
    with pytest.raises(InvalidInputError, match=r"`method`.*'percentile', 'basic', 'normal'"):
        booteval.ci(TABLE, scores="score", method="bca")
    with pytest.raises(InvalidInputError, match=r"`columns`.*y_true='<column>'"):
        booteval.ci(TABLE, y_true="label", metric="accuracy")
    with pytest.raises(InvalidInputError, match=r"`columns`.*'lable'"):
        booteval.ci(TABLE, y_true="lable", y_pred="pred", metric="accuracy")
    with pytest.raises(InvalidInputError, match=r"`metric`.*pearson"):
        booteval.ci(TABLE, x="score", y="score", metric="pearson", method="normal")
    with pytest.raises(InvalidInputError, match=r"`columns`.*one table.*n_resample"):
        booteval.ci(LABEL, PRED, metric="accuracy", n_resample=100)  # a misspelt parameter
    with pytest.raises(InvalidInputError, match=r"`method`"):
        booteval.ci(TABLE, scores="score", method="studentized")


def test_corpus_bleu_runs_on_a_table_from_sentence_statistics(dask_client):
    import dask.dataframe as dd

    words = np.array("the cat sat on a mat dog ran far away".split())
    refs = [" ".join(RNG.choice(words, 8)) for _ in range(300)]
    hyps = [" ".join(RNG.choice(words, 8)) if RNG.random() < 0.5 else r for r in refs]
    text = pd.DataFrame({"ref": refs, "hyp": hyps})
    kw = {"references": "ref", "hypotheses": "hyp", "metric": "bleu", "seed": 1,
          "n_resamples": 300}  # fmt: skip
    local = booteval.ci(text, **kw)
    assert local.estimate == pytest.approx(booteval.get_metric("bleu")(refs, hyps), rel=1e-12)
    _same(local, booteval.ci(dd.from_pandas(text, npartitions=3), **kw))
    arrays = booteval.ci(refs, hyps, metric="bleu", seed=1, n_resamples=300, design="poisson",
                         method="percentile")  # fmt: skip
    _same(local, arrays)


def test_a_table_says_it_ran_the_poisson_bootstrap():
    r = booteval.ci(TABLE, scores="score", seed=0, n_resamples=200, method="normal")
    assert "Poisson bootstrap over 6000 rows (row tier, pandas, 1 partition)" in r.design
    assert any("design='poisson'" in n for n in r.notes)
    quiet = booteval.ci(TABLE, scores="score", seed=0, n_resamples=200, method="normal",
                        design="poisson")  # fmt: skip
    assert not any("design='poisson'" in n for n in quiet.notes)
    assert np.array_equal(quiet.distribution, r.distribution)


# ------------------------------------------------------------- a real Dask cluster, Parquet


@pytest.mark.parametrize("case", sorted(CASES))
def test_dask_cluster_gives_the_same_numbers_for_any_partitioning(dask_client, case):
    import dask.dataframe as dd

    kw = {"seed": 5, "n_resamples": 400, **CASES[case]}
    local = booteval.ci(TABLE, **kw)
    for parts in (1, 2, 8):
        run = booteval.ci(dd.from_pandas(TABLE, npartitions=parts), **kw)
        assert run.details["distributed"]["engine"] == "dask"
        _same(local, run)


def test_parquet_files_read_by_glob_give_the_same_numbers(dask_client, tmp_path):
    for i, lo in enumerate(range(0, N, 1500)):
        TABLE.iloc[lo : lo + 1500].to_parquet(tmp_path / f"part-{i:02d}.parquet")
    kw = {"seed": 8, "n_resamples": 300, "y_true": "label", "y_pred": "pred",
          "metric": "accuracy", "clusters": "user"}  # fmt: skip
    _same(booteval.ci(TABLE, **kw), booteval.ci(str(tmp_path / "*.parquet"), **kw))
    row = {"seed": 8, "n_resamples": 300, "scores": "score", "method": "percentile"}
    _same(booteval.ci(TABLE, **row), booteval.ci(str(tmp_path / "*.parquet"), **row))


@pytest.mark.parametrize("name", ["log_loss", "brier"])
def test_log_loss_and_brier_run_on_the_row_tier(name, dask_client):
    import dask.dataframe as dd
    from sklearn.metrics import brier_score_loss, log_loss

    y = (LABEL == 1).astype(int)
    p = np.clip(0.3 + 0.4 * y * RNG.random(N) + 0.2 * RNG.random(N), 0.01, 0.99)
    table = pd.DataFrame({"y": np.where(y == 1, "spam", "ham"), "p": p, "user": USERS})
    kw = {"y_true": "y", "y_score": "p", "metric": name, "metric_kwargs": {"pos_label": "spam"},
          "seed": 2, "n_resamples": 1000, "clusters": "user"}  # fmt: skip
    r = booteval.ci(table, **kw)
    truth = {"log_loss": log_loss, "brier": brier_score_loss}[name](y, p)
    assert r.estimate == pytest.approx(truth, rel=1e-12)
    assert r.details["distributed"]["tier"] == "row" and r.method == "percentile"
    m = booteval.ci(y, p, metric=name, clusters=USERS, seed=2, n_resamples=1000,
                    method="percentile")  # fmt: skip
    assert r.standard_error / m.standard_error == pytest.approx(1.0, abs=0.1)
    _same(r, booteval.ci(dd.from_pandas(table.sample(frac=1.0, random_state=1),
                                        npartitions=4), **kw))  # fmt: skip
    # a third class anywhere in the column is refused, even where no partition holds all
    three = table.assign(y=np.where(np.arange(N) < 10, "eggs", table["y"]))
    parts = dd.concat([dd.from_pandas(three[:10], npartitions=1),
                       dd.from_pandas(three[10:], npartitions=2)])  # fmt: skip
    with pytest.raises(InvalidInputError, match=r"binary labels.*3 classes"):
        booteval.ci(parts, **kw)


def test_row_tier_with_clusters_gives_the_in_memory_bca_jackknife():
    kw = {"seed": 1, "n_resamples": 300, "clusters": "user"}
    r = booteval.ci(TABLE, scores="score", method="bca", **kw)
    m = booteval.ci(SCORE, seed=1, n_resamples=300, clusters=USERS, method="bca")
    assert r.details["acceleration"] == pytest.approx(m.details["acceleration"], rel=1e-9)
    assert r.method == "bca" and r.with_method("percentile").method == "percentile"
    # compare's BCa: the difference's jackknife is B's minus A's, per cluster
    other = TABLE.assign(s2=SCORE + RNG.normal(0.1, 0.5, N))
    c = booteval.compare(other, scores=["score", "s2"], method="bca", **kw)
    cm = booteval.compare(SCORE, other["s2"].to_numpy(), clusters=USERS, seed=1,
                          n_resamples=300, method="bca")  # fmt: skip
    assert c.method == "bca"
    assert c.details["acceleration"] == pytest.approx(cm.details["acceleration"], rel=1e-9)
    # without clusters, or where the run kept no jackknife, BCa is refused with the reason
    with pytest.raises(InvalidInputError, match=r"`method`.*without clusters"):
        booteval.ci(TABLE, scores="score", method="bca", seed=1)
    with pytest.raises(InvalidInputError, match=r"`method`.*'percentile', 'basic', 'normal'"):
        booteval.ci(TABLE, scores="score", method="percentile", **kw).with_method("bca")
