"""utils._pool.pool_map: the shared threads, or the caller's own when it is one of them."""

import threading

from lucidml.utils._pool import in_shared_pool, pool_map, thread_pool


def _thread_name(_):
    return threading.current_thread().name


def test_pool_map_returns_the_results_in_order_from_the_shared_threads():
    assert pool_map(2, pow, [2, 3, 4], [3, 2, 1]) == [8, 9, 4]
    names = set(pool_map(2, _thread_name, range(8)))
    assert all(name.startswith("lucidml-2") for name in names)


def test_pool_map_on_one_thread_runs_in_the_caller():
    assert set(pool_map(1, _thread_name, range(4))) == {threading.current_thread().name}
    assert pool_map(1, _thread_name, []) == []


def test_pool_map_inside_a_task_of_the_pool_runs_there_instead_of_waiting_on_it():
    """Both workers of the pool run a task that maps over the same pool: submitted there, the
    inner tasks would wait forever for a free worker."""
    barrier = threading.Barrier(2, timeout=10)

    def outer(_):
        barrier.wait()  # both workers are busy from here on
        assert in_shared_pool()
        return set(pool_map(2, _thread_name, range(4))) == {threading.current_thread().name}

    futures = [thread_pool(2).submit(outer, i) for i in range(2)]
    assert all(f.result(timeout=20) for f in futures)
    assert not in_shared_pool()
