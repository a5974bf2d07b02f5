"""Loading the command line's inputs: several files, directories, globs and harness logs.

``booteval ci|compare|leaderboard FILE...`` reads flat tables (CSV, TSV, Parquet, JSON Lines;
several files are stacked) or harness logs (lm-eval, Inspect, HELM, lighteval, code
samples, long), detected from the files or named with ``--input-format``. Nested objects in
a flat file become dotted columns (``doc.subject``); ``--id`` given several times pairs rows
on the combination of those columns.

A harness log becomes, without ``--system``, the wide table of :func:`booteval.logs.wide`:
one row per (task, item), one column per model, holding the score chosen with ``--score``
(default: the logs' first score, said in a note); with ``--system`` the tidy long table is
used as it is. The notes of the readers (rows filtered or left out) go to standard error.
"""

from __future__ import annotations

import glob
import sys
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInputError
from ..core.tables import InputFileError, format_of, read_table, require
from ._common import flatten, pandas
from ._read import FORMATS as LOG_FORMATS
from ._read import detect_format, read
from ._wide import wide

__all__ = ["LOG_FORMATS", "flatten_columns", "load"]

#: the harness formats (every reader but the plain long table)
_HARNESS = tuple(f for f in LOG_FORMATS if f != "long")


def _matches(raw: str) -> list[Path]:
    p = Path(raw)
    if p.exists():
        return [p]
    if any(ch in raw for ch in "*?["):
        return [Path(h) for h in sorted(glob.glob(raw, recursive=True))]
    return []


def _is_log(raw: str) -> bool:
    if raw == "-":
        return False
    for p in _matches(raw):
        if p.is_dir():
            return True
        if detect_format(p) in _HARNESS:
            return True
    return False


def _display(files: list[str]) -> str:
    if len(files) == 1:
        return "<stdin>" if files[0] == "-" else files[0]
    shown = " ".join(files[:3])
    return shown + (f" (+{len(files) - 3} more)" if len(files) > 3 else "")


def flatten_columns(df: Any) -> Any:
    """Columns holding nested objects become dotted columns (``doc`` -> ``doc.subject``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"id": [1, 2], "doc": [{"subject": "law", "n": {"k": 1}},
    ...                                          {"subject": "art", "n": {"k": 2}}]})
    >>> list(flatten_columns(df).columns)
    ['id', 'doc.subject', 'doc.n.k']
    """
    pd = pandas()
    nested = [
        c for c in df.columns if df[c].dtype == object
        and (vals := df[c].dropna()).size and all(isinstance(v, dict) for v in vals)
    ]  # fmt: skip
    if not nested:
        return df
    parts = []
    for c in df.columns:
        if c in nested:
            recs = [flatten(v, str(c)) if isinstance(v, dict) else {} for v in df[c]]
            parts.append(pd.DataFrame.from_records(recs, index=df.index))
        else:
            parts.append(df[[c]])
    out = pd.concat(parts, axis=1)
    out.columns = [str(c) for c in out.columns]
    return out


def _flat(files: list[str], fmt: str | None, text_columns: tuple[str, ...] = ()) -> Any:
    pd = pandas()
    paths: list[str] = []
    for raw in files:
        if raw == "-":
            paths.append(raw)
            continue
        hits = _matches(raw)
        if not hits and any(ch in raw for ch in "*?["):
            raise InputFileError(raw, "no file matches this pattern")
        paths.extend(str(h) for h in hits or [raw])
    frames = [read_table(p, fmt, text_columns=text_columns) for p in paths]
    if len(frames) == 1:
        return flatten_columns(frames[0])
    kinds = {format_of(p, fmt) == "lines" for p in paths}
    if kinds == {True}:
        return _side_by_side(paths, frames)
    if len(kinds) > 1:
        raise InputFileError(_display(paths), "plain text line files (.txt) cannot be mixed "
                             "with tables; give only line files, or only tables")  # fmt: skip
    first = list(frames[0].columns)
    for p, f in zip(paths[1:], frames[1:], strict=True):
        if set(f.columns) != set(first):
            extra = sorted(set(f.columns) ^ set(first))
            raise InputFileError(p, f"expected the same columns as {paths[0]} to stack the files; "
                                 f"columns {', '.join(extra[:10])} are in only one")  # fmt: skip
    return flatten_columns(pd.concat(frames, ignore_index=True))


def _side_by_side(paths: list[str], frames: list[Any]) -> Any:
    """Line files as the columns of one table (a reference file beside hypothesis files)."""
    pd = pandas()
    names = [f.columns[0] for f in frames]
    for p, f, name in zip(paths, frames, names, strict=True):
        if names.count(name) > 1:
            raise InputFileError(p, f"two line files give the column name {name!r}; rename one")
        if len(f) != len(frames[0]):
            raise InputFileError(
                p, f"has {len(f)} lines but {paths[0]} has {len(frames[0])}: line files are "
                "paired line by line, so they must have as many lines",
            )  # fmt: skip
    return pd.concat(frames, axis=1)


def _composite_id(args: Any, df: Any, name: str) -> Any:
    ids = getattr(args, "id", None)
    if not isinstance(ids, list):
        return df
    if len(ids) == 1:
        args.id = ids[0]
        return df
    for c in ids:
        require(df, c, name, "--id")
    col = "+".join(ids)
    df = df.copy()
    df[col] = df[ids].astype(str).agg(" | ".join, axis=1)
    args.id = col
    return df


