"""Reliability diagrams: binned calibration of predicted probabilities, with bootstrap bands."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.design import make_design
from ..core.engine import NO_KERNEL, run_engine
from ..core.errors import InvalidInputError
from ..core.intervals import order_statistic_quantile
from ..inference.confidence import ci
from ..metrics import get_metric
from ..metrics.base import matmul
from ..results import CIResult
from .common import (
    _CI_COLOR,
    _EST_COLOR,
    _HIST_COLOR,
    _MUTED,
    _axes,
    _check_path,
    _new_figure,
    _save,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


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


class _BinFrequencies:
    """Each bin's observed frequency on the replicates' unit weights (an engine evaluator)."""

    design = None
    thread_safe = True
    has_standard_error = False

    def __init__(self, unit_stats: np.ndarray, n_bins: int) -> None:
        self.unit_stats, self.n_bins = unit_stats, n_bins

    def estimate(self) -> np.ndarray:
        return self.replicates(np.ones((1, self.unit_stats.shape[0])))[0]

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        m = self.n_bins
        sums = matmul(unit_weights, self.unit_stats)  # counts: exact in any batch
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(sums[:, :m] > 0, sums[:, m:] / sums[:, :m], np.nan)


def reliability_bins(
    y_true: Any, y_score: Any, n_bins: int = 10, *, n_resamples: int = 1000,
    seed: int | None = None, confidence_level: float = 0.95, method: str = "bca",
    strata: Any = None, clusters: Any = None, pos_label: Any = None,
) -> ReliabilityBins:  # fmt: skip
    """Per-bin observed frequencies with bootstrap intervals, and the ECE.

    Rows are resampled with the design's weights (the same resamples as the
    ECE's interval: :func:`booteval.core.design.make_design` with ``strata``/``clusters``,
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
        Each bin's mean confidence, accuracy and interval.

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

    # the engine's loop, on the ECE's resamples (same design, seed and replicates)
    reps = run_engine(
        _BinFrequencies(unit_stats, m),
        design,
        n_resamples=r.n_resamples,
        seed=r.seed,
        engine="numpy",
        kernel=NO_KERNEL,
    ).values
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
    y_true: Any, y_score: Any, n_bins: int = 10, path: str | Path | None = None,
    n_resamples: int = 1000, seed: int | None = None, ax: Axes | None = None, *,
    confidence_level: float = 0.95, method: str = "bca", strata: Any = None, clusters: Any = None,
    pos_label: Any = None, show_counts: bool = True, title: str | None = None,
    figsize: tuple[float, float] = (5.6, 6.2), dpi: float = 100,
) -> Figure:  # fmt: skip
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
        The reliability diagram, with an interval on each bin.

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
