"""``booteval.compare``: the paired comparison of two systems on the same rows."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ..core.design import Design, make_design
from ..core.engine import (
    NO_KERNEL,
    check_choice,
    check_run_options,
    draw_key,
    run_engine,
    screen_undefined,
)
from ..core.errors import DegenerateIntervalWarning, InvalidInputError, collect_warnings, warn
from ..core.intervals import (
    METHODS,
    RESAMPLED,
    STUDENTIZED,
    compute_interval,
    studentized_pivots,
    vacuous_note,
)
from ..core.jackknife_t import JACKKNIFE_T
from ..core.options import entry_point
from ..core.paired import StackedEvaluator, check_defined, pair_inputs, paired_arrays
from ..core.params import ALTERNATIVES, TESTS
from ..core.philox import describe_source, weight_source
from ..distributed.run import frame_route, run_table
from ..metrics import Metric
from ..metrics.base import Evaluator, deferred_compression
from ..metrics.linearize import linearized_se
from ..metrics.registry import resolve_metric
from ..metrics.regression import Mean
from ..results import freeze
from .auto_method import CLOSED_FORMS, choose, paired_case_of, paired_closed_form, reason
from .classical import disagreement_note
from .comparison_results import ComparisonResult
from .confidence import TINY_ROWS, SharedDraws, shared_run, system_ci, warn_tiny
from .design_effect import clustered_effective_n, row_jackknife
from .jackknife_forms import paired_jackknife_t

__all__ = ["ALTERNATIVES", "TESTS", "ComparisonResult", "compare"]

#: tests that can supply ``compare``'s p-value (the interval is always the bootstrap's)


class _Difference(Evaluator):
    """``B - A`` from a stacked evaluator of two systems."""

    def __init__(self, stacked: StackedEvaluator) -> None:
        super().__init__(stacked.n_rows, stacked.n_units)
        self.stacked = stacked
        self.design = stacked.design
        self.thread_safe = stacked.thread_safe
        a, b = stacked.parts
        # both metrics linearize on one design: the delta-method standard error of B - A
        self.has_standard_error = (
            getattr(a, "gradient", None) is not None
            and getattr(b, "gradient", None) is not None
            and a.design is b.design
        )

    def standard_errors(self, unit_weights: np.ndarray) -> np.ndarray:
        a, b = self.stacked.parts
        if not self.has_standard_error:
            return super().standard_errors(unit_weights)
        stats_a, grad_a = a.linear_terms(unit_weights)
        stats_b, grad_b = b.linear_terms(unit_weights)
        return linearized_se(unit_weights, [(stats_b, grad_b), (stats_a, -grad_a)], a.strata_units)

    def estimate(self) -> float:
        e = self.stacked.estimate()
        return float(e[1] - e[0])

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        r = self.stacked.replicates(unit_weights)
        return r[:, 1] - r[:, 0]

    def jackknife(self) -> np.ndarray:
        j = self.stacked.jackknife()
        return j[:, 1] - j[:, 0]


class _PairWithDifferenceSE(Evaluator):
    """Both systems' values (``(batch, 2)``) and the standard error of ``B - A`` in each
    replicate, from the *same* weights: the studentized comparison's t* divides each
    resample's difference by that resample's own standard error (analytic where both
    metrics linearize, else a nested bootstrap of the difference)."""

    def __init__(self, difference: _Difference) -> None:
        stacked = difference.stacked
        super().__init__(stacked.n_rows, stacked.n_units)
        self.difference = difference
        self.design = stacked.design
        self.thread_safe = stacked.thread_safe
        self.has_standard_error = difference.has_standard_error

    def estimate(self) -> np.ndarray:  # type: ignore[override]
        return self.difference.stacked.estimate()

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        return self.difference.stacked.replicates(unit_weights)

    def studentized_values(self, unit_weights: np.ndarray) -> np.ndarray:
        return self.difference.replicates(unit_weights)

    def standard_errors(self, unit_weights: np.ndarray) -> np.ndarray:
        return self.difference.standard_errors(unit_weights)

    def jackknife(self) -> np.ndarray:
        return self.difference.stacked.jackknife()


def _tail_mass(values: np.ndarray, x: float, upper: bool) -> float:
    """``(1 + #{v >= x})/(B + 1)`` (or ``<=``), ties with ``x`` counting one half."""
    strict = np.count_nonzero(values > x) if upper else np.count_nonzero(values < x)
    ties = np.count_nonzero(values == x)
    return (1.0 + strict + 0.5 * ties) / (values.size + 1.0)


def bootstrap_p_value(
    method: str, estimate: float, replicates: np.ndarray, alternative: str, *,
    jackknife_details: dict[str, Any] | None = None, standard_error: float | None = None,
    t_statistics: np.ndarray | None = None,
) -> float:  # fmt: skip
    """The p-value of "no difference" that inverts the interval method.

    The one-sided p-value for ``"greater"`` is the tail level at which the
    method's lower endpoint reaches 0 (so a two-sided interval at level
    ``1 - alpha`` excludes 0 exactly when the two-sided p-value is below
    ``alpha``, up to the resolution of ``B`` replicates). For
    ``"studentized-symmetric"`` the two-sided p-value is the share of ``|t*|`` at
    least ``|t|``, and a one-sided one is that of ``"studentized"``. Empirical tail masses
    use the ``(1 + count) / (B + 1)`` correction, so no p-value is 0.

    Examples
    --------
    >>> reps = np.linspace(-1.0, 3.0, 401)
    >>> round(bootstrap_p_value("percentile", 1.0, reps, "greater"), 3)
    0.252
    """
    if method in RESAMPLED:
        tails = replicate_tails(method, estimate, replicates)
        return resampled_p_value(method, estimate, tails, alternative, jackknife_details)
    # studentized
    if t_statistics is None or standard_error is None or not standard_error > 0:
        return bootstrap_p_value("percentile", estimate, replicates, alternative)
    t_hat = estimate / standard_error
    if method == "studentized-symmetric" and alternative == "two-sided":
        # the symmetric interval excludes 0 when |t| passes the quantile of |t*|; a
        # one-sided test has no symmetric form and uses the equal-tailed tail below
        p_two = _tail_mass(np.abs(t_statistics), abs(t_hat), upper=True)
        return float(min(1.0, max(p_two, 1.0 / (replicates.size + 1.0))))
    p_greater = _tail_mass(t_statistics, t_hat, upper=True)
    return _sided(p_greater, replicates.size, alternative)


def replicate_tails(
    method: str, estimate: float, replicates: np.ndarray
) -> tuple[float, float, int]:
    """What :func:`resampled_p_value` reads of the replicates for ``method``: for
    percentile and BCa the counts below and at 0, for the basic interval the counts above
    and at ``2 * estimate``, for the normal interval their mean and SD (``ddof=1``); and
    ``B``.

    Examples
    --------
    >>> replicate_tails("bca", 1.0, np.array([-1.0, 0.0, 2.0, 3.0]))
    (1, 1, 4)
    """
    b = replicates.size
    if method == "normal":
        return float(np.mean(replicates)), float(np.std(replicates, ddof=1)), b
    if method == "basic":
        x = 2.0 * estimate
        return int(np.count_nonzero(replicates > x)), int(np.count_nonzero(replicates == x)), b
    return int(np.count_nonzero(replicates < 0.0)), int(np.count_nonzero(replicates == 0.0)), b


def resampled_p_value(
    method: str, estimate: float, tails: tuple[float, float, int], alternative: str,
    jackknife_details: dict[str, Any] | None = None,
) -> float:  # fmt: skip
    """:func:`bootstrap_p_value` of a percentile, BCa, basic or normal interval from what
    it reads of the replicates (:func:`replicate_tails`), for many p-values from counts.

    Examples
    --------
    >>> resampled_p_value("percentile", 1.0, (0, 0, 99), "two-sided")  # no replicate <= 0
    0.02
    """
    a, t, b = tails
    if method in ("percentile", "bca"):
        q = (1.0 + a + 0.5 * t) / (b + 1.0)  # mass at or below 0
        inside = 0 < a + t < b
        # with every replicate on one side of 0, BCa's interval stops at the extreme
        # replicate at any level, so it excludes 0: the unmapped tail mass is right
        if (
            method == "bca"
            and inside
            and jackknife_details
            and math.isfinite(jackknife_details.get("z0", math.nan))
            and math.isfinite(jackknife_details.get("acceleration", math.nan))
        ):
            z0, acc = jackknife_details["z0"], jackknife_details["acceleration"]
            w = float(ndtri(min(max(q, 1e-300), 1 - 1e-16))) - z0
            if 1.0 + acc * w > 0:
                q = float(ndtr(w / (1.0 + acc * w) - z0))
        return _sided(q, b, alternative)
    if method == "basic":
        return _sided((1.0 + a + 0.5 * t) / (b + 1.0), b, alternative)
    centre, sd = 2.0 * estimate - a, t
    p_greater = float(ndtr(-centre / sd)) if sd > 0 else (0.0 if centre > 0 else 1.0)
    return _sided(p_greater, b, alternative, normal=True)


def _sided(p_greater: float, b: int, alternative: str, normal: bool = False) -> float:
    """The p-value of ``alternative`` from the one-sided ``"greater"`` tail (resolved to
    ``1 / (B + 1)`` for an empirical tail; the normal tail is exact)."""
    if normal:
        p_less = 1.0 - p_greater
    else:
        # B replicates resolve tail masses down to 1 / (B + 1), no further
        floor = 1.0 / (b + 1.0)
        p_greater = max(p_greater, floor)
        p_less = max(1.0 + floor - p_greater, floor)
    if alternative == "greater":
        return float(min(1.0, p_greater))
    if alternative == "less":
        return float(min(1.0, p_less))
    return float(min(1.0, 2.0 * min(p_greater, p_less)))


def _bind_pair(
    m: Metric, data: tuple[Any, ...], names: tuple[str, str], design_of: Callable[[int], Design]
) -> tuple[StackedEvaluator, Design, tuple[tuple[np.ndarray, ...], ...], list[Evaluator]]:
    arr_a, arr_b, n_a = paired_arrays(m, data, *names)
    design = design_of(n_a)
    with deferred_compression():  # the pair is compressed jointly, once
        bound = [m.bind(arr_a, design), m.bind(arr_b, design)]
    stacked = StackedEvaluator(bound, design)
    return stacked, design, (arr_a, arr_b), bound


@entry_point
def compare(
    *data: Any, metric: str | Metric | Callable[..., float] | None = None, method: str = "auto",
    confidence_level: float = 0.95, n_resamples: int = 10_000, seed: int | None = None,
    batch: int | None = None, strata: Any = None, clusters: Any = None,
    alternative: str = "two-sided", on_undefined: str = "drop",
    metric_kwargs: dict[str, Any] | None = None, n_inner: int = 50, bca_ties: str = "half",
    workers: int | None = None, engine: str = "auto", design: str = "multinomial",
    progress: Any = None, names: tuple[str, str] = ("A", "B"), test: str = "bootstrap",
    **columns: Any,
) -> ComparisonResult:  # fmt: skip
    """Paired comparison of two systems scored on the same rows: ``B - A`` with an interval.

    Both systems are resampled with the *same* weights in every replicate, so
    what the rows share (hard rows are hard for both) cancels out of the
    difference. Never judge a difference by whether two separate intervals
    overlap.

    Parameters
    ----------
    *data : array-like
        ``scores_a, scores_b`` for a per-row score metric (the mean by default),
        or ``y_true, pred_a, pred_b`` (labels, or scores) for a metric of two
        inputs.
    metric, confidence_level, n_resamples, seed, batch : see :func:`booteval.ci`
    method : str, default "auto"
        The interval of the difference: a method of :func:`booteval.ci`, or ``"auto"``,
        which picks by the coverage atlas's rules
        (``booteval.inference.auto_method.RULES``) from the metric, the design and the
        data: Tango's score interval (:func:`booteval.closed_forms.tango_interval`) for a
        difference of two accuracies (or 0/1 scores) on independent rows with fewer than
        30 discordant rows, where every bootstrap interval under-covers; with clusters,
        for accuracies and means the CR2 cluster-robust t interval of the per-row
        differences (:func:`booteval.closed_forms.cluster_robust_interval`), and for another
        metric with an analytic standard error the symmetric bootstrap-t below 30 clusters and the
        equal-tailed one from 30, for one without the percentile interval from 30
        clusters (Kendall's tau beyond 1,000 rows: BCa) and below 30 the cluster jackknife
        t interval of ``B - A`` (``"jackknife-t"``, where it can be formed); BCa
        otherwise. Where the bootstrap-t it takes is unbounded or spans the difference's
        whole range, it gives the cluster jackknife t of ``B - A`` with clusters and BCa
        without, with a note. ``result.method`` and the first note say which was chosen
        and why. With a closed form the ``"bootstrap"`` p-value inverts it
        (``result.test`` names it); a bootstrap-t p-value reads the same pivots as its
        interval. Each system's own
        interval (``interval_a``, ``interval_b``) is the one :func:`booteval.ci` gives for
        it with the same ``method``, to the last bit.
    strata, clusters, on_undefined, metric_kwargs, n_inner, bca_ties, workers, engine
        As in :func:`booteval.ci`; the interval is for the difference. The compiled
        kernels (``engine=``) cover sum, ROC-AUC and rank metrics, one draw per replicate
        for both systems; elsewhere ``engine="numba"`` runs the NumPy engine and says so.
        A studentized difference runs on the compiled engine for two means (the mean of
        the per-row differences, as :func:`booteval.ci` studentizes a mean), and on the
        NumPy engine otherwise, with each replicate's standard error from the same draws
        as its difference.
    {design}
    alternative : {"two-sided", "greater", "less"}
        For the p-value: ``"greater"`` tests whether B's metric is larger.
    names : (str, str)
        Display names of the two systems.
    test : {"bootstrap", "permutation", "mcnemar", "delong", "t"}
        What computes the p-value; the interval is the bootstrap's in every
        case. ``"bootstrap"`` inverts the interval method (so the interval
        excludes 0 when ``p < 1 - confidence_level``); ``"permutation"`` is the
        paired approximate randomization test (swapping clusters under a
        cluster design, with ``n_resamples`` permutations, exact when few);
        ``"mcnemar"`` (exact, accuracy only), ``"delong"`` (ROC-AUC only) and
        ``"t"`` (paired t, cluster-robust with ``clusters``; the mean only) are
        the classical tests. The test's own result is in ``details["test_result"]``.

    {progress}
    **columns : str or list of two str
        For a table (a pandas, Dask or Spark DataFrame, or a Parquet path or glob): the
        column of each of the metric's inputs, by the input's name, with a list of two
        columns (A's, then B's) where the systems differ:
        ``compare(table, metric="accuracy", y_true="label", y_pred=["pred_a", "pred_b"])``
        or ``compare(table, scores=["score_a", "score_b"], method="percentile")``. Both
        systems share every row's Poisson(1) weight, as :func:`booteval.ci` runs a table;
        ``clusters`` is then a column name, and ``test`` is ``"bootstrap"``.

    Returns
    -------
    ComparisonResult
        The difference ``B - A``, its interval and p-value, and each system's own interval.

    Examples
    --------
    >>> import numpy as np, booteval
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 500)
    >>> a = np.where(rng.random(500) < 0.80, y, 1 - y)
    >>> b = np.where(rng.random(500) < 0.5, a, y)      # B fixes about half of A's errors
    >>> r = booteval.compare(y, a, b, metric="accuracy", seed=0)
    >>> print(r.format(scale=100, digits=1), r.excludes_zero)
    9.4 (7.0, 12.2) True
    """
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    test = check_choice(test, "test", TESTS)
    check_choice(method, "method", ("auto", *METHODS))  # every method, and the default
    table = frame_route(
        data, columns, design="multinomial", method="auto", metric=metric,
        metric_kwargs=metric_kwargs, strata=strata, transform=None, clusters=clusters,
    )  # fmt: skip
    if table is not None:
        if test != "bootstrap":
            raise InvalidInputError(
                "test", "'bootstrap' for a table (the classical tests need arrays)", repr(test)
            )  # fmt: skip
        return _compare_table(
            table, names=names, metric=metric, metric_kwargs=metric_kwargs, method=method,
            confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
            on_undefined=on_undefined, design=design, progress=progress,
            alternative=alternative, bca_ties=bca_ties,
        )  # fmt: skip
    auto = method == "auto"
    opts = base_opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        method="bca" if auto else method, on_undefined=on_undefined, bca_ties=bca_ties,
        batch=batch, n_inner=n_inner, workers=workers, engine=engine,
    )  # fmt: skip
    name_a, name_b, m = pair_inputs(data, names, metric, metric_kwargs)
    stacked, plan, arrays, bound = _bind_pair(
        m, data, (name_a, name_b), lambda k: make_design(k, strata=strata, clusters=clusters)
    )
    n = plan.n_rows
    est = stacked.estimate()
    check_defined(m, est, (name_a, name_b))
    b = opts.n_resamples
    diff_ev = _Difference(stacked)
    rule = case = None
    if auto:
        case = paired_case_of(
            m, *arrays, plan, studentized=design == "multinomial",
            analytic_se=diff_ev.has_standard_error,
        )  # fmt: skip
        rule = choose(case)
        opts = replace(
            opts, method="percentile" if rule.method in CLOSED_FORMS else rule.method
        )  # fmt: skip
    source = weight_source(design, plan, stacked.design, clusters, opts.method)
    ses = estimate_se = None
    run = shared_run(
        stacked, source, opts, may_studentize=auto or opts.method in STUDENTIZED, design=design
    )
    reps, system_ses, engine_notes, ran, key = (
        run.values, run.standard_errors, run.notes, run.engine, run.key
    )  # fmt: skip
    if opts.method in STUDENTIZED:
        ses, estimate_se = _mean_difference_ses(m, arrays, plan, source, opts, key)
        if ses is None:
            # the differences and their standard errors from the same draws, on the NumPy
            # engine (the compiled kernels have no standard error of a difference)
            run = run_engine(
                _PairWithDifferenceSE(diff_ev), source, opts, want_se=True, kernel=NO_KERNEL
            )
            reps, ses, ran, engine_notes = run.values, run.standard_errors, "", run.notes
            key, system_ses = draw_key(stacked, source, None), None
            estimate_se = _estimate_se(diff_ev)
    shared = SharedDraws(key, reps, system_ses)
    defined = np.isfinite(reps).all(axis=1)
    n_undefined = screen_undefined(
        defined, f"metric {m.label!r} (on system {name_a} or {name_b})", opts.on_undefined,
        reason=None,
    )  # fmt: skip
    reps = reps[defined]
    jack = stacked.jackknife() if opts.method == "bca" else None
    rep_ses = ses[defined] if ses is not None else None
    closed = rule is not None and rule.method in CLOSED_FORMS
    method_used = opts.method
    with collect_warnings() as caught:
        diff_hat, diffs, se_hat, out, own = _paired_intervals(
            opts.method, est, reps, jack, opts.confidence_level, m.bounds, opts.bca_ties,
            rep_ses, estimate_se, systems=False,
        )  # fmt: skip
    jackknife_p = None
    if auto and not closed and out.details.get("vacuous"):
        # the default never answers with an interval that says nothing (as ci's, see
        # default_fallback.bounded_default): with clusters, B - A's cluster jackknife t
        # (and the p-value that inverts it); else, or where it has no width, BCa from the
        # same replicates; a note says which
        caught = [w for w in caught if not issubclass(w.category, DegenerateIntervalWarning)]
        formed = None
        if plan.clustered:
            formed = paired_jackknife_t(
                m, (arrays[0], arrays[1]), plan.unit_of_row, opts.confidence_level, alternative
            )  # fmt: skip
        if formed is not None:
            jt, jackknife_p = formed
            instead = f"the cluster jackknife t interval of B - A ({jt.describe()})"
            details = {k: v for k, v in out.details.items() if k != "vacuous"}
            out = replace(out, low=jt.low, high=jt.high, mcse_low=0.0, mcse_high=0.0,
                          details=details)  # fmt: skip
            method_used = JACKKNIFE_T
        else:
            with collect_warnings() as more:
                jack = stacked.jackknife()
                diff_hat, diffs, se_hat, out, own = _paired_intervals(
                    "bca", est, reps, jack, opts.confidence_level, m.bounds, opts.bca_ties,
                    systems=False,
                )  # fmt: skip
            caught = [*caught, *more]
            method_used, instead = "bca", "BCa from the same replicates"
        rep_ses = None
        out = replace(out, notes=(vacuous_note(opts.method, instead), *out.notes))
    with collect_warnings() as caught_systems:
        # each system's own interval: booteval.ci's, from these draws where ci draws the same
        own = [
            system_ci(
                m, arrays[j], plan, base_opts, auto=auto, clusters=clusters, design=design,
                shared=(shared, j), warnings_to=[], evaluator=bound[j],
            )
            for j in (0, 1)
        ]  # fmt: skip
    for w in [*caught, *caught_systems]:  # a collapsed bootstrap interval is not the closed form's
        if not (closed and issubclass(w.category, DegenerateIntervalWarning)):
            warn(w.message, w.category, stacklevel=3)
    t_stats = None
    if rep_ses is not None:  # the pivots the interval reads (a zero standard error: +-inf)
        pivots, ok, _ = studentized_pivots(diffs - diff_hat, rep_ses)
        t_stats = pivots[ok]
    p_value = bootstrap_p_value(
        method_used, diff_hat, diffs, alternative, jackknife_details=out.details,
        standard_error=out.details.get("standard_error", se_hat), t_statistics=t_stats,
    ) if jackknife_p is None else jackknife_p  # fmt: skip
    details = dict(out.details)
    if rep_ses is not None:  # each replicate's own standard error of B - A (the t* scale)
        details["replicate_standard_errors"] = freeze(rep_ses)
    low, high, mcse, notes = out.low, out.high, (out.mcse_low, out.mcse_high), out.notes
    test_label = test
    if rule is not None and case is not None:
        details["auto"] = {"method": rule.method, "evidence": rule.evidence}
        notes = (reason(rule, case), *notes)
        if rule.method in CLOSED_FORMS:
            low, high, p_value = paired_closed_form(
                rule.method, m, arrays, clusters, opts.confidence_level, alternative
            )  # fmt: skip
            mcse, method_used = (0.0, 0.0), rule.method
            # the p-value inverts the closed form
            test_label = rule.method if test == "bootstrap" else test
    if test != "bootstrap":
        result = _classical_test(
            test, data, m, alternative=alternative, opts=opts, strata=strata,
            clusters=clusters, names=(name_a, name_b),
        )  # fmt: skip
        p_value = float(result.p_value)
        details["test_result"] = result
        notes = (*notes, *disagreement_note(low, high, p_value, opts.confidence_level, method_used,
                                        test, alternative))  # fmt: skip
    details["systems"] = tuple(own)
    if not plan.clustered and n < TINY_ROWS:
        notes = (*notes, warn_tiny(n, "paired rows", "of B - A"))
    effective_n, costly = clustered_effective_n(
        m, plan,
        lambda: row_jackknife(m, arrays[1], plan) - row_jackknife(m, arrays[0], plan),
        lambda: _difference_of(np.asarray(jack if jack is not None else stacked.jackknife())),
        systems=2,
    )  # fmt: skip
    if costly:
        notes = (*notes, costly)
    return ComparisonResult(
        metric=m.label, name_a=name_a, name_b=name_b, estimate_a=float(est[0]),
        estimate_b=float(est[1]), difference=diff_hat, low=low, high=high,
        confidence_level=opts.confidence_level, method=method_used, p_value=p_value,
        alternative=alternative, test=test_label, standard_error=se_hat,
        excludes_zero=bool(low > 0 or high < 0),
        interval_a=(own[0].low, own[0].high), interval_b=(own[1].low, own[1].high), n=n,
        n_clusters=plan.n_clusters, n_resamples=b, seed=opts.seed, n_undefined=n_undefined,
        mcse_low=mcse[0], mcse_high=mcse[1],
        design="paired " + describe_source(plan, source) + ran, distribution=freeze(diffs),
        distribution_a=freeze(np.ascontiguousarray(reps[:, 0])),
        distribution_b=freeze(np.ascontiguousarray(reps[:, 1])), effective_n=effective_n,
        notes=(*notes, *engine_notes), details=details,
    )  # fmt: skip


