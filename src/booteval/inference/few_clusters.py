"""Intervals for a clustered mean that hold up with few clusters.

A cluster-robust ("sandwich") standard error treats each cluster as one independent
unit. With many clusters it is fine; with a handful (the questions of a small
benchmark, the annotators of a study, the seeds of a training run) the usual CR1
variance is biased downwards and the normal (or ``t_{G-1}``) quantile is too small,
so nominal 95 % intervals cover far less often than 95 %. This module offers three
remedies for the mean of per-row scores:

* :func:`cluster_robust_interval` -- the bias-reduced linearization variance (CR2) of
  Bell & McCaffrey (2002) with their Satterthwaite-type degrees of freedom and a
  ``t`` quantile (the combination Imbens & Kolesár, 2016, recommend); ``correction="CR1"``
  gives the familiar Stata-style estimator with ``G - 1`` degrees of freedom, for
  comparison.
* :func:`wild_cluster_ci` -- the wild cluster bootstrap-t (Cameron, Gelbach & Miller,
  2008) with Webb's six-point weights by default (MacKinnon & Webb, 2017; Webb, 2023),
  in :mod:`booteval.inference.wild_cluster`.
* :func:`clustered_wilson_interval` -- a Wilson score interval for a clustered
  proportion (an accuracy), with the sample size replaced by an effective sample size
  from the design effect and the clusters' degrees of freedom (Korn & Graubard, 1998).

All three return a :class:`ClusteredInterval`, an
:class:`~booteval.analytic.AnalyticInterval` with the number of clusters, the degrees of
freedom, the variance correction, notes and method-specific details added.

The intercept-only model
------------------------
For the mean ``xbar`` of ``N`` scores in ``G`` clusters of sizes ``n_g`` the regression
is on a column of ones, so every quantity has a closed form. With residuals
``e_i = x_i - xbar``, cluster residual sums ``S_g`` and cluster shares ``p_g = n_g / N``:

* CR1: ``V = G / (G - 1) * sum_g S_g^2 / N^2`` (the usual ``(N - 1) / (N - k)`` factor is
  1 for ``k = 1`` coefficient).
* CR2: the block of the hat matrix belonging to cluster ``g`` is ``J / N`` (``J`` the
  all-ones matrix), and ``(I - J / N)^(-1/2) = I + c J`` with
  ``c = ((1 - p_g)^(-1/2) - 1) / n_g``, so that ``V = sum_g S_g^2 / (1 - p_g) / N^2``.
  It is unbiased when the errors are independent with a common variance.
* Bell-McCaffrey degrees of freedom: ``(sum lambda)^2 / sum lambda^2`` over the
  eigenvalues of ``G'G``, where column ``g`` of the ``N x G`` matrix ``G`` is
  ``(I - H)[:, g] A_g X_g (X'X)^-1`` (Imbens & Kolesár's formulation, with the working
  model ``Omega = I``). Here ``G'G = D (diag(n) - n n' / N) D`` with
  ``D = diag((1 - p_g)^(-1/2)) / N``, which gives, with ``u_g = p_g / (1 - p_g)``,
  ``df = 1 / (sum_g u_g^2 (1 - 2 p_g) + (sum_g u_g p_g)^2)``: ``G - 1`` for equal cluster
  sizes, smaller (down to 1) the more unequal they are. Everything is ``O(N)``.

References
----------
Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
regression with multi-stage samples. *Survey Methodology* 28(2), 169-181.

Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for
inference with clustered errors. *Review of Economics and Statistics* 90(3), 414-427.

Imbens, G. W. & Kolesár, M. (2016). Robust standard errors in small samples: some
practical advice. *Review of Economics and Statistics* 98(4), 701-712.

Korn, E. L. & Graubard, B. I. (1998). Confidence intervals for proportions with small
expected number of positive counts estimated from survey data. *Survey Methodology*
24(2), 193-201.

MacKinnon, J. G. & Webb, M. D. (2017). Wild bootstrap inference for wildly different
cluster sizes. *Journal of Applied Econometrics* 32(2), 233-254.

Webb, M. D. (2023). Reworking wild bootstrap-based inference for clustered errors.
*Canadian Journal of Economics* 56(3), 839-858.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.codes import dense_codes
from ..core.engine import check_choice
from ..core.errors import BootevalWarning, DegenerateIntervalWarning, InvalidInputError, warn
from ..core.params import validated
from ..core.validation import as_float_array, as_group_labels
from .analytic import AnalyticInterval

__all__ = [
    "CLUSTER_CORRECTIONS",
    "CR_LINKS",
    "ClusteredInterval",
    "cluster_robust_interval",
    "clustered_wilson_interval",
]

#: the cluster-robust variance estimators offered
CLUSTER_CORRECTIONS: tuple[str, ...] = ("CR2", "CR1")
#: links (scales) the cluster-robust t interval can be formed on, and the range each keeps
CR_LINKS: dict[str, tuple[float, float]] = {
    "identity": (-math.inf, math.inf),
    "logit": (0.0, 1.0),
    "log": (0.0, math.inf),
    "atanh": (-1.0, 1.0),
}

# below this many clusters CR1 with G - 1 degrees of freedom is known to under-cover
_FEW_CLUSTERS = 30


# --------------------------------------------------------------------------------------------
# Result type
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ClusteredInterval(AnalyticInterval):
    """An :class:`~booteval.analytic.AnalyticInterval` for clustered data.

    Attributes
    ----------
    estimate, low, high, confidence_level, method, n, standard_error
        As for :class:`~booteval.analytic.AnalyticInterval`; ``n`` counts rows.
        ``method`` is ``"cluster-robust-t"``, ``"wild-cluster-t"`` or
        ``"clustered-wilson"``.
    n_clusters : int
        Number of distinct cluster labels ``G``.
    df : float or None
        Degrees of freedom of the ``t`` quantile (``None`` where no ``t`` quantile is used).
    correction : str or None
        The cluster-robust variance, ``"CR2"`` or ``"CR1"``.
    effective_n : float or None
        The effective sample size behind a design-effect-adjusted interval.
    seed : int or None
        The seed that reproduces a bootstrap run (``None`` where nothing random ran).
    n_resamples : int or None
        Number of bootstrap replicates (``None`` where nothing was resampled).
    notes : tuple of str
        Small-sample caveats met and the fallbacks used.
    details : dict
        Method-specific values (variance, design effect, weights, seed, ...).

    Examples
    --------
    >>> r = ClusteredInterval(0.5, 0.4, 0.6, 0.95, "cluster-robust-t", 40, 0.05, n_clusters=5)
    >>> print(r)
    0.5000 (0.4000, 0.6000)
    >>> r.n_clusters, r.df, r.notes
    (5, None, ())
    """

    n_clusters: int = 0
    df: float | None = None
    correction: str | None = None
    effective_n: float | None = None
    seed: int | None = None
    n_resamples: int | None = None
    notes: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


# --------------------------------------------------------------------------------------------
# Shared pieces (private)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Clustered:
    """Scores reduced to what an intercept-only cluster-robust analysis needs."""

    n: int  # rows
    mean: float
    sums: np.ndarray  # (G,) residual sum per cluster
    sizes: np.ndarray  # (G,) rows per cluster
    row_ss: float  # sum of squared residuals over rows

    @property
    def n_clusters(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def shares(self) -> np.ndarray:
        return self.sizes / self.n


def _reduce(values: np.ndarray, clusters: object) -> _Clustered:
    n = int(values.shape[0])
    labels = as_group_labels(clusters, "clusters", n)
    try:
        _, codes = dense_codes(labels)
    except TypeError as exc:  # mixed labels that cannot be sorted together
        raise InvalidInputError(
            "clusters", "labels of one sortable type (ints or strings)", str(exc)
        ) from None
    codes = codes.reshape(-1)
    g = int(codes.max()) + 1
    if g < 2:
        raise InvalidInputError(
            "clusters",
            "at least 2 distinct clusters",
            "1 cluster (every row has the same label)",
            "A cluster-robust variance needs two or more independent clusters.",
        )
    mean = float(np.mean(values))
    resid = values - mean
    sums = np.bincount(codes, weights=resid, minlength=g)
    sizes = np.bincount(codes, minlength=g).astype(np.float64)
    return _Clustered(n, mean, sums, sizes, float(resid @ resid))


def _variance_weights(data: _Clustered, correction: str) -> np.ndarray:
    """Per-cluster factors ``k_g`` in ``V = sum_g k_g S_g^2 / N^2``."""
    g = data.n_clusters
    if correction == "CR2":
        return 1.0 / (1.0 - data.shares)
    return np.full(g, g / (g - 1.0))


def _variance(sums: np.ndarray, weights: np.ndarray, n: int) -> float:
    return float((sums * sums) @ weights) / (n * n)


def _bell_mccaffrey_df(shares: np.ndarray) -> float:
    """Satterthwaite degrees of freedom of the CR2 variance of a mean (working model I)."""
    u = shares / (1.0 - shares)
    sum_sq = float(u * u @ (1.0 - 2.0 * shares)) + float(u @ shares) ** 2
    return 1.0 / sum_sq


def _t_quantile(prob: float, df: float) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, prob))


def _normal_quantile(prob: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(prob))


_ZERO_SE_NOTE = (
    "the cluster-robust standard error is 0 (no variation between clusters around the "
    "mean), so the interval collapses to the mean"
)


def _note(notes: list[str], text: str, category: type[Warning]) -> None:
    """Record ``text`` in the result's notes and warn it (as a sentence) at the caller."""
    notes.append(text)
    warn(text[0].upper() + text[1:] + ".", category, stacklevel=3)


