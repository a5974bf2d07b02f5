"""ROC-AUC near its bounds: where the bootstrap collapses and a score interval does not.

With few rows of one class, or with near-perfect separation, most bootstrap replicates
reproduce the observed AUC and BCa's interval is far too short (with binormal scores at an
AUC of 0.98 it covers 45-89 % with a median 3 to 20 rows of the rarer class). Newcombe's
score interval (method 5,
2006; :func:`booteval.closed_forms.newcombe_auc_interval`) inverts a test whose variance
is a function of the candidate AUC, so it keeps its width. This script measures, on
independent rows, ``--sets`` data sets a cell:

* the default (``booteval.ci(method="auto")``), BCa, the percentile interval, the
  bootstrap-t with DeLong's standard error, Newcombe's interval and DeLong's Wald interval;
* and, for the rule "Newcombe with fewer than K rows in the rarer class, BCa otherwise",
  its coverage for every K, judged per data set (the whole rule, not one branch).

The families, each with its exact AUC:

* **fit**: binormal scores (shifts 1, 2 and 3: AUC 0.76, 0.92, 0.98);
* **held out**: exponential scores (AUC 0.75, 0.92), binormal with the positives' spread
  twice the negatives' (0.75, 0.94), a classifier's probabilities rounded to two decimals
  (ties; 0.92, 0.99). They were held out from the fit, but seen when the threshold was
  chosen;
* **fresh**: Beta scores, 5-point ratings (heavy ties), a mixture (half the positives
  indistinguishable from the negatives), and binormal shifts between and beyond the fitted
  ones (1.5 and 4: AUC 0.86 and 0.998). They were first run with K = 10 fixed (chosen in a
  first, exploratory run of the fit and held-out families): the mixture was farther from
  95 % than BCa in 3 cells, and K became 8, the largest K never farther
  than BCa on fit, held out and fresh together;
* **last**: a mixture with 30 % hard positives, Gamma scores and bimodal negatives, run
  once after K = 8 was fixed.

Usage::

    python benchmarks/auc_score.py                 # 1,000 data sets a cell, ~20 minutes
    python benchmarks/auc_score.py --sets 100 --families fit
    python benchmarks/auc_score.py --stratified    # the same, resampled within classes

It writes ``benchmarks/auc_score.md`` (the coverage atlas page's section, through
``coverage_atlas.py --render``) and ``benchmarks/auc_score.json`` (the counts behind it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import integrate, stats

from booteval.inference.auto_method import AUC_FEW_ROWS

HERE = Path(__file__).resolve().parent
#: the families run once after the threshold was fixed at 8
LAST = "last"
B = 2000
BAND = (93.5, 96.5)
#: what the default does with fewer rows than this in the rarer class (auto_method.AUC_FEW_ROWS)
K_SCAN = (3, 5, 8, 9, 10, 11, 12, 15, 20, 30)
METHODS = ("auto", "bca", "percentile", "studentized", "newcombe-auc", "delong")
DESIGNS = (
    (0.02, 500), (0.05, 60), (0.05, 100), (0.05, 200), (0.05, 400), (0.05, 1000),
    (0.1, 50), (0.1, 100), (0.1, 300), (0.3, 20), (0.3, 30), (0.3, 50), (0.3, 100),
    (0.3, 300), (0.5, 20), (0.5, 100),
)  # fmt: skip


@dataclass(frozen=True)
class Family:
    name: str
    half: str  # fit | held out | fresh
    draw: Callable[[np.random.Generator, np.ndarray], np.ndarray]  # scores given labels
    truth: float


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _discrete_auc(p: np.ndarray, q: np.ndarray) -> float:
    """P(X > Y) + P(X = Y) / 2 for X ~ p, Y ~ q on the same increasing support."""
    below = np.cumsum(q) - q  # P(Y < value)
    return float(np.sum(p * (below + 0.5 * q)))


def binormal(shift: float, half: str) -> Family:
    return Family(f"binormal, shift {shift:g}", half,
                  lambda rng, y: rng.normal(shift * y, 1.0),
                  float(stats.norm.cdf(shift / math.sqrt(2))))  # fmt: skip


def exponential(ratio: float) -> Family:
    return Family(f"exponential, mean ratio {ratio:g}", "held out",
                  lambda rng, y: rng.exponential(np.where(y == 1, ratio, 1.0)),
                  ratio / (1.0 + ratio))  # fmt: skip


def unequal(shift: float) -> Family:
    return Family(f"binormal, positives' sd 2, shift {shift:g}", "held out",
                  lambda rng, y: rng.normal(shift * y, np.where(y == 1, 2.0, 1.0)),
                  float(stats.norm.cdf(shift / math.sqrt(5))))  # fmt: skip


def probabilities(shift: float) -> Family:
    """logistic(binormal - 2) rounded to two decimals: a classifier's output, with ties."""
    cuts = np.clip(np.arange(101) / 100 + 0.005, 1e-300, 1 - 1e-16)
    upper = 2.0 + np.log(cuts / (1 - cuts))  # x below this rounds to at most k / 100
    upper[-1] = np.inf

    def masses(mu: float) -> np.ndarray:
        return np.diff(np.r_[0.0, stats.norm.cdf(upper - mu)])

    truth = _discrete_auc(masses(shift), masses(0.0))
    return Family(f"probabilities, 2 decimals, shift {shift:g}", "held out",
                  lambda rng, y: np.round(_logistic(rng.normal(shift * y, 1.0) - 2.0), 2),
                  truth)  # fmt: skip


