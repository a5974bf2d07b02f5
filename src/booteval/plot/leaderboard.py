"""The leaderboard figure: each system's interval and its rank interval, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..inference.leaderboard import LeaderboardResult
from .common import (
    _CI_COLOR,
    _EST_COLOR,
    _MUTED,
    _check_path,
    _new_figure,
    _provenance,
    _save,
    _scaled,
)
from .forest import _leaderboard

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["plot_leaderboard"]

#: light shades of the two colours, for the rank bars
_TIED_BAR = "#9dc3e6"
_OTHER_BAR = "#d9d9d9"
#: a rank interval's bar spans its ranks' cells: rank_low - 0.4 to rank_high + 0.4
_HALF_CELL = 0.4


def _row_height(k: int) -> float:
    """Inches per system: roomy for a few, down to 0.13 (7 pt labels) for hundreds."""
    return float(np.clip(0.34 - 0.0016 * k, 0.13, 0.34))


def plot_leaderboard(
    leaderboard_result: LeaderboardResult, path: str | Path | None = None, *,
    scale: float = 1.0, confidence_level: float | None = None, title: str | None = None,
    figsize: tuple[float, float] | None = None, dpi: float = 100,
) -> Figure:  # fmt: skip
    """Each system's interval and its rank interval, in rank order (best at the top).

    Two panels share the systems' rows. Left: the estimate and its interval. Right: the
    rank interval (the percentile interval of the rank across the replicates) as a bar
    over the ranks ``rank_low`` to ``rank_high`` (each rank a cell of width 0.8, so a
    single rank shows too), and the expected rank (the mean rank over the replicates) as
    a dot. The systems tied with the leader (those whose simultaneous
    max-T interval of the difference to the leader contains 0,
    :meth:`~booteval.results.LeaderboardResult.tied_with_leader`) are drawn in colour,
    the others grey. The matrix of pairwise differences stays available as
    :func:`plot_pairwise`.

    Parameters
    ----------
    leaderboard_result : LeaderboardResult
    path : str or Path, optional
        Save the figure there (``.png``, ``.pdf`` or ``.svg``).
    scale : float
        Multiply estimates and endpoints (``100`` for percentages).
    confidence_level : float, optional
        The level of the simultaneous intervals that decide the tie with the leader
        (default: the leaderboard's).
    title : str, optional
        The title's first line.
    figsize : (float, float), optional
        Default: 8 inches wide, a row per system that narrows with the number of
        systems (200 systems: about 28 inches tall, labels at 6 points).
    dpi : float

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: the intervals (``fig.axes[0]``) and the ranks (``fig.axes[1]``).

    Examples
    --------
    >>> import numpy as np, booteval
    >>> rng = np.random.default_rng(0)
    >>> systems = {f"m{k}": (rng.random(400) < 0.6 + 0.05 * k).astype(int) for k in range(4)}
    >>> board = booteval.leaderboard(systems, n_resamples=1000, seed=0)
    >>> fig = plot_leaderboard(board, scale=100)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(board.names)
    True
    >>> fig.axes[1].get_xlabel().splitlines()
    ['rank (95% interval)', 'dot: expected rank']
    """
    target = _check_path(path)
    lb = _leaderboard(leaderboard_result)
    k = len(lb.entries)
    joint = lb.simultaneous(confidence_level)
    tied = set(joint.tied_with_leader)
    row = _row_height(k)
    if figsize is None:
        figsize = (8.0, 1.6 + row * k)
    fig = _new_figure(figsize, dpi)
    from matplotlib.ticker import MaxNLocator

    grid = fig.add_gridspec(1, 2, width_ratios=(3, 2))
    ax = fig.add_subplot(grid[0])
    ranks = fig.add_subplot(grid[1], sharey=ax)

    y = np.arange(k)[::-1]
    entries = lb.entries
    est = np.array([e.estimate for e in entries]) * scale
    low = np.array([e.low for e in entries]) * scale
    high = np.array([e.high for e in entries]) * scale
    is_tied = [e.name in tied for e in entries]
    colours = [_EST_COLOR if t else _MUTED for t in is_tied]
    fontsize = 8 if k <= 40 else 7 if k <= 120 else 6
    lw = 2.0 if k <= 40 else 1.2
    dot = 28 if k <= 40 else 10

    ax.hlines(y, low, high, colors=colours, lw=lw)
    ax.scatter(est, y, color=colours, s=dot, zorder=3)
    ax.axvline(est[0], color=_CI_COLOR, ls=":", lw=0.8)  # the leader's estimate
    ax.set_yticks(y, [e.name for e in entries], fontsize=fontsize)
    for label, t in zip(ax.get_yticklabels(), is_tied, strict=True):
        label.set_color(_EST_COLOR if t else "#404040")
    ax.set_ylim(-0.7, k - 0.3)
    pct = f"{lb.confidence_level * 100:g}%"
    ax.set_xlabel(_scaled(f"{lb.metric} ({pct} CI)", scale))

    rank_low = np.array([e.rank_low for e in entries], dtype=float)
    rank_high = np.array([e.rank_high for e in entries], dtype=float)
    bars = [_TIED_BAR if t else _OTHER_BAR for t in is_tied]
    # ranks rank_low .. rank_high, each rank a cell of width 2 * _HALF_CELL
    ranks.barh(
        y, rank_high - rank_low + 2 * _HALF_CELL, left=rank_low - _HALF_CELL, height=0.6,
        color=bars, lw=0,
    )  # fmt: skip
    expected = np.array([e.expected_rank for e in entries])
    ranks.scatter(expected, y, color=colours, s=dot * 0.7, zorder=3)
    ranks.set_xlim(0.5, k + 0.5)
    ranks.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ranks.set_xlabel(f"rank ({pct} interval)\ndot: expected rank")
    ranks.tick_params(axis="y", left=False, labelleft=False)
    for a in (ax, ranks):
        if k > 40:  # a tall figure: the scales at the top too
            a.tick_params(axis="x", top=True, labeltop=True)
        a.grid(axis="x", color="#e0e0e0", lw=0.6)
        a.set_axisbelow(True)
        for side in ("top", "right"):
            a.spines[side].set_visible(False)

    joint_pct = f"{joint.confidence_level * 100:g}%"
    head = title if title is not None else f"{lb.metric}: {k} systems, best first"
    note = (
        f"blue: tied with the leader ({len(tied)} of {k}: the {joint_pct} simultaneous "
        f"max-T interval of the difference to {lb.names[0]} contains 0)"
    )
    fig.suptitle(f"{head}\n{_provenance(lb)}\n{note}", fontsize=9)
    return _save(fig, target)
