"""Shared machinery of :mod:`booteval.meta` (private): validation, the per-metric problem,
bootstrap replicates, the jackknife for BCa and the result builder."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..core.engine import run_engine
from ..core.errors import (
    BootevalError,
    InvalidInputError,
    UndefinedReplicateWarning,
    collect_warnings,
    warn,
)
from ..core.intervals import compute_interval, methods_offered
from ..core.validation import check_choice, check_confidence_level, to_numpy
from ..core.weights import WeightSource
from ..inference.analytic import fisher_z_interval
from ..results import LazyJackknife, freeze
from . import kernels as K
from .results import CorrelationResult

LEVELS: tuple[str, ...] = ("system", "summary", "global")
LEVEL_ALIASES = {"input": "summary"}
COEFFICIENTS: tuple[str, ...] = K.COEFFICIENTS
RESAMPLE: tuple[str, ...] = ("systems", "inputs", "both")
BOOTSTRAP_METHODS: tuple[str, ...] = methods_offered(standard_errors=False)
METHODS: tuple[str, ...] = (*BOOTSTRAP_METHODS, "fisher")
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")
UNDEFINED_WARN_FRACTION = 0.01
# permutation p-values: a replicate within this of the observed difference counts as "as
# extreme" (the identity swap reproduces the observed value up to rounding)
P_TOL = 1e-12
# a summary-level input needs at least this many judged systems
MIN_SYSTEMS = 3


# ------------------------------------------------------------------------------ validation
def as_matrix(a: object, name: str) -> np.ndarray:
    if a is None:
        raise InvalidInputError(name, "a 2-D array (systems x inputs)", "None")
    arr = to_numpy(a, name, "numeric scores (NaN for missing)", np.float64)
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


def matrices_iv(x: object, z: object, x_name: str = "X") -> tuple[np.ndarray, ...]:
    """Validate a metric and a human matrix; return ``x, z, mask``."""
    xa = as_matrix(x, x_name)
    za = as_matrix(z, "Z")
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


def common_iv(
    level: object, coefficient: object, method: object, confidence_level: object
) -> tuple[str, str, str, float]:
    lv = check_choice(level, "level", LEVELS, LEVEL_ALIASES)
    co = check_choice(coefficient, "coefficient", COEFFICIENTS)
    me = check_choice(method, "method", METHODS)
    return lv, co, me, check_confidence_level(confidence_level)


# ------------------------------------------------------------------------------- problems
class Problem:
    """One metric matrix against the human matrix at one level."""

    def __init__(
        self, x: np.ndarray, z: np.ndarray, mask: np.ndarray, level: str, coefficient: str
    ) -> None:
        self.notes: list[str] = []
        self.engine_label = ""  # ", numba engine" once the compiled engine ran its bootstrap
        self.n_missing = int(mask.size - mask.sum())
        if self.n_missing:
            self.notes.append(
                f"{self.n_missing} of {mask.size} cells lack a metric or a human score and were "
                "left out"
            )
        if level == "summary":
            keep = mask.sum(axis=0) >= MIN_SYSTEMS
            if not keep.all():
                self.notes.append(
                    f"{int((~keep).sum())} input(s) judged for fewer than {MIN_SYSTEMS} "
                    "systems were left out of the summary-level correlation"
                )
                if not keep.any():
                    raise InvalidInputError(
                        "X, Z",
                        f"at least one input with {MIN_SYSTEMS} or more scored systems",
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


def describe_design(resample: str | None, n_sys: int, n_inp: int) -> tuple[str, str]:
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


def weights(resample: str, v: np.ndarray, w: np.ndarray) -> tuple[Any, Any]:
    return (v if resample != "inputs" else None), (w if resample != "systems" else None)


class _CrossedSource(WeightSource):
    """The two-way crossed weight source of the meta-evaluation bootstrap, for the engine.

    ``unit_weights(seed, start, stop)`` are the counts of replicates ``start .. stop - 1``:
    how often each system was drawn, then how often each input was, side by side in one
    ``(stop - start, n_systems + n_inputs)`` block. They come from the fixed-size blocks
    of the ``meta.bootstrap`` stream (:func:`kernels.bootstrap_block`, systems first), so a
    replicate's counts do not depend on the batching, and Boot-Systems, Boot-Inputs and
    Boot-Both draw the same systems and inputs for the same seed.
    """

    clustered = False
    stream = "meta.bootstrap"

    def __init__(self, n_systems: int, n_inputs: int) -> None:
        self.n_systems, self.n_inputs = n_systems, n_inputs
        self.block_size = K.block_size(n_systems, n_inputs)

    def block(self, seed: int, j: int) -> np.ndarray:
        v, w = K.bootstrap_block(seed, j, self.n_systems, self.n_inputs)
        return np.hstack([v, w])


class _CrossedRun:
    """The engine's view of correlation statistics of the system and input weights.

    ``replicates`` splits a weight block into the system counts ``v`` and the input counts
    ``w``, keeps those the design resamples (:func:`weights`) and returns one column per
    statistic. The kernels sum every replicate on its own (:func:`kernels.row_products`),
    so its value does not depend on the batch or thread it is computed in.
    """

    design = None
    has_standard_error = False
    thread_safe = True

    def __init__(
        self, fns: list[Callable[[Any, Any], np.ndarray]], resample: str, n_systems: int
    ) -> None:
        self.fns, self.resample, self.n_systems = fns, resample, n_systems

    def estimate(self) -> np.ndarray:
        return np.zeros(len(self.fns))  # one value per statistic and replicate

    def replicates(self, counts: np.ndarray) -> np.ndarray:
        n = self.n_systems
        v = np.ascontiguousarray(counts[:, :n])
        w = np.ascontiguousarray(counts[:, n:])
        vv, ww = weights(self.resample, v, w)
        with np.errstate(all="ignore"):
            return np.column_stack([fn(vv, ww) for fn in self.fns])


def bootstrap(
    fns: list[Callable[[Any, Any], np.ndarray]], resample: str, n_sys: int, n_inp: int, seed: int,
    n_resamples: int, *, workers: int | None = 1, batch: int | None = None, engine: str = "numpy",
) -> tuple[np.ndarray, str, tuple[str, ...]]:  # fmt: skip
    """Replicates ``(len(fns), B)`` of statistics of the system and input weights, the
    engine that ran (``", numba engine"`` or ``""``) and any note on the engine.

    The compiled engine (:mod:`booteval.core.crossed_kernels`) runs where ``engine`` asks
    for it and every statistic is a correlation level (or a :class:`Difference` of two);
    otherwise the crossed weight source (:class:`_CrossedSource`) runs through the NumPy
    engine's loop. Either way :func:`booteval.core.engine.run_engine` drives it:
    batches on ``workers`` threads, progress per batch, the same replicates for any
    ``batch`` and ``workers``.
    """
    source = _CrossedSource(n_sys, n_inp)
    ran = run_engine(
        _CrossedRun(fns, resample, n_sys), source, n_resamples=n_resamples, seed=seed,
        engine=engine, batch=batch, workers=workers,
        kernel=lambda _: _crossed_runner(fns, resample),
    )  # fmt: skip
    return ran.values.reshape(n_resamples, len(fns)).T, ran.engine, ran.notes


class Difference:
    """The difference of two correlation levels on the same weights."""

    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b

    def __call__(self, v: Any, w: Any) -> np.ndarray:
        return self.a(v, w) - self.b(v, w)


def _crossed_runner(fns: list[Any], resample: str) -> Any:
    """One compiled runner of every statistic in ``fns``: values ``(batch, len(fns))``
    (each statistic's replicates draw the same systems and inputs)."""
    from ..core.crossed_kernels import crossed_runner

    runners = []
    for fn in fns:
        if isinstance(fn, Difference):
            runners.append((crossed_runner(fn.a, resample), crossed_runner(fn.b, resample)))
        else:
            runners.append((crossed_runner(fn, resample), None))

    def run(seed: int, start: int, stop: int, want_se: bool) -> tuple[np.ndarray, None]:
        out = np.empty((stop - start, len(runners)))
        for k, (first, second) in enumerate(runners):
            out[:, k] = first(seed, start, stop, False)[0]
            if second is not None:
                out[:, k] -= second(seed, start, stop, False)[0]
        return out, None

    run.has_standard_error = False  # type: ignore[attr-defined]
    return run


def jackknife_values(fn: Callable[[Any, Any], np.ndarray], resample: str, n_sys: int, n_inp: int):
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


def check_undefined(reps: np.ndarray, what: str, stacklevel: int = 4) -> tuple[np.ndarray, int]:
    ok = np.isfinite(reps)
    n_undef = int(reps.size - ok.sum())
    if n_undef == reps.size:
        raise BootevalError(
            f"the {what} was undefined on all {reps.size} replicates: no interval can be formed"
        )
    if n_undef > UNDEFINED_WARN_FRACTION * reps.size:
        warn(
            f"the {what} was undefined on {n_undef} of {reps.size} replicates (e.g. every "
            "drawn system with the same score); they were dropped, so the interval is "
            "conditional on the correlation being defined",
            UndefinedReplicateWarning,
            stacklevel=stacklevel,
        )
    return reps[ok], n_undef


def fisher(
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


def build_result(
    prob: Problem, method: str, level: float, resample: str | None, values: np.ndarray | None,
    n_resamples: int, n_undefined: int, seed: int | None, jack: Callable[[], np.ndarray] | None,
    metric: str, human: str,
) -> CorrelationResult:  # fmt: skip
    n, n_meaning = prob.fisher_n()
    notes = list(prob.notes)
    details: dict[str, Any] = {}
    if method == "fisher":
        resample_used = None
        low, high, se = fisher(prob.estimate, n, prob.coefficient, level, n_meaning)
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
        with collect_warnings() as caught:
            out = compute_interval(
                method,
                prob.estimate,
                values,
                level,
                jackknife=jack() if method == "bca" and jack is not None else None,
                bounds=(-1.0, 1.0),
            )
        for w in caught:
            warn(w.message, w.category, stacklevel=5)
        low, high, mc_lo, mc_hi = out.low, out.high, out.mcse_low, out.mcse_high
        se = float(np.std(values, ddof=1)) if values.size > 1 else 0.0
        notes.extend(out.notes)
        details.update(out.details)
    design, population = describe_design(resample_used, prob.n_systems, prob.n_inputs)
    if resample_used:
        design += prob.engine_label
    return CorrelationResult(
        estimate=prob.estimate, low=float(low), high=float(high), confidence_level=level,
        method=method, level=prob.level, coefficient=prob.coefficient, resample=resample_used,
        design=design, population=population, metric=metric, human=human, n_systems=prob.n_systems,
        n_inputs=prob.n_inputs, n=n, n_meaning=n_meaning, n_missing=prob.n_missing,
        n_inputs_undefined=prob.n_inputs_undefined, n_resamples=n_resamples if resample_used else 0,
        n_undefined=n_undefined if resample_used else 0, seed=seed if resample_used else None,
        standard_error=se, mcse_low=float(mc_lo), mcse_high=float(mc_hi),
        distribution=freeze(values) if resample_used else None, jackknife=None, notes=tuple(notes),
        details=details,
    )  # fmt: skip


def correlate_prepared(
    prob: Problem, method: str, level: float, resample: str | None, n_resamples: int, seed: int,
    metric: str, human: str, replicates: np.ndarray | None = None, workers: int | None = 1,
    engine: str = "numpy",
) -> CorrelationResult:  # fmt: skip
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
        if replicates is None:
            out, prob.engine_label, engine_notes = bootstrap(
                [prob.stat], resample, prob.n_systems, prob.n_inputs, seed, n_resamples,
                workers=workers, engine=engine,
            )  # fmt: skip
            replicates = out[0]
            prob.notes.extend(engine_notes)
        values, n_undef = check_undefined(replicates, f"{prob.level}-level correlation")
    jackknife = (
        LazyJackknife(partial(jackknife_values, prob.stat, resample, prob.n_systems, prob.n_inputs))
        if resample
        else None
    )
    rebuild = Rebuild(prob, resample, values, n_resamples, n_undef, seed, jackknife, metric, human)
    return rebuild(method, level)


class Rebuild:
    """A correlation result's recipe for ``with_method`` (module-level, so results pickle).

    Called with ``(method, level)``, it forms the interval from the stored replicates (or
    the Fisher interval) and returns the result with itself attached.
    """

    def __init__(
        self, prob: Problem, resample: str | None, values: np.ndarray | None, n_resamples: int,
        n_undefined: int, seed: int | None, jackknife: LazyJackknife | None, metric: str,
        human: str,
    ) -> None:  # fmt: skip
        self.prob, self.resample, self.values = prob, resample, values
        self.n_resamples, self.n_undefined, self.seed = n_resamples, n_undefined, seed
        self.jackknife, self.metric, self.human = jackknife, metric, human

    def __call__(self, method: str, level: float) -> CorrelationResult:
        method = check_choice(method, "method", METHODS)
        level = check_confidence_level(level)
        res = build_result(
            self.prob, method, level, self.resample, self.values, self.n_resamples,
            self.n_undefined, self.seed, self.jackknife, self.metric, self.human,
        )  # fmt: skip
        object.__setattr__(res, "_recompute", self)
        if method == "bca" and self.jackknife is not None:
            object.__setattr__(res, "jackknife", self.jackknife.value)
        return res
