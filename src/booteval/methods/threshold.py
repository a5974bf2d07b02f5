"""Operating-point metrics with the decision threshold refitted per resample.

A classifier's F1, precision or recall depends on the threshold that turns
scores into decisions (here: predict positive when ``score >= threshold``). When
that threshold is *chosen on a validation set* by a rule (maximize F1, Youden's
J, precision at a target recall, recall at a target precision), its choice is
itself uncertain, and an interval that holds the threshold fixed is too narrow.

:func:`threshold_ci` is a two-level bootstrap: each replicate resamples the
validation set, refits the threshold on the resample with the rule, resamples
the test set, and scores the test resample at that threshold. The interval
covers both the test-set sampling variability and the threshold-selection
variability. ``refit=False`` gives the single-level interval (the threshold is
fitted once, on the whole validation set, and only the test set is resampled).
:func:`threshold_compare` does the same for two systems on the same rows, both
refitted on the same validation resample and scored on the same test resample,
and reports the paired difference ``B - A``.

Conventions
-----------
Candidate thresholds
    The distinct validation scores. A rule only considers thresholds at which at
    least one (weighted) validation row is predicted positive.
Ties
    Among thresholds that reach the rule's optimum, the *highest* is chosen. It
    is always a score present in the (resampled) validation set, so the search
    over all distinct validation scores gives the same threshold as a search
    over the scores that the resample contains.
Rules (``rule=``)
    ``"max_f1"`` maximizes F1; ``"youden"`` maximizes Youden's J = TPR - FPR;
    ``"precision_at_recall"`` picks the highest-precision threshold whose
    recall is at least ``target``; ``"recall_at_precision"`` the highest-recall
    threshold whose precision is at least ``target``. A callable
    ``f(y_val, s_val, weights) -> threshold`` (``y_val`` as 0/1 integers,
    ``weights`` the row counts of one resample) is called once per replicate.
Undefined replicates
    A validation resample with a single class, a target no threshold reaches,
    or a test metric with a zero denominator (precision with no predicted
    positive) make the replicate undefined: it is dropped and counted
    (``on_undefined="drop"``) or raises (``"raise"``).
Reproducibility
    The validation and test weights come from two independent designs whose
    seeds are derived from the one ``seed``, so the result does not depend on
    ``batch`` (or on the threads of the compiled engine), and ``refit=False`` uses
    exactly the same test resamples as ``refit=True``. The default engine draws them
    with the compiled kernel (:mod:`booteval.core.threshold_kernels`, on the
    ``kernels.threshold.val`` and ``.test`` streams) for a named rule; a callable rule,
    or ``engine="numpy"``, takes them from the ``threshold`` stream of
    :mod:`booteval.core.streams` at keys 0 and 1. The two engines' resamples differ,
    equally valid, for the same seed.
Speed
    The compiled kernel takes, per replicate, one pass over the validation rows in
    score order (the rule evaluated at the end of each tie group) and adds each drawn
    test row to the counts at the replicate's threshold. On the NumPy engine the
    validation scores are sorted once; for a batch of replicates the weighted
    cumulative counts of positives and predicted positives over the candidate
    thresholds, arrays of shape ``(batch, n_val)``, give every replicate's optimum at
    once, and the test confusion counts come from one masked pass over the test
    weights. No per-replicate Python loop unless the rule is a callable.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.engine import check_choice, check_run_options
from ..core.errors import collect_warnings
from ..core.intervals import RESAMPLED
from ..core.options import entry_point
from ..core.validation import (
    check_names,
)
from ..inference.comparison import ALTERNATIVES, ComparisonResult, bootstrap_p_value
from ..results import CIResult, IntervalRecipe, LazyJackknife, freeze, with_notes
from .threshold_fit import (
    THRESHOLD_METRICS,
    THRESHOLD_RULES,
    CountMetric,
    fit_threshold,
    threshold_metric,
)
from .threshold_run import _interval, _pooled_jackknife, _reemit, _run, _setup

__all__ = [
    "THRESHOLD_METRICS",
    "THRESHOLD_RULES",
    "ThresholdCIResult",
    "ThresholdComparisonResult",
    "fit_threshold",
    "threshold_ci",
    "threshold_compare",
    "threshold_metric",
]


# ------------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class ThresholdCIResult(CIResult):
    """A :class:`~booteval.CIResult` for an operating-point metric, with its thresholds.

    ``n`` and ``n_clusters`` describe the test set; ``design`` describes both
    levels.

    Attributes not listed below are as in :class:`~booteval.CIResult`.

    Attributes
    ----------
    rule : str
        The threshold rule (with its target).
    target : float or None
    refit : bool
        Whether the threshold was refitted on every validation resample.
    threshold : float
        The threshold fitted on the whole validation set (the estimate uses it).
    thresholds : ndarray
        The threshold of every defined replicate, aligned with ``distribution``
        (all equal to ``threshold`` when ``refit=False``).
    n_val : int
        Number of validation rows.
    """

    rule: str = ""
    target: float | None = None
    refit: bool = True
    threshold: float = math.nan
    thresholds: np.ndarray | None = field(repr=False, default=None)
    n_val: int = 0

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """The interval, method, both designs, B, seed and the spread of the thresholds."""
        pct = f"{self.confidence_level * 100:g}%"
        lines = [
            f"{self.metric}: {self.format(scale, digits)}",
            f"  {pct} {self.method} interval; {self.design}",
            f"  B = {self.n_resamples} resamples, seed = {self.seed}"
            + (f", {self.n_undefined} undefined (dropped)" if self.n_undefined else ""),
            f"  standard error {self.standard_error * scale:.{digits}g}",
            f"  threshold fitted on the validation set: {self.threshold:.6g}",
        ]
        if self.refit and self.thresholds is not None and self.thresholds.size:
            lo, mid, hi = np.quantile(self.thresholds, [0.025, 0.5, 0.975])
            lines.append(
                f"  refitted thresholds: median {mid:.6g}, 95% of them in ({lo:.6g}, {hi:.6g})"
            )
        return with_notes(lines, self.notes)

    def __repr__(self) -> str:
        names = "metric estimate low high threshold method refit n_resamples seed"
        return self._short_repr(names)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (no arrays)."""
        out = super().to_dict()
        out.update(rule=self.rule, target=self.target, refit=self.refit,
                   threshold=self.threshold, n_val=self.n_val)  # fmt: skip
        return out


