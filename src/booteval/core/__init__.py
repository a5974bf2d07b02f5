"""The pipeline every entry point shares.

Options and parameter checks (:mod:`.options`, :mod:`.params`, :mod:`.validation`), the random
streams (:mod:`.streams`), resampling designs and their weights (:mod:`.design`), the replicate
loop (:mod:`.engine`, with the compiled kernels of :mod:`.kernels`), interval methods and the
finish step (:mod:`.intervals`), progress reporting (:mod:`.progress`), errors and warnings
(:mod:`.errors`). Nothing here imports from the other subpackages except :mod:`booteval.metrics`
for the metric protocol and :mod:`booteval.results` for the result types.
"""


def __getattr__(name: str) -> object:
    """A module of this subpackage as an attribute, imported on first use."""
    import importlib

    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
