"""Classical paired tests: McNemar's test on paired outcomes and the paired t-test."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.design import make_design
from ..core.engine import check_choice
from ..core.errors import (
    InvalidInputError,
)
from ..core.format import format_p_value
from ..core.lazy import stats as _stats
from ..core.params import ALTERNATIVES, validated
from ..core.validation import (
    as_float_array,
    as_label_array,
    check_confidence_level,
    check_label_pair,
    check_same_length,
    describe_value,
)
from ..results import Difference, protocol_defaults, protocol_of_test
from .analytic import zero_se_test

__all__ = [
    "McNemarTestResult",
    "PairedTTestResult",
    "disagreement_note",
    "mcnemar_test",
    "paired_t_test",
]


@dataclass(frozen=True, eq=False)
class McNemarTestResult(Difference):
    """Outcome of McNemar's test comparing two classifiers' accuracy on the same rows.

    Attributes
    ----------
    statistic : float
        Exact test: ``c``, the count whose Binomial(b + c, 1/2) distribution is tested.
        Chi-square test: ``(|b - c| - 1)^2 / (b + c)`` (0 when ``b == c``).
    p_value : float
    b : int
        Rows where A is right and B is wrong.
    c : int
        Rows where A is wrong and B is right.
    n_discordant : int
        ``b + c``.
    n : int
        Number of rows.
    accuracy_a, accuracy_b : float
    difference : float
        ``accuracy_b - accuracy_a = (c - b) / n``.
    alternative : str
        ``"greater"`` means B is more accurate.
    exact : bool
    test : str
        ``"mcnemar-exact"`` or ``"mcnemar-chi2"``.

    Examples
    --------
    >>> r = McNemarTestResult(3.0, 0.25, 1, 3, 4, 10, 0.6, 0.8, 0.2, "two-sided", True,
    ...                       "mcnemar-exact")
    >>> print(r)
    mcnemar-exact (two-sided): accuracy B - A = 0.2000, b = 1, c = 3, p = 0.2500
    """

    _protocol_defaults = protocol_of_test("difference")

    statistic: float
    p_value: float
    b: int
    c: int
    n_discordant: int
    n: int
    accuracy_a: float
    accuracy_b: float
    difference: float
    alternative: str
    exact: bool
    test: str

    def __str__(self) -> str:
        return (
            f"{self.test} ({self.alternative}): accuracy B - A = {self.difference:.4f}, "
            f"b = {self.b}, c = {self.c}, p = {format_p_value(self.p_value, 4)}"
        )


@dataclass(frozen=True, eq=False)
class PairedTTestResult(Difference):
    """Outcome of a paired t-test of the mean per-row difference ``B - A``.

    Attributes
    ----------
    estimate : float
        Mean of ``d_i = b_i - a_i``.
    standard_error : float
        ``sd(d) / sqrt(n)``, or the cluster-robust standard error under a cluster design.
    statistic : float
        ``estimate / standard_error`` (alias :attr:`t`).
    df : int
        ``n - 1``, or ``G - 1`` with ``G`` clusters.
    p_value : float
    low, high : float
        Confidence interval for the mean difference, matching ``alternative`` as in
        :func:`scipy.stats.ttest_rel`: one-sided alternatives give a half-infinite interval.
    confidence_level : float
    alternative : str
    n : int
    n_clusters : int or None
    test : str
        ``"paired-t"`` or ``"paired-t (cluster-robust)"``.

    Examples
    --------
    >>> r = paired_t_test([1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 3.5, 5.0])
    >>> print(r)
    paired-t (two-sided): B - A = 0.5000 (-0.1496, 1.1496), t = 2.4495, df = 3, p = 0.0917
    """

    _protocol_defaults = protocol_defaults(
        Difference,
        method=lambda r: r.test,
    )

    estimate: float
    standard_error: float
    statistic: float
    df: int
    p_value: float
    low: float
    high: float
    confidence_level: float
    alternative: str
    n: int
    n_clusters: int | None
    test: str

    @property
    def t(self) -> float:
        """The t statistic (alias of :attr:`statistic`)."""
        return self.statistic

    def __str__(self) -> str:
        return (
            f"{self.test} ({self.alternative}): B - A = {self.estimate:.4f} "
            f"({self.low:.4f}, {self.high:.4f}), t = {self.statistic:.4f}, df = {self.df}, "
            f"p = {format_p_value(self.p_value, 4)}"
        )


# --------------------------------------------------------------------------------------------
# McNemar
# --------------------------------------------------------------------------------------------


@validated
def mcnemar_test(
    y_true: Any,
    pred_a: Any,
    pred_b: Any,
    *,
    alternative: str = "two-sided",
    exact: bool = True,
) -> McNemarTestResult:
    """McNemar's test of equal accuracy for two classifiers on the same rows.

    Only the discordant rows carry information: ``b`` rows where A is right and B
    wrong, ``c`` where A is wrong and B right. Under the null each discordant row
    is equally likely to go either way.

    Parameters
    ----------
    y_true, pred_a, pred_b : array-like
        Labels of any type (numbers, strings, booleans) and each system's predicted
        labels; a row is right when the prediction equals the label.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: B is more accurate than A (``c > b``).
    exact : bool, default True
        ``True``: the exact binomial test of ``c`` out of ``b + c`` at 1/2
        (:func:`scipy.stats.binomtest`). ``False``: the chi-square statistic with
        continuity correction, ``(|b - c| - 1)^2 / (b + c)`` on 1 degree of freedom
        (as R's ``mcnemar.test``, which drops the correction when ``b == c``);
        two-sided only.

    Returns
    -------
    McNemarTestResult
        With no discordant rows, ``p_value`` is 1.

    Examples
    --------
    >>> y = [0, 1, 1, 0, 1, 0, 1, 1, 0, 1]
    >>> a = [0, 1, 0, 1, 1, 0, 0, 1, 1, 1]
    >>> b = [0, 1, 1, 0, 1, 0, 1, 1, 0, 0]
    >>> r = mcnemar_test(y, a, b)
    >>> r.b, r.c, round(r.p_value, 4)
    (1, 4, 0.375)
    >>> round(mcnemar_test(y, a, b, alternative="greater").p_value, 4)
    0.1875
    """
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    if not isinstance(exact, bool | np.bool_):
        raise InvalidInputError("exact", "True or False", describe_value(exact))
    exact = bool(exact)
    if not exact and alternative != "two-sided":
        raise InvalidInputError(
            "alternative",
            "'two-sided' with exact=False (the chi-square statistic has no direction)",
            repr(alternative),
            "Use exact=True for a one-sided test.",
        )
    arrays = {
        "y_true": as_label_array(y_true, "y_true"),
        "pred_a": as_label_array(pred_a, "pred_a"),
        "pred_b": as_label_array(pred_b, "pred_b"),
    }
    n = check_same_length(arrays)
    for other in ("pred_a", "pred_b"):
        check_label_pair(arrays["y_true"], arrays[other], other)
    t = arrays["y_true"]
    right_a = np.asarray(arrays["pred_a"] == t, dtype=bool).reshape(-1)
    right_b = np.asarray(arrays["pred_b"] == t, dtype=bool).reshape(-1)
    b = int(np.count_nonzero(right_a & ~right_b))
    c = int(np.count_nonzero(~right_a & right_b))
    nd = b + c
    if exact:
        statistic = float(c)
        p = 1.0 if nd == 0 else float(_stats.binomtest(c, nd, 0.5, alternative=alternative).pvalue)
    else:
        statistic = 0.0 if b == c else (abs(b - c) - 1.0) ** 2 / nd
        p = float(_stats.chi2.sf(statistic, 1)) if nd else 1.0
    acc_a = float(np.count_nonzero(right_a)) / n
    acc_b = float(np.count_nonzero(right_b)) / n
    return McNemarTestResult(
        statistic=statistic, p_value=min(1.0, p), b=b, c=c, n_discordant=nd, n=n,
        accuracy_a=acc_a, accuracy_b=acc_b, difference=(c - b) / n, alternative=alternative,
        exact=exact, test="mcnemar-exact" if exact else "mcnemar-chi2",
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Paired t
# --------------------------------------------------------------------------------------------


@validated
def paired_t_test(
    scores_a: Any,
    scores_b: Any,
    *,
    clusters: Any = None,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> PairedTTestResult:
    """Paired t-test for the mean per-row difference ``d_i = b_i - a_i``.

    Parameters
    ----------
    scores_a, scores_b : array-like
        Per-row scores of the two systems on the same rows (e.g. per-sentence BLEU,
        0/1 correctness).
    clusters : array-like, optional
        Cluster label per row. The standard error is then cluster-robust: with
        ``D_g`` the sum of ``d`` over cluster ``g`` (``n_g`` rows) and ``G`` clusters,
        ``SE^2 = G / (G - 1) * sum_g (D_g - n_g * mean(d))^2 / n^2`` on ``G - 1``
        degrees of freedom. Rows in the same cluster (questions from one source,
        sentences of one document) are not independent; ignoring that makes the
        naive test reject far too often.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: B's mean is larger.
    confidence_level : float, default 0.95
        Of the interval for the mean difference.

    Returns
    -------
    PairedTTestResult
        Without clusters, the same numbers as :func:`scipy.stats.ttest_rel` (with its
        ``confidence_interval``). A zero standard error gives ``t = 0`` and ``p = 1``
        when the mean difference is 0, else ``t = +-inf`` and the limiting p-value,
        with a :class:`~booteval.DegenerateIntervalWarning`.

    Examples
    --------
    >>> a = [0.61, 0.72, 0.55, 0.80, 0.66, 0.71]
    >>> b = [0.65, 0.75, 0.54, 0.86, 0.70, 0.74]
    >>> r = paired_t_test(a, b)
    >>> round(r.estimate, 4), round(r.t, 3), r.df, round(r.p_value, 4)
    (0.0317, 3.348, 5, 0.0204)
    """
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    level = check_confidence_level(confidence_level)
    xa = as_float_array(scores_a, "scores_a")
    xb = as_float_array(scores_b, "scores_b")
    n = check_same_length({"scores_a": xa, "scores_b": xb})
    d = xb - xa
    est = float(np.mean(d))
    if clusters is None:
        if n < 2:
            raise InvalidInputError("scores_a", "at least 2 rows", f"{n} row")
        df = n - 1
        se = float(np.std(d, ddof=1)) / math.sqrt(n)
        n_clusters = None
    else:
        design = make_design(n, clusters=clusters)
        g = design.n_units
        if g < 2:
            raise InvalidInputError("clusters", "at least 2 clusters", f"{g} cluster")
        sums = np.bincount(design.unit_of_row, weights=d, minlength=g)
        sizes = np.bincount(design.unit_of_row, minlength=g)
        resid = sums - sizes * est
        se = math.sqrt(g / (g - 1) * float(np.sum(resid * resid))) / n
        df = g - 1
        n_clusters = g
    two_sided = alternative == "two-sided"
    crit = float(_stats.t.ppf(0.5 + 0.5 * level if two_sided else level, df))
    if se == 0.0:
        t, p = zero_se_test(
            est,
            alternative,
            "The standard error of the paired difference is 0 (the per-row differences are "
            "all equal); the interval collapses to the mean difference and the p-value is "
            "degenerate.",
        )
    else:
        t = est / se
        if two_sided:
            p = float(2.0 * _stats.t.sf(abs(t), df))
        elif alternative == "greater":
            p = float(_stats.t.sf(t, df))
        else:
            p = float(_stats.t.cdf(t, df))
    low = est - crit * se if alternative != "less" else -math.inf
    high = est + crit * se if alternative != "greater" else math.inf
    return PairedTTestResult(
        estimate=est, standard_error=se, statistic=t, df=int(df), p_value=min(1.0, p),
        low=low, high=high, confidence_level=level, alternative=alternative, n=n,
        n_clusters=n_clusters, test="paired-t" if clusters is None else "paired-t (cluster-robust)",
    )  # fmt: skip


def disagreement_note(
    low: float, high: float, p_value: float, level: float, method: str, test: str,
    alternative: str,
) -> tuple[str, ...]:  # fmt: skip
    """A note where the interval and a test of another kind disagree about 0."""
    if alternative != "two-sided" or not (np.isfinite(low) and np.isfinite(high)):
        return ()
    excludes, rejects = bool(low > 0 or high < 0), bool(p_value < 1.0 - level)
    if excludes == rejects:
        return ()
    return (
        f"the {level:.0%} {method} interval {'excludes' if excludes else 'contains'} 0 but "
        f"the {test} test gives p = {p_value:.3g}: they are different procedures (the "
        f"interval from the resampled B - A, the test from its own model of the null) and "
        f"need not agree; test='bootstrap' gives the p-value that inverts the interval",
    )
