"""The metric protocol: a metric binds to data and a design and returns an evaluator.

A :class:`Metric` knows what inputs it takes and how to validate them. Bound
to normalized data and a :class:`~booteval.design.Design`, it yields an
:class:`Evaluator` that computes

* ``estimate()``: the metric on the original data;
* ``replicates(unit_weights)``: one value per row of a ``(batch, n_units)``
  weight matrix (NaN where the metric is undefined on that replicate);
* ``jackknife()``: the leave-one-unit-out values (a unit is a row, or a cluster
  under a cluster design), for BCa's acceleration;
* optionally ``standard_errors(unit_weights)``: an analytic standard error per
  replicate, for the studentized interval.

:class:`SumEvaluator` serves every metric that is a function of weighted sums of
per-row statistics: all replicates are one ``weights @ stats`` product, and the
jackknife is the total minus each unit's sums, in closed form.
"""

from __future__ import annotations

import ast
import copy
import re
import textwrap
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ClassVar, TypeVar

import numpy as np
import scipy.sparse as sp

from ..core.design import Design
from .linearize import linearized_se

__all__ = [
    "Evaluator",
    "Metric",
    "RowLevelEvaluator",
    "SumEvaluator",
    "bound_example",
    "deferred_compression",
    "doc_fragments",
    "row_sum",
    "safe_divide",
    "unit_sums",
]

# rows of the jackknife computed at once (bounds memory for wide statistics)
_JACK_CHUNK = 1 << 14
# terms per einsum call in matmul
_SUM_CHUNK = 4096
# compress rows into cells when that divides the number of units at least this much
COMPRESS_RATIO = 4

_T = TypeVar("_T")

#: set while systems are bound for a joint design (see :func:`deferred_compression`)
_DEFERRED: ContextVar[bool] = ContextVar("booteval_deferred_compression", default=False)


@contextmanager
def deferred_compression() -> Iterator[None]:
    """Bind sum metrics without compressing their rows into cells, inside the block.

    For systems that are then aligned on one jointly compressed design
    (:func:`booteval.core.paired.align`): each system's own compression would be
    thrown away, so it is not computed.

    Examples
    --------
    >>> from booteval.core.design import make_design
    >>> from booteval.metrics import get_metric
    >>> m, design = get_metric("mean"), make_design(40)
    >>> data = m.validate([0.0, 1.0] * 20)
    >>> m.bind(data, design).design.compressed
    True
    >>> with deferred_compression():
    ...     m.bind(data, design).design.compressed
    False
    """
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


class Evaluator(ABC):
    """A metric bound to one data set and one design."""

    #: whether :meth:`standard_errors` is available (analytic standard errors)
    has_standard_error: bool = False

    #: the design the engine draws weights from; evaluators that resample
    #: differently from the design they were bound to (compressed cells) set it
    design: Design | None = None
    #: row keys such that rows with equal keys are interchangeable, or None
    keys: np.ndarray | None = None

    def __init__(self, n_rows: int, n_units: int, count: int | None = None) -> None:
        self.n_rows = n_rows
        self.n_units = n_units
        #: the sample size of the logit transform's continuity correction
        self.count = n_rows if count is None else int(count)

    @abstractmethod
    def estimate(self) -> float:
        """The metric on the original data."""

    @abstractmethod
    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        """Metric values for each row of ``unit_weights`` (shape ``(batch, n_units)``)."""

    @abstractmethod
    def jackknife(self) -> np.ndarray:
        """Leave-one-unit-out metric values, shape ``(n_units,)``."""

    def with_design(self, design: Design) -> Evaluator | None:
        """This evaluator under another design over the same rows, or ``None`` if unsupported.

        Evaluators that always resample the design they were bound to need not
        implement it.
        """
        return None

    def standard_errors(self, unit_weights: np.ndarray) -> np.ndarray:
        """Analytic standard error of the metric within each replicate."""
        raise NotImplementedError(f"{type(self).__name__} has no analytic standard error")

    def alone(self) -> Evaluator:
        """This evaluator as :meth:`Metric.bind` gives it outside
        :func:`deferred_compression` (one system, compressed into its own cells where
        that applies): what a door that bound several systems together hands to
        ``booteval.ci``'s path, without computing the per-row statistics again."""
        return self


