"""Bias–variance decomposition of an estimator's test error, by bootstrapping its training set."""

from typing import NamedTuple

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_consistent_length, check_X_y

from ..utils._results import ExtendedTuple
from ..utils.validation import check_methods

__all__ = ["BiasVarianceResult", "bias_variance_decomposition"]


class _Decomposition(NamedTuple):
    expected_loss: float
    bias: float
    variance: float


class BiasVarianceResult(ExtendedTuple, _Decomposition):
    """What :func:`bias_variance_decomposition` measured: unpacks as ``expected_loss, bias, variance``.

    The three numbers are averages over the test points; the other attributes are kept beside
    them (they are not part of the tuple).

    Attributes
    ----------
    expected_loss : float
        Mean over test points and bootstrap rounds of loss(h_D(x), y).
    bias : float
        Squared loss: mean of (h̄(x) − y)², the *squared* bias (against ȳ(x) when it was given).
        0-1 loss: the fraction of test points whose main prediction is wrong.
    variance : float
        Squared loss: mean of (h_D(x) − h̄(x))². 0-1 loss: mean fraction of rounds that disagree
        with the main prediction.
    loss : str
        ``"squared"`` or ``"0-1"``.
    noise : float or None
        Squared loss with ``y_expected`` given: mean of (ȳ(x) − y)² over the test points. None
        otherwise (with one observed label per point, noise cannot be told apart from bias).
    main_prediction : ndarray of shape (n_test,)
        h̄(x): the mean prediction (squared loss) or the most frequent one (0-1 loss).
    unbiased_variance, biased_variance : float or None
        0-1 loss only (Domingos 2000): the variance summed over the points whose main
        prediction is right, and over those where it is wrong, each divided by n_test.
        For two classes, ``expected_loss = bias + unbiased_variance − biased_variance``.
    test_index : ndarray of shape (n_test,) or None
        The rows of X that were held out as test points, in the order of ``main_prediction``.
    """


