"""Bias–variance decomposition of an estimator's test error, by bootstrapping its training set."""

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_consistent_length, check_X_y

__all__ = ["BiasVarianceResult", "bias_variance_decomposition"]


@dataclass(frozen=True)
class BiasVarianceResult:
    """What :func:`bias_variance_decomposition` measured, averaged over the test points.

    Attributes
    ----------
    loss : str
        ``"squared"`` or ``"0-1"``.
    expected_loss : float
        Mean over test points and bootstrap rounds of loss(h_D(x), y).
    bias : float
        Squared loss: mean of (h̄(x) − y)², the *squared* bias (against ȳ(x) when it was given).
        0-1 loss: the fraction of test points whose main prediction is wrong.
    variance : float
        Squared loss: mean of (h_D(x) − h̄(x))². 0-1 loss: mean fraction of rounds that disagree
        with the main prediction.
    noise : float or None
        Squared loss with ``y_test_expected`` given: mean of (ȳ(x) − y)². None otherwise (with
        one observed label per point, noise cannot be told apart from bias).
    main_prediction : ndarray of shape (n_test,)
        h̄(x): the mean prediction (squared loss) or the most frequent one (0-1 loss).
    unbiased_variance, biased_variance : float or None
        0-1 loss only (Domingos 2000): the variance summed over the points whose main
        prediction is right, and over those where it is wrong, each divided by n_test.
        For two classes, ``expected_loss = bias + unbiased_variance − biased_variance``.
    """

    loss: str
    expected_loss: float
    bias: float
    variance: float
    noise: float | None
    main_prediction: np.ndarray
    unbiased_variance: float | None = None
    biased_variance: float | None = None


def bias_variance_decomposition(estimator, X_train, y_train, X_test, y_test, *, loss="squared", n_rounds=200,
                                y_test_expected=None, random_state=None):
    """Split an estimator's expected test loss into bias and variance by bootstrapping.

    The training sets D of the decomposition Error = Variance + Bias + Noise (seeds 001 §11;
    000 §8.1 describes high bias as underfitting and high variance as overfitting) are simulated
    as in bagging: each of ``n_rounds`` rounds draws n samples from the training set uniformly
    with replacement, fits a fresh clone of ``estimator`` on them and predicts the test points,
    giving predictions h_D(x). Then, averaged over the test points:

    - squared loss: the main prediction is the mean h̄(x) = mean_D h_D(x), and
      expected loss = mean_D (h_D(x) − y)²,  bias² = (h̄(x) − y)²,  variance = mean_D (h_D(x) − h̄(x))².
      Against the observed y the identity expected loss = bias² + variance holds exactly. If the
      expected label ȳ(x) is known (synthetic data), pass it as ``y_test_expected``: bias² is then
      (h̄(x) − ȳ(x))² and noise = (ȳ(x) − y)², and the identity holds in expectation only.
    - 0-1 loss (*Std:* Domingos 2000): the main prediction is the most frequent label y_m(x)
      (ties to the smallest label), bias = 1[y_m(x) ≠ y], variance = fraction of rounds with
      h_D(x) ≠ y_m(x); the variance is split into its unbiased part (points with bias 0, where
      it adds to the loss) and its biased part (points with bias 1, where it removes loss).

    Each clone whose parameters include a ``random_state`` (nested ones too) gets a seed drawn
    from ``random_state``, as scikit-learn's bagging does, so that the whole run is reproducible;
    the bootstrap samples depend on ``random_state`` only, so two estimators see the same ones.
    Cloning and validation are scikit-learn's (``clone``, ``check_X_y``).

    Parameters
    ----------
    estimator : estimator object
        Fitted anew (as a clone) in every round; never modified.
    X_train, y_train : array-like of shape (n_train, n_features), (n_train,)
    X_test, y_test : array-like of shape (n_test, n_features), (n_test,)
    loss : {"squared", "0-1"}, default="squared"
    n_rounds : int, default=200
        Number of bootstrap training sets, ≥ 2.
    y_test_expected : array-like of shape (n_test,) or None, default=None
        ȳ(x) at the test points, squared loss only.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    BiasVarianceResult

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import LinearRegression
    >>> from lucidml.model_selection import bias_variance_decomposition
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (60, 1)); y = 2 * X[:, 0] + 0.1 * rng.normal(size=60)
    >>> result = bias_variance_decomposition(LinearRegression(), X[:40], y[:40], X[40:], y[40:],
    ...                                      n_rounds=50, random_state=0)
    >>> bool(np.isclose(result.expected_loss, result.bias + result.variance))
    True
    >>> result.variance < result.bias
    True
    """
    if loss not in ("squared", "0-1"):
        raise ValueError(f"loss must be 'squared' or '0-1'; got {loss!r}.")
    if isinstance(n_rounds, bool) or not isinstance(n_rounds, (int, np.integer)) or n_rounds < 2:
        raise ValueError(f"n_rounds must be an integer ≥ 2; got {n_rounds!r}.")
    X_train, y_train, X_test, y_test = _check_data(X_train, y_train, X_test, y_test, loss)
    if y_test_expected is not None:
        if loss != "squared":
            raise ValueError("y_test_expected (the expected label ȳ(x)) is defined for the squared loss only.")
        y_test_expected = check_array(y_test_expected, ensure_2d=False, dtype=np.float64)
        check_consistent_length(y_test, y_test_expected)
    predictions = _bootstrap_predictions(estimator, X_train, y_train, X_test, int(n_rounds), random_state)
    if loss == "squared":
        return _squared_decomposition(predictions.astype(np.float64), y_test, y_test_expected)
    return _zero_one_decomposition(predictions, y_test)


