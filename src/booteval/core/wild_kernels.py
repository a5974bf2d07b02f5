"""The compiled engine's wild bootstrap kernel: OLS coefficients under random multipliers.

With the design fixed, a wild replicate's OLS coefficients are ``A y*`` with ``A`` the
pseudo-inverse of the design and ``y* = fitted + r * v``, so they are the coefficients of
the fitted values plus ``sum_i v_i (A_i r_i)``: one pass over the rows per replicate,
accumulating each coefficient as the multipliers are drawn. The studentized interval's
HC standard error takes a second pass over the same multipliers (the generator is
seeded again), summing each row's squared pseudo-residual times its weight.

Replicate ``b`` draws its multipliers, row after row, from its own xoshiro256++
generator (:mod:`booteval.core.kernels`), keyed on the ``kernels.wild`` stream:

* Rademacher: one bit per row, 64 rows per output, low bit first (``1`` is ``+1``);
* Mammen: one output per row, its top 53 bits as a uniform ``u``; the lower point when
  ``u`` is below its probability;
* normal: Box-Muller on two outputs for each two rows (cosine, then sine).

The multipliers are not the NumPy engine's, so the two engines give different (equally
valid) replicates for the same seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import njit, prange

from .kernels import _CACHE, Runner, _compile_notice, _next, _run_chunks, _seed_state, stream_key

__all__ = ["KINDS", "wild_multipliers", "wild_runner"]

#: the multiplier distributions, by their codes in the kernel
KINDS = {"rademacher": 0, "mammen": 1, "normal": 2}
_SQ5 = math.sqrt(5.0)
_MAMMEN_LOW = -(_SQ5 - 1.0) / 2.0
_MAMMEN_HIGH = (_SQ5 + 1.0) / 2.0
_MAMMEN_P = (_SQ5 + 1.0) / (2.0 * _SQ5)
_U11 = np.uint64(11)
_U1 = np.uint64(1)
_TO_UNIT = 2.0**-53


@njit(cache=_CACHE, inline="always")
def _multiplier(kind, s0, s1, s2, s3, word, left, spare):  # pragma: no cover - compiled
    """The next multiplier and the generator's state (``word``/``left``: unused bits of the
    last output, or ``left == 1`` with the spare normal deviate)."""
    if kind == 0:
        if left == 0:
            word, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
            left = 64
        v = 1.0 if (word & _U1) else -1.0
        return v, s0, s1, s2, s3, word >> _U1, left - 1, spare
    if kind == 1:
        out, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
        u = float(out >> _U11) * _TO_UNIT
        v = _MAMMEN_LOW if u < _MAMMEN_P else _MAMMEN_HIGH
        return v, s0, s1, s2, s3, word, left, spare
    if left == 1:
        return spare, s0, s1, s2, s3, word, 0, spare
    a, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
    b, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
    radius = math.sqrt(-2.0 * math.log(float((a >> _U11) + _U1) * _TO_UNIT))
    angle = 2.0 * math.pi * float(b >> _U11) * _TO_UNIT
    return radius * math.cos(angle), s0, s1, s2, s3, word, 1, radius * math.sin(angle)


@njit(parallel=True, cache=_CACHE)
def _wild_kernel(
    coef, base, kind, k0, k1, start, out, se, x, fitted, resid, se_weight
):  # pragma: no cover
    """``out[r] = base + sum_i v_i coef[i]`` for replicate ``start + r``'s multipliers.

    Where ``se`` has a row per replicate, also the HC standard error of coefficient ``j``:
    ``sqrt(sum_i se_weight[i] e_i^2)`` with ``e = fitted + resid * v - x @ out[r]``.
    """
    n, p = coef.shape
    for r in prange(out.shape[0]):
        s0, s1, s2, s3 = _seed_state(k0, k1, start + r)
        word, left, spare = np.uint64(0), 0, 0.0
        acc = base.copy()
        for i in range(n):
            v, s0, s1, s2, s3, word, left, spare = _multiplier(
                kind, s0, s1, s2, s3, word, left, spare
            )
            for j in range(p):
                acc[j] += v * coef[i, j]
        for j in range(p):
            out[r, j] = acc[j]
        if se.shape[0] == 0:
            continue
        s0, s1, s2, s3 = _seed_state(k0, k1, start + r)  # the same multipliers again
        word, left, spare = np.uint64(0), 0, 0.0
        total = 0.0
        for i in range(n):
            v, s0, s1, s2, s3, word, left, spare = _multiplier(
                kind, s0, s1, s2, s3, word, left, spare
            )
            e = fitted[i] + resid[i] * v
            for j in range(p):
                e -= x[i, j] * acc[j]
            total += se_weight[i] * e * e
        se[r] = math.sqrt(total)


@njit(cache=_CACHE)
def _multipliers_of(kind, k0, k1, b, out):  # pragma: no cover - compiled
    s0, s1, s2, s3 = _seed_state(k0, k1, b)
    word, left, spare = np.uint64(0), 0, 0.0
    for i in range(out.shape[0]):
        out[i], s0, s1, s2, s3, word, left, spare = _multiplier(
            kind, s0, s1, s2, s3, word, left, spare
        )


def wild_multipliers(seed: int, b: int, n: int, kind: str = "rademacher") -> np.ndarray:
    """The ``n`` multipliers of compiled wild replicate ``b`` for ``seed``.

    For tests and debugging: those :func:`wild_runner` draws.

    Examples
    --------
    >>> v = wild_multipliers(0, 3, 6)
    >>> bool(np.all(np.abs(v) == 1)), bool((wild_multipliers(0, 3, 6) == v).all())
    (True, True)
    """
    k0, k1 = stream_key(seed, "kernels.wild")
    out = np.empty(n)
    _multipliers_of(np.int64(KINDS[kind]), k0, k1, np.int64(b), out)
    return out


def wild_runner(
    coef: np.ndarray, base: np.ndarray, kind: str, values_of: Callable[[np.ndarray], np.ndarray],
    se_parts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> Runner:  # fmt: skip
    """A runner of wild replicates: ``values_of(base + v @ coef)`` for each replicate's
    multipliers ``v`` (``coef`` of shape ``(n, p)``), and with ``se_parts = (x, fitted,
    resid, se_weight)`` the HC standard errors of :func:`_wild_kernel`.

    Examples
    --------
    >>> coef = np.array([[1.0], [2.0], [4.0]])
    >>> run = wild_runner(coef, np.zeros(1), "rademacher", lambda betas: betas[:, 0])
    >>> values, _ = run(0, 0, 2, False)  # seed 0, replicates 0 and 1
    >>> bool(values[1] == wild_multipliers(0, 1, 3) @ coef[:, 0])
    True
    """
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    base = np.ascontiguousarray(base, dtype=np.float64)
    code = np.int64(KINDS[kind])
    x, fitted, resid, weight = (
        tuple(np.ascontiguousarray(a, dtype=np.float64) for a in se_parts)
        if se_parts is not None
        else (np.zeros((0, 0)), np.zeros(0), np.zeros(0), np.zeros(0))
    )

    def run(
        seed: int, start: int, stop: int, want_se: bool
    ) -> tuple[np.ndarray, np.ndarray | None]:
        k0, k1 = stream_key(seed, "kernels.wild")
        _compile_notice(_wild_kernel)
        with_se = want_se and se_parts is not None
        ses = np.empty(stop - start) if with_se else None

        def kernel(lo: int, hi: int) -> np.ndarray:
            out = np.empty((hi - lo, coef.shape[1]))
            se = ses[lo - start : hi - start] if with_se else np.zeros(0)
            _wild_kernel(coef, base, code, k0, k1, np.int64(lo), out, se, x, fitted, resid, weight)
            return out

        betas = _run_chunks(kernel, start, stop).reshape(stop - start, coef.shape[1])
        return np.asarray(values_of(betas), dtype=float), ses

    run.has_standard_error = se_parts is not None  # type: ignore[attr-defined]
    return run
