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