def _check_scores(scores: object) -> np.ndarray:
    return as_float_array(scores, "scores")


# --------------------------------------------------------------------------------------------
# CR2 / CR1 with a t quantile
# --------------------------------------------------------------------------------------------


@validated
def cluster_robust_interval(
    scores: object,
    clusters: object,
    *,
    confidence_level: float = 0.95,
    correction: str = "CR2",
    link: str = "identity",
) -> ClusteredInterval:
    """Cluster-robust ``t`` interval for the mean of per-row scores.

    Parameters
    ----------
    scores : array_like of shape (n,)
        Finite per-row scores (0/1 correctness, losses, ratings, ...).
    clusters : array_like of shape (n,)
        One label per row (a number or a string); rows sharing a label form a cluster.
        At least two distinct labels.
    confidence_level : float, default 0.95
        Nominal coverage, strictly between 0 and 1.
    correction : {"CR2", "CR1"}, default "CR2"
        ``"CR2"``: Bell & McCaffrey's bias-reduced variance with their Satterthwaite
        degrees of freedom, the recommended small-sample remedy. ``"CR1"``: the usual
        ``G / (G - 1)`` variance with ``G - 1`` degrees of freedom.
    link : {"identity", "logit", "log", "atanh"}, default "identity"
        The scale ``g`` the ``t`` interval is formed on: the mean itself, or ``g(mean)`` with the
        standard error carried by the delta method (``se * g'(mean)``) and the ends mapped
        back. ``"logit"`` keeps the interval of scores in [0, 1] inside (0, 1), ``"log"``
        that of non-negative scores above 0, ``"atanh"`` that of scores in [-1, 1] (paired
        differences of [0, 1] scores) inside (-1, 1). The scores must lie in the link's
        range. A mean at the edge of the range (every score 0, say) has a standard error
        of 0 and the interval collapses to it, as on the identity scale.

    Returns
    -------
    ClusteredInterval
        ``method = "cluster-robust-t"``, ``standard_error`` the cluster-robust standard
        error, ``df`` the degrees of freedom, ``correction`` as given; ``details`` holds
        ``variance``, ``t_quantile`` and the smallest and largest cluster sizes.

    Raises
    ------
    InvalidInputError
        If ``scores`` is not a 1-D array of finite numbers, ``clusters`` does not hold one
        label per row or has fewer than two distinct labels, ``correction`` is unknown or
        ``confidence_level`` is not strictly between 0 and 1.

    Warns
    -----
    BootevalWarning
        With ``correction="CR1"`` and fewer than 30 clusters (CR1 then under-covers; use
        ``"CR2"``).
    DegenerateIntervalWarning
        When the standard error is 0 (every cluster's scores sum to its share of the
        total); the interval collapses to the mean.

    Notes
    -----
    See the module notes for the closed forms. The interval is
    ``mean +/- t_{df}(1 - alpha/2) * se``. With equal cluster sizes CR2 equals CR1 and the
    Bell-McCaffrey degrees of freedom are ``G - 1``; with every row its own cluster CR2 is
    the HC2 standard error of a mean, ``s / sqrt(n)``, with ``n - 1`` degrees of freedom,
    so the interval is the classic one-sample ``t`` interval.

    Examples
    --------
    >>> scores = [0.9, 0.8, 0.85, 0.4, 0.5, 0.7, 0.75, 0.6, 0.95, 0.3, 0.65, 0.55, 0.7, 0.8]
    >>> clusters = list("aaabbccccdeeff")  # six clusters of 1 to 4 rows
    >>> ci = cluster_robust_interval(scores, clusters)
    >>> print(ci)
    0.6750 (0.4886, 0.8614)
    >>> ci.n_clusters, round(ci.df, 3), round(ci.standard_error, 4)
    (6, 4.202, 0.0684)
    """
    level = confidence_level
    correction = check_choice(correction, "correction", CLUSTER_CORRECTIONS)
    link = check_choice(link, "link", tuple(CR_LINKS))
    values = _check_scores(scores)
    floor, ceiling = CR_LINKS[link]
    if values.size and (values.min() < floor or values.max() > ceiling):
        raise InvalidInputError(
            "link",
            f"scores in [{floor:g}, {ceiling:g}] for link={link!r}",
            f"scores from {values.min():g} to {values.max():g}",
        )
    data = _reduce(values, clusters)
    g = data.n_clusters
    weights = _variance_weights(data, correction)
    var = _variance(data.sums, weights, data.n)
    se = math.sqrt(var)
    df = _bell_mccaffrey_df(data.shares) if correction == "CR2" else float(g - 1)
    q = _t_quantile(0.5 + 0.5 * level, df)
    notes: list[str] = []
    if correction == "CR1" and g < _FEW_CLUSTERS:
        text = (
            f"only {g} clusters: CR1 with {g - 1} degrees of freedom tends to under-cover "
            "with fewer than about 30 clusters; correction='CR2' (Bell-McCaffrey variance "
            "and degrees of freedom) is the recommended remedy"
        )
        _note(notes, text, BootevalWarning)
    if se == 0.0:
        _note(notes, _ZERO_SE_NOTE, DegenerateIntervalWarning)
    low, high = _on_link(link, data.mean, q * se)
    return ClusteredInterval(
        data.mean,
        low,
        high,
        level,
        "cluster-robust-t",
        data.n,
        se,
        n_clusters=g,
        df=df,
        correction=correction,
        notes=tuple(notes),
        details={
            "variance": var,
            "t_quantile": q,
            "min_cluster_size": int(data.sizes.min()),
            "max_cluster_size": int(data.sizes.max()),
            "link": link,
        },
    )


