"""booteval: honest numbers for machine-learning evaluation.

Every metric with a confidence interval, under any resampling design (iid,
stratified, clustered), with every standard interval method.

>>> import booteval
>>> r = booteval.ci([0.71, 0.93, 0.88, 0.64, 0.95, 0.79, 0.85, 0.90], seed=0)
>>> r.estimate
0.8312499999999999

The top level holds the entry points, the options object, :class:`CIResult`, the errors
and warnings, the metric registry and two subpackages (``datasets``, ``logs``). The other
result classes live in :mod:`booteval.results`, the closed-form intervals in
:mod:`booteval.closed_forms`. Everything is imported on first use: ``import booteval``
loads neither SciPy's statistics nor numba.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:  # what the names are, for type checkers and documentation tools
    from .core.errors import (
        BootevalError,
        BootevalWarning,
        DegenerateIntervalWarning,
        InvalidInputError,
        LongRunWarning,
        SmallSampleWarning,
        UndefinedReplicateWarning,
    )
    from .core.options import BootstrapOptions
    from .inference.classical import mcnemar_test, paired_t_test
    from .inference.comparison import compare
    from .inference.confidence import ci
    from .inference.delong import delong_test
    from .inference.leaderboard import adjust_p_values, leaderboard
    from .inference.power import minimum_detectable_effect, power_for_effect, required_sample_size
    from .inference.significance import permutation_test
    from .inference.wild_cluster import wild_cluster_ci
    from .meta import compare_correlations, correlate, correlate_metrics
    from .methods.crossval import cv_t_interval, nested_cv_interval
    from .methods.multilabel import multilabel_ci
    from .methods.oob import bootstrap_error_estimates, oob_ensemble_extrapolation
    from .methods.pass_at_k import compare_pass_at_k, majority_vote_at_k, pass_at_k
    from .methods.samples import nested_ci
    from .methods.seeds import compare_methods, pool_seeds
    from .methods.threshold import threshold_ci, threshold_compare
    from .methods.training import bootstrap_training
    from .methods.wild import wild_ci
    from .metrics import Metric, get_metric, list_metrics
    from .results import CIResult

#: the top-level names and the module each comes from (imported on first use)
_PUBLIC: dict[str, str] = {
    "ci": "booteval.inference.confidence",
    "compare": "booteval.inference.comparison",
    "leaderboard": "booteval.inference.leaderboard",
    "permutation_test": "booteval.inference.significance",
    "power_for_effect": "booteval.inference.power",
    "required_sample_size": "booteval.inference.power",
    "minimum_detectable_effect": "booteval.inference.power",
    "correlate": "booteval.meta",
    "correlate_metrics": "booteval.meta",
    "compare_correlations": "booteval.meta",
    "pool_seeds": "booteval.methods.seeds",
    "compare_methods": "booteval.methods.seeds",
    "bootstrap_training": "booteval.methods.training",
    "cv_t_interval": "booteval.methods.crossval",
    "nested_cv_interval": "booteval.methods.crossval",
    "multilabel_ci": "booteval.methods.multilabel",
    "pass_at_k": "booteval.methods.pass_at_k",
    "compare_pass_at_k": "booteval.methods.pass_at_k",
    "majority_vote_at_k": "booteval.methods.pass_at_k",
    "nested_ci": "booteval.methods.samples",
    "threshold_ci": "booteval.methods.threshold",
    "threshold_compare": "booteval.methods.threshold",
    "wild_ci": "booteval.methods.wild",
    "wild_cluster_ci": "booteval.inference.wild_cluster",
    "mcnemar_test": "booteval.inference.classical",
    "paired_t_test": "booteval.inference.classical",
    "delong_test": "booteval.inference.delong",
    "judge_corrected_ci": "booteval.inference.judge",
    "judge_corrected_compare": "booteval.inference.judge",
    "bootstrap_error_estimates": "booteval.methods.oob",
    "oob_ensemble_extrapolation": "booteval.methods.oob",
    "adjust_p_values": "booteval.inference.leaderboard",
    "BootstrapOptions": "booteval.core.options",
    "CIResult": "booteval.results",
    "BootevalError": "booteval.core.errors",
    "BootevalWarning": "booteval.core.errors",
    "InvalidInputError": "booteval.core.errors",
    "DegenerateIntervalWarning": "booteval.core.errors",
    "SmallSampleWarning": "booteval.core.errors",
    "UndefinedReplicateWarning": "booteval.core.errors",
    "LongRunWarning": "booteval.core.errors",
    "get_metric": "booteval.metrics",
    "list_metrics": "booteval.metrics",
    "Metric": "booteval.metrics",
}
#: names of earlier releases that moved, and where they live now (one release of warnings)
_MOVED: dict[str, str] = {
    "AnalyticInterval": "booteval.closed_forms",
    "ClusteredInterval": "booteval.closed_forms",
    "clopper_pearson_interval": "booteval.closed_forms",
    "cluster_robust_interval": "booteval.closed_forms",
    "clustered_wilson_interval": "booteval.closed_forms",
    "delong_interval": "booteval.closed_forms",
    "fisher_z_interval": "booteval.closed_forms",
    "jeffreys_interval": "booteval.closed_forms",
    "newcombe_interval": "booteval.closed_forms",
    "tango_interval": "booteval.closed_forms",
    "wilson_interval": "booteval.closed_forms",
    "McNemarTestResult": "booteval.results",
    "PairedTTestResult": "booteval.results",
    "ComparisonResult": "booteval.results",
    "DeLongTest": "booteval.results",
    "LeaderboardEntry": "booteval.results",
    "LeaderboardResult": "booteval.results",
    "PairwiseDifference": "booteval.results",
    "PowerAnalysis": "booteval.results",
    "PermutationTestResult": "booteval.results",
    "CorrelationComparison": "booteval.results",
    "CorrelationResult": "booteval.results",
    "CoverageRow": "booteval.results",
    "CoverageTable": "booteval.results",
    "CVInterval": "booteval.results",
    "NestedCVInterval": "booteval.results",
    "BootstrapErrorEstimates": "booteval.results",
    "ErrorEstimate": "booteval.results",
    "OOBExtrapolation": "booteval.results",
    "NestedResult": "booteval.results",
    "MethodComparisonResult": "booteval.results",
    "SeedPoolResult": "booteval.results",
    "ThresholdCIResult": "booteval.results",
    "ThresholdComparisonResult": "booteval.results",
    "TrainingBootstrapResult": "booteval.results",
    "Design": "booteval.core.design",
    "make_design": "booteval.core.design",
    "METHODS": "booteval.core.intervals",
    "Transform": "booteval.core.intervals",
    "stderr_progress": "booteval.core.progress",
    "CORRECTIONS": "booteval.inference.multiple",
    "ScoreMatrices": "booteval.meta",
    "score_matrices": "booteval.meta",
    "simulate_correlation_coverage": "booteval.meta",
    "macro_average": "booteval.methods.multilabel",
    "per_label_scores": "booteval.methods.multilabel",
    "no_information_error": "booteval.methods.oob",
    "point632": "booteval.methods.oob",
    "point632_plus": "booteval.methods.oob",
    "pass_at_k_values": "booteval.methods.pass_at_k",
    "pass_hat_k_values": "booteval.methods.pass_at_k",
    "THRESHOLD_METRICS": "booteval.methods.threshold",
    "THRESHOLD_RULES": "booteval.methods.threshold",
    "fit_threshold": "booteval.methods.threshold",
    "threshold_metric": "booteval.methods.threshold",
    "MULTIPLIERS": "booteval.methods.wild",
    "draw_multipliers": "booteval.methods.wild",
    "multiplier_support": "booteval.methods.wild",
    "CallableMetric": "booteval.metrics",
}
#: subpackages and modules reached as attributes
_SUBMODULES = ("closed_forms", "core", "datasets", "inference", "logs", "meta", "methods",
               "metrics", "plot", "report", "results")  # fmt: skip
#: module paths of version 0.1 that still import, as aliases of the modules' new places
_OLD_MODULES: dict[str, str] = {
    "design": "core.design",
    "intervals": "core.intervals",
    "options": "core.options",
    "confidence": "inference.confidence",
    "comparison": "inference.comparison",
    "leaderboard": "inference.leaderboard",
    "significance": "inference.significance",
    "power": "inference.power",
    "analytic": "inference.analytic",
    "few_clusters": "inference.few_clusters",
    "seeds": "methods.seeds",
    "training": "methods.training",
    "crossval": "methods.crossval",
    "oob": "methods.oob",
    "wild": "methods.wild",
    "multilabel": "methods.multilabel",
    "threshold": "methods.threshold",
    "samples": "methods.samples",
}

__all__ = [
    "BootevalError",
    "BootevalWarning",
    "BootstrapOptions",
    "CIResult",
    "DegenerateIntervalWarning",
    "InvalidInputError",
    "LongRunWarning",
    "Metric",
    "SmallSampleWarning",
    "UndefinedReplicateWarning",
    "__version__",
    "adjust_p_values",
    "bootstrap_error_estimates",
    "bootstrap_training",
    "ci",
    "compare",
    "compare_correlations",
    "compare_methods",
    "compare_pass_at_k",
    "correlate",
    "correlate_metrics",
    "cv_t_interval",
    "datasets",
    "delong_test",
    "get_metric",
    "judge_corrected_ci",
    "judge_corrected_compare",
    "leaderboard",
    "list_metrics",
    "logs",
    "majority_vote_at_k",
    "mcnemar_test",
    "minimum_detectable_effect",
    "multilabel_ci",
    "nested_ci",
    "nested_cv_interval",
    "oob_ensemble_extrapolation",
    "paired_t_test",
    "pass_at_k",
    "permutation_test",
    "pool_seeds",
    "power_for_effect",
    "required_sample_size",
    "threshold_ci",
    "threshold_compare",
    "wild_ci",
    "wild_cluster_ci",
]


def __getattr__(name: str) -> Any:
    """Import a top-level name on first use (and warn where it moved)."""
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    elif name in _OLD_MODULES:
        value = importlib.import_module(f"{__name__}.{_OLD_MODULES[name]}")
    elif name in _MOVED:
        home = _MOVED[name]
        warnings.warn(
            f"booteval.{name} moved to {home}.{name}; the top-level name is kept for one release",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_SUBMODULES})


class _OldModulePaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import booteval.design`` (a module path of version 0.1) gives the module at its
    new place, ``booteval.core.design``, without importing anything before it is asked."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        prefix, _, old = fullname.partition(".")
        if prefix != __name__ or old not in _OLD_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> Any:
        old = spec.name.partition(".")[2]
        return importlib.import_module(f"{__name__}.{_OLD_MODULES[old]}")

    def exec_module(self, module: Any) -> None:
        """The module ran when it was imported at its new place."""


if not any(isinstance(f, _OldModulePaths) for f in sys.meta_path):
    sys.meta_path.append(_OldModulePaths())


class _Forward(types.ModuleType):
    """An old module path whose last part is also a function's name
    (``booteval.leaderboard``): registered at once, so that importing it never rebinds the
    package's ``leaderboard`` to a module, and forwarding to the module at its new place."""

    def __init__(self, name: str, target: str) -> None:
        super().__init__(name)
        self._target = target

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._target), attr)


for _name in sorted(set(_OLD_MODULES) & set(_PUBLIC)):
    sys.modules.setdefault(
        f"{__name__}.{_name}",
        _Forward(f"{__name__}.{_name}", f"{__name__}.{_OLD_MODULES[_name]}"),
    )
del _name
