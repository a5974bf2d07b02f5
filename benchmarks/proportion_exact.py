"""Exact coverage of booteval's closed-form proportion intervals on a dense grid of p.

For a proportion of independent rows the coverage of an interval method is a finite sum,
``C(p) = sum_k Binom(k; n, p) 1[L(k) <= p <= U(k)]``, so it can be computed exactly
rather than simulated. The coverage of every such interval oscillates in ``p`` (the
endpoints take only ``n + 1`` values), so one point of ``p`` says little: a method is
judged here, at each ``n``, by the *average* and the *minimum* of ``C`` over every
neighbourhood ``[p - 0.05, p + 0.05]`` of a grid of step 0.005 in ``[0.005, 0.995]``:

* ``avg in band``: the share of neighbourhoods whose average coverage is in
  [93.5, 96.5] %;
* ``worst avg``: the lowest neighbourhood average;
* ``worst min``: the lowest coverage anywhere on the grid;
* ``mean |avg - 95|``: the average distance of the neighbourhood averages from 95 %.

The intervals are booteval's own (:func:`booteval.closed_forms.jeffreys_interval`,
``wilson_interval``, ``clopper_pearson_interval``) for every ``k`` and ``n``; Jeffreys is
what ``booteval.ci(..., method="auto")`` gives for a proportion of independent rows (the
script checks that on a sample of tables).

Usage::

    python benchmarks/proportion_exact.py                 # n = 10 ... 1,000, every n (~2 min)
    python benchmarks/proportion_exact.py --step 7        # every 7th n (a quick look)
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy.stats import binom

import booteval
from booteval.closed_forms import clopper_pearson_interval, jeffreys_interval, wilson_interval

METHODS = {
    "jeffreys": jeffreys_interval,
    "wilson": wilson_interval,
    "clopper-pearson": clopper_pearson_interval,
}
P_GRID = np.round(np.arange(0.005, 0.9951, 0.005), 3)
HALF_WINDOW = 10  # grid steps on each side: p -/+ 0.05
RANGES = ((10, 30), (31, 100), (101, 300), (301, 1000))


def coverage(n: int, fn) -> np.ndarray:
    """Exact coverage (in %) at every p of the grid."""
    ends = np.array([[r.low, r.high] for r in
                     (fn(k, n) for k in range(n + 1))])  # fmt: skip
    pmf = binom.pmf(np.arange(n + 1)[:, None], n, P_GRID[None, :])  # (k, p)
    hit = (ends[:, :1] <= P_GRID[None, :] + 1e-12) & (P_GRID[None, :] - 1e-12 <= ends[:, 1:])
    return 100.0 * (pmf * hit).sum(axis=0)


def neighbourhood_means(c: np.ndarray) -> np.ndarray:
    w = 2 * HALF_WINDOW + 1
    kernel = np.ones(w) / w
    return np.convolve(c, kernel, mode="valid")  # windows wholly inside the grid


def check_auto(rng: np.random.Generator) -> None:
    """booteval.ci's default for a proportion of independent rows is the Jeffreys interval."""
    for _ in range(5):
        n = int(rng.integers(10, 300))
        k = int(rng.integers(0, n + 1))
        x = np.r_[np.ones(k), np.zeros(n - k)]
        r = booteval.ci(x, n_resamples=200, seed=0)
        j = jeffreys_interval(k, n)
        assert abs(r.low - j.low) < 1e-12 and abs(r.high - j.high) < 1e-12, (n, k, r, j)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step", type=int, default=1, help="every STEP-th n (default: every n)")
    ap.add_argument("--max-n", type=int, default=1000)
    args = ap.parse_args(argv)
    check_auto(np.random.default_rng(0))
    ns = list(range(10, args.max_n + 1, args.step))
    t0 = time.perf_counter()
    rows = []
    for name, fn in METHODS.items():
        for lo_n, hi_n in RANGES:
            chosen = [n for n in ns if lo_n <= n <= hi_n]
            if not chosen:
                continue
            in_band, worst_avg, worst_min, dist = [], np.inf, np.inf, []
            for n in chosen:
                c = coverage(n, fn)
                m = neighbourhood_means(c)
                in_band.append(np.mean((m >= 93.5) & (m <= 96.5)))
                worst_avg = min(worst_avg, float(m.min()))
                worst_min = min(worst_min, float(c.min()))
                dist.append(float(np.mean(np.abs(m - 95.0))))
            rows.append((name, f"{lo_n}-{hi_n}", len(chosen), 100 * float(np.mean(in_band)),
                         worst_avg, worst_min, float(np.mean(dist))))  # fmt: skip
        print(f"  {name} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    print("| method | n | sizes | avg in band | worst avg | worst min | mean abs(avg - 95) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, span, k, band, wa, wm, d in rows:
        print(f"| {name} | {span} | {k} | {band:.1f} % | {wa:.1f} % | {wm:.1f} % | {d:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
