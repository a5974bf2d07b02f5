"""Forest and pairwise plots: many intervals on one axis; a leaderboard's pairwise differences."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import InvalidInputError
from ..inference.leaderboard import LeaderboardResult
from ..provenance import methods_text
from ..results import Difference, Result
from .common import (
    _DASH,
    _EST_COLOR,
    _MINUS,
    _MUTED,
    _REF_COLOR,
    _SUPPORTED,
    _axes,
    _check_path,
    _is_collection,
    _is_interval,
    _label,
    _matplotlib,
    _num,
    _provenance,
    _save,
    _scaled,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


# ------------------------------------------------------------------ forest
@dataclass(frozen=True)
class _Row:
    label: str
    estimate: float
    low: float
    high: float
    extra: str = ""
    highlight: bool = True


def _rows_of(
    results: Any, labels: Sequence[str] | None, ranks: bool
) -> tuple[list[_Row], Any, str | None]:
    """Rows to draw, the result carrying the provenance, and the x reference."""
    if _is_collection(results):
        lb = results
        rows = [
            _Row(
                e.name, e.estimate, e.low, e.high,
                extra=(f"rank {e.rank_low}" if e.rank_low == e.rank_high
                       else f"rank {e.rank_low}{_DASH}{e.rank_high}") + f"  {e.letters}"
                if ranks else "",
                highlight=e.in_top_group,
            )
            for e in lb.entries
        ]  # fmt: skip
        if labels is not None:
            if len(labels) != len(rows):
                raise InvalidInputError(
                    "labels", f"{len(rows)} labels (one per system)", f"{len(labels)} labels"
                )
            rows = [_Row(str(lab), *_r_fields(r)) for lab, r in zip(labels, rows, strict=True)]
        return rows, lb, None
    if isinstance(results, Mapping):
        if labels is not None:
            raise InvalidInputError(
                "labels", "None when results is a mapping (its keys are the labels)", "labels"
            )
        labels = [str(k) for k in results]
        items = list(results.values())
    elif isinstance(results, Result):
        items = [results]
    elif isinstance(results, str | bytes) or not isinstance(results, Sequence):
        raise InvalidInputError(
            "results", f"a list of results, a mapping, or a {_SUPPORTED}", type(results).__name__
        )
    else:
        items = list(results)
    if not items:
        raise InvalidInputError("results", "at least one result", "an empty collection")
    for i, r in enumerate(items):
        if not _is_interval(r):
            raise InvalidInputError(
                "results",
                "results with an interval (CIResult, ComparisonResult, ...)",
                f"a {type(r).__name__} at position {i}",
                "Pass a LeaderboardResult on its own, not inside a list.",
            )
    if labels is None:
        labels = [_label(r) for r in items]
    elif len(labels) != len(items):
        raise InvalidInputError(
            "labels", f"{len(items)} labels (one per result)", f"{len(labels)} labels"
        )
    rows = [_Row(str(lab), r.estimate, r.low, r.high) for lab, r in zip(labels, items, strict=True)]
    ref = "0" if any(r.reference is not None for r in items) else None
    return rows, items, ref


def _r_fields(r: _Row) -> tuple[float, float, float, str, bool]:
    return r.estimate, r.low, r.high, r.extra, r.highlight


def _common(items: list[Any], attr: str) -> Any:
    vals = {getattr(r, attr, None) for r in items}
    return vals.pop() if len(vals) == 1 else None


def plot_forest(
    results: Any, labels: Sequence[str] | None = None, path: str | Path | None = None,
    ax: Axes | None = None, *, scale: float = 1.0, digits: int | None = None, ranks: bool = True,
    values: bool = True, reference: float | None = None, title: str | None = None,
    xlabel: str | None = None, figsize: tuple[float, float] | None = None, dpi: float = 100,
) -> Figure:  # fmt: skip
    """Forest plot: one row per system or metric, its estimate and interval.

    Parameters
    ----------
    results : list of results, mapping of label to result, or LeaderboardResult
        :class:`~booteval.CIResult`, :class:`~booteval.results.ComparisonResult` (the
        difference ``B - A``) or :class:`~booteval.results.CorrelationResult` items, drawn
        top to bottom in the order given; or a
        :class:`~booteval.results.LeaderboardResult`, drawn in rank order, the top group
        (systems not separated from the leader) in colour and the others grey.
    labels : sequence of str, optional
        One per row (default: the metric, ``B - A``, ``metric vs human``, or the
        system names of a leaderboard).
    path, ax, scale : optional
        As in :func:`~booteval.plot.plot_distribution`.
    digits : int, optional
        Decimals of the numbers printed on the right (default: four significant figures).
    ranks : bool
        For a leaderboard, print each system's rank interval and letters on the right.
    values : bool
        Print ``estimate (low, high)`` on the right of each row.
    reference : float, optional
        Draw a vertical reference line there (in scaled units); by default at 0
        when there are comparisons or correlations.
    title, xlabel : str, optional
        Override the title's first line and the x-axis label.
    figsize : (float, float), optional
        Default: 7.5 inches wide, 0.32 inch per row plus room for the title.
    dpi : float

    Returns
    -------
    matplotlib.figure.Figure
        The forest plot: one row per result, with its interval and estimate.

    Examples
    --------
    >>> import booteval
    >>> from booteval.plot import plot_forest
    >>> a = booteval.ci([1, 0, 1, 1, 0, 1, 1, 1], n_resamples=500, seed=0)
    >>> b = booteval.ci([1, 0, 0, 1, 0, 1, 0, 1], n_resamples=500, seed=0)
    >>> fig = plot_forest({"system A": a, "system B": b}, scale=100, digits=1)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['system A', 'system B']
    >>> [t.get_text() for t in fig.axes[1].get_yticklabels()]
    ['75.0 (40.8, 94.4)', '50.0 (19.9, 80.1)']
    """
    target = _check_path(path)
    rows, source, ref = _rows_of(results, labels, ranks)
    k = len(rows)
    if figsize is None:
        figsize = (7.5, 1.3 + 0.32 * k)
    fig, ax = _axes(ax, figsize, dpi)
    y = np.arange(k)[::-1]
    est = np.array([r.estimate for r in rows]) * scale
    low = np.array([r.low for r in rows]) * scale
    high = np.array([r.high for r in rows]) * scale
    colours = [_EST_COLOR if r.highlight else _MUTED for r in rows]
    ax.hlines(y, low, high, colors=colours, lw=2)
    ax.scatter(est, y, color=colours, s=28, zorder=3)
    if reference is None and ref is not None:
        reference = 0.0
    if reference is not None:
        ax.axvline(reference, color=_REF_COLOR, ls=":", lw=1.2)
    ax.set_yticks(y, [r.label for r in rows])
    ax.set_ylim(-0.7, k - 0.3)
    ax.grid(axis="x", color="#e0e0e0", lw=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)

    if _is_collection(source):
        lb = source
        pct = f"{lb.confidence_level * 100:g}%"
        head = title if title is not None else f"{lb.metric}: {k} systems, best first"
        prov = _provenance(lb)
        if any(not r.highlight for r in rows):
            prov += f"\nblue: top group (not separated from the leader, {lb.correction}-adjusted p)"
        if ranks:
            prov += "\nright: rank interval; systems sharing a letter are not separated"
        axis_label = xlabel if xlabel is not None else _scaled(f"{lb.metric} ({pct} CI)", scale)
    else:
        items = source
        metrics = {getattr(r, "metric", None) for r in items}
        if title is not None:
            head = title
        elif metrics == {None} and all(isinstance(r, Difference) for r in items):
            head = "differences"
        elif len(metrics) == 1 and not hasattr(items[0], "coefficient"):
            head = str(metrics.pop())
            if all(isinstance(r, Difference) for r in items):
                head = f"differences in {head}"
        else:
            head = ""
        level, method = _common(items, "confidence_level"), _common(items, "method")
        b, seed, design = (_common(items, "n_resamples"), _common(items, "seed"),
                           _common(items, "design"))  # fmt: skip
        parts = [
            f"{level * 100:g}% " if level is not None else "",
            f"{method} intervals" if method is not None else "intervals (methods differ)",
        ]
        prov = "".join(parts)
        if b:
            prov += f" · B = {b}"
        if seed is not None and b:
            prov += f" · seed {seed}"
        if design:
            prov += f"\n{design}"
        axis_label = xlabel if xlabel is not None else _scaled("estimate and interval", scale)
    ax.set_xlabel(axis_label)
    ax.set_title(f"{head}\n{prov}" if head else prov, fontsize=9)

    if values or any(r.extra for r in rows):
        right = ax.twinx()
        right.set_ylim(ax.get_ylim())
        texts = []
        for r, e, lo, hi in zip(rows, est, low, high, strict=True):
            parts = []
            if values:
                parts.append(f"{_num(e, digits)} ({_num(lo, digits)}, {_num(hi, digits)})")
            if r.extra:
                parts.append(r.extra)
            texts.append("   ".join(parts))
        right.set_yticks(y, texts, fontsize=8, family="monospace")
        right.tick_params(axis="y", length=0)
        for side in ("top", "right", "left"):
            right.spines[side].set_visible(False)
        right.spines["bottom"].set_visible(False)
    return _save(fig, target)


# ---------------------------------------------------------------- pairwise
def _leaderboard(result: Any) -> LeaderboardResult:
    """``result``, checked to be a leaderboard of at least two systems."""
    if not isinstance(result, LeaderboardResult):
        raise InvalidInputError(
            "leaderboard_result",
            "a LeaderboardResult (from booteval.leaderboard)",
            type(result).__name__,
        )
    k = len(result.entries)
    if k < 2:
        raise InvalidInputError("leaderboard_result", "at least two systems", f"{k} system")
    return result


def plot_pairwise(
    leaderboard_result: LeaderboardResult, path: str | Path | None = None, ax: Axes | None = None,
    *, scale: float = 1.0, digits: int | None = None, annotate: bool | None = None,
    cmap: str = "RdBu", title: str | None = None, figsize: tuple[float, float] | None = None,
    dpi: float = 100,
) -> Figure:  # fmt: skip
    """Heat map of all pairwise differences of a leaderboard (row minus column).

    Rows and columns follow the leaderboard order (best first). The cell in
    row ``i`` and column ``j`` holds ``estimate_i - estimate_j``: the difference
    ``B - A`` with ``B`` the row's system. Cells of pairs that the adjusted
    pairwise test separates (``p_adjusted < alpha``) are marked with ``*``
    (or a dot, when the cells are not annotated).

    Parameters
    ----------
    leaderboard_result : LeaderboardResult
    path, ax : optional
        Save the figure at ``path`` (``.png``, ``.pdf`` or ``.svg``); draw into the
        matplotlib axes ``ax`` instead of a new figure.
    scale : float
        Multiply every value (e.g. 100 for percentage points).
    digits : int, optional
        Decimals of the cell numbers (default: two significant figures' worth,
        from the largest difference).
    annotate : bool, optional
        Print the difference in each cell (default: with at most 12 systems).
    cmap : str
        A diverging colormap, centred at 0.
    title : str, optional
        The title's first line.
    figsize : (float, float), optional
        Default: grows with the number of systems.
    dpi : float

    Returns
    -------
    matplotlib.figure.Figure
        The heat map of the pairwise differences, with their intervals in the cells.

    Examples
    --------
    >>> import booteval
    >>> lb = booteval.leaderboard(
    ...     {"A": [1, 1, 1, 0, 1, 1, 0, 1], "B": [0, 1, 0, 0, 1, 0, 0, 1]},
    ...     n_resamples=500, seed=0)
    >>> fig = plot_pairwise(lb, scale=100)
    >>> fig.axes[0].get_xlabel()
    'column system (A)'
    """
    target = _check_path(path)
    lb = _leaderboard(leaderboard_result)
    names = list(lb.names)
    k = len(names)
    if annotate is None:
        annotate = k <= 12
    if figsize is None:
        cell = 0.72 if annotate else 0.42  # inches per cell
        side = min(max(4.5, 2.4 + cell * k), 14.0)
        figsize = (side + 1.6, side)
    fig, ax = _axes(ax, figsize, dpi)
    est = np.array([e.estimate for e in lb.entries]) * scale
    diff = est[:, None] - est[None, :]
    np.fill_diagonal(diff, np.nan)
    pos = {n: i for i, n in enumerate(names)}
    sep = np.zeros((k, k), dtype=bool)
    for p in lb.pairs:
        i, j = pos[p.name_a], pos[p.name_b]
        sep[i, j] = sep[j, i] = bool(p.separated)
    vmax = float(np.nanmax(np.abs(diff))) or 1.0
    cm = _matplotlib().colormaps[cmap].with_extremes(bad="#f2f2f2")
    im = ax.imshow(np.ma.masked_invalid(diff), cmap=cm, vmin=-vmax, vmax=vmax, aspect="equal")
    fontsize = 9 if k <= 8 else 8 if k <= 14 else 7
    if digits is None:
        digits = max(0, 2 - math.floor(math.log10(vmax)))
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            dark = abs(diff[i, j]) > 0.6 * vmax
            colour = "white" if dark else "black"
            if annotate:
                text = f"{diff[i, j]:+.{digits}f}" + ("*" if sep[i, j] else "")
                ax.text(j, i, text, ha="center", va="center", color=colour,
                        fontsize=8,
                        fontweight="bold" if sep[i, j] else "normal")  # fmt: skip
            elif sep[i, j]:
                ax.plot(j, i, "o", ms=2.5, color=colour)
    ax.set_xticks(range(k), names, rotation=45, ha="right", rotation_mode="anchor",
                  fontsize=fontsize)  # fmt: skip
    ax.set_yticks(range(k), names, fontsize=fontsize)
    ax.set_xlabel("column system (A)")
    ax.set_ylabel("row system (B)")
    ax.tick_params(length=0)
    for s in ax.spines.values():
        s.set_visible(False)
    cbar = ax.figure.colorbar(im, ax=ax, shrink=0.8, pad=0.02)
    cbar.set_label(_scaled(f"difference in {lb.metric}, row {_MINUS} column (B {_MINUS} A)", scale))
    mark = "*" if annotate else "dot"
    head = title if title is not None else f"Pairwise differences in {lb.metric}"
    prov = (
        f"{mark}: separated ({lb.correction}-adjusted p < {lb.alpha:g}) · "
        f"{methods_text(list(lb.pair_methods) or lb.method, lb.confidence_level)[0]} · "
        f"B = {lb.n_resamples} · seed {lb.seed}\n{lb.design}"
    )
    ax.set_title(f"{head}\n{prov}", fontsize=9)
    return _save(fig, target)
