"""``booteval.plot``: figures for bootstrap results (matplotlib, optional).

Four plots, each returning a :class:`matplotlib.figure.Figure` and saving it
to ``path`` (``.png``, ``.pdf`` or ``.svg``) when one is given:

* :func:`plot_distribution`: the bootstrap distribution of one result, with
  the point estimate and the interval marked;
* :func:`plot_forest`: several systems or metrics with their intervals (or a
  leaderboard, in rank order, with rank intervals);
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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.design import make_design
from ..core.errors import InvalidInputError
from ..core.intervals import order_statistic_quantile
from ..inference.confidence import ci
from ..inference.leaderboard import LeaderboardResult
from ..metrics import get_metric
from ..results import CIResult, Difference, Result

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "ReliabilityBins",
    "plot_distribution",
    "plot_forest",
    "plot_pairwise",
    "plot_reliability",
    "reliability_bins",
]

#: file formats :func:`plot_distribution` and the others can write
FORMATS = (".png", ".pdf", ".svg")

_EST_COLOR = "#1f4e79"
_CI_COLOR = "#2e75b6"
_HIST_COLOR = "#9dc3e6"
_REF_COLOR = "#c00000"
_MUTED = "#7f7f7f"
_MINUS = "\u2212"
_TIMES = "\u00d7"
_DASH = "\u2013"


# ----------------------------------------------------------------- helpers
def _matplotlib() -> Any:
    """Import matplotlib, or say how to install it."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "booteval's plots need matplotlib, which is not installed: pip install 'booteval[plot]'"
        ) from exc
    return matplotlib


def _check_path(path: str | Path | None) -> Path | None:
    if path is None:
        return None
    if not isinstance(path, str | Path):
        raise InvalidInputError("path", "a file name (str or Path) or None", type(path).__name__)
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise InvalidInputError(
            "path",
            "a file name ending in .png, .pdf or .svg",
            repr(str(path)),
            "The extension chooses the format.",
        )
    return p


def _new_figure(figsize: tuple[float, float], dpi: float) -> Figure:
    _matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _axes(ax: Axes | None, figsize: tuple[float, float], dpi: float) -> tuple[Figure, Axes]:
    if ax is None:
        fig = _new_figure(figsize, dpi)
        return fig, fig.add_subplot()
    _matplotlib()
    from matplotlib.axes import Axes as _Axes

    if not isinstance(ax, _Axes):
        raise InvalidInputError("ax", "a matplotlib Axes or None", type(ax).__name__)
    return ax.figure, ax


def _save(fig: Figure, path: Path | None) -> Figure:
    if path is not None:
        fig.savefig(path, dpi=fig.dpi, format=path.suffix.lower().lstrip("."))
    return fig


def _num(x: float, digits: int | None) -> str:
    """Fixed decimals when ``digits`` is given, four significant figures otherwise."""
    if not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}f}" if digits is not None else f"{x:.4g}"


def _scaled(label: str, scale: float) -> str:
    return label if scale == 1 else f"{label} ({_TIMES} {scale:g})"


def _provenance(r: Any) -> str:
    """``95% bca interval · B = 10000 · seed 0 · design``."""
    parts = [f"{r.confidence_level * 100:g}% {r.method} interval"]
    if getattr(r, "n_resamples", 0):
        parts.append(f"B = {r.n_resamples}")
        parts.append(f"seed {r.seed}")
    if getattr(r, "n_undefined", 0):
        parts.append(f"{r.n_undefined} undefined (dropped)")
    text = " · ".join(parts)
    return f"{text}\n{r.design}" if getattr(r, "design", "") else text


def _label(r: Any) -> str:
    return str(r.label)


def _is_collection(r: Any) -> bool:
    """A leaderboard (a result whose ``entries`` are results), drawn row by row."""
    return isinstance(r, Result) and isinstance(getattr(r, "entries", None), tuple | list)