def _paired_intervals(
    method: str, est: np.ndarray, reps: np.ndarray, jack: Any, level: float,
    metric_bounds: tuple[float, float] | None, ties: str, rep_ses: np.ndarray | None = None,
    estimate_se: float | None = None, systems: bool = True,
) -> tuple[float, np.ndarray, float, Any, list[Any]]:  # fmt: skip
    """The difference ``B - A`` from ``(B, 2)`` replicates: its estimate, replicates and SE
    (their standard deviation), its interval, and each system's own interval.

    A studentized interval scales ``t*`` by ``estimate_se``, the standard error of the
    difference on the original data computed as each replicate's was (see
    :func:`_estimate_se`); the standard deviation of the differences where not given.
    ``systems=False``: no system's own interval (the caller forms them as ``ci`` does)."""
    diffs = reps[:, 1] - reps[:, 0]
    diff_hat = float(est[1] - est[0])
    bounds = None
    if metric_bounds is not None:
        lo, hi = metric_bounds
        bounds = (lo - hi, hi - lo)
    se_hat = float(np.std(diffs, ddof=1))
    with collect_warnings() as caught:
        out = compute_interval(
            method, diff_hat, diffs, level,
            jackknife=None if jack is None else _difference_of(jack),
            standard_error=se_hat if estimate_se is None else estimate_se,
            replicate_standard_errors=rep_ses, bounds=bounds, ties=ties,
        )  # fmt: skip
        own = [
            compute_interval(
                method if method not in STUDENTIZED else "percentile", float(est[j]),
                reps[:, j], level, jackknife=None if jack is None else jack[:, j],
                bounds=metric_bounds, ties=ties, warn=False,
            )
            for j in ((0, 1) if systems else ())
        ]  # fmt: skip
    for w in caught:
        warn(w.message, w.category, stacklevel=3)
    return diff_hat, diffs, se_hat, out, own


