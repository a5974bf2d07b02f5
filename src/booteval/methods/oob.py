"""Out-of-bag, resubstitution and .632 / .632+ estimates of prediction error.

A model trained on a bootstrap sample of ``n`` rows sees only about ``1 - (1 - 1/n)^n ≈ 63.2 %``
of the distinct rows; the other ``≈ 36.8 %`` are *out of bag* (OOB) and can test it.

:func:`bootstrap_error_estimates` fits the caller's estimator on ``B`` bootstrap samples and on
the full data, and returns, from the same fits:

resubstitution (training) error ``err``
    The full-data model scored on its own training rows. Optimistically biased (zero for
    1-nearest-neighbour); no confidence interval is defined for it as an estimate of the
    prediction error, and none is given.
OOB / leave-one-out bootstrap error ``Err(1)``
    Each row is scored only by the models whose bootstrap sample did not contain it; its losses
    are averaged, then the rows are averaged (Efron and Tibshirani 1997, eq. 7). Pessimistically
    biased: each model was trained on ~0.632 n distinct rows. Interval: normal, with the
    delta-method standard error of Efron and Tibshirani (1997, Sect. 3)
    ``SE^2 = sum_i D_i^2``, ``D_i = (2 + 1/(n-1)) (E_i - Err(1)) / n + e_n cov_b(N_i^b, q^b)``
    with ``E_i`` row ``i``'s OOB error, ``N_i^b`` its count in bootstrap ``b``,
    ``q^b = sum_i [N_i^b = 0] L_i^b / n`` and ``e_n = (1 - 1/n)^{-n}``.
.632 ``0.368 err + 0.632 Err(1)``
    Efron (1983). Still optimistic for heavily overfitting rules.
.632+ ``(1 - w) err + w Err(1)'``
    Efron and Tibshirani (1997): no-information error ``gamma = mean_{i,j} L(y_i, f(x_j))`` (the
    full-data model's predictions paired with every target), ``Err(1)' = min(Err(1), gamma)``,
    relative overfitting rate ``R = (Err(1)' - err) / (gamma - err)`` (0 unless
    ``Err(1)' > err`` and ``gamma > err``; hence in [0, 1]) and ``w = .632 / (1 - .368 R)``.
    Intervals for .632 and .632+: normal, with the delta-method SE of ``Err(1)`` scaled by
    ``estimate / Err(1)``. This proportional scaling is an *approximation* (the .632 family is
    nearly proportional to ``Err(1)`` when ``err`` is small); the coverage of these intervals is
    not guaranteed, and the SE ignores the variability of ``err`` and ``gamma``.

The result also carries per-replicate values in the form mlxtend's ``bootstrap_point632_score``
computes them (replicate ``b``'s OOB error, and its model's error on *all* rows, Efron 1983
eq. 6.12); their spread is that of a one-replicate estimate, not a confidence interval for the
averaged estimates.

:func:`oob_ensemble_extrapolation` corrects the *ensemble-size* part of the OOB bias of a bagged
classifier's accuracy: a row's OOB vote uses only the ≈ 36.8 % of the ``B`` models that did not
see it. Assuming the OOB accuracy of ``m`` bagged models follows ``a(m) = a_inf - c/m``, OOB
accuracies at several ensemble sizes (by default ``B/2`` and ``B``, as in the reference text:
``a_inf = 2 a(B) - a(B/2)``) give ``a_inf`` and ``c``, and the accuracy of the full ensemble of
``B`` models is ``a_inf - c q / B`` with ``q = (1 - 1/n)^n`` the expected OOB fraction. It does
not correct the training-set-size part of the bias (each model saw ~63.2 % of the rows).

Reproducibility: bootstrap sample ``b`` is drawn from the ``oob.bootstrap`` stream of
:mod:`booteval.core.streams` at key ``b``,
the same in both functions, so a seed gives the same models in both.

Examples
--------
>>> from booteval.oob import point632, point632_plus
>>> point632(err1=0.30, err_train=0.10)
0.2264
>>> round(point632_plus(err1=0.30, err_train=0.10, no_information=0.50), 4)
0.2549
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from ..core.lazy import stats
from ..core.options import accepts_options
from ..core.params import renamed, validated
from ..core.streams import generator
from ..core.validation import (
    check_confidence_level,
    check_positive_int,
    check_seed,
    describe_value,
)
from ..results import Result, protocol_defaults
from .crossval import _check_xy, _resolve_learner, _resolve_loss
from .point632 import (
    W632,
    _gamma,
    _relative_overfitting,
    no_information_error,
    point632,
    point632_plus,
)

__all__ = [
    "BootstrapErrorEstimates",
    "ErrorEstimate",
    "OOBExtrapolation",
    "bootstrap_error_estimates",
    "no_information_error",
    "oob_ensemble_extrapolation",
    "point632",
    "point632_plus",
]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class ErrorEstimate(Result):
    """One error estimate with its interval (``low``/``high`` NaN where none is defined).

    Attributes
    ----------
    name : str
        ``"oob"``, ``"resubstitution"``, ``".632"`` or ``".632+"``.
    estimate, low, high : float
    standard_error : float
        NaN where no interval is defined.
    confidence_level : float
    interval : str
        How the interval was formed, in words (or why there is none).
    """

    _protocol_defaults = protocol_defaults(Result, method=lambda r: r.interval)

    name: str
    estimate: float
    low: float
    high: float
    standard_error: float
    confidence_level: float
    interval: str


@dataclass(frozen=True, eq=False)
class BootstrapErrorEstimates(Result):
    """Resubstitution, OOB, .632 and .632+ errors from one set of bootstrap fits.

    Attributes
    ----------
    resubstitution, oob, point632, point632_plus : ErrorEstimate
    no_information : float
        ``gamma``.
    relative_overfitting : float
        ``R'`` in [0, 1].
    weight : float
        The .632+ weight ``w = .632 / (1 - .368 R')``.
    row_oob_errors : numpy.ndarray
        ``E_i``, each row's mean loss over the models that did not see it (NaN for rows in every
        bootstrap sample; they are left out of ``Err(1)``).
    replicate_oob_errors : numpy.ndarray
        Per bootstrap ``b``: mean loss of model ``b`` on its OOB rows (mlxtend's ``"oob"``).
    replicate_train_errors : numpy.ndarray
        Per bootstrap ``b``: mean loss of model ``b`` on all ``n`` rows (Efron 1983, eq. 6.12; what
        mlxtend's ``".632"`` uses as the training error).
    n, n_bootstraps : int
    n_rows_never_oob : int
    loss : str
    seed : int
    notes : tuple of str
    """

    # a collection of estimates: the protocol's run attributes, no single interval
    _protocol_defaults = protocol_defaults(
        Result,
        n_resamples=lambda r: r.n_bootstraps,
        method="bootstrap error estimates",
        confidence_level=lambda r: r.oob.confidence_level,
    )

    resubstitution: ErrorEstimate
    oob: ErrorEstimate
    point632: ErrorEstimate
    point632_plus: ErrorEstimate
    no_information: float
    relative_overfitting: float
    weight: float
    row_oob_errors: np.ndarray = field(repr=False)
    replicate_oob_errors: np.ndarray = field(repr=False)
    replicate_train_errors: np.ndarray = field(repr=False)
    n: int
    n_bootstraps: int
    n_rows_never_oob: int
    loss: str
    seed: int
    notes: tuple[str, ...] = ()

    @property
    def replicate_632(self) -> np.ndarray:
        """Per-replicate .632 values ``0.632 oob_b + 0.368 train_b`` (mlxtend's, as errors)."""
        return W632 * self.replicate_oob_errors + (1 - W632) * self.replicate_train_errors

    def summary(self, scale: float = 1.0, digits: int = 4) -> str:
        """One line per estimate."""
        rows = [self.resubstitution, self.oob, self.point632, self.point632_plus]
        return "\n".join(f"{e.name:<15}{e.format(scale, digits)}" for e in rows)

    def __str__(self) -> str:
        return self.summary()

    def format(self, scale: float = 1.0, digits: int = 4) -> str:
        """The estimates as a text table (see :meth:`summary`)."""
        return self.summary(scale, digits)

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """The table and the notes."""
        notes = [f"note: {note}" for note in self.notes]
        return "\n".join([self.summary(scale, digits), *notes])


@dataclass(frozen=True, eq=False)
class OOBExtrapolation(Result):
    """OOB accuracy of a bagged classifier, extrapolated over ensemble size.

    Attributes
    ----------
    estimate, low, high : float
        Extrapolated accuracy of the full ensemble of ``n_estimators`` models,
        ``a_inf - c q / B``, with a normal interval.
    accuracy_infinite : float
        ``a_inf``, the extrapolated accuracy of an infinite ensemble.
    c : float
        The fitted ``c`` of ``a(m) = a_inf - c/m`` (in nominal ensemble sizes).
    oob_accuracy, oob_low, oob_high : float
        The uncorrected OOB accuracy with all ``B`` models, and its normal interval.
    sizes : tuple of int
        Ensemble sizes used (the first ``m`` bootstrap models).
    accuracies : tuple of float
        OOB accuracy at each size.
    standard_error : float
    effective_fraction : float
        ``q = (1 - 1/n)^n``.
    confidence_level : float
    n, n_estimators, n_rows_used : int
    seed : int
    notes : tuple of str
    """

    _protocol_defaults = protocol_defaults(
        Result,
        method="oob extrapolation",
    )

    estimate: float
    low: float
    high: float
    accuracy_infinite: float
    c: float
    oob_accuracy: float
    oob_low: float
    oob_high: float
    sizes: tuple[int, ...]
    accuracies: tuple[float, ...]
    standard_error: float
    effective_fraction: float
    confidence_level: float
    n: int
    n_estimators: int
    n_rows_used: int
    seed: int
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------- fitting


def _bootstrap_fits(
    xa: np.ndarray,
    ya: np.ndarray,
    fit_fn: Callable[[np.ndarray, np.ndarray], Any],
    predict_fn: Callable[[Any, np.ndarray], np.ndarray],
    b: int,
    seed: int,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Counts ``N`` of shape (B, n) and each bootstrap model's predictions on all rows."""
    n = ya.shape[0]
    counts = np.empty((b, n), dtype=np.int64)
    preds = []
    for j in range(b):
        idx = generator("oob.bootstrap", seed, j).integers(0, n, size=n)
        counts[j] = np.bincount(idx, minlength=n)
        model = fit_fn(xa[idx], ya[idx])
        p = np.asarray(predict_fn(model, xa))
        if p.shape[0] != n:
            raise InvalidInputError(
                "predict", f"{n} predictions (one per row)", f"an output of shape {p.shape}"
            )
        preds.append(p)
    return counts, preds


def _normal(est: float, se: float, level: float, lo: float, hi: float) -> tuple[float, float]:
    z = float(stats.norm.ppf(0.5 + level / 2.0))
    return max(est - z * se, lo), min(est + z * se, hi)


@accepts_options
@renamed(n_bootstraps="n_resamples")
@validated
def bootstrap_error_estimates(
    X: Any, y: Any, estimator: Any = None, *,
    fit: Callable[[np.ndarray, np.ndarray], Any] | None = None,
    predict: Callable[[Any, np.ndarray], Any] | None = None,
    loss: str | Callable[[np.ndarray, np.ndarray], np.ndarray] = "zero_one", n_resamples: int = 200,
    confidence_level: float = 0.95, seed: int | None = None,
) -> BootstrapErrorEstimates:  # fmt: skip
    """Resubstitution, OOB (leave-one-out bootstrap), .632 and .632+ prediction errors.

    Parameters
    ----------
    X : array-like, shape (n, ...)
        Features; rows are indexed with integer arrays.
    y : array-like, shape (n,)
        Targets (labels for ``"zero_one"``).
    estimator : object, optional
        A scikit-learn compatible estimator; cloned for every fit.
    fit, predict : callable, optional
        Instead of ``estimator``: ``fit(X_train, y_train) -> model``,
        ``predict(model, X_test) -> y_pred``.
    loss : {"zero_one", "squared_error", "absolute_error"} or callable
        A per-row loss (a callable ``loss(y_true, y_pred)`` returns one value per row). Default
        0-1 loss (misclassification error = 1 - accuracy).
    n_resamples : int
        ``B >= 2`` bootstrap fits; 50-200 suffice for the estimates (Efron and Tibshirani), more
        for a stable delta-method SE. Rows that are in every bootstrap sample are left out of
        ``Err(1)`` and counted.
    confidence_level : float
    seed : int, optional
        Bootstrap ``b`` from the ``oob.bootstrap`` stream at key ``b``.

    Returns
    -------
    BootstrapErrorEstimates
        See the module docstring for the formulas and which intervals are defined.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    >>> def fit(X, y):  # nearest centroid
    ...     return np.array([X[y == k].mean(axis=0) for k in (0, 1)])
    >>> def predict(c, X):
    ...     return ((X[:, None, :] - c) ** 2).sum(-1).argmin(1)
    >>> r = bootstrap_error_estimates(X, y, fit=fit, predict=predict, n_resamples=50, seed=0)
    >>> r.resubstitution.estimate <= r.point632.estimate <= r.oob.estimate
    True
    >>> r.oob.low < r.oob.estimate < r.oob.high
    True
    """
    xa, ya = _check_xy(X, y)
    fit_fn, predict_fn = _resolve_learner(estimator, fit, predict)
    loss_name, loss_fn = _resolve_loss(loss)
    b = check_positive_int(n_resamples, "n_resamples", minimum=2)
    level = check_confidence_level(confidence_level)
    seed_int = check_seed(seed)
    n = ya.shape[0]
    if n < 2:
        raise InvalidInputError("y", "at least 2 rows", f"{n} row(s)")

    model0 = fit_fn(xa, ya)
    pred0 = np.asarray(predict_fn(model0, xa))
    err_train = float(loss_fn(ya, pred0).mean())
    gamma = _gamma(ya, pred0, loss_name, loss_fn)

    counts, preds = _bootstrap_fits(xa, ya, fit_fn, predict_fn, b, seed_int)
    losses = np.stack([loss_fn(ya, p) for p in preds])  # (B, n)
    out = counts == 0
    n_oob = out.sum(axis=0)
    ok = n_oob > 0
    notes: list[str] = []
    if not ok.any():
        raise InvalidInputError(
            "n_resamples",
            "enough bootstrap samples that some row is out of bag",
            str(b),
            "Increase n_resamples.",
        )
    if not ok.all():
        notes.append(
            f"{int((~ok).sum())} row(s) were in every bootstrap sample and are left out of "
            "the OOB error; increase n_resamples"
        )
    masked = np.where(out, losses, 0.0)
    row_err = np.full(n, np.nan)
    row_err[ok] = masked[:, ok].sum(axis=0) / n_oob[ok]
    err1 = float(row_err[ok].mean())

    # delta-method SE (Efron and Tibshirani 1997, Sect. 3)
    q = masked.sum(axis=1) / n
    e_n = (1.0 - 1.0 / n) ** (-n)
    nc = counts[:, ok] - counts[:, ok].mean(axis=0)
    cov = (nc * (q - q.mean())[:, None]).sum(axis=0) / (b - 1)
    d = (2.0 + 1.0 / (n - 1)) * (row_err[ok] - err1) / n + e_n * cov
    se1 = float(math.sqrt(np.sum(d**2)))

    hi_bound = 1.0 if loss_name == "zero_one" else math.inf
    lo_bound = 0.0 if loss_name in ("zero_one", "squared_error", "absolute_error") else -math.inf
    e632 = point632(err1, err_train)
    e1p, r = _relative_overfitting(err1, err_train, gamma)
    w = W632 / (1 - (1 - W632) * r)
    e632p = (1 - w) * err_train + w * e1p

    def _scaled(name: str, est: float) -> ErrorEstimate:
        se = se1 * est / err1 if err1 > 0 else 0.0
        lo, hi = _normal(est, se, level, lo_bound, hi_bound)
        return ErrorEstimate(
            name, est, lo, hi, se, level,
            "normal; SE = delta-method SE of the OOB error x estimate / OOB error (approximate)",
        )  # fmt: skip

    lo1, hi1 = _normal(err1, se1, level, lo_bound, hi_bound)
    replicate_oob = np.array(
        [losses[j, out[j]].mean() if out[j].any() else np.nan for j in range(b)]
    )
    return BootstrapErrorEstimates(
        resubstitution=ErrorEstimate(
            "resubstitution",
            err_train,
            math.nan,
            math.nan,
            math.nan,
            level,
            "none: the training error is optimistically biased for the prediction error",
        ),
        oob=ErrorEstimate(
            "oob", err1, lo1, hi1, se1, level, "normal; delta-method SE (Efron-Tibshirani 1997)"
        ),
        point632=_scaled(".632", e632),
        point632_plus=_scaled(".632+", e632p),
        no_information=gamma,
        relative_overfitting=r,
        weight=w,
        row_oob_errors=row_err,
        replicate_oob_errors=replicate_oob,
        replicate_train_errors=losses.mean(axis=1),
        n=n,
        n_bootstraps=b,
        n_rows_never_oob=int((~ok).sum()),
        loss=loss_name,
        seed=seed_int,
        notes=tuple(notes),
    )


@accepts_options
@validated
def oob_ensemble_extrapolation(
    X: Any, y: Any, estimator: Any = None, *,
    fit: Callable[[np.ndarray, np.ndarray], Any] | None = None,
    predict: Callable[[Any, np.ndarray], Any] | None = None, n_estimators: int = 100,
    sizes: tuple[int, ...] | None = None, confidence_level: float = 0.95, seed: int | None = None,
) -> OOBExtrapolation:  # fmt: skip
    """Bias-correct the OOB accuracy of a bagged (majority-vote) classifier by ensemble size.

    Fits ``n_estimators`` models on bootstrap samples. The OOB vote of row ``i`` with the first
    ``m`` models is the majority label among those of them that did not see row ``i`` (ties go to
    the label that sorts first); ``a(m)`` is the accuracy of these votes over the rows that have
    at least one OOB model at the smallest size. ``a(m) = a_inf - c/m`` is fitted by least
    squares over ``sizes`` (an exact solve for two sizes: ``a_inf = 2 a(B) - a(B/2)`` for the
    default ``(B/2, B)``), and the full ensemble's accuracy is extrapolated as
    ``a_inf - c q / B`` (a row's OOB vote uses about ``q B`` models, ``q = (1 - 1/n)^n``).

    Parameters
    ----------
    X, y : array-like
        Features and class labels.
    estimator, fit, predict
        As in :func:`bootstrap_error_estimates`; ``predict`` returns labels.
    n_estimators : int
        ``B >= 2``.
    sizes : tuple of int, optional
        At least two distinct ensemble sizes in ``[1, B]``; default ``(B // 2, B)``.
    confidence_level : float
    seed : int, optional
        Same bootstrap streams as :func:`bootstrap_error_estimates`.

    Returns
    -------
    OOBExtrapolation
        The extrapolated error with its interval and the fitted curve.

    Notes
    -----
    The interval is a normal approximation *conditional on the fitted models*: the estimate is
    a mean over rows of ``z_i = sum_k w_k correct_i(m_k)`` (fixed least-squares weights ``w``),
    and its SE is ``sd(z) / sqrt(n)``. It ignores the variability from the bootstrap samples and
    the dependence between rows through training, and rests on the assumed form of ``a(m)``; it
    is a rough guide, not a calibrated interval. Only the ensemble-size part of the OOB bias is
    corrected, not the training-set-size part.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(80, 2)); y = (X.sum(axis=1) + rng.normal(size=80) > 0).astype(int)
    >>> fit = lambda X, y: np.linalg.lstsq(np.c_[np.ones(len(X)), X], 2.0 * y - 1, rcond=None)[0]
    >>> predict = lambda w, X: (np.c_[np.ones(len(X)), X] @ w > 0).astype(int)
    >>> r = oob_ensemble_extrapolation(X, y, fit=fit, predict=predict, n_estimators=20, seed=0)
    >>> r.sizes, abs(r.accuracy_infinite - (2 * r.accuracies[1] - r.accuracies[0])) < 1e-12
    ((10, 20), True)
    """
    xa, ya = _check_xy(X, y)
    fit_fn, predict_fn = _resolve_learner(estimator, fit, predict)
    b = check_positive_int(n_estimators, "n_estimators", minimum=2)
    level = check_confidence_level(confidence_level)
    seed_int = check_seed(seed)
    if sizes is None:
        sz = (b // 2, b)
    else:
        try:
            sz = tuple(sorted({check_positive_int(m, "sizes") for m in sizes}))
        except TypeError:
            raise InvalidInputError(
                "sizes", "a sequence of ensemble sizes", describe_value(sizes)
            ) from None
        if len(sz) < 2 or sz[-1] > b:
            raise InvalidInputError(
                "sizes",
                f"at least two distinct ensemble sizes between 1 and n_estimators={b}",
                describe_value(sizes),
            )
    n = ya.shape[0]
    labels, y_idx = np.unique(ya, return_inverse=True)
    counts, preds = _bootstrap_fits(xa, ya, fit_fn, predict_fn, b, seed_int)
    out = counts == 0
    pred = np.stack(preds)
    known = np.isin(pred, labels)
    p_idx = np.where(known, np.searchsorted(labels, pred).clip(0, labels.size - 1), -1)
    correct = np.empty((len(sz), n))
    has_vote = np.ones(n, dtype=bool)
    for s, m in enumerate(sz):
        votes = np.stack(
            [((p_idx[:m] == c) & out[:m]).sum(axis=0) for c in range(labels.size)], axis=1
        )
        total = out[:m].sum(axis=0)
        has_vote &= total > 0
        winner = votes.argmax(axis=1)
        # a row whose OOB models all predicted labels outside y's labels counts as wrong
        correct[s] = (winner == y_idx) & (votes.max(axis=1) > 0)
    notes: list[str] = []
    if not has_vote.any():
        raise InvalidInputError(
            "sizes",
            "ensemble sizes large enough that some row has an out-of-bag model",
            describe_value(sz),
        )
    if not has_vote.all():
        notes.append(
            f"{int((~has_vote).sum())} row(s) had no out-of-bag model at size {sz[0]} "
            "and were left out"
        )
    corr = correct[:, has_vote]
    acc = corr.mean(axis=1)
    design = np.column_stack([np.ones(len(sz)), -1.0 / np.asarray(sz, float)])
    weights = np.linalg.pinv(design)  # rows: a_inf, c
    q = (1.0 - 1.0 / n) ** n
    w_full = weights[0] - weights[1] * q / b
    z_full = w_full @ corr
    a_inf = float(weights[0] @ acc)
    c = float(weights[1] @ acc)
    est = float(z_full.mean())
    nu = corr.shape[1]
    se = float(z_full.std(ddof=1)) / math.sqrt(nu) if nu > 1 else math.nan
    lo, hi = _normal(est, se, level, -math.inf, math.inf)
    i_b = sz.index(b) if b in sz else None
    c_b = corr[i_b] if i_b is not None else None
    if c_b is None:
        oob_acc, olo, ohi = math.nan, math.nan, math.nan
    else:
        oob_acc = float(c_b.mean())
        ose = float(c_b.std(ddof=1)) / math.sqrt(nu) if nu > 1 else math.nan
        olo, ohi = _normal(oob_acc, ose, level, 0.0, 1.0)
    return OOBExtrapolation(
        estimate=est, low=lo, high=hi, accuracy_infinite=a_inf, c=c, oob_accuracy=oob_acc,
        oob_low=olo, oob_high=ohi, sizes=sz, accuracies=tuple(float(a) for a in acc),
        standard_error=se, effective_fraction=q, confidence_level=level, n=n, n_estimators=b,
        n_rows_used=nu, seed=seed_int, notes=tuple(notes),
    )  # fmt: skip
