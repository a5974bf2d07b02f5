"""Evaluations of a method rather than of one set of predictions: seeds, training bootstrap,
cross-validation, out-of-bag error, wild and multilabel bootstraps, thresholds, and repeated
samples per item (pass@k)."""


def __getattr__(name: str) -> object:
    """A module of this subpackage as an attribute, imported on first use."""
    import importlib

    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
