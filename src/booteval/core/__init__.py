"""The pipeline every entry point shares.

Options and parameter checks (:mod:`.options`, :mod:`.params`, :mod:`.validation`), the random
streams (:mod:`.streams`), resampling designs and their weights (:mod:`.design`), the replicate
loop (:mod:`.engine`, with the compiled kernels of :mod:`.kernels`), interval methods and the
finish step (:mod:`.intervals`), progress reporting (:mod:`.progress`), errors and warnings
(:mod:`.errors`). Nothing here imports from the other subpackages except :mod:`booteval.metrics`
for the metric protocol and :mod:`booteval.results` for the result types.
"""

from .lazy import submodule_getter

#: a module of this subpackage as an attribute, imported on first use
__getattr__ = submodule_getter(__name__)
