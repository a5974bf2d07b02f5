"""Coverage of the prediction-powered (PPI++) interval for LLM-judge scores.

Each cell simulates ``--reps`` evaluations: ``n`` items with human labels and ``N`` items
with the judge's scores only, from a population whose mean human score is known, and
reports how often each 95 % interval covers it and how wide it is:

* ``human``: the human labels alone (the ``human_*`` interval of the result: ``lam = 0``);
* ``judge``: the judge's scores alone, ``mean -+ 1.96 sd / sqrt(n + N)`` (what a judge-only
  leaderboard reports);
* ``PPI``: classic PPI (``lam = 1``), normal interval;
* ``PPI++ clt``: power-tuned ``lam``, normal interval (the reference's ``ppi_mean_ci``);
* ``PPI++ boot``: power-tuned ``lam`` tuned again in each replicate, percentile interval
  (``--boot-reps`` evaluations of ``--resamples`` replicates each).

Scores are 0/1 verdicts (is the answer right?), ratings (human 1-5, judge 1-10), or
continuous (Gaussian) scores; judges are ``good`` (agree 90 %, or rating noise 0.8),
``poor`` (65 %, noise 4), ``biased`` (lenient: a right answer is called right 95 % of the
time, a wrong one 40 %; ratings shifted up and compressed) and ``unrelated`` (independent
of the humans). The cells with n = 10 and 20 show where the normal interval fails. The
clustered cells draw prompts of 10 items with a shared difficulty; the labelled items are
whole prompts, and the intervals are computed with and without ``clusters=``.

    python benchmarks/ppi_coverage.py                  # 2,000 evaluations a cell, ~2 minutes
    python benchmarks/ppi_coverage.py --reps 300 --boot-reps 100   # a quick look
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import booteval

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Cell:
    scores: str  # "0/1", "rating", "continuous"
    judge: str  # "good", "poor", "biased", "unrelated"
    n: int
    big_n: int
    clusters: str = ""  # "", "given", "ignored"


# ------------------------------------------------------------------------ data generators
def _binary(rng: np.random.Generator, judge: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    right = rng.random(size) < 0.7
    if judge == "good":
        verdict = np.where(rng.random(size) < 0.9, right, ~right)
    elif judge == "poor":
        verdict = np.where(rng.random(size) < 0.65, right, ~right)
    elif judge == "biased":
        verdict = rng.random(size) < np.where(right, 0.95, 0.4)
    else:
        verdict = rng.random(size) < 0.5
    return right.astype(float), verdict.astype(float)


#: probabilities of an item's true quality 1..5 (the human rating); mean 3.15
_QUALITY = np.array([0.1, 0.2, 0.3, 0.25, 0.15])


def _rating(rng: np.random.Generator, judge: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    q = rng.choice(np.arange(1, 6), size, p=_QUALITY).astype(float)
    if judge == "good":
        raw = 2 * q + rng.normal(0, 0.8, size)
    elif judge == "poor":
        raw = 2 * q + rng.normal(0, 4.0, size)
    elif judge == "biased":
        raw = 1.2 * q + 4 + rng.normal(0, 0.8, size)
    else:
        raw = rng.uniform(0.5, 10.5, size)
    return q, np.clip(np.round(raw), 1, 10)


def _continuous(rng: np.random.Generator, judge: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.normal(0.6, 0.2, size)
    noise = {"good": 0.1, "poor": 0.5, "biased": 0.1, "unrelated": 0.0}[judge]
    if judge == "unrelated":
        return y, rng.normal(0.6, 0.2, size)
    slope, shift = (0.5, 0.3) if judge == "biased" else (1.0, 0.0)
    return y, slope * y + shift + rng.normal(0, noise, size)


GENERATORS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "0/1": _binary, "rating": _rating, "continuous": _continuous,
}  # fmt: skip
TRUTH = {"0/1": 0.7, "rating": float(_QUALITY @ np.arange(1, 6)), "continuous": 0.6}


def _clustered(rng: np.random.Generator, n: int, big_n: int) -> tuple[np.ndarray, ...]:
    """0/1 verdicts on prompts of 10 items: each prompt's chance of a right answer is
    Beta(3.5, 1.5) (mean 0.7, intra-prompt correlation 0.17); a good judge (90 %)."""
    size = 10
    prompts = (n + big_n) // size
    p = rng.beta(3.5, 1.5, prompts)
    group = np.repeat(np.arange(prompts), size)
    right = rng.random(prompts * size) < p[group]
    verdict = np.where(rng.random(prompts * size) < 0.9, right, ~right)
    return right.astype(float), verdict.astype(float), group


def _simulate(cell: Cell, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """``(human, judge_labelled, judge_unlabelled, clusters, clusters_unlabelled)``."""
    if cell.clusters:
        y, j, g = _clustered(rng, cell.n, cell.big_n)
        return y[: cell.n], j[: cell.n], j[cell.n :], g[: cell.n], g[cell.n :]
    y, j = GENERATORS[cell.scores](rng, cell.judge, cell.n + cell.big_n)
    return y[: cell.n], j[: cell.n], j[cell.n :], None, None


# ---------------------------------------------------------------------------- one cell
@dataclass
class Tally:
    hits: int = 0
    width: float = 0.0
    count: int = 0

    def add(self, low: float, high: float, truth: float) -> None:
        self.hits += bool(low <= truth <= high)
        self.width += high - low
        self.count += 1

    @property
    def coverage(self) -> float:
        return self.hits / self.count

    @property
    def mean_width(self) -> float:
        return self.width / self.count


def run_cell(cell: Cell, reps: int, boot_reps: int, resamples: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    truth = TRUTH["0/1" if cell.clusters else cell.scores]
    names = ("human", "judge", "ppi", "clt", "boot")
    tallies = {k: Tally() for k in names}
    boot_human = Tally()
    lams, gains = [], []
    for rep in range(reps):
        y, yh, yu, cl, cu = _simulate(cell, rng)
        kw = {}
        if cell.clusters == "given":
            kw = {"clusters": cl, "clusters_unlabelled": cu}
        # the normal interval, as its column says (method="auto" takes the bootstrap below 30
        # labelled rows)
        r = booteval.judge_corrected_ci(y, yh, yu, method="clt", **kw)
        tallies["clt"].add(r.low, r.high, truth)
        tallies["human"].add(r.human_low, r.human_high, truth)
        lams.append(r.lam)
        gains.append(r.gain)
        classic = booteval.judge_corrected_ci(y, yh, yu, method="clt", lam=1.0, **kw)
        tallies["ppi"].add(classic.low, classic.high, truth)
        if cell.scores != "rating":  # a judge's 1-10 ratings say nothing of a 1-5 mean
            every = np.concatenate([yh, yu])
            half = Z95 * every.std() / np.sqrt(every.size)
            tallies["judge"].add(every.mean() - half, every.mean() + half, truth)
        if rep < boot_reps:
            b = booteval.judge_corrected_ci(
                y, yh, yu, method="bootstrap", n_resamples=resamples, seed=rep, **kw
            )
            tallies["boot"].add(b.low, b.high, truth)
            boot_human.add(b.human_low, b.human_high, truth)
    base = tallies["human"].mean_width
    out = {k: tallies[k].coverage if tallies[k].count else float("nan") for k in names}
    out.update(
        width_clt=tallies["clt"].mean_width / base,
        width_boot=tallies["boot"].mean_width / boot_human.mean_width,
        lam=float(np.mean(lams)),
        gain=float(np.nanmedian(gains)),
    )
    return out


CELLS = [
    *(
        Cell(scores, judge, n, big_n)
        for scores in ("0/1", "rating")
        for judge in ("good", "poor", "biased", "unrelated")
        for n in (50, 200)
        for big_n in (2000, 10000)
        if judge == "good" or big_n == 10000
    ),
    Cell("continuous", "good", 50, 2000),
    Cell("continuous", "good", 200, 2000),
    *(Cell(scores, "good", 20, 10000) for scores in ("0/1", "rating")),
    Cell("0/1", "biased", 20, 10000),
    Cell("0/1", "good", 10, 10000),
    *(Cell("0/1", "good", n, 5000, how) for n in (200, 500) for how in ("given", "ignored")),
]


def table(rows: list[tuple[Cell, dict]]) -> str:
    head = (
        "| scores | judge | n | N | human | judge alone | PPI (lam=1) | PPI++ clt | PPI++ boot "
        "| width clt / human | width boot / human | mean lam | gain |"
    )
    lines = [head, "|" + "---|" * 4 + "---:|" * 9]
    for cell, r in rows:
        scores = cell.scores + (f", {cell.clusters} clusters" if cell.clusters else "")
        judge = "-" if np.isnan(r["judge"]) else f"{r['judge']:.3f}"
        lines.append(
            f"| {scores} | {cell.judge} | {cell.n} | {cell.big_n} | {r['human']:.3f} | "
            f"{judge} | {r['ppi']:.3f} | {r['clt']:.3f} | {r['boot']:.3f} | "
            f"{r['width_clt']:.2f} | {r['width_boot']:.2f} | {r['lam']:.2f} | {r['gain']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="evaluations a cell")
    parser.add_argument("--boot-reps", type=int, default=400, help="of them, bootstrapped")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap replicates")
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--output", metavar="PATH",
                        help="also write the table to PATH (benchmarks/ppi_coverage.md: the "
                        "coverage atlas page shows it)")  # fmt: skip
    args = parser.parse_args(argv)
    # tiny samples warn (few labelled rows, zero-width intervals): expected here
    warnings.simplefilter("ignore", booteval.BootevalWarning)
    start = time.perf_counter()
    rows = []
    for i, cell in enumerate(CELLS):
        seed = int(np.random.SeedSequence([args.seed, i]).generate_state(1)[0])
        rows.append((cell, run_cell(cell, args.reps, args.boot_reps, args.resamples, seed)))
        print(f"cell {i + 1}/{len(CELLS)} done", file=sys.stderr, flush=True)
    text = table(rows) + (
        f"\n\n95 % intervals; {args.reps} evaluations a cell ({args.boot_reps} bootstrapped, "
        f"B = {args.resamples}); coverage within about +-{196 * np.sqrt(0.0475 / args.reps):.1f} "
        f"points ({196 * np.sqrt(0.0475 / args.boot_reps):.1f} for the bootstrap); widths are "
        "mean widths relative to the human-only interval of the same method; gain is the "
        f"median variance ratio; root seed {args.seed}; booteval {booteval.__version__}, "
        f"NumPy {np.__version__}; {time.perf_counter() - start:.0f} s"
    )
    print(text)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
