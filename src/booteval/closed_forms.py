"""Closed-form intervals: the score, exact and analytic intervals of proportions,
correlations and AUC, and the few-cluster intervals, in one place.

No resampling: each is a formula of the data (and, for the few-cluster intervals, of the
clusters). ``method="auto"`` of :func:`booteval.ci` and :func:`booteval.compare` picks
some of them (Jeffreys, CR2, clustered Wilson, the quasi-binomial Wilson interval of a mean
of [0, 1] scores, Tango, Newcombe, Newcombe's score interval for ROC-AUC) where the coverage atlas
shows them better calibrated than any bootstrap.

>>> from booteval.closed_forms import wilson_interval
>>> r = wilson_interval(45, 50)
>>> print(r.format(scale=100, digits=1))
90.0 (78.6, 95.7)
"""

from .inference.analytic import (
    AnalyticInterval,
    clopper_pearson_interval,
    fisher_z_interval,
    jeffreys_interval,
    wilson_interval,
)
from .inference.auc_score import newcombe_auc_interval
from .inference.bounded_mean import quasi_wilson_interval
from .inference.delong import delong_interval
from .inference.few_clusters import (
    ClusteredInterval,
    cluster_robust_interval,
    clustered_wilson_interval,
)
from .inference.paired_proportions import newcombe_interval, tango_interval

__all__ = [
    "AnalyticInterval",
    "ClusteredInterval",
    "clopper_pearson_interval",
    "cluster_robust_interval",
    "clustered_wilson_interval",
    "delong_interval",
    "fisher_z_interval",
    "jeffreys_interval",
    "newcombe_auc_interval",
    "newcombe_interval",
    "quasi_wilson_interval",
    "tango_interval",
    "wilson_interval",
]
