"""Rounds of small tasks on per-chunk states that stay on their workers (the boosting loop's engine).

An iterative fit that keeps state per chunk (binned codes, raw scores) between hundreds of short
rounds (a boosting fit: one per tree level) would pay the scheduler's task latency in every one,
so the states live in one Dask *actor* per worker — an object on the worker whose methods the
client calls without making tasks — holding the states of the chunks that worker computed (a few
moved once to even out the workers' shares: :func:`balanced`). A round is one call per worker:
the function runs on each of its states, one at a time, and the results are summed there, so the
client receives one small result per worker. The states of a worker may share their working memory
(a state class's ``share_working_memory(states)``).

A call goes through the scheduler unless the client was made with ``direct_to_workers=True`` (by
default it is not, for networks where a client cannot reach the workers); straight to the workers it
takes about half the time: 2–3 ms against 3–5 ms a round with two local worker processes on the
2-core test machine (a boosting benchmark's fit: 3.2 s against 3.7). So when the client can reach
every holder's worker (asked once, at the start, with a short timeout), the rounds go straight to
the workers whatever the client's setting: it is switched on for the time of each round only,
then set back to what it was. (Another thread using the same client during a round may find it
on: its own calls then go straight to the workers too, which the client was just found to reach.)

An actor has no lineage: a worker lost during the fit ends it with a ``RuntimeError`` that says
so (never a wrong model); the fit can then be run again. Without a distributed client (Dask's
local schedulers) the states are plain objects of this process and a round is a loop of calls.
"""

import asyncio

import dask
import numba
from dask.sizeof import sizeof

__all__ = ["Rounds", "balanced"]

# A worker runs a round on its event loop, not in its actor thread, when its states hold at most
# this many bytes: such a round takes milliseconds (about 1 ms per MiB of a boosting chunk's
# codes and scores), where the two thread hand-offs saved cost about half a millisecond; a longer
# one would keep the worker from answering (heartbeats, data requests) while it runs.
INLINE_BYTES = 64 * 2**20

# Seconds the client waits for each worker to answer it directly at the start of a fit; a worker
# that does not (a firewall, a network the client is outside of) keeps the rounds on the scheduler.
DIRECT_PROBE_S = 2.0


def _sum(*parts):
    """Σ parts (arrays or numbers), with one new array for the total however many parts: the parts
    themselves may be read-only (received from a worker) or a state's own."""
    if len(parts) == 1:
        return parts[0]
    total = parts[0] + parts[1]
    for part in parts[2:]:
        total += part
    return total


def _share_working_memory(states):
    """Let the states of one holder share their working memory: a state class may define
    ``share_working_memory(states)``; the states of a holder are run one at a time."""
    share = getattr(type(states[0]), "share_working_memory", None) if states else None
    if share is not None:
        share(states)


def _replace_each(states, func, args):
    """states[i] ← func(states[i], *args), one at a time: each old state is freed before the next new one."""
    for i, state in enumerate(states):
        states[i] = None
        states[i] = func(state, *args)
        del state


class _Holder:
    """The chunk states of one worker (a Dask actor), with Numba held to the worker's threads."""

    inline = False  # whether rounds run on the worker's event loop (an attribute of the class too: Dask's
    # actor handles look an attribute up on the class before they ask the worker for its value)

    def __init__(self, *states):
        from distributed import get_worker

        self.states = list(states)
        _share_working_memory(self.states)
        self.inline = sum(sizeof(state) for state in self.states) <= INLINE_BYTES
        self.threads = max(1, min(get_worker().state.nthreads, numba.config.NUMBA_NUM_THREADS))

    def totals(self, calls, replace=None):
        """The combined results of ``calls`` on the states, after replacing them by ``replace`` =
        (func, args): ``func(state, *args)``, when given."""
        numba.set_num_threads(self.threads)
        if replace is not None:
            _replace_each(self.states, *replace)
        return [combine(*[func(state, *args) for state in self.states]) for func, args, combine in calls]


