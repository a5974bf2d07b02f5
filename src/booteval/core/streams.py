"""The registry of random streams: every feature draws from its own named stream.

booteval takes one integer ``seed`` per run and derives every random number from it
through ``numpy.random.SeedSequence(seed, spawn_key=(root, *sub, *key))``. Each feature
owns a distinct spawn-key prefix, listed here and nowhere else, so two features never
share a stream by accident (a permutation test and a bootstrap run with the same seed
draw independent numbers), and ``tests/test_streams.py`` checks that no prefix is
another's prefix.

The user's ``seed`` (an integer, a SeedSequence or a Generator) becomes the run's integer
seed here too (:func:`seed_to_int`, :func:`fresh_seed`), so this module is the only place
that builds numpy's seeding objects.

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

import numbers

import numpy as np

__all__ = [
    "STREAMS",
    "fresh_seed",
    "generator",
    "philox_generator",
    "seed_sequence",
    "seed_to_int",
    "spawn_key",
]

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
    "poisson": (14,),  # the key of the counter-based Poisson(1) weights (core.philox)
    "kernels.swaps": (15,),  # the compiled engine's per-permutation swap bits
    "kernels.wild": (16,),  # the compiled engine's per-replicate wild multipliers
    "kernels.threshold.val": (17, 0),  # the compiled threshold bootstrap's validation draws
    "kernels.threshold.test": (17, 1),  # and its test draws
    "kernels.meta": (18,),  # the compiled crossed bootstrap of the meta-evaluation
    "kernels.meta.swaps": (19,),  # the compiled permutation test of two correlations
    "calibrated": (20,),  # the inner resamples of the calibrated bootstrap, by replicate
    "kernels.calibrated": (21,),  # and the compiled engine's, by replicate
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


def philox_generator(key: int, counter: int = 0) -> np.random.Generator:
    """A Philox ``Generator`` at a 128-bit ``key`` and ``counter``: the counter-based
    streams of the distributed runs, whose keys come from the ``poisson`` stream
    (:func:`booteval.core.poisson_table.philox_key`) and a fixed tag of their own."""
    return np.random.Generator(np.random.Philox(key=key, counter=counter))


#: a drawn seed is below this: short enough to copy from a footer and pass back
FRESH_SEEDS = 2**32


def fresh_seed() -> int:
    """A new run's seed, drawn from the operating system's entropy (recorded in its result):
    an integer below 2**32, which the user can pass back as ``seed=`` to repeat the run."""
    return int(np.random.SeedSequence().entropy) % FRESH_SEEDS


def seed_to_int(seed: object) -> object:
    """An integer for a SeedSequence or a Generator (anything else is returned as is).

    A SeedSequence made from one integer gives that integer (``SeedSequence(42)`` runs as
    ``seed=42``); one with a spawn key (from ``spawn()``) or other entropy gives a 128-bit
    integer drawn from its state, so sibling sequences give different runs. A Generator
    gives an integer drawn from it (advancing it, as scipy does), so a run is reproduced
    by the integer recorded in its result.

    Examples
    --------
    >>> seed_to_int(np.random.SeedSequence(42))
    42
    >>> a, b = np.random.SeedSequence(42).spawn(2)
    >>> seed_to_int(a) != seed_to_int(b)
    True
    """
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63, dtype=np.int64))
    if isinstance(seed, np.random.SeedSequence):
        if isinstance(seed.entropy, numbers.Integral) and not seed.spawn_key:
            return int(seed.entropy)
        words = seed.generate_state(4, dtype=np.uint32)
        return int.from_bytes(words.astype("<u4").tobytes(), "little")
    return seed
