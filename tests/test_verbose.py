"""``verbose``: every long-running estimator prints its progress in the shared format of
``lucidml.utils._verbose`` to standard output, the numbers it prints are the ones it records, and
``verbose=0`` prints nothing."""

import re

import numpy as np
import pytest
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_iris,
    load_wine,
    make_moons,
    make_regression,
)

from lucidml.cluster import CLARA, CLARANS, BisectingKMeans, KMeans, KMedoids, SelfOrganizingMap
from lucidml.decomposition import PCA, FactorAnalysis, KernelPCA, LatentSemanticIndexing, TruncatedSVD
from lucidml.decomposition.ica import ICA
from lucidml.ensemble import (
    AdaBoostClassifier,
    BaggingRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
)
from lucidml.gam import GAMClassifier, GAMRegressor
from lucidml.kernels import KernelLMS
from lucidml.linear import (
    Adaline,
    ElasticNet,
    GLMRegressor,
    LADRegression,
    Lasso,
    LinearRegression,
    LogisticRegression,
    Perceptron,
    PoissonRegressor,
    SoftmaxRegression,
)
from lucidml.mixture import BernoulliMixture, GaussianMixture
from lucidml.model_selection import SequentialBackwardSelection, StepwiseSelection
from lucidml.neural import CNNClassifier, GCNClassifier, MLPClassifier
from lucidml.preprocessing import ModelImputer
from lucidml.rl import MDP, SARSA, MDPEnvironment, ModelBasedLearner, QLearning
from lucidml.svm import SVC, SVR, LinearSVC
from lucidml.utils import InvalidParameterError, IterationLog, StageTable

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

IRIS = load_iris(return_X_y=True)
CANCER = load_breast_cancer(return_X_y=True)
DIABETES = load_diabetes(return_X_y=True)
STAGE_ROW = re.compile(r"^ {0,9}\d+(?: +-?[\d.]+| +nan)* +\d+\.\d\d[sm]$")
ITERATION = re.compile(r"^Iteration (\d+)((?:, \w+ = \S+)+)$")


def stage_rows(text, n_columns):
    """The rows of a StageTable: {stage: [column values]} (Remaining Time left out)."""
    lines = text.splitlines()
    rows = {}
    for line in lines[1:]:
        assert STAGE_ROW.match(line), line
        cells = line.split()
        assert len(cells) == n_columns + 2, line
        rows[int(cells[0])] = [float(c) for c in cells[1:-1]]
    return lines[0], rows


def iterations(text, name):
    """{iteration: value of ``name``} from the ``Iteration t, name = v`` lines, in order."""
    out = []
    for line in text.splitlines():
        match = ITERATION.match(line)
        if match:
            values = dict(pair.split(" = ") for pair in match.group(2)[2:].split(", "))
            out.append((int(match.group(1)), float(values[name])))
    return out


def assert_iterations_match(text, name, history):
    """The ``Iteration t, name = v`` lines number 1, 2, … and print ``history`` (to 8 digits)."""
    printed = iterations(text, name)
    assert [t for t, _ in printed] == list(range(1, len(history) + 1))
    np.testing.assert_allclose([v for _, v in printed], history, rtol=1e-7)


# -- the shared helper ---------------------------------------------------------------------------
def test_stage_table_header_and_schedule(capsys):
    table = StageTable(1, 250, ["Train Loss"])
    for stage in range(1, 251):
        table.row(stage, 1.0 / stage)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "      Iter       Train Loss   Remaining Time"
    _, rows = stage_rows(out, 1)
    # verbose=1: stages 1–10, then every 10th up to 100, then every 100th
    assert list(rows) == [*range(1, 11), *range(20, 101, 10), 200]
    assert rows[20] == [0.05]


def test_stage_table_every_stage_and_silence(capsys):
    table = StageTable(2, 30, ["A", "B"], begin=5)
    for stage in range(6, 31):
        table.row(stage, stage, -stage)
    _, rows = stage_rows(capsys.readouterr().out, 2)
    assert list(rows) == list(range(6, 31)) and rows[7] == [7.0, -7.0]
    silent = StageTable(0, 30, ["A"])
    silent.row(1, 0.5)
    assert capsys.readouterr().out == ""


