"""Classifier statuses Λ as discriminant functions g(X) -> (n, J) (paper eq 5, SPEC §1.1).

One adapter type, :class:`Discriminant`, wraps any source: an SVC (``decision_function``), an MLP or
any probabilistic model (``log predict_proba``), the prototype classifier (eq 35), or a plain callable.
Status factories build the statuses a sweep walks through: an SVC at γ, an MLP at an epoch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin

from buviz._validation import InvalidParameterError, check_int, check_real, check_X, check_Xy
from buviz.grid import near_boundaryness, top2, top2_difference

__all__ = [
    "Discriminant",
    "RESPONSES",
    "as_discriminant",
    "PrototypeClassifier",
    "svm_status",
    "mlp_statuses",
    "top2",
    "near_boundaryness",
    "boundary_score",
]


@dataclass
class Discriminant:
    """A classifier status Λ seen through its discriminants g(X) (eq 5).

    Calling it returns an array (n, J); column j is g_j, larger means "more class j".
    ``n_calls`` and ``n_evaluated`` count classifier calls and evaluated samples (paper §5 costs).
    """

    func: Callable[[np.ndarray], np.ndarray]
    n_classes: int
    name: str = ""
    estimator: object | None = None
    n_calls: int = field(default=0, compare=False)
    n_evaluated: int = field(default=0, compare=False)

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
        return np.argmax(self(X), axis=1)


#: How a fitted scikit-learn classifier is read as discriminants g(X) (see :func:`as_discriminant`).
RESPONSES = ("auto", "decision_function", "predict_proba", "log_proba")


def _is_fitted(est) -> bool:
    from sklearn.utils.validation import check_is_fitted

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
    name : str
    classes : array-like, optional
        The labels of the training set the discriminant will be compared with, in column order
        (e.g. ``BoundaryUncertainty.classes_``). The estimator's columns are reordered to match;
        an estimator fitted on other labels is refused. Default: the estimator's ``classes_``.
    response : {"auto", "decision_function", "predict_proba", "log_proba"}, default "auto"
        How a scikit-learn classifier gives g (eq 5):

        - ``"decision_function"``: for J = 2, g = [−s, s]; for J > 2 the (n, J) one-vs-rest scores;
        - ``"predict_proba"``: g = P(C_j | x). The top-2 difference f = P_i − P_j (eq 12) is the
          posterior difference, bounded in [−1, 1]; it does not saturate where a probability is
          exactly 0 or 1 (k-NN, forests), as differences of log-probabilities do;
        - ``"log_proba"``: g = log P (clipped at 1e-300), differences of logits for a softmax model;
        - ``"auto"``: ``decision_function`` when the estimator has one, else ``predict_proba``.

    Raises
    ------
    TypeError
        ``source`` is a class rather than an instance.
    sklearn.exceptions.NotFittedError
        ``source`` is an unfitted scikit-learn estimator.
    ValueError
        No ``decision_function`` / ``predict_proba``, labels that do not match ``classes``, an
        unknown ``response``.
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
        identity = np.array_equal(order, np.arange(J))
        if kind == "decision_function":
            def func(X, est=source):
                s = est.decision_function(X)
                return np.column_stack([-s, s]) if np.ndim(s) == 1 else s
        elif kind == "predict_proba":
            def func(X, est=source):
                return est.predict_proba(X)
        else:
            def func(X, est=source):
                return np.log(np.clip(est.predict_proba(X), 1e-300, None))
        if not identity:
            inner = func

            def func(X, inner=inner, order=order):
                return np.asarray(inner(X))[:, order]
        return Discriminant(func, J, name=name or type(source).__name__, estimator=source)
    if callable(source):
        if n_classes is None:
            raise InvalidParameterError("n_classes is required to adapt a plain callable (an integer >= 2)")
        return Discriminant(source, check_int(n_classes, "n_classes", low=2), name=name or "callable")
    raise InvalidParameterError(f"source: cannot adapt {type(source).__name__} to a discriminant: pass a "
                                f"fitted classifier with decision_function or predict_proba, or a "
                                f"callable X -> (n, J)")


class PrototypeClassifier(ClassifierMixin, BaseEstimator):
    """Prototype-based classifier (PBC, eq 35): g_j(x) = -min_k ||x - p_j^k||.

    Prototypes are found by class-wise K-means (scikit-learn ``KMeans`` with ``max_iter`` = i_K).
    ``n_prototypes`` is an int (same K for all classes) or a sequence (K_j per class). Labels may be
    any values; ``classes_`` holds them and ``predict`` returns them.
    """

    def __init__(self, n_prototypes=1, *, max_iter: int = 20, n_init: int = 1, random_state=0):
        self.n_prototypes = n_prototypes
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X, y) -> PrototypeClassifier:
        from sklearn.cluster import KMeans

        X, y, classes = check_Xy(X, y)
        J = len(classes)
        ks = np.broadcast_to(np.asarray(self.n_prototypes), (J,))
        self.prototypes_: list[np.ndarray] = []
        for j in range(J):
            Xj = X[y == j]
            k = check_int(ks[j], "n_prototypes", low=1, high=len(Xj))
            km = KMeans(k, max_iter=self.max_iter, n_init=self.n_init, random_state=self.random_state).fit(Xj)
            self.prototypes_.append(km.cluster_centers_)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    @classmethod
    def from_prototypes(cls, prototypes: list[np.ndarray]) -> PrototypeClassifier:
        obj = cls(n_prototypes=[len(p) for p in prototypes])
        obj.prototypes_ = [np.atleast_2d(np.asarray(p, dtype=float)) for p in prototypes]
        obj.classes_ = np.arange(len(prototypes))
        obj.n_features_in_ = obj.prototypes_[0].shape[1]
        return obj

    def decision_function(self, X) -> np.ndarray:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        X = check_X(X, n_features=self.n_features_in_)
        return np.column_stack([-cdist(X, p).min(1) for p in self.prototypes_])

    def predict(self, X) -> np.ndarray:
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


def svm_status(X, y, gamma: float, C: float = 1.0, **svc_kwargs) -> Discriminant:
    """Fit an RBF SVC at (γ, C) on (X, y) and return its discriminant (SPEC §1.8)."""
    from sklearn.svm import SVC

    gamma = check_real(gamma, "gamma", low=0, low_open=True)
    C = check_real(C, "C", low=0, low_open=True)
    X, y, _ = check_Xy(X, y)
    svc = SVC(kernel="rbf", gamma=gamma, C=C, decision_function_shape="ovr", **svc_kwargs).fit(X, y)
    return as_discriminant(svc, name=f"SVC(gamma=2^{np.log2(gamma):.3g}, C={C:g})")


def mlp_statuses(X, y, epochs, *, hidden_layer_sizes=(128, 64), learning_rate_init: float = 1e-3,
                 batch_size: int = 200, random_state=0) -> Iterator[tuple[int, Discriminant]]:
    """Train one MLP (ReLU, Adam) with ``partial_fit`` and yield ``(epoch, status)`` at the given epochs.

    The statuses share one network (Fig 9): each yielded discriminant is a snapshot copy, so later
    training does not change it.
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
    done = 0
    all_classes = np.arange(len(classes))
    for target in epochs:
        while done < target:
            order = rng.permutation(len(X))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                for start in range(0, len(X), mlp.batch_size):
                    idx = order[start:start + mlp.batch_size]
                    mlp.partial_fit(X[idx], y[idx], classes=all_classes)
            done += 1
        snap = copy.deepcopy(mlp)
        yield target, as_discriminant(snap, name=f"MLP(epoch={target})", response="log_proba")


def boundary_score(discriminant: Discriminant, X) -> np.ndarray:
    """f(x;Λ) = f_{i(x;Λ) j(x;Λ)}(x;Λ): near-boundary-ness with the top-2 pair taken at x itself (eq 12)."""
    return top2_difference(discriminant(check_X(X)))
