"""Threshold rules and fitting.

The confusion-count metrics, the rules that pick a threshold, the sorted-score structures both
run on, input checks, and the public helpers :func:`fit_threshold` and :func:`threshold_metric`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from ..core.streams import seed_sequence
from ..core.validation import (
    as_float_array,
    as_label_array,
    check_same_length,
    describe_value,
)
from ..metrics.confusion import confusion_ratio
from ..metrics.registry import REGISTRY

# ------------------------------------------------------------------ metrics
# Each metric maps weighted confusion counts (arrays of equal shape) to values,
# NaN where a denominator is zero.
CountMetric = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _count_metric(name: str) -> CountMetric:
    """The ratio ``name`` of the confusion-count core (NaN where undefined)."""

    def metric(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
        return confusion_ratio(name, tp, fp, fn, tn)

    metric.__name__ = name
    return metric


# the registry's metrics that declare a ratio of the confusion-count core, with its range
_METRICS: dict[str, tuple[CountMetric, tuple[float, float]]] = {
    name: (_count_metric(cls.confusion_ratio), cls.bounds or (0.0, 1.0))
    for name, cls in REGISTRY.items()
    if cls.confusion_ratio is not None
}

#: Names of the operating-point metrics (``metric=``): the registry's confusion ratios.
THRESHOLD_METRICS: tuple[str, ...] = tuple(_METRICS)


# -------------------------------------------------------------------- rules
# A rule's search maps the counts at every candidate threshold, shape (batch, K),
# and the class totals, shape (batch,), to an objective (larger is better) and a
# feasibility mask. Objectives are computed so that mathematically equal values
# compare equal (one correctly rounded division, or exact integer arithmetic).
_Search = Callable[
    [np.ndarray, np.ndarray, np.ndarray, np.ndarray, float | None],
    tuple[np.ndarray, np.ndarray],
]


def _search_f1(
    tp: np.ndarray, pp: np.ndarray, p: np.ndarray, n: np.ndarray, target: float | None
) -> tuple[np.ndarray, np.ndarray]:
    return 2.0 * tp / (pp + p[:, None]), np.ones(tp.shape, dtype=bool)


def _search_youden(
    tp: np.ndarray, pp: np.ndarray, p: np.ndarray, n: np.ndarray, target: float | None
) -> tuple[np.ndarray, np.ndarray]:
    # J = tp/p - fp/n; with the common denominator p*n compare tp*n - fp*p exactly
    return tp * n[:, None] - (pp - tp) * p[:, None], np.ones(tp.shape, dtype=bool)


def _search_precision_at_recall(
    tp: np.ndarray, pp: np.ndarray, p: np.ndarray, n: np.ndarray, target: float | None
) -> tuple[np.ndarray, np.ndarray]:
    return tp / pp, tp / p[:, None] >= target


def _search_recall_at_precision(
    tp: np.ndarray, pp: np.ndarray, p: np.ndarray, n: np.ndarray, target: float | None
) -> tuple[np.ndarray, np.ndarray]:
    # recall = tp / p with p fixed per replicate: compare tp itself
    return tp, tp / pp >= target


@dataclass(frozen=True)
class _Rule:
    name: str
    search: _Search | None
    needs_target: bool
    metric: str | None
    call: Callable[..., Any] | None = None

    def label(self, target: float | None) -> str:
        return f"{self.name}(target={target:g})" if self.needs_target else self.name


_RULES: dict[str, _Rule] = {
    "max_f1": _Rule("max_f1", _search_f1, False, "f1"),
    "youden": _Rule("youden", _search_youden, False, "youden"),
    "precision_at_recall": _Rule(
        "precision_at_recall", _search_precision_at_recall, True, "precision"
    ),
    "recall_at_precision": _Rule(
        "recall_at_precision", _search_recall_at_precision, True, "recall"
    ),
}

#: Names of the threshold-selection rules (``rule=``).
THRESHOLD_RULES: tuple[str, ...] = tuple(_RULES)


# ------------------------------------------------------------ sorted scores
@dataclass(frozen=True)
class _Sorted:
    """Scores sorted in decreasing order, ready for weighted cumulative counts.

    ``values[k]`` is the k-th largest distinct score and ``ends[k]`` the number
    of rows whose score is at least ``values[k]`` (so the rows with
    ``score >= values[k]`` are the first ``ends[k]`` rows in ``order``).
    """

    pos: np.ndarray  # bool labels, original order
    scores: np.ndarray  # original order
    order: np.ndarray
    pos_sorted: np.ndarray  # float 0/1 in decreasing-score order
    values: np.ndarray
    ends: np.ndarray

    @classmethod
    def build(cls, pos: np.ndarray, scores: np.ndarray) -> _Sorted:
        order = np.argsort(-scores, kind="stable")
        desc = scores[order]
        ends = np.append(np.flatnonzero(desc[1:] != desc[:-1]) + 1, desc.size)
        return cls(
            pos=pos, scores=scores, order=order, pos_sorted=pos[order].astype(np.float64),
            values=desc[ends - 1], ends=ends,
        )  # fmt: skip

    def cumulative(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Weighted cumulative positives and rows, shape ``(batch, n + 1)``, in score order."""
        ws = w[:, self.order]
        b, n = ws.shape
        cum_pp = np.zeros((b, n + 1))
        cum_tp = np.zeros((b, n + 1))
        np.cumsum(ws, axis=1, out=cum_pp[:, 1:])
        np.cumsum(ws * self.pos_sorted, axis=1, out=cum_tp[:, 1:])
        return cum_tp, cum_pp


