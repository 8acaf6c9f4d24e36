"""Saving and loading gives back the same model, bit for bit, for everything a .lucid file holds."""

import pickle
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import LabelEncoder, MinMaxScaler, OneHotEncoder, OrdinalEncoder, StandardScaler

import lucidml
from lucidml.datasets import load
from lucidml.io import inspect
from lucidml.linear import LogisticRegression
from lucidml.registry import REGISTRY

METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "transform", "score_samples")


def _data(kind):
    X, y = load("diabetes" if kind == "regressor" else "wine")
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))  # [0, 1]: fine for every model
    return X, y


def _fitted(entry):
    """(X, the entry's estimator fitted on it) with the registry's comparison parameters."""
    X, y = _data(entry.kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a short fit is enough to save
        return X, entry.make().fit(X, y)


def _outputs(model, X):
    """Everything the model answers about X (a copy: X @ X_fit.T on the training array itself
    takes BLAS's symmetric product, which rounds differently)."""
    X = X.copy()
    out = {m: getattr(model, m)(X) for m in METHODS if hasattr(model, m)}
    for name in ("labels_",):
        if hasattr(model, name):
            out[name] = getattr(model, name)
    return out


def _assert_identical(a, b):
    assert a.keys() == b.keys()
    for key in a:
        assert a[key].dtype == b[key].dtype, key
        np.testing.assert_array_equal(a[key], b[key], strict=True, err_msg=key)


def _assert_same_array(a, b):
    """Same dtype, shape and bytes (records with NaN fields compare equal too)."""
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == object:
        assert a.tolist() == b.tolist()
    else:
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def _round_trip(model, tmp_path, name="model.lucid"):
    path = lucidml.save(model, tmp_path / name)
    return lucidml.load(path)


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_every_registered_estimator_round_trips_bit_for_bit(entry, tmp_path):
    X, model = _fitted(entry)
    loaded = _round_trip(model, tmp_path)
    assert type(loaded) is type(model)
    assert loaded.get_params().keys() == model.get_params().keys()
    _assert_identical(_outputs(model, X), _outputs(loaded, X))
    # What it learned is the same too.
    for name, value in vars(model).items():
        if isinstance(value, np.ndarray):
            _assert_same_array(getattr(loaded, name), value)
    # Saved again (both now hold the caches their predictions filled), they give the same file.
    assert (lucidml.save(loaded, tmp_path / "loaded.lucid").read_bytes()
            == lucidml.save(model, tmp_path / "model.lucid").read_bytes())


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_unfitted_estimators_round_trip_their_parameters(entry, tmp_path):
    model = entry.make()
    loaded = _round_trip(model, tmp_path)
    assert loaded.get_params() == model.get_params() or repr(loaded) == repr(model)
    X, y = _data(entry.kind)
    if hasattr(model, "predict"):
        with pytest.raises(NotFittedError):
            loaded.predict(X)


def _frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "colour": rng.choice(["red", "green", "blue"], n),
                          "size": rng.choice(["S", "M", "L"], n), "n": rng.integers(0, 5, n).astype(float)})
    frame.loc[::7, "a"] = np.nan
    return frame, np.where(frame["b"] + (frame["colour"] == "red") > 0.3, "yes", "no")


def test_a_pipeline_of_preprocessing_and_a_lucidml_model_round_trips(tmp_path):
    frame, y = _frame()
    prep = ColumnTransformer([
        ("numbers", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), ["a", "b"]),
        ("one_hot", OneHotEncoder(handle_unknown="ignore"), ["colour"]),
        ("ordinal", OrdinalEncoder(), ["size"]),
    ], remainder=MinMaxScaler())
    model = Pipeline([("prep", prep), ("model", LogisticRegression())]).fit(frame, y)
    loaded = _round_trip(model, tmp_path)
    test, _ = _frame(seed=1)
    _assert_identical(_outputs(model, test), _outputs(loaded, test))
    assert loaded.predict(test).dtype == model.predict(test).dtype  # string labels stay strings
    assert list(loaded.feature_names_in_) == ["a", "b", "colour", "size", "n"]


