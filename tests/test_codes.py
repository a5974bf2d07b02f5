"""dense_codes: the same sorted values, codes and counts as np.unique, whatever the input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from booteval.core.codes import dense_codes


def _check(values: np.ndarray) -> None:
    uniq, code, count = dense_codes(values, return_counts=True)
    ref_u, ref_c, ref_n = np.unique(values, return_inverse=True, return_counts=True)
    assert uniq.dtype == ref_u.dtype
    assert np.array_equal(uniq, ref_u, equal_nan=uniq.dtype.kind == "f")
    assert code.dtype == np.intp
    assert np.array_equal(code, ref_c.reshape(-1))
    assert np.array_equal(count, ref_n)
    assert np.array_equal(uniq[code], values.ravel(), equal_nan=uniq.dtype.kind == "f")


@given(
    hnp.arrays(
        st.sampled_from([np.int8, np.int64, np.uint16, np.uint64, np.bool_]),
        st.integers(1, 200),
    )
)
def test_integers_match_unique(values: np.ndarray) -> None:
    _check(values)


@given(
    hnp.arrays(
        np.float64,
        st.integers(1, 200),
        elements=st.one_of(
            st.integers(-50, 50).map(float),
            st.floats(allow_nan=True, allow_infinity=True, width=64),
        ),
    )
)
def test_floats_match_unique(values: np.ndarray) -> None:
    _check(values)


@pytest.mark.parametrize(
    "values",
    [
        np.array([2**40, 1, 2**40, -(2**40)]),  # range too wide to count: np.unique
        np.array([0.5, 1.0, 0.5]),  # not integral
        np.array(["b", "a", "b"]),
        np.array([-3, -3, -1]),
        np.array([-0.0, 0.0, 1.0]),
        np.array([2**63 + 2, 2**63 + 1, 2**63 + 2], dtype=np.uint64),
        np.array([-(2**63), -(2**63) + 1], dtype=np.int64),
        np.array([2**63 - 1, 2**63 - 3], dtype=np.int64),
    ],
)
def test_special_inputs(values: np.ndarray) -> None:
    _check(values)


def test_counting_path_on_large_input() -> None:
    values = np.random.default_rng(0).integers(3, 12, 300_000)
    _check(values)
    _check(values.astype(float))
