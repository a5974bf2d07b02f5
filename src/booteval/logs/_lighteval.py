"""lighteval details (``details_<task>_<date>.parquet``), also the Open LLM Leaderboard's (v1).

``lighteval ... --save-details`` writes ``OUTPUT/details/<model>/<date>/details_<task>_<date>
.parquet`` beside ``OUTPUT/results/<model>/results_<date>.json`` (``config_general.model_name``
and ``results: {task: {metric: mean, metric_stderr: ...}}``). A details row is one document:
current versions store the columns ``doc`` (``query``, ``choices``, ``gold_index``, ``id``,
``specific``, ...), ``metric`` (``{name: value}``) and ``model_response``; older ones (the
Open LLM Leaderboard v1 details) store ``example``, ``choices``, ``gold``, ``metrics``,
``predictions``, ``hash_example`` and so on.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ._common import (
    LogFormatError,
    PathsLike,
    build_frame,
    check_same_item,
    expand_paths,
    flatten,
    pandas,
    task_and_date,
    to_number,
)

__all__ = ["is_lighteval_details", "read_lighteval"]

_DOC_SKIP = {"fewshot_samples", "images", "sampling_methods", "generation_grammar",
             "stop_sequences"}  # fmt: skip
_OLD_META = ("example", "gold", "gold_index", "choices", "specifics", "hash_example",
             "num_asked_few_shots", "num_effective_few_shots")  # fmt: skip


def is_lighteval_details(path: Path) -> bool:
    """Whether ``path`` is named like a lighteval details file (``details_*.parquet``)."""
    return path.name.startswith("details_") and path.suffix == ".parquet"


def _model_of(path: Path) -> str:
    parts = path.parent.parts
    if "details" in parts:
        i = len(parts) - 1 - parts[::-1].index("details")
        inner = list(parts[i + 1 :])
        if inner and re.match(r"^\d{4}-\d\d-\d\dT", inner[-1]):
            inner = inner[:-1]
        if inner:
            return "/".join(inner)
    parent = path.parent
    if re.match(r"^\d{4}-\d\d-\d\dT", parent.name):
        parent = parent.parent
    return parent.name


def _scores(value: Any, path: Path, line: int, field: str) -> dict[str, float]:
    if hasattr(value, "tolist") and not isinstance(value, dict):
        value = value.tolist()
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            pass
    if not isinstance(value, dict):
        raise LogFormatError(path, f"expected a mapping of metric to value; found {value!r:.60}",
                             line=line, field=field)  # fmt: skip
    out = {}
    for k, v in value.items():
        if v is None:
            out[str(k)] = float("nan")
            continue
        num = to_number(v)
        if num is None:
            raise LogFormatError(path, f"expected a number; found {v!r:.40}", line=line,
                                 field=f"{field}.{k}")  # fmt: skip
        out[str(k)] = num
    return out


def read_lighteval(paths: PathsLike, *, model: str | None = None) -> Any:
    """Read lighteval details Parquet files into one tidy table.

    Parameters
    ----------
    paths : path, directory, glob, or a list of them
        ``details_<task>_<date>.parquet`` files; a directory (lighteval's ``OUTPUT/details``)
        is searched recursively.
    model : str, optional
        The model's name for every file; default: the folders between ``details/`` and the
        date folder (``details/org/model/<date>/`` gives ``org/model``).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``task`` (from the file name), ``item`` (``doc.id`` where set, else the
        row's position in the file, which lighteval keeps in the dataset's order), ``sample``
        (0), one column per metric, and the document flattened (``doc.query``,
        ``doc.gold_index``, ``doc.specific.*``; older files: ``example``, ``gold``,
        ``hash_example``, ...). Models that saw a different document under one item raise
        an error (``doc.query`` or ``hash_example`` differ).

    Raises
    ------
    LogFormatError
        An unreadable file or a row whose metrics are not numbers (naming file, row, field).

    Examples
    --------
    >>> import booteval.logs as bl
    >>> df = bl.read_lighteval("output/details")  # doctest: +SKIP
    """
    pd = pandas()
    files, _ = expand_paths(paths, is_lighteval_details, "lighteval details_*.parquet files")
    rows: list[dict[str, Any]] = []
    scores: list[str] = []
    notes: list[str] = []
    empty: list[str] = []
    positional = 0
    for path in files:
        try:
            df = pd.read_parquet(path)
        except ImportError:
            raise ImportError(
                'reading Parquet needs pyarrow: pip install "booteval[logs]"'
            ) from None
        except Exception as exc:  # pyarrow's errors are not all OSErrors
            raise LogFormatError(path, f"cannot read it as Parquet: {exc}") from None
        task, _ = task_and_date(path, "details")
        name = model if model is not None else _model_of(path)
        if len(df) == 0:  # said, not dropped: the model would vanish from a leaderboard
            empty.append(f"{name} ({task}, {path.name})")
            continue
        new = "metric" in df.columns
        col = "metric" if new else "metrics"
        if col not in df.columns:
            raise LogFormatError(path, "expected a 'metric' (or 'metrics') column of per-row "
                                 f"scores; found {', '.join(map(str, df.columns))}")  # fmt: skip
        for i, rec in enumerate(df.to_dict("records")):
            line = i + 1
            row: dict[str, Any] = {"model": name, "task": task, "sample": 0, "_file": str(path)}
            for k, v in _scores(rec[col], path, line, col).items():
                row[k] = v
                if k not in scores:
                    scores.append(k)
            if new:
                doc = rec.get("doc")
                if hasattr(doc, "tolist") and not isinstance(doc, dict):
                    doc = doc.tolist()
                doc = doc if isinstance(doc, dict) else {}
                ident = doc.get("id")
                row["item"] = str(ident) if ident not in (None, "") else str(i)
                positional += ident in (None, "")
                flatten({k: v for k, v in doc.items() if k not in _DOC_SKIP}, "doc", row)
            else:
                row["item"] = str(i)
                positional += 1
                for k in _OLD_META:
                    if k in rec:
                        flatten(rec[k], k, row)
            rows.append(row)
    if empty and not rows:
        raise LogFormatError(", ".join(map(str, files)), "every details file is empty: "
                             f"{'; '.join(empty)}")  # fmt: skip
    if empty:
        notes.append(f"lighteval: empty details files, so no items for: {'; '.join(empty)}")
    if positional:
        notes.append(
            f"lighteval: {positional:,} rows without a document id are numbered by their row "
            "in the details file (checked against the documents' text or hash)"
        )
    out = build_frame(rows, scores, notes, "lighteval")
    for ident in ("doc.query", "hash_example"):
        check_same_item(out, ident, "lighteval", "Were the runs on the same dataset and order?")
    return out
