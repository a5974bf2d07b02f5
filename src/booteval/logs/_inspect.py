"""Inspect AI evaluation logs: ``.eval`` (a zip) and ``.json``.

An ``.eval`` file is a zip archive: ``header.json`` (the log without its samples: ``eval``
with ``task`` and ``model``, ``results`` with the aggregate ``scores``), one
``samples/<id>_epoch_<n>.json`` per sample and epoch, and ``summaries.json``,
``reductions.json`` and ``_journal/`` (``start.json``, written first, holds ``eval`` too).
A ``.json`` log is the same document in one file, with ``samples`` and ``reductions``
inside. A sample carries ``id``, ``epoch`` (from 1), ``target``, ``metadata`` and
``scores``: ``{scorer: {"value": ..., "answer": ..., "explanation": ...}}``, the value
a number, a bool, a letter (``C`` correct, ``I`` incorrect, ``P`` partial, ``N`` no
answer) or a mapping of such values.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInputError
from ._common import (
    FileRows,
    LogFormatError,
    PathsLike,
    build_frame,
    count,
    flatten,
    read_files,
    read_json,
    to_number,
)

__all__ = ["DEFAULT_VALUES", "is_inspect_log", "read_inspect"]

#: Inspect's own mapping of letter grades to numbers (``value_to_float``)
DEFAULT_VALUES: dict[str, float] = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_SAMPLE = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")


def is_inspect_log(path: Path) -> bool:
    """Whether ``path`` is an Inspect log: an ``.eval`` zip or a ``.json`` with ``eval``."""
    if path.suffix == ".eval":
        return zipfile.is_zipfile(path)
    if path.suffix != ".json":
        return False
    try:
        with path.open(encoding="utf-8") as fh:
            head = fh.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return bool(re.match(r'\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"', head)) and '"eval"' in head


def _value(raw: Any, values: Mapping[str, float], where: str, path: Path, field: str) -> float:
    num = to_number(raw)
    if num is not None:
        return num
    if isinstance(raw, str):
        if raw in values:
            return float(values[raw])
        low = raw.strip().lower()
        if low in _WORDS:
            return _WORDS[low]
        try:
            return float(low)
        except ValueError:
            pass
    raise LogFormatError(
        path, f"expected a number, a bool or one of {', '.join(map(repr, values))} (pass "
        f"values={{...}} to map others); found {raw!r:.60}", line=where, field=field,
    )  # fmt: skip


def _rows(
    path: Path, log: dict[str, Any], samples: list[tuple[str, Any]], values: Mapping[str, float],
    scorer: str | None, left: dict[str, int],
) -> tuple[list[dict[str, Any]], list[str]]:  # fmt: skip
    spec = log.get("eval")
    if not isinstance(spec, dict) or "model" not in spec or "task" not in spec:
        raise LogFormatError(path, "expected an 'eval' object with 'task' and 'model'",
                             field="eval")  # fmt: skip
    model, task = str(spec["model"]), str(spec["task"])
    rows: list[dict[str, Any]] = []
    scores: list[str] = []
    for where, s in samples:
        if not isinstance(s, dict):
            raise LogFormatError(path, "expected a sample object", line=where)
        for key in ("id", "epoch"):
            if key not in s:
                raise LogFormatError(path, "missing from the sample", line=where, field=key)
        epoch = to_number(s["epoch"])
        if epoch is None or not 1 <= epoch <= _MAX_EPOCH or epoch != int(epoch):  # NaN too
            raise LogFormatError(path, f"expected an epoch number from 1; found {s['epoch']!r}",
                                 line=where, field="epoch")  # fmt: skip
        found = s.get("scores")
        if not found:
            left["error" if s.get("error") else "unscored"] += 1
            continue
        if not isinstance(found, dict):
            raise LogFormatError(path, "expected {scorer: score}", line=where, field="scores")
        row: dict[str, Any] = {"model": model, "task": task, "item": str(s["id"]),
                               "sample": int(epoch) - 1, "_file": str(path)}  # fmt: skip
        for name, score in found.items():
            if scorer is not None and name != scorer:
                continue
            if not isinstance(score, dict) or "value" not in score:
                raise LogFormatError(path, "expected a score object with a 'value'", line=where,
                                     field=f"scores.{name}")  # fmt: skip
            v = score["value"]
            parts = v.items() if isinstance(v, dict) else [(None, v)]
            for key, raw in parts:
                col = name if key is None else f"{name}.{key}"
                field = f"scores.{name}.value" + ("" if key is None else f".{key}")
                row[col] = _value(raw, values, where, path, field)
                if col not in scores:
                    scores.append(col)
        target = s.get("target")
        if target is not None:
            flatten(target, "target", row)
        flatten(s.get("metadata") or {}, "metadata", row)
        rows.append(row)
    return rows, scores


#: the largest epoch number taken (a larger one is a damaged log, not a run)
_MAX_EPOCH = 10**6

#: the zip method of Zstandard, which inspect-ai writes by default (APPNOTE 6.3.7)
ZIP_ZSTANDARD = 93


def _member_bytes(zf: zipfile.ZipFile, member: str, path: Path) -> bytes:
    """A member's bytes: deflated or stored by :mod:`zipfile`, Zstandard-compressed (method
    93, which :mod:`zipfile` cannot read before Python 3.14) by the zstandard package."""
    info = zf.getinfo(member)
    if info.compress_type != ZIP_ZSTANDARD:
        try:
            return zf.read(member)
        except NotImplementedError as exc:
            raise LogFormatError(path, f"{exc} (zip method {info.compress_type})",
                                 line=member) from None  # fmt: skip
    try:
        import zstandard
    except ImportError:
        raise LogFormatError(
            path, "its members are Zstandard-compressed (zip method 93, Inspect's default), "
            "which needs the zstandard package: pip install 'booteval[logs]'", line=member,
        ) from None  # fmt: skip
    fp = zf.fp
    assert fp is not None
    fp.seek(info.header_offset)
    local = fp.read(30)
    if local[:4] != b"PK\x03\x04":
        raise LogFormatError(path, "a damaged zip: no local header", line=member)
    skip = int.from_bytes(local[26:28], "little") + int.from_bytes(local[28:30], "little")
    fp.seek(info.header_offset + 30 + skip)
    try:
        data = zstandard.ZstdDecompressor().decompress(
            fp.read(info.compress_size), max_output_size=max(info.file_size, 1)
        )
    except zstandard.ZstdError as exc:
        raise LogFormatError(path, f"a damaged Zstandard member ({exc})", line=member) from None
    if zipfile.crc32(data) != info.CRC:
        raise LogFormatError(path, "a damaged member: its checksum does not match", line=member)
    return data


def _read_eval_zip(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]], str]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise LogFormatError(path, f"not a readable .eval zip ({exc})") from None
    with zf:
        names = zf.namelist()

        def load(member: str) -> Any:
            try:
                return json.loads(_member_bytes(zf, member, path).decode("utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                line = getattr(exc, "lineno", None)
                at = f"{member} line {line}" if line else member
                raise LogFormatError(path, f"not valid JSON ({exc})", line=at) from None

        if "header.json" in names:
            header, status = load("header.json"), None
        elif "_journal/start.json" in names:
            header, status = load("_journal/start.json"), "started"
        else:
            raise LogFormatError(path, "neither header.json nor _journal/start.json in the zip: "
                                 "expected an Inspect .eval log")  # fmt: skip
        if not isinstance(header, dict):
            raise LogFormatError(path, "expected a JSON object", line="header.json")
        if status is None:
            status = str(header.get("status", "success"))
        members = [n for n in names if _SAMPLE.match(n)]
        members.sort(key=lambda n: (int(_SAMPLE.match(n)["epoch"]), names.index(n)))  # type: ignore[index]
        samples = [(m, load(m)) for m in members]
    return header, samples, status


def _file_rows(
    path: Path,
    values: Mapping[str, float],
    scorer: str | None,
    left: dict[str, int],
    notes: list[str],
) -> FileRows:
    """One log's rows and scores; a run that did not succeed adds a note."""
    if path.suffix == ".eval":
        log, samples, status = _read_eval_zip(path)
    else:
        log = read_json(path)
        if not isinstance(log, dict):
            raise LogFormatError(path, "expected an Inspect log object")
        raw = log.get("samples") or []
        if not isinstance(raw, list):
            raise LogFormatError(path, "expected a list of samples", field="samples")
        samples = [(f"samples[{i}]", s) for i, s in enumerate(raw)]
        status = str(log.get("status", "success"))
    if status != "success":
        notes.append(f"inspect: {path.name}: the run's status is {status!r}; its logged "
                     "samples are read, others are missing")  # fmt: skip
    rows, scores = _rows(path, log, samples, values, scorer, left)
    if not rows:
        raise LogFormatError(path, "no scored samples" + (f" for scorer {scorer!r}" if scorer
                                                          else ""))  # fmt: skip
    return rows, scores