def _mean_difference_ses(
    m: Metric,
    arrays: tuple[tuple[np.ndarray, ...], ...],
    plan: Design,
    source: Any,
    opts: Any,
    key: object,
) -> tuple[np.ndarray | None, float | None]:
    """The studentized difference of two means as :func:`booteval.ci` studentizes one mean:
    ``B - A`` is the mean of the per-row differences, whose run (compiled where it can
    be, with its standard errors) draws the same units as the pair's run ``key``. The
    replicates' standard errors and the estimate's, or ``(None, None)`` where the metric
    is not a mean or the two runs do not draw the same."""
    if not isinstance(m, Mean):
        return None, None
    d_ev = m.bind((arrays[1][0] - arrays[0][0],), plan)
    run = run_engine(d_ev, source, opts, want_se=True)
    ses, d_key = run.standard_errors, run.key
    if ses is None or d_key is None or d_key != key:
        return None, None
    return ses, float(d_ev.standard_errors(d_ev.design.original_weights())[0])


def _estimate_se(difference: _Difference) -> float | None:
    """The standard error of ``B - A`` on the original data by the formula each replicate's
    came from: the analytic one where both metrics linearize (as :func:`booteval.ci` does
    for one system), else ``None`` (the bootstrap standard deviation of the differences)."""
    if not difference.has_standard_error:
        return None
    return float(difference.standard_errors(difference.design.original_weights())[0])


