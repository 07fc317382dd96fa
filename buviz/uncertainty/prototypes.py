"""Î*: the estimated top-2 true class pairs, from class-wise prototypes chosen by AIC.

Algorithm 2, §4.4.3 and Appendix A of Ha et al. (2021). The number of prototypes K_j of each
class is chosen by the AIC of eq 48-51. Two searches are provided:

- ``"ward"`` (default, with ``K_range="auto"``): one Ward agglomerative tree per class gives the
  within-class sum of squares of a partition into K clusters for *every* K at once (a Ward merge
  raises it by half the squared merge height), hence AIC(K) for every K below the class size from
  one O(N_j²) pass; the chosen partition's centroids are then refined by Lloyd iterations;
- ``"kmeans"`` (the search of §6.3): one K-means fit per candidate K.

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1

J. H. Ward Jr., "Hierarchical Grouping to Optimize an Objective Function", *Journal of the
American Statistical Association* 58(301), 236-244, 1963. https://doi.org/10.1080/01621459.1963.10500845
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from buviz._validation import InvalidParameterError, check_int
from buviz._values import freeze_fields
from buviz.classifiers import PrototypeClassifier
from buviz.grid import top2

__all__ = ["TruePairEstimate", "estimate_true_pairs", "class_aic", "aic_from_sse", "ward_sse",
           "KRangeWarning", "AIC_FORMS", "DEFAULT_K_RANGE", "PAPER_K_RANGE", "PROTOTYPE_SEARCHES",
           "WARD_MAX_SAMPLES"]

#: ``"auto"``: K_j = 1, 2, ..., 2⌈√N_j⌉ while K_j d + 1 is below the observations of eq 48 and K_j below the
#: distinct samples of the class, the search stopping where AIC first turns down (its first local maximum).
DEFAULT_K_RANGE = "auto"
#: K ∈ {1, 3, ..., 39}, the search range of §6.3 (the default before the search grew with the class).
PAPER_K_RANGE = tuple(range(1, 40, 2))
#: ``"ward"``: AIC of every K from one Ward tree per class; ``"kmeans"``: one K-means per candidate K.
PROTOTYPE_SEARCHES = ("ward", "kmeans")
#: Ward trees are grown on at most this many samples of a class (a seeded random subset beyond it):
#: the tree costs O(n²) time and memory (0.04 s at n = 1000, 0.3 s at n = 3300).
WARD_MAX_SAMPLES = 1000
#: ``"literal"``: eq 48 as printed (a 1-D Gaussian of the distance); ``"isotropic"``: d-dim isotropic.
AIC_FORMS = ("literal", "isotropic")


class KRangeWarning(UserWarning):
    """The AIC search chose the largest K it tried: the criterion may still rise beyond it."""


@dataclass(frozen=True)
class TruePairEstimate:
    """Estimated top-2 true class indexes of each training sample and the PBC behind them.

    Parameters
    ----------
    pairs : tuple of tuple of int
        Î*: the pairs (k, l), k < l, that occur among the training samples.
    pair_index : ndarray of shape (N,)
        Index into ``pairs`` of each sample's estimated pair {î*(x), ĵ*(x)}.
    n_prototypes : ndarray of shape (J,)
        The chosen K_j per class (zeros for J = 2, where no prototype is fitted).
    aic : dict
        Class -> {K: AIC(K)} of the candidates evaluated (empty when K was fixed or J = 2).
    classifier : PrototypeClassifier or None
        The fitted :class:`~buviz.classifiers.PrototypeClassifier` (None for J = 2).
    K_upper : ndarray of shape (J,)
        The largest candidate K_j of the search per class (below the class size; equal to
        ``n_prototypes`` when K was fixed).
    K_at_bound : ndarray of shape (J,), bool
        True where the AIC search ended on ``K_upper`` (the criterion never turned down inside
        the range); with an explicit ``K_range`` also announced by a :class:`KRangeWarning`.
    search : str
        ``"ward"``, ``"kmeans"``, ``"fixed"`` (K given) or ``"none"`` (J = 2).

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
    K_upper: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    K_at_bound: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    search: str = "kmeans"

    def __post_init__(self):
        freeze_fields(self)  # a value: read-only arrays, pairs a tuple, aic a FrozenDict

    @property
    def pair_probabilities(self) -> np.ndarray:
        """The estimated pair probabilities ``P̂(C_kl) = |B̂*(k,l)| / N`` (eq 33-34), aligned with ``pairs``."""
        return np.bincount(self.pair_index, minlength=len(self.pairs)) / len(self.pair_index)


