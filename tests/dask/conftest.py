"""One in-process Dask cluster (two workers, one thread each) shared by every test of tests/dask."""

import pytest
from distributed import Client, LocalCluster


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            yield client
