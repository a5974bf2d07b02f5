"""The coverage atlas beyond its one model: families the grid never drew, fitted and held out.

The atlas (``coverage_atlas.py``) draws every clustered cell from one model (Poisson cluster
sizes, a normal cluster effect). ``method="auto"``'s thresholds were read off that grid. This
script adds families built differently, each with its truth, and keeps **every data set's**
outcome for every candidate method, so that the whole rule (not one branch) can be judged
per data set, for any value of its thresholds:

* binary outcomes in clusters of equal, geometric or lognormal sizes, the size independent of
  the outcome or correlated with it (larger clusters easier), a Beta cluster effect with
  intra-cluster correlation 0.05, 0.2 or 0.5, accuracy 0.7 or 0.9 (and, in later studies,
  0.5 or 0.95, then 0.6, 0.8 or 0.97, held out from the fit that preceded them);
* a lognormal score in clusters of geometric or lognormal sizes, independent or correlated;
* the mean of skewed (exponential) and heavy-tailed (t3) scores on independent rows;
* the Pearson correlation of lognormal margins and of a bivariate t3;
* ROC-AUC and binary F1 at 10 % and 5 % prevalence;
* and the original grid's own clustered accuracy cells and iid ROC-AUC and Pearson cells
  (``coverage_atlas.py``), on the grid's own data sets and bootstrap seeds.

Every family belongs to one half: ``fit`` (where :mod:`atlas_families_fit` chooses the
thresholds, together with the ``grid`` cells) or ``held-out`` (where the chosen rule is only
reported). Usage::

    python benchmarks/atlas_families.py                 # resumable; about 4 hours on 2 cores
    python benchmarks/atlas_families.py --sets 100      # a quick look (another file)
    python benchmarks/atlas_families.py --fill          # add what older records lack
    python benchmarks/atlas_families_fit.py             # the fit, and atlas_families.md
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
import warnings
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.special import expit, logit
from scipy.stats import norm

import booteval
from booteval import closed_forms as cf
from booteval.inference.auto_method import natural_transform

B = 999
INNER = 200  # the calibrated bootstrap's inner resamples
GAMMA = 0.5  # correlated sizes: the cluster's logit (log) effect grows by GAMMA * log(size / mean)
TRUTH_DRAWS = 2_000_000
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "atlas_families.jsonl.gz"


@dataclass(frozen=True)
class Cell:
    """One cell: a family (its ``kind``, ``half`` and name) at one setting."""

    family: str
    kind: str  # proportion | mean-clustered | mean | pearson | roc_auc | f1
    half: str  # fit | held-out | grid
    params: dict = field(hash=False, compare=False)

    @property
    def key(self) -> str:
        return self.family + " | " + ", ".join(f"{k}={v}" for k, v in self.params.items())


# -- data-generating processes ----------------------------------------------------------------


def _sizes(rng: np.random.Generator, kind: str, g: int, mean: float) -> np.ndarray:
    if kind == "equal":
        return np.full(g, int(mean))
    if kind == "geometric":
        return rng.geometric(1.0 / mean, g)
    # lognormal, sigma 0.8, mean ``mean`` before rounding; at least one row
    raw = rng.lognormal(math.log(mean) - 0.32, 0.8, g)
    return np.maximum(1, np.round(raw)).astype(np.int64)


def _shift(m: np.ndarray, mean: float, linked: bool) -> np.ndarray:
    return GAMMA * (np.log(m) - math.log(mean)) if linked else np.zeros(m.size)


def _beta(p: float, icc: float) -> tuple[float, float]:
    return p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc


def draw_proportion(rng, sizes: str, linked: bool, g: int, msize: float, p: float, icc: float):
    m = _sizes(rng, sizes, g, msize)
    pg = expit(logit(rng.beta(*_beta(p, icc), g)) + _shift(m, msize, linked))
    y = (rng.random(int(m.sum())) < np.repeat(pg, m)).astype(float)
    return (y,), {"clusters": np.repeat(np.arange(g), m)}


def truth_proportion(sizes: str, linked: bool, msize: float, p: float, icc: float) -> float:
    if not linked or sizes == "equal":
        return p
    rng = np.random.default_rng(zlib.crc32(f"{sizes}{msize}{p}{icc}".encode()))
    m = _sizes(rng, sizes, TRUTH_DRAWS, msize)
    pg = expit(logit(rng.beta(*_beta(p, icc), m.size)) + _shift(m, msize, True))
    return float(np.sum(m * pg) / np.sum(m))


def draw_lognormal(rng, sizes: str, linked: bool, g: int, msize: float, sd: float):
    m = _sizes(rng, sizes, g, msize)
    u = rng.normal(0.0, sd, g) + _shift(m, msize, linked)
    x = np.exp(np.repeat(u, m) + rng.normal(0.0, 1.0, int(m.sum())))
    return (x,), {"clusters": np.repeat(np.arange(g), m)}


def truth_lognormal(sizes: str, linked: bool, msize: float, sd: float) -> float:
    base = math.exp(sd * sd / 2 + 0.5)
    if not linked:
        return base
    rng = np.random.default_rng(zlib.crc32(f"{sizes}{msize}{sd}".encode()))
    m = _sizes(rng, sizes, TRUTH_DRAWS, msize).astype(float)
    return base * float(np.sum(m * np.exp(_shift(m, msize, True))) / np.sum(m))


def draw_mean(rng, shape: str, n: int):
    x = rng.exponential(1.0, n) if shape == "exponential" else 1.0 + rng.standard_t(3, n)
    return (x,), {}


LOGNORMAL_R = (math.exp(0.5) - 1) / (math.e - 1)  # Pearson r of lognormal margins, copula 0.5


def draw_pearson(rng, shape: str, n: int):
    z = rng.normal(size=(n, 2))
    z[:, 1] = 0.5 * z[:, 0] + math.sqrt(0.75) * z[:, 1]
    if shape == "lognormal":
        z = np.exp(z)
    else:  # bivariate t3: an elliptical law whose correlation is the copula's 0.5
        z = z / np.sqrt(rng.chisquare(3, n) / 3)[:, None]
    return (z[:, 0], z[:, 1]), {}


AUC_SHIFT, F1_SHIFT, F1_THRESHOLD = 1.0, 2.0, 1.5


def _labels(rng, n: int, prevalence: float) -> np.ndarray:
    while True:
        y = (rng.random(n) < prevalence).astype(int)
        if 1 < y.sum() < n - 1:
            return y


def draw_auc(rng, prevalence: float, n: int):
    y = _labels(rng, n, prevalence)
    return (y, rng.normal(AUC_SHIFT * y, 1.0)), {}


def draw_f1(rng, prevalence: float, n: int):
    y = _labels(rng, n, prevalence)
    pred = (rng.normal(F1_SHIFT * y, 1.0) > F1_THRESHOLD).astype(int)
    return (y, pred), {}


def truth_f1(prevalence: float) -> float:
    tp = prevalence * norm.sf(F1_THRESHOLD - F1_SHIFT)
    fp = (1 - prevalence) * norm.sf(F1_THRESHOLD)
    fn = prevalence * norm.cdf(F1_THRESHOLD - F1_SHIFT)
    return float(2 * tp / (2 * tp + fp + fn))


# -- the families -----------------------------------------------------------------------------

PROPORTION_FAMILIES = (  # (sizes, correlated with the outcome, half)
    ("equal", False, "fit"),
    ("geometric", True, "fit"),
    ("lognormal", False, "fit"),
    ("geometric", False, "held-out"),
    ("lognormal", True, "held-out"),
)
PROPORTION_GRID = ((5, 10), (8, 10), (12, 10), (20, 10), (40, 10), (6, 40), (20, 40))
#: accuracies 0.5 and 0.95: held out after the fit of stop 44, in the fit half since
OTHER_P_FAMILIES = (("equal", False), ("geometric", False))
OTHER_P = (0.5, 0.95)
#: held out from the fit that took the families above: accuracies no fitted family has, in
#: cluster sizes (equal; lognormal, size-linked) drawn as in other families
NEW_P_FAMILIES = (("equal", False), ("lognormal", True))
NEW_P = (0.6, 0.8, 0.97)
LOGNORMAL_FAMILIES = (
    ("geometric", False, "fit"),
    ("lognormal", True, "fit"),
    ("geometric", True, "held-out"),
    ("lognormal", False, "held-out"),
)


def _sizes_name(sizes: str, linked: bool) -> str:
    return f"{sizes} sizes" + (", size-linked" if linked else "")


def cells() -> list[Cell]:
    out: list[Cell] = []
    for sizes, linked, half in PROPORTION_FAMILIES:
        name = f"accuracy, {_sizes_name(sizes, linked)}"
        for g, msize in PROPORTION_GRID:
            for p in (0.7, 0.9):
                for icc in (0.05, 0.2, 0.5):
                    out.append(Cell(name, "proportion", half, {"sizes": sizes, "linked": linked,
                                    "g": g, "msize": msize, "p": p, "icc": icc}))  # fmt: skip
    for families, ps, half in ((OTHER_P_FAMILIES, OTHER_P, "fit"),
                               (NEW_P_FAMILIES, NEW_P, "held-out")):  # fmt: skip
        for sizes, linked in families:
            name = f"accuracy {' or '.join(f'{p:g}' for p in ps)}, {_sizes_name(sizes, linked)}"
            name = name.replace(" or ", ", ", len(ps) - 2)
            for g, msize in PROPORTION_GRID:
                for p in ps:
                    for icc in (0.05, 0.2, 0.5):
                        out.append(Cell(name, "proportion", half, {"sizes": sizes,
                                        "linked": linked, "g": g, "msize": msize, "p": p,
                                        "icc": icc}))  # fmt: skip
    for sizes, linked, half in LOGNORMAL_FAMILIES:
        name = f"lognormal mean, {_sizes_name(sizes, linked)}"
        for g in (5, 8, 12, 20, 40):
            for sd in (0.3, 0.8):
                out.append(Cell(name, "mean-clustered", half, {"sizes": sizes, "linked": linked,
                                "g": g, "msize": 10, "sd": sd}))  # fmt: skip
    for shape, half in (("exponential", "fit"), ("t3", "held-out")):
        for n in (10, 20, 50, 200):
            out.append(Cell(f"mean, {shape} scores", "mean", half, {"shape": shape, "n": n}))
    for shape, half in (("lognormal", "fit"), ("t3", "held-out")):
        for n in (20, 50, 100, 300):
            out.append(Cell(f"Pearson r, {shape}", "pearson", half, {"shape": shape, "n": n}))
    for prev, half in ((0.1, "fit"), (0.05, "held-out")):
        for n in (100, 300, 1000):
            out.append(Cell(f"ROC-AUC, prevalence {prev}", "roc_auc", half,
                            {"prevalence": prev, "n": n}))  # fmt: skip
            out.append(Cell(f"F1, prevalence {prev}", "f1", half, {"prevalence": prev, "n": n}))
    return out + grid_cells()


#: the original grid's clustered accuracy cells (``coverage_atlas.py``: Poisson sizes around a
#: lognormal propensity, a normal cluster effect tied to the size) and its iid ROC-AUC (30 %
#: positives) and Pearson (bivariate normal) cells, rerun here on the grid's own data sets
#: and bootstrap seeds so that every candidate's outcome is kept per data set
GRID_FAMILY = "accuracy, the grid's model"
GRID_P = (0.5, 0.9, 0.99)
GRID_IID = {"roc_auc": "ROC-AUC, the grid's model", "pearson": "Pearson r, the grid's model"}
GRID_IID_SIZES = (20, 50, 200, 1000)


def grid_cells() -> list[Cell]:
    import coverage_atlas as ca

    metrics = [f"accuracy_p{p:g}" for p in GRID_P]
    designs = [f"clustered-{g}" for g in ca.CLUSTER_COUNTS]
    out = [Cell(GRID_FAMILY, "proportion", "grid", {"name": c.name, "g": c.n_clusters})
           for c in ca.build_grid(metrics=metrics, designs=designs)]  # fmt: skip
    for c in ca.build_grid(metrics=list(GRID_IID), sizes=GRID_IID_SIZES, designs=["iid"]):
        out.append(Cell(GRID_IID[c.metric], c.metric, "grid", {"name": c.name, "n": c.n}))
    return out


def _grid_truths() -> dict[str, float]:
    with open(HERE / "coverage_atlas.jsonl", encoding="utf-8") as f:
        recs = (json.loads(line) for line in f if '"record": "cell"' in line)
        return {r["cell"]: float(r["truth"]) for r in recs}


def _grid_cell(cell: Cell):
    import coverage_atlas as ca

    metric, n, design = cell.params["name"].split("/")
    return ca, ca.Cell(metric, int(n.removeprefix("n=")), design)


def _dataset(cell: Cell, s: int) -> tuple[np.random.Generator, int]:
    """Data set ``s``'s generator and bootstrap seed (the grid's own for a grid cell)."""
    if cell.half != "grid":
        return np.random.default_rng([zlib.crc32(cell.key.encode()), s]), s
    ca, _ = _grid_cell(cell)
    return ca.dataset_seeds(ca.cell_seed(cell.params["name"]), s)


def _draw_and_truth(cell: Cell) -> tuple[Callable, float, str, tuple[float, float]]:
    """The cell's draw (``rng -> (arrays, design)``), truth, metric and range."""
    q = cell.params
    if cell.half == "grid":
        ca, gc = _grid_cell(cell)
        spec = ca.METRICS[gc.metric]

        if cell.kind != "proportion":

            def draw_iid(rng):
                return tuple(np.asarray(a) for a in ca.draw_dataset(spec, gc, rng)[0].arrays), {}

            low = -1.0 if cell.kind == "pearson" else 0.0
            return draw_iid, _grid_truths()[q["name"]], cell.kind, (low, 1.0)

        def draw_grid(rng):
            data, clusters, _ = ca.draw_dataset(spec, gc, rng)
            return (np.asarray(data.scores, dtype=float),), {"clusters": clusters}

        return draw_grid, _grid_truths()[q["name"]], "mean", (0.0, 1.0)
    if cell.kind == "proportion":
        args = (q["sizes"], q["linked"], q["g"], q["msize"], q["p"], q["icc"])
        truth = truth_proportion(q["sizes"], q["linked"], q["msize"], q["p"], q["icc"])
        return (lambda rng: draw_proportion(rng, *args)), truth, "mean", (0.0, 1.0)
    if cell.kind == "mean-clustered":
        args = (q["sizes"], q["linked"], q["g"], q["msize"], q["sd"])
        truth = truth_lognormal(q["sizes"], q["linked"], q["msize"], q["sd"])
        return (lambda rng: draw_lognormal(rng, *args)), truth, "mean", (0.0, math.inf)
    if cell.kind == "mean":
        low = 0.0 if q["shape"] == "exponential" else -math.inf
        return (lambda rng: draw_mean(rng, q["shape"], q["n"])), 1.0, "mean", (low, math.inf)
    if cell.kind == "pearson":
        truth = LOGNORMAL_R if q["shape"] == "lognormal" else 0.5
        return (lambda rng: draw_pearson(rng, q["shape"], q["n"])), truth, "pearson", (-1.0, 1.0)
    if cell.kind == "roc_auc":
        truth = float(norm.cdf(AUC_SHIFT / math.sqrt(2)))
        return (lambda rng: draw_auc(rng, q["prevalence"], q["n"])), truth, "roc_auc", (0.0, 1.0)
    truth = truth_f1(q["prevalence"])
    return (lambda rng: draw_f1(rng, q["prevalence"], q["n"])), truth, "f1", (0.0, 1.0)