def bias_variance_decomposition(estimator, X, y, *, loss="0-1", n_rounds=200, test_size=0.3, random_state=None,
                                y_expected=None):
    """Split an estimator's expected test loss into bias and variance by bootstrapping.

    The data are split once into a training and a test part (``test_size``, stratified by class
    for the 0-1 loss, with scikit-learn's ``train_test_split``). The training sets D of the
    decomposition Error = Variance + Bias + Noise (seeds 001 §11; 000 §8.1 describes high bias
    as underfitting and high variance as overfitting) are then simulated as in bagging: each of
    ``n_rounds`` rounds draws n samples from the training part uniformly with replacement, fits a
    fresh clone of ``estimator`` on them and predicts the test points, giving predictions h_D(x).
    Then, averaged over the test points:

    - squared loss: the main prediction is the mean h̄(x) = mean_D h_D(x), and
      expected loss = mean_D (h_D(x) − y)²,  bias² = (h̄(x) − y)²,  variance = mean_D (h_D(x) − h̄(x))².
      Against the observed y the identity expected loss = bias² + variance holds exactly. If the
      expected label ȳ(x) is known (synthetic data), pass it for every sample as ``y_expected``:
      bias² is then (h̄(x) − ȳ(x))² and noise = (ȳ(x) − y)², and the identity holds in expectation only.
    - 0-1 loss (*Std:* Domingos 2000): the main prediction is the most frequent label y_m(x)
      (ties to the smallest label), bias = 1[y_m(x) ≠ y], variance = fraction of rounds with
      h_D(x) ≠ y_m(x); the variance is split into its unbiased part (points with bias 0, where
      it adds to the loss) and its biased part (points with bias 1, where it removes loss).

    Each clone whose parameters include a ``random_state`` (nested ones too) gets a seed drawn
    from ``random_state``, as scikit-learn's bagging does, so that the whole run is reproducible;
    the split and the bootstrap samples depend on ``random_state`` only, so two estimators see
    the same ones. Cloning and validation are scikit-learn's (``clone``, ``check_X_y``).

    Parameters
    ----------
    estimator : estimator object
        Fitted anew (as a clone) in every round; never modified.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    loss : {"0-1", "squared"}, default="0-1"
        "0-1" for classifiers, "squared" for regressors.
    n_rounds : int, default=200
        Number of bootstrap training sets, ≥ 2.
    test_size : float or int, default=0.3
        The held-out part, as in ``train_test_split``: a fraction in (0, 1) or a number of samples.
    random_state : int, RandomState instance or None, default=None
        Draws the split, the bootstrap samples and the clones' seeds.
    y_expected : array-like of shape (n_samples,) or None, default=None
        ȳ(x) for every sample (split with X and y), squared loss only.

    Returns
    -------
    BiasVarianceResult
        ``expected_loss, bias, variance = bias_variance_decomposition(...)``; the result also
        carries ``loss``, ``noise``, ``main_prediction``, the 0-1 loss's ``unbiased_variance`` and
        ``biased_variance`` and the ``test_index``.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import LinearRegression
    >>> from lucidml.model_selection import bias_variance_decomposition
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (60, 1)); y = 2 * X[:, 0] + 0.1 * rng.normal(size=60)
    >>> loss, bias, variance = bias_variance_decomposition(LinearRegression(), X, y, loss="squared",
    ...                                                    n_rounds=50, random_state=0)
    >>> bool(np.isclose(loss, bias + variance)), variance < bias
    (True, True)
    """
    check_methods(estimator, ["fit", "predict"], "bias_variance_decomposition")
    if loss not in ("squared", "0-1"):
        raise ValueError(f"loss must be 'squared' or '0-1'; got {loss!r}.")
    if isinstance(n_rounds, bool) or not isinstance(n_rounds, (int, np.integer)) or n_rounds < 2:
        raise ValueError(f"n_rounds must be an integer ≥ 2; got {n_rounds!r}.")
    if y_expected is not None and loss != "squared":
        raise ValueError("y_expected (the expected label ȳ(x)) is defined for the squared loss only.")
    X, y = check_X_y(X, y, accept_sparse="csr", y_numeric=loss == "squared")
    if loss == "0-1" and type_of_target(y) not in ("binary", "multiclass"):
        raise ValueError(f"The 0-1 loss needs class labels in y; got a {type_of_target(y)} target "
                         "(use loss='squared' for a regressor).")
    if y_expected is not None:
        y_expected = check_array(y_expected, ensure_2d=False, dtype=np.float64)
        check_consistent_length(y, y_expected)
    rng = check_random_state(random_state)
    train, test = train_test_split(np.arange(X.shape[0]), test_size=test_size, random_state=rng,
                                   stratify=y if loss == "0-1" else None)
    predictions = _bootstrap_predictions(estimator, X[train], y[train], X[test], int(n_rounds), rng)
    if loss == "squared":
        result = _squared_decomposition(predictions.astype(np.float64), y[test],
                                        None if y_expected is None else y_expected[test])
    else:
        result = _zero_one_decomposition(predictions, y[test])
    result.test_index = test
    return result


def _bootstrap_predictions(estimator, X_train, y_train, X_test, n_rounds, rng):
    """Predictions of the test points by models fitted on bootstrap samples, shape (n_rounds, n_test)."""
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
        float(np.mean((predictions - y_test) ** 2)),
        float(np.mean((main - target) ** 2)),
        float(np.mean((predictions - main) ** 2)),
        loss="squared",
        noise=None if y_expected is None else float(np.mean((y_expected - y_test) ** 2)),
        main_prediction=main,
        unbiased_variance=None,
        biased_variance=None,
        test_index=None,
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
        float(np.mean(predicted != true)),
        float(np.mean(biased)),
        float(np.mean(disagreement)),
        loss="0-1",
        noise=None,
        main_prediction=labels[main],
        unbiased_variance=float(disagreement[~biased].sum() / n_test),
        biased_variance=float(disagreement[biased].sum() / n_test),
        test_index=None,
    )
