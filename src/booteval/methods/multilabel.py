"""Macro-averaged recall and F1 for multi-label data, bootstrapped over instances or labels (R22).

Data are two ``n x L`` 0/1 matrices: ``Y_true[i, l] = 1`` when instance ``i``
carries label ``l``, and ``Y_pred`` the system's decisions. Per label ``l``,
``TP_l``, ``FN_l`` and ``FP_l`` are column sums, recall is
``TP / (TP + FN)`` and F1 is ``2 TP / (2 TP + FP + FN)``; the macro average is
their unweighted mean over labels (as ``sklearn.metrics.recall_score`` /
``f1_score`` with ``average="macro"``).

Two resampling units, two different questions
---------------------------------------------
``resample="instances"``
    Rows (documents) are drawn with replacement; the label set is fixed. The
    interval answers: *how would the macro average vary over new documents
    from the same population, scored on these same L labels?* It assumes the
    instances are independent; labels may be arbitrarily correlated (each
    replicate keeps whole rows). Every replicate is computed from weighted
    count sums: one ``(batch, n) @ (n, 3L)`` (sparse) product per batch, no loop over
    replicates. Weights come from :func:`booteval.core.design.make_design`\\ ``(n)`` (so
    replicate ``b`` is the same for any ``batch``).
``resample="labels"``
    The L per-label values computed on all instances are drawn with
    replacement and averaged. The interval answers: *how would the macro
    average vary over a new set of labels like these, on these documents?*
    It treats the labels as a random sample from a population of labels (and
    ignores the sampling noise of each per-label value, since the documents
    are held fixed). It needs several labels; with few labels it is
    meaningless, and it is typically much wider than the instance interval
    when labels differ in difficulty. Weights come from
    :func:`booteval.core.design.make_design`\\ ``(L)``.

Labels without positives (``undefined=``)
-----------------------------------------
Recall of a label with no positive instance is ``0 / 0``; so is F1 of a label
with no positive and no predicted positive. The policy, applied to the
original data and to every replicate alike:

``"zero"`` (default)
    count the label as 0 (scikit-learn's default ``zero_division``);
``"one"``
    count it as 1 (``zero_division=1``);
``"exclude"``
    average over the defined labels only (``zero_division=np.nan``); a
    replicate with no defined label is undefined, dropped and counted.

The result's ``details`` hold ``undefined_labels`` (on the original data) and
``mean_undefined_labels`` (the average number per replicate).

Interval methods: ``"bca"`` (default; jackknife over instances or labels,
following ``resample``), ``"percentile"``, ``"basic"``, ``"normal"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.design import make_design
from ..core.engine import check_choice, check_run_options, run_engine, screen_undefined
from ..core.errors import InvalidInputError
from ..core.intervals import methods_offered
from ..core.options import entry_point
from ..metrics.base import matmul, safe_divide
from ..metrics.confusion import confusion_parts, confusion_ratio, zero_division_value
from ..metrics.registry import REGISTRY
from ..results import CIResult, IntervalRecipe, LazyJackknife, freeze

__all__ = [
    "MULTILABEL_METHODS",
    "MULTILABEL_METRICS",
    "MULTILABEL_RESAMPLE",
    "UNDEFINED_LABEL_POLICIES",
    "macro_average",
    "multilabel_ci",
    "per_label_scores",
]

#: the registry's metrics that declare multi-label scores
MULTILABEL_METRICS: tuple[str, ...] = tuple(n for n, cls in REGISTRY.items() if cls.multilabel)
MULTILABEL_RESAMPLE: tuple[str, ...] = ("instances", "labels")
MULTILABEL_METHODS: tuple[str, ...] = methods_offered(standard_errors=False)
UNDEFINED_LABEL_POLICIES: tuple[str, ...] = ("zero", "one", "exclude")
#: label resampling needs at least this many labels
MIN_LABELS = 2
#: below this many labels, label resampling adds a note that the interval is rough
FEW_LABELS = 10
# rows of the instance jackknife computed at once
_JACK_CHUNK = 4096


def _as_binary_matrix(x: object, name: str) -> np.ndarray:
    if x is None:
        raise InvalidInputError(name, "an n x L 0/1 matrix", "None")
    if hasattr(x, "toarray"):
        x = x.toarray()
    elif hasattr(x, "to_numpy"):
        x = x.to_numpy()
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as exc:  # ragged rows
        raise InvalidInputError(name, "an n x L matrix of 0/1 label indicators", str(exc)) from None
    if a.ndim != 2:
        raise InvalidInputError(
            name, "a 2-D n x L matrix of 0/1 label indicators", f"an array of shape {a.shape}"
        )
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise InvalidInputError(name, "at least one instance and one label", f"shape {a.shape}")
    if a.dtype.kind == "b":
        return a.astype(np.float64)
    if a.dtype.kind not in "iuf":
        raise InvalidInputError(name, "a numeric 0/1 matrix", f"values of dtype {a.dtype}")
    bad = ~((a == 0) | (a == 1))
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise InvalidInputError(
            name,
            "binary label indicators (0 or 1)",
            f"{int(bad.sum())} other value(s), the first {a[i, j]!r} at row {i}, label {j}",
            "Pass decisions (e.g. scores >= threshold), not scores.",
        )
    return a.astype(np.float64)


def _check_pair(y_true: object, y_pred: object) -> tuple[np.ndarray, np.ndarray]:
    yt = _as_binary_matrix(y_true, "y_true")
    yp = _as_binary_matrix(y_pred, "y_pred")
    if yt.shape != yp.shape:
        raise InvalidInputError(
            "y_pred", f"the shape of `y_true` {yt.shape} (instances x labels)", f"{yp.shape}"
        )
    return yt, yp


def _scores(
    tp: np.ndarray, fn: np.ndarray, fp: np.ndarray, metric: str, undefined: str
) -> tuple[np.ndarray, np.ndarray]:
    """Per-label scores (the confusion-count core's, ``undefined``'s value where a label's
    is undefined: NaN for ``"exclude"``) and the undefined mask, any leading shape."""
    _, den = confusion_parts(metric, tp, fp, fn)
    vals = confusion_ratio(metric, tp, fp, fn, zero_division=zero_division_value(undefined))
    return vals, np.asarray(den) <= 0


def _nanmean_rows(vals: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Weighted mean over the last axis ignoring NaN; NaN where nothing is defined."""
    ok = np.isfinite(vals)
    w = ok.astype(float) if weights is None else weights * ok
    tot = w.sum(axis=-1)
    s = (np.where(ok, vals, 0.0) * w).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(tot > 0, s / np.where(tot > 0, tot, 1.0), np.nan)


