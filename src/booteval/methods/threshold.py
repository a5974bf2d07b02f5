"""Operating-point metrics with the decision threshold refitted per resample.

A classifier's F1, precision or recall depends on the threshold that turns
scores into decisions (here: predict positive when ``score >= threshold``). When
that threshold is *chosen on a validation set* by a rule (maximize F1, Youden's
J, precision at a target recall, recall at a target precision), its choice is
itself uncertain, and an interval that holds the threshold fixed is too narrow.

:func:`threshold_ci` is a two-level bootstrap: each replicate resamples the
validation set, refits the threshold on the resample with the rule, resamples
the test set, and scores the test resample at that threshold. The interval
covers both the test-set sampling variability and the threshold-selection
variability. ``refit=False`` gives the single-level interval (the threshold is
fitted once, on the whole validation set, and only the test set is resampled).
:func:`threshold_compare` does the same for two systems on the same rows, both
refitted on the same validation resample and scored on the same test resample,
and reports the paired difference ``B - A``.

Conventions
-----------
Candidate thresholds
    The distinct validation scores. A rule only considers thresholds at which at
    least one (weighted) validation row is predicted positive.
Ties
    Among thresholds that reach the rule's optimum, the *highest* is chosen. It
    is always a score present in the (resampled) validation set, so the search
    over all distinct validation scores gives the same threshold as a search
    over the scores that the resample contains.
Rules (``rule=``)
    ``"max_f1"`` maximizes F1; ``"youden"`` maximizes Youden's J = TPR - FPR;
    ``"precision_at_recall"`` picks the highest-precision threshold whose
    recall is at least ``target``; ``"recall_at_precision"`` the highest-recall
    threshold whose precision is at least ``target``. A callable
    ``f(y_val, s_val, weights) -> threshold`` (``y_val`` as 0/1 integers,
    ``weights`` the row counts of one resample) is called once per replicate.
Undefined replicates
    A validation resample with a single class, a target no threshold reaches,
    or a test metric with a zero denominator (precision with no predicted
    positive) make the replicate undefined: it is dropped and counted
    (``on_undefined="drop"``) or raises (``"raise"``).
Reproducibility
    The validation and test weights come from two independent designs whose
    seeds are derived from the one ``seed`` (``SeedSequence(seed, spawn_key=(4, 0))``
    and ``(4, 1)``), so the result does not depend on ``batch``, and ``refit=False``
    uses exactly the same test resamples as ``refit=True``.
Speed
    The validation scores are sorted once; for a batch of replicates the
    weighted cumulative counts of positives and predicted positives over the
    candidate thresholds, arrays of shape ``(batch, n_val)``, give every
    replicate's optimum at once. The test confusion counts at the per-replicate
    thresholds come from one masked pass over the test weights. No
    per-replicate Python loop unless the rule is a callable.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.design import Design, make_design
from ..core.engine import check_choice, check_run_options, run_replicates, screen_undefined
from ..core.errors import CaughtWarning, InvalidInputError, collect_warnings, warn
from ..core.intervals import compute_interval
from ..core.options import accepts_options
from ..core.params import validated
from ..core.progress import progress_option
from ..core.streams import seed_sequence
from ..core.validation import (
    as_float_array,
    as_label_array,
    check_names,
    check_same_length,
    describe_value,
)
from ..inference.comparison import ALTERNATIVES, ComparisonResult, bootstrap_p_value
from ..results import CIResult, IntervalRecipe, LazyJackknife, freeze

__all__ = [
    "THRESHOLD_METRICS",
    "THRESHOLD_RULES",
    "ThresholdCIResult",
    "ThresholdComparisonResult",
    "fit_threshold",
    "threshold_ci",
    "threshold_compare",
    "threshold_metric",
]

# ------------------------------------------------------------------ metrics
# Each metric maps weighted confusion counts (arrays of equal shape) to values,
# NaN where a denominator is zero.
CountMetric = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
    return _ratio(2.0 * tp, 2.0 * tp + fp + fn)


def _precision(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
    return _ratio(tp, tp + fp)


def _recall(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
    return _ratio(tp, tp + fn)


def _specificity(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
    return _ratio(tn, tn + fp)


def _youden(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
    return _recall(tp, fp, fn, tn) + _specificity(tp, fp, fn, tn) - 1.0


def _accuracy(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
    return _ratio(tp + tn, tp + fp + fn + tn)


_METRICS: dict[str, tuple[CountMetric, tuple[float, float]]] = {
    "f1": (_f1, (0.0, 1.0)),
    "precision": (_precision, (0.0, 1.0)),
    "recall": (_recall, (0.0, 1.0)),
    "specificity": (_specificity, (0.0, 1.0)),
    "youden": (_youden, (-1.0, 1.0)),
    "accuracy": (_accuracy, (0.0, 1.0)),
}

#: Names of the operating-point metrics (``metric=``).
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
            pos=pos,
            scores=scores,
            order=order,
            pos_sorted=pos[order].astype(np.float64),
            values=desc[ends - 1],
            ends=ends,
        )

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
    y: Any,
    scores: Any,
    *,
    rule: str | Callable[..., float] = "max_f1",
    target: float | None = None,
    weights: Any = None,
    pos_label: Any = 1,
) -> float:
    """The threshold a rule picks on one (validation) set.

    Parameters
    ----------
    y : array-like
        Binary labels.
    scores : array-like
        Scores; a row is predicted positive when ``score >= threshold``.
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
    y: Any,
    scores: Any,
    threshold: float,
    *,
    metric: str | CountMetric = "f1",
    weights: Any = None,
    pos_label: Any = 1,
) -> float:
    """An operating-point metric of ``score >= threshold`` (NaN where undefined).

    Parameters
    ----------
    y : array-like
        Binary labels.
    scores : array-like
    threshold : float
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

    @property
    def label(self) -> str:
        how = "refit per resample" if self.refit else "fitted once"
        return f"{self.metric_name} (threshold: {self.rule.label(self.target)}, {how})"

    def describe_design(self) -> str:
        if self.refit:
            return (
                f"two-level bootstrap: validation {self.design_val.describe()}, "
                f"test {self.design_test.describe()}"
            )
        return (
            f"single-level bootstrap of the test set: {self.design_test.describe()} "
            f"(threshold fitted once on {self.design_val.n_rows} validation rows)"
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
        self, seed: int, n_resamples: int, batch: int, t_hat: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Test-set metric and threshold of every system in every replicate, through the
        engine's loop over the two-level (validation, test) weight source."""
        n_sys = len(self.val)
        source = _TwoSetSource(self.design_val, self.design_test, self.refit, batch)
        pairs, _ = run_replicates(
            _ThresholdRun(self, t_hat), source, n_resamples, seed, batch, workers=1
        )
        return pairs[:, :n_sys], pairs[:, n_sys:]

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


