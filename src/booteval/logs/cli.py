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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInputError
from ..core.tables import InputFileError, format_of, read_table, require
from ._common import count, flatten, pandas
from ._read import FORMATS as LOG_FORMATS
from ._read import detect_format, read, stack
from ._wide import wide

__all__ = [
    "LOG_FORMATS",
    "HarnessRun",
    "LogPart",
    "flatten_columns",
    "is_harness",
    "load",
    "load_harness",
    "refuse_repeats",
]

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


def _cli_words(exc: InvalidInputError) -> str:
    return " ".join(str(exc).split())


def _run_label(raw: str) -> str:
    """A run's name from its FILE argument: the folder or file name as given."""
    p = Path(raw.rstrip("/\\") or raw)
    return p.name or raw


def _read_runs(files: list[str], fmt: str | None, notes: list[str]) -> Any:
    """The logs of every FILE argument as one long table. Each argument is one run: where a
    model name appears in several runs (the same model evaluated twice), each system is
    named ``model (run)`` so that the runs stay apart and can be compared."""
    fmt = fmt if fmt in LOG_FORMATS else None
    if len(files) == 1:
        return read(files, format=fmt)
    tables = [read([f], format=fmt) for f in files]
    models = [set(map(str, t["model"].unique())) for t in tables]
    shared = {m for i, a in enumerate(models) for b in models[i + 1 :] for m in a & b}
    if shared:
        labels = [_run_label(f) for f in files]
        for i, t in enumerate(tables):
            t["model"] = t["model"].astype(str) + f" ({labels[i]})"
        notes.append(f"model {sorted(shared)[0]!r} is in several runs: each system is named "
                     "'model (run)', the run being the FILE argument it came from")  # fmt: skip
    out = stack(tables)
    notes.extend(out.attrs["notes"])
    out.attrs["notes"] = []
    return out


@dataclass
class LogPart:
    """One (task, score) of harness logs, ready for ``ci``, ``compare`` or ``leaderboard``.

    ``frame`` has one row per item scored for every model (the join), the item's metadata
    and one column per model holding the item's value: the score, the mean of its
    samples, or their pass@k / pass^k. ``rows`` are the long rows behind it (the joined
    items only), for per-model analyses of the samples. ``repeats`` is the fewest and most
    samples of an item (``None`` with one each); ``join`` the join report where the
    models' items differ.
    """

    task: str
    score: str
    label: str
    frame: Any
    models: list[str]
    rows: Any
    repeats: tuple[int, int] | None
    join: str | None


@dataclass
class HarnessRun:
    """Harness logs split into their (task, score) parts; ``kind`` is ``"mean"`` (repeated
    samples averaged per item: the nested design), ``"pass@k"`` or ``"pass^k"``."""

    name: str
    parts: list[LogPart]
    kind: str
    k: int | None


def _chosen_tasks(args: Any, table: Any, name: str) -> list[str]:
    tasks = list(dict.fromkeys(table["task"].astype(str)))
    wanted = getattr(args, "task", None) or []
    for t in wanted:
        if t not in tasks:
            raise InputFileError(name, f"--task {t!r}: not a task of these logs; expected one "
                                 f"of: {', '.join(tasks)}")  # fmt: skip
    return [t for t in tasks if t in wanted] if wanted else tasks


def _chosen_scores(args: Any, rows: Any, scores: list[str], task: str, name: str) -> list[str]:
    """The scores to report for one task: those given with ``--score`` that the task has, or
    its first score."""
    have = [s for s in scores if s in rows.columns and bool(rows[s].notna().any())]
    given = list(args.score or [])
    for s in given:
        if s not in scores:
            raise InputFileError(name, f"--score {s!r}: not a score of these logs; expected "
                                 f"one of: {', '.join(scores)}")  # fmt: skip
    if given:
        return [s for s in given if s in have]
    if not have:
        raise InputFileError(name, f"task {task!r} has no score with values")
    return have[:1]