def beta_scores() -> Family:
    pos, neg = stats.beta(4, 2), stats.beta(2, 4)
    truth = integrate.quad(lambda x: pos.pdf(x) * neg.cdf(x), 0, 1, epsabs=1e-13)[0]
    return Family("Beta(4, 2) against Beta(2, 4)", "fresh",
                  lambda rng, y: np.where(y == 1, rng.beta(4, 2, y.size), rng.beta(2, 4, y.size)),
                  truth)  # fmt: skip


RATING_POS = np.array([0.05, 0.10, 0.20, 0.30, 0.35])
RATING_NEG = RATING_POS[::-1]


def ratings() -> Family:
    def draw(rng, y):
        pos = rng.choice(5, y.size, p=RATING_POS)
        neg = rng.choice(5, y.size, p=RATING_NEG)
        return np.where(y == 1, pos, neg).astype(float)

    return Family("5-point ratings", "fresh", draw, _discrete_auc(RATING_POS, RATING_NEG))


def mixture(hard_share: float = 0.5, half: str = "fresh") -> Family:
    def draw(rng, y):
        hard = rng.random(y.size) < hard_share
        return rng.normal(np.where((y == 1) & ~hard, 3.0, 0.0), 1.0)

    what = "half" if hard_share == 0.5 else f"{hard_share:.0%}"
    easy = float(stats.norm.cdf(3 / math.sqrt(2)))
    return Family(f"mixture: {what} of the positives like the negatives", half, draw,
                  hard_share * 0.5 + (1 - hard_share) * easy)  # fmt: skip


def gamma_scores() -> Family:
    pos, neg = stats.gamma(3.0), stats.gamma(1.5)
    truth = integrate.quad(lambda x: pos.pdf(x) * neg.cdf(x), 0, np.inf, epsabs=1e-13)[0]
    return Family("Gamma(3) against Gamma(1.5)", LAST,
                  lambda rng, y: np.where(y == 1, rng.gamma(3.0, size=y.size),
                                          rng.gamma(1.5, size=y.size)), truth)  # fmt: skip


def bimodal_negatives() -> Family:
    """Half the negatives far below, half near the positives: placements of the positives
    spread out."""

    def draw(rng, y):
        far = rng.random(y.size) < 0.5
        return rng.normal(np.where(y == 1, 1.5, np.where(far, -2.0, 0.0)), 1.0)

    truth = 0.5 * float(stats.norm.cdf(3.5 / math.sqrt(2))) + 0.5 * float(
        stats.norm.cdf(1.5 / math.sqrt(2))
    )
    return Family("bimodal negatives", LAST, draw, truth)