def test_iteration_log_lines(capsys):
    log = IterationLog(1)
    log.start(0)
    log.iteration(3, loss=0.123456789012, n_changed=4)
    log.converged(37, 1.2e-05, 1e-04)
    log.converged(5, reason="no label changed")
    log.stopped(9, "max_iter reached")
    log.summary("Run 0", n_iter=12)
    IterationLog(0).iteration(1, loss=1.0)
    assert capsys.readouterr().out.splitlines() == [
        "Initialization 0",
        "Iteration 3, loss = 0.12345679, n_changed = 4",
        "Converged at iteration 37: change 1.2e-05 < tol 0.0001",
        "Converged at iteration 5: no label changed",
        "Stopped at iteration 9: max_iter reached",
        "Run 0, n_iter = 12",
    ]


# -- ensembles: one StageTable row per stage / tree ---------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: GradientBoostingClassifier(n_estimators=12, verbose=2, random_state=0),  # log-loss: fused scores
    lambda: GradientBoostingRegressor(n_estimators=12, verbose=2, random_state=0),
])
def test_gradient_boosting_prints_train_score(make, capsys):
    X, y = CANCER if isinstance(make(), GradientBoostingClassifier) else DIABETES
    model = make().fit(X, y)
    header, rows = stage_rows(capsys.readouterr().out, 1)
    assert header.split() == ["Iter", "Train", "Loss", "Remaining", "Time"]
    assert list(rows) == list(range(1, 13))
    np.testing.assert_allclose([rows[i + 1][0] for i in range(12)], model.train_score_, atol=5e-5)


