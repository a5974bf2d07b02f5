"""Input checks shared by the public functions, with messages that name the parameter.

Everything the user passes is normalized here once, at the public boundary;
the algorithm code below never re-validates.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .errors import InvalidInputError
from .streams import fresh_seed, seed_to_int

__all__ = [
    "as_float_array",
    "as_group_labels",
    "as_label_array",
    "check_confidence_level",
    "check_label_pair",
    "check_n_resamples",
    "check_names",
    "check_positive_int",
    "check_same_length",
    "check_seed",
    "describe_value",
]


def describe_value(x: object) -> str:
    """A short description of a received value for error messages."""
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    r = repr(x)
    return r if len(r) <= 60 else r[:57] + "..."


def to_numpy(
    x: object,
    name: str,
    expected: str = "an array-like (list, NumPy array, pandas Series)",
    dtype: Any = None,
) -> np.ndarray:
    """``x`` (a list, array, pandas or polars object) as a NumPy array; an error names
    ``name`` and ``expected`` where it is None or cannot be converted."""
    if x is None:
        raise InvalidInputError(name, expected, "None")
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        x = x.to_numpy()
    try:
        return np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(name, expected, f"{type(x).__name__} ({exc})") from None


#: larger magnitudes overflow the sums of squares behind standard errors and jackknives
MAX_ABS_VALUE = 1e150


def as_float_array(x: object, name: str, *, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """Convert to a finite float64 array with one of the allowed dimensions.

    Examples
    --------
    >>> as_float_array([1, 2, 3], "scores")
    array([1., 2., 3.])
    """
    a = to_numpy(x, name)
    if a.ndim not in ndim:
        allowed = " or ".join(f"{d}-D" for d in ndim)
        raise InvalidInputError(name, f"a {allowed} array", f"an array of shape {a.shape}")
    if a.shape[0] == 0:
        raise InvalidInputError(name, "at least one row", "an empty array")
    if a.dtype == object or a.dtype.kind in "USV":
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError(
                name, "numeric values", f"values of type {a.dtype}", "Are these labels?"
            ) from None
    elif a.dtype.kind == "b":
        a = a.astype(np.float64)
    elif a.dtype.kind not in "iuf":
        raise InvalidInputError(name, "numeric values", f"values of dtype {a.dtype}")
    a = np.asarray(a, dtype=np.float64)
    bad = ~np.isfinite(a)
    if bad.any():
        first = int(np.flatnonzero(bad.reshape(a.shape[0], -1).any(axis=1))[0])
        raise InvalidInputError(
            name,
            "finite values",
            f"{int(bad.sum())} NaN or infinite value(s), the first in row {first}",
            "Remove or impute missing outputs before bootstrapping.",
        )
    big = np.abs(a) > MAX_ABS_VALUE
    if big.any():
        first = int(np.flatnonzero(big.reshape(a.shape[0], -1).any(axis=1))[0])
        raise InvalidInputError(
            name,
            f"values within +-{MAX_ABS_VALUE:.0e}",
            f"{int(big.sum())} larger value(s), the first in row {first} "
            f"({float(a.reshape(a.shape[0], -1)[first].max()):.3g})",
            "Sums of squares of such values overflow float64, which would make the "
            "standard errors and the jackknife meaningless; rescale the values first.",
        )
    return a


def as_label_array(x: object, name: str) -> np.ndarray:
    """Convert to a 1-D array of class labels (numbers or strings, no missing values).

    Examples
    --------
    >>> as_label_array(["cat", "dog"], "y_true")
    array(['cat', 'dog'], dtype='<U3')
    """
    a = to_numpy(x, name)
    if a.ndim != 1:
        raise InvalidInputError(name, "a 1-D array of labels", f"an array of shape {a.shape}")
    if a.shape[0] == 0:
        raise InvalidInputError(name, "at least one row", "an empty array")
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a)
        if bad.any():
            raise InvalidInputError(
                name,
                "labels without NaN or infinite values",
                f"{int(bad.sum())} missing value(s), "
                f"the first in row {int(np.flatnonzero(bad)[0])}",
            )
    elif a.dtype == object:
        missing = [i for i, v in enumerate(a) if v is None or (isinstance(v, float) and v != v)]
        if missing:
            raise InvalidInputError(
                name,
                "labels without missing values",
                f"{len(missing)} missing value(s), the first in row {missing[0]}",
            )
    return a


_NOT_SCALAR = (dict, list, tuple, set, frozenset, np.ndarray)


def _refuse_nested(values: list | tuple | np.ndarray, name: str) -> None:
    """Refuse a sequence of labels that holds a nested value (a dict, list, array...)."""
    bad = next((i for i, v in enumerate(values) if isinstance(v, _NOT_SCALAR)), None)
    if bad is not None:
        raise InvalidInputError(
            name,
            "one scalar label per row (a number or a string)",
            f"a {type(values[bad]).__name__} in row {bad}: {describe_value(values[bad])}",
            "A nested value would make every row its own group; pick one field of it.",
        )


def as_group_labels(x: object, name: str, n_rows: int) -> np.ndarray:
    """Convert group labels (clusters, strata, items) to a 1-D array, one scalar per row.

    A label must be a scalar (number, string, bool): a dict or list per row would
    make every row its own group, and a missing label (None, NaN) would merge
    all unlabelled rows into one group, both silently. Both are refused.

    Examples
    --------
    >>> as_group_labels(["q1", "q1", "q2"], "clusters", 3).tolist()
    ['q1', 'q1', 'q2']
    >>> as_group_labels([{"id": 1}, {"id": 2}], "clusters", 2)
    Traceback (most recent call last):
    ...
    booteval.core.errors.InvalidInputError: `clusters`: expected one scalar label per row ...
    """
    if isinstance(x, (list, tuple)):
        _refuse_nested(x, name)
    a = to_numpy(x, name)
    if a.ndim != 1:
        raise InvalidInputError(
            name, "one scalar label per row (a 1-D array)", f"an array of shape {a.shape}"
        )
    if a.shape[0] != n_rows:
        raise InvalidInputError(
            name, f"one label per row ({n_rows} labels)", f"{a.shape[0]} labels"
        )
    if a.dtype.kind == "f":
        missing = np.flatnonzero(np.isnan(a))
    elif a.dtype == object:
        _refuse_nested(a, name)
        missing = np.array(
            [i for i, v in enumerate(a) if v is None or (isinstance(v, float) and v != v)],
            dtype=np.intp,
        )
    else:
        missing = np.zeros(0, dtype=np.intp)
    if missing.size:
        raise InvalidInputError(
            name,
            "a label in every row",
            f"{missing.size} missing label(s) (None or NaN), the first in row {int(missing[0])}",
            "Missing labels would all fall into one group; fill or drop those rows.",
        )
    return a


def _label_kind(a: np.ndarray) -> str:
    if a.dtype.kind in "US":
        return "string"
    if a.dtype.kind in "biuf":
        return "number"
    kinds = {"string" if isinstance(v, str) else "number" for v in a.tolist()}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _looks_numeric(values: np.ndarray) -> bool:
    try:
        np.asarray(values[:1000], dtype=float)
    except (TypeError, ValueError):
        return False
    return True


def _few(values: np.ndarray, k: int = 4) -> str:
    u = list(dict.fromkeys(values.tolist()))
    shown = ", ".join(repr(v) for v in u[:k])
    return f"{{{shown}{', ...' if len(u) > k else ''}}}"


#: integer labels spanning at most this many values are counted in an array, not a set
_SPAN_FOR_ARRAY = 1 << 20


def _label_overlap(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[bool, int]:
    """Whether the two label arrays share a value, and the larger number of distinct values.

    Integer labels within a small span are marked in a boolean array (a million labels in a
    few milliseconds); other labels go through Python sets.
    """
    if y_true.dtype.kind in "biu" and y_pred.dtype.kind in "biu":
        lo = min(int(y_true.min()), int(y_pred.min()))
        hi = max(int(y_true.max()), int(y_pred.max()))
        if hi - lo < _SPAN_FOR_ARRAY and -(2**62) < lo and hi < 2**62:  # int64 offsets
            seen_true = np.zeros(hi - lo + 1, dtype=bool)
            seen_pred = np.zeros(hi - lo + 1, dtype=bool)
            seen_true[y_true.astype(np.int64) - lo] = True
            seen_pred[y_pred.astype(np.int64) - lo] = True
            most = max(int(seen_true.sum()), int(seen_pred.sum()))
            return bool((seen_true & seen_pred).any()), most
    true_set = set(y_true.tolist())
    pred_set = set(y_pred.tolist())
    return bool(true_set & pred_set), max(len(true_set), len(pred_set))


def check_label_pair(y_true: np.ndarray, y_pred: np.ndarray, name: str = "y_pred") -> None:
    """Refuse predicted labels that cannot be compared with the true labels.

    A label metric compares ``y_pred`` with ``y_true`` by equality, so predictions of
    another type (``'1.0'`` against ``1``, ``True`` against ``'True'``), continuous
    predictions (probabilities passed as labels) or predictions that share no
    value with the labels would give a silently wrong score (often 0).

    Examples
    --------
    >>> check_label_pair(np.array([0, 1, 1]), np.array([0, 1, 0]))
    >>> check_label_pair(np.array([0, 1, 1]), np.array(["0.0", "1.0", "0.0"]))
    Traceback (most recent call last):
    ...
    booteval.core.errors.InvalidInputError: `y_pred`: expected labels of the same type as ...
    """
    kt, kp = _label_kind(y_true), _label_kind(y_pred)
    if "mixed" in (kt, kp):
        which = "y_true" if kt == "mixed" else name
        raise InvalidInputError(
            which, "labels of one type (all numbers or all strings)", "a mix of numbers and strings"
        )
    if kt != kp:
        hint = ""
        if kp == "string" and _looks_numeric(y_pred):
            hint = (
                f"The predicted labels look like numbers written as text ({_few(y_pred)}); "
                "convert them to numbers first."
            )
        elif kt == "string" and _looks_numeric(y_true):
            hint = (
                f"The true labels look like numbers written as text ({_few(y_true)}); "
                "convert them to numbers first."
            )
        raise InvalidInputError(
            name,
            f"labels of the same type as `y_true` ({kt}s, e.g. {_few(y_true)})",
            f"{kp}s, e.g. {_few(y_pred)}",
            hint,
        )
    if kt == "number" and y_pred.dtype.kind == "f":
        frac = y_pred != np.round(y_pred)
        if frac.any() and not (y_true.dtype.kind == "f" and (y_true != np.round(y_true)).any()):
            raise InvalidInputError(
                name,
                "class labels (the predicted class of each row)",
                f"continuous values, e.g. {float(y_pred[np.flatnonzero(frac)[0]])!r}",
                "These look like scores or probabilities: threshold them (y_score >= 0.5) for "
                "a label metric, or use a score metric such as 'roc_auc' or 'brier' "
                "(on the command line, pass them with --score).",
            )
    shared, most = _label_overlap(y_true, y_pred)
    if not shared and most > 1:
        raise InvalidInputError(
            name,
            "predicted labels that share at least one value with `y_true`",
            f"{_few(y_pred)} against true labels {_few(y_true)}",
            "Check that both columns use the same label names (for a binary metric, "
            "pos_label= names the positive class).",
        )


def check_names(names: object, k: int = 2, parameter: str = "names") -> tuple[str, ...]:
    """``k`` display names (a tuple or list of ``k`` distinct strings or numbers).

    Examples
    --------
    >>> check_names(("baseline", "new"))
    ('baseline', 'new')
    """
    if isinstance(names, str | bytes) or not isinstance(names, tuple | list):
        raise InvalidInputError(
            parameter, f"a tuple of {k} names, e.g. ('baseline', 'new')", describe_value(names)
        )
    if len(names) != k:
        raise InvalidInputError(parameter, f"{k} names", f"{len(names)}: {describe_value(names)}")
    out = tuple(str(x) for x in names)
    if any("\n" in x or "\r" in x for x in out):
        raise InvalidInputError(parameter, "names on one line", describe_value(names))
    if len(set(out)) != k:
        raise InvalidInputError(parameter, "distinct names", describe_value(names))
    return out


def check_same_length(arrays: dict[str, np.ndarray]) -> int:
    """Check that all arrays have the same number of rows; return it."""
    lengths = {k: v.shape[0] for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        names = list(lengths)
        first = names[0]
        other = next(k for k in names if lengths[k] != lengths[first])
        raise InvalidInputError(
            other,
            f"the same number of rows as `{first}` ({lengths[first]})",
            f"{lengths[other]} rows",
        )
    return next(iter(lengths.values()))


def check_choice(
    value: object, name: str, choices: tuple[str, ...], aliases: dict[str, str] | None = None
) -> str:
    """``value`` if it is one of ``choices`` (or an alias of one, given as its canonical
    name); otherwise an error naming ``name`` and listing them: the one check of a choice.

    Examples
    --------
    >>> check_choice("bca", "method", ("percentile", "bca"))
    'bca'
    >>> check_choice("pearson_r", "coefficient", ("pearson",), {"pearson_r": "pearson"})
    'pearson'
    """
    if isinstance(value, str):
        canonical = (aliases or {}).get(value, value)
        if canonical in choices:
            return canonical
    valid = ", ".join(map(repr, (*choices, *(aliases or ()))))
    raise InvalidInputError(name, f"one of {valid}", describe_value(value))


def check_confidence_level(confidence_level: object) -> float:
    """A float strictly between 0 and 1.

    Examples
    --------
    >>> check_confidence_level(0.9)
    0.9
    """
    if (
        not isinstance(confidence_level, numbers.Real)
        or isinstance(confidence_level, bool)
        or not (0.0 < float(confidence_level) < 1.0)
    ):
        raise InvalidInputError(
            "confidence_level",
            "a number strictly between 0 and 1 (e.g. 0.95)",
            describe_value(confidence_level),
            f"Did you mean {float(confidence_level) / 100:g}? Pass "
            f"{float(confidence_level) / 100:g} rather than {confidence_level:g}."
            if isinstance(confidence_level, numbers.Real) and 1 < float(confidence_level) < 100
            else "",
        )
    return float(confidence_level)


def check_positive_int(value: object, name: str, *, minimum: int = 1) -> int:
    """An integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InvalidInputError(name, f"an integer >= {minimum}", describe_value(value))
    return int(value)


