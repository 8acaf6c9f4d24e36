"""lucidml.dask beside dask-ml and beside the in-memory lucidml estimator, on one Dask cluster.

``python -m benchmarks.dask_fit [--rows 400000] [--features 20] [--chunks 8] [--repeats 3] [--processes]``.
A LocalCluster of 2 workers × 1 thread (threads in this process, or worker processes with
``--processes``) holds a random float64 array generated on the workers (``dask.array.random``),
persisted in ``chunks`` row chunks. Each case is timed ``repeats`` times, the contenders taking
turns, and the median wall time of one fit is printed with a quality figure (inertia, R², accuracy, mean Poisson deviance, explained variance ratio, EM bound)
for each (the SSE of each model's centres is computed by this script alike for all): lucidml.dask;
dask-ml (no Gaussian mixture there); the in-memory lucidml estimator on the computed array (the time
of the fit only, not of the gathering). Threads: BLAS is held to one thread
(``threadpoolctl``), as the workers are.
"""

import argparse
import statistics
import time
import warnings

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster
from threadpoolctl import threadpool_limits

import lucidml.dask as ld
from lucidml.cluster import KMeans
from lucidml.decomposition import PCA
from lucidml.linear import LinearRegression, LogisticRegression, PoissonRegressor
from lucidml.mixture import GaussianMixture


def _median_times(contenders, repeats):
    times = {name: [] for name in contenders}
    results = {}
    for _ in range(repeats):
        for name, fit in contenders.items():
            start = time.perf_counter()
            results[name] = fit()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}, results


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--processes", action="store_true")
    args = parser.parse_args(argv)
    import dask_ml.cluster
    import dask_ml.decomposition
    import dask_ml.linear_model

    n, d = args.rows, args.features
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=args.processes, dashboard_address=":0") as cluster, \
            Client(cluster), threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = da.random.RandomState(0)
        chunk = -(-n // args.chunks)
        centres = state.normal(size=(8, d), chunks=(8, d)).compute() * 4.0
        X = (state.normal(size=(n, d), chunks=(chunk, d)) + da.from_array(centres)[
            state.randint(0, 8, size=n, chunks=chunk)]).persist()
        w = np.linspace(-1.0, 1.0, d)
        y_reg = (X @ w + state.normal(size=n, chunks=chunk)).persist()
        y_cls = (y_reg > 0).astype(int).persist()
        y_cnt = state.poisson(da.exp(0.5 * (X @ w) / np.sqrt(d) / 4.0)).astype(float).persist()
        Xn, yn_reg, yn_cls, yn_cnt = X.compute(), y_reg.compute(), y_cls.compute(), y_cnt.compute()
        gm_start = {"weights_init": np.full(8, 1 / 8), "means_init": centres, "precisions_init": np.ones((8, d))}
        init = Xn[:8].copy()

        def inertia(model):
            """SSE of the data against the model's centres, computed here alike for every contender."""
            centres = np.asarray(model.cluster_centers_, dtype=np.float64)
            sq = (Xn**2).sum(axis=1)[:, None] - 2.0 * Xn @ centres.T + (centres**2).sum(axis=1)
            return float(np.maximum(sq.min(axis=1), 0.0).sum())

        def r2(model, Xs, ys):
            residual = ys - model.predict(Xs)
            return 1.0 - float((residual ** 2).sum() / ((ys - ys.mean()) ** 2).sum())

        def deviance(model):
            """Mean Poisson deviance of the counts, computed here alike for every contender."""
            mu = np.asarray(model.predict(Xn), dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                term = np.where(yn_cnt > 0, yn_cnt * np.log(yn_cnt / mu), 0.0)
            return float(2.0 * np.mean(term - (yn_cnt - mu)))

        def accuracy(model, Xs, ys):
            return float((model.predict(Xs) == ys).mean())

        print(f"rows={n} features={d} chunks={args.chunks} workers=2x1 thread "
              f"processes={args.processes}")
        print(f"{'case':<34}{'contender':<22}{'median s':>10}{'quality':>14}")
        cases = {
            "KMeans(8), same initial centres": (
                {"lucidml.dask": lambda: ld.KMeans(8, init=init, max_iter=100).fit(X),
                 "dask-ml": lambda: dask_ml.cluster.KMeans(8, init=init, max_iter=100).fit(X),
                 "lucidml in memory": lambda: KMeans(8, init=init, n_init=1, max_iter=100).fit(Xn)},
                lambda name, m: inertia(m)),
            "KMeans(8), own seeding": (
                {"lucidml.dask": lambda: ld.KMeans(8, random_state=0, max_iter=100).fit(X),
                 "dask-ml": lambda: dask_ml.cluster.KMeans(8, random_state=0, max_iter=100).fit(X),
                 "lucidml in memory": lambda: KMeans(8, random_state=0, n_init=1, max_iter=100).fit(Xn)},
                lambda name, m: inertia(m)),
            "LinearRegression": (
                {"lucidml.dask": lambda: ld.LinearRegression().fit(X, y_reg),
                 "dask-ml": lambda: dask_ml.linear_model.LinearRegression().fit(X, y_reg),
                 "lucidml in memory": lambda: LinearRegression().fit(Xn, yn_reg)},
                lambda name, m: r2(m.to_local() if name == "lucidml.dask" else m, Xn, yn_reg)),
            "LogisticRegression (L-BFGS)": (
                {"lucidml.dask": lambda: ld.LogisticRegression().fit(X, y_cls),
                 "dask-ml": lambda: dask_ml.linear_model.LogisticRegression(solver="lbfgs").fit(X, y_cls),
                 "lucidml in memory": lambda: LogisticRegression().fit(Xn, yn_cls)},
                lambda name, m: accuracy(m.to_local() if name == "lucidml.dask" else m, Xn, yn_cls)),
            "PoissonRegressor (L-BFGS)": (
                {"lucidml.dask": lambda: ld.PoissonRegressor(alpha=0.0).fit(X, y_cnt),
                 "dask-ml": lambda: dask_ml.linear_model.PoissonRegression(solver="lbfgs", C=1e10).fit(X, y_cnt),
                 "lucidml in memory": lambda: PoissonRegressor(alpha=0.0, solver="lbfgs").fit(Xn, yn_cnt)},
                lambda name, m: deviance(m.to_local() if name == "lucidml.dask" else m)),
            "PCA(5) (exact: TSQR / full SVD)": (
                {"lucidml.dask": lambda: ld.PCA(5).fit(X),
                 "dask-ml": lambda: dask_ml.decomposition.PCA(5, svd_solver="full").fit(X),
                 "lucidml in memory": lambda: PCA(5, svd_solver="full").fit(Xn)},
                lambda name, m: float(np.sum(m.explained_variance_ratio_))),
            "GaussianMixture(8,diag) same start": (
                {"lucidml.dask": lambda: ld.GaussianMixture(8, covariance_type="diag", **gm_start).fit(X),
                 "lucidml in memory": lambda: GaussianMixture(8, covariance_type="diag", **gm_start).fit(Xn)},
                lambda name, m: m.lower_bound_),
        }
        for case, (contenders, quality) in cases.items():
            times, models = _median_times(contenders, args.repeats)
            for name, seconds in times.items():
                print(f"{case:<34}{name:<22}{seconds:>10.3f}{quality(name, models[name]):>14.6g}")


if __name__ == "__main__":
    main()
