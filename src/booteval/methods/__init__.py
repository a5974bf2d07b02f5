"""Evaluations of a method rather than of one set of predictions: seeds, training bootstrap,
cross-validation, out-of-bag error, wild and multilabel bootstraps, thresholds, and repeated
samples per item (pass@k)."""

from ..core.lazy import submodule_getter

#: a module of this subpackage as an attribute, imported on first use
__getattr__ = submodule_getter(__name__)