def test_a_pipeline_with_a_passthrough_remainder_and_a_forest_round_trips(tmp_path):
    from lucidml.ensemble import RandomForestClassifier

    frame, y = _frame()
    prep = ColumnTransformer([("one_hot", OneHotEncoder(sparse_output=False), ["colour", "size"])], remainder="passthrough")
    model = make_pipeline(prep, SimpleImputer(), RandomForestClassifier(n_estimators=5, random_state=0)).fit(frame, y)
    loaded = _round_trip(model, tmp_path)
    _assert_identical(_outputs(model, frame), _outputs(loaded, frame))


def test_label_encoder_round_trips(tmp_path):
    _, y = _frame()
    encoder = LabelEncoder().fit(y)
    loaded = _round_trip(encoder, tmp_path)
    np.testing.assert_array_equal(loaded.transform(y), encoder.transform(y))
    np.testing.assert_array_equal(loaded.classes_, encoder.classes_, strict=True)


def test_a_forests_trees_still_share_its_node_table_after_loading(tmp_path):
    from lucidml.ensemble import RandomForestClassifier

    X, y = _data("classifier")
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    loaded = _round_trip(forest, tmp_path)
    tree = loaded.estimators_[3].tree_
    assert np.shares_memory(tree.nodes, loaded._flat.nodes) and np.shares_memory(tree.value, loaded._flat.value)
    _assert_identical(_outputs(forest, X), _outputs(loaded, X))
    _assert_identical({"tree": forest.estimators_[3].predict_proba(X)}, {"tree": loaded.estimators_[3].predict_proba(X)})


def test_the_file_is_the_arrays_plus_a_few_kilobytes(tmp_path):
    from lucidml.ensemble import RandomForestRegressor

    X, y = _data("regressor")
    forest = RandomForestRegressor(n_estimators=20, random_state=0).fit(X, y)
    path = lucidml.save(forest, tmp_path / "forest.lucid")
    arrays = inspect(path)["arrays"]
    assert len(arrays) > 100
    from benchmarks.model_files import raw_array_bytes  # each byte once: the trees' nodes are views

    raw = raw_array_bytes(forest)
    assert path.stat().st_size <= 1.1 * raw + 8192 + 300 * len(arrays)  # + each member's headers


def test_results_users_keep_round_trip(tmp_path):
    from lucidml.graph import pagerank
    from lucidml.optim import active_set_qp, bfgs
    from lucidml.rl import MDP, QLearning, value_iteration
    from lucidml.rl.learning import MDPEnvironment

    P = np.zeros((3, 2, 3))
    P[:, 0, 0] = 1
    P[:, 1, 2] = 1
    dense = MDP(P, R=[0.0, 1.0, 2.0], gamma=0.9)
    sparse = MDP([scipy.sparse.csr_matrix(P[:, a, :]) for a in range(2)], R=[0.0, 1.0, 2.0], gamma=0.9)
    agent = QLearning(n_episodes=30, random_state=0).fit(MDPEnvironment(dense, random_state=0))
    results = {
        "planning": value_iteration(dense),
        "pagerank": pagerank(np.array([[0, 1, 1], [1, 0, 0], [0, 1, 0.0]])),
        "qp": active_set_qp(np.eye(2), np.array([-1.0, -1.0]), A_ineq=np.array([[1.0, 1.0]]), b_ineq=np.array([1.0])),
        "optimize": bfgs(lambda x: float(x @ x), np.ones(2), lambda x: 2 * x),
    }
    for name, result in results.items():
        loaded = _round_trip(result, tmp_path, f"{name}.lucid")
        assert repr(loaded) == repr(result), name
    for mdp in (dense, sparse):
        loaded = _round_trip(mdp, tmp_path)
        V = np.array([0.0, 1.0, 5.0])
        np.testing.assert_array_equal(loaded.q_values(V), mdp.q_values(V), strict=True)
    loaded = _round_trip(agent, tmp_path)
    np.testing.assert_array_equal(loaded.q_, agent.q_, strict=True)
    np.testing.assert_array_equal(loaded.predict([0, 1, 2]), agent.predict([0, 1, 2]))


def test_random_states_and_generators_keep_their_stream(tmp_path):
    from lucidml.cluster import KMeans

    for random_state in (np.random.RandomState(3), np.random.default_rng(3)):
        model = KMeans(n_clusters=2, random_state=random_state)
        model.random_state.random(5)  # mid-stream
        loaded = _round_trip(model, tmp_path)
        assert loaded.random_state.random() == model.random_state.random()


