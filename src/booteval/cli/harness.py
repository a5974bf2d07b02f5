"""``ci``, ``compare`` and ``leaderboard`` on harness logs: one answer per (task, score, model).

The logs are split by :func:`booteval.logs.cli.load_harness` into (task, score) parts, items
joined by id across models and runs. Each part is answered by the Python function that
answers the same question, with the same arguments, so that the command line and the API
give the same interval for the same seed:

- one sample per item: :func:`booteval.ci`, :func:`booteval.compare` and
  :func:`booteval.leaderboard` on the items' scores, in the logs' order;
- several samples per item (epochs, repeats): the nested design, items resampled with their
  samples: :func:`booteval.nested_ci` with ``resample="items"`` for one model, and the
  items' mean scores (in the sorted order ``nested_ci`` uses) for a pair or a leaderboard;
- ``--pass-at-k K`` / ``--pass-hat-k K``: :func:`booteval.pass_at_k` and
  :func:`booteval.compare_pass_at_k` (``kind="pass^k"``), the items' unbiased estimates for
  a leaderboard.

The report states the design (the samples per item, the reduction) and the join (items
scored by only some models or runs, which every part leaves out).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from ..core.intervals import STUDENTIZED
from ..core.tables import group_column
from .common import CliError, _api, _design, _emit, _plot, _progress, _run_options


def _check(args: argparse.Namespace, run: Any, metrics: list[Any]) -> None:
    if getattr(args, "human", None):
        raise CliError(f"{run.name}: --human: the judge correction reads a flat table (a judge "
                       "column and a human column filled on the labelled rows), not harness "
                       "logs")  # fmt: skip
    if getattr(args, "y_true", None) or getattr(args, "y_pred", None):
        flag = "--y-true" if args.y_true else "--y-pred"
        raise CliError(f"{run.name}: {flag}: harness logs hold one score per item and model "
                       "(choose it with --score); labels and predictions do not apply")  # fmt: skip
    if [m.name for m in metrics] != ["mean"]:
        raise CliError(f"{run.name}: --metric {metrics[-1].label}: harness logs hold one score "
                       "per item and model, and the metric is their mean (choose the score "
                       "with --score)")  # fmt: skip
    reduced = run.kind != "mean" or any(p.repeats for p in run.parts)
    if reduced and getattr(args, "strata", None):
        raise CliError(f"{run.name}: --strata: with several samples per item the items are "
                       "resampled as clusters (--cluster groups them further); strata do "
                       "not apply")  # fmt: skip


def _item_metric(part: Any, kind: str) -> Any:
    """The metric of a part whose items were reduced: the mean of the items' values, named
    for them, with the bounds the Python functions give it."""
    from ..methods.samples import PerItemMean

    if kind != "mean":
        return PerItemMean(part.label, (0.0, 1.0))
    x = part.rows[part.score].to_numpy(dtype=float)
    return PerItemMean(part.label, (float(x.min()), float(x.max())))


def _reduced(part: Any, kind: str) -> bool:
    return kind != "mean" or part.repeats is not None


def _design_line(run: Any) -> list[str]:
    """What the report must say about the design: the samples per item and the joins."""
    out = []
    for p in run.parts:
        where = f"{p.task}, {p.score}" if len(run.parts) > 1 else p.score
        if p.repeats is not None:
            lo, hi = p.repeats
            many = str(hi) if lo == hi else f"{lo} to {hi}"
            value = ("the mean of its samples" if run.kind == "mean" else
                     f"the unbiased {p.label.split(' ')[0]} of its samples")  # fmt: skip
            out.append(f"design ({where}): {many} samples per item; each item's value is "
                       f"{value}, items resampled with their samples (nested design)")  # fmt: skip
        elif run.kind != "mean":
            out.append(f"design ({where}): each item's value is its {p.label.split(' ')[0]}")
        if p.join:
            out.append(f"join ({where}): {p.join}")
    return out


def _describe(run: Any) -> list[dict[str, Any]]:
    return [
        {"task": p.task, "score": p.score, "label": p.label, "models": list(p.models),
         "items": len(p.frame), "samples_per_item": list(p.repeats) if p.repeats else [1, 1],
         "join": p.join}
        for p in run.parts
    ]  # fmt: skip


def _finish(args: argparse.Namespace, run: Any, report: Any) -> None:
    report.footer[1:1] = _design_line(run)
    report.extra["logs"] = _describe(run)
    _emit(args, report)


def _clusters(args: argparse.Namespace, frame: Any, name: str) -> Any:
    return group_column(frame, args.cluster, name, "--cluster") if args.cluster else None


# ------------------------------------------------------------------------------- ci
def harness_ci(args: argparse.Namespace, run: Any, metrics: list[Any]) -> int:
    """``booteval ci`` on harness logs: one row per (task, model), one column per score."""
    from ..inference.confidence import ci
    from ..methods.pass_at_k import pass_at_k
    from ..methods.samples import nested_ci
    from ..report import ci_report

    _check(args, run, metrics)
    opts = _run_options(args)
    results: list[tuple[tuple[str, str], Any]] = []
    total = sum(len(p.models) for p in run.parts)
    with _progress(args, total, "ci") as step:
        for p in run.parts:
            design = _design(p.frame, args, run.name)
            for model in p.models:
                step(f"{p.task}, {model}")
                what = f"task {p.task!r}, {p.label} of {model!r}"
                if not _reduced(p, run.kind):
                    r = _api(run.name, what, ci, p.frame[model].to_numpy(dtype=float),
                             metric=metrics[0], **opts, **design)  # fmt: skip
                    results.append(((p.task, model), dataclasses.replace(r, metric=p.label)))
                    continue
                rows = p.rows[p.rows["model"] == model]
                cl = _clusters(args, rows, run.name)
                x = rows[p.score].to_numpy(dtype=float)
                if run.kind == "mean":
                    r = _api(run.name, what, nested_ci, x, rows["item"].to_numpy(),
                             clusters=cl, **opts)  # fmt: skip
                else:
                    r = _api(run.name, what, pass_at_k, x.astype(int), rows["item"].to_numpy(),
                             run.k, kind=run.kind, clusters=cl, **opts)  # fmt: skip
                results.append(((p.task, model), dataclasses.replace(r, metric=p.label)))
    labels_of: dict[str, set[str]] = {}
    for (task, _), r in results:
        labels_of.setdefault(task, set()).add(r.metric)
    keys = ("task", "system")
    if len({frozenset(v) for v in labels_of.values()}) > 1:  # tasks scored differently
        keys = ("task", "score", "system")
        results = [((t, r.metric, s), dataclasses.replace(r, metric="value"))
                   for (t, s), r in results]  # fmt: skip
    report = ci_report(results, scale=args.scale, digits=args.digits, keys=keys)
    _finish(args, run, report)
    if args.plot:
        only = [r for _, r in results]
        if len(only) == 1:
            _plot(args, "plot_distribution", only[0], scale=args.scale, digits=args.digits)
        else:
            labels = [_label(run, t, s, r) for (t, s), r in results]
            _plot(args, "plot_forest", only, labels=labels, scale=args.scale, digits=args.digits)
    return 0


def _label(run: Any, task: str, system: str, r: Any) -> str:
    return f"{task}, {system}, {r.metric}" if len(run.parts) > 1 else system


# -------------------------------------------------------------------------- compare
def _pair(args: argparse.Namespace, run: Any) -> tuple[str, str]:
    pairs = set()
    for p in run.parts:
        if args.a or args.b:
            for flag, m in (("--a", args.a), ("--b", args.b)):
                if m is None:
                    raise CliError(f"{run.name}: give both --a and --b (two models of the logs)")
                if m not in p.models:
                    raise CliError(
                        f"{run.name}: model {m!r} ({flag}) not in the logs (task {p.task!r}); "
                        f"expected one of: {', '.join(p.models)}"
                    )
            pairs.add((args.a, args.b))
        elif len(p.models) != 2:
            raise CliError(f"{run.name}: the logs hold {len(p.models)} models "
                           f"({', '.join(p.models)}): choose two with --a and --b")  # fmt: skip
        else:
            pairs.add(tuple(p.models))
    if len(pairs) > 1:
        raise CliError(f"{run.name}: the tasks hold different pairs of models: choose two with "
                       "--a and --b")  # fmt: skip
    return next(iter(pairs))  # type: ignore[return-value]


def harness_compare(args: argparse.Namespace, run: Any, metrics: list[Any]) -> int:
    """``booteval compare`` on harness logs: one row per (task, score) and metric."""
    from ..inference.comparison import compare
    from ..report import compare_report

    _check(args, run, metrics)
    a, b = _pair(args, run)
    need = {"mcnemar": "accuracy", "delong": "roc_auc"}
    if args.test in need:
        raise CliError(f"--test {args.test} needs labels ({need[args.test]}); harness logs hold "
                       "per-item scores: use --test bootstrap, permutation or t")  # fmt: skip
    results, tasks = [], []
    with _progress(args, len(run.parts), "compare") as step:
        for p in run.parts:
            step(f"{p.task}, {p.label}")
            m = _item_metric(p, run.kind) if _reduced(p, run.kind) else metrics[0]
            r = _api(
                run.name, f"task {p.task!r}, {p.label}, {b} - {a}", compare,
                p.frame[a].to_numpy(dtype=float), p.frame[b].to_numpy(dtype=float),
                metric=m, names=(a, b), test=args.test, alternative=args.alternative,
                **_run_options(args), **_design(p.frame, args, run.name),
            )  # fmt: skip
            results.append(dataclasses.replace(r, metric=p.label))
            tasks.append(p.task)
    report = compare_report(results, scale=args.scale, digits=args.digits, tasks=tasks)
    _finish(args, run, report)
    if args.plot:
        if len(results) == 1:
            _plot(args, "plot_distribution", results[0], scale=args.scale, digits=args.digits)
        else:
            labels = [f"{t}, {r.metric}" for t, r in zip(tasks, results, strict=True)]
            _plot(args, "plot_forest", results, labels=labels, scale=args.scale,
                  digits=args.digits)  # fmt: skip
    return 0


# ---------------------------------------------------------------------- leaderboard
def harness_leaderboard(args: argparse.Namespace, run: Any, metric: Any) -> int:
    """``booteval leaderboard`` on harness logs: one leaderboard per (task, score)."""
    from ..inference.leaderboard import leaderboard
    from ..report import leaderboard_report

    _check(args, run, [metric])
    if args.method in STUDENTIZED:
        raise CliError("--method: expected bca, percentile, basic or normal for a leaderboard")
    if (args.plot or args.plot_pairs) and len(run.parts) > 1:
        raise CliError(f"--plot draws one leaderboard; the logs give {len(run.parts)} (task, "
                       "score) parts: choose one with --task and --score")  # fmt: skip
    boards = []
    with _progress(args, len(run.parts), "leaderboard") as step:
        for p in run.parts:
            step(f"{p.task} ({len(p.models)} systems)")
            m = _item_metric(p, run.kind) if _reduced(p, run.kind) else metric
            mapping = {name: p.frame[name].to_numpy(dtype=float) for name in p.models}
            board = _api(
                run.name, f"task {p.task!r}, {p.label}", leaderboard, mapping, metric=m,
                correction=args.correction, **_run_options(args),
                **_design(p.frame, args, run.name),
            )  # fmt: skip
            boards.append((p, dataclasses.replace(board, metric=p.label)))
    reports = [
        leaderboard_report(board, scale=args.scale, digits=args.digits, pairs=args.pairs,
                           joint=args.joint)
        for _, board in boards
    ]  # fmt: skip
    report = reports[0] if len(reports) == 1 else _stack(reports, [p for p, _ in boards])
    _finish(args, run, report)
    if args.plot:
        _plot(args, "plot_leaderboard", boards[0][1], scale=args.scale, digits=args.digits)
    if args.plot_pairs:
        _plot(args, "plot_pairwise", boards[0][1], scale=args.scale, digits=args.digits,
              path=args.plot_pairs)  # fmt: skip
    return 0


def _stack(reports: list[Any], parts: list[Any]) -> Any:
    """Several leaderboards as one report: each table titled by its task and score, one
    footer, the records tagged with their task."""
    from ..report import Report

    tables, footer, records, boards = [], [], [], []
    for rep, p in zip(reports, parts, strict=True):
        head = f"{p.task} ({p.label})"
        for t in rep.tables:
            tables.append(dataclasses.replace(t, title=f"{head}: {t.title}" if t.title else head))
        footer.extend(line for line in rep.footer if line not in footer)
        records.extend({"task": p.task, "score": p.label, **r} for r in rep.records)
        boards.append({"task": p.task, "score": p.label, **rep.extra})
    return Report("leaderboard", tables, footer, reports[0].provenance, records,
                  {"boards": boards})  # fmt: skip
