"""Result types of :mod:`booteval.meta` (private; re-exported there)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.format import format_triplet
from ..results import Difference, Result, plot_result, protocol_defaults, with_notes

__all__ = ["CorrelationComparison", "CorrelationResult", "CoverageRow", "CoverageTable"]


@dataclass(frozen=True, eq=False)
class CorrelationResult(Result):
    """A metric-human correlation with its confidence interval.

    Attributes
    ----------
    estimate, low, high, confidence_level : float
        The correlation on the original matrices (never the mean of the replicates),
        its interval and the interval's level.
    method : str
        ``"fisher"``, or the bootstrap interval method (``"percentile"``, ``"basic"``,
        ``"normal"``, ``"bca"``).
    level : str
        ``"system"``, ``"summary"`` or ``"global"``.
    coefficient : str
        ``"pearson"``, ``"spearman"`` or ``"kendall"`` (tau-b).
    resample : str or None
        ``"systems"``, ``"inputs"`` or ``"both"`` (Boot-Systems, Boot-Inputs, Boot-Both);
        ``None`` for the Fisher interval.
    design : str
        The design in words.
    population : str
        What the interval speaks about: which systems and inputs the true correlation is over.
    metric, human : str
        Labels of the metric's and the human scores.
    n_systems, n_inputs : int
        Size of the matrices used (after excluding inputs, see ``notes``).
    n : int
        The ``n`` of the Fisher interval at this level (also reported for bootstrap results).
    n_meaning : str
        What ``n`` counts at this level.
    n_missing : int
        Cells without both a metric and a human score (left out).
    n_inputs_undefined : int
        Summary level: inputs where the correlation is undefined on the original data (a
        constant metric or human score across systems); they are left out of the mean.
    n_resamples : int
        Replicates drawn (0 for the Fisher interval).
    n_undefined : int
        Replicates on which the correlation was undefined (dropped).
    seed : int or None
    standard_error : float
        Standard deviation of the defined replicates; for the Fisher interval, the standard
        error on the ``atanh`` scale.
    mcse_low, mcse_high : float
        Monte Carlo standard errors of the endpoints (0 for the Fisher interval).
    distribution : ndarray or None
        The defined replicate values (read-only), in replicate order.
    jackknife : ndarray or None
        Leave-one-unit-out values used by BCa (see :func:`booteval.meta.correlate`).
    notes : tuple of str
    details : dict
    """

    _protocol_defaults = protocol_defaults(
        Result, label=lambda r: f"{r.metric} vs {r.human}", reference=0.0
    )

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    level: str
    coefficient: str
    resample: str | None
    design: str
    population: str
    metric: str
    human: str
    n_systems: int
    n_inputs: int
    n: int
    n_meaning: str
    n_missing: int
    n_inputs_undefined: int
    n_resamples: int
    n_undefined: int
    seed: int | None
    standard_error: float
    mcse_low: float
    mcse_high: float
    distribution: np.ndarray | None = field(repr=False, default=None)
    jackknife: np.ndarray | None = field(repr=False, default=None)
    notes: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, repr=False)
    _recompute: Callable[[str, float], CorrelationResult] | None = field(
        default=None, repr=False, compare=False
    )

    def format(self, scale: float = 1.0, digits: int = 2) -> str:
        """``estimate (low, high)`` with a scale factor and fixed decimals.

        Examples
        --------
        >>> import numpy as np
        >>> from booteval.meta import correlate
        >>> x = np.array([[1.0, 2.0], [2.0, 2.5], [3.0, 4.0], [4.0, 3.5]])
        >>> correlate(x, x + [[0.1, 0.0], [0.0, 0.3], [0.2, 0.1], [0.0, 0.0]],
        ...           method="fisher").format(digits=3)
        '0.997 (0.881, 1.000)'
        """
        return format_triplet(self.estimate, self.low, self.high, scale=scale, digits=digits)

    def __str__(self) -> str:
        return self.format()

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def describe(self, scale: float = 1.0, digits: int = 2) -> str:
        """Several lines: the interval, the level and coefficient, the design and population."""
        pct = f"{self.confidence_level * 100:g}%"
        lines = [
            f"{self.coefficient} {self.level}-level correlation of {self.metric} with "
            f"{self.human}: {self.format(scale, digits)}",
            f"  {pct} {self.method} interval; {self.design}",
            f"  population: {self.population}",
            f"  {self.n_systems} systems x {self.n_inputs} inputs; Fisher {self.n_meaning}",
        ]
        if self.n_resamples:
            lines.append(
                f"  B = {self.n_resamples} resamples, seed = {self.seed}"
                + (f", {self.n_undefined} undefined (dropped)" if self.n_undefined else "")
                + f"; Monte Carlo error of the endpoints {self.mcse_low * scale:.2g}, "
                f"{self.mcse_high * scale:.2g}"
            )
        return with_notes(lines, self.notes)

    def __repr__(self) -> str:
        return self._short_repr(
            "estimate low high level coefficient method resample n_resamples seed"
        )

    def with_method(
        self, method: str, *, confidence_level: float | None = None
    ) -> CorrelationResult:
        """The same run with another interval method or level (no resampling).

        ``"fisher"`` is always available; bootstrap methods need a bootstrap result.

        Examples
        --------
        >>> import numpy as np
        >>> from booteval.meta import correlate
        >>> rng = np.random.default_rng(0)
        >>> z = rng.normal(size=(8, 5))
        >>> r = correlate(z + rng.normal(size=(8, 5)), z, n_resamples=1000, seed=0)
        >>> r.with_method("bca").method, r.with_method("fisher").resample
        ('bca', None)
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        if self._recompute is None:  # pragma: no cover - results are built by correlate()
            raise ValueError("this result does not carry what is needed to recompute it")
        return self._recompute(method, level)

    def plot(self, path: str | None = None, **kwargs: Any) -> Any:
        """The bootstrap distribution (see :func:`booteval.plot.plot_distribution`)."""
        return plot_result(self, "distribution", path, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (no arrays), e.g. for JSON."""
        keys = (
            "metric", "human", "level", "coefficient", "estimate", "low", "high",
            "confidence_level", "method", "resample", "design", "population", "n_systems",
            "n_inputs", "n", "n_meaning", "n_missing", "n_inputs_undefined", "n_resamples",
            "n_undefined", "seed", "standard_error", "mcse_low", "mcse_high",
        )  # fmt: skip
        out = {k: getattr(self, k) for k in keys}
        out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True, eq=False)
class CorrelationComparison(Difference):
    """Is metric A's correlation with the human scores different from metric B's?

    Attributes
    ----------
    metric_a, metric_b : str
        Labels of the two metrics.
    level, coefficient : str
    estimate_a, estimate_b : float
        Each metric's correlation with the human scores.
    difference : float
        ``estimate_a - estimate_b``.
    low, high : float
        Paired bootstrap interval of the difference (both metrics scored on the same resampled
        systems and inputs).
    confidence_level : float
    method : str
        Interval method of the difference.
    resample : str
        Bootstrap design of the interval and of ``p_value_bootstrap``.
    population : str
        What the interval speaks about.
    alternative : str
        ``"two-sided"``, ``"greater"`` (A correlates more strongly than B) or ``"less"``.
    p_value_bootstrap : float
        Paired bootstrap test: the replicates shifted to the null, ``d* - d``, compared with
        the observed ``d``; ``(1 + count) / (1 + B)``.
    permutation : str or None
        ``"systems"``, ``"inputs"`` or ``"both"`` (Perm-Systems / Perm-Inputs / Perm-Both).
    p_value_permutation : float or None
    permutation_exact : bool
        Whether every swap pattern was enumerated (then ``p = count / 2^k``); otherwise
        ``(1 + count) / (1 + B)`` from random swaps.
    n_permutations : int
        Swap patterns evaluated.
    p_value_williams : float or None
        Williams' test for dependent correlations with one variable in common (system level
        only; uses ``n`` = number of systems and the correlation between the two metrics).
    williams_t : float or None
    correlation_ab : float or None
        System level: the correlation between the two metrics' system means.
    n_systems, n_inputs, n_resamples, n_undefined : int
    seed : int
    distribution : ndarray
        Defined bootstrap replicates of the difference.
    permutation_distribution : ndarray or None
        Defined permutation values of the difference.
    notes : tuple of str
    """

    _protocol_defaults = protocol_defaults(
        Difference,
        estimate=lambda r: r.difference,
        # the permutation test's p-value where one ran, the bootstrap's otherwise
        p_value=lambda r: (
            r.p_value_permutation if r.p_value_permutation is not None else r.p_value_bootstrap
        ),
    )

    metric_a: str
    metric_b: str
    level: str
    coefficient: str
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    confidence_level: float
    method: str
    resample: str
    population: str
    alternative: str
    p_value_bootstrap: float
    permutation: str | None
    p_value_permutation: float | None
    permutation_exact: bool
    n_permutations: int
    p_value_williams: float | None
    williams_t: float | None
    correlation_ab: float | None
    n_systems: int
    n_inputs: int
    n_resamples: int
    n_undefined: int
    seed: int
    distribution: np.ndarray = field(repr=False)
    permutation_distribution: np.ndarray | None = field(repr=False, default=None)
    notes: tuple[str, ...] = ()

    def format(self, scale: float = 1.0, digits: int = 2) -> str:
        """``difference (low, high)``."""
        return format_triplet(self.difference, self.low, self.high, scale=scale, digits=digits)

    def __str__(self) -> str:
        return self.format()

    @property
    def excludes_zero(self) -> bool:
        """Whether the bootstrap interval of the difference excludes 0."""
        return self.low > 0 or self.high < 0

    def describe(self, scale: float = 1.0, digits: int = 2) -> str:
        """Several lines: both correlations, the difference and every p-value."""
        f = f".{digits}f"
        lines = [
            f"{self.coefficient} {self.level}-level: {self.metric_a} "
            f"{self.estimate_a * scale:{f}} vs {self.metric_b} {self.estimate_b * scale:{f}}",
            f"  difference {self.format(scale, digits)}: {self.confidence_level * 100:g}% "
            f"{self.method} interval, paired Boot-{self.resample.capitalize()} "
            f"(B = {self.n_resamples}, seed = {self.seed})",
            f"  p-values ({self.alternative}): bootstrap {self.p_value_bootstrap:.4g}",
        ]
        if self.p_value_permutation is not None:
            kind = "exact" if self.permutation_exact else f"{self.n_permutations} random swaps"
            lines[-1] += (
                f"; Perm-{str(self.permutation).capitalize()} {self.p_value_permutation:.4g} "
                f"({kind})"
            )
        if self.p_value_williams is not None:
            lines[-1] += f"; Williams {self.p_value_williams:.4g}"
        return with_notes(lines, self.notes)


@dataclass(frozen=True, eq=False)
class CoverageRow(Result):
    """Coverage of one interval method under one design in a simulation.

    Attributes
    ----------
    design : str
        ``"fisher"`` or ``"boot-systems"``, ``"boot-inputs"``, ``"boot-both"``.
    method : str
    coverage : float
        Share of simulated data sets whose interval contains the true correlation.
    coverage_se : float
        Binomial standard error of ``coverage``.
    below, above : float
        Share of intervals entirely below / above the truth.
    mean_width, median_width : float
    n_intervals : int
        Data sets where the interval could be formed.
    """

    # the estimate is the simulated coverage; the interval is its Monte Carlo error
    # (estimate +- 1.96 standard errors, clipped to [0, 1])
    _protocol_defaults = protocol_defaults(
        Result,
        estimate=lambda r: r.coverage,
        low=lambda r: max(0.0, r.coverage - 1.959963984540054 * r.coverage_se),
        high=lambda r: min(1.0, r.coverage + 1.959963984540054 * r.coverage_se),
        confidence_level=0.95,
    )

    design: str
    method: str
    coverage: float
    coverage_se: float
    below: float
    above: float
    mean_width: float
    median_width: float
    n_intervals: int


@dataclass(frozen=True, eq=False)
class CoverageTable(Result):
    """Outcome of :func:`booteval.meta.simulate_correlation_coverage`.

    Attributes
    ----------
    truth : float
        The true correlation the intervals should cover.
    level, coefficient : str
    n_systems, n_inputs, n_trials, n_resamples : int
    confidence_level : float
    rows : tuple of CoverageRow
    description : str
        The simulated model in words.
    seed : int
    """

    _protocol_defaults = protocol_defaults(
        Result, method=lambda r: ", ".join(dict.fromkeys(row.method for row in r.rows))
    )

    truth: float
    level: str
    coefficient: str
    n_systems: int
    n_inputs: int
    n_trials: int
    n_resamples: int
    confidence_level: float
    rows: tuple[CoverageRow, ...]
    description: str
    seed: int

    def row(self, design: str, method: str) -> CoverageRow:
        """The row of one design and method."""
        for r in self.rows:
            if r.design == design and r.method == method:
                return r
        raise KeyError((design, method))

    def format(self, digits: int = 3) -> str:
        """A text table, one line per design and method."""
        head = (
            f"{self.coefficient} {self.level}-level, true correlation {self.truth:.{digits}f}; "
            f"{self.n_systems} systems x {self.n_inputs} inputs, {self.n_trials} data sets, "
            f"nominal {self.confidence_level * 100:g}%"
        )
        lines = [
            head,
            f"{'design':<13}{'method':<11}{'coverage':>9}{'(se)':>8}{'below':>7}{'above':>7}"
            f"{'mean width':>12}",
        ]
        for r in self.rows:
            lines.append(
                f"{r.design:<13}{r.method:<11}{r.coverage:>9.{digits}f}"
                f"{r.coverage_se:>8.{digits}f}{r.below:>7.{digits}f}{r.above:>7.{digits}f}"
                f"{r.mean_width:>12.{digits}f}"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    def describe(self, digits: int = 3) -> str:
        """The table (a simulation has no notes of its own)."""
        return self.format(digits)

    def to_dicts(self) -> list[dict[str, Any]]:
        """One plain dict per row."""
        return [dict(r.__dict__) for r in self.rows]
