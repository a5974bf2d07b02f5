"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest


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