@dataclass(frozen=True, eq=False)
class ThresholdComparisonResult(ComparisonResult):
    """A :class:`~booteval.results.ComparisonResult` of an operating-point metric, with thresholds.

    ``n`` and ``n_clusters`` describe the test set; ``design`` describes both
    levels.

    Attributes not listed below are as in :class:`~booteval.results.ComparisonResult`.

    Attributes
    ----------
    rule : str
    target : float or None
    refit : bool
    threshold_a, threshold_b : float
        Each system's threshold fitted on the whole validation set.
    thresholds_a, thresholds_b : ndarray
        Each system's threshold in every defined replicate (aligned with
        ``distribution``).
    n_val : int
    """

    rule: str = ""
    target: float | None = None
    refit: bool = True
    threshold_a: float = math.nan
    threshold_b: float = math.nan
    thresholds_a: np.ndarray | None = field(repr=False, default=None)
    thresholds_b: np.ndarray | None = field(repr=False, default=None)
    n_val: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (no arrays)."""
        out = super().to_dict()
        out.update(rule=self.rule, target=self.target, refit=self.refit,
                   threshold_a=self.threshold_a, threshold_b=self.threshold_b,
                   n_val=self.n_val)  # fmt: skip
        return out


# ------------------------------------------------------------------ public
@entry_point
def threshold_ci(
    y_val: Any, s_val: Any, y_test: Any, s_test: Any, *,
    rule: str | Callable[..., float] = "max_f1", metric: str | CountMetric | None = None,
    target: float | None = None, method: str = "percentile", confidence_level: float = 0.95,
    n_resamples: int = 2_000, seed: int | None = None, refit: bool = True, pos_label: Any = 1,
    strata_val: Any = None, clusters_val: Any = None, strata_test: Any = None,
    clusters_test: Any = None, batch: int | None = None, on_undefined: str = "drop",
    bca_ties: str = "half", engine: str = "auto", progress: Any = None,
    workers: int | None = None,
) -> ThresholdCIResult:  # fmt: skip
    """Interval for a test metric at a threshold chosen on validation data (two-level bootstrap).

    Every replicate resamples the validation set, refits the threshold on the
    resample with ``rule``, resamples the test set and scores it at that
    threshold, so the interval includes the uncertainty of the threshold choice.
    With ``refit=False`` the threshold is fitted once on the whole validation
    set and only the test set is resampled (the usual, narrower, single-level
    interval: right only when the threshold is fixed in advance).

    Parameters
    ----------
    y_val, s_val : array-like
        Validation labels (binary, both classes present) and scores.
    y_test, s_test : array-like
        Test labels and scores. A row is predicted positive when
        ``score >= threshold``.
    rule : {"max_f1", "youden", "precision_at_recall", "recall_at_precision"} or callable
        How the threshold is chosen (see the module notes): a name, or
        ``f(y_val, s_val, weights) -> threshold`` called once per replicate with
        0/1 labels and the row counts of the validation resample.
    metric : str or callable, optional
        One of ``"f1"``, ``"precision"``, ``"recall"``, ``"specificity"``,
        ``"youden"``, ``"accuracy"``.
        The test metric, by default the rule's own (``max_f1`` -> ``"f1"``,
        ``youden`` -> ``"youden"``, ``precision_at_recall`` -> ``"precision"``,
        ``recall_at_precision`` -> ``"recall"``). A callable receives arrays of
        weighted confusion counts ``(tp, fp, fn, tn)`` and returns an array.
    target : float, optional
        Target recall (``precision_at_recall``) or precision
        (``recall_at_precision``), strictly between 0 and 1; required by those
        rules and refused by the others.
    method : {"percentile", "basic", "normal", "bca"}
        ``"percentile"`` (default) reports the spread of the refitted procedure
        as it is. With ``refit=True`` most replicates usually fall below the
        estimate (a threshold refitted on a resample seldom beats the one fitted
        on all the validation data), and BCa's bias correction then pulls the
        interval up towards the estimate, often to the extreme replicates (with
        a warning). ``"bca"`` takes its acceleration from a two-sample jackknife
        (leave one validation unit out and refit; leave one test unit out),
        which costs about ``n_val`` extra refits.
    confidence_level : float
    n_resamples : int
    seed : int, optional
        One seed for both levels; the same seed gives the same result for any
        ``batch``.
    refit : bool
        Refit the threshold on every validation resample (default) or not.
    pos_label : label
        The positive class (default 1).
    strata_val, clusters_val, strata_test, clusters_test : array-like, optional
        Resampling designs of the two sets, as ``strata=`` and ``clusters=`` of
        :func:`booteval.ci`. ``strata_val=y_val`` keeps both classes in every
        validation resample.
    batch : int, optional
        Replicates processed at once; never changes the result.
    workers : int, optional
        Threads (default: all cores) for a named rule, on either engine; a callable rule
        runs on one thread (it need not be thread-safe). Never changes the result.
    {engine}
    {progress}
    on_undefined : {"drop", "raise"}
    bca_ties : {"half", "below"}

    Returns
    -------
    ThresholdCIResult
        The test-set metric at the chosen threshold, with its interval.

    Examples
    --------
    >>> import numpy as np, booteval
    >>> from booteval.threshold import threshold_ci
    >>> rng = np.random.default_rng(0)
    >>> def draw(n):
    ...     y = rng.integers(0, 2, n)
    ...     return y, y + rng.normal(0.0, 1.0, n)
    >>> y_val, s_val = draw(60)
    >>> y_test, s_test = draw(1000)
    >>> r = threshold_ci(y_val, s_val, y_test, s_test, rule="max_f1", seed=0)
    >>> fixed = threshold_ci(y_val, s_val, y_test, s_test, rule="max_f1", seed=0, refit=False)
    >>> print(r, "|", fixed)
    0.7299 (0.6323, 0.7555) | 0.7299 (0.7016, 0.7576)
    >>> bool(r.width > fixed.width), round(r.threshold, 3)
    (True, -0.32)
    """
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed, method=method,
        on_undefined=on_undefined, bca_ties=bca_ties, batch=batch, workers=workers,
    )  # fmt: skip
    problem = _setup(
        rule, target, metric, refit, y_val, [("s_val", s_val)], y_test, [("s_test", s_test)],
        pos_label, strata_val, clusters_val, strata_test, clusters_test,
    )  # fmt: skip
    with collect_warnings() as caught:
        run = _run(problem, opts, ["the system"], engine)
    _reemit(caught, 2)
    reps = run.values[run.defined, 0]
    est = float(run.estimates[0])

    def jackknife() -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            v, t = problem.jackknife(run.t_hat)
        return _pooled_jackknife(None if v is None else v[:, 0], t[:, 0])

    result = ThresholdCIResult(
        estimate=est, low=math.nan, high=math.nan, confidence_level=opts.confidence_level,
        method=opts.method, metric=problem.label, n=problem.design_test.n_rows,
        n_clusters=problem.design_test.n_clusters, effective_n=math.nan,
        n_resamples=opts.n_resamples, seed=opts.seed,
        standard_error=float(np.std(reps, ddof=1)) if reps.size > 1 else math.nan,
        n_undefined=run.n_undefined, mcse_low=math.nan, mcse_high=math.nan,
        design=problem.describe_design(), transform=None, distribution=freeze(reps),
        _recompute=IntervalRecipe(
            RESAMPLED, bounds=problem.bounds,
            ties=opts.bca_ties, jackknife=LazyJackknife(jackknife),
            notes_before=run.notes,
        ),
        rule=problem.rule.label(problem.target), target=problem.target,
        refit=problem.refit, threshold=float(run.t_hat[0]),
        thresholds=freeze(np.ascontiguousarray(run.thresholds[run.defined, 0])),
        n_val=problem.design_val.n_rows,
    )  # fmt: skip
    return result.with_method(opts.method)


@entry_point
def threshold_compare(
    y_val: Any, s_val_a: Any, s_val_b: Any, y_test: Any, s_test_a: Any, s_test_b: Any, *,
    rule: str | Callable[..., float] = "max_f1", metric: str | CountMetric | None = None,
    target: float | None = None, method: str = "percentile", confidence_level: float = 0.95,
    n_resamples: int = 2_000, seed: int | None = None, refit: bool = True,
    alternative: str = "two-sided", pos_label: Any = 1, strata_val: Any = None,
    clusters_val: Any = None, strata_test: Any = None, clusters_test: Any = None,
    batch: int | None = None, on_undefined: str = "drop", bca_ties: str = "half",
    names: tuple[str, str] = ("A", "B"), engine: str = "auto", progress: Any = None,
    workers: int | None = None,
) -> ThresholdComparisonResult:  # fmt: skip
    """Paired two-level bootstrap of ``B - A`` for an operating-point metric.

    In every replicate both systems refit their thresholds on the *same*
    validation resample and are scored on the *same* test resample; the
    difference of the two test metrics is the replicate. The p-value inverts the
    interval method (:func:`booteval.comparison.bootstrap_p_value`).

    Parameters
    ----------
    y_val : array-like
        Validation labels shared by both systems.
    s_val_a, s_val_b : array-like
        The two systems' validation scores.
    y_test : array-like
        Test labels shared by both systems.
    s_test_a, s_test_b : array-like
        The two systems' test scores.
    rule, metric, target, method, confidence_level, n_resamples, seed, refit
        As in :func:`threshold_ci`; each system gets its own threshold from the same rule.
    pos_label, strata_val, clusters_val, strata_test, clusters_test, batch, on_undefined, bca_ties
        As in :func:`threshold_ci`.
    engine, progress, workers
        As in :func:`threshold_ci`.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` tests whether B's metric is larger.
    names : (str, str)
        Display names of the systems.

    Returns
    -------
    ThresholdComparisonResult
        The difference ``B - A`` at each system's own threshold, with its interval.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.threshold import threshold_compare
    >>> rng = np.random.default_rng(1)
    >>> def draw(n):
    ...     y = rng.integers(0, 2, n)
    ...     a = y + rng.normal(0.0, 1.0, n)
    ...     return y, a, a + 0.6 * y + rng.normal(0.0, 0.3, n)   # B separates better
    >>> y_val, a_val, b_val = draw(200)
    >>> y_test, a_test, b_test = draw(1000)
    >>> r = threshold_compare(y_val, a_val, b_val, y_test, a_test, b_test, seed=0)
    >>> print(r.summary(scale=100, digits=1))  # doctest: +NORMALIZE_WHITESPACE
    f1 (threshold: max_f1, refit per resample): B - A = 4.5 (2.8, 10.1), p = 1.0e-03
    (bootstrap, two-sided); A 75.3, B 79.8
    """
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed, method=method,
        on_undefined=on_undefined, bca_ties=bca_ties, batch=batch, workers=workers,
    )  # fmt: skip
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    name_a, name_b = check_names(names)
    problem = _setup(
        rule, target, metric, refit, y_val, [("s_val_a", s_val_a), ("s_val_b", s_val_b)],
        y_test, [("s_test_a", s_test_a), ("s_test_b", s_test_b)], pos_label, strata_val,
        clusters_val, strata_test, clusters_test,
    )  # fmt: skip
    with collect_warnings() as caught:
        run = _run(problem, opts, [f"system {name_a}", f"system {name_b}"], engine)
    _reemit(caught, 2)
    reps = run.values[run.defined]
    diffs = reps[:, 1] - reps[:, 0]
    est = run.estimates
    diff_hat = float(est[1] - est[0])
    jack = None
    if opts.method == "bca":
        with np.errstate(divide="ignore", invalid="ignore"):
            v, t = problem.jackknife(run.t_hat)
        jack = [
            _pooled_jackknife(None if v is None else v[:, 1] - v[:, 0], t[:, 1] - t[:, 0]),
            _pooled_jackknife(None if v is None else v[:, 0], t[:, 0]),
            _pooled_jackknife(None if v is None else v[:, 1], t[:, 1]),
        ]
    bounds = None
    if problem.bounds is not None:
        lo, hi = problem.bounds
        bounds = (lo - hi, hi - lo)
    with collect_warnings() as caught:
        out = _interval(
            opts.method, diff_hat, diffs, opts.confidence_level,
            None if jack is None else jack[0], bounds, opts.bca_ties,
        )  # fmt: skip
        own = [
            _interval(
                opts.method, float(est[j]), reps[:, j], opts.confidence_level,
                None if jack is None else jack[1 + j], problem.bounds, opts.bca_ties, warn=False,
            )
            for j in (0, 1)
        ]  # fmt: skip
    _reemit(caught, 2)
    se = float(np.std(diffs, ddof=1)) if diffs.size > 1 else math.nan
    p_value = bootstrap_p_value(
        opts.method, diff_hat, diffs, alternative, jackknife_details=out.details
    )
    return ThresholdComparisonResult(
        metric=problem.label, name_a=name_a, name_b=name_b, estimate_a=float(est[0]),
        estimate_b=float(est[1]), difference=diff_hat, low=out.low, high=out.high,
        confidence_level=opts.confidence_level, method=opts.method, p_value=p_value,
        alternative=alternative, test="bootstrap", standard_error=se,
        excludes_zero=bool(out.low > 0 or out.high < 0),
        interval_a=(own[0].low, own[0].high), interval_b=(own[1].low, own[1].high),
        n=problem.design_test.n_rows, n_clusters=problem.design_test.n_clusters,
        n_resamples=opts.n_resamples, seed=opts.seed, n_undefined=run.n_undefined,
        mcse_low=out.mcse_low, mcse_high=out.mcse_high,
        design="paired " + problem.describe_design(), distribution=freeze(diffs),
        distribution_a=freeze(np.ascontiguousarray(reps[:, 0])),
        distribution_b=freeze(np.ascontiguousarray(reps[:, 1])),
        notes=(*run.notes, *out.notes),
        details=dict(out.details), rule=problem.rule.label(problem.target),
        target=problem.target, refit=problem.refit, threshold_a=float(run.t_hat[0]),
        threshold_b=float(run.t_hat[1]),
        thresholds_a=freeze(np.ascontiguousarray(run.thresholds[run.defined, 0])),
        thresholds_b=freeze(np.ascontiguousarray(run.thresholds[run.defined, 1])),
        n_val=problem.design_val.n_rows,
    )  # fmt: skip