def _join_report(rows: Any, score: str, models: list[str]) -> tuple[str | None, int]:
    """``(report, matched)``: how many items every model scored, and how many only some did."""
    scored = rows[rows[score].notna()]
    items = {m: set(scored.loc[scored["model"] == m, "item"]) for m in models}
    every = set.intersection(*items.values()) if items else set()
    union = set.union(*items.values()) if items else set()
    if every == union:
        return None, len(every)
    if len(models) == 2:
        a, b = models
        detail = (f"only in {a}: {count(len(items[a] - items[b]))}, only in {b}: "
                  f"{count(len(items[b] - items[a]))}")  # fmt: skip
    else:
        lacking = [(m, len(union - items[m])) for m in models if union - items[m]]
        detail = "not scored by " + ", ".join(f"{m}: {count(n)}" for m, n in lacking[:6])
        detail += ", ..." if len(lacking) > 6 else ""
    return (f"items joined by id: {count(len(every))} scored by every model ({detail}; "
            "those are left out)"), len(every)  # fmt: skip


def _reduce_samples(rows: Any, score: str, kind: str, k: int | None, name: str) -> Any:
    """One row per (model, item): the mean of the item's samples, or their pass@k / pass^k
    (binary scores), items in sorted order as :func:`booteval.nested_ci` and
    :func:`booteval.pass_at_k` order them."""
    import numpy as np

    from ..methods.pass_at_k import KINDS

    keys = ["model", "task", "item"]
    g = rows.groupby(keys, sort=False)
    first = g.first().reset_index()
    if kind == "mean":
        first[score] = g[score].mean().to_numpy()
    else:
        x = rows[score].to_numpy(dtype=float)
        bad = np.flatnonzero((x != 0) & (x != 1))
        if bad.size:
            raise InputFileError(name, f"--{kind.replace('^', '-hat-').replace('@', '-at-')} "
                                 f"needs a 0/1 score; {score!r} has {x[bad[0]]!r}")  # fmt: skip
        n = g[score].size().to_numpy().astype(np.int64)
        smallest = int(n.min())
        if k is not None and k > smallest:
            raise InputFileError(name, f"{kind.replace('k', str(k))}: an item has only "
                                 f"{smallest} sample(s) of {score!r}; k must be at most "
                                 "the fewest samples of any item")  # fmt: skip
        c = g[score].sum().to_numpy().astype(np.int64)
        first[score] = KINDS[kind](n, c, int(k or 1))
    first["sample"] = 0
    return first.sort_values("item", kind="stable").reset_index(drop=True)


