"""Resampling designs: how rows are drawn, expressed as weight batches.

A design turns a seed and a range of replicate indices into a weight matrix of
shape ``(batch, n_units)``: how many times each resampling *unit* appears in
each replicate. Units are the rows for the iid and stratified designs and the
clusters for the clustered designs; :attr:`Design.unit_of_row` maps rows to
units, and :meth:`Design.row_weights` expands unit weights to rows (a cluster
drawn k times contributes each of its rows k times).

Reproducibility
---------------
Replicates are generated in fixed *blocks* whose size depends only on the
number of units (never on ``batch``, the number of replicates or the number of
workers). Block ``j`` draws from its own generator, on the ``design`` stream of
:mod:`booteval.core.streams` at key ``j``. Replicate ``b`` is therefore the same
whatever batch size is used to fetch it, and a run of ``B`` replicates is a
prefix of any longer run with the same seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .codes import dense_codes
from .errors import InvalidInputError
from .streams import generator
from .validation import as_group_labels, check_positive_int
from .weights import WeightSource

__all__ = ["Design", "make_design"]

# about one million (block x units) cells per generator block: 8 MB of int64
_BLOCK_CELLS = 1 << 20
# at most this many replicates per block, so that a short run draws little extra
_BLOCK_REPLICATES = 1024
# counts are taken for this many (replicates x units) cells at a time
_FLAT_CELLS = 1 << 16


try:  # scipy's C++ kernel for CSR -> dense, which adds duplicates and releases the GIL
    from scipy.sparse._sparsetools import csr_todense as _csr_todense
except ImportError:  # pragma: no cover - a future scipy without it: np.bincount
    _csr_todense = None

# the CSR entries' values (all ones), kept between calls up to this many: a fresh
# multi-MB buffer per call costs more in page faults than the counting itself
_ONES_KEPT = 1 << 20
_ones = np.ones(0)


def _count(draws: np.ndarray, m: int, out: np.ndarray) -> None:
    """Write into ``out`` how often each of ``0 .. m-1`` occurs in each row of ``draws``.

    ``out`` is a C-contiguous float64 array of shape ``(rows, m)``. ``np.bincount``
    holds the GIL, which serializes the worker threads on this, the costliest
    step of the general path; a CSR matrix of the draws (one entry per draw)
    made dense adds up the duplicates to the same integer counts in C++ with
    the GIL released.
    """
    global _ones
    rows = draws.shape[0]
    if _csr_todense is None:
        flat = (draws + (np.arange(rows) * m)[:, None]).ravel()
        out[...] = np.bincount(flat, minlength=rows * m).reshape(rows, m)
        return
    ones = _ones
    if ones.size < draws.size:
        ones = np.ones(draws.size)
        if draws.size <= _ONES_KEPT:
            _ones = ones  # threads may race here: each stores an array of ones
    out[...] = 0.0
    indptr = np.arange(0, draws.size + 1, m, dtype=draws.dtype)
    _csr_todense(rows, m, indptr, np.ascontiguousarray(draws).reshape(-1), ones, out)


def encode_groups(values: np.ndarray, parameter: str) -> tuple[np.ndarray, int]:
    """Map arbitrary group labels to 0..k-1 codes (first-appearance order not kept)."""
    try:
        _, codes = dense_codes(values)
    except TypeError as exc:  # mixed, unorderable labels
        raise InvalidInputError(
            parameter, "labels of one sortable type (ints or strings)", f"{exc}"
        ) from None
    codes = codes.reshape(-1).astype(np.intp)
    return codes, int(codes.max()) + 1 if codes.size else 0


@dataclass(frozen=True, eq=False)
class Design(WeightSource):
    """A resampling design over ``n_rows`` rows: the multinomial weight source of rows,
    cells, clusters and strata.

    Build one with :func:`make_design`. Attributes are read-only.

    Attributes
    ----------
    n_rows : int
        Number of data rows.
    n_units : int
        Number of resampling units (rows, or clusters when clustered).
    unit_of_row : ndarray of intp, shape (n_rows,)
        The unit each row belongs to.
    unit_stratum : ndarray of intp, shape (n_units,)
        The stratum of each unit (all zeros without strata).
    unit_size : ndarray of int64 or None
        For a *compressed* design (see :meth:`compress`), how many
        interchangeable rows each unit stands for; ``None`` otherwise.
    cell_row : ndarray of intp or None
        For a compressed design, one row of each unit (all its rows have equal
        keys); ``None`` otherwise.
    n_strata : int
        Number of strata (1 without strata).
    clustered : bool
        Whether units are clusters.
    """

    stream = "design"

    n_rows: int
    n_units: int
    unit_of_row: np.ndarray
    unit_stratum: np.ndarray
    n_strata: int
    clustered: bool
    _strata_units: tuple[np.ndarray, ...] = field(repr=False)
    unit_size: np.ndarray | None = field(default=None, repr=False)
    cell_row: np.ndarray | None = field(default=None, repr=False)

    @property
    def strata_units(self) -> tuple[np.ndarray, ...]:
        """The units of each stratum (one array holding every unit without strata)."""
        return self._strata_units

    @property
    def kind(self) -> str:
        """One of ``"iid"``, ``"stratified"``, ``"clustered"``, ``"stratified+clustered"``."""
        if self.clustered:
            return "stratified+clustered" if self.n_strata > 1 else "clustered"
        return "stratified" if self.n_strata > 1 else "iid"

    @property
    def n_clusters(self) -> int | None:
        """Number of clusters, or ``None`` for row-level designs."""
        return self.n_units if self.clustered else None

    @property
    def block_size(self) -> int:
        """Replicates per generator block (a function of ``n_units`` only)."""
        return max(1, min(_BLOCK_REPLICATES, _BLOCK_CELLS // max(self.n_units, 1)))

    def describe(self) -> str:
        """A short human-readable description of the design.

        Examples
        --------
        >>> make_design(10, clusters=[0, 0, 1, 1, 2, 2, 3, 3, 4, 4]).describe()
        'clustered bootstrap (10 rows in 5 clusters)'
        """
        if self.kind == "iid":
            return f"iid bootstrap ({self.n_rows} rows)"
        if self.kind == "stratified":
            return f"stratified bootstrap ({self.n_rows} rows in {self.n_strata} strata)"
        if self.kind == "clustered":
            return f"clustered bootstrap ({self.n_rows} rows in {self.n_units} clusters)"
        return (
            f"stratified clustered bootstrap ({self.n_rows} rows in {self.n_units} clusters"
            f" within {self.n_strata} strata)"
        )

    # ------------------------------------------------------------------ weights
    @property
    def compressed(self) -> bool:
        """Whether units are cells of interchangeable rows (see :meth:`compress`)."""
        return self.unit_size is not None

    def block(self, seed: int, j: int) -> np.ndarray:
        """Unit counts of replicates ``j*block .. (j+1)*block - 1`` (as float64), from the
        ``design`` stream."""
        size = self.block_size
        rng = generator("design", seed, j)
        counts = np.empty((size, self.n_units), dtype=np.float64)
        whole = len(self._strata_units) == 1
        for units in self._strata_units:
            m = units.size
            cols = slice(None) if whole else units
            if self.unit_size is not None:
                mult = self.unit_size[units]
                draws = int(mult.sum())
                counts[:, cols] = rng.multinomial(draws, mult / draws, size=size)
            else:
                # count a few replicates at a time (one when m is large): the counting
                # array stays in cache
                step = max(1, _FLAT_CELLS // m)
                draws = None if step == 1 else rng.integers(0, m, size=(size, m))
                part = None if whole else np.empty((step, m))
                for lo in range(0, size, step):
                    hi = min(lo + step, size)
                    d = rng.integers(0, m, size=(1, m)) if draws is None else draws[lo:hi]
                    if whole:
                        _count(d, m, counts[lo:hi])
                    else:
                        _count(d, m, part[: hi - lo])
                        counts[lo:hi, cols] = part[: hi - lo]
        return counts

    def unit_weights(self, seed: int, start: int, stop: int) -> np.ndarray:
        """Unit counts for replicates ``start .. stop - 1``, shape ``(stop - start, n_units)``.

        The rows are identical to the same replicates fetched with any other
        ``start``/``stop`` split (cut out of the blocks by :class:`WeightSource`).

        Examples
        --------
        >>> d = make_design(5)
        >>> w = d.unit_weights(seed=1, start=0, stop=4)
        >>> w.shape, bool((w.sum(axis=1) == 5).all())
        ((4, 5), True)
        >>> bool((d.unit_weights(1, 2, 3) == w[2:3]).all())
        True
        """
        if stop <= start:
            return np.zeros((0, self.n_units), dtype=np.float64)
        return super().unit_weights(seed, start, stop)

    def original_weights(self) -> np.ndarray:
        """Unit weights of the original data, shape ``(1, n_units)``."""
        if self.unit_size is not None:
            return self.unit_size[None, :].astype(np.float64)
        return np.ones((1, self.n_units))

    def row_weights(self, unit_weights: np.ndarray) -> np.ndarray:
        """Expand unit weights ``(batch, n_units)`` to row weights ``(batch, n_rows)``."""
        if self.compressed:
            raise ValueError("a compressed design has no row-level weights")
        if not self.clustered:
            return unit_weights
        return unit_weights[:, self.unit_of_row]

    def nested_unit_weights(
        self, outer_counts: np.ndarray, n_inner: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Resample the resampled data: ``n_inner`` replicates drawn from one replicate.

        The inner bootstrap of a studentized interval draws, within each stratum,
        as many units as the stratum has, from the multiset of units that the
        outer replicate selected.

        Parameters
        ----------
        outer_counts : ndarray, shape (n_units,)
            Unit counts of one outer replicate.
        n_inner : int
            Number of inner replicates.
        rng : numpy.random.Generator
            Source of randomness for this outer replicate.

        Returns
        -------
        ndarray of float64, shape (n_inner, n_units)
        """
        counts = np.zeros((n_inner, self.n_units), dtype=np.int64)
        oc = np.asarray(outer_counts, dtype=np.int64)
        for units in self._strata_units:
            c = oc[units]
            draws = int(c.sum())
            if draws:
                counts[:, units] = rng.multinomial(draws, c / draws, size=n_inner)
        return counts.astype(np.float64)

    def compress(self, keys: np.ndarray) -> Design:
        """Merge interchangeable rows into weighted cells.

        Rows with equal ``keys`` within the same stratum contribute identically
        to the metric, so an iid (or stratified) resample is a multinomial draw
        over the distinct cells, with probabilities proportional to their
        sizes: the same bootstrap distribution as drawing rows, at a cost that
        no longer grows with ``n``. Cluster designs are returned unchanged.

        Parameters
        ----------
        keys : ndarray of int, shape (n_rows,)
            Equal keys mark interchangeable rows.

        Examples
        --------
        >>> d = make_design(6).compress(np.array([0, 1, 1, 0, 1, 1]))
        >>> d.n_units, d.unit_size.tolist()
        (2, [2, 4])
        """
        if self.clustered or self.compressed:
            return self
        if self.n_strata > 1:
            strat = self.unit_stratum[self.unit_of_row]
            combo = np.asarray(keys, dtype=np.int64) * self.n_strata + strat
        else:
            combo = np.asarray(keys)
        _, cell, size = dense_codes(combo, return_counts=True)
        n_cells = size.size
        cell_row = np.empty(n_cells, dtype=np.intp)
        cell_row[cell] = np.arange(self.n_rows, dtype=np.intp)  # any row of each cell
        cell_stratum = strat[cell_row] if self.n_strata > 1 else np.zeros(n_cells, dtype=np.intp)
        return Design(
            n_rows=self.n_rows, n_units=n_cells, unit_of_row=cell, unit_stratum=cell_stratum,
            n_strata=self.n_strata, clustered=False,
            _strata_units=tuple(np.flatnonzero(cell_stratum == h) for h in range(self.n_strata)),
            unit_size=size.astype(np.int64), cell_row=cell_row,
        )  # fmt: skip