def _compare_table(
    table: tuple[Any, dict[str, Any], Any], *, names: tuple[str, str], metric: Any,
    metric_kwargs: Any, method: str, confidence_level: float, n_resamples: Any, seed: Any,
    on_undefined: str, design: str, progress: Any, alternative: str, bca_ties: str,
) -> ComparisonResult:  # fmt: skip
    """``compare`` on a table: both systems on the Poisson weights of one cluster run."""
    name_a, name_b = (str(v) for v in names)
    label = resolve_metric(metric, metric_kwargs, len(table[1]) or 1).label
    run = run_table(
        table[0], columns=table[1], n_systems=2, metric=metric, metric_kwargs=metric_kwargs,
        method=method, confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        clusters=table[2], on_undefined=on_undefined, design=design, progress=progress,
        what=f"metric {label!r} (on system {name_a} or {name_b})",
    )  # fmt: skip
    reps, opts = run.reps, run.opts
    diff_hat, diffs, se_hat, out, own = _paired_intervals(
        run.method, reps.estimates, reps.values, reps.jackknife, opts.confidence_level,
        run.metric.bounds, check_choice(bca_ties, "bca_ties", ("half", "below")),
    )  # fmt: skip
    p_value = bootstrap_p_value(
        run.method, diff_hat, diffs, alternative, jackknife_details=out.details,
        standard_error=se_hat,
    )  # fmt: skip
    return ComparisonResult(
        metric=run.metric.label, name_a=name_a, name_b=name_b,
        estimate_a=float(reps.estimates[0]), estimate_b=float(reps.estimates[1]),
        difference=diff_hat, low=out.low, high=out.high,
        confidence_level=opts.confidence_level, method=run.method, p_value=p_value,
        alternative=alternative, test="bootstrap", standard_error=se_hat,
        excludes_zero=bool(out.low > 0 or out.high < 0),
        interval_a=(own[0].low, own[0].high), interval_b=(own[1].low, own[1].high),
        n=reps.n_rows, n_clusters=reps.n_clusters, n_resamples=opts.n_resamples,
        seed=opts.seed, n_undefined=run.n_undefined, mcse_low=out.mcse_low,
        mcse_high=out.mcse_high, design="paired " + run.design, distribution=freeze(diffs),
        distribution_a=freeze(np.ascontiguousarray(reps.values[:, 0])),
        distribution_b=freeze(np.ascontiguousarray(reps.values[:, 1])),
        notes=(*run.notes, *out.notes), details={**out.details, **run.details},
    )  # fmt: skip


