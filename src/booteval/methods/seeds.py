"""Evaluating a *method* over training seeds: pooled intervals and their variance split.

A method (an architecture, a training recipe) trained with ``R`` random seeds
gives ``R`` systems, all scored on the same test rows. Their metrics differ
for two reasons: the seed (some runs are better models) and the test data
(a finite test set is a noisy measurement of each model). :func:`pool_seeds`
gives an interval for the method's *expected* metric (the mean over seeds of
each run's metric on the population of test data) that accounts for both, and
:func:`compare_methods` does the same for the difference between two methods.

The estimator
-------------
Write ``theta_r`` for run ``r``'s metric on the test set and ``theta_bar`` for
their mean over the ``R`` runs; ``theta_bar`` estimates the method's mean ``mu``.
The test set is bootstrapped once, with the *same* resampled rows (or clusters,
within strata) for every run, giving replicate values ``theta*_{b,r}``. Then

- the **test-data variance of the estimate** is ``V_test = var_b(mean_r theta*_{b,r})``
  (it keeps the correlation between runs that share the test set: hard rows are
  hard for every run);
- the raw **between-run variance** ``S^2 = var_r(theta_r)`` also contains the part
  of each run's test-set noise that is not shared; its bootstrap estimate
  ``c = mean_b var_r(theta*_{b,r} - theta_r)`` is subtracted, giving the
  **seed variance** ``sigma_seed^2 = max(S^2 - c, 0)`` of one run's expected metric;
- the **test-data variance of one run** is ``sigma_test^2 = mean_r var_b(theta*_{b,r})``;
- ``Var(theta_bar) ~= sigma_seed^2 / R + V_test``.

The default interval (``method="t"``) is
``theta_bar -/+ t_{nu, 1 - alpha/2} * SE`` with ``SE^2 = sigma_seed^2 / R + V_test``
and Welch-Satterthwaite degrees of freedom ``nu`` for the seed part (estimated
from ``R - 1`` degrees of freedom; the bootstrap part is treated as known), which
keeps the coverage near nominal with as few as 3-5 seeds. The bootstrap methods
(``"percentile"``, ``"basic"``, ``"normal"``) use the *two-way* distribution
``T*_b = mean of theta*_{b, j}`` over ``R`` runs ``j`` drawn with replacement in
each replicate (runs x test rows, Owen's "pigeonhole" bootstrap); it is slightly
conservative for many runs and too narrow for few (it has no small-sample ``t``
correction), so prefer ``"t"`` below about 10 runs.

:attr:`SeedPoolResult.single_run_interval` is the percentile interval of the
pool of all ``B x R`` values, the procedure of Ferrer's guide: a range for what
*one* training run scores on a new test set, which is wider than the interval
for the method's mean and is not a confidence interval for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..core.design import Design, make_design
from ..core.engine import (
    RunOptions,
    check_choice,
    check_run_options,
    run_engine,
    screen_undefined,
)
from ..core.errors import InvalidInputError, collect_warnings, warn
from ..core.intervals import compute_interval, order_statistic_quantile
from ..core.lazy import stats
from ..core.options import entry_point
from ..core.paired import StackedEvaluator, pair_inputs
from ..core.streams import generator
from ..core.validation import describe_value
from ..inference.comparison import ALTERNATIVES, bootstrap_p_value
from ..metrics import Metric, resolve_metric
from ..metrics.base import Evaluator
from ..results import freeze
from .seeds_results import MethodComparisonResult, SeedPoolResult

__all__ = [
    "SEED_METHODS",
    "MethodComparisonResult",
    "SeedPoolResult",
    "compare_methods",
    "pool_seeds",
]

#: interval methods of :func:`pool_seeds` and :func:`compare_methods`
SEED_METHODS: tuple[str, ...] = ("t", "percentile", "basic", "normal")


# ---------------------------------------------------------------- validation
def _split_runs(runs: Any, name: str) -> list[Any]:
    """A 2-D array (runs x rows) or a sequence of 1-D arrays -> list of per-run arrays."""
    if hasattr(runs, "to_numpy") and getattr(runs, "ndim", 1) == 2:  # pandas DataFrame
        runs = runs.to_numpy().T  # columns are runs
    if isinstance(runs, np.ndarray):
        if runs.ndim != 2:
            raise InvalidInputError(
                name,
                "the runs' outputs as a 2-D array (runs x rows) or a list of 1-D arrays",
                f"an array of shape {runs.shape}",
            )
        return list(runs)
    if isinstance(runs, Sequence) and not isinstance(runs, str):
        items = list(runs)
        if items and all(np.ndim(x) == 0 for x in items):
            raise InvalidInputError(
                name,
                "one array of outputs per run (a list of arrays or a 2-D array runs x rows)",
                "a flat list of numbers (one run?)",
            )
        return items
    raise InvalidInputError(
        name, "a list of per-run arrays or a 2-D array (runs x rows)", describe_value(runs)
    )


def _bind_runs(
    m: Metric, shared: tuple[Any, ...], runs: Any, label: str, design_of: Callable[[int], Design]
) -> tuple[list[Evaluator], Design, int]:
    name = m.input_names[-1]
    where = f"{name} of {label}" if label else name
    items = _split_runs(runs, where)
    if len(items) < 2:
        raise InvalidInputError(
            where,
            "outputs of at least 2 runs (training seeds) to separate seed and test-data variance",
            f"{len(items)} run(s)",
            "Use booteval.ci for a single system.",
        )
    lengths = [len(np.ravel(np.asarray(x))) if np.ndim(x) <= 1 else len(x) for x in items]
    if len(set(lengths)) != 1:
        bad = next(i for i, k in enumerate(lengths) if k != lengths[0])
        raise InvalidInputError(
            f"{where} (run {bad})",
            f"the same test rows for every run ({lengths[0]} rows, as run 0)",
            f"{lengths[bad]} rows",
            "All runs must be scored on the same test set, in the same row order.",
        )
    arrays = []
    for r, own in enumerate(items):
        try:
            arrays.append(m.validate(*shared, own))
        except InvalidInputError as exc:
            if exc.parameter == name:
                raise InvalidInputError(
                    f"{where} (run {r})", exc.expected, exc.received, exc.hint
                ) from None
            raise
    n = arrays[0][-1].shape[0]
    design = design_of(n)
    if design.n_rows != n:
        raise InvalidInputError(
            where,
            f"the same test rows as the other method ({design.n_rows} rows)",
            f"{n} rows per run",
        )
    return [m.bind(a, design) for a in arrays], design, n


def _run_matrix(
    stacked: StackedEvaluator, design: Design, opts: RunOptions
) -> tuple[np.ndarray, tuple[str, ...]]:
    run = run_engine(stacked, design, opts)
    reps, notes, ran = run.values, run.notes, run.engine
    if ran:
        notes = (*notes, "replicates from the compiled (numba) engine")
    return reps, notes


def _components(est: np.ndarray, reps: np.ndarray) -> dict[str, float]:
    """Variance split of one method's runs from the (defined) replicate matrix."""
    k = est.size
    between = float(np.var(est, ddof=1))
    dev = reps - est[None, :]
    noise = float(np.mean(np.var(dev, axis=1, ddof=1)))
    return {
        "between": between,
        "noise": noise,
        "seed": max(between - noise, 0.0),
        "test": float(np.mean(np.var(reps, axis=0, ddof=1))),
        "test_mean": float(np.var(reps.mean(axis=1), ddof=1)),
        "k": float(k),
    }


