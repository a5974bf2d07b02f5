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


# ----------------------------------------------------------- keys of the compressed cells


def _partition(keys: np.ndarray) -> np.ndarray:
    """The cells of ``keys`` in the order of their keys (np.unique's codes)."""
    return np.unique(keys, return_inverse=True)[1].reshape(-1)


@given(
    st.lists(
        hnp.arrays(np.int64, 40, elements=st.sampled_from([0, 1, 7, -3, 10**6, 2**40])),
        min_size=1, max_size=4,
    )
)  # fmt: skip
def test_joint_keys_order_the_rows_as_the_tuples_of_keys(keys: list[np.ndarray]) -> None:
    """Narrow keys combine directly, wide ones are made dense first: either way the joint
    key orders the rows as np.unique orders the tuples (so the cells and their order are
    those of 0.1's joint encoding)."""
    from booteval.core.paired import _joint_keys

    joint = _joint_keys(keys, 40)
    tuples = np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)[1].reshape(-1)
    assert np.array_equal(_partition(joint), tuples)


@given(hnp.arrays(np.bool_, st.integers(1, 60)))
def test_boolean_value_keys_are_the_dense_codes_of_their_floats(hits: np.ndarray) -> None:
    from booteval.metrics.regression import _value_keys

    fast = _value_keys(hits)
    slow = _value_keys(hits.astype(float))
    assert (fast is None) == (slow is None)
    if fast is not None:
        assert np.array_equal(np.asarray(fast, dtype=np.int64), slow)


def test_compressed_cells_read_their_statistics_off_one_row() -> None:
    """Each cell's representative row has the cell's key; integer statistics are read off
    it, others are summed and divided as in 0.1 (the same bits either way)."""
    from booteval.design import make_design

    from booteval.metrics.base import SumEvaluator

    rng = np.random.default_rng(3)
    keys = rng.integers(0, 3, 300)
    d = make_design(300, strata=rng.integers(0, 2, 300)).compress(keys)
    assert d.cell_row is not None
    assert np.array_equal(d.unit_of_row[d.cell_row], np.arange(d.n_units))
    for values in (np.array([0.0, 1.0, 5.0]), np.array([0.1, 0.7, 1 / 3])):
        stats = np.column_stack([values[keys], np.ones(300)])
        ev = SumEvaluator(stats, d, lambda s: s[:, 0] / s[:, 1], compress=False)
        summed = (
            np.column_stack([np.bincount(d.unit_of_row, weights=stats[:, j]) for j in range(2)])
            / d.unit_size[:, None]
        )
        assert np.array_equal(ev.unit_stats, summed)
