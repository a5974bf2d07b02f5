"""The one resampling contract: a weight source draws blocks of weights; the engine asks
for any range of replicates.

Every design of resampling (multinomial rows, cells, clusters and strata; Poisson;
wild multipliers; swaps; the crossed systems x inputs design; the two-level and nested
designs) is a :class:`WeightSource`. A source that draws in fixed blocks of replicates
(the usual case: one generator per block, from a stream of
:data:`booteval.core.streams.STREAMS`) implements one hook, :meth:`WeightSource.block`;
the slicing of any range ``start .. stop - 1`` out of those blocks (and, where asked,
the caching of the last few blocks) is written here once, so replicate ``b`` gets the
same weights whatever the batch it is fetched in. A source whose replicates are computed
one by one, or that composes other sources, overrides :meth:`WeightSource.unit_weights`
instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

__all__ = ["WeightSource", "cut_blocks"]


def cut_blocks(
    block: Callable[[int, int], np.ndarray], size: int, seed: int, start: int, stop: int
) -> np.ndarray:
    """Replicates ``start .. stop - 1`` cut out of the blocks ``block(seed, j)`` of
    ``size`` replicates each: the one place that slices a range out of fixed blocks.

    Examples
    --------
    >>> blocks = lambda seed, j: np.arange(4 * j, 4 * j + 4)[:, None]
    >>> cut_blocks(blocks, 4, 0, 3, 9).ravel().tolist()
    [3, 4, 5, 6, 7, 8]
    """
    first, last = start // size, max(stop - 1, start) // size
    parts = []
    for j in range(first, last + 1):
        drawn = block(seed, j)
        parts.append(drawn[max(start - j * size, 0) : max(min(stop - j * size, size), 0)])
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)


class WeightSource:
    """The weights of replicates ``start .. stop - 1``, shape ``(stop - start, units)``,
    the same whatever the batching.

    Attributes
    ----------
    block_size : int
        Replicates per block (a function of the source's size only).
    stream : str or None
        The name of its stream in :data:`booteval.core.streams.STREAMS`.
    clustered : bool
        Whether the units are clusters of rows (the engine's nested bootstrap asks).
    cached_blocks : int
        How many of the last blocks to keep (0: none), so that batches that straddle a
        block draw it once.

    Examples
    --------
    >>> class Counts(WeightSource):
    ...     block_size = 3
    ...     def block(self, seed, j):
    ...         return np.arange(3 * j, 3 * j + 3, dtype=float)[:, None] + seed
    >>> Counts().unit_weights(10, 2, 5).ravel().tolist()
    [12.0, 13.0, 14.0]
    """

    #: (set by each source; a dataclass's field or property may serve)
    block_size: int
    clustered: bool
    stream: str | None = None
    cached_blocks: int = 0

    def block(self, seed: int, j: int) -> np.ndarray:
        """The hook: the weights of replicates ``j * block_size .. (j + 1) * block_size - 1``."""
        raise NotImplementedError(f"{type(self).__name__} draws no blocks")

    def unit_weights(self, seed: int, start: int, stop: int) -> np.ndarray:
        """The weights of replicates ``start .. stop - 1``, cut out of the blocks."""
        return cut_blocks(self._cached, self.block_size, seed, start, stop)

    def _cached(self, seed: int, j: int) -> np.ndarray:
        if not self.cached_blocks:
            return self.block(seed, j)
        cache = self.__dict__.get("_blocks")
        if cache is None:  # per instance, on first use (frozen dataclasses too)
            cache = (OrderedDict(), threading.Lock())
            object.__setattr__(self, "_blocks", cache)
        blocks, lock = cache
        with lock:
            found = blocks.get((seed, j))
        if found is None:
            found = self.block(seed, j)
            with lock:
                blocks[seed, j] = found
                while len(blocks) > self.cached_blocks:
                    blocks.popitem(last=False)
        return found