def _fit_vectorized(rule: _Rule, target: float | None, srt: _Sorted, w: np.ndarray) -> np.ndarray:
    """The rule's threshold for each row of weights ``w`` (batch, n); NaN where undefined."""
    assert rule.search is not None
    cum_tp, cum_pp = srt.cumulative(w)
    if srt.ends.size == srt.scores.size:  # no ties: every row ends a group
        tp, pp = cum_tp[:, 1:], cum_pp[:, 1:]
    else:
        tp, pp = cum_tp[:, srt.ends], cum_pp[:, srt.ends]
    p = cum_tp[:, -1]
    n = cum_pp[:, -1] - p
    with np.errstate(divide="ignore", invalid="ignore"):
        obj, feasible = rule.search(tp, pp, p, n, target)
    # where pp > 0 (and p > 0 for the rows that count) every objective is finite
    feasible &= pp > 0
    ok = feasible.any(axis=1) & (p > 0) & (n > 0)
    k = np.argmax(np.where(feasible, obj, -np.inf), axis=1)  # first = highest threshold
    return np.where(ok, srt.values[k], np.nan)


def _threshold_value(rule: _Rule, value: object) -> float:
    """A user rule's threshold as a float; anything but one real number is an error."""
    if isinstance(value, bool | np.bool_) or not (
        isinstance(value, numbers.Real) or (isinstance(value, np.ndarray) and value.size == 1)
    ):
        raise InvalidInputError(
            "rule",
            "a callable that returns one number (the threshold)",
            f"rule {rule.name!r} returned {describe_value(value)}",
        )
    return float(np.asarray(value).reshape(-1)[0])


