"""Several systems scored on the same rows, resampled with the same weights.

:func:`align` binds every system's evaluator to one shared design, so that
replicate ``b`` reweights the same rows (or clusters) for all of them: the
pairing that makes a difference's interval narrower than two separate ones.
When all evaluators are count-based and the design is not clustered, the rows
are compressed into the cells of the *joint* keys (e.g. (label, prediction of
A, prediction of B)), which keeps the paired resampling exact and its cost
independent of ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..metrics.base import COMPRESS_RATIO, Evaluator, Metric
from .codes import dense_codes
from .design import Design
from .errors import InvalidInputError

__all__ = [
    "StackedEvaluator",
    "align",
    "check_defined",
    "pair_inputs",
    "paired_arrays",
    "split_systems",
    "validate_system",
]

#: what a paired entry point's positional data must hold
SYSTEMS = "two systems' outputs (scores_a, scores_b or y_true, pred_a, pred_b)"


def pair_inputs(
    data: tuple[Any, ...], names: object, metric: Any, metric_kwargs: Any, what: str = SYSTEMS
) -> tuple[str, str, Metric]:
    """The two names and the metric of a paired call on ``data`` (at least two arrays)."""
    from ..metrics import resolve_metric
    from .validation import check_names

    if len(data) < 2:
        raise InvalidInputError("data", what, f"{len(data)} array(s)")
    name_a, name_b = check_names(names)
    return name_a, name_b, resolve_metric(metric, metric_kwargs, len(data) - 1)


def align(evaluators: Sequence[Evaluator], design: Design) -> list[Evaluator]:
    """Rebind evaluators to one common design (jointly compressed where possible).

    Parameters
    ----------
    evaluators : sequence of Evaluator
        Each bound to ``design`` (they may have compressed it on their own).
    design : Design
        The row-level design they were bound to.

    Returns
    -------
    list of Evaluator
        All with the same ``design`` attribute.
    """
    evs = list(evaluators)
    keys = [ev.keys for ev in evs]
    if not design.clustered and all(k is not None for k in keys):
        cells = design.compress(_joint_keys(keys, design.n_rows))
        if cells.n_units * COMPRESS_RATIO <= design.n_units:
            rebound = [ev.with_design(cells) for ev in evs]
            if all(r is not None for r in rebound):
                return rebound  # type: ignore[return-value]
    out = []
    for ev in evs:
        if ev.design is None or ev.design is design:
            out.append(ev)
            continue
        rebound_one = ev.with_design(design)
        if rebound_one is None:  # pragma: no cover - every compressing evaluator rebinds
            raise TypeError(f"{type(ev).__name__} cannot be resampled on a shared design")
        out.append(rebound_one)
    return out


def _joint_keys(keys: Sequence[np.ndarray], n: int) -> np.ndarray:
    """One key per row for the tuple of ``keys``, ordered as the tuples are.

    Keys of small ranges (the dense codes of the sum metrics) combine in one pass each;
    where the combined range would grow past a few times ``n``, the codes are made dense
    again after each key.
    """
    joint = np.zeros(n, dtype=np.int64)
    span = 1
    for k in keys:
        lo, hi = int(k.min(initial=0)), int(k.max(initial=0))
        if span * (hi - lo + 1) > 4 * n + 2**16:  # recode: the tuples seen so far, densely
            _, dense = dense_codes(joint)
            joint = dense.astype(np.int64)
            _, k = dense_codes(k)
            span = int(joint.max(initial=0)) + 1
            lo, hi = 0, int(k.max(initial=0))
        joint *= hi - lo + 1
        joint += k
        if lo:
            joint -= lo
        span *= hi - lo + 1
    return joint


class StackedEvaluator(Evaluator):
    """Evaluate several aligned evaluators on the same weights: values of shape ``(batch, K)``."""

    def __init__(self, evaluators: Sequence[Evaluator], design: Design) -> None:
        self.parts = align(evaluators, design)
        shared = self.parts[0].design or design
        super().__init__(design.n_rows, shared.n_units)
        self.design = shared
        self.thread_safe = all(getattr(ev, "thread_safe", True) for ev in self.parts)

    def estimate(self) -> np.ndarray:  # type: ignore[override]
        return np.array([ev.estimate() for ev in self.parts])

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        return np.stack([ev.replicates(unit_weights) for ev in self.parts], axis=1)

    def jackknife(self) -> np.ndarray:
        """Leave-one-unit-out values, shape ``(n_jackknife, K)``."""
        return np.stack([ev.jackknife() for ev in self.parts], axis=1)


def split_systems(data: tuple[Any, ...], m: Metric) -> tuple[tuple, Any, Any]:
    """Split ``(*shared, own_a, own_b)``: the last input of ``m`` is per system."""
    k = m.n_inputs
    if len(data) != k + 1:
        shared = ", ".join(m.input_names[:-1])
        expected = (
            f"{k + 1} arrays ({shared + ', ' if shared else ''}{m.input_names[-1]} of A, "
            f"{m.input_names[-1]} of B) for metric {m.label!r}"
        )
        raise InvalidInputError("data", expected, f"{len(data)} array(s)")
    return tuple(data[: k - 1]), data[k - 1], data[k]


def validate_system(m: Metric, shared: tuple, own: Any, name: str) -> tuple[np.ndarray, ...]:
    """``m.validate(*shared, own)``, naming the system in the error's parameter."""
    try:
        return m.validate(*shared, own)
    except InvalidInputError as exc:
        if exc.parameter == m.input_names[-1]:
            raise InvalidInputError(
                f"{exc.parameter} of system {name}", exc.expected, exc.received, exc.hint
            ) from None
        raise


def paired_arrays(
    m: Metric, data: tuple[Any, ...], name_a: str, name_b: str
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], int]:
    """Each system's checked arrays from a paired call's ``data``, and their number of
    rows, which must be the same for both systems.

    Examples
    --------
    >>> from booteval.metrics import get_metric
    >>> a, b, n = paired_arrays(get_metric("accuracy"), ([0, 1, 1], [0, 1, 0], [1, 1, 1]), "A", "B")
    >>> n, b[-1].tolist()
    (3, [1, 1, 1])
    >>> paired_arrays(get_metric("accuracy"), ([0, 1, 1], [0, 1, 0], [1, 1]), "A", "B")
    Traceback (most recent call last):
    ...
    booteval.core.errors.InvalidInputError: `y_pred of system B`: expected the same number ...
    """
    shared, a, b = split_systems(data, m)
    arr_a = validate_system(m, shared, a, name_a)
    arr_b = validate_system(m, shared, b, name_b)
    n, n_b = arr_a[-1].shape[0], arr_b[-1].shape[0]
    if n != n_b:
        raise InvalidInputError(
            f"{m.input_names[-1]} of system {name_b}",
            f"the same number of rows as system {name_a} ({n})",
            f"{n_b} rows",
        )
    return arr_a, arr_b, n


def check_defined(m: Metric, estimates: Sequence[float], names: Sequence[str]) -> None:
    """Refuse a system on whose outputs the metric itself is undefined (NaN or infinite).

    Examples
    --------
    >>> from booteval.metrics import get_metric
    >>> check_defined(get_metric("mean"), [0.5, float("nan")], ["A", "B"])
    Traceback (most recent call last):
    ...
    booteval.core.errors.InvalidInputError: `scores of system B`: expected outputs on which ...
    """
    for value, name in zip(estimates, names, strict=True):
        if not np.isfinite(value):
            raise InvalidInputError(
                f"{m.input_names[-1]} of system {name}",
                f"outputs on which {m.label!r} is defined",
                f"outputs where it evaluates to {value}",
            )
