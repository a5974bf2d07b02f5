#!/usr/bin/env python
"""Tables on a Dask cluster: 10^8 rows from Parquet, B = 1,000, with clusters.

Usage::

    python benchmarks/bench_cluster.py                 # 10^8 rows, 100 files (~6 min)
    python benchmarks/bench_cluster.py --rows 1e6 --files 4     # a smoke run (~30 s)
    python benchmarks/bench_cluster.py --json out.json

The data (written once, then reused, under ``--dir``; by default the user cache
directory): ``--files`` Parquet files of an evaluation log, one row per graded item, with
``user_id`` (``--users`` users, spread over every file as in a log partitioned by time),
``label`` and ``pred`` (binary; the chance that the prediction is right depends on the
user) and ``score`` (a judge's score in [0, 1], float64, also depending on the user).

Each workload runs in a fresh process that starts a ``distributed.LocalCluster`` of
``--workers`` worker processes with one thread each (loopback), calls ``booteval.ci`` on
the Parquet glob, and reports:

* wall time of the call (reading the Parquet files included);
* CPU time of the workers and of the driver (which holds the scheduler, merges the last
  states and computes the interval), and CPU-ns per row-replicate:
  ``CPU seconds / (rows x B)``;
* the peak resident memory of each worker process (``ru_maxrss``: imports included) and
  of the driver;
* the estimate, checked against the same statistic computed directly with pandas (for
  ROC-AUC, the exact value from the midranks of all scores, which the rank tier's
  histogram must match within the tie bound it states).

Before the workloads, the script measures in the same run the row tier's kernel
(:func:`booteval.core.poisson_kernels.poisson_int_sums`, one thread) per unit-replicate,
and the RNG floor: the same kernel with no columns to sum (Philox4x32-10 and the
Poisson(1) counts alone).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

WORKLOADS = {
    # name: (metric, columns, clustered)
    "accuracy_clustered": ("accuracy", {"y_true": "label", "y_pred": "pred"}, True),
    "accuracy": ("accuracy", {"y_true": "label", "y_pred": "pred"}, False),
    "mean_clustered": ("mean", {"scores": "score"}, True),
    "mean": ("mean", {"scores": "score"}, False),
    "roc_auc": ("roc_auc", {"y_true": "label", "y_score": "score"}, False),
}


def default_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "booteval" / "bench_cluster"


def make_file(i: int, rows: int, users: int, seed: int) -> Any:
    """File ``i`` of the log: a pandas DataFrame of ``rows`` rows."""
    import pandas as pd

    effect = np.random.default_rng([seed, 0]).normal(size=users)  # one per user
    rng = np.random.default_rng([seed, 1, i])
    user = rng.integers(0, users, rows)
    label = (rng.random(rows) < 0.3).astype(np.int8)
    right = rng.random(rows) < 1 / (1 + np.exp(-(1.7 + 0.8 * effect[user])))
    pred = np.where(right, label, 1 - label).astype(np.int8)
    score = np.clip(0.6 + 0.1 * effect[user] + 0.2 * rng.normal(size=rows), 0.0, 1.0)
    return pd.DataFrame({"user_id": user, "label": label, "pred": pred, "score": score})


def ensure_data(where: Path, rows: int, files: int, users: int, seed: int) -> Path:
    """The Parquet files (written unless a manifest says they are there already)."""
    spec = {"rows": rows, "files": files, "users": users, "seed": seed, "version": 1}
    folder = where / f"rows{rows}_files{files}_users{users}_seed{seed}"
    manifest = folder / "manifest.json"
    if manifest.exists() and json.loads(manifest.read_text()) == spec:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    per = [rows // files + (i < rows % files) for i in range(files)]
    for i, n in enumerate(per):
        make_file(i, n, users, seed).to_parquet(folder / f"part-{i:05d}.parquet", index=False)
    manifest.write_text(json.dumps(spec))
    print(f"wrote {rows:,} rows in {files} files to {folder} in {time.perf_counter() - t0:.0f} s")
    return folder


def kernel_ns(n: int, b: int) -> dict[str, float]:
    """The row tier's kernel (one thread) per unit-replicate: no columns (the RNG floor),
    and the four 64-bit limbs of a mean of floats (a count and three limbs of the value)."""
    from booteval.core.poisson_kernels import poisson_int_sums

    keys = np.random.default_rng(0).integers(0, 2**63, n).astype(np.uint64)
    out = {}
    for name, cols in (("rng_floor", 0), ("mean_limbs", 4)):
        values = np.random.default_rng(1).integers(0, 2**32, (n, cols))
        poisson_int_sums(0, keys[:64], values[:64], 0, 8)  # compile or load
        best = min(_timed(lambda v=values: poisson_int_sums(0, keys, v, 0, b)) for _ in range(2))
        out[name] = best / (n * b) * 1e9
    return out


def _timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _usage() -> tuple[float, float]:
    """CPU seconds and peak resident MiB of this process."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_maxrss / 1024


