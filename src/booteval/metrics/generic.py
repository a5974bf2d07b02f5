"""The generic (slow) path: any Python callable as a metric.

Each replicate expands its weights to row indices and calls the function on
the resampled rows, so the cost is one Python call per replicate (and one per
unit for the jackknife). Registry metrics never take this path; use it for
anything the registry does not cover.

If the function raises ``ValueError``, ``ZeroDivisionError`` or
``FloatingPointError`` on a replicate (scikit-learn's ``roc_auc_score`` with one
class, say), the replicate counts as undefined (NaN); any other exception
propagates. On the original data every exception propagates.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.design import Design
from ..core.errors import InvalidInputError
from ..core.validation import as_float_array, as_label_array, check_same_length, describe_value
from .base import Evaluator, Metric

__all__ = ["CallableMetric"]

_UNDEFINED_ERRORS = (ValueError, ZeroDivisionError, FloatingPointError)


class CallableMetric(Metric):
    """Wrap ``f(x) -> float`` or ``f(y_true, y_pred) -> float`` as a metric.

    Parameters
    ----------
    func : callable
        The metric. It receives NumPy arrays (resampled rows).
    n_inputs : {1, 2}
        How many arrays it takes.
    kwargs : dict, optional
        Extra keyword arguments passed on every call (e.g. ``average="macro"``).
    name : str, optional
        Display name (defaults to the function's name).
    bounds : (float, float), optional
        Range of the metric, to clip interval endpoints.

    Examples
    --------
    >>> m = CallableMetric(np.median, n_inputs=1)
    >>> m([1.0, 5.0, 2.0])
    2.0
    """

    vectorized = False

    def __init__(
        self,
        func: Callable[..., Any],
        n_inputs: int = 1,
        *,
        kwargs: dict[str, Any] | None = None,
        name: str | None = None,
        bounds: tuple[float, float] | None = None,
    ) -> None:
        super().__init__(**(kwargs or {}))
        self.func = func
        #: the extra keyword arguments: the metric's parameters, which its label shows
        self.kwargs = self.params
        self._name = name or getattr(func, "__name__", type(func).__name__)
        self.input_names = ("scores",) if n_inputs == 1 else ("y_true", "y_pred")
        self.bounds = bounds

    @property
    def name(self) -> str:  # type: ignore[override]
        return self._name

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        if len(arrays) == 1:
            return (as_float_array(arrays[0], "scores", ndim=(1, 2)),)
        y_true = as_label_array(arrays[0], "y_true")
        raw = np.asarray(arrays[1].to_numpy() if hasattr(arrays[1], "to_numpy") else arrays[1])
        y_pred = (
            as_float_array(raw, "y_pred", ndim=(1, 2))
            if raw.dtype.kind in "fc"
            else as_label_array(raw, "y_pred")
        )
        check_same_length({"y_true": y_true, "y_pred": y_pred})
        return y_true, y_pred

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        return _CallableEvaluator(self, arrays, design)


def accepts_n_args(func: Callable[..., Any]) -> set[int]:
    """Which positional argument counts (1 and/or 2) ``func`` accepts."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return {1, 2}
    out = set()
    for k in (1, 2):
        try:
            sig.bind(*([None] * k))
            out.add(k)
        except TypeError:
            pass
    return out


class _CallableEvaluator(Evaluator):
    # user functions may keep state; run them on one thread
    thread_safe = False

    def __init__(self, metric: CallableMetric, arrays: tuple[np.ndarray, ...], design: Design):
        super().__init__(design.n_rows, design.n_units)
        self.metric = metric
        self.arrays = arrays
        self.design = design
        self.first_error: str | None = None

    def _call(self, idx: np.ndarray) -> float:
        args = [a[idx] for a in self.arrays]
        try:
            value = self.metric.func(*args, **self.metric.kwargs)
        except _UNDEFINED_ERRORS as exc:
            if self.first_error is None:
                self.first_error = f"{type(exc).__name__}: {exc}"
            return math.nan
        return self._number(value)

    def _number(self, value: object) -> float:
        """The callable's value as a float; anything but one real number is an error."""
        if isinstance(value, bool | np.bool_) or not (
            isinstance(value, numbers.Real) or (isinstance(value, np.ndarray) and value.size == 1)
        ):
            got = (
                f"an array of shape {value.shape}"
                if isinstance(value, np.ndarray)
                else f"{type(value).__name__} {describe_value(value)}"
            )
            raise InvalidInputError(
                "metric",
                "a callable that returns one number",
                f"{self.metric.label} returned {got}",
                "A metric maps the rows to a single value; reduce per-row values first, "
                "e.g. return float(np.mean(...)).",
            )
        return (
            float(np.asarray(value).reshape(-1)[0])
            if isinstance(value, np.ndarray)
            else float(value)
        )

    def estimate(self) -> float:
        """The metric on the original rows; a call the callable refuses (its arguments,
        ``metric_kwargs``) is reported naming the metric, the call and its error."""
        try:
            value = self.metric.func(*self.arrays, **self.metric.kwargs)
        except TypeError as exc:
            call = ", ".join(
                [*self.metric.input_names[: len(self.arrays)],
                 *(f"{k}=..." for k in self.metric.kwargs)]
            )  # fmt: skip
            raise InvalidInputError(
                "metric",
                f"a callable that accepts {self.metric.name}({call})",
                f"TypeError: {exc}",
                "A callable metric takes the data arrays (one, or y_true and y_pred) and "
                "the metric_kwargs as keyword arguments.",
            ) from None
        return self._number(value)

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        w = self.design.row_weights(unit_weights).astype(np.int64)
        rows = np.arange(self.n_rows)
        return np.array([self._call(np.repeat(rows, wb)) for wb in w])

    def jackknife(self) -> np.ndarray:
        units = self.design.unit_of_row
        order = np.argsort(units, kind="stable")
        starts = np.searchsorted(units[order], np.arange(self.n_units + 1))
        out = np.empty(self.n_units)
        for u in range(self.n_units):
            keep = np.concatenate([order[: starts[u]], order[starts[u + 1] :]])
            out[u] = self._call(np.sort(keep))
        return out