def aic_from_sse(sse, n: int, d: int, K, form: str = "literal"):
    """Return AIC(K_j) of eq 48-51 from the within-class sum of squares ``sse`` of K_j prototypes.

    With σ² = sse / n (eq 49) the maximised log-likelihood of eq 48 depends on the partition only
    through ``sse``: ``"literal"`` (a 1-D Gaussian N(0, σ²) of the distance ||x − p_j(x)||) gives
    −n/2 log(2π σ²) − n/2, ``"isotropic"`` (a d-dimensional Gaussian of per-coordinate variance
    σ²/d) gives −nd/2 log(2π σ²/d) − nd/2; AIC = log-likelihood − (K_j d + 1).

    Parameters
    ----------
    sse : float or ndarray
        Σ_x ||x − p_j(x)||² over the class (> 0; 0 gives −inf, where eq 48 is unbounded).
    n : int
        N_j, the number of samples of the class.
    d : int
        The number of features.
    K : int or ndarray
        K_j, broadcast with ``sse``.
    form : {"literal", "isotropic"}, default="literal"
        See :func:`class_aic`.

    Returns
    -------
    float or ndarray
        AIC(K_j).

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
    sse = np.asarray(sse, dtype=float)
    with np.errstate(divide="ignore"):
        s2 = sse / n
        if form == "literal":
            loglik = -0.5 * n * np.log(2 * np.pi * s2) - 0.5 * n
        else:  # isotropic
            loglik = -0.5 * n * d * np.log(2 * np.pi * s2 / d) - 0.5 * n * d
    out = np.where(sse > 0, loglik - (np.asarray(K) * d + 1), -np.inf)
    return float(out) if out.ndim == 0 else out


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
    n, d = Xj.shape
    sse = float(((Xj - centers[labels]) ** 2).sum())
    return aic_from_sse(sse, n, d, len(centers), form)


def ward_sse(Xj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return Ward's tree of one class and the within-cluster sum of squares of its cut at every K.

    A Ward merge of clusters u and v raises the sum of squares Σ||x − c(x)||² by
    n_u n_v / (n_u + n_v) ||c_u − c_v||², which is half the square of SciPy's Ward merge height; the
    partition into K clusters is the tree after its first N_j − K merges (Ward 1963).

    Parameters
    ----------
    Xj : ndarray of shape (N_j, d)
        The samples of one class (N_j ≥ 2).

    Returns
    -------
    Z : ndarray of shape (N_j − 1, 4)
        The linkage matrix (:func:`scipy.cluster.hierarchy.linkage`, ``method="ward"``).
    sse : ndarray of shape (N_j + 1,)
        ``sse[K]`` is the sum of squares of the K-cluster cut (``sse[0]`` is unused, ``sse[N_j] = 0``).

    References
    ----------
    J. H. Ward Jr., "Hierarchical Grouping to Optimize an Objective Function", *Journal of the
    American Statistical Association* 58(301), 236-244, 1963. https://doi.org/10.1080/01621459.1963.10500845
    """
    from scipy.cluster.hierarchy import linkage

    n = len(Xj)
    Z = linkage(Xj, method="ward")
    cumulative = np.concatenate([[0.0], np.cumsum(0.5 * Z[:, 2] ** 2)])  # after m merges
    sse = np.empty(n + 1)
    sse[1:] = cumulative[n - np.arange(1, n + 1)]
    sse[0] = np.nan
    return Z, sse


def _cut_labels(Z: np.ndarray, K: int) -> np.ndarray:
    """Cluster of each sample in the K-cluster cut of a linkage (its first N − K merges)."""
    n = len(Z) + 1
    parent = np.arange(2 * n - 1)
    m = n - K
    merged = Z[:m, :2].astype(np.intp)
    parent[merged[:, 0]] = n + np.arange(m)
    parent[merged[:, 1]] = n + np.arange(m)
    root = parent[:n]
    while True:  # pointer jumping: every sample climbs to the top of its subtree
        up = parent[root]
        if np.array_equal(up, root):
            break
        parent = parent[parent]
        root = up
    return np.unique(root, return_inverse=True)[1]


