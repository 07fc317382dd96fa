"""Synthetic label populations with ground truth, margin matrices, and a Table-1-style comparison.

Margin matrices for marginal and non-marginal classifiers; Definition 2.1 and Table 1 of Zheng,
Achanta & Benjamini (2017).

Population: class parameters drawn i.i.d., ``μ_y ~ N(0, I_p)``, ``X | y ~ N(ρ μ_y, (1-ρ²) I_p)``,
``r1`` training and ``r2`` test points per class. With k1 >= 1000 classes, eq 3 on the full set is the
ground truth for the average accuracy at any k <= k1 (an unbiased estimate with tiny variance).

Marginal classifiers (Def 2.1, the margin of class y depends on class y's training data only):
``"nearest_centroid"`` (-||x - mean||²), ``"qda"`` (Gaussian log density, covariance shrunk towards the
identity: (1-λ)S + λI), ``"naive_bayes"`` (per-feature Gaussians, variance floor ``var_floor``),
``"1nn"`` (-min squared distance). Non-marginal, for comparison: ``"logistic"`` (multinomial
logistic regression, decision function), ``"svm"`` (linear one-vs-rest SVM), ``"knn"``
(5-NN vote shares, ties broken at random), ``"mlp"`` (log predict_proba).

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017 (equation and section numbers are this text's); the
same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from buviz._validation import InvalidParameterError

from .._validation import check_int, check_real, check_X
from ._core import average_accuracy_from_ranks, ranks_from_margins

__all__ = [
    "MARGINAL",
    "NON_MARGINAL",
    "CLASSIFIERS",
    "LabelPopulation",
    "make_population",
    "load_digits_population",
    "margin_matrix",
    "population_margins",
    "subsample_classes",
    "ground_truth",
    "compare_classifiers",
    "peers_benchmark_margins",
]

MARGINAL = ("nearest_centroid", "qda", "naive_bayes", "1nn")
NON_MARGINAL = ("logistic", "svm", "knn", "mlp")
CLASSIFIERS = MARGINAL + NON_MARGINAL


@dataclass
class LabelPopulation:
    """Training and test points of ``n_classes`` classes (labels 0..n_classes-1).

    Parameters
    ----------
    X_train : ndarray of shape (n_train, n_features)
        Training points.
    y_train : ndarray of shape (n_train,)
        Their classes.
    X_test : ndarray of shape (n_test, n_features)
        Test points.
    y_test : ndarray of shape (n_test,)
        Their classes.
    name : str, default="population"
        A label.
    params : dict, optional
        The parameters the population was drawn with.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    name: str = "population"
    params: dict | None = None

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return int(self.y_train.max()) + 1


def make_population(n_classes: int = 1000, n_features: int = 10, rho: float = 0.7, n_train: int = 5,
                    n_test: int = 10, random_state=0) -> LabelPopulation:
    """Draw a synthetic label population: μ_y ~ N(0, I_p), X | y ~ N(ρ μ_y, (1−ρ²) I_p).

    Parameters
    ----------
    n_classes : int, default=1000
        Number of classes (>= 2).
    n_features : int, default=10
        Dimension p.
    rho : float, default=0.7
        Correlation ρ in [0, 1).
    n_train : int, default=5
        Training points per class r1.
    n_test : int, default=10
        Test points per class r2.
    random_state : int, Generator or None, default=0
        Seed.

    Returns
    -------
    LabelPopulation
        The population.

    Raises
    ------
    InvalidParameterError
        If a count is out of range or ``rho`` outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    k = check_int(n_classes, "n_classes", low=2)
    p = check_int(n_features, "n_features", low=1)
    rho = check_real(rho, "rho", low=0.0, high=1.0)
    if rho >= 1.0:
        raise InvalidParameterError(f"rho must be < 1, got {rho}")
    r1 = check_int(n_train, "n_train", low=1)
    r2 = check_int(n_test, "n_test", low=1)
    rng = np.random.default_rng(random_state)
    mu = rng.standard_normal((k, p))
    s = np.sqrt(1.0 - rho**2)
    Xtr = np.repeat(rho * mu, r1, axis=0) + s * rng.standard_normal((k * r1, p))
    Xte = np.repeat(rho * mu, r2, axis=0) + s * rng.standard_normal((k * r2, p))
    return LabelPopulation(Xtr, np.repeat(np.arange(k), r1), Xte, np.repeat(np.arange(k), r2),
                           name=f"gaussian(k={k}, p={p}, rho={rho})",
                           params={"rho": rho, "n_features": p, "n_train": r1, "n_test": r2})


def load_digits_population(test_size: float = 0.5, random_state=0) -> LabelPopulation:
    """Return scikit-learn's shipped ``load_digits`` (10 classes, 8x8 images) as a small real population.

    Parameters
    ----------
    test_size : float, default=0.5
        Fraction of the points held out as test points (stratified).
    random_state : int or None, default=0
        Seed of the split.

    Returns
    -------
    LabelPopulation
        Pixels scaled to [0, 1].
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, test_size=test_size, stratify=y,
                                          random_state=random_state)
    return LabelPopulation(Xtr, ytr, Xte, yte, name="digits", params={})


