"""Counter-based Poisson(1) bootstrap weights: a pure function of (seed, unit key, replicate).

A unit's weight in a replicate depends on nothing else: not on the order of the units, on
how they are split into partitions or files, on the batch of replicates, or on the engine.
That is what lets a Poisson bootstrap run where the rows never meet (one partition per
worker) and still give the same numbers as one process holding every row.

* The generator is Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers:
  as easy as 1, 2, 3", SC 2011; the Random123 library), checked against the library's
  published known-answer vectors in ``tests/test_philox.py``. It maps a 128-bit counter and
  a 64-bit key to four 32-bit words.
* The counter is ``(unit key low, unit key high, replicate // 4, 0)``; the four words are
  replicates ``4 b .. 4 b + 3``. The key is two 32-bit words drawn from the run's seed on
  the ``poisson`` stream of :data:`booteval.core.streams.STREAMS` (every bit of the seed
  counts, and no other feature shares these numbers).
* A word ``u`` becomes a Poisson(1) count through a fixed table of 32-bit thresholds
  (:data:`POISSON1_THRESHOLDS`): the count is the number of thresholds at or below ``u``.
  The table is the exact cumulative distribution, rounded down to multiples of ``2**-32``,
  so the counts follow Poisson(1) to 32-bit resolution (a count above 12 has probability
  ``2**-32`` instead of about ``1.3e-11``).
* A unit key is a stable row id, or :func:`unit_key` of a cluster label (never Python's
  ``hash()``, which is salted): integers (and integral floats, and dates as nanoseconds)
  through Philox4x32-10 under a fixed key, a bijection computed for a whole column at
  once; strings, bytes and other floats through a fixed, unsalted 64-bit BLAKE2b hash of
  their type and text.
"""

from __future__ import annotations

import datetime
import hashlib
import numbers

import numpy as np

from .design import Design
from .errors import InvalidInputError
from .intervals import STUDENTIZED
from .params import RESAMPLING
from .poisson_table import POISSON1_THRESHOLDS, philox_key
from .weights import WeightSource

__all__ = [
    "POISSON1_THRESHOLDS",
    "RESAMPLING",
    "PoissonSource",
    "describe_source",
    "philox4x32_10",
    "philox_key",
    "poisson_weights",
    "unit_key",
    "unit_keys",
    "weight_source",
]

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


