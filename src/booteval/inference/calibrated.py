"""``booteval.ci``'s recipe for ``with_method``, with what the calibrated interval needs.

A result of :func:`booteval.ci` recomputes any interval method from its replicates
(``result.with_method``). The calibrated interval (:mod:`booteval.core.calibrated`) needs
one more number per replicate, its inner coverage, which only a run with
``method="calibrated"`` draws (``n_inner`` inner resamples per replicate). So:

* a calibrated result goes to any other method (the same outer replicates: for a sum
  metric on the compiled engine, and for every metric on the NumPy engine, the replicates
  of a run with that method and seed) and back, and to the calibrated interval at
  another level;
* a result of another method refuses ``with_method("calibrated")``, saying to run
  ``booteval.ci(..., method="calibrated")``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.calibrated import CALIBRATED, calibrated_interval
from ..core.errors import InvalidInputError
from ..results import CIResult, IntervalRecipe, freeze

__all__ = ["CalibratedRecipe", "recipe"]


@dataclass(frozen=True, eq=False)
class CalibratedRecipe(IntervalRecipe):
    """An :class:`~booteval.results.IntervalRecipe` that also forms the calibrated interval.

    Parameters
    ----------
    inner_coverage : ndarray or None
        The inner coverage of each defined replicate, in the order of
        ``result.distribution``; ``None`` where the run drew no inner resamples.
    n_inner : int or None
        The inner resamples behind each coverage.
    """

    inner_coverage: np.ndarray | None = None
    n_inner: int | None = None

    def interval(self, result: CIResult, method: str, level: float) -> Any:
        """The calibrated interval from the stored inner coverages, or another method's."""
        if method != CALIBRATED:
            return super().interval(result, method, level)
        if self.inner_coverage is None:
            raise InvalidInputError(
                "method",
                "a method other than 'calibrated' for a result computed without the inner "
                "bootstrap",
                repr(method),
                "Run booteval.ci(..., method='calibrated') instead: the inner resamples of "
                "every replicate are drawn in that run (n_inner of them).",
            )
        return calibrated_interval(
            result.estimate, result.distribution, self.inner_coverage, level,
            n_inner=self.n_inner, bounds=self.bounds,
        )  # fmt: skip


def recipe(methods: tuple[str, ...], coverage: np.ndarray | None, n_inner: int | None,
           **fields: Any) -> CalibratedRecipe:  # fmt: skip
    """``booteval.ci``'s recipe: ``methods`` and the calibrated one, with the inner coverage
    of the defined replicates where the run drew it (``fields``: the
    :class:`~booteval.results.IntervalRecipe` fields)."""
    return CalibratedRecipe(
        (*methods, CALIBRATED), inner_coverage=freeze(coverage), n_inner=n_inner, **fields
    )
