"""The power analysis's model.

Its result type, the reference it starts from (a comparison, a pilot, or a given standard error),
and the normal-approximation formulas.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ..core.design import encode_groups
from ..core.errors import InvalidInputError
from ..core.params import ALTERNATIVES
from ..core.validation import as_float_array, as_group_labels, check_same_length, describe_value
from ..results import NO_INTERVAL, Result, protocol_defaults, with_notes
from .comparison import ComparisonResult

#: accepted values of ``alternative``: power adds ``"one-sided"`` to the tests' three, and
#: ``"greater"`` and ``"less"`` mean ``"one-sided"``
_POWER_ALTERNATIVES = (ALTERNATIVES[0], "one-sided", *ALTERNATIVES[1:])

#: below this many independent units the normal approximation is flagged in the notes
_FEW_UNITS = 30
_TWO_CLUSTERS = "A cluster design needs at least 2 clusters."


# ----------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class PowerAnalysis(Result):
    """The answer to a power question, with everything it was computed from.

    Attributes
    ----------
    solved_for : {"effect", "power", "sample size"}
        Which quantity was computed; the others were given.
    effect : float
        The minimum detectable effect (``solved_for="effect"``) or the given
        true difference ``B - A``, in the metric's units.
    power : float
        The requested power, or the computed one (``solved_for="power"``).
    alpha : float
        Significance level of the test (two-sided: split over both tails).
    alternative : {"two-sided", "one-sided"}
    standard_error : float
        Standard error of the difference at ``n`` rows / ``n_clusters`` clusters.
    n : int or None
        Number of test rows the answer holds for (the answer itself when
        ``solved_for="sample size"``; under a cluster design, assuming the
        reference's mean cluster size). ``None`` when unknown.
    n_clusters : int or None
        Number of clusters the answer holds for (``None`` without clusters).
    reference_standard_error : float
        The standard error of the reference (comparison, pilot or given).
    reference_n, reference_n_clusters : int or None
        The size of the reference.
    source : str
        Where the reference standard error came from.
    metric : str or None
        The metric of a :class:`~booteval.results.ComparisonResult` reference.
    correlation : float or None
        Correlation of the two systems' outcomes (per row for pilot outcomes;
        of the bootstrap replicates of the two metrics for a comparison).
    design_effect : float or None
        ``Var_cluster / Var_iid`` of the difference (pilot outcomes with
        ``clusters=`` only).
    unpaired_standard_error : float or None
        The standard error the same analysis would have ignoring the pairing
        (at ``n`` / ``n_clusters``), for comparison.
    notes : tuple of str
        Assumptions made along the way.
    """

    # a plan, not an interval: the estimate is the quantity solved for
    _protocol_defaults = protocol_defaults(
        Result,
        estimate=lambda r: float(
            {"effect": r.effect, "power": r.power, "sample size": r.n}[r.solved_for]
        ),
        **NO_INTERVAL,
        method="normal approximation",
    )

    solved_for: str
    effect: float
    power: float
    alpha: float
    alternative: str
    standard_error: float
    n: int | None
    n_clusters: int | None
    reference_standard_error: float
    reference_n: int | None
    reference_n_clusters: int | None
    source: str
    metric: str | None = None
    correlation: float | None = None
    design_effect: float | None = None
    unpaired_standard_error: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def intraclass_correlation(self) -> float | None:
        """The ICC implied by ``DEFF = 1 + (m - 1) ICC``, with ``m`` the mean cluster size."""
        if self.design_effect is None or not self.reference_n or not self.reference_n_clusters:
            return None
        m = self.reference_n / self.reference_n_clusters
        return (self.design_effect - 1.0) / (m - 1.0) if m > 1.0 else None

    def _size(self) -> str:
        rows = f"{self.n} rows" if self.n is not None else None
        clusters = f"{self.n_clusters} clusters" if self.n_clusters is not None else None
        if self.solved_for == "sample size" and clusters:
            return clusters + (f" (about {self.n} rows)" if rows else "")
        if rows and clusters:
            return f"{rows} in {clusters}"
        return rows or clusters or "the reference test set"

    def _test(self) -> str:
        return f"\N{GREEK SMALL LETTER ALPHA} = {self.alpha:g} ({self.alternative})"

    def summary(self, scale: float = 1.0, digits: int = 4) -> str:
        """One line: the answer, the power and level, and the test-set size.

        ``scale`` multiplies the effect (``100`` for percentage points) and
        ``digits`` is its number of decimals.

        Examples
        --------
        >>> from booteval import minimum_detectable_effect
        >>> m = minimum_detectable_effect(standard_error=0.0076, n=12032, n_clusters=91)
        >>> print(m.summary(scale=100, digits=2))
        MDE at 80 % power, α = 0.05 (two-sided): 2.13 with 12032 rows in 91 clusters
        """
        eff = f"{self.effect * scale:.{digits}f}"
        pw = f"{self.power * 100:.4g} %"
        if self.solved_for == "effect":
            return f"MDE at {pw} power, {self._test()}: {eff} with {self._size()}"
        if self.solved_for == "power":
            return f"Power to detect {eff} at {self._test()}: {pw} with {self._size()}"
        return f"Needed to detect {eff} at {pw} power, {self._test()}: {self._size()}"

    def __str__(self) -> str:
        return self.summary()

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """Several lines: the answer, where the standard error came from, pairing, clustering."""
        lines = [
            self.summary(scale, digits),
            f"  standard error of the difference B - A: {self.standard_error * scale:.4g} "
            f"(reference {self.reference_standard_error * scale:.4g}: {self.source})",
        ]
        if self.correlation is not None or self.unpaired_standard_error is not None:
            parts = []
            if self.correlation is not None:
                parts.append(f"correlation {self.correlation:.3f} between the systems")
            if self.unpaired_standard_error is not None:
                parts.append(
                    f"ignoring the pairing the standard error would be "
                    f"{self.unpaired_standard_error * scale:.4g}"
                )
            lines.append("  pairing: " + "; ".join(parts))
        if self.design_effect is not None:
            icc = self.intraclass_correlation
            lines.append(
                f"  clustering: design effect {self.design_effect:.3g}"
                + (f" (intraclass correlation {icc:.3g})" if icc is not None else "")
            )
        lines.append(
            "  normal approximation; the estimated standard error stands in for the true one"
        )
        return with_notes(lines, self.notes)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["notes"] = list(self.notes)
        return out


# -------------------------------------------------------------------------- validation
@dataclass(frozen=True)
class _Reference:
    standard_error: float
    n: int | None
    n_clusters: int | None
    source: str
    alpha: float  # the default level
    metric: str | None = None
    correlation: float | None = None
    design_effect: float | None = None
    unpaired_standard_error: float | None = None


def _check_fraction(value: object, name: str, example: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not (0.0 < float(value) < 1.0)
    ):
        hint = ""
        if isinstance(value, numbers.Real) and 2.0 <= float(value) < 100.0:  # 80, not 1.5
            hint = f"Pass a fraction ({float(value) / 100:g}) rather than a percentage."
        raise InvalidInputError(
            name, f"a number strictly between 0 and 1 (e.g. {example})", describe_value(value), hint
        )
    return float(value)


def _check_positive(value: object, name: str, hint: str = "") -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(float(value))
        or not float(value) > 0.0
    ):
        raise InvalidInputError(name, "a positive finite number", describe_value(value), hint)
    return float(value)


def _check_count(value: object, name: str, minimum: int, hint: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InvalidInputError(name, f"an integer >= {minimum}", describe_value(value), hint)
    return int(value)


def _check_alternative(alternative: object) -> str:
    if not isinstance(alternative, str) or alternative not in _POWER_ALTERNATIVES:
        raise InvalidInputError(
            "alternative", f"one of {', '.join(map(repr, _POWER_ALTERNATIVES))}", repr(alternative)
        )
    return "two-sided" if alternative == "two-sided" else "one-sided"


def _correlation(x: np.ndarray, y: np.ndarray) -> float | None:
    if x.size < 2:
        return None
    vx, vy = float(np.var(x)), float(np.var(y))
    if not (vx > 0.0 and vy > 0.0):
        return None
    cov = float(np.mean((x - x.mean()) * (y - y.mean())))
    return max(-1.0, min(1.0, cov / math.sqrt(vx * vy)))


def _cluster_variance(x: np.ndarray, codes: np.ndarray, n_clusters: int) -> float:
    """Cluster-robust variance of the mean of ``x``: ``G/(G-1) sum_g (X_g - m_g xbar)^2 / n^2``."""
    n = x.size
    totals = np.bincount(codes, weights=x, minlength=n_clusters)
    sizes = np.bincount(codes, minlength=n_clusters)
    resid = totals - sizes * float(x.mean())
    return n_clusters / (n_clusters - 1.0) * float(resid @ resid) / (n * n)


def _from_comparison(r: ComparisonResult) -> _Reference:
    se = float(r.standard_error)
    if not (math.isfinite(se) and se > 0.0):
        raise InvalidInputError(
            "comparison",
            "a comparison whose bootstrap standard error of the difference is positive",
            f"standard_error = {se!r}",
            "The two systems' outputs may agree on every row; no test set size helps then.",
        )
    da = np.asarray(r.distribution_a, dtype=np.float64)
    db = np.asarray(r.distribution_b, dtype=np.float64)
    corr = unpaired = None
    if da.size >= 2 and da.size == db.size:
        corr = _correlation(da, db)
        unpaired = math.sqrt(float(np.var(da, ddof=1)) + float(np.var(db, ddof=1)))
    return _Reference(
        standard_error=se, n=int(r.n),
        n_clusters=None if r.n_clusters is None else int(r.n_clusters),
        source=f"paired bootstrap of compare(), {r.metric}, {r.design}, B = {r.n_resamples}",
        alpha=1.0 - float(r.confidence_level), metric=r.metric, correlation=corr,
        unpaired_standard_error=unpaired,
    )  # fmt: skip


def _from_pilot(scores_a: Any, scores_b: Any, clusters: Any) -> _Reference:
    a = as_float_array(scores_a, "scores_a")
    b = as_float_array(scores_b, "scores_b")
    n = check_same_length({"scores_a": a, "scores_b": b})
    if n < 2:
        raise InvalidInputError("scores_a", "pilot outcomes on at least 2 rows", f"{n} row")
    var_a, var_b = float(np.var(a, ddof=1)), float(np.var(b, ddof=1))
    cov = float(np.sum((a - a.mean()) * (b - b.mean()))) / (n - 1)
    var_d = max(var_a + var_b - 2.0 * cov, 0.0)  # Var(b - a): pairing enters through Cov(a, b)
    se_iid = math.sqrt(var_d / n)
    corr = cov / math.sqrt(var_a * var_b) if var_a > 0.0 and var_b > 0.0 else None
    if corr is not None:
        corr = max(-1.0, min(1.0, corr))
    if clusters is None:
        se, n_clusters, deff = se_iid, None, None
        unpaired = math.sqrt((var_a + var_b) / n)
        source = f"pilot outcomes, {n} rows"
    else:
        c = as_group_labels(clusters, "clusters", n)
        codes, n_clusters = encode_groups(c, "clusters")
        if n_clusters < 2:
            raise InvalidInputError(
                "clusters", "at least 2 distinct clusters", f"{n_clusters} cluster",
                "With one cluster there is no replication of the independent unit.",
            )  # fmt: skip
        se = math.sqrt(_cluster_variance(b - a, codes, n_clusters))
        deff = se * se / (se_iid * se_iid) if se_iid > 0.0 else None
        unpaired = math.sqrt(
            _cluster_variance(a, codes, n_clusters) + _cluster_variance(b, codes, n_clusters)
        )
        source = f"pilot outcomes, {n} rows in {n_clusters} clusters (cluster-robust)"
    if not se > 0.0:
        raise InvalidInputError(
            "scores_b",
            "pilot outcomes whose per-row difference from scores_a varies",
            "outcomes with a standard error of the difference of 0",
            "The two systems agree on every row (or differ by a constant); "
            "their difference has no sampling variability to plan with.",
        )
    return _Reference(
        standard_error=se, n=n, n_clusters=n_clusters, source=source, alpha=0.05,
        correlation=corr, design_effect=deff, unpaired_standard_error=unpaired,
    )  # fmt: skip


def _reference(
    data: tuple[Any, ...],
    clusters: Any,
    standard_error: Any,
    n: Any,
    n_clusters: Any,
) -> _Reference:
    if data:
        plain = {"standard_error": standard_error, "n": n, "n_clusters": n_clusters}
        for name, value in plain.items():
            if value is not None:
                raise InvalidInputError(
                    name,
                    "no value when a comparison or pilot outcomes are given (they set it)",
                    describe_value(value),
                )
    if len(data) == 1 and isinstance(data[0], ComparisonResult):
        if clusters is not None:
            raise InvalidInputError(
                "clusters",
                "no value with a ComparisonResult (its standard error already reflects its design)",
                "cluster labels",
                "Pass clusters= to booteval.compare instead.",
            )
        return _from_comparison(data[0])
    if len(data) == 2:
        return _from_pilot(data[0], data[1], clusters)
    if data:
        raise InvalidInputError(
            "data",
            "a ComparisonResult, or two systems' pilot per-row outcomes (scores_a, scores_b)",
            f"{len(data)} positional argument(s)"
            + (f" ({type(data[0]).__name__})" if len(data) == 1 else ""),
        )
    if standard_error is None:
        raise InvalidInputError(
            "standard_error",
            "a reference: a ComparisonResult, pilot outcomes (scores_a, scores_b) "
            "or standard_error=",
            "none of them",
        )
    if clusters is not None:
        raise InvalidInputError(
            "clusters", "no labels with standard_error= (pass n_clusters= instead)", "labels"
        )
    se = _check_positive(standard_error, "standard_error")
    rows = None if n is None else _check_count(n, "n", 2)
    groups = (
        None if n_clusters is None else _check_count(n_clusters, "n_clusters", 2, _TWO_CLUSTERS)
    )
    if rows is not None and groups is not None and groups > rows:
        raise InvalidInputError("n_clusters", f"at most n = {rows} clusters", str(groups))
    return _Reference(
        standard_error=se, n=rows, n_clusters=groups, source="given standard error", alpha=0.05
    )


def _at_size(
    ref: _Reference, n_new: Any, n_clusters_new: Any
) -> tuple[float, int | None, int | None, list[str]]:
    """The standard error, rows and clusters at the evaluated size."""
    notes: list[str] = []
    if n_new is not None and n_clusters_new is not None:
        raise InvalidInputError(
            "n_clusters_new", "no value when n_new is given (pass one of them)", str(n_clusters_new)
        )
    if n_clusters_new is not None:
        g_new = _check_count(n_clusters_new, "n_clusters_new", 2, _TWO_CLUSTERS)
        if ref.n_clusters is None:
            raise InvalidInputError(
                "n_clusters_new",
                "a clustered reference (compare(..., clusters=), pilot outcomes with "
                "clusters=, or n_clusters=)",
                f"{g_new} with a reference without clusters",
                "Use n_new for a number of rows.",
            )  # fmt: skip
        rows = None
        if ref.n is not None:
            rows = round(ref.n * g_new / ref.n_clusters)
            notes.append(
                f"rows assume the reference's mean cluster size ({ref.n / ref.n_clusters:.4g})"
            )
        return ref.standard_error * math.sqrt(ref.n_clusters / g_new), rows, g_new, notes
    if n_new is not None:
        rows = _check_count(n_new, "n_new", 1)
        if ref.n is None:
            raise InvalidInputError(
                "n", "the number of rows the standard error was computed at, to rescale it",
                "None",
            )  # fmt: skip
        groups = None
        if ref.n_clusters is not None:
            g = ref.n_clusters * rows / ref.n
            if g < 2.0:
                least = math.ceil(2 * ref.n / ref.n_clusters)
                raise InvalidInputError(
                    "n_new",
                    f"rows for at least 2 clusters of the reference's mean size "
                    f"({ref.n / ref.n_clusters:.4g}), i.e. at least {least}",
                    str(rows),
                )
            groups = round(g)
            notes.append(
                f"assumes the {rows} rows come in clusters of the reference's mean size "
                f"({ref.n / ref.n_clusters:.4g}); pass n_clusters_new to set the clusters"
            )
        return ref.standard_error * math.sqrt(ref.n / rows), rows, groups, notes
    return ref.standard_error, ref.n, ref.n_clusters, notes


def _z_level(alpha: float, alternative: str) -> float:
    return float(ndtri(1.0 - alpha / 2.0 if alternative == "two-sided" else 1.0 - alpha))


def _power(effect: float, se: float, alpha: float, alternative: str) -> float:
    z = _z_level(alpha, alternative)
    t = effect / se
    if alternative == "two-sided":
        return float(ndtr(t - z) + ndtr(-t - z))
    return float(ndtr(t - z))


def _levels(alpha: Any, power: Any, ref: _Reference, alternative: Any) -> tuple[float, float, str]:
    a = ref.alpha if alpha is None else _check_fraction(alpha, "alpha", "0.05")
    p = _check_fraction(power, "power", "0.8")
    if not p > a:
        raise InvalidInputError(
            "power",
            f"a power above alpha = {a:g}",
            f"{p:g}",
            "With no true difference the test already rejects with probability alpha.",
        )
    return a, p, _check_alternative(alternative)


def _few_units(count: int | None, what: str) -> list[str]:
    if count is not None and count < _FEW_UNITS:
        return [
            f"only {count} {what}: the normal approximation behind this answer is rough "
            "(a t or exact test would need somewhat more)"
        ]
    return []


def _ceil(x: float) -> int:
    """Round up, ignoring floating-point noise (relative 1e-9) above an integer."""
    return max(1, math.ceil(x - 1e-9 * abs(x)))


def _result(
    ref: _Reference, solved_for: str, effect: float, power: float, alpha: float,
    alternative: str, se: float, rows: int | None, groups: int | None, notes: list[str],
) -> PowerAnalysis:  # fmt: skip
    unpaired = None
    if ref.unpaired_standard_error is not None:
        unpaired = ref.unpaired_standard_error * se / ref.standard_error
    return PowerAnalysis(
        solved_for=solved_for, effect=effect, power=power, alpha=alpha, alternative=alternative,
        standard_error=se, n=rows, n_clusters=groups,
        reference_standard_error=ref.standard_error, reference_n=ref.n,
        reference_n_clusters=ref.n_clusters, source=ref.source, metric=ref.metric,
        correlation=ref.correlation, design_effect=ref.design_effect,
        unpaired_standard_error=unpaired, notes=tuple(notes),
    )  # fmt: skip
