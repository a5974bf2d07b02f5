"""The default's difference ``B - A`` of two systems with few clusters, on simulated families.

``booteval.compare(method="auto")`` gives the cluster jackknife t interval of ``B - A``
(and the p-value that inverts it) with few clusters in two places, as ``booteval.ci`` does
for one system: where the bootstrap-t it chose for a metric with an analytic standard
error (F1, ROC-AUC, Pearson) says nothing, and outright below 30 clusters for a metric
without one (Kendall, average precision). This script measures both on families with a
closed-form truth, ``--sets`` data sets a cell, the same data sets and seeds for every
column:

* F1 of two classifiers of the same labels (a Beta label rate by cluster, classifier A
  right with a Beta chance by cluster, B right wherever A is and on 40 % of A's errors);
* F1 of two classifiers equally good (both right with the cluster's Beta chance, row by
  row independently): no difference, where coverage is one less the rejection rate of
  the test that inverts the interval;
* Kendall's tau of two systems' scores against a human score, each pair bivariate normal
  with a correlated cluster effect and a differently correlated row noise (population
  tau ``2 / pi arcsin r``);

all with geometric cluster sizes (mean 10 rows) and 4, 6, 8 or 15 clusters.

Columns: the default now, the default with BCa in the jackknife t's place (for Kendall,
BCa: the rule before for more than 50 rows; below, a nested bootstrap-t, not rerun here),
BCa throughout, the share of data sets given the jackknife t, default intervals outside
the difference's range (``[-1, 1]`` for F1, ``[-2, 2]`` for tau), and data sets where the
default's two-sided p-value and its interval disagree about excluding 0 (given the
jackknife t, and the others). Usage::

    python benchmarks/few_cluster_difference.py            # 1,000 data sets a cell
    python benchmarks/few_cluster_difference.py --sets 200
"""

from __future__ import annotations

import math
import sys
import time
import warnings

import numpy as np
from few_cluster_fallback import (
    B,
    Family,
    _beta,
    data_set,
    labels_and_chances,
    run_cells,
    summary,
)

LEVEL = 0.95


def _f1(prevalence: float, accuracy: float) -> float:
    """The population's F1, ``2 TP / (2 TP + FP + FN)`` with ``TP = p a``,
    ``FP + FN = 1 - a`` (the label rate and the chance of being right independent)."""
    return 2 * prevalence * accuracy / (2 * prevalence * accuracy + 1 - accuracy)


def f1_pair(prevalence: float = 0.3, accuracy: float = 0.75, kept: float = 0.6,
            icc: float = 0.1, equal: bool = False) -> Family:  # fmt: skip
    """Two classifiers of the same labels. ``equal``: both right with the cluster's chance,
    independently row by row; else B is right wherever A is and on ``1 - kept`` of A's
    errors (B's chance ``1 - kept (1 - q)``)."""
    rate, chance = _beta(prevalence, icc), _beta(accuracy, icc)

    def draw(rng, cluster):
        y, q = labels_and_chances(rng, cluster, rate, chance)
        right_a = rng.random(cluster.size) < q
        if equal:
            right_b = rng.random(cluster.size) < q
        else:
            right_b = right_a | (rng.random(cluster.size) >= kept)
        pa, pb = np.where(right_a, y, 1 - y), np.where(right_b, y, 1 - y)
        if min(y.sum() + pa.sum(), y.sum() + pb.sum()) == 0:
            return None
        return y, pa, pb

    if equal:
        return Family("F1, two equally good classifiers", draw, 0.0, "f1", -1.0, 1.0)
    truth = _f1(prevalence, 1 - kept * (1 - accuracy)) - _f1(prevalence, accuracy)
    return Family("F1, B right on A's rows and 40 % of its errors", draw, truth, "f1", -1.0, 1.0)


def kendall_pair(share: float = 0.3, rho_cluster: float = 0.8,
                 rho_rows: tuple[float, float] = (0.2, 0.4)) -> Family:  # fmt: skip
    """A human score ``x`` and two systems' scores, each ``(x, y)`` bivariate normal with a
    cluster effect (a ``share`` of the variance, correlation ``rho_cluster``) and row noise
    (correlation ``rho_rows[k]``): ``r = share rho_cluster + (1 - share) rho_row`` and the
    population's tau (pairs from different clusters) ``2 / pi arcsin r``."""
    sc, sr = math.sqrt(share), math.sqrt(1 - share)

    def draw(rng, cluster):
        g, n = cluster.max() + 1, cluster.size
        u, e = rng.normal(size=g), rng.normal(size=n)
        x = sc * u[cluster] + sr * e
        ys = []
        for rho_row in rho_rows:
            c = rho_cluster * u + math.sqrt(1 - rho_cluster**2) * rng.normal(size=g)
            w = rho_row * e + math.sqrt(1 - rho_row**2) * rng.normal(size=n)
            ys.append(sc * c[cluster] + sr * w)
        return x, ys[0], ys[1]

    tau = [2 / math.pi * math.asin(share * rho_cluster + (1 - share) * r) for r in rho_rows]
    return Family("Kendall tau of two systems, correlated cluster effect", draw,
                  tau[1] - tau[0], "kendall", -2.0, 2.0)  # fmt: skip


FAMILIES = (f1_pair(), f1_pair(equal=True), kendall_pair())
CLUSTERS = (4, 6, 8, 15)


def run_cell(job: tuple[int, int, int, int]) -> dict:
    import booteval

    f, g, sets, seed = job
    fam = FAMILIES[f]
    hits = {"now": 0, "before": 0, "bca": 0}
    fell = outside = 0
    disagree = {True: 0, False: 0}
    for s in range(sets):
        cluster, arrays = data_set(fam, seed, f, g, s)
        kw = {"metric": fam.metric, "clusters": cluster, "seed": s, "n_resamples": B}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = booteval.compare(*arrays, **kw)
            bca = booteval.compare(*arrays, method="bca", **kw)
        jack = r.method == "jackknife-t"
        before = bca if jack else r
        fell += jack
        for key, x in (("now", r), ("before", before), ("bca", bca)):
            hits[key] += bool(x.low <= fam.truth <= x.high)
        outside += not (fam.low <= r.low <= r.high <= fam.high) or not math.isfinite(r.high - r.low)
        disagree[jack] += (r.p_value < 1 - LEVEL) != (r.low > 0 or r.high < 0)
    return {
        "family": fam.name, "clusters": g, "sets": sets, "fell": fell, "outside": outside,
        "disagree": disagree[True], "disagree_other": disagree[False],
        **{k: 100.0 * v / sets for k, v in hits.items()},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    import booteval

    args, jobs, cells, t0 = run_cells(argv, __doc__, 2024, run_cell, len(FAMILIES), CLUSTERS)
    print("| family | clusters | truth | default now | with BCa in its place | BCa | "
          "jackknife t | outside the range | p-value and interval disagree: jackknife t | "
          "others |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c, (f, _, _, _) in zip(cells, jobs, strict=True):
        print(
            f"| {c['family']} | {c['clusters']} | {FAMILIES[f].truth:.4f} | {c['now']:.1f} | "
            f"{c['before']:.1f} | {c['bca']:.1f} | {100 * c['fell'] / c['sets']:.0f} % | "
            f"{c['outside']} | {c['disagree']} | {c['disagree_other']} |"
        )
    print(summary(cells, args.sets, time.perf_counter() - t0, booteval.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
