"""The .632 and .632+ error estimates and the no-information error rate (Efron, Tibshirani 1997)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from ..core.validation import (
    as_float_array,
    as_label_array,
    describe_value,
    to_numpy,
)
from .crossval import _resolve_loss

# --------------------------------------------------------------------------- formulas

W632 = 0.632  # 1 - exp(-1) rounded, as in the literature


def _check_err(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
        raise InvalidInputError(name, "a finite number", describe_value(value))
    if not math.isfinite(float(value)):
        raise InvalidInputError(name, "a finite number", describe_value(value))
    return float(value)


def point632(err1: float, err_train: float) -> float:
    """The .632 estimator ``0.368 * err_train + 0.632 * err1`` (Efron 1983).

    Examples
    --------
    >>> point632(0.25, 0.0)
    0.158
    """
    e1, et = _check_err(err1, "err1"), _check_err(err_train, "err_train")
    return round((1 - W632) * et + W632 * e1, 15)


def _relative_overfitting(e1: float, et: float, gamma: float) -> tuple[float, float]:
    """``(Err(1)', R')`` of Efron and Tibshirani (1997, eqs. 28-31)."""
    e1p = min(e1, gamma)
    r = (e1p - et) / (gamma - et) if (e1p > et and gamma > et) else 0.0
    return e1p, min(max(r, 0.0), 1.0)


def point632_plus(err1: float, err_train: float, no_information: float) -> float:
    """The .632+ estimator of Efron and Tibshirani (1997).

    ``Err(1)' = min(err1, gamma)``; ``R = (Err(1)' - err_train) / (gamma - err_train)`` when
    ``Err(1)' > err_train`` and ``gamma > err_train``, else 0; ``w = .632 / (1 - .368 R)``;
    the estimate is ``(1 - w) err_train + w Err(1)'``.

    Parameters
    ----------
    err1 : float
        The leave-one-out bootstrap (OOB) error.
    err_train : float
        The resubstitution error.
    no_information : float
        The no-information error rate ``gamma`` (see :func:`no_information_error`).

    Examples
    --------
    >>> point632_plus(0.2, 0.2, 0.5)  # no overfitting: equals the training error
    0.2
    >>> round(point632_plus(0.5, 0.0, 0.5), 4)  # R = 1: w = 1, the OOB error
    0.5
    """
    e1 = _check_err(err1, "err1")
    et = _check_err(err_train, "err_train")
    g = _check_err(no_information, "no_information")
    e1p, r = _relative_overfitting(e1, et, g)
    w = W632 / (1 - (1 - W632) * r)
    return (1 - w) * et + w * e1p


def no_information_error(
    y_true: Any, y_pred: Any, loss: str | Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> float:
    """The no-information error ``gamma = mean_{i,j} L(y_i, y_pred_j)``.

    The error of the rule if targets and predictions were independent: every target paired with
    every prediction. Closed forms for ``"zero_one"`` (``sum_k p_k (1 - q_k)``) and
    ``"squared_error"``; other losses are evaluated in blocks of rows.

    Examples
    --------
    >>> no_information_error([0, 0, 1, 1], [0, 1, 1, 1], "zero_one")
    0.5
    >>> no_information_error([0.0, 2.0], [1.0, 1.0], "squared_error")
    1.0
    """
    name, fn = _resolve_loss(loss)
    if name == "zero_one":  # labels: numbers or strings, no missing values
        yt, yp = as_label_array(y_true, "y_true"), as_label_array(y_pred, "y_pred")
    elif name in ("squared_error", "absolute_error"):
        yt, yp = as_float_array(y_true, "y_true"), as_float_array(y_pred, "y_pred")
    else:
        yt, yp = to_numpy(y_true, "y_true"), to_numpy(y_pred, "y_pred")
    if yt.shape != yp.shape or yt.ndim != 1:
        raise InvalidInputError(
            "y_pred", f"a 1-D array of the same shape as `y_true` {yt.shape}", f"{yp.shape}"
        )
    return _gamma(yt, yp, name, fn)


def _gamma(
    yt: np.ndarray, yp: np.ndarray, name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> float:
    n = yt.shape[0]
    if name == "zero_one":
        labels, inv = np.unique(np.concatenate([yt, yp]), return_inverse=True)
        p = np.bincount(inv[:n], minlength=labels.size) / n
        q = np.bincount(inv[n:], minlength=labels.size) / n
        return float(np.sum(p * (1.0 - q)))
    if name == "squared_error":
        a = yt.astype(np.float64)
        b = yp.astype(np.float64)
        return float(np.mean(a**2) - 2 * a.mean() * b.mean() + np.mean(b**2))
    total = 0.0
    block = max(1, 1_000_000 // max(n, 1))
    for start in range(0, n, block):
        yj = yp[start : start + block]
        total += float(fn(np.repeat(yt, yj.shape[0]), np.tile(yj, n)).sum())
    return total / (n * n)