def _part(args: Any, table: Any, task: str, score: str, kind: str, k: int | None,
          name: str, notes: list[str]) -> LogPart:  # fmt: skip
    others = [c for c in table.attrs.get("scores", []) if c != score]
    rows = table[(table["task"] == task)].drop(columns=others)  # the other scores are not metadata
    dropped = int(rows[score].isna().sum())
    if dropped:
        notes.append(f"task {task!r}: {count(dropped)} sample(s) without a {score!r} value "
                     "left out")  # fmt: skip
    every = list(dict.fromkeys(rows["model"]))
    rows = rows[rows[score].notna()]
    absent = [m for m in every if m not in set(rows["model"])]
    if absent:
        notes.append(f"task {task!r}: model(s) {', '.join(map(repr, absent))} have no {score!r} "
                     "value and are left out of its results")  # fmt: skip
    pair = [m for m in (getattr(args, "a", None), getattr(args, "b", None)) if m is not None]
    if args.command in ("compare", "power") and pair and set(pair) <= set(rows["model"]):
        rows = rows[rows["model"].isin(pair)]  # the two compared: joined on their items only
    models = list(dict.fromkeys(rows["model"]))
    join, matched = _join_report(rows, score, models)
    if matched == 0:
        sizes = rows.groupby("model", sort=False)["item"].nunique()
        shown = ", ".join(f"{m}: {count(int(n))} items" for m, n in sizes.items())
        raise InputFileError(name, f"task {task!r}, {score!r}: no item id is scored by every "
                             f"model ({shown}): nothing to pair; are these runs of the same "
                             "task?")  # fmt: skip
    per_item = rows.groupby(["model", "item"], sort=False)["sample"].nunique()
    repeats = (int(per_item.min()), int(per_item.max())) if int(per_item.max()) > 1 else None
    if kind != "mean" and repeats is None and k is not None and k > 1:
        raise InputFileError(name, f"{kind.replace('k', str(k))}: task {task!r} has one "
                             "sample per item; pass@k and pass^k need k of each")  # fmt: skip
    reduce = repeats is not None or kind != "mean"
    flat = _reduce_samples(rows, score, kind, k, name) if reduce else rows
    flat = flat.copy()
    flat.attrs = {"notes": [], "scores": [score]}
    try:
        frame = wide(flat, score, missing="drop")
    except InvalidInputError as exc:
        raise InputFileError(name, _cli_words(exc)) from None
    notes.extend(n for n in frame.attrs["notes"] if "not scored for every" not in n)
    models = list(frame.attrs["models"])
    keep = set(frame["item"])
    rows = rows[rows["item"].isin(keep)]
    label = score if kind == "mean" else f"{kind.replace('k', str(k))} ({score})"
    return LogPart(task, score, label, frame, models, rows, repeats, join)


def load_harness(args: Any) -> HarnessRun:
    """Harness logs named by ``args.file`` as (task, score) parts: ``--task`` chooses
    tasks (default: all, one part each), ``--score`` scores (default: each task's
    first), ``--pass-at-k`` / ``--pass-hat-k`` the per-item reduction of repeated
    samples (default: their mean, i.e. items resampled with their samples)."""
    files = args.file if isinstance(args.file, list) else [args.file]
    name = _display(files)
    if "-" in files:
        raise InputFileError("<stdin>", "harness logs are read from files, not standard input")
    if getattr(args, "id", None):
        raise InputFileError(name, "harness logs pair items by task and item id; --id "
                             "applies with --system (the long table: columns model, task, "
                             "item, sample, ...)")  # fmt: skip
    notes: list[str] = []
    table = _read_runs(files, getattr(args, "input_format", None), notes)
    notes[:0] = list(table.attrs.get("notes", []))
    scores = list(table.attrs.get("scores", []))
    table = table.astype({"model": str, "task": str, "item": str})
    table.attrs["scores"] = scores
    kind, k = "mean", None
    for flag, key, what in (("--pass-at-k", "pass_at_k", "pass@k"),
                            ("--pass-hat-k", "pass_hat_k", "pass^k")):  # fmt: skip
        value = getattr(args, key, None)
        if value is not None:
            if kind != "mean":
                raise InputFileError(name, "give --pass-at-k or --pass-hat-k, not both")
            if value < 1:
                raise InputFileError(name, f"{flag} {value}: expected an integer >= 1")
            kind, k = what, int(value)
    parts = []
    for task in _chosen_tasks(args, table, name):
        rows = table[table["task"] == task]
        chosen = _chosen_scores(args, rows, scores, task, name)
        lacking = [s for s in args.score or [] if s not in chosen]
        if lacking:
            gone = "; the task is left out" if not chosen else ""
            notes.append(f"task {task!r} has no {', '.join(map(repr, lacking))} "
                         f"({count(len(rows))} rows){gone}")  # fmt: skip
        others = [s for s in scores if s not in chosen and rows[s].notna().any()]
        if not args.score and others:
            notes.append(f"task {task!r} scored by {chosen[0]!r}, its first score (others: "
                         f"{', '.join(others)}; choose with --score)")  # fmt: skip
        for score in chosen:
            parts.append(_part(args, table, task, score, kind, k, name, notes))
    if not parts:
        raise InputFileError(name, f"no task of these logs has --score {', '.join(args.score)}")
    if not getattr(args, "quiet", False):
        for note in dict.fromkeys(notes):  # each run's reader may say the same
            print(f"booteval: note: {note}", file=sys.stderr)
    return HarnessRun(name, parts, kind, k)


