"""lm-evaluation-harness per-sample logs (``--log_samples``).

``lm_eval --output_path OUT --log_samples`` writes, per model, a directory
``OUT/<model_name_sanitized>/`` holding ``results_<date>.json`` (the aggregate metrics,
``"acc,none"`` and so on, with ``model_name`` and the run's ``config``) and one
``samples_<task>_<date>.jsonl`` per task. Each line of a samples file is one document under
one filter: ``doc_id``, ``doc`` (the dataset row), ``target``, ``arguments``, ``resps``,
``filtered_resps``, ``filter``, ``metrics`` (the names of the metric keys on that line),
``doc_hash``, ``prompt_hash``, ``target_hash`` and one key per metric (``"acc": 1.0``).
The Open LLM Leaderboard publishes the same records as Parquet; both are read here.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInputError
from ._common import (
    FileRows,
    LogFormatError,
    PathsLike,
    build_frame,
    check_same_item,
    count,
    flatten,
    pandas,
    read_files,
    read_json,
    read_json_lines,
    task_and_date,
    to_number,
)

__all__ = ["is_lm_eval_samples", "read_lm_eval"]

#: keys of a samples line that are not item metadata
_SKIP = {"doc_id", "doc", "arguments", "resps", "filtered_resps", "filter", "metrics",
         "prompt_hash", "target_hash"}  # fmt: skip


_META = {"target", "doc_hash"}


def is_lm_eval_samples(path: Path) -> bool:
    """Whether ``path`` is named like an lm-eval samples file (``samples_<task>_<date>``)."""
    return path.name.startswith("samples_") and path.suffix in (".jsonl", ".parquet")


def _model_from_results(results: dict[str, Any]) -> str | None:
    name = results.get("model_name")
    if isinstance(name, str) and name:
        return name
    config = results.get("config")
    if isinstance(config, dict):
        args = config.get("model_args")
        if isinstance(args, dict):
            for key in ("peft", "delta", "pretrained", "model", "path", "engine"):
                if args.get(key):
                    return str(args[key])
        elif isinstance(args, str):
            for key in ("peft", "delta", "pretrained", "model", "path", "engine"):
                m = re.search(rf"(?:^|,){key}=([^,]+)", args)
                if m:
                    return m.group(1)
        if isinstance(config.get("model"), str):
            return config["model"]
    return None


def results_file(samples: Path) -> Path | None:
    """The ``results_<date>.json`` written with a samples file, if it is beside it.

    The samples file and its results file share the run's date stamp; without a match the
    one results file of the directory is used.
    """
    _, date = task_and_date(samples, "samples")
    if date:
        exact = samples.with_name(f"results_{date}.json")
        if exact.is_file():
            return exact
    others = sorted(samples.parent.glob("results_*.json"))
    return others[0] if len(others) == 1 else None


def _model_name(path: Path, model: str | None) -> str:
    if model is not None:
        return model
    res = results_file(path)
    if res is not None:
        data = read_json(res)
        if isinstance(data, dict):
            name = _model_from_results(data)
            if name:
                return name
    return path.parent.name


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if path.suffix == ".parquet":
        pd = pandas()
        try:
            df = pd.read_parquet(path)
        except Exception as exc:  # pyarrow's errors are not all OSErrors
            raise LogFormatError(path, f"cannot read it as Parquet: {exc}") from None
        return [(i + 2, rec) for i, rec in enumerate(df.to_dict("records"))]
    return list(read_json_lines(path))


def _file_rows(
    path: Path, model: str, task: str, filt: str | None, notes: dict[tuple, list[int]],
    bad_all: dict[str, str],
) -> FileRows:  # fmt: skip
    bad_metrics: dict[str, str] = {}
    by_filter: dict[str, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for n, rec in _records(path):
        if "doc_id" not in rec:
            raise LogFormatError(path, "missing: expected every line to have a doc_id",
                                 line=n, field="doc_id")  # fmt: skip
        if rec["doc_id"] is None or isinstance(rec["doc_id"], dict | list):
            raise LogFormatError(path, f"expected an id (a number or a text); found "
                                 f"{rec['doc_id']!r:.40}", line=n, field="doc_id")  # fmt: skip
        by_filter[str(rec.get("filter", "none"))].append((n, rec))
    if not by_filter:
        raise LogFormatError(path, "the file has no samples")
    filters = list(by_filter)
    if filt is None or len(filters) == 1:
        chosen = filters[0]
    elif filt in by_filter:
        chosen = filt
    else:
        raise LogFormatError(path, f"filter={filt!r} not found; the file has filters "
                             f"{', '.join(map(repr, filters))}", field="filter")  # fmt: skip
    if len(filters) > 1:
        dropped = tuple(f for f in filters if f != chosen)
        key = (task, chosen, dropped)
        notes.setdefault(key, [0, 0])
        notes[key][0] += sum(len(by_filter[f]) for f in dropped)
        notes[key][1] += 1
    rows: list[dict[str, Any]] = []
    scores: list[str] = []
    seen: dict[str, int] = {}
    for n, rec in by_filter[chosen]:
        key = str(rec["doc_id"])
        if key in seen:
            why = ("the lines name no filter (lm-eval before 0.4.7 logged each filter's lines "
                   "without naming it), so the filters cannot be told apart"
                   if "filter" not in rec else f"under filter {chosen!r}")  # fmt: skip
            raise LogFormatError(path, f"doc_id {key} repeats line {seen[key]}: {why}", line=n,
                                 field="doc_id")  # fmt: skip
        seen[key] = n
        names = rec.get("metrics")
        if names is None:  # lm-eval before 0.4.7 did not list them: the numeric extra keys
            names = [k for k, v in rec.items() if k not in _SKIP and k not in _META
                     and to_number(v) is not None]  # fmt: skip
        if hasattr(names, "tolist"):
            names = names.tolist()
        if not isinstance(names, list) or not all(isinstance(m, str) for m in names):
            raise LogFormatError(path, f"expected a list of metric names; found {names!r:.60}",
                                 line=n, field="metrics")  # fmt: skip
        doc = rec.get("doc", {})
        if hasattr(doc, "tolist"):
            doc = doc.tolist()
        row: dict[str, Any] = {"model": model, "task": task, "item": str(rec["doc_id"]),
                               "sample": 0, "_file": str(path)}  # fmt: skip
        for m in names:
            if m not in rec:
                raise LogFormatError(path, f"missing: the line lists metric {m!r} but has no "
                                     "value for it", line=n, field=m)  # fmt: skip
            value = to_number(rec[m])
            if value is None:
                if m not in bad_metrics and m not in scores:
                    bad_metrics[m] = repr(rec[m])[:40]
                    continue
                if m in scores:
                    raise LogFormatError(path, f"expected a number, as on earlier lines; found "
                                         f"{rec[m]!r:.60}", line=n, field=m)  # fmt: skip
                continue
            if m in bad_metrics:
                raise LogFormatError(
                    path, f"expected a value like {bad_metrics[m]} (as on earlier lines); found "
                    f"the number {rec[m]!r}", line=n, field=m,
                )  # fmt: skip
            if m not in scores:
                scores.append(m)
            row[m] = value
        flatten({"doc": doc} if isinstance(doc, dict) else {"doc": {"text": doc}}, "", row)
        for key, value in rec.items():
            if key not in _SKIP and key not in names:
                flatten(value, key, row)
        row["filter"] = chosen
        rows.append(row)
    for m, v in bad_metrics.items():
        bad_all.setdefault(m, v)
    return rows, scores


def read_lm_eval(
    paths: PathsLike, *, filter: str | None = None, item: str = "doc_id", model: str | None = None
) -> Any:
    """Read lm-evaluation-harness ``samples_<task>_<date>.jsonl`` files into one tidy table.

    Parameters
    ----------
    paths : path, directory, glob, or a list of them
        Samples files (``.jsonl``, or the Open LLM Leaderboard's ``.parquet`` of the same
        records); a directory is searched recursively for ``samples_*`` files, so the
        ``--output_path`` of several runs reads every model at once.
    filter : str, optional
        The filter to keep (``"strict-match"``, ``"flexible-extract"``, ...) where a task
        logs several; a task logged under one filter keeps it. Default: the first in each
        file. The rows of the other filters are counted in the notes.
    item : {"doc_id", "doc_hash"}
        What pairs a document across models. ``doc_id`` (default) is checked against
        ``doc_hash``: models that saw different documents under one id raise an error.
    model : str, optional
        The model's name for every file; default: ``model_name`` (or ``model_args``) of the
        ``results_<date>.json`` beside each samples file, else the directory's name.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``task`` (from the file name), ``item``, ``sample`` (0), one column per
        numeric metric (``acc``, ``exact_match``, ...), then ``doc.*`` (the document,
        flattened), ``doc_hash``, ``target`` and ``filter``. Metrics whose per-sample values
        are not numbers (corpus-level ones such as ``bleu``, logged as ``[reference,
        prediction]``) are left out with a note. ``attrs["notes"]``: what was left out;
        ``attrs["scores"]``: the score columns.

    Raises
    ------
    LogFormatError
        A malformed line (the message names the file, line and field), an unknown filter,
        or one model with the same task twice.

    Examples
    --------
    >>> from pathlib import Path
    >>> import booteval.logs as bl
    >>> logs = Path(bl.__file__).parents[3] / "tests" / "data" / "logs" / "lm_eval"
    >>> df = bl.read_lm_eval(logs)  # doctest: +SKIP
    >>> df[["model", "task", "item", "acc", "doc.subject"]].head(2)  # doctest: +SKIP
    """
    if item not in ("doc_id", "doc_hash"):
        raise InvalidInputError("item", "'doc_id' or 'doc_hash'", repr(item))
    filter_notes: dict[tuple, list[int]] = {}
    bad: dict[str, str] = {}

    def rows_of(path: Path) -> FileRows:
        task, _ = task_and_date(path, "samples")
        return _file_rows(path, _model_name(path, model), task, filter, filter_notes, bad)

    rows, scores = read_files(paths, is_lm_eval_samples, "lm-eval samples_*.jsonl files", rows_of)
    notes = [
        f"lm-eval: task {task!r}: kept filter {kept!r}; {count(n)} rows of filter"
        f"{'s' if len(dropped) > 1 else ''} {', '.join(map(repr, dropped))} left out "
        f"({k} file{'s' if k > 1 else ''}; choose with filter=)"
        for (task, kept, dropped), (n, k) in filter_notes.items()
    ]
    notes += [
        f"lm-eval: metric {m!r} left out: its per-sample values are not numbers (e.g. {v}); "
        "it is aggregated over the whole corpus, not averaged over items"
        for m, v in bad.items()
    ]
    if item == "doc_hash":
        for r in rows:
            if "doc_hash" not in r:
                raise LogFormatError(r["_file"], "missing: item='doc_hash' needs it on every line",
                                     field="doc_hash")  # fmt: skip
            r["doc_id"], r["item"] = r["item"], str(r["doc_hash"])
    df = build_frame(rows, scores, notes, "lm-eval")
    if item == "doc_id":
        hint = "Pair by content with item='doc_hash', or check the runs' datasets."
        check_same_item(df, "doc_hash", "lm-eval", hint)
    return df