def _check_data(X_train, y_train, X_test, y_test, loss):
    numeric_y = loss == "squared"
    X_train, y_train = check_X_y(X_train, y_train, accept_sparse="csr", y_numeric=numeric_y)
    X_test, y_test = check_X_y(X_test, y_test, accept_sparse="csr", y_numeric=numeric_y)
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test has {X_test.shape[1]} features but X_train has {X_train.shape[1]}.")
    return X_train, y_train, X_test, y_test


def _bootstrap_predictions(estimator, X_train, y_train, X_test, n_rounds, random_state):
    """Predictions of the test points by models fitted on bootstrap samples, shape (n_rounds, n_test)."""
    rng = check_random_state(random_state)
    # Seeds first, in one draw, so that every estimator sees the same bootstrap samples.
    seeds = rng.randint(np.iinfo(np.int32).max, size=n_rounds)
    n_train = X_train.shape[0]
    rows = []
    for seed in seeds:
        drawn = rng.randint(0, n_train, n_train)
        model = _seeded_clone(estimator, int(seed))
        rows.append(np.asarray(model.fit(X_train[drawn], y_train[drawn]).predict(X_test)).ravel())
    return np.asarray(rows)


def _seeded_clone(estimator, seed):
    model = clone(estimator)
    seeds = {name: seed for name in model.get_params(deep=True) if name.split("__")[-1] == "random_state"}
    return model.set_params(**seeds) if seeds else model


def _squared_decomposition(predictions, y_test, y_expected):
    main = predictions.mean(axis=0)
    target = y_test if y_expected is None else y_expected
    return BiasVarianceResult(
        loss="squared",
        expected_loss=float(np.mean((predictions - y_test) ** 2)),
        bias=float(np.mean((main - target) ** 2)),
        variance=float(np.mean((predictions - main) ** 2)),
        noise=None if y_expected is None else float(np.mean((y_expected - y_test) ** 2)),
        main_prediction=main,
    )


def _zero_one_decomposition(predictions, y_test):
    labels, codes = np.unique(np.concatenate([predictions.ravel(), y_test]), return_inverse=True)
    codes = codes.reshape(-1)
    predicted = codes[: predictions.size].reshape(predictions.shape)
    true = codes[predictions.size:]
    # votes[c, j]: how many rounds predicted label c for test point j; argmax ties to the smallest label
    votes = np.stack([(predicted == c).sum(axis=0) for c in range(len(labels))])
    main = votes.argmax(axis=0)
    biased = main != true
    disagreement = (predicted != main).mean(axis=0)
    n_test = len(true)
    return BiasVarianceResult(
        loss="0-1",
        expected_loss=float(np.mean(predicted != true)),
        bias=float(np.mean(biased)),
        variance=float(np.mean(disagreement)),
        noise=None,
        main_prediction=labels[main],
        unbiased_variance=float(disagreement[~biased].sum() / n_test),
        biased_variance=float(disagreement[biased].sum() / n_test),
    )