FAMILIES = (
    binormal(1.0, "fit"), binormal(2.0, "fit"), binormal(3.0, "fit"),
    exponential(3.0), exponential(12.0), unequal(1.5), unequal(3.5),
    probabilities(2.0), probabilities(3.5),
    beta_scores(), ratings(), mixture(), binormal(1.5, "fresh"), binormal(4.0, "fresh"),
    mixture(0.3, LAST), gamma_scores(), bimodal_negatives(),
)  # fmt: skip


def _labels(rng: np.random.Generator, n: int, prevalence: float) -> np.ndarray:
    while True:  # both classes present: the AUC is defined
        y = (rng.random(n) < prevalence).astype(int)
        if 0 < y.sum() < n:
            return y


def _design(cell: dict) -> str:
    return cell.get("design", "independent")  # the first runs had independent rows only


def run_cell(job: tuple[int, int, int, int, bool]) -> dict:
    """One family at one design: per method the hits and the intervals outside [0, 1] or
    infinite; per rarer-class size the data sets and the hits of Newcombe and BCa. With
    ``stratified`` the bootstraps resample within classes (``strata=y``): the same data
    sets, the class sizes kept in every replicate."""
    import booteval
    from booteval.closed_forms import delong_interval, newcombe_auc_interval

    f, d, sets, seed, stratified = job
    fam, (prevalence, n) = FAMILIES[f], DESIGNS[d]
    hits = dict.fromkeys(METHODS, 0)
    bad = dict.fromkeys(METHODS, 0)
    chosen: dict[str, int] = {}
    by_rows: dict[int, list[int]] = {}
    for s in range(sets):
        rng = np.random.default_rng([seed, f, d, s])
        y = _labels(rng, n, prevalence)
        score = fam.draw(rng, y)
        out = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for method in ("auto", "bca", "percentile", "studentized"):
                r = booteval.ci(y, score, metric="roc_auc", method=method, seed=s,
                                n_resamples=B, strata=y if stratified else None)  # fmt: skip
                out[method] = (r.low, r.high)
                if method == "auto":
                    chosen[r.method] = chosen.get(r.method, 0) + 1
            nc = newcombe_auc_interval(y, score)
            out["newcombe-auc"] = (nc.low, nc.high)
            if 2 <= y.sum() <= n - 2:
                dl = delong_interval(y, score)
                out["delong"] = (dl.low, dl.high)
            else:  # DeLong's variance needs two rows of each class
                out["delong"] = (math.nan, math.nan)
        for method, (low, high) in out.items():
            hits[method] += bool(low <= fam.truth <= high)
            bad[method] += not (0.0 <= low <= high <= 1.0) or not math.isfinite(high - low)
        k = int(min(y.sum(), n - y.sum()))
        row = by_rows.setdefault(k, [0, 0, 0])
        row[0] += 1
        row[1] += bool(out["newcombe-auc"][0] <= fam.truth <= out["newcombe-auc"][1])
        row[2] += bool(out["bca"][0] <= fam.truth <= out["bca"][1])
    return {"family": fam.name, "half": fam.half, "truth": fam.truth, "prevalence": prevalence,
            "design": "stratified" if stratified else "independent",
            "n": n, "sets": sets, "hits": hits, "outside": bad, "chosen": chosen,
            "by_rows": {str(k): v for k, v in sorted(by_rows.items())},
            "k_auto": AUC_FEW_ROWS}  # fmt: skip


def rule_coverage(cell: dict, k: int) -> float:
    """Coverage of "Newcombe below k rows of the rarer class, BCa otherwise", per data set."""
    hit = sum(v[1] if int(rows) < k else v[2] for rows, v in cell["by_rows"].items())
    return 100.0 * hit / cell["sets"]


def _cov(cell: dict, method: str) -> float:
    """A method's coverage in ``cell``; the default's is its rule now (:func:`rule_coverage`
    at ``AUC_FEW_ROWS``), data set by data set the interval ``ci(method="auto")`` gives."""
    if method == "auto":
        return rule_coverage(cell, AUC_FEW_ROWS)
    return 100.0 * cell["hits"][method] / cell["sets"]


def check_default(cells: list[dict]) -> None:
    """The default, as measured by ``ci(method="auto")`` when each cell ran (its threshold
    then: ``k_auto``), equals the rule's outcome per data set at that threshold: Newcombe's
    interval or BCa with the same seed, nothing else."""
    for c in cells:
        measured = 100.0 * c["hits"]["auto"] / c["sets"]
        assert abs(rule_coverage(c, c["k_auto"]) - measured) < 1e-9, (c["family"], c["n"])


