"""The calibrated (double, iterated) bootstrap: the percentile interval with its levels
calibrated by a second level of resampling (``method="calibrated"`` of :func:`booteval.ci`).

The method
----------
Prepivoting (Beran 1987), the double bootstrap of Hall & Martin (1988), in the form of
Davison & Hinkley (1997, sections 3.9 and 5.6). For each outer replicate ``b`` (a
resample of the data, with value ``theta*_b``), ``M = n_inner`` inner resamples are drawn
from that resample, and its *inner coverage* is

    ``u_b = (#{theta**_bm < theta_hat} + #{theta**_bm == theta_hat} / 2) / M``,

the share of the inner values at or below the original estimate (ties count one half, as
BCa's ``z0``; inner values that are undefined are left out of ``M``). In the bootstrap
world, where ``theta_hat`` is the truth and resample ``b`` the data, the percentile
interval of nominal levels ``(l, h)`` misses below exactly when ``u_b < l`` and above when
``u_b > h``; so the levels at which each tail misses ``alpha / 2`` of the time are

    ``q_lo = ``the ``alpha / 2`` quantile of the ``u_b``, ``q_hi =`` their
    ``1 - alpha / 2`` quantile,

and the calibrated interval is ``[G^-1(q_lo), G^-1(q_hi)]``, ``G`` the outer replicates'
distribution. Quantiles of both use the order-statistic rule of
:mod:`booteval.core.order_stats` (the ``ceil(p * B)``-th smallest, no interpolation).

This is the per-tail form (Davison & Hinkley's adjusted percentile method), chosen over
the two-sided form that solves for one nominal level ``lambda`` with ``#{lambda / 2 <=
u_b <= 1 - lambda / 2} = (1 - alpha) B``: the per-tail form calibrates each tail's miss
rate, not only their sum, which is what a skewed statistic needs (a small-sample mean of
skewed scores misses mostly on one side), and it is a closed form, two quantiles, whose
Monte Carlo error is tractable. Like the percentile interval it is unchanged by a monotone
transform of the metric, so ``transform=`` does not change it.

Degenerate cases (recorded in the outcome's notes; each but the first warned with
:class:`~booteval.DegenerateIntervalWarning`):

* every outer replicate equal: the zero-width interval of every method;
* fewer than two defined inner coverages, or all equal (the inner values all on one side
  of the estimate: the calibration has nothing to work with): the percentile interval;
* ``n_inner`` too small for the level (``n_inner * alpha / 2 < 2``: inner coverage moves in
  steps of ``1 / n_inner``, and about ``1 / (n_inner + 1)`` of the replicates have none of
  their inner values below the estimate by chance, which drags the lower level to 0 once
  that nears ``alpha / 2``): the calibrated interval, noted as rough (at 95 %, below 80);
* calibrated levels beyond ``1 / B`` of 0 or 1: the extreme replicate, as BCa.

Monte Carlo error (approximate): the endpoint ``G^-1(q)`` moves with both the outer order
statistic at the level ``q`` (:mod:`booteval.core.order_stats`) and the
level itself, estimated from the ``B`` inner coverages (the same order-statistic error, on
the sorted ``u_b``, carried to the endpoint by the slope of ``G^-1``); the two are added
as if independent. The bias that the inner Monte Carlo error puts into the ``u_b`` (their
spread is too wide by a variance of about ``u (1 - u) / M``, which pushes the calibrated
levels outward) is not included: it falls as ``1 / M``.

Reproducibility
---------------
Outer replicates are the engine's. Inner resamples of replicate ``b`` come from a stream
keyed on ``b``: the ``kernels.calibrated`` stream in the compiled kernel
(:mod:`booteval.core.calibrated_kernels`, sum metrics: means, proportions, ratios, mean
losses, under iid, stratified and clustered designs), the ``calibrated`` stream on the
NumPy engine (every other statistic, and cells of discrete data: ``B * n_inner`` calls of
the metric, one replicate at a time). Either way a replicate's inner resamples do not
depend on ``batch`` or ``workers``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from .design import Design
from .engine import EngineRun, RunOptions, default_batch, run_engine
from .errors import DegenerateIntervalWarning, InvalidInputError, warn
from .intervals import IntervalOutcome, compute_interval
from .order_stats import (
    _quantile_mcse,
    _quantile_slope,
    order_statistic_quantile,
    quantile_endpoints,
)
from .progress import report, reporter
from .streams import generator

__all__ = [
    "CALIBRATED",
    "DEFAULT_INNER",
    "calibrated_interval",
    "inner_coverage",
    "run_calibrated",
]

#: the method's name
CALIBRATED = "calibrated"
#: inner resamples per outer replicate unless ``n_inner`` is given
DEFAULT_INNER = 200
#: fewer steps of ``1 / n_inner`` than this in a tail of the level: a rough calibration
_TAIL_STEPS = 2


def inner_coverage(values: np.ndarray, estimate: float) -> np.ndarray:
    """Each outer replicate's inner coverage: the share of its inner values (a row of
    ``values``) below ``estimate``, those equal counting one half; NaN inner values are
    left out, and a row with none defined gives NaN.

    Examples
    --------
    >>> inner_coverage(np.array([[1.0, 2.0, 3.0, 4.0], [2.0, np.nan, 5.0, 6.0]]), 2.0).round(4)
    array([0.375 , 0.1667])
    """
    v = np.asarray(values, dtype=float)
    finite = np.isfinite(v)
    below = np.count_nonzero(finite & (v < estimate), axis=1)
    equal = np.count_nonzero(v == estimate, axis=1)
    count = np.count_nonzero(finite, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (below + 0.5 * equal) / count
    return np.where(count > 0, out, np.nan)


def calibrated_interval(
    estimate: float, replicates: np.ndarray, coverage: np.ndarray, confidence_level: float, *,
    n_inner: int | None = None, bounds: tuple[float, float] | None = None, warn: bool = True,
) -> IntervalOutcome:  # fmt: skip
    """The calibrated percentile interval from the outer replicates and their inner coverages.

    Parameters
    ----------
    estimate : float
        The metric on the original data.
    replicates : ndarray, shape (B,)
        Finite outer replicate values.
    coverage : ndarray, shape (B,)
        Each replicate's inner coverage (:func:`inner_coverage`; NaN: none defined).
    confidence_level : float
    n_inner : int, optional
        The inner resamples behind each coverage (for the note on a coarse calibration).
    bounds : (float, float), optional
        The metric's range; endpoints are clipped to it.
    warn : bool
        Warn about the degenerate cases (:class:`~booteval.DegenerateIntervalWarning`).

    Returns
    -------
    IntervalOutcome
        ``details["levels"]`` holds the calibrated levels ``(q_lo, q_hi)``.

    Examples
    --------
    >>> reps = np.linspace(0.0, 1.0, 1001)
    >>> u = np.linspace(0.01, 0.99, 1001)  # the percentile interval misses too rarely
    >>> out = calibrated_interval(0.5, reps, u, 0.95)
    >>> out.details["levels"], (round(out.low, 3), round(out.high, 3))
    ((0.0345, 0.9655), (0.034, 0.966))
    """
    reps = np.asarray(replicates, dtype=float)
    b = reps.shape[0]
    alpha = 1.0 - confidence_level
    srt = np.sort(reps)
    u = np.asarray(coverage, dtype=float)
    u = np.sort(u[np.isfinite(u)])
    if b == 0 or srt[0] == srt[-1] or u.size < 2 or u[0] == u[-1]:
        # no spread to calibrate: the percentile interval (or every method's zero width)
        out = compute_interval("percentile", estimate, reps, confidence_level, bounds=bounds,
                               warn=warn)  # fmt: skip
        if b == 0 or srt[0] == srt[-1]:
            return out
        note = (
            "the calibrated interval is undefined: "
            + (
                f"the inner coverage is {u[0]:g} for every outer replicate"
                if u.size >= 2
                else "fewer than two outer replicates have a defined inner bootstrap"
            )
            + "; the percentile interval was returned instead"
        )
        if warn:
            _warn([note])
        return replace(out, notes=(note, *out.notes))
    notes: list[str] = []
    if u.size < b:
        notes.append(
            f"{b - u.size} of {b} outer replicates have no defined inner value and were left "
            "out of the calibration"
        )
    if n_inner is not None and n_inner * alpha / 2 < _TAIL_STEPS:
        notes.append(
            f"n_inner = {n_inner} inner resamples measure inner coverage in steps of "
            f"1/{n_inner}, too coarse for the tail level {alpha / 2:g} (about 1/{n_inner + 1} "
            "of the replicates have no inner value below the estimate by chance): the "
            f"calibrated levels are rough; use n_inner >= {math.ceil(2 * _TAIL_STEPS / alpha)} "
            f"(default {DEFAULT_INNER})"
        )
    q_lo = order_statistic_quantile(u, alpha / 2)
    q_hi = order_statistic_quantile(u, 1 - alpha / 2)
    for q, extreme, side, end in (
        (q_lo, 0.0, "above", "smallest"),
        (q_hi, 1.0, "below", "largest"),
    ):
        if q == extreme:
            notes.append(
                f"a calibrated level is {extreme:g}: at least {alpha / 2:g} of the outer "
                f"replicates have every inner value {side} the estimate, so the endpoint is "
                f"the {end} of the {b} replicates, whatever B (too few rows for the double "
                "bootstrap to bound that side)"
            )
        elif min(q, 1 - q) < 1.0 / b:
            notes.append(
                f"the calibrated level {q:.4g} reaches beyond the extreme order statistics of "
                f"{b} replicates: the endpoint is the {end} replicate; increase n_resamples"
            )
    low, high, mc_lo, mc_hi = quantile_endpoints(srt, q_lo, q_hi, alpha)
    mc = [
        math.hypot(mc_q, _quantile_slope(srt, q) * _quantile_mcse(u, p))
        for q, p, mc_q in ((q_lo, alpha / 2, mc_lo), (q_hi, 1 - alpha / 2, mc_hi))
    ]
    degenerate = list(notes)
    notes.insert(
        0,
        f"calibrated percentile levels ({q_lo:.4g}, {q_hi:.4g}) for the nominal "
        f"({alpha / 2:g}, {1 - alpha / 2:g}), from the inner coverage of {u.size} outer "
        f"replicates" + (f" ({n_inner} inner resamples each)" if n_inner else ""),
    )
    if bounds is not None and (low < bounds[0] or high > bounds[1]):
        notes.append(
            f"interval ({low:.6g}, {high:.6g}) clipped to the metric's range "
            f"[{bounds[0]:g}, {bounds[1]:g}]"
        )
        low, high = max(low, bounds[0]), min(high, bounds[1])
    if not low <= estimate <= high:
        outside = (
            f"the estimate {estimate:.6g} lies outside its own interval ({low:.6g}, "
            f"{high:.6g}): treat this interval with caution"
        )
        notes.append(outside)
        degenerate.append(outside)
    if warn:
        _warn(degenerate)
    details: dict[str, Any] = {"levels": (q_lo, q_hi), "n_inner": n_inner}
    return IntervalOutcome(low, high, mc[0], mc[1], tuple(notes), details)


def _warn(notes: list[str]) -> None:
    for note in notes:
        warn(note, DegenerateIntervalWarning, stacklevel=5)


def run_calibrated(
    evaluator: Any, source: Any, opts: RunOptions, n_resamples: int, estimate: float
) -> tuple[EngineRun, np.ndarray]:
    """The outer replicates and each one's inner coverage, on the compiled kernel of
    :mod:`booteval.core.calibrated_kernels` where it applies (through
    :func:`~booteval.core.engine.run_engine`), else one replicate at a time with NumPy.

    Parameters
    ----------
    evaluator : Evaluator
        The metric bound to the data.
    source : Design
        The multinomial design (the Poisson one is refused: the inner bootstrap redraws
        each outer resample's units).
    opts : RunOptions
        ``seed``, ``engine``, ``batch``, ``workers``, ``n_inner``.
    n_resamples : int
    estimate : float

    Returns
    -------
    (EngineRun, ndarray)
        The run (its ``standard_errors`` None) and the inner coverage of each replicate.

    Examples
    --------
    >>> from booteval.core.design import make_design
    >>> from booteval.core.engine import check_run_options
    >>> from booteval.metrics import get_metric
    >>> plan = make_design(6)
    >>> ev = get_metric("mean").bind((np.arange(6.0),), plan)
    >>> opts = check_run_options(confidence_level=0.95, n_resamples=40, seed=1,
    ...                          method="percentile", n_inner=20, engine="numpy")
    >>> ran, u = run_calibrated(ev, plan, opts, 40, 2.5)
    >>> ran.values.shape, u.shape, bool(((0 <= u) & (u <= 1)).all())
    ((40,), (40,), True)
    """
    if not isinstance(source, Design):
        raise InvalidInputError(
            "method",
            "a method other than 'calibrated' with design='poisson' (the inner bootstrap "
            "redraws each outer resample's units: design='multinomial')",
            "'calibrated'",
        )
    runner, note = _compiled(evaluator, source, opts.engine, opts.n_inner, estimate)
    if runner is not None:
        ran = run_engine(evaluator, source, opts, n_resamples=n_resamples, kernel=lambda _: runner)
        # the runner hands each replicate's inner coverage back where runners return
        # standard errors
        return replace(ran, standard_errors=None), np.asarray(ran.standard_errors)
    values, cover = _numpy_run(evaluator, source, opts, n_resamples, estimate)
    return EngineRun(values, None, (note,) if note else (), "", None), cover


def _compiled(
    evaluator: Any, design: Design, engine: str, n_inner: int, estimate: float
) -> tuple[Any, str | None]:
    """The compiled double bootstrap of a sum metric, or ``None`` and (for
    ``engine="numba"``) the note saying why the NumPy engine runs."""
    if engine == "numpy":
        return None, None
    from .kernel_plan import plan
    from .kernels import unshift

    planned = plan(evaluator, design)
    if isinstance(planned, str):
        reason = planned
    elif getattr(planned, "draws", None) != "sums" or getattr(evaluator, "parts", None):
        reason = "the compiled engine has a calibrated bootstrap for sum metrics only"
    else:
        from .calibrated_kernels import calibrated_sums_runner

        shift, ev = unshift(evaluator)
        d = getattr(evaluator, "design", None) or design
        strata = np.asarray(d.unit_stratum) if d.n_strata > 1 else None
        cover = lambda values: inner_coverage(values, estimate)  # noqa: E731
        return calibrated_sums_runner(ev, shift, strata, n_inner, cover), None
    if engine == "auto":
        return None, None
    return None, (
        f"engine='numba' was requested, but {reason}: the calibrated bootstrap ran on the "
        "NumPy engine, whose replicates differ from the compiled engine's for the same seed"
    )


def _numpy_run(
    evaluator: Any, design: Design, opts: RunOptions, n_resamples: int, estimate: float
) -> tuple[np.ndarray, np.ndarray]:
    """Outer replicates as the NumPy engine draws them, and each one's inner coverage from
    ``n_inner`` resamples of its units on the ``calibrated`` stream at key ``b``."""
    design = getattr(evaluator, "design", None) or design
    seed, n_inner = opts.seed, opts.n_inner
    size = opts.batch or default_batch(design, n_resamples)
    # the inner weights of this many replicates are evaluated at once (about 32 MB)
    group = max(1, _GROUP_CELLS // (n_inner * design.n_units))
    values, cover = np.empty(n_resamples), np.empty(n_resamples)
    listener = reporter()
    for start in range(0, n_resamples, size):
        stop = min(start + size, n_resamples)
        weights = design.unit_weights(seed, start, stop)
        values[start:stop] = evaluator.replicates(weights)
        for lo in range(start, stop, group):
            hi = min(lo + group, stop)
            inner = np.concatenate([
                design.nested_unit_weights(weights[b - start], n_inner,
                                           generator("calibrated", seed, b))
                for b in range(lo, hi)
            ])  # fmt: skip
            inner_values = np.asarray(evaluator.replicates(inner)).reshape(hi - lo, n_inner)
            cover[lo:hi] = inner_coverage(inner_values, estimate)
        report(listener, stop, n_resamples)
    return values, cover


#: inner weights (replicates x n_inner x units) evaluated in one call on the NumPy engine
_GROUP_CELLS = 1 << 22
