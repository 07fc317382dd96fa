"""Classifier statuses Λ as discriminant functions g(X) -> (n, J) (Ha et al. 2021, §3, eq 5).

One adapter type, :class:`Discriminant`, wraps any source: an SVC (``decision_function``, computed by
matrix products: :func:`svc_decision_function`), an MLP or any probabilistic model
(``log predict_proba``), the prototype classifier (eq 35), or a plain callable.
Status factories build the statuses a sweep walks through: an SVC at γ, an MLP at an epoch.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from buviz._validation import (
    RANDOM_STATE,
    Interval,
    InvalidParameterError,
    SequenceOf,
    check_int,
    check_real,
    check_X,
    check_Xy,
    fit_context,
)
from buviz.grid import near_boundaryness, top2, top2_difference

__all__ = [
    "Discriminant",
    "RESPONSES",
    "as_discriminant",
    "svc_decision_function",
    "PrototypeClassifier",
    "svm_status",
    "mlp_statuses",
    "rmsprop_mlp_statuses",
    "top2",
    "near_boundaryness",
    "boundary_score",
]


@dataclass
class Discriminant:
    """A classifier status Λ seen through its discriminants g(X) (Ha et al. 2021, eq 5).

    Calling it returns an array (n, J); column j is g_j, larger means "more class j". Build one
    with :func:`as_discriminant` rather than directly.

    Parameters
    ----------
    func : callable
        ``X (n, d) -> (n, J)`` class scores, or ``(n,)`` scores s for two classes (read as
        g = [−s, s]).
    n_classes : int
        J, the number of classes.
    name : str, default=""
        A label for plots and tables.
    estimator : object, optional
        The fitted estimator behind ``func``, if any.
    n_calls : int, default=0
        Classifier calls so far (the CL_calls cost of Ha et al. 2021, §5).
    n_evaluated : int, default=0
        Samples evaluated so far.
    remake : callable, optional
        ``estimator -> Discriminant`` read the same way (set by :func:`as_discriminant`); used by
        :meth:`frozen`.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """

    func: Callable[[np.ndarray], np.ndarray]
    n_classes: int
    name: str = ""
    estimator: object | None = None
    n_calls: int = field(default=0, compare=False)
    n_evaluated: int = field(default=0, compare=False)
    remake: Callable[[object], Discriminant] | None = field(default=None, compare=False, repr=False)

    def frozen(self) -> Discriminant:
        """A discriminant that later changes to the estimator cannot reach (for a result to hold).

        Returns
        -------
        Discriminant
            Over a deep copy of :attr:`estimator`, read the same way, its counts at zero; ``self``
            when it wraps a plain callable, which the caller owns, or a function put in place of the
            estimator's own reading (e.g. one sharing a neighbour search across candidates).

        Warns
        -----
        UserWarning
            When the estimator cannot be copied (``copy.deepcopy`` raises): ``self`` is returned.
        """
        if self.estimator is None or self.remake is None or not getattr(self.func, "reads_estimator", False):
            return self
        try:
            est = copy.deepcopy(self.estimator)
        except Exception as exc:  # a lock, a handle: the result keeps the live classifier
            warnings.warn(f"{type(self.estimator).__name__} cannot be copied ({exc}): the result reads the "
                          f"classifier itself, so refitting it changes what the result computes", stacklevel=3)
            return self
        return self.remake(est)

    def __call__(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        g = np.asarray(self.func(X), dtype=float)
        if g.ndim == 1 and self.n_classes == 2:
            g = np.column_stack([-g, g])
        if g.shape != (len(X), self.n_classes):
            raise ValueError(f"discriminant must return shape ({len(X)}, {self.n_classes}), got {g.shape}")
        self.n_calls += 1
        self.n_evaluated += len(X)
        return g

    def predict(self, X) -> np.ndarray:
        """Return the predicted class index (the largest discriminant) of every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            Class indexes in 0..J-1.
        """
        return np.argmax(self(X), axis=1)


#: How a fitted scikit-learn classifier is read as discriminants g(X) (see :func:`as_discriminant`).
RESPONSES = ("auto", "decision_function", "predict_proba", "log_proba")


def _is_fitted(est) -> bool:
    try:
        check_is_fitted(est)
    except Exception:  # NotFittedError, or a non-estimator object that check_is_fitted refuses
        return hasattr(est, "classes_")
    return True


def as_discriminant(source, n_classes: int | None = None, name: str = "", *, classes=None,
                    response: str = "auto") -> Discriminant:
    """Adapt a fitted scikit-learn classifier or a callable to a :class:`Discriminant`.

    Parameters
    ----------
    source : fitted classifier, callable or :class:`Discriminant`
        A fitted scikit-learn classifier (any labels; a :class:`~sklearn.pipeline.Pipeline` too), a
        plain callable X -> (n, J) (``n_classes`` required), or a :class:`Discriminant` (returned
        as is).
    n_classes : int, optional
        J, for a plain callable.
    name : str, default=""
        A label for plots and tables (default: the estimator's class name).
    classes : array-like, optional
        The labels of the training set the discriminant will be compared with, in column order
        (e.g. ``BoundaryUncertainty.classes_``). The estimator's columns are reordered to match;
        an estimator fitted on other labels is refused. Default: the estimator's ``classes_``.
    response : {"auto", "decision_function", "predict_proba", "log_proba"}, default="auto"
        How a scikit-learn classifier gives g (eq 5):

        - ``"decision_function"``: for J = 2, g = [−s, s]; for J > 2 the (n, J) one-vs-rest scores
          (an SVC's by matrix products, :func:`svc_decision_function`);
        - ``"predict_proba"``: g = P(C_j | x). The top-2 difference f = P_i − P_j (eq 12) is the
          posterior difference, bounded in [−1, 1]; it does not saturate where a probability is
          exactly 0 or 1 (k-NN, forests), as differences of log-probabilities do;
        - ``"log_proba"``: g = log P (clipped at 1e-300), differences of logits for a softmax model;
        - ``"auto"``: ``decision_function`` when the estimator has one, else ``predict_proba``.

    Returns
    -------
    Discriminant
        The status; ``source`` itself if it is already a :class:`Discriminant`.

    Raises
    ------
    InvalidParameterError
        ``source`` is a class rather than an instance, has no ``decision_function`` /
        ``predict_proba``, or is a callable without ``n_classes``; an unknown ``response``.
    sklearn.exceptions.NotFittedError
        ``source`` is an unfitted scikit-learn estimator.
    ValueError
        The estimator was fitted on labels that do not match ``classes``.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    if isinstance(source, Discriminant):
        return source
    if isinstance(source, type):
        raise InvalidParameterError(f"source must be a fitted instance, e.g. {source.__name__}().fit(X, y), "
                                    f"not the class {source.__name__}")
    if response not in RESPONSES:
        raise InvalidParameterError(f"response must be one of {RESPONSES}, got {response!r}")
    if hasattr(source, "fit") and (hasattr(source, "predict") or hasattr(source, "decision_function")
                                   or hasattr(source, "predict_proba")):
        from sklearn.exceptions import NotFittedError

        if not _is_fitted(source):
            raise NotFittedError(f"this {type(source).__name__} instance is not fitted yet: call "
                                 f"fit(X, y) on the training set before scoring it")
    if hasattr(source, "classes_"):
        est_classes = np.asarray(source.classes_)
        J = len(est_classes)
        has_df, has_pp = hasattr(source, "decision_function"), hasattr(source, "predict_proba")
        kind = response
        if kind == "auto":
            kind = "decision_function" if has_df else "predict_proba"
        if kind == "decision_function" and not has_df or kind != "decision_function" and not has_pp:
            raise InvalidParameterError(f"source: the classifier {type(source).__name__} has neither "
                                        f"decision_function nor predict_proba" if not (has_df or has_pp) else
                                        f"source: the classifier {type(source).__name__} has no "
                                        f"{'decision_function' if kind == 'decision_function' else 'predict_proba'} "
                                        f"(response={response!r})")
        if classes is None:
            order = np.arange(J)
        else:
            classes = np.asarray(classes)
            if len(classes) != J or not np.array_equal(np.sort(est_classes.astype(object)),
                                                       np.sort(classes.astype(object))):
                raise ValueError(f"the classifier was fitted on labels {est_classes.tolist()[:10]}, the training "
                                 f"set has labels {classes.tolist()[:10]}: fit it on the same y")
            pos = {c: n for n, c in enumerate(est_classes.tolist())}
            order = np.array([pos[c] for c in classes.tolist()])
        return _estimator_discriminant(source, J, kind, order, name or type(source).__name__)
    if callable(source):
        if n_classes is None:
            raise InvalidParameterError("n_classes is required to adapt a plain callable (an integer >= 2)")
        return Discriminant(source, check_int(n_classes, "n_classes", low=2), name=name or "callable")
    raise InvalidParameterError(f"source: cannot adapt {type(source).__name__} to a discriminant: pass a "
                                f"fitted classifier with decision_function or predict_proba, or a "
                                f"callable X -> (n, J)")


def _estimator_discriminant(est, J: int, kind: str, order: np.ndarray, name: str) -> Discriminant:
    """The discriminant of a fitted estimator ``est`` read through ``kind``, its columns in ``order``."""
    identity = np.array_equal(order, np.arange(J))
    if kind == "decision_function":
        def func(X, est=est):
            s = svc_decision_function(est, X)
            return np.column_stack([-s, s]) if np.ndim(s) == 1 else s
    elif kind == "predict_proba":
        def func(X, est=est):
            return est.predict_proba(X)
    else:
        def func(X, est=est):
            return np.log(np.clip(est.predict_proba(X), 1e-300, None))
    if not identity:
        inner = func

        def func(X, inner=inner, order=order):
            return np.asarray(inner(X))[:, order]
    func.reads_estimator = True  # Discriminant.frozen remakes it over a copy of est
    return Discriminant(func, J, name=name, estimator=est,
                        remake=functools.partial(_estimator_discriminant, J=J, kind=kind, order=order, name=name))


#: Kernels whose decision function :func:`svc_decision_function` computes by matrix products.
_BLAS_KERNELS = ("rbf", "linear", "poly", "sigmoid")

#: Kernel-matrix entries (query rows x support vectors) computed at once by
#: :func:`svc_decision_function`: 2 MB of float64, so that the passes over a chunk stay in cache.
_KERNEL_CHUNK = 262_144


def _blas_ready(est, X) -> bool:
    """Whether :func:`svc_decision_function` computes ``est.decision_function(X)`` itself."""
    from sklearn.svm import SVC, NuSVC

    # exact types only: a subclass may change how the decision function is read
    if type(est) not in (SVC, NuSVC) or not isinstance(est.kernel, str) or est.kernel not in _BLAS_KERNELS:
        return False
    sv = getattr(est, "support_vectors_", None)
    if sv is None or sp.issparse(sv) or not hasattr(est, "_gamma"):
        return False
    if est.decision_function_shape not in ("ovr", "ovo"):
        return False
    # a plain float array of the fitted width; anything else (sparse, DataFrame, NaN, wrong width)
    # goes to the estimator, which checks it and raises its own errors
    return (isinstance(X, np.ndarray) and X.dtype.kind == "f" and X.ndim == 2 and X.shape[1] == sv.shape[1]
            and bool(np.isfinite(X).all()))


def _ovo_pairs(n_support: np.ndarray) -> tuple[list[slice], list[np.ndarray]]:
    """Per class c: its support vectors' slice, and for each row r of ``dual_coef_`` the pair index.

    libsvm stores the support vectors grouped by class, and for a support vector of class c the
    coefficient of the pair (c, o) in row o − 1 if o > c, else in row o; the pairs (i, j), i < j,
    are numbered in the order (0, 1), (0, 2), …, (0, J−1), (1, 2), … .
    """
    J = len(n_support)
    pair = {}
    for i in range(J):
        for j in range(i + 1, J):
            pair[i, j] = len(pair)
    ends = np.cumsum(n_support)
    slices = [slice(int(e - n), int(e)) for e, n in zip(ends, n_support, strict=True)]
    rows = [np.array([pair[min(c, o), max(c, o)] for o in range(J) if o != c]) for c in range(J)]
    return slices, rows


#: Rounding of −γ||x − s||² computed as 2γ x·s − γ||x||² − γ||s||², relative to γ(||x||² + ||s||²):
#: a few units in the last place (the sum cancels where x is close to s).
_EXPANSION_ROUNDING = 4 * np.finfo(float).eps
#: Kernel entries whose error this rounding could push above ``_KERNEL_TOL`` are recomputed from
#: the differences x − s, as libsvm computes every entry.
_KERNEL_TOL = 1e-12


def _rbf_augment(X: np.ndarray, sq: np.ndarray, gamma: float, left: bool) -> np.ndarray:
    """[2γ x, −γ||x||², 1] (left) or [s, 1, −γ||s||²] (right): their product is −γ ||x − s||²."""
    ones = np.ones(len(X))
    if left:
        return np.column_stack([2.0 * gamma * X, -gamma * sq, ones])
    return np.column_stack([X, ones, -gamma * sq])


def _rbf_rows(X: np.ndarray, sv: np.ndarray, sv_sq: np.ndarray, sv_aug: np.ndarray, gamma: float,
              out: np.ndarray) -> np.ndarray:
    """exp(−γ ||x − s||²) for the rows of ``X`` and every support vector, both centred alike.

    One matrix product gives the exponent; the entries close enough to 1 for the expansion's
    rounding to matter (x near s, large γ) are recomputed from x − s. The values are written to
    ``out`` (shape (len(X), len(sv)), C-contiguous) and returned, unless more than a quarter need
    recomputing, when a new array from the differences is returned.
    """
    x_sq = np.einsum("ij,ij->i", X, X)
    K = np.matmul(_rbf_augment(X, x_sq, gamma, left=True), sv_aug.T, out=out)
    # no clipping at 0: an exponent that rounding lifted above 0 is within err of it, so its
    # exp(·) ≤ 1 + err is as close to the kernel as a clipped 1; where err could matter it is
    # recomputed below (tol / err < 1 ≤ such an entry)
    np.exp(K, out=K)
    err = _EXPANSION_ROUNDING * gamma * (x_sq.max() + sv_sq.max())  # about the largest |ΔK| / K here
    if err > _KERNEL_TOL:
        r, c = np.nonzero(K > _KERNEL_TOL / err)
        if len(r) > K.size // 4:
            K = np.exp(-gamma * cdist(X, sv, "sqeuclidean"))
        elif len(r):
            diff = X[r] - sv[c]
            K[r, c] = np.exp(-gamma * np.einsum("ij,ij->i", diff, diff))
    return K


def _kernel_rows(est, X: np.ndarray, sv: np.ndarray, out: np.ndarray) -> np.ndarray:
    """K(x, s) for the rows of ``X`` and every support vector s ("linear", "poly", "sigmoid"), in ``out``."""
    K = np.matmul(X, sv.T, out=out)
    gamma = float(est._gamma)
    if est.kernel == "poly":
        K *= gamma
        K += est.coef0
        K **= est.degree
    elif est.kernel == "sigmoid":
        K *= gamma
        K += est.coef0
        np.tanh(K, out=K)
    return K


def _ovr_from_ovo(dec: np.ndarray, n_classes: int) -> np.ndarray:
    """One-vs-rest scores from one-vs-one decision values, as scikit-learn's ``SVC`` defines them.

    For the pair (i, j), i < j, a value ≥ 0 is a vote for i, < 0 a vote for j; each class's score
    is its votes plus s / (3 (|s| + 1)), s the sum of its pairs' decision values taken towards it
    (the second term is below 1/3 in size, so it only breaks ties between vote counts).
    """
    n = len(dec)
    votes = np.zeros((n, n_classes))
    conf = np.zeros((n, n_classes))
    p = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            d = dec[:, p]
            conf[:, i] += d
            conf[:, j] -= d
            win_i = d >= 0
            votes[:, i] += win_i
            votes[:, j] += ~win_i
            p += 1
    return votes + conf / (3.0 * (np.abs(conf) + 1.0))


def svc_decision_function(estimator, X) -> np.ndarray:
    """Return ``estimator.decision_function(X)``, by matrix products for a fitted dense SVC or NuSVC.

    For a :class:`sklearn.svm.SVC` or :class:`sklearn.svm.NuSVC` (exactly these classes) fitted on
    dense data with ``kernel`` in {"rbf", "linear", "poly", "sigmoid"}, and a dense float array
    ``X``, the kernel matrix between ``X`` and ``support_vectors_`` is computed by one matrix
    product per row chunk (for "rbf": ||x − s||² = ||x||² + ||s||² − 2 x·s; the few
    entries where that expansion's rounding could show, x close to s under a large γ, are
    recomputed from x − s as libsvm computes every entry), the one-vs-one decision values from
    ``dual_coef_`` and ``intercept_``, and for ``decision_function_shape="ovr"`` scikit-learn's
    one-vs-rest transform (votes plus the normalised sum of decision values). The result equals
    scikit-learn's own to rounding (the tests hold it to 1e-10) at a fraction of the cost of
    libsvm's point-by-point kernel loop.
    Anything else (another estimator, a subclass, sparse input, a "precomputed" or callable
    kernel, non-finite ``X``) is passed to ``estimator.decision_function(X)``.

    Parameters
    ----------
    estimator : fitted classifier
        Any classifier with ``decision_function``; the fast path applies to SVC and NuSVC.
    X : array-like of shape (n_samples, n_features)
        Samples.

    Returns
    -------
    ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes) ("ovr") or
    (n_samples, n_classes (n_classes − 1) / 2) ("ovo")
        The decision function, as ``estimator.decision_function(X)`` returns it.

    Notes
    -----
    The RBF width is read from the fitted ``_gamma``: scikit-learn resolves ``gamma="scale"``
    from the variance of the training data at fit time and keeps that value only there.
    ``break_ties`` changes ``predict``, not the decision function. The rows are processed in
    chunks of about 2.6·10⁵ kernel entries (2 MB, at least 16 rows).
    """
    if not _blas_ready(estimator, X):
        return estimator.decision_function(X)
    sv = estimator.support_vectors_
    J = len(estimator.classes_)
    coef, intercept = estimator.dual_coef_, estimator.intercept_
    rbf = estimator.kernel == "rbf"
    if rbf:
        # distances do not depend on the origin: centring on the support vectors limits the
        # cancellation in ||x||² + ||s||² − 2 x·s
        centre = sv.mean(axis=0)
        gamma = float(estimator._gamma)
        sv = sv - centre
        X = X - centre
        sv_sq = np.einsum("ij,ij->i", sv, sv)
        sv_aug = _rbf_augment(sv, sv_sq, gamma, left=False)
    slices, rows = _ovo_pairs(np.asarray(estimator.n_support_))
    n_pairs = J * (J - 1) // 2
    dec = np.empty((len(X), n_pairs))
    step = max(16, _KERNEL_CHUNK // max(1, len(sv)))
    # one kernel buffer for all chunks: a fresh multi-megabyte array per chunk is mapped anew by
    # the allocator, and its page faults cost as much as the chunk's arithmetic
    buffer = np.empty((min(step, len(X)), len(sv)))
    for start in range(0, len(X), step):
        rows_x = X[start:start + step]
        K_out = buffer[:len(rows_x)]
        K = (_rbf_rows(rows_x, sv, sv_sq, sv_aug, gamma, K_out) if rbf
             else _kernel_rows(estimator, rows_x, sv, K_out))
        out = dec[start:start + step]
        out[:] = intercept
        for sl, pairs in zip(slices, rows, strict=True):
            if sl.stop > sl.start:
                # the class's support vectors contribute to its J − 1 pairs (binary: the public
                # dual_coef_ and intercept_ carry scikit-learn's sign for classes_[1])
                out[:, pairs] += K[:, sl] @ coef[:, sl].T
    if J == 2:
        return dec.ravel()
    if estimator.decision_function_shape == "ovr":
        return _ovr_from_ovo(dec, J)
    return dec


def _sklearn_checked(check):
    """Run a scikit-learn input check; re-raise its ValueError as InvalidParameterError (same message)."""
    try:
        return check()
    except InvalidParameterError:
        raise
    except ValueError as exc:
        raise InvalidParameterError(str(exc)) from None


class PrototypeClassifier(ClassifierMixin, BaseEstimator):
    """Prototype-based classifier (PBC, Ha et al. 2021, eq 35): g_j(x) = −min_k ||x − p_j^k||.

    Prototypes are found by class-wise K-means (scikit-learn ``KMeans`` with ``max_iter`` = i_K).
    Labels may be any values; ``classes_`` holds them and ``predict`` returns them.

    Parameters
    ----------
    n_prototypes : int or sequence of int, default=1
        Prototypes per class: one K for every class, or K_j per class.
    max_iter : int, default=20
        K-means iterations (i_K of Ha et al. 2021, §6.3).
    n_init : int, default=1
        K-means restarts.
    random_state : int, Generator or None, default=0
        Seed of the K-means initialisation.

    Attributes
    ----------
    prototypes_ : list of ndarray
        ``prototypes_[j]`` of shape (K_j, n_features).
    classes_ : ndarray
        The labels, in column order.
    n_features_in_ : int
        Features seen by ``fit``.
    n_iter_ : ndarray of int
        K-means iterations run for each class (0 for :meth:`from_prototypes`).

    Notes
    -----
    Input is checked by scikit-learn's ``validate_data`` (dense, finite, 2-D, the same number of
    features in ``predict`` as in ``fit``); its errors are re-raised as
    :class:`~buviz._validation.InvalidParameterError` with scikit-learn's message. Unlike
    scikit-learn's binary classifiers, ``decision_function`` returns one column per class for
    two classes too: the discriminants g_j(x) of eq 35, which the estimators of this package read.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """

    _parameter_constraints: dict = {
        "n_prototypes": [Interval("int", 1, None), SequenceOf(Interval("int", 1, None))],
        "max_iter": [Interval("int", 1, None)],
        "n_init": [Interval("int", 1, None)],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, n_prototypes=1, max_iter: int = 20, n_init: int = 1, random_state=0):
        self.n_prototypes = n_prototypes
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state

    @fit_context
    def fit(self, X, y) -> PrototypeClassifier:
        """Find each class's prototypes by K-means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples.
        y : array-like of shape (n_samples,)
            Labels (any values, at least two classes).

        Returns
        -------
        PrototypeClassifier
            The fitted classifier (``self``).

        Raises
        ------
        InvalidParameterError
            If a parameter is outside its declared constraints (``_parameter_constraints``), or
            ``n_prototypes`` exceeds the size of a class.
        """
        from sklearn.cluster import KMeans
        from sklearn.utils.multiclass import check_classification_targets

        X, y = _sklearn_checked(lambda: validate_data(self, X, y, dtype=np.float64))
        _sklearn_checked(lambda: check_classification_targets(y))
        classes, y = np.unique(y, return_inverse=True)
        J = len(classes)
        if J < 2:
            raise InvalidParameterError(f"y must hold at least 2 classes, got 1 class ({classes[0]!r})")
        ks = np.broadcast_to(np.asarray(self.n_prototypes), (J,))
        self.prototypes_: list[np.ndarray] = []
        n_iter = []
        for j in range(J):
            Xj = X[y == j]
            k = check_int(ks[j], "n_prototypes", low=1, high=len(Xj))
            km = KMeans(k, max_iter=self.max_iter, n_init=self.n_init, random_state=self.random_state).fit(Xj)
            self.prototypes_.append(km.cluster_centers_)
            n_iter.append(km.n_iter_)
        self.classes_ = classes
        self.n_iter_ = np.asarray(n_iter)
        return self

    @classmethod
    def from_prototypes(cls, prototypes: list[np.ndarray]) -> PrototypeClassifier:
        """Build a fitted classifier from given prototypes (classes 0..J-1).

        Parameters
        ----------
        prototypes : list of array-like
            ``prototypes[j]`` of shape (K_j, n_features).

        Returns
        -------
        PrototypeClassifier
            A classifier ready for ``decision_function`` and ``predict``.
        """
        obj = cls(n_prototypes=[len(p) for p in prototypes])
        obj.prototypes_ = [np.atleast_2d(np.asarray(p, dtype=float)) for p in prototypes]
        obj.classes_ = np.arange(len(prototypes))
        obj.n_features_in_ = obj.prototypes_[0].shape[1]
        obj.n_iter_ = np.zeros(len(prototypes), dtype=int)
        return obj

    def decision_function(self, X) -> np.ndarray:
        """Return g_j(x) = −min_k ||x − p_j^k|| for every class (Ha et al. 2021, eq 35).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Minus the distance to each class's nearest prototype.
        """
        check_is_fitted(self)
        X = _sklearn_checked(lambda: validate_data(self, X, reset=False, dtype=np.float64))
        return np.column_stack([-cdist(X, p).min(1) for p in self.prototypes_])

    def predict(self, X) -> np.ndarray:
        """Return the label of the nearest prototype's class for every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


def svm_status(X, y, gamma: float, C: float = 1.0, **svc_kwargs) -> Discriminant:
    """Fit an RBF SVC at (γ, C) and return its discriminant, one classifier status of a γ sweep.

    The statuses of Ha et al. (2021, §6.1) are RBF SVCs over γ; g is the one-vs-rest decision
    function (g = [−s, s] for two classes).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training samples.
    y : array-like of shape (n_samples,)
        Labels.
    gamma : float
        RBF width γ > 0.
    C : float, default=1.0
        Soft-margin constant C > 0 (not published in the paper).
    **svc_kwargs
        Further arguments of :class:`sklearn.svm.SVC`.

    Returns
    -------
    Discriminant
        The fitted status.

    Raises
    ------
    InvalidParameterError
        If ``gamma`` or ``C`` is not a finite positive number.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    from sklearn.svm import SVC

    gamma = check_real(gamma, "gamma", low=0, low_open=True)
    C = check_real(C, "C", low=0, low_open=True)
    X, y, _ = check_Xy(X, y)
    svc = SVC(kernel="rbf", gamma=gamma, C=C, decision_function_shape="ovr", **svc_kwargs).fit(X, y)
    return as_discriminant(svc, name=f"SVC(gamma=2^{np.log2(gamma):.3g}, C={C:g})")


def mlp_statuses(X, y, epochs, *, hidden_layer_sizes=(128, 64), learning_rate_init: float = 1e-3,
                 batch_size: int = 200, random_state=0) -> Iterator[tuple[int, Discriminant]]:
    """Train one MLP (ReLU, Adam) with ``partial_fit`` and yield its statuses at the given epochs.

    The statuses share one network (Ha et al. 2021, Fig 9): each yielded discriminant is a
    snapshot copy, so later training does not change it; g = log P(C_j | x).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training samples.
    y : array-like of shape (n_samples,)
        Labels.
    epochs : int or sequence of int
        Epochs (>= 1) at which to yield a status.
    hidden_layer_sizes : tuple of int, default=(128, 64)
        The network's hidden layers.
    learning_rate_init : float, default=1e-3
        Adam's learning rate.
    batch_size : int, default=200
        Mini-batch size (at most the number of samples).
    random_state : int, Generator or None, default=0
        Seed of the weights and of the batch order.

    Yields
    ------
    epoch : int
        The epoch of the status.
    status : Discriminant
        The network after ``epoch`` epochs.

    Raises
    ------
    InvalidParameterError
        If an epoch is not an integer >= 1.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    import copy
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    X, y, classes = check_Xy(X, y)
    epochs = sorted({check_int(e, "epochs", low=1) for e in np.atleast_1d(epochs)})
    rng = np.random.default_rng(random_state)
    mlp = MLPClassifier(hidden_layer_sizes=hidden_layer_sizes, activation="relu", solver="adam",
                        learning_rate_init=learning_rate_init, batch_size=min(batch_size, len(X)),
                        random_state=random_state)
    batch = mlp.batch_size
    done = 0
    all_classes = np.arange(len(classes))
    for target in epochs:
        while done < target:
            order = rng.permutation(len(X))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                for start in range(0, len(X), batch):
                    idx = order[start:start + batch]
                    # the last chunk may be smaller than the mini-batch: one partial_fit is one
                    # mini-batch, so its size is the chunk's (scikit-learn warns when it is larger)
                    mlp.batch_size = len(idx)
                    mlp.partial_fit(X[idx], y[idx], classes=all_classes)
            done += 1
        snap = copy.deepcopy(mlp)
        yield target, as_discriminant(snap, name=f"MLP(epoch={target})", response="log_proba")


def rmsprop_mlp_statuses(X, y, epochs, *, n_classes: int | None = None, hidden_layer_sizes=(128, 64),
                         learning_rate: float = 1e-3, rho: float = 0.9, eps: float = 1e-7, batch_size: int = 128,
                         random_state: int = 0) -> Iterator[tuple[int, Discriminant]]:
    """Train the MLP of Ha et al. (2021, §6.1, Fig 9) with RMSProp in PyTorch and yield its statuses at ``epochs``.

    ReLU hidden layers, softmax cross-entropy, RMSProp (the paper used Keras; the defaults are
    Keras's: learning rate 10⁻³, ρ = 0.9, ε = 10⁻⁷), one shuffled pass of mini-batches per epoch, on
    one CPU thread. Each status is a snapshot of the weights, so later training does not change it;
    g = log-softmax of the outputs (log P(C_j | x)). :func:`mlp_statuses` is the scikit-learn (Adam)
    counterpart, for installs without PyTorch.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training samples.
    y : array-like of shape (n_samples,)
        Labels; with ``n_classes``, integer labels in 0..n_classes-1 (a subset such as a CV fold
        keeps the output layer of the whole set).
    epochs : int or sequence of int
        Epochs (>= 1) at which to yield a status.
    n_classes : int, optional
        Number of outputs (default: the distinct labels of ``y``, encoded in sorted order).
    hidden_layer_sizes : tuple of int, default=(128, 64)
        The network's hidden layers.
    learning_rate, rho, eps : float
        RMSProp's learning rate, decay of the squared-gradient average and ε.
    batch_size : int, default=128
        Mini-batch size.
    random_state : int, default=0
        Seed of the weights and of the batch order.

    Yields
    ------
    epoch : int
        The epoch of the status.
    status : Discriminant
        The network after ``epoch`` epochs.

    Raises
    ------
    InvalidParameterError
        If an epoch is not an integer >= 1, or a label is outside 0..n_classes-1.
    ImportError
        If PyTorch is not installed.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    import functools

    import torch

    X, codes, classes = check_Xy(X, y, min_classes=1)
    if n_classes is None:
        n_classes = len(classes)
    else:
        n_classes = check_int(n_classes, "n_classes", low=1)
        codes = np.asarray(y)
        if not np.issubdtype(codes.dtype, np.integer) or codes.min() < 0 or codes.max() >= n_classes:
            raise InvalidParameterError(f"y must hold integer labels in 0..{n_classes - 1} when n_classes is given")
    epochs = sorted({check_int(e, "epochs", low=1) for e in np.atleast_1d(epochs)})
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(random_state)
    torch.manual_seed(random_state)
    layers, width = [], X.shape[1]
    for h in hidden_layer_sizes:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    net = torch.nn.Sequential(*layers, torch.nn.Linear(width, n_classes))
    opt = torch.optim.RMSprop(net.parameters(), lr=learning_rate, alpha=rho, eps=eps)
    loss = torch.nn.CrossEntropyLoss()
    Xt, yt = torch.as_tensor(X, dtype=torch.float32), torch.as_tensor(codes, dtype=torch.long)
    done = 0
    for target in epochs:
        while done < target:
            order = torch.randperm(len(Xt), generator=gen)
            for s in range(0, len(Xt), batch_size):
                idx = order[s:s + batch_size]
                opt.zero_grad()
                loss(net(Xt[idx]), yt[idx]).backward()
                opt.step()
            done += 1
        snap = [p.detach().clone() for p in net.parameters()]
        yield target, Discriminant(functools.partial(_mlp_forward, snap), n_classes, name=f"MLP(epoch={target})")


def _mlp_forward(params, X) -> np.ndarray:
    """log-softmax outputs of the ReLU network with weights ``params`` (PyTorch tensors) at ``X``."""
    import torch

    with torch.no_grad():
        h = torch.as_tensor(np.asarray(X), dtype=torch.float32)
        for n in range(0, len(params) - 2, 2):
            h = torch.relu(h @ params[n].T + params[n + 1])
        out = torch.log_softmax(h @ params[-2].T + params[-1], dim=1)
    return out.double().numpy()


def boundary_score(discriminant: Discriminant, X) -> np.ndarray:
    """Return f(x;Λ), the near-boundary-ness with the top-2 pair taken at x (Ha et al. 2021, eq 12).

    Parameters
    ----------
    discriminant : Discriminant
        The classifier status Λ.
    X : array-like of shape (n_samples, n_features)
        Samples.

    Returns
    -------
    ndarray of shape (n_samples,)
        ``g_i(x) − g_j(x)`` with {i, j} the top-2 pair at x, i < j
        (:func:`buviz.grid.top2_difference`).

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    return top2_difference(discriminant(check_X(X)))
