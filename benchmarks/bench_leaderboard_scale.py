"""A leaderboard at MTEB/HELM size: 200 systems x 10,000 items, B = 10,000.

Times, stage by stage, everything a leaderboard reports: ``booteval.leaderboard`` (the
shared run of all systems, each system's interval as ``booteval.ci`` gives it, each pair's
method, all 19,900 pairwise differences with their adjusted p-values, the ranks, rank
intervals and expected ranks), then the simultaneous max-T intervals of all pairs, the
systems tied with the leader and the probability of being best; and the figure (not in
the total). The systems are binary correctness (0/1 per item) with accuracies spread from
0.55 to 0.85 on items of varying difficulty shared by all systems.

The stages inside ``booteval.leaderboard`` are timed by wrapping the functions it calls
(those that exist: the script also times older versions of booteval, for comparison).
Prints one line per stage, the total, the process's CPU time (all threads), the load
average (the machine may be shared) and the peak memory.

Usage::

    python benchmarks/bench_leaderboard_scale.py                 # 200 x 10,000, B = 10,000
    python benchmarks/bench_leaderboard_scale.py --quick         # 50 x 2,000, B = 2,000
    python benchmarks/bench_leaderboard_scale.py --systems 100 --items 5000 --resamples 4000
    python benchmarks/bench_leaderboard_scale.py --profile       # and a cProfile

The first call compiles (or loads) the numba kernels on a small leaderboard, untimed.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import os
import pstats
import resource
import time
import warnings
from typing import Any

import numpy as np

import booteval
from booteval.inference import leaderboard as board_module

#: functions of booteval.inference.leaderboard timed as stages (where they exist)
STAGES = {
    "shared_run": "shared run of all systems (one draw per replicate)",
    "system_ci": "each system's interval (booteval.ci's, a run per system)",
    "board_pair_methods": "each pair's method (method='auto')",
    "_pair_methods": "each pair's method (method='auto')",
    "board_pairs": "all pairwise intervals and p-values",
    "_pair_interval": "all pairwise intervals and p-values",
}


def systems(k: int, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``k`` systems' 0/1 outcomes on ``n`` shared items of varying difficulty."""
    rng = np.random.default_rng(seed)
    accuracy = np.linspace(0.55, 0.85, k)
    difficulty = 0.1 * np.tanh(rng.normal(size=n))
    return {
        f"system-{j:03d}": (rng.random(n) < accuracy[j] + difficulty).astype(np.int8)
        for j in range(k)
    }


def _wrap_stages(spent: dict[str, float]) -> None:
    """Time the leaderboard's inner stages (module functions it calls by name)."""
    for name in STAGES:
        f = getattr(board_module, name, None)
        if f is None:
            continue

        @functools.wraps(f)
        def timed(*args: Any, _f: Any = f, _name: str = name, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return _f(*args, **kwargs)
            finally:
                spent[_name] = spent.get(_name, 0.0) + time.perf_counter() - t

        setattr(board_module, name, timed)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--systems", type=int, default=200)
    p.add_argument("--items", type=int, default=10_000)
    p.add_argument("--resamples", type=int, default=10_000)
    p.add_argument("--profile", action="store_true")
    p.add_argument("--no-plot", action="store_true")
    args = p.parse_args()
    k, n, b = (50, 2_000, 2_000) if args.quick else (args.systems, args.items, args.resamples)
    data = systems(k, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warm = booteval.leaderboard(systems(20, 300, 1), n_resamples=3000, seed=0)
        warm.simultaneous()
    print(f"{k} systems x {n:,} items, B = {b:,} ({k * (k - 1) // 2:,} pairs)")
    inner: dict[str, float] = {}
    _wrap_stages(inner)
    times: dict[str, float] = {}
    cpu0, load0 = time.process_time(), os.getloadavg()[0]
    prof = cProfile.Profile() if args.profile else None
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Holm over 19,900 pairs at B = 10,000 says so
        if prof:
            prof.enable()
        board = booteval.leaderboard(data, n_resamples=b, seed=0)
        if prof:
            prof.disable()
    whole = time.perf_counter() - t
    for name, sec in inner.items():
        times[f"  {STAGES[name]}"] = sec
    times["  the rest (ranks, rank intervals, groups, entries)"] = whole - sum(inner.values())
    times["leaderboard"] = whole
    t = time.perf_counter()
    joint = board.simultaneous()
    times["simultaneous max-T intervals"] = time.perf_counter() - t
    t = time.perf_counter()
    tied = getattr(joint, "tied_with_leader", None)
    times["tied with the leader"] = time.perf_counter() - t
    t = time.perf_counter()
    best = board.p_best
    times["P(best)"] = time.perf_counter() - t
    t = time.perf_counter()
    expected = getattr(board, "expected_rank", None)
    times["expected ranks"] = time.perf_counter() - t
    total = sum(sec for stage, sec in times.items() if not stage.startswith(" "))
    cpu = time.process_time() - cpu0
    load1 = os.getloadavg()[0]
    if not args.no_plot:
        t = time.perf_counter()
        board.plot()
        times["figure (not in the total)"] = time.perf_counter() - t
    width = max(map(len, times))
    for stage, sec in times.items():
        print(f"  {stage:<{width}}  {sec:7.2f} s")
    print(f"  {'total':<{width}}  {total:7.2f} s  ({cpu:.2f} s of CPU time in all threads)")
    print(f"load average {load0:.2f} before, {load1:.2f} after; {os.cpu_count()} cores")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    print(f"peak memory {peak:.2f} GiB")
    leader = board.names[0]
    line = f"leader {leader}: P(best) {best[leader]:.3f}, c = {joint.critical_value:.3f}"
    if tied is not None and expected is not None:
        line += f", tied with the leader: {len(tied)}, expected rank {expected[leader]:.2f}"
    print(line)
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
