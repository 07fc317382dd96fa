"""Î*: the estimated top-2 true class pairs, from class-wise K-means prototypes.

Algorithm 2, §4.4.3 and Appendix A of Ha et al. (2021).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from buviz._validation import InvalidParameterError, check_int
from buviz.classifiers import PrototypeClassifier
from buviz.grid import top2

__all__ = ["TruePairEstimate", "estimate_true_pairs", "class_aic", "AIC_FORMS", "DEFAULT_K_RANGE"]

#: K ∈ {1, 3, ..., 39} (§6.3).
DEFAULT_K_RANGE = tuple(range(1, 40, 2))
#: ``"literal"``: eq 48 as printed (a 1-D Gaussian of the distance); ``"isotropic"``: d-dim isotropic.
AIC_FORMS = ("literal", "isotropic")


@dataclass
class TruePairEstimate:
    """Estimated top-2 true class indexes of each training sample and the PBC behind them.

    Parameters
    ----------
    pairs : list of tuple of int
        Î*: the pairs (k, l), k < l, that occur among the training samples.
    pair_index : ndarray of shape (N,)
        Index into ``pairs`` of each sample's estimated pair {î*(x), ĵ*(x)}.
    n_prototypes : ndarray of shape (J,)
        K_j per class.
    aic : dict
        Class -> {K: AIC(K)} (empty when K was fixed or J = 2).
    classifier : PrototypeClassifier or None
        The fitted :class:`~buviz.classifiers.PrototypeClassifier` (None for J = 2).

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """

    pairs: list[tuple[int, int]]
    pair_index: np.ndarray
    n_prototypes: np.ndarray
    aic: dict
    classifier: PrototypeClassifier | None

    @property
    def pair_probabilities(self) -> np.ndarray:
        """The estimated pair probabilities ``P̂(C_kl) = |B̂*(k,l)| / N`` (eq 33-34), aligned with ``pairs``."""
        return np.bincount(self.pair_index, minlength=len(self.pairs)) / len(self.pair_index)


def class_aic(Xj: np.ndarray, centers: np.ndarray, labels: np.ndarray, form: str = "literal") -> float:
    """Return AIC(K_j) = log P(T_j | M_j, σ_j²) − (K_j d + 1) of one class's K-means (eq 48-51).

    Parameters
    ----------
    Xj : ndarray of shape (N_j, d)
        The samples of class j.
    centers : ndarray of shape (K_j, d)
        Its prototypes.
    labels : ndarray of shape (N_j,)
        The prototype of each sample.
    form : {"literal", "isotropic"}, default="literal"
        ``"literal"``: eq 48 as printed, a 1-D Gaussian N(0, σ²) of the distance ||x − p_j(x)||
        with σ² the within-cluster variance of eq 49. ``"isotropic"``: a d-dimensional isotropic
        Gaussian with per-coordinate variance σ²/d.

    Returns
    -------
    float
        The AIC; −inf when σ_j² = 0 (every sample on its prototype), where eq 48 is unbounded.

    Raises
    ------
    InvalidParameterError
        If ``form`` is unknown.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    if form not in AIC_FORMS:
        raise InvalidParameterError(f"aic_form must be one of {AIC_FORMS}, got {form!r}")
    n, d = Xj.shape
    K = len(centers)
    sq = ((Xj - centers[labels]) ** 2).sum(1)
    s2 = sq.mean()
    if not s2 > 0:
        # every sample sits on its prototype (K >= number of distinct samples): the likelihood of
        # eq 48 is unbounded, so this K is not a candidate
        return -np.inf
    if form == "literal":
        loglik = -0.5 * n * np.log(2 * np.pi * s2) - 0.5 * sq.sum() / s2
    else:  # isotropic
        v = s2 / d
        loglik = -0.5 * n * d * np.log(2 * np.pi * v) - 0.5 * sq.sum() / v
    return float(loglik - (K * d + 1))


