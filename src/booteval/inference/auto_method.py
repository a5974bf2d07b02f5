"""``method="auto"``: the interval method the coverage atlas shows best calibrated for a case.

The choice looks only at what the caller's data show: the kind of metric, whether rows
are resampled in clusters (and how many), the number of rows, and for a proportion how
many rows are in the minority outcome (its distance from 0 or 1). :data:`RULES` is the
whole rule: the first row whose condition holds gives the method, and each row names
the atlas cells (``docs/coverage.md``, 95 % intervals, 2,000 simulated data sets per
cell) that justify it. Where the atlas has no evidence the choice stays BCa, the
default of booteval 0.1 and of ``scipy.stats.bootstrap``.

Every method is the one of that name elsewhere in booteval: a bootstrap interval of
:func:`booteval.ci`, or a closed form of :mod:`booteval.closed_forms`
(:func:`~booteval.closed_forms.jeffreys_interval`,
:func:`~booteval.closed_forms.clustered_wilson_interval`,
:func:`~booteval.closed_forms.cluster_robust_interval` with CR2), or for
:func:`booteval.compare`'s paired difference of two proportions Tango's score interval
(:func:`~booteval.closed_forms.tango_interval`), or Newcombe's
(:func:`~booteval.closed_forms.newcombe_interval`) with clusters and no discordant row, or
for ROC-AUC with few rows of one class Newcombe's score interval
(:func:`~booteval.closed_forms.newcombe_auc_interval`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import stdtr

from ..core.errors import collect_warnings, warn
from ..core.intervals import (
    CLOSED_FORMS,
    STUDENTIZED,
    Transform,
    log_transform,
    resolve_transform,
)
from ..core.jackknife_t import JACKKNIFE_T, jackknife_t_interval, leave_one_cluster_out
from ..metrics import Metric
from .analytic import AnalyticInterval, jeffreys_interval
from .atlas_cite import nearest_cell
from .auc_score import newcombe_auc_interval
from .auto_evidence import (
    AUC_FEW_ROWS_EVIDENCE,
    BOUNDED_MEAN_EVIDENCE,
    FEW_CLUSTERS_T_EVIDENCE,
    JACKKNIFE_T_EVIDENCE,
    MEAN_FEW_CLUSTERS_EVIDENCE,
    PEARSON_EVIDENCE,
    PEARSON_TRANSFORM_EVIDENCE,
    TANGO_EVIDENCE,
)
from .bounded_mean import constant_bound, quasi_wilson_interval
from .few_clusters import ClusteredInterval, cluster_robust_interval, clustered_wilson_interval
from .jackknife_forms import (
    difference_bounds,
    jackknife_t_closed_form,
    paired_jackknife,
    paired_jackknife_t,
)
from .paired_proportions import (
    newcombe_interval,
    newcombe_p_value,
    paired_counts,
    tango_interval,
    tango_p_value,
)

__all__ = [
    "CLOSED_FORMS",
    "RULES",
    "Case",
    "Rule",
    "case_of",
    "choose",
    "closed_form",
    "family",
    "natural_link",
    "natural_transform",
    "outcomes",
    "paired_case_of",
    "paired_closed_form",
    "reason",
    "row_scores",
]

#: a paired difference of proportions takes Tango's interval with fewer discordant rows
#: than this
NEAR_BOUNDARY = 30
#: a clustered proportion takes the clustered Wilson interval with fewer rows than
#: CLUSTERED_NEAR_BOUNDARY in its rarer outcome, and at most NEAR_BOUNDARY_SHARE of the rows
#: (benchmarks/atlas_families_fit.py)
NEAR_BOUNDARY_SHARE = 0.3
CLUSTERED_NEAR_BOUNDARY = 5
#: fewer clusters than this: a clustered mean takes CR2; with fewer rows than
#: :data:`FEW_ROWS` too, F1 takes the equal-tailed bootstrap-t
VERY_FEW_CLUSTERS = 10
FEW_ROWS = 100
#: fewer clusters than this: the symmetric bootstrap-t rather than the equal-tailed one
FEW_CLUSTERS = 30
#: at most this many rows, a metric without an analytic standard error may take the nested
#: bootstrap-t with few clusters (the atlas measures it up to 50 rows)
NESTED_ROWS = 50
#: from this many rows that nested bootstrap-t is the symmetric one (the equal-tailed one
#: below; the atlas measures 20 and 50 rows)
NESTED_SYMMETRIC_ROWS = 30
#: a clustered proportion with fewer than FEW_CLUSTERS clusters and from FEW_ROWS to fewer
#: than this many rows takes CR2 on the logit scale (benchmarks/atlas_families_fit.py)
PROPORTION_CR2_ROWS = 400
#: beyond this many rows in 30 or more clusters, Kendall's tau takes BCa, not the percentile
#: interval (the atlas measures 1,000 and 10,000 rows)
RANK_PERCENTILE_ROWS = 1000
#: ROC-AUC on independent rows takes Newcombe's score interval with fewer rows than this in
#: its rarer class (benchmarks/auc_score.py)
AUC_FEW_ROWS = 8


@dataclass(frozen=True)
class Case:
    """What ``method="auto"`` looks at.

    Attributes
    ----------
    family : str
        ``"proportion"`` (accuracy, error rate, the mean of 0/1 scores), ``"mean"`` (the
        mean of other scores, MAE, MSE, log loss, Brier), ``"f1"``, ``"pearson"``,
        ``"kendall"``, ``"bleu"``, ``"roc_auc"`` or ``"other"``; for
        :func:`booteval.compare`'s paired difference ``"proportion-difference"`` (of two
        proportions), ``"mean-difference"`` (of two means of other per-row scores) or
        ``"difference"``.
    clustered : bool
        Whole clusters are resampled.
    n : int
        Rows.
    n_clusters : int or None
        Clusters, where clustered.
    minority : int or None
        For a proportion, the rows in its rarer outcome, ``min(k, n - k)``; for ROC-AUC,
        the rows of its rarer class.
    studentized : bool
        The studentized interval is available (the multinomial design).
    closed_form : bool
        A closed-form interval may stand in (no ``transform`` was asked for).
    stratified : bool
        Rows are resampled within strata.
    analytic_se : bool
        The metric has an analytic standard error of every replicate (delta method,
        DeLong), so a studentized interval costs no nested bootstrap.
    discordant : int or None
        For a paired difference of proportions, the rows where exactly one system is right.
    bounded : bool
        The per-row scores whose mean is the metric all lie in [0, 1].
    constant : bool
        The per-row scores (for a paired difference, the per-row differences) are all
        equal: a bootstrap or cluster-robust interval has no width, a score interval does.
    jackknife : bool
        With fewer than 30 clusters and no analytic standard error: the cluster jackknife
        t interval can be formed (3 or more defined leave-one-cluster-out values, not all
        equal).
    """

    family: str
    clustered: bool
    n: int
    n_clusters: int | None = None
    minority: int | None = None
    studentized: bool = True
    closed_form: bool = True
    analytic_se: bool = True
    stratified: bool = False
    discordant: int | None = None
    bounded: bool = False
    constant: bool = False
    jackknife: bool = False


@dataclass(frozen=True)
class Rule:
    """One row of the choice: where it applies, the method, and the atlas cells behind it
    (``natural_scale``: a bootstrap-t formed on the scores' :func:`natural_link` scale, as
    every bootstrap-t of a mean is)."""

    family: str
    design: str
    condition: str
    method: str
    evidence: str
    applies: Callable[[Case], bool]
    natural_scale: bool = False

    def holds(self, case: Case) -> bool:
        """Whether this row applies to ``case``."""
        if self.family not in ("any", case.family):
            return False
        if self.design not in ("any", "clustered" if case.clustered else "independent"):
            return False
        if self.method in STUDENTIZED and not case.studentized:
            return False
        if self.method in CLOSED_FORMS and not case.closed_form:
            return False
        return self.applies(case)


def _always(case: Case) -> bool:
    return True


def _near_boundary(case: Case) -> bool:
    m = case.minority
    return m is not None and m < CLUSTERED_NEAR_BOUNDARY and m <= NEAR_BOUNDARY_SHARE * case.n


def _proportion_cr2(case: Case) -> bool:
    """Both outcomes present, fewer than FEW_CLUSTERS clusters and a few hundred rows."""
    g = case.n_clusters
    if g is None or not (case.minority or 0) > 0:
        return False
    return g < FEW_CLUSTERS and FEW_ROWS <= case.n < PROPORTION_CR2_ROWS


def _nested(case: Case) -> bool:
    """A metric without an analytic standard error, few clusters, few rows."""
    return not case.analytic_se and case.n <= NESTED_ROWS and (case.n_clusters or 0) < FEW_CLUSTERS


def _few_discordant(case: Case) -> bool:
    return case.discordant is not None and case.discordant < NEAR_BOUNDARY


def _cheap_studentized(case: Case) -> bool:
    return case.analytic_se


def _cheap_few_clusters(case: Case) -> bool:
    return case.analytic_se and case.n_clusters is not None and case.n_clusters < FEW_CLUSTERS


def _very_few_clusters(case: Case) -> bool:
    return case.n_clusters is not None and case.n_clusters < VERY_FEW_CLUSTERS and case.n < FEW_ROWS


# The rule, first match wins. Coverage of 95 % intervals in the atlas (docs/coverage.md);
# "exact": computed by summing binomial probabilities, no simulation error.
RULES: tuple[Rule, ...] = (
    Rule("proportion", "clustered",
         f"fewer than {FEW_CLUSTERS} clusters and {FEW_ROWS} to {PROPORTION_CR2_ROWS - 1} "
         "rows, both outcomes present", "cr2",
         "accuracy p = 0.5, n = 200, 5 clusters: CR2 95.0 %, symmetric bootstrap-t on the "
         "logit scale 95.2 %, clustered Wilson 91.8 %, BCa 79.2 %; p = 0.9, n = 200, 10 "
         "clusters: 96.2 %, 95.8 %, 94.5 %, 89.5 % (the grid's own data sets, 400 a cell, "
         "benchmarks/atlas_families.py); formed on the logit scale (kept in [0, 1]); on "
         "clustered binary data of equal, geometric and lognormal cluster sizes, tied to the "
         "outcome or not, ICC 0.05 to 0.5 (benchmarks/atlas_families_fit.py), the rule "
         "without this row puts 79 of 126 fitted cells in band (91 with it), lowest 83.8 % "
         "(89.8 %), and 56 of 84 held-out ones (57), lowest 86.8 % (89.8 %)",
         _proportion_cr2),
    Rule("proportion", "clustered",
         f"fewer than {CLUSTERED_NEAR_BOUNDARY} rows, and at most {NEAR_BOUNDARY_SHARE:.0%}, "
         "in the rarer outcome",
         "clustered-wilson",
         "accuracy p = 0.99, n = 200, 30 clusters: clustered Wilson 96.5 %, symmetric "
         "bootstrap-t on the logit scale 82.8 %, BCa 83.8 %; p = 0.9, n = 20, 5 clusters: "
         "98.0 %, 81.5 %, 79.5 %; p = 0.99, n = 50, 10 clusters: 96.5 %, 43.2 %, 43.2 % (the "
         "grid's own data sets, 400 a cell); with every row alike the bootstrap and CR2 give "
         "a point", _near_boundary),
    Rule("proportion", "clustered", "otherwise, on the logit scale", "studentized-symmetric",
         "accuracy p = 0.5, n = 1,000, 5 clusters: symmetric bootstrap-t on the logit scale "
         "95.0 %, on the proportion scale 94.5 %, equal-tailed 92.0 %, CR2 94.0 %, BCa "
         "78.2 %; p = 0.5, n = 10,000, 5 clusters: 93.0 %, 91.8 %, 89.0 %, 90.2 %, 75.2 %; "
         "p = 0.5, n = 10,000, 30 clusters: 94.0 %, 93.8 %, 94.8 %, 93.2 %, 90.5 %; p = 0.5, "
         "n = 1,000, 200 clusters: 95.5 %, 95.0 %, 95.0 %, 95.5 %, 94.5 %; "
         "p = 0.99, n = 10,000, 5 clusters: 95.5 %, 92.5 %, 92.2 %, 95.8 %, 81.0 % (the grid's "
         "own data sets, 400 a cell); the logit scale keeps the interval in [0, 1] without "
         "clipping; with the two rows above, fitted on half of the cluster families and the "
         "grid (benchmarks/atlas_families_fit.py): 91 of 126 fitted family cells in band "
         "(the rule before, the proportion's own scale, CR2 also below 10 clusters and 100 "
         "rows, clustered Wilson below 30 rows of the rarer outcome: 77), 40 of the grid's 51 "
         "(37), and 57 of 84 held-out cells (53), the lowest held-out cell 89.8 % (86.2 %); "
         "held out after the fit, at accuracies 0.5 and 0.95: 45 of 84 (42), lowest 87.5 % "
         "(79.2 %), with 2 cells of 8 clusters farther from 95 % than BCa (over-covering, "
         "97.5 % and 99.0 %, where BCa covers 95.2 % and 96.2 %)",
         _always, natural_scale=True),
    Rule("proportion-difference", "clustered",
         "no row where the systems disagree, or every row the same difference", "newcombe",
         "with no discordant row (or one system right wherever the other is wrong) every "
         "bootstrap replicate and the cluster-robust standard error are constant, a "
         "zero-width interval; Newcombe's interval keeps its width",
         lambda case: case.discordant == 0 or case.constant),
    Rule("proportion-difference", "clustered", "any number of clusters", "cr2",
         "paired difference of accuracies, n = 1,000, 5 clusters: CR2 95.4 %, symmetric "
         "bootstrap-t 97.3 %, equal-tailed 94.9 %, BCa 81.0 %; n = 200, 10 clusters: 94.2 %, "
         "95.5 %, 93.5 %, 87.5 %; n = 10,000, 30 clusters: 94.5 %, 94.9 %, 93.2 %, 91.5 %; "
         "over the 6 cells with 30 to 200 clusters, mean distance from 95 % 0.45 points "
         "against the equal-tailed bootstrap-t's 0.72", _always),
    Rule("mean-difference", "clustered", "any number of clusters", "cr2",
         "skewed paired scores, about 9 rows a cluster (tests/test_calibration.py, 4,000 "
         "data sets): 5 clusters CR2 95.7 %, BCa 82.9 %; 10: 94.5 %, 86.3 %; 30: 94.5 %, "
         "91.1 %; a difference of means is the mean of the per-row differences, as for "
         "paired accuracies (n = 1,000, 5 clusters: CR2 95.4 %, BCa 81.0 %)", _always),
    Rule("mean", "clustered", f"fewer than {VERY_FEW_CLUSTERS} clusters", "cr2",
         MEAN_FEW_CLUSTERS_EVIDENCE,
         lambda case: case.n_clusters is not None and case.n_clusters < VERY_FEW_CLUSTERS),
    Rule("bleu", "clustered", "any number of clusters, with an analytic standard error",
         "studentized-symmetric",
         "corpus BLEU, n = 1,000, 30 clusters: symmetric bootstrap-t 93.6 %, equal-tailed "
         "93.3 %, BCa 89.5 %; 5 clusters: 93.3 %, 91.0 %, 77.8 %; n = 10,000, 30 clusters: "
         "95.0 %, 94.8 %, 91.6 %; n = 200, 5 clusters: symmetric bootstrap-t 94.0 %, "
         "equal-tailed 91.3 %, BCa 79.0 %, the default 93.7 %; the default gives the cluster "
         "jackknife t where the symmetric one spans the whole range; "
         "from 30 clusters the symmetric one is as close or closer in each of the atlas's "
         "BLEU cells", _cheap_studentized),
    Rule("f1", "clustered",
         f"fewer than {VERY_FEW_CLUSTERS} clusters and fewer than {FEW_ROWS} rows",
         "studentized",
         "macro-F1, n = 50, 5 clusters: the default 94.6 %, equal-tailed bootstrap-t 95.3 %, "
         "symmetric 96.5 %, BCa 83.8 %; F1, n = 50, 5 clusters: 91.8 %, 94.9 %, 96.5 %, "
         "83.8 %; the bootstrap-t columns count as covering the intervals that span the whole "
         "range, where the default gives the cluster jackknife t; five clusters of ten rows "
         "barely inform an F1 (median widths of the two bootstrap-t intervals 0.92 and 1.0 at "
         "50 rows); from 200 rows, or 10 clusters, the symmetric one is closer",
         lambda case: _very_few_clusters(case) and case.analytic_se),
    Rule("any", "clustered",
         f"fewer than {FEW_CLUSTERS} clusters, with an analytic standard error",
         "studentized-symmetric",
         FEW_CLUSTERS_T_EVIDENCE,
         _cheap_few_clusters),
    Rule("mean", "clustered", "any number of clusters", "studentized",
         "mean of a skewed score, n = 1,000, 50 clusters: studentized 91.4 %, BCa 87.8 %",
         _always),
    Rule("any", "clustered", "with an analytic standard error", "studentized",
         "F1, n = 200, 30 clusters: studentized 94.9 %, BCa 92.8 %; Pearson, n = 1,000, "
         "50 clusters: 92.2 %, 89.0 %; ROC-AUC, n = 10,000, 50 clusters: 94.4 %, 91.2 %; over "
         "the 32 clustered cells of F1, macro-F1, ROC-AUC and Pearson with 30 or more "
         "clusters, 27 in band against BCa's 9", _cheap_studentized),
    Rule("any", "clustered", f"fewer than {FEW_CLUSTERS} clusters, no analytic standard error",
         JACKKNIFE_T, JACKKNIFE_T_EVIDENCE, lambda case: case.jackknife),
    Rule("any", "clustered",
         f"fewer than {FEW_CLUSTERS} clusters and fewer than {NESTED_SYMMETRIC_ROWS} rows, no "
         "analytic standard error (a nested bootstrap-t)", "studentized",
         "Kendall, n = 20, 5 clusters: bootstrap-t 94.0 %, symmetric 97.4 %, BCa 88.5 %; "
         "average precision, n = 20, 5 clusters: 88.8 %, 92.5 %, 71.8 % (none in band)",
         lambda case: _nested(case) and case.n < NESTED_SYMMETRIC_ROWS),
    Rule("any", "clustered",
         f"fewer than {FEW_CLUSTERS} clusters and {NESTED_SYMMETRIC_ROWS} to {NESTED_ROWS} "
         "rows, no analytic standard error (a nested bootstrap-t)", "studentized-symmetric",
         "Kendall, n = 50, 5 clusters: symmetric bootstrap-t 95.5 %, equal-tailed 89.0 %, BCa "
         "82.2 %; 10 clusters: 94.5 %, 91.1 %, 89.7 %; average precision, n = 50, 10 "
         "clusters: 95.5 %, 95.5 %, 87.5 %; 5 clusters: 95.8 %, 93.9 %, 80.0 %, the "
         "intervals nearly [0, 1] (median widths 0.96, 0.89): five clusters of ten rows "
         "barely inform the metric", _nested),
    Rule("kendall", "clustered",
         f"{FEW_CLUSTERS} or more clusters and more than {RANK_PERCENTILE_ROWS:,} rows", "bca",
         "Kendall, n = 10,000, 30 clusters: BCa 85.5 %, percentile 80.0 %; 50: 87.1 %, 85.2 %; "
         "200: 91.8 %, 91.2 %; with a cluster effect the sample tau is biased for the "
         "population's by about 1 / (clusters), which at this n outweighs its standard error, "
         "and BCa's bias correction takes back part of it; up to 1,000 rows the percentile "
         "interval is as close or closer (n = 200, 50 clusters: 94.2 %, BCa 93.4 %)",
         lambda case: case.n > RANK_PERCENTILE_ROWS and (case.n_clusters or 0) >= FEW_CLUSTERS),
    Rule("any", "clustered",
         f"{FEW_CLUSTERS} or more clusters, no analytic standard error", "percentile",
         "average precision, n = 200, 30 clusters: percentile 93.7 %, BCa 92.8 %; 50: 93.8 %, "
         "92.8 %; n = 1,000, 50 clusters: 93.0 %, 91.7 %; Kendall, n = 200, 50 clusters: 94.2 %, "
         "93.4 %; closer in 11 of the 13 such cells of both metrics (mean distance from 95 % "
         "3.0 points against BCa's 3.6; Kendall, n = 1,000, 30 clusters: 85.9 %, 86.6 %)",
         lambda case: not case.analytic_se and (case.n_clusters or 0) >= FEW_CLUSTERS),
    Rule("proportion", "independent", "any n", "jeffreys",
         "accuracy p = 0.9, n = 20: Jeffreys 95.7 % (exact), BCa 87.9 %; p = 0.95, n = 200: "
         "Jeffreys 95.0 %, Wilson 96.7 % (exact), BCa 97.8 %", _always),
    Rule("mean", "independent", "scores in [0, 1]", "quasi-wilson", BOUNDED_MEAN_EVIDENCE,
         lambda case: case.bounded),
    Rule("mean", "independent", "n >= 10", "studentized",
         "mean of a skewed score, n = 20: studentized 91.6 %, BCa 87.0 %; n = 200: 95.0 %, "
         "93.9 %", lambda case: case.n >= 10),
    Rule("f1", "independent", "n >= 50, rows not stratified", "percentile",
         "F1, n = 50: percentile 94.6 %, BCa 97.4 %; macro-F1, n = 50: 94.8 %, 96.7 % (with "
         "strata, F1 n = 50: percentile 91.2 %, BCa 94.6 %)",
         lambda case: case.n >= 50 and not case.stratified),
    Rule("proportion-difference", "independent",
         f"fewer than {NEAR_BOUNDARY} discordant rows, or every row the same difference",
         "tango", TANGO_EVIDENCE, lambda case: _few_discordant(case) or case.constant),
    Rule("pearson", "independent", "any n", JACKKNIFE_T, PEARSON_EVIDENCE, _always),
    Rule("pearson", "independent", "any n, with a transform asked for", "percentile",
         PEARSON_TRANSFORM_EVIDENCE, _always),
    Rule("bleu", "independent", "with an analytic standard error", "studentized",
         "corpus BLEU, n = 20: studentized 95.0 %, BCa 93.0 %; n = 50: 94.8 %, 93.8 %; "
         "n = 200: 94.9 %, 94.6 %; n = 1,000: 95.0 %, 95.0 %", _cheap_studentized),
    Rule("roc_auc", "independent", f"fewer than {AUC_FEW_ROWS} rows in the rarer class",
         "newcombe-auc", AUC_FEW_ROWS_EVIDENCE,
         lambda case: case.minority is not None and case.minority < AUC_FEW_ROWS),
    Rule("any", "any", "otherwise", "bca",
         "BCa is booteval's and scipy.stats.bootstrap's default; ROC-AUC, n = 20: BCa 95.7 %, "
         "percentile 88.6 %; Kendall, n = 20: BCa 96.0 %; F1, n = 20: BCa 94.0 %", _always),
)  # fmt: skip


def family(m: Metric, arrays: tuple[np.ndarray, ...]) -> str:
    """The :attr:`Case.family` of a metric on its validated data.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.metrics import get_metric
    >>> family(get_metric("mean"), (np.array([0.0, 1.0, 1.0]),))
    'proportion'
    >>> family(get_metric("roc_auc"), (np.array([0, 1]), np.array([0.2, 0.9])))
    'roc_auc'
    >>> family(get_metric("average_precision"), (np.array([0, 1]), np.array([0.2, 0.9])))
    'other'
    """
    kind = m.auto_family
    if kind == "mean":
        scores = m.row_scores(*arrays)
        if scores is not None and bool(np.all((scores == 0) | (scores == 1))):
            return "proportion"
    return kind


def natural_link(scores: np.ndarray) -> str:
    """The scale on which an interval for the mean of ``scores`` stays in their range:
    ``"logit"`` for scores in [0, 1], ``"log"`` for other non-negative scores, else
    ``"identity"``.

    Examples
    --------
    >>> natural_link(np.array([0.0, 0.5, 1.0])), natural_link(np.array([0.0, 7.5]))
    ('logit', 'log')
    """
    lo, hi = float(np.min(scores)), float(np.max(scores))
    if lo >= 0.0 and hi <= 1.0:
        return "logit"
    return "log" if lo >= 0.0 else "identity"


def natural_transform(scores: np.ndarray, n: int) -> Transform | None:
    """The transform under which a bootstrap-t interval for the mean of ``scores`` stays
    in their range (:func:`natural_link`): the continuity-corrected logit for scores in
    [0, 1], ``log(x + c)`` with ``c = mean / (2 n)`` for other non-negative scores, and
    ``None`` otherwise (or for scores all 0)."""
    link = natural_link(scores)
    if link == "logit":
        return resolve_transform("logit", n)
    mean = float(np.mean(scores))
    if link == "log" and mean > 0.0:
        return log_transform(0.5 * mean / max(n, 1))
    return None


def row_scores(m: Metric, arrays: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """The per-row scores whose mean is the metric (accuracy's 0/1 outcomes, the mean's
    scores); ``None`` for other metrics.

    Examples
    --------
    >>> from booteval.metrics import get_metric
    >>> row_scores(get_metric("mean"), (np.array([0.5, 1.0]),)).tolist()
    [0.5, 1.0]
    """
    return m.row_scores(*arrays)


def outcomes(m: Metric, arrays: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """The per-row 0/1 outcomes whose mean is a proportion metric; ``None`` for others."""
    return row_scores(m, arrays) if family(m, arrays) == "proportion" else None


def case_of(
    m: Metric, arrays: tuple[np.ndarray, ...], design: Any, *, studentized: bool = True,
    closed_form: bool = True, analytic_se: bool = True,
) -> Case:  # fmt: skip
    """The :class:`Case` of a metric on data under a resampling plan (``make_design``)."""
    kind = family(m, arrays)
    minority = None
    if kind == "roc_auc":  # y_true, 1 for a positive row
        k = round(float(np.sum(arrays[0])))
        minority = min(k, design.n_rows - k)
    scores = row_scores(m, arrays)
    constant = scores is not None and bool(np.all(scores == scores[0]))
    jackknife = False
    if design.clustered and not analytic_se and design.n_clusters < FEW_CLUSTERS:
        values = leave_one_cluster_out(m, arrays, design.unit_of_row)
        jackknife = jackknife_t_interval(m(*arrays), values, 0.95, m.bounds) is not None
    bounded = scores is not None and natural_link(scores) == "logit"
    if kind == "proportion":
        k = round(float(np.sum(outcomes(m, arrays))))
        minority = min(k, design.n_rows - k)
        # every row alike: a score interval keeps its width where the bootstrap gives a
        # point, whatever transform was asked for
        closed_form = closed_form or constant
    return Case(
        family=kind, clustered=bool(design.clustered), n=int(design.n_rows),
        n_clusters=design.n_clusters if design.clustered else None, minority=minority,
        studentized=studentized, closed_form=closed_form, analytic_se=analytic_se,
        stratified=design.n_strata > 1, bounded=bounded, constant=constant,
        jackknife=jackknife,
    )  # fmt: skip


def paired_case_of(
    m: Metric, arrays_a: tuple[np.ndarray, ...], arrays_b: tuple[np.ndarray, ...], design: Any,
    *, studentized: bool = True, analytic_se: bool = True, known_outcomes: tuple | None = None,
    known_scores: tuple | None = None, known_pair: tuple[int | None, bool] | None = None,
    known_jackknife: tuple[np.ndarray, np.ndarray] | None = None,
) -> Case:  # fmt: skip
    """The :class:`Case` of :func:`booteval.compare`'s difference ``B - A`` of a metric.

    Where already computed (a leaderboard computes them for all pairs at once):
    ``known_outcomes``, both systems' :func:`outcomes`; ``known_scores``, both systems'
    per-row scores (``m.row_scores``); ``known_pair``, the pair's discordant rows (of
    two systems' outcomes, else ``None``) and whether the per-row differences of the
    scores are all equal; ``known_jackknife``, both systems' leave-one-cluster-out values.
    """
    if known_outcomes is None:
        known_outcomes = (outcomes(m, arrays_a), outcomes(m, arrays_b))
    y_a, y_b = known_outcomes
    if known_scores is None:
        known_scores = (m.row_scores(*arrays_a), m.row_scores(*arrays_b))
    s_a, s_b = known_scores
    kind = "difference" if s_a is None else "mean-difference"
    if known_pair is not None:
        discordant, constant = known_pair
    else:
        discordant, constant = None, False
        if s_a is not None and s_b is not None:
            d = s_b - s_a
            constant = bool(np.all(d == d[0]))
        if y_a is not None and y_b is not None:
            _, only_a, only_b, _ = paired_counts(y_a, y_b)
            discordant = only_a + only_b
    if y_a is not None and y_b is not None:
        kind = "proportion-difference"
    jackknife = False
    if (
        kind == "difference"
        and design.clustered
        and not analytic_se
        and (design.n_clusters < FEW_CLUSTERS)
    ):  # as for one system (case_of): can B - A's cluster jackknife t be formed?
        d, values = paired_jackknife(m, (arrays_a, arrays_b), design.unit_of_row, known_jackknife)
        jackknife = jackknife_t_interval(d, values, 0.95, difference_bounds(m.bounds)) is not None
    return Case(
        family=kind,
        clustered=bool(design.clustered), n=int(design.n_rows),
        n_clusters=design.n_clusters if design.clustered else None, studentized=studentized,
        analytic_se=analytic_se, stratified=design.n_strata > 1, discordant=discordant,
        constant=constant, jackknife=jackknife,
    )  # fmt: skip


def choose(case: Case) -> Rule:
    """The first row of :data:`RULES` that holds for ``case``.

    Examples
    --------
    >>> choose(Case("proportion", clustered=False, n=20, minority=2)).method
    'jeffreys'
    >>> choose(Case("proportion", clustered=True, n=200, n_clusters=30, minority=2)).method
    'clustered-wilson'
    >>> choose(Case("other", clustered=False, n=500)).method
    'bca'
    """
    return next(rule for rule in RULES if rule.holds(case))


def reason(rule: Rule, case: Case) -> str:
    """The note that says which method ``method="auto"`` chose, and why."""
    design = f"{case.n_clusters} clusters" if case.clustered else "independent rows"
    what = {
        "proportion": "a proportion",
        "mean": "a mean",
        "f1": "F1",
        "pearson": "a Pearson correlation",
        "kendall": "Kendall's tau",
        "bleu": "corpus BLEU",
        "roc_auc": "ROC-AUC",
        "other": "this metric",
        "proportion-difference": "a paired difference of proportions",
        "mean-difference": "a paired difference of means",
        "difference": "a paired difference",
    }[case.family]
    where = "" if rule.condition.startswith(("otherwise", "any")) else f", {rule.condition}"
    if case.family == "proportion" and not case.closed_form:
        where += ", a transform asked for (no closed form)"
    rows = (
        f"{case.n} rows"
        if case.discordant is None
        else f"{case.n} rows, {case.discordant} discordant"
    )
    share = None
    if case.family == "proportion" and case.minority is not None and case.n:
        share = 1.0 - case.minority / case.n  # the commoner outcome's, as the atlas's p
    cell = nearest_cell(rule.evidence, case.n, case.n_clusters if case.clustered else None, share)
    cite = (
        f"coverage atlas, nearest cell: {cell.text}"
        if cell is not None
        else "the coverage atlas has no cell near this case (the rule's evidence is in "
        "docs/coverage.md)"
    )
    return f"method='auto' chose {rule.method!r} for {what} on {design} ({rows}{where}); {cite}"


def closed_form(
    method: str, m: Metric, arrays: tuple[np.ndarray, ...], clusters: Any, level: float
) -> AnalyticInterval:
    """The closed-form interval ``method`` (one of :data:`CLOSED_FORMS`) for a proportion,
    CR2 for a mean (formed on the scores' :func:`natural_link` scale), or Newcombe's score
    interval for ROC-AUC.

    Its warnings are raised again at the caller of :func:`booteval.ci`; its notes are in
    the returned interval's ``notes``.
    """
    if method == "newcombe-auc":  # arrays: y_true (1 for a positive row), y_score
        return newcombe_auc_interval(arrays[0], arrays[1], confidence_level=level)
    if method == JACKKNIFE_T:
        return jackknife_t_closed_form(m, arrays, clusters, level)
    y = row_scores(m, arrays)
    assert y is not None, "closed forms are chosen for means and proportions only"
    with collect_warnings() as caught:
        if method == "jeffreys":
            out = jeffreys_interval(round(float(y.sum())), y.size, confidence_level=level)
        elif method == "clustered-wilson":
            out = clustered_wilson_interval(y, clusters, confidence_level=level)
        elif method == "quasi-wilson" and np.all(y == y[0]):
            out = _constant_bound(float(y[0]), y.size, level)
        elif method == "quasi-wilson":
            out = quasi_wilson_interval(y, confidence_level=level)
        else:  # CR2 on the scale where the interval stays in the scores' range
            out = cluster_robust_interval(
                y, clusters, confidence_level=level, correction="CR2", link=natural_link(y)
            )
    for w in caught:
        warn(w.message, w.category, stacklevel=4)
    return out


def _constant_bound(value: float, n: int, level: float) -> ClusteredInterval:
    """:func:`~booteval.inference.bounded_mean.constant_bound` for ``n`` scores all equal to
    ``value``, with the note that says so."""
    low, high = constant_bound(value, n, level)
    share = 1.0 - (high - low)  # the bound on the share of scores at ``value``
    note = (
        f"every score is {value:g}: the interval bounds the mean with the exact binomial "
        f"bound on the share of scores at {value:g} (at least {share:.3f}), the rest anywhere "
        "in [0, 1]"
    )
    return ClusteredInterval(
        value, low, high, level, "quasi-wilson", n, 0.0, n_clusters=n, notes=(note,)
    )


def paired_closed_form(
    method: str, m: Metric, arrays: tuple[tuple[np.ndarray, ...], ...], clusters: Any,
    level: float, alternative: str, known_jackknife: tuple | None = None,
) -> tuple[float, float, float]:  # fmt: skip
    """The closed-form interval ``method`` of :func:`booteval.compare`'s ``B - A`` (one of
    :data:`CLOSED_FORMS`), and the p-value that inverts it: Newcombe's for two
    proportions, Tango's (McNemar's test), for two means the CR2 cluster-robust t on
    the per-row differences (Bell-McCaffrey degrees of freedom), or the cluster jackknife
    t of ``B - A`` (:mod:`.jackknife_forms`; ``known_jackknife``: both systems'
    leave-one-cluster-out values, where already computed). Warnings are raised again
    at the caller of ``compare``."""
    if method in ("newcombe", "tango"):
        y_a, y_b = (outcomes(m, a) for a in arrays)
        assert y_a is not None and y_b is not None, "score intervals are for proportions"
        interval, p_of = {
            "newcombe": (newcombe_interval, newcombe_p_value),
            "tango": (tango_interval, tango_p_value),
        }[method]
        out = interval(y_a, y_b, confidence_level=level)
        return out.low, out.high, p_of(paired_counts(y_a, y_b), alternative)
    if method == JACKKNIFE_T:
        formed = paired_jackknife_t(
            m, (arrays[0], arrays[1]), clusters, level, alternative, known_jackknife
        )  # fmt: skip
        assert formed is not None, "chosen only where Case.jackknife holds"
        return formed[0].low, formed[0].high, formed[1]
    assert method == "cr2", method
    y_a, y_b = (row_scores(m, a) for a in arrays)
    assert y_a is not None and y_b is not None, "CR2 is for means of per-row scores"
    # differences of [0, 1] scores lie in [-1, 1]: the interval is formed on atanh's scale
    bounded = natural_link(np.concatenate([y_a, y_b])) == "logit"
    link = "atanh" if bounded else "identity"
    with collect_warnings() as caught:
        cr2 = cluster_robust_interval(y_b - y_a, clusters, confidence_level=level, link=link)
    for w in caught:
        warn(w.message, w.category, stacklevel=4)
    se, df, d = cr2.standard_error, cr2.df, cr2.estimate
    usable = se is not None and se > 0 and df is not None and (abs(d) < 1.0 or not bounded)
    if not usable:
        p = 1.0 if d == 0 else 0.0
    else:  # the t statistic on the scale of the interval, which the p-value inverts
        t = math.atanh(d) * (1.0 - d * d) / se if bounded else d / se
        p = {
            "greater": float(stdtr(df, -t)),  # Student's t survival function
            "less": float(stdtr(df, t)),
            "two-sided": float(2.0 * stdtr(df, -abs(t))),
        }[alternative]
    return cr2.low, cr2.high, min(1.0, p)
