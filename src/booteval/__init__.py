"""booteval: honest numbers for machine-learning evaluation.

Every metric with a confidence interval, under any resampling design (iid,
stratified, clustered), with every standard interval method.

>>> import booteval
>>> r = booteval.ci([0.71, 0.93, 0.88, 0.64, 0.95, 0.79, 0.85, 0.90], seed=0)
>>> r.estimate
0.8312499999999999
"""

from . import (
    datasets,  # example data shipped with the package
    logs,  # readers of harness logs (pandas imported on use only)
)
from ._errors import (
    BootevalError,
    BootevalWarning,
    DegenerateIntervalWarning,
    InvalidInputError,
    LongRunWarning,
    SmallSampleWarning,
    UndefinedReplicateWarning,
)
from ._progress import stderr_progress
from .analytic import (
    AnalyticInterval,
    DeLongTest,
    clopper_pearson_interval,
    delong_interval,
    delong_test,
    fisher_z_interval,
    wilson_interval,
)
from .comparison import ComparisonResult, compare
from .confidence import ci
from .crossval import CVInterval, NestedCVInterval, cv_t_interval, nested_cv_interval
from .design import Design, make_design
from .few_clusters import (
    ClusteredInterval,
    cluster_robust_interval,
    clustered_wilson_interval,
    wild_cluster_ci,
)
from .intervals import METHODS, Transform
from .leaderboard import (
    CORRECTIONS,
    LeaderboardEntry,
    LeaderboardResult,
    PairwiseDifference,
    adjust_p_values,
    leaderboard,
)
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
from .metrics import CallableMetric, Metric, get_metric, list_metrics
from .multilabel import macro_average, multilabel_ci, per_label_scores
from .oob import (
    BootstrapErrorEstimates,
    ErrorEstimate,
    OOBExtrapolation,
    bootstrap_error_estimates,
    no_information_error,
    oob_ensemble_extrapolation,
    point632,
    point632_plus,
)
from .options import BootstrapOptions
from .power import (
    PowerAnalysis,
    minimum_detectable_effect,
    power_for_effect,
    required_sample_size,
)
from .results import CIResult
from .samples import (
    NestedResult,
    compare_pass_at_k,
    majority_vote_at_k,
    nested_ci,
    pass_at_k,
    pass_at_k_values,
)
from .seeds import MethodComparisonResult, SeedPoolResult, compare_methods, pool_seeds
from .significance import (
    McNemarTestResult,
    PairedTTestResult,
    PermutationTestResult,
    mcnemar_test,
    paired_t_test,
    permutation_test,
)
from .threshold import (
    THRESHOLD_METRICS,
    THRESHOLD_RULES,
    ThresholdCIResult,
    ThresholdComparisonResult,
    fit_threshold,
    threshold_ci,
    threshold_compare,
    threshold_metric,
)
from .training import TrainingBootstrapResult, bootstrap_training
from .wild import MULTIPLIERS, draw_multipliers, multiplier_support, wild_ci

__version__ = "0.1.0"

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
    "threshold_ci",
    "threshold_compare",
    "threshold_metric",
    "wild_ci",
    "wild_cluster_ci",
    "wilson_interval",
]
