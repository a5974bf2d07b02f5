"""Meta-evaluation: how well does an automatic metric agree with human judgments?

A metric's scores ``X`` and human scores ``Z`` on the same ``N`` systems x ``M`` inputs
(NaN marks a missing score) are compared at one of three **levels**:

* ``"system"``: average each system over its inputs, then correlate the ``N`` system means;
* ``"summary"`` (alias ``"input"``): correlate across systems within each input, then average
  the ``M`` per-input correlations;
* ``"global"``: correlate all judged system-input pairs at once.

with Pearson's ``r``, Spearman's ``rho`` or Kendall's ``tau-b``. A single correlation is not
enough: :func:`correlate` gives a confidence interval, either the Fisher-z interval with the
Bonett-Wright constants or a bootstrap under one of three designs that answer different
questions:

=================  ==========================  =============================================
``resample=``      resamples                   the interval speaks about
=================  ==========================  =============================================
``"systems"``      systems (Boot-Systems)      new systems like these, on these inputs
``"inputs"``       inputs (Boot-Inputs)        these systems, on new inputs like these
``"both"``         both (Boot-Both)            new systems and new inputs like these
=================  ==========================  =============================================

:func:`compare_correlations` tests whether one metric agrees better than another (paired
bootstrap, permutation tests that swap the two metrics' scores per system / input / both, and
Williams' test at the system level); :func:`simulate_correlation_coverage` measures how often
each interval covers a known correlation.

Conventions
-----------
Missing scores
    A cell counts only when both the metric and the human score are present; the rest are
    left out and counted (``n_missing``). A system or input with no such cell is an error.
    Summary level: inputs judged for fewer than 3 systems are left out (noted); inputs where
    the correlation is undefined (a constant score across systems) are skipped, as SciPy
    returns NaN there, and counted in ``n_inputs_undefined``.
Undefined replicates
    A replicate whose correlation is undefined (e.g. the same system drawn every time) is
    dropped and counted in ``n_undefined``, with an
    :class:`~booteval.UndefinedReplicateWarning` when more than 1 % are.
What ``n`` means for the Fisher interval
    system level: the number of systems; summary level: the number of systems per input (the
    most judged on one input), so the mean of ``M`` correlations is treated as one
    correlation of ``n`` pairs; global level: the number of judged cells, treated as
    independent pairs (they are not: cells share systems and inputs).
Seeds
    Replicate ``b`` resamples systems and inputs from a generator seeded by
    ``SeedSequence(seed, spawn_key=(2, block))`` for the fixed-size block holding ``b``; the
    same seed gives the same replicates whatever the level, coefficient, metric or design
    (Boot-Systems and Boot-Both draw the same systems), so metrics are compared on common
    resamples. Permutations use ``spawn_key=(3, block)``.
Interval methods
    ``"percentile"`` (default, as in the reference paper), ``"basic"``, ``"normal"``,
    ``"bca"``, computed by :func:`booteval.intervals.compute_interval`. BCa's acceleration
    comes from the jackknife of the resampled units: leave one system out (Boot-Systems), one
    input out (Boot-Inputs), or both sets, combined as for a two-sample statistic (Boot-Both).
    The studentized interval is not offered: a correlation level under a two-way design has no
    analytic standard error, and a nested bootstrap would multiply the cost by its size.
Cost
    One ``(B, M) @ (M, N)`` product gives every replicate's system means; rank coefficients
    compare the ``N`` systems pairwise, ``O(B N^2)``. The summary level computes every input's
    weighted sums, ranks or pair counts with one ``(B, N) @ (N, k N M)`` product. The global
    level uses the registry's weighted correlation metrics over the ``N M`` cells: fast for
    Pearson and Spearman, about a second per 1,000 replicates at 1,600 cells for Kendall.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from scipy import stats as _stats

from . import _meta_kernels as K
from ._errors import BootevalError, InvalidInputError, UndefinedReplicateWarning
from ._meta_results import CorrelationComparison, CorrelationResult, CoverageRow, CoverageTable
from ._validation import check_confidence_level, check_n_resamples, check_seed, describe_value
from .analytic import fisher_z_interval
from .intervals import compute_interval
from .results import freeze

__all__ = [
    "ALTERNATIVES",
    "COEFFICIENTS",
    "LEVELS",
    "METHODS",
    "RESAMPLE",
    "CorrelationComparison",
    "CorrelationResult",
    "CoverageRow",
    "CoverageTable",
    "ScoreMatrices",
    "compare_correlations",
    "correlate",
    "correlate_metrics",
    "score_matrices",
    "simulate_correlation_coverage",
]

LEVELS: tuple[str, ...] = ("system", "summary", "global")
_LEVEL_ALIASES = {"input": "summary"}
COEFFICIENTS: tuple[str, ...] = K.COEFFICIENTS
RESAMPLE: tuple[str, ...] = ("systems", "inputs", "both")
BOOTSTRAP_METHODS: tuple[str, ...] = ("percentile", "basic", "normal", "bca")
METHODS: tuple[str, ...] = (*BOOTSTRAP_METHODS, "fisher")
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")
_UNDEFINED_WARN_FRACTION = 0.01
# permutation p-values: a replicate within this of the observed difference counts as "as
# extreme" (the identity swap reproduces the observed value up to rounding)
_P_TOL = 1e-12
# a summary-level input needs at least this many judged systems
_MIN_SYSTEMS = 3


# ------------------------------------------------------------------------------ validation
def _choice(value: object, name: str, choices: tuple[str, ...], aliases: dict | None = None):
    if isinstance(value, str):
        v = (aliases or {}).get(value, value)
        if v in choices:
            return v
    valid = ", ".join(map(repr, choices + tuple(aliases or ())))
    raise InvalidInputError(name, f"one of {valid}", describe_value(value))


def _as_matrix(a: object, name: str) -> np.ndarray:
    if a is None:
        raise InvalidInputError(name, "a 2-D array (systems x inputs)", "None")
    if hasattr(a, "to_numpy") and not isinstance(a, np.ndarray):
        a = a.to_numpy()
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(
            name, "numeric scores (NaN for missing)", f"{type(a).__name__} of non-numbers"
        ) from None
    if arr.ndim != 2:
        raise InvalidInputError(
            name,
            "a 2-D array of shape (systems, inputs)",
            f"an array of shape {arr.shape}",
            "Build matrices from a long table with booteval.meta.score_matrices.",
        )
    if np.isinf(arr).any():
        raise InvalidInputError(name, "finite scores or NaN for missing", "infinite values")
    return arr


def _matrices_iv(x: object, z: object, x_name: str = "X") -> tuple[np.ndarray, ...]:
    """Validate a metric and a human matrix; return ``x, z, mask``."""
    xa = _as_matrix(x, x_name)
    za = _as_matrix(z, "Z")
    if xa.shape != za.shape:
        raise InvalidInputError(
            "Z",
            f"the same shape as `{x_name}` {xa.shape} (systems x inputs)",
            f"shape {za.shape}",
            "Both matrices must list the same systems (rows) and inputs (columns) in the "
            "same order.",
        )
    mask = np.isfinite(xa) & np.isfinite(za)
    for axis, what in ((1, "row (system)"), (0, "column (input)")):
        empty = ~mask.any(axis=axis)
        if empty.any():
            k = int(np.flatnonzero(empty)[0])
            line = xa[k] if axis == 1 else xa[:, k]
            zline = za[k] if axis == 1 else za[:, k]
            who = x_name if np.isnan(line).all() else "Z" if np.isnan(zline).all() else None
            raise InvalidInputError(
                who or f"{x_name}, Z",
                f"at least one score in every {what}",
                f"{int(empty.sum())} {what.split()[0]}(s) with no "
                + ("score" if who else "cell scored in both matrices")
                + f", the first at index {k}",
                "Drop systems or inputs that have no scores.",
            )
    if xa.shape[0] < 3:
        raise InvalidInputError(
            x_name,
            "at least 3 systems (rows) for a correlation across systems",
            f"{xa.shape[0]} system(s)",
        )
    return xa, za, mask


def _common_iv(
    level: object, coefficient: object, method: object, confidence_level: object
) -> tuple[str, str, str, float]:
    lv = _choice(level, "level", LEVELS, _LEVEL_ALIASES)
    co = _choice(coefficient, "coefficient", COEFFICIENTS)
    me = _choice(method, "method", METHODS)
    return lv, co, me, check_confidence_level(confidence_level)


# ------------------------------------------------------------------------------- problems
class _Problem:
    """One metric matrix against the human matrix at one level."""

    def __init__(
        self, x: np.ndarray, z: np.ndarray, mask: np.ndarray, level: str, coefficient: str
    ) -> None:
        self.notes: list[str] = []
        self.n_missing = int(mask.size - mask.sum())
        if self.n_missing:
            self.notes.append(
                f"{self.n_missing} of {mask.size} cells lack a metric or a human score and were "
                "left out"
            )
        if level == "summary":
            keep = mask.sum(axis=0) >= _MIN_SYSTEMS
            if not keep.all():
                self.notes.append(
                    f"{int((~keep).sum())} input(s) judged for fewer than {_MIN_SYSTEMS} "
                    "systems were left out of the summary-level correlation"
                )
                if not keep.any():
                    raise InvalidInputError(
                        "X, Z",
                        f"at least one input with {_MIN_SYSTEMS} or more scored systems",
                        "none",
                    )
                x, z, mask = x[:, keep], z[:, keep], mask[:, keep]
        self.x, self.z, self.mask = x, z, mask
        self.level, self.coefficient = level, coefficient
        self.n_systems, self.n_inputs = x.shape
        self.stat = K.LEVEL_CLASSES[level](x, z, mask, coefficient)
        self.n_inputs_undefined = 0
        if level == "summary":
            per = self.stat.per_input
            self.n_inputs_undefined = int((~np.isfinite(per)).sum())
            if self.n_inputs_undefined:
                self.notes.append(
                    f"the correlation is undefined on {self.n_inputs_undefined} of "
                    f"{per.size} inputs (constant scores across systems); they were skipped"
                )
        with np.errstate(all="ignore"):
            self.estimate = float(self.stat(None, None)[0])

    # what n means for the Fisher interval
    def fisher_n(self) -> tuple[int, str]:
        if self.level == "system":
            return self.n_systems, f"n = {self.n_systems} systems"
        if self.level == "summary":
            n = int(self.mask.sum(axis=0).max())
            return n, (
                f"n = {n} systems per input (the most scored on one input); the mean of "
                f"{self.n_inputs - self.n_inputs_undefined} per-input correlations is "
                f"treated as one correlation of {n} pairs"
            )
        n = int(self.mask.sum())
        return n, f"n = {n} scored system-input pairs, treated as independent"


def _population(resample: str | None, n_sys: int, n_inp: int) -> tuple[str, str]:
    if resample == "systems":
        return (
            f"Boot-Systems: {n_sys} systems resampled, the {n_inp} inputs fixed",
            f"new systems like these, on these {n_inp} inputs",
        )
    if resample == "inputs":
        return (
            f"Boot-Inputs: {n_inp} inputs resampled, the {n_sys} systems fixed",
            f"these {n_sys} systems, on new inputs like these",
        )
    if resample == "both":
        return (
            f"Boot-Both: {n_sys} systems and {n_inp} inputs resampled",
            "new systems and new inputs like these",
        )
    return (
        "Fisher z with the Bonett-Wright constants (no resampling)",
        "a population of independent, bivariate-normal (metric, human) pairs",
    )


def _weights(resample: str, v: np.ndarray, w: np.ndarray) -> tuple[Any, Any]:
    return (v if resample != "inputs" else None), (w if resample != "systems" else None)


def _bootstrap(
    fns: list[Callable[[Any, Any], np.ndarray]],
    resample: str,
    n_sys: int,
    n_inp: int,
    seed: int,
    n_resamples: int,
) -> np.ndarray:
    """Replicates ``(len(fns), B)`` of statistics of the system and input weights."""
    size = K.block_size(n_sys, n_inp)
    out = np.empty((len(fns), n_resamples))
    with np.errstate(all="ignore"):
        for j in range(math.ceil(n_resamples / size)):
            v, w = K.bootstrap_block(seed, j, n_sys, n_inp)
            lo, hi = j * size, min((j + 1) * size, n_resamples)
            vv, ww = _weights(resample, v[: hi - lo], w[: hi - lo])
            for k, fn in enumerate(fns):
                out[k, lo:hi] = fn(vv, ww)
    return out


def _jackknife(fn: Callable[[Any, Any], np.ndarray], resample: str, n_sys: int, n_inp: int):
    """Values for BCa's acceleration (see :func:`compute_interval`'s ``jackknife``).

    For Boot-Both the two sets of leave-one-out values are combined as for a two-sample
    statistic: ``a = sum_g sum_i u_gi^3 / (6 (sum_g sum_i u_gi^2)^1.5)`` with
    ``u_gi = (n_g - 1) / n_g * (mean_g - theta_(gi))``; the values returned are ``-u``, whose
    centred form is ``u``.
    """
    with np.errstate(all="ignore"):
        parts = []
        if resample in ("systems", "both"):
            parts.append(fn(1.0 - np.eye(n_sys), None))
        if resample in ("inputs", "both"):
            parts.append(fn(None, 1.0 - np.eye(n_inp)))
    if len(parts) == 1:
        return parts[0]
    out = []
    for vals in parts:
        vals = vals[np.isfinite(vals)]
        if vals.size:
            g = vals.size
            out.append(-((g - 1) / g) * (vals.mean() - vals))
    return np.concatenate(out) if out else np.array([np.nan])


def _check_undefined(reps: np.ndarray, what: str) -> tuple[np.ndarray, int]:
    ok = np.isfinite(reps)
    n_undef = int(reps.size - ok.sum())
    if n_undef == reps.size:
        raise BootevalError(
            f"the {what} was undefined on all {reps.size} replicates: no interval can be formed"
        )
    if n_undef > _UNDEFINED_WARN_FRACTION * reps.size:
        warnings.warn(
            f"the {what} was undefined on {n_undef} of {reps.size} replicates (e.g. every "
            "drawn system with the same score); they were dropped, so the interval is "
            "conditional on the correlation being defined",
            UndefinedReplicateWarning,
            stacklevel=3,
        )
    return reps[ok], n_undef


def _fisher(
    r: float, n: int, coefficient: str, level: float, n_meaning: str
) -> tuple[float, float, float]:
    b = 4 if coefficient == "kendall" else 3
    if n <= b:
        raise InvalidInputError(
            "method",
            f"a bootstrap method: the Fisher interval for {coefficient} needs n > {b}",
            f"'fisher' with {n_meaning}",
        )
    iv = fisher_z_interval(r, n, coefficient=coefficient, confidence_level=level)
    return iv.low, iv.high, float(iv.standard_error or 0.0)


def _build_result(
    prob: _Problem,
    method: str,
    level: float,
    resample: str | None,
    values: np.ndarray | None,
    n_resamples: int,
    n_undefined: int,
    seed: int | None,
    jack: Callable[[], np.ndarray] | None,
    metric: str,
    human: str,
) -> CorrelationResult:
    n, n_meaning = prob.fisher_n()
    notes = list(prob.notes)
    details: dict[str, Any] = {}
    if method == "fisher":
        resample_used = None
        low, high, se = _fisher(prob.estimate, n, prob.coefficient, level, n_meaning)
        mc_lo = mc_hi = 0.0
        if prob.level != "system":
            notes.append(
                "the Fisher interval assumes independent bivariate-normal pairs; at the "
                f"{prob.level} level its {n_meaning}"
            )
    else:
        if values is None:
            raise InvalidInputError(
                "method",
                "'fisher' for a result computed without resampling",
                repr(method),
                "Run correlate(..., resample='both') for bootstrap intervals.",
            )
        resample_used = resample
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = compute_interval(
                method,
                prob.estimate,
                values,
                level,
                jackknife=jack() if method == "bca" and jack is not None else None,
                bounds=(-1.0, 1.0),
            )
        for w in caught:
            warnings.warn(w.message, w.category, stacklevel=4)
        low, high, mc_lo, mc_hi = out.low, out.high, out.mcse_low, out.mcse_high
        se = float(np.std(values, ddof=1)) if values.size > 1 else 0.0
        notes.extend(out.notes)
        details.update(out.details)
    design, population = _population(resample_used, prob.n_systems, prob.n_inputs)
    return CorrelationResult(
        estimate=prob.estimate,
        low=float(low),
        high=float(high),
        confidence_level=level,
        method=method,
        level=prob.level,
        coefficient=prob.coefficient,
        resample=resample_used,
        design=design,
        population=population,
        metric=metric,
        human=human,
        n_systems=prob.n_systems,
        n_inputs=prob.n_inputs,
        n=n,
        n_meaning=n_meaning,
        n_missing=prob.n_missing,
        n_inputs_undefined=prob.n_inputs_undefined,
        n_resamples=n_resamples if resample_used else 0,
        n_undefined=n_undefined if resample_used else 0,
        seed=seed if resample_used else None,
        standard_error=se,
        mcse_low=float(mc_lo),
        mcse_high=float(mc_hi),
        distribution=freeze(values) if resample_used else None,
        jackknife=None,
        notes=tuple(notes),
        details=details,
    )


def _correlate_prepared(
    prob: _Problem,
    method: str,
    level: float,
    resample: str | None,
    n_resamples: int,
    seed: int,
    metric: str,
    human: str,
    replicates: np.ndarray | None = None,
) -> CorrelationResult:
    if not math.isfinite(prob.estimate):
        raise InvalidInputError(
            "X, Z",
            f"data on which the {prob.level}-level {prob.coefficient} correlation is defined",
            "a constant metric or human score"
            + (" on every input" if prob.level == "summary" else ""),
        )
    values = None
    n_undef = 0
    if resample is not None:
        reps = (
            replicates
            if replicates is not None
            else _bootstrap(
                [prob.stat], resample, prob.n_systems, prob.n_inputs, seed, n_resamples
            )[0]
        )
        values, n_undef = _check_undefined(reps, f"{prob.level}-level correlation")
    cache: dict[str, np.ndarray] = {}

    def jack() -> np.ndarray:
        if "j" not in cache:
            cache["j"] = freeze(_jackknife(prob.stat, resample, prob.n_systems, prob.n_inputs))
        return cache["j"]

    def build(meth: str, lev: float) -> CorrelationResult:
        meth = _choice(meth, "method", METHODS)
        lev = check_confidence_level(lev)
        res = _build_result(
            prob, meth, lev, resample, values, n_resamples, n_undef, seed,
            jack if resample else None, metric, human,
        )  # fmt: skip
        object.__setattr__(res, "_recompute", build)
        if meth == "bca":
            object.__setattr__(res, "jackknife", cache.get("j"))
        return res

    return build(method, level)


# ------------------------------------------------------------------------------ correlate
def correlate(
    X: Any,
    Z: Any,
    *,
    level: str = "system",
    coefficient: str = "pearson",
    resample: str | None = "both",
    method: str = "percentile",
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | None = None,
    metric: str = "metric",
    human: str = "human",
) -> CorrelationResult:
    """Correlation of a metric with human scores, with a confidence interval.

    Parameters
    ----------
    X, Z : array_like, shape (N, M)
        The metric's and the human scores of ``N`` systems (rows) on ``M`` inputs (columns);
        NaN marks a missing score. NumPy arrays, nested lists or pandas DataFrames (use
        :func:`score_matrices` to build them from a long table).
    level : {"system", "summary", "global"}
        ``"summary"`` correlates across systems within each input and averages over inputs
        (``"input"`` is accepted as an alias).
    coefficient : {"pearson", "spearman", "kendall"}
        Kendall's tau-b.
    resample : {"both", "systems", "inputs"} or None
        The bootstrap design: Boot-Both, Boot-Systems or Boot-Inputs (see the module notes
        for what each interval speaks about). ``None``: no resampling, the Fisher interval.
    method : {"percentile", "basic", "normal", "bca", "fisher"}
        Interval method. ``"fisher"`` is the Fisher-z interval with the Bonett-Wright
        constants (``resample`` is then ignored); the result says what its ``n`` counts.
    confidence_level : float, default 0.95
    n_resamples : int, default 10_000
    seed : int, optional
        The same seed gives the same replicates for any level, coefficient or metric. When
        omitted, fresh entropy is drawn and recorded in ``result.seed``.
    metric, human : str
        Labels used in descriptions.

    Returns
    -------
    CorrelationResult

    Raises
    ------
    InvalidInputError
        Shapes of ``X`` and ``Z`` differ; a row or column has no score; fewer than 3 systems;
        an unknown level, coefficient, design or method (the message lists the valid ones);
        the correlation is undefined on the original data.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.meta import correlate
    >>> rng = np.random.default_rng(1)
    >>> quality = rng.normal(size=(12, 1)) + rng.normal(size=(12, 40))
    >>> human = quality + rng.normal(size=(12, 40))
    >>> metric = quality + rng.normal(size=(12, 40))
    >>> r = correlate(metric, human, level="system", resample="both", seed=0)
    >>> print(r)
    0.90 (0.30, 0.98)
    >>> r.population
    'new systems and new inputs like these'
    >>> print(correlate(metric, human, method="fisher").format(digits=3))
    0.900 (0.675, 0.972)
    """
    lv, co, me, lev = _common_iv(level, coefficient, method, confidence_level)
    if resample is not None:
        resample = _choice(resample, "resample", RESAMPLE)
    if me == "fisher":
        resample = None
    b = check_n_resamples(n_resamples, lev) if resample is not None else 0
    seed_int = check_seed(seed)
    x, z, mask = _matrices_iv(X, Z)
    prob = _Problem(x, z, mask, lv, co)
    return _correlate_prepared(
        prob, "fisher" if resample is None else me, lev, resample, b, seed_int, metric, human
    )


def correlate_metrics(
    metrics: Mapping[str, Any],
    Z: Any,
    *,
    level: str = "system",
    coefficient: str = "pearson",
    resample: str | None = "both",
    method: str = "percentile",
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | None = None,
    human: str = "human",
) -> dict[str, CorrelationResult]:
    """:func:`correlate` for several metrics against the same human scores.

    Every metric is resampled with the same systems and inputs (one seed), so the intervals
    are directly comparable; use :func:`compare_correlations` to test a difference. (At the
    summary level, metrics whose missing cells leave out different inputs are resampled
    separately, with the same seed.)

    Parameters
    ----------
    metrics : mapping of str to array_like
        Metric name -> its ``(N, M)`` score matrix.
    Z : array_like, shape (N, M)
    level, coefficient, resample, method, confidence_level, n_resamples, seed, human
        As in :func:`correlate`.

    Returns
    -------
    dict of str to CorrelationResult
        In the order of ``metrics``.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.meta import correlate_metrics
    >>> rng = np.random.default_rng(2)
    >>> human = rng.normal(size=(6, 30))
    >>> out = correlate_metrics({"good": human + rng.normal(size=(6, 30)),
    ...                          "poor": human + 3 * rng.normal(size=(6, 30))},
    ...                         human, level="summary", n_resamples=1000, seed=0)
    >>> {name: r.format() for name, r in out.items()}
    {'good': '0.63 (0.31, 0.76)', 'poor': '0.30 (-0.01, 0.53)'}
    """
    if not isinstance(metrics, Mapping) or not metrics:
        raise InvalidInputError(
            "metrics", "a non-empty mapping of metric name to score matrix",
            describe_value(metrics),
        )  # fmt: skip
    lv, co, me, lev = _common_iv(level, coefficient, method, confidence_level)
    if resample is not None:
        resample = _choice(resample, "resample", RESAMPLE)
    if me == "fisher":
        resample = None
    b = check_n_resamples(n_resamples, lev) if resample is not None else 0
    seed_int = check_seed(seed)
    probs = {}
    for name, x in metrics.items():
        xa, za, mask = _matrices_iv(x, Z, x_name=f"metrics[{name!r}]")
        probs[str(name)] = _Problem(xa, za, mask, lv, co)
    reps: dict[str, np.ndarray] = {}
    if resample is not None:
        shapes = {(p.n_systems, p.n_inputs) for p in probs.values()}
        if len(shapes) == 1:  # one pass over the resamples for every metric
            n_sys, n_inp = shapes.pop()
            out = _bootstrap([p.stat for p in probs.values()], resample, n_sys, n_inp,
                             seed_int, b)  # fmt: skip
            reps = dict(zip(probs, out, strict=True))
    return {
        name: _correlate_prepared(
            p,
            "fisher" if resample is None else me,
            lev,
            resample,
            b,
            seed_int,
            name,
            human,
            replicates=reps.get(name),
        )
        for name, p in probs.items()
    }


# --------------------------------------------------------------------------- long tables
class ScoreMatrices(Mapping):
    """Score matrices (systems x inputs) built from a long table, one per score column.

    A read-only mapping of column name -> ``(N, M)`` array, with the row and column labels.

    Attributes
    ----------
    systems : tuple
        Row labels, sorted.
    inputs : tuple
        Column labels, sorted.
    """

    def __init__(self, systems: tuple, inputs: tuple, matrices: dict[str, np.ndarray]) -> None:
        self.systems = systems
        self.inputs = inputs
        self._m = matrices

    def __getitem__(self, name: str) -> np.ndarray:
        return self._m[name]

    def __iter__(self):
        return iter(self._m)

    def __len__(self) -> int:
        return len(self._m)

    def __repr__(self) -> str:
        return (
            f"ScoreMatrices({len(self.systems)} systems x {len(self.inputs)} inputs: "
            f"{', '.join(self._m)})"
        )


def score_matrices(
    table: Any,
    scores: str | list[str] | tuple[str, ...],
    *,
    system: str = "system",
    input: str = "input",
) -> ScoreMatrices:
    """Pivot a long table (one row per system and input) into systems x inputs matrices.

    Parameters
    ----------
    table : pandas.DataFrame or mapping of str to 1-D array_like
        Columns ``system``, ``input`` and the score columns.
    scores : str or list of str
        Score columns to pivot (metrics and human scores alike).
    system, input : str
        Names of the system and input id columns.

    Returns
    -------
    ScoreMatrices
        Rows and columns in sorted label order; a (system, input) pair absent from the table
        is NaN (missing).

    Raises
    ------
    InvalidInputError
        A column is absent, or a (system, input) pair occurs more than once.

    Examples
    --------
    >>> from booteval.meta import score_matrices
    >>> t = {"sys": ["a", "a", "b", "b"], "doc": [1, 2, 1, 2],
    ...      "bleu": [0.3, 0.5, 0.2, 0.4], "human": [3.0, 4.0, 2.0, 5.0]}
    >>> m = score_matrices(t, ["bleu", "human"], system="sys", input="doc")
    >>> m.systems, m.inputs
    (('a', 'b'), (1, 2))
    >>> m["human"]
    array([[3., 4.],
           [2., 5.]])
    """
    names = [scores] if isinstance(scores, str) else list(scores)
    if not names:
        raise InvalidInputError("scores", "at least one score column name", "none")

    def col(name: str, param: str) -> np.ndarray:
        try:
            c = table[name]
        except (KeyError, IndexError, TypeError):
            raise InvalidInputError(param, "the name of a column of `table`", repr(name)) from None
        return np.asarray(c.to_numpy() if hasattr(c, "to_numpy") else c).reshape(-1)

    sys_col = col(system, "system")
    inp_col = col(input, "input")
    sys_labels, si = np.unique(sys_col, return_inverse=True)
    inp_labels, ii = np.unique(inp_col, return_inverse=True)
    si, ii = si.reshape(-1), ii.reshape(-1)
    n, m = sys_labels.size, inp_labels.size
    key = si.astype(np.int64) * m + ii
    uniq, counts = np.unique(key, return_counts=True)
    if (counts > 1).any():
        k = int(uniq[np.argmax(counts > 1)])
        raise InvalidInputError(
            "table",
            "at most one row per (system, input) pair",
            f"{int((counts > 1).sum())} repeated pair(s), e.g. "
            f"({sys_labels[k // m]!r}, {inp_labels[k % m]!r})",
            "Average repeated judgments first.",
        )
    mats = {}
    for name in names:
        vals = col(name, "scores")
        try:
            vals = vals.astype(np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError("scores", "numeric score columns", repr(name)) from None
        mat = np.full((n, m), np.nan)
        mat[si, ii] = vals
        mats[str(name)] = mat
    return ScoreMatrices(tuple(sys_labels.tolist()), tuple(inp_labels.tolist()), mats)


# ------------------------------------------------------------------------------ compare
def _standardize(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    vals = x[mask]
    sd = float(np.std(vals))
    return (x - float(np.mean(vals))) / (sd if sd > 0 else 1.0)


class _PairedPermutation:
    """Difference of two metrics' correlations after swapping their scores."""

    def __init__(
        self,
        xa: np.ndarray,
        xb: np.ndarray,
        z: np.ndarray,
        mask: np.ndarray,
        level: str,
        coefficient: str,
    ) -> None:
        self.level, self.coefficient = level, coefficient
        xa, xb = _standardize(xa, mask), _standardize(xb, mask)
        self.mask = mask
        if level == "system":
            sa = K.SystemLevel(xa, z, mask, coefficient)
            sb = K.SystemLevel(xb, z, mask, coefficient)
            self.xa, self.xb, self.z = sa.x, sb.x, sa.z
            self.d = np.where(mask, xb - xa, 0.0)
            self.dsum = self.d.sum(axis=1)
            self.cnt = mask.sum(axis=1).astype(np.float64)
            self.tol_x = max(sa.tol_x, sb.tol_x)
            self.tol_z = sa.tol_z
        elif level == "summary":
            self.ra = K.ColumnKernel(xa, z, mask, coefficient)(np.ones((1, xa.shape[0])))[0]
            self.rb = K.ColumnKernel(xb, z, mask, coefficient)(np.ones((1, xa.shape[0])))[0]
            self.args = (np.vstack([xa, xb]), np.vstack([z, z]), np.vstack([mask, mask]))
            self._kernel: K.ColumnKernel | None = None
        else:
            rows, cols = np.nonzero(mask)
            self.rows, self.cols = rows, cols
            xs = np.concatenate([xa[rows, cols], xb[rows, cols]])
            zs = np.concatenate([z[rows, cols], z[rows, cols]])
            self.cells = K.GlobalLevel(xs[None], zs[None], np.ones((1, xs.size), bool),
                                       coefficient)  # fmt: skip

    def __call__(self, s: np.ndarray | None, t: np.ndarray | None) -> np.ndarray:
        co = self.coefficient
        if self.level == "system":
            if t is None:
                sw = s > 0
                xa2 = np.where(sw, self.xb, self.xa)
                xb2 = np.where(sw, self.xa, self.xb)
            else:
                dt = t @ self.d.T
                inc = dt if s is None else (1.0 - 2.0 * s) * dt + s * self.dsum
                inc = inc / self.cnt
                xa2, xb2 = self.xa + inc, self.xb - inc
            ones = np.ones(xa2.shape)
            ra = K.corr_rows(xa2, self.z[None], ones, co, self.tol_x, self.tol_z)
            rb = K.corr_rows(xb2, self.z[None], ones, co, self.tol_x, self.tol_z)
            return ra - rb
        if self.level == "summary":
            if s is None:
                sw = t > 0
                r_a = np.where(sw, self.rb, self.ra)
                r_b = np.where(sw, self.ra, self.rb)
            else:
                if self._kernel is None:
                    self._kernel = K.ColumnKernel(*self.args, co)
                r0 = self._kernel(np.hstack([1.0 - s, s]))
                r1 = self._kernel(np.hstack([s, 1.0 - s]))
                if t is None:
                    r_a, r_b = r0, r1
                else:
                    sw = t > 0
                    r_a, r_b = np.where(sw, r1, r0), np.where(sw, r0, r1)
            return K.mean_over_inputs(r_a, None)[0] - K.mean_over_inputs(r_b, None)[0]
        # global: virtual cells (metric A's scores, then B's), one of each pair selected
        if s is None:
            c = t[:, self.cols]
        elif t is None:
            c = s[:, self.rows]
        else:
            a, b = s[:, self.rows], t[:, self.cols]
            c = a + b - 2.0 * a * b
        ra = self.cells(None, np.hstack([1.0 - c, c]))
        rb = self.cells(None, np.hstack([c, 1.0 - c]))
        return ra - rb


