"""The default's fallback where its bootstrap-t says nothing, on families it was not chosen on.

With 5 to 10 clusters the bootstrap-t that ``method="auto"`` takes for F1, ROC-AUC, a
correlation or BLEU often reaches past both ends of the metric's range (resamples made of
one or two distinct clusters have a zero or tiny standard error). The default then gives
another interval. The cluster jackknife t interval replaced BCa there after 10 cells of
the coverage atlas's grid (5 clusters, one of 10; Poisson cluster sizes tied to a normal
cluster effect). This script checks that choice on families the grid never used, each with
a closed-form truth, ``--sets`` data sets a cell, the same data sets and seeds for every
column:

* F1 of labels whose rate and whose classifier's accuracy vary by cluster (Beta);
* ROC-AUC of binormal scores with a normal cluster effect on the score;
* Pearson's r of a pair with a correlated cluster effect and a differently correlated row
  noise;

* Kendall's tau of the Pearson family's pair, and average precision of the ROC-AUC
  family's scores: metrics without an analytic standard error, for which the default takes
  the cluster jackknife t outright below 30 clusters;

all with geometric cluster sizes (mean 10 rows) and 4, 6 or 8 clusters.

Columns: the default now (the jackknife t where the bootstrap-t is vacuous, or, for
Kendall and average precision, wherever it can be formed), the default with BCa in the
jackknife t's place (for Kendall and average precision that is BCa, the rule before for
more than 50 rows; below, it was a nested bootstrap-t, not rerun here), BCa throughout,
the share of data sets given the jackknife t, and default intervals outside the metric's
range. Usage::

    python benchmarks/few_cluster_fallback.py            # 1,000 data sets a cell
    python benchmarks/few_cluster_fallback.py --sets 200
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
from scipy.stats import norm

B = 999
BAND = (93.5, 96.5)


@dataclass(frozen=True)
class Family:
    name: str
    draw: Callable[[np.random.Generator, np.ndarray], tuple[np.ndarray, ...] | None]
    truth: float
    metric: str
    low: float
    high: float


def _beta(mean: float, icc: float) -> tuple[float, float]:
    return mean * (1 - icc) / icc, (1 - mean) * (1 - icc) / icc


def labels_and_chances(
    rng: np.random.Generator, cluster: np.ndarray, prevalence: tuple[float, float],
    accuracy: tuple[float, float],
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """0/1 labels with a Beta rate by cluster, and each row's chance of a right prediction
    (a Beta by cluster, independent of the rate); the Betas' parameters as given."""
    g = cluster.max() + 1
    p, q = rng.beta(*prevalence, g)[cluster], rng.beta(*accuracy, g)[cluster]
    return (rng.random(cluster.size) < p).astype(int), q


def f1_family(prevalence: float = 0.3, accuracy: float = 0.8, icc: float = 0.1) -> Family:
    """Labels with a Beta rate by cluster, predictions right with a Beta chance by cluster
    (independent of the labels' rate): the population's F1 is ``2 TP / (2 TP + FP + FN)``
    with ``TP = p q``, ``FP = (1 - p)(1 - q)``, ``FN = p (1 - q)`` (means over clusters)."""
    rate, chance = _beta(prevalence, icc), _beta(accuracy, icc)

    def draw(rng, cluster):
        y, q = labels_and_chances(rng, cluster, rate, chance)
        right = rng.random(cluster.size) < q
        pred = np.where(right, y, 1 - y)
        return (y, pred) if (y.sum() + pred.sum()) > 0 else None

    tp = prevalence * accuracy
    fp, fn = (1 - prevalence) * (1 - accuracy), prevalence * (1 - accuracy)
    return Family("F1, Beta label rate and accuracy by cluster", draw, 2 * tp / (2 * tp + fp + fn),
                  "f1", 0.0, 1.0)  # fmt: skip


