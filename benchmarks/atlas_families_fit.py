"""Fit ``method="auto"``'s thresholds on half of the atlas's families; report the other half.

Reads every data set's outcome (``atlas_families.py``), evaluates the whole rule per data set
for every combination of its thresholds (the same rows as
``booteval.inference.auto_method.RULES``, written out here for these families), chooses on
the ``fit`` half together with the original grid's clustered accuracy cells (``grid``, rerun
on the grid's own data sets) the combination with the fewest cells worse than BCa, then the
most cells in band, then the fewest points outside the band (below it counted twice; ties:
the thresholds before), and reports the rule before, the fitted one and booteval's rule now
on every family, the held-out ones included. It also checks that the emulated rule each data
set ran under gives, on every data set, the outcome ``booteval.ci(method="auto")`` gave.
Writes ``atlas_families.md`` (rendered into ``docs/coverage.md`` by
``coverage_atlas.py --render``). Usage::

    python benchmarks/atlas_families_fit.py [--data atlas_families.jsonl.gz]
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from atlas_families import DEFAULT_OUT, HERE, load

#: the families run after the fit, at accuracies the fitted ones never had
OTHER_P_NAME = "accuracy 0.5 or 0.95"

BAND = 1.5
INF = math.inf

#: the thresholds of the rule for each kind of cell, their values before this study (the
#: grid's cells ran under these, see :data:`FAMILIES_RAN` for the families'), and the values
#: the fit tries
GRID: dict[str, dict[str, tuple]] = {
    "proportion": {
        "very_few_clusters": (10, (0, 6, 10, 15)),
        "few_rows": (100, (100, 200)),
        "more_cr2_clusters": (30, (0, 30)),
        "more_cr2_rows": (400, (100, 400)),
        "near_boundary": (30, (0, 5, 10, 20, 30)),
        "near_boundary_share": (0.3, (0.1, 0.3)),
        "minority_clusters": (0, (0, 2, 3)),
        "symmetric_below": (INF, (0, 10, 15, 20, 30, INF)),
        "scale": ("identity", ("identity", "logit")),
        "otherwise": ("bootstrap-t", ("bootstrap-t", "calibrated")),
    },
    "mean-clustered": {
        "very_few_clusters": (10, (0, 6, 8, 10, 12, 15, 20, 30, 50)),
        "symmetric_below": (30, (0, 10, 20, 30, 50, INF)),
        "otherwise": ("bootstrap-t", ("bootstrap-t", "calibrated")),
    },
    "mean": {
        "studentized_from": (10, (0, 20, 50, 100, INF)),
        "otherwise": ("bootstrap-t", ("bootstrap-t", "calibrated")),
    },
    "pearson": {"studentized_below": (50, (0, 20, 50, 100, 300, INF))},
    "f1": {"percentile_from": (50, (0, 100, 300, 1000, INF))},
    "roc_auc": {"method": ("bca", ("bca", "percentile", "studentized", "delong"))},
}
#: the thresholds booteval's rule has now, where they differ from those before (see
#: ``GRID_CHECK``)
NOW: dict[str, dict] = {
    "proportion": {"very_few_clusters": 0, "near_boundary": 5, "scale": "logit"},
}


#: the fitted rule back on the original grid at its own 2,000 data sets a cell (booteval's rule
#: rerun: ``coverage_atlas.py --metrics accuracy_p0.5 accuracy_p0.9 accuracy_p0.99 --designs
#: clustered-5 ... clustered-200 --methods auto --redo``), and the fits not taken
GRID_CHECK = (
    "**The fit and the grid.** The grid's own 51 clustered accuracy cells (Poisson sizes, a "
    "normal cluster effect tied to the size) are rerun here on the grid's own data sets with "
    "every candidate kept per data set (*grid*), and the proportion's thresholds are fitted "
    "on them and the fit half together; the other half of the families is held out. The "
    "fitted rule is booteval's now: CR2 on the logit scale below 30 clusters from 100 to 399 "
    "rows (no longer also below 10 clusters and 100 rows), the clustered Wilson interval "
    "below 5 rows of the rarer outcome (no longer below 30), and otherwise the symmetric "
    "bootstrap-t formed on the logit scale (no longer on the proportion's own scale, "
    "clipped). The clusters holding the rarer outcome were offered as a further switch "
    "(clustered Wilson where it lies in fewer than 2 or 3 clusters) and not chosen. Ordered "
    "by the points outside the band before the cells in band (the previous study's order), "
    "the fit takes the same rule. Rerun in booteval on the grid's 2,000 "
    "data sets a cell, the rule puts 41 of 51 cells in band (41 before), mean distance from "
    "95 % 0.92 points (1.10), lowest 93.2 % (93.0 %), none worse than BCa; the misses "
    "over-cover at 5 and 10 clusters with 20 to 50 rows and at p = 0.99 (the clustered "
    "Wilson interval, 96.5 to 98.3 %), and under-cover at p = 0.5, n = 10,000 with 5 and "
    "10 clusters (93.2 %). Held out after the fit, at accuracies the fitted families "
    "never had (0.5 and 0.95, clusters of equal and of geometric sizes), the rule puts 45 "
    "of 84 cells in band (42 before), lowest 87.5 % (79.2 %): better with geometric sizes "
    "(28 against 23), worse with equal ones (17 against 19), and 2 cells of 8 equal "
    "clusters are farther from 95 % than BCa, over-covering (p = 0.5, ICC 0.5: 97.5 % "
    "against BCa's 95.2 %; p = 0.95, ICC 0.05: the clustered Wilson interval, 99.0 % "
    "against 96.2 %); at p = 0.95 CR2 from 100 to 399 rows under-covers with a strong "
    "cluster effect (20 clusters of 10 rows, ICC 0.5: 83.8 % against the bootstrap-t's "
    "92.2 %), a weakness the fitted accuracies (0.7 and 0.9) did not show. The earlier "
    "held-out check (benchmarks/heldout_families.py, 1,000 "
    "data sets a cell) has 7 of 12 cells in band (6): 8 geometric clusters 96.4 % (97.1 %), "
    "15 clusters 95.2 % (95.3 %). The other fits are not taken: the clustered mean's (CR2 "
    "below 15 clusters, the equal-tailed bootstrap-t above) gains one fitted cell but is "
    "farther from 95 % on every family, the held-out ones included; Pearson's (BCa at every "
    "n) is worse on its held-out family; ROC-AUC's (the bootstrap-t with DeLong's standard "
    "error) covers 98.2 % against BCa's 95.5 % in one held-out cell and 98.4 % against "
    "95.9 % on the grid's balanced n = 50, though it lifts the lowest held-out cell from "
    "81.8 % to 95.2 %."
)


#: the thresholds the families' data sets ran with, where they differ from :func:`before`
#: (they ran before the study that added CR2 from 100 to 399 rows)
FAMILIES_RAN: dict[str, dict] = {"proportion": {"more_cr2_clusters": 0, "more_cr2_rows": 100}}


def before(kind: str) -> dict:
    return {k: v[0] for k, v in GRID[kind].items()}


def ran(kind: str, record: dict) -> dict:
    """The thresholds ``record``'s ``ci(method="auto")`` outcome was recorded under (the
    families of other accuracies, held out after the fit, ran under the rule now)."""
    if record["family"].startswith(OTHER_P_NAME):
        return now(kind)
    return {**before(kind), **(FAMILIES_RAN.get(kind, {}) if record["half"] != "grid" else {})}


def now(kind: str) -> dict:
    return {**before(kind), **NOW.get(kind, {})}


#: the constant in ``booteval.inference.auto_method`` each threshold is
CONSTANTS = {
    ("proportion", "very_few_clusters"): "VERY_FEW_CLUSTERS",
    ("proportion", "few_rows"): "FEW_ROWS",
    ("proportion", "more_cr2_clusters"): "FEW_CLUSTERS",
    ("proportion", "more_cr2_rows"): "PROPORTION_CR2_ROWS",
    ("proportion", "near_boundary"): "CLUSTERED_NEAR_BOUNDARY",
    ("proportion", "near_boundary_share"): "NEAR_BOUNDARY_SHARE",
    ("proportion", "minority_clusters"): "(the rarer outcome in so few clusters)",
    ("proportion", "symmetric_below"): "(always symmetric)",
    ("proportion", "scale"): "(the bootstrap-t's scale)",
    ("proportion", "otherwise"): "(the bootstrap-t)",
    ("mean-clustered", "very_few_clusters"): "VERY_FEW_CLUSTERS",
    ("mean-clustered", "symmetric_below"): "FEW_CLUSTERS",
    ("mean-clustered", "otherwise"): "(the bootstrap-t)",
    ("mean", "studentized_from"): "(n >= 10)",
    ("mean", "otherwise"): "(the bootstrap-t)",
    ("pearson", "studentized_below"): "(n < 50)",
    ("f1", "percentile_from"): "(n >= 50)",
    ("roc_auc", "method"): "(BCa)",
}


def hits(
    kind: str, th: dict, n: np.ndarray, g: int | None, minority, bits: dict, spread=None
) -> np.ndarray:
    """Whether each data set's default interval covers, under thresholds ``th``: the outcome
    of the candidate the rule takes for that data set (``spread``: for a proportion, the
    clusters holding its rarer outcome)."""
    if kind == "proportion":
        if th["otherwise"] == "calibrated":
            out = bits["calibrated"]
        else:
            sym = g < th["symmetric_below"]
            suffix = "-logit" if th["scale"] == "logit" else ""
            out = bits[("studentized-symmetric" if sym else "studentized") + suffix]
        near = (minority < th["near_boundary"]) & (minority <= th["near_boundary_share"] * n)
        out = np.where(near, bits["clustered-wilson"], out)
        cr2 = (g < th["very_few_clusters"]) & (n < th["few_rows"])
        more = (g < th["more_cr2_clusters"]) & (n >= th["few_rows"]) & (n < th["more_cr2_rows"])
        out = np.where((cr2 | more) & (minority > 0), bits["cr2"], out)
        return np.where(spread < th["minority_clusters"], bits["clustered-wilson"], out)
    if kind == "mean-clustered":
        if g < th["very_few_clusters"]:
            return bits["cr2"]
        if th["otherwise"] == "calibrated":
            return bits["calibrated"]
        return bits["studentized-symmetric" if g < th["symmetric_below"] else "studentized"]
    if kind == "mean":
        main = bits["calibrated" if th["otherwise"] == "calibrated" else "studentized"]
        return np.where(n >= th["studentized_from"], main, bits["bca"])
    if kind == "pearson":
        return np.where(n < th["studentized_below"], bits["studentized"], bits["bca"])
    if kind == "f1":
        return np.where(n >= th["percentile_from"], bits["percentile"], bits["bca"])
    return bits[th["method"]]


class Cells:
    """The records of one kind, with each data set's outcome per candidate as arrays."""

    def __init__(self, records: list[dict]) -> None:
        self.records = records
        self.bits = [{k: np.frombuffer(v.encode(), np.uint8) == 49 for k, v in r["cover"].items()}
                     for r in records]  # fmt: skip
        self.n = [np.asarray(r["n"]) for r in records]
        self.minority = [np.asarray(r["minority"]) if r["minority"] else None for r in records]
        self.spread = [np.asarray(r["minority_clusters"]) if r.get("minority_clusters") else None
                       for r in records]  # fmt: skip
        self.g = [r["params"].get("g") for r in records]

    def coverage(self, kind: str, th: dict, which: Callable[[dict], bool]) -> list[tuple]:
        """(record, coverage %) of the default under ``th`` in the cells ``which`` keeps."""
        out = []
        rows = zip(self.records, self.bits, self.n, self.g, self.minority, self.spread,
                   strict=True)  # fmt: skip
        for r, bits, n, g, mino, spread in rows:
            if not which(r):
                continue
            out.append((r, 100.0 * hits(kind, th, n, g, mino, bits, spread).mean()))
        return out


