#!/usr/bin/env python
"""Time the calibrated (double) bootstrap, ``booteval.ci(method="calibrated")``.

Usage::

    python benchmarks/bench_calibrated.py                  # n = 10,000, B = 2,000, M = 200
    python benchmarks/bench_calibrated.py --n 1000 --resamples 999 --inner 200 --repeat 3
    python benchmarks/bench_calibrated.py --workloads mean accuracy clustered-mean

Each workload draws its data from a fixed seed, runs once on tiny data (so that numba's
compiling or loading its cache is not timed), then times ``--repeat`` runs and prints the
wall time and the process's CPU time of each (CPU time is the fairer figure on a shared
machine: wall time grows with other processes' load), and a percentile run of the same
``B`` for comparison. ``mean`` and ``clustered-mean`` run the compiled kernel
(``B * M * n`` draws, or ``B * M * clusters``), ``accuracy`` the NumPy engine on the two
cells of its 0/1 outcomes (one multinomial draw per replicate, whatever ``n``).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import booteval

WORKLOADS = ("mean", "accuracy", "clustered-mean")


def workload(name: str, n: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The data and keywords of a workload at ``n`` rows (fixed seeds)."""
    rng = np.random.default_rng(20_240_611)
    if name == "mean":
        return (rng.lognormal(size=n),), {}
    if name == "accuracy":
        y = rng.integers(0, 2, n)
        return (y, np.where(rng.random(n) < 0.9, y, 1 - y)), {"metric": "accuracy"}
    if name == "clustered-mean":
        return (rng.lognormal(size=n),), {"clusters": rng.integers(0, max(n // 50, 2), n)}
    raise ValueError(name)


def timed(call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, float, Any]:
    """``(wall seconds, CPU seconds of this process, result)`` of ``call(*args, **kwargs)``."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = call(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the selected workloads and print a table; returns the exit status."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=10_000, help="rows")
    p.add_argument("--resamples", type=int, default=2000, help="outer replicates B")
    p.add_argument("--inner", type=int, default=200, help="inner resamples M per replicate")
    p.add_argument("--repeat", type=int, default=2, help="timed runs per workload")
    p.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=["mean"])
    p.add_argument("--workers", type=int, default=None, help="threads (default: all cores)")
    args = p.parse_args(argv)
    import numba

    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, "
        f"{platform.processor() or platform.machine()}; numba {numba.__version__} "
        f"({numba.config.NUMBA_NUM_THREADS} threads); booteval {booteval.__version__}"
    )
    print(f"n = {args.n:,}, B = {args.resamples:,}, M = {args.inner}")
    print("| workload | engine | run | wall s | CPU s | interval | percentile wall s |")
    print("|---|---|---|---|---|---|---|")
    common = {"seed": 0, "workers": args.workers}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.workloads:
            data, kw = workload(name, args.n)
            tiny, tiny_kw = workload(name, 60)
            booteval.ci(*tiny, method="calibrated", n_resamples=50, n_inner=20, **tiny_kw)
            run = {**common, **kw, "n_resamples": args.resamples}
            pct_wall, _, _ = timed(booteval.ci, *data, method="percentile", **run)
            for i in range(args.repeat):
                wall, cpu, r = timed(
                    booteval.ci, *data, method="calibrated", n_inner=args.inner, **run
                )
                engine = "numba" if r.design.endswith("numba engine") else "numpy"
                print(
                    f"| {name} | {engine} | {i + 1} | {wall:.2f} | {cpu:.2f} | "
                    f"{r.format(digits=4)} | {pct_wall:.3f} |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