def auc_family(shift: float = 1.5, sd_cluster: float = 0.7, prevalence: float = 0.3) -> Family:
    """Binormal scores plus a normal cluster effect shared by the cluster's rows: between
    clusters a positive outranks a negative with probability
    ``Phi(shift / sqrt(2 (1 + sd_cluster^2)))``, the population's AUC."""

    def draw(rng, cluster):
        g = cluster.max() + 1
        y = (rng.random(cluster.size) < prevalence).astype(int)
        if y.min() == y.max():
            return None
        s = shift * y + rng.normal(0, sd_cluster, g)[cluster] + rng.normal(size=cluster.size)
        return y, s

    truth = float(norm.cdf(shift / math.sqrt(2 * (1 + sd_cluster**2))))
    return Family("ROC-AUC, binormal with a cluster effect", draw, truth, "roc_auc", 0.0, 1.0)


def pearson_family(rho_cluster: float = 0.8, rho_row: float = 0.2, share: float = 0.3) -> Family:
    """A pair with a cluster effect (correlation ``rho_cluster``, a ``share`` of each
    variable's variance) and row noise (correlation ``rho_row``): the population's r is
    ``share rho_cluster + (1 - share) rho_row``."""
    sc, sr = math.sqrt(share), math.sqrt(1 - share)

    def pair(rng, size, rho):
        z = rng.normal(size=(size, 2))
        z[:, 1] = rho * z[:, 0] + math.sqrt(1 - rho**2) * z[:, 1]
        return z

    def draw(rng, cluster):
        g = cluster.max() + 1
        xy = sc * pair(rng, g, rho_cluster)[cluster] + sr * pair(rng, cluster.size, rho_row)
        return xy[:, 0], xy[:, 1]

    truth = share * rho_cluster + (1 - share) * rho_row
    return Family("Pearson r, correlated cluster effect", draw, truth, "pearson", -1.0, 1.0)


def kendall_family(rho_cluster: float = 0.8, rho_row: float = 0.2, share: float = 0.3) -> Family:
    """The Pearson family's pair: its population is bivariate normal with
    ``r = share rho_cluster + (1 - share) rho_row``, and Kendall's tau is
    ``2 / pi * arcsin(r)`` (pairs from different clusters, as the clusters grow many)."""
    pair = pearson_family(rho_cluster, rho_row, share)
    return Family("Kendall tau, correlated cluster effect", pair.draw,
                  2 / math.pi * math.asin(pair.truth), "kendall", -1.0, 1.0)  # fmt: skip


def _population_ap(shift: float, sd: float, prevalence: float) -> float:
    """Average precision of the population: positives N(shift, sd^2), negatives N(0, sd^2),
    ``integral of precision(t) over the positives' scores``."""
    t = np.linspace(-12 * sd, shift + 12 * sd, 200_001)
    s1, s0 = norm.sf(t, shift, sd), norm.sf(t, 0, sd)
    precision = prevalence * s1 / (prevalence * s1 + (1 - prevalence) * s0)
    return float(np.trapezoid(precision * norm.pdf(t, shift, sd), t))


def ap_family(shift: float = 1.5, sd_cluster: float = 0.7, prevalence: float = 0.3) -> Family:
    """The ROC-AUC family's scores; the cluster effect is independent of the class, so the
    population's scores are binormal with variance ``1 + sd_cluster^2``."""
    auc = auc_family(shift, sd_cluster, prevalence)
    truth = _population_ap(shift, math.sqrt(1 + sd_cluster**2), prevalence)
    return Family("average precision, binormal with a cluster effect", auc.draw, truth,
                  "average_precision", 0.0, 1.0)  # fmt: skip


FAMILIES = (f1_family(), auc_family(), pearson_family(), kendall_family(), ap_family())
CLUSTERS = (4, 6, 8)
MEAN_SIZE = 10


def _clusters(rng: np.random.Generator, g: int) -> np.ndarray:
    """Geometric cluster sizes (mean ``MEAN_SIZE``, at least 2 rows each), as labels."""
    sizes = 1 + rng.geometric(1.0 / (MEAN_SIZE - 1), g)
    return np.repeat(np.arange(g), sizes)


