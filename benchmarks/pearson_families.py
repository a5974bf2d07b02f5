"""Pearson's r on independent rows: the default's jackknife t against the intervals before it.

``booteval.ci(metric="pearson", method="auto")`` on independent rows gives the jackknife t
interval over rows, formed on Fisher's z scale (each row left out in turn; the variance
``(n - 1)/n`` times the sum of squares of those z values about their mean; Student's t on
``n - 1`` degrees of freedom). Before, it gave the percentile interval. This script
measures both, with BCa and Fisher's normal-theory interval, on families with a
closed-form truth, ``--sets`` data sets a cell at n = 20, 50, 200 and 1,000, the same data
sets and bootstrap seeds for every column:

*chosen on* (a pilot of 1,000 data sets on these three was read before the choice):

* bivariate normal, r = 0.5 (the atlas's grid model);
* lognormal margins of a normal copula with correlation 0.5
  (r = (e^0.5 - 1) / (e - 1));
* bivariate t3 with scale correlation 0.5 (r = 0.5);

*held out* (run once, after the choice):

* a 1-5 rating against a continuous score: a normal pair with correlation 0.6, the first
  cut into 5 ordered levels with shares 10/20/40/20/10 % (r = 0.6 E[L X] / sd(L), where
  ``E[L X] = sum_k k (phi(c_{k-1}) - phi(c_k))``);
* two ratings, 1-5 and 1-10 (shares even), cut from a normal pair with correlation 0.7
  (r from the bivariate normal's rectangle probabilities; many tied rows);
* a contaminated normal: 90 % a normal pair with correlation 0.6, 10 % an independent pair
  with variance 9 (r = 0.54 / 1.8 = 0.3);
* heteroscedastic noise, ``y = 0.5 x + |x| e`` (r = 0.5 / sqrt(1.25)).

Usage::

    python benchmarks/pearson_families.py              # 1,000 data sets a cell
    python benchmarks/pearson_families.py --sets 200 --half held-out
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy.stats import multivariate_normal, norm

B = 999
BAND = (93.5, 96.5)
SIZES = (20, 50, 200, 1000)


@dataclass(frozen=True)
class Family:
    name: str
    half: str
    draw: Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
    truth: float


def _pair(rng: np.random.Generator, n: int, rho: float) -> tuple[np.ndarray, np.ndarray]:
    x = rng.normal(size=n)
    return x, rho * x + math.sqrt(1 - rho**2) * rng.normal(size=n)


def _cuts(shares: tuple[float, ...]) -> np.ndarray:
    return norm.ppf(np.cumsum(shares)[:-1])


def _level(x: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    return 1.0 + np.searchsorted(cuts, x).astype(float)


def _level_moments(shares: tuple[float, ...]) -> tuple[float, float]:
    """Mean and standard deviation of the level (1, 2, ...) with these shares."""
    k = np.arange(1, len(shares) + 1)
    p = np.asarray(shares)
    mean = float(k @ p)
    return mean, math.sqrt(float((k * k) @ p) - mean**2)


RATING = (0.1, 0.2, 0.4, 0.2, 0.1)


def rating_vs_score(rho: float = 0.6) -> Family:
    cuts = _cuts(RATING)
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    k = np.arange(1, len(RATING) + 1)
    e_lx = float(np.sum(k * (norm.pdf(edges[:-1]) - norm.pdf(edges[1:]))))
    truth = rho * e_lx / _level_moments(RATING)[1]

    def draw(rng, n):
        x, y = _pair(rng, n, rho)
        return _level(x, cuts), y

    return Family("a 1-5 rating against a continuous score", "held-out", draw, truth)


def two_ratings(rho: float = 0.7) -> Family:
    s1, s2 = RATING, (0.1,) * 10
    c1, c2 = _cuts(s1), _cuts(s2)
    e1 = np.concatenate([[-8.0], c1, [8.0]])
    e2 = np.concatenate([[-8.0], c2, [8.0]])
    law = multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]])
    cdf = np.array([[law.cdf([a, b]) for b in e2] for a in e1])
    cell = np.diff(np.diff(cdf, axis=0), axis=1)  # P(level i, level j)
    k1, k2 = np.arange(1, len(s1) + 1), np.arange(1, len(s2) + 1)
    (m1, sd1), (m2, sd2) = _level_moments(s1), _level_moments(s2)
    truth = float((k1 @ cell @ k2 - m1 * m2) / (sd1 * sd2))

    def draw(rng, n):
        x, y = _pair(rng, n, rho)
        return _level(x, c1), _level(y, c2)

    return Family("two ratings, 1-5 and 1-10", "held-out", draw, truth)


def contaminated() -> Family:
    def draw(rng, n):
        x, y = _pair(rng, n, 0.6)
        out = rng.random(n) < 0.1
        x[out], y[out] = 3 * rng.normal(size=out.sum()), 3 * rng.normal(size=out.sum())
        return x, y

    return Family("a contaminated normal (10 % wide, uncorrelated)", "held-out", draw, 0.3)


def heteroscedastic() -> Family:
    def draw(rng, n):
        x = rng.normal(size=n)
        return x, 0.5 * x + np.abs(x) * rng.normal(size=n)

    return Family("heteroscedastic, y = 0.5 x + |x| e", "held-out", draw, 0.5 / math.sqrt(1.25))


def normal() -> Family:
    return Family("bivariate normal", "chosen on", lambda rng, n: _pair(rng, n, 0.5), 0.5)


def lognormal() -> Family:
    def draw(rng, n):
        x, y = _pair(rng, n, 0.5)
        return np.exp(x), np.exp(y)

    return Family("lognormal margins", "chosen on", draw, (math.exp(0.5) - 1) / (math.e - 1))


def t3() -> Family:
    def draw(rng, n):
        x, y = _pair(rng, n, 0.5)
        w = np.sqrt(rng.chisquare(3, n) / 3)
        return x / w, y / w

    return Family("bivariate t3", "chosen on", draw, 0.5)


FAMILIES = (normal(), lognormal(), t3(), rating_vs_score(), two_ratings(), contaminated(),
            heteroscedastic())  # fmt: skip
COLUMNS = ("now", "percentile", "bca", "fisher-z")


def run_cell(job: tuple[int, int, int, int]) -> dict:
    import booteval

    f, n, sets, seed = job
    fam = FAMILIES[f]
    hits = dict.fromkeys(COLUMNS, 0)
    outside = fell = 0
    for s in range(sets):
        rng = np.random.default_rng([seed, f, n, s])
        while True:
            x, y = fam.draw(rng, n)
            if np.ptp(x) > 0 and np.ptp(y) > 0:
                break
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = booteval.ci(x, y, metric="pearson", seed=s, n_resamples=B)
            got = {
                "now": r, "percentile": r.with_method("percentile"), "bca": r.with_method("bca"),
                "fisher-z": booteval.closed_forms.fisher_z_interval(r.estimate, n),
            }  # fmt: skip
        fell += r.method != "jackknife-t"
        for k, v in got.items():
            hits[k] += bool(v.low <= fam.truth <= v.high)
        outside += not (-1 <= r.low <= r.high <= 1) or not math.isfinite(r.high - r.low)
    return {"family": fam.name, "half": fam.half, "n": n, "sets": sets, "outside": outside,
            "fell": fell, **{k: 100.0 * v / sets for k, v in hits.items()}}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--half", choices=("chosen on", "held-out"), default=None)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    import booteval

    t0 = time.perf_counter()
    os.environ["NUMBA_NUM_THREADS"] = "1"  # the workers already fill the cores
    jobs = [(f, n, args.sets, args.seed) for f, fam in enumerate(FAMILIES) for n in SIZES
            if args.half in (None, fam.half)]  # fmt: skip
    with ProcessPoolExecutor(args.workers) as pool:
        cells = list(pool.map(run_cell, jobs))
    print("| family | half | n | truth | default now | percentile (before) | BCa | Fisher z | "
          "not the jackknife t | outside [-1, 1] |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c, (f, *_) in zip(cells, jobs, strict=True):
        print(f"| {c['family']} | {c['half']} | {c['n']:,} | {FAMILIES[f].truth:.4f} | "
              + " | ".join(f"{c[k]:.1f}" for k in COLUMNS)
              + f" | {c['fell']} | {c['outside']} |")  # fmt: skip
    se = 100 * math.sqrt(0.95 * 0.05 / args.sets)
    for half in ("chosen on", "held-out"):
        part = [c for c in cells if c["half"] == half]
        if not part:
            continue
        inband = {k: sum(BAND[0] <= c[k] <= BAND[1] for c in part) for k in COLUMNS}
        dist = {k: sum(abs(c[k] - 95) for c in part) / len(part) for k in COLUMNS}
        low = {k: min(c[k] for c in part) for k in COLUMNS}
        print(f"\n{half}, {len(part)} cells: in band ({BAND[0]}-{BAND[1]} %) "
              + ", ".join(f"{k} {inband[k]}" for k in COLUMNS) + "; mean distance from 95 %: "
              + ", ".join(f"{k} {dist[k]:.2f}" for k in COLUMNS) + "; lowest: "
              + ", ".join(f"{k} {low[k]:.1f}" for k in COLUMNS) + ".")  # fmt: skip
    print(
        f"\n{args.sets:,} data sets a cell (Monte Carlo SE about {se:.1f} points), B = {B}; "
        f"booteval {booteval.__version__}; {time.perf_counter() - t0:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
