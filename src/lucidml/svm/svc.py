"""C-support vector classification by SMO."""

import dataclasses
import warnings
from typing import ClassVar

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..utils import (
    N_JOBS,
    VERBOSE,
    IterationLog,
    Options,
    cancel_flag,
    check_sample_weight,
    interruptible,
    thread_count,
    validate_params,
)
from ..utils._pool import pool_map
from ..utils.linalg import blas_threads
from ..utils.validation import check_classification_targets, class_weights
from ._base import _BaseSVM, solve_dual
from ._multiclass import (
    binary_problems,
    collect_support,
    ovo_dual_coef,
    ovo_votes,
    ovr_shape,
)
from ._platt import (
    clip_pairwise,
    cross_val_decision,
    pairwise_coupling,
    sigmoid_fit,
    sigmoid_predict,
)

# Samples summed over the sub-problems below which they are solved on one thread.
SERIAL_BELOW = 5_000


class SVC(ClassifierMixin, _BaseSVM):
    """Support vector classifier with a kernel, trained on its dual by SMO.

    For labels yᵢ = ±1 it solves the soft-margin dual (seeds: 000 §6.3, §6.7–6.9, (6.10); 002 §5.3;
    004 §10)

        max_α  W(α) = Σᵢ αᵢ − ½ Σᵢ Σⱼ αᵢαⱼ yᵢyⱼ k(xᵢ, xⱼ)   s.t.  Σᵢ αᵢyᵢ = 0,  0 ≤ αᵢ ≤ Cᵢ,

    with Cᵢ = C · class_weight[yᵢ] · sample_weightᵢ, and predicts sign(Σᵢ αᵢyᵢ k(xᵢ, x) + b)
    ((6.3) with the kernel in place of ⟨·,·⟩). The solver ("smo") is SMO on pairs of
    multipliers (000 (6.11)–(6.16)) with the second-order pair choice of Fan, Chen & Lin (2005),
    an LRU cache of kernel columns and shrinking — the method of libsvm, which scikit-learn's SVC
    wraps; see :mod:`lucidml.svm._smo`. It stops when the largest KKT violation
    max_{I_up} −yₜ∇ₜ − min_{I_low} −yₜ∇ₜ (000 (6.17)) is below ``tol``. b is the mean of
    yₜ − Σ αₛyₛk(xₛ, xₜ) over free support vectors (0 < αₜ < Cₜ), else the middle of its feasible
    range (⚠ not 002 (5.47), which holds only for hard margins). ``solver="simplified"`` runs the
    notes' own Algorithm 6 (random partners, error cache) for comparison.

    Several classes: one-vs-one (default; a vote over the k(k−1)/2 pair classifiers, as libsvm)
    or true one-vs-rest (k classifiers, the largest decision value wins) (004 §10).
    ``probability=True`` adds Platt's sigmoid, fitted on 5-fold cross-validated decision values,
    and couples the pairs by Wu, Lin & Weng (2004); see :mod:`lucidml.svm._platt`.

    Parameters
    ----------
    C : float, default=1.0
        Bound on each multiplier (inverse regularisation strength), > 0.
    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}, a name of KERNELS or callable, default="rbf"
        k(x, z). The four libsvm kernels are computed by compiled code in column or BLAS blocks;
        other names and callables go through :func:`lucidml.kernels.pairwise.pairwise_kernels`
        (the whole n × n Gram matrix). "precomputed": X is the Gram matrix (and at predict time
        the kernel of new samples against the training samples).
    degree : int, default=3
        d of the polynomial kernel (γxᵀz + c₀)^d.
    gamma : {"scale", "auto"} or float, default="scale"
        γ of rbf, poly and sigmoid: "scale" is 1/(n_features · Var(X)), "auto" 1/n_features.
        (⚠ 000 §6.10.3 calls the KKT tolerance "gamma"; here that is ``tol``.)
    coef0 : float, default=0.0
        c₀ of the poly and sigmoid kernels.
    shrinking : bool, default=True
        Set aside multipliers stuck at a bound during the solve (faster; same solution).
    probability : bool, default=False
        Fit Platt's sigmoid by internal 5-fold cross-validation (five more fits per sub-problem),
        enabling ``predict_proba``.
    tol : float, default=1e-3
        KKT tolerance of the stopping rule.
    cache_size : float, default=200
        Memory for kernel values in MB. When the whole n × n Gram matrix fits, it is computed
        once (one BLAS product) and shared by all sub-problems; otherwise the sub-problems solved
        at once (``n_jobs``) divide it among their column caches.
    class_weight : dict, "balanced" or None, default=None
        Multiplies C per class.
    max_iter : int, default=-1
        Iterations per sub-problem at most (SMO pair steps; sweeps for "simplified"); −1 for no
        limit (in practice max(10⁷, 100·n), as libsvm). A ConvergenceWarning says when it is hit.
    decision_function_shape : {"ovo", "ovr"}, default="ovr"
        Shape of ``decision_function`` for one-vs-one models with more than two classes: the
        pairwise values, or one column per class (votes plus a tie-breaking confidence).
    break_ties : bool, default=False
        With "ovr" shape and more than two classes, predict the argmax of ``decision_function``
        instead of the plain vote.
    random_state : int, RandomState instance or None, default=None
        The folds of ``probability`` and the partner order of ``solver="simplified"``.
    solver : {"smo", "simplified"}, default="smo"
        The production SMO, or the notes' simplified SMO (000 Alg 6; whole Gram matrix in memory,
        ends after 5 sweeps without change).
    multiclass : {"ovo", "ovr"}, default="ovo"
        One-vs-one voting, or true one-vs-rest training.
    n_jobs : None, -1 or int ≥ 1, default=None
        Sub-problems solved in parallel threads (joblib); the compiled solver releases the GIL.
        None follows ``lucidml.set_config(n_threads=...)`` (every core by default), -1 is every core; small
        problems run on one thread.
    verbose : int, default=0
        1 or more prints, on standard output, one line per binary sub-problem once its SMO has
        returned (the iterations run inside one compiled kernel): ``Sub-problem t (classes),
        n_iter = …, objective = …, n_support = …``, the values of ``n_iter_`` and of the last entry
        of ``loss_curve_``; 0 prints nothing.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_weight_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors, grouped by class.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Empty for kernel="precomputed".
    n_support_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray
        αᵢyᵢ of the support vectors. One-vs-one: shape (n_classes − 1, n_SV) in scikit-learn's
        layout; one-vs-rest: (n_classes, n_SV), row c for classifier c.
    intercept_ : ndarray of shape (n_problems,)
        b of each binary problem.
    coef_ : ndarray of shape (n_problems, n_features)
        w = Σ αᵢyᵢxᵢ; kernel="linear" only.
    fit_status_ : int
        0 if every sub-problem converged, 1 if one stopped at ``max_iter``.
    n_iter_ : ndarray of shape (n_problems,)
        Iterations of each sub-problem.
    loss_curve_ : list of ndarray
        ½αᵀQα − Σα (= −W(α)) after each iteration, one array per sub-problem.
    probA_, probB_ : ndarray of shape (n_problems,)
        Platt's A and B (``probability=True``).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.svm.svc import SVC
    >>> X = np.array([[-1.0, -2.0], [1.0, -1.0], [0.0, 2.0], [1.0, 3.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> clf = SVC(kernel="linear", C=10.0).fit(X, y)
    >>> clf.predict([[0.0, -3.0], [0.0, 4.0]])
    array([ 1, -1])
    >>> clf.coef_.round(3), clf.intercept_.round(3)
    (array([[ 0.2, -0.6]]), array([0.2]))
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseSVM._parameter_constraints,
        "probability": ["boolean"],
        "class_weight": [dict, Options({"balanced"}), None],
        "decision_function_shape": [Options({"ovo", "ovr"})],
        "break_ties": ["boolean"],
        "random_state": ["random_state"],
        "solver": [Options({"smo", "simplified"})],
        "multiclass": [Options({"ovo", "ovr"})],
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
    }

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, shrinking=True,
                 probability=False, tol=1e-3, cache_size=200, class_weight=None, max_iter=-1,
                 decision_function_shape="ovr", break_ties=False, random_state=None, solver="smo",
                 multiclass="ovo", n_jobs=None, verbose=0):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.solver = solver
        self.multiclass = multiclass
        self.n_jobs = n_jobs
        self.verbose = verbose

    @interruptible
    def fit(self, X, y, sample_weight=None):
        """Solve one dual per binary sub-problem; returns self."""
        validate_params(self)
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'.")
        X, y = self._check_X(X, y)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(f"The number of classes has to be greater than one; got {n_classes} class.")
        weight = check_sample_weight(sample_weight, X.shape[0])
        self.class_weight_ = class_weights(self.class_weight, self.classes_, y)
        upper = self.C * self.class_weight_[y_idx] * (1.0 if weight is None else weight)
        weighted = np.unique(y_idx[upper > 0])
        if len(weighted) == 0:
            raise ValueError("No sample has a positive weight C · class_weight · sample_weight.")
        if len(weighted) < 2:  # (scikit-learn's rule too: nothing to separate)
            only = self.classes_[weighted[0]].tolist()
            raise ValueError(f"All samples with a positive weight belong to one class ({only!r}); SVC needs two "
                             "classes with positive weight.")
        rng = check_random_state(self.random_state)

        scheme = self.multiclass if n_classes > 2 else "ovo"
        # Platt's cross-validation and one-vs-rest fit every sample many times; so does one-vs-one
        # on a wide table, where one kernel column (m·d) costs more than the samples' whole share
        # of one BLAS Gram matrix (nci60, 57 × 6,830 and 14 classes: 8.3 → 5.2 ms a fit, where on
        # digits, 1,257 × 64, the Gram matrix made the fit 21 → 26 ms).
        wide = n_classes > 2 and X.shape[1] >= X.shape[0]
        source = self._kernel_source(X, share_gram=self.probability or scheme == "ovr" or wide)
        problems = binary_problems(y_idx, n_classes, upper > 0, scheme)
        solutions = self._solve_all(source, [(samples, y_pm, upper[samples]) for _, samples, y_pm in problems], rng)

        support, n_support, coef = collect_support(y_idx, n_classes, problems, solutions)
        intercept = np.array([sol.intercept for sol in solutions])
        self._check_solution(coef, intercept, X)
        self.support_, self.n_support_ = support, n_support
        if n_classes == 2:  # scikit-learn's sign: positive decision values mean classes_[1]
            coef, intercept = -coef, -intercept
        self._pair_coef = coef
        self.intercept_ = intercept
        if scheme == "ovr" or n_classes == 2:
            self.dual_coef_ = coef.T.copy()
        else:
            self.dual_coef_ = ovo_dual_coef(y_idx, self.support_, n_classes, problems, coef)
        self.support_vectors_ = np.empty((0, X.shape[1])) if self.kernel == "precomputed" else X[self.support_]
        self._scheme = scheme
        self.n_iter_ = np.array([sol.n_iter for sol in solutions], dtype=np.int32)
        self.loss_curve_ = [sol.objective for sol in solutions]
        log = IterationLog(self.verbose)
        for t, ((classes, _, _), sol) in enumerate(zip(problems, solutions)):
            log.summary(f"Sub-problem {t} ({' vs '.join(str(self.classes_[c]) for c in classes)})", n_iter=sol.n_iter,
                        objective=sol.objective[-1] if len(sol.objective) else np.nan,
                        n_support=int(np.count_nonzero(sol.alpha)))
        self.fit_status_ = int(any(sol.status for sol in solutions))
        if self.fit_status_:
            warnings.warn(f"SMO stopped at max_iter={self.max_iter} before the KKT conditions held to tol={self.tol}; "
                          "consider scaling the data (StandardScaler) or raising max_iter.", ConvergenceWarning,
                          stacklevel=2)
        if any(sol.non_psd for sol in solutions):
            warnings.warn("The kernel matrix is not positive semi-definite (a pair with k(xᵢ,xᵢ) + k(xⱼ,xⱼ) − "
                          "2k(xᵢ,xⱼ) < 0 was met): the dual is not concave and SMO returns a local solution.",
                          UserWarning, stacklevel=2)
        if self.probability:
            self._fit_platt(source, problems, upper, rng)
        return self

    def _solve_all(self, source, tasks, rng):
        simplified = self.solver == "simplified"
        seeds = rng.randint(np.iinfo(np.int32).max, size=len(tasks)) if simplified else [None] * len(tasks)
        # The pool's threads do not see this thread's cancel flag: hand it over.
        options = {"tol": self.tol, "max_iter": self.max_iter, "shrinking": self.shrinking, "solver": self.solver,
                   "cancel": cancel_flag()}

        def one(task, seed):
            samples, y_pm, upper = task
            return solve_dual(source, samples, y_pm, -np.ones(len(y_pm)), upper,
                              random_state=np.random.RandomState(seed) if simplified else None, **options)

        # One sub-problem, or small ones (a few hundred samples each solve in about a millisecond): one thread.
        work = sum(len(task[0]) for task in tasks) if len(tasks) > 1 else 0
        threads = thread_count(self.n_jobs, work=work, serial_below=SERIAL_BELOW)
        # cache_size is the fit's memory for kernel columns: the sub-problems solved at once share it
        # (each thread had its own, and 16 threads held 16 × 200 MB).
        source = dataclasses.replace(source, cache_bytes=source.cache_bytes // max(1, min(threads, len(tasks))))
        # The shared pool: joblib would start threads and poll for results on every fit (~5 ms on digits).
        with blas_threads(1):  # the BLAS setting is per process: it holds in the pool's threads too
            return pool_map(threads, one, tasks, seeds)

    def _fit_platt(self, source, problems, upper, rng):
        """Platt's (A, B) per sub-problem from 5-fold cross-validated decision values."""
        self.probA_ = np.empty(len(problems))
        self.probB_ = np.empty(len(problems))
        for p, (_, samples, y_pm) in enumerate(problems):
            def fit_decision(train, test, samples=samples, y_pm=y_pm):
                sol = self._solve_all(source, [(samples[train], y_pm[train], upper[samples[train]])], rng)[0]
                sv = sol.alpha > 0
                K = source.cross(samples[test], samples[train][sv])
                return K @ (sol.alpha[sv] * y_pm[train][sv]) + sol.intercept

            decision = cross_val_decision(fit_decision, y_pm, rng)
            self.probA_[p], self.probB_[p] = sigmoid_fit(decision, y_pm)

    def _raw_decision(self, X):
        """Σ αᵢyᵢ k(xᵢ, x) + b per sub-problem, shape (n, n_problems), with the public sign."""
        return self._kernel_times(X, self._pair_coef) + self.intercept_

    def decision_function(self, X):
        """Binary: (n,), positive for classes_[1]. Otherwise (n, n_classes) ("ovr" shape or one-vs-rest
        training) or (n, n_pairs) ("ovo" shape; pair (a, b) positive for a)."""
        check_is_fitted(self)
        decision = self._raw_decision(X)
        if len(self.classes_) == 2:
            return decision[:, 0]
        if self._scheme == "ovo" and self.decision_function_shape == "ovr":
            return ovr_shape(decision, len(self.classes_))
        return decision

    def predict(self, X):
        """Class of each sample: sign for two classes, pairwise vote (one-vs-one) or argmax (one-vs-rest)."""
        check_is_fitted(self)
        decision = self._raw_decision(X)
        n_classes = len(self.classes_)
        if n_classes == 2:
            return self.classes_[(decision[:, 0] >= 0).astype(int)]
        if self._scheme == "ovr":
            return self.classes_[np.argmax(decision, axis=1)]
        if self.break_ties and self.decision_function_shape == "ovr":
            return self.classes_[np.argmax(ovr_shape(decision, n_classes), axis=1)]
        return self.classes_[ovo_votes(decision, n_classes)]

    @available_if(lambda self: self.probability)
    def predict_proba(self, X):
        """P(class | x) from Platt's sigmoids (coupled by Wu–Lin–Weng for more than two classes)."""
        check_is_fitted(self)
        decision = self._raw_decision(X)
        n_classes = len(self.classes_)
        if n_classes == 2:  # the sigmoid was fitted with y = +1 for classes_[0]
            p0 = clip_pairwise(sigmoid_predict(-decision[:, 0], self.probA_[0], self.probB_[0]))
            return np.column_stack([p0, 1.0 - p0])
        pairwise = clip_pairwise(sigmoid_predict(decision, self.probA_, self.probB_))
        if self._scheme == "ovr":
            return pairwise / pairwise.sum(axis=1, keepdims=True)
        return pairwise_coupling(pairwise, n_classes)

    @available_if(lambda self: self.probability)
    def predict_log_proba(self, X):
        """log of :meth:`predict_proba`."""
        check_is_fitted(self)
        return np.log(self.predict_proba(X))
