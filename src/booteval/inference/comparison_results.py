"""The result of :func:`booteval.compare`: a paired difference with its interval and test."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.format import format_triplet
from ..results import PairedDifference, cluster_line, with_notes

__all__ = ["ComparisonResult"]


@dataclass(frozen=True, eq=False)
class ComparisonResult(PairedDifference):
    """The paired difference ``B - A`` of a metric between two systems on the same rows.

    Attributes not listed below are as in :class:`~booteval.CIResult`.

    Attributes
    ----------
    metric : str
    name_a, name_b, estimate_a, estimate_b, difference, low, high
        The systems, their metrics and ``B - A`` with its interval
        (:class:`~booteval.results.PairedDifference`).
    p_value : float
        For the null hypothesis of no difference, against ``alternative``
        (``"greater"``: B's metric is larger than A's).
    test : str
        What produced the p-value: ``"bootstrap"`` inverts the (bootstrap) interval method;
        ``"tango"``, ``"newcombe"`` and ``"cr2"`` invert the closed form that
        ``method="auto"`` chose;
        the others are the classical tests of ``compare``'s ``test``.
    standard_error : float
        Standard deviation of the bootstrap differences.
    excludes_zero : bool
        Whether the interval excludes 0.
    effective_n : float
        With clusters, Kish's effective sample size of the difference (from the jackknife
        variances of ``B - A`` leaving out a cluster and a row: never above ``n``); ``n``
        without clusters; NaN where a note says it was not computed.
    interval_a, interval_b : (float, float)
        Each system's own interval: exactly the one :func:`booteval.ci` gives for that
        system alone with the same data, seed, ``B`` and method (``method="auto"``: ci's
        choice for the system, which may differ from the difference's);
        ``details["systems"]`` holds the two :class:`~booteval.CIResult`.
    distribution, distribution_a, distribution_b : ndarray
        The defined replicate values of the difference and of each system.
    """

    metric: str
    confidence_level: float
    method: str
    p_value: float
    alternative: str
    test: str
    standard_error: float
    excludes_zero: bool
    interval_a: tuple[float, float]
    interval_b: tuple[float, float]
    n: int
    n_clusters: int | None
    n_resamples: int
    seed: int
    n_undefined: int
    mcse_low: float
    mcse_high: float
    design: str
    distribution: np.ndarray = field(repr=False)
    distribution_a: np.ndarray = field(repr=False)
    distribution_b: np.ndarray = field(repr=False)
    effective_n: float = math.nan
    notes: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, repr=False)

    def summary(self, scale: float = 1.0, digits: int = 4) -> str:
        """One line a paper can use.

        Examples
        --------
        >>> import booteval
        >>> a = [1, 0, 1, 1, 0, 1, 0, 1] * 25
        >>> b = [1, 1, 1, 1, 0, 1, 0, 1] * 25
        >>> r = booteval.compare(a, b, n_resamples=2000, seed=0, method="percentile")
        >>> print(r.summary(scale=100, digits=1))
        mean: B - A = 12.5 (8.0, 17.0), p = 1.0e-03 (bootstrap, two-sided); A 62.5, B 75.0
        """
        p = f"{self.p_value:.3f}" if self.p_value >= 0.001 else f"{self.p_value:.1e}"
        return (
            f"{self.metric}: {self.name_b} - {self.name_a} = {self.format(scale, digits)}, "
            f"p = {p} ({self.test}, {self.alternative}); "
            f"{self.name_a} {self.estimate_a * scale:.{digits}f}, "
            f"{self.name_b} {self.estimate_b * scale:.{digits}f}"
        )

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (
            f"ComparisonResult(metric={self.metric!r}, difference={self.difference:.6g}, "
            f"low={self.low:.6g}, high={self.high:.6g}, p_value={self.p_value:.4g}, "
            f"method={self.method!r}, n={self.n}, n_resamples={self.n_resamples}, "
            f"seed={self.seed})"
        )

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """A longer description: the comparison, method, design, B and seed."""
        pct = f"{self.confidence_level * 100:g}%"
        lines = [
            self.summary(scale, digits),
            f"  {pct} {self.method} interval of the paired difference; {self.design}",
            f"  B = {self.n_resamples} shared resamples, seed = {self.seed}"
            + (f", {self.n_undefined} undefined (dropped)" if self.n_undefined else ""),
            f"  {self.name_a}: {format_triplet(self.estimate_a, *self.interval_a, scale=scale, digits=digits)}"  # noqa: E501
            f"; {self.name_b}: {format_triplet(self.estimate_b, *self.interval_b, scale=scale, digits=digits)}"  # noqa: E501
            + self._systems_method(),
            f"  standard error of the difference {self.standard_error * scale:.{digits}g}",
        ]
        if self.n_clusters is not None:
            lines.append(cluster_line(self.n_clusters, self.effective_n, self.n))
        return with_notes(lines, self.notes)

    def _systems_method(self) -> str:
        """How each system's own interval was formed (``booteval.ci``'s, with its method)."""
        systems = self.details.get("systems", ())
        methods = list(dict.fromkeys(r.method for r in systems))
        if not methods:
            return ""
        return f" (each booteval.ci's {' / '.join(methods)} interval of the system alone)"

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (no arrays)."""
        keys = (
            "metric", "name_a", "name_b", "estimate_a", "estimate_b", "difference", "low",
            "high", "confidence_level", "method", "p_value", "alternative", "test",
            "standard_error", "excludes_zero", "n", "n_clusters", "effective_n", "n_resamples",
            "seed", "n_undefined", "design",
        )  # fmt: skip
        out = {k: getattr(self, k) for k in keys}
        out["interval_a"], out["interval_b"] = list(self.interval_a), list(self.interval_b)
        out["notes"] = list(self.notes)
        return out
