"""``booteval.ci``: a confidence interval for one system's metric."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from ..core.calibrated import CALIBRATED, DEFAULT_INNER, run_calibrated
from ..core.design import make_design
from ..core.engine import check_choice, check_run_options, run_engine, screen_undefined
from ..core.errors import (
    DegenerateIntervalWarning,
    InvalidInputError,
    SmallSampleWarning,
    UndefinedReplicateWarning,
    collect_warnings,
    warn,
)
from ..core.intervals import METHODS, STUDENTIZED, resolve_transform
from ..core.jackknife_t import JACKKNIFE_T
from ..core.options import entry_point
from ..core.philox import describe_source, weight_source
from ..core.validation import MAX_RESAMPLES, check_confidence_level
from ..distributed import frame_ci, frame_route
from ..metrics import Metric, resolve_metric
from ..results import CIResult, LazyJackknife, freeze
from .analytic import wilson_interval
from .auto_method import (
    CLOSED_FORMS,
    Case,
    Rule,
    case_of,
    choose,
    closed_form,
    family,
    natural_link,
    natural_transform,
    reason,
    row_scores,
)
from .calibrated import recipe
from .default_fallback import bounded_default
from .design_effect import clustered_effective_n, row_jackknife
from .few_clusters import CR_LINKS
from .jackknife_forms import result_jackknife_t

__all__ = ["SharedDraws", "ci", "shared_run", "system_ci"]


#: fewer independent units than this make the bootstrap's level unreliable
FEW_UNITS = 30


#: below this many independent rows every interval is warned about, whatever the method
TINY_ROWS = 10


def tiny_note(n: int, rows: str = "rows", of: str = "") -> str:
    """The note for fewer than :data:`TINY_ROWS` independent rows, any method."""
    return (
        f"only {n} {rows}: no interval method holds its level with so few independent "
        f"units; read the interval{' ' + of if of else ''} as a rough range, or gather more"
    )


def warn_tiny(n: int, rows: str, of: str) -> str:
    """Warn that ``n`` rows are too few for any interval (at the caller's caller); the note."""
    note = tiny_note(n, rows, of)
    warn(note, SmallSampleWarning, stacklevel=4)
    return note


def _small_sample_pointer(
    m: Metric, arrays: tuple[np.ndarray, ...], design: Any, method: str, *, auto: bool = False
) -> str | None:
    """A note naming a better-calibrated interval when there are few independent units.

    Few clusters: percentile, basic, normal and BCa intervals and CR1 are too narrow
    (Cameron, Gelbach & Miller 2008; the coverage atlas, docs/coverage.md). Few rows: BCa's
    bias correction and acceleration are estimated from too few values (the
    evaluation-toolkit reference: do not trust BCa below n = 30), and near 0 or 1 a
    proportion's bootstrap under-covers (the atlas: accuracy at n = 20, p = 0.9, BCa
    87.9 %, Jeffreys 95.7 %). With ``auto`` (``method="auto"`` chose the method) only the
    few-clusters note remains: no method fixes that.
    """
    proportion = family(m, arrays) == "proportion"
    if design.clustered and design.n_clusters < FEW_UNITS:
        head = f"only {design.n_clusters} clusters: "
        if auto:
            return (
                head + f"intervals are less reliable with fewer than about {FEW_UNITS} "
                "independent units; method='auto' took the best calibrated one in the coverage "
                "atlas, which can still miss by a few points with 5 or 10 clusters"
            )
        # the coverage atlas (docs/coverage.md), accuracy p = 0.9, n = 1,000, 10 clusters:
        # BCa 87.2 %, studentized 93.5 %, CR2 93.9 %
        if proportion or m.name == "mean":
            better = (
                "; method='auto', booteval.closed_forms.cluster_robust_interval(scores, "
                "clusters) (CR2 with Bell-McCaffrey degrees of freedom) or "
                "method='studentized' hold their level better"
            )
        else:
            better = ""
        return (
            head + "bootstrap intervals tend to be too narrow with fewer than about "
            f"{FEW_UNITS} independent units{better}"
        )
    if not design.clustered and design.n_rows < TINY_ROWS:
        return tiny_note(design.n_rows)
    if not auto and not design.clustered and method == "bca" and design.n_rows < FEW_UNITS:
        better = (
            "method='auto' (a Jeffreys interval here)"
            if proportion
            else "method='auto' or method='studentized'"
        )
        return (
            f"BCa on {design.n_rows} rows (fewer than {FEW_UNITS}) is unreliable: its bias "
            f"correction and acceleration come from too few values; {better} is better "
            "calibrated here"
        )
    return None


def _proportion_pointer(
    m: Metric, arrays: tuple[np.ndarray, ...], estimate: float, design: Any, level: float
) -> str | None:
    """For a proportion of 0 or 1 (every row right, or none), an interval that does not collapse.

    Every resample of an all-correct sample is all-correct, so any bootstrap interval
    is (1, 1); a score interval is not.
    """
    if estimate not in (0.0, 1.0) or family(m, arrays) != "proportion":
        return None
    n = design.n_rows
    k = round(estimate * n)
    if design.clustered:
        return (
            "every row has the same outcome, so every resample does: a bootstrap interval "
            "cannot be wider than a point here; the design-effect score interval "
            "booteval.closed_forms.clustered_wilson_interval(correct, clusters) does not collapse"
        )
    w = wilson_interval(k, n, confidence_level=level)
    return (
        f"every row has the same outcome, so every resample does: a bootstrap interval "
        f"cannot be wider than a point here; the Wilson score interval "
        f"booteval.closed_forms.wilson_interval({k}, {n}) does not collapse: "
        f"({w.low:.4g}, {w.high:.4g})"
    )


@entry_point(own=("n_resamples",))
def ci(
    *data: Any, metric: str | Metric | Callable[..., float] | None = None, method: str = "auto",
    confidence_level: float = 0.95, n_resamples: int | str = 10_000, seed: int | None = None,
    batch: int | None = None, strata: Any = None, clusters: Any = None, transform: Any = None,
    on_undefined: str = "drop", metric_kwargs: dict[str, Any] | None = None,
    n_inner: int | None = None, bca_ties: str = "half", workers: int | None = None,
    progress: Any = None, engine: str = "auto",
    mcse_target: float | None = None, max_resamples: int | None = None, design: str = "multinomial",
    **columns: str,
) -> CIResult:  # fmt: skip
    """A metric's point estimate with a bootstrap confidence interval.

    Parameters
    ----------
    *data : array-like
        ``scores`` (one value per row; the metric defaults to the mean), or
        ``y_true, y_pred`` (labels and predicted labels), or ``y_true, y_score``
        (labels and scores or probabilities), as the metric requires. Lists,
        NumPy arrays and pandas Series are accepted. Or one table (a pandas, Dask or
        Spark DataFrame, or a Parquet path or glob) with its columns named by keyword
        (``**columns``): a Poisson bootstrap from mergeable exact states, the same
        numbers for any partitioning (``docs/clusters.md``).
    metric : str, Metric or callable, optional
        A registry name (see :func:`booteval.list_metrics`), a
        :class:`~booteval.metrics.Metric`, or any callable ``f(x) -> float`` or
        ``f(y_true, y_pred) -> float`` (e.g. a scikit-learn metric). A callable
        takes the slow generic path: one call per replicate.
    method : str
        ``"auto"`` (default), ``"bca"``, ``"percentile"``, ``"basic"``, ``"normal"``,
        ``"studentized"``, ``"studentized-symmetric"`` (see :mod:`booteval.intervals`
        for the exact conventions) or ``"calibrated"``: the double bootstrap's calibrated
        percentile interval (prepivoting; :mod:`booteval.core.calibrated`), ``n_inner``
        inner resamples per replicate, on the compiled engine for sum metrics (means,
        proportions, ratios, mean losses) under any design and one replicate at a time
        with NumPy otherwise. The studentized methods use the metric's analytic
        standard error where it has one (means, proportions, mean losses, precision,
        recall, F1, Pearson, BLEU, ROC-AUC) and a nested bootstrap of ``n_inner``
        resamples per replicate
        otherwise; the symmetric one takes one quantile of ``|t*|`` for both sides. ``"auto"``
        (default) takes the method that the coverage atlas (``docs/coverage.md``)
        shows best calibrated for the metric, the design, ``n``, the number of
        clusters and, for a proportion, its distance from 0 or 1: the table
        ``booteval.inference.auto_method.RULES``. It may be a closed form: for a
        proportion ``"jeffreys"`` on independent rows, ``"clustered-wilson"`` with fewer
        than 5 rows of the rarer outcome under clusters, ``"cr2"`` (on the logit scale)
        with fewer than 30 clusters and 100 to 399 rows where both outcomes occur; for
        the mean of [0, 1] scores on independent rows ``"quasi-wilson"``; for another
        clustered mean ``"cr2"`` with fewer than 10 clusters; for ROC-AUC on independent
        rows with fewer than 8 rows of its rarer class Newcombe's score interval
        (``"newcombe-auc"``); for Pearson's r on independent rows the jackknife t over
        rows on Fisher's z scale (``"jackknife-t"``; the percentile interval with a
        ``transform``). With clusters it is otherwise a bootstrap-t
        (``"studentized"``, or its symmetric form with few clusters) for a metric with an
        analytic standard error and ``"percentile"`` from 30 clusters for one without
        (Kendall's tau beyond 1,000 rows: ``"bca"``), and below 30 clusters the cluster
        jackknife t interval (``"jackknife-t"``, a closed form of leave-one-cluster-out
        values; :mod:`booteval.core.jackknife_t`) for one without; corpus BLEU takes the bootstrap-t
        on independent rows too. Where the bootstrap-t it takes is unbounded or spans the
        metric's whole range, it gives CR2 for a clustered proportion or mean, the
        cluster jackknife t interval (on the scale where the metric's range is natural)
        for another clustered metric, and BCa otherwise, with a note. With a closed form the
        bootstrap still runs (percentile) so ``result.with_method`` and
        ``result.distribution`` work. ``result.method`` is the method chosen and
        ``result.notes`` says why.
    confidence_level : float
        Strictly between 0 and 1.
    n_resamples : int or "auto"
        Number of bootstrap replicates ``B``. ``"auto"`` sets ``B`` by the Monte Carlo
        error it buys: it starts at 2,000 and grows until both endpoints' Monte Carlo
        standard errors are at most ``mcse_target`` times the interval's half-width, or
        ``B`` reaches ``max_resamples``. Each try is a fresh run of its ``B`` (replicate
        ``b`` is the same in every run), so the result equals ``ci(...,
        n_resamples=result.n_resamples)`` for the same seed; ``result.notes`` gives the
        ``B`` used and the error reached.
    seed : int, optional
        Seeds the run; the same seed gives the same result for any ``batch``.
        When omitted, fresh entropy is drawn and recorded in ``result.seed``.
    batch : int, optional
        Replicates processed at once (bounds memory to about
        ``batch * n_units`` numbers); by default one generator block (about 8 MB).
    strata : array-like, optional
        Stratum of each row: resample within strata, keeping their sizes.
    clusters : array-like, optional
        Independent unit of each row (speaker, source document, question):
        resample whole clusters. May be combined with ``strata`` (each cluster
        inside one stratum).
    transform : {"logit", "fisher"}, pair of callables, optional
        Applied to every replicate before forming the interval and mapped back
        after. ``"logit"`` uses the continuity correction ``(k + 0.5)/(n + 1)``.
    on_undefined : {"drop", "raise"}
        Replicates where the metric is undefined (NaN, e.g. AUC with one class)
        are dropped and counted in ``result.n_undefined`` (with an
        :class:`~booteval.UndefinedReplicateWarning` when more than 1 % are), or
        raise :class:`~booteval.BootevalError`.
    metric_kwargs : dict, optional
        Parameters for a named metric or extra keyword arguments for a
        callable, e.g. ``{"average": "macro"}``.
    n_inner : int, optional
        Inner resamples per replicate: of a nested studentized interval (default 50) or
        of the calibrated one (default 200); at least 2.
    bca_ties : {"half", "below"}
        How replicates equal to the estimate count in BCa's bias correction:
        one half (default, as scipy) or not at all (R boot).
    workers : int, optional
        Threads for the resampling (default: all cores). The result does not
        depend on it. Callable metrics always run on one thread.
    {progress}
    mcse_target : float, optional
        With ``n_resamples="auto"``: the endpoints' Monte Carlo SE as a fraction of the
        half-width (default 0.01, strictly between 0 and 1).
    max_resamples : int, optional
        With ``n_resamples="auto"``: the most resamples it may use (default 200,000).
    {design}
    engine : {"auto", "numba", "numpy"}, default "auto"
        ``"auto"`` runs the compiled kernels (numba, a dependency) where they apply and
        the NumPy engine elsewhere, so every install gives the same numbers for a seed.
        The kernels draw and accumulate each replicate in one pass, without forming a
        ``(batch, n)`` array: several times faster for means, ratio metrics and mean
        losses on float data and for ROC-AUC, under an iid design. They use their own
        per-replicate random streams, so their numbers differ from the NumPy engine's
        for the same seed; each engine is reproducible across batch sizes and workers,
        and ``result.design`` ends in ``", numba engine"`` where the kernels ran.
        ``"numba"`` asks for the kernels and says in ``result.notes`` where none applies
        (strata, clusters, discrete data resampled as cells, other metrics, a nested
        studentized interval); ``"numpy"`` always draws the resamples with NumPy (the
        numbers of booteval 0.1).

    **columns : str
        For a table: the column of each of the metric's inputs, by the input's name
        (``y_true="label", y_pred="pred"``, or ``scores="score"``); ``clusters`` is then a
        column name too. A table offers ``"percentile"``, ``"basic"``, ``"normal"`` and,
        for label metrics, ``"bca"`` (``"auto"``: BCa for label metrics, percentile
        otherwise).

    Returns
    -------
    CIResult
        The estimate, the interval and the replicates it was read from.

    Examples
    --------
    >>> import booteval
    >>> y_true = [0, 1, 1, 0, 1, 1, 0, 1, 1, 1] * 10
    >>> y_pred = [0, 1, 0, 0, 1, 1, 1, 1, 1, 1] * 10
    >>> r = booteval.ci(y_true, y_pred, metric="accuracy", seed=0)
    >>> r.estimate
    0.8
    >>> print(r.format(scale=100, digits=1))
    80.0 (71.4, 86.9)
    """
    check_choice(method, "method", ("auto", *METHODS, CALIBRATED))  # every method, the default
    table = frame_route(
        data, columns, design=design, method=method, metric=metric,
        metric_kwargs=metric_kwargs, strata=strata, transform=transform, clusters=clusters,
    )  # fmt: skip
    if table is not None:
        return frame_ci(
            table[0], columns=table[1], metric=metric, metric_kwargs=metric_kwargs,
            method=method, confidence_level=confidence_level, n_resamples=n_resamples,
            seed=seed, clusters=table[2],
            on_undefined=on_undefined, design=design, progress=progress,
        )  # fmt: skip
    budget = _check_budget(n_resamples, mcse_target, max_resamples, confidence_level)
    auto = method == "auto"
    opts = check_run_options(
        confidence_level=confidence_level,
        n_resamples=budget[2] if budget else n_resamples, seed=seed,
        method="bca" if auto else method,
        on_undefined=on_undefined, bca_ties=bca_ties, batch=batch, workers=workers,
        n_inner=(DEFAULT_INNER if method == CALIBRATED else 50) if n_inner is None else n_inner,
        engine=engine, methods=(*METHODS, CALIBRATED),
    )  # fmt: skip
    if not data:
        raise InvalidInputError(
            "data", "at least one array (scores, or y_true and y_pred)", "no arrays"
        )
    m = resolve_metric(metric, metric_kwargs, len(data))
    if len(data) != m.n_inputs:
        raise InvalidInputError(
            "data",
            f"{m.n_inputs} array(s) ({', '.join(m.input_names)}) for metric {m.label!r}",
            f"{len(data)} array(s)",
        )
    arrays = m.validate(*data)
    plan = make_design(arrays[0].shape[0], strata=strata, clusters=clusters)
    return system_ci(
        m, arrays, plan, opts, auto=auto, clusters=clusters, transform=transform,
        design=design, budget=budget,
    )  # fmt: skip


class SharedDraws:
    """Replicates that another entry point drew for several systems at once (shape
    ``(B, K)``, before any undefined one is dropped), and the key of those draws
    (:func:`booteval.core.engine.draw_key`).

    :func:`system_ci` takes column ``j`` as system ``j``'s replicates where its own
    run would draw exactly the same units on the same engine with the same seed and
    ``B``, and runs the system alone otherwise: either way the interval is the one
    :func:`booteval.ci` gives for that system.

    Examples
    --------
    >>> draws = SharedDraws(("numpy", 1), np.array([[0.1, 0.2], [0.3, 0.4]]))
    >>> draws.column(("numpy", 1), 1, 2)[0].tolist()
    [0.2, 0.4]
    >>> draws.column(("numpy", 2), 1, 2) is None  # other draws: the system runs alone
    True
    """

    def __init__(self, key: object, values: np.ndarray, ses: np.ndarray | None = None) -> None:
        self.key = key
        self.values = values
        #: each system's standard error in each replicate, ``(B, K)``, where the run
        #: computed them (a studentized interval takes them from the same draws)
        self.ses = ses

    def column(
        self, key: object, j: int, b: int, want_se: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None] | None:
        """System ``j``'s replicates (and standard errors, where ``want_se``), where ``key``
        and ``b`` are those of these draws; ``None`` where the system must run alone."""
        if key is None or key != self.key or self.values.shape[0] != b:
            return None
        if want_se and self.ses is None:
            return None
        ses = np.ascontiguousarray(self.ses[:, j]) if want_se and self.ses is not None else None
        return np.ascontiguousarray(self.values[:, j]), ses


def shared_run(
    stacked: Any, source: Any, opts: Any, *, may_studentize: bool, design: str = "multinomial"
) -> Any:
    """The one run of several systems on shared weights (``compare``, ``leaderboard``),
    with each system's standard errors on the same draws where the compiled engine draws
    them and a system's interval may be studentized (as :func:`booteval.ci`'s): an
    :class:`~booteval.core.engine.EngineRun`, whose draws :class:`SharedDraws` hands to
    :func:`system_ci`."""
    want = may_studentize and design == "multinomial"
    return run_engine(stacked, source, opts, se_if_compiled=want)


def system_ci(
    m: Metric, arrays: tuple[np.ndarray, ...], plan: Any, opts: Any, *, auto: bool,
    clusters: Any = None, transform: Any = None, design: str = "multinomial",
    budget: tuple[float, int, int] | None = None, shared: tuple[SharedDraws, int] | None = None,
    warnings_to: list[Any] | None = None, evaluator: Any = None,
) -> CIResult:  # fmt: skip
    """:func:`booteval.ci` on checked ``arrays`` and a built design: the one function that
    gives a system's interval, for ``ci``, ``compare`` and ``leaderboard`` alike.

    ``opts`` are the run options (``opts.method`` is ``"bca"`` where ``auto``);
    ``shared`` is ``(draws, j)``: other systems' shared run, whose column ``j`` serves as
    the replicates where this system's own run would draw the same (see
    :class:`SharedDraws`). ``warnings_to``: collect the warnings there instead of
    emitting them. ``evaluator``: ``m`` already bound to ``arrays`` and ``plan`` (e.g. under
    :func:`~booteval.metrics.base.deferred_compression`), used as a bind would give it
    (its :meth:`~booteval.metrics.base.Evaluator.alone`).
    """
    evaluator = m.bind(arrays, plan) if evaluator is None else evaluator.alone()
    estimate = evaluator.estimate()
    if not math.isfinite(estimate):
        raise InvalidInputError(
            ", ".join(m.input_names),
            f"data on which {m.label!r} is defined",
            f"data where it evaluates to {estimate}",
        )
    tr = resolve_transform(transform, evaluator.count)
    case = rule = None
    if auto:
        case = case_of(
            m, arrays, plan, studentized=design == "multinomial", closed_form=tr is None,
            analytic_se=evaluator.has_standard_error,
        )  # fmt: skip
        rule = choose(case)
        run_method = "percentile" if rule.method in CLOSED_FORMS else rule.method
        opts = replace(opts, method=run_method)
        if (
            tr is None
            and run_method in STUDENTIZED
            and (case.family == "mean" or rule.natural_scale)
        ):
            # the bootstrap-t on the scale where the mean stays in the scores' range
            # (logit for scores in [0, 1] and for a proportion, log for other non-negative
            # ones)
            scores = row_scores(m, arrays)
            tr = None if scores is None else natural_transform(scores, evaluator.count)
    source = weight_source(design, plan, evaluator.design, clusters, opts.method)
    # the default keeps a proportion in [0, 1]: an endpoint past it is clipped, and the notes
    # say so (a safety net: its bootstrap-t with clusters is formed on the logit scale)
    clip = (0.0, 1.0) if case is not None and case.family == "proportion" else None
    run = partial(
        _run, m, arrays, plan, evaluator, estimate, tr, opts, source, auto=auto, shared=shared,
        clip=clip,
    )  # fmt: skip
    with collect_warnings() as caught:
        if rule is not None and rule.method in CLOSED_FORMS:
            b = opts.n_resamples if budget is None else budget[2]
            result = _closed_form_result(
                run, b, budget is not None, rule, case, m, arrays, clusters
            )
        elif budget is None:
            result = run(opts.n_resamples)
        else:
            result = _run_to_budget(run, opts.method, *budget)
    if rule is not None and result.details.get("vacuous"):
        result, caught = bounded_default(result, rule, case, m, arrays, clusters, caught)
    if warnings_to is not None:
        warnings_to.extend(caught)
    else:
        for w in caught:
            warn(w.message, w.category, stacklevel=4)
    if rule is None or case is None or rule.method in CLOSED_FORMS:
        return result
    details = {**result.details, "auto": {"method": rule.method, "evidence": rule.evidence}}
    return replace(result, notes=(reason(rule, case), *result.notes), details=details)


def _closed_form_result(
    run: Callable[[int], CIResult], b: int, budgeted: bool, rule: Rule, case: Case, m: Metric,
    arrays: tuple[np.ndarray, ...], clusters: Any,
) -> CIResult:  # fmt: skip
    """``method="auto"``'s result where it chose a closed form: the bootstrap (percentile)
    still runs, for ``with_method`` and the distribution, but the interval, its notes and
    warnings are the closed form's (a collapsed bootstrap interval, or replicates dropped
    where the metric is undefined, are not the interval's: the dropped ones are counted in
    ``n_undefined`` and ``describe()``)."""
    with collect_warnings() as caught:
        result = run(b)
    for w in caught:
        if not issubclass(w.category, (DegenerateIntervalWarning, UndefinedReplicateWarning)):
            warn(w.message, w.category, stacklevel=4)
    recipe = result._recompute
    run_notes = (*recipe.notes_before, *recipe.notes_after) if recipe is not None else ()
    run_notes = tuple(n for n in run_notes if not n.startswith("every row has the same"))
    if budgeted:
        run_notes += (
            f"n_resamples='auto': B = {b}; the {rule.method} interval is a closed form, "
            "without Monte Carlo error",
        )
    chosen = {"method": rule.method, "evidence": rule.evidence}
    if rule.method == JACKKNIFE_T and not case.clustered:
        # over rows (a correlation on independent rows): the leave-one-row-out values
        # the evaluator computes in closed form, not n evaluations of the metric
        jack = result_jackknife_t(result, m)
        if jack is None:
            note = (
                "the jackknife t interval has no width here (fewer than 3 distinct "
                "leave-one-row-out values, or it spans the whole range): the percentile "
                "interval instead"
            )
            return replace(result, notes=(reason(rule, case), note, *result.notes),
                           details={**result.details, "auto": chosen})  # fmt: skip
        out: Any = jack
        notes: tuple[str, ...] = (f"the jackknife t interval: {jack.describe(unit='row')}",)
    else:
        out = closed_form(rule.method, m, arrays, clusters, result.confidence_level)
        notes = getattr(out, "notes", ())
    return replace(
        result, low=out.low, high=out.high, method=rule.method, mcse_low=0.0, mcse_high=0.0,
        notes=(reason(rule, case), *notes, *run_notes),
        details={**result.details, "auto": chosen},
    )  # fmt: skip


def _run(
    m: Metric, arrays: tuple[np.ndarray, ...], design: Any, evaluator: Any, estimate: float,
    tr: Any, opts: Any, source: Any, b: int, *, auto: bool = False,
    shared: tuple[SharedDraws, int] | None = None, clip: tuple[float, float] | None = None,
) -> CIResult:  # fmt: skip
    """ci's run of ``b`` replicates and its finish (warnings attributed to ci's caller);
    ``clip``: the range the default keeps the interval in where the metric has none."""
    level, seed_int, method = opts.confidence_level, opts.seed, opts.method
    n = arrays[0].shape[0]
    want_se = method in STUDENTIZED
    reuse = None
    if shared is not None:
        draws, j = shared
        reuse = lambda key, se: draws.column(key, j, b, se)  # noqa: E731
    coverage = None
    if method == CALIBRATED:
        ran, coverage = run_calibrated(evaluator, source, opts, b, estimate)
    else:
        ran = run_engine(evaluator, source, opts, n_resamples=b, want_se=want_se, reuse=reuse)
    reps, ses = ran.values, ran.standard_errors
    design_text = describe_source(design, source) + ran.engine
    engine_notes = ran.notes
    small = _small_sample_pointer(m, arrays, design, method, auto=auto)
    if small:
        engine_notes += (small,)
        warn(small, SmallSampleWarning, stacklevel=3)
    defined = np.isfinite(reps)
    n_undefined = screen_undefined(
        defined, f"metric {m.label!r}", opts.on_undefined,
        reason=getattr(evaluator, "first_error", None),
        hint=" Consider strata= (e.g. the class labels)."
        if m.name in ("roc_auc", "average_precision") else "",
    )  # fmt: skip
    values = reps[defined]
    if values.size and values.min() == values.max():
        pointer = _proportion_pointer(m, arrays, estimate, design, opts.confidence_level)
        if pointer:
            engine_notes += (pointer,)
            warn(pointer, DegenerateIntervalWarning, stacklevel=3)
    rep_ses = ses[defined] if ses is not None else None
    if (
        tr is not None
        and tr.name.startswith("logit")
        # (a mean of 1s summed by the engine may come out as 1 + 2e-16)
        and (values.min() < -1e-12 or values.max() > 1 + 1e-12 or not 0 <= estimate <= 1)
    ):
        raise InvalidInputError(
            "transform",
            f"a metric with values in [0, 1] for 'logit' ({m.label!r} is not)",
            "'logit'",
        )

    se_hat: float | None = None
    if want_se:
        se_hat = (
            float(evaluator.standard_errors((evaluator.design or design).original_weights())[0])
            if evaluator.has_standard_error
            else float(np.std(values, ddof=1))
        )

    jackknife = LazyJackknife(evaluator.jackknife)
    bounds = m.bounds if m.bounds is not None else clip
    scores_range = _scores_range(m, arrays) if bounds is None else None
    effective_n, costly = clustered_effective_n(
        m, design, lambda: row_jackknife(m, arrays, design), jackknife
    )
    if costly:
        engine_notes += (costly,)

    run = CIResult(
        estimate=estimate, low=math.nan, high=math.nan, confidence_level=level, method=method,
        metric=m.label, n=n, n_clusters=design.n_clusters, effective_n=effective_n,
        n_resamples=b, seed=seed_int,
        standard_error=float(np.std(values, ddof=1)) if values.size > 1 else 0.0,
        n_undefined=n_undefined, mcse_low=math.nan, mcse_high=math.nan, design=design_text,
        transform=tr.name if tr is not None else None, distribution=freeze(values),
        replicate_standard_errors=freeze(rep_ses), estimate_standard_error=se_hat,
        _recompute=recipe(
            METHODS, None if coverage is None else coverage[defined], opts.n_inner,
            transform=tr, bounds=bounds, ties=opts.bca_ties, notes_after=engine_notes,
            jackknife=jackknife, scores_range=scores_range,
        ),
    )  # fmt: skip
    return run.with_method(method)


def _scores_range(m: Metric, arrays: tuple[np.ndarray, ...]) -> tuple[float, float] | None:
    """The range a mean of ``m``'s per-row scores cannot leave (:func:`natural_link`):
    ``(0, 1)`` for scores in [0, 1], ``(0, inf)`` for other non-negative ones."""
    scores = row_scores(m, arrays)
    if scores is None or scores.size == 0:
        return None
    link = natural_link(scores)
    return None if link == "identity" else CR_LINKS[link]


#: ``n_resamples="auto"``: the first ``B``, and the defaults of its target and cap
_AUTO_START = 2_000
_AUTO_TARGET = 0.01
_AUTO_MAX = 200_000


def _check_budget(
    n_resamples: object, mcse_target: object, max_resamples: object, confidence_level: object
) -> tuple[float, int, int] | None:
    """``(target, cap, first B)`` for ``n_resamples="auto"``; ``None`` for a fixed ``B``."""
    if isinstance(n_resamples, str) and n_resamples != "auto":
        raise InvalidInputError("n_resamples", "an integer >= 1 or 'auto'", repr(n_resamples))
    if not (isinstance(n_resamples, str) and n_resamples == "auto"):
        for name, value in (("mcse_target", mcse_target), ("max_resamples", max_resamples)):
            if value is not None:
                raise InvalidInputError(
                    name, "None unless n_resamples='auto'", f"{value!r} with a fixed n_resamples"
                )
        return None
    target = _AUTO_TARGET if mcse_target is None else mcse_target
    if isinstance(target, bool) or not isinstance(target, numbers.Real) or not 0 < target < 1:
        raise InvalidInputError("mcse_target", "a number strictly between 0 and 1", repr(target))
    # the first B: 2,000, or more where each tail of the level needs it (as check_n_resamples)
    tail = (1.0 - check_confidence_level(confidence_level)) / 2.0
    first = max(_AUTO_START, math.ceil(1.0 / tail - 1e-9))
    cap = max(_AUTO_MAX, first) if max_resamples is None else max_resamples
    if isinstance(cap, bool) or not isinstance(cap, int | np.integer) or cap < first:
        raise InvalidInputError("max_resamples", f"an integer >= {first}", repr(cap))
    return float(target), int(min(cap, MAX_RESAMPLES)), first


def _run_to_budget(
    run: Callable[[int], CIResult], method: str, target: float, cap: int, first: int
) -> CIResult:
    """Runs (``run(B)``) of growing ``B`` until the endpoints' Monte Carlo SE meets the target."""
    b = first
    while True:
        with collect_warnings() as caught:  # only the last run's warnings are the result's
            r = run(b)
        half = (r.high - r.low) / 2
        worst = max(r.mcse_low, r.mcse_high)
        if not (math.isfinite(worst) and half > 0) or worst <= target * half or b >= cap:
            break
        # the Monte Carlo SE falls as 1 / sqrt(B): aim a little past the target, growing
        # at most fourfold a step (the SE estimate itself is noisy, and coarse for
        # replicates that take few distinct values)
        need = b * (worst / (target * half)) ** 2 * 1.1
        b = int(min(cap, 4 * b, max(2 * b, math.ceil(need / 1000) * 1000)))
    for w in caught:
        warn(w.message, w.category, stacklevel=3)
    if not (math.isfinite(worst) and half > 0):
        note = (
            f"n_resamples='auto': B = {b}; the interval has no width to measure the Monte "
            "Carlo error against"
        )
    elif worst <= target * half:
        note = (
            f"n_resamples='auto': B = {b}, the {method} endpoints' Monte Carlo SE is "
            f"{worst / half:.2%} of the half-width (target {target:.2%})"
        )
    else:
        note = (
            f"n_resamples='auto' stopped at max_resamples = {cap}: the {method} endpoints' Monte "
            f"Carlo SE is {worst / half:.2%} of the half-width (target {target:.2%})"
        )
    recipe = replace(r._recompute, notes_after=(*r._recompute.notes_after, note))
    return replace(r, _recompute=recipe).with_method(method)