def _sq_dist(A, B):
    d = (A**2).sum(1)[:, None] + (B**2).sum(1)[None, :] - 2.0 * A @ B.T
    return np.maximum(d, 0.0)


def margin_matrix(classifier: str, X_train, y_train, X_test, *, qda_reg: float = 0.5,
                  var_floor: float = 1e-2, random_state=0) -> np.ndarray:
    """Return the margins M (n_test, J) of every training class (labels 0..J-1) at each test point.

    For the marginal classifiers (Definition 2.1) column ``l`` is computed from class ``l``'s training
    points alone, so the margins of any class subset are just the matching columns (no refit
    needed).

    Parameters
    ----------
    classifier : str
        One of :data:`CLASSIFIERS`.
    X_train : array-like of shape (n_train, n_features)
        Training points.
    y_train : array-like of shape (n_train,)
        Their classes 0..J-1, none empty.
    X_test : array-like of shape (n_test, n_features)
        Test points.
    qda_reg : float, default=0.5
        Shrinkage λ of the QDA covariance towards the identity.
    var_floor : float, default=1e-2
        Variance floor of naive Bayes.
    random_state : int or None, default=0
        Seed of the classifiers that draw (k-NN ties, MLP).

    Returns
    -------
    ndarray of shape (n_test, J)
        Higher is more likely.

    Raises
    ------
    InvalidParameterError
        If ``classifier`` is unknown or the arrays are malformed.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    if classifier not in CLASSIFIERS:
        raise InvalidParameterError(f"classifier must be one of {CLASSIFIERS}, got {classifier!r}")
    Xtr = check_X(X_train, "X_train")
    Xte = check_X(X_test, "X_test", n_features=Xtr.shape[1])
    ytr = np.asarray(y_train)
    if ytr.shape != (len(Xtr),):
        raise InvalidParameterError("y_train must be 1-D with one label per row of X_train")
    J = int(ytr.max()) + 1
    counts = np.bincount(ytr, minlength=J)
    if np.any(counts == 0):
        raise ValueError(f"y_train: classes must be 0..J-1 with no empty class; empty: "
                         f"{np.flatnonzero(counts == 0)[:5].tolist()}")
    if classifier == "nearest_centroid":
        centres = np.zeros((J, Xtr.shape[1]))
        np.add.at(centres, ytr, Xtr)
        centres /= counts[:, None]
        return -_sq_dist(Xte, centres)
    if classifier == "1nn":
        D = _sq_dist(Xte, Xtr)
        out = np.full((len(Xte), J), np.inf)
        np.minimum.at(out.T, ytr, D.T)
        return -out
    if classifier == "naive_bayes":
        out = np.empty((len(Xte), J))
        for j in range(J):
            Xj = Xtr[ytr == j]
            m, v = Xj.mean(0), Xj.var(0) + var_floor
            out[:, j] = -0.5 * (((Xte - m) ** 2 / v).sum(1) + np.log(2 * np.pi * v).sum())
        return out
    if classifier == "qda":
        lam = check_real(qda_reg, "qda_reg", low=0.0, high=1.0)
        out = np.empty((len(Xte), J))
        p = Xtr.shape[1]
        for j in range(J):
            Xj = Xtr[ytr == j]
            m = Xj.mean(0)
            S = np.cov(Xj.T, bias=True).reshape(p, p) if len(Xj) > 1 else np.zeros((p, p))
            S = (1 - lam) * S + lam * np.eye(p)
            L = np.linalg.cholesky(S)
            z = np.linalg.solve(L, (Xte - m).T)
            out[:, j] = -0.5 * (z**2).sum(0) - np.log(np.diag(L)).sum()
        return out
    # non-marginal: one model trained on all J classes
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(Xtr)
    A, B = scaler.transform(Xtr), scaler.transform(Xte)
    if classifier == "logistic":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=1.0, max_iter=300).fit(A, ytr).decision_function(B)
    if classifier == "svm":
        from sklearn.svm import LinearSVC

        return LinearSVC(C=0.1, random_state=random_state).fit(A, ytr).decision_function(B)
    if classifier == "knn":
        from sklearn.neighbors import KNeighborsClassifier

        return KNeighborsClassifier(n_neighbors=5).fit(A, ytr).predict_proba(B)
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp = MLPClassifier(hidden_layer_sizes=(64,), max_iter=200, random_state=random_state).fit(A, ytr)
    return np.log(np.clip(mlp.predict_proba(B), 1e-300, None))


def _ties_for(classifier: str) -> str:
    return "random" if classifier == "knn" else "max"


def subsample_classes(pop: LabelPopulation, classes) -> LabelPopulation:
    """Return the sub-population of the given classes, relabelled 0..len(classes)-1 in the given order.

    Parameters
    ----------
    pop : LabelPopulation
        The population.
    classes : array-like of int
        At least 2 distinct class indexes of ``pop``.

    Returns
    -------
    LabelPopulation
        The sub-population.

    Raises
    ------
    InvalidParameterError
        If ``classes`` is not a set of at least 2 valid class indexes.
    """
    classes = np.asarray(classes, dtype=np.int64)
    if classes.ndim != 1 or len(classes) < 2 or len(np.unique(classes)) != len(classes):
        raise InvalidParameterError("classes must be at least 2 distinct class indexes")
    if classes.min() < 0 or classes.max() >= pop.n_classes:
        raise InvalidParameterError(f"classes must lie in 0..{pop.n_classes - 1}")
    remap = np.full(pop.n_classes, -1)
    remap[classes] = np.arange(len(classes))
    tr, te = np.isin(pop.y_train, classes), np.isin(pop.y_test, classes)
    return LabelPopulation(pop.X_train[tr], remap[pop.y_train[tr]], pop.X_test[te], remap[pop.y_test[te]],
                           name=f"{pop.name}[{len(classes)}]", params=pop.params)


def population_margins(pop: LabelPopulation, classifier: str, **kw) -> tuple[np.ndarray, np.ndarray]:
    """Return the margins and labels of a classifier trained on all classes of a population.

    Parameters
    ----------
    pop : LabelPopulation
        The population.
    classifier : str
        One of :data:`CLASSIFIERS`.
    **kw
        Further arguments of :func:`margin_matrix`.

    Returns
    -------
    margins : ndarray of shape (n_test, n_classes)
        On the population's test points.
    labels : ndarray of shape (n_test,)
        Their classes.
    """
    return margin_matrix(classifier, pop.X_train, pop.y_train, pop.X_test, **kw), pop.y_test


def ground_truth(pop: LabelPopulation, classifier: str, ks, random_state=0, **kw) -> np.ndarray:
    """Return AverageTA_k (eq 3) of a classifier trained on the whole population: the truth for k <= k1.

    Parameters
    ----------
    pop : LabelPopulation
        The population.
    classifier : str
        One of :data:`CLASSIFIERS`.
    ks : int or sequence of int
        Class counts, each in 2..n_classes.
    random_state : int or None, default=0
        Seed of the classifier and of random tie-breaking.
    **kw
        Further arguments of :func:`margin_matrix`.

    Returns
    -------
    float or ndarray
        AverageTA_k for every k.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    M, y = population_margins(pop, classifier, random_state=random_state, **kw)
    r = ranks_from_margins(M, y, ties=_ties_for(classifier), random_state=random_state)
    return average_accuracy_from_ranks(r, ks, k1=M.shape[1], groups=y)


