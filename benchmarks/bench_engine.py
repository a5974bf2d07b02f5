#!/usr/bin/env python
"""The default engine against its peers and against the machine's floor, in one run.

Usage::

    python benchmarks/bench_engine.py                # the table of benchmarks/README.md (~6 min)
    python benchmarks/bench_engine.py --quick        # smaller sizes, a smoke run (~1 min)
    python benchmarks/bench_engine.py --json out.json

Every booteval call uses the default engine (``engine="auto"``: the compiled kernels where
they apply), after one small warm-up call so that the kernels are loaded from the on-disk
cache as they are in any process after the first use. A booteval call under two seconds is
timed three times and the best kept; the peers, which take seconds to minutes, run once.
The peers run on the same arrays: ``scipy.stats.bootstrap`` (vectorized; extrapolated from
a shorter run beyond ``--max-peer-seconds``, as in ``bench_core.py``) and a scikit-learn
``roc_auc_score`` loop. The floor is the time NumPy's PCG64 takes to draw the same number
of bounded random integers (``B x n`` indices below ``n``) into a buffer of ``n`` on all
cores, one thread per core; no bootstrap can draw its indices faster with that generator.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_core as bc  # the peers and the data of the main benchmark

import booteval

FULL = {"w1": 100_000, "w3": 30_000, "w3_bca": 100_000, "big": 1_000_000, "w5": 1_000_000}
QUICK = {"w1": 20_000, "w3": 5_000, "w3_bca": 10_000, "big": 100_000, "w5": 100_000}


def blocks_per_thread(b: int, threads: int) -> list[int]:
    """``b`` blocks shared out as evenly as possible over ``threads``."""
    return [b // threads + (1 if i < b % threads else 0) for i in range(threads)]


def floor_seconds(n: int, b: int, threads: int) -> float:
    """PCG64 drawing ``b`` blocks of ``n`` bounded integers below ``n`` on ``threads``."""
    per = blocks_per_thread(b, threads)

    def work(i: int) -> None:
        gen = np.random.Generator(np.random.PCG64(i))
        buf = np.empty(n, dtype=np.int64)
        for _ in range(per[i]):
            buf[:] = gen.integers(0, n, size=n)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as ex:
        list(ex.map(work, range(threads)))
    return time.perf_counter() - t0


def timed(fn: Any, short: float = 2.0, repeat: int = 3) -> tuple[Any, float]:
    """The result of ``fn()`` and its wall time; a call shorter than ``short`` seconds is
    timed ``repeat`` times and the best kept (as ``timeit`` does: on a shared machine the
    noise only ever adds time, and it is large against a fraction of a second)."""
    best = float("inf")
    for i in range(repeat):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn()
        best = min(best, time.perf_counter() - t0)
        if i == 0 and best >= short:
            break
    return out, best


def fresh_process_ci() -> float:
    """Wall time of ``booteval ci`` on a small file in a fresh process, after a first use."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scores.csv")
        x = np.random.default_rng(0).random(500)
        with open(path, "w") as f:
            f.write("score\n" + "\n".join(f"{v:.6f}" for v in x) + "\n")
        exe = shutil.which("booteval")  # the console script, as a user runs it
        cmd = (
            [exe]
            if exe
            else [
                sys.executable,
                "-c",
                "import sys; from booteval.cli import main; sys.exit(main())",
            ]
        )
        cmd += ["ci", path, "--score", "score", "-B", "2000", "--seed", "1"]  # fmt: skip
        subprocess.run(cmd, capture_output=True, check=True)  # the first use: compiles
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True)
            best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--max-peer-seconds", type=float, default=60.0)
    ap.add_argument("-B", type=int, default=10_000)
    args = ap.parse_args(argv)
    sizes, b = (QUICK, 1_000) if args.quick else (FULL, args.B)
    meter = bc.Meter()
    threads = os.cpu_count() or 1
    rows: list[dict[str, Any]] = []

    def add(workload: str, target: str, ours: float, peer: str, peer_s: float, **kw: Any) -> None:
        rows.append({"workload": workload, "ours_s": ours, "peer": peer, "peer_s": peer_s,
                     "ratio": peer_s / ours, "target": target, **kw})  # fmt: skip
        ratio = f"{ours / peer_s:.2f}x the floor" if kw.get("floor") else f"{peer_s / ours:.1f}x"
        print(f"{workload}: booteval {ours:.3f} s, {peer} {peer_s:.3f} s, {ratio} "
              f"(target {target})", flush=True)  # fmt: skip

    # warm-up: the kernels load from the cache (or compile, the first time ever)
    booteval.ci(np.arange(50.0), n_resamples=300, seed=0)
    booteval.ci(np.arange(50) % 2, np.arange(50.0), metric="roc_auc", n_resamples=300, seed=0)

    # W1: the mean of 10^5 lognormal scores, percentile and BCa, against scipy
    x = bc.make_scores(sizes["w1"], seed=2)
    for method, scipy_method in (("percentile", "percentile"), ("bca", "BCa")):
        r, secs = timed(lambda m=method: booteval.ci(x, n_resamples=b, seed=0, method=m))
        assert "numba engine" in r.design, r.design
        peer = bc.scipy_peer(meter, (x,), np.mean, paired=False, method=scipy_method, B=b,
                             batch=100, cap_s=args.max_peer_seconds)  # fmt: skip
        add(f"W1 mean {sizes['w1']:,}, {method}", ">= 15x" if method == "percentile" else
            ">= 80x", secs, "scipy.stats.bootstrap", peer.seconds,
            extrapolated=peer.extrapolated)  # fmt: skip

    # W3: ROC-AUC, percentile against scipy; BCa against a scikit-learn loop
    y, s = bc.make_ranking(sizes["w3"], seed=4)
    r, secs = timed(lambda: booteval.ci(y, s, metric="roc_auc", n_resamples=b, seed=0,
                                        method="percentile"))  # fmt: skip
    assert "numba engine" in r.design, r.design
    peer = bc.scipy_peer(meter, (y, s), bc.auc_stat, paired=True, method="percentile", B=b,
                         batch=100, cap_s=args.max_peer_seconds)  # fmt: skip
    add(f"W3 ROC-AUC {sizes['w3']:,}, percentile", ">= 150x", secs, "scipy.stats.bootstrap",
        peer.seconds, extrapolated=peer.extrapolated)  # fmt: skip
    y, s = bc.make_ranking(sizes["w3_bca"], seed=4)
    r, secs = timed(lambda: booteval.ci(y, s, metric="roc_auc", n_resamples=b, seed=0))
    assert "numba engine" in r.design, r.design
    loop = bc.sklearn_loop_peer(meter, y, s, b, b_loop=100)
    per_call = loop.seconds / b
    # BCa needs the jackknife too: one more roc_auc_score per row
    add(f"W3 ROC-AUC {sizes['w3_bca']:,}, BCa", ">= 150x", secs,
        "sklearn roc_auc_score loop (+ jackknife)", per_call * (b + sizes["w3_bca"]),
        extrapolated=True)  # fmt: skip

    # the floor: mean and ROC-AUC of 10^6 rows, B = 10,000
    n = sizes["big"]
    fl = floor_seconds(n, b, threads)
    x = bc.make_scores(n, seed=2)
    r, secs = timed(lambda: booteval.ci(x, n_resamples=b, seed=0, method="percentile"))
    add(f"mean {n:,}, B = {b:,}", "<= 1.5x the floor", secs, "PCG64 floor", fl, floor=True)
    y, s = bc.make_ranking(n, seed=4)
    r, secs = timed(lambda: booteval.ci(y, s, metric="roc_auc", n_resamples=b, seed=0,
                                        method="percentile"))  # fmt: skip
    add(f"ROC-AUC {n:,}, B = {b:,}", "<= 3x the floor", secs, "PCG64 floor", fl, floor=True)

    # W5: paired accuracy of 10^6 rows against scipy's paired bootstrap
    data = bc.make_paired(sizes["w5"])
    r, secs = timed(lambda: booteval.compare(*data, metric="accuracy", method="percentile",
                                             n_resamples=b, seed=0))  # fmt: skip
    peer = bc.scipy_peer(meter, data, bc.paired_accuracy_stat, paired=True,
                         method="percentile", B=b, batch=20,
                         cap_s=args.max_peer_seconds)  # fmt: skip
    add(f"W5 paired accuracy {sizes['w5']:,}", ">= 3000x", secs, "scipy.stats.bootstrap",
        peer.seconds, extrapolated=peer.extrapolated)  # fmt: skip

    cold = fresh_process_ci()
    rows.append({"workload": "booteval ci, 500 rows, fresh process", "ours_s": cold,
                 "target": "< 1 s"})  # fmt: skip
    print(f"fresh-process booteval ci: {cold:.2f} s (target < 1 s)", flush=True)

    # peak memory at 10^6 rows, each workload in a fresh process (bench_core's check)
    memory = []
    for name in ("mean_percentile", "mean_bca", "roc_auc", "accuracy", "paired_accuracy",
                 "cluster_mean", "macro_f1"):  # fmt: skip
        cmd = [sys.executable, bc.__file__, "--child", name, str(n), str(b), "auto"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            out = json.loads(proc.stdout.strip().splitlines()[-1])
            memory.append(out)
            print(f"memory {name} {n:,} rows: peak {out['peak_mib']:.0f} MiB "
                  f"({out['seconds']:.1f} s)", flush=True)  # fmt: skip
        else:
            memory.append({"name": name, "error": proc.stderr.strip().splitlines()[-1:]})

    print()
    print("| workload | booteval (default engine) s | peer | peer s | ratio | target |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        if "peer" not in row:
            print(f"| {row['workload']} | {row['ours_s']:.2f} | | | | {row['target']} |")
            continue
        approx = "~" if row.get("extrapolated") else ""
        if row.get("floor"):
            ratio = f"{row['ours_s'] / row['peer_s']:.2f}x the floor"
        else:
            ratio = f"{approx}{row['ratio']:.0f}x"
        print(f"| {row['workload']} | {row['ours_s']:.3f} | {row['peer']} | "
              f"{approx}{row['peer_s']:.2f} | {ratio} | {row['target']} |")  # fmt: skip
    print()
    print(f"| workload ({n:,} rows, B = {b:,}, fresh process) | peak RSS MiB | s |")
    print("|---|---|---|")
    for m in memory:
        if "error" in m:
            print(f"| {m['name']} | error: {m['error']} | |")
        else:
            print(f"| {m['name']} | {m['peak_mib']:.0f} | {m['seconds']:.1f} |")
    info = {"python": platform.python_version(), "numpy": np.__version__,
            "booteval": booteval.__version__, "cores": threads,
            "machine": platform.machine()}  # fmt: skip
    print("\n" + ", ".join(f"{k} {v}" for k, v in info.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "memory": memory, "machine": info}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
