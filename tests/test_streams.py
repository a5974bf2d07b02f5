"""One registry of random streams: no two features can share a stream by accident."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import booteval
from booteval.core import streams as _streams
from booteval.core.streams import STREAMS, generator, seed_sequence, spawn_key

SRC = Path(booteval.__file__).parent


def test_no_stream_prefix_is_a_prefix_of_another():
    prefixes = list(STREAMS.values())
    for i, a in enumerate(prefixes):
        for b in prefixes[i + 1 :]:
            shorter = min(len(a), len(b))
            assert a[:shorter] != b[:shorter], (a, b)


def test_streams_are_made_only_in_the_registry():
    """No module but the registry builds numpy's seeding objects (a SeedSequence, a
    default_rng, a spawn key) or calls spawn()."""
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).as_posix() == "core/streams.py":
            continue
        code = "\n".join(
            line
            for line in path.read_text().splitlines()
            if "``" not in line and ">>>" not in line  # documentation and examples
        )
        if re.search(r"spawn_key\s*=|\.spawn\(|SeedSequence\(|default_rng\(", code):
            offenders.append(path.name)
    assert not offenders


def test_a_stream_is_its_seed_sequence():
    ss = seed_sequence("permutation", 5, 3)
    assert ss.spawn_key == (10, 3) == spawn_key("permutation", 3)
    a = generator("permutation", 5, 3).random(4)
    b = np.random.Generator(np.random.PCG64(np.random.SeedSequence(5, spawn_key=(10, 3))))
    assert np.array_equal(a, b.random(4))


def test_features_with_the_same_seed_draw_different_numbers():
    draws = {name: generator(name, 0, 0).integers(2**62) for name in STREAMS}
    assert len(set(draws.values())) == len(STREAMS)


def test_every_registered_stream_is_used():
    code = "\n".join(
        p.read_text()
        for p in SRC.rglob("*.py")
        if p.relative_to(SRC).as_posix() != "core/streams.py"
    )
    for name in STREAMS:
        assert f'"{name}"' in code, name
    assert _streams.__doc__


def test_every_weight_source_is_one_contract_with_a_registered_stream():
    """Every design of resampling subclasses core.weights.WeightSource and names its
    stream; a range of replicates is the same whether fetched at once or in pieces."""
    import importlib
    import pkgutil

    import numpy as np

    from booteval.core.design import make_design
    from booteval.core.streams import STREAMS
    from booteval.core.weights import WeightSource
    from booteval.inference.wild_cluster import _ClusterMultiplierSource
    from booteval.meta.compare import _SwapSource as _CrossedSwaps
    from booteval.meta.core import _CrossedSource
    from booteval.methods.wild import _MultiplierSource

    for m in pkgutil.walk_packages(booteval.__path__, prefix="booteval."):
        if not m.name.startswith(("booteval.cli", "booteval.plot", "booteval.distributed")):
            importlib.import_module(m.name)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    sources = [s for s in subclasses(WeightSource) if s.__module__.startswith("booteval.")]
    assert len(sources) >= 10
    for s in sources:
        assert s.stream in STREAMS, s
    blocked = [
        make_design(50, clusters=np.arange(50) // 5),
        _MultiplierSource("rademacher", 40),
        _ClusterMultiplierSource("webb", 7),
        _CrossedSource(6, 9),
        _CrossedSwaps(6, 9, "both", exact=False),
    ]
    for source in blocked:
        size = source.block_size
        whole = source.unit_weights(3, 0, 2 * size + 5)
        pieces = np.concatenate(
            [source.unit_weights(3, a, min(a + 7, 2 * size + 5)) for a in range(0, 2 * size + 5, 7)]
        )
        np.testing.assert_array_equal(whole, pieces)