def _cut_centroids(Xj: np.ndarray, Z: np.ndarray, K: int) -> np.ndarray:
    """Centroids of the K-cluster cut of a Ward tree."""
    labels = _cut_labels(Z, K)
    counts = np.bincount(labels, minlength=K)
    sums = np.zeros((K, Xj.shape[1]))
    np.add.at(sums, labels, Xj)
    return sums / counts[:, None]


def _choose_K(candidates: list[int], aic_of: Callable[[int], float], auto: bool) -> tuple[int, dict]:
    """The chosen K and the AIC of the candidates evaluated.

    ``auto``: scan the candidates in increasing order and stop at the first local maximum (the
    first candidate whose successor has a lower AIC); otherwise the largest AIC over all of them.
    Candidates with AIC = −inf (zero within-class variance) are skipped; with none left K = 1.
    """
    scores: dict[int, float] = {}
    best = None
    for k in candidates:
        a = aic_of(k)
        if not np.isfinite(a):
            continue
        if auto and best is not None and a < scores[best]:
            scores[k] = a
            return best, scores
        scores[k] = a
        if best is None or a > scores[best]:
            best = k
    return (1 if best is None else best), scores


def estimate_true_pairs(X: np.ndarray, y: np.ndarray, n_classes: int, K="aic", *,
                        K_range=DEFAULT_K_RANGE, search: str | None = None, max_iter: int = 20,
                        aic_form: str = "literal", random_state=0) -> TruePairEstimate:
    """Estimate Î*, the top-2 true class pairs, with a prototype classifier (Algorithm 2, §4.4.3).

    Only K_j smaller than the number of distinct samples of the class (at most N_j − 1) are AIC
    candidates: at K_j = N_j every sample is its own prototype, the within-class variance of eq 49
    is 0 and eq 48 is unbounded. A candidate whose variance is still 0 gets AIC = −inf and is
    skipped; when no candidate is left (a class of one sample, or of identical samples) K_j = 1.
    Every AIC kept in ``aic`` is finite. For J = 2, Î* = {{0, 1}} and no prototype is fitted.

    The range of ``K_range="auto"``: eq 48 is the likelihood of the distances to the prototypes
    with one variance, so its maximum rises without bound as K_j approaches the number of distinct
    samples (σ² → 0) while the penalty K_j d + 1 grows only linearly; the largest AIC over all
    K_j < N_j is the degenerate K_j = N_j − 1. The candidates therefore stop where eq 48 has as
    many parameters as observations, K_j d + 1 < N_j (``"literal"``: N_j distances) or
    K_j d + 1 < N_j d (``"isotropic"``: N_j d coordinates), and at 2⌈√N_j⌉ (:func:`auto_K_cap`),
    and the search stops at the first K_j
    at which one more prototype no longer pays for its d parameters (AIC's first local maximum).
    The range grows with the class and stays below its size. A search that ends on its last
    candidate (the criterion never turned down) is reported in ``K_at_bound``; with an explicit
    ``K_range`` also by a :class:`KRangeWarning` (widening the range is then the remedy; with
    "auto" the last candidate is the identifiability limit itself: in two dimensions eq 48
    typically keeps rising up to it).

    Parameters
    ----------
    X : ndarray of shape (N, d)
        The training set.
    y : ndarray of shape (N,)
        Labels as codes 0..J-1.
    n_classes : int
        J.
    K : "aic", int or sequence of int, default="aic"
        ``"aic"`` picks K_j per class by AIC over ``K_range``; an int or a per-class sequence
        fixes K_j (1 ≤ K_j ≤ N_j).
    K_range : "auto" or iterable of int, default="auto"
        The candidates of ``K="aic"``. ``"auto"``: K_j = 1, 2, ... below the number of distinct
        samples of the class and with K_j d + 1 below the observations of eq 48, stopping at AIC's
        first local maximum (see above). A sequence: those
        candidates (below the class size), the largest AIC among them (``PAPER_K_RANGE`` is the
        range of §6.3).
    search : {"ward", "kmeans"} or None, default=None
        How AIC(K) is computed: ``"ward"`` from one Ward tree per class (all K at once, on at most
        ``WARD_MAX_SAMPLES`` samples of the class; the chosen cut's centroids are then refined by
        up to ``max_iter`` Lloyd iterations on the whole class), ``"kmeans"`` by one K-means per
        candidate (§6.3). None: ``"ward"`` for ``K_range="auto"``, ``"kmeans"`` for a sequence
        (so that an explicit range reproduces the search of §6.3). ``"kmeans"`` with ``"auto"`` is
        erratic: K-means' local optima make its AIC curve dip early (``gmm3``, N = 6000: K_j = 93,
        90, 7 where the Ward curve rises to the bound).
    max_iter : int, default=20
        K-means iterations i_K.
    aic_form : {"literal", "isotropic"}, default="literal"
        See :func:`class_aic`.
    random_state : int, Generator, RandomState or None, default=0
        Seed of K-means and of the Ward subset of a large class.

    Returns
    -------
    TruePairEstimate
        Î*, each sample's pair, K_j per class and the prototype classifier.

    Raises
    ------
    InvalidParameterError
        If ``K`` is an unknown string or a K_j is out of range, ``K_range`` is neither "auto" nor
        a non-empty sequence of positive ints, or ``search`` is unknown.

    Warns
    -----
    KRangeWarning
        When the AIC search over an explicit ``K_range`` ends on its largest candidate.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    N = len(X)
    if n_classes == 2:
        return TruePairEstimate([(0, 1)], np.zeros(N, dtype=np.intp), np.zeros(2, dtype=int), {}, None,
                                np.zeros(2, dtype=int), np.zeros(2, dtype=bool), "none")
    counts = np.bincount(y, minlength=n_classes)
    aic: dict = {}
    at_bound = np.zeros(n_classes, dtype=bool)
    # Many small K-means fits: OpenMP start-up per fit costs more than the fit itself.
    with _one_thread():
        if isinstance(K, str):
            if K != "aic":
                raise InvalidParameterError(f"K must be 'aic', an int or one int per class, got {K!r}")
            auto, K_range = _check_K_range(K_range)
            if search is None:
                search = "ward" if auto else "kmeans"
            if search not in PROTOTYPE_SEARCHES:
                raise InvalidParameterError(f"search must be one of {PROTOTYPE_SEARCHES}, got {search!r}")
            legacy = isinstance(random_state, np.random.RandomState)  # KMeans takes it as it is
            rng = random_state if legacy else np.random.default_rng(random_state)
            seed = int(rng.integers(2**31)) if isinstance(random_state, np.random.Generator) else random_state
            ks, uppers, prototypes = [], [], []
            for j in range(n_classes):
                Xj = X[y == j]
                if search == "ward":
                    k, upper, scores, centers = _ward_search(Xj, K_range, auto, max_iter, aic_form, rng, seed)
                else:
                    k, upper, scores, centers = _kmeans_search(Xj, K_range, auto, max_iter, aic_form, seed)
                aic[j] = scores
                at_bound[j] = bool(scores) and k == upper and upper > 1
                ks.append(k)
                uppers.append(upper)
                prototypes.append(centers)
            pbc = PrototypeClassifier.from_prototypes(prototypes)
        else:
            ks_in = np.broadcast_to(np.asarray(K), (n_classes,))
            ks = [check_int(ks_in[j], "K", low=1, high=int(counts[j])) for j in range(n_classes)]
            uppers, search = ks, "fixed"
            pbc = PrototypeClassifier(n_prototypes=ks, max_iter=max_iter, random_state=random_state).fit(X, y)
    if at_bound.any() and search not in ("fixed",) and K_range != "auto":
        which = ", ".join(f"class {j}: K = {ks[j]}" for j in np.flatnonzero(at_bound))
        warnings.warn(f"the AIC search for the prototypes of Î* ended on its largest candidate ({which}): "
                      f"the criterion may still rise beyond it (K_range={K_range!r}; K_range='auto' lets "
                      f"the range grow with the class); reported in TruePairEstimate.K_at_bound",
                      KRangeWarning, stacklevel=2)
    i, j = top2(pbc.decision_function(X))
    code = i * n_classes + j
    uniq, pair_index = np.unique(code, return_inverse=True)
    pairs = [(int(c // n_classes), int(c % n_classes)) for c in uniq]
    return TruePairEstimate(pairs, pair_index.astype(np.intp), np.asarray(ks), aic, pbc,
                            np.asarray(uppers), at_bound, search)


_THREADPOOL_CONTROLLER = None


def _one_thread():
    """A context limiting the native thread pools (OpenMP, BLAS) to one thread.

    The controller is built once per process, as scikit-learn does for its own limits: building
    one scans the loaded libraries, which costs ~3 ms, more than the small K-means fits it guards.
    """
    global _THREADPOOL_CONTROLLER
    if _THREADPOOL_CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _THREADPOOL_CONTROLLER = ThreadpoolController()
    return _THREADPOOL_CONTROLLER.limit(limits=1)


def _check_K_range(K_range) -> tuple[bool, tuple[int, ...] | str]:
    if isinstance(K_range, str):
        if K_range != "auto":
            raise InvalidParameterError(f"K_range must be 'auto' or a sequence of ints >= 1, got {K_range!r}")
        return True, K_range
    try:
        ks = tuple(sorted({check_int(k, "K_range", low=1) for k in K_range}))
    except TypeError:
        raise InvalidParameterError(f"K_range must be 'auto' or a sequence of ints >= 1, got {K_range!r}") from None
    if not ks:
        raise InvalidParameterError("K_range must hold at least one K")
    return False, ks


def auto_K_cap(n: int) -> int:
    """The largest K_j that ``K_range="auto"`` tries for a class of ``n`` samples: 2⌈√n⌉.

    The range grows with the class, but sub-linearly: where eq 48 keeps rising (two dimensions),
    a prototype classifier with K_j near n/2 is close to 1-NN and Î* would follow the noise.
    2⌈√n⌉ keeps 39 (the paper's largest K, §6.3) reachable from n = 362 on.

    Parameters
    ----------
    n : int
        The class size.

    Returns
    -------
    int
        2⌈√n⌉.
    """
    return 2 * math.isqrt(max(n - 1, 0)) + 2


def _candidates(K_range, auto: bool, n_distinct: int, n: int, d: int, form: str) -> list[int]:
    """K below the number of distinct samples (at least [1]); with "auto" also K d + 1 < n observations."""
    if auto:
        # eq 48 has K d + 1 parameters; "literal" models n distances, "isotropic" n d coordinates
        n_obs = n if form == "literal" else n * d
        upper = min(n_distinct - 1, (n_obs - 2) // d, auto_K_cap(n))
        return list(range(1, max(upper, 1) + 1))
    return [k for k in K_range if k < n_distinct] or [1]


def _ward_search(Xj, K_range, auto, max_iter, aic_form, rng, seed):
    from sklearn.cluster import KMeans

    n, d = Xj.shape
    sub = Xj if n <= WARD_MAX_SAMPLES else Xj[np.sort(rng.choice(n, WARD_MAX_SAMPLES, replace=False))]
    n_distinct = len(np.unique(sub, axis=0))
    cands = _candidates(K_range, auto, n_distinct, n, d, aic_form)
    if len(sub) < 2:
        return 1, 1, {}, Xj.mean(0, keepdims=True)
    Z, sse = ward_sse(sub)
    # on a subset, the class's sum of squares is estimated as n / n_sub times the subset's
    curve = aic_from_sse(sse[1:] * (n / len(sub)), n, d, np.arange(1, len(sub) + 1), aic_form)
    k, scores = _choose_K(cands, lambda K: float(curve[K - 1]), auto)
    centers = _cut_centroids(sub, Z, k)
    if k > 1:
        centers = KMeans(k, init=centers, n_init=1, max_iter=max_iter).fit(Xj).cluster_centers_
    return k, cands[-1], scores, centers


def _kmeans_search(Xj, K_range, auto, max_iter, aic_form, seed):
    from sklearn.cluster import KMeans

    n_distinct = len(np.unique(Xj, axis=0))
    cands = _candidates(K_range, auto, n_distinct, *Xj.shape, aic_form)
    fits: dict = {}

    def aic_of(k):
        fits[k] = KMeans(k, max_iter=max_iter, n_init=1, random_state=seed).fit(Xj)
        return class_aic(Xj, fits[k].cluster_centers_, fits[k].labels_, aic_form)

    k, scores = _choose_K(cands, aic_of, auto)
    if k not in fits:  # no finite AIC: K = 1
        aic_of(k)
    return k, cands[-1], scores, fits[k].cluster_centers_
