"""Means of per-row scores and regression metrics.

:func:`ratio_evaluator` serves every metric of the form ``sum(w a) / sum(w b)``
(a mean, a proportion, a mean loss). It also provides the linearized standard
error ``sqrt(sum_u c_u (a_u - R b_u)^2) / sum_u c_u b_u`` over resampling units
``u`` (rows, or clusters, which makes it the cluster-robust standard error),
used by the studentized interval. Under strata it is not centred within strata,
so it is slightly conservative there; the studentized interval only needs a
consistent scale, and uses the same formula on the data and on every replicate.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..core.codes import dense_codes
from ..core.design import Design
from ..core.validation import as_float_array, check_same_length
from .base import Evaluator, Metric, SumEvaluator, safe_divide
from .linearize import ratio_gradient

__all__ = ["MAE", "MSE", "R2", "RMSE", "Mean", "ratio_evaluator"]


def _ratio(sums: np.ndarray) -> np.ndarray:
    return safe_divide(sums[:, 0], sums[:, 1], np.nan)


def _ratio_se(sums: np.ndarray) -> np.ndarray:
    # columns: A, B, A_u^2, A_u B_u, B_u^2 (the last three summed over units)
    r = _ratio(sums)
    var = sums[:, 2] - 2.0 * r * sums[:, 3] + r * r * sums[:, 4]
    return safe_divide(np.sqrt(np.maximum(var, 0.0)), sums[:, 1], np.nan)


def _ratio_extra(unit: np.ndarray) -> np.ndarray:
    a, b = unit[:, 0], unit[:, 1]
    return np.column_stack([a * a, a * b, b * b])


def _value_keys(*columns: np.ndarray) -> np.ndarray | None:
    """Integer keys of the distinct value tuples, when there are few of them."""
    n = columns[0].size
    codes = []
    for c in columns:
        if c.dtype == bool:  # the codes of False and True (of True alone: 0), directly
            ones = int(np.count_nonzero(c))
            size = int(ones > 0) + int(ones < n)
            inv = c.view(np.int8) if size == 2 else np.zeros(n, dtype=np.int8)
        else:
            uniq, inv = dense_codes(c)
            size = uniq.size
        if size * 4 > n:
            return None
        codes.append((inv, size))
    if len(codes) == 1:
        return codes[0][0]
    key = np.zeros(n, dtype=np.int64)
    for inv, k in codes:
        key = key * k + inv
    return key


def ratio_evaluator(a: np.ndarray, b: np.ndarray | None, design: Design) -> Evaluator:
    """Evaluator of ``sum(w a) / sum(w b)`` (``b`` defaults to ones: a mean).

    Examples
    --------
    >>> from booteval.design import make_design
    >>> ev = ratio_evaluator(np.array([1.0, 2.0, 6.0]), None, make_design(3))
    >>> ev.estimate(), ev.replicates(np.array([[3.0, 0.0, 0.0]])).tolist()
    (3.0, [1.0])
    """
    a = np.asarray(a)
    if b is None:  # a mean: the keys of the values alone
        keys = _value_keys(a)  # before the conversion: 0/1 hits as booleans are quicker
        a = np.asarray(a, dtype=float)
        b = np.ones_like(a)
        count = a.size
    else:
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        count = round(float(b.sum()))
        keys = _value_keys(a, b)
    stats = np.column_stack([a, b])
    return SumEvaluator(
        stats,
        design,
        _ratio,
        count=count,
        se_from_sums=_ratio_se,
        unit_extra=_ratio_extra,
        gradient=ratio_gradient,
        keys=keys,
    )


class Mean(Metric):
    """Mean of per-row scores (e.g. per-sentence BLEU, per-question correctness).

    Has an analytic (cluster-robust when clustered) standard error, used by the
    studentized interval.

    Examples
    --------
    >>> Mean()([1.0, 2.0, 6.0])
    3.0
    """

    name = "mean"
    input_names: ClassVar[tuple[str, ...]] = ("scores",)
    row_local: ClassVar[bool] = True
    auto_family: ClassVar[str] = "mean"

    def row_scores(self, *arrays: np.ndarray) -> np.ndarray:
        return np.asarray(arrays[0], dtype=float)

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        return (as_float_array(arrays[0], "scores"),)

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        x = arrays[0]
        if np.all((x == 0) | (x == 1)):
            return ratio_evaluator(x, None, design)
        # shift by the data mean: sums of squares stay well conditioned
        shift = float(np.mean(x))
        ev = ratio_evaluator(x - shift, None, design)
        return ShiftedEvaluator(ev, shift)

    def bind_rows(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        return ratio_evaluator(arrays[0], None, design)  # unshifted: no data mean


class ShiftedEvaluator(Evaluator):
    """Adds a constant back to a ratio evaluator of shifted scores."""

    #: declares ``inner`` and ``shift`` to the compiled kernels (:mod:`booteval.core.kernel_plan`)
    kernel = "shifted"

    def __init__(self, inner: Evaluator, shift: float) -> None:
        super().__init__(inner.n_rows, inner.n_units, inner.count)
        self.inner = inner
        self.shift = shift
        self.design = inner.design
        self.keys = inner.keys
        self.has_standard_error = inner.has_standard_error
        # a shift moves the metric, not its derivatives: a difference of two shifted means
        # linearizes as the inner ones do
        self.gradient = getattr(inner, "gradient", None)

    @property
    def strata_units(self) -> tuple[np.ndarray, ...]:
        """The inner evaluator's units per stratum (for a linearized standard error)."""
        return self.inner.strata_units  # type: ignore[attr-defined]

    def linear_terms(self, unit_weights: np.ndarray) -> tuple[object, np.ndarray]:
        """The inner evaluator's unit statistics and gradients (the shift has none)."""
        return self.inner.linear_terms(unit_weights)  # type: ignore[attr-defined]

    def with_design(self, design: Design) -> Evaluator | None:
        inner = self.inner.with_design(design)
        return None if inner is None else ShiftedEvaluator(inner, self.shift)

    def alone(self) -> Evaluator:
        inner = self.inner.alone()
        return self if inner is self.inner else ShiftedEvaluator(inner, self.shift)

    def estimate(self) -> float:
        return self.inner.estimate() + self.shift

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        return self.inner.replicates(unit_weights) + self.shift

    def jackknife(self) -> np.ndarray:
        return self.inner.jackknife() + self.shift

    def standard_errors(self, unit_weights: np.ndarray) -> np.ndarray:
        return self.inner.standard_errors(unit_weights)


