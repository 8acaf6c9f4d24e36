"""The worker side of data-parallel boosting: one row chunk's binned codes, raw scores and gradients.

A :class:`ChunkState` lives on the worker that holds the chunk, for one boosting stage. Its
tasks are the tree engine's own kernels on the chunk: ``histogram_data`` bins it (once per fit),
``partition_hist`` splits a node's samples, ``build_histogram`` builds a node's (count, Σh, −Σg)
histogram. The next stage's state is a new object (the raw scores plus the stage's trees, with
new gradients). The samples of the nodes being grown are kept in a cache inside the state,
rebuilt from the splits sent with every request when it does not match them.
"""

import contextlib

import numpy as np
from dask.sizeof import sizeof

from .._config import kernel_threads
from ..ensemble._losses import LOSSES, GradientArrays
from ..tree._base import histogram_data, work_arrays
from ..tree._criteria import NEWTON
from ..tree._hist_partition import partition_hist
from ..tree._histogram import SampleStats, build_histogram
from ._moments import class_index

__all__ = ["ChunkState", "init_state", "histograms", "advance", "state_loss", "state_ranges"]

_NO_CLASSES = np.zeros(1, np.int32)


@contextlib.contextmanager
def _threads():
    """Numba limited to the worker's own threads: worker processes, one per core, must not start one
    thread per core each."""
    try:
        from distributed import get_worker
        threads = get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        yield
        return
    with kernel_threads(threads):
        yield


class Scratch:
    """Working memory of the chunk states of one worker, which run one at a time: the loss's scratch
    rows and :func:`histograms`' gathering buffers, grown to the largest chunk (node) that needs them.

    Kept from round to round rather than made anew: a Dask worker hands every freed block of 64 KiB
    or more back to the system (distributed sets ``MALLOC_TRIM_THRESHOLD_``), so new arrays at every
    stage and round fault their pages in again. Shared rather than one per chunk: working memory
    that every chunk kept would grow with the worker's share of the data (26 bytes a row).
    """

    def __init__(self):
        self._loss = np.empty((0, 0))
        self._gathered = _gathered(0)

    def loss(self, rows, n):
        """(rows, n) scratch for a loss's fused gradient pass."""
        if self._loss.shape[0] < rows or self._loss.shape[1] < n:
            self._loss = np.empty((max(rows, self._loss.shape[0]), max(n, self._loss.shape[1])))
        return self._loss[:rows, :n]

    def gathered(self, m):
        """build_histogram's buffers for nodes of up to m samples."""
        if self._gathered[0].size < m:
            self._gathered = _gathered(m)
        return self._gathered


class ChunkState:
    """One chunk's binned data (``data``: the engine's HistData), targets, raw scores (n, K), and the
    gradients at them: ``target`` = −g (K, n), ``h`` (K, n) or None where h ≡ 1; ``loss_sum`` = Σᵢ L at raw.

    ``previous``: the state of the stage before. The new gradients are written over its own
    (``ensemble._losses.GradientArrays``; see :class:`Scratch` for why), and it hands over its row
    orders and its :class:`Scratch`, which :meth:`share_working_memory` makes one per worker.
    """

    def __init__(self, data, y, raw, loss_spec, previous=None):
        self.data, self.y, self.raw, self.loss_spec = data, y, raw, loss_spec
        loss = LOSSES[loss_spec[0]](None, loss_spec[1])
        n = raw.shape[0]
        self.scratch = Scratch() if previous is None else previous.scratch
        self._gradients = None
        if hasattr(loss, "gradients_and_loss"):
            if previous is None:
                g, h = np.empty((loss.n_trees, n)), np.empty((loss.n_trees, n))  # (h untouched where h ≡ 1)
            else:
                g, h = previous._gradients.g, previous._gradients.h
            self._gradients = GradientArrays(g, h, self.scratch.loss(loss.scratch_rows, n))
            g, h, mean = loss.gradients_and_loss(y, raw, None, out=self._gradients)
        else:
            (g, h), mean = loss.gradients(y, raw, None), loss(y, raw, None)
        self.target, self.h, self.loss_sum = np.negative(g, out=g), h, float(mean) * n
        self._cache = {}
        # The row orders of the last stage's trees, refilled by this stage's (partition).
        self._spare = [] if previous is None else [cached[1] for cached in previous._cache.values()]

    @staticmethod
    def share_working_memory(states):
        """One :class:`Scratch` for ``states``, the chunks of one worker (``_rounds`` calls this)."""
        scratch = Scratch()
        for state in states:
            state.scratch = scratch

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_cache"], state["_spare"] = {}, []  # rebuilt from the splits on the receiving worker
        state["scratch"] = Scratch()
        return state

    def nbytes(self):
        arrays = [self.data.binned, self.y, self.raw, self.target, self.data.tmp_samples]
        arrays += [] if self.h is None else [self.h]
        arrays += [part[1] for part in self._cache.values()] + self._spare
        return sum(a.nbytes for a in arrays)

    def stats(self, k):
        """What a sample adds to tree k's histograms: count, h (1 for constant hessians), −g."""
        h = self.h
        return SampleStats(code=_NO_CLASSES, weight=self.target[k] if h is None else h[k], target=self.target[k],
                           classes=False, unit_weight=h is None)

    def partition(self, k, splits):
        """(samples, bounds) of tree k after ``splits``: the chunk's rows in node order and each node key's
        (start, end); from the cache when it holds a prefix of ``splits``."""
        cached = self._cache.get(k)
        if cached is None or cached[0] != splits[:len(cached[0])]:
            n = self.raw.shape[0]
            rows = cached[1] if cached is not None else self._spare.pop() if self._spare else np.empty(n, np.int32)
            np.copyto(rows, self.data.samples)  # 0, 1, …, n − 1 (init_state's)
            cached = ([], rows, {0: (0, n)})
        applied, samples, bounds = cached
        data = self.data._replace(samples=samples)
        work = None
        for split in splits[len(applied):]:
            node, feature, last_bin, missing_left, left, right = split
            if work is None:
                work = work_arrays(1, 1, self.data.binned.shape[1], 1, NEWTON, self.data, False).hist
            start, end = bounds[node]
            rule = (1, int(feature), int(last_bin), 0.0, bool(missing_left), 0, 0.0)
            sizes = partition_hist(data, start, end, rule, work)
            bounds[left] = (start, start + int(sizes[0]))
            bounds[right] = (start + int(sizes[0]), end)
        cached = (list(splits), samples, bounds)
        self._cache[k] = cached
        return samples, bounds


