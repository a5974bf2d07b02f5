"""Shared pieces of the log readers: the error, path expansion, flattening, the tidy frame.

Every reader returns the same tidy long table (see :func:`booteval.logs.read`): the columns
``model``, ``task``, ``item`` (str), ``sample`` (int), one numeric column per score, then
the item's metadata flattened with dots. What a reader leaves out is counted in
``df.attrs["notes"]``.
"""

from __future__ import annotations

import glob
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import BootevalError, InvalidInputError
from ..core.tables import InputFileError

__all__ = [
    "KEYS",
    "LogFormatError",
    "build_frame",
    "expand_paths",
    "first_line",
    "flatten",
    "pandas",
    "read_files",
    "task_and_date",
]

#: the identifying columns, first in every table
KEYS = ("model", "task", "item", "sample")

PathsLike = str | Path | Sequence[str | Path]
#: one file's rows and score columns
FileRows = tuple[list[dict[str, Any]], list[str]]
#: the end of a file name ``<prefix>_<task>_<date>``, as lm-eval and lighteval name them
_TASK_AND_DATE = r"_(?P<task>.+?)(?:_(?P<date>\d{4}-\d\d-\d\dT[\d.\-]+))?$"


class LogFormatError(InputFileError, BootevalError):
    """A log file is malformed: the message names the file, the line (or member) and the field.

    A subclass of both :class:`booteval.BootevalError` and the command line's
    ``InputFileError``, so that ``booteval`` prints it as one line with exit status 2.

    Examples
    --------
    >>> str(LogFormatError("samples_mmlu.jsonl", "expected a number", line=7, field="acc"))
    "samples_mmlu.jsonl: line 7: field 'acc': expected a number"
    """

    def __init__(
        self, file: str | Path, message: str, *, line: int | str | None = None,
        field: str | None = None,
    ) -> None:  # fmt: skip
        self.line = line
        self.field = field
        self.detail = message
        where = "" if line is None else (f"line {line}: " if isinstance(line, int) else f"{line}: ")
        what = "" if field is None else f"field {field!r}: "
        super().__init__(str(file), where + what + message)

    def __reduce__(self) -> tuple:  # rebuilt from its fields in another process
        return _log_format_error, (self.file, self.detail, self.line, self.field)


def _log_format_error(
    file: str, message: str, line: int | str | None, field: str | None
) -> LogFormatError:
    return LogFormatError(file, message, line=line, field=field)


def pandas() -> Any:
    """pandas, or an ImportError telling how to install it.

    Examples
    --------
    >>> pandas().__name__
    'pandas'
    """
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test environment
        raise ImportError(
            "reading evaluation logs needs pandas (and pyarrow for Parquet): "
            'pip install "booteval[logs]"',
            name="pandas",
        ) from None
    return pd


def _as_list(paths: PathsLike) -> list[str]:
    if isinstance(paths, str | Path):
        return [str(paths)]
    try:
        out = [str(p) for p in paths]
    except TypeError:
        raise InvalidInputError(
            "paths", "a path, a directory, a glob or a list of them", type(paths).__name__
        ) from None
    if not out:
        raise InvalidInputError("paths", "at least one path", "an empty list")
    return out


def expand_paths(
    paths: PathsLike, accept: Callable[[Path], bool], what: str
) -> tuple[list[Path], list[Path]]:
    """Files named by ``paths``: ``(files, skipped)``.

    A file is taken as named; a directory is searched recursively for files that
    ``accept``; a glob (``runs/*/samples_*.jsonl``, ``**`` allowed) is expanded, its
    directories searched the same way. Files of a directory that ``accept`` refuses are
    returned in ``skipped``. A path that names nothing raises :class:`LogFormatError`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.jsonl").write_text("{}"); _ = (d / "b.txt").write_text("")
    >>> files, skipped = expand_paths(d, lambda p: p.suffix == ".jsonl", "logs")
    >>> [f.name for f in files], [f.name for f in skipped]
    (['a.jsonl'], ['b.txt'])
    """
    files: list[Path] = []
    skipped: list[Path] = []

    def walk(directory: Path) -> None:
        for f in sorted(p for p in directory.rglob("*") if p.is_file()):
            (files if accept(f) else skipped).append(f)

    for raw in _as_list(paths):
        p = Path(raw).expanduser()
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            before = len(files)
            walk(p)
            if len(files) == before:
                raise LogFormatError(raw, f"the directory holds no {what}")
        elif any(ch in raw for ch in "*?["):
            hits = sorted(glob.glob(str(p), recursive=True))
            if not hits:
                raise LogFormatError(raw, "no file matches this pattern")
            for h in map(Path, hits):
                if h.is_dir():
                    walk(h)
                elif h.is_file():
                    files.append(h)
        else:
            raise LogFormatError(raw, "no such file or directory")
    seen: set[Path] = set()
    unique = [f for f in files if not (f.resolve() in seen or seen.add(f.resolve()))]
    if not unique:
        raise LogFormatError(", ".join(_as_list(paths)), f"found no {what}")
    return unique, skipped


