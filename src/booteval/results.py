"""Result objects: frozen dataclasses that carry an interval and its provenance."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._format import format_triplet
from ._validation import check_confidence_level

__all__ = ["CIResult"]


def _significant(x: float, figures: int) -> str:
    """``x`` to ``figures`` significant figures, without an exponent (``12.6`` -> ``13``)."""
    if not np.isfinite(x):
        return str(x)
    return np.format_float_positional(
        x, precision=figures, unique=False, fractional=False, trim="-"
    )


@dataclass(frozen=True, eq=False)
class CIResult:
    """A metric's point estimate with a bootstrap confidence interval.

    Attributes
    ----------
    estimate : float
        The metric on the original data (never the mean of the replicates).
    low, high : float
        The interval.
    confidence_level : float
    method : str
        ``"percentile"``, ``"basic"``, ``"normal"``, ``"bca"`` or ``"studentized"``.
    metric : str
        The metric's label, e.g. ``"f1(average='macro')"``.
    n : int
        Number of rows.
    n_clusters : int or None
        Number of clusters under a cluster design.
    effective_n : float
        Effective sample size: ``n`` times the ratio of the row-level
        (iid) jackknife variance to the design's jackknife variance under a
        cluster design, ``n`` otherwise (``nan`` where it could not be computed).
    n_resamples : int
        Number of replicates drawn (``B``), including undefined ones.
    seed : int
        The seed that reproduces the run (drawn and recorded when not given).
    standard_error : float
        Standard deviation of the defined replicates.
    n_undefined : int
        Replicates on which the metric was undefined (dropped).
    mcse_low, mcse_high : float
        Monte Carlo standard errors of the endpoints.
    design : str
        Description of the resampling design.
    transform : str or None
        The transform applied before forming the interval.
    distribution : ndarray
        The defined replicate values (read-only), in replicate order.
    jackknife : ndarray or None
        Leave-one-unit-out values (for BCa).
    replicate_standard_errors : ndarray or None
        Per-replicate standard errors (for the studentized interval).
    notes : tuple of str
        Degenerate situations met and the fallbacks used.
    details : dict
        Method-specific values (e.g. BCa's ``z0`` and ``acceleration``).
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    metric: str
    n: int
    n_clusters: int | None
    effective_n: float
    n_resamples: int
    seed: int
    standard_error: float
    n_undefined: int
    mcse_low: float
    mcse_high: float
    design: str
    transform: str | None
    distribution: np.ndarray = field(repr=False)
    jackknife: np.ndarray | None = field(repr=False, default=None)
    replicate_standard_errors: np.ndarray | None = field(repr=False, default=None)
    estimate_standard_error: float | None = field(repr=False, default=None)
    notes: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, repr=False)
    _recompute: Any = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------- formatting
    def format(self, scale: float = 1.0, digits: int = 4) -> str:
        """``estimate (low, high)`` with a scale factor and fixed decimals.

        Examples
        --------
        >>> import booteval
        >>> r = booteval.ci([1, 0, 1, 1, 0, 1, 1, 1], n_resamples=1000, seed=0)
        >>> r.format(scale=100, digits=1)
        '75.0 (37.5, 100.0)'
        """
        return format_triplet(self.estimate, self.low, self.high, scale=scale, digits=digits)

    def __str__(self) -> str:
        return self.format()

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """A longer description: the interval, method, design, B and seed."""
        pct = f"{self.confidence_level * 100:g}%"
        lines = [
            f"{self.metric}: {self.format(scale, digits)}",
            f"  {pct} {self.method} interval"
            + (f" on the {self.transform} scale" if self.transform else "")
            + f"; {self.design}",
            f"  B = {self.n_resamples} resamples, seed = {self.seed}"
            + (f", {self.n_undefined} undefined (dropped)" if self.n_undefined else ""),
            f"  standard error {_significant(self.standard_error * scale, max(digits, 2))};"
            " Monte Carlo error of "
            f"the endpoints {self.mcse_low * scale:.2g}, {self.mcse_high * scale:.2g}",
        ]
        if self.n_clusters is not None:
            lines.append(
                f"  {self.n_clusters} clusters; effective sample size {self.effective_n:.1f} "
                f"of {self.n} rows"
            )
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"CIResult(metric={self.metric!r}, estimate={self.estimate:.6g}, "
            f"low={self.low:.6g}, high={self.high:.6g}, confidence_level={self.confidence_level}, "
            f"method={self.method!r}, n={self.n}, n_resamples={self.n_resamples}, "
            f"seed={self.seed})"
        )

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def plot(self, path: str | None = None, **kwargs: Any) -> Any:
        """The bootstrap distribution with the estimate and interval marked.

        Needs matplotlib (``pip install 'booteval[plot]'``); see
        :func:`booteval.plot.plot_distribution` for the options. Returns the figure.
        """
        from .plot import plot_distribution

        return plot_distribution(self, path, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (no arrays), e.g. for JSON."""
        keys = (
            "metric",
            "estimate",
            "low",
            "high",
            "confidence_level",
            "method",
            "n",
            "n_clusters",
            "effective_n",
            "n_resamples",
            "seed",
            "standard_error",
            "n_undefined",
            "mcse_low",
            "mcse_high",
            "design",
            "transform",
        )
        out = {k: getattr(self, k) for k in keys}
        out["notes"] = list(self.notes)
        return out

    # ---------------------------------------------------------- recomputation
    def with_method(self, method: str, *, confidence_level: float | None = None) -> CIResult:
        """The same bootstrap run with another interval method or level (no resampling).

        ``"studentized"`` needs per-replicate standard errors, which are only
        stored when the run was studentized.

        Examples
        --------
        >>> import booteval
        >>> r = booteval.ci([3.1, 2.2, 5.0, 4.4, 3.9, 2.8], method="bca", n_resamples=2000, seed=1)
        >>> p = r.with_method("percentile")
        >>> p.method, bool((p.distribution == r.distribution).all())
        ('percentile', True)
        """
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        if self._recompute is None:  # pragma: no cover - results are built by ci()
            raise ValueError("this result does not carry what is needed to recompute it")
        return self._recompute(method, level)


def freeze(a: np.ndarray | None) -> np.ndarray | None:
    """A read-only view of an array (``None`` passes through)."""
    if a is None:
        return None
    a = np.asarray(a)
    a.setflags(write=False)
    return a