# -- the candidate methods --------------------------------------------------------------------


def _bootstrap(arrays, design, metric, seed, method, transform=None, **kw):
    return booteval.ci(*arrays, metric=metric, method=method, seed=seed, n_resamples=B,
                       transform=transform, **design, **kw)  # fmt: skip


def candidates(cell: Cell, arrays, design, metric: str, seed: int) -> dict[str, tuple]:
    """Every candidate's interval ``(low, high)`` on one data set (NaN where it fails)."""
    out: dict[str, tuple] = {}

    def take(name, fn):
        try:
            r = fn()
            out[name] = (float(r.low), float(r.high))
        except Exception:  # a method that cannot be formed is a miss
            out[name] = (math.nan, math.nan)

    run = lambda method, tr=None, **kw: _bootstrap(arrays, design, metric, seed, method, tr, **kw)  # noqa: E731
    base = run("percentile")
    for m in ("percentile", "bca"):
        take(m, lambda m=m: base.with_method(m))
    if cell.kind in ("proportion", "mean-clustered", "mean"):  # the compiled inner level
        take("calibrated", lambda: run("calibrated", n_inner=INNER))
    clusters = design.get("clusters")
    if cell.kind == "proportion":
        y = arrays[0]
        for tr, suffix in ((None, ""), ("logit", "-logit")):
            st = run("studentized", tr)
            take("studentized" + suffix, lambda st=st: st)
            take("studentized-symmetric" + suffix,
                 lambda st=st: st.with_method("studentized-symmetric"))  # fmt: skip
        take("cr2", lambda: cf.cluster_robust_interval(y, clusters, correction="CR2",
                                                       link="logit"))  # fmt: skip
        take("cr2-identity", lambda: cf.cluster_robust_interval(y, clusters, correction="CR2"))
        take("clustered-wilson", lambda: cf.clustered_wilson_interval(y, clusters))
    elif cell.kind in ("mean-clustered", "mean"):
        x = arrays[0]
        log = "log" if float(x.min()) >= 0 else None
        trs = ((None, "-identity"), (log, "")) if log else ((None, ""),)
        for tr, suffix in trs:
            tr_obj = None if tr is None else _log_transform(x)
            st = run("studentized", tr_obj)
            take("studentized" + suffix, lambda st=st: st)
            if cell.kind == "mean-clustered":
                take("studentized-symmetric" + suffix,
                     lambda st=st: st.with_method("studentized-symmetric"))  # fmt: skip
        if cell.kind == "mean-clustered":
            take("cr2", lambda: cf.cluster_robust_interval(x, clusters, correction="CR2",
                                                           link="log"))  # fmt: skip
        take("normal", lambda: base.with_method("normal"))
    else:
        take("studentized", lambda: run("studentized"))
        if cell.kind == "pearson":
            take("fisher-z", lambda: cf.fisher_z_interval(base.estimate, arrays[0].size))
            take("jackknife-t", lambda: _bootstrap(arrays, design, metric, seed, "auto"))
        if cell.kind == "roc_auc":
            take("delong", lambda: cf.delong_interval(*arrays))
            take("newcombe-auc", lambda: cf.newcombe_auc_interval(*arrays))
    return out


