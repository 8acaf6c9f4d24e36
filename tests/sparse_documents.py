"""Bag-of-words-like sparse data for the tests of estimators that take CSR input."""

import numpy as np
import scipy.sparse


def documents(n_samples, n_features=2000, per_row=20, n_topics=4, seed=0, empty=0.0, own=0.6):
    """(X, topic): a CSR matrix whose rows draw a share ``own`` of their ``per_row`` features from
    their topic's vocabulary (the rest anywhere), with exponential values; a share ``empty`` of the
    rows is left without entries."""
    rng = np.random.RandomState(seed)
    topic = rng.randint(n_topics, size=n_samples)
    vocabulary = n_features // (2 * n_topics)
    columns = rng.randint(n_features, size=(n_samples, per_row))
    from_topic = rng.rand(n_samples, per_row) < own
    columns[from_topic] = (topic[:, None] * vocabulary + rng.randint(vocabulary, size=(n_samples, per_row)))[from_topic]
    values = rng.exponential(1.0, size=(n_samples, per_row))
    values[rng.rand(n_samples) < empty] = 0.0
    X = scipy.sparse.csr_matrix((values.ravel(), columns.ravel(), np.arange(0, values.size + 1, per_row)),
                                shape=(n_samples, n_features))
    X.sum_duplicates()
    X.eliminate_zeros()
    return X, topic
