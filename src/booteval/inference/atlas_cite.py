"""Which coverage-atlas cell a note of ``method="auto"`` cites: the one nearest the case.

A rule of :mod:`booteval.inference.auto_method` holds its evidence as cells separated by
``"; "``, the first naming the metric and every method (``accuracy p = 0.5, n = 1,000,
5 clusters: symmetric bootstrap-t 94.0 %, CR2 92.0 %``), later ones often only what differs
(``p = 0.9, n = 10,000, 30 clusters: 94.5 %, 93.5 %``). Each cell is read back whole (the
metric and the method names filled in from the first cell) with its rows, clusters and
proportion; the note cites the cell nearest the case in rows, clusters (on a log scale) and
proportion, or none when the nearest is more than ten times off in rows or clusters.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["Cell", "cells_of", "nearest_cell"]

_N = re.compile(r"\bn = ([\d,]+)")
_K = re.compile(r"\b(\d+) clusters")
_P = re.compile(r"\bp = (0?\.\d+|1\.0|1)\b")
_RESULT = re.compile(r"(?:([A-Za-z][\w\- ]*?) )?(\d+(?:\.\d+)?) %")
#: a cell more than this factor away in rows or clusters is not cited
FAR = 10.0


@dataclass(frozen=True)
class Cell:
    """One cited atlas cell: its text (whole) and what it was run at."""

    text: str
    n: int | None
    clusters: int | None
    p: float | None


def _numbers(text: str) -> tuple[int | None, int | None, float | None]:
    n = _N.search(text)
    k = _K.search(text)
    p = _P.search(text)
    return (
        int(n.group(1).replace(",", "")) if n else None,
        int(k.group(1)) if k else None,
        float(p.group(1)) if p else None,
    )


def cells_of(evidence: str) -> list[Cell]:
    """The cells of a rule's evidence, each whole; summaries without a size are left out.

    Examples
    --------
    >>> cells = cells_of("accuracy p = 0.5, n = 1,000, 5 clusters: CR2 92.0 %, BCa 76.5 %; "
    ...                  "p = 0.9, n = 10,000, 30 clusters: 93.5 %, 90.3 %")
    >>> cells[1].text
    'accuracy p = 0.9, n = 10,000, 30 clusters: CR2 93.5 %, BCa 90.3 %'
    >>> (cells[1].n, cells[1].clusters, cells[1].p)
    (10000, 30, 0.9)
    """
    chunks = [c.strip() for c in evidence.split("; ") if c.strip()]
    if not chunks:
        return []
    head, _, first_results = chunks[0].partition(": ")
    metric = re.split(r"\b(?:p|n) = ", head)[0].strip().rstrip(",")
    names = [m.group(1) for m in _RESULT.finditer(first_results)]
    out = []
    for i, chunk in enumerate(chunks):
        text = chunk
        where, sep, results = chunk.partition(": ")
        if i and sep:
            found = list(_RESULT.finditer(results))
            if found and all(m.group(1) is None for m in found) and len(found) <= len(names):
                filled = iter(names)
                results = _RESULT.sub(
                    lambda m, it=filled: f"{next(it) or ''} {m.group(2)} %".lstrip(), results
                )
            if metric and re.match(r"(?:p|n) = ", where):
                where = f"{metric} {where}"
            text = f"{where}: {results}"
        if text.endswith(")") and text.count(")") > text.count("("):
            text = text[:-1]  # the close of a parenthesis opened in an earlier cell
        n, k, p = _numbers(where if sep else chunk)
        if n is None:  # a summary over cells, not a cell
            continue
        out.append(Cell(text, n, k, p))
    return out


def nearest_cell(
    evidence: str, n: int, clusters: int | None, p: float | None = None
) -> Cell | None:
    """The cell of ``evidence`` nearest a case of ``n`` rows (``clusters``, a proportion
    ``p``), or ``None`` where none is within a factor of :data:`FAR` in rows and clusters.

    Examples
    --------
    >>> ev = ("accuracy p = 0.5, n = 1,000, 5 clusters: CR2 92.0 %, BCa 76.5 %; "
    ...       "p = 0.9, n = 10,000, 30 clusters: 93.5 %, 90.3 %")
    >>> nearest_cell(ev, 12032, 91).text
    'accuracy p = 0.9, n = 10,000, 30 clusters: CR2 93.5 %, BCa 90.3 %'
    >>> nearest_cell(ev, 200_000, 5000) is None
    True
    """
    best: tuple[float, Cell] | None = None
    for cell in cells_of(evidence):
        far = False
        distance = 0.0
        for have, want in ((cell.n, n), (cell.clusters, clusters)):
            if have is None or want is None:
                continue
            ratio = abs(math.log(max(want, 1) / max(have, 1)))
            far = far or ratio > math.log(FAR)
            distance += ratio
        if p is not None and cell.p is not None:
            distance += 5.0 * abs(p - cell.p)
        if not far and (best is None or distance < best[0]):
            best = (distance, cell)
    return None if best is None else best[1]
