"""The resampling loop: weight batches in, replicate values (and standard errors) out."""

from __future__ import annotations

import numpy as np

from .design import Design
from .metrics._base import Evaluator

__all__ = ["default_batch", "run_replicates"]

# cells of the (batch x units) weight matrix processed at once: 32 MB of float64
_BATCH_CELLS = 1 << 22


def default_batch(n_units: int, n_resamples: int) -> int:
    """Replicates per batch so that one weight batch stays around 32 MB."""
    return max(1, min(n_resamples, _BATCH_CELLS // max(n_units, 1)))


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
) -> tuple[np.ndarray, np.ndarray | None]:
    """All replicate values, and per-replicate standard errors when ``want_se``.

    Standard errors come from the evaluator's analytic formula where it has
    one, and otherwise from a nested bootstrap of ``n_inner`` resamples drawn
    from each replicate (seeded per replicate, so independent of ``batch``).
    """
    size = batch or default_batch(design.n_units, n_resamples)
    reps = np.empty(n_resamples)
    ses = np.empty(n_resamples) if want_se else None
    for start in range(0, n_resamples, size):
        stop = min(start + size, n_resamples)
        weights = design.unit_weights(seed, start, stop)
        reps[start:stop] = evaluator.replicates(weights)
        if ses is None:
            continue
        if evaluator.has_standard_error:
            ses[start:stop] = evaluator.standard_errors(weights)
            continue
        for i, b in enumerate(range(start, stop)):
            inner = design.nested_unit_weights(weights[i], n_inner, _inner_rng(seed, b))
            values = evaluator.replicates(inner)
            values = values[np.isfinite(values)]
            ses[b] = np.std(values, ddof=1) if values.size >= 2 else np.nan
    return reps, ses
