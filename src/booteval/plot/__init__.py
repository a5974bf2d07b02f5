"""``booteval.plot``: figures for bootstrap results (matplotlib, optional).

Five plots, each returning a :class:`matplotlib.figure.Figure` and saving it
to ``path`` (``.png``, ``.pdf`` or ``.svg``) when one is given:

* :func:`plot_distribution`: the bootstrap distribution of one result, with
  the point estimate and the interval marked;
* :func:`plot_forest`: several systems or metrics with their intervals (or a
  leaderboard, in rank order, with rank intervals);
* :func:`plot_leaderboard`: a leaderboard's systems in rank order, each with its
  interval and its rank interval (and expected rank), the systems tied with the
  leader marked (what ``LeaderboardResult.plot()`` draws);
* :func:`plot_pairwise`: the matrix of pairwise differences of a leaderboard,
  marking the pairs that the adjusted tests separate;
* :func:`plot_reliability`: a reliability diagram with a bootstrap interval
  for each bin's observed frequency and the ECE with its interval
  (:func:`reliability_bins` returns the numbers behind it).

matplotlib is imported only when a plot is drawn (``pip install
'booteval[plot]'``); ``import booteval`` never imports this module. Figures are
built without :mod:`matplotlib.pyplot` (no global figure state, no GUI
backend): they render with the non-interactive Agg canvas, and display in a
notebook as the value of a cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import InvalidInputError
from ..results import Difference, Result
from .common import (
    _CI_COLOR,
    _EST_COLOR,
    _HIST_COLOR,
    _REF_COLOR,
    _axes,
    _check_path,
    _is_collection,
    _is_interval,
    _label,
    _num,
    _provenance,
    _save,
    _scaled,
)
from .forest import plot_forest, plot_pairwise
from .leaderboard import plot_leaderboard
from .reliability import ReliabilityBins, plot_reliability, reliability_bins

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "ReliabilityBins",
    "draw",
    "plot_distribution",
    "plot_forest",
    "plot_leaderboard",
    "plot_pairwise",
    "plot_reliability",
    "reliability_bins",
]


# ------------------------------------------------------------ distribution
def plot_distribution(
    result: Result, path: str | Path | None = None, ax: Axes | None = None, *, scale: float = 1.0,
    digits: int | None = None, bins: int | str = "auto", title: str | None = None,
    figsize: tuple[float, float] = (6.4, 4.2), dpi: float = 100,
) -> Figure:  # fmt: skip
    """Histogram of a result's bootstrap distribution, estimate and interval marked.

    Parameters
    ----------
    result : a booteval result with stored replicates
        A CIResult, ComparisonResult, CorrelationResult, SeedPoolResult,
        ThresholdCIResult, TrainingBootstrapResult, ... For a difference, the
        distribution of ``B - A``, with 0 (no difference) marked. A correlation
        needs a bootstrap interval (a Fisher interval stores no replicates).
    path, ax : optional
        Save the figure at ``path`` (``.png``, ``.pdf`` or ``.svg``); draw into the
        matplotlib axes ``ax`` instead of a new figure.
    scale : float
        Multiply every value (e.g. 100 for percentages).
    digits : int, optional
        Decimals of the numbers in the legend (default: four significant figures).
    bins : int or str
        Passed to :meth:`matplotlib.axes.Axes.hist`.
    title : str, optional
        The first title line (default: the metric, or ``B - A`` for a comparison);
        the method, level, ``B``, seed and design follow on the next lines.
    figsize, dpi
        Size of a new figure in inches, and its resolution (also used when saving).

    Returns
    -------
    matplotlib.figure.Figure
        The histogram of the replicates with the estimate and the interval marked.

    Examples
    --------
    >>> import booteval
    >>> from booteval.plot import plot_distribution
    >>> r = booteval.ci([1, 0, 1, 1, 0, 1, 1, 1], n_resamples=500, seed=0)
    >>> fig = plot_distribution(r, scale=100)
    >>> print(fig.axes[0].get_title())
    mean
    95% jeffreys (closed form) interval · replicates: B = 500 · seed 0
    iid bootstrap (8 rows)
    """
    target = _check_path(path)
    if _is_collection(result):
        raise InvalidInputError(
            "result",
            "a result with one interval (a CIResult, ComparisonResult, ...)",
            f"a {type(result).__name__}",
            "Use plot_forest or plot_pairwise for a leaderboard.",
        )
    if not _is_interval(result):
        raise InvalidInputError(
            "result",
            "a booteval result with an interval (a CIResult, ComparisonResult, ...)",
            type(result).__name__,
        )
    dist = result.distribution
    if dist is None or np.size(dist) == 0:
        raise InvalidInputError(
            "result",
            "a bootstrap result with stored replicates",
            f"a {result.method} result without replicates",
            "Fisher intervals have no bootstrap distribution; use plot_forest.",
        )
    fig, ax = _axes(ax, figsize, dpi)
    values = np.asarray(dist, dtype=float) * scale
    est, low, high = (result.estimate * scale, result.low * scale, result.high * scale)
    is_diff = isinstance(result, Difference)
    pct = f"{result.confidence_level * 100:g}%"

    ax.hist(values, bins=bins, color=_HIST_COLOR, edgecolor="white", linewidth=0.4)
    ax.axvspan(low, high, color=_CI_COLOR, alpha=0.15, lw=0,
               label=f"{pct} CI [{_num(low, digits)}, {_num(high, digits)}]")  # fmt: skip
    for x in (low, high):
        ax.axvline(x, color=_CI_COLOR, ls="--", lw=1.2)
    ax.axvline(est, color=_EST_COLOR, lw=2.2, label=f"estimate {_num(est, digits)}")
    if result.reference is not None:
        lo, hi = ax.get_xlim()
        if lo <= 0 <= hi:
            zero_label = "no difference (0)" if is_diff else "zero"
            if is_diff:
                zero_label += f", p = {result.p_value:.2g}"
            ax.axvline(0.0, color=_REF_COLOR, ls=":", lw=1.6, label=zero_label)
        elif is_diff:  # say where 0 is rather than squash the histogram
            ax.plot([], [], " ", label=f"0 lies outside the axis, p = {result.p_value:.2g}")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.set_ylabel("bootstrap replicates")
    if is_diff and hasattr(result, "name_a"):
        xlabel = f"difference in {result.metric} ({result.label})"
    elif hasattr(result, "coefficient"):  # a correlation
        xlabel = f"{result.coefficient} correlation ({result.level} level)"
    else:
        xlabel = str(result.label)
    ax.set_xlabel(_scaled(xlabel, scale))
    ax.margins(y=0.18)  # room for the legend
    head = title if title is not None else _label(result)
    ax.set_title(f"{head}\n{_provenance(result)}", fontsize=9)
    return _save(fig, target)


def draw(
    result: Any, kind: str = "default", path: str | Path | None = None, **kwargs: Any
) -> Figure:
    """The figure of a result, chosen here from its protocol (what the results' ``plot``
    methods draw).

    Parameters
    ----------
    result : a booteval result
    kind : {"default", "distribution", "forest", "leaderboard", "pairwise"}
        ``"default"``: a leaderboard's figure (:func:`plot_leaderboard`), else the
        bootstrap distribution where the result stores replicates, otherwise its
        interval on a line (:func:`plot_forest`); ``"forest"``: the forest plot (a
        leaderboard in rank order); ``"leaderboard"``: :func:`plot_leaderboard`;
        ``"pairwise"``: a leaderboard's matrix of differences (:func:`plot_pairwise`);
        ``"distribution"``: :func:`plot_distribution`.
    path, **kwargs
        As for the plot drawn.
    """
    if kind == "leaderboard" or (kind == "default" and _is_collection(result)):
        return plot_leaderboard(result, path, **kwargs)
    if kind == "pairwise":
        return plot_pairwise(result, path, **kwargs)
    if kind == "forest":
        return plot_forest(result, path=path, **kwargs)
    if kind == "distribution":
        return plot_distribution(result, path, **kwargs)
    if kind != "default":
        raise InvalidInputError(
            "kind",
            "one of 'default', 'distribution', 'forest', 'leaderboard', 'pairwise'",
            repr(kind),
        )
    dist = getattr(result, "distribution", None)
    if dist is not None and np.size(dist) > 0:
        return plot_distribution(result, path, **kwargs)
    return plot_forest([result], path=path, **kwargs)