def _setup(
    rule: object,
    target: object,
    metric: object,
    refit: object,
    y_val: Any,
    s_vals: list[tuple[str, Any]],
    y_test: Any,
    s_tests: list[tuple[str, Any]],
    pos_label: Any,
    strata_val: Any,
    clusters_val: Any,
    strata_test: Any,
    clusters_test: Any,
) -> _Problem:
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
        rule=r,
        target=tgt,
        metric_name=name,
        metric_fn=fn,
        bounds=bounds,
        refit=bool(refit),
        val=[_Sorted.build(pos_val, v) for v in vals],
        test=[_TestSet.build(pos_test, t) for t in tests],
        design_val=make_design(n_val, strata=strata_val, clusters=clusters_val),
        design_test=make_design(n_test, strata=strata_test, clusters=clusters_test),
    )


class _TwoSetSource:
    """The two-level weight source of a threshold bootstrap: validation rows (when the
    threshold is refitted) then test rows, side by side, each set drawn by its own design
    from the ``threshold`` stream (keys 0 and 1), independent of the batching."""

    clustered = False

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


def _run(problem: _Problem, opts: Any, names: list[str]) -> _Run:
    if opts.method == "studentized":
        raise InvalidInputError(
            "method",
            "one of 'percentile', 'basic', 'normal', 'bca' for a threshold bootstrap",
            "'studentized'",
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
        values, thresholds = problem.replicates(opts.seed, opts.n_resamples, batch, t_hat)
    defined = np.isfinite(values).all(axis=1) & ~np.isnan(thresholds).any(axis=1)
    n_undefined = screen_undefined(
        defined, f"{problem.label}", opts.on_undefined, reason=problem.reason,
        hint=" A replicate is undefined when its validation resample has one class or no "
        "threshold meeting the target, or when the test metric's denominator is zero; with a "
        "small validation set, strata_val=y_val keeps both classes in every resample.",
    )  # fmt: skip
    return _Run(problem, opts, est, t_hat, values, thresholds, defined, n_undefined)


def _interval(
    method: str,
    estimate: float,
    reps: np.ndarray,
    level: float,
    jackknife: np.ndarray | None,
    bounds: tuple[float, float] | None,
    ties: str,
    warn: bool = True,
) -> Any:
    return compute_interval(
        method, estimate, reps, level, jackknife=jackknife, bounds=bounds, ties=ties, warn=warn
    )


def _reemit(caught: list[CaughtWarning], stacklevel: int) -> None:
    """Warn again what was caught, attributed ``stacklevel`` frames up from the caller."""
    for w in caught:
        warn(w.message, w.category, stacklevel=stacklevel + 1)


# ------------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class ThresholdCIResult(CIResult):
    """A :class:`~booteval.CIResult` for an operating-point metric, with its thresholds.

    ``n`` and ``n_clusters`` describe the test set; ``design`` describes both
    levels.

    Attributes
    ----------
    rule : str
        The threshold rule (with its target).
    target : float or None
    refit : bool
        Whether the threshold was refitted on every validation resample.
    threshold : float
        The threshold fitted on the whole validation set (the estimate uses it).
    thresholds : ndarray
        The threshold of every defined replicate, aligned with ``distribution``
        (all equal to ``threshold`` when ``refit=False``).
    n_val : int
        Number of validation rows.
    Other attributes as in :class:`~booteval.CIResult`.
    """

    rule: str = ""
    target: float | None = None
    refit: bool = True
    threshold: float = math.nan
    thresholds: np.ndarray | None = field(repr=False, default=None)
    n_val: int = 0

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """The interval, method, both designs, B, seed and the spread of the thresholds."""
        pct = f"{self.confidence_level * 100:g}%"
        lines = [
            f"{self.metric}: {self.format(scale, digits)}",
            f"  {pct} {self.method} interval; {self.design}",
            f"  B = {self.n_resamples} resamples, seed = {self.seed}"
            + (f", {self.n_undefined} undefined (dropped)" if self.n_undefined else ""),
            f"  standard error {self.standard_error * scale:.{digits}g}",
            f"  threshold fitted on the validation set: {self.threshold:.6g}",
        ]
        if self.refit and self.thresholds is not None and self.thresholds.size:
            lo, mid, hi = np.quantile(self.thresholds, [0.025, 0.5, 0.975])
            lines.append(
                f"  refitted thresholds: median {mid:.6g}, 95% of them in ({lo:.6g}, {hi:.6g})"
            )
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"ThresholdCIResult(metric={self.metric!r}, estimate={self.estimate:.6g}, "
            f"low={self.low:.6g}, high={self.high:.6g}, threshold={self.threshold:.6g}, "
            f"method={self.method!r}, refit={self.refit}, n_resamples={self.n_resamples}, "
            f"seed={self.seed})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (no arrays)."""
        out = super().to_dict()
        out.update(rule=self.rule, target=self.target, refit=self.refit,
                   threshold=self.threshold, n_val=self.n_val)  # fmt: skip
        return out


@dataclass(frozen=True, eq=False)
class ThresholdComparisonResult(ComparisonResult):
    """A :class:`~booteval.ComparisonResult` of an operating-point metric, with thresholds.

    ``n`` and ``n_clusters`` describe the test set; ``design`` describes both
    levels.

    Attributes
    ----------
    rule : str
    target : float or None
    refit : bool
    threshold_a, threshold_b : float
        Each system's threshold fitted on the whole validation set.
    thresholds_a, thresholds_b : ndarray
        Each system's threshold in every defined replicate (aligned with
        ``distribution``).
    n_val : int
    Other attributes as in :class:`~booteval.ComparisonResult`.
    """

    rule: str = ""
    target: float | None = None
    refit: bool = True
    threshold_a: float = math.nan
    threshold_b: float = math.nan
    thresholds_a: np.ndarray | None = field(repr=False, default=None)
    thresholds_b: np.ndarray | None = field(repr=False, default=None)
    n_val: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (no arrays)."""
        out = super().to_dict()
        out.update(rule=self.rule, target=self.target, refit=self.refit,
                   threshold_a=self.threshold_a, threshold_b=self.threshold_b,
                   n_val=self.n_val)  # fmt: skip
        return out


# ------------------------------------------------------------------ public
@accepts_options
@validated
@progress_option
def threshold_ci(
    y_val: Any,
    s_val: Any,
    y_test: Any,
    s_test: Any,
    *,
    rule: str | Callable[..., float] = "max_f1",
    metric: str | CountMetric | None = None,
    target: float | None = None,
    method: str = "percentile",
    confidence_level: float = 0.95,
    n_resamples: int = 2_000,
    seed: int | None = None,
    refit: bool = True,
    pos_label: Any = 1,
    strata_val: Any = None,
    clusters_val: Any = None,
    strata_test: Any = None,
    clusters_test: Any = None,
    batch: int | None = None,
    on_undefined: str = "drop",
    bca_ties: str = "half",
    progress: Any = None,
) -> ThresholdCIResult:
    """Interval for a test metric at a threshold chosen on validation data (two-level bootstrap).

    Every replicate resamples the validation set, refits the threshold on the
    resample with ``rule``, resamples the test set and scores it at that
    threshold, so the interval includes the uncertainty of the threshold choice.
    With ``refit=False`` the threshold is fitted once on the whole validation
    set and only the test set is resampled (the usual, narrower, single-level
    interval: right only when the threshold is fixed in advance).

    Parameters
    ----------
    y_val, s_val : array-like
        Validation labels (binary, both classes present) and scores.
    y_test, s_test : array-like
        Test labels and scores. A row is predicted positive when
        ``score >= threshold``.
    rule : {"max_f1", "youden", "precision_at_recall", "recall_at_precision"} or callable
        How the threshold is chosen (see the module notes): a name, or
        ``f(y_val, s_val, weights) -> threshold`` called once per replicate with
        0/1 labels and the row counts of the validation resample.
    metric : str or callable, optional
        One of ``"f1"``, ``"precision"``, ``"recall"``, ``"specificity"``,
        ``"youden"``, ``"accuracy"``.
        The test metric, by default the rule's own (``max_f1`` -> ``"f1"``,
        ``youden`` -> ``"youden"``, ``precision_at_recall`` -> ``"precision"``,
        ``recall_at_precision`` -> ``"recall"``). A callable receives arrays of
        weighted confusion counts ``(tp, fp, fn, tn)`` and returns an array.
    target : float, optional
        Target recall (``precision_at_recall``) or precision
        (``recall_at_precision``), strictly between 0 and 1; required by those
        rules and refused by the others.
    method : {"percentile", "basic", "normal", "bca"}
        ``"percentile"`` (default) reports the spread of the refitted procedure
        as it is. With ``refit=True`` most replicates usually fall below the
        estimate (a threshold refitted on a resample seldom beats the one fitted
        on all the validation data), and BCa's bias correction then pulls the
        interval up towards the estimate, often to the extreme replicates (with
        a warning). ``"bca"`` takes its acceleration from a two-sample jackknife
        (leave one validation unit out and refit; leave one test unit out),
        which costs about ``n_val`` extra refits.
    confidence_level : float
    n_resamples : int
    seed : int, optional
        One seed for both levels; the same seed gives the same result for any
        ``batch``.
    refit : bool
        Refit the threshold on every validation resample (default) or not.
    pos_label : label
        The positive class (default 1).
    strata_val, clusters_val, strata_test, clusters_test : array-like, optional
        Resampling designs of the two sets, as ``strata=`` and ``clusters=`` of
        :func:`booteval.ci`. ``strata_val=y_val`` keeps both classes in every
        validation resample.
    batch : int, optional
        Replicates processed at once; never changes the result.
    progress : None, True or callable, optional
        ``True`` prints the replicates done to stderr every few seconds; a callable is
        called as ``progress(done, total)`` after each batch of replicates.
    on_undefined : {"drop", "raise"}
    bca_ties : {"half", "below"}

    Returns
    -------
    ThresholdCIResult

    Examples
    --------
    >>> import numpy as np, booteval
    >>> from booteval.threshold import threshold_ci
    >>> rng = np.random.default_rng(0)
    >>> def draw(n):
    ...     y = rng.integers(0, 2, n)
    ...     return y, y + rng.normal(0.0, 1.0, n)
    >>> y_val, s_val = draw(60)
    >>> y_test, s_test = draw(1000)
    >>> r = threshold_ci(y_val, s_val, y_test, s_test, rule="max_f1", seed=0)
    >>> fixed = threshold_ci(y_val, s_val, y_test, s_test, rule="max_f1", seed=0, refit=False)
    >>> print(r, "|", fixed)
    0.7299 (0.6287, 0.7551) | 0.7299 (0.7014, 0.7570)
    >>> bool(r.width > fixed.width), round(r.threshold, 3)
    (True, -0.32)
    """
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed, method=method,
        on_undefined=on_undefined, bca_ties=bca_ties, batch=batch,
    )  # fmt: skip
    problem = _setup(
        rule, target, metric, refit, y_val, [("s_val", s_val)], y_test, [("s_test", s_test)],
        pos_label, strata_val, clusters_val, strata_test, clusters_test,
    )  # fmt: skip
    with collect_warnings() as caught:
        run = _run(problem, opts, ["the system"])
    _reemit(caught, 2)
    reps = run.values[run.defined, 0]
    est = float(run.estimates[0])

    def jackknife() -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            v, t = problem.jackknife(run.t_hat)
        return _pooled_jackknife(None if v is None else v[:, 0], t[:, 0])

    result = ThresholdCIResult(
        estimate=est, low=math.nan, high=math.nan, confidence_level=opts.confidence_level,
        method=opts.method, metric=problem.label, n=problem.design_test.n_rows,
        n_clusters=problem.design_test.n_clusters, effective_n=math.nan,
        n_resamples=opts.n_resamples, seed=opts.seed,
        standard_error=float(np.std(reps, ddof=1)) if reps.size > 1 else math.nan,
        n_undefined=run.n_undefined, mcse_low=math.nan, mcse_high=math.nan,
        design=problem.describe_design(), transform=None, distribution=freeze(reps),
        _recompute=IntervalRecipe(
            ("percentile", "basic", "normal", "bca"), bounds=problem.bounds,
            ties=opts.bca_ties, jackknife=LazyJackknife(jackknife),
        ),
        rule=problem.rule.label(problem.target), target=problem.target,
        refit=problem.refit, threshold=float(run.t_hat[0]),
        thresholds=freeze(np.ascontiguousarray(run.thresholds[run.defined, 0])),
        n_val=problem.design_val.n_rows,
    )  # fmt: skip
    return result.with_method(opts.method)


@accepts_options
@validated
@progress_option
def threshold_compare(
    y_val: Any,
    s_val_a: Any,
    s_val_b: Any,
    y_test: Any,
    s_test_a: Any,
    s_test_b: Any,
    *,
    rule: str | Callable[..., float] = "max_f1",
    metric: str | CountMetric | None = None,
    target: float | None = None,
    method: str = "percentile",
    confidence_level: float = 0.95,
    n_resamples: int = 2_000,
    seed: int | None = None,
    refit: bool = True,
    alternative: str = "two-sided",
    pos_label: Any = 1,
    strata_val: Any = None,
    clusters_val: Any = None,
    strata_test: Any = None,
    clusters_test: Any = None,
    batch: int | None = None,
    on_undefined: str = "drop",
    bca_ties: str = "half",
    names: tuple[str, str] = ("A", "B"),
    progress: Any = None,
) -> ThresholdComparisonResult:
    """Paired two-level bootstrap of ``B - A`` for an operating-point metric.

    In every replicate both systems refit their thresholds on the *same*
    validation resample and are scored on the *same* test resample; the
    difference of the two test metrics is the replicate. The p-value inverts the
    interval method (:func:`booteval.comparison.bootstrap_p_value`).

    Parameters
    ----------
    y_val : array-like
        Validation labels shared by both systems.
    s_val_a, s_val_b : array-like
        The two systems' validation scores.
    y_test : array-like
        Test labels shared by both systems.
    s_test_a, s_test_b : array-like
        The two systems' test scores.
    rule, metric, target, method, confidence_level, n_resamples, seed, refit
        As in :func:`threshold_ci`; each system gets its own threshold from the same rule.
    pos_label, strata_val, clusters_val, strata_test, clusters_test, batch, on_undefined, bca_ties
        As in :func:`threshold_ci`.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` tests whether B's metric is larger.
    names : (str, str)
        Display names of the systems.

    Returns
    -------
    ThresholdComparisonResult

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.threshold import threshold_compare
    >>> rng = np.random.default_rng(1)
    >>> def draw(n):
    ...     y = rng.integers(0, 2, n)
    ...     a = y + rng.normal(0.0, 1.0, n)
    ...     return y, a, a + 0.6 * y + rng.normal(0.0, 0.3, n)   # B separates better
    >>> y_val, a_val, b_val = draw(200)
    >>> y_test, a_test, b_test = draw(1000)
    >>> r = threshold_compare(y_val, a_val, b_val, y_test, a_test, b_test, seed=0)
    >>> print(r.summary(scale=100, digits=1))  # doctest: +NORMALIZE_WHITESPACE
    f1 (threshold: max_f1, refit per resample): B - A = 4.5 (2.7, 11.1), p = 1.0e-03
    (bootstrap, two-sided); A 75.3, B 79.8
    """
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed, method=method,
        on_undefined=on_undefined, bca_ties=bca_ties, batch=batch,
    )  # fmt: skip
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    name_a, name_b = check_names(names)
    problem = _setup(
        rule, target, metric, refit, y_val, [("s_val_a", s_val_a), ("s_val_b", s_val_b)],
        y_test, [("s_test_a", s_test_a), ("s_test_b", s_test_b)], pos_label, strata_val,
        clusters_val, strata_test, clusters_test,
    )  # fmt: skip
    with collect_warnings() as caught:
        run = _run(problem, opts, [f"system {name_a}", f"system {name_b}"])
    _reemit(caught, 2)
    reps = run.values[run.defined]
    diffs = reps[:, 1] - reps[:, 0]
    est = run.estimates
    diff_hat = float(est[1] - est[0])
    jack = None
    if opts.method == "bca":
        with np.errstate(divide="ignore", invalid="ignore"):
            v, t = problem.jackknife(run.t_hat)
        jack = [
            _pooled_jackknife(None if v is None else v[:, 1] - v[:, 0], t[:, 1] - t[:, 0]),
            _pooled_jackknife(None if v is None else v[:, 0], t[:, 0]),
            _pooled_jackknife(None if v is None else v[:, 1], t[:, 1]),
        ]
    bounds = None
    if problem.bounds is not None:
        lo, hi = problem.bounds
        bounds = (lo - hi, hi - lo)
    with collect_warnings() as caught:
        out = _interval(
            opts.method, diff_hat, diffs, opts.confidence_level,
            None if jack is None else jack[0], bounds, opts.bca_ties,
        )  # fmt: skip
        own = [
            _interval(
                opts.method, float(est[j]), reps[:, j], opts.confidence_level,
                None if jack is None else jack[1 + j], problem.bounds, opts.bca_ties, warn=False,
            )
            for j in (0, 1)
        ]  # fmt: skip
    _reemit(caught, 2)
    se = float(np.std(diffs, ddof=1)) if diffs.size > 1 else math.nan
    p_value = bootstrap_p_value(
        opts.method, diff_hat, diffs, alternative, jackknife_details=out.details
    )
    return ThresholdComparisonResult(
        metric=problem.label, name_a=name_a, name_b=name_b, estimate_a=float(est[0]),
        estimate_b=float(est[1]), difference=diff_hat, low=out.low, high=out.high,
        confidence_level=opts.confidence_level, method=opts.method, p_value=p_value,
        alternative=alternative, test="bootstrap", standard_error=se,
        excludes_zero=bool(out.low > 0 or out.high < 0),
        interval_a=(own[0].low, own[0].high), interval_b=(own[1].low, own[1].high),
        n=problem.design_test.n_rows, n_clusters=problem.design_test.n_clusters,
        n_resamples=opts.n_resamples, seed=opts.seed, n_undefined=run.n_undefined,
        mcse_low=out.mcse_low, mcse_high=out.mcse_high,
        design="paired " + problem.describe_design(), distribution=freeze(diffs),
        distribution_a=freeze(np.ascontiguousarray(reps[:, 0])),
        distribution_b=freeze(np.ascontiguousarray(reps[:, 1])), notes=out.notes,
        details=dict(out.details), rule=problem.rule.label(problem.target),
        target=problem.target, refit=problem.refit, threshold_a=float(run.t_hat[0]),
        threshold_b=float(run.t_hat[1]),
        thresholds_a=freeze(np.ascontiguousarray(run.thresholds[run.defined, 0])),
        thresholds_b=freeze(np.ascontiguousarray(run.thresholds[run.defined, 1])),
        n_val=problem.design_val.n_rows,
    )  # fmt: skip
