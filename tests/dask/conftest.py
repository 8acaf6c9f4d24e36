"""One Dask cluster (two worker processes, one thread each) shared by every test of a module in tests/dask.

Worker *processes*, as on a real cluster: the chunk functions, their arguments and the fitted models
must survive pickling, which in-process workers would not check. Measured on the 2-core machine:
tests/dask takes about 36–41 s this way and about 32 s with ``processes=False``; both ran reliably.
"""

import pytest
from distributed import Client, LocalCluster


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            yield client
