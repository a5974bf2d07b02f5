"""The threshold bootstrap's run: the problem, the two-level weight source, the engine adapter."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.design import Design, make_design
from ..core.engine import NO_KERNEL, run_engine, screen_undefined
from ..core.errors import CaughtWarning, InvalidInputError, warn
from ..core.intervals import STUDENTIZED, compute_interval
from ..core.validation import (
    as_float_array,
    check_same_length,
    describe_value,
)
from ..core.weights import WeightSource
from .threshold_fit import (
    CountMetric,
    _counts_at,
    _derived_seed,
    _fit_callable,
    _fit_vectorized,
    _resolve_metric,
    _resolve_rule,
    _Rule,
    _Sorted,
    _test_labels,
    _TestSet,
    _threshold_value,
    _validation_labels,
)


# ------------------------------------------------------------------- engine
@dataclass
class _Problem:
    """Validated inputs of a (possibly paired) threshold bootstrap: K systems, shared labels."""

    rule: _Rule
    target: float | None
    metric_name: str
    metric_fn: CountMetric
    bounds: tuple[float, float] | None
    refit: bool
    val: list[_Sorted]
    test: list[_TestSet]
    design_val: Design
    design_test: Design
    reason: str | None = None
    compiled: bool = False  # whether the compiled kernel ran the replicates

    @property
    def label(self) -> str:
        how = "refit per resample" if self.refit else "fitted once"
        return f"{self.metric_name} (threshold: {self.rule.label(self.target)}, {how})"

    def describe_design(self) -> str:
        engine = ", numba engine" if self.compiled else ""
        if self.refit:
            return (
                f"two-level bootstrap: validation {self.design_val.describe()}, "
                f"test {self.design_test.describe()}{engine}"
            )
        return (
            f"single-level bootstrap of the test set: {self.design_test.describe()} "
            f"(threshold fitted once on {self.design_val.n_rows} validation rows){engine}"
        )

    def fit(self, k: int, w: np.ndarray) -> np.ndarray:
        if self.rule.call is not None:
            t, reason = _fit_callable(self.rule, self.val[k], w)
            self.reason = self.reason or reason
            return t
        return _fit_vectorized(self.rule, self.target, self.val[k], w)

    def score(self, k: int, w: np.ndarray, t: np.ndarray) -> np.ndarray:
        v = np.asarray(self.metric_fn(*_counts_at(self.test[k], w, t)), dtype=float)
        return np.where(np.isnan(t), np.nan, v)

    # ---------------------------------------------------------- estimates
    def estimates(self) -> tuple[np.ndarray, np.ndarray]:
        if self.rule.call is not None:  # errors on the full data propagate
            t_hat = np.array(
                [
                    _threshold_value(
                        self.rule,
                        self.rule.call(v.pos.astype(np.int64), v.scores, np.ones(v.scores.size)),
                    )
                    for v in self.val
                ]
            )
        else:
            t_hat = np.array([self.fit(k, np.ones((1, v.scores.size)))[0]
                              for k, v in enumerate(self.val)])  # fmt: skip
        est = np.array(
            [self.score(k, np.ones((1, t.scores.size)), t_hat[k : k + 1])[0]
             for k, t in enumerate(self.test)]
        )  # fmt: skip
        return est, t_hat

    # -------------------------------------------------------- replicates
    def replicates(
        self, seed: int, n_resamples: int, batch: int, t_hat: np.ndarray, engine: str = "numpy",
        workers: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:  # fmt: skip
        """Test-set metric and threshold of every system in every replicate, through the
        engine's loop over the two-level (validation, test) weight source, and the engine's
        notes (``()`` where the compiled kernel ran: a named rule, engine not ``"numpy"``).

        ``workers`` threads run a named rule (compiled, or booteval's own NumPy code); a
        user's callable rule, which need not be thread-safe, runs on one."""
        n_sys = len(self.val)
        source = _TwoSetSource(self.design_val, self.design_test, self.refit, batch)
        named = self.rule.call is None  # a user's rule runs in Python, on the NumPy engine
        ran = run_engine(
            _ThresholdRun(self, t_hat), source, n_resamples=n_resamples, seed=seed,
            engine=engine, batch=batch, workers=workers if named else 1,
            kernel=(lambda _: self._compiled(t_hat)) if named else NO_KERNEL,
        )  # fmt: skip
        self.compiled = bool(ran.engine)
        pairs = ran.values
        return pairs[:, :n_sys], pairs[:, n_sys:], ran.notes

    def _compiled(self, t_hat: np.ndarray) -> Any:
        from ..core.threshold_kernels import threshold_runner

        def values_of(t: np.ndarray, counts: np.ndarray) -> np.ndarray:
            out = np.empty((t.shape[0], 2 * t.shape[1]))
            out[:, t.shape[1] :] = t
            with np.errstate(divide="ignore", invalid="ignore"):
                for k in range(t.shape[1]):
                    v = np.asarray(self.metric_fn(*counts[:, k].T), dtype=float)
                    out[:, k] = np.where(np.isnan(t[:, k]), np.nan, v)
            return out

        return threshold_runner(
            self.rule.name, self.target, self.design_val, self.val, self.design_test,
            self.test[0].pos, [t.scores for t in self.test], None if self.refit else t_hat,
            values_of,
        )  # fmt: skip

    def replicate_pairs(self, weights: np.ndarray, t_hat: np.ndarray) -> np.ndarray:
        """``(values | thresholds)`` of a batch of two-level weights, shape ``(batch, 2K)``."""
        n_sys, n_val = len(self.val), self.design_val.n_rows
        w_val = weights[:, :n_val] if self.refit else None
        w_test = weights[:, n_val:]
        out = np.empty((weights.shape[0], 2 * n_sys))
        for k in range(n_sys):
            t = self.fit(k, w_val) if w_val is not None else np.full(weights.shape[0], t_hat[k])
            out[:, n_sys + k] = t
            out[:, k] = self.score(k, w_test, t)
        return out

    # ---------------------------------------------------------- jackknife
    def jackknife(self, t_hat: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """Leave-one-unit-out values: validation units (refit) and test units (fixed t_hat).

        Returns ``(val, test)`` with shapes ``(n_val_units, K)`` (None without refit)
        and ``(n_test_units, K)``.
        """
        n_sys = len(self.val)
        val_part = None
        if self.refit:
            dv = self.design_val
            if dv.clustered:
                units = np.arange(dv.n_units)
                inverse = units
            else:
                # rows with equal scores under every system and equal labels are interchangeable
                keys = np.column_stack([self.val[0].pos] + [v.scores for v in self.val])
                _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
                units = first
                inverse = inverse.reshape(-1)
            reps = np.empty((units.size, n_sys))
            step = max(1, (1 << 20) // max(dv.n_rows, 1))
            full_test = [np.ones((1, t.scores.size)) for t in self.test]
            for lo in range(0, units.size, step):
                u = units[lo : lo + step]
                uw = np.ones((u.size, dv.n_units))
                uw[np.arange(u.size), u] = 0.0
                w = dv.row_weights(uw)
                for k in range(n_sys):
                    reps[lo : lo + u.size, k] = self.score(k, full_test[k], self.fit(k, w))
            val_part = reps[inverse]
        dt = self.design_test
        test_part = np.empty((dt.n_units, n_sys))
        for k in range(n_sys):
            srt = self.test[k]
            pred = srt.scores >= t_hat[k]
            cells = [pred & srt.pos, pred & ~srt.pos, ~pred & srt.pos, ~pred & ~srt.pos]
            totals = [float(c.sum()) for c in cells]
            per_unit = [
                np.bincount(dt.unit_of_row, weights=c.astype(float), minlength=dt.n_units)
                for c in cells
            ]
            test_part[:, k] = self.metric_fn(
                *(tot - pu for tot, pu in zip(totals, per_unit, strict=True))
            )
        return val_part, test_part


def _pooled_jackknife(val: np.ndarray | None, test: np.ndarray) -> np.ndarray:
    """Two-sample jackknife values for BCa's acceleration.

    Each sample's leave-one-out values are centred on their own mean and scaled by
    ``(m - 1) / m`` (``m`` its number of units), so that the one-sample formula
    ``a = sum(d^3) / (6 sum(d^2)^1.5)`` applied to the pooled values gives the
    multi-sample acceleration.
    """
    parts = []
    for part in (val, test):
        if part is None:
            continue
        finite = part[np.isfinite(part)]
        if finite.size == 0:
            continue
        m = part.size
        parts.append((part - finite.mean()) * (m - 1) / m)
    return np.concatenate(parts) if parts else np.zeros(1)


@dataclass
class _Run:
    problem: _Problem
    opts: Any
    estimates: np.ndarray
    t_hat: np.ndarray
    values: np.ndarray
    thresholds: np.ndarray
    defined: np.ndarray
    n_undefined: int
    notes: tuple[str, ...] = ()  # the engine's


def _setup(
    rule: object, target: object, metric: object, refit: object, y_val: Any,
    s_vals: list[tuple[str, Any]], y_test: Any, s_tests: list[tuple[str, Any]], pos_label: Any,
    strata_val: Any, clusters_val: Any, strata_test: Any, clusters_test: Any,
) -> _Problem:  # fmt: skip
    r, tgt = _resolve_rule(rule, target)
    name, fn, bounds = _resolve_metric(metric, r)
    if not isinstance(refit, bool | np.bool_):
        raise InvalidInputError("refit", "True or False", describe_value(refit))
    pos_val, classes = _validation_labels(y_val, pos_label)
    pos_test = _test_labels(y_test, classes, pos_label)
    vals = [as_float_array(s, nm) for nm, s in s_vals]
    tests = [as_float_array(s, nm) for nm, s in s_tests]
    n_val = check_same_length(
        {"y_val": pos_val, **{nm: v for (nm, _), v in zip(s_vals, vals, strict=True)}}
    )
    n_test = check_same_length(
        {"y_test": pos_test, **{nm: v for (nm, _), v in zip(s_tests, tests, strict=True)}}
    )
    return _Problem(
        rule=r, target=tgt, metric_name=name, metric_fn=fn, bounds=bounds, refit=bool(refit),
        val=[_Sorted.build(pos_val, v) for v in vals],
        test=[_TestSet.build(pos_test, t) for t in tests],
        design_val=make_design(n_val, strata=strata_val, clusters=clusters_val),
        design_test=make_design(n_test, strata=strata_test, clusters=clusters_test),
    )  # fmt: skip


class _TwoSetSource(WeightSource):
    """The two-level weight source of a threshold bootstrap: validation rows (when the
    threshold is refitted) then test rows, side by side, each set drawn by its own design
    from the ``threshold`` stream (keys 0 and 1), independent of the batching."""

    clustered = False
    stream = "threshold"

    def __init__(self, design_val: Any, design_test: Any, refit: bool, block_size: int) -> None:
        self.dv, self.dt, self.refit, self.block_size = design_val, design_test, refit, block_size

    def unit_weights(self, seed: int, start: int, stop: int) -> np.ndarray:
        dt = self.dt
        w_test = dt.row_weights(dt.unit_weights(_derived_seed(seed, 1), start, stop))
        if self.refit:
            dv = self.dv
            w_val = dv.row_weights(dv.unit_weights(_derived_seed(seed, 0), start, stop))
        else:  # the validation set is not resampled: the threshold stays fitted
            w_val = np.ones((stop - start, self.dv.n_rows))
        return np.hstack([w_val, w_test])


class _ThresholdRun:
    """The engine's view of a threshold bootstrap (rules may be user callables: one
    thread)."""

    design = None
    has_standard_error = False
    thread_safe = False

    def __init__(self, problem: _Problem, t_hat: np.ndarray) -> None:
        self._problem, self._t_hat = problem, t_hat

    def estimate(self) -> np.ndarray:
        return np.zeros(2 * len(self._problem.val))

    def replicates(self, weights: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self._problem.replicate_pairs(weights, self._t_hat)


def _run(problem: _Problem, opts: Any, names: list[str], engine: str = "numpy") -> _Run:
    """The threshold bootstrap of ``problem`` with the run options ``opts``."""
    if opts.method in STUDENTIZED:
        raise InvalidInputError(
            "method",
            "one of 'percentile', 'basic', 'normal', 'bca' for a threshold bootstrap",
            repr(opts.method),
            "A refitted threshold has no standard error formula.",
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        est, t_hat = problem.estimates()
    for k, name in enumerate(names):
        if math.isnan(t_hat[k]):
            raise InvalidInputError(
                "target" if problem.rule.needs_target else "rule",
                f"a rule that is defined on the full validation set ({name})",
                f"rule {problem.rule.label(problem.target)!r} found no threshold"
                + (": no threshold meets the target" if problem.rule.needs_target else ""),
            )
        if not math.isfinite(est[k]):
            raise InvalidInputError(
                "y_test",
                f"test data on which {problem.metric_name!r} is defined at the fitted threshold "
                f"{t_hat[k]:g} ({name})",
                f"a metric value of {est[k]}",
            )
    n_max = max(problem.design_val.n_rows, problem.design_test.n_rows, 1)
    batch = opts.batch or max(1, min(opts.n_resamples, (1 << 20) // n_max))
    with np.errstate(divide="ignore", invalid="ignore"):
        values, thresholds, notes = problem.replicates(
            opts.seed, opts.n_resamples, batch, t_hat, engine, opts.workers
        )
    defined = np.isfinite(values).all(axis=1) & ~np.isnan(thresholds).any(axis=1)
    n_undefined = screen_undefined(
        defined, f"{problem.label}", opts.on_undefined, reason=problem.reason,
        hint=" A replicate is undefined when its validation resample has one class or no "
        "threshold meeting the target, or when the test metric's denominator is zero; with a "
        "small validation set, strata_val=y_val keeps both classes in every resample.",
    )  # fmt: skip
    return _Run(problem, opts, est, t_hat, values, thresholds, defined, n_undefined, notes)


def _interval(
    method: str, estimate: float, reps: np.ndarray, level: float, jackknife: np.ndarray | None,
    bounds: tuple[float, float] | None, ties: str, warn: bool = True,
) -> Any:  # fmt: skip
    return compute_interval(
        method, estimate, reps, level, jackknife=jackknife, bounds=bounds, ties=ties, warn=warn
    )


def _reemit(caught: list[CaughtWarning], stacklevel: int) -> None:
    """Warn again what was caught, attributed ``stacklevel`` frames up from the caller."""
    for w in caught:
        warn(w.message, w.category, stacklevel=stacklevel + 1)
