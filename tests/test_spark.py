"""Tables on a local Spark session: the same numbers as pandas and Dask for any
partitioning. Needs the ``spark`` extra and a Java runtime; skipped, saying which is
missing, where either is (the CI installs the extra in an optional step)."""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

import booteval
from test_distributed import CASES, TABLE, _same

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'booteval[spark]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime for Spark (install a JDK, e.g. openjdk-17-jre-headless)",
                allow_module_level=True)  # fmt: skip


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _partitioned(spark, parts: int):
    """The table as ``parts`` Spark partitions of consecutive rows, in row order."""
    rows = [tuple(r) for r in TABLE.itertuples(index=False)]
    rdd = spark.sparkContext.parallelize(rows, numSlices=parts)
    return spark.createDataFrame(rdd, "label long, pred long, user string, score double")


@pytest.mark.parametrize("case", sorted(CASES))
def test_spark_gives_the_pandas_numbers_for_any_partitioning(spark, case):
    kw = {"seed": 5, "n_resamples": 400, **CASES[case]}
    local = booteval.ci(TABLE, **kw)
    for parts in (1, 2, 8):
        frame = _partitioned(spark, parts)
        assert frame.rdd.getNumPartitions() == parts
        run = booteval.ci(frame, **kw)
        assert run.details["distributed"]["engine"] == "spark"
        _same(local, run)


def test_spark_reads_a_shuffled_table_the_same_where_rows_are_keyed_by_cluster(spark):
    kw = {"seed": 3, "n_resamples": 300, **CASES["mean_clustered"]}
    shuffled = spark.createDataFrame(TABLE).repartition(5)  # rows in another order
    _same(booteval.ci(TABLE, **kw), booteval.ci(shuffled, **kw))
    assert isinstance(TABLE, pd.DataFrame)


def test_spark_compare_and_leaderboard_give_the_pandas_numbers(spark):
    from test_distributed_systems import ACC
    from test_distributed_systems import TABLE as SYSTEMS

    kw = {"seed": 2, "n_resamples": 300, "clusters": "user"}
    sdf = spark.createDataFrame(SYSTEMS).repartition(3)
    local, remote = booteval.compare(SYSTEMS, **ACC, **kw), booteval.compare(sdf, **ACC, **kw)
    assert np.array_equal(local.distribution, remote.distribution)
    assert (local.low, local.high) == (remote.low, remote.high)
    board = {"system_cols": ["a", "b", "c"], "label_col": "label", "metric": "accuracy"}
    a, b = booteval.leaderboard(SYSTEMS, **board, **kw), booteval.leaderboard(sdf, **board, **kw)
    assert np.array_equal(a.distribution, b.distribution) and a.names == b.names


def test_spark_runs_rank_metrics_and_pass_at_k_with_the_pandas_numbers(spark):
    from test_distributed_ranks import TABLE as RANKS
    from test_distributed_samples import TABLE as SAMPLES

    kw = {"seed": 2, "n_resamples": 300, "clusters": "user"}
    auc = {"y_true": "label", "y_score": "raw", "metric": "roc_auc"}
    local = booteval.ci(RANKS, **auc, **kw)
    remote = booteval.ci(spark.createDataFrame(RANKS).repartition(4), **auc, **kw)
    _same(local, remote)
    pk = {"k": 2, "correct_col": "ok", "clusters": "repo", "seed": 2, "n_resamples": 300}
    local = booteval.pass_at_k(SAMPLES, "task", **pk)
    remote = booteval.pass_at_k(spark.createDataFrame(SAMPLES).repartition(3), "task", **pk)
    _same(local, remote)