class _RegressionMetric(Metric):
    input_names: ClassVar[tuple[str, ...]] = ("y_true", "y_pred")
    greater_is_better = False
    row_local: ClassVar[bool] = True

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        y_true = as_float_array(arrays[0], "y_true")
        y_pred = as_float_array(arrays[1], "y_pred")
        check_same_length({"y_true": y_true, "y_pred": y_pred})
        return y_true, y_pred


class MAE(_RegressionMetric):
    """Mean absolute error.

    Examples
    --------
    >>> MAE()([1.0, 2.0, 3.0], [1.0, 3.0, 1.0])
    1.0
    """

    name = "mae"
    auto_family: ClassVar[str] = "mean"
    bounds = (0.0, np.inf)

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        return Mean().bind((np.abs(arrays[0] - arrays[1]),), design)

    def bind_rows(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        return Mean().bind_rows((np.abs(arrays[0] - arrays[1]),), design)


class MSE(_RegressionMetric):
    """Mean squared error.

    Examples
    --------
    >>> round(MSE()([1.0, 2.0, 3.0], [1.0, 3.0, 1.0]), 6)
    1.666667
    """

    name = "mse"
    auto_family: ClassVar[str] = "mean"
    bounds = (0.0, np.inf)

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        e = arrays[0] - arrays[1]
        return Mean().bind((e * e,), design)

    def bind_rows(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        e = arrays[0] - arrays[1]
        return Mean().bind_rows((e * e,), design)


class RMSE(_RegressionMetric):
    """Root mean squared error.

    Examples
    --------
    >>> round(RMSE()([0.0, 0.0], [3.0, 4.0]) ** 2, 6)
    12.5
    """

    name = "rmse"
    bounds = (0.0, np.inf)

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        e = arrays[0] - arrays[1]
        stats = np.column_stack([e * e, np.ones_like(e)])
        return SumEvaluator(stats, design, lambda s: np.sqrt(_ratio(s)))


class R2(_RegressionMetric):
    """Coefficient of determination, ``1 - SSE / SST`` (undefined when ``y_true`` is constant).

    Examples
    --------
    >>> R2()([1.0, 2.0, 3.0], [1.0, 2.0, 4.0])
    0.5
    """

    name = "r2"
    greater_is_better = True
    bounds = (-np.inf, 1.0)

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        return self._bind(arrays, design, float(np.mean(arrays[0])))

    def bind_rows(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        return self._bind(arrays, design, 0.0)  # uncentered: no data mean

    def _bind(self, arrays: tuple[np.ndarray, ...], design: Design, centre: float) -> Evaluator:
        y, p = arrays
        yc = y - centre
        e = y - p
        stats = np.column_stack([np.ones_like(y), yc, yc * yc, e * e])

        def from_sums(s: np.ndarray) -> np.ndarray:
            sst = s[:, 2] - safe_divide(s[:, 1] * s[:, 1], s[:, 0], np.nan)
            # a constant y_true in the replicate makes SST zero up to rounding
            sst = np.where(sst <= 1e-12 * np.maximum(s[:, 2], 1e-300), 0.0, sst)
            return 1.0 - safe_divide(s[:, 3], sst, np.nan)

        return SumEvaluator(stats, design, from_sums)


METRICS: dict[str, type[Metric]] = {
    "mean": Mean,
    "mae": MAE,
    "mse": MSE,
    "rmse": RMSE,
    "r2": R2,
}
