#!/usr/bin/env python
"""Benchmark booteval against its peers on the same seeded data, in the same run.

Usage::

    python benchmarks/bench_core.py                 # W1-W7 and the memory check (~30 min)
    python benchmarks/bench_core.py --quick         # smoke run (~2 minutes)
    python benchmarks/bench_core.py --only macro_f1 --json results.json

Every workload draws its data from a fixed seed, runs booteval once (and once more
with the optional compiled engine where it applies) and each peer once on exactly
the same arrays, and reports wall time (``time.perf_counter``), the peak memory of
each call, the interval each produced, and the ratio against the speed issue's bar.
Then each booteval workload runs at 1,000,000 rows and B = 10,000 in a fresh process
for its peak resident memory. See ``benchmarks/README.md`` for the definitions.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import sys
import time
import traceback
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any

import numpy as np
import scipy
import scipy.stats
from scipy.stats import rankdata

import booteval

CONFIDENCE = 0.95
SEED = 0
N_CLASSES = 5

# --------------------------------------------------------------------------- sizes
FULL = {
    "macro_f1": {"n": 100_000, "B": 10_000},
    "mean_bca": {"n": 100_000, "B": 10_000},
    "mean_percentile": {"n": 100_000, "B": 10_000},
    "accuracy": {"n": 1_000_000, "B": 10_000},
    "roc_auc": {"n": 100_000, "B": 10_000},
    "paired_accuracy": {"n": 1_000_000, "B": 10_000},
    "cluster_mean": {"n": 1_000_000, "B": 10_000},
    "paired_bleu": {"n": 10_000, "B": 10_000},
}
QUICK = {
    "macro_f1": {"n": 10_000, "B": 1_000},
    "mean_bca": {"n": 20_000, "B": 1_000},
    "mean_percentile": {"n": 20_000, "B": 1_000},
    "accuracy": {"n": 100_000, "B": 1_000},
    "roc_auc": {"n": 5_000, "B": 1_000},
    "paired_accuracy": {"n": 100_000, "B": 1_000},
    "cluster_mean": {"n": 100_000, "B": 1_000},
    "paired_bleu": {"n": 2_000, "B": 1_000},
}
# the bounded-memory check: booteval alone, each workload in a fresh process
MEMORY_FULL = {"n": 1_000_000, "n_bleu": 100_000, "B": 10_000}
MEMORY_QUICK = {"n": 100_000, "n_bleu": 10_000, "B": 1_000}
GIB = 1024.0
# scipy's ``batch`` (replicates per vectorized call), chosen so a batch fits easily in memory
SCIPY_BATCH = {
    "macro_f1": 200,
    "mean_bca": 100,
    "mean_percentile": 100,
    "accuracy": 20,
    "roc_auc": 100,
    "paired_accuracy": 20,
}


# --------------------------------------------------------------------------- memory
def _proc_status_kib(key: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def _reset_peak_rss() -> None:
    # Writing "5" to clear_refs resets VmHWM (the peak RSS) to the current RSS (Linux >= 4.0).
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def _rss_reset_works() -> bool:
    try:
        _reset_peak_rss()
        return _proc_status_kib("VmHWM") <= _proc_status_kib("VmRSS") + 1024
    except OSError:
        return False
    except KeyError:
        return False


class Meter:
    """Times one call and measures its peak memory.

    ``tracemalloc`` (default): the peak of the memory allocated during the call and
    traced by ``tracemalloc`` -- NumPy registers every array buffer with it, from any
    thread, and Python objects are traced too; the inputs, allocated before, are not
    counted. Exact, and independent of what the C allocator keeps cached. Tracing
    costs a little time (a few % on booteval's threads, ~0 on scipy's vectorized
    calls, more on Python loops), so with ``separate=True`` (booteval, and the peers'
    short Python-loop pilots) the call is run twice: untraced for the time, traced
    for the memory; long scipy runs are run once, traced.
    ``rss``: peak resident set size (``VmHWM``, reset just before the call through
    ``/proc/self/clear_refs``) minus the RSS before it, from one untraced run. It
    counts everything, but memory the allocator kept from earlier calls is reused
    without raising RSS, so it can under-count small (< 32 MiB) buffers.
    """

    def __init__(self, method: str = "tracemalloc") -> None:
        if method == "rss" and not _rss_reset_works():
            raise SystemExit("--memory rss needs a writable /proc/self/clear_refs (Linux)")
        self.method = method

    def __call__(self, fn: Callable[[], Any], separate: bool = False) -> tuple[Any, float, float]:
        """``(result, seconds, peak memory in MiB)``."""
        gc.collect()
        if self.method == "rss":
            base = _proc_status_kib("VmRSS")
            _reset_peak_rss()
            t0 = time.perf_counter()
            out = fn()
            dt = time.perf_counter() - t0
            peak = _proc_status_kib("VmHWM")
            return out, dt, max(0, peak - base) / 1024
        if separate:
            t0 = time.perf_counter()
            out = fn()
            dt = time.perf_counter() - t0
            gc.collect()
        tracemalloc.start()
        try:
            t0 = time.perf_counter()
            traced_out = fn()
            traced_dt = time.perf_counter() - t0
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        if not separate:
            out, dt = traced_out, traced_dt
        del traced_out
        return out, dt, peak / 2**20


# --------------------------------------------------------------------------- statistics
def macro_f1_stat(y_true: np.ndarray, y_pred: np.ndarray, axis: int = -1) -> np.ndarray:
    """Vectorized macro-F1 over classes ``0..N_CLASSES-1`` along ``axis``.

    Per class c, with one-hot columns t = (y_true == c), p = (y_pred == c):
    tp = sum(t & p), 2tp + fp + fn = sum(t) + sum(p); F1_c = 2tp / (sum(t) + sum(p)),
    0 where that denominator is 0 (sklearn's zero_division=0); mean over classes.
    """
    yt = np.moveaxis(np.asarray(y_true), axis, -1)
    yp = np.moveaxis(np.asarray(y_pred), axis, -1)
    total = np.zeros(yt.shape[:-1])
    for c in range(N_CLASSES):
        t = yt == c
        p = yp == c
        tp = np.count_nonzero(t & p, axis=-1)
        denom = np.count_nonzero(t, axis=-1) + np.count_nonzero(p, axis=-1)
        total = total + np.where(denom > 0, 2.0 * tp / np.maximum(denom, 1), 0.0)
    return total / N_CLASSES


def accuracy_stat(y_true: np.ndarray, y_pred: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(np.asarray(y_true) == np.asarray(y_pred), axis=axis)


def auc_stat(y_true: np.ndarray, y_score: np.ndarray, axis: int = -1) -> np.ndarray:
    """Vectorized ROC-AUC by Mann-Whitney: (R1 - n1(n1+1)/2) / (n1 n0), mid-ranks for ties."""
    yt = np.moveaxis(np.asarray(y_true), axis, -1)
    ys = np.moveaxis(np.asarray(y_score), axis, -1)
    ranks = rankdata(ys, axis=-1)
    pos = yt == 1
    n1 = np.count_nonzero(pos, axis=-1).astype(float)
    n0 = pos.shape[-1] - n1
    r1 = np.sum(ranks * pos, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (r1 - n1 * (n1 + 1) / 2) / (n1 * n0)


# --------------------------------------------------------------------------- data
def make_labels(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y_true = rng.choice(N_CLASSES, size=n, p=[0.35, 0.25, 0.20, 0.12, 0.08])
    noise = rng.integers(0, N_CLASSES, size=n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, noise)
    return y_true, y_pred


def make_scores(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).lognormal(mean=0.0, sigma=1.0, size=n)


def make_binary(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, size=n)
    y_pred = np.where(rng.random(n) < 0.85, y_true, 1 - y_true)
    return y_true, y_pred


def make_ranking(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y_true = (rng.random(n) < 0.3).astype(np.int64)
    y_score = rng.normal(size=n) + 1.2 * y_true
    return y_true, y_score


# --------------------------------------------------------------------------- results
@dataclass
class Row:
    workload: str
    method: str
    peer: str
    n: int
    B: int
    estimate: float
    booteval_s: float
    booteval_mib: float
    booteval_ci: tuple[float, float]
    peer_s: float | None = None
    peer_mib: float | None = None
    peer_ci: tuple[float, float] | None = None
    peer_method: str | None = None
    peer_B_run: int | None = None
    extrapolated: bool = False
    agreement_z: float | None = None
    note: str = ""
    fast_s: float | None = None  # booteval with engine="numba"
    fast_mib: float | None = None

    @property
    def ratio(self) -> float | None:
        if self.peer_s is None or not self.booteval_s:
            return None
        return self.peer_s / self.booteval_s

    @property
    def ratio_fast(self) -> float | None:
        if self.peer_s is None or not self.fast_s:
            return None
        return self.peer_s / self.fast_s

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["ratio"] = self.ratio
        d["ratio_fast"] = self.ratio_fast
        return d


@dataclass
class PeerOutcome:
    seconds: float
    mib: float
    ci: tuple[float, float]
    method: str  # "BCa" or "percentile": the interval the peer actually produced
    B_run: int
    extrapolated: bool
    note: str = ""


def _agreement(bt: Any, peer: PeerOutcome, B: int) -> float:
    """Largest endpoint difference in units of its Monte Carlo standard deviation.

    ``bt`` is the booteval result of the same interval method as the peer's. The
    difference of two independent Monte Carlo estimates has standard deviation
    ``mcse * sqrt(1 + B / B_peer)`` (booteval's ``mcse`` with ``B`` replicates, the
    peer's scaled to its own ``B_peer``). Values below ~3 are Monte Carlo noise.
    """
    inflate = math.sqrt(1.0 + B / peer.B_run)
    zs = []
    ends = ((bt.low, peer.ci[0], bt.mcse_low), (bt.high, peer.ci[1], bt.mcse_high))
    for mine, theirs, mcse in ends:
        sd = mcse * inflate
        zs.append(abs(mine - theirs) / sd if sd > 0 else (0.0 if mine == theirs else math.inf))
    return max(zs)


def _ci(res: Any) -> tuple[float, float]:
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


# --------------------------------------------------------------------------- peers
def _jackknife_pilot(
    data: tuple[np.ndarray, ...], statistic: Callable, paired: bool, batch: int, n_chunks: int
) -> tuple[float, int]:
    """Time scipy's BCa jackknife on its first ``n_chunks`` batches, built as scipy builds them.

    Returns ``(seconds, leave-one-out values computed)``.
    """
    n = data[0].shape[-1]
    t0 = time.perf_counter()
    done = 0
    for c in range(n_chunks):
        k = c * batch
        if k >= n:
            break
        size = min(batch, n - k)
        keep = np.ones((size, n), dtype=bool)
        np.fill_diagonal(keep[:, k : k + size], False)
        idx = np.broadcast_to(np.arange(n), (size, n))[keep].reshape(size, n - 1)
        if paired:
            statistic(*[s[..., idx] for s in data], axis=-1)
        else:
            statistic(data[0][idx], axis=-1)
        done += size
    return time.perf_counter() - t0, done


def scipy_peer(
    meter: Meter,
    data: tuple[np.ndarray, ...],
    statistic: Callable,
    *,
    paired: bool,
    method: str,
    B: int,
    batch: int,
    cap_s: float,
) -> PeerOutcome:
    """``scipy.stats.bootstrap`` (vectorized, single-threaded), run in full when it is
    projected to take at most ``cap_s`` seconds, else extrapolated from a shorter run."""
    n = data[0].shape[-1]

    def run(b: int, meth: str) -> Any:
        return scipy.stats.bootstrap(
            data,
            statistic,
            paired=paired,
            vectorized=True,
            method=meth,
            n_resamples=b,
            batch=batch,
            confidence_level=CONFIDENCE,
            random_state=SEED,
        )

    # Pilot: projected cost = resampling (linear in B) + BCa's jackknife (linear in n).
    b_pilot = min(B, max(100, B // 100))
    t0 = time.perf_counter()
    run(b_pilot, "percentile")
    projected = (time.perf_counter() - t0) * B / b_pilot
    if method == "BCa":
        t_j, done = _jackknife_pilot(data, statistic, paired, batch, n_chunks=2)
        projected += t_j * n / done
    if projected <= cap_s:
        res, secs, mib = meter(lambda: run(B, method))
        return PeerOutcome(secs, mib, _ci(res), method, B, extrapolated=False)

    # Too long: time B/10 resamples (percentile) and, for BCa, a slice of the jackknife.
    b_ext = min(B, max(b_pilot, B // 10))
    res, secs, mib = meter(lambda: run(b_ext, "percentile"))
    total = secs * B / b_ext
    note = f"scipy extrapolated: {b_ext:,} resamples x{B / b_ext:g}"
    if method == "BCa":
        per_chunk = t_j / max(1, math.ceil(done / batch))
        chunks = int(max(2, min(math.ceil(n / batch), 20.0 / max(per_chunk, 1e-9))))
        (t_j, done), _, mib_j = meter(
            lambda: _jackknife_pilot(data, statistic, paired, batch, n_chunks=chunks)
        )
        total += t_j * n / done
        mib = max(mib, mib_j)
        note += (
            f" + jackknife {done:,} of {n:,} leave-one-out x{n / done:.1f}"
            f" (projected {projected:.0f} s > cap {cap_s:.0f} s); interval is scipy's "
            f"percentile from {b_ext:,} resamples"
        )
    else:
        note += f" (projected {projected:.0f} s > cap {cap_s:.0f} s)"
    return PeerOutcome(total, mib, _ci(res), "percentile", b_ext, extrapolated=True, note=note)


def confidenceinterval_peer(
    meter: Meter, y_true: np.ndarray, y_pred: np.ndarray, B: int, cap_s: float
) -> PeerOutcome | str:
    try:
        import confidenceinterval  # noqa: F401
        from confidenceinterval import f1_score as ci_f1
    except ImportError:
        return "confidenceinterval not importable (pip install confidenceinterval); skipped"
    n = len(y_true)

    # The package calls scipy.stats.bootstrap non-vectorized with batch=None: the index
    # array is B x n int64, and BCa's jackknife builds n x (n-1) indices (~9 n^2 bytes:
    # ~90 GB at n=100,000), so only its percentile interval is feasible here.
    def run(b: int) -> Any:
        return ci_f1(
            y_true,
            y_pred,
            confidence_level=CONFIDENCE,
            average="macro",
            method="bootstrap_percentile",
            n_resamples=b,
            random_state=np.random.RandomState(SEED),
        )

    b_pilot = min(B, max(20, B // 50))
    out, secs, mib = meter(lambda: run(b_pilot), separate=True)
    projected = secs * B / b_pilot
    index_bytes = 8.0 * B * n
    if projected <= cap_s and index_bytes <= 2**30:
        out, secs, mib = meter(lambda: run(B), separate=True)
        return PeerOutcome(
            secs,
            mib,
            (float(out[1][0]), float(out[1][1])),
            "percentile",
            B,
            extrapolated=False,
            note="percentile (its BCa needs ~9 n^2 bytes for the jackknife)",
        )
    return PeerOutcome(
        projected,
        mib,
        (float(out[1][0]), float(out[1][1])),
        "percentile",
        b_pilot,
        extrapolated=True,
        note=(
            f"extrapolated: {b_pilot:,} resamples x{B / b_pilot:g}; percentile (a lower bound "
            f"for BCa, whose jackknife needs ~{9 * n * n / 1e9:.0f} GB here); peak memory at "
            f"{b_pilot:,} resamples (B={B:,} would allocate an index array of "
            f"{index_bytes / 1e9:.1f} GB); interval from {b_pilot:,} resamples"
        ),
    )


def sklearn_loop_peer(
    meter: Meter, y_true: np.ndarray, y_score: np.ndarray, B: int, b_loop: int
) -> PeerOutcome | str:
    try:
        from sklearn.metrics import roc_auc_score
    except ImportError:
        return "scikit-learn not importable; skipped"
    n = len(y_true)

    def run() -> np.ndarray:
        rng = np.random.default_rng(SEED)
        reps = np.empty(b_loop)
        for b in range(b_loop):
            idx = rng.integers(0, n, size=n)
            reps[b] = roc_auc_score(y_true[idx], y_score[idx])
        return reps

    reps, secs, mib = meter(run, separate=True)
    alpha = (1 - CONFIDENCE) / 2
    lo, hi = np.quantile(reps, [alpha, 1 - alpha])
    per_call = secs / b_loop
    return PeerOutcome(
        per_call * B,
        mib,
        (float(lo), float(hi)),
        "percentile",
        b_loop,
        extrapolated=True,
        note=(
            f"extrapolated: {b_loop:,} replicates x{B / b_loop:g}; resampling only (percentile,"
            f" a lower bound: BCa's jackknife would add {n:,} more calls, ~{per_call * n:.0f} s);"
            f" interval from {b_loop:,} replicates"
        ),
    )


# --------------------------------------------------------------------------- workloads
#: booteval's engines to time (``--engine``): the NumPy engine always; the optional
#: compiled engine as well ("both") on the workloads it covers (iid, not compressed)
ENGINE = "both"
NUMBA_WORKLOADS = ("mean_bca", "mean_percentile", "roc_auc")


def make_paired(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y_true, pred_a = make_binary(n, seed=5)
    rng = np.random.default_rng(6)
    pred_b = np.where(rng.random(n) < 0.3, y_true, pred_a)  # B fixes some of A's errors
    return y_true, pred_a, pred_b


def make_clustered(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Scores with a shared effect per cluster; n/10 clusters (sorted cluster ids)."""
    rng = np.random.default_rng(7)
    g = np.sort(rng.integers(0, n // 10, n))
    x = rng.normal(size=int(g.max()) + 1)[g] + rng.normal(size=n)
    return x, g


def job(name: str, n: int) -> tuple[tuple[np.ndarray, ...], Callable[..., Any]]:
    """A workload's data, and ``call(B, engine)`` running booteval on it."""
    if name == "paired_accuracy":
        data = make_paired(n)

        def compare(B: int, engine: str) -> Any:
            return booteval.compare(
                *data, metric="accuracy", method="percentile", n_resamples=B,
                confidence_level=CONFIDENCE, seed=SEED,
            )  # fmt: skip

        return data, compare
    if name == "cluster_mean":
        data = make_clustered(n)
        args, kwargs = data[:1], {"clusters": data[1], "method": "percentile"}
    else:
        maker, kwargs = {
            "macro_f1": (lambda: make_labels(n, seed=1),
                         {"metric": "f1", "metric_kwargs": {"average": "macro"}, "method": "bca"}),
            "mean_bca": (lambda: (make_scores(n, seed=2),), {"method": "bca"}),
            "mean_percentile": (lambda: (make_scores(n, seed=2),), {"method": "percentile"}),
            "accuracy": (lambda: make_binary(n, seed=3),
                         {"metric": "accuracy", "method": "percentile"}),
            "roc_auc": (lambda: make_ranking(n, seed=4), {"metric": "roc_auc", "method": "bca"}),
        }[name]  # fmt: skip
        data = args = maker()

    def ci(B: int, engine: str) -> Any:
        return booteval.ci(
            *args, n_resamples=B, confidence_level=CONFIDENCE, seed=SEED, engine=engine, **kwargs
        )

    return data, ci


@dataclass
class Timed:
    """booteval's result, time and memory; and the compiled engine's where it was run."""

    result: Any
    seconds: float
    mib: float
    fast_seconds: float | None = None
    fast_mib: float | None = None


def _bt(meter: Meter, name: str, call: Callable[[int, str], Any], B: int) -> Timed:
    res, secs, mib = meter(lambda: call(B, "numpy"), separate=True)
    out = Timed(res, secs, mib)
    if ENGINE == "both" and name in NUMBA_WORKLOADS:
        call(100, "numba")  # compile the kernels outside the timing
        fast, out.fast_seconds, out.fast_mib = meter(lambda: call(B, "numba"), separate=True)
        assert "numba engine" in fast.describe(), fast.notes
    return out


def _rows(
    workload: str,
    method: str,
    n: int,
    B: int,
    t: Timed,
    peers: list[tuple[str, PeerOutcome | str]],
) -> list[Row]:
    out = []
    bt = t.result
    for name, p in peers:
        row = Row(workload, method, name, n, B, bt.estimate, t.seconds, t.mib, (bt.low, bt.high))
        row.fast_s, row.fast_mib = t.fast_seconds, t.fast_mib
        if isinstance(p, str):
            row.note = p
        else:
            same = bt if p.method.lower() == bt.method.lower() else bt.with_method(p.method.lower())
            row.peer_s, row.peer_mib, row.peer_ci = p.seconds, p.mib, p.ci
            row.peer_method, row.peer_B_run, row.extrapolated = p.method, p.B_run, p.extrapolated
            row.agreement_z = _agreement(same, p, B)
            row.note = p.note
            if same is not bt:
                row.note += (
                    f"; compared with booteval's {p.method.lower()} interval "
                    f"[{same.low:.5f}, {same.high:.5f}] from the same run"
                )
        out.append(row)
    return out


def paired_accuracy_stat(
    y_true: np.ndarray, pred_a: np.ndarray, pred_b: np.ndarray, axis: int = -1
) -> np.ndarray:
    """Accuracy of B minus accuracy of A along ``axis`` (vectorized)."""
    return np.mean(pred_b == y_true, axis=axis) - np.mean(pred_a == y_true, axis=axis)


#: the scipy peer of each workload: vectorized statistic, paired, scipy's method
SCIPY_SPECS: dict[str, tuple[Callable[..., Any], bool, str]] = {
    "macro_f1": (macro_f1_stat, True, "BCa"),
    "mean_bca": (np.mean, False, "BCa"),
    "mean_percentile": (np.mean, False, "percentile"),
    "accuracy": (accuracy_stat, True, "percentile"),
    "roc_auc": (auc_stat, True, "BCa"),
    "paired_accuracy": (paired_accuracy_stat, True, "percentile"),
}


def _against_scipy(
    name: str,
    meter: Meter,
    n: int,
    B: int,
    cap: float,
    more_peers: Callable[[tuple[np.ndarray, ...]], list[tuple[str, PeerOutcome | str]]]
    | None = None,
    reference: Callable[..., float] | None = None,
) -> list[Row]:
    """booteval, scipy (and ``more_peers``) on workload ``name``'s data.

    The vectorized statistic is first checked against ``reference`` (an independent
    implementation, e.g. scikit-learn's) and booteval's estimate against the statistic.
    """
    stat, paired, method = SCIPY_SPECS[name]
    data, call = job(name, n)
    ref = float(stat(*data) if paired else stat(data[0]))
    if reference is not None:
        other = float(reference(*data))
        assert math.isclose(ref, other, rel_tol=1e-12, abs_tol=1e-12), (ref, other)
    t = _bt(meter, name, call, B)
    est = t.result.difference if name == "paired_accuracy" else t.result.estimate
    assert math.isclose(est, ref, rel_tol=1e-9, abs_tol=1e-12), (est, ref)
    peer = scipy_peer(
        meter, data, stat, paired=paired, method=method, B=B, batch=SCIPY_BATCH[name], cap_s=cap
    )
    peers = [("scipy.stats.bootstrap", peer), *(more_peers(data) if more_peers else [])]
    return _rows(name, method.lower(), n, B, t, peers)


def wl_macro_f1(meter: Meter, n: int, B: int, cap: float) -> list[Row]:
    from sklearn.metrics import f1_score

    return _against_scipy(
        "macro_f1", meter, n, B, cap,
        more_peers=lambda d: [("confidenceinterval", confidenceinterval_peer(meter, *d, B, cap))],
        reference=lambda yt, yp: f1_score(yt, yp, average="macro"),
    )  # fmt: skip


def wl_mean_bca(meter: Meter, n: int, B: int, cap: float) -> list[Row]:
    return _against_scipy("mean_bca", meter, n, B, cap)


def wl_mean_percentile(meter: Meter, n: int, B: int, cap: float) -> list[Row]:
    return _against_scipy("mean_percentile", meter, n, B, cap)


def wl_accuracy(meter: Meter, n: int, B: int, cap: float) -> list[Row]:
    return _against_scipy("accuracy", meter, n, B, cap)


def wl_roc_auc(meter: Meter, n: int, B: int, cap: float) -> list[Row]:
    from sklearn.metrics import roc_auc_score

    def loop(d: tuple[np.ndarray, ...]) -> list[tuple[str, PeerOutcome | str]]:
        b_loop = min(B, max(50, B // 50))
        return [("sklearn roc_auc_score loop", sklearn_loop_peer(meter, *d, B, b_loop=b_loop))]

    return _against_scipy("roc_auc", meter, n, B, cap, more_peers=loop, reference=roc_auc_score)


def wl_paired_accuracy(meter: Meter, n: int, B: int, cap: float) -> list[Row]:
    return _against_scipy("paired_accuracy", meter, n, B, cap)


def wl_cluster_mean(meter: Meter, n: int, B: int, cap: float) -> list[Row]:
    """Cluster bootstrap of a mean with n/10 clusters: booteval vs arch and a naive loop."""
    (x, g), call = job("cluster_mean", n)
    n_clusters = int(g.max()) + 1
    t = _bt(meter, "cluster_mean", call, B)
    assert math.isclose(t.result.estimate, float(np.mean(x)), rel_tol=1e-9)
    sums = np.bincount(g, weights=x)
    sizes = np.bincount(g).astype(float)
    peers: list[tuple[str, PeerOutcome | str]] = []
    try:
        from arch.bootstrap import IIDBootstrap

        def run_arch() -> Any:
            bs = IIDBootstrap(sums, sizes, seed=SEED)
            return bs.conf_int(
                lambda s, m: np.array([s.sum() / m.sum()]), reps=B, method="percentile",
                size=CONFIDENCE,
            )  # fmt: skip

        res, a_secs, a_mib = meter(run_arch)
        lo, hi = float(res[0, 0]), float(res[1, 0])
        peers.append(
            ("arch IIDBootstrap (per-cluster sums)",
             PeerOutcome(a_secs, a_mib, (lo, hi), "percentile", B, extrapolated=False))
        )  # fmt: skip
    except ImportError:
        peers.append(("arch IIDBootstrap (per-cluster sums)", "arch not installed"))

    starts = np.searchsorted(g, np.arange(n_clusters + 1))
    b_loop = min(B, 20)

    def naive() -> np.ndarray:
        lrng = np.random.default_rng(SEED)
        out = np.empty(b_loop)
        for b in range(b_loop):
            pick = lrng.integers(0, n_clusters, n_clusters)
            rows = np.concatenate([x[starts[c] : starts[c + 1]] for c in pick])
            out[b] = rows.mean()
        return out

    _, l_secs, l_mib = meter(naive, separate=True)
    peers.append(
        ("naive loop over clusters",
         PeerOutcome(l_secs * B / b_loop, l_mib, (float("nan"), float("nan")), "percentile",
                     b_loop, extrapolated=True,
                     note=f"extrapolated: {b_loop} replicates x{B / b_loop:g}"))
    )  # fmt: skip
    return _rows("cluster_mean", "percentile", n, B, t, peers)


def wl_paired_bleu(meter: Meter, n: int, B: int, cap: float) -> list[Row]:
    """W7: each tool in a fresh subprocess (``bench_text.py``), peak memory as RSS increase."""
    import bench_text

    bt, sb = bench_text.run_child("booteval", n, B), bench_text.run_child("sacrebleu", n, B)
    for r in (bt, sb):
        if "error" in r:
            raise RuntimeError(f"{r['tool']}: {r['error']}")
    row = Row(
        "paired_bleu", "percentile", "sacrebleu paired bootstrap", n, B, bt["bleu_b"],
        bt["seconds"], bt["peak_mib"] - bt["base_mib"], tuple(bt["ci_b"]),
        peer_s=sb["seconds"], peer_mib=sb["peak_mib"] - sb["base_mib"],
        peer_ci=tuple(sb["ci_b"]), peer_method="percentile", peer_B_run=B,
        note=(
            f"BLEU of system B and its interval; both times include sacrebleu's sentence "
            f"statistics ({bt['stats_seconds']:.2f} s of booteval's); memory: peak RSS increase "
            "in a fresh process"
        ),
    )  # fmt: skip
    return [row]


class _Skip(Exception):
    pass


WORKLOADS: dict[str, Callable[[Meter, int, int, float], list[Row]]] = {
    "macro_f1": wl_macro_f1,
    "mean_bca": wl_mean_bca,
    "mean_percentile": wl_mean_percentile,
    "accuracy": wl_accuracy,
    "roc_auc": wl_roc_auc,
    "paired_accuracy": wl_paired_accuracy,
    "cluster_mean": wl_cluster_mean,
    "paired_bleu": wl_paired_bleu,
}
#: the issue's workload ids, and the bar each peer's ratio must reach (peer s / booteval s)
IDS = {
    "mean_percentile": "W1", "mean_bca": "W1", "accuracy": "W2", "roc_auc": "W3",
    "macro_f1": "W4", "paired_accuracy": "W5", "cluster_mean": "W6", "paired_bleu": "W7",
}  # fmt: skip
BARS = {
    ("mean_percentile", "scipy.stats.bootstrap"): 3,
    ("mean_bca", "scipy.stats.bootstrap"): 30,
    ("accuracy", "scipy.stats.bootstrap"): 1000,
    ("roc_auc", "scipy.stats.bootstrap"): 30,
    ("roc_auc", "sklearn roc_auc_score loop"): 50,
    ("macro_f1", "scipy.stats.bootstrap"): 300,
    ("macro_f1", "confidenceinterval"): 300,
    ("paired_accuracy", "scipy.stats.bootstrap"): 1000,
    ("cluster_mean", "arch IIDBootstrap (per-cluster sums)"): 1,
    ("cluster_mean", "naive loop over clusters"): 50,
    ("paired_bleu", "sacrebleu paired bootstrap"): 10,
}


# --------------------------------------------------------------------------- output
def _fmt_s(x: float | None, approx: bool) -> str:
    if x is None:
        return "-"
    s = f"{x:.3g}" if x < 100 else f"{x:.0f}"
    return ("~" + s + " (extrap.)") if approx else s


def _fmt_mib(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"


def _fmt_ci(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"[{ci[0]:.5f}, {ci[1]:.5f}]"


def markdown_table(rows: list[Row]) -> str:
    head = [
        "workload",
        "method",
        "peer",
        "n",
        "B",
        "booteval s",
        "peer s",
        "ratio peer/booteval",
        "booteval peak MiB",
        "peer peak MiB",
        "estimate",
        "booteval interval",
        "peer interval",
        "diff/sd_MC",
        "note",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    for r in rows:
        ratio = r.ratio
        if ratio is None:
            ratio_s = "-"
        else:
            ratio_s = f"{ratio:,.0f}x" if ratio >= 100 else f"{ratio:.3g}x"
            ratio_s = ("~" if r.extrapolated else "") + ratio_s
        peer_ci = _fmt_ci(r.peer_ci)
        if r.peer_ci is not None and (
            (r.peer_method or "").lower() != r.method or r.peer_B_run != r.B
        ):
            peer_ci += f" ({r.peer_method}, {r.peer_B_run:,} res.)"
        cells = [
            r.workload,
            r.method,
            r.peer,
            f"{r.n:,}",
            f"{r.B:,}",
            _fmt_s(r.booteval_s, False),
            _fmt_s(r.peer_s, r.extrapolated),
            ratio_s,
            _fmt_mib(r.booteval_mib),
            _fmt_mib(r.peer_mib),
            f"{r.estimate:.5f}",
            _fmt_ci(r.booteval_ci),
            peer_ci,
            "-" if r.agreement_z is None else f"{r.agreement_z:.2f}",
            r.note.replace("|", "/"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt_ratio(ratio: float | None, approx: bool) -> str:
    if ratio is None:
        return "-"
    out = f"{ratio:,.0f}x" if ratio >= 100 else f"{ratio:.3g}x"
    return ("~" if approx else "") + out


def summary_table(rows: list[Row]) -> str:
    """One line per (workload, peer): times, ratios against the issue's bar, peak memory."""
    head = [
        "id", "workload", "n", "peer", "booteval s", "booteval s (numba)", "peer s",
        "ratio", "ratio (numba)", "bar", "met", "booteval MiB", "peer MiB",
    ]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    for r in rows:
        bar = BARS.get((r.workload, r.peer))
        best = max((x for x in (r.ratio, r.ratio_fast) if x is not None), default=None)
        full = FULL.get(r.workload, {})
        if bar is None or best is None or (r.n, r.B) != (full.get("n"), full.get("B")):
            # the bars are set at the full sizes
            met = "-"
        elif r.ratio is not None and r.ratio >= bar:
            met = "yes"
        elif best >= bar:
            met = "yes (numba)"
        else:
            met = "**no**"
        cells = [
            IDS.get(r.workload, ""),
            f"{r.workload} ({r.method})",
            f"{r.n:,}",
            r.peer,
            _fmt_s(r.booteval_s, False),
            _fmt_s(r.fast_s, False),
            _fmt_s(r.peer_s, r.extrapolated),
            _fmt_ratio(r.ratio, r.extrapolated),
            _fmt_ratio(r.ratio_fast, r.extrapolated),
            "-" if bar is None else f">= {bar:,}x",
            met,
            _fmt_mib(r.booteval_mib) + ("" if r.fast_mib is None else f" / {_fmt_mib(r.fast_mib)}"),
            _fmt_mib(r.peer_mib),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- bounded memory
def child_memory(name: str, n: int, B: int, engine: str) -> dict[str, Any]:
    """Run one booteval workload in this (fresh) process; its time and peak RSS."""
    _, call = job(name, n)
    call(min(B, 100), engine)  # warm-up, and JIT compilation for numba
    gc.collect()
    base = _proc_status_kib("VmRSS") / 1024
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = call(B, engine)
    secs = time.perf_counter() - t0
    if engine == "numba":
        assert "numba engine" in res.describe(), res.notes
    # VmHWM: this address space's peak RSS (ru_maxrss would carry the parent's over exec)
    peak = _proc_status_kib("VmHWM") / 1024
    return {"name": name, "n": n, "B": B, "engine": engine, "seconds": secs,
            "peak_mib": peak, "base_mib": base}  # fmt: skip


def memory_check(names: list[str], sizes: dict[str, int]) -> list[dict[str, Any]]:
    """Each workload at ``sizes["n"]`` rows (BLEU: ``n_bleu`` sentences), in a fresh process."""
    import subprocess

    import bench_text

    out = []
    for name in names:
        B = sizes["B"]
        if name == "paired_bleu":
            n = sizes["n_bleu"]
            print(f"[{time.strftime('%H:%M:%S')}] memory: {name}, n={n:,}", flush=True)
            r = bench_text.run_child("booteval", n, B)
            r.update(name=name, engine="numpy")
            out.append(r)
            continue
        n = sizes["n"]
        engines = ["numpy"] + (["numba"] if ENGINE == "both" and name in NUMBA_WORKLOADS else [])
        for engine in engines:
            print(f"[{time.strftime('%H:%M:%S')}] memory: {name}, n={n:,}, {engine}", flush=True)
            cmd = [sys.executable, os.path.abspath(__file__), "--child", name, str(n), str(B),
                   engine]  # fmt: skip
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                err = (proc.stderr.strip().splitlines() or ["?"])[-1]
                out.append({"name": name, "n": n, "B": B, "engine": engine, "error": err})
                continue
            out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


def memory_table(results: list[dict[str, Any]]) -> str:
    head = (
        "| id | workload | n | B | engine | booteval s | peak RSS MiB "
        "| of which before the call | under 1 GiB |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        first = (
            f"| {IDS.get(r['name'], '')} | {r['name']} | {r['n']:,} | {r['B']:,} | {r['engine']}"
        )
        if "error" in r:
            lines.append(f"{first} | failed: {r['error']} | | | **no** |")
            continue
        ok = "yes" if r["peak_mib"] < GIB else "**no**"
        lines.append(
            f"{first} | {_fmt_s(r['seconds'], False)} | {r['peak_mib']:.0f} "
            f"| {r['base_mib']:.0f} | {ok} |"
        )
    return "\n".join(lines)


def machine_info(meter: Meter) -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()

    def ver(pkg: str) -> str:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "not installed"

    try:
        mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        mem_gib = float("nan")
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gib": round(mem_gib, 1),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": ver("scikit-learn"),
        "booteval": booteval.__version__,
        "confidenceinterval": ver("confidenceinterval"),
        "booteval_workers": f"default (all cores: {os.cpu_count()})",
        "memory_measure": meter.method,
    }


def warm_up() -> None:
    """Import everything and run each code path once on tiny data."""
    rng = np.random.default_rng(123)
    yt, yp = make_labels(500, 9)
    booteval.ci(yt, yp, metric="f1", metric_kwargs={"average": "macro"}, n_resamples=200, seed=1)
    booteval.ci(rng.random(500), n_resamples=200, seed=1)
    booteval.ci(rng.random(500), method="percentile", n_resamples=200, seed=1)
    a, b = make_binary(500, 9)
    booteval.ci(a, b, metric="accuracy", method="percentile", n_resamples=200, seed=1)
    scipy.stats.bootstrap(
        (yt, yp), macro_f1_stat, paired=True, vectorized=True, n_resamples=200, random_state=1
    )
    scipy.stats.bootstrap(
        (rng.random(500),), np.mean, vectorized=True, n_resamples=200, random_state=1
    )
    try:
        from sklearn.metrics import f1_score, roc_auc_score

        f1_score(yt, yp, average="macro")
        y, s = make_ranking(500, 9)
        roc_auc_score(y, s)
        auc_stat(y, s)
        if "roc_auc" in booteval.list_metrics():
            booteval.ci(y, s, metric="roc_auc", n_resamples=200, seed=1)
    except ImportError:
        pass
    try:
        import confidenceinterval

        confidenceinterval.f1_score(
            yt,
            yp,
            average="macro",
            method="bootstrap_percentile",
            n_resamples=20,
            random_state=np.random.RandomState(0),
        )
    except ImportError:
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller n and B (smoke run, < 1 min)")
    ap.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        choices=list(WORKLOADS),
        help="run only this workload (repeatable): " + ", ".join(WORKLOADS),
    )
    ap.add_argument("--json", metavar="PATH", help="also save machine info and rows as JSON")
    ap.add_argument(
        "--engine",
        choices=("numpy", "both"),
        default="both",
        help="time booteval's NumPy engine only, or also the optional compiled engine "
        "(engine='numba', on the workloads it covers; JIT compilation before timing; "
        "default: both when numba is importable)",
    )
    ap.add_argument(
        "--skip-memory",
        action="store_true",
        help="skip the bounded-memory check (each workload at 1,000,000 rows, BLEU at "
        "100,000 sentences, B = 10,000, in a fresh process)",
    )
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument(
        "--max-peer-seconds",
        type=float,
        default=300.0,
        help="a scipy peer projected to take longer is timed on fewer resamples "
        "(B/10) and extrapolated linearly (default 300)",
    )
    ap.add_argument(
        "--memory",
        choices=("tracemalloc", "rss"),
        default="tracemalloc",
        help="peak-memory measure (see Meter; default tracemalloc)",
    )
    args = ap.parse_args(argv)
    if args.child:
        name, n, b, engine = args.child
        print(json.dumps(child_memory(name, int(n), int(b), engine)))
        return 0

    global ENGINE
    ENGINE = args.engine
    try:
        import numba  # noqa: F401
    except ImportError:
        ENGINE = "numpy"
    sizes = QUICK if args.quick else FULL
    names = args.only or list(WORKLOADS)
    meter = Meter(args.memory)
    warm_up()
    info = machine_info(meter)
    print("## Machine")
    for k, v in info.items():
        print(f"- {k}: {v}")
    print("- scipy.stats.bootstrap runs single-threaded; booteval uses all cores (workers=None)")
    measure = (
        "peak RSS increase over the call (VmHWM reset just before it)"
        if meter.method == "rss"
        else "tracemalloc peak of the allocations made during the call (NumPy buffers "
        "included; inputs excluded); booteval and Python-loop peers are timed in a "
        "separate untraced run"
    )
    print(f"- peak memory: {measure}, in MiB", flush=True)

    rows: list[Row] = []
    skipped: dict[str, str] = {}
    t_all = time.perf_counter()
    for name in names:
        n, B = sizes[name]["n"], sizes[name]["B"]
        print(f"\n[{time.strftime('%H:%M:%S')}] {name}: n={n:,}, B={B:,} ...", flush=True)
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                new = WORKLOADS[name](meter, n, B, args.max_peer_seconds)
        except _Skip as exc:
            skipped[name] = str(exc)
            print(f"  skipped: {exc}", flush=True)
            continue
        except Exception as exc:  # report and go on with the other workloads
            skipped[name] = f"error: {type(exc).__name__}: {exc}"
            traceback.print_exc()
            continue
        for r in new:
            print(
                f"  {r.peer}: booteval {_fmt_s(r.booteval_s, False)} s, peer "
                f"{_fmt_s(r.peer_s, False)} s"
                f"{' (extrapolated)' if r.extrapolated else ''}; intervals "
                f"{_fmt_ci(r.booteval_ci)} vs {_fmt_ci(r.peer_ci)}",
                flush=True,
            )
        print(f"  ({time.perf_counter() - t0:.0f} s for this workload)", flush=True)
        rows.extend(new)

    print(
        f"\n## Results ({'quick' if args.quick else 'full'} run, "
        f"{time.perf_counter() - t_all:.0f} s in all)\n"
    )
    print(summary_table(rows))
    print(
        "\nratio = peer seconds / booteval seconds (>1: booteval faster; ~: the peer's time is "
        "extrapolated, see the notes below); bar: the speed issue's; MiB: peak memory of the "
        f"call ({meter.method}; paired_bleu: peak RSS increase in a fresh process; booteval: "
        "NumPy / numba engine)\n\n### Details\n"
    )
    print(markdown_table(rows))
    for name, why in skipped.items():
        print(f"\n- {name} skipped: {why}")
    print(
        "\ndiff/sd_MC: largest endpoint difference over its Monte Carlo standard deviation "
        "(< ~3: agreement)."
    )
    memory: list[dict[str, Any]] = []
    if not args.skip_memory:
        sizes_m = MEMORY_QUICK if args.quick else MEMORY_FULL
        print(f"\n## Bounded memory ({time.strftime('%H:%M:%S')})\n", flush=True)
        memory = memory_check(names, sizes_m)
        print()
        print(memory_table(memory))
        print(
            "\npeak RSS: the whole process's (VmHWM: interpreter, imports, data and the "
            "call), each workload in a fresh process after a 100-resample warm-up."
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "machine": info,
                    "quick": args.quick,
                    "rows": [r.to_json() for r in rows],
                    "skipped": skipped,
                    "memory": memory,
                },
                fh,
                indent=2,
                default=float,
            )
        print(f"\nsaved {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
