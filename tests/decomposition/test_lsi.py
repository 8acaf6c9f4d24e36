"""Latent semantic indexing: retrieval, fold-in, weightings, vectorizer output."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import (
    CountVectorizer,
    TfidfTransformer,
    TfidfVectorizer,
)

from lucidml.datasets import load
from lucidml.decomposition.lsi import LatentSemanticIndexing
from lucidml.decomposition.truncated_svd import TruncatedSVD

DOCS = [
    "students study for the exam in the library",
    "pupils learn for the exam at school",
    "the team scored a goal in the football match",
    "the football team won the match",
    "the library lends books to students",
    "a goal in the last minute of the match",
]


def test_retrieves_the_right_documents_from_words_of_one_topic():
    counts = CountVectorizer().fit(DOCS)
    X = counts.transform(DOCS)
    lsi = LatentSemanticIndexing(n_components=2, weighting="tfidf", algorithm="full").fit(X)
    idx, scores = lsi.query(counts.transform(["football goal"]).toarray().ravel(), top_n=3)
    assert set(idx.tolist()) == {2, 3, 5}
    assert np.all(np.diff(scores) <= 0)
    idx, _ = lsi.query(counts.transform(["exam library"]).toarray().ravel(), top_n=3)
    assert set(idx.tolist()) == {0, 1, 4}


def test_synonym_match_that_plain_cosine_misses():
    # terms: study learn exam goal match team
    X = np.array([[2, 0, 1, 0, 0, 0], [0, 2, 1, 0, 0, 0], [0, 0, 0, 2, 1, 1], [0, 0, 0, 1, 2, 1]])
    q = np.array([0, 1, 0, 0, 0, 0])  # "learn": plain cosine with document 0 ("study") is 0
    assert q @ X[0] == 0
    lsi = LatentSemanticIndexing(n_components=2, weighting="tf", algorithm="full").fit(X)
    sim = lsi.similarity(q[None, :])[0]
    assert sim[0] > 0.99 and sim[1] > 0.99 and abs(sim[2]) < 1e-8


def test_each_document_retrieves_itself_on_the_documents_dataset():
    X, y = load("documents")
    lsi = LatentSemanticIndexing(n_components=20, random_state=0).fit(X)
    idx, scores = lsi.query(X[:50], top_n=1)
    np.testing.assert_allclose(scores[:, 0], 1.0, atol=1e-10)  # a folded-in document matches itself
    sim = lsi.similarity(X[:50])
    assert np.array_equal(idx[:, 0], sim.argmax(axis=1))
    # documents of the same topic are the nearest neighbours more often than chance (5 topics)
    second = lsi.query(X[:200], top_n=2)[0][:, 1]
    assert np.mean(y[second] == y[:200]) > 0.5


def test_transform_is_fold_in_and_document_vectors():
    X = CountVectorizer().fit_transform(DOCS)
    lsi = LatentSemanticIndexing(n_components=3, weighting="tf", algorithm="full").fit(X)
    np.testing.assert_allclose(lsi.transform(X), lsi.document_vectors_, atol=1e-12)  # qV_k = U_kΣ_k for documents
    np.testing.assert_allclose(lsi.document_vectors_ @ lsi.components_, TruncatedSVD(3, algorithm="full").fit(
        X.toarray()).inverse_transform(lsi.document_vectors_), atol=1e-10)


def test_weightings():
    counts = CountVectorizer().fit_transform(DOCS)
    tfidf = TfidfTransformer().fit_transform(counts)
    ours = LatentSemanticIndexing(n_components=3, weighting="tfidf", algorithm="full").fit(counts)
    np.testing.assert_allclose(ours._weight(counts).toarray(), tfidf.toarray(), atol=1e-12)
    # TfidfVectorizer output used as is
    as_is = LatentSemanticIndexing(n_components=3, weighting="none", algorithm="full").fit(
        TfidfVectorizer().fit_transform(DOCS))
    np.testing.assert_allclose(np.abs(as_is.components_), np.abs(ours.components_), atol=1e-10)
    binary = LatentSemanticIndexing(n_components=2, weighting="binary", algorithm="full").fit(counts * 3)
    same = LatentSemanticIndexing(n_components=2, weighting="binary", algorithm="full").fit(counts)
    np.testing.assert_allclose(binary.components_, same.components_, atol=1e-12)


def test_zero_query_scores_zero_and_multiple_queries():
    X = CountVectorizer().fit_transform(DOCS)
    lsi = LatentSemanticIndexing(n_components=2, random_state=0).fit(X)
    idx, scores = lsi.query(np.zeros(X.shape[1]), top_n=2)
    np.testing.assert_array_equal(scores, 0.0)
    idx, scores = lsi.query(sp.csr_matrix(X[:3]), top_n=4)
    assert idx.shape == scores.shape == (3, 4)


@pytest.mark.parametrize("algorithm", ["randomized", "arpack", "full"])
@pytest.mark.parametrize("sparse", [False, True])
def test_counts_of_any_scale_give_the_scale_one_vectors(algorithm, sparse):
    # tf-idf rows are unit vectors: ‖w‖² overflowed near 1e300 (every row 0) and ARPACK underflowed near 1e-300.
    X = np.random.default_rng(0).poisson(1.0, size=(30, 12)).astype(float)
    make = sp.csr_matrix if sparse else np.asarray
    expected = LatentSemanticIndexing(n_components=3, algorithm=algorithm, random_state=0).fit(make(X)).transform(X)
    for scale in (1e300, 1e-300):
        lsi = LatentSemanticIndexing(n_components=3, algorithm=algorithm, random_state=0).fit(make(X * scale))
        np.testing.assert_allclose(lsi.transform(X * scale), expected, atol=1e-10)



@pytest.mark.parametrize("weighting", ["tf", "none", "tfidf"])
@pytest.mark.parametrize("sparse", [False, True])
def test_similarities_do_not_depend_on_the_scale_of_the_counts(weighting, sparse):
    """Cosine similarities from dot products and products of norms overflowed for weights near
    1e160 ("tf", "none": every score NaN); a tf-idf query near 1e308 times the idf overflowed."""
    X = np.random.default_rng(0).poisson(0.5, size=(30, 12)).astype(float)
    make = sp.csr_matrix if sparse else np.asarray
    expected = LatentSemanticIndexing(3, weighting=weighting, random_state=0).fit(make(X)).similarity(X[:5])
    for scale in (1e160, 1e200, 1e-200):
        lsi = LatentSemanticIndexing(3, weighting=weighting, random_state=0).fit(make(X * scale))
        np.testing.assert_allclose(lsi.similarity(make(X[:5] * scale)), expected, atol=1e-9)
    lsi = LatentSemanticIndexing(3, weighting=weighting, random_state=0).fit(make(X))
    np.testing.assert_allclose(lsi.similarity(np.full((1, 12), 1e308)), lsi.similarity(np.ones((1, 12))), atol=1e-12)
    if weighting != "tfidf":  # the folded row itself is beyond float64: said, not returned as inf
        with pytest.raises(ValueError, match="overflow float64"):
            lsi.transform(np.full((1, 12), 1e308))

def test_bad_input():
    X = CountVectorizer().fit_transform(DOCS)
    with pytest.raises(ValueError, match="n_components"):
        LatentSemanticIndexing(n_components=7).fit(X)
    with pytest.raises(ValueError, match="Negative"):
        LatentSemanticIndexing(n_components=2).fit(-X)
    with pytest.raises(ValueError, match="NaN"):
        LatentSemanticIndexing(n_components=2).fit(np.array([[1.0, np.nan], [1.0, 2.0]]))
    lsi = LatentSemanticIndexing(n_components=2).fit(X)
    with pytest.raises(ValueError, match="features"):
        lsi.query(np.ones(3))
    with pytest.raises(ValueError, match="top_n"):
        lsi.query(np.ones(X.shape[1]), top_n=0)