def _permutation_test(
    perm: _PairedPermutation,
    design: str,
    n_sys: int,
    n_inp: int,
    n_resamples: int,
    seed: int,
    alternative: str,
) -> tuple[float, float, bool, np.ndarray, int]:
    n_bits = {"systems": n_sys, "inputs": n_inp, "both": n_sys + n_inp}[design]
    use_s, use_t = design != "inputs", design != "systems"
    with np.errstate(all="ignore"):
        obs = float(
            perm(np.zeros((1, n_sys)) if use_s else None, np.zeros((1, n_inp)) if use_t else None)[
                0
            ]
        )
        exact = n_bits <= 62 and 2**n_bits <= n_resamples
        if exact:
            codes = np.arange(2**n_bits, dtype=np.int64)
            bits = ((codes[:, None] >> np.arange(n_bits)) & 1).astype(np.float64)
            s = bits[:, :n_sys] if use_s else None
            t = bits[:, n_sys if use_s else 0 :] if use_t else None
            vals = np.concatenate(
                [
                    perm(None if s is None else s[sl], None if t is None else t[sl])
                    for sl in K._chunks(bits.shape[0], 1 << 12)
                ]
            )
        else:
            size = K.block_size(n_sys, n_inp)
            vals = np.empty(n_resamples)
            for j in range(math.ceil(n_resamples / size)):
                s, t = K.permutation_block(seed, j, n_sys, n_inp)
                lo, hi = j * size, min((j + 1) * size, n_resamples)
                vals[lo:hi] = perm(s[: hi - lo] if use_s else None, t[: hi - lo] if use_t else None)
    ok = np.isfinite(vals)
    vals = vals[ok]
    n_undef = int((~ok).sum())
    if alternative == "two-sided":
        count = int(np.sum(np.abs(vals) >= abs(obs) - _P_TOL))
    elif alternative == "greater":
        count = int(np.sum(vals >= obs - _P_TOL))
    else:
        count = int(np.sum(vals <= obs + _P_TOL))
    p = count / vals.size if exact else (count + 1) / (vals.size + 1)
    return min(1.0, p), obs, exact, vals, n_undef