def _on_link(link: str, mean: float, half: float) -> tuple[float, float]:
    """``mean -/+ half`` formed on the ``link`` scale (delta method) and mapped back."""
    if link == "identity" or half == 0.0:
        return mean - half, mean + half
    floor, ceiling = CR_LINKS[link]
    if not floor < mean < ceiling:  # at the edge of the range: the standard error is 0
        return mean, mean
    if link == "logit":
        eta, slope = math.log(mean / (1.0 - mean)), 1.0 / (mean * (1.0 - mean))
        back = lambda v: 1.0 / (1.0 + math.exp(-v))  # noqa: E731
    elif link == "log":
        eta, slope, back = math.log(mean), 1.0 / mean, math.exp
    else:  # atanh
        eta, slope, back = math.atanh(mean), 1.0 / (1.0 - mean * mean), math.tanh
    lo, hi = eta - half * slope, eta + half * slope
    return back(max(lo, -700.0)), back(min(hi, 700.0))


# --------------------------------------------------------------------------------------------
# Wilson interval with a design effect
# --------------------------------------------------------------------------------------------


def _check_correct(correct: object) -> np.ndarray:
    values = as_float_array(correct, "correct")
    bad = (values != 0.0) & (values != 1.0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            "correct",
            "0/1 or boolean values (1 = correct)",
            f"{int(bad.sum())} other value(s), the first {values[first]!r} in row {first}",
            "For graded scores use cluster_robust_interval.",
        )
    return values