class Rounds:
    """Per-chunk states and rounds on them, on the active client (or in process without one)."""

    def __init__(self):
        try:
            from distributed import default_client
            self.client = default_client()
        except (ImportError, ValueError):
            self.client = None
        self.holders, self.queued, self.inline, self.direct = None, None, None, False

    def start(self, delayed_states):
        """Compute the initial states (delayed objects, one per chunk) and keep them where they are computed,
        but for the states :func:`balanced` moves to even out the workers' shares."""
        if self.client is None:
            self.holders = [list(dask.compute(*delayed_states))]
            _share_working_memory(self.holders[0])
            return
        from distributed import wait

        client = self.client
        futures = client.compute(list(delayed_states))
        wait(futures)
        for future in futures:
            if future.status == "error":
                future.result()  # raises the chunk's error (bad values, say)
        homes = client.who_has(futures)
        sizes = client.nbytes([future.key for future in futures], summary=False)
        places = balanced([homes[f.key][0] for f in futures], [sizes.get(f.key, 0) for f in futures],
                          sorted(client.nthreads()))
        by_worker = {}
        for future, worker in zip(futures, places):
            by_worker.setdefault(worker, []).append(future)
        actors = [client.submit(_Holder, *group, workers=[worker], actor=True) for worker, group in by_worker.items()]
        self.holders = [actor.result() for actor in actors]
        self.inline = [holder.inline for holder in self.holders]
        self.direct = not client.direct_to_workers and _reaches(client, list(by_worker))

    def replace(self, func, *args):
        """states ← ``func(state, *args)`` for every state (on a cluster: sent with the next round)."""
        if self.client is None:
            _replace_each(self.holders[0], func, args)
        else:
            self.queued = (func, args)

    def total(self, func, *args):
        """Σ over the chunks of ``func(state, *args)`` (arrays or numbers), summed on the workers."""
        return self.totals([(func, args)])[0]

    def totals(self, calls):
        """:meth:`total` of several ``(func, args)``, or ``(func, args, combine)`` with another
        ``combine(*parts)`` than the sum, in one round."""
        calls = [(*call, _sum) if len(call) == 2 else call for call in calls]
        if self.client is None:
            return [combine(*[func(state, *args) for state in self.holders[0]]) for func, args, combine in calls]
        # An actor call reads the client's setting when it is sent (on the client's event loop, after
        # this thread asked for it): it stays switched on until every call of the round has answered.
        setting = self.client.direct_to_workers
        direct = self.direct and not setting
        if direct:
            self.client.direct_to_workers = True
        try:
            parts = [holder.totals(calls, self.queued, separate_thread=not inline)
                     for holder, inline in zip(self.holders, self.inline)]
            self.queued = None
            parts = [part.result() for part in parts]
        except (OSError, RuntimeError, ValueError, KeyError, TypeError) as error:
            if not isinstance(error, OSError) and not _lost(error):
                raise  # the chunk functions' own error, raised as it is
            raise RuntimeError("A Dask worker holding boosting state was lost during the fit (its chunks' binned "
                               "codes and scores were in its memory); fit again.") from error
        finally:
            if direct:
                self.client.direct_to_workers = setting
        return [combine(*[part[i] for part in parts]) for i, (_, _, combine) in enumerate(calls)]

    def close(self):
        self.holders, self.queued = None, None


def balanced(homes, sizes, workers):
    """The worker of each state: its home (where it was computed), unless that worker would then hold
    more than its share of the bytes (an equal share for each of ``workers``). The largest states
    are placed first; each one beyond its home's share goes to the worker that holds the least so far.

    Every round waits for the slowest worker, so a worker holding 5 of 8 equal chunks (as Dask may
    leave them) would make a fit take 5/4 of the time of an even split. Moving a state costs one
    transfer of it, once per fit; the states are the data in compact form (a boosting chunk's codes
    are one byte a value).
    """
    workers = sorted(set(workers) | set(homes))
    share = sum(sizes) / len(workers)
    load = dict.fromkeys(workers, 0)
    places = list(homes)
    for i in sorted(range(len(homes)), key=lambda i: -sizes[i]):
        home = homes[i]
        if load[home] + sizes[i] > share * (1 + 1e-9):
            lightest = min(workers, key=load.__getitem__)
            if load[lightest] < load[home]:
                places[i] = lightest
        load[places[i]] += sizes[i]
    return places


def _reaches(client, addresses):
    """Whether the client can open a connection to each of the workers itself (see the module's note)."""

    async def identities():
        for address in addresses:
            await asyncio.wait_for(client.rpc(address).identity(), DIRECT_PROBE_S)

    try:
        client.sync(identities)
    except (OSError, asyncio.TimeoutError):
        return False
    return True


def _lost(error):
    """Whether an error raised by an actor call says that its worker is gone."""
    text = f"{type(error).__name__} {error}".lower()
    return any(word in text for word in ("closed", "lost", "worker", "connect", "actor"))
