"""booteval's default against evalstats' automatic choice, on evalstats' kinds of conditions.

evalstats (PyPI 0.3.3) routes ``method="auto"`` by a table of its own coverage study:
Wilson's interval for one binary mean, the logit-t interval for the mean of [0, 1]
scores, and Bonett & Price's adjusted interval for a paired difference of two binary
systems (``evalstats.config.resolve_auto_analyze_methods``, which this script asks). Here
the same data sets go through that choice and through booteval's default
(``booteval.ci`` / ``booteval.compare`` with ``method="auto"``), at 95 %:

* one binary mean: 9 values of p x 11 sample sizes (10-100), exact coverage (a sum over
  the binomial outcomes);
* the mean of [0, 1] scores: 13 shapes x 11 sample sizes, ``--bounded-sets`` data sets each
  (booteval's default there is a closed form, so many data sets cost little);
* a paired difference of two binary systems: p_A in {0.5, 0.7, 0.9}, B - A in {0, 0.05,
  0.1}, 10 % or 30 % of rows discordant, N in {10, 30, 100}, ``--sets`` data sets each.

A condition is "in band" when its coverage is in [93.5, 96.5]; intervals outside the
parameter's range and infinite ones are counted. evalstats runs in its own environment:

    python -m venv /tmp/evs && /tmp/evs/bin/pip install evalstats==0.3.3 -e .
    /tmp/evs/bin/python benchmarks/evalstats_comparison.py            # about 10 minutes
    /tmp/evs/bin/python benchmarks/evalstats_comparison.py --sets 200 # a quick look
"""

from __future__ import annotations

import argparse
import sys
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.stats import binom

import booteval

B = 1000  # booteval's resamples (its closed forms do not depend on it)
CHECKED = 20  # data sets of each [0, 1] condition run through booteval.ci itself
NS = (10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 100)
PS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95)


def _evalstats() -> dict[str, Callable]:
    from evalstats.config import resolve_auto_analyze_methods
    from evalstats.core import resampling as rs

    binary = resolve_auto_analyze_methods("binary", 50, seeded=False)
    bounded = resolve_auto_analyze_methods("bounded_01", 50, seeded=False)
    assert binary == ("bonett_price", "wilson"), binary
    assert bounded == ("logit_t", "logit_t"), bounded
    return {
        "binary": lambda k, n: rs.wilson_ci(k, n, 0.05),
        "bounded": lambda x: rs.logit_t_ci_1d(x, 0.05),
        # evalstats returns an interval for p(A) - p(B): B - A is its mirror with (b, a)
        "paired": lambda a, b: rs.bonett_price_paired_ci(b, a, 0.05),
    }


