"""From the tidy long table to one row per item and one column per model."""

from __future__ import annotations

from typing import Any

from ..core.errors import InvalidInputError
from ._common import KEYS, count, pandas

__all__ = ["wide"]

_AGGS = ("mean",)


def wide(
    table: Any, score: str, *, by: str = "model", agg: str | None = None,
    missing: str = "raise",
) -> Any:  # fmt: skip
    """Pivot the tidy table to one row per (task, item) and one column per model.

    Parameters
    ----------
    table : pandas.DataFrame
        A table from :func:`read` (or any frame with ``model``, ``task``, ``item`` and
        ``sample`` columns).
    score : str
        The score column to spread.
    by : {"model", "task"}
        What becomes the columns (default ``"model"``); the other two of ``model``,
        ``task``, ``item`` index the rows.
    agg : {"mean"}, optional
        With several samples per item (epochs, repeats), ``"mean"`` averages them per item
        and model. Default: such a table is refused, since averaging repeats is a choice
        (a nested design that resamples them may be what you want).
    missing : {"raise", "drop"}
        An item without a score for every model is an error (default), or with ``"drop"``
        it is left out and counted in the notes.

    Returns
    -------
    pandas.DataFrame
        The index columns (``task``, ``item``), the item's metadata (the columns that take
        one value per item; others are left out and named in the notes), then one float
        column per model, in the order first seen. ``attrs["models"]`` lists the model
        columns, ``attrs["notes"]`` carries the table's notes and this step's, and
        ``attrs["score"]`` the score. Pass ``w[w.attrs["models"]]`` to
        :func:`booteval.leaderboard` and a metadata column as its ``clusters``.

    Raises
    ------
    InvalidInputError
        ``score`` is not a column, several samples per item without ``agg``, or items
        missing for some models without ``missing="drop"``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["a", "b", "a", "b"], "task": "qa",
    ...                   "item": ["1", "1", "2", "2"], "sample": 0, "acc": [1.0, 0.0, 1.0, 1.0],
    ...                   "doc.subject": ["x", "x", "y", "y"]})
    >>> w = wide(t, "acc")
    >>> w.values.tolist(), w.attrs["models"]
    ([['qa', '1', 'x', 1.0, 0.0], ['qa', '2', 'y', 1.0, 1.0]], ['a', 'b'])
    """
    pd = pandas()
    if not hasattr(table, "columns"):
        raise InvalidInputError("table", "a pandas DataFrame from booteval.logs.read",
                                type(table).__name__)  # fmt: skip
    for k in KEYS:
        if k not in table.columns:
            shown = ", ".join(map(str, table.columns[:12]))
            raise InvalidInputError(
                "table", f"a column {k!r} (a table from booteval.logs.read)", f"columns {shown}"
            )
    scores = list(table.attrs.get("scores", []))
    if score not in table.columns or score in KEYS:
        raise InvalidInputError("score", f"a score column ({', '.join(scores) or 'none listed'})",
                                repr(score))  # fmt: skip
    if by not in ("model", "task"):
        raise InvalidInputError("by", "'model' or 'task'", repr(by))
    if agg is not None and agg not in _AGGS:
        raise InvalidInputError("agg", "None or 'mean'", repr(agg))
    if missing not in ("raise", "drop"):
        raise InvalidInputError("missing", "'raise' or 'drop'", repr(missing))
    notes = list(table.attrs.get("notes", []))
    index = [k for k in ("model", "task", "item") if k != by]
    table = table.astype({"model": str, "task": str, "item": str})
    if by == "model":  # tasks that do not have this score at all are not part of its table
        has = table[score].notna().groupby(table["task"], sort=False).any()
        if not bool(has.any()):
            raise InvalidInputError("score", "a column with values", f"{score!r}, empty")
        if not bool(has.all()):
            absent = [str(t) for t in has.index[~has.to_numpy()]]
            n_rows = int(table["task"].isin(absent).sum())
            notes.append(f"wide: task(s) {', '.join(map(repr, absent))} have no {score!r}; their "
                         f"{count(n_rows)} rows are left out")  # fmt: skip
            table = table[~table["task"].isin(absent)]
    df = table[~table[score].isna()] if missing == "drop" else table
    n_nan = len(table) - len(df)
    if missing == "raise" and bool(df[score].isna().any()):
        row = df[df[score].isna()].iloc[0]
        raise InvalidInputError(
            "missing", f"a {score!r} value on every row, or missing='drop'",
            f"{int(df[score].isna().sum())} rows without one, e.g. "
            f"{dict((k, row[k]) for k in KEYS)}",
        )  # fmt: skip

    dup = df.duplicated(list(KEYS))
    if bool(dup.any()):
        first = df[dup].iloc[0]
        raise InvalidInputError(
            "table", "one row per (model, task, item, sample)",
            f"{int(dup.sum())} repeated, e.g. {dict((k, first[k]) for k in KEYS)}",
        )  # fmt: skip
    per_item = df.groupby([by, *index], sort=False)["sample"].nunique()
    if bool((per_item > 1).any()):
        worst = per_item.idxmax()
        if agg is None:
            raise InvalidInputError(
                "agg", "one sample per item, or agg='mean' to average the samples of each item",
                f"up to {int(per_item.max())} samples per item ({by} {worst[0]!r}, item "
                f"{worst[-1]!r})",
            )  # fmt: skip
        lo, hi = int(per_item.min()), int(per_item.max())
        span = f"{hi}" if lo == hi else f"{lo} to {hi}, unequal"
        notes.append(f"wide: {score!r} averaged over the samples of each item ({span} per "
                     "item)")  # fmt: skip

    cells = df.groupby([*index, by], sort=False)[score].mean()
    grid = cells.unstack(by)
    columns = list(dict.fromkeys(df[by].astype(str)))
    grid = grid.reindex(columns=columns)
    order = list(dict.fromkeys(zip(*(df[k] for k in index), strict=True)))
    grid = grid.reindex(pd.MultiIndex.from_tuples(order, names=index))
    incomplete = grid.isna().any(axis=1)
    if bool(incomplete.any()):
        if missing == "raise":
            first = grid.index[incomplete.to_numpy()][0]
            lacking = [c for c in columns if pd.isna(grid.loc[first, c])]
            example = dict(zip(index, first, strict=True))
            raise InvalidInputError(
                "missing", f"every item scored for every {by}, or missing='drop'",
                f"{int(incomplete.sum())} incomplete item(s), e.g. {example} has no {score!r} "
                f"for {', '.join(map(repr, lacking[:5]))}",
            )  # fmt: skip
        notes.append(f"wide: {count(int(incomplete.sum()))} item(s) not scored for every {by} "
                     f"left out (of {count(len(grid))})")  # fmt: skip
        grid = grid[~incomplete.to_numpy()]
    if n_nan:
        notes.append(f"wide: {count(n_nan)} rows without a {score!r} value left out")
    if len(grid) == 0:
        raise InvalidInputError("table", f"at least one item scored for every {by}", "none")

    meta_cols = [c for c in table.columns if c not in KEYS and c not in scores and c != score
                 and c not in columns]  # fmt: skip
    kept, varying = [], []
    if meta_cols:
        sub = df[[*index, *meta_cols]]
        g = sub.groupby(index, sort=False)
        n_unique = g[meta_cols].nunique(dropna=False)
        for c in meta_cols:
            (kept if bool((n_unique[c] <= 1).all()) else varying).append(c)
        first = g[kept].first() if kept else None
    clash = [c for c in columns if c in index or c in kept]
    if clash:
        raise InvalidInputError("table", f"{by} names that differ from the index and metadata "
                                "columns", f"{by} {clash[0]!r}, also a column")  # fmt: skip
    out = grid.reset_index()
    out.columns = [str(c) for c in out.columns]
    if meta_cols and kept:
        out = out.merge(first.reset_index(), on=index, how="left")  # type: ignore[union-attr]
    if varying:
        more = ", ..." if len(varying) > 10 else ""
        notes.append(
            f"wide: columns left out because they differ within an item: "
            f"{', '.join(varying[:10])}{more}"
        )
    out = out[[*index, *kept, *columns]]
    for c in columns:
        out[c] = out[c].astype(float)
    out.attrs = {"notes": notes, "models": columns, "score": score, "by": by, "index": index}
    return out
