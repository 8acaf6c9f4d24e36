"""lucidml.dask beside dask-ml and beside the in-memory lucidml estimator, on one Dask cluster.

``python -m benchmarks.dask_fit [--rows 400000] [--features 20] [--chunks 8] [--repeats 3] [--processes]``.
A LocalCluster of 2 workers × 1 thread (threads in this process, or worker processes with
``--processes``) holds a random float64 array generated on the workers (``dask.array.random``),
persisted in ``chunks`` row chunks. Each case is timed ``repeats`` times, the contenders taking
turns, and the median wall time of one fit is printed with a quality figure (inertia, R², accuracy,
mean Poisson deviance, explained variance ratio, EM bound) for each (the SSE of each model's
centres is computed by this script alike for all): lucidml.dask; dask-ml (no Gaussian mixture
there); the in-memory lucidml estimator on the computed array (the time of the fit only, not of
the gathering). Threads: BLAS is held to one thread (``threadpoolctl``), as the workers are.

``--boosting`` runs the gradient-boosting rows instead, on worker processes (LightGBM's Dask
interface needs them): a binary problem on the same kind of data (``--rows`` × ``--features``),
persisted, fitted with 100 depth-3 trees, learning rate 0.1, 255 bins, no L2 penalty and a
minimum child hessian of 10⁻³ by lucidml.dask (second-order gain, ``criterion="newton"``),
``xgboost.dask`` (``tree_method="hist"``), LightGBM's ``DaskLGBMClassifier`` (8 leaves, depth 3)
and the in-memory lucidml estimator, one thread per worker for each; quality = training accuracy.
``--direct-to-workers`` makes the client with ``direct_to_workers=True`` (for every contender).
``--out-of-memory`` adds a fit of every lucidml.dask estimator on data generated lazily on the
workers and never persisted by the script, larger than one worker's memory limit (``--memory-limit``,
default 1 GB per worker, and ``--big-rows`` rows; the iterative estimators, which persist X for
their passes, stop after a few iterations): it prints the data size and, per estimator, the time
and the workers' largest memory use seen while the fit ran (and the boosting model's training
accuracy, computed lazily). ``--models GaussianNB,GB,...`` limits it to the estimators whose row
names begin with those words.
"""

import argparse
import statistics
import time
import warnings

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster
from threadpoolctl import threadpool_limits

import lucidml
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
    parser.add_argument("--boosting", action="store_true")
    parser.add_argument("--out-of-memory", action="store_true")
    parser.add_argument("--big-rows", type=int, default=8_000_000)
    parser.add_argument("--models", default=None,
                        help="with --out-of-memory: only the estimators whose names begin with these (comma-separated)")
    parser.add_argument("--memory-limit", default="1GB")
    parser.add_argument("--direct-to-workers", action="store_true",
                        help="make the client with direct_to_workers=True (calls to the workers skip the scheduler)")
    args = parser.parse_args(argv)
    if args.boosting or args.out_of_memory:
        return boosting(args)
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


def _boosters(lucid_class, memory_class):
    """The contenders' estimators with the same settings (see the module docstring)."""
    import lightgbm
    import xgboost.dask

    common = {"n_estimators": 100, "learning_rate": 0.1}
    ours = {**common, "max_depth": 3, "max_bins": 255, "criterion": "newton", "random_state": 0}
    return {
        "lucidml.dask": lambda: lucid_class(**ours),
        "xgboost.dask": lambda: xgboost.dask.DaskXGBClassifier(**common, max_depth=3, tree_method="hist", max_bin=256,
                                                               reg_lambda=0.0, min_child_weight=1e-3, n_jobs=1),
        "lightgbm.dask": lambda: lightgbm.DaskLGBMClassifier(**common, max_depth=3, num_leaves=8, max_bin=255,
                                                             reg_lambda=0.0, min_child_weight=1e-3,
                                                             min_child_samples=1, n_jobs=1, verbose=-1),
        "lucidml in memory": lambda: memory_class(**ours),
    }


def _peak_memory(client, stop, peaks):
    """Sample the workers' memory (RSS) every 0.2 s until ``stop`` is set; keep each one's largest."""
    while not stop.is_set():
        for address, info in client.scheduler_info()["workers"].items():
            peaks[address] = max(peaks.get(address, 0), info["metrics"]["memory"])
        stop.wait(0.2)


def _cluster(memory_limit):
    """Two worker processes of one thread each (LightGBM's Dask interface needs processes)."""
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                        memory_limit=memory_limit)


def boosting(args):
    """The gradient-boosting rows (``--boosting``) and the larger-than-memory fit (``--out-of-memory``),
    each on a cluster of its own."""
    print(f"{'case':<34}{'contender':<22}{'median s':>10}{'quality':>14}")
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.boosting:
            with _cluster("auto") as cluster, Client(cluster, direct_to_workers=args.direct_to_workers):
                _boosting_rows(args)
        if args.out_of_memory:
            with _cluster(args.memory_limit) as cluster, Client(cluster) as client:
                _out_of_memory(args, client)


