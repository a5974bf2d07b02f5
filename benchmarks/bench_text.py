#!/usr/bin/env python
"""W7: paired corpus BLEU of two systems, booteval against sacrebleu's paired bootstrap.

Usage::

    python benchmarks/bench_text.py            # 10,000 sentences (both tools), then
                                               # 100,000 sentences (booteval alone)
    python benchmarks/bench_text.py --quick    # smoke run: 2,000 / 10,000 sentences, B = 1,000

Both tools get the same synthetic corpus (a seeded Zipf vocabulary: references
of 10-40 words, two systems that keep 60 % and 66 % of the reference words and
replace the rest), the same ``B`` and the default BLEU (13a tokenizer, exp
smoothing). Each tool runs in its own fresh subprocess, so its peak resident
memory (``VmHWM``) is its own; the table also gives the increase over the
process's memory just before the call (interpreter, imports and the corpus).

* booteval: ``booteval.compare(refs, hyps_a, hyps_b, metric="bleu",
  method="percentile", n_resamples=B, seed=0)``;
* sacrebleu: ``sacrebleu.significance.PairedTest(..., test_type="bs",
  n_samples=B)()``, the paired bootstrap that ``sacrebleu REF -i A B --paired-bs
  --paired-bs-n B`` runs (its default is 1,000 resamples; both use ``B`` here).

Both times include extracting each sentence's n-gram statistics (sacrebleu's
tokenization and n-gram matching, done by both tools); "(statistics x)" after
booteval's time is that share, timed again separately after the run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from typing import Any

import numpy as np

VOCAB_SIZE = 5000
SEED = 0


def make_corpus(n: int, seed: int = SEED) -> tuple[list[str], list[str], list[str]]:
    """References and two systems' hypotheses (strings), from a fixed seed."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(VOCAB_SIZE)])
    lengths = rng.integers(10, 41, n)
    total = int(lengths.sum())
    words = vocab[np.minimum(rng.zipf(1.3, total) - 1, VOCAB_SIZE - 1)]
    noise = vocab[rng.integers(0, VOCAB_SIZE, (2, total))]
    keep_a = rng.random(total) < 0.60
    keep_b = keep_a | (rng.random(total) < 0.15)  # B fixes some of A's errors
    hyp_a = np.where(keep_a, words, noise[0])
    hyp_b = np.where(keep_b, words, noise[1])
    cuts = np.cumsum(lengths)[:-1]
    refs = [" ".join(s) for s in np.split(words, cuts)]
    a = [" ".join(s) for s in np.split(hyp_a, cuts)]
    b = [" ".join(s) for s in np.split(hyp_b, cuts)]
    return refs, a, b


