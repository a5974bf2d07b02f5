"""HELM per-instance statistics (``per_instance_stats.json``).

``helm-run`` writes one directory per run, ``benchmark_output/runs/<suite>/<run name>/``,
named like ``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2``. It holds
``run_spec.json`` (``name``, ``scenario_spec.args``, ``adapter_spec.model``), ``stats.json``
(the aggregate statistics) and ``per_instance_stats.json``: a list of ``{"instance_id",
"train_trial_index", "perturbation" (optional), "stats": [...]}``, each stat with a
``name`` (``{"name": "exact_match", "split": "test", "sub_split"?, "perturbation"?}``) and
``count``, ``sum``, ``mean``, ... over that instance.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ._common import (
    LogFormatError,
    PathsLike,
    build_frame,
    count,
    expand_paths,
    flatten,
    read_json,
    to_number,
)

__all__ = ["is_helm_stats", "read_helm"]


def is_helm_stats(path: Path) -> bool:
    """Whether ``path`` is a HELM ``per_instance_stats.json``."""
    return path.name == "per_instance_stats.json"


def _run_info(path: Path) -> tuple[str, str, dict[str, Any]]:
    """``(model, task, scenario args)`` from ``run_spec.json`` or the directory's name."""
    spec_path = path.with_name("run_spec.json")
    name, model, args = path.parent.name, None, {}
    if spec_path.is_file():
        spec = read_json(spec_path)
        if isinstance(spec, dict):
            name = str(spec.get("name", name))
            adapter = spec.get("adapter_spec") or {}
            model = adapter.get("model") if isinstance(adapter, dict) else None
            scen = spec.get("scenario_spec") or {}
            args = scen.get("args") or {} if isinstance(scen, dict) else {}
    scenario, _, rest = name.partition(":")
    parts = [p for p in rest.split(",") if p] if rest else []
    kept = [p for p in parts if not re.match(r"^(model|model_deployment)=", p)]
    if model is None:
        found = [p.split("=", 1)[1] for p in parts if p.startswith("model=")]
        model = found[0] if found else path.parent.name
    if not args:
        args = dict(p.split("=", 1) for p in kept if "=" in p)
    task = scenario + (":" + ",".join(kept) if kept else "")
    return str(model), task, args


#: per-instance statistics that score a run (HELM's correctness metrics), preferred over
#: counts (tokens, references, trials) when the run spec names none
_CORRECTNESS = ("exact_match", "quasi_exact_match", "prefix_exact_match",
                "quasi_prefix_exact_match", "f1_score", "rouge_l", "bleu_4")  # fmt: skip


def _spec_metrics(path: Path) -> list[str]:
    """The metric names a run's ``run_spec.json`` asks for (``metric_specs[].args.names``)."""
    spec_path = path.with_name("run_spec.json")
    if not spec_path.is_file():
        return []
    spec = read_json(spec_path)
    names: list[str] = []
    for m in (spec.get("metric_specs") or []) if isinstance(spec, dict) else []:
        listed = (m.get("args") or {}).get("names") if isinstance(m, dict) else None
        names.extend(str(n) for n in listed or [] if isinstance(n, str))
    return names


def _scores_first(scores: list[str], preferred: list[str]) -> list[str]:
    """The scores with the run's own metrics first, then HELM's correctness statistics,
    then the rest (counts) in the order found: the first is what a reader takes by default.

    Examples
    --------
    >>> _scores_first(["num_references", "num_prompt_tokens", "exact_match"], [])
    ['exact_match', 'num_references', 'num_prompt_tokens']
    """
    rank: dict[str, int] = {}
    for n in [*preferred, *_CORRECTNESS]:
        rank.setdefault(n, len(rank))
    return sorted(scores, key=lambda c: (rank.get(c.split(":")[0], len(rank)), scores.index(c)))


def _pert_name(p: Any) -> str | None:
    if isinstance(p, dict):
        return str(p.get("name")) if p.get("name") is not None else None
    return None