sizeof.register(ChunkState)(lambda state: state.nbytes())


def init_state(X, y, edges, loss_spec, classes, baseline):
    """The chunk binned at ``edges`` (NaN: the missing bin), its targets encoded, raw = the baseline."""
    with _threads():
        X = np.asarray(X)
        if np.isinf(X).any():
            raise ValueError("Input X contains infinity; gradient boosting takes NaN as missing, not infinity.")
        n = X.shape[0]
        rows = np.arange(n, dtype=np.int32)
        unit = SampleStats(code=_NO_CLASSES, weight=np.zeros(1), target=np.zeros(1), classes=False, unit_weight=True)
        data = histogram_data(X, edges, unit, 3, rows, rows, n_slots=1)
        # No histogram pool (the client keeps the histograms), and the gathering buffers of the engine's
        # layout go too (ChunkState keeps its own, as large as the nodes need).
        data = data._replace(pool=data.pool[:0], scratch=data.scratch[:0], gathered=_gathered(0))
        y = class_index(np.asarray(y), classes).astype(np.int64) if classes is not None else np.asarray(y, np.float64)
        raw = np.tile(np.asarray(baseline, np.float64), (n, 1))
        return ChunkState(data, y, raw, loss_spec)


def _gathered(m):
    """build_histogram's buffers for nodes of up to m samples: weights, targets, class codes."""
    return np.empty(m), np.empty(m), np.empty(m, np.int32)


def state_ranges(state):
    """The chunk's smallest and largest value in each bin (where thresholds go)."""
    return state.data.bin_lo, state.data.bin_hi


def merge_ranges(*parts):
    return np.minimum.reduce([lo for lo, _ in parts]), np.maximum.reduce([hi for _, hi in parts])


def state_loss(state):
    return state.loss_sum


def histograms(state, request):
    """The histograms of the requested nodes: ``request`` lists, per tree k of the stage, (k, its splits
    so far, the node keys wanted); returns an array (nodes, cells, 3) in request order (``_binning.cell_pointers``)."""
    with _threads():
        shape = state.data.pool.shape[1:]
        out = np.zeros((sum(len(nodes) for _, _, nodes in request), *shape))
        parts = [(k, splits, nodes, *state.partition(k, splits)) for k, splits, nodes in request]
        # The root reads the chunk's own arrays; any other node is gathered first (the smaller child:
        # at most half the chunk), into buffers kept from round to round.
        largest = max((bounds[node][1] - bounds[node][0] for _, splits, nodes, _, bounds in parts for node in nodes
                       if node != 0 or splits), default=0)
        gathered = state.scratch.gathered(largest)
        i = 0
        for k, splits, nodes, samples, bounds in parts:
            stats = state.stats(k)
            for node in nodes:
                start, end = bounds[node]
                identity = node == 0 and not splits  # the root, rows still in order
                build_histogram(state.data.binned, None, samples, (start, end, identity), stats, gathered, out[i],
                                state.data.cell_ptr)
                i += 1
        return out


def advance(state, trees):
    """The next stage's state: raw[:, k] += each leaf's value on its rows, for the stage's trees
    ``trees`` = [(k, splits, {leaf key: value})], then the gradients at the new raw scores.

    The raw scores are updated in place: the states live in actors, which Dask never recomputes
    (a lost worker ends the fit), so no earlier state is ever read again, and memory stays at one
    copy of the scores.
    """
    with _threads():
        raw = state.raw
        for k, splits, values in trees:
            samples, bounds = state.partition(k, splits)
            for leaf, value in values.items():
                start, end = bounds[leaf]
                raw[samples[start:end], k] += value
        return ChunkState(state.data, state.y, raw, state.loss_spec, previous=state)
