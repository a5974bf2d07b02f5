"""Vectorized kernels behind :mod:`booteval.meta` (private).

Notation: ``X`` (a metric) and ``Z`` (human scores) are ``N`` systems x ``M`` inputs, and
``mask`` marks the judged cells (both scores present). A bootstrap replicate is described by
**weights**: ``v`` of shape ``(B, N)``, how many times each system was drawn, and ``w`` of shape
``(B, M)``, how many times each input was drawn (``None`` means "all ones", the original data).
Every correlation level is a function of ``(X, Z, mask, v, w)``:

* **system level**: system means over the drawn inputs, ``w @ X.T / w @ mask.T``, then a
  correlation across systems in which system ``i`` counts ``v_i`` times;
* **summary level**: for each input, the correlation across systems with weights ``v`` (one
  ``(B, N) @ (N, N * M)`` product gives every input's weighted sums, ranks or pair counts at
  once), then the mean over inputs with weights ``w``;
* **global level**: one correlation over all judged cells, cell ``(i, j)`` counted
  ``v_i * w_j`` times (through the registry metrics' weighted evaluators).

Weighted correlations equal the SciPy functions on the expanded data (each system or cell
repeated as often as it was drawn): average ranks of the expanded data for Spearman, tau-b
with a copy of a system paired with itself counting as tied in both variables for Kendall.

Ties of system means: means computed from different sums can differ in the last bits although
they are equal (e.g. two systems whose ratings in thirds sum to the same integer). For the rank
coefficients, two means closer than ``16 * M * eps * max|value|`` (a bound on the rounding
error of a mean of ``M`` values) count as tied. Raw cell values (summary and global levels)
are compared exactly.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..core.design import make_design
from ..core.streams import generator
from ..metrics import get_metric
from ..metrics.base import matmul
from ..metrics.correlation import pearson_from_sums

__all__ = [
    "COEFFICIENTS",
    "ColumnKernel",
    "GlobalLevel",
    "SummaryLevel",
    "SystemLevel",
    "block_size",
    "bootstrap_block",
    "corr_rows",
    "counts_from_draws",
    "permutation_block",
    "row_products",
]

COEFFICIENTS: tuple[str, ...] = ("pearson", "spearman", "kendall")

_EPS = float(np.finfo(np.float64).eps)
# elements of the largest temporary array per chunk of replicates
_CELLS = 1 << 21
# replicates per generator block at most; blocks depend on the matrix shape only
_BLOCK_REPLICATES = 1024
_BLOCK_CELLS = 1 << 20


def _chunks(n_rows: int, per_row: int) -> Iterator[slice]:
    step = max(1, _CELLS // max(per_row, 1))
    for lo in range(0, n_rows, step):
        yield slice(lo, min(lo + step, n_rows))


def row_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` with each row's sums independent of the rows around it.

    BLAS sums a row in an order that depends on its position in the matrix, so a replicate
    could differ in the last bit between batches of replicates. With a short inner
    dimension (a few systems) ``einsum`` adds the terms one after another in a fixed order;
    otherwise :func:`booteval.metrics.base.matmul` sums each row the same way wherever it
    sits. Products of counts and 0/1 masks are exact in any order and keep BLAS.

    Examples
    --------
    >>> a = np.array([[1.0, 2.0], [0.0, 3.0]]); b = np.array([[0.5, 1.0, 2.0], [1.5, 0.0, 1.0]])
    >>> row_products(a, b).tolist() == (a @ b).tolist()
    True
    """
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.shape[1] > b.shape[1]:
        return matmul(a, b)
    # einsum adds the inner terms in order, looping over the output's columns
    return np.einsum("bi,ic->bc", a, np.ascontiguousarray(b, dtype=np.float64))


def mean_tolerance(values: np.ndarray, n_terms: int) -> float:
    """Two means of ``n_terms`` values closer than this are taken as equal."""
    finite = values[np.isfinite(values)]
    scale = float(np.max(np.abs(finite))) if finite.size else 0.0
    return 16.0 * max(n_terms, 1) * _EPS * scale


