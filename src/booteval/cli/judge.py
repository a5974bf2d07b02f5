"""``ci --human COL`` and ``compare --human COL --human COL``: judge scores corrected with
human labels on a subset of the rows (prediction-powered inference, PPI++).

A row with a human label is *labelled*; a row whose human column is empty has the judge's
score only. The numbers are those of :func:`booteval.judge_corrected_ci` and
:func:`booteval.judge_corrected_compare` on the same columns, for the same seed.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..core.format import format_p_value, format_triplet
from ..core.tables import group_column, numeric_column, select
from .common import CliError, _api, _emit, _progress

#: --method of ci/compare -> judge_corrected_ci's method
_METHODS = {"auto": "auto", "normal": "clt", "percentile": "bootstrap"}


def _method(args: argparse.Namespace) -> str:
    if args.method not in _METHODS:
        raise CliError(f"--method {args.method}: with --human the interval is PPI++'s: auto "
                       "(default), normal (its normal interval) or percentile (its "
                       "bootstrap)")  # fmt: skip
    return _METHODS[args.method]


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"method": _method(args), "confidence_level": args.confidence,
            "n_resamples": args.n_resamples, "seed": args.seed}  # fmt: skip


def _split(df: Any, args: argparse.Namespace, file: str, humans: list[str]) -> tuple[Any, Any]:
    """Masks of the labelled rows (every human column filled) and of the others (none)."""
    filled = np.column_stack([numeric_column(df, h, file, "--human", allow_nan=True)
                              for h in humans])  # fmt: skip
    has = ~np.isnan(filled)
    labelled, unlabelled = has.all(axis=1), ~has.any(axis=1)
    partial = ~(labelled | unlabelled)
    if partial.any():
        row = int(np.flatnonzero(partial)[0])
        raise CliError(f"{file}: --human: a row is labelled for both systems or for neither; "
                       f"{int(partial.sum())} rows have one label, e.g. row {row + 1}")  # fmt: skip
    if labelled.sum() < 2:
        raise CliError(f"{file}: --human {humans[0]}: expected human labels on at least 2 rows "
                       f"(the labelled subset) and empty cells elsewhere; found "
                       f"{int(labelled.sum())}")  # fmt: skip
    if not unlabelled.any():
        raise CliError(f"{file}: --human {humans[0]}: every row is labelled, so there is nothing "
                       "for the judge to add: use ci/compare without --human")  # fmt: skip
    return labelled, unlabelled


def _clusters(df: Any, args: argparse.Namespace, file: str, lab: Any, unl: Any) -> dict:
    if not args.cluster:
        return {}
    c = group_column(df, args.cluster, file, "--cluster")
    return {"clusters": c[lab], "clusters_unlabelled": c[unl]}


def _judge(df: Any, col: str, file: str) -> np.ndarray:
    return numeric_column(df, col, file, "--score")


def _footer(results: list[Any]) -> list[str]:
    from ..version import __version__

    r0 = results[0]
    methods = sorted({r.method for r in results})
    lam = "power-tuned lambda" if all(r.lam_tuned for r in results) else "lambda as given"
    line = (
        f"{r0.confidence_level * 100:g}% PPI++ intervals ({', '.join(methods)}), {lam}: "
        "judge scores on every row, corrected by the human labels of the labelled ones"
    )
    boot = [r for r in results if r.n_resamples]
    if boot:
        line += f"; B = {boot[0].n_resamples}, seed = {boot[0].seed}"
    out = [line + f"; booteval {__version__}"]
    out.append("human only: the same interval from the human labels alone; eff. n: the human "
               "labels that alone would be as precise")  # fmt: skip
    seen: list[str] = []
    for r in results:
        for note in r.notes:
            if note not in seen:
                seen.append(note)
    return out + [f"note: {n}" for n in seen]


def _provenance(results: list[Any]) -> dict[str, Any]:
    from ..version import __version__

    r0 = results[0]
    return {"method": sorted({r.method for r in results}),
            "confidence_level": r0.confidence_level, "n_resamples": r0.n_resamples,
            "seed": r0.seed, "booteval": __version__}  # fmt: skip


def judge_ci(args: argparse.Namespace, df: Any, file: str) -> int:
    """``booteval ci FILE --score JUDGE --human HUMAN``: one row per system."""
    from ..inference.judge import judge_corrected_ci
    from ..report import Report, Table

    humans = list(args.human)
    if args.system:
        if len(args.score or []) != 1 or len(humans) != 1:
            raise CliError(f"{file}: with --system give one --score (the judge) and one --human")
        sys_col = group_column(df, args.system, file, "--system")
        names = list(dict.fromkeys(sys_col.tolist()))
        groups = [(str(n), df[sys_col == n].reset_index(drop=True), args.score[0], humans[0])
                  for n in names]  # fmt: skip
    else:
        judges = select(df, args.score or [], file, "--score", tuple(humans))
        if not judges:
            raise CliError(f"{file}: name the judge's score column(s) with --score")
        if len(humans) == 1 and len(judges) > 1:
            raise CliError(f"{file}: {len(judges)} --score columns and one --human: give one "
                           "--human column per system, in the same order")  # fmt: skip
        if len(humans) != len(judges):
            raise CliError(f"{file}: --score and --human pair up by position; received "
                           f"{len(judges)} --score and {len(humans)} --human")  # fmt: skip
        groups = [(j, df, j, h) for j, h in zip(judges, humans, strict=True)]
    results = []
    with _progress(args, len(groups), "judge-corrected ci") as step:
        for name, sub, judge, human in groups:
            step(name)
            lab, unl = _split(sub, args, file, [human])
            x = _judge(sub, judge, file)
            y = numeric_column(sub, human, file, "--human", allow_nan=True)
            r = _api(file, f"{judge} corrected by {human}", judge_corrected_ci, y[lab], x[lab],
                     x[unl], **_options(args), **_clusters(sub, args, file, lab, unl))  # fmt: skip
            results.append((name, r))
    s, d = args.scale, args.digits
    pct = f"{results[0][1].confidence_level * 100:g}%"
    head = ["system", f"judge-corrected ({pct} CI)", f"human only ({pct} CI)", "judge only",
            "lambda", "labelled", "unlabelled", "eff. n"]  # fmt: skip
    rows = [
        [name, r.format(s, d), format_triplet(r.human_estimate, r.human_low, r.human_high,
                                              scale=s, digits=d),
         f"{r.judge_mean * s:.{d}f}", f"{r.lam:.3g}", str(r.n_labelled), str(r.n_unlabelled),
         f"{r.effective_n:.0f}"]
        for name, r in results
    ]  # fmt: skip
    table = Table(head, rows, ["l", "r", "r", "r", "r", "r", "r", "r"])
    only = [r for _, r in results]
    records = [{"system": name, **r.to_dict()} for name, r in results]
    _emit(args, Report("ci", [table], _footer(only), _provenance(only), records))
    return 0


def judge_compare(args: argparse.Namespace, df: Any, file: str) -> int:
    """``booteval compare FILE --a JUDGE_A --b JUDGE_B --human HUMAN_A --human HUMAN_B``."""
    from ..inference.judge import judge_corrected_compare
    from ..report import Report, Table

    if args.system:
        raise CliError(f"{file}: --human with compare reads a wide file: --a and --b the two "
                       "systems' judge scores, --human twice their human labels")  # fmt: skip
    humans = list(args.human)
    if args.a or args.b:
        if not (args.a and args.b):
            raise CliError(f"{file}: give both --a and --b (the two systems' judge scores)")
        cols = [args.a, args.b]
    else:
        cols = select(df, args.score or [], file, "--score", tuple(humans))
    if len(cols) != 2 or len(humans) != 2:
        raise CliError(f"{file}: compare --human needs two judge columns (--a/--b or two "
                       f"--score) and two --human columns (A's, then B's); received "
                       f"{len(cols)} and {len(humans)}")  # fmt: skip
    lab, unl = _split(df, args, file, humans)
    xa, xb = (_judge(df, c, file) for c in cols)
    ya, yb = (numeric_column(df, h, file, "--human", allow_nan=True) for h in humans)
    with _progress(args, 1, "judge-corrected compare") as step:
        step()
        r = _api(file, f"{cols[1]} - {cols[0]} corrected by {humans[1]}, {humans[0]}",
                 judge_corrected_compare, ya[lab], yb[lab], xa[lab], xb[lab], xa[unl], xb[unl],
                 names=tuple(cols), alternative=args.alternative, **_options(args),
                 **_clusters(df, args, file, lab, unl))  # fmt: skip
    s, d = args.scale, args.digits
    pct = f"{r.confidence_level * 100:g}%"
    head = [f"{r.name_a}", f"{r.name_b}", f"{r.name_b} - {r.name_a} ({pct} CI)", "p",
            f"human only ({pct} CI)", "lambda", "labelled", "unlabelled", "eff. n"]  # fmt: skip
    human = format_triplet(r.human_estimate, r.human_low, r.human_high, scale=s, digits=d)
    row = [f"{r.estimate_a * s:.{d}f}", f"{r.estimate_b * s:.{d}f}", r.format(s, d),
           format_p_value(r.p_value), human, f"{r.lam:.3g}", str(r.n_labelled),
           str(r.n_unlabelled), f"{r.effective_n:.0f}"]  # fmt: skip
    table = Table(head, [row], ["r"] * len(head))
    rec = {**r.to_dict(), "name_a": r.name_a, "name_b": r.name_b, "estimate_a": r.estimate_a,
           "estimate_b": r.estimate_b, "p_value": r.p_value}  # fmt: skip
    _emit(args, Report("compare", [table], _footer([r]), _provenance([r]), [rec]))
    return 0