def _logs(args: Any, files: list[str], fmt: str | None) -> tuple[Any, str]:
    """``power`` on harness logs: the one (task, score) part as a wide frame."""
    if getattr(args, "system", None):
        table = read(files, format=fmt if fmt in LOG_FORMATS else None)
        if not getattr(args, "quiet", False):
            for note in table.attrs.get("notes", []):
                print(f"booteval: note: {note}", file=sys.stderr)
        return table, _display(files)
    name = _display(files)
    if args.command == "correlate":
        raise InputFileError(
            name, "correlate reads one flat table (one row per system and input); harness "
            "logs go to ci, compare, leaderboard and power",
        )  # fmt: skip
    run = load_harness(args)
    if len(run.parts) > 1:
        shown = ", ".join(f"{p.task} ({p.score})" for p in run.parts[:6])
        raise InputFileError(
            name, f"{args.command} reads one task and score; the logs give "
            f"{len(run.parts)}: {shown}; choose with --task and --score",
        )  # fmt: skip
    (part,) = run.parts
    if part.join and not getattr(args, "quiet", False):
        print(f"booteval: note: {part.join}", file=sys.stderr)
    models = part.models
    args.y_pred = None
    if args.a or args.b:
        for flag, m in (("--a", args.a), ("--b", args.b)):
            if m is not None and m not in models:
                raise InputFileError(name, f"model {m!r} ({flag}) not in the logs; expected "
                                     f"one of: {', '.join(models)}")  # fmt: skip
        args.score = None
    else:
        if len(models) != 2:
            raise InputFileError(
                name, f"the logs hold {len(models)} models ({', '.join(models)}): choose "
                "two with --a and --b",
            )  # fmt: skip
        args.score = models
    args.system = None
    return part.frame, name


def _text_columns(args: Any) -> tuple[str, ...]:
    """The columns that name rows and systems (``--id``, ``--system``): read as written.
    (Cluster and stratum columns keep their numbers: the API, given the same numbers,
    orders the clusters the same way.)"""
    out: list[str] = []
    for key in ("id", "system"):
        value = getattr(args, key, None)
        out.extend(value if isinstance(value, list) else [value] if value else [])
    return tuple(dict.fromkeys(out))


def refuse_repeats(files: list[str]) -> None:
    """A file named twice (directly, through a glob or under another spelling) would stack
    its rows onto themselves: refused, naming it."""
    seen: dict[Path, str] = {}
    for raw in files:
        if raw == "-":
            continue
        for p in _matches(raw):
            key = p.resolve()
            if key in seen:
                shown = str(p) if seen[key] == str(p) else f"{p} ({seen[key]})"
                raise InputFileError(
                    shown, "named more than once: its rows would be counted twice; name each "
                    "file once",
                )  # fmt: skip
            seen[key] = str(p)


def is_harness(args: Any) -> bool:
    """Whether ``args.file`` names harness logs read without ``--system`` (the (task, score)
    parts of :func:`load_harness`)."""
    if getattr(args, "system", None):
        return False
    files = args.file if isinstance(args.file, list) else [args.file]
    fmt = getattr(args, "input_format", None)
    return fmt in LOG_FORMATS or (fmt is None and any(_is_log(f) for f in files))


def load(args: Any) -> tuple[Any, str]:
    """The command's input table and a display name for messages.

    ``args.file`` is one path (``correlate``, ``power``) or a list of files, directories and
    globs. ``args`` is adjusted for harness logs (see the module's description) and for a
    composite ``--id``.
    """
    files = args.file if isinstance(args.file, list) else [args.file]
    refuse_repeats(files)
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