def run_one(name: str, folder: Path, b: int, workers: int) -> dict[str, Any]:
    """One workload in this (fresh) process, on a fresh LocalCluster."""
    from distributed import Client, LocalCluster

    import booteval

    metric, columns, clustered = WORKLOADS[name]
    glob = str(folder / "*.parquet")
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, memory_limit=0,
        ) as cluster,
        Client(cluster) as client,
    ):  # fmt: skip
        client.run(lambda: __import__("booteval.distributed.partitions"))  # imports, kernel
        before = client.run(_usage)
        cpu0, wall0 = _usage()[0], time.perf_counter()
        r = booteval.ci(
            glob, metric=metric, n_resamples=b, seed=0,
            clusters="user_id" if clustered else None, **columns,
        )  # fmt: skip
        wall = time.perf_counter() - wall0
        driver_cpu = _usage()[0] - cpu0
        after = client.run(_usage)
    worker_cpu = sum(after[w][0] - before[w][0] for w in after)
    return {
        "workload": name, "metric": metric, "clustered": clustered, "B": b,
        "rows": r.n, "clusters": r.n_clusters, "partitions": r.details["distributed"]["partitions"],
        "tier": r.details["distributed"]["tier"], "method": r.method,
        "estimate": r.estimate, "low": r.low, "high": r.high, "wall_s": wall,
        "worker_cpu_s": worker_cpu, "driver_cpu_s": driver_cpu,
        "worker_peak_mib": sorted(after[w][1] for w in after), "driver_peak_mib": _usage()[1],
        "digest": r.details["distributed"]["digest"],
        "tie_bound": r.details["distributed"].get("rank", {}).get("tie_bound", 0.0),
    }  # fmt: skip


def direct_estimates(folder: Path) -> dict[str, float]:
    """Accuracy, mean score and ROC-AUC (from the midranks of all scores) from the files
    with pandas and scipy (the check of the estimates)."""
    import pandas as pd
    from scipy.stats import rankdata

    right = total = 0
    score = 0.0
    labels, scores = [], []
    for f in sorted(folder.glob("*.parquet")):
        t = pd.read_parquet(f, columns=["label", "pred", "score"])
        right += int((t["label"] == t["pred"]).sum())
        total += len(t)
        score += float(t["score"].sum())
        labels.append(t["label"].to_numpy() == 1)
        scores.append(t["score"].to_numpy())
    pos = np.concatenate(labels)
    ranks = rankdata(np.concatenate(scores))
    n_pos = int(pos.sum())
    n_neg = pos.size - n_pos
    auc = (float(ranks[pos].sum()) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    return {"accuracy": right / total, "mean": score / total, "roc_auc": auc}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e8)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--users", type=float, default=1e6)
    ap.add_argument("--B", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--dir", type=Path, default=default_dir())
    ap.add_argument("--only", action="append", choices=sorted(WORKLOADS))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--run-one", choices=sorted(WORKLOADS), help=argparse.SUPPRESS)
    ap.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run_one:
        print(json.dumps(run_one(args.run_one, args.folder, args.B, args.workers)))
        return
    rows, users = int(args.rows), int(args.users)
    folder = ensure_data(args.dir, rows, args.files, users, seed=0)
    import booteval

    print(
        f"machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}, NumPy {np.__version__}, "
        f"booteval {booteval.__version__}"
    )
    kern = kernel_ns(1_000_000, args.B)
    print(
        f"kernel, one thread, 10^6 units x B={args.B}: RNG floor {kern['rng_floor']:.2f} "
        f"ns per unit-replicate; a mean's 4 limbs {kern['mean_limbs']:.2f} ns"
    )
    results = []
    for name in args.only or list(WORKLOADS):
        cmd = [sys.executable, __file__, "--run-one", name, "--folder", str(folder)]
        cmd += ["--B", str(args.B), "--workers", str(args.workers)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode:
            print(done.stderr[-3000:])
            raise SystemExit(f"{name} failed")
        res = json.loads(done.stdout.strip().splitlines()[-1])
        cpu = res["worker_cpu_s"] + res["driver_cpu_s"]
        res["ns_per_row_rep"] = cpu / (res["rows"] * res["B"]) * 1e9
        results.append(res)
    # after the workloads: a child's peak memory on Linux includes its parent's at fork
    direct = direct_estimates(folder)
    for res in results:
        expected = direct[res["metric"]]
        # a rank metric's histogram may tie scores: within its stated tie bound
        slack = res["tie_bound"] + 1e-12 * max(1.0, abs(expected))
        res["estimate_ok"] = abs(res["estimate"] - expected) <= slack
    print()
    head = "| workload | tier | rows | clusters | parts | wall s | CPU s (workers + driver) "
    head += "| CPU-ns / row-rep | peak MiB per worker | driver MiB | estimate (interval) |"
    print(head)
    print("|" + "---|" * 11)
    for r in results:
        clusters = f"{r['clusters']:,}" if r["clusters"] else "-"
        print(
            f"| {r['workload']} | {r['tier']} | {r['rows']:,} | {clusters} | {r['partitions']} "
            f"| {r['wall_s']:.1f} | {r['worker_cpu_s']:.1f} + {r['driver_cpu_s']:.1f} "
            f"| {r['ns_per_row_rep']:.3f} | {', '.join(f'{m:.0f}' for m in r['worker_peak_mib'])} "
            f"| {r['driver_peak_mib']:.0f} | {r['estimate']:.5f} ({r['low']:.5f}, "
            f"{r['high']:.5f}) {r['method']}{'' if r['estimate_ok'] else ' ESTIMATE WRONG'} |"
        )
    if args.json:
        args.json.write_text(json.dumps({"kernel_ns": kern, "results": results}, indent=1))


if __name__ == "__main__":
    main()
