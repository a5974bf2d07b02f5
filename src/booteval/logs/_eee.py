"""Every Eval Ever instance-level JSON Lines (schema ``instance_level_eval_0.2.x`` and 0.3).

One line per (model, evaluation, sample): ``model_id`` (``meta-llama/Llama-3.2-1B``),
``evaluation_name`` (``gsm8k``), ``sample_id``, ``evaluation.score`` (a number),
``evaluation.is_correct`` (a bool), and optional ``metadata`` (string values: subject,
difficulty, ...). The model is the system, the evaluation the task, the sample the item;
``score`` and ``is_correct`` (0/1) are the scores; a sample repeated for a model and
evaluation (several runs) becomes samples 0, 1, ... of that item.

Schema 0.3 adds ``evaluation_result_id``, naming the aggregate's result (the metric) a line
scores: the ``every_eval_ever convert lm_eval`` converter writes one line per sample *and*
metric (``acc``, then ``acc_norm``). Such lines are one row per sample, with the scores
``score.<id>`` and ``is_correct.<id>`` (``score.acc``, ``score.acc_norm``, ...), not
repeats of the sample.
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
    rows: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    scores: list[str] = []
    seen: dict[tuple[str, str, str, str | None], int] = {}
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
        result = rec.get("evaluation_result_id")
        if result is not None and not isinstance(result, str):
            raise LogFormatError(path, f"expected a text; found {result!r:.40}", line=line,
                                 field="evaluation_result_id")  # fmt: skip
        result = result.strip() if result else None
        names = (f"score.{result}", f"is_correct.{result}") if result else ("score", "is_correct")
        key = (model, task, str(item), result)
        sample = seen.get(key, -1) + 1
        seen[key] = sample
        nan = float("nan")
        row = rows.setdefault((model, task, str(item), sample), {
            "model": model, "task": task, "item": str(item), "sample": sample, "_file": str(path),
        })  # fmt: skip
        row[names[0]] = nan if score is None else score
        row[names[1]] = nan if correct is None else float(correct)
        scores += [n for n in names if n not in scores]
        flatten(rec.get("metadata") or {}, "metadata", row)
    return list(rows.values()), scores


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
        ``metadata.*``; ``attrs["scores"]`` lists the scores, ``score`` first. Lines that
        name an ``evaluation_result_id`` (schema 0.3) give ``score.<id>`` and
        ``is_correct.<id>`` instead, one pair per result, on one row per sample.

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