def _log_transform(x: np.ndarray):
    """The transform ``method="auto"`` uses for the bootstrap-t of a non-negative mean."""
    return natural_transform(x, x.size)


def _minority(y: np.ndarray) -> int:
    k = round(float(y.sum()))
    return min(k, y.size - k)


def _minority_clusters(y: np.ndarray, clusters: np.ndarray) -> int:
    """The clusters holding at least one row of the rarer outcome."""
    rare = 1.0 if 2 * float(y.sum()) <= y.size else 0.0
    return int(np.unique(clusters[y == rare]).size)


def _design_effect(y: np.ndarray, clusters: np.ndarray) -> float:
    """The estimated design effect of a clustered proportion: its cluster-robust (CR0)
    variance over the binomial one (1 where every row is alike)."""
    p = float(y.mean())
    if p in (0.0, 1.0):
        return 1.0
    _, code = np.unique(clusters, return_inverse=True)
    totals = np.bincount(code, weights=y - p)
    return float(np.sum(totals**2) / (y.size * p * (1.0 - p)))


def run_cell(cell: Cell, sets: int) -> dict:
    """``sets`` data sets of one cell: every candidate's and the default's outcome on each."""
    draw, truth, metric, (lo, hi) = _draw_and_truth(cell)
    cover: dict[str, list[str]] = {}
    widths: dict[str, list[float]] = {}
    ns, minority, spread, deff, chosen, outside = [], [], [], [], {}, 0
    t0 = time.perf_counter()
    for s in range(sets):
        rng, seed = _dataset(cell, s)
        arrays, design = draw(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = candidates(cell, arrays, design, metric, seed)
            auto = _bootstrap(arrays, design, metric, seed, "auto")
        found["auto"] = (float(auto.low), float(auto.high))
        chosen[auto.method] = chosen.get(auto.method, 0) + 1
        outside += bool(auto.low < lo - 1e-12 or auto.high > hi + 1e-12)
        outside += bool(not (math.isfinite(auto.low) and math.isfinite(auto.high)))
        ns.append(int(arrays[0].size))
        if cell.kind == "proportion":
            minority.append(_minority(arrays[0]))
            spread.append(_minority_clusters(arrays[0], design["clusters"]))
            deff.append(_design_effect(arrays[0], design["clusters"]))
        elif cell.kind == "roc_auc":  # the rarer class
            minority.append(_minority(arrays[0]))
        for name, (a, b) in found.items():
            ok = a <= truth <= b
            cover.setdefault(name, []).append("1" if ok else "0")
            widths.setdefault(name, []).append(b - a)
    return {
        "key": cell.key, "family": cell.family, "kind": cell.kind, "half": cell.half,
        "params": cell.params, "truth": truth, "sets": sets, "n": ns, "minority": minority,
        "minority_clusters": spread, "design_effect": deff,
        "cover": {k: "".join(v) for k, v in cover.items()},
        "median_width": {k: float(np.nanmedian(v)) for k, v in widths.items()},
        "chosen": chosen, "outside": outside, "seconds": round(time.perf_counter() - t0, 1),
    }  # fmt: skip


def _fill_newcombe(r: dict, cell: Cell) -> None:
    """Newcombe's score interval on each of a ROC-AUC record's data sets, drawn again (its
    rarer class checked equal to the one recorded)."""
    draw, truth = _draw_and_truth(cell)[:2]
    bits, widths = [], []
    for s in range(r["sets"]):
        (y, score), _ = draw(_dataset(cell, s)[0])
        assert _minority(y) == r["minority"][s], r["key"]
        out = cf.newcombe_auc_interval(y, score)
        bits.append("1" if out.low <= truth <= out.high else "0")
        widths.append(out.high - out.low)
    r["cover"]["newcombe-auc"] = "".join(bits)
    r["median_width"]["newcombe-auc"] = float(np.median(widths))


#: a data set whose resample misses every cluster of its rarer outcome with at least this
#: probability may have a bootstrap-t with too many zero standard errors (an infinite
#: quantile); below it, 999 replicates hold too few such resamples for that (10 expected,
#: against the 25 or 50 an infinite 97.5 % or 95 % quantile needs)
MISS_ALL = 0.005


def _risky_sets(r: dict, cell: Cell):
    """The data sets of a clustered proportion's record whose resamples may miss every
    cluster of the rarer outcome often enough for an infinite bootstrap-t quantile
    (:data:`MISS_ALL`), drawn again: ``(index, arrays, design, seed)``."""
    draw = _draw_and_truth(cell)[0]
    g = cell.params["g"]
    for s, k in enumerate(r["minority_clusters"]):
        if ((g - k) / g) ** g >= MISS_ALL:
            rng, seed = _dataset(cell, s)
            yield (s, *draw(rng), seed)


def _fill_vacuous(r: dict, cell: Cell) -> None:
    """Whether each data set's bootstrap-t on the logit scale (equal-tailed and symmetric)
    is vacuous, an infinite quantile (:func:`booteval.ci`'s ``details["vacuous"]``), where
    ``method="auto"`` now gives CR2 instead. Run again only where a resample can miss every
    cluster of the rarer outcome often enough (:func:`_risky_sets`); each rerun is checked
    against the recorded outcome."""
    truth, metric = _draw_and_truth(cell)[1:3]
    flags = {
        "studentized-logit": ["0"] * r["sets"],
        "studentized-symmetric-logit": ["0"] * r["sets"],
    }
    for s, arrays, design, seed in _risky_sets(r, cell):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            st = _bootstrap(arrays, design, metric, seed, "studentized", "logit")
            for name, res in (("studentized-logit", st),
                              ("studentized-symmetric-logit",
                               st.with_method("studentized-symmetric"))):  # fmt: skip
                hit = "1" if res.low <= truth <= res.high else "0"
                assert hit == r["cover"][name][s], (r["key"], s, name)
                flags[name][s] = "1" if res.details.get("vacuous") else "0"
    r["vacuous"] = {k: "".join(v) for k, v in flags.items()}


#: the bootstrap-t candidates of a clustered proportion, by (transform, symmetric)
BOOTSTRAP_T = {
    "studentized": (None, False),
    "studentized-symmetric": (None, True),
    "studentized-logit": ("logit", False),
    "studentized-symmetric-logit": ("logit", True),
}


def _unusable(low: float, high: float, transform: str | None) -> bool:
    """Whether an interval is one no default may give: an end infinite on the scale it was
    formed on (on the proportion's own scale an infinite end, on the logit scale an end at
    0 or 1, which the logistic function reaches only from an infinite logit), which
    excludes nothing on its side (a lower end of 0 for an accuracy of 0.96), or no width
    (every row alike)."""
    if not high > low:
        return True
    if transform is None:
        return not (math.isfinite(low) and math.isfinite(high))
    return low <= 0.0 or high >= 1.0


def infinite_ends(r: dict, cell: Cell) -> dict[str, str]:
    """Per data set of a clustered proportion's record, whether each bootstrap-t candidate
    (:data:`BOOTSTRAP_T`) is one no default may give (:func:`_unusable`). Its interval is
    formed again only where a resample misses every cluster of the rarer outcome often
    enough to give an infinite quantile (:func:`_risky_sets`); each rerun is checked
    against the recorded outcome."""
    truth, metric = _draw_and_truth(cell)[1:3]
    flags = {name: ["0"] * r["sets"] for name in BOOTSTRAP_T}
    for s, arrays, design, seed in _risky_sets(r, cell):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs = {tr: _bootstrap(arrays, design, metric, seed, "studentized", tr)
                    for tr in (None, "logit")}  # fmt: skip
            found = {name: runs[tr].with_method("studentized-symmetric") if sym else runs[tr]
                     for name, (tr, sym) in BOOTSTRAP_T.items()}  # fmt: skip
        for name, (tr, _) in BOOTSTRAP_T.items():
            res = found[name]
            hit = "1" if res.low <= truth <= res.high else "0"
            assert hit == r["cover"][name][s], (r["key"], s, name)
            flags[name][s] = "1" if _unusable(res.low, res.high, tr) else "0"
    return {k: "".join(v) for k, v in flags.items()}


def _fill_pearson_jackknife(r: dict, cell: Cell) -> None:
    """The default's interval for Pearson's r on independent rows now (the jackknife t over
    rows on Fisher's z scale, or the percentile interval where it has no width) on each of
    a record's data sets, drawn again (its percentile outcome checked equal to the one
    recorded)."""
    draw, truth, metric = _draw_and_truth(cell)[:3]
    bits, widths = [], []
    for s in range(r["sets"]):
        rng, seed = _dataset(cell, s)
        arrays, design = draw(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _bootstrap(arrays, design, metric, seed, "auto")
        pct = out.with_method("percentile")
        assert ("1" if pct.low <= truth <= pct.high else "0") == r["cover"]["percentile"][s]
        bits.append("1" if out.low <= truth <= out.high else "0")
        widths.append(out.high - out.low)
    r["cover"]["jackknife-t"] = "".join(bits)
    r["median_width"]["jackknife-t"] = float(np.median(widths))


def fill(path: Path = DEFAULT_OUT, workers: int = 2) -> int:
    """Add what later studies record of a proportion's data sets (the clusters holding the
    rarer outcome, the design effect, whether its bootstrap-t is vacuous or unusable), of ROC-AUC's
    (the rows of the rarer class, Newcombe's score interval) and of Pearson's (the row
    jackknife t) to the records that lack it,
    by drawing their data sets again (checked equal on what was recorded); returns the
    records filled."""
    records, by_key, filled = load(path), {c.key: c for c in cells()}, 0
    todo = [r for r in records if r["kind"] == "proportion" and "infinite_end" not in r]
    with ProcessPoolExecutor(workers) as pool:
        found = pool.map(infinite_ends, todo, [by_key[r["key"]] for r in todo])
        for r, flags in zip(todo, found, strict=True):
            r["infinite_end"], filled = flags, filled + 1
    for r in records:
        if r["kind"] == "roc_auc" and not r["minority"]:
            draw = _draw_and_truth(by_key[r["key"]])[0]
            r["minority"] = [_minority(draw(_dataset(by_key[r["key"]], s)[0])[0][0])
                             for s in range(r["sets"])]  # fmt: skip
            filled += 1
        if r["kind"] == "roc_auc" and "newcombe-auc" not in r["cover"]:
            _fill_newcombe(r, by_key[r["key"]])
            filled += 1
        if r["kind"] == "pearson" and "jackknife-t" not in r["cover"]:
            _fill_pearson_jackknife(r, by_key[r["key"]])
            filled += 1
        if r["kind"] == "proportion" and "vacuous" not in r and r.get("minority_clusters"):
            _fill_vacuous(r, by_key[r["key"]])
            filled += 1
        if r["kind"] != "proportion" or r.get("design_effect"):
            continue
        cell = by_key[r["key"]]
        draw = _draw_and_truth(cell)[0]
        spread, deff = [], []
        for s in range(r["sets"]):
            (y,), design = draw(_dataset(cell, s)[0])
            assert y.size == r["n"][s] and _minority(y) == r["minority"][s], r["key"]
            spread.append(_minority_clusters(y, design["clusters"]))
            deff.append(_design_effect(y, design["clusters"]))
        assert r.get("minority_clusters") in (None, [], spread), r["key"]
        r["minority_clusters"], r["design_effect"], filled = spread, deff, filled + 1
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    return filled


def load(path: Path = DEFAULT_OUT) -> list[dict]:
    if not path.is_file():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--only", default=None, help="run the cells whose key contains this")
    ap.add_argument("--fill", action="store_true", help="only add what records lack (fill)")
    args = ap.parse_args(argv)
    out = args.out or (
        DEFAULT_OUT if args.sets == 400 else HERE / f"atlas_families_{args.sets}.jsonl.gz"
    )
    if args.fill:
        print(f"{fill(out, args.workers)} records filled in {out}")
        return 0
    done = {r["key"] for r in load(out)}
    todo = [c for c in cells() if c.key not in done and (args.only is None or args.only in c.key)]
    print(f"{len(todo)} cells to run ({len(done)} done) -> {out}", flush=True)
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for i, rec in enumerate(pool.map(run_cell, todo, [args.sets] * len(todo))):
            with gzip.open(out, "at", encoding="utf-8") as f:
                f.write(json.dumps(rec) + "\n")
            cov = rec["cover"]["auto"].count("1") / rec["sets"] * 100
            print(f"[{i + 1}/{len(todo)} {time.perf_counter() - t0:.0f} s] {rec['key']}: "
                  f"auto {cov:.1f} % ({rec['seconds']} s)", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
