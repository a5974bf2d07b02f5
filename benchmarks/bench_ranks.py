"""The compiled rank and meta-evaluation kernels against booteval's NumPy engine, in one run.

Times ``booteval.ci`` for Spearman, Kendall and average precision at ``n`` rows, the paired
``booteval.permutation_test`` of ROC-AUC and Kendall at ``n`` rows (B random swaps),
``booteval.meta.correlate`` at every level and coefficient on a ``30 x 1000`` matrix
(Boot-Both), and ``compare_correlations`` with its defaults (Boot-Both and Perm-Both) at
every level for Kendall, with the default engine (the compiled kernels) and with
``engine="numpy"``, after a warm-up that compiles the kernels. Prints a Markdown table of
both times and their ratio.

Usage::

    python benchmarks/bench_ranks.py            # n = 100,000, B = 2,000: about 4 minutes
    python benchmarks/bench_ranks.py --quick    # n = 10,000, B = 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import booteval
from booteval.meta import compare_correlations, correlate


def _timed(fn, *args, **kwargs) -> float:
    t = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    n, b = (10_000, 500) if args.quick else (100_000, 2_000)
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    z = x + rng.normal(size=n)
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.normal(size=n) + y
    q = rng.normal(size=(30, 1))
    human = np.round(q + rng.normal(size=(30, 1000)), 1)
    metric = np.round(q + rng.normal(size=(30, 1000)), 1)
    other = np.round(q + 1.3 * rng.normal(size=(30, 1000)), 1)
    s2 = rng.normal(size=n) + 0.9 * y
    z2 = x + 1.2 * rng.normal(size=n)
    rows = []
    cases = [
        (f"ci {m}, n = {n:,}", m, d)
        for m, d in (("spearman", (x, z)), ("kendall", (x, z)), ("average_precision", (y, s)))
    ]
    for _, m, d in cases:  # warm-up: compile
        booteval.ci(*(a[:50] for a in d), metric=m, n_resamples=100, seed=0)
    tests = [(f"permutation_test roc_auc, n = {n:,}", (y, s, s2), "roc_auc"),
             (f"permutation_test kendall, n = {n:,}", (x, z, z2), "kendall")]  # fmt: skip
    for _, d, m in tests:
        booteval.permutation_test(*(a[:50] for a in d), metric=m, n_permutations=100, seed=0)
    for level in ("system", "summary", "global"):
        for co in ("pearson", "spearman", "kendall"):
            correlate(metric[:, :20], human[:, :20], level=level, coefficient=co,
                      n_resamples=100, seed=0)  # fmt: skip
            compare_correlations(metric[:, :20], other[:, :20], human[:, :20], level=level,
                                 coefficient=co, n_resamples=100, seed=0)  # fmt: skip
    print(f"B = {b:,}; times in seconds (one run each)\n")
    print("| workload | default engine | engine='numpy' | ratio |")
    print("|---|---|---|---|")
    for name, m, d in cases:
        fast = _timed(booteval.ci, *d, metric=m, n_resamples=b, seed=0)
        slow = _timed(booteval.ci, *d, metric=m, n_resamples=b, seed=0, engine="numpy")
        rows.append((name, fast, slow))
    for name, d, m in tests:
        kw = {"metric": m, "n_permutations": b, "seed": 0}
        fast = _timed(booteval.permutation_test, *d, **kw)
        slow = _timed(booteval.permutation_test, *d, engine="numpy", **kw)
        rows.append((name, fast, slow))
    for level in ("system", "summary", "global"):
        for co in ("pearson", "spearman", "kendall"):
            kw = {"level": level, "coefficient": co, "n_resamples": b, "seed": 0}
            fast = _timed(correlate, metric, human, **kw)
            slow = _timed(correlate, metric, human, engine="numpy", **kw)
            rows.append((f"correlate {level} {co}, 30 x 1000", fast, slow))
    for level in ("system", "summary", "global"):
        kw = {"level": level, "coefficient": "kendall", "n_resamples": b, "seed": 0}
        fast = _timed(compare_correlations, metric, other, human, **kw)
        slow = _timed(compare_correlations, metric, other, human, engine="numpy", **kw)
        rows.append((f"compare_correlations {level} kendall, 30 x 1000", fast, slow))
    for name, fast, slow in rows:
        print(f"| {name} | {fast:.3f} | {slow:.3f} | {slow / fast:.1f}x |")


if __name__ == "__main__":
    main()
