"""The fixed numbers of the counter-based Poisson(1) weights: the threshold table that turns
a 32-bit word into a count, and the Philox key of a run's seed. One place that both the
NumPy weights (:mod:`booteval.core.philox`) and the compiled kernel
(:mod:`booteval.core.poisson_kernels`) read."""

from __future__ import annotations

import numpy as np

from .streams import seed_sequence

__all__ = ["POISSON1_THRESHOLDS", "philox_key"]

#: ``floor(2**32 * P(K <= k))`` for ``K ~ Poisson(1)``, ``k = 0 .. 12`` (exact; see the tests)
POISSON1_THRESHOLDS = np.array(
    [
        1580030168, 3160060337, 3950075421, 4213413783, 4279248373, 4292415291, 4294609777,
        4294923276, 4294962463, 4294966817, 4294967252, 4294967292, 4294967295,
    ],
    dtype=np.uint64,
)  # fmt: skip


def philox_key(seed: int) -> np.ndarray:
    """The two 32-bit key words of the Poisson weights for the run's ``seed``."""
    return seed_sequence("poisson", seed).generate_state(2, np.uint32).astype(np.uint64)
