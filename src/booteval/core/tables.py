"""Reading results files for the command line: CSV, TSV, Parquet, JSON Lines, or standard input.

Every problem with a file or a column raises :class:`InputFileError`, whose message is one
line naming the file, the column and what was expected; the command line prints it and exits
with status 2. pandas (and pyarrow, for Parquet) are imported only when a file is read.
"""

from __future__ import annotations

import csv
import fnmatch
import io
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InvalidInputError
from .validation import as_group_labels

__all__ = [
    "FORMATS",
    "InputFileError",
    "format_of",
    "numeric_column",
    "read_lines",
    "read_table",
    "select",
]

#: input formats and the file extensions that imply them
FORMATS: dict[str, tuple[str, ...]] = {
    "csv": (".csv",),
    "tsv": (".tsv", ".tab"),
    "parquet": (".parquet", ".pq"),
    "jsonl": (".jsonl", ".ndjson", ".json"),
    # plain text, one segment per line (sacrebleu's hypothesis and reference files); a .txt
    # file whose first line holds a tab is read as TSV
    "lines": (".txt",),
}
_COMPRESSION = (".gz", ".bz2", ".xz", ".zst", ".zip")


class InputFileError(Exception):
    """A results file cannot be used as asked: one line naming the file, column and expectation.

    Examples
    --------
    >>> str(InputFileError("runs.csv", "column 'score': expected numbers; found 'abc' in row 3"))
    "runs.csv: column 'score': expected numbers; found 'abc' in row 3"
    """

    def __init__(self, file: str, message: str) -> None:
        self.file = file
        self.message = message
        super().__init__(f"{file}: {message}")

    def __reduce__(self) -> tuple:  # rebuilt from its fields in another process
        return type(self), (self.file, self.message)


def _display(path: str | Path) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