class RowLevelEvaluator(Evaluator):
    """An evaluator that reads row-level weights and keeps only data-derived state.

    Such an evaluator can be resampled under any other row-level design over
    the same rows by sharing that state; compressed designs (cells of
    interchangeable rows) carry no row weights, so they are not supported.
    """

    def with_design(self, design: Design) -> Evaluator | None:
        """This evaluator under another row-level design over the same rows, or ``None``."""
        if design.compressed or design.n_rows != self.n_rows:
            return None
        new = copy.copy(self)
        new.design = design
        new.n_units = design.n_units
        return new


class Metric(ABC):
    """An evaluation metric that booteval can bootstrap.

    Subclasses set the class attributes and implement :meth:`validate` and
    :meth:`bind`.

    Attributes
    ----------
    name : str
        Registry name.
    input_names : tuple of str
        Names of the positional inputs, e.g. ``("scores",)`` or
        ``("y_true", "y_pred")``; used in error messages.
    bounds : (float, float) or None
        The metric's range; interval endpoints are clipped to it.
    greater_is_better : bool
    vectorized : bool
        ``False`` for the generic (per-replicate call) path.
    discrete_inputs : bool
        Whether the inputs are class labels, so that the metric is a function of the
        counts of distinct input combinations (the histogram tier of a cluster run).
    row_local : bool
        Whether :meth:`bind_rows` gives per-row statistics that depend on each row alone,
        summed by a function fixed in advance (the row tier of a cluster run).
    label_inputs : tuple of str
        Inputs holding class labels whose set of classes the metric checks (a cluster
        run checks the classes of the whole column, with :meth:`check_classes`).
    auto_family : str
        The family that ``method="auto"``'s rule reads (:mod:`booteval.inference.auto_method`):
        ``"proportion"``, ``"mean"``, ``"f1"``, ``"pearson"``, ``"kendall"``, ``"bleu"``,
        ``"roc_auc"`` (its inputs ``(y_true, y_score)``, ``y_true`` 1 for a positive row)
        or ``"other"``. A ``"mean"`` whose :meth:`row_scores` are all 0 or 1 counts as a
        proportion.
    confusion_ratio : str or None
        The ratio of the confusion-count core (:mod:`booteval.metrics.confusion`) that the
        metric is, for binary labels; the threshold bootstrap offers these metrics.
    multilabel : bool
        Whether :func:`booteval.multilabel_ci` offers the metric.
    """

    name: ClassVar[str] = "metric"
    input_names: ClassVar[tuple[str, ...]] = ("scores",)
    bounds: tuple[float, float] | None = None
    greater_is_better: bool = True
    vectorized: bool = True
    discrete_inputs: ClassVar[bool] = False
    row_local: ClassVar[bool] = False
    label_inputs: ClassVar[tuple[str, ...]] = ()
    auto_family: ClassVar[str] = "other"
    confusion_ratio: ClassVar[str | None] = None
    multilabel: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params = dict(params)

    def row_scores(self, *arrays: np.ndarray) -> np.ndarray | None:
        """The per-row scores whose mean is the metric (accuracy's 0/1 outcomes, the
        mean's scores) on validated arrays; ``None`` where the metric is no such mean.

        Examples
        --------
        >>> from booteval.metrics import get_metric
        >>> get_metric("accuracy").row_scores(np.array([0, 1]), np.array([1, 1])).tolist()
        [0.0, 1.0]
        >>> get_metric("roc_auc").row_scores(np.array([0, 1]), np.array([0.2, 0.9])) is None
        True
        """
        return None

    @property
    def n_inputs(self) -> int:
        """Number of positional data arrays the metric takes."""
        return len(self.input_names)

    @property
    def label(self) -> str:
        """The name with any non-default parameters, e.g. ``f1(average='macro')``."""
        if not self.params:
            return self.name
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name}({inner})"

    def __repr__(self) -> str:
        return f"<Metric {self.label}>"

    @abstractmethod
    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        """Normalize and check the user's inputs; raise :class:`InvalidInputError`."""

    @abstractmethod
    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        """Bind validated inputs and a design."""

    def check_classes(self, classes: np.ndarray, parameter: str) -> None:
        """Raise where ``classes``, every distinct value of a label input (named
        ``parameter``), is not a set of classes the metric accepts (any set, here)."""
        return None

    def bind_rows(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        """Bind as :meth:`bind` does, with per-row statistics that depend on each row
        alone (a partition's rows then add up to the whole data's sums); a metric whose
        :meth:`bind` conditions its statistics on the data overrides it."""
        return self.bind(arrays, design)

    def __call__(self, *arrays: object) -> float:
        """The metric on data, e.g. ``get_metric("accuracy")(y_true, y_pred)``."""
        data = self.validate(*arrays)
        from ..core.design import make_design

        return self.bind(data, make_design(data[0].shape[0])).estimate()


def doc_fragments(**fragments: str) -> Callable[[_T], _T]:
    """Decorator: each line ``{name}`` of the docstring becomes ``fragments[name]``.

    The fragment takes that line's indentation, so documentation that several metrics
    share is written once.

    Examples
    --------
    >>> @doc_fragments(note="Shared.\\nTwo lines.")
    ... def f():
    ...     '''Title.
    ...
    ...     {note}
    ...     '''
    >>> f.__doc__.splitlines()[2:4]
    ['    Shared.', '    Two lines.']
    """

    def entry(match: re.Match[str]) -> str:
        if match.group(2) not in fragments:
            return match.group(0)
        return textwrap.indent(fragments[match.group(2)], match.group(1))

    def fill(obj: _T) -> _T:
        if obj.__doc__:  # None under python -OO
            obj.__doc__ = re.sub(r"^([ \t]*)\{(\w+)\}[ \t]*$", entry, obj.__doc__, flags=re.M)
        return obj

    return fill


def bound_example(metric: str, data: str, value: str, *, digits: int | None = None) -> str:
    """The opening of a metric's examples: its value on ``data``, then ``ev``, the metric
    bound to a design over those rows, for the example lines that follow.

    ``data`` is the metric's arguments as the example writes them, ``value`` the result
    shown, rounded to ``digits`` where given. For :func:`doc_fragments`.

    Examples
    --------
    >>> bound_example("Mean", "[1.0, 2.0]", "1.5").splitlines()[-1]
    '>>> ev = m.bind(m.validate([1.0, 2.0]), make_design(2))'
    """
    call = f"{metric}()({data})"
    n_rows = len(ast.literal_eval(f"({data},)")[0])
    return "\n".join(
        [
            "Examples",
            "--------",
            f">>> {call}" if digits is None else f">>> round({call}, {digits})",
            value,
            ">>> from booteval.design import make_design",
            f">>> m = {metric}()",
            f">>> ev = m.bind(m.validate({data}), make_design({n_rows}))",
        ]
    )


def unit_sums(stats: np.ndarray | sp.spmatrix, design: Design) -> np.ndarray | sp.csr_matrix:
    """Sum per-row statistics within each resampling unit.

    Parameters
    ----------
    stats : ndarray or sparse matrix, shape (n_rows, k)
    design : Design

    Returns
    -------
    ndarray or csr_matrix, shape (n_units, k)
    """
    if not design.clustered and not design.compressed:
        return stats
    if not sp.issparse(stats):
        # per-unit sums in row order, as the sparse product below adds them
        s = np.asarray(stats, dtype=np.float64)
        out = np.empty((design.n_units, s.shape[1]))
        for j in range(s.shape[1]):
            out[:, j] = np.bincount(design.unit_of_row, weights=s[:, j], minlength=design.n_units)
        return out
    agg = sp.csr_matrix(
        (np.ones(design.n_rows), (design.unit_of_row, np.arange(design.n_rows))),
        shape=(design.n_units, design.n_rows),
    )
    out = agg @ stats
    return out if sp.issparse(out) else np.asarray(out)


def _cell_stats(stats: np.ndarray | sp.spmatrix, design: Design) -> np.ndarray | None:
    """A compressed design's per-cell statistics read off one row of each cell (equal
    keys, equal statistics), without a pass over the rows; ``None`` where that could
    differ in the last bit from summing the cell and dividing by its size, as before
    (statistics that are not small integers), or the design is not compressed."""
    if not design.compressed or design.cell_row is None or sp.issparse(stats):
        return None
    rep = np.asarray(stats, dtype=np.float64)[design.cell_row]
    if not (np.all(rep == np.round(rep)) and np.abs(rep).max(initial=0.0) * design.n_rows < 2**52):
        return None
    return rep


def in_blocks(n: int, width: int, cells: int, fn: Callable[[slice], np.ndarray]) -> np.ndarray:
    """``fn(block)`` over consecutive slices of ``range(n)``, concatenated.

    Each slice holds ``cells // width`` items (at least one), so that a block of ``width``
    columns stays near ``cells`` values: the memory bound of every chunked evaluator.
    """
    out = np.empty(n)
    step = max(1, cells // max(width, 1))
    for lo in range(0, n, step):
        block = slice(lo, min(lo + step, n))
        out[block] = fn(block)
    return out


def leave_units_out(ev: Any, units: np.ndarray, cells: int) -> np.ndarray:
    """An evaluator's values with each of ``units`` left out, by direct evaluation.

    ``ev`` evaluates row-weight matrices with ``_from_row_weights``; each unit's rows get
    weight 0 and every other row weight 1 (O(n) per unit, in blocks of about ``cells``).
    """
    u_row = ev.design.unit_of_row

    def block(s: slice) -> np.ndarray:
        w = (u_row[None, :] != units[s][:, None]).astype(np.float64)
        return ev._from_row_weights(w)

    return in_blocks(units.shape[0], ev.n_rows, cells, block)


def matmul(weights: np.ndarray, stats: np.ndarray | sp.spmatrix) -> np.ndarray:
    """``weights @ stats``, with each row's sums independent of the batch it is in.

    BLAS kernels sum in an order that depends on a row's position in the
    matrix, so the same replicate could differ in the last bit between batch
    sizes. One ``einsum`` dot product per column sums each row the same way
    wherever it sits, at the same memory-bound speed for the few columns these
    metrics have. The sparse product sums each row in a fixed order too.
    """
    if sp.issparse(stats):
        return np.asarray((stats.T @ weights.T).T)
    # C order whatever the weight source gave: a strided row is summed in another order
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    b, n = weights.shape
    out = np.zeros((b, stats.shape[1]))
    for j in range(stats.shape[1]):
        col = np.ascontiguousarray(stats[:, j])
        # einsum changes its summation order for a single row beyond 8192 terms;
        # fixed chunks added one after another keep every row's sum the same
        for lo in range(0, n, _SUM_CHUNK):
            hi = min(lo + _SUM_CHUNK, n)
            out[:, j] += np.einsum("bn,n->b", weights[:, lo:hi], col[lo:hi])
    return out


class SumEvaluator(Evaluator):
    """Evaluator for a metric that is a function of weighted sums of row statistics.

    Parameters
    ----------
    stats : ndarray or sparse matrix, shape (n_rows, k)
        Per-row statistics.
    design : Design
    from_sums : callable
        Maps an ``(m, k)`` array of sums to ``m`` metric values (NaN where
        undefined).
    count : int, optional
        Sample size for the logit continuity correction.
    se_from_sums : callable, optional
        Maps ``(m, k + q)`` sums to standard errors, where the ``q`` extra
        columns come from ``unit_extra``.
    unit_extra : callable, optional
        Maps the unit sums ``(n_units, k)`` to ``q`` extra unit-level columns
        (e.g. squares of unit sums, for a cluster-robust standard error).
    gradient : callable, optional
        Maps ``(m, k)`` sums to the gradient of ``from_sums`` there, ``(m, k)``: a
        delta-method standard error (:func:`~booteval.metrics.linearize.linearized_se`)
        where ``se_from_sums`` is not given, and the linear terms of a difference of two
        metrics (:meth:`linear_terms`).
    keys : ndarray of int, optional
        Equal keys mark rows with equal statistics. When the rows fall into
        few distinct cells and the design is not clustered, the evaluator
        resamples cells instead of rows (:meth:`Design.compress`): the same
        bootstrap distribution at a cost independent of ``n``.

    Attributes
    ----------
    design : Design
        The design to draw weights from (compressed when that applies).
    """

    #: the compiled kernel family it declares (:mod:`booteval.core.kernel_plan`)
    kernel = "sums"

    def __init__(
        self,
        stats: np.ndarray | sp.spmatrix,
        design: Design,
        from_sums: Callable[[np.ndarray], np.ndarray],
        *,
        count: int | None = None,
        se_from_sums: Callable[[np.ndarray], np.ndarray] | None = None,
        unit_extra: Callable[[np.ndarray], np.ndarray] | None = None,
        gradient: Callable[[np.ndarray], np.ndarray] | None = None,
        keys: np.ndarray | None = None,
        compress: bool = True,
    ) -> None:
        self._args = {
            "stats": stats, "from_sums": from_sums, "count": count,
            "se_from_sums": se_from_sums, "unit_extra": unit_extra, "gradient": gradient,
            "keys": keys,
        }  # fmt: skip
        #: equal keys mark rows with equal statistics (None: no such structure)
        self.keys = keys
        if compress and keys is not None and not design.clustered and not _DEFERRED.get():
            cells = design.compress(keys)
            if cells.n_units * COMPRESS_RATIO <= design.n_units:
                design = cells
        super().__init__(design.n_rows, design.n_units, count)
        self.design = design
        stats_u = _cell_stats(stats, design)
        if stats_u is None:
            stats_u = unit_sums(stats, design)
            if design.compressed:
                # a cell's weight counts rows drawn from it: each adds one row's statistics
                stats_u = (
                    sp.diags(1.0 / design.unit_size) @ stats_u
                    if sp.issparse(stats_u)
                    else stats_u / design.unit_size[:, None]
                )
        #: statistics that one draw of each unit adds to the sums, shape (n_units, k)
        self.unit_stats = sp.csr_matrix(stats_u) if sp.issparse(stats_u) else stats_u
        self.from_sums = from_sums
        self._total: np.ndarray | None = None
        self._se_from_sums = se_from_sums
        self._unit_extra = unit_extra
        self._se_cache: np.ndarray | None = None
        self.gradient = gradient
        #: the standard error is a function of weighted sums (``se_from_sums`` of the unit
        #: statistics and their ``unit_extra`` columns, :attr:`se_stats`)
        self.se_by_sums = se_from_sums is not None and unit_extra is not None
        if self.se_by_sums or gradient is not None:
            self.has_standard_error = True

    @property
    def total(self) -> np.ndarray:
        """The statistics' sums over the original data, shape ``(k,)`` (on first use: an
        evaluator that is only rebound to a shared design never needs them)."""
        if self._total is None:
            w = self.design.original_weights()
            self._total = matmul(w, self.unit_stats).reshape(-1)
        return self._total

    @property
    def se_stats(self) -> np.ndarray:
        """The unit statistics and their extra columns for standard errors, on first use
        (only a studentized interval needs them)."""
        if self._se_cache is None:
            dense = self.unit_stats.toarray() if sp.issparse(self.unit_stats) else self.unit_stats
            self._se_cache = np.hstack([dense, self._unit_extra(dense)])
        return self._se_cache

    def se_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """The standard errors from weighted sums of :attr:`se_stats` (where
        :attr:`se_by_sums`)."""
        return np.asarray(self._se_from_sums(sums), dtype=float)  # type: ignore[misc]

    def with_design(self, design: Design) -> SumEvaluator:
        """The same metric and data resampled under ``design`` (no automatic compression)."""
        return SumEvaluator(design=design, compress=False, **self._args)

    def alone(self) -> SumEvaluator:
        """Compressed into its own cells as a bind outside :func:`deferred_compression`
        does (the statistics are reused)."""
        if self.design.compressed or self.keys is None:
            return self
        return SumEvaluator(design=self.design, **self._args)

    def estimate(self) -> float:
        return float(self.from_sums(self.total[None, :])[0])

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        return np.asarray(self.from_sums(matmul(unit_weights, self.unit_stats)), dtype=float)

    def jackknife(self) -> np.ndarray:
        """Leave-one-unit-out values; for a compressed design, one per row.

        In a compressed design every row of a cell has the same statistics,
        so leaving out any one of them gives the cell's value, repeated for
        each of its rows (returned in row order).
        """
        out = np.empty(self.n_units)
        s = self.unit_stats
        size = self.design.unit_size
        for lo in range(0, self.n_units, _JACK_CHUNK):
            hi = min(lo + _JACK_CHUNK, self.n_units)
            part = s[lo:hi]
            part = part.toarray() if sp.issparse(part) else np.asarray(part)
            out[lo:hi] = self.from_sums(self.total[None, :] - part)
        return out if size is None else out[self.design.unit_of_row]

    def standard_errors(self, unit_weights: np.ndarray) -> np.ndarray:
        if not self.has_standard_error:
            return super().standard_errors(unit_weights)
        if self.se_by_sums:
            return self.se_from_sums(matmul(unit_weights, self.se_stats))
        return linearized_se(unit_weights, [self.linear_terms(unit_weights)], self.strata_units)

    @property
    def strata_units(self) -> tuple[np.ndarray, ...]:
        """The units of each stratum of the design resampled."""
        return self.design.strata_units

    def linear_terms(self, unit_weights: np.ndarray) -> tuple[Any, np.ndarray]:
        """The unit statistics and the metric's gradient at each replicate's sums.

        What :func:`~booteval.metrics.linearize.linearized_se` needs to linearize this
        metric alone or in a difference; only where ``gradient`` was given.
        """
        if self.gradient is None:
            raise NotImplementedError(f"{type(self).__name__} has no gradient")
        sums = matmul(unit_weights, self.unit_stats)
        return self.unit_stats, np.asarray(self.gradient(sums), dtype=float)


def row_sum(x: np.ndarray) -> np.ndarray:
    """Sum over the last axis, column by column, in a fixed order.

    NumPy's reductions may group the additions differently depending on the
    array's shape, so the same replicate could differ in the last bit between
    batch sizes; adding whole columns one after another cannot.

    Examples
    --------
    >>> row_sum(np.array([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]])).tolist()
    [0.6000000000000001, 6.0]
    """
    x = np.asarray(x, dtype=float)
    out = x[..., 0].copy()
    for j in range(1, x.shape[-1]):
        out += x[..., j]
    return out


def safe_divide(num: np.ndarray, den: np.ndarray, zero_division: float) -> np.ndarray:
    """``num / den`` with ``zero_division`` where ``den == 0``."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, float(zero_division))
    np.divide(num, den, out=out, where=den != 0)
    return out
