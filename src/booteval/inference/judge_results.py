"""The results of :func:`booteval.judge_corrected_ci` and
:func:`booteval.judge_corrected_compare`: a prediction-powered (PPI++) estimate with its
interval, lambda, the sizes of both sets and the gain over the human labels alone."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.format import format_p_value, format_triplet
from ..results import Difference, Result, protocol_defaults, with_notes

__all__ = ["JudgeCorrectedComparison", "JudgeCorrectedResult"]


@dataclass(frozen=True, eq=False)
class JudgeCorrectedResult(Result):
    """The prediction-powered (PPI++) estimate of a mean human score, with its interval.

    Attributes
    ----------
    estimate : float
        ``mean(Y - lam * Yhat) + lam * mean(Yhat_unlabelled)``.
    low, high : float
        The interval (one end infinite for a one-sided ``alternative``).
    confidence_level : float
    method : str
        ``"clt"`` (normal approximation) or ``"bootstrap"`` (percentile).
    alternative : str
    lam : float
        The lambda used: power-tuned (``lam_tuned``) or as given.
    lam_tuned : bool
        Whether ``lam`` was estimated from the data.
    n_labelled, n_unlabelled : int
        Rows with human labels, and rows with judge scores only.
    standard_error : float
        Of the estimate (the bootstrap replicates' standard deviation for ``"bootstrap"``).
    human_estimate, human_low, human_high, human_standard_error : float
        The same method with the human labels alone (``lam = 0``): the interval the
        judge's scores improve on.
    gain : float
        ``human_standard_error**2 / standard_error**2``: how many times the variance
        shrinks by using the judge.
    effective_n : float
        ``n_labelled * gain``: the number of human labels that, alone, would give the same
        standard error.
    judge_mean : float
        The uncorrected mean of the judge's scores on all rows (labelled and unlabelled),
        the number a judge-only evaluation would report.
    n_clusters_labelled, n_clusters_unlabelled : int or None
        Clusters of each set where clusters were given.
    n_resamples, seed : int or None
        Of the bootstrap (``None`` for ``"clt"``).
    notes : tuple of str
    distribution : ndarray or None
        The bootstrap replicates of the estimate (``None`` for ``"clt"``).
    details : dict
        ``lam_unclipped`` (the tuned value before clipping), ``judge_bias`` (the judge's mean
        minus the humans' on the labelled rows) and, for the bootstrap,
        ``human_distribution``.
    """

    _protocol_defaults = protocol_defaults(Result, label="judge-corrected mean")

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    alternative: str
    lam: float
    lam_tuned: bool
    n_labelled: int
    n_unlabelled: int
    standard_error: float
    human_estimate: float
    human_low: float
    human_high: float
    human_standard_error: float
    gain: float
    effective_n: float
    judge_mean: float
    n_clusters_labelled: int | None = None
    n_clusters_unlabelled: int | None = None
    n_resamples: int | None = None
    seed: int | None = None
    notes: tuple[str, ...] = ()
    distribution: np.ndarray | None = field(default=None, repr=False)
    details: dict[str, Any] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return self._short_repr("estimate low high lam n_labelled n_unlabelled gain method")

    def _head(self, scale: float, digits: int) -> str:
        return f"judge-corrected mean: {self.format(scale, digits)}"

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """Several lines: the estimate, lambda, the sizes of both sets, the human-only
        interval and the gain in effective sample size.

        Examples
        --------
        >>> import booteval
        >>> human = [1, 0, 1, 1, 0, 1, 1, 0] * 4
        >>> judge = [1, 0, 1, 1, 1, 1, 1, 0] * 4
        >>> r = booteval.judge_corrected_ci(human, judge, [1, 1, 0, 1, 0, 1] * 50)
        >>> print(r.describe(digits=3))
        judge-corrected mean: 0.572 (0.451, 0.692)
          95% clt interval, PPI++ with power-tuned lambda = 0.641; 32 labelled rows, 300 ...
          human labels alone: 0.625 (0.457, 0.793), standard error 0.0856
          standard error 0.0614: variance x 0.516 of the human-only one, effective sample size ...
          judge scores alone, uncorrected: 0.675 (judge bias on the labelled rows +0.125)
          note: method='auto' chose 'clt': 32 labelled rows (30 or more, where the normal ...
        """
        pct = f"{self.confidence_level * 100:g}%"
        tuned = "power-tuned " if self.lam_tuned else ""
        side = "" if self.alternative == "two-sided" else f" ({self.alternative})"
        sizes = _sizes(self.n_labelled, self.n_clusters_labelled, "labelled") + ", "
        sizes += _sizes(self.n_unlabelled, self.n_clusters_unlabelled, "unlabelled")
        human = format_triplet(
            self.human_estimate, self.human_low, self.human_high, scale=scale, digits=digits
        )
        ratio = 1.0 / self.gain if self.gain > 0 else math.inf
        bias = self.details.get("judge_bias", math.nan)
        lines = [
            self._head(scale, digits),
            f"  {pct} {self.method} interval{side}, PPI++ with {tuned}lambda = "
            f"{self.lam:.{digits}g}; {sizes}",
            f"  human labels alone: {human}, standard error "
            f"{self.human_standard_error * scale:.{digits}g}",
            f"  standard error {self.standard_error * scale:.{digits}g}: variance x "
            f"{ratio:.3f} of the human-only one, effective sample size "
            f"{self.effective_n:.1f} (gain x {self.gain:.2f})",
            f"  judge scores alone, uncorrected: {self.judge_mean * scale:.{digits}f} "
            f"(judge bias on the labelled rows {bias * scale:+.{digits}f})",
        ]
        if self.n_resamples is not None:
            lines.append(f"  B = {self.n_resamples} resamples, seed = {self.seed}")
        return with_notes(lines, self.notes)

    def to_text(self, scale: float = 1.0, digits: int = 4) -> str:
        """The same as :meth:`describe`."""
        return self.describe(scale, digits)


@dataclass(frozen=True, eq=False)
class JudgeCorrectedComparison(JudgeCorrectedResult, Difference):
    """The PPI++ estimate of the difference ``B - A`` of two systems' mean human scores,
    with both systems scored by the same judge on the same items.

    Every attribute of :class:`JudgeCorrectedResult` is that of the differences
    ``Y_B - Y_A`` (``human_*``: of the human labels' differences alone), plus:

    Attributes
    ----------
    name_a, name_b : str
    estimate_a, estimate_b : float
        Each system's PPI++ estimate with the difference's ``lam``, so that
        ``estimate_b - estimate_a == estimate`` (up to rounding).
    human_estimate_a, human_estimate_b : float
        Each system's mean human score on the labelled rows.
    p_value : float
        Of "no difference" against ``alternative``: the normal test for ``"clt"``, the
        one that inverts the percentile interval for ``"bootstrap"``.
    """

    _protocol_defaults = protocol_defaults(Difference, label=lambda r: f"{r.name_b} - {r.name_a}")

    name_a: str = "A"
    name_b: str = "B"
    estimate_a: float = math.nan
    estimate_b: float = math.nan
    human_estimate_a: float = math.nan
    human_estimate_b: float = math.nan
    p_value: float = math.nan

    @property
    def difference(self) -> float:
        """``B - A`` (alias of :attr:`estimate`)."""
        return self.estimate

    def __repr__(self) -> str:
        return self._short_repr("name_a name_b estimate low high lam p_value gain method")

    def _head(self, scale: float, digits: int) -> str:
        return (
            f"judge-corrected {self.name_b} - {self.name_a}: {self.format(scale, digits)}, "
            f"p = {format_p_value(self.p_value)}; {self.name_a} "
            f"{self.estimate_a * scale:.{digits}f}, {self.name_b} "
            f"{self.estimate_b * scale:.{digits}f}"
        )


def _sizes(n: int, clusters: int | None, what: str) -> str:
    return f"{n} {what} rows" + (f" in {clusters} clusters" if clusters is not None else "")
