"""booteval: honest numbers for machine-learning evaluation.

Every metric with a confidence interval, under any resampling design (iid,
stratified, clustered), with every standard interval method.

>>> import booteval
>>> r = booteval.ci([0.71, 0.93, 0.88, 0.64, 0.95, 0.79, 0.85, 0.90], seed=0)
>>> r.estimate
0.8312499999999999
"""

import sys as _sys

from . import (
    core,  # the shared pipeline (internal)
    datasets,  # example data shipped with the package
    inference,  # intervals, comparisons, tests (internal modules)
    logs,  # readers of harness logs (pandas imported on use only)
    methods,  # seeds, training, thresholds, ... (internal modules)
)
from .core.design import Design, make_design
from .core.errors import (
    BootevalError,
    BootevalWarning,
    DegenerateIntervalWarning,
    InvalidInputError,
    LongRunWarning,
    SmallSampleWarning,
    UndefinedReplicateWarning,
)
from .core.intervals import METHODS, Transform
from .core.options import BootstrapOptions
from .core.progress import stderr_progress
from .inference.analytic import (
    AnalyticInterval,
    clopper_pearson_interval,
    fisher_z_interval,
    jeffreys_interval,
    wilson_interval,
)
from .inference.classical import McNemarTestResult, PairedTTestResult, mcnemar_test, paired_t_test
from .inference.comparison import ComparisonResult, compare
from .inference.confidence import ci
from .inference.delong import DeLongTest, delong_interval, delong_test
from .inference.few_clusters import (
    ClusteredInterval,
    cluster_robust_interval,
    clustered_wilson_interval,
)
from .inference.leaderboard import (
    CORRECTIONS,
    LeaderboardEntry,
    LeaderboardResult,
    PairwiseDifference,
    adjust_p_values,
    leaderboard,
)
from .inference.paired_proportions import newcombe_interval, tango_interval
from .inference.power import (
    PowerAnalysis,
    minimum_detectable_effect,
    power_for_effect,
    required_sample_size,
)
from .inference.significance import PermutationTestResult, permutation_test
from .inference.wild_cluster import wild_cluster_ci
from .meta import (
    CorrelationComparison,
    CorrelationResult,
    CoverageRow,
    CoverageTable,
    ScoreMatrices,
    compare_correlations,
    correlate,
    correlate_metrics,
    score_matrices,
    simulate_correlation_coverage,
)
from .methods.crossval import CVInterval, NestedCVInterval, cv_t_interval, nested_cv_interval
from .methods.multilabel import macro_average, multilabel_ci, per_label_scores
from .methods.oob import (
    BootstrapErrorEstimates,
    ErrorEstimate,
    OOBExtrapolation,
    bootstrap_error_estimates,
    no_information_error,
    oob_ensemble_extrapolation,
    point632,
    point632_plus,
)
from .methods.pass_at_k import compare_pass_at_k, majority_vote_at_k, pass_at_k, pass_at_k_values
from .methods.samples import NestedResult, nested_ci
from .methods.seeds import MethodComparisonResult, SeedPoolResult, compare_methods, pool_seeds
from .methods.threshold import (
    THRESHOLD_METRICS,
    THRESHOLD_RULES,
    ThresholdCIResult,
    ThresholdComparisonResult,
    fit_threshold,
    threshold_ci,
    threshold_compare,
    threshold_metric,
)
from .methods.training import TrainingBootstrapResult, bootstrap_training
from .methods.wild import MULTIPLIERS, draw_multipliers, multiplier_support, wild_ci
from .metrics import CallableMetric, Metric, get_metric, list_metrics
from .results import CIResult
from .version import __version__

# The modules of version 0.1 lived flat in the package; their old paths (``booteval.design``,
# ``booteval.threshold``, ...) stay importable for one release, as aliases of the new modules.
_MOVED = {
    "design": core.design,
    "intervals": core.intervals,
    "options": core.options,
    "confidence": inference.confidence,
    "comparison": inference.comparison,
    "leaderboard": inference.leaderboard,
    "significance": inference.significance,
    "power": inference.power,
    "analytic": inference.analytic,
    "few_clusters": inference.few_clusters,
    "seeds": methods.seeds,
    "training": methods.training,
    "crossval": methods.crossval,
    "oob": methods.oob,
    "wild": methods.wild,
    "multilabel": methods.multilabel,
    "threshold": methods.threshold,
    "samples": methods.samples,
}
for _old, _module in _MOVED.items():
    _sys.modules.setdefault(f"{__name__}.{_old}", _module)
    if _old not in globals():
        globals()[_old] = _module
del _old, _module

__all__ = [
    "CORRECTIONS",
    "METHODS",
    "MULTIPLIERS",
    "THRESHOLD_METRICS",
    "THRESHOLD_RULES",
    "AnalyticInterval",
    "BootevalError",
    "BootevalWarning",
    "BootstrapErrorEstimates",
    "BootstrapOptions",
    "CIResult",
    "CVInterval",
    "CallableMetric",
    "ClusteredInterval",
    "ComparisonResult",
    "CorrelationComparison",
    "CorrelationResult",
    "CoverageRow",
    "CoverageTable",
    "DeLongTest",
    "DegenerateIntervalWarning",
    "Design",
    "ErrorEstimate",
    "InvalidInputError",
    "LeaderboardEntry",
    "LeaderboardResult",
    "LongRunWarning",
    "McNemarTestResult",
    "MethodComparisonResult",
    "Metric",
    "NestedCVInterval",
    "NestedResult",
    "OOBExtrapolation",
    "PairedTTestResult",
    "PairwiseDifference",
    "PermutationTestResult",
    "PowerAnalysis",
    "ScoreMatrices",
    "SeedPoolResult",
    "SmallSampleWarning",
    "ThresholdCIResult",
    "ThresholdComparisonResult",
    "TrainingBootstrapResult",
    "Transform",
    "UndefinedReplicateWarning",
    "__version__",
    "adjust_p_values",
    "bootstrap_error_estimates",
    "bootstrap_training",
    "ci",
    "clopper_pearson_interval",
    "cluster_robust_interval",
    "clustered_wilson_interval",
    "compare",
    "compare_correlations",
    "compare_methods",
    "compare_pass_at_k",
    "correlate",
    "correlate_metrics",
    "cv_t_interval",
    "datasets",
    "delong_interval",
    "delong_test",
    "draw_multipliers",
    "fisher_z_interval",
    "fit_threshold",
    "get_metric",
    "jeffreys_interval",
    "leaderboard",
    "list_metrics",
    "logs",
    "macro_average",
    "majority_vote_at_k",
    "make_design",
    "mcnemar_test",
    "minimum_detectable_effect",
    "multilabel_ci",
    "multiplier_support",
    "nested_ci",
    "nested_cv_interval",
    "newcombe_interval",
    "no_information_error",
    "oob_ensemble_extrapolation",
    "paired_t_test",
    "pass_at_k",
    "pass_at_k_values",
    "per_label_scores",
    "permutation_test",
    "point632",
    "point632_plus",
    "pool_seeds",
    "power_for_effect",
    "required_sample_size",
    "score_matrices",
    "simulate_correlation_coverage",
    "stderr_progress",
    "tango_interval",
    "threshold_ci",
    "threshold_compare",
    "threshold_metric",
    "wild_ci",
    "wild_cluster_ci",
    "wilson_interval",
]