def _status_mib(key: str = "VmRSS") -> float:
    """A ``/proc/self/status`` memory figure (Linux), in MiB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover


def _child(tool: str, n: int, b: int) -> dict[str, Any]:
    """Run one tool once in this (fresh) process; report time and memory."""
    import sacrebleu  # noqa: F401  (imported by both, before the baseline)

    import booteval

    refs, hyp_a, hyp_b = make_corpus(n)
    base = _status_mib()
    t0 = time.perf_counter()
    if tool == "booteval":
        r = booteval.compare(
            refs, hyp_a, hyp_b, metric="bleu", method="percentile", n_resamples=b, seed=SEED
        )
        out = {
            "bleu_a": r.estimate_a, "bleu_b": r.estimate_b, "ci_b": list(r.interval_b),
            "diff_ci": [r.low, r.high], "p": r.p_value,
        }  # fmt: skip
    else:
        from sacrebleu.metrics import BLEU
        from sacrebleu.significance import PairedTest

        test = PairedTest(
            [("A", hyp_a), ("B", hyp_b)], {"BLEU": BLEU()}, [refs], test_type="bs", n_samples=b
        )
        _, scores = test()
        ra, rb = scores["BLEU"]
        out = {
            "bleu_a": ra.score, "bleu_b": rb.score,
            "ci_b": [rb.mean - rb.ci, rb.mean + rb.ci], "p": rb.p_value,
        }  # fmt: skip
    seconds = time.perf_counter() - t0
    peak = _status_mib("VmHWM")  # this address space's peak (ru_maxrss survives exec)
    if tool == "booteval":
        # the share of sacrebleu's sentence statistics (tokenization, n-gram matching),
        # which both tools compute: the same work again, timed after the peak was read
        m = booteval.get_metric("bleu")
        t1 = time.perf_counter()
        for hyps in (hyp_a, hyp_b):
            m.statistics(m.validate(refs, hyps))
        out["stats_seconds"] = time.perf_counter() - t1
    return {"tool": tool, "n": n, "B": b, "seconds": seconds, "peak_mib": peak,
            "base_mib": base, **out}  # fmt: skip


def run_child(tool: str, n: int, b: int) -> dict[str, Any]:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", tool, str(n), str(b)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"tool": tool, "n": n, "B": b, "error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| workload | tool | n | B | time (s) | ratio (peer / booteval) | peak RSS (MiB) "
        "| increase (MiB) | BLEU A, B | 95% CI of B |\n|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    bt_time = {r["n"]: r["seconds"] for r in rows if r["tool"] == "booteval" and "seconds" in r}
    for r in rows:
        if "error" in r:
            lines.append(f"| W7 | {r['tool']} | {r['n']:,} | {r['B']:,} | failed: {r['error']} "
                         "| | | | | |")  # fmt: skip
            continue
        ratio = None
        if r["tool"] != "booteval" and r["n"] in bt_time:
            ratio = r["seconds"] / bt_time[r["n"]]
        lines.append(
            f"| W7 paired BLEU | {r['tool']} | {r['n']:,} | {r['B']:,} | {r['seconds']:.2f}"
            + (f" (statistics {r['stats_seconds']:.2f})" if "stats_seconds" in r else "")
            + " "
            f"| {_fmt(ratio, '.1f') + 'x' if ratio else '-'} | {r['peak_mib']:.0f} "
            f"| {r['peak_mib'] - r['base_mib']:.0f} | {r['bleu_a']:.2f}, {r['bleu_b']:.2f} "
            f"| ({r['ci_b'][0]:.2f}, {r['ci_b'][1]:.2f}) |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", nargs=3, metavar=("TOOL", "N", "B"), help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=10_000, help="sentences for the head-to-head")
    ap.add_argument("--big", type=int, default=100_000, help="sentences for booteval alone")
    ap.add_argument("-B", "--resamples", type=int, default=10_000)
    ap.add_argument("--quick", action="store_true", help="2,000 / 10,000 sentences, B = 1,000")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    if args.child:
        tool, n, b = args.child
        print(json.dumps(_child(tool, int(n), int(b))))
        return
    if args.quick:
        args.n, args.big, args.resamples = 2_000, 10_000, 1_000
    import booteval

    cpu = ""
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), ""
            )
    except OSError:  # pragma: no cover
        pass
    print(
        f"machine: {os.cpu_count()} cores, {cpu}; Python {platform.python_version()}, "
        f"NumPy {np.__version__}, booteval {booteval.__version__}, "
        f"sacrebleu {metadata.version('sacrebleu')}"
    )
    b = args.resamples
    rows = [run_child("booteval", args.n, b), run_child("sacrebleu", args.n, b)]
    rows.append(run_child("booteval", args.big, b))
    print()
    print(table(rows))
    big = rows[-1]
    if "peak_mib" in big:
        ok = "under" if big["peak_mib"] < 1024 else "OVER"
        print(f"\nbooteval at {args.big:,} sentences: peak RSS {big['peak_mib']:.0f} MiB, "
              f"{ok} 1 GiB (sacrebleu's gather of (B, n, 10) float32 statistics alone would "
              f"need {b * args.big * 10 * 4 / 2**30:.0f} GiB)")  # fmt: skip
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
