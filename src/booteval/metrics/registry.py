"""The metric registry: names to metric classes, and :func:`get_metric`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..core.errors import InvalidInputError
from ..core.validation import describe_value
from . import calibration, classification, correlation, ranking, regression, text
from .base import Metric
from .generic import CallableMetric

__all__ = ["REGISTRY", "get_metric", "list_metrics", "resolve_metric"]

REGISTRY: dict[str, type[Metric]] = {}
for _module in (regression, classification, ranking, calibration, correlation, text):
    REGISTRY.update(_module.METRICS)

ALIASES: dict[str, str] = {"pr_auc": "average_precision", "auc": "roc_auc"}


def list_metrics() -> list[str]:
    """Names of the registered metrics.

    Examples
    --------
    >>> "accuracy" in list_metrics()
    True
    """
    return sorted(REGISTRY)


def get_metric(name: str, **params: Any) -> Metric:
    """A registered metric by name, with its parameters.

    Parameters
    ----------
    name : str
        A registry name (see :func:`list_metrics`).
    **params
        The metric's parameters, e.g. ``average="macro"`` or ``n_bins=15``.

    Examples
    --------
    >>> get_metric("f1", average="macro").label
    "f1(average='macro')"
    """
    key = ALIASES.get(name, name)
    if key not in REGISTRY:
        raise InvalidInputError(
            "metric", f"one of {', '.join(list_metrics())} or a callable", repr(name)
        )
    cls = REGISTRY[key]
    if params and cls.__init__ is Metric.__init__:
        raise InvalidInputError(
            "metric_kwargs", f"no parameters for metric {key!r}", f"{sorted(params)}"
        )
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidInputError(
            "metric_kwargs", f"parameters accepted by metric {key!r}", f"{sorted(params)} ({exc})"
        ) from None


def resolve_metric(
    metric: str | Metric | Callable[..., Any] | None,
    metric_kwargs: dict[str, Any] | None,
    n_arrays: int,
) -> Metric:
    """Turn the user's ``metric=`` (name, Metric, callable or None) into a Metric."""
    if metric_kwargs is not None and not isinstance(metric_kwargs, Mapping):
        raise InvalidInputError(
            "metric_kwargs",
            "a dict of the metric's parameters, e.g. {'average': 'macro'}",
            describe_value(metric_kwargs),
        )
    kwargs = dict(metric_kwargs or {})
    if metric is None:
        if n_arrays != 1:
            raise InvalidInputError(
                "metric",
                "a metric name, Metric or callable when passing two arrays",
                "None",
                f"Try metric='accuracy' or one of {', '.join(list_metrics())}.",
            )
        metric = "mean"
    if isinstance(metric, str):
        return get_metric(metric, **kwargs)
    if isinstance(metric, Metric):
        if kwargs:
            raise InvalidInputError(
                "metric_kwargs",
                "no extra parameters for a Metric object",
                f"{sorted(kwargs)}",
                "Set them when creating the metric.",
            )
        return metric
    if callable(metric):
        return CallableMetric(metric, n_inputs=n_arrays, kwargs=kwargs)
    raise InvalidInputError(
        "metric", "a metric name, a Metric object, or a callable", type(metric).__name__
    )
