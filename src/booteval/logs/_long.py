"""The generic long format: one row per (model, item), in CSV, TSV, JSON Lines or Parquet."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInputError
from ._common import (
    KEYS,
    LogFormatError,
    PathsLike,
    build_frame,
    expand_paths,
    flatten,
    pandas,
    read_json_lines,
)

__all__ = ["LONG_SUFFIXES", "read_long"]

LONG_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".parquet")


def _table(path: Path) -> Any:
    pd = pandas()
    if path.suffix in (".jsonl", ".ndjson"):
        records = [flatten(rec, "") for _, rec in read_json_lines(path)]
        return pd.DataFrame.from_records(records)
    try:
        if path.suffix == ".parquet":
            df = pd.read_parquet(path)
            nested = [c for c in df.columns if df[c].map(lambda v: isinstance(v, dict)).any()]
            if nested:
                df = pd.DataFrame.from_records([flatten(r, "") for r in df.to_dict("records")])
            return df
        return pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",")
    except ImportError:
        raise ImportError('reading Parquet needs pyarrow: pip install "booteval[logs]"') from None
    except Exception as exc:
        if isinstance(exc, LogFormatError):
            raise
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise LogFormatError(path, f"cannot read it: {detail}") from None


def _column(df: Any, name: str, path: Path, parameter: str) -> Any:
    if name not in df.columns:
        shown = ", ".join(map(str, df.columns[:25]))
        raise LogFormatError(path, f"column {name!r} ({parameter}=) not found; the file has: "
                             f"{shown}")  # fmt: skip
    return df[name]


def read_long(
    paths: PathsLike, *, model: str = "model", item: str = "item",
    score: str | Sequence[str] | None = None, task: str | None = None,
    sample: str | None = None,
) -> Any:  # fmt: skip
    """Read generic long-format results (one row per model and item) into the tidy table.

    Parameters
    ----------
    paths : path, directory, glob, or a list of them
        ``.csv``, ``.tsv``, ``.jsonl`` (nested objects are flattened with dots) or
        ``.parquet`` files; a directory is searched recursively for them.
    model, item : str
        The columns naming the model and the item (default ``"model"`` and ``"item"``).
    score : str or list of str, optional
        The score column(s); default: every numeric column that is not a key.
    task, sample : str, optional
        Columns with the task and the repeat index; default: one task ``""`` and sample 0.

    Returns
    -------
    pandas.DataFrame
        The columns renamed to ``model``, ``task``, ``item``, ``sample``, the scores, and
        every other column as metadata.

    Raises
    ------
    LogFormatError
        A missing column (naming it and the file's columns), a non-numeric score, or a
        (model, task, item, sample) that repeats.

    Examples
    --------
    >>> import io, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "r.csv").write_text("model,item,correct,subject\\na,1,1,law\\nb,1,0,law\\n")
    >>> read_long(d / "r.csv")[["model", "item", "correct", "subject"]].values.tolist()
    [['a', '1', 1.0, 'law'], ['b', '1', 0.0, 'law']]
    """
    pd = pandas()
    wanted = [score] if isinstance(score, str) else (list(score) if score is not None else None)
    if wanted is not None and not wanted:
        raise InvalidInputError("score", "a column name or a non-empty list of them", "[]")
    files, _ = expand_paths(paths, lambda p: p.suffix in LONG_SUFFIXES, "results tables")
    frames = []
    scores: list[str] = []
    for path in files:
        df = _table(path)
        if df.empty:
            raise LogFormatError(path, "the file has no data rows")
        df.columns = [str(c) for c in df.columns]
        out = pd.DataFrame({
            "model": _column(df, model, path, "model").astype(str),
            "task": _column(df, task, path, "task").astype(str) if task else "",
            "item": _column(df, item, path, "item").astype(str),
        })  # fmt: skip
        if sample:
            raw = _column(df, sample, path, "sample")
            num = pd.to_numeric(raw, errors="coerce")
            if bool(num.isna().any()) or not bool((num == num.round()).all()):
                bad = int((num.isna() | (num != num.round())).to_numpy().argmax())
                raise LogFormatError(path, f"expected integers; found {raw.iloc[bad]!r}",
                                     line=f"row {bad + 1}", field=sample)  # fmt: skip
            out["sample"] = num.astype("int64")
        else:
            out["sample"] = 0
        used = {model, item, task, sample} - {None}
        cols = (
            wanted
            if wanted is not None
            else [c for c in df.columns if c not in used and pd.api.types.is_numeric_dtype(df[c])]
        )
        for c in cols:
            raw = _column(df, c, path, "score")
            num = pd.to_numeric(raw, errors="coerce") if raw.dtype != bool else raw.astype(float)
            bad = num.isna() & raw.notna()
            if bool(bad.any()):
                i = int(bad.to_numpy().argmax())
                raise LogFormatError(path, f"expected numbers; found {raw.iloc[i]!r}",
                                     line=f"row {i + 1}", field=c)  # fmt: skip
            out[c] = num.astype(float)
            if c not in scores:
                scores.append(c)
        for c in df.columns:
            if c not in used and c not in cols and c not in KEYS:
                out[c] = df[c].to_numpy()
        out["_file"] = str(path)
        frames.append(out)
    if not scores:
        raise LogFormatError(", ".join(map(str, files)), "no numeric score column: name it with "
                             "score=")  # fmt: skip
    table = pd.concat(frames, ignore_index=True)
    return build_frame(table.to_dict("records"), scores, [], "long")
