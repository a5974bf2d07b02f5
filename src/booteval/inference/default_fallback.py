"""What ``method="auto"`` gives where the bootstrap-t it chose says nothing.

The default never answers with an interval that says nothing (``details["vacuous"]``,
:func:`booteval.core.intervals.compute_interval`): an infinite endpoint on the scale it
was formed on, or both ends past the metric's range. That happens to the bootstrap-t
with few clusters, where many resamples of clusters hold one or two distinct clusters
(or none of a rare outcome) and their standard error is zero or tiny. In its place:

* a clustered proportion or mean: CR2, on the scale where it stays in range (unless a
  ``transform`` was asked for);
* any other clustered metric (or a clustered proportion or mean with a ``transform``):
  the cluster jackknife t interval
  (:func:`booteval.core.jackknife_t.jackknife_t_interval`) on the scale where the
  metric's range is natural, whatever ``transform`` was asked for;
* otherwise, or where the jackknife has no width: BCa from the same replicates.

A note says which, and the warnings about the interval not returned are dropped. This is
:func:`booteval.ci`'s, and so each system's in :func:`booteval.compare` and
:func:`booteval.leaderboard`. ``compare``'s own difference ``B - A`` (and a leaderboard's
pair, which is compare's) takes the cluster jackknife t of the difference there, with the
p-value that inverts it (:mod:`booteval.inference.jackknife_forms`), and BCa from the same
replicates without clusters.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..core.errors import DegenerateIntervalWarning, collect_warnings
from ..core.intervals import vacuous_note
from ..core.jackknife_t import JACKKNIFE_T
from ..metrics import Metric
from ..results import CIResult
from .auto_method import Case, Rule, closed_form
from .jackknife_forms import result_jackknife_t

__all__ = ["bounded_default"]


def _run_notes(result: CIResult) -> tuple[str, ...]:
    recipe = result._recompute
    return (*recipe.notes_before, *recipe.notes_after) if recipe is not None else ()


def bounded_default(
    result: CIResult, rule: Rule, case: Case, m: Metric, arrays: tuple[np.ndarray, ...],
    clusters: Any, caught: list,
) -> tuple[CIResult, list]:  # fmt: skip
    """``result`` (the vacuous bootstrap-t) replaced as the module says, with its note;
    the warnings ``caught`` less those about the interval not returned."""
    kept = [w for w in caught if not issubclass(w.category, DegenerateIntervalWarning)]
    with collect_warnings() as more:
        if case.clustered and case.family in ("proportion", "mean") and case.closed_form:
            cr2 = closed_form("cr2", m, arrays, clusters, result.confidence_level)
            out = replace(
                result, low=cr2.low, high=cr2.high, method="cr2", mcse_low=0.0,
                mcse_high=0.0, notes=(*getattr(cr2, "notes", ()), *_run_notes(result)),
            )  # fmt: skip
            instead = "CR2 (a closed form)"
        elif case.clustered and (jack := result_jackknife_t(result, m)) is not None:
            out = replace(
                result, low=jack.low, high=jack.high, method=JACKKNIFE_T, mcse_low=0.0,
                mcse_high=0.0, notes=_run_notes(result),
            )  # fmt: skip
            instead = f"the cluster jackknife t interval ({jack.describe()})"
        else:
            out = result.with_method("bca")
            instead = "BCa from the same replicates"
    details = {k: v for k, v in out.details.items() if k != "vacuous"}
    notes = (vacuous_note(rule.method, instead), *out.notes)
    return replace(out, notes=notes, details=details), [*kept, *more]