def score(covs: list[tuple]) -> tuple[int, float]:
    d = [abs(c - 95.0) for _, c in covs]
    return sum(x <= BAND for x in d), float(np.mean(d)) if d else 0.0


def loss(covs: list[tuple]) -> float:
    """The points by which cells leave the band, those below it counted twice: a rule that
    gains a cell in band by losing ten points elsewhere is not better."""
    return float(sum(2 * max(0.0, 95 - BAND - c) + max(0.0, c - 95 - BAND) for _, c in covs))


def worse_than_bca(covs: list[tuple], bca: list[float], mcse: float) -> int:
    return sum(abs(c - 95) > abs(b - 95) + 2 * mcse for (_, c), b in zip(covs, bca, strict=True))


def fit(kind: str, cells: Cells) -> dict:
    """The fitted thresholds for ``kind``: on the fit half and the grid, the fewest cells
    worse than BCa, then the most cells in band, then the smallest :func:`loss` (ties: the
    values before)."""
    grid = GRID[kind]
    current = before(kind)
    in_fit = lambda r: r["half"] in ("fit", "grid")  # noqa: E731
    pairs = zip(cells.records, cells.bits, strict=True)
    bca = [100 * b["bca"].mean() for r, b in pairs if in_fit(r)]
    mcse = 100 * math.sqrt(0.95 * 0.05 / cells.records[0]["sets"])
    best, best_key = current, None
    for values in itertools.product(*(v[1] for v in grid.values())):
        th = dict(zip(grid, values, strict=True))
        covs = cells.coverage(kind, th, in_fit)
        key = (worse_than_bca(covs, bca, mcse), -score(covs)[0], round(loss(covs), 3),
               th != current)  # fmt: skip
        if best_key is None or key < best_key:
            best, best_key = th, key
    return best


