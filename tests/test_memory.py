"""Bounded memory: the peak of an interval's allocations does not grow with B.

``tracemalloc`` traces every NumPy buffer, so its peak is the largest amount
of memory a call held at once (inputs excluded). The weights of the resamples
are drawn in blocks of bounded size, so going from 1,000 to 4,000 resamples
may only add the stored replicate values (8 bytes each, a few copies); a path
that materialized (B, n) weights would add hundreds of MiB here. The million-row
figures are in ``benchmarks/`` (``bench_core.py`` runs each workload at
1,000,000 rows and B = 10,000 in a fresh process and reports its peak RSS).
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

import booteval

N = 40_000


def _peak_mib(fn: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _data() -> dict[str, tuple[tuple[np.ndarray, ...], dict[str, object]]]:
    rng = np.random.default_rng(3)
    x = rng.lognormal(size=N)
    y = (rng.random(N) < 0.3).astype(int)
    score = rng.normal(size=N) + y
    pred = (score > 0.5).astype(int)
    other = np.where(rng.random(N) < 0.2, y, pred)
    clusters = np.repeat(np.arange(N // 10), 10)
    return {
        "mean": ((x,), {}),
        "mean_percentile": ((x,), {"method": "percentile"}),
        "accuracy": ((y, pred), {"metric": "accuracy"}),
        "macro_f1": ((y, pred), {"metric": "f1", "metric_kwargs": {"average": "macro"}}),
        "roc_auc": ((y, score), {"metric": "roc_auc"}),
        "cluster_mean": ((x,), {"clusters": clusters}),
        "paired_accuracy": ((y, pred, other), {"metric": "accuracy", "compare": True}),
    }


#: the slowest workloads (seconds each) run in the full suite; the others keep the fast lane's check
SLOW = {"mean", "mean_percentile", "roc_auc"}


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in _data()]
)
def test_peak_memory_does_not_grow_with_resamples(name: str, workers: int) -> None:
    data, kwargs = _data()[name]
    kwargs = dict(kwargs)
    fn = booteval.compare if kwargs.pop("compare", False) else booteval.ci

    def run(b: int) -> Callable[[], object]:
        return lambda: fn(*data, n_resamples=b, seed=0, workers=workers, **kwargs)

    run(1_000)()  # one-time allocations (imports, caches) are not growth with B
    small, large = _peak_mib(run(1_000)), _peak_mib(run(4_000))
    # 3,000 more replicates are 23 KiB per stored copy; allow a few copies. With several
    # workers, whether their batches overlap in time depends on the scheduler (a loaded
    # machine runs them one after the other), so the peak may hold one more block of
    # weights (2**20 cells, 8 MiB) per extra worker in either run; that is not growth with B.
    overlap = (workers - 1) * 8.0
    assert large - small < 0.5 + overlap, (small, large)
    # and stays small: each worker holds one block of weights (at most 2**20 cells,
    # 8 MiB) and a few temporaries of that size (the rank metrics' weighted passes)
    assert large < 64 * workers, large
