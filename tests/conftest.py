"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    """A test marked ``long`` or ``simulation`` is ``slow`` too, so that the fast lane
    (``-m "not slow"``) leaves it out as the README's command does."""
    for item in items:
        if item.get_closest_marker("long") or item.get_closest_marker("simulation"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def dask_client():
    """A real ``distributed.LocalCluster``: two worker processes on loopback."""
    pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None,
    )  # fmt: skip
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def public_api() -> dict[str, object]:
    """Every public object: the top level (``booteval.__all__``), the closed-form
    intervals (:mod:`booteval.closed_forms`) and the result classes
    (:data:`booteval.results.RESULT_CLASSES`), by name."""
    import booteval
    import booteval.closed_forms
    import booteval.results

    out = {name: getattr(booteval, name) for name in booteval.__all__}
    out.update({n: getattr(booteval.closed_forms, n) for n in booteval.closed_forms.__all__})
    out.update({n: getattr(booteval.results, n) for n in booteval.results.RESULT_CLASSES})
    return out