def _is_interval(r: Any) -> bool:
    return isinstance(r, Result) and not _is_collection(r) and bool(r.has_interval)


_SUPPORTED = "booteval result (a CIResult, ComparisonResult, ...) or a LeaderboardResult"


# ------------------------------------------------------------ distribution
def plot_distribution(
    result: Result,
    path: str | Path | None = None,
    ax: Axes | None = None,
    *,
    scale: float = 1.0,
    digits: int | None = None,
    bins: int | str = "auto",
    title: str | None = None,
    figsize: tuple[float, float] = (6.4, 4.2),
    dpi: float = 100,
) -> Figure:
    """Histogram of a result's bootstrap distribution, estimate and interval marked.

    Parameters
    ----------
    result : a booteval result with stored replicates
        A CIResult, ComparisonResult, CorrelationResult, SeedPoolResult,
        ThresholdCIResult, TrainingBootstrapResult, ... For a difference, the
        distribution of ``B - A``, with 0 (no difference) marked. A correlation
        needs a bootstrap interval (a Fisher interval stores no replicates).
    path : str or Path, optional
        Save the figure there (``.png``, ``.pdf`` or ``.svg``).
    ax : matplotlib Axes, optional
        Draw into this axes instead of a new figure.
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

    Examples
    --------
    >>> import booteval
    >>> from booteval.plot import plot_distribution
    >>> r = booteval.ci([1, 0, 1, 1, 0, 1, 1, 1], n_resamples=500, seed=0)
    >>> fig = plot_distribution(r, scale=100)
    >>> print(fig.axes[0].get_title())
    mean
    95% bca interval · B = 500 · seed 0
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
    results: Any,
    labels: Sequence[str] | None = None,
    path: str | Path | None = None,
    ax: Axes | None = None,
    *,
    scale: float = 1.0,
    digits: int | None = None,
    ranks: bool = True,
    values: bool = True,
    reference: float | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float = 100,
) -> Figure:
    """Forest plot: one row per system or metric, its estimate and interval.

    Parameters
    ----------
    results : list of results, mapping of label to result, or LeaderboardResult
        :class:`~booteval.CIResult`, :class:`~booteval.ComparisonResult` (the
        difference ``B - A``) or :class:`~booteval.CorrelationResult` items, drawn
        top to bottom in the order given; or a
        :class:`~booteval.LeaderboardResult`, drawn in rank order, the top group
        (systems not separated from the leader) in colour and the others grey.
    labels : sequence of str, optional
        One per row (default: the metric, ``B - A``, ``metric vs human``, or the
        system names of a leaderboard).
    path : str or Path, optional
        Save the figure there (``.png``, ``.pdf`` or ``.svg``).
    ax : matplotlib Axes, optional
        Draw into this axes instead of a new figure.
    scale : float
        Multiply every value (e.g. 100 for percentages).
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
    ['75.0 (37.5, 100.0)', '50.0 (12.5, 87.5)']
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
def plot_pairwise(
    leaderboard_result: LeaderboardResult,
    path: str | Path | None = None,
    ax: Axes | None = None,
    *,
    scale: float = 1.0,
    digits: int | None = None,
    annotate: bool | None = None,
    cmap: str = "RdBu",
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float = 100,
) -> Figure:
    """Heat map of all pairwise differences of a leaderboard (row minus column).

    Rows and columns follow the leaderboard order (best first). The cell in
    row ``i`` and column ``j`` holds ``estimate_i - estimate_j``: the difference
    ``B - A`` with ``B`` the row's system. Cells of pairs that the adjusted
    pairwise test separates (``p_adjusted < alpha``) are marked with ``*``
    (or a dot, when the cells are not annotated).

    Parameters
    ----------
    leaderboard_result : LeaderboardResult
    path : str or Path, optional
        Save the figure there (``.png``, ``.pdf`` or ``.svg``).
    ax : matplotlib Axes, optional
        Draw into this axes instead of a new figure.
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
    if not isinstance(leaderboard_result, LeaderboardResult):
        raise InvalidInputError(
            "leaderboard_result",
            "a LeaderboardResult (from booteval.leaderboard)",
            type(leaderboard_result).__name__,
        )
    lb = leaderboard_result
    names = list(lb.names)
    k = len(names)
    if k < 2:
        raise InvalidInputError("leaderboard_result", "at least two systems", f"{k} system")
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
        f"{lb.method} · B = {lb.n_resamples} · seed {lb.seed}\n{lb.design}"
    )
    ax.set_title(f"{head}\n{prov}", fontsize=9)
    return _save(fig, target)


# ------------------------------------------------------------- reliability
@dataclass(frozen=True, eq=False)
class ReliabilityBins:
    """The numbers behind a reliability diagram.

    Attributes
    ----------
    edges : ndarray, shape (n_bins + 1,)
        Bin edges on [0, 1] (bin ``b`` holds ``[b/M, (b+1)/M)``, the last includes 1),
        as in the ``"ece"`` metric.
    count : ndarray of int, shape (n_bins,)
        Rows in each bin.
    confidence : ndarray, shape (n_bins,)
        Mean predicted probability (or top-label confidence) in each bin; NaN if empty.
    frequency : ndarray, shape (n_bins,)
        Observed frequency of the positive class (or top-label accuracy); NaN if empty.
    low, high : ndarray, shape (n_bins,)
        Percentile interval of ``frequency`` across the replicates in which the bin is
        not empty (the ``ceil(p * B)``-th smallest value); NaN for an empty bin.
    n_defined : ndarray of int, shape (n_bins,)
        Replicates in which the bin is not empty.
    replicates : ndarray, shape (B, n_bins)
        Each replicate's frequency per bin (NaN where the bin is empty).
    ece : CIResult
        The ECE with its interval, from the same resamples (same design and seed).
    confidence_level : float
    seed : int
    """

    edges: np.ndarray
    count: np.ndarray
    confidence: np.ndarray
    frequency: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_defined: np.ndarray
    replicates: np.ndarray
    ece: CIResult
    confidence_level: float
    seed: int


def reliability_bins(
    y_true: Any,
    y_score: Any,
    n_bins: int = 10,
    *,
    n_resamples: int = 1000,
    seed: int | None = None,
    confidence_level: float = 0.95,
    method: str = "bca",
    strata: Any = None,
    clusters: Any = None,
    pos_label: Any = None,
) -> ReliabilityBins:
    """Per-bin observed frequencies with bootstrap intervals, and the ECE.

    Rows are resampled with the design's weights (the same resamples as the
    ECE's interval: :func:`booteval.make_design` with ``strata``/``clusters``,
    replicates ``0 .. B - 1`` of ``seed``); every replicate's per-bin counts
    and positives come from one product of the weight matrix with the units'
    per-bin sums, in batches.

    Parameters
    ----------
    y_true : array-like
        Binary labels (or class labels, with a probability matrix).
    y_score : array-like, shape (n,) or (n, n_classes)
        Probability of the positive class, or class probabilities (then the
        top-label confidence and whether the top label is right are used).
    n_bins : int
        Equal-width bins on [0, 1].
    n_resamples, seed, confidence_level, strata, clusters, pos_label
        As in :func:`booteval.ci`.
    method : str
        Interval method of the ECE (the per-bin intervals are percentile intervals).

    Returns
    -------
    ReliabilityBins

    Examples
    --------
    >>> rb = reliability_bins([0, 0, 1, 1, 1, 0], [0.1, 0.3, 0.6, 0.8, 0.9, 0.7], n_bins=2,
    ...                       n_resamples=200, seed=0, method="percentile")
    >>> rb.count.tolist(), rb.frequency.tolist()
    ([2, 4], [0.0, 0.75])
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, int | np.integer) or n_bins < 1:
        raise InvalidInputError("n_bins", "a positive integer", repr(n_bins))
    n_bins = int(n_bins)
    kwargs: dict[str, Any] = {"n_bins": n_bins}
    if pos_label is not None:
        kwargs["pos_label"] = pos_label
    r = ci(
        y_true, y_score, metric="ece", metric_kwargs=kwargs, method=method,
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        strata=strata, clusters=clusters,
    )  # fmt: skip
    metric = get_metric("ece", **kwargs)
    yt, p = metric.validate(y_true, y_score)
    if p.ndim == 1:
        from ..metrics.calibration import binary_targets

        outcome = binary_targets(yt, pos_label)
        conf = p
    else:
        classes = np.unique(yt)
        outcome = (p.argmax(axis=1) == np.searchsorted(classes, yt)).astype(float)
        conf = p.max(axis=1)
    m = n_bins
    n = conf.size
    bins = np.minimum((conf * m).astype(np.intp), m - 1)
    design = make_design(n, strata=strata, clusters=clusters)
    # per-unit sums: rows in bin b (columns 0..m-1), positives in bin b (m..2m-1)
    unit_stats = np.zeros((design.n_units, 2 * m))
    np.add.at(unit_stats, (design.unit_of_row, bins), 1.0)
    np.add.at(unit_stats, (design.unit_of_row, m + bins), outcome)
    count = np.bincount(bins, minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        confidence = np.bincount(bins, weights=conf, minlength=m) / count
        frequency = np.bincount(bins, weights=outcome, minlength=m) / count

    b_total = r.n_resamples
    step = max(1, (1 << 22) // max(design.n_units, 1))
    reps = np.empty((b_total, m))
    for start in range(0, b_total, step):
        stop = min(start + step, b_total)
        sums = design.unit_weights(r.seed, start, stop) @ unit_stats
        with np.errstate(invalid="ignore", divide="ignore"):
            reps[start:stop] = np.where(sums[:, :m] > 0, sums[:, m:] / sums[:, :m], np.nan)
    alpha = 1.0 - r.confidence_level
    low = np.full(m, np.nan)
    high = np.full(m, np.nan)
    n_defined = np.sum(~np.isnan(reps), axis=0)
    for b in range(m):
        if count[b] == 0 or n_defined[b] == 0:
            continue
        v = np.sort(reps[~np.isnan(reps[:, b]), b])
        low[b] = order_statistic_quantile(v, alpha / 2)
        high[b] = order_statistic_quantile(v, 1 - alpha / 2)
    reps.setflags(write=False)
    return ReliabilityBins(
        edges=np.linspace(0.0, 1.0, m + 1), count=count, confidence=confidence,
        frequency=frequency, low=low, high=high, n_defined=n_defined, replicates=reps,
        ece=r, confidence_level=r.confidence_level, seed=r.seed,
    )  # fmt: skip


def plot_reliability(
    y_true: Any,
    y_score: Any,
    n_bins: int = 10,
    path: str | Path | None = None,
    n_resamples: int = 1000,
    seed: int | None = None,
    ax: Axes | None = None,
    *,
    confidence_level: float = 0.95,
    method: str = "bca",
    strata: Any = None,
    clusters: Any = None,
    pos_label: Any = None,
    show_counts: bool = True,
    title: str | None = None,
    figsize: tuple[float, float] = (5.6, 6.2),
    dpi: float = 100,
) -> Figure:
    """Reliability diagram with a bootstrap interval per bin and the ECE with its interval.

    Each non-empty bin is drawn at its mean predicted probability and observed
    frequency, with the percentile interval of the frequency across the
    resamples (see :func:`reliability_bins`); the diagonal is perfect
    calibration. A lower panel shows the rows per bin (when ``ax`` is not
    given and ``show_counts`` is true).

    Parameters
    ----------
    y_true, y_score, n_bins, n_resamples, seed
        As in :func:`reliability_bins`.
    path : str or Path, optional
        Save the figure there (``.png``, ``.pdf`` or ``.svg``).
    ax : matplotlib Axes, optional
        Draw the diagram into this axes (without the counts panel).
    confidence_level, method, strata, clusters, pos_label
        As in :func:`reliability_bins`.
    show_counts : bool
        Add the panel of rows per bin below the diagram.
    title : str, optional
        The title's first line.
    figsize, dpi
        Size of a new figure in inches, and its resolution.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=300)
    >>> y = (rng.uniform(size=300) < p).astype(int)
    >>> fig = plot_reliability(y, p, n_bins=5, n_resamples=200, seed=0, method="percentile")
    >>> len(fig.axes), fig.axes[0].get_ylabel()
    (2, 'observed frequency of the positive class')
    """
    target = _check_path(path)
    rb = reliability_bins(
        y_true, y_score, n_bins, n_resamples=n_resamples, seed=seed,
        confidence_level=confidence_level, method=method, strata=strata,
        clusters=clusters, pos_label=pos_label,
    )  # fmt: skip
    multiclass = np.asarray(y_score).ndim == 2
    if ax is None:
        fig = _new_figure(figsize, dpi)
        if show_counts:
            ax, count_ax = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3.2, 1]})
        else:
            ax, count_ax = fig.add_subplot(), None
    else:
        fig, ax = _axes(ax, figsize, dpi)
        count_ax = None
    pct = f"{rb.confidence_level * 100:g}%"
    ok = rb.count > 0
    ax.plot([0, 1], [0, 1], ls="--", color=_MUTED, lw=1, label="perfect calibration")
    x, f = rb.confidence[ok], rb.frequency[ok]
    yerr = np.vstack([f - rb.low[ok], rb.high[ok] - f])
    ax.errorbar(x, f, yerr=yerr, fmt="o-", color=_EST_COLOR, ecolor=_CI_COLOR, ms=4.5,
                capsize=3, lw=1.4,
                label=f"observed, {pct} percentile interval per bin")  # fmt: skip
    e = rb.ece
    ece_label = f"ECE ({len(rb.count)} bins) = {e.format(digits=3)}, {pct} {e.method} interval"
    ax.plot([], [], " ", label=ece_label)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("auto")
    ax.grid(color="#e6e6e6", lw=0.6)
    ax.set_axisbelow(True)
    ax.legend(loc="best", fontsize=8, framealpha=0.9, edgecolor="none")
    ylabel = (
        "accuracy of the top label" if multiclass else "observed frequency of the positive class"
    )
    xlabel = "mean confidence (top label)" if multiclass else "mean predicted probability"
    ax.set_ylabel(ylabel)
    head = title if title is not None else f"Reliability diagram, {len(rb.count)} bins"
    ax.set_title(
        f"{head}\nbin intervals from B = {e.n_resamples} resamples · seed {rb.seed}\n{e.design}",
        fontsize=9,
    )
    if count_ax is not None:
        edges = rb.edges
        count_ax.bar(edges[:-1], rb.count, width=np.diff(edges), align="edge",
                     color=_HIST_COLOR, edgecolor="white")  # fmt: skip
        for left, c in zip(edges[:-1], rb.count, strict=True):
            if c:
                count_ax.annotate(f"{c}", (left + 0.5 / len(rb.count), c), ha="center",
                                  va="bottom", fontsize=7, xytext=(0, 1),
                                  textcoords="offset points")  # fmt: skip
        count_ax.margins(y=0.25)
        count_ax.set_ylabel("rows per bin")
        count_ax.set_xlabel(xlabel)
        count_ax.set_xlim(0, 1)
        for side in ("top", "right"):
            count_ax.spines[side].set_visible(False)
    else:
        ax.set_xlabel(xlabel)
    return _save(fig, target)
