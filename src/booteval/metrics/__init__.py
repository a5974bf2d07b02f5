"""Metrics: the protocol, the registry and the built-in metrics by family."""

from .base import Evaluator, Metric, SumEvaluator
from .generic import CallableMetric
from .registry import REGISTRY, get_metric, list_metrics, resolve_metric

__all__ = [
    "REGISTRY",
    "CallableMetric",
    "Evaluator",
    "Metric",
    "SumEvaluator",
    "get_metric",
    "list_metrics",
    "resolve_metric",
]
