"""The linear-algebra helpers of lucidml.utils: centered_gram on every path (one product, or centred
blocks), and the triangular inverse."""

import numpy as np
import pytest
import scipy.sparse

from lucidml.utils.centered import centered_gram


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("offset", [0.0, 1e4])  # 1e4: a column whose mean dwarfs its spread (the block path)
def test_centered_gram_equals_the_gram_of_the_centred_data(sparse, weighted, offset):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 6)) * (rng.random((300, 6)) < 0.5)
    X[:, 2] += offset
    Y = rng.standard_normal((300, 2))
    weight = rng.random(300) + 0.5 if weighted else None
    s = np.ones(300) if weight is None else weight
    x_mean, y_mean = s @ X / s.sum(), s @ Y / s.sum()
    Xc, Yc = X - x_mean, Y - y_mean
    expected_gram, expected_moment = Xc.T @ (s[:, None] * Xc), Xc.T @ (s[:, None] * Yc)
    data = scipy.sparse.csr_matrix(X) if sparse else X
    gram, moment = centered_gram(data, Y, weight, x_mean, y_mean)
    scale = np.abs(expected_gram).max()
    np.testing.assert_allclose(gram, expected_gram, atol=1e-9 * scale)
    np.testing.assert_allclose(moment, expected_moment, atol=1e-9 * np.abs(expected_moment).max())
    alone, none = centered_gram(data, None, weight, x_mean, y_mean)
    assert none is None
    np.testing.assert_allclose(alone, expected_gram, atol=1e-9 * scale)


def test_inverse_lower_triangular_inverts_and_refuses_a_zero_pivot():
    from lucidml.utils.linalg import inverse_lower_triangular

    rng = np.random.default_rng(1)
    lower = np.tril(rng.standard_normal((7, 7))) + 5 * np.eye(7)
    np.testing.assert_allclose(inverse_lower_triangular(lower) @ lower, np.eye(7), atol=1e-12)
    lower[3, 3] = 0.0
    with pytest.raises(ValueError, match="pivot 4 is zero"):
        inverse_lower_triangular(lower)
