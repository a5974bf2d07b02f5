"""Several samples per question: nested resampling, pass@k and majority vote.

Many LLM evaluations draw several answers to each question (Inspect's epochs, repeated
runs, ``n`` samples per problem for pass@k). The question is then the independent unit,
and the samples within a question are a second, nested source of variation.

- :func:`nested_ci`: the mean over questions of the per-question mean score, with a
  bootstrap that resamples questions (or clusters of questions), samples within each
  question, or both, and the split of the variance into its between-question and
  within-question parts (Miller 2024, "Adding error bars to evals": with ``K`` samples
  per question, ``Var(mean) = (sigma_between^2 + sigma_within^2 / K) / n``).
- :func:`pass_at_k`, :func:`compare_pass_at_k`: the unbiased pass@k estimator of Chen et
  al. (2021) per problem, ``1 - C(n - c, k) / C(n, k)`` for ``c`` correct of ``n``
  samples, averaged over problems, with a bootstrap interval over problems and a paired
  comparison of two models.
- :func:`majority_vote_at_k`: the exact probability, per problem, that the most frequent
  answer among ``k`` samples drawn without replacement from the ``n`` is the target.

Which resampling to report
--------------------------
``resample="items"`` (the default) answers "how well would the model do on other
questions like these": each question keeps its own samples, which already carry their
within-question noise into the question's mean. ``"samples"`` holds the questions fixed
and asks how much the score moves if the model were sampled again on the same questions.
``"both"`` resamples at both levels; it counts the within-question variance twice (once
through the question means, once again through the inner draw), so it is conservative
(wider than needed).

Reproducibility
---------------
Questions (or clusters) are drawn by :class:`booteval.design.Design` from the one
``seed``, exactly as :func:`booteval.ci` draws rows, so ``resample="items"`` gives the
replicates of ``booteval.ci`` on the per-question means. Draws within questions use
the ``samples`` stream of :mod:`booteval.core.streams` at key ``b`` for replicate ``b``, so
replicate ``b`` is the same whatever the batch size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..core.codes import dense_codes
from ..core.design import make_design
from ..core.engine import NO_KERNEL, check_choice, run_engine
from ..core.errors import DegenerateIntervalWarning, InvalidInputError, collect_warnings, warn
from ..core.intervals import compute_interval, methods_offered
from ..core.options import entry_point
from ..core.streams import generator
from ..core.validation import (
    as_float_array,
    as_group_labels,
    check_n_resamples,
    check_seed,
    describe_value,
)
from ..core.weights import WeightSource
from ..inference.confidence import ci
from ..metrics.base import matmul
from ..metrics.regression import Mean
from ..results import CIResult, freeze

__all__ = ["RESAMPLE", "NestedResult", "nested_ci"]

RESAMPLE = ("items", "samples", "both")
_NESTED_METHODS = ("auto", *methods_offered(standard_errors=False))
#: resample="items" runs ci() on the question means, which offers every method
_ITEM_METHODS = ("auto", *methods_offered())
#: replicates per batch of the within-question draws (any batch gives the same replicates)
_INNER_BLOCK = 256


class PerItemMean(Mean):
    """The mean of one value per question, under the name of what the values are."""

    def __init__(self, label: str, bounds: tuple[float, float] | None = None) -> None:
        super().__init__()
        self._label = label
        self.bounds = bounds

    @property
    def label(self) -> str:
        return self._label


@dataclass(frozen=True, eq=False)
class NestedResult(CIResult):
    """A :class:`~booteval.CIResult` for several samples per question, with the variance split.

    ``n`` counts samples (rows) and ``effective_n`` questions.

    Attributes
    ----------
    resample : str
        ``"items"``, ``"samples"`` or ``"both"``: what the bootstrap resampled.
    n_items : int
        Number of questions (items).
    samples_per_item : float
        Mean number of samples per question (``min_samples``/``max_samples`` give the range).
    min_samples, max_samples : int
    var_between : float
        Variance of the questions' true mean scores, estimated without bias: the variance
        of the question means less the part that within-question noise adds to it
        (may come out negative by chance when the true spread is small).
    var_within : float
        Mean over questions of the variance between samples of one question.
    se_analytic : float
        The standard error of the estimate from these components for the chosen
        resampling (Miller 2024; cluster-robust over the clusters when given).
    """

    resample: str = "items"
    n_items: int = 0
    samples_per_item: float = math.nan
    min_samples: int = 0
    max_samples: int = 0
    var_between: float = math.nan
    var_within: float = math.nan
    se_analytic: float = math.nan

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """The description of :meth:`CIResult.describe` and the variance split."""
        k = (
            f"{self.samples_per_item:.3g}"
            if self.min_samples != self.max_samples
            else f"{self.min_samples}"
        )
        between = math.sqrt(self.var_between) if self.var_between > 0 else 0.0
        extra = [
            f"  {self.n_items} questions, {k} samples each; resampled: {self.resample}",
            f"  standard deviation between questions {between * scale:.3g}, within a question "
            f"{math.sqrt(self.var_within) * scale:.3g}; analytic standard error "
            f"{self.se_analytic * scale:.3g}",
        ]
        base = super().describe(scale, digits).split("\n")
        return "\n".join([*base[:2], *extra, *base[2:]])

    def to_dict(self) -> dict[str, Any]:
        """Plain data, with the nested design's fields."""
        out = super().to_dict()
        for key in ("resample", "n_items", "samples_per_item", "min_samples", "max_samples",
                    "var_between", "var_within", "se_analytic"):  # fmt: skip
            out[key] = getattr(self, key)
        return out