def _in_band(x: float) -> bool:
    return BAND[0] <= x <= BAND[1]


def _farther(c: float, bca: float, sets: int) -> bool:
    """Farther from 95 % than BCa by more than twice the Monte Carlo standard error of a
    difference of two coverages (independent, conservative for the paired one)."""
    se = 100.0 * math.sqrt(2 * 0.95 * 0.05 / sets)
    return abs(c - 95.0) > abs(bca - 95.0) + 2 * se


def _threshold_table(cells: list[dict], sets: int) -> list[str]:
    """Per K of :data:`K_SCAN`, per half: the cells in band, worse than BCa, the lowest."""
    halves = ("fit", "held out", "fresh", LAST)
    lines = [
        "| K | " + " | ".join(f"{h}: in band | {h}: worse | {h}: lowest" for h in halves) + " |",
        "|---:|" + "---:|---:|---:|" * len(halves),
    ]
    for k in (0, *K_SCAN):
        row = [f"{k}" if k else "0 (BCa)"]
        for h in halves:
            part = [c for c in cells if c["half"] == h]
            if not part:
                row += ["", "", ""]
                continue
            cov = [rule_coverage(c, k) for c in part]
            worse = sum(_farther(x, _cov(c, "bca"), sets) for x, c in zip(cov, part, strict=True))
            row += [f"{sum(map(_in_band, cov))} of {len(part)}", f"{worse}", f"{min(cov):.1f}"]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _summaries(cells: list[dict], sets: int) -> list[str]:
    """One line a half: the default's, BCa's and Newcombe's cells in band and distance."""
    lines = []
    for h in ("fit", "held out", "fresh", LAST):
        part = [c for c in cells if c["half"] == h]
        if not part:
            continue
        summary = []
        for m, label in (("auto", "the default"), ("bca", "BCa"), ("newcombe-auc", "Newcombe")):
            cov = [_cov(c, m) for c in part]
            dist = sum(abs(x - 95.0) for x in cov) / len(cov)
            summary.append(f"{label} {sum(map(_in_band, cov))} in band, mean distance from "
                           f"95 % {dist:.2f}, lowest {min(cov):.1f}")  # fmt: skip
        worse = sum(_farther(_cov(c, "auto"), _cov(c, "bca"), sets) for c in part)
        lines.append(f"- *{h}* ({len(part)} cells): " + "; ".join(summary) +
                     f"; the default farther from 95 % than BCa: {worse}.")  # fmt: skip
    return lines


def _median_rows(cell: dict) -> int:
    return int(np.median([int(k) for k, v in cell["by_rows"].items() for _ in range(v[0])]))