def read_files(
    paths: PathsLike, accept: Callable[[Path], bool], what: str, rows_of: Callable[[Path], FileRows]
) -> FileRows:
    """The rows of every file that ``paths`` names (:func:`expand_paths`), and their scores.

    ``rows_of(path)`` reads one file: ``(rows, score columns)``. The score columns of all
    files come once each, in the order first seen.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.jsonl").write_text("{}"); _ = (d / "b.jsonl").write_text("{}")
    >>> read_files(d, lambda p: True, "logs", lambda p: ([{"f": p.name}], ["acc", p.stem]))
    ([{'f': 'a.jsonl'}, {'f': 'b.jsonl'}], ['acc', 'a', 'b'])
    """
    files, _ = expand_paths(paths, accept, what)
    rows: list[dict[str, Any]] = []
    scores: list[str] = []
    for path in files:
        r, s = rows_of(path)
        rows.extend(r)
        scores.extend(x for x in s if x not in scores)
    return rows, scores


def task_and_date(path: Path, prefix: str) -> tuple[str, str | None]:
    """``(task, date)`` of a file named ``<prefix>_<task>_<date>``: the stem and ``None`` if not.

    Examples
    --------
    >>> task_and_date(Path("details_mmlu_2024-05-01T10-00-00.12.parquet"), "details")
    ('mmlu', '2024-05-01T10-00-00.12')
    >>> task_and_date(Path("samples_arc.jsonl"), "samples"), task_and_date(Path("x.json"), "a")
    (('arc', None), ('x', None))
    """
    m = re.match(re.escape(prefix) + _TASK_AND_DATE, path.stem)
    return (m["task"], m["date"]) if m else (path.stem, None)


