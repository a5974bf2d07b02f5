"""Reports: many results rendered as a terminal table, Markdown, LaTeX, JSON or CSV.

A :class:`Report` holds one or more display tables (cells already formatted as
``82.02 (81.01, 83.00)`` with a scale and a number of decimals), the provenance of the
numbers (interval method, confidence level, design, ``B``, seed, booteval version) and the
unformatted records (full precision, unscaled) for JSON and CSV. Every output format carries
the provenance. The builders (:func:`ci_report`, :func:`compare_report`,
:func:`leaderboard_report`, :func:`correlation_report`, :func:`power_report`) turn result
objects into reports; :func:`render` writes one as text.

Examples
--------
>>> import booteval
>>> from booteval.report import ci_report, render
>>> r = booteval.ci([1, 0, 1, 1, 0, 1, 1, 1] * 10, n_resamples=1000, seed=0)
>>> print(render(ci_report([("model", r)], scale=100, digits=1), "markdown"))
| system | mean (95% CI) |
| --- | ---: |
| model | 75.0 (64.7, 83.5) |
<BLANKLINE>
95% jeffreys (closed form) intervals; resampled for the distributions only: iid ...
note: method='auto' chose each interval method from the coverage atlas (each result's notes say why)
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .core.format import format_p_value, format_triplet
from .provenance import (
    collapse,
    footer_notes,
    level_text,
    provenance,
    provenance_line,
    unique,
)
from .version import __version__

__all__ = [
    "FORMATS",
    "Report",
    "Table",
    "ci_report",
    "compare_report",
    "correlation_report",
    "leaderboard_report",
    "markdown_table",
    "power_report",
    "print_rich",
    "render",
    "text_table",
]

#: output formats accepted by :func:`render` (``"text"`` is the plain terminal table)
FORMATS = ("text", "markdown", "latex", "json", "csv")


@dataclass
class Table:
    """One display table: a title, column headers, formatted cells and column alignment.

    ``align`` holds ``"l"`` or ``"r"`` per column.
    """

    columns: list[str]
    rows: list[list[str]]
    align: list[str]
    title: str = ""


@dataclass
class Report:
    """Results ready to render: display tables, provenance lines and plain records.

    Attributes
    ----------
    kind : str
        What produced it (``"ci"``, ``"compare"``, ``"leaderboard"``, ``"correlate"``,
        ``"power"``).
    tables : list of Table
        Formatted for reading.
    footer : list of str
        Provenance (method, level, design, B, seed, booteval version) and notes, one per line.
    provenance : dict
        The same provenance as plain data.
    records : list of dict
        Full-precision, unscaled values, one per result (JSON and CSV).
    extra : dict
        Further plain data for JSON (e.g. a leaderboard's pairs).
    """

    kind: str
    tables: list[Table]
    footer: list[str]
    provenance: dict[str, Any]
    records: list[dict[str, Any]]
    extra: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- builders
def ci_report(
    results: Sequence[tuple[Any, Any]], *, scale: float = 1.0, digits: int = 4,
    keys: Sequence[str] = ("system",),
) -> Report:  # fmt: skip
    """A report of ``(system, CIResult)`` pairs: one row per system, one column per metric.

    With several ``keys`` (harness logs: ``("task", "system")``), each system is a tuple of
    that many values, shown in as many first columns and kept in the records.

    Examples
    --------
    >>> import booteval
    >>> y, p = [0, 1, 1, 0, 1] * 20, [0, 1, 0, 0, 1] * 20
    >>> rs = [("m", booteval.ci(y, p, metric=k, n_resamples=500, seed=0))
    ...       for k in ("accuracy", "f1")]
    >>> print(render(ci_report(rs, scale=100, digits=1), "text"))
    system  accuracy (95% CI)  f1 (95% CI)
    m       80.0 (71.4, 86.9)  80.0 (70.8, 87.6)
    <BLANKLINE>
    95% jeffreys (closed form), percentile (bootstrap) intervals; iid bootstrap (100 rows); B = ...
    note: method='auto' chose each interval method from the coverage atlas (each result's notes ...
    """
    if not results:
        raise ValueError("no results to report")
    rs = [r for _, r in results]
    systems = unique([s for s, _ in results])
    wide = len(keys) > 1
    metrics = unique([r.metric for r in rs])
    level = rs[0].confidence_level
    cells = {(s, r.metric): r for s, r in results}
    head = [*keys, *(f"{m} ({level_text(level)} CI)" for m in metrics)]
    rows = [
        [*(s if wide else [s]), *(
            cells[(s, m)].format(scale, digits) if (s, m) in cells else "" for m in metrics
        )]
        for s in systems
    ]  # fmt: skip
    clustered = [r for r in rs if r.n_clusters is not None]
    if clustered:
        head.append("eff. n")
        for row, s in zip(rows, systems, strict=True):
            r = next((x for (sy, _), x in cells.items() if sy == s), None)
            row.append(f"{r.effective_n:.0f}" if r is not None and math.isfinite(r.effective_n)
                       else "")  # fmt: skip
    table = Table(head, rows, ["l"] * len(keys) + ["r"] * (len(head) - len(keys)))
    prov = provenance(rs)
    records = [{**dict(zip(keys, s if wide else [s], strict=True)), **r.to_dict()}
               for s, r in results]  # fmt: skip
    labels = [(", ".join(s) if wide else s, r) for s, r in results]
    footer = [provenance_line(prov), *footer_notes([(f"{s}, {r.metric}", r) for s, r in labels])]
    return Report("ci", [table], footer, prov, records)


def compare_report(
    results: Sequence[Any], *, scale: float = 1.0, digits: int = 4,
    tasks: Sequence[str] | None = None,
) -> Report:  # fmt: skip
    """A report of :class:`~booteval.results.ComparisonResult` objects, one row per metric.

    ``tasks`` (harness logs) names each result's task, in a first column.

    Examples
    --------
    >>> import booteval
    >>> a, b = [1, 0, 1, 1, 0, 1, 0, 1] * 25, [1, 1, 1, 1, 0, 1, 0, 1] * 25
    >>> r = booteval.compare(a, b, names=("old", "new"), n_resamples=1000, seed=0)
    >>> print(render(compare_report([r], scale=100, digits=1), "text"))
    metric  old (95% CI)       new (95% CI)       new - old (95% CI)  p        test
    mean    62.5 (55.7, 69.0)  75.0 (68.7, 80.6)  12.5 (8.6, 17.8)    5.7e-07  tango
    <BLANKLINE>
    95% intervals: systems jeffreys (closed form); differences tango (closed form); resampled ...
    note: method='auto' chose each interval method from the coverage atlas (each result's notes ...
    """
    if not results:
        raise ValueError("no results to report")
    r0 = results[0]
    pct = level_text(r0.confidence_level)
    head = [
        "metric", f"{r0.name_a} ({pct} CI)", f"{r0.name_b} ({pct} CI)",
        f"{r0.name_b} - {r0.name_a} ({pct} CI)", "p", "test",
    ]  # fmt: skip
    rows = [
        [
            r.metric,
            format_triplet(r.estimate_a, *r.interval_a, scale=scale, digits=digits),
            format_triplet(r.estimate_b, *r.interval_b, scale=scale, digits=digits),
            r.format(scale, digits),
            format_p_value(r.p_value),
            r.test if r.alternative == "two-sided" else f"{r.test}, {r.alternative}",
        ]
        for r in results
    ]
    align = ["l", "r", "r", "r", "r", "l"]
    records = [r.to_dict() for r in results]
    if tasks is not None:
        head.insert(0, "task")
        align.insert(0, "l")
        for row, rec, t in zip(rows, records, tasks, strict=True):
            row.insert(0, t)
            rec["task"] = t
    table = Table(head, rows, align)
    prov = provenance(results)
    systems = [x.method for r in results for x in r.details.get("systems", ())]
    if systems:  # each system's interval is booteval.ci's; the difference's its own
        prov["method"] = {
            "systems": collapse(systems),
            "differences": collapse([r.method for r in results]),
        }
    labels = [r.metric if tasks is None else f"{t}, {r.metric}"
              for r, t in zip(results, tasks or [None] * len(results), strict=True)]  # fmt: skip
    footer = [provenance_line(prov), *footer_notes(list(zip(labels, results, strict=True)))]
    return Report("compare", [table], footer, prov, records)


def _joint_tables(board: Any, joint: Any, scale: float, digits: int) -> list[Table]:
    """P(best) and expected rank of each system, and the simultaneous intervals of every
    pair."""
    best, expected = board.p_best, board.expected_rank
    p_rows = [[name, f"{share:.3f}", f"{expected[name]:.2f}"] for name, share in best.items()]
    return [
        Table(["system", "P(best)", "E[rank]"], p_rows, ["l", "r", "r"],
              title="probability of being best, expected rank"),
        Table(*joint.table(scale, digits), ["l", "r", "l"], title=joint.title),
    ]  # fmt: skip


def leaderboard_report(
    board: Any, *, scale: float = 1.0, digits: int = 4, pairs: str | None = None,
    joint: bool = False,
) -> Report:  # fmt: skip
    """A report of a :class:`~booteval.results.LeaderboardResult` (and its pairs, if asked).

    Parameters
    ----------
    board : LeaderboardResult
    scale, digits : as in :meth:`booteval.CIResult.format`
    pairs : {None, "adjacent", "all"}
        Also tabulate the differences between neighbours, or between all pairs.
    joint : bool
        Also tabulate each system's probability of being best and the simultaneous
        (max-T) intervals of all pairs (:meth:`LeaderboardResult.simultaneous`).

    Examples
    --------
    >>> import numpy as np, booteval
    >>> rng = np.random.default_rng(0)
    >>> systems = {k: (rng.random(400) < p).astype(int) for k, p in [("A", .6), ("B", .75)]}
    >>> board = booteval.leaderboard(systems, n_resamples=1000, seed=0)
    >>> print(render(leaderboard_report(board, scale=100, digits=1), "text"))
    rank  system  mean (95% CI)      rank 95%  group
       1  B       75.8 (71.4, 79.8)  1         a
       2  A       56.2 (51.4, 61.1)  2         b
    <BLANKLINE>
    95% intervals: systems jeffreys (closed form); pairs bca (bootstrap); paired iid bootstrap ...
    rank 95%: percentile interval of the rank across resamples (ties share the minimum rank)
    group: systems sharing a letter are not separated (holm-adjusted p >= 0.05)
    note: method='auto' chose each interval method from the coverage atlas (each result's notes ...
    """
    pct = level_text(board.confidence_level)
    head = ["rank", "system", f"{board.metric} ({pct} CI)", f"rank {pct}", "group"]
    rows = [
        [
            str(e.rank), e.name,
            format_triplet(e.estimate, e.low, e.high, scale=scale, digits=digits),
            str(e.rank_low) if e.rank_low == e.rank_high else f"{e.rank_low}-{e.rank_high}",
            e.letters,
        ]
        for e in board.entries
    ]  # fmt: skip
    tables = [Table(head, rows, ["r", "l", "r", "l", "l"])]
    if pairs is not None:
        if pairs not in ("adjacent", "all"):
            raise ValueError(f"pairs: expected 'adjacent', 'all' or None; received {pairs!r}")
        chosen = board.adjacent if pairs == "adjacent" else board.pairs
        prow = [
            [
                p.label, format_triplet(p.difference, p.low, p.high, scale=scale, digits=digits),
                format_p_value(p.p_value), format_p_value(p.p_adjusted),
                "yes" if p.separated else "no",
            ]
            for p in chosen
        ]  # fmt: skip
        phead = ["pair (B - A)", f"difference ({pct} CI)", "p", f"p ({board.correction})",
                 "separated"]  # fmt: skip
        tables.append(Table(phead, prow, ["l", "r", "r", "r", "l"], title="pairwise differences"))
    best, sim = (board.p_best, board.simultaneous()) if joint else (None, None)
    if best is not None:
        tables.extend(_joint_tables(board, sim, scale, digits))
    prov = provenance([board], correction=board.correction)
    if board.system_methods:  # each system's interval is booteval.ci's; the pairs' their own
        prov["method"] = {
            "systems": collapse(list(board.system_methods)),
            "pairs": collapse(list(board.pair_methods)),
        }
    footer = [
        provenance_line(prov, "the ranks"),
        f"rank {pct}: percentile interval of the rank across resamples "
        "(ties share the minimum rank)",
        "group: systems sharing a letter are not separated "
        f"({board.correction}-adjusted p >= {board.alpha:g})",
        *([sim.tied_line] if sim is not None else []),
        *footer_notes([("", board)]),
    ]
    d = board.to_dict()
    extra = {k: v for k, v in d.items() if k != "systems"}
    if best is not None:  # the same figures as the tables, unscaled, for JSON
        extra["p_best"] = best
        extra["expected_rank"] = board.expected_rank
        extra["simultaneous"] = {
            "confidence_level": sim.confidence_level, "critical_value": sim.critical_value,
            "pairs": [dict(p) for p in sim.pairs], "leader": sim.leader,
            "tied_with_leader": list(sim.tied_with_leader),
        }  # fmt: skip
    return Report("leaderboard", tables, footer, prov, d["systems"], extra)


def correlation_report(results: Sequence[Any], *, scale: float = 1.0, digits: int = 2) -> Report:
    """A report of :class:`~booteval.results.CorrelationResult` objects, one row per metric.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.meta import correlate
    >>> rng = np.random.default_rng(1)
    >>> human = rng.normal(size=(8, 20))
    >>> r = correlate(human + rng.normal(size=(8, 20)), human, n_resamples=500, seed=0)
    >>> print(render(correlation_report([r]), "text"))
    metric  pearson system-level (95% CI)  systems  inputs
    metric  0.53 (-0.26, 0.98)             8        20
    <BLANKLINE>
    95% percentile intervals; Boot-Both: 8 systems and 20 inputs resampled, numba engine; B = 500, seed = 0; booteval ...
    population: new systems and new inputs like these
    """  # noqa: E501
    if not results:
        raise ValueError("no results to report")
    r0 = results[0]
    head = ["metric", f"{r0.coefficient} {r0.level}-level ({level_text(r0.confidence_level)} CI)",
            "systems", "inputs"]  # fmt: skip
    rows = [[r.metric, r.format(scale, digits), str(r.n_systems), str(r.n_inputs)]
            for r in results]  # fmt: skip
    prov = provenance(results, level=r0.level, coefficient=r0.coefficient,
                       resample=r0.resample, human=r0.human)  # fmt: skip
    footer = [
        provenance_line(prov),
        f"population: {r0.population}",
        *footer_notes([(r.metric, r) for r in results]),
    ]
    return Report("correlate", [Table(head, rows, ["l", "r", "r", "r"])], footer, prov,
                  [r.to_dict() for r in results])  # fmt: skip


def power_report(analysis: Any, *, scale: float = 1.0, digits: int = 4) -> Report:
    """A report of a :class:`~booteval.results.PowerAnalysis`.

    Examples
    --------
    >>> import booteval
    >>> m = booteval.minimum_detectable_effect(standard_error=0.0076, n=12032, n_clusters=91)
    >>> print(render(power_report(m, scale=100, digits=2), "text"))
    quantity                      value
    minimum detectable effect     2.13
    power                         80 %
    alpha                         0.05 (two-sided)
    rows                          12032
    clusters                      91
    standard error of difference  0.76
    <BLANKLINE>
    MDE at 80 % power, α = 0.05 (two-sided): 2.13 with 12032 rows in 91 clusters
    reference: given standard error; normal approximation; booteval ...
    """
    a = analysis
    label = {"effect": "minimum detectable effect", "power": "effect",
             "sample size": "effect"}[a.solved_for]  # fmt: skip
    rows = [
        [label, f"{a.effect * scale:.{digits}f}"],
        ["power", f"{a.power * 100:.4g} %"],
        ["alpha", f"{a.alpha:g} ({a.alternative})"],
    ]
    if a.n is not None:
        rows.append(["rows", str(a.n)])
    if a.n_clusters is not None:
        rows.append(["clusters", str(a.n_clusters)])
    rows.append(["standard error of difference", f"{a.standard_error * scale:.4g}"])
    if a.correlation is not None:
        rows.append(["correlation of the systems", f"{a.correlation:.3f}"])
    if a.design_effect is not None:
        rows.append(["design effect", f"{a.design_effect:.3g}"])
    prov = {"solved_for": a.solved_for, "source": a.source, "booteval": __version__}
    footer = [
        a.summary(scale, digits),
        f"reference: {a.source}; normal approximation; booteval {prov['booteval']}",
        *(f"note: {n}" for n in a.notes),
    ]
    return Report("power", [Table(["quantity", "value"], rows, ["l", "l"])], footer, prov,
                  [a.to_dict()])  # fmt: skip


# --------------------------------------------------------------------------- rendering
#: integers beyond this lose digits in JavaScript, jq and spreadsheets (2**53 - 1)
_SAFE_INTEGER = 2**53 - 1


def _plain(v: Any) -> Any:
    """JSON-safe plain data: NumPy scalars to Python, non-finite floats to None.

    A seed too large for a double (booteval's fresh seeds are 128-bit) is written a
    second time as text, ``seed_text``, which JavaScript and jq read without rounding.
    """
    if isinstance(v, dict):
        out = {str(k): _plain(x) for k, x in v.items()}
        for key in [k for k in out if k == "seed" or k.endswith("_seed")]:
            text = _big_integers_as_text(out[key])
            if text is not None and f"{key}_text" not in out:
                out[f"{key}_text"] = text
        return out
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, str):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _big_integers_as_text(value: Any) -> Any:
    """``value`` (an int or a list of ints) as text where any exceeds 2**53 - 1, else None."""
    values = value if isinstance(value, list) else [value]
    if not any(isinstance(x, int) and abs(x) > _SAFE_INTEGER for x in values):
        return None
    texts = [str(x) if isinstance(x, int) else x for x in values]
    return texts if isinstance(value, list) else texts[0]


_CONTROL = {ord(c): f"\\x{ord(c):02x}" for c in map(chr, range(32))} | {
    ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"
}  # fmt: skip


def _visible(text: str) -> str:
    """A table cell on one line: line breaks and other control characters shown escaped."""
    return text.translate(_CONTROL)


def _one_line_tables(rep: Report) -> list[Table]:
    """The report's tables with every cell made one line (names may hold line breaks)."""
    return [
        replace(
            t,
            columns=[_visible(c) for c in t.columns],
            rows=[[_visible(c) for c in r] for r in t.rows],
        )
        for t in rep.tables
    ]


def _one_line_footer(rep: Report) -> list[str]:
    return [_visible(line) for line in rep.footer]


#: first characters that make a spreadsheet read a cell as a formula (OWASP's list)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _spreadsheet_safe(value: Any) -> Any:
    """A text cell starting like a formula, prefixed with ``'`` so it stays text (OWASP)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def text_table(columns: list[str], rows: list[list[str]], right: Sequence[int] = ()) -> str:
    """A plain-text table: columns padded to their widest cell, those in ``right``
    right-aligned, two spaces between columns; a cell's line breaks and other control
    characters are shown escaped (``\\n``).

    Examples
    --------
    >>> print(text_table(["system", "acc"], [["a", "0.91"], ["bb", "0.8"]], right=(0,)))
    system  acc
         a  0.91
        bb  0.8
    """
    # every cell on one line: a line break in a name would break the table
    columns = [_visible(str(c)) for c in columns]
    rows = [[_visible(str(c)) for c in r] for r in rows]
    widths = [max(len(r[c]) for r in [columns, *rows]) for c in range(len(columns))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(columns), *(line(r) for r in rows)])


def markdown_table(columns: list[str], rows: list[list[str]], right: Sequence[int] = ()) -> str:
    """A Markdown table (pipes escaped), the columns in ``right`` right-aligned.

    Examples
    --------
    >>> print(markdown_table(["system", "acc"], [["a|b", "0.91"]], right=(1,)))
    | system | acc |
    | --- | ---: |
    | a\\|b | 0.91 |
    """

    def esc(s: str) -> str:
        return _visible(str(s)).replace("|", "\\|")

    return "\n".join([
        "| " + " | ".join(esc(h) for h in columns) + " |",
        "| " + " | ".join("---:" if i in right else "---" for i in range(len(columns))) + " |",
        *("| " + " | ".join(esc(c) for c in r) + " |" for r in rows),
    ])  # fmt: skip


def _text(rep: Report) -> str:
    blocks = []
    for t in _one_line_tables(rep):
        # in plain text only a right-aligned first column is padded on the left
        right = (0,) if t.align and t.align[0] == "r" else ()
        body = text_table(t.columns, t.rows, right)
        blocks.append((t.title + "\n" if t.title else "") + body)
    blocks.append("\n".join(_one_line_footer(rep)))
    return "\n\n".join(blocks)


def _markdown(rep: Report) -> str:
    blocks = []
    for t in _one_line_tables(rep):
        right = [i for i, a in enumerate(t.align) if a == "r"]
        body = markdown_table(t.columns, t.rows, right)
        blocks.append((f"**{t.title}**\n\n" if t.title else "") + body)
    blocks.append("\n".join(_one_line_footer(rep)))
    return "\n\n".join(blocks)


_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "\N{GREEK SMALL LETTER ALPHA}": r"$\alpha$",
}  # fmt: skip


def latex_escape(s: str) -> str:
    """Escape LaTeX's special characters.

    Examples
    --------
    >>> print(latex_escape("f1_macro: 95% (a & b)"))
    f1\\_macro: 95\\% (a \\& b)
    """
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in s)


def _latex(rep: Report) -> str:
    blocks = []
    for t in _one_line_tables(rep):
        k = len(t.columns)
        lines = [
            r"\begin{tabular}{" + "".join(t.align) + "}",
            r"\toprule",
            " & ".join(latex_escape(h) for h in t.columns) + r" \\",
            r"\midrule",
            *(" & ".join(latex_escape(c) for c in r) + r" \\" for r in t.rows),
            r"\bottomrule",
            *(
                rf"\multicolumn{{{k}}}{{l}}{{\footnotesize {latex_escape(f)}}} \\"
                for f in _one_line_footer(rep)
            ),
            r"\end{tabular}",
        ]
        blocks.append(
            (f"% {t.title}\n" if t.title else "")
            + "% needs \\usepackage{booktabs}\n"
            + "\n".join(lines)
        )
    return "\n\n".join(blocks)


def _json(rep: Report) -> str:
    doc = {
        "kind": rep.kind,
        "provenance": rep.provenance,
        "results": rep.records,
        **rep.extra,
        "footer": rep.footer,
    }
    return json.dumps(_plain(doc), indent=2, ensure_ascii=False)


def _csv(rep: Report) -> str:
    keys: list[str] = []
    for rec in rep.records:
        keys.extend(k for k in rec if k not in keys)
    prov_keys = [f"provenance_{k}" for k in ("booteval",) if f"provenance_{k}" not in keys]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*keys, *prov_keys])
    for rec in rep.records:
        row = []
        for k in keys:
            v = _plain(rec.get(k))
            if isinstance(v, list):
                v = "; ".join(map(str, v))
            row.append("" if v is None else _spreadsheet_safe(v))
        w.writerow([*row, rep.provenance["booteval"]])
    return buf.getvalue().rstrip("\n")


def render(report: Report, fmt: str = "text") -> str:
    """The report as text in one of :data:`FORMATS`.

    ``"text"`` and ``"markdown"`` show the formatted tables with the provenance below;
    ``"latex"`` gives booktabs tabulars with the provenance as footnote rows; ``"json"``
    and ``"csv"`` give the full-precision, unscaled records (CSV: one row per result, the
    per-result provenance in its columns and the booteval version in the last).

    Examples
    --------
    >>> import booteval, json
    >>> r = booteval.ci([0.2, 0.4, 0.9, 0.5], n_resamples=200, seed=0)
    >>> doc = json.loads(render(ci_report([("s", r)]), "json"))
    >>> doc["results"][0]["estimate"], doc["provenance"]["seed"]
    (0.5, 0)
    >>> print(render(ci_report([("s", r)]), "csv").splitlines()[0][:40])
    system,metric,estimate,low,high,confiden
    """
    if fmt not in FORMATS:
        raise ValueError(f"format: expected one of {', '.join(FORMATS)}; received {fmt!r}")
    return {"text": _text, "markdown": _markdown, "latex": _latex, "json": _json,
            "csv": _csv}[fmt](report)  # fmt: skip


def print_rich(report: Report, console: Any = None) -> None:
    """Print the report as rich tables (for a terminal), with the provenance below.

    Examples
    --------
    >>> import booteval
    >>> from rich.console import Console
    >>> r = booteval.ci([0.2, 0.4, 0.9, 0.5], n_resamples=200, seed=0)
    >>> console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    >>> print_rich(ci_report([("s", r)], digits=2), console)
    >>> text = console.export_text()
    >>> "B = 200, seed = 0" in text and "system" in text, "booteval" in text
    (True, True)
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable

    console = console or Console()
    for t in _one_line_tables(report):
        rt = RichTable(title=t.title or None, box=box.SIMPLE_HEAD, header_style="bold")
        for name, a in zip(t.columns, t.align, strict=True):
            rt.add_column(name, justify="right" if a == "r" else "left", no_wrap=True)
        for row in t.rows:
            rt.add_row(*row)
        console.print(rt)
    for line in _one_line_footer(report):
        console.print(line, style="dim", highlight=False, markup=False, soft_wrap=True)
