"""Rounds of small tasks on per-chunk states that stay on their workers (the boosting loop's engine).

An iterative fit that keeps state per chunk (binned codes, raw scores) between many short rounds
pays Dask's per-round latency hundreds of times, so it talks to the ``dask.distributed`` client
directly with futures: ``client.map`` runs a function next to every state, the results are summed
on the workers a few at a time and the client gathers what is left. Without a
distributed client (Dask's local schedulers), the states are plain objects of this process and
a round is a loop of calls.
"""

import dask

__all__ = ["Rounds"]

_FAN_IN = 8


def _sum(*parts):
    return sum(parts[1:], parts[0])


class Rounds:
    """Per-chunk states and rounds on them, on the active client (or in process without one)."""

    def __init__(self):
        try:
            from distributed import default_client
            self.client = default_client()
        except (ImportError, ValueError):
            self.client = None
        self.states = None

    def start(self, delayed_states):
        """Compute the initial states (delayed objects, one per chunk) and keep them where they are computed."""
        if self.client is None:
            self.states = list(dask.compute(*delayed_states))
        else:
            self.states = self.client.compute(list(delayed_states))

    def replace(self, func, *args):
        """states ← ``func(state, *args)`` for every state (asynchronous on a cluster)."""
        if self.client is None:
            self.states = [func(state, *args) for state in self.states]
        else:
            self.states = self.client.map(func, self.states, *[[a] * len(self.states) for a in args], pure=False)

    def total(self, func, *args):
        """Σ over the chunks of ``func(state, *args)`` (arrays or numbers), summed on the workers."""
        return self.totals([(func, args)])[0]

    def totals(self, calls):
        """:meth:`total` of several ``(func, args)``, or ``(func, args, combine)`` with another
        ``combine(*parts)`` than the sum, in one round."""
        calls = [(*call, _sum) if len(call) == 2 else call for call in calls]
        if self.client is None:
            return [combine(*[func(state, *args) for state in self.states]) for func, args, combine in calls]
        client = self.client
        groups = []
        for func, args, combine in calls:
            parts = client.map(func, self.states, *[[a] * len(self.states) for a in args], pure=False)
            while len(parts) > _FAN_IN:
                parts = [client.submit(combine, *parts[i:i + _FAN_IN], pure=False)
                         for i in range(0, len(parts), _FAN_IN)]
            groups.append(parts)
        gathered = client.gather(groups)
        return [combine(*parts) for (_, _, combine), parts in zip(calls, gathered)]

    def close(self):
        self.states = None
