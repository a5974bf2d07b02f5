"""Smoke tests of the benchmark command: its workloads run and measure what they say."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
bench_core = pytest.importorskip("bench_core")

REFERENCE = {
    "macro_f1": lambda d: bench_core.macro_f1_stat(*d),
    "mean_bca": lambda d: np.mean(d[0]),
    "mean_percentile": lambda d: np.mean(d[0]),
    "accuracy": lambda d: bench_core.accuracy_stat(*d),
    "roc_auc": lambda d: bench_core.auc_stat(*d),
    "paired_accuracy": lambda d: bench_core.paired_accuracy_stat(*d),
    "cluster_mean": lambda d: np.mean(d[0]),
}


@pytest.mark.parametrize("name", list(REFERENCE))
def test_each_workload_runs_booteval_on_its_data(name: str) -> None:
    data, call = bench_core.job(name, 3000)
    res = call(200, "numpy")
    estimate = res.difference if name == "paired_accuracy" else res.estimate
    assert math.isclose(estimate, float(REFERENCE[name](data)), rel_tol=1e-9, abs_tol=1e-12)
    assert res.n_resamples == 200


def test_every_workload_has_an_id_and_sizes() -> None:
    names = set(bench_core.WORKLOADS)
    assert names == set(bench_core.IDS) == set(bench_core.FULL) == set(bench_core.QUICK)
    assert {bench_core.IDS[n] for n in names} == {f"W{i}" for i in range(1, 8)}
    assert all(workload in names for workload, _ in bench_core.BARS)


@pytest.mark.slow
def test_one_quick_workload_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--quick", "--only", "accuracy", "--skip-memory", "--max-peer-seconds", "5"]
    assert bench_core.main(argv) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| W2 | accuracy"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3] == "scipy.stats.bootstrap"
    assert float(cells[4]) > 0 and cells[9] == ">= 1,000x"
    assert cells[10] == "-"  # the bar is judged at the full sizes only


def test_memory_child_reports_the_peak() -> None:
    r = bench_core.child_memory("accuracy", 20_000, 200, "numpy")
    assert r["peak_mib"] >= r["base_mib"] > 0 and r["seconds"] > 0


@pytest.mark.parametrize(
    ("peer_s", "fast_s", "met"),
    [(200.0, None, "yes"), (50.0, None, "**no**"), (50.0, 0.01, "yes (numba)")],
)
def test_summary_judges_the_bar_at_full_size(peer_s: float, fast_s: float | None, met: str) -> None:
    row = bench_core.Row(
        "accuracy", "percentile", "scipy.stats.bootstrap", 1_000_000, 10_000, 0.85,
        0.1, 10.0, (0.8, 0.9), peer_s=peer_s, fast_s=fast_s,
    )  # fmt: skip
    line = bench_core.summary_table([row]).splitlines()[-1]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[0] == "W2" and cells[9] == ">= 1,000x" and cells[10] == met


def test_the_engine_benchmarks_floor_draws_every_block_once() -> None:
    bench_engine = pytest.importorskip("bench_engine")
    for b, threads in [(7, 2), (10_000, 2), (3, 8), (16, 16)]:
        per = bench_engine.blocks_per_thread(b, threads)
        assert sum(per) == b and len(per) == threads and max(per) - min(per) <= 1
    assert set(bench_engine.FULL) == set(bench_engine.QUICK)


def test_the_cluster_benchmark_writes_its_log_once_and_checks_the_estimates(tmp_path):
    pytest.importorskip("distributed")
    bench_cluster = pytest.importorskip("bench_cluster")
    folder = bench_cluster.ensure_data(tmp_path, rows=3001, files=2, users=50, seed=0)
    stamp = (folder / "part-00000.parquet").stat().st_mtime_ns
    assert bench_cluster.ensure_data(tmp_path, rows=3001, files=2, users=50, seed=0) == folder
    assert (folder / "part-00000.parquet").stat().st_mtime_ns == stamp  # reused, not rewritten
    direct = bench_cluster.direct_estimates(folder)
    table = pd.concat(pd.read_parquet(f) for f in sorted(folder.glob("*.parquet")))
    exact = roc_auc_score(table["label"], table["score"])
    assert direct["roc_auc"] == pytest.approx(exact, rel=1e-12)
    res = bench_cluster.run_one("accuracy_clustered", folder, b=200, workers=1)
    assert res["rows"] == 3001 and res["clusters"] == 50 and res["partitions"] == 2
    assert res["estimate"] == pytest.approx(direct["accuracy"], rel=1e-12)
    assert res["worker_peak_mib"][0] > 0 and res["wall_s"] > 0
    kern = bench_cluster.kernel_ns(4096, 16)
    assert 0 < kern["rng_floor"] < kern["mean_limbs"]


def test_the_families_comparison_gives_a_candidate_the_default_s_outcome_where_it_is_a_point():
    """A candidate's interval that no default may give (a bootstrap-t flagged as having an
    infinite end; any interval but the score interval where every row is alike, which is
    then a point) counts as the default's outcome on that data set, and nowhere else."""
    fit = pytest.importorskip("atlas_families_fit")
    default = np.array([True, True, False, True])
    bits = {
        "cr2": np.array([False, True, True, False]),
        "clustered-wilson": np.array([False, False, False, False]),
        "studentized-logit": np.array([True, False, True, True]),
        "auto": default,
    }
    record = {"kind": "proportion", "minority": [0, 3, 5, 7],
              "infinite_end": {"studentized-logit": "0010"}}  # fmt: skip
    ok = fit.usable(bits, record, default)
    assert ok["cr2"].tolist() == [True, True, True, False]  # the first data set: all alike
    assert ok["clustered-wilson"].tolist() == [False] * 4  # keeps its width: its own outcome
    assert ok["studentized-logit"].tolist() == [True, False, False, True]
    assert ok["auto"] is default
    assert fit.usable(bits, {"kind": "mean"}, default)["cr2"] is bits["cr2"]