def render(cells: list[dict]) -> str:
    import booteval

    independent = [c for c in cells if _design(c) == "independent"]
    stratified = [c for c in cells if _design(c) == "stratified"]
    sets = independent[0]["sets"]
    se = 100 * math.sqrt(0.95 * 0.05 / sets)
    lines = [
        f"{sets:,} data sets a cell (Monte Carlo standard error about {se:.1f} points), "
        f"B = {B:,}, independent rows; booteval {booteval.__version__}. A cell is in band at "
        f"{BAND[0]}-{BAND[1]} %; *rarer class* is the median number of rows of the rarer class "
        'over the cell\'s data sets. *default*: `ci(method="auto")` as it runs now '
        f"(Newcombe's interval below {AUC_FEW_ROWS} rows of the rarer class, BCa from "
        f"{AUC_FEW_ROWS}), data set by data set; the cells first ran under an earlier "
        "threshold, and the script checks that the default measured then is that rule's "
        "outcome at that threshold, data set by data set.",
        "",
        "**The rule's threshold.** Newcombe's interval below K rows of the rarer class and BCa "
        "from K on, each data set judged by the interval the rule gives it; *worse*: cells "
        "farther from 95 % than BCa by more than twice the Monte Carlo error.",
        "",
        *_threshold_table(independent, sets),
        "",
        "**Every method in every cell.** *outside*: Newcombe's and BCa's intervals (the "
        "default gives one of the two) outside [0, 1], infinite or reversed.",
        "",
        "| family | half | AUC | prevalence | n | rarer class | default | BCa | percentile | "
        "bootstrap-t (DeLong) | Newcombe | DeLong | outside |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in independent:
        covs = " | ".join(f"{_cov(c, m):.1f}" for m in METHODS)
        lines.append(
            f"| {c['family']} | {c['half']} | {c['truth']:.3f} | {c['prevalence']:g} | "
            f"{c['n']:,} | {_median_rows(c)} | {covs} | "
            f"{c['outside']['newcombe-auc']} / {c['outside']['bca']} |"
        )
    lines += ["", *_summaries(independent, sets)]
    if stratified:
        lines += _stratified_section(stratified)
    return "\n".join(lines) + "\n"


def _stratified_section(cells: list[dict]) -> list[str]:
    """The same data sets resampled within classes, run after K = 8 was fixed."""
    sets = cells[0]["sets"]
    lines = [
        "",
        "**Resampled within classes** (`strata=y`, every replicate keeps the class sizes): "
        "the same data sets, run once after K = 8 was fixed on independent rows, so every "
        "half is held out here. A stratified bootstrap of 3 to 10 rows of one class "
        "varies less than the AUC does, and BCa's interval is even shorter than on "
        "independent rows.",
        "",
        *_threshold_table(cells, sets),
        "",
        *_summaries(cells, sets),
        "",
        "Cells where the default is outside the band:",
        "",
        "| family | half | AUC | prevalence | n | rarer class | default | BCa | Newcombe |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cells:
        if _in_band(_cov(c, "auto")):
            continue
        lines.append(
            f"| {c['family']} | {c['half']} | {c['truth']:.3f} | {c['prevalence']:g} | "
            f"{c['n']:,} | {_median_rows(c)} | {_cov(c, 'auto'):.1f} | {_cov(c, 'bca'):.1f} | "
            f"{_cov(c, 'newcombe-auc'):.1f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2006)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--families", nargs="*", default=["fit", "held out", "fresh", LAST],
                    help=f"halves to run: fit, 'held out', fresh, {LAST}")  # fmt: skip
    ap.add_argument("--out", type=Path, default=HERE / "auc_score.md")
    ap.add_argument("--render", action="store_true", help="rewrite the table from the JSON")
    ap.add_argument(
        "--stratified",
        action="store_true",
        help="resample within classes (strata=y); kept beside the independent cells",
    )
    args = ap.parse_args(argv)
    counts = args.out.with_suffix(".json")
    kept = json.loads(counts.read_text()) if counts.is_file() else []
    if args.render:
        cells = kept
    else:
        jobs = [(f, d, args.sets, args.seed, args.stratified) for f, fam in enumerate(FAMILIES)
                if fam.half in args.families for d in range(len(DESIGNS))]  # fmt: skip
        t0 = time.perf_counter()
        # one thread per worker: the workers already fill the cores
        os.environ["NUMBA_NUM_THREADS"] = "1"
        with ProcessPoolExecutor(args.workers) as pool:
            fresh = []
            for cell in pool.map(run_cell, jobs):
                fresh.append(cell)
                print(f"{cell['family']}, prevalence {cell['prevalence']}, n = {cell['n']}: "
                      f"default {_cov(cell, 'auto'):.1f}, BCa {_cov(cell, 'bca'):.1f}, "
                      f"Newcombe {_cov(cell, 'newcombe-auc'):.1f} "
                      f"({time.perf_counter() - t0:.0f} s)", flush=True)  # fmt: skip
        # the halves not run now are kept from the counts written before
        design = "stratified" if args.stratified else "independent"
        cells = [c for c in kept if c["half"] not in args.families or _design(c) != design]
        cells += fresh
        order = {f.name: i for i, f in enumerate(FAMILIES)}
        cells.sort(key=lambda c: (_design(c) == "stratified", order[c["family"]],
                                  DESIGNS.index((c["prevalence"], c["n"]))))  # fmt: skip
        counts.write_text(json.dumps(cells, indent=0) + "\n")
    check_default(cells)
    args.out.write_text(render(cells))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