def test_saving_what_a_file_cannot_hold_names_it(tmp_path):
    from lucidml.linear import LinearRegression
    from lucidml.svm import SVC

    with pytest.raises(TypeError, match=r"SVC\.kernel is a function"):
        lucidml.save(SVC(kernel=lambda a, b: a @ b.T), tmp_path / "x.lucid")
    model = LinearRegression()
    model.coef_ = np.array([1, "a"], dtype=object)
    with pytest.raises(TypeError, match=r"LinearRegression\.coef_: object arrays"):
        lucidml.save(model, tmp_path / "x.lucid")
    model.coef_ = np.zeros(2)
    model.note_ = object()
    with pytest.raises(TypeError, match=r"LinearRegression\.note_ is a builtins\.object"):
        lucidml.save(model, tmp_path / "x.lucid")
    assert not list(tmp_path.iterdir())  # nothing half-written is left behind


def test_inspect_reads_the_manifest_without_building_the_model(tmp_path, monkeypatch):
    from lucidml.linear import Ridge

    X, y = _data("regressor")
    path = lucidml.save(Ridge(alpha=2.5).fit(X, y), tmp_path / "ridge.lucid")
    import lucidml.io._decode as decode

    monkeypatch.setattr(decode.Reader, "object", lambda *a: pytest.fail("inspect built an object"))
    info = inspect(path)
    assert info["class"] == "lucidml.linear.ridge.Ridge"
    assert info["params"]["alpha"] == 2.5
    assert info["format_version"] == 1 and info["lucidml_version"] == lucidml.__version__
    assert info["arrays"]["coef_"] == ("float64", (X.shape[1],))


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_pickle_and_joblib_keep_working(entry, tmp_path):
    X, model = _fitted(entry)
    _assert_identical(_outputs(model, X), _outputs(pickle.loads(pickle.dumps(model)), X))
    joblib.dump(model, tmp_path / "model.joblib")
    _assert_identical(_outputs(model, X), _outputs(joblib.load(tmp_path / "model.joblib"), X))


def test_a_gam_classifier_with_halved_steps_pickles():
    from lucidml.gam._smoothers import _Linear
    from lucidml.gam.gam_classifier import _Blend

    blend = _Blend.halfway(_Linear(2.0, 1.0, 0.0, 1.0), _Linear(1.0, 0.0, 0.0, 1.0))
    copy = pickle.loads(pickle.dumps(blend))  # was KeyError: 'terms'
    x = np.linspace(0, 1, 5)
    np.testing.assert_array_equal(copy(x), blend(x))


def test_zip64_records_are_written_where_sizes_need_them(tmp_path, monkeypatch):
    """Members and offsets past 4 GiB take zip64 records: here from 100 bytes on, to test them."""
    import zipfile

    import lucidml.io._archive as archive
    from lucidml.linear import Ridge

    monkeypatch.setattr(archive, "ZIP64_LIMIT", 100)
    X, y = _data("regressor")
    model = Ridge().fit(X, y)
    path = lucidml.save(model, tmp_path / "ridge.lucid")
    with zipfile.ZipFile(path) as opened:
        assert opened.testzip() is None  # zipfile reads every member and checks its CRC
        assert any(info.file_size >= 100 for info in opened.infolist())
    _assert_identical(_outputs(model, X), _outputs(lucidml.load(path), X))


def test_array_headers_are_parsed_one_at_a_time(monkeypatch, tmp_path):
    """NumPy parses a .npy header with ast.literal_eval, which CPython before 3.11.8 does not keep
    thread-safe (a CI run reading a model's arrays on two threads failed with "AST constructor
    recursion depth mismatch"): the reader's threads parse their headers under one lock."""
    from lucidml.io import _archive

    parsed_under_lock = []
    parse = np.lib.format.read_array_header_1_0

    def checked(fp, *args, **kwargs):
        parsed_under_lock.append(_archive._HEADER_PARSE.locked())
        return parse(fp, *args, **kwargs)

    monkeypatch.setattr(np.lib.format, "read_array_header_1_0", checked)
    X, y = _data("classifier")
    model = LogisticRegression(max_iter=50).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        loaded = lucidml.load(lucidml.save(model, str(tmp_path / "model.lucid")))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert len(parsed_under_lock) >= 2 and all(parsed_under_lock)