def _williams(r12: float, r13: float, r23: float, n: int, alternative: str) -> tuple[float, float]:
    """Williams' t for ``r12 - r13`` (correlations of 2 and 3 with 1; ``r23`` between them).

    ``t = (r12 - r13) sqrt((n - 1)(1 + r23) / (2 (n - 1)/(n - 3) |R| + rbar^2 (1 - r23)^3))``
    with ``|R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23`` and ``rbar = (r12 + r13) / 2``,
    on ``n - 3`` degrees of freedom (Steiger 1980, eq. 3; as R psych's ``r.test``).
    """
    det = 1.0 - r12 * r12 - r13 * r13 - r23 * r23 + 2.0 * r12 * r13 * r23
    rbar = 0.5 * (r12 + r13)
    den = 2.0 * (n - 1) / (n - 3) * det + rbar * rbar * (1.0 - r23) ** 3
    t = (r12 - r13) * math.sqrt((n - 1) * (1.0 + r23) / den) if den > 0 else math.nan
    if alternative == "two-sided":
        p = 2.0 * float(_stats.t.sf(abs(t), n - 3))
    elif alternative == "greater":
        p = float(_stats.t.sf(t, n - 3))
    else:
        p = float(_stats.t.cdf(t, n - 3))
    return t, min(1.0, p)


