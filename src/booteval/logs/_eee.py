"""Every Eval Ever instance-level JSON Lines (schema ``instance_level_eval_0.2.x``).

One line per (model, evaluation, sample): ``model_id`` (``meta-llama/Llama-3.2-1B``),
``evaluation_name`` (``gsm8k``), ``sample_id``, ``evaluation.score`` (a number),
``evaluation.is_correct`` (a bool), and optional ``metadata`` (string values: subject,
difficulty, ...). The model is the system, the evaluation the task, the sample the item;
``score`` and ``is_correct`` (0/1) are the scores; a sample repeated for a model and
evaluation (several runs) becomes samples 0, 1, ... of that item.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._common import (
    LogFormatError,
    PathsLike,
    build_frame,
    first_line,
    flatten,
    read_files,
    read_json_lines,
    to_number,
)

__all__ = ["is_eee_instances", "read_eee"]

_REQUIRED = ("model_id", "sample_id", "evaluation")


def is_eee_instances(path: Path) -> bool:
    """Whether ``path`` is an EEE instance-level JSON Lines file (by its first record)."""
    if path.suffix != ".jsonl" or not path.is_file():
        return False
    first = first_line(path)
    return '"instance_level_eval' in first or all(f'"{k}"' in first for k in _REQUIRED)


def _rows(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, rec in read_json_lines(path):
        for key in _REQUIRED:
            if key not in rec:
                raise LogFormatError(path, "missing from the record", line=line, field=key)
        ev = rec["evaluation"]
        if not isinstance(ev, dict):
            raise LogFormatError(path, "expected an object", line=line, field="evaluation")
        score = to_number(ev.get("score"))
        if ev.get("score") is not None and score is None:
            raise LogFormatError(path, f"expected a number; found {ev.get('score')!r:.40}",
                                 line=line, field="evaluation.score")  # fmt: skip
        correct = ev.get("is_correct")
        if correct is not None and not isinstance(correct, bool):
            raise LogFormatError(path, f"expected true or false; found {correct!r:.40}",
                                 line=line, field="evaluation.is_correct")  # fmt: skip
        model, task = str(rec["model_id"]), str(rec.get("evaluation_name") or path.stem)
        item = rec["sample_id"]
        if item is None or (isinstance(item, str) and not item.strip()):
            raise LogFormatError(path, "an empty sample id", line=line, field="sample_id")
        key = (model, task, str(item))
        sample = seen.get(key, -1) + 1
        seen[key] = sample
        nan = float("nan")
        row: dict[str, Any] = {
            "model": model, "task": task, "item": str(item), "sample": sample,
            "_file": str(path), "score": nan if score is None else score,
            "is_correct": nan if correct is None else float(correct),
        }  # fmt: skip
        flatten(rec.get("metadata") or {}, "metadata", row)
        rows.append(row)
    return rows, ["score", "is_correct"]


def read_eee(paths: PathsLike) -> Any:
    """Read Every Eval Ever instance-level JSON Lines into the tidy long table.

    Parameters
    ----------
    paths : str, Path or list
        Files, directories (searched for EEE ``.jsonl`` files) or globs.

    Returns
    -------
    pandas.DataFrame
        ``model`` (``model_id``), ``task`` (``evaluation_name``), ``item``
        (``sample_id``), ``sample``, the scores ``score`` and ``is_correct`` (0/1), and
        ``metadata.*``; ``attrs["scores"]`` lists the scores, ``score`` first.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "instances.jsonl"
    >>> recs = [{"schema_version": "instance_level_eval_0.2.1", "model_id": "org/m",
    ...          "evaluation_name": "gsm8k", "sample_id": f"q{i}",
    ...          "evaluation": {"score": i % 2, "is_correct": bool(i % 2)}} for i in range(4)]
    >>> _ = p.write_text("\\n".join(json.dumps(r) for r in recs))
    >>> df = read_eee(p)
    >>> df[["model", "task", "item", "score"]].head(2).values.tolist()
    [['org/m', 'gsm8k', 'q0', 0.0], ['org/m', 'gsm8k', 'q1', 1.0]]
    """
    rows, scores = read_files(paths, is_eee_instances, "Every Eval Ever instance files", _rows)
    return build_frame(rows, scores, [], "eee")
