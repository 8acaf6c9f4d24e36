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


def test_blas_runs_on_one_thread_while_the_pool_runs_and_is_restored_after():
    """The workers share the cores: BLAS threads on top would compete with them."""
    from lucidml.utils.linalg import _controller

    libraries = [lib for lib in _controller().lib_controllers if lib.user_api == "blas"]
    before = [lib.get_num_threads() for lib in libraries]
    seen = pool_map(2, lambda _: [lib.get_num_threads() for lib in libraries], range(4))
    assert all(counts == [1] * len(libraries) for counts in seen)
    assert [lib.get_num_threads() for lib in libraries] == before
    assert pool_map(1, lambda _: [lib.get_num_threads() for lib in libraries], range(1)) == [before]