def test_gradient_boosting_subsample_prints_oob_improvement(capsys):
    X, y = DIABETES
    model = GradientBoostingRegressor(n_estimators=25, subsample=0.5, verbose=1, random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert "OOB Improve" in out.splitlines()[0]
    _, rows = stage_rows(out, 2)
    assert list(rows) == [*range(1, 11), 20]
    for stage, (train, oob) in rows.items():
        assert train == pytest.approx(model.train_score_[stage - 1], abs=5e-5)
        assert oob == pytest.approx(model.oob_improvement_[stage - 1], abs=5e-5)


def test_gradient_boosting_warm_start_continues_numbering(capsys):
    X, y = DIABETES
    model = GradientBoostingRegressor(n_estimators=5, warm_start=True, random_state=0).fit(X, y)
    model.set_params(n_estimators=8, verbose=2).fit(X, y)
    _, rows = stage_rows(capsys.readouterr().out, 1)
    assert list(rows) == [6, 7, 8]
    assert rows[8][0] == pytest.approx(model.train_score_[7], abs=5e-5)


def test_adaboost_prints_errors_and_weights(capsys):
    X, y = CANCER
    model = AdaBoostClassifier(n_estimators=8, verbose=2, random_state=0).fit(X, y)
    header, rows = stage_rows(capsys.readouterr().out, 2)
    assert list(rows) == list(range(1, len(model.estimators_) + 1))
    for stage, (error, weight) in rows.items():
        assert error == pytest.approx(model.estimator_errors_[stage - 1], abs=5e-5)
        assert weight == pytest.approx(model.estimator_weights_[stage - 1], abs=5e-5)


@pytest.mark.parametrize("make, data", [
    (lambda: RandomForestClassifier(n_estimators=15, verbose=1, n_jobs=2, random_state=0), CANCER),
    (lambda: BaggingRegressor(n_estimators=4, verbose=2, random_state=0), DIABETES),
])
def test_forests_print_a_row_per_member(make, data, capsys):
    model = make().fit(*data)
    header, rows = stage_rows(capsys.readouterr().out, 0)
    expected = list(range(1, 11)) if model.n_estimators > 10 else list(range(1, model.n_estimators + 1))
    assert list(rows)[:len(expected)] == expected
    assert len(model.estimators_) == model.n_estimators


@pytest.mark.parametrize("agent", [QLearning, SARSA])
def test_tabular_agents_print_each_episode(agent, capsys):
    rng = np.random.default_rng(0)
    mdp = MDP(rng.dirichlet(np.ones(4), size=(4, 2)), rng.normal(size=(4, 2)), 0.9)
    env = MDPEnvironment(mdp, start=0, terminal=(), max_steps=20, random_state=1)
    model = agent(n_episodes=30, epsilon=0.5, epsilon_decay=0.9, verbose=1, random_state=0).fit(env)
    header, rows = stage_rows(capsys.readouterr().out, 2)
    assert header.split() == ["Iter", "Return", "Epsilon", "Remaining", "Time"]
    assert list(rows) == [*range(1, 11), 20, 30]
    for episode, (ret, epsilon) in rows.items():
        assert ret == pytest.approx(model.episode_returns_[episode - 1], abs=5e-5)
        assert epsilon == pytest.approx(0.5 * 0.9 ** (episode - 1), abs=5e-5)
    with pytest.raises(ValueError, match="verbose"):
        agent(n_episodes=2, verbose=-1).fit(env)
    agent(n_episodes=3, random_state=0).fit(env)
    assert capsys.readouterr().out == ""


# -- iterative solvers: IterationLog ----------------------------------------------------------------
def test_gaussian_mixture_prints_lower_bounds(capsys):
    model = GaussianMixture(3, verbose=2, random_state=0).fit(IRIS[0])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Initialization 0"
    assert re.match(r"^Converged at iteration \d+: change \S+ < tol 0.001$", lines[-1])
    assert len(model.lower_bounds_) == model.n_iter_
    assert_iterations_match(out, "lower_bound", model.lower_bounds_)


def test_em_verbose_1_prints_starts_and_ends_only(capsys):
    BernoulliMixture(2, n_init=2, verbose=1, max_iter=3, tol=0, random_state=0).fit(IRIS[0] > 3)
    assert capsys.readouterr().out.splitlines() == [
        "Initialization 0", "Stopped at iteration 3: max_iter reached",
        "Initialization 1", "Stopped at iteration 3: max_iter reached",
    ]


def test_factor_analysis_prints_loglike(capsys):
    model = FactorAnalysis(2, verbose=2).fit(IRIS[0])
    printed = iterations(capsys.readouterr().out, "loglike")
    np.testing.assert_allclose([v for _, v in printed], model.loglike_, rtol=1e-7)


def test_kmeans_prints_every_lloyd_pass(capsys):
    model = KMeans(3, n_init=1, verbose=1, random_state=0).fit(IRIS[0])
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Initialization 0"
    assert out.splitlines()[-1] == f"Converged at iteration {model.n_iter_}: no label changed"
    assert len(model.loss_curve_) == model.n_iter_
    assert_iterations_match(out, "inertia", model.loss_curve_)


def test_bisecting_kmeans_prints_each_split(capsys):
    model = BisectingKMeans(4, verbose=1, random_state=0).fit(IRIS[0])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for s, line in enumerate(lines, start=1):
        match = re.match(rf"^Bisection {s}, n_clusters = {s + 1}, inertia = (\S+)$", line)
        assert match, line
        assert float(match.group(1)) == pytest.approx(model.loss_curve_[s], rel=1e-7)


@pytest.mark.parametrize("solver", ["adam", "lbfgs"])
def test_mlp_prints_loss_curve(solver, capsys):
    model = MLPClassifier((5,), solver=solver, max_iter=6, verbose=1, random_state=0).fit(*IRIS)
    printed = iterations(capsys.readouterr().out, "loss")
    assert [t for t, _ in printed] == list(range(1, len(model.loss_curve_) + 1))
    np.testing.assert_allclose([v for _, v in printed], model.loss_curve_, rtol=1e-7)


def test_gam_regressor_prints_every_sweep(capsys):
    X, y = DIABETES
    model = GAMRegressor(smoother="linear", verbose=1).fit(X[:, :3], y)
    out = capsys.readouterr().out
    assert len(model.loss_curve_) == model.n_iter_
    assert_iterations_match(out, "loss", model.loss_curve_)
    assert out.splitlines()[-1].startswith(f"Converged at iteration {model.n_iter_}: relative change ")


def test_ica_prints_every_epoch(capsys):
    model = ICA(max_iter=4, verbose=1, random_state=0).fit(IRIS[0])
    out = capsys.readouterr().out
    printed = iterations(out, "loss")
    np.testing.assert_allclose([v for _, v in printed], model.loss_curve_, rtol=1e-7)
    assert out.splitlines()[-1] == "Stopped at iteration 4: max_iter reached"


def test_self_organizing_map_prints_batch_epochs_and_online_summary(capsys):
    batch = SelfOrganizingMap((3, 3), batch=True, n_iter=6, verbose=1, random_state=0).fit(IRIS[0])
    printed = iterations(capsys.readouterr().out, "quantization_error")
    assert [t for t, _ in printed] == list(range(1, 7))
    np.testing.assert_allclose([v for _, v in printed], batch.loss_curve_, rtol=1e-7)
    online = SelfOrganizingMap((3, 3), n_iter=500, verbose=1, random_state=0).fit(IRIS[0])
    line, = capsys.readouterr().out.splitlines()
    match = re.match(r"^Online training, n_iter = 500, quantization_error = (\S+)$", line)
    assert match and float(match.group(1)) == pytest.approx(online.loss_curve_[-1], rel=1e-7)


def test_cnn_prints_loss_curve(capsys):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    model = CNNClassifier(filters=(2,), max_iter=2, verbose=1, random_state=0).fit(X[:200] / 16, y[:200])
    printed = iterations(capsys.readouterr().out, "loss")
    assert [t for t, _ in printed] == [1, 2]
    np.testing.assert_allclose([v for _, v in printed], model.loss_curve_, rtol=1e-7)


def test_gcn_prints_loss_curve(capsys):
    X = np.eye(6)
    y = np.array([0, -1, -1, 1, -1, -1])
    A = np.zeros((6, 6))
    for i, j in [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)]:
        A[i, j] = A[j, i] = 1
    model = GCNClassifier(max_iter=5, verbose=1, random_state=0).fit(X, y, adjacency=A)
    printed = iterations(capsys.readouterr().out, "loss")
    np.testing.assert_allclose([v for _, v in printed], model.loss_curve_, rtol=1e-7)