def _quiet(fn: Callable, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _band(cover: list[float]) -> int:
    c = np.asarray(cover)
    return int(np.sum((c >= 93.5) & (c <= 96.5)))


def binary_family(es: dict[str, Callable]) -> dict[str, list[float]]:
    cover: dict[str, list[float]] = {"booteval": [], "evalstats": []}
    for n in NS:
        ours, theirs = [], []
        for k in range(n + 1):
            x = np.r_[np.ones(k), np.zeros(n - k)]
            r = _quiet(booteval.ci, x, n_resamples=B, seed=0)
            ours.append((r.low, r.high))
            theirs.append(es["binary"](k, n))
        pmf_k = np.arange(n + 1)
        for p in PS:
            w = binom.pmf(pmf_k, n, p)
            for name, ends in (("booteval", ours), ("evalstats", theirs)):
                hit = np.array([lo <= p <= hi for lo, hi in ends])
                cover[name].append(100.0 * float(np.sum(w * hit)))
    return cover


def _shapes() -> dict[str, Callable[[np.random.Generator, int], np.ndarray]]:
    def mix(p1, p0, a, b):
        def draw(rng, n):
            u = rng.random(n)
            return np.where(u < p1, 1.0, np.where(u < p1 + p0, 0.0, rng.beta(a, b, n)))

        return draw

    def grid(levels, probs):
        return lambda rng, n: rng.choice(levels, n, p=probs)

    return {
        "uniform": lambda rng, n: rng.random(n),
        "Beta(2, 5)": lambda rng, n: rng.beta(2, 5, n),
        "Beta(5, 2)": lambda rng, n: rng.beta(5, 2, n),
        "Beta(0.5, 0.5)": lambda rng, n: rng.beta(0.5, 0.5, n),
        "Beta(20, 2)": lambda rng, n: rng.beta(20, 2, n),
        "Beta(1, 20)": lambda rng, n: rng.beta(1, 20, n),
        "30 % 1s, 15 % 0s": mix(0.3, 0.15, 2, 2),
        "80 % 1s": mix(0.8, 0.0, 5, 2),
        "60 % 0s": mix(0.0, 0.6, 2, 5),
        "1-5 rating, skewed": grid([0, 0.25, 0.5, 0.75, 1], [0.05, 0.05, 0.15, 0.35, 0.4]),
        "1-5 rating, symmetric": grid([0, 0.25, 0.5, 0.75, 1], [0.1, 0.2, 0.4, 0.2, 0.1]),
        "0 / 0.5 / 1": grid([0, 0.5, 1], [0.2, 0.3, 0.5]),
        "0-100 score / 100": lambda rng, n: np.round(rng.beta(3, 1.5, n) * 100) / 100,
    }


def bounded_family(es: dict[str, Callable], sets: int) -> dict[str, list]:
    """booteval's default for a mean of [0, 1] scores is a closed form: ``booteval.ci`` gives
    it on the first data sets of every condition (checked equal, end point for end point),
    and the closed form itself on the others; a data set of 0s and 1s only is a proportion,
    and goes through ``booteval.ci`` (Jeffreys' interval)."""
    from booteval.closed_forms import quasi_wilson_interval

    out: dict[str, list] = {"booteval": [], "evalstats": [], "outside": [0, 0], "inf": [0, 0]}
    for name, draw in _shapes().items():
        truth = float(draw(np.random.default_rng(99), 4_000_000).mean())
        for n in NS:
            rng = np.random.default_rng([zlib.crc32(name.encode()), n])  # the same every run
            hits = [0, 0]
            for s in range(sets):
                x = draw(rng, n)
                q = quasi_wilson_interval(x)
                if np.all((x == 0) | (x == 1)):  # 0/1 scores: a proportion (Jeffreys)
                    q = _quiet(booteval.ci, x, n_resamples=B, seed=s)
                elif s < CHECKED:
                    r = _quiet(booteval.ci, x, n_resamples=B, seed=s)
                    assert (r.method, r.low, r.high) == ("quasi-wilson", q.low, q.high), (r, q)
                for i, (lo, hi) in enumerate(((q.low, q.high), es["bounded"](x))):
                    hits[i] += lo <= truth <= hi
                    out["outside"][i] += lo < 0 or hi > 1
                    out["inf"][i] += not (np.isfinite(lo) and np.isfinite(hi))
            out["booteval"].append(100.0 * hits[0] / sets)
            out["evalstats"].append(100.0 * hits[1] / sets)
        print(f"  {name}: booteval {out['booteval'][-11:]}", file=sys.stderr, flush=True)
    return out


def paired_family(es: dict[str, Callable], sets: int) -> dict[str, list[float]]:
    """Paired rows drawn from the 2 x 2 table with marginals p_A, p_B and a share d of
    discordant rows: P(A only) = (d + p_A - p_B) / 2, P(B only) = (d - p_A + p_B) / 2."""
    cover: dict[str, list[float]] = {"booteval": [], "evalstats": []}
    for p_a in (0.5, 0.7, 0.9):
        for delta in (0.0, 0.05, 0.1):
            for d in (0.1, 0.3):
                only_a, only_b = (d - delta) / 2, (d + delta) / 2
                both = p_a - only_a
                cells = np.array([both, only_a, only_b, 1.0 - both - only_a - only_b])
                if np.any(cells < 0):
                    continue
                for n in (10, 30, 100):
                    rng = np.random.default_rng(int(1000 * p_a + 100 * delta + 10 * d) + n)
                    hits = [0, 0]
                    for s in range(sets):
                        cell = rng.choice(4, n, p=cells)
                        a = np.isin(cell, (0, 1)).astype(float)
                        b = np.isin(cell, (0, 2)).astype(float)
                        r = _quiet(booteval.compare, a, b, n_resamples=B, seed=s)
                        for i, (lo, hi) in enumerate(((r.low, r.high), es["paired"](a, b))):
                            hits[i] += lo <= delta + 1e-12 and delta - 1e-12 <= hi
                    cover["booteval"].append(100.0 * hits[0] / sets)
                    cover["evalstats"].append(100.0 * hits[1] / sets)
    return cover


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=400, help="data sets a paired condition")
    ap.add_argument("--bounded-sets", type=int, default=4000, help="data sets a [0, 1] condition")
    ap.add_argument("--only", choices=["binary", "bounded", "paired"])
    ap.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "evalstats_comparison.md",
        help="where a full run writes its table (rendered into docs/coverage.md)",
    )  # fmt: skip
    args = ap.parse_args(argv)
    es = _evalstats()
    rows = []
    if args.only in (None, "binary"):
        c = binary_family(es)
        rows.append(("one binary mean (exact)", c, None))
    if args.only in (None, "bounded"):
        c = bounded_family(es, args.bounded_sets)
        rows.append(("mean of [0, 1] scores", c, (c["outside"], c["inf"])))
    if args.only in (None, "paired"):
        c = paired_family(es, args.sets)
        rows.append(("paired difference, binary", c, None))
    lines = [
        "| family | conditions | booteval in band | evalstats in band | booteval mean "
        "abs(cov - 95) | evalstats mean abs(cov - 95) | booteval lowest | evalstats lowest |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, c, extra in rows:
        ours, theirs = np.array(c["booteval"]), np.array(c["evalstats"])
        lines.append(f"| {name} | {ours.size} | {_band(ours)} | {_band(theirs)} | "
                     f"{np.mean(np.abs(ours - 95)):.2f} | {np.mean(np.abs(theirs - 95)):.2f} | "
                     f"{ours.min():.1f} | {theirs.min():.1f} |")  # fmt: skip
        if extra is not None:
            lines.append(f"|   outside [0, 1] / infinite: booteval {extra[0][0]} / "
                         f"{extra[1][0]}, evalstats {extra[0][1]} / {extra[1][1]} "
                         "| | | | | | | |")  # fmt: skip
    print("\n".join(lines))
    if args.only is None and args.out is not None:
        head = (f"{args.bounded_sets} data sets a condition of [0, 1] scores, {args.sets} a "
                f"paired one, the binary family exactly; booteval "
                f"{booteval.__version__}, evalstats 0.3.3; a condition is in band at "
                "93.5-96.5 %.")  # fmt: skip
        args.out.write_text(head + "\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