def philox4x32_10(counter: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Philox4x32-10 of ``counter`` (``(..., 4)`` words) under ``key`` (``(..., 2)`` words).

    Vectorized over the leading axes; every word is an unsigned 32-bit value held in any
    integer dtype. Returns ``(..., 4)`` ``uint32`` words.

    Examples
    --------
    >>> out = philox4x32_10(np.zeros(4, dtype=np.uint32), np.zeros(2, dtype=np.uint32))
    >>> [f"{w:08x}" for w in out]
    ['6627e8d5', 'e169c58d', 'bc57ac4c', '9b00dbd8']
    """
    c = np.asarray(counter).astype(np.uint64) & _LOW
    k = np.asarray(key).astype(np.uint64) & _LOW
    c0, c1, c2, c3 = c[..., 0], c[..., 1], c[..., 2], c[..., 3]
    k0, k1 = k[..., 0], k[..., 1]
    for r in range(10):
        if r:
            k0, k1 = (k0 + _W0) & _LOW, (k1 + _W1) & _LOW
        p0, p1 = _M0 * c0, _M1 * c2  # 64-bit products of 32-bit words: exact
        c0, c1, c2, c3 = (p1 >> _SHIFT) ^ c1 ^ k0, p1 & _LOW, (p0 >> _SHIFT) ^ c3 ^ k1, p0 & _LOW
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


# the fixed key of the integer labels' hash ("boot", "eval"), and the counter's last word
_LABEL_KEY = np.array([0x626F6F74, 0x6576616C], dtype=np.uint64)
_LABEL_WORD = 0x6B657973  # "keys"
_INT, _TIME = 1, 3  # counter tags (a negative value adds 1)


def _as_integer(label: object) -> tuple[int, int] | None:
    """``(value, tag)`` of a label hashed as an integer (``None`` for the others)."""
    if isinstance(label, bool | np.bool_):
        return None
    if isinstance(label, numbers.Integral):
        value, tag = int(label), _INT
    elif isinstance(label, numbers.Real) and float(label).is_integer():
        value, tag = int(float(label)), _INT  # an id column read as float
    elif isinstance(label, datetime.date | np.datetime64):
        value, tag = int(np.datetime64(label, "ns").astype(np.int64)), _TIME
    else:
        return None
    return (value, tag) if -(1 << 63) <= value < (1 << 64) else None


def _integer_keys(bits: np.ndarray, tags: np.ndarray) -> np.ndarray:
    """Keys of 64-bit values (two's complement ``bits``) with counter ``tags``: one Philox
    block each, so distinct (value, tag) pairs get distinct keys."""
    from .poisson_kernels import philox_blocks  # compiled (that module imports this one)

    counter = np.stack([bits & _LOW, bits >> _SHIFT, tags.astype(np.uint64)], axis=-1)
    return philox_blocks(counter, _LABEL_WORD, _LABEL_KEY).reshape(bits.shape)


def _text_key(label: object) -> int:
    """BLAKE2b of the type and text of a label that is not an integer."""
    if isinstance(label, bool | np.bool_):
        text = b"b:" + str(bool(label)).encode()
    elif isinstance(label, numbers.Integral):
        text = b"i:" + str(int(label)).encode()  # beyond 64 bits
    elif isinstance(label, str):
        text = b"s:" + label.encode("utf-8")
    elif isinstance(label, numbers.Real) and float(label).is_integer():
        text = b"i:" + str(int(float(label))).encode()
    elif isinstance(label, numbers.Real):
        text = b"f:" + repr(float(label)).encode()
    elif isinstance(label, bytes):
        text = b"y:" + label
    else:
        raise InvalidInputError(
            "clusters",
            "labels that are integers, strings, floats, dates or bytes (hashed to stable "
            "64-bit keys)",
            f"a label of type {type(label).__name__}",
        )
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def unit_key(label: object) -> int:
    """The 64-bit key of a cluster label: a fixed function of its type and value.

    Integers (Python or NumPy, and floats with an integral value, as an id column read as
    floats) are keys of the same integer, so ``3``, ``np.int64(3)`` and ``3.0`` share a
    key; dates and times are keys of their nanoseconds since the epoch (under another
    tag); these go through Philox4x32-10 under a fixed key. Strings hash as UTF-8 text,
    other floats by the shortest text of their float64 value (so a float32 label is
    widened first), through BLAKE2b. Other types are refused.

    Examples
    --------
    >>> unit_key("user-17") == unit_key(np.str_("user-17")), unit_key(3) == unit_key(np.int8(3))
    (True, True)
    >>> unit_key(3) == unit_key("3"), unit_key(3) == unit_key(3.0)
    (False, True)
    >>> unit_key(-1) == unit_key(2**64 - 1)  # the same 64 bits, another tag
    False
    """
    as_int = _as_integer(label)
    if as_int is None:
        return _text_key(label)
    value, tag = as_int
    neg = value < 0
    bits = np.array([value + (1 << 64) if neg else value], dtype=np.uint64)
    return int(_integer_keys(bits, np.array([tag + neg]))[0])


def unit_keys(labels: object) -> np.ndarray:
    """:func:`unit_key` of each label, as ``uint64``: a whole column at once for integer,
    integral float and datetime columns (what an id column is), label by label otherwise.

    Examples
    --------
    >>> ids = np.array([5, -2, 7], dtype=np.int64)
    >>> bool((unit_keys(ids) == [unit_key(5), unit_key(-2), unit_key(7)]).all())
    True
    """
    arr = np.asarray(labels)
    kind = arr.dtype.kind
    if kind == "f" and arr.size and np.isfinite(arr).all():
        if (arr == np.floor(arr)).all() and np.abs(arr).max() < 2.0**63:
            arr, kind = arr.astype(np.int64), "i"
    if kind in "iuM":
        tag = _TIME if kind == "M" else _INT
        if kind == "M":
            arr = arr.astype("datetime64[ns]").astype(np.int64)
        neg = arr < 0 if kind != "u" else np.zeros(arr.shape, dtype=bool)
        bits = arr.astype(np.int64).view(np.uint64) if kind != "u" else arr.astype(np.uint64)
        return _integer_keys(bits, tag + neg.astype(np.int64))
    flat = arr.astype(object).ravel()
    return np.array([unit_key(v) for v in flat], dtype=np.uint64).reshape(arr.shape)


def poisson_weights(seed: int, keys: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Poisson(1) weights of the units ``keys`` in replicates ``start .. stop - 1``.

    Returns ``(stop - start, len(keys))`` ``float64`` counts. Entry ``(b, i)`` depends only
    on ``seed``, ``keys[i]`` and ``start + b``.

    Examples
    --------
    >>> w = poisson_weights(7, np.arange(5, dtype=np.uint64), 0, 6)
    >>> bool((poisson_weights(7, np.arange(2, 4, dtype=np.uint64), 3, 5) == w[3:5, 2:4]).all())
    True
    """
    keys = np.asarray(keys, dtype=np.uint64)
    if stop <= start:
        return np.zeros((0, keys.size))
    blocks = np.arange(start // 4, (stop - 1) // 4 + 1, dtype=np.uint64)
    counter = np.empty((blocks.size, keys.size, 4), dtype=np.uint64)
    counter[..., 0] = keys[None, :] & _LOW
    counter[..., 1] = keys[None, :] >> _SHIFT
    counter[..., 2] = blocks[:, None]
    counter[..., 3] = 0
    key = philox_key(seed)
    words = philox4x32_10(counter, key)  # (blocks, units, 4): replicate 4 b + j in word j
    counts = np.searchsorted(POISSON1_THRESHOLDS, words.astype(np.uint64), side="right")
    rows = counts.transpose(0, 2, 1).reshape(-1, keys.size)  # replicate-major
    first = start - 4 * (start // 4)
    # C order: a strided block would be summed in another order by matmul
    return np.ascontiguousarray(rows[first : first + stop - start], dtype=np.float64)


class PoissonSource(WeightSource):
    """A weight source of counter-based Poisson(1) weights for the units of ``design``.

    Rows are keyed by their positions, clusters by :func:`unit_key` of their labels (a
    stable row id given as the clusters keys rows independently of their order); a
    compressed design's cell gets the sum of its rows' weights, so it equals the
    row-level bootstrap exactly. Strata play no part: every
    unit's weight is independent (:func:`weight_source` refuses them).
    A :class:`~booteval.core.weights.WeightSource` without blocks: each replicate's
    weights are a pure function of its number (counter-based), so any range is computed
    directly.
    """

    stream = "poisson"

    def __init__(self, design: Design, clusters: object = None) -> None:
        self.design = design
        if design.clustered:
            labels = np.asarray(clusters)
            first = np.empty(design.n_units, dtype=np.intp)
            first[design.unit_of_row[::-1]] = np.arange(design.n_rows)[::-1]
            self.keys = unit_keys(labels[first])
        else:
            self.keys = np.arange(design.n_rows, dtype=np.uint64)
        self._cells = None
        if design.compressed:
            import scipy.sparse as sp

            ones = np.ones(design.n_rows)
            rows = np.arange(design.n_rows)
            shape = (design.n_rows, design.n_units)
            self._cells = sp.csr_matrix((ones, (rows, design.unit_of_row)), shape=shape)
        # about 2**20 weights per block, in whole Philox blocks of 4 replicates
        self.block_size = 4 * max(1, min(256, (1 << 18) // max(self.keys.size, 1)))

    def unit_weights(self, seed: int, start: int, stop: int) -> np.ndarray:
        w = poisson_weights(seed, self.keys, start, stop)
        if self._cells is not None:
            return np.ascontiguousarray((self._cells.T @ w.T).T)
        return w


def weight_source(
    design: str, plan: Design, own: Design | None, clusters: object, method: str
) -> Design | PoissonSource:
    """The weight source ``design=`` names for the units of ``plan`` (or of ``own``, an
    evaluator's compressed design): ``plan`` itself, or its Poisson weights."""
    if design == "multinomial":
        return plan
    if method in STUDENTIZED:
        raise InvalidInputError(
            "method", "'percentile', 'basic', 'normal' or 'bca' with design='poisson'",
            repr(method),
        )  # fmt: skip
    if plan.n_strata > 1:
        raise InvalidInputError(
            "strata", "None with design='poisson' (every unit's weight is independent, so "
            "stratum sizes are not kept; use the multinomial design to keep them)",
            f"{plan.n_strata} strata",
        )  # fmt: skip
    return PoissonSource(own or plan, clusters)


def describe_source(plan: Design, source: object) -> str:
    """``plan.describe()``, naming the Poisson bootstrap where ``source`` is one."""
    text = plan.describe()
    return text.replace(" bootstrap", " Poisson bootstrap", 1) if source is not plan else text