def _score(args: Any, table: Any, name: str, notes: list[str]) -> str:
    chosen = [*(args.score or []), *(getattr(args, "y_pred", None) or [])]
    scores = list(table.attrs.get("scores", []))
    if len(chosen) > 1:
        raise InputFileError(name, "with harness logs give one --score (the per-item score to "
                             f"use); the logs have: {', '.join(scores)}")  # fmt: skip
    if chosen:
        if chosen[0] not in scores:
            raise InputFileError(name, f"--score {chosen[0]!r}: not a score of these logs; "
                                 f"expected one of: {', '.join(scores)}")  # fmt: skip
        return chosen[0]
    if len(scores) > 1:
        notes.append(f"scored by {scores[0]!r}, the logs' first score (others: "
                     f"{', '.join(scores[1:])}; choose with --score)")  # fmt: skip
    return scores[0]


def _cli_words(exc: InvalidInputError) -> str:
    if exc.parameter == "agg":
        return (f"{exc.received}: average each item's samples with --agg mean (or analyse the "
                "repeats with a nested design in Python)")  # fmt: skip
    if exc.parameter == "missing":
        return f"{exc.received}; leave such items out with --drop-incomplete"
    return " ".join(str(exc).split())


def _logs(args: Any, files: list[str], fmt: str | None) -> tuple[Any, str]:
    name = _display(files)
    table = read(files, format=fmt if fmt in LOG_FORMATS else None)
    notes = list(table.attrs.get("notes", []))
    out = table
    if not getattr(args, "system", None):
        if args.command == "correlate":
            raise InputFileError(
                name, "correlate reads one flat table (one row per system and input); harness "
                "logs go to ci, compare, leaderboard and power",
            )  # fmt: skip
        if getattr(args, "id", None):
            raise InputFileError(name, "harness logs pair items by task and item id; --id "
                                 "applies with --system (the long table: columns model, task, "
                                 "item, sample, ...)")  # fmt: skip
        score = _score(args, table, name, notes)
        missing = "drop" if getattr(args, "drop_incomplete", False) else "raise"
        try:
            out = wide(table, score, agg=getattr(args, "agg", None), missing=missing)
        except InvalidInputError as exc:
            raise InputFileError(name, _cli_words(exc)) from None
        notes = list(out.attrs["notes"]) + notes[len(table.attrs.get("notes", [])) :]
        models = out.attrs["models"]
        args.y_pred = None
        if args.command in ("compare", "power") and (args.a or args.b):
            for flag, m in (("--a", args.a), ("--b", args.b)):
                if m is not None and m not in models:
                    raise InputFileError(name, f"model {m!r} ({flag}) not in the logs; expected "
                                         f"one of: {', '.join(models)}")  # fmt: skip
            args.score = None
        elif args.command in ("compare", "power"):
            if len(models) != 2:
                raise InputFileError(
                    name, f"the logs hold {len(models)} models ({', '.join(models)}): choose "
                    "two with --a and --b",
                )  # fmt: skip
            args.score = models
        else:
            args.score = models
        args.system = None
    if not getattr(args, "quiet", False):
        for note in notes:
            print(f"booteval: note: {note}", file=sys.stderr)
    return out, name


def _text_columns(args: Any) -> tuple[str, ...]:
    """The columns that name rows and systems (``--id``, ``--system``): read as written.
    (Cluster and stratum columns keep their numbers: the API, given the same numbers,
    orders the clusters the same way.)"""
    out: list[str] = []
    for key in ("id", "system"):
        value = getattr(args, key, None)
        out.extend(value if isinstance(value, list) else [value] if value else [])
    return tuple(dict.fromkeys(out))


def _refuse_repeats(files: list[str]) -> None:
    """A file named twice (directly, through a glob or under another spelling) would stack
    its rows onto themselves: refused, naming it."""
    seen: dict[Path, str] = {}
    for raw in files:
        if raw == "-":
            continue
        for p in _matches(raw):
            if p.is_dir():
                continue
            key = p.resolve()
            if key in seen:
                shown = str(p) if seen[key] == str(p) else f"{p} ({seen[key]})"
                raise InputFileError(
                    shown, "named more than once: its rows would be counted twice; name each "
                    "file once",
                )  # fmt: skip
            seen[key] = str(p)


def load(args: Any) -> tuple[Any, str]:
    """The command's input table and a display name for messages.

    ``args.file`` is one path (``correlate``, ``power``) or a list of files, directories and
    globs. ``args`` is adjusted for harness logs (see the module's description) and for a
    composite ``--id``.
    """
    files = args.file if isinstance(args.file, list) else [args.file]
    _refuse_repeats(files)
    fmt = getattr(args, "input_format", None)
    if fmt in LOG_FORMATS or (fmt is None and any(_is_log(f) for f in files)):
        if "-" in files:
            raise InputFileError("<stdin>", "harness logs are read from files, not standard input")
        df, name = _logs(args, files, fmt)
    else:
        if getattr(args, "drop_incomplete", False):
            raise InputFileError(
                _display(files), "--drop-incomplete applies to harness logs (items a model "
                "has no score for); a flat file's rows are read as they are: leave it out, or "
                "remove the incomplete rows first",
            )  # fmt: skip
        df, name = _flat(files, fmt, _text_columns(args)), _display(files)
    return _composite_id(args, df, name), name