def _fit_callable(rule: _Rule, srt: _Sorted, w: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Call a user rule once per row of weights; NaN (and the first error) where it fails."""
    assert rule.call is not None
    y = srt.pos.astype(np.int64)
    y.setflags(write=False)
    s = srt.scores.view()
    s.setflags(write=False)
    out = np.full(w.shape[0], np.nan)
    reason = None
    for i in range(w.shape[0]):
        wi = w[i].copy()
        wi.setflags(write=False)
        try:
            t = _threshold_value(rule, rule.call(y, s, wi))
        except (ValueError, ZeroDivisionError, FloatingPointError) as exc:
            reason = reason or f"{type(exc).__name__}: {exc}"
            continue
        out[i] = t
    return out, reason


@dataclass(frozen=True)
class _TestSet:
    pos: np.ndarray  # bool
    scores: np.ndarray
    pos_f: np.ndarray  # float 0/1

    @classmethod
    def build(cls, pos: np.ndarray, scores: np.ndarray) -> _TestSet:
        return cls(pos=pos, scores=scores, pos_f=pos.astype(np.float64))


def _counts_at(
    test: _TestSet, w: np.ndarray, thresholds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Weighted ``(tp, fp, fn, tn)`` of ``score >= t`` at one threshold per replicate.

    ``w`` holds one row of weights per threshold, or a single row shared by all.
    One masked pass over ``(batch, n)``, no sort: unlike the validation search,
    which needs the counts at every candidate, the test needs them at one
    threshold per replicate, and the mask is cheaper than gathering the weights
    into score order and accumulating them. Counts are sums of integer weights,
    so they are exact whatever the batch size. A NaN threshold predicts nothing.
    """
    pred = test.scores[None, :] >= thresholds[:, None]
    wp = np.where(pred, w, 0.0)
    tp, pp = wp @ test.pos_f, wp.sum(axis=1)
    p, total = w @ test.pos_f, w.sum(axis=1)
    fp = pp - tp
    return tp, fp, p - tp, total - p - fp


# ------------------------------------------------------------------ inputs
def _check_takes_three(rule: Callable[..., Any]) -> None:
    """A callable rule is called as ``rule(y_val, s_val, weights)``: refuse one that cannot be."""
    import inspect

    try:
        inspect.signature(rule).bind(None, None, None)
    except TypeError:
        raise InvalidInputError(
            "rule",
            "a callable rule(y_val, s_val, weights) -> threshold (weights: the bootstrap "
            "weight of each validation row)",
            f"{describe_value(rule)} with the signature {inspect.signature(rule)}",
        ) from None
    except ValueError:  # builtins without a signature: they will say so when called
        return


def _resolve_rule(rule: object, target: object) -> tuple[_Rule, float | None]:
    if callable(rule) and not isinstance(rule, str):
        if target is not None:
            raise InvalidInputError(
                "target", "None with a callable rule (close over the target instead)",
                describe_value(target),
            )  # fmt: skip
        name = getattr(rule, "__name__", type(rule).__name__)
        _check_takes_three(rule)
        return _Rule(name, None, False, None, call=rule), None
    if not isinstance(rule, str) or rule not in _RULES:
        raise InvalidInputError(
            "rule",
            f"one of {', '.join(map(repr, THRESHOLD_RULES))} or a callable "
            "f(y_val, s_val, weights) -> threshold",
            describe_value(rule),
        )
    r = _RULES[rule]
    if not r.needs_target:
        if target is not None:
            raise InvalidInputError(
                "target", f"None for rule {rule!r} (it takes no target)", describe_value(target)
            )
        return r, None
    if (
        target is None
        or isinstance(target, bool)
        or not isinstance(target, numbers.Real)
        or not 0.0 < float(target) < 1.0
    ):
        what = "recall" if rule == "precision_at_recall" else "precision"
        raise InvalidInputError(
            "target",
            f"the target {what} for rule {rule!r}: a number strictly between 0 and 1",
            describe_value(target),
            "Pass e.g. target=0.9." if target is None else "",
        )
    return r, float(target)


def _resolve_metric(
    metric: object, rule: _Rule
) -> tuple[str, CountMetric, tuple[float, float] | None]:
    if metric is None:
        if rule.metric is None:
            raise InvalidInputError(
                "metric",
                f"one of {', '.join(map(repr, THRESHOLD_METRICS))} or a callable "
                "f(tp, fp, fn, tn) (a callable rule has no default metric)",
                "None",
            )
        metric = rule.metric
    if isinstance(metric, str) and metric in _METRICS:
        fn, bounds = _METRICS[metric]
        return metric, fn, bounds
    if callable(metric) and not isinstance(metric, str):
        user = metric

        def fn(tp: np.ndarray, fp: np.ndarray, fn_: np.ndarray, tn: np.ndarray) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.asarray(user(tp, fp, fn_, tn), dtype=float)
            return np.broadcast_to(out, np.shape(tp)).copy()

        return getattr(metric, "__name__", "metric"), fn, None
    raise InvalidInputError(
        "metric",
        f"one of {', '.join(map(repr, THRESHOLD_METRICS))} or a vectorized callable "
        "f(tp, fp, fn, tn)",
        describe_value(metric),
    )


def _labels(y: object, name: str) -> tuple[np.ndarray, list[Any]]:
    a = as_label_array(y, name)
    classes = np.unique(a).tolist()
    if len(classes) > 2:
        raise InvalidInputError(
            name, "binary labels (two classes)", f"{len(classes)} classes: {classes[:5]}"
        )
    return a, classes


def _binary(a: np.ndarray, classes: list[Any], pos_label: object) -> np.ndarray:
    return np.isin(a, [c for c in classes if c == pos_label])


def _validation_labels(
    y_val: object, pos_label: object, name: str = "y_val"
) -> tuple[np.ndarray, list[Any]]:
    a, classes = _labels(y_val, name)
    if len(classes) < 2:
        raise InvalidInputError(
            name,
            "validation labels with both classes (a threshold cannot be fitted on one class)",
            f"only the class {classes[0]!r}",
        )
    if not any(c == pos_label for c in classes):
        raise InvalidInputError(
            "pos_label", f"one of the labels of {name} {classes}", describe_value(pos_label)
        )
    return _binary(a, classes, pos_label), classes


def _test_labels(y_test: object, val_classes: list[Any], pos_label: object) -> np.ndarray:
    a, classes = _labels(y_test, "y_test")
    extra = [c for c in classes if not any(c == v for v in val_classes)]
    if extra:
        raise InvalidInputError(
            "y_test", f"labels among those of y_val {val_classes}", f"the label {extra[0]!r}"
        )
    return _binary(a, classes, pos_label)


def _check_weights(weights: object, n: int) -> np.ndarray:
    if weights is None:
        return np.ones(n)
    w = as_float_array(weights, "weights")
    if w.shape[0] != n:
        raise InvalidInputError("weights", f"one weight per row ({n})", f"{w.shape[0]} weights")
    if (w < 0).any():
        raise InvalidInputError("weights", "non-negative weights", "a negative weight")
    return w


def _derived_seed(seed: int, which: int) -> int:
    ss = seed_sequence("threshold", seed, which)
    return int(ss.generate_state(1, np.uint64)[0])


# ------------------------------------------------------------ public helpers
def fit_threshold(
    y: Any, scores: Any, *, rule: str | Callable[..., float] = "max_f1",
    target: float | None = None, weights: Any = None, pos_label: Any = 1,
) -> float:  # fmt: skip
    """The threshold a rule picks on one (validation) set.

    Parameters
    ----------
    y, scores : array-like
        Binary labels, and scores: a row is predicted positive when ``score >= threshold``.
    rule : {"max_f1", "youden", "precision_at_recall", "recall_at_precision"} or callable
        See the module notes; a callable ``f(y, scores, weights)`` is simply called.
    target : float, optional
        The target recall (``"precision_at_recall"``) or precision
        (``"recall_at_precision"``), strictly between 0 and 1.
    weights : array-like, optional
        Non-negative row weights (e.g. bootstrap counts); ones by default.
    pos_label : label
        The positive class.

    Returns
    -------
    float
        One of the scores (the highest threshold among the optima).

    Raises
    ------
    InvalidInputError
        One class only, an unknown rule, a missing or out-of-range target, or a
        target that no threshold reaches.

    Examples
    --------
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> s = [0.1, 0.4, 0.35, 0.5, 0.8, 0.9]
    >>> fit_threshold(y, s, rule="max_f1")
    0.8
    >>> fit_threshold(y, s, rule="recall_at_precision", target=0.9)
    0.8
    """
    r, tgt = _resolve_rule(rule, target)
    pos, _ = _validation_labels(y, pos_label, "y")
    s = as_float_array(scores, "scores")
    check_same_length({"y": pos, "scores": s})
    w = _check_weights(weights, s.shape[0])
    if r.call is not None:
        return _threshold_value(r, r.call(pos.astype(np.int64), s, w))
    t = float(_fit_vectorized(r, tgt, _Sorted.build(pos, s), w[None, :])[0])
    if math.isnan(t):
        raise InvalidInputError(
            "target" if r.needs_target else "weights",
            f"data on which rule {r.label(tgt)!r} is defined",
            "no threshold meets the target" if r.needs_target else "weights that leave one class",
        )
    return t


def threshold_metric(
    y: Any, scores: Any, threshold: float, *, metric: str | CountMetric = "f1", weights: Any = None,
    pos_label: Any = 1,
) -> float:  # fmt: skip
    """An operating-point metric of ``score >= threshold`` (NaN where undefined).

    Parameters
    ----------
    y, scores, threshold
        Binary labels, scores, and the threshold (positive when ``score >= threshold``).
    metric : {"f1", "precision", "recall", "specificity", "youden", "accuracy"} or callable
        A callable receives the weighted confusion counts ``(tp, fp, fn, tn)``.
    weights : array-like, optional
        Non-negative row weights; ones by default.
    pos_label : label

    Examples
    --------
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> s = [0.1, 0.4, 0.35, 0.5, 0.8, 0.9]
    >>> threshold_metric(y, s, 0.5, metric="precision")
    0.6666666666666666
    >>> threshold_metric(y, s, 0.5, metric="recall")
    0.6666666666666666
    """
    _, fn, _ = _resolve_metric(metric, _RULES["max_f1"])
    a, classes = _labels(y, "y")
    pos = _binary(a, classes, pos_label)
    s = as_float_array(scores, "scores")
    check_same_length({"y": pos, "scores": s})
    w = _check_weights(weights, s.shape[0])
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float, np.integer, np.floating))
        or np.isnan(threshold)
    ):
        raise InvalidInputError(
            "threshold", "a number (scores >= it are positive)", f"{threshold!r}"
        )
    pred = s >= float(threshold)
    tp = float(np.sum(w * (pred & pos)))
    fp = float(np.sum(w * (pred & ~pos)))
    fn_ = float(np.sum(w * (~pred & pos)))
    tn = float(np.sum(w * (~pred & ~pos)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(fn(np.array([tp]), np.array([fp]), np.array([fn_]), np.array([tn]))[0])