def make_design(
    n_rows: int,
    *,
    strata: object = None,
    clusters: object = None,
) -> Design:
    """Build the resampling design for ``n_rows`` rows.

    Parameters
    ----------
    n_rows : int
        Number of rows.
    strata : array-like, optional
        Stratum label of each row. Rows are resampled within strata, so each
        replicate keeps every stratum's size.
    clusters : array-like, optional
        Cluster (independent unit) label of each row. Whole clusters are
        resampled. With ``strata`` as well, every cluster must lie in a single
        stratum and clusters are resampled within their stratum.

    Returns
    -------
    Design
        The resampling design: units, strata and their sizes.

    Examples
    --------
    >>> d = make_design(6, strata=["a", "a", "b", "b", "b", "b"])
    >>> d.kind, d.n_strata
    ('stratified', 2)
    >>> w = d.unit_weights(seed=0, start=0, stop=3)
    >>> w[:, :2].sum(axis=1).tolist(), w[:, 2:].sum(axis=1).tolist()
    ([2.0, 2.0, 2.0], [4.0, 4.0, 4.0])
    """
    n_rows = check_positive_int(n_rows, "n_rows")
    if n_rows > 2**40:
        raise InvalidInputError("n_rows", "at most 2**40 rows", f"{n_rows:,}")
    if clusters is not None:
        c = as_group_labels(clusters, "clusters", n_rows)
        unit_of_row, n_units = encode_groups(c, "clusters")
        clustered = True
    else:
        unit_of_row = np.arange(n_rows, dtype=np.intp)
        n_units = n_rows
        clustered = False

    if strata is not None:
        s = as_group_labels(strata, "strata", n_rows)
        row_stratum, n_strata = encode_groups(s, "strata")
        unit_stratum = np.zeros(n_units, dtype=np.intp)
        unit_stratum[unit_of_row] = row_stratum
        if clustered and not np.array_equal(unit_stratum[unit_of_row], row_stratum):
            bad = int(unit_of_row[np.flatnonzero(unit_stratum[unit_of_row] != row_stratum)[0]])
            raise InvalidInputError(
                "strata",
                "every cluster to lie within a single stratum",
                f"cluster #{bad} (in sorted label order) spans several strata",
                "Clusters are resampled within strata, so a cluster cannot be split.",
            )
    else:
        unit_stratum = np.zeros(n_units, dtype=np.intp)
        n_strata = 1

    strata_units = tuple(np.flatnonzero(unit_stratum == h) for h in range(n_strata))
    return Design(
        n_rows=n_rows, n_units=n_units, unit_of_row=unit_of_row, unit_stratum=unit_stratum,
        n_strata=n_strata, clustered=clustered, _strata_units=strata_units,
    )  # fmt: skip