def _stacked_scores(sums: np.ndarray, metric: str, undefined: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_scores` of sums laid out as ``TP | FN | FP`` on the last axis (3 L columns)."""
    n_labels = sums.shape[-1] // 3
    tp, fn, fp = sums[..., :n_labels], sums[..., n_labels : 2 * n_labels], sums[..., 2 * n_labels :]
    return _scores(tp, fn, fp, metric, undefined)


def per_label_scores(
    y_true: object, y_pred: object, metric: str = "recall", undefined: str = "zero"
) -> np.ndarray:
    """Per-label recall or F1 (NaN for an undefined label under ``undefined="exclude"``).

    Examples
    --------
    >>> yt = np.array([[1, 0], [1, 1], [0, 1]]); yp = np.array([[1, 0], [0, 1], [0, 0]])
    >>> per_label_scores(yt, yp, "recall").tolist()
    [0.5, 0.5]
    """
    check_choice(metric, "metric", MULTILABEL_METRICS)
    check_choice(undefined, "undefined", UNDEFINED_LABEL_POLICIES)
    yt, yp = _check_pair(y_true, y_pred)
    tp = (yt * yp).sum(axis=0)
    fn = (yt * (1 - yp)).sum(axis=0)
    fp = ((1 - yt) * yp).sum(axis=0)
    return _scores(tp, fn, fp, metric, undefined)[0]


def macro_average(
    y_true: object, y_pred: object, metric: str = "recall", undefined: str = "zero"
) -> float:
    """Macro-averaged recall or F1 of a multi-label prediction.

    Equal to ``sklearn.metrics.recall_score`` / ``f1_score`` with
    ``average="macro"`` and ``zero_division`` 0, 1 or ``np.nan`` for
    ``undefined`` ``"zero"``, ``"one"`` or ``"exclude"``.

    Examples
    --------
    >>> yt = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0]])
    >>> yp = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]])
    >>> macro_average(yt, yp, "recall"), macro_average(yt, yp, "recall", undefined="exclude")
    (0.3333333333333333, 0.5)
    """
    return float(_nanmean_rows(per_label_scores(y_true, y_pred, metric, undefined)))


class _Replicates:
    """The engine's view of a multi-label run: ``(macro score, undefined labels)`` per
    replicate from a batch of unit weights."""

    design = None
    has_standard_error = False
    thread_safe = True

    def __init__(self, replicate: Any, estimate: tuple[float, float]) -> None:
        self._replicate = replicate
        self._estimate = np.array(estimate)

    def estimate(self) -> np.ndarray:
        return self._estimate

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        return self._replicate(unit_weights)


@entry_point
def multilabel_ci(
    y_true: object, y_pred: object, *, metric: str = "recall", resample: str = "instances",
    undefined: str = "zero", method: str = "bca", confidence_level: float = 0.95,
    n_resamples: int = 10_000, seed: int | None = None, batch: int | None = None,
    on_undefined: str = "drop", workers: int | None = None, engine: str = "auto",
    progress: Any = None,
) -> CIResult:  # fmt: skip
    """Bootstrap interval for macro-averaged recall or F1 of multi-label predictions.

    Parameters
    ----------
    y_true, y_pred : array-like, shape (n, L)
        0/1 (or boolean) label indicator matrices; scipy sparse and pandas
        frames are accepted.
    metric : {"recall", "f1"}
    resample : {"instances", "labels"}
        The resampling unit; the two answer different questions (see the
        module notes).
    undefined : {"zero", "one", "exclude"}
        Policy for labels without positives (see the module notes).
    method : {"bca", "percentile", "basic", "normal"}
    confidence_level : float
    n_resamples : int
    seed : int, optional
        Recorded in the result; drawn when ``None``.
    batch : int, optional
        Replicates per batch (results do not depend on it).
    on_undefined : {"drop", "raise"}
        For replicates with no defined label (only under ``"exclude"``).
    workers : int, optional
        Threads for the resampling (default: all cores); never changes the result.
    {engine}
    {progress}

    Returns
    -------
    CIResult
        ``details`` holds ``resample``, ``undefined``, ``undefined_labels``,
        ``mean_undefined_labels`` and ``n_labels``; ``jackknife`` the
        leave-one-instance-out or leave-one-label-out values.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> yt = (rng.random((60, 5)) < 0.4).astype(int)
    >>> yp = np.where(rng.random((60, 5)) < 0.8, yt, 1 - yt)
    >>> r = multilabel_ci(yt, yp, n_resamples=1000, seed=0)
    >>> r.metric, bool(r.low < r.estimate < r.high)
    ('macro recall', True)
    >>> multilabel_ci(yt, yp, resample="labels", n_resamples=1000, seed=0).n
    5
    """
    check_choice(metric, "metric", MULTILABEL_METRICS)
    check_choice(resample, "resample", MULTILABEL_RESAMPLE)
    check_choice(undefined, "undefined", UNDEFINED_LABEL_POLICIES)
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed, method=method,
        on_undefined=on_undefined, batch=batch, workers=workers, methods=MULTILABEL_METHODS,
    )  # fmt: skip
    yt, yp = _check_pair(y_true, y_pred)
    n, n_labels = yt.shape
    b, seed_int = opts.n_resamples, opts.seed

    # per-row statistics: TP | FN | FP indicators, (n, 3L)
    stats = np.hstack([yt * yp, yt * (1 - yp), (1 - yt) * yp])
    totals = stats.sum(axis=0)
    # sparse, so that each replicate's sums do not depend on its position in the batch
    stats_sparse = sp.csr_matrix(stats)
    lab_vals, lab_undef = _stacked_scores(totals, metric, undefined)
    estimate = float(_nanmean_rows(lab_vals))
    n_undef_labels = int(lab_undef.sum())
    notes: list[str] = []

    values_of_sums = _values_of_sums(metric, undefined)  # (batch, 3L) sums -> replicates
    if resample == "instances":
        design = make_design(n)

        def replicate(w: np.ndarray) -> np.ndarray:
            # (batch, 3L) sums: one sparse product per batch
            return values_of_sums(matmul(w, stats_sparse))

        units, unit_name = n, "instances"

        def jackknife() -> np.ndarray:
            out = np.empty(n)
            for lo in range(0, n, _JACK_CHUNK):
                hi = min(lo + _JACK_CHUNK, n)
                loo = totals[None, :] - stats[lo:hi]
                vals, _ = _stacked_scores(loo, metric, undefined)
                out[lo:hi] = _nanmean_rows(vals)
            return out

        design_text = f"iid bootstrap over instances ({n} instances, {n_labels} labels fixed)"
    else:
        if n_labels < MIN_LABELS:
            raise InvalidInputError(
                "y_true",
                f"at least {MIN_LABELS} labels (columns) for resample='labels'",
                f"{n_labels} label(s)",
                "Use resample='instances' to bootstrap over instances.",
            )
        if n_labels < FEW_LABELS:
            notes.append(
                f"only {n_labels} labels: an interval over labels treats them as a sample "
                "from a population of labels and is rough with so few"
            )
        design = make_design(n_labels)

        def replicate(w: np.ndarray) -> np.ndarray:  # w: (batch, L) label counts
            return np.column_stack(
                [_nanmean_rows(np.broadcast_to(lab_vals, w.shape), w), w @ lab_undef.astype(float)]
            )

        units, unit_name = n_labels, "labels"

        def jackknife() -> np.ndarray:
            keep = ~np.eye(n_labels, dtype=bool)
            return _nanmean_rows(np.broadcast_to(lab_vals, (n_labels, n_labels)), keep * 1.0)

        design_text = (
            f"iid bootstrap over labels ({n_labels} labels as a sample of labels; "
            f"{n} instances fixed)"
        )

    if n_undef_labels:
        notes.append(
            f"{n_undef_labels} of {n_labels} labels have no positives"
            + (" and no predicted positives" if metric == "f1" else "")
            + f" on the original data: counted as {_POLICY_TEXT[undefined]}"
        )
    # the engine's loop (batches, threads, progress); column 1 counts undefined labels
    run = _Replicates(replicate, (estimate, float(n_undef_labels)))
    if resample == "instances":  # sums of per-instance counts: the compiled sums kernel
        kernel = lambda k: k.sums_runner(stats, values_of_sums)  # noqa: E731
    else:  # a weighted mean over labels, and the undefined ones: sums of per-label columns
        per_label, of_sums = _label_sums(lab_vals, lab_undef)
        kernel = lambda k: k.sums_runner(per_label, of_sums)  # noqa: E731
    ran = run_engine(
        run, design, n_resamples=b, seed=seed_int, engine=engine, batch=opts.batch,
        workers=opts.workers, kernel=kernel,
    )  # fmt: skip
    notes.extend(ran.notes)
    pairs = ran.values
    design_text += ran.engine
    reps, undef_count = pairs[:, 0], float(pairs[:, 1].sum())
    defined = np.isfinite(reps)
    label = f"macro {metric}"
    n_undefined = screen_undefined(defined, f"{label} (every label undefined)", opts.on_undefined)
    values = reps[defined]
    result = CIResult(
        estimate=estimate, low=np.nan, high=np.nan, confidence_level=opts.confidence_level,
        method=opts.method, metric=label, n=units, n_clusters=None, effective_n=float(units),
        n_resamples=b, seed=seed_int,
        standard_error=float(np.std(values, ddof=1)) if values.size > 1 else 0.0,
        n_undefined=n_undefined, mcse_low=np.nan, mcse_high=np.nan, design=design_text,
        transform=None, distribution=freeze(values),
        _recompute=IntervalRecipe(
            MULTILABEL_METHODS, bounds=(0.0, 1.0), ties=opts.bca_ties,
            notes_before=tuple(notes), jackknife=LazyJackknife(jackknife),
            details={
                "resample": resample,
                "unit": unit_name,
                "undefined": undefined,
                "undefined_labels": n_undef_labels,
                "mean_undefined_labels": undef_count / b,
                "n_labels": n_labels,
                "n_instances": n,
            },
        ),
    )  # fmt: skip
    return result.with_method(opts.method)


def _label_sums(lab_vals: np.ndarray, lab_undef: np.ndarray) -> tuple[np.ndarray, Any]:
    """Per-label columns whose weighted sums give a replicate over labels, and the map
    from those sums to the replicate's ``(macro score, undefined labels)``."""
    ok = np.isfinite(lab_vals)
    cols = np.column_stack([np.where(ok, lab_vals, 0.0), ok, lab_undef]).astype(np.float64)

    def values(sums: np.ndarray) -> np.ndarray:  # NaN where no drawn label is defined
        return np.column_stack([safe_divide(sums[:, 0], sums[:, 1], np.nan), sums[:, 2]])

    return cols, values


def _values_of_sums(metric: str, undefined: str) -> Any:
    """Replicates from ``(batch, 3L)`` sums: the macro score and the undefined labels."""

    def values(sums: np.ndarray) -> np.ndarray:
        vals, und = _stacked_scores(sums, metric, undefined)
        return np.column_stack([_nanmean_rows(vals), und.sum(axis=1)])

    return values


_POLICY_TEXT = {
    "zero": "0 (undefined='zero')",
    "one": "1 (undefined='one')",
    "exclude": "absent from the average (undefined='exclude')",
}