def compare_correlations(
    X_a: Any,
    X_b: Any,
    Z: Any,
    *,
    level: str = "system",
    coefficient: str = "pearson",
    resample: str = "both",
    permutation: str | None = "both",
    method: str = "percentile",
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | None = None,
    metrics: tuple[str, str] = ("a", "b"),
) -> CorrelationComparison:
    """Does metric A agree with the human scores better than metric B, on the same data?

    Three answers, each with a p-value:

    * **paired bootstrap** (``resample=``): both metrics' correlations on the same resampled
      systems and inputs; an interval for ``r_a - r_b`` and the test of ``d* - d`` against
      ``d``;
    * **permutation test** (``permutation=``): under the null hypothesis the two metrics are
      exchangeable, so their scores are swapped at random per system (Perm-Systems), per
      input (Perm-Inputs) or per system and input (Perm-Both; a cell is swapped when exactly
      one of its system and its input is). The scores are first standardized (z-scored over
      the scored cells) so that swapped values are on one scale; this leaves every
      correlation unchanged. When the ``2^k`` swap patterns number no more than
      ``n_resamples``, all are enumerated (an exact test);
    * **Williams' test** (system level only): the classic test for two dependent correlations
      that share a variable, from ``r_a``, ``r_b``, the correlation between the two metrics'
      system means and ``n`` = number of systems. It assumes normal data (and is derived for
      Pearson's r).

    Parameters
    ----------
    X_a, X_b, Z : array_like, shape (N, M)
        The two metrics' and the human scores; a cell is used when all three are present.
    level, coefficient : str
        As in :func:`correlate`.
    resample : {"both", "systems", "inputs"}
        Bootstrap design of the interval and of ``p_value_bootstrap``.
    permutation : {"both", "systems", "inputs"} or None
        Permutation design; ``None`` skips the permutation test.
    method : {"percentile", "basic", "normal", "bca"}
        Interval method for the difference.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A's correlation is larger than B's.
    confidence_level : float
    n_resamples : int
        Bootstrap replicates, and random swap patterns for the permutation test.
    seed : int, optional
    metrics : (str, str)
        Labels of the two metrics.

    Returns
    -------
    CorrelationComparison

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.meta import compare_correlations
    >>> rng = np.random.default_rng(3)
    >>> human = rng.normal(size=(10, 1)) + rng.normal(size=(10, 50))
    >>> good = human + rng.normal(size=(10, 50))
    >>> poor = human + 3 * rng.normal(size=(10, 50))
    >>> c = compare_correlations(good, poor, human, level="summary", n_resamples=2000, seed=0,
    ...                          metrics=("good", "poor"))
    >>> print(c)
    0.30 (0.18, 0.42)
    >>> c.p_value_bootstrap < 0.01, c.p_value_permutation < 0.01
    (True, True)
    """
    lv, co, me, lev = _common_iv(level, coefficient, method, confidence_level)
    if me == "fisher":
        raise InvalidInputError(
            "method", f"one of {', '.join(map(repr, BOOTSTRAP_METHODS))}", "'fisher'",
            "Compare correlations with the paired bootstrap, a permutation test or Williams' "
            "test (reported at the system level).",
        )  # fmt: skip
    resample = _choice(resample, "resample", RESAMPLE)
    if permutation is not None:
        permutation = _choice(permutation, "permutation", RESAMPLE)
    alternative = _choice(alternative, "alternative", ALTERNATIVES)
    b = check_n_resamples(n_resamples, lev)
    seed_int = check_seed(seed)
    xa = _as_matrix(X_a, "X_a")
    xb = _as_matrix(X_b, "X_b")
    if xa.shape != xb.shape:
        raise InvalidInputError("X_b", f"the same shape as `X_a` {xa.shape}", f"shape {xb.shape}")
    _matrices_iv(xb, Z, x_name="X_b")
    nan_b = np.where(np.isnan(xb), np.nan, 0.0)
    xa_, z_, mask = _matrices_iv(xa + nan_b, Z, x_name="X_a")
    xb_ = np.where(mask, xb, np.nan)
    xa_ = np.where(mask, xa_, np.nan)
    pa = _Problem(xa_, z_, mask, lv, co)
    pb = _Problem(xb_, z_, mask, lv, co)
    for p, name in ((pa, "X_a"), (pb, "X_b")):
        if not math.isfinite(p.estimate):
            raise InvalidInputError(
                name, f"scores on which the {lv}-level correlation is defined", "constant scores"
            )
    n_sys, n_inp = pa.n_systems, pa.n_inputs
    notes = list(pa.notes)
    diff = pa.estimate - pb.estimate

    def stat(v: Any, w: Any) -> np.ndarray:
        return pa.stat(v, w) - pb.stat(v, w)

    reps = _bootstrap([stat], resample, n_sys, n_inp, seed_int, b)[0]
    values, n_undef = _check_undefined(reps, "difference of the correlations")
    jack = _jackknife(stat, resample, n_sys, n_inp) if me == "bca" else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = compute_interval(me, diff, values, lev, jackknife=jack, bounds=(-2.0, 2.0))
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=2)
    notes.extend(out.notes)
    shifted = values - diff
    if alternative == "two-sided":
        count = int(np.sum(np.abs(shifted) >= abs(diff) - _P_TOL))
    elif alternative == "greater":
        count = int(np.sum(shifted >= diff - _P_TOL))
    else:
        count = int(np.sum(shifted <= diff + _P_TOL))
    p_boot = min(1.0, (count + 1) / (values.size + 1))

    p_perm = None
    exact = False
    perm_vals = None
    n_perm = 0
    if permutation is not None:
        perm = _PairedPermutation(pa.x, pb.x, pa.z, pa.mask, lv, co)
        p_perm, _, exact, perm_vals, n_perm_undef = _permutation_test(
            perm, permutation, n_sys, n_inp, b, seed_int, alternative
        )
        n_perm = int(perm_vals.size + n_perm_undef)
        if n_perm_undef:
            notes.append(f"{n_perm_undef} swap patterns gave an undefined difference (dropped)")
        perm_vals = freeze(perm_vals)

    p_will = t_will = r_ab = None
    if lv == "system":
        sa = pa.stat
        r_ab = float(
            K.corr_rows(sa.x[None], pb.stat.x[None], np.ones((1, n_sys)), co,
                        sa.tol_x, pb.stat.tol_x)[0]
        )  # fmt: skip
        if n_sys > 3 and math.isfinite(r_ab):
            t_will, p_will = _williams(pa.estimate, pb.estimate, r_ab, n_sys, alternative)
            if co != "pearson":
                notes.append(
                    f"Williams' test is derived for Pearson's r; with {co} it is an approximation"
                )
        else:
            notes.append("Williams' test needs more than 3 systems and distinct metrics")
    _, population = _population(resample, n_sys, n_inp)
    return CorrelationComparison(
        metric_a=str(metrics[0]),
        metric_b=str(metrics[1]),
        level=lv,
        coefficient=co,
        estimate_a=pa.estimate,
        estimate_b=pb.estimate,
        difference=diff,
        low=out.low,
        high=out.high,
        confidence_level=lev,
        method=me,
        resample=resample,
        population=population,
        alternative=alternative,
        p_value_bootstrap=p_boot,
        permutation=permutation,
        p_value_permutation=p_perm,
        permutation_exact=exact,
        n_permutations=n_perm,
        p_value_williams=p_will,
        williams_t=t_will,
        correlation_ab=r_ab,
        n_systems=n_sys,
        n_inputs=n_inp,
        n_resamples=b,
        n_undefined=n_undef,
        seed=seed_int,
        distribution=freeze(values),
        permutation_distribution=perm_vals,
        notes=tuple(notes),
    )


from ._meta_sim import simulate_correlation_coverage  # noqa: E402  (uses the helpers above)
