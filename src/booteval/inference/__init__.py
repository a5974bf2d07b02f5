"""Intervals, comparisons and tests: ``ci``, ``compare``, ``leaderboard``, permutation and classical
tests, power analysis, analytic intervals and the few-clusters remedies."""