# ------------------------------------------------------------------------------ resampling
def block_size(n_systems: int, n_inputs: int) -> int:
    """Replicates per generator block: a function of the matrix shape only."""
    return max(1, min(_BLOCK_REPLICATES, _BLOCK_CELLS // (n_systems + n_inputs)))


def counts_from_draws(draws: np.ndarray, m: int) -> np.ndarray:
    """Counts of each of ``m`` units per row of an index matrix ``(B, k)``, as float64."""
    b = draws.shape[0]
    flat = (draws + (np.arange(b) * m)[:, None]).ravel()
    return np.bincount(flat, minlength=b * m).reshape(b, m).astype(np.float64)


def bootstrap_block(seed: int, block: int, n_systems: int, n_inputs: int) -> tuple[np.ndarray, ...]:
    """System and input counts of one block of bootstrap replicates.

    Both are always drawn (systems first), so replicate ``b`` resamples the same systems under
    Boot-Systems and Boot-Both, and the same inputs under Boot-Inputs and Boot-Both.
    """
    size = block_size(n_systems, n_inputs)
    rng = generator("meta.bootstrap", seed, block)
    sys_draws = rng.integers(0, n_systems, size=(size, n_systems))
    inp_draws = rng.integers(0, n_inputs, size=(size, n_inputs))
    return counts_from_draws(sys_draws, n_systems), counts_from_draws(inp_draws, n_inputs)


def permutation_block(
    seed: int, block: int, n_systems: int, n_inputs: int
) -> tuple[np.ndarray, np.ndarray]:
    """Swap indicators (0/1) per system and per input for one block of permutations."""
    size = block_size(n_systems, n_inputs)
    rng = generator("meta.permutation", seed, block)
    s = rng.integers(0, 2, size=(size, n_systems)).astype(np.float64)
    t = rng.integers(0, 2, size=(size, n_inputs)).astype(np.float64)
    return s, t


# ---------------------------------------------------------------------- across systems
def _sign(d: np.ndarray, tol: float) -> np.ndarray:
    if tol > 0:
        return (d > tol).astype(np.float64) - (d < -tol)
    return np.sign(d)


def _pearson_sums(w: np.ndarray, x: np.ndarray, z: np.ndarray, over: str, to: str) -> np.ndarray:
    """The six weighted sums behind a Pearson correlation (``w``, ``w x``, ``w z``,
    ``w x^2``, ``w z^2``, ``w x z``) over axis 1, stacked on a last axis; ``over`` and
    ``to`` are the einsum subscripts of the inputs and of one sum."""
    two, three = f"{over},{over}->{to}", f"{over},{over},{over}->{to}"
    return np.stack(
        [
            w.sum(axis=1),
            np.einsum(two, w, x),
            np.einsum(two, w, z),
            np.einsum(three, w, x, x),
            np.einsum(three, w, z, z),
            np.einsum(three, w, x, z),
        ],
        axis=-1,
    )


def _pearson_rows(x: np.ndarray, z: np.ndarray, v: np.ndarray) -> np.ndarray:
    return pearson_from_sums(_pearson_sums(v, x, z, "bi", "b"))


def _ranks_rows(x: np.ndarray, v: np.ndarray, tol: float) -> np.ndarray:
    """Average ranks of the expanded data minus their mean ``(W + 1) / 2``."""
    s = _sign(x[:, :, None] - x[:, None, :], tol)  # s[b, i, k] = sign(x_i - x_k)
    # rank_i = sum_k v_k (1[x_k < x_i] + 1[x_k == x_i] / 2) + 1/2, centred: sum_k v_k s_ik / 2
    return 0.5 * np.einsum("bik,bk->bi", s, v)


def corr_rows(
    x: np.ndarray,
    z: np.ndarray,
    v: np.ndarray,
    coefficient: str,
    tol_x: float = 0.0,
    tol_z: float = 0.0,
) -> np.ndarray:
    """Weighted correlation of each row of ``x`` with the same row of ``z``.

    Parameters
    ----------
    x, z : ndarray, shape (B, n) or (1, n)
        Values (broadcast against ``v``); entries with weight 0 are ignored but must be finite.
    v : ndarray, shape (B, n)
        Non-negative weights (counts).
    coefficient : {"pearson", "spearman", "kendall"}
    tol_x, tol_z : float
        Differences up to these count as ties (rank coefficients only).

    Returns
    -------
    ndarray, shape (B,)
        NaN where a variable is constant among the positive-weight entries.
    """
    b, n = v.shape
    shared_x, shared_z = np.shape(x)[0] == 1, np.shape(z)[0] == 1
    x = np.broadcast_to(x, (b, n))
    z = np.broadcast_to(z, (b, n))
    out = np.empty(b)
    if coefficient == "pearson":
        # centred for accuracy: by the one row's mean when the values are shared, else by
        # each replicate's own mean (never by another replicate's, so that a replicate's
        # value does not depend on the batch it is computed in)
        for sl in _chunks(b, n):
            out[sl] = _pearson_rows(_centred(x, sl, shared_x), _centred(z, sl, shared_z), v[sl])
        return out
    for sl in _chunks(b, n * n):
        vv = v[sl]
        if coefficient == "spearman":
            rx = _ranks_rows(x[sl], vv, tol_x)
            rz = _ranks_rows(z[sl], vv, tol_z)
            out[sl] = _pearson_rows(rx, rz, vv)
        else:
            sx = _sign(x[sl][:, :, None] - x[sl][:, None, :], tol_x)
            sz = _sign(z[sl][:, :, None] - z[sl][:, None, :], tol_z)
            num = np.einsum("bi,bik,bk->b", vv, sx * sz, vv)
            dx = np.einsum("bi,bik,bk->b", vv, np.abs(sx), vv)
            dz = np.einsum("bi,bik,bk->b", vv, np.abs(sz), vv)
            out[sl] = _tau(num, dx, dz)
    return out


def _centred(x: np.ndarray, sl: slice, shared: bool) -> np.ndarray:
    if shared:
        return x[sl] - float(np.mean(x[0]))
    rows = np.ascontiguousarray(x[sl])
    return rows - rows.mean(axis=1, keepdims=True)


def _tau(num: np.ndarray, dx: np.ndarray, dz: np.ndarray) -> np.ndarray:
    ok = (dx > 0) & (dz > 0)
    res = np.full(num.shape, np.nan)
    np.divide(num, np.sqrt(np.where(ok, dx * dz, 1.0)), out=res, where=ok)
    return np.clip(res, -1.0, 1.0)


# ------------------------------------------------------------------------ within inputs
class ColumnKernel:
    """Weighted correlation across systems within each input, for any system weights.

    Values are fixed; only the weights vary, so every statistic is linear or quadratic in the
    weights: one matrix product per statistic covers all replicates and inputs.

    Parameters
    ----------
    x, z : ndarray, shape (n, M)
        Scores (any value where ``mask`` is False).
    mask : ndarray of bool, shape (n, M)
    coefficient : {"pearson", "spearman", "kendall"}
    """

    def __init__(self, x: np.ndarray, z: np.ndarray, mask: np.ndarray, coefficient: str) -> None:
        self.n, self.m = x.shape
        self.coefficient = coefficient
        mk = mask.astype(np.float64)
        self.mask = mk
        xs = np.where(mask, x, 0.0)
        zs = np.where(mask, z, 0.0)
        cnt = np.maximum(mk.sum(axis=0), 1.0)
        n, m = self.n, self.m
        if coefficient == "pearson":
            xc = (xs - xs.sum(axis=0) / cnt) * mk
            zc = (zs - zs.sum(axis=0) / cnt) * mk
            # per input: [1, x, z, x^2, z^2, xz] for each system, stacked as (n, 6 * M)
            self.stats = np.concatenate([mk, xc, zc, xc * xc, zc * zc, xc * zc], axis=1)
            self._per_col = 6
        else:
            pair = mk[:, None, :] * mk[None, :, :]  # both judged, (n, n, M)
            sx = np.sign(xs[:, None, :] - xs[None, :, :]) * pair  # [i, k, j] = sign(x_i - x_k)
            sz = np.sign(zs[:, None, :] - zs[None, :, :]) * pair
            if coefficient == "spearman":
                # centred rank of i: sum_k v_k sign(x_i - x_k) / 2 = (v @ S)[i] with
                # S[k, i] = sign(x_i - x_k) / 2; x and z side by side
                parts = [0.5 * sx.transpose(1, 0, 2), 0.5 * sz.transpose(1, 0, 2)]
            else:
                # quadratic forms v' A v of sign products (C - D) and of untied pairs
                parts = [sx * sz, np.abs(sx), np.abs(sz)]
            # entries are 0, +-1/2 or +-1 and weights are counts of at most n, so with
            # n^2 < 2^24 float32 products and sums are exact (integers or halves)
            self.k = len(parts)
            self.dtype = np.float32 if n * n < 1 << 24 else np.float64
            self.ranks = np.ascontiguousarray(np.stack(parts, axis=1), dtype=self.dtype)
            self.ranks = self.ranks.reshape(n, self.k * n * m)

    def __call__(self, v: np.ndarray) -> np.ndarray:
        """Per-input correlations, shape ``(B, M)`` (NaN where undefined)."""
        b = v.shape[0]
        n, m = self.n, self.m
        out = np.empty((b, m))
        if self.coefficient == "pearson":
            for sl in _chunks(b, 6 * m):
                sums = row_products(v[sl], self.stats)
                sums = sums.reshape(-1, 6, m).transpose(0, 2, 1).reshape(-1, 6)
                out[sl] = pearson_from_sums(sums).reshape(-1, m)
            return out
        k = self.k
        for sl in _chunks(b, (k + 1) * n * m):
            vv = v[sl]
            prod = (vv.astype(self.dtype) @ self.ranks).reshape(-1, k, n, m)
            if self.coefficient == "spearman":
                wm = vv[:, :, None] * self.mask[None]  # weight of system i on input j
                rx, rz = prod[:, 0], prod[:, 1]
                sums = _pearson_sums(wm, rx, rz, "bij", "bj")
                out[sl] = pearson_from_sums(sums.reshape(-1, 6)).reshape(-1, m)
            else:
                q = np.einsum("bkij,bi->bkj", prod, vv)
                out[sl] = _tau(q[:, 0], q[:, 1], q[:, 2])
        return out


def mean_over_inputs(r: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean of per-input correlations over the inputs where they are defined.

    Returns the means (NaN where no drawn input is defined) and the number of drawn inputs
    (with multiplicity) that were undefined, per replicate.
    """
    if w is not None:
        r = np.broadcast_to(r, np.broadcast_shapes(r.shape, w.shape))
    defined = np.isfinite(r)
    ww = np.ones(r.shape) if w is None else w
    wd = ww * defined
    den = wd.sum(axis=1)
    num = np.einsum("bj,bj->b", wd, np.where(defined, r, 0.0))
    out = np.full(den.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out, (ww * ~defined).sum(axis=1)


# ------------------------------------------------------------------------------- levels
class SystemLevel:
    """System-level correlation as a function of system and input weights."""

    def __init__(self, x: np.ndarray, z: np.ndarray, mask: np.ndarray, coefficient: str) -> None:
        self.coefficient = coefficient
        self.mask = mask.astype(np.float64)
        self.xm = np.where(mask, x, 0.0)
        self.zm = np.where(mask, z, 0.0)
        cnt = self.mask.sum(axis=1)
        self.x = self.xm.sum(axis=1) / cnt
        self.z = self.zm.sum(axis=1) / cnt
        m = x.shape[1]
        self.tol_x = mean_tolerance(np.where(mask, x, np.nan), m)
        self.tol_z = mean_tolerance(np.where(mask, z, np.nan), m)
        self._spec = {"level": "system", "coefficient": coefficient, "x": x, "z": z,
                      "mask": mask, "tol_x": self.tol_x, "tol_z": self.tol_z}  # fmt: skip

    def spec(self) -> dict:
        """The level's data, for the compiled engine (:mod:`booteval.core.crossed_kernels`)."""
        return self._spec

    def means(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """System means over the drawn inputs and whether each system has one."""
        den = w @ self.mask.T
        has = den > 0
        safe = np.where(has, den, 1.0)
        x = np.where(has, row_products(w, self.xm.T) / safe, 0.0)
        z = np.where(has, row_products(w, self.zm.T) / safe, 0.0)
        return x, z, has

    def __call__(self, v: np.ndarray | None, w: np.ndarray | None) -> np.ndarray:
        n = self.x.shape[0]
        if w is None:
            vv = np.ones((1, n)) if v is None else v
            return corr_rows(
                self.x[None], self.z[None], vv, self.coefficient, self.tol_x, self.tol_z
            )
        x, z, has = self.means(w)
        vv = has.astype(np.float64) if v is None else v * has
        return corr_rows(x, z, vv, self.coefficient, self.tol_x, self.tol_z)


class SummaryLevel:
    """Summary-level (per-input, averaged) correlation as a function of the weights."""

    def __init__(
        self, x: np.ndarray, z: np.ndarray, mask: np.ndarray, coefficient: str, min_rows: int = 3
    ) -> None:
        self.kernel = ColumnKernel(x, z, mask, coefficient)
        self.mask = mask.astype(np.float64)
        self.min_rows = min_rows
        self._spec = {"level": "summary", "coefficient": coefficient, "x": x, "z": z,
                      "mask": mask, "min_rows": min_rows}  # fmt: skip
        self.per_input = self._correlations(np.ones((1, x.shape[0])))[0]
        self.last_undefined: np.ndarray | None = None

    def spec(self) -> dict:
        """The level's data, for the compiled engine (:mod:`booteval.core.crossed_kernels`)."""
        return self._spec

    def _correlations(self, v: np.ndarray) -> np.ndarray:
        """Per-input correlations; an input with fewer than ``min_rows`` scored rows (drawn
        systems, with repeats) is undefined, as it would be on the resampled matrix."""
        r = self.kernel(v)
        r[(v @ self.mask) < self.min_rows] = np.nan
        return r

    def __call__(self, v: np.ndarray | None, w: np.ndarray | None) -> np.ndarray:
        r = self.per_input[None] if v is None else self._correlations(v)
        out, undefined = mean_over_inputs(r, w)
        self.last_undefined = undefined
        return out


class GlobalLevel:
    """Correlation over all judged cells; cell ``(i, j)`` weighs ``v_i * w_j``."""

    def __init__(self, x: np.ndarray, z: np.ndarray, mask: np.ndarray, coefficient: str) -> None:
        self.rows, self.cols = np.nonzero(mask)
        xs, zs = x[self.rows, self.cols], z[self.rows, self.cols]
        metric = get_metric(coefficient)
        self.evaluator = metric.bind((xs, zs), make_design(xs.shape[0]))
        self.n_cells = xs.shape[0]
        self._spec = {"level": "global", "coefficient": coefficient, "x": x, "z": z,
                      "mask": mask}  # fmt: skip

    def spec(self) -> dict:
        """The level's data, for the compiled engine (:mod:`booteval.core.crossed_kernels`)."""
        return self._spec

    def cell_weights(self, v: np.ndarray | None, w: np.ndarray | None) -> np.ndarray:
        """Weights of the judged cells, one C-ordered row per replicate (a replicate's
        sums then do not depend on how many rows are computed with it)."""
        if v is None and w is None:
            return np.ones((1, self.n_cells))
        if v is None:
            return np.ascontiguousarray(w[:, self.cols])
        if w is None:
            return np.ascontiguousarray(v[:, self.rows])
        return np.ascontiguousarray(v[:, self.rows] * w[:, self.cols])

    def __call__(self, v: np.ndarray | None, w: np.ndarray | None) -> np.ndarray:
        if v is None and w is None:
            return np.array([self.evaluator.estimate()])
        b = (v if v is not None else w).shape[0]
        out = np.empty(b)
        for sl in _chunks(b, self.n_cells):
            out[sl] = self.evaluator.replicates(
                self.cell_weights(None if v is None else v[sl], None if w is None else w[sl])
            )
        return out


LEVEL_CLASSES = {"system": SystemLevel, "summary": SummaryLevel, "global": GlobalLevel}
