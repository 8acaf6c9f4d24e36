"""Latent semantic indexing: document retrieval in the space of a truncated SVD."""

from numbers import Integral

import numpy as np
import scipy.sparse
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ..utils.numerics import unit_rows
from ..utils.validation import check_fit_data, check_predict_data, largest_magnitude
from .svd_tools import _flip_signs
from .truncated_svd import _truncated_svd


class LatentSemanticIndexing(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Latent semantic indexing: rank-k SVD of a document–term matrix, cosine retrieval.

    Documents are rows, terms columns. The weighted matrix A (no centring) is replaced by its
    best rank-k approximation A ≈ U_k Σ_k V_kᵀ (seeds: 000 §15.2; Berry, Dumais & O'Brien 1995).
    Document i lives at dᵢ = (U_kΣ_k)ᵢ = aᵢV_k; a query q (a row of term counts over the same
    vocabulary) is folded in the same way, q̂ = w(q)V_k, and documents are ranked by

        cos(q̂, dᵢ) = q̂·dᵢ / (‖q̂‖‖dᵢ‖)        (0 when either vector is 0).

    Terms that co-occur share latent directions, so a query can match a document that uses a
    synonym instead of the query's word — the weakness of raw cosine the notes point out.

    Weightings w (of counts cᵢₜ, n documents, dfₜ = documents containing t):

    - ``"binary"``: 1{cᵢₜ > 0} (the notes' term-presence vectors);
    - ``"tf"``: the counts cᵢₜ;
    - ``"tfidf"``: cᵢₜ·(ln((1 + n)/(1 + dfₜ)) + 1), each row then scaled to unit length
      (scikit-learn's ``TfidfTransformer`` defaults);
    - ``"none"``: X as given (e.g. the output of ``TfidfVectorizer``).

    Parameters
    ----------
    n_components : int or None, default=None
        k; None is min(100, n_documents, n_terms).
    weighting : {"tfidf", "tf", "binary", "none"}, default="tfidf"
    algorithm : {"randomized", "arpack", "full"}, default="randomized"
        How the truncated SVD is computed (see :class:`TruncatedSVD`).
    n_iter : int, default=7
        Power iterations of ``"randomized"``.
    random_state : int, RandomState instance or None, default=None
    verbose : int, default=0
        1 or more prints, on standard output, ``Iteration t`` after each power iteration of
        ``"randomized"`` (each a pass over the documents) and one closing line ``Algorithm a,
        n_components = k, largest_singular_value = …`` (``singular_values_[0]``); 0 prints nothing.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_terms)
        V_kᵀ, the latent directions over the terms (largest-magnitude entry positive).
    singular_values_ : ndarray of shape (n_components_,)
    document_vectors_ : ndarray of shape (n_documents, n_components_)
        dᵢ = aᵢV_k, the indexed documents.
    idf_ : ndarray of shape (n_terms,) or None
        The idf factors (``weighting="tfidf"`` only).
    n_components_ : int
    n_features_in_ : int
        Number of terms seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.decomposition.lsi import LatentSemanticIndexing
    >>> # terms:  study learn exam  goal  match  team
    >>> X = np.array([[2, 0, 1, 0, 0, 0],     # 0: study for the exam
    ...               [0, 2, 1, 0, 0, 0],     # 1: learn for the exam
    ...               [0, 0, 0, 2, 1, 1],     # 2: the team's goal in the match
    ...               [0, 0, 0, 1, 2, 1]])    # 3: the match
    >>> lsi = LatentSemanticIndexing(n_components=2, weighting="tf", random_state=0).fit(X)
    >>> idx, score = lsi.query([0, 1, 0, 0, 0, 0], top_n=2)   # "learn"
    >>> sorted(idx.tolist())                                  # both exam documents, not only doc 1
    [0, 1]
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "weighting": [Options({"tfidf", "tf", "binary", "none"})],
        "algorithm": [Options({"randomized", "arpack", "full"})],
        "n_iter": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_components=None, *, weighting="tfidf", algorithm="randomized", n_iter=7,
                 random_state=None, verbose=0):
        self.n_components = n_components
        self.weighting = weighting
        self.algorithm = algorithm
        self.n_iter = n_iter
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Index the documents of X (n_documents, n_terms): dense or sparse counts (e.g. CountVectorizer)."""
        validate_params(self)
        X = check_fit_data(self, X, accept_sparse=("csr", "csc"), ensure_min_features=2)
        _check_non_negative(X)
        n, d = X.shape
        bound = min(n, d) - (1 if self.algorithm == "arpack" else 0)
        if self.n_components is None:
            k = max(1, min(100, bound))
        else:
            k = self.n_components
            if k > bound:
                rel = "<" if self.algorithm == "arpack" else "≤"
                raise ValueError(f"n_components={k} must be {rel} min(n_documents, n_terms) (n_samples={n}, "
                                 f"n_features={d}) with algorithm={self.algorithm!r}.")
        if self.weighting == "tfidf":
            df = np.asarray((X > 0).sum(axis=0)).ravel()  # document frequency of each term
            self.idf_ = np.log((1.0 + n) / (1.0 + df)) + 1.0
        else:
            self.idf_ = None
        A = self._weight(X)
        if self.algorithm == "full" and scipy.sparse.issparse(A):
            A = A.toarray()
        log = IterationLog(self.verbose)
        s, Vt = _truncated_svd(A, k, self.algorithm, self.n_iter, 10, "auto", 0.0,
                               check_random_state(self.random_state), log)
        log.summary(f"Algorithm {self.algorithm}", n_components=k, largest_singular_value=float(s[0]))
        _, self.components_ = _flip_signs(None, Vt)
        self.singular_values_ = s
        self.n_components_ = k
        self.document_vectors_ = np.asarray(A @ self.components_.T)
        return self

    def _weight(self, X):
        """w(X), sparse in, sparse out."""
        if self.weighting == "none":
            return X
        if self.weighting == "binary":
            return (X > 0).astype(np.float64)
        if self.weighting == "tf":
            return X
        X = unit_rows(X)  # (before the idf's factors: counts near 1e308 times them overflowed)
        W = X.multiply(self.idf_).tocsr() if scipy.sparse.issparse(X) else X * self.idf_
        norms = np.sqrt(np.asarray(W.multiply(W).sum(axis=1)).ravel() if scipy.sparse.issparse(W)
                        else np.einsum("ij,ij->i", W, W))
        norms[norms == 0] = 1.0
        return scipy.sparse.diags(1.0 / norms) @ W if scipy.sparse.issparse(W) else W / norms[:, None]

    def transform(self, X):
        """Fold documents or queries into the latent space: w(X) V_k."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse=("csr", "csc"))
        _check_non_negative(X)
        with np.errstate(over="ignore", invalid="ignore"):
            folded = self._fold(X)
        if not np.isfinite(folded).all():
            raise ValueError(f"LatentSemanticIndexing: the folded documents overflow float64 (counts up to "
                             f"{largest_magnitude(X):.3g}); rescale them. (similarity and query do not depend on "
                             f"the scale of a row.)")
        return folded

    def _fold(self, X):
        return np.asarray(self._weight(X) @ self.components_.T)

    def similarity(self, Q):
        """Cosine similarities (n_queries, n_documents) between folded queries and the indexed documents."""
        check_is_fitted(self)
        Q = check_predict_data(self, Q, accept_sparse=("csr", "csc"))
        _check_non_negative(Q)
        # Every weighting leaves a row's cosines unchanged by its scale: each query is folded at a
        # largest count in [0.5, 1), and the folded rows taken to unit length (a zero row stays 0).
        # Dot products and norms of weights near 1e160 overflowed (every similarity NaN).
        return _unit_length(self._fold(unit_rows(Q))) @ _unit_length(self.document_vectors_).T

    def query(self, q, top_n=10):
        """The top_n documents for query q, best first: (indices, cosine scores).

        q is one query (1-D, term counts over the fitted vocabulary) or several (2-D or sparse
        rows); for several, both outputs have one row per query. Ties keep document order.
        """
        single = not scipy.sparse.issparse(q) and np.ndim(q) == 1
        Q = check_array(np.atleast_2d(q) if single else q, dtype=np.float64, accept_sparse=("csr", "csc"))
        if not isinstance(top_n, Integral) or top_n < 1:
            raise ValueError(f"top_n must be a positive int; got {top_n!r}.")
        scores = self.similarity(Q)
        top_n = min(top_n, scores.shape[1])
        order = np.argsort(-scores, axis=1, kind="stable")[:, :top_n]
        best = np.take_along_axis(scores, order, axis=1)
        return (order[0], best[0]) if single else (order, best)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # "full" densifies the (small) weighted matrix itself
        tags.input_tags.positive_only = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags

    @property
    def _n_features_out(self):
        return self.components_.shape[0]


def _check_non_negative(X):
    values = X.data if scipy.sparse.issparse(X) else X
    if values.size and values.min() < 0:
        raise ValueError("Negative values in data passed to LatentSemanticIndexing: it expects non-negative "
                         "term counts or weights.")


def _unit_length(V):
    """The rows of V divided by their Euclidean lengths (zero rows stay zero), scaled by a power of
    two first (:func:`unit_rows`) so that the squares neither overflow nor underflow."""
    U = unit_rows(V)
    norms = np.sqrt(np.einsum("ij,ij->i", U, U))
    return U / np.where(norms > 0, norms, 1.0)[:, None]
