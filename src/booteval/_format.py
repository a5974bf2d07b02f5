"""Formatting of ``estimate (low, high)`` triplets shared by every result type."""

from __future__ import annotations

import math


def format_triplet(
    estimate: float, low: float, high: float, *, scale: float = 1.0, digits: int = 4
) -> str:
    """Render ``estimate (low, high)`` with a scale factor and fixed decimals.

    Examples
    --------
    >>> format_triplet(0.82021, 0.81012, 0.83, scale=100, digits=2)
    '82.02 (81.01, 83.00)'
    """
    if not isinstance(digits, int | float) or digits < 0 or int(digits) != digits:
        raise ValueError(f"`digits`: expected a non-negative integer; received {digits!r}.")
    d = int(digits)

    def one(v: float) -> str:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "nan"
        return f"{v * scale:.{d}f}"

    return f"{one(estimate)} ({one(low)}, {one(high)})"
