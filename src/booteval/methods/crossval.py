"""Confidence intervals for cross-validated error estimates.

Per-fold cross-validation (CV) errors are *not* independent: every row is used to train the
models of all folds but one, so the training sets overlap and the fold errors are positively
correlated. The textbook interval ``mean ± t * sd / sqrt(J)`` over the ``J`` fold values ignores
that correlation and undercovers. This module gives three intervals:

:func:`cv_t_interval` with ``method="naive"``
    ``mean ± t_{J-1} * s * sqrt(1/J)``: the naive t interval, kept for comparison only. Do not
    report it as an interval for the generalization error.
:func:`cv_t_interval` with ``method="corrected"`` (the default)
    The *corrected resampled t* interval of Nadeau and Bengio (2003):
    ``mean ± t_{J-1} * s * sqrt(1/J + n_test/n_train)``, where ``J = folds x repeats`` is the
    number of per-fold values and ``n_test/n_train`` the test/train size ratio of one split
    (``1/(K-1)`` for K-fold CV). The ``n_test/n_train`` term is a heuristic correction for the
    correlation between splits, derived for random train/test splits and widely applied to
    (repeated) K-fold CV (Bouckaert and Frank, 2004). It needs only the per-fold metric values,
    so it works for *any* metric (AUC, F1, ...), including ones that are not a mean of
    per-row losses.
:func:`nested_cv_interval`
    The nested CV interval of Bates, Hastie and Tibshirani (2023, JASA, "Cross-validation: what
    does it estimate and how well does it do it?"). It refits the caller's estimator
    ``R x (K + K(K-1)/2)`` times to estimate the mean squared error of the CV estimator
    directly, and forms ``(err_NCV - bias) ± z * SE`` with their bias correction. It needs a
    *decomposable* loss (one value per row: squared error, absolute error, 0-1 loss) and the
    estimator itself, and costs many refits.

Which one to use
----------------
* You have the estimator, a per-row loss and the compute for a few hundred to a few thousand
  refits: use :func:`nested_cv_interval`. It is the one shown to keep close to nominal coverage
  where the naive interval undercovers badly (high-dimensional or unstable models, small ``n``).
* You have only per-fold metric values (from someone else's CV, or a non-decomposable metric such
  as ROC-AUC): use the corrected resampled t interval, ideally from repeated K-fold CV
  (e.g. 10 x 10). It is an approximation without a coverage guarantee, more conservative than
  the naive interval; say so when you report it.
* Never use the naive interval except as a baseline.

All three speak about the error of the *procedure* trained on about ``n`` rows from this
population (Bates et al. show CV estimates the average error over training sets more than the
error of the particular model fitted to your data), not about one frozen model.

Reproducibility: the fold assignment of repetition ``r`` is drawn from
the ``crossval.folds`` stream of :mod:`booteval.core.streams` at key ``r``, so a seed gives
the same folds whatever the number
of repetitions before it.

Examples
--------
>>> r = cv_t_interval([0.81, 0.79, 0.84, 0.80, 0.78], n_train=400, n_test=100)
>>> print(r)
0.8040 (0.7611, 0.8469)
>>> cv_t_interval([0.81, 0.79, 0.84, 0.80, 0.78], method="naive").format(scale=100, digits=1)
'80.4 (77.5, 83.3)'
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import DegenerateIntervalWarning, InvalidInputError, warn
from ..core.lazy import stats
from ..core.options import accepts_options
from ..core.params import validated
from ..core.streams import generator
from ..core.validation import (
    as_float_array,
    check_confidence_level,
    check_positive_int,
    check_seed,
    describe_value,
)
from ..results import Result

__all__ = ["CVInterval", "NestedCVInterval", "cv_t_interval", "nested_cv_interval"]

LOSSES = ("squared_error", "absolute_error", "zero_one")
_LOSS_ALIASES = {"mse": "squared_error", "mae": "absolute_error", "misclassification": "zero_one"}


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class CVInterval(Result):
    """A t interval from per-fold cross-validation values.

    Attributes
    ----------
    estimate : float
        Mean of the per-fold values.
    low, high : float
        The interval.
    confidence_level : float
    method : str
        ``"corrected"`` (Nadeau-Bengio corrected resampled t) or ``"naive"``.
    standard_error : float
        ``s * sqrt(1/J + ratio)`` (corrected) or ``s / sqrt(J)`` (naive).
    df : int
        Degrees of freedom of the t quantile, ``J - 1``.
    n_values : int
        ``J``, the number of per-fold values (folds x repeats).
    test_train_ratio : float or None
        ``n_test / n_train`` used by the correction (``None`` for the naive interval).
    notes : tuple of str
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    standard_error: float
    df: int
    n_values: int
    test_train_ratio: float | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class NestedCVInterval(Result):
    """The nested cross-validation interval of Bates, Hastie and Tibshirani (2023).

    Attributes
    ----------
    estimate : float
        Bias-corrected point estimate ``err_ncv - bias``.
    low, high : float
        ``estimate ± z * standard_error``.
    confidence_level : float
    standard_error : float
        ``sqrt((K-1)/K * MSE_hat)``, kept between ``se_naive`` and ``sqrt(K) * se_naive``.
    err_cv : float
        The ordinary K-fold CV estimate (outer folds, averaged over the repetitions).
    err_ncv : float
        The nested CV estimate (inner folds; models trained on ``n(K-2)/K`` rows).
    bias : float
        ``(1 + (K-2)/K) * (err_ncv - err_cv)``.
    mse_hat : float
        The nested estimate of the mean squared error of the CV estimator, before the
        ``(K-1)/K`` rescaling and the bounds (may be negative: it is a difference of means).
    se_naive : float
        ``sd(per-row CV losses) / sqrt(n)``.
    naive_low, naive_high : float
        The naive interval ``err_cv ± z * se_naive``, for comparison.
    fold_errors : numpy.ndarray
        Outer-fold mean losses, shape ``(n_repeats, n_folds)``: ordinary repeated K-fold CV
        values, usable with :func:`cv_t_interval`.
    n, n_folds, n_repeats : int
    n_fits : int
        Number of model fits.
    loss : str
    seed : int
    notes : tuple of str
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    standard_error: float
    err_cv: float
    err_ncv: float
    bias: float
    mse_hat: float
    se_naive: float
    naive_low: float
    naive_high: float
    fold_errors: np.ndarray = field(repr=False)
    n: int
    n_folds: int
    n_repeats: int
    n_fits: int
    loss: str
    seed: int
    notes: tuple[str, ...] = ()

    @property
    def method(self) -> str:
        """``"nested_cv"``."""
        return "nested_cv"


# --------------------------------------------------------------------------- per-fold t


def _check_ratio(value: object, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(float(value))
        or float(value) <= 0
    ):
        raise InvalidInputError(name, "a finite number > 0", describe_value(value))
    return float(value)


@validated
def cv_t_interval(
    values: Sequence[float] | np.ndarray, *, method: str = "corrected",
    n_train: float | None = None, n_test: float | None = None,
    test_train_ratio: float | None = None, confidence_level: float = 0.95,
) -> CVInterval:  # fmt: skip
    """A t interval for the mean of per-fold cross-validation metric values.

    Parameters
    ----------
    values : array-like of shape (J,) or (n_repeats, n_folds)
        One metric value per fold (any metric; for repeated CV all ``folds x repeats`` values,
        flattened). ``J >= 2``.
    method : {"corrected", "naive"}
        ``"corrected"``: the corrected resampled t of Nadeau and Bengio (2003), standard error
        ``s * sqrt(1/J + n_test/n_train)``. ``"naive"``: ``s / sqrt(J)``, which ignores the
        correlation between folds and undercovers; for comparison only.
    n_train, n_test : float, optional
        Training and test set sizes of one split (for K-fold on ``n`` rows:
        ``n (K-1)/K`` and ``n/K``). Give both, or ``test_train_ratio``; required for
        ``"corrected"``.
    test_train_ratio : float, optional
        ``n_test / n_train`` directly (``1/(K-1)`` for K-fold CV).
    confidence_level : float
        Default 0.95.

    Returns
    -------
    CVInterval
        The cross-validation error with its interval and the per-fold errors.

    Notes
    -----
    Use it when all you have is per-fold values, or the metric is not a mean of per-row losses;
    with the estimator and a per-row loss at hand, :func:`nested_cv_interval` is better
    founded. The correction was derived for independent random train/test splits; for K-fold
    CV it is a heuristic (see the module docstring). With repeated CV use many repetitions:
    the naive interval gets *narrower* with more repetitions although no information is added,
    while the corrected one does not shrink below ``s * sqrt(n_test/n_train)``.

    Examples
    --------
    >>> vals = [0.74, 0.76, 0.71, 0.78, 0.73]
    >>> cv_t_interval(vals, test_train_ratio=1 / 4).format(digits=3)
    '0.744 (0.694, 0.794)'
    >>> cv_t_interval(vals, method="naive").format(digits=3)
    '0.744 (0.710, 0.778)'
    """
    v = as_float_array(values, "values", ndim=(1, 2)).ravel()
    j = v.shape[0]
    if j < 2:
        raise InvalidInputError(
            "values", "at least 2 per-fold values (folds x repeats)", f"{j} value(s)"
        )
    level = check_confidence_level(confidence_level)
    if method not in ("corrected", "naive"):
        raise InvalidInputError("method", "'corrected' or 'naive'", describe_value(method))
    ratio: float | None = None
    if method == "corrected":
        if test_train_ratio is not None:
            if n_train is not None or n_test is not None:
                raise InvalidInputError(
                    "test_train_ratio",
                    "either `test_train_ratio` or `n_train` and `n_test`, not both",
                    describe_value(test_train_ratio),
                )
            ratio = _check_ratio(test_train_ratio, "test_train_ratio")
        elif n_train is not None and n_test is not None:
            ratio = _check_ratio(n_test, "n_test") / _check_ratio(n_train, "n_train")
        else:
            raise InvalidInputError(
                "test_train_ratio",
                "`test_train_ratio`, or both `n_train` and `n_test`, for method='corrected'",
                "neither" if n_train is None and n_test is None else "only one of the sizes",
                "For K-fold cross-validation the ratio is 1/(K-1).",
            )
    elif test_train_ratio is not None:
        _check_ratio(test_train_ratio, "test_train_ratio")

    mean = float(v.mean())
    s = float(v.std(ddof=1))
    factor = 1.0 / j + (ratio if ratio is not None else 0.0)
    se = s * math.sqrt(factor)
    t = float(stats.t.ppf(0.5 + level / 2.0, j - 1))
    notes: tuple[str, ...] = ()
    if s == 0.0:
        notes = ("all per-fold values are equal; the interval has zero width",)
        warn(notes[0], DegenerateIntervalWarning, stacklevel=2)
    return CVInterval(
        estimate=mean, low=mean - t * se, high=mean + t * se, confidence_level=level, method=method,
        standard_error=se, df=j - 1, n_values=j, test_train_ratio=ratio, notes=notes,
    )  # fmt: skip


# --------------------------------------------------------------------------- learners, losses


Learner = tuple[Callable[[np.ndarray, np.ndarray], Any], Callable[[Any, np.ndarray], np.ndarray]]


def _resolve_learner(estimator: object, fit: object, predict: object) -> Learner:
    """``(fit(X, y) -> model, predict(model, X) -> y_pred)`` from an estimator or callables."""
    if estimator is not None:
        if fit is not None or predict is not None:
            raise InvalidInputError(
                "estimator",
                "either `estimator` or `fit` and `predict`, not both",
                type(estimator).__name__,
            )
        if not (
            callable(getattr(estimator, "fit", None))
            and callable(getattr(estimator, "predict", None))
        ):
            raise InvalidInputError(
                "estimator",
                "an object with fit(X, y) and predict(X) methods (a scikit-learn estimator)",
                type(estimator).__name__,
            )
        try:
            from sklearn.base import clone as _clone  # optional dependency
        except ImportError:  # pragma: no cover - sklearn is optional
            _clone = copy.deepcopy

        def _fit(x: np.ndarray, y: np.ndarray) -> Any:
            try:
                model = _clone(estimator)
            except (TypeError, RuntimeError):
                model = copy.deepcopy(estimator)
            model.fit(x, y)
            return model

        def _predict(model: Any, x: np.ndarray) -> np.ndarray:
            return np.asarray(model.predict(x))

        return _fit, _predict
    if not callable(fit) or not callable(predict):
        raise InvalidInputError(
            "fit" if not callable(fit) else "predict",
            "an `estimator`, or two callables fit(X, y) -> model and predict(model, X) -> y_pred",
            describe_value(fit if not callable(fit) else predict),
        )

    def _predict2(model: Any, x: np.ndarray) -> np.ndarray:
        return np.asarray(predict(model, x))  # type: ignore[operator]

    return fit, _predict2  # type: ignore[return-value]


def _resolve_loss(
    loss: str | Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> tuple[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]:
    """A per-row loss ``f(y_true, y_pred) -> array of shape (n,)`` and its label."""
    if isinstance(loss, str):
        key = _LOSS_ALIASES.get(loss, loss)
        if key == "squared_error":
            return key, lambda y, p: (np.asarray(y, float) - np.asarray(p, float)) ** 2
        if key == "absolute_error":
            return key, lambda y, p: np.abs(np.asarray(y, float) - np.asarray(p, float))
        if key == "zero_one":
            return key, lambda y, p: (np.asarray(y) != np.asarray(p)).astype(np.float64)
        raise InvalidInputError(
            "loss",
            f"one of {', '.join(LOSSES)} or a callable returning one loss per row",
            repr(loss),
            "These estimators need a decomposable (per-row) loss; for a metric such as ROC-AUC "
            "use cv_t_interval on per-fold values.",
        )
    if callable(loss):
        name = getattr(loss, "__name__", "custom loss")

        def _checked(y: np.ndarray, p: np.ndarray) -> np.ndarray:
            out = np.asarray(loss(y, p), dtype=np.float64)
            if out.shape != (len(y),):
                raise InvalidInputError(
                    "loss",
                    f"a callable returning one loss per row (shape ({len(y)},))",
                    f"an output of shape {out.shape}",
                    "Return per-row losses, not their mean.",
                )
            return out

        return name, _checked
    raise InvalidInputError("loss", "a loss name or a callable", type(loss).__name__)


def _check_xy(x: object, y: object) -> tuple[np.ndarray, np.ndarray]:
    if x is None:
        raise InvalidInputError("X", "an array-like of features", "None")
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        x = x.to_numpy()
    if hasattr(y, "to_numpy") and not isinstance(y, np.ndarray):
        y = y.to_numpy()
    xa = np.asarray(x)
    ya = np.asarray(y)
    if xa.ndim == 0 or ya.ndim != 1:
        raise InvalidInputError(
            "y" if ya.ndim != 1 else "X",
            "X with one row per observation and a 1-D y",
            f"X of shape {xa.shape}, y of shape {ya.shape}",
        )
    if xa.shape[0] != ya.shape[0]:
        raise InvalidInputError(
            "y", f"the same number of rows as `X` ({xa.shape[0]})", f"{ya.shape[0]} rows"
        )
    return xa, ya


# --------------------------------------------------------------------------- nested CV


@accepts_options
@validated
def nested_cv_interval(
    X: Any, y: Any, estimator: Any = None, *,
    fit: Callable[[np.ndarray, np.ndarray], Any] | None = None,
    predict: Callable[[Any, np.ndarray], Any] | None = None,
    loss: str | Callable[[np.ndarray, np.ndarray], np.ndarray] = "squared_error", n_folds: int = 10,
    n_repeats: int = 200, confidence_level: float = 0.95, seed: int | None = None,
) -> NestedCVInterval:  # fmt: skip
    """Nested cross-validation interval for the prediction error (Bates, Hastie, Tibshirani 2023).

    For each of ``n_repeats`` random K-fold splits and each outer fold ``k``: an inner CV over
    the other ``K-1`` folds (models trained on ``K-2`` folds) gives the inner errors
    ``e_in``; a model trained on all folds but ``k`` gives the outer errors ``e_out`` on fold
    ``k``. With ``a = (mean(e_in) - mean(e_out))^2`` and ``b = var(e_out) / |fold k|``,
    ``MSE_hat = mean(a) - mean(b)`` estimates the mean squared error of the CV estimator. The
    interval is ``(err_ncv - bias) ± z * SE`` with ``err_ncv`` the mean of all inner errors,
    ``bias = (1 + (K-2)/K) * (err_ncv - err_cv)``, ``SE = sqrt((K-1)/K * MSE_hat)`` kept between
    the naive ``sd/sqrt(n)`` and ``sqrt(K)`` times it (as in the authors' recommendations and
    mlr3inferr).

    Parameters
    ----------
    X : array-like, shape (n, ...)
        Features; rows are indexed with integer arrays.
    y : array-like, shape (n,)
        Targets.
    estimator : object, optional
        A scikit-learn compatible estimator (``fit(X, y)``, ``predict(X)``); cloned for every fit.
    fit, predict : callable, optional
        Instead of ``estimator``: ``fit(X_train, y_train) -> model`` and
        ``predict(model, X_test) -> y_pred``.
    loss : {"squared_error", "absolute_error", "zero_one"} or callable
        A per-row loss; a callable ``loss(y_true, y_pred)`` must return one value per row.
    n_folds : int
        ``K >= 3`` (the inner CV needs two folds left out); each fold needs >= 2 rows.
    n_repeats : int
        Repetitions ``R >= 1`` of the random split; the authors use 200 or more for a stable
        ``MSE_hat``. Costs ``R * (K + K(K-1)/2)`` fits (inner fits are shared between the two
        outer folds they leave out).
    confidence_level : float
    seed : int, optional
        Fold assignment of repetition ``r`` from the ``crossval.folds`` stream at key ``r``.

    Returns
    -------
    NestedCVInterval
        Also carries the naive interval ``err_cv ± z * se_naive`` and the outer-fold errors.

    Notes
    -----
    Use it when you have the estimator, a per-row loss and the compute; it targets the error of
    the procedure at sample size ``n`` and has near nominal coverage where the naive interval
    undercovers (Bates et al. 2023). It does not apply to non-decomposable metrics (ROC-AUC,
    F1): use :func:`cv_t_interval` on per-fold values there.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)); y = X @ [1.0, -1.0, 0.5] + rng.normal(size=40)
    >>> fit = lambda X, y: np.linalg.lstsq(X, y, rcond=None)[0]
    >>> predict = lambda beta, X: X @ beta
    >>> r = nested_cv_interval(X, y, fit=fit, predict=predict, n_folds=5, n_repeats=5, seed=0)
    >>> r.low < r.estimate < r.high, r.naive_low < r.err_cv < r.naive_high, r.n_fits
    (True, True, 75)
    """
    xa, ya = _check_xy(X, y)
    fit_fn, predict_fn = _resolve_learner(estimator, fit, predict)
    loss_name, loss_fn = _resolve_loss(loss)
    k = check_positive_int(n_folds, "n_folds", minimum=3)
    reps = check_positive_int(n_repeats, "n_repeats", minimum=1)
    level = check_confidence_level(confidence_level)
    seed_int = check_seed(seed)
    n = ya.shape[0]
    if n < 2 * k:
        raise InvalidInputError(
            "n_folds",
            f"at most n/2 = {n // 2} folds so that each fold holds 2 rows",
            str(k),
        )

    a_list: list[float] = []
    b_list: list[float] = []
    inner_sum = 0.0
    inner_count = 0
    outer_losses = np.empty((reps, n))
    fold_errors = np.empty((reps, k))
    n_fits = 0
    for r in range(reps):
        fold_id = np.empty(n, dtype=np.intp)
        fold_id[generator("crossval.folds", seed_int, r).permutation(n)] = np.arange(n) % k
        folds = [np.flatnonzero(fold_id == f) for f in range(k)]
        # inner models: trained without folds f1 and f2, scored on both
        pair_loss: dict[tuple[int, int], np.ndarray] = {}
        for f1 in range(k - 1):
            for f2 in range(f1 + 1, k):
                train = np.flatnonzero((fold_id != f1) & (fold_id != f2))
                model = fit_fn(xa[train], ya[train])
                n_fits += 1
                for held, other in ((f1, f2), (f2, f1)):
                    idx = folds[held]
                    pair_loss[(other, held)] = loss_fn(ya[idx], predict_fn(model, xa[idx]))
        for f in range(k):
            idx = folds[f]
            model = fit_fn(xa[fold_id != f], ya[fold_id != f])
            n_fits += 1
            e_out = loss_fn(ya[idx], predict_fn(model, xa[idx]))
            outer_losses[r, idx] = e_out
            fold_errors[r, f] = e_out.mean()
            e_in = np.concatenate([pair_loss[(f, g)] for g in range(k) if g != f])
            inner_sum += float(e_in.sum())
            inner_count += e_in.shape[0]
            a_list.append((float(e_in.mean()) - float(e_out.mean())) ** 2)
            b_list.append(float(e_out.var(ddof=1)) / idx.shape[0])

    err_ncv = inner_sum / inner_count
    err_cv = float(outer_losses.mean())
    mse_hat = float(np.mean(a_list) - np.mean(b_list))
    se_naive = float(np.mean(outer_losses.std(axis=1, ddof=1))) / math.sqrt(n)
    se_raw = math.sqrt(max(0.0, (k - 1) / k * mse_hat))
    se = min(max(se_raw, se_naive), math.sqrt(k) * se_naive)
    notes: list[str] = []
    if se != se_raw:
        bound = "lower" if se > se_raw else "upper"
        notes.append(
            f"the nested estimate of the standard error ({se_raw:.4g}) was outside "
            f"[se_naive, sqrt(K) se_naive]; the {bound} bound was used"
        )
    bias = (1.0 + (k - 2) / k) * (err_ncv - err_cv)
    est = err_ncv - bias
    z = float(stats.norm.ppf(0.5 + level / 2.0))
    return NestedCVInterval(
        estimate=est, low=est - z * se, high=est + z * se, confidence_level=level,
        standard_error=se, err_cv=err_cv, err_ncv=err_ncv, bias=bias, mse_hat=mse_hat,
        se_naive=se_naive, naive_low=err_cv - z * se_naive, naive_high=err_cv + z * se_naive,
        fold_errors=fold_errors, n=n, n_folds=k, n_repeats=reps, n_fits=n_fits, loss=loss_name,
        seed=seed_int, notes=tuple(notes),
    )  # fmt: skip
