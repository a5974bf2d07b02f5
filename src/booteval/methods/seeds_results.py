"""The results of pooling seeds and of comparing two methods over seeds."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..results import PairedDifference, Result, with_notes


# ------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class SeedPoolResult(Result):
    """A method's expected metric over training seeds, with an interval and a variance split.

    Attributes
    ----------
    estimate : float
        Mean over runs of each run's metric on the test set.
    low, high : float
        Interval for the method's expected metric.
    confidence_level : float
    method : str
        ``"t"``, ``"percentile"``, ``"basic"`` or ``"normal"``.
    metric : str
    n_runs : int
    run_estimates : ndarray, shape (R,)
        Each run's metric on the test set.
    standard_error : float
        ``sqrt(seed_variance / R + test_variance_of_mean)``.
    df : float
        Welch-Satterthwaite degrees of freedom of the ``"t"`` interval.
    seed_variance : float
        Between-run variance of one run's expected metric, corrected for
        test-set noise (``sigma_seed^2``; see the module notes).
    test_variance : float
        Test-data variance of one run's metric (mean over runs of the
        bootstrap variance).
    test_variance_of_mean : float
        Test-data variance of ``estimate`` (bootstrap variance of the mean over
        runs, resampled jointly).
    between_run_variance : float
        The raw sample variance of ``run_estimates`` (before the correction).
    single_run_interval : (float, float)
        Percentile interval of the pooled ``B x R`` values: a range for one
        run's metric on a new test set (Ferrer's pooled interval).
    n, n_clusters, n_resamples, seed, n_undefined, design, notes
        As in :class:`~booteval.CIResult`.
    distribution : ndarray, shape (B,)
        The two-way bootstrap values (runs and test rows resampled).
    run_distributions : ndarray, shape (B, R)
        Each run's metric on each (shared) test resample.
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    metric: str
    n_runs: int
    run_estimates: np.ndarray
    standard_error: float
    df: float
    seed_variance: float
    test_variance: float
    test_variance_of_mean: float
    between_run_variance: float
    single_run_interval: tuple[float, float]
    n: int
    n_clusters: int | None
    n_resamples: int
    seed: int
    n_undefined: int
    design: str
    distribution: np.ndarray = field(repr=False)
    run_distributions: np.ndarray = field(repr=False)
    notes: tuple[str, ...] = ()

    @property
    def seed_share(self) -> float:
        """Fraction of one run's variance due to the seed: ``seed / (seed + test)``."""
        total = self.seed_variance + self.test_variance
        return self.seed_variance / total if total > 0 else math.nan

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """A longer description: interval, runs, design and the variance split."""
        pct = f"{self.confidence_level * 100:g}%"
        lo, hi = self.single_run_interval
        lines = [
            f"{self.metric}: {self.format(scale, digits)} (mean of {self.n_runs} runs)",
            f"  {pct} {self.method} interval for the method's expected metric; {self.design}",
            f"  B = {self.n_resamples} shared test resamples, seed = {self.seed}"
            + (f", {self.n_undefined} undefined (dropped)" if self.n_undefined else ""),
            f"  standard error {self.standard_error * scale:.{digits}g}"
            + (f" (df {self.df:.1f})" if math.isfinite(self.df) else ""),
            f"  one run: seed SD {math.sqrt(self.seed_variance) * scale:.{digits}g}, "
            f"test-data SD {math.sqrt(self.test_variance) * scale:.{digits}g} "
            f"(seed share {self.seed_share:.0%}); range of one run "
            f"({lo * scale:.{digits}f}, {hi * scale:.{digits}f})",
        ]
        return with_notes(lines, self.notes)


@dataclass(frozen=True, eq=False)
class MethodComparisonResult(PairedDifference):
    """The difference ``B - A`` between two methods' expected metrics over seeds.

    Attributes not listed below are as in :class:`SeedPoolResult`.

    Attributes
    ----------
    difference : float
        ``estimate_b - estimate_a`` (means over each method's runs).
    low, high : float
        Interval for the difference.
    p_value : float
        For "no difference", against ``alternative``.
    standard_error : float
        ``sqrt(seed_a / R_a + seed_b / R_b + test variance of the paired difference)``.
    df : float
        Welch-Satterthwaite degrees of freedom of the ``"t"`` interval.
    test_variance_of_difference : float
        Bootstrap variance of the difference of the run means over shared
        test resamples (the pairing removes what the test rows share).
    seed_variance_a, seed_variance_b : float
        Each method's corrected seed variance.
    result_a, result_b : SeedPoolResult
        Each method on its own (same test resamples).
    excludes_zero : bool
    """

    metric: str
    confidence_level: float
    method: str
    p_value: float
    alternative: str
    standard_error: float
    df: float
    test_variance_of_difference: float
    seed_variance_a: float
    seed_variance_b: float
    excludes_zero: bool
    n: int
    n_resamples: int
    seed: int
    n_undefined: int
    design: str
    result_a: SeedPoolResult = field(repr=False)
    result_b: SeedPoolResult = field(repr=False)
    distribution: np.ndarray = field(repr=False)
    notes: tuple[str, ...] = ()

    def summary(self, scale: float = 1.0, digits: int = 4) -> str:
        """One line: the difference, its interval, the p-value and both means."""
        p = f"{self.p_value:.3f}" if self.p_value >= 0.001 else f"{self.p_value:.1e}"
        return (
            f"{self.metric}: {self.name_b} - {self.name_a} = {self.format(scale, digits)}, "
            f"p = {p} ({self.method}, {self.alternative}); "
            f"{self.name_a} {self.estimate_a * scale:.{digits}f} "
            f"({self.result_a.n_runs} runs), "
            f"{self.name_b} {self.estimate_b * scale:.{digits}f} ({self.result_b.n_runs} runs)"
        )

    def __str__(self) -> str:
        return self.summary()
