"""Which compiled kernel runs a statistic: chosen from what the evaluator declares, never
from its class.

An evaluator declares its kernel family with a ``kernel`` attribute (``"sums"``: a function
of weighted sums of per-row statistics, :class:`~booteval.metrics.base.SumEvaluator`;
``"auc"``: ROC-AUC from sorted scores; ``"shifted"``: another evaluator's values plus a
constant) or, for the rank statistics, a ``compiled_statistic``
(:data:`booteval.core.rank_kernels.RANK_STATISTICS`). Several systems on shared weights
(:class:`~booteval.core.paired.StackedEvaluator`) declare their ``parts``. A metric family
that wants the compiled engine declares one of these; this module is the only place that
reads them, and it imports no metric class.
"""

from __future__ import annotations

import numpy as np

from . import auc_kernels, rank_kernels
from .kernels import MAX_ROWS, Runner, stacked_runner, sum_runner, unshift

__all__ = ["plan"]


def plan(evaluator: object, design: object) -> Runner | str:
    """A runner ``(seed, start, stop, want_se) -> (values, ses)`` for ``evaluator``,
    or the reason there is no compiled kernel for it.

    The runner's ``draws`` names its family of draws (``"sums"``, ``"auc-units"``,
    ``"auc-sorted"``, ``"rank"``): one system alone and the same system among several
    draw the same units in every replicate where the family is the same
    (:func:`booteval.core.engine.draw_key`)."""
    planned = _plan(evaluator, design)
    if isinstance(planned, str):
        return planned
    runner, draws = planned
    if not isinstance(runner, str):
        runner.draws = draws  # type: ignore[attr-defined]
    return runner


def _kernel(ev: object) -> str | None:
    return getattr(ev, "kernel", None)


def _rank_statistic(ev: object) -> bool:
    """Whether ``ev`` declares a statistic of :mod:`booteval.core.rank_kernels`."""
    return getattr(ev, "compiled_statistic", None) in rank_kernels.RANK_STATISTICS


def _plan(evaluator: object, design: object) -> tuple[Runner | str, str] | str:
    """:func:`plan`'s runner and its family of draws, or why there is none."""
    d = getattr(evaluator, "design", None) or design
    if d.compressed:
        return (
            "the compiled engine does not resample compressed cells (discrete data, which "
            "the NumPy engine resamples as a few distinct cells at a cost independent of n)"
        )
    if d.n_rows < 1 or d.n_rows > MAX_ROWS:
        return f"the compiled engine needs 1 to {MAX_ROWS} rows"
    # clusters: a sum metric's statistics are per-cluster sums (unit_stats), so drawing
    # clusters is drawing rows of those sums; ROC-AUC weighs each row by its unit's count.
    # strata: draws within each stratum, stratum after stratum
    strata = np.asarray(d.unit_stratum) if d.n_strata > 1 else None
    parts = getattr(evaluator, "parts", None)  # StackedEvaluator: systems on shared weights
    if parts is not None:
        if all(_kernel(part) == "auc" for part in parts):
            return auc_kernels.units_auc_runner(parts, d), "auc-units"
        if all(_rank_statistic(part) for part in parts):
            return rank_kernels.rank_runner(parts, d), "rank"
        return stacked_runner(parts, strata), "sums"
    shift, ev = unshift(evaluator)
    if ev is not evaluator:
        if getattr(ev, "design", None) is not None and ev.design.compressed:
            return "the compiled engine does not resample compressed cells"
    if _kernel(ev) == "sums":
        return sum_runner(ev, shift, strata), "sums"
    if _kernel(ev) == "auc":  # rows in sorted order when iid, else by unit
        return auc_kernels.auc_runner(ev, d), "auc-sorted" if d.kind == "iid" else "auc-units"
    if _rank_statistic(ev):  # Spearman, Kendall, average precision: by unit
        return auc_kernels.single(rank_kernels.rank_runner([ev], d)), "rank"
    if d.kind != "iid":
        return f"the compiled engine covers {d.kind} designs for sum, ROC-AUC and rank metrics only"
    return "the compiled engine has no kernel for this statistic yet"