def _boosting_rows(args):
    from lucidml.ensemble import GradientBoostingClassifier

    n, d = args.rows, args.features
    w = np.linspace(-1.0, 1.0, d)
    state = da.random.RandomState(0)
    chunk = -(-n // args.chunks)
    X = state.normal(size=(n, d), chunks=(chunk, d)).persist()
    y = ((X[:, :4] ** 2).sum(axis=1) - 4.0 + X @ w + state.normal(size=n, chunks=chunk) > 0).astype(int)
    y = y.persist()
    Xn, yn = X.compute(), y.compute()
    contenders = _boosters(ld.GradientBoostingClassifier, GradientBoostingClassifier)
    small = (X[:20_000].rechunk((5000, d)), y[:20_000].rechunk(5000))
    for name, make in contenders.items():  # compile and load every kernel first, in every process
        make().set_params(n_estimators=2).fit(*((Xn[:20_000], yn[:20_000]) if name.endswith("memory")
                                                else small))

    def fit(make, name):
        if name.endswith("memory"):  # one thread, as each worker has
            with lucidml.config_context(n_threads=1):
                return make().fit(Xn, yn)
        return make().fit(X, y)

    fits = {name: (lambda make=make, name=name: fit(make, name)) for name, make in contenders.items()}
    times, models = _median_times(fits, args.repeats)
    for name, seconds in times.items():
        model = models[name]
        predicted = model.predict(Xn) if name.endswith("memory") else model.predict(X).compute()
        print(f"{'GradientBoosting, 100 trees d=3':<34}{name:<22}{seconds:>10.3f}"
              f"{float((np.asarray(predicted) == yn).mean()):>14.6g}")


def _watched(client, fit):
    """(seconds, largest worker memory seen in bytes) of ``fit()``, the workers sampled while it runs."""
    import threading

    stop, peaks = threading.Event(), {}
    sampler = threading.Thread(target=_peak_memory, args=(client, stop, peaks))
    sampler.start()
    start = time.perf_counter()
    try:
        fit()
    finally:
        seconds = time.perf_counter() - start
        stop.set()
        sampler.join()
    return seconds, max(peaks.values(), default=0)


def _out_of_memory_models():
    """Every lucidml.dask estimator, as fitted on the larger-than-memory data: (name, make, target).
    The iterative ones stop after a few iterations (each is one more pass over X)."""
    return [
        ("GaussianNB", ld.GaussianNB, "class"),
        ("LinearDiscriminantAnalysis", ld.LinearDiscriminantAnalysis, "class"),
        ("QuadraticDiscriminantAnalysis", ld.QuadraticDiscriminantAnalysis, "class"),
        ("LinearRegression", ld.LinearRegression, "value"),
        ("Ridge", ld.Ridge, "value"),
        ("PCA(5)", lambda: ld.PCA(5), None),
        ("TruncatedSVD(5)", lambda: ld.TruncatedSVD(5), None),
        ("KMeans(8), 10 iterations", lambda: ld.KMeans(8, max_iter=10, random_state=0), None),
        ("GaussianMixture(4, diag), 5 it.",
         lambda: ld.GaussianMixture(4, covariance_type="diag", max_iter=5, random_state=0), None),
        ("LogisticRegression, 10 it.", lambda: ld.LogisticRegression(max_iter=10), "class"),
        ("SoftmaxRegression, 10 it.", lambda: ld.SoftmaxRegression(max_iter=10), "class"),
        ("PoissonRegressor, 10 it.", lambda: ld.PoissonRegressor(max_iter=10), "count"),
        ("GB 20 trees d=3", lambda: ld.GradientBoostingClassifier(n_estimators=20, max_depth=3, criterion="newton"),
         "class"),
    ]


def _out_of_memory(args, client):
    """Each lucidml.dask estimator on data generated lazily on the workers (never persisted by this
    script; the iterative fits persist X themselves, so the cluster must hold it once)."""
    d = args.features
    w = np.linspace(-1.0, 1.0, d)
    m = args.big_rows
    chunk = -(-m // (4 * args.chunks))
    state = da.random.RandomState(1)
    X = state.normal(size=(m, d), chunks=(chunk, d))  # lazy: generated on the workers, never persisted
    score = X @ w + state.normal(size=m, chunks=chunk)
    targets = {"value": score, "class": ((X[:, :4] ** 2).sum(axis=1) - 4.0 + score > 0).astype(int),
               "count": da.floor(da.exp(0.1 * score))}
    limits = [info["memory_limit"] for info in client.scheduler_info()["workers"].values()]
    print(f"  X: {m} x {d} float64 = {X.nbytes / 1e9:.2f} GB, generated lazily in {X.npartitions} chunks; "
          f"worker memory limit {min(limits) / 1e9:.2f} GB each")
    print(f"{'estimator, data > worker memory':<34}{'seconds':>10}{'largest worker GB':>20}{'quality':>14}")
    small = slice(0, 20_000)
    chosen = None if args.models is None else tuple(args.models.split(","))
    for name, make, target in _out_of_memory_models():
        if chosen is not None and not name.startswith(chosen):
            continue
        y = targets[target] if target else None
        args_small = (X[small].rechunk((5000, d)),) + ((y[small].rechunk(5000),) if target else ())
        make().fit(*args_small)  # compiles and loads every kernel on the workers first
        fitted = []
        seconds, peak = _watched(client, lambda: fitted.append(make().fit(X, y) if target else make().fit(X)))
        quality = ""
        if name.startswith("GB"):  # training accuracy, computed lazily
            quality = f"{float((fitted[0].predict(X) == y).mean().compute()):.6g}"
        print(f"{name:<34}{seconds:>10.1f}{peak / 1e9:>20.2f}{quality:>14}")


if __name__ == "__main__":
    main()