def check_emulation(kind: str, cells: Cells) -> int:
    """Data sets where the emulated rule they ran under and ``ci(method="auto")`` disagree."""
    wrong = 0
    rows = zip(cells.records, cells.bits, cells.n, cells.g, cells.minority, cells.spread,
               strict=True)  # fmt: skip
    for r, bits, n, g, mino, spread in rows:
        th = ran(kind, r)
        wrong += int(np.sum(hits(kind, th, n, g, mino, bits, spread) != bits["auto"]))
    return wrong


def _some_in_band(r: dict, bits: dict) -> str | None:
    best = None
    for name, b in bits.items():
        if name == "auto":
            continue
        c = 100.0 * b.mean()
        if abs(c - 95) <= BAND and (best is None or abs(c - 95) < abs(best[1] - 95)):
            best = (name, c)
    return None if best is None else f"{best[0]} {best[1]:.1f}"


def _fmt(v) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "never" if v > 0 else "-"
    return f"{v:g}" if isinstance(v, float) else str(v)


def report(data: Path) -> list[str]:
    records = load(data)
    kinds = [k for k in GRID if any(r["kind"] == k for r in records)]
    sets = records[0]["sets"]
    mcse = 100 * math.sqrt(0.95 * 0.05 / sets)
    outside = sum(r["outside"] for r in records)
    lines = [
        f"{len(records)} cells in {len({r['family'] for r in records})} families, {sets} data "
        f"sets a cell (Monte Carlo standard error about {mcse:.1f} points at 95 %), B = 999; "
        "every candidate method on the same data sets. A cell is in band within 1.5 points of "
        "95 %; *worse than BCa* means farther from 95 % than BCa by more than two standard "
        f"errors. Default intervals outside the parameter's range or infinite: {outside}.",
        "",
        "### The thresholds, fitted on one half and the grid",
        "",
        "*before*: booteval's rule at the start of this study (the grid's cells ran under it, "
        "the families' under it less CR2 from 100 to 399 rows; emulated, each rule gives, data "
        'set by data set, the outcome `ci(method="auto")` gave: *exact*); *fitted*: the '
        "values the fit chose on the fit half and the grid; *now*: booteval's rule after this "
        "study.",
        "",
        "| kind | threshold | before | fitted | now | emulation check |",
        "|---|---|---|---|---|---|",
    ]
    fitted: dict[str, dict] = {}
    for kind in kinds:
        sub = Cells([r for r in records if r["kind"] == kind])
        fitted[kind] = best = fit(kind, sub)
        wrong = check_emulation(kind, sub)
        check = "exact" if wrong == 0 else f"{wrong} data sets differ"
        for name in GRID[kind]:
            lines.append(f"| {kind} | {name} (`{CONSTANTS[kind, name]}`) | "
                         f"{_fmt(before(kind)[name])} | {_fmt(best[name])} | "
                         f"{_fmt(now(kind)[name])} | {check} |")  # fmt: skip
    lines += [
        "",
        "### The default on each family",
        "",
        "Cells in band, mean distance from 95 % and lowest coverage of the default under the "
        "rule before, the fitted one and booteval's now; *some method*: cells where at least "
        "one candidate is in band (the best of a dozen candidates, each with its Monte Carlo "
        "error, so an upper mark); *worse than BCa*: booteval's rule now.",
        "",
        "| family | half | cells | in band: before | fitted | now | some method | distance: "
        "before | fitted | now | lowest: before | fitted | now | worse than BCa |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    misses: list[str] = []
    for kind in kinds:
        sub = Cells([r for r in records if r["kind"] == kind])
        for fam in dict.fromkeys(r["family"] for r in sub.records):
            keep = lambda r, fam=fam: r["family"] == fam  # noqa: E731
            rules = [sub.coverage(kind, th, keep) for th in (before(kind), fitted[kind],
                                                             now(kind))]  # fmt: skip
            half = rules[0][0][0]["half"]
            some = worse = 0
            kept = [b for r, b in zip(sub.records, sub.bits, strict=True) if keep(r)]
            for (r, c), bits in zip(rules[2], kept, strict=True):
                best = _some_in_band(r, bits)
                some += best is not None
                bca = 100 * bits["bca"].mean()
                worse += abs(c - 95) > abs(bca - 95) + 2 * mcse
                if best is not None and abs(c - 95) > BAND:
                    misses.append(f"| {r['key']} | {half} | {c:.1f} | {bca:.1f} | {best} |")
            band = " | ".join(str(score(cov)[0]) for cov in rules)
            dist = " | ".join(f"{score(cov)[1]:.2f}" for cov in rules)
            low = " | ".join(f"{min(c for _, c in cov):.1f}" for cov in rules)
            lines.append(f"| {fam} | {half} | {len(rules[0])} | {band} | {some} | {dist} | "
                         f"{low} | {worse} |")  # fmt: skip
    lines += [
        "",
        GRID_CHECK,
        "",
        "### Where the default misses and some method is in band",
        "",
        "booteval's rule now, in the cells outside the band where at least one candidate is "
        "in it (the closest such candidate):",
        "",
        "| cell | half | default | BCa | a method in band |",
        "|---|---|---:|---:|---|",
        *misses,
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--out", type=Path, default=HERE / "atlas_families.md")
    args = ap.parse_args(argv)
    text = "\n".join(report(args.data)) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
