"""Multiple comparisons: p-value adjustment (Holm, Bonferroni, BH) and compact letter groups."""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from ..core.engine import check_choice
from ..core.errors import InvalidInputError

#: the corrections :func:`adjust_p_values` applies across a family of tests
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")


# ------------------------------------------------------------ p-value adjustment
def adjust_p_values(p_values: Any, correction: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    p_values : array-like of float
        One p-value per hypothesis, each in [0, 1].
    correction : {"holm", "bonferroni", "fdr_bh", "none"}
        ``"holm"``: Holm's step-down adjustment (controls the family-wise error
        rate), ``p~_(k) = max_{i <= k} min(1, (m - i + 1) p_(i))`` over the sorted
        p-values. ``"bonferroni"``: ``min(1, m p)``. ``"fdr_bh"``:
        Benjamini-Hochberg (controls the false discovery rate under independence
        or positive dependence), ``p~_(k) = min_{i >= k} min(1, m p_(i) / i)``.
        ``"none"``: unchanged.

    Returns
    -------
    ndarray
        Adjusted p-values in the input order; monotone in the raw p-values and
        capped at 1.

    Examples
    --------
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    >>> np.round(adjust_p_values([0.01, 0.04, 0.03], "fdr_bh"), 6).tolist()
    [0.03, 0.04, 0.04]
    """
    correction = check_choice(correction, "correction", CORRECTIONS)
    try:
        p = np.asarray(p_values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidInputError(
            "p_values", "a sequence of numbers in [0, 1]", type(p_values).__name__
        ) from None
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise InvalidInputError(
            "p_values", "finite numbers in [0, 1]", f"values from {p.min()} to {p.max()}"
        )
    m = p.size
    if m == 0 or correction == "none":
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    srt = p[order]
    k = np.arange(1, m + 1, dtype=float)
    if correction == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - k + 1.0) * srt))
    else:  # fdr_bh
        adj = np.minimum.accumulate(np.minimum(1.0, m * srt / k)[::-1])[::-1]
    out = np.empty(m)
    out[order] = adj
    return out


# ------------------------------------------------------------ compact letters
def _letter_groups(k: int, separated: set[tuple[int, int]]) -> list[list[int]]:
    """Groups of positions ``0..k-1`` such that two share a group iff not separated.

    Insert-and-absorb (Piepho 2004): start from one group of all; for each
    separated pair split every group holding both into two copies, each without
    one of them; drop groups contained in others. Then sweep out groups whose
    pairs (and members) are all covered by the remaining ones.
    """
    groups: list[frozenset[int]] = [frozenset(range(k))]
    for i, j in sorted(separated):
        new: list[frozenset[int]] = []
        for g in groups:
            if i in g and j in g:
                new.extend((g - {i}, g - {j}))
            else:
                new.append(g)
        uniq = list(dict.fromkeys(new))
        groups = [g for g in uniq if not any(g < h for h in uniq)]
    groups.sort(key=lambda g: (min(g), sorted(g)))

    def covered(items: set[frozenset[int]], gs: list[frozenset[int]]) -> bool:
        return all(any(item <= g for g in gs) for item in items)

    kept = list(groups)
    for g in list(groups):
        others = [h for h in kept if h is not g]
        needs = {frozenset((x,)) for x in g} | {frozenset((x, y)) for x in g for y in g if x < y}
        if others and covered(needs, others):
            kept = others
    return [sorted(g) for g in kept]


def _letter_names(n: int) -> list[str]:
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    if n <= len(alphabet):
        return list(alphabet[:n])
    return [alphabet[i] if i < len(alphabet) else f"{alphabet[i % 26]}{i // 26}" for i in range(n)]
