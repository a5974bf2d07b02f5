"""Intervals, comparisons and tests: ``ci``, ``compare``, ``leaderboard``, permutation and classical
tests, power analysis, analytic intervals and the few-clusters remedies."""

from ..core.lazy import submodule_getter

#: a module of this subpackage as an attribute, imported on first use
__getattr__ = submodule_getter(__name__)
