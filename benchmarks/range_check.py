"""Coverage of range-respecting intervals on data the coverage atlas never used.

The families here were not used to choose anything in ``method="auto"``'s rule before the
natural-scale change; each cell reports, over ``--sets`` simulated data sets, the coverage
of the true mean (%), the median width, and how many intervals left the parameter's range
or were infinite, for the default (``method="auto"``) and for the alternatives it chose
between:

* bounded means (scores in [0, 1], many exact 0s and 1s), independent rows, N = 10-100:
  the bootstrap-t on the identity scale (the old default) and on the logit scale, the
  logit-t interval (CR2 with every row its own cluster, on the logit scale: a t interval
  with ``s / sqrt(n)`` formed on ``logit(mean)``, evalstats' default and booteval's before
  the quasi-binomial Wilson interval), and the default (``auto``: that Wilson interval);
* clustered means with 4-8 clusters of geometric sizes: [0, 1] scores with a Beta cluster
  effect (averaged epochs) and lognormal scores: the symmetric bootstrap-t (the old
  default), CR2 on the identity scale, and CR2 on the scores' natural scale (the new
  default);
* proportions with 5 or 8 clusters over a grid of p and cluster effects (the scale was
  chosen on clusters of 10 rows; clusters of geometric sizes are held out);
* the issue's cells: 8 unequal clusters at accuracy 0.9 (CR2 then on 84 % of data sets,
  90.0 %) and the lognormal mean with 12 clusters (symmetric bootstrap-t, 84.2 %).

    python benchmarks/range_check.py                  # 1,000 data sets a cell, ~25 minutes
    python benchmarks/range_check.py --sets 200       # a quick look
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

import booteval
from booteval.closed_forms import cluster_robust_interval

B = 999


def _bounded_shapes() -> dict[str, Callable[[np.random.Generator, int], np.ndarray]]:
    def zero_one_inflated(rng, n):  # 30 % exact 1s, 15 % exact 0s, the rest Beta(2, 2)
        u = rng.random(n)
        return np.where(u < 0.3, 1.0, np.where(u < 0.45, 0.0, rng.beta(2, 2, n)))

    def one_inflated(rng, n):  # 80 % exact 1s, the rest Beta(5, 2)
        return np.where(rng.random(n) < 0.8, 1.0, rng.beta(5, 2, n))

    def likert(rng, n):  # a 1-5 rating scaled to [0, 1], skewed to the top
        return rng.choice([0, 0.25, 0.5, 0.75, 1.0], n, p=[0.05, 0.05, 0.15, 0.35, 0.4])

    def u_shaped(rng, n):
        return rng.beta(0.3, 0.3, n)

    return {"0/1-inflated": zero_one_inflated, "1-inflated": one_inflated, "likert": likert,
            "U-shaped": u_shaped}  # fmt: skip


def _truth(draw: Callable[..., np.ndarray]) -> float:
    return float(draw(np.random.default_rng(123), 4_000_000).mean())


def _summary(lows: list[float], highs: list[float], truth: float, lo: float, hi: float):
    low, high = np.array(lows), np.array(highs)
    cover = np.mean((low <= truth) & (truth <= high)) * 100
    width = float(np.median(high - low))
    outside = int(np.sum((low < lo - 1e-12) | (high > hi + 1e-12)))
    infinite = int(np.sum(~np.isfinite(low) | ~np.isfinite(high)))
    return cover, width, outside, infinite


def _row(label: str, cells: dict[str, tuple], sets: int) -> str:
    se = math.sqrt(0.95 * 0.05 / sets) * 100
    parts = [f"{k} {c:.1f} % (w {w:.3f}, out {o}, inf {i})" for k, (c, w, o, i) in cells.items()]
    return f"{label:34} " + "; ".join(parts) + f"   [MC SE {se:.1f}]"


def bounded_cells(sets: int) -> list[str]:
    out = []
    for name, draw in _bounded_shapes().items():
        truth = _truth(draw)
        for n in (10, 20, 50, 100):
            rng = np.random.default_rng([zlib.crc32(name.encode()), n])  # the same every run
            res: dict[str, tuple[list[float], list[float]]] = {
                k: ([], []) for k in ("bootstrap-t", "bootstrap-t logit", "logit-t", "auto")
            }
            for s in range(sets):
                x = draw(rng, n)
                runs: dict[str, Any] = {
                    "bootstrap-t": booteval.ci(x, method="studentized", n_resamples=B, seed=s),
                    "bootstrap-t logit": booteval.ci(
                        x, method="studentized", transform="logit", n_resamples=B, seed=s
                    ),
                    "auto": booteval.ci(x, n_resamples=B, seed=s),
                }
                if x.min() == x.max():  # both give the exact bound of the share
                    runs["logit-t"] = runs["auto"]
                else:
                    runs["logit-t"] = cluster_robust_interval(x, np.arange(n), link="logit")
                for k, r in runs.items():
                    res[k][0].append(r.low)
                    res[k][1].append(r.high)
            cells = {k: _summary(lo, hi, truth, 0.0, 1.0) for k, (lo, hi) in res.items()}
            out.append(_row(f"bounded {name}, N = {n}", cells, sets))
            print(out[-1], flush=True)
    return out


def _clustered(rng, g, kind):
    sizes = rng.geometric(0.25, g)
    clusters = np.repeat(np.arange(g), sizes)
    if kind == "epochs":  # a question's epochs: Beta(2, 1) success chance, 4 epochs averaged
        p = rng.beta(2, 1, g)[clusters]
        return rng.binomial(4, p) / 4.0, clusters
    effect = rng.normal(0, 0.7, g)[clusters]
    return np.exp(effect + rng.normal(0, 0.7, clusters.size)), clusters


def clustered_cells(sets: int) -> list[str]:
    out = []
    truths = {"epochs": 2.0 / 3.0, "lognormal": math.exp((0.49 + 0.49) / 2)}
    for kind in ("epochs", "lognormal"):
        lo, hi = (0.0, 1.0) if kind == "epochs" else (0.0, math.inf)
        link = "logit" if kind == "epochs" else "log"
        for g in (4, 6, 8, 12):
            rng = np.random.default_rng(g * 7 + len(kind))
            res = {k: ([], []) for k in ("sym bootstrap-t", "CR2", f"CR2 {link}", "auto")}
            for s in range(sets):
                x, cl = _clustered(rng, g, kind)
                runs = {
                    "sym bootstrap-t": booteval.ci(
                        x, clusters=cl, method="studentized-symmetric", n_resamples=B, seed=s
                    ),
                    "CR2": cluster_robust_interval(x, cl),
                    f"CR2 {link}": cluster_robust_interval(x, cl, link=link),
                    "auto": booteval.ci(x, clusters=cl, n_resamples=B, seed=s),
                }
                for k, r in runs.items():
                    res[k][0].append(r.low)
                    res[k][1].append(r.high)
            cells = {k: _summary(a, b, truths[kind], lo, hi) for k, (a, b) in res.items()}
            out.append(_row(f"clustered {kind}, {g} clusters", cells, sets))
            print(out[-1], flush=True)
    return out


def issue_cells(sets: int) -> list[str]:
    out = []
    rng = np.random.default_rng(8)
    res = {k: ([], []) for k in ("CR2", "CR2 logit", "clustered Wilson", "auto")}
    for s in range(sets):  # 8 unequal clusters, accuracy 0.9 (a Beta cluster effect)
        sizes = rng.geometric(0.15, 8)
        cl = np.repeat(np.arange(8), sizes)
        y = (rng.random(cl.size) < rng.beta(9, 1, 8)[cl]).astype(float)
        runs = {
            "CR2": cluster_robust_interval(y, cl),
            "CR2 logit": cluster_robust_interval(y, cl, link="logit"),
            "clustered Wilson": booteval.closed_forms.clustered_wilson_interval(y, cl),
            "auto": booteval.ci(y, clusters=cl, n_resamples=B, seed=s),
        }
        for k, r in runs.items():
            res[k][0].append(r.low)
            res[k][1].append(r.high)
    cells = {k: _summary(a, b, 0.9, 0.0, 1.0) for k, (a, b) in res.items()}
    out.append(_row("issue: 8 unequal clusters, p = 0.9", cells, sets))
    print(out[-1], flush=True)
    return out


def proportion_grid(sets: int) -> list[str]:
    """A proportion with 5 or 8 clusters: p in {0.5, 0.7, 0.9, 0.95}, a Beta cluster effect
    of concentration 2, 10 or 50, clusters of 10 rows (fitted: the logit scale was chosen
    here) and of geometric sizes (held out). The closed forms CR2, CR2 on the logit scale
    and the clustered Wilson interval (a data set with one outcome only takes the clustered
    Wilson interval in each of them, as ``method="auto"`` does), and the default itself
    (``auto``: ``booteval.ci``)."""
    import itertools

    from booteval.closed_forms import clustered_wilson_interval

    out = []
    for sizes in ("equal", "geometric"):
        cover: dict[str, list[float]] = {
            "CR2": [], "CR2 logit": [], "clustered Wilson": [], "auto": []
        }  # fmt: skip
        for p, g, kappa in itertools.product((0.5, 0.7, 0.9, 0.95), (5, 8), (2, 10, 50)):
            rng = np.random.default_rng(int(p * 100) + g * 7 + kappa)
            hits = {k: 0 for k in cover}
            for s in range(sets):
                sz = np.full(g, 10) if sizes == "equal" else rng.geometric(0.15, g)
                cl = np.repeat(np.arange(g), sz)
                y = (rng.random(cl.size) < rng.beta(p * kappa, (1 - p) * kappa, g)[cl]) * 1.0
                if y.min() == y.max():
                    r = clustered_wilson_interval(y, cl)
                    runs = dict.fromkeys(("CR2", "CR2 logit", "clustered Wilson"), r)
                else:
                    runs = {"CR2": cluster_robust_interval(y, cl),
                            "CR2 logit": cluster_robust_interval(y, cl, link="logit"),
                            "clustered Wilson": clustered_wilson_interval(y, cl)}  # fmt: skip
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    runs["auto"] = booteval.ci(y, clusters=cl, n_resamples=B, seed=s)
                for k, r in runs.items():
                    hits[k] += r.low <= p <= r.high
            for k in cover:
                cover[k].append(100.0 * hits[k] / sets)
        label = "fitted (clusters of 10)" if sizes == "equal" else "held out (geometric)"
        for k, v in cover.items():
            c = np.array(v)
            out.append(
                f"proportion, 5-8 clusters, {label:24} {k:17} mean |cov - 95| "
                f"{np.mean(np.abs(c - 95)):.2f}, lowest {c.min():.1f} %, "
                f"in [93.5, 96.5] {int(np.sum((c >= 93.5) & (c <= 96.5)))} of {c.size}"
            )
            print(out[-1], flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--only", choices=["proportion", "bounded", "clustered", "issue"])
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    for name, fn in (("proportion", proportion_grid), ("issue", issue_cells),
                     ("clustered", clustered_cells), ("bounded", bounded_cells)):  # fmt: skip
        if args.only in (None, name):
            fn(args.sets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
