"""Text end to end (issue 21): a generated Zipfian corpus → scikit-learn's vectorizers → lucidml, in a
``Pipeline``, beside the same pipeline with scikit-learn's estimators."""

import numpy as np
import pytest
import scipy.sparse
from sklearn import decomposition, ensemble, linear_model, naive_bayes, neighbors, svm
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline

from lucidml.datasets import make_text_corpus
from lucidml.decomposition import LatentSemanticIndexing, TruncatedSVD
from lucidml.ensemble import RandomForestClassifier
from lucidml.linear import LogisticRegression, Ridge
from lucidml.naive_bayes import MultinomialNB
from lucidml.neighbors import KNeighborsClassifier
from lucidml.svm import LinearSVC


@pytest.fixture(scope="module")
def corpus():
    return make_text_corpus(1_500, n_words=4_000, concentration=1.0, random_state=0)


PAIRS = {
    "logistic": (lambda: make_pipeline(TfidfVectorizer(), LogisticRegression(C=10.0)),
                 lambda: make_pipeline(TfidfVectorizer(), linear_model.LogisticRegression(C=10.0))),
    "linear_svc": (lambda: make_pipeline(TfidfVectorizer(), LinearSVC(dual=True, tol=1e-8, max_iter=10_000)),
                   lambda: make_pipeline(TfidfVectorizer(), svm.LinearSVC(dual=True, tol=1e-8, max_iter=10_000))),
    "multinomial_nb": (lambda: make_pipeline(CountVectorizer(), MultinomialNB()),
                       lambda: make_pipeline(CountVectorizer(), naive_bayes.MultinomialNB())),
    "knn_cosine": (lambda: make_pipeline(TfidfVectorizer(), KNeighborsClassifier(15, metric="cosine")),
                   lambda: make_pipeline(TfidfVectorizer(), neighbors.KNeighborsClassifier(15, metric="cosine"))),
    "lsa_knn": (lambda: make_pipeline(TfidfVectorizer(), TruncatedSVD(50, random_state=0),
                                      KNeighborsClassifier(15)),
                lambda: make_pipeline(TfidfVectorizer(), decomposition.TruncatedSVD(50, random_state=0),
                                      neighbors.KNeighborsClassifier(15))),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_text_pipeline_scores_as_scikit_learn(corpus, name):
    texts, topics = corpus
    ours, theirs = PAIRS[name]
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    accuracy = cross_val_score(ours(), texts, topics, cv=folds).mean()
    reference = cross_val_score(theirs(), texts, topics, cv=folds).mean()
    assert accuracy > 0.6  # the topics are learnable
    assert abs(accuracy - reference) <= 0.005  # within 0.5 pp (the randomized SVD may differ slightly)


def test_the_pipeline_keeps_the_matrix_sparse(corpus):
    """Nothing densifies the vocabulary-wide matrix: the fitted models see the vectorizer's CSR."""
    texts, topics = corpus
    seen = []

    class Spy(LogisticRegression):
        def fit(self, X, y, sample_weight=None):
            seen.append(X)
            return super().fit(X, y, sample_weight)

    make_pipeline(TfidfVectorizer(), Spy()).fit(texts, topics)
    assert scipy.sparse.issparse(seen[0]) and seen[0].shape[1] > 1_000


def test_latent_semantic_indexing_finds_documents_of_the_same_topic(corpus):
    texts, topics = corpus
    counts = CountVectorizer().fit(texts)
    lsi = LatentSemanticIndexing(n_components=20, random_state=0).fit(counts.transform(texts))
    queries = np.arange(0, 300, 10)
    ranked, _ = lsi.query(counts.transform([texts[i] for i in queries]), top_n=6)
    hits = [np.mean(topics[[j for j in row if j != i][:5]] == topics[i]) for i, row in zip(queries, ranked)]
    assert np.mean(hits) > 0.8


def test_ridge_on_tfidf_matches_scikit_learn(corpus):
    texts, topics = corpus
    X = TfidfVectorizer().fit_transform(texts)
    target = (topics == 2).astype(float)
    ours = Ridge(alpha=1.0, tol=1e-10).fit(X, target)  # 4,000 columns: LSQR on the implicitly centred X
    reference = linear_model.Ridge(alpha=1.0, solver="sparse_cg", tol=1e-10).fit(X, target)
    np.testing.assert_allclose(ours.coef_, reference.coef_, atol=1e-6)


def test_random_forest_on_word_counts(corpus):
    """Trees take the vectorizer's CSR as it is (binned column by column, rows walked sparse) and
    classify about as well as scikit-learn's forest on the same counts (0.957–0.984 for either
    over three seeds when this test was written)."""
    texts, topics = corpus
    train, test, y_train, y_test = train_test_split(texts, topics, random_state=0, stratify=topics)
    ours = make_pipeline(CountVectorizer(), RandomForestClassifier(20, random_state=0)).fit(train, y_train)
    theirs = make_pipeline(CountVectorizer(), ensemble.RandomForestClassifier(20, random_state=0)).fit(train, y_train)
    assert ours.score(test, y_test) > 0.93 and theirs.score(test, y_test) > 0.93