def read_inspect(
    paths: PathsLike, *, values: Mapping[str, float] | None = None, scorer: str | None = None
) -> Any:
    """Read Inspect AI logs (``.eval`` zips and ``.json`` logs) into one tidy table.

    Parameters
    ----------
    paths : path, directory, glob, or a list of them
        Log files; a directory is searched recursively (Inspect's ``./logs``), one log per
        task and model.
    values : mapping, optional
        How non-numeric score values become numbers. Default: Inspect's own
        ``C -> 1, I -> 0, P -> 0.5, N -> 0``; entries given here are added to it or replace
        it. Numbers and bools are taken as they are, ``"yes"``/``"true"`` as 1 and
        ``"no"``/``"false"`` as 0; any other value raises an error naming the sample.
    scorer : str, optional
        Keep only this scorer's column(s); default: every scorer.

    Returns
    -------
    pandas.DataFrame
        ``model`` (``eval.model``), ``task`` (``eval.task``), ``item`` (the sample ``id``),
        ``sample`` (the epoch minus 1, so 0, 1, ...), one column per scorer (``match``; a
        scorer with a mapping of values gives ``scorer.key`` columns), ``target`` and
        ``metadata.*``. Samples without scores (errors, cancelled runs) are counted in
        ``attrs["notes"]``, as is the value mapping.

    Raises
    ------
    LogFormatError
        A malformed log or sample (the message names the file, the zip member or sample,
        and the field), or a score value that cannot be mapped.

    Examples
    --------
    >>> import booteval.logs as bl
    >>> df = bl.read_inspect("logs/")  # doctest: +SKIP
    >>> df.groupby("model")["match"].mean()  # doctest: +SKIP
    """
    mapping = dict(DEFAULT_VALUES)
    if values is not None:
        if not isinstance(values, Mapping):
            raise InvalidInputError("values", "a mapping of score value to number",
                                    type(values).__name__)  # fmt: skip
        for k, v in values.items():
            if to_number(v) is None:
                raise InvalidInputError("values", "numbers as the mapping's values",
                                        f"{v!r} for {k!r}")  # fmt: skip
            mapping[str(k)] = float(v)
    left = {"error": 0, "unscored": 0}
    notes: list[str] = []
    rows, scores = read_files(
        paths,
        is_inspect_log,
        "Inspect logs (.eval or .json)",
        lambda path: _file_rows(path, mapping, scorer, left, notes),
    )
    if scorer is not None and not scores:  # a scorer the logs do not have: no score column
        found = read_files(
            paths,
            is_inspect_log,
            "Inspect logs",
            lambda p: _file_rows(p, mapping, None, dict.fromkeys(left, 0), []),
        )[1]
        raise InvalidInputError(
            "scorer", f"one of the logs' scorers ({', '.join(found) or 'none'})", repr(scorer)
        )
    shown = ", ".join(f"{k} -> {v:g}" for k, v in mapping.items())
    notes.insert(0, f"inspect: score values mapped to numbers: {shown}; numbers and bools as "
                 "they are (override with values=)")  # fmt: skip
    if left["error"] or left["unscored"]:
        notes.append(f"inspect: {count(left['error'] + left['unscored'])} samples without scores "
                     f"left out ({count(left['error'])} with an error)")  # fmt: skip
    return build_frame(rows, scores, notes, "inspect")