# ------------------------------------------------------------------ grouping
@dataclass(frozen=True)
class _Items:
    """Rows grouped by question: the rows sorted by question, and where each starts."""

    order: np.ndarray  # rows sorted by question (stable: the sample order is kept)
    starts: np.ndarray  # first sorted row of each question
    counts: np.ndarray  # samples per question
    labels: np.ndarray  # the question ids, sorted
    clusters: np.ndarray | None  # one cluster label per question


def _group(items: object, n_rows: int, clusters: object = None, name: str = "items") -> _Items:
    ids = as_group_labels(items, name, n_rows)
    labels, code = dense_codes(ids)[:2]
    order = np.argsort(code, kind="stable")
    counts = np.bincount(code, minlength=labels.size)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    item_clusters = None
    if clusters is not None:
        cl = as_group_labels(clusters, "clusters", n_rows)
        cl_sorted = cl[order]
        first = cl_sorted[starts]
        varies = np.flatnonzero(cl_sorted != np.repeat(first, counts))
        if varies.size:
            row = int(order[varies[0]])
            raise InvalidInputError(
                "clusters",
                f"one cluster per question (the same label on every row of a {name[:-1]})",
                f"{name[:-1]} {labels[code[row]]!r} in clusters {first[code[row]]!r} and "
                f"{cl[row]!r} (row {row})",
            )
        item_clusters = first
    return _Items(order, starts, counts, labels, item_clusters)


def _n_rows(x: object, name: str) -> int:
    """The number of rows of a 1-D input, or an error naming it."""
    try:
        n = len(x)  # type: ignore[arg-type]
    except TypeError:
        n = -1
    if n <= 0 or isinstance(x, (str, bytes, dict)):
        raise InvalidInputError(name, "a non-empty 1-D array, one value per row",
                                describe_value(x))  # fmt: skip
    return n


