"""The default on data-generating families the coverage atlas never used (held out).

The atlas draws every clustered cell from one model (Poisson cluster sizes tied to a normal
cluster effect); its rules were read off that grid. This script checks ``method="auto"``
on families built differently, each with a known truth, ``--sets`` data sets a cell:

* binary outcomes in clusters whose sizes are geometric and whose success probability is
  Beta-distributed (intra-cluster correlation ``icc``), at accuracies between the grid's;
* a lognormal score with a normal cluster effect and geometric cluster sizes;
* heavy tails: the mean of a t3 score, the Pearson correlation of a bivariate t3 pair;
* ROC-AUC at 3 to 10 % prevalence (5 to 25 positives on average).

Each cell reports the coverage of the default and of BCa (the atlas's yardstick) on the
same data sets and seeds, with the share of default intervals outside the parameter's
range. Usage::

    python benchmarks/heldout_families.py            # 500 data sets a cell (~2 minutes)
    python benchmarks/heldout_families.py --sets 200
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

import booteval

B = 999


@dataclass(frozen=True)
class Family:
    name: str
    draw: Callable[[np.random.Generator], tuple[tuple[np.ndarray, ...], dict]]
    truth: float
    metric: str
    low: float
    high: float


def _sizes(rng: np.random.Generator, g: int, mean: float) -> np.ndarray:
    """Geometric cluster sizes with the given mean (at least one row each)."""
    return rng.geometric(1.0 / mean, g)


def clustered_binary(g: int, mean_size: float, p: float, icc: float) -> Family:
    a, b = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc

    def draw(rng):
        m = _sizes(rng, g, mean_size)
        pg = rng.beta(a, b, g)
        y = (rng.random(m.sum()) < np.repeat(pg, m)).astype(float)
        return (y,), {"clusters": np.repeat(np.arange(g), m)}

    return Family(f"accuracy {p}, {g} geometric clusters, Beta ICC {icc}", draw, p, "mean",
                  0.0, 1.0)  # fmt: skip


def clustered_lognormal(g: int, mean_size: float, sd_cluster: float) -> Family:
    def draw(rng):
        m = _sizes(rng, g, mean_size)
        u = rng.normal(0, sd_cluster, g)
        x = np.exp(np.repeat(u, m) + rng.normal(0, 1, m.sum()))
        return (x,), {"clusters": np.repeat(np.arange(g), m)}

    truth = math.exp(sd_cluster**2 / 2 + 0.5)
    return Family(f"lognormal mean, {g} geometric clusters", draw, truth, "mean", 0.0, math.inf)


def t3_mean(n: int) -> Family:
    return Family(f"t3 mean, n = {n}", lambda rng: ((1.0 + rng.standard_t(3, n),), {}), 1.0,
                  "mean", -math.inf, math.inf)  # fmt: skip


def t3_pearson(n: int, rho: float) -> Family:
    def draw(rng):
        z = rng.normal(size=(n, 2))
        z[:, 1] = rho * z[:, 0] + math.sqrt(1 - rho**2) * z[:, 1]
        w = np.sqrt(rng.chisquare(3, n) / 3)[:, None]
        t = z / w
        return (t[:, 0], t[:, 1]), {}

    return Family(f"Pearson r of a bivariate t3, n = {n}", draw, rho, "pearson", -1.0, 1.0)


def rare_auc(n: int, prevalence: float, shift: float) -> Family:
    def draw(rng):
        while True:
            y = (rng.random(n) < prevalence).astype(int)
            if 0 < y.sum() < n:
                break
        s = rng.normal(shift * y, 1.0)
        return (y, s), {}

    truth = float(norm.cdf(shift / math.sqrt(2)))
    return Family(f"ROC-AUC, prevalence {prevalence}, n = {n}", draw, truth, "roc_auc", 0.0,
                  1.0)  # fmt: skip


FAMILIES = (
    clustered_binary(8, 12, 0.9, 0.1),
    clustered_binary(15, 10, 0.85, 0.1),
    clustered_binary(30, 8, 0.7, 0.3),
    clustered_binary(60, 5, 0.95, 0.05),
    clustered_lognormal(12, 10, 0.5),
    clustered_lognormal(40, 10, 0.5),
    t3_mean(30),
    t3_mean(200),
    t3_pearson(50, 0.5),
    t3_pearson(300, 0.5),
    rare_auc(200, 0.1, 1.0),
    rare_auc(500, 0.05, 1.5),
    rare_auc(100, 0.05, 1.0),
    rare_auc(200, 0.03, 2.5),
)


def run(family: Family, sets: int, seed: int) -> dict:
    hits = {"auto": 0, "bca": 0}
    outside, chosen = 0, {}
    for s in range(sets):
        rng = np.random.default_rng([seed, s])
        arrays, design = family.draw(rng)
        for method in ("auto", "bca"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = booteval.ci(*arrays, metric=family.metric, method=method, seed=s,
                                n_resamples=B, **design)  # fmt: skip
            hits[method] += r.low <= family.truth <= r.high
            if method == "auto":
                outside += r.low < family.low - 1e-12 or r.high > family.high + 1e-12
                chosen[r.method] = chosen.get(r.method, 0) + 1
    return {"auto": 100 * hits["auto"] / sets, "bca": 100 * hits["bca"] / sets,
            "outside": outside, "chosen": chosen}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=500)
    ap.add_argument("--seed", type=int, default=35)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    print("| family | default | BCa | default's methods | outside the range |")
    print("|---|---:|---:|---|---:|")
    band = 0
    for i, fam in enumerate(FAMILIES):
        r = run(fam, args.sets, args.seed * 1000 + i)
        band += 93.5 <= r["auto"] <= 96.5
        methods = ", ".join(f"{m} {100 * k / args.sets:.0f} %" for m, k in
                            sorted(r["chosen"].items(), key=lambda kv: -kv[1]))  # fmt: skip
        print(f"| {fam.name} | {r['auto']:.1f} | {r['bca']:.1f} | {methods} | {r['outside']} |",
              flush=True)  # fmt: skip
    se = 100 * math.sqrt(0.95 * 0.05 / args.sets)
    print(f"\n{band} of {len(FAMILIES)} cells in [93.5, 96.5]; {args.sets} data sets a cell "
          f"(Monte Carlo SE about {se:.1f} points); B = {B}; booteval {booteval.__version__}; "
          f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
