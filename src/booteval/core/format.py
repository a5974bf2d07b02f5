"""Formatting of ``estimate (low, high)`` triplets shared by every result type."""

from __future__ import annotations

import math
import numbers

from .errors import InvalidInputError


def check_digits(digits: object) -> int:
    """``digits`` as an int in 0..20, or an error naming it."""
    if (
        isinstance(digits, bool)
        or not isinstance(digits, numbers.Real)
        or not math.isfinite(digits)
        or int(digits) != digits
        or not 0 <= digits <= 20
    ):
        raise InvalidInputError("digits", "an integer from 0 to 20", repr(digits))
    return int(digits)


def check_scale(scale: object) -> float:
    """``scale`` as a finite, positive float, or an error naming it (a negative scale
    would print the low end above the high one)."""
    if (
        isinstance(scale, bool)
        or not isinstance(scale, numbers.Real)
        or not math.isfinite(scale)
        or scale <= 0
    ):
        raise InvalidInputError(
            "scale", "a finite, positive number (e.g. 100 for percentages)", repr(scale)
        )
    return float(scale)


def format_triplet(
    estimate: float, low: float, high: float, *, scale: float = 1.0, digits: int = 4
) -> str:
    """Render ``estimate (low, high)`` with a scale factor and fixed decimals.

    Examples
    --------
    >>> format_triplet(0.82021, 0.81012, 0.83, scale=100, digits=2)
    '82.02 (81.01, 83.00)'
    """
    d = check_digits(digits)
    scale = check_scale(scale)

    def one(v: float) -> str:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "nan"
        return f"{v * scale:.{d}f}"

    return f"{one(estimate)} ({one(low)}, {one(high)})"


def format_p_value(p: float | None, decimals: int = 3) -> str:
    """A p-value for tables and summaries: fixed decimals, scientific below 0.001.

    Examples
    --------
    >>> format_p_value(0.04321), format_p_value(0.00002), format_p_value(float("nan"))
    ('0.043', '2.0e-05', 'nan')
    """
    if p is None or not math.isfinite(p):
        return "nan"
    return f"{p:.{decimals}f}" if p >= 0.001 else f"{p:.1e}"
