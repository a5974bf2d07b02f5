"""Result objects: frozen dataclasses that carry an interval and its provenance.

Every result of booteval follows one protocol (:class:`Result`): ``estimate``, ``low``,
``high``, ``confidence_level``, ``method``, ``seed``, ``notes``, ``n_resamples`` (``None``
where nothing was resampled), ``format()``, ``describe()`` and a JSON-safe ``to_dict()``;
results compare equal field by field (arrays element-wise) and pickle to an equal object.
A difference between two systems or methods (:class:`Difference`) adds ``p_value`` and
``excludes_zero``. ``with_method()`` recomputes another interval from a stored bootstrap
distribution through a picklable :class:`IntervalRecipe`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from .core.errors import InvalidInputError
from .core.format import format_p_value, format_triplet
from .core.intervals import CLOSED_FORMS, CountedJackknife
from .core.validation import check_confidence_level

__all__ = [
    "NO_INTERVAL",
    "CIResult",
    "Difference",
    "IntervalRecipe",
    "LazyJackknife",
    "PairedDifference",
    "Result",
    "plot_result",
    "protocol_defaults",
    "protocol_of_test",
]


def _same(a: Any, b: Any) -> bool:
    """Equality for result fields: arrays element-wise (NaN equal to NaN), nested
    containers item by item, floats with NaN equal to NaN."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # pragma: no cover - objects without a clear equality
        return a is b


def plain(value: Any) -> Any:
    """``value`` as plain Python data for JSON: NumPy scalars and arrays become numbers
    and lists, tuples lists, mappings dicts with string keys, results their ``to_dict()``."""
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def protocol_defaults(base: type[Result], **values: Any) -> Mapping[str, Any]:
    """``base``'s protocol defaults updated with ``values`` (for a result type's
    ``_protocol_defaults``); a value may be a function of the result."""
    return MappingProxyType({**base._protocol_defaults, **values})


#: protocol defaults of a result without an interval of its own (a test, a power plan)
NO_INTERVAL: Mapping[str, Any] = MappingProxyType(
    {"has_interval": False, "low": math.nan, "high": math.nan, "confidence_level": math.nan}
)


def protocol_of_test(estimate: str) -> Mapping[str, Any]:
    """Protocol defaults of a test without an interval: the field ``estimate`` is its
    estimate and its ``test`` field is its method.

    Examples
    --------
    >>> import booteval
    >>> t = booteval.mcnemar_test([1, 1, 0, 1, 0, 1], [1, 0, 0, 1, 1, 1], [0, 0, 0, 1, 0, 1])
    >>> t.method == t.test, t.has_interval
    (True, False)
    """
    return protocol_defaults(
        Difference, estimate=lambda r: getattr(r, estimate), **NO_INTERVAL, method=lambda r: r.test
    )


def cluster_line(n_clusters: int, effective_n: float, n: int) -> str:
    """The describe() line of a clustered result: clusters and effective sample size."""
    size = (
        f"effective sample size {effective_n:.1f} of {n} rows"
        if math.isfinite(effective_n)
        else f"{n} rows (effective sample size not computed)"
    )
    return f"  {n_clusters} clusters; {size}"


def with_notes(lines: list[str], notes: tuple[str, ...], indent: str = "  ") -> str:
    """A description's lines, then a line for each note, joined with newlines.

    Examples
    --------
    >>> print(with_notes(["mean: 0.5"], ("few rows",)))
    mean: 0.5
      note: few rows
    """
    return "\n".join([*lines, *(f"{indent}note: {note}" for note in notes)])


