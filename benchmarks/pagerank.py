"""PageRank: lucidml beside networkx, and lucidml alone on a million-node graph.

``python -m benchmarks.pagerank [--nodes 1000000] [--degree 10]``. The graph is random with
``degree`` out-links per node on average and 5 % of the nodes dangling (no out-links). Times
exclude building the graph; tolerance is ‖Δr‖₁ < 1e-8 for both libraries (networkx's ``tol``
is per node, so it gets 1e-8 / n).
"""

import argparse
import statistics
import time

import networkx as nx
import numpy as np
import scipy.sparse

from lucidml.graph import pagerank


def random_graph(n_nodes, degree, seed=0):
    rng = np.random.default_rng(seed)
    n_edges = n_nodes * degree
    sources = rng.integers(0, n_nodes, n_edges)
    sources = sources[sources >= n_nodes // 20]  # the first 5 % of the nodes have no out-links
    targets = rng.integers(0, n_nodes, len(sources))
    return scipy.sparse.csr_array((np.ones(len(sources)), (sources, targets)), shape=(n_nodes, n_nodes))


def _median_time(func, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pagerank", description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--degree", type=int, default=10)
    parser.add_argument("--compare-nodes", type=int, default=100_000, help="graph size for the networkx comparison")
    args = parser.parse_args(argv)

    A = random_graph(args.compare_nodes, args.degree)
    graph = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
    ours_s, ours = _median_time(lambda: pagerank(A, tol=1e-8, max_iter=1000), 5)
    theirs_s, theirs = _median_time(lambda: nx.pagerank(graph, tol=1e-8 / args.compare_nodes, max_iter=1000), 5)
    theirs = np.array([theirs[i] for i in range(args.compare_nodes)])
    print("| graph | nodes | links | lucidml s | networkx s | ratio | largest score difference | iterations |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| random, degree {args.degree} | {args.compare_nodes} | {A.nnz} | {ours_s:.3f} | {theirs_s:.3f} "
          f"| {ours_s / theirs_s:.2f} | {np.abs(ours.scores - theirs).max():.1e} | {ours.n_iter} |")

    A = random_graph(args.nodes, args.degree)
    big_s, big = _median_time(lambda: pagerank(A, tol=1e-8, max_iter=1000), 3)
    print(f"| random, degree {args.degree} | {args.nodes} | {A.nnz} | {big_s:.3f} | (not run) | | | {big.n_iter} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