# ------------------------------------------------------------------ nested_ci
@entry_point
def nested_ci(
    scores: Any, items: Any, *, resample: str = "items", clusters: Any = None, method: str = "auto",
    confidence_level: float = 0.95, n_resamples: int = 10_000, seed: int | None = None,
    batch: int | None = None, workers: int | None = None, engine: str = "auto",
    progress: Any = None,
) -> NestedResult:  # fmt: skip
    """The mean score over questions with several samples each, and its bootstrap interval.

    Parameters
    ----------
    scores : array-like
        One score per sample (row): 0/1 correctness, a grade, a per-answer metric.
    items : array-like
        The question (item) of each row: numbers or strings. Questions may have
        different numbers of samples; each question counts once.
    resample : {"items", "samples", "both"}
        ``"items"``: resample questions (or clusters of questions), each with its own
        samples: the uncertainty about questions like these (the usual report).
        ``"samples"``: keep the questions, resample samples within each: the
        uncertainty from sampling the model again on the same questions.
        ``"both"``: questions, then samples within each drawn question (conservative).
        Samples are drawn with their deviations from the question mean scaled by
        ``sqrt(k / (k - 1))``, so that the within-question variance is not
        understated with few samples per question.
    clusters : array-like, optional
        A cluster label per row, the same on every row of a question (e.g. the
        subject or source document): whole clusters of questions are resampled.
    method : {"auto", "bca", "percentile", "basic", "normal"}, default "auto"
        The interval method (``"auto"``, as for :func:`booteval.ci`). BCa's jackknife
        leaves out one top-level unit (a question or cluster; a sample for
        ``resample="samples"``). With ``resample="items"`` (the
        run is :func:`booteval.ci`'s) also ``"studentized"`` and
        ``"studentized-symmetric"``, and ``"auto"`` is ci's choice; with two-level draws
        ``"auto"`` is BCa (the coverage atlas has no cells for them), said in ``notes``.
    confidence_level, n_resamples, seed, batch, workers, engine
        As for :func:`booteval.ci`; with ``resample="items"`` the run is :func:`booteval.ci`'s
        on the question means (so the compiled engine applies there); otherwise no compiled
        kernel covers the two-level draws yet and ``engine="numba"`` says so in ``notes``.
    {progress}

    Returns
    -------
    NestedResult
        The interval, with the variance split (``var_between``, ``var_within``) and
        the analytic standard error for the chosen resampling.

    Examples
    --------
    >>> import booteval
    >>> scores = [1, 1, 0,  0, 0, 0,  1, 0, 1,  1, 1, 1]   # 4 questions, 3 epochs each
    >>> items = ["q1"] * 3 + ["q2"] * 3 + ["q3"] * 3 + ["q4"] * 3
    >>> r = booteval.nested_ci(scores, items, seed=0, n_resamples=2000)
    >>> round(r.estimate, 4), r.n_items, r.samples_per_item
    (0.5833, 4, 3.0)
    >>> round(r.var_within, 4), round(r.var_between, 4)
    (0.1667, 0.1204)
    """
    check_choice(resample, "resample", RESAMPLE)
    # resampling questions is ci() on the question means: every method of ci, "auto" too
    check_choice(method, "method", _ITEM_METHODS if resample == "items" else _NESTED_METHODS)
    auto_note: tuple[str, ...] = ()
    if method == "auto" and resample != "items":
        # the coverage atlas has no two-level cells: the default of the other entry points
        method = "bca"
        auto_note = (
            f"method='auto' chose 'bca' for resample={resample!r}: the coverage atlas has no "
            "cells for two-level draws, and BCa is booteval's default where it has none",
        )
    x = as_float_array(scores, "scores")
    n_rows = _n_rows(x, "scores")
    g = _group(items, n_rows, clusters)
    xs = x[g.order]
    m = g.labels.size
    sums = np.add.reduceat(xs, g.starts)
    means = sums / g.counts
    dev2 = (xs - np.repeat(means, g.counts)) ** 2
    ss = np.add.reduceat(dev2, g.starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = np.where(g.counts > 1, ss / np.maximum(g.counts - 1, 1), np.nan)
    var_within = float(np.nanmean(s2)) if np.isfinite(s2).any() else math.nan
    within_of_mean = float(np.nanmean(s2 / g.counts)) if np.isfinite(s2).any() else 0.0
    var_means = float(np.var(means, ddof=1)) if m > 1 else math.nan
    var_between = var_means - within_of_mean
    se_analytic = _analytic_se(resample, means, g, ss)

    bounds = (float(x.min()), float(x.max()))
    if resample == "items":
        # questions with their own samples: exactly ci() on the question means
        r = ci(
            means, metric=PerItemMean("mean", bounds), clusters=g.clusters, method=method,
            confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
            batch=batch, workers=workers, engine=engine,
        )  # fmt: skip
        base = {f.name: getattr(r, f.name) for f in fields(CIResult)}
        where = f" in {r.n_clusters} clusters" if r.n_clusters is not None else ""
        design = f"questions resampled with their samples ({m} questions{where}, {n_rows} samples)"
        return NestedResult(
            **{**base, "design": design, "n": n_rows},
            resample=resample, n_items=m, samples_per_item=float(g.counts.mean()),
            min_samples=int(g.counts.min()), max_samples=int(g.counts.max()),
            var_between=var_between, var_within=var_within, se_analytic=se_analytic,
        )  # fmt: skip

    b = check_n_resamples(n_resamples, confidence_level)
    seed_int = check_seed(seed)
    estimate = float(means.mean())
    outer = make_design(m, clusters=g.clusters) if resample == "both" else None
    # samples are drawn from the question mean plus the deviations scaled by
    # sqrt(k / (k - 1)), so that a resampled question mean has the unbiased
    # within-question variance s^2 / k rather than the plug-in (k - 1) / k of it
    k_rows = np.repeat(g.counts, g.counts).astype(float)
    scale = np.sqrt(k_rows / np.maximum(k_rows - 1.0, 1.0))
    row_means = np.repeat(means, g.counts)
    inner = row_means + (xs - row_means) * scale
    # the engine's loop over a two-level weight source (questions, then samples)
    run, source = _NestedMean(inner, g, estimate), _NestedSource(g, outer)
    ran = run_engine(
        run, source, n_resamples=b, seed=seed_int, engine=engine, batch=batch, workers=workers,
        kernel=NO_KERNEL,
    )  # fmt: skip
    reps, engine_notes = ran.values, ran.notes
    if resample == "both":
        jack = _cluster_jackknife(means, g)
    else:  # leave one sample out of its question
        k = np.repeat(g.counts, g.counts).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            loo_mean = (np.repeat(sums, g.counts) - xs) / (k - 1)
        jack = estimate + (loo_mean - np.repeat(means, g.counts)) / m
        jack = jack[k > 1]
    with collect_warnings() as caught:
        out = compute_interval(
            method, estimate, reps, confidence_level,
            jackknife=jack if method == "bca" else None, bounds=bounds,
        )  # fmt: skip
    for w_ in caught:
        warn(w_.message, w_.category, stacklevel=2)
    if reps.min() == reps.max():
        warn(
            f"all {b} replicates are equal ({reps[0]:g}): the data give no variation to "
            f"resample with resample={resample!r}",
            DegenerateIntervalWarning,
            stacklevel=2,
        )
    what = "samples within questions" if resample == "samples" else "questions, then samples"
    n_cl = None if g.clusters is None else int(np.unique(g.clusters).size)
    where = f" in {n_cl} clusters" if n_cl is not None and resample == "both" else ""
    design = f"{what} resampled ({m} questions{where}, {n_rows} samples)"
    return NestedResult(
        estimate=estimate, low=out.low, high=out.high, confidence_level=confidence_level,
        method=method, metric="mean", n=n_rows, n_clusters=n_cl if resample == "both" else None,
        effective_n=math.nan, n_resamples=b, seed=seed_int,
        standard_error=float(np.std(reps, ddof=1)) if b > 1 else 0.0, n_undefined=0,
        mcse_low=out.mcse_low, mcse_high=out.mcse_high, design=design, transform=None,
        distribution=freeze(reps), jackknife=freeze(jack),
        notes=(*auto_note, *engine_notes, *out.notes),
        details=dict(out.details), resample=resample, n_items=m,
        samples_per_item=float(g.counts.mean()), min_samples=int(g.counts.min()),
        max_samples=int(g.counts.max()), var_between=var_between, var_within=var_within,
        se_analytic=se_analytic,
    )  # fmt: skip


class _NestedSource(WeightSource):
    """A two-level weight source: questions (or clusters of questions) drawn by ``outer``
    (all kept once when ``outer`` is None), then, for every copy of a question, its ``k``
    samples drawn again with replacement.

    ``unit_weights(seed, start, stop)`` counts how often each sample row (in question
    order) is drawn in replicates ``start .. stop - 1``. Replicate ``b`` draws its samples
    from its own stream (``samples``, key ``b``), so it does not depend on the batching.
    """

    clustered = False
    stream = "samples"

    def __init__(self, g: _Items, outer: Any) -> None:
        self.g, self.outer = g, outer
        self.n_rows = int(g.counts.sum())
        # replicates per batch: at most 2**20 counts (8 MiB) held at once
        self.block_size = max(1, min(_INNER_BLOCK, (1 << 20) // max(self.n_rows, 1)))

    def unit_weights(self, seed: int, start: int, stop: int) -> np.ndarray:
        g, m = self.g, self.g.counts.size
        if self.outer is None:
            w = np.ones((stop - start, m))
        else:
            w = self.outer.row_weights(self.outer.unit_weights(seed, start, stop))
        out = np.empty((stop - start, self.n_rows))
        for row in range(stop - start):
            rng = generator("samples", seed, start + row)
            copies = w[row].astype(np.int64)
            item_of_draw = np.repeat(np.arange(m), copies * g.counts)
            idx = g.starts[item_of_draw] + rng.integers(0, g.counts[item_of_draw])
            out[row] = np.bincount(idx, minlength=self.n_rows)
        return out


class _NestedMean:
    """The engine's view of the mean of question means under two-level weights: a
    question drawn ``c`` times contributes ``c`` resampled means, and a sample row drawn
    ``d`` times adds ``d / k`` of its value to its question's copies."""

    design = None
    has_standard_error = False
    thread_safe = True

    def __init__(self, inner: np.ndarray, g: _Items, estimate: float) -> None:
        k = np.repeat(g.counts, g.counts).astype(float)
        self._stats = np.column_stack([inner / k, 1.0 / k])
        self._estimate = estimate

    def estimate(self) -> float:
        return self._estimate

    def replicates(self, counts: np.ndarray) -> np.ndarray:
        sums = matmul(counts, self._stats)  # each row summed the same way in any batch
        return sums[:, 0] / sums[:, 1]


def _analytic_se(resample: str, means: np.ndarray, g: _Items, ss: np.ndarray) -> float:
    """The standard error of the mean of question means from the variance components.

    ``items``: the variance of question means over the number of questions (cluster-
    robust over clusters of questions), which estimates Miller's
    ``(sigma_between^2 + sigma_within^2 / K) / n``. ``samples``: the within-question
    part alone, ``sum(s_i^2 / k_i) / n^2``. ``both``: their sum.
    """
    m = means.size
    with np.errstate(invalid="ignore", divide="ignore"):
        within = float(np.nansum(ss / np.maximum(g.counts - 1, 1) / g.counts)) / m**2
    if m < 2:
        between = math.nan
    elif g.clusters is None:
        between = float(np.var(means, ddof=1)) / m
    else:
        _, code = dense_codes(g.clusters)[:2]
        resid = np.bincount(code, weights=means - means.mean())
        n_g = resid.size
        between = n_g / (n_g - 1) * float(np.sum(resid**2)) / m**2 if n_g > 1 else math.nan
    if resample == "items":
        return math.sqrt(between)
    if resample == "samples":
        return math.sqrt(within)
    return math.sqrt(between + within)


def _cluster_jackknife(means: np.ndarray, g: _Items) -> np.ndarray:
    """Leave-one-unit-out means of question means (units: questions or clusters)."""
    if g.clusters is None:
        m = means.size
        return (means.sum() - means) / (m - 1)
    _, code = dense_codes(g.clusters)[:2]
    sums = np.bincount(code, weights=means)
    sizes = np.bincount(code)
    return (means.sum() - sums) / (means.size - sizes)