def flatten(value: Any, prefix: str, out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Nested mappings as one flat dict with dotted keys; lists become compact JSON text.

    Examples
    --------
    >>> flatten({"subject": "law", "meta": {"year": 2020}, "choices": ["a", "b"]}, "doc")
    {'doc.subject': 'law', 'doc.meta.year': 2020, 'doc.choices': '["a", "b"]'}
    """
    out = {} if out is None else out
    if value is None or isinstance(value, str | int | float):  # the common case first
        out[prefix] = value
        return out
    if hasattr(value, "tolist") and not isinstance(value, bytes):
        value = value.tolist()  # numpy arrays and scalars from Parquet
    if isinstance(value, dict):  # an empty mapping adds no column
        for k, v in value.items():
            flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(value, list | tuple):
        try:
            out[prefix] = json.dumps(value, ensure_ascii=False)
        except TypeError:  # numpy values inside (Parquet), or other objects
            out[prefix] = json.dumps(_plain(value), ensure_ascii=False, default=str)
    else:
        out[prefix] = value
    return out


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist") and not isinstance(value, str | bytes):
        value = value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def to_number(value: Any) -> float | None:
    """``value`` as a float if it is a number or a bool, else ``None``.

    Examples
    --------
    >>> to_number(True), to_number(3), to_number("x"), to_number(None)
    (1.0, 3.0, None, None)
    """
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (ValueError, TypeError):
            return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    return None


def first_line(path: Path) -> str:
    """The first non-empty line of a text file ("" where it has none or cannot be read):
    what format detection looks at.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.jsonl"
    >>> _ = p.write_text(chr(10) + "{}" + chr(10))  # an empty line, then the record
    >>> first_line(p).strip()
    '{}'
    """
    try:
        with path.open(encoding="utf-8") as fh:
            return next((line for line in fh if line.strip()), "")
    except (OSError, UnicodeDecodeError):
        return ""


def read_json_lines(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each non-empty line of a JSON Lines file."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise LogFormatError(path, f"cannot open it ({exc.strerror})") from None
    with handle:
        for n, raw in enumerate(handle, 1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = raw[exc.start : exc.start + 1]
                raise LogFormatError(
                    path, f"not UTF-8 text (byte {exc.start} of the line: {bad!r})", line=n
                ) from None
            if not text.strip():
                continue
            try:
                rec = json.loads(text)
            except json.JSONDecodeError as exc:
                raise LogFormatError(path, f"not valid JSON ({exc.msg}, column {exc.colno})",
                                     line=n) from None  # fmt: skip
            except RecursionError:
                raise LogFormatError(path, "JSON nested too deeply to read", line=n) from None
            if not isinstance(rec, dict):
                raise LogFormatError(
                    path, f"expected a JSON object; found {type(rec).__name__}", line=n
                )
            yield n, rec


def read_json(path: Path) -> Any:
    """The JSON document in ``path``, with errors naming the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LogFormatError(path, f"cannot open it ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise LogFormatError(path, "not UTF-8 text: expected a JSON file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogFormatError(path, f"not valid JSON ({exc.msg}, column {exc.colno})",
                             line=exc.lineno) from None  # fmt: skip
    except RecursionError:
        raise LogFormatError(path, "JSON nested too deeply to read") from None


def build_frame(
    records: list[dict[str, Any]], scores: Sequence[str], notes: list[str], fmt: str
) -> Any:
    """The tidy frame from row dicts: key columns, scores (float), then sorted metadata."""
    pd = pandas()
    df = pd.DataFrame.from_records(records)
    if df.empty:
        df = pd.DataFrame(columns=[*KEYS, *scores])
    meta = sorted(c for c in df.columns if c not in KEYS and c not in scores and c != "_file")
    df = df[[*KEYS, *scores, *meta, *(["_file"] if "_file" in df.columns else [])]]
    df["item"] = df["item"].astype(str)
    df["model"] = df["model"].astype(str)
    df["task"] = df["task"].astype(str)
    df["sample"] = df["sample"].astype("int64")
    for s in scores:
        df[s] = pd.to_numeric(df[s], errors="coerce").astype(float)
    check_unique(df)
    if "_file" in df.columns:
        df = df.drop(columns="_file")
    df = df.reset_index(drop=True)
    df.attrs = {"notes": list(notes), "scores": list(scores), "format": fmt}
    return df


def check_unique(df: Any) -> None:
    """One row per (model, task, item, sample): else an error naming the two files."""
    dup = df.duplicated(list(KEYS), keep=False)
    if bool(dup.any()):
        rows = df[dup]
        first = rows.iloc[0]
        key = tuple(first[k] for k in KEYS)
        same = rows[(rows[list(KEYS)] == list(key)).all(axis=1)]
        files = list(dict.fromkeys(map(str, same["_file"]))) if "_file" in same else []
        where = files[0] if files else "logs"
        also = f" (also in {', '.join(files[1:])})" if len(files) > 1 else ""
        raise LogFormatError(
            where, f"model {key[0]!r}, task {key[1]!r}, item {key[2]!r}, sample {key[3]} "
            f"appears more than once{also}: {int(dup.sum())} rows repeat a key; read one run "
            "per model and task, or name the models apart (model=)",
        )  # fmt: skip


def check_same_item(df: Any, column: str, fmt: str, hint: str) -> None:
    """Every model must see the same item under one (task, item): ``column`` must agree."""
    if column not in df.columns or df.empty:
        return
    counts = df.groupby(["task", "item"], sort=False)[column].nunique(dropna=True)
    bad = counts[counts > 1]
    if len(bad):
        task, item = bad.index[0]
        models = df[(df["task"] == task) & (df["item"] == item)]
        pairs = models.groupby(column, sort=False)["model"].first()
        shown = "; ".join(f"{m}: {str(v)[:16]}" for v, m in pairs.items())
        raise LogFormatError(
            f"{fmt} logs", f"task {task!r}, item {item!r}: the models saw different documents "
            f"({column} differs: {shown}); {len(bad)} item(s) so. {hint}",
        )  # fmt: skip


def count(n: int) -> str:
    """``1,234``-style integer."""
    return f"{n:,}"


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