#: the most resamples a run may keep (80 MB of replicates per system)
MAX_RESAMPLES = 10_000_000


def check_resample_count(n_resamples: object) -> int:
    """A whole number of resamples from 1 to :data:`MAX_RESAMPLES` (the one check of
    ``n_resamples`` that does not depend on the level; :func:`check_n_resamples` adds it).

    Examples
    --------
    >>> check_resample_count(1000)
    1000
    """
    b = check_positive_int(n_resamples, "n_resamples")
    if b > MAX_RESAMPLES:
        raise InvalidInputError(
            "n_resamples",
            f"at most {MAX_RESAMPLES:,}",
            f"{b:,}",
            "Every replicate is kept (8 bytes each, per system), so that any interval "
            "method can be formed again from one run; the Monte Carlo error of the "
            "endpoints at 1,000,000 resamples is already below 0.3 % of the standard error.",
        )
    return b


def check_n_resamples(n_resamples: object, confidence_level: float) -> int:
    """Enough resamples that each tail of the interval holds at least one replicate."""
    b = check_resample_count(n_resamples)
    tail = (1.0 - confidence_level) / 2.0
    needed = math.ceil(1.0 / tail - 1e-9)
    if b < needed:
        raise InvalidInputError(
            "n_resamples",
            f"at least {needed} for confidence_level={confidence_level:g} "
            "(so that each tail holds one replicate)",
            str(b),
            "Use 10_000 for publication, 1_000 for a quick look.",
        )
    return b


def check_seed(seed: object) -> int:
    """Return a non-negative integer seed; draw fresh entropy (and return it) for ``None``.

    Examples
    --------
    >>> check_seed(7)
    7
    >>> isinstance(check_seed(None), int)
    True
    """
    if seed is None:
        return fresh_seed()
    seed = seed_to_int(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InvalidInputError(
            "seed",
            "None, a non-negative integer, a numpy SeedSequence or a numpy Generator",
            describe_value(seed),
            "booteval never uses a global random state; pass an integer to reproduce a run.",
        )
    return int(seed)