@pytest.mark.parametrize("model", [Lasso(0.01, verbose=1), ElasticNet(0.01, l1_ratio=0.5, verbose=2)])
def test_coordinate_descent_prints_every_sweep(model, capsys):
    model.fit(*DIABETES)
    out = capsys.readouterr().out
    assert len(model.loss_curve_) == model.n_iter_
    assert_iterations_match(out, "objective", model.loss_curve_)
    assert re.match(rf"^Converged at iteration {model.n_iter_}: duality gap \S+ < tol \S+$", out.splitlines()[-1])


def test_gam_classifier_prints_every_local_scoring_iteration(capsys):
    X, y = make_moons(200, noise=0.2, random_state=0)
    model = GAMClassifier(verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert len(model.loss_curve_) == model.n_iter_
    assert_iterations_match(out, "deviance", model.loss_curve_)
    assert re.match(rf"^Converged at iteration {model.n_iter_}: relative deviance change \S+ < tol 1e-05$",
                    out.splitlines()[-1])


def test_gam_classifier_one_vs_rest_prints_each_problem(capsys):
    model = GAMClassifier(smoother="linear", max_iter=3, verbose=1).fit(*IRIS)
    lines = capsys.readouterr().out.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Problem")]
    assert [lines[i] for i in starts] == [f"Problem class {k} vs rest" for k in range(3)]
    for k, (begin, end) in enumerate(zip(starts, [*starts[1:], len(lines)])):
        printed = iterations("\n".join(lines[begin:end]), "deviance")
        np.testing.assert_allclose([v for _, v in printed], model.loss_curve_[k], rtol=1e-7)


@pytest.mark.parametrize("make, n_iter", [
    (lambda: PCA(5, svd_solver="randomized", iterated_power=3, verbose=1, random_state=0), 3),
    (lambda: TruncatedSVD(5, n_iter=4, verbose=1, random_state=0), 4),
])
def test_randomized_svd_prints_each_power_iteration_and_a_summary(make, n_iter, capsys):
    X = load_digits(return_X_y=True)[0]
    model = make().fit(X)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:-1] == [f"Iteration {t}" for t in range(1, n_iter + 1)]
    match = re.match(r"^(?:Solver|Algorithm) randomized, n_components = 5(?:, n_iter = (\d+))?, "
                     r"explained_variance_ratio = (\S+)$", lines[-1])
    assert match, lines[-1]
    if match.group(1) is not None:
        assert int(match.group(1)) == model.n_iter_ == n_iter
    assert float(match.group(2)) == pytest.approx(model.explained_variance_ratio_.sum(), rel=1e-7)


