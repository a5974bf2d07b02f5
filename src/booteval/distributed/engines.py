"""Running a partition function on an engine and merging the states it returns.

* pandas DataFrame: the caller's process, one partition.
* Dask DataFrame (or a Parquet path or glob, read with ``dask.dataframe.read_parquet``):
  one task per partition, merged two at a time in a tree (so a worker holds few large
  states at once), on the active ``distributed.Client`` if there is one and otherwise on
  Dask's default (local) scheduler. A Ctrl-C cancels the submitted tasks.
* Spark DataFrame: ``mapInPandas`` on the DataFrame's own session (Arrow batches, one
  state per partition), merged with ``treeReduce``.

Rows are keyed by their position in the whole data: the engine first counts each
partition's rows (a cheap pass) and gives every partition its offset.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from .states import merge_states

__all__ = ["map_reduce", "sample_rows", "source_kind"]

_FAN_IN = 2


def source_kind(data: object) -> str | None:
    """``"pandas"``, ``"dask"``, ``"spark"`` or ``"parquet"`` for a table ``ci`` can read by
    column names; ``None`` for anything else (arrays).

    Examples
    --------
    >>> import pandas as pd
    >>> source_kind(pd.DataFrame({"x": [1]})), source_kind("logs/*.parquet"), source_kind([1])
    ('pandas', 'parquet', None)
    """
    if isinstance(data, str | os.PathLike):
        return "parquet"
    module = type(data).__module__
    if module.startswith("dask") and hasattr(data, "to_delayed"):
        return "dask"
    if module.startswith("pyspark") and hasattr(data, "mapInPandas"):
        return "spark"
    if module.startswith("pandas") and hasattr(data, "columns") and hasattr(data, "iloc"):
        return "pandas"
    return None


def open_source(data: Any, kind: str, columns: list[str]) -> tuple[Any, str]:
    """The table restricted to ``columns`` (a Parquet path opened with Dask)."""
    if kind == "parquet":
        try:
            import dask.dataframe as dd
        except ImportError:
            raise InvalidInputError(
                "data", "a Parquet path with Dask installed (pip install 'booteval[dask]')",
                repr(str(data)),
            ) from None  # fmt: skip
        data, kind = _read_parquet(dd, os.fspath(data), columns), "dask"
    have = list(data.columns)
    missing = [c for c in columns if c not in have]
    if missing:
        raise InvalidInputError(
            "columns", f"names of columns of the data ({', '.join(map(str, have))})",
            ", ".join(map(repr, missing)),
        )  # fmt: skip
    return (data.select(*columns) if kind == "spark" else data[columns]), kind


def _read_parquet(dd: Any, path: str, columns: list[str]) -> Any:
    """Dask's Parquet reader, its failures named: a path that matches nothing, a file
    that is not Parquet, columns it does not hold."""
    import glob

    matches = glob.glob(path, recursive=True) if glob.has_magic(path) else [path]
    if not any(os.path.exists(m) for m in matches):
        raise InvalidInputError(
            "data", "a Parquet file, directory or glob that names files", f"{path!r}: no such "
            "file" if not glob.has_magic(path) else f"{path!r}: the pattern matches nothing",
        )  # fmt: skip
    try:
        return dd.read_parquet(path, columns=columns)
    except Exception as exc:  # pyarrow's and dask's own errors (ArrowInvalid, KeyError, ...)
        detail = str(exc).strip().splitlines()
        reason = detail[-1] if detail else type(exc).__name__
        if "None of" in reason and "columns" in reason:
            reason = f"it has none of the columns {', '.join(map(repr, columns))}"
        raise InvalidInputError(
            "data", "a Parquet table with the named columns", f"{path!r}: {reason[:300]}"
        ) from None


def sample_rows(data: Any, kind: str, n: int = 2) -> Any:
    """The first ``n`` rows as a pandas DataFrame."""
    if kind == "spark":
        return data.limit(n).toPandas()
    if kind == "dask":
        return data.head(n, npartitions=-1)
    return data.head(n)


def _skip_empty(fn: Callable, pdf: Any, offset: int) -> Any:
    return fn(pdf, offset) if len(pdf) else None


def _merge(states: list) -> Any:
    kept = [s for s in states if s is not None]
    return merge_states(kept) if kept else None


def map_reduce(
    data: Any, kind: str, fn: Callable[[Any, int], Any], *, offsets: bool, progress: bool = False
) -> tuple[Any, int]:
    """``fn(partition, offset)`` on every partition, merged; and the number of partitions."""
    if kind == "pandas":
        return _merge([_skip_empty(fn, data, 0)]), 1
    run = _on_dask if kind == "dask" else _on_spark
    state, parts = run(data, fn, offsets, progress)
    if state is None:
        raise InvalidInputError("data", "at least one row", "an empty table")
    return state, parts


def _on_dask(data: Any, fn: Callable, offsets: bool, progress: bool) -> tuple[Any, int]:
    import dask

    parts = data.to_delayed()
    starts = np.zeros(len(parts), dtype=np.int64)
    if offsets:
        lengths = dask.compute(*[dask.delayed(len)(p) for p in parts])
        starts[1:] = np.cumsum(lengths)[:-1]
    level = [dask.delayed(_skip_empty)(fn, p, int(o)) for p, o in zip(parts, starts, strict=True)]
    while len(level) > 1:
        level = [
            dask.delayed(_merge)(level[i : i + _FAN_IN]) for i in range(0, len(level), _FAN_IN)
        ]
    return _compute(level[0], progress), len(parts)


def _compute(task: Any, progress: bool) -> Any:
    """The task's value, on the active client (cancelled on Ctrl-C) or the default
    scheduler."""
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        client = None
    if client is None:
        import dask

        if progress:
            from dask.diagnostics import ProgressBar

            with ProgressBar():
                return dask.compute(task)[0]
        return dask.compute(task)[0]
    future = client.compute(task)
    try:
        if progress:
            from distributed import progress as show

            show(future)
        return future.result()
    except KeyboardInterrupt:
        client.cancel(future)
        raise


def _on_spark(data: Any, fn: Callable, offsets: bool, progress: bool) -> tuple[Any, int]:
    n_parts = data.rdd.getNumPartitions()
    starts = np.zeros(n_parts, dtype=np.int64)
    if offsets:
        counts = data.mapInPandas(_count_partition, "pid long, n long").collect()
        lengths = np.zeros(n_parts, dtype=np.int64)
        for row in counts:
            lengths[row.pid] += row.n
        starts[1:] = np.cumsum(lengths)[:-1]
    columns = list(data.columns)
    task = _SparkTask(fn, starts.tolist(), columns)
    blobs = data.mapInPandas(task, "state binary").rdd.map(lambda r: bytes(r.state))
    if blobs.isEmpty():
        return None, n_parts
    merged = blobs.treeReduce(_merge_blobs)
    return pickle.loads(merged), n_parts


def _count_partition(batches: Any) -> Any:
    import pandas as pd
    from pyspark import TaskContext

    n = sum(len(b) for b in batches)
    yield pd.DataFrame({"pid": [TaskContext.get().partitionId()], "n": [n]})


def _merge_blobs(a: bytes, b: bytes) -> bytes:
    return pickle.dumps(merge_states([pickle.loads(a), pickle.loads(b)]))


class _SparkTask:
    """The partition function for ``mapInPandas``: one pickled state per partition."""

    def __init__(self, fn: Callable, starts: list[int], columns: list[str]) -> None:
        self.fn, self.starts, self.columns = fn, starts, columns

    def __call__(self, batches: Any) -> Any:
        import pandas as pd
        from pyspark import TaskContext

        frames = list(batches)
        if not frames:
            return
        pdf = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        state = self.fn(pdf, self.starts[TaskContext.get().partitionId()])
        yield pd.DataFrame({"state": [pickle.dumps(state)]})
