"""Intervals, comparisons and tests: ``ci``, ``compare``, ``leaderboard``, permutation and classical
tests, power analysis, analytic intervals and the few-clusters remedies."""


def __getattr__(name: str) -> object:
    """A module of this subpackage as an attribute, imported on first use."""
    import importlib

    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