def test_pca_direct_solver_prints_one_summary(capsys):
    model = PCA(2, svd_solver="full", verbose=1).fit(IRIS[0])
    line, = capsys.readouterr().out.splitlines()
    assert line == ("Solver full, n_components = 2, n_iter = 1, explained_variance_ratio = "
                    f"{model.explained_variance_ratio_.sum():.8g}")


def test_model_based_learner_prints_each_round(capsys):
    mdp = MDP.grid_world()
    env = MDPEnvironment(mdp, start=8, max_steps=50, random_state=0)
    model = ModelBasedLearner(n_rounds=4, episodes_per_round=5, epsilon=0.2, verbose=1, random_state=0).fit(env)
    header, rows = stage_rows(capsys.readouterr().out, 2)
    assert header.split() == ["Iter", "Mean", "Return", "Epsilon", "Remaining", "Time"]
    assert list(rows) == [1, 2, 3, 4]
    returns = np.reshape(model.episode_returns_, (4, 5)).mean(axis=1)
    for round_, (mean_return, epsilon) in rows.items():
        assert mean_return == pytest.approx(returns[round_ - 1], abs=5e-5)
        assert epsilon == (1.0 if round_ == 1 else 0.2)
    with pytest.raises(ValueError, match="verbose"):
        ModelBasedLearner(n_rounds=1, verbose=-1).fit(env)
    ModelBasedLearner(n_rounds=2, episodes_per_round=2, random_state=0).fit(env)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("make, data", [
    (lambda: Perceptron(max_iter=6, shuffle=True, verbose=1, random_state=0), IRIS),
    (lambda: Adaline(standardize=True, max_iter=7, verbose=1, random_state=0), CANCER),
    (lambda: KernelLMS(gamma=0.1, max_iter=8, verbose=1), (DIABETES[0][:80], DIABETES[1][:80])),
])
def test_epoch_learners_print_every_epoch(make, data, capsys):
    model = make().fit(*data)
    out = capsys.readouterr().out
    assert len(model.loss_curve_) == model.n_iter_
    assert_iterations_match(out, "loss", model.loss_curve_)
    assert re.match(rf"^(Converged|Stopped) at iteration {model.n_iter_}: ", out.splitlines()[-1])


@pytest.mark.parametrize("make", [
    lambda: PoissonRegressor(alpha=0.1, solver="newton", verbose=1),
    lambda: PoissonRegressor(alpha=0.1, solver="lbfgs", max_iter=6, verbose=1),
    lambda: GLMRegressor(family="gamma", link="log", solver="gd", max_iter=4, verbose=1),
])
def test_glms_print_every_iteration(make, capsys):
    model = make().fit(*DIABETES)
    out = capsys.readouterr().out
    assert len(model.loss_curve_) == model.n_iter_
    assert_iterations_match(out, "loss", model.loss_curve_)
    assert re.match(rf"^(Converged|Stopped) at iteration {model.n_iter_}: ", out.splitlines()[-1])