def data_set(fam: Family, seed: int, f: int, g: int, s: int) -> tuple[np.ndarray, tuple]:
    """Data set ``s`` of family ``f`` with ``g`` clusters: its cluster labels and arrays
    (drawn again, clusters too, while the family's draw rejects it)."""
    rng = np.random.default_rng([seed, f, g, s])
    while True:
        cluster = _clusters(rng, g)
        arrays = fam.draw(rng, cluster)
        if arrays is not None:
            return cluster, arrays


def run_cell(job: tuple[int, int, int, int]) -> dict:
    import booteval

    f, g, sets, seed = job
    fam = FAMILIES[f]
    hits = {"now": 0, "before": 0, "bca": 0}
    fell = outside = 0
    for s in range(sets):
        cluster, arrays = data_set(fam, seed, f, g, s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = booteval.ci(*arrays, metric=fam.metric, clusters=cluster, seed=s, n_resamples=B)
            bca = r.with_method("bca")
        before = bca if r.method == "jackknife-t" else r
        fell += r.method == "jackknife-t"
        for key, x in (("now", r), ("before", before), ("bca", bca)):
            hits[key] += bool(x.low <= fam.truth <= x.high)
        outside += not (fam.low <= r.low <= r.high <= fam.high) or not math.isfinite(r.high - r.low)
    return {"family": fam.name, "clusters": g, "sets": sets, "fell": fell, "outside": outside,
            **{k: 100.0 * v / sets for k, v in hits.items()}}  # fmt: skip


def run_cells(
    argv: list[str] | None, doc: str, seed: int, job: Callable[[tuple], dict], families: int,
    clusters: tuple[int, ...],
) -> tuple[argparse.Namespace, list[tuple], list[dict], float]:  # fmt: skip
    """Parse ``--sets``, ``--seed`` and ``--workers``; run ``job`` on every
    ``(family, clusters, sets, seed)`` in a process pool: the arguments, the jobs, their
    cells and the start time."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    os.environ["NUMBA_NUM_THREADS"] = "1"  # the workers already fill the cores
    jobs = [(f, g, args.sets, args.seed) for f in range(families) for g in clusters]
    with ProcessPoolExecutor(args.workers) as pool:
        return args, jobs, list(pool.map(job, jobs)), t0


def main(argv: list[str] | None = None) -> int:
    import booteval

    args, _, cells, t0 = run_cells(argv, __doc__, 2023, run_cell, len(FAMILIES), CLUSTERS)
    print("| family | clusters | default now | with BCa in its place | BCa | jackknife t | "
          "outside the range |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    for c in cells:
        print(
            f"| {c['family']} | {c['clusters']} | {c['now']:.1f} | {c['before']:.1f} | "
            f"{c['bca']:.1f} | {100 * c['fell'] / c['sets']:.0f} % | {c['outside']} |"
        )
    print(summary(cells, args.sets, time.perf_counter() - t0, booteval.__version__))
    return 0


def summary(cells: list[dict], sets: int, seconds: float, version: str) -> str:
    """The line under a table of cells with coverages ``now``, ``before`` (BCa in the
    jackknife t's place) and ``bca``: cells in band and mean distance from 95 % of each."""
    se = 100 * math.sqrt(0.95 * 0.05 / sets)
    keys = ("now", "before", "bca")
    inband = {k: sum(BAND[0] <= c[k] <= BAND[1] for c in cells) for k in keys}
    dist = {k: sum(abs(c[k] - 95) for c in cells) / len(cells) for k in keys}
    return (f"\nIn band ({BAND[0]}-{BAND[1]} %): now {inband['now']}, BCa in its place "
            f"{inband['before']}, BCa {inband['bca']} of {len(cells)}; mean distance from "
            f"95 %: now {dist['now']:.2f}, BCa in its place {dist['before']:.2f}, BCa "
            f"{dist['bca']:.2f}. {sets:,} data sets a cell (Monte Carlo SE about {se:.1f} "
            f"points), B = {B}; booteval {version}; {seconds:.0f} s")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
