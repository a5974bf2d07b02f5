"""Delta-method standard errors of metrics that are smooth functions of weighted sums.

A :class:`~booteval.metrics.base.SumEvaluator` metric is ``f(S)`` with ``S = sum_u w_u s_u``
the weighted sums of each unit's statistics ``s_u``. Linearized at a replicate's sums,
unit ``u`` contributes ``z_u = grad f(S) . s_u``, and drawing the replicate's units again
(the inner bootstrap a studentized interval would run) gives the variance

    sum_h [ sum_{u in h} w_u z_u^2 - (sum_{u in h} w_u z_u)^2 / sum_{u in h} w_u ]

over the strata ``h``: the bootstrap variance of the linearized metric, in closed form, for
rows and for whole clusters alike. A difference of two metrics on the same weights is
linear in the two linearizations, so its standard error is the same sum over
``z_B - z_A`` (:func:`linearized_se` takes several terms).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["confusion_gradient", "linearized_se", "ratio_gradient"]


def linearized_se(
    unit_weights: np.ndarray,
    terms: Sequence[tuple[np.ndarray | sp.spmatrix, np.ndarray]],
    strata_units: Sequence[np.ndarray],
) -> np.ndarray:
    """The delta-method standard error of each replicate.

    Parameters
    ----------
    unit_weights : ndarray, shape (m, n_units)
        The replicates' unit weights.
    terms : sequence of (unit_stats, gradient)
        ``unit_stats`` of shape ``(n_units, k)`` (what one draw of each unit adds to the
        sums) and the metric's ``gradient`` with respect to those sums at each replicate,
        shape ``(m, k)``; the linearizations of all terms are added (a difference passes
        one gradient negated). A NaN gradient gives a NaN standard error.
    strata_units : sequence of ndarray
        The units of each stratum (:attr:`Design.strata_units`).

    Returns
    -------
    ndarray, shape (m,)

    Examples
    --------
    The mean of four rows (gradient ``1/n`` on the sum, ``-mean/n`` on the count):
    the plug-in standard error ``sd / sqrt(n)`` with the ``1/n`` variance.

    >>> x = np.array([0.0, 0.0, 4.0, 4.0])
    >>> stats = np.column_stack([x, np.ones(4)])
    >>> g = np.array([[1 / 4, -2 / 4]])
    >>> float(linearized_se(np.ones((1, 4)), [(stats, g)], [np.arange(4)])[0])
    1.0
    >>> float(np.std(x) / 2)
    1.0
    """
    w = np.asarray(unit_weights, dtype=np.float64)
    z = np.zeros((w.shape[1], w.shape[0]))
    bad = np.zeros(w.shape[0], dtype=bool)
    for stats, grad in terms:
        g = np.asarray(grad, dtype=np.float64)
        nan = ~np.all(np.isfinite(g), axis=1)
        bad |= nan
        g = np.where(nan[:, None], 0.0, g)
        z += np.asarray(stats @ g.T)  # (n_units, m): each unit's linearized value
    z = np.ascontiguousarray(z.T)
    var = np.zeros(w.shape[0])
    for units in strata_units:
        wu, zu = w[:, units], z[:, units]
        wz = wu * zu
        total = wu.sum(axis=1)
        s1 = wz.sum(axis=1)
        s2 = (wz * zu).sum(axis=1)
        var += s2 - s1 * s1 / np.where(total > 0, total, 1.0)
    return np.where(bad, np.nan, np.sqrt(np.maximum(var, 0.0)))


def ratio_gradient(sums: np.ndarray) -> np.ndarray:
    """The gradient of ``A / B`` with respect to the sums ``(A, B)``; NaN where ``B = 0``.

    Examples
    --------
    >>> ratio_gradient(np.array([[3.0, 4.0]])).tolist()
    [[0.25, -0.1875]]
    """
    s = np.asarray(sums, dtype=float)
    a, b = s[:, 0], s[:, 1]
    ok = b != 0
    bb = np.where(ok, b, 1.0)
    g = np.column_stack([1.0 / bb, -a / (bb * bb)])
    return np.where(ok[:, None], g, np.nan)


def confusion_gradient(
    cm: np.ndarray, alpha: float, beta_pred: float, beta_true: float, average: str,
    zero_division: float, pos: int | None = None,
) -> np.ndarray:  # fmt: skip
    """The gradient of precision, recall or F1 with respect to the confusion counts.

    Each class ``c`` has the ratio ``r_c = alpha tp_c / (beta_pred pred_c + beta_true
    true_c)`` (precision ``(1, 1, 0)``, recall ``(1, 0, 1)``, F1 ``(2, 1, 1)``). A class
    whose denominator is 0 takes the constant ``zero_division``: its gradient is 0, and
    with ``zero_division=nan`` it leaves the macro and weighted averages, as in the metric.

    Parameters
    ----------
    cm : ndarray, shape (m, K, K)
        Confusion counts, ``cm[:, t, p]`` rows of true class ``t`` predicted ``p``.
    alpha, beta_pred, beta_true : float
    average : {"binary", "micro", "macro", "weighted"}
    zero_division : float
    pos : int, optional
        The positive class's index (``average="binary"``).

    Returns
    -------
    ndarray, shape (m, K * K)
        In the order of ``cm.reshape(m, -1)``; NaN where the metric is undefined.

    Examples
    --------
    Binary F1 ``2 tp / (2 tp + fp + fn)`` with tp = 3, fp = 1, fn = 2 (class 1 positive):

    >>> cm = np.array([[[4.0, 1.0], [2.0, 3.0]]])
    >>> confusion_gradient(cm, 2, 1, 1, "binary", 0.0, pos=1).round(4).tolist()
    [[0.0, -0.0741, -0.0741, 0.0741]]
    """
    cm = np.asarray(cm, dtype=float)
    m, k, _ = cm.shape
    tp = np.diagonal(cm, axis1=1, axis2=2)
    pred = cm.sum(axis=1)
    true = cm.sum(axis=2)
    grad = np.zeros((m, k, k))
    eye = np.eye(k, dtype=bool)
    if average == "micro":
        den = beta_pred * pred.sum(axis=1) + beta_true * true.sum(axis=1)
        ok = den > 0
        d = np.where(ok, den, 1.0)
        r = alpha * tp.sum(axis=1) / d
        scale = (r * (beta_pred + beta_true))[:, None, None]
        grad += (alpha * eye[None] - scale) / d[:, None, None]
        grad[~ok] = 0.0 if not np.isnan(zero_division) else np.nan
        return grad.reshape(m, k * k)
    den = beta_pred * pred + beta_true * true
    has = den > 0
    d = np.where(has, den, 1.0)
    r = np.where(has, alpha * tp / d, zero_division)
    # each class's own gradient: alpha/den on its diagonal cell, -r beta_pred/den down its
    # predicted column, -r beta_true/den along its true row (0 for an empty denominator)
    diag = np.where(has, alpha / d, 0.0)
    slope = np.where(has, -r / d, 0.0)
    col, row = slope * beta_pred, slope * beta_true
    if average == "binary":
        lam = np.zeros((m, k))
        lam[:, pos] = 1.0
        undefined = ~np.isfinite(r[:, pos])
    else:
        defined = ~np.isnan(r)
        if average == "macro":
            count = defined.sum(axis=1)
            lam = defined / np.where(count > 0, count, 1)[:, None]
            undefined = count == 0
        else:  # weighted by the replicate's support among the defined classes
            support = np.where(defined, true, 0.0)
            total = support.sum(axis=1)
            tt = np.where(total > 0, total, 1.0)
            lam = support / tt[:, None]
            f = (np.where(defined, r, 0.0) * support).sum(axis=1) / tt
            # the support's own change: (r_t - f) / total along true row t
            grad += (np.where(defined, r - f[:, None], 0.0) / tt[:, None])[:, :, None]
            undefined = total == 0
    grad += (lam * diag)[:, :, None] * eye[None]
    grad += (lam * col)[:, None, :]
    grad += (lam * row)[:, :, None]
    grad[undefined] = np.nan
    return grad.reshape(m, k * k)