@pytest.mark.parametrize("solver, first", [("irls", 1), ("subgradient", 0)])
def test_lad_regression_prints_every_iteration(solver, first, capsys):
    model = LADRegression(solver=solver, max_iter=40, verbose=1).fit(*DIABETES)
    out = capsys.readouterr().out
    assert_iterations_match(out, "loss", model.loss_curve_[first:])  # irls: loss_curve_[0] is the start
    assert re.match(rf"^(Converged|Stopped) at iteration {model.n_iter_}: ", out.splitlines()[-1])
    model = LADRegression(solver="lp", verbose=1).fit(*DIABETES)
    line, = capsys.readouterr().out.splitlines()
    assert line == f"Linear program, n_iter = {model.n_iter_}, loss = {model.loss_curve_[0]:.8g}"


@pytest.mark.parametrize("solver", ["gd", "sgd"])
def test_iterative_least_squares_prints_every_step(solver, capsys):
    model = LinearRegression(solver=solver, max_iter=12, verbose=1, random_state=0).fit(*DIABETES)
    out = capsys.readouterr().out
    assert len(model.loss_curve_) == model.n_iter_
    assert_iterations_match(out, "loss", model.loss_curve_)
    assert out.splitlines()[-1] == f"Stopped at iteration {model.n_iter_}: max_iter=12 reached"
    LinearRegression(verbose=1).fit(*DIABETES)  # one direct solve: nothing to report
    assert capsys.readouterr().out == ""


def test_perceptron_stops_after_a_mistake_free_epoch_and_says_so(capsys):
    X = np.array([[0.0, 0.0], [0.0, 1.0], [3.0, 0.0], [3.0, 1.0]])
    model = Perceptron(max_iter=50, verbose=1).fit(X, [0, 0, 1, 1])
    assert model.n_iter_ < 50
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"Converged at iteration {model.n_iter_}: every problem met its stopping rule")


def test_feature_selectors_print_every_move(capsys):
    X, y = load_wine(return_X_y=True)
    sbs = SequentialBackwardSelection(k_features=10, cv=3, verbose=1).fit(X, y)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == len(sbs.subsets_) - 1 == 3
    for t, line in enumerate(printed, start=1):
        removed = (set(sbs.subsets_[t - 1]) - set(sbs.subsets_[t])).pop()
        match = re.match(rf"^Iteration {t}, removed = {removed}, n_features = {len(sbs.subsets_[t])}, score = (\S+)$",
                         line)
        assert match, line
        assert float(match.group(1)) == pytest.approx(sbs.scores_[t], rel=1e-7)

    X, y = make_regression(n_samples=80, n_features=6, n_informative=2, noise=1.0, shuffle=False, random_state=0)
    stepwise = StepwiseSelection(tol=1e-3, cv=3, verbose=1).fit(X, y)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == len(stepwise.moves_) == 2
    for t, (line, (move, feature), subset, score) in enumerate(
            zip(printed, stepwise.moves_, stepwise.subsets_, stepwise.scores_), start=1):
        match = re.match(rf"^Iteration {t}, {move} = {feature}, n_features = {len(subset)}, score = (\S+)$", line)
        assert match, line
        assert float(match.group(1)) == pytest.approx(score, rel=1e-7)


def test_kernel_pca_prints_power_iterations_and_a_summary(capsys):
    X = load_digits(return_X_y=True)[0][:300]
    model = KernelPCA(5, kernel="rbf", eigen_solver="randomized", iterated_power=3, verbose=1, random_state=0).fit(X)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:-1] == ["Iteration 1", "Iteration 2", "Iteration 3"]
    match = re.match(r"^Solver randomized, n_components = 5, largest_eigenvalue = (\S+)$", lines[-1])
    assert match and float(match.group(1)) == pytest.approx(model.eigenvalues_[0], rel=1e-7)