@validated
def clustered_wilson_interval(
    correct: object,
    clusters: object,
    *,
    confidence_level: float = 0.95,
    df_adjustment: bool = True,
) -> ClusteredInterval:
    """Wilson score interval for a clustered proportion, with a design-effect sample size.

    The proportion ``p`` of correct rows is given the Wilson interval of a binomial sample
    of ``n_eff`` rows, where ``n_eff = n / deff`` and the design effect ``deff`` is the ratio
    of the cluster-robust variance of ``p`` to its variance under independent rows (Korn &
    Graubard, 1998). The interval stays inside ``[0, 1]`` and, unlike a ``+-`` interval,
    keeps a positive width when every row is correct (or none is).

    Parameters
    ----------
    correct : array_like of shape (n,)
        0/1 (or boolean) per-row outcomes.
    clusters : array_like of shape (n,)
        One label per row; at least two distinct labels.
    confidence_level : float, default 0.95
        Nominal coverage, strictly between 0 and 1.
    df_adjustment : bool, default True
        Shrink the effective sample size for the ``G - 1`` degrees of freedom of the
        cluster-robust variance, ``n_eff = (n / deff) * (t_{n-1} / t_{G-1})^2`` with ``t_d``
        the ``1 - alpha/2`` quantile of Student's ``t`` on ``d`` degrees of freedom (Korn &
        Graubard's degrees-of-freedom-adjusted effective sample size). The factor is 1 when
        every row is its own cluster and about 0.92 with 30 clusters; without it the
        interval under-covers with few clusters.

    Returns
    -------
    ClusteredInterval
        ``method = "clustered-wilson"``, ``correction = "CR1"``, ``df = G - 1`` when
        ``df_adjustment`` (else ``None``), ``effective_n`` the ``n_eff`` used and
        ``standard_error = None`` (the interval is not centred on ``p``); ``details`` holds
        ``design_effect`` (after the floor), ``raw_design_effect`` (before it; NaN when
        ``p`` is 0 or 1) and ``df_factor``.

    Raises
    ------
    InvalidInputError
        If ``correct`` holds values other than 0 and 1, ``clusters`` does not hold one
        label per row or has fewer than two distinct labels, ``df_adjustment`` is not a
        bool, or ``confidence_level`` is not strictly between 0 and 1.

    Warns
    -----
    DegenerateIntervalWarning
        When ``p`` is 0 or 1, where the design effect cannot be estimated and the fallback
        below is used.
    BootevalWarning
        With ``df_adjustment=False`` and fewer than 30 clusters.

    Notes
    -----
    With ``S_g`` the cluster sums of ``y_i - p``, the design effect is

    ``deff = [G / (G - 1) * sum_g S_g^2 / n^2] / [p (1 - p) / (n - 1)]``,

    the CR1 variance over the unbiased independent-rows variance, so that both carry their
    usual small-sample factor and ``deff`` is 1 (to rounding) when every row is its own
    cluster; the interval is then :func:`booteval.closed_forms.wilson_interval`'s. Two
    choices are made:

    * ``deff`` is floored at 1, as Korn & Graubard truncate the effective sample size at
      ``n``: a design effect below 1 estimated from few clusters is mostly noise, and the
      floor also keeps the interval from collapsing when every cluster has the same
      proportion.
    * When ``p`` is 0 or 1 there is no variation to estimate ``deff`` from. The fallback
      assumes the most conservative case, perfectly correlated rows within a cluster:
      ``deff = sum_g n_g^2 / n``, the row-weighted mean cluster size, so that
      ``n / deff = n^2 / sum_g n_g^2`` (``G`` for equal cluster sizes). Then
      ``low < 1 = high`` (or ``low = 0 < high``): never a zero-width interval.

    The Wilson end points use the normal quantile ``z`` and ``n_eff`` in place of ``n``
    (see :func:`booteval.closed_forms.wilson_interval`).

    Examples
    --------
    >>> correct = [1, 1, 1, 1, 1,  1, 1, 1, 1, 0,  1, 1, 0, 0, 1,  1, 1, 1, 1, 1,
    ...            0, 1, 1, 1, 1,  1, 0, 0, 0, 1,  1, 1, 1, 1, 1,  1, 1, 1, 0, 1]
    >>> clusters = [c for c in range(8) for _ in range(5)]  # 8 clusters of 5 rows
    >>> ci = clustered_wilson_interval(correct, clusters)
    >>> print(ci)
    0.8000 (0.5897, 0.9176)
    >>> round(ci.details["design_effect"], 3), round(ci.effective_n, 2)
    (1.393, 21.01)
    >>> print(clustered_wilson_interval([1] * 40, clusters))  # warns: no design effect
    1.0000 (0.6038, 1.0000)
    """
    level = confidence_level
    if not isinstance(df_adjustment, (bool, np.bool_)):
        raise InvalidInputError("df_adjustment", "True or False", repr(df_adjustment))
    values = _check_correct(correct)
    data = _reduce(values, clusters)
    g, n = data.n_clusters, data.n
    p_hat = data.mean
    notes: list[str] = []
    if data.row_ss > 0.0 and 0.0 < p_hat < 1.0:
        var_cluster = g / (g - 1.0) * float(data.sums @ data.sums) / (n * n)
        var_rows = data.row_ss / (n * (n - 1.0))
        raw = var_cluster / var_rows
        deff = max(1.0, raw)
        if raw < 1.0 - 1e-9:
            notes.append(
                f"the estimated design effect {raw:.3g} is below 1; it was floored at 1 "
                "(the effective sample size is at most the number of rows)"
            )
    else:
        raw = math.nan
        deff = float(data.sizes @ data.sizes) / n
        text = (
            f"every row is {'correct' if p_hat == 1.0 else 'incorrect'}, so the design effect "
            "cannot be estimated; the conservative fallback assumes perfectly correlated "
            f"rows within clusters (design effect {deff:.4g}, the row-weighted mean "
            "cluster size)"
        )
        _note(notes, text, DegenerateIntervalWarning)
    tail = 0.5 + 0.5 * level
    if df_adjustment:
        factor = (_t_quantile(tail, n - 1.0) / _t_quantile(tail, g - 1.0)) ** 2 if g < n else 1.0
        df: float | None = float(g - 1)
    else:
        factor, df = 1.0, None
        if g < _FEW_CLUSTERS:
            text = (
                f"only {g} clusters: without the degrees-of-freedom adjustment the interval "
                "tends to under-cover with fewer than about 30 clusters; "
                "df_adjustment=True is the remedy"
            )
            _note(notes, text, BootevalWarning)
    n_eff = n / deff * factor
    z = _normal_quantile(tail)
    z2n = z * z / n_eff
    denom = 1.0 + z2n
    centre = (p_hat + z2n / 2.0) / denom
    half = z * math.sqrt(p_hat * (1.0 - p_hat) / n_eff + z2n / (4.0 * n_eff)) / denom
    low = 0.0 if p_hat == 0.0 else max(0.0, centre - half)
    high = 1.0 if p_hat == 1.0 else min(1.0, centre + half)
    return ClusteredInterval(
        p_hat,
        low,
        high,
        level,
        "clustered-wilson",
        n,
        None,
        n_clusters=g,
        df=df,
        correction="CR1",
        effective_n=n_eff,
        notes=tuple(notes),
        details={"design_effect": deff, "raw_design_effect": raw, "df_factor": factor},
    )
