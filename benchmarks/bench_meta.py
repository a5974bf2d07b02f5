"""Meta-evaluation speed: booteval.meta against nlpstats on the same 16 x 100 matrices.

Times ``booteval.meta.correlate`` (and ``compare_correlations``) and the corresponding
``nlpstats.correlations`` calls (Deutsch et al.'s reference implementation, a Python loop over
resamples calling SciPy) in the same run, and prints a Markdown table with the wall time of
each, their ratio and the intervals each produced.

Usage::

    pip install nlpstats              # optional peer, skipped when not importable
    python benchmarks/bench_meta.py                       # B = 10,000
    python benchmarks/bench_meta.py --quick               # B = 1,000
    python benchmarks/bench_meta.py --blas-threads 1      # single-threaded BLAS
    python benchmarks/bench_meta.py --max-peer-seconds 20 # longer nlpstats runs

Data: SummEval (``../shared/data/summeval/summeval_long.csv``: ROUGE-2 F1 and BERTScore
recall vs expert relevance, 16 systems x 100 inputs) when found, else seeded synthetic data
of the same shape. nlpstats runs as many resamples as fit in ``--max-peer-seconds`` (at least
50) and its time is extrapolated linearly to B (marked ``*``); its loop has a constant cost per
resample, so the extrapolation is accurate to a few percent.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def _parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="B = 1,000 instead of 10,000")
    p.add_argument("--repeat", type=int, default=3, help="booteval runs per workload (median)")
    p.add_argument("--max-peer-seconds", type=float, default=8.0)
    p.add_argument("--blas-threads", type=int, default=None, help="set OPENBLAS/OMP/MKL threads")
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None and ARGS.blas_threads:
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(ARGS.blas_threads)

import numpy as np  # noqa: E402  (after the thread settings)

from booteval.meta import compare_correlations, correlate  # noqa: E402

try:
    import nlpstats.correlations as nlp
except Exception:  # pragma: no cover - optional peer
    nlp = None


def load() -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    here = Path(__file__).resolve()
    for parent in here.parents:
        csv = parent / "shared" / "data" / "summeval" / "summeval_long.csv"
        if csv.exists():
            import pandas as pd

            from booteval.meta import score_matrices

            m = score_matrices(pd.read_csv(csv), ["rouge2_f1", "bertscore_r", "expert_relevance"],
                               system="system_id", input="input_id")  # fmt: skip
            return m["rouge2_f1"], m["bertscore_r"], m["expert_relevance"], "SummEval 16 x 100"
    rng = np.random.default_rng(0)
    q = rng.normal(size=(16, 1)) + rng.normal(size=(16, 100))
    z = np.round(3 * (3 + q + rng.normal(size=q.shape))) / 3
    return q + rng.normal(size=q.shape), q + 2 * rng.normal(size=q.shape), z, "synthetic 16 x 100"


def median_time(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def peer_time(fn_b, b: int, budget: float) -> tuple[float, int, object]:
    """Run the peer with a growing number of resamples; extrapolate to ``b``."""
    n = 50
    while True:
        t = time.perf_counter()
        out = fn_b(n)
        dt = time.perf_counter() - t
        if n >= b:
            return dt, n, out
        if dt * 4 > budget:
            return dt * b / n, n, out
        n = min(b, n * 4)


def main() -> None:
    args = ARGS
    b = 1_000 if args.quick else 10_000
    xa, xb, z, what = load()
    print(f"# booteval.meta vs nlpstats: {what}, B = {b}, 95 % percentile intervals\n")
    print(
        f"Python {sys.version.split()[0]}, NumPy {np.__version__}, cores {os.cpu_count()}, "
        f"load average {os.getloadavg()[0]:.2f}, BLAS threads "
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}, nlpstats "
        f"{'yes' if nlp is not None else 'not installed'}\n"
    )
    # warm-up
    correlate(xa, z, level="summary", coefficient="kendall", n_resamples=100, seed=0)
    rows = []
    for level in ("system", "summary"):
        for coef in ("pearson", "spearman", "kendall"):
            t_ours, ours = median_time(
                lambda level=level, coef=coef: correlate(
                    xa, z, level=level, coefficient=coef, resample="both", n_resamples=b, seed=0
                ),
                args.repeat,
            )
            row = [f"correlate {level} {coef} Boot-Both", t_ours, ours.format(digits=3)]
            if nlp is not None:
                np.random.seed(0)  # noqa: NPY002 - nlpstats uses the global state
                lv = "input" if level == "summary" else level
                t_peer, n_peer, res = peer_time(
                    lambda n, lv=lv, coef=coef: nlp.bootstrap(
                        xa, z, lv, coef, "both", n_resamples=n
                    ),
                    b,
                    args.max_peer_seconds,
                )
                est = ours.estimate
                row += [t_peer, n_peer, f"{est:.3f} ({res.lower:.3f}, {res.upper:.3f})"]
            rows.append(row)
    for level in ("system", "summary"):
        t_ours, ours = median_time(
            lambda level=level: compare_correlations(
                xb, xa, z, level=level, resample="both", permutation="both", n_resamples=b, seed=0
            ),
            args.repeat,
        )
        row = [
            f"compare {level} pearson (Boot-Both + Perm-Both)",
            t_ours,
            f"p_perm {ours.p_value_permutation:.4f}",
        ]
        if nlp is not None:
            np.random.seed(0)  # noqa: NPY002
            lv = "input" if level == "summary" else level

            def both(n, lv=lv):
                nlp.bootstrap(xb, z, lv, "pearson", "both", n_resamples=n)
                nlp.bootstrap(xa, z, lv, "pearson", "both", n_resamples=n)
                return nlp.permutation_test(xb, xa, z, lv, "pearson", "both", n_resamples=n)

            t_peer, n_peer, res = peer_time(both, b, args.max_peer_seconds)
            row += [t_peer, n_peer, f"p_perm {res.pvalue:.4f}"]
        rows.append(row)

    print("| workload | booteval s | nlpstats s | ratio | booteval | nlpstats |")
    print("|---|---:|---:|---:|---|---|")
    for row in rows:
        if len(row) == 3:
            print(f"| {row[0]} | {row[1]:.3f} | - | - | {row[2]} | - |")
            continue
        name, t_ours, ours_txt, t_peer, n_peer, peer_txt = row
        star = "" if n_peer >= b else f"* ({n_peer} run)"
        print(
            f"| {name} | {t_ours:.3f} | {t_peer:.1f}{star} | {t_peer / t_ours:.0f}x | "
            f"{ours_txt} | {peer_txt} |"
        )
    print(
        "\nnlpstats times marked * are extrapolated from the resamples run; its intervals then "
        "come from that many resamples (and np.percentile's interpolation). nlpstats' "
        "'compare' row is two bootstrap calls plus one permutation test (it has no paired "
        "bootstrap of the difference)."
    )


if __name__ == "__main__":
    main()
