"""The registry of random streams: every feature draws from its own named stream.

booteval takes one integer ``seed`` per run and derives every random number from it
through ``numpy.random.SeedSequence(seed, spawn_key=(root, *sub, *key))``. Each feature
owns a distinct spawn-key prefix, listed here and nowhere else, so two features never
share a stream by accident (a permutation test and a bootstrap run with the same seed
draw independent numbers), and ``tests/test_streams.py`` checks that no prefix is
another's prefix.

The keys after a feature's prefix (``key``) say which block, replicate or repetition a
generator serves; a replicate's numbers therefore never depend on how the work is
batched or spread over workers.

Examples
--------
>>> g = generator("design", 7, 0)          # block 0 of the resampling design, seed 7
>>> int(g.integers(10**6))
848384
>>> seed_sequence("design", 7, 0).spawn_key
(0, 0)
"""

from __future__ import annotations

import numpy as np

__all__ = ["STREAMS", "generator", "seed_sequence", "spawn_key"]

#: feature -> spawn-key prefix (no prefix is a prefix of another)
STREAMS: dict[str, tuple[int, ...]] = {
    "design": (0,),  # weights of the resampling designs, by block of replicates
    "nested": (1,),  # the inner bootstrap of a studentized interval, by replicate
    "meta.bootstrap": (2,),  # systems x inputs resampling of meta-evaluation, by block
    "meta.permutation": (3,),  # permutation tests of correlations, by block
    "threshold": (4,),  # validation and test sets of the two-level threshold bootstrap
    "crossval.folds": (5, 1),  # fold assignments of repeated cross-validation
    "oob.bootstrap": (5, 2),  # training-set bootstrap samples of the .632 estimators
    "wild": (6,),  # multipliers of the wild bootstrap, by block
    "samples": (7,),  # samples within a question (nested designs), by replicate
    "few_clusters.wild": (8,),  # multipliers of the wild cluster bootstrap-t, by chunk
    "seeds": (9,),  # per-run resampling of pooled seeds and method comparisons
    "permutation": (10,),  # sign flips and swaps of paired permutation tests, by block
    "training": (11,),  # training-set designs, model seeds and test resamples
    "kernels": (12,),  # the compiled engine's per-replicate generators
    "meta.simulation": (13,),  # simulated data sets of a correlation coverage study
}


def spawn_key(name: str, *key: int) -> tuple[int, ...]:
    """The full spawn key of stream ``name`` for ``key`` (block, replicate, ...)."""
    return (*STREAMS[name], *(int(k) for k in key))


def seed_sequence(name: str, seed: int, *key: int) -> np.random.SeedSequence:
    """The ``SeedSequence`` of stream ``name`` at ``key`` for the run's ``seed``."""
    return np.random.SeedSequence(seed, spawn_key=spawn_key(name, *key))


def generator(name: str, seed: int, *key: int) -> np.random.Generator:
    """A PCG64 ``Generator`` on stream ``name`` at ``key`` for the run's ``seed``."""
    return np.random.Generator(np.random.PCG64(seed_sequence(name, seed, *key)))