def _classical_test(
    test: str, data: tuple[Any, ...], m: Metric, *, alternative: str, opts: Any, strata: Any,
    clusters: Any, names: tuple[str, str],
) -> Any:  # fmt: skip
    """Run the test named by ``compare(..., test=...)`` on the same data."""
    from . import classical, significance
    from .delong import delong_test

    need = {"mcnemar": "accuracy", "delong": "roc_auc", "t": "mean"}
    if test in need and m.name != need[test]:
        raise InvalidInputError(
            "test", f"a test that applies to {m.label!r} ('bootstrap' or 'permutation'; "
            f"{test!r} is for {need[test]!r})", repr(test),
        )  # fmt: skip
    if test in ("mcnemar", "delong") and clusters is not None:
        raise InvalidInputError(
            "test", "'bootstrap', 'permutation' or 't' under a cluster design "
            f"({test!r} assumes independent rows)", repr(test),
        )  # fmt: skip
    if test == "permutation":
        return significance.permutation_test(
            *data, metric=m, n_resamples=opts.n_resamples, seed=opts.seed,
            clusters=clusters, strata=strata, alternative=alternative, names=names,
        )  # fmt: skip
    if test == "mcnemar":
        return classical.mcnemar_test(*data, alternative=alternative)
    if test == "t":
        return classical.paired_t_test(
            *data, clusters=clusters, alternative=alternative,
            confidence_level=opts.confidence_level,
        )  # fmt: skip
    return delong_test(
        *data, alternative=alternative, confidence_level=opts.confidence_level,
        pos_label=m.params.get("pos_label", 1),
    )  # fmt: skip


def _difference_of(per_system: np.ndarray) -> np.ndarray:
    """``B - A`` from values with one column per system, shape ``(units, 2)``."""
    return per_system[:, 1] - per_system[:, 0]