def format_of(path: str | Path, input_format: str | None = None) -> str:
    """The input format of ``path``: ``input_format`` if given, else from the extension.

    Compression suffixes (``.gz``, ``.bz2``, ``.xz``, ``.zst``, ``.zip``) are looked through;
    standard input (``-``) without ``input_format`` is read as CSV.

    Examples
    --------
    >>> format_of("runs.tsv"), format_of("runs.jsonl.gz"), format_of("-")
    ('tsv', 'jsonl', 'csv')
    >>> format_of("runs.dat", "parquet")
    'parquet'
    """
    if input_format is not None:
        fmt = input_format.lower()
        if fmt not in FORMATS:
            raise InputFileError(
                _display(path), f"--input-format: expected one of {', '.join(FORMATS)}; "
                f"received {input_format!r}",
            )  # fmt: skip
        return fmt
    if str(path) == "-":
        return "csv"
    suffixes = [s.lower() for s in Path(str(path)).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSION:
        suffixes.pop()
    ext = suffixes[-1] if suffixes else ""
    for fmt, exts in FORMATS.items():
        if ext in exts:
            return "tsv" if fmt == "lines" and _tab_in_first_line(Path(str(path))) else fmt
    if not Path(str(path)).exists():
        raise InputFileError(_display(path), "no such file or directory")
    raise InputFileError(
        _display(path),
        f"cannot tell the format from the extension {ext or '(none)'!r}: expected "
        ".csv, .tsv, .parquet, .jsonl or .txt, or pass --input-format",
    )


def _open_binary(path: Path) -> Any:
    """``path`` opened for reading bytes, decompressed by its suffix (.gz, .bz2, .xz)."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        import gzip

        return gzip.open(path, "rb")
    if suffix == ".bz2":
        import bz2

        return bz2.open(path, "rb")
    if suffix == ".xz":
        import lzma

        return lzma.open(path, "rb")
    if suffix in _COMPRESSION:
        raise InputFileError(str(path), f"{suffix} files cannot be read as lines: decompress it")
    return path.open("rb")


def _tab_in_first_line(path: Path) -> bool:
    try:
        with _open_binary(path) as fh:
            return b"\t" in fh.readline(1 << 16)
    except (OSError, InputFileError, EOFError):
        return False  # reported when the file is read


def read_lines(path: str | Path, *, stdin: Any = None) -> Any:
    """A plain text file as a one-column table: one row per line, each kept as written.

    Only the line ending is removed (``\\n`` or ``\\r\\n``): quotes, leading and trailing
    spaces and tabs stay, as sacrebleu reads its hypothesis and reference files. The
    column is named after the file (``hyp.en.txt`` gives ``hyp.en``; standard input gives
    ``line``).

    Examples
    --------
    >>> import io
    >>> read_lines("-", stdin=io.StringIO('"Hello," he said\\n  two spaces \\n')).to_dict("list")
    {'line': ['"Hello," he said', '  two spaces ']}
    """
    import pandas as pd

    name = _display(path)
    if str(path) == "-":
        raw = _read_stdin(stdin)
        column = "line"
    else:
        p = Path(path)
        if not p.is_file():
            raise InputFileError(name, "no such file" if not p.exists() else "not a file")
        with _open_binary(p) as fh:
            raw = fh.read()
        stem = p.name
        while Path(stem).suffix.lower() in (*_COMPRESSION, ".txt"):
            stem = stem[: -len(Path(stem).suffix)]
        column = stem
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFileError(name, f"line {line} is not UTF-8 text ({exc.reason})") from None
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the line ending of the last line
    lines = [line.removesuffix("\r") for line in lines]
    if not lines:
        raise InputFileError(name, "the file is empty: expected one segment per line")
    return pd.DataFrame({column: pd.Series(lines, dtype=object)})


def _read_json_lines(pd: Any, source: Any, dtype: Any) -> Any:
    """``pd.read_json(lines=True)`` with no dates guessed from column names: pandas 3.1
    deprecates the keywords that say so (its next major version drops the guessing)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(convert_dates|keep_default_dates)")
        try:
            return pd.read_json(source, lines=True, dtype=dtype, convert_dates=False,
                                keep_default_dates=False)  # fmt: skip
        except TypeError as exc:  # the keywords are gone
            if "convert_dates" not in str(exc) and "keep_default_dates" not in str(exc):
                raise
    if hasattr(source, "seek"):
        source.seek(0)
    return pd.read_json(source, lines=True, dtype=dtype)


def read_table(
    path: str | Path, input_format: str | None = None, *, stdin: Any = None,
    text_columns: Sequence[str] = (),
) -> Any:  # fmt: skip
    """Read a results file into a pandas DataFrame.

    Parameters
    ----------
    path : str or Path
        The file, or ``"-"`` for standard input.
    input_format : {"csv", "tsv", "parquet", "jsonl", "lines"}, optional
        Overrides the format implied by the extension (needed for standard input
        in a format other than CSV).
    stdin : file-like, optional
        Read instead of ``sys.stdin`` for ``"-"`` (for tests).
    text_columns : sequence of str
        Columns read as the text written (ids, system names): ``1.10`` and
        ``1.1``, ``01`` and ``1`` stay different. In JSON Lines a number stays the number
        written, as text (``0``), a string the string (``"00"``).

    Returns
    -------
    pandas.DataFrame
        With at least one row and one column.

    Raises
    ------
    InputFileError
        The file is missing, unreadable, malformed or empty.

    Examples
    --------
    >>> import io
    >>> df = read_table("-", stdin=io.StringIO("y,p\\n1,1\\n0,1\\n"))
    >>> df.shape, list(df.columns)
    ((2, 2), ['y', 'p'])
    """
    import pandas as pd

    name = _display(path)
    fmt = format_of(path, input_format)
    if fmt == "lines":
        return read_lines(path, stdin=stdin)
    source: Any
    if str(path) == "-":
        source = io.BytesIO(_read_stdin(stdin))
    else:
        p = Path(path)
        if not p.exists():
            raise InputFileError(name, "no such file")
        if p.is_dir():
            raise InputFileError(name, "expected a file; this is a directory")
        source = p
    try:
        if fmt in ("csv", "tsv"):
            # TSV as IANA defines it has no quoting: every character is kept as written
            # ('"Hello," he said' stays so); CSV fields may be quoted
            options = {"sep": "\t", "quoting": csv.QUOTE_NONE} if fmt == "tsv" else {}
            _check_header(pd.read_csv(source, header=None, nrows=1, **options), name)
            if hasattr(source, "seek"):
                source.seek(0)
            df = pd.read_csv(source, dtype={c: str for c in text_columns}, **options)
        elif fmt == "jsonl":
            # values as written: no guessing of dates from column names, nor of numbers
            # in the text columns
            df = _read_json_lines(pd, source, {c: object for c in text_columns} or True)
        else:
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise InputFileError(
                    name, "reading Parquet needs pyarrow: pip install 'booteval[cli]'"
                ) from None
            df = pd.read_parquet(source)
    except InputFileError:
        raise
    except pd.errors.EmptyDataError:
        raise InputFileError(name, f"the file is empty: expected a {fmt} table") from None
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputFileError(name, f"cannot read it as {fmt}: {detail}") from None
    except Exception as exc:  # pyarrow's own errors (ArrowInvalid, ...) are not ValueErrors
        if type(exc).__module__.startswith("pyarrow"):
            raise InputFileError(name, f"cannot read it as {fmt}: {exc}") from None
        raise
    if df.shape[1] == 0 or df.shape[0] == 0:
        cols = f" (columns: {', '.join(map(str, df.columns))})" if df.shape[1] else ""
        raise InputFileError(name, f"the file has no data rows{cols}: expected a {fmt} table")
    df.columns = [str(c) for c in df.columns]
    for c in text_columns:
        if c in df.columns and df[c].dtype == object:
            df[c] = df[c].map(_as_text)
    return df


def _as_text(value: Any) -> Any:
    """A JSON value of a text column as text (missing values stay missing)."""
    if value is None or isinstance(value, str) or (isinstance(value, float) and value != value):
        return value
    return str(value)


def _check_header(header: Any, name: str) -> None:
    """Refuse a header naming a column twice (pandas would rename the second ``x.1``)."""
    if header.shape[0] == 0:
        return
    seen: set[str] = set()
    for value in header.iloc[0].tolist():
        label = str(value)
        if label in seen and label != "nan":
            raise InputFileError(
                name,
                f"the header names the column {label!r} twice; expected unique column names "
                "(rename one, so that it is clear which one is meant)",
            )
        seen.add(label)


def _available(df: Any) -> str:
    cols = list(map(str, df.columns))
    shown = ", ".join(cols[:25]) + (f", ... ({len(cols)} in all)" if len(cols) > 25 else "")
    return shown


def require(df: Any, column: str, file: str, flag: str) -> Any:
    """The column ``column`` of ``df``, or an :class:`InputFileError` listing the columns.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [1, 0]})
    >>> require(df, "y", "a.csv", "--y-true").tolist()
    [1, 0]
    >>> require(df, "x", "a.csv", "--y-true")
    Traceback (most recent call last):
    ...
    booteval.core.tables.InputFileError: a.csv: column 'x' (--y-true) not found; expected one of: y
    """
    if column not in df.columns:
        raise InputFileError(
            file, f"column {column!r} ({flag}) not found; expected one of: {_available(df)}"
        )
    return df[column]


def select(
    df: Any, patterns: list[str], file: str, flag: str, exclude: tuple[str, ...] = ()
) -> list[str]:
    """Column names for ``patterns`` (exact names or shell-style globs such as ``'Llama*'``).

    Columns in ``exclude`` and id-like columns (:func:`is_id_like`) are never matched by a
    glob. The order follows the patterns, then the file.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame(columns=["id", "gpt-a", "gpt-b", "llama"])
    >>> select(df, ["gpt-*", "llama"], "f.csv", "--score")
    ['gpt-a', 'gpt-b', 'llama']
    >>> select(df, ["*"], "f.csv", "--score", exclude=("id",))
    ['gpt-a', 'gpt-b', 'llama']
    """
    out: list[str] = []
    for pat in patterns:
        if any(ch in pat for ch in "*?[") and pat not in df.columns:
            hits = [
                c
                for c in df.columns
                if fnmatch.fnmatchcase(c, pat) and c not in exclude and not is_id_like(c)
            ]
            if not hits:
                raise InputFileError(
                    file, f"no column matches {pat!r} ({flag}); expected one of: {_available(df)}"
                )
        else:
            require(df, pat, file, flag)
            hits = [pat]
        out.extend(h for h in hits if h not in out)
    return out


_ID_LIKE = re.compile(
    r"^(?:id|idx|index|key|uuid|hash|doc_hash|unnamed: ?\d+)$|[_\-. ](?:id|idx|hash|uuid)$",
    re.IGNORECASE,
)
_CAMEL_ID = re.compile(r"[a-z0-9](?:Id|ID|Idx)$")  # questionId, docID


def is_id_like(name: str) -> bool:
    """Whether a column name reads as a row id (``id``, ``doc_id``, ``questionId``, ``idx``).

    A glob such as ``--score '*'`` never matches such a column: an id is not a system.

    Examples
    --------
    >>> [is_id_like(c) for c in ["doc_id", "id", "questionId", "Unnamed: 0", "model_a", "valid"]]
    [True, True, True, True, False, False]
    """
    return bool(_ID_LIKE.search(name) or _CAMEL_ID.search(name))


def numeric_column(
    df: Any, column: str, file: str, flag: str, *, what: str = "numbers", allow_nan: bool = False
) -> np.ndarray:
    """A column as a float array, checked for non-numbers and missing values (empty cells
    are NaN where ``allow_nan``: a column filled on a subset of the rows).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"s": [0.5, 1.0], "t": ["0.2", "x"], "u": [1.0, None]})
    >>> numeric_column(df, "s", "f.csv", "--score").tolist()
    [0.5, 1.0]
    >>> numeric_column(df, "t", "f.csv", "--score")
    Traceback (most recent call last):
    ...
    booteval.core.tables.InputFileError: f.csv: column 't' (--score): expected numbers; found 'x' in row 2
    >>> numeric_column(df, "u", "f.csv", "--score")
    Traceback (most recent call last):
    ...
    booteval.core.tables.InputFileError: f.csv: column 'u' (--score): expected numbers in every row; found 1 missing value (NaN or empty), first in row 2
    """  # noqa: E501
    import pandas as pd

    col = require(df, column, file, flag)
    if col.dtype == bool:
        return col.to_numpy(dtype=float)
    if col.dtype.kind in "mM" or isinstance(col.dtype, pd.PeriodDtype):
        raise InputFileError(
            file, f"column {column!r} ({flag}): expected {what}; found dates or times "
            f"({col.dtype}), e.g. {col.iloc[0]!s} in row 1: is this the column you meant?",
        )  # fmt: skip
    _refuse_nested(col, column, file, flag, "one number per row")
    conv = pd.to_numeric(col, errors="coerce")
    bad = conv.isna() & col.notna()
    if bool(bad.any()):
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputFileError(
            file, f"column {column!r} ({flag}): expected {what}; found {col.iloc[i]!r} in row "
            f"{i + 1}",
        )  # fmt: skip
    if not allow_nan:
        _check_missing(conv, column, file, flag, what)
    arr = conv.to_numpy(dtype=float)
    if not np.all(np.isfinite(arr) | (np.isnan(arr) & allow_nan)):
        i = int(np.flatnonzero(~(np.isfinite(arr) | (np.isnan(arr) & allow_nan)))[0])
        raise InputFileError(
            file, f"column {column!r} ({flag}): expected finite {what}; found {arr[i]} in row "
            f"{i + 1}",
        )  # fmt: skip
    return arr


def label_column(df: Any, column: str, file: str, flag: str) -> np.ndarray:
    """A column of labels (numbers or text), checked for missing values.

    Integral floats (``1.0``) become integers so that labels compare as written.

    Examples
    --------
    >>> import pandas as pd
    >>> label_column(pd.DataFrame({"y": [1.0, 0.0]}), "y", "f.csv", "--y-true").tolist()
    [1, 0]
    >>> label_column(pd.DataFrame({"y": ["cat", "dog"]}), "y", "f.csv", "--y-true").tolist()
    ['cat', 'dog']
    """
    col = require(df, column, file, flag)
    _refuse_nested(col, column, file, flag, "one label per row")
    _check_missing(col, column, file, flag, "a label")
    arr = col.to_numpy()
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "O":
        arr = arr.astype(str)
    return arr


def group_column(df: Any, column: str, file: str, flag: str) -> np.ndarray:
    """A column of group labels (clusters, strata, systems, ids), checked for missing values.

    Examples
    --------
    >>> import pandas as pd
    >>> group_column(pd.DataFrame({"g": ["a", "b"]}), "g", "f.csv", "--cluster").tolist()
    ['a', 'b']
    """
    col = require(df, column, file, flag)
    _check_missing(col, column, file, flag, "a value")
    arr = col.to_numpy()
    if arr.dtype.kind == "O":
        try:
            as_group_labels(arr, flag, arr.shape[0])
        except InvalidInputError as exc:
            raise InputFileError(
                file,
                f"column {column!r} ({flag}): expected {exc.expected}; received {exc.received}",
            ) from None
        arr = arr.astype(str)
    return arr


def _refuse_nested(col: Any, column: str, file: str, flag: str, expected: str) -> None:
    """Refuse a column holding lists or mappings (a Parquet list column, nested JSON)."""
    if col.dtype != object:
        return
    nested = col.map(lambda v: isinstance(v, (list, tuple, dict, set, np.ndarray))).to_numpy()
    if nested.any():
        i = int(np.flatnonzero(nested)[0])
        value = col.iloc[i]
        kind = "mapping" if isinstance(value, dict) else "list"
        raise InputFileError(
            file, f"column {column!r} ({flag}): expected {expected}; found a {kind} in row "
            f"{i + 1} ({_short(value)})",
        )  # fmt: skip


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_missing(col: Any, column: str, file: str, flag: str, what: str) -> None:
    miss = col.isna().to_numpy()
    if miss.any():
        k = int(miss.sum())
        first = int(np.flatnonzero(miss)[0]) + 1
        raise InputFileError(
            file,
            f"column {column!r} ({flag}): expected {what} in every row; found {k} missing "
            f"value{'s' if k > 1 else ''} (NaN or empty), first in row {first}",
        )


def _read_stdin(stdin: Any = None) -> bytes:
    """The bytes of standard input (or ``stdin``), with a clear error where it is closed."""
    stream = sys.stdin if stdin is None else stdin
    try:
        if stream is None or getattr(stream, "closed", False):
            raise OSError("closed")
        raw = stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
    except (OSError, ValueError) as exc:
        raise InputFileError(
            "-", f"cannot read standard input ({exc}): pipe a file in, or name the file"
        ) from None
    return raw.encode() if isinstance(raw, str) else raw