def _satterthwaite(se2: float, seed_terms: list[tuple[float, int]]) -> float:
    """Degrees of freedom for ``se2`` whose seed terms ``v / R`` have ``R - 1`` df each.

    The raw between-run variances (not the corrected ones) are used in the
    denominator, which errs on the side of fewer degrees of freedom.
    """
    den = sum((v / r) ** 2 / (r - 1) for v, r in seed_terms if v > 0)
    if den <= 0 or se2 <= 0:
        return math.inf
    return se2**2 / den


def _t_interval(est: float, se: float, df: float, level: float) -> tuple[float, float]:
    q = (
        float(stats.t.ppf(0.5 + level / 2, df))
        if math.isfinite(df)
        else float(stats.norm.ppf(0.5 + level / 2))
    )
    return est - q * se, est + q * se


def _two_way(reps: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Mean over runs drawn with replacement, per replicate: shape (B,)."""
    b, k = reps.shape
    pick = rng.integers(0, k, size=(b, k))
    return np.take_along_axis(reps, pick, axis=1).mean(axis=1)


def _run_rng(seed: int, which: int) -> np.random.Generator:
    return generator("seeds", seed, which)


def _check_finite(est: np.ndarray, m: Metric, where: str) -> None:
    bad = np.flatnonzero(~np.isfinite(est))
    if bad.size:
        raise InvalidInputError(
            f"{where} (run {int(bad[0])})",
            f"outputs on which {m.label!r} is defined",
            f"outputs where it evaluates to {est[bad[0]]}",
        )


def _bootstrap_interval(
    method: str, est: float, values: np.ndarray, level: float, bounds: Any
) -> tuple[float, float, tuple[str, ...]]:
    with collect_warnings() as caught:
        out = compute_interval(method, est, values, level, bounds=bounds)
    for w in caught:
        warn(w.message, w.category, stacklevel=4)
    return out.low, out.high, out.notes


def _clip(lo: float, hi: float, bounds: Any) -> tuple[float, float, tuple[str, ...]]:
    if bounds is None:
        return lo, hi, ()
    a, b = bounds
    if lo < a or hi > b:
        return max(lo, a), min(hi, b), (f"interval clipped to the metric's range [{a}, {b}]",)
    return lo, hi, ()


def _run_options(method: object, **shared: Any) -> tuple[RunOptions, str]:
    """The shared run options (the replicates are read as percentiles) and the method."""
    opts = check_run_options(method="percentile", **shared)
    return opts, check_choice(method, "method", SEED_METHODS)


# --------------------------------------------------------------- public API
@entry_point
def pool_seeds(
    *data: Any, metric: str | Metric | Callable[..., float] | None = None, method: str = "t",
    confidence_level: float = 0.95, n_resamples: int = 10_000, seed: int | None = None,
    batch: int | None = None, strata: Any = None, clusters: Any = None, on_undefined: str = "drop",
    metric_kwargs: dict[str, Any] | None = None, workers: int | None = None, engine: str = "auto",
    progress: Any = None,
) -> SeedPoolResult:  # fmt: skip
    """Interval for a method's expected metric from several training runs (seeds).

    Parameters
    ----------
    *data : array-like
        ``runs`` for a per-row score metric (the mean by default), or
        ``y_true, runs`` for a metric of two inputs; ``runs`` holds each run's
        outputs (predictions, scores) on the *same* test rows in the same
        order: a 2-D array of shape ``(R, n)``, a list of ``R`` arrays, or a
        DataFrame with one column per run. At least 2 runs.
    metric, confidence_level, n_resamples, seed, batch, strata, clusters
        As in :func:`booteval.ci`; the design applies to the test rows, and
        every run is resampled with the same rows in each replicate.
    method : {"t", "percentile", "basic", "normal"}
        ``"t"`` (default): estimate -/+ a Student ``t`` quantile times the
        standard error that adds the seed and the test-data variance (see the
        module notes); the others are read off the two-way (runs x rows)
        bootstrap distribution.
    on_undefined, metric_kwargs, workers, engine
        As in :func:`booteval.ci`; a replicate is dropped when the metric is
        undefined for any run. The compiled kernels (``engine=``)
        cover sum metrics of continuous outputs on an iid design, one draw per replicate
        for all runs; elsewhere ``engine="numba"`` runs the NumPy engine and says so.

    {progress}
    Returns
    -------
    SeedPoolResult
        The interval for the expected metric and the seed/test-data variance split.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.seeds import pool_seeds
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> runs = [np.where(rng.random(300) < acc, y, 1 - y) for acc in (0.78, 0.82, 0.80)]
    >>> r = pool_seeds(y, runs, metric="accuracy", n_resamples=2000, seed=0)
    >>> print(r.format(scale=100, digits=1), r.n_runs)
    80.2 (69.0, 91.5) 3
    >>> round(float(r.run_estimates.mean()), 4) == round(r.estimate, 4)
    True
    """
    opts, method = _run_options(method, confidence_level=confidence_level,
        n_resamples=n_resamples, seed=seed, on_undefined=on_undefined, batch=batch,
        workers=workers, engine=engine)  # fmt: skip

    def design_of(k: int) -> Design:
        return make_design(k, strata=strata, clusters=clusters)

    if not data:
        raise InvalidInputError("data", "the runs' outputs (runs, or y_true and runs)", "nothing")
    m = resolve_metric(metric, metric_kwargs, len(data))
    _check_n_inputs(m, len(data), "runs")
    evs, design, n = _bind_runs(
        m,
        tuple(data[:-1]),
        data[-1],
        "",
        lambda k: make_design(k, strata=strata, clusters=clusters),
    )
    stacked = StackedEvaluator(evs, design)
    est = np.asarray(stacked.estimate(), dtype=float)
    _check_finite(est, m, m.input_names[-1])
    reps, engine_notes = _run_matrix(stacked, design, opts)
    defined = np.isfinite(reps).all(axis=1)
    n_undefined = screen_undefined(defined, f"metric {m.label!r} (on some run)", opts.on_undefined)
    two_way = _two_way(reps, _run_rng(opts.seed, 0))[defined]
    reps = reps[defined]
    pooled = _pool(
        m, est, reps, two_way, method, opts.confidence_level, design, n, opts.n_resamples,
        opts.seed, n_undefined,
    )  # fmt: skip
    return replace(pooled, notes=(*engine_notes, *pooled.notes)) if engine_notes else pooled


def _check_n_inputs(m: Metric, got: int, what: str) -> None:
    if got != m.n_inputs:
        raise InvalidInputError(
            "data",
            f"{m.n_inputs} array(s) ({', '.join((*m.input_names[:-1], what))}) "
            f"for metric {m.label!r}",
            f"{got} array(s)",
        )


def _pool(
    m: Metric, est: np.ndarray, reps: np.ndarray, two_way: np.ndarray, method: str, level: float,
    design: Design, n: int, b: int, seed: int, n_undefined: int,
) -> SeedPoolResult:  # fmt: skip
    k = est.size
    comp = _components(est, reps)
    estimate = float(est.mean())
    se2 = comp["seed"] / k + comp["test_mean"]
    se = math.sqrt(se2)
    df = _satterthwaite(se2, [(comp["between"], k)])
    notes: tuple[str, ...] = ()
    if method == "t":
        lo, hi = _t_interval(estimate, se, df, level)
        lo, hi, notes = _clip(lo, hi, m.bounds)
    else:
        lo, hi, notes = _bootstrap_interval(method, estimate, two_way, level, m.bounds)
    if comp["between"] < comp["noise"]:
        notes = (
            *notes,
            "the runs differ no more than test-set noise explains: seed variance estimated as 0",
        )
    pooled = np.sort(reps.ravel())
    alpha = 1 - level
    single = (
        order_statistic_quantile(pooled, alpha / 2),
        order_statistic_quantile(pooled, 1 - alpha / 2),
    )
    return SeedPoolResult(
        estimate=estimate, low=float(lo), high=float(hi), confidence_level=level,
        method=method, metric=m.label, n_runs=k, run_estimates=freeze(est.copy()),
        standard_error=se, df=df, seed_variance=comp["seed"], test_variance=comp["test"],
        test_variance_of_mean=comp["test_mean"], between_run_variance=comp["between"],
        single_run_interval=(float(single[0]), float(single[1])), n=n,
        n_clusters=design.n_clusters, n_resamples=b, seed=seed, n_undefined=n_undefined,
        design=design.describe(), distribution=freeze(two_way),
        run_distributions=freeze(reps), notes=notes,
    )  # fmt: skip


@entry_point
def compare_methods(
    *data: Any, metric: str | Metric | Callable[..., float] | None = None, method: str = "t",
    confidence_level: float = 0.95, n_resamples: int = 10_000, seed: int | None = None,
    batch: int | None = None, strata: Any = None, clusters: Any = None,
    alternative: str = "two-sided", on_undefined: str = "drop",
    metric_kwargs: dict[str, Any] | None = None, workers: int | None = None, engine: str = "auto",
    progress: Any = None, names: tuple[str, str] = ("A", "B"),
) -> MethodComparisonResult:  # fmt: skip
    """Paired comparison of two methods, each trained with several seeds, on the same test rows.

    The test set is resampled with the same rows for every run of both
    methods (so what the rows share cancels out of the difference), and each
    method's seed variance is added: ``SE^2 = sigma_A^2 / R_A + sigma_B^2 / R_B
    + var_b(mean_r theta*_B - mean_r theta*_A)``, the seeds of the two methods
    being independent. The number of runs may differ between the methods.

    Parameters
    ----------
    *data : array-like
        ``runs_a, runs_b`` for a per-row score metric, or ``y_true, runs_a,
        runs_b``; each ``runs`` as in :func:`pool_seeds`.
    method : {"t", "percentile", "basic", "normal"}
        ``"t"``: Welch-Satterthwaite ``t`` interval and p-value; the others
        read the interval off the two-way bootstrap distribution of the
        difference (runs of each method resampled independently, test rows
        shared) and invert it for the p-value.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: B's expected metric is larger.
    names : (str, str)
        Display names of the two methods.
    metric, metric_kwargs, confidence_level, n_resamples, seed
        As in :func:`pool_seeds`.
    batch, strata, clusters, on_undefined, workers, engine
        As in :func:`pool_seeds`.

    {progress}
    Returns
    -------
    MethodComparisonResult
        The difference of the expected metrics with its interval and p-value.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.seeds import compare_methods
    >>> rng = np.random.default_rng(1)
    >>> hard = rng.random(400)                       # per-row difficulty, shared by all runs
    >>> a = [(hard < 0.70 + s).astype(float) for s in rng.normal(0, 0.01, 4)]
    >>> b = [(hard < 0.78 + s).astype(float) for s in rng.normal(0, 0.01, 4)]
    >>> r = compare_methods(a, b, n_resamples=2000, seed=0)
    >>> r.excludes_zero, r.difference > 0
    (True, True)
    """
    opts, method = _run_options(method, confidence_level=confidence_level,
        n_resamples=n_resamples, seed=seed, on_undefined=on_undefined, batch=batch,
        workers=workers, engine=engine)  # fmt: skip
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    name_a, name_b, m = pair_inputs(
        data,
        names,
        metric,
        metric_kwargs,
        "two methods' runs (runs_a, runs_b or y_true, runs_a, runs_b)",
    )
    if len(data) != m.n_inputs + 1:
        _check_n_inputs(m, len(data) - 1, "runs_a, runs_b")
    shared = tuple(data[:-2])
    design = make_design(
        _n_rows(data[-2], m.input_names[-1] + f" of {name_a}"), strata=strata, clusters=clusters
    )
    ev_a, _, n_a = _bind_runs(m, shared, data[-2], name_a, lambda k: design)
    ev_b, _, _ = _bind_runs(m, shared, data[-1], name_b, lambda k: design)
    ka = len(ev_a)
    both = StackedEvaluator([*ev_a, *ev_b], design)
    est = np.asarray(both.estimate(), dtype=float)
    _check_finite(est[:ka], m, f"{m.input_names[-1]} of {name_a}")
    _check_finite(est[ka:], m, f"{m.input_names[-1]} of {name_b}")
    b = opts.n_resamples
    reps, engine_notes = _run_matrix(both, both.design or design, opts)
    defined = np.isfinite(reps).all(axis=1)
    n_undefined = screen_undefined(
        defined, f"metric {m.label!r} (on some run of {name_a} or {name_b})", opts.on_undefined
    )
    tw_a = _two_way(reps[:, :ka], _run_rng(opts.seed, 0))[defined]
    tw_b = _two_way(reps[:, ka:], _run_rng(opts.seed, 1))[defined]
    reps = reps[defined]
    ra = _pool(m, est[:ka], reps[:, :ka], tw_a, method, opts.confidence_level, design, n_a, b,
               opts.seed, n_undefined)  # fmt: skip
    rb = _pool(m, est[ka:], reps[:, ka:], tw_b, method, opts.confidence_level, design, n_a, b,
               opts.seed, n_undefined)  # fmt: skip
    diff = rb.estimate - ra.estimate
    d_mean = reps[:, ka:].mean(axis=1) - reps[:, :ka].mean(axis=1)
    v_test = float(np.var(d_mean, ddof=1))
    kb = est.size - ka
    se2 = ra.seed_variance / ka + rb.seed_variance / kb + v_test
    se = math.sqrt(se2)
    df = _satterthwaite(se2, [(ra.between_run_variance, ka), (rb.between_run_variance, kb)])
    level = opts.confidence_level
    notes: tuple[str, ...] = ()
    bounds = None if m.bounds is None else (m.bounds[0] - m.bounds[1], m.bounds[1] - m.bounds[0])
    diffs = tw_b - tw_a
    if method == "t":
        lo, hi = _t_interval(diff, se, df, level)
        lo, hi, notes = _clip(lo, hi, bounds)
        if se > 0:
            t_stat = diff / se
            dist = stats.t(df) if math.isfinite(df) else stats.norm()
            p_greater, p_less = float(dist.sf(t_stat)), float(dist.cdf(t_stat))
            p_value = {"greater": p_greater, "less": p_less}.get(
                alternative, min(1.0, 2 * min(p_greater, p_less))
            )
        else:
            p_value = 1.0 if diff == 0 else 0.0
    else:
        lo, hi, notes = _bootstrap_interval(method, diff, diffs, level, bounds)
        p_value = bootstrap_p_value(method, diff, diffs, alternative)
    return MethodComparisonResult(
        metric=m.label, name_a=name_a, name_b=name_b, estimate_a=ra.estimate,
        estimate_b=rb.estimate, difference=diff, low=float(lo), high=float(hi),
        confidence_level=level, method=method, p_value=float(p_value), alternative=alternative,
        standard_error=se, df=df, test_variance_of_difference=v_test,
        seed_variance_a=ra.seed_variance, seed_variance_b=rb.seed_variance,
        excludes_zero=bool(lo > 0 or hi < 0), n=n_a, n_resamples=b, seed=opts.seed,
        n_undefined=n_undefined, design="paired " + design.describe(), result_a=ra,
        result_b=rb, distribution=freeze(diffs), notes=(*engine_notes, *notes),
    )  # fmt: skip


def _n_rows(runs: Any, where: str) -> int:
    items = _split_runs(runs, where)
    if not items:
        raise InvalidInputError(where, "outputs of at least 2 runs", "0 runs")
    return len(items[0])