def estimate_true_pairs(X: np.ndarray, y: np.ndarray, n_classes: int, K="aic", *,
                        K_range=DEFAULT_K_RANGE, max_iter: int = 20, aic_form: str = "literal",
                        random_state=0) -> TruePairEstimate:
    """Estimate Î*, the top-2 true class pairs, with a prototype classifier (Algorithm 2, §4.4.3).

    Only K_j smaller than the number of distinct samples of the class (at most N_j − 1) are AIC
    candidates: at K_j = N_j every sample is its own prototype, the within-class variance of eq 49
    is 0 and eq 48 is unbounded. A candidate whose variance is still 0 gets AIC = −inf and is
    skipped; when no candidate is left (a class of one sample, or of identical samples) K_j = 1.
    Every AIC kept in ``aic`` is finite. For J = 2, Î* = {{0, 1}} and no prototype is fitted.

    Parameters
    ----------
    X : ndarray of shape (N, d)
        The training set.
    y : ndarray of shape (N,)
        Labels as codes 0..J-1.
    n_classes : int
        J.
    K : "aic", int or sequence of int, default="aic"
        ``"aic"`` picks K_j per class by the highest AIC over ``K_range``; an int or a per-class
        sequence fixes K_j (1 ≤ K_j ≤ N_j).
    K_range : iterable of int, default=(1, 3, ..., 39)
        The candidates of ``K="aic"`` (§6.3).
    max_iter : int, default=20
        K-means iterations i_K.
    aic_form : {"literal", "isotropic"}, default="literal"
        See :func:`class_aic`.
    random_state : int, Generator or None, default=0
        Seed of K-means.

    Returns
    -------
    TruePairEstimate
        Î*, each sample's pair and the prototype classifier.

    Raises
    ------
    InvalidParameterError
        If ``K`` is an unknown string or a K_j is out of range.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    N = len(X)
    if n_classes == 2:
        return TruePairEstimate([(0, 1)], np.zeros(N, dtype=np.intp), np.zeros(2, dtype=int), {}, None)
    counts = np.bincount(y, minlength=n_classes)
    aic: dict = {}
    # Many small K-means fits: OpenMP start-up per fit costs more than the fit itself.
    with threadpool_limits(1):
        if isinstance(K, str):
            if K != "aic":
                raise InvalidParameterError(f"K must be 'aic', an int or one int per class, got {K!r}")
            ks, prototypes = [], []
            for j in range(n_classes):
                Xj = X[y == j]
                n_distinct = len(np.unique(Xj, axis=0))
                cands = [k for k in K_range if k < n_distinct] or [1]
                fits = {k: KMeans(k, max_iter=max_iter, n_init=1, random_state=random_state).fit(Xj)
                        for k in cands}
                scores = {k: class_aic(Xj, km.cluster_centers_, km.labels_, aic_form) for k, km in fits.items()}
                aic[j] = {k: v for k, v in scores.items() if np.isfinite(v)}
                best = max(aic[j], key=aic[j].get) if aic[j] else min(fits)
                ks.append(best)
                prototypes.append(fits[best].cluster_centers_)
            pbc = PrototypeClassifier.from_prototypes(prototypes)
        else:
            ks_in = np.broadcast_to(np.asarray(K), (n_classes,))
            ks = [check_int(ks_in[j], "K", low=1, high=int(counts[j])) for j in range(n_classes)]
            pbc = PrototypeClassifier(n_prototypes=ks, max_iter=max_iter, random_state=random_state).fit(X, y)
    i, j = top2(pbc.decision_function(X))
    code = i * n_classes + j
    uniq, pair_index = np.unique(code, return_inverse=True)
    pairs = [(int(c // n_classes), int(c % n_classes)) for c in uniq]
    return TruePairEstimate(pairs, pair_index.astype(np.intp), np.asarray(ks), aic, pbc)