def read_helm(
    paths: PathsLike, *, split: str | None = None, perturbation: str | None = None
) -> Any:
    """Read HELM ``per_instance_stats.json`` files into one tidy table.

    Parameters
    ----------
    paths : path, directory, glob, or a list of them
        ``per_instance_stats.json`` files, or run directories (searched recursively, so
        ``benchmark_output/runs/<suite>`` reads every run).
    split : str, optional
        Keep only instances of this split (``"test"``, ``"valid"``); default: all, with the
        split in the ``split`` column.
    perturbation : str, optional
        Keep the instances under this perturbation (``"typo"``, ``"dialect"``, ...) instead
        of the unperturbed ones (the default). Rows left out are counted in the notes.

    Returns
    -------
    pandas.DataFrame
        ``model`` (``adapter_spec.model`` of ``run_spec.json``, else ``model=`` of the run
        name), ``task`` (the run name without its model, e.g.
        ``mmlu:subject=anatomy,method=multiple_choice_joint``), ``item`` (``instance_id``),
        ``sample`` (``train_trial_index``), one column per statistic (its per-instance
        ``mean``; a sub-split gives ``name:sub_split``), ``split``, ``perturbation`` and
        ``run.*`` (the scenario's arguments, e.g. ``run.subject``).

    Raises
    ------
    LogFormatError
        A malformed file, naming the file, the entry and the field.

    Examples
    --------
    >>> import booteval.logs as bl
    >>> df = bl.read_helm("benchmark_output/runs/v1")  # doctest: +SKIP
    """
    files, _ = expand_paths(paths, is_helm_stats, "HELM per_instance_stats.json files")
    rows: list[dict[str, Any]] = []
    scores: list[str] = []
    left_pert: dict[str, int] = {}
    left_split: dict[str, int] = {}
    preferred: list[str] = []
    for path in files:
        preferred += [n for n in _spec_metrics(path) if n not in preferred]
        data = read_json(path)
        if not isinstance(data, list):
            raise LogFormatError(path, "expected a list of per-instance entries")
        model, task, args = _run_info(path)
        for i, entry in enumerate(data):
            where = f"entry {i}"
            if not isinstance(entry, dict):
                raise LogFormatError(path, "expected an object", line=where)
            for key in ("instance_id", "stats"):
                if key not in entry:
                    raise LogFormatError(path, "missing from the entry", line=where, field=key)
            stats = entry["stats"]
            if not isinstance(stats, list):
                raise LogFormatError(path, "expected a list of statistics", line=where,
                                     field="stats")  # fmt: skip
            trial = to_number(entry.get("train_trial_index", 0))
            if trial is None or not math.isfinite(trial) or trial != int(trial) or trial < 0:
                raise LogFormatError(path, f"expected an integer; found "
                                     f"{entry.get('train_trial_index')!r}", line=where,
                                     field="train_trial_index")  # fmt: skip
            pert = _pert_name(entry.get("perturbation"))
            row: dict[str, Any] = {"model": model, "task": task,
                                   "item": str(entry["instance_id"]), "sample": int(trial),
                                   "_file": str(path)}  # fmt: skip
            splits = set()
            for j, stat in enumerate(stats):
                name = stat.get("name") if isinstance(stat, dict) else None
                if not isinstance(name, dict) or "name" not in name:
                    raise LogFormatError(path, "expected a statistic with a name object",
                                         line=where, field=f"stats[{j}].name")  # fmt: skip
                pert = pert or _pert_name(name.get("perturbation"))
                if name.get("split") is not None:
                    splits.add(str(name["split"]))
                col = str(name["name"])
                if name.get("sub_split") is not None:
                    col += f":{name['sub_split']}"
                value = stat.get("mean")
                if value is None and to_number(stat.get("count")):
                    total = to_number(stat.get("sum", 0))
                    if total is None:
                        raise LogFormatError(path, f"expected a number; found "
                                             f"{stat.get('sum')!r:.40}", line=where,
                                             field=f"stats[{j}].sum")  # fmt: skip
                    value = total / to_number(stat["count"])
                num = to_number(value)
                if value is not None and num is None:
                    raise LogFormatError(path, f"expected a number; found {value!r:.40}",
                                         line=where, field=f"stats[{j}].mean")  # fmt: skip
                row[col] = float("nan") if num is None else num
                if col not in scores:
                    scores.append(col)
            row["split"] = ",".join(sorted(splits)) if splits else None
            row["perturbation"] = pert
            if pert != perturbation:
                label = pert or "(none)"
                left_pert[label] = left_pert.get(label, 0) + 1
                continue
            if split is not None and row["split"] != split:
                label = row["split"] or "(none)"
                left_split[label] = left_split.get(label, 0) + 1
                continue
            flatten({k: v for k, v in args.items()}, "run", row)
            rows.append(row)
    notes = []
    if left_pert:
        kept = "unperturbed instances" if perturbation is None else f"perturbation {perturbation!r}"
        shown = ", ".join(f"{k}: {count(v)}" for k, v in left_pert.items())
        notes.append(f"helm: kept {kept}; {count(sum(left_pert.values()))} rows of other "
                     f"perturbations left out ({shown}; choose with perturbation=)")  # fmt: skip
    if left_split:
        shown = ", ".join(f"{k}: {count(v)}" for k, v in left_split.items())
        notes.append(f"helm: kept split {split!r}; {count(sum(left_split.values()))} rows of "
                     f"other splits left out ({shown})")  # fmt: skip
    if not rows:
        raise LogFormatError(", ".join(map(str, files)), "no instance left after choosing "
                             f"split={split!r}, perturbation={perturbation!r}")  # fmt: skip
    return build_frame(rows, _scores_first(scores, preferred), notes, "helm")
