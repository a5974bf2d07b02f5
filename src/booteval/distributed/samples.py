"""pass@k on a table of samples (one row per generated sample): the histogram tier.

The engine counts rows per (problem, correct) (with clusters of problems: per
(cluster, problem, correct)); the driver turns each problem's ``n`` samples and ``c``
correct ones into its unbiased pass@k, sums them per unit (a problem, or a cluster of
problems) and runs the exact Poisson bootstrap over units with equal sums, as for any
histogram metric. The result is :func:`booteval.pass_at_k` on the same samples, with
Poisson weights: BCa from the counted jackknife, and the same numbers for any
partitioning.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ..core.engine import check_run_options
from ..core.errors import InvalidInputError
from ..metrics.base import Metric
from ..results import CIResult
from .engines import open_source, source_kind
from .finish import Replicates, cell_replicates
from .partitions import system_stats
from .run import TABLE_METHODS, _histogram_part, check_table_options, execute, table_result
from .states import StateSpec

__all__ = ["table_pass_at_k"]


def _column(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(name, "a column name (a string) for a table", repr(value))
    return value


def table_pass_at_k(
    data: Any, *, items: Any, correct: Any, k: int, clusters: Any, metric: Metric,
    values: Any, method: str, confidence_level: float, n_resamples: Any, seed: Any,
    design: str = "poisson", progress: Any = None,
) -> CIResult:  # fmt: skip
    """pass@k of the samples in a table (``values(n, c, k)``: each problem's pass@k;
    ``metric``: the mean of one value per problem, as the in-memory path reports it)."""
    items, correct = _column(items, "items"), _column(correct, "correct_col")
    if clusters is not None:
        clusters = _column(clusters, "clusters")
    check_table_options(design, n_resamples)
    run_method = "bca" if method == "auto" else method
    if run_method not in TABLE_METHODS:
        raise InvalidInputError(
            "method", f"one of {', '.join(map(repr, TABLE_METHODS))} on a table", repr(method)
        )  # fmt: skip
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        method=run_method, on_undefined="drop",
    )  # fmt: skip
    inputs = (correct,) if clusters is None else (items, correct)
    wanted = [items, correct] + ([clusters] if clusters is not None else [])
    table, engine = open_source(data, source_kind(data), list(dict.fromkeys(wanted)))
    spec = StateSpec(
        "histogram", metric.label, inputs, clusters or items, opts.seed, opts.n_resamples,
        systems=(inputs,),
    )  # fmt: skip

    def finish(state: Any) -> tuple[Replicates, dict[str, Any], tuple[str, ...]]:
        n, c, unit = _per_problem(state, correct, clusters is not None)
        ev, stats = system_stats(metric, (values(n, c, k),))
        starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
        sums = np.add.reduceat(stats, starts, axis=0)
        n_clusters = int(starts.size) if clusters is not None else None
        reps = cell_replicates(
            [ev], [stats.shape[1]], sums, np.ones(starts.size, dtype=np.int64), spec,
            int(n.size), n_clusters,
        )  # fmt: skip
        auto = (
            "method='auto' on a table: bca (the Poisson bootstrap of a table; the jackknife "
            "over problems is exact there); booteval.pass_at_k on arrays chooses from the "
            "coverage atlas and may differ",
        )  # fmt: skip
        return reps, {"samples": state.n_rows}, auto if method == "auto" else ()

    run = execute(
        table, engine, spec, partial(_histogram_part, spec=spec), finish, metric=metric,
        method=run_method, methods=TABLE_METHODS, opts=opts, design=design,
        progress=progress, what="pass@k", rows="problems",
    )  # fmt: skip
    return table_result(run, hint="A studentized interval needs arrays: booteval.pass_at_k("
                        "correct, items, ...).")  # fmt: skip


def _per_problem(state: Any, correct: str, clustered: bool) -> tuple[np.ndarray, ...]:
    """Each problem's samples ``n`` and correct samples ``c``, and its unit (the index of
    its cluster, or its own index), problems grouped by unit."""
    import pandas as pd

    combos = state.combos
    value = pd.to_numeric(combos[correct], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isin(value, (0.0, 1.0))
    if bad.any():
        raise InvalidInputError(
            correct, "0/1 (or True/False) per sample",
            repr(combos[correct].iloc[int(np.flatnonzero(bad)[0])]),
        )  # fmt: skip
    counts, codes = state.counts, state.codes
    unit = np.r_[0, np.cumsum(state.units[1:] != state.units[:-1])]
    if clustered:  # a problem is (cluster, problem label); each label in one cluster
        problem = pd.factorize(combos[combos.columns[0]])[0][codes]
        pairs = np.unique(np.column_stack([unit, problem]), axis=0)
        if np.unique(pairs[:, 1]).size != pairs.shape[0]:
            raise InvalidInputError(
                "clusters", "the same cluster for every sample of a problem",
                "a problem whose samples are in two clusters",
            )  # fmt: skip
        key = unit * (int(problem.max()) + 1) + problem
    else:
        key = unit
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    n = np.bincount(inverse, weights=counts).astype(np.int64)
    c = np.bincount(inverse, weights=counts * value[codes]).astype(np.int64)
    return n, c, unit[first]