def compare_classifiers(pop: LabelPopulation, classifiers=CLASSIFIERS, *, K: int = 20, k_target: int = 400,
                        method: str = "best", random_state=0) -> pd.DataFrame:
    """Return a Table 1 style comparison: train on K random classes, extrapolate to ``k_target``.

    The truth is the test accuracy of the classifier trained on ``k_target`` classes of ``pop``
    (for a marginal classifier, eq 3 at k_target on those classes; for the others, the accuracy of
    the k_target-class model, exactly as Table 1's "Test acc(400)").

    Parameters
    ----------
    pop : LabelPopulation
        The population.
    classifiers : sequence of str, default=CLASSIFIERS
        The classifiers compared.
    K : int, default=20
        Observed classes.
    k_target : int, default=400
        Classes extrapolated to (K..n_classes).
    method : str, default="best"
        Estimator of :func:`extrapolate`.
    random_state : int or None, default=0
        Seed of the class draws and of the classifiers.

    Returns
    -------
    pandas.DataFrame
        One row per classifier: accuracy at K, truth and prediction at ``k_target``, error.

    Raises
    ------
    InvalidParameterError
        If ``K`` or ``k_target`` is out of range.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    from ._estimators import extrapolate

    K = check_int(K, "K", low=2)
    k_target = check_int(k_target, "k_target", low=K, high=pop.n_classes)
    rng = np.random.default_rng(random_state)
    big = np.sort(rng.choice(pop.n_classes, k_target, replace=False))
    small = np.sort(rng.choice(big, K, replace=False))
    pop_big, pop_small = subsample_classes(pop, big), subsample_classes(pop, small)
    rows = []
    for clf in classifiers:
        M, y = population_margins(pop_small, clf, random_state=random_state)
        ties = _ties_for(clf)
        r = ranks_from_margins(M, y, ties=ties, random_state=random_state)
        acc_K = average_accuracy_from_ranks(r, K, k1=K, groups=y)
        truth = float(ground_truth(pop_big, clf, k_target, random_state=random_state))
        pred = float(extrapolate(M, y, k_target, method=method, random_state=random_state, ties=ties))
        rows.append({"classifier": clf, "marginal": clf in MARGINAL, f"test_acc_{K}": acc_K,
                     f"test_acc_{k_target}": truth, f"predicted_{k_target}": pred, "error": pred - truth})
    return pd.DataFrame(rows)


def peers_benchmark_margins(n_classes: int, sigma2: float, n_features: int = 10,
                            random_state=0, squared: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return the margins and labels of the ClassEx simulation (1-NN on Gaussian class centres).

    Centres μ ~ N(0, I_10), one training and one test point per class, ``x = μ + σ z``, 1-NN. The
    margins are minus the Euclidean distances, as in the reference simulation (its ``pdist2``
    returns distances, not squares); ranks, hence eq 3 and ClassExReg, are the same either way,
    but the KDE estimator is not invariant to the transformation.

    Parameters
    ----------
    n_classes : int
        Number of classes k.
    sigma2 : float
        Noise variance σ² > 0.
    n_features : int, default=10
        Dimension.
    random_state : int, Generator or None, default=0
        Seed.
    squared : bool, default=False
        Minus squared distances instead (on which the KDE estimator is much worse).

    Returns
    -------
    margins : ndarray of shape (k, k)
        Minus the distances between test and training points.
    labels : ndarray of shape (k,)
        ``arange(k)``.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large
    Multi-Class Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
    https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)
    """
    k = check_int(n_classes, "n_classes", low=2)
    s2 = check_real(sigma2, "sigma2", low=0.0, low_open=True)
    rng = np.random.default_rng(random_state)
    mu = rng.standard_normal((k, n_features))
    xtr = mu + np.sqrt(s2) * rng.standard_normal((k, n_features))
    xte = mu + np.sqrt(s2) * rng.standard_normal((k, n_features))
    d2 = np.maximum(_sq_dist(xte, xtr), 0.0)
    return (-d2 if squared else -np.sqrt(d2)), np.arange(k)