def test_model_imputer_prints_every_round(capsys):
    X = DIABETES[0].copy()
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    model = ModelImputer(max_iter=4, verbose=1).fit(X)
    out = capsys.readouterr().out
    assert len(model.changes_) == model.n_iter_
    assert_iterations_match(out, "change", model.changes_)
    assert out.splitlines()[-1] == "Stopped at iteration 4: max_iter reached"


def test_lsi_prints_power_iterations_and_a_summary(capsys):
    X = load_digits(return_X_y=True)[0]
    model = LatentSemanticIndexing(5, n_iter=3, verbose=1, random_state=0).fit(X)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:-1] == ["Iteration 1", "Iteration 2", "Iteration 3"]
    match = re.match(r"^Algorithm randomized, n_components = 5, largest_singular_value = (\S+)$", lines[-1])
    assert match and float(match.group(1)) == pytest.approx(model.singular_values_[0], rel=1e-7)


def summaries(text, label):
    """[(number after ``label``, {name: value})] from lines ``label i, name = v, …`` (or ``label name, …``)."""
    out = []
    for line in text.splitlines():
        head, *pairs = line.split(", ")
        assert head.startswith(label), line
        out.append((head[len(label):].strip(), {k: float(v) for k, v in (pair.split(" = ") for pair in pairs)}))
    return out


def test_k_medoids_clara_clarans_print_their_searches(capsys):
    X = IRIS[0]
    pam = KMedoids(3, verbose=1).fit(X)
    (method, values), = summaries(capsys.readouterr().out, "Method")
    assert method == "pam" and values["n_iter"] == pam.n_iter_
    assert values["cost"] == pytest.approx(pam.loss_curve_[-1], rel=1e-7)

    clara = CLARA(3, n_samples=4, verbose=1, random_state=0).fit(X)
    printed = summaries(capsys.readouterr().out, "Sample")
    assert [int(i) for i, _ in printed] == [0, 1, 2, 3]
    np.testing.assert_allclose([v["cost"] for _, v in printed], clara.sample_costs_, rtol=1e-7)

    clarans = CLARANS(3, numlocal=3, verbose=1, random_state=0).fit(X)
    printed = summaries(capsys.readouterr().out, "Local search")
    assert [int(i) for i, _ in printed] == [0, 1, 2]
    np.testing.assert_allclose([v["cost"] for _, v in printed], clarans.local_costs_, rtol=1e-7)
    best = int(np.argmin(clarans.local_costs_))
    assert printed[best][1]["n_moves"] == clarans.n_iter_


# -- solvers that return before anything is printed: one summary line per problem ----------------------
@pytest.mark.parametrize("model, labels", [
    (LogisticRegression(multi_class="ovr", verbose=1), ["class 0 vs rest", "class 1 vs rest", "class 2 vs rest"]),
    (LogisticRegression(verbose=1, max_iter=300), ["multinomial"]),
    (SoftmaxRegression(verbose=1, max_iter=300), ["multinomial"]),
])
def test_log_loss_models_print_a_line_per_problem(model, labels, capsys):
    model.fit(*IRIS)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(labels)
    for line, label, n_iter in zip(lines, labels, np.atleast_1d(model.n_iter_)):
        match = re.match(rf"^Problem {label}, n_iter = (\d+), loss = (\S+)$", line)
        assert match, line
        assert int(match.group(1)) == n_iter
    # loss_curve_ is the (first) problem's: its last entry is the loss printed on the first line
    first = re.match(r".*loss = (\S+)$", lines[0]).group(1)
    assert float(first) == pytest.approx(model.loss_curve_[-1], rel=1e-7)


# -- compiled solvers: one summary line after the kernel ----------------------------------------------
def test_svc_prints_one_line_per_sub_problem(capsys):
    model = SVC(verbose=1).fit(*IRIS)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for t, (line, pair) in enumerate(zip(lines, ["0 vs 1", "0 vs 2", "1 vs 2"])):
        match = re.match(rf"^Sub-problem {t} \({pair}\), n_iter = (\d+), objective = (\S+), n_support = \d+$", line)
        assert match, line
        assert int(match.group(1)) == model.n_iter_[t]
        assert float(match.group(2)) == pytest.approx(model.loss_curve_[t][-1], rel=1e-7)