class Result:
    """The protocol every result of booteval follows (a base of frozen dataclasses).

    Attributes every result has (as a field or a property): ``estimate``, ``low``,
    ``high``, ``confidence_level``, ``method``, ``seed`` (``None`` where nothing random
    ran), ``n_resamples`` (``None`` where nothing was resampled) and ``notes``. A result
    without an interval of its own (a test, a power plan) has ``has_interval`` false and
    ``low`` and ``high`` ``nan``.

    Results compare equal field by field (arrays element-wise), pickle and unpickle to
    an equal object, and give ``format()``, ``describe()`` and a JSON-safe ``to_dict()``
    (the fields shown in the result's ``repr``; bulky arrays stay attributes).

    Examples
    --------
    >>> import json, pickle, booteval
    >>> r = booteval.ci([0.7, 0.9, 0.8, 0.6, 0.95], n_resamples=1000, seed=0)
    >>> pickle.loads(pickle.dumps(r)) == r
    True
    >>> json.loads(json.dumps(r.to_dict()))["method"]
    'quasi-wilson'
    """

    # Defaults for the protocol's attributes that a result type does not define as a
    # field or property. They are served by __getattr__ (not as class attributes, which
    # the dataclass machinery would take for the fields' defaults).
    _protocol_defaults: Mapping[str, Any] = MappingProxyType(
        {
            "seed": None,
            "n_resamples": None,
            "notes": (),
            "has_interval": True,
            # for pictures: the bootstrap replicates (None where none are stored), the
            # name of what is estimated, and a value to mark (0 for a difference)
            "distribution": None,
            "label": lambda r: str(getattr(r, "metric", None) or type(r).__name__),
            "reference": None,
        }
    )

    def __getattr__(self, name: str) -> Any:
        defaults = type(self)._protocol_defaults
        if name in defaults:
            value = defaults[name]
            return value(self) if callable(value) else value
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(
            _same(getattr(self, f.name), getattr(other, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if f.compare
        )

    def __hash__(self) -> int:
        # from the scalar fields, so that equal results hash alike (usable as dict keys)
        def key(v: Any) -> Any:
            if isinstance(v, float | np.floating) and math.isnan(v):
                return "nan"
            return v

        return hash(
            (
                type(self).__qualname__,
                *(
                    key(getattr(self, f.name))
                    for f in dataclasses.fields(self)  # type: ignore[arg-type]
                    if f.compare
                    and isinstance(getattr(self, f.name), bool | int | float | str | np.generic)
                ),
            )
        )

    def _short_repr(self, names: str, **shown: Any) -> str:
        """``Type(name=value, ...)`` for the space-separated attribute ``names``: strings
        quoted, floats to 6 significant digits; ``shown`` adds values that are not
        attributes (e.g. a count of systems)."""

        def text(v: Any) -> str:
            if isinstance(v, str):
                return repr(v)
            return f"{v:.6g}" if isinstance(v, float | np.floating) else str(v)

        items = [(n, getattr(self, n)) for n in names.split()] + list(shown.items())
        return f"{type(self).__name__}({', '.join(f'{n}={text(v)}' for n, v in items)})"

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: the fields shown in the ``repr`` (arrays as lists)."""
        return {
            f.name: plain(getattr(self, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if f.repr and not f.name.startswith("_")
        }

    def format(self, scale: float = 1.0, digits: int = 4) -> str:
        """``estimate (low, high)`` with a scale factor and fixed decimals; a test
        without an interval gives ``estimate (p = ...)``."""
        low, high = self.low, self.high
        if not self.has_interval:
            text = format_triplet(self.estimate, low, high, scale=scale, digits=digits)
            p = getattr(self, "p_value", None)
            return text.split(" (")[0] + (f" (p = {format_p_value(p, 4)})" if p is not None else "")
        return format_triplet(self.estimate, low, high, scale=scale, digits=digits)

    def __str__(self) -> str:
        return self.format()

    def plot(self, path: str | None = None, **kwargs: Any) -> Any:
        """A picture of the result: its bootstrap distribution with the estimate and
        interval marked where replicates are stored, otherwise the interval on a line.

        Needs matplotlib (``pip install 'booteval[plot]'``); see :mod:`booteval.plot` for
        the options. Returns the figure.
        """
        return plot_result(self, "default", path, **kwargs)

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """The interval, how it was computed and the notes, in a few lines."""
        level = self.confidence_level
        head = f"{type(self).__name__}: {self.format(scale, digits)}"
        how = []
        if level is not None and math.isfinite(level):
            how.append(f"{level * 100:g}%")
        if self.method:
            how.append(f"{self.method}")
        lines = [head]
        if how:
            lines.append("  " + " ".join(how) + " interval")
        run = []
        if self.n_resamples:
            run.append(f"B = {self.n_resamples} resamples")
        if self.seed is not None:
            run.append(f"seed = {self.seed}")
        if run:
            lines.append("  " + ", ".join(run))
        return with_notes(lines, self.notes)


class Difference(Result):
    """A result that is a difference (B - A, or between two correlations): the protocol
    plus ``p_value`` and ``excludes_zero`` (the interval lies on one side of 0)."""

    _protocol_defaults = protocol_defaults(
        Result,
        p_value=math.nan,
        excludes_zero=lambda r: bool(r.low > 0 or r.high < 0),
        reference=0.0,
        label=lambda r: (
            f"{r.name_b} \u2212 {r.name_a}"
            if hasattr(r, "name_a") and hasattr(r, "name_b")
            else "B \u2212 A"
        ),
    )


@dataclass(frozen=True, eq=False)
class PairedDifference(Difference):
    """The fields every paired difference of two systems starts with.

    Attributes
    ----------
    name_a, name_b : str
        The systems' names.
    estimate_a, estimate_b : float
        Each system's metric on the original data.
    difference : float
        ``estimate_b - estimate_a``.
    low, high : float
        Interval for the difference.
    """

    name_a: str
    name_b: str
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float

    @property
    def estimate(self) -> float:
        """The difference ``B - A`` (alias of :attr:`difference`)."""
        return self.difference


class LazyJackknife:
    """Leave-one-unit-out values computed on first use and kept.

    Pickling computes them (a result must carry what ``with_method("bca")`` needs); where
    that fails, the pickle keeps the reason and BCa is refused after unpickling.
    """

    def __init__(self, compute: Callable[[], np.ndarray] | None = None) -> None:
        self._compute = compute
        self.value: np.ndarray | None = None
        self._error: str | None = None

    def __call__(self) -> np.ndarray:
        if self.value is None:
            if self._compute is None:
                raise InvalidInputError(
                    "method",
                    "a method other than 'bca' for this unpickled result",
                    "'bca'",
                    f"Its jackknife could not be computed when it was pickled: {self._error}",
                )
            value = self._compute()
            self.value = value if isinstance(value, CountedJackknife) else freeze(value)
        return self.value

    def __getstate__(self) -> dict[str, Any]:
        if self.value is None and self._compute is not None:
            try:
                self()
            except Exception as exc:  # kept as the reason BCa is unavailable later
                return {"_compute": None, "value": None, "_error": str(exc)}
        return {"_compute": None, "value": self.value, "_error": self._error}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


@dataclass(frozen=True, eq=False)
class IntervalRecipe:
    """What ``with_method`` needs beyond a result's stored replicates (picklable).

    Parameters
    ----------
    methods : tuple of str
        The interval methods this kind of result allows.
    transform, bounds, ties
        As for :func:`booteval.intervals.compute_interval`.
    notes_before, notes_after : tuple of str
        Notes of the run (not of the interval) put before and after the interval's own.
    details : dict
        Entries of ``result.details`` that come from the run.
    jackknife : LazyJackknife, optional
        For BCa; ``None`` where the result has none.
    scores_range : (float, float), optional
        Where the metric has no ``bounds`` but is the mean of per-row scores with a natural
        range (``[0, 1]``, or ``[0, inf)`` for non-negative scores): an interval reaching
        outside it is kept as the method gives it, and the notes say so.
    studentized_hint : str
        What to do instead when ``"studentized"`` is asked of a result without
        per-replicate standard errors.
    """

    methods: tuple[str, ...]
    transform: Any = None
    bounds: tuple[float, float] | None = None
    ties: str = "half"
    notes_before: tuple[str, ...] = ()
    notes_after: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)
    jackknife: LazyJackknife | None = None
    scores_range: tuple[float, float] | None = None
    studentized_hint: str = (
        "Run booteval.ci(..., method='studentized') instead (with the multinomial design)."
    )

    def apply(self, result: CIResult, method: str, level: float) -> CIResult:
        """``result`` with the interval of ``method`` at ``level`` from its replicates."""
        from .core.engine import check_choice
        from .core.intervals import STUDENTIZED

        check_choice(method, "method", self.methods)
        if method in STUDENTIZED and result.replicate_standard_errors is None:
            raise InvalidInputError(
                "method",
                "a method other than the studentized ones for a result computed without "
                "per-replicate standard errors",
                "'studentized'",
                self.studentized_hint,
            )
        out = self.interval(result, method, level)
        notes, (lo, hi) = tuple(out.notes), self.scores_range or (-math.inf, math.inf)
        if self.bounds is None and (out.low < lo or out.high > hi):
            notes += (f"interval ({out.low:.6g}, {out.high:.6g}) reaches outside [{lo:g}, "
                      f"{hi:g}], where a mean of these scores cannot lie; method='auto' forms "
                      "it on a scale that keeps it inside",)  # fmt: skip
        return dataclasses.replace(
            result,
            low=out.low,
            high=out.high,
            confidence_level=level,
            method=method,
            mcse_low=out.mcse_low,
            mcse_high=out.mcse_high,
            jackknife=self.jackknife.value if self.jackknife is not None else None,
            notes=tuple(self.notes_before) + notes + tuple(self.notes_after),
            details={**self.details, **out.details},
        )

    def interval(self, result: CIResult, method: str, level: float) -> Any:
        """The :class:`~booteval.core.intervals.IntervalOutcome` of ``method`` (checked) at
        ``level``: :func:`~booteval.core.intervals.compute_interval` of the replicates (the
        hook a recipe of a method that needs more than the replicates extends)."""
        from .core.intervals import compute_interval

        jk = self.jackknife() if method == "bca" and self.jackknife is not None else None
        return compute_interval(
            method, result.estimate, result.distribution, level, jackknife=jk,
            standard_error=result.estimate_standard_error,
            replicate_standard_errors=result.replicate_standard_errors,
            transform=self.transform, bounds=self.bounds, ties=self.ties,
        )  # fmt: skip


def _significant(x: float, figures: int) -> str:
    """``x`` to ``figures`` significant figures, without an exponent (``12.6`` -> ``13``)."""
    if not np.isfinite(x):
        return str(x)
    return np.format_float_positional(
        x, precision=figures, unique=False, fractional=False, trim="-"
    )


@dataclass(frozen=True, eq=False)
class CIResult(Result):
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
    _recompute: IntervalRecipe | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------- formatting
    def format(self, scale: float = 1.0, digits: int = 4) -> str:
        """``estimate (low, high)`` with a scale factor and fixed decimals.

        Examples
        --------
        >>> import booteval
        >>> r = booteval.ci([1, 0, 1, 1, 0, 1, 1, 1], n_resamples=1000, seed=0)
        >>> r.format(scale=100, digits=1)
        '75.0 (40.8, 94.4)'
        """
        return format_triplet(self.estimate, self.low, self.high, scale=scale, digits=digits)

    def __str__(self) -> str:
        return self.format()

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """A longer description: the interval, method, design, B and seed."""
        pct = f"{self.confidence_level * 100:g}%"
        head = f"{self.metric}: {self.format(scale, digits)}"  # checks scale and digits
        se = f"standard error {_significant(self.standard_error * scale, max(digits, 2))}"
        undefined = f", {self.n_undefined} undefined (dropped)" if self.n_undefined else ""
        if self.method in CLOSED_FORMS:  # a formula: the bootstrap is not the interval's
            lines = [
                head,
                f"  {pct} {self.method} interval (closed form, no Monte Carlo error); "
                f"{self.n} rows" + (f" in {self.n_clusters} clusters" if self.n_clusters else ""),
                f"  kept for with_method(): {self.design}, B = {self.n_resamples} "
                f"resamples, seed = {self.seed}{undefined}; bootstrap {se}",
            ]
        else:
            lines = [
                head,
                f"  {pct} {self.method} interval"
                + (f" on the {self.transform} scale" if self.transform else "")
                + f"; {self.design}",
                f"  B = {self.n_resamples} resamples, seed = {self.seed}{undefined}",
                f"  {se}; Monte Carlo error of the endpoints "
                f"{self.mcse_low * scale:.2g}, {self.mcse_high * scale:.2g}",
            ]
        if self.n_clusters is not None:
            lines.append(cluster_line(self.n_clusters, self.effective_n, self.n))
        return with_notes(lines, self.notes)

    def __repr__(self) -> str:
        return self._short_repr(
            "metric estimate low high confidence_level method n n_resamples seed"
        )

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

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
        out = {k: plain(getattr(self, k)) for k in keys}
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
        if self._recompute is None:
            raise InvalidInputError(
                "method",
                "a result that stores what its interval was formed from",
                f"a {type(self).__name__} built without it",
            )
        return self._recompute.apply(self, method, level)


def freeze(a: np.ndarray | None) -> np.ndarray | None:
    """A read-only view of an array (``None`` passes through)."""
    if a is None:
        return None
    a = np.asarray(a)
    a.setflags(write=False)
    return a


def plot_result(result: Any, kind: str, path: str | None = None, **kwargs: Any) -> Any:
    """Draw ``result`` with :func:`booteval.plot.draw` (``kind``: ``"default"``,
    ``"distribution"``, ``"forest"``, ``"leaderboard"`` or ``"pairwise"``): what the
    results' ``plot`` methods call.

    The plotting layer sits above the results (it reads their protocol, and needs
    matplotlib): it is loaded here, when a figure is asked for, by name, so that no
    module of the results imports it. Its :func:`~booteval.plot.draw` decides which figure
    a result gets.
    """
    import importlib

    return importlib.import_module("booteval.plot").draw(result, kind, path, **kwargs)


#: every result class of booteval, importable from here (``from booteval.results import
#: ComparisonResult``): defined beside the functions that return them, loaded on first use
RESULT_CLASSES: dict[str, str] = {
    "AnalyticInterval": "booteval.inference.analytic",
    "BootstrapErrorEstimates": "booteval.methods.oob",
    "CVInterval": "booteval.methods.crossval",
    "ClusteredInterval": "booteval.inference.few_clusters",
    "ComparisonResult": "booteval.inference.comparison",
    "CorrelationComparison": "booteval.meta",
    "CorrelationResult": "booteval.meta",
    "CoverageRow": "booteval.meta",
    "CoverageTable": "booteval.meta",
    "DeLongTest": "booteval.inference.delong",
    "ErrorEstimate": "booteval.methods.oob",
    "JudgeCorrectedComparison": "booteval.inference.judge_results",
    "JudgeCorrectedResult": "booteval.inference.judge_results",
    "LeaderboardEntry": "booteval.inference.leaderboard",
    "LeaderboardResult": "booteval.inference.leaderboard",
    "McNemarTestResult": "booteval.inference.classical",
    "MethodComparisonResult": "booteval.methods.seeds",
    "NestedCVInterval": "booteval.methods.crossval",
    "NestedResult": "booteval.methods.samples",
    "OOBExtrapolation": "booteval.methods.oob",
    "PairedTTestResult": "booteval.inference.classical",
    "PairwiseDifference": "booteval.inference.leaderboard",
    "PermutationTestResult": "booteval.inference.significance",
    "PowerAnalysis": "booteval.inference.power",
    "SeedPoolResult": "booteval.methods.seeds",
    "ThresholdCIResult": "booteval.methods.threshold",
    "ThresholdComparisonResult": "booteval.methods.threshold",
    "TrainingBootstrapResult": "booteval.methods.training",
}


def __getattr__(name: str) -> Any:
    """A result class defined elsewhere (:data:`RESULT_CLASSES`), imported on first use."""
    if name in RESULT_CLASSES:
        import importlib

        return getattr(importlib.import_module(RESULT_CLASSES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *RESULT_CLASSES})
