"""``booteval.ci`` on a table read by column names: pandas, Dask, Spark or Parquet.

The run is the Poisson bootstrap of :mod:`booteval.core.philox`: each partition returns a
mergeable state (:mod:`~booteval.distributed.partitions`), the engine merges them
(:mod:`~booteval.distributed.engines`), and the driver turns the merged state into the
replicates (:mod:`~booteval.distributed.finish`) and the interval, through the same
result type and interval code as every other ``ci``. The numbers depend only on the
data, the seed and ``B``: not on the engine, the number of partitions or workers.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from ..core.engine import RunOptions, check_run_options, screen_undefined
from ..core.errors import InvalidInputError
from ..core.intervals import methods_offered
from ..metrics.base import Metric
from ..metrics.registry import resolve_metric
from ..results import CIResult, IntervalRecipe, LazyJackknife, freeze
from .engines import map_reduce, open_source, sample_rows, source_kind
from .finish import Replicates, histogram_replicates, sum_replicates
from .partitions import histogram_partition, sum_evaluator, sum_partition
from .ranks import rank_partition, rank_replicates
from .states import StateSpec

__all__ = [
    "TABLE_METHODS", "TableRun", "check_table_options", "execute", "frame_ci", "frame_route",
    "run_table", "source_kind", "table_result", "table_tier",
]  # fmt: skip

#: the interval methods a cluster run offers (BCa only where its jackknife is mergeable)
TABLE_METHODS = methods_offered(standard_errors=False)
# why a tier offers no BCa (formatted with the metric's label)
_NO_BCA = {
    "histogram": "",
    "row": " without clusters (BCa needs a leave-one-out jackknife of {!r}: a table keeps "
    "each cluster's sums with clusters=, but not one jackknife value per row)",
    "rank": " (BCa needs a leave-one-out jackknife of {!r}, which a histogram of rounded "
    "scores does not give exactly)",
}


def _metric_and_columns(
    metric: Any, metric_kwargs: Any, columns: Mapping[str, Any], n_systems: int
) -> tuple[Metric, tuple[tuple[str, ...], ...]]:
    """The metric, and each system's column for each of its inputs: a string names a
    column all systems share, a list of ``n_systems`` names one column per system."""
    m = resolve_metric(metric, metric_kwargs, max(len(columns), 1))
    given = dict(columns)
    unknown = [k for k in given if k not in m.input_names]
    missing = [k for k in m.input_names if k not in given]
    if unknown or missing:
        raise InvalidInputError(
            "columns", f"the column of each input of {m.label!r}, by keyword: "
            + ", ".join(f"{k}='<column>'" for k in m.input_names),
            f"{', '.join(f'{k}={v!r}' for k, v in given.items()) or 'no columns'}",
        )  # fmt: skip
    per_system = []
    for k in m.input_names:
        v = given[k]
        if isinstance(v, str):
            per_system.append((v,) * n_systems)
        elif n_systems > 1 and isinstance(v, list | tuple) and len(v) == n_systems:
            if not all(isinstance(c, str) for c in v):
                raise InvalidInputError(k, "column names (strings)", repr(v))
            per_system.append(tuple(v))
        else:
            want = (
                "a column name (a string) for a table" if n_systems == 1 else
                f"a column name shared by the systems, or a list of {n_systems} column "
                "names (one per system)"
            )  # fmt: skip
            raise InvalidInputError(k, want, repr(v))
    if n_systems > 1 and all(len(set(cols)) == 1 for cols in per_system):
        raise InvalidInputError(
            "columns", f"a list of {n_systems} columns (one per system) for at least one "
            f"input of {m.label!r}", ", ".join(f"{k}={given[k]!r}" for k in m.input_names),
        )  # fmt: skip
    return m, tuple(zip(*per_system, strict=True))


@dataclass(frozen=True)
class TableRun:
    """The replicates of ``K`` systems on a table, with what a result reports of them."""

    metric: Metric
    method: str
    methods: tuple[str, ...]
    opts: RunOptions
    reps: Replicates
    n_undefined: int
    design: str
    details: dict[str, Any]
    notes: tuple[str, ...]


def table_tier(metric: Metric) -> str:
    """``"histogram"``, ``"rank"`` or ``"row"``: how a table computes ``metric``; or a
    clear error where it cannot.

    Examples
    --------
    >>> [table_tier(resolve_metric(m, None, 2)) for m in ("accuracy", "roc_auc", "mse")]
    ['histogram', 'rank', 'row']
    """
    if callable(getattr(metric, "from_groups", None)):
        return "rank"
    if metric.discrete_inputs:
        return "histogram"
    if not metric.row_local:
        sum_evaluator(metric, ())  # the error that names the metrics a table runs
    return "row"


def check_table_options(design: str, n_resamples: Any) -> None:
    """The options a table run takes as they are given (``design``, ``n_resamples``)."""
    if design not in ("multinomial", "poisson"):
        raise InvalidInputError("design", "'multinomial' or 'poisson'", repr(design))
    if isinstance(n_resamples, str):
        raise InvalidInputError("n_resamples", "an integer for a table", repr(n_resamples))


def run_table(
    data: Any, *, columns: Mapping[str, Any], n_systems: int, metric: Any, metric_kwargs: Any,
    method: str, confidence_level: float, n_resamples: Any, seed: Any, clusters: Any,
    on_undefined: str, design: str, progress: Any, what: str = "metric",
) -> TableRun:  # fmt: skip
    """The Poisson bootstrap of ``n_systems`` systems on a table, on shared weights
    (``columns``: see :func:`_metric_and_columns`); the replicates screened for
    undefined values (``what`` names them in the message)."""
    kind = source_kind(data)
    if kind is None:
        raise InvalidInputError(
            "data", "a pandas, Dask or Spark DataFrame or a Parquet path with column names",
            type(data).__name__,
        )  # fmt: skip
    check_table_options(design, n_resamples)
    m, systems = _metric_and_columns(metric, metric_kwargs, columns, n_systems)
    tier = table_tier(m)
    # BCa where the jackknife is exact from the merged state: the histogram tier's
    # cells, and the row tier with clusters (each cluster's sums kept)
    bca = tier == "histogram" or (tier == "row" and clusters is not None)
    methods = TABLE_METHODS if bca else TABLE_METHODS[:3]
    auto = method == "auto"
    run_method = ("bca" if tier == "histogram" else "percentile") if auto else method
    if run_method not in methods:
        raise InvalidInputError(
            "method", f"one of {', '.join(map(repr, methods))} for {m.label!r} on a table"
            + _NO_BCA[tier].format(m.label), repr(method),
        )  # fmt: skip
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        method=run_method, on_undefined=on_undefined,
    )  # fmt: skip
    if clusters is not None and not isinstance(clusters, str):
        raise InvalidInputError("clusters", "a column name for a table", repr(clusters))
    inputs = tuple(dict.fromkeys(c for cols in systems for c in cols))
    wanted = list(inputs) + ([clusters] if clusters is not None and clusters not in inputs else [])
    table, engine = open_source(data, kind, wanted)
    unit_sums = tier == "row" and run_method == "bca"
    if tier == "row" and not unit_sums:
        methods = TABLE_METHODS[:3]  # the jackknife is not kept: no BCa afterwards
    spec = StateSpec(
        tier, m.label, inputs, clusters, opts.seed, opts.n_resamples, systems=systems,
        unit_sums=unit_sums,
    )  # fmt: skip
    if tier == "histogram":
        fn: Callable = partial(_histogram_part, spec=spec)

        def finish(state: Any) -> tuple[Replicates, dict[str, Any], tuple[str, ...]]:
            return histogram_replicates(state, m), {}, ()
    elif tier == "rank":
        fn = partial(_rank_part, spec=spec)

        def finish(state: Any) -> tuple[Replicates, dict[str, Any], tuple[str, ...]]:
            reps, extra, note = rank_replicates(state, m)
            return reps, {"rank": extra}, (note,)
    else:
        fn = partial(_sum_part, spec=spec, metric=m)

        def finish(state: Any) -> tuple[Replicates, dict[str, Any], tuple[str, ...]]:
            return sum_replicates(state, m, sample_rows(table, engine)), {}, ()

    notes = (
        (
            f"method='auto' on a table: {run_method} (the coverage atlas covers the "
            "multinomial bootstrap; on a cluster run, BCa where its jackknife is exact "
            "(the histogram tier), otherwise percentile)",
        )
        if auto
        else ()
    )
    return execute(
        table, engine, spec, fn, finish, metric=m, method=run_method, methods=methods,
        opts=opts, design=design, notes=notes, progress=progress, what=what,
    )  # fmt: skip


def execute(
    table: Any, engine: str, spec: StateSpec, partition: Callable[[Any, int], Any],
    finish: Callable[[Any], tuple[Replicates, dict[str, Any], tuple[str, ...]]], *,
    metric: Metric, method: str, methods: tuple[str, ...], opts: RunOptions, design: str,
    notes: tuple[str, ...] = (), progress: Any = None, what: str = "metric",
    rows: str = "rows",
) -> TableRun:  # fmt: skip
    """``partition`` on every partition of ``table``, the states merged, and ``finish``
    (on the driver) turning the merged state into the replicates, the run's details and
    notes; the replicates screened for undefined values (``what`` names them; ``rows``
    what the replicates' rows are)."""
    offsets = spec.tier == "row" and spec.clusters is None
    state, n_parts = map_reduce(table, engine, partition, offsets=offsets, progress=bool(progress))
    if state is None:  # no partition held a row
        raise InvalidInputError(
            ", ".join(spec.inputs), "a table with at least one row", "an empty table"
        )
    reps, extra, more = finish(state)
    if not np.isfinite(reps.estimates).all():
        raise InvalidInputError(
            ", ".join(spec.inputs), f"data on which {metric.label!r} is defined",
            f"data where it evaluates to {', '.join(map(str, reps.estimates))}",
        )  # fmt: skip
    defined = np.isfinite(reps.values).all(axis=1)
    n_undefined = screen_undefined(defined, what, opts.on_undefined)
    if not defined.all():
        reps = replace(reps, values=np.ascontiguousarray(reps.values[defined]))
    unit = f" in {reps.n_clusters} clusters" if reps.n_clusters is not None else ""
    design_text = (
        f"{'cluster' if reps.n_clusters is not None else 'iid'} Poisson bootstrap over "
        f"{reps.n_rows} {rows}{unit} ({spec.tier} tier, {engine}, {n_parts} "
        f"partition{'s' * (n_parts != 1)})"
    )  # fmt: skip
    details = {
        "distributed": {
            "tier": spec.tier, "engine": engine, "partitions": n_parts,
            "weights": spec.weights, "seed": opts.seed, "digest": state.digest(),
            "cells": reps.n_cells, **extra,
        }
    }  # fmt: skip
    notes = notes + more
    if design == "multinomial":
        notes += (
            "a table runs the Poisson bootstrap (design='poisson'): its partitions never "
            "meet, so every row or cluster gets an independent Poisson(1) weight",
        )
    return TableRun(metric, method, methods, opts, reps, n_undefined, design_text, details, notes)


def frame_ci(
    data: Any, *, columns: Mapping[str, Any], metric: Any = None, metric_kwargs: Any = None,
    method: str = "auto", confidence_level: float = 0.95, n_resamples: Any = 10_000,
    seed: Any = None, clusters: Any = None, on_undefined: str = "drop",
    design: str = "multinomial", progress: Any = None,
) -> CIResult:  # fmt: skip
    """``booteval.ci`` on a table (see its docstring); the columns by input name.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"label": [0, 1, 1, 0, 1] * 20, "pred": [0, 1, 0, 0, 1] * 20})
    >>> r = frame_ci(t, columns={"y_true": "label", "y_pred": "pred"}, metric="accuracy",
    ...              seed=0, n_resamples=500, design="poisson")
    >>> r.estimate, r.method, r.details["distributed"]["tier"]
    (0.8, 'bca', 'histogram')
    """
    run = run_table(
        data, columns=columns, n_systems=1, metric=metric, metric_kwargs=metric_kwargs,
        method=method, confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        clusters=clusters, on_undefined=on_undefined, design=design, progress=progress,
        what=f"metric {resolve_metric(metric, metric_kwargs, len(columns) or 1).label!r}",
    )  # fmt: skip
    return table_result(run)


def table_result(run: TableRun, *, hint: str | None = None) -> CIResult:
    """A one-system run as a :class:`~booteval.CIResult` (``hint``: where a studentized
    interval can run instead)."""
    m, reps, opts = run.metric, run.reps, run.opts
    values = np.ascontiguousarray(reps.values[:, 0])
    jack = reps.jackknife[:, 0] if reps.jackknife is not None else None
    recipe = IntervalRecipe(
        run.methods, bounds=m.bounds, notes_before=run.notes, details=run.details,
        jackknife=LazyJackknife(lambda: jack) if jack is not None else None,
        studentized_hint=hint
        or "A studentized interval needs arrays: booteval.ci(y_true, y_pred, ...).",
    )  # fmt: skip
    result = CIResult(
        estimate=float(reps.estimates[0]), low=math.nan, high=math.nan,
        confidence_level=opts.confidence_level, method=run.method, metric=m.label,
        n=reps.n_rows, n_clusters=reps.n_clusters,
        # with clusters, a table gives no row-level jackknife to set against the clusters'
        effective_n=float(reps.n_rows) if reps.n_clusters is None else math.nan,
        n_resamples=opts.n_resamples, seed=opts.seed,
        standard_error=float(np.std(values, ddof=1)) if values.size > 1 else 0.0,
        n_undefined=run.n_undefined, mcse_low=math.nan, mcse_high=math.nan, design=run.design,
        transform=None, distribution=freeze(values), _recompute=recipe,
    )  # fmt: skip
    return result.with_method(run.method)


def _options_not_positional(data: tuple[Any, ...], metric: Any) -> None:
    """Options passed by position (``ci(y, p, "accuracy", 0.95)``) are data to ``*data``:
    refused, naming the argument, rather than reported as a missing metric (a text where
    a metric is named is left to the metric's own check of its inputs)."""
    for i, d in enumerate(data, 1):
        text = isinstance(d, str) and metric is None
        if len(data) > 1 and (isinstance(d, numbers.Number) or text or d is None):
            hint = "Options go by keyword"
            if isinstance(d, str):
                hint += f" (metric={d!r}?)"
            elif isinstance(d, numbers.Real) and 0 < float(d) < 1:
                hint += f" (confidence_level={d!r}?)"
            raise InvalidInputError(
                "data", "arrays (or one table) as positional arguments",
                f"positional argument {i}: {d!r}", hint + ".",
            )  # fmt: skip


def _no_strata_on_a_table(strata: Any) -> None:
    """A table runs with Poisson weights per row or cluster, which have no strata: refused
    rather than ignored."""
    if strata is not None:
        raise InvalidInputError(
            "strata", "no strata for a table (a pandas, Dask or Spark DataFrame or a Parquet "
            "path: its rows or clusters get Poisson weights, which keep no stratum sizes)",
            repr(strata) if isinstance(strata, str) else type(strata).__name__,
            "Pass the columns as arrays to stratify: ci(df['score'], strata=df['label']).",
        )  # fmt: skip


def frame_route(
    data: tuple[Any, ...], columns: Mapping[str, Any], *, design: str, method: str,
    metric: Any, metric_kwargs: Any, strata: Any, transform: Any, clusters: Any,
) -> tuple[Any, dict[str, Any], Any] | None:  # fmt: skip
    """Where ``ci(*data, **columns)`` runs here: ``(table, columns, clusters)``, or ``None``
    for the in-memory pipeline.

    A table (pandas with column names; Dask, Spark or Parquet always) runs here. So do
    arrays with ``design="poisson"`` and a method this module offers, for a metric of
    sums without strata or a transform: as a one-partition pandas table, so their numbers
    are bit-identical to a cluster run on the same rows.
    """
    _options_not_positional(data, metric)
    kinds = [source_kind(d) for d in data]
    if columns:
        if len(data) != 1 or kinds[0] is None:
            raise InvalidInputError(
                "columns", "keywords naming columns only with one table (a pandas, Dask or "
                "Spark DataFrame or a Parquet path)",
                f"{', '.join(columns)} with {len(data)} positional argument(s) of type "
                f"{', '.join(sorted({type(d).__name__ for d in data})) or 'none'}",
                "Check the spelling of ci's parameters; pass arrays positionally.",
            )  # fmt: skip
        _no_strata_on_a_table(strata)
        return data[0], dict(columns), clusters
    if len(data) == 1 and kinds[0] in ("dask", "spark", "parquet"):
        _no_strata_on_a_table(strata)
        return data[0], {}, clusters
    if design != "poisson" or method not in TABLE_METHODS or strata is not None:
        return None
    if transform is not None or any(k is not None for k in kinds) or not data:
        return None
    m = resolve_metric(metric, metric_kwargs, len(data))
    if not m.vectorized or len(data) != m.n_inputs:
        return None
    arrays = m.validate(*data)
    no_jackknife = not m.discrete_inputs and clusters is None  # the row tier keeps none
    if any(np.ndim(a) != 1 for a in arrays) or (method == "bca" and no_jackknife):
        return None
    try:
        sum_evaluator(m, arrays)
    except InvalidInputError:
        return None
    import pandas as pd

    frame = pd.DataFrame(dict(zip(m.input_names, arrays, strict=True)))
    name = None
    if clusters is not None:
        name = "clusters"
        frame[name] = np.asarray(clusters)
    return frame, {k: k for k in m.input_names}, name


def _histogram_part(pdf: Any, offset: int, *, spec: StateSpec) -> Any:
    return histogram_partition(pdf, spec)


def _rank_part(pdf: Any, offset: int, *, spec: StateSpec) -> Any:
    return rank_partition(pdf, spec)


def _sum_part(pdf: Any, offset: int, *, spec: StateSpec, metric: Metric) -> Any:
    return sum_partition(pdf, spec, metric, offset)