@pytest.mark.parametrize("dual", [True, False])
def test_linear_svc_prints_one_line_per_class(dual, capsys):
    model = LinearSVC(dual=dual, verbose=1).fit(*IRIS)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in lines] == ["Problem 0", "Problem 1", "Problem 2"]
    assert max(int(re.search(r"n_iter = (\d+)", line).group(1)) for line in lines) == model.n_iter_


def test_svr_prints_one_line(capsys):
    model = SVR(verbose=1).fit(*DIABETES)
    line, = capsys.readouterr().out.splitlines()
    assert line.startswith(f"SMO, n_iter = {model.n_iter_}, objective = ")
    assert line.endswith(f"n_support = {model.n_support_[0]}")


# -- verbose=0 (the default) and bad values -----------------------------------------------------------
SILENT = [
    (lambda: GradientBoostingRegressor(n_estimators=5), DIABETES),
    (lambda: RandomForestClassifier(n_estimators=5), CANCER),
    (lambda: BaggingRegressor(n_estimators=3), DIABETES),
    (lambda: AdaBoostClassifier(n_estimators=5), CANCER),
    (lambda: GaussianMixture(2, random_state=0), IRIS),
    (lambda: FactorAnalysis(2), IRIS),
    (lambda: KMeans(3, n_init=2, random_state=0), IRIS),
    (lambda: BisectingKMeans(3, random_state=0), IRIS),
    (lambda: MLPClassifier((4,), max_iter=3, random_state=0), IRIS),
    (lambda: SVC(), IRIS),
    (lambda: SVR(), DIABETES),
    (lambda: Lasso(0.01), DIABETES),
    (lambda: GAMRegressor(smoother="linear"), DIABETES),
    (lambda: SelfOrganizingMap((3, 3), batch=True, n_iter=5, random_state=0), IRIS),
    (lambda: LinearSVC(), IRIS),
    (lambda: ICA(max_iter=3, random_state=0), IRIS),
    (lambda: LogisticRegression(max_iter=300), IRIS),
    (lambda: SoftmaxRegression(max_iter=300), IRIS),
    (lambda: GAMClassifier(smoother="linear", max_iter=5), IRIS),
    (lambda: PCA(2, svd_solver="randomized", random_state=0), IRIS),
    (lambda: TruncatedSVD(2, random_state=0), IRIS),
    (lambda: KMedoids(3), IRIS),
    (lambda: CLARA(3, n_samples=2, random_state=0), IRIS),
    (lambda: CLARANS(3, random_state=0), IRIS),
    (lambda: Perceptron(max_iter=3), IRIS),
    (lambda: Adaline(max_iter=3, standardize=True, random_state=0), CANCER),
    (lambda: KernelLMS(max_iter=3), DIABETES),
    (lambda: SequentialBackwardSelection(k_features=3, cv=2), IRIS),
    (lambda: StepwiseSelection(cv=2), IRIS),
    (lambda: LatentSemanticIndexing(2, random_state=0), (IRIS[0],)),
    (lambda: PoissonRegressor(solver="lbfgs", max_iter=5), DIABETES),
    (lambda: LADRegression(max_iter=5), DIABETES),
    (lambda: LinearRegression(solver="sgd", max_iter=3, random_state=0), DIABETES),
    (lambda: KernelPCA(2, eigen_solver="randomized", random_state=0), IRIS),
]


@pytest.mark.parametrize("make, data", SILENT)
def test_verbose_0_prints_nothing(make, data, capsys):
    model = make()
    assert model.get_params()["verbose"] in (0, False)
    model.fit(*data)
    captured = capsys.readouterr()
    assert captured.out == ""


@pytest.mark.parametrize("make, data", SILENT[:4] + SILENT[6:8] + SILENT[9:])
def test_verbose_must_be_a_non_negative_int(make, data):
    with pytest.raises(InvalidParameterError, match="verbose"):
        make().set_params(verbose=-1).fit(*data)
