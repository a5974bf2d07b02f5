"""The resampling loop: weight batches in, replicate values (and standard errors) out."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .design import Design
from .metrics._base import Evaluator

__all__ = ["default_batch", "run_replicates"]


def default_batch(design: Design, n_resamples: int) -> int:
    """One generator block of replicates (about 8 MB of weights) per batch.

    Aligning batches with the design's blocks means no block is drawn twice.
    """
    return max(1, min(n_resamples, design.block_size))


def _inner_rng(seed: int, b: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(1, b))))


def run_replicates(
    evaluator: Evaluator,
    design: Design,
    n_resamples: int,
    seed: int,
    batch: int | None,
    *,
    want_se: bool = False,
    n_inner: int = 50,
    workers: int | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """All replicate values, and per-replicate standard errors when ``want_se``.

    Standard errors come from the evaluator's analytic formula where it has
    one, and otherwise from a nested bootstrap of ``n_inner`` resamples drawn
    from each replicate (seeded per replicate, so independent of ``batch``).
    """
    design = evaluator.design or design
    size = batch or default_batch(design, n_resamples)
    reps = np.empty(n_resamples)
    ses = np.empty(n_resamples) if want_se else None

    def one_batch(start: int) -> None:
        stop = min(start + size, n_resamples)
        weights = design.unit_weights(seed, start, stop)
        reps[start:stop] = evaluator.replicates(weights)
        if ses is None:
            return
        if evaluator.has_standard_error:
            ses[start:stop] = evaluator.standard_errors(weights)
            return
        for i, b in enumerate(range(start, stop)):
            inner = design.nested_unit_weights(weights[i], n_inner, _inner_rng(seed, b))
            values = evaluator.replicates(inner)
            values = values[np.isfinite(values)]
            ses[b] = np.std(values, ddof=1) if values.size >= 2 else np.nan

    starts = range(0, n_resamples, size)
    n_workers = min(resolve_workers(workers), len(starts))
    if n_workers <= 1 or not getattr(evaluator, "thread_safe", True):
        for start in starts:
            one_batch(start)
    else:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            for _ in pool.map(one_batch, starts):
                pass
    return reps, ses


def resolve_workers(workers: int | None) -> int:
    """Number of threads: ``workers``, or the machine's cores when ``None``."""
    if workers is None:
        return max(1, os.cpu_count() or 1)
    return max(1, int(workers))
